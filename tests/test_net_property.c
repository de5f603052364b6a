/* test_net_property.c - "net" suite: random workloads against the
 * reference solver after every event.  Not here: hand cases (test_net.c).
 *
 * For each seed: a random network (4..24 links, capacities U[1,100) B/s),
 * K in {1, 2, 3, 4, 8}, and ~2,000 rounds of random actions at the current
 * instant (start a transfer over 1..5 random links with repeats and
 * multiplicities 1..3, cancel one, change a priority or a weight; 1..4
 * actions per round, so several changes share an instant) followed by one
 * evq_step (or a jump in time).  Completions sometimes start a new transfer
 * from inside on_done.  After every step, every active transfer's rate must
 * equal the reference solver's on the transfers that are moving:
 *     |x_net - x_ref| <= 1e-9 * max(|x_net|, |x_ref|) + 1e-12 * C_max
 * (the absolute floor is for rates that are zero up to rounding), and
 * waiting transfers have rate 0.  At the end (and every 100 rounds) bytes
 * are conserved: sum_e carried_e = sum_i M_i * delivered_i and
 * sum_e tagged_e = sum_i tag_i * M_i * delivered_i, M_i = sum of the
 * transfer's multiplicities, within 1e-9 relative.
 * Seeds 13..20 add dominated links (net_link_set_dominator): half of the
 * links get a companion of capacity C_b x U[1, 2) (sometimes exactly C_b)
 * that a transfer on the link also crosses, half of the time, at most as
 * often; the reference solver sees the companions as ordinary links, so
 * leaving them out of the solves must change no rate, and their counters
 * enter the conservation check.
 * On a failure the seed is printed.
 */
#include <math.h>
#include <stdio.h>

#include "base/ccs.h"
#include "ref_solver.h"
#include "sim/net.h"
#include "test_net.h"
#include "test_util.h"

#define MAX_TL 5
#define MAX_LINKS (2 * MAX_TL) /* with the dominated companions */
#define MAX_ACTIVE 40

typedef struct ptrack {
    net_transfer_id id;
    uint32_t links[MAX_LINKS];
    uint32_t mult[MAX_LINKS];
    size_t n_links;
    int prio;
    double weight, size_bytes, tag;
    double move_at_s; /* start + startup: when its bytes start moving */
    double M;         /* sum of multiplicities */
    bool live;
    double delivered; /* final, once not live */
} ptrack;

typedef struct prop {
    evq *q;
    net *n;
    GRand *rng;
    guint32 seed;
    int K;
    size_t n_links;
    size_t n_base; /* links a transfer picks; the companions follow them */
    double *cap;
    double cap_max;
    int64_t *companion; /* [link]: its dominated companion, or -1 */
    GArray *tr;        /* ptrack */
    GHashTable *by_id; /* id -> index + 1 */
    GArray *live;      /* indices of live tracks */
    bool failed;
    uint64_t checks;
} prop;

static void prop_done(void *user, net_transfer_id id, double now_s);

static void remove_live(prop *p, size_t idx)
{
    for (guint i = 0; i < p->live->len; i++) {
        if (g_array_index(p->live, size_t, i) == idx) {
            g_array_remove_index_fast(p->live, i);
            return;
        }
    }
    g_assert_not_reached();
}

