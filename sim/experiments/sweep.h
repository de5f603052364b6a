/* sweep.h - parameter sweeps: a grid of scenarios run by worker processes,
 * resumable, shardable, merged (docs/usage.md).  Not here: the command line.
 *
 * A sweep file is JSON:
 *
 *   {"base": "scenario.json" | {...scenario...},
 *    "grid": {"scheduler": ["ecmp", "crux"], "sim.seed": [1, 2, 3]},
 *    "zip":  [{"sim.start_s": [0, 3600], "sim.end_s": [3600, 7200]}]}
 *
 * Each grid key is an axis; each zip group is one axis whose lists advance
 * together (they must have equal lengths).  A key is a dotted path into the
 * scenario (`sim.priority_levels` sets scenario.sim.priority_levels, making
 * missing objects), or `--option`, which passes `--option=VALUE` to
 * `ccsim run` instead.  Axes are ordered as written, grid keys first, then
 * the zip groups; runs are their cartesian product with the last axis
 * varying fastest, so run i is the same run on every machine.
 *
 * A run's name is the first 12 hex digits of the SHA-256 of the canonical
 * JSON (sorted keys, fixed number format) of {"args": {...--options...},
 * "scenario": resolved scenario as written, relative paths unresolved}, so
 * names do not depend on where the sweep is run.  Two runs with the same
 * name are an error.  The scenario written for a worker has relative trace
 * and topology file paths made absolute (base paths against the base file's
 * folder, grid values against the sweep file's folder).
 *
 * A worker runs as `WORKER run --scenario scenario.json --out .` inside
 * DIR/runs/NAME, so its outputs do not depend on where DIR is.
 *
 * Output folder layout (sweep_execute, sweep_write_summary):
 *   DIR/sweep.json             the sweep with its base inlined
 *   DIR/runs/NAME/scenario.json, and what `ccsim run --out` writes there;
 *                              summary.csv marks a finished run
 *   DIR/runs/NAME/error.txt    a failed run: command, exit status, stderr
 *   DIR/summary.csv            run, grid parameters, then the run's columns
 *   DIR/failed.csv             run, grid parameters, exit_status, error
 */
#ifndef CCSIM_SIM_EXPERIMENTS_SWEEP_H
#define CCSIM_SIM_EXPERIMENTS_SWEEP_H

#include <cjson/cJSON.h>
#include <gio/gio.h>
#include <stdbool.h>
#include <stddef.h>

/* Hex digits of the configuration hash that ends a run name. */
#define SWEEP_NAME_LEN 8
/* summary.csv's gain_vs_ecmp_frac: SWEEP_GAIN_METRIC of each run over that
 * of the SWEEP_BASELINE run with the same other swept values, minus 1. */
#define SWEEP_BASELINE "ecmp"
#define SWEEP_GAIN_METRIC "gpu_util_cluster_frac"
/* Characters of a run name's readable part (the swept values), at most. */
#define SWEEP_READABLE_MAX 96

typedef struct sweep sweep;

/* The `--option` grid keys a sweep passes on to `ccsim run`
 * (NULL-terminated, static): an allow-list of the options that change
 * what a run computes; output paths (--out, --progress-file, --timeline,
 * --force), --scenario, --help and --version are not in it. */
const char *const *sweep_option_keys(void);

/* Parse a sweep from a buffer.  `name` is used in messages (a file name);
 * `dir` is the folder relative paths are taken from (the sweep file's).
 * A string `base` is read as a scenario file relative to `dir`.
 * Returns (transfer full) the expanded sweep, or NULL with CCS_ERROR_PARSE
 * (bad JSON), CCS_ERROR_INVALID (bad structure; the message names the key)
 * or CCS_ERROR_IO (base file unreadable).  Cost: O(runs × scenario size). */
sweep *sweep_parse(const char *buf, size_t len, const char *name, const char *dir,
                   GError **error);

/* Read and parse a sweep file (as sweep_parse, dir = the file's folder). */
sweep *sweep_load(const char *path, GError **error);

