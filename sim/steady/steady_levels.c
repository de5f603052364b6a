/* steady_levels.c - how the scheduler's levels reach the running transfers
 * (docs/engine.md §4, "Levels the net does not need to see").
 * Not here: the scheduler interface (sim/sched_ctx.c), the solver
 * (sim/net*.c).
 *
 * sched_set_priority only records a job's level; after each reschedule and
 * each on_comm call (and before a path change) steady__levels_commit gives
 * the net what it needs, skipping two kinds of re-solve that find the same
 * rates:
 *  - waiting: a job that runs as alone (isolated: every link it shares
 *    with another running job can never saturate, §5b) gets its alone
 *    rates whatever the levels, so its running transfers keep theirs
 *    (prio_deferred) until the isolation no longer holds;
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
#include <stdlib.h>

#include "steady-private.h"

/* Is the isolation current?  Not after a path change not yet counted, nor
 * while a transfer from before one is in flight (the bounds count only the
 * current plans); never with --no-fast-forward. */
static bool wait_ok(const steady *s)
{
    if (!s->env.fast_forward || s->stale || !s->link_jobs)
        return false;
    for (guint i = 0; i < s->env.running->len; i++)
        if (job_old_paths_in_flight(g_ptr_array_index(s->env.running, i)))
            return false;
    return true;
}

/* May job jb's transfers keep levels out of order (above)? */
static bool may_wait(steady *s, const job *jb, bool wait)
{
    if (!wait || job_has_class_levels(jb))
        return false; /* alone, its classes' levels still order its own transfers */
    const steady_job *rj = steady__rec(s, jb);
    return rj->isolated && steady__current(s, jb, rj);
}

/* The net level of jb's running transfers, -1 if it has none or if they
 * may be at several (a waiting job's). */
static int net_level(steady *s, const job *jb)
{
    if (job_transfer_count(jb) == 0 || steady__rec(s, jb)->prio_deferred)
        return -1;
    return net_transfer_priority(s->env.n, job_transfer_get(jb, 0));
}

/* Are the level groups current (every running job in one computed by
 * steady__levels_groups since the last path change, no transfer from
 * before a path change in flight)?  A job that ended leaves its group
 * only coarser than needed, which is still safe. */
