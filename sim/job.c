/* job.c - one job's life and its iteration state machine (job.h: the model).
 * Not here: its buckets (job_bucket.c), fast-forward (job_ffwd.c).
 */
#include "job.h"

#include <math.h>
#include <string.h>

#include "job-private.h"

void job_spec_clear(job_spec *s)
{
    g_free(s->id);
    g_free(s->model);
    g_strfreev(s->hosts);
    g_free(s->host_gpus);
    structure_free(s->structure);
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
    j->spec.structure = structure_copy(spec->structure);
    if (j->spec.buckets < 1)
        j->spec.buckets = 1;
    j->uid = uid;
    for (int c = 0; c < JOB_GRAPH_CLASS_COUNT; c++)
        j->class_priority[c] = -1;
    j->busy_since_s = NAN;
    j->run_start_s = j->run_end_s = NAN;
    j->ff_leave_s = INFINITY;
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
    if (j->nic_dom)
        g_array_unref(j->nic_dom);
    if (j->ffwd != j->ff_cache) /* a stretch borrows the cache */
        ffwd_profile_free(j->ffwd);
    ffwd_profile_free(j->ff_cache);
    ffwd_profile_free(j->ff_parked);
    job_graph_run_free(j->grun);
    job_graph_free(j->graph);
    g_free(j->ideal_task_s);
    g_array_free(j->active, TRUE);
    g_free(j);
}

void job__busy_on(job *j, double now_s)
{
    g_assert(isnan(j->busy_since_s));
    j->busy_since_s = now_s;
    if (j->env->busy_changed)
        j->env->busy_changed(j->env->user, j, j->spec.gpus, now_s);
}

void job__busy_off(job *j, double now_s)
{
    g_assert(!isnan(j->busy_since_s));
    j->busy_gpu_s += j->spec.gpus * (now_s - j->busy_since_s);
    j->busy_since_s = NAN;
    if (j->env->busy_changed)
        j->env->busy_changed(j->env->user, j, -j->spec.gpus, now_s);
}

static void start_iteration(job *j, double now_s)
{
    if (j->graph) {
        job__graph_start(j, now_s);
        return;
    }
    j->iter_start_s = now_s;
    j->compute_done = false;
    j->computing = true;
    j->buckets_ready = j->buckets_started = j->buckets_done = 0;
    j->bucket_running = false;
    job__busy_on(j, now_s);
    double C = j->spec.compute_s, s = j->spec.fwd_frac;
    job__push(j, now_s + C, EV_COMPUTE_DONE);
    if (job__has_comm(j)) {
        int B = j->spec.buckets;
        for (int k = 0; k < B; k++)
            job__push(j, now_s + s * C + k * (1.0 - s) * C / B, EV_BUCKET_READY);
    }
}

void job__finish_iteration(job *j, double now_s)
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
    if (job__ff_try_resume(j, now_s + shift, now_s) || job__ff_try_stretch(j, now_s + shift, now_s))
        return;
    double delay = j->env->group_boundary ? j->env->group_boundary(j->env->user, j,
                                                                   now_s + shift, now_s)
                                          : 0.0;
    job__push(j, now_s + shift + delay, EV_ITER_START);
}

void job__check_end(job *j, double now_s)
{
    bool comm_done = !job__has_comm(j) || j->buckets_done == j->spec.buckets;
    if (!j->compute_done || !comm_done || j->in_opt)
        return;
    if (j->spec.opt_s > 0) {
        j->in_opt = true;
        job__busy_on(j, now_s);
        job__push(j, now_s + j->spec.opt_s, EV_OPT_DONE);
    } else {
        job__finish_iteration(j, now_s);
    }
}

void job__handler(void *ctx, uint64_t arg, double now_s)
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
        job__busy_off(j, now_s);
        job__check_end(j, now_s);
        break;
    case EV_BUCKET_READY:
        j->buckets_ready++;
        job__try_start_bucket(j, now_s);
        break;
    case EV_STEP_DONE:
        job__step_done(j, now_s);
        break;
    case EV_BUCKET_DONE_IDEAL:
        job__bucket_done(j, now_s);
        break;
    case EV_OPT_DONE:
        j->in_opt = false;
        job__busy_off(j, now_s);
        job__finish_iteration(j, now_s);
        break;
    case EV_FF_END:
        job__ff_work_done(j, now_s);
        break;
    case EV_FF_SWITCH:
        job__ff_switch(j, now_s);
        break;
    case EV_FF_STRETCH_END:
        job__ff_stretch_end(j, now_s);
        break;
    case EV_FF_LEAVE:
        job__ff_leave(j, now_s);
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
        job__ff_begin(j, now_s);
        return;
    }
    if (job__ff_try_stretch(j, now_s + shift, now_s))
        return;
    job__push(j, now_s + shift, EV_ITER_START);
}

void job_stop(job *j, double now_s)
{
    if (j->state != JOB_RUNNING)
        return;
    if (j->ffwd)
        job__ff_stop(j, now_s);
    if (j->graph)
        job__graph_stop(j, now_s);
    if (!isnan(j->busy_since_s))
        job__busy_off(j, now_s);
    for (guint i = 0; i < j->active->len; i++)
        net_transfer_cancel(j->env->n, g_array_index(j->active, net_transfer_id, i), NULL);
    g_array_set_size(j->active, 0);
    j->old_path_xfers = false;
    ffwd_profile_free(j->ff_parked);
    j->ff_parked = NULL;
    j->ff_resume = false;
    j->gen++;
    j->state = JOB_DONE;
    j->run_end_s = now_s;
    j->computing = j->in_opt = false;
}
