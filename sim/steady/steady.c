/* steady.c - the wing's face (steady.h): its life, its updates, and until
 * when a job may run a fast-forwarded stretch (docs/engine.md §5b).
 * Not here: the link tables (steady_links.c), the groups
 * (steady_group.c), the levels (steady_levels.c), the stretch itself
 * (sim/job_ffwd.c).
 *
 * The rule.  A job that shares no link with any other running job runs
 * exactly as it would alone, and alone its iterations repeat with the
 * period T' of its current paths; so does a job whose shared links can
 * never be overfilled (the running jobs' bounds on each add up to at most
 * its capacity: the link changes no allocation).  Whether that holds
 * can change only when the running set or a path changes: at a job's
 * arrival or end (the reschedule after it) or when a scheduler moves a
 * path.  In window mode every arrival and end time is known in advance
 * (the trace), so at an iteration boundary the job may skip the whole
 * iterations that end before the next of them; it is back on the event
 * path when that change happens, and the scheduler sees it as it would
 * have.  A job sharing a link that can saturate runs so too, up to the
 * earliest time one of its peers there may start a transfer.  Under a
 * scheduler with an on_comm hook that ignores jobs sharing nothing
 * (hints.ignores_isolated), a job that shares links runs so only where
 * the scheduler says its hook ignores the job (hints.ignores), or, for a
 * hook that sees a job's phases only through communicating jobs sharing a
 * link with it (hints.local), while none of those communicates.  Work
 * mode does not: there a job's end is its last iteration, known to no
 * one in advance.
 */
#include "steady.h"

#include <math.h>

#include "steady-private.h"

static void rec_free(gpointer p)
{
    steady_job *r = p;
    if (!r)
        return;
    if (r->link_bounds)
        g_array_free(r->link_bounds, TRUE);
    if (r->tight_peers)
        g_ptr_array_free(r->tight_peers, TRUE);
    g_free(r);
}

steady *steady_new(const steady_env *env)
{
    g_return_val_if_fail(env && env->t && env->n && env->q && env->m && env->running &&
                             env->next_arrival_s && env->next_tick_s &&
                             !env->hook_state == !env->hook_delay,
                         NULL);
    steady *s = g_new0(steady, 1);
    s->env = *env;
    s->run_fast_forward = env->fast_forward;
    s->rec = g_ptr_array_new_with_free_func(rec_free);
    return s;
}

void steady_free(steady *s)
{
    if (!s)
        return;
    steady__groups_free(s);
    g_ptr_array_free(s->rec, TRUE);
    g_free(s->link_jobs);
    g_free(s->link_bound_sum);
    g_free(s->bound_acc);
    g_free(s->bound_cnt);
    g_free(s->level_first);
    if (s->links)
        g_array_free(s->links, TRUE);
    if (s->off)
        g_array_free(s->off, TRUE);
    if (s->share_pairs)
        g_array_free(s->share_pairs, TRUE);
    g_free(s);
}

/* The link tables, the isolation and the groups, from the running jobs. */
static void update(steady *s)
{
    steady__links_update(s);
    steady__groups_update(s);
}

void steady_after_reschedule(steady *s)
{
    update(s);
    steady__levels_groups(s);
    steady__levels_commit(s, true);
    steady__levels_free_update(s);
}

void steady_paths_changing(steady *s, const job *j)
{
    /* the isolation is unknown until the next update: no level waits,
     * and no job counts as free of levels until the next reschedule */
    steady__levels_commit(s, false);
    for (guint i = 0; i < s->env.running->len; i++)
        steady__rec(s, g_ptr_array_index(s->env.running, i))->levels_free = false;
    steady_job *rj = steady__rec(s, j);
    if (rj->link_bounds)
        g_array_free(rj->link_bounds, TRUE);
    rj->link_bounds = NULL;
    s->stale = true;
    s->level_groups_stale = true;
}

void steady_job_end(steady *s, const job *j)
{
    if (j->uid < s->rec->len) {
        rec_free(g_ptr_array_index(s->rec, j->uid));
        g_ptr_array_index(s->rec, j->uid) = NULL;
    }
}

void steady_set_fast_path(steady *s, bool on)
{
    if (!s->run_fast_forward || s->env.fast_forward == on)
        return;
    s->env.fast_forward = on;
    if (!on) {
        steady__levels_commit(s, false);
        return;
    }
    if (s->groups)
        g_ptr_array_set_size(s->groups, 0); /* no window carried over the pause */
    steady_after_reschedule(s);
}

void steady_levels_commit(steady *s, bool wait)
{
    steady__levels_commit(s, wait);
}

void steady_get_counters(const steady *s, steady_counters *out)
{
    *out = s->c;
}

double steady_boundary(steady *s, job *j, double origin_s, double now_s)
{
    if (!steady__groups_allowed(s))
        return 0;
    if (s->stale)
        update(s);
    if (s->env.approx)
        steady__post_boundary(s, j, now_s);
    return steady__group_boundary(s, j, origin_s, now_s);
}

/* Stretches are allowed in this run at all: jobs that run as alone
 * (isolated) under a scheduler whose on_comm hook ignores them; windows
 * between a job's peers' communication (below) only without a hook. */
