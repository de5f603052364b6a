/* test_ffwd.c - suite "ffwd": fast-forward of contention-free jobs.
 * Not here: the event-path replay cases (test_replay.c).
 *
 * Suite "ffwd": fast-forward of contention-free jobs (sim/ffwd.h, job.h
 * "Fast-forward", docs/engine.md): the periodic profile, hand-derived replays
 * with and without the fast-forward, which jobs qualify, and a time shift in
 * the middle of a fast-forwarded run.
 */
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/config.h"
#include "sim/event.h"
#include "sim/ffwd.h"
#include "sim/job.h"
#include "sim/output.h"
#include "sim/replay.h"
#include "test_run.h"
#include "test_util.h"
#include "topo/topo.h"
#include "traces/catalog.h"
#include "traces/trace.h"

/* ---- the profile ---- */

/* An iteration of T = 2.2 s on n = 8 GPUs, C = 1 s, T_opt = 0.5 s: busy
 * on [0, 1) and [1.7, 2.2), 12 GPU-s per iteration.  NVLink bytes: 0 until
 * 1, 1.12e12 at 1.7 (linear), flat after.
 *   F(3.0):  one iteration (12) + compute [2.2, 3.0) (8 x 0.8 = 6.4) = 18.4;
 *            bytes 1.12e12 (the second iteration sends from 3.2).
 *   F(5.9):  two iterations (24) + [4.4, 5.4) (8) = 32;
 *            bytes 2 x 1.12e12 + (5.9 - 5.4) / 0.7 x 1.12e12 = 3.04e12;
 *            tagged = bytes x tag 2 = 6.08e12.
 *   F(0) = F(-1) = 0. */
static void test_ffwd_profile_eval(void)
{
    g_autoptr(ffwd_profile) p = ffwd_profile_new(2.2, 8, 1.0, 0.5, 2.0);
    ffwd_profile_add_link_point(p, TOPO_TIER_NVLINK, 0.0, 0.0);
    ffwd_profile_add_link_point(p, TOPO_TIER_NVLINK, 1.0, 0.0);
    ffwd_profile_add_link_point(p, TOPO_TIER_NVLINK, 1.7, 1.12e12);
    ffwd_values v;
    ffwd_profile_eval(p, 3.0, &v);
    TEST_ASSERT_CLOSE(v.busy_gpu_s, 18.4, 1e-12);
    TEST_ASSERT_CLOSE(v.carried_bytes[TOPO_TIER_NVLINK], 1.12e12, 1e-12);
    TEST_ASSERT_CLOSE(v.carried_bytes[TOPO_TIER_PCIE], 0.0, 0);
    ffwd_profile_eval(p, 5.9, &v);
    TEST_ASSERT_CLOSE(v.busy_gpu_s, 32.0, 1e-12);
    TEST_ASSERT_CLOSE(v.carried_bytes[TOPO_TIER_NVLINK], 3.04e12, 1e-12);
    TEST_ASSERT_CLOSE(v.tagged_bytes[TOPO_TIER_NVLINK], 6.08e12, 1e-12);
    ffwd_profile_eval(p, 0.0, &v);
    TEST_ASSERT_CLOSE(v.busy_gpu_s, 0.0, 0);
    ffwd_profile_eval(p, -1.0, &v);
    TEST_ASSERT_CLOSE(v.busy_gpu_s, 0.0, 0);
    TEST_ASSERT_CLOSE(ffwd_profile_period_s(p), 2.2, 0);
}

/* ---- replays ---- */

#define TOPO_1GPU                                                                              \
    "\"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=1,nics=1,pcie=1,latency_us=0,"               \
    "host_latency_us=0\""

