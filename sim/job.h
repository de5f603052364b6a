/* job.h - one training job at run time: the iteration state machine
 * (docs/model.md "Jobs", §4 shifts).  Not here: placement, collectives.
 *
 * The model.  An iteration of job j starts at t0 and computes for C seconds
 * (forward then backward; the job's n GPUs are busy).  Its gradient
 * communication of S bytes is split in B buckets: bucket k (0-based) is
 * ready at t0 + s*C + k*(1-s)*C/B (s = fwd_frac, the catalog's
 * comm_start_frac: after the forward pass when the framework overlaps, 1
 * when it reduces after the backward pass; B = 1 issues everything at s*C).  Buckets run one after the
 * other (one stream): a bucket starts when it is ready and the previous
 * one is done, and runs the steps of the collective plan in order.  The
 * iteration ends at
 *     t_end = max(t0 + C, end of the last bucket) + T_opt
 * (the optimizer step, GPUs busy), and the next one starts at t_end plus
 * any time shift the scheduler asked for (a shift is consumed once).
 *
 * Isolated iteration time.  The same plan, with the job alone on a fresh
 * network holding only its links and its flows spread over their candidate
 * paths (coll_plan_spread_paths: alone, nothing else decides its routing),
 * gives the duration T_b of one bucket
 * (simulated by the same engine, not a formula: startup latencies and
 * multiplicities included).  Then, with e_{-1} = t0 and
 *     e_k = max(t0 + s*C + k*(1-s)*C/B, e_{k-1}) + T_b,
 *     iso = max(C, e_{B-1} - t0) + T_opt,
 * which for B = 1 is max(C, s*C + T_comm) + T_opt with T_comm = T_b.
 *
 * Ideal mode (the `ideal` scheduler): a bucket takes T_b without touching
 * the shared network, so every job runs as if alone.
 *
 * Events live in the replay's evq; a job names its events with a
 * generation number, so stopping a job (job_stop) makes every pending
 * event of it stale without searching the queue.
 *
 * Fast-forward (docs/engine.md).  A job whose iterations cannot meet any
 * other job's (job_ffwd_eligible) has iterations of exactly iso seconds,
 * back to back: busy on [t0, t0 + C) and [t0 + iso - T_opt, t0 + iso).
 * Given a profile (job_ffwd_prepare) it runs without per-iteration
 * events: its iterations, busy time and link bytes are functions of time
 * (ffwd.h) evaluated when it stops, and the metrics integrate them through
 * the env's ffwd callback.  Its only events: the end of its work (work
 * mode), and the end of the iteration in progress when a scheduler asks
 * for a time shift (job_set_shift), where the shift is consumed as in
 * finish_iteration and the periodic pattern restarts after it.
 *
 * Fast-forwarded stretches (docs/engine.md §5b).  Any other job with
 * communication is fast-forwarded for a stretch of whole iterations when,
 * at an iteration boundary, the env's ff_until says that it shares no link
 * with another running job until some time U (the next change that could
 * make it share one).  Its period is then T' = iso computed from one
 * bucket simulated alone on its *current* paths (collisions among its own
 * flows included; ff_cache keeps that profile until its paths change),
 * and it runs k whole iterations, k the largest with t0 + k T' < U,
 * without events; at t0 + k T' it is back on the event path, before the
 * change happens.
 */
#ifndef CCSIM_SIM_JOB_H
#define CCSIM_SIM_JOB_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "cluster.h"
#include "collective.h"
#include "event.h"
#include "ffwd.h"
#include "job_graph.h"
#include "net.h"
#include "topo/topo.h"
#include "traces/structure.h"

typedef struct job job;

/* What a fast-forwarded job tells the metrics (job_env.ffwd). */
typedef enum job_ffwd_event {
    JOB_FFWD_START,  /* the periodic pattern starts at origin_s */
    JOB_FFWD_REBASE, /* it stops at now_s and restarts at origin_s (a shift) */
    JOB_FFWD_STOP,   /* the job stops at now_s */
} job_ffwd_event;

