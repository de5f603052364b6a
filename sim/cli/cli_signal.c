/* cli_signal.c - SIGINT and SIGTERM during `ccsim run`, `compare` and
 * `gen-trace`: note the signal, let the command stop and remove its output,
 * then die of it.
 * Not here: the sweep's own handling (cli_sweep.c), the cleanup itself
 * (output_dir_abort).
 *
 * The handler only records the signal (nothing else is safe in a signal
 * handler); the replay's watcher sees it within a quarter of an output
 * interval of simulated time, the run is aborted like any failed run, and
 * cli_signals_exit() re-raises the signal with its default action so the
 * caller sees the process killed by it (status 128 + N), as without us.
 */
#include <signal.h>
#include <string.h>

#include "cli.h"

/* The caught signal, 0 for none: process-wide by nature (one per process). */
static volatile sig_atomic_t caught;

static void on_signal(int sig) { caught = sig; }

void cli_signals_catch(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int cli_signal_caught(void) { return caught; }

void cli_signals_exit(void) { cli_signals_exit_saying("the output was removed"); }

void cli_signals_exit_saying(const char *what)
{
    int sig = caught;
    if (sig == 0)
        return;
    cli_error("interrupted by %s: %s", sig == SIGINT ? "SIGINT" : "SIGTERM", what);
    signal(sig, SIG_DFL);
    raise(sig);
}
