/* test_sched_core.c - suite "sched_core": the schedulers' pure cores
 * (schedulers/sched-private.h).  Not here: whole schedulers.
 *
 * Suite "sched_core": the pure algorithm cores of the schedulers
 * (schedulers/sched-private.h) against the papers' worked examples, each
 * derived again in its comment.
 */
#include "schedulers/sched-private.h"

#include <math.h>

#include "test_util.h"

/* ---- Path selection ----------------------------------------------------- */

/* docs/design.md §5.1  Links 0 = P1 (ToR1-Agg1), 1 = P2 (ToR1-Agg2), 100 Gbps
 * each (units cancel).  a 60, b 50, c 30, each a flow with candidates P1, P2.
 * Crux order a, b, c: a: both 0.6 -> P1 (lowest index); b: P1 1.1, P2 0.5
 * -> P2; c: P1 0.9, P2 0.8 -> P2.  Loads P1 60, P2 80.
 * TACCL* arrival order c, b, a: c -> P1 (tie); b: P1 0.8, P2 0.5 -> P2;
 * a: P1 0.9, P2 1.1 -> P1, sharing with c. */
static void test_sched_core_paths_example(void)
{
    const uint32_t l0 = 0, l1 = 1;
    sched__cand cands[2] = {{&l0, 1}, {&l1, 1}};
    sched__pflow flows[3] = {{60, 2, cands}, {50, 2, cands}, {30, 2, cands}};
    const double cap[2] = {100, 100};
    size_t path[3];

    double load[2] = {0, 0};
    const size_t crux_order[3] = {0, 1, 2};
    sched__path_select(cap, load, flows, crux_order, 3, path);
    CU_ASSERT_EQUAL(path[0], 0);
    CU_ASSERT_EQUAL(path[1], 1);
    CU_ASSERT_EQUAL(path[2], 1);
    TEST_ASSERT_CLOSE(load[0], 60, 1e-12);
    TEST_ASSERT_CLOSE(load[1], 80, 1e-12);

    double load2[2] = {0, 0};
    const size_t taccl_order[3] = {2, 1, 0};
    sched__path_select(cap, load2, flows, taccl_order, 3, path);
    CU_ASSERT_EQUAL(path[2], 0);
    CU_ASSERT_EQUAL(path[1], 1);
    CU_ASSERT_EQUAL(path[0], 0);
    TEST_ASSERT_CLOSE(load2[0], 90, 1e-12);
}

/* Equal bottleneck: candidate 0 crosses links 0 and 1, candidate 1 only
 * link 2, all empty, 100 each, rate 10: both max 0.1; sums 0.2 vs 0.1, so
 * candidate 1.  With background 50 on link 2 (max 0.6 > 0.1) candidate 0. */
static void test_sched_core_paths_tie(void)
{
    const uint32_t two[2] = {0, 1}, one = 2;
    sched__cand cands[2] = {{two, 2}, {&one, 1}};
    sched__pflow f = {10, 2, cands};
    const double cap[3] = {100, 100, 100};
    const size_t order = 0;
    size_t path;
    double load[3] = {0, 0, 0};
    sched__path_select(cap, load, &f, &order, 1, &path);
    CU_ASSERT_EQUAL(path, 1);
    double busy[3] = {0, 0, 50};
    sched__path_select(cap, busy, &f, &order, 1, &path);
    CU_ASSERT_EQUAL(path, 0);
}

/* docs/design.md §5.6: X 6 hops, Y 4, Z 2 -> classes 0, 1, 2 (K = 8).
 * K = 2 merges the lowest classes: X 0, Y 1, Z 1.  Repeated counts share a
 * class: {4, 6, 4, 2} with K = 3 -> 1, 0, 1, 2. */
static void test_sched_core_hop_levels(void)
{
    const size_t hops[3] = {6, 4, 2};
    int lv[4];
    sched__hop_levels(hops, 3, 8, lv);
    CU_ASSERT_EQUAL(lv[0], 0);
    CU_ASSERT_EQUAL(lv[1], 1);
    CU_ASSERT_EQUAL(lv[2], 2);
    sched__hop_levels(hops, 3, 2, lv);
    CU_ASSERT_EQUAL(lv[0], 0);
    CU_ASSERT_EQUAL(lv[1], 1);
    CU_ASSERT_EQUAL(lv[2], 1);
    const size_t rep[4] = {4, 6, 4, 2};
    sched__hop_levels(rep, 4, 3, lv);
    CU_ASSERT_EQUAL(lv[0], 1);
    CU_ASSERT_EQUAL(lv[1], 0);
    CU_ASSERT_EQUAL(lv[2], 1);
    CU_ASSERT_EQUAL(lv[3], 2);
}

/* ---- PAIR_SIM and the correction factor --------------------------------- */

