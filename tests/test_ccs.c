/* test_ccs.c - suite "ccs": unit conversions and float comparison (base/ccs.h).
 * Not here: any engine module.
 */
#include "base/ccs.h"

#include "test_util.h"

/* 200 Gbps = 200e9 bits/s / 8 = 25e9 bytes/s; 300 GB/s = 3e11 bytes/s;
 * 1.5 us = 1.5e-6 s. */
static void test_ccs_conversions(void)
{
    TEST_ASSERT_CLOSE(ccs_gbps_to_Bps(200), 25e9, 1e-15);
    TEST_ASSERT_CLOSE(ccs_Bps_to_gbps(25e9), 200, 1e-15);
    TEST_ASSERT_CLOSE(ccs_GBps_to_Bps(300), 3e11, 1e-15);
    TEST_ASSERT_CLOSE(ccs_us_to_s(1.5), 1.5e-6, 1e-15);
    TEST_ASSERT_CLOSE(ccs_ms_to_s(36), 0.036, 1e-15);
}

/* 1e9 and 1e9 + 1 differ by 1e-9 relative: equal at 1e-8, not at 1e-10.
 * Near zero the absolute floor applies: 1e-12 vs 0 is equal at 1e-9. */
static void test_ccs_double_equals(void)
{
    CU_ASSERT_TRUE(ccs_double_equals(1e9, 1e9 + 1, 1e-8));
    CU_ASSERT_FALSE(ccs_double_equals(1e9, 1e9 + 1, 1e-10));
    CU_ASSERT_TRUE(ccs_double_equals(1e-12, 0, 1e-9));
    CU_ASSERT_FALSE(ccs_positive_finite(0));
    CU_ASSERT_FALSE(ccs_positive_finite(NAN));
    CU_ASSERT_FALSE(ccs_positive_finite(INFINITY));
    CU_ASSERT_TRUE(ccs_positive_finite(1e-300));
}

static void test_ccs_error_domain(void)
{
    GError *err = NULL;
    g_set_error(&err, CCS_ERROR, CCS_ERROR_PARSE, "%s:%d: bad", "f.csv", 3);
    CU_ASSERT_STRING_EQUAL(err->message, "f.csv:3: bad");
    TEST_ASSERT_ERROR(err, CCS_ERROR_PARSE);
    CU_ASSERT_PTR_NULL(err);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"conversions", test_ccs_conversions},
        {"double_equals", test_ccs_double_equals},
        {"error_domain", test_ccs_error_domain},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("ccs", cases);
}
