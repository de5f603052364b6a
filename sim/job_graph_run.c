/* job_graph_run.c - running a structured job's iteration graph on a
 * network (job_graph.h), and its iteration alone.  Not here: building the
 * graph (job_graph.c), the job around it (job.c).
 *
 * A task starts when its last predecessor ends: a compute task keeps its
 * GPUs busy for dur_s (one event), a communication task runs its
 * operation's steps one after the other, each step's transfers started
 * together and the step over when the last one completes.  Completions
 * come back as events at the same instant (never from inside the net's
 * callback), so the successors of tasks ending together start in the
 * order of those events.
 */
#include "job_graph.h"

#include <math.h>

#include "base/ccs.h"

enum { EV_COMPUTE_DONE = 1, EV_STEP_DONE = 2, EV_IDEAL_DONE = 3 };

#define GEN_MASK 0xffffffu /* generation bits in an event's argument */

/* One transfer of a step as the net is given it: its links (the plan's
 * net link set, or in a net of its own their ids there) at
 * launch_links[first ..] with their multiplicities, its bytes and its
 * startup. */
typedef struct launch {
    uint32_t first, n_links;
    double bytes, startup_s;
} launch;

struct job_graph_run {
    const job_graph *g;
    const coll_plan *plan;
    job_graph_net nt;
    job_graph_hooks h;
    uint32_t gen;            /* events of another generation are stale */
    uint32_t *pred_left;     /* per task: predecessors not yet done */
    uint32_t *step;          /* per task: the running step of a communication task */
    uint32_t *n_steps;       /* per task: its operation's steps (0 for a compute task) */
    uint32_t *xfers_left;    /* per task: its step's transfers still moving */
    double *started_s;       /* per task: when it started (recording) */
    double *record_s;        /* per task: communication durations, or NULL */
    const double *ideal_s;   /* per task: communication durations to take instead, or NULL */
    size_t tasks_left;       /* in the running iteration */
    int reductions_started, reductions_left;
    /* The launch table (launch_build): every step's transfers read from
     * the plan once per links version (launch_version, the plan's + 1; 0:
     * not built), so that a step start reads one run of records, not the
     * plan's operation, step and transfer records and their link caches.
     * Step st of communication task i has the launches step_first[k] ..
     * step_first[k + 1] - 1, k = task_step0[i] + st. */
    uint64_t launch_version;
    uint32_t *task_step0;    /* per task */
    GArray *step_first;      /* uint32, one past the last step too */
    GArray *launches;        /* launch */
    GArray *launch_links, *launch_mult; /* uint32 */
};

job_graph_run *job_graph_run_new(const job_graph *g, const coll_plan *plan,
                                 const job_graph_net *nt, const job_graph_hooks *h)
{
    job_graph_run *r = g_new0(job_graph_run, 1);
    size_t n = job_graph_task_count(g);
    r->g = g;
    r->plan = plan;
    r->nt = *nt;
    r->h = *h;
    r->pred_left = g_new0(uint32_t, n ? n : 1);
    r->step = g_new0(uint32_t, n ? n : 1);
    r->n_steps = g_new0(uint32_t, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        const job_graph_task *t = job_graph_task_get(g, i);
        if (t->kind == JOB_GRAPH_COMM)
            r->n_steps[i] = (uint32_t)coll_plan_op_step_count(plan, (size_t)t->op);
    }
    r->xfers_left = g_new0(uint32_t, n ? n : 1);
    r->started_s = g_new0(double, n ? n : 1);
    r->task_step0 = g_new0(uint32_t, n ? n : 1);
    /* (reserved room: their data is never NULL, so that an offset into an
     * empty table is one into an allocation) */
    r->step_first = g_array_sized_new(FALSE, FALSE, sizeof(uint32_t), 16);
    r->launches = g_array_sized_new(FALSE, FALSE, sizeof(launch), 16);
    r->launch_links = g_array_sized_new(FALSE, FALSE, sizeof(uint32_t), 64);
    r->launch_mult = g_array_sized_new(FALSE, FALSE, sizeof(uint32_t), 64);
    return r;
}