/* What a job needs from the replay that runs it. */
typedef struct job_env {
    evq *q;           /* the replay's queue */
    net *n;           /* the shared network (topo link i == net link i) */
    topo *t;          /* the topology */
    double alpha_s;   /* startup latency per collective step */
    bool ideal;       /* communication as if alone (no network transfers) */
    void *user;       /* passed to the callbacks */
    /* the number of busy GPUs of job changed by delta at now_s */
    void (*busy_changed)(void *user, job *j, int delta_gpus, double now_s);
    /* job starts (starting) or ends its communication phase */
    void (*comm_phase)(void *user, job *j, bool starting, double now_s);
    /* an iteration ended; return false to stop the job (work mode) */
    bool (*iteration_done)(void *user, job *j, double now_s);
    /* a fast-forwarded job's pattern changed (instead of busy_changed) */
    void (*ffwd)(void *user, job *j, job_ffwd_event ev, double origin_s, double now_s);
    /* (nullable) j ended an iteration at now_s and its next would start at
     * origin_s: how much later it starts (0: not at all; the steady-state
     * wing, sim/steady/, which has moved j's whole group by that delay) */
    double (*group_boundary)(void *user, job *j, double origin_s, double now_s);
    /* (nullable) j's next iteration would start at origin_s: the time
     * before which it may run fast-forwarded (it shares no link with
     * another running job until then), or -INFINITY if it may not */
    double (*ff_until)(void *user, const job *j, double origin_s);
    /* (nullable) the network refused one of j's transfers (an invariant of
     * the engine broke): the callee takes error and stops the run; j stays
     * stuck.  Without it the error is logged as a critical. */
    void (*failed)(void *user, job *j, GError *error);
    /* (nullable) observers of j's network transfers (the packet export):
     * transfer xfer of step `step` of `unit` (a plain job's bucket, a
     * structured job's communication task) started as net transfer id,
     * in iteration j->iterations; a transfer moved its last byte */
    void (*xfer_started)(void *user, const job *j, uint32_t unit, size_t step, size_t xfer,
                         net_transfer_id id, double now_s);
    void (*xfer_done)(void *user, const job *j, net_transfer_id id, double now_s);
} job_env;

typedef enum job_state {
    JOB_PENDING, /* not started yet */
    JOB_RUNNING,
    JOB_DONE,    /* ran and ended */
    JOB_SKIPPED, /* never ran (outside the window, or could not be placed) */
} job_state;

/* The resolved description of a job (units in names). */
typedef struct job_spec {
    char *id;          /* trace job id */
    char *model;       /* catalog entry name */
    int gpus;          /* n */
    double start_s;    /* replay start (simulated time) */
    double end_s;      /* recorded end (simulated time) */
    char **hosts;      /* recorded host names (NULL-terminated), may be empty */
    int *host_gpus;    /* GPUs per recorded host, or NULL (spread evenly) */
    double compute_s;  /* C: compute per iteration, jitter applied */
    double fwd_frac;   /* s */
    double opt_s;      /* T_opt */
    double comm_bytes; /* S per iteration */
    coll_kind coll;    /* collective pattern */
    int buckets;       /* B >= 1 */
    job_structure *structure; /* the job's parallel structure, or NULL: the plain job
                               * above (owned by a job's own spec, borrowed otherwise) */
} job_spec;

/* Run-time record of a job; the replay owns it.  Fields below "state" are
 * written by job.c only. */
