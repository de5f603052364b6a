/* gen_place.c - where the synthetic jobs run (docs/traces.md): hosts, placement,
 * the synthetic topology.  Not here: the job population (gen.c).
 *
 * Where the synthetic jobs run: whole jobs
 * outside topo.csv, calibrated so 86.3% of the worker rows match it; the
 * production-like allocator (same host, then the same rack, then the same
 * PSW) over a time-ordered occupancy map; the synthetic topology.
 */
#include "gen-private.h"

#include <math.h>
#include <string.h>

/* Synthetic topology: rack sizes per PSW with the real histogram
 * {8: 68, 7: 23, 6: 15, 5: 7, 4: 2, 3: 1, 2: 3} and per-PSW totals
 * P10 362 hosts / 48 racks, P12 306 / 42, P8 179 / 29 (docs/design.md §1). */
typedef struct psw_racks {
    const char *psw;
    int n_racks;
    int sizes[9]; /* racks with 0..8 hosts */
} psw_racks;
static const psw_racks synth_topo[] = {
    {"P10", 48, {0, 0, 3, 0, 1, 0, 0, 0, 44}},
    {"P12", 42, {0, 0, 0, 1, 1, 2, 1, 13, 24}},
    {"P8", 29, {0, 0, 0, 0, 0, 5, 14, 10, 0}},
};

int gen__job_rows(const gjob *j)
{
    if (j->no_workers)
        return 0;
    return (j->gpu ? j->pods : j->cpu_pods) + (j->aimaster ? 1 : 0);
}

/* Whole jobs outside topo.csv (docs/design.md §2.4), then corrected so that
 * 86.3% of the worker rows match topo.csv. */
void gen__choose_outside(gen *G)
{
    size_t n = G->jobs->len;
    long rows = 0, out_rows = 0;
    for (size_t i = 0; i < n; i++) {
        gjob *j = J(G, i);
        double p = !j->gpu     ? .32
                   : j->g == 1 ? .20
                   : j->g == 2 ? .40
                   : j->g <= 6 ? .15
                   : j->g <= 48 ? .06
                                : .01;
        j->outside = g_rand_double(G->r) < p;
        rows += gen__job_rows(j);
    }
    /* rows with an empty host: each pod of a never-ran job with p .5 */
    double empty = 0;
    for (size_t i = 0; i < n; i++) {
        gjob *j = J(G, i);
        if (j->ran)
            continue;
        for (int p = 0; p < gen__job_rows(j); p++)
            j->empty_hosts += g_rand_double(G->r) < 0.5;
        empty += j->empty_hosts;
    }
    for (size_t i = 0; i < n; i++)
        if (J(G, i)->outside)
            out_rows += gen__job_rows(J(G, i)) - J(G, i)->empty_hosts;
    double want = (1.0 - GEN_TOPO_MATCH) * rows - empty;
    g_autofree int *idx = g_new(int, n);
    for (size_t i = 0; i < n; i++)
        idx[i] = (int)i;
    gen__shuffle_int(G->r, idx, n);
    /* small jobs first, then any job of up to 64 rows */
    for (size_t k = 0; k < 2 * n && fabs(out_rows - want) > 2; k++) {
        gjob *j = J(G, (size_t)idx[k % n]);
        int r = gen__job_rows(j) - j->empty_hosts;
        if (r <= 0 || (k < n && (r > 4 || (j->gpu && j->g > 8))) || r > 64)
            continue;
        if (out_rows > want && j->outside) {
            j->outside = false;
            out_rows -= r;
        } else if (out_rows < want && !j->outside) {
            j->outside = true;
            out_rows += r;
        }
    }
    g_debug("gen-trace: %ld rows outside topo.csv, %.0f wanted", out_rows, want);
}

/* ---- placement -------------------------------------------------------- */

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

typedef struct placer {
    phost *hosts;
    size_t n_hosts;
    prack *racks;
    size_t n_racks;
    char **ips; /* borrowed from the topo rows */
} placer;

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

static void placer_clear(placer *P)
{
    for (size_t r = 0; r < P->n_racks; r++)
        g_array_unref(P->racks[r].hosts);
    g_free(P->racks);
    g_free(P->hosts);
    g_free(P->ips);
}

