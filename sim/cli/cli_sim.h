/* cli_sim.h - what `ccsim run` and `ccsim compare` share: options, the
 * configuration, inputs, the progress line.  Only cli_*.c include this.
 */
#ifndef CCSIM_SIM_CLI_CLI_SIM_H
#define CCSIM_SIM_CLI_CLI_SIM_H

#include <glib.h>
#include <stdbool.h>

#include "sim/config.h"
#include "sim/output.h"
#include "sim/replay.h"
#include "sim/timeline.h"
#include "topo/topo.h"
#include "traces/catalog.h"
#include "traces/trace.h"

/* Option values as typed (NULL / FALSE = not given). */
typedef struct cli_sim_opts {
    char *scenario, *trace, *topo, *sched, *scheds, *out;
    char *compute, *mdot_weights, *graph_library; /* where compute times come from (MDOT) */
    char *mode, *start, *end, *seed, *levels, *gpu, *interval, *time_scale, *placement,
        *collective_model, *channels, *alpha_us, *buckets, *jitter, *steady, *job_model, *shards,
        *shard_warmup, *step_latency;
    gboolean scale_hosts, gzip, quiet, no_ffwd, force;
    char **structure_set; /* --structure-set KEY=VALUE, repeated (NULL: none) */
    char *timeline, *timeline_jobs, *timeline_span;
    gboolean flows;
    int jobs; /* compare -j: schedulers run in parallel; run -j: shards (0: not given) */
    int shard_only; /* run --shard-only K: run shard K alone, no merge (-1: not given) */
    char *progress_file; /* run --progress-file: simulated-time progress for a sweep */
} cli_sim_opts;

/* The option entries pointing into o (NULL-terminated, owned by the caller
 * with g_free; the strings they fill are freed by cli_sim_opts_clear). */
GOptionEntry *cli_sim_entries(cli_sim_opts *o, bool compare);
void cli_sim_opts_clear(cli_sim_opts *o);

/* The configuration: the scenario file, then the options over it.
 * *usage is set when the error is a bad option (exit 2). */
config *cli_sim_config(const cli_sim_opts *o, bool *usage, GError **error);

/* The inputs the configuration names (or the bundled defaults). */
typedef struct cli_inputs {
    const timeline_options *timeline; /* (nullable) record a timeline in each run */
    char *topo_spec; /* the spec built (the user's or the default), NULL for an object */
    topo *t;
    trace *tr;
    catalog *cat;
    int shard;       /* the time shard cli_run_one runs (replay_new_shard), -1: the whole run */
} cli_inputs;
bool cli_inputs_load(const config *cfg, cli_inputs *in, GError **error);
/* Another copy of in's topology (one per thread: its path cache fills
 * lazily).  (transfer full) */
topo *cli_inputs_topo(const config *cfg, const cli_inputs *in, GError **error);

/* The bundled default (no scenario, no --trace, no --start/--end) replays
 * the CLI_DEFAULT_WINDOW_S seconds centred on the sample's peak GPU demand
 * (the whole day takes minutes per scheduler); sets cfg->sim.start_s/end_s. */
#define CLI_DEFAULT_WINDOW_S 7200.0
void cli_default_window(config *cfg, const cli_inputs *in);

/* Peak concurrent GPU demand of a trace (its jobs' GPUs summed over the
 * jobs running at once, ends before starts at one instant) and the first
 * trace second it is reached (*when); 0 and 0 for an empty trace. */
double cli_trace_peak(const trace *tr, double *when);
void cli_inputs_clear(cli_inputs *in);

/* The default output folder (cli_out.c):
 * results/SCENARIO_TOPOLOGY_SCHEDULERS_HASH, SCHEDULERS the names joined by
 * '+' ("all" when all is set), HASH six hex digits of the configuration's
 * SHA-256 with the scheduler set.  (transfer full) */
char *cli_default_out(const config *cfg, const char *topo_spec, const GPtrArray *scheds,
                      bool all);

/* The timeline options (cli_timeline.c): the scenario's "timeline"
 * object, then --timeline, --timeline-jobs, --timeline-span and --flows
 * over it; *wanted when a file or flows.csv is asked for.  out is freed
 * with cli_timeline_options_clear.  CCS_ERROR_INVALID, *usage set when an
 * option (not the scenario) is wrong. */
