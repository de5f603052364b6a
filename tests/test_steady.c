/* test_steady.c - suite "steady": fast-forwarded stretches of jobs that
 * share no link (docs/engine.md §5b).  Not here: the periodic profile and
 * the permanent fast-forward of one-host jobs (test_ffwd.c).
 *
 * Every case is derived by hand and run with and without the fast-forward
 * (outputs equal within 1e-9, or 1e-6 where jobs contend: the event path's
 * own rounding at absolute times, docs/engine.md §5a "How identical").
 */
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/replay.h"
#include "test_run.h"
#include "test_util.h"

/* Two hosts under one ToR, 2 GPUs and one 80 Gb/s NIC (1e10 B/s) each,
 * PCIe 1e11 B/s, no latency; one channel, alpha 0.  Job a: one GPU on h0
 * and one on h1, C = 1 s, all-reduce of S = 1e10 B after the backward pass
 * (s = 1), T_opt = 0.5 s.  Its network ring has two hops (h0 -> h1,
 * h1 -> h0) of 2(H-1)/H S = 1e10 B each, one lock-step transfer at
 * min_e B_e = 1e10 B/s: 1 s (no NVLink step: one GPU per host).
 * Iteration T = 1 + 1 + 0.5 = 2.5 s, busy 2 x 1.5 = 3 GPU-s; intensity
 * I = 2 x 1 / (1e10 / 1e10) = 2. */
#define TOPO2                                                                                  \
    "\"clos2:tors=1,aggs=1,hosts_per_tor=%d,gpus=2,nics=1,pcie=1,nic_gbps=80,pcie_gbps=800,"   \
    "latency_us=0,host_latency_us=0\""
#define JOB_A                                                                                  \
    "{\"id\": \"a\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"], \"host_gpus\": [1, 1],"          \
    " \"start_s\": 0, \"end_s\": 100,"                                                          \
    " \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 1e10, \"comm_start_frac\": 1.0,"          \
    " \"opt_s\": 0.5}}"

static char *scenario(int hosts, const char *sched, const char *second_job)
{
    return g_strdup_printf("{\"topology\": " TOPO2 ", \"scheduler\": \"%s\","
                           " \"trace\": {\"jobs\": [" JOB_A "%s%s]},"
                           " \"sim\": {\"interval_s\": 3, \"alpha_us\": 0, \"channels\": 1}}",
                           hosts, sched, second_job ? ", " : "", second_job ? second_job : "");
}

/* The run counted n stretches of m iterations in all. */
static void assert_stretches(const test_run *x, size_t n, size_t m)
{
    replay_summary s;
    replay_get_summary(x->r, &s);
    CU_ASSERT_EQUAL(s.ffwd_stretches, n);
    CU_ASSERT_EQUAL(s.ffwd_stretch_iterations, m);
}

/* Job a alone in [0, 100), intervals of 3 s.  Iteration k runs
 * [2.5k, 2.5k + 2.5): compute [0, 1), ring [1, 2), optimizer [2, 2.5).
 * Iterations ending strictly before 100: 2.5k < 100, k = 39 (the end
 * event at 100 fires first); busy 40 x 3 = 120 GPU-s (the 40th
 * iteration's optimizer ends at 100).
 *   [0, 3): busy [0,1) 2 + [2,2.5) 1 + [2.5,3) 1 = 4 GPU-s -> 4/3 GPUs;
 *           ring [1,2): host_tor util 1 s of 3 = 1/3 (4 links at 1e10,
 *           each carrying one hop's 1e10 B/s);
 *   [6, 9): iteration [5,7.5): optimizer [7,7.5) 1; [7.5,10): compute
 *           [7.5,8.5) 2 -> 3 GPU-s -> 1 GPU; rings [6,7) and [8.5,9):
 *           1.5 s of 3 = 0.5; intensity occupancy 0.5 x I = 1.
 * With the fast-forward: one stretch from 0 (no other job, no arrival:
 * no end before its own), 39 iterations in it, and a handful of events
 * (arrival, end, 34 ticks) against ~10 per iteration on the event path. */
