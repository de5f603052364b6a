/* job_ffwd.c - fast-forward of a job (docs/engine.md): iterations, busy time
 * and shifts in closed form.  Not here: the event path (job.c).
 */
#include "job.h"

#include <math.h>

#include "base/ccs.h"
#include "job-private.h"

bool job_ffwd_eligible(const job *j, const topo *t, bool ideal, bool sched_on_comm,
                       bool class_levels)
{
    if (!job__has_comm(j))
        return true; /* never calls comm_phase: no scheduler hook sees it */
    if (sched_on_comm)
        return false;
    if (ideal)
        return true;
    if (j->graph && class_levels)
        return false; /* levels its scheduler gives its classes later order its own transfers */
    if (!j->alloc || j->alloc->n_hosts != 1 || coll_plan_flow_count(j->plan) > 0)
        return false;
    const uint32_t *links;
    const double *bytes;
    size_t nl = coll_plan_fixed_links(j->plan, &links, &bytes);
    const cluster_alloc *a = j->alloc;
    for (size_t i = 0; i < nl; i++) {
        const topo_link *L = topo_link_get(t, links[i]);
        if (L->tier != TOPO_TIER_NVLINK)
            return false;
        bool own = false;
        for (int g = 0; g < a->n_gpus && !own; g++) {
            uint32_t node = topo_host_gpu_node(t, a->hosts[0], a->gpus[g]);
            own = L->src == node || L->dst == node;
        }
        if (!own)
            return false;
    }
    return true;
}

/* Add to p the link curves of j's buckets: one bucket simulated alone on
 * j's current paths (its duration in *bucket_s), repeated at each bucket's
 * start in an iteration of period T whose buckets last Tb each. */
static bool add_link_curves(ffwd_profile *p, job *j, topo *t, double alpha_s, double T,
                            double *Tb, GError **error)
{
    double C = j->spec.compute_s, s = j->spec.fwd_frac;
    bucket_trace tr = {g_array_new(FALSE, FALSE, sizeof(double)),
                       g_array_new(FALSE, FALSE, sizeof(double))};
    double bucket_s = 0;
    bool ok = job__simulate_bucket(j, t, alpha_s, &bucket_s, &tr, error);
    if (isnan(*Tb))
        *Tb = bucket_s;
    /* bucket k starts at b_k = max(ready_k, e_{k-1}), e_k = b_k + T_b
     * (job.h); its bytes add to those of the buckets before it */
    int B = j->spec.buckets;
    const double *bt = (const double *)(void *)tr.t_s->data;
    const double *bb = (const double *)(void *)tr.bytes->data;
    guint np = tr.t_s->len;
    double e = 0, last_tau[TOPO_TIER_COUNT] = {0};
    for (int k = 0; ok && k < B && np > 0; k++) {
        double b = fmax(s * C + k * (1.0 - s) * C / B, e);
        for (int tier = 0; tier < TOPO_TIER_COUNT; tier++) {
            double per_bucket = bb[(size_t)(np - 1) * TOPO_TIER_COUNT + tier];
            if (!(per_bucket > 0))
                continue;
            for (guint i = 0; i < np; i++) {
                /* the recording may end a rounding error away from T_b */
                double tau = fmin(fmax(b + bt[i], last_tau[tier]), T);
                last_tau[tier] = tau;
                ffwd_profile_add_link_point(p, (topo_tier)tier, tau,
                                            k * per_bucket +
                                                bb[(size_t)i * TOPO_TIER_COUNT + tier]);
            }
        }
        e = b + *Tb;
    }
    g_array_free(tr.t_s, TRUE);
    g_array_free(tr.bytes, TRUE);
    return ok;
}

static ffwd_profile *profile_new(const job *j, double T, GError **error)
{
    double C = j->spec.compute_s;
    ffwd_profile *p = ffwd_profile_new(T, j->spec.gpus, C, j->spec.opt_s, j->intensity);
    if (!p)
        g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL,
                    "job %s: no periodic profile for iteration %g s, compute %g s, optimizer %g s",
                    j->spec.id, T, C, j->spec.opt_s);
    return p;
}

