/* test_net.c - suite "net": the flow-level network engine (sim/net.h).
 * Not here: properties (test_net_property.c), bad input (test_net_errors.c).
 *
 * Hand-computed cases first (each derives its numbers in its comment), then
 * a seeded property test against the reference solver (ref_solver.h), then
 * the error table.
 */
#include "sim/net.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/ccs.h"
#include "test_net.h"
#include "test_util.h"

#define EPS 1e-12 /* tolerance of the hand-computed cases */

/* A queue and a net, freed together. */
typedef struct fixture {
    evq *q;
    net *n;
    GArray *done; /* done_rec, in completion order */
} fixture;

typedef struct done_rec {
    net_transfer_id id;
    double now_s;
} done_rec;

static void fixture_init(fixture *f, int prio_levels)
{
    GError *err = NULL;
    f->q = evq_new();
    net_options o = net_options_default();
    if (prio_levels > 0)
        o.prio_levels = prio_levels;
    f->n = net_new(&o, f->q, &err);
    TEST_ASSERT_NO_ERROR(err);
    f->done = g_array_new(FALSE, FALSE, sizeof(done_rec));
}

static void fixture_clear(fixture *f)
{
    net_free(f->n);
    evq_free(f->q);
    g_array_free(f->done, TRUE);
}

static void record_done(void *user, net_transfer_id id, double now_s)
{
    fixture *f = user;
    done_rec r = {id, now_s};
    g_array_append_val(f->done, r);
}

static net_link_id add_link(fixture *f, double cap_Bps, double lat_s)
{
    GError *err = NULL;
    net_link_id id = 0;
    CU_ASSERT_TRUE(net_link_add(f->n, cap_Bps, lat_s, &id, &err));
    TEST_ASSERT_NO_ERROR(err);
    return id;
}

/* Start a transfer with weight 1 and no tag over links (mult NULL = 1). */
static net_transfer_id start(fixture *f, double size, const net_link_id *links,
                             const uint32_t *mult, size_t n_links, int prio, double weight,
                             double startup_s, double tag)
{
    GError *err = NULL;
    net_transfer_spec sp = {.size_bytes = size,
                            .links = links,
                            .mult = mult,
                            .n_links = n_links,
                            .prio = prio,
                            .weight = weight,
                            .startup_s = startup_s,
                            .tag = tag,
                            .on_done = record_done,
                            .user = f};
    net_transfer_id id = NET_TRANSFER_NONE;
    CU_ASSERT_TRUE(net_transfer_start(f->n, &sp, &id, &err));
    TEST_ASSERT_NO_ERROR(err);
    return id;
}

/* When did transfer id complete (NAN if it did not)? */
static double done_at(const fixture *f, net_transfer_id id)
{
    for (guint i = 0; i < f->done->len; i++)
        if (g_array_index(f->done, done_rec, i).id == id)
            return g_array_index(f->done, done_rec, i).now_s;
    return NAN;
}

/* One link of 100 B/s; A = 1000 bytes and B = 500 bytes start at 0.
 * Both get 100/2 = 50 B/s.  At t=4: A has 1000-200 = 800 left, B 300.
 * B ends at 500/50 = 10 s; A then has 1000-500 = 500 left and runs alone
 * at 100 B/s, ending at 10 + 500/100 = 15 s. */
static void test_net_one_link_two_flows(void)
{
    fixture f;
    fixture_init(&f, 0);
    net_link_id l = add_link(&f, 100, 0);
    net_transfer_id a = start(&f, 1000, &l, NULL, 1, 0, 1, 0, 0);
    net_transfer_id b = start(&f, 500, &l, NULL, 1, 0, 1, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 50, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, b), 50, EPS);
    evq_run_until(f.q, 4);
    TEST_ASSERT_CLOSE(net_transfer_remaining_bytes(f.n, a), 800, EPS);
    TEST_ASSERT_CLOSE(net_transfer_remaining_bytes(f.n, b), 300, EPS);
    evq_run_until(f.q, 10);
    CU_ASSERT_FALSE(net_transfer_is_active(f.n, b));
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 100, EPS);
    TEST_ASSERT_CLOSE(net_transfer_remaining_bytes(f.n, a), 500, EPS);
    evq_run_until(f.q, INFINITY);
    TEST_ASSERT_CLOSE(done_at(&f, b), 10, EPS);
    TEST_ASSERT_CLOSE(done_at(&f, a), 15, EPS);
    CU_ASSERT_EQUAL(f.done->len, 2);
    fixture_clear(&f);
}

/* Parking lot: links l0 = 30, l1 = 10, l2 = 20 B/s.  The long flow crosses
 * all three; one short flow per link (s0, s1, s2).
 * Max-min: saturation levels 30/2 = 15, 10/2 = 5, 20/2 = 10; l1 saturates
 * first: long = s1 = 5.  Then s0 = 30 - 5 = 25, s2 = 20 - 5 = 15.
 * Sizes: long 100, s0 100, s1 50, s2 100.
 * s0 ends at 100/25 = 4 (long is held by l1: nothing changes);
 * s2 ends at 100/15 = 20/3; s1 ends at 50/5 = 10; long has 100 - 50 = 50
 * left and now runs alone at min(30, 10, 20) = 10, ending at 10 + 5 = 15. */
static void test_net_parking_lot(void)
{
    fixture f;
    fixture_init(&f, 0);
    net_link_id l[3] = {add_link(&f, 30, 0), add_link(&f, 10, 0), add_link(&f, 20, 0)};
    net_transfer_id lg = start(&f, 100, l, NULL, 3, 0, 1, 0, 0);
    net_transfer_id s0 = start(&f, 100, &l[0], NULL, 1, 0, 1, 0, 0);
    net_transfer_id s1 = start(&f, 50, &l[1], NULL, 1, 0, 1, 0, 0);
    net_transfer_id s2 = start(&f, 100, &l[2], NULL, 1, 0, 1, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, lg), 5, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, s0), 25, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, s1), 5, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, s2), 15, EPS);
    evq_run_until(f.q, 12);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, lg), 10, EPS);
    evq_run_until(f.q, INFINITY);
    TEST_ASSERT_CLOSE(done_at(&f, s0), 4, EPS);
    TEST_ASSERT_CLOSE(done_at(&f, s2), 20.0 / 3.0, EPS);
    TEST_ASSERT_CLOSE(done_at(&f, s1), 10, EPS);
    TEST_ASSERT_CLOSE(done_at(&f, lg), 15, EPS);
    fixture_clear(&f);
}

/* Strict priority, three levels, on link a = 100 B/s.
 * H (prio 0, 600 bytes) over {a, x}, x = 60: H = 60.
 * M (prio 1, 600 bytes) over {a, y}, y = 30: residual of a is 40, M = 30.
 * L (prio 2, 1000 bytes) over {a}: residual 100 - 60 - 30 = 10.
 * H ends at 600/60 = 10.  M then has 300 left, still held by y at 30:
 * ends at 10 + 300/30 = 20.  L: 100 bytes by t=10, then 100 - 30 = 70 B/s:
 * 700 more by t=20 (800 total), then 100 B/s for the last 200: ends at 22.
 * Second part, link b = 50: P (prio 0, 100 bytes) takes it all (50), Q
 * (prio 3, 100 bytes) gets 0 and keeps its 100 bytes until P ends at 2;
 * then Q runs at 50 and ends at 4. */