/* Crux Example 1 (docs/design.md §5.4), both communication-ready at 0, 12 s.
 * J1: 10 GPUs, C 2, t 2, f 1.  J2: 10 GPUs, C 1, t 1, f 1.
 * J1 high: J1 link [0,2)[4,6)[8,10) = 6, computes [2,4)[6,8)[10,12) = 6;
 *   J2 link [2,3)[6,7)[10,11) = 3, computes 3.  U = (60+30)/240 = 37.5%.
 * J2 high: J2 link [0,1)[2,3)..[10,11) = 6, computes 6; J1 sends in [1,2)
 *   [3,4), computes [4,6), sends [7,8)[9,10), computes [10,12): link 4,
 *   busy 4.  U = (40+60)/240 = 41.67%.
 * Reference r = J1 (2 link-s per iteration vs 1).  dS_2 = 6-3 = 3,
 * dS_1 = 6-4 = 2; work-based: dN_2 = 10(6-3) = 30, dN_1 = 10(6-4) = 20;
 * I_1 = I_2 = 5 so k_2 = 30*5/(20*5) = 1.5 = dS_2/dS_1: P_1 = 5, P_2 = 7.5. */
static void test_sched_core_pair_example1(void)
{
    sched__pair_job j1 = {10, 2, 1, 2, 0, 2}, j2 = {10, 1, 1, 1, 0, 1};
    sched__pair_result res;
    sched__pair_job a[2] = {j1, j2};
    sched__pair_sim(a, 12, &res);
    TEST_ASSERT_CLOSE(res.link_s[0], 6, 1e-12);
    TEST_ASSERT_CLOSE(res.link_s[1], 3, 1e-12);
    TEST_ASSERT_CLOSE(res.busy_s[0], 6, 1e-12);
    TEST_ASSERT_CLOSE(res.busy_s[1], 3, 1e-12);
    TEST_ASSERT_CLOSE((10 * res.busy_s[0] + 10 * res.busy_s[1]) / 240, 0.375, 1e-12);
    sched__pair_job b[2] = {j2, j1};
    sched__pair_sim(b, 12, &res);
    TEST_ASSERT_CLOSE(res.link_s[0], 6, 1e-12);
    TEST_ASSERT_CLOSE(res.link_s[1], 4, 1e-12);
    TEST_ASSERT_CLOSE(res.busy_s[0], 6, 1e-12);
    TEST_ASSERT_CLOSE(res.busy_s[1], 4, 1e-12);
    TEST_ASSERT_CLOSE((10 * res.busy_s[0] + 10 * res.busy_s[1]) / 240, 100.0 / 240, 1e-12);

    double dS[2];
    double k2 = sched__pair_correction(&j2, 5, &j1, 5, 12, dS);
    TEST_ASSERT_CLOSE(dS[0], 3, 1e-12);
    TEST_ASSERT_CLOSE(dS[1], 2, 1e-12);
    TEST_ASSERT_CLOSE(k2, 1.5, 1e-12);
    TEST_ASSERT_CLOSE(k2 * 5, 7.5, 1e-12);
}

/* The stack simulation (sched__stack_sim) on one link, horizon 6 s,
 * every job communication-ready at 0 (f = 1: it computed [-C, 0)):
 * A and B: C = 1, 1 link-s per iteration (iteration 2 s alone);
 * H: C = 1.5, 0.5 link-s (iteration 2 s alone).
 * [A, B, H]: A link [0,1)[2,3)[4,5), computes [1,2)[3,4)[5,6): 3 s.  B
 * sends in A's gaps [1,2)[3,4)[5,6), computes [2,3)[4,5): 2 s.  The link
 * is then busy all of [0,6): H never sends, 0 s.
 * [H, A, B]: H link [0,.5)[2,2.5)[4,4.5), computes [.5,2)[2.5,4)[4.5,6):
 * 4.5 s.  A sends [.5,1.5), computes [1.5,2.5), sends [2.5,3.5), computes
 * [3.5,4.5), sends [4.5,5.5), computes [5.5,6): 2.5 s.  B sees the link
 * busy [0,1.5)[2,3.5)[4,5.5): sends [1.5,2)+[3.5,4), computes [4,5),
 * then waits: 1 s.
 * [A, H, B]: A 3 s as alone; H sends [1,1.5), computes [1.5,3), sends
 * [3,3.5), computes [3.5,5), sends [5,5.5), computes [5.5,6): 3.5 s; B
 * sees [0,1.5)[2,3.5)[4,5.5) busy again: 1 s.
 * Two jobs: the same numbers as sched__pair_sim (Example 1 above: 6, 3). */