struct job {
    job_spec spec;
    uint64_t uid;              /* arrival sequence, unique in the run */
    const job_env *env;        /* (transfer none) */
    cluster_alloc *alloc;      /* placement while running (owned) */
    coll_plan *plan;           /* communication plan while running (owned) */
    GArray *nic_dom;           /* uint32_t: links the replay declared twins or dominated
                                * while it runs (replay_links.c), or NULL */
    double isolated_iter_s;    /* iteration time alone */
    double isolated_bucket_s;  /* T_b alone */
    double alone_ecmp_iter_s;  /* iteration time alone on its first (ECMP) paths, own hash
                                * collisions included (>= isolated_iter_s) */
    double intensity;          /* I = n C / max_e M_e / B_e (0 without traffic) */
    int priority;              /* its scheduler level (jobs.csv) */
    int class_priority[JOB_GRAPH_CLASS_COUNT]; /* a level per traffic class over priority, or
                                * -1 (sched_set_class_priority); the net gets it as it is */
    int net_level;             /* the net level its transfers take (set by the levels,
                                * sim/steady/steady_levels.c) */
    double pending_shift_s;    /* delay of the next iteration start (consumed) */
    double total_shift_s;      /* sum of the shifts applied */
    int64_t target_iters;      /* work mode: iterations to run (0 = unbounded) */
    bool placed_by_policy;     /* recorded hosts missing or full */
    ffwd_profile *ffwd;        /* set: fast-forwarded (owned; job_ffwd_prepare) */
    uint32_t ffwd_handle;      /* the replay's handle for it (written by env->ffwd) */
    bool old_path_xfers;       /* transfers in flight from before its last path change */
    ffwd_profile *ff_cache;    /* stretch profile on the current paths (owned; NULL: none yet) */
    /* a structured job (spec.structure, job_structured.c): */
    job_graph *graph;          /* its iteration (owned while running; plan holds its operations) */
    job_graph_run *grun;       /* the run of it on the replay's network (owned) */
    double *ideal_task_s;      /* each task's duration alone (the ideal scheduler's) */
    int busy_gpus;             /* GPUs busy now */
    double busy_mark_s;        /* when busy_gpus last changed */

    job_state state;
    double run_start_s, run_end_s; /* when it ran */
    int64_t iterations;        /* completed iterations */
    double iter_time_sum_s;    /* sum of completed iteration times (shifts excluded) */
    double busy_gpu_s;         /* busy GPU-seconds so far */
    double busy_since_s;       /* NAN when its GPUs are idle */
    /* the current iteration */
    double iter_start_s;
    bool computing, compute_done, in_opt;
    int buckets_ready, buckets_started, buckets_done;
    bool bucket_running;
    size_t step;               /* step of the running bucket */
    GArray *active;            /* net_transfer_id of the running step */
    uint32_t gen;              /* event generation */
    /* fast-forward: the current periodic segment */
    double ff_origin_s;        /* its first iteration starts here */
    int64_t ff_base_iters;     /* iterations before it */
    double ff_base_busy_gpu_s; /* busy GPU-seconds before it */
    bool ff_switch_pending;    /* an iteration-end event for a shift is queued */
    int64_t ff_switch_iters;   /* iterations of the segment done at that event */
    bool ff_final;             /* work done: iterations already counted */
    bool ff_stretch;           /* the segment is a stretch (ffwd == ff_cache) */
    int64_t ff_stretch_iters;  /* its length in iterations */
    double ff_base_iter_sum_s; /* iter_time_sum_s before it */
    int64_t ff_stretches;      /* stretches run */
    int64_t ff_stretch_total;  /* iterations run in stretches */
    /* the fast-forward's pause (job_ffwd_leave_before, job_ffwd_park/resume) */
    double ff_leave_s;         /* leave it at the last iteration end before this (INFINITY) */
    int64_t ff_leave_iters;    /* iterations of the segment done at that end */
    ffwd_profile *ff_parked;   /* (owned) its profile while it runs on the event path */
    bool ff_resume;            /* take it up again at the next iteration end */
    int64_t ff_resume_iters;   /* iterations, and their time, before the pattern */
    double ff_resume_sum_s;    /* (re)started (0 at the job's start) */
};