static void test_net_strict_priority(void)
{
    fixture f;
    fixture_init(&f, 0);
    net_link_id a = add_link(&f, 100, 0), x = add_link(&f, 60, 0), y = add_link(&f, 30, 0);
    net_link_id b = add_link(&f, 50, 0);
    net_link_id hx[2] = {a, x}, my[2] = {a, y};
    net_transfer_id h = start(&f, 600, hx, NULL, 2, 0, 1, 0, 0);
    net_transfer_id m = start(&f, 600, my, NULL, 2, 1, 1, 0, 0);
    net_transfer_id lo = start(&f, 1000, &a, NULL, 1, 2, 1, 0, 0);
    net_transfer_id p = start(&f, 100, &b, NULL, 1, 0, 1, 0, 0);
    net_transfer_id qq = start(&f, 100, &b, NULL, 1, 3, 1, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, h), 60, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, m), 30, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, lo), 10, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, p), 50, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, qq), 0, EPS);
    evq_run_until(f.q, 1);
    TEST_ASSERT_CLOSE(net_transfer_remaining_bytes(f.n, qq), 100, EPS);
    evq_run_until(f.q, 3);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, qq), 50, EPS);
    evq_run_until(f.q, 15);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, m), 30, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, lo), 70, EPS);
    evq_run_until(f.q, INFINITY);
    TEST_ASSERT_CLOSE(done_at(&f, p), 2, EPS);
    TEST_ASSERT_CLOSE(done_at(&f, qq), 4, EPS);
    TEST_ASSERT_CLOSE(done_at(&f, h), 10, EPS);
    TEST_ASSERT_CLOSE(done_at(&f, m), 20, EPS);
    TEST_ASSERT_CLOSE(done_at(&f, lo), 22, EPS);
    fixture_clear(&f);
}

/* Weights: link 90 B/s, A weight 1, B weight 2, 300 bytes each:
 * x = w * lambda with 3 lambda = 90: A = 30, B = 60.  B ends at 300/60 = 5;
 * A has 300 - 150 = 150 left, runs at 90: ends at 5 + 150/90 = 20/3.
 * Weights only matter within a level: C (prio 1, weight 100) on the same
 * link gets 0 until A and B are done, then 90: C = 90 bytes ends at
 * 20/3 + 1. */
static void test_net_weights(void)
{
    fixture f;
    fixture_init(&f, 0);
    net_link_id l = add_link(&f, 90, 0);
    net_transfer_id a = start(&f, 300, &l, NULL, 1, 0, 1, 0, 0);
    net_transfer_id b = start(&f, 300, &l, NULL, 1, 0, 2, 0, 0);
    net_transfer_id c = start(&f, 90, &l, NULL, 1, 1, 100, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 30, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, b), 60, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, c), 0, EPS);
    evq_run_until(f.q, INFINITY);
    TEST_ASSERT_CLOSE(done_at(&f, b), 5, EPS);
    TEST_ASSERT_CLOSE(done_at(&f, a), 20.0 / 3.0, EPS);
    TEST_ASSERT_CLOSE(done_at(&f, c), 20.0 / 3.0 + 1, EPS);
    fixture_clear(&f);
}

/* Multiplicity: link a = 100, b = 1000.  R crosses a twice and b once
 * (mult {2, 1}): 2 x <= 100 gives x = 50; loads a = 100, b = 50.
 * R2 is the same transfer given as links {a, b, a} without mult: same rate.
 * With R and S (over a once) together (R2 cancelled): a carries
 * 2 x_R + x_S with x_R = x_S = lambda: 3 lambda = 100, both 100/3. */
static void test_net_multiplicity(void)
{
    fixture f;
    fixture_init(&f, 0);
    net_link_id a = add_link(&f, 100, 0), b = add_link(&f, 1000, 0);
    net_link_id ab[2] = {a, b};
    uint32_t m21[2] = {2, 1};
    net_transfer_id r = start(&f, 1e6, ab, m21, 2, 0, 1, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, r), 50, EPS);
    net_link_stats st;
    GError *err = NULL;
    CU_ASSERT_TRUE(net_link_stats_get(f.n, a, &st, &err));
    TEST_ASSERT_CLOSE(st.load_Bps, 100, EPS);
    CU_ASSERT_TRUE(net_link_stats_get(f.n, b, &st, &err));
    TEST_ASSERT_CLOSE(st.load_Bps, 50, EPS);
    GError *e2 = NULL;
    CU_ASSERT_TRUE(net_transfer_cancel(f.n, r, &e2));
    TEST_ASSERT_NO_ERROR(e2);

    net_link_id aba[3] = {a, b, a};
    net_transfer_id r2 = start(&f, 1e6, aba, NULL, 3, 0, 1, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, r2), 50, EPS);
    net_transfer_id s = start(&f, 1e6, &a, NULL, 1, 0, 1, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, r2), 100.0 / 3.0, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, s), 100.0 / 3.0, EPS);
    CU_ASSERT_TRUE(net_link_stats_get(f.n, a, &st, &err));
    TEST_ASSERT_CLOSE(st.load_Bps, 100, EPS);
    TEST_ASSERT_NO_ERROR(err);
    fixture_clear(&f);
}

/* Latency: links a (1 ms) and b (2 ms), 1000 B/s each; path latency
 * 3 ms; with alpha = 5 ms the startup is 8 ms.  500 bytes then move at
 * 1000 B/s: completion at 0.008 + 0.5 = 0.508 s.  During the startup the
 * transfer is active, its rate is 0, its 500 bytes remain and the links
 * carry nothing. */
static void test_net_latency(void)
{
    fixture f;
    fixture_init(&f, 0);
    net_link_id ab[2] = {add_link(&f, 1000, 1e-3), add_link(&f, 1000, 2e-3)};
    double path = net_path_latency_s(f.n, ab, 2);
    TEST_ASSERT_CLOSE(path, 3e-3, EPS);
    TEST_ASSERT_CLOSE(net_link_latency_s(f.n, ab[1]), 2e-3, EPS);
    net_transfer_id t = start(&f, 500, ab, NULL, 2, 0, 1, 5e-3 + path, 0);
    evq_run_until(f.q, 4e-3);
    CU_ASSERT_TRUE(net_transfer_is_active(f.n, t));
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, t), 0, EPS);
    TEST_ASSERT_CLOSE(net_transfer_remaining_bytes(f.n, t), 500, EPS);
    net_link_stats st;
    CU_ASSERT_TRUE(net_link_stats_get(f.n, ab[0], &st, NULL));
    TEST_ASSERT_CLOSE(st.load_Bps, 0, EPS);
    evq_run_until(f.q, INFINITY);
    TEST_ASSERT_CLOSE(done_at(&f, t), 0.508, EPS);
    fixture_clear(&f);
}

/* Link counters on a = 100 B/s.  A: 300 bytes, tag 2, from 0.  B: 100
 * bytes, tag 0.5, startup 1 s.  [0,1): A alone at 100 (100 bytes).
 * [1,3): 50 each: B's 100 bytes end at 3, A has 300-100-100 = 100 left.
 * [3,4): A at 100, ends at 4.  Link a: busy 4 s, carried 400 bytes,
 * tagged 300*2 + 100*0.5 = 650; at t=2 its load is 100 and it has carried
 * 100 + 2*50 = 200 bytes, tagged 100*2 + 50*2 + 50*0.5 = 325.
 * C (10 bytes) over d = 10 B/s with startup 6: d busy from 6 to 7 only;
 * at t=10: busy 1 s, carried 10. */