static void test_sched_core_stack_sim(void)
{
    sched__pair_job A = {1, 1, 1, 1, 0, 1}, H = {1, 1.5, 1, 0.5, 0, 1.5};
    double busy[3];
    sched__stack_sim((sched__pair_job[]){A, A, H}, 3, 6, busy);
    TEST_ASSERT_CLOSE(busy[0], 3, 1e-12);
    TEST_ASSERT_CLOSE(busy[1], 2, 1e-12);
    TEST_ASSERT_CLOSE(busy[2], 0, 1e-12);
    sched__stack_sim((sched__pair_job[]){H, A, A}, 3, 6, busy);
    TEST_ASSERT_CLOSE(busy[0], 4.5, 1e-12);
    TEST_ASSERT_CLOSE(busy[1], 2.5, 1e-12);
    TEST_ASSERT_CLOSE(busy[2], 1, 1e-12);
    sched__stack_sim((sched__pair_job[]){A, H, A}, 3, 6, busy);
    TEST_ASSERT_CLOSE(busy[0], 3, 1e-12);
    TEST_ASSERT_CLOSE(busy[1], 3.5, 1e-12);
    TEST_ASSERT_CLOSE(busy[2], 1, 1e-12);
    sched__pair_job j1 = {10, 2, 1, 2, 0, 2}, j2 = {10, 1, 1, 1, 0, 1};
    sched__stack_sim((sched__pair_job[]){j1, j2}, 2, 12, busy);
    TEST_ASSERT_CLOSE(busy[0], 6, 1e-12);
    TEST_ASSERT_CLOSE(busy[1], 3, 1e-12);
}

/* The three jobs' busy seconds of one stack simulation. */
static void assert_busy3(const double *busy, double b0, double b1, double b2)
{
    TEST_ASSERT_CLOSE(busy[0], b0, 1e-12);
    TEST_ASSERT_CLOSE(busy[1], b1, 1e-12);
    TEST_ASSERT_CLOSE(busy[2], b2, 1e-12);
}

/* The stack simulations kept by their inputs (sched__stack_cache_sim),
 * jobs as in test_sched_core_stack_sim.  [A, A, H] over 6 s: 3, 2, 0
 * (derived there), simulated; [H, A, A]: 4.5, 2.5, 1, simulated; [A, A, H]
 * again: the kept 3, 2, 0, no simulation.  [A, A, H] over 4 s is another
 * input: A sends [0,1)[2,3), computes [1,2)[3,4): 2; B sends [1,2),
 * computes [2,3), sends [3,4): 1; H finds the link busy until 4: 0.  A
 * cache of one result forgets the first stack when it keeps the second,
 * and simulates the first again: still 3, 2, 0. */

static void test_sched_core_stack_cache(void)
{
    sched__pair_job A = {1, 1, 1, 1, 0, 1}, H = {1, 1.5, 1, 0.5, 0, 1.5};
    sched__pair_job aah[] = {A, A, H}, haa[] = {H, A, A};
    double busy[3];
    size_t hits, misses;
    sched__stack_cache *c = sched__stack_cache_new(16);
    sched__stack_cache_sim(c, aah, 3, 6, busy);
    assert_busy3(busy, 3, 2, 0);
    sched__stack_cache_sim(c, haa, 3, 6, busy);
    assert_busy3(busy, 4.5, 2.5, 1);
    sched__stack_cache_sim(c, aah, 3, 6, busy);
    assert_busy3(busy, 3, 2, 0);
    sched__stack_cache_counts(c, &hits, &misses);
    CU_ASSERT_EQUAL(hits, 1);
    CU_ASSERT_EQUAL(misses, 2);
    sched__stack_cache_sim(c, aah, 3, 4, busy);
    assert_busy3(busy, 2, 1, 0);
    sched__stack_cache_counts(c, &hits, &misses);
    CU_ASSERT_EQUAL(misses, 3);
    sched__stack_cache_free(c);

    c = sched__stack_cache_new(1);
    sched__stack_cache_sim(c, aah, 3, 6, busy);
    sched__stack_cache_sim(c, haa, 3, 6, busy);
    sched__stack_cache_sim(c, aah, 3, 6, busy);
    assert_busy3(busy, 3, 2, 0);
    sched__stack_cache_counts(c, &hits, &misses);
    CU_ASSERT_EQUAL(hits, 0);
    CU_ASSERT_EQUAL(misses, 3);
    sched__stack_cache_free(c);
}

/* Example 1 long-run (D5), 1200 s (a multiple of both periods, and the
 * pattern is periodic from t = 0).  J1 high: period 4 s, J1 computes 2,
 * J2 1: U = (10*600 + 10*300)/(20*1200) = 37.5%.  J2 high: J1's iteration
 * stretches to 6 s (sends in J2's compute gaps), computes 2 per 6 s = 400,
 * J2 600: U = 10000/24000 = 41.67%. */
static void test_sched_core_pair_example1_long_run(void)
{
    sched__pair_job j1 = {10, 2, 1, 2, 0, 2}, j2 = {10, 1, 1, 1, 0, 1};
    sched__pair_result res;
    sched__pair_job a[2] = {j1, j2};
    sched__pair_sim(a, 1200, &res);
    TEST_ASSERT_CLOSE((10 * res.busy_s[0] + 10 * res.busy_s[1]) / 24000, 0.375, 1e-12);
    sched__pair_job b[2] = {j2, j1};
    sched__pair_sim(b, 1200, &res);
    TEST_ASSERT_CLOSE(res.busy_s[1], 400, 1e-12);
    TEST_ASSERT_CLOSE((10 * res.busy_s[0] + 10 * res.busy_s[1]) / 24000, 10000.0 / 24000, 1e-12);
}

