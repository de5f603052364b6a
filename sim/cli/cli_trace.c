/* cli_trace.c - `ccsim gen-trace` and `ccsim trace stats|load`.
 * Not here: the generator and the statistics (traces/).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "base/ccs.h"
#include "base/limits.h"
#include "base/tempfile.h"
#include "cli.h"
#include "cli_sim.h"
#include "cli_trace.h"
#include "sim/config.h"
#include "sim/contention.h"
#include "sim/output_folder.h"
#include "sim/output_lock.h"
#include "topo/topo.h"
#include "traces/gen.h"
#include "traces/trace.h"

typedef struct gen_args {
    gint seed;
    gchar *out;
    gchar *days, *scale, *tilt; /* parsed strictly by gen_numbers */
    gchar *topo;
    gchar *topo_aware; /* "yes" or "no" */
    gchar *spill;      /* "leftovers" or "whole-racks" */
    gchar *small_pods; /* "first-fit" or "most-allocated" */
    gboolean gzip;
} gen_args;

/* One of two words: *out = text is `yes_word` (unchanged when text is NULL). */
static bool gen_choice(const char *opt, const char *text, const char *yes_word,
                       const char *no_word, bool *out, GError **error)
{
    if (!text)
        return true;
    if (strcmp(text, yes_word) != 0 && strcmp(text, no_word) != 0) {
        g_autofree char *shown = ccs_escape(text, -1, 80);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected \"%s\" or \"%s\", got \"%s\"",
                    opt, yes_word, no_word, shown);
        return false;
    }
    *out = strcmp(text, yes_word) == 0;
    return true;
}

/* --days, --scale and --gpu-run-tilt as strict decimal numbers in their
 * ranges (base/limits.h), and --topo-aware, --spill and --small-pods,
 * checked before anything is written. */
static bool gen_numbers(const gen_args *a, trace_gen_options *o, GError **error)
{
    struct {
        const char *opt, *text;
        double *out;
        ccs_limit_id limit;
    } v[] = {{"--days", a->days, &o->days, CCS_LIMIT_GEN_DAYS},
             {"--scale", a->scale, &o->scale, CCS_LIMIT_GEN_SCALE},
             {"--gpu-run-tilt", a->tilt, &o->gpu_run_tilt, CCS_LIMIT_GEN_TILT}};
    for (size_t i = 0; i < G_N_ELEMENTS(v); i++) {
        if (!v[i].text)
            continue;
        if (!ccs_parse_double(v[i].text, v[i].out)) {
            g_autofree char *shown = ccs_escape(v[i].text, -1, 80);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "gen-trace: %s: expected a decimal number, got \"%s\"", v[i].opt, shown);
            return false;
        }
        if (!ccs_limit_check(v[i].limit, *v[i].out, v[i].opt, error)) {
            g_prefix_error(error, "gen-trace: ");
            return false;
        }
    }
    if (!trace_gen_options_check(o, error))
        return false; /* "gen-trace: ..." already */
    bool ok = gen_choice("--topo-aware", a->topo_aware, "yes", "no", &o->topo_aware, error) &&
           gen_choice("--spill", a->spill, "whole-racks", "leftovers", &o->spill_whole_racks,
                      error) &&
           gen_choice("--small-pods", a->small_pods, "most-allocated", "first-fit",
                      &o->small_most_allocated, error);
    if (!ok)
        g_prefix_error(error, "gen-trace: ");
    return ok;
}

/* What a signal removes while gen-trace writes dir (cli_signal.c's
 * removing mode): each table and its temporary, the folder's lock file,
 * and dir itself ("dir/") when gen-trace made it.  NULL-terminated. */
static GPtrArray *gen_output_paths(const char *dir, bool gzip, bool created,
                                   const output_lock *lock)
{
    static const char *const tables[] = {"job.csv", "worker.csv", "topo.csv"};
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    for (size_t i = 0; i < G_N_ELEMENTS(tables); i++) {
        g_autofree char *name = g_strconcat(tables[i], gzip ? ".gz" : "", NULL);
        char *path = g_build_filename(dir, name, NULL);
        g_ptr_array_add(paths, ccs_temp_path(path));
        g_ptr_array_add(paths, path);
    }
    g_ptr_array_add(paths, g_strdup(output_lock_file(lock)));
    if (created)
        g_ptr_array_add(paths, g_strconcat(dir, "/", NULL));
    g_ptr_array_add(paths, NULL);
    return paths;
}

