/* job.c - the iteration state machine (job.h has the model). */
#include "job.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"

enum {
    EV_ITER_START,
    EV_COMPUTE_DONE,
    EV_BUCKET_READY,
    EV_STEP_DONE,
    EV_BUCKET_DONE_IDEAL,
    EV_OPT_DONE,
    EV_FF_END,    /* fast-forward: the work is done (work mode) */
    EV_FF_SWITCH, /* fast-forward: the iteration before a shift ends */
};

void job_spec_clear(job_spec *s)
{
    g_free(s->id);
    g_free(s->model);
    g_strfreev(s->hosts);
    g_free(s->host_gpus);
    memset(s, 0, sizeof *s);
}

static size_t strv_len0(char **v) { return v ? g_strv_length(v) : 0; }

job *job_new(const job_spec *spec, uint64_t uid)
{
    job *j = g_new0(job, 1);
    j->spec = *spec;
    j->spec.id = g_strdup(spec->id);
    j->spec.model = g_strdup(spec->model);
    size_t nh = strv_len0(spec->hosts);
    j->spec.hosts = g_new0(char *, nh + 1);
    for (size_t i = 0; i < nh; i++)
        j->spec.hosts[i] = g_strdup(spec->hosts[i]);
    j->spec.host_gpus = spec->host_gpus ? g_memdup2(spec->host_gpus, nh * sizeof(int)) : NULL;
    if (j->spec.buckets < 1)
        j->spec.buckets = 1;
    j->uid = uid;
    j->busy_since_s = NAN;
    j->run_start_s = j->run_end_s = NAN;
    j->active = g_array_new(FALSE, FALSE, sizeof(net_transfer_id));
    return j;
}

void job_free(job *j)
{
    if (!j)
        return;
    job_spec_clear(&j->spec);
    cluster_alloc_free(j->alloc);
    coll_plan_free(j->plan);
    ffwd_profile_free(j->ffwd);
    g_array_free(j->active, TRUE);
    g_free(j);
}

double job_isolated_iter_s(double C, double s, double opt_s, int buckets, double bucket_s)
{
    if (buckets < 1)
        buckets = 1;
    double e = 0;
    if (bucket_s > 0)
        for (int k = 0; k < buckets; k++) {
            double ready = s * C + k * (1.0 - s) * C / buckets;
            e = fmax(ready, e) + bucket_s;
        }
    return fmax(C, e) + opt_s;
}

/* Per-tier carried bytes of the isolated bucket at each event time
 * (breakpoints of a piecewise-linear function: rates change only at
 * events). */
typedef struct bucket_trace {
    GArray *t_s;   /* double */
    GArray *bytes; /* double[TOPO_TIER_COUNT] per entry */
} bucket_trace;

static void trace_record(bucket_trace *tr, net *n, const GArray *tiers)
{
    double now = evq_now(net_evq(n));
    double b[TOPO_TIER_COUNT] = {0};
    for (guint l = 0; l < tiers->len; l++) {
        net_link_stats st;
        if (net_link_stats_get(n, (net_link_id)l, &st, NULL))
            b[g_array_index(tiers, int, l)] += st.carried_bytes;
    }
    g_array_append_val(tr->t_s, now);
    g_array_append_vals(tr->bytes, b, TOPO_TIER_COUNT);
}

/* One bucket of j's plan alone on a fresh network of its links; with tr,
 * record its per-tier carried bytes after every event. */
