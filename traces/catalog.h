/* catalog.h - the model catalog: per-model compute and communication costs
 * (docs/models.md; docs/models.md).  Not here: traces (trace.h).
 *
 * The catalog is traces/models.json, embedded into the library as a GResource
 * so an installed binary needs no data files.  Each entry describes one
 * training job's iteration as the engine models it (docs/model.md):
 * compute C = compute_s[gpu] per iteration per GPU, gradient communication of
 * S = grad_bytes issued once fwd_frac * C is done, then opt_s[gpu].
 *
 * Trace model names (the 26 names of the Lingjun job.csv) map onto entries
 * through catalog_resolve() (docs/models.md).
 */
#ifndef CCSIM_TRACES_CATALOG_H
#define CCSIM_TRACES_CATALOG_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct workload_arch;

/* GPU types the catalog has compute times for. */
typedef enum catalog_gpu { CATALOG_GPU_A100, CATALOG_GPU_H100, CATALOG_GPU_COUNT } catalog_gpu;

/* The data-parallel collective pattern of a model. */
typedef enum catalog_collective {
    CATALOG_COLL_NONE,          /* no gradient traffic */
    CATALOG_COLL_ALLREDUCE,     /* ring all-reduce of grad_bytes */
    CATALOG_COLL_ALLGATHER,     /* all-gather of grad_bytes */
    CATALOG_COLL_REDUCESCATTER, /* reduce-scatter of grad_bytes */
    CATALOG_COLL_FSDP,          /* all-gather + reduce-scatter (FSDP / ZeRO-3) */
    CATALOG_COLL_ALLTOALL,      /* all-to-all of a2a_bytes (+ all-reduce of the dense grad_bytes) */
    CATALOG_COLL_P2P,           /* point to point (first host sends to the second) */
} catalog_collective;

typedef struct catalog_model {
    char *name;                          /* catalog name, e.g. "GPT-13B" */
    char *family;                        /* "GPT", "LLaMA", "BERT", ... ("inline" for inline models) */
    double params;                       /* parameters (count) */
    double grad_params;                  /* parameters whose gradients the DP collective reduces
                                          * (= params except for sparse CTR/MIND models) */
    double last_grad_params;             /* of grad_params, those whose gradients are complete
                                          * only when the backward pass ends (a transformer's
                                          * input embeddings: their backward runs last); 0 when
                                          * not given */
    double bytes_per_value;              /* gradient bytes per value: 2 (bf16/fp16) or 4 (fp32) */
    double grad_bytes;                   /* per data-parallel replica after TP/PP sharding: S, what
                                          * the DP collective reduces:
                                          * grad_params * bytes_per_value / (tp * pp) */
    double compute_s[CATALOG_GPU_COUNT]; /* compute (fwd+bwd) per iteration per GPU, seconds */
    double opt_s[CATALOG_GPU_COUNT];     /* optimizer step per iteration, seconds */
    double fwd_frac;                     /* forward pass's share of compute, in [0, 1] */
    double comm_start_frac;              /* s: share of compute done when the gradient
                                          * communication starts: fwd_frac when the framework
                                          * overlaps it with the backward pass (DDP, FSDP), 1
                                          * when it reduces after the backward pass (Megatron's
                                          * 2023 default); the entry's optional
                                          * "comm_start_frac", else fwd_frac */
    int tp, pp;                          /* tensor / pipeline parallel degree (1 = none) */
    catalog_collective collective;       /* the DP collective pattern */
    double a2a_bytes;                    /* all-to-all bytes per GPU per iteration (CTR), 0 if none */
    double pp_bytes;                     /* activation bytes per stage boundary per iteration
                                          * (forward; the backward sends as many back), 0 if none */
    int buckets;                         /* gradient buckets (>= 1) */
    bool network;                        /* false for inference / non-training: no gradient traffic */
    char *source;                        /* where the numbers come from (short; docs/models.md has all) */
    char *gpu_note;                      /* why the H100 time is not below the A100 time, or NULL
                                          * (required then: the catalog audit) */
    bool predicted;                      /* compute_s predicted by MDOT from an operator graph
                                          * (docs/mdot.md), not measured */
    struct workload_arch *arch;          /* transformer dimensions (workload.h), or NULL: the
                                          * entry's optional "arch" */
    char *framework;                     /* "megatron", "ddp" or "fsdp": how a trace job of this
                                          * entry trains (workload.h); the entry's optional
                                          * "framework", else "fsdp" for the fsdp collective,
                                          * "megatron" with an arch, "ddp" otherwise */
    int micro_batch;                     /* sequences per micro-batch of an FSDP entry's GPU (the
                                          * entry's optional "micro_batch"; 0: none) */
    char *graph_path;                    /* an inline graph model's operator graph (then
                                          * compute_s is NaN until the replay predicts it
                                          * for its GPU, mdot_compute.h), else NULL */
    int64_t graph_batch;                 /* the batch to predict it at (0: the graph's own) */
} catalog_model;

