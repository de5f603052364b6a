/* cli_list.c - `ccsim list`: schedulers, topology builders, catalog models.
 * Not here: the tables it prints (schedulers/, topo/, traces/).
 *
 * Every line fits 80 columns: long texts wrap, long names get their own line.
 */
#include <stdio.h>
#include <string.h>

#include "base/ccs.h"
#include "base/limits.h"
#include "cli.h"
#include "schedulers/registry.h"
#include "topo/topo.h"
#include "traces/catalog.h"
#include "traces/mdot.h"

#define WIDTH 80 /* a terminal's columns: every line fits */

/* Print text after `used` columns already printed on the line, wrapped at
 * spaces to WIDTH with continuation lines indented by indent. */
static void print_wrapped(const char *text, int used, int indent)
{
    int col = used;
    g_auto(GStrv) words = g_strsplit(text, " ", -1);
    bool first = true;
    for (char **w = words; *w; w++) {
        int len = (int)strlen(*w);
        if (len == 0)
            continue;
        if (!first && col + 1 + len > WIDTH) {
            printf("\n%*s", indent, "");
            col = indent;
            first = true;
        }
        printf("%s%s", first ? "" : " ", *w);
        col += len + (first ? 0 : 1);
        first = false;
    }
    printf("\n");
}

static void list_schedulers(void)
{
    printf("schedulers (--sched NAME):\n");
    for (size_t i = 0; i < sched_registry_count(); i++) {
        const sched_ops *o = sched_registry_get(i);
        printf("  %-17s ", o->name);
        print_wrapped(o->summary, 20, 20);
    }
}

static void list_topologies(void)
{
    size_t n = 0;
    const topo_builder_info *b = topo_builders(&n);
    printf("topologies (--topo NAME:key=value,...; parameters with their defaults):\n");
    for (size_t i = 0; i < n; i++) {
        printf("  %-17s ", b[i].name);
        print_wrapped(b[i].summary, 20, 20);
        printf("%6s", "");
        print_wrapped(b[i].params, 6, 6);
    }
}

static void model_row(const catalog_model *m)
{
    /* a name longer than its column gets a line of its own */
    if (strlen(m->name) > 18)
        printf("  %s\n  %-18s", m->name, "");
    else
        printf("  %-18s", m->name);
    printf(" %8.3g %8.3g %8.4g %8.4g%c %4.2f %5.2f %s\n", m->params, m->grad_bytes,
           m->compute_s[CATALOG_GPU_A100], m->compute_s[CATALOG_GPU_H100],
           m->gpu_note ? '*' : ' ', m->fwd_frac, m->comm_start_frac,
           m->network ? catalog_collective_name(m->collective) : "none");
}

/* Which entries' compute times the MDOT predictor gave (docs/mdot.md). */
static void print_compute_sources(const catalog *c)
{
    g_autoptr(GString) names = g_string_new(NULL);
    for (size_t i = 0; i < catalog_count(c); i++)
        if (catalog_get(c, i)->predicted)
            g_string_append_printf(names, "%s%s", names->len ? ", " : "", catalog_get(c, i)->name);
    g_autofree char *line =
        names->len ? g_strdup_printf("Compute predicted by MDOT (%s, docs/mdot.md): %s; every "
                                     "other entry measured.", MDOT_VERSION, names->str)
                   : g_strdup("Compute: every entry measured (docs/models.md); none predicted "
                              "by MDOT (docs/mdot.md).");
    printf("  ");
    print_wrapped(line, 2, 2);
}

static bool list_models(GError **error)
{
    g_autoptr(catalog) c = catalog_load_default(error);
    if (!c)
        return false;
    printf("models (trace model names map onto these; --gpu picks the compute column):\n");
    printf("  %-18s %8s %8s %8s %8s  %4s %5s %s\n", "name", "params", "grad_B", "a100_s",
           "h100_s", "fwd", "start", "collective");
    for (size_t i = 0; i < catalog_count(c); i++)
        model_row(catalog_get(c, i));
    printf("\n  ");
    print_wrapped("params: parameters. grad_B: gradient bytes one data-parallel replica "
                  "reduces per iteration. a100_s, h100_s: compute (forward + backward) of one "
                  "iteration on one GPU, seconds; * marks an entry whose H100 time is not "
                  "below its A100 time, which says why (docs/models.md). fwd: the forward "
                  "pass's share of compute. start: share of compute done when the gradient "
                  "communication starts (= fwd when it overlaps the backward pass, 1 when it "
                  "follows it). collective: the data-parallel communication pattern.",
                  2, 2);
    print_compute_sources(c);
    return true;
}

int cli_list_main(int argc, char **argv)
{
    gboolean s_only = FALSE, t_only = FALSE, m_only = FALSE, limits = FALSE;
    GOptionEntry entries[] = {
        {"limits", 0, 0, G_OPTION_ARG_NONE, &limits,
         "only the input limits, as docs/usage.md's \"Limits\" table (markdown)", NULL},
        {"schedulers", 0, 0, G_OPTION_ARG_NONE, &s_only, "only the schedulers", NULL},
        {"topologies", 0, 0, G_OPTION_ARG_NONE, &t_only, "only the topology builders", NULL},
        {"models", 0, 0, G_OPTION_ARG_NONE, &m_only, "only the catalog models", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("- list schedulers, topologies, models");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *e = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &e)) {
        cli_error("list: %s", e->message);
        g_error_free(e);
        return CLI_EXIT_USAGE;
    }
    if (limits) {
        g_autofree char *table = ccs_limit_table_markdown();
        fputs(table, stdout);
        return CLI_EXIT_OK;
    }
    bool all = !s_only && !t_only && !m_only;
    if (all || s_only)
        list_schedulers();
    if (all || t_only) {
        if (all)
            printf("\n");
        list_topologies();
    }
    if (all || m_only) {
        if (all)
            printf("\n");
        if (!list_models(&e)) {
            cli_error("%s", e->message);
            g_error_free(e);
            return CLI_EXIT_FAILURE;
        }
    }
    return CLI_EXIT_OK;
}