void job_graph_run_free(job_graph_run *r)
{
    if (!r)
        return;
    g_free(r->pred_left);
    g_free(r->step);
    g_free(r->n_steps);
    g_free(r->xfers_left);
    g_free(r->started_s);
    g_free(r->task_step0);
    g_array_free(r->step_first, TRUE);
    g_array_free(r->launches, TRUE);
    g_array_free(r->launch_links, TRUE);
    g_array_free(r->launch_mult, TRUE);
    g_free(r);
}

void job_graph_run_set_ideal(job_graph_run *r, const double *dur_s) { r->ideal_s = dur_s; }

static void handler(void *ctx, uint64_t arg, double now_s);

void job_graph_run_stop(job_graph_run *r)
{
    /* its pending events go with it: the run may be freed before they
     * would fire */
    g_autoptr(GArray) evs = g_array_new(FALSE, FALSE, sizeof(evq_entry));
    evq_collect(r->nt.q, handler, r, evs);
    for (guint i = 0; i < evs->len; i++)
        evq_cancel(r->nt.q, g_array_index(evs, evq_entry, i).id);
    r->gen++;
    r->tasks_left = 0;
}

static void push(job_graph_run *r, double t, uint32_t task, int kind)
{
    uint64_t arg = ((uint64_t)(r->gen & GEN_MASK) << 40) | ((uint64_t)task << 8) | (uint64_t)kind;
    evq_push(r->nt.q, t, handler, r, arg);
}

int job_graph_run_class_level(const job_graph_run *r, job_graph_class cls)
{
    if (r->nt.class_level && r->nt.class_level[cls] >= 0)
        return r->nt.class_level[cls];
    return r->nt.level ? *r->nt.level : 0;
}

int job_graph_run_xfer_class(const job_graph_run *r, net_transfer_id id)
{
    uint64_t task = net_transfer_arg(r->nt.n, id); /* its task + 1 */
    return task ? (int)job_graph_task_get(r->g, (size_t)task - 1)->cls : -1;
}

void job_graph_run_xfer_done(job_graph_run *r, net_transfer_id id, double now_s)
{
    uint32_t task = (uint32_t)net_transfer_arg(r->nt.n, id);
    g_return_if_fail(task > 0);
    task--;
    if (r->h.xfer_done)
        r->h.xfer_done(r->h.user, id, now_s);
    GArray *act = r->nt.active;
    for (guint i = act->len; i-- > 0;)
        if (g_array_index(act, net_transfer_id, i) == id) {
            g_array_remove_index_fast(act, i);
            break;
        }
    if (act->len == 0 && r->h.net_idle)
        r->h.net_idle(r->h.user);
    if (--r->xfers_left[task] == 0)
        push(r, now_s, task, EV_STEP_DONE);
}

static void on_xfer_done(void *user, net_transfer_id id, double now_s)
{
    job_graph_run_xfer_done(user, id, now_s);
}

/* Append transfer x of a step to the launch table. */
static void launch_add(job_graph_run *r, const coll_xfer *x)
{
    const uint32_t *lv, *mv;
    size_t nl = r->nt.link_map ? coll_xfer_link_set(r->plan, x, &lv, &mv)
                               : coll_xfer_net_link_set(r->plan, x, &lv, &mv);
    launch l = {r->launch_links->len, (uint32_t)nl, x->bytes,
                coll_xfer_startup_s(r->plan, x, r->nt.alpha_s)};
    g_array_append_val(r->launches, l);
    g_array_append_vals(r->launch_mult, mv, (guint)nl);
    if (!r->nt.link_map) {
        g_array_append_vals(r->launch_links, lv, (guint)nl);
        return;
    }
    for (size_t i = 0; i < nl; i++) /* a net of its own links: their ids there */
        g_array_append_val(r->launch_links, r->nt.link_map[lv[i]]);
}

/* (Re)build the launch table from the plan's current link sets. */
static void launch_build(job_graph_run *r)
{
    g_array_set_size(r->step_first, 0);
    g_array_set_size(r->launches, 0);
    g_array_set_size(r->launch_links, 0);
    g_array_set_size(r->launch_mult, 0);
    for (size_t i = 0; i < job_graph_task_count(r->g); i++) {
        const job_graph_task *t = job_graph_task_get(r->g, i);
        r->task_step0[i] = r->step_first->len;
        for (uint32_t st = 0; st < r->n_steps[i]; st++) {
            g_array_append_val(r->step_first, r->launches->len);
            const coll_xfer *const *xs;
            size_t nx = coll_plan_op_step_xfers(r->plan, (size_t)t->op, st, &xs);
            for (size_t k = 0; k < nx; k++)
                launch_add(r, xs[k]);
        }
    }
    g_array_append_val(r->step_first, r->launches->len);
    r->launch_version = coll_plan_links_version(r->plan) + 1;
}