/* Crux Example 2, canonical timeline (docs/design.md §5.4): J1 2 GPUs, C 4,
 * t 1, f .5, starts computing at 0; J2 12 GPUs, C 2, t 3, f .5, one second
 * into its compute (sends from 0).  I_1 = I_2.
 * J1 high: J1 link [2,3)[6,7)[10,11) = 3, busy 12; J2 sends [0,2)+[3,4),
 *   [5,6)+[7,9), [11,12): 7; computes [0,1)[4,6)[9,11) = 5 (idle 7).
 * J2 high: J2 link [0,3)[4,7)[8,11) = 9, computes 6 (idle 6); J1 sends
 *   [3,4)[7,8)[11,12) = 3, hidden: busy 12.
 * r = J2 (3 link-s).  dS_1 = 3-3 = 0, dS_2 = 9-7 = 2; dN_1 = 0,
 * dN_2 = 12(6-5) = 12: k_1 = 0, so P_1 = 0 < P_2: J2 higher. */
static void test_sched_core_pair_example2(void)
{
    sched__pair_job j1 = {2, 4, 0.5, 1, 0, 0}, j2 = {12, 2, 0.5, 3, 0, 1};
    sched__pair_result res;
    sched__pair_job a[2] = {j1, j2};
    sched__pair_sim(a, 12, &res);
    TEST_ASSERT_CLOSE(res.link_s[0], 3, 1e-12);
    TEST_ASSERT_CLOSE(res.link_s[1], 7, 1e-12);
    TEST_ASSERT_CLOSE(res.busy_s[0], 12, 1e-12);
    TEST_ASSERT_CLOSE(res.busy_s[1], 5, 1e-12);
    double dS[2];
    double k1 = sched__pair_correction(&j1, 10, &j2, 10, 12, dS);
    TEST_ASSERT_CLOSE(dS[0], 0, 1e-12);
    TEST_ASSERT_CLOSE(dS[1], 2, 1e-12);
    TEST_ASSERT_CLOSE(k1, 0, 1e-12);
}

/* Example 2 under D4's alignment (both communication-ready at 0: J1 phase
 * f C = 2, J2 phase 1), H = 3 x 4 s = 12.
 * J1 high: J1 sends [0,1)[4,5)[8,9), computes all 12; J2 sends [1,4)
 *   [5,8) [9,12): link 9, computes [0,1)[4,6)[8,10) = 5.
 * J2 high: J2 link [0,3)[4,7)[8,11) = 9, computes 6; J1 sends [3,4) and
 *   stalls (compute ends at 2, iteration at 4), then [7,8), [11,12): link 3,
 *   computes [0,2)[4,8)[8,12) = 10.
 * dS_2 = 9 - 9 = 0: the paper's link-time ratio is undefined here; the
 * work-based one is dN_1 = 2(12-10) = 4, dN_2 = 12(6-5) = 12, k_1 = 1/3. */
static void test_sched_core_pair_example2_ready(void)
{
    sched__pair_job j1 = {2, 4, 0.5, 1, 0, 2}, j2 = {12, 2, 0.5, 3, 0, 1};
    sched__pair_result res;
    sched__pair_job b[2] = {j2, j1};
    sched__pair_sim(b, 12, &res);
    TEST_ASSERT_CLOSE(res.link_s[0], 9, 1e-12);
    TEST_ASSERT_CLOSE(res.busy_s[0], 6, 1e-12);
    TEST_ASSERT_CLOSE(res.link_s[1], 3, 1e-12);
    TEST_ASSERT_CLOSE(res.busy_s[1], 10, 1e-12);
    double dS[2];
    double k1 = sched__pair_correction(&j1, 10, &j2, 10, 12, dS);
    TEST_ASSERT_CLOSE(dS[1], 0, 1e-12);
    TEST_ASSERT_CLOSE(k1, 1.0 / 3, 1e-12);
}

/* Example 2 long-run (D5): no steady-state gap.  Steady state J1 computes
 * all the time and J2 half (iteration 4 s: 1 s compute, 3 s sending, 1 s
 * compute hiding nothing), U = (2 + 12 * 0.5)/14 = 4/7 in both orders; the
 * start-up transient costs a few seconds of 1200, so 1% tolerance, and the
 * two orders agree to 1%. */
static void test_sched_core_pair_example2_long_run(void)
{
    sched__pair_job j1 = {2, 4, 0.5, 1, 0, 0}, j2 = {12, 2, 0.5, 3, 0, 1};
    sched__pair_result res;
    sched__pair_job a[2] = {j1, j2}, b[2] = {j2, j1};
    sched__pair_sim(a, 1200, &res);
    double u_1hi = (2 * res.busy_s[0] + 12 * res.busy_s[1]) / (14 * 1200.0);
    sched__pair_sim(b, 1200, &res);
    double u_2hi = (12 * res.busy_s[0] + 2 * res.busy_s[1]) / (14 * 1200.0);
    TEST_ASSERT_CLOSE(u_1hi, 4.0 / 7, 1e-2);
    TEST_ASSERT_CLOSE(u_2hi, 4.0 / 7, 1e-2);
    TEST_ASSERT_CLOSE(u_1hi, u_2hi, 1e-2);
}

