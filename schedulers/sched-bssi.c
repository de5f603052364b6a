/* sched-bssi.c - Sincronia's BSSI ordering (Sincronia §3, Algorithm 1).
 * Not here: the scheduler that uses it (sincronia.c).
 *
 * From last to first: the bottleneck port b has the largest remaining
 * demand; among the unordered coflows with demand at b, the one with the
 * smallest w_c / d_c^b goes last; every other coflow's weight drops by
 * w_s d_c^b / d_s^b (it stays >= 0 since s minimised the ratio).  Ties:
 * the lowest port index as the official simulator does, or the highest
 * (the paper's Table 2 example); coflows by lowest index (D18).
 * The rank -> level map is D12: ranks 1..K-1 distinct, the rest lowest.
 */
#include "sched-private.h"

#include <math.h>

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

void sched__bssi(size_t n, size_t n_ports, const double *d, const double *w, bool tie_high_port,
                 size_t *order)
{
    g_autofree bool *done = g_new0(bool, n ? n : 1);
    g_autofree double *wt = g_new(double, n ? n : 1);
    g_autofree double *load = g_new0(double, n_ports ? n_ports : 1);
    size_t head = 0, tail = n; /* order[0..head) zero-demand, order[tail..n) placed */
    for (size_t c = 0; c < n; c++) {
        wt[c] = w ? w[c] : 1.0;
        double tot = 0.0;
        for (size_t p = 0; p < n_ports; p++)
            tot += d[c * n_ports + p];
        if (!(tot > 0.0)) {
            done[c] = true;
            order[head++] = c;
        }
    }
    while (tail > head) {
        /* Loads from scratch each round: no drift from subtractions. */
        for (size_t p = 0; p < n_ports; p++)
            load[p] = 0.0;
        for (size_t c = 0; c < n; c++)
            for (size_t p = 0; p < n_ports && !done[c]; p++)
                load[p] += d[c * n_ports + p];
        size_t b = 0;
        for (size_t p = 1; p < n_ports; p++) {
            if (close_to(load[p], load[b]) ? tie_high_port : load[p] > load[b])
                b = p;
        }
        size_t s = n;
        double best = INFINITY;
        for (size_t c = 0; c < n; c++) {
            double dc = d[c * n_ports + b];
            if (done[c] || !(dc > 0.0))
                continue;
            double ratio = wt[c] / dc;
            if (s == n || (ratio < best && !close_to(ratio, best))) {
                s = c;
                best = ratio;
            }
        }
        g_assert(s < n); /* the bottleneck has load, so some coflow has demand */
        double ds = d[s * n_ports + b];
        for (size_t c = 0; c < n; c++) {
            if (done[c] || c == s)
                continue;
            wt[c] = fmax(0.0, wt[c] - wt[s] * d[c * n_ports + b] / ds);
        }
        done[s] = true;
        order[--tail] = s;
    }
}

void sched__rank_levels(const size_t *order, size_t n, int K, int *out_level)
{
    g_assert(K >= 1);
    for (size_t i = 0; i < n; i++)
        out_level[order[i]] = i < (size_t)K ? (int)i : K - 1;
}