/* Free a spec's strings (not the struct). */
void job_spec_clear(job_spec *s);

/* A job from spec (copied), not started.  (transfer full) */
job *job_new(const job_spec *spec, uint64_t uid);
void job_free(job *j);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(job, job_free)

/* Compute isolated_bucket_s and isolated_iter_s from j->plan by simulating
 * one bucket alone on a fresh network of the job's links, with its flows
 * spread over their candidates; alone_ecmp_iter_s the same on its ECMP
 * paths (simulated again only if spreading moved a flow).  Errors:
 * CCS_ERROR_INTERNAL if the engine refuses a transfer. */
bool job_compute_isolated(job *j, topo *t, double alpha_s, GError **error);

/* A structured job (j->spec.structure) placed on j->alloc: its iteration
 * graph and plan (j->graph, j->plan, built with co), its iteration alone
 * with its flows spread (isolated_iter_s) and on its ECMP paths
 * (alone_ecmp_iter_s), each task's duration alone (ideal_task_s).
 * isolated_bucket_s is 0.  Errors: a topology query or the engine failing
 * (job_graph_new, job_graph_isolated). */
bool job_structured_prepare(job *j, topo *t, const coll_options *co, double alpha_s,
                            GError **error);

/* One iteration of structure s alone on the GPUs of a (in t), its flows
 * spread as a lone job routes them (as isolated_iter_s): its duration in
 * *iter_s.  For tools that measure a structure (what its bubble or one
 * traffic class costs: run it again with figures zeroed).  Errors: as
 * job_structured_prepare. */
bool job_structure_alone_s(const job_structure *s, const cluster_alloc *a, topo *t,
                           const coll_options *co, double alpha_s, double *iter_s,
                           GError **error);

/* Isolated iteration time from C, s, T_opt, B and T_b (the formula above). */
double job_isolated_iter_s(double C, double s, double opt_s, int buckets, double bucket_s);

/* Start running at now_s: first iteration begins at now_s + pending shift. */
void job_begin(job *j, const job_env *env, double now_s);

/* Stop at now_s (window end or work done): busy time accrues up to now_s,
 * transfers are cancelled, pending events become stale. */
void job_stop(job *j, double now_s);

/* Whether j can be fast-forwarded: no communication at all; or (with no
 * scheduler on_comm hook, which would see its phases) communication that
 * is private -- the ideal scheduler's, or a plan without network flows all
 * of whose links are NVLink links touching one of j's own GPUs (such a
 * link joins a GPU to its host's NVSwitch, topo/server.c, and GPUs are
 * never shared, so no other job's transfer can use it); a structured job
 * with private links only when the scheduler never sets class levels
 * (!class_levels: its transfers then all stay at one level, its own, and
 * alone on their links they move as in its iteration alone whatever that
 * level is).  Needs j->alloc and j->plan.  O(plan links). */
bool job_ffwd_eligible(const job *j, const topo *t, bool ideal, bool sched_on_comm,
                       bool class_levels);

/* Build j->ffwd from its plan, isolated times and intensity (call after
 * job_compute_isolated and setting j->intensity, before job_begin): the
 * busy curve, and each tier's bytes recorded from one bucket simulated
 * alone (unless ideal: no link traffic).  Errors: as
 * job_compute_isolated. */
bool job_ffwd_prepare(job *j, topo *t, double alpha_s, bool ideal, GError **error);

/* Pausing a job's fast-forward (a timeline's span: docs/usage.md, "Timeline").
 * job_ffwd_leave_before (after job_begin, or any time before the span):
 * running fast-forwarded job j comes back to the event path at the end of
 * its last iteration that ends strictly before t_s (at its pattern's
 * origin if none does), with its counters folded in as job_stop folds
 * them; a later shift's restart keeps the appointment.  job_ffwd_park
 * (before job_begin): a job given a profile starts on the event path and
 * keeps the profile.  job_ffwd_resume: a job that left or was parked takes
 * the periodic pattern up again from the end of its next iteration on the
 * event path (counters as they are then); no-op for any other job.
 * Iterations, busy time and link bytes are those of the event path up to
 * rounding (the pattern is its iteration alone). */
