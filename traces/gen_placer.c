/* gen_placer.c - the generator's allocator: which hosts a synthetic job's
 * pods take (docs/traces.md "Hosts").  Not here: the time order and the
 * releases (gen_place.c), the job population (gen.c).
 *
 * An occupancy map of 8-GPU hosts grouped into racks (PSW, ASW): the
 * tenant's partition of whole racks, "same host, else same switch" for
 * whole-host pods, bin packing when a job spills over racks (onto other
 * jobs' leftovers, or the emptiest racks first: spill_whole_racks), and
 * sub-host pods on partly used hosts (first fit, or the most allocated
 * host: small_most_allocated).
 */
#include "gen-private.h"

typedef struct phost {
    int used;  /* GPUs in use */
    int rack;
    bool pool; /* in the tenant's share (placer_pool) */
} phost;

typedef struct prack {
    int psw;
    GArray *hosts; /* int host indices */
    int free_hosts;
    int free_pool; /* free hosts of the tenant's share (placer_pool) */
} prack;

struct gen_placer {
    phost *hosts;
    size_t n_hosts;
    prack *racks;
    size_t n_racks;
    char **ips; /* borrowed from the topo rows */
};
typedef gen_placer placer;

static void placer_init(placer *P, GPtrArray *topo)
{
    P->n_hosts = topo->len;
    P->hosts = g_new0(phost, P->n_hosts);
    P->ips = g_new0(char *, P->n_hosts);
    g_autoptr(GHashTable) racks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) psws = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GArray *rk = g_array_new(FALSE, TRUE, sizeof(prack));
    for (size_t h = 0; h < P->n_hosts; h++) {
        trace__row *row = g_ptr_array_index(topo, h);
        P->ips[h] = row->f[TRACE__T_IP];
        gpointer pv;
        if (!g_hash_table_lookup_extended(psws, row->f[TRACE__T_PSW], NULL, &pv)) {
            pv = GUINT_TO_POINTER(g_hash_table_size(psws));
            g_hash_table_insert(psws, g_strdup(row->f[TRACE__T_PSW]), pv);
        }
        g_autofree char *key = g_strdup_printf("%s/%s", row->f[TRACE__T_PSW], row->f[TRACE__T_ASW]);
        gpointer rv;
        if (!g_hash_table_lookup_extended(racks, key, NULL, &rv)) {
            rv = GUINT_TO_POINTER(rk->len);
            g_hash_table_insert(racks, g_strdup(key), rv);
            prack r = {.psw = (int)GPOINTER_TO_UINT(pv), .hosts = g_array_new(FALSE, FALSE, sizeof(int))};
            g_array_append_val(rk, r);
        }
        prack *r = &g_array_index(rk, prack, GPOINTER_TO_UINT(rv));
        int hi = (int)h;
        g_array_append_val(r->hosts, hi);
        r->free_hosts++;
        P->hosts[h].rack = (int)GPOINTER_TO_UINT(rv);
    }
    P->n_racks = rk->len;
    P->racks = (prack *)(void *)g_array_free(rk, FALSE);
}

void gen__placer_free(placer *P)
{
    if (!P)
        return;
    for (size_t r = 0; r < P->n_racks; r++)
        g_array_unref(P->racks[r].hosts);
    g_free(P->racks);
    g_free(P->hosts);
    g_free(P->ips);
    g_free(P);
}

void gen__placer_use(placer *P, int h, int g)
{
    prack *rk = &P->racks[P->hosts[h].rack];
    int d = P->hosts[h].used == 0 && g > 0 ? -1 : 0;
    P->hosts[h].used += g;
    if (P->hosts[h].used == 0)
        d = 1;
    rk->free_hosts += d;
    if (P->hosts[h].pool)
        rk->free_pool += d;
}

/* The tenant's partition: whole racks, in the order topo.csv first names
 * them (the file's rows are in no order), until they hold pool_gpus GPUs
 * (8 per host).  Our assumption from published facts: the Crux paper's
 * cluster has 2,000+ GPUs while topo.csv lists 6,776, and the trace never
 * holds more than about 1,650 at once; so the traced jobs run on a
 * partition the size of their quota, and spill onto other racks only when
 * it is full. */
static void placer_pool(placer *P, double pool_gpus)
{
    double have = 0;
    for (size_t r = 0; r < P->n_racks && have < pool_gpus; r++) {
        GArray *hs = P->racks[r].hosts;
        for (guint x = 0; x < hs->len; x++)
            P->hosts[g_array_index(hs, int, x)].pool = true;
        P->racks[r].free_pool = (int)hs->len;
        have += 8.0 * hs->len;
    }
}

/* The rack for whole hosts, among racks of psw if psw >= 0 and of the
 * pool if pool: the fullest rack that holds all `want` hosts (the
 * production allocator's "same host, else same switch", Crux §2), else,
 * when the job must spill over racks, the fullest rack with a free host: a
 * bin-packing allocator fills partly used racks before it opens an empty
 * one (Kubernetes' MostAllocated scoring, which Alibaba's Koordinator
 * scheduler offers for GPUs), so a job that spills over racks takes the
 * leftovers of others; or, if emptiest, the rack with the most free hosts
 * (whole empty racks first, as a topology-aware gang scheduler gives a
 * large job whole racks).  -1 if none has a free host. */
