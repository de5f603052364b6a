/* structure.h - the resolved parallel structure of one training job: its
 * degrees of parallelism, its schedule and the per-stage figures the
 * engine runs as a dependency graph (docs/model.md §4b, docs/usage.md
 * "structure").  Not here: deriving the figures from an architecture
 * (the workload files of traces/), running them (sim/job_graph.c).
 *
 * Ranks.  A job of gpus = tp * pp * dp GPUs; rank r (in the order of the
 * job's GPUs, host by host) has tp rank r % tp, DP rank (r / tp) % dp and
 * stage r / (tp dp): Megatron-LM's order, TP innermost, PP outermost
 * (`order` changes which dimension is innermost; sim/cluster.h places the
 * ranks on the GPUs).  EP
 * does not multiply: as in Megatron-core, the expert-parallel group is ep
 * consecutive DP ranks (ep divides dp), and an expert's gradients are
 * reduced over the dp / ep ranks that hold the same experts.
 *
 * One iteration (per DP replica, all replicas in lock-step): m micro-batches
 * through pp stages in the 1F1B order (interleaved over vpp chunks per
 * stage when vpp > 1), each stage's forward of one micro-batch taking
 * fwd_s of compute and its backward bwd_s (a chunk 1/vpp of them), plus
 * the blocking communication of its layers: tp_colls_fwd / tp_colls_bwd
 * TP collectives of tp_bytes per layer and pass (all-reduces; an
 * all-gather and a reduce-scatter each with sequence parallelism) and
 * moe_a2a_fwd / moe_a2a_bwd all-to-alls of moe_a2a_bytes per GPU per MoE
 * layer and pass.  Activations (act_bytes per micro-batch and stage
 * boundary, all TP ranks together) go forward, their gradients (as many
 * bytes) backward.  Gradients: grad_bytes of a stage (all TP ranks of one
 * replica) in `buckets` buckets of equal bytes, bucket b (0-based, backward
 * order) ready when its last byte is complete (overlap_grad_reduce) or when
 * the stage's last backward pass ends: grad_early_bytes once grad_early_at
 * of that pass is done, grad_late_bytes at its end, the rest evenly over
 * the pass from grad_early_at on (without early and late bytes: bucket b
 * when (b + 1) / buckets of the pass is done); all-reduced over the DP group
 * (zero 0), reduce-scattered (zero >= 1; zero 1 and 2 then all-gather
 * param_bytes after the optimizer step, zero 3 all-gathers param_bytes
 * before every forward and backward pass in fsdp_units pieces).  With
 * pp > 1, embed_grad_bytes (a tied word embedding's gradient, all TP
 * ranks together) are then all-reduced between each rank of the first
 * stage and its counterpart on the last, which holds the output layer's
 * copy of it (Megatron-LM's embedding group).  Then opt_s of optimizer
 * step on every GPU.
 */
#ifndef CCSIM_TRACES_STRUCTURE_H
#define CCSIM_TRACES_STRUCTURE_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>

/* How the DP group shares the model state (ZeRO stage; FSDP full shard = 3). */
typedef enum structure_zero {
    STRUCTURE_ZERO_0 = 0, /* replicated: gradients all-reduced (DDP, Megatron's default) */
    STRUCTURE_ZERO_1 = 1, /* optimizer state sharded: gradients reduce-scattered, parameters
                           * all-gathered after the step (Megatron's distributed optimizer) */
    STRUCTURE_ZERO_2 = 2, /* gradients sharded too: the same traffic as 1 */
    STRUCTURE_ZERO_3 = 3, /* parameters sharded (ZeRO-3, FSDP full shard): all-gathered before
                           * every forward and backward pass, gradients reduce-scattered */
} structure_zero;

/* One pipeline stage's figures (per micro-batch unless said). */
typedef struct structure_stage {
    int layers;               /* transformer layers on the stage, >= 1 */
    int moe_layers;           /* of them MoE layers (one all-to-all pair per pass each), <= layers */
    double fwd_s;             /* forward compute of one micro-batch through the stage, s */
    double bwd_s;             /* backward compute of one micro-batch, s */
    double grad_bytes;        /* gradient bytes of the stage of one replica, all TP ranks
                               * together (dense part when MoE), reduced over the DP group */
    double expert_grad_bytes; /* expert gradient bytes of the stage held by one EP rank, all
                               * TP ranks together, reduced over the dp / ep ranks holding the
                               * same experts; 0 without MoE */
    double param_bytes;       /* parameter bytes of the stage, all TP ranks together: what
                               * ZeRO 1-3 all-gather */
    double grad_early_bytes;  /* of grad_bytes, those complete once grad_early_at of the
                               * stage's last backward pass is done (the output layer, whose
                               * backward runs first); 0: none */
    double grad_early_at;     /* in (0, 1]; 0 when grad_early_bytes is 0 */
    double grad_late_bytes;   /* of grad_bytes, those complete only when the stage's last
                               * backward pass ends (the embeddings, whose backward runs
                               * last); the rest is spread evenly from grad_early_at to the
                               * end */
} structure_stage;

