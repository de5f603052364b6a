/* gen.h - the synthetic Lingjun trace generator and the trace statistics
 * (docs/traces.md).  Not here: loading real traces (trace.h).
 *
 * trace_gen_write() writes job.csv, worker.csv and topo.csv in the exact
 * schema of the real release from one seed: the same seed and options give
 * the same bytes.  trace_summary_* compute the statistics that
 * docs/design.md §2.5 checks, for real and synthetic traces alike.
 */
#ifndef CCSIM_TRACES_GEN_H
#define CCSIM_TRACES_GEN_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct trace_gen_options {
    guint32 seed;          /* the GRand seed (default 1) */
    double days;           /* submit window in days (default 16, as the real trace) */
    double scale;          /* job-count multiplier (default 1); jobs = 5180 * scale * days / 16 */
    const char *topo_path; /* a real topo.csv to use (copied to the output), NULL: synthetic */
    bool gzip;             /* write FILE.csv.gz instead of FILE.csv */
    double gpu_run_tilt;   /* rank correlation lifting GPU jobs' run times (default 0.7) */
    double gpu_cap;        /* GPUs the trace's jobs may hold at once, times scale;
                            * later GPU jobs queue (default 2000) */
    bool topo_aware;       /* whole-host pods gathered under one ToR when they fit;
                            * false (default, as the real trace): any free host
                            * (docs/traces.md) */
    bool spill_whole_racks;    /* a job that fits no rack takes the emptiest racks first
                                * (default false: the fullest, other jobs' leftovers) */
    bool small_most_allocated; /* sub-host pods on the most allocated partly used host
                                * (default false: the first in topo.csv order) */
} trace_gen_options;

trace_gen_options trace_gen_options_default(void);

/* The options' numbers inside their limits (base/limits.h: days, scale,
 * gpu_run_tilt, gpu_cap) and at least one job asked for; CCS_ERROR_INVALID
 * naming "gen-trace: KEY" otherwise.  The generators call it first. */
bool trace_gen_options_check(const trace_gen_options *o, GError **error);

/* Generate and write DIR/job.csv, worker.csv, topo.csv (or .csv.gz), each
 * written to a temporary file and renamed.  DIR is created if missing.
 * Errors: CCS_ERROR_INVALID (bad options), CCS_ERROR_IO, and the topo file's
 * parse errors.  Cost: O(jobs * hosts) for placement. */
bool trace_gen_write(const char *dir, const trace_gen_options *opts, GError **error);

/* Generate in memory and load the result as trace_lingjun_load() would
 * (the scenario form {"synthetic": {"seed": 1, "days": 1, ...}}); lopts may
 * be NULL.  The source name is "synthetic:seed=N,days=D,scale=X".
 * (transfer full) */
struct trace;
struct trace_lingjun_options;
struct trace *trace_gen_load(const trace_gen_options *opts,
                             const struct trace_lingjun_options *lopts, GError **error);

/* ---- statistics ------------------------------------------------------- */

/* GPU-count buckets of docs/design.md §2.4: b1={1}, b2={2..7}, b3={8},
 * b4={9..16}, b5={17..48}, b6={49..127}, b7={128}, b8={129..256}, b9={>256}. */
#define TRACE_SUMMARY_BUCKETS 9
/* Quantiles reported: p25 p50 p75 p90 p95 p99 max. */
#define TRACE_SUMMARY_QUANTILES 7

typedef struct trace_summary {
    size_t job_rows, worker_rows, topo_hosts;
    size_t status_succeeded, status_stopped, status_failed, status_running, status_other;
    size_t never_ran;                                /* gmt_job_running empty */
    size_t gpu_jobs;                                 /* jobs with >= 1 GPU pod */
    size_t gpu_pods;                                 /* worker rows with nvidia.com/gpu > 0 */
    size_t job_gpu_bucket[TRACE_SUMMARY_BUCKETS];    /* GPU jobs per bucket (GPUs over all pods) */
    size_t pod_gpus[9];                              /* GPU pods with 1..8 GPUs at [1..8]; [0]: > 8 */
    size_t run_n, queue_n;                           /* jobs in each quantile set */
    double run_min_q[TRACE_SUMMARY_QUANTILES];       /* running -> finished, minutes */
    double queue_min_q[TRACE_SUMMARY_QUANTILES];     /* submitted -> running, minutes */
    size_t worker_rows_in_topo;                      /* host_ip in topo.csv */
    double topo_match_frac;                          /* worker_rows_in_topo / worker_rows */
    double window_start_s, window_end_s;             /* steady window (unix s) of the below */
    double conc_jobs_median, conc_jobs_p95, conc_jobs_max;       /* concurrent GPU jobs */
    double active_gpus_median, active_gpus_p95, active_gpus_max; /* GPUs of running GPU jobs */
    /* Jobs across racks (docs/traces.md): GPU jobs of the in-topo GPU pods
     * finished after they were created, those on >= 2 racks (PSW, ASW),
     * on >= 2 ASW labels (labels taken across PSWs), and of those the jobs
     * sharing a label with another such job at one moment. */
    size_t racks_jobs, racks_multi_rack, racks_multi_label, racks_label_contention;
    size_t n_models;                                 /* distinct model names */
    char **model_names;                              /* by count, descending (owned) */
    size_t *model_counts;
    size_t n_gpu_values;                             /* distinct per-job GPU counts */
    int *gpu_values;                                 /* ascending (owned) */
    size_t *gpu_value_jobs;
} trace_summary;

/* Statistics of DIR's three files (plain or .gz).  Concurrency is sampled
 * every 10 minutes over [first submit + min(3 d, span / 4), last submit]:
 * a job runs over [gmt_job_running, gmt_job_finished or gmt_job_stopped, or
 * the last time in the trace when still Running].  (transfer full) */
trace_summary *trace_summary_load(const char *dir, bool lenient, GError **error);
/* The same for the bundled sample, embedded in the library. */
trace_summary *trace_summary_load_default(GError **error);
/* A human-readable table (transfer full). */
char *trace_summary_table(const trace_summary *s);
/* CSV: "section,key,value" rows (transfer full). */
char *trace_summary_csv(const trace_summary *s);
/* Write trace_summary_csv() to path atomically; CCS_ERROR_IO on failure. */
bool trace_summary_write_csv(const trace_summary *s, const char *path, GError **error);
/* Count of one model name (exact, case-sensitive), 0 if absent. */
size_t trace_summary_model_count(const trace_summary *s, const char *model);
void trace_summary_free(trace_summary *s);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(trace_summary, trace_summary_free)

#endif /* CCSIM_TRACES_GEN_H */
