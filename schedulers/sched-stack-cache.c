/* sched-stack-cache.c - results of the one-link stack simulation kept by
 * their inputs.  Not here: the simulation (sched-pair.c), its user (crux.c).
 *
 * Crux's context ranking simulates, at every reschedule, the stack of the
 * jobs on each job's bottleneck (twice per job) and, in its local search,
 * the stack on the tightest link of each examined pair.  Between two
 * reschedules most running jobs, their links and hence most of these stacks
 * are the same, and within one local search a pass that follows a move
 * simulates again the stacks it already did.  sched__stack_sim is a pure
 * function of (the jobs in stack order, the horizon), so a result kept
 * under those inputs, compared byte for byte, is the result a new
 * simulation would give: reusing it changes no decision.
 */
#include "sched-private.h"

#include <string.h>

struct sched__stack_cache {
    GHashTable *done;   /* GBytes (horizon, jobs) -> double busy_s[n] */
    size_t max_entries; /* forget everything beyond this many */
    size_t hits, misses;
};

GBytes *sched__inputs_key(double scalar, const void *items, size_t items_len)
{
    guint8 *raw = g_malloc(sizeof scalar + items_len);
    memcpy(raw, &scalar, sizeof scalar);
    memcpy(raw + sizeof scalar, items, items_len);
    return g_bytes_new_take(raw, sizeof scalar + items_len);
}

sched__stack_cache *sched__stack_cache_new(size_t max_entries)
{
    sched__stack_cache *c = g_new0(sched__stack_cache, 1);
    c->done = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref,
                                    g_free);
    c->max_entries = max_entries ? max_entries : 1;
    return c;
}

void sched__stack_cache_free(sched__stack_cache *c)
{
    if (!c)
        return;
    g_hash_table_destroy(c->done);
    g_free(c);
}

void sched__stack_cache_sim(sched__stack_cache *c, const sched__pair_job *jobs, size_t n,
                            double horizon_s, double *busy_s)
{
    g_autoptr(GBytes) key = sched__inputs_key(horizon_s, jobs, n * sizeof *jobs);
    const double *hit = g_hash_table_lookup(c->done, key);
    if (hit) {
        memcpy(busy_s, hit, n * sizeof *busy_s);
        c->hits++;
        return;
    }
    c->misses++;
    sched__stack_sim(jobs, n, horizon_s, busy_s);
    if (g_hash_table_size(c->done) >= c->max_entries)
        g_hash_table_remove_all(c->done);
    g_hash_table_insert(c->done, g_bytes_ref(key), g_memdup2(busy_s, n * sizeof *busy_s));
}

void sched__stack_cache_counts(const sched__stack_cache *c, size_t *hits, size_t *misses)
{
    *hits = c->hits;
    *misses = c->misses;
}