static void test_net_link_counters(void)
{
    fixture f;
    fixture_init(&f, 0);
    net_link_id a = add_link(&f, 100, 0), d = add_link(&f, 10, 0);
    start(&f, 300, &a, NULL, 1, 0, 1, 0, 2.0);
    start(&f, 100, &a, NULL, 1, 0, 1, 1.0, 0.5);
    start(&f, 10, &d, NULL, 1, 0, 1, 6.0, 0);
    net_link_stats st;
    GError *err = NULL;
    evq_run_until(f.q, 2);
    CU_ASSERT_TRUE(net_link_stats_get(f.n, a, &st, &err));
    TEST_ASSERT_CLOSE(st.load_Bps, 100, EPS);
    TEST_ASSERT_CLOSE(st.carried_bytes, 200, EPS);
    TEST_ASSERT_CLOSE(st.tagged_bytes, 325, EPS);
    TEST_ASSERT_CLOSE(st.busy_s, 2, EPS);
    evq_run_until(f.q, 10);
    CU_ASSERT_TRUE(net_link_stats_get(f.n, a, &st, &err));
    TEST_ASSERT_CLOSE(st.load_Bps, 0, EPS);
    TEST_ASSERT_CLOSE(st.carried_bytes, 400, EPS);
    TEST_ASSERT_CLOSE(st.tagged_bytes, 650, EPS);
    TEST_ASSERT_CLOSE(st.busy_s, 4, EPS);
    CU_ASSERT_TRUE(net_link_stats_get(f.n, d, &st, &err));
    TEST_ASSERT_CLOSE(st.busy_s, 1, EPS);
    TEST_ASSERT_CLOSE(st.carried_bytes, 10, EPS);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_EQUAL(f.done->len, 3);
    fixture_clear(&f);
}

/* In-place changes on a 100 B/s link.  A and B: 1000 bytes, prio 0,
 * weight 1: 50 each.  At t=2 (100 bytes each moved) A drops to prio 1:
 * B = 100, A = 0.  At t=4 B has moved 100 + 200 = 300 (700 left), A still
 * 900 left; A returns to prio 0 with weight 3: A = 75, B = 25.  A ends at
 * 4 + 900/75 = 16; B then has 700 - 25*12 = 400 left at 100 B/s: ends at
 * 20. */
static void test_net_set_priority_weight(void)
{
    fixture f;
    fixture_init(&f, 0);
    GError *err = NULL;
    net_link_id l = add_link(&f, 100, 0);
    net_transfer_id a = start(&f, 1000, &l, NULL, 1, 0, 1, 0, 0);
    net_transfer_id b = start(&f, 1000, &l, NULL, 1, 0, 1, 0, 0);
    evq_run_until(f.q, 2);
    CU_ASSERT_TRUE(net_transfer_set_priority(f.n, a, 1, &err));
    CU_ASSERT_EQUAL(net_transfer_priority(f.n, a), 1);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 0, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, b), 100, EPS);
    evq_run_until(f.q, 4);
    TEST_ASSERT_CLOSE(net_transfer_remaining_bytes(f.n, a), 900, EPS);
    TEST_ASSERT_CLOSE(net_transfer_remaining_bytes(f.n, b), 700, EPS);
    CU_ASSERT_TRUE(net_transfer_set_priority(f.n, a, 0, &err));
    CU_ASSERT_TRUE(net_transfer_set_weight(f.n, a, 3, &err));
    TEST_ASSERT_CLOSE(net_transfer_weight(f.n, a), 3, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 75, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, b), 25, EPS);
    TEST_ASSERT_NO_ERROR(err);
    evq_run_until(f.q, INFINITY);
    TEST_ASSERT_CLOSE(done_at(&f, a), 16, EPS);
    TEST_ASSERT_CLOSE(done_at(&f, b), 20, EPS);
    fixture_clear(&f);
}

/* Cancel: A and B (1000 bytes) share 100 B/s; at t=2 B is cancelled (its
 * on_done is not called; its id goes stale); A has 900 left at 100: ends
 * at 11. */
static void test_net_cancel(void)
{
    fixture f;
    fixture_init(&f, 0);
    GError *err = NULL;
    net_link_id l = add_link(&f, 100, 0);
    net_transfer_id a = start(&f, 1000, &l, NULL, 1, 0, 1, 0, 0);
    net_transfer_id b = start(&f, 1000, &l, NULL, 1, 0, 1, 0, 0);
    evq_run_until(f.q, 2);
    CU_ASSERT_TRUE(net_transfer_cancel(f.n, b, &err));
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FALSE(net_transfer_is_active(f.n, b));
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, b), 0, 0);
    CU_ASSERT_FALSE(net_transfer_cancel(f.n, b, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    evq_run_until(f.q, INFINITY);
    TEST_ASSERT_CLOSE(done_at(&f, a), 11, EPS);
    CU_ASSERT_EQUAL(f.done->len, 1);
    /* a waiting transfer can be cancelled too, and its startup never fires */
    net_transfer_id w = start(&f, 10, &l, NULL, 1, 0, 1, 5, 0);
    CU_ASSERT_TRUE(net_transfer_cancel(f.n, w, &err));
    evq_run_until(f.q, INFINITY);
    CU_ASSERT_EQUAL(f.done->len, 1);
    CU_ASSERT_EQUAL(evq_size(f.q), 0);
    fixture_clear(&f);
}

/* Batching: 10 transfers started at t=0 and 10 priority changes at t=1
 * each cost one solve (2 in all, counted in net_stats.solves); queries
 * after a solve add none.  All 10 share 100 B/s at prio 0: 10 each; after
 * the change transfer i is at level i % 4: the 3 at level 0 (i = 0, 4, 8)
 * share the link (100/3 each) and the others get 0. */
static void test_net_batching(void)
{
    fixture f;
    fixture_init(&f, 0);
    GError *err = NULL;
    net_link_id l = add_link(&f, 100, 0);
    net_transfer_id t[10];
    for (int i = 0; i < 10; i++)
        t[i] = start(&f, 1e6, &l, NULL, 1, 0, 1, 0, 0);
    net_stats st;
    net_stats_get(f.n, &st);
    CU_ASSERT_EQUAL(st.solves, 0);
    evq_run_until(f.q, 1);
    net_stats_get(f.n, &st);
    CU_ASSERT_EQUAL(st.solves, 1);
    CU_ASSERT_EQUAL(st.transfers_started, 10);
    TEST_ASSERT_CLOSE(st.mean_component_size, 10, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, t[3]), 10, EPS);
    for (int i = 0; i < 10; i++)
        CU_ASSERT_TRUE(net_transfer_set_priority(f.n, t[i], i % 4, &err));
    TEST_ASSERT_NO_ERROR(err);
    evq_run_until(f.q, 1);
    net_stats_get(f.n, &st);
    CU_ASSERT_EQUAL(st.solves, 2);
    for (int i = 0; i < 10; i++)
        TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, t[i]), i % 4 == 0 ? 100.0 / 3.0 : 0, EPS);
    net_stats_get(f.n, &st);
    CU_ASSERT_EQUAL(st.solves, 2);
    fixture_clear(&f);
}

/* A component far away is not re-solved: links a and b, 5 transfers on
 * a, 1 on b.  The first solve re-solves all 6.  The one on b ends at
 * 1/100 = 0.01 s: it was alone on b throughout (b kept lazily), so its
 * end leaves nothing to solve and asks for no solve at all; the 5 on a
 * are untouched. */
static void test_net_component_locality(void)
{
    fixture f;
    fixture_init(&f, 0);
    net_link_id a = add_link(&f, 100, 0), b = add_link(&f, 100, 0);
    for (int i = 0; i < 5; i++)
        start(&f, 1e6, &a, NULL, 1, 0, 1, 0, 0);
    start(&f, 1, &b, NULL, 1, 0, 1, 0, 0);
    evq_run_until(f.q, 0);
    net_stats st;
    net_stats_get(f.n, &st);
    CU_ASSERT_EQUAL(st.solves, 1);
    CU_ASSERT_EQUAL(st.resolved_transfers, 6);
    evq_run_until(f.q, 1);
    net_stats_get(f.n, &st);
    CU_ASSERT_EQUAL(st.transfers_done, 1);
    CU_ASSERT_EQUAL(st.solves, 1);
    CU_ASSERT_EQUAL(st.resolved_transfers, 6);
    fixture_clear(&f);
}

