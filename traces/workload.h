/* workload.h - a training job described by its architecture, parallelism
 * and framework, resolved into the figures of one iteration (docs/models.md
 * "Structured jobs", docs/model.md).  Not here: running the iteration (the
 * engine), the catalog's flat per-model figures (catalog.h).
 *
 * A structured job is three descriptions, each with its source:
 *   - the architecture: a transformer by its dimensions (workload_arch), or
 *     a catalog entry that carries them;
 *   - the parallelism: tp, pp, dp, ep, ZeRO stage, micro-batch size and
 *     global batch, sequence parallelism, activation recomputation;
 *   - the framework's behaviour: the dtype of the gradient reduction, its
 *     overlap with the backward pass, the bucket size, pipeline
 *     scatter/gather.
 * workload_structure_build() turns them into the structure the engine runs
 * (structure.h): per micro-batch and pipeline stage the forward and
 * backward compute (FLOPs from the dimensions divided by ONE achieved rate
 * per GPU type, workload_gpu_flops), and the bytes of every traffic class:
 * tensor-parallel collectives, pipeline activations, data-parallel
 * gradients, FSDP parameters, MoE all-to-all.  Pinned figures (fwd_s,
 * bwd_s, act_bytes, grad_bytes, buckets, opt_s, ...) replace the derived
 * ones.  Every formula and constant: docs/models.md.
 */
#ifndef CCSIM_TRACES_WORKLOAD_H
#define CCSIM_TRACES_WORKLOAD_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>

#include "catalog.h"
#include "structure.h"
#include "trace.h"

/* A transformer by its dimensions.  Counts are per model, not per GPU. */
typedef struct workload_arch {
    int layers;           /* transformer layers l */
    int hidden;           /* hidden size h */
    int heads;            /* attention heads a */
    int kv_heads;         /* key/value heads (grouped-query attention); = heads when not grouped */
    int ffn;              /* MLP inner size f (4h for GPT) */
    bool gated_mlp;       /* SwiGLU-style MLP: three h x f matrices instead of two */
    int seq;              /* sequence length s (tokens per sample) */
    int vocab;            /* vocabulary V */
    bool tied_embeddings; /* the output layer shares the input embedding */
    bool learned_pos;     /* learned position embeddings (s x h parameters) */
    bool biases;          /* linear layers and norms carry biases (GPT, BERT; not LLaMA) */
    int experts;          /* experts of an MoE layer, 0 for a dense model */
    int top_k;            /* experts each token is routed to */
    int moe_every;        /* every moe_every-th layer is an MoE layer (1: all) */
    int moe_ffn;          /* an expert's MLP inner size */
} workload_arch;

/* Activation recomputation (Megatron-LM --recompute-granularity). */
typedef enum workload_recompute {
    WORKLOAD_RECOMPUTE_NONE,
    WORKLOAD_RECOMPUTE_SELECTIVE, /* the attention core only (Korthikanti et al. 2022) */
    WORKLOAD_RECOMPUTE_FULL,      /* every layer's forward again before its backward */
} workload_recompute;

/* The framework, which sets the defaults of workload_framework_defaults(). */
typedef enum workload_framework_kind {
    WORKLOAD_FW_MEGATRON, /* Megatron-LM: TP/PP/DP, 1F1B, one reduction after the backward */
    WORKLOAD_FW_DDP,      /* PyTorch DDP: 25 MiB buckets overlapped with the backward */
    WORKLOAD_FW_FSDP,     /* PyTorch FSDP FULL_SHARD / ZeRO-3 */
} workload_framework_kind;

/* Parallelism of one job.  0 in an int field means "derive it". */
typedef struct workload_parallel {
    int tp, pp, dp, ep;          /* tensor, pipeline, data, expert parallel degrees */
    int vpp;                     /* model chunks per stage (interleaved 1F1B when > 1) */
    int experts;                 /* experts per MoE layer without an architecture (e.g. the
                                  * embedding shards of a recommendation model: one per rank) */
    int zero;                    /* 0 none; 1-2 sharded optimizer (reduce-scatter the gradients,
                                  * all-gather the parameters after the step); 3 FSDP / ZeRO-3 */
    int micro_batch;             /* b: sequences per micro-batch */
    int global_batch;            /* B: sequences per iteration over all replicas */
    int micro_batches;           /* m = B / (dp b): micro-batches per pipeline per iteration */
    bool sequence_parallel;      /* Megatron sequence parallelism (with tp > 1) */
    workload_recompute recompute;
    bool tp_across_hosts;        /* the user accepts a TP group larger than a host */
} workload_parallel;

