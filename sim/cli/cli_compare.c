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

/* The combined summary.csv: each run's row, then its gains over ecmp
 * (empty when ecmp is not among the runs). */
static const char *const gain_columns[] = {"gain_vs_ecmp_frac", "gain_allocated_vs_ecmp_frac"};

/* v relative to base, minus 1; NAN without a positive base. */
static double gain(double v, double base)
{
    return base > 0 ? v / base - 1.0 : NAN;
}

/* The ecmp run among res[0..n), or NULL. */
static const cli_run_result *baseline(const cli_run_result *res, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(res[i].s.scheduler, "ecmp") == 0)
            return &res[i];
    return NULL;
}

static bool write_combined(output_dir *d, const cli_run_result *res, size_t n, GError **error)
{
    g_autoptr(GPtrArray) cols = g_ptr_array_new();
    for (const char *const *c = replay_summary_columns(); *c; c++)
        g_ptr_array_add(cols, (gpointer)*c);
    for (size_t k = 0; k < G_N_ELEMENTS(gain_columns); k++)
        g_ptr_array_add(cols, (gpointer)gain_columns[k]);
    g_ptr_array_add(cols, NULL);
    output_csv *c = output_csv_open(d, "summary.csv", false, (const char *const *)cols->pdata,
                                    error);
    const cli_run_result *b = baseline(res, n);
    for (size_t i = 0; c && i < n; i++) {
        for (guint k = 0; k < res[i].cells->len; k++)
            output_csv_str(c, res[i].cells->pdata[k]);
        output_csv_double(c, b ? gain(res[i].s.gpu_util_cluster_frac,
                                      b->s.gpu_util_cluster_frac) : NAN);
        output_csv_double(c, b ? gain(res[i].s.gpu_util_allocated_frac,
                                      b->s.gpu_util_allocated_frac) : NAN);
        if (!output_csv_end_row(c, error))
            return false;
    }
    return c != NULL;
}

/* Every scheduler in list order, one after the other, into base/NAME. */
static bool run_each(config *cfg, cli_inputs *in, const GPtrArray *names, const char *base,
                     bool quiet, cli_run_result *res, GError **error)
{
    for (guint i = 0; i < names->len; i++) {
        const char *name = g_ptr_array_index(names, i);
        config_set_scheduler(cfg, name);
        g_autofree char *out = g_build_filename(base, name, NULL);
        output_dir *sub = output_dir_open(out, error);
        if (!sub || !cli_run_one(cfg, in, sub, quiet, NULL, &res[i], error)) {
            g_prefix_error(error, "%s: ", name);
            return false;
        }
    }
    return true;
}

/* Above the table: what ran, and how its jobs were placed (the same for
 * every scheduler unless work mode moved arrivals). */
static void print_header(const config *cfg, const cli_inputs *in, const cli_run_result *res,
                         size_t n)
{
    const replay_summary *s = &res[0].s;
    printf("scenario %s: topology %s, trace %s, seed %" G_GUINT64_FORMAT ", %s mode, "
           "window %g-%g s\n",
           cfg->name, topo_name(in->t), trace_source_name(in->tr), cfg->sim.seed,
           config_mode_name(cfg->sim.mode), s->sim_start_s, s->sim_end_s);
    bool same = true;
    for (size_t i = 1; i < n; i++)
        same = same && res[i].s.jobs == s->jobs && res[i].s.jobs_by_policy == s->jobs_by_policy;
    const char *policy = config_placement_name(cfg->sim.placement);
    printf("jobs: %zu ran on %zu GPUs (%zu skipped: outside the window or no room); ", s->jobs,
           s->gpus_total, s->jobs_skipped);
    if (cfg->sim.placement != CONFIG_PLACE_RECORDED)
        printf("placement %s: every job placed by the policy, recorded hosts ignored\n", policy);
    else if (same && s->jobs_by_policy == 0)
        printf("placement recorded: all on their recorded hosts\n");
    else if (same)
        printf("placement recorded: %zu on their recorded hosts, %zu placed by locality "
               "(%zu naming hosts the topology lacks, %zu whose hosts were busy)\n",
               s->jobs - s->jobs_by_policy, s->jobs_by_policy, res[0].unknown_hosts,
               s->jobs_by_policy - MIN(res[0].unknown_hosts, s->jobs_by_policy));
    else {
        printf("placement recorded, placed by locality:");
        for (size_t i = 0; i < n; i++)
            printf("%s %s %zu of %zu", i ? "," : "", res[i].s.scheduler, res[i].s.jobs_by_policy,
                   res[i].s.jobs);
        printf("\n");
    }
    printf("\n");
}

