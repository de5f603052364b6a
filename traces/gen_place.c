/* gen_place.c - where the synthetic jobs run (docs/traces.md): hosts, placement
 * in time order, the synthetic topology.  Not here: the job population
 * (gen.c), the allocator's rules (gen_placer.c).
 *
 * Where the synthetic jobs run: whole jobs outside topo.csv, calibrated so
 * 86.3% of the worker rows match it; in-topo GPU jobs placed in order of
 * start by the production-like allocator, GPUs released at each job's
 * end; the synthetic topology.
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
    g_autoptr(gen_placer) P = gen__placer_new(G->topo_rows, G->o.gpu_cap * G->o.scale);
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
                    gen__placer_use(P, GPOINTER_TO_INT(x->hosts[x->pods + p]), -x->per_pod);
                g_array_remove_index_fast(active, a);
            } else {
                a++;
            }
        }
        g_autofree int *hs = g_new(int, j->pods);
        if (!gen__placer_place(P, G->r, &G->o, j->pods, j->per_pod, hs)) {
            j->outside = true; /* the cluster is full: the job ran elsewhere */
            g_debug("gen-trace: no room for %d x %d GPUs at %" G_GINT64_FORMAT, j->pods, j->per_pod,
                    j->running);
            continue;
        }
        /* hosts[0..pods-1]: names; hosts[pods..2 pods-1]: indices */
        j->hosts = g_new0(char *, 2 * (size_t)j->pods + 1);
        for (int p = 0; p < j->pods; p++) {
            j->hosts[p] = g_strdup(gen__placer_ip(P, hs[p]));
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
