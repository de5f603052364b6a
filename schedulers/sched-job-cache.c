/* sched-job-cache.c - what a scheduler reads of each running job that only
 * changes with the job's flows, kept between reschedules: its bytes per
 * link (M_{j,e}) and its candidate-path table.  Not here: the engine's
 * reads (sched_job_link_bytes, sched_flow_path_links), the scheduler that
 * uses it (crux.c).
 *
 * Crux reads every running job's M_{j,e} at every reschedule, and with
 * path selection every flow's candidate paths; the engine rebuilds them
 * each time (sums over the job's flows and fixed links, path lookups in
 * the topology), which was a quarter of a crux-ps-pa run.  M_{j,e} is a
 * function of the job's flows (bytes per iteration, chosen path) and fixed
 * links, the candidates of a flow a function of its two NICs (the
 * topology does not change), so a result kept under the job's uid with
 * those inputs, and used only while they compare equal byte for byte, is
 * the one the engine would return.
 */
#include "sched-private.h"

#include <string.h>

typedef struct job_entry {
    GBytes *bytes_inputs;   /* flows' (path, bytes), fixed links' (link, bytes) */
    GArray *links;          /* uint32_t, increasing */
    GArray *bytes;          /* double, parallel */
    GBytes *paths_inputs;   /* flows' (src, dst, candidates); NULL: no table yet */
    sched__job_paths paths; /* the candidate table */
    guint64 seen;           /* the last round it was asked for */
} job_entry;

struct sched__job_cache {
    GHashTable *by_uid; /* gint64 uid -> job_entry */
    guint64 round;      /* sched__job_cache_round calls */
};

static void entry_free(gpointer p)
{
    job_entry *e = p;
    if (e->bytes_inputs) {
        g_bytes_unref(e->bytes_inputs);
        g_array_unref(e->links);
        g_array_unref(e->bytes);
    }
    if (e->paths_inputs) {
        g_bytes_unref(e->paths_inputs);
        sched__job_paths_clear(&e->paths);
    }
    g_free(e);
}

sched__job_cache *sched__job_cache_new(void)
{
    sched__job_cache *c = g_new0(sched__job_cache, 1);
    c->by_uid = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, entry_free);
    return c;
}

void sched__job_cache_free(sched__job_cache *c)
{
    if (!c)
        return;
    g_hash_table_destroy(c->by_uid);
    g_free(c);
}

/* Job j's entry (created empty), marked as seen this round. */
static job_entry *entry_of(sched__job_cache *c, sched_ctx *ctx, size_t j, size_t *n_flows)
{
    sched_job_info info;
    sched_job_get(ctx, j, &info);
    gint64 uid = (gint64)info.uid;
    job_entry *e = g_hash_table_lookup(c->by_uid, &uid);
    if (!e) {
        e = g_new0(job_entry, 1);
        g_hash_table_insert(c->by_uid, g_memdup2(&uid, sizeof uid), e);
    }
    e->seen = c->round;
    *n_flows = info.n_flows;
    return e;
}

/* Job j's flows (chosen path, bytes) and fixed links (link, bytes). */
static GBytes *bytes_inputs(sched_ctx *ctx, size_t j, size_t n_flows)
{
    const uint32_t *fl;
    const double *fb;
    size_t nf = sched_job_fixed_links(ctx, j, &fl, &fb);
    GByteArray *a = g_byte_array_new();
    for (size_t f = 0; f < n_flows; f++) {
        sched_flow_info fi;
        sched_flow_get(ctx, j, f, &fi);
        g_byte_array_append(a, (const guint8 *)&fi.path, sizeof fi.path);
        g_byte_array_append(a, (const guint8 *)&fi.bytes, sizeof fi.bytes);
    }
    g_byte_array_append(a, (const guint8 *)fl, (guint)(nf * sizeof *fl));
    g_byte_array_append(a, (const guint8 *)fb, (guint)(nf * sizeof *fb));
    return g_byte_array_free_to_bytes(a);
}

/* Job j's flows (source NIC, destination NIC, number of candidates). */
static GBytes *paths_inputs(sched_ctx *ctx, size_t j, size_t n_flows)
{
    GByteArray *a = g_byte_array_new();
    for (size_t f = 0; f < n_flows; f++) {
        sched_flow_info fi;
        sched_flow_get(ctx, j, f, &fi);
        g_byte_array_append(a, (const guint8 *)&fi.src_nic, sizeof fi.src_nic);
        g_byte_array_append(a, (const guint8 *)&fi.dst_nic, sizeof fi.dst_nic);
        g_byte_array_append(a, (const guint8 *)&fi.n_paths, sizeof fi.n_paths);
    }
    return g_byte_array_free_to_bytes(a);
}

void sched__job_cache_bytes(sched__job_cache *c, sched_ctx *ctx, size_t j, GArray **links,
                            GArray **bytes)
{
    size_t n_flows;
    job_entry *e = entry_of(c, ctx, j, &n_flows);
    g_autoptr(GBytes) inputs = bytes_inputs(ctx, j, n_flows);
    if (!e->bytes_inputs || !g_bytes_equal(e->bytes_inputs, inputs)) {
        if (e->bytes_inputs) {
            g_bytes_unref(e->bytes_inputs);
            g_array_unref(e->links);
            g_array_unref(e->bytes);
        }
        e->bytes_inputs = g_bytes_ref(inputs);
        e->links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        e->bytes = g_array_new(FALSE, FALSE, sizeof(double));
        sched_job_link_bytes(ctx, j, e->links, e->bytes);
    }
    *links = g_array_ref(e->links);
    *bytes = g_array_ref(e->bytes);
}

const sched__job_paths *sched__job_cache_paths(sched__job_cache *c, sched_ctx *ctx, size_t j)
{
    size_t n_flows;
    job_entry *e = entry_of(c, ctx, j, &n_flows);
    g_autoptr(GBytes) inputs = paths_inputs(ctx, j, n_flows);
    if (!e->paths_inputs || !g_bytes_equal(e->paths_inputs, inputs)) {
        if (e->paths_inputs) {
            g_bytes_unref(e->paths_inputs);
            sched__job_paths_clear(&e->paths);
        }
        e->paths_inputs = g_bytes_ref(inputs);
        sched__job_paths_load(ctx, j, &e->paths);
    }
    return &e->paths;
}

void sched__job_cache_round(sched__job_cache *c)
{
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, c->by_uid);
    while (g_hash_table_iter_next(&it, NULL, &v))
        if (((const job_entry *)v)->seen != c->round)
            g_hash_table_iter_remove(&it);
    c->round++;
}
