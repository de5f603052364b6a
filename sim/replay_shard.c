/* replay_shard.c - one time shard of a replay (replay.h, docs/cluster.md
 * "Long replays split in time").  Not here: running the shards and merging
 * their folders (sim/experiments/shard_merge.c, the command line).
 *
 * A run over the window [S, E] split in N shards measures shard k over
 * [T_k, T_k+1), T_0 = S, T_N = E, the inner bounds on the run's
 * time-series grid (S + m interval, summed as the ticks are), so the
 * shards' rows are the run's rows.  Shard k simulates [w_k, T_k+1]: a
 * warm-up from w_k, the latest grid point at least M isolated iterations
 * of the slowest job running at T_k before T_k (M = sim.shard_warmup),
 * then the measured window.  What crosses its start, and how:
 *
 *  - placement and arrival numbers (uids, which seed ECMP hashes): exact.
 *    In window mode every arrival and end happens at its recorded time,
 *    so a pass over the trace that only places and releases, in the
 *    run's order (ends at or before an arrival's time first), with the
 *    run's placement generator, gives every job the run's GPUs and uid.
 *  - the jobs running at w_k start there, each at the first start of its
 *    own isolated grid (its start in the run + n times its iteration time
 *    alone, job_alone_start_after): exact for a job that has run alone
 *    since its start, a guess for one that was slowed or shifted.
 *  - the metrics and each job's counters: taken at T_k (the first event
 *    there, before any other) and subtracted, so only [T_k, T_k+1) counts;
 *    rows before T_k are not written.  The fast paths stop at T_k (it is
 *    an interval tick, and the steady state's next change), so no jump
 *    carries iterations across it.
 *  - the scheduler: it decides again at every arrival, as in the run; a
 *    scheduler's random draws (crux's orders) continue from a fresh
 *    generator at w_k, not from where the run's stream was.
 */
#include "replay.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "job_graph.h"
#include "replay-private.h"

/* What the shard keeps per job of the trace. */
typedef struct shard_job {
    double origin_s;       /* its start in the whole run (max(recorded, S)) */
    double end_s;          /* its end there (min(recorded, E)) */
    bool resumed;          /* running at w_k, started before: placed by the pre-pass */
    bool skipped_here;     /* arrived in [T_k, T_k+1) and found no room (--scale-hosts) */
    job_counters at_start; /* its counters at T_k */
    double shift_at_start_s; /* its total shift at T_k */
} shard_job;

typedef struct replay_shard {
    int index, count, warmup_iterations;
    double start_s, end_s;                 /* the whole run's window [S, E] */
    double measure_start_s, measure_end_s; /* [T_k, T_k+1] */
    double warmup_start_s;                 /* w_k */
    double slowest_iter_s;                 /* the warm-up's unit: the slowest job alone at T_k */
    GArray *jobs;                          /* shard_job per trace job */
    bool measuring;                        /* T_k has passed */
    double busy_at_start_gpu_s, alloc_at_start_gpu_s; /* the metrics' totals at T_k */
    size_t running_at_start;   /* jobs running at T_k */
    size_t resumed_at_start;   /* of those, started before w_k (phase from their grid) */
    size_t resumed_sharing;    /* of those, sharing a link with another running job at T_k */
    double resumed_sharing_gpus; /* their GPUs */
} replay_shard;

void replay__shard_free(struct replay_shard *sh)
{
    if (!sh)
        return;
    if (sh->jobs)
        g_array_free(sh->jobs, TRUE);
    g_free(sh);
}

/* The number of time-series intervals of [start, end): grid points
 * start, start + I, ... (summed) below end. */
static size_t grid_count(double start_s, double end_s, double interval_s)
{
    size_t n = 0;
    for (double t = start_s; t < end_s; t = t + interval_s)
        n++;
    return n;
}

/* Grid point m of the window starting at start_s (summed as the ticks are). */
static double grid_point(double start_s, double interval_s, size_t m)
{
    double t = start_s;
    for (size_t i = 0; i < m; i++)
        t = t + interval_s;
    return t;
}

