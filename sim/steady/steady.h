/* steady.h - the steady-state wing: the fast path of the running jobs
 * between two changes (docs/engine.md §4 "Levels the net does not need to
 * see", §5b-§5d).  Not here: a job's own fast-forward (sim/job_ffwd.c), the
 * periodic profile (sim/ffwd.h), the event path.
 *
 * The wing keeps its own state (struct steady): per link, the running jobs
 * that use it and the sum of their bounds; per running job, a side record
 * (whether it runs as alone, its peers, its group, its level state, its
 * approximate jumps' error); the groups of jobs sharing links with their
 * snapshots; its counters.  The replay feeds it through steady_env (the
 * running jobs, the network, the queue, the metrics, the scheduler's
 * promises, and callbacks for what only the replay knows: the next
 * arrival, the next interval tick) and the calls below; the wing never
 * reaches into the replay, and it sees a job's iteration only through the
 * functions of sim/job.h's section "What the steady-state wing asks of a
 * job".
 *
 * What it decides:
 *  - steady_until (job_env.ff_until): until when a job may run a
 *    fast-forwarded stretch (§5b);
 *  - steady_boundary (job_env.group_boundary): at an iteration boundary of
 *    a group's anchor or fast member, how far the whole group skips or
 *    jumps (§5c, §5d);
 *  - steady_levels_commit: which levels the net needs to see (§4).
 *
 *   steady *s = steady_new(&env);
 *   ... each reschedule: steady_after_reschedule(s) ...
 *   steady_free(s);
 */
#ifndef CCSIM_SIM_STEADY_STEADY_H
#define CCSIM_SIM_STEADY_STEADY_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/job.h"
#include "sim/metrics.h"
#include "sim/net.h"
#include "sim/scheduler.h"
#include "topo/topo.h"

typedef struct steady steady;

/* What the wing needs from the replay that feeds it (all borrowed: they
 * outlive the wing). */
typedef struct steady_env {
    topo *t;                   /* the topology (topo link i == net link i) */
    net *n;                    /* the shared network */
    evq *q;                    /* the replay's queue (its clock) */
    metrics *m;                /* the metrics (a jump's busy ramp) */
    GPtrArray *running;        /* job*: the running jobs, arrival order, kept current by
                                * the replay (job j of the scheduler's sched_ctx) */
    int levels;                /* the net's priority levels */
    bool fast_forward;         /* the fast path is on (off: --no-fast-forward, timelines) */
    bool window_mode;          /* every job's end is known in advance (window mode) */
    bool ideal;                /* the scheduler's ideal_network: no transfer on the net */
    bool approx;               /* --steady approx (§5d) */
    double end_s;              /* the window's end */
    bool hook;                 /* the scheduler has an on_comm hook */
    sched_comm_hints hints;    /* its promises (sim/scheduler.h); hints.ignores is asked
                                * through ignores below */
    void *user;                /* passed to the callbacks */
    /* (nullable: never) hints.ignores for running job slot */
    bool (*ignores)(void *user, size_t slot);
    /* (nullable: the hook keeps no state) hints.state and hints.delay for
     * running job slot: its state as doubles appended to out (double) */
    void (*hook_state)(void *user, size_t slot, double now_s, GArray *out);
    void (*hook_delay)(void *user, size_t slot, double dt_s);
    /* the next job arrival (INFINITY if none is left) */
    double (*next_arrival_s)(void *user);
    /* the end of the current time-series interval */
    double (*next_tick_s)(void *user);
} steady_env;

/* The wing's counters (run.json; docs/engine.md §5c, §5d). */
typedef struct steady_counters {
    uint64_t group_repeats;    /* anchor boundaries at which a group repeated */
    uint64_t group_fallbacks;  /* groups that found no repeat within the budget */
    uint64_t group_skips;      /* skips of whole periods */
    uint64_t group_skip_iters; /* member iterations skipped */
    uint64_t group_drift_skips; /* of the skips, those modulo long transfers */
    uint64_t approx_jumps;     /* approximate jumps (--steady approx) */
    uint64_t approx_iters;     /* member iterations added by them */
    double approx_iter_bound;  /* the most iterations one job's jumps may be off by */
    double approx_busy_bound;  /* busy GPU-seconds they may be off by, summed */
    uint64_t approx_change_windows; /* first windows opened at a change */
    uint64_t approx_change_kept; /* of those, the ones that agreed with the next */
    uint64_t approx_carried;   /* jumps on windows carried across a one-member change */
    uint64_t approx_wander;    /* jumps on windows that stopped doubling (wanders()) */
} steady_counters;

/* A wing over env (copied).  (transfer full) */
steady *steady_new(const steady_env *env);
void steady_free(steady *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(steady, steady_free)

/* After each reschedule (the running set or decisions changed): which
 * running jobs run as alone, their peers and groups, the groups of levels,
 * the levels given to the net, and which jobs no level touches.
 * O(running jobs' plan links) plus the groups' rebuild. */
void steady_after_reschedule(steady *s);

/* The scheduler is about to move a path of running job j: the levels
 * reach the net now, j's bounds are dropped, and everything computed from
 * the paths is stale until the next update (called before
 * job_paths_changed). */
void steady_paths_changing(steady *s, const job *j);

/* Job j stopped: its record goes. */
void steady_job_end(steady *s, const job *j);

/* job_env.ff_until: the time before which running job j, whose next
 * iteration would start at origin_s, may run fast-forwarded (§5b), or
 * -INFINITY. */
double steady_until(steady *s, const job *j, double origin_s);

/* job_env.group_boundary: j ended an iteration at now_s, its next would
 * start at origin_s: how much later it starts because its whole group
 * skipped or jumped (§5c, §5d), or 0. */
double steady_boundary(steady *s, job *j, double origin_s, double now_s);

/* Give the running transfers the levels the scheduler set where they
 * change a rate (docs/engine.md §4): jobs that run as alone may wait
 * (wait: unless a path is about to change), and the net's levels may be
 * relabeled.  After each on_comm call. */
void steady_levels_commit(steady *s, bool wait);

/* Turn the fast path off (on false) or back on, now (a timeline's span,
 * docs/usage.md "Timeline").  Off: no stretch starts and no group skips
 * or jumps from now on, and every level reaches the net as the scheduler
 * set it, as with --no-fast-forward; what runs fast-forwarded now stays so
 * (the replay makes sure nothing does: stretches, skips and jumps end
 * before its next_arrival_s).  On: the groups are formed anew (no window
 * measured before is carried over the pause) and the levels committed as
 * after a reschedule.  Jobs' own fast-forward is the replay's
 * (job_ffwd_leave_before).  A no-op when the run has the fast path off. */
void steady_set_fast_path(steady *s, bool on);

/* The counters so far, into out. */
void steady_get_counters(const steady *s, steady_counters *out);

#endif /* CCSIM_SIM_STEADY_STEADY_H */