static void test_steady_alone(void)
{
    g_autofree char *text = scenario(2, "ecmp", NULL);
    for (int ff = 1; ff >= 0; ff--) {
        g_autofree char *tmp = g_dir_make_tmp("ccsim-steady-XXXXXX", NULL);
        g_autofree char *d = g_build_filename(tmp, "o", NULL);
        test_run x;
        if (test_run_text(&x, text, ff, d)) {
            replay_job_result j;
            replay_job_get(x.r, 0, &j);
            CU_ASSERT_EQUAL(j.iterations, 39);
            TEST_ASSERT_CLOSE(j.busy_gpu_s, 120.0, 1e-12);
            TEST_ASSERT_CLOSE(j.mean_iter_s, 2.5, 1e-12);
            TEST_ASSERT_CLOSE(j.gpu_intensity, 2.0, 1e-12);
            /* timeseries.csv: busy_gpus field 3, host_tor_util_frac 8,
             * host_tor_intensity_occupancy 14 */
            TEST_ASSERT_CLOSE(test_run_csv_field(d, "timeseries.csv", 1, 3), 4.0 / 3, 1e-9);
            TEST_ASSERT_CLOSE(test_run_csv_field(d, "timeseries.csv", 1, 8), 1.0 / 3, 1e-9);
            TEST_ASSERT_CLOSE(test_run_csv_field(d, "timeseries.csv", 3, 3), 1.0, 1e-9);
            TEST_ASSERT_CLOSE(test_run_csv_field(d, "timeseries.csv", 3, 8), 0.5, 1e-9);
            TEST_ASSERT_CLOSE(test_run_csv_field(d, "timeseries.csv", 3, 14), 1.0, 1e-9);
            assert_stretches(&x, ff ? 1 : 0, ff ? 39 : 0);
            replay_summary s;
            replay_get_summary(x.r, &s);
            if (ff) {
                CU_ASSERT_TRUE(s.events <= 40);
            } else {
                CU_ASSERT_TRUE(s.events >= 300);
            }
        }
        test_run_clear(&x);
        test_run_remove_outputs(d);
        g_rmdir(tmp);
    }
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* Job b (a's model on h2 and h3, four hosts under the ToR) arrives at 50.2
 * and ends at 100: it shares no link with a (other NICs, other PCIe
 * links), but its arrival is a change, so a's first stretch stops before
 * it: the largest k with 2.5k < 50.2 is 20 (a at 50 on the event path).
 * At 50.2 b starts a stretch up to a's end (the next change): k = 19
 * (50.2 + 47.5 = 97.7 < 100).  a's next boundary 52.5 starts one up to
 * b's end: k = 18 (97.5 < 100).  Stretches 3, iterations in them
 * 20 + 19 + 18 = 57; a counts 39 as alone, b the k with 50.2 + 2.5k < 100:
 * 19. */
static void test_steady_start_inside_stretch(void)
{
    g_autofree char *text = scenario(
        4, "ecmp",
        "{\"id\": \"b\", \"gpus\": 2, \"hosts\": [\"h2\", \"h3\"], \"host_gpus\": [1, 1],"
        " \"start_s\": 50.2, \"end_s\": 100,"
        " \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 1e10, \"comm_start_frac\": 1.0,"
        " \"opt_s\": 0.5}}");
    test_run x;
    if (test_run_text(&x, text, true, NULL)) {
        replay_job_result j;
        replay_job_get(x.r, 0, &j);
        CU_ASSERT_EQUAL(j.iterations, 39);
        replay_job_get(x.r, 1, &j);
        CU_ASSERT_EQUAL(j.iterations, 19);
        assert_stretches(&x, 3, 57);
    }
    test_run_clear(&x);
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* Job b on the other GPU of h0 and h1 from 50.2 to 80 shares a's NIC,
 * PCIe and ToR links.  a's stretch ends at 50 (20 iterations) as above;
 * from b's arrival on both run on the event path and contend; b ends at
 * 80, and a, alone again, starts a second stretch at its first boundary
 * after 80.  So 2 stretches (b is never alone), and every output equals
 * the event path's. */
static void test_steady_contending_join(void)
{
    g_autofree char *text = scenario(
        2, "ecmp",
        "{\"id\": \"b\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"], \"host_gpus\": [1, 1],"
        " \"start_s\": 50.2, \"end_s\": 80,"
        " \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 1e10, \"comm_start_frac\": 1.0,"
        " \"opt_s\": 0.5}}");
    test_run x;
    if (test_run_text(&x, text, true, NULL)) {
        replay_summary s;
        replay_get_summary(x.r, &s);
        CU_ASSERT_EQUAL(s.ffwd_stretches, 2);
        CU_ASSERT_TRUE(s.ffwd_stretch_iterations > 20);
    }
    test_run_clear(&x);
    uint64_t a = 0, b = 0;
    test_run_assert_same(text, 1e-6, &a, &b);
    CU_ASSERT_TRUE(a < b);
}

/* Schedulers with an on_comm hook that ignores jobs sharing no link
 * (sincronia-online, cassini) and crux: job a alone runs one stretch
 * of 39 iterations under each, as under ecmp. */
static void test_steady_schedulers(void)
{
    static const char *const scheds[] = {"sincronia-online", "cassini", "crux", "sincronia"};
    for (size_t i = 0; i < G_N_ELEMENTS(scheds); i++) {
        g_autofree char *text = scenario(2, scheds[i], NULL);
        test_run x;
        if (test_run_text(&x, text, true, NULL)) {
            replay_summary s;
            replay_get_summary(x.r, &s);
            if (s.ffwd_stretches != 1)
                fprintf(stderr, "  %s: %zu stretches\n", scheds[i], s.ffwd_stretches);
            CU_ASSERT_EQUAL(s.ffwd_stretches, 1);
            CU_ASSERT_EQUAL(s.ffwd_stretch_iterations, 39);
        }
        test_run_clear(&x);
        test_run_assert_same(text, 1e-9, NULL, NULL);
    }
}

/* Two hosts under two ToRs joined by one aggregation switch; 2 GPUs, 2
 * PCIe switches and 2 NICs (1e10 B/s) per host, GPU g on NIC g.  A job on
 * GPU 0 of both hosts and one on GPU 1 use different NICs but the same
 * ToR-aggregation links (uplink_gbps).  Each job's ring is one transfer
 * whose solo rate is its NICs' 1e10 B/s: its bound on an uplink. */
#define TOPO_UP                                                                                \
    "\"clos2:tors=2,aggs=1,hosts_per_tor=1,gpus=2,nics=2,pcie=2,nic_gbps=80,pcie_gbps=800,"    \
    "latency_us=0,host_latency_us=0,link_gbps=%.15g\""
#define JOB_GPU(id, g, start, end, C, S, opt)                                                  \
    "{\"id\": \"" id "\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"], \"host_gpus\": [1, 1],"    \
    " \"start_s\": " start ", \"end_s\": " end ","                                            \
    " \"model\": {\"compute_s\": " C ", \"comm_bytes\": " S ", \"comm_start_frac\": 1.0,"     \
    " \"opt_s\": " opt "}}"

/* The jobs on topology spec topo (a printf format of the uplink speed),
 * ticks every interval_s, `channels` rings per rail. */
static char *scenario_on(const char *topo_fmt, double uplink_gbps, const char *sched,
                         const char *jobs, int interval_s, int channels)
{
    g_autofree char *topo = g_strdup_printf(topo_fmt, uplink_gbps);
    return g_strdup_printf("{\"topology\": %s, \"scheduler\": \"%s\","
                           " \"trace\": {\"jobs\": [%s]},"
                           " \"sim\": {\"interval_s\": %d, \"alpha_us\": 0, \"channels\": %d}}",
                           topo, sched, jobs, interval_s, channels);
}

static char *scenario_up_every(double uplink_gbps, const char *sched, const char *jobs,
                               int interval_s)
{
    return scenario_on(TOPO_UP, uplink_gbps, sched, jobs, interval_s, 1);
}

static char *scenario_up(double uplink_gbps, const char *sched, const char *jobs)
{
    return scenario_up_every(uplink_gbps, sched, jobs, 3);
}

/* The two jobs of unsaturable_share and channels_share_nic run as alone:
 * 39 iterations of 2.5 s and 120 GPU-s each, in 2 stretches of 77
 * iterations in all, and the event path agrees. */
static void assert_two_alone(const char *text)
{
    test_run x;
    if (test_run_text(&x, text, true, NULL)) {
        replay_job_result j;
        for (size_t i = 0; i < 2; i++) {
            replay_job_get(x.r, i, &j);
            CU_ASSERT_EQUAL(j.iterations, 39);
            TEST_ASSERT_CLOSE(j.busy_gpu_s, 120.0, 1e-12);
            TEST_ASSERT_CLOSE(j.mean_iter_s, 2.5, 1e-12);
        }
        assert_stretches(&x, 2, 77);
    }
    test_run_clear(&x);
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* Uplinks of 240 Gb/s = 3e10 B/s: the two jobs' bounds add up to 2e10 <
 * 3e10, so the shared uplinks can never saturate and each job runs as
 * alone (docs/engine.md §5b): both are a's model (T = 2.5 s) in [0, 100).
 * a starts first, when b's arrival at 0 is the next change: its first
 * iteration runs on events, then a stretch from 2.5 of 38 iterations
 * (2.5 + 2.5 x 38 = 97.5 < 100, the next change being b's end); b runs
 * one of 39 from 0; 77 in all, and each job ends 39 iterations. */
static void test_steady_unsaturable_share(void)
{
    g_autofree char *text =
        scenario_up(240, "ecmp", JOB_GPU("a", 0, "0", "100", "1.0", "1e10", "0.5") ", "
                         JOB_GPU("b", 1, "0", "100", "1.0", "1e10", "0.5"));
    assert_two_alone(text);
}

/* The jobs of unsaturable_share with 2 channels (NCCL rings) each, on
 * uplinks of 240 Gb/s = 3e10 B/s.  Each channel is one transfer of
 * 2(H-1)/H S / 2 = 0.5e10 B over the job's NIC links (1e10 B/s, once
 * each) and both uplinks (once each), the two channels sharing the NICs:
 * 0.5e10 B/s each, the ring 1 s as with one channel (T = 2.5 s), and each
 * job puts 1e10 B/s on an uplink, 2e10 < 3e10 for both: each runs as
 * alone.  The bounds: a channel's solo rate is its NICs' 1e10 B/s, so the
 * per-transfer sum counts 2 x 1e10 on an uplink per job, 4e10 > 3e10 for
 * both, and would make them peers (each communicating 1 s after the
 * other's every boundary: no stretch).  Both channels have the same
 * covering link (the lowest-id NIC link, 1e10 / 1, carried by both), and
 * the uplink carries each once per NIC crossing (ratio 1/1), so the class
 * counts min(2e10, 1 x 1e10) = 1e10 per job: 2e10 < 3e10, isolated.  So
 * the stretches of unsaturable_share: 38 from a's 2.5 (b's arrival at 0
 * the next change before), 39 from b's 0; 2 stretches, 77 iterations,
 * 39 iterations and 120 GPU-s each. */
static void test_steady_channels_share_nic(void)
{
    g_autofree char *text =
        scenario_on(TOPO_UP, 240, "ecmp",
                    JOB_GPU("a", 0, "0", "100", "1.0", "1e10", "0.5") ", "
                    JOB_GPU("b", 1, "0", "100", "1.0", "1e10", "0.5"), 3, 2);
    assert_two_alone(text);
}

/* The jobs of unsaturable_share on uplinks of 160 Gb/s = 2e10 B/s: their
 * bounds (1e10 each, their NICs) add up to exactly the capacity.  Without
 * the uplinks' constraints each job's load on an uplink is at most its
 * bound, so the two add up to at most 2e10: the uplinks can never be
 * overfilled, they change no allocation, and each job runs as alone
 * (docs/engine.md §5b): the stretches of unsaturable_share, 38 from a's
 * 2.5 and 39 from b's 0.  On the event path both rings move in [1, 2) of
 * every iteration, 1e10 B/s each (their NICs): the uplinks exactly full,
 * nobody slowed, 39 iterations of 2.5 s each, 120 GPU-s.  The same under
 * cassini (Up demands 2 x 1e10 do not exceed 2e10: no target, the hook
 * ignores both) and sincronia-online (whatever the levels, the lower one
 * finds 2e10 - 1e10 = 1e10 left on the uplinks, its NIC rate).
 * At 159.9999999992 Gb/s = 1.99999999999e10 B/s = 2e10 (1 - 5e-12) the
 * bounds exceed the capacity by 5e-12 relative, inside the margin
 * rel_eps = 1e-11: still run as alone, where the event path slows the rings
 * by at most 1e-11 relative (the lower level's 1e10 - 2e10 x 5e-12 under
 * sincronia-online): the same iterations, outputs within 1e-9. */
static void test_steady_exactly_full(void)
{
    static const double uplink_gbps[] = {160, 159.9999999992};
    static const char *const scheds[] = {"ecmp", "cassini", "sincronia-online"};
    for (size_t i = 0; i < G_N_ELEMENTS(uplink_gbps); i++)
        for (size_t k = 0; k < G_N_ELEMENTS(scheds); k++) {
            g_autofree char *text =
                scenario_up(uplink_gbps[i], scheds[k],
                            JOB_GPU("a", 0, "0", "100", "1.0", "1e10", "0.5") ", "
                            JOB_GPU("b", 1, "0", "100", "1.0", "1e10", "0.5"));
            assert_two_alone(text);
        }
}

/* Four hosts, h0 and h1 under ToR 0, h2 and h3 under ToR 1, one
 * aggregation switch; 2 GPUs, 2 PCIe switches, 2 NICs (1e10 B/s) per
 * host, GPU g on NIC g; NVLink 800 Gb/s = 1e11 B/s. */
#define TOPO_RAILS                                                                             \
    "\"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=2,nics=2,pcie=2,nic_gbps=80,pcie_gbps=800,"    \
    "nvlink_gbps=800,latency_us=0,host_latency_us=0,link_gbps=%.15g\""
#define JOB_X                                                                                  \
    "{\"id\": \"x\", \"gpus\": 4, \"hosts\": [\"h0\", \"h2\"], \"host_gpus\": [2, 2],"          \
    " \"start_s\": 0, \"end_s\": 100,"                                                          \
    " \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 1e10, \"comm_start_frac\": 1.0,"          \
    " \"opt_s\": 0.5}}"
#define JOB_Y                                                                                  \
    "{\"id\": \"y\", \"gpus\": 2, \"hosts\": [\"h1\", \"h3\"], \"host_gpus\": [1, 1],"          \
    " \"start_s\": 0, \"end_s\": 100,"                                                          \
    " \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 1e10, \"comm_start_frac\": 1.0,"          \
    " \"opt_s\": 0.5}}"

/* Where the covering link does not cover: job x on both GPUs of h0 and h2
 * has two rails (NIC 0 and NIC 1, one channel each), job y on one GPU of
 * h1 and h3 one; the ToR uplinks carry x's two rail rings and y's ring
 * once each.  x: reduce-scatter over NVLink (S/2 = 0.5e10 B at 1e11 B/s:
 * 0.05 s), the two rails' rings (2(H-1)/H S / 2 = 0.5e10 B at 1e10 B/s:
 * 0.5 s), all-gather (0.05 s), T_x = 1 + 0.6 + 0.5 = 2.1 s alone; y:
 * T_y = 2.5 s.  A rail's covering link is one of its own NIC links (1e10 /
 * 1, the only transfer on it), so x's two rails fall in two classes and
 * x's bound on an uplink stays the per-transfer sum 1e10 + 1e10 = 2e10
 * (both rails can move at 1e10 at once), y's 1e10: 3e10 in all.
 *   200 Gb/s = 2.5e10 < 3e10: the uplinks can saturate (and do: x's two
 *   rails and y's ring start within 0.05 s of each other and want 3e10
 *   together), x and y are peers, each communicating within 1.6 s of any
 *   time (no window of two iterations): no stretch.  One bound for x's
 *   two rails (1e10, as if one NIC covered both) would give 2e10 < 2.5e10
 *   and stretches that differ from the event path.
 *   320 Gb/s = 4e10 > 3e10: both isolated.  x starts first, when y's
 *   arrival at 0 is the next change: its first iteration runs on events,
 *   then from 2.1 the largest k with 2.1 + 2.1 k < 100 (y's end): 46; y
 *   from 0 up to x's end: 2.5 k < 100, 39.  2 stretches, 85 iterations;
 *   x ends 47 iterations (2.1 x 47 = 98.7 < 100), y 39. */
static void test_steady_rails_do_not_cover(void)
{
    static const int uplink_gbps[] = {200, 320};
    static const size_t stretches[] = {0, 2}, stretch_iters[] = {0, 85};
    for (size_t i = 0; i < G_N_ELEMENTS(uplink_gbps); i++) {
        g_autofree char *text =
            scenario_on(TOPO_RAILS, uplink_gbps[i], "ecmp", JOB_X ", " JOB_Y, 3, 1);
        test_run x;
        if (test_run_text(&x, text, true, NULL)) {
            assert_stretches(&x, stretches[i], stretch_iters[i]);
            if (i == 1) {
                replay_job_result j;
                replay_job_get(x.r, 0, &j);
                CU_ASSERT_EQUAL(j.iterations, 47);
                TEST_ASSERT_CLOSE(j.mean_iter_s, 2.1, 1e-12);
                replay_job_get(x.r, 1, &j);
                CU_ASSERT_EQUAL(j.iterations, 39);
            }
        }
        test_run_clear(&x);
        test_run_assert_same(text, 1e-6, NULL, NULL);
    }
}

/* The same two jobs under the schedulers with an on_comm hook.  cassini
 * links a shared link only if its jobs' Up demands (bytes per iteration
 * over the standalone communication time, 1e10 B / 1 s each) exceed its
 * capacity: 2e10 < 3e10, so neither job gets a target, its hook ignores
 * both (sched_ops.comm_hints.ignores) and they run as under ecmp: 2
 * stretches, 77 iterations.  sincronia-online counts any sharing, but
 * it only sets levels (sched_ops.comm_hints.levels_only) and both jobs run as
 * alone: no level changes a rate, so they run as under ecmp too, each
 * stretch stopping before its own end (100, as b's end, so the same k:
 * 2.5 + 2.5 x 38 = 97.5 < 100).  Outputs equal the event path's either
 * way. */
static void test_steady_unsaturable_hooks(void)
{
    static const char *const scheds[] = {"cassini", "sincronia-online"};
    static const size_t stretches[] = {2, 2}, stretch_iters[] = {77, 77};
    for (size_t i = 0; i < G_N_ELEMENTS(scheds); i++) {
        g_autofree char *text =
            scenario_up(240, scheds[i],
                        JOB_GPU("a", 0, "0", "100", "1.0", "1e10", "0.5") ", "
                        JOB_GPU("b", 1, "0", "100", "1.0", "1e10", "0.5"));
        test_run x;
        if (test_run_text(&x, text, true, NULL)) {
            replay_job_result j;
            for (size_t k = 0; k < 2; k++) {
                replay_job_get(x.r, k, &j);
                CU_ASSERT_EQUAL(j.iterations, 39);
            }
            assert_stretches(&x, stretches[i], stretch_iters[i]);
        }
        test_run_clear(&x);
        test_run_assert_same(text, 1e-9, NULL, NULL);
    }
}

/* Uplinks of 120 Gb/s = 1.5e10 B/s: the bounds (2e10) exceed it, so a
 * (C = 1, ring 1 s alone, T_opt = 0.5: T = 2.5) and b (C = 21.7, S = 2e10:
 * 2 s alone, no optimizer) contend (0.75e10 B/s each when both move).  a
 * runs stretches only while b cannot communicate (job_next_comm_s), until
 * b's next bucket is ready:
 *   a starts before b arrives (a change at 0): its first iteration runs
 *   on events; 2.5: b's ring starts at 21.7: k = 7 (2.5 + 2.5 x 7 = 20);
 *   a on events: [20, 21) compute, ring from 21 (0.3e10 left at 21.7),
 *   then shared: a done 22.1, opt to 22.6; b alone to 23.6 (0.2e10 left),
 *   shared again: b done 23.8667 (next ring at 23.8667 + 21.7 = 45.5667);
 *   a's ring 0.8e10 alone from 23.8667: 24.6667, opt: 25.1667;
 *   25.1667: k = 8 to 45.1667 (< 45.5667); a's ring from 46.1667 meets b's
 *   (0.6e10 moved): a done 47.5, ends 48.0; b ends 47.9, next ring 69.6;
 *   48.0: k = 8 to 68.0; a's ring from 69 (0.4e10 left at 69.6): a done
 *   70.1333, ends 70.6333; b's ring 1.6e10 left: meets a's next ring at
 *   71.6333 with 0.1e10 left: done 71.7667, next ring 93.4667; a ends
 *   73.1667;
 *   73.1667: k = 8 to 93.1667; at 96.0 b's next ring is at 117.5 but the
 *   window ends at 100: k = 1, no stretch.
 * So 4 stretches of 31 iterations; a ends 39 iterations (1 + 7, then 22.6 and
 * 25.1667, 8, 48.0, 8, 70.6333 and 73.1667, 8, 96.0 and 98.5), b 4 (23.8667,
 * 47.9, 71.7667, 95.8). */
static void test_steady_peer_window(void)
{
    g_autofree char *text =
        scenario_up(120, "ecmp", JOB_GPU("a", 0, "0", "100", "1.0", "1e10", "0.5") ", "
                         JOB_GPU("b", 1, "0", "100", "21.7", "2e10", "0"));
    test_run x;
    if (test_run_text(&x, text, true, NULL)) {
        replay_job_result j;
        replay_job_get(x.r, 0, &j);
        CU_ASSERT_EQUAL(j.iterations, 39);
        replay_job_get(x.r, 1, &j);
        CU_ASSERT_EQUAL(j.iterations, 4);
        TEST_ASSERT_CLOSE(j.mean_iter_s, 95.8 / 4, 1e-9);
        assert_stretches(&x, 4, 31);
    }
    test_run_clear(&x);
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* The jobs of peer_window under sincronia-online: a job runs a stretch
 * only while the other is out of its communication phase (one bucket
 * each here: the phase is the ring), until the other's next phase
 * (sched_ops.comm_hints.local).  When both rings move, BSSI puts b last (the
 * most loaded ports, 2 s each: an uplink, a 1e10/1.5e10 + b 2e10/1.5e10,
 * and b's NIC links, 2e10/1e10; b has the larger demand on either), so a
 * has strict priority: a's ring always takes 1 s at 1e10, a's iterations
 * end at multiples of 2.5 (39 before 100), b gets the uplink's other
 * 0.5e10 B/s while a's ring moves:
 *   2.5: b's ring starts at 21.7: k = 7 (20); a's ring [21, 22) meets b's
 *   for 0.3 s, its next [23.5, 24.5) for 0.7 s: b moves 2e10 in
 *   2 + 1 x 0.5 = 2.5 s, done 24.2 (at 22.5 b communicates: no stretch);
 *   25.0: b's next ring at 24.2 + 21.7 = 45.9: k = 8 (45.0); a's ring
 *   [46, 47) overlaps 1 s: b done 48.4 (at 47.5 no stretch);
 *   50.0: b's next ring 70.1: k = 8 (70.0); overlap [71, 72): done 72.6;
 *   75.0: b's next ring 94.3: k = 7 (92.5); overlaps [94.3, 94.5) and
 *   [96, 96.8): done 96.8; at 97.5 the next change is the end at 100:
 *   no stretch.
 * So 4 stretches of 7 + 8 + 8 + 7 = 30 iterations; a 39 iterations of
 * 2.5 s, b 4 of 24.2 s (21.7 + 2.5). */
static void test_steady_peer_window_hook(void)
{
    g_autofree char *text =
        scenario_up(120, "sincronia-online",
                    JOB_GPU("a", 0, "0", "100", "1.0", "1e10", "0.5") ", "
                    JOB_GPU("b", 1, "0", "100", "21.7", "2e10", "0"));
    test_run x;
    if (test_run_text(&x, text, true, NULL)) {
        replay_job_result j;
        replay_job_get(x.r, 0, &j);
        CU_ASSERT_EQUAL(j.iterations, 39);
        TEST_ASSERT_CLOSE(j.mean_iter_s, 2.5, 1e-9);
        replay_job_get(x.r, 1, &j);
        CU_ASSERT_EQUAL(j.iterations, 4);
        TEST_ASSERT_CLOSE(j.mean_iter_s, 24.2, 1e-9);
        assert_stretches(&x, 4, 30);
    }
    test_run_clear(&x);
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* Uplinks of 159.99999992 Gb/s = 1.999999999e10 B/s = 2e10 (1 - 5e-10),
 * a and b both a's model (T = 2.5 s alone) in [0, 100), ticks every 33 s.
 * The bounds (2 x 1e10, the NICs) exceed the capacity by 5e-10 relative,
 * beyond the margin rel_eps = 1e-11 (docs/engine.md §5b), so the uplinks
 * may fill, and do: both rings move together in [1, 2) of every iteration
 * and want 2e10.  So the jobs are peers and one group (docs/engine.md
 * §5c); each ring gets half the uplink, 0.9999999995e10 B/s, and takes
 * 1e10 / 0.9999999995e10 = 1.0000000005 s: iterations of T = 2.5000000005 s
 * for both, ending at kT; 39T = 97.50000002 < 100 <= 40T, 39 each.  Busy:
 * 39 x 3 GPU-s, then the 40th iteration's compute (2 GPU-s) and its
 * optimizer from 39T + 2.0000000005 = 99.50000002 to the end at 100
 * (2 x 0.49999998): 119.99999996 GPU-s.  cassini overflows a link only if
 * the Up demands (1e10 B over the standalone 1 s, NIC-bound, each) exceed
 * its capacity by more than 1e-9 relative: 2e10 does not exceed
 * 1.999999999e10 (1 + 1e-9), so it gives no target and its hook ignores
 * both: the group skips as under ecmp.  At a's boundary 2T the state
 * repeats that of T (period T): k = 11 to 13T = 32.5000000065 (< the tick
 * at 33, 14T > 33); at 14T, k = 12 to 26T = 65.000000013 (< 66); at 27T,
 * k = 12 to 39T = 97.5000000195 (< 99).  3 skips of 35 periods, one
 * iteration of each job per period: 70 member iterations.  No stretch:
 * each job's peer communicates 1 s after its boundaries. */
static void test_steady_group_ignored(void)
{
    static const char *const scheds[] = {"ecmp", "cassini"};
    for (size_t i = 0; i < G_N_ELEMENTS(scheds); i++) {
        g_autofree char *text =
            scenario_up_every(159.99999992, scheds[i],
                              JOB_GPU("a", 0, "0", "100", "1.0", "1e10", "0.5") ", "
                              JOB_GPU("b", 1, "0", "100", "1.0", "1e10", "0.5"),
                              33);
        test_run x;
        if (test_run_text(&x, text, true, NULL)) {
            replay_job_result j;
            for (size_t k = 0; k < 2; k++) {
                replay_job_get(x.r, k, &j);
                CU_ASSERT_EQUAL(j.iterations, 39);
                TEST_ASSERT_CLOSE(j.busy_gpu_s, 119.99999996, 1e-12);
            }
            replay_summary s;
            replay_get_summary(x.r, &s);
            CU_ASSERT_EQUAL(s.group_skips, 3);
            CU_ASSERT_EQUAL(s.group_skip_iterations, 70);
            assert_stretches(&x, 0, 0);
        }
        test_run_clear(&x);
        test_run_assert_same(text, 1e-9, NULL, NULL);
    }
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"alone", test_steady_alone},
        {"start_inside_stretch", test_steady_start_inside_stretch},
        {"contending_join", test_steady_contending_join},
        {"schedulers", test_steady_schedulers},
        {"unsaturable_share", test_steady_unsaturable_share},
        {"unsaturable_hooks", test_steady_unsaturable_hooks},
        {"channels_share_nic", test_steady_channels_share_nic},
        {"exactly_full", test_steady_exactly_full},
        {"rails_do_not_cover", test_steady_rails_do_not_cover},
        {"peer_window", test_steady_peer_window},
        {"peer_window_hook", test_steady_peer_window_hook},
        {"group_ignored", test_steady_group_ignored},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("steady", cases);
}