int cli_gen_trace_main(int argc, char **argv)
{
    trace_gen_options d = trace_gen_options_default();
    gen_args a = {.seed = (gint)d.seed};
    GOptionEntry entries[] = {
        {"seed", 's', 0, G_OPTION_ARG_INT, &a.seed, "random seed (default 1)", "N"},
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &a.out, "output directory (required)", "DIR"},
        {"days", 'd', 0, G_OPTION_ARG_STRING, &a.days, "submit window in days (default 16)", "D"},
        {"scale", 'x', 0, G_OPTION_ARG_STRING, &a.scale, "job-count multiplier (default 1)", "X"},
        {"topo", 't', 0, G_OPTION_ARG_FILENAME, &a.topo,
         "use this topo.csv (e.g. the real one) instead of a synthetic one", "PATH"},
        {"gzip", 'z', 0, G_OPTION_ARG_NONE, &a.gzip, "write .csv.gz files", NULL},
        {"gpu-run-tilt", 0, 0, G_OPTION_ARG_STRING, &a.tilt,
         "how much longer GPU jobs run than CPU jobs (copula shift, default 0.7)", "T"},
        {"topo-aware", 0, 0, G_OPTION_ARG_STRING, &a.topo_aware,
         "whole-host pods on any free host, racks ignored, as the real trace (no, default) "
         "or gathered under one ToR when they fit (yes)", "yes|no"},
        {"spill", 0, 0, G_OPTION_ARG_STRING, &a.spill,
         "with --topo-aware yes, a job that fits no rack takes the fullest racks first, "
         "other jobs' leftovers (leftovers, default) or the emptiest, whole racks first "
         "(whole-racks)",
         "leftovers|whole-racks"},
        {"small-pods", 0, 0, G_OPTION_ARG_STRING, &a.small_pods,
         "a pod of fewer than 8 GPUs takes the first partly used host in topo.csv order "
         "(first-fit, default) or the most allocated one (most-allocated)",
         "first-fit|most-allocated"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("- write a synthetic Lingjun trace");
    g_option_context_set_summary(ctx,
        "Writes job.csv, worker.csv and topo.csv in the schema of the Alibaba Lingjun 2023\n"
        "release with its published statistics (docs/traces.md).  Same seed, same bytes.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *e = NULL;
    int status = CLI_EXIT_OK;
    if (!g_option_context_parse(ctx, &argc, &argv, &e)) {
        cli_error("gen-trace: %s", e->message);
        g_error_free(e);
        status = CLI_EXIT_USAGE;
    } else if (!a.out || !*a.out || argc > 1) {
        cli_error("gen-trace: %s (see `ccsim gen-trace --help`)",
                  argc > 1 ? "unexpected argument"
                  : a.out  ? "--out: an empty folder name"
                           : "--out DIR is required");
        status = CLI_EXIT_USAGE;
    } else if (!ccs_limit_check(CCS_LIMIT_GEN_SEED, a.seed, "--seed", &e)) {
        cli_error("gen-trace: %s", e->message);
        g_error_free(e);
        status = CLI_EXIT_USAGE;
    } else if (!gen_numbers(&a, &d, &e)) {
        cli_error("%s", e->message);
        g_error_free(e);
        status = CLI_EXIT_USAGE;
    } else {
        trace_gen_options o = d;
        o.seed = (guint32)a.seed;
        o.topo_path = a.topo;
        o.gzip = a.gzip;
        bool created = !g_file_test(a.out, G_FILE_TEST_IS_DIR);
        /* one writer per folder (what dead ones left is removed); a trace
         * never lands among other files: as run and compare, refuse a
         * folder that exists and is not empty */
        g_autoptr(output_lock) lock = output_lock_take(a.out, &e);
        if (lock)
            ccs_temp_reclaim(a.out);
        bool ok = lock && output_folder_check(a.out, false, NULL, &e) != OUTPUT_FOLDER_REFUSED;
        /* from here a signal removes what is written and kills at once,
         * however long the generation (cli_signal.c) */
        g_autoptr(GPtrArray) paths = ok ? gen_output_paths(a.out, a.gzip, created, lock) : NULL;
        if (paths)
            cli_signals_catch_removing((const char *const *)paths->pdata);
        ok = ok && trace_gen_write(a.out, &o, &e);
        cli_signals_default(); /* the tables are whole: a signal now just ends it */
        if (!ok) {
            cli_error("%s", e->message);
            g_error_free(e);
            status = CLI_EXIT_FAILURE;
        } else {
            const char *z = a.gzip ? ".gz" : "";
            printf("wrote %s/: job.csv%s, worker.csv%s, topo.csv%s (seed %d; statistics: "
                   "ccsim trace stats %s)\n",
                   a.out, z, z, z, a.seed, a.out);
        }
    }
    g_free(a.out);
    g_free(a.topo);
    g_free(a.days);
    g_free(a.scale);
    g_free(a.tilt);
    g_free(a.topo_aware);
    g_free(a.spill);
    g_free(a.small_pods);
    return status;
}

typedef struct stats_args {
    gchar *csv;
    gboolean lenient, skip_outside;
    gchar *topo, *placement, *seed; /* stats: the contention risk's network and placement */
    gchar *risk_paths;              /* stats: "candidates" or "chosen" */
    gboolean exposure;              /* stats: the exposed-communication share (a replay) */
    gchar *gpu, *start, *end;       /* stats --exposure: GPU type and window */
    gchar *job_model;               /* stats --exposure: one job model only */
} stats_args;

/* "default" names the bundled sample (built into the binary), as for
 * `ccsim run --trace`. */
static bool is_default(const char *dir)
{
    return strcmp(dir, "default") == 0;
}

/* The topology of the contention risk: --topo, else the Lingjun builder on
 * the trace's own topo.csv; NULL when there is none. */
static char *risk_topology(const char *dir, const stats_args *a)
{
    if (a->topo)
        return g_strdup(a->topo);
    if (is_default(dir))
        return g_strdup("lingjun-sample");
    static const char *const names[] = {"topo.csv", "topo.csv.gz"};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *p = g_build_filename(dir, names[i], NULL);
        if (g_file_test(p, G_FILE_TEST_IS_REGULAR) && !strchr(p, ','))
            return g_strdup_printf("lingjun:path=%s", p);
    }
    return NULL;
}

/* The trace in dir and the network spec it is placed on (the contention
 * risk's and the exposure's). */
static bool load_placed(const char *dir, const stats_args *a, const char *spec, trace **tr,
                        topo **t, GError **error)
{
    trace_lingjun_options o = trace_lingjun_options_default();
    o.lenient = a->lenient;
    *tr = is_default(dir) ? trace_load_default(error) : trace_lingjun_load(dir, &o, error);
    *t = *tr ? topo_build(spec, NULL, error) : NULL;
    return *t != NULL;
}

/* The breakdown of the contention risk by span and reason (docs/traces.md). */
static void print_spans(const contention_stats *s)
{
    printf("  by span (how far a job's flows reach) and reason (a job may have several):\n");
    printf("    %-7s %6s %8s %9s %13s %6s %9s %6s\n", "span", "jobs", "at risk", "GPUs",
           "GPUs at risk", "host", "tor_agg", "core");
    for (int k = 0; k < CONTENTION_SPANS; k++) {
        const contention_span_stats *p = &s->span[k];
        printf("    %-7s %6zu %8zu %9.0f %13.0f %6zu %9zu %6zu\n", contention_span_name(k), p->jobs,
               p->jobs_at_risk, p->gpus, p->gpus_at_risk, p->by_host, p->by_tor_agg, p->by_core);
    }
    printf("  by job size (GPUs):\n");
    printf("    %-7s %6s %8s %9s %13s\n", "GPUs", "jobs", "at risk", "GPUs", "GPUs at risk");
    for (int k = 0; k < CONTENTION_SIZES; k++) {
        const contention_span_stats *p = &s->size[k];
        printf("    %-7s %6zu %8zu %9.0f %13.0f\n", contention_size_name(k), p->jobs, p->jobs_at_risk,
               p->gpus, p->gpus_at_risk);
    }
}

/* The same as contention_span,SPAN_FIELD,VALUE and
 * contention_size,SIZE_FIELD,VALUE csv rows. */
static void csv_spans(const contention_stats *s, GString *csv)
{
    for (int k = 0; k < CONTENTION_SPANS + CONTENTION_SIZES; k++) {
        bool span = k < CONTENTION_SPANS;
        const contention_span_stats *p = span ? &s->span[k] : &s->size[k - CONTENTION_SPANS];
        const char *n = span ? contention_span_name(k) : contention_size_name(k - CONTENTION_SPANS);
        if (!span)
            g_string_append_printf(csv,
                                   "contention_size,%s_jobs,%zu\ncontention_size,%s_jobs_at_risk,%zu\n"
                                   "contention_size,%s_gpus,%.0f\ncontention_size,%s_gpus_at_risk,%.0f\n",
                                   n, p->jobs, n, p->jobs_at_risk, n, p->gpus, n, p->gpus_at_risk);
        if (!span)
            continue;
        g_string_append_printf(csv,
                               "contention_span,%s_jobs,%zu\ncontention_span,%s_jobs_at_risk,%zu\n"
                               "contention_span,%s_gpus,%.0f\ncontention_span,%s_gpus_at_risk,%.0f\n"
                               "contention_span,%s_by_host,%zu\ncontention_span,%s_by_tor_agg,%zu\n"
                               "contention_span,%s_by_core,%zu\n",
                               n, p->jobs, n, p->jobs_at_risk, n, p->gpus, n, p->gpus_at_risk, n,
                               p->by_host, n, p->by_tor_agg, n, p->by_core);
    }
}

/* The contention risk (docs/traces.md) of the trace in dir: printed under
 * the table and/or appended to csv (section "contention").  Returns an
 * exit status. */
static int run_risk(const char *dir, const stats_args *a, const config *cfg,
                    contention_paths paths, GString *csv)
{
    g_autofree char *spec = risk_topology(dir, a);
    if (!spec) {
        if (!a->csv || strcmp(a->csv, "-") != 0)
            printf("\ncontention risk: no topo.csv in %s and no --topo\n", dir);
        return CLI_EXIT_OK;
    }
    GError *e = NULL;
    g_autoptr(trace) tr = NULL;
    g_autoptr(topo) t = NULL;
    contention_stats s;
    load_placed(dir, a, spec, &tr, &t, &e);
    if (!t || !contention_trace(t, tr, cfg->sim.placement, cfg->sim.seed, paths, &s, &e)) {
        cli_error("%s", e->message);
        g_error_free(e);
        return CLI_EXIT_FAILURE;
    }
    double jf = s.jobs ? (double)s.jobs_at_risk / (double)s.jobs : 0;
    double gf = s.gpus > 0 ? s.gpus_at_risk / s.gpus : 0;
    if (!a->csv || strcmp(a->csv, "-") != 0) {
        printf("\ncontention risk (docs/traces.md) on %s, placement %s, seed %" G_GUINT64_FORMAT
               ", %s paths\n",
               spec, config_placement_name(cfg->sim.placement), cfg->sim.seed,
               paths == CONTENTION_PATHS_CHOSEN ? "chosen" : "candidate");
        printf("  GPU jobs placed     %zu (did not fit: %zu)\n", s.jobs, s.jobs_unplaced);
        printf("  jobs at risk        %zu (%.1f%%)\n", s.jobs_at_risk, 100 * jf);
        printf("  GPUs at risk        %.0f of %.0f (%.1f%%)\n", s.gpus_at_risk, s.gpus, 100 * gf);
        print_spans(&s);
    }
    csv_spans(&s, csv);
    g_string_append_printf(csv, "contention,jobs,%zu\ncontention,jobs_unplaced,%zu\n", s.jobs,
                           s.jobs_unplaced);
    g_string_append_printf(csv, "contention,jobs_at_risk,%zu\ncontention,jobs_at_risk_frac,%.6f\n",
                           s.jobs_at_risk, jf);
    g_string_append_printf(csv, "contention,gpus,%.0f\ncontention,gpus_at_risk,%.0f\n", s.gpus,
                           s.gpus_at_risk);
    g_string_append_printf(csv, "contention,gpus_at_risk_frac,%.6f\n", gf);
    return CLI_EXIT_OK;
}

/* The exposed-communication share (cli_trace_exposure.c) of the trace in
 * dir on the contention risk's network. */
static int run_exposure(const char *dir, const stats_args *a, GString *csv)
{
    g_autofree char *spec = risk_topology(dir, a);
    bool print = !a->csv || strcmp(a->csv, "-") != 0;
    if (!spec) {
        if (print)
            printf("\nexposed communication: no topo.csv in %s and no --topo\n", dir);
        return CLI_EXIT_OK;
    }
    GError *e = NULL;
    g_autoptr(trace) tr = NULL;
    g_autoptr(topo) t = NULL;
    if (!load_placed(dir, a, spec, &tr, &t, &e)) {
        cli_error("%s", e->message);
        g_error_free(e);
        return CLI_EXIT_FAILURE;
    }
    if (a->job_model && strcmp(a->job_model, "flat") != 0 &&
        strcmp(a->job_model, "structured") != 0) {
        cli_error("trace: --job-model: expected \"flat\" or \"structured\"");
        return CLI_EXIT_USAGE;
    }
    cli_trace_exposure_opts x = {a->placement, a->seed, a->gpu, a->start, a->end, a->job_model};
    return cli_trace_exposure(&x, t, tr, csv, print);
}

/* --placement and --seed as a run reads them (errors: usage). */
static config *risk_config(const stats_args *a, GError **error)
{
    g_autoptr(config) c = config_new();
    if ((a->placement && !config_set_option(c, "placement", a->placement, error)) ||
        (a->seed && !config_set_option(c, "seed", a->seed, error)))
        return NULL;
    return g_steal_pointer(&c);
}

/* Append text to the file at path. */
static bool append_file(const char *path, const char *text, GError **error)
{
    errno = 0;
    FILE *f = fopen(path, "a");
    bool ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot append: %s", path,
                    g_strerror(errno ? errno : EIO));
    return ok;
}

