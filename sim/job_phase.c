/* job_phase.c - what the steady-state wing asks of a job (job.h): its
 * plans, transfers and state, its phase as the wing's detector sees it,
 * and its delay by whole periods (docs/engine.md §5b-§5d).  Not here: the
 * groups, the detection and the skip (sim/steady/).
 */
#include "job.h"

#include <math.h>

#include "job-private.h"

/* The layout of a capture (job_phase_delay walks it again): HEAD values
 * (the last two the busy and iteration start), the events' count and
 * OWN_EV_W values per event (its time last), the transfers' count and XF_W
 * values per transfer (remaining bytes at XF_REM) or one if unknown. */
enum { HEAD = 13, AT_BUSY = 11, AT_ITER = 12, XF_W = 6, XF_REM = 2 };

static void put_kind(GArray *vals, double v, double tol, int kind)
{
    phase_val p = {v, tol, kind};
    g_array_append_val(vals, p);
}

static void put(GArray *vals, double v, double tol)
{
    put_kind(vals, v, tol, PHASE_SAME);
}

/* An event or completion time as an offset from t; a missing one (INFINITY)
 * is a flag, never compared as a number. */
static void put_time(GArray *vals, double when, double t, double tol_t, int kind)
{
    bool finite = isfinite(when);
    put(vals, finite, 0);
    put_kind(vals, finite ? when - t : 0, tol_t, kind);
}

/* Its own pending events (current generation), in firing order. */
static GArray *own_events(const job *j)
{
    GArray *evs = g_array_new(FALSE, FALSE, sizeof(evq_entry));
    evq_collect(j->env->q, job__handler, j, evs);
    guint keep = 0;
    for (guint i = 0; i < evs->len; i++) {
        evq_entry e = g_array_index(evs, evq_entry, i);
        if ((uint32_t)(e.arg >> 8) == j->gen)
            g_array_index(evs, evq_entry, keep++) = e;
    }
    g_array_set_size(evs, keep);
    return evs;
}

void job__capture_own_events(const job *j, double t, double tol_t, GArray *vals)
{
    g_autoptr(GArray) evs = own_events(j);
    put(vals, evs->len, 0);
    for (guint i = 0; i < evs->len; i++) {
        const evq_entry *e = &g_array_index(evs, evq_entry, i);
        put(vals, (double)(e->arg & 0xff), 0);
        put_time(vals, e->time_s, t, tol_t, PHASE_TIME);
    }
}

void job_phase_capture(const job *j, double t, double tol_t, bool at_boundary, GArray *vals)
{
    if (j->graph) {
        job__graph_capture(j, t, tol_t, at_boundary, vals);
        return;
    }
    bool busy = !isnan(j->busy_since_s);
    put(vals, j->computing, 0);
    put(vals, j->compute_done, 0);
    put(vals, j->in_opt, 0);
    put(vals, j->buckets_ready, 0);
    put(vals, j->buckets_started, 0);
    put(vals, j->buckets_done, 0);
    put(vals, j->bucket_running, 0);
    put(vals, (double)j->step, 0);
    put(vals, j->priority, 0);
    put(vals, j->pending_shift_s, tol_t);
    put(vals, busy, 0);
    put_kind(vals, busy ? j->busy_since_s - t : 0, tol_t, PHASE_SINCE);
    /* a job between two iterations has no iteration in progress: its last
     * one's start is history; otherwise it decides the next iteration time */
    put_kind(vals, at_boundary ? 0 : j->iter_start_s - t, tol_t, PHASE_SINCE);
    job__capture_own_events(j, t, tol_t, vals);
    put(vals, j->active->len, 0);
    for (guint i = 0; i < j->active->len; i++) {
        net_transfer_view v;
        if (!net_transfer_peek(j->env->n, g_array_index(j->active, net_transfer_id, i), &v)) {
            put(vals, -1, 0);
            continue;
        }
        put(vals, v.moving, 0);
        put(vals, v.prio, 0);
        put_kind(vals, v.rem_bytes, 1e-9 * v.size_bytes, PHASE_REM);
        put(vals, v.rate_Bps, 1e-9 * v.rate_Bps);
        /* a moving transfer completes at t + rem / rate: no more to compare */
        put_time(vals, v.event_s, t, tol_t, v.moving ? PHASE_DERIVED : PHASE_TIME);
    }
}

void job_phase_counters(const job *j, double t, job_counters *out)
{
    out->iterations = j->iterations;
    out->iter_time_sum_s = j->iter_time_sum_s;
    out->busy_gpu_s = job_busy_gpu_s_at(j, t);
    out->shift_s = j->total_shift_s;
}

void job__counters_add(job *j, const job_counters *add)
{
    j->iterations += add->iterations;
    j->iter_time_sum_s += add->iter_time_sum_s;
    j->busy_gpu_s += add->busy_gpu_s;
    j->total_shift_s += add->shift_s;
}