/* Chaining from on_done: each completion of a 100-byte transfer on a
 * 100 B/s link starts the next (5 in all): they end at 1, 2, 3, 4, 5. */
typedef struct chain {
    fixture *f;
    net_link_id l;
    int left;
} chain;

static void chain_done(void *user, net_transfer_id id, double now_s)
{
    chain *c = user;
    record_done(c->f, id, now_s);
    CU_ASSERT_FALSE(net_transfer_is_active(c->f->n, id));
    if (--c->left > 0) {
        net_transfer_spec sp = {.size_bytes = 100, .links = &c->l, .n_links = 1, .weight = 1,
                                .on_done = chain_done, .user = c};
        CU_ASSERT_TRUE(net_transfer_start(c->f->n, &sp, NULL, NULL));
    }
}

static void test_net_chain_from_callback(void)
{
    fixture f;
    fixture_init(&f, 0);
    chain c = {&f, add_link(&f, 100, 0), 5};
    net_transfer_spec sp = {.size_bytes = 100, .links = &c.l, .n_links = 1, .weight = 1,
                            .on_done = chain_done, .user = &c};
    CU_ASSERT_TRUE(net_transfer_start(f.n, &sp, NULL, NULL));
    evq_run_until(f.q, INFINITY);
    CU_ASSERT_EQUAL(f.done->len, 5);
    for (guint i = 0; i < f.done->len; i++)
        TEST_ASSERT_CLOSE(g_array_index(f.done, done_rec, i).now_s, i + 1.0, EPS);
    fixture_clear(&f);
}

/* A transfer's arg: read back while it waits and moves and inside its
 * on_done, 0 once it is reaped or cancelled, or for an id never given.
 * A (arg 7) and B (arg 9, 1 s startup) of 100 bytes on 100 B/s: A moves
 * alone at 100 B/s and ends at 1 s (its on_done reads 7), as B starts; B
 * then moves alone and ends at 2 s (9).  C (arg 5, waiting) is cancelled. */
typedef struct arg_seen {
    net *n;
    uint64_t args[2];
    size_t count;
} arg_seen;

static void arg_done(void *user, net_transfer_id id, double now_s)
{
    (void)now_s;
    arg_seen *a = user;
    if (a->count < 2)
        a->args[a->count++] = net_transfer_arg(a->n, id);
}

static void test_net_arg(void)
{
    fixture f;
    fixture_init(&f, 0);
    net_link_id l = add_link(&f, 100, 0);
    arg_seen seen = {.n = f.n};
    net_transfer_spec sp = {.size_bytes = 100, .links = &l, .n_links = 1, .weight = 1,
                            .on_done = arg_done, .user = &seen, .arg = 7};
    net_transfer_id a = NET_TRANSFER_NONE, b = NET_TRANSFER_NONE, c = NET_TRANSFER_NONE;
    CU_ASSERT_TRUE(net_transfer_start(f.n, &sp, &a, NULL));
    sp.arg = 9;
    sp.startup_s = 1;
    CU_ASSERT_TRUE(net_transfer_start(f.n, &sp, &b, NULL));
    sp.arg = 5;
    CU_ASSERT_TRUE(net_transfer_start(f.n, &sp, &c, NULL));
    CU_ASSERT_EQUAL(net_transfer_arg(f.n, a), 7); /* moving */
    CU_ASSERT_EQUAL(net_transfer_arg(f.n, b), 9); /* waiting */
    CU_ASSERT_TRUE(net_transfer_cancel(f.n, c, NULL));
    CU_ASSERT_EQUAL(net_transfer_arg(f.n, c), 0);
    evq_run_until(f.q, INFINITY);
    CU_ASSERT_EQUAL(seen.count, 2);
    CU_ASSERT_EQUAL(seen.args[0], 7);
    CU_ASSERT_EQUAL(seen.args[1], 9);
    TEST_ASSERT_CLOSE(evq_now(f.q), 2, EPS);
    CU_ASSERT_EQUAL(net_transfer_arg(f.n, a), 0);
    CU_ASSERT_EQUAL(net_transfer_arg(f.n, b), 0);
    CU_ASSERT_EQUAL(net_transfer_arg(f.n, NET_TRANSFER_NONE), 0);
    fixture_clear(&f);
}

/* Link removal: an unused link goes (its id is not reused: the next link
 * gets id 2), a used one cannot. */