bool replay_shard_bounds(double start_s, double end_s, double interval_s, int count,
                         double *bounds, GError **error)
{
    g_return_val_if_fail(bounds && count >= 1 && interval_s > 0, false);
    size_t m = grid_count(start_s, end_s, interval_s);
    if ((size_t)count > m) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "--shards %d: the window [%g, %g] s holds %zu interval%s of %g s "
                    "(--interval), and each shard needs one: at most %zu shard%s",
                    count, start_s, end_s, m, m == 1 ? "" : "s", interval_s, m,
                    m == 1 ? "" : "s");
        return false;
    }
    bounds[0] = start_s;
    bounds[count] = end_s;
    for (int k = 1; k < count; k++) /* floor(k m / N): strictly increasing, inside (S, E) */
        bounds[k] = grid_point(start_s, interval_s, (size_t)k * m / (size_t)count);
    return true;
}

/* --- The placement pass ---------------------------------------------------- */

typedef struct preplace {
    cluster *cl;
    GRand *rng;
    cluster_alloc **alloc;  /* per job: its placement while placed, else NULL */
    uint64_t *uid;          /* per job: its arrival number once placed */
    bool *no_room;          /* per job: found no room (--scale-hosts) */
    uint64_t next_uid;
    GArray *placed;         /* guint job indices placed and not yet released */
} preplace;

static void preplace_release(struct replay *r, preplace *p, double t_s)
{
    guint keep = 0;
    for (guint k = 0; k < p->placed->len; k++) {
        guint idx = g_array_index(p->placed, guint, k);
        const job *j = g_ptr_array_index(r->jobs, idx);
        if (j->spec.end_s <= t_s) {
            cluster_release(p->cl, p->alloc[idx]);
            cluster_alloc_free(p->alloc[idx]);
            p->alloc[idx] = NULL;
        } else {
            g_array_index(p->placed, guint, keep++) = idx;
        }
    }
    g_array_set_size(p->placed, keep);
}

/* Place, as the whole run does (replay_run.c, arrival), every job of the
 * run's start order that starts before until_s, each after the jobs ending
 * at or before its start released their GPUs; then release those ending at
 * or before until_s.  What is placed at until_s stays in p. */
static bool preplace_run(struct replay *r, preplace *p, double until_s, GError **error)
{
    for (guint k = 0; k < r->start_order->len; k++) {
        guint idx = g_array_index(r->start_order, guint, k);
        job *j = g_ptr_array_index(r->jobs, idx);
        if (j->spec.start_s >= until_s)
            break;
        preplace_release(r, p, j->spec.start_s);
        GError *e = NULL;
        const char *const *hosts = (const char *const *)j->spec.hosts;
        size_t nh = j->spec.hosts ? g_strv_length(j->spec.hosts) : 0;
        cluster_alloc *a = cluster_place(p->cl, hosts, j->spec.host_gpus, nh, j->spec.gpus,
                                         r->cfg->sim.placement, p->rng, &e);
        if (!a) {
            if (r->cfg->sim.scale_hosts) {
                g_error_free(e);
                p->no_room[idx] = true;
                continue;
            }
            g_propagate_prefixed_error(error, e, "job %s: ", j->spec.id);
            return false;
        }
        p->alloc[idx] = a;
        p->uid[idx] = p->next_uid++;
        g_array_append_val(p->placed, idx);
    }
    preplace_release(r, p, until_s);
    return true;
}

static void preplace_init(struct replay *r, preplace *p, cluster *cl, GRand *rng)
{
    guint n = r->jobs->len;
    *p = (preplace){.cl = cl, .rng = rng};
    p->alloc = g_new0(cluster_alloc *, n + 1);
    p->uid = g_new0(uint64_t, n + 1);
    p->no_room = g_new0(bool, n + 1);
    p->placed = g_array_new(FALSE, FALSE, sizeof(guint));
}

static void preplace_clear(preplace *p)
{
    for (guint k = 0; k < p->placed->len; k++)
        cluster_alloc_free(p->alloc[g_array_index(p->placed, guint, k)]);
    g_free(p->alloc);
    g_free(p->uid);
    g_free(p->no_room);
    g_array_free(p->placed, TRUE);
}

