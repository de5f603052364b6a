/* job-private.h - what job.c, job_bucket.c and job_ffwd.c share: events,
 * hand-offs.  No other file includes it.
 */
#ifndef CCSIM_SIM_JOB_PRIVATE_H
#define CCSIM_SIM_JOB_PRIVATE_H

#include "job.h"

enum {
    EV_ITER_START,
    EV_COMPUTE_DONE,
    EV_BUCKET_READY,
    EV_STEP_DONE,
    EV_BUCKET_DONE_IDEAL,
    EV_OPT_DONE,
    EV_FF_END,    /* fast-forward: the work is done (work mode) */
    EV_FF_SWITCH, /* fast-forward: the iteration before a shift ends */
    EV_FF_STRETCH_END, /* fast-forward: a stretch ends, back to events */
    EV_FF_LEAVE,  /* fast-forward: the pattern pauses, back to events (job_ffwd_leave_before) */
};

/* Does an iteration of j communicate over the network? */
static inline bool job__has_comm(const job *j)
{
    if (j->graph)
        return job_graph_has_comm(j->graph);
    return j->plan && coll_plan_step_count(j->plan) > 0 && j->spec.comm_bytes > 0;
}

/* The dispatcher of a job's events (job.c); arg = generation << 8 | kind. */
void job__handler(void *ctx, uint64_t arg, double now_s);

/* Push event kind of j at time t, stamped with its generation. */
static inline void job__push(job *j, double t, int kind)
{
    evq_push(j->env->q, t, job__handler, j, ((uint64_t)j->gen << 8) | (uint64_t)kind);
}

/* ---- job.c ---- */

/* j's GPUs become busy / idle at now_s (the env's busy_changed callback). */
void job__busy_on(job *j, double now_s);
void job__busy_off(job *j, double now_s);
/* End the iteration if its compute and communication are both done. */
void job__check_end(job *j, double now_s);
/* The iteration ended at now_s: count it, start the next one. */
void job__finish_iteration(job *j, double now_s);
/* A skip's or jump's counter increments (job_phase_counters' fields) added
 * to j's, plain or structured (job_phase.c). */
void job__counters_add(job *j, const job_counters *add);
/* A job's own pending events (current generation: an iteration start
 * after a shift, the fast paths' events; a structured job has them beside
 * its graph run's) in a capture: their count, then OWN_EV_W values per
 * event (kind, whether timed, time - t), in firing order (job_phase.c). */
enum { OWN_EV_W = 3 };
void job__capture_own_events(const job *j, double t, double tol_t, GArray *vals);
/* Delay them by dt_s as act says from pos (their first record, after the
 * count); returns the position after the last record. */
size_t job__delay_own_events(job *j, const uint8_t *act, size_t pos, double dt_s);
/* Delay by dt_s each queued event of evs whose capture record (width
 * entries from pos, its action last) does not say it stays; act NULL
 * delays all.  Returns the position after the last record. */
size_t job__delay_events(job *j, const GArray *evs, const uint8_t *act, size_t pos,
                         size_t width, double dt_s);

/* ---- job_structured.c ---- */

/* Start an iteration of a structured job / stop it. */
void job__graph_start(job *j, double now_s);
void job__graph_stop(job *j, double now_s);
/* What the steady-state wing asks of a structured job (job.h has the
 * questions): its phase capture and delay, busy GPUs now and per
 * iteration, busy GPU-seconds up to now_s, whether it is in its
 * communication phase (its reductions). */
void job__graph_capture(const job *j, double t, double tol_t, bool at_boundary, GArray *vals);
void job__graph_delay(job *j, double dt_s, const job_counters *add, const uint8_t *act,
                      const double *bytes);
int job__graph_busy_gpus(const job *j);
double job__graph_busy_gpu_s_at(const job *j, double now_s);
double job__graph_busy_gpu_s_per_iter(const job *j);
bool job__graph_in_comm_phase(const job *j);
/* A structured job's fast-forward profile: its iteration alone on its
 * current paths at its levels (ideal: its communication taking
 * ideal_task_s, no link traffic), whose length is the period, its busy curve and its tiers'
 * byte curves.  NULL with an error if the engine fails. */
ffwd_profile *job__graph_profile(job *j, topo *t, double alpha_s, bool ideal, GError **error);

/* ---- job_bucket.c ---- */

/* Per-tier carried bytes of the isolated bucket at each event time
 * (breakpoints of a piecewise-linear function: rates change only at
 * events). */
typedef struct bucket_trace {
    GArray *t_s;   /* double */
    GArray *bytes; /* double[TOPO_TIER_COUNT] per entry */
} bucket_trace;

/* One bucket of j's plan alone on a fresh network of its links: its
 * duration in *out_s; with tr, its per-tier carried bytes after every event. */
bool job__simulate_bucket(job *j, topo *t, double alpha_s, double *out_s, bucket_trace *tr,
                          GError **error);
/* Start the next ready bucket if none is running. */
void job__try_start_bucket(job *j, double now_s);
/* The running bucket finished (all its steps, or T_b in ideal mode). */
void job__bucket_done(job *j, double now_s);
/* A step of the running bucket finished: the next step, or the bucket's end. */
void job__step_done(job *j, double now_s);

/* ---- job_ffwd.c ---- */

/* Start the periodic pattern at j->ff_origin_s (job_begin). */
void job__ff_begin(job *j, double now_s);
/* Fold the pattern into j's counters when it stops (job_stop). */
void job__ff_stop(job *j, double now_s);
/* EV_FF_LEAVE: the pattern pauses at this iteration end. */
void job__ff_leave(job *j, double now_s);
/* At an iteration end on the event path (next start origin_s): take a
 * paused pattern up again (job_ffwd_resume); true if it did. */
bool job__ff_try_resume(job *j, double origin_s, double now_s);
/* Work mode: the fast-forwarded work is done. */
void job__ff_work_done(job *j, double now_s);
/* The iteration before a pending shift ended: consume it, restart the pattern. */
void job__ff_switch(job *j, double now_s);
/* At an iteration boundary, the next iteration starting at origin_s: run a
 * fast-forwarded stretch if the env allows one of >= 2 iterations.  True
 * if it started (the stretch's end event then takes over). */
bool job__ff_try_stretch(job *j, double origin_s, double now_s);
/* The stretch's last iteration ended: counters, back to the event path. */
void job__ff_stretch_end(job *j, double now_s);

#endif /* CCSIM_SIM_JOB_PRIVATE_H */
