/* workload_recipe.c - how a trace job of a catalog entry trains: its
 * structure from the entry, the job's GPUs and public training recipes
 * (docs/models.md "From a trace job to a structure").
 * Not here: the figures (workload_resolve.c).
 *
 * Megatron-LM entries (an "arch", framework "megatron") follow the weak-
 * scaling recipe of Narayanan et al. (SC'21) Table 1 as its scripts run it
 * (Megatron-LM examples/sc21/run_table_1.sh): the row of the nearest model
 * size gives the tensor- and pipeline-parallel degrees, the micro-batch
 * size, the sequences per data-parallel replica (global batch / replicas),
 * the interleaving (layers per virtual stage) and full activation
 * recomputation ("--recompute-method uniform").  A job with fewer GPUs
 * than the row's model-parallel size, or whose GPU count the degrees do
 * not divide, shrinks them: tp halves until it divides the GPUs and the
 * model's heads and fits a host, then pp falls to the largest value that
 * divides both the remaining GPUs and the layers.  FSDP entries shard over all
 * GPUs with the entry's batch per GPU; entries without dimensions keep the
 * catalog's measured compute and train with PyTorch DDP.
 */
#include "workload.h"
#include "workload-private.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"

/* One row of Table 1 (and run_table_1.sh). */
typedef struct recipe_row {
    double params;  /* parameters */
    int tp, pp;     /* degrees */
    int mbs;        /* micro-batch size */
    int per_replica; /* global batch / data-parallel replicas, sequences */
    int vstage_layers; /* --num-layers-per-virtual-pipeline-stage (0: not interleaved) */
} recipe_row;

static const recipe_row table1[] = {
    {1.7e9, 1, 1, 16, 512 / 32, 0},      {3.6e9, 2, 1, 16, 512 / 32, 0},
    {7.5e9, 4, 1, 16, 512 / 32, 0},      {18.4e9, 8, 1, 8, 1024 / 32, 0},
    {39.1e9, 8, 2, 4, 1536 / 32, 0},     {76.1e9, 8, 4, 2, 1792 / 32, 5},
    {145.6e9, 8, 8, 2, 2304 / 24, 5},    {310.1e9, 8, 16, 1, 2160 / 15, 3},
    {529.6e9, 8, 35, 1, 2520 / 9, 1},    {1008.0e9, 8, 64, 1, 3072 / 6, 0},
};

/* The row nearest to params in log scale. */
static const recipe_row *nearest_row(double params)
{
    const recipe_row *best = &table1[0];
    for (size_t i = 1; i < G_N_ELEMENTS(table1); i++)
        if (fabs(log(params / table1[i].params)) < fabs(log(params / best->params)))
            best = &table1[i];
    return best;
}

/* The row's degrees shrunk to a job of gpus GPUs, at most per_host on a
 * host, and to the model (tp divides its heads, pp its layers). */
static void fit_degrees(const recipe_row *r, const workload_arch *a, int gpus, int per_host,
                        int *tp, int *pp)
{
    int t = r->tp;
    while (t > 1 && (gpus % t || (per_host > 0 && t > per_host) || a->heads % t))
        t /= 2;
    int p = MIN(r->pp, gpus / t);
    while (p > 1 && ((gpus / t) % p || a->layers % p))
        p--;
    *tp = t;
    *pp = p;
}

static void megatron_spec(const catalog_model *m, int gpus, int per_host, workload_spec *s)
{
    const recipe_row *r = nearest_row(workload_model_params(m->arch));
    s->has_arch = true;
    s->arch = *m->arch;
    s->fw = workload_framework_defaults(WORKLOAD_FW_MEGATRON);
    fit_degrees(r, m->arch, gpus, per_host, &s->par.tp, &s->par.pp);
    s->par.micro_batch = r->mbs;
    s->par.micro_batches = MAX(1, r->per_replica / r->mbs);
    s->par.recompute = WORKLOAD_RECOMPUTE_FULL;
    /* the row's interleaving when the job's stages can take it */
    int per_stage = m->arch->layers / s->par.pp;
    if (r->vstage_layers > 0 && s->par.pp > 1 && per_stage % r->vstage_layers == 0 &&
        s->par.micro_batches % s->par.pp == 0)
        s->par.vpp = per_stage / r->vstage_layers;
}

static void fsdp_spec(const catalog_model *m, int gpus, workload_spec *s)
{
    s->has_arch = true;
    s->arch = *m->arch;
    s->fw = workload_framework_defaults(WORKLOAD_FW_FSDP);
    s->par.tp = s->par.pp = 1;
    s->par.dp = gpus;
    s->par.zero = 3;
    s->par.micro_batch = MAX(1, m->micro_batch);
    s->par.micro_batches = 1;
}

/* Entries without dimensions: the catalog's compute split at its forward
 * share, its gradients in 25 MiB buckets overlapped with the backward. */
static void ddp_spec(const catalog_model *m, int gpus, catalog_gpu gpu, workload_spec *s)
{
    double c = m->compute_s[gpu];
    s->fw = workload_framework_defaults(WORKLOAD_FW_DDP);
    s->fw.grad_value_bytes = m->bytes_per_value;
    s->par.micro_batches = 1;
    s->fwd_s = c * m->fwd_frac;
    s->bwd_s = c - s->fwd_s;
    s->opt_s = m->opt_s[gpu];
    s->grad_bytes = m->grad_params * m->bytes_per_value;
    s->grad_late_bytes = m->last_grad_params * m->bytes_per_value;
    if (m->collective == CATALOG_COLL_ALLTOALL) {
        /* the embedding exchange of one iteration, forward and backward,
         * among all the job's GPUs (one table shard each) */
        s->a2a_bytes = m->a2a_bytes / 2;
        s->par.ep = s->par.experts = gpus;
    }
}

bool workload_spec_for_trace_job(const catalog_model *m, int gpus, int max_pod_gpus,
                                 catalog_gpu gpu, workload_spec *out)
{
    g_return_val_if_fail(m != NULL && out != NULL, false);
    if (!m->network || gpus < 1)
        return false;
    workload_spec s = workload_spec_default();
    const char *fw = m->framework ? m->framework : "ddp";
    if (m->arch && strcmp(fw, "megatron") == 0)
        megatron_spec(m, gpus, max_pod_gpus, &s);
    else if (m->arch && strcmp(fw, "fsdp") == 0)
        fsdp_spec(m, gpus, &s);
    else
        ddp_spec(m, gpus, gpu, &s);
    *out = s;
    return true;
}

job_structure *workload_structure_for_trace_job(const trace_job *tj, const catalog_model *m,
                                                const catalog *cat, const cJSON *set,
                                                int gpus_per_host, catalog_gpu gpu,
                                                bool catalog_structured, const char *where,
                                                workload_report *rep, GError **error)
{
    g_return_val_if_fail(tj != NULL, NULL);
    if (tj->structure_desc) {
        g_autoptr(cJSON) over = set ? workload__set_over(tj->structure_desc, set) : NULL;
        return workload_structure_from_cjson(over ? over : tj->structure_desc, cat, tj->gpus,
                                             gpus_per_host, gpu, where, rep, error);
    }
    workload_spec spec;
    if (!m || tj->structure || tj->inline_model || !catalog_structured ||
        !workload_spec_for_trace_job(m, tj->gpus, tj->max_pod_gpus, gpu, &spec))
        return NULL;
    if (set && !workload__spec_overlay(set, where, &spec, error))
        return NULL;
    return workload__build(&spec, set, tj->gpus, gpus_per_host, gpu, where, rep, error);
}
