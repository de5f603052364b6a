/* test_limits_probes.c - every row of the limits table (base/limits.h)
 * fed through a reader of an input it covers: below its range, at its
 * ends, above it (test_limits.h).  Not here: the table's text and the
 * check itself (test_limits.c).
 *
 * The cases are generated from the table: for row L the values are
 * below (L.min / 2 for a positive min, else min - 1 for whole numbers and
 * min - max(|min|/2, 1) for others), L.min, 0 when L.zero_ok, L.max and
 * above (max + 1 for whole numbers, max * 1.5 for others).  A row without a probe fails the suite, so a new limit must
 * say which reader applies it.
 */
#include "test_limits.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/limits.h"
#include "sim/config.h"
#include "sim/experiments/optimal_gap.h"
#include "sim/experiments/sweep.h"
#include "test_run.h"
#include "test_util.h"
#include "topo/topo.h"
#include "traces/catalog.h"
#include "traces/gen.h"
#include "traces/mdot.h"
#include "traces/trace.h"

/* "%.17g" of v (round-trips). */
static char *num(double v)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    return g_strdup(g_ascii_formatd(buf, sizeof buf, "%.17g", v));
}

static bool option(const char *key, double v, GError **error)
{
    g_autoptr(config) c = config_new();
    g_autofree char *text = num(v);
    return config_set_option(c, key, text, error);
}

static bool p_time(double v, GError **e) { return option("start_s", v, e); }
static bool p_interval(double v, GError **e) { return option("interval_s", v, e); }
static bool p_scale(double v, GError **e) { return option("time_scale", v, e); }
static bool p_levels(double v, GError **e) { return option("priority_levels", v, e); }
static bool p_channels(double v, GError **e) { return option("channels", v, e); }
static bool p_alpha(double v, GError **e) { return option("alpha_us", v, e); }
static bool p_buckets(double v, GError **e) { return option("buckets", v, e); }
static bool p_jitter(double v, GError **e) { return option("jitter_sigma", v, e); }
static bool p_shards(double v, GError **e) { return option("shards", v, e); }
static bool p_warmup(double v, GError **e) { return option("shard_warmup", v, e); }

/* One job (compute C s, [0, end] s) on a small fat-tree, window [0, win]
 * with the given interval, prepared (replay_new) but not run; extra is
 * appended to the scenario object. */
static bool prepare(double compute, double end, double win, double interval, const char *extra,
                    GError **error)
{
    g_autofree char *c = num(compute), *e = num(end), *w = num(win), *i = num(interval);
    g_autofree char *text = g_strdup_printf(
        "{\"topology\": \"fat-tree:k=4\", \"trace\": {\"jobs\": [{\"id\": \"j1\", \"gpus\": 1, "
        "\"start_s\": 0, \"end_s\": %s, \"model\": {\"compute_s\": %s}}]}, \"sim\": "
        "{\"start_s\": 0, \"end_s\": %s, \"interval_s\": %s}%s}",
        e, c, w, i, extra ? extra : "");
    test_run x;
    bool ok = test_run_prepare(&x, text, NULL, error);
    test_run_clear(&x);
    return ok;
}

static bool p_span(double v, GError **e)
{
    return prepare(1, 1, v, fmin(fmax(v, 1e-3), 1e8), NULL, e);
}
static bool p_rows(double v, GError **e) { return prepare(1, 1, v, 1, NULL, e); }

/* iterations = end / 0.0625 exactly (binary fractions) */
static bool p_iterations(double v, GError **e)
{
    double end = v * 0.0625;
    return prepare(0.0625, end, end, fmax(end, 1e-3), NULL, e);
}

static bool p_shift(double v, GError **e)
{
    g_autofree char *s = num(v);
    g_autofree char *extra = g_strdup_printf(
        ", \"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"j1\": {\"shift_s\": %s}}}", s);
    return prepare(1, 10, 10, 10, extra, e);
}

static bool trace_text(const char *job_fields, GError **error)
{
    g_autofree char *text =
        g_strdup_printf("{\"jobs\": [{\"id\": \"a\", \"start_s\": 0, \"end_s\": 1, %s}]}",
                        job_fields);
    g_autoptr(trace) t = trace_json_parse(text, strlen(text), "t.json", error);
    return t != NULL;
}