/* Framework behaviour; defaults per framework (docs/models.md). */
typedef struct workload_framework {
    workload_framework_kind kind;
    double grad_value_bytes;  /* bytes per gradient value in the DP reduction (4: fp32) */
    double act_value_bytes;   /* bytes per activation value on the wire (2: bf16/fp16) */
    double param_value_bytes; /* bytes per parameter value all-gathered by ZeRO/FSDP (2) */
    bool overlap_grad_reduce; /* buckets reduced during the last backward pass */
    double bucket_bytes;      /* gradient bucket size; 0: one bucket per stage */
    bool pp_scatter_gather;   /* each TP rank sends 1/tp of a stage boundary (Megatron SC'21) */
} workload_framework;

/* What a structured job says: the three descriptions and the pins. */
typedef struct workload_spec {
    bool has_arch;
    workload_arch arch;
    workload_parallel par;
    workload_framework fw;
    /* Pinned figures (< 0: not pinned; buckets 0: not pinned). */
    double fwd_s, bwd_s;      /* one micro-batch through one stage on one GPU */
    double act_bytes;         /* per micro-batch between adjacent stages (whole pipeline) */
    double grad_bytes;        /* per DP replica of one stage */
    double grad_late_bytes;   /* of them, complete only at the end of the backward pass
                               * (a catalog entry's last_grad_params) */
    double tp_bytes;          /* one TP collective */
    double a2a_bytes;         /* one MoE all-to-all per micro-batch */
    double opt_s;             /* optimizer step */
    int buckets;              /* gradient buckets per stage */
    double tflops;            /* achieved rate override (FLOP/s / 1e12), < 0: the GPU's */
} workload_spec;

/* What the resolution used, for reports (`ccsim workload explain`). */
typedef struct workload_report {
    double params;        /* model parameters (0 without an architecture) */
    double flops_iter;    /* FLOPs of one iteration, whole job (recompute included) */
    double gpu_flops;     /* the achieved rate used, FLOP/s */
    int micro_batch;      /* sequences per micro-batch */
    int layers_per_stage; /* transformer layers per stage (0 without an architecture) */
} workload_report;

/* ---- the architecture ---------------------------------------------- */

/* Forward FLOPs of one transformer layer (MoE when moe) for one micro-batch
 * of b sequences, whole layer (divide by tp for one GPU): matrix
 * multiplications 2 b s x (weights) plus the attention core 4 b s^2 h. */
double workload_layer_fwd_flops(const workload_arch *a, int b, bool moe);
/* Forward FLOPs of the logit layer: 2 b s h V. */
double workload_logit_fwd_flops(const workload_arch *a, int b);
/* Parameters of one transformer layer (MoE when moe). */
double workload_layer_params(const workload_arch *a, bool moe);
/* Parameters of the embeddings (word + learned positions). */
double workload_embedding_params(const workload_arch *a);
/* Parameters of the whole model: layers, embeddings, final norm, output
 * layer unless tied. */
double workload_model_params(const workload_arch *a);
/* Whether layer i (0-based) is an MoE layer. */
bool workload_layer_is_moe(const workload_arch *a, int i);

/* ---- constants with sources (docs/models.md) ------------------------ */

/* The one achieved training rate per GPU type, FLOP/s (docs/models.md). */
double workload_gpu_flops(catalog_gpu gpu);
/* Optimizer step time per parameter held by a GPU, seconds. */
double workload_opt_s_per_param(catalog_gpu gpu);

/* ---- descriptions --------------------------------------------------- */

/* Defaults of a framework (docs/models.md "Framework behaviour"). */
workload_framework workload_framework_defaults(workload_framework_kind kind);
/* A spec with nothing pinned, every degree to derive, Megatron defaults. */
workload_spec workload_spec_default(void);

/* "megatron" | "ddp" | "fsdp" (case-insensitive); CCS_ERROR_INVALID otherwise. */
bool workload_framework_parse(const char *s, workload_framework_kind *out, GError **error);
const char *workload_framework_name(workload_framework_kind k);

/* The architecture object {"layers": .., "hidden": .., ...} (docs/usage.md);
 * name prefixes messages.  CCS_ERROR_INVALID on a missing or bad key. */
bool workload_arch_from_cjson(const cJSON *o, const char *name, workload_arch *out,
                              GError **error);

/* A scenario job's "structure" object (docs/usage.md) into *out: its
 * "arch" (an object, or a catalog name whose entry carries one, looked up
 * in cat), parallelism, framework and pins.  cat may be NULL when arch is
 * an object.  name prefixes messages.  CCS_ERROR_INVALID on any bad key. */
