/* main.c - the ccsim command line: dispatch to a subcommand (docs/usage.md).
 * Not here: the subcommands (cli_*.c).
 *
 * `ccsim SUBCOMMAND [OPTIONS]`; every subcommand has --help.  Exit status:
 * 0 ok, 1 failure, 2 usage.
 */
#include <igraph.h>
#include <stdio.h>
#include <string.h>

#include "base/ccs.h"
#include "base/limits.h"
#include "cli.h"

static const cli_command commands[] = {
    {"version", "print the version and exit", cli_version_main},
    {"run", "replay a trace on a topology under one scheduler", cli_run_main},
    {"compare", "run every scheduler on one scenario and compare them", cli_compare_main},
    {"list", "list schedulers, topology builders and catalog models", cli_list_main},
    {"topo", "describe or export a topology (fat-tree, Clos, torus, Lingjun, file)", cli_topo_main},
    {"optimal-gap", "Crux §4.4: schedulers and mechanisms against exhaustive search", cli_optimal_gap_main},
    {"gen-trace", "write a synthetic Lingjun trace (job.csv, worker.csv, topo.csv)", cli_gen_trace_main},
    {"trace", "statistics of a Lingjun trace (stats) or what loading it keeps (load)", cli_trace_main},
    {"demo", "run a small built-in network engine demo", cli_demo_main},
    {"sweep", "run a parameter grid of scenarios, resumable, shardable", cli_sweep_main},
    {"merge", "merge the summaries of sweep folders or shards", cli_merge_main},
    {"predict", "predict a training iteration's time from an operator graph (MDOT)", cli_predict_main},
    {"workload", "explain one iteration of a job alone: compute, bubble, each traffic class", cli_workload_main},
    {"export-packet", "run a scenario and write it out for a packet-level simulator (ns-3)", cli_export_packet_main},
};

int cli_version_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("ccsim %s (git %s)\n", ccs_version(), ccs_git_commit());
    return CLI_EXIT_OK;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    /* messages quote input (names, fields, specs): never let its control
     * bytes or broken UTF-8 reach the terminal raw */
    g_autofree char *shown = ccs_escape(msg, -1, 4096);
    fprintf(stderr, "ccsim: %s\n", shown);
}

/* GLib's --help text is UTF-8 ("[OPTION…]"); its default printer turns
 * what the locale's charset lacks into '?' (C locale: "[OPTION?]").  Print
 * it as is in a UTF-8 locale, else with "…" written "...". */
static void print_text(const gchar *text)
{
    if (g_get_charset(NULL)) {
        fputs(text, stdout);
        return;
    }
    g_auto(GStrv) parts = g_strsplit(text, "\u2026", -1);
    g_autofree char *ascii = g_strjoinv("...", parts);
    fputs(ascii, stdout);
}

static void print_usage(FILE *out)
{
    fprintf(out,
            "Usage: ccsim COMMAND [OPTIONS]\n"
            "\n"
            "ccsim replays GPU training cluster traces on a flow-level network model\n"
            "and compares communication schedulers by GPU utilization.\n"
            "\n"
            "Commands:\n");
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "Options:\n"
            "  -h, --help     show this help\n"
            "  -V, --version  show the version\n"
            "\n"
            "Run `ccsim COMMAND --help` for the options of a command.\n");
}

int main(int argc, char **argv)
{
    /* igraph's default handler aborts the process; topo/ turns igraph error
     * codes into GErrors instead. */
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
    g_set_print_handler(print_text);

    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "-V") == 0 || strcmp(name, "--version") == 0)
        return cli_version_main(argc - 1, argv + 1);
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].main(argc - 1, argv + 1);
    cli_error("unknown command '%s' (see `ccsim --help`)", name);
    return CLI_EXIT_USAGE;
}