/* One 1-GPU job, C = 0.3 s, T_opt = 0.1 s, no communication, window
 * [0, 10), intervals of 4 s, on 4 one-GPU hosts.  An iteration is 0.4 s,
 * all busy.  The 25th iteration ends at 10 in exact arithmetic; the event
 * path's times are the float sums (t + 0.3) + 0.1, which reach
 * 9.999999999999996 < 10 at the 25th, so it completes before the job's
 * end event: 25 iterations, mean 0.4 s, busy 10 GPU-s (the GPU is busy
 * all the time either way).  Time series: busy_gpus 1 in [0,4), [4,8),
 * [8,10); cluster utilization 1/4.  The fast-forward must count the same
 * 25 and dispatch only a handful of events (arrival, end, 3 ticks) where
 * the event path needs 2 per iteration (50+). */
static const char *one_gpu_text =
    "{\"topology\": " TOPO_1GPU ","
    " \"trace\": {\"jobs\": [{\"id\": \"a\", \"gpus\": 1, \"hosts\": [\"h0\"],"
    "   \"start_s\": 0, \"end_s\": 10,"
    "   \"model\": {\"compute_s\": 0.3, \"opt_s\": 0.1, \"collective\": \"none\"}}]},"
    " \"sim\": {\"interval_s\": 4, \"alpha_us\": 0}}";

static void test_ffwd_one_gpu(void)
{
    for (int ff = 1; ff >= 0; ff--) {
        test_run x;
        if (!test_run_text(&x, one_gpu_text, ff, NULL)) {
            test_run_clear(&x);
            return;
        }
        replay_job_result j;
        replay_job_get(x.r, 0, &j);
        CU_ASSERT_EQUAL(j.iterations, 25);
        TEST_ASSERT_CLOSE(j.busy_gpu_s, 10.0, 1e-12);
        TEST_ASSERT_CLOSE(j.mean_iter_s, 0.4, 1e-12);
        TEST_ASSERT_CLOSE(j.isolated_iter_s, 0.4, 1e-12);
        replay_summary s;
        replay_get_summary(x.r, &s);
        TEST_ASSERT_CLOSE(s.busy_gpu_s, 10.0, 1e-12);
        TEST_ASSERT_CLOSE(s.gpu_util_cluster_frac, 0.25, 1e-12);
        CU_ASSERT_EQUAL(s.jobs_fast_forwarded, ff ? 1 : 0);
        if (ff) {
            CU_ASSERT_TRUE(s.events <= 10);
        } else {
            CU_ASSERT_TRUE(s.events >= 50);
        }
        test_run_clear(&x);
    }
    test_run_assert_same(one_gpu_text, 1e-9, NULL, NULL);
}

/* One 8-GPU job on one host: C = 1 s, T_opt = 0.5 s, all-reduce of
 * S = 4e10 B issued after the backward pass (s = 1), NVLink 100 GB/s per
 * GPU link, alpha and latencies 0.  One host: one NVLink ring transfer of
 * 2(g-1)/g S = 1.75 x 4e10 = 7e10 B over the 16 GPU<->NVSwitch links
 * (each once), at 1e11 B/s: 0.7 s.  Iteration: compute [0, 1), comm
 * [1, 1.7), optimizer [1.7, 2.2): T = 2.2 s, 12 GPU-s, 16 x 7e10 =
 * 1.12e12 NVLink bytes.  Window [0, 10), intervals of 3 s (ticks 3, 6, 9,
 * 10), cutting iterations in the middle:
 *   [0,3):  8 + 4 (opt 1.7-2.2) + 6.4 (compute 2.2-3)     = 18.4 -> 6.1333 GPUs;
 *           bytes 1.12e12 -> util 1.12e12 / (16 x 1e11 x 3) = 0.23333
 *   [3,6):  1.6 (3-3.2) + 4 (3.9-4.4) + 8 (4.4-5.4)       = 13.6 -> 4.5333;
 *           bytes 1.12e12 (3.2-3.9) + 0.6/0.7 x 1.12e12 (5.4-6) = 2.08e12
 *   [6,9):  4 (6.1-6.6) + 8 (6.6-7.6) + 4 (8.3-8.8) + 1.6 (8.8-9) = 17.6 -> 5.8667;
 *           bytes 0.16e12 (6-6.1) + 1.12e12 (7.6-8.3) = 1.28e12
 *   [9,10): 6.4 (9-9.8)                                   -> 6.4;
 *           bytes 0.2/0.7 x 1.12e12 (9.8-10) = 0.32e12
 * Total busy 56 GPU-s; 4 iterations complete (2.2, 4.4, 6.6, 8.8), mean
 * 2.2 s.  GPU intensity 8 x 1 / (7e10 / 1e11) = 80/7; intensity occupancy
 * of [0,3) = 0.23333 x 80/7 = 2.6667. */