static int run_stats(const char *dir, const stats_args *a)
{
    GError *e = NULL;
    g_autoptr(config) cfg = risk_config(a, &e);
    bool chosen = false;
    if (!cfg ||
        !gen_choice("--risk-paths", a->risk_paths, "chosen", "candidates", &chosen, &e)) {
        cli_error("trace: %s", e->message);
        g_error_free(e);
        return CLI_EXIT_USAGE;
    }
    g_autoptr(trace_summary) s = is_default(dir) ? trace_summary_load_default(&e)
                                                 : trace_summary_load(dir, a->lenient, &e);
    if (!s) {
        cli_error("%s", e->message);
        g_error_free(e);
        return CLI_EXIT_FAILURE;
    }
    if (!a->csv || strcmp(a->csv, "-") != 0) {
        g_autofree char *table = trace_summary_table(s);
        printf("trace statistics of %s\n%s", dir, table);
    }
    g_autoptr(GString) risk = g_string_new(NULL);
    int st = run_risk(dir, a, cfg, chosen ? CONTENTION_PATHS_CHOSEN : CONTENTION_PATHS_CANDIDATES,
                      risk);
    if (st == CLI_EXIT_OK && a->exposure)
        st = run_exposure(dir, a, risk);
    if (st != CLI_EXIT_OK)
        return st;
    if (a->csv) {
        g_autofree char *csv = trace_summary_csv(s);
        if (strcmp(a->csv, "-") == 0) {
            fputs(csv, stdout);
            fputs(risk->str, stdout);
        } else if (!trace_summary_write_csv(s, a->csv, &e) ||
                   !append_file(a->csv, risk->str, &e)) {
            cli_error("%s", e->message);
            g_error_free(e);
            return CLI_EXIT_FAILURE;
        }
    }
    return CLI_EXIT_OK;
}

