/* models.c - the model catalog (docs/models.md): models.json, lookup, jitter.
 * Not here: the numbers' sources (docs/models.md).
 *
 * The model catalog (docs/models.md): models.json parsed into entries, name
 * lookup, the trace-name mapping (docs/models.md) and the per-job
 * compute jitter.  Numbers and sources: docs/models.md.
 */
#include "catalog.h"
#include "mdot.h"
#include "workload.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/json.h"
#include "traces-private.h"

struct catalog {
    GPtrArray *models;   /* catalog_model*, owned, file order */
    GHashTable *by_name; /* lower-case name or alias -> catalog_model* (borrowed) */
};

static const char *const gpu_names[CATALOG_GPU_COUNT] = {"a100", "h100"};

static const char *const coll_names[] = {
    [CATALOG_COLL_NONE] = "none",
    [CATALOG_COLL_ALLREDUCE] = "allreduce",
    [CATALOG_COLL_ALLGATHER] = "allgather",
    [CATALOG_COLL_REDUCESCATTER] = "reducescatter",
    [CATALOG_COLL_FSDP] = "fsdp",
    [CATALOG_COLL_ALLTOALL] = "alltoall",
    [CATALOG_COLL_P2P] = "p2p",
};

catalog_gpu catalog_gpu_parse(const char *s, GError **error)
{
    for (int g = 0; g < CATALOG_GPU_COUNT; g++)
        if (s && g_ascii_strcasecmp(s, gpu_names[g]) == 0)
            return (catalog_gpu)g;
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "unknown GPU type \"%s\" (a100 or h100)",
                s ? s : "(null)");
    return CATALOG_GPU_A100;
}

const char *catalog_gpu_name(catalog_gpu gpu)
{
    return gpu >= 0 && gpu < CATALOG_GPU_COUNT ? gpu_names[gpu] : "?";
}

bool catalog_collective_parse(const char *s, catalog_collective *out, GError **error)
{
    for (size_t c = 0; c < G_N_ELEMENTS(coll_names); c++) {
        if (s && g_ascii_strcasecmp(s, coll_names[c]) == 0) {
            *out = (catalog_collective)c;
            return true;
        }
    }
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "unknown collective \"%s\" (allreduce, allgather, reducescatter, fsdp, alltoall, "
                "p2p or none)",
                s ? s : "(null)");
    return false;
}

const char *catalog_collective_name(catalog_collective c)
{
    return (size_t)c < G_N_ELEMENTS(coll_names) ? coll_names[c] : "?";
}

void catalog_model_free(catalog_model *m)
{
    if (!m)
        return;
    g_free(m->name);
    g_free(m->family);
    g_free(m->source);
    g_free(m->gpu_note);
    g_free(m->arch);
    g_free(m->framework);
    g_free(m->graph_path);
    g_free(m);
}

catalog_model *catalog_model_copy(const catalog_model *m)
{
    g_return_val_if_fail(m != NULL, NULL);
    catalog_model *c = g_new(catalog_model, 1);
    *c = *m;
    c->name = g_strdup(m->name);
    c->family = g_strdup(m->family);
    c->source = g_strdup(m->source);
    c->gpu_note = g_strdup(m->gpu_note);
    c->arch = m->arch ? g_memdup2(m->arch, sizeof *m->arch) : NULL;
    c->framework = g_strdup(m->framework);
    c->graph_path = g_strdup(m->graph_path);
    return c;
}

void catalog_free(catalog *c)
{
    if (!c)
        return;
    g_hash_table_unref(c->by_name);
    g_ptr_array_unref(c->models);
    g_free(c);
}

size_t catalog_count(const catalog *c)
{
    g_return_val_if_fail(c != NULL, 0);
    return c->models->len;
}

const catalog_model *catalog_get(const catalog *c, size_t i)
{
    g_return_val_if_fail(c != NULL && i < c->models->len, NULL);
    return g_ptr_array_index(c->models, i);
}

const catalog_model *catalog_find(const catalog *c, const char *name)
{
    g_return_val_if_fail(c != NULL, NULL);
    if (!name)
        return NULL;
    g_autofree char *low = g_ascii_strdown(name, -1);
    return g_hash_table_lookup(c->by_name, low);
}

/* ---- parsing -------------------------------------------------------- */

typedef struct ctx {
    const char *file; /* for messages */
    const char *entry;
} ctx;