/* --- The warm-up ------------------------------------------------------------ */

/* The isolated iteration time of the slowest job running at T_k (placed
 * as the run places it; 0 when none runs), from its collective plan on
 * that placement. */
static bool slowest_at(struct replay *r, double t_s, double *out_s, GError **error)
{
    g_autoptr(cluster) cl = cluster_new(r->t);
    GRand *rng = g_rand_copy(r->rng_place);
    preplace p;
    preplace_init(r, &p, cl, rng);
    bool ok = preplace_run(r, &p, t_s, error);
    *out_s = 0;
    for (guint k = 0; ok && k < p.placed->len; k++) {
        guint idx = g_array_index(p.placed, guint, k);
        job *j = g_ptr_array_index(r->jobs, idx);
        j->alloc = p.alloc[idx];
        j->uid = p.uid[idx];
        ok = replay__job_prepare(r, j, error);
        if (!ok)
            g_prefix_error(error, "job %s: ", j->spec.id);
        else
            *out_s = fmax(*out_s, j->isolated_iter_s);
        coll_plan_free(j->plan);
        j->plan = NULL;
        job_graph_free(j->graph);
        j->graph = NULL;
        g_clear_pointer(&j->ideal_task_s, g_free);
        j->alloc = NULL;
        j->uid = 0;
    }
    preplace_clear(&p);
    g_rand_free(rng);
    return ok;
}

/* w_k: the latest grid point at or before T_k - M x the slowest isolated
 * iteration at T_k (not before S). */
static double warmup_start(const replay_shard *sh, double interval_s)
{
    double want = sh->measure_start_s - sh->warmup_iterations * sh->slowest_iter_s;
    double w = sh->start_s;
    for (double t = w; t <= want; t = t + interval_s) /* want <= T_k, a grid point */
        w = t;
    return w;
}

/* Keep in the run only the jobs that overlap [w_k, T_k+1), clipped to it,
 * the start order filtered (the jobs resumed at w_k, which started before
 * it, stay first). */
static void narrow(struct replay *r, replay_shard *sh)
{
    double w = sh->warmup_start_s, end = sh->measure_end_s;
    guint keep = 0;
    for (guint k = 0; k < r->start_order->len; k++) {
        guint idx = g_array_index(r->start_order, guint, k);
        job *j = g_ptr_array_index(r->jobs, idx);
        shard_job *sj = &g_array_index(sh->jobs, shard_job, idx);
        bool inside = sj->end_s > w && sj->origin_s < end && (sj->resumed || sj->origin_s >= w);
        if (!inside) {
            g_array_index(r->status, replay_job_status, idx) = REPLAY_JOB_OUTSIDE_WINDOW;
            continue;
        }
        j->spec.start_s = fmax(j->spec.start_s, w);
        j->spec.end_s = fmin(j->spec.end_s, end);
        g_array_index(r->start_order, guint, keep++) = idx;
    }
    g_array_set_size(r->start_order, keep);
    r->jobs_skipped_window = r->jobs_skipped_capacity = 0;
    for (guint i = 0; i < r->status->len; i++)
        if (g_array_index(r->status, replay_job_status, i) == REPLAY_JOB_OUTSIDE_WINDOW)
            r->jobs_skipped_window++;
    r->jobs_done = r->jobs_skipped_window;
    r->sim_start_s = w;
    r->sim_end_s = end;
}

