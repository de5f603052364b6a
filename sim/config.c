/* config.c - the scenario file and its command-line overrides (docs/usage.md).
 * Not here: the topology, trace and scheduler objects they name.
 *
 * Every "sim" key is described once in a table (name, option spelling,
 * type, range); the JSON reader and the option parser both go through it,
 * so a key cannot exist in one and not the other.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/ccs.h"
#include "base/input.h"
#include "base/json.h"
#include "base/limits.h"
#include "traces/workload.h"

/* KEY_STRING: one of choices; KEY_TEXT: any non-empty string (a name or path) */
typedef enum key_type {
    KEY_ENUM, KEY_DOUBLE, KEY_UINT, KEY_INT, KEY_STRING, KEY_BOOL, KEY_TEXT
} key_type;

typedef struct sim_key {
    const char *name;   /* JSON key under "sim" */
    const char *option; /* command-line spelling without "--" */
    key_type type;
    int limit;          /* ccs_limit_id of a number's range (base/limits.h), -1 if none */
    const char *const *choices; /* KEY_ENUM / KEY_STRING choices, NULL-terminated */
} sim_key;

static const char *const mode_names[] = {"window", "work", NULL};
static const char *const placement_names[] = {"recorded", "locality", "random", "packed",
                                              "spread",   "fragmented", NULL};
static const char *const coll_names[] = {"ring", "flows", NULL};
static const char *const steady_names[] = {"exact", "approx", NULL};
static const char *const step_latency_names[] = {"once", "per_step", NULL};
static const char *const gpu_names[] = {"a100", "h100", NULL};
static const char *const job_model_names[] = {"flat", "structured", NULL};
static const char *const compute_names[] = {"catalog", "mdot", NULL};

static const sim_key sim_keys[] = {
    {"mode", "mode", KEY_ENUM, -1, mode_names},
    {"start_s", "start", KEY_DOUBLE, CCS_LIMIT_TIME_S, NULL},
    {"end_s", "end", KEY_DOUBLE, CCS_LIMIT_TIME_S, NULL},
    {"seed", "seed", KEY_UINT, -1, NULL},
    {"priority_levels", "levels", KEY_INT, CCS_LIMIT_PRIORITY_LEVELS, NULL},
    {"interval_s", "interval", KEY_DOUBLE, CCS_LIMIT_INTERVAL_S, NULL},
    {"time_scale", "time-scale", KEY_DOUBLE, CCS_LIMIT_TIME_SCALE, NULL},
    {"placement", "placement", KEY_ENUM, -1, placement_names},
    {"collective_model", "collective-model", KEY_ENUM, -1, coll_names},
    {"channels", "channels", KEY_INT, CCS_LIMIT_CHANNELS, NULL},
    {"alpha_us", "alpha-us", KEY_DOUBLE, CCS_LIMIT_ALPHA_US, NULL},
    {"gpu", "gpu", KEY_STRING, -1, gpu_names},
    {"buckets", "buckets", KEY_INT, CCS_LIMIT_BUCKETS, NULL},
    {"jitter_sigma", "jitter", KEY_DOUBLE, CCS_LIMIT_JITTER_SIGMA, NULL},
    {"scale_hosts", "scale-hosts", KEY_BOOL, -1, NULL},
    {"gzip", "gzip", KEY_BOOL, -1, NULL},
    {"fast_forward", "fast-forward", KEY_BOOL, -1, NULL},
    {"steady", "steady", KEY_ENUM, -1, steady_names},
    {"job_model", "job-model", KEY_ENUM, -1, job_model_names},
    {"shards", "shards", KEY_INT, CCS_LIMIT_SHARDS, NULL},
    {"shard_warmup", "shard-warmup", KEY_INT, CCS_LIMIT_SHARD_WARMUP, NULL},
    {"compute", "compute", KEY_ENUM, -1, compute_names},
    {"mdot_weights", "mdot-weights", KEY_TEXT, -1, NULL},
    {"graph_library", "graph-library", KEY_TEXT, -1, NULL},
    {"step_latency", "step-latency", KEY_ENUM, -1, step_latency_names},
};

