/* test_util.h - helpers shared by the CUnit suites.
 * Not here: any case.
 *
 * Every suite is its own executable: main() calls test_run_suite() with the
 * suite's name and its table of cases.  The runner prints CUnit's summary
 * (scripts/test.sh adds the counts up) and exits non-zero on any failure.
 */
#ifndef CCSIM_TESTS_TEST_UTIL_H
#define CCSIM_TESTS_TEST_UTIL_H

#include <CUnit/CUnit.h>
#include <glib.h>
#include <stdbool.h>

/* Run one suite of cases (a CU_TestInfo table ending in CU_TEST_INFO_NULL);
 * returns the process exit status.  Only the cases test_selected() keeps
 * run. */
int test_run_suite(const char *suite_name, CU_TestInfo *cases);

/* Is the case to run?  $CCSIM_TEST_ONLY (comma-separated case names), when
 * set, runs only those; else $CCSIM_TEST_EXCLUDE leaves those out.  So a
 * case that needs optional data runs alone as its own meson test, which
 * can say "skipped" (exit 77) when the data is absent. */
bool test_selected(const char *case_name);

/* Assert |actual - expected| <= rel_eps * max(1, |expected|, |actual|),
 * printing both numbers and the tolerance on failure. */
#define TEST_ASSERT_CLOSE(actual, expected, rel_eps) \
    test_assert_close((actual), (expected), (rel_eps), #actual, __FILE__, __LINE__)
bool test_assert_close(double actual, double expected, double rel_eps, const char *expr,
                       const char *file, int line);

/* Assert that a call failed with a GError of domain CCS_ERROR and the given
 * code; frees the error.  Prints the message it got otherwise. */
#define TEST_ASSERT_ERROR(err, code) test_assert_error(&(err), (code), __FILE__, __LINE__)
bool test_assert_error(GError **err, int code, const char *file, int line);

/* Assert that err is NULL; prints its message otherwise (and frees it). */
#define TEST_ASSERT_NO_ERROR(err) test_assert_no_error(&(err), __FILE__, __LINE__)
bool test_assert_no_error(GError **err, const char *file, int line);

/* Path of a file in the optional data folder next to the repository
 * (read-only, never copied into it), or NULL when absent: the tests that
 * need the real Lingjun files skip without them. */
char *test_shared_data_path(const char *relative);

#endif /* CCSIM_TESTS_TEST_UTIL_H */
