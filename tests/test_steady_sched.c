/* test_steady_sched.c - suite "steady_sched": the steady-state fast path
 * under schedulers whose decisions follow the jobs (docs/engine.md §5c,
 * §5d): cassini's hook, whose targets a group carries through its skips
 * and jumps, and levels renumbered by a scheduler that gives every job
 * its own.  Not here: groups under fixed levels (test_steady_group.c).
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

int main(void)
{
    CU_TestInfo cases[] = {
        {"cassini_pair", test_steady_sched_cassini_pair},
        {"levels_renumbered", test_steady_sched_levels_renumbered},
        {"cassini_realigned", test_steady_sched_cassini_realigned},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("steady_sched", cases);
}
