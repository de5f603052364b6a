/* test_mdot.c - suite "mdot": the MDOT predictor (traces/mdot*.c): graph
 * checks, the graph positional encoding, batch rescaling, the batch-affine
 * readout on hand-made weights, the training-range warnings, and the C
 * forward pass against the PyTorch reference.  Not here: the replay's use
 * (test_mdot_compute.c), the CLI (mdot_cli.sh).
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
        {"{\"batch\":-4,\"ops\":[" OP("[]") "]}", "batch: -4 is outside [1, 1000000000]"},
        {"{\"batch\":2.5,\"ops\":[" OP("[]") "]}", "batch: expected a whole number"},
        {"{\"batch\":2e9,\"ops\":[" OP("[]") "]}", "batch: 2000000000 is outside"},
        {"{\"batch\":2,\"ops\":[{\"type\":\"conv\",\"flops\":1,\"bytes_read\":1,"
         "\"bytes_written\":1,\"preds\":[],\"config\":{\"cin\":-3}}]}",
         "ops[0].config.cin: -3 is outside [0, 1e+18]"},
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
 * batch 4: FLOPs 56320, read (1984 - 448) * 2 + 448 = 3520 B, written 4096 B.
 * Its features do not depend on the batch: per sample 28160 / 2 = 14080
 * FLOPs and (1984 - 448 + 2048) / 2 = 1792 activation bytes, 448 parameter
 * bytes, at batch 2 and at batch 4 alike. */
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
    static const double raw[MDOT__N_FEAT] = {9, 1, 1, 3, 4, 192, 256, 112, 14080, 1792, 448};
    double f2[MDOT__N_FEAT], f4[MDOT__N_FEAT];
    mdot__op_features(&g->ops[0], mdot_graph_batch(g), f2);
    mdot__op_features(&g4->ops[0], mdot_graph_batch(g4), f4);
    for (size_t i = 0; i < MDOT__N_FEAT; i++) {
        TEST_ASSERT_CLOSE(f4[i], log1p(raw[i]), 1e-12);
        TEST_ASSERT_CLOSE(f2[i], log1p(raw[i]), 1e-12);
    }
    CU_ASSERT_PTR_NULL(mdot_graph_with_batch(g, -1, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_PTR_NULL(mdot_graph_with_batch(g, 1000000001, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
}

/* Weights by hand: d = 4, no encoder layer, every weight 0, so every
 * operator's encoding is 0, the final layer norm gives 0 and the three
 * corrections are the output biases: u = (ln 2, 0, ln 3), e^u = (2, 1, 3).
 * Prior: tau = 1e-5 s, P = 1e9 FLOP/s, BW = 1e8 B/s.  Training range:
 * batch [2, 16], 1..10 operators, 1e3..1e9 FLOPs, conv seen, relu not. */
static char *hand_weights(void)
{
    const char *zeros4 = "{\"shape\":[4],\"data\":[0,0,0,0]}";
    GString *s = g_string_new(NULL);
    g_string_append_printf(
        s, "{\"version\":\"%s\",\"device\":\"hand\",\"device_name\":\"by hand\","
        "\"precision\":\"fp32\",\"d_model\":4,\"heads\":1,\"ffn\":4,\"layers\":0,"
        "\"window\":0,\"pe\":\"none\",\"vocab\":[\"conv\",\"relu\"],"
        "\"range\":{\"batch\":[2,16],\"ops\":[1,10],\"flops\":[1e3,1e9],"
        "\"type_ops\":{\"conv\":5,\"relu\":0}},\"tensors\":{"
        "\"type_emb.weight\":{\"shape\":[2,4],\"data\":[0,0,0,0,0,0,0,0]},"
        "\"cfg.weight\":{\"shape\":[4,8],\"data\":[%s]},\"cfg.bias\":%s,"
        "\"load.weight\":{\"shape\":[4,3],\"data\":[0,0,0,0,0,0,0,0,0,0,0,0]},"
        "\"load.bias\":%s,\"ln_f.weight\":{\"shape\":[4],\"data\":[1,1,1,1]},"
        "\"ln_f.bias\":%s,\"out.weight\":{\"shape\":[3,4],\"data\":[0,0,0,0,0,0,0,0,0,0,0,0]},"
        "\"out.bias\":{\"shape\":[3],\"data\":[%.17g,0,%.17g]},"
        "\"mu\":{\"shape\":[11],\"data\":[0,0,0,0,0,0,0,0,0,0,0]},"
        "\"sd\":{\"shape\":[11],\"data\":[1,1,1,1,1,1,1,1,1,1,1]},"
        "\"prior\":{\"shape\":[3],\"data\":[1e-5,1e9,1e8]}}}",
        MDOT_VERSION, "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0", zeros4,
        zeros4, zeros4, log(2.0), log(3.0));
    return g_string_free(s, FALSE);
}

/* Two operators at batch 4: conv with 8e6 FLOPs, 4e5 B read (1e5 of them
 * parameters), 2e5 B written; relu with 4e5 FLOPs, 2e5 B read, 2e5 written.
 * Per sample: conv f = 2e6, a = (4e5 - 1e5 + 2e5) / 4 = 1.25e5, p = 1e5;
 * relu f = 1e5, a = (2e5 + 2e5) / 4 = 1e5, p = 0.  With e^u = (2, 1, 3):
 *   fixed      = 2 * (2 tau) + 3 * 1e5 / BW = 4e-5 + 3e-3 = 3.04e-3 s
 *   per sample = (2e6 + 1e5) / P + 3 * (1.25e5 + 1e5) / BW
 *              = 2.1e-3 + 6.75e-3 = 8.85e-3 s
 * so T(4) = 3.04e-3 + 4 * 8.85e-3 = 0.03844 s and T(4096) = 36.25264 s:
 * twice the batch never more than twice the time, and at 4096 the time per
 * sample is within 1e-4 of the per-sample cost (3.04e-3 / 4096 / 8.85e-3 =
 * 8.4e-5).  The FLOPs at batch 4 are 8.4e6, in the range; at 4096 they are
 * 8.6e9, above 1e9. */
static const char TWO_OPS[] =
    "{\"batch\":4,\"ops\":[{\"type\":\"conv\",\"flops\":8e6,\"bytes_read\":4e5,"
    "\"param_bytes\":1e5,\"bytes_written\":2e5,\"preds\":[]},{\"type\":\"relu\","
    "\"flops\":4e5,\"bytes_read\":2e5,\"bytes_written\":2e5,\"preds\":[0]}]}";

static void test_mdot_scaling_target(void)
{
    GError *err = NULL;
    g_autofree char *w = hand_weights();
    g_autoptr(mdot_model) m = mdot_model_load_json(w, strlen(w), "hand.json", &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(m != NULL);
    g_autoptr(mdot_graph) g = parse(TWO_OPS, &err);
    CU_ASSERT_FATAL(g != NULL);
    mdot_estimate e;
    double fx[2], ps[2];
    CU_ASSERT_FATAL(mdot_estimate_graph(m, g, &e, fx, ps, &err));
    TEST_ASSERT_CLOSE(e.fixed_s, 3.04e-3, 1e-12);
    TEST_ASSERT_CLOSE(e.per_sample_s, 8.85e-3, 1e-12);
    TEST_ASSERT_CLOSE(fx[0], 2e-5 + 3e-3, 1e-12);      /* conv: 2 tau + 3 p / BW */
    TEST_ASSERT_CLOSE(ps[1], 1e5 / 1e9 + 3e5 / 1e8, 1e-12); /* relu: f / P + 3 a / BW */
    TEST_ASSERT_CLOSE(mdot_predict_s(m, g, &err), 0.03844, 1e-12);
    TEST_ASSERT_CLOSE(mdot_estimate_at(&e, 4096), 36.25264, 1e-12);
    for (double b = 1; b < 4096; b *= 2) {
        double r = mdot_estimate_at(&e, 2 * b) / mdot_estimate_at(&e, b);
        CU_ASSERT(r > 1 && r <= 2);
    }
    /* the same graph recorded at batch 8 gives the same estimate */
    g_autoptr(mdot_graph) g8 = mdot_graph_with_batch(g, 8, &err);
    mdot_estimate e8;
    CU_ASSERT_FATAL(mdot_estimate_graph(m, g8, &e8, NULL, NULL, &err));
    TEST_ASSERT_CLOSE(e8.fixed_s, e.fixed_s, 1e-12);
    TEST_ASSERT_CLOSE(e8.per_sample_s, e.per_sample_s, 1e-12);
}

/* The same weights' range: batch 4 only lacks relu in training; batch 4096
 * is outside [2, 16] and its 8.6e9 FLOPs outside [1e3, 1e9]; 2 operators
 * are inside [1, 10].  Each warning names the value and the range. */
static void test_mdot_range_warnings(void)
{
    GError *err = NULL;
    g_autofree char *w = hand_weights();
    g_autoptr(mdot_model) m = mdot_model_load_json(w, strlen(w), "hand.json", &err);
    g_autoptr(mdot_graph) g = parse(TWO_OPS, &err);
    CU_ASSERT_FATAL(m && g);
    g_autoptr(GPtrArray) in = mdot_model_range_warnings(m, g, 4);
    CU_ASSERT_EQUAL_FATAL(in->len, 1);
    CU_ASSERT(strstr(in->pdata[0], "operator types no training row of hand used") != NULL);
    CU_ASSERT(strstr(in->pdata[0], "relu (1)") != NULL);
    g_autoptr(GPtrArray) out = mdot_model_range_warnings(m, g, 4096);
    CU_ASSERT_EQUAL_FATAL(out->len, 3);
    CU_ASSERT_STRING_EQUAL(out->pdata[0], "g.json: batch 4096 is outside the training range "
                                          "[2, 16] (the prediction is linear in the batch there)");
    CU_ASSERT_STRING_EQUAL(out->pdata[1], "g.json: forward FLOPs per iteration 8.602e+09 is "
                                          "outside the training range [1000, 1e+09]");
}

static void test_mdot_unknown_type_and_device(void)
{
    static const char odd[] = "{\"batch\":1,\"ops\":[{\"type\":\"warp_drive\",\"flops\":1,"
                              "\"bytes_read\":1,\"bytes_written\":1,\"preds\":[]}]}";
    GError *err = NULL;
    g_autoptr(mdot_model) m = mdot_model_load_default(NULL, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(m != NULL);
    CU_ASSERT_STRING_EQUAL(mdot_model_device(m), "cpu1");
    g_autoptr(mdot_graph) g = parse(odd, &err);
    CU_ASSERT_FATAL(g != NULL);
    CU_ASSERT(mdot_predict_s(m, g, &err) < 0);
    CU_ASSERT(err && strstr(err->message, "unknown operator type 'warp_drive'"));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_PTR_NULL(mdot_model_load_default("a100", &err));
    CU_ASSERT(err && strstr(err->message, "no MDOT weights for device 'a100' (weights exist "
                                          "for: cpu1)"));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT(mdot_model_has_device("CPU1"));
    CU_ASSERT_FALSE(mdot_model_has_device("h100"));
}

/* Every row of each device's dataset through its embedded weights equals
 * train.py's double-precision prediction (tests/data/mdot-reference-DEVICE.json)
 * to 1e-5 relative. */
static void check_reference(const char *device)
{
    GError *err = NULL;
    g_autoptr(mdot_model) m = mdot_model_load_default(device, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(m != NULL);
    g_autofree char *rp =
        g_strdup_printf("%s/tests/data/mdot-reference-%s.json", CCS_SOURCE_DIR, device);
    g_autofree char *dp =
        g_strdup_printf("%s/scripts/mdot/data/%s.jsonl.gz", CCS_SOURCE_DIR, device);
    g_autoptr(GBytes) refb = ccs_input_read(rp, true, &err);
    g_autoptr(GBytes) data = ccs_input_read(dp, true, &err);
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

static void test_mdot_matches_reference(void)
{
    g_auto(GStrv) devices = g_strsplit(mdot_model_devices(), ",", -1);
    for (size_t i = 0; devices[i]; i++)
        check_reference(devices[i]);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"diamond_pe", test_mdot_diamond_pe},
        {"topological_sort", test_mdot_topological_sort},
        {"bad_graphs", test_mdot_bad_graphs},
        {"batch_scaling", test_mdot_batch_scaling},
        {"scaling_target", test_mdot_scaling_target},
        {"range_warnings", test_mdot_range_warnings},
        {"unknown_type_and_device", test_mdot_unknown_type_and_device},
        {"matches_reference", test_mdot_matches_reference},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("mdot", cases);
}