/* Start step r->step[task] of a communication task's operation. */
static void start_step(job_graph_run *r, uint32_t task, double now_s)
{
    const job_graph_task *t = job_graph_task_get(r->g, task);
    size_t st = r->step[task];
    if (r->launch_version != coll_plan_links_version(r->plan) + 1)
        launch_build(r);
    size_t a = 0, nx = 0;
    if (st < r->n_steps[task]) {
        const uint32_t *first =
            (const uint32_t *)(void *)r->step_first->data + r->task_step0[task] + st;
        a = first[0];
        nx = first[1] - a;
    }
    const launch *ls = (const launch *)(void *)r->launches->data + a;
    const uint32_t *links = (const uint32_t *)(void *)r->launch_links->data;
    const uint32_t *mult = (const uint32_t *)(void *)r->launch_mult->data;
    r->xfers_left[task] = (uint32_t)nx;
    /* what the step's transfers share; each fills in its own below */
    net_transfer_spec sp = {
        .prio = job_graph_run_class_level(r, t->cls),
        .weight = 1.0,
        .tag = r->nt.tag ? *r->nt.tag : 0.0,
        .on_done = r->nt.xfer_done ? r->nt.xfer_done : on_xfer_done,
        .user = r->nt.xfer_done ? r->nt.xfer_user : r,
        .arg = task + 1,
    };
    for (size_t i = 0; i < nx; i++) {
        sp.size_bytes = ls[i].bytes;
        sp.links = links + ls[i].first;
        sp.mult = mult + ls[i].first;
        sp.n_links = ls[i].n_links;
        sp.startup_s = ls[i].startup_s;
        net_transfer_id id;
        GError *e = NULL;
        if (!net_transfer_start(r->nt.n, &sp, &id, &e)) /* links and sizes come from the
                                                          * topology: an engine invariant */
            g_error("structured job, task %u: %s", task, e->message);
        g_array_append_val(r->nt.active, id);
        if (r->h.xfer_started)
            r->h.xfer_started(r->h.user, task, st, i, id, now_s);
    }
    if (nx == 0)
        push(r, now_s, task, EV_STEP_DONE);
}

static void start_task(job_graph_run *r, uint32_t task, double now_s)
{
    const job_graph_task *t = job_graph_task_get(r->g, task);
    r->started_s[task] = now_s;
    if (t->kind == JOB_GRAPH_COMPUTE) {
        if (t->gpus > 0 && r->h.busy)
            r->h.busy(r->h.user, t->gpus, now_s);
        push(r, now_s + t->dur_s, task, EV_COMPUTE_DONE);
        return;
    }
    if (t->reduce && r->reductions_started++ == 0 && r->h.phase) {
        uint32_t gen = r->gen;
        if (!r->h.phase(r->h.user, true, now_s) || gen != r->gen)
            return;
    }
    if (r->ideal_s) {
        push(r, now_s + r->ideal_s[task], task, EV_IDEAL_DONE);
        return;
    }
    r->step[task] = 0;
    start_step(r, task, now_s);
}

static void task_done(job_graph_run *r, uint32_t task, double now_s)
{
    const job_graph_task *t = job_graph_task_get(r->g, task);
    uint32_t gen = r->gen;
    if (t->kind == JOB_GRAPH_COMM && r->record_s)
        r->record_s[task] = now_s - r->started_s[task];
    if (t->reduce && --r->reductions_left == 0 && r->h.phase &&
        (!r->h.phase(r->h.user, false, now_s) || gen != r->gen))
        return;
    const uint32_t *succ = job_graph_succ(r->g, task);
    for (uint32_t k = 0; k < t->n_succ && gen == r->gen; k++)
        if (--r->pred_left[succ[k]] == 0)
            start_task(r, succ[k], now_s);
    if (gen == r->gen && --r->tasks_left == 0)
        r->h.done(r->h.user, now_s);
}

