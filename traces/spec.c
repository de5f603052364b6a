/* spec.c - the "trace" key of a scenario (docs/usage.md) turned into a trace.
 * Not here: the loaders it calls (lingjun.c, trace.c, gen_options.c).
 *
 * The "trace" key of a scenario (docs/usage.md) turned into a trace: a Lingjun
 * directory, a synthetic trace generated in memory, jobs written out, or the
 * bundled sample.
 */
#include "trace.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/json.h"
#include "gen.h"

static char *resolve(const char *base_dir, const char *path)
{
    if (!base_dir || g_path_is_absolute(path))
        return g_strdup(path);
    return g_build_filename(base_dir, path, NULL);
}

/* trace.synthetic.KEY, one of two words: *out = it is yes_word (unchanged
 * when absent). */
static bool spec_word(const cJSON *o, const char *key, const char *yes_word, const char *no_word,
                      bool *out, const char *name, GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return true;
    if (!cJSON_IsString(v) || (strcmp(v->valuestring, yes_word) != 0 &&
                               strcmp(v->valuestring, no_word) != 0)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: trace.synthetic.%s: expected \"%s\" or \"%s\"", name, key, yes_word,
                    no_word);
        return false;
    }
    *out = strcmp(v->valuestring, yes_word) == 0;
    return true;
}

trace *trace_load_spec(const cJSON *spec, const char *base_dir, const char *name,
                       const trace_lingjun_options *opts, GError **error)
{
    if (!name)
        name = "(scenario)";
    if (!spec || cJSON_IsNull(spec))
        return trace_load_default(error);
    const cJSON *lj = cJSON_GetObjectItemCaseSensitive(spec, "lingjun");
    const cJSON *sy = cJSON_GetObjectItemCaseSensitive(spec, "synthetic");
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(spec, "jobs");
    if (cJSON_IsObject(spec) && cJSON_GetArraySize(spec) == 1 && cJSON_IsString(lj)) {
        g_autofree char *dir = resolve(base_dir, lj->valuestring);
        return trace_lingjun_load(dir, opts, error);
    }
    if (cJSON_IsObject(spec) && cJSON_GetArraySize(spec) == 1 && cJSON_IsObject(sy)) {
        static const char *const keys[] = {"seed",       "days",  "scale",      "gpu_run_tilt",
                                           "gpu_cap",    "topo",  "topo_aware", "spill",
                                           "small_pods", NULL};
        if (!ccs_json_check_keys(sy, keys, name, "trace.synthetic", error))
            return NULL;
        trace_gen_options o = trace_gen_options_default();
        double seed = o.seed;
        const char *at = "trace.synthetic";
        if (!ccs_json_number(sy, "seed", CCS_LIMIT_GEN_SEED, name, at, &seed, error) ||
            !ccs_json_number(sy, "days", CCS_LIMIT_GEN_DAYS, name, at, &o.days, error) ||
            !ccs_json_number(sy, "scale", CCS_LIMIT_GEN_SCALE, name, at, &o.scale, error) ||
            !ccs_json_number(sy, "gpu_run_tilt", CCS_LIMIT_GEN_TILT, name, at, &o.gpu_run_tilt,
                             error) ||
            !ccs_json_number(sy, "gpu_cap", CCS_LIMIT_JOB_GPUS, name, at, &o.gpu_cap, error))
            return NULL;
        o.seed = (guint32)seed;
        const cJSON *ta = cJSON_GetObjectItemCaseSensitive(sy, "topo_aware");
        if (ta && !cJSON_IsBool(ta)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: trace.synthetic.topo_aware: expected true or false", name);
            return NULL;
        }
        if (ta)
            o.topo_aware = cJSON_IsTrue(ta);
        if (!spec_word(sy, "spill", "whole-racks", "leftovers", &o.spill_whole_racks, name,
                       error) ||
            !spec_word(sy, "small_pods", "most-allocated", "first-fit", &o.small_most_allocated,
                       name, error))
            return NULL;
        const cJSON *tp = cJSON_GetObjectItemCaseSensitive(sy, "topo");
        g_autofree char *topo = NULL;
        if (tp) {
            if (!cJSON_IsString(tp)) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "%s: trace.synthetic.topo: expected a path", name);
                return NULL;
            }
            topo = resolve(base_dir, tp->valuestring);
            o.topo_path = topo;
        }
        return trace_gen_load(&o, opts, error);
    }
    if (cJSON_IsObject(spec) && cJSON_GetArraySize(spec) == 1 && cJSON_IsArray(jobs))
        return trace_json_from_cjson(jobs, name, error);
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "%s: trace: expected {\"lingjun\": DIR}, {\"synthetic\": {...}} or "
                "{\"jobs\": [...]}",
                name);
    return NULL;
}
