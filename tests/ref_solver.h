/* ref_solver.h - a deliberately simple rate solver, only for the tests.
 * Not here: the incremental engine it checks (sim/net_solve.c).
 *
 * Same model as sim/net.h: strict priority levels 0..K-1 (0 highest), within
 * a level weighted max-min by progressive filling on the capacity the higher
 * levels leave.  No incremental state, no heap: each round scans every link
 * for the smallest saturation level.  O(K * rounds * elements).
 */
#ifndef CCSIM_TESTS_REF_SOLVER_H
#define CCSIM_TESTS_REF_SOLVER_H

#include <stddef.h>
#include <stdint.h>

typedef struct ref_transfer {
    const uint32_t *links; /* link indices; a link may repeat (uses add up) */
    const uint32_t *mult;  /* multiplicity per entry, NULL = all 1 */
    size_t n_links;
    int prio;      /* 0..K-1 */
    double weight; /* > 0 */
} ref_transfer;

/* rates[i] = the rate of transfer i (B/s), given link capacities cap[e]. */
void ref_solve(size_t n_links, const double *cap, size_t n_transfers, const ref_transfer *t,
               int K, double *rates);

#endif /* CCSIM_TESTS_REF_SOLVER_H */