static bool simulate_bucket(job *j, topo *t, double alpha_s, double *out_s, bucket_trace *tr,
                            GError **error)
{
    double bucket_s = 0;
    if (j->plan && coll_plan_step_count(j->plan) > 0) {
        g_autoptr(evq) q = evq_new();
        net_options o = net_options_default();
        o.prio_levels = 1;
        g_autoptr(net) n = net_new(&o, q, error);
        if (!n)
            return false;
        g_autoptr(GHashTable) map = g_hash_table_new(g_direct_hash, g_direct_equal);
        g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_autoptr(GArray) mult = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_autoptr(GArray) local = g_array_new(FALSE, FALSE, sizeof(net_link_id));
        g_autoptr(GArray) tiers = g_array_new(FALSE, FALSE, sizeof(int)); /* per local link */
        if (tr)
            trace_record(tr, n, tiers);
        for (size_t s = 0; s < coll_plan_step_count(j->plan); s++) {
            for (size_t i = 0; i < coll_plan_xfer_count(j->plan, s); i++) {
                const coll_xfer *x = coll_plan_xfer(j->plan, s, i);
                coll_xfer_links(j->plan, x, links, mult);
                g_array_set_size(local, links->len);
                for (guint l = 0; l < links->len; l++) {
                    uint32_t tl = g_array_index(links, uint32_t, l);
                    gpointer v = g_hash_table_lookup(map, GSIZE_TO_POINTER((gsize)tl + 1));
                    if (!v) {
                        const topo_link *L = topo_link_get(t, tl);
                        net_link_id id;
                        if (!net_link_add(n, L->cap_Bps, L->latency_s, &id, error))
                            return false;
                        int tier = (int)L->tier;
                        g_array_append_val(tiers, tier);
                        v = GSIZE_TO_POINTER((gsize)id + 1);
                        g_hash_table_insert(map, GSIZE_TO_POINTER((gsize)tl + 1), v);
                    }
                    g_array_index(local, net_link_id, l) = (net_link_id)(GPOINTER_TO_SIZE(v) - 1);
                }
                net_transfer_spec sp = {
                    .size_bytes = x->bytes,
                    .links = (const net_link_id *)(void *)local->data,
                    .mult = (const uint32_t *)(void *)mult->data,
                    .n_links = local->len,
                    .prio = 0,
                    .weight = 1.0,
                    .startup_s = coll_xfer_startup_s(j->plan, x, alpha_s),
                };
                net_transfer_id id;
                if (!net_transfer_start(n, &sp, &id, error)) {
                    g_prefix_error(error, "job %s: ", j->spec.id);
                    return false;
                }
            }
            if (!tr)
                evq_run_until(q, INFINITY);
            while (tr && evq_step(q))
                trace_record(tr, n, tiers);
        }
        bucket_s = evq_now(q);
    }
    *out_s = bucket_s;
    return true;
}

bool job_compute_isolated(job *j, topo *t, double alpha_s, GError **error)
{
    double bucket_s = 0;
    if (j->plan) {
        /* alone, the job would route its own flows apart: measure with the
         * spread paths, then give the flows their ECMP paths back */
        size_t nf = coll_plan_flow_count(j->plan);
        g_autofree size_t *saved = g_new(size_t, nf ? nf : 1);
        for (size_t f = 0; f < nf; f++)
            saved[f] = coll_plan_flow(j->plan, f)->path;
        bool ok = coll_plan_spread_paths(j->plan, t, error) &&
                  simulate_bucket(j, t, alpha_s, &bucket_s, NULL, error);
        for (size_t f = 0; f < nf; f++)
            if (coll_plan_flow(j->plan, f)->path != saved[f] &&
                !coll_plan_set_path(j->plan, t, f, saved[f], ok ? error : NULL))
                ok = false;
        if (!ok)
            return false;
    }
    j->isolated_bucket_s = bucket_s;
    j->isolated_iter_s = job_isolated_iter_s(j->spec.compute_s, j->spec.fwd_frac, j->spec.opt_s,
                                             j->spec.buckets, bucket_s);
    return true;
}

static bool has_comm(const job *j);

bool job_ffwd_eligible(const job *j, const topo *t, bool ideal, bool sched_on_comm)
{
    if (!has_comm(j))
        return true; /* never calls comm_phase: no scheduler hook sees it */
    if (sched_on_comm)
        return false;
    if (ideal)
        return true;
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

bool job_ffwd_prepare(job *j, topo *t, double alpha_s, bool ideal, GError **error)
{
    double C = j->spec.compute_s, s = j->spec.fwd_frac, T = j->isolated_iter_s;
    g_autoptr(ffwd_profile) p = ffwd_profile_new(T, j->spec.gpus, C, j->spec.opt_s, j->intensity);
    if (!p) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL,
                    "job %s: no periodic profile for iteration %g s, compute %g s, optimizer %g s",
                    j->spec.id, T, C, j->spec.opt_s);
        return false;
    }
    if (has_comm(j) && !ideal) {
        bucket_trace tr = {g_array_new(FALSE, FALSE, sizeof(double)),
                           g_array_new(FALSE, FALSE, sizeof(double))};
        double bucket_s = 0;
        bool ok = simulate_bucket(j, t, alpha_s, &bucket_s, &tr, error);
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
            e = b + j->isolated_bucket_s;
        }
        g_array_free(tr.t_s, TRUE);
        g_array_free(tr.bytes, TRUE);
        if (!ok)
            return false;
    }
    ffwd_profile_free(j->ffwd);
    j->ffwd = g_steal_pointer(&p);
    return true;
}