static void host_use(placer *P, int h, int g)
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
 * production allocator's "same host, else same switch", Crux §2), else
 * the fullest rack with a free host: a bin-packing allocator fills
 * partly used racks before it opens an empty one (Kubernetes'
 * MostAllocated scoring, which Alibaba's Koordinator scheduler offers for
 * GPUs), so a job that spills over racks takes the leftovers of others.
 * -1 if none has a free host. */
static int best_rack(const placer *P, int psw, bool pool, int want)
{
    int fit = -1, fullest = -1, fit_n = 0, fullest_n = 0;
    for (size_t r = 0; r < P->n_racks; r++) {
        const prack *k = &P->racks[r];
        int n = pool ? k->free_pool : k->free_hosts;
        if (n == 0 || (psw >= 0 && k->psw != psw))
            continue;
        if (n >= want && (fit < 0 || n < fit_n)) {
            fit = (int)r;
            fit_n = n;
        }
        if (fullest < 0 || n < fullest_n) {
            fullest = (int)r;
            fullest_n = n;
        }
    }
    return fit >= 0 ? fit : fullest;
}

/* Whether host h may take a pod now: free, and in the share if pool. */
static bool host_open(const placer *P, int h, bool pool)
{
    return P->hosts[h].used == 0 && (!pool || P->hosts[h].pool);
}

/* The next rack for whole hosts: the pool first (in the PSW of the job's
 * previous rack, then anywhere), then any rack. */
static int next_rack(const placer *P, int psw, int want, bool *pool)
{
    *pool = true;
    int r = best_rack(P, psw, true, want);
    if (r < 0)
        r = best_rack(P, -1, true, want);
    if (r >= 0)
        return r;
    *pool = false;
    r = best_rack(P, psw, false, want);
    return r >= 0 ? r : best_rack(P, -1, false, want);
}

/* A host for a sub-host pod of per GPUs: first fit on a partly used host
 * (the pool's first), else a free host of the best rack. */
static int small_pod_host(const placer *P, int per)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t x = 0; x < P->n_hosts; x++) {
            const phost *h = &P->hosts[x];
            if (h->used > 0 && h->used + per <= 8 && h->pool == (pass == 0))
                return (int)x;
        }
    bool pool;
    int r = next_rack(P, -1, 1, &pool);
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
            host_use(P, out[k], per);
        }
    }
}

/* Place pods; out[k] = host index.  false (nothing used) if it does not fit.
 * r: the draws of place_any_host, used only when !topo_aware. */
static bool place(placer *P, GRand *r, bool topo_aware, int pods, int per, int *out)
{
    int k = 0;
    if (per >= 8) {
        int free_total = 0;
        for (size_t x = 0; x < P->n_racks; x++)
            free_total += P->racks[x].free_hosts;
        if (free_total < pods)
            return false;
        if (!topo_aware) {
            place_any_host(P, r, pods, per, out);
            return true;
        }
        int psw = -1;
        while (k < pods) {
            bool pool;
            int rr = next_rack(P, psw, pods - k, &pool);
            psw = P->racks[rr].psw;
            prack *rk = &P->racks[rr];
            for (guint x = 0; x < rk->hosts->len && k < pods; x++) {
                int h = g_array_index(rk->hosts, int, x);
                if (host_open(P, h, pool)) {
                    host_use(P, h, per);
                    out[k++] = h;
                }
            }
        }
        return true;
    }
    for (; k < pods; k++) {
        int h = small_pod_host(P, per);
        if (h < 0) {
            for (int q = 0; q < k; q++)
                host_use(P, out[q], -per);
            return false;
        }
        host_use(P, h, per);
        out[k] = h;
    }
    return true;
}

static int cmp_running(gconstpointer a, gconstpointer b, gpointer data)
{
    gen *G = data;
    const gjob *x = J(G, (size_t) * (const int *)a), *y = J(G, (size_t) * (const int *)b);
    if (x->running != y->running)
        return x->running < y->running ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}