static void test_net_link_remove(void)
{
    fixture f;
    fixture_init(&f, 0);
    GError *err = NULL;
    net_link_id a = add_link(&f, 100, 0), b = add_link(&f, 100, 0);
    net_transfer_id t = start(&f, 100, &a, NULL, 1, 0, 1, 0, 0);
    CU_ASSERT_FALSE(net_link_remove(f.n, a, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_TRUE(net_link_remove(f.n, b, &err));
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FALSE(net_link_exists(f.n, b));
    CU_ASSERT_TRUE(isnan(net_link_capacity_Bps(f.n, b)));
    CU_ASSERT_FALSE(net_link_remove(f.n, b, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_EQUAL(add_link(&f, 5, 0), 2);
    CU_ASSERT_EQUAL(net_link_count(f.n), 3);
    CU_ASSERT_TRUE(net_transfer_cancel(f.n, t, NULL));
    CU_ASSERT_TRUE(net_link_remove(f.n, a, &err));
    TEST_ASSERT_NO_ERROR(err);
    fixture_clear(&f);
}

/* Which links net_links_moved reports.  Links a, b, c of 100 B/s; X (200
 * bytes over a and b) moves at 100 B/s over [0, 2); Y (100 bytes over c,
 * startup 5 s) over [5, 6).  At t=1: {a, b} (loaded).  At t=3: {a, b}
 * again (they carried load in [1, 2)), then the set restarts empty: at
 * t=4: {}.  At t=10: {c}, whose counter moved by 100 bytes. */
static void test_net_links_moved(void)
{
    fixture f;
    fixture_init(&f, 0);
    net_link_id a = add_link(&f, 100, 0), b = add_link(&f, 100, 0), c = add_link(&f, 100, 0);
    net_link_id ab[] = {a, b};
    start(&f, 200, ab, NULL, 2, 0, 1, 0, 0);
    start(&f, 100, &c, NULL, 1, 3, 1, 5.0, 0);
    size_t n = 99;
    evq_run_until(f.q, 1);
    const uint32_t *m = net_links_moved(f.n, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(m[0], a);
    CU_ASSERT_EQUAL(m[1], b);
    evq_run_until(f.q, 3);
    m = net_links_moved(f.n, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(m[0], a);
    CU_ASSERT_EQUAL(m[1], b);
    evq_run_until(f.q, 4);
    net_links_moved(f.n, &n);
    CU_ASSERT_EQUAL(n, 0);
    evq_run_until(f.q, 10);
    m = net_links_moved(f.n, &n);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(m[0], c);
    net_link_stats st;
    CU_ASSERT_TRUE(net_link_stats_get(f.n, c, &st, NULL));
    TEST_ASSERT_CLOSE(st.carried_bytes, 100, EPS);
    fixture_clear(&f);
}

/* net_transfers_delay / net_links_delay on one 100 B/s link.  A: 1000 B
 * from 0, alone at 100 B/s, tag 2.  At t = 3 (300 B moved, 700 left) A
 * and its link are delayed by 10 s, the link's counters advanced by
 * (carried 50, busy 1, tagged 7) meanwhile.  Peeks at 3 read rem 700,
 * rate 100, completion 10 without solving.  A then completes at
 * 10 + 10 = 20; the link's counters at 20: carried 300 + 50 + 700 = 1050,
 * busy 3 + 1 + 7 = 11 s, tagged 600 + 7 + 1400 = 2007; at 8 (inside the
 * delay) they stay at the values of 3 plus the added amounts. */
static void test_net_delay(void)
{
    fixture f;
    fixture_init(&f, 0);
    net_link_id l = add_link(&f, 100, 0);
    net_transfer_id a = start(&f, 1000, &l, NULL, 1, 0, 1, 0, 2.0);
    evq_run_until(f.q, 3);
    net_transfer_view v;
    CU_ASSERT_TRUE(net_transfer_peek(f.n, a, &v));
    CU_ASSERT_TRUE(v.moving);
    TEST_ASSERT_CLOSE(v.rem_bytes, 700, EPS);
    TEST_ASSERT_CLOSE(v.rate_Bps, 100, EPS);
    TEST_ASSERT_CLOSE(v.event_s, 10, EPS);
    net_link_stats st;
    CU_ASSERT_TRUE(net_link_stats_peek(f.n, l, &st));
    TEST_ASSERT_CLOSE(st.carried_bytes, 300, EPS);
    net_transfers_delay(f.n, &a, 1, 10);
    net_link_stats add = {.carried_bytes = 50, .busy_s = 1, .tagged_bytes = 7};
    net_links_delay(f.n, &l, 1, &add, 10);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 100, EPS);
    evq_run_until(f.q, 8);
    CU_ASSERT_TRUE(net_link_stats_get(f.n, l, &st, NULL));
    TEST_ASSERT_CLOSE(st.carried_bytes, 350, EPS);
    TEST_ASSERT_CLOSE(st.busy_s, 4, EPS);
    CU_ASSERT_EQUAL(f.done->len, 0);
    evq_run_until(f.q, INFINITY);
    TEST_ASSERT_CLOSE(done_at(&f, a), 20, EPS);
    CU_ASSERT_TRUE(net_link_stats_get(f.n, l, &st, NULL));
    TEST_ASSERT_CLOSE(st.carried_bytes, 1050, EPS);
    TEST_ASSERT_CLOSE(st.busy_s, 11, EPS);
    TEST_ASSERT_CLOSE(st.tagged_bytes, 2007, EPS);
    CU_ASSERT_FALSE(net_transfer_peek(f.n, a, &v));
    fixture_clear(&f);
}

/* Re-solved transfers in the solve of what is pending now. */
static uint64_t flush_count(fixture *f)
{
    net_stats a, b;
    net_stats_get(f->n, &a);
    net_flush(f->n);
    net_stats_get(f->n, &b);
    return b.resolved_transfers - a.resolved_transfers;
}

/* The search goes only through tight links (docs/engine.md section 4).
 * Part 1: links F (100 B/s) and G (10 B/s); a on {F, G} gets 10 (G is its
 * bottleneck) and leaves F slack (10 of 100).  b starts on {F}: b is
 * touched, F was slack, so a stays outside at 10; b is filled on
 * 100 - 10 = 90 and F saturates, but a's x/w there (10) is below b's (90),
 * so F is b's bottleneck and nothing grows: a = 10, b = 90, 1 transfer
 * re-solved (the whole component would be 2).
 * Part 2: links B (10 B/s) and C (6 B/s); c on {B, C} gets 6 (C) and
 * leaves B slack.  d starts on {B}: filled alone on 10 - 6 = 4, B
 * saturates with the outside c at x/w 6 > 4, so B is not d's bottleneck:
 * c joins and the fill runs again: B gives 10/2 = 5 each and C (6) does
 * not bind: c = d = 5, 2 transfers re-solved (the count is the final S_L's). */
static void test_net_tight_search(void)
{
    fixture f;
    fixture_init(&f, 1);
    net_link_id F = add_link(&f, 100, 0), G = add_link(&f, 10, 0);
    net_link_id B = add_link(&f, 10, 0), C = add_link(&f, 6, 0);
    net_link_id fg[] = {F, G}, bc[] = {B, C};
    net_transfer_id a = start(&f, 1e9, fg, NULL, 2, 0, 1, 0, 0);
    net_transfer_id c = start(&f, 1e9, bc, NULL, 2, 0, 1, 0, 0);
    CU_ASSERT_EQUAL(flush_count(&f), 2);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 10, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, c), 6, EPS);
    net_transfer_id b = start(&f, 1e9, &F, NULL, 1, 0, 1, 0, 0);
    CU_ASSERT_EQUAL(flush_count(&f), 1);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 10, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, b), 90, EPS);
    net_transfer_id d = start(&f, 1e9, &B, NULL, 1, 0, 1, 0, 0);
    CU_ASSERT_EQUAL(flush_count(&f), 2);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, c), 5, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, d), 5, EPS);
    fixture_clear(&f);
}

/* Private links (docs/engine.md section 4): a link with one moving user
 * stays out of the search, its user keeps the bound C / (m w) of such links.
 * Links B (16 B/s), S (12 B/s), D (100 B/s); p on {B, B, S} (B twice: m = 2),
 * q on {S, D}.  B and D are private, S shared.
 * 1. weights 1: S saturates at lambda = 12 / 2 = 6 before B (16 / 2 = 8):
 *    p = q = 6.
 * 2. p's weight 3: B's bound is 16 / (2 * 3) = 8/3 < S's 12 / (3 + 1) = 3:
 *    p = 3 * 8/3 = 8, q = 12 - 8 = 4 (with the bound of weight 1, 8, left
 *    in place S would bind first: p = 9, q = 3, and B would carry 18 > 16).
 * 3. r on {B} (weight 1) starts: B is shared now, 2 * 3 lambda + lambda =
 *    16 gives 16/7 < S's 3: p = 48/7, r = 16/7, then q = 12 - 48/7 = 36/7.
 * 4. r is cancelled: B is private to p again: p = 8, q = 4 as in 2. */
static void test_net_private_bound(void)
{
    fixture f;
    fixture_init(&f, 1);
    net_link_id B = add_link(&f, 16, 0), S = add_link(&f, 12, 0), D = add_link(&f, 100, 0);
    net_link_id bbs[] = {B, B, S}, sd[] = {S, D};
    net_transfer_id p = start(&f, 1e9, bbs, NULL, 3, 0, 1, 0, 0);
    net_transfer_id q = start(&f, 1e9, sd, NULL, 2, 0, 1, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, p), 6, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, q), 6, EPS);
    CU_ASSERT_TRUE(net_transfer_set_weight(f.n, p, 3, NULL));
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, p), 8, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, q), 4, EPS);
    net_transfer_id r = start(&f, 1e9, &B, NULL, 1, 0, 1, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, p), 48.0 / 7, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, r), 16.0 / 7, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, q), 36.0 / 7, EPS);
    CU_ASSERT_TRUE(net_transfer_cancel(f.n, r, NULL));
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, p), 8, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, q), 4, EPS);
    fixture_clear(&f);
}

/* Links a transfer is alone on at its level (docs/engine.md section 4): a
 * link shared with other levels only, reached by a search that did not
 * start there, is folded into its user's bound for that solve.  Links P
 * (4 B/s), E (10 B/s), S (4 B/s); a (level 0) on {P, E}, b (level 1) on
 * {E, E, S} (m = 2 on E), d (level 1) on {S}.
 * 1. a = 4 (P; E leaves 10).  Level 1: E has 10 - 4 = 6 left, b's bound
 *    there 6 / 2 = 3; S gives 4 / 2 = 2 each: b = d = 2 (E carries
 *    4 + 2 * 2 = 8 of 10).
 * 2. d is cancelled: S is seeded, b is its tight user and is re-solved; E
 *    (b alone at level 1, not seeded) bounds b at (10 - 4) / 2 = 3 < S's 4:
 *    b = 3 and E carries 4 + 2 * 3 = 10.  (With E's capacity instead of
 *    its level-1 residual b would get min(10 / 2, 4) = 4; without the
 *    multiplicity min(6, 4) = 4.) */
