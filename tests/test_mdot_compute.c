/* test_mdot_compute.c - suite "mdot_compute": a replay's compute times from
 * MDOT (traces/mdot_compute.c): the refusal and override rules, the graph
 * library (embedded and a scenario's own), tensor/pipeline division, stage
 * times for per-stage jobs and structured jobs.  Not here: the predictor (test_mdot.c).
 */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "ccs-config.h"
#include "test_util.h"
#include "traces/catalog.h"
#include "traces/mdot.h"
#include "traces/mdot_compute.h"
#include "traces/structure.h"

/* A replay on an A100 with no A100 weights is refused, and the message
 * names the devices that have weights and the override; an override naming
 * no device with weights is refused too. */
static void test_mdot_compute_refusal(void)
{
    GError *err = NULL;
    mdot_compute_options o = {"a100", NULL, NULL};
    CU_ASSERT_PTR_NULL(mdot_compute_new(&o, &err));
    CU_ASSERT_FATAL(err != NULL);
    CU_ASSERT(strstr(err->message, "MDOT has no weights for GPU 'a100' (weights exist for: cpu1)") !=
              NULL);
    CU_ASSERT(strstr(err->message, "--mdot-weights DEVICE (scenario sim.mdot_weights)") != NULL);
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    o.weights = "tpu9";
    CU_ASSERT_PTR_NULL(mdot_compute_new(&o, &err));
    CU_ASSERT(err && strstr(err->message, "--mdot-weights: no MDOT weights for device 'tpu9'"));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
}

/* --mdot-weights cpu1 on an A100: accepted, marked as an override, one
 * warning saying whose times they are, and run.json's object says so. */
static void test_mdot_compute_override(void)
{
    GError *err = NULL;
    mdot_compute_options o = {"a100", "cpu1", NULL};
    g_autoptr(mdot_compute) mc = mdot_compute_new(&o, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(mc != NULL);
    CU_ASSERT(mdot_compute_overridden(mc));
    CU_ASSERT_STRING_EQUAL(mdot_compute_weights(mc), "cpu1");
    const GPtrArray *w = mdot_compute_warnings(mc);
    CU_ASSERT_EQUAL_FATAL(w->len, 1);
    CU_ASSERT(strstr(w->pdata[0], "not of the replay's GPU a100") != NULL);
    g_autoptr(cJSON) j = mdot_compute_to_json(mc);
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "override")));
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(j, "weights")->valuestring, "cpu1");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(j, "gpu")->valuestring, "a100");
    /* the device's own weights are no override */
    mdot_compute_options same = {"cpu1", NULL, NULL};
    g_autoptr(mdot_compute) mc2 = mdot_compute_new(&same, &err);
    CU_ASSERT_FATAL(mc2 != NULL);
    CU_ASSERT_FALSE(mdot_compute_overridden(mc2));
    CU_ASSERT_EQUAL(mdot_compute_warnings(mc2)->len, 0);
}

/* The seconds of the embedded library graph `file` at batch, by the
 * predictor directly (the reference for the library lookups). */
static double direct_s(const char *file, int64_t batch)
{
    GError *err = NULL;
    g_autofree char *path = g_strdup_printf("%s/traces/graphs/%s", CCS_SOURCE_DIR, file);
    g_autoptr(mdot_graph) g = mdot_graph_load(path, &err);
    g_autoptr(mdot_model) m = mdot_model_load_default("cpu1", &err);
    TEST_ASSERT_NO_ERROR(err);
    mdot_estimate e;
    CU_ASSERT_FATAL(g && m && mdot_estimate_graph(m, g, &e, NULL, NULL, &err));
    return mdot_estimate_at(&e, (double)batch);
}

/* Catalog models through the embedded library: ResNet-50 is its graph at
 * 256 images (tp = pp = 1); GPT-13B its graph at 32 sequences divided by
 * tp = 8; Non-training keeps the catalog's time; a name the library lacks
 * is an error. */
