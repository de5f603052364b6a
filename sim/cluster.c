/* cluster.c - GPU bookkeeping and job placement (cluster.h).
 * Not here: which GPUs a collective uses (collective.c).
 */
#include "cluster.h"

#include <string.h>

#include "base/ccs.h"

struct cluster {
    topo *t;               /* borrowed */
    size_t n_hosts;        /* servers */
    uint32_t *gpu_base;    /* n_hosts + 1 offsets into used */
    uint8_t *used;         /* one flag per GPU */
    uint32_t *free_count;  /* free GPUs per host */
    size_t gpus_total;
    size_t gpus_free;
};

void cluster_alloc_free(cluster_alloc *a)
{
    if (!a)
        return;
    g_free(a->hosts);
    g_free(a->gpu_off);
    g_free(a->gpus);
    g_free(a);
}

cluster *cluster_new(topo *t)
{
    cluster *c = g_new0(cluster, 1);
    c->t = t;
    c->n_hosts = topo_host_count(t);
    c->gpu_base = g_new0(uint32_t, c->n_hosts + 1);
    c->free_count = g_new0(uint32_t, c->n_hosts ? c->n_hosts : 1);
    for (size_t h = 0; h < c->n_hosts; h++) {
        uint32_t g = (uint32_t)topo_host_gpu_count(t, (uint32_t)h);
        c->gpu_base[h + 1] = c->gpu_base[h] + g;
        c->free_count[h] = g;
    }
    c->gpus_total = c->gpus_free = c->gpu_base[c->n_hosts];
    c->used = g_new0(uint8_t, c->gpus_total ? c->gpus_total : 1);
    return c;
}

void cluster_free(cluster *c)
{
    if (!c)
        return;
    g_free(c->gpu_base);
    g_free(c->used);
    g_free(c->free_count);
    g_free(c);
}

size_t cluster_gpu_count(const cluster *c) { return c->gpus_total; }
size_t cluster_free_gpu_count(const cluster *c) { return c->gpus_free; }

/* Choose k free GPUs on host h (k <= free_count[h]) as cluster.h says and
 * append their local indices to out; marks them used. */
static void pick_gpus(cluster *c, uint32_t h, uint32_t k, GArray *out)
{
    uint32_t base = c->gpu_base[h], n = c->gpu_base[h + 1] - base;
    uint32_t n_nics = (uint32_t)topo_host_nic_count(c->t, h);
    if (n_nics == 0)
        n_nics = 1;
    g_autofree uint32_t *group_free = g_new0(uint32_t, n_nics);
    g_autofree uint32_t *nic_of = g_new0(uint32_t, n ? n : 1);
    for (uint32_t g = 0; g < n; g++) {
        uint32_t nic = (uint32_t)topo_gpu_nic(c->t, h, g);
        nic_of[g] = nic < n_nics ? nic : 0;
        if (!c->used[base + g])
            group_free[nic_of[g]]++;
    }
    g_autofree uint32_t *order = g_new0(uint32_t, n_nics);
    size_t n_order = 0;
    /* best fit: the fullest group that holds all k */
    int64_t best = -1;
    for (uint32_t i = 0; i < n_nics; i++)
        if (group_free[i] >= k && (best < 0 || group_free[i] < group_free[best]))
            best = i;
    if (best >= 0) {
        order[n_order++] = (uint32_t)best;
    } else {
        /* whole groups, emptiest (most free) first; ties by index */
        for (uint32_t i = 0; i < n_nics; i++)
            order[n_order++] = i;
        for (size_t a = 1; a < n_order; a++)
            for (size_t b = a; b > 0 && group_free[order[b]] > group_free[order[b - 1]]; b--) {
                uint32_t tmp = order[b];
                order[b] = order[b - 1];
                order[b - 1] = tmp;
            }
    }
    uint32_t taken = 0;
    for (size_t oi = 0; oi < n_order && taken < k; oi++)
        for (uint32_t g = 0; g < n && taken < k; g++)
            if (nic_of[g] == order[oi] && !c->used[base + g]) {
                c->used[base + g] = 1;
                g_array_append_val(out, g);
                taken++;
            }
    g_assert(taken == k);
    c->free_count[h] -= k;
    c->gpus_free -= k;
}

