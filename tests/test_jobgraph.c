/* test_jobgraph.c - suite "jobgraph": structured jobs (sim/job_graph.c,
 * sim/job_graph_run.c, sim/job_structured.c) end to end, every expected
 * number worked out by hand in the case's comment.
 * Not here: parsing the structure (test_structure.c).
 *
 * The topology: clos2 with two ToRs of two hosts (h0, h1 | h2, h3), one
 * NIC of 100 Gbps = 12.5e9 B/s per host, ToR uplinks of 100 Gbps, NVLink
 * 300e9 B/s per GPU and direction, PCIe 31.5e9 B/s, zero latencies and
 * alpha = 0 unless a case says otherwise, one NCCL channel: a transfer
 * alone takes bytes / its slowest link's share.
 */
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/cluster.h"
#include "sim/job.h"
#include "sim/job_graph.h"
#include "sim/replay.h"
#include "sim/timeline.h"
#include "sim/output.h"
#include "test_run.h"
#include "test_util.h"
#include "topo/topo.h"

#define TOPO(gpus)                                                                             \
    "\"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=" gpus ",nics=1,pcie=1,nic_gbps=100,"         \
    "tor_agg_gbps=100,latency_us=0,host_latency_us=0\""

/* One structured job on hosts (a JSON list) from 0 to end_s. */
static char *one_job(const char *topo, const char *hosts, int gpus, double end_s,
                     const char *structure, const char *alpha_us)
{
    return g_strdup_printf(
        "{\"topology\": %s, \"trace\": {\"jobs\": [{\"id\": \"j\", \"gpus\": %d, \"hosts\": %s,"
        " \"start_s\": 0, \"end_s\": %.17g, \"model\": {\"structure\": %s}}]},"
        " \"sim\": {\"alpha_us\": %s, \"channels\": 1, \"interval_s\": 100}}",
        topo, gpus, hosts, end_s, structure, alpha_us);
}

/* Run text (freed) and return job i's result and the summary. */
static bool run(char *text, size_t i, replay_job_result *jr, replay_summary *sum)
{
    test_run x;
    bool ok = test_run_text(&x, text, true, NULL);
    g_free(text);
    if (ok) {
        replay_job_get(x.r, i, jr);
        if (sum)
            replay_get_summary(x.r, sum);
    }
    test_run_clear(&x);
    return ok;
}

/* 1F1B, p = 4, m = 8, fwd 0.01 s, bwd 0.02 s, no communication: the
 * classic pipeline, (m + p - 1)(f + b) = 11 x 0.03 = 0.33 s per iteration;
 * each GPU computes m (f + b) = 0.24 s of it: allocated utilization
 * 0.24 / 0.33 = 8/11.  Window [0, 3.3]: ten whole iterations, 4 GPUs x
 * 10 x 0.24 = 9.6 busy GPU-seconds of 4 x 3.3. */
static void test_jobgraph_1f1b(void)
{
    replay_job_result jr;
    replay_summary sum;
    CU_ASSERT_FATAL(run(one_job(TOPO("4"), "[\"h0\"]", 4, 3.3,
                                "{\"tp\": 1, \"pp\": 4, \"dp\": 1, \"micro_batches\": 8,"
                                " \"fwd_s\": 0.01, \"bwd_s\": 0.02, \"act_bytes\": 0,"
                                " \"grad_bytes\": 0, \"buckets\": 1, \"opt_s\": 0}",
                                "0"),
                        0, &jr, &sum));
    TEST_ASSERT_CLOSE(jr.isolated_iter_s, 0.33, 1e-12);
    TEST_ASSERT_CLOSE(jr.mean_iter_s, 0.33, 1e-12);
    TEST_ASSERT_CLOSE(jr.busy_gpu_s, 9.6, 1e-9);
    TEST_ASSERT_CLOSE(sum.gpu_util_allocated_frac, 8.0 / 11.0, 1e-9);
}

/* Interleaved 1F1B without communication: each chunk computes f/v and
 * b/v, and the bubble shrinks to (p - 1)(f + b)/v (Narayanan et al.,
 * SC'21, §2.2.2): iteration m (f + b) + (p - 1)(f + b)/v.  f = 0.02,
 * b = 0.04, v = 2: p = 2, m = 4: 0.24 + 0.03 = 0.27 s; p = 4, m = 8:
 * 0.48 + 0.09 = 0.57 s. */
static void test_jobgraph_interleaved(void)
{
    replay_job_result jr;
    CU_ASSERT_FATAL(run(one_job(TOPO("4"), "[\"h0\"]", 2, 10,
                                "{\"pp\": 2, \"vpp\": 2, \"layers\": 4, \"micro_batches\": 4,"
                                " \"fwd_s\": 0.02, \"bwd_s\": 0.04}",
                                "0"),
                        0, &jr, NULL));
    TEST_ASSERT_CLOSE(jr.isolated_iter_s, 0.27, 1e-12);
    TEST_ASSERT_CLOSE(jr.mean_iter_s, 0.27, 1e-12);
    CU_ASSERT_FATAL(run(one_job(TOPO("4"), "[\"h0\"]", 4, 10,
                                "{\"pp\": 4, \"vpp\": 2, \"layers\": 8, \"micro_batches\": 8,"
                                " \"fwd_s\": 0.02, \"bwd_s\": 0.04}",
                                "0"),
                        0, &jr, NULL));
    TEST_ASSERT_CLOSE(jr.isolated_iter_s, 0.57, 1e-12);
}

/* The 1F1B order of Megatron-LM for p = 4, m = 8: stage s warms up with
 * p - s - 1 forwards, then alternates, then cools down; stage 3 (last)
 * alternates from the start.  Interleaved, p = 2, vpp = 2, m = 4: stage 0
 * warms up with (p - 1) 2 + (vpp - 1) p = 4 forwards: micro-batches 0, 1
 * of chunk 0, then 0, 1 of chunk 1. */
static void test_jobgraph_schedule(void)
{
    g_autoptr(GArray) o = g_array_new(FALSE, FALSE, sizeof(int));
    job_graph_schedule(4, 1, 8, 0, o);
    CU_ASSERT_EQUAL(o->len, 3 * 16);
    const int *v = (const int *)(void *)o->data;
    /* F0 F1 F2 F3 B0 F4 B1 ... */
    int expect0[][2] = {{1, 0}, {1, 1}, {1, 2}, {1, 3}, {0, 0}, {1, 4}, {0, 1}};
    for (size_t k = 0; k < G_N_ELEMENTS(expect0); k++) {
        CU_ASSERT_EQUAL(v[3 * k], expect0[k][0]);
        CU_ASSERT_EQUAL(v[3 * k + 1], expect0[k][1]);
    }
    job_graph_schedule(4, 1, 8, 3, o);
    v = (const int *)(void *)o->data;
    CU_ASSERT(v[0] == 1 && v[1] == 0 && v[3] == 0 && v[4] == 0 && v[6] == 1 && v[7] == 1);
    job_graph_schedule(2, 2, 4, 0, o);
    CU_ASSERT_EQUAL(o->len, 3 * 16);
    v = (const int *)(void *)o->data;
    int expect1[][3] = {{1, 0, 0}, {1, 1, 0}, {1, 0, 1}, {1, 1, 1}, {1, 2, 0}, {0, 0, 1}};
    for (size_t k = 0; k < G_N_ELEMENTS(expect1); k++)
        for (int q = 0; q < 3; q++)
            CU_ASSERT_EQUAL(v[3 * k + q], expect1[k][q]);
}

