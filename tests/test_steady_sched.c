/* test_steady_sched.c - suite "steady_sched": the steady-state fast path
 * under schedulers whose decisions follow the jobs (docs/engine.md §5c,
 * §5d): cassini's hook, whose targets a group carries through its skips
 * and jumps and whose one-off realignments after a reschedule the
 * approximate windows drop, and levels renumbered by a scheduler that
 * gives every job its own.  Not here: groups under fixed levels
 * (test_steady_group.c).
 *
 * Every case is derived by hand and run with and without the fast path.
 */
#include <math.h>
#include <string.h>

#include "sim/replay.h"
#include "test_run.h"
#include "test_util.h"

/* Two hosts under one ToR, 2 GPUs and one 80 Gb/s NIC (1e10 B/s) each,
 * PCIe 1e11 B/s, no latency, one channel, alpha 0.  A job with one GPU on
 * h0 and one on h1 runs a ring of two hops of S bytes each as one
 * lock-step transfer over both NICs: S / 1e10 s alone. */
#define TOPO2                                                                                  \
    "\"clos2:tors=1,aggs=1,hosts_per_tor=2,gpus=2,nics=1,pcie=1,nic_gbps=80,pcie_gbps=800,"    \
    "latency_us=0,host_latency_us=0\""
#define JOB(id, start, end, C, S)                                                              \
    "{\"id\": \"" id "\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"], \"host_gpus\": [1, 1],"    \
    " \"start_s\": " start ", \"end_s\": " end ","                                            \
    " \"model\": {\"compute_s\": " C ", \"comm_bytes\": " S ", \"comm_start_frac\": 1.0,"     \
    " \"opt_s\": 0}}"

/* A job as JOB on h0 and h1, rings of 3e9 B, with an optimizer of OPT s. */
#define JOB_OPT(id, C, OPT)                                                                    \
    "{\"id\": \"" id "\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"], \"host_gpus\": [1, 1],"    \
    " \"start_s\": 0, \"end_s\": 60, \"model\": {\"compute_s\": " C ", \"comm_bytes\": 3e9,"  \
    " \"comm_start_frac\": 1.0, \"opt_s\": " OPT "}}"

static char *scenario(const char *sched, const char *jobs, double interval_s, const char *steady)
{
    return g_strdup_printf("{\"topology\": " TOPO2 ", \"scheduler\": %s,"
                           " \"trace\": {\"jobs\": [%s]},"
                           " \"sim\": {\"interval_s\": %g, \"alpha_us\": 0, \"channels\": 1,"
                           " \"steady\": \"%s\"}}",
                           sched, jobs, interval_s, steady);
}

/* A cassini pair (docs/schedulers.md, CASSINI).  a and b: C = 1 s, rings
 * of S = 5e9 B (0.5 s alone) over both NICs, no optimizer: iterations of
 * 1.5 s alone, communicating in their last third.  On a NIC link each
 * job's Up demand is 5e9 B / 0.5 s = 1e10 B/s, the link's capacity: two
 * of them overflow it, so the link joins the affinity graph, a (the
 * lower index) is the reference (shift 0, never delayed) and b gets a
 * target.  Rotating b's Up arc [1, 1.5) on the 1.5-s circle, 5 degrees
 * (1/72 of 1.5 s) at a time from 0, the first rotation without overlap is
 * 24 steps, 0.5 s: t_b = 0.5.
 * By hand: both compute [0, 1) and ring from 1, sharing the NICs (5e9
 * B/s each), so both rings end at 2.  At b's communication start (1,
 * just after a's: a's events were pushed first) the hook estimates both
 * starts as 1 - C = 0; b's target is a's start + t_b modulo g = 1.5:
 * err = fmod(0 - 0.5, 1.5) = -0.5 (within (-g/2, g/2]), so b's next
 * iteration is delayed by 0.5 and starts at 2.5 (shift_s 0.5).  From
 * then on the rings never meet: a rings alone in [1.5m + 3, 1.5m + 3.5),
 * b in [1.5m + 3.5, 1.5m + 4), each of b's starts exactly t_b after a's
 * (err 0), so the hook never shifts again.  In [0, 100): a ends iterations at 2 + 1.5 (n - 1) < 100:
 * 66, busy 2 x (66 + [99.5, 100)) = 133 GPU-s; b ends 2 and 4 + 1.5 (n -
 * 2) < 100: 65 (the 66th would end at 100, after the window's end),
 * busy 66 computes x 2 = 132 GPU-s.  Cluster utilization 265 / 400. */
