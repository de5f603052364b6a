/* cli_optimal_gap.c - `ccsim optimal-gap`: options, progress lines, table.
 * Not here: the benchmark itself (sim/experiments/optimal_gap.c).
 */
#include <stdio.h>

#include "base/ccs.h"
#include "cli.h"
#include "sim/experiments/optimal_gap.h"
#include "sim/output_lock.h"

static void print_progress(void *user, const og_progress *p)
{
    (void)user;
    fprintf(stderr,
            "optimal-gap: case %zu done (%d/%d), %zu runs (%zu replayed, the others "
            "equivalent), optimum %.4f\n",
            p->index, p->done, p->total, p->runs, p->replays, p->opt);
}

/* The table on stdout, its heading before the first row. */
static void print_row(void *user, size_t r, const og_row *row)
{
    const og_opts *o = user;
    if (r == 0) {
        printf("optimal-gap: %zu cases (seed %" G_GINT64_FORMAT ", window %g s, K = %d)\n",
               row->cases, o->seed, o->window_s, o->levels);
        printf("ratio of GPU utilization to the optimum   mean      p10       min\n");
    }
    printf("  %-11s %-26s %7.2f%%  %7.2f%%  %7.2f%%\n", row->kind, row->name, 100 * row->mean,
           100 * row->p10, 100 * row->min);
}

static int og_main(const og_opts *o)
{
    GError *err = NULL;
    /* one writer per output folder, as for run, compare and sweep */
    g_autoptr(output_lock) lock = o->output ? output_lock_take(o->output, &err) : NULL;
    /* a signal ends it at once: the journal keeps the finished cases for
     * --resume; the handler removes the lock file (cli_signal.c) */
    const char *remove[] = {lock ? output_lock_file(lock) : NULL, NULL};
    if (lock)
        cli_signals_catch_removing(remove);
    g_autoptr(og_bench) b = !o->output || lock ? og_bench_new(o, &err) : NULL;
    if (!b) {
        cli_error("optimal-gap: %s", err->message);
        g_error_free(err);
        return CLI_EXIT_FAILURE;
    }
    size_t resumed = og_bench_resumed(b);
    if (resumed > 0 && !o->quiet)
        fprintf(stderr, "optimal-gap: %zu cases taken from %s/%s\n", resumed, o->output,
                OG_JOURNAL);
    og_bench_run(b, o->quiet ? NULL : print_progress, NULL);
    size_t failed = 0;
    for (size_t i = 0; i < og_bench_case_count(b); i++) {
        const char *why = og_bench_case_error(b, i);
        if (why) {
            if (!o->quiet || failed == 0)
                cli_error("optimal-gap: %s", why);
            failed++;
        }
    }
    bool ok = og_bench_report(b, print_row, (void *)o, &err);
    og_bench_close(b, ok && failed == 0); /* else kept: --resume retries what failed */
    if (!ok) {
        cli_error("%s", err->message);
        g_error_free(err);
        return CLI_EXIT_FAILURE;
    }
    return failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

int cli_optimal_gap_main(int argc, char **argv)
{
    og_opts o = {.cases = 1500, .seed = 1, .window_s = 10.0, .levels = 3, .threads = 0,
                 .link_gbps = 50.0};
    GOptionEntry entries[] = {
        {"cases", 'n', 0, G_OPTION_ARG_INT, &o.cases, "random cases (default 1500)", "N"},
        {"seed", 's', 0, G_OPTION_ARG_INT64, &o.seed, "seed of the case generator (default 1)",
         "S"},
        {"window", 'w', 0, G_OPTION_ARG_DOUBLE, &o.window_s,
         "simulated seconds per run (default 10)", "SECONDS"},
        {"levels", 'k', 0, G_OPTION_ARG_INT, &o.levels, "priority levels K (default 3)", "K"},
        {"link-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &o.link_gbps,
         "ToR-aggregation link speed, Gbps (default 50: the network matters)", "GBPS"},
        {"threads", 'j', 0, G_OPTION_ARG_INT, &o.threads,
         "parallel cases (default: the number of processors)", "N"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output,
         "write summary.csv and cases.csv into DIR", "DIR"},
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet, "report only the first failed case", NULL},
        {"resume", 0, 0, G_OPTION_ARG_NONE, &o.resume,
         "go on with an interrupted run: take the cases finished in DIR/cases.journal", NULL},
        {"replay-all", 0, 0, G_OPTION_ARG_NONE, &o.replay_all,
         "replay every candidate, also those equivalent to an earlier run (slower, same result)",
         NULL},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("- Crux §4.4: schedulers and mechanisms against exhaustive search");
    g_option_context_set_summary(
        ctx, "Random small cases (2-layer Clos, 2-4 ToRs, 2 aggs, <= 20 hosts of 8 GPUs,\n"
             "5 data-parallel jobs); every path choice (2^5), ranking (5!) and K-level\n"
             "assignment (K^5) is replayed; prints, per mechanism and per scheduler, the\n"
             "ratio of GPU utilization to the optimum: mean, p10, min.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *err = NULL;
    int status;
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        cli_error("optimal-gap: %s", err->message);
        g_error_free(err);
        status = CLI_EXIT_USAGE;
    } else if (argc != 1 || (o.resume && !o.output) || (o.output && !*o.output)) {
        cli_error("optimal-gap: expected no arguments, --resume with --output, and a non-empty "
                  "--output");
        status = CLI_EXIT_USAGE;
    } else if (!og_opts_check(&o, &err)) {
        cli_error("optimal-gap: %s", err->message);
        g_error_free(err);
        status = CLI_EXIT_USAGE;
    } else {
        if (o.threads == 0)
            o.threads = (int)MAX(1, g_get_num_processors());
        status = og_main(&o);
    }
    g_free(o.output);
    return status;
}
