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
 *    levels only through their order, so the net's levels are the
 *    scheduler's through a strictly increasing map (replay.net_level_of):
 *    when the new levels keep the order (ties included) of every other
 *    running transfer, the map changes instead of the transfers.
 * Both are off with --no-fast-forward (the plain event path, the map the
 * identity).
 */
#include "replay-private.h"

#include <string.h>

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

/* A strictly increasing map (into 0..K-1) of the levels the running jobs
 * have that sends each job that must keep its order, with its transfers
 * at one net level, to that level; false if there is none.  Levels
 * between two kept ones take the lowest free values (most room above). */
static bool relabel(const struct replay *r, bool wait, int *map)
{
    int K = r->levels;
    g_autofree int *want = g_new(int, K);
    g_autofree bool *used = g_new0(bool, K);
    for (int l = 0; l < K; l++)
        want[l] = -1;
    for (guint i = 0; i < r->running->len; i++) {
        const job *jb = g_ptr_array_index(r->running, i);
        used[jb->priority] = true;
        int v = may_wait(r, jb, wait) ? -1 : net_level(r, jb);
        if (v < 0)
            continue;
        if (want[jb->priority] >= 0 && want[jb->priority] != v)
            return false; /* a tie that the net does not have */
        want[jb->priority] = v;
    }
    int prev = -1;
    for (int l = 0; l < K; l++) {
        if (want[l] >= 0) {
            if (want[l] <= prev)
                return false; /* an order that the net does not have */
            map[l] = prev = want[l];
        } else {
            map[l] = used[l] ? ++prev : -1;
        }
    }
    if (prev >= K)
        return false;
    for (int l = 0; l < K; l++) /* unused levels: any value, in order */
        if (map[l] < 0)
            map[l] = l;
    return true;
}

/* Bring jb's running transfers to its net level, or let them wait. */
static void apply(const struct replay *r, job *jb, bool wait)
{
    int target = r->net_level_of[jb->priority];
    bool off = false;
    for (guint k = 0; k < jb->active->len; k++) {
        net_transfer_id id = g_array_index(jb->active, net_transfer_id, k);
        if (net_transfer_priority(r->n, id) == target)
            continue;
        if (may_wait(r, jb, wait))
            off = true;
        else
            net_transfer_set_priority(r->n, id, target, NULL);
    }
    jb->prio_deferred = off;
}

void replay__levels_commit(struct replay *r, bool wait)
{
    int K = r->levels;
    if (!r->net_level_of) {
        r->net_level_of = g_new(int, K);
        for (int l = 0; l < K; l++)
            r->net_level_of[l] = l;
        r->env.net_level_of = r->net_level_of;
    }
    wait = wait && wait_ok(r);
    g_autofree int *map = g_new(int, K);
    if (!r->cfg->sim.fast_forward || !relabel(r, wait, map))
        for (int l = 0; l < K; l++)
            map[l] = l;
    memcpy(r->net_level_of, map, K * sizeof *map);
    for (guint i = 0; i < r->running->len; i++)
        apply(r, g_ptr_array_index(r->running, i), wait);
}