const char *const *config_sim_keys(void)
{
    static const char *const names[] = {
        "mode", "start_s", "end_s", "seed", "priority_levels", "interval_s", "time_scale",
        "placement", "collective_model", "channels", "alpha_us", "gpu", "buckets", "jitter_sigma",
        "scale_hosts", "gzip", "fast_forward", "steady", "job_model", "shards", "shard_warmup",
        "compute", "mdot_weights", "graph_library", "step_latency", NULL};
    G_STATIC_ASSERT(G_N_ELEMENTS(names) == G_N_ELEMENTS(sim_keys) + 1);
    return names;
}

config *config_new(void)
{
    config *c = g_new0(config, 1);
    c->name = g_strdup("default");
    c->scheduler = g_strdup("ecmp");
    c->sim.mode = CONFIG_MODE_WINDOW;
    c->sim.start_s = NAN;
    c->sim.end_s = NAN;
    c->sim.seed = 1;
    c->sim.priority_levels = 8;
    c->sim.interval_s = 60.0;
    c->sim.time_scale = 1.0;
    c->sim.placement = CONFIG_PLACE_RECORDED;
    c->sim.collective_model = CONFIG_COLL_RING;
    c->sim.alpha_us = 5.0;
    c->sim.gpu = g_strdup("a100");
    c->sim.buckets = 1;
    c->sim.jitter_sigma = 0.0;
    c->sim.fast_forward = true;
    c->sim.job_model = CONFIG_JOB_MODEL_STRUCTURED;
    c->sim.shards = 1;
    c->sim.shard_warmup = CONFIG_SHARD_WARMUP;
    return c;
}

void config_free(config *c)
{
    if (!c)
        return;
    g_free(c->path);
    g_free(c->name);
    cJSON_Delete(c->root);
    g_free(c->topology_spec);
    g_free(c->trace_path);
    g_free(c->scheduler);
    g_free(c->sim.gpu);
    g_free(c->sim.mdot_weights);
    g_free(c->sim.graph_library);
    cJSON_Delete(c->sim.structure_set);
    g_free(c);
}

static const sim_key *key_find(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(sim_keys); i++)
        if (strcmp(sim_keys[i].name, name) == 0 || strcmp(sim_keys[i].option, name) == 0)
            return &sim_keys[i];
    return NULL;
}

static char *choices_text(const char *const *choices)
{
    GString *s = g_string_new(NULL);
    size_t n = 0;
    while (choices[n])
        n++;
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            g_string_append(s, i + 1 == n ? (n == 2 ? " or " : ", or ") : ", ");
        g_string_append_printf(s, "\"%s\"", choices[i]);
    }
    return g_string_free(s, FALSE);
}

static int choice_index(const char *const *choices, const char *v)
{
    for (int i = 0; choices[i]; i++)
        if (g_ascii_strcasecmp(choices[i], v) == 0)
            return i;
    return -1;
}

/* Store a checked value.  where = "FILE: sim.KEY" or "--KEY". */
static bool key_store_number(config *c, const sim_key *k, double v, const char *where,
                             GError **error)
{
    if (k->limit < 0) { /* the seed: any 64-bit whole number */
        if (!isfinite(v) || v < 0 || v > 18446744073709551615.0 || floor(v) != v) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: expected a whole number in [0, 2^64 - 1], got %g", where, v);
            return false;
        }
    } else if (!ccs_limit_check((ccs_limit_id)k->limit, v, where, error)) {
        return false;
    }
    const char *n = k->name;
    if (strcmp(n, "start_s") == 0)
        c->sim.start_s = v;
    else if (strcmp(n, "end_s") == 0)
        c->sim.end_s = v;
    else if (strcmp(n, "seed") == 0)
        c->sim.seed = (uint64_t)v;
    else if (strcmp(n, "priority_levels") == 0)
        c->sim.priority_levels = (int)v;
    else if (strcmp(n, "interval_s") == 0)
        c->sim.interval_s = v;
    else if (strcmp(n, "time_scale") == 0)
        c->sim.time_scale = v;
    else if (strcmp(n, "alpha_us") == 0)
        c->sim.alpha_us = v;
    else if (strcmp(n, "buckets") == 0)
        c->sim.buckets = (int)v;
    else if (strcmp(n, "channels") == 0)
        c->sim.channels = (int)v;
    else if (strcmp(n, "jitter_sigma") == 0)
        c->sim.jitter_sigma = v;
    else if (strcmp(n, "shards") == 0)
        c->sim.shards = (int)v;
    else if (strcmp(n, "shard_warmup") == 0)
        c->sim.shard_warmup = (int)v;
    else
        g_assert_not_reached();
    return true;
}