/* Build the allocation from hosts[] and counts[] (counts > 0). */
static cluster_alloc *alloc_make(cluster *c, const uint32_t *hosts, const uint32_t *counts,
                                 size_t n, bool by_policy)
{
    cluster_alloc *a = g_new0(cluster_alloc, 1);
    GArray *gpus = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    a->hosts = g_new0(uint32_t, n);
    a->gpu_off = g_new0(uint32_t, n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (counts[i] == 0)
            continue;
        a->hosts[k] = hosts[i];
        a->gpu_off[k] = gpus->len;
        pick_gpus(c, hosts[i], counts[i], gpus);
        k++;
    }
    a->n_hosts = k;
    a->gpu_off[k] = gpus->len;
    a->n_gpus = (int)gpus->len;
    a->gpus = (uint32_t *)(void *)g_array_free(gpus, FALSE);
    a->by_policy = by_policy;
    return a;
}

/* Spread n GPUs over hosts (round robin, as the free GPUs allow) into
 * counts; false if they do not fit. */
static bool spread(const cluster *c, const uint32_t *hosts, size_t k, int n, uint32_t *counts)
{
    memset(counts, 0, k * sizeof *counts);
    int left = n;
    while (left > 0) {
        bool progress = false;
        for (size_t i = 0; i < k && left > 0; i++)
            if (counts[i] < c->free_count[hosts[i]]) {
                counts[i]++;
                left--;
                progress = true;
            }
        if (!progress)
            return false;
    }
    return true;
}

/* Fill hosts in the given order (whatever each has free) until n GPUs. */
static cluster_alloc *fill_in_order(cluster *c, const uint32_t *order, size_t k, int n)
{
    g_autofree uint32_t *hosts = g_new0(uint32_t, k ? k : 1);
    g_autofree uint32_t *counts = g_new0(uint32_t, k ? k : 1);
    size_t m = 0;
    int left = n;
    for (size_t i = 0; i < k && left > 0; i++) {
        uint32_t f = c->free_count[order[i]];
        if (f == 0)
            continue;
        uint32_t take = f < (uint32_t)left ? f : (uint32_t)left;
        hosts[m] = order[i];
        counts[m] = take;
        m++;
        left -= (int)take;
    }
    g_assert(left == 0);
    return alloc_make(c, hosts, counts, m, true);
}

/* Sort h[0..n) most free GPUs first, ties by lower id (insertion sort:
 * stable, groups are small). */
static void sort_most_free(const cluster *c, uint32_t *h, size_t n)
{
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0; b--) {
            uint32_t x = h[b], y = h[b - 1];
            if (c->free_count[x] > c->free_count[y] ||
                (c->free_count[x] == c->free_count[y] && x < y)) {
                h[b] = y;
                h[b - 1] = x;
            } else
                break;
        }
}

/* Hosts of a group, most free GPUs first (ties: lower id), then fill. */
static cluster_alloc *fill_most_free(cluster *c, GArray *hosts, int n)
{
    sort_most_free(c, (uint32_t *)(void *)hosts->data, hosts->len);
    return fill_in_order(c, (uint32_t *)(void *)hosts->data, hosts->len, n);
}

/* Every host id in an order drawn from rng (Fisher-Yates). */
static void shuffled_hosts(const cluster *c, GRand *rng, uint32_t *order)
{
    for (size_t h = 0; h < c->n_hosts; h++)
        order[h] = (uint32_t)h;
    for (size_t i = c->n_hosts; i > 1; i--) {
        size_t j = (size_t)g_rand_int_range(rng, 0, (gint32)i);
        uint32_t tmp = order[i - 1];
        order[i - 1] = order[j];
        order[j] = tmp;
    }
}