static const char *nvlink_text =
    "{\"topology\": \"clos2:tors=1,aggs=1,hosts_per_tor=1,gpus=8,nics=1,pcie=1,"
    "nvlink_GBps=100,latency_us=0,host_latency_us=0\","
    " \"trace\": {\"jobs\": [{\"id\": \"a\", \"gpus\": 8, \"hosts\": [\"h0\"],"
    "   \"start_s\": 0, \"end_s\": 10,"
    "   \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 4e10, \"comm_start_frac\": 1.0,"
    "              \"opt_s\": 0.5}}]},"
    " \"sim\": {\"interval_s\": 3, \"alpha_us\": 0}}";

static void test_ffwd_nvlink_single_host(void)
{
    static const double busy[] = {18.4 / 3, 13.6 / 3, 17.6 / 3, 6.4};
    static const double bytes[] = {1.12e12, 2.08e12, 1.28e12, 0.32e12};
    static const double dt[] = {3, 3, 3, 1};
    for (int ff = 1; ff >= 0; ff--) {
        g_autofree char *tmp = g_dir_make_tmp("ccsim-ffwd-XXXXXX", NULL);
        g_autofree char *d = g_build_filename(tmp, "o", NULL);
        test_run x;
        if (test_run_text(&x, nvlink_text, ff, d)) {
            replay_job_result j;
            replay_job_get(x.r, 0, &j);
            CU_ASSERT_EQUAL(j.iterations, 4);
            TEST_ASSERT_CLOSE(j.busy_gpu_s, 56.0, 1e-12);
            TEST_ASSERT_CLOSE(j.mean_iter_s, 2.2, 1e-12);
            TEST_ASSERT_CLOSE(j.gpu_intensity, 80.0 / 7.0, 1e-12);
            replay_summary s;
            replay_get_summary(x.r, &s);
            CU_ASSERT_EQUAL(s.jobs_fast_forwarded, ff ? 1 : 0);
            /* timeseries.csv: busy_gpus is field 3, nvlink_util_frac 6,
             * nvlink_intensity_occupancy 12; links.csv: the nvlink row of
             * interval i is line 1 + 4 i (4 tiers), carried_bytes field 4;
             * CSV floats carry OUTPUT_CSV_DIGITS = 10 significant digits */
            for (int i = 0; i < 4; i++) {
                TEST_ASSERT_CLOSE(test_run_csv_field(d, "timeseries.csv", 1 + i, 3), busy[i], 1e-9);
                TEST_ASSERT_CLOSE(test_run_csv_field(d, "timeseries.csv", 1 + i, 6),
                                  bytes[i] / (16 * 1e11 * dt[i]), 1e-9);
                TEST_ASSERT_CLOSE(test_run_csv_field(d, "links.csv", 1 + 4 * i, 4), bytes[i], 1e-9);
            }
            TEST_ASSERT_CLOSE(test_run_csv_field(d, "timeseries.csv", 1, 12),
                              1.12e12 / (16 * 1e11 * 3) * 80.0 / 7.0, 1e-9);
        }
        test_run_clear(&x);
        test_run_remove_outputs(d);
        g_rmdir(tmp);
    }
    uint64_t a = 0, b = 0;
    test_run_assert_same(nvlink_text, 1e-9, &a, &b);
    /* 4 ticks + arrival + end against ~8 per iteration */
    CU_ASSERT_TRUE(a <= 10);
    CU_ASSERT_TRUE(b >= 30);
}