/* DP = 2 on two hosts (one GPU each, 100 Gbps NIC, one channel), 4
 * buckets over a 0.2 s backward after a 0.1 s forward, 2 GB of gradients:
 * bucket b (0.5 GB) is ready at 0.1 + (b + 1) 0.05; a 2-host ring hop
 * carries 2 (H - 1) / H S = 0.5 GB at 12.5e9 B/s: 0.04 s < 0.05, so each
 * bucket ends before the next is ready and only the last is exposed:
 * 0.3 + 0.04 = 0.34 s.  Window [0, 3.45]: 10 iterations, then 0.05 s of
 * the 11th's forward: utilization 2 (10 x 0.3 + 0.05) / (2 x 3.45). */
static void test_jobgraph_dp_buckets(void)
{
    replay_job_result jr;
    replay_summary sum;
    CU_ASSERT_FATAL(run(one_job(TOPO("1"), "[\"h0\", \"h1\"]", 2, 3.45,
                                "{\"dp\": 2, \"fwd_s\": 0.1, \"bwd_s\": 0.2,"
                                " \"grad_bytes\": 2e9, \"buckets\": 4}",
                                "0"),
                        0, &jr, &sum));
    TEST_ASSERT_CLOSE(jr.isolated_iter_s, 0.34, 1e-12);
    TEST_ASSERT_CLOSE(jr.mean_iter_s, 0.34, 1e-12);
    CU_ASSERT_EQUAL(jr.iterations, 10);
    TEST_ASSERT_CLOSE(sum.gpu_util_allocated_frac, 3.05 / 3.45, 1e-9);
    /* overlap off: the four buckets after the backward, 0.3 + 4 x 0.04 */
    CU_ASSERT_FATAL(run(one_job(TOPO("1"), "[\"h0\", \"h1\"]", 2, 4.6,
                                "{\"dp\": 2, \"fwd_s\": 0.1, \"bwd_s\": 0.2,"
                                " \"grad_bytes\": 2e9, \"buckets\": 4,"
                                " \"overlap_grad_reduce\": false}",
                                "0"),
                        0, &jr, NULL));
    TEST_ASSERT_CLOSE(jr.isolated_iter_s, 0.46, 1e-12);
}

/* The dp_buckets job with the keys extra added: 10 iterations of iter_s
 * in a window of 10.5 of them. */
static void assert_dp_profile(const char *extra, double iter_s)
{
    g_autofree char *st = g_strdup_printf("{\"dp\": 2, \"fwd_s\": 0.1, \"bwd_s\": 0.2,"
                                          " \"grad_bytes\": 2e9, \"buckets\": 4, %s}",
                                          extra);
    replay_job_result jr;
    CU_ASSERT_FATAL(run(one_job(TOPO("1"), "[\"h0\", \"h1\"]", 2, 10.5 * iter_s, st, "0"), 0,
                        &jr, NULL));
    TEST_ASSERT_CLOSE(jr.isolated_iter_s, iter_s, 1e-12);
    TEST_ASSERT_CLOSE(jr.mean_iter_s, iter_s, 1e-12);
    CU_ASSERT_EQUAL(jr.iterations, 10);
}

/* The same job with gradients that are not complete evenly over the
 * backward (structure.h): buckets hold 0.5 GB each, in backward order.
 * Late: 1 GB of embeddings complete only at the pass's end, the other
 * 1 GB evenly over it.  Bucket 0's last byte is half of the even part:
 * ready at 0.1 + 0.5 x 0.2 = 0.2; bucket 1 ends the even part (0.3),
 * buckets 2 and 3 are the embeddings (0.3).  Reductions of 0.04 s one at
 * a time: 0.2-0.24, then 0.3-0.34, 0.34-0.38, 0.38-0.42: 0.42 s.
 * Early: 1 GB of an output layer complete at 0.5 of the pass (0.2), the
 * other 1 GB evenly over its second half.  Buckets 0 and 1 hold the output
 * layer (0.2), bucket 2 the first half of the rest (0.2 + 0.05 = 0.25),
 * bucket 3 the end (0.3): 0.2-0.24, 0.24-0.28, 0.28-0.32, 0.32-0.36.
 * All 2 GB early at 0.25 of the pass (0.15): the four reductions run
 * 0.15-0.31, past the backward's end at 0.3: 0.31 s. */
static void test_jobgraph_grad_profile(void)
{
    assert_dp_profile("\"grad_late_bytes\": 1e9", 0.42);
    assert_dp_profile("\"grad_early_bytes\": 1e9, \"grad_early_at\": 0.5", 0.36);
    assert_dp_profile("\"grad_early_bytes\": 2e9, \"grad_early_at\": 0.25", 0.31);
}

/* TP = 2 across two hosts (one GPU each, tp_across_hosts): each layer's
 * all-reduce of S = 1.25e9 bytes is a 2-host ring, 2 (H - 1) / H S =
 * 1.25e9 bytes per hop at 12.5e9 B/s: 0.1 s (the ring formula).  Two
 * layers, two all-reduces per layer and pass, one segment per layer (the
 * group crosses hosts): forward 2 x (0.05 + 0.2) = 0.5 s, backward
 * 2 x (0.1 + 0.2) = 0.6 s: 1.1 s; utilization 0.3 / 1.1 = 3/11. */
static void test_jobgraph_tp_across_hosts(void)
{
    replay_job_result jr;
    replay_summary sum;
    CU_ASSERT_FATAL(run(one_job(TOPO("1"), "[\"h0\", \"h1\"]", 2, 11,
                                "{\"tp\": 2, \"tp_across_hosts\": true, \"layers\": 2,"
                                " \"fwd_s\": 0.1, \"bwd_s\": 0.2, \"tp_bytes\": 1.25e9}",
                                "0"),
                        0, &jr, &sum));
    TEST_ASSERT_CLOSE(jr.isolated_iter_s, 1.1, 1e-12);
    TEST_ASSERT_CLOSE(jr.mean_iter_s, 1.1, 1e-12);
    TEST_ASSERT_CLOSE(sum.gpu_util_allocated_frac, 3.0 / 11.0, 1e-9);
}

/* TP = 2 inside a host: the pass's eight all-reduces (4 layers x 2) run as
 * one NVLink transfer of 8 S with 8 startups.  A 2-GPU NVLink ring
 * all-reduce moves 2 (g - 1) / g S = S = 3e9 bytes at 300e9 B/s: 0.01 s,
 * after a startup of 2 (g - 1) alpha = 2 x 5 us.  Alone that is exactly
 * the time of eight separate all-reduces (job_graph.h): per pass
 * 8 x (1e-5 + 0.01) = 0.08008 s.  Iteration 0.1 + 0.2 + 2 x 0.08008. */
static void test_jobgraph_tp_merged(void)
{
    replay_job_result jr;
    CU_ASSERT_FATAL(run(one_job(TOPO("2"), "[\"h0\"]", 2, 10,
                                "{\"tp\": 2, \"layers\": 4, \"fwd_s\": 0.1, \"bwd_s\": 0.2,"
                                " \"tp_bytes\": 3e9}",
                                "5"),
                        0, &jr, NULL));
    TEST_ASSERT_CLOSE(jr.isolated_iter_s, 0.3 + 2 * 8 * (1e-5 + 0.01), 1e-12);
    TEST_ASSERT_CLOSE(jr.mean_iter_s, 0.3 + 2 * 8 * (1e-5 + 0.01), 1e-12);
}

