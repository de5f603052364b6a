/* test_replay.c - suite "replay": jobs, collectives and metrics end to end.
 * Not here: schedulers' decisions (test_sched_replay.c), ffwd (test_ffwd.c).
 *
 * Suite "replay": the job model, the collectives on the network and the
 * metrics, end to end through replay_new/replay_run, with every expected
 * number derived by hand in the case's comment.
 *
 * The small topology used throughout is
 *   clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=1,nics=1,pcie=1,...
 * hosts h0, h1 under tor0 and h2, h3 under tor1, one GPU and one NIC each,
 * zero latencies and alpha = 0, so a transfer alone takes bytes / rate.
 */
#include <glib/gstdio.h>
#include <igraph.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/config.h"
#include "sim/output.h"
#include "sim/replay.h"
#include "test_run.h"
#include "test_util.h"
#include "topo/topo.h"
#include "traces/catalog.h"
#include "traces/trace.h"

static bool run_text(test_run *x, const char *text, output_dir *out)
{
    GError *e = NULL;
    bool ok = test_run_prepare(x, text, NULL, &e) && replay_run(x->r, out, NULL, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    return ok;
}

/* run_text() on a scenario text built with g_strdup_printf, then freed. */
static bool run_text_owned(test_run *x, char *text)
{
    bool ok = run_text(x, text, NULL);
    g_free(text);
    return ok;
}

#define TOPO_SMALL                                                                             \
    "\"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=1,nics=1,pcie=1,nic_gbps=400,tor_agg_gbps=100," \
    "latency_us=0,host_latency_us=0\""

/* Crux Example 1 (docs/design.md §5.4): J1 C = 2 s, t = 2 s; J2 C = 1 s,
 * t = 1 s; no overlap (f = 1).  Each job: 2 GPUs on hosts under different
 * ToRs, so both rings cross tor0->agg and tor1->agg (100 Gbps =
 * 12.5e9 B/s).  A 2-host ring hop carries 2(H-1)/H * S = S: J1 S = 25e9
 * bytes -> 2 s, J2 S = 12.5e9 -> 1 s.  Window [0, 1203) (no event falls
 * on its end).  Both jobs compute first at t = 0. */
static char *example1(const char *prio1, const char *prio2)
{
    return g_strdup_printf(
        "{\"topology\": " TOPO_SMALL ","
        " \"trace\": {\"jobs\": ["
        "  {\"id\": \"j1\", \"gpus\": 2, \"hosts\": [\"h0\", \"h2\"], \"start_s\": 0, \"end_s\": 1203,"
        "   \"model\": {\"compute_s\": 2.0, \"comm_bytes\": 2.5e10, \"comm_start_frac\": 1.0}},"
        "  {\"id\": \"j2\", \"gpus\": 2, \"hosts\": [\"h1\", \"h3\"], \"start_s\": 0, \"end_s\": 1203,"
        "   \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 1.25e10, \"comm_start_frac\": 1.0}}]},"
        " \"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"j1\": {\"priority\": %s},"
        "                 \"j2\": {\"priority\": %s}}},"
        " \"sim\": {\"alpha_us\": 0, \"interval_s\": 100}}",
        prio1, prio2);
}

/* J1 high.  J1 is never blocked: iteration k runs compute [4k, 4k+2), comm
 * [4k+2, 4k+4).  J2: iteration 1 [0,2) (comm in the free [1,2)), iteration
 * 2 computes [2,3) and waits for J1's [2,4), comm [4,5); from then on
 * iteration m >= 3 starts at 4m-7, computes 1 s, waits for J1's burst,
 * sends 1 s: ends at 4m-3.
 * In [0, 1203): J1 starts 301 computes (k = 0..300, the last [1200,1202)):
 * busy 602 s x 2 GPUs = 1204; completed 4k+4 <= 1203 -> 300.  J2 starts
 * iterations at 0, 2 and 4m-7 < 1203 -> m <= 302: 302 computes of 1 s ->
 * 604 GPU-s; completed: iteration 1 and 4m-3 <= 1203 -> m <= 301: 301.
 * U = (1204 + 604) / (4 GPUs x 1203 s) = 1808 / 4812 (long run: 37.5%).
 * J2's mean iteration: (2 + 3 + 299 x 4) / 301 = 1201 / 301 s. */
static void test_replay_crux_example1_j1_high(void)
{
    test_run x;
    if (!run_text_owned(&x, example1("0", "1"))) {
        test_run_clear(&x);
        return;
    }
    replay_summary s;
    replay_get_summary(x.r, &s);
    TEST_ASSERT_CLOSE(s.busy_gpu_s, 1808.0, 1e-9);
    TEST_ASSERT_CLOSE(s.gpu_util_cluster_frac, 1808.0 / 4812.0, 1e-9);
    TEST_ASSERT_CLOSE(s.gpu_util_allocated_frac, 1808.0 / 4812.0, 1e-9);
    CU_ASSERT_EQUAL(s.iterations, 601);
    replay_job_result j1, j2;
    replay_job_get(x.r, 0, &j1);
    replay_job_get(x.r, 1, &j2);
    CU_ASSERT_EQUAL(j1.iterations, 300);
    CU_ASSERT_EQUAL(j2.iterations, 301);
    TEST_ASSERT_CLOSE(j1.busy_gpu_s, 1204.0, 1e-9);
    TEST_ASSERT_CLOSE(j2.busy_gpu_s, 604.0, 1e-9);
    TEST_ASSERT_CLOSE(j1.isolated_iter_s, 4.0, 1e-9);
    TEST_ASSERT_CLOSE(j2.isolated_iter_s, 2.0, 1e-9);
    TEST_ASSERT_CLOSE(j1.mean_iter_s, 4.0, 1e-9);
    TEST_ASSERT_CLOSE(j2.mean_iter_s, 1201.0 / 301.0, 1e-9);
    /* I = n C / t: J1 2 x 2 / 2 = 2, J2 2 x 1 / 1 = 2 (equal, as in the paper) */
    TEST_ASSERT_CLOSE(j1.gpu_intensity, 2.0, 1e-9);
    TEST_ASSERT_CLOSE(j2.gpu_intensity, 2.0, 1e-9);
    CU_ASSERT_EQUAL(j1.priority, 0);
    CU_ASSERT_EQUAL(j2.priority, 1);
    test_run_clear(&x);
}

/* J2 high.  J2 is never blocked: iteration k computes [2k, 2k+1) and sends
 * [2k+1, 2k+2).  J1 computes [0,2) and sends in the gaps of J2: [2,3) and
 * [4,5) -> ends at 5; then iteration m >= 2 starts at 6m-7, computes 2 s,
 * sends in two 1 s gaps, ends at 6m-1 (period 6 s).
 * In [0, 1203): J2 starts 602 computes (2k < 1203): 602 s -> 1204 GPU-s;
 * completed 2k+2 <= 1203 -> 601.  J1 starts iterations at 0 and 6m-7 <
 * 1203 -> m <= 201: 201 computes of 2 s -> 804 GPU-s; completed 6m-1 <=
 * 1203 -> 200.  U = (804 + 1204) / 4812 = 2008 / 4812 (long run 41.67%).
 * J1's mean iteration: (5 + 199 x 6) / 200 = 1199 / 200 s. */
static void test_replay_crux_example1_j2_high(void)
{
    test_run x;
    if (!run_text_owned(&x, example1("1", "0"))) {
        test_run_clear(&x);
        return;
    }
    replay_summary s;
    replay_get_summary(x.r, &s);
    TEST_ASSERT_CLOSE(s.busy_gpu_s, 2008.0, 1e-9);
    TEST_ASSERT_CLOSE(s.gpu_util_cluster_frac, 2008.0 / 4812.0, 1e-9);
    CU_ASSERT_EQUAL(s.iterations, 801);
    replay_job_result j1, j2;
    replay_job_get(x.r, 0, &j1);
    replay_job_get(x.r, 1, &j2);
    CU_ASSERT_EQUAL(j1.iterations, 200);
    CU_ASSERT_EQUAL(j2.iterations, 601);
    TEST_ASSERT_CLOSE(j1.busy_gpu_s, 804.0, 1e-9);
    TEST_ASSERT_CLOSE(j2.busy_gpu_s, 1204.0, 1e-9);
    TEST_ASSERT_CLOSE(j1.mean_iter_s, 1199.0 / 200.0, 1e-9);
    TEST_ASSERT_CLOSE(j1.slowdown, 1199.0 / 200.0 / 4.0, 1e-9);
    TEST_ASSERT_CLOSE(j2.slowdown, 1.0, 1e-9);
    test_run_clear(&x);
}

/* The decision hook and the watcher (replay_set_decision_hook,
 * replay_set_watch) on Example 1 with J1 high (above).
 * Hook: both jobs arrive at t = 0 (one reschedule each: 1 then 2 running
 * jobs) and end at the window's end 1203 (2 more: 1 then 0 running), so 4
 * calls, all seeing the fixed levels (J1 0, J2 1).  Returning false at the
 * second call stops the run there: replay_run succeeds and
 * replay_stopped() is true.
 * Watcher every 100 s: the first event at or past 100 is at 100 exactly
 * (J1 starts compute k = 25 at 4k = 100).  Up to 100, J1 computed
 * [4k, 4k+2) for k = 0..24: 50 s x 2 GPUs = 100 GPU-s; J2 computed [0,1),
 * [2,3) and [4m-7, 4m-6) for m = 3..26 (4m-7 < 100): 26 s x 2 = 52 GPU-s.
 * So busy 152, allocated 4 x 100 = 400 GPU-s, 4 GPUs allocated, end 1203.
 * Stopping there ends the run; a watcher that never stops is called at
 * 100, 200, ..., 1200 (events every second): 12 calls, and the run's
 * numbers are those of test_replay_crux_example1_j1_high (1808 GPU-s). */
typedef struct hook_log {
    int calls;
    size_t jobs[8];
    int levels[8][2];
    int stop_at;           /* call number that returns false, 0 never */
    replay_watch w;
} hook_log;

static bool hook_record(void *user, sched_ctx *ctx)
{
    hook_log *h = user;
    if (h->calls < 8) {
        h->jobs[h->calls] = sched_job_count(ctx);
        for (size_t j = 0; j < sched_job_count(ctx) && j < 2; j++) {
            sched_job_info ji;
            sched_job_get(ctx, j, &ji);
            h->levels[h->calls][j] = ji.priority;
        }
    }
    return ++h->calls != h->stop_at;
}

static bool watch_record(void *user, const replay_watch *w)
{
    hook_log *h = user;
    if (h->calls == 0)
        h->w = *w;
    return ++h->calls != h->stop_at;
}

static void test_replay_decision_hook_and_watch(void)
{
    GError *e = NULL;
    char *text = example1("0", "1");
    test_run x;
    hook_log h = {0};
    if (test_run_prepare(&x, text, NULL, &e)) {
        replay_set_decision_hook(x.r, hook_record, &h);
        CU_ASSERT_TRUE(replay_run(x.r, NULL, NULL, NULL, &e));
        CU_ASSERT_FALSE(replay_stopped(x.r));
        CU_ASSERT_EQUAL(h.calls, 4);
        CU_ASSERT_EQUAL(h.jobs[0], 1);
        CU_ASSERT_EQUAL(h.jobs[1], 2);
        CU_ASSERT_EQUAL(h.jobs[2], 1);
        CU_ASSERT_EQUAL(h.jobs[3], 0);
        CU_ASSERT_EQUAL(h.levels[1][0], 0);
        CU_ASSERT_EQUAL(h.levels[1][1], 1);
    }
    TEST_ASSERT_NO_ERROR(e);
    test_run_clear(&x);

    h = (hook_log){.stop_at = 2};
    if (test_run_prepare(&x, text, NULL, &e)) {
        replay_set_decision_hook(x.r, hook_record, &h);
        CU_ASSERT_TRUE(replay_run(x.r, NULL, NULL, NULL, &e));
        CU_ASSERT_TRUE(replay_stopped(x.r));
        CU_ASSERT_EQUAL(h.calls, 2);
    }
    TEST_ASSERT_NO_ERROR(e);
    test_run_clear(&x);

    h = (hook_log){.stop_at = 1};
    if (test_run_prepare(&x, text, NULL, &e)) {
        replay_set_watch(x.r, 100.0, watch_record, &h);
        CU_ASSERT_TRUE(replay_run(x.r, NULL, NULL, NULL, &e));
        CU_ASSERT_TRUE(replay_stopped(x.r));
        CU_ASSERT_EQUAL(h.calls, 1);
        TEST_ASSERT_CLOSE(h.w.now_s, 100.0, 1e-12);
        TEST_ASSERT_CLOSE(h.w.end_s, 1203.0, 1e-12);
        TEST_ASSERT_CLOSE(h.w.busy_gpu_s, 152.0, 1e-9);
        TEST_ASSERT_CLOSE(h.w.alloc_gpu_s, 400.0, 1e-9);
        CU_ASSERT_EQUAL(h.w.alloc_gpus, 4);
    }
    TEST_ASSERT_NO_ERROR(e);
    test_run_clear(&x);

    h = (hook_log){0};
    if (test_run_prepare(&x, text, NULL, &e)) {
        replay_set_watch(x.r, 100.0, watch_record, &h);
        CU_ASSERT_TRUE(replay_run(x.r, NULL, NULL, NULL, &e));
        CU_ASSERT_FALSE(replay_stopped(x.r));
        CU_ASSERT_EQUAL(h.calls, 12);
        replay_summary s;
        replay_get_summary(x.r, &s);
        TEST_ASSERT_CLOSE(s.busy_gpu_s, 1808.0, 1e-9);
    }
    TEST_ASSERT_NO_ERROR(e);
    test_run_clear(&x);
    g_free(text);
}

/* The ideal scheduler runs both jobs as if alone: J1 iterations of 4 s,
 * J2 of 2 s.  In [0, 1203): J1 starts 301 computes (4k < 1203) of 2 s ->
 * 1204 GPU-s, completes 300 (4k+4 <= 1203); J2 starts 602 computes of 1 s
 * -> 1204 GPU-s, completes 601.  U = 2408 / 4812. */
static void test_replay_ideal_is_isolated(void)
{
    test_run x;
    char *text = example1("0", "1");
    /* swap the scheduler object for the name "ideal" */
    char *p = strstr(text, "{\"name\": \"fixed\"");
    char *q = strstr(text, "\"sim\"");
    g_autofree char *t2 = g_strdup_printf("%.*s\"ideal\", %s", (int)(p - text), text, q);
    g_free(text);
    if (!run_text(&x, t2, NULL)) {
        test_run_clear(&x);
        return;
    }
    replay_summary s;
    replay_get_summary(x.r, &s);
    TEST_ASSERT_CLOSE(s.busy_gpu_s, 2408.0, 1e-9);
    CU_ASSERT_EQUAL(s.iterations, 901);
    TEST_ASSERT_CLOSE(s.mean_slowdown, 1.0, 1e-9);
    test_run_clear(&x);
}

/* One job alone, 3 hosts (h0, h2, h1: ring h0 -> h2 -> h1 -> h0), NICs of
 * 100 Gbps = 12.5e9 B/s the bottleneck (ToR-agg 400 Gbps).  Ring formula:
 * each hop carries 2(H-1)/H * S/R = 4/3 * 9.375e9 = 12.5e9 bytes, each NIC
 * link is crossed once (multiplicity 1), so T_comm = 12.5e9 / 12.5e9 = 1 s.
 * C = 2 s, s = 0.5, T_opt = 0.5 s: iteration = max(2, 1 + 1) + 0.5 = 2.5 s.
 * Window [0, 26): iterations end at 2.5k <= 26 -> 10; the 11th starts at 25
 * and computes [25, 26).  Busy per GPU: 10 x (2 + 0.5) + 1 = 26 s, i.e. the
 * GPUs never idle: utilization = busy / allocated = 78 / 78 = 1 exactly.
 * With s = 1 instead: iteration = max(2, 2 + 1) + 0.5 = 3.5 s, in [0, 26):
 * 7 done (24.5), the 8th computes [24.5, 26): busy per GPU 7 x 2.5 + 1.5 =
 * 19 s -> allocated utilization 19 / 26. */
static char *alone(double s_frac)
{
    return g_strdup_printf(
               "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=1,nics=1,pcie=1,"
               "nic_gbps=100,tor_agg_gbps=400,latency_us=0,host_latency_us=0\","
               " \"trace\": {\"jobs\": [{\"id\": \"a\", \"gpus\": 3, \"hosts\": [\"h0\", \"h2\", "
               "\"h1\"], \"start_s\": 0, \"end_s\": 26, \"model\": {\"compute_s\": 2.0, "
               "\"comm_bytes\": 9.375e9, \"comm_start_frac\": %g, \"opt_s\": 0.5}}]},"
               " \"sim\": {\"alpha_us\": 0}}",
               s_frac);
}

static void test_replay_job_alone(void)
{
    test_run x;
    if (!run_text_owned(&x, alone(0.5))) {
        test_run_clear(&x);
        return;
    }
    replay_job_result j;
    replay_job_get(x.r, 0, &j);
    TEST_ASSERT_CLOSE(j.isolated_iter_s, 2.5, 1e-9);
    TEST_ASSERT_CLOSE(j.mean_iter_s, 2.5, 1e-9);
    CU_ASSERT_EQUAL(j.iterations, 10);
    TEST_ASSERT_CLOSE(j.busy_gpu_s, 78.0, 1e-9);
    replay_summary s;
    replay_get_summary(x.r, &s);
    TEST_ASSERT_CLOSE(s.gpu_util_allocated_frac, 1.0, 1e-12);
    /* the cluster has 4 GPUs, the job 3: 78 / (4 x 26) */
    TEST_ASSERT_CLOSE(s.gpu_util_cluster_frac, 78.0 / 104.0, 1e-12);
    test_run_clear(&x);

    if (!run_text_owned(&x, alone(1.0))) {
        test_run_clear(&x);
        return;
    }
    replay_job_get(x.r, 0, &j);
    TEST_ASSERT_CLOSE(j.isolated_iter_s, 3.5, 1e-9);
    CU_ASSERT_EQUAL(j.iterations, 7);
    TEST_ASSERT_CLOSE(j.busy_gpu_s, 3 * 19.0, 1e-9);
    replay_get_summary(x.r, &s);
    TEST_ASSERT_CLOSE(s.gpu_util_allocated_frac, 19.0 / 26.0, 1e-12);
    test_run_clear(&x);
}

/* A catalog Megatron entry reduces after the backward pass
 * (comm_start_frac 1, docs/models.md).  GPT-13B on A100: C = 4.564114 s,
 * T_opt = 0.016957 s, grad_bytes 3.25e9 per TP shard; 16 GPUs on 2 default
 * servers (8 GPUs, NVSwitch 300 GB/s per GPU, 4 NICs of 200 Gbps =
 * 25e9 B/s) with TP 8: a host's rings carry S = 8 x 3.25e9 = 26e9 B.
 * NVLink reduce-scatter and all-gather: 7/8 x 26e9 / 300e9 = 0.0758333 s
 * each; one ring per rail over 2 hosts: 2(H-1)/H x S/4 = 6.5e9 B at
 * 25e9 B/s = 0.26 s.  T_comm = 0.4116667 s, issued at C:
 * iteration = 4.564114 + 0.4116667 + 0.016957 = 4.9927377 s (overlapped
 * from the forward share .3492 it would hide: C + T_opt = 4.581071 s).
 * The flat job model (compute, then one collective) is the one under test. */
static void test_replay_megatron_no_overlap(void)
{
    test_run x;
    if (!run_text(&x,
                  "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=1,latency_us=0,"
                  "host_latency_us=0\", \"trace\": {\"jobs\": [{\"id\": \"g\", \"gpus\": 16, "
                  "\"hosts\": [\"h0\", \"h1\"], \"start_s\": 0, \"end_s\": 30, "
                  "\"model\": \"GPT-13B\"}]}, \"sim\": {\"alpha_us\": 0, \"job_model\": \"flat\"}}",
                  NULL)) {
        test_run_clear(&x);
        return;
    }
    replay_job_result j;
    replay_job_get(x.r, 0, &j);
    double t_comm = 2 * (7.0 / 8 * 26e9) / 300e9 + 6.5e9 / 25e9;
    TEST_ASSERT_CLOSE(j.isolated_iter_s, 4.564114 + t_comm + 0.016957, 1e-9);
    TEST_ASSERT_CLOSE(j.mean_iter_s, 4.564114 + t_comm + 0.016957, 1e-9);
    test_run_clear(&x);
}

/* Intra-host contention.  Servers of 4 GPUs, 2 PCIe switches, 2 NICs of
 * 100 Gbps (12.5e9 B/s): GPUs 0-1 behind NIC 0, GPUs 2-3 behind NIC 1.
 * Job a: 1 GPU on h0 and 1 on h2 (the allocator gives GPU 0 -> NIC 0).
 * Shared: job b the same shape; best fit puts it on GPU 1, behind NIC 0
 * too.  Both rings (one 2-host hop each way, S = 12.5e9 -> 1 s alone)
 * start together after C = 1 s (f = 1) and split NIC 0 fairly: 2 s each,
 * so every iteration takes 3 s instead of 2: slowdown 1.5 for both.
 * Disjoint: job b has 2 GPUs per host; best fit for 2 GPUs is the group
 * behind NIC 1 (both free), so the jobs share no NIC (the ToR uplinks are
 * 1000 Gbps) and each runs at its isolated speed: slowdown 1. */
static char *contention(bool shared)
{
    return g_strdup_printf(
               "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=4,nics=2,pcie=2,"
               "nic_gbps=100,tor_agg_gbps=1000,latency_us=0,host_latency_us=0\","
               " \"trace\": {\"jobs\": ["
               "  {\"id\": \"a\", \"gpus\": 2, \"hosts\": [\"h0\", \"h2\"], \"start_s\": 0, "
               "\"end_s\": 31, \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 1.25e10}},"
               "  {\"id\": \"b\", \"gpus\": %d, \"hosts\": [\"h0\", \"h2\"], \"start_s\": 0, "
               "\"end_s\": 31, \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 1.25e10}}]},"
               " \"sim\": {\"alpha_us\": 0}}",
               shared ? 2 : 4);
}

static void test_replay_nic_contention(void)
{
    test_run x;
    if (!run_text_owned(&x, contention(true))) {
        test_run_clear(&x);
        return;
    }
    replay_job_result a, b;
    replay_job_get(x.r, 0, &a);
    replay_job_get(x.r, 1, &b);
    /* [0, 31): iterations end at 3k <= 31 -> 10 each */
    TEST_ASSERT_CLOSE(a.mean_iter_s, 3.0, 1e-9);
    TEST_ASSERT_CLOSE(b.mean_iter_s, 3.0, 1e-9);
    TEST_ASSERT_CLOSE(a.slowdown, 1.5, 1e-9);
    CU_ASSERT_EQUAL(a.iterations, 10);
    CU_ASSERT_EQUAL(b.iterations, 10);
    test_run_clear(&x);

    if (!run_text_owned(&x, contention(false))) {
        test_run_clear(&x);
        return;
    }
    replay_job_get(x.r, 0, &a);
    replay_job_get(x.r, 1, &b);
    TEST_ASSERT_CLOSE(a.mean_iter_s, 2.0, 1e-9);
    TEST_ASSERT_CLOSE(a.slowdown, 1.0, 1e-9);
    TEST_ASSERT_CLOSE(b.slowdown, 1.0, 1e-9);
    /* a: iterations of 2 s end at 2k <= 31 -> 15 */
    CU_ASSERT_EQUAL(a.iterations, 15);
    test_run_clear(&x);
}

/* Work mode: job a alone would do floor(26 / 2.5) = 10 iterations of
 * 2.5 s in its span (the alone(0.5) case): it runs exactly 10 and
 * completes after 25 s. */
static void test_replay_work_mode(void)
{
    g_autofree char *text = alone(0.5);
    char *p = strstr(text, "\"alpha_us\": 0");
    g_autofree char *t2 = g_strdup_printf("%.*s\"mode\": \"work\", %s", (int)(p - text), text, p);
    test_run x;
    if (!run_text(&x, t2, NULL)) {
        test_run_clear(&x);
        return;
    }
    replay_job_result j;
    replay_job_get(x.r, 0, &j);
    CU_ASSERT_EQUAL(j.iterations, 10);
    TEST_ASSERT_CLOSE(j.completion_s, 25.0, 1e-9);
    test_run_clear(&x);
}

/* A fixed shift delays the first iteration: job a shifted by 0.5 s starts
 * iterating at 0.5, so in [0, 26) its 2.5 s iterations end at 0.5 + 2.5k
 * <= 26 -> 10, and shift_s reports 0.5. */
static void test_replay_fixed_shift(void)
{
    g_autofree char *text = alone(0.5);
    char *p = strstr(text, "\"sim\"");
    g_autofree char *t2 = g_strdup_printf(
        "%.*s\"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"a\": {\"shift_s\": 0.5}}}, %s",
        (int)(p - text), text, p);
    test_run x;
    if (!run_text(&x, t2, NULL)) {
        test_run_clear(&x);
        return;
    }
    replay_job_result j;
    replay_job_get(x.r, 0, &j);
    CU_ASSERT_EQUAL(j.iterations, 10);
    TEST_ASSERT_CLOSE(j.shift_s, 0.5, 1e-12);
    /* busy per GPU: 10 x 2.5 s, the 11th computes [25.5, 26): 25.5 s x 3 */
    TEST_ASSERT_CLOSE(j.busy_gpu_s, 76.5, 1e-9);
    test_run_clear(&x);
}

static char *read_file(const char *dir, const char *name)
{
    g_autofree char *p = g_build_filename(dir, name, NULL);
    char *buf = NULL;
    if (!g_file_get_contents(p, &buf, NULL, NULL))
        return g_strdup("(missing)");
    return buf;
}

/* Determinism: the same scenario and seed give byte-identical jobs.csv,
 * timeseries.csv and links.csv; two replays prepared side by side in one
 * process give the same results as each alone (no shared state). */
static void test_replay_determinism(void)
{
    g_autofree char *tmp = g_dir_make_tmp("ccsim-replay-XXXXXX", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
    g_autofree char *d1 = g_build_filename(tmp, "a", NULL);
    g_autofree char *d2 = g_build_filename(tmp, "b", NULL);
    test_run x, y;
    GError *e = NULL;
    /* prepare both, then run them one after the other */
    g_autofree char *text = example1("0", "1");
    bool ok = test_run_prepare(&x, text, NULL, &e) && test_run_prepare(&y, text, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    if (ok) {
        output_dir *o1 = output_dir_open(d1, &e), *o2 = output_dir_open(d2, &e);
        TEST_ASSERT_NO_ERROR(e);
        CU_ASSERT_TRUE(replay_run(x.r, o1, NULL, NULL, &e));
        TEST_ASSERT_NO_ERROR(e);
        CU_ASSERT_TRUE(replay_run(y.r, o2, NULL, NULL, &e));
        TEST_ASSERT_NO_ERROR(e);
        CU_ASSERT_TRUE(output_dir_commit(o1, &e));
        CU_ASSERT_TRUE(output_dir_commit(o2, &e));
        TEST_ASSERT_NO_ERROR(e);
        static const char *const files[] = {"jobs.csv", "timeseries.csv", "links.csv"};
        for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
            g_autofree char *a = read_file(d1, files[i]);
            g_autofree char *b = read_file(d2, files[i]);
            CU_ASSERT_STRING_EQUAL(a, b);
            CU_ASSERT_STRING_NOT_EQUAL(a, "(missing)");
        }
        replay_summary s;
        replay_get_summary(y.r, &s);
        TEST_ASSERT_CLOSE(s.busy_gpu_s, 1808.0, 1e-9);
    }
    test_run_clear(&x);
    test_run_clear(&y);
    static const char *const all[] = {"summary.csv", "run.json"};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
        g_autofree char *p1 = g_build_filename(d1, all[i], NULL);
        CU_ASSERT_TRUE(g_file_test(p1, G_FILE_TEST_EXISTS));
    }
    test_run_remove_outputs(d1);
    test_run_remove_outputs(d2);
    g_rmdir(tmp);
}

/* Bad inputs give CCS_ERROR_INVALID with a message naming the problem. */
static void test_replay_errors(void)
{
    static const struct {
        const char *name, *text, *needle;
    } cases[] = {
        {"unknown scheduler",
         "{\"topology\": " TOPO_SMALL ", \"scheduler\": \"nope\", \"trace\": {\"jobs\": ["
         "{\"id\": \"a\", \"gpus\": 1, \"start_s\": 0, \"end_s\": 5, \"model\": {\"compute_s\": 1}}]}}",
         "unknown scheduler 'nope'"},
        {"unknown model",
         "{\"topology\": " TOPO_SMALL ", \"trace\": {\"jobs\": ["
         "{\"id\": \"a\", \"gpus\": 1, \"start_s\": 0, \"end_s\": 5, \"model\": \"no-such-model\"}]}}",
         "job a"},
        {"job larger than the cluster",
         "{\"topology\": " TOPO_SMALL ", \"trace\": {\"jobs\": ["
         "{\"id\": \"big\", \"gpus\": 9, \"start_s\": 0, \"end_s\": 5, \"model\": {\"compute_s\": 1}}]}}",
         "5 short"},
        {"trace peak larger than the cluster",
         "{\"topology\": " TOPO_SMALL ", \"trace\": {\"jobs\": ["
         "{\"id\": \"a\", \"gpus\": 3, \"start_s\": 0, \"end_s\": 5, \"model\": {\"compute_s\": 1}},"
         "{\"id\": \"b\", \"gpus\": 3, \"start_s\": 1, \"end_s\": 5, \"model\": {\"compute_s\": 1}}]}}",
         "2 GPUs short"},
        {"empty window",
         "{\"topology\": " TOPO_SMALL ", \"sim\": {\"start_s\": 10, \"end_s\": 5}, \"trace\": {\"jobs\": ["
         "{\"id\": \"a\", \"gpus\": 1, \"start_s\": 0, \"end_s\": 5, \"model\": {\"compute_s\": 1}}]}}",
         "empty replay window"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        test_run x;
        GError *e = NULL;
        CU_ASSERT_FALSE(test_run_prepare(&x, cases[i].text, NULL, &e));
        if (!e || !strstr(e->message, cases[i].needle))
            fprintf(stderr, "\n%s: got '%s', wanted '%s'\n", cases[i].name,
                    e ? e->message : "(no error)", cases[i].needle);
        CU_ASSERT_PTR_NOT_NULL(e);
        if (e)
            CU_ASSERT_PTR_NOT_NULL(strstr(e->message, cases[i].needle));
        g_clear_error(&e);
        test_run_clear(&x);
    }
}

/* --scale-hosts: the job of 9 GPUs on a 4-GPU cluster is skipped and
 * counted instead of failing; the other runs. */
static void test_replay_scale_hosts(void)
{
    test_run x;
    if (!run_text(&x,
                  "{\"topology\": " TOPO_SMALL ", \"sim\": {\"scale_hosts\": true}, \"trace\": "
                  "{\"jobs\": ["
                  "{\"id\": \"big\", \"gpus\": 9, \"start_s\": 0, \"end_s\": 5, \"model\": "
                  "{\"compute_s\": 1}},"
                  "{\"id\": \"a\", \"gpus\": 1, \"start_s\": 0, \"end_s\": 5, \"model\": "
                  "{\"compute_s\": 1}}]}}",
                  NULL)) {
        test_run_clear(&x);
        return;
    }
    replay_summary s;
    replay_get_summary(x.r, &s);
    CU_ASSERT_EQUAL(s.jobs, 1);
    CU_ASSERT_EQUAL(s.jobs_skipped, 1);
    /* a: 1 GPU, no traffic, C = 1: 5 iterations in [0, 5), busy 5 GPU-s */
    TEST_ASSERT_CLOSE(s.busy_gpu_s, 5.0, 1e-12);
    test_run_clear(&x);
}

int main(void)
{
    igraph_set_error_handler(igraph_error_handler_ignore);
    CU_TestInfo cases[] = {
        {"crux_example1_j1_high", test_replay_crux_example1_j1_high},
        {"crux_example1_j2_high", test_replay_crux_example1_j2_high},
        {"ideal_is_isolated", test_replay_ideal_is_isolated},
        {"decision_hook_and_watch", test_replay_decision_hook_and_watch},
        {"job_alone", test_replay_job_alone},
        {"megatron_no_overlap", test_replay_megatron_no_overlap},
        {"nic_contention", test_replay_nic_contention},
        {"work_mode", test_replay_work_mode},
        {"fixed_shift", test_replay_fixed_shift},
        {"determinism", test_replay_determinism},
        {"errors", test_replay_errors},
        {"scale_hosts", test_replay_scale_hosts},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("replay", cases);
}