static bool groups_ok(steady *s)
{
    if (s->level_groups_stale || s->level_epoch == 0)
        return false;
    for (guint i = 0; i < s->env.running->len; i++) {
        const job *jb = g_ptr_array_index(s->env.running, i);
        if (steady__rec(s, jb)->level_epoch != s->level_epoch || job_old_paths_in_flight(jb))
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

void steady__levels_groups(steady *s)
{
    GPtrArray *running = s->env.running;
    guint n = running->len;
    size_t L = topo_link_count(s->env.t);
    if (!s->level_first) {
        s->level_first = g_new(uint32_t, L ? L : 1);
        for (size_t e = 0; e < L; e++)
            s->level_first[e] = NONE;
    }
    g_autofree guint *uf = g_new(guint, n ? n : 1);
    for (guint i = 0; i < n; i++)
        uf[i] = i;
    const uint32_t *all = (const uint32_t *)(void *)s->links->data;
    for (guint i = 0; i < n; i++) {
        guint a, b;
        steady__job_links(s, i, &a, &b);
        for (guint k = a; k < b; k++) {
            uint32_t *f = &s->level_first[all[k]];
            if (*f == NONE)
                *f = i;
            else
                uf[uf_find(uf, i)] = uf_find(uf, *f);
        }
    }
    for (guint k = 0; k < s->links->len; k++)
        s->level_first[all[k]] = NONE;
    s->level_epoch++;
    s->level_groups_stale = false;
    for (guint i = 0; i < n; i++) {
        steady_job *rj = steady__rec(s, g_ptr_array_index(running, i));
        rj->level_group = uf_find(uf, i);
        rj->level_epoch = s->level_epoch;
    }
}

/* A running job with its level group, for sorting. */
typedef struct member {
    job *j;
    guint group;
} member;

static gint by_level(gconstpointer a, gconstpointer b)
{
    const job *x = ((const member *)a)->j, *y = ((const member *)b)->j;
    return (x->priority > y->priority) - (x->priority < y->priority);
}

static gint by_group_level(gconstpointer a, gconstpointer b)
{
    guint x = ((const member *)a)->group, y = ((const member *)b)->group;
    if (x != y)
        return (x > y) - (x < y);
    return by_level(a, b);
}

/* Give the members of one group (sorted by level) net levels through a
 * strictly increasing map (into 0..K-1) that sends each member that must
 * keep its order, with its transfers at one net level, to that level;
 * false if there is none.  Levels between two kept ones take the lowest
 * free values (most room above). */
static bool relabel(steady *s, const member *m, guint n, bool wait)
{
    for (guint k = 0; k < n; k++)
        if (job_has_class_levels(m[k].j))
            return false; /* its class levels go to the net as they are */
    int prev = -1;
    for (guint a = 0, b; a < n; a = b) { /* members a..b-1 share a level */
        int want = -1;
        for (b = a; b < n && m[b].j->priority == m[a].j->priority; b++) {
            int v = may_wait(s, m[b].j, wait) ? -1 : net_level(s, m[b].j);
            if (v >= 0 && want >= 0 && v != want)
                return false; /* a tie that the net does not have */
            if (v >= 0)
                want = v;
        }
        if (want >= 0 && want <= prev)
            return false; /* an order that the net does not have */
        prev = want >= 0 ? want : prev + 1;
        if (prev >= s->env.levels)
            return false;
        for (guint k = a; k < b; k++)
            m[k].j->net_level = prev;
    }
    return true;
}

/* Bring jb's running transfers to its net level, or let them wait. */
static void apply(steady *s, job *jb, bool wait)
{
    bool off = false;
    for (size_t k = 0; k < job_transfer_count(jb); k++) {
        net_transfer_id id = job_transfer_get(jb, k);
        int level = job_transfer_level(jb, k);
        if (net_transfer_priority(s->env.n, id) == level)
            continue;
        if (may_wait(s, jb, wait))
            off = true;
        else
            net_transfer_set_priority(s->env.n, id, level, NULL);
    }
    steady__rec(s, jb)->prio_deferred = off;
}

void steady__levels_commit(steady *s, bool wait)
{
    GPtrArray *running = s->env.running;
    guint n = running->len;
    wait = wait && wait_ok(s);
    bool ffwd = s->env.fast_forward, grouped = ffwd && groups_ok(s);
    /* the running jobs by group (one group when the groups are not
     * current), each group by level */
    g_autofree member *m = g_new(member, n ? n : 1);
    for (guint i = 0; i < n; i++) {
        job *jb = g_ptr_array_index(running, i);
        m[i] = (member){jb, steady__rec(s, jb)->level_group};
    }
    if (grouped)
        qsort(m, n, sizeof *m, by_group_level);
    else
        qsort(m, n, sizeof *m, by_level);
    for (guint a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && grouped && m[b].group == m[a].group; b++)
            ;
        if (!grouped)
            b = n;
        if (!ffwd || !relabel(s, m + a, b - a, wait))
            for (guint k = a; k < b; k++)
                m[k].j->net_level = m[k].j->priority;
    }
    for (guint i = 0; i < n; i++)
        apply(s, g_ptr_array_index(running, i), wait);
}

/* levels_free of every running job, after the isolation is updated: the
 * components of the running jobs linked by shared links (the (link, slot)
 * pairs of share_pairs, kept under hints.local), free when every member
 * runs as alone. */
void steady__levels_free_update(steady *s)
{
    GPtrArray *running = s->env.running;
    guint n = running->len;
    for (guint i = 0; i < n; i++)
        steady__rec(s, g_ptr_array_index(running, i))->levels_free = false;
    if (!s->env.hints.levels_only || !s->env.hints.local || !s->share_pairs)
        return;
    g_autofree guint *uf = g_new(guint, n + 1);
    g_autofree bool *tight = g_new0(bool, n + 1); /* per root: a member that is not alone */
    for (guint i = 0; i < n; i++)
        uf[i] = i;
    const uint32_t *pv = (const uint32_t *)(void *)s->share_pairs->data;
    for (guint p = 1; p < s->share_pairs->len; p++)
        if (pv[2 * p] == pv[2 * p - 2])
            uf[uf_find(uf, pv[2 * p + 1])] = uf_find(uf, pv[2 * p - 1]);
    for (guint i = 0; i < n; i++) {
        const job *jb = g_ptr_array_index(running, i);
        /* class levels order a job's own transfers, alone or not */
        if (!steady__rec(s, jb)->isolated || job_has_class_levels(jb))
            tight[uf_find(uf, i)] = true;
    }
    for (guint i = 0; i < n; i++)
        steady__rec(s, g_ptr_array_index(running, i))->levels_free = !tight[uf_find(uf, i)];
}