static const char *const JOBS_PAIR = JOB("a", "0", "100", "1.0", "5e9") ", "
                                     JOB("b", "0", "100", "1.0", "5e9");

static void check_pair(test_run *x)
{
    replay_job_result a, b;
    replay_job_get(x->r, 0, &a);
    replay_job_get(x->r, 1, &b);
    CU_ASSERT_EQUAL(a.iterations, 66);
    CU_ASSERT_EQUAL(b.iterations, 65);
    TEST_ASSERT_CLOSE(a.shift_s, 0.0, 1e-12);
    TEST_ASSERT_CLOSE(b.shift_s, 0.5, 1e-9);
    TEST_ASSERT_CLOSE(a.busy_gpu_s, 133.0, 1e-9);
    TEST_ASSERT_CLOSE(b.busy_gpu_s, 132.0, 1e-9);
    replay_summary s;
    replay_get_summary(x->r, &s);
    TEST_ASSERT_CLOSE(s.gpu_util_cluster_frac, 265.0 / 400, 1e-9);
}

/* The group {a, b} (anchor and fast member a: both 1.5 s alone, the
 * first wins ties) repeats with b's target in the snapshots (cassini's
 * state: b aligned, its last start 1 s before each of a's boundaries).
 * a's boundaries are 2 + 1.5 k.  At 2 b's ring is still ending (its
 * completion comes after a's in the same instant), at 3.5 b has just
 * started its ring (its compute ended first), at 5 it is where it was at
 * 3.5: a repeat, period 1.5 s.  With ticks every 30 s the group skips
 * from 5 by k = 16 periods (5 + 1.5 k < 30) to 29, then from 30.5 (which
 * repeats the moved 29) k = 19 to 59, from 60.5 k = 19 to 89, from 90.5
 * k = 6 to 99.5 (< the window's end, 100): 4 repeats, 4 skips of 60
 * periods, 2 member iterations each: 120, b's target moved along (no
 * shift in a skipped period, shift_s 0.5 as on the event path).  The
 * approximate mode finds the same exact repeats first: no approximate
 * jump, the same skips. */
static void test_steady_sched_cassini_pair(void)
{
    g_autofree char *exact = scenario("\"cassini\"", JOBS_PAIR, 30, "exact");
    g_autofree char *approx = scenario("\"cassini\"", JOBS_PAIR, 30, "approx");
    for (int run = 0; run < 3; run++) {
        test_run x;
        if (test_run_text(&x, run == 2 ? approx : exact, run != 1, NULL)) {
            check_pair(&x);
            replay_summary s;
            replay_get_summary(x.r, &s);
            CU_ASSERT_EQUAL(s.group_repeats, run != 1 ? 4 : 0);
            CU_ASSERT_EQUAL(s.group_skips, run != 1 ? 4 : 0);
            CU_ASSERT_EQUAL(s.group_skip_iterations, run != 1 ? 120 : 0);
            CU_ASSERT_EQUAL(s.approx_jumps, 0);
        }
        test_run_clear(&x);
    }
    test_run_assert_same(exact, 1e-9, NULL, NULL);
}

/* Three jobs on one NIC per host (4 GPUs a host, 4 hosts under the ToR):
 * a, b, c as never_repeats' in test_steady_group.c (compute 0.5,
 * 1/sqrt(2) and sqrt(1.25) s, rings of 2e9, 2e9 and 3e9 B on h0 and h1,
 * strict priority a > b > c: a group whose state never comes back, which
 * jumps in the approximate mode), and x on h2 and h3 from 60 to 120 (a
 * ring of its own: it shares no link with them).  SCHED decides the
 * levels. */