/* A pipeline of two stages on h0 and h2 (one GPU each), m = 2, fwd 0.1,
 * bwd 0.2, with the keys extra added: ten iterations of iter_s, each
 * GPU busy 0.6 s of each. */
static void assert_pp2(const char *extra, double iter_s)
{
    g_autofree char *st = g_strdup_printf(
        "{\"pp\": 2, \"micro_batches\": 2, \"fwd_s\": 0.1, \"bwd_s\": 0.2%s}", extra);
    replay_job_result jr;
    replay_summary sum;
    CU_ASSERT_FATAL(
        run(one_job(TOPO("1"), "[\"h0\", \"h2\"]", 2, 10 * iter_s, st, "0"), 0, &jr, &sum));
    TEST_ASSERT_CLOSE(jr.isolated_iter_s, iter_s, 1e-12);
    TEST_ASSERT_CLOSE(jr.mean_iter_s, iter_s, 1e-12);
    TEST_ASSERT_CLOSE(sum.gpu_util_allocated_frac, 0.6 / iter_s, 1e-9);
}

/* PP = 2 across hosts, m = 2, fwd 0.1, bwd 0.2, act 1.25e9 bytes: each
 * send is 0.1 s over the NICs; a stage waits for its own send (blocking
 * p2p).  Stage 0 runs F0 F1 B0 B1, stage 1 F0 B0 F1 B1:
 *   s0 F0 [0, .1), send [.1, .2); s1 F0 [.2, .3), B0 [.3, .5), send
 *   [.5, .6); s0 F1 [.2, .3), send [.3, .4); s0 B0 [.6, .8); s1 F1
 *   [.6, .7), B1 [.7, .9), send [.9, 1); s0 B1 [1, 1.2).
 * Iteration 1.2 s, each GPU busy 0.6 s: utilization 0.5. */
static void test_jobgraph_pp_p2p(void) { assert_pp2(", \"act_bytes\": 1.25e9", 1.2); }

/* The tied embedding's copies: pp_p2p's pipeline without activations
 * (stage 1 ends its backward at 0.7, stage 0 at 0.9: (m + p - 1)(f + b))
 * and 1.25e9 B of embedding gradients all-reduced between h0 and h2 once
 * both are done: a 2-host ring hop carries 2 (H - 1) / H S = 1.25e9 B at
 * 12.5e9 B/s, 0.1 s.  Iteration 1.0 s; without the embedding 0.9 s. */
static void test_jobgraph_embedding_sync(void)
{
    assert_pp2(", \"embed_grad_bytes\": 1.25e9", 1.0);
    assert_pp2("", 0.9);
}

/* MoE, ep = dp = 2 over two hosts, one MoE layer, two all-to-alls per
 * pass of 2.5e9 bytes per GPU: each GPU sends S / n = 1.25e9 to the other,
 * 0.1 s, both directions at once; the pass's two run as one transfer
 * (0.2 s).  Iteration 0.1 + 0.2 + 0.2 + 0.2 = 0.7 s. */
static void test_jobgraph_moe(void)
{
    replay_job_result jr;
    CU_ASSERT_FATAL(run(one_job(TOPO("1"), "[\"h0\", \"h2\"]", 2, 7,
                                "{\"dp\": 2, \"ep\": 2, \"experts\": 2, \"moe_layers\": 1,"
                                " \"fwd_s\": 0.1, \"bwd_s\": 0.2, \"moe_a2a_bytes\": 2.5e9}",
                                "0"),
                        0, &jr, NULL));
    TEST_ASSERT_CLOSE(jr.isolated_iter_s, 0.7, 1e-12);
    TEST_ASSERT_CLOSE(jr.mean_iter_s, 0.7, 1e-12);
}

/* FSDP (zero 3), dp = 2 on two hosts, 2.5e9 parameter and gradient bytes,
 * one unit: the all-gather (a 2-host ring of (H - 1) / H S = 1.25e9
 * bytes per hop: 0.1 s) comes before the forward [0.1, 0.2); the
 * backward's all-gather is prefetched meanwhile [0.1, 0.2); backward
 * [0.2, 0.4); the gradients' reduce-scatter (1.25e9 per hop) [0.4, 0.5).
 * Iteration 0.5 s. */
static void test_jobgraph_fsdp(void)
{
    replay_job_result jr;
    CU_ASSERT_FATAL(run(one_job(TOPO("1"), "[\"h0\", \"h2\"]", 2, 5,
                                "{\"dp\": 2, \"zero\": 3, \"fwd_s\": 0.1, \"bwd_s\": 0.2,"
                                " \"grad_bytes\": 2.5e9}",
                                "0"),
                        0, &jr, NULL));
    TEST_ASSERT_CLOSE(jr.isolated_iter_s, 0.5, 1e-12);
    TEST_ASSERT_CLOSE(jr.mean_iter_s, 0.5, 1e-12);
}

/* Two DP jobs whose rings share the ToR uplinks: A on h0, h2 and B on h1,
 * h3, each fwd 0.1 + bwd 0.1, 1.25e9 bytes of gradients reduced after the
 * backward (a 2-host ring hop: 1.25e9 bytes, 0.1 s alone).  Window
 * [0, 2.95).
 * Fair sharing: both reduce at once at 6.25e9 B/s: 0.2 s; iterations of
 * 0.4 s: 7 each; computes [0.4k, 0.4k + 0.2), k = 0..7, the last cut at
 * 2.95: 1.55 s per GPU; utilization 4 x 1.55 / (4 x 2.95) = 0.52542.
 * A first (fixed levels): A iterates every 0.3 s; B's first reduction
 * waits for A's [0.2, 0.3) and runs [0.3, 0.4), after which B's
 * reductions [0.6, 0.7), [0.9, 1.0) ... fall in A's computes: B's
 * iterations end at 0.4 + 0.3 i.  A: 9 iterations (0.3 k <= 2.95), 10
 * computes of 0.2 s; B: 9 iterations, computes [0, 0.2) and
 * [0.4 + 0.3 i, 0.6 + 0.3 i), i = 0..8, the last cut at 2.95: 1.95 s.
 * Utilization (2 x 2.0 + 2 x 1.95) / 11.8 = 0.66949. */
static char *two_jobs(const char *sched)
{
    const char *st = "{\"structure\": {\"dp\": 2, \"fwd_s\": 0.1, \"bwd_s\": 0.1,"
                     " \"grad_bytes\": 1.25e9, \"overlap_grad_reduce\": false}}";
    return g_strdup_printf(
        "{\"topology\": " TOPO("1") ", \"trace\": {\"jobs\": ["
        "{\"id\": \"A\", \"gpus\": 2, \"hosts\": [\"h0\", \"h2\"], \"start_s\": 0,"
        " \"end_s\": 2.95, \"model\": %s},"
        "{\"id\": \"B\", \"gpus\": 2, \"hosts\": [\"h1\", \"h3\"], \"start_s\": 0,"
        " \"end_s\": 2.95, \"model\": %s}]},"
        " \"scheduler\": %s, \"sim\": {\"alpha_us\": 0, \"channels\": 1, \"interval_s\": 100}}",
        st, st, sched);
}

