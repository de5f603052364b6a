/* replay.h - a trace replayed on a topology under a scheduler (docs/architecture.md,
 * §3, §7).  Not here: choosing the scheduler (schedulers/registry.h).
 *
 * A replay owns its event queue, network (topology link i = net link i),
 * cluster, jobs, metrics and scheduler instance; nothing is global, so two
 * replays can run in one process.  The topology, trace and catalog are
 * borrowed and must outlive it (the topology's path cache is written).
 *
 * Usage:
 *   replay *r = replay_new(cfg, ops, topo, trace, catalog, &err);
 *   if (!replay_run(r, out_dir, progress_fn, user, &err)) ...
 *   replay_summary s; replay_get_summary(r, &s);
 *   replay_free(r);
 * replay_run writes timeseries.csv and links.csv while it runs (one row
 * per interval) and jobs.csv, summary.csv and run.json at the end, into
 * out_dir (nullable: no files); the caller commits or aborts the folder.
 */
#ifndef CCSIM_SIM_REPLAY_H
#define CCSIM_SIM_REPLAY_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "output.h"
#include "scheduler.h"
#include "topo/topo.h"
#include "traces/catalog.h"
#include "traces/structure.h"
#include "traces/trace.h"

typedef struct replay replay;

/* What the progress callback sees. */
typedef struct replay_progress {
    double now_s;       /* simulated time */
    double start_s, end_s; /* the replay window (end_s may grow in work mode) */
    size_t jobs_done;   /* jobs that ended or were skipped */
    size_t jobs_total;
    uint64_t events;    /* events dispatched */
    double wall_s;      /* wall time since replay_run started */
} replay_progress;

typedef void (*replay_progress_fn)(void *user, const replay_progress *p);

/* The run's headline numbers (summary.csv). */
typedef struct replay_summary {
    const char *scheduler;          /* (transfer none) */
    double sim_start_s, sim_end_s;  /* the window replayed */
    size_t jobs;                    /* jobs that ran */
    size_t jobs_skipped;            /* outside the window or without capacity */
    size_t jobs_by_policy;          /* placed by the placement policy */
    size_t gpus_total;
    double gpu_util_cluster_frac;   /* busy / (gpus_total * window) */
    double gpu_util_allocated_frac; /* busy / allocated GPU-seconds */
    double busy_gpu_s;
    int64_t iterations;
    double mean_slowdown, p99_slowdown; /* over jobs with >= 1 iteration (NAN if none) */
    double wall_s;
    uint64_t events;
    size_t jobs_fast_forwarded;     /* jobs run without per-iteration events (run.json) */
    size_t ffwd_stretches;          /* fast-forwarded stretches of jobs sharing no link (run.json) */
    uint64_t ffwd_stretch_iterations; /* iterations run in them (run.json) */
    uint64_t group_repeats;         /* repeats found in groups sharing links (run.json, §5c) */
    uint64_t group_fallbacks;       /* groups that found none within the budget (run.json) */
    uint64_t group_skips;           /* skips of whole repeats (run.json) */
    uint64_t group_skip_iterations; /* member iterations in them (run.json) */
    uint64_t group_drift_skips;     /* of the skips, those modulo long transfers (run.json) */
    uint64_t approx_jumps;          /* approximate jumps of groups (--steady approx, run.json) */
    uint64_t approx_iterations;     /* member iterations they added (run.json) */
    double approx_iteration_bound;  /* the most iterations a job may be off by (run.json) */
    double approx_busy_gpu_s_bound; /* busy GPU-seconds they may be off by (run.json) */
    double approx_util_bound;       /* that over the cluster's GPU-seconds (run.json) */
    uint64_t approx_change_windows; /* groups' first windows opened at a change (run.json) */
    uint64_t approx_change_windows_kept; /* of those, the ones that agreed with the next (run.json) */
    uint64_t approx_carried_jumps;  /* jumps on windows carried across a one-member change (run.json) */
    uint64_t approx_wander_jumps;   /* jumps on windows that stopped doubling (run.json) */
    int64_t peak_rss_bytes;
} replay_summary;