static void prop_start(prop *p)
{
    ptrack t = {0};
    size_t base = (size_t)g_rand_int_range(p->rng, 1, MAX_TL + 1);
    for (size_t k = 0; k < base; k++) {
        uint32_t e = (uint32_t)g_rand_int_range(p->rng, 0, (gint32)p->n_base);
        uint32_t m = g_rand_double(p->rng) < 0.3 ? (uint32_t)g_rand_int_range(p->rng, 2, 4) : 1;
        t.links[t.n_links] = e;
        t.mult[t.n_links++] = m;
        t.M += m;
        if (p->companion && p->companion[e] >= 0 && g_rand_boolean(p->rng)) {
            m = (uint32_t)g_rand_int_range(p->rng, 1, (gint32)m + 1);
            t.links[t.n_links] = (uint32_t)p->companion[e];
            t.mult[t.n_links++] = m;
            t.M += m;
        }
    }
    t.prio = g_rand_int_range(p->rng, 0, p->K);
    t.weight = g_rand_double(p->rng) < 0.5 ? 1.0 : g_rand_double_range(p->rng, 0.2, 5.0);
    t.size_bytes = g_rand_double_range(p->rng, 1, 500);
    t.tag = g_rand_double_range(p->rng, 0, 3);
    double startup = g_rand_boolean(p->rng) ? 0.0 : g_rand_double_range(p->rng, 0, 0.5);
    t.move_at_s = evq_now(p->q) + startup;
    t.live = true;
    net_transfer_spec sp = {.size_bytes = t.size_bytes,
                            .links = t.links,
                            .mult = t.mult,
                            .n_links = t.n_links,
                            .prio = t.prio,
                            .weight = t.weight,
                            .startup_s = startup,
                            .tag = t.tag,
                            .on_done = prop_done,
                            .user = p};
    GError *err = NULL;
    if (!net_transfer_start(p->n, &sp, &t.id, &err)) {
        fprintf(stderr, "seed %u: start failed: %s\n", p->seed, err->message);
        g_clear_error(&err);
        p->failed = true;
        return;
    }
    size_t idx = p->tr->len;
    g_array_append_val(p->tr, t);
    g_hash_table_insert(p->by_id, g_memdup2(&t.id, sizeof t.id), GSIZE_TO_POINTER(idx + 1));
    g_array_append_val(p->live, idx);
}

static void prop_done(void *user, net_transfer_id id, double now_s)
{
    (void)now_s;
    prop *p = user;
    gpointer v = g_hash_table_lookup(p->by_id, &id);
    if (v == NULL) {
        fprintf(stderr, "seed %u: on_done for an unknown id\n", p->seed);
        p->failed = true;
        return;
    }
    size_t idx = GPOINTER_TO_SIZE(v) - 1;
    ptrack *t = &g_array_index(p->tr, ptrack, idx);
    if (!t->live || now_s < t->move_at_s) {
        fprintf(stderr, "seed %u: transfer done while not moving\n", p->seed);
        p->failed = true;
    }
    t->live = false;
    t->delivered = t->size_bytes;
    remove_live(p, idx);
    if (p->live->len < MAX_ACTIVE && g_rand_double(p->rng) < 0.3)
        prop_start(p);
}

static ptrack *pick_live(prop *p, size_t *idx_out)
{
    if (p->live->len == 0)
        return NULL;
    guint i = (guint)g_rand_int_range(p->rng, 0, (gint32)p->live->len);
    size_t idx = g_array_index(p->live, size_t, i);
    if (idx_out)
        *idx_out = idx;
    return &g_array_index(p->tr, ptrack, idx);
}

static void prop_action(prop *p)
{
    GError *err = NULL;
    double r = g_rand_double(p->rng);
    size_t idx;
    if (r < 0.45 || p->live->len == 0) {
        if (p->live->len < MAX_ACTIVE)
            prop_start(p);
    } else if (r < 0.6) {
        ptrack *t = pick_live(p, &idx);
        double rem = net_transfer_remaining_bytes(p->n, t->id);
        if (!net_transfer_cancel(p->n, t->id, &err)) {
            fprintf(stderr, "seed %u: cancel failed: %s\n", p->seed, err->message);
            g_clear_error(&err);
            p->failed = true;
            return;
        }
        t->live = false;
        t->delivered = t->size_bytes - rem;
        remove_live(p, idx);
    } else if (r < 0.85) {
        ptrack *t = pick_live(p, NULL);
        t->prio = g_rand_int_range(p->rng, 0, p->K);
        if (!net_transfer_set_priority(p->n, t->id, t->prio, &err))
            p->failed = true;
    } else {
        ptrack *t = pick_live(p, NULL);
        t->weight = g_rand_double_range(p->rng, 0.2, 5.0);
        if (!net_transfer_set_weight(p->n, t->id, t->weight, &err))
            p->failed = true;
    }
    g_clear_error(&err);
}