/* An optional number: *out is left alone when the key is absent. */
static bool get_number(const cJSON *o, const char *key, double lo, double hi, double *out,
                       const ctx *x, GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s: missing \"%s\"", x->file,
                    x->entry, key);
        return false;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s: %s: expected a number in [%g, %g]",
                    x->file, x->entry, key, lo, hi);
        return false;
    }
    *out = v->valuedouble;
    return true;
}

static bool get_int(const cJSON *o, const char *key, int lo, int hi, int *out, const ctx *x,
                    GError **error)
{
    double d;
    if (!get_number(o, key, lo, hi, &d, x, error))
        return false;
    if (d != floor(d)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s: %s: expected an integer",
                    x->file, x->entry, key);
        return false;
    }
    *out = (int)d;
    return true;
}

/* {"a100": s, "h100": s}, each inside limit id. */
static bool get_per_gpu(const cJSON *o, const char *key, ccs_limit_id id, double out[],
                        const ctx *x, GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsObject(v)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: %s: %s: expected {\"a100\": s, \"h100\": s}", x->file, x->entry, key);
        return false;
    }
    g_autofree char *path = g_strdup_printf("%s: %s", x->entry, key);
    for (int g = 0; g < CATALOG_GPU_COUNT; g++) {
        out[g] = NAN;
        if (!ccs_json_number(v, gpu_names[g], id, x->file, path, &out[g], error))
            return false;
        if (isnan(out[g])) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s.%s: missing", x->file, path,
                        gpu_names[g]);
            return false;
        }
    }
    return true;
}

static char *get_string(const cJSON *o, const char *key, const ctx *x, GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(v) || v->valuestring[0] == '\0') {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s: \"%s\": expected a string",
                    x->file, x->entry, key);
        return NULL;
    }
    return g_strdup(v->valuestring);
}

/* The audit: a faster GPU computes faster.  An entry whose H100 time is
 * not below its A100 time (numbers from different software, a
 * placeholder) must say why in "gpu_note". */
static bool check_gpu_order(const cJSON *o, catalog_model *m, const ctx *x, GError **error)
{
    const cJSON *note = cJSON_GetObjectItemCaseSensitive(o, "gpu_note");
    if (note) {
        if (!(m->gpu_note = get_string(o, "gpu_note", x, error)))
            return false;
        return true;
    }
    if (m->compute_s[CATALOG_GPU_H100] < m->compute_s[CATALOG_GPU_A100])
        return true;
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "%s: %s: H100 compute %g s is not below A100 %g s: fix it or say why in "
                "\"gpu_note\"",
                x->file, x->entry, m->compute_s[CATALOG_GPU_H100],
                m->compute_s[CATALOG_GPU_A100]);
    return false;
}

/* The optional "arch" (transformer dimensions) and "framework" of an
 * entry (workload.h); the framework defaults from the collective. */
static bool parse_structure_keys(const cJSON *o, catalog_model *m, const ctx *x, GError **error)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "arch");
    if (a) {
        g_autofree char *an = g_strdup_printf("%s: %s: arch", x->file, x->entry);
        m->arch = g_new0(workload_arch, 1);
        if (!workload_arch_from_cjson(a, an, m->arch, error))
            return false;
    }
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "framework");
    workload_framework_kind k = m->collective == CATALOG_COLL_FSDP ? WORKLOAD_FW_FSDP
                                : m->arch                          ? WORKLOAD_FW_MEGATRON
                                                                   : WORKLOAD_FW_DDP;
    if (f && (!cJSON_IsString(f) || !workload_framework_parse(f->valuestring, &k, error))) {
        if (error && !*error)
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "framework: expected a string");
        g_prefix_error(error, "%s: %s: ", x->file, x->entry);
        return false;
    }
    m->framework = g_strdup(workload_framework_name(k));
    const cJSON *mb = cJSON_GetObjectItemCaseSensitive(o, "micro_batch");
    if (mb && (!cJSON_IsNumber(mb) || mb->valuedouble != floor(mb->valuedouble) ||
               mb->valuedouble < 1 || mb->valuedouble > 1e6)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: %s: micro_batch: expected a positive integer", x->file, x->entry);
        return false;
    }
    m->micro_batch = mb ? (int)mb->valuedouble : 0;
    return true;
}

