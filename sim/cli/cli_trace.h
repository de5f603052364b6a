/* cli_trace.h - what `ccsim trace` shares between its files.  Not here:
 * the other subcommands (cli.h).
 */
#ifndef CCSIM_SIM_CLI_CLI_TRACE_H
#define CCSIM_SIM_CLI_CLI_TRACE_H

#include <glib.h>
#include <stdbool.h>

#include "topo/topo.h"
#include "traces/trace.h"

/* The options of `trace stats --exposure` as typed (NULL: the default). */
typedef struct cli_trace_exposure_opts {
    const char *placement, *seed, *gpu, *start, *end;
    const char *job_model; /* "flat" or "structured" only; NULL: both */
} cli_trace_exposure_opts;

/* The exposed-communication share of tr placed on t (cli_trace_exposure.c):
 * printed when print, appended to csv (section "exposure").  Returns an
 * exit status. */
int cli_trace_exposure(const cli_trace_exposure_opts *o, topo *t, const trace *tr, GString *csv,
                       bool print);

#endif /* CCSIM_SIM_CLI_CLI_TRACE_H */