static void handler(void *ctx, uint64_t arg, double now_s)
{
    job_graph_run *r = ctx;
    if ((uint32_t)(arg >> 40) != (r->gen & GEN_MASK))
        return;
    uint32_t task = (uint32_t)(arg >> 8);
    switch ((int)(arg & 0xff)) {
    case EV_COMPUTE_DONE: {
        const job_graph_task *t = job_graph_task_get(r->g, task);
        uint32_t gen = r->gen;
        if (t->gpus > 0 && r->h.busy)
            r->h.busy(r->h.user, -t->gpus, now_s);
        if (gen == r->gen)
            task_done(r, task, now_s);
        break;
    }
    case EV_STEP_DONE:
        if (++r->step[task] < r->n_steps[task])
            start_step(r, task, now_s);
        else
            task_done(r, task, now_s);
        break;
    case EV_IDEAL_DONE:
        task_done(r, task, now_s);
        break;
    default:
        g_assert_not_reached();
    }
}

void job_graph_run_state_get(const job_graph_run *r, job_graph_run_state *out)
{
    out->tasks_left = r->tasks_left;
    out->reductions_started = r->reductions_started;
    out->reductions_left = r->reductions_left;
    out->pred_left = r->pred_left;
    out->step = r->step;
}

void job_graph_run_events(const job_graph_run *r, GArray *out)
{
    g_array_set_size(out, 0);
    evq_collect(r->nt.q, handler, r, out);
    guint keep = 0;
    for (guint i = 0; i < out->len; i++) {
        evq_entry e = g_array_index(out, evq_entry, i);
        if ((uint32_t)(e.arg >> 40) == (r->gen & GEN_MASK))
            g_array_index(out, evq_entry, keep++) = e;
    }
    g_array_set_size(out, keep);
}

void job_graph_run_event_info(uint64_t arg, int *kind, uint32_t *task)
{
    *kind = (int)(arg & 0xff);
    *task = (uint32_t)(arg >> 8);
}

void job_graph_run_start(job_graph_run *r, double now_s)
{
    g_return_if_fail(r->tasks_left == 0);
    size_t n = job_graph_task_count(r->g);
    r->tasks_left = n;
    r->reductions_started = 0;
    r->reductions_left = job_graph_reductions(r->g);
    for (size_t i = 0; i < n; i++)
        r->pred_left[i] = job_graph_task_get(r->g, i)->n_pred;
    uint32_t gen = r->gen;
    for (size_t i = 0; i < n && gen == r->gen; i++)
        if (job_graph_task_get(r->g, i)->n_pred == 0)
            start_task(r, (uint32_t)i, now_s);
    if (n == 0)
        r->h.done(r->h.user, now_s);
}

/* ---- alone ----------------------------------------------------------- */

/* The state of a run alone: its end, busy GPUs and their integral. */
typedef struct alone {
    double end_s;
    int busy_gpus;
    double busy_gpu_s, mark_s;
} alone;

static void alone_done(void *user, double now_s) { ((alone *)user)->end_s = now_s; }

static void alone_busy(void *user, int delta, double now_s)
{
    alone *a = user;
    a->busy_gpu_s += a->busy_gpus * (now_s - a->mark_s);
    a->busy_gpus += delta;
    a->mark_s = now_s;
}

/* A net holding every link of plan's transfers (map: topology link -> its
 * link there; tiers: the tier of each of its links). */
static bool alone_net(const coll_plan *plan, topo *t, net *n, uint32_t *map, GArray *tiers,
                      GError **error)
{
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) mult = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (size_t op = 0; op < coll_plan_op_count(plan); op++)
        for (size_t st = 0; st < coll_plan_op_step_count(plan, op); st++)
            for (size_t i = 0; i < coll_plan_op_xfer_count(plan, op, st); i++) {
                coll_xfer_links(plan, coll_plan_op_xfer(plan, op, st, i), links, mult);
                for (guint l = 0; l < links->len; l++) {
                    uint32_t e = g_array_index(links, uint32_t, l);
                    if (map[e] != UINT32_MAX)
                        continue;
                    const topo_link *L = topo_link_get(t, e);
                    if (!net_link_add(n, L->cap_Bps, L->latency_s, &map[e], error))
                        return false;
                    int tier = (int)L->tier;
                    g_array_append_val(tiers, tier);
                }
            }
    return true;
}