/* Two buckets overlapping the backward pass: nvlink_text's job with
 * s = 0.5, B = 2 (sim.buckets), window [0, 2.4), intervals of 0.5 s.
 * Each bucket is half the ring: 3.5e10 B at 1e11 B/s = 0.35 s on all 16
 * links.  Bucket 0 is ready at sC = 0.5 and runs [0.5, 0.85); bucket 1 is
 * ready at 0.5 + 0.5 x 1 / 2 = 0.75 but waits for bucket 0: [0.85, 1.2).
 * Iteration end max(1, 1.2) + 0.5 = 1.7: busy [0, 1) and [1.2, 1.7),
 * 12 GPU-s; link bytes at 16 x 1e11 = 1.6e12 B/s throughout [0.5, 1.2).
 *   [0, 0.5):   busy 8 x 0.5 -> 8 GPUs;              bytes 0
 *   [0.5, 1.0): busy 8 x 0.5 -> 8;                   bytes 0.5 x 1.6e12 = 8e11
 *   [1.0, 1.5): busy [1.2, 1.5) 2.4 -> 4.8;           bytes [1.0, 1.2) = 3.2e11
 *   [1.5, 2.0): busy 1.6 (opt) + 2.4 (compute) -> 8;  bytes 0
 *   [2.0, 2.4): busy 3.2 in 0.4 s -> 8;               bytes [2.2, 2.4) = 3.2e11
 * (Were bucket 1 not serialised it would run [0.75, 1.1): [0.5, 1.0)
 * would carry 8.96e11.)  One iteration complete (1.7; the next ends at
 * 3.4), busy 12 + 8 x 0.7 = 17.6 GPU-s, isolated iteration 1.7 s. */
