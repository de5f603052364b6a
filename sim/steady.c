/* steady.c - which running jobs share no link with another, and until when
 * one may run a fast-forwarded stretch (docs/engine.md §5b).
 * Not here: the stretch itself (job_ffwd.c), the profile (ffwd.c).
 *
 * The rule.  A job that shares no link with any other running job runs
 * exactly as it would alone, and alone its iterations repeat with the
 * period T' of its current paths.  Whether it shares a link can change
 * only when the running set or a path changes: at a job's arrival or end
 * (the reschedule after it) or when a scheduler moves a path.  In window
 * mode every arrival and end time is known in advance (the trace), so at
 * an iteration boundary the job may skip the whole iterations that end
 * before the next of them; it is back on the event path when that change
 * happens, and the scheduler sees it as it would have.  A scheduler with
 * an on_comm hook qualifies only if the hook ignores such jobs
 * (sched_ops.on_comm_ignores_isolated).  Work mode does not: there a
 * job's end is its last iteration, known to no one in advance.
 */
#include <math.h>

#include "replay-private.h"

void replay__steady_update(struct replay *r)
{
    r->steady_stale = false;
    size_t L = topo_link_count(r->t);
    if (!r->link_jobs) {
        r->link_jobs = g_new0(uint32_t, L ? L : 1);
        r->steady_links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        r->steady_off = g_array_new(FALSE, FALSE, sizeof(guint));
    }
    g_array_set_size(r->steady_links, 0);
    g_array_set_size(r->steady_off, 0);
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) bytes = g_array_new(FALSE, FALSE, sizeof(double));
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
        coll_plan_link_bytes(j->plan, links, bytes); /* distinct links */
        for (guint k = 0; k < links->len; k++) {
            uint32_t e = g_array_index(links, uint32_t, k);
            r->link_jobs[e]++;
            g_array_append_val(r->steady_links, e);
        }
    }
    guint n = r->running->len, total = r->steady_links->len;
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    for (guint i = 0; i < n; i++) {
        job *j = g_ptr_array_index(r->running, i);
        guint a = g_array_index(r->steady_off, guint, i);
        guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : total;
        bool alone = true;
        for (guint k = a; k < b && alone; k++)
            alone = r->link_jobs[all[k]] == 1;
        j->isolated = alone;
    }
    for (guint k = 0; k < total; k++) /* clear only what was counted */
        r->link_jobs[all[k]] = 0;
    replay__groups_update(r);
}

/* Stretches are allowed in this run at all. */
static bool steady_allowed(const struct replay *r)
{
    return r->cfg->sim.fast_forward && r->cfg->sim.mode == CONFIG_MODE_WINDOW && !r->env.ideal &&
           (!r->ops->on_comm || r->ops->on_comm_ignores_isolated);
}

double replay__steady_until(void *user, const job *j, double origin_s)
{
    struct replay *r = user;
    (void)origin_s;
    if (!steady_allowed(r))
        return -INFINITY;
    if (r->steady_stale)
        replay__steady_update(r);
    if (!j->isolated || j->steady_slot >= r->steady_off->len ||
        g_ptr_array_index(r->running, j->steady_slot) != j)
        return -INFINITY;
    /* a transfer started before the last path change may still use a link
     * the job now has alone (it keeps its links until its step ends) */
    guint n = r->steady_off->len, i = (guint)j->steady_slot;
    guint a = g_array_index(r->steady_off, guint, i);
    guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : r->steady_links->len;
    for (guint k = a; k < b; k++)
        if (net_link_in_use(r->n, g_array_index(r->steady_links, uint32_t, k)))
            return -INFINITY;
    double until = j == r->end_min1_job ? r->end_min2 : r->end_min1;
    if (r->next_start < r->start_order->len) {
        guint idx = g_array_index(r->start_order, guint, r->next_start);
        const job *next = g_ptr_array_index(r->jobs, idx);
        until = fmin(until, next->spec.start_s);
    }
    return until;
}