static bool key_store_choice(config *c, const sim_key *k, const char *v, const char *where,
                             GError **error)
{
    int i = choice_index(k->choices, v);
    if (i < 0) {
        g_autofree char *ch = choices_text(k->choices);
        g_autofree char *shown = ccs_escape(v, -1, 80);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected %s, got \"%s\"", where,
                    ch, shown);
        return false;
    }
    if (strcmp(k->name, "mode") == 0)
        c->sim.mode = (config_mode)i;
    else if (strcmp(k->name, "placement") == 0)
        c->sim.placement = (config_placement)i;
    else if (strcmp(k->name, "collective_model") == 0)
        c->sim.collective_model = (config_collective_model)i;
    else if (strcmp(k->name, "steady") == 0)
        c->sim.steady = (config_steady)i;
    else if (strcmp(k->name, "job_model") == 0)
        c->sim.job_model = (config_job_model)i;
    else if (strcmp(k->name, "compute") == 0)
        c->sim.compute = (config_compute)i;
    else if (strcmp(k->name, "step_latency") == 0)
        c->sim.step_latency = (config_step_latency)i;
    else if (strcmp(k->name, "gpu") == 0) {
        g_free(c->sim.gpu);
        c->sim.gpu = g_strdup(k->choices[i]);
    } else
        g_assert_not_reached();
    return true;
}

/* A free-form string key; base (nullable) is the directory a relative
 * graph_library path is taken from (the scenario's). */
static bool key_store_text(config *c, const sim_key *k, const char *v, const char *base,
                           const char *where, GError **error)
{
    if (!*v) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected a non-empty string",
                    where);
        return false;
    }
    char **slot = strcmp(k->name, "mdot_weights") == 0 ? &c->sim.mdot_weights
                                                        : &c->sim.graph_library;
    g_free(*slot);
    *slot = slot == &c->sim.graph_library && base && !g_path_is_absolute(v)
                ? g_build_filename(base, v, NULL)
                : g_strdup(v);
    return true;
}

static void key_store_bool(config *c, const sim_key *k, bool v)
{
    if (strcmp(k->name, "scale_hosts") == 0)
        c->sim.scale_hosts = v;
    else if (strcmp(k->name, "gzip") == 0)
        c->sim.gzip = v;
    else if (strcmp(k->name, "fast_forward") == 0)
        c->sim.fast_forward = v;
    else
        g_assert_not_reached();
}

static bool sim_key_from_json(config *c, const sim_key *k, const cJSON *v, const char *file,
                              GError **error)
{
    g_autofree char *where = g_strdup_printf("%s: sim.%s", file, k->name);
    switch (k->type) {
    case KEY_ENUM:
    case KEY_STRING:
        if (!cJSON_IsString(v)) {
            g_autofree char *ch = choices_text(k->choices);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected %s, got %s", where,
                        ch, ccs_json_type_name(v));
            return false;
        }
        return key_store_choice(c, k, v->valuestring, where, error);
    case KEY_TEXT: {
        if (!cJSON_IsString(v)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected a string, got %s",
                        where, ccs_json_type_name(v));
            return false;
        }
        g_autofree char *base = g_path_get_dirname(file);
        return key_store_text(c, k, v->valuestring, base, where, error);
    }
    case KEY_BOOL:
        if (!cJSON_IsBool(v)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: expected true or false, got %s", where, ccs_json_type_name(v));
            return false;
        }
        key_store_bool(c, k, cJSON_IsTrue(v));
        return true;
    default:
        if (cJSON_IsNull(v) && (strcmp(k->name, "start_s") == 0 || strcmp(k->name, "end_s") == 0))
            return true; /* null = from the trace */
        if (cJSON_IsString(v) && strcmp(k->name, "channels") == 0 &&
            strcmp(v->valuestring, "auto") == 0) {
            c->sim.channels = 0;
            return true;
        }
        if (!cJSON_IsNumber(v)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected a number, got %s",
                        where, ccs_json_type_name(v));
            return false;
        }
        return key_store_number(c, k, v->valuedouble, where, error);
    }
}