static void test_ffwd_two_buckets(void)
{
    const char *text =
        "{\"topology\": \"clos2:tors=1,aggs=1,hosts_per_tor=1,gpus=8,nics=1,pcie=1,"
        "nvlink_GBps=100,latency_us=0,host_latency_us=0\","
        " \"trace\": {\"jobs\": [{\"id\": \"a\", \"gpus\": 8, \"hosts\": [\"h0\"],"
        "   \"start_s\": 0, \"end_s\": 2.4,"
        "   \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 4e10, \"comm_start_frac\": 0.5,"
        "              \"opt_s\": 0.5}}]},"
        " \"sim\": {\"interval_s\": 0.5, \"alpha_us\": 0, \"buckets\": 2}}";
    static const double busy[] = {8.0, 8.0, 4.8, 8.0, 8.0};
    static const double bytes[] = {0.0, 8e11, 3.2e11, 0.0, 3.2e11};
    g_autofree char *tmp = g_dir_make_tmp("ccsim-ffwd-XXXXXX", NULL);
    g_autofree char *d = g_build_filename(tmp, "o", NULL);
    test_run x;
    if (test_run_text(&x, text, true, d)) {
        replay_job_result j;
        replay_job_get(x.r, 0, &j);
        CU_ASSERT_EQUAL(j.iterations, 1);
        TEST_ASSERT_CLOSE(j.busy_gpu_s, 17.6, 1e-12);
        TEST_ASSERT_CLOSE(j.isolated_iter_s, 1.7, 1e-12);
        replay_summary s;
        replay_get_summary(x.r, &s);
        CU_ASSERT_EQUAL(s.jobs_fast_forwarded, 1);
        for (int i = 0; i < 5; i++) {
            TEST_ASSERT_CLOSE(test_run_csv_field(d, "timeseries.csv", 1 + i, 3), busy[i], 1e-12);
            /* absolute: 1e-12 x 1e11 bytes */
            TEST_ASSERT_CLOSE(test_run_csv_field(d, "links.csv", 1 + 4 * i, 4) / 1e11, bytes[i] / 1e11,
                              1e-12);
        }
    }
    test_run_clear(&x);
    test_run_remove_outputs(d);
    g_rmdir(tmp);
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* Which jobs qualify (counted in the summary):
 *   ecmp: a 1-GPU job (no communication) and a one-host 8-GPU job
 *   (NVLink only) do; a job on two hosts (PCIe, NICs, network) does not -> 2;
 *   sincronia-online (on_comm sees every communication phase): only the
 *   1-GPU job, which never communicates -> 1;
 *   ideal (communication never touches the network): all three -> 3.
 * Hosts: 4 of 8 GPUs, 1 NIC; the outputs with and without must agree.
 * Flat jobs (compute, then one collective) are under test: a structured
 * job with traffic is fast-forwarded for good only under ideal (the levels
 * a scheduler gives its traffic classes order its own transfers). */
static char *mixed_text(const char *sched)
{
    return g_strdup_printf(
        "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=8,nics=1,pcie=1\","
        " \"trace\": {\"jobs\": ["
        "  {\"id\": \"one\", \"gpus\": 1, \"hosts\": [\"h0\"], \"start_s\": 0, \"end_s\": 30,"
        "   \"model\": \"ResNet-50\"},"
        "  {\"id\": \"host\", \"gpus\": 8, \"hosts\": [\"h1\"], \"start_s\": 1, \"end_s\": 29,"
        "   \"model\": \"BERT-large\"},"
        "  {\"id\": \"two\", \"gpus\": 16, \"hosts\": [\"h2\", \"h3\"], \"start_s\": 2,"
        "   \"end_s\": 28, \"model\": \"BERT-large\"}]},"
        " \"scheduler\": \"%s\", \"sim\": {\"interval_s\": 7, \"job_model\": \"flat\"}}",
        sched);
}

static void test_ffwd_eligibility(void)
{
    static const struct {
        const char *sched;
        size_t expect;
    } cases[] = {{"ecmp", 2}, {"sincronia-online", 1}, {"ideal", 3}, {"cassini", 1},
                 {"crux", 2}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *text = mixed_text(cases[i].sched);
        test_run x;
        if (test_run_text(&x, text, true, NULL)) {
            replay_summary s;
            replay_get_summary(x.r, &s);
            if (s.jobs_fast_forwarded != cases[i].expect)
                fprintf(stderr, "  %s: %zu fast-forwarded, expected %zu\n", cases[i].sched,
                        s.jobs_fast_forwarded, cases[i].expect);
            CU_ASSERT_EQUAL(s.jobs_fast_forwarded, cases[i].expect);
        }
        test_run_clear(&x);
        uint64_t a = 0, b = 0;
        test_run_assert_same(text, 1e-9, &a, &b);
        CU_ASSERT_TRUE(a < b);
    }
}

/* The fixed scheduler shifts the 1-GPU job of one_gpu_text by 0.25 s at
 * its start: iterations start at 0.25 + 0.4 k; in [0, 10) they end at
 * 0.65, ..., 0.25 + 0.4 k <= 9.85 -> k = 24 complete (the 25th would end
 * at 10.25); busy 10 - 0.25 = 9.75 GPU-s; shift_s 0.25. */
static void test_ffwd_shift_at_start(void)
{
    const char *text =
        "{\"topology\": " TOPO_1GPU ","
        " \"trace\": {\"jobs\": [{\"id\": \"a\", \"gpus\": 1, \"hosts\": [\"h0\"],"
        "   \"start_s\": 0, \"end_s\": 10,"
        "   \"model\": {\"compute_s\": 0.3, \"opt_s\": 0.1, \"collective\": \"none\"}}]},"
        " \"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"a\": {\"shift_s\": 0.25}}},"
        " \"sim\": {\"interval_s\": 4, \"alpha_us\": 0}}";
    test_run x;
    if (test_run_text(&x, text, true, NULL)) {
        replay_job_result j;
        replay_job_get(x.r, 0, &j);
        CU_ASSERT_EQUAL(j.iterations, 24);
        TEST_ASSERT_CLOSE(j.busy_gpu_s, 9.75, 1e-12);
        TEST_ASSERT_CLOSE(j.shift_s, 0.25, 0);
    }
    test_run_clear(&x);
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* Work mode: the 1-GPU job of one_gpu_text over [0, 10.2) runs
 * floor(10.2 / 0.4) = 25 iterations and completes at 25 x 0.4 = 10 s;
 * busy 10 GPU-s. */
static void test_ffwd_work_mode(void)
{
    const char *text =
        "{\"topology\": " TOPO_1GPU ","
        " \"trace\": {\"jobs\": [{\"id\": \"a\", \"gpus\": 1, \"hosts\": [\"h0\"],"
        "   \"start_s\": 0, \"end_s\": 10.2,"
        "   \"model\": {\"compute_s\": 0.3, \"opt_s\": 0.1, \"collective\": \"none\"}}]},"
        " \"sim\": {\"interval_s\": 4, \"alpha_us\": 0, \"mode\": \"work\"}}";
    test_run x;
    if (test_run_text(&x, text, true, NULL)) {
        replay_job_result j;
        replay_job_get(x.r, 0, &j);
        CU_ASSERT_EQUAL(j.iterations, 25);
        TEST_ASSERT_CLOSE(j.completion_s, 10.0, 1e-12);
        TEST_ASSERT_CLOSE(j.busy_gpu_s, 10.0, 1e-12);
    }
    test_run_clear(&x);
    test_run_assert_same(text, 1e-9, NULL, NULL);
}

/* ---- a shift in the middle of a run (job level) ---- */

/* No scheduler of ours shifts a fast-forwarded job after its start, so
 * drive a job directly.  C = 0.3 s, T_opt = 0.1 s, 2 GPUs, no
 * communication.  At t = 1.0 a shift of 0.25 s is asked: iterations end
 * at 0.4, 0.8, 1.2 (the one in progress at 1.0), the next starts at
 * 1.45 and ends at 1.45 + 0.4 k; by 5.0: k = 8 (4.65; the 9th would end
 * at 5.05).  Iterations 3 + 8 = 11; busy 2 x (5 - 0.25) = 9.5 GPU-s
 * (always busy but in the gap); shift 0.25; iteration time sum 11 x 0.4.
 * The same with and without a profile. */
static void test_ffwd_shift_mid_run(void)
{
    for (int ff = 1; ff >= 0; ff--) {
        g_autoptr(evq) q = evq_new();
        job_spec sp = {.id = (char *)"a", .model = (char *)"m", .gpus = 2, .start_s = 0, .end_s = 5,
                       .compute_s = 0.3, .fwd_frac = 1.0, .opt_s = 0.1, .buckets = 1};
        g_autoptr(job) j = job_new(&sp, 0);
        j->isolated_iter_s = job_isolated_iter_s(0.3, 1.0, 0.1, 1, 0.0);
        TEST_ASSERT_CLOSE(j->isolated_iter_s, 0.4, 1e-15);
        if (ff)
            j->ffwd = ffwd_profile_new(j->isolated_iter_s, 2, 0.3, 0.1, 0.0);
        job_env env = {.q = q};
        job_begin(j, &env, 0.0);
        evq_run_until(q, 1.0);
        job_set_shift(j, 0.25, 1.0);
        evq_run_until(q, 5.0);
        job_stop(j, 5.0);
        CU_ASSERT_EQUAL(j->iterations, 11);
        TEST_ASSERT_CLOSE(j->busy_gpu_s, 9.5, 1e-12);
        TEST_ASSERT_CLOSE(j->total_shift_s, 0.25, 0);
        TEST_ASSERT_CLOSE(j->iter_time_sum_s, 4.4, 1e-12);
        if (ff) {
            CU_ASSERT_TRUE(evq_fired_count(q) <= 2);
        }
    }
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"profile_eval", test_ffwd_profile_eval},
        {"one_gpu", test_ffwd_one_gpu},
        {"nvlink_single_host", test_ffwd_nvlink_single_host},
        {"two_buckets", test_ffwd_two_buckets},
        {"eligibility", test_ffwd_eligibility},
        {"shift_at_start", test_ffwd_shift_at_start},
        {"work_mode", test_ffwd_work_mode},
        {"shift_mid_run", test_ffwd_shift_mid_run},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("ffwd", cases);
}