static void handler(void *ctx, uint64_t arg, double now_s);

static void push(job *j, double t, int kind)
{
    evq_push(j->env->q, t, handler, j, ((uint64_t)j->gen << 8) | (uint64_t)kind);
}

static void busy_on(job *j, double now_s)
{
    g_assert(isnan(j->busy_since_s));
    j->busy_since_s = now_s;
    if (j->env->busy_changed)
        j->env->busy_changed(j->env->user, j, j->spec.gpus, now_s);
}

static void busy_off(job *j, double now_s)
{
    g_assert(!isnan(j->busy_since_s));
    j->busy_gpu_s += j->spec.gpus * (now_s - j->busy_since_s);
    j->busy_since_s = NAN;
    if (j->env->busy_changed)
        j->env->busy_changed(j->env->user, j, -j->spec.gpus, now_s);
}

/* ---- fast-forward ---- */

/* The end of iteration k >= 1 of the current segment.  Without
 * communication the event path's times are (t + C) + T_opt from t = the
 * origin, and the same float sums give the same times bit for bit: over
 * millions of iterations at t ~ 1e6 s they drift from origin + k T by up
 * to ~1e-3 s, and a work-mode end or a count at the window end follows
 * them; with communication the network's arithmetic decides, and
 * origin + k T is its value up to rounding.  O(k) without communication
 * (a few ns per iteration, no events), O(1) with. */