static int run_load(const char *dir, const stats_args *a)
{
    GError *e = NULL;
    trace_lingjun_options o = trace_lingjun_options_default();
    o.lenient = a->lenient;
    o.outside = a->skip_outside ? TRACE_OUTSIDE_SKIP : TRACE_OUTSIDE_PLACE;
    g_autoptr(trace) t =
        is_default(dir) ? trace_load_default(&e) : trace_lingjun_load(dir, &o, &e);
    if (!t) {
        cli_error("%s", e->message);
        g_error_free(e);
        return CLI_EXIT_FAILURE;
    }
    const trace_stats *st = trace_get_stats(t);
    double last = 0;
    for (size_t i = 0; i < trace_job_count(t); i++)
        last = MAX(last, trace_job_get(t, i)->end_s);
    printf("source               %s\n", trace_source_name(t));
    printf("epoch_unix_s         %.0f\n", trace_epoch_unix_s(t));
    printf("last_end_s           %.0f\n", last);
    double peak_at = 0, peak = cli_trace_peak(t, &peak_at);
    printf("peak_gpus            %.0f\npeak_at_s            %.0f\n", peak, peak_at);
    printf("job_rows             %zu\nworker_rows          %zu\ntopo_hosts           %zu\n",
           st->job_rows, st->worker_rows, st->topo_hosts);
    printf("jobs_loaded          %zu\n", st->jobs_loaded);
    printf("skipped_never_ran    %zu\nskipped_running      %zu\nskipped_cpu_only     %zu\n",
           st->skipped_never_ran, st->skipped_running, st->skipped_cpu_only);
    printf("skipped_bad_time     %zu\nskipped_malformed    %zu\nskipped_outside_topo %zu\n",
           st->skipped_bad_time, st->skipped_malformed, st->skipped_outside_topo);
    printf("skipped_duplicate    %zu\n", st->skipped_duplicate);
    printf("worker_rows_malformed %zu\nworker_rows_orphan   %zu\n", st->worker_rows_malformed,
           st->worker_rows_orphan);
    printf("pods_outside_topo    %zu\npods_no_host         %zu\njobs_unplaced        %zu\n",
           st->pods_outside_topo, st->pods_no_host, st->jobs_unplaced);
    return CLI_EXIT_OK;
}

