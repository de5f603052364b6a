/* workload_set.c - one set of structure keys laid over every job that
 * resolves to a structure (`--structure-set`, sim.structure_set;
 * docs/usage.md "One rule for every job"): which keys it may hold, their
 * check, and how it meets a job's own description.
 * Not here: what the keys mean (workload_parse.c, workload_resolve.c).
 */
#include "workload.h"
#include "workload-private.h"

#include <string.h>

#include "base/ccs.h"
#include "base/limits.h"

/* Framework behaviour and pinned figures that mean the same for every job
 * (one number, not a per-stage array); degrees and the architecture are a
 * job's own. */
static const char *const set_keys[] = {
    "grad_dtype", "overlap_grad_reduce", "bucket_mb",     "pp_scatter_gather", "recompute",
    "tflops",     "fwd_s",               "bwd_s",         "act_bytes",         "grad_bytes",
    "tp_bytes",   "moe_a2a_bytes",       "opt_s",         "buckets",
};

static bool set_key_known(const char *key)
{
    for (size_t i = 0; i < G_N_ELEMENTS(set_keys); i++)
        if (strcmp(key, set_keys[i]) == 0)
            return true;
    return false;
}

bool workload_set_check(const cJSON *set, const char *where, GError **error)
{
    if (!cJSON_IsObject(set)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected an object", where);
        return false;
    }
    for (const cJSON *c = set->child; c; c = c->next) {
        g_autofree char *shown = ccs_escape(c->string, -1, 60);
        if (!set_key_known(c->string)) {
            g_autoptr(GString) keys = g_string_new(NULL);
            for (size_t i = 0; i < G_N_ELEMENTS(set_keys); i++)
                g_string_append_printf(keys, "%s%s", i ? ", " : "", set_keys[i]);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: unknown key \"%s\" (one of %s)", where, shown, keys->str);
            return false;
        }
        if (cJSON_IsArray(c) || cJSON_IsObject(c) || cJSON_IsNull(c)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: %s: expected one value for every job", where, shown);
            return false;
        }
    }
    /* the values, as a structure's own keys are checked */
    workload_spec s = workload_spec_default();
    return workload__spec_overlay(set, where, &s, error);
}

cJSON *workload__set_over(const cJSON *desc, const cJSON *set)
{
    cJSON *o = cJSON_Duplicate(desc, true);
    for (const cJSON *c = set->child; c; c = c->next) {
        cJSON_DeleteItemFromObjectCaseSensitive(o, c->string);
        cJSON_AddItemToObject(o, c->string, cJSON_Duplicate(c, true));
    }
    return o;
}
