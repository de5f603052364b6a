/* optimal_gap_reuse.c - optimal-gap shortcuts: reuse equivalent runs, stop
 * runs that cannot win.  Not here: cases, searches, report (optimal_gap.c).
 */
#include "optimal-gap-private.h"

#include <string.h>

/* Reuse of equivalent runs.  In these cases every decision is taken at
 * the five arrivals (0 to 4 ms; no job ends inside the window), and the
 * crux variants decide nothing else (no on_comm hook), so a crux run is
 * fixed by the paths, levels and shifts it sets at those reschedules.  Two
 * runs whose decisions agree are the same run; so are two whose levels
 * differ only in ways the rate allocation cannot see: the net (net_solve.c)
 * allocates level by level per connected component and per link, so only
 * the order of levels on each link matters, i.e. the relation (<, =, >)
 * between jobs that share a link, not the level numbers nor the relation
 * between jobs that share none.  The key of a run is therefore, per
 * reschedule, the time, every job's path per flow and shift, and its level
 * canonicalised on the contention graph (jobs sharing a link at any of the
 * run's reschedules; a running transfer can keep an earlier path until its
 * step ends): equal-level sharers merged, then each group's longest chain
 * of strictly higher sharers above it.  A run whose key was seen before is
 * stopped at its last arrival (replay_set_decision_hook) and takes the
 * earlier run's utilization.  The claim was checked by replaying every
 * candidate (--replay-all) on 20 cases: identical cases.csv
 * (docs/performance-notes.md). */
typedef struct og_resched {
    double now_s;
    int n;
    int job[OG_JOBS];      /* case job index of the ctx job */
    int level[OG_JOBS];
    double shift_s[OG_JOBS];
    char *paths[OG_JOBS];  /* chosen candidate per flow, "0.1.1..." */
} og_resched;

static int og_job_index(const og_case *c, const char *id)
{
    for (int k = 0; k < OG_JOBS; k++)
        if (strcmp(c->ids[k], id) == 0)
            return k;
    return -1;
}

static bool og_share(const og_probe *p, int a, int b)
{
    GHashTableIter it;
    gpointer e;
    g_hash_table_iter_init(&it, p->links[a]);
    while (g_hash_table_iter_next(&it, &e, NULL))
        if (g_hash_table_contains(p->links[b], e))
            return true;
    return false;
}

static int og_find(int *parent, int x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/* Levels of one reschedule canonicalised on the contention graph `share`:
 * sharers at equal levels merged, each group at the length of the longest
 * chain of strictly higher-priority sharers above it. */
static void og_canonical_levels(const og_resched *rs, bool share[OG_JOBS][OG_JOBS],
                                int canon[OG_JOBS])
{
    int parent[OG_JOBS], depth[OG_JOBS] = {0};
    for (int i = 0; i < rs->n; i++)
        parent[i] = i;
    for (int a = 0; a < rs->n; a++)
        for (int b = a + 1; b < rs->n; b++)
            if (share[rs->job[a]][rs->job[b]] && rs->level[a] == rs->level[b])
                parent[og_find(parent, a)] = og_find(parent, b);
    for (int round = 0; round < rs->n; round++) /* longest paths in a DAG of <= n nodes */
        for (int a = 0; a < rs->n; a++)
            for (int b = 0; b < rs->n; b++)
                if (share[rs->job[a]][rs->job[b]] && rs->level[a] < rs->level[b]) {
                    int ga = og_find(parent, a), gb = og_find(parent, b);
                    depth[gb] = MAX(depth[gb], depth[ga] + 1);
                }
    for (int i = 0; i < rs->n; i++)
        canon[i] = depth[og_find(parent, i)];
}

static char *og_probe_key(const og_probe *p)
{
    bool share[OG_JOBS][OG_JOBS] = {{false}};
    for (int a = 0; a < OG_JOBS; a++)
        for (int b = a + 1; b < OG_JOBS; b++)
            share[a][b] = share[b][a] = og_share(p, a, b);
    GString *key = g_string_new(p->sched);
    for (guint r = 0; r < p->log->len; r++) {
        const og_resched *rs = &g_array_index(p->log, og_resched, r);
        int canon[OG_JOBS];
        og_canonical_levels(rs, share, canon);
        g_string_append_printf(key, "|%.17g", rs->now_s);
        for (int i = 0; i < rs->n; i++)
            g_string_append_printf(key, ";%d:%d:%.17g:%s", rs->job[i], canon[i], rs->shift_s[i],
                                   rs->paths[i]);
    }
    return g_string_free(key, FALSE);
}

bool og__probe_hook(void *user, sched_ctx *ctx)
{
    og_probe *p = user;
    if (p->key)
        return true; /* later reschedules (ends at the window's end) change nothing */
    og_resched rs = {.now_s = sched_now_s(ctx), .n = (int)sched_job_count(ctx)};
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) bytes = g_array_new(FALSE, FALSE, sizeof(double));
    for (int i = 0; i < rs.n && i < OG_JOBS; i++) {
        sched_job_info ji;
        sched_job_get(ctx, (size_t)i, &ji);
        rs.job[i] = og_job_index(p->c, ji.id);
        if (rs.job[i] < 0)
            return true; /* not a case job: leave the key unset */
        rs.level[i] = ji.priority;
        rs.shift_s[i] = ji.shift_s;
        GString *paths = g_string_new(NULL);
        for (size_t f = 0; f < ji.n_flows; f++) {
            sched_flow_info fi;
            sched_flow_get(ctx, (size_t)i, f, &fi);
            g_string_append_printf(paths, "%s%zu", f ? "." : "", fi.path);
        }
        rs.paths[i] = g_string_free(paths, FALSE);
        sched_job_link_bytes(ctx, (size_t)i, links, bytes);
        for (guint k = 0; k < links->len; k++)
            if (g_array_index(bytes, double, k) > 0.0)
                g_hash_table_add(p->links[rs.job[i]],
                                 GUINT_TO_POINTER(g_array_index(links, uint32_t, k) + 1));
    }
    g_array_append_val(p->log, rs);
    if (rs.n != OG_JOBS)
        return true;
    p->key = og_probe_key(p);
    const og_memo *seen = g_hash_table_lookup(p->c->memo, p->key);
    /* a bound is enough only if it is below what this run must beat */
    if (!seen || (!seen->exact && !(seen->util < p->beat)))
        return true;
    p->hit = true;
    p->hit_val = *seen;
    return false;
}

static void og_resched_clear(gpointer data)
{
    og_resched *rs = data;
    for (int i = 0; i < rs->n && i < OG_JOBS; i++)
        g_free(rs->paths[i]);
}

void og__probe_start(og_probe *p)
{
    p->log = g_array_new(FALSE, TRUE, sizeof(og_resched));
    g_array_set_clear_func(p->log, og_resched_clear);
    for (int k = 0; k < OG_JOBS; k++)
        p->links[k] = g_hash_table_new(g_direct_hash, g_direct_equal);
}

void og__probe_clear(og_probe *p)
{
    g_array_unref(p->log);
    for (int k = 0; k < OG_JOBS; k++)
        g_hash_table_destroy(p->links[k]);
    g_free(p->key);
}

bool og__watch(void *user, const replay_watch *w)
{
    og_watcher *wt = user;
    if (w->now_s <= wt->last_arrival_s)
        return true;
    double left = (w->end_s - w->now_s) * w->alloc_gpus;
    double bound = (w->busy_gpu_s + left) / (w->alloc_gpu_s + left);
    if (!(bound < wt->beat - 1e-9))
        return true;
    wt->bound = bound;
    return false;
}
