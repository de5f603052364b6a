/* test_workload.c - suite "workload": architecture, parallelism and
 * framework resolved into figures (traces/workload*.c).  Every expected
 * number is worked out by hand in the comment above it.
 * Not here: running the figures (the engine's suites).
 */
#include <string.h>

#include "base/ccs.h"
#include "test_util.h"
#include "traces/workload.h"
#include "traces/workload-private.h"

/* GPT-3 Medium: l 24, h 1024, 16 heads, s 2048, V 51200, f = 4h. */
static workload_arch gpt_medium(void)
{
    workload_arch a = {.layers = 24, .hidden = 1024, .heads = 16, .kv_heads = 16, .ffn = 4096,
                       .seq = 2048, .vocab = 51200, .tied_embeddings = true,
                       .learned_pos = true, .biases = true, .moe_every = 1};
    return a;
}

static workload_spec parse(const char *json, GError **err)
{
    g_autoptr(cJSON) o = cJSON_Parse(json);
    CU_ASSERT_FATAL(o != NULL);
    workload_spec s = workload_spec_default();
    CU_ASSERT_FATAL(workload_spec_from_cjson(o, NULL, "s", &s, err));
    return s;
}

/* One GPT layer, b = 1: 24 b s h^2 + 4 b s^2 h
 *   = 24 x 2048 x 1024^2 + 4 x 2048^2 x 1024
 *   = 51,539,607,552 + 17,179,869,184 = 68,719,476,736 FLOPs;
 * the logit layer 2 b s h V = 2 x 2048 x 1024 x 51200 = 214,748,364,800. */
static void test_workload_gpt_layer_flops(void)
{
    workload_arch a = gpt_medium();
    TEST_ASSERT_CLOSE(workload_layer_fwd_flops(&a, 1, false), 68719476736.0, 1e-15);
    TEST_ASSERT_CLOSE(workload_layer_fwd_flops(&a, 3, false), 3 * 68719476736.0, 1e-15);
    TEST_ASSERT_CLOSE(workload_logit_fwd_flops(&a, 1), 214748364800.0, 1e-15);
}

/* Narayanan et al. eq. 2: P = 12 l h^2 + 13 l h + (V + s) h, plus the final
 * LayerNorm (2h) the equation leaves out:
 *   12 x 24 x 1024^2 = 301,989,888;  13 x 24 x 1024 = 319,488;
 *   (51200 + 2048) x 1024 = 54,525,952;  + 2048  -> 356,837,376.
 * LLaMA-7B (l 32, h 4096, f 11008 gated, V 32000, untied, RMSNorm):
 *   layer 4h^2 + 3hf + 2h = 67,108,864 + 135,266,304 + 8,192 = 202,383,360,
 *   x 32 = 6,476,267,520; embeddings and output 2 x 32000 x 4096 =
 *   262,144,000; final norm 4,096 -> 6,738,415,616 (the published count). */
static void test_workload_params(void)
{
    workload_arch a = gpt_medium();
    TEST_ASSERT_CLOSE(workload_model_params(&a), 356837376.0, 1e-15);
    workload_arch l = {.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 32, .ffn = 11008,
                       .gated_mlp = true, .seq = 2048, .vocab = 32000, .moe_every = 1};
    TEST_ASSERT_CLOSE(workload_layer_params(&l, false), 202383360.0, 1e-15);
    TEST_ASSERT_CLOSE(workload_model_params(&l), 6738415616.0, 1e-15);
}

/* Table 1's first row (1.7 B: l 24, h 2304, 24 heads; B 512, b 16, 32 GPUs,
 * full recompute): eq. 3, F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h))
 *   = 96 x 512 x 2048 x 24 x 2304^2 x (1 + 2048/13824 + 51200/884736)
 *   = 1.5466830068e16 FLOPs per iteration. */