static void test_jobgraph_two_jobs(void)
{
    replay_job_result a, b;
    replay_summary sum;
    test_run x;
    char *text = two_jobs("\"ecmp\"");
    CU_ASSERT_FATAL(test_run_text(&x, text, true, NULL));
    g_free(text);
    replay_job_get(x.r, 0, &a);
    replay_job_get(x.r, 1, &b);
    replay_get_summary(x.r, &sum);
    TEST_ASSERT_CLOSE(a.isolated_iter_s, 0.3, 1e-12);
    TEST_ASSERT_CLOSE(a.mean_iter_s, 0.4, 1e-12);
    CU_ASSERT_EQUAL(a.iterations, 7);
    CU_ASSERT_EQUAL(b.iterations, 7);
    TEST_ASSERT_CLOSE(sum.gpu_util_allocated_frac, 6.2 / 11.8, 1e-9);
    test_run_clear(&x);
    text = two_jobs("{\"name\": \"fixed\", \"jobs\": {\"A\": {\"priority\": 0},"
                    " \"B\": {\"priority\": 1}}}");
    CU_ASSERT_FATAL(test_run_text(&x, text, true, NULL));
    g_free(text);
    replay_job_get(x.r, 0, &a);
    replay_job_get(x.r, 1, &b);
    replay_get_summary(x.r, &sum);
    CU_ASSERT_EQUAL(a.iterations, 9);
    CU_ASSERT_EQUAL(b.iterations, 9);
    TEST_ASSERT_CLOSE(a.mean_iter_s, 0.3, 1e-12);
    TEST_ASSERT_CLOSE(b.mean_iter_s, (0.4 + 8 * 0.3) / 9, 1e-12);
    TEST_ASSERT_CLOSE(sum.gpu_util_allocated_frac, 7.9 / 11.8, 1e-9);
    test_run_clear(&x);
}

/* Run text with the fast path off into dir, its in-host rings merged
 * (sim.c's default) or not (a recorder that writes nothing watching the
 * transfers: sim/replay_run.c turns the merge off).  Returns the events. */
static uint64_t run_merge(const char *text, bool merge, const char *dir)
{
    test_run x;
    GError *e = NULL;
    const char *const options[] = {"fast_forward", "false", NULL};
    bool ok = test_run_prepare(&x, text, options, &e);
    timeline_options to = {.start_s = -INFINITY, .end_s = INFINITY};
    if (ok && !merge)
        replay_set_timeline(x.r, &to);
    output_dir *o = ok ? output_dir_open(dir, &e) : NULL;
    ok = o && replay_run(x.r, o, NULL, NULL, &e);
    ok = o && output_dir_commit(o, ok ? &e : NULL) && ok;
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_TRUE_FATAL(ok);
    replay_summary sum;
    replay_get_summary(x.r, &sum);
    test_run_clear(&x);
    return sum.events;
}

/* Merged and unmerged runs of text: every output within 1e-9; the events
 * of both. */
static void assert_merge_same(const char *text, uint64_t *ev_merged, uint64_t *ev_apart)
{
    g_autofree char *d1 = g_dir_make_tmp("ccsim-merge-XXXXXX", NULL);
    g_autofree char *d2 = g_dir_make_tmp("ccsim-apart-XXXXXX", NULL);
    g_rmdir(d1);
    g_rmdir(d2);
    *ev_merged = run_merge(text, true, d1);
    *ev_apart = run_merge(text, false, d2);
    static const char *const files[] = {"summary.csv", "jobs.csv", "timeseries.csv",
                                        "links.csv"};
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
        test_run_assert_csv_close(d1, d2, files[i], 1e-9);
    test_run_remove_outputs(d1);
    test_run_remove_outputs(d2);
}

/* Private in-host rings merged (coll_plan_merge_private): dp = 4 on h0
 * and h2, two GPUs each, one bucket of S = 3e9 bytes after the backward,
 * alpha 5 us.  The all-reduce's steps:
 *   1. reduce-scatter on each host's NVLink ring (GPU0 -> NVSwitch ->
 *      GPU1 -> NVSwitch -> GPU0: four links, each once, 300e9 B/s):
 *      (g - 1)/g S = 1.5e9 bytes in g - 1 = 1 lock-step: 5e-6 +
 *      1.5e9 / 300e9 = 0.005005 s.  Each host's ring uses its own two
 *      GPUs' NVLinks and nothing else does: the two rings (equal bytes,
 *      steps, latency 0, rate alone 300e9) become one transfer over the
 *      eight links, rate min 300e9 / 1: the same 0.005005 s;
 *   2. the ring across the hosts, 2 (H - 1)/H S / R = 3e9 bytes per hop
 *      at the NIC's 12.5e9 B/s, 2 (H - 1) = 2 lock-steps: 1e-5 + 0.24;
 *   3. the all-gather, as 1: 0.005005 s.
 * Iteration 0.1 + 0.2 + 0.25002 = 0.55002 s; 19 end by 11 s
 * (19 x 0.55002 = 10.45038), the 20th computes [10.45038, 10.75038):
 * each GPU busy 20 x 0.3 = 6 s of 11.  Merged, each step-1/step-3 pair of
 * transfers is one: fewer events, every output the same. */
static void test_jobgraph_merged_rings(void)
{
    g_autofree char *text = one_job(TOPO("2"), "[\"h0\", \"h2\"]", 4, 11,
                                    "{\"dp\": 4, \"fwd_s\": 0.1, \"bwd_s\": 0.2,"
                                    " \"grad_bytes\": 3e9}",
                                    "5");
    replay_job_result jr;
    replay_summary sum;
    CU_ASSERT_FATAL(run(g_strdup(text), 0, &jr, &sum));
    TEST_ASSERT_CLOSE(jr.isolated_iter_s, 0.55002, 1e-12);
    TEST_ASSERT_CLOSE(jr.mean_iter_s, 0.55002, 1e-12);
    CU_ASSERT_EQUAL(jr.iterations, 19);
    TEST_ASSERT_CLOSE(sum.gpu_util_allocated_frac, 6.0 / 11.0, 1e-9);
    uint64_t merged, apart;
    assert_merge_same(text, &merged, &apart);
    CU_ASSERT_TRUE(merged < apart);
}

/* Refused: with ep = 2 the MoE all-to-all of the pairs (0, 1) on h0 and
 * (2, 3) on h2 crosses the same NVLinks as the dense all-reduce's rings,
 * so a host's rings may be slowed while the other's are not: nothing is
 * merged (the same events as apart).  A second job's rings on the hosts'
 * other GPUs (h1/h3 free here) could not touch these links at all. */
static void test_jobgraph_merge_refused(void)
{
    g_autofree char *text = one_job(TOPO("2"), "[\"h0\", \"h2\"]", 4, 5,
                                    "{\"dp\": 4, \"ep\": 2, \"experts\": 2, \"moe_layers\": 1,"
                                    " \"fwd_s\": 0.1, \"bwd_s\": 0.2, \"grad_bytes\": 3e9,"
                                    " \"moe_a2a_bytes\": 1e9}",
                                    "5");
    uint64_t merged, apart;
    assert_merge_same(text, &merged, &apart);
    CU_ASSERT_EQUAL(merged, apart);
}

/* Megatron's rank order on two hosts of 4 GPUs, tp 2, dp 2, pp 2: ranks
 * 0..3 on host 0 (TP pairs (0,1), (2,3): stage 0's two replicas), 4..7 on
 * host 1 (stage 1).  A host of 3 GPUs and one of 5 with tp 2: host 0
 * holds one whole pair, host 1 two; the leftovers (one GPU of each) make
 * the last pair, which spans the hosts. */