void job_ffwd_leave_before(job *j, double t_s);
void job_ffwd_park(job *j);
void job_ffwd_resume(job *j);

/* j's paths changed: forget its stretch profile. */
void job_paths_changed(job *j);
/* The levels of j's traffic classes changed: forget its stretch profile
 * (made at its levels). */
void job_class_levels_changed(job *j);

/* Set the shift applied at the next iteration start (consumed once).  A
 * running fast-forwarded job schedules the end of its iteration in
 * progress at now_s, where it consumes it. */
void job_set_shift(job *j, double shift_s, double now_s);

/* ---- What the steady-state wing asks of a job (sim/steady/steady.h) ----
 *
 * The wing (docs/engine.md §5b-§5d) reads a job's iteration only through
 * the functions below: the plans its communication runs, its transfers in
 * flight, whether it computes or communicates now, its phase as a list of
 * values (job_phase_capture), its counters, and the delay that moves it
 * whole (job_phase_delay).  A job whose iteration is richer (a dependency
 * graph of compute and transfers, several collectives at once) answers the
 * same questions: its plans that may run at one time, its transfers, a
 * phase capture whose values repeat when its state does and a delay that
 * walks the capture again.  Besides these the wing reads only the job's
 * record: uid, spec.end_s, isolated_iter_s, priority. */

/* The collective plans of j's communication (0 without a plan; a job has
 * one today).  Any operation of any of them may run at the same time as
 * the others, each with at most one instance in flight, one step at a
 * time (coll_plan_op_*: a flat job's plan has one operation, a structured
 * job's several): the wing bounds j's load on a link by the sum over the
 * operations of each one's largest step.  (transfer none) */
size_t job_comm_plan_count(const job *j);
const coll_plan *job_comm_plan(const job *j, size_t i);

/* j's transfers in flight (the steps it runs now). */
size_t job_transfer_count(const job *j);
net_transfer_id job_transfer_get(const job *j, size_t i);

/* The net level transfer i in flight of j belongs at: its traffic class's
 * level when the scheduler set one, else j's net level. */
int job_transfer_level(const job *j, size_t i);
/* The scheduler gave a traffic class of j a level of its own: then j's
 * levels reach the net as they are (no relabeling, docs/engine.md §4). */
bool job_has_class_levels(const job *j);

/* A transfer of j in flight started before its last path change (it keeps
 * its old links until its step ends). */
bool job_old_paths_in_flight(const job *j);

/* j runs on the event path: running, not fast-forwarded. */
bool job_on_event_path(const job *j);

/* j is in its communication phase: its first bucket has started and its
 * last is not done (a structured job: its gradient reductions). */
bool job_in_comm_phase(const job *j);

/* GPUs of j busy now (0 or all of them; a structured job: those of its
 * stages that compute). */
int job_busy_gpus(const job *j);

/* Busy GPU-seconds of one iteration of j: n (C + T_opt) (a structured
 * job: the sum over its compute tasks of GPUs x duration). */
double job_busy_gpu_s_per_iter(const job *j);

/* What a phase value is, for skips modulo long transfers (§5c): a value
 * that must repeat, a time offset from the snapshot (of a coming event,
 * or of a busy or iteration start in the past: it repeats, or its
 * absolute time stays), a transfer's remaining bytes (they repeat, or
 * fall by the same amount each period), or a moving transfer's completion
 * offset (follows from its remaining bytes and rate; compared only for
 * exact repeats). */
enum { PHASE_SAME, PHASE_TIME, PHASE_SINCE, PHASE_REM, PHASE_DERIVED };