bool job_ffwd_prepare(job *j, topo *t, double alpha_s, bool ideal, GError **error)
{
    if (j->graph) {
        ffwd_profile *gp = job__graph_profile(j, t, alpha_s, ideal, error);
        if (!gp)
            return false;
        ffwd_profile_free(j->ffwd);
        j->ffwd = gp;
        return true;
    }
    double T = j->isolated_iter_s, Tb = j->isolated_bucket_s;
    g_autoptr(ffwd_profile) p = profile_new(j, T, error);
    if (!p)
        return false;
    if (job__has_comm(j) && !ideal && !add_link_curves(p, j, t, alpha_s, T, &Tb, error))
        return false;
    ffwd_profile_free(j->ffwd);
    j->ffwd = g_steal_pointer(&p);
    return true;
}

/* The stretch profile of j on its current paths: T_b' simulated first,
 * then T' = iso(C, s, T_opt, B, T_b') (job.h), then the curves. */
static ffwd_profile *stretch_profile_new(job *j, GError **error)
{
    const job_env *env = j->env;
    if (j->graph)
        return job__graph_profile(j, env->t, env->alpha_s, false, error);
    double Tb = 0;
    if (!job__simulate_bucket(j, env->t, env->alpha_s, &Tb, NULL, error))
        return NULL;
    double T = job_isolated_iter_s(j->spec.compute_s, j->spec.fwd_frac, j->spec.opt_s,
                                   j->spec.buckets, Tb);
    g_autoptr(ffwd_profile) p = profile_new(j, T, error);
    if (!p || !add_link_curves(p, j, env->t, env->alpha_s, T, &Tb, error))
        return NULL;
    return g_steal_pointer(&p);
}

void job_class_levels_changed(job *j)
{
    if (j->ff_stretch)
        return; /* never during a stretch: levels change at reschedules */
    ffwd_profile_free(j->ff_cache);
    j->ff_cache = NULL;
}

void job_paths_changed(job *j)
{
    if (j->active->len > 0) /* they keep their old links until their step ends */
        j->old_path_xfers = true;
    if (j->ff_stretch)
        return; /* never during a stretch: paths change at reschedules */
    ffwd_profile_free(j->ff_cache);
    j->ff_cache = NULL;
}

/* The end of iteration k >= 1 of the current segment.  Without
 * communication the event path's times are (t + C) + T_opt from t = the
 * origin, and the same float sums give the same times bit for bit: over
 * millions of iterations at t ~ 1e6 s they drift from origin + k T by up
 * to ~1e-3 s, and a work-mode end or a count at the window end follows
 * them; with communication (or a structured job's graph) the network's
 * arithmetic decides, and origin + k T is its value up to rounding.  O(k) without communication
 * (a few ns per iteration, no events), O(1) with. */
static double ff_end_time(const job *j, int64_t k)
{
    if (job__has_comm(j) || j->graph) /* a structured job's times: its graph's events */
        return j->ff_origin_s + (double)k * ffwd_profile_period_s(j->ffwd);
    double t = j->ff_origin_s;
    for (int64_t i = 0; i < k; i++) {
        t = t + j->spec.compute_s;
        if (j->spec.opt_s > 0)
            t = t + j->spec.opt_s;
        t = t + 0.0; /* the next start: now + a zero shift */
    }
    return t;
}

/* Iterations of the current segment that end strictly before t (the
 * replay's end event at t fires before an iteration end at t: it was
 * pushed first). */
static int64_t ff_iters_before(const job *j, double t)
{
    double rel = t - j->ff_origin_s, T = ffwd_profile_period_s(j->ffwd);
    if (!(rel > 0))
        return 0;
    double n = floor(rel / T);
    /* the event path's sums round up to 3 times per iteration, by at most
     * half an ulp of t each: within that (or 1e-9 relative) of a boundary
     * its count can differ from the exact one */
    double ulp = nextafter(fabs(t), INFINITY) - fabs(t);
    double tol = fmax(1e-9 * fmax(1.0, fabs(t)), 2.0 * (n + 1) * ulp);
    bool near = fabs(rel - n * T) <= tol || fabs(rel - (n + 1) * T) <= tol;
    if (near && !job__has_comm(j) && !j->graph) {
        /* count with the event path's own sums, O(n) */
        int64_t k = 0;
        for (double e = ff_end_time(j, 1); e < t; k++) {
            e = e + j->spec.compute_s;
            if (j->spec.opt_s > 0)
                e = e + j->spec.opt_s;
            e = e + 0.0;
        }
        return k;
    }
    if (n * T >= rel)
        n -= 1;
    return n > 0 ? (int64_t)n : 0;
}

