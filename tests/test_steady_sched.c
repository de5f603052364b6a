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

int main(void)
{
    CU_TestInfo cases[] = {
        {"cassini_pair", test_steady_sched_cassini_pair},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("steady_sched", cases);
}