/* Every live transfer's rate against the reference solver. */
static void prop_check_rates(prop *p)
{
    double now = evq_now(p->q);
    size_t n = p->live->len;
    ref_transfer *rt = g_new(ref_transfer, n ? n : 1);
    size_t *which = g_new(size_t, n ? n : 1);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        ptrack *t = &g_array_index(p->tr, ptrack, g_array_index(p->live, size_t, i));
        if (!net_transfer_is_active(p->n, t->id)) {
            fprintf(stderr, "seed %u: a live transfer is not active at %g\n", p->seed, now);
            p->failed = true;
        }
        if (t->move_at_s > now) {
            if (net_transfer_rate_Bps(p->n, t->id) != 0) {
                fprintf(stderr, "seed %u: a waiting transfer has a rate\n", p->seed);
                p->failed = true;
            }
            continue;
        }
        rt[m] = (ref_transfer){t->links, t->mult, t->n_links, t->prio, t->weight};
        which[m++] = g_array_index(p->live, size_t, i);
    }
    double *rates = g_new(double, m ? m : 1);
    ref_solve(p->n_links, p->cap, m, rt, p->K, rates);
    for (size_t i = 0; i < m; i++) {
        ptrack *t = &g_array_index(p->tr, ptrack, which[i]);
        double x = net_transfer_rate_Bps(p->n, t->id);
        double tol = 1e-9 * fmax(fabs(x), fabs(rates[i])) + 1e-12 * p->cap_max;
        if (!(fabs(x - rates[i]) <= tol)) {
            fprintf(stderr,
                    "seed %u: at t=%.17g transfer %zu (prio %d): net rate %.17g, reference %.17g\n",
                    p->seed, now, which[i], t->prio, x, rates[i]);
            p->failed = true;
        }
    }
    p->checks++;
    g_free(rates);
    g_free(which);
    g_free(rt);
}

/* sum_e carried_e = sum_i M_i delivered_i (and the same weighted by tag). */
static void prop_check_conservation(prop *p)
{
    double carried = 0, tagged = 0, want = 0, want_tag = 0;
    for (size_t e = 0; e < p->n_links; e++) {
        net_link_stats st;
        CU_ASSERT_TRUE(net_link_stats_get(p->n, (net_link_id)e, &st, NULL));
        carried += st.carried_bytes;
        tagged += st.tagged_bytes;
    }
    for (guint i = 0; i < p->tr->len; i++) {
        ptrack *t = &g_array_index(p->tr, ptrack, i);
        double d = t->live ? t->size_bytes - net_transfer_remaining_bytes(p->n, t->id)
                           : t->delivered;
        want += t->M * d;
        want_tag += t->tag * t->M * d;
    }
    if (!ccs_double_equals(carried, want, 1e-9) || !ccs_double_equals(tagged, want_tag, 1e-9)) {
        fprintf(stderr, "seed %u: carried %.17g vs delivered*M %.17g; tagged %.17g vs %.17g\n",
                p->seed, carried, want, tagged, want_tag);
        p->failed = true;
    }
}