int cli_trace_main(int argc, char **argv)
{
    stats_args a = {0};
    GOptionEntry entries[] = {
        {"csv", 'c', 0, G_OPTION_ARG_FILENAME, &a.csv, "stats: also write CSV (\"-\": stdout)", "FILE"},
        {"lenient", 'l', 0, G_OPTION_ARG_NONE, &a.lenient,
         "skip and count malformed rows instead of failing", NULL},
        {"skip-outside", 0, 0, G_OPTION_ARG_NONE, &a.skip_outside,
         "load: skip jobs with pods outside topo.csv (default: keep them unplaced)", NULL},
        {"topo", 0, 0, G_OPTION_ARG_STRING, &a.topo,
         "stats: network of the contention risk (default: lingjun on DIR/topo.csv)", "SPEC"},
        {"placement", 0, 0, G_OPTION_ARG_STRING, &a.placement,
         "stats: placement policy of the contention risk (default recorded)",
         "recorded|locality|packed|spread|random|fragmented"},
        {"seed", 0, 0, G_OPTION_ARG_STRING, &a.seed,
         "stats: seed of the placement's draws (default 1)", "N"},
        {"risk-paths", 0, 0, G_OPTION_ARG_STRING, &a.risk_paths,
         "stats: links of the contention risk: of every equal-cost candidate path (default) or "
         "only of the path each flow's hash picks", "candidates|chosen"},
        {"exposure", 0, 0, G_OPTION_ARG_NONE, &a.exposure,
         "stats: also the share of allocated GPU-seconds the jobs, each alone, spend not "
         "computing, with flat and with structured jobs (replays the trace under the ideal "
         "scheduler)",
         NULL},
        {"gpu", 0, 0, G_OPTION_ARG_STRING, &a.gpu, "stats --exposure: GPU type (default a100)",
         "a100|h100"},
        {"start", 0, 0, G_OPTION_ARG_STRING, &a.start,
         "stats --exposure: start of the window, trace seconds (default: the first job)", "S"},
        {"end", 0, 0, G_OPTION_ARG_STRING, &a.end,
         "stats --exposure: end of the window (default: the last job's end)", "S"},
        {"job-model", 0, 0, G_OPTION_ARG_STRING, &a.job_model,
         "stats --exposure: only this job model (default: flat and structured)",
         "flat|structured"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("stats|load DIR - inspect a Lingjun trace");
    g_option_context_set_summary(ctx,
        "stats DIR: the statistics of docs/traces.md \"Acceptance\" (a table; --csv for CSV),\n"
        "           then the contention risk of the trace placed on a network.\n"
        "load DIR:  load the trace as `ccsim run` would and report what was skipped.\n"
        "DIR \"default\" is the bundled sample trace built into the binary.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *e = NULL;
    int status;
    if (!g_option_context_parse(ctx, &argc, &argv, &e)) {
        cli_error("trace: %s", e->message);
        g_error_free(e);
        status = CLI_EXIT_USAGE;
    } else if (argc != 3 || (strcmp(argv[1], "stats") != 0 && strcmp(argv[1], "load") != 0)) {
        cli_error("trace: usage: ccsim trace stats|load DIR (see `ccsim trace --help`)");
        status = CLI_EXIT_USAGE;
    } else if (strcmp(argv[1], "stats") == 0) {
        status = run_stats(argv[2], &a);
    } else {
        status = run_load(argv[2], &a);
    }
    g_free(a.csv);
    g_free(a.topo);
    g_free(a.placement);
    g_free(a.risk_paths);
    g_free(a.seed);
    g_free(a.gpu);
    g_free(a.start);
    g_free(a.end);
    g_free(a.job_model);
    return status;
}