static void stretch_close(job *j, int64_t n, double now_s);

/* The time of n iterations of a job whose pattern is its iteration alone
 * (not a stretch): those before the pattern (re)started, the others iso
 * each (n iso bit for bit when it never paused). */
static double perm_sum(const job *j, int64_t n)
{
    return j->ff_resume_sum_s + (double)(n - j->ff_resume_iters) * j->isolated_iter_s;
}

static double ff_busy_at(const job *j, double now_s)
{
    ffwd_values v;
    ffwd_profile_eval(j->ffwd, now_s - j->ff_origin_s, &v);
    return j->ff_base_busy_gpu_s + v.busy_gpu_s;
}

/* A pause asked for (job_ffwd_leave_before): its event at the end of the
 * last iteration of the segment that ends before ff_leave_s (or the one in
 * progress now, if that ended already). */
static void ff_push_leave(job *j, double now_s)
{
    if (!(j->ff_leave_s < INFINITY) || j->ff_stretch)
        return;
    int64_t k = MAX(ff_iters_before(j, j->ff_leave_s), ff_iters_before(j, now_s));
    if (j->target_iters > 0 && j->ff_base_iters + k >= j->target_iters)
        return; /* the work ends first */
    j->ff_leave_iters = k;
    job__push(j, fmax(ff_end_time(j, k), now_s), EV_FF_LEAVE);
}

/* Work mode: the end of the last iteration of the work. */
static void ff_push_end(job *j)
{
    if (j->target_iters <= 0)
        return;
    int64_t left = j->target_iters - j->ff_base_iters;
    g_assert(left >= 1);
    job__push(j, ff_end_time(j, left), EV_FF_END);
}

void job__ff_begin(job *j, double now_s)
{
    j->ff_base_iters = 0;
    j->ff_base_busy_gpu_s = 0;
    j->ff_switch_pending = j->ff_final = false;
    if (j->env->ffwd)
        j->env->ffwd(j->env->user, j, JOB_FFWD_START, j->ff_origin_s, now_s);
    ff_push_end(j);
}

void job__ff_work_done(job *j, double now_s)
{
    j->iterations = j->target_iters;
    j->iter_time_sum_s = perm_sum(j, j->iterations);
    j->ff_final = true;
    uint32_t gen = j->gen;
    bool more = j->env->iteration_done ? j->env->iteration_done(j->env->user, j, now_s) : true;
    /* the replay ends a job whose work is done */
    g_assert(!more || gen != j->gen || j->state != JOB_RUNNING);
    (void)more;
}

/* The iteration before a pending shift ended: consume the shift as
 * finish_iteration does and restart the pattern after it. */
void job__ff_switch(job *j, double now_s)
{
    j->ff_switch_pending = false;
    j->ff_base_busy_gpu_s = ff_busy_at(j, now_s);
    j->ff_base_iters += j->ff_switch_iters;
    double shift = j->pending_shift_s;
    j->pending_shift_s = 0;
    j->total_shift_s += shift;
    j->ff_origin_s = now_s + shift;
    if (j->env->ffwd)
        j->env->ffwd(j->env->user, j, JOB_FFWD_REBASE, j->ff_origin_s, now_s);
    j->gen++; /* the old end event is stale */
    ff_push_end(j);
    ff_push_leave(j, now_s);
}

void job_set_shift(job *j, double shift_s, double now_s)
{
    j->pending_shift_s = shift_s;
    /* a stretch ends before any reschedule; were a shift asked inside one,
     * its end consumes it */
    if (!j->ffwd || j->state != JOB_RUNNING || !j->env || j->ff_switch_pending || j->ff_final ||
        j->ff_stretch)
        return;
    /* the iteration in progress at now_s (the first one while waiting for
     * the segment to start) is the k-th of the segment */
    int64_t k = ff_iters_before(j, now_s) + 1;
    if (j->target_iters > 0 && j->ff_base_iters + k >= j->target_iters)
        return; /* the work ends with it: the shift is never consumed */
    j->ff_switch_pending = true;
    j->ff_switch_iters = k;
    job__push(j, fmax(ff_end_time(j, k), now_s), EV_FF_SWITCH);
}