static cluster_alloc *place_locality(cluster *c, int n)
{
    /* one host, best fit */
    int64_t best = -1;
    for (size_t h = 0; h < c->n_hosts; h++)
        if (c->free_count[h] >= (uint32_t)n && (best < 0 || c->free_count[h] < c->free_count[best]))
            best = (int64_t)h;
    if (best >= 0) {
        uint32_t host = (uint32_t)best, cnt = (uint32_t)n;
        return alloc_make(c, &host, &cnt, 1, true);
    }
    static const topo_level levels[] = {TOPO_LEVEL_TOR, TOPO_LEVEL_POD};
    for (size_t li = 0; li < G_N_ELEMENTS(levels); li++) {
        g_autoptr(GHashTable) sums = g_hash_table_new(g_direct_hash, g_direct_equal);
        for (size_t h = 0; h < c->n_hosts; h++) {
            gpointer key = GSIZE_TO_POINTER((gsize)topo_host_group(c->t, (uint32_t)h, levels[li]) + 1);
            gsize s = GPOINTER_TO_SIZE(g_hash_table_lookup(sums, key));
            g_hash_table_insert(sums, key, GSIZE_TO_POINTER(s + c->free_count[h]));
        }
        gsize best_key = 0, best_sum = 0;
        GHashTableIter it;
        gpointer key, val;
        g_hash_table_iter_init(&it, sums);
        while (g_hash_table_iter_next(&it, &key, &val)) {
            gsize k = GPOINTER_TO_SIZE(key), s = GPOINTER_TO_SIZE(val);
            if (s >= (gsize)n &&
                (best_key == 0 || s < best_sum || (s == best_sum && k < best_key))) {
                best_key = k;
                best_sum = s;
            }
        }
        if (best_key == 0)
            continue;
        g_autoptr(GArray) hosts = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        for (size_t h = 0; h < c->n_hosts; h++)
            if ((gsize)topo_host_group(c->t, (uint32_t)h, levels[li]) + 1 == best_key) {
                uint32_t hh = (uint32_t)h;
                g_array_append_val(hosts, hh);
            }
        return fill_most_free(c, hosts, n);
    }
    g_autoptr(GArray) hosts = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (size_t h = 0; h < c->n_hosts; h++) {
        uint32_t hh = (uint32_t)h;
        g_array_append_val(hosts, hh);
    }
    return fill_most_free(c, hosts, n);
}

/* spread: hosts interleaved over ToRs (ToR ids ascending; inside a ToR
 * most free first, then lower id), one GPU per host per round. */
static cluster_alloc *place_spread(cluster *c, int n)
{
    g_autoptr(GHashTable) tor_of = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GPtrArray) tors = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    g_autoptr(GArray) tor_ids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (size_t h = 0; h < c->n_hosts; h++) {
        uint32_t tor = topo_host_group(c->t, (uint32_t)h, TOPO_LEVEL_TOR), hh = (uint32_t)h;
        gpointer v = g_hash_table_lookup(tor_of, GSIZE_TO_POINTER((gsize)tor + 1));
        if (!v) {
            g_ptr_array_add(tors, g_array_new(FALSE, FALSE, sizeof(uint32_t)));
            g_array_append_val(tor_ids, tor);
            v = GSIZE_TO_POINTER((gsize)tors->len);
            g_hash_table_insert(tor_of, GSIZE_TO_POINTER((gsize)tor + 1), v);
        }
        g_array_append_val((GArray *)g_ptr_array_index(tors, GPOINTER_TO_SIZE(v) - 1), hh);
    }
    /* ToRs in id order (hosts come in id order, ToR ids need not) */
    g_autofree size_t *rank = g_new0(size_t, tors->len ? tors->len : 1);
    for (size_t i = 0; i < tors->len; i++)
        rank[i] = i;
    for (size_t a = 1; a < tors->len; a++)
        for (size_t b = a; b > 0 && g_array_index(tor_ids, uint32_t, rank[b]) <
                                        g_array_index(tor_ids, uint32_t, rank[b - 1]); b--) {
            size_t tmp = rank[b];
            rank[b] = rank[b - 1];
            rank[b - 1] = tmp;
        }
    g_autofree uint32_t *order = g_new0(uint32_t, c->n_hosts ? c->n_hosts : 1);
    size_t k = 0;
    for (size_t round = 0; k < c->n_hosts; round++)
        for (size_t i = 0; i < tors->len; i++) {
            GArray *hs = g_ptr_array_index(tors, rank[i]);
            if (round == 0)
                sort_most_free(c, (uint32_t *)(void *)hs->data, hs->len);
            if (round < hs->len)
                order[k++] = g_array_index(hs, uint32_t, round);
        }
    g_autofree uint32_t *counts = g_new0(uint32_t, k ? k : 1);
    bool fits = spread(c, order, k, n, counts);
    g_assert(fits); /* cluster_place checked that n GPUs are free */
    return alloc_make(c, order, counts, k, true);
}