static void test_mdot_compute_catalog(void)
{
    GError *err = NULL;
    mdot_compute_options o = {"a100", "cpu1", NULL};
    g_autoptr(mdot_compute) mc = mdot_compute_new(&o, &err);
    g_autoptr(catalog) cat = catalog_load_default(&err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(mc && cat);
    bool kept = true;
    const catalog_model *r50 = catalog_find(cat, "ResNet-50");
    double t = mdot_compute_catalog_s(mc, r50, CATALOG_GPU_A100, &kept, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FALSE(kept);
    TEST_ASSERT_CLOSE(t, direct_s("resnet50.json.gz", 256), 1e-12);
    const catalog_model *g13 = catalog_find(cat, "GPT-13B");
    CU_ASSERT_EQUAL(g13->tp * g13->pp, 8);
    t = mdot_compute_catalog_s(mc, g13, CATALOG_GPU_A100, &kept, &err);
    TEST_ASSERT_CLOSE(t, direct_s("gpt-13b.json.gz", 32) / 8, 1e-12);
    const catalog_model *nt = catalog_find(cat, "Non-training");
    t = mdot_compute_catalog_s(mc, nt, CATALOG_GPU_A100, &kept, &err);
    CU_ASSERT(kept);
    TEST_ASSERT_CLOSE(t, nt->compute_s[CATALOG_GPU_A100], 0);
    g_autoptr(cJSON) j = mdot_compute_to_json(mc);
    CU_ASSERT_STRING_EQUAL(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "catalog_kept"), 0)
                               ->valuestring, "Non-training");
    catalog_model odd = *r50;
    odd.name = "No-such-model";
    CU_ASSERT(mdot_compute_catalog_s(mc, &odd, CATALOG_GPU_A100, &kept, &err) < 0);
    CU_ASSERT(err && strstr(err->message, "has no graph for model 'No-such-model'"));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    /* every catalog entry has a library entry */
    for (size_t i = 0; i < catalog_count(cat); i++) {
        CU_ASSERT(mdot_compute_catalog_s(mc, catalog_get(cat, i), CATALOG_GPU_A100, &kept,
                                         &err) >= 0);
        TEST_ASSERT_NO_ERROR(err);
    }
}

/* A library of one's own: its file named relative to the index; the model
 * "Mine" is that graph at batch 8.  Graph files of the index's directory
 * are found whatever the working directory. */
static void test_mdot_compute_own_library(void)
{
    GError *err = NULL;
    g_autofree char *dir = g_dir_make_tmp("mdot-lib-XXXXXX", &err);
    g_autofree char *sub = g_build_filename(dir, "graphs", NULL);
    g_mkdir(sub, 0700);
    g_autofree char *lib = g_build_filename(sub, "lib.json", NULL);
    g_autofree char *gp = g_build_filename(sub, "mine.json", NULL);
    g_file_set_contents(lib, "{\"graphs\": {\"Mine\": {\"file\": \"mine.json\", \"batch\": 8}}}",
                        -1, &err);
    g_file_set_contents(gp, "{\"batch\":2,\"ops\":[{\"type\":\"linear\",\"flops\":4e6,"
                            "\"bytes_read\":2e5,\"param_bytes\":1e5,\"bytes_written\":1e4,"
                            "\"preds\":[],\"config\":{\"cin\":100,\"cout\":50}},"
                            "{\"type\":\"relu\",\"flops\":100,\"bytes_read\":400,"
                            "\"bytes_written\":400,\"preds\":[0]}]}", -1, &err);
    TEST_ASSERT_NO_ERROR(err);
    mdot_compute_options o = {"a100", "cpu1", lib};
    g_autoptr(mdot_compute) mc = mdot_compute_new(&o, &err);
    CU_ASSERT_FATAL(mc != NULL);
    catalog_model mine = {.name = "Mine", .tp = 1, .pp = 1};
    bool kept;
    double t = mdot_compute_catalog_s(mc, &mine, CATALOG_GPU_A100, &kept, &err);
    TEST_ASSERT_NO_ERROR(err);
    TEST_ASSERT_CLOSE(t, mdot_compute_graph_s(mc, gp, 8, &err), 1e-12);
    CU_ASSERT(t > 0);
    g_remove(gp);
    g_remove(lib);
    g_rmdir(sub);
    g_rmdir(dir);
}

/* Per-stage times of LLaMA-7B, 4 stages, micro-batch 1, tp 2, forward
 * share 1/3: the stages add up to the whole graph's time / tp, each stage
 * splits 1 : 2 between forward and backward, every stage has work, and no
 * stage holds more than half of it (32 equal layers cut in 4). */
