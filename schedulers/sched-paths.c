/* sched-paths.c - least-congested path selection and TACCL* hop classes.
 * Not here: the schedulers that use them (crux.c, taccl.c).
 *
 * Crux §4.1 gives each job, from the most to the least GPU-intensive, "the
 * least congested path"; TACCL* (Crux §6.3) does the same in arrival order.
 * Neither defines congestion.  D9: a flow of rate r on candidate p costs
 * max_{e in p} (load_e + r)/B_e, the utilization of the most loaded link it
 * would cross; ties by the sum of that ratio over p (shorter, emptier
 * paths), then the lowest candidate index (D18).
 */
#include "sched-private.h"

#include <math.h>
#include <stdlib.h>

static void path_cost(const double *cap_Bps, const double *load_Bps, const sched__cand *c,
                      double r, double *max_out, double *sum_out)
{
    double mx = 0.0, sum = 0.0;
    for (size_t i = 0; i < c->n_links; i++) {
        uint32_t e = c->links[i];
        double u = (load_Bps[e] + r) / cap_Bps[e];
        if (u > mx)
            mx = u;
        sum += u;
    }
    *max_out = mx;
    *sum_out = sum;
}

/* a < b beyond rounding noise. */
static bool less(double a, double b)
{
    return a < b - 1e-12 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

void sched__path_select(const double *cap_Bps, double *load_Bps, const sched__pflow *flows,
                        const size_t *order, size_t n_flows, size_t *out_path)
{
    for (size_t i = 0; i < n_flows; i++) {
        size_t f = order[i];
        const sched__pflow *fl = &flows[f];
        g_assert(fl->n_paths >= 1);
        size_t best = 0;
        double best_max, best_sum;
        path_cost(cap_Bps, load_Bps, &fl->paths[0], fl->rate_Bps, &best_max, &best_sum);
        for (size_t p = 1; p < fl->n_paths; p++) {
            double mx, sum;
            path_cost(cap_Bps, load_Bps, &fl->paths[p], fl->rate_Bps, &mx, &sum);
            if (less(mx, best_max) || (!less(best_max, mx) && less(sum, best_sum))) {
                best = p;
                best_max = mx;
                best_sum = sum;
            }
        }
        out_path[f] = best;
        const sched__cand *c = &fl->paths[best];
        for (size_t k = 0; k < c->n_links; k++)
            load_Bps[c->links[k]] += fl->rate_Bps;
    }
}

static int cmp_size_desc(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x < y) - (x > y);
}

void sched__hop_levels(const size_t *hops, size_t n, int K, int *out_level)
{
    g_assert(K >= 1);
    if (n == 0)
        return;
    g_autofree size_t *sorted = g_new(size_t, n);
    for (size_t i = 0; i < n; i++)
        sorted[i] = hops[i];
    qsort(sorted, n, sizeof *sorted, cmp_size_desc);
    size_t n_distinct = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || sorted[i] != sorted[i - 1])
            sorted[n_distinct++] = sorted[i];
    for (size_t i = 0; i < n; i++) {
        size_t cls = 0;
        while (sorted[cls] != hops[i])
            cls++;
        out_level[i] = cls < (size_t)K ? (int)cls : K - 1;
    }
}