void job__ff_stop(job *j, double now_s)
{
    if (j->ff_stretch) {
        stretch_close(j, j->ff_base_iters + ff_iters_before(j, now_s), now_s);
        return;
    }
    if (!j->ff_final) {
        j->iterations = j->ff_base_iters + ff_iters_before(j, now_s);
        j->iter_time_sum_s = perm_sum(j, j->iterations);
    }
    j->busy_gpu_s = ff_busy_at(j, now_s);
    if (j->env->ffwd)
        j->env->ffwd(j->env->user, j, JOB_FFWD_STOP, NAN, now_s);
}

void job_ffwd_leave_before(job *j, double t_s)
{
    if (!j->ffwd || j->ff_stretch || j->state != JOB_RUNNING || j->ff_final)
        return;
    j->ff_leave_s = t_s;
    ff_push_leave(j, evq_now(j->env->q));
}

void job__ff_leave(job *j, double now_s)
{
    if (!j->ffwd || j->ff_stretch || !(j->ff_leave_s < INFINITY))
        return; /* taken back (job_ffwd_resume) */
    int64_t n = j->ff_base_iters + j->ff_leave_iters;
    j->iterations = n;
    j->iter_time_sum_s = perm_sum(j, n);
    j->busy_gpu_s = ff_busy_at(j, now_s);
    if (j->env->ffwd)
        j->env->ffwd(j->env->user, j, JOB_FFWD_STOP, NAN, now_s);
    j->ff_parked = j->ffwd;
    j->ffwd = NULL;
    j->ff_leave_s = INFINITY;
    j->ff_switch_pending = false;
    j->gen++; /* its end and shift events belong to the pattern */
    double shift = j->pending_shift_s;
    j->pending_shift_s = 0;
    j->total_shift_s += shift;
    job__push(j, now_s + shift, EV_ITER_START);
}

void job_ffwd_park(job *j)
{
    g_return_if_fail(j->state != JOB_RUNNING && !j->ff_parked);
    j->ff_parked = j->ffwd;
    j->ffwd = NULL;
}

void job_ffwd_resume(job *j)
{
    if (j->state != JOB_RUNNING)
        return;
    if (j->ffwd && !j->ff_stretch)
        j->ff_leave_s = INFINITY; /* it has not left yet: it stays */
    j->ff_resume = j->ff_parked != NULL;
}

bool job__ff_try_resume(job *j, double origin_s, double now_s)
{
    if (!j->ff_resume)
        return false;
    j->ff_resume = false;
    j->ffwd = g_steal_pointer(&j->ff_parked);
    j->ff_origin_s = origin_s;
    j->ff_base_iters = j->ff_resume_iters = j->iterations;
    j->ff_base_busy_gpu_s = j->busy_gpu_s;
    j->ff_resume_sum_s = j->iter_time_sum_s;
    j->ff_switch_pending = j->ff_final = false;
    if (j->env->ffwd)
        j->env->ffwd(j->env->user, j, JOB_FFWD_START, origin_s, now_s);
    ff_push_end(j);
    return true;
}

bool job__ff_try_stretch(job *j, double origin_s, double now_s)
{
    const job_env *env = j->env;
    if (!env->ff_until || j->ffwd || !job__has_comm(j) || env->ideal)
        return false;
    double until = env->ff_until(env->user, j, origin_s);
    if (!(until > origin_s))
        return false;
    if (!j->ff_cache) {
        GError *e = NULL;
        j->ff_cache = stretch_profile_new(j, &e);
        if (!j->ff_cache) { /* the engine refused its own plan: stay on events */
            g_warning("job %s: no stretch profile: %s", j->spec.id, e ? e->message : "?");
            g_clear_error(&e);
            return false;
        }
    }
    double T = ffwd_profile_period_s(j->ff_cache);
    /* k whole iterations ending strictly before until */
    double kf = floor((until - origin_s) / T);
    int64_t k = kf > 1e15 ? (int64_t)1e15 : (int64_t)kf;
    while (k > 0 && origin_s + (double)k * T >= until)
        k--;
    if (k < 2)
        return false;
    g_assert(isnan(j->busy_since_s));
    j->ffwd = j->ff_cache;
    j->ff_stretch = true;
    j->ff_stretch_iters = k;
    j->ff_origin_s = origin_s;
    j->ff_base_iters = j->iterations;
    j->ff_base_busy_gpu_s = j->busy_gpu_s;
    j->ff_base_iter_sum_s = j->iter_time_sum_s;
    j->ff_switch_pending = j->ff_final = false;
    j->ff_stretches++;
    if (env->ffwd)
        env->ffwd(env->user, j, JOB_FFWD_START, origin_s, now_s);
    job__push(j, ff_end_time(j, k), EV_FF_STRETCH_END);
    return true;
}

