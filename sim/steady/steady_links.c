/* steady_links.c - the wing's side records and link tables: per link the
 * running jobs that use it and the sum of their bounds, which running jobs
 * run as alone, their peers, the links they share (docs/engine.md §5b).
 * Not here: the bounds (steady_bounds.c), what a job may do with them
 * (steady.c), the groups (steady_group.c).
 */
#include <math.h>

#include "steady-private.h"

steady_job *steady__rec(steady *s, const job *j)
{
    if (j->uid >= s->rec->len)
        g_ptr_array_set_size(s->rec, (guint)j->uid + 1);
    steady_job *r = g_ptr_array_index(s->rec, j->uid);
    if (!r) {
        r = g_new0(steady_job, 1);
        g_ptr_array_index(s->rec, j->uid) = r;
    }
    return r;
}

bool steady__current(const steady *s, const job *j, const steady_job *rec)
{
    return s->off && rec->slot < s->off->len && rec->slot < s->env.running->len &&
           g_ptr_array_index(s->env.running, rec->slot) == j;
}

/* Can link e saturate?  Only if the running jobs' bounds on it add up to
 * more than its capacity: with a sum of at most C_e the max-min allocation
 * without e loads it at most C_e, so it is the allocation with e too
 * (docs/engine.md §5b).  The margin is above C_e so that a sum that is C_e
 * in exact arithmetic, computed a few ulps per bound high, still counts as
 * unsaturable; it is the net's rel_eps (the replay's net uses the default),
 * so a sum the margin lets through overfills e by at most rel_eps C_e, a
 * residual the solver itself counts as zero. */
bool steady__link_tight(const steady *s, uint32_t e)
{
    return s->link_bound_sum[e] > topo_link_get(s->env.t, e)->cap_Bps * (1 + NET_DEFAULT_REL_EPS);
}

static gint cmp_pair(gconstpointer a, gconstpointer b)
{
    const uint32_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

static void add_peer(steady_job *rj, job *peer)
{
    for (guint i = 0; i < rj->tight_peers->len; i++)
        if (g_ptr_array_index(rj->tight_peers, i) == peer)
            return;
    g_ptr_array_add(rj->tight_peers, peer);
}

/* Each running job's peers (tight_peers): the running jobs with which it
 * shares a link that can saturate. */
static void find_peers(steady *s)
{
    GPtrArray *running = s->env.running;
    guint n = running->len;
    const uint32_t *all = (const uint32_t *)(void *)s->links->data;
    g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, 2 * sizeof(uint32_t)); /* link, slot */
    for (guint i = 0; i < n; i++) {
        steady_job *rj = steady__rec(s, g_ptr_array_index(running, i));
        if (!rj->tight_peers)
            rj->tight_peers = g_ptr_array_new();
        g_ptr_array_set_size(rj->tight_peers, 0);
        guint a, b;
        steady__job_links(s, i, &a, &b);
        for (guint k = a; k < b && !rj->isolated; k++)
            if (s->link_jobs[all[k]] > 1 && steady__link_tight(s, all[k])) {
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
                    add_peer(steady__rec(s, g_ptr_array_index(running, pv[2 * p + 1])),
                             g_ptr_array_index(running, pv[2 * q + 1]));
        x = y;
    }
}

/* Under a hook that sees a job's phases only through the jobs sharing a
 * link with it (hints.local): every (link, slot) of the links that two or
 * more running jobs use, sorted (steady.c: sharers_quiet_until). */
static void find_sharers(steady *s)
{
    if (!s->share_pairs)
        s->share_pairs = g_array_new(FALSE, FALSE, 2 * sizeof(uint32_t));
    g_array_set_size(s->share_pairs, 0);
    if (!s->env.hints.local)
        return;
    guint n = s->env.running->len;
    const uint32_t *all = (const uint32_t *)(void *)s->links->data;
    for (guint i = 0; i < n; i++) {
        guint a, b;
        steady__job_links(s, i, &a, &b);
        for (guint k = a; k < b; k++)
            if (s->link_jobs[all[k]] > 1) {
                uint32_t pr[2] = {all[k], i};
                g_array_append_val(s->share_pairs, pr);
            }
    }
    g_array_sort(s->share_pairs, cmp_pair);
}

/* The per-link tables, allocated at the first update. */
static void tables_new(steady *s)
{
    size_t L = topo_link_count(s->env.t), n = L ? L : 1;
    s->link_jobs = g_new0(uint32_t, n);
    s->link_bound_sum = g_new0(double, n);
    s->bound_acc = g_new0(double, 5 * n);
    s->bound_cnt = g_new0(uint32_t, 2 * n);
    s->links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->off = g_array_new(FALSE, FALSE, sizeof(guint));
}

/* Count running job j (slot i): its ends, its bounds on the tables. */
static void count_job(steady *s, job *j, guint i)
{
    steady_job *rj = steady__rec(s, j);
    guint off = s->links->len;
    g_array_append_val(s->off, off);
    rj->slot = i;
    if (j->spec.end_s < s->end_min1) {
        s->end_min2 = s->end_min1;
        s->end_min1 = j->spec.end_s;
        s->end_min1_job = j;
    } else if (j->spec.end_s < s->end_min2) {
        s->end_min2 = j->spec.end_s;
    }
    if (job_comm_plan_count(j) == 0)
        return;
    if (!rj->link_bounds) { /* kept until its paths change */
        rj->link_bounds = g_array_new(FALSE, FALSE, sizeof(link_bound));
        steady__job_bounds(s, j, rj->link_bounds);
    }
    for (guint k = 0; k < rj->link_bounds->len; k++) {
        const link_bound *b = &g_array_index(rj->link_bounds, link_bound, k);
        s->link_jobs[b->link]++;
        s->link_bound_sum[b->link] += b->Bps;
        g_array_append_val(s->links, b->link);
    }
}

void steady__links_update(steady *s)
{
    s->stale = false;
    if (!s->link_jobs)
        tables_new(s);
    for (guint k = 0; k < s->links->len; k++) { /* clear only what was counted */
        uint32_t e = g_array_index(s->links, uint32_t, k);
        s->link_jobs[e] = 0;
        s->link_bound_sum[e] = 0;
    }
    g_array_set_size(s->links, 0);
    g_array_set_size(s->off, 0);
    s->end_min1 = s->end_min2 = INFINITY;
    s->end_min1_job = NULL;
    GPtrArray *running = s->env.running;
    for (guint i = 0; i < running->len; i++)
        count_job(s, g_ptr_array_index(running, i), i);
    const uint32_t *all = (const uint32_t *)(void *)s->links->data;
    for (guint i = 0; i < running->len; i++) {
        steady_job *rj = steady__rec(s, g_ptr_array_index(running, i));
        guint a, b;
        steady__job_links(s, i, &a, &b);
        bool alone = true, shared = false;
        for (guint k = a; k < b && alone; k++) {
            shared |= s->link_jobs[all[k]] > 1;
            alone = s->link_jobs[all[k]] == 1 || !steady__link_tight(s, all[k]);
        }
        rj->isolated = alone;
        rj->shares_links = shared;
    }
    find_peers(s);
    find_sharers(s);
}

double steady__next_change(const steady *s, bool ticks)
{
    const steady_env *e = &s->env;
    double u = fmin(s->end_min1, e->end_s);
    if (ticks)
        u = fmin(u, e->next_tick_s(e->user));
    return fmin(u, e->next_arrival_s(e->user));
}
