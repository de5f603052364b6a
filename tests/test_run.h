/* test_run.h - one replay built from a scenario text, for the replay and
 * ffwd suites.  Not here: any case.
 */
#ifndef CCSIM_TESTS_TEST_RUN_H
#define CCSIM_TESTS_TEST_RUN_H

#include <stdbool.h>

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

#endif /* CCSIM_TESTS_TEST_RUN_H */