static void print_table(const cli_run_result *res, size_t n)
{
    static const char *const cols[] = {"gpu_util_allocated_frac", "gain_allocated_vs_ecmp_frac",
                                       "gpu_util_cluster_frac", "gain_vs_ecmp_frac",
                                       "mean_slowdown", "p99_slowdown", "wall_s"};
    int w[G_N_ELEMENTS(cols)];
    printf("%-16s", "scheduler");
    for (size_t k = 0; k < G_N_ELEMENTS(cols); k++) {
        w[k] = MAX(10, (int)strlen(cols[k]));
        printf(" %*s", w[k], cols[k]);
    }
    printf("\n");
    const cli_run_result *b = baseline(res, n);
    for (size_t i = 0; i < n; i++) {
        const replay_summary *s = &res[i].s;
        double v[] = {s->gpu_util_allocated_frac,
                      b ? gain(s->gpu_util_allocated_frac, b->s.gpu_util_allocated_frac) : NAN,
                      s->gpu_util_cluster_frac,
                      b ? gain(s->gpu_util_cluster_frac, b->s.gpu_util_cluster_frac) : NAN,
                      s->mean_slowdown, s->p99_slowdown, s->wall_s};
        printf("%-16s", s->scheduler);
        for (size_t k = 0; k < G_N_ELEMENTS(cols); k++) {
            if (!isfinite(v[k]))
                printf(" %*s", w[k], "-");
            else if (g_str_has_prefix(cols[k], "gain_"))
                printf(" %+*.2f%%", w[k] - 1, 100.0 * v[k]);
            else
                printf(" %*.*f", w[k], strcmp(cols[k], "wall_s") == 0 ? 2 : 4, v[k]);
        }
        printf("\n");
    }
}

/* Under the table, when every scheduler gives the same allocated
 * utilization to the table's precision (within 5e-5; it prints 4
 * decimals): why, from the contention of the baseline's run (ecmp, else
 * the first). */
