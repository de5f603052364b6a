/* replay_run.c - the replay loop and its results (replay.h; docs/architecture.md, §3).
 * Not here: the set-up (replay.c), the outputs (replay_output.c).
 *
 * Events of the replay itself (the jobs push their own, job.c):
 *   ARRIVAL  a job's start: place it, build its collective plan, measure its
 *            isolated iteration time, call the scheduler, start iterating.
 *            Arrivals are chained (each pushes the next), so a job ending at
 *            time t (its end event was pushed when it started) releases its
 *            GPUs before a job arriving at t is placed.
 *   JOB_END  window mode: the job's recorded end (clipped to the window).
 *   TICK     the end of a time-series interval.
 *   SHARD_MARK  a time shard's measured window starts (replay_shard.c).
 * The scheduler's reschedule runs after every arrival and every end.
 */
#include "replay.h"

#include <math.h>
#include <string.h>
#include <sys/resource.h>

#include "base/ccs.h"
#include "replay-private.h"

enum { EV_ARRIVAL = 1, EV_JOB_END = 2, EV_TICK = 3, EV_SHARD_MARK = 4 };

/* A timeline's span (replay.h): the fast path is on before it opens, off
 * while it is open, on again after. */
enum { SPAN_BEFORE, SPAN_OPEN, SPAN_AFTER };

static void handler(void *ctx, uint64_t arg, double now_s);

static void fail(replay *r, GError *e)
{
    if (!r->deferred_error)
        r->deferred_error = e;
    else
        g_error_free(e);
}

void replay__job_end(replay *r, job *j, double now_s)
{
    if (j->state != JOB_RUNNING)
        return;
    job_stop(j, now_s);
    GError *e = NULL;
    if (!replay__job_links_release(r, j, &e)) /* its transfers are gone */
        fail(r, e);
    if (r->tl)
        timeline_job_end(r->tl, j, now_s);
    metrics_alloc_change(r->m, now_s, -j->spec.gpus, -1);
    cluster_release(r->cl, j->alloc);
    contention_job_end(r->risk, j->uid);
    g_ptr_array_remove(r->running, j);
    coll_plan_free(j->plan);
    j->plan = NULL;
    job_graph_run_free(j->grun); /* stopped: no event of it is pending */
    j->grun = NULL;
    job_graph_free(j->graph);
    j->graph = NULL;
    steady_job_end(r->steady, j); /* its link bounds go with its plan */
    /* the metrics let go of it in job_stop; a stretch's ended there */
    ffwd_profile_free(j->ffwd);
    j->ffwd = NULL;
    ffwd_profile_free(j->ff_cache);
    j->ff_cache = NULL;
    r->ff_stretches += (size_t)j->ff_stretches;
    r->ff_stretch_iters += (uint64_t)j->ff_stretch_total;
    r->jobs_done++;
    r->run_end_s = fmax(r->run_end_s, now_s);
    replay__reschedule(r);
}

static void push_next_arrival(replay *r)
{
    if (r->next_start >= r->start_order->len)
        return;
    guint idx = g_array_index(r->start_order, guint, r->next_start);
    const job *j = g_ptr_array_index(r->jobs, idx);
    evq_push(r->q, j->spec.start_s, handler, r, ((uint64_t)EV_ARRIVAL << 32) | idx);
}

/* The contention risk (sim/contention.h) of job j starting now: its hosts
 * and the candidate network links of its flows. */
static bool risk_start(replay *r, job *j, GError **error)
{
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (j->alloc->n_hosts >= 2 && !contention_plan_links(r->t, j->plan, links, error))
        return false;
    contention_job_start(r->risk, j->uid, j->spec.gpus, j->alloc->hosts, j->alloc->n_hosts,
                         (const uint32_t *)(void *)links->data, links->len);
    return true;
}

