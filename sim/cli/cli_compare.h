/* cli_compare.h - what cli_compare.c and cli_compare_jobs.c share: the
 * parallel runs of `ccsim compare -j N`.  Only those two include it.
 */
#ifndef CCSIM_SIM_CLI_CLI_COMPARE_H
#define CCSIM_SIM_CLI_CLI_COMPARE_H

#include "cli_sim.h"

/* Run every scheduler of names on up to jobs threads, each into
 * base/NAME, with one progress line on stderr (unless o->quiet); then, in
 * list order, fill res[i] and append its row to combined.  Each run gets
 * its own configuration (from o again) and topology; in's trace and
 * catalog are shared (read only).  False with error (the first failing
 * scheduler's, prefixed by its name): every run's folder is removed. */
bool cli_compare_parallel(const cli_sim_opts *o, const cli_inputs *in, const GPtrArray *names,
                          const char *base, int jobs, replay_summary *res, output_csv *combined,
                          GError **error);

#endif /* CCSIM_SIM_CLI_CLI_COMPARE_H */
