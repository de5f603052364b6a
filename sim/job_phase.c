/* job_phase.c - a job's phase as the steady-state detector sees it, and
 * its delay by whole periods (docs/engine.md §5c).  Not here: the groups,
 * the detection and the skip (steady_group.c).
 */
#include "job.h"

#include <math.h>

#include "job-private.h"

static void put(GArray *vals, double v, double tol)
{
    phase_val p = {v, tol};
    g_array_append_val(vals, p);
}

/* An event or completion time as an offset from t; a missing one (INFINITY)
 * is a flag, never compared as a number. */
static void put_time(GArray *vals, double when, double t, double tol_t)
{
    bool finite = isfinite(when);
    put(vals, finite, 0);
    put(vals, finite ? when - t : 0, tol_t);
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

void job_phase_capture(const job *j, double t, double tol_t, bool at_boundary, GArray *vals)
{
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
    put(vals, busy ? j->busy_since_s - t : 0, tol_t);
    /* a job between two iterations has no iteration in progress: its last
     * one's start is history; otherwise it decides the next iteration time */
    put(vals, at_boundary ? 0 : j->iter_start_s - t, tol_t);
    g_autoptr(GArray) evs = own_events(j);
    put(vals, evs->len, 0);
    for (guint i = 0; i < evs->len; i++) {
        const evq_entry *e = &g_array_index(evs, evq_entry, i);
        put(vals, (double)(e->arg & 0xff), 0);
        put_time(vals, e->time_s, t, tol_t);
    }
    put(vals, j->active->len, 0);
    for (guint i = 0; i < j->active->len; i++) {
        net_transfer_view v;
        if (!net_transfer_peek(j->env->n, g_array_index(j->active, net_transfer_id, i), &v)) {
            put(vals, -1, 0);
            continue;
        }
        put(vals, v.moving, 0);
        put(vals, v.prio, 0);
        put(vals, v.rem_bytes, 1e-9 * v.size_bytes);
        put(vals, v.rate_Bps, 1e-9 * v.rate_Bps);
        put_time(vals, v.event_s, t, tol_t);
    }
}

void job_phase_counters(const job *j, double t, job_counters *out)
{
    out->iterations = j->iterations;
    out->iter_time_sum_s = j->iter_time_sum_s;
    out->busy_gpu_s = job_busy_gpu_s_at(j, t);
}

void job_phase_delay(job *j, double dt_s, const job_counters *add)
{
    g_autoptr(GArray) evs = own_events(j);
    for (guint i = 0; i < evs->len; i++)
        evq_delay(j->env->q, g_array_index(evs, evq_entry, i).id, dt_s);
    net_transfers_delay(j->env->n, (const net_transfer_id *)(void *)j->active->data,
                        j->active->len, dt_s);
    j->iterations += add->iterations;
    j->iter_time_sum_s += add->iter_time_sum_s;
    j->busy_gpu_s += add->busy_gpu_s;
    if (!isnan(j->busy_since_s))
        j->busy_since_s += dt_s;
    j->iter_start_s += dt_s;
}

double job_next_comm_s(const job *j, double now_s)
{
    if (!job__has_comm(j) || (j->ffwd && !j->ff_stretch))
        return INFINITY;
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
