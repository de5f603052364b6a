/* sched_ctx.c - the engine side of the scheduler interface (sim/scheduler.h).
 * Not here: any scheduler (schedulers/).
 *
 * Job j of the context is the j-th running job in arrival order.  Reads
 * come from the job records and collective plans; decisions are applied at
 * once where the engine can: a priority change re-prioritises the job's
 * running transfers in place; a path change takes effect from the next
 * transfer of the flow (a running lock-step transfer keeps its link set
 * until its step ends, at most one collective step later); a shift delays
 * the job's next iteration start.  A level reaches the running transfers
 * at the end of the call, where it changes a rate (the wing's
 * steady_levels_commit, sim/steady/steady_levels.c).
 */
#include "replay-private.h"

#include <math.h>

static job *ctx_job(const sched_ctx *ctx, size_t j)
{
    g_return_val_if_fail(j < ctx->r->running->len, NULL);
    return g_ptr_array_index(ctx->r->running, j);
}

size_t sched_job_count(const sched_ctx *ctx) { return ctx->r->running->len; }

void sched_job_get(const sched_ctx *ctx, size_t j, sched_job_info *out)
{
    const job *jb = ctx_job(ctx, j);
    out->id = jb->spec.id;
    out->uid = jb->uid;
    out->arrival_s = jb->run_start_s;
    out->gpus = jb->spec.gpus;
    out->n_hosts = jb->alloc ? jb->alloc->n_hosts : 0;
    out->model = jb->spec.model;
    out->compute_s = jb->spec.compute_s;
    out->fwd_frac = jb->spec.fwd_frac;
    out->opt_s = jb->spec.opt_s;
    out->isolated_iter_s = jb->isolated_iter_s;
    out->work_gpu_s = jb->spec.gpus * jb->spec.compute_s;
    out->n_flows = jb->plan ? coll_plan_flow_count(jb->plan) : 0;
    out->priority = jb->priority;
    out->shift_s = jb->pending_shift_s;
}

void sched_flow_get(const sched_ctx *ctx, size_t j, size_t f, sched_flow_info *out)
{
    const job *jb = ctx_job(ctx, j);
    g_return_if_fail(jb->plan && f < coll_plan_flow_count(jb->plan));
    const coll_flow *fl = coll_plan_flow(jb->plan, f);
    out->src_nic = fl->src_nic;
    out->dst_nic = fl->dst_nic;
    out->bytes = fl->bytes_per_iter;
    out->n_paths = fl->n_paths;
    out->path = fl->path;
}

void sched_flow_path_links(sched_ctx *ctx, size_t j, size_t f, size_t p, GArray *out)
{
    const job *jb = ctx_job(ctx, j);
    g_return_if_fail(jb->plan && f < coll_plan_flow_count(jb->plan));
    const coll_flow *fl = coll_plan_flow(jb->plan, f);
    g_return_if_fail(p < fl->n_paths);
    g_array_set_size(out, 0);
    if (!topo_path_links(ctx->r->t, fl->src_nic, fl->dst_nic, p, out, NULL))
        g_array_set_size(out, 0);
}

size_t sched_job_fixed_links(const sched_ctx *ctx, size_t j, const uint32_t **links,
                             const double **bytes)
{
    const job *jb = ctx_job(ctx, j);
    if (!jb->plan) {
        *links = NULL;
        *bytes = NULL;
        return 0;
    }
    return coll_plan_fixed_links(jb->plan, links, bytes);
}

void sched_job_link_bytes(sched_ctx *ctx, size_t j, GArray *out_links, GArray *out_bytes)
{
    const job *jb = ctx_job(ctx, j);
    g_array_set_size(out_links, 0);
    g_array_set_size(out_bytes, 0);
    if (jb->plan)
        coll_plan_link_bytes(jb->plan, out_links, out_bytes);
}

size_t sched_link_count(const sched_ctx *ctx) { return topo_link_count(ctx->r->t); }

double sched_link_capacity_Bps(const sched_ctx *ctx, uint32_t link)
{
    g_return_val_if_fail(link < topo_link_count(ctx->r->t), NAN);
    return topo_link_get(ctx->r->t, link)->cap_Bps;
}

int sched_priority_levels(const sched_ctx *ctx) { return ctx->r->levels; }
double sched_now_s(const sched_ctx *ctx) { return evq_now(ctx->r->q); }
GRand *sched_rng(sched_ctx *ctx) { return ctx->r->rng_sched; }

void sched_set_path(sched_ctx *ctx, size_t j, size_t f, size_t p)
{
    job *jb = ctx_job(ctx, j);
    g_return_if_fail(jb->plan && f < coll_plan_flow_count(jb->plan));
    g_return_if_fail(p < coll_plan_flow(jb->plan, f)->n_paths);
    if (coll_plan_flow(jb->plan, f)->path == p)
        return;
    GError *e = NULL;
    steady_paths_changing(ctx->r->steady, jb);
    job_paths_changed(jb);
    if (!coll_plan_set_path(jb->plan, ctx->r->t, f, p, &e)) {
        g_debug("sched_set_path: %s", e->message);
        g_error_free(e);
    }
}

/* Recorded; the running transfers get it at the end of the call
 * (steady_levels_commit). */
void sched_set_priority(sched_ctx *ctx, size_t j, int level)
{
    job *jb = ctx_job(ctx, j);
    g_return_if_fail(level >= 0 && level < ctx->r->levels);
    jb->priority = level;
}

G_STATIC_ASSERT((int)SCHED_CLASS_TP == JOB_GRAPH_TP && (int)SCHED_CLASS_PP == JOB_GRAPH_PP &&
                (int)SCHED_CLASS_DP == JOB_GRAPH_DP && (int)SCHED_CLASS_PARAM == JOB_GRAPH_PARAM &&
                (int)SCHED_CLASS_MOE == JOB_GRAPH_MOE &&
                (int)SCHED_CLASS_COUNT == JOB_GRAPH_CLASS_COUNT);

void sched_set_class_priority(sched_ctx *ctx, size_t j, sched_class cls, int level)
{
    job *jb = ctx_job(ctx, j);
    g_return_if_fail(cls < SCHED_CLASS_COUNT && level >= -1 && level < ctx->r->levels);
    g_return_if_fail(ctx->r->ops->class_levels); /* job_ffwd_eligible relies on it */
    if (jb->class_priority[cls] != level)
        job_class_levels_changed(jb);
    jb->class_priority[cls] = level;
}

void sched_set_shift(sched_ctx *ctx, size_t j, double shift_s)
{
    job *jb = ctx_job(ctx, j);
    g_return_if_fail(isfinite(shift_s) && shift_s >= 0);
    job_set_shift(jb, shift_s, evq_now(ctx->r->q));
}

void replay__reschedule(struct replay *r)
{
    r->ops->reschedule(r->sched, &r->ctx);
    steady_after_reschedule(r->steady);
    if (r->decision_fn && !r->stopped && !r->decision_fn(r->decision_user, &r->ctx))
        r->stopped = true;
}

void replay__on_comm(struct replay *r, job *j, bool starting)
{
    if (!r->ops->on_comm)
        return;
    for (guint i = 0; i < r->running->len; i++)
        if (g_ptr_array_index(r->running, i) == j) {
            r->ops->on_comm(r->sched, &r->ctx, i, starting);
            steady_levels_commit(r->steady, true);
            return;
        }
}
