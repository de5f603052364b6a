/* workload_structure.c - resolved figures into the job_structure the
 * engine runs (structure.h): written as the keys of a pinned "structure"
 * object, the user's own pins laid over them, and read back by
 * structure_parse(), the one validator of figures.
 * Not here: the figures themselves (workload_resolve.c).
 */
#include "workload.h"
#include "workload-private.h"

#include <string.h>

#include "base/ccs.h"

/* The description keys (workload_parse.c) and the degree keys the
 * resolution consumes: never copied over the resolved figures. */
static const char *const description_keys[] = {
    "arch", "framework", "recompute", "grad_dtype", "bucket_mb", "pp_scatter_gather", "tflops",
};
static const char *const consumed_keys[] = {
    "tp", "pp", "dp", "ep", "vpp", "experts", "micro_batches", "global_batch",
    "micro_batch_size", "seq_parallel", "tp_across_hosts", "zero",
};

static bool in_list(const char *key, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(key, list[i]) == 0)
            return true;
    return false;
}

bool workload_cjson_is_description(const cJSON *obj)
{
    if (!cJSON_IsObject(obj))
        return false;
    for (const cJSON *c = obj->child; c; c = c->next)
        if (in_list(c->string, description_keys, G_N_ELEMENTS(description_keys)))
            return true;
    return false;
}

static void add_stage_array(cJSON *o, const char *key, const double *v, int pp)
{
    cJSON_AddItemToObject(o, key, cJSON_CreateDoubleArray(v, pp));
}

/* The figures as the keys structure_parse() reads. */
static cJSON *figures_cjson(const workload_spec *s, const workload_figures *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "tp", f->tp);
    cJSON_AddNumberToObject(o, "pp", f->pp);
    cJSON_AddNumberToObject(o, "dp", f->dp);
    cJSON_AddNumberToObject(o, "ep", f->ep);
    cJSON_AddNumberToObject(o, "experts", f->experts);
    cJSON_AddNumberToObject(o, "vpp", f->vpp);
    cJSON_AddNumberToObject(o, "micro_batches", f->micro_batches);
    cJSON_AddBoolToObject(o, "seq_parallel", f->tp_sp);
    cJSON_AddBoolToObject(o, "tp_across_hosts", s->par.tp_across_hosts);
    cJSON_AddNumberToObject(o, "zero", f->zero);
    cJSON_AddNumberToObject(o, "fsdp_units", f->fsdp_units);
    cJSON_AddBoolToObject(o, "overlap_grad_reduce", f->overlap);
    cJSON_AddNumberToObject(o, "buckets", f->buckets);
    cJSON_AddNumberToObject(o, "act_bytes", f->act_bytes);
    cJSON_AddNumberToObject(o, "tp_bytes", f->tp_bytes);
    cJSON_AddNumberToObject(o, "tp_colls_fwd", f->tp_colls_fwd);
    cJSON_AddNumberToObject(o, "tp_colls_bwd", f->tp_colls_bwd);
    cJSON_AddNumberToObject(o, "moe_a2a_bytes", f->a2a_bytes);
    cJSON_AddNumberToObject(o, "embed_grad_bytes", f->embed_grad_bytes);
    cJSON_AddNumberToObject(o, "opt_s", f->opt_s);
    if (f->layers_per_stage > 0)
        cJSON_AddNumberToObject(o, "layers", f->layers_per_stage * f->pp);
    cJSON_AddItemToObject(o, "moe_layers", cJSON_CreateIntArray(f->moe_layers, f->pp));
    add_stage_array(o, "fwd_s", f->fwd_s, f->pp);
    add_stage_array(o, "bwd_s", f->bwd_s, f->pp);
    add_stage_array(o, "grad_bytes", f->grad_bytes, f->pp);
    add_stage_array(o, "expert_grad_bytes", f->expert_grad_bytes, f->pp);
    add_stage_array(o, "param_bytes", f->param_bytes, f->pp);
    add_stage_array(o, "grad_early_bytes", f->grad_early_bytes, f->pp);
    add_stage_array(o, "grad_early_at", f->grad_early_at, f->pp);
    add_stage_array(o, "grad_late_bytes", f->grad_late_bytes, f->pp);
    return o;
}

/* Lay the user's pinned figure keys over the resolved ones. */
static void overlay(cJSON *o, const cJSON *user)
{
    for (const cJSON *c = user ? user->child : NULL; c; c = c->next) {
        if (in_list(c->string, description_keys, G_N_ELEMENTS(description_keys)) ||
            in_list(c->string, consumed_keys, G_N_ELEMENTS(consumed_keys)))
            continue;
        cJSON_DeleteItemFromObjectCaseSensitive(o, c->string);
        cJSON_AddItemToObject(o, c->string, cJSON_Duplicate(c, true));
    }
}

job_structure *workload__build(const workload_spec *spec, const cJSON *user, int gpus,
                               int gpus_per_host, catalog_gpu gpu, const char *where,
                               workload_report *rep, GError **error)
{
    if (!where)
        where = "job";
    workload_figures f;
    GError *e = NULL;
    if (!workload__resolve(spec, gpus, gpus_per_host, gpu, &f, &e)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: structure: %s", where, e->message);
        g_error_free(e);
        return NULL;
    }
    g_autoptr(cJSON) o = figures_cjson(spec, &f);
    overlay(o, user);
    if (rep)
        *rep = f.rep;
    workload__figures_clear(&f);
    return structure_parse(o, gpus, where, error);
}

job_structure *workload_structure_build(const workload_spec *spec, int gpus, int gpus_per_host,
                                        catalog_gpu gpu, const char *where, workload_report *rep,
                                        GError **error)
{
    g_return_val_if_fail(spec != NULL, NULL);
    return workload__build(spec, NULL, gpus, gpus_per_host, gpu, where, rep, error);
}

job_structure *workload_structure_from_cjson(const cJSON *obj, const catalog *cat, int gpus,
                                             int gpus_per_host, catalog_gpu gpu,
                                             const char *where, workload_report *rep,
                                             GError **error)
{
    if (!where)
        where = "job";
    g_autofree char *name = g_strdup_printf("%s: structure", where);
    workload_spec s;
    if (!workload_spec_from_cjson(obj, cat, name, &s, error))
        return NULL;
    return workload__build(&s, obj, gpus, gpus_per_host, gpu, where, rep, error);
}