static bool p_gpus(double v, GError **e)
{
    g_autofree char *s = num(v);
    g_autofree char *f = g_strdup_printf("\"gpus\": %s", s);
    return trace_text(f, e);
}

/* A model object {"compute_s": 1, key: v} (compute_s itself: v alone). */
static bool model(const char *key, double v, GError **error)
{
    g_autofree char *s = num(v);
    g_autofree char *text = strcmp(key, "compute_s") == 0
                                ? g_strdup_printf("{\"compute_s\": %s}", s)
                                : g_strdup_printf("{\"compute_s\": 1, \"%s\": %s}", key, s);
    g_autoptr(cJSON) o = cJSON_Parse(text);
    g_autoptr(catalog_model) m = catalog_model_from_cjson(o, "m", NULL, error);
    return m != NULL;
}

static bool p_compute(double v, GError **e) { return model("compute_s", v, e); }
static bool p_opt(double v, GError **e) { return model("opt_s", v, e); }
static bool p_bytes(double v, GError **e) { return model("comm_bytes", v, e); }
static bool p_frac(double v, GError **e) { return model("comm_start_frac", v, e); }

/* One host and one switch linked; host, link keys set as given. */
static bool topo_text(const char *host_extra, const char *link_extra, GError **error)
{
    g_autofree char *text = g_strdup_printf(
        "{\"hosts\": [{\"name\": \"h0\", \"nics\": 1%s}], \"switches\": [\"s0\"], "
        "\"links\": [{\"a\": \"h0\", \"b\": \"s0\"%s}]}",
        host_extra, link_extra);
    g_autoptr(cJSON) o = cJSON_Parse(text);
    g_autoptr(topo) t = topo_from_json(o, "t", error);
    return t != NULL;
}

static bool p_count(double v, GError **e)
{
    g_autofree char *s = num(v);
    g_autofree char *h = g_strdup_printf(", \"pod\": %s", s);
    return topo_text(h, "", e);
}

static bool p_gbps(double v, GError **e)
{
    g_autofree char *s = num(v);
    g_autofree char *l = g_strdup_printf(", \"gbps\": %s", s);
    return topo_text("", l, e);
}

static bool p_latency(double v, GError **e)
{
    g_autofree char *s = num(v);
    g_autofree char *l = g_strdup_printf(", \"latency_us\": %s", s);
    return topo_text("", l, e);
}

static bool gen(double days, double scale, double tilt, GError **error)
{
    trace_gen_options o = trace_gen_options_default();
    o.days = days;
    o.scale = scale;
    o.gpu_run_tilt = tilt;
    return trace_gen_options_check(&o, error);
}

static bool p_days(double v, GError **e) { return gen(v, 100, 0, e); }
static bool p_gscale(double v, GError **e) { return gen(366, v, 0, e); }
static bool p_tilt(double v, GError **e) { return gen(1, 1, v, e); }

/* The scenario form reads the seed, then generates a small trace. */
static bool p_seed(double v, GError **e)
{
    g_autofree char *s = num(v);
    g_autofree char *text =
        g_strdup_printf("{\"synthetic\": {\"seed\": %s, \"days\": 0.05}}", s);
    g_autoptr(cJSON) o = cJSON_Parse(text);
    g_autoptr(trace) t = trace_load_spec(o, NULL, "s.json", NULL, e);
    return t != NULL;
}

/* A grid of about v runs: one axis of v values, or 1000 x ceil(v / 1000). */
static bool p_runs(double v, GError **e)
{
    size_t n = (size_t)v, a = n <= 1000 ? n : 1000, b = n <= 1000 ? 1 : (n + 999) / 1000;
    GString *s = g_string_new("{\"base\": {}, \"grid\": {\"sim.seed\": [");
    for (size_t i = 0; i < a; i++)
        g_string_append_printf(s, "%s%zu", i ? "," : "", i);
    g_string_append(s, "], \"sim.alpha_us\": [");
    for (size_t i = 0; i < b; i++)
        g_string_append_printf(s, "%s%zu", i ? "," : "", i);
    g_string_append(s, "]}}");
    sweep *sw = sweep_parse(s->str, s->len, "sw.json", "/nonexistent", e);
    g_string_free(s, TRUE);
    sweep_free(sw);
    return sw != NULL;
}