/* One transfer of j delayed by dt_s as act says (act at its first value). */
static void xfer_delay(job *j, net_transfer_id id, double dt_s, const uint8_t *act,
                       const double *bytes)
{
    if (act && act[XF_REM] == PHASE_PROGRESS)
        net_transfer_progress(j->env->n, id, bytes[XF_REM], dt_s);
    else if (!act || act[XF_W - 1] != PHASE_STAY)
        net_transfers_delay(j->env->n, &id, 1, dt_s);
}

size_t job__delay_events(job *j, const GArray *evs, const uint8_t *act, size_t pos,
                         size_t width, double dt_s)
{
    for (guint i = 0; i < evs->len; i++, pos += width)
        if (!act || act[pos + width - 1] != PHASE_STAY)
            evq_delay(j->env->q, g_array_index(evs, evq_entry, i).id, dt_s);
    return pos;
}

size_t job__delay_own_events(job *j, const uint8_t *act, size_t pos, double dt_s)
{
    g_autoptr(GArray) evs = own_events(j);
    return job__delay_events(j, evs, act, pos, OWN_EV_W, dt_s);
}

void job_phase_delay(job *j, double dt_s, const job_counters *add, const uint8_t *act,
                     const double *bytes)
{
    if (j->graph) {
        job__graph_delay(j, dt_s, add, act, bytes);
        return;
    }
    bool busy_stays = act && act[AT_BUSY] == PHASE_STAY;
    bool iter_stays = act && act[AT_ITER] == PHASE_STAY;
    size_t pos = HEAD + 1;
    pos = job__delay_own_events(j, act, pos, dt_s) + 1;
    for (guint i = 0; i < j->active->len; i++) {
        net_transfer_id id = g_array_index(j->active, net_transfer_id, i);
        net_transfer_view v;
        if (!net_transfer_peek(j->env->n, id, &v)) {
            pos++;
            continue;
        }
        xfer_delay(j, id, dt_s, act ? act + pos : NULL, bytes ? bytes + pos : NULL);
        pos += XF_W;
    }
    job__counters_add(j, add);
    if (!isnan(j->busy_since_s)) {
        /* busy since a time that stays: the busy time up to now + dt_s is
         * counted from it, and add holds it already */
        if (busy_stays)
            j->busy_gpu_s -= j->spec.gpus * dt_s;
        else
            j->busy_since_s += dt_s;
    }
    if (!iter_stays)
        j->iter_start_s += dt_s;
}

double job_next_comm_s(const job *j, double now_s)
{
    if (!job__has_comm(j) || (j->ffwd && !j->ff_stretch))
        return INFINITY;
    if (j->graph)
        return now_s; /* its transfers may start at any time of its iteration */
    if (j->ff_stretch || j->bucket_running || j->active->len > 0 ||
        j->buckets_ready > j->buckets_started)
        return now_s;
    double C = j->spec.compute_s, s = j->spec.fwd_frac, t0 = j->iter_start_s;
    int B = j->spec.buckets;
    bool started = j->computing || j->compute_done; /* an iteration began */
    if (started && j->buckets_started < B)
        return fmax(now_s, t0 + s * C + j->buckets_started * (1.0 - s) * C / B);
    /* the next iteration starts when this one ends (>= t0 + C + T_opt) or,
     * before the first, at its start (>= now) */
    double next = started ? fmax(now_s, t0 + C + j->spec.opt_s) : now_s;
    return next + s * C;
}

size_t job_comm_plan_count(const job *j)
{
    return j->plan ? 1 : 0;
}

const coll_plan *job_comm_plan(const job *j, size_t i)
{
    g_return_val_if_fail(i < job_comm_plan_count(j), NULL);
    return j->plan;
}

size_t job_transfer_count(const job *j)
{
    return j->active->len;
}

net_transfer_id job_transfer_get(const job *j, size_t i)
{
    return g_array_index(j->active, net_transfer_id, i);
}

int job_transfer_level(const job *j, size_t i)
{
    int cls = j->grun ? job_graph_run_xfer_class(j->grun, job_transfer_get(j, i)) : JOB_GRAPH_DP;
    return cls >= 0 && j->class_priority[cls] >= 0 ? j->class_priority[cls] : j->net_level;
}

bool job_has_class_levels(const job *j)
{
    for (int c = 0; c < JOB_GRAPH_CLASS_COUNT; c++)
        if (j->class_priority[c] >= 0)
            return true;
    return false;
}

bool job_old_paths_in_flight(const job *j)
{
    return j->old_path_xfers;
}

bool job_on_event_path(const job *j)
{
    return !j->ffwd && j->state == JOB_RUNNING;
}

bool job_in_comm_phase(const job *j)
{
    if (j->graph)
        return job__graph_in_comm_phase(j);
    return j->buckets_started > 0 && j->buckets_done < j->spec.buckets;
}

int job_busy_gpus(const job *j)
{
    if (j->graph)
        return job__graph_busy_gpus(j);
    return isnan(j->busy_since_s) ? 0 : j->spec.gpus;
}

double job_busy_gpu_s_per_iter(const job *j)
{
    if (j->graph)
        return job__graph_busy_gpu_s_per_iter(j);
    return j->spec.gpus * (j->spec.compute_s + j->spec.opt_s);
}