/* Fold a stretch that ran n iterations into j's counters at now_s and
 * leave the fast-forward. */
static void stretch_close(job *j, int64_t n, double now_s)
{
    j->busy_gpu_s = ff_busy_at(j, now_s);
    j->iterations = n;
    j->iter_time_sum_s = j->ff_base_iter_sum_s +
                         (double)(n - j->ff_base_iters) * ffwd_profile_period_s(j->ffwd);
    j->ff_stretch_total += n - j->ff_base_iters;
    if (j->env->ffwd)
        j->env->ffwd(j->env->user, j, JOB_FFWD_STOP, NAN, now_s);
    j->ffwd = NULL;
    j->ff_stretch = false;
}

void job__ff_stretch_end(job *j, double now_s)
{
    stretch_close(j, j->ff_base_iters + j->ff_stretch_iters, now_s);
    double shift = j->pending_shift_s;
    j->pending_shift_s = 0;
    j->total_shift_s += shift;
    job__push(j, now_s + shift, EV_ITER_START);
}

double job_busy_gpu_s_at(const job *j, double now_s)
{
    if (j->ffwd && j->state == JOB_RUNNING)
        return ff_busy_at(j, now_s);
    if (j->graph)
        return job__graph_busy_gpu_s_at(j, now_s);
    double b = j->busy_gpu_s;
    if (!isnan(j->busy_since_s))
        b += j->spec.gpus * (now_s - j->busy_since_s);
    return b;
}

void job_counters_at(const job *j, double t, job_counters *out)
{
    if (!j->ffwd || j->state != JOB_RUNNING || j->ff_final) {
        out->iterations = j->iterations;
        out->iter_time_sum_s = j->iter_time_sum_s;
        out->busy_gpu_s = job_busy_gpu_s_at(j, t);
        return;
    }
    /* what job__ff_stop (and stretch_close) would fold in at t */
    int64_t n = j->ff_base_iters + ff_iters_before(j, t);
    out->iterations = n;
    out->iter_time_sum_s = j->ff_stretch ? j->ff_base_iter_sum_s + (double)(n - j->ff_base_iters) *
                                                                    ffwd_profile_period_s(j->ffwd)
                                         : perm_sum(j, n);
    out->busy_gpu_s = ff_busy_at(j, t);
}

bool job_alone_start_after(job *j, topo *t, double alpha_s, bool ideal, double origin_s,
                           double after_s, double *start_s, GError **error)
{
    if (!job__has_comm(j) && !j->graph) {
        /* the event path's own sums (ff_end_time), so the times agree bit for bit */
        double s = origin_s;
        while (s < after_s) {
            s = s + j->spec.compute_s;
            if (j->spec.opt_s > 0)
                s = s + j->spec.opt_s;
            s = s + 0.0;
        }
        *start_s = s;
        return true;
    }
    double T = j->isolated_iter_s;
    if (j->graph && !ideal) {
        T = j->alone_ecmp_iter_s; /* a structured job: alone on its first paths */
    } else if (!ideal && !j->ffwd) {
        double Tb = 0;
        if (!job__simulate_bucket(j, t, alpha_s, &Tb, NULL, error))
            return false;
        T = job_isolated_iter_s(j->spec.compute_s, j->spec.fwd_frac, j->spec.opt_s,
                                j->spec.buckets, Tb);
    }
    double n = after_s > origin_s ? ceil((after_s - origin_s) / T) : 0;
    while (origin_s + n * T < after_s)
        n += 1;
    *start_s = origin_s + n * T;
    return true;
}