static void test_jobgraph_ranks(void)
{
    uint32_t hosts[2] = {10, 11}, off[3] = {0, 4, 8}, gpus[8] = {0, 1, 2, 3, 0, 1, 2, 3};
    cluster_alloc a = {.n_hosts = 2, .hosts = hosts, .gpu_off = off, .gpus = gpus, .n_gpus = 8};
    const int megatron[3] = {0, 1, 2}, pp_inner[3] = {2, 0, 1};
    uint32_t pos[8];
    cluster_rank_positions(&a, 2, 2, 2, megatron, pos);
    for (uint32_t r = 0; r < 8; r++)
        CU_ASSERT_EQUAL(pos[r], r);
    /* "pp-tp-dp": rank (t, d, s) sits at s + 2 (t + 2 d) */
    cluster_rank_positions(&a, 2, 2, 2, pp_inner, pos);
    CU_ASSERT_EQUAL(pos[1], 2); /* (t 1, d 0, s 0) */
    CU_ASSERT_EQUAL(pos[4], 1); /* (t 0, d 0, s 1) */
    uint32_t off2[3] = {0, 3, 8};
    a.gpu_off = off2;
    cluster_rank_positions(&a, 2, 4, 1, megatron, pos);
    uint32_t expect[8] = {0, 1, 3, 4, 5, 6, 2, 7};
    for (uint32_t r = 0; r < 8; r++)
        CU_ASSERT_EQUAL(pos[r], expect[r]);
    CU_ASSERT_EQUAL(cluster_alloc_host_of(&a, 2), 0);
    CU_ASSERT_EQUAL(cluster_alloc_host_of(&a, 3), 1);
}

/* The calls below the replay: clos2 with two ToRs of two hosts, one GPU
 * and one 100 Gbps NIC a host, 100 Gbps uplinks to aggs aggregation
 * switches, zero latencies. */
static topo *two_tors(const char *aggs)
{
    GError *e = NULL;
    g_autofree char *spec = g_strdup_printf(
        "clos2:tors=2,aggs=%s,hosts_per_tor=2,gpus=1,nics=1,pcie=1,nic_gbps=100,"
        "tor_agg_gbps=100,latency_us=0,host_latency_us=0",
        aggs);
    topo *t = topo_build(spec, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    return t;
}

/* A structure (JSON text) for 2 GPUs. */
static job_structure *two_gpus(const char *json)
{
    GError *e = NULL;
    cJSON *o = cJSON_Parse(json);
    job_structure *s = structure_parse(o, 2, "t", &e);
    cJSON_Delete(o);
    TEST_ASSERT_NO_ERROR(e);
    return s;
}

/* A job on h0 and host h (one GPU on each: h = 1 under the same ToR, 2
 * under the other), one NCCL channel. */
typedef struct two_hosts {
    uint32_t hosts[2], off[3], gpus[2];
    cluster_alloc a;
    coll_options co;
} two_hosts;

static void two_hosts_init(two_hosts *x, uint32_t h)
{
    *x = (two_hosts){.hosts = {0, h}, .off = {0, 1, 2}, .gpus = {0, 0}};
    x->a = (cluster_alloc){
        .n_hosts = 2, .hosts = x->hosts, .gpu_off = x->off, .gpus = x->gpus, .n_gpus = 2};
    x->co = coll_options_default();
    x->co.channels = 1;
}

/* s's iteration graph and plan for x on t; the test stops unless both are
 * built. */
static job_graph *graph_of(const job_structure *s, two_hosts *x, topo *t, coll_plan **plan)
{
    GError *e = NULL;
    job_graph *g = job_graph_new(s, &x->a, t, &x->co, plan, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_FATAL(g != NULL);
    return g;
}

/* The structure of the PP case measured alone outside a replay (the call
 * tools use): 1.2 s; and without its activations, the classic pipeline:
 * (m + p - 1)(f + b) = 3 x 0.3 = 0.9 s. */
static void test_jobgraph_alone_call(void)
{
    GError *e = NULL;
    g_autoptr(topo) t = two_tors("1");
    g_autoptr(job_structure) s = two_gpus("{\"pp\": 2, \"micro_batches\": 2, \"fwd_s\": 0.1,"
                                          " \"bwd_s\": 0.2, \"act_bytes\": 1.25e9}");
    two_hosts x;
    two_hosts_init(&x, 2);
    double iter = 0;
    CU_ASSERT(job_structure_alone_s(s, &x.a, t, &x.co, 0, &iter, &e));
    TEST_ASSERT_NO_ERROR(e);
    TEST_ASSERT_CLOSE(iter, 1.2, 1e-12);
    s->act_bytes = 0;
    CU_ASSERT(job_structure_alone_s(s, &x.a, t, &x.co, 0, &iter, &e));
    TEST_ASSERT_CLOSE(iter, 0.9, 1e-12);
}

/* A path that changes while the run goes on: DP = 2 on h0 (first ToR)
 * and h2 (second ToR), two aggregation switches (two paths between the
 * ToRs), 2 GB of gradients in 2 buckets, one transfer per bucket: a
 * 2-hop ring whose hops each move 2 (2 - 1) / 2 x 1 GB = 1 GB.  Once the
 * first bucket's transfer has started, flow 0 moves to its other path.
 * The run's transfers are read from a table of the plan's link sets, so
 * the second bucket must see the new path: each switch link of flow 0's
 * old path carries 1 GB (the first bucket), each of its new path 1 GB
 * (the second); a table kept across the change would put 2 GB on the old
 * links and none on the new. */
typedef struct path_case {
    int started;
    bool done;
} path_case;

static void path_case_started(void *user, uint32_t task, size_t step, size_t xfer,
                              net_transfer_id id, double now_s)
{
    (void)task, (void)step, (void)xfer, (void)id, (void)now_s;
    ((path_case *)user)->started++;
}

static void path_case_done(void *user, double now_s)
{
    (void)now_s;
    ((path_case *)user)->done = true;
}

/* The links of a that b does not hold (uint32 arrays). */
static GArray *links_minus(const GArray *a, const GArray *b)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (guint i = 0; i < a->len; i++) {
        uint32_t e = g_array_index(a, uint32_t, i);
        bool in_b = false;
        for (guint k = 0; k < b->len && !in_b; k++)
            in_b = g_array_index(b, uint32_t, k) == e;
        if (!in_b)
            g_array_append_val(out, e);
    }
    return out;
}

static void assert_carried(net *n, const GArray *links, double bytes)
{
    CU_ASSERT_TRUE(links->len > 0);
    for (guint i = 0; i < links->len; i++) {
        net_link_stats st;
        CU_ASSERT_TRUE(net_link_stats_get(n, g_array_index(links, uint32_t, i), &st, NULL));
        TEST_ASSERT_CLOSE(st.carried_bytes, bytes, 1e-9);
    }
}

static void test_jobgraph_path_change(void)
{
    GError *e = NULL;
    g_autoptr(topo) t = two_tors("2");
    g_autoptr(job_structure) s = two_gpus("{\"dp\": 2, \"fwd_s\": 0.1, \"bwd_s\": 0.2,"
                                          " \"grad_bytes\": 2e9, \"buckets\": 2}");
    two_hosts x;
    two_hosts_init(&x, 2);
    coll_plan *plan = NULL;
    g_autoptr(job_graph) g = graph_of(s, &x, t, &plan);
    g_autoptr(coll_plan) p = plan;
    const coll_flow *f = coll_plan_flow(p, 0);
    CU_ASSERT_EQUAL_FATAL(f->n_paths, 2);
    g_autoptr(GArray) old_path = g_array_copy(f->links);

    g_autoptr(evq) q = evq_new();
    net_options no = net_options_default();
    g_autoptr(net) n = net_new(&no, q, &e);
    TEST_ASSERT_NO_ERROR(e);
    for (size_t l = 0; l < topo_link_count(t); l++) { /* the same ids as the topology's */
        net_link_id id;
        CU_ASSERT_TRUE(net_link_add(n, topo_link_get(t, l)->cap_Bps, 0, &id, NULL));
    }
    g_autoptr(GArray) active = g_array_new(FALSE, FALSE, sizeof(net_transfer_id));
    path_case pc = {0};
    job_graph_net nt = {.q = q, .n = n, .alpha_s = 0, .active = active};
    job_graph_hooks h = {.user = &pc, .done = path_case_done, .xfer_started = path_case_started};
    job_graph_run *r = job_graph_run_new(g, p, &nt, &h);
    job_graph_run_start(r, 0.0);
    bool moved = false;
    while (evq_step(q))
        if (pc.started == 1 && !moved) {
            CU_ASSERT_TRUE(coll_plan_set_path(p, t, 0, 1 - f->path, &e));
            moved = true;
        }
    job_graph_run_free(r);
    CU_ASSERT_TRUE(pc.done);
    CU_ASSERT_EQUAL(pc.started, 2);
    g_autoptr(GArray) gone = links_minus(old_path, f->links);
    g_autoptr(GArray) came = links_minus(f->links, old_path);
    assert_carried(n, gone, 1e9);
    assert_carried(n, came, 1e9);
}

/* The curves of an iteration alone (what a fast-forward profile is made
 * of), DP = 2 with 4 buckets (the dp_buckets case): the last breakpoint
 * at 0.34 s, 2 GPUs x 0.3 s = 0.6 busy GPU-s, the bytes on all tiers
 * together equal to the plan's bytes per iteration over its links (4
 * buckets of 0.5 GB on each hop's links), busy and bytes never falling. */
static void test_jobgraph_alone_trace(void)
{
    GError *e = NULL;
    g_autoptr(topo) t = two_tors("1");
    g_autoptr(job_structure) s = two_gpus("{\"dp\": 2, \"fwd_s\": 0.1, \"bwd_s\": 0.2,"
                                          " \"grad_bytes\": 2e9, \"buckets\": 4}");
    two_hosts x;
    two_hosts_init(&x, 1);
    coll_plan *plan = NULL;
    g_autoptr(job_graph) g = graph_of(s, &x, t, &plan);
    g_autoptr(coll_plan) p = plan;
    job_graph_trace tr = {g_array_new(FALSE, FALSE, sizeof(double)),
                          g_array_new(FALSE, FALSE, sizeof(double)),
                          g_array_new(FALSE, FALSE, sizeof(double))};
    double iter = 0;
    CU_ASSERT(job_graph_isolated(g, p, t, 0, NULL, &iter, NULL, &tr, &e));
    TEST_ASSERT_NO_ERROR(e);
    TEST_ASSERT_CLOSE(iter, 0.34, 1e-12);
    guint np = tr.t_s->len;
    CU_ASSERT_FATAL(np > 2);
    TEST_ASSERT_CLOSE(g_array_index(tr.t_s, double, np - 1), 0.34, 1e-12);
    TEST_ASSERT_CLOSE(g_array_index(tr.busy, double, np - 1), 0.6, 1e-12);
    double total = 0, want = 0;
    for (int k = 0; k < TOPO_TIER_COUNT; k++)
        total += g_array_index(tr.bytes, double, (np - 1) * TOPO_TIER_COUNT + k);
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) bytes = g_array_new(FALSE, FALSE, sizeof(double));
    coll_plan_link_bytes(p, links, bytes);
    for (guint l = 0; l < bytes->len; l++)
        want += g_array_index(bytes, double, l);
    CU_ASSERT(want > 0);
    TEST_ASSERT_CLOSE(total, want, 1e-9);
    for (guint i = 1; i < np; i++) {
        CU_ASSERT(g_array_index(tr.t_s, double, i) >= g_array_index(tr.t_s, double, i - 1));
        CU_ASSERT(g_array_index(tr.busy, double, i) >= g_array_index(tr.busy, double, i - 1));
    }
    g_array_free(tr.t_s, TRUE);
    g_array_free(tr.busy, TRUE);
    g_array_free(tr.bytes, TRUE);
}

