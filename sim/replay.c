/* replay.c - setting a replay up (replay.h): jobs, window, checks, engine, scheduler.
 * Not here: the run loop (replay_run.c), outputs, the scheduler's view.
 */
#include "replay.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/json.h"
#include "base/limits.h"
#include "replay-private.h"
#include "traces/workload.h"
#include "traces/mdot_compute.h"

static GRand *rng_new(uint64_t seed, uint32_t stream)
{
    guint32 words[3] = {(guint32)seed, (guint32)(seed >> 32), stream};
    return g_rand_new_with_seed_array(words, 3);
}

void replay_free(replay *r)
{
    if (!r)
        return;
    if (r->sched && r->ops)
        r->ops->destroy(r->sched);
    metrics_free(r->m);
    mdot_compute_free(r->mc);
    timeline_free(r->tl);
    net_free(r->n);
    evq_free(r->q);
    if (r->jobs)
        g_ptr_array_free(r->jobs, TRUE);
    if (r->running)
        g_ptr_array_free(r->running, TRUE);
    if (r->status)
        g_array_free(r->status, TRUE);
    if (r->start_order)
        g_array_free(r->start_order, TRUE);
    cluster_free(r->cl);
    if (r->rng_place)
        g_rand_free(r->rng_place);
    contention_free(r->risk);
    if (r->rng_sched)
        g_rand_free(r->rng_sched);
    g_clear_error(&r->deferred_error);
    g_free(r->trace_digest);
    g_free(r->first_unknown_host);
    steady_free(r->steady);
    replay__shard_free(r->shard);
    if (r->pcie_by)
        g_hash_table_destroy(r->pcie_by);
    if (r->pcie_nic)
        g_hash_table_destroy(r->pcie_nic);
    config_free(r->cfg);
    g_free(r);
}

static coll_kind coll_from_catalog(catalog_collective c)
{
    switch (c) {
    case CATALOG_COLL_NONE: return COLL_NONE;
    case CATALOG_COLL_ALLREDUCE: return COLL_ALLREDUCE;
    case CATALOG_COLL_ALLGATHER: return COLL_ALLGATHER;
    case CATALOG_COLL_REDUCESCATTER: return COLL_REDUCESCATTER;
    case CATALOG_COLL_FSDP: return COLL_FSDP;
    case CATALOG_COLL_ALLTOALL: return COLL_ALLTOALL;
    case CATALOG_COLL_P2P: return COLL_P2P;
    }
    return COLL_NONE;
}

/* The most GPUs one host of the topology has. */
static int max_host_gpus(const topo *t)
{
    int per_host = 0;
    for (size_t h = 0; h < topo_host_count(t); h++)
        per_host = MAX(per_host, (int)topo_host_gpu_count(t, (uint32_t)h));
    return per_host;
}

/* A structured job's spec (job.h): its structure s, checked against the
 * topology's hosts; its compute per iteration C, the mean over its stages
 * of m (fwd_s + bwd_s) per GPU, times the jitter (which replay_new applies
 * to its own copy's stage times); s the forward share of C; its optimizer
 * step; no plain collective (its graph has its communication). */
static bool structured_spec(replay *r, const job_structure *s, const char *where, double jitter,
                            job_spec *out, GError **error)
{
    if (!structure_check_hosts(s, max_host_gpus(r->t), where, error))
        return false;
    double C = 0, F = 0;
    for (int st = 0; st < s->pp; st++) {
        C += structure_stage_compute_s(s, st) / s->pp;
        F += s->micro_batches * s->stages[st].fwd_s / s->pp;
    }
    out->structure = (job_structure *)s;
    out->compute_s = C * jitter;
    out->fwd_frac = C > 0 ? F / C : 0;
    out->opt_s = s->opt_s;
    out->coll = COLL_NONE;
    out->comm_bytes = 0;
    out->buckets = s->buckets;
    return true;
}