static void test_mdot_compute_stages(void)
{
    GError *err = NULL;
    mdot_compute_options o = {"a100", "cpu1", NULL};
    g_autoptr(mdot_compute) mc = mdot_compute_new(&o, &err);
    CU_ASSERT_FATAL(mc != NULL);
    double fwd[4], bwd[4], sum = 0;
    CU_ASSERT_FATAL(mdot_compute_stage_times(mc, "LLaMA-7B", 1, 4, 2, 1.0 / 3, fwd, bwd, &err));
    double whole = direct_s("llama-7b.json.gz", 1) / 2;
    for (int k = 0; k < 4; k++) {
        TEST_ASSERT_CLOSE(bwd[k], 2 * fwd[k], 1e-12);
        CU_ASSERT(fwd[k] > 0);
        CU_ASSERT(fwd[k] + bwd[k] < whole / 2);
        sum += fwd[k] + bwd[k];
    }
    TEST_ASSERT_CLOSE(sum, whole, 1e-9);
    CU_ASSERT_FALSE(mdot_compute_stage_times(mc, "Non-training", 1, 2, 1, 0.5, fwd, bwd, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_FALSE(mdot_compute_stage_times(mc, "MNIST-CNN", 1, 100, 1, 0.5, fwd, bwd, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
}

/* A structured LLaMA-7B job (library batch 4 samples per replica), 2
 * micro-batches of 4 / 2 = 2 samples, tp 2, 4 stages whose catalog times
 * split forward : backward as 1 : 2: MDOT replaces every stage's times
 * with the library graph at micro-batch 2 cut in 4, keeping the 1 : 2
 * split, so the stages add up to the whole graph at batch 2 over tp 2.  With
 * 3 micro-batches of 4 / 3 samples: the whole graph is affine, T(x) = fixed
 * + x per_sample, so per_sample = T(2) - T(1), fixed = 2 T(1) - T(2) and
 * T(4/3) = 2/3 T(1) + 1/3 T(2), over tp 2.  A micro-batch given (3, the
 * recipe's) wins: the stages add up to T(3) / 2.  A model whose library entry
 * keeps the catalog time (MIND) is left as it was and listed as kept. */
static void test_mdot_compute_structure(void)
{
    GError *err = NULL;
    mdot_compute_options o = {"a100", "cpu1", NULL};
    g_autoptr(mdot_compute) mc = mdot_compute_new(&o, &err);
    CU_ASSERT_FATAL(mc != NULL);
    structure_stage st[4];
    for (int k = 0; k < 4; k++)
        st[k] = (structure_stage){.layers = 8, .fwd_s = 1, .bwd_s = 2};
    job_structure s = {.tp = 2, .pp = 4, .dp = 1, .micro_batches = 2, .stages = st};
    bool kept = true;
    CU_ASSERT_FATAL(mdot_compute_structure(mc, "LLaMA-7B", 0, &s, &kept, &err));
    CU_ASSERT_FALSE(kept);
    double fwd[4], bwd[4], sum = 0;
    CU_ASSERT_FATAL(mdot_compute_stage_times(mc, "LLaMA-7B", 2, 4, 2, 1.0 / 3, fwd, bwd, &err));
    for (int k = 0; k < 4; k++) {
        TEST_ASSERT_CLOSE(st[k].fwd_s, fwd[k], 1e-12);
        TEST_ASSERT_CLOSE(st[k].bwd_s, 2 * st[k].fwd_s, 1e-12);
        sum += st[k].fwd_s + st[k].bwd_s;
    }
    TEST_ASSERT_CLOSE(sum, direct_s("llama-7b.json.gz", 2) / 2, 1e-9);
    s.micro_batches = 3;
    CU_ASSERT_FATAL(mdot_compute_structure(mc, "LLaMA-7B", 0, &s, &kept, &err));
    sum = 0;
    for (int k = 0; k < 4; k++)
        sum += st[k].fwd_s + st[k].bwd_s;
    double t1 = direct_s("llama-7b.json.gz", 1), t2 = direct_s("llama-7b.json.gz", 2);
    TEST_ASSERT_CLOSE(sum, (2.0 / 3 * t1 + 1.0 / 3 * t2) / 2, 1e-9);
    CU_ASSERT_FATAL(mdot_compute_structure(mc, "LLaMA-7B", 3, &s, &kept, &err));
    sum = 0;
    for (int k = 0; k < 4; k++)
        sum += st[k].fwd_s + st[k].bwd_s;
    TEST_ASSERT_CLOSE(sum, direct_s("llama-7b.json.gz", 3) / 2, 1e-9);
    for (int k = 0; k < 4; k++)
        st[k] = (structure_stage){.layers = 8, .fwd_s = 1, .bwd_s = 2};
    CU_ASSERT_FATAL(mdot_compute_structure(mc, "MIND", 0, &s, &kept, &err));
    CU_ASSERT(kept);
    CU_ASSERT_EQUAL(st[0].fwd_s, 1);
    CU_ASSERT_EQUAL(st[3].bwd_s, 2);
    cJSON *rec = mdot_compute_to_json(mc);
    g_autofree char *json =
        cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(rec, "catalog_kept"));
    cJSON_Delete(rec);
    CU_ASSERT_STRING_EQUAL(json, "[\"MIND\"]");
    CU_ASSERT_FALSE(mdot_compute_structure(mc, "No-such-model", 0, &s, &kept, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"refusal", test_mdot_compute_refusal},
        {"override", test_mdot_compute_override},
        {"catalog", test_mdot_compute_catalog},
        {"own_library", test_mdot_compute_own_library},
        {"stages", test_mdot_compute_stages},
        {"structure", test_mdot_compute_structure},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("mdot_compute", cases);
}
