/* job_structured.c - a structured job's iterations: its graph and plan
 * when it is placed, its iteration alone, and the run of its graph on the
 * replay's network (job.h; the graph: job_graph.h).  Not here: the plain
 * job's iteration (job.c, job_bucket.c).
 */
#include "job.h"

#include <math.h>

#include "base/ccs.h"
#include "job-private.h"

/* Iteration time of j's graph alone, on its plan's current paths; with
 * dur_s, each communication task's duration. */
static bool alone_s(job *j, topo *t, double alpha_s, double *iter_s, double *dur_s,
                    GError **error)
{
    return job_graph_isolated(j->graph, j->plan, t, alpha_s, NULL, iter_s, dur_s, NULL, error);
}

bool job_structured_prepare(job *j, topo *t, const coll_options *co, double alpha_s,
                            GError **error)
{
    g_return_val_if_fail(j->spec.structure && j->alloc && !j->graph, false);
    coll_plan *plan = NULL;
    j->graph = job_graph_new(j->spec.structure, j->alloc, t, co, &plan, error);
    if (!j->graph)
        return false;
    coll_plan_free(j->plan);
    j->plan = plan;
    size_t n = job_graph_task_count(j->graph);
    j->ideal_task_s = g_new0(double, n ? n : 1);
    /* alone, the job routes its own flows apart (job_compute_isolated) */
    size_t nf = coll_plan_flow_count(plan);
    g_autofree size_t *saved = g_new(size_t, nf ? nf : 1);
    for (size_t f = 0; f < nf; f++)
        saved[f] = coll_plan_flow(plan, f)->path;
    double iso = 0, ecmp = 0;
    bool ok = coll_plan_spread_paths(plan, t, error) &&
              alone_s(j, t, alpha_s, &iso, j->ideal_task_s, error);
    bool moved = false;
    for (size_t f = 0; f < nf; f++)
        if (coll_plan_flow(plan, f)->path != saved[f]) {
            moved = true;
            if (!coll_plan_set_path(plan, t, f, saved[f], ok ? error : NULL))
                ok = false;
        }
    ecmp = iso;
    if (ok && moved)
        ok = alone_s(j, t, alpha_s, &ecmp, NULL, error);
    if (!ok)
        return false;
    j->isolated_bucket_s = 0;
    j->isolated_iter_s = iso;
    j->alone_ecmp_iter_s = ecmp;
    return true;
}

bool job_structure_alone_s(const job_structure *s, const cluster_alloc *a, topo *t,
                           const coll_options *co, double alpha_s, double *iter_s,
                           GError **error)
{
    coll_plan *plan = NULL;
    g_autoptr(job_graph) g = job_graph_new(s, a, t, co, &plan, error);
    if (!g)
        return false;
    g_autoptr(coll_plan) p = plan;
    return coll_plan_spread_paths(p, t, error) &&
           job_graph_isolated(g, p, t, alpha_s, NULL, iter_s, NULL, NULL, error);
}

/* ---- the run on the replay's network --------------------------------- */

static void on_busy(void *user, int delta, double now_s)
{
    job *j = user;
    if (j->busy_gpus > 0)
        j->busy_gpu_s += j->busy_gpus * (now_s - j->busy_mark_s);
    j->busy_gpus += delta;
    j->busy_mark_s = now_s;
    if (j->env->busy_changed)
        j->env->busy_changed(j->env->user, j, delta, now_s);
}

static void on_done(void *user, double now_s) { job__finish_iteration(user, now_s); }

static bool on_phase(void *user, bool starting, double now_s)
{
    job *j = user;
    uint32_t gen = j->gen;
    if (j->env->comm_phase)
        j->env->comm_phase(j->env->user, j, starting, now_s);
    return gen == j->gen && j->state == JOB_RUNNING;
}

static void on_net_idle(void *user) { ((job *)user)->old_path_xfers = false; }

static void on_xfer_done(void *user, net_transfer_id id, double now_s)
{
    job_graph_run_xfer_done(((job *)user)->grun, id, now_s);
}

static void on_xfer_started(void *user, uint32_t task, size_t step, size_t xfer,
                            net_transfer_id id, double now_s)
{
    job *j = user;
    if (j->env->xfer_started)
        j->env->xfer_started(j->env->user, j, task, step, xfer, id, now_s);
}

static void on_graph_xfer_done(void *user, net_transfer_id id, double now_s)
{
    job *j = user;
    if (j->env->xfer_done)
        j->env->xfer_done(j->env->user, j, id, now_s);
}