static char *levels_case(const char *sched, const char *steady)
{
    return g_strdup_printf(
        "{\"topology\": \"clos2:tors=1,aggs=1,hosts_per_tor=4,gpus=4,nics=1,pcie=1,"
        "nic_gbps=80,pcie_gbps=800,latency_us=0,host_latency_us=0\", \"scheduler\": %s,"
        " \"trace\": {\"jobs\": [%s, %s, %s, %s]},"
        " \"sim\": {\"interval_s\": 50, \"alpha_us\": 0, \"channels\": 1,"
        " \"steady\": \"%s\"}}",
        sched, JOB("a", "0", "200", "0.5", "2e9"),
        JOB("b", "0", "200", "0.7071067811865476", "2e9"),
        JOB("c", "0", "200", "1.118033988749895", "3e9"),
        "{\"id\": \"x\", \"gpus\": 2, \"hosts\": [\"h2\", \"h3\"], \"host_gpus\": [1, 1],"
        " \"start_s\": 60, \"end_s\": 120, \"model\": {\"compute_s\": 1.0,"
        " \"comm_bytes\": 1e10, \"comm_start_frac\": 1.0, \"opt_s\": 0}}",
        steady);
}

/* crux-pa gives every running job a level of its own, in its ranking
 * (here forced: x, a, b, c, the "order" override): a, b, c are on 0, 1,
 * 2 while x is away and on 1, 2, 3 while it runs, so x's arrival at 60
 * and its end at 120 renumber every member of the group {a, b, c}
 * without changing their order.  The strict-priority allocation depends
 * on the levels of jobs that share links only through their order
 * (docs/engine.md §4), so the group's measured windows still hold: it
 * keeps them across both changes and jumps on at its next boundary.
 * Only the group's formation at 0 opens first windows, two: b's arrival
 * makes {a, b} (a ran alone before), c's, in the same instant, {a, b, c}
 * (steady_approx_change_windows 2; comparing the levels themselves, each
 * renumbering opened another: 4, and the run was another).  And the run is the one under fixed
 * levels a 0, b 1, c 2 (x 0: it shares no link), which never renumber:
 * every job's iterations and busy time and the cluster utilization are
 * the same numbers; a (the top level, never delayed) ends 285 iterations
 * of 0.7 s on both, as on the event path. */