/* The job spec of trace job tj (times not yet clipped). */
static bool resolve_job(replay *r, const trace_job *tj, const catalog *cat, catalog_gpu gpu,
                        GRand *rng, job_spec *out, double *jitter, job_structure **owned,
                        GError **error)
{
    const catalog_model *m = tj->inline_model;
    if (!m) {
        m = catalog_resolve(cat, tj->model, tj->gpus, tj->max_pod_gpus, rng, error);
        if (!m) {
            g_prefix_error(error, "%s: job %s: ", trace_source_name(r->tr), tj->id);
            return false;
        }
    }
    memset(out, 0, sizeof *out);
    out->id = tj->id;
    out->model = m->name;
    out->gpus = tj->gpus;
    double scale = r->cfg->sim.time_scale;
    out->start_s = tj->start_s * scale;
    out->end_s = tj->end_s * scale;
    out->hosts = tj->hosts;
    out->host_gpus = tj->host_gpus;
    double compute_s = 0;
    if (!replay__compute_s(r, m, gpu, &compute_s, error)) {
        g_prefix_error(error, "job %s: ", tj->id);
        return false;
    }
    *jitter = catalog_jitter_factor(rng, r->cfg->sim.jitter_sigma);
    out->compute_s = compute_s * *jitter;
    out->fwd_frac = m->comm_start_frac;
    out->opt_s = m->opt_s[gpu];
    out->coll = m->network ? coll_from_catalog(m->collective) : COLL_NONE;
    switch (out->coll) {
    case COLL_NONE:
        out->comm_bytes = 0;
        break;
    case COLL_ALLTOALL:
        out->comm_bytes = m->a2a_bytes > 0 ? m->a2a_bytes : m->grad_bytes;
        break;
    case COLL_P2P:
        out->comm_bytes = m->pp_bytes > 0 ? m->pp_bytes : m->grad_bytes;
        break;
    default: {
        /* with tensor parallelism each GPU of a TP group holds a different
         * shard of S; a host's ring then carries min(tp, n) shards */
        int tp = m->tp > 1 ? m->tp : 1;
        if (tp > tj->gpus)
            tp = tj->gpus;
        out->comm_bytes = m->grad_bytes * tp;
    }
    }
    out->buckets = r->cfg->sim.buckets > 0 ? r->cfg->sim.buckets : (m->buckets > 0 ? m->buckets : 1);
    g_autofree char *shown = ccs_escape(tj->id, -1, 80);
    g_autofree char *where = g_strdup_printf("%s: job %s", trace_source_name(r->tr), shown);
    GError *e = NULL;
    workload_report rep = {0};
    *owned = workload_structure_for_trace_job(
        tj, tj->inline_model ? NULL : m, cat, r->cfg->sim.structure_set, max_host_gpus(r->t), gpu,
        r->cfg->sim.job_model == CONFIG_JOB_MODEL_STRUCTURED, where, &rep, &e);
    if (e) {
        g_propagate_error(error, e);
        return false;
    }
    /* the recipe's micro-batch for entries with an architecture; the others
     * (DDP on the catalog's compute) have none: the library's batch over m */
    if (*owned && !tj->inline_model && !tj->structure_desc &&
        !replay__mdot_structure(r, m, *owned, rep.params > 0 ? rep.micro_batch : 0, error)) {
        g_prefix_error(error, "%s: job %s: ", trace_source_name(r->tr), shown);
        return false;
    }
    const job_structure *st = *owned ? *owned : tj->structure;
    if (st && !structured_spec(r, st, where, *jitter, out, error))
        return false;
    /* the floor keeps a window's iterations countable (base/limits.h);
     * jitter may have moved a time inside it outside */
    g_autofree char *what = g_strdup_printf("%s: job %s: compute time of model %s on %s%s",
                                            trace_source_name(r->tr), tj->id, m->name,
                                            catalog_gpu_name(gpu),
                                            r->cfg->sim.jitter_sigma > 0 ? " after jitter" : "");
    return ccs_limit_check(CCS_LIMIT_COMPUTE_S, out->compute_s, what, error);
}

