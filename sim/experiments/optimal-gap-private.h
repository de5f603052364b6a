/* optimal-gap-private.h - what the optimal-gap files share: cases, state,
 * journal, shortcuts.  Not here: the public API (optimal_gap.h).
 */
#ifndef CCSIM_SIM_EXPERIMENTS_OPTIMAL_GAP_PRIVATE_H
#define CCSIM_SIM_EXPERIMENTS_OPTIMAL_GAP_PRIVATE_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>
#include <stdio.h>

#include "optimal_gap.h"
#include "sim/replay.h"
#include "sim/scheduler.h"
#include "traces/catalog.h"

#define OG_JOBS 5
#define OG_MAX_HOSTS 20

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

struct og_bench {
    const og_opts *o;       /* (transfer none) */
    catalog *cat;
    GPtrArray *models;      /* catalog entries usable as data-parallel jobs (names) */
    GPtrArray *sched_names; /* compared schedulers */
    og_case *cases;
    size_t n_cases;
    size_t resumed;         /* cases taken from the journal */
    GMutex lock;            /* guards done (progress line) and journal */
    int done;
    FILE *journal;          /* OUTPUT/cases.journal while running, or NULL */
    og_progress_fn progress; /* (nullable) during og_bench_run */
    void *progress_user;
};

/* Open OUTPUT/cases.journal (nothing without --output): with --resume,
 * first take the cases it holds (marked ok with their results; *resumed
 * counts them; its header must match this run's settings), else refuse to
 * overwrite an existing one (CCS_ERROR_INVALID).  Rewrites it with the
 * cases taken and keeps it open in sh->journal. */
bool og__journal_open(og_bench *sh, og_case *cases, size_t n, size_t *resumed,
                      GError **error);
/* Append a finished case (ok ones only), flushed.  Caller holds sh->lock. */
void og__journal_write(const og_bench *sh, const og_case *c);
/* Close and delete the journal (after the outputs are written). */
void og__journal_remove(og_bench *sh);

/* ---- Reuse of equivalent runs and stopping runs that cannot win
 * (optimal_gap_reuse.c, where the reasoning is spelled out) ---- */

/* A memo entry: the run's utilization, or an upper bound of it if the
 * run was stopped as unable to beat the best (og__watch). */
typedef struct og_memo {
    double util;
    bool exact;
} og_memo;

typedef struct og_probe {
    const og_case *c;
    const char *sched;
    GArray *log;                   /* og_resched per reschedule until all arrived */
    GHashTable *links[OG_JOBS];    /* links the job used at any reschedule (set) */
    char *key;                     /* set once every job has arrived */
    double beat;                   /* the best to beat, NAN to finish every run */
    bool hit;
    og_memo hit_val;
} og_probe;

/* Allocate p's log and link sets (p->c, sched and beat already set). */
void og__probe_start(og_probe *p);
/* Free what og__probe_start allocated and p->key. */
void og__probe_clear(og_probe *p);
/* The replay's decision hook (replay_set_decision_hook): records the
 * decisions until every job has arrived, then stops the run if its key was
 * seen before (p->hit, p->hit_val). */
bool og__probe_hook(void *user, sched_ctx *ctx);

/* Stopping runs that cannot win.  After the last arrival the allocation
 * is fixed until the window's end (no job ends inside it), so with B and A
 * the busy and allocated GPU-seconds so far and a the GPUs allocated now,
 * the final utilization is at most (B + a r) / (A + a r), r the time left
 * (every allocated GPU busy from now on).  A search only needs its
 * maximum, so a run whose bound is below the best so far is stopped; the
 * margin (1e-9) is far above the rounding of these sums. */
typedef struct og_watcher {
    double beat;
    double last_arrival_s;
    double bound;   /* set when it stops the run */
} og_watcher;

/* The replay's watcher (replay_set_watch): stops a run whose bound falls
 * below beat, leaving the bound in the og_watcher. */
bool og__watch(void *user, const replay_watch *w);

#endif /* CCSIM_SIM_EXPERIMENTS_OPTIMAL_GAP_PRIVATE_H */