bool replay__shard_setup(struct replay *r, int index, GError **error)
{
    int n = r->cfg->sim.shards;
    g_return_val_if_fail(index >= 0 && index < n, false);
    if (r->cfg->sim.mode != CONFIG_MODE_WINDOW) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "--shards: only window mode can be split in time (in work mode a job's end "
                    "depends on everything before it)");
        return false;
    }
    g_autofree double *b = g_new(double, n + 1);
    if (!replay_shard_bounds(r->sim_start_s, r->sim_end_s, r->cfg->sim.interval_s, n, b, error))
        return false;
    replay_shard *sh = g_new0(replay_shard, 1);
    r->shard = sh;
    sh->index = index;
    sh->count = n;
    sh->warmup_iterations = r->cfg->sim.shard_warmup;
    sh->start_s = r->sim_start_s;
    sh->end_s = r->sim_end_s;
    sh->measure_start_s = b[index];
    sh->measure_end_s = b[index + 1];
    sh->jobs = g_array_sized_new(FALSE, TRUE, sizeof(shard_job), r->jobs->len);
    g_array_set_size(sh->jobs, r->jobs->len);
    for (guint i = 0; i < r->jobs->len; i++) {
        const job *j = g_ptr_array_index(r->jobs, i);
        shard_job *sj = &g_array_index(sh->jobs, shard_job, i);
        sj->origin_s = j->spec.start_s;
        sj->end_s = j->spec.end_s;
    }
    if (index > 0 && !slowest_at(r, sh->measure_start_s, &sh->slowest_iter_s, error))
        return false;
    sh->warmup_start_s = index > 0 ? warmup_start(sh, r->cfg->sim.interval_s) : sh->start_s;
    /* the run's placements up to w_k, on the replay's own cluster and
     * generator, so the arrivals after it continue them */
    preplace p;
    preplace_init(r, &p, r->cl, r->rng_place);
    bool ok = preplace_run(r, &p, sh->warmup_start_s, error);
    for (guint k = 0; ok && k < p.placed->len; k++) {
        guint idx = g_array_index(p.placed, guint, k);
        job *j = g_ptr_array_index(r->jobs, idx);
        j->alloc = g_steal_pointer(&p.alloc[idx]);
        j->uid = p.uid[idx];
        g_array_index(sh->jobs, shard_job, idx).resumed = true;
    }
    if (ok)
        g_array_set_size(p.placed, 0);
    r->next_uid = p.next_uid;
    preplace_clear(&p);
    if (!ok)
        return false;
    narrow(r, sh);
    return true;
}

/* --- While it runs ---------------------------------------------------------- */

bool replay__shard_placed(const struct replay *r, guint idx)
{
    return r->shard && g_array_index(r->shard->jobs, shard_job, idx).resumed;
}

bool replay__shard_align(struct replay *r, job *j, guint idx, double now_s, GError **error)
{
    if (!replay__shard_placed(r, idx))
        return true;
    double origin = g_array_index(r->shard->jobs, shard_job, idx).origin_s, start = now_s;
    if (!job_alone_start_after(j, r->t, r->env.alpha_s, r->env.ideal, origin, now_s, &start,
                               error)) {
        g_prefix_error(error, "job %s: ", j->spec.id);
        return false;
    }
    j->pending_shift_s += start - now_s;
    return true;
}

void replay__shard_no_room(struct replay *r, guint idx, double now_s)
{
    if (r->shard && now_s >= r->shard->measure_start_s)
        g_array_index(r->shard->jobs, shard_job, idx).skipped_here = true;
}

double replay__shard_mark_s(const struct replay *r)
{
    return r->shard && !r->shard->measuring ? r->shard->measure_start_s : INFINITY;
}

/* Per link of the topology: how many running jobs' plans use it. */
static uint32_t *link_users(const struct replay *r)
{
    uint32_t *users = g_new0(uint32_t, topo_link_count(r->t) + 1);
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) bytes = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint i = 0; i < r->running->len; i++) {
        const job *j = g_ptr_array_index(r->running, i);
        if (!j->plan)
            continue;
        coll_plan_link_bytes(j->plan, links, bytes);
        for (guint k = 0; k < links->len; k++)
            users[g_array_index(links, uint32_t, k)]++;
    }
    return users;
}

/* Job j's plan uses a link another running job's plan uses too. */
static bool shares_link(const job *j, const uint32_t *users)
{
    if (!j->plan)
        return false;
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) bytes = g_array_new(FALSE, FALSE, sizeof(double));
    coll_plan_link_bytes(j->plan, links, bytes);
    for (guint k = 0; k < links->len; k++)
        if (users[g_array_index(links, uint32_t, k)] > 1)
            return true;
    return false;
}

