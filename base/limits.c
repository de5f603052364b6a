/* limits.c - the table of input ranges, its checks, strict number parsing
 * and escaping of input echoed in messages (limits.h).  Not here: the
 * readers that call them.
 */
#include "limits.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccs.h"

/* docs/usage.md, "Limits", is this table as ccs_limit_table_markdown()
 * writes it (tests/test_limits.c compares). */
#define L(id, name, min, max, open, integer, zero_ok, unit, why) \
    [id] = {name, min, max, open, integer, zero_ok, unit, why}
static const ccs_limit limits[CCS_LIMIT_COUNT] = {
    L(CCS_LIMIT_TIME_S, "job times in JSON traces, sim.start_s, sim.end_s, timeline spans", -1e10,
      1e10, false, false, false, "s", "317 years either side of zero"),
    L(CCS_LIMIT_SPAN_S, "simulated window (end - start, after time_scale)", 0, 1e8, true, false,
      false, "s", "3 years; the Lingjun trace spans 2 months"),
    L(CCS_LIMIT_INTERVAL_S, "sim.interval_s", 1e-3, 1e8, false, false, false, "s",
      "a millisecond is finer than any metric of interest"),
    L(CCS_LIMIT_INTERVALS, "time-series intervals (window / interval_s)", 0, 1e6, false, true,
      false, "", "about 0.7 GB of timeseries.csv and links.csv"),
    L(CCS_LIMIT_TIME_SCALE, "sim.time_scale", 1e-6, 1e6, false, false, false, "",
      "the scaled window must still fit the span limit"),
    L(CCS_LIMIT_PRIORITY_LEVELS, "sim.priority_levels", 1, 64, false, true, false, "",
      "the network engine's strict priority levels"),
    L(CCS_LIMIT_CHANNELS, "sim.channels (or \"auto\")", 1, 32, false, true, false, "",
      "NCCL's largest channel count"),
    L(CCS_LIMIT_ALPHA_US, "sim.alpha_us", 0, 1e6, false, false, false, "us",
      "one second of startup latency per collective step"),
    L(CCS_LIMIT_BUCKETS, "sim.buckets", 0, 4096, false, true, false, "",
      "gradient buckets per iteration (0: the catalog's)"),
    L(CCS_LIMIT_JITTER_SIGMA, "sim.jitter_sigma", 0, 10, false, false, false, "",
      "log-normal sigma; 10 already spreads compute times by e^10"),
    L(CCS_LIMIT_JOB_GPUS, "GPUs of one job (JSON and scenario traces, host_gpus, synthetic gpu_cap)",
      1, 1e6, false, true, false, "", "a million GPUs"),
    L(CCS_LIMIT_TRACE_JOBS, "jobs in one trace", 0, 1e7, false, true, false, "",
      "the Lingjun trace has 5,180"),
    L(CCS_LIMIT_TOPO_COUNT, "count parameters of a topology (k, hosts, gpus, nics, pod, ...)", 0,
      1e6, false, true, false, "", "a million of anything"),
    L(CCS_LIMIT_LINK_GBPS, "link and NIC speeds (*_gbps, gbps)", 0, 1e6, true, false, false,
      "Gbps", "a petabit per second"),
    L(CCS_LIMIT_LATENCY_US, "link latencies (*latency_us)", 0, 1e6, false, false, false, "us",
      "one second"),
    L(CCS_LIMIT_GEN_DAYS, "gen-trace --days, synthetic days", 0, 366, true, false, false, "days",
      "one year"),
    L(CCS_LIMIT_GEN_SCALE, "gen-trace --scale, synthetic scale", 0, 100, true, false, false, "",
      "100 times the Lingjun trace's job rate"),
    L(CCS_LIMIT_SWEEP_RUNS, "runs of one sweep grid", 1, 1e6, false, true, false, "",
      "a million runs"),
    L(CCS_LIMIT_PARALLEL, "sweep, compare, optimal-gap and run -j (0: one per CPU)", 1, 1024, false,
      true, true, "", "parallel runs at once"),
    L(CCS_LIMIT_INPUT_BYTES, "one input file, after decompression", 0, 1073741824.0, false, true,
      false, "bytes", "1 GiB; the Lingjun job.csv is a few MB"),
    L(CCS_LIMIT_COMPUTE_S, "compute time of one iteration (compute_s, after jitter)", 1e-4, 1e6,
      false, false, false, "s",
      "a tenth of a millisecond; shorter iterations make a window billions of events"),
    L(CCS_LIMIT_OPT_S, "optimizer time of one iteration (opt_s)", 0, 1e6, false, false, false,
      "s", "eleven days"),
    L(CCS_LIMIT_COMM_BYTES, "bytes a job sends per iteration (comm_bytes, a2a_bytes, pp_bytes)",
      1, 1e15, false, false, true, "bytes",
      "a petabyte; below one byte there is nothing to send"),
    L(CCS_LIMIT_FRACTION, "comm_start_frac", 0, 1, false, false, false, "",
      "a share of the compute"),
    L(CCS_LIMIT_ITERATIONS, "iterations of one job in the window (its span / compute time)", 0,
      1e9, false, false, false, "", "a billion iterations per job, each a few events"),
    L(CCS_LIMIT_SHIFT_S, "scheduler.jobs.ID.shift_s (fixed)", 0, 1e8, false, false, false, "s",
      "the longest window"),
    L(CCS_LIMIT_GEN_TILT, "gen-trace --gpu-run-tilt, synthetic gpu_run_tilt", -10, 10, false,
      false, false, "", "a copula shift of 10 already makes every GPU job the longest"),
    L(CCS_LIMIT_GEN_SEED, "gen-trace --seed, synthetic seed", 0, 4294967295.0, false, true,
      false, "", "the generator's 32-bit seed"),
    L(CCS_LIMIT_GRAPH_OPS, "operators of one MDOT graph (predict, graph models)", 1, 1e5,
      false, true, false, "",
      "30 times LLaMA-65B's 3,128; prediction is linear in the count (0.3 CPU-s for 20,000)"),
    L(CCS_LIMIT_GRAPH_BATCH, "batch of an MDOT graph (batch, predict --batch)", 1, 1e9, false,
      true, false, "", "a billion samples per iteration"),
    L(CCS_LIMIT_GRAPH_AMOUNT, "an operator's flops, bytes_read, bytes_written, param_bytes, params",
      0, 1e18, false, false, false, "", "an exaFLOP (or exabyte) in one operator"),
    L(CCS_LIMIT_OG_CASES, "optimal-gap --cases", 1, 1e5, false, true, false, "",
      "each case is 403 replays"),
    L(CCS_LIMIT_OG_WINDOW_S, "optimal-gap --window", 0, 3600, true, false, false, "s",
      "an hour per replay, 403 replays per case"),
    L(CCS_LIMIT_OG_LEVELS, "optimal-gap --levels", 1, 8, false, true, false, "",
      "K^5 level assignments are replayed per case"),
    L(CCS_LIMIT_SHARDS, "sim.shards, run --shards", 1, 4096, false, true, false, "",
      "time shards of one run (each also needs an interval of the window)"),
    L(CCS_LIMIT_SHARD_WARMUP, "sim.shard_warmup, run --shard-warmup", 0, 100000, false, true,
      false, "iterations", "warm-up of a time shard, in iterations alone"),
};
#undef L

