/* cli_compare.h - what cli_compare.c and cli_compare_jobs.c share: the
 * parallel runs of `ccsim compare -j N`.  Only those two include it.
 */
#ifndef CCSIM_SIM_CLI_CLI_COMPARE_H
#define CCSIM_SIM_CLI_CLI_COMPARE_H

#include "cli_sim.h"

/* Run every scheduler of names on up to jobs threads, each into
 * base/NAME, with one progress line on stderr (unless o->quiet: on a
 * terminal rewritten in place, elsewhere a line every CLI_PROGRESS_LOG_S);
 * then, in list order, fill res[i] (its warnings kept there, printed by
 * the caller once for all).  Each run gets its own configuration (from o
 * again) and topology; in's trace and catalog are shared (read only).
 * False with error (the first failing scheduler's, prefixed by its name):
 * every run's folder is removed. */
bool cli_compare_parallel(const cli_sim_opts *o, const cli_inputs *in, const GPtrArray *names,
                          const char *base, int jobs, cli_run_result *res, GError **error);

#endif /* CCSIM_SIM_CLI_CLI_COMPARE_H */