bool cli_timeline_options(const cli_sim_opts *o, const config *cfg, timeline_options *out,
                          bool *wanted, bool *usage, GError **error);
void cli_timeline_options_clear(timeline_options *out);
/* Every job id the timeline names (--timeline-jobs or timeline.jobs) is a
 * job of tr: a name that records nothing is a typo.  CCS_ERROR_INVALID,
 * *usage set when the option named it. */
bool cli_timeline_jobs_check(const cli_sim_opts *o, const config *cfg,
                             const timeline_options *tlo, const trace *tr, bool *usage,
                             GError **error);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(timeline_options, cli_timeline_options_clear)

/* The progress callback: on a terminal, one line rewritten in place every
 * 0.25 s; elsewhere (a log, a pipe) one line every CLI_PROGRESS_LOG_S of
 * wall time; nothing with quiet, or with file (a sweep's worker: the
 * sweep reads the file and reports for it). */
#define CLI_PROGRESS_LOG_S 10.0
/* CLI_PROGRESS_LOG_S, or $CCSIM_PROGRESS_LOG_S when set (only tests set
 * it, to see the lines without waiting). */
double cli_progress_log_s(void);
typedef struct cli_progress {
    bool enabled;         /* stderr is a terminal */
    bool log;             /* not a terminal: whole lines every log_s */
    double log_s;         /* cli_progress_log_s() */
    double last_wall_s;
    const char *label;
    const char *file;     /* (nullable) "NOW_S START_S END_S" rewritten every 0.5 s */
    double last_file_s;
} cli_progress;
void cli_progress_init(cli_progress *p, const char *label, bool quiet, const char *file);
void cli_progress_cb(void *user, const replay_progress *rp);
void cli_progress_done(cli_progress *p);

/* What one run leaves for the table and the messages of run and compare. */
typedef struct cli_run_result {
    replay_summary s;              /* s.scheduler: the registry's name */
    replay_contention contention;
    GPtrArray *cells;              /* its summary.csv row (replay_summary_cells), owned */
    GPtrArray *warnings;           /* odd input it accepted, one text per class (char *) */
    size_t unknown_hosts;          /* jobs naming a host the topology lacks */
} cli_run_result;
/* Fill res from a finished replay r (warnings: docs/usage.md "Odd input"). */
void cli_run_result_fill(cli_run_result *res, const replay *r, const cli_inputs *in);
void cli_run_result_clear(cli_run_result *res);

/* Print the warnings of n runs on stderr, each distinct text once:
 * "ccsim: warning: TEXT" for one run, "ccsim: warning: A, B: TEXT" naming
 * the runs that gave it, "all N runs" when every one did. */
void cli_run_warnings_print(const cli_run_result *res, size_t n);

/* `ccsim run` with cfg->sim.shards > 1 or --shard-only (cli_shards.c):
 * the shards into OUT/shards/K, side by side (o->jobs), finished ones
 * kept, then merged into OUT (docs/cluster.md).  Returns the exit status. */
int cli_run_shards(const cli_sim_opts *o, const config *cfg, cli_inputs *in, const char *out);
/* Why the shard options of o cannot run with cfg (work mode, a timeline,
 * -j or --shard-only out of range), or NULL.  (transfer full) */
char *cli_shards_refusal(const cli_sim_opts *o, const config *cfg, bool timeline);

/* The replay's stop poll (replay_set_stop): true once SIGINT or SIGTERM
 * came (cli_signal.c). */
bool cli_stop_if_signalled(void *user);

/* Run one scheduler: replay, write into d (committed on success, aborted
 * on failure: d is consumed either way) and fill *res; with progress_file
 * (nullable), keep the simulated-time progress there while running and
 * remove it at the end.  Returns false with error. */
bool cli_run_one(const config *cfg, cli_inputs *in, output_dir *d, bool quiet,
                 const char *progress_file, cli_run_result *res, GError **error);

#endif /* CCSIM_SIM_CLI_CLI_SIM_H */