/* Prepare a replay: resolve every job's model (catalog, GPU type, jitter),
 * apply the time scale and window, check the trace fits the topology, build
 * the network and an instance of the scheduler ops (the engine knows
 * schedulers only through sim/scheduler.h: the caller picks ops, normally
 * sched_registry_lookup(cfg->scheduler) of schedulers/registry.h; ops must
 * outlive the replay).  Errors (CCS_ERROR_INVALID): unknown model, a job larger than
 * the cluster or a trace whose peak GPU demand exceeds it (saying by how
 * much; --scale-hosts allows it and skips what does not fit), an empty
 * window.  (transfer full) */
replay *replay_new(const config *cfg, const sched_ops *ops, topo *t, const trace *tr,
                   const catalog *cat, GError **error);
void replay_free(replay *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(replay, replay_free)

/* --- Time shards (docs/cluster.md, "Long replays split in time") -------- */

/* The measured windows of a run over [start_s, end_s] split in count
 * shards: bounds[0..count] (count + 1 values, bounds[0] = start_s,
 * bounds[count] = end_s), the inner ones on the run's time-series grid
 * (start_s + m interval_s, summed as the replay's ticks are), shard k
 * holding floor((k+1) M / count) - floor(k M / count) of its M intervals.
 * CCS_ERROR_INVALID when count exceeds M ("--shards N: ... at most M").
 * O(M). */
bool replay_shard_bounds(double start_s, double end_s, double interval_s, int count,
                         double *bounds, GError **error);

/* Shard `index` (0-based) of the cfg->sim.shards shards of the run
 * replay_new(cfg, ...) would make: the same jobs, placements, levels and
 * scheduler, simulated from a warm-up start w (docs/cluster.md) to the
 * shard's end, measured from its start: its outputs cover
 * [bounds[index], bounds[index + 1]] (timeseries.csv and links.csv rows,
 * jobs.csv and summary.csv counters from that time on), and it also
 * writes REPLAY_SHARD_JOBS_FILE (each measured job's counters to 17
 * digits, for the merge) and a "shard" object in run.json.  index < 0 is
 * replay_new.  Errors: as replay_new; CCS_ERROR_INVALID in work mode or
 * for too many shards (replay_shard_bounds). */
replay *replay_new_shard(const config *cfg, const sched_ops *ops, topo *t, const trace *tr,
                         const catalog *cat, int index, GError **error);
#define REPLAY_SHARD_JOBS_FILE "shard_jobs.csv"

/* The window the replay simulates, [*start_s, *end_s] (of a shard: from
 * its warm-up's start to its end). */
void replay_window(const replay *r, double *start_s, double *end_s);

/* Run to the end of the window (window mode) or until every job has done
 * its work (work mode).  progress (nullable) is called about every 2^16
 * events.  Writes the output files into out (nullable).  Call once. */
bool replay_run(replay *r, output_dir *out, replay_progress_fn progress, void *user,
                GError **error);

void replay_get_summary(const replay *r, replay_summary *out);

/* A run's mean_slowdown and p99_slowdown from its jobs' slowdowns (double,
 * sorted here): the mean summed in ascending order, the 99th percentile
 * the nearest rank, ceil(0.99 n)-th smallest; NAN for none.  For a merge
 * that must give the run's own numbers.  O(n log n). */
void replay_slowdowns_summarize(GArray *slowdowns, double *mean, double *p99);

/* An observer of the scheduler's decisions, called after every reschedule
 * (every arrival and end) with the scheduler's read view of the running
 * jobs (sim/scheduler.h; ctx is valid during the call only; the hook
 * must not decide anything).  Returning false stops the run there:
 * replay_run returns true at once without finishing the window or writing
 * outputs, and replay_stopped() is true (the summary then means nothing).
 * `ccsim optimal-gap` uses it to skip a replay whose decisions make it the
 * same run as an earlier one.  Set before replay_run; fn NULL removes it. */
typedef bool (*replay_decision_fn)(void *user, sched_ctx *ctx);
void replay_set_decision_hook(replay *r, replay_decision_fn fn, void *user);

/* Record a timeline (sim/timeline.h) written with the run's files.  Set
 * before replay_run.  The fast path (fast-forward, stretches, group skips
 * and jumps) is off over its span: from the last metrics tick at or before
 * the span's start (nothing fast-forwarded crosses it; jobs fast-forwarded
 * alone come back to the event path at their last iteration end before
 * it) to the first tick after its end at which no transfer that started in
 * the span still runs; the timeline is then the one a run without the fast
 * path records (docs/usage.md, "Timeline"). */
struct timeline_options;
void replay_set_timeline(replay *r, const struct timeline_options *o);

/* A watcher of the run's totals, called after the first event at or past
 * each multiple of every_s (from the window's start).  It only reads:
 * watching does not change the run.  Returning false stops the run as the
 * decision hook does (`ccsim optimal-gap` stops a run that can no longer
 * beat the best one).  Set before replay_run; fn NULL removes it. */
typedef struct replay_watch {
    double now_s, end_s;   /* simulated time, the window's end */
    double busy_gpu_s;     /* busy GPU-seconds since the window's start */
    double alloc_gpu_s;    /* allocated GPU-seconds since the window's start */
    int alloc_gpus;        /* GPUs allocated now */
} replay_watch;
typedef bool (*replay_watch_fn)(void *user, const replay_watch *w);
void replay_set_watch(replay *r, double every_s, replay_watch_fn fn, void *user);

/* A request to stop, polled every 64 events:
 * when fn returns true the run stops as the watcher stops it
 * (replay_stopped() is true, nothing is written).  The command line's fn
 * reads the flag its signal handler sets, so a run stops within a few
 * milliseconds of SIGTERM whatever its simulated pace.  Set before
 * replay_run; fn NULL removes it. */
typedef bool (*replay_stop_fn)(void *user);
void replay_set_stop(replay *r, replay_stop_fn fn, void *user);

/* Jobs in the window naming a host the topology lacks (placed by the
 * policy instead), and the first as "job J: host H" (NULL when none).
 * (transfer none) */
const char *replay_unknown_hosts(const replay *r, size_t *count);

/* True if the decision hook or the watcher stopped the run. */
bool replay_stopped(const replay *r);

/* Warnings about the replay's MDOT compute times (the weights override,
 * graphs outside the training range), each once; NULL when no job took its
 * time from MDOT.  (transfer none) */
const GPtrArray *replay_compute_warnings(const replay *r);

/* When sim.mdot_weights or sim.graph_library was given but no job took its
 * time from MDOT (sim.compute catalog and no graph model; or, for the graph
 * library, no catalog model under sim.compute mdot): the warning that it
 * changed nothing, else NULL.  (transfer full) */
char *replay_compute_unused(const replay *r);

/* Per-job results, in trace order (for tests and the CLI). */
size_t replay_job_count(const replay *r);
typedef struct replay_job_result {
    const char *id;          /* (transfer none) */
    bool ran;
    int gpus;
    size_t hosts;
    int64_t iterations;
    double busy_gpu_s;
    double isolated_iter_s;
    double mean_iter_s;      /* NAN without a completed iteration */
    double slowdown;         /* mean_iter_s / isolated_iter_s */
    double completion_s;     /* work mode: end - start (NAN otherwise or unfinished) */
    double gpu_intensity;
    int priority;
    double shift_s;
    const job_structure *structure; /* (transfer none) the structure it ran, NULL: a flat job */
} replay_job_result;
void replay_job_get(const replay *r, size_t i, replay_job_result *out);

/* Contention among the jobs that ran (run.json "contention",
 * docs/traces.md "Contention risk"): GPU jobs started, those at risk (a
 * host or network link shared with another communicating job), their
 * share of the GPUs, and those slowed by another job (at risk, with a mean
 * iteration time over 1.01 x their time alone on their own ECMP paths).
 * O(jobs). */
typedef struct replay_contention {
    size_t jobs, jobs_at_risk, jobs_slowed_by_others;
    double gpus_at_risk_frac; /* 0 without GPU jobs */
} replay_contention;
void replay_contention_get(const replay *r, replay_contention *out);

/* The summary.csv columns (NULL-terminated): the run's configuration
 * first, then its results (docs/usage.md).  replay_summary_cells gives one
 * row's cells as written (char *, owned by the array), for callers that
 * add columns; replay_summary_write_row writes them into csv. */
const char *const *replay_summary_columns(void);
GPtrArray *replay_summary_cells(const replay *r, const replay_summary *s);
bool replay_summary_write_row(const replay *r, const replay_summary *s, output_csv *csv,
                              GError **error);

#endif /* CCSIM_SIM_REPLAY_H */