/* The plain job is the structure of one stage and one bucket: a DP job
 * of 8 GPUs on two hosts of 4 (two NICs each, NCCL's channels, alpha 5
 * us), C = 0.3 s then an all-reduce of 4e9 bytes then 0.01 s of optimizer,
 * against {dp 8, fwd 0.1, bwd 0.2, grad_bytes 4e9, opt 0.01}: the DP
 * group is the job's GPUs in the same order, so the same transfers on the
 * same flows (the same ECMP hashes): every output agrees. */
static void test_jobgraph_plain_special_case(void)
{
    static const char *const fmt =
        "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=4,nics=2,pcie=2\","
        " \"trace\": {\"jobs\": [{\"id\": \"j\", \"gpus\": 8, \"hosts\": [\"h0\", \"h2\"],"
        " \"start_s\": 0, \"end_s\": 5.05, \"model\": %s}]}, \"sim\": {\"interval_s\": 1}}";
    g_autofree char *plain = g_strdup_printf(
        fmt, "{\"compute_s\": 0.3, \"comm_bytes\": 4e9, \"comm_start_frac\": 1, \"opt_s\": 0.01}");
    g_autofree char *structured = g_strdup_printf(
        fmt, "{\"structure\": {\"dp\": 8, \"fwd_s\": 0.1, \"bwd_s\": 0.2,"
             " \"grad_bytes\": 4e9, \"opt_s\": 0.01}}");
    g_autofree char *tmp = g_dir_make_tmp("ccsim-jobgraph-XXXXXX", NULL);
    g_autofree char *d1 = g_build_filename(tmp, "plain", NULL);
    g_autofree char *d2 = g_build_filename(tmp, "structured", NULL);
    test_run x, y;
    CU_ASSERT_FATAL(test_run_text(&x, plain, false, d1));
    CU_ASSERT_FATAL(test_run_text(&y, structured, false, d2));
    replay_job_result a, b;
    replay_job_get(x.r, 0, &a);
    replay_job_get(y.r, 0, &b);
    CU_ASSERT(a.iterations > 10);
    CU_ASSERT_EQUAL(a.iterations, b.iterations);
    TEST_ASSERT_CLOSE(b.isolated_iter_s, a.isolated_iter_s, 1e-12);
    TEST_ASSERT_CLOSE(b.mean_iter_s, a.mean_iter_s, 1e-12);
    TEST_ASSERT_CLOSE(b.busy_gpu_s, a.busy_gpu_s, 1e-12);
    static const char *const files[] = {"jobs.csv", "timeseries.csv", "links.csv"};
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
        test_run_assert_csv_close(d1, d2, files[i], 1e-12);
    test_run_clear(&x);
    test_run_clear(&y);
    test_run_remove_outputs(d1);
    test_run_remove_outputs(d2);
    g_rmdir(tmp);
}

/* The fast paths give the event path's results for structured jobs: a
 * pipeline without communication (fast-forwarded for good), a DP job
 * alone (stretches), the two-job cases (a group that repeats, under fair
 * sharing, under fixed levels and under cassini), a plain and a structured job sharing
 * the uplinks, and the ideal scheduler; each with fewer events. */