/* I = n C / max_e (M_e / B_e); 0 for a job without traffic. */
static double intensity_of(const replay *r, const job *j)
{
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) bytes = g_array_new(FALSE, FALSE, sizeof(double));
    coll_plan_link_bytes(j->plan, links, bytes);
    double tmax = 0;
    for (guint i = 0; i < links->len; i++) {
        double cap = topo_link_get(r->t, g_array_index(links, uint32_t, i))->cap_Bps;
        tmax = fmax(tmax, g_array_index(bytes, double, i) / cap);
    }
    return tmax > 0 ? j->spec.gpus * j->spec.compute_s / tmax : 0.0;
}

bool replay__job_prepare(replay *r, job *j, GError **error)
{
    coll_options co = coll_options_default();
    co.buckets = j->spec.buckets;
    co.flows_model = r->cfg->sim.collective_model == CONFIG_COLL_FLOWS;
    co.channels = r->cfg->sim.channels;
    co.step_latency = r->cfg->sim.step_latency == CONFIG_STEP_LATENCY_PER_STEP;
    co.sm90 = strcmp(r->cfg->sim.gpu, "h100") == 0;
    co.uid = j->uid;
    co.seed = r->cfg->sim.seed;
    co.merge_private = !r->tl && !r->env.xfer_started; /* they see transfers one by one */
    if (j->spec.structure)
        return job_structured_prepare(j, r->t, &co, r->env.alpha_s, error);
    j->plan = coll_plan_new(r->t, j->alloc, j->spec.coll, j->spec.comm_bytes, &co, error);
    return j->plan && job_compute_isolated(j, r->t, r->env.alpha_s, error);
}

static void arrival(replay *r, guint idx, double now_s)
{
    r->next_start++;
    job *j = g_ptr_array_index(r->jobs, idx);
    GError *e = NULL;
    /* a time shard's resumed job holds the GPUs the run gave it */
    bool placed = replay__shard_placed(r, idx);
    const char *const *hosts = (const char *const *)j->spec.hosts;
    size_t nh = j->spec.hosts ? g_strv_length(j->spec.hosts) : 0;
    cluster_alloc *a = placed ? j->alloc
                              : cluster_place(r->cl, hosts, j->spec.host_gpus, nh, j->spec.gpus,
                                              r->cfg->sim.placement, r->rng_place, &e);
    if (!a) {
        if (r->cfg->sim.scale_hosts) {
            g_error_free(e);
            g_array_index(r->status, replay_job_status, idx) = REPLAY_JOB_NO_CAPACITY;
            r->jobs_skipped_capacity++;
            r->jobs_done++;
            replay__shard_no_room(r, idx, now_s);
            push_next_arrival(r);
            return;
        }
        g_prefix_error(&e, "job %s: ", j->spec.id);
        fail(r, e);
        return;
    }
    j->alloc = a;
    j->placed_by_policy = a->by_policy;
    if (!placed)
        j->uid = r->next_uid++;
    if (!replay__job_prepare(r, j, &e)) {
        g_prefix_error(&e, "job %s: ", j->spec.id);
        fail(r, e);
        return;
    }
    if (!risk_start(r, j, &e)) {
        fail(r, e);
        return;
    }
    j->intensity = intensity_of(r, j);
    if (!replay__job_links_dominate(r, j, &e)) {
        fail(r, e);
        return;
    }
    if (r->cfg->sim.fast_forward &&
        job_ffwd_eligible(j, r->t, r->env.ideal, r->ops->on_comm != NULL,
                          r->ops->class_levels)) {
        if (!job_ffwd_prepare(j, r->t, r->env.alpha_s, r->env.ideal, &e)) {
            fail(r, e);
            return;
        }
        r->jobs_ffwd++;
        if (r->tl && r->span == SPAN_OPEN)
            job_ffwd_park(j); /* it takes the pattern up after the span */
    }
    if (r->cfg->sim.mode == CONFIG_MODE_WORK) {
        double n = floor((j->spec.end_s - j->spec.start_s) / j->isolated_iter_s);
        j->target_iters = n < 1 ? 1 : (int64_t)n;
    }
    metrics_alloc_change(r->m, now_s, j->spec.gpus, 1);
    g_ptr_array_add(r->running, j);
    if (r->tl)
        timeline_job_start(r->tl, j);
    r->jobs_ran++;
    if (a->by_policy)
        r->jobs_by_policy++;
    replay__reschedule(r);
    if (r->shard && !replay__shard_align(r, j, idx, now_s, &e)) {
        fail(r, e);
        return;
    }
    job_begin(j, &r->env, now_s);
    if (r->tl && r->span == SPAN_BEFORE)
        job_ffwd_leave_before(j, r->span_open_s);
    if (r->cfg->sim.mode == CONFIG_MODE_WINDOW)
        evq_push(r->q, j->spec.end_s, handler, r, ((uint64_t)EV_JOB_END << 32) | idx);
    push_next_arrival(r);
}