static void test_net_level_private(void)
{
    fixture f;
    fixture_init(&f, 2);
    net_link_id P = add_link(&f, 4, 0), E = add_link(&f, 10, 0), S = add_link(&f, 4, 0);
    net_link_id pe[] = {P, E}, ees[] = {E, E, S};
    net_transfer_id a = start(&f, 1e9, pe, NULL, 2, 0, 1, 0, 0);
    net_transfer_id b = start(&f, 1e9, ees, NULL, 3, 1, 1, 0, 0);
    net_transfer_id d = start(&f, 1e9, &S, NULL, 1, 1, 1, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 4, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, b), 2, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, d), 2, EPS);
    CU_ASSERT_TRUE(net_transfer_cancel(f.n, d, NULL));
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, b), 3, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 4, EPS);
    net_link_stats st;
    CU_ASSERT_TRUE(net_link_stats_get(f.n, E, &st, NULL));
    TEST_ASSERT_CLOSE(st.load_Bps, 10, EPS);
    fixture_clear(&f);
}

/* A transfer with more links than one word of its eager-link bits (64):
 * a on L0 .. L69, L69 at 10 B/s, the others at 100: a = 10 (L69), every
 * link private.  b starts on {L69} (a's 70th link, second word): L69 is
 * shared, 10 / 2 = 5 each, L69 carries 10 and L0 (lazy) 5.  b is
 * cancelled: a = 10 again, L69 and L0 carry 10. */
static void test_net_many_links(void)
{
    fixture f;
    fixture_init(&f, 1);
    net_link_id ls[70];
    for (int i = 0; i < 70; i++)
        ls[i] = add_link(&f, i == 69 ? 10 : 100, 0);
    net_transfer_id a = start(&f, 1e9, ls, NULL, 70, 0, 1, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 10, EPS);
    net_transfer_id b = start(&f, 1e9, &ls[69], NULL, 1, 0, 1, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 5, EPS);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, b), 5, EPS);
    net_link_stats st;
    CU_ASSERT_TRUE(net_link_stats_get(f.n, ls[69], &st, NULL));
    TEST_ASSERT_CLOSE(st.load_Bps, 10, EPS);
    CU_ASSERT_TRUE(net_link_stats_get(f.n, ls[0], &st, NULL));
    TEST_ASSERT_CLOSE(st.load_Bps, 5, EPS);
    CU_ASSERT_TRUE(net_transfer_cancel(f.n, b, NULL));
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 10, EPS);
    CU_ASSERT_TRUE(net_link_stats_get(f.n, ls[69], &st, NULL));
    TEST_ASSERT_CLOSE(st.load_Bps, 10, EPS);
    CU_ASSERT_TRUE(net_link_stats_get(f.n, ls[0], &st, NULL));
    TEST_ASSERT_CLOSE(st.load_Bps, 10, EPS);
    fixture_clear(&f);
}

/* Lazy link counters (docs/engine.md section 4): a private link's counters
 * are summed from its user's rate phases when read.  Links P (100 B/s) and
 * S (60 B/s); A on {P, P, S} (m = 2 on P), tag 2, from 0; B on {S} from 2.
 * [0,2): A alone: P bounds it at 100 / 2 = 50 (S: 60): A = 50, P's load
 *   2 * 50 = 100.  At t=1 P has carried 100 * 1 = 100 bytes, tagged 200,
 *   busy 1 s; S carried 50.
 * [2,4): S shared: 60 / 2 = 30 < 50: A = B = 30, P's load 60.  At t=4 P
 *   has carried 100 * 2 + 60 * 2 = 320 bytes (the two phases), tagged 640,
 *   busy 4 s; S 50 * 2 + 60 * 2 = 220, tagged 2 * (50 * 2 + 30 * 2) = 320
 *   (B has tag 0).
 * A is cancelled at 4: at 6 P still reads 320 bytes, busy 4 s, load 0. */
static void check_link(fixture *f, net_link_id e, double load, double carried, double tagged,
                       double busy)
{
    net_link_stats get, peek;
    CU_ASSERT_TRUE(net_link_stats_peek(f->n, e, &peek));
    CU_ASSERT_TRUE(net_link_stats_get(f->n, e, &get, NULL));
    const net_link_stats *both[] = {&peek, &get};
    for (int i = 0; i < 2; i++) {
        TEST_ASSERT_CLOSE(both[i]->load_Bps, load, EPS);
        TEST_ASSERT_CLOSE(both[i]->carried_bytes, carried, EPS);
        TEST_ASSERT_CLOSE(both[i]->tagged_bytes, tagged, EPS);
        TEST_ASSERT_CLOSE(both[i]->busy_s, busy, EPS);
    }
}

static void test_net_lazy_counters(void)
{
    fixture f;
    fixture_init(&f, 1);
    net_link_id P = add_link(&f, 100, 0), S = add_link(&f, 60, 0);
    net_link_id pps[] = {P, P, S};
    net_transfer_id a = start(&f, 1e9, pps, NULL, 3, 0, 1, 0, 2.0);
    evq_run_until(f.q, 1);
    size_t n_moved = 0;
    const uint32_t *moved = net_links_moved(f.n, &n_moved);
    CU_ASSERT_EQUAL_FATAL(n_moved, 2);
    CU_ASSERT_EQUAL(moved[0], P);
    CU_ASSERT_EQUAL(moved[1], S);
    check_link(&f, P, 100, 100, 200, 1);
    evq_run_until(f.q, 2);
    start(&f, 1e9, &S, NULL, 1, 0, 1, 0, 0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, a), 30, EPS);
    evq_run_until(f.q, 4);
    check_link(&f, P, 60, 320, 640, 4);
    check_link(&f, S, 60, 220, 320, 4);
    CU_ASSERT_TRUE(net_transfer_cancel(f.n, a, NULL));
    evq_run_until(f.q, 6);
    check_link(&f, P, 0, 320, 640, 4);
    fixture_clear(&f);
}

/* Dominated links (net_link_set_dominator).  K = 2; B = 10 B/s, A = 20 B/s
 * dominated by B.
 * T1 on B at level 0 (10 bytes) takes B whole until t = 1; T2 on A and B
 * at level 1 (20 bytes, tag 1) is starved until then, so A is idle: load
 * 0, busy 0.  Then T2 moves at 10 (B binds, A would allow 20) and ends at
 * 1 + 20/10 = 3: at t = 2 A has carried 10 bytes in 1 s, load 10; at the
 * end 20 bytes, busy 2 s, tagged 20.
 * T3 on A and B (100 bytes, tag 0) from t = 4 moves at 10; at t = 5 A has
 * 30 bytes and 3 s busy.  The fast path then delays T3 and A by 10 s,
 * adding 50 bytes, 1 s and 7 tagged bytes to A: at t = 8 A reads 80 bytes,
 * 4 s; T3's 90 bytes left move from 15 at 10 B/s, ending at 24, when A
 * holds 170 bytes, 13 s busy and 27 tagged. */
