/* cli_compare.c - `ccsim compare`: every scheduler on one scenario (docs/usage.md).
 * Not here: options, inputs and one run shared with run (cli_sim.c).
 *
 * `ccsim compare`: every scheduler (or --scheds) on one scenario; an aligned
 * table on stdout with each scheduler's GPU utilization, slowdown and gain
 * over ecmp; one output folder per scheduler under OUT and a combined
 * OUT/summary.csv (docs/usage.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/ccs.h"
#include "base/limits.h"
#include "cli.h"
#include "cli_compare.h"
#include "cli_sim.h"
#include "schedulers/registry.h"

static int fail(cli_sim_opts *o, GError *e, int status)
{
    if (cli_signal_caught()) { /* the output is gone: die of the signal */
        g_error_free(e);
        cli_sim_opts_clear(o);
        cli_signals_exit();
    }
    cli_error("%s", e->message);
    g_error_free(e);
    cli_sim_opts_clear(o);
    return status;
}

static void print_pct(double x)
{
    if (isfinite(x))
        printf(" %+9.2f%%", 100.0 * x);
    else
        printf(" %10s", "-");
}

/* Why name cannot join the --scheds list names, or NULL. (transfer full) */
static char *scheds_refusal(const GPtrArray *names, const char *name)
{
    g_autofree char *shown = ccs_escape(name, -1, 80);
    if (!*name)
        return g_strdup("an empty scheduler name (two commas in a row?)");
    if (!sched_registry_find(name))
        return g_strdup_printf("unknown scheduler '%s' (see `ccsim list`)", shown);
    if (g_ptr_array_find_with_equal_func((GPtrArray *)names, name, g_str_equal, NULL))
        return g_strdup_printf("scheduler '%s' named twice (the two runs would share one "
                               "folder)", shown);
    return NULL;
}