static bool load_sim(config *c, const cJSON *sim, const char *file, GError **error)
{
    if (!cJSON_IsObject(sim)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: sim: expected an object, got %s",
                    file, ccs_json_type_name(sim));
        return false;
    }
    for (const cJSON *v = sim->child; v; v = v->next) {
        if (strcmp(v->string, "structure_set") == 0) {
            g_autofree char *where = g_strdup_printf("%s: sim.structure_set", file);
            if (!workload_set_check(v, where, error))
                return false;
            cJSON_Delete(c->sim.structure_set);
            c->sim.structure_set = cJSON_Duplicate(v, true);
            continue;
        }
        const sim_key *k = NULL;
        for (size_t i = 0; i < G_N_ELEMENTS(sim_keys); i++)
            if (strcmp(sim_keys[i].name, v->string) == 0)
                k = &sim_keys[i];
        if (!k) {
            g_autofree char *shown = ccs_escape(v->string, -1, 80);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: sim.%s: unknown key", file,
                        shown);
            return false;
        }
        if (!sim_key_from_json(c, k, v, file, error))
            return false;
    }
    return true;
}

static bool load_root(config *c, const cJSON *root, const char *file, GError **error)
{
    if (!cJSON_IsObject(root)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: expected a JSON object at the top level", file);
        return false;
    }
    static const char *const known[] = {"topology", "trace",       "scheduler", "sim",
                                        "timeline", "name",        "description", NULL};
    if (!ccs_json_check_keys(root, known, file, NULL, error))
        return false;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "topology");
    if (v) {
        if (cJSON_IsString(v)) {
            g_free(c->topology_spec);
            c->topology_spec = g_strdup(v->valuestring);
        } else if (cJSON_IsObject(v)) {
            c->topology_obj = v;
        } else {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: topology: expected a builder spec string or an object, got %s", file,
                        ccs_json_type_name(v));
            return false;
        }
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "trace");
    if (v) {
        if (!cJSON_IsObject(v) || !v->child) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: trace: expected an object {\"lingjun\": DIR}, {\"json\": FILE}, "
                        "{\"synthetic\": {...}} or {\"jobs\": [...]}",
                        file);
            return false;
        }
        c->trace_obj = v;
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "scheduler");
    if (v) {
        const cJSON *name = v;
        if (cJSON_IsObject(v)) {
            name = cJSON_GetObjectItemCaseSensitive(v, "name");
            c->scheduler_obj = c->scheduler_file_obj = v;
        }
        if (!cJSON_IsString(name)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        cJSON_IsObject(v) ? "%s: scheduler.name: expected a string"
                                          : "%s: scheduler: expected a name or an object",
                        file);
            return false;
        }
        g_free(c->scheduler);
        c->scheduler = g_strdup(name->valuestring);
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "timeline");
    if (v) {
        if (!cJSON_IsObject(v)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: timeline: expected an object {\"file\", \"jobs\", \"span\", "
                        "\"flows\"}",
                        file);
            return false;
        }
        c->timeline_obj = v; /* its keys are read by the command line (cli_timeline.c) */
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (v) {
        if (!cJSON_IsString(v)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: name: expected a string", file);
            return false;
        }
        g_free(c->name);
        c->name = g_strdup(v->valuestring);
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "sim");
    if (v && !load_sim(c, v, file, error))
        return false;
    return true;
}

bool config_load_buffer(config *c, const char *buf, size_t len, const char *name,
                        GError **error)
{
    g_return_val_if_fail(c && buf && name, false);
    g_return_val_if_fail(!c->overridden && !c->root, false);
    c->root = ccs_json_parse(buf, len, name, error);
    return c->root && load_root(c, c->root, name, error);
}

bool config_load_file(config *c, const char *path, GError **error)
{
    g_autoptr(GBytes) bytes = ccs_input_read(path, true, error);
    if (!bytes)
        return false;
    gsize len = 0;
    const char *buf = g_bytes_get_data(bytes, &len);
    g_free(c->path);
    c->path = g_strdup(path);
    g_autofree char *base = g_path_get_basename(path);
    if (g_str_has_suffix(base, ".json"))
        base[strlen(base) - 5] = '\0';
    g_free(c->name);
    c->name = g_strdup(base);
    return config_load_buffer(c, buf, len, path, error);
}

