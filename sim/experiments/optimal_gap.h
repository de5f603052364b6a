/* optimal_gap.h - the Crux paper's §4.4 microbenchmark (`ccsim optimal-gap`).
 * Not here: options and printing (sim/cli/cli_optimal_gap.c).
 *
 * The Crux paper's §4.4 microbenchmark (`ccsim optimal-gap`;
 * docs/validation.md): random small cases, every scheduler and three
 * exhaustive searches replayed on each, ratios to the optimum.  This module
 * runs the cases and writes the files; it never prints: the command line
 * (sim/cli/cli_optimal_gap.c) parses the options and prints what the
 * callbacks hand it.
 *
 * Usage:
 *   og_bench *b = og_bench_new(&opts, &err);   // cases drawn, journal open
 *   og_bench_run(b, progress_fn, user);        // every case not yet done
 *   for each i: og_bench_case_error(b, i)      // the failed ones
 *   og_bench_report(b, row_fn, user, &err);    // ratio rows, summary.csv, cases.csv
 *   og_bench_close(b, remove_journal);
 *   og_bench_free(b);
 */
#ifndef CCSIM_SIM_EXPERIMENTS_OPTIMAL_GAP_H
#define CCSIM_SIM_EXPERIMENTS_OPTIMAL_GAP_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct og_opts {
    int cases;         /* N */
    gint64 seed;
    double window_s;   /* simulated seconds per run */
    int levels;        /* K for the compression search and the schedulers */
    int threads;
    double link_gbps;  /* ToR-aggregation links */
    char *output;      /* folder for cases.csv and summary.csv, or NULL */
    gboolean quiet;
    gboolean replay_all; /* no reuse of equivalent runs (optimal_gap_reuse.c) */
    gboolean resume;   /* take the finished cases from the output's journal */
} og_opts;

/* The journal file in the output folder. */
#define OG_JOURNAL "cases.journal"

typedef struct og_bench og_bench;

/* Load the catalog, draw the o->cases cases (case i seeded by (seed, i)),
 * pick the compared schedulers (every registered one but fixed and ideal)
 * and, with o->output, open its journal: with o->resume, take the cases it
 * holds (og_bench_resumed), else refuse to overwrite one
 * (CCS_ERROR_INVALID).  o is borrowed and must outlive the bench.
 * (transfer full) */
og_bench *og_bench_new(const og_opts *o, GError **error);

/* The options' numbers inside their limits (base/limits.h): cases,
 * window, levels, threads (0: one per CPU), link speed; each multiplies
 * the work.  CCS_ERROR_INVALID naming the option ("--cases: ...").
 * og_bench_new checks them first. */
bool og_opts_check(const og_opts *o, GError **error);
void og_bench_free(og_bench *b);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(og_bench, og_bench_free)

/* Cases taken from the journal by og_bench_new. */
size_t og_bench_resumed(const og_bench *b);

/* One finished case, as the progress callback sees it. */
typedef struct og_progress {
    size_t index;      /* the case */
    int done, total;   /* cases finished (journal's included), of all */
    size_t runs;       /* candidate decisions judged */
    size_t replays;    /* of which replayed (the others equivalent to an earlier run) */
    double opt;        /* the best utilization seen in the case */
} og_progress;
typedef void (*og_progress_fn)(void *user, const og_progress *p);

/* Run every case not taken from the journal on o->threads threads,
 * appending each finished case to the journal.  progress (nullable) is
 * called after each case, from the worker threads, one call at a time. */
void og_bench_run(og_bench *b, og_progress_fn progress, void *user);

/* Cases, and why case i failed ("case I: MESSAGE"; NULL if it completed).
 * (transfer none) */
size_t og_bench_case_count(const og_bench *b);
const char *og_bench_case_error(const og_bench *b, size_t i);

/* One row of the report: a mechanism against its exhaustive search, or a
 * scheduler against the best utilization seen in each case. */
typedef struct og_row {
    const char *kind;  /* "mechanism" or "scheduler" */
    const char *name;  /* "paths", "priorities", "compression", or a scheduler */
    size_t cases;      /* completed cases */
    double mean, p10, min; /* of the ratios to the optimum (p10: nearest rank) */
} og_row;
typedef void (*og_row_fn)(void *user, size_t r, const og_row *row);

/* Hand the rows (the three mechanisms, then the schedulers) to row_fn in
 * order and, with o->output, write them to summary.csv and every completed
 * case to cases.csv (the folder committed at the end).  Errors:
 * CCS_ERROR_INTERNAL when no case completed, output errors. */
bool og_bench_report(og_bench *b, og_row_fn row_fn, void *user, GError **error);

/* Close the journal; delete it too if remove_journal (after a complete
 * report; else it is kept and --resume retries what failed). */
void og_bench_close(og_bench *b, bool remove_journal);

#endif /* CCSIM_SIM_EXPERIMENTS_OPTIMAL_GAP_H */