static void print_tie_note(const cli_run_result *res, size_t n)
{
    if (n < 2)
        return;
    for (size_t i = 1; i < n; i++)
        if (!ccs_double_equals(res[i].s.gpu_util_allocated_frac,
                               res[0].s.gpu_util_allocated_frac, 5e-5))
            return;
    const cli_run_result *b = baseline(res, n);
    b = b ? b : &res[0];
    const replay_contention *c = &b->contention;
    printf("\nAll %zu schedulers tie. Under %s %zu of %zu jobs share a host or a network link "
           "with\nanother communicating job and %zu run more than 1%% slower than alone on their "
           "own paths\n(run.json \"contention\")",
           n, b->s.scheduler, c->jobs_at_risk, c->jobs, c->jobs_slowed_by_others);
    if (c->jobs_slowed_by_others == 0)
        printf(": no job is slowed by another, so no path, priority or shift has\nanything to "
               "win. scripts/run.sh shows a regime where they separate (ToR uplinks\n"
               "oversubscribed 4:1, the 20 minutes around the peak).\n");
    else
        printf(".\n");
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

/* The schedulers to compare: --scheds A,B,... (each known, none twice) or
 * every registered one.  (transfer full) NULL with the usage error. */
static GPtrArray *scheduler_names(const char *scheds, GError **error)
{
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    if (!scheds) {
        for (size_t i = 0; i < sched_registry_count(); i++)
            g_ptr_array_add(names, g_strdup(sched_registry_get(i)->name));
        return g_steal_pointer(&names);
    }
    g_auto(GStrv) v = g_strsplit(scheds, ",", -1);
    for (char **p = v; *p; p++) {
        g_strstrip(*p);
        g_autofree char *why = scheds_refusal(names, *p);
        if (why) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "--scheds: %s", why);
            return NULL;
        }
        g_ptr_array_add(names, g_strdup(*p));
    }
    if (names->len == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "--scheds: no scheduler named");
        return NULL;
    }
    return g_steal_pointer(&names);
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
    if (!ccs_limit_check(CCS_LIMIT_PARALLEL, o.jobs, "--jobs", &e))
        return fail(&o, e, CLI_EXIT_USAGE);
    if (o.jobs == 0)
        o.jobs = (int)MAX(1, g_get_num_processors());
    if (argc > 1 || (o.out && !*o.out)) {
        if (argc > 1)
            cli_error("compare: unexpected argument '%s' (see `ccsim compare --help`)", argv[1]);
        else
            cli_error("--out: an empty folder name");
        cli_sim_opts_clear(&o);
        return CLI_EXIT_USAGE;
    }
    g_autoptr(GPtrArray) names = scheduler_names(o.scheds, &e);
    if (!names)
        return fail(&o, e, CLI_EXIT_USAGE);
    bool usage = false;
    g_autoptr(config) cfg = cli_sim_config(&o, &usage, &e);
    if (!cfg)
        return fail(&o, e, usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE);
    if (cfg->sim.shards > 1) {
        cli_error("compare: sim.shards: compare does not split runs in time; a sweep with a "
                  "scheduler axis does (docs/cluster.md)");
        cli_sim_opts_clear(&o);
        return CLI_EXIT_USAGE;
    }
    g_auto(timeline_options) tlo = {0};
    bool want_tl = false;
    if (!cli_timeline_options(&o, cfg, &tlo, &want_tl, &usage, &e))
        return fail(&o, e, usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE);
    cli_inputs in;
    if (!cli_inputs_load(cfg, &in, &e)) {
        cli_inputs_clear(&in);
        return fail(&o, e, CLI_EXIT_FAILURE);
    }
    if (want_tl && !cli_timeline_jobs_check(&o, cfg, &tlo, in.tr, &usage, &e)) {
        cli_inputs_clear(&in);
        return fail(&o, e, usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE);
    }
    cli_default_window(cfg, &in);
    in.timeline = want_tl ? &tlo : NULL;
    g_autofree char *base =
        o.out ? g_strdup(o.out) : cli_default_out(cfg, in.topo_spec, names, o.scheds == NULL);
    cli_signals_catch(); /* from here a signal stops the runs (cli_signal.c) */
    output_dir *d = output_dir_open_new(base, o.force, o.scenario, &e);
    size_t n = names->len;
    cli_run_result *res = g_new0(cli_run_result, n);
    bool ok = d != NULL;
    if (ok && o.jobs > 1 && n > 1)
        ok = cli_compare_parallel(&o, &in, names, output_dir_path(d), o.jobs, res, &e);
    else if (ok)
        ok = run_each(cfg, &in, names, output_dir_path(d), o.quiet, res, &e);
    if (ok && cli_signal_caught()) { /* after the last run: still nothing kept */
        g_set_error(&e, CCS_ERROR, CCS_ERROR_IO, "interrupted");
        ok = false;
    }
    if (ok)
        ok = write_combined(d, res, n, &e) && output_dir_commit(g_steal_pointer(&d), &e);
    if (ok) {
        cli_run_warnings_print(res, n);
        print_header(cfg, &in, res, n);
        print_table(res, n);
        printf("\ngain = utilization relative to ecmp; results in %s/ (summary.csv, one folder "
               "per scheduler)\n",
               base);
        print_tie_note(res, n);
    }
    output_dir_abort(d);
    if (!ok && cli_signal_caught()) /* the output is gone: die now (freeing is slow) */
        cli_signals_exit();
    for (size_t i = 0; i < n; i++)
        cli_run_result_clear(&res[i]);
    g_free(res);
    cli_inputs_clear(&in);
    if (!ok)
        return fail(&o, e, CLI_EXIT_FAILURE);
    cli_sim_opts_clear(&o);
    return CLI_EXIT_OK;
}
