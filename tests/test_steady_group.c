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
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* The same two jobs under sincronia-online (comm_hints.grouped): when both
 * communicate, BSSI's bottleneck is a NIC link both use (0.5 + 0.8 s of
 * demand), where b has the larger demand and goes last: a on level 0, b
 * on 1, as under PRIO_AB; when one communicates alone it is no contending
 * member (level 7), with nobody to meet.  So the run is two_jobs': the
 * same iterations, busy time, repeats and skips. */
static void test_group_hook(void)
{
    g_autofree char *text = scenario("\"sincronia-online\"", JOBS_AB, 30);
    test_run x;
    if (test_run_text(&x, text, true, NULL)) {
        check_ab(&x);
        replay_summary s;
        replay_get_summary(x.r, &s);
        CU_ASSERT_EQUAL(s.group_skips, 4);
        CU_ASSERT_EQUAL(s.group_skip_iterations, 78);
    }
    test_run_clear(&x);
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* One job alone is no group: a (C = 1, ring S = 1e10: 1 s, no optimizer,
 * T = 2 s) in [0, 100) runs one §5b stretch from 0 (no other job, no
 * arrival) and ends 49 iterations (2k < 100), busy 50 computes x 2 GPUs
 * = 100 GPU-s (the 50th compute is [98, 99)); no repeat, skip or
 * fallback is counted. */
static void test_group_one_job(void)
{
    g_autofree char *text = scenario("\"ecmp\"", JOB("a", "0", "100", "1.0", "1e10"), 30);
    test_run x;
    if (test_run_text(&x, text, true, NULL)) {
        replay_job_result a;
        replay_job_get(x.r, 0, &a);
        CU_ASSERT_EQUAL(a.iterations, 49);
        TEST_ASSERT_CLOSE(a.busy_gpu_s, 100.0, 1e-9);
        replay_summary s;
        replay_get_summary(x.r, &s);
        CU_ASSERT_EQUAL(s.ffwd_stretches, 1);
        CU_ASSERT_EQUAL(s.group_repeats + s.group_skips + s.group_fallbacks, 0);
    }
    test_run_clear(&x);
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* A job c on two other hosts (h2, h3: four hosts under the ToR) arrives
 * at 20.05 and ends at 40: it shares no link with a or b, so a and b do
 * what they did in two_jobs (66 and 33 iterations, the same busy time),
 * but its arrival and its end are changes: the skip found at 12.8 stops
 * before 20.05 (k = 2, to 18.8: 12.8 + 3 x 3 = 21.8 > 20.05), and the
 * group starts over after each change.  Every output equals the event
 * path's.  The skips, with ticks at 30, 60, 90 and b's boundaries at
 * 9.8 + 3m: 12.8 -> 18.8 (k = 2); after the arrival the ring starts over:
 * 24.8 repeats 21.8, k = 1 to 27.8 (< 30); 30.8 repeats the moved 27.8,
 * k = 3 to 39.8 (< c's end at 40); after the end 45.8 repeats 42.8, k = 4
 * to 57.8; 60.8 -> 87.8 (k = 9); 90.8 -> 99.8 (k = 3).  6 repeats, 6
 * skips of 22 periods of 3 member iterations (1 of b, 2 of a): 66. */
static void test_group_start_inside_skip(void)
{
    g_autofree char *jobs = g_strdup_printf(
        "%s, {\"id\": \"c\", \"gpus\": 2, \"hosts\": [\"h2\", \"h3\"], \"host_gpus\": [1, 1],"
        " \"start_s\": 20.05, \"end_s\": 40, \"model\": {\"compute_s\": 1.0,"
        " \"comm_bytes\": 1e10, \"comm_start_frac\": 1.0, \"opt_s\": 0.5}}",
        JOBS_AB);
    g_autofree char *text = scenario(PRIO_AB, jobs, 30);
    char *four = strstr(text, "hosts_per_tor=2");
    four[strlen("hosts_per_tor=")] = '4';
    test_run x;
    if (test_run_text(&x, text, true, NULL)) {
        replay_job_result a, b;
        replay_job_get(x.r, 0, &a);
        replay_job_get(x.r, 1, &b);
        CU_ASSERT_EQUAL(a.iterations, 66);
        CU_ASSERT_EQUAL(b.iterations, 33);
        TEST_ASSERT_CLOSE(a.busy_gpu_s, 134.0, 1e-9);
        TEST_ASSERT_CLOSE(b.busy_gpu_s, 132.4, 1e-9);
        replay_summary s;
        replay_get_summary(x.r, &s);
        CU_ASSERT_EQUAL(s.group_repeats, 6);
        CU_ASSERT_EQUAL(s.group_skips, 6);
        CU_ASSERT_EQUAL(s.group_skip_iterations, 66);
    }
    test_run_clear(&x);
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* Jobs b and c of three_jobs, starting at START (a literal). */
#define JOBS_BC(start)                                                                    \
    JOB("b", start, "200", "0.7071067811865476", "2e9") ", "                               \
    JOB("c", start, "200", "1.118033988749895", "3e9")

/* Job a and JOBS_BC on one shared NIC (strict priority a > b > c), then
 * EXTRA, more job objects ("" for none). */
static char *three_jobs(const char *bc, const char *extra, const char *steady)
{
    return g_strdup_printf(
        "{\"topology\": \"clos2:tors=1,aggs=1,hosts_per_tor=2,gpus=4,nics=1,pcie=1,"
        "nic_gbps=80,pcie_gbps=800,latency_us=0,host_latency_us=0\","
        " \"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"a\": {\"priority\": 0},"
        " \"b\": {\"priority\": 1}, \"c\": {\"priority\": 2}}},"
        " \"trace\": {\"jobs\": [%s, %s%s]},"
        " \"sim\": {\"interval_s\": 50, \"alpha_us\": 0, \"channels\": 1,"
        " \"steady\": \"%s\"}}",
        JOB("a", "0", "200", "0.5", "2e9"), bc, extra, steady);
}

/* Three jobs on one NIC per host (4 GPUs a host), levels 0, 1, 2, compute
 * 0.5, 1/sqrt(2) and sqrt(1.25) s, rings of 0.2, 0.2 and 0.3 s alone: a is
 * never delayed (period 0.7 s); b (0.907 s alone) waits at most 0.2 s
 * when it meets a's ring, too little to lock to a multiple of 0.7, so
 * their phases drift and the group's state at the anchor's (c's)
 * boundaries never comes back: after 64 boundaries the group gives up
 * (one fallback, no repeat, no skip) and every output equals the event
 * path's. */
static char *never_repeats(const char *steady)
{
    return three_jobs(JOBS_BC("0"), "", steady);
}

static void test_group_never_repeats(void)
{
    g_autofree char *text = never_repeats("exact");
    test_run x;
    if (test_run_text(&x, text, true, NULL)) {
        replay_summary s;
        replay_get_summary(x.r, &s);
        CU_ASSERT_EQUAL(s.group_fallbacks, 1);
        CU_ASSERT_EQUAL(s.group_repeats, 0);
        CU_ASSERT_EQUAL(s.group_skips, 0);
    }
    test_run_clear(&x);
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* A repeat modulo a long transfer (docs/engine.md §5c), ecmp (one level,
 * equal shares).  a: C = 1, S = 5e9 (0.5 s alone); b: C = 0.5, S =
 * 2.02e11 (20.2 s alone): a is the fast member (T_iso 1.5 against 20.7).
 * While b's ring runs, a's period is 2 s: compute 1 s (b alone at 1e10),
 * ring 1 s shared (5e9 each); b carries 1e10 + 5e9 = 1.5e10 B a period.
 *   b: compute [0, 0.5), ring from 0.5: alone to 1 (5e9), shared [1, 2):
 *      1.92e11 left at a's boundary 2, then 1.77e11 at 4, 1.62e11 at 6.
 *   At 6 the snapshots of 2, 4 and 6 repeat except b's remaining bytes
 *   (-1.5e10 twice) and its iteration start (0, a time that stays): a
 *   repeat modulo the long transfer; the links' counters are read (k
 *   would be min(ceil(16.2 / 1.5) - 1, 6 + 2k < 28) = 10 >= 4 + 1).  At 8
 *   (4, 6, 8; 1.47e11 left) the group skips k = min(ceil(14.7 / 1.5) - 1,
 *   8 + 2k < 28) = 9 periods, to 26 with 1.2e10 left.  a computes
 *   [26, 27) while b carries 1e10 alone; a rings from 27 at 5e9 with b's
 *   last 2e9: b ends at 27.4 (iteration 1) and computes [27.4, 27.9); a's
 *   last 3e9 go alone at 1e10: a ends at 27.7 and computes from 27.7.
 * In [0, 28): a ends 14 iterations (2, 4, ..., 26, 27.7: 27.7 s), busy
 * 14 computes + [27.7, 28) = 14.3 s x 2 GPUs = 28.6 GPU-s; b 1 iteration
 * of 27.4 s, busy 2 x 0.5 x 2 = 2 GPU-s; cluster utilization 30.6 /
 * (4 x 28).  One skip modulo the long transfer, of 9 of a's iterations;
 * no exact repeat (b's only boundary is 27.4). */
static void test_group_long_transfer(void)
{
    g_autofree char *text =
        scenario("\"ecmp\"",
                 JOB("a", "0", "28", "1.0", "5e9") ", " JOB("b", "0", "28", "0.5", "2.02e11"),
                 30);
    for (int ff = 1; ff >= 0; ff--) {
        test_run x;
        if (test_run_text(&x, text, ff, NULL)) {
            replay_job_result a, b;
            replay_job_get(x.r, 0, &a);
            replay_job_get(x.r, 1, &b);
            CU_ASSERT_EQUAL(a.iterations, 14);
            CU_ASSERT_EQUAL(b.iterations, 1);
            TEST_ASSERT_CLOSE(a.busy_gpu_s, 28.6, 1e-9);
            TEST_ASSERT_CLOSE(b.busy_gpu_s, 2.0, 1e-9);
            TEST_ASSERT_CLOSE(a.mean_iter_s, 27.7 / 14, 1e-9);
            TEST_ASSERT_CLOSE(b.mean_iter_s, 27.4, 1e-9);
            replay_summary s;
            replay_get_summary(x.r, &s);
            TEST_ASSERT_CLOSE(s.gpu_util_cluster_frac, 30.6 / (4 * 28), 1e-9);
            CU_ASSERT_EQUAL(s.group_skips, ff ? 1 : 0);
            CU_ASSERT_EQUAL(s.group_drift_skips, ff ? 1 : 0);
            CU_ASSERT_EQUAL(s.group_skip_iterations, ff ? 9 : 0);
            CU_ASSERT_EQUAL(s.group_repeats, 0);
        }
        test_run_clear(&x);
    }
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* The approximate mode (docs/engine.md §5d) on never_repeats' three jobs:
 * the exact path falls back, the approximate one jumps once the mean
 * iteration times of two windows agree (within 1e-2, or 0.25 / n for a
 * member that ends n iterations in a window), up to the window's end (it
 * crosses the ticks at 50, 100, 150).  a (level 0) is never delayed: its
 * iteration is 0.5 + 0.2 = 0.7 s in every window, so it ends 285
 * iterations (0.7 x 285 = 199.5 < 200) on both paths, within 1.  Against the event path, b's and c's
 * iterations differ by at most the bound run.json reports, and so does
 * the cluster utilization.  b's and c's phases drift (never_repeats), so
 * the bound holds what they would gain were they to lock into a faster
 * rate (docs/engine.md §5d): 0.111 of the cluster, where the jump is off
 * by 0.0017 (2026-11-30); it is checked to be no more than 0.2. */
static void test_group_approx(void)
{
    test_run x, y;
    replay_summary s, e;
    if (test_run_approx_and_exact(never_repeats, &x, &y, &s, &e)) {
        CU_ASSERT_TRUE(s.approx_jumps >= 1);
        CU_ASSERT_TRUE(s.approx_iterations > 0);
        CU_ASSERT_EQUAL(e.approx_jumps, 0);
        CU_ASSERT_TRUE(fabs(s.gpu_util_cluster_frac - e.gpu_util_cluster_frac) <=
                       s.approx_util_bound);
        CU_ASSERT_TRUE(s.approx_util_bound > 0 && s.approx_util_bound < 0.2);
        for (size_t i = 0; i < 3; i++) {
            replay_job_result p, q;
            replay_job_get(x.r, i, &p);
            replay_job_get(y.r, i, &q);
            CU_ASSERT_TRUE((double)llabs(p.iterations - q.iterations) <= s.approx_iteration_bound);
            if (i == 0) {
                CU_ASSERT_TRUE(llabs(p.iterations - 285) <= 1);
                CU_ASSERT_EQUAL(q.iterations, 285);
            }
        }
        fprintf(stderr, " (%" G_GUINT64_FORMAT " jumps, utilization %.3g off, bound %.3g) ",
                s.approx_jumps, fabs(s.gpu_util_cluster_frac - e.gpu_util_cluster_frac),
                s.approx_util_bound);
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

/* Windows that hold few iterations (docs/engine.md §5d): two_jobs' a
 * (level 0, never delayed: 1.5 s iterations, communicating in [1.5k + 1,
 * 1.5k + 1.5)) and b (level 1) with C = 2.35, ring 0.8 s of a's idle
 * time, window [0, 29.9), no tick inside.  b's iterations by hand:
 *   1: compute [0, 2.35), rings [2.35, 2.5) 0.15 s, waits to 3, [3, 3.65):
 *      ends 3.65;
 *   2: compute [3.65, 6), rings [6, 6.8): 6.8 (3.15 s);
 *   3: compute [6.8, 9.15), rings [9.15, 9.95): 9.95 (3.15);
 *   4: [9.95, 12.3), rings [12.3, 13) 0.7 s, waits, [13.5, 13.6): 13.6
 *      (3.65);
 *   5: [13.6, 15.95), [15.95, 16) 0.05, waits, [16.5, 17.25): 17.25;
 *   6: [17.25, 19.6), [19.6, 20.4): 20.4;
 *   7: [20.4, 22.75), [22.75, 23.5) 0.75, waits, [24, 24.05): 24.05;
 *   8: [24.05, 26.4), [26.4, 26.5) 0.1, waits, [27, 27.7): 27.7;
 *   9 would end after 29.9.
 * Event path: a ends 19 iterations (28.5), busy 20 computes x 2 GPUs =
 * 40 GPU-s; b 8, busy 2 x (8 x 2.35 + [27.7, 29.9)) = 42 GPU-s.
 * The group forms at 0 (a record there), b's boundaries 3.65 and 6.8
 * close two windows: a 2 and 2 iterations of 1.5 s, b one of 3.65 and
 * one of 3.15, 15.9 % apart: beyond 1e-2, within 0.25 / 1.  So at 6.8
 * the group jumps k = 15 of a's iterations (6.8 + 1.5 k < 29.9) to 29.3,
 * the window opened at the change kept: a +15, b +floor(22.5 / 3.4) = 6
 * (m = (3.65 + 3.15) / 2).  With 1e-2 alone the window of the change
 * would be dropped and the jump would come at 9.95 (k = 13, b +6).
 * a: 4 + 15 = 19 iterations, busy 2 x (4 + [28.5, 29.5)) + 15 x 2 = 40,
 * both the event path's (a moved 22.5 s, 15 of its periods).  b: 2 + 6 =
 * 8, the event path's; busy 2 x (2 x 2.35 + [29.3, 29.9)) + 6 x 4.7 =
 * 38.8 GPU-s, 3.2 short (the 0.62 iteration carried).  Utilization
 * 78.8 / 119.6 against 82 / 119.6.  The phases still move: a (2
 * iterations a window, fewer than 25) began its iteration in progress
 * 0.65 s before b's boundary at 3.65 (at 3) and 0.8 s before the one at
 * 6.8 (at 6), a tenth of its 1.5 s apart (more than 1e-2), so b, slowed
 * (3.4 s against 3.15 alone), may yet gain 22.5 x 0.25 / (3.4 x 3.15) =
 * 0.52521 iterations (its recovery, docs/engine.md §5d).  Bound: a 2
 * (its windows agree, never slowed), b 22.5 / 3.4 x 0.5 / 3.4 + 0.52521 +
 * 2 = 3.4984; busy 2 x 2 + 3.4984 x 4.7 = 20.442 GPU-s, 0.17092 of 4 x
 * 29.9. */
static void test_group_approx_phase(void)
{
    g_autofree char *plain = scenario(PRIO_AB,
                                      JOB("a", "0", "29.9", "1.0", "5e9") ", "
                                      JOB("b", "0", "29.9", "2.35", "8e9"), 30);
    g_autoptr(GString) text = g_string_new(plain);
    g_string_replace(text, "\"channels\": 1}", "\"channels\": 1, \"steady\": \"approx\"}", 1);
    static const int64_t iters[2] = {19, 8};
    static const double busy[2][2] = {{40.0, 38.8}, {40.0, 42.0}};
    test_run x, y;
    if (test_run_text(&x, text->str, true, NULL) && test_run_text(&y, plain, false, NULL)) {
        for (int run = 0; run < 2; run++)
            for (size_t i = 0; i < 2; i++) {
                replay_job_result p;
                replay_job_get(run ? y.r : x.r, i, &p);
                CU_ASSERT_EQUAL(p.iterations, iters[i]);
                TEST_ASSERT_CLOSE(p.busy_gpu_s, busy[run][i], 1e-9);
            }
        replay_summary s, e;
        replay_get_summary(x.r, &s);
        replay_get_summary(y.r, &e);
        CU_ASSERT_EQUAL(s.approx_jumps, 1);
        CU_ASSERT_EQUAL(s.approx_change_windows_kept, 1);
        CU_ASSERT_EQUAL(s.approx_iterations, 15 + 6);
        TEST_ASSERT_CLOSE(s.gpu_util_cluster_frac, 78.8 / 119.6, 1e-9);
        TEST_ASSERT_CLOSE(e.gpu_util_cluster_frac, 82.0 / 119.6, 1e-9);
        double b_bound = 2.0 + 22.5 / 3.4 * 0.5 / 3.4 + 22.5 * 0.25 / (3.4 * 3.15);
        TEST_ASSERT_CLOSE(s.approx_iteration_bound, b_bound, 1e-9);
        TEST_ASSERT_CLOSE(s.approx_util_bound, (4.0 + b_bound * 4.7) / 119.6, 1e-9);
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

/* The first window opened at the change that forms a group, and jumps in
 * whole iterations of the fast member (docs/engine.md §5d), with
 * never_repeats' three jobs on 4-GPU hosts: a alone from 0, b and c from
 * 10, and d, a 1-GPU job on h0 (no communication: it shares no link with
 * anyone), from 100 to 150.
 *   a (level 0) is never delayed: iterations of 0.5 + 2e9 / 1e10 = 0.7 s
 *   ending at 0.7 k < 200: 285, busy 2 x (285 x 0.5 + [199.5, 200)) =
 *   286 GPU-s, mean 0.7.  It is the group's fast member (0.7 against
 *   0.907 and 1.418 alone), so every jump is k of its mean iterations
 *   (0.7 s up to rounding) and credits it exactly k: its counts are the
 *   event path's exactly, not within 1.
 *   d runs alone (1 GPU: fast-forwarded): 0.3 s iterations ending at
 *   100 + 0.3 k < 150: 166, busy the whole 50 s = 50 GPU-s.
 *   Groups form at 10 only, twice: b's arrival makes {a, b} (a ran alone
 *   before), c's, in the same instant, {a, b, c}; d's arrival and end
 *   leave the group as it was (its windows are kept), and at the
 *   window's end (200) none opens: two first windows opened at a change.
 * The cluster utilization is within the reported bound of the event
 * path's.  b's and c's iterations are within 10 % of the event path's:
 * c (level 2, the anchor) ends 114 iterations against 111, within the
 * run's largest per-job bound (27.4).  With windows that had to agree
 * within 1e-2 whatever their iterations, c ended 103, beyond its stated
 * bound of 6: its two one-iteration windows after 10 agreed exactly, in
 * a transient the event path leaves later (docs/engine.md §5d, "where
 * the bound fails"). */
static char *change_window(const char *steady)
{
    return three_jobs(JOBS_BC("10"),
                      ", {\"id\": \"d\", \"gpus\": 1, \"hosts\": [\"h0\"], \"host_gpus\": [1],"
                      " \"start_s\": 100, \"end_s\": 150, \"model\": {\"compute_s\": 0.3,"
                      " \"comm_bytes\": 0, \"opt_s\": 0}}",
                      steady);
}

static void test_group_approx_change(void)
{
    test_run x, y;
    replay_summary s, e;
    if (test_run_approx_and_exact(change_window, &x, &y, &s, &e)) {
        CU_ASSERT_TRUE(s.approx_jumps >= 1);
        CU_ASSERT_EQUAL(s.approx_change_windows, 2);
        CU_ASSERT_TRUE(s.approx_change_windows_kept <= 2);
        CU_ASSERT_EQUAL(e.approx_change_windows, 0);
        for (int run = 0; run < 2; run++) {
            replay_job_result a, d;
            replay_job_get(run ? y.r : x.r, 0, &a);
            replay_job_get(run ? y.r : x.r, 3, &d);
            CU_ASSERT_EQUAL(a.iterations, 285);
            TEST_ASSERT_CLOSE(a.busy_gpu_s, 286.0, 1e-9);
            TEST_ASSERT_CLOSE(a.mean_iter_s, 0.7, 1e-9);
            CU_ASSERT_EQUAL(d.iterations, 166);
            TEST_ASSERT_CLOSE(d.busy_gpu_s, 50.0, 1e-9);
        }
        CU_ASSERT_TRUE(fabs(s.gpu_util_cluster_frac - e.gpu_util_cluster_frac) <=
                       s.approx_util_bound);
        for (size_t i = 1; i < 3; i++) {
            replay_job_result p, q;
            replay_job_get(x.r, i, &p);
            replay_job_get(y.r, i, &q);
            CU_ASSERT_TRUE(llabs(p.iterations - q.iterations) <= q.iterations / 10);
            fprintf(stderr, " (%s: %" G_GINT64_FORMAT " against %" G_GINT64_FORMAT ")",
                    i == 1 ? "b" : "c", p.iterations, q.iterations);
        }
        fprintf(stderr, " (%" G_GUINT64_FORMAT " jumps, first window kept %" G_GUINT64_FORMAT
                ", utilization %.3g off, bound %.3g) ", s.approx_jumps,
                s.approx_change_windows_kept,
                fabs(s.gpu_util_cluster_frac - e.gpu_util_cluster_frac), s.approx_util_bound);
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

/* The carried cases' checks, approx run x against event path y (jobs 0
 * to n - 1, job 0 a, the fast member, never delayed): a ends 285
 * iterations of 0.7 s (0.7 x 285 = 199.5 < 200) on both paths, every
 * other job's iterations and the cluster utilization within the
 * reported bounds of the event path's. */
static void assert_carried_bounds(const test_run *x, const test_run *y, size_t n)
{
    replay_summary s, e;
    replay_get_summary(x->r, &s);
    replay_get_summary(y->r, &e);
    for (int run = 0; run < 2; run++) {
        replay_job_result a;
        replay_job_get(run ? y->r : x->r, 0, &a);
        CU_ASSERT_EQUAL(a.iterations, 285);
    }
    for (size_t i = 1; i < n; i++) {
        replay_job_result p, q;
        replay_job_get(x->r, i, &p);
        replay_job_get(y->r, i, &q);
        CU_ASSERT_TRUE((double)llabs(p.iterations - q.iterations) <= s.approx_iteration_bound);
        fprintf(stderr, " (%s: %" G_GINT64_FORMAT " against %" G_GINT64_FORMAT ")", p.id,
                p.iterations, q.iterations);
    }
    CU_ASSERT_TRUE(fabs(s.gpu_util_cluster_frac - e.gpu_util_cluster_frac) <= s.approx_util_bound);
}

/* A group that gains one member (docs/engine.md §5d, "one anchor
 * iteration per group formation"): never_repeats' jobs, but c (level 2,
 * the anchor: 1.418 s alone) arrives at 10 while a (level 0) and b (level
 * 1) run from 0.  {a, b} forms at 0 (a first window), converges and jumps
 * up to c's arrival; at 10 {a, b, c} forms (a second first window) from
 * {a, b} plus one member, so a's and b's rates over {a, b}'s last window
 * are carried and checked against the one window from 10 to c's first
 * boundary: c, on the lowest level, takes nothing from a or b (strict
 * priority on the shared NIC), so their rates agree and the group jumps
 * there, to the window's end (one carried jump: two jumps in all), c's
 * rate from that window alone.  a (never delayed, the fast member) ends
 * 285 iterations of 0.7 s (0.7 x 285 = 199.5 < 200) on both paths; c's
 * rate, measured in one window, adds dt / m_c x max(1e-2, 0.25 / n) to
 * its bound (n its iterations in that window), which holds its
 * iterations within the event path's, and b's; the cluster utilization
 * is within the run's bound. */
static void test_group_approx_carried(void)
{
    g_autofree char *approx = three_jobs(JOB("b", "0", "200", "0.7071067811865476", "2e9") ", "
                                         JOB("c", "10", "200", "1.118033988749895", "3e9"), "",
                                         "approx");
    g_autofree char *exact = three_jobs(JOB("b", "0", "200", "0.7071067811865476", "2e9") ", "
                                        JOB("c", "10", "200", "1.118033988749895", "3e9"), "",
                                        "exact");
    test_run x, y;
    if (test_run_text(&x, approx, true, NULL) && test_run_text(&y, exact, false, NULL)) {
        replay_summary s, e;
        replay_get_summary(x.r, &s);
        replay_get_summary(y.r, &e);
        CU_ASSERT_EQUAL(s.approx_change_windows, 2);
        CU_ASSERT_EQUAL(s.approx_carried_jumps, 1);
        CU_ASSERT_EQUAL(s.approx_jumps, 2);
        CU_ASSERT_EQUAL(s.approx_wander_jumps, 0); /* the other jump's windows agree */
        CU_ASSERT_EQUAL(e.approx_carried_jumps, 0);
        assert_carried_bounds(&x, &y, 3);
        fprintf(stderr, " (%" G_GUINT64_FORMAT " jumps, %" G_GUINT64_FORMAT " carried,"
                " utilization %.3g off, bound %.3g, iteration bound %.3g) ", s.approx_jumps,
                s.approx_carried_jumps, fabs(s.gpu_util_cluster_frac - e.gpu_util_cluster_frac),
                s.approx_util_bound, s.approx_iteration_bound);
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

/* Two changes in one instant (docs/engine.md §5d, "one anchor iteration
 * per group formation"): approx_carried's a (level 0) and b (level 1)
 * from 0 to 200, e (c's model, level 2) from 0 to 10 and c (level 2)
 * from 10.  At 10 e ends and c arrives: the groups are rebuilt after
 * each, {a, b, e} -> {a, b} -> {a, b, c} (or through {a, b, e, c}), and
 * the group in between has measured nothing of its own.  a's and b's
 * windows from {a, b, e} (e, on the lowest level, took nothing from
 * them: strict priority on the shared NIC) are what {a, b, c} carries
 * and checks against the one window from 10 to c's first boundary; c's
 * rate comes from that window alone.  So the group jumps there (one
 * carried jump; with only the group in between to carry from it would
 * measure two windows of its own: none).  a (never delayed, the fast
 * member) ends 285 iterations of 0.7 s (0.7 x 285 = 199.5 < 200) on both
 * paths; b's and c's iterations and the cluster utilization are within
 * the reported bounds of the event path's. */
static char *end_and_arrival(const char *steady)
{
    return g_strdup_printf(
        "{\"topology\": \"clos2:tors=1,aggs=1,hosts_per_tor=2,gpus=4,nics=1,pcie=1,"
        "nic_gbps=80,pcie_gbps=800,latency_us=0,host_latency_us=0\","
        " \"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"a\": {\"priority\": 0},"
        " \"b\": {\"priority\": 1}, \"c\": {\"priority\": 2}, \"e\": {\"priority\": 2}}},"
        " \"trace\": {\"jobs\": [%s, %s, %s, %s]},"
        " \"sim\": {\"interval_s\": 50, \"alpha_us\": 0, \"channels\": 1,"
        " \"steady\": \"%s\"}}",
        JOB("a", "0", "200", "0.5", "2e9"), JOB("b", "0", "200", "0.7071067811865476", "2e9"),
        JOB("e", "0", "10", "1.118033988749895", "3e9"),
        JOB("c", "10", "200", "1.118033988749895", "3e9"), steady);
}

static void test_group_approx_end_and_arrival(void)
{
    test_run x, y;
    replay_summary s, e;
    if (test_run_approx_and_exact(end_and_arrival, &x, &y, &s, &e)) {
        CU_ASSERT_EQUAL(s.approx_carried_jumps, 1);
        assert_carried_bounds(&x, &y, 4);
        fprintf(stderr, " (%" G_GUINT64_FORMAT " jumps, %" G_GUINT64_FORMAT " carried,"
                " %" G_GUINT64_FORMAT " first windows, utilization %.3g off, bound %.3g) ",
                s.approx_jumps, s.approx_carried_jumps, s.approx_change_windows,
                fabs(s.gpu_util_cluster_frac - e.gpu_util_cluster_frac), s.approx_util_bound);
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

/* A random scenario (seeded): 4 hosts under 2 ToRs (2 GPUs, 2 NICs of
 * 1e10 B/s each, uplinks of 80 to 240 Gb/s: tight or not), 2 to 4 jobs of
 * 2 GPUs on two hosts each, random compute, ring size, optimizer,
 * communication start and buckets, overlapping windows in [0, 60),
 * ticks of 2 to 30 s, ecmp or fixed random priorities.  long_ring: the
 * first job's ring is 10 to 40 times longer (transfers that outlast many
 * iterations of the others: repeats modulo long transfers). */
static char *random_scenario(guint32 seed, bool long_ring)
{
    g_autoptr(GRand) g = g_rand_new_with_seed(seed);
    static const int up[] = {80, 120, 160, 240};
    static const double ticks[] = {2, 7, 30};
    int n = g_rand_int_range(g, 2, 5), used[4] = {0};
    g_autoptr(GString) jobs = g_string_new(NULL), prio = g_string_new(NULL);
    for (int i = 0; i < n; i++) {
        int h[2], free_hosts = 0;
        for (int k = 0; k < 4; k++)
            free_hosts += used[k] < 2;
        if (free_hosts < 2)
            break;
        for (int k = 0; k < 2; k++) {
            do
                h[k] = g_rand_int_range(g, 0, 4);
            while (used[h[k]] >= 2 || (k == 1 && h[1] == h[0]));
            used[h[k]]++;
        }
        double start = g_rand_double_range(g, 0, 10), end = start + g_rand_double_range(g, 15, 50);
        double scale = long_ring && i == 0 ? g_rand_double_range(g, 10, 40) : 1.0;
        g_string_append_printf(
            jobs,
            "%s{\"id\": \"j%d\", \"gpus\": 2, \"hosts\": [\"h%d\", \"h%d\"],"
            " \"host_gpus\": [1, 1], \"start_s\": %.3f, \"end_s\": %.3f, \"model\": {"
            "\"compute_s\": %.4f, \"comm_bytes\": %.4g, \"comm_start_frac\": %.2f,"
            " \"opt_s\": %.3f, \"buckets\": %d}}",
            i ? ", " : "", i, h[0], h[1], start, end, g_rand_double_range(g, 0.1, 2.0),
            scale * g_rand_double_range(g, 0.1e10, 1.5e10),
            g_rand_boolean(g) ? 1.0 : g_rand_double_range(g, 0.3, 1.0),
            g_rand_boolean(g) ? 0.0 : g_rand_double_range(g, 0.01, 0.4),
            g_rand_int_range(g, 1, 3));
        g_string_append_printf(prio, "%s\"j%d\": {\"priority\": %d}", i ? ", " : "", i,
                               g_rand_int_range(g, 0, 3));
    }
    g_autofree char *sched = g_rand_boolean(g)
                                 ? g_strdup("\"ecmp\"")
                                 : g_strdup_printf("{\"name\": \"fixed\", \"jobs\": {%s}}", prio->str);
    return g_strdup_printf(
        "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=2,nics=2,pcie=2,"
        "nic_gbps=80,pcie_gbps=800,latency_us=0,host_latency_us=0,link_gbps=%d\","
        " \"scheduler\": %s, \"trace\": {\"jobs\": [%s]},"
        " \"sim\": {\"interval_s\": %g, \"alpha_us\": 0, \"channels\": 1, \"end_s\": 60}}",
        up[g_rand_int_range(g, 0, 4)], sched, jobs->str, ticks[g_rand_int_range(g, 0, 3)]);
}

/* Property: 300 seeded random scenarios (and 300 with a long ring) give, with the fast path (groups,
 * stretches) and without, cluster and allocated utilization within 1e-6
 * absolute (whole run and every interval) and per-job iterations within
 * 1; the fast path is taken in some of them (skips, skips modulo long
 * transfers and stretches > 0). */
static void test_group_property(void)
{
    uint64_t skips = 0, drift = 0, stretches = 0, fails = 0;
    for (guint32 seed = 1; seed <= 600; seed++) {
        g_autofree char *text = random_scenario(seed, seed > 300);
        g_autofree char *tmp = g_dir_make_tmp("ccsim-prop-XXXXXX", NULL);
        g_autofree char *d1 = g_build_filename(tmp, "ff", NULL);
        g_autofree char *d2 = g_build_filename(tmp, "plain", NULL);
        test_run x, y;
        bool ok = test_run_text(&x, text, true, d1);
        ok = test_run_text(&y, text, false, d2) && ok;
        if (ok) {
            replay_summary a, b;
            replay_get_summary(x.r, &a);
            replay_get_summary(y.r, &b);
            skips += a.group_skips;
            drift += a.group_drift_skips;
            stretches += a.ffwd_stretches;
            bool bad = fabs(a.gpu_util_cluster_frac - b.gpu_util_cluster_frac) > 1e-6 ||
                       fabs(a.gpu_util_allocated_frac - b.gpu_util_allocated_frac) > 1e-6;
            for (size_t i = 0; i < replay_job_count(x.r); i++) {
                replay_job_result p, q;
                replay_job_get(x.r, i, &p);
                replay_job_get(y.r, i, &q);
                bad |= llabs(p.iterations - q.iterations) > 1;
            }
            /* timeseries.csv field 4: gpu_util_cluster_frac */
            for (int line = 1; !bad; line++) {
                double u = test_run_csv_field(d1, "timeseries.csv", line, 4);
                double v = test_run_csv_field(d2, "timeseries.csv", line, 4);
                if (isnan(u) && isnan(v))
                    break;
                bad = !(fabs(u - v) <= 1e-6);
            }
            if (bad) {
                fprintf(stderr, "\n  seed %u differs: %s\n", seed, text);
                fails++;
            }
        }
        test_run_clear(&x);
        test_run_clear(&y);
        test_run_remove_outputs(d1);
        test_run_remove_outputs(d2);
        g_rmdir(tmp);
    }
    CU_ASSERT_EQUAL(fails, 0);
    CU_ASSERT_TRUE(skips > 0);
    CU_ASSERT_TRUE(drift > 0);
    CU_ASSERT_TRUE(stretches > 0);
    fprintf(stderr,
            " (%" G_GUINT64_FORMAT " skips, %" G_GUINT64_FORMAT " modulo long transfers, %" G_GUINT64_FORMAT
            " stretches) ",
            skips, drift, stretches);
}

/* What the approximate mode gives on random_scenario(seed) for seeds lo
 * to hi (a long ring in the second half of every 600), against the event
 * path. */
typedef struct approx_sweep {
    uint64_t jumps, scenarios, kept; /* jumps, runs with one, first windows kept */
    uint64_t util_beyond;            /* runs beyond the utilization bound (+ 1e-6) */
    uint64_t jobs_beyond;            /* jobs beyond the per-job bound (at least 1) */
    uint64_t runs_beyond;            /* runs with such a job */
} approx_sweep;

static void approx_sweep_run(guint32 lo, guint32 hi, approx_sweep *w)
{
    *w = (approx_sweep){0};
    for (guint32 seed = lo; seed <= hi; seed++) {
        g_autofree char *plain = random_scenario(seed, (seed - 1) % 600 >= 300);
        g_autoptr(GString) text = g_string_new(plain);
        g_string_replace(text, "\"end_s\": 60}}", "\"end_s\": 60, \"steady\": \"approx\"}}", 1);
        test_run x, y;
        bool ok = test_run_text(&x, text->str, true, NULL);
        ok = test_run_text(&y, plain, false, NULL) && ok;
        if (ok) {
            replay_summary a, b;
            replay_get_summary(x.r, &a);
            replay_get_summary(y.r, &b);
            w->jumps += a.approx_jumps;
            w->scenarios += a.approx_jumps > 0;
            w->kept += a.approx_change_windows_kept;
            if (fabs(a.gpu_util_cluster_frac - b.gpu_util_cluster_frac) >
                a.approx_util_bound + 1e-6) {
                fprintf(stderr, "\n  seed %u: utilization %.3g off, bound %.3g\n", seed,
                        fabs(a.gpu_util_cluster_frac - b.gpu_util_cluster_frac),
                        a.approx_util_bound);
                w->util_beyond++;
            }
            uint64_t beyond = 0;
            for (size_t i = 0; i < replay_job_count(x.r); i++) {
                replay_job_result p, q;
                replay_job_get(x.r, i, &p);
                replay_job_get(y.r, i, &q);
                beyond += (double)llabs(p.iterations - q.iterations) >
                          fmax(1.0, a.approx_iteration_bound);
            }
            w->jobs_beyond += beyond;
            w->runs_beyond += beyond > 0;
        }
        test_run_clear(&x);
        test_run_clear(&y);
    }
    fprintf(stderr,
            " (%" G_GUINT64_FORMAT " jumps in %" G_GUINT64_FORMAT " scenarios, %" G_GUINT64_FORMAT
            " first windows opened at a change kept; jobs beyond the per-job bound: %"
            G_GUINT64_FORMAT " in %" G_GUINT64_FORMAT " runs, runs beyond the utilization"
            " bound: %" G_GUINT64_FORMAT ") ",
            w->jumps, w->scenarios, w->kept, w->jobs_beyond, w->runs_beyond, w->util_beyond);
}

/* Property, --steady approx (docs/engine.md §5d): the 600 scenarios of
 * test_group_property in the approximate mode against the event path.
 * The cluster utilization must be within the reported bound (plus the
 * exact mode's 1e-6) in every one, and so must every job's iterations
 * (the stated per-job bound, at least 1; it is no proof:
 * docs/engine.md §5d shows cases beyond it, and approx_property_wide
 * counts them); jumps must happen, some of them with a first window
 * opened at a change. */
static void test_group_approx_property(void)
{
    approx_sweep w;
    approx_sweep_run(1, 600, &w);
    CU_ASSERT_EQUAL(w.util_beyond, 0);
    CU_ASSERT_EQUAL(w.jobs_beyond, 0);
    CU_ASSERT_TRUE(w.jumps > 0);
    CU_ASSERT_TRUE(w.kept > 0);
}

/* The same on the next 19,400 seeds (suite "soak": 30 s of a plain
 * build): how often the stated bounds fail (docs/engine.md §5d, "the
 * window after the change", "a phase still moving").  On 2026-11-30, 9
 * runs had a job beyond its bound and 2 runs were beyond the utilization
 * bound (16 and 5 before the bound held a phase still moving, 34 and 9
 * before the window after the change), all of the kinds §5d names.  The budget,
 * about one run in a thousand, is what the stated bound is worth: a
 * change to the approximate mode that lets more through fails here. */
static void test_group_approx_property_wide(void)
{
    approx_sweep w;
    approx_sweep_run(601, 20000, &w);
    CU_ASSERT_TRUE(w.runs_beyond <= 20);
    CU_ASSERT_TRUE(w.util_beyond <= 20);
    CU_ASSERT_TRUE(w.scenarios > 5000);
}

/* A member whose iteration straddles the change (docs/engine.md §5d, "the
 * window after the change"): random_scenario(11845)'s j2 (level 0) and
 * j1 (level 2, the lowest; 0.25 s of compute and a ring of 1.5 s alone)
 * share the 80 Gb/s uplinks between the two ToRs from 5.1 s; j0 (level 0,
 * a ring of 9.7 s alone after 1.1 s of compute) joins them at 8.35, and
 * from its first ring on j1 gets the uplink only while j0 computes (on
 * the event path about 11 s an iteration where it had about 2.8).  The
 * iteration j1 had begun before 8.35 ends inside j0's first compute, at
 * the rate {j2, j1} had, and used to be all the window from the change
 * held of j1: it agreed with the carried window, the group jumped at
 * j1's old rate and counted about four times the event path's iterations
 * (16 against 4, bound 4.3, on 2026-11-30).  Now j1's window after the
 * change starts at its first boundary after it; every job stays within
 * its bound of the event path (the reference here is the event path's
 * own run, as in approx_property). */
static void test_group_approx_straddle(void)
{
    g_autofree char *plain = random_scenario(11845, true);
    g_autoptr(GString) text = g_string_new(plain);
    g_string_replace(text, "\"end_s\": 60}}", "\"end_s\": 60, \"steady\": \"approx\"}}", 1);
    test_run x, y;
    if (test_run_text(&x, text->str, true, NULL) && test_run_text(&y, plain, false, NULL)) {
        replay_summary a;
        replay_get_summary(x.r, &a);
        for (size_t i = 0; i < replay_job_count(x.r); i++) {
            replay_job_result p, q;
            replay_job_get(x.r, i, &p);
            replay_job_get(y.r, i, &q);
            CU_ASSERT_TRUE((double)llabs(p.iterations - q.iterations) <=
                           fmax(1.0, a.approx_iteration_bound));
            fprintf(stderr, " (%s: %" G_GINT64_FORMAT " against %" G_GINT64_FORMAT ")", p.id,
                    p.iterations, q.iterations);
        }
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"two_jobs", test_group_two_jobs},
        {"hook", test_group_hook},
        {"one_job", test_group_one_job},
        {"start_inside_skip", test_group_start_inside_skip},
        {"never_repeats", test_group_never_repeats},
        {"long_transfer", test_group_long_transfer},
        {"approx", test_group_approx},
        {"approx_change", test_group_approx_change},
        {"approx_phase", test_group_approx_phase},
        {"approx_carried", test_group_approx_carried},
        {"approx_end_and_arrival", test_group_approx_end_and_arrival},
        {"property", test_group_property},
        {"approx_property", test_group_approx_property},
        {"approx_straddle", test_group_approx_straddle},
        {"approx_property_wide", test_group_approx_property_wide},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("steady_group", cases);
}
