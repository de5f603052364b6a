/* test_steady_group.c - suite "steady_group": the steady-state fast path
 * for groups of jobs that share links (docs/engine.md §5c).  Not here:
 * jobs alone (test_steady.c), the periodic profile (test_ffwd.c).
 *
 * Every case is derived by hand and run with and without the fast path;
 * the outputs must agree (test_run_assert_same).
 */
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/replay.h"
#include "test_run.h"
#include "test_util.h"

/* Two hosts under one ToR, 2 GPUs and one 80 Gb/s NIC (1e10 B/s) each,
 * PCIe 1e11 B/s, no latency, one channel, alpha 0.  A job with one GPU on
 * h0 and one on h1 runs a ring of two hops of S bytes each (2(H-1)/H S,
 * H = 2) as one lock-step transfer over both NICs: S / 1e10 s alone.
 * Two such jobs use the same NIC links. */
#define TOPO2                                                                                  \
    "\"clos2:tors=1,aggs=1,hosts_per_tor=2,gpus=2,nics=1,pcie=1,nic_gbps=80,pcie_gbps=800,"    \
    "latency_us=0,host_latency_us=0\""
#define JOB(id, start, end, C, S)                                                              \
    "{\"id\": \"" id "\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"], \"host_gpus\": [1, 1],"    \
    " \"start_s\": " start ", \"end_s\": " end ","                                            \
    " \"model\": {\"compute_s\": " C ", \"comm_bytes\": " S ", \"comm_start_frac\": 1.0,"     \
    " \"opt_s\": 0}}"

static char *scenario(const char *sched, const char *jobs, double interval_s)
{
    return g_strdup_printf("{\"topology\": " TOPO2 ", \"scheduler\": %s,"
                           " \"trace\": {\"jobs\": [%s]},"
                           " \"sim\": {\"interval_s\": %g, \"alpha_us\": 0, \"channels\": 1}}",
                           sched, jobs, interval_s);
}

#define PRIO_AB                                                                                \
    "{\"name\": \"fixed\", \"jobs\": {\"a\": {\"priority\": 0}, \"b\": {\"priority\": 1}}}"

/* The two-job strict-priority case of docs/engine.md §5c.  a (level 0):
 * C = 1, S = 5e9 (0.5 s), T_a = 1.5, never delayed: it communicates in
 * [1.5k + 1, 1.5k + 1.5).  b (level 1): C = 2, S = 8e9 (0.8 s alone);
 * while a communicates b's transfer gets nothing (strict priority on the
 * shared NICs).  b's iterations:
 *   1: compute [0, 2), moves [2, 2.5) 0.5 s worth, waits [2.5, 3),
 *      [3, 3.3) the rest: ends 3.3;
 *   2: compute [3.3, 5.3), [5.3, 5.5) 0.2, waits to 6, [6, 6.6): 6.6;
 *   3: compute [6.6, 8.6), waits (a in [8.5, 9)), [9, 9.8): 9.8;
 *   4: compute [9.8, 11.8), waits ([11.5, 12)), [12, 12.8): 12.8;
 * and from then on every 3 s: ends 9.8 + 3m.  b is the anchor (longer
 * iteration); at its boundaries 9.8 and 12.8 a is 0.8 s into a compute
 * (a's iterations start at 9 and 12), at 3.3 and 6.6 it is 0.3 and 0.6 s
 * in: the first repeat is found at 12.8, period P = 3 s (two of a's
 * iterations, one of b's).
 * In [0, 100): a ends iterations at 1.5k < 100: 66, busy 2 GPU-s each
 * plus [99, 100) = 134 GPU-s.  b: 3.3, 6.6 and 9.8 + 3m < 100 (m <= 30):
 * 33 iterations, iteration times summing to 99.8, busy 4 GPU-s each plus
 * [99.8, 100) x 2 = 132.4 GPU-s.  Cluster utilization 266.4 / 400. */
static const char *const JOBS_AB = JOB("a", "0", "100", "1.0", "5e9") ", "
                                   JOB("b", "0", "100", "2.0", "8e9");

static void check_ab(test_run *x)
{
    replay_job_result a, b;
    replay_job_get(x->r, 0, &a);
    replay_job_get(x->r, 1, &b);
    CU_ASSERT_EQUAL(a.iterations, 66);
    CU_ASSERT_EQUAL(b.iterations, 33);
    TEST_ASSERT_CLOSE(a.busy_gpu_s, 134.0, 1e-9);
    TEST_ASSERT_CLOSE(b.busy_gpu_s, 132.4, 1e-9);
    TEST_ASSERT_CLOSE(a.mean_iter_s, 1.5, 1e-9);
    TEST_ASSERT_CLOSE(b.mean_iter_s, 99.8 / 33, 1e-9);
    replay_summary s;
    replay_get_summary(x->r, &s);
    TEST_ASSERT_CLOSE(s.gpu_util_cluster_frac, 266.4 / 400, 1e-9);
}

/* The skips, with ticks every 30 s (a skip ends before the next tick) and
 * the window's end at 100: at 12.8 the repeat is found and the group moves
 * k = 5 periods to 27.8 (12.8 + 3k < 30); its next boundary, 30.8 (after
 * the tick), repeats the (moved) snapshot of 27.8: k = 9, to 57.8; then
 * 60.8 -> 87.8 (k = 9) and 90.8 -> 99.8 (k = 3, 99.8 < 100).  4 repeats,
 * 4 skips of 26 periods, each 1 iteration of b and 2 of a: 78 member
 * iterations without events. */
static void test_group_two_jobs(void)
{
    g_autofree char *text = scenario(PRIO_AB, JOBS_AB, 30);
    for (int ff = 1; ff >= 0; ff--) {
        test_run x;
        if (test_run_text(&x, text, ff, NULL)) {
            check_ab(&x);
            replay_summary s;
            replay_get_summary(x.r, &s);
            CU_ASSERT_EQUAL(s.group_repeats, ff ? 4 : 0);
            CU_ASSERT_EQUAL(s.group_skips, ff ? 4 : 0);
            CU_ASSERT_EQUAL(s.group_skip_iterations, ff ? 78 : 0);
            CU_ASSERT_EQUAL(s.group_fallbacks, 0);
        }
        test_run_clear(&x);
    }
    uint64_t a = 0, b = 0;
    test_run_assert_same(text, 1e-9, &a, &b);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"two_jobs", test_group_two_jobs},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("steady_group", cases);
}