bool workload_spec_from_cjson(const cJSON *o, const catalog *cat, const char *name,
                              workload_spec *out, GError **error);

/* ---- resolution ----------------------------------------------------- */

/* Resolve spec for a job of gpus GPUs of type gpu, at most gpus_per_host
 * of them on one host (0: unknown, no check), into the job's structure
 * (structure.h; every figure resolved, the pins applied); where names the
 * job in messages.  rep (nullable) receives what the resolution used.
 * Checks (CCS_ERROR_INVALID, "WHERE: structure: ..." saying which): tp pp
 * dp != gpus; pp > layers or layers not a multiple of pp (or a stage's
 * layers of vpp); heads not a multiple of tp; global batch not a multiple
 * of dp x micro-batch; micro-batches not a multiple of pp for the
 * interleaved schedule; experts not a multiple of ep, ep not dividing dp;
 * tp > gpus_per_host unless tp_across_hosts; ZeRO-3 with pp > 1; no
 * architecture and no fwd_s / bwd_s pinned.  (transfer full) */
job_structure *workload_structure_build(const workload_spec *spec, int gpus, int gpus_per_host,
                                        catalog_gpu gpu, const char *where, workload_report *rep,
                                        GError **error);

/* A scenario job's "structure" object (docs/usage.md) that carries a
 * description (any of the keys of workload_spec_from_cjson: "arch",
 * "framework", "recompute", ...): resolved as workload_structure_build
 * does, then every figure key the object pins ("fwd_s", "grad_bytes",
 * per-stage arrays, ...) replaces the derived one, and structure_parse()
 * checks the whole.  (transfer full) NULL + CCS_ERROR_INVALID. */
job_structure *workload_structure_from_cjson(const cJSON *obj, const catalog *cat, int gpus,
                                             int gpus_per_host, catalog_gpu gpu,
                                             const char *where, workload_report *rep,
                                             GError **error);

/* Whether a "structure" object carries a description (then resolve it
 * with workload_structure_from_cjson), rather than only pinned figures. */
bool workload_cjson_is_description(const cJSON *obj);

/* ---- one set of keys for every job ---------------------------------- */

/* Whether set may be laid over every job that resolves to a structure
 * (`--structure-set`, sim.structure_set; docs/usage.md): an object of
 * framework-behaviour keys (grad_dtype, overlap_grad_reduce, bucket_mb,
 * pp_scatter_gather, recompute, tflops) and pinned figures of one number each (fwd_s, bwd_s,
 * act_bytes, grad_bytes, tp_bytes, moe_a2a_bytes, opt_s, buckets), every
 * value checked as a structure's own.  where prefixes messages.
 * CCS_ERROR_INVALID naming the key otherwise. */
bool workload_set_check(const cJSON *set, const char *where, GError **error);

/* ---- trace jobs ----------------------------------------------------- */

/* The structure a trace job of catalog entry m on gpus GPUs (at most
 * max_pod_gpus per host) trains with (docs/models.md "From a trace job to a
 * structure"): LLM entries with an architecture follow the Megatron-LM
 * recipe (tp, pp, micro-batch and per-replica batch of the nearest model
 * size in Narayanan et al. SC'21 Table 1, shrunk to the job), FSDP entries
 * shard over every GPU, the other entries keep the catalog's compute and
 * train with PyTorch DDP.  False (no error) for entries without network
 * traffic, which keep the flat model. */
bool workload_spec_for_trace_job(const catalog_model *m, int gpus, int max_pod_gpus,
                                 catalog_gpu gpu, workload_spec *out);

/* The structure trace job tj runs with on GPUs of type gpu, at most
 * gpus_per_host on a host (0: no check): its described structure
 * (tj->structure_desc) resolved for that GPU; else, with catalog_structured,
 * the structure its catalog model m (catalog_resolve's answer; NULL for
 * inline models) and GPUs resolve to (workload_spec_for_trace_job).  set
 * (nullable, checked by workload_set_check) is laid over either: its keys
 * replace the description's own, or the recipe's.  NULL without an error
 * for every other job: it keeps tj->structure or the flat model.  where
 * names the job in messages; rep (nullable) as in
 * workload_structure_build.  (transfer full) */
job_structure *workload_structure_for_trace_job(const trace_job *tj, const catalog_model *m,
                                                const catalog *cat, const cJSON *set,
                                                int gpus_per_host, catalog_gpu gpu,
                                                bool catalog_structured, const char *where,
                                                workload_report *rep, GError **error);

#endif /* CCSIM_TRACES_WORKLOAD_H */
