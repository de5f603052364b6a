/* cli_run.c - `ccsim run`: one scenario under one scheduler (docs/usage.md).
 * Not here: options, inputs and the run shared with compare (cli_sim.c).
 *
 * With no arguments it replays the bundled sample trace on its own
 * topology under ecmp and writes results/default_..._ecmp_HASH/ (cli_out.c).
 */
#include <stdio.h>

#include "base/ccs.h"
#include "cli.h"
#include "cli_sim.h"

int cli_run_main(int argc, char **argv)
{
    cli_sim_opts o = {0};
    g_autofree GOptionEntry *entries = cli_sim_entries(&o, false);
    g_autoptr(GOptionContext) ctx = g_option_context_new("- replay a trace under one scheduler");
    g_option_context_set_summary(ctx,
                                 "Replays a trace on a topology under a scheduler and writes "
                                 "summary.csv, jobs.csv,\ntimeseries.csv, links.csv and run.json. "
                                 "Options override the scenario file.\nWithout arguments: the "
                                 "bundled default, built into the binary: the 1-day sample "
                                 "trace\n(trace \"(default)\") on its own topology "
                                 "lingjun-sample (847 hosts, 6,776 GPUs)\nunder ecmp, over the "
                                 "2 hours around its peak GPU demand.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    o.shard_only = -1;
    o.jobs = 1;
    const GOptionEntry extra[] = {
        {"progress-file", 0, 0, G_OPTION_ARG_FILENAME, &o.progress_file,
         "keep \"NOW_S START_S END_S\" of the run in FILE while it runs (ccsim sweep's ETA)",
         "FILE"},
        {"shards", 0, 0, G_OPTION_ARG_STRING, &o.shards,
         "split the window in N consecutive time shards, each simulated after a warm-up, run "
         "side by side (-j) and merged into one run's outputs; resumable (sim.shards, default "
         "1; docs/cluster.md)",
         "N"},
        {"shard-warmup", 0, 0, G_OPTION_ARG_STRING, &o.shard_warmup,
         "a shard's warm-up, in iterations alone of the slowest job running at its start "
         "(sim.shard_warmup, default " G_STRINGIFY(CONFIG_SHARD_WARMUP) ")",
         "M"},
        {"jobs", 'j', 0, G_OPTION_ARG_INT, &o.jobs,
         "with --shards: run up to N shards at once, one thread each (default 1; 0: one per CPU)",
         "N"},
        {"shard-only", 0, 0, G_OPTION_ARG_INT, &o.shard_only,
         "with --shards: run only shard K (0-based) into OUT/shards/K, no merge (a Slurm array "
         "task; the run merges once every shard is there)",
         "K"},
        G_OPTION_ENTRY_NULL};
    g_option_context_add_main_entries(ctx, extra, NULL);
    GError *e = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &e)) {
        cli_error("run: %s", e->message);
        g_error_free(e);
        cli_sim_opts_clear(&o);
        return CLI_EXIT_USAGE;
    }
    g_autofree char *pdir = o.progress_file ? g_path_get_dirname(o.progress_file) : NULL;
    if (argc > 1 || (o.out && !*o.out) || (pdir && !g_file_test(pdir, G_FILE_TEST_IS_DIR))) {
        if (argc > 1)
            cli_error("run: unexpected argument '%s' (see `ccsim run --help`)", argv[1]);
        else if (o.out && !*o.out)
            cli_error("--out: an empty folder name");
        else /* the progress would be lost in silence */
            cli_error("--progress-file: %s: no such folder", pdir);
        cli_sim_opts_clear(&o);
        return CLI_EXIT_USAGE;
    }
    bool usage = false;
    g_autoptr(config) cfg = cli_sim_config(&o, &usage, &e);
    if (!cfg) {
        cli_error("%s", e->message);
        g_error_free(e);
        cli_sim_opts_clear(&o);
        return usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
    }
    g_auto(timeline_options) tlo = {0};
    bool want_tl = false;
    if (!cli_timeline_options(&o, cfg, &tlo, &want_tl, &usage, &e)) {
        cli_error("%s", e->message);
        g_error_free(e);
        cli_sim_opts_clear(&o);
        return usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
    }
    g_autofree char *refusal = cli_shards_refusal(&o, cfg, want_tl);
    if (refusal) {
        cli_error("%s", refusal);
        cli_sim_opts_clear(&o);
        return CLI_EXIT_USAGE;
    }
    cli_inputs in;
    if (!cli_inputs_load(cfg, &in, &e)) {
        cli_error("%s", e->message);
        g_error_free(e);
        cli_inputs_clear(&in);
        cli_sim_opts_clear(&o);
        return CLI_EXIT_FAILURE;
    }
    if (want_tl && !cli_timeline_jobs_check(&o, cfg, &tlo, in.tr, &usage, &e)) {
        cli_error("%s", e->message);
        g_error_free(e);
        cli_inputs_clear(&in);
        cli_sim_opts_clear(&o);
        return usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
    }
    cli_default_window(cfg, &in);
    in.timeline = want_tl ? &tlo : NULL;
    g_autoptr(GPtrArray) one = g_ptr_array_new();
    g_ptr_array_add(one, cfg->scheduler);
    g_autofree char *out =
        o.out ? g_strdup(o.out) : cli_default_out(cfg, in.topo_spec, one, false);
    if (cfg->sim.shards > 1 || o.shard_only >= 0) {
        cli_signals_catch(); /* the shards poll it (cli_run_one) */
        int st = cli_run_shards(&o, cfg, &in, out);
        cli_inputs_clear(&in);
        cli_sim_opts_clear(&o);
        return st;
    }
    cli_run_result res = {0};
    /* until now a signal kills at once (nothing written); from here it
     * stops the run, which removes its output (cli_signal.c) */
    cli_signals_catch();
    output_dir *d = output_dir_open_new(out, o.force, o.scenario, &e);
    bool ok = d && cli_run_one(cfg, &in, d, o.quiet, o.progress_file, &res, &e);
    const replay_summary *s = &res.s;
    int status = CLI_EXIT_OK;
    if (!ok && cli_signal_caught()) /* the output is gone: die of the signal now (the
                                        * memory goes with the process, freeing it is slow) */
        cli_signals_exit();
    if (!ok) {
        cli_error("%s", e->message);
        g_error_free(e);
        status = CLI_EXIT_FAILURE;
    } else {
        cli_run_warnings_print(&res, 1);
        printf("%s on %s: %zu jobs, %zu GPUs, GPU utilization %.4f (cluster) %.4f (allocated), "
               "mean slowdown %.4f, %lld iterations, %llu events, %.2f s wall\n",
               s->scheduler, topo_name(in.t), s->jobs, s->gpus_total, s->gpu_util_cluster_frac,
               s->gpu_util_allocated_frac, s->mean_slowdown, (long long)s->iterations,
               (unsigned long long)s->events, s->wall_s);
        printf("results in %s/\n", out);
    }
    cli_run_result_clear(&res);
    cli_inputs_clear(&in);
    cli_sim_opts_clear(&o);
    return status;
}
