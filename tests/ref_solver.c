/* ref_solver.c - the tests' reference solver (ref_solver.h).
 * Not here: the engine's solver (sim/net_solve.c).
 */
#include "ref_solver.h"

#include <glib.h>
#include <math.h>
#include <stdbool.h>

static double mult_of(const ref_transfer *t, size_t k) { return t->mult ? t->mult[k] : 1.0; }

void ref_solve(size_t n_links, const double *cap, size_t n_transfers, const ref_transfer *t,
               int K, double *rates)
{
    double *used = g_new0(double, n_links);  /* load of the levels solved so far */
    double *avail = g_new(double, n_links);  /* capacity left for the level */
    double *wsum = g_new(double, n_links);   /* sum of m*w of unfrozen users */
    bool *frozen = g_new(bool, n_transfers);

    for (int L = 0; L < K; L++) {
        size_t unfrozen = 0;
        for (size_t i = 0; i < n_transfers; i++) {
            frozen[i] = t[i].prio != L;
            if (!frozen[i]) {
                rates[i] = 0;
                unfrozen++;
            }
        }
        for (size_t e = 0; e < n_links; e++) {
            avail[e] = cap[e] - used[e];
            if (avail[e] < 1e-12 * cap[e])
                avail[e] = 0;
        }
        while (unfrozen > 0) {
            /* every link's saturation level: avail / sum of unfrozen m*w */
            for (size_t e = 0; e < n_links; e++)
                wsum[e] = 0;
            for (size_t i = 0; i < n_transfers; i++)
                if (!frozen[i])
                    for (size_t k = 0; k < t[i].n_links; k++)
                        wsum[t[i].links[k]] += mult_of(&t[i], k) * t[i].weight;
            size_t best = n_links;
            double best_lambda = INFINITY;
            for (size_t e = 0; e < n_links; e++) {
                if (wsum[e] <= 0)
                    continue;
                double lambda = fmax(avail[e], 0.0) / wsum[e];
                if (lambda < best_lambda) {
                    best_lambda = lambda;
                    best = e;
                }
            }
            g_assert(best < n_links);
            /* freeze the unfrozen users of the bottleneck link */
            for (size_t i = 0; i < n_transfers; i++) {
                if (frozen[i])
                    continue;
                bool on_best = false;
                for (size_t k = 0; k < t[i].n_links; k++)
                    on_best = on_best || t[i].links[k] == best;
                if (!on_best)
                    continue;
                frozen[i] = true;
                unfrozen--;
                rates[i] = t[i].weight * best_lambda;
                for (size_t k = 0; k < t[i].n_links; k++)
                    avail[t[i].links[k]] -= mult_of(&t[i], k) * rates[i];
            }
        }
        for (size_t i = 0; i < n_transfers; i++)
            if (t[i].prio == L)
                for (size_t k = 0; k < t[i].n_links; k++)
                    used[t[i].links[k]] += mult_of(&t[i], k) * rates[i];
    }
    g_free(used);
    g_free(avail);
    g_free(wsum);
    g_free(frozen);
}