/* Peak concurrent GPU demand of the window (ends before starts at equal
 * times), and when it happens. */
typedef struct edge {
    double t;
    int d;
} edge;

static int edge_cmp(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->d - y->d; /* negative (ends) first */
}

static size_t peak_demand(replay *r, double *when)
{
    g_autoptr(GArray) ev = g_array_new(FALSE, FALSE, sizeof(edge));
    for (guint i = 0; i < r->jobs->len; i++) {
        if (g_array_index(r->status, replay_job_status, i) != REPLAY_JOB_OK)
            continue;
        const job *j = g_ptr_array_index(r->jobs, i);
        edge a = {j->spec.start_s, j->spec.gpus}, b = {j->spec.end_s, -j->spec.gpus};
        g_array_append_val(ev, a);
        g_array_append_val(ev, b);
    }
    g_array_sort(ev, edge_cmp);
    long cur = 0, peak = 0;
    *when = 0;
    for (guint i = 0; i < ev->len; i++) {
        const edge *e = &g_array_index(ev, edge, i);
        cur += e->d;
        if (cur > peak) {
            peak = cur;
            *when = e->t;
        }
    }
    return (size_t)peak;
}

static int edge_cmp_starts_first(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return y->d - x->d;
}

/* The most jobs whose [start_s, end_s) overlap, a start and an end at one
 * instant both counted: in window mode a job runs inside its interval (it
 * starts at start_s or the window's start and ends at end_s), so no more
 * run at once, whatever the order of events at one instant. */
static size_t peak_jobs(replay *r)
{
    g_autoptr(GArray) ev = g_array_new(FALSE, FALSE, sizeof(edge));
    for (guint i = 0; i < r->jobs->len; i++) {
        if (g_array_index(r->status, replay_job_status, i) != REPLAY_JOB_OK)
            continue;
        const job *j = g_ptr_array_index(r->jobs, i);
        edge a = {j->spec.start_s, 1}, b = {j->spec.end_s, -1};
        g_array_append_val(ev, a);
        g_array_append_val(ev, b);
    }
    g_array_sort(ev, edge_cmp_starts_first);
    long cur = 0, peak = 0;
    for (guint i = 0; i < ev->len; i++) {
        cur += g_array_index(ev, edge, i).d;
        peak = MAX(peak, cur);
    }
    return (size_t)peak;
}

static int start_cmp(gconstpointer a, gconstpointer b, gpointer user)
{
    GPtrArray *jobs = user;
    guint x = *(const guint *)a, y = *(const guint *)b;
    const job *jx = g_ptr_array_index(jobs, x), *jy = g_ptr_array_index(jobs, y);
    if (jx->spec.start_s != jy->spec.start_s)
        return jx->spec.start_s < jy->spec.start_s ? -1 : 1;
    return (x > y) - (x < y);
}

static void on_busy(void *user, job *j, int delta, double now_s)
{
    replay *r = user;
    metrics_busy_change(r->m, now_s, delta);
    if (r->tl)
        timeline_busy(r->tl, j, delta, now_s);
}

static void on_comm(void *user, job *j, bool starting, double now_s)
{
    replay *r = user;
    if (r->tl)
        timeline_comm(r->tl, j, starting, now_s);
    replay__on_comm(user, j, starting);
}

void replay_set_timeline(replay *r, const timeline_options *o)
{
    timeline_free(r->tl);
    r->tl = timeline_new(o, r->n, r->t);
}