static int best_rack(const placer *P, int psw, bool pool, int want, bool emptiest)
{
    int fit = -1, spill = -1, fit_n = 0, spill_n = 0;
    for (size_t r = 0; r < P->n_racks; r++) {
        const prack *k = &P->racks[r];
        int n = pool ? k->free_pool : k->free_hosts;
        if (n == 0 || (psw >= 0 && k->psw != psw))
            continue;
        if (n >= want && (fit < 0 || n < fit_n)) {
            fit = (int)r;
            fit_n = n;
        }
        if (spill < 0 || (emptiest ? n > spill_n : n < spill_n)) {
            spill = (int)r;
            spill_n = n;
        }
    }
    return fit >= 0 ? fit : spill;
}

/* Whether host h may take a pod now: free, and in the share if pool. */
static bool host_open(const placer *P, int h, bool pool)
{
    return P->hosts[h].used == 0 && (!pool || P->hosts[h].pool);
}

/* The next rack for whole hosts: the pool first (in the PSW of the job's
 * previous rack, then anywhere), then any rack. */
static int next_rack(const placer *P, int psw, int want, bool emptiest, bool *pool)
{
    *pool = true;
    int r = best_rack(P, psw, true, want, emptiest);
    if (r < 0)
        r = best_rack(P, -1, true, want, emptiest);
    if (r >= 0)
        return r;
    *pool = false;
    r = best_rack(P, psw, false, want, emptiest);
    return r >= 0 ? r : best_rack(P, -1, false, want, emptiest);
}

/* A partly used host with room for per GPUs, of the pool if pool: the
 * first in topo.csv order, or, if most, the most allocated one (the first
 * of those); -1 if none. */
static int partial_host(const placer *P, int per, bool pool, bool most)
{
    int best = -1;
    for (size_t x = 0; x < P->n_hosts; x++) {
        const phost *h = &P->hosts[x];
        if (h->used == 0 || h->used + per > 8 || h->pool != pool)
            continue;
        if (!most)
            return (int)x;
        if (best < 0 || h->used > P->hosts[best].used)
            best = (int)x;
    }
    return best;
}

/* A host for a sub-host pod of per GPUs: a partly used host (the pool's
 * first), else a free host of the best rack.  most: the most allocated
 * partly used host (Kubernetes' MostAllocated scoring, which favours the
 * nodes with the most allocated) instead of the first in topo.csv order. */
static int small_pod_host(const placer *P, int per, bool most)
{
    for (int pass = 0; pass < 2; pass++) {
        int h = partial_host(P, per, pass == 0, most);
        if (h >= 0)
            return h;
    }
    bool pool;
    int r = next_rack(P, -1, 1, false, &pool);
    const prack *rk = r >= 0 ? &P->racks[r] : NULL;
    for (guint x = 0; rk && x < rk->hosts->len; x++)
        if (host_open(P, g_array_index(rk->hosts, int, x), pool))
            return g_array_index(rk->hosts, int, x);
    return -1;
}

/* Whole-host pods without topology awareness: each on a free host drawn
 * uniformly, the tenant's share first, the ToR ignored.  This is what a
 * Kubernetes scheduler does when a job does not opt in to network
 * topology-aware scheduling: whole hosts all score alike, and it picks
 * among equal scores at random (docs/traces.md). */
static void place_any_host(placer *P, GRand *r, int pods, int per, int *out)
{
    g_autoptr(GArray) cand = g_array_new(FALSE, FALSE, sizeof(int));
    int k = 0;
    for (int pass = 0; pass < 2 && k < pods; pass++) {
        g_array_set_size(cand, 0);
        for (size_t x = 0; x < P->n_hosts; x++)
            if (host_open(P, (int)x, pass == 0)) {
                int h = (int)x;
                g_array_append_val(cand, h);
            }
        for (; k < pods && cand->len > 0; k++) {
            guint q = (guint)g_rand_int_range(r, 0, (gint32)cand->len);
            out[k] = g_array_index(cand, int, q);
            g_array_remove_index_fast(cand, q);
            gen__placer_use(P, out[k], per);
        }
    }
}

bool gen__placer_place(placer *P, GRand *r, const trace_gen_options *o, int pods, int per,
                       int *out)
{
    int k = 0;
    if (per >= 8) {
        int free_total = 0;
        for (size_t x = 0; x < P->n_racks; x++)
            free_total += P->racks[x].free_hosts;
        if (free_total < pods)
            return false;
        if (!o->topo_aware) {
            place_any_host(P, r, pods, per, out);
            return true;
        }
        int psw = -1;
        while (k < pods) {
            bool pool;
            int rr = next_rack(P, psw, pods - k, o->spill_whole_racks, &pool);
            psw = P->racks[rr].psw;
            prack *rk = &P->racks[rr];
            for (guint x = 0; x < rk->hosts->len && k < pods; x++) {
                int h = g_array_index(rk->hosts, int, x);
                if (host_open(P, h, pool)) {
                    gen__placer_use(P, h, per);
                    out[k++] = h;
                }
            }
        }
        return true;
    }
    for (; k < pods; k++) {
        int h = small_pod_host(P, per, o->small_most_allocated);
        if (h < 0) {
            for (int q = 0; q < k; q++)
                gen__placer_use(P, out[q], -per);
            return false;
        }
        gen__placer_use(P, h, per);
        out[k] = h;
    }
    return true;
}

const char *gen__placer_ip(const placer *P, int h)
{
    return P->ips[h];
}

placer *gen__placer_new(GPtrArray *topo_rows, double pool_gpus)
{
    placer *P = g_new0(placer, 1);
    placer_init(P, topo_rows);
    placer_pool(P, pool_gpus);
    return P;
}
