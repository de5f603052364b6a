/* sincronia.c - Sincronia (Agarwal et al., SIGCOMM'18): sincronia,
 * sincronia-online.
 *
 * From the paper: BSSI (Algorithm 1) orders coflows from last to first by
 * repeatedly taking the bottleneck port and putting there the coflow with
 * the largest weighted processing time last; any order-preserving
 * work-conserving allocation is then within 4x of the optimal total CCT,
 * so strict priority by rank suffices; p priority levels hold the first
 * ranks, the rest share the lowest.
 * Our choices (../shared/research/baselines.md):
 *  - D11: a job's coflow is its per-iteration traffic; ports are all the
 *    links the running jobs use (network and intra-host), demand
 *    d_c^e = M_{c,e} / B_e (seconds, so ports of different speeds
 *    compare), weight 1; bottleneck ties to the lowest link id, coflow
 *    ties to arrival order (D18);
 *  - D12: ranks 1..K-1 get levels 0..K-2, the rest level K-1;
 *  - paths stay ECMP (Sincronia does not route);
 *  - sincronia re-orders on every job start and end;
 *  - sincronia-online models "each iteration is an arriving coflow": at
 *    every start and end of a job's communication phase it re-orders the
 *    jobs that are communicating (their whole per-iteration demand, the
 *    engine does not expose remaining bytes) and puts the others on the
 *    lowest level.  Sincronia's exponential epochs, LP-based subset choice
 *    and orphan ordering are not modelled: with one coflow per job at a
 *    time the LP would admit every active coflow.
 * Cost: O(n^2 P) per ordering, P the number of links in use.
 */
#include "sched.h"

#include <stdlib.h>

#include "sched-private.h"

typedef struct sincronia_sched {
    bool online;
    GHashTable *active; /* uids (as gint64 keys) in their communication phase */
} sincronia_sched;

static void *sincronia_create(const sched_options *opts, GError **error)
{
    (void)opts;
    (void)error;
    sincronia_sched *s = g_new0(sincronia_sched, 1);
    s->active = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    return s;
}

static void *sincronia_online_create(const sched_options *opts, GError **error)
{
    sincronia_sched *s = sincronia_create(opts, error);
    s->online = true;
    return s;
}

static void sincronia_destroy(void *self)
{
    sincronia_sched *s = self;
    if (!s)
        return;
    g_hash_table_destroy(s->active);
    g_free(s);
}

/* Demands d[i][p] = M_{i,e}/B_e of the jobs `members` on the links they
 * use, ports numbered by increasing link id (D18 ties to the lowest link).
 * Returns the matrix (m x *n_ports, transfer full). */
static double *demand_matrix(sched_ctx *ctx, const size_t *members, size_t m, size_t *n_ports)
{
    g_autoptr(GPtrArray) links = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    g_autoptr(GPtrArray) bytes = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (size_t i = 0; i < m; i++) {
        GArray *l = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        GArray *b = g_array_new(FALSE, FALSE, sizeof(double));
        sched_job_link_bytes(ctx, members[i], l, b);
        g_array_append_vals(all, l->data, l->len);
        g_ptr_array_add(links, l);
        g_ptr_array_add(bytes, b);
    }
    g_array_sort(all, (GCompareFunc)sched__cmp_u32);
    size_t P = 0; /* distinct links, in increasing order */
    for (guint k = 0; k < all->len; k++)
        if (k == 0 || g_array_index(all, uint32_t, k) != g_array_index(all, uint32_t, P - 1))
            g_array_index(all, uint32_t, P++) = g_array_index(all, uint32_t, k);
    double *d = g_new0(double, m * P + 1);
    for (size_t i = 0; i < m; i++) {
        GArray *l = links->pdata[i], *b = bytes->pdata[i];
        for (guint k = 0; k < l->len; k++) {
            uint32_t e = g_array_index(l, uint32_t, k);
            const uint32_t *hit = bsearch(&e, all->data, P, sizeof e, sched__cmp_u32);
            size_t p = (size_t)(hit - (const uint32_t *)(void *)all->data);
            d[i * P + p] = g_array_index(b, double, k) / sched_link_capacity_Bps(ctx, e);
        }
    }
    *n_ports = P;
    return d;
}

/* Order the jobs in `members` (indices) by BSSI and set their levels by
 * D12; jobs not in `members` go to the lowest level. */
static void order_jobs(sched_ctx *ctx, const size_t *members, size_t m)
{
    size_t n = sched_job_count(ctx);
    int K = sched_priority_levels(ctx);
    size_t P;
    g_autofree double *d = demand_matrix(ctx, members, m, &P);
    g_autofree size_t *order = g_new(size_t, m + 1);
    sched__bssi(m, P, d, NULL, false, order);
    g_autofree int *rank_level = g_new(int, m + 1);
    sched__rank_levels(order, m, K, rank_level);
    g_autofree int *level = g_new(int, n + 1);
    for (size_t j = 0; j < n; j++)
        level[j] = K - 1;
    for (size_t i = 0; i < m; i++)
        level[members[i]] = rank_level[i];
    for (size_t j = 0; j < n; j++)
        sched_set_priority(ctx, j, level[j]);
}

static void sincronia_reorder(sincronia_sched *s, sched_ctx *ctx)
{
    size_t n = sched_job_count(ctx);
    g_autofree size_t *members = g_new(size_t, n + 1);
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        sched_job_info info;
        sched_job_get(ctx, j, &info);
        gint64 uid = (gint64)info.uid;
        if (!s->online || g_hash_table_contains(s->active, &uid))
            members[m++] = j;
    }
    order_jobs(ctx, members, m);
}

static void sincronia_reschedule(void *self, sched_ctx *ctx)
{
    sincronia_sched *s = self;
    if (s->online) { /* forget jobs that ended */
        g_autoptr(GHashTable) running = g_hash_table_new(g_int64_hash, g_int64_equal);
        size_t n = sched_job_count(ctx);
        g_autofree gint64 *uids = g_new(gint64, n + 1);
        for (size_t j = 0; j < n; j++) {
            sched_job_info info;
            sched_job_get(ctx, j, &info);
            uids[j] = (gint64)info.uid;
            g_hash_table_add(running, &uids[j]);
        }
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, s->active);
        while (g_hash_table_iter_next(&it, &key, NULL))
            if (!g_hash_table_contains(running, key))
                g_hash_table_iter_remove(&it);
    }
    sincronia_reorder(s, ctx);
}

static void sincronia_on_comm(void *self, sched_ctx *ctx, size_t j, bool starting)
{
    sincronia_sched *s = self;
    sched_job_info info;
    sched_job_get(ctx, j, &info);
    gint64 uid = (gint64)info.uid;
    if (starting)
        g_hash_table_add(s->active, g_memdup2(&uid, sizeof uid));
    else
        g_hash_table_remove(s->active, &uid);
    sincronia_reorder(s, ctx);
}

const sched_ops sched_sincronia_ops = {
    .name = "sincronia",
    .summary = "Sincronia: BSSI order of per-iteration coflows, ECMP paths",
    .unlimited_levels = false,
    .create = sincronia_create,
    .destroy = sincronia_destroy,
    .reschedule = sincronia_reschedule,
    .on_comm = NULL,
};

const sched_ops sched_sincronia_online_ops = {
    .name = "sincronia-online",
    .summary = "Sincronia, re-ordering the communicating jobs at every communication phase",
    .unlimited_levels = false,
    .create = sincronia_online_create,
    .destroy = sincronia_destroy,
    .reschedule = sincronia_reschedule,
    .on_comm = sincronia_on_comm,
};
