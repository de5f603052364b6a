/* job_graph.h - one iteration of a structured job as a dependency graph of
 * compute and communication tasks, and its execution on a network
 * (docs/model.md §4b).  Not here: the structure's figures
 * (traces/structure.h), the operations' transfers (collective.h), the
 * job's life around its iterations (job.c).
 *
 * The graph.  Every DP replica runs the same pipeline in lock-step, so a
 * task stands for its stage's work on every replica: a compute task keeps
 * the stage's tp dp GPUs busy for its duration; a communication task runs
 * one operation of the job's plan (collective.h: the TP groups of a stage,
 * the pipeline pairs of a stage boundary, the EP groups, the DP groups of
 * a stage), whose steps end when every group's transfers of the step end.
 * Tasks start when all their predecessors are done; the iteration ends
 * when every task is done.
 *
 *   passes      each stage runs its forward (F) and backward (B) passes of
 *               the m micro-batches (and vpp chunks) in Megatron-LM's 1F1B
 *               order (job_graph_schedule); a pass starts when the stage's
 *               previous pass and its send are done (blocking p2p, as
 *               Megatron's non-overlapped schedule waits on its requests)
 *               and its input has arrived: F(s) after F(s-1)'s send, B(s)
 *               after B(s+1)'s send, the last stage's B after its own F.
 *   a pass      is segments, each: compute (its share of fwd_s or bwd_s),
 *               then the TP collectives of its layers (one transfer: their
 *               summed bytes, their startups added), then the MoE
 *               all-to-alls of its MoE layers (the same).  One segment per
 *               pass when the TP and EP groups are inside hosts; one per
 *               layer when a TP or EP group spans hosts (the collectives
 *               then cross NICs that other jobs share, so they keep their
 *               own times); fsdp_units segments for ZeRO 3 (each waits for
 *               its parameters' all-gather, the next one gathered while it
 *               computes).
 *   sends       after a pass: act_bytes / tp per TP rank to the next stage
 *               (forward) or the previous (backward), all pairs of the
 *               boundary one lock-step transfer.
 *   reductions  per stage, bucket b of B after the piece of the stage's
 *               last backward that ends when its last gradient is
 *               complete: (b + 1) / B of its compute, or by the early and
 *               late bytes (structure.h; docs/model.md §4b "Bucket
 *               readiness") (overlap_grad_reduce; else after the whole
 *               pass), one
 *               bucket at a time: all-reduce (zero 0) or reduce-scatter of
 *               grad_bytes / (tp B) over each DP group, then the expert
 *               gradients over the expert-DP groups.
 *   embedding   with pp > 1 and a tied embedding, once the first and the
 *               last stage's reductions are done: an all-reduce of
 *               embed_grad_bytes / tp between each first-stage rank and its
 *               last-stage counterpart (a DP-class reduction).
 *   optimizer   after every stage's reductions, opt_s on every GPU; then
 *               (zero 1, 2) each stage all-gathers its parameters.
 *
 * Why one transfer for a segment's TP collectives is exact when nothing
 * else uses their links: a lock-step ring alone on its links moves at
 * x = min_e B_e / m_e whatever its size, so k collectives of S bytes
 * separated by compute c_1..c_k take sum c_i + k (a + S / x) (a: one
 * collective's startup), and the compute followed by one transfer of k S
 * bytes with startup k a takes sum c_i + k a + k S / x: the same end, the
 * same busy time.  Only where inside the pass the GPUs idle moves (within
 * the pass).  A TP group inside a host uses only its own GPUs' NVLink
 * links, which no other job touches; the job's own DP or pipeline
 * transfers may meet it there, and then the merged transfer shares the
 * links over the pass instead of in bursts (the same bytes at the same
 * rates over the pass).  tests/test_jobgraph.c checks the equality.
 */
#ifndef CCSIM_SIM_JOB_GRAPH_H
#define CCSIM_SIM_JOB_GRAPH_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "cluster.h"
#include "collective.h"
#include "event.h"
#include "net.h"
#include "topo/topo.h"
#include "traces/structure.h"

/* Traffic classes (a scheduler may rank them, scheduler.h). */
typedef enum job_graph_class {
    JOB_GRAPH_TP,    /* tensor-parallel collectives */
    JOB_GRAPH_PP,    /* pipeline activations and their gradients */
    JOB_GRAPH_DP,    /* gradient reductions */
    JOB_GRAPH_PARAM, /* ZeRO / FSDP parameter all-gathers */
    JOB_GRAPH_MOE,   /* MoE all-to-alls */
    JOB_GRAPH_CLASS_COUNT
} job_graph_class;