void gen__place_jobs(gen *G)
{
    placer P;
    placer_init(&P, G->topo_rows);
    placer_pool(&P, G->o.gpu_cap * G->o.scale);
    size_t n = G->jobs->len;
    g_autofree int *order = g_new(int, n);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (J(G, i)->ran && J(G, i)->gpu && !J(G, i)->outside && !J(G, i)->no_workers)
            order[m++] = (int)i;
    g_qsort_with_data(order, (gint)m, sizeof *order, cmp_running, G);
    g_autoptr(GArray) active = g_array_new(FALSE, FALSE, sizeof(int));
    for (size_t k = 0; k < m; k++) {
        gjob *j = J(G, (size_t)order[k]);
        /* release the jobs that ended */
        for (guint a = 0; a < active->len;) {
            gjob *x = J(G, (size_t)g_array_index(active, int, a));
            int64_t end = x->status == ST_RUNNING ? G->t_dump : x->finished;
            if (end <= j->running) {
                for (int p = 0; p < x->pods; p++)
                    host_use(&P, GPOINTER_TO_INT(x->hosts[x->pods + p]), -x->per_pod);
                g_array_remove_index_fast(active, a);
            } else {
                a++;
            }
        }
        g_autofree int *hs = g_new(int, j->pods);
        if (!place(&P, G->r, G->o.topo_aware, j->pods, j->per_pod, hs)) {
            j->outside = true; /* the cluster is full: the job ran elsewhere */
            g_debug("gen-trace: no room for %d x %d GPUs at %" G_GINT64_FORMAT, j->pods, j->per_pod,
                    j->running);
            continue;
        }
        /* hosts[0..pods-1]: names; hosts[pods..2 pods-1]: indices */
        j->hosts = g_new0(char *, 2 * (size_t)j->pods + 1);
        for (int p = 0; p < j->pods; p++) {
            j->hosts[p] = g_strdup(P.ips[hs[p]]);
            j->hosts[j->pods + p] = GINT_TO_POINTER(hs[p]);
        }
        int idx = order[k];
        g_array_append_val(active, idx);
    }
    /* keep only the names */
    for (size_t i = 0; i < n; i++) {
        gjob *j = J(G, i);
        if (j->hosts)
            for (int p = 0; p < j->pods; p++)
                j->hosts[j->pods + p] = NULL;
    }
    placer_clear(&P);
}

/* ---- topology ----------------------------------------------------------- */

void gen__synth_topology(GPtrArray *rows)
{
    /* Seed-independent, so traces of different seeds share one cluster. */
    g_autoptr(GRand) r = g_rand_new_with_seed(847);
    guint64 n = 0;
    for (size_t p = 0; p < G_N_ELEMENTS(synth_topo); p++) {
        const psw_racks *ps = &synth_topo[p];
        int sizes[64], k = 0;
        for (int s = 8; s >= 1; s--)
            for (int c = 0; c < ps->sizes[s]; c++)
                sizes[k++] = s;
        /* ASW labels S1..S<n>, except P8 which uses 29 labels up to S33 */
        int labels[64];
        int nl = 0;
        for (int l = 1; nl < ps->n_racks; l++)
            if (!(strcmp(ps->psw, "P8") == 0 && (l == 5 || l == 12 || l == 19 || l == 27)))
                labels[nl++] = l;
        gen__shuffle_int(r, sizes, (size_t)k);
        for (int rk = 0; rk < k; rk++)
            for (int h = 0; h < sizes[rk]; h++) {
                trace__row *row = trace__row_new(TRACE__T_NCOLS);
                gen__set(row, TRACE__T_IP, gen__hash_hex("topo-host", 0, n++));
                gen__set(row, TRACE__T_DSW, g_strdup("G6"));
                gen__set(row, TRACE__T_PSW, g_strdup(ps->psw));
                gen__set(row, TRACE__T_ASW, g_strdup_printf("S%d", labels[rk]));
                g_ptr_array_add(rows, row);
            }
    }
    /* rows are unordered in the real file */
    for (guint i = rows->len; i > 1; i--) {
        guint j = (guint)g_rand_int_range(r, 0, (gint32)i);
        gpointer t = rows->pdata[i - 1];
        rows->pdata[i - 1] = rows->pdata[j];
        rows->pdata[j] = t;
    }
    for (guint i = 0; i < rows->len; i++)
        ((trace__row *)rows->pdata[i])->line = i + 2;
}