/* D4 degenerate cases.  (a) Two jobs C 4, f 0, t 1: 1 s of sending inside
 * 4 s of compute is hidden in either order, dN_j = dN_r = 0 -> k = 1.
 * (b) r: C 10, f 0, t 2 (more traffic), always hidden (it needs 2 s of
 * the 50% of the link j leaves); j: C 1, f 1, t 1 loses 2 s whenever r
 * sends first.  dN_r = 0 < dN_j: k_j = I_r/I_j (1 + 1e-6), so with I_r =
 * 10/2 = 5 and I_j = 1, P_j = 5.000005 > P_r = 5. */
static void test_sched_core_pair_degenerate(void)
{
    sched__pair_job a = {1, 4, 0, 1, 0, 0};
    TEST_ASSERT_CLOSE(sched__pair_correction(&a, 4, &a, 4, 12, NULL), 1, 1e-12);
    sched__pair_job r = {1, 10, 0, 2, 0, 0}, j = {1, 1, 1, 1, 0, 1};
    double k = sched__pair_correction(&j, 1, &r, 5, 30, NULL);
    TEST_ASSERT_CLOSE(k, 5 * (1 + 1e-6), 1e-12);
    CU_ASSERT_TRUE(k * 1 > 5);
}

/* ---- Compression -------------------------------------------------------- */

/* docs/design.md §5.3: J1..J5 are nodes 0..4; I = {10, 8, 4, 3, 6}.
 * Edges 1->2, 1->5, 1->3 (10), 2->3, 2->4 (8), 5->4 (6): total 52. */
static void five_job_dag(double w[25])
{
    for (int i = 0; i < 25; i++)
        w[i] = 0;
    w[0 * 5 + 1] = w[0 * 5 + 4] = w[0 * 5 + 2] = 10;
    w[1 * 5 + 2] = w[1 * 5 + 3] = 8;
    w[4 * 5 + 3] = 6;
}

static double cut_weight(size_t n, const double *w, const int *level)
{
    double c = 0;
    for (size_t u = 0; u < n; u++)
        for (size_t v = 0; v < n; v++)
            if (w[u * n + v] > 0 && level[u] != level[v])
                c += w[u * n + v];
    return c;
}

/* P-sorted order J1, J2, J5, J3, J4, K = 3: blocks {1}{2,5}{3,4} cut all
 * 52 edges' weight.  The order J1, J2, J3, J5, J4 alone: its best split is
 * {1}{2}{3,5,4}, which keeps 5->4 (6) inside a level: 46 (any split putting
 * 5 with 2 also holds 3 with them, losing 2->3 (8) instead).  Sincronia's
 * rank map on the P order: {1}{2}{5,3,4}, losing 5->4: 46. */
static void test_sched_core_cut_example(void)
{
    double w[25];
    five_job_dag(w);
    int lv[5];
    const size_t p_order[5] = {0, 1, 4, 2, 3};
    TEST_ASSERT_CLOSE(sched__cut_dp(5, w, p_order, 3, lv), 52, 1e-12);
    CU_ASSERT_EQUAL(lv[0], 0);
    CU_ASSERT_EQUAL(lv[1], 1);
    CU_ASSERT_EQUAL(lv[4], 1);
    CU_ASSERT_EQUAL(lv[2], 2);
    CU_ASSERT_EQUAL(lv[3], 2);

    const size_t other[5] = {0, 1, 2, 4, 3};
    TEST_ASSERT_CLOSE(sched__cut_dp(5, w, other, 3, lv), 46, 1e-12);
    CU_ASSERT_EQUAL(lv[0], 0);
    CU_ASSERT_EQUAL(lv[1], 1);
    CU_ASSERT_EQUAL(lv[2], 2);
    CU_ASSERT_EQUAL(lv[4], 2);
    CU_ASSERT_EQUAL(lv[3], 2);

    sched__rank_levels(p_order, 5, 3, lv);
    TEST_ASSERT_CLOSE(cut_weight(5, w, lv), 46, 1e-12);

    /* The full compression from the bad order still finds 52 (11 orders
     * of a 5-order DAG), K = 1 cuts nothing, K = 5 everything. */
    g_autoptr(GRand) rng = g_rand_new_with_seed(1);
    TEST_ASSERT_CLOSE(sched__compress(5, w, other, 3, 10, rng, lv), 52, 1e-12);
    TEST_ASSERT_CLOSE(cut_weight(5, w, lv), 52, 1e-12);
    TEST_ASSERT_CLOSE(sched__cut_dp(5, w, p_order, 1, lv), 0, 1e-12);
    CU_ASSERT_EQUAL(lv[0] + lv[1] + lv[2] + lv[3] + lv[4], 0);
    TEST_ASSERT_CLOSE(sched__cut_dp(5, w, p_order, 5, lv), 52, 1e-12);
}

