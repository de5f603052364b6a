/* limits.h - the one table of ranges every numeric input is checked
 * against, with the checks and strict number parsing.  Not here: what a
 * value means (each reader), the table's prose (docs/usage.md, "Limits").
 *
 * A limit is an inclusive range [min, max] (or (min, max] when min_open)
 * and a reason.  Readers call ccs_limit_check() with the place the value
 * came from ("FILE:LINE: job_gpus", "--levels", "scenario.json: sim.end_s")
 * and get one message naming the place, the value and the range.  The
 * ranges reach far beyond any realistic case; what they stop is work or
 * output no machine finishes (a 1e-9 s interval, a job ending at 1e308 s).
 * docs/usage.md lists the same table, as ccs_limit_table_markdown() writes
 * it (`ccsim list --limits`); tests/test_limits.c checks the two agree
 * and feeds every limit's ends through the reader of an input it covers.
 */
#ifndef CCSIM_BASE_LIMITS_H
#define CCSIM_BASE_LIMITS_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ccs_limit_id {
    CCS_LIMIT_TIME_S,          /* any trace or window time, seconds */
    CCS_LIMIT_SPAN_S,          /* simulated window end - start, seconds */
    CCS_LIMIT_INTERVAL_S,      /* time-series interval, seconds */
    CCS_LIMIT_INTERVALS,       /* window / interval: time-series rows */
    CCS_LIMIT_TIME_SCALE,      /* factor on trace times */
    CCS_LIMIT_PRIORITY_LEVELS, /* strict priority levels */
    CCS_LIMIT_CHANNELS,        /* NCCL channels per collective (or "auto") */
    CCS_LIMIT_ALPHA_US,        /* startup latency per collective step */
    CCS_LIMIT_BUCKETS,         /* gradient buckets per iteration */
    CCS_LIMIT_JITTER_SIGMA,    /* log-normal sigma of compute jitter */
    CCS_LIMIT_JOB_GPUS,        /* GPUs of one trace job */
    CCS_LIMIT_TRACE_JOBS,      /* jobs in one trace */
    CCS_LIMIT_TOPO_COUNT,      /* a count parameter of a topology spec */
    CCS_LIMIT_LINK_GBPS,       /* a link or NIC speed */
    CCS_LIMIT_LATENCY_US,      /* a link latency */
    CCS_LIMIT_GEN_DAYS,        /* gen-trace --days */
    CCS_LIMIT_GEN_SCALE,       /* gen-trace --scale */
    CCS_LIMIT_SWEEP_RUNS,      /* runs of one sweep grid */
    CCS_LIMIT_PARALLEL,        /* sweep, compare, optimal-gap -j (0: one per CPU) */
    CCS_LIMIT_INPUT_BYTES,     /* one input file, after decompression */
    CCS_LIMIT_COMPUTE_S,       /* compute time of one iteration */
    CCS_LIMIT_OPT_S,           /* optimizer time of one iteration */
    CCS_LIMIT_COMM_BYTES,      /* bytes a job communicates per iteration */
    CCS_LIMIT_FRACTION,        /* comm_start_frac */
    CCS_LIMIT_ITERATIONS,      /* iterations of one job in the window */
    CCS_LIMIT_SHIFT_S,         /* a scheduler's time shift of a job */
    CCS_LIMIT_GEN_TILT,        /* gen-trace --gpu-run-tilt */
    CCS_LIMIT_GEN_SEED,        /* gen-trace --seed, synthetic seed */
    CCS_LIMIT_GRAPH_OPS,       /* operators of one MDOT graph */
    CCS_LIMIT_GRAPH_BATCH,     /* batch size of an MDOT graph */
    CCS_LIMIT_GRAPH_AMOUNT,    /* an operator's FLOPs, bytes, parameters */
    CCS_LIMIT_OG_CASES,        /* optimal-gap --cases */
    CCS_LIMIT_OG_WINDOW_S,     /* optimal-gap --window */
    CCS_LIMIT_OG_LEVELS,       /* optimal-gap --levels */
    CCS_LIMIT_SHARDS,          /* time shards of one run */
    CCS_LIMIT_SHARD_WARMUP,    /* a time shard's warm-up, in iterations */
    CCS_LIMIT_COUNT
} ccs_limit_id;

typedef struct ccs_limit {
    const char *name;  /* the inputs it covers, as docs/usage.md names them */
    double min, max;   /* inclusive range (min excluded when min_open) */
    bool min_open;     /* the value must be strictly greater than min */
    bool integer;      /* whole numbers only */
    bool zero_ok;      /* 0 is accepted too ("none", "off"), below the range */
    const char *unit;  /* "s", "Gbps", "" for counts */
    const char *why;   /* one line: what the bound protects */
} ccs_limit;

/* The limit id.  (transfer none: static) */
const ccs_limit *ccs_limit_get(ccs_limit_id id);

/* The range as written in messages and docs: "[1, 64]", "(0, 366]",
 * "0 or [1, 1000000000000000]".  (transfer full) */
char *ccs_limit_range_text(ccs_limit_id id);

/* docs/usage.md's "Limits" table, generated from the limits: a header and
 * one markdown row per limit, in id order.  (transfer full) */
char *ccs_limit_table_markdown(void);

/* True when v is inside limit id.  Otherwise CCS_ERROR_INVALID:
 * "WHERE: VALUE is out of range RANGE UNIT (WHY)". */
bool ccs_limit_check(ccs_limit_id id, double v, const char *where, GError **error);

/* Strict decimal number: optional sign, digits, optional fraction and
 * exponent, nothing else (no hex, no inf/nan, no spaces, no empty
 * string).  Returns false when s is not such a number or overflows. */
bool ccs_parse_double(const char *s, double *out);

/* Strict decimal integer in [INT64_MIN, INT64_MAX], same rules (no
 * fraction or exponent). */
bool ccs_parse_int64(const char *s, int64_t *out);

/* s (n bytes, or up to NUL when n < 0) with control bytes and bytes
 * outside printable ASCII written as \xNN, for echoing input in messages.
 * At most max_chars input bytes are shown, then "...".  (transfer full) */
char *ccs_escape(const char *s, gssize n, size_t max_chars);

#endif /* CCSIM_BASE_LIMITS_H */
