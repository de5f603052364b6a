/* test_net_maxmin.c - "net" suite: the maxmin_bench systems of maxmin_gen.h
 * (what scripts/bench.sh times against SimGrid).  Not here: the benchmark.
 *
 * 1. The generator draws SimGrid's maxmin_bench stream draw for draw: that
 *    benchmark prints uniform_int(0, 999) once before and once after
 *    generating a system, and its tesh files (teshsuite/surf/maxmin_bench/
 *    maxmin_bench_{small,medium,large}.tesh in SimGrid 3.32) record them:
 *    seed 1: 845 then 729 (small), 353 (medium), 858 (big); seed 2: 848
 *    then 28 (small), 628 (medium); seed 3: 986 then 831 (small), 992
 *    (medium).  One draw out of place anywhere in a system moves the second
 *    number (each is a fresh 32-bit draw reduced mod 1000).
 * 2. The shape rules: n_elem = 2^base + 2^(8 max / 10) (small 2 + 2^1 = 4,
 *    medium 8 + 2^4 = 24, big 32 + 2^6 = 96), bounds in (0, 10), a
 *    constraint drawn at most twice by one variable.
 * 3. ccsim's solve of the small and medium systems equals the reference
 *    solver's (progressive filling by full scans, ref_solver.h) within
 *    1e-9 relative.
 */
#include <math.h>
#include <string.h>

#include "maxmin_gen.h"
#include "ref_solver.h"
#include "sim/net.h"
#include "test_net.h"
#include "test_util.h"

static void check_draws(const char *shape, uint32_t seed, int first, int after)
{
    maxmin_sys s;
    CU_ASSERT_TRUE_FATAL(maxmin_gen(shape, seed, &s));
    CU_ASSERT_EQUAL(s.check_first, first);
    CU_ASSERT_EQUAL(s.check_after, after);
    maxmin_sys_clear(&s);
}

static void check_rules(const char *shape, int cnst, int elem)
{
    maxmin_sys s;
    CU_ASSERT_TRUE_FATAL(maxmin_gen(shape, 1, &s));
    CU_ASSERT_EQUAL(s.n_cnst, cnst);
    CU_ASSERT_EQUAL(s.n_var, cnst);
    CU_ASSERT_EQUAL(s.n_elem, elem);
    for (int c = 0; c < s.n_cnst; c++)
        CU_ASSERT_TRUE(s.bound[c] > 0 && s.bound[c] < 10);
    g_autofree int *used = g_new(int, s.n_cnst);
    for (int v = 0; v < s.n_var; v++) {
        memset(used, 0, sizeof(int) * s.n_cnst);
        for (int j = 0; j < s.n_elem; j++)
            CU_ASSERT_TRUE(++used[s.draw[(size_t)v * s.n_elem + j]] <= 2);
    }
    maxmin_sys_clear(&s);
}

static void check_vs_reference(const char *shape)
{
    maxmin_sys s;
    CU_ASSERT_TRUE_FATAL(maxmin_gen(shape, 1, &s));
    g_autoptr(evq) q = evq_new();
    net_options o = net_options_default();
    o.prio_levels = 1;
    g_autoptr(net) n = net_new(&o, q, NULL);
    g_autofree net_transfer_id *ids = g_new(net_transfer_id, s.n_var);
    g_autofree ref_transfer *rt = g_new0(ref_transfer, s.n_var);
    g_autofree double *ref = g_new(double, s.n_var);
    for (int c = 0; c < s.n_cnst; c++)
        CU_ASSERT_TRUE_FATAL(net_link_add(n, s.bound[c], 0, NULL, NULL));
    for (int v = 0; v < s.n_var; v++) {
        const uint32_t *d = &s.draw[(size_t)v * s.n_elem];
        net_transfer_spec sp = {.size_bytes = 1e30, .links = d, .n_links = (size_t)s.n_elem,
                                .weight = 1};
        CU_ASSERT_TRUE_FATAL(net_transfer_start(n, &sp, &ids[v], NULL));
        rt[v] = (ref_transfer){.links = d, .n_links = (size_t)s.n_elem, .weight = 1};
    }
    ref_solve((size_t)s.n_cnst, s.bound, (size_t)s.n_var, rt, 1, ref);
    for (int v = 0; v < s.n_var; v++) {
        double x = net_transfer_rate_Bps(n, ids[v]);
        CU_ASSERT_TRUE(fabs(x - ref[v]) <= 1e-9 * fmax(x, ref[v]));
    }
    maxmin_sys_clear(&s);
}

void test_net_maxmin_shapes(void)
{
    check_draws("small", 1, 845, 729);
    check_draws("medium", 1, 845, 353);
    check_draws("big", 1, 845, 858);
    check_draws("small", 2, 848, 28);
    check_draws("medium", 2, 848, 628);
    check_draws("small", 3, 986, 831);
    check_draws("medium", 3, 986, 992);
    check_rules("small", 10, 4);
    check_rules("medium", 100, 24);
    check_rules("big", 2000, 96);
    maxmin_sys s;
    CU_ASSERT_FALSE(maxmin_gen("tiny", 1, &s));
    check_vs_reference("small");
    check_vs_reference("medium");
}
