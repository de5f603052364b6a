/* test_mdot.c - suite "mdot": the MDOT predictor (traces/mdot*.c): graph
 * checks, the graph positional encoding, batch rescaling, and the C forward
 * pass against the PyTorch reference.  Not here: the CLI (mdot_cli.sh).
 */
#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/input.h"
#include "ccs-config.h"
#include "test_util.h"
#include "traces/mdot-private.h"
#include "traces/mdot.h"

static mdot_graph *parse(const char *json, GError **err)
{
    g_autoptr(cJSON) root = cJSON_Parse(json);
    CU_ASSERT_FATAL(root != NULL);
    return mdot_graph_from_cjson(root, "g.json", err);
}

#define OP(preds) "{\"type\":\"relu\",\"flops\":1,\"bytes_read\":4,\"bytes_written\":4," \
                  "\"preds\":" preds "}"
/* A -> B, A -> C, B -> D, C -> D */
static const char DIAMOND[] =
    "{\"batch\":2,\"ops\":[" OP("[]") "," OP("[0]") "," OP("[0]") "," OP("[1,2]") "]}";

/* d = 8, so each half has h = 4 dims: [sin x, cos x, sin(x/100), cos(x/100)]
 * (10000^(2/4) = 100).  Depths A..D are 0, 1, 1, 2 (longest path from A);
 * heights 2, 1, 1, 0 (longest path to D).  sin 1 = 0.8414709848,
 * cos 1 = 0.5403023059, sin 0.01 = 0.0099998333, cos 0.01 = 0.9999500004,
 * sin 2 = 0.9092974268, cos 2 = -0.4161468365, sin 0.02 = 0.0199986667,
 * cos 0.02 = 0.9998000067; x = 0 gives [0, 1, 0, 1]. */
