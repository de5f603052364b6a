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
            replay_summary s;
            replay_get_summary(x.r, &s);
            CU_ASSERT_EQUAL(s.ffwd_stretches, ff ? 1 : 0);
            CU_ASSERT_EQUAL(s.ffwd_stretch_iterations, ff ? 39 : 0);
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
    uint64_t a = 0, b = 0;
    test_run_assert_same(text, 1e-9, &a, &b);
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
        replay_summary s;
        replay_get_summary(x.r, &s);
        CU_ASSERT_EQUAL(s.ffwd_stretches, 3);
        CU_ASSERT_EQUAL(s.ffwd_stretch_iterations, 57);
    }
    test_run_clear(&x);
    uint64_t a = 0, b = 0;
    test_run_assert_same(text, 1e-9, &a, &b);
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
        uint64_t a = 0, b = 0;
        test_run_assert_same(text, 1e-9, &a, &b);
    }
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"alone", test_steady_alone},
        {"start_inside_stretch", test_steady_start_inside_stretch},
        {"contending_join", test_steady_contending_join},
        {"schedulers", test_steady_schedulers},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("steady", cases);
}