static void test_net_dominated(void)
{
    fixture f;
    fixture_init(&f, 2);
    net_link_id B = add_link(&f, 10, 0), A = add_link(&f, 20, 0);
    GError *err = NULL;
    CU_ASSERT_TRUE(net_link_set_dominator(f.n, A, B, &err));
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_TRUE(net_link_set_dominator(f.n, A, B, NULL)); /* again: the same fact */
    net_transfer_id t1 = start(&f, 10, &B, NULL, 1, 0, 1, 0, 0);
    net_link_id ab[] = {A, B};
    net_transfer_id t2 = start(&f, 20, ab, NULL, 2, 1, 1, 0, 1.0);
    TEST_ASSERT_CLOSE(net_transfer_rate_Bps(f.n, t2), 0, EPS);
    CU_ASSERT_TRUE(net_link_in_use(f.n, A));
    CU_ASSERT_FALSE(net_link_remove(f.n, A, NULL));
    evq_run_until(f.q, 0.5);
    check_link(&f, A, 0, 0, 0, 0);
    evq_run_until(f.q, 2);
    TEST_ASSERT_CLOSE(done_at(&f, t1), 1, EPS);
    check_link(&f, A, 10, 10, 10, 1);
    evq_run_until(f.q, 4);
    TEST_ASSERT_CLOSE(done_at(&f, t2), 3, EPS);
    check_link(&f, A, 0, 20, 20, 2);
    CU_ASSERT_FALSE(net_link_in_use(f.n, A));
    size_t n_moved = 0;
    const uint32_t *moved = net_links_moved(f.n, &n_moved);
    CU_ASSERT_EQUAL_FATAL(n_moved, 2);
    CU_ASSERT_EQUAL(moved[0], B);
    CU_ASSERT_EQUAL(moved[1], A);
    net_transfer_id t3 = start(&f, 100, ab, NULL, 2, 0, 1, 0, 0);
    evq_run_until(f.q, 5);
    check_link(&f, A, 10, 30, 20, 3);
    net_transfers_delay(f.n, &t3, 1, 10);
    net_link_stats add = {.carried_bytes = 50, .busy_s = 1, .tagged_bytes = 7};
    net_links_delay(f.n, &A, 1, &add, 10);
    evq_run_until(f.q, 8);
    check_link(&f, A, 10, 80, 27, 4);
    evq_run_until(f.q, INFINITY);
    TEST_ASSERT_CLOSE(done_at(&f, t3), 24, EPS);
    check_link(&f, A, 0, 170, 27, 13);
    fixture_clear(&f);
}

/* What net_link_set_dominator() and a transfer on a dominated link refuse;
 * a link declared after it carried bytes keeps them. */
