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

/* Keep in step with docs/usage.md, "Limits" (tests/test_limits.c compares). */
static const ccs_limit limits[CCS_LIMIT_COUNT] = {
    [CCS_LIMIT_TIME_S] = {"job times in JSON traces, sim.start_s, sim.end_s", -1e10, 1e10, false, false, "s",
                          "317 years either side of zero"},
    [CCS_LIMIT_SPAN_S] = {"simulated window (end - start, after time_scale)", 0, 1e8, true,
                          false, "s", "3 years; the Lingjun trace spans 2 months"},
    [CCS_LIMIT_INTERVAL_S] = {"sim.interval_s", 1e-3, 1e8, false, false, "s",
                              "a millisecond is finer than any metric of interest"},
    [CCS_LIMIT_INTERVALS] = {"time-series intervals (window / interval_s)", 0, 1e6, false,
                             true, "", "about 0.7 GB of timeseries.csv and links.csv"},
    [CCS_LIMIT_TIME_SCALE] = {"sim.time_scale", 1e-6, 1e6, false, false, "",
                              "the scaled window must still fit the span limit"},
    [CCS_LIMIT_PRIORITY_LEVELS] = {"sim.priority_levels", 1, 64, false, true, "",
                                   "the network engine's strict priority levels"},
    [CCS_LIMIT_CHANNELS] = {"sim.channels (or \"auto\")", 1, 32, false, true, "",
                            "NCCL's largest channel count"},
    [CCS_LIMIT_ALPHA_US] = {"sim.alpha_us", 0, 1e6, false, false, "us",
                            "one second of startup latency per collective step"},
    [CCS_LIMIT_BUCKETS] = {"sim.buckets", 0, 4096, false, true, "",
                           "gradient buckets per iteration (0: the catalog's)"},
    [CCS_LIMIT_JITTER_SIGMA] = {"sim.jitter_sigma", 0, 10, false, false, "",
                                "log-normal sigma; 10 already spreads compute times by e^10"},
    [CCS_LIMIT_JOB_GPUS] = {"GPUs of one job (JSON and scenario traces)", 1, 1e6, false, true,
                            "", "a million GPUs"},
    [CCS_LIMIT_TRACE_JOBS] = {"jobs in one trace", 0, 1e7, false, true, "",
                              "the Lingjun trace has 5,180"},
    [CCS_LIMIT_TOPO_COUNT] = {"count parameters of a topology spec (k, hosts, gpus, ...)", 0,
                              1e6, false, true, "", "a million of anything"},
    [CCS_LIMIT_LINK_GBPS] = {"link and NIC speeds (*_gbps)", 0, 1e6, true, false, "Gbps",
                             "a petabit per second"},
    [CCS_LIMIT_LATENCY_US] = {"link latencies (*latency_us)", 0, 1e6, false, false, "us",
                              "one second"},
    [CCS_LIMIT_GEN_DAYS] = {"gen-trace --days, synthetic days", 0, 366, true, false, "days",
                            "one year"},
    [CCS_LIMIT_GEN_SCALE] = {"gen-trace --scale, synthetic scale", 0, 100, true, false, "",
                             "100 times the Lingjun trace's job rate"},
    [CCS_LIMIT_SWEEP_RUNS] = {"runs of one sweep grid", 1, 1e6, false, true, "",
                              "a million runs"},
    [CCS_LIMIT_PARALLEL] = {"sweep -j", 1, 1024, false, true, "",
                            "parallel runs at once"},
    [CCS_LIMIT_INPUT_BYTES] = {"one input file, after decompression", 0, 1073741824.0, false,
                               true, "bytes", "1 GiB; the Lingjun job.csv is a few MB"},
};

const ccs_limit *ccs_limit_get(ccs_limit_id id)
{
    g_return_val_if_fail(id < CCS_LIMIT_COUNT, NULL);
    return &limits[id];
}

char *ccs_limit_range_text(ccs_limit_id id)
{
    const ccs_limit *l = ccs_limit_get(id);
    return g_strdup_printf("%s%.15g, %.15g]", l->min_open ? "(" : "[", l->min, l->max);
}

bool ccs_limit_check(ccs_limit_id id, double v, const char *where, GError **error)
{
    const ccs_limit *l = ccs_limit_get(id);
    bool ok = isfinite(v) && v <= l->max && (l->min_open ? v > l->min : v >= l->min);
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
