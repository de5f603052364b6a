/* test_limits.c - suite "limits": the table of input ranges, strict number
 * parsing and escaping (base/limits.h), and that docs/usage.md lists the
 * same table.  Not here: the readers that apply the limits.
 */
#include "base/limits.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "ccs-config.h"
#include "test_limits.h"
#include "test_util.h"

/* Inclusive ends pass, one step outside fails; an open minimum excludes
 * itself; whole-number limits refuse fractions; NaN and inf never pass. */
static void test_limits_check(void)
{
    GError *e = NULL;
    CU_ASSERT_TRUE(ccs_limit_check(CCS_LIMIT_PRIORITY_LEVELS, 1, "--levels", &e));
    CU_ASSERT_TRUE(ccs_limit_check(CCS_LIMIT_PRIORITY_LEVELS, 64, "--levels", &e));
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_FALSE(ccs_limit_check(CCS_LIMIT_PRIORITY_LEVELS, 65, "--levels", &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "--levels: 65 is outside [1, 64] (the network engine's "
                                       "strict priority levels)");
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    CU_ASSERT_FALSE(ccs_limit_check(CCS_LIMIT_PRIORITY_LEVELS, 2.5, "k", &e));
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    CU_ASSERT_FALSE(ccs_limit_check(CCS_LIMIT_LINK_GBPS, 0, "nic_gbps", &e));
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    CU_ASSERT_TRUE(ccs_limit_check(CCS_LIMIT_LINK_GBPS, 1e-9, "nic_gbps", NULL));
    CU_ASSERT_FALSE(ccs_limit_check(CCS_LIMIT_TIME_S, NAN, "t", NULL));
    CU_ASSERT_FALSE(ccs_limit_check(CCS_LIMIT_TIME_S, INFINITY, "t", NULL));
    CU_ASSERT_FALSE(ccs_limit_check(CCS_LIMIT_TIME_S, 1e308, "t", NULL));
    g_autofree char *r = ccs_limit_range_text(CCS_LIMIT_GEN_DAYS);
    CU_ASSERT_STRING_EQUAL(r, "(0, 366]");
}

static void test_limits_parse(void)
{
    double d = 0;
    int64_t i = 0;
    const char *good[] = {"0", "-3.5", "+2", "1e6", "1E-3", ".5", "5.", "007"};
    const double want[] = {0, -3.5, 2, 1e6, 1e-3, 0.5, 5, 7};
    for (size_t k = 0; k < G_N_ELEMENTS(good); k++) {
        CU_ASSERT_TRUE(ccs_parse_double(good[k], &d));
        CU_ASSERT_EQUAL(d, want[k]);
    }
    const char *bad[] = {"", " 1", "1 ", "0x10", "inf", "nan", "1e", "e5", ".", "-", "1,5",
                         "1e999", "12abc", "--1"};
    for (size_t k = 0; k < G_N_ELEMENTS(bad); k++)
        CU_ASSERT_FALSE(ccs_parse_double(bad[k], &d));
    CU_ASSERT_TRUE(ccs_parse_int64("-42", &i));
    CU_ASSERT_EQUAL(i, -42);
    CU_ASSERT_TRUE(ccs_parse_int64("9223372036854775807", &i));
    CU_ASSERT_FALSE(ccs_parse_int64("9223372036854775808", &i)); /* INT64_MAX + 1 */
    CU_ASSERT_FALSE(ccs_parse_int64("1.0", &i));
    CU_ASSERT_FALSE(ccs_parse_int64("0x10", &i));
    CU_ASSERT_FALSE(ccs_parse_int64("1e3", &i));
}

/* ESC, NUL-free control bytes and DEL are shown as \xNN; valid UTF-8 is
 * kept; invalid UTF-8 bytes are escaped; long input is cut with "...". */
static void test_limits_escape(void)
{
    g_autofree char *a = ccs_escape("a\x1b[31mb\x7f", -1, 80);
    CU_ASSERT_STRING_EQUAL(a, "a\\x1b[31mb\\x7f");
    g_autofree char *b = ccs_escape("caf\xc3\xa9", -1, 80);
    CU_ASSERT_STRING_EQUAL(b, "caf\xc3\xa9");
    g_autofree char *c = ccs_escape("x\xff", -1, 80);
    CU_ASSERT_STRING_EQUAL(c, "x\\xff");
    g_autofree char *d = ccs_escape("a\0b", 3, 80);
    CU_ASSERT_STRING_EQUAL(d, "a\\x00b");
    g_autofree char *e = ccs_escape("abcdef", -1, 3);
    CU_ASSERT_STRING_EQUAL(e, "abc...");
}

/* docs/usage.md "Limits" holds exactly the table the code generates
 * (`ccsim list --limits`): same rows, same order, nothing else. */
static void test_limits_documented(void)
{
    g_autofree char *path = g_build_filename(CCS_SOURCE_DIR, "docs", "usage.md", NULL);
    g_autofree char *doc = NULL;
    CU_ASSERT_FATAL(g_file_get_contents(path, &doc, NULL, NULL));
    g_autofree char *want = ccs_limit_table_markdown();
    const char *start = strstr(doc, "| input | range | unit | why this bound |\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(start);
    const char *end = start;
    while (*end == '|')
        end = strchr(end, '\n') + 1; /* the table's lines all start with '|' */
    g_autofree char *got = g_strndup(start, (gsize)(end - start));
    if (strcmp(got, want) != 0)
        fprintf(stderr, "\ndocs/usage.md \"Limits\" differs from `ccsim list --limits`:\n%s\n",
                want);
    CU_ASSERT_STRING_EQUAL(got, want);
}

/* zero_ok: 0 passes below the range, a positive value below it does not. */
static void test_limits_zero_ok(void)
{
    CU_ASSERT_TRUE(ccs_limit_check(CCS_LIMIT_COMM_BYTES, 0, "b", NULL));
    CU_ASSERT_FALSE(ccs_limit_check(CCS_LIMIT_COMM_BYTES, 1e-300, "b", NULL));
    CU_ASSERT_FALSE(ccs_limit_check(CCS_LIMIT_COMM_BYTES, 0.5, "b", NULL));
    CU_ASSERT_TRUE(ccs_limit_check(CCS_LIMIT_COMM_BYTES, 1, "b", NULL));
    g_autofree char *r = ccs_limit_range_text(CCS_LIMIT_COMM_BYTES);
    CU_ASSERT_STRING_EQUAL(r, "0 or [1, 1e+15]");
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"check", test_limits_check},
        {"parse", test_limits_parse},
        {"escape", test_limits_escape},
        {"documented", test_limits_documented},
        {"zero_ok", test_limits_zero_ok},
        {"probes", test_limits_probes},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("limits", cases);
}