static void test_steady_sched_levels_renumbered(void)
{
    const char *pa = "{\"name\": \"crux-pa\", \"order\": [\"x\", \"a\", \"b\", \"c\"]}";
    const char *fixed = "{\"name\": \"fixed\", \"jobs\": {\"a\": {\"priority\": 0},"
                        " \"b\": {\"priority\": 1}, \"c\": {\"priority\": 2}}}";
    g_autofree char *text = levels_case(pa, "approx");
    g_autofree char *ref = levels_case(fixed, "approx");
    test_run x, y;
    if (test_run_text(&x, text, true, NULL) && test_run_text(&y, ref, true, NULL)) {
        replay_summary s, e;
        replay_get_summary(x.r, &s);
        replay_get_summary(y.r, &e);
        CU_ASSERT_EQUAL(s.approx_change_windows, 2);
        CU_ASSERT_EQUAL(e.approx_change_windows, 2);
        CU_ASSERT_TRUE(s.approx_jumps >= 3);
        CU_ASSERT_EQUAL(s.approx_jumps, e.approx_jumps);
        CU_ASSERT_EQUAL(s.events, e.events);
        CU_ASSERT_EQUAL(s.iterations, e.iterations);
        TEST_ASSERT_CLOSE(s.gpu_util_cluster_frac, e.gpu_util_cluster_frac, 1e-12);
        for (size_t i = 0; i < 4; i++) {
            replay_job_result p, q;
            replay_job_get(x.r, i, &p);
            replay_job_get(y.r, i, &q);
            CU_ASSERT_EQUAL(p.iterations, q.iterations);
            TEST_ASSERT_CLOSE(p.busy_gpu_s, q.busy_gpu_s, 1e-12);
            if (i == 0)
                CU_ASSERT_EQUAL(p.iterations, 285);
        }
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

/* Four hosts under one ToR, 4 GPUs and one 80 Gb/s NIC (1e10 B/s) each,
 * as levels_case.  a and b on h0 and h1 (one GPU each), rings of S = 3e9
 * B over both NICs (0.3 s alone):
 *  - a: C = 1.2 s, no optimizer: T_a = 1.5 s, communicating in [1.2, 1.5)
 *    of each iteration;
 *  - b: C = 0.6 s, optimizer 0.5996 s: T_b = 1.4996 s, communicating in
 *    [0.6, 0.9) of each;
 * and one-GPU jobs x0..x6 on h2 without communication, whose arrivals and
 * ends (4, 6.5, 11, 12.5, 18, 23.5, 25, 31, 33.5, 38, 41.5, 46, 48.5, 53:
 * irregular gaps) are reschedules that touch neither a nor b.
 * cassini: each Up demand is 3e9 / 0.3 = 1e10 B/s, the NIC's capacity, so
 * a NIC link joins the affinity graph and a (the lower index) is the
 * reference.  q = max(1 ms, 1.5 / 72) = 1/48 s; on the circle of 72
 * quanta a's Up arc is [58, 72) (1.2 q^-1 = 57.6, 0.3 q^-1 = 14.4 -> 14),
 * b's [29, 43) (T_b / q = 71.98 -> 72, 28.8 -> 29): no overlap at rotation
 * 0, which scores 1 and is kept, t_b = 0.  b's target repeats with g =
 * gcd(1500 ms, 1500 ms) = 1.5 s (T_b rounds to 1500 ms on the 1 ms grid).
 * By hand (the event path): b's start offset from a's, D_m = s_m - 1.5 (m
 * - 1) for b's m-th iteration, falls 0.4 ms an iteration and stays in
 * [-0.6, 0.3], so the rings never meet and every iteration takes its time
 * alone.  Every reschedule (at 0 and each x's arrival and end) forgets the
 * alignments: b is aligned at its first communication after a's first
 * after the reschedule: err = D_m (a's last start 1.5 (m - 2), b's s_m),
 * delay -D_m, so D_{m+1} = -0.4 ms; between alignments D falls 0.4 ms an
 * iteration (|err| < 5 % of T_b: no realignment), so the shifts add up to
 * 0.4 ms x (m_last - 1).  The last reschedule is at 53: a communicates
 * from 53.7 (its iteration from 52.5), b's next communication is in its
 * 37th iteration (from 54 - 0.4 ms x 35): shift_s = 0.4 ms x 36 = 0.0144
 * s.  In [0, 60): a ends 39 iterations (the 40th at 60), busy 2 x (39 x
 * 1.2 + [58.5, 59.7)) = 96 GPU-s; b's 41st starts at s_41 = 60 - 4 x 0.4
 * ms = 59.9984, so b ends 40, busy 2 x (40 x 1.1996 + 0.0016) = 95.9712
 * GPU-s.  The group never repeats (D moves) and b, the fast member, is
 * realigned after every reschedule by 0.4 ms times the iterations since
 * its last alignment: one window holds one such shift, the next another
 * or none.  With shifts that had to agree within 10^-2 of each other the
 * windows never agreed (0 jumps); within 10^-2 of the cycle (1.5 s) they
 * do, and the group jumps between reschedules: every job's iterations
 * within the reported bound of the event path's, with fewer than half its
 * events. */
static char *realigned_case(const char *steady)
{
    GString *jobs = g_string_new(NULL);
    static const double xs[] = {4, 6.5, 11, 12.5, 18, 23.5, 25, 31, 33.5, 38, 41.5, 46, 48.5, 53};
    g_string_append(jobs, JOB_OPT("a", "1.2", "0") ", " JOB_OPT("b", "0.6", "0.5996"));
    for (size_t k = 0; k < G_N_ELEMENTS(xs); k += 2)
        g_string_append_printf(jobs,
                               ", {\"id\": \"x%zu\", \"gpus\": 1, \"hosts\": [\"h2\"],"
                               " \"host_gpus\": [1], \"start_s\": %g, \"end_s\": %g,"
                               " \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 0,"
                               " \"comm_start_frac\": 1.0, \"opt_s\": 0}}",
                               k / 2, xs[k], xs[k + 1]);
    char *text = g_strdup_printf(
        "{\"topology\": \"clos2:tors=1,aggs=1,hosts_per_tor=4,gpus=4,nics=1,pcie=1,"
        "nic_gbps=80,pcie_gbps=800,latency_us=0,host_latency_us=0\", \"scheduler\": \"cassini\","
        " \"trace\": {\"jobs\": [%s]},"
        " \"sim\": {\"interval_s\": 50, \"alpha_us\": 0, \"channels\": 1, \"steady\": \"%s\"}}",
        jobs->str, steady);
    g_string_free(jobs, TRUE);
    return text;
}

static void test_steady_sched_cassini_realigned(void)
{
    g_autofree char *exact = realigned_case("exact");
    g_autofree char *approx = realigned_case("approx");
    static const double busy[2] = {96.0, 95.9712};
    static const int64_t iters[2] = {39, 40};
    uint64_t events[3] = {0};
    for (int run = 0; run < 3; run++) {
        test_run x;
        if (test_run_text(&x, run == 2 ? approx : exact, run != 1, NULL)) {
            replay_summary s;
            replay_get_summary(x.r, &s);
            events[run] = s.events;
            for (size_t i = 0; i < 2; i++) {
                replay_job_result p;
                replay_job_get(x.r, i, &p);
                if (run < 2) {
                    CU_ASSERT_EQUAL(p.iterations, iters[i]);
                    TEST_ASSERT_CLOSE(p.busy_gpu_s, busy[i], 1e-9);
                    TEST_ASSERT_CLOSE(p.shift_s, i == 1 ? 0.0144 : 0.0, 1e-9);
                } else {
                    CU_ASSERT_TRUE(fabs((double)(p.iterations - iters[i])) <=
                                   s.approx_iteration_bound);
                }
            }
            CU_ASSERT_EQUAL(s.group_repeats, 0);
            if (run == 2)
                CU_ASSERT_TRUE(s.approx_jumps >= 1);
        }
        test_run_clear(&x);
    }
    CU_ASSERT_TRUE(2 * events[2] < events[0]);
}

/* A one-GPU-pair job on h0 and h1 from 0 to END, rings of S bytes,
 * compute C, optimizer OPT (string literals). */
#define JOB_CSO(id, end, C, S, OPT)                                                            \
    "{\"id\": \"" id "\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"], \"host_gpus\": [1, 1],"    \
    " \"start_s\": 0, \"end_s\": " end ", \"model\": {\"compute_s\": " C ", \"comm_bytes\": " \
    S ", \"comm_start_frac\": 1.0, \"opt_s\": " OPT "}}"

/* A one-off realignment (docs/engine.md §5d, "a window that holds a
 * one-off alignment").  TOPO2, cassini, window [0, 59.25); a and b as in
 * realigned_case but to 59.25 and with b 0.4 ms slower than a:
 *  - a: C = 1.2 s, rings of 3e9 B (0.3 s alone), no optimizer: T_a =
 *    1.5 s, communicating in [1.2, 1.5) of each iteration; the fast
 *    member and cassini's reference (never delayed);
 *  - b: C = 0.6 s, optimizer 0.6004 s: T_b = 0.6 + 0.3 + 0.6004 = 1.5004
 *    s, communicating in [0.6, 0.9); the anchor.
 * As in realigned_case t_b = 0 and g = 1.5 s.  b's first communication
 * (0.6) comes before a's first (1.2): no reference start yet, no
 * alignment.  At its second (2.1004) err = fmod(1.5004 - 0, 1.5) =
 * 0.0004 > 0, so its next iteration waits for the next target: delay
 * 1.5 - 0.0004 = 1.4996 s, which ends b's second iteration at 3.0008 and
 * starts its third at 4.5004.  From then on err = 0.0004 (m - 2) for b's
 * m-th iteration, below 5 % of T_b up to m = 189: no other alignment
 * (the only reschedules are the arrivals at 0), and the rings never meet
 * ([0.6 + D, 0.9 + D) against a's [1.2, 1.5) in a's period).  b ends its
 * iterations at 1.5004, 3.0008 and 6.0008 + 1.5004 (m - 3): 38 in the
 * window (e_38 = 58.5148, e_39 = 60.0152), shift_s 1.4996, busy 2 x 38 x
 * 0.6 = 45.6 GPU-s; a ends 39 (58.5 < 59.25 < 60), busy 2 x (39 x 1.2 +
 * 0.75) = 95.1 GPU-s.
 * The rates windows, records at b's boundaries R1..R4 (1.5004, 3.0008,
 * 6.0008, 7.5012) after the one at the change (0):
 *   at R2: [0, R1] and [R1, R2]: b's cycles 1.5004 and 3.0 (its one
 *     iteration and the alignment) disagree, the first window was cut by
 *     the change: dropped;
 *   at R3: [R1, R2] against [R2, R3] (cycle 1.5004, no shift): b's
 *     shifts per iteration, 1.4996 s against none (the tolerance is 10^-2
 *     of its cycle), disagree with none in the second window: the window
 *     holding the alignment is dropped, not doubled;
 *   at R4: [R2, R3] and [R3, R4] agree exactly (b 1.5004, a 1.5, no
 *     shift): the group jumps k = 34 of a's cycles (7.5012 + 34 x 1.5 =
 *     58.5012 < 59.25 < 60.0012), one jump.
 * a, the fast member, ends exactly the event path's 39 iterations and
 * 95.1 GPU-s; b ends 4 + floor(51 / 1.5004) = 37 (its next end at 60.0016),
 * within the bound of 2 (windows that agree exactly); its shift_s stays
 * 1.4996 (no shift in the windows).  When the window holding the alignment
 * was doubled into the next, the oldest record (R1) stayed in every
 * window: b's shifts per iteration 0.75, 0.37, 0.19, 0.094 s against none
 * in windows of 2, 4, 8, 16 iterations, and no jump before 59.25. */
static char *lump_case(const char *steady)
{
    return scenario("\"cassini\"",
                    JOB_CSO("a", "59.25", "1.2", "3e9", "0") ", "
                    JOB_CSO("b", "59.25", "0.6", "3e9", "0.6004"),
                    1000, steady);
}

static void test_steady_sched_cassini_lump(void)
{
    static const int64_t iters[2][2] = {{39, 38}, {39, 37}}; /* event path, approx */
    static const double busy_a = 95.1;
    for (int run = 0; run < 2; run++) {
        g_autofree char *text = lump_case(run ? "approx" : "exact");
        test_run x;
        if (test_run_text(&x, text, run == 1, NULL)) {
            replay_summary s;
            replay_get_summary(x.r, &s);
            CU_ASSERT_EQUAL(s.approx_jumps, run ? 1 : 0);
            for (size_t i = 0; i < 2; i++) {
                replay_job_result p;
                replay_job_get(x.r, i, &p);
                CU_ASSERT_EQUAL(p.iterations, iters[run][i]);
                TEST_ASSERT_CLOSE(p.shift_s, i == 1 ? 1.4996 : 0.0, 1e-9);
                if (i == 0)
                    TEST_ASSERT_CLOSE(p.busy_gpu_s, busy_a, 1e-9);
            }
            if (run) /* b: 0 drift (the windows agree exactly) + 1 + 1 */
                TEST_ASSERT_CLOSE(s.approx_iteration_bound, 2.0, 1e-6);
        }
        test_run_clear(&x);
    }
}

/* A one-off realignment in the window cut by a change (docs/engine.md
 * §5d): TOPO2 with 4 GPUs a host; lump_case's a and b, with e (C = 0.1, S = 3e9, optimizer 4.1:
 * T_e = 4.5 s, communicating in [0.1, 0.4) of its iteration; the anchor)
 * to 59.25 and d (C = 0.9375, S = 2e9: 0.2 s, optimizer 0.3625: T_d = 1.5
 * s, communicating in [0.9375, 1.1375)) to 30.7.  cassini: q = 4.5 / 72 =
 * 0.0625 s; in a's 24 quanta e's Up arc is [2, 7), b's [10, 15), d's
 * [15, 18), a's [19, 24): no overlap at rotation 0, which scores 1 and is
 * kept: every t = 0, g = 1.5 s for b, d and e.  d's and e's starts fall on
 * a's (err 0: no delay), b's drift 0.4 ms an iteration: no ring meets
 * another.
 * By hand, the approximate path: {a, b, d, e} forms at 0; records at e's
 * boundaries (4.5, 9, 13.5; a's fall at the same instants).  b is aligned
 * as in lump_case (1.4996 s, ending its iteration at 3.0008, inside [0,
 * 4.5], the window cut by the change: dropped at 9).  At 13.5 [4.5, 9]
 * and [9, 13.5] agree (b 2 and 3 iterations of 1.5004, no shift): jump
 * of k = 11 of a's cycles (13.5 + 16.5 = 30 < 30.7 < 31.5).  b, 1.4972
 * into an iteration at 13.5, ends it at 30.0028.  d's end at 30.7 forms
 * {a, b, e}, which carries a's, b's and e's windows [9, 13.5]; the
 * reschedule forgets the alignments: after a's communication at 31.2
 * (its start 30), b's at 32.1032 (its start 31.5032) has err = 0.0032,
 * delay 1.4968, ending its iteration at 33.0036, inside [30.7, 34.5], the
 * window cut by the change: b's cycle there (3.0008 + 1.4968) / 2 =
 * 2.2488 against its carried 1.5004 (33 %; 0.25 / 2 allowed) and shifts
 * of 0.7484 s an iteration against none.  The carried window waits for
 * the next: [34.5, 39] (b 2 iterations of 1.5004 from 34.5004, no shift;
 * a 1.5, e 4.5) agrees with it, and the group jumps there on the carried
 * window: k = 13 (39 + 19.5 = 58.5 < 59.25 < 60).  2 jumps, 1 carried.
 * (When the carried window went at the first disagreement, [30.7, 34.5]
 * against [34.5, 39] dropped the first, and the group jumped at 43.5 on
 * [34.5, 39] and [39, 43.5]: none carried.)
 * The event path: a ends 39 (busy 95.1 GPU-s, as in lump_case), e 13
 * (58.5 < 59.25), d 20 (30 < 30.7); b ends 1.5004, 3.0008 and 6.0008 +
 * 1.5004 i up to i = 18 (33.008: its start 31.5076 is 7.6 ms after a's,
 * so the reschedule's delay is 1.4924), then 36.0008 + 1.5004 i up to
 * 58.5068 (i = 15): 37, shift_s 1.4996 + 1.4924 = 2.992.  The jumps keep
 * a (the fast member, never delayed) at 39 and 95.1 GPU-s; b, d, e and
 * the cluster utilization are within the reported bounds. */
static char *carried_lump_case(const char *steady)
{
    return g_strdup_printf(
        "{\"topology\": \"clos2:tors=1,aggs=1,hosts_per_tor=2,gpus=4,nics=1,pcie=1,nic_gbps=80,"
        "pcie_gbps=800,latency_us=0,host_latency_us=0\", \"scheduler\": \"cassini\","
        " \"trace\": {\"jobs\": [" JOB_CSO("a", "59.25", "1.2", "3e9", "0") ", "
        JOB_CSO("b", "59.25", "0.6", "3e9", "0.6004") ", "
        JOB_CSO("e", "59.25", "0.1", "3e9", "4.1") ", "
        JOB_CSO("d", "30.7", "0.9375", "2e9", "0.3625") "]},"
        " \"sim\": {\"interval_s\": 1000, \"alpha_us\": 0, \"channels\": 1,"
        " \"steady\": \"%s\"}}",
        steady);
}

static void test_steady_sched_cassini_carried_lump(void)
{
    test_run x, y;
    replay_summary s;
    if (test_run_approx_and_exact(carried_lump_case, &x, &y, &s, NULL)) {
        CU_ASSERT_EQUAL(s.approx_jumps, 2);
        CU_ASSERT_EQUAL(s.approx_carried_jumps, 1);
        static const int64_t iters[4] = {39, 37, 13, 20}; /* a, b, e, d */
        for (size_t i = 0; i < 4; i++) {
            replay_job_result p, q;
            replay_job_get(x.r, i, &p);
            replay_job_get(y.r, i, &q);
            CU_ASSERT_EQUAL(q.iterations, iters[i]);
            if (i == 0) {
                CU_ASSERT_EQUAL(p.iterations, 39);
                TEST_ASSERT_CLOSE(p.busy_gpu_s, 95.1, 1e-9);
                TEST_ASSERT_CLOSE(q.busy_gpu_s, 95.1, 1e-9);
            }
            if (i == 1)
                TEST_ASSERT_CLOSE(q.shift_s, 2.992, 1e-9);
        }
        static const size_t all[4] = {0, 1, 2, 3};
        test_run_assert_within_bounds(&x, &y, all, 4);
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"cassini_pair", test_steady_sched_cassini_pair},
        {"levels_renumbered", test_steady_sched_levels_renumbered},
        {"cassini_realigned", test_steady_sched_cassini_realigned},
        {"cassini_lump", test_steady_sched_cassini_lump},
        {"cassini_carried_lump", test_steady_sched_cassini_carried_lump},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("steady_sched", cases);
}
