/* job.c - the iteration state machine (job.h has the model). */
#include "job.h"

#include <math.h>
#include <string.h>

#include "ccs.h"

enum {
    EV_ITER_START,
    EV_COMPUTE_DONE,
    EV_BUCKET_READY,
    EV_STEP_DONE,
    EV_BUCKET_DONE_IDEAL,
    EV_OPT_DONE,
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

bool job_compute_isolated(job *j, topo *t, double alpha_s, GError **error)
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
            evq_run_until(q, INFINITY);
        }
        bucket_s = evq_now(q);
    }
    j->isolated_bucket_s = bucket_s;
    j->isolated_iter_s = job_isolated_iter_s(j->spec.compute_s, j->spec.fwd_frac, j->spec.opt_s,
                                             j->spec.buckets, bucket_s);
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

double job_busy_gpu_s_at(const job *j, double now_s)
{
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
    push(j, now_s + shift, EV_ITER_START);
}

void job_stop(job *j, double now_s)
{
    if (j->state != JOB_RUNNING)
        return;
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
