/* cli_demo.c - `ccsim demo`: a small built-in run of the network engine.
 * Not here: the engine (sim/net.h) or any replay.
 *
 * `ccsim demo`: a small built-in run of the network engine (sim/net.h),
 * printed as tables: the parking lot (max-min), strict priority over three
 * levels, and weights with a lock-step ring that crosses a link twice.  Each
 * table lists every transfer's links, size, priority, weight, its rate when
 * all have started, and its completion time; docs/engine.md derives the same
 * numbers by hand.
 */
#include <math.h>
#include <stdio.h>

#include "base/ccs.h"
#include "cli.h"
#include "sim/event.h"
#include "sim/net.h"

#define DEMO_MAX_LINKS 4

typedef struct demo_transfer {
    const char *name;
    int links[DEMO_MAX_LINKS]; /* indices into the scenario's links, -1 ends */
    double size_GB;
    int prio;
    double weight;
    double startup_s;
} demo_transfer;

typedef struct demo_scenario {
    const char *title;
    const char *note;
    const char *link_names[DEMO_MAX_LINKS];
    double link_GBps[DEMO_MAX_LINKS];
    size_t n_links;
    demo_transfer t[6];
    size_t n_t;
} demo_scenario;

static const demo_scenario scenarios[] = {
    {"Parking lot: weighted max-min within one level",
     "the long flow is held by l1 (10/2 = 5 GB/s); each short flow takes what is left",
     {"l0", "l1", "l2"},
     {30, 10, 20},
     3,
     {{"long", {0, 1, 2, -1}, 100, 0, 1, 0},
      {"short0", {0, -1}, 100, 0, 1, 0},
      {"short1", {1, -1}, 50, 0, 1, 0},
      {"short2", {2, -1}, 100, 0, 1, 0}},
     4},
    {"Strict priority: three levels share link a (100 GB/s)",
     "high is capped by x, mid by y, low gets the rest and speeds up as they end",
     {"a", "x", "y"},
     {100, 60, 30},
     3,
     {{"high", {0, 1, -1}, 600, 0, 1, 0},
      {"mid", {0, 2, -1}, 600, 1, 1, 0},
      {"low", {0, -1}, 1000, 2, 1, 0}},
     3},
    {"Weights and multiplicity on link b (90 GB/s)",
     "ring crosses b twice (multiplicity 2): 2 x_ring + x_w1 + x_w2 = 90 with x = w * lambda",
     {"b"},
     {90},
     1,
     {{"ring", {0, 0, -1}, 120, 0, 1, 0},
      {"w1", {0, -1}, 120, 0, 1, 0},
      {"w2", {0, -1}, 120, 0, 2, 0}},
     3},
};

typedef struct demo_run {
    double done_s[6];
    net_transfer_id id[6];
    size_t n;
} demo_run;

static void demo_done(void *user, net_transfer_id id, double now_s)
{
    demo_run *r = user;
    for (size_t i = 0; i < r->n; i++)
        if (r->id[i] == id)
            r->done_s[i] = now_s;
}

static bool demo_scenario_run(const demo_scenario *sc, GError **error)
{
    g_autoptr(evq) q = evq_new();
    g_autoptr(net) n = net_new(NULL, q, error);
    if (n == NULL)
        return false;
    net_link_id links[DEMO_MAX_LINKS];
    for (size_t e = 0; e < sc->n_links; e++)
        if (!net_link_add(n, ccs_GBps_to_Bps(sc->link_GBps[e]), 0, &links[e], error))
            return false;
    demo_run r = {.n = sc->n_t};
    for (size_t i = 0; i < sc->n_t; i++) {
        const demo_transfer *t = &sc->t[i];
        net_link_id tl[DEMO_MAX_LINKS];
        size_t k = 0;
        while (k < DEMO_MAX_LINKS && t->links[k] >= 0) {
            tl[k] = links[t->links[k]];
            k++;
        }
        net_transfer_spec sp = {.size_bytes = t->size_GB * 1e9,
                                .links = tl,
                                .n_links = k,
                                .prio = t->prio,
                                .weight = t->weight,
                                .startup_s = t->startup_s,
                                .on_done = demo_done,
                                .user = &r};
        r.done_s[i] = NAN;
        if (!net_transfer_start(n, &sp, &r.id[i], error))
            return false;
    }
    double rate0[6];
    for (size_t i = 0; i < sc->n_t; i++)
        rate0[i] = net_transfer_rate_Bps(n, r.id[i]) / 1e9;
    evq_run_until(q, INFINITY);

    printf("%s\n", sc->title);
    printf("  links:");
    for (size_t e = 0; e < sc->n_links; e++)
        printf(" %s %g GB/s%s", sc->link_names[e], sc->link_GBps[e],
               e + 1 < sc->n_links ? "," : "\n");
    printf("  %s\n\n", sc->note);
    printf("  %-8s %-10s %8s %5s %7s %13s %10s\n", "transfer", "links", "size_GB", "prio",
           "weight", "rate_t0_GBps", "done_s");
    for (size_t i = 0; i < sc->n_t; i++) {
        const demo_transfer *t = &sc->t[i];
        char path[64] = "";
        for (size_t k = 0; k < DEMO_MAX_LINKS && t->links[k] >= 0; k++) {
            if (k > 0)
                g_strlcat(path, ",", sizeof path);
            g_strlcat(path, sc->link_names[t->links[k]], sizeof path);
        }
        printf("  %-8s %-10s %8g %5d %7g %13.4g %10.4g\n", t->name, path, t->size_GB, t->prio,
               t->weight, rate0[i], r.done_s[i]);
    }
    net_stats st;
    net_stats_get(n, &st);
    printf("  (%" G_GUINT64_FORMAT " incremental solves, %.1f transfers re-solved per solve)\n\n",
           st.solves, st.mean_component_size);
    return true;
}

int cli_demo_main(int argc, char **argv)
{
    g_autoptr(GOptionContext) ctx = g_option_context_new("- run a small built-in engine demo");
    g_option_context_set_summary(ctx, "Runs three small networks through the flow-level engine "
                                      "and prints each transfer's rate and completion time.");
    GOptionEntry entries[] = {G_OPTION_ENTRY_NULL};
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *err = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        cli_error("%s", err->message);
        g_clear_error(&err);
        return CLI_EXIT_USAGE;
    }
    if (argc > 1) {
        cli_error("demo takes no arguments (got '%s')", argv[1]);
        return CLI_EXIT_USAGE;
    }
    for (size_t s = 0; s < G_N_ELEMENTS(scenarios); s++) {
        if (!demo_scenario_run(&scenarios[s], &err)) {
            cli_error("%s", err->message);
            g_clear_error(&err);
            return CLI_EXIT_FAILURE;
        }
    }
    return CLI_EXIT_OK;
}