bool config_set_option(config *c, const char *key, const char *value, GError **error)
{
    g_return_val_if_fail(c && key && value, false);
    const sim_key *k = key_find(key);
    if (!k) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "--%s: unknown option", key);
        return false;
    }
    c->overridden = true;
    g_autofree char *where = g_strdup_printf("--%s", k->option);
    switch (k->type) {
    case KEY_ENUM:
    case KEY_STRING:
        return key_store_choice(c, k, value, where, error);
    case KEY_TEXT:
        return key_store_text(c, k, value, NULL, where, error);
    case KEY_BOOL: {
        static const char *const t[] = {"true", "1", "yes", "on", NULL};
        static const char *const f[] = {"false", "0", "no", "off", NULL};
        if (choice_index(t, value) >= 0)
            key_store_bool(c, k, true);
        else if (choice_index(f, value) >= 0)
            key_store_bool(c, k, false);
        else {
            g_autofree char *shown = ccs_escape(value, -1, 80);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: expected true or false, got \"%s\"", where, shown);
            return false;
        }
        return true;
    }
    default: {
        if (strcmp(k->name, "channels") == 0 && strcmp(value, "auto") == 0) {
            c->sim.channels = 0;
            return true;
        }
        double v = 0;
        if (!ccs_parse_double(value, &v)) {
            g_autofree char *shown = ccs_escape(value, -1, 80);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: expected a decimal number, got \"%s\"", where, shown);
            return false;
        }
        if (k->type == KEY_UINT && strcmp(k->name, "seed") == 0) {
            /* seeds are 64-bit: parse exactly */
            guint64 u = 0;
            if (!g_ascii_string_to_unsigned(value, 10, 0, G_MAXUINT64, &u, NULL)) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "%s: expected a whole number in [0, 2^64 - 1], got \"%s\"", where,
                            value); /* value parsed as a decimal number: nothing to escape */
                return false;
            }
            c->sim.seed = u;
            return true;
        }
        return key_store_number(c, k, v, where, error);
    }
    }
}

/* An option's VALUE as JSON: true, false, a decimal number, or a string. */
static cJSON *option_value(const char *v)
{
    double d = 0;
    if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
        return cJSON_CreateBool(strcmp(v, "true") == 0);
    if (ccs_parse_double(v, &d))
        return cJSON_CreateNumber(d);
    return cJSON_CreateString(v);
}

bool config_set_structure_key(config *c, const char *key_value, GError **error)
{
    g_return_val_if_fail(c && key_value, false);
    const char *eq = strchr(key_value, '=');
    if (!eq || eq == key_value) {
        g_autofree char *shown = ccs_escape(key_value, -1, 80);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "--structure-set: expected KEY=VALUE, got \"%s\"", shown);
        return false;
    }
    g_autofree char *key = g_strndup(key_value, (gsize)(eq - key_value));
    g_autoptr(cJSON) one = cJSON_CreateObject();
    cJSON_AddItemToObject(one, key, option_value(eq + 1));
    if (!workload_set_check(one, "--structure-set", error))
        return false;
    if (!c->sim.structure_set)
        c->sim.structure_set = cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(c->sim.structure_set, key);
    cJSON_AddItemToObject(c->sim.structure_set, key, cJSON_DetachItemFromObject(one, key));
    c->overridden = true;
    return true;
}

void config_set_scheduler(config *c, const char *name)
{
    g_free(c->scheduler);
    c->scheduler = g_strdup(name);
    /* a scheduler named on the command line reads the file's object only
     * when it is the scheduler the file names */
    c->scheduler_obj = NULL;
    if (c->scheduler_file_obj) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(c->scheduler_file_obj, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
            c->scheduler_obj = c->scheduler_file_obj;
    }
    c->overridden = true;
}

void config_set_topology(config *c, const char *spec)
{
    g_free(c->topology_spec);
    c->topology_spec = g_strdup(spec);
    c->topology_obj = NULL;
    c->overridden = true;
}

void config_set_trace(config *c, const char *path)
{
    g_free(c->trace_path);
    c->trace_path = g_strdup(path);
    c->trace_obj = NULL;
    c->overridden = true;
}

const char *config_mode_name(config_mode m) { return mode_names[m]; }
const char *config_placement_name(config_placement p) { return placement_names[p]; }
const char *config_collective_model_name(config_collective_model m) { return coll_names[m]; }
const char *config_steady_name(config_steady s) { return steady_names[s]; }
const char *config_job_model_name(config_job_model j) { return job_model_names[j]; }
const char *config_step_latency_name(config_step_latency s) { return step_latency_names[s]; }

