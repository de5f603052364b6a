/* test_gen_placer.c - suite "gen_placer": the synthetic generator's allocator
 * (traces/gen_placer.c) on hand-counted cases.  Not here: whole traces (test_gen.c).
 *
 * The cluster: three racks of 4 hosts under one PSW, rows in this order:
 * hosts 0-3 in rack P1/S1, 4-7 in P1/S2, 8-11 in P1/S3; a partition of
 * 96 GPUs takes all three racks (32 GPUs each).  The whole-host cases test
 * the gathering rules, so they set topo_aware (--topo-aware yes).
 */
#include "test_util.h"
#include "traces/gen-private.h"

static GPtrArray *three_racks(void)
{
    GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)trace__row_free);
    for (int h = 0; h < 12; h++) {
        trace__row *r = trace__row_new(TRACE__T_NCOLS);
        gen__set(r, TRACE__T_IP, g_strdup_printf("h%d", h));
        gen__set(r, TRACE__T_DSW, g_strdup("G6"));
        gen__set(r, TRACE__T_PSW, g_strdup("P1"));
        gen__set(r, TRACE__T_ASW, g_strdup_printf("S%d", h / 4 + 1));
        g_ptr_array_add(rows, r);
    }
    return rows;
}

/* Place pods x per on a fresh cluster where host 0 already holds a
 * whole-host pod; out[0..pods-1]. */
static bool place_after_host0(const trace_gen_options *o, int pods, int per, int *out)
{
    g_autoptr(GPtrArray) rows = three_racks();
    g_autoptr(gen_placer) P = gen__placer_new(rows, 96);
    gen__placer_use(P, 0, 8);
    return gen__placer_place(P, NULL, o, pods, per, out);
}

/* A job of 5 whole hosts fits no rack (S1 has 3 free hosts, S2 and S3 4).
 * Leftovers (the default spill): the fullest rack with a free host first, S1's
 * hosts 1, 2, 3, then the 2 left in the fullest rack that holds them, S2
 * (4 free, tied with S3, the first wins): hosts 4, 5.  So it shares S1
 * with the job on host 0.  Whole racks: the emptiest rack first, S2 (4
 * free, tied with S3): hosts 4-7, then the 1 left in the fullest rack that
 * holds it, S1: host 1. */
static void test_placer_spill(void)
{
    trace_gen_options o = trace_gen_options_default();
    o.topo_aware = true;
    int out[5];
    CU_ASSERT_TRUE_FATAL(place_after_host0(&o, 5, 8, out));
    const int leftovers[5] = {1, 2, 3, 4, 5};
    for (int k = 0; k < 5; k++)
        CU_ASSERT_EQUAL(out[k], leftovers[k]);
    o.spill_whole_racks = true;
    CU_ASSERT_TRUE_FATAL(place_after_host0(&o, 5, 8, out));
    const int whole[5] = {4, 5, 6, 7, 1};
    for (int k = 0; k < 5; k++)
        CU_ASSERT_EQUAL(out[k], whole[k]);
}

/* A job that fits a rack is gathered the same way by both rules: 3 hosts
 * go to the fullest rack that holds them, S1 (3 free): hosts 1, 2, 3. */
static void test_placer_fits_rack(void)
{
    trace_gen_options o = trace_gen_options_default();
    o.topo_aware = true;
    for (int mode = 0; mode < 2; mode++) {
        o.spill_whole_racks = mode == 1;
        int out[3];
        CU_ASSERT_TRUE_FATAL(place_after_host0(&o, 3, 8, out));
        CU_ASSERT_EQUAL(out[0], 1);
        CU_ASSERT_EQUAL(out[1], 2);
        CU_ASSERT_EQUAL(out[2], 3);
    }
}