static double tick_time(const replay *r, double now_s)
{
    return now_s + r->cfg->sim.interval_s;
}

/* Events after this are not run (work mode: 100 windows at most). */
static double run_cap_s(const replay *r)
{
    bool work = r->cfg->sim.mode == CONFIG_MODE_WORK;
    return work ? r->sim_start_s + 100.0 * (r->sim_end_s - r->sim_start_s) : r->sim_end_s;
}

/* The timeline's span opens now: the fast path goes off (nothing runs
 * fast-forwarded now: see span_open_at). */
static void span_open(replay *r, double now_s)
{
    r->span = SPAN_OPEN;
    steady_set_fast_path(r->steady, false);
    timeline_span_open(r->tl, now_s);
}

/* At a tick: the span opens, or closes once nothing that started in it
 * still runs (the fast path comes back; jobs fast-forwarded alone take
 * their pattern up at their next iteration end). */
static void span_tick(replay *r, double now_s)
{
    if (r->span == SPAN_BEFORE && now_s >= r->span_open_s) {
        span_open(r, now_s);
    } else if (r->span == SPAN_OPEN && timeline_span_done(r->tl, now_s)) {
        r->span = SPAN_AFTER;
        steady_set_fast_path(r->steady, true);
        for (guint i = 0; i < r->running->len; i++)
            job_ffwd_resume(g_ptr_array_index(r->running, i));
    }
}

/* The last tick at or before the span's start (the ticks' own sums), or
 * the window's start. */
static double span_open_at(const replay *r, double start_s)
{
    if (start_s > run_cap_s(r))
        return INFINITY; /* never */
    double t = r->sim_start_s;
    for (double next = tick_time(r, t); next <= start_s; next = tick_time(r, t))
        t = next;
    return t;
}

static void handler(void *ctx, uint64_t arg, double now_s)
{
    replay *r = ctx;
    guint idx = (guint)(arg & 0xffffffffu);
    switch ((int)(arg >> 32)) {
    case EV_ARRIVAL:
        arrival(r, idx, now_s);
        break;
    case EV_JOB_END:
        replay__job_end(r, g_ptr_array_index(r->jobs, idx), now_s);
        break;
    case EV_TICK: {
        metrics_row row;
        metrics_tick(r->m, now_s, &row);
        if (r->tl) {
            timeline_tick(r->tl, now_s);
            span_tick(r, now_s);
        }
        GError *e = NULL;
        if (!replay__write_tick(r, &row, &e))
            fail(r, e);
        r->next_tick_s = tick_time(r, now_s);
        evq_push(r->q, r->next_tick_s, handler, r, (uint64_t)EV_TICK << 32);
        break;
    }
    case EV_SHARD_MARK:
        replay__shard_mark(r, now_s);
        break;
    default:
        g_assert_not_reached();
    }
}

/* The wing's view of the replay (steady_env). */
static bool sched_ignores(void *user, size_t slot)
{
    replay *r = user;
    return r->ops->comm_hints.ignores(r->sched, &r->ctx, slot);
}