/* The structure of one job.  Every figure is resolved (no defaults left). */
typedef struct job_structure {
    int tp, pp, dp;           /* tensor, pipeline, data parallel degrees; gpus = tp pp dp */
    int ep;                   /* expert parallel degree, divides dp; 1 without MoE */
    int experts;              /* experts per MoE layer (a multiple of ep); 0 without MoE */
    int order[3];             /* rank order, innermost dimension first: 0 TP, 1 DP, 2 PP
                               * (Megatron-LM: {0, 1, 2}, "tp-dp-pp") */
    int vpp;                  /* model chunks per stage (interleaved 1F1B when > 1) */
    int micro_batches;        /* m per iteration per replica (a multiple of pp when vpp > 1) */
    bool seq_parallel;        /* TP all-reduces run as all-gather + reduce-scatter */
    bool tp_across_hosts;     /* a TP group may span hosts (tp > GPUs per host allowed) */
    structure_zero zero;      /* ZeRO stage / FSDP */
    int fsdp_units;           /* ZeRO 3: pieces each stage's parameters are gathered in, the
                               * next prefetched while the current one computes; >= 1 */
    bool overlap_grad_reduce; /* buckets start during the last backward pass (else after it) */
    int buckets;              /* gradient buckets per stage, >= 1 */
    double act_bytes;         /* activations per micro-batch per stage boundary, all TP ranks */
    double tp_bytes;          /* bytes of one TP collective (the tensor it reduces), per
                               * micro-batch */
    int tp_colls_fwd;         /* TP collectives per layer in the forward pass */
    int tp_colls_bwd;         /* TP collectives per layer in the backward pass */
    double moe_a2a_bytes;     /* bytes one GPU sends in one all-to-all of one MoE layer */
    int moe_a2a_fwd;          /* all-to-alls per MoE layer in the forward pass */
    int moe_a2a_bwd;          /* all-to-alls per MoE layer in the backward pass */
    double embed_grad_bytes;  /* tied word embedding's gradient, all TP ranks together,
                               * all-reduced between the first and the last stage after
                               * their reductions; 0: none (pp = 1 or untied) */
    double opt_s;             /* optimizer step on every GPU after the reductions, s */
    structure_stage *stages;  /* pp entries (owned) */
} job_structure;

/* Parse the `structure` object of a scenario job's model (docs/usage.md)
 * for a job of gpus GPUs.  Every figure must be pinned (fwd_s and bwd_s
 * are required, the rest has documented defaults); per-stage figures are
 * a number (every stage) or an array of pp numbers.  where names the job
 * in messages ("FILE: job ID").  (transfer full) NULL with
 * CCS_ERROR_INVALID, "WHERE: structure.KEY: what is wrong", on a bad or
 * unknown key or an inconsistent structure: tp pp dp != gpus, pp vpp >
 * layers, micro-batches the schedule cannot take, experts not a multiple
 * of ep, ep not dividing dp. */
job_structure *structure_parse(const cJSON *obj, int gpus, const char *where, GError **error);

/* The checks that need the topology: a TP group wider than the largest
 * host (gpus_per_host GPUs) unless tp_across_hosts.  CCS_ERROR_INVALID,
 * "WHERE: ...", when it fails. */
bool structure_check_hosts(const job_structure *s, int gpus_per_host, const char *where,
                           GError **error);

/* GPUs of the structure (tp pp dp). */
int structure_gpus(const job_structure *s);

/* Compute per GPU per iteration on stage st: m (fwd_s + bwd_s), s. */
double structure_stage_compute_s(const job_structure *s, int st);

/* Multiply every stage's fwd_s and bwd_s by factor (> 0: a job's compute
 * jitter). */
void structure_scale_compute(job_structure *s, double factor);

/* A deep copy (transfer full); NULL gives NULL. */
job_structure *structure_copy(const job_structure *s);
void structure_free(job_structure *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(job_structure, structure_free)

#endif /* CCSIM_TRACES_STRUCTURE_H */
