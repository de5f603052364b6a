/* replay-private.h - the replay's internals, shared by replay.c,
 * replay_run.c, sched_ctx.c and replay_output.c only.
 */
#ifndef CCSIM_SIM_REPLAY_PRIVATE_H
#define CCSIM_SIM_REPLAY_PRIVATE_H

#include "timeline.h"
#include "cluster.h"
#include "contention.h"
#include "event.h"
#include "job.h"
#include "metrics.h"
#include "net.h"
#include "replay.h"
#include "scheduler.h"
#include "sim/steady/steady.h"

typedef enum replay_job_status {
    REPLAY_JOB_OK,
    REPLAY_JOB_OUTSIDE_WINDOW, /* entirely outside --start/--end */
    REPLAY_JOB_NO_CAPACITY,    /* too few free GPUs when it arrived (--scale-hosts) */
} replay_job_status;

struct sched_ctx {
    struct replay *r;
};

/* Compute seconds per iteration of a job of model m on gpu: the catalog's,
 * or MDOT's for a graph model or under sim.compute = "mdot" (replay_compute.c).
 * False with the error (no weights for the GPU, a bad graph, ...). */
bool replay__compute_s(struct replay *r, const catalog_model *m, catalog_gpu gpu, double *out,
                       GError **error);
/* The replay's MDOT object (traces/mdot_compute.h), made at the first
 * call: weights for its GPU or the override, else NULL and the refusal.
 * (transfer none) */
struct mdot_compute *replay__mdot(struct replay *r, GError **error);
/* Under sim.compute = "mdot", a structured job of catalog model m built by
 * the replay from the catalog (not one the scenario describes or pins) takes
 * its stages' forward and backward times from MDOT at micro_batch samples
 * (0: the library's batch over the micro-batches; mdot_compute_structure);
 * otherwise, or when the library keeps m's
 * catalog time, s is left as it is. */
bool replay__mdot_structure(struct replay *r, const catalog_model *m, struct job_structure *s,
                            double micro_batch, GError **error);
/* run.json's "compute" object.  (transfer full) */
cJSON *replay__compute_json(const struct replay *r);

struct replay {
    config *cfg;               /* a private copy of the options that matter (owned) */
    const config *cfg_in;      /* (transfer none) for run.json */
    topo *t;                   /* borrowed */
    const trace *tr;           /* borrowed */
    evq *q;
    net *n;
    cluster *cl;
    metrics *m;
    GRand *rng_place;          /* placement draws */
    GRand *rng_sched;          /* the scheduler's draws */
    const sched_ops *ops;
    void *sched;               /* the scheduler instance */
    int levels;                /* priority levels in use */
    job_env env;
    GPtrArray *jobs;           /* job*, trace order */
    GArray *status;            /* replay_job_status per job */
    GPtrArray *running;        /* job* running, arrival order */
    size_t next_start;         /* index into start_order of the next arrival */
    GArray *start_order;       /* job indices by start time */
    uint64_t next_uid;
    double sim_start_s, sim_end_s;
    double run_end_s;          /* when the run actually ended */
    size_t jobs_done;
    size_t jobs_ran, jobs_skipped_window, jobs_skipped_capacity, jobs_by_policy;
    size_t jobs_ffwd;          /* jobs run fast-forwarded (docs/engine.md) */
    contention *risk;          /* the contention risk of the jobs that ran, keyed by uid */
    steady *steady;            /* the steady-state wing (sim/steady/; made by replay_run) */
    double next_tick_s;        /* the pending interval tick */
    size_t ff_stretches;       /* stretches run, by jobs that ended */
    uint64_t ff_stretch_iters; /* iterations in them */
    size_t peak_gpus_demand;   /* of the trace in the window */
    size_t jobs_unknown_hosts; /* jobs in the window naming a host the topology lacks */
    char *first_unknown_host;  /* "job J: host H" of the first such job, or NULL */
    struct mdot_compute *mc;   /* MDOT compute times (replay_compute.c), or NULL */
    double wall_s;
    bool ran;
    timeline *tl;              /* (nullable) replay_set_timeline */
    int span;                  /* with tl: SPAN_BEFORE, SPAN_OPEN or SPAN_AFTER (replay_run.c) */
    double span_open_s;        /* the tick at which its span opens (the fast path's horizon) */
    replay_decision_fn decision_fn; /* (nullable) observer after each reschedule */
    void *decision_user;
    replay_watch_fn watch_fn;  /* (nullable) totals watcher */
    void *watch_user;
    double watch_every_s, watch_next_s;
    replay_stop_fn stop_fn;    /* (nullable) polled every 64 events */
    void *stop_user;
    bool stopped;              /* the observer, the watcher or stop_fn asked to stop */
    struct sched_ctx ctx;
    /* outputs while running */
    output_csv *ts_csv, *links_csv;
    size_t tier_links[TOPO_TIER_COUNT];   /* links.csv's static columns, */
    double tier_cap_Bps[TOPO_TIER_COUNT]; /* computed once when it opens */
    GError *deferred_error;    /* an output error inside an event handler */
    /* input digests for run.json */
    char *trace_digest;
    struct replay_shard *shard; /* (nullable) one time shard of the run (replay_shard.c) */
    GHashTable *pcie_by;       /* link + 1 -> GArray of the PCIe links it dominates for the
                                * whole run (replay_links.c), */
    GHashTable *pcie_nic;      /* and the other way: PCIe link + 1 -> NIC link + 1 */
};