/* Give about half of the links a dominated companion (the header). */
static void add_companions(prop *p)
{
    size_t n = p->n_links;
    p->companion = g_new(int64_t, 2 * n);
    p->cap = g_renew(double, p->cap, 2 * n);
    for (size_t e = 0; e < 2 * n; e++)
        p->companion[e] = -1;
    for (size_t e = 0; e < n; e++) {
        if (!g_rand_boolean(p->rng))
            continue;
        double c = g_rand_boolean(p->rng) ? p->cap[e]
                                          : p->cap[e] * g_rand_double_range(p->rng, 1, 2);
        net_link_id a = 0;
        GError *err = NULL;
        if (!net_link_add(p->n, c, 0, &a, &err) ||
            !net_link_set_dominator(p->n, a, (net_link_id)e, &err)) {
            fprintf(stderr, "seed %u: companion: %s\n", p->seed, err->message);
            g_clear_error(&err);
            p->failed = true;
            return;
        }
        p->cap[a] = c;
        p->companion[e] = a;
        p->n_links = a + 1;
    }
}

static bool run_seed(guint32 seed, int rounds, bool dominated)
{
    static const int levels[] = {1, 2, 3, 4, 8};
    prop p = {0};
    p.seed = seed;
    p.rng = g_rand_new_with_seed(seed);
    p.q = evq_new();
    p.K = levels[seed % G_N_ELEMENTS(levels)];
    net_options o = net_options_default();
    o.prio_levels = p.K;
    p.n = net_new(&o, p.q, NULL);
    p.n_links = (size_t)g_rand_int_range(p.rng, 4, 25);
    p.n_base = p.n_links;
    p.cap = g_new(double, p.n_links);
    for (size_t e = 0; e < p.n_links; e++) {
        p.cap[e] = g_rand_double_range(p.rng, 1, 100);
        p.cap_max = fmax(p.cap_max, p.cap[e]);
        net_link_add(p.n, p.cap[e], g_rand_double_range(p.rng, 0, 0.01), NULL, NULL);
    }
    if (dominated)
        add_companions(&p);
    p.tr = g_array_new(FALSE, FALSE, sizeof(ptrack));
    p.live = g_array_new(FALSE, FALSE, sizeof(size_t));
    p.by_id = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);

    for (int r = 0; r < rounds && !p.failed; r++) {
        int actions = g_rand_int_range(p.rng, 0, 5);
        for (int a = 0; a < actions; a++)
            prop_action(&p);
        if (g_rand_double(p.rng) < 0.1)
            prop_check_rates(&p); /* a query right after the changes */
        if (g_rand_double(p.rng) < 0.9) {
            evq_step(p.q);
        } else {
            double to = evq_now(p.q) + g_rand_double_range(p.rng, 0, 1);
            while (evq_next_time(p.q) <= to && !p.failed) {
                evq_step(p.q);
                prop_check_rates(&p);
            }
            evq_run_until(p.q, to);
        }
        prop_check_rates(&p);
        if (r % 100 == 99)
            prop_check_conservation(&p);
    }
    evq_run_until(p.q, INFINITY);
    prop_check_rates(&p);
    prop_check_conservation(&p);
    CU_ASSERT_EQUAL(p.live->len, 0);

    bool ok = !p.failed;
    if (!ok)
        fprintf(stderr, "net property test failed with seed %u\n", seed);
    net_stats st;
    net_stats_get(p.n, &st);
    g_debug("seed %u: K=%d links=%zu transfers=%u checks=%" G_GUINT64_FORMAT
            " solves=%" G_GUINT64_FORMAT,
            seed, p.K, p.n_links, p.tr->len, p.checks, st.solves);
    net_free(p.n);
    evq_free(p.q);
    g_rand_free(p.rng);
    g_free(p.cap);
    g_free(p.companion);
    g_array_free(p.tr, TRUE);
    g_array_free(p.live, TRUE);
    g_hash_table_destroy(p.by_id);
    return ok;
}

void test_net_property_vs_reference(void)
{
    /* 12 seeds x 2,000 rounds: tens of thousands of checked events. */
    for (guint32 seed = 1; seed <= 12; seed++)
        CU_ASSERT_TRUE(run_seed(seed, 2000, false));
    for (guint32 seed = 13; seed <= 20; seed++)
        CU_ASSERT_TRUE(run_seed(seed, 2000, true));
}
