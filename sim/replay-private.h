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

typedef enum replay_job_status {
    REPLAY_JOB_OK,
    REPLAY_JOB_OUTSIDE_WINDOW, /* entirely outside --start/--end */
    REPLAY_JOB_NO_CAPACITY,    /* too few free GPUs when it arrived (--scale-hosts) */
} replay_job_status;

struct sched_ctx {
    struct replay *r;
};

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
    /* stretches of jobs that share no link (steady.c, docs/engine.md §5b) */
    bool steady_stale;         /* paths changed since the isolation was computed */
    uint32_t *level_first;     /* per link: scratch of replay__levels_groups (all UINT32_MAX) */
    uint64_t level_epoch;      /* the last replay__levels_groups */
    bool level_groups_stale;   /* a path changed since (sched_levels.c) */
    uint32_t *link_jobs;       /* per link: running jobs using it (as of the last update) */
    double *link_bound_sum;    /* per link: the sum of their link bounds (idem) */
    double *bound_acc;         /* 4 x links of zeroed scratch (plan_bounds) */
    uint32_t *bound_cnt;       /* 2 x links of zeroed scratch (plan_bounds) */
    GArray *steady_links;      /* uint32: the running jobs' links, job after job */
    GArray *steady_off;        /* guint: where running job i's links start in it */
    GArray *share_pairs;       /* (link, slot) uint32 pairs of the links two or more running
                                * jobs use, by link then slot (only under sched_ops.on_comm_local) */
    double end_min1, end_min2; /* the two earliest recorded ends of running jobs */
    const job *end_min1_job;   /* the job with end_min1 */
    struct steady_groups *groups; /* groups of jobs sharing links (steady_group.c, §5c) */
    uint64_t group_repeats;    /* anchor boundaries at which a group repeated */
    uint64_t group_fallbacks;  /* groups that found no repeat within the budget */
    uint64_t group_skips;      /* skips of whole periods */
    uint64_t group_skip_iters; /* member iterations skipped */
    uint64_t group_drift_skips; /* of the skips, those modulo long transfers */
    uint64_t approx_jumps;      /* approximate jumps (--steady approx, §5d) */
    uint64_t approx_iters;      /* member iterations added by them */
    double approx_iter_bound;   /* the largest of the jobs' approx_iter_bound */
    double approx_busy_bound;   /* busy GPU-seconds they may be off by, summed */
    uint64_t approx_change_windows; /* first windows opened at a change (§5d) */
    uint64_t approx_change_kept; /* of those, the ones that agreed with the next */
    double next_tick_s;        /* the pending interval tick */
    size_t ff_stretches;       /* stretches run, by jobs that ended */
    uint64_t ff_stretch_iters; /* iterations in them */
    size_t peak_gpus_demand;   /* of the trace in the window */
    size_t jobs_unknown_hosts; /* jobs in the window naming a host the topology lacks */
    char *first_unknown_host;  /* "job J: host H" of the first such job, or NULL */
    double wall_s;
    bool ran;
    timeline *tl;              /* (nullable) replay_set_timeline */
    replay_decision_fn decision_fn; /* (nullable) observer after each reschedule */
    void *decision_user;
    replay_watch_fn watch_fn;  /* (nullable) totals watcher */
    void *watch_user;
    double watch_every_s, watch_next_s;
    bool stopped;              /* the observer or the watcher asked to stop */
    struct sched_ctx ctx;
    /* outputs while running */
    output_csv *ts_csv, *links_csv;
    size_t tier_links[TOPO_TIER_COUNT];   /* links.csv's static columns, */
    double tier_cap_Bps[TOPO_TIER_COUNT]; /* computed once when it opens */
    GError *deferred_error;    /* an output error inside an event handler */
    /* input digests for run.json */
    char *trace_digest;
};

/* Job j stops at now_s (its end, or the run's): GPUs released, the
 * scheduler called (replay_run.c). */
void replay__job_end(struct replay *r, job *j, double now_s);

/* Call the scheduler's reschedule (sched_ctx.c). */
void replay__reschedule(struct replay *r);
/* After a reschedule: which running jobs share no link with another
 * (job.isolated), and the earliest ends (steady.c). */
void replay__steady_update(struct replay *r);
/* job_env.ff_until (steady.c). */
double replay__steady_until(void *user, const job *j, double origin_s);
/* When the next job arrives (INFINITY if none is left; steady.c). */
double replay__next_arrival_s(const struct replay *r);

/* Rebuild the groups of running jobs that share links, after
 * replay__steady_update (steady_group.c). */
void replay__groups_update(struct replay *r);
void replay__groups_free(struct steady_groups *sg);
/* job_env.group_boundary (steady_group.c). */
double replay__group_boundary(void *user, job *j, double origin_s, double now_s);

/* Call on_comm if the scheduler has it. */
void replay__on_comm(struct replay *r, job *j, bool starting);
/* Give the running transfers the levels the scheduler set, where they
 * change a rate: isolated jobs' may wait (wait: unless a path is about to
 * change), and the net's levels may be relabeled (sched_levels.c). */
void replay__levels_commit(struct replay *r, bool wait);
/* The groups of running jobs linked through shared links (job.level_group),
 * after replay__steady_update (sched_levels.c). */
void replay__levels_groups(struct replay *r);

/* Outputs (replay_output.c). */
bool replay__open_streams(struct replay *r, output_dir *d, GError **error);
bool replay__write_tick(struct replay *r, const metrics_row *row, GError **error);
bool replay__write_final(struct replay *r, output_dir *d, GError **error);

#endif /* CCSIM_SIM_REPLAY_PRIVATE_H */