typedef struct catalog catalog;

/* The embedded models.json (transfer full).  Fails only if the embedded
 * resource is broken (CCS_ERROR_INTERNAL / _PARSE). */
catalog *catalog_load_default(GError **error);

/* Parse a catalog from a JSON buffer of len bytes; name (a file name) prefixes
 * the error messages.  Every entry must carry every field; CCS_ERROR_PARSE on
 * bad JSON, CCS_ERROR_INVALID on a missing or out-of-range field. */
catalog *catalog_load_json(const char *json, size_t len, const char *name, GError **error);

/* Entry by catalog name or alias, case-insensitive; NULL if none
 * (transfer none, valid until catalog_free).  O(1). */
const catalog_model *catalog_find(const catalog *c, const char *name);

/* Map a trace model name to an entry: the table of docs/design.md §4 (all 26
 * trace names, case-insensitive), catalog names and aliases; for
 * "unknown"/"cognitive" (and NULL or empty names) a choice by GPU count
 * (gpus, and max_pod_gpus, the largest GPU count of one pod, which tells
 * 60 one-GPU pods from 8-GPU pods) drawn from rng.  Jobs with gpus <= 0 map to
 * the non-training entry.  NULL + CCS_ERROR_INVALID for a name it cannot map.
 * The entry's tp*pp may exceed gpus; the engine then shrinks the parallelism. */
const catalog_model *catalog_resolve(const catalog *c, const char *trace_name, int gpus,
                                     int max_pod_gpus, GRand *rng, GError **error);

/* An inline model (docs/usage.md): {"compute_s": .., "comm_bytes": ..,
 * "comm_start_frac": .., "opt_s": .., "collective": ".."}.  compute_s is
 * required; comm_bytes defaults to 0 (then network = false), comm_start_frac
 * to 1, opt_s to 0, collective to "allreduce".  Optional "buckets", "tp",
 * "pp", "a2a_bytes", "pp_bytes".  The same times apply to every GPU type.
 * Instead of compute_s, {"graph": FILE, "batch": N} (batch optional) names
 * an MDOT operator graph (mdot.h; FILE relative to base_dir, the directory
 * of the file holding the job, unless absolute or base_dir is NULL): the
 * graph is read and checked now, graph_path and graph_batch keep it, and
 * compute_s stays NaN for the replay to predict for its GPU (mdot_compute.h);
 * comm_bytes then defaults to 4 bytes per parameter of the graph, and the
 * model is marked predicted.  name becomes the model's name.  (transfer full) */
catalog_model *catalog_model_from_cjson(const cJSON *obj, const char *name, const char *base_dir,
                                        GError **error);

/* A copy of m (transfer full). */
catalog_model *catalog_model_copy(const catalog_model *m);

/* A log-normal factor with median 1: exp(sigma * N(0,1)) from rng.
 * sigma = 0 gives exactly 1 and draws nothing. */
double catalog_jitter_factor(GRand *rng, double sigma);

/* "a100" | "h100" (case-insensitive); CCS_ERROR_INVALID otherwise (returns
 * CATALOG_GPU_A100 then). */
catalog_gpu catalog_gpu_parse(const char *s, GError **error);
/* "a100" | "h100" (static). */
const char *catalog_gpu_name(catalog_gpu gpu);

/* "allreduce", "allgather", "reducescatter", "fsdp", "alltoall", "p2p",
 * "none" <-> enum.  Parse fails with CCS_ERROR_INVALID. */
bool catalog_collective_parse(const char *s, catalog_collective *out, GError **error);
const char *catalog_collective_name(catalog_collective c);

size_t catalog_count(const catalog *c);
const catalog_model *catalog_get(const catalog *c, size_t i); /* i < count, transfer none */

void catalog_model_free(catalog_model *m);
void catalog_free(catalog *c);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(catalog_model, catalog_model_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(catalog, catalog_free)

#endif /* CCSIM_TRACES_CATALOG_H */
