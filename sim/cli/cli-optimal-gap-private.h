/* cli-optimal-gap-private.h - what cli_optimal_gap.c and
 * cli_optimal_gap_journal.c share: the options, one case and its results,
 * the state shared by the worker threads, and the journal of finished
 * cases (`--resume`). */
#ifndef CCSIM_SIM_CLI_OPTIMAL_GAP_PRIVATE_H
#define CCSIM_SIM_CLI_OPTIMAL_GAP_PRIVATE_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>
#include <stdio.h>

#include "traces/catalog.h"

#define OG_JOBS 5
#define OG_MAX_HOSTS 20

typedef struct og_opts {
    int cases;         /* N */
    gint64 seed;
    double window_s;   /* simulated seconds per run */
    int levels;        /* K for the compression search and the schedulers */
    int threads;
    double link_gbps;  /* ToR-aggregation links */
    char *output;      /* folder for cases.csv and summary.csv, or NULL */
    gboolean quiet;
    gboolean replay_all; /* no reuse of equivalent runs (see og_probe) */
    gboolean resume;   /* take the finished cases from the output's journal */
} og_opts;

/* The mechanisms and the schedulers compared, as result columns. */
enum { OG_PATHS, OG_PRIORITIES, OG_COMPRESSION, OG_N_MECH };

typedef struct og_case {
    size_t index;
    char *topo_spec;
    cJSON *jobs;             /* the trace, a JSON array */
    char *ids[OG_JOBS];
    /* results */
    bool ok;
    char *error;
    double *sched_util;      /* per compared scheduler */
    double best[OG_N_MECH];  /* optimum of each search (with Crux's own decision) */
    double crux_util[OG_N_MECH]; /* Crux's decision in each search */
    double opt;              /* best utilization seen in the case */
    size_t runs;             /* candidate decisions judged (403 with K = 3) */
    size_t replays;          /* replays run to the end (runs minus reused ones) */
    GHashTable *memo;        /* run key (og_probe) -> utilization (double *) */
} og_case;

typedef struct og_shared {
    const og_opts *o;
    const catalog *cat;
    GPtrArray *sched_names; /* compared schedulers */
    GMutex lock;            /* guards done (progress line) and journal */
    int done;
    FILE *journal;          /* OUTPUT/cases.journal while running, or NULL */
} og_shared;

/* The journal file in the output folder. */
#define OG_JOURNAL "cases.journal"

/* Open OUTPUT/cases.journal (nothing without --output): with --resume,
 * first take the cases it holds (marked ok with their results; *resumed
 * counts them; its header must match this run's settings), else refuse to
 * overwrite an existing one (CCS_ERROR_INVALID).  Rewrites it with the
 * cases taken and keeps it open in sh->journal. */
bool cli__og_journal_open(og_shared *sh, og_case *cases, size_t n, size_t *resumed,
                          GError **error);
/* Append a finished case (ok ones only), flushed.  Caller holds sh->lock. */
void cli__og_journal_write(const og_shared *sh, const og_case *c);
/* Close and delete the journal (after the outputs are written). */
void cli__og_journal_remove(og_shared *sh);

#endif /* CCSIM_SIM_CLI_OPTIMAL_GAP_PRIVATE_H */