/* Is perm a topological order of w? */
static bool is_topological(size_t n, const double *w, const size_t *perm)
{
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++)
            if (w[perm[b] * n + perm[a]] > 0)
                return false;
    return true;
}

static bool next_perm(size_t *a, size_t n)
{
    if (n < 2)
        return false;
    size_t i = n - 1;
    while (i > 0 && a[i - 1] >= a[i])
        i--;
    if (i == 0)
        return false;
    size_t j = n - 1;
    while (a[j] <= a[i - 1])
        j--;
    size_t t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
    for (size_t l = i, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return true;
}

/* Property (Theorems 2, 3): on random DAGs of 2..6 nodes and K = 1..3 the
 * best DP over all topological orders equals the brute-force optimum over
 * all K^n level assignments with no upward edge, and sched__compress
 * returns a valid assignment whose cut is what it reports and at most the
 * optimum.  Seeded; the seed and case are printed on failure. */
static void test_sched_core_cut_brute_force(void)
{
    const guint32 seed = 20261123;
    g_autoptr(GRand) rng = g_rand_new_with_seed(seed);
    for (int trial = 0; trial < 200; trial++) {
        size_t n = (size_t)g_rand_int_range(rng, 2, 7);
        int K = g_rand_int_range(rng, 1, 4);
        double w[36] = {0};
        size_t label[6];
        for (size_t i = 0; i < n; i++)
            label[i] = i;
        for (size_t i = n - 1; i > 0; i--) { /* shuffle node names */
            size_t j = (size_t)g_rand_int_range(rng, 0, (gint32)i + 1);
            size_t t = label[i];
            label[i] = label[j];
            label[j] = t;
        }
        for (size_t u = 0; u < n; u++)
            for (size_t v = u + 1; v < n; v++)
                if (g_rand_double(rng) < 0.5)
                    w[label[u] * n + label[v]] = g_rand_int_range(rng, 1, 10);
        double brute = 0;
        int lv[6];
        size_t total = 1;
        for (size_t i = 0; i < n; i++)
            total *= (size_t)K;
        for (size_t code = 0; code < total; code++) {
            size_t c = code;
            for (size_t i = 0; i < n; i++, c /= (size_t)K)
                lv[i] = (int)(c % (size_t)K);
            bool ok = true;
            for (size_t u = 0; u < n && ok; u++)
                for (size_t v = 0; v < n; v++)
                    if (w[u * n + v] > 0 && lv[u] > lv[v])
                        ok = false;
            if (ok && cut_weight(n, w, lv) > brute)
                brute = cut_weight(n, w, lv);
        }
        size_t perm[6];
        for (size_t i = 0; i < n; i++)
            perm[i] = i;
        double best_dp = -1;
        do {
            if (is_topological(n, w, perm)) {
                double v = sched__cut_dp(n, w, perm, K, lv);
                TEST_ASSERT_CLOSE(cut_weight(n, w, lv), v, 1e-12);
                if (v > best_dp)
                    best_dp = v;
            }
        } while (next_perm(perm, n));
        size_t topo[6];
        for (size_t i = 0; i < n; i++)
            topo[i] = label[i];
        double h = sched__compress(n, w, topo, K, 10, rng, lv);
        bool ok = TEST_ASSERT_CLOSE(best_dp, brute, 1e-12);
        ok = TEST_ASSERT_CLOSE(cut_weight(n, w, lv), h, 1e-12) && ok;
        CU_ASSERT_TRUE(h <= brute + 1e-9);
        for (size_t u = 0; u < n; u++)
            for (size_t v = 0; v < n; v++)
                if (w[u * n + v] > 0 && lv[u] > lv[v])
                    ok = false;
        CU_ASSERT_TRUE(ok);
        if (!ok)
            fprintf(stderr, "cut brute force: seed %u trial %d n %zu K %d\n", seed, trial, n, K);
    }
}

/* ---- Sincronia ----------------------------------------------------------- */

/* docs/design.md §5.5 example A: d C1 = (0,2), C2 = (4,1), C3 = (0,3).
 * k=3: loads (4,6) -> P2; w/d 1/2, 1, 1/3 -> C3 last; w1 = 1/3, w2 = 2/3.
 * k=2: loads (4,3) -> P1, only C2.  k=1: C1.  Order C1, C2, C3. */
static void test_sched_core_bssi_example_a(void)
{
    const double d[6] = {0, 2, 4, 1, 0, 3};
    size_t order[3];
    sched__bssi(3, 2, d, NULL, false, order);
    CU_ASSERT_EQUAL(order[0], 0);
    CU_ASSERT_EQUAL(order[1], 1);
    CU_ASSERT_EQUAL(order[2], 2);
}

/* Example B (Sincronia Fig. 1 / Table 2): ingress 1-4, egress 5-8.  C2..C5
 * send 2+e from ingress i to egress i+4 (C_{i+1}); C1 sends 1 from each
 * ingress i to egress i+4 and to egress (i mod 4)+5.  Ports laid out as
 * egress 5..8 (indices 0..3) then ingress 1..4 (4..7) so "highest index"
 * is the paper's "largest ingress index".  All loads 4+e: b = ingress 4,
 * C5 (ratio 1/(2+e) < 1/2) last, w1 = e/(2+e); then ingress 3: C1 (tiny
 * weight) last, w4 = 1 - e/2; then C4 (ingress 3), C3, C2.
 * Order C2, C3, C4, C1, C5. */
static void test_sched_core_bssi_example_b(void)
{
    const double e = 0.01;
    double d[5 * 8] = {0};
    for (int i = 1; i <= 4; i++) {
        int in = 4 + (i - 1), eg_same = i - 1, eg_next = i % 4;
        d[0 * 8 + in] += 2;      /* C1 */
        d[0 * 8 + eg_same] += 1;
        d[0 * 8 + eg_next] += 1;
        d[i * 8 + in] = 2 + e;   /* C_{i+1} */
        d[i * 8 + eg_same] = 2 + e;
    }
    size_t order[5];
    sched__bssi(5, 8, d, NULL, true, order);
    const size_t expect[5] = {1, 2, 3, 0, 4};
    for (int i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(order[i], expect[i]);
}

/* A coflow with no demand comes first; D12 with K = 3 over 5 ranks:
 * levels 0, 1, 2, 2, 2. */
static void test_sched_core_bssi_levels(void)
{
    const double d[4] = {1, 0, 0, 0};
    size_t order[2];
    sched__bssi(2, 2, d, NULL, false, order);
    CU_ASSERT_EQUAL(order[0], 1);
    CU_ASSERT_EQUAL(order[1], 0);
    const size_t ord[5] = {4, 3, 2, 1, 0};
    int lv[5];
    sched__rank_levels(ord, 5, 3, lv);
    CU_ASSERT_EQUAL(lv[4], 0);
    CU_ASSERT_EQUAL(lv[3], 1);
    CU_ASSERT_EQUAL(lv[2], 2);
    CU_ASSERT_EQUAL(lv[1], 2);
    CU_ASSERT_EQUAL(lv[0], 2);
}

/* ---- CASSINI ------------------------------------------------------------- */

/* docs/design.md §5.7, quantum 1 ms, 50 Gbps links (units: Gbps).
 * A: 36 ms, Up [18,36) 40; B: 72 ms, Up [54,72) 40.  p = 72.
 * Unrotated: B's Up overlaps A's second Up [54,72): excess 30 x 18 = 540,
 * score 1 - 540/3600 = 0.85.  Delta_B = 9: overlap [63,72): 1 - 270/3600
 * = 0.925.  Delta_B = 18: B at [0,18), no overlap: 1.0, and no smaller
 * rotation reaches it (overlap 18 - Delta > 0). */
static void test_sched_core_circle_two_jobs(void)
{
    const sched__circle_job jobs[2] = {{36, 18, 18, 40}, {72, 54, 18, 40}};
    CU_ASSERT_EQUAL(sched__circle_perimeter(jobs, 2), 72);
    int64_t rot[2] = {0, 0};
    TEST_ASSERT_CLOSE(sched__circle_score(jobs, 2, 72, rot, 50), 0.85, 1e-12);
    rot[1] = 9;
    TEST_ASSERT_CLOSE(sched__circle_score(jobs, 2, 72, rot, 50), 0.925, 1e-12);
    rot[1] = 18;
    TEST_ASSERT_CLOSE(sched__circle_score(jobs, 2, 72, rot, 50), 1.0, 1e-12);
    TEST_ASSERT_CLOSE(sched__circle_optimize(jobs, 2, 50, rot), 1.0, 1e-12);
    CU_ASSERT_EQUAL(rot[0], 0);
    CU_ASSERT_EQUAL(rot[1], 18);
}

/* l2 carries B (72 ms, Up [54,72)) and C (24 ms, Up [18,24)), 40 each.
 * Unrotated C's third Up [66,72) overlaps B: 1 - 6 x 30/3600 = 0.95.  With
 * B fixed, C's arcs [18+D,24+D) + 24k avoid [54,72) only for D = 6 (its
 * arcs then [0,6)[24,30)[48,54)): unique optimum 6, score 1.
 * Affinity graph A-l1-B-l2-C with t_A^l1 = 0, t_B^l1 = 18, t_B^l2 = 0,
 * t_C^l2 = 6: t_A = 0, t_B = (0 - 0 + 18) mod 72 = 18,
 * t_C = (18 - 0 + 6) mod 24 = 0. */
static void test_sched_core_circle_three_jobs(void)
{
    const sched__circle_job l2[2] = {{72, 54, 18, 40}, {24, 18, 6, 40}};
    int64_t rot[2] = {0, 0};
    TEST_ASSERT_CLOSE(sched__circle_score(l2, 2, 72, rot, 50), 0.95, 1e-12);
    TEST_ASSERT_CLOSE(sched__circle_optimize(l2, 2, 50, rot), 1.0, 1e-12);
    CU_ASSERT_EQUAL(rot[1], 6);

    const double iter[3] = {0.036, 0.072, 0.024};
    const sched__affinity_edge edges[4] = {
        {0, 1, 0.0}, {1, 1, 0.018}, {1, 2, 0.0}, {2, 2, 0.006}};
    double shift[3];
    size_t root[3];
    sched__affinity_shifts(3, iter, edges, 4, shift, root);
    CU_ASSERT_EQUAL(root[0], 0);
    CU_ASSERT_EQUAL(root[1], 0);
    CU_ASSERT_EQUAL(root[2], 0);
    TEST_ASSERT_CLOSE(shift[0], 0, 1e-12);
    TEST_ASSERT_CLOSE(shift[1], 0.018, 1e-9);
    TEST_ASSERT_CLOSE(shift[2], 0, 1e-9);

    /* Re-scoring both links with the unique shifts (in ms): l1 rotations
     * A 0, B 18 -> 1.0; l2 rotations B 18, C 0 -> B's Up [0,18), C's
     * [18,24)[42,48)[66,72): disjoint, 1.0. */
    const sched__circle_job l1[2] = {{36, 18, 18, 40}, {72, 54, 18, 40}};
    const int64_t r1[2] = {0, 18}, r2[2] = {18, 0};
    TEST_ASSERT_CLOSE(sched__circle_score(l1, 2, 72, r1, 50), 1.0, 1e-12);
    TEST_ASSERT_CLOSE(sched__circle_score(l2, 2, 72, r2, 50), 1.0, 1e-12);
}

/* A cycle (D14): jobs 0, 1, 2 (100 s iterations) pairwise on links 1, 2, 3:
 * l1: t_0 = 0, t_1 = 10; l2: t_1 = 0, t_2 = 20; l3: t_0 = 0, t_2 = 50.
 * BFS from 0 along its edges in order: l1 gives t_1 = 10, l3 gives
 * t_2 = 50; l2 (wants t_2 - t_1 = 20) is the non-tree edge, not honoured.
 * Job 3 has no edge: 0, its own root.  Perimeter: LCM(7, 11) = 77 <= 220; LCM(101, 103)
 * = 10403 > 20 x 103, so 103. */
static void test_sched_core_circle_cycle(void)
{
    const double iter[4] = {100, 100, 100, 100};
    const sched__affinity_edge edges[6] = {{0, 1, 0},  {1, 1, 10}, {1, 2, 0},
                                           {2, 2, 20}, {0, 3, 0},  {2, 3, 50}};
    double shift[4];
    size_t root[4];
    sched__affinity_shifts(4, iter, edges, 6, shift, root);
    CU_ASSERT_EQUAL(root[2], 0);
    CU_ASSERT_EQUAL(root[3], 3);
    TEST_ASSERT_CLOSE(shift[0], 0, 1e-12);
    TEST_ASSERT_CLOSE(shift[1], 10, 1e-12);
    TEST_ASSERT_CLOSE(shift[2], 50, 1e-12);
    TEST_ASSERT_CLOSE(shift[3], 0, 1e-12);
    const sched__circle_job a[2] = {{7, 0, 1, 1}, {11, 0, 1, 1}};
    CU_ASSERT_EQUAL(sched__circle_perimeter(a, 2), 77);
    const sched__circle_job b[2] = {{101, 0, 1, 1}, {103, 0, 1, 1}};
    CU_ASSERT_EQUAL(sched__circle_perimeter(b, 2), 103);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"paths_example", test_sched_core_paths_example},
        {"paths_tie", test_sched_core_paths_tie},
        {"hop_levels", test_sched_core_hop_levels},
        {"pair_example1", test_sched_core_pair_example1},
        {"stack_sim", test_sched_core_stack_sim},
        {"stack_cache", test_sched_core_stack_cache},
        {"pair_example1_long_run", test_sched_core_pair_example1_long_run},
        {"pair_example2", test_sched_core_pair_example2},
        {"pair_example2_ready", test_sched_core_pair_example2_ready},
        {"pair_example2_long_run", test_sched_core_pair_example2_long_run},
        {"pair_degenerate", test_sched_core_pair_degenerate},
        {"cut_example", test_sched_core_cut_example},
        {"cut_brute_force", test_sched_core_cut_brute_force},
        {"bssi_example_a", test_sched_core_bssi_example_a},
        {"bssi_example_b", test_sched_core_bssi_example_b},
        {"bssi_levels", test_sched_core_bssi_levels},
        {"circle_two_jobs", test_sched_core_circle_two_jobs},
        {"circle_three_jobs", test_sched_core_circle_three_jobs},
        {"circle_cycle", test_sched_core_circle_cycle},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("sched_core", cases);
}
