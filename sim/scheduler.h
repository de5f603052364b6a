/* scheduler.h - the scheduler interface the engine owns (docs/schedulers.md).
 * Not here: the schedulers and their registry (schedulers/).
 *
 * A scheduler is a table of functions plus private state.  The engine calls
 * it on every job start and end (reschedule) and, optionally, at the start
 * and end of each communication phase (on_comm).  Through sched_ctx it reads
 * the running jobs, their flows, candidate paths and link capacities, and it
 * decides paths, priority levels and time shifts.  What it leaves undecided
 * keeps its default: the ECMP path, level 0 for every job, no shift.
 *
 * A scheduler never touches the engine's internals; sched_ctx is valid only
 * during the call that received it.  All randomness comes from sched_rng().
 *
 * Vocabulary.  Job j (0..sched_job_count-1, the running jobs at this call,
 * in arrival order).  A job's network traffic per iteration is a list of
 * flows: each flow is NIC-to-NIC traffic between two hosts (a ring hop, an
 * all-to-all pair, a pipeline boundary) with a number of bytes per
 * iteration and a set of candidate paths (equal-cost shortest paths of the
 * topology).  Each job also has fixed links (inside hosts: NVLink, PCIe)
 * with bytes per iteration.  M_{j,e}, the bytes job j puts on link e per
 * iteration, is the sum over its flows of bytes x multiplicity on the
 * links of the chosen path, plus its fixed links.
 */
#ifndef CCSIM_SIM_SCHEDULER_H
#define CCSIM_SIM_SCHEDULER_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sched_ctx sched_ctx;

/* Options the engine passes to create(). */
typedef struct sched_options {
    int priority_levels;   /* K, number of usable levels (level 0 highest) */
    uint64_t seed;         /* the run's seed */
    const void *config;    /* (transfer none) (nullable) the scheduler's cJSON object
                              from the scenario (`"scheduler": {...}`) */
} sched_options;

/* What an on_comm hook promises the engine's fast path (docs/engine.md
 * §5b, §5c), so that the fast path may leave phases unseen by the hook.
 * Every field is a promise about the hook; all false (the zero default,
 * what a scheduler that leaves the struct out gets) promises nothing and is
 * always safe: every phase of a job sharing a link with another then runs
 * on the event path, seen by the hook.  A promise the hook does not keep
 * silently gives wrong results (the fast path skips calls the hook would
 * have acted on): give each one a test against --no-fast-forward
 * (scripts/check-steady.sh).  A scheduler without a hook needs none. */
typedef struct sched_comm_hints {
    /* on_comm changes nothing that matters when job j shares no link with
     * any other running job (it may still set j's own level): such a job
     * may then run fast-forwarded, its phases unseen (docs/engine.md §5b) */
    bool ignores_isolated;
    /* Optional (NULL: false), for a hook that ignores isolated jobs: asked
     * about running job j that shares links (docs/engine.md §5b).  True:
     * until the next reschedule on_comm does nothing for j and reads
     * nothing j's phases set, so j may run fast-forwarded as it would
     * without a hook. */
    bool (*ignores)(void *self, sched_ctx *ctx, size_t j);
    /* For a hook that ignores isolated jobs: what the phases of a job j
     * change through on_comm (everyone's levels, shifts, what later calls
     * read) depends on j's phases only while a running job sharing a link
     * with j is in its communication phase (on_comm's start to its end);
     * j may then run fast-forwarded while none is (docs/engine.md §5b). */
    bool local;
    /* What on_comm decides for a job depends only on the phases of the
     * running jobs linked to it through shared links (its group,
     * docs/engine.md §5c) and on what it keeps about them (state, below),
     * and whatever else it reads is a function of those: a group may then
     * skip whole repeats, or jump (--steady approx), the calls of its
     * members' phases in the skipped time unmade. */
    bool grouped;
    /* Optional (NULL: the hook keeps nothing about a job between calls),
     * for a grouped hook: append to out (double) what it keeps about
     * running job j that its later calls read, as it stands at now_s,
     * every time as an offset from now_s (cassini: whether j has a target
     * and was aligned, its last communication start).  A group repeats
     * only when its members' phases and these values repeat. */
    void (*state)(void *self, sched_ctx *ctx, size_t j, double now_s, GArray *out);
    /* With state: running job j and its whole group moved dt_s ahead (a
     * skip or a jump): every time the hook keeps about j moves with it. */
    void (*delay)(void *self, sched_ctx *ctx, size_t j, double dt_s);
    /* For a local hook: on_comm sets levels and nothing else (no path, no
     * shift), and what it reads of the phases is whether each job is in
     * one.  A job all of whose link-sharing jobs, transitively, run as
     * alone (their shared links can never saturate, docs/engine.md §5b)
     * then runs fast-forwarded as without a hook: no level there changes a
     * rate, and the levels are again those of the event path once its
     * stretch has ended (docs/engine.md §5b). */
    bool levels_only;
} sched_comm_hints;

