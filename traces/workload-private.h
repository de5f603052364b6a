/* workload-private.h - what the workload*.c files share.  Nothing else
 * includes it.
 */
#ifndef CCSIM_TRACES_WORKLOAD_PRIVATE_H
#define CCSIM_TRACES_WORKLOAD_PRIVATE_H

#include "workload.h"

/* Parameters of the word embedding (V h): the input lookup's table, and
 * the output layer's when tied. */
double workload__word_embedding_params(const workload_arch *a);
/* Parameters of the final norm and, unless tied, the output layer. */
double workload__head_params(const workload_arch *a);
/* Parameters of the experts of one MoE layer (all E of them, no router). */
double workload__expert_params(const workload_arch *a);

/* The resolved figures of one iteration, before they become a
 * job_structure (workload_structure.c); per GPU unless said otherwise. */
typedef struct workload_figures {
    int tp, pp, dp, ep, vpp;  /* degrees; tp * pp * dp = GPUs */
    int micro_batches;        /* m per pipeline per iteration */
    int micro_batch;          /* b, sequences per micro-batch */
    int layers_per_stage;     /* transformer layers per stage (0 without an architecture) */
    int experts;              /* experts per MoE layer (0: dense) */
    double *fwd_s, *bwd_s;    /* [pp] one micro-batch through stage k (bwd: recompute included) */
    double *grad_bytes;       /* [pp] dense gradients of stage k of one replica, all TP ranks */
    double *expert_grad_bytes; /* [pp] expert gradients of stage k held by one EP rank */
    double *param_bytes;      /* [pp] parameters of stage k per replica, gathered dtype */
    int *moe_layers;          /* [pp] MoE layers of stage k */
    double *grad_early_bytes; /* [pp] of grad_bytes, complete at grad_early_at of the last
                               * backward pass (the output layer) */
    double *grad_early_at;    /* [pp] in (0, 1]; 0 without early bytes */
    double *grad_late_bytes;  /* [pp] of grad_bytes, complete at its end (the embeddings) */
    double embed_grad_bytes;  /* tied word embedding's gradient, all-reduced between the
                               * first and the last stage (pp > 1) */
    int tp_colls_fwd, tp_colls_bwd; /* TP collectives per layer and pass */
    double tp_bytes;          /* one TP collective */
    bool tp_sp;               /* sequence parallel */
    double act_bytes;         /* per micro-batch per stage boundary, all TP ranks */
    int buckets;              /* gradient buckets per stage */
    bool overlap;             /* buckets during the last backward */
    int zero;                 /* ZeRO stage (3: FSDP) */
    int fsdp_units;           /* ZeRO-3 units per stage */
    double a2a_bytes;         /* one MoE all-to-all per GPU */
    double opt_s;             /* optimizer step */
    workload_report rep;      /* for reports */
} workload_figures;

/* Resolve spec into f (workload__figures_clear frees it); errors as
 * workload_structure_build's, without the "WHERE: structure: " prefix. */
bool workload__resolve(const workload_spec *spec, int gpus, int gpus_per_host, catalog_gpu gpu,
                       workload_figures *f, GError **error);
void workload__figures_clear(workload_figures *f);

/* The keys of a "structure" object but "arch" (framework and its
 * overrides, parallelism, pins) laid over *s; name prefixes messages.
 * CCS_ERROR_INVALID on a bad value (*s then partly changed). */
bool workload__spec_overlay(const cJSON *o, const char *name, workload_spec *s, GError **error);

/* spec resolved, then user's pinned figure keys (nullable) laid over the
 * figures and the whole checked by structure_parse(): what
 * workload_structure_build and workload_structure_from_cjson share. */
job_structure *workload__build(const workload_spec *spec, const cJSON *user, int gpus,
                               int gpus_per_host, catalog_gpu gpu, const char *where,
                               workload_report *rep, GError **error);

/* A copy of the description desc with every key of set in place of its
 * own (workload_set.c).  (transfer full) */
cJSON *workload__set_over(const cJSON *desc, const cJSON *set);

/* One MiB, the unit of PyTorch DDP's bucket_cap_mb. */
#define WORKLOAD_MIB (1024.0 * 1024.0)

#endif /* CCSIM_TRACES_WORKLOAD_PRIVATE_H */