static double ff_end_time(const job *j, int64_t k)
{
    if (has_comm(j))
        return j->ff_origin_s + (double)k * j->isolated_iter_s;
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
    double rel = t - j->ff_origin_s, T = j->isolated_iter_s;
    if (!(rel > 0))
        return 0;
    double n = floor(rel / T);
    /* the event path's sums round up to 3 times per iteration, by at most
     * half an ulp of t each: within that (or 1e-9 relative) of a boundary
     * its count can differ from the exact one */
    double ulp = nextafter(fabs(t), INFINITY) - fabs(t);
    double tol = fmax(1e-9 * fmax(1.0, fabs(t)), 2.0 * (n + 1) * ulp);
    bool near = fabs(rel - n * T) <= tol || fabs(rel - (n + 1) * T) <= tol;
    if (near && !has_comm(j)) {
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

static double ff_busy_at(const job *j, double now_s)
{
    ffwd_values v;
    ffwd_profile_eval(j->ffwd, now_s - j->ff_origin_s, &v);
    return j->ff_base_busy_gpu_s + v.busy_gpu_s;
}

/* Work mode: the end of the last iteration of the work. */
static void ff_push_end(job *j)
{
    if (j->target_iters <= 0)
        return;
    int64_t left = j->target_iters - j->ff_base_iters;
    g_assert(left >= 1);
    push(j, ff_end_time(j, left), EV_FF_END);
}

static void ff_begin(job *j, double now_s)
{
    j->ff_base_iters = 0;
    j->ff_base_busy_gpu_s = 0;
    j->ff_switch_pending = j->ff_final = false;
    if (j->env->ffwd)
        j->env->ffwd(j->env->user, j, JOB_FFWD_START, j->ff_origin_s, now_s);
    ff_push_end(j);
}

static void ff_work_done(job *j, double now_s)
{
    j->iterations = j->target_iters;
    j->iter_time_sum_s = (double)j->iterations * j->isolated_iter_s;
    j->ff_final = true;
    uint32_t gen = j->gen;
    bool more = j->env->iteration_done ? j->env->iteration_done(j->env->user, j, now_s) : true;
    /* the replay ends a job whose work is done */
    g_assert(!more || gen != j->gen || j->state != JOB_RUNNING);
    (void)more;
}

/* The iteration before a pending shift ended: consume the shift as
 * finish_iteration does and restart the pattern after it. */
static void ff_switch(job *j, double now_s)
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
}

void job_set_shift(job *j, double shift_s, double now_s)
{
    j->pending_shift_s = shift_s;
    if (!j->ffwd || j->state != JOB_RUNNING || !j->env || j->ff_switch_pending || j->ff_final)
        return;
    /* the iteration in progress at now_s (the first one while waiting for
     * the segment to start) is the k-th of the segment */
    int64_t k = ff_iters_before(j, now_s) + 1;
    if (j->target_iters > 0 && j->ff_base_iters + k >= j->target_iters)
        return; /* the work ends with it: the shift is never consumed */
    j->ff_switch_pending = true;
    j->ff_switch_iters = k;
    push(j, fmax(ff_end_time(j, k), now_s), EV_FF_SWITCH);
}

static void ff_stop(job *j, double now_s)
{
    if (!j->ff_final) {
        j->iterations = j->ff_base_iters + ff_iters_before(j, now_s);
        j->iter_time_sum_s = (double)j->iterations * j->isolated_iter_s;
    }
    j->busy_gpu_s = ff_busy_at(j, now_s);
    if (j->env->ffwd)
        j->env->ffwd(j->env->user, j, JOB_FFWD_STOP, NAN, now_s);
}

double job_busy_gpu_s_at(const job *j, double now_s)
{
    if (j->ffwd && j->state == JOB_RUNNING)
        return ff_busy_at(j, now_s);
    double b = j->busy_gpu_s;
    if (!isnan(j->busy_since_s))
        b += j->spec.gpus * (now_s - j->busy_since_s);
    return b;
}

static bool has_comm(const job *j)
{
    return j->plan && coll_plan_step_count(j->plan) > 0 && j->spec.comm_bytes > 0;
}

static void start_iteration(job *j, double now_s)
{
    j->iter_start_s = now_s;
    j->compute_done = false;
    j->computing = true;
    j->buckets_ready = j->buckets_started = j->buckets_done = 0;
    j->bucket_running = false;
    busy_on(j, now_s);
    double C = j->spec.compute_s, s = j->spec.fwd_frac;
    push(j, now_s + C, EV_COMPUTE_DONE);
    if (has_comm(j)) {
        int B = j->spec.buckets;
        for (int k = 0; k < B; k++)
            push(j, now_s + s * C + k * (1.0 - s) * C / B, EV_BUCKET_READY);
    }
}

static void on_transfer_done(void *user, net_transfer_id id, double now_s)
{
    job *j = user;
    for (guint i = 0; i < j->active->len; i++)
        if (g_array_index(j->active, net_transfer_id, i) == id) {
            g_array_remove_index_fast(j->active, i);
            break;
        }
    if (j->active->len == 0)
        push(j, now_s, EV_STEP_DONE);
}

static void start_step(job *j, double now_s)
{
    const job_env *env = j->env;
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) mult = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    size_t nx = coll_plan_xfer_count(j->plan, j->step);
    for (size_t i = 0; i < nx; i++) {
        const coll_xfer *x = coll_plan_xfer(j->plan, j->step, i);
        coll_xfer_links(j->plan, x, links, mult);
        net_transfer_spec sp = {
            .size_bytes = x->bytes,
            .links = (const net_link_id *)(void *)links->data,
            .mult = (const uint32_t *)(void *)mult->data,
            .n_links = links->len,
            .prio = j->priority,
            .weight = 1.0,
            .startup_s = coll_xfer_startup_s(j->plan, x, env->alpha_s),
            .tag = j->intensity,
            .on_done = on_transfer_done,
            .user = j,
        };
        net_transfer_id id;
        GError *e = NULL;
        if (!net_transfer_start(env->n, &sp, &id, &e)) {
            /* an engine invariant broke (links and sizes come from the
             * topology): fail loudly rather than hang the job */
            g_error("job %s: %s", j->spec.id, e->message);
        }
        g_array_append_val(j->active, id);
    }
    if (nx == 0)
        push(j, now_s, EV_STEP_DONE);
}

static void check_end(job *j, double now_s);

static void try_start_bucket(job *j, double now_s)
{
    if (j->bucket_running || j->buckets_started >= j->buckets_ready)
        return;
    j->bucket_running = true;
    j->buckets_started++;
    if (j->buckets_started == 1 && j->env->comm_phase) {
        uint32_t gen = j->gen;
        j->env->comm_phase(j->env->user, j, true, now_s);
        if (gen != j->gen || j->state != JOB_RUNNING)
            return;
    }
    if (j->env->ideal) {
        push(j, now_s + j->isolated_bucket_s, EV_BUCKET_DONE_IDEAL);
        return;
    }
    j->step = 0;
    start_step(j, now_s);
}