typedef enum job_graph_kind { JOB_GRAPH_COMPUTE, JOB_GRAPH_COMM } job_graph_kind;

/* One task of the graph. */
typedef struct job_graph_task {
    job_graph_kind kind;
    job_graph_class cls; /* JOB_GRAPH_COMM: its traffic class */
    int stage;           /* the stage it belongs to, -1: the whole job (the optimizer) */
    int op;              /* JOB_GRAPH_COMM: the plan operation it runs */
    double dur_s;        /* JOB_GRAPH_COMPUTE: seconds of compute */
    int gpus;            /* JOB_GRAPH_COMPUTE: GPUs it keeps busy */
    bool reduce;         /* a gradient reduction (the job's communication phase) */
    uint32_t n_pred;     /* tasks it waits for */
    uint32_t succ_off;   /* its successors: succ[succ_off .. succ_off + n_succ - 1] */
    uint32_t n_succ;
} job_graph_task;

typedef struct job_graph job_graph;

/* The pass order of stage st (Megatron-LM's 1F1B; interleaved when vpp >
 * 1): into out, 3 ints per pass (forward 1 / backward 0, micro-batch,
 * chunk).  Exposed for the tests. */
void job_graph_schedule(int pp, int vpp, int m, int st, GArray *out);

/* The graph of one iteration of s on the GPUs of a (its ranks placed by
 * cluster_rank_positions), and in *plan (transfer full) the operations
 * its communication tasks run, built with o (uid, seed, channels).
 * (transfer full) NULL with an error if a topology query fails.
 * O(tasks + ranks x operations). */
job_graph *job_graph_new(const job_structure *s, const cluster_alloc *a, topo *t,
                         const coll_options *o, coll_plan **plan, GError **error);
void job_graph_free(job_graph *g);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(job_graph, job_graph_free)

size_t job_graph_task_count(const job_graph *g);
const job_graph_task *job_graph_task_get(const job_graph *g, size_t i);
/* The successors of task i (n_succ of them).  (transfer none) */
const uint32_t *job_graph_succ(const job_graph *g, size_t i);
/* Whether any task communicates over a link (the plan has a transfer). */
bool job_graph_has_comm(const job_graph *g);
/* Gradient reduction tasks per iteration. */
int job_graph_reductions(const job_graph *g);
/* GPUs of the job. */
int job_graph_gpus(const job_graph *g);

/* ---- Running it ------------------------------------------------------ */

typedef struct job_graph_run job_graph_run;

/* What a run reports to its owner. */
typedef struct job_graph_hooks {
    void *user;
    /* delta GPUs of the job became busy (> 0) or idle (< 0) */
    void (*busy)(void *user, int delta_gpus, double now_s);
    /* the iteration's last task ended */
    void (*done)(void *user, double now_s);
    /* (nullable) the first reduction of the iteration starts (true), or the
     * last one ends (false); return false if the run was stopped meanwhile */
    bool (*phase)(void *user, bool starting, double now_s);
    /* (nullable) the run's last transfer in flight completed */
    void (*net_idle)(void *user);
    /* (nullable) transfer xfer of step `step` of communication task `task`
     * started as net transfer id; a transfer ended (the packet export) */
    void (*xfer_started)(void *user, uint32_t task, size_t step, size_t xfer, net_transfer_id id,
                         double now_s);
    void (*xfer_done)(void *user, net_transfer_id id, double now_s);
} job_graph_hooks;

/* Where a run puts its transfers. */
typedef struct job_graph_net {
    evq *q;                  /* events */
    net *n;                  /* transfers */
    const uint32_t *link_map; /* topology link -> net link, or NULL (the same ids: the
                               * replay's net, which knows the plan's twins, so its
                               * transfers name them no more: coll_xfer_net_link_set) */
    double alpha_s;          /* startup latency per lock-step */
    GArray *active;          /* net_transfer_id of the running transfers, kept by the run */
    const int *level;        /* the level its transfers start at, read at each start (NULL: 0) */
    const int *class_level;  /* per traffic class, a level that overrides *level when >= 0
                              * (JOB_GRAPH_CLASS_COUNT entries, read likewise), or NULL */
    const double *tag;       /* their tag (net.h), read likewise (NULL: 0) */
    void *xfer_user;         /* the user of its transfers (net.h: observers such as the
                              * timeline see it), or NULL: the run itself */
    net_done_fn xfer_done;   /* with xfer_user: their completion callback, which must call
                              * job_graph_run_xfer_done */
} job_graph_net;