const ccs_limit *ccs_limit_get(ccs_limit_id id)
{
    g_return_val_if_fail(id < CCS_LIMIT_COUNT, NULL);
    return &limits[id];
}

char *ccs_limit_range_text(ccs_limit_id id)
{
    const ccs_limit *l = ccs_limit_get(id);
    return g_strdup_printf("%s%s%.15g, %.15g]", l->zero_ok ? "0 or " : "",
                           l->min_open ? "(" : "[", l->min, l->max);
}

char *ccs_limit_table_markdown(void)
{
    GString *s = g_string_new("| input | range | unit | why this bound |\n|---|---|---|---|\n");
    for (int id = 0; id < CCS_LIMIT_COUNT; id++) {
        const ccs_limit *l = ccs_limit_get((ccs_limit_id)id);
        g_autofree char *range = ccs_limit_range_text((ccs_limit_id)id);
        g_string_append_printf(s, "| %s | `%s` | %s | %s |\n", l->name, range, l->unit, l->why);
    }
    return g_string_free(s, FALSE);
}

bool ccs_limit_check(ccs_limit_id id, double v, const char *where, GError **error)
{
    const ccs_limit *l = ccs_limit_get(id);
    bool ok = isfinite(v) && v <= l->max &&
              ((l->min_open ? v > l->min : v >= l->min) || (l->zero_ok && v == 0));
    if (ok && l->integer && floor(v) != v) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected a whole number, got %.15g",
                    where, v);
        return false;
    }
    if (ok)
        return true;
    g_autofree char *range = ccs_limit_range_text(id);
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %.15g is outside %s%s%s (%s)", where, v,
                range, *l->unit ? " " : "", l->unit, l->why);
    return false;
}