/* Sub-host pods.  Hosts 0, 1, 2 hold 3, 6 and 1 GPUs.  A 2-GPU pod: first
 * fit takes host 0 (3 + 2 <= 8, first in row order); most allocated takes
 * host 1 (6 used, 6 + 2 = 8).  Then a 4-GPU pod: first fit, with hosts at
 * 5, 6, 1, skips host 0 (5 + 4 = 9) and host 1 (10) for host 2 (1 + 4 =
 * 5); most allocated, with hosts at 3, 8, 1, takes host 0 (3 + 4 = 7, more
 * used than host 2).  A 1-GPU pod after a release: host 1 back to 0 GPUs
 * is free again, so most allocated, with hosts at 7, 0, 1, takes host 0
 * (7 + 1 = 8). */
static void test_placer_small_pods(void)
{
    const int first_fit[3] = {0, 2, 0}, most[3] = {1, 0, 0};
    for (int mode = 0; mode < 2; mode++) {
        trace_gen_options o = trace_gen_options_default();
        o.small_most_allocated = mode == 1;
        const int *want = mode ? most : first_fit;
        g_autoptr(GPtrArray) rows = three_racks();
        g_autoptr(gen_placer) P = gen__placer_new(rows, 96);
        gen__placer_use(P, 0, 3);
        gen__placer_use(P, 1, 6);
        gen__placer_use(P, 2, 1);
        int h;
        CU_ASSERT_TRUE(gen__placer_place(P, NULL, &o, 1, 2, &h));
        CU_ASSERT_EQUAL(h, want[0]);
        CU_ASSERT_TRUE(gen__placer_place(P, NULL, &o, 1, 4, &h));
        CU_ASSERT_EQUAL(h, want[1]);
        if (mode == 1) {
            gen__placer_use(P, 1, -8);
            CU_ASSERT_TRUE(gen__placer_place(P, NULL, &o, 1, 1, &h));
            CU_ASSERT_EQUAL(h, want[2]);
        }
        CU_ASSERT_STRING_EQUAL(gen__placer_ip(P, 2), "h2");
    }
}

/* No gathering (the default, --topo-aware no): with a partition of 32 GPUs,
 * rack S1 alone (hosts 0-3), and host 0 in use, a job of 5 whole hosts
 * first takes the partition's 3 free hosts, 1, 2 and 3, in a drawn order,
 * then 2 distinct hosts drawn from the 8 outside it (4-11); every host
 * ends with 8 GPUs, so none is taken twice. */
static void test_placer_any_host(void)
{
    trace_gen_options o = trace_gen_options_default();
    CU_ASSERT_FALSE(o.topo_aware);
    g_autoptr(GPtrArray) rows = three_racks();
    g_autoptr(gen_placer) P = gen__placer_new(rows, 32);
    gen__placer_use(P, 0, 8);
    g_autoptr(GRand) r = g_rand_new_with_seed(7);
    int out[5];
    CU_ASSERT_TRUE_FATAL(gen__placer_place(P, r, &o, 5, 8, out));
    int seen[12] = {0};
    for (int k = 0; k < 5; k++) {
        CU_ASSERT_TRUE_FATAL(out[k] >= 1 && out[k] < 12);
        seen[out[k]]++;
        CU_ASSERT(k < 3 ? out[k] <= 3 : out[k] >= 4);
    }
    for (int h = 0; h < 12; h++)
        CU_ASSERT(seen[h] <= 1);
    /* 12 - 1 - 5 = 6 hosts are left free: a 7-host job does not fit and
     * uses nothing, so a 6-host job still does */
    CU_ASSERT_FALSE(gen__placer_place(P, r, &o, 7, 8, out));
    int six[6];
    CU_ASSERT_TRUE(gen__placer_place(P, r, &o, 6, 8, six));
}

/* Too few free hosts: false, nothing used (a 12-host job after host 0). */
static void test_placer_full(void)
{
    trace_gen_options o = trace_gen_options_default();
    o.topo_aware = true;
    o.spill_whole_racks = true;
    int out[12];
    CU_ASSERT_FALSE(place_after_host0(&o, 12, 8, out));
    CU_ASSERT_TRUE(place_after_host0(&o, 11, 8, out));
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"spill", test_placer_spill},
        {"fits_rack", test_placer_fits_rack},
        {"small_pods", test_placer_small_pods},
        {"any_host", test_placer_any_host},
        {"full", test_placer_full},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("gen_placer", cases);
}
