/* trace.h - job traces: Lingjun CSV, JSON job lists, the bundled sample
 * (docs/architecture.md, docs/models.md, docs/usage.md).  Not here: the generator (gen.h).
 *
 * A trace is a list of job specs sorted by start time.  Times are seconds
 * since the trace epoch: t = 0 is the earliest start of the loaded jobs, and
 * trace_epoch_unix_s() gives that instant in unix seconds so timestamps can
 * be recovered.  Lingjun timestamps carry no time zone; they are read as
 * UTC+8 (the cluster's local time, an assumption) consistently, and only
 * differences matter.
 */
#ifndef CCSIM_TRACES_TRACE_H
#define CCSIM_TRACES_TRACE_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "structure.h"

/* One job to replay. */
typedef struct trace_job {
    char *id;                    /* job_name or the JSON id */
    double start_s, end_s;       /* seconds since the trace epoch (t = 0) */
    int gpus;                    /* total GPUs over all pods */
    size_t n_hosts;              /* recorded hosts (0: unknown, the placement decides) */
    char **hosts;                /* host names as in the topology (Lingjun: the ip hash) */
    int *host_gpus;              /* GPUs the job holds on each recorded host */
    char *model;                 /* trace model name or catalog name; NULL when inline */
    catalog_model *inline_model; /* owned, or NULL */
    /* Additions (not in the original contract): */
    int max_pod_gpus;            /* GPUs of the largest pod (catalog_resolve); = gpus for JSON jobs */
    size_t n_pods;               /* GPU pods (Lingjun); = n_hosts or 1 for JSON jobs */
    job_structure *structure;    /* owned, or NULL: the job's parallel structure (a JSON job's
                                  * "model": {"structure": {...}}, structure.h); inline_model
                                  * then names it and carries no figures the engine uses */
    cJSON *structure_desc;       /* owned, or NULL: the structure as written when it is described
                                  * by architecture and framework (workload.h); `structure` then
                                  * holds it resolved for an A100 and the replay resolves it
                                  * again for its GPU type */
} trace_job;

/* What the loader read, skipped and why.  Every skipped job is counted in
 * exactly one skipped_* field; jobs_loaded + sum(skipped_*) = job_rows. */
typedef struct trace_stats {
    size_t job_rows;              /* data rows of job.csv (or JSON jobs) */
    size_t worker_rows;           /* data rows of worker.csv */
    size_t topo_hosts;            /* data rows of topo.csv */
    size_t jobs_loaded;           /* jobs in the trace */
    size_t skipped_never_ran;     /* gmt_job_running empty (and no pod ran) */
    size_t skipped_running;       /* status Running / no end time: still running at the dump */
    size_t skipped_cpu_only;      /* ran, but no pod asked for a GPU (or no worker rows) */
    size_t skipped_bad_time;      /* running before submitted, or end before start (id 8169) */
    size_t first_bad_time_line;   /* job.csv line of the first of those, 0 when none */
    size_t skipped_malformed;     /* --lenient: malformed job rows skipped */
    size_t skipped_duplicate;     /* --lenient: rows repeating an earlier row's job_name */
    size_t skipped_outside_topo;  /* outside = skip: jobs with a pod outside topo.csv */
    size_t worker_rows_malformed; /* --lenient: malformed worker rows skipped */
    size_t worker_rows_orphan;    /* worker rows whose job_name is not in job.csv */
    size_t pods_outside_topo;     /* GPU pods of loaded jobs whose host_ip is not in topo.csv */
    size_t pods_no_host;          /* GPU pods of loaded jobs with an empty host_ip */
    size_t jobs_unplaced;         /* loaded jobs left without recorded hosts (n_hosts = 0)
                                   * because a GPU pod was outside topo.csv or had no host */
    size_t topo_malformed;        /* --lenient: malformed topo rows skipped */
} trace_stats;

/* What to do with a job whose GPU pods are (partly) on hosts missing from
 * topo.csv or on no host. */