static void sched_state(void *user, size_t slot, double now_s, GArray *out)
{
    replay *r = user;
    r->ops->comm_hints.state(r->sched, &r->ctx, slot, now_s, out);
}

static void sched_delay(void *user, size_t slot, double dt_s)
{
    replay *r = user;
    r->ops->comm_hints.delay(r->sched, &r->ctx, slot, dt_s);
}

static double next_arrival_s(void *user)
{
    const replay *r = user;
    /* a time shard's measured start is a change too: no jump crosses it;
     * so is a timeline's span opening */
    double mark = replay__shard_mark_s(r);
    if (r->tl && r->span == SPAN_BEFORE)
        mark = fmin(mark, r->span_open_s);
    if (r->next_start >= r->start_order->len)
        return mark;
    guint idx = g_array_index(r->start_order, guint, r->next_start);
    const job *next = g_ptr_array_index(r->jobs, idx);
    return fmin(next->spec.start_s, mark);
}

static double tick_at_s(void *user)
{
    return ((const replay *)user)->next_tick_s;
}

/* The steady-state wing, fed by r. */
static void steady_start(replay *r)
{
    steady_env e = {
        .t = r->t,
        .n = r->n,
        .q = r->q,
        .m = r->m,
        .running = r->running,
        .levels = r->levels,
        .fast_forward = r->cfg->sim.fast_forward,
        .window_mode = r->cfg->sim.mode == CONFIG_MODE_WINDOW,
        .ideal = r->env.ideal,
        .approx = r->cfg->sim.steady == CONFIG_STEADY_APPROX,
        .end_s = r->sim_end_s,
        .hook = r->ops->on_comm != NULL,
        .hints = r->ops->comm_hints,
        .user = r,
        .ignores = r->ops->comm_hints.ignores ? sched_ignores : NULL,
        .hook_state = r->ops->comm_hints.state ? sched_state : NULL,
        .hook_delay = r->ops->comm_hints.delay ? sched_delay : NULL,
        .next_arrival_s = next_arrival_s,
        .next_tick_s = tick_at_s,
    };
    steady_free(r->steady);
    r->steady = steady_new(&e);
}

static int64_t peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return (int64_t)ru.ru_maxrss * 1024;
}

