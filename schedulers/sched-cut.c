/* sched-cut.c - Crux's priority compression as a max K-cut (Crux §4.3).
 * Not here: the scheduler that uses it (crux.c).
 *
 * The contention DAG has an edge u -> v of weight I_u when u and v share a
 * link and P_u > P_v (D6).  Splitting a topological order a_1..a_n into K
 * consecutive blocks is always a valid compression (Theorem 2) and every
 * valid one arises so from some order (Theorem 3).  Per order an exact DP:
 *   C(j, i) = weight from {a_1..a_j} into {a_j+1..a_i}
 *           = S[j][i] - S[j][j],  S the 2-D prefix sums of w in that order,
 *   f[k][i] = max(f[k-1][i], max_{j<i} f[k-1][j] + C(j, i)),
 * the first term allowing empty levels (D7).  Crux draws m = 10 random
 * BFS (Kahn) orders; we add the P-sorted order first, so the result is
 * never worse than the plain sorted split.  The paper's quadrangle
 * inequality shortcut is unproven and not needed for n ~ 30.
 */
#include "sched-private.h"

#include <math.h>

double sched__cut_dp(size_t n, const double *w, const size_t *order, int K, int *out_level)
{
    g_assert(K >= 1);
    if (n == 0)
        return 0.0;
    size_t n1 = n + 1;
    g_autofree double *S = g_new0(double, n1 * n1);
    for (size_t x = 1; x <= n; x++)
        for (size_t y = 1; y <= n; y++)
            S[x * n1 + y] = w[order[x - 1] * n + order[y - 1]] + S[(x - 1) * n1 + y] +
                            S[x * n1 + y - 1] - S[(x - 1) * n1 + y - 1];
    size_t Kn = (size_t)K;
    g_autofree double *f = g_new(double, (Kn + 1) * n1);
    g_autofree size_t *arg = g_new(size_t, (Kn + 1) * n1);
    for (size_t i = 0; i <= n; i++)
        f[i] = i == 0 ? 0.0 : -INFINITY;
    for (size_t k = 1; k <= Kn; k++) {
        for (size_t i = 0; i <= n; i++) {
            double best = f[(k - 1) * n1 + i];
            size_t best_j = i; /* empty level */
            for (size_t j = 0; j < i; j++) {
                double prev = f[(k - 1) * n1 + j];
                if (prev == -INFINITY)
                    continue;
                double v = prev + S[j * n1 + i] - S[j * n1 + j];
                if (best == -INFINITY || v > best + 1e-12 * fmax(1.0, fabs(best))) {
                    best = v;
                    best_j = j;
                }
            }
            f[k * n1 + i] = best;
            arg[k * n1 + i] = best_j;
        }
    }
    /* Backtrack: blocks come out last first; count them, then number. */
    g_autofree size_t *block_of = g_new(size_t, n);
    size_t n_blocks = 0;
    for (size_t k = Kn, i = n; k >= 1 && i > 0; k--) {
        size_t j = arg[k * n1 + i];
        if (j == i)
            continue;
        for (size_t p = j; p < i; p++)
            block_of[p] = n_blocks;
        n_blocks++;
        i = j;
    }
    for (size_t p = 0; p < n; p++)
        out_level[order[p]] = (int)(n_blocks - 1 - block_of[p]);
    return f[Kn * n1 + n];
}

void sched__kahn_random(size_t n, const double *w, GRand *rng, size_t *order)
{
    g_autofree size_t *indeg = g_new0(size_t, n);
    g_autofree size_t *avail = g_new(size_t, n);
    size_t n_avail = 0;
    for (size_t u = 0; u < n; u++)
        for (size_t v = 0; v < n; v++)
            if (w[u * n + v] > 0.0)
                indeg[v]++;
    for (size_t v = 0; v < n; v++)
        if (indeg[v] == 0)
            avail[n_avail++] = v;
    for (size_t out = 0; out < n; out++) {
        g_assert(n_avail > 0); /* acyclic */
        size_t pick = (size_t)g_rand_int_range(rng, 0, (gint32)n_avail);
        size_t u = avail[pick];
        avail[pick] = avail[--n_avail];
        order[out] = u;
        for (size_t v = 0; v < n; v++)
            if (w[u * n + v] > 0.0 && --indeg[v] == 0)
                avail[n_avail++] = v;
    }
}

double sched__compress(size_t n, const double *w, const size_t *first_order, int K, size_t m,
                       GRand *rng, int *out_level)
{
    double best = sched__cut_dp(n, w, first_order, K, out_level);
    g_autofree size_t *order = g_new(size_t, n ? n : 1);
    g_autofree int *level = g_new(int, n ? n : 1);
    for (size_t it = 0; it < m && n > 1; it++) {
        sched__kahn_random(n, w, rng, order);
        double v = sched__cut_dp(n, w, order, K, level);
        if (v > best + 1e-12 * fmax(1.0, fabs(best))) {
            best = v;
            for (size_t u = 0; u < n; u++)
                out_level[u] = level[u];
        }
    }
    return best;
}