static void test_workload_megatron_eq3(void)
{
    GError *err = NULL;
    workload_spec s = parse("{\"arch\": {\"layers\": 24, \"hidden\": 2304, \"heads\": 24, "
                            "\"seq\": 2048, \"vocab\": 51200}, \"micro_batch_size\": 16, "
                            "\"global_batch\": 512, \"recompute\": \"full\"}",
                            &err);
    workload_report rep;
    job_structure *f = workload_structure_build(&s, 32, 8, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_EQUAL(f->dp, 32);
    CU_ASSERT_EQUAL(f->micro_batches, 1);
    TEST_ASSERT_CLOSE(rep.flops_iter, 1.5466830068e16, 1e-10);
    structure_free(f);
}

/* GPT-3 Medium on 8 GPUs, tp 2, pp 2 (dp 2), b 1, B 8: m = 8 / (2 x 1) = 4;
 * 12 layers per stage.  TP: one collective is b s h x 2 B = 2048 x 1024 x 2
 * = 4,194,304 B, 2 per layer each way: 24 and 24.  PP: the same 4,194,304 B
 * per micro-batch, split over the TP ranks (scatter/gather).
 * Stage 0 forward: 12 x 68,719,476,736 / tp 2 / 1.37e14 = 3.00961e-3 s;
 * stage 1 adds the logits: (824,633,720,832 + 214,748,364,800) / 2 /
 * 1.37e14 = 3.79337e-3 s; backward 2x.  Gradients in fp32 (Megatron's bf16
 * default): stage 0 = (12 x (12h^2 + 13h) + (V + s) h) x 4 = (151,154,688 +
 * 54,525,952) x 4 = 822,722,560 B; stage 1 = (151,154,688 + 2,048 + the tied
 * embedding copy 52,428,800) x 4 = 814,342,144 B; one bucket after the
 * backward.  Optimizer: 205,680,640 / 2 parameters x 42.797e-3 / 6.738e9 x
 * 1.643 = 1.07314e-3 s. */
static void test_workload_gpt_tp_pp(void)
{
    GError *err = NULL;
    workload_spec s = workload_spec_default();
    s.has_arch = true;
    s.arch = gpt_medium();
    s.par.tp = 2;
    s.par.pp = 2;
    s.par.global_batch = 8;
    workload_report rep;
    job_structure *f = workload_structure_build(&s, 8, 8, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(f->dp, 2);
    CU_ASSERT_EQUAL(f->micro_batches, 4);
    CU_ASSERT_EQUAL(f->stages[0].layers, 12);
    TEST_ASSERT_CLOSE(f->tp_bytes, 4194304.0, 1e-15);
    CU_ASSERT_EQUAL(f->tp_colls_fwd, 2);
    CU_ASSERT_EQUAL(f->tp_colls_bwd, 2);
    TEST_ASSERT_CLOSE(f->act_bytes, 4194304.0, 1e-15);
    TEST_ASSERT_CLOSE(f->stages[0].fwd_s, 3.0096121198e-3, 1e-9);
    TEST_ASSERT_CLOSE(f->stages[1].fwd_s, 3.7933652760e-3, 1e-9);
    TEST_ASSERT_CLOSE(f->stages[1].bwd_s, 2 * 3.7933652760e-3, 1e-9);
    TEST_ASSERT_CLOSE(f->stages[0].grad_bytes, 822722560.0, 1e-15);
    TEST_ASSERT_CLOSE(f->stages[1].grad_bytes, 814342144.0, 1e-15);
    CU_ASSERT_EQUAL(f->buckets, 1);
    CU_ASSERT(!f->overlap_grad_reduce);
    TEST_ASSERT_CLOSE(f->opt_s, 1.0731403271e-3, 1e-9);
    structure_free(f);
}

/* Full recompute: the backward re-runs the layers' forward (not the
 * logits): stage 0 backward = 3 x forward; 2 more TP collectives per layer
 * in the backward: 24 + 24 = 48. */
static void test_workload_recompute(void)
{
    GError *err = NULL;
    workload_spec s = workload_spec_default();
    s.has_arch = true;
    s.arch = gpt_medium();
    s.par.tp = 2;
    s.par.pp = 2;
    s.par.micro_batches = 4;
    s.par.recompute = WORKLOAD_RECOMPUTE_FULL;
    workload_report rep;
    job_structure *f = workload_structure_build(&s, 4, 8, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL);
    TEST_ASSERT_CLOSE(f->stages[0].bwd_s, 3 * f->stages[0].fwd_s, 1e-12);
    CU_ASSERT_EQUAL(f->tp_colls_bwd, 4);
    structure_free(f);
}

/* The DP case pinned: fwd 0.1 s, bwd 0.2 s, 2 GB, 4 buckets, DDP:
 * overlapped buckets, no TP or PP traffic. */
static void test_workload_pins(void)
{
    GError *err = NULL;
    workload_spec s = parse("{\"framework\": \"ddp\", \"fwd_s\": 0.1, \"bwd_s\": 0.2, "
                            "\"grad_bytes\": 2e9, \"buckets\": 4, \"opt_s\": 0}",
                            &err);
    workload_report rep;
    job_structure *f = workload_structure_build(&s, 2, 1, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(f->dp, 2);
    CU_ASSERT_EQUAL(f->pp, 1);
    TEST_ASSERT_CLOSE(f->stages[0].fwd_s, 0.1, 0);
    TEST_ASSERT_CLOSE(f->stages[0].bwd_s, 0.2, 0);
    TEST_ASSERT_CLOSE(f->stages[0].grad_bytes, 2e9, 0);
    CU_ASSERT_EQUAL(f->buckets, 4);
    CU_ASSERT(f->overlap_grad_reduce);
    TEST_ASSERT_CLOSE(f->opt_s, 0, 0);
    TEST_ASSERT_CLOSE(f->act_bytes, 0, 0);
    CU_ASSERT_EQUAL(f->tp_colls_fwd, 0);
    structure_free(f);
}

/* The 1F1B case: p 4, m 8, fwd 0.01, bwd 0.02, nothing else. */
static void test_workload_pipeline_pins(void)
{
    GError *err = NULL;
    workload_spec s = parse("{\"tp\": 1, \"pp\": 4, \"dp\": 1, \"micro_batches\": 8, "
                            "\"fwd_s\": 0.01, \"bwd_s\": 0.02, \"act_bytes\": 0, "
                            "\"grad_bytes\": 0, \"buckets\": 1, \"opt_s\": 0}",
                            &err);
    workload_report rep;
    job_structure *f = workload_structure_build(&s, 4, 8, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(f->micro_batches, 8);
    for (int k = 0; k < 4; k++) {
        TEST_ASSERT_CLOSE(f->stages[k].fwd_s, 0.01, 0);
        TEST_ASSERT_CLOSE(f->stages[k].bwd_s, 0.02, 0);
    }
    structure_free(f);
}

/* Bucket counts.  DDP: BERT-large's fp32 gradients 1,340,697,832 B / 25 MiB
 * (26,214,400 B) = 51.14 -> 52 buckets.  Megatron with
 * --overlap-grad-reduce on dp 64: max(40 M, 64 M) = 64e6 parameters x 4 B
 * = 256e6 B per bucket; 1e9 gradient bytes per rank... here the pinned
 * 4e9 B / 256e6 = 15.6 -> 16 buckets. */
static void test_workload_buckets(void)
{
    GError *err = NULL;
    workload_spec s = parse("{\"framework\": \"ddp\", \"fwd_s\": 0.02, \"bwd_s\": 0.04, "
                            "\"grad_bytes\": 1340697832}",
                            &err);
    workload_report rep;
    job_structure *f = workload_structure_build(&s, 16, 8, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(f->buckets, 52);
    structure_free(f);
    s = parse("{\"fwd_s\": 1, \"bwd_s\": 2, \"grad_bytes\": 4e9, "
              "\"overlap_grad_reduce\": true}",
              &err);
    f = workload_structure_build(&s, 64, 8, CATALOG_GPU_A100, "j", &rep, &err);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(f->buckets, 16);
    structure_free(f);
    s.fw.overlap_grad_reduce = false; /* Megatron's default: one bucket */
    f = workload_structure_build(&s, 64, 8, CATALOG_GPU_A100, "j", &rep, &err);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(f->buckets, 1);
    structure_free(f);
}

/* When the embeddings' and the output layer's gradients are complete
 * (docs/model.md §4b "Bucket readiness"), GPT-3 Medium in 16 micro-batches
 * of 1 on 16 GPUs with overlapped buckets, fp32 gradients (4 B):
 * - pp 1: the embeddings (V + s) h = (51200 + 2048) 1024 = 54,525,952
 *   parameters = 218,103,808 B complete at the end; the output layer is
 *   tied, so only the final LayerNorm's 2h = 2048 (8192 B) is early, at the
 *   logit matmul's share of the backward: 2 s h V / (2 (l s h (24 h + 4 s)
 *   + 2 s h V)) = 102400 / (24 x 32768 + 102400) = 25/217.
 * - pp 2: stage 0 keeps the embeddings (late), stage 1 the norm and the
 *   tied copy V h = 52,428,800: 52,430,848 parameters = 209,723,392 B early
 *   at 102400 / (12 x 32768 + 102400) = 25/121; nothing early on stage 0
 *   nor late on stage 1.
 * - without overlap, under ZeRO 3, or with gradients pinned: none.
 * The tied embedding's two copies (pp 2) then synchronize their gradients:
 * V h = 52,428,800 values of 4 B = 209,715,200 B; none with pp 1. */
static void test_workload_grad_profile(void)
{
    GError *err = NULL;
    workload_spec s = workload_spec_default();
    s.has_arch = true;
    s.arch = gpt_medium();
    s.fw.overlap_grad_reduce = true;
    s.par.global_batch = 256;
    workload_report rep;
    job_structure *f = workload_structure_build(&s, 16, 8, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL && f->pp == 1);
    TEST_ASSERT_CLOSE(f->stages[0].grad_late_bytes, 218103808.0, 1e-15);
    TEST_ASSERT_CLOSE(f->stages[0].grad_early_bytes, 8192.0, 1e-15);
    TEST_ASSERT_CLOSE(f->stages[0].grad_early_at, 25.0 / 217.0, 1e-12);
    CU_ASSERT_EQUAL(f->embed_grad_bytes, 0);
    structure_free(f);
    s.par.pp = 2;
    f = workload_structure_build(&s, 16, 8, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL && f->pp == 2);
    TEST_ASSERT_CLOSE(f->stages[0].grad_late_bytes, 218103808.0, 1e-15);
    CU_ASSERT_EQUAL(f->stages[0].grad_early_bytes, 0);
    CU_ASSERT_EQUAL(f->stages[0].grad_early_at, 0);
    TEST_ASSERT_CLOSE(f->stages[1].grad_early_bytes, 209723392.0, 1e-15);
    TEST_ASSERT_CLOSE(f->stages[1].grad_early_at, 25.0 / 121.0, 1e-12);
    CU_ASSERT_EQUAL(f->stages[1].grad_late_bytes, 0);
    TEST_ASSERT_CLOSE(f->embed_grad_bytes, 209715200.0, 1e-15);
    structure_free(f);
    s.par.pp = 1; /* ZeRO 3 runs without pipeline stages */
    for (int c = 0; c < 3; c++) {
        workload_spec t = s;
        if (c == 0)
            t.fw.overlap_grad_reduce = false;
        else if (c == 1)
            t.par.zero = 3;
        else
            t.grad_bytes = 1e9;
        f = workload_structure_build(&t, 16, 8, CATALOG_GPU_A100, "j", &rep, &err);
        TEST_ASSERT_NO_ERROR(err);
        CU_ASSERT_FATAL(f != NULL);
        for (int k = 0; k < f->pp; k++)
            CU_ASSERT(f->stages[k].grad_early_bytes == 0 && f->stages[k].grad_late_bytes == 0);
        structure_free(f);
    }
}

/* MoE: 4 layers, every 2nd an MoE layer of 8 experts, top-2, ep 2, dp 4:
 * 2 MoE layers in the stage; the dispatch per GPU carries b s k h x 2 B =
 * 1 x 2048 x 2 x 1024 x 2 = 8,388,608 B.  An MoE layer's forward: attention
 * 8 b s h^2 + 4 b s^2 h + experts 2 b s k (2 h f) + router 2 b s h E
 *   = 17,179,869,184 + 17,179,869,184 + 68,719,476,736 + 33,554,432. */
static void test_workload_moe(void)
{
    GError *err = NULL;
    workload_spec s = parse("{\"arch\": {\"layers\": 4, \"hidden\": 1024, \"heads\": 16, "
                            "\"seq\": 2048, \"vocab\": 51200, \"experts\": 8, \"top_k\": 2, "
                            "\"moe_every\": 2}, \"ep\": 2}",
                            &err);
    TEST_ASSERT_CLOSE(workload_layer_fwd_flops(&s.arch, 1, true),
                      17179869184.0 + 17179869184.0 + 68719476736.0 + 33554432.0, 1e-15);
    CU_ASSERT(!workload_layer_is_moe(&s.arch, 0));
    CU_ASSERT(workload_layer_is_moe(&s.arch, 1));
    workload_report rep;
    job_structure *f = workload_structure_build(&s, 4, 8, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(f->stages[0].moe_layers, 2);
    TEST_ASSERT_CLOSE(f->moe_a2a_bytes, 8388608.0, 1e-15);
    structure_free(f);
}

/* FSDP: one unit per layer plus the root; each unit's parameters in bf16:
 * (356,837,376 x 2) / 25 units = 28,546,990.08 B. */
static void test_workload_fsdp(void)
{
    GError *err = NULL;
    workload_spec s = workload_spec_default();
    s.has_arch = true;
    s.arch = gpt_medium();
    s.fw = workload_framework_defaults(WORKLOAD_FW_FSDP);
    s.par.zero = 3;
    workload_report rep;
    job_structure *f = workload_structure_build(&s, 16, 8, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(f->fsdp_units, 25);
    TEST_ASSERT_CLOSE(f->stages[0].param_bytes / f->fsdp_units, 356837376.0 * 2 / 25, 1e-12);
    CU_ASSERT_EQUAL(f->dp, 16);
    structure_free(f);
}

/* Bad input: each a clear CCS_ERROR_INVALID naming what is wrong. */
static void test_workload_errors(void)
{
    static const struct {
        const char *json;
        int gpus, per_host;
        const char *says;
    } bad[] = {
        {"{\"arch\": \"x\"}", 8, 8, "catalog model"},
        {"{\"arch\": {\"layers\": 2, \"hidden\": 64, \"heads\": 4, \"seq\": 8, \"vocab\": 10, "
         "\"hiden\": 3}}",
         8, 8, "unknown key \"hiden\""},
        {"{\"tp\": 2, \"pp\": 2, \"dp\": 3, \"fwd_s\": 1, \"bwd_s\": 1}", 8, 8, "the job has 8"},
        {"{\"tp\": 3, \"fwd_s\": 1, \"bwd_s\": 1}", 8, 8, "does not divide"},
        {"{\"tp\": 16, \"fwd_s\": 1, \"bwd_s\": 1}", 16, 8, "tp_across_hosts"},
        {"{\"arch\": {\"layers\": 2, \"hidden\": 64, \"heads\": 4, \"seq\": 8, \"vocab\": 10}, "
         "\"pp\": 4, \"micro_batches\": 4}",
         4, 8, "larger than the model's 2 layers"},
        {"{\"arch\": {\"layers\": 6, \"hidden\": 64, \"heads\": 4, \"seq\": 8, \"vocab\": 10}, "
         "\"pp\": 4, \"micro_batches\": 4}",
         4, 8, "not a multiple of pp"},
        {"{\"arch\": {\"layers\": 4, \"hidden\": 64, \"heads\": 4, \"seq\": 8, \"vocab\": 10}, "
         "\"tp\": 8}",
         8, 8, "heads are not a multiple"},
        {"{\"arch\": {\"layers\": 4, \"hidden\": 64, \"heads\": 4, \"seq\": 8, \"vocab\": 10, "
         "\"experts\": 6, \"top_k\": 1}, \"ep\": 4}",
         4, 8, "experts are not a multiple of ep"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"ep\": 3}", 4, 8, "ep 3 does not divide dp"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"micro_batch_size\": 2, \"global_batch\": 10}", 4, 8,
         "not a multiple of dp x micro_batch"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"pp\": 2}", 4, 8, "needs \"micro_batches\""},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"pp\": 2, \"zero\": 3, \"micro_batches\": 2}", 4, 8,
         "ZeRO-3"},
        {"{\"tp\": 2}", 4, 8, "needs \"arch\""},
        {"{\"arch\": {\"layers\": 8, \"hidden\": 64, \"heads\": 4, \"seq\": 8, \"vocab\": 10}, "
         "\"pp\": 2, \"vpp\": 3, \"micro_batches\": 4}",
         2, 8, "not a multiple of vpp"},
        {"{\"arch\": {\"layers\": 8, \"hidden\": 64, \"heads\": 4, \"seq\": 8, \"vocab\": 10}, "
         "\"pp\": 2, \"vpp\": 2, \"micro_batches\": 3}",
         2, 8, "needs a multiple of pp"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        GError *err = NULL;
        g_autoptr(cJSON) o = cJSON_Parse(bad[i].json);
        CU_ASSERT_FATAL(o != NULL);
        job_structure *st = workload_structure_from_cjson(o, NULL, bad[i].gpus, bad[i].per_host,
                                                          CATALOG_GPU_A100, "j", NULL, &err);
        CU_ASSERT_PTR_NULL(st);
        structure_free(st);
        if (err && !strstr(err->message, bad[i].says))
            fprintf(stderr, "case %zu: \"%s\" lacks \"%s\"\n", i, err->message, bad[i].says);
        CU_ASSERT(err && strstr(err->message, bad[i].says) && g_str_has_prefix(err->message, "j: "));
        TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    }
}

/* Pins laid over an architecture: a per-stage fwd_s array replaces the
 * derived compute, a scalar grad_bytes every stage's; the structure's own
 * parser still refuses a key nobody knows. */
static void test_workload_overlay(void)
{
    GError *err = NULL;
    g_autoptr(cJSON) o = cJSON_Parse(
        "{\"arch\": {\"layers\": 4, \"hidden\": 64, \"heads\": 4, \"seq\": 8, "
        "\"vocab\": 10}, \"pp\": 2, \"micro_batches\": 4, \"fwd_s\": [0.5, 0.25], "
        "\"grad_bytes\": 1000}");
    g_autoptr(job_structure) st =
        workload_structure_from_cjson(o, NULL, 2, 8, CATALOG_GPU_A100, "j", NULL, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(st != NULL);
    TEST_ASSERT_CLOSE(st->stages[0].fwd_s, 0.5, 0);
    TEST_ASSERT_CLOSE(st->stages[1].fwd_s, 0.25, 0);
    TEST_ASSERT_CLOSE(st->stages[1].grad_bytes, 1000, 0);
    CU_ASSERT_EQUAL(st->stages[0].layers, 2);
    CU_ASSERT(workload_cjson_is_description(o));
    g_autoptr(cJSON) bad = cJSON_Parse("{\"framework\": \"ddp\", \"fwd_s\": 1, \"bwd_s\": 1, "
                                       "\"bogus\": 1}");
    CU_ASSERT_PTR_NULL(
        workload_structure_from_cjson(bad, NULL, 2, 8, CATALOG_GPU_A100, "j", NULL, &err));
    CU_ASSERT(err && strstr(err->message, "bogus"));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    g_autoptr(cJSON) pinned = cJSON_Parse("{\"fwd_s\": 1, \"bwd_s\": 1}");
    CU_ASSERT(!workload_cjson_is_description(pinned));
}

static const catalog_model *entry(const catalog *c, const char *name)
{
    const catalog_model *m = catalog_find(c, name);
    CU_ASSERT_FATAL(m != NULL);
    return m;
}

/* Trace jobs: the nearest row of Table 1 by parameter count (in log scale).
 * GPT-13B (12.86e9 by its dimensions): |ln(18.4/12.86)| = 0.36 <
 * |ln(12.86/7.5)| = 0.54 -> the 18.4 B row: tp 8, pp 1, micro-batch 8,
 * 1024/32 = 32 sequences per replica -> m 4; on 16 GPUs dp 2.
 * LLaMA-65B -> the 76.1 B row (tp 8, pp 4, b 2, 56 per replica -> m 28): on
 * 48 GPUs pp 4 does not divide 48/8 = 6, 3 does not divide 80 layers, so
 * pp 2, dp 3, and the row's 5 layers per virtual stage give vpp 40/5 = 8
 * (m 28 is a multiple of pp 2); on 8 GPUs pp 1 (no interleaving).  With one GPU per host tp falls to 1.
 * GPT-350M -> the 1.7 B row: tp 1, pp 1, b 16, m 1.  LLaMA-7B (FSDP): its
 * 4 sequences per GPU, ZeRO-3 over all GPUs.  ResNet-50 (no dimensions):
 * DDP with the catalog's 0.104 s split at its forward share .4588. */
static void test_workload_trace_recipe(void)
{
    GError *err = NULL;
    g_autoptr(catalog) c = catalog_load_default(&err);
    CU_ASSERT_FATAL(c != NULL);
    workload_spec s;
    CU_ASSERT_FATAL(workload_spec_for_trace_job(entry(c, "GPT-13B"), 16, 8, CATALOG_GPU_A100,
                                                &s));
    CU_ASSERT(s.par.tp == 8 && s.par.pp == 1 && s.par.micro_batch == 8 &&
              s.par.micro_batches == 4 && s.par.recompute == WORKLOAD_RECOMPUTE_FULL);
    workload_report rep;
    job_structure *f = workload_structure_build(&s, 16, 8, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(f->dp, 2);
    structure_free(f);
    CU_ASSERT_FATAL(workload_spec_for_trace_job(entry(c, "LLaMA-65B"), 48, 8,
                                                CATALOG_GPU_A100, &s));
    CU_ASSERT(s.par.tp == 8 && s.par.pp == 2 && s.par.micro_batches == 28 && s.par.vpp == 8);
    CU_ASSERT_FATAL(workload_spec_for_trace_job(entry(c, "65b"), 8, 8, CATALOG_GPU_A100, &s));
    CU_ASSERT(s.par.tp == 8 && s.par.pp == 1 && s.par.vpp == 0);
    /* LLaMA-33B: the 39.1 B row's tp 8 does not divide its 52 heads: tp 4 */
    CU_ASSERT_FATAL(workload_spec_for_trace_job(entry(c, "llama_30b"), 48, 8, CATALOG_GPU_A100,
                                                &s));
    CU_ASSERT(s.par.tp == 4 && s.par.pp == 2);
    CU_ASSERT_FATAL(workload_spec_for_trace_job(entry(c, "GPT-13B"), 60, 1, CATALOG_GPU_A100,
                                                &s));
    CU_ASSERT(s.par.tp == 1 && s.par.pp == 1);
    CU_ASSERT_FATAL(workload_spec_for_trace_job(entry(c, "GPT-350M"), 64, 8, CATALOG_GPU_A100,
                                                &s));
    CU_ASSERT(s.par.tp == 1 && s.par.pp == 1 && s.par.micro_batch == 16 &&
              s.par.micro_batches == 1 && s.fw.kind == WORKLOAD_FW_MEGATRON);
    CU_ASSERT_FATAL(workload_spec_for_trace_job(entry(c, "LLaMA-7B"), 16, 8, CATALOG_GPU_A100,
                                                &s));
    CU_ASSERT(s.par.zero == 3 && s.par.micro_batch == 4 && s.fw.kind == WORKLOAD_FW_FSDP);
    CU_ASSERT_FATAL(workload_spec_for_trace_job(entry(c, "ResNet-50"), 16, 8,
                                                CATALOG_GPU_A100, &s));
    CU_ASSERT(!s.has_arch && s.fw.kind == WORKLOAD_FW_DDP);
    TEST_ASSERT_CLOSE(s.fwd_s, 0.104 * 0.4588, 1e-12);
    TEST_ASSERT_CLOSE(s.bwd_s, 0.104 * (1 - 0.4588), 1e-12);
    TEST_ASSERT_CLOSE(s.grad_bytes, 102228128.0, 1e-15);
    CU_ASSERT_EQUAL(s.grad_late_bytes, 0);
    /* BERT-large's embeddings (catalog last_grad_params): word 30522 x 1024
     * + position 512 x 1024 + token type 2 x 1024 + LayerNorm 2 x 1024 =
     * 31,782,912 fp32 gradients, 127,131,648 B complete last */
    CU_ASSERT_FATAL(workload_spec_for_trace_job(entry(c, "BERT-large"), 16, 8,
                                                CATALOG_GPU_A100, &s));
    f = workload_structure_build(&s, 16, 8, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL);
    TEST_ASSERT_CLOSE(f->stages[0].grad_late_bytes, 127131648.0, 1e-15);
    CU_ASSERT_EQUAL(f->stages[0].grad_early_bytes, 0);
    CU_ASSERT_EQUAL(f->buckets, 52);
    structure_free(f);
    /* gradients pinned over the entry's (--structure-set grad_bytes=1e8):
     * the entry's embeddings no longer describe them */
    g_autoptr(cJSON) set = cJSON_Parse("{\"grad_bytes\": 1e8}");
    CU_ASSERT_FATAL(workload__spec_overlay(set, "set", &s, &err));
    f = workload_structure_build(&s, 16, 8, CATALOG_GPU_A100, "j", &rep, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(f != NULL);
    TEST_ASSERT_CLOSE(f->stages[0].grad_bytes, 1e8, 1e-15);
    CU_ASSERT_EQUAL(f->stages[0].grad_late_bytes, 0);
    structure_free(f);
    CU_ASSERT(!workload_spec_for_trace_job(entry(c, "Inference-130B"), 8, 8, CATALOG_GPU_A100,
                                           &s));
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"gpt_layer_flops", test_workload_gpt_layer_flops},
        {"params", test_workload_params},
        {"megatron_eq3", test_workload_megatron_eq3},
        {"gpt_tp_pp", test_workload_gpt_tp_pp},
        {"recompute", test_workload_recompute},
        {"pins", test_workload_pins},
        {"pipeline_pins", test_workload_pipeline_pins},
        {"buckets", test_workload_buckets},
        {"grad_profile", test_workload_grad_profile},
        {"moe", test_workload_moe},
        {"fsdp", test_workload_fsdp},
        {"errors", test_workload_errors},
        {"overlay", test_workload_overlay},
        {"trace_recipe", test_workload_trace_recipe},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("workload", cases);
}
