/* test_structure.c - suite "structure": a job's parallel structure parsed
 * from the scenario (traces/structure.c) and carried by a JSON trace.
 * Not here: running it (test_jobgraph.c).
 */
#include <string.h>

#include "base/ccs.h"
#include "test_util.h"
#include "traces/structure.h"
#include "traces/trace.h"

static job_structure *parse(const char *json, int gpus, GError **err)
{
    cJSON *o = cJSON_Parse(json);
    CU_ASSERT_FATAL(o != NULL);
    job_structure *s = structure_parse(o, gpus, "t.json: job j1", err);
    cJSON_Delete(o);
    return s;
}

/* The example: only the pinned figures; everything else takes its
 * documented default (dp from the GPUs, one layer per stage, overlap on,
 * Megatron's 2 + 2 TP collectives per layer). */
static void test_structure_defaults(void)
{
    GError *err = NULL;
    g_autoptr(job_structure) s =
        parse("{\"tp\": 1, \"pp\": 4, \"micro_batches\": 8, \"fwd_s\": 0.01, \"bwd_s\": 0.02,"
              " \"act_bytes\": 0, \"grad_bytes\": 0, \"buckets\": 1, \"opt_s\": 0}",
              4, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(s != NULL);
    CU_ASSERT_EQUAL(s->tp, 1);
    CU_ASSERT_EQUAL(s->pp, 4);
    CU_ASSERT_EQUAL(s->dp, 1);
    CU_ASSERT_EQUAL(s->ep, 1);
    CU_ASSERT_EQUAL(s->vpp, 1);
    CU_ASSERT_EQUAL(s->micro_batches, 8);
    CU_ASSERT_EQUAL(s->buckets, 1);
    CU_ASSERT_EQUAL(s->zero, STRUCTURE_ZERO_0);
    CU_ASSERT(s->overlap_grad_reduce);
    CU_ASSERT(!s->seq_parallel && !s->tp_across_hosts);
    CU_ASSERT_EQUAL(s->tp_colls_fwd, 2);
    CU_ASSERT_EQUAL(s->tp_colls_bwd, 2);
    CU_ASSERT_EQUAL(s->fsdp_units, 1);
    CU_ASSERT(s->order[0] == 0 && s->order[1] == 1 && s->order[2] == 2);
    for (int st = 0; st < 4; st++) {
        CU_ASSERT_EQUAL(s->stages[st].layers, 1);
        CU_ASSERT_EQUAL(s->stages[st].moe_layers, 0);
        CU_ASSERT_EQUAL(s->stages[st].fwd_s, 0.01);
        CU_ASSERT_EQUAL(s->stages[st].bwd_s, 0.02);
    }
    CU_ASSERT_EQUAL(structure_gpus(s), 4);
    /* 8 x (0.01 + 0.02) = 0.24 s per GPU per iteration */
    TEST_ASSERT_CLOSE(structure_stage_compute_s(s, 2), 0.24, 1e-12);
}

/* Per-stage arrays, layers spread with the remainder first, MoE layers,
 * global batch -> micro-batches, a copy that owns its stages. */
static void test_structure_stages(void)
{
    GError *err = NULL;
    g_autoptr(job_structure) s = parse(
        "{\"tp\": 2, \"pp\": 2, \"dp\": 4, \"ep\": 2, \"experts\": 8, \"layers\": 5,"
        " \"moe_layers\": 3, \"global_batch\": 64, \"micro_batch_size\": 2,"
        " \"fwd_s\": [0.1, 0.2], \"bwd_s\": 0.3, \"grad_bytes\": [1e9, 2e9],"
        " \"expert_grad_bytes\": 5e8, \"zero\": 3, \"fsdp_units\": 4, \"seq_parallel\": true,"
        " \"order\": \"tp-pp-dp\"}",
        16, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(s != NULL);
    /* 64 / (2 x dp 4) = 8 micro-batches */
    CU_ASSERT_EQUAL(s->micro_batches, 8);
    CU_ASSERT_EQUAL(s->stages[0].layers, 3);
    CU_ASSERT_EQUAL(s->stages[1].layers, 2);
    CU_ASSERT_EQUAL(s->stages[0].moe_layers, 2);
    CU_ASSERT_EQUAL(s->stages[1].moe_layers, 1);
    CU_ASSERT_EQUAL(s->stages[0].fwd_s, 0.1);
    CU_ASSERT_EQUAL(s->stages[1].fwd_s, 0.2);
    CU_ASSERT_EQUAL(s->stages[1].grad_bytes, 2e9);
    /* parameters default to the gradients' bytes */
    CU_ASSERT_EQUAL(s->stages[1].param_bytes, 2e9);
    CU_ASSERT_EQUAL(s->zero, STRUCTURE_ZERO_3);
    CU_ASSERT(s->seq_parallel);
    CU_ASSERT(s->order[0] == 0 && s->order[1] == 2 && s->order[2] == 1);
    g_autoptr(job_structure) c = structure_copy(s);
    CU_ASSERT(c->stages != s->stages);
    CU_ASSERT_EQUAL(c->stages[1].moe_layers, 1);
    CU_ASSERT_PTR_NULL(structure_copy(NULL));
}

/* Each bad structure names the job and the key, and says what is wrong. */
static void test_structure_bad(void)
{
    static const struct {
        const char *json;
        int gpus;
        const char *expect;
    } cases[] = {
        /* tp pp dp against the GPUs */
        {"{\"tp\": 2, \"pp\": 2, \"dp\": 2, \"fwd_s\": 1, \"bwd_s\": 1}", 6,
         "tp x pp x dp = 2 x 2 x 2 = 8, but the job has 6 GPUs"},
        /* pp > layers */
        {"{\"pp\": 4, \"layers\": 3, \"fwd_s\": 1, \"bwd_s\": 1}", 4,
         "structure.layers: 3 layers cannot fill pp x vpp = 4 x 1"},
        /* the interleaved schedule needs a multiple of pp micro-batches */
        {"{\"pp\": 2, \"vpp\": 2, \"layers\": 8, \"micro_batches\": 3, \"fwd_s\": 1,"
         " \"bwd_s\": 1}", 2, "structure.micro_batches: the interleaved schedule"},
        /* a global batch that is no whole number of micro-batches */
        {"{\"dp\": 3, \"global_batch\": 10, \"fwd_s\": 1, \"bwd_s\": 1}", 3,
         "structure.global_batch: global batch 10 is not a whole number"},
        /* experts not divisible by ep */
        {"{\"dp\": 4, \"ep\": 4, \"experts\": 6, \"moe_layers\": 1, \"fwd_s\": 1, \"bwd_s\": 1}",
         4, "structure.experts: 6 experts cannot be divided over ep = 4"},
        {"{\"dp\": 4, \"ep\": 3, \"experts\": 6, \"fwd_s\": 1, \"bwd_s\": 1}", 4,
         "structure.ep: ep 3 does not divide dp 4"},
        {"{\"dp\": 2, \"ep\": 2, \"fwd_s\": 1, \"bwd_s\": 1}", 2, "structure.experts: missing"},
        {"{\"fwd_s\": 1}", 1, "structure.bwd_s: missing"},
        {"{\"fwd_s\": 0, \"bwd_s\": 0}", 1, "stage 0 computes nothing"},
        {"{\"pp\": 2, \"fwd_s\": [1, 2, 3], \"bwd_s\": 1}", 2,
         "structure.fwd_s: expected a number or an array of 2 numbers"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"tp_colls\": 2}", 1, "structure.tp_colls: unknown key"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"zero\": 4}", 1, "structure.zero: 4 is out of range"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"buckets\": 1.5}", 1,
         "structure.buckets: expected a whole number"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"overlap_grad_reduce\": 1}", 1,
         "structure.overlap_grad_reduce: expected true or false"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"fsdp_units\": 2}", 1, "only ZeRO 3"},
        {"{\"pp\": 2, \"stage_layers\": [2, 1], \"moe_layers\": [0, 2], \"experts\": 2,"
         " \"fwd_s\": 1, \"bwd_s\": 1}", 2, "stage 1 has 2 MoE layers but 1 layers"},
        {"[1]", 1, "structure: expected an object"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"grad_bytes\": 1e9, \"grad_late_bytes\": 6e8,"
         " \"grad_early_bytes\": 5e8, \"grad_early_at\": 0.5}", 1,
         "structure.grad_early_bytes: stage 0: early 5e+08 + late 6e+08 bytes exceed its "
         "grad_bytes 1e+09"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"grad_bytes\": 1e9, \"grad_early_bytes\": 5e8}", 1,
         "structure.grad_early_at: stage 0: early gradients need a point in (0, 1]"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"grad_early_at\": 1.5}", 1,
         "structure.grad_early_at: 1.5 is out of range [0, 1]"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"embed_grad_bytes\": 1e8}", 1,
         "structure.embed_grad_bytes: the embedding's two copies are on the first and the last "
         "stage: needs pp > 1, got pp 1"},
        {"{\"fwd_s\": 1, \"bwd_s\": 1, \"order\": \"tp-tp-pp\"}", 1,
         "structure.order: expected tp, dp and pp"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GError *err = NULL;
        job_structure *s = parse(cases[i].json, cases[i].gpus, &err);
        CU_ASSERT_PTR_NULL(s);
        structure_free(s);
        CU_ASSERT_FATAL(err != NULL);
        bool ok = g_str_has_prefix(err->message, "t.json: job j1: structure") &&
                  strstr(err->message, cases[i].expect) != NULL;
        if (!ok)
            fprintf(stderr, "case %zu: got \"%s\", want \"%s\"\n", i, err->message,
                    cases[i].expect);
        CU_ASSERT(ok);
        TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    }
}

/* A TP group wider than a host needs tp_across_hosts. */
static void test_structure_hosts(void)
{
    GError *err = NULL;
    g_autoptr(job_structure) s = parse("{\"tp\": 16, \"fwd_s\": 1, \"bwd_s\": 1}", 16, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT(structure_check_hosts(s, 16, "j", &err));
    CU_ASSERT(!structure_check_hosts(s, 8, "t.json: job j1", &err));
    CU_ASSERT(err && strstr(err->message, "t.json: job j1: structure.tp: a TP group of 16 GPUs"));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    s->tp_across_hosts = true;
    CU_ASSERT(structure_check_hosts(s, 8, "j", &err));
}

/* A JSON trace carries the structure of a job whose model is
 * {"structure": {...}}, names it after the job, and names the job in
 * its errors. */
static void test_structure_trace(void)
{
    const char *ok = "{\"jobs\": [{\"id\": \"pipe\", \"gpus\": 4, \"start_s\": 0, \"end_s\": 1,"
                     " \"model\": {\"structure\": {\"pp\": 4, \"micro_batches\": 8,"
                     " \"fwd_s\": 0.01, \"bwd_s\": 0.02}}}]}";
    GError *err = NULL;
    g_autoptr(trace) t = trace_json_parse(ok, strlen(ok), "t.json", &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(t != NULL);
    const trace_job *j = trace_job_get(t, 0);
    CU_ASSERT_FATAL(j->structure != NULL);
    CU_ASSERT_EQUAL(j->structure->pp, 4);
    CU_ASSERT_STRING_EQUAL(j->inline_model->name, "pipe");
    CU_ASSERT_STRING_EQUAL(j->inline_model->family, "structure");
    /* mean compute per GPU per iteration: 8 x 0.03 = 0.24 s */
    TEST_ASSERT_CLOSE(j->inline_model->compute_s[0], 0.24, 1e-12);
    const char *bad = "{\"jobs\": [{\"id\": \"pipe\", \"gpus\": 6, \"start_s\": 0, \"end_s\": 1,"
                      " \"model\": {\"structure\": {\"pp\": 4, \"fwd_s\": 1, \"bwd_s\": 1}}}]}";
    trace *t2 = trace_json_parse(bad, strlen(bad), "t.json", &err);
    CU_ASSERT_PTR_NULL(t2);
    CU_ASSERT(err && g_str_has_prefix(err->message, "t.json: job pipe: structure: tp x pp x dp"));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    const char *mixed = "{\"jobs\": [{\"id\": \"x\", \"gpus\": 1, \"start_s\": 0, \"end_s\": 1,"
                        " \"model\": {\"compute_s\": 1, \"structure\": {\"fwd_s\": 1,"
                        " \"bwd_s\": 1}}}]}";
    trace *t3 = trace_json_parse(mixed, strlen(mixed), "t.json", &err);
    CU_ASSERT_PTR_NULL(t3);
    CU_ASSERT(err && strstr(err->message, "only the \"structure\" member"));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"defaults", test_structure_defaults},
        {"stages", test_structure_stages},
        {"bad", test_structure_bad},
        {"hosts", test_structure_hosts},
        {"trace", test_structure_trace},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("structure", cases);
}
