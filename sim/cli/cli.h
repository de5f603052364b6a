/* cli.h - the subcommands of the ccsim binary (main.c dispatches).
 * Not here: what run and compare share (cli_sim.h).
 *
 * Each subcommand takes the arguments after its name (argv[0] is the
 * subcommand name) and returns the process exit status: 0 ok, 1 failure,
 * 2 usage.  Only main.c and cli_*.c print or exit.
 */
#ifndef CCSIM_SIM_CLI_CLI_H
#define CCSIM_SIM_CLI_CLI_H

#include <glib.h>

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAILURE = 1, CLI_EXIT_USAGE = 2 };

typedef struct cli_command {
    const char *name;    /* as typed: "run" */
    const char *summary; /* one line for `ccsim --help` */
    int (*main)(int argc, char **argv);
} cli_command;

/* Print "ccsim: MESSAGE" on stderr (printf-style). */
void cli_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/* SIGINT/SIGTERM (cli_signal.c, the one path for every command that
 * writes).  Before either catch, the default action: death at once.
 * catch: from now on the signal is recorded; the command polls caught
 * (0: none), removes what it wrote and calls exit, which says "interrupted
 * by SIGX: WHAT" and re-raises it with its default action (it does not
 * return then; nothing when no signal came).  catch_removing: the handler
 * itself removes paths (NULL-terminated, kept valid by the caller; a path
 * ending in '/' is a folder, removed when empty) and dies at once. */
void cli_signals_catch(void);
void cli_signals_catch_removing(const char *const *paths);
/* Back to the default action (the output is whole: a signal just ends). */
void cli_signals_default(void);
int cli_signal_caught(void);
void cli_signals_exit(void);
/* The same, saying what instead of "the output was removed" (a split run
 * keeps its finished shards). */
void cli_signals_exit_saying(const char *what);

/* The subcommands, one per cli_*.c file (listed in main.c). */
int cli_version_main(int argc, char **argv);
int cli_run_main(int argc, char **argv);
int cli_compare_main(int argc, char **argv);
int cli_list_main(int argc, char **argv);
int cli_topo_main(int argc, char **argv);
int cli_optimal_gap_main(int argc, char **argv);
int cli_gen_trace_main(int argc, char **argv);
int cli_trace_main(int argc, char **argv);
int cli_demo_main(int argc, char **argv);
int cli_sweep_main(int argc, char **argv);
int cli_merge_main(int argc, char **argv);
int cli_predict_main(int argc, char **argv);
int cli_workload_main(int argc, char **argv);
int cli_export_packet_main(int argc, char **argv);

#endif /* CCSIM_SIM_CLI_CLI_H */