/* fragmented: hosts in a seeded random order, at most a quarter of a
 * host's GPUs (at least 1) from each in a first pass, as the leftovers of a
 * busy cluster would offer; what is still missing from the same order. */
static cluster_alloc *place_fragmented(cluster *c, int n, GRand *rng)
{
    g_autofree uint32_t *order = g_new0(uint32_t, c->n_hosts ? c->n_hosts : 1);
    shuffled_hosts(c, rng, order);
    g_autofree uint32_t *counts = g_new0(uint32_t, c->n_hosts ? c->n_hosts : 1);
    int left = n;
    for (int pass = 0; pass < 2 && left > 0; pass++)
        for (size_t i = 0; i < c->n_hosts && left > 0; i++) {
            uint32_t h = order[i], g = c->gpu_base[h + 1] - c->gpu_base[h];
            uint32_t cap = pass == 0 ? (g / 4 ? g / 4 : 1) : c->free_count[h];
            uint32_t room = c->free_count[h] - counts[i];
            uint32_t take = cap - (cap > counts[i] ? counts[i] : cap);
            take = take < room ? take : room;
            take = take < (uint32_t)left ? take : (uint32_t)left;
            counts[i] += take;
            left -= (int)take;
        }
    g_assert(left == 0);
    return alloc_make(c, order, counts, c->n_hosts, true);
}

/* The recorded hosts, if every one exists, is listed once and has room;
 * else NULL (the policy decides). */
static cluster_alloc *place_recorded(cluster *c, const char *const *hosts, const int *host_gpus,
                                     size_t n_hosts, int gpus)
{
    g_autofree uint32_t *ids = g_new0(uint32_t, n_hosts);
    g_autofree uint32_t *counts = g_new0(uint32_t, n_hosts);
    bool ok = true;
    for (size_t i = 0; i < n_hosts && ok; i++) {
        size_t h = 0;
        if (!hosts[i] || !topo_host_find(c->t, hosts[i], &h))
            ok = false;
        ids[i] = (uint32_t)h;
        for (size_t j = 0; j < i && ok; j++)
            if (ids[j] == ids[i])
                ok = false; /* a host listed twice: let the policy decide */
    }
    if (ok && host_gpus) {
        int sum = 0;
        for (size_t i = 0; i < n_hosts && ok; i++) {
            if (host_gpus[i] < 0 || (uint32_t)host_gpus[i] > c->free_count[ids[i]])
                ok = false;
            else {
                counts[i] = (uint32_t)host_gpus[i];
                sum += host_gpus[i];
            }
        }
        if (sum != gpus)
            ok = ok && spread(c, ids, n_hosts, gpus, counts);
    } else if (ok) {
        ok = spread(c, ids, n_hosts, gpus, counts);
    }
    return ok ? alloc_make(c, ids, counts, n_hosts, false) : NULL;
}

