/* test_util.c - the CUnit runner and assertion helpers (test_util.h).
 * Not here: any case.
 */
#include "test_util.h"

#include <CUnit/Basic.h>
#include <igraph.h>
#include <math.h>
#include <stdio.h>

#include "base/ccs.h"
#include "ccs-config.h"

/* Is name in the comma-separated list of environment variable var? */
static bool listed(const char *var, const char *name)
{
    const char *v = g_getenv(var);
    if (!v)
        return false;
    g_auto(GStrv) names = g_strsplit(v, ",", -1);
    return g_strv_contains((const char *const *)names, name);
}

bool test_selected(const char *case_name)
{
    if (g_getenv("CCSIM_TEST_ONLY"))
        return listed("CCSIM_TEST_ONLY", case_name);
    return !listed("CCSIM_TEST_EXCLUDE", case_name);
}

int test_run_suite(const char *suite_name, CU_TestInfo *cases)
{
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    size_t n = 0, kept = 0;
    while (cases[n].pName)
        n++;
    g_autofree CU_TestInfo *chosen = g_new0(CU_TestInfo, n + 1);
    for (size_t i = 0; i < n; i++)
        if (test_selected(cases[i].pName))
            chosen[kept++] = cases[i];
    CU_SuiteInfo suites[] = {
        {(char *)suite_name, NULL, NULL, NULL, NULL, chosen},
        CU_SUITE_INFO_NULL,
    };
    if (CU_register_suites(suites) != CUE_SUCCESS) {
        fprintf(stderr, "cannot register suite %s: %s\n", suite_name, CU_get_error_msg());
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_tests_failed() + CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed == 0 ? 0 : 1;
}

static void record(bool ok, int line, const char *msg, const char *file)
{
    CU_assertImplementation(ok, (unsigned)line, msg, file, "", CU_FALSE);
}

bool test_assert_close(double actual, double expected, double rel_eps, const char *expr,
                       const char *file, int line)
{
    bool ok = !isnan(actual) && ccs_double_equals(actual, expected, rel_eps);
    g_autofree char *msg =
        g_strdup_printf("%s = %.17g, expected %.17g (rel tolerance %g)", expr, actual, expected,
                        rel_eps);
    if (!ok)
        fprintf(stderr, "%s:%d: %s\n", file, line, msg);
    record(ok, line, msg, file);
    return ok;
}

bool test_assert_error(GError **err, int code, const char *file, int line)
{
    bool ok = *err != NULL && g_error_matches(*err, CCS_ERROR, code);
    g_autofree char *msg = g_strdup_printf(
        "expected error code %d, got %s (%s)", code, *err ? "an error" : "no error",
        *err ? (*err)->message : "-");
    if (!ok)
        fprintf(stderr, "%s:%d: %s\n", file, line, msg);
    record(ok, line, msg, file);
    g_clear_error(err);
    return ok;
}

bool test_assert_no_error(GError **err, const char *file, int line)
{
    bool ok = *err == NULL;
    g_autofree char *msg = g_strdup_printf("unexpected error: %s", *err ? (*err)->message : "-");
    if (!ok)
        fprintf(stderr, "%s:%d: %s\n", file, line, msg);
    record(ok, line, msg, file);
    g_clear_error(err);
    return ok;
}

char *test_shared_data_path(const char *relative)
{
    char *path = g_build_filename(CCS_SOURCE_DIR, "..", "shared", "data", relative, NULL);
    if (g_file_test(path, G_FILE_TEST_EXISTS))
        return path;
    g_free(path);
    return NULL;
}