typedef struct sched_ops {
    const char *name;      /* as typed on the command line: "crux" */
    const char *summary;   /* one line for `ccsim list` */
    bool unlimited_levels; /* wants as many levels as running jobs (crux-pa, crux-ps-pa) */
    /* Communication as if every job were alone in the cluster: a bucket
     * takes its isolated time T_b without touching the shared network
     * (the `ideal` upper bound, docs/model.md §6); the scheduler then
     * decides nothing that matters. */
    bool ideal_network;
    /* It may call sched_set_class_priority (rank a job's traffic classes
     * apart).  A structured job's classes then stay at its level for its
     * whole life otherwise, which lets the fast path take it for good
     * (job_ffwd_eligible). */
    bool class_levels;
    void *(*create)(const sched_options *opts, GError **error);
    void (*destroy)(void *self);
    /* Every job start and end: decide for all running jobs. */
    void (*reschedule)(void *self, sched_ctx *ctx);
    /* Optional (NULL): job j starts (starting = true) or finishes its
     * communication phase of an iteration. */
    void (*on_comm)(void *self, sched_ctx *ctx, size_t j, bool starting);
    /* What on_comm promises the fast path (above; zero: nothing). */
    sched_comm_hints comm_hints;
    /* The keys of the scenario's "scheduler" object it reads besides
     * "name" (NULL-terminated; NULL: none).  The engine refuses any other
     * key before create() (base/json.h: every reader declares its keys). */
    const char *const *config_keys;
} sched_ops;

/* ---- What a scheduler reads ------------------------------------------ */

typedef struct sched_job_info {
    const char *id;          /* the trace's job id */
    uint64_t uid;            /* stable for the job's life, unique in the run (arrival sequence) */
    double arrival_s;        /* when the job started running */
    int gpus;                /* n_j */
    size_t n_hosts;          /* hosts it occupies */
    const char *model;       /* catalog entry name */
    double compute_s;        /* C_j: compute per iteration (forward + backward) */
    double fwd_frac;         /* f_j: share of C_j done when communication starts */
    double opt_s;            /* optimizer step after compute and communication */
    double isolated_iter_s;  /* iteration time when alone in the cluster */
    double work_gpu_s;       /* W_j = n_j * C_j, GPU-seconds of compute per iteration */
    size_t n_flows;          /* network flows per iteration */
    int priority;            /* current level */
    double shift_s;          /* current time shift */
} sched_job_info;

typedef struct sched_flow_info {
    uint32_t src_nic, dst_nic; /* topology node ids of the NICs */
    double bytes;            /* bytes per iteration */
    size_t n_paths;          /* candidate paths (>= 1) */
    size_t path;             /* chosen candidate (ECMP until set) */
} sched_flow_info;

size_t sched_job_count(const sched_ctx *ctx);
void sched_job_get(const sched_ctx *ctx, size_t j, sched_job_info *out);
void sched_flow_get(const sched_ctx *ctx, size_t j, size_t f, sched_flow_info *out);

/* Links (topology link ids, as uint32_t) of candidate path p of flow f of
 * job j, appended to out after clearing it.  Each path is NIC -> NIC. */
void sched_flow_path_links(sched_ctx *ctx, size_t j, size_t f, size_t p, GArray *out);

/* Fixed links of job j (intra-host, independent of path choices) and the
 * bytes per iteration on each; arrays owned by the engine. */
size_t sched_job_fixed_links(const sched_ctx *ctx, size_t j, const uint32_t **links,
                             const double **bytes);

/* M_{j,e} under the current path choices, flows and fixed links together:
 * out_links (uint32_t) and out_bytes (double) are cleared, then filled in
 * parallel with one entry per distinct link, in increasing link order. */
void sched_job_link_bytes(sched_ctx *ctx, size_t j, GArray *out_links, GArray *out_bytes);

size_t sched_link_count(const sched_ctx *ctx);
double sched_link_capacity_Bps(const sched_ctx *ctx, uint32_t link);
int sched_priority_levels(const sched_ctx *ctx);
double sched_now_s(const sched_ctx *ctx);
GRand *sched_rng(sched_ctx *ctx);

/* ---- What a scheduler decides ---------------------------------------- */

/* Use candidate p for flow f of job j (taking effect at once). */
void sched_set_path(sched_ctx *ctx, size_t j, size_t f, size_t p);
/* Put every transfer of job j at level (0 highest, < sched_priority_levels). */
void sched_set_priority(sched_ctx *ctx, size_t j, int level);

/* Traffic classes of a job's transfers (docs/model.md §4b): a structured
 * job's tensor-parallel collectives, pipeline sends, gradient reductions,
 * parameter all-gathers (ZeRO) and MoE all-to-alls.  Every transfer of a
 * plain job is a gradient reduction. */
typedef enum sched_class {
    SCHED_CLASS_TP,
    SCHED_CLASS_PP,
    SCHED_CLASS_DP,
    SCHED_CLASS_PARAM,
    SCHED_CLASS_MOE,
    SCHED_CLASS_COUNT
} sched_class;

/* Put job j's transfers of class cls at level (0 highest, <
 * sched_priority_levels), over the job's own level; -1 gives them the
 * job's level again.  A scheduler that ranks traffic classes sets them;
 * one that ranks jobs need not know they exist. */
void sched_set_class_priority(sched_ctx *ctx, size_t j, sched_class cls, int level);
/* Delay job j's next iteration start by shift_s seconds (>= 0). */
void sched_set_shift(sched_ctx *ctx, size_t j, double shift_s);

#endif /* CCSIM_SIM_SCHEDULER_H */