void job__graph_start(job *j, double now_s)
{
    if (!j->grun) {
        job_graph_net nt = {.q = j->env->q, .n = j->env->n, .alpha_s = j->env->alpha_s,
                            .active = j->active, .level = &j->net_level,
                            .class_level = j->class_priority,
                            .tag = &j->intensity, .xfer_user = j,
                            .xfer_done = on_xfer_done};
        job_graph_hooks h = {.user = j, .busy = on_busy, .done = on_done, .phase = on_phase,
                             .net_idle = on_net_idle, .xfer_started = on_xfer_started,
                             .xfer_done = on_graph_xfer_done};
        j->grun = job_graph_run_new(j->graph, j->plan, &nt, &h);
        if (j->env->ideal)
            job_graph_run_set_ideal(j->grun, j->ideal_task_s);
    }
    j->iter_start_s = now_s;
    job_graph_run_start(j->grun, now_s);
}

void job__graph_stop(job *j, double now_s)
{
    if (j->grun)
        job_graph_run_stop(j->grun);
    if (j->busy_gpus > 0)
        on_busy(j, -j->busy_gpus, now_s);
}

/* ---- what the steady-state wing asks of it --------------------------- */

/* The layout of a capture (job__graph_delay walks it again): G_HEAD values
 * (the busy mark and iteration start at G_BUSY, G_ITER), G_TASK per task,
 * the graph run's events' count and G_EV values per event (its time last),
 * the job's own events (job__capture_own_events), the
 * transfers' count and G_XF values per transfer (remaining bytes at
 * G_XF_REM, its time last) or one if unknown. */
enum { G_HEAD = 8, G_BUSY = 6, G_ITER = 7, G_TASK = 2, G_EV = 3, G_XF = 6, G_XF_REM = 2 };

static void put_kind(GArray *vals, double v, double tol, int kind)
{
    phase_val p = {v, tol, kind};
    g_array_append_val(vals, p);
}

/* A time as an offset from t (a missing one a flag, never a number). */
static void put_time(GArray *vals, double when, double t, double tol_t, int kind)
{
    bool finite = isfinite(when);
    put_kind(vals, finite, 0, PHASE_SAME);
    put_kind(vals, finite ? when - t : 0, tol_t, kind);
}

void job__graph_capture(const job *j, double t, double tol_t, bool at_boundary, GArray *vals)
{
    job_graph_run_state st = {0};
    if (j->grun)
        job_graph_run_state_get(j->grun, &st);
    put_kind(vals, (double)st.tasks_left, 0, PHASE_SAME);
    put_kind(vals, st.reductions_started, 0, PHASE_SAME);
    put_kind(vals, st.reductions_left, 0, PHASE_SAME);
    put_kind(vals, j->priority, 0, PHASE_SAME);
    put_kind(vals, j->pending_shift_s, tol_t, PHASE_SAME);
    put_kind(vals, j->busy_gpus, 0, PHASE_SAME);
    put_kind(vals, j->busy_gpus > 0 ? j->busy_mark_s - t : 0, tol_t, PHASE_SINCE);
    put_kind(vals, at_boundary ? 0 : j->iter_start_s - t, tol_t, PHASE_SINCE);
    size_t n = job_graph_task_count(j->graph);
    for (size_t i = 0; i < n; i++) {
        put_kind(vals, st.pred_left ? st.pred_left[i] : 0, 0, PHASE_SAME);
        put_kind(vals, st.step ? st.step[i] : 0, 0, PHASE_SAME);
    }
    g_autoptr(GArray) evs = g_array_new(FALSE, FALSE, sizeof(evq_entry));
    if (j->grun)
        job_graph_run_events(j->grun, evs);
    put_kind(vals, evs->len, 0, PHASE_SAME);
    for (guint i = 0; i < evs->len; i++) {
        const evq_entry *e = &g_array_index(evs, evq_entry, i);
        put_kind(vals, (double)(e->arg & 0xffffffffffULL), 0, PHASE_SAME); /* task, kind */
        put_time(vals, e->time_s, t, tol_t, PHASE_TIME);
    }
    /* its own: the next iteration's start while it waits out a shift */
    job__capture_own_events(j, t, tol_t, vals);
    put_kind(vals, j->active->len, 0, PHASE_SAME);
    for (guint i = 0; i < j->active->len; i++) {
        net_transfer_view v;
        if (!net_transfer_peek(j->env->n, g_array_index(j->active, net_transfer_id, i), &v)) {
            put_kind(vals, -1, 0, PHASE_SAME);
            continue;
        }
        put_kind(vals, v.moving, 0, PHASE_SAME);
        put_kind(vals, v.prio, 0, PHASE_SAME);
        put_kind(vals, v.rem_bytes, 1e-9 * v.size_bytes, PHASE_REM);
        put_kind(vals, v.rate_Bps, 1e-9 * v.rate_Bps, PHASE_SAME);
        put_time(vals, v.event_s, t, tol_t, v.moving ? PHASE_DERIVED : PHASE_TIME);
    }
}