typedef enum trace_outside_policy {
    TRACE_OUTSIDE_PLACE, /* keep the job without recorded hosts: the placement decides (default) */
    TRACE_OUTSIDE_SKIP,  /* skip the job (counted in skipped_outside_topo) */
} trace_outside_policy;

typedef struct trace_lingjun_options {
    bool lenient;                 /* skip and count malformed rows instead of failing */
    trace_outside_policy outside; /* jobs with pods outside topo.csv */
} trace_lingjun_options;

/* Defaults: strict, TRACE_OUTSIDE_PLACE. */
trace_lingjun_options trace_lingjun_options_default(void);

typedef struct trace trace;

/* Number of jobs; job i (i < count) sorted by start_s, ties by input order
 * (transfer none, valid until trace_free). */
size_t trace_job_count(const trace *t);
const trace_job *trace_job_get(const trace *t, size_t i);
/* What was read and skipped (transfer none). */
const trace_stats *trace_get_stats(const trace *t);
/* Unix seconds of t = 0 (0 for JSON traces, which carry no calendar). */
double trace_epoch_unix_s(const trace *t);
/* The source the trace was read from (a directory, file or "(default)"). */
const char *trace_source_name(const trace *t);

/* Load DIR/job.csv, DIR/worker.csv, DIR/topo.csv, each plain or .gz (the
 * plain name is tried first, then NAME.gz; gzip is detected by content).
 * opts may be NULL (defaults).  Errors: CCS_ERROR_IO (missing or unreadable
 * file), CCS_ERROR_PARSE ("FILE:LINE: reason" for the first malformed row
 * unless opts->lenient).  (transfer full) */
trace *trace_lingjun_load(const char *dir, const trace_lingjun_options *opts, GError **error);

/* The same from memory (plain CSV, not gzip); name (e.g. a directory) is the
 * source name and prefixes the file names in messages ("NAME/job.csv:12: ...").
 * For tests and fuzzing. */
trace *trace_lingjun_parse(const char *job_buf, size_t job_len, const char *worker_buf,
                           size_t worker_len, const char *topo_buf, size_t topo_len,
                           const char *name, const trace_lingjun_options *opts, GError **error);

/* A trace from a JSON array of jobs (docs/usage.md):
 * {"id": "j1", "gpus": 10, "hosts": ["h1","h2"], "start_s": 0, "end_s": 12,
 *  "model": "bert-large" | {inline model}}; optional "host_gpus": [5, 5]
 * (default: gpus spread evenly over hosts, the first hosts taking the
 * remainder).  id defaults to "jN" (N from 1), hosts to none.  Epoch 0.
 * name prefixes messages ("NAME: jobs[3]: gpus: ...").  CCS_ERROR_INVALID on
 * a bad job.  (transfer full) */
trace *trace_json_from_cjson(const cJSON *jobs_array, const char *name, GError **error);

/* A JSON file holding {"jobs": [...]} or a scenario {"trace": {"jobs": [...]}}. */
trace *trace_json_load(const char *path, GError **error);
/* The same from n bytes of JSON text at s; path names it in messages. */
trace *trace_json_parse(const char *s, size_t n, const char *path, GError **error);

/* The bundled 1-day sample (traces/data/, embedded in the library as a
 * GResource), loaded with the default options. */
trace *trace_load_default(GError **error);

/* The "trace" value of a scenario (docs/usage.md): {"lingjun": DIR},
 * {"synthetic": {"seed": 1, "days": 1, "scale": 1, "topo": PATH}}, or
 * {"jobs": [...]}; NULL means the bundled sample.  A relative DIR or topo
 * PATH is taken relative to base_dir (the scenario file's directory) when
 * base_dir is not NULL.  opts (may be NULL) applies to Lingjun and synthetic
 * traces.  name prefixes messages.  CCS_ERROR_INVALID for any other shape.
 * (transfer full) */
trace *trace_load_spec(const cJSON *spec, const char *base_dir, const char *name,
                       const trace_lingjun_options *opts, GError **error);

void trace_free(trace *t);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(trace, trace_free)

#endif /* CCSIM_TRACES_TRACE_H */