void replay__shard_mark(struct replay *r, double now_s)
{
    replay_shard *sh = r->shard;
    sh->measuring = true;
    int gpus = 0;
    metrics_peek(r->m, now_s, &sh->busy_at_start_gpu_s, &sh->alloc_at_start_gpu_s, &gpus);
    g_autofree uint32_t *users = link_users(r);
    for (guint i = 0; i < r->jobs->len; i++) {
        const job *j = g_ptr_array_index(r->jobs, i);
        if (j->state != JOB_RUNNING)
            continue;
        shard_job *sj = &g_array_index(sh->jobs, shard_job, i);
        job_counters_at(j, now_s, &sj->at_start);
        sj->shift_at_start_s = j->total_shift_s;
        sh->running_at_start++;
        if (!sj->resumed)
            continue;
        sh->resumed_at_start++;
        if (shares_link(j, users)) {
            sh->resumed_sharing++;
            sh->resumed_sharing_gpus += j->spec.gpus;
        }
    }
}

bool replay__shard_hides_row(const struct replay *r, const metrics_row *row)
{
    return r->shard && row->t_s < r->shard->measure_start_s;
}

/* --- Results ---------------------------------------------------------------- */

/* Whether job i ran inside [T_k, T_k+1) (not only in the warm-up). */
static bool measured(const struct replay *r, guint i)
{
    const job *j = g_ptr_array_index(r->jobs, i);
    return g_array_index(r->status, replay_job_status, i) == REPLAY_JOB_OK && j->alloc &&
           j->run_end_s > r->shard->measure_start_s;
}

void replay__shard_job_result(const struct replay *r, guint i, replay_job_result *o)
{
    const shard_job *sj = &g_array_index(r->shard->jobs, shard_job, i);
    if (!measured(r, i)) {
        o->ran = false;
        o->iterations = 0;
        o->busy_gpu_s = 0;
        o->mean_iter_s = o->slowdown = NAN;
        return;
    }
    const job *j = g_ptr_array_index(r->jobs, i);
    o->iterations -= sj->at_start.iterations;
    o->busy_gpu_s -= sj->at_start.busy_gpu_s;
    o->shift_s -= sj->shift_at_start_s;
    double sum = j->iter_time_sum_s - sj->at_start.iter_time_sum_s;
    o->mean_iter_s = o->iterations > 0 ? sum / o->iterations : NAN;
    o->slowdown = o->iterations > 0 && j->isolated_iter_s > 0 ? o->mean_iter_s / j->isolated_iter_s
                                                              : NAN;
}

void replay__shard_summary(const struct replay *r, replay_summary *s)
{
    const replay_shard *sh = r->shard;
    double span = sh->measure_end_s - sh->measure_start_s;
    double busy = (r->m ? metrics_busy_gpu_s(r->m) : 0) - sh->busy_at_start_gpu_s;
    double alloc = (r->m ? metrics_alloc_gpu_s(r->m) : 0) - sh->alloc_at_start_gpu_s;
    s->sim_start_s = sh->measure_start_s;
    s->busy_gpu_s = busy;
    s->gpu_util_cluster_frac = s->gpus_total ? busy / (s->gpus_total * span) : NAN;
    s->gpu_util_allocated_frac = alloc > 0 ? busy / alloc : NAN;
    steady_counters c = {0};
    if (r->steady)
        steady_get_counters(r->steady, &c);
    s->approx_util_bound = s->gpus_total ? c.approx_busy_bound / (s->gpus_total * span) : 0;
    s->jobs = s->jobs_by_policy = s->jobs_skipped = 0;
    for (guint i = 0; i < r->jobs->len; i++) {
        const job *j = g_ptr_array_index(r->jobs, i);
        if (measured(r, i)) {
            s->jobs++;
            s->jobs_by_policy += j->placed_by_policy;
        } else if (g_array_index(r->status, replay_job_status, i) != REPLAY_JOB_OK) {
            s->jobs_skipped++;
        }
    }
}