void job__graph_delay(job *j, double dt_s, const job_counters *add, const uint8_t *act,
                      const double *bytes)
{
    size_t pos = G_HEAD + G_TASK * job_graph_task_count(j->graph) + 1;
    g_autoptr(GArray) evs = g_array_new(FALSE, FALSE, sizeof(evq_entry));
    if (j->grun)
        job_graph_run_events(j->grun, evs);
    pos = job__delay_events(j, evs, act, pos, G_EV, dt_s) + 1;
    pos = job__delay_own_events(j, act, pos, dt_s) + 1;
    for (guint i = 0; i < j->active->len; i++) {
        net_transfer_id id = g_array_index(j->active, net_transfer_id, i);
        net_transfer_view v;
        if (!net_transfer_peek(j->env->n, id, &v)) {
            pos++;
            continue;
        }
        if (act && act[pos + G_XF_REM] == PHASE_PROGRESS)
            net_transfer_progress(j->env->n, id, bytes[pos + G_XF_REM], dt_s);
        else if (!act || act[pos + G_XF - 1] != PHASE_STAY)
            net_transfers_delay(j->env->n, &id, 1, dt_s);
        pos += G_XF;
    }
    job__counters_add(j, add);
    if (j->busy_gpus > 0) {
        /* busy since a mark that stays: add counts the busy time up to
         * now + dt_s from it already */
        if (act && act[G_BUSY] == PHASE_STAY)
            j->busy_gpu_s -= j->busy_gpus * dt_s;
        else
            j->busy_mark_s += dt_s;
    }
    if (!(act && act[G_ITER] == PHASE_STAY))
        j->iter_start_s += dt_s;
}

int job__graph_busy_gpus(const job *j) { return j->busy_gpus; }

double job__graph_busy_gpu_s_at(const job *j, double now_s)
{
    return j->busy_gpu_s + (j->busy_gpus > 0 ? j->busy_gpus * (now_s - j->busy_mark_s) : 0.0);
}

double job__graph_busy_gpu_s_per_iter(const job *j)
{
    double b = 0;
    for (size_t i = 0; i < job_graph_task_count(j->graph); i++) {
        const job_graph_task *t = job_graph_task_get(j->graph, i);
        if (t->kind == JOB_GRAPH_COMPUTE)
            b += t->gpus * t->dur_s;
    }
    return b;
}

bool job__graph_in_comm_phase(const job *j)
{
    job_graph_run_state st = {0};
    if (j->grun)
        job_graph_run_state_get(j->grun, &st);
    return st.tasks_left > 0 && st.reductions_started > 0 && st.reductions_left > 0;
}

ffwd_profile *job__graph_profile(job *j, topo *t, double alpha_s, bool ideal, GError **error)
{
    bool links = !ideal;
    job_graph_trace tr = {g_array_new(FALSE, FALSE, sizeof(double)),
                          g_array_new(FALSE, FALSE, sizeof(double)),
                          g_array_new(FALSE, FALSE, sizeof(double))};
    double T = 0;
    ffwd_profile *p = NULL;
    bool ok = ideal ? job_graph_isolated(j->graph, j->plan, t, alpha_s, j->ideal_task_s, &T,
                                         NULL, &tr, error)
                    : job_graph_isolated_levels(j->graph, j->plan, t, alpha_s, &j->net_level,
                                                j->class_priority, &T, &tr, error);
    if (ok) {
        if (!(T > 0))
            g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL,
                        "job %s: an iteration alone of %g s has no periodic profile",
                        j->spec.id, T);
        else
            p = ffwd_profile_new_curve(T, j->intensity);
    }
    const double *ts = (const double *)(void *)tr.t_s->data;
    const double *busy = (const double *)(void *)tr.busy->data;
    const double *bytes = (const double *)(void *)tr.bytes->data;
    for (guint i = 0; p && i < tr.t_s->len; i++) {
        double tau = fmin(ts[i], T);
        ffwd_profile_add_busy_point(p, tau, busy[i]);
        for (int k = 0; links && k < TOPO_TIER_COUNT; k++)
            if (bytes[(size_t)(tr.t_s->len - 1) * TOPO_TIER_COUNT + k] > 0)
                ffwd_profile_add_link_point(p, (topo_tier)k, tau,
                                            bytes[(size_t)i * TOPO_TIER_COUNT + k]);
    }
    g_array_free(tr.t_s, TRUE);
    g_array_free(tr.busy, TRUE);
    g_array_free(tr.bytes, TRUE);
    return p;
}