bool replay_run(replay *r, output_dir *out, replay_progress_fn progress, void *user,
                GError **error)
{
    g_return_val_if_fail(r && !r->ran, false);
    r->ran = true;
    gint64 t0 = g_get_monotonic_time();
    if (out && !replay__open_streams(r, out, error))
        return false;
    /* the queue starts at 0; the window may start later (or earlier: shift) */
    r->m = metrics_new(r->t, r->n, cluster_gpu_count(r->cl), r->sim_start_s);
    steady_start(r);
    if (r->tl) {
        r->span = SPAN_BEFORE;
        r->span_open_s = span_open_at(r, timeline_span_start_s(r->tl));
        if (r->span_open_s <= r->sim_start_s)
            span_open(r, r->sim_start_s);
    }
    r->run_end_s = r->sim_start_s;
    /* events before 0 cannot be pushed: the queue's clock starts at 0, so
     * a window starting before 0 is handled by the evq only if >= 0 */
    if (r->sim_start_s < 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "--start: the replay window must start at t >= 0, got %g", r->sim_start_s);
        return false;
    }
    evq_run_until(r->q, r->sim_start_s);
    /* first: it fires before any other event at its time */
    if (r->shard)
        evq_push(r->q, replay__shard_mark_s(r), handler, r, (uint64_t)EV_SHARD_MARK << 32);
    push_next_arrival(r);
    r->next_tick_s = tick_time(r, r->sim_start_s);
    evq_push(r->q, r->next_tick_s, handler, r, (uint64_t)EV_TICK << 32);
    bool work = r->cfg->sim.mode == CONFIG_MODE_WORK;
    /* work mode runs until every job is done, but never past 100 windows */
    double cap = run_cap_s(r);
    uint64_t count = 0;
    size_t total_jobs = r->jobs->len;
    while (evq_size(r->q) > 0) {
        count++;
        if (evq_next_time(r->q) > cap)
            break;
        if (work && r->jobs_done >= total_jobs)
            break;
        evq_step(r->q);
        if (r->deferred_error) {
            g_propagate_error(error, g_steal_pointer(&r->deferred_error));
            return false;
        }
        if (r->watch_fn && evq_now(r->q) >= r->watch_next_s) {
            replay_watch w = {.now_s = evq_now(r->q), .end_s = r->sim_end_s};
            metrics_peek(r->m, w.now_s, &w.busy_gpu_s, &w.alloc_gpu_s, &w.alloc_gpus);
            while (r->watch_next_s <= w.now_s)
                r->watch_next_s += r->watch_every_s;
            if (!r->watch_fn(r->watch_user, &w))
                r->stopped = true;
        }
        if ((count & 63) == 0 && r->stop_fn && r->stop_fn(r->stop_user))
            r->stopped = true;
        if (r->stopped) {
            r->wall_s = (g_get_monotonic_time() - t0) / 1e6;
            return true;
        }
        /* every 256 events (the callback throttles by wall time): with
         * fast-forwarded stretches a run can have few events */
        if (progress && (count & 0xff) == 0) {
            replay_progress p = {
                .now_s = evq_now(r->q),
                .start_s = r->sim_start_s,
                .end_s = r->sim_end_s,
                .jobs_done = r->jobs_done,
                .jobs_total = total_jobs,
                .events = evq_fired_count(r->q),
                .wall_s = (g_get_monotonic_time() - t0) / 1e6,
            };
            progress(user, &p);
        }
    }
    double end = work ? fmax(r->run_end_s, evq_now(r->q)) : r->sim_end_s;
    if (work && r->jobs_done < total_jobs)
        end = cap;
    if (!work && evq_now(r->q) < end)
        evq_run_until(r->q, end);
    /* jobs still running at the end (work mode past the cap) stop here */
    while (r->running->len > 0)
        replay__job_end(r, g_ptr_array_index(r->running, 0), end);
    r->run_end_s = end;
    metrics_row row;
    metrics_tick(r->m, end, &row);
    if (r->tl) {
        timeline_tick(r->tl, end);
        timeline_finish(r->tl, end);
    }
    if (row.dt_s > 0 && !replay__write_tick(r, &row, error))
        return false;
    if (r->deferred_error) {
        g_propagate_error(error, g_steal_pointer(&r->deferred_error));
        return false;
    }
    r->wall_s = (g_get_monotonic_time() - t0) / 1e6;
    if (r->shard)
        replay__shard_finish(r);
    if (out && !replay__write_final(r, out, error))
        return false;
    return true;
}

bool replay_stopped(const replay *r) { return r->stopped; }

size_t replay_job_count(const replay *r) { return r->jobs->len; }