static void on_ffwd(void *user, job *j, job_ffwd_event ev, double origin_s, double now_s)
{
    replay *r = user;
    switch (ev) {
    case JOB_FFWD_START:
        j->ffwd_handle = metrics_ffwd_add(r->m, j->ffwd, origin_s, now_s);
        break;
    case JOB_FFWD_REBASE:
        metrics_ffwd_rebase(r->m, j->ffwd_handle, origin_s, now_s);
        break;
    case JOB_FFWD_STOP:
        metrics_ffwd_remove(r->m, j->ffwd_handle, now_s);
        break;
    }
}

static double on_ff_until(void *user, const job *j, double origin_s)
{
    replay *r = user;
    return steady_until(r->steady, j, origin_s);
}

static double on_group_boundary(void *user, job *j, double origin_s, double now_s)
{
    replay *r = user;
    return steady_boundary(r->steady, j, origin_s, now_s);
}

static bool on_iteration(void *user, job *j, double now_s)
{
    replay *r = user;
    if (r->cfg->sim.mode == CONFIG_MODE_WORK && j->target_iters > 0 &&
        j->iterations >= j->target_iters) {
        replay__job_end(r, j, now_s);
        return false;
    }
    return true;
}

/* The engine refused a job's transfer: the run stops with the error
 * (replay_run checks deferred_error after every event). */
static void on_job_failed(void *user, job *j, GError *error)
{
    (void)j;
    replay *r = user;
    if (!r->deferred_error)
        r->deferred_error = error;
    else
        g_error_free(error);
}

/* A per-job decision (scheduler.jobs, as `fixed` reads it) for a job the
 * trace does not have is a typo, not a no-op: refuse it. */
static bool check_sched_jobs(const replay *r, const config *cfg, GError **error)
{
    const cJSON *jobs = cfg->scheduler_obj
                            ? cJSON_GetObjectItemCaseSensitive(cfg->scheduler_obj, "jobs")
                            : NULL;
    if (!cJSON_IsObject(jobs))
        return true;
    g_autoptr(GHashTable) ids = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < r->jobs->len; i++)
        g_hash_table_add(ids, ((job *)g_ptr_array_index(r->jobs, i))->spec.id);
    for (const cJSON *c = jobs->child; c; c = c->next)
        if (!g_hash_table_contains(ids, c->string)) {
            g_autofree char *shown = ccs_escape(c->string, -1, 80);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: scheduler.jobs.%s: the trace has no job \"%s\"",
                        cfg->path ? cfg->path : "scenario", shown, shown);
            return false;
        }
    return true;
}

/* The scenario's "scheduler" object holds "name" and the keys the
 * scheduler declares (sched_ops.config_keys), nothing else. */
static bool scheduler_keys_ok(const config *cfg, const sched_ops *ops, GError **error)
{
    if (!cfg->scheduler_obj)
        return true;
    g_autoptr(GPtrArray) keys = g_ptr_array_new();
    g_ptr_array_add(keys, (gpointer) "name");
    for (const char *const *k = ops->config_keys; k && *k; k++)
        g_ptr_array_add(keys, (gpointer)*k);
    g_ptr_array_add(keys, NULL);
    return ccs_json_check_keys(cfg->scheduler_obj, (const char *const *)keys->pdata,
                               cfg->path ? cfg->path : "scenario", "scheduler", error);
}

/* Count the jobs about to run that name a host the topology lacks (the
 * placement policy places them; run.json and a warning say so). */
static void count_unknown_hosts(replay *r)
{
    for (guint k = 0; k < r->start_order->len; k++) {
        const job *j = g_ptr_array_index(r->jobs, g_array_index(r->start_order, guint, k));
        for (char **h = j->spec.hosts; h && *h; h++) {
            size_t id = 0;
            if (topo_host_find(r->t, *h, &id))
                continue;
            if (r->jobs_unknown_hosts++ == 0)
                r->first_unknown_host = g_strdup_printf("job %s: host %s", j->spec.id, *h);
            break;
        }
    }
}