static void test_net_dominated_errors(void)
{
    fixture f;
    fixture_init(&f, 1);
    net_link_id B = add_link(&f, 10, 0), A = add_link(&f, 20, 0), C = add_link(&f, 5, 0);
    net_link_id D = add_link(&f, 30, 0);
    GError *err = NULL;
    CU_ASSERT_FALSE(net_link_set_dominator(f.n, A, A, &err)); /* itself */
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    g_clear_error(&err);
    CU_ASSERT_FALSE(net_link_set_dominator(f.n, C, B, &err)); /* C is the tighter */
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    g_clear_error(&err);
    CU_ASSERT_FALSE(net_link_set_dominator(f.n, A, 99, &err)); /* no such link */
    g_clear_error(&err);
    CU_ASSERT_TRUE(net_link_set_dominator(f.n, A, B, NULL));
    CU_ASSERT_FALSE(net_link_set_dominator(f.n, A, C, &err)); /* another dominator */
    g_clear_error(&err);
    CU_ASSERT_FALSE(net_link_set_dominator(f.n, D, A, &err)); /* A is dominated */
    g_clear_error(&err);
    CU_ASSERT_FALSE(net_link_set_dominator(f.n, B, C, &err)); /* B dominates */
    g_clear_error(&err);
    start(&f, 10, &D, NULL, 1, 0, 1, 0, 0);
    CU_ASSERT_FALSE(net_link_set_dominator(f.n, D, B, &err)); /* in use */
    g_clear_error(&err);
    /* once free, D may be declared: its 10 bytes in 1/3 s stay counted */
    evq_run_until(f.q, INFINITY);
    CU_ASSERT_TRUE(net_link_set_dominator(f.n, D, B, NULL));
    check_link(&f, D, 0, 10, 0, 1.0 / 3);
    /* A without B, and A twice with B once: refused, nothing started */
    net_transfer_spec sp = {.size_bytes = 1, .links = &A, .n_links = 1, .weight = 1};
    net_transfer_id id = NET_TRANSFER_NONE;
    CU_ASSERT_FALSE(net_transfer_start(f.n, &sp, &id, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    g_clear_error(&err);
    net_link_id aab[] = {A, A, B};
    sp.links = aab;
    sp.n_links = 3;
    CU_ASSERT_FALSE(net_transfer_start(f.n, &sp, &id, &err));
    g_clear_error(&err);
    CU_ASSERT_FALSE(net_link_in_use(f.n, A));
    net_link_id abb[] = {A, B, B};
    sp.links = abb;
    CU_ASSERT_TRUE(net_transfer_start(f.n, &sp, &id, &err));
    TEST_ASSERT_NO_ERROR(err);
    fixture_clear(&f);
}

/* A dominator taken back: the link is in the solves again, at its own
 * capacity, its counters going on from what it carried while dominated;
 * what net_link_clear_dominator() refuses. */
static void test_net_dominated_clear(void)
{
    fixture f;
    fixture_init(&f, 1);
    net_link_id B = add_link(&f, 10, 0), A = add_link(&f, 20, 0), C = add_link(&f, 5, 0);
    GError *err = NULL;
    CU_ASSERT_FALSE(net_link_clear_dominator(f.n, A, &err)); /* not dominated */
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    g_clear_error(&err);
    CU_ASSERT_TRUE(net_link_set_dominator(f.n, A, B, NULL));
    /* 10 bytes on A and B at B's 10 B/s: done at t = 1 */
    net_link_id ab[] = {A, B};
    net_transfer_id t1 = start(&f, 10, ab, NULL, 2, 0, 1, 0, 1.0);
    CU_ASSERT_FALSE(net_link_clear_dominator(f.n, A, &err)); /* in use */
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    g_clear_error(&err);
    CU_ASSERT_FALSE(net_link_set_dominator(f.n, B, C, NULL)); /* B dominates A */
    evq_run_until(f.q, 2);
    TEST_ASSERT_CLOSE(done_at(&f, t1), 1, EPS);
    CU_ASSERT_TRUE(net_link_clear_dominator(f.n, A, &err));
    TEST_ASSERT_NO_ERROR(err);
    check_link(&f, A, 0, 10, 10, 1);
    /* A alone moves 40 bytes at its own 20 B/s from t = 2: done at 4 */
    net_transfer_id t2 = start(&f, 40, &A, NULL, 1, 0, 1, 0, 0);
    evq_run_until(f.q, 3);
    check_link(&f, A, 20, 30, 10, 2);
    evq_run_until(f.q, INFINITY);
    TEST_ASSERT_CLOSE(done_at(&f, t2), 4, EPS);
    check_link(&f, A, 0, 50, 10, 3);
    check_link(&f, B, 0, 10, 10, 1);
    /* B dominates nothing now: it may be dominated itself */
    CU_ASSERT_TRUE(net_link_set_dominator(f.n, B, C, &err));
    TEST_ASSERT_NO_ERROR(err);
    check_link(&f, B, 0, 10, 10, 1);
    fixture_clear(&f);
}

/* Twins (net_link_set_twin).  K = 2; B = 10 B/s, A = 20 B/s, C = 40 B/s.
 * Before it is declared, A alone carries T0's 20 bytes at 20 B/s, done at
 * t = 1 (A: 20 bytes, busy 1).  From t = 1 A is B's twin: T1 (10 bytes,
 * tag 1) on A and B moves at B's 10 B/s until t = 2; at t = 1.5 A holds
 * 20 + 5 bytes, 1.5 s busy, 5 tagged, load 10.  T2 (30 bytes, tag 0) on A
 * and B from t = 2 at 10 B/s: at t = 3, B has carried 20 bytes, 2 s busy,
 * 10 tagged, A 40, 3 s, 10.  The fast path then delays T2, A and B by
 * 10 s, adding 50 bytes, 1 s and 7 tagged bytes to each: A 90, 4 s, 17,
 * B 70, 3 s, 17 (A counts B's bytes since t = 1 and its own addition, not
 * B's); T2's 20 bytes left move from 13 and end at 15: B 90, 5 s; A 110,
 * 6 s, 17.  Taken back at 16, A moves 40 bytes on C's path alone at its
 * own 20 B/s until 18: 150 bytes, 8 s. */
static void test_net_twin(void)
{
    fixture f;
    fixture_init(&f, 2);
    net_link_id B = add_link(&f, 10, 0), A = add_link(&f, 20, 0), C = add_link(&f, 40, 0);
    start(&f, 20, &A, NULL, 1, 0, 1, 0, 0);
    evq_run_until(f.q, 1);
    GError *err = NULL;
    CU_ASSERT_TRUE(net_link_set_twin(f.n, A, B, &err));
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_TRUE(net_link_set_twin(f.n, A, B, NULL)); /* again: the same fact */
    CU_ASSERT_FALSE(net_link_set_dominator(f.n, A, B, NULL)); /* not a weaker one */
    net_link_id ab[] = {A, B};
    net_transfer_id t1 = start(&f, 10, ab, NULL, 2, 0, 1, 0, 1.0);
    CU_ASSERT_TRUE(net_link_in_use(f.n, A));
    CU_ASSERT_FALSE(net_link_remove(f.n, A, NULL));
    CU_ASSERT_FALSE(net_link_clear_dominator(f.n, A, &err)); /* in use */
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    g_clear_error(&err);
    evq_run_until(f.q, 1.5);
    check_link(&f, A, 10, 25, 5, 1.5);
    evq_run_until(f.q, 2);
    TEST_ASSERT_CLOSE(done_at(&f, t1), 2, EPS);
    size_t n_moved = 0;
    const uint32_t *moved = net_links_moved(f.n, &n_moved);
    CU_ASSERT_EQUAL_FATAL(n_moved, 2);
    CU_ASSERT_EQUAL(moved[0], B);
    CU_ASSERT_EQUAL(moved[1], A);
    net_transfer_id t2 = start(&f, 30, ab, NULL, 2, 0, 1, 0, 0);
    evq_run_until(f.q, 3);
    check_link(&f, B, 10, 20, 10, 2);
    check_link(&f, A, 10, 40, 10, 3);
    net_transfers_delay(f.n, &t2, 1, 10);
    net_link_stats add[] = {{.carried_bytes = 50, .busy_s = 1, .tagged_bytes = 7},
                            {.carried_bytes = 50, .busy_s = 1, .tagged_bytes = 7}};
    net_links_delay(f.n, ab, 2, add, 10);
    evq_run_until(f.q, 8);
    check_link(&f, B, 10, 70, 17, 3);
    check_link(&f, A, 10, 90, 17, 4);
    evq_run_until(f.q, 16);
    TEST_ASSERT_CLOSE(done_at(&f, t2), 15, EPS);
    check_link(&f, B, 0, 90, 17, 5);
    check_link(&f, A, 0, 110, 17, 6);
    CU_ASSERT_TRUE(net_link_clear_dominator(f.n, A, &err));
    TEST_ASSERT_NO_ERROR(err);
    check_link(&f, A, 0, 110, 17, 6);
    net_link_id ac[] = {A, C};
    start(&f, 40, ac, NULL, 2, 0, 1, 0, 0);
    evq_run_until(f.q, INFINITY);
    check_link(&f, A, 0, 150, 17, 8);
    check_link(&f, B, 0, 90, 17, 5);
    fixture_clear(&f);
}

/* What net_link_set_twin() and a transfer on a twin refuse; a transfer on
 * a link with twins crosses them, named or not. */
static void test_net_twin_errors(void)
{
    fixture f;
    fixture_init(&f, 1);
    net_link_id B = add_link(&f, 10, 0), A = add_link(&f, 20, 0), C = add_link(&f, 5, 0);
    net_link_id D = add_link(&f, 30, 0);
    GError *err = NULL;
    CU_ASSERT_FALSE(net_link_set_twin(f.n, C, B, &err)); /* C is the tighter */
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    g_clear_error(&err);
    start(&f, 10, &B, NULL, 1, 0, 1, 0, 0);
    CU_ASSERT_FALSE(net_link_set_twin(f.n, A, B, &err)); /* B in use: A would miss it */
    g_clear_error(&err);
    evq_run_until(f.q, INFINITY);
    CU_ASSERT_TRUE(net_link_set_twin(f.n, A, B, NULL));
    CU_ASSERT_TRUE(net_link_set_twin(f.n, D, B, NULL));
    CU_ASSERT_FALSE(net_link_set_dominator(f.n, B, C, &err)); /* B has twins */
    g_clear_error(&err);
    CU_ASSERT_FALSE(net_link_set_twin(f.n, C, A, &err)); /* A is a twin */
    g_clear_error(&err);
    /* A without B, A twice with B once: refused */
    net_link_id a_only[] = {A}, aabd[] = {A, A, B, D}, b_only[] = {B}, abd[] = {B, D, A};
    net_transfer_spec sp = {.size_bytes = 1, .links = a_only, .n_links = 1, .weight = 1};
    net_transfer_id id = NET_TRANSFER_NONE;
    CU_ASSERT_FALSE(net_transfer_start(f.n, &sp, &id, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    g_clear_error(&err);
    sp.links = aabd;
    sp.n_links = 4;
    CU_ASSERT_FALSE(net_transfer_start(f.n, &sp, &id, &err));
    g_clear_error(&err);
    CU_ASSERT_FALSE(net_link_in_use(f.n, A));
    /* B alone crosses A and D; so does B with both named */
    sp.links = b_only;
    sp.n_links = 1;
    CU_ASSERT_TRUE(net_transfer_start(f.n, &sp, &id, &err));
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_TRUE(net_link_in_use(f.n, D));
    net_link_id links[4];
    CU_ASSERT_EQUAL(net_transfer_links(f.n, id, links, 4), 3); /* B, then its twins */
    CU_ASSERT_EQUAL(links[0], B);
    sp.links = abd;
    sp.n_links = 3;
    CU_ASSERT_TRUE(net_transfer_start(f.n, &sp, &id, &err));
    TEST_ASSERT_NO_ERROR(err);
    fixture_clear(&f);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"one_link_two_flows", test_net_one_link_two_flows},
        {"parking_lot", test_net_parking_lot},
        {"strict_priority", test_net_strict_priority},
        {"weights", test_net_weights},
        {"multiplicity", test_net_multiplicity},
        {"latency", test_net_latency},
        {"link_counters", test_net_link_counters},
        {"set_priority_weight", test_net_set_priority_weight},
        {"cancel", test_net_cancel},
        {"batching", test_net_batching},
        {"component_locality", test_net_component_locality},
        {"chain_from_callback", test_net_chain_from_callback},
        {"arg", test_net_arg},
        {"link_remove", test_net_link_remove},
        {"links_moved", test_net_links_moved},
        {"delay", test_net_delay},
        {"tight_search", test_net_tight_search},
        {"private_bound", test_net_private_bound},
        {"level_private", test_net_level_private},
        {"many_links", test_net_many_links},
        {"lazy_counters", test_net_lazy_counters},
        {"dominated", test_net_dominated},
        {"dominated_errors", test_net_dominated_errors},
        {"dominated_clear", test_net_dominated_clear},
        {"twin", test_net_twin},
        {"twin_errors", test_net_twin_errors},
        {"property_vs_reference", test_net_property_vs_reference},
        {"maxmin_shapes", test_net_maxmin_shapes},
        {"fill_stop", test_net_fill_stop},
        {"slot_reuse", test_net_slot_reuse},
        {"errors", test_net_errors},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("net", cases);
}