static void assert_fast(char *text)
{
    uint64_t ev_ff = 0, ev_plain = 0;
    test_run_assert_same(text, 1e-9, &ev_ff, &ev_plain);
    if (!(ev_ff < ev_plain))
        fprintf(stderr, "events: %" G_GUINT64_FORMAT " fast, %" G_GUINT64_FORMAT " plain\n",
                ev_ff, ev_plain);
    CU_ASSERT(ev_ff < ev_plain);
    g_free(text);
}

/* text (freed) with the two-job window's end moved to 200 s: 2.95 s is
 * too short for a group to repeat. */
static char *longer(char *text)
{
    g_auto(GStrv) parts = g_strsplit(text, "\"end_s\": 2.95", -1);
    g_free(text);
    return g_strjoinv("\"end_s\": 200", parts);
}

static void test_jobgraph_fast_path(void)
{
    assert_fast(one_job(TOPO("4"), "[\"h0\"]", 4, 100,
                        "{\"pp\": 4, \"micro_batches\": 8, \"fwd_s\": 0.01, \"bwd_s\": 0.02}",
                        "0"));
    assert_fast(one_job(TOPO("1"), "[\"h0\", \"h2\"]", 2, 100,
                        "{\"dp\": 2, \"fwd_s\": 0.1, \"bwd_s\": 0.2, \"grad_bytes\": 2e9,"
                        " \"buckets\": 4}",
                        "5"));
    assert_fast(longer(two_jobs("\"ecmp\"")));
    assert_fast(longer(two_jobs("{\"name\": \"fixed\", \"jobs\": {\"A\": {\"priority\": 0},"
                                " \"B\": {\"priority\": 1}}}")));
    assert_fast(longer(two_jobs("\"ideal\"")));
    assert_fast(longer(two_jobs("\"cassini\""))); /* grouped hook; B shifted once, 0.1 s */
    assert_fast(g_strdup(
        "{\"topology\": " TOPO("1") ", \"trace\": {\"jobs\": ["
        "{\"id\": \"S\", \"gpus\": 2, \"hosts\": [\"h0\", \"h2\"], \"start_s\": 0,"
        " \"end_s\": 200, \"model\": {\"structure\": {\"pp\": 2, \"micro_batches\": 4,"
        " \"fwd_s\": 0.05, \"bwd_s\": 0.1, \"act_bytes\": 2e8}}},"
        "{\"id\": \"P\", \"gpus\": 2, \"hosts\": [\"h1\", \"h3\"], \"start_s\": 10,"
        " \"end_s\": 150, \"model\": {\"compute_s\": 0.4, \"comm_bytes\": 1e9,"
        " \"comm_start_frac\": 1}}]},"
        " \"sim\": {\"alpha_us\": 5, \"interval_s\": 10}}"));
    /* buckets cut at early and late points (structure.h), alone and in a
     * group of two DP jobs on the same uplinks */
    assert_fast(one_job(TOPO("1"), "[\"h0\", \"h2\"]", 2, 100,
                        "{\"dp\": 2, \"fwd_s\": 0.1, \"bwd_s\": 0.2, \"grad_bytes\": 2e9,"
                        " \"buckets\": 4, \"grad_early_bytes\": 5e8, \"grad_early_at\": 0.3,"
                        " \"grad_late_bytes\": 5e8}",
                        "5"));
    assert_fast(g_strdup(
        "{\"topology\": " TOPO("1") ", \"trace\": {\"jobs\": ["
        "{\"id\": \"A\", \"gpus\": 2, \"hosts\": [\"h0\", \"h2\"], \"start_s\": 0,"
        " \"end_s\": 200, \"model\": {\"structure\": {\"dp\": 2, \"fwd_s\": 0.1,"
        " \"bwd_s\": 0.2, \"grad_bytes\": 2e9, \"buckets\": 4, \"grad_late_bytes\": 1e9}}},"
        "{\"id\": \"B\", \"gpus\": 2, \"hosts\": [\"h1\", \"h3\"], \"start_s\": 10,"
        " \"end_s\": 150, \"model\": {\"structure\": {\"dp\": 2, \"fwd_s\": 0.05,"
        " \"bwd_s\": 0.15, \"grad_bytes\": 1.5e9, \"buckets\": 3,"
        " \"grad_early_bytes\": 5e8, \"grad_early_at\": 0.2}}}]},"
        " \"sim\": {\"alpha_us\": 5, \"channels\": 1, \"interval_s\": 10}}"));
}

/* A structured job waiting out a shift while its group skips ahead: its
 * next iteration's start (its own event, not its graph run's) moves with
 * the group.  cassini, A as in two_jobs (0.3 s an iteration alone), B with
 * half its compute (fwd, bwd 0.05 s: 0.2 s alone), both to 300 s, sharing
 * the uplinks; cassini delays B's iteration starts to keep its ring off
 * A's.  Every output equals the event path's (the skip once left B's start
 * where it was, and B ran through the skipped time: 51,200 iterations), and
 * B ends at most 300 / 0.2 = 1,500 iterations, its pace alone. */
static void test_jobgraph_waits_out_shift(void)
{
    char *text = g_strdup(
        "{\"topology\": " TOPO("1") ", \"trace\": {\"jobs\": ["
        "{\"id\": \"A\", \"gpus\": 2, \"hosts\": [\"h0\", \"h2\"], \"start_s\": 0,"
        " \"end_s\": 300, \"model\": {\"structure\": {\"dp\": 2, \"fwd_s\": 0.1,"
        " \"bwd_s\": 0.1, \"grad_bytes\": 1.25e9, \"overlap_grad_reduce\": false}}},"
        "{\"id\": \"B\", \"gpus\": 2, \"hosts\": [\"h1\", \"h3\"], \"start_s\": 0,"
        " \"end_s\": 300, \"model\": {\"structure\": {\"dp\": 2, \"fwd_s\": 0.05,"
        " \"bwd_s\": 0.05, \"grad_bytes\": 1.25e9, \"overlap_grad_reduce\": false}}}]},"
        " \"scheduler\": \"cassini\","
        " \"sim\": {\"alpha_us\": 0, \"channels\": 1, \"interval_s\": 100}}");
    test_run x;
    CU_ASSERT_FATAL(test_run_text(&x, text, true, NULL));
    replay_job_result b;
    replay_job_get(x.r, 1, &b);
    CU_ASSERT(b.iterations <= 1500);
    test_run_clear(&x);
    assert_fast(text);
}

/* A structured job on one host whose TP and DP collectives share its own
 * GPUs' NVLinks (tp 2, dp 2 on h0's four GPUs), with a plain job on h1
 * and h3 meanwhile: under a scheduler that never sets class levels
 * (ecmp) it is fast-forwarded for good, with the event path's results;
 * under `fixed`, which may rank its classes apart, it is not. */
