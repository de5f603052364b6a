/* steady.c - which running jobs run as alone, and until when one may run
 * a fast-forwarded stretch (docs/engine.md §5b).
 * Not here: the stretch itself (job_ffwd.c), the profile (ffwd.c), groups
 * that share links (steady_group.c).
 *
 * The rule.  A job that shares no link with any other running job runs
 * exactly as it would alone, and alone its iterations repeat with the
 * period T' of its current paths; so does a job whose shared links can
 * never saturate (the running jobs' bounds on each add up to less than
 * its capacity: the link constrains no allocation).  Whether that holds
 * can change only when the running set or a path changes: at a job's
 * arrival or end (the reschedule after it) or when a scheduler moves a
 * path.  In window mode every arrival and end time is known in advance
 * (the trace), so at an iteration boundary the job may skip the whole
 * iterations that end before the next of them; it is back on the event
 * path when that change happens, and the scheduler sees it as it would
 * have.  A job sharing a link that can saturate runs so too, up to the
 * earliest time one of its peers there may start a transfer.  Under a
 * scheduler with an on_comm hook that ignores jobs sharing nothing
 * (sched_ops.on_comm_ignores_isolated), a job that shares links runs so
 * only where the scheduler says its hook ignores the job
 * (sched_ops.on_comm_ignores), or, for a hook that sees a job's phases
 * only through communicating jobs sharing a link with it
 * (sched_ops.on_comm_local), while none of those communicates.  Work
 * mode does not: there a job's end is its last iteration, known to no
 * one in advance.
 */
#include <math.h>

#include "replay-private.h"

/* Into out (link_bound, each link once): for every link of j's plan the
 * most j can put on it, max over the plan's steps (a job runs one step at
 * a time) of the sum over the step's transfers on the link of m_e times
 * the transfer's solo rate min_e' C_e' / m_e' -- no allocation, whatever
 * the others do, gives a transfer more.  acc and peak: zeroed scratch of
 * one double per link, left zeroed. */
static void plan_bounds(const struct replay *r, const coll_plan *p, double *acc, double *peak,
                        GArray *out)
{
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) mult = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) step_links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_array_set_size(out, 0);
    for (size_t st = 0; st < coll_plan_step_count(p); st++) {
        g_array_set_size(step_links, 0);
        for (size_t i = 0; i < coll_plan_xfer_count(p, st); i++) {
            coll_xfer_links(p, coll_plan_xfer(p, st, i), links, mult);
            double solo = INFINITY;
            for (guint k = 0; k < links->len; k++)
                solo = fmin(solo, topo_link_get(r->t, g_array_index(links, uint32_t, k))->cap_Bps /
                                      g_array_index(mult, uint32_t, k));
            for (guint k = 0; k < links->len; k++) {
                uint32_t e = g_array_index(links, uint32_t, k);
                if (acc[e] == 0)
                    g_array_append_val(step_links, e);
                acc[e] += g_array_index(mult, uint32_t, k) * solo;
            }
        }
        for (guint k = 0; k < step_links->len; k++) {
            uint32_t e = g_array_index(step_links, uint32_t, k);
            if (peak[e] == 0) {
                link_bound b = {e, 0};
                g_array_append_val(out, b);
            }
            peak[e] = fmax(peak[e], acc[e]);
            acc[e] = 0;
        }
    }
    for (guint k = 0; k < out->len; k++) {
        link_bound *b = &g_array_index(out, link_bound, k);
        b->Bps = peak[b->link];
        peak[b->link] = 0;
    }
}

/* Can link e saturate?  Only if the running jobs' bounds on it add up to
 * its capacity (less a margin far above the solver's rel_eps). */
static bool link_tight(const struct replay *r, uint32_t e)
{
    return r->link_bound_sum[e] > topo_link_get(r->t, e)->cap_Bps * (1 - 1e-9);
}

static gint cmp_pair(gconstpointer a, gconstpointer b)
{
    const uint32_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

static void add_peer(job *j, job *peer)
{
    for (guint i = 0; i < j->tight_peers->len; i++)
        if (g_ptr_array_index(j->tight_peers, i) == peer)
            return;
    g_ptr_array_add(j->tight_peers, peer);
}

/* Each running job's peers (j->tight_peers): the running jobs with which
 * it shares a link that can saturate. */
static void find_peers(struct replay *r)
{
    guint n = r->running->len, total = r->steady_links->len;
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, 2 * sizeof(uint32_t)); /* link, slot */
    for (guint i = 0; i < n; i++) {
        job *j = g_ptr_array_index(r->running, i);
        if (!j->tight_peers)
            j->tight_peers = g_ptr_array_new();
        g_ptr_array_set_size(j->tight_peers, 0);
        guint a = g_array_index(r->steady_off, guint, i);
        guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : total;
        for (guint k = a; k < b && !j->isolated; k++)
            if (r->link_jobs[all[k]] > 1 && link_tight(r, all[k])) {
                uint32_t pr[2] = {all[k], i};
                g_array_append_val(pairs, pr);
            }
    }
    g_array_sort(pairs, cmp_pair);
    const uint32_t *pv = (const uint32_t *)(void *)pairs->data;
    for (guint x = 0; x < pairs->len;) {
        guint y = x;
        while (y < pairs->len && pv[2 * y] == pv[2 * x])
            y++;
        for (guint p = x; p < y; p++)
            for (guint q = x; q < y; q++)
                if (p != q)
                    add_peer(g_ptr_array_index(r->running, pv[2 * p + 1]),
                             g_ptr_array_index(r->running, pv[2 * q + 1]));
        x = y;
    }
}

