/* cli_export_packet.c - `ccsim export-packet SCENARIO -o DIR`: run a
 * scenario and write it out for a packet-level simulator (docs/validation.md,
 * "Packet-level cross-check").  Not here: the export (sim/export_packet.c).
 *
 * The output folder holds the run's usual results (the flow-level side of
 * the cross-check) and the packet_*.csv files the ns-3 replayer reads.
 */
#include <stdio.h>

#include "base/ccs.h"
#include "cli.h"
#include "cli_sim.h"
#include "schedulers/registry.h"
#include "sim/export_packet.h"

/* Replay cfg with an exporter into a new folder out. */
static bool export_run(const config *cfg, cli_inputs *in, const char *out, bool force,
                       const char *scenario, replay_summary *s, GError **error)
{
    const sched_ops *ops = sched_registry_lookup(cfg->scheduler, error);
    if (!ops)
        return false;
    g_autoptr(replay) r = replay_new(cfg, ops, in->t, in->tr, in->cat, error);
    if (!r)
        return false;
    cli_signals_catch(); /* from here a signal stops the run, which removes its output */
    output_dir *d = output_dir_open_new(out, force, scenario, error);
    if (!d)
        return false;
    replay_set_stop(r, cli_stop_if_signalled, NULL);
    g_autoptr(export_packet) x = export_packet_new(r, d, error);
    bool ok = x && replay_run(r, d, NULL, NULL, error) && !cli_signal_caught() &&
              export_packet_finish(x, error) && !cli_signal_caught();
    if (!ok) {
        output_dir_abort(d);
        cli_signals_exit(); /* the output is gone: die of the signal (if one came) */
        return false;
    }
    replay_get_summary(r, s);
    return output_dir_commit(d, error);
}

/* The command with o to fill; its exit status. */
static int export_main(cli_sim_opts *o, int argc, char **argv)
{
    g_autofree GOptionEntry *entries = cli_sim_entries(o, false);
    g_autoptr(GOptionContext) ctx = g_option_context_new("SCENARIO -o DIR - write a run out "
                                                         "for a packet-level simulator");
    g_option_context_set_summary(
        ctx, "Replays SCENARIO (or --scenario FILE) like `ccsim run`, with fast-forward off,\n"
             "and writes beside its results the packet_*.csv files the ns-3 replayer\n"
             "(validate/ns3) reads: nodes, links, each job's iteration as flows with their\n"
             "bytes, connections with the ECMP hash input, routes, priorities and\n"
             "dependencies, and ccsim_transfers.csv (every transfer the engine ran).\n"
             "Formats: docs/validation.md.  Not for the ideal scheduler nor for schedulers\n"
             "that decide at every communication phase (sincronia-online, cassini).");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) e = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &e)) {
        cli_error("export-packet: %s", e->message);
        return CLI_EXIT_USAGE;
    }
    if (argc > 2 || (argc == 2 && o->scenario)) {
        cli_error("export-packet: unexpected argument '%s' (see `ccsim export-packet --help`)",
                  argv[argc - 1]);
        return CLI_EXIT_USAGE;
    }
    if (argc == 2)
        o->scenario = g_strdup(argv[1]);
    if (!o->scenario || !o->out) {
        cli_error("export-packet: give a SCENARIO and -o DIR (see `ccsim export-packet --help`)");
        return CLI_EXIT_USAGE;
    }
    if (!*o->out) {
        cli_error("export-packet: --out: an empty folder name");
        return CLI_EXIT_USAGE;
    }
    bool usage = false;
    g_autoptr(config) cfg = cli_sim_config(o, &usage, &e);
    if (!cfg) {
        cli_error("%s", e->message);
        return usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
    }
    cli_inputs in;
    replay_summary s;
    bool ok = cli_inputs_load(cfg, &in, &e) &&
              export_run(cfg, &in, o->out, o->force, o->scenario, &s, &e);
    cli_inputs_clear(&in);
    if (!ok) {
        cli_error("%s", e->message);
        return CLI_EXIT_FAILURE;
    }
    printf("%s: %zu jobs, GPU utilization %.4f (allocated), %.2f s wall; export in %s/\n",
           s.scheduler, s.jobs, s.gpu_util_allocated_frac, s.wall_s, o->out);
    return CLI_EXIT_OK;
}

int cli_export_packet_main(int argc, char **argv)
{
    cli_sim_opts o = {0};
    int status = export_main(&o, argc, argv);
    cli_sim_opts_clear(&o);
    return status;
}