static catalog_model *parse_entry(const cJSON *o, const ctx *x, GError **error)
{
    static const char *const keys[] = {
        "name",      "aliases",     "family",   "source",          "collective", "params",
        "grad_params", "bytes_per_value", "grad_bytes", "compute_s", "opt_s",    "fwd_frac",
        "comm_start_frac", "tp",    "pp",       "a2a_bytes",       "pp_bytes",   "buckets",
        "batch",     "network",     "gpu_note", "arch",            "micro_batch",
        "last_grad_params", NULL};
    if (!ccs_json_check_keys(o, keys, x->file, x->entry, error))
        return NULL;
    g_autoptr(catalog_model) m = g_new0(catalog_model, 1);
    if (!(m->name = get_string(o, "name", x, error)))
        return NULL;
    ctx y = {x->file, m->name};
    x = &y;
    g_autofree char *coll = NULL;
    const cJSON *net = cJSON_GetObjectItemCaseSensitive(o, "network");
    if (!(m->family = get_string(o, "family", x, error)) ||
        !(m->source = get_string(o, "source", x, error)) ||
        !(coll = get_string(o, "collective", x, error)) ||
        !get_number(o, "params", 0, 1e13, &m->params, x, error) ||
        !get_number(o, "grad_params", 0, 1e13, &m->grad_params, x, error) ||
        !get_number(o, "bytes_per_value", 1, 8, &m->bytes_per_value, x, error) ||
        !get_number(o, "grad_bytes", 0, 1e14, &m->grad_bytes, x, error) ||
        !get_per_gpu(o, "compute_s", CCS_LIMIT_COMPUTE_S, m->compute_s, x, error) ||
        !get_per_gpu(o, "opt_s", CCS_LIMIT_OPT_S, m->opt_s, x, error) ||
        !get_number(o, "fwd_frac", 0, 1, &m->fwd_frac, x, error) ||
        !get_int(o, "tp", 1, 1024, &m->tp, x, error) ||
        !get_int(o, "pp", 1, 1024, &m->pp, x, error) ||
        !get_number(o, "a2a_bytes", 0, 1e14, &m->a2a_bytes, x, error) ||
        !get_number(o, "pp_bytes", 0, 1e14, &m->pp_bytes, x, error) ||
        !get_int(o, "buckets", 1, 100000, &m->buckets, x, error))
        return NULL;
    if (cJSON_GetObjectItemCaseSensitive(o, "last_grad_params") &&
        !get_number(o, "last_grad_params", 0, m->grad_params, &m->last_grad_params, x, error))
        return NULL;
    m->comm_start_frac = m->fwd_frac;
    if (!ccs_json_number(o, "comm_start_frac", CCS_LIMIT_FRACTION, x->file, m->name,
                         &m->comm_start_frac, error))
        return NULL;
    if (!catalog_collective_parse(coll, &m->collective, error)) {
        g_prefix_error(error, "%s: %s: ", x->file, x->entry);
        return NULL;
    }
    if (!cJSON_IsBool(net)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s: \"network\": expected true or false",
                    x->file, x->entry);
        return NULL;
    }
    m->network = cJSON_IsTrue(net);
    if (!check_gpu_order(o, m, x, error) || !parse_structure_keys(o, m, x, error))
        return NULL;
    if (m->grad_params > m->params) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: %s: grad_params %g exceeds params %g", x->file, x->entry, m->grad_params,
                    m->params);
        return NULL;
    }
    double expect = m->grad_params * m->bytes_per_value / (m->tp * m->pp);
    if (!ccs_double_equals(m->grad_bytes, expect, 1e-6)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: %s: grad_bytes %.0f != grad_params x bytes_per_value / (tp x pp) = %.0f",
                    x->file, x->entry, m->grad_bytes, expect);
        return NULL;
    }
    return g_steal_pointer(&m);
}

static bool add_name(catalog *c, const char *name, catalog_model *m, const char *file,
                     GError **error)
{
    char *low = g_ascii_strdown(name, -1);
    if (g_hash_table_contains(c->by_name, low)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s: name \"%s\" used twice", file,
                    m->name, name);
        g_free(low);
        return false;
    }
    g_hash_table_insert(c->by_name, low, m);
    return true;
}