/* Refuse, before anything is written, a window or a number of time-series
 * rows beyond the limits (base/limits.h): such a run would sit for days
 * and fill a disk rather than fail. */
static bool check_projected_work(double start_s, double end_s, double interval_s,
                                 GError **error)
{
    g_autofree char *span_where =
        g_strdup_printf("simulated window [%g, %g] s: its length", start_s, end_s);
    if (!ccs_limit_check(CCS_LIMIT_SPAN_S, end_s - start_s, span_where, error)) {
        g_prefix_error(error, "refusing to start: ");
        return false;
    }
    g_autofree char *rows_where = g_strdup_printf(
        "time-series intervals (window %g s / interval %g s)", end_s - start_s, interval_s);
    if (!ccs_limit_check(CCS_LIMIT_INTERVALS, ceil((end_s - start_s) / interval_s), rows_where,
                         error)) {
        g_prefix_error(error, "refusing to start: ");
        return false;
    }
    return true;
}

/* A window with no time in it, said with the trace and where its ends
 * came from; a trace without jobs is not a window problem.  lo, hi: the
 * trace's first start and last end. */
static bool window_ok(const replay *r, const config *cfg, size_t nj, double lo, double hi,
                      GError **error)
{
    if (r->sim_end_s > r->sim_start_s)
        return true;
    const char *src = trace_source_name(r->tr);
    if (nj == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: the trace has no jobs (a header and no rows?)", src);
        return false;
    }
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "%s: empty replay window [%g, %g] s (sim.start_s and sim.end_s, or --start and "
                "--end%s%s; the trace's jobs run in [%g, %g] s)",
                src, r->sim_start_s, r->sim_end_s, cfg->path ? ", over " : "",
                cfg->path ? cfg->path : "", lo, hi);
    return false;
}

/* A job's iterations in the window, at most its span over its compute
 * time (communication only lengthens an iteration), inside the limit:
 * the run's event count stays countable (base/limits.h). */
static bool iterations_ok(const replay *r, const job *j, GError **error)
{
    double n = (j->spec.end_s - j->spec.start_s) / j->spec.compute_s;
    g_autofree char *where =
        g_strdup_printf("%s: job %s: iterations in the window (%g s / compute %g s)",
                        trace_source_name(r->tr), j->spec.id, j->spec.end_s - j->spec.start_s,
                        j->spec.compute_s);
    if (ccs_limit_check(CCS_LIMIT_ITERATIONS, ceil(n), where, error))
        return true;
    g_prefix_error(error, "refusing to start: ");
    return false;
}

replay *replay_new(const config *cfg, const sched_ops *ops, topo *t, const trace *tr,
                   const catalog *cat, GError **error)
{
    return replay_new_shard(cfg, ops, t, tr, cat, -1, error);
}