static void test_mdot_diamond_pe(void)
{
    static const double zero[4] = {0, 1, 0, 1};
    static const double one[4] = {0.8414709848, 0.5403023059, 0.0099998333, 0.9999500004};
    static const double two[4] = {0.9092974268, -0.4161468365, 0.0199986667, 0.9998000067};
    const double *want[4][2] = {{zero, two}, {one, one}, {one, one}, {two, zero}};
    GError *err = NULL;
    g_autoptr(mdot_graph) g = parse(DIAMOND, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(g != NULL);
    double pe[4 * 8];
    mdot_graph_pe(g, 8, pe);
    for (size_t v = 0; v < 4; v++)
        for (size_t half = 0; half < 2; half++)
            for (size_t i = 0; i < 4; i++)
                TEST_ASSERT_CLOSE(pe[v * 8 + half * 4 + i], want[v][half][i], 1e-9);
}

/* The diamond listed D, B, C, A is put back in topological order (lowest
 * ready index first: A, then B and C as listed, then D), so it gets the
 * same encodings as the ordered file and D keeps its two predecessors. */
static void test_mdot_topological_sort(void)
{
    static const char reversed[] =
        "{\"batch\":2,\"ops\":[" OP("[1,2]") "," OP("[3]") "," OP("[3]") "," OP("[]") "]}";
    GError *err = NULL;
    g_autoptr(mdot_graph) g = parse(reversed, &err);
    g_autoptr(mdot_graph) ref = parse(DIAMOND, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(g && ref);
    double a[32], b[32];
    mdot_graph_pe(g, 8, a);
    mdot_graph_pe(ref, 8, b);
    for (size_t i = 0; i < 32; i++)
        TEST_ASSERT_CLOSE(a[i], b[i], 1e-12);
    CU_ASSERT_EQUAL(g->ops[3].n_preds, 2);
}

/* Bad graphs: each a clear message naming the file and key. */
static void test_mdot_bad_graphs(void)
{
    static const struct { const char *json, *needle; } cases[] = {
        {"{\"batch\":2,\"ops\":[" OP("[1]") "," OP("[0]") "]}", "cycle"},
        {"{\"batch\":-4,\"ops\":[" OP("[]") "]}", "batch: -4 is outside [1, 1000000]"},
        {"{\"batch\":2.5,\"ops\":[" OP("[]") "]}", "batch: expected a whole number, got 2.5"},
        {"{\"ops\":[" OP("[]") "]}", "batch: missing"},
        {"{\"batch\":2,\"ops\":[{\"type\":\"relu\",\"bytes_read\":1,\"bytes_written\":1,"
         "\"preds\":[]}]}", "ops[0].flops: missing"},
        {"{\"batch\":2,\"ops\":[{\"flops\":1,\"bytes_read\":1,\"bytes_written\":1,"
         "\"preds\":[]}]}", "ops[0].type: missing"},
        {"{\"batch\":2,\"ops\":[" OP("[]") "," OP("[5]") "]}", "ops[1].preds"},
        {"{\"batch\":2,\"ops\":[" OP("[0]") "]}", "ops[0].preds"},
        {"{\"batch\":2,\"ops\":[{\"type\":\"relu\",\"flops\":-1,\"bytes_read\":1,"
         "\"bytes_written\":1,\"preds\":[]}]}", "ops[0].flops: -1 is outside [0, 1e+18]"},
        {"{\"batch\":2,\"ops\":[{\"type\":\"relu\",\"flops\":1e308,\"bytes_read\":1,"
         "\"bytes_written\":1,\"preds\":[]}]}", "ops[0].flops: 1e+308 is outside [0, 1e+18]"},
        {"{\"batch\":2,\"ops\":[]}", "ops: must be a non-empty array"},
        {"[1]", "expected a JSON object, got an array"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GError *err = NULL;
        g_autoptr(mdot_graph) g = parse(cases[i].json, &err);
        CU_ASSERT_PTR_NULL(g);
        CU_ASSERT_FATAL(err != NULL);
        if (!strstr(err->message, cases[i].needle) || !g_str_has_prefix(err->message, "g.json: "))
            fprintf(stderr, "case %zu: got '%s', want '%s'\n", i, err->message, cases[i].needle);
        CU_ASSERT(strstr(err->message, cases[i].needle) != NULL);
        g_clear_error(&err);
    }
}

/* A conv at batch 2 with 28160 FLOPs, 1984 B read of which 448 B are
 * parameters, 2048 B written (tests/mdot/test_collect.py's hand count); at
 * batch 4: FLOPs 56320, read (1984 - 448) * 2 + 448 = 3520 B, written 4096 B. */
static void test_mdot_batch_scaling(void)
{
    static const char conv[] =
        "{\"batch\":2,\"ops\":[{\"type\":\"conv\",\"flops\":28160,\"bytes_read\":1984,"
        "\"bytes_written\":2048,\"param_bytes\":448,\"params\":112,\"preds\":[],"
        "\"config\":{\"k\":[3,3],\"s\":[1,1],\"g\":1,\"cin\":3,\"cout\":4,"
        "\"in\":[3,8,8],\"out\":[4,8,8]}}]}";
    GError *err = NULL;
    g_autoptr(mdot_graph) g = parse(conv, &err);
    CU_ASSERT_FATAL(g != NULL);
    g_autoptr(mdot_graph) g4 = mdot_graph_with_batch(g, 4, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(g4 != NULL);
    CU_ASSERT_EQUAL(mdot_graph_batch(g4), 4);
    TEST_ASSERT_CLOSE(g4->ops[0].flops, 56320, 1e-12);
    TEST_ASSERT_CLOSE(g4->ops[0].bytes_read, 3520, 1e-12);
    TEST_ASSERT_CLOSE(g4->ops[0].bytes_written, 4096, 1e-12);
    TEST_ASSERT_CLOSE(mdot_graph_params(g4), 112, 1e-12);
    /* config: kernel 3*3 = 9, stride 1, groups 1, cin 3, cout 4, 192 and
     * 256 elements per sample, 112 params; features are their log1p */
    double f[MDOT__N_FEAT];
    mdot__op_features(&g4->ops[0], f);
    static const double raw[MDOT__N_FEAT] = {9, 1, 1, 3, 4, 192, 256, 112, 56320, 3520, 4096};
    for (size_t i = 0; i < MDOT__N_FEAT; i++)
        TEST_ASSERT_CLOSE(f[i], log1p(raw[i]), 1e-12);
    CU_ASSERT_PTR_NULL(mdot_graph_with_batch(g, -1, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
}

static void test_mdot_unknown_type_and_device(void)
{
    static const char odd[] = "{\"batch\":1,\"ops\":[{\"type\":\"warp_drive\",\"flops\":1,"
                              "\"bytes_read\":1,\"bytes_written\":1,\"preds\":[]}]}";
    GError *err = NULL;
    g_autoptr(mdot_model) m = mdot_model_load_default(NULL, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(m != NULL);
    g_autoptr(mdot_graph) g = parse(odd, &err);
    CU_ASSERT_FATAL(g != NULL);
    CU_ASSERT(mdot_predict_s(m, g, &err) < 0);
    CU_ASSERT(err && strstr(err->message, "unknown operator type 'warp_drive'"));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_PTR_NULL(mdot_model_load_default("tpu9", &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
}

/* Every row of the shipped dataset through the embedded weights equals
 * train.py's double-precision prediction (tests/data/mdot-reference.json)
 * to 1e-5 relative. */
static void test_mdot_matches_reference(void)
{
    GError *err = NULL;
    g_autoptr(mdot_model) m = mdot_model_load_default("cpu1", &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(m != NULL);
    g_autoptr(GBytes) refb =
        ccs_input_read(CCS_SOURCE_DIR "/tests/data/mdot-reference.json", true, &err);
    g_autoptr(GBytes) data =
        ccs_input_read(CCS_SOURCE_DIR "/scripts/mdot/data/cpu1.jsonl.gz", true, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(refb && data);
    g_autoptr(cJSON) ref = cJSON_Parse(g_bytes_get_data(refb, NULL));
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(ref, "version")->valuestring,
                           mdot_model_version(m));
    const cJSON *want = cJSON_GetObjectItem(ref, "time_s");
    g_auto(GStrv) lines = g_strsplit(g_bytes_get_data(data, NULL), "\n", -1);
    size_t checked = 0;
    for (size_t i = 0; lines[i]; i++) {
        if (!*lines[i])
            continue;
        g_autoptr(cJSON) row = cJSON_Parse(lines[i]);
        g_autoptr(mdot_graph) g = mdot_graph_from_cjson(row, "row", &err);
        TEST_ASSERT_NO_ERROR(err);
        CU_ASSERT_FATAL(g != NULL);
        const cJSON *w = cJSON_GetObjectItem(want, mdot_graph_name(g));
        CU_ASSERT_FATAL(cJSON_IsNumber(w));
        double got = mdot_predict_s(m, g, &err);
        TEST_ASSERT_NO_ERROR(err);
        TEST_ASSERT_CLOSE(got, w->valuedouble, 1e-5);
        CU_ASSERT(fabs(got - w->valuedouble) <= 1e-5 * w->valuedouble);
        checked++;
    }
    CU_ASSERT_EQUAL(checked, (size_t)cJSON_GetArraySize(want));
    CU_ASSERT(checked > 0);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"diamond_pe", test_mdot_diamond_pe},
        {"topological_sort", test_mdot_topological_sort},
        {"bad_graphs", test_mdot_bad_graphs},
        {"batch_scaling", test_mdot_batch_scaling},
        {"unknown_type_and_device", test_mdot_unknown_type_and_device},
        {"matches_reference", test_mdot_matches_reference},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("mdot", cases);
}
