/* job_structured.c - a structured job's iterations: its graph and plan
 * when it is placed, its iteration alone, and the run of its graph on the
 * replay's network (job.h; the graph: job_graph.h).  Not here: the plain
 * job's iteration (job.c, job_bucket.c).
 */
#include "job.h"

#include <math.h>

#include "job-private.h"

/* Iteration time of j's graph alone, on its plan's current paths; with
 * dur_s, each communication task's duration. */
static bool alone_s(job *j, topo *t, double alpha_s, double *iter_s, double *dur_s,
                    GError **error)
{
    return job_graph_isolated(j->graph, j->plan, t, alpha_s, iter_s, dur_s, NULL, error);
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
           job_graph_isolated(g, p, t, alpha_s, iter_s, NULL, NULL, error);
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