/* One breakpoint of tr at the queue's time. */
void job_graph_tier_bytes(net *n, const GArray *tiers, double *b)
{
    for (int k = 0; k < TOPO_TIER_COUNT; k++)
        b[k] = 0;
    for (guint l = 0; l < tiers->len; l++) {
        net_link_stats st;
        if (net_link_stats_get(n, (net_link_id)l, &st, NULL))
            b[g_array_index(tiers, int, l)] += st.carried_bytes;
    }
}

static void trace_point(job_graph_trace *tr, net *n, const GArray *tiers, const alone *a)
{
    double now = evq_now(net_evq(n));
    double b[TOPO_TIER_COUNT];
    job_graph_tier_bytes(n, tiers, b);
    double busy = a->busy_gpu_s + a->busy_gpus * (now - a->mark_s);
    g_array_append_val(tr->t_s, now);
    g_array_append_val(tr->busy, busy);
    g_array_append_vals(tr->bytes, b, TOPO_TIER_COUNT);
}

/* What an iteration alone runs with (job_graph_isolated's arguments). */
typedef struct alone_opts {
    const double *ideal_s;
    const int *level, *class_level;
    double *dur_s;
    job_graph_trace *tr;
} alone_opts;

static bool run_alone(const job_graph *g, const coll_plan *plan, topo *t, double alpha_s,
                      const alone_opts *ao, double *iter_s, GError **error)
{
    g_autoptr(evq) q = evq_new();
    net_options o = net_options_default();
    o.prio_levels = ao->class_level ? NET_MAX_PRIO_LEVELS : 1;
    g_autoptr(net) n = net_new(&o, q, error);
    if (!n)
        return false;
    size_t L = topo_link_count(t);
    g_autofree uint32_t *map = g_new(uint32_t, L ? L : 1);
    for (size_t e = 0; e < L; e++)
        map[e] = UINT32_MAX;
    g_autoptr(GArray) tiers = g_array_new(FALSE, FALSE, sizeof(int));
    if (!alone_net(plan, t, n, map, tiers, error))
        return false;
    g_autoptr(GArray) active = g_array_new(FALSE, FALSE, sizeof(net_transfer_id));
    alone a = {.end_s = NAN};
    job_graph_net nt = {.q = q, .n = n, .link_map = map, .alpha_s = alpha_s, .active = active,
                        .level = ao->level, .class_level = ao->class_level};
    job_graph_hooks h = {.user = &a, .done = alone_done, .busy = alone_busy};
    job_graph_run *r = job_graph_run_new(g, plan, &nt, &h);
    r->record_s = ao->dur_s;
    r->ideal_s = ao->ideal_s;
    job_graph_run_start(r, 0.0);
    if (ao->tr)
        trace_point(ao->tr, n, tiers, &a);
    if (!ao->tr)
        evq_run_until(q, INFINITY);
    while (ao->tr && evq_step(q))
        trace_point(ao->tr, n, tiers, &a);
    job_graph_run_free(r);
    if (isnan(a.end_s)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL,
                    "a structured iteration alone did not end (a cycle in its graph)");
        return false;
    }
    *iter_s = a.end_s;
    return true;
}

bool job_graph_isolated(const job_graph *g, const coll_plan *plan, topo *t, double alpha_s,
                        const double *ideal_s, double *iter_s, double *dur_s,
                        job_graph_trace *tr, GError **error)
{
    alone_opts ao = {.ideal_s = ideal_s, .dur_s = dur_s, .tr = tr};
    return run_alone(g, plan, t, alpha_s, &ao, iter_s, error);
}

bool job_graph_isolated_levels(const job_graph *g, const coll_plan *plan, topo *t,
                               double alpha_s, const int *level, const int *class_level,
                               double *iter_s, job_graph_trace *tr, GError **error)
{
    alone_opts ao = {.level = level, .class_level = class_level, .tr = tr};
    return run_alone(g, plan, t, alpha_s, &ao, iter_s, error);
}