static void bucket_done(job *j, double now_s)
{
    j->bucket_running = false;
    j->buckets_done++;
    if (j->buckets_done == j->spec.buckets) {
        if (j->env->comm_phase) {
            uint32_t gen = j->gen;
            j->env->comm_phase(j->env->user, j, false, now_s);
            if (gen != j->gen || j->state != JOB_RUNNING)
                return;
        }
        check_end(j, now_s);
    } else {
        try_start_bucket(j, now_s);
    }
}

static void finish_iteration(job *j, double now_s)
{
    j->iterations++;
    j->iter_time_sum_s += now_s - j->iter_start_s;
    uint32_t gen = j->gen;
    bool more = j->env->iteration_done ? j->env->iteration_done(j->env->user, j, now_s) : true;
    if (!more || gen != j->gen || j->state != JOB_RUNNING)
        return;
    double shift = j->pending_shift_s;
    j->pending_shift_s = 0;
    j->total_shift_s += shift;
    push(j, now_s + shift, EV_ITER_START);
}

static void check_end(job *j, double now_s)
{
    bool comm_done = !has_comm(j) || j->buckets_done == j->spec.buckets;
    if (!j->compute_done || !comm_done || j->in_opt)
        return;
    if (j->spec.opt_s > 0) {
        j->in_opt = true;
        busy_on(j, now_s);
        push(j, now_s + j->spec.opt_s, EV_OPT_DONE);
    } else {
        finish_iteration(j, now_s);
    }
}

static void handler(void *ctx, uint64_t arg, double now_s)
{
    job *j = ctx;
    if ((uint32_t)(arg >> 8) != j->gen || j->state != JOB_RUNNING)
        return;
    switch ((int)(arg & 0xff)) {
    case EV_ITER_START:
        start_iteration(j, now_s);
        break;
    case EV_COMPUTE_DONE:
        j->computing = false;
        j->compute_done = true;
        busy_off(j, now_s);
        check_end(j, now_s);
        break;
    case EV_BUCKET_READY:
        j->buckets_ready++;
        try_start_bucket(j, now_s);
        break;
    case EV_STEP_DONE:
        j->step++;
        if (j->step < coll_plan_step_count(j->plan))
            start_step(j, now_s);
        else
            bucket_done(j, now_s);
        break;
    case EV_BUCKET_DONE_IDEAL:
        bucket_done(j, now_s);
        break;
    case EV_OPT_DONE:
        j->in_opt = false;
        busy_off(j, now_s);
        finish_iteration(j, now_s);
        break;
    case EV_FF_END:
        ff_work_done(j, now_s);
        break;
    case EV_FF_SWITCH:
        ff_switch(j, now_s);
        break;
    default:
        g_assert_not_reached();
    }
}

void job_begin(job *j, const job_env *env, double now_s)
{
    j->env = env;
    j->state = JOB_RUNNING;
    j->run_start_s = now_s;
    double shift = j->pending_shift_s;
    j->pending_shift_s = 0;
    j->total_shift_s += shift;
    if (j->ffwd) {
        j->ff_origin_s = now_s + shift;
        ff_begin(j, now_s);
        return;
    }
    push(j, now_s + shift, EV_ITER_START);
}

void job_stop(job *j, double now_s)
{
    if (j->state != JOB_RUNNING)
        return;
    if (j->ffwd)
        ff_stop(j, now_s);
    if (!isnan(j->busy_since_s))
        busy_off(j, now_s);
    for (guint i = 0; i < j->active->len; i++)
        net_transfer_cancel(j->env->n, g_array_index(j->active, net_transfer_id, i), NULL);
    g_array_set_size(j->active, 0);
    j->gen++;
    j->state = JOB_DONE;
    j->run_end_s = now_s;
    j->computing = j->in_opt = false;
}

void job_set_priority(job *j, int level)
{
    j->priority = level;
    if (j->state != JOB_RUNNING || !j->env)
        return;
    for (guint i = 0; i < j->active->len; i++) {
        net_transfer_id id = g_array_index(j->active, net_transfer_id, i);
        if (net_transfer_priority(j->env->n, id) != level)
            net_transfer_set_priority(j->env->n, id, level, NULL);
    }
}