cluster_alloc *cluster_place(cluster *c, const char *const *hosts, const int *host_gpus,
                             size_t n_hosts, int gpus, config_placement policy, GRand *rng,
                             GError **error)
{
    g_return_val_if_fail(c && gpus >= 1, NULL);
    if ((size_t)gpus > c->gpus_free) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "needs %d GPUs, %zu of the cluster's %zu are free", gpus, c->gpus_free,
                    c->gpus_total);
        return NULL;
    }
    if (policy == CONFIG_PLACE_RECORDED && n_hosts > 0) {
        cluster_alloc *a = place_recorded(c, hosts, host_gpus, n_hosts, gpus);
        if (a)
            return a;
    }
    switch (policy) {
    case CONFIG_PLACE_RECORDED:
    case CONFIG_PLACE_LOCALITY:
        return place_locality(c, gpus);
    case CONFIG_PLACE_SPREAD:
        return place_spread(c, gpus);
    case CONFIG_PLACE_FRAGMENTED:
        return place_fragmented(c, gpus, rng);
    case CONFIG_PLACE_PACKED:
    case CONFIG_PLACE_RANDOM: {
        g_autofree uint32_t *order = g_new0(uint32_t, c->n_hosts ? c->n_hosts : 1);
        if (policy == CONFIG_PLACE_RANDOM)
            shuffled_hosts(c, rng, order);
        else
            for (size_t h = 0; h < c->n_hosts; h++)
                order[h] = (uint32_t)h;
        return fill_in_order(c, order, c->n_hosts, gpus);
    }
    }
    g_assert_not_reached();
    return NULL;
}

void cluster_release(cluster *c, const cluster_alloc *a)
{
    for (size_t k = 0; k < a->n_hosts; k++) {
        uint32_t h = a->hosts[k];
        for (uint32_t i = a->gpu_off[k]; i < a->gpu_off[k + 1]; i++) {
            uint32_t idx = c->gpu_base[h] + a->gpus[i];
            g_assert(c->used[idx]);
            c->used[idx] = 0;
            c->free_count[h]++;
            c->gpus_free++;
        }
    }
}

void cluster_rank_positions(const cluster_alloc *a, int tp, int dp, int pp, const int order[3],
                            uint32_t *pos)
{
    g_return_if_fail(a && tp >= 1 && (long)tp * dp * pp == a->n_gpus);
    uint32_t n = (uint32_t)a->n_gpus;
    g_autofree uint32_t *seq = g_new(uint32_t, n); /* positions in rank order along order[] */
    uint32_t k = 0;
    if (order[0] == 0 && tp > 1) {
        g_autofree uint32_t *rest = g_new(uint32_t, n);
        uint32_t nr = 0;
        for (size_t h = 0; h < a->n_hosts; h++) {
            uint32_t lo = a->gpu_off[h], hi = a->gpu_off[h + 1];
            uint32_t whole = (hi - lo) / (uint32_t)tp * (uint32_t)tp;
            for (uint32_t p = lo; p < hi; p++) {
                if (p < lo + whole)
                    seq[k++] = p;
                else
                    rest[nr++] = p;
            }
        }
        memcpy(seq + k, rest, nr * sizeof *rest);
    } else {
        for (uint32_t p = 0; p < n; p++)
            seq[p] = p;
    }
    /* seq is in the order's own radix; map it to r = t + tp (d + dp s) */
    const int size[3] = {tp, dp, pp};
    for (uint32_t i = 0; i < n; i++) {
        int c[3];
        uint32_t x = i;
        for (int q = 0; q < 3; q++) {
            c[order[q]] = (int)(x % (uint32_t)size[order[q]]);
            x /= (uint32_t)size[order[q]];
        }
        uint32_t r = (uint32_t)(c[0] + tp * (c[1] + dp * c[2]));
        pos[r] = seq[i];
    }
}

size_t cluster_alloc_host_of(const cluster_alloc *a, uint32_t p)
{
    size_t lo = 0, hi = a->n_hosts; /* the last k with gpu_off[k] <= p */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (a->gpu_off[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