static void add_num_or_null(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

cJSON *config_to_json(const config *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", c->name);
    if (c->path)
        cJSON_AddStringToObject(o, "scenario_file", c->path);
    if (c->topology_obj)
        cJSON_AddItemToObject(o, "topology", cJSON_Duplicate(c->topology_obj, true));
    else if (c->topology_spec)
        cJSON_AddStringToObject(o, "topology", c->topology_spec);
    else
        cJSON_AddNullToObject(o, "topology");
    if (c->trace_path)
        cJSON_AddStringToObject(o, "trace", c->trace_path);
    else if (c->trace_obj)
        cJSON_AddItemToObject(o, "trace", cJSON_Duplicate(c->trace_obj, true));
    else
        cJSON_AddNullToObject(o, "trace");
    if (c->scheduler_obj)
        cJSON_AddItemToObject(o, "scheduler", cJSON_Duplicate(c->scheduler_obj, true));
    else
        cJSON_AddStringToObject(o, "scheduler", c->scheduler);
    if (c->timeline_obj)
        cJSON_AddItemToObject(o, "timeline", cJSON_Duplicate(c->timeline_obj, true));
    cJSON *s = cJSON_AddObjectToObject(o, "sim");
    cJSON_AddStringToObject(s, "mode", config_mode_name(c->sim.mode));
    add_num_or_null(s, "start_s", c->sim.start_s);
    add_num_or_null(s, "end_s", c->sim.end_s);
    char seed[32];
    g_snprintf(seed, sizeof seed, "%" G_GUINT64_FORMAT, c->sim.seed);
    cJSON_AddRawToObject(s, "seed", seed);
    cJSON_AddNumberToObject(s, "priority_levels", c->sim.priority_levels);
    cJSON_AddNumberToObject(s, "interval_s", c->sim.interval_s);
    cJSON_AddNumberToObject(s, "time_scale", c->sim.time_scale);
    cJSON_AddStringToObject(s, "placement", config_placement_name(c->sim.placement));
    cJSON_AddStringToObject(s, "collective_model",
                            config_collective_model_name(c->sim.collective_model));
    if (c->sim.channels > 0)
        cJSON_AddNumberToObject(s, "channels", c->sim.channels);
    else
        cJSON_AddStringToObject(s, "channels", "auto");
    cJSON_AddNumberToObject(s, "alpha_us", c->sim.alpha_us);
    cJSON_AddStringToObject(s, "gpu", c->sim.gpu);
    cJSON_AddNumberToObject(s, "buckets", c->sim.buckets);
    cJSON_AddNumberToObject(s, "jitter_sigma", c->sim.jitter_sigma);
    cJSON_AddBoolToObject(s, "scale_hosts", c->sim.scale_hosts);
    cJSON_AddBoolToObject(s, "gzip", c->sim.gzip);
    cJSON_AddBoolToObject(s, "fast_forward", c->sim.fast_forward);
    cJSON_AddStringToObject(s, "steady", config_steady_name(c->sim.steady));
    cJSON_AddStringToObject(s, "job_model", config_job_model_name(c->sim.job_model));
    if (c->sim.shards > 1) { /* only then: an unsplit run's record stays as it was */
        cJSON_AddNumberToObject(s, "shards", c->sim.shards);
        cJSON_AddNumberToObject(s, "shard_warmup", c->sim.shard_warmup);
    }
    if (c->sim.structure_set) /* only then: a run without one records what it did */
        cJSON_AddItemToObject(s, "structure_set", cJSON_Duplicate(c->sim.structure_set, true));
    cJSON_AddStringToObject(s, "compute", compute_names[c->sim.compute]);
    if (c->sim.mdot_weights)
        cJSON_AddStringToObject(s, "mdot_weights", c->sim.mdot_weights);
    else
        cJSON_AddNullToObject(s, "mdot_weights");
    if (c->sim.graph_library)
        cJSON_AddStringToObject(s, "graph_library", c->sim.graph_library);
    else
        cJSON_AddNullToObject(s, "graph_library");
    cJSON_AddStringToObject(s, "step_latency", config_step_latency_name(c->sim.step_latency));
    return o;
}