/* A graph of v chained operators, or one operator with key = v. */
static bool graph(size_t n_ops, const char *key, double v, GError **error)
{
    g_autofree char *s = num(v);
    GString *t = g_string_new(NULL);
    g_string_append_printf(t, "{\"batch\": %s, \"ops\": [", strcmp(key, "batch") ? "2" : s);
    for (size_t i = 0; i < n_ops; i++) {
        g_autofree char *pred = i ? g_strdup_printf("%zu", i - 1) : g_strdup("");
        g_string_append_printf(t,
                               "%s{\"type\": \"relu\", \"flops\": %s, \"bytes_read\": 4, "
                               "\"bytes_written\": 4, \"preds\": [%s]}",
                               i ? "," : "", strcmp(key, "flops") ? "8" : s, pred);
    }
    g_string_append(t, "]}");
    cJSON *o = cJSON_Parse(t->str);
    g_string_free(t, TRUE);
    mdot_graph *g = mdot_graph_from_cjson(o, "g.json", error);
    cJSON_Delete(o);
    bool ok = g != NULL;
    mdot_graph_free(g);
    return ok;
}

static bool p_ops(double v, GError **e) { return graph(v > 0 ? (size_t)v : 0, "", 0, e); }
static bool p_batch(double v, GError **e) { return graph(1, "batch", v, e); }
static bool p_amount(double v, GError **e) { return graph(1, "flops", v, e); }

static bool og(int field, double v, GError **error)
{
    og_opts o = {.cases = 10, .seed = 1, .window_s = 10, .levels = 3, .threads = 1,
                 .link_gbps = 50};
    if (field == 0)
        o.cases = (int)v;
    else if (field == 1)
        o.window_s = v;
    else
        o.levels = (int)v;
    return og_opts_check(&o, error);
}

static bool p_cases(double v, GError **e) { return og(0, v, e); }
static bool p_window(double v, GError **e) { return og(1, v, e); }
static bool p_oglevels(double v, GError **e) { return og(2, v, e); }

/* Rows the CLI or a reader's loop applies as a plain check (reaching the
 * end through the reader would mean a 1 GiB file or 10 million jobs). */
static bool p_jobs(double v, GError **e)
{
    return ccs_limit_check(CCS_LIMIT_TRACE_JOBS, v, "jobs", e);
}
static bool p_parallel(double v, GError **e)
{
    return ccs_limit_check(CCS_LIMIT_PARALLEL, v, "--jobs", e);
}
static bool p_input(double v, GError **e)
{
    return ccs_limit_check(CCS_LIMIT_INPUT_BYTES, v, "f", e);
}

typedef struct probe {
    ccs_limit_id id;
    bool (*fn)(double v, GError **error);
    bool skip_min;   /* the minimum is not an input of this form (an empty window) */
    bool skip_max;   /* the maximum would build or read something huge */
    bool skip_below; /* nothing below the range can be written in this input */
} probe;