catalog *catalog_load_json(const char *json, size_t len, const char *name, GError **error)
{
    g_return_val_if_fail(json != NULL, NULL);
    if (!name)
        name = "(catalog)";
    cJSON *root = ccs_json_parse(json, len, name, error);
    static const char *const top_keys[] = {"about", "models", NULL};
    if (!root || !ccs_json_check_keys(root, top_keys, name, NULL, error)) {
        cJSON_Delete(root);
        return NULL;
    }
    g_autoptr(catalog) c = g_new0(catalog, 1);
    c->models = g_ptr_array_new_with_free_func((GDestroyNotify)catalog_model_free);
    c->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "models");
    bool ok = cJSON_IsArray(arr);
    if (!ok)
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected {\"models\": [...]}", name);
    const cJSON *o;
    size_t i = 0;
    const cJSON *list = ok ? arr : NULL;
    cJSON_ArrayForEach(o, list)
    {
        g_autofree char *entry = g_strdup_printf("models[%zu]", i++);
        ctx x = {name, entry};
        catalog_model *m = parse_entry(o, &x, error);
        if (!m) {
            ok = false;
            break;
        }
        g_ptr_array_add(c->models, m);
        ok = add_name(c, m->name, m, name, error);
        const cJSON *al = cJSON_GetObjectItemCaseSensitive(o, "aliases");
        const cJSON *a;
        const cJSON *alist = cJSON_IsArray(al) ? al : NULL;
        cJSON_ArrayForEach(a, alist)
        {
            if (ok && cJSON_IsString(a))
                ok = add_name(c, a->valuestring, m, name, error);
        }
        if (!ok)
            break;
    }
    cJSON_Delete(root);
    if (ok && c->models->len == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: no models", name);
        ok = false;
    }
    return ok ? g_steal_pointer(&c) : NULL;
}

catalog *catalog_load_default(GError **error)
{
    g_autoptr(GBytes) b = trace__resource_bytes("/ccsim/traces/models.json", error);
    if (!b)
        return NULL;
    size_t n;
    const char *s = g_bytes_get_data(b, &n);
    return catalog_load_json(s, n, "models.json", error);
}

/* ---- inline models -------------------------------------------------- */

/* The graph of {"graph": FILE, "batch": N}: FILE (relative to base_dir
 * unless absolute) is read and checked now, its path, batch (0: the
 * graph's own) and parameter count kept; the compute time comes later from
 * the replay, which knows the GPU (docs/mdot.md §5). */
static bool graph_model(const cJSON *obj, const char *name, const char *base_dir,
                        catalog_model *m, GError **error)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(obj, "graph");
    double batch = 0;
    if (cJSON_GetObjectItemCaseSensitive(obj, "device")) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: device: no longer a model key; the weights follow the replay's --gpu, "
                    "and --mdot-weights (sim.mdot_weights) overrides them for every job",
                    name);
        return false;
    }
    if (!cJSON_IsString(g) || !*g->valuestring) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: graph: expected a file name",
                    name);
        return false;
    }
    if (!ccs_json_number(obj, "batch", CCS_LIMIT_GRAPH_BATCH, NULL, name, &batch, error))
        return false;
    m->graph_batch = (int64_t)batch;
    m->graph_path = g_path_is_absolute(g->valuestring) || !base_dir
                        ? g_strdup(g->valuestring)
                        : g_build_filename(base_dir, g->valuestring, NULL);
    g_autoptr(mdot_graph) gr = mdot_graph_load(m->graph_path, error);
    if (!gr) {
        g_prefix_error(error, "%s: graph: ", name);
        return false;
    }
    m->params = mdot_graph_params(gr);
    m->source = g_strdup_printf("MDOT %s from %s", MDOT_VERSION, m->graph_path);
    m->predicted = true;
    for (int k = 0; k < CATALOG_GPU_COUNT; k++)
        m->compute_s[k] = NAN; /* the replay's: mdot_compute.h */
    return true;
}