int cli_compare_main(int argc, char **argv)
{
    cli_sim_opts o = {0};
    g_autofree GOptionEntry *entries = cli_sim_entries(&o, true);
    g_autoptr(GOptionContext) ctx = g_option_context_new("- compare schedulers on one scenario");
    g_option_context_set_summary(ctx,
                                 "Runs each scheduler on the same scenario (same trace, "
                                 "topology, seed) and prints\nGPU utilization and slowdown per "
                                 "scheduler with the gain over ecmp.\nWithout arguments: the "
                                 "bundled default, built into the binary (the 1-day sample "
                                 "trace\non its own topology lingjun-sample, the 2 hours around "
                                 "its peak) and every\nregistered scheduler.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    const GOptionEntry par[] = {
        {"jobs", 'j', 0, G_OPTION_ARG_INT, &o.jobs,
         "run up to N schedulers at once, one thread each (default 1; 0: one per CPU)", "N"},
        G_OPTION_ENTRY_NULL};
    g_option_context_add_main_entries(ctx, par, NULL);
    o.jobs = 1;
    GError *e = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &e))
        return fail(&o, e, CLI_EXIT_USAGE);
    if (o.jobs < 0 || o.jobs > 256) {
        cli_error("compare: -j must be in 0..256, got %d", o.jobs);
        cli_sim_opts_clear(&o);
        return CLI_EXIT_USAGE;
    }
    if (o.jobs == 0)
        o.jobs = (int)MAX(1, g_get_num_processors());
    if (argc > 1) {
        cli_error("compare: unexpected argument '%s' (see `ccsim compare --help`)", argv[1]);
        cli_sim_opts_clear(&o);
        return CLI_EXIT_USAGE;
    }
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    if (o.scheds) {
        g_auto(GStrv) v = g_strsplit(o.scheds, ",", -1);
        for (char **p = v; *p; p++) {
            g_strstrip(*p);
            g_autofree char *why = scheds_refusal(names, *p);
            if (why) {
                cli_error("--scheds: %s", why);
                cli_sim_opts_clear(&o);
                return CLI_EXIT_USAGE;
            }
            g_ptr_array_add(names, g_strdup(*p));
        }
    } else {
        for (size_t i = 0; i < sched_registry_count(); i++)
            g_ptr_array_add(names, g_strdup(sched_registry_get(i)->name));
    }
    if (names->len == 0) {
        cli_error("--scheds: no scheduler named");
        cli_sim_opts_clear(&o);
        return CLI_EXIT_USAGE;
    }
    cli_signals_catch();
    bool usage = false;
    g_autoptr(config) cfg = cli_sim_config(&o, &usage, &e);
    if (!cfg)
        return fail(&o, e, usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE);
    g_auto(timeline_options) tlo = {0};
    bool want_tl = false;
    if (!cli_timeline_options(&o, cfg, &tlo, &want_tl, &usage, &e))
        return fail(&o, e, usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE);
    cli_inputs in;
    if (!cli_inputs_load(cfg, &in, &e)) {
        cli_inputs_clear(&in);
        return fail(&o, e, CLI_EXIT_FAILURE);
    }
    cli_default_window(cfg, &in);
    in.timeline = want_tl ? &tlo : NULL;
    g_autofree char *base =
        o.out ? g_strdup(o.out) : cli_default_out(cfg, in.topo_spec, names, o.scheds == NULL);
    output_dir *d = output_dir_open_new(base, o.force, o.scenario, &e);
    output_csv *combined = d ? output_csv_open(d, "summary.csv", false, replay_summary_columns(), &e)
                             : NULL;
    if (!combined) {
        output_dir_abort(d);
        cli_inputs_clear(&in);
        return fail(&o, e, CLI_EXIT_FAILURE);
    }
    g_autofree replay_summary *res = g_new0(replay_summary, names->len);
    if (o.jobs > 1 && names->len > 1 &&
        !cli_compare_parallel(&o, &in, names, output_dir_path(d), o.jobs, res, combined, &e)) {
        output_dir_abort(d);
        cli_inputs_clear(&in);
        return fail(&o, e, CLI_EXIT_FAILURE);
    }
    for (guint i = 0; (o.jobs <= 1 || names->len <= 1) && i < names->len; i++) {
        const char *name = g_ptr_array_index(names, i);
        config_set_scheduler(cfg, name);
        g_autofree char *out = g_build_filename(output_dir_path(d), name, NULL);
        output_dir *sub = output_dir_open(out, &e);
        if (!sub || !cli_run_one(cfg, &in, sub, o.quiet, NULL, &res[i], combined, &e)) {
            g_prefix_error(&e, "%s: ", name);
            output_dir_abort(d);
            cli_inputs_clear(&in);
            return fail(&o, e, CLI_EXIT_FAILURE);
        }
    }
    if (!output_dir_commit(d, &e)) {
        cli_inputs_clear(&in);
        return fail(&o, e, CLI_EXIT_FAILURE);
    }
    double base_util = NAN, base_alloc = NAN;
    for (guint i = 0; i < names->len; i++)
        if (strcmp(g_ptr_array_index(names, i), "ecmp") == 0) {
            base_util = res[i].gpu_util_cluster_frac;
            base_alloc = res[i].gpu_util_allocated_frac;
        }
    printf("scenario %s: topology %s, trace %s, %zu jobs, %zu GPUs, seed %" G_GUINT64_FORMAT
           ", %s mode\n\n",
           cfg->name, topo_name(in.t), trace_source_name(in.tr), res[0].jobs, res[0].gpus_total,
           cfg->sim.seed, config_mode_name(cfg->sim.mode));
    printf("%-16s %10s %10s %10s %10s %12s %11s %11s %8s\n", "scheduler", "util_clus", "util_alloc",
           "slowdown", "p99_slow", "iterations", "gain_clus", "gain_alloc", "wall_s");
    for (guint i = 0; i < names->len; i++) {
        const replay_summary *s = &res[i];
        printf("%-16s %10.4f %10.4f %10.4f %10.4f %12lld", (const char *)g_ptr_array_index(names, i),
               s->gpu_util_cluster_frac, s->gpu_util_allocated_frac, s->mean_slowdown,
               s->p99_slowdown, (long long)s->iterations);
        print_pct(s->gpu_util_cluster_frac / base_util - 1.0);
        print_pct(s->gpu_util_allocated_frac / base_alloc - 1.0);
        printf(" %8.2f\n", s->wall_s);
    }
    printf("\ngain = utilization relative to ecmp; results in %s/ (summary.csv, one folder per "
           "scheduler)\n",
           base);
    cli_inputs_clear(&in);
    cli_sim_opts_clear(&o);
    return CLI_EXIT_OK;
}