/* Length of the strict decimal number at s (0 when there is none):
 * [+-]digits[.digits][(e|E)[+-]digits], or [+-].digits...; ints_only
 * stops after the integer part. */
static size_t number_span(const char *s, bool ints_only)
{
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-')
        i++;
    while (g_ascii_isdigit(s[i]))
        i++, digits++;
    if (ints_only)
        return digits ? i : 0;
    if (s[i] == '.') {
        i++;
        while (g_ascii_isdigit(s[i]))
            i++, digits++;
    }
    if (digits == 0)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1, exp_digits = 0;
        if (s[j] == '+' || s[j] == '-')
            j++;
        while (g_ascii_isdigit(s[j]))
            j++, exp_digits++;
        if (exp_digits == 0)
            return 0;
        i = j;
    }
    return i;
}

bool ccs_parse_double(const char *s, double *out)
{
    if (!s || number_span(s, false) != strlen(s) || !*s)
        return false;
    errno = 0;
    char *end = NULL;
    double v = g_ascii_strtod(s, &end);
    if (errno == ERANGE && fabs(v) > 1.0) /* overflow; underflow to 0 is fine */
        return false;
    if (*end != '\0' || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool ccs_parse_int64(const char *s, int64_t *out)
{
    if (!s || !*s || number_span(s, true) != strlen(s))
        return false;
    errno = 0;
    char *end = NULL;
    gint64 v = g_ascii_strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *out = v;
    return true;
}

char *ccs_escape(const char *s, gssize n, size_t max_chars)
{
    if (!s)
        return g_strdup("(null)");
    size_t len = n < 0 ? strlen(s) : (size_t)n;
    bool utf8 = g_utf8_validate(s, (gssize)len, NULL);
    GString *o = g_string_new(NULL);
    for (size_t i = 0; i < len && i < max_chars; i++) {
        guchar c = (guchar)s[i];
        if (c < 0x20 || c == 0x7f || (c >= 0x80 && !utf8))
            g_string_append_printf(o, "\\x%02x", c);
        else
            g_string_append_c(o, (char)c);
    }
    if (len > max_chars) {
        /* do not leave half a UTF-8 character before the ellipsis */
        while (o->len > 0 && ((guchar)o->str[o->len - 1] & 0xc0) == 0x80)
            g_string_truncate(o, o->len - 1);
        if (o->len > 0 && (guchar)o->str[o->len - 1] >= 0xc0)
            g_string_truncate(o, o->len - 1);
        g_string_append(o, "...");
    }
    return g_string_free(o, FALSE);
}