/* Under a hook that sees a job's phases only through the jobs sharing a
 * link with it (sched_ops.on_comm_local): every (link, slot) of the links
 * that two or more running jobs use, sorted (sharers_quiet_until). */
static void find_sharers(struct replay *r)
{
    if (!r->share_pairs)
        r->share_pairs = g_array_new(FALSE, FALSE, 2 * sizeof(uint32_t));
    g_array_set_size(r->share_pairs, 0);
    if (!r->ops->on_comm_local)
        return;
    guint n = r->running->len, total = r->steady_links->len;
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    for (guint i = 0; i < n; i++) {
        guint a = g_array_index(r->steady_off, guint, i);
        guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : total;
        for (guint k = a; k < b; k++)
            if (r->link_jobs[all[k]] > 1) {
                uint32_t pr[2] = {all[k], i};
                g_array_append_val(r->share_pairs, pr);
            }
    }
    g_array_sort(r->share_pairs, cmp_pair);
}

void replay__steady_update(struct replay *r)
{
    r->steady_stale = false;
    size_t L = topo_link_count(r->t);
    if (!r->link_jobs) {
        r->link_jobs = g_new0(uint32_t, L ? L : 1);
        r->link_bound_sum = g_new0(double, L ? L : 1);
        r->bound_acc = g_new0(double, 2 * (L ? L : 1));
        r->steady_links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        r->steady_off = g_array_new(FALSE, FALSE, sizeof(guint));
    }
    for (guint k = 0; k < r->steady_links->len; k++) { /* clear only what was counted */
        uint32_t e = g_array_index(r->steady_links, uint32_t, k);
        r->link_jobs[e] = 0;
        r->link_bound_sum[e] = 0;
    }
    g_array_set_size(r->steady_links, 0);
    g_array_set_size(r->steady_off, 0);
    r->end_min1 = r->end_min2 = INFINITY;
    r->end_min1_job = NULL;
    for (guint i = 0; i < r->running->len; i++) {
        job *j = g_ptr_array_index(r->running, i);
        guint off = r->steady_links->len;
        g_array_append_val(r->steady_off, off);
        j->steady_slot = i;
        if (j->spec.end_s < r->end_min1) {
            r->end_min2 = r->end_min1;
            r->end_min1 = j->spec.end_s;
            r->end_min1_job = j;
        } else if (j->spec.end_s < r->end_min2) {
            r->end_min2 = j->spec.end_s;
        }
        if (!j->plan)
            continue;
        if (!j->link_bounds) { /* kept until its paths change */
            j->link_bounds = g_array_new(FALSE, FALSE, sizeof(link_bound));
            plan_bounds(r, j->plan, r->bound_acc, r->bound_acc + L, j->link_bounds);
        }
        for (guint k = 0; k < j->link_bounds->len; k++) {
            const link_bound *b = &g_array_index(j->link_bounds, link_bound, k);
            r->link_jobs[b->link]++;
            r->link_bound_sum[b->link] += b->Bps;
            g_array_append_val(r->steady_links, b->link);
        }
    }
    guint n = r->running->len, total = r->steady_links->len;
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    for (guint i = 0; i < n; i++) {
        job *j = g_ptr_array_index(r->running, i);
        guint a = g_array_index(r->steady_off, guint, i);
        guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : total;
        bool alone = true, shared = false;
        for (guint k = a; k < b && alone; k++) {
            shared |= r->link_jobs[all[k]] > 1;
            alone = r->link_jobs[all[k]] == 1 || !link_tight(r, all[k]);
        }
        j->isolated = alone;
        j->shares_links = shared;
    }
    find_peers(r);
    find_sharers(r);
    replay__groups_update(r);
}

/* Stretches are allowed in this run at all: jobs that run as alone
 * (isolated) under a scheduler whose on_comm hook ignores them; windows
 * between a job's peers' communication (below) only without a hook. */
static bool steady_allowed(const struct replay *r)
{
    return r->cfg->sim.fast_forward && r->cfg->sim.mode == CONFIG_MODE_WINDOW && !r->env.ideal &&
           (!r->ops->on_comm || r->ops->on_comm_ignores_isolated);
}