replay *replay_new_shard(const config *cfg, const sched_ops *ops, topo *t, const trace *tr,
                         const catalog *cat, int index, GError **error)
{
    g_return_val_if_fail(cfg && ops && t && tr && cat, NULL);
    g_autoptr(replay) r = g_new0(replay, 1);
    r->cfg = config_new();
    g_free(r->cfg->sim.gpu);
    r->cfg->sim = cfg->sim;
    r->cfg->sim.gpu = g_strdup(cfg->sim.gpu);
    r->cfg->sim.mdot_weights = g_strdup(cfg->sim.mdot_weights);
    r->cfg->sim.graph_library = g_strdup(cfg->sim.graph_library);
    r->cfg->sim.structure_set = cJSON_Duplicate(cfg->sim.structure_set, true);
    g_free(r->cfg->scheduler);
    r->cfg->scheduler = g_strdup(cfg->scheduler);
    r->cfg->scheduler_obj = cfg->scheduler_obj;
    r->cfg_in = cfg;
    r->t = t;
    r->tr = tr;
    r->ops = ops;
    GError *e = NULL;
    catalog_gpu gpu = catalog_gpu_parse(cfg->sim.gpu, &e);
    if (e) {
        g_propagate_error(error, e);
        return NULL;
    }
    r->rng_place = rng_new(cfg->sim.seed, 1);
    r->rng_sched = rng_new(cfg->sim.seed, 2);
    g_autoptr(GRand) rng_model = rng_new(cfg->sim.seed, 3);
    r->cl = cluster_new(t);
    r->risk = contention_new();
    r->jobs = g_ptr_array_new_with_free_func((GDestroyNotify)job_free);
    r->status = g_array_new(FALSE, TRUE, sizeof(replay_job_status));
    r->running = g_ptr_array_new();
    r->start_order = g_array_new(FALSE, FALSE, sizeof(guint));

    /* jobs, times scaled */
    size_t nj = trace_job_count(tr);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < nj; i++) {
        const trace_job *tj = trace_job_get(tr, i);
        job_spec s;
        double jitter = 1;
        g_autoptr(job_structure) owned = NULL;
        if (!resolve_job(r, tj, cat, gpu, rng_model, &s, &jitter, &owned, error))
            return NULL;
        job *jb = job_new(&s, 0);
        if (jb->spec.structure)
            structure_scale_compute(jb->spec.structure, jitter);
        g_ptr_array_add(r->jobs, jb);
        replay_job_status st = REPLAY_JOB_OK;
        g_array_append_val(r->status, st);
        lo = fmin(lo, s.start_s);
        hi = fmax(hi, s.end_s);
    }
    r->sim_start_s = isnan(cfg->sim.start_s) ? (nj ? lo : 0) : cfg->sim.start_s;
    r->sim_end_s = isnan(cfg->sim.end_s) ? (nj ? hi : 0) : cfg->sim.end_s;
    if (!window_ok(r, cfg, nj, lo, hi, error))
        return NULL;
    if (!check_projected_work(r->sim_start_s, r->sim_end_s, cfg->sim.interval_s, error))
        return NULL;
    size_t total = cluster_gpu_count(r->cl);
    for (guint i = 0; i < r->jobs->len; i++) {
        job *j = g_ptr_array_index(r->jobs, i);
        if (j->spec.end_s <= r->sim_start_s || j->spec.start_s >= r->sim_end_s ||
            j->spec.end_s <= j->spec.start_s || j->spec.gpus < 1) {
            g_array_index(r->status, replay_job_status, i) = REPLAY_JOB_OUTSIDE_WINDOW;
            r->jobs_skipped_window++;
            continue;
        }
        j->spec.start_s = fmax(j->spec.start_s, r->sim_start_s);
        j->spec.end_s = fmin(j->spec.end_s, r->sim_end_s);
        if (!iterations_ok(r, j, error))
            return NULL;
        if ((size_t)j->spec.gpus > total) {
            if (!cfg->sim.scale_hosts) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "%s: job %s needs %d GPUs but the topology has %zu (%zu short); "
                            "use a larger topology or --scale-hosts to skip such jobs",
                            trace_source_name(tr), j->spec.id, j->spec.gpus, total,
                            (size_t)j->spec.gpus - total);
                return NULL;
            }
            g_array_index(r->status, replay_job_status, i) = REPLAY_JOB_NO_CAPACITY;
            r->jobs_skipped_capacity++;
            continue;
        }
        g_array_append_val(r->start_order, i);
    }
    double when = 0;
    r->peak_gpus_demand = peak_demand(r, &when);
    if (r->peak_gpus_demand > total && !cfg->sim.scale_hosts) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: the trace needs %zu GPUs at its peak (t = %g s) but the topology has "
                    "%zu: %zu GPUs short (use a larger topology, or --scale-hosts to skip the "
                    "jobs that do not fit)",
                    trace_source_name(tr), r->peak_gpus_demand, when, total,
                    r->peak_gpus_demand - total);
        return NULL;
    }
    g_array_sort_with_data(r->start_order, start_cmp, r->jobs);
    if (!check_sched_jobs(r, cfg, error))
        return NULL;
    count_unknown_hosts(r);
    r->jobs_done = r->jobs_skipped_window + r->jobs_skipped_capacity;

    /* the engine */
    r->levels = cfg->sim.priority_levels;
    if (r->ops->unlimited_levels) {
        /* as many levels as jobs can run at once, up to the engine's cap:
         * in window mode the peak overlap (every rank gets its own level,
         * as with more; fewer levels make the net's arrays smaller), in
         * work mode (jobs may run past end_s) the jobs of the run */
        size_t can_run = cfg->sim.mode == CONFIG_MODE_WINDOW ? peak_jobs(r) : r->start_order->len;
        size_t want = MAX((size_t)r->levels, can_run);
        r->levels = (int)MIN(want, (size_t)NET_MAX_PRIO_LEVELS);
    }
    if (r->levels > NET_MAX_PRIO_LEVELS) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "sim.priority_levels: at most %d priority levels, got %d",
                    NET_MAX_PRIO_LEVELS, r->levels);
        return NULL;
    }
    r->q = evq_new();
    net_options no = net_options_default();
    no.prio_levels = r->levels;
    r->n = net_new(&no, r->q, error);
    if (!r->n)
        return NULL;
    size_t L = topo_link_count(t);
    for (size_t i = 0; i < L; i++) {
        const topo_link *tl = topo_link_get(t, (uint32_t)i);
        net_link_id id;
        if (!net_link_add(r->n, tl->cap_Bps, tl->latency_s, &id, error))
            return NULL;
        g_assert(id == i);
    }
    if (!replay__set_dominators(r, error))
        return NULL;
    if (!scheduler_keys_ok(cfg, r->ops, error))
        return NULL;
    sched_options so = {.priority_levels = r->levels, .seed = cfg->sim.seed,
                        .config = cfg->scheduler_obj};
    r->sched = r->ops->create(&so, error);
    if (!r->sched) {
        g_prefix_error(error, "scheduler %s: ", r->ops->name);
        return NULL;
    }
    r->ctx.r = r;
    r->env = (job_env){
        .q = r->q,
        .n = r->n,
        .t = t,
        .alpha_s = ccs_us_to_s(cfg->sim.alpha_us),
        .ideal = r->ops->ideal_network,
        .user = r,
        .busy_changed = on_busy,
        .comm_phase = on_comm,
        .iteration_done = on_iteration,
        .ffwd = on_ffwd,
        .ff_until = on_ff_until,
        .group_boundary = on_group_boundary,
        .failed = on_job_failed,
    };
    if (index >= 0 && !replay__shard_setup(r, index, error))
        return NULL;
    return g_steal_pointer(&r);
}

void replay_window(const replay *r, double *start_s, double *end_s)
{
    *start_s = r->sim_start_s;
    *end_s = r->sim_end_s;
}

const char *replay_unknown_hosts(const replay *r, size_t *count)
{
    *count = r->jobs_unknown_hosts;
    return r->first_unknown_host;
}

void replay_set_decision_hook(replay *r, replay_decision_fn fn, void *user)
{
    g_return_if_fail(r && !r->ran);
    r->decision_fn = fn;
    r->decision_user = user;
}

void replay_set_stop(replay *r, replay_stop_fn fn, void *user)
{
    g_return_if_fail(r != NULL && !r->ran);
    r->stop_fn = fn;
    r->stop_user = user;
}

void replay_set_watch(replay *r, double every_s, replay_watch_fn fn, void *user)
{
    g_return_if_fail(r && !r->ran);
    g_return_if_fail(!fn || (isfinite(every_s) && every_s > 0));
    r->watch_fn = fn;
    r->watch_user = user;
    r->watch_every_s = every_s;
    r->watch_next_s = r->sim_start_s + every_s;
}