static const probe probes[] = {
    {CCS_LIMIT_TIME_S, p_time, false, false, false},
    {CCS_LIMIT_SPAN_S, p_span, false, false, false},
    {CCS_LIMIT_INTERVAL_S, p_interval, false, false, false},
    {CCS_LIMIT_INTERVALS, p_rows, true, false, true},
    {CCS_LIMIT_TIME_SCALE, p_scale, false, false, false},
    {CCS_LIMIT_PRIORITY_LEVELS, p_levels, false, false, false},
    {CCS_LIMIT_CHANNELS, p_channels, false, false, false},
    {CCS_LIMIT_ALPHA_US, p_alpha, false, false, false},
    {CCS_LIMIT_BUCKETS, p_buckets, false, false, false},
    {CCS_LIMIT_JITTER_SIGMA, p_jitter, false, false, false},
    {CCS_LIMIT_JOB_GPUS, p_gpus, false, false, false},
    {CCS_LIMIT_TRACE_JOBS, p_jobs, false, false, false},
    {CCS_LIMIT_TOPO_COUNT, p_count, false, false, false},
    {CCS_LIMIT_LINK_GBPS, p_gbps, false, false, false},
    {CCS_LIMIT_LATENCY_US, p_latency, false, false, false},
    {CCS_LIMIT_GEN_DAYS, p_days, false, false, false},
    {CCS_LIMIT_GEN_SCALE, p_gscale, false, false, false},
    {CCS_LIMIT_SWEEP_RUNS, p_runs, false, true, false},
    {CCS_LIMIT_PARALLEL, p_parallel, false, false, false},
    {CCS_LIMIT_INPUT_BYTES, p_input, false, false, false},
    {CCS_LIMIT_COMPUTE_S, p_compute, false, false, false},
    {CCS_LIMIT_OPT_S, p_opt, false, false, false},
    {CCS_LIMIT_COMM_BYTES, p_bytes, false, false, false},
    {CCS_LIMIT_FRACTION, p_frac, false, false, false},
    {CCS_LIMIT_ITERATIONS, p_iterations, true, false, true},
    {CCS_LIMIT_SHIFT_S, p_shift, false, false, false},
    {CCS_LIMIT_GEN_TILT, p_tilt, false, false, false},
    {CCS_LIMIT_GEN_SEED, p_seed, false, false, false},
    {CCS_LIMIT_GRAPH_OPS, p_ops, false, false, false},
    {CCS_LIMIT_GRAPH_BATCH, p_batch, false, false, false},
    {CCS_LIMIT_GRAPH_AMOUNT, p_amount, false, false, false},
    {CCS_LIMIT_OG_CASES, p_cases, false, false, false},
    {CCS_LIMIT_OG_WINDOW_S, p_window, false, false, false},
    {CCS_LIMIT_OG_LEVELS, p_oglevels, false, false, false},
    {CCS_LIMIT_SHARDS, p_shards, false, false, false},
    {CCS_LIMIT_SHARD_WARMUP, p_warmup, false, false, false},
};

static void expect(const probe *p, const char *what, double v, bool accept)
{
    const ccs_limit *l = ccs_limit_get(p->id);
    GError *e = NULL;
    bool ok = p->fn(v, &e);
    g_autofree char *range = ccs_limit_range_text(p->id);
    bool good = ok == accept;
    /* above the range: refused by this very limit, its range in the message */
    if (good && !accept && strcmp(what, "above") == 0)
        good = e && strstr(e->message, range) != NULL;
    if (!good)
        fprintf(stderr, "\nlimit \"%s\" %s (%.17g): %s, %s\n", l->name, what, v,
                ok ? "accepted" : "refused", e ? e->message : "no error");
    CU_ASSERT_TRUE(good);
    if (e)
        g_error_free(e);
}

void test_limits_probes(void)
{
    bool covered[CCS_LIMIT_COUNT] = {false};
    for (size_t k = 0; k < G_N_ELEMENTS(probes); k++) {
        const probe *p = &probes[k];
        const ccs_limit *l = ccs_limit_get(p->id);
        covered[p->id] = true;
        /* between 0 and min when 0 itself is allowed */
        double below = l->zero_ok || (!l->integer && l->min > 0) ? l->min / 2
                       : l->integer                              ? l->min - 1
                                   : l->min - fmax(fabs(l->min) / 2, 1);
        double above = l->integer ? l->max + 1 : l->max * 1.5;
        if (!p->skip_below)
            expect(p, "below", below, false);
        if (!p->skip_min)
            expect(p, "at min", l->min, !l->min_open);
        if (l->zero_ok)
            expect(p, "zero", 0, true);
        if (!p->skip_max)
            expect(p, "at max", l->max, true);
        expect(p, "above", above, false);
    }
    for (int id = 0; id < CCS_LIMIT_COUNT; id++) {
        if (!covered[id])
            fprintf(stderr, "\nlimit \"%s\" has no probe\n", ccs_limit_get((ccs_limit_id)id)->name);
        CU_ASSERT_TRUE(covered[id]);
    }
}