void replay__shard_finish(struct replay *r)
{
    const replay_shard *sh = r->shard;
    for (guint i = 0; i < r->jobs->len; i++) {
        job *j = g_ptr_array_index(r->jobs, i);
        const shard_job *sj = &g_array_index(sh->jobs, shard_job, i);
        replay_job_status *st = &g_array_index(r->status, replay_job_status, i);
        /* another shard's: an arrival without room in the warm-up, a job
         * that ended in it */
        if ((*st == REPLAY_JOB_NO_CAPACITY && !sj->skipped_here) ||
            (*st == REPLAY_JOB_OK && !measured(r, i)))
            *st = REPLAY_JOB_OUTSIDE_WINDOW;
        if (sj->resumed)
            j->run_start_s = sj->origin_s; /* jobs.csv: its start in the whole run */
        j->spec.start_s = sj->origin_s;    /* and its times there, not the shard's */
        j->spec.end_s = sj->end_s;
    }
}

static void add_exact(output_csv *c, double v)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    output_csv_str(c, isfinite(v) ? g_ascii_formatd(buf, sizeof buf, "%.17g", v) : "");
}

static const char *const exact_columns[] = {
    "job_id", "iterations", "iter_time_sum_s", "busy_gpu_s", "shift_s", "isolated_iter_s",
    "alone_ecmp_iter_s", "at_risk", NULL};

bool replay__shard_write(struct replay *r, output_dir *d, cJSON *root, GError **error)
{
    const replay_shard *sh = r->shard;
    output_csv *c = output_csv_open(d, REPLAY_SHARD_JOBS_FILE, false, exact_columns, error);
    if (!c)
        return false;
    for (guint i = 0; i < r->jobs->len; i++) {
        if (!measured(r, i))
            continue;
        const job *j = g_ptr_array_index(r->jobs, i);
        const shard_job *sj = &g_array_index(sh->jobs, shard_job, i);
        output_csv_str(c, j->spec.id);
        output_csv_int(c, j->iterations - sj->at_start.iterations);
        add_exact(c, j->iter_time_sum_s - sj->at_start.iter_time_sum_s);
        add_exact(c, j->busy_gpu_s - sj->at_start.busy_gpu_s);
        add_exact(c, j->total_shift_s - sj->shift_at_start_s);
        add_exact(c, j->isolated_iter_s);
        add_exact(c, j->alone_ecmp_iter_s);
        output_csv_int(c, contention_job_at_risk(r->risk, j->uid) ? 1 : 0);
        if (!output_csv_end_row(c, error))
            return false;
    }
    replay_summary s;
    replay_get_summary(r, &s);
    cJSON *o = cJSON_AddObjectToObject(root, "shard");
    cJSON_AddNumberToObject(o, "index", sh->index);
    cJSON_AddNumberToObject(o, "count", sh->count);
    cJSON_AddNumberToObject(o, "run_start_s", sh->start_s);
    cJSON_AddNumberToObject(o, "run_end_s", sh->end_s);
    cJSON_AddNumberToObject(o, "warmup_start_s", sh->warmup_start_s);
    cJSON_AddNumberToObject(o, "start_s", sh->measure_start_s);
    cJSON_AddNumberToObject(o, "end_s", sh->measure_end_s);
    cJSON_AddNumberToObject(o, "warmup_iterations", sh->warmup_iterations);
    cJSON_AddNumberToObject(o, "slowest_iter_s", sh->slowest_iter_s);
    cJSON_AddNumberToObject(o, "busy_gpu_s", s.busy_gpu_s);
    cJSON_AddNumberToObject(o, "alloc_gpu_s", (r->m ? metrics_alloc_gpu_s(r->m) : 0) -
                                                  sh->alloc_at_start_gpu_s);
    cJSON_AddNumberToObject(o, "jobs_running_at_start", (double)sh->running_at_start);
    cJSON_AddNumberToObject(o, "jobs_resumed_at_start", (double)sh->resumed_at_start);
    cJSON_AddNumberToObject(o, "jobs_resumed_sharing_links", (double)sh->resumed_sharing);
    cJSON_AddNumberToObject(o, "gpus_resumed_sharing_links", sh->resumed_sharing_gpus);
    return true;
}