catalog_model *catalog_model_from_cjson(const cJSON *obj, const char *name, const char *base_dir,
                                        GError **error)
{
    if (!name)
        name = "model";
    static const char *const keys[] = {"compute_s", "comm_bytes", "comm_start_frac", "opt_s",
                                       "collective", "buckets",    "tp",              "pp",
                                       "a2a_bytes",  "pp_bytes",   "graph",           "batch",
                                       "device",     NULL};
    if (!ccs_json_check_keys(obj, keys, NULL, name, error))
        return NULL;
    bool has_graph = cJSON_GetObjectItemCaseSensitive(obj, "graph") != NULL;
    if (has_graph == (cJSON_GetObjectItemCaseSensitive(obj, "compute_s") != NULL)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s", name,
                    has_graph ? "give \"compute_s\" or \"graph\", not both"
                              : "missing \"compute_s\" (or \"graph\")");
        return NULL;
    }
    double compute = 0, comm = 0, start = 1, opt = 0, buckets = 1, tp = 1, pp = 1, a2a = 0,
           ppb = 0;
    g_autoptr(catalog_model) m = g_new0(catalog_model, 1);
    if (has_graph && !graph_model(obj, name, base_dir, m, error))
        return NULL;
    comm = 4 * m->params; /* fp32 gradients of a graph model; 0 otherwise */
    if (!ccs_json_number(obj, "compute_s", CCS_LIMIT_COMPUTE_S, NULL, name, &compute, error) ||
        !ccs_json_number(obj, "comm_bytes", CCS_LIMIT_COMM_BYTES, NULL, name, &comm, error) ||
        !ccs_json_number(obj, "comm_start_frac", CCS_LIMIT_FRACTION, NULL, name, &start,
                         error) ||
        !ccs_json_number(obj, "opt_s", CCS_LIMIT_OPT_S, NULL, name, &opt, error) ||
        !ccs_json_number(obj, "buckets", CCS_LIMIT_BUCKETS, NULL, name, &buckets, error) ||
        !ccs_json_number(obj, "tp", CCS_LIMIT_TOPO_COUNT, NULL, name, &tp, error) ||
        !ccs_json_number(obj, "pp", CCS_LIMIT_TOPO_COUNT, NULL, name, &pp, error) ||
        !ccs_json_number(obj, "a2a_bytes", CCS_LIMIT_COMM_BYTES, NULL, name, &a2a, error) ||
        !ccs_json_number(obj, "pp_bytes", CCS_LIMIT_COMM_BYTES, NULL, name, &ppb, error))
        return NULL;
    if (buckets < 1 || tp < 1 || pp < 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: buckets, tp and pp must be at least 1", name);
        return NULL;
    }
    catalog_collective coll = CATALOG_COLL_ALLREDUCE;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, "collective");
    if (c) {
        if (!cJSON_IsString(c)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: collective: expected a string",
                        name);
            return NULL;
        }
        if (!catalog_collective_parse(c->valuestring, &coll, error)) {
            g_prefix_error(error, "%s: ", name);
            return NULL;
        }
    }
    m->name = g_strdup(name);
    m->family = g_strdup("inline");
    if (!has_graph)
        m->source = g_strdup("inline model");
    m->grad_params = m->params;
    m->bytes_per_value = has_graph ? 4 : 1;
    m->grad_bytes = comm;
    for (int g = 0; g < CATALOG_GPU_COUNT; g++) {
        if (!has_graph)
            m->compute_s[g] = compute;
        m->opt_s[g] = opt;
    }
    m->fwd_frac = start;
    m->comm_start_frac = start;
    m->tp = (int)tp;
    m->pp = (int)pp;
    m->collective = coll;
    m->a2a_bytes = a2a;
    m->pp_bytes = ppb;
    m->buckets = (int)buckets;
    m->network = comm > 0 || a2a > 0 || ppb > 0;
    if (!m->network)
        m->collective = CATALOG_COLL_NONE;
    return g_steal_pointer(&m);
}

/* ---- jitter --------------------------------------------------------- */

double catalog_jitter_factor(GRand *rng, double sigma)
{
    g_return_val_if_fail(rng != NULL, 1.0);
    if (!(sigma > 0))
        return 1.0;
    /* Box-Muller on two uniforms in (0, 1]. */
    double u1 = 1.0 - g_rand_double(rng), u2 = g_rand_double(rng);
    double z = sqrt(-2.0 * log(u1)) * cos(2.0 * G_PI * u2);
    return exp(sigma * z);
}

/* ---- trace names (docs/design.md §4) ----------------------------------- */

typedef struct choice {
    const char *name;
    double weight;
} choice;

static const catalog_model *pick(const catalog *c, const choice *ch, size_t n, GRand *rng,
                                 GError **error)
{
    double u = g_rand_double(rng), acc = 0;
    size_t k = n - 1;
    for (size_t i = 0; i < n; i++) {
        acc += ch[i].weight;
        if (u < acc) {
            k = i;
            break;
        }
    }
    const catalog_model *m = catalog_find(c, ch[k].name);
    if (!m)
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "catalog has no entry \"%s\"", ch[k].name);
    return m;
}