static void test_jobgraph_alone_for_good(void)
{
    static const char *const scheds[] = {"\"ecmp\"", "{\"name\": \"fixed\", \"jobs\": {}}"};
    for (size_t k = 0; k < G_N_ELEMENTS(scheds); k++) {
        g_autofree char *text = g_strdup_printf(
            "{\"topology\": " TOPO("4") ", \"trace\": {\"jobs\": ["
            "{\"id\": \"S\", \"gpus\": 4, \"hosts\": [\"h0\"], \"start_s\": 0,"
            " \"end_s\": 100, \"model\": {\"structure\": {\"tp\": 2, \"dp\": 2, \"layers\": 2,"
            " \"fwd_s\": 0.05, \"bwd_s\": 0.1, \"tp_bytes\": 3e8, \"grad_bytes\": 6e9,"
            " \"buckets\": 2}}},"
            "{\"id\": \"P\", \"gpus\": 2, \"hosts\": [\"h1\", \"h3\"], \"start_s\": 10,"
            " \"end_s\": 80, \"model\": {\"compute_s\": 0.4, \"comm_bytes\": 1e9}}]},"
            " \"scheduler\": %s, \"sim\": {\"alpha_us\": 5, \"interval_s\": 10}}",
            scheds[k]);
        uint64_t ev_ff = 0, ev_plain = 0;
        test_run_assert_same(text, 1e-9, &ev_ff, &ev_plain);
        CU_ASSERT(ev_ff < ev_plain);
        test_run x;
        CU_ASSERT_FATAL(test_run_text(&x, text, true, NULL));
        replay_summary sum;
        replay_get_summary(x.r, &sum);
        CU_ASSERT_EQUAL(sum.jobs_fast_forwarded, k == 0 ? 1u : 0u);
        test_run_clear(&x);
    }
}

/* Traffic classes ranked (sched_set_class_priority, through `fixed`): pp =
 * 2, dp = 2 on four hosts of one GPU (stage 0 on h0, h1 under tor0, stage
 * 1 on h2, h3 under tor1; ToR uplinks 200 Gbps, so the two pipeline pairs
 * of a boundary run at the NIC's 12.5e9 B/s), m = 2, fwd 0.1, bwd 0.2,
 * 1.25e9 bytes of activations (a send: 0.1 s) and of gradients (a 2-host
 * ring: 0.1 s).  Until 0.9 s the schedule of the pp_p2p case; at 0.9
 * stage 1 ends B1 and both its send of B1 (h2 -> h0) and its reduction
 * (the ring h2 <-> h3) start, sharing h2's NIC uplink:
 *   one level: 6.25e9 B/s each, both end at 1.1; stage 0's B1 [1.1,
 *     1.3), its reduction [1.3, 1.4): 1.4 s;
 *   pp above dp: the send [0.9, 1.0), the ring [1.0, 1.1); stage 0's B1
 *     [1.0, 1.2), its reduction [1.2, 1.3): 1.3 s;
 *   dp above pp: the ring first, the send [1.0, 1.1): 1.4 s.
 * Alone (T_iso) the job's transfers share one level: 1.4 s. */
static char *classes(const char *decision)
{
    return g_strdup_printf(
        "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=1,nics=1,pcie=1,"
        "nic_gbps=100,tor_agg_gbps=200,latency_us=0,host_latency_us=0\","
        " \"trace\": {\"jobs\": [{\"id\": \"j\", \"gpus\": 4,"
        " \"hosts\": [\"h0\", \"h1\", \"h2\", \"h3\"], \"start_s\": 0, \"end_s\": 14.05,"
        " \"model\": {\"structure\": {\"pp\": 2, \"dp\": 2, \"micro_batches\": 2,"
        " \"fwd_s\": 0.1, \"bwd_s\": 0.2, \"act_bytes\": 1.25e9, \"grad_bytes\": 1.25e9}}}]},"
        " \"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"j\": %s}},"
        " \"sim\": {\"alpha_us\": 0, \"channels\": 1, \"interval_s\": 1}}",
        decision);
}

static void test_jobgraph_classes(void)
{
    static const struct {
        const char *decision;
        double iter_s;
    } cases[] = {
        {"{\"priority\": 0}", 1.4},
        {"{\"priority\": 0, \"classes\": {\"pp\": 0, \"dp\": 1}}", 1.3},
        {"{\"priority\": 0, \"classes\": {\"pp\": 1, \"dp\": 0}}", 1.4},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        replay_job_result jr;
        CU_ASSERT_FATAL(run(classes(cases[i].decision), 0, &jr, NULL));
        TEST_ASSERT_CLOSE(jr.isolated_iter_s, 1.4, 1e-12);
        TEST_ASSERT_CLOSE(jr.mean_iter_s, cases[i].iter_s, 1e-12);
        assert_fast(classes(cases[i].decision));
    }
}

/* A structured job that ends in the middle of an iteration while another
 * runs on: its run goes (replay__job_end) and none of its events may
 * fire after it (ASan checks the memory).  A: 0.3 s iterations ending at
 * 0.95, in its third iteration's compute; B alone from then on: 0.3 s
 * iterations until 3 s (the two-job case's jobs, sharing the uplinks
 * before 0.95). */
static void test_jobgraph_ends_mid_iteration(void)
{
    char *text = longer(two_jobs("\"ecmp\""));
    g_auto(GStrv) parts = g_strsplit(text, "\"end_s\": 200", 2);
    g_free(text);
    text = g_strjoinv("\"end_s\": 0.95", parts);
    test_run x;
    CU_ASSERT_FATAL(test_run_text(&x, text, true, NULL));
    g_free(text);
    replay_job_result a, b;
    replay_job_get(x.r, 0, &a);
    replay_job_get(x.r, 1, &b);
    /* A: iterations of 0.4 s while both reduce together: 2 done by 0.95 */
    CU_ASSERT_EQUAL(a.iterations, 2);
    CU_ASSERT(b.iterations > a.iterations);
    test_run_clear(&x);
}

/* A TP group larger than any host, not allowed: the replay refuses the job
 * before it starts, naming it. */
static void test_jobgraph_tp_too_wide(void)
{
    test_run x;
    GError *e = NULL;
    char *text = one_job(TOPO("1"), "[\"h0\", \"h1\"]", 2, 1,
                         "{\"tp\": 2, \"fwd_s\": 0.1, \"bwd_s\": 0.2}", "0");
    CU_ASSERT_FALSE(test_run_prepare(&x, text, NULL, &e));
    g_free(text);
    CU_ASSERT(e && strstr(e->message, "job j: structure.tp: a TP group of 2 GPUs is larger "
                                      "than a host (1 GPUs)"));
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    test_run_clear(&x);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"1f1b", test_jobgraph_1f1b},
        {"schedule", test_jobgraph_schedule},
        {"interleaved", test_jobgraph_interleaved},
        {"dp_buckets", test_jobgraph_dp_buckets},
        {"grad_profile", test_jobgraph_grad_profile},
        {"tp_across_hosts", test_jobgraph_tp_across_hosts},
        {"tp_merged", test_jobgraph_tp_merged},
        {"pp_p2p", test_jobgraph_pp_p2p},
        {"embedding_sync", test_jobgraph_embedding_sync},
        {"moe", test_jobgraph_moe},
        {"fsdp", test_jobgraph_fsdp},
        {"two_jobs", test_jobgraph_two_jobs},
        {"ranks", test_jobgraph_ranks},
        {"alone_call", test_jobgraph_alone_call},
        {"path_change", test_jobgraph_path_change},
        {"alone_trace", test_jobgraph_alone_trace},
        {"plain_special_case", test_jobgraph_plain_special_case},
        {"fast_path", test_jobgraph_fast_path},
        {"waits_out_shift", test_jobgraph_waits_out_shift},
        {"classes", test_jobgraph_classes},
        {"ends_mid_iteration", test_jobgraph_ends_mid_iteration},
        {"tp_too_wide", test_jobgraph_tp_too_wide},
        {"merged_rings", test_jobgraph_merged_rings},
        {"merge_refused", test_jobgraph_merge_refused},
        {"alone_for_good", test_jobgraph_alone_for_good},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("jobgraph", cases);
}
