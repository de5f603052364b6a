/* sched_levels.c - how the scheduler's levels reach the running transfers
 * (docs/engine.md §4, "Levels the net does not need to see").
 * Not here: the scheduler interface (sched_ctx.c), the solver (net*.c).
 *
 * sched_set_priority only records a job's level; after each reschedule and
 * each on_comm call (and before a path change) replay__levels_commit gives
 * the net what it needs, skipping two kinds of re-solve that find the same
 * rates:
 *  - waiting: a job that runs as alone (job.isolated: every link it shares
 *    with another running job can never saturate, §5b) gets its alone
 *    rates whatever the levels, so its running transfers keep theirs
 *    (job.prio_deferred) until the isolation no longer holds;
 *  - relabeling: the strict-priority max-min allocation depends on the
 *    levels only through their order among transfers linked by shared
 *    links, so within each group of link-sharing jobs the net's levels
 *    (job.net_level) are the scheduler's through a strictly increasing
 *    map: when the new levels keep the order (ties included) of every
 *    other running transfer of the group, the map changes instead of the
 *    transfers.  Groups that cannot meet map independently.
 * Both are off with --no-fast-forward (the plain event path, the map the
 * identity).
 */
#include "replay-private.h"

#include <stdlib.h>

/* Is the isolation current?  Not after a path change not yet counted, nor
 * while a transfer from before one is in flight (the bounds count only the
 * current plans); never with --no-fast-forward. */
static bool wait_ok(const struct replay *r)
{
    if (!r->cfg->sim.fast_forward || r->steady_stale || !r->link_jobs)
        return false;
    for (guint i = 0; i < r->running->len; i++)
        if (((const job *)g_ptr_array_index(r->running, i))->old_path_xfers)
            return false;
    return true;
}

/* May job jb's transfers keep levels out of order (above)? */
static bool may_wait(const struct replay *r, const job *jb, bool wait)
{
    return wait && jb->isolated && jb->steady_slot < r->running->len &&
           g_ptr_array_index(r->running, jb->steady_slot) == jb;
}

/* The net level of jb's running transfers, -1 if it has none or if they
 * may be at several (a waiting job's). */
static int net_level(const struct replay *r, const job *jb)
{
    if (jb->active->len == 0 || jb->prio_deferred)
        return -1;
    return net_transfer_priority(r->n, g_array_index(jb->active, net_transfer_id, 0));
}

/* Are the level groups current (every running job in one computed by
 * replay__levels_groups since the last path change, no transfer from
 * before a path change in flight)?  A job that ended leaves its group
 * only coarser than needed, which is still safe. */
static bool groups_ok(const struct replay *r)
{
    if (r->level_groups_stale || r->level_epoch == 0)
        return false;
    for (guint i = 0; i < r->running->len; i++) {
        const job *jb = g_ptr_array_index(r->running, i);
        if (jb->level_epoch != r->level_epoch || jb->old_path_xfers)
            return false;
    }
    return true;
}

static guint uf_find(guint *uf, guint x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

void replay__levels_groups(struct replay *r)
{
    guint n = r->running->len;
    size_t L = topo_link_count(r->t);
    if (!r->level_first) {
        r->level_first = g_new(uint32_t, L ? L : 1);
        for (size_t e = 0; e < L; e++)
            r->level_first[e] = UINT32_MAX;
    }
    g_autofree guint *uf = g_new(guint, n ? n : 1);
    for (guint i = 0; i < n; i++)
        uf[i] = i;
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    for (guint i = 0; i < n; i++) {
        guint a = g_array_index(r->steady_off, guint, i);
        guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : r->steady_links->len;
        for (guint k = a; k < b; k++) {
            uint32_t *f = &r->level_first[all[k]];
            if (*f == UINT32_MAX)
                *f = i;
            else
                uf[uf_find(uf, i)] = uf_find(uf, *f);
        }
    }
    for (guint k = 0; k < r->steady_links->len; k++)
        r->level_first[all[k]] = UINT32_MAX;
    r->level_epoch++;
    r->level_groups_stale = false;
    for (guint i = 0; i < n; i++) {
        job *jb = g_ptr_array_index(r->running, i);
        jb->level_group = uf_find(uf, i);
        jb->level_epoch = r->level_epoch;
    }
}

static gint by_level(gconstpointer a, gconstpointer b)
{
    const job *x = *(job *const *)a, *y = *(job *const *)b;
    return (x->priority > y->priority) - (x->priority < y->priority);
}

static gint by_group_level(gconstpointer a, gconstpointer b)
{
    const job *x = *(job *const *)a, *y = *(job *const *)b;
    if (x->level_group != y->level_group)
        return (x->level_group > y->level_group) - (x->level_group < y->level_group);
    return by_level(a, b);
}

/* Give the members of one group (sorted by level) net levels through a
 * strictly increasing map (into 0..K-1) that sends each member that must
 * keep its order, with its transfers at one net level, to that level;
 * false if there is none.  Levels between two kept ones take the lowest
 * free values (most room above). */
static bool relabel(const struct replay *r, job **m, guint n, bool wait)
{
    int prev = -1;
    for (guint a = 0, b; a < n; a = b) { /* members a..b-1 share a level */
        int want = -1;
        for (b = a; b < n && m[b]->priority == m[a]->priority; b++) {
            int v = may_wait(r, m[b], wait) ? -1 : net_level(r, m[b]);
            if (v >= 0 && want >= 0 && v != want)
                return false; /* a tie that the net does not have */
            if (v >= 0)
                want = v;
        }
        if (want >= 0 && want <= prev)
            return false; /* an order that the net does not have */
        prev = want >= 0 ? want : prev + 1;
        if (prev >= r->levels)
            return false;
        for (guint k = a; k < b; k++)
            m[k]->net_level = prev;
    }
    return true;
}

/* Bring jb's running transfers to its net level, or let them wait. */
static void apply(const struct replay *r, job *jb, bool wait)
{
    bool off = false;
    for (guint k = 0; k < jb->active->len; k++) {
        net_transfer_id id = g_array_index(jb->active, net_transfer_id, k);
        if (net_transfer_priority(r->n, id) == jb->net_level)
            continue;
        if (may_wait(r, jb, wait))
            off = true;
        else
            net_transfer_set_priority(r->n, id, jb->net_level, NULL);
    }
    jb->prio_deferred = off;
}

void replay__levels_commit(struct replay *r, bool wait)
{
    guint n = r->running->len;
    wait = wait && wait_ok(r);
    bool ffwd = r->cfg->sim.fast_forward, grouped = ffwd && groups_ok(r);
    /* the running jobs by group (one group when the groups are not
     * current), each group by level */
    g_autofree job **m = g_new(job *, n ? n : 1);
    for (guint i = 0; i < n; i++)
        m[i] = g_ptr_array_index(r->running, i);
    if (grouped)
        qsort(m, n, sizeof *m, by_group_level);
    else
        qsort(m, n, sizeof *m, by_level);
    for (guint a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && grouped && m[b]->level_group == m[a]->level_group; b++)
            ;
        if (!grouped)
            b = n;
        if (!ffwd || !relabel(r, m + a, b - a, wait))
            for (guint k = a; k < b; k++)
                m[k]->net_level = m[k]->priority;
    }
    for (guint i = 0; i < n; i++)
        apply(r, g_ptr_array_index(r->running, i), wait);
}
