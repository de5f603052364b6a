/* cli_sweep.c - `ccsim sweep` and `ccsim merge` (docs/usage.md): options, lines.
 * Not here: expanding, running, merging (sim/experiments/sweep*.c).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/ccs.h"
#include "base/limits.h"
#include "ccs-config.h"
#include "cli.h"
#include "cli_sim.h"
#include "sim/experiments/sweep.h"

typedef struct sweep_args {
    char *out;      /* --out DIR */
    int jobs;       /* -j N, 0: number of processors */
    char *shard;    /* --shard I/N */
    gboolean dry_run;
} sweep_args;

static bool parse_shard(const char *text, int *index, int *count)
{
    g_auto(GStrv) parts = g_strsplit(text, "/", -1);
    guint64 i = 0, n = 0;
    if (g_strv_length(parts) != 2 ||
        !g_ascii_string_to_unsigned(parts[0], 10, 0, G_MAXINT, &i, NULL) ||
        !g_ascii_string_to_unsigned(parts[1], 10, 1, G_MAXINT, &n, NULL) || i >= n)
        return false;
    *index = (int)i;
    *count = (int)n;
    return true;
}

static void format_duration(char *buf, size_t size, double s)
{
    if (s < 0)
        g_snprintf(buf, size, "?");
    else if (s < 60)
        g_snprintf(buf, size, "%.0fs", s);
    else if (s < 3600)
        g_snprintf(buf, size, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        g_snprintf(buf, size, "%dh%02dm", (int)(s / 3600), ((int)s % 3600) / 60);
}

typedef struct progress_state {
    bool tty;            /* stderr is a terminal: rewrite one line */
    double last_line_s;  /* elapsed_s of the last line written */
} progress_state;

/* Not on a terminal (a log file, a Slurm .out) a line every second while a
 * long run goes would bury the runs' own lines: one every
 * cli_progress_log_s(), the pace of `ccsim run` and `compare`. */

static void print_progress(const sweep_progress *p, void *data)
{
    progress_state *st = data;
    if (p->at == SWEEP_AT_START) {
        fprintf(stderr, "sweep: %zu runs, %zu already finished, %zu to run\n", p->total,
                p->skipped, p->total - p->skipped);
        return;
    }
    if (p->at == SWEEP_AT_TICK && !st->tty && p->elapsed_s - st->last_line_s < cli_progress_log_s())
        return;
    st->last_line_s = p->elapsed_s;
    /* a finished run's warnings, once, with its name (its stderr is
     * otherwise kept only when it fails) */
    if (p->at == SWEEP_AT_RUN_END && p->last_warnings) {
        g_auto(GStrv) lines = g_strsplit(p->last_warnings, "\n", -1);
        for (size_t i = 0; lines[i]; i++)
            fprintf(stderr, "%sccsim: warning: run %s: %s\n", st->tty ? "\r\033[K" : "",
                    p->last_name, lines[i]);
    }
    char eta[32];
    format_duration(eta, sizeof eta, p->eta_s);
    fprintf(stderr, "%ssweep: %zu/%zu done, %zu failed, %zu running, ETA %s", st->tty ? "\r\033[K" : "",
            p->done, p->total, p->failed, p->running, eta);
    if (p->at == SWEEP_AT_RUN_END)
        fprintf(stderr, " (run %s %s)", p->last_name, p->last_ok ? "ok" : "FAILED");
    fprintf(stderr, "%s", st->tty ? "" : "\n");
    fflush(stderr);
}

/* The sweep's poll of the one signal path (cli_signal.c): stop the
 * workers once SIGINT or SIGTERM came. */
static gboolean poll_signal(gpointer data)
{
    if (cli_signal_caught())
        g_cancellable_cancel(data);
    return G_SOURCE_CONTINUE;
}

/* One line per task of the shard: its index, run name, parameters, and
 * for a time shard of a split run "shard=K/N". */
static void dry_run(const sweep *sw, int shard_index, int shard_count)
{
    g_autoptr(GArray) tasks = sweep_tasks(sw);
    for (guint t = (guint)shard_index; t < tasks->len; t += (guint)shard_count) {
        const sweep_task *task = &g_array_index(tasks, sweep_task, t);
        size_t i = task->run;
        printf("%u\t%s", t, sweep_run_name(sw, i));
        for (size_t k = 0; k < sweep_param_count(sw); k++) {
            g_autofree char *v = sweep_run_param_text(sw, i, k);
            printf("\t%s=%s", sweep_param_key(sw, k), v);
        }
        if (task->shard >= 0)
            printf("\tshard=%d/%d", task->shard, task->shards);
        printf("\n");
    }
}

/* The binary workers run: $CCSIM_SWEEP_WORKER (tests) or this one. */
static char *worker_path(GError **error)
{
    const char *env = g_getenv("CCSIM_SWEEP_WORKER");
    if (env != NULL && env[0] != '\0')
        return g_canonicalize_filename(env, NULL); /* workers run in their folders */
    return g_file_read_link("/proc/self/exe", error);
}

static int run_sweep(const sweep *sw, const sweep_args *a, int shard_index, int shard_count)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *worker = worker_path(&error);
    if (worker == NULL) {
        cli_error("cannot find the ccsim binary: %s", error->message);
        return CLI_EXIT_FAILURE;
    }
    progress_state st = {.tty = isatty(STDERR_FILENO) != 0};
    g_autoptr(GCancellable) cancel = g_cancellable_new();
    cli_signals_catch();
    guint poll = g_timeout_add(50, poll_signal, cancel);
    sweep_options o = sweep_options_default();
    o.worker_path = worker;
    o.jobs = a->jobs > 0 ? a->jobs : (int)g_get_num_processors();
    o.shard_index = shard_index;
    o.shard_count = shard_count;
    o.cancellable = cancel;
    o.progress = print_progress;
    o.progress_data = &st;
    sweep_progress last = {0};
    bool ok = sweep_execute(sw, a->out, &o, &last, &error);
    g_source_remove(poll);
    if (st.tty && last.total > last.skipped)
        fprintf(stderr, "\n");
    if (!ok) {
        cli_error("%s", error->message);
        return CLI_EXIT_FAILURE;
    }
    char took[32];
    format_duration(took, sizeof took, last.elapsed_s);
    fprintf(stderr, "sweep: %zu/%zu runs done (%zu were already finished), %zu failed, in %s\n",
            last.done, last.total, last.skipped, last.failed, took);
    if (g_cancellable_is_cancelled(cancel) || cli_signal_caught())
        cli_signals_exit_saying("the finished runs are kept, the others removed; run the same "
                         "command again to continue");
    if (last.failed > 0)
        cli_error("%zu run(s) failed: see %s/failed.csv and runs/NAME/error.txt", last.failed,
                  a->out);
    printf("summary: %s/summary.csv\n", a->out);
    printf("plot:    %s/scripts/plot.sh %s\n", CCS_SOURCE_DIR, a->out);
    return last.failed > 0 ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

int cli_sweep_main(int argc, char **argv)
{
    sweep_args a = {0};
    GOptionEntry entries[] = {
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &a.out, "output folder (required)", "DIR"},
        {"jobs", 'j', 0, G_OPTION_ARG_INT, &a.jobs, "parallel runs (default: processors)", "N"},
        {"shard", 0, 0, G_OPTION_ARG_STRING, &a.shard,
         "run only the tasks with index = I mod N (a task is a run, or one time shard of a "
         "run with sim.shards > 1)",
         "I/N"},
        {"dry-run", 'n', 0, G_OPTION_ARG_NONE, &a.dry_run, "list the runs, run nothing", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("SWEEP.json - run a parameter sweep");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_description(
        ctx, "Runs every point of the sweep's grid as `ccsim run` in DIR/runs/NAME, skipping\n"
             "finished runs, and writes DIR/summary.csv and DIR/failed.csv.\n"
             "See docs/experiments.md.\n");
    g_autoptr(GError) error = NULL;
    int status = CLI_EXIT_USAGE;
    int shard_index = 0, shard_count = 1;
    if (!g_option_context_parse(ctx, &argc, &argv, &error))
        cli_error("%s", error->message);
    else if (argc != 2)
        cli_error("sweep: expected one sweep file (see `ccsim sweep --help`)");
    else if (a.shard && !parse_shard(a.shard, &shard_index, &shard_count))
        cli_error("--shard: expected I/N with 0 <= I < N, got '%s'", a.shard);
    else if (!ccs_limit_check(CCS_LIMIT_PARALLEL, a.jobs, "--jobs", &error))
        cli_error("%s", error->message);
    else if (!a.dry_run && a.out == NULL)
        cli_error("sweep: --out DIR is required");
    else if (a.out && !*a.out)
        cli_error("--out: an empty folder name");
    else {
        g_autoptr(sweep) sw = sweep_load(argv[1], &error);
        if (sw == NULL) {
            cli_error("%s", error->message);
            status = CLI_EXIT_FAILURE;
        } else if (a.dry_run) {
            dry_run(sw, shard_index, shard_count);
            status = CLI_EXIT_OK;
        } else
            status = run_sweep(sw, &a, shard_index, shard_count);
    }
    g_free(a.out);
    g_free(a.shard);
    return status;
}

int cli_merge_main(int argc, char **argv)
{
    char *out = NULL;
    GOptionEntry entries[] = {
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "merged CSV (default: stdout)", "FILE"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("DIR... - merge the summaries of sweep folders or shards");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_description(
        ctx, "Each DIR is a `ccsim sweep --out` folder (DIR/sweep.json, DIR/summary.csv).\n"
             "Fails, naming them, when a run of the sweeps is missing or appears twice.\n");
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        cli_error("%s", error->message);
        g_free(out);
        return CLI_EXIT_USAGE;
    }
    if (argc < 2) {
        cli_error("merge: expected at least one sweep folder (see `ccsim merge --help`)");
        g_free(out);
        return CLI_EXIT_USAGE;
    }
    /* runs split in time whose shards all finished are merged first */
    for (int i = 1; i < argc; i++) {
        g_autofree char *path = g_build_filename(argv[i], "sweep.json", NULL);
        g_autoptr(sweep) sw = g_file_test(path, G_FILE_TEST_EXISTS) ? sweep_load(path, NULL) : NULL;
        size_t bad = 0;
        if (sw && !sweep_merge_shards(sw, argv[i], &bad, &error)) {
            cli_error("merge: %s", error->message);
            g_free(out);
            return CLI_EXIT_FAILURE;
        }
    }
    sweep_merge_report r = {0};
    g_autofree char *text =
        sweep_merge((const char *const *)argv + 1, (size_t)argc - 1, out, &r, &error);
    int status = CLI_EXIT_OK;
    if (text == NULL) {
        for (size_t i = 0; r.missing && i < r.missing->len; i++)
            cli_error("merge: run %s is missing", (char *)r.missing->pdata[i]);
        for (size_t i = 0; r.failed && i < r.failed->len; i++)
            cli_error("merge: failed run %s", (char *)r.failed->pdata[i]);
        for (size_t i = 0; r.duplicated && i < r.duplicated->len; i++)
            cli_error("merge: run %s appears more than once", (char *)r.duplicated->pdata[i]);
        cli_error("merge: %s", error->message);
        status = CLI_EXIT_FAILURE;
    } else if (out == NULL || strcmp(out, "-") == 0)
        fputs(text, stdout);
    else
        fprintf(stderr, "merge: %zu runs into %s\n", r.rows, out);
    sweep_merge_report_clear(&r);
    g_free(out);
    return status;
}