/* A job that shares a link that can saturate with its peers runs as alone
 * while none of them communicates: until the earliest time one of them
 * may start a transfer (job_next_comm_s), -INFINITY if one is now. */
static double peers_quiet_until(const job *j, double now_s)
{
    if (!j->tight_peers || j->tight_peers->len == 0)
        return -INFINITY;
    double u = INFINITY;
    for (guint i = 0; i < j->tight_peers->len && u > now_s; i++)
        u = fmin(u, job_next_comm_s(g_ptr_array_index(j->tight_peers, i), now_s));
    return u > now_s ? u : -INFINITY;
}

/* When no job sharing a link with j is in its communication phase (from
 * its first bucket's start to its last bucket's end) until the earliest
 * time one may start one (job_next_comm_s: the first bucket of its next
 * phase); -INFINITY if one is in it now or runs a stretch. */
static double sharers_quiet_until(const struct replay *r, const job *j, double now_s)
{
    const uint32_t *pv = (const uint32_t *)(void *)r->share_pairs->data;
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    guint np = r->share_pairs->len, n = r->steady_off->len, i = (guint)j->steady_slot;
    guint a = g_array_index(r->steady_off, guint, i);
    guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : r->steady_links->len;
    double u = INFINITY;
    for (guint k = a; k < b && u > now_s; k++) {
        uint32_t e = all[k];
        if (r->link_jobs[e] < 2)
            continue;
        guint lo = 0, hi = np; /* the first pair on e */
        while (lo < hi) {
            guint mid = lo + (hi - lo) / 2;
            if (pv[2 * mid] < e)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (guint p = lo; p < np && pv[2 * p] == e && u > now_s; p++) {
            const job *o = g_ptr_array_index(r->running, pv[2 * p + 1]);
            if (o == j)
                continue;
            bool in_phase = o->buckets_started > 0 && o->buckets_done < o->spec.buckets;
            u = fmin(u, in_phase ? now_s : job_next_comm_s(o, now_s));
        }
    }
    return u > now_s ? u : -INFINITY;
}

double replay__next_arrival_s(const struct replay *r)
{
    if (r->next_start >= r->start_order->len)
        return INFINITY;
    guint idx = g_array_index(r->start_order, guint, r->next_start);
    const job *next = g_ptr_array_index(r->jobs, idx);
    return next->spec.start_s;
}

double replay__steady_until(void *user, const job *j, double origin_s)
{
    struct replay *r = user;
    (void)origin_s;
    if (!steady_allowed(r))
        return -INFINITY;
    if (r->steady_stale)
        replay__steady_update(r);
    if (j->steady_slot >= r->steady_off->len || g_ptr_array_index(r->running, j->steady_slot) != j)
        return -INFINITY;
    /* a hook that ignores jobs sharing no link may still see one that
     * shares links: the scheduler says whether it ignores j (cassini gives
     * a job no target unless its jobs can overflow a shared link) or sees
     * j's phases only while a job sharing a link with j communicates
     * (sincronia-online: j is then no contending member) */
    double now = evq_now(r->q);
    double until = INFINITY;
    if (r->ops->on_comm && j->shares_links && r->ops->on_comm_levels_only && j->levels_free) {
        /* no level in its component changes a rate; its own is what
         * jobs.csv reports at its end, so the stretch stops before it */
        until = fmin(j->spec.end_s, r->sim_end_s);
    } else if (r->ops->on_comm && j->shares_links &&
               !(r->ops->on_comm_ignores &&
                 r->ops->on_comm_ignores(r->sched, &r->ctx, j->steady_slot))) {
        if (!r->ops->on_comm_local)
            return -INFINITY;
        until = sharers_quiet_until(r, j, now);
    }
    /* under --steady approx a job sharing a link that can saturate runs
     * with its group, which jumps whole (§5d): a stretch of its own would
     * keep the group from it */
    if (!j->isolated && r->cfg->sim.steady == CONFIG_STEADY_APPROX)
        return -INFINITY;
    if (!j->isolated)
        until = fmin(until, peers_quiet_until(j, now));
    if (!(until > now))
        return -INFINITY;
    /* a transfer started before the last path change may still use a link
     * the job now has alone (it keeps its links until its step ends), or
     * one it shares, where the bounds count only the current plans */
    guint n = r->steady_off->len, i = (guint)j->steady_slot;
    guint a = g_array_index(r->steady_off, guint, i);
    guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : r->steady_links->len;
    for (guint k = a; k < b; k++) {
        uint32_t e = g_array_index(r->steady_links, uint32_t, k);
        if (r->link_jobs[e] == 1 && net_link_in_use(r->n, e))
            return -INFINITY;
    }
    if (j->shares_links)
        for (guint k = 0; k < r->running->len; k++)
            if (((const job *)g_ptr_array_index(r->running, k))->old_path_xfers)
                return -INFINITY;
    until = fmin(until, j == r->end_min1_job ? r->end_min2 : r->end_min1);
    return fmin(until, replay__next_arrival_s(r));
}