static const catalog_model *by_gpus(const catalog *c, int gpus, int max_pod, GRand *rng,
                                    GError **error)
{
    static const choice big[] = {{"GPT-13B", .6}, {"LLaMA-65B", .2}, {"GPT-6.7B", .2}};
    static const choice sparse[] = {{"CTR-DLRM", .6}, {"MIND", .4}};
    static const choice mid[] = {
        {"GPT-1.3B", .3}, {"LLaMA-7B", .3}, {"BERT-large", .2}, {"GPT-350M", .2}};
    static const choice small[] = {{"BERT-large", .4}, {"GPT-350M", .3}, {"NMT-big", .3}};
    static const choice host[] = {{"BERT-base", .5}, {"ResNet-50", .3}, {"NMT-base", .2}};
    static const choice one[] = {{"ResNet-50", .5}, {"BERT-base", .5}};
    if (gpus >= 128)
        return pick(c, big, G_N_ELEMENTS(big), rng, error);
    if (gpus >= 49 && max_pod == 1)
        return pick(c, sparse, G_N_ELEMENTS(sparse), rng, error);
    if (gpus >= 17)
        return pick(c, mid, G_N_ELEMENTS(mid), rng, error);
    if (gpus >= 9)
        return pick(c, small, G_N_ELEMENTS(small), rng, error);
    if (gpus >= 2)
        return pick(c, host, G_N_ELEMENTS(host), rng, error);
    return pick(c, one, G_N_ELEMENTS(one), rng, error);
}

const catalog_model *catalog_resolve(const catalog *c, const char *trace_name, int gpus,
                                     int max_pod_gpus, GRand *rng, GError **error)
{
    g_return_val_if_fail(c != NULL && rng != NULL, NULL);
    const char *target = NULL;
    g_autofree char *low = g_ascii_strdown(trace_name ? trace_name : "", -1);
    if (gpus <= 0)
        target = "Non-training";
    else if (low[0] == '\0' || strcmp(low, "unknown") == 0 || strcmp(low, "cognitive") == 0)
        return by_gpus(c, gpus, max_pod_gpus, rng, error);
    else if (strcmp(low, "gpt-13b") == 0)
        target = "GPT-13B";
    else if (strcmp(low, "gpt-7b") == 0 || strcmp(low, "dlm") == 0)
        target = "GPT-6.7B";
    else if (strcmp(low, "gpt-3b") == 0)
        target = "GPT-2.7B";
    else if (strcmp(low, "gpt") == 0)
        target = gpus <= 64 ? "GPT-350M" : "GPT-1.3B";
    else if (strcmp(low, "llama") == 0)
        target = gpus <= 32 ? "LLaMA-7B" : "LLaMA-13B";
    else if (strcmp(low, "llama_30b") == 0)
        target = "LLaMA-33B";
    else if (strcmp(low, "65b") == 0 || strcmp(low, "66b") == 0)
        target = "LLaMA-65B";
    else if (strcmp(low, "130b-infer") == 0)
        target = "Inference-130B";
    else if (strcmp(low, "reward") == 0 || strcmp(low, "rl") == 0)
        target = "RLHF-7B";
    else if (strcmp(low, "layer_attn") == 0 || strcmp(low, "concat") == 0)
        target = "BERT-large";
    else if (strcmp(low, "resnet") == 0 || strcmp(low, "image") == 0)
        target = "ResNet-50";
    else if (strcmp(low, "mnist") == 0)
        target = "MNIST-CNN";
    else if (strcmp(low, "dota") == 0)
        target = "FasterRCNN-R50-FPN";
    else if (strcmp(low, "multigen") == 0)
        target = "Diffusion-UNet";
    else if (strcmp(low, "word_embedding") == 0)
        target = "MIND";
    else if (strcmp(low, "preprocess") == 0 || strcmp(low, "sidecar") == 0)
        target = "Non-training";
    const catalog_model *m = catalog_find(c, target ? target : trace_name);
    if (!m)
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "model \"%s\": neither a trace model name nor in the catalog (see `ccsim "
                    "list models`)",
                    trace_name ? trace_name : "");
    return m;
}
