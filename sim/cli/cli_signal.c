/* cli_signal.c - the one path of SIGINT and SIGTERM for every command that
 * writes: stop within a second, leave nothing half-written, die of the
 * signal (exit status 128 + N).  Not here: what each command removes
 * (output_dir_abort, the sweep's workers), the loops that poll.
 *
 * Until a command calls one of the catch functions, the signals keep
 * their default action: a command that has written nothing yet (loading
 * its inputs, generating a trace in memory, predicting, listing) dies at
 * once, which is all it has to do.  Then, one of two ways:
 *  - polled (cli_signals_catch): the handler only records the signal
 *    (nothing else is safe there); the command's loops poll
 *    cli_signal_caught() (the replay every 64 events, the sweep every
 *    50 ms), remove what they wrote as any failed run does, and call
 *    cli_signals_exit(), which says so and re-raises the signal with its
 *    default action, so the caller sees the process killed by it
 *    (cli_signals_exit_saying for another account of what is left);
 *  - removing (cli_signals_catch_removing): for a command whose output is
 *    a known list of files (gen-trace's three tables and their
 *    temporaries), the handler itself unlinks them and removes the
 *    folder if the command made it (unlink and rmdir are safe in a
 *    handler), writes the message and dies at once.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Process-wide by nature (one per process): the caught signal (0: none),
 * and in the removing mode the paths to remove (NULL-terminated; a path
 * ending in '/' is a folder to rmdir once empty). */
static volatile sig_atomic_t caught;
static const char *const *volatile removing;

static void say(const char *s) { (void)!write(STDERR_FILENO, s, strlen(s)); }

static void on_signal(int sig)
{
    caught = sig;
    const char *const *paths = removing;
    if (!paths)
        return;
    for (size_t i = 0; paths[i]; i++) {
        size_t n = strlen(paths[i]);
        if (n > 0 && paths[i][n - 1] == '/')
            rmdir(paths[i]);
        else
            unlink(paths[i]);
    }
    say(sig == SIGINT ? "ccsim: interrupted by SIGINT: the output was removed\n"
                      : "ccsim: interrupted by SIGTERM: the output was removed\n");
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: the process dies of it */
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time */
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void cli_signals_catch(void)
{
    removing = NULL;
    install();
}

void cli_signals_catch_removing(const char *const *paths)
{
    removing = paths;
    install();
    if (caught) /* came before the handler knew what to remove */
        on_signal(caught);
}

void cli_signals_default(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    removing = NULL;
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
