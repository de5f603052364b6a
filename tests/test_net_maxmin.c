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
 * 4. (test_net_fill_stop) the fill stops once every transfer is frozen, with
 *    links still on its heap; their residuals stay right for what follows.
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

/* Links A (10 B/s), X (100 B/s), Y (30 B/s); a and b on {A, X}, c on {X, Y}.
 * The fill: A saturates at lambda = 10 / 2 = 5 (X's 100 / 3 = 33.3 is
 * later; Y is c's alone: bound 30): a = b = 5.  X then has 100 - 10 = 90
 * for c alone (90 > Y's 30): c's bound 30 is next, c = 30, and X's entry is
 * left on the heap.  X carries 5 + 5 + 30 = 40.  d starts on {X}: X was
 * slack, so a, b and c stay outside at their rates and d is filled alone on
 * 100 - 40 = 60: d = 60; X saturates but its outside users' largest x/w
 * (30) is below d's (60), so nothing joins: 1 transfer re-solved. */
void test_net_fill_stop(void)
{
    g_autoptr(evq) q = evq_new();
    net_options o = net_options_default();
    o.prio_levels = 1;
    g_autoptr(net) n = net_new(&o, q, NULL);
    net_link_id A, X, Y;
    CU_ASSERT_TRUE_FATAL(net_link_add(n, 10, 0, &A, NULL));
    CU_ASSERT_TRUE_FATAL(net_link_add(n, 100, 0, &X, NULL));
    CU_ASSERT_TRUE_FATAL(net_link_add(n, 30, 0, &Y, NULL));
    const net_link_id ax[] = {A, X}, xy[] = {X, Y};
    net_transfer_spec sp = {.size_bytes = 1e30, .links = ax, .n_links = 2, .weight = 1};
    net_transfer_id a, b, c, d;
    CU_ASSERT_TRUE_FATAL(net_transfer_start(n, &sp, &a, NULL));
    CU_ASSERT_TRUE_FATAL(net_transfer_start(n, &sp, &b, NULL));
    sp.links = xy;
    CU_ASSERT_TRUE_FATAL(net_transfer_start(n, &sp, &c, NULL));
    net_flush(n);
    CU_ASSERT_DOUBLE_EQUAL(net_transfer_rate_Bps(n, a), 5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(net_transfer_rate_Bps(n, b), 5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(net_transfer_rate_Bps(n, c), 30, 1e-12);
    net_stats before, after;
    net_stats_get(n, &before);
    sp.links = &X;
    sp.n_links = 1;
    CU_ASSERT_TRUE_FATAL(net_transfer_start(n, &sp, &d, NULL));
    net_flush(n);
    net_stats_get(n, &after);
    CU_ASSERT_EQUAL(after.resolved_transfers - before.resolved_transfers, 1);
    CU_ASSERT_DOUBLE_EQUAL(net_transfer_rate_Bps(n, d), 60, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(net_transfer_rate_Bps(n, c), 30, 1e-12);
}