static bool stretches_allowed(const steady *s)
{
    const steady_env *e = &s->env;
    return e->fast_forward && e->window_mode && !e->ideal &&
           (!e->hook || e->hints.ignores_isolated);
}

/* A job that shares a link that can saturate with its peers runs as alone
 * while none of them communicates: until the earliest time one of them
 * may start a transfer (job_next_comm_s), -INFINITY if one is now. */
static double peers_quiet_until(const steady_job *rj, double now_s)
{
    if (!rj->tight_peers || rj->tight_peers->len == 0)
        return -INFINITY;
    double u = INFINITY;
    for (guint i = 0; i < rj->tight_peers->len && u > now_s; i++)
        u = fmin(u, job_next_comm_s(g_ptr_array_index(rj->tight_peers, i), now_s));
    return u > now_s ? u : -INFINITY;
}

/* The first (link, slot) pair on link e in share_pairs. */
static guint first_pair(const steady *s, uint32_t e)
{
    const uint32_t *pv = (const uint32_t *)(void *)s->share_pairs->data;
    guint lo = 0, hi = s->share_pairs->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (pv[2 * mid] < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* When no job sharing a link with j (slot i) is in its communication
 * phase (from its first bucket's start to its last bucket's end) until
 * the earliest time one may start one (job_next_comm_s: the first bucket
 * of its next phase); -INFINITY if one is in it now or runs a stretch. */
static double sharers_quiet_until(const steady *s, const job *j, guint i, double now_s)
{
    const uint32_t *pv = (const uint32_t *)(void *)s->share_pairs->data;
    const uint32_t *all = (const uint32_t *)(void *)s->links->data;
    guint np = s->share_pairs->len, a, b;
    steady__job_links(s, i, &a, &b);
    double u = INFINITY;
    for (guint k = a; k < b && u > now_s; k++) {
        uint32_t e = all[k];
        if (s->link_jobs[e] < 2)
            continue;
        for (guint p = first_pair(s, e); p < np && pv[2 * p] == e && u > now_s; p++) {
            const job *o = g_ptr_array_index(s->env.running, pv[2 * p + 1]);
            if (o == j)
                continue;
            u = fmin(u, job_in_comm_phase(o) ? now_s : job_next_comm_s(o, now_s));
        }
    }
    return u > now_s ? u : -INFINITY;
}

/* What the scheduler's hook allows j (record rj, slot i): until when it
 * may run unseen (INFINITY: as without a hook), or -INFINITY.  A hook that
 * ignores jobs sharing no link may still see one that shares links: the
 * scheduler says whether it ignores j (cassini gives a job no target
 * unless its jobs can overflow a shared link) or sees j's phases only
 * while a job sharing a link with j communicates (sincronia-online: j is
 * then no contending member). */
static double hook_until(const steady *s, const job *j, const steady_job *rj, double now_s)
{
    const steady_env *e = &s->env;
    if (!e->hook || !rj->shares_links)
        return INFINITY;
    if (e->hints.levels_only && rj->levels_free) {
        /* no level in its component changes a rate; its own is what
         * jobs.csv reports at its end, so the stretch stops before it */
        return fmin(j->spec.end_s, e->end_s);
    }
    if (e->ignores && e->ignores(e->user, rj->slot))
        return INFINITY;
    if (!e->hints.local)
        return -INFINITY;
    return sharers_quiet_until(s, j, (guint)rj->slot, now_s);
}

/* A transfer started before the last path change may still use a link
 * the job now has alone (it keeps its links until its step ends), or one
 * it shares, where the bounds count only the current plans. */
static bool old_links_in_use(const steady *s, const steady_job *rj)
{
    guint a, b;
    steady__job_links(s, (guint)rj->slot, &a, &b);
    for (guint k = a; k < b; k++) {
        uint32_t e = g_array_index(s->links, uint32_t, k);
        if (s->link_jobs[e] == 1 && net_link_in_use(s->env.n, e))
            return true;
    }
    if (rj->shares_links)
        for (guint k = 0; k < s->env.running->len; k++)
            if (job_old_paths_in_flight(g_ptr_array_index(s->env.running, k)))
                return true;
    return false;
}

double steady_until(steady *s, const job *j, double origin_s)
{
    (void)origin_s;
    if (!stretches_allowed(s))
        return -INFINITY;
    if (s->stale)
        update(s);
    const steady_job *rj = steady__rec(s, j);
    if (!steady__current(s, j, rj))
        return -INFINITY;
    double now = evq_now(s->env.q);
    double until = hook_until(s, j, rj, now);
    /* under --steady approx a job sharing a link that can saturate runs
     * with its group, which jumps whole (§5d): a stretch of its own would
     * keep the group from it */
    if (!rj->isolated && s->env.approx)
        return -INFINITY;
    if (!rj->isolated)
        until = fmin(until, peers_quiet_until(rj, now));
    if (!(until > now) || old_links_in_use(s, rj))
        return -INFINITY;
    until = fmin(until, j == s->end_min1_job ? s->end_min2 : s->end_min1);
    return fmin(until, s->env.next_arrival_s(s->env.user));
}
