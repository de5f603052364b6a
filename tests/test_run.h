/* test_run.h - one replay built from a scenario text, for the replay and
 * ffwd suites.  Not here: any case.
 */
#ifndef CCSIM_TESTS_TEST_RUN_H
#define CCSIM_TESTS_TEST_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "sim/config.h"
#include "sim/replay.h"
#include "topo/topo.h"
#include "traces/catalog.h"
#include "traces/trace.h"

typedef struct test_run {
    config *cfg;
    topo *t;
    trace *tr;
    catalog *cat;
    replay *r;
} test_run;

/* Free everything x holds and zero it (safe on a partly prepared run). */
void test_run_clear(test_run *x);

/* Prepare (not run) the scenario in text ("test.json" in errors); options
 * is NULL or "key", "value", ..., NULL, applied with config_set_option
 * after loading.  On failure x holds what was built: test_run_clear it. */
bool test_run_prepare(test_run *x, const char *text, const char *const *options,
                      GError **error);

/* Remove the files a replay writes (summary, jobs, timeseries, links CSV
 * and run.json) from dir, then dir itself. */
void test_run_remove_outputs(const char *dir);

/* Prepare and run text with sim.fast_forward on or off, writing into dir
 * (nullable); CUnit-asserts success. */
bool test_run_text(test_run *x, const char *text, bool ffwd, const char *dir);

/* build("approx") run on the fast path (x) and build("exact") on the
 * event path (y), the pair the approximate mode's cases compare, and their
 * summaries into s and e (each nullable) when both ran; y is zeroed
 * first, so both can be cleared whatever failed. */
bool test_run_approx_and_exact(char *(*build)(const char *steady), test_run *x, test_run *y,
                               replay_summary *s, replay_summary *e);

/* Approx run x against event path y: jobs at[0 .. n - 1] end as many
 * iterations as the event path's within the reported iteration bound, and
 * the cluster utilization is within the reported bound. */
void test_run_assert_within_bounds(const test_run *x, const test_run *y, const size_t *at,
                                   size_t n);

/* Compare two CSV files field by field: equal strings, or numbers within
 * a relative tol (summary.csv: wall time, events and memory skipped). */
void test_run_assert_csv_close(const char *d1, const char *d2, const char *name, double tol);

/* Run text with and without the fast-forward; every output must agree
 * within tol.  Returns the two event counts (either pointer may be NULL). */
void test_run_assert_same(const char *text, double tol, uint64_t *ev_ff, uint64_t *ev_plain);

/* Field `field` of line `line` of CSV file name in dir (NAN if missing). */
double test_run_csv_field(const char *dir, const char *name, int line, int field);

#endif /* CCSIM_TESTS_TEST_RUN_H */