/* A run of g's iterations with plan (both borrowed, outliving it).
 * (transfer full) */
job_graph_run *job_graph_run_new(const job_graph *g, const coll_plan *plan,
                                 const job_graph_net *nt, const job_graph_hooks *h);
void job_graph_run_free(job_graph_run *r);
/* Communication tasks take dur_s[task] instead of running on the network
 * (the ideal scheduler; dur_s borrowed, one per task), or NULL. */
void job_graph_run_set_ideal(job_graph_run *r, const double *dur_s);
/* The traffic class of r's transfer id in flight (-1 if it is not r's). */
int job_graph_run_xfer_class(const job_graph_run *r, net_transfer_id id);
/* The level a transfer of class cls starts at now (nt's level pointers). */
int job_graph_run_class_level(const job_graph_run *r, job_graph_class cls);

/* Transfer id of r completed at now_s (for an nt->xfer_done callback). */
void job_graph_run_xfer_done(job_graph_run *r, net_transfer_id id, double now_s);
/* What a run is doing, for a snapshot of its phase (arrays of one entry
 * per task, borrowed: valid until the run changes). */
typedef struct job_graph_run_state {
    size_t tasks_left;           /* tasks of the running iteration not done (0: none running) */
    int reductions_started;      /* its reduction tasks started */
    int reductions_left;         /* and not done */
    const uint32_t *pred_left;   /* per task: predecessors not done */
    const uint32_t *step;        /* per task: the running step of a communication task */
} job_graph_run_state;
void job_graph_run_state_get(const job_graph_run *r, job_graph_run_state *out);
/* r's pending events (its current generation) into out (evq_entry, cleared
 * first), in firing order; each one's kind and task in *kind, *task by
 * job_graph_run_event_info.  O(pending events of the queue). */
void job_graph_run_events(const job_graph_run *r, GArray *out);
void job_graph_run_event_info(uint64_t arg, int *kind, uint32_t *task);

/* Start an iteration at now_s (none may be running). */
void job_graph_run_start(job_graph_run *r, double now_s);
/* Forget the iteration in progress: its pending events are cancelled, so
 * the run may be freed at once (the caller cancels the transfers of
 * nt->active).  O(pending events of the queue). */
void job_graph_run_stop(job_graph_run *r);

/* What an iteration alone did, after each of its events (breakpoints of
 * piecewise-linear curves: busy GPUs and rates change only at events). */
typedef struct job_graph_trace {
    GArray *t_s;   /* double: the event's time */
    GArray *busy;  /* double: busy GPU-seconds since the iteration's start */
    GArray *bytes; /* double[TOPO_TIER_COUNT] per entry: bytes carried on each tier */
} job_graph_trace;

/* Bytes carried so far on each tier of a private net whose link l has
 * tier tiers[l] (int), into b[TOPO_TIER_COUNT] (cleared first). */
void job_graph_tier_bytes(net *n, const GArray *tiers, double *b);

/* One iteration of g alone on a fresh network holding the plan's links,
 * every transfer at one level (with ideal_s, not NULL: its communication
 * tasks take those durations instead, job_graph_run_set_ideal): its
 * duration in *iter_s, each
 * communication task's duration in dur_s (one per task, or NULL), and
 * with tr (arrays appended to) its curves.  Errors: the engine refusing a
 * transfer (CCS_ERROR_INTERNAL). */
bool job_graph_isolated(const job_graph *g, const coll_plan *plan, topo *t, double alpha_s,
                        const double *ideal_s, double *iter_s, double *dur_s,
                        job_graph_trace *tr, GError **error);
/* The same with the transfers at the levels of level and class_level
 * (job_graph_net's; NULL: all at level 0). */
bool job_graph_isolated_levels(const job_graph *g, const coll_plan *plan, topo *t,
                               double alpha_s, const int *level, const int *class_level,
                               double *iter_s, job_graph_trace *tr, GError **error);

#endif /* CCSIM_SIM_JOB_GRAPH_H */