void sweep_free(sweep *sw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(sweep, sweep_free)

/* Number of runs (the product of the axis lengths; 1 with no axes). */
size_t sweep_run_count(const sweep *sw);
/* Name of run i (transfer none): its swept values and a hash of its whole
 * configuration, "ecmp_collective_model=ring_seed=1_1a2b3c4d" (a value
 * that is a path: its base name; an object: "obj"). */
const char *sweep_run_name(const sweep *sw, size_t i);
/* Index of the run called name, or -1.  O(1). */
long sweep_run_find(const sweep *sw, const char *name);

/* Parameter keys (every key of every axis, in axis order), and the CSV
 * column name of each (the key without a leading "--"). */
size_t sweep_param_count(const sweep *sw);
const char *sweep_param_key(const sweep *sw, size_t k);
const char *sweep_param_column(const sweep *sw, size_t k);
/* Value of parameter k in run i as text: a string as is, a number as
 * written canonically, anything else as canonical JSON.  (transfer full) */
char *sweep_run_param_text(const sweep *sw, size_t i, size_t k);

/* The scenario of run i with paths made absolute, pretty-printed JSON
 * (transfer full). */
char *sweep_run_scenario_text(const sweep *sw, size_t i);
/* The time shards run i is split in (docs/cluster.md): its --shards
 * option, else its scenario's sim.shards, else 1 (1 also for a value
 * that is not a whole number >= 1: the run itself reports it).  A run of
 * N > 1 shards is N tasks, `ccsim run --shard-only K`, then a merge. */
int sweep_run_shards(const sweep *sw, size_t i);

/* Extra `ccsim run` options of run i ("--gpu=h100", ...), NULL-terminated
 * (transfer full, g_strfreev). */
char **sweep_run_args(const sweep *sw, size_t i);

/* The sweep as self-contained JSON (base inlined, folders recorded), which
 * sweep_parse turns back into the same runs; what DIR/sweep.json holds.
 * (transfer full) */
char *sweep_to_json(const sweep *sw);

/* Canonical JSON of a value: object keys sorted bytewise, no spaces,
 * integral numbers below 2^53 as integers, others as %.17g, strings with
 * only '"', '\\' and control characters escaped.  (transfer full) */
char *sweep_canonical_json(const cJSON *value);

/* --- Running ----------------------------------------------------------- */

/* Why the progress callback was called. */
typedef enum sweep_progress_at {
    SWEEP_AT_START,   /* before any run starts */
    SWEEP_AT_TICK,    /* once a second while runs are going */
    SWEEP_AT_RUN_END, /* a run just ended: last_name, last_ok */
} sweep_progress_at;

/* Progress at the start, every second and after each finished task (of
 * this shard only). */
typedef struct sweep_progress {
    sweep_progress_at at;
    size_t total;     /* tasks of this shard (runs, and time shards of split runs) */
    size_t skipped;   /* already finished before this call */
    size_t done;      /* finished, including skipped */
    size_t failed;    /* failed in this call */
    size_t running;   /* workers busy now */
    double elapsed_s; /* wall time since the call began */
    double eta_s;     /* estimated wall time left, < 0 when unknown */
    const char *last_name; /* the run that ended last, NULL before any */
    bool last_ok;          /* whether it succeeded */
    const char *last_warnings; /* its "ccsim: warning: " lines, prefix removed, joined by
                                * '\n' (a run that succeeded; NULL when none; valid
                                * during the call only) */
} sweep_progress;

typedef void (*sweep_progress_fn)(const sweep_progress *p, void *data);

/* A unit of work: a whole run, or one time shard of a run split in
 * shards > 1 (sweep_run_shards).  The tasks are the runs in order, a split
 * run in its shards' order; --shard I/N deals them out. */
typedef struct sweep_task {
    size_t run;  /* run index */
    int shard;   /* its shard, -1: the whole run */
    int shards;  /* the run's shard count */
} sweep_task;

/* The sweep's tasks in order.  (transfer full) GArray of sweep_task. */
GArray *sweep_tasks(const sweep *sw);

/* Merge every run of the sweep in DIR whose shards have all finished and
 * that has not been merged yet (shard_merge.h: it takes the run's lock, as
 * several Slurm tasks may finish a run's last shards at once).  A merge
 * that fails is recorded in the run's error.txt and counted in *failed
 * (nullable).  False only when that error.txt cannot be written. */
bool sweep_merge_shards(const sweep *sw, const char *dir, size_t *failed, GError **error);

typedef struct sweep_options {
    const char *worker_path;  /* the ccsim binary to run as `WORKER run ...` */
    int jobs;                 /* parallel workers, >= 1 */
    int shard_index;          /* run only tasks with index % shard_count == shard_index */
    int shard_count;          /* >= 1 */
    GCancellable *cancellable; /* cancelled: kill the workers and return (nullable) */
    sweep_progress_fn progress; /* called from the caller's thread (nullable) */
    void *progress_data;
} sweep_options;

/* Defaults: worker NULL (must be set), 1 job, shard 0/1. */
sweep_options sweep_options_default(void);

/* Create DIR (and DIR/runs), write DIR/sweep.json (refusing a DIR that
 * holds a different sweep, CCS_ERROR_INVALID), and run every unfinished
 * task of the shard with up to opts->jobs workers at once, iterating the
 * caller's thread-default GMainContext.  A run is finished when
 * DIR/runs/NAME/summary.csv exists; an unfinished run's folder is emptied
 * first.  A time shard K of a split run is finished when
 * DIR/runs/NAME/shards/K/summary.csv exists; its worker is `ccsim run
 * --shard-only K` in DIR/runs/NAME, and the run is merged when its last
 * shard ends (and at the end: sweep_merge_shards).  A failed run or
 * shard (non-zero exit, a signal, or no summary.csv) gets
 * DIR/runs/NAME/error.txt; the others continue.  Then writes the summaries
 * (sweep_write_summary).  Returns false only when the sweep itself cannot
 * proceed (IO); failures of tasks are counted in *last (nullable). */
bool sweep_execute(const sweep *sw, const char *dir, const sweep_options *opts,
                   sweep_progress *last, GError **error);

/* Write DIR/summary.csv and DIR/failed.csv from every run of the sweep
 * (all shards) found in DIR/runs, in run order, atomically and under an
 * POSIX lock (lockf) on DIR/.lock so concurrent shards sharing DIR end with a complete
 * file.  *finished and *failed (nullable) get the counts. */
bool sweep_write_summary(const sweep *sw, const char *dir, size_t *finished, size_t *failed,
                         GError **error);

/* --- Merging ----------------------------------------------------------- */

typedef struct sweep_merge_report {
    GPtrArray *missing;    /* run names expected but in no summary (char *) */
    GPtrArray *duplicated; /* run names found more than once (char *) */
    GPtrArray *failed;     /* "NAME: exit status N: error" for missing runs in a failed.csv */
    size_t rows;           /* rows written */
} sweep_merge_report;

void sweep_merge_report_clear(sweep_merge_report *r);

/* Merge the summaries of n sweep folders into one CSV at out_path ("-" or
 * NULL: the returned text only).  A folder's rows are rebuilt from its
 * DIR/runs when it has them (as sweep_write_summary would), else read from
 * DIR/summary.csv.  The expected runs are
 * the union of the expansions of each DIR/sweep.json.  Columns are the
 * union of the inputs' columns in order of first appearance; rows follow
 * the run order.  Fills *report (initialise with {0}; clear with
 * sweep_merge_report_clear).  Returns the merged CSV (transfer full), or
 * NULL on an IO or parse error, or CCS_ERROR_INVALID when runs are missing
 * or duplicated (nothing written; *report names them). */
char *sweep_merge(const char *const *dirs, size_t n, const char *out_path,
                  sweep_merge_report *report, GError **error);

/* --- CSV (shared by the sweep files) ------------------------------------ */

/* Parse CSV text (RFC 4180 quoting) into rows of fields: a GPtrArray of
 * GPtrArray of char *.  (transfer full)  NULL with CCS_ERROR_PARSE
 * ("name:line: ...") on an unterminated quote. */
GPtrArray *sweep_csv_parse(const char *text, const char *name, GError **error);
/* Append one field to a CSV line, quoted when it holds , " or a newline. */
void sweep_csv_append_field(GString *line, const char *field, bool first);

#endif /* CCSIM_SIM_EXPERIMENTS_SWEEP_H */