/* Job j stops at now_s (its end, or the run's): GPUs released, the
 * scheduler called (replay_run.c). */
void replay__job_end(struct replay *r, job *j, double now_s);

/* The links that never bind (replay_links.c): a hop's PCIe links for the
 * whole run, set once the net has its links; a running job's NIC and PCIe
 * links (coll_plan_nic_links), from when its plan is made to when its
 * transfers are gone (j->nic_dom).  An error is an engine invariant
 * broken. */
bool replay__set_dominators(struct replay *r, GError **error);
bool replay__job_links_dominate(struct replay *r, job *j, GError **error);
bool replay__job_links_release(struct replay *r, job *j, GError **error);

/* Call the scheduler's reschedule, then update the wing (sched_ctx.c). */
void replay__reschedule(struct replay *r);
/* Call on_comm if the scheduler has it (sched_ctx.c). */
void replay__on_comm(struct replay *r, job *j, bool starting);

/* Job j's plan (or graph, for a structured job) on j->alloc with its uid,
 * and its isolated iteration time (replay_run.c). */
bool replay__job_prepare(struct replay *r, job *j, GError **error);

/* One time shard (replay_shard.c, docs/cluster.md).  Set-up after the
 * whole run's window and checks: the warm-up's start, the run's placements
 * up to it, the window narrowed. */
bool replay__shard_setup(struct replay *r, int index, GError **error);
void replay__shard_free(struct replay_shard *sh);
/* Job idx was placed before the warm-up (it resumes at its start). */
bool replay__shard_placed(const struct replay *r, guint idx);
/* Before job_begin of job idx: a resumed job starts on its isolated grid. */
bool replay__shard_align(struct replay *r, job *j, guint idx, double now_s, GError **error);
/* Job idx found no room at now_s (--scale-hosts). */
void replay__shard_no_room(struct replay *r, guint idx, double now_s);
/* The measured window's start while it is ahead (a change the fast paths
 * stop at), else INFINITY. */
double replay__shard_mark_s(const struct replay *r);
/* The first event at the measured window's start: counters taken. */
void replay__shard_mark(struct replay *r, double now_s);
/* A time-series row of the warm-up (not written). */
bool replay__shard_hides_row(const struct replay *r, const metrics_row *row);
/* The measured part of job i's result, of the run's summary. */
void replay__shard_job_result(const struct replay *r, guint i, replay_job_result *o);
void replay__shard_summary(const struct replay *r, replay_summary *s);
/* After the run: statuses and times as the whole run's. */
void replay__shard_finish(struct replay *r);
/* run.json's "shard" object and the exact per-job counters (REPLAY_SHARD_JOBS_FILE). */
bool replay__shard_write(struct replay *r, output_dir *d, cJSON *root, GError **error);

/* Outputs (replay_output.c). */
bool replay__open_streams(struct replay *r, output_dir *d, GError **error);
bool replay__write_tick(struct replay *r, const metrics_row *row, GError **error);
bool replay__write_final(struct replay *r, output_dir *d, GError **error);

#endif /* CCSIM_SIM_REPLAY_PRIVATE_H */
