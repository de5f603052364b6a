/* maxmin_gen.h - the random max-min systems of SimGrid's maxmin_bench shapes,
 * drawn draw for draw as that benchmark does.  Not here: any solver.
 *
 * Shared by tests/bench_net.c (ccsim's net) and tests/bench_simgrid.cpp
 * (SimGrid's lmm), so one seed gives both the identical system.
 */
#ifndef CCSIM_TESTS_MAXMIN_GEN_H
#define CCSIM_TESTS_MAXMIN_GEN_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

G_BEGIN_DECLS

/* One generated system: constraints (links) with bounds, variables
 * (transfers) of weight 1 and no rate bound, each made of n_elem draws of a
 * constraint with coefficient 1 (a constraint drawn twice by one variable
 * has coefficient 2). */
typedef struct maxmin_sys {
    const char *shape;  /* "small", "medium", "big" or "huge" */
    int n_cnst, n_var, n_elem;
    double *bound;      /* [n_cnst], in (0, 10) */
    uint32_t *draw;     /* [n_var * n_elem]: the constraint of each draw */
    int check_first;    /* the benchmark's first printed draw ("Starting 0: (N)") */
    int check_after;    /* its draw after generation ("Starting to solve(N)") */
} maxmin_sys;

/* Generate shape SHAPE from SEED into *out (free with maxmin_sys_clear).
 * False (and nothing allocated) for an unknown shape or a drawn bound of
 * exactly 0 (probability 2^-32 per constraint). */
bool maxmin_gen(const char *shape, uint32_t seed, maxmin_sys *out);
void maxmin_sys_clear(maxmin_sys *s);

G_END_DECLS

#endif /* CCSIM_TESTS_MAXMIN_GEN_H */