void replay_job_get(const replay *r, size_t i, replay_job_result *o)
{
    const job *j = g_ptr_array_index(r->jobs, i);
    memset(o, 0, sizeof *o);
    o->id = j->spec.id;
    o->ran = g_array_index(r->status, replay_job_status, i) == REPLAY_JOB_OK && j->alloc;
    o->gpus = j->spec.gpus;
    o->hosts = j->alloc ? j->alloc->n_hosts : 0;
    o->iterations = j->iterations;
    o->busy_gpu_s = j->busy_gpu_s;
    o->isolated_iter_s = o->ran ? j->isolated_iter_s : NAN;
    o->mean_iter_s = j->iterations > 0 ? j->iter_time_sum_s / j->iterations : NAN;
    o->slowdown = j->iterations > 0 && j->isolated_iter_s > 0 ? o->mean_iter_s / j->isolated_iter_s
                                                              : NAN;
    o->completion_s = NAN;
    if (r->cfg->sim.mode == CONFIG_MODE_WORK && o->ran && j->target_iters > 0 &&
        j->iterations >= j->target_iters)
        o->completion_s = j->run_end_s - j->run_start_s;
    o->gpu_intensity = o->ran ? j->intensity : NAN;
    o->priority = j->priority;
    o->shift_s = j->total_shift_s;
    o->structure = j->spec.structure;
    if (r->shard)
        replay__shard_job_result(r, (guint)i, o);
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void replay_slowdowns_summarize(GArray *slowdowns, double *mean, double *p99)
{
    *mean = *p99 = NAN;
    if (slowdowns->len == 0)
        return;
    g_array_sort(slowdowns, dbl_cmp);
    double sum = 0;
    for (guint i = 0; i < slowdowns->len; i++)
        sum += g_array_index(slowdowns, double, i);
    *mean = sum / slowdowns->len;
    /* nearest rank: the ceil(0.99 n)-th smallest */
    size_t k = (size_t)ceil(0.99 * slowdowns->len);
    *p99 = g_array_index(slowdowns, double, k > 0 ? k - 1 : 0);
}

void replay_get_summary(const replay *r, replay_summary *s)
{
    memset(s, 0, sizeof *s);
    s->scheduler = r->ops->name;
    s->sim_start_s = r->sim_start_s;
    s->sim_end_s = r->run_end_s;
    s->jobs = r->jobs_ran;
    s->jobs_skipped = r->jobs_skipped_window + r->jobs_skipped_capacity;
    s->jobs_by_policy = r->jobs_by_policy;
    s->gpus_total = cluster_gpu_count(r->cl);
    double busy = r->m ? metrics_busy_gpu_s(r->m) : 0, alloc = r->m ? metrics_alloc_gpu_s(r->m) : 0;
    double span = r->run_end_s - r->sim_start_s;
    s->busy_gpu_s = busy;
    s->gpu_util_cluster_frac = span > 0 && s->gpus_total ? busy / (s->gpus_total * span) : NAN;
    s->gpu_util_allocated_frac = alloc > 0 ? busy / alloc : NAN;
    steady_counters c = {0};
    if (r->steady)
        steady_get_counters(r->steady, &c);
    s->approx_util_bound =
        span > 0 && s->gpus_total ? c.approx_busy_bound / (s->gpus_total * span) : 0;
    g_autoptr(GArray) sl = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint i = 0; i < r->jobs->len; i++) {
        replay_job_result jr;
        replay_job_get(r, i, &jr);
        s->iterations += jr.iterations;
        if (!isnan(jr.slowdown))
            g_array_append_val(sl, jr.slowdown);
    }
    replay_slowdowns_summarize(sl, &s->mean_slowdown, &s->p99_slowdown);
    s->wall_s = r->wall_s;
    s->events = r->q ? evq_fired_count(r->q) : 0;
    s->jobs_fast_forwarded = r->jobs_ffwd;
    s->ffwd_stretches = r->ff_stretches;
    s->ffwd_stretch_iterations = r->ff_stretch_iters;
    s->group_repeats = c.group_repeats;
    s->group_fallbacks = c.group_fallbacks;
    s->group_skips = c.group_skips;
    s->group_skip_iterations = c.group_skip_iters;
    s->group_drift_skips = c.group_drift_skips;
    s->approx_jumps = c.approx_jumps;
    s->approx_iterations = c.approx_iters;
    s->approx_iteration_bound = c.approx_iter_bound;
    s->approx_busy_gpu_s_bound = c.approx_busy_bound;
    s->approx_change_windows = c.approx_change_windows;
    s->approx_change_windows_kept = c.approx_change_kept;
    s->approx_carried_jumps = c.approx_carried;
    s->approx_wander_jumps = c.approx_wander;
    s->peak_rss_bytes = peak_rss_bytes();
    if (r->shard)
        replay__shard_summary(r, s);
}