/* One value of a phase snapshot, how far another may be and still be
 * equal (0: exactly), and its kind (PHASE_*). */
typedef struct phase_val {
    double v, tol;
    int kind;
} phase_val;

/* How a skip treats a value (job_phase_delay): moved with the group,
 * left at its absolute time (a PHASE_TIME), or progressed (a PHASE_REM:
 * the transfer carries k times its per-period bytes). */
enum { PHASE_MOVE, PHASE_STAY, PHASE_PROGRESS };

/* What a job has done so far: what advances by whole periods. */
typedef struct job_counters {
    int64_t iterations;
    double iter_time_sum_s;
    double busy_gpu_s;
    double shift_s;       /* the shifts consumed (total_shift_s, jobs.csv) */
} job_counters;

/* Append to vals (phase_val) j's phase relative to time t = now: its
 * iteration's state (at_boundary: j has just ended an iteration and its
 * next one is not started yet), busy state, its pending events (kind, time - t) and
 * its transfers (moving, level, remaining bytes, rate, event time - t);
 * time offsets equal within tol_t, bytes and rates within 1e-9 relative.
 * Reads only (no solve).  O(its transfers + pending events in the queue). */
void job_phase_capture(const job *j, double t, double tol_t, bool at_boundary,
                       GArray *vals);
/* j's counters at t (busy time including a running compute). */
void job_phase_counters(const job *j, double t, job_counters *out);
/* Delay all of j (its pending events and its transfers, net_transfers_delay)
 * by dt_s and add *add to its counters: j is at now + dt_s where it is
 * now.  The caller has checked that nothing else uses j's links meanwhile.
 * With act (NULL: everything moves): act[i] says what happens to the
 * value i of j's capture taken now (job_phase_capture's order): a
 * PHASE_STAY event, busy or iteration start keeps its absolute time (the
 * caller checked that such events lie beyond now + dt_s), a
 * PHASE_PROGRESS transfer carries bytes[i] (net_transfer_progress). */
void job_phase_delay(job *j, double dt_s, const job_counters *add, const uint8_t *act,
                     const double *bytes);

/* The earliest time >= now_s at which j may start a network transfer:
 * now_s while it communicates (a bucket running or ready), the next
 * bucket's ready time in its iteration, or after the iteration ends
 * (>= its start + C + T_opt) the next one's first bucket (its start +
 * s C); INFINITY without communication or in the permanent fast-forward
 * (private links), now_s in a stretch (it communicates every iteration). */
double job_next_comm_s(const job *j, double now_s);

/* Busy GPU-seconds up to now_s (including the running compute). */
double job_busy_gpu_s_at(const job *j, double now_s);

/* j's counters as job_stop at t would leave them, without stopping it: a
 * fast-forwarded job's (or stretch's) iterations ending strictly before
 * t, their time and its busy time folded in as at its stop.  Reads only.
 * O(1), or O(iterations) for a job without communication near a
 * boundary (as job_stop). */
void job_counters_at(const job *j, double t, job_counters *out);

/* The first iteration start at or after after_s of j running alone and
 * unshifted from an iteration start at origin_s, each iteration lasting
 * T (the time-shard warm-up's grid, docs/cluster.md): without
 * communication T = C + T_opt summed as the event path sums it (the same
 * times bit for bit); with it T = its iteration time alone on its
 * current paths (one bucket simulated alone, as a stretch measures it),
 * or isolated_iter_s when fast-forwarded or ideal (a structured job's:
 * alone_ecmp_iter_s, alone on its first paths), and the start is
 * origin_s + n T (the event path's, up to rounding).  Needs j->plan.
 * Errors: as job_compute_isolated. */
bool job_alone_start_after(job *j, topo *t, double alpha_s, bool ideal, double origin_s,
                           double after_s, double *start_s, GError **error);

#endif /* CCSIM_SIM_JOB_H */
