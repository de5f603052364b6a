/* mdot_compute.c - a replay's compute times from MDOT: weights for the GPU
 * or the recorded override, the graph library, cached estimates, stage
 * times for per-stage jobs, warnings (mdot_compute.h; docs/mdot.md §5).
 * Not here: the network (mdot_infer.c), graphs (mdot_graph.c).
 */
#include "mdot_compute.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/input.h"
#include "base/json.h"
#include "mdot.h"
#include "structure.h"
#include "traces-private.h"

#define LIBRARY_RESOURCE "/ccsim/traces/graphs/"

/* One graph's cached estimate (batch-free). */
typedef struct cached {
    mdot_graph *g;
    mdot_estimate est;
    GHashTable *warned_batches; /* batches whose range warnings were taken */
} cached;

struct mdot_compute {
    mdot_model *model;
    char *gpu;            /* the replay's GPU type */
    bool override;        /* the weights are not the GPU's */
    char *library_path;   /* NULL: the embedded library */
    cJSON *library;       /* the index, read at first use */
    GHashTable *graphs;   /* file or resource path -> cached */
    GPtrArray *warnings;  /* each once */
    GHashTable *seen;     /* the warnings' texts */
    GPtrArray *kept;      /* catalog models whose catalog time was kept */
};

static void cached_free(gpointer p)
{
    cached *c = p;
    mdot_graph_free(c->g);
    g_hash_table_destroy(c->warned_batches);
    g_free(c);
}

static void warn(mdot_compute *mc, char *text)
{
    if (g_hash_table_contains(mc->seen, text)) {
        g_free(text);
        return;
    }
    g_hash_table_add(mc->seen, text);
    g_ptr_array_add(mc->warnings, text);
}

/* The weights of o->weights, or refuse as mdot_compute.h says. */
static mdot_model *pick_weights(const mdot_compute_options *o, bool *override, GError **error)
{
    if (!o->weights && !mdot_model_has_device(o->gpu)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "MDOT has no weights for GPU '%s' (weights exist for: %s); its compute "
                    "times cannot come from MDOT.  To use another device's weights anyway, "
                    "pass --mdot-weights DEVICE (scenario sim.mdot_weights): the times are then "
                    "that device's, and run.json records it (docs/mdot.md §5)",
                    o->gpu, mdot_model_devices());
        return NULL;
    }
    const char *dev = o->weights ? o->weights : o->gpu;
    mdot_model *m = mdot_model_load_default(dev, error);
    if (!m) {
        g_prefix_error(error, "%s: ", o->weights ? "--mdot-weights" : "MDOT");
        return NULL;
    }
    *override = g_ascii_strcasecmp(mdot_model_device(m), o->gpu) != 0;
    return m;
}

mdot_compute *mdot_compute_new(const mdot_compute_options *o, GError **error)
{
    g_return_val_if_fail(o && o->gpu, NULL);
    bool override = false;
    mdot_model *m = pick_weights(o, &override, error);
    if (!m)
        return NULL;
    mdot_compute *mc = g_new0(mdot_compute, 1);
    mc->model = m;
    mc->gpu = g_strdup(o->gpu);
    mc->override = override;
    mc->library_path = g_strdup(o->library);
    mc->graphs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, cached_free);
    mc->warnings = g_ptr_array_new();
    mc->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    mc->kept = g_ptr_array_new_with_free_func(g_free);
    if (override)
        warn(mc, g_strdup_printf("MDOT compute times use the weights of %s (%s), not of the "
                                 "replay's GPU %s, as --mdot-weights asks: they are %s times",
                                 mdot_model_device(m), mdot_model_device_name(m), o->gpu,
                                 mdot_model_device(m)));
    return mc;
}

/* A graph file, or a file of the embedded library (resource path). */
static mdot_graph *load_graph(const char *path, GError **error)
{
    if (!g_str_has_prefix(path, LIBRARY_RESOURCE))
        return mdot_graph_load(path, error);
    g_autoptr(GBytes) raw = trace__resource_bytes(path, error);
    g_autoptr(GBytes) text = raw ? ccs_input_decode(raw, path, true, error) : NULL;
    if (!text)
        return NULL;
    gsize len;
    const char *s = g_bytes_get_data(text, &len);
    return mdot_graph_parse(s, len, path, error);
}

/* The cached estimate of the graph at path (loaded and predicted once). */
static cached *graph_at(mdot_compute *mc, const char *path, GError **error)
{
    cached *c = g_hash_table_lookup(mc->graphs, path);
    if (c)
        return c;
    g_autoptr(mdot_graph) g = load_graph(path, error);
    mdot_estimate est;
    if (!g || !mdot_estimate_graph(mc->model, g, &est, NULL, NULL, error))
        return NULL;
    c = g_new0(cached, 1);
    c->g = g_steal_pointer(&g);
    c->est = est;
    c->warned_batches = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    g_hash_table_insert(mc->graphs, g_strdup(path), c);
    return c;
}

static void range_warnings(mdot_compute *mc, cached *c, int64_t batch)
{
    if (g_hash_table_contains(c->warned_batches, &batch))
        return;
    g_hash_table_add(c->warned_batches, g_memdup2(&batch, sizeof batch));
    g_autoptr(GPtrArray) w = mdot_model_range_warnings(mc->model, c->g, batch);
    for (size_t i = 0; i < w->len; i++)
        warn(mc, g_strdup_printf("MDOT: %s", (char *)w->pdata[i]));
}

double mdot_compute_graph_s(mdot_compute *mc, const char *path, int64_t batch, GError **error)
{
    cached *c = graph_at(mc, path, error);
    if (!c)
        return -1;
    int64_t b = batch > 0 ? batch : mdot_graph_batch(c->g);
    range_warnings(mc, c, b);
    return mdot_estimate_at(&c->est, (double)b);
}

/* The library index (read once): the embedded one or mc->library_path. */
static const cJSON *library(mdot_compute *mc, GError **error)
{
    if (mc->library)
        return mc->library;
    const char *name = mc->library_path ? mc->library_path : LIBRARY_RESOURCE "library.json";
    g_autoptr(GBytes) b = mc->library_path ? ccs_input_read(name, true, error)
                                           : trace__resource_bytes(name, error);
    if (!b)
        return NULL;
    gsize len;
    const char *s = g_bytes_get_data(b, &len);
    static const char *const keys[] = {"about", "graphs", NULL};
    cJSON *root = ccs_json_parse(s, len, name, error); /* the strict reader (base/json.h) */
    if (!root || !ccs_json_check_keys(root, keys, name, NULL, error)) {
        cJSON_Delete(root);
        return NULL;
    }
    const cJSON *gs = cJSON_GetObjectItemCaseSensitive(root, "graphs");
    if (!cJSON_IsObject(gs)) {
        cJSON_Delete(root);
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                    "%s: not a graph library ({\"graphs\": {NAME: {\"file\", \"batch\"}}})",
                    name);
        return NULL;
    }
    mc->library = root;
    return root;
}

/* Library entry of catalog model `name`: *path (transfer full; NULL when
 * the entry has no graph) and *batch.  False when there is no entry or it
 * is malformed. */
static bool library_entry(mdot_compute *mc, const char *name, char **path, int64_t *batch,
                          GError **error)
{
    const cJSON *lib = library(mc, error);
    if (!lib)
        return false;
    const char *lname = mc->library_path ? mc->library_path : "the built-in graph library";
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(lib, "graphs"), name);
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "file");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(e, "batch");
    *path = NULL;
    if (!e) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s has no graph for model '%s' (docs/mdot.md §5 lists its models)", lname,
                    name);
        return false;
    }
    static const char *const keys[] = {"file", "batch", "note", "why", NULL};
    g_autofree char *where = g_strdup_printf("graphs.%s", name);
    if (!ccs_json_check_keys(e, keys, lname, where, error))
        return false;
    if (cJSON_IsNull(f))
        return true;
    if (!cJSON_IsString(f) || !cJSON_IsNumber(b) || b->valuedouble < 1 ||
        b->valuedouble > 1e9 || b->valuedouble != floor(b->valuedouble)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: graphs.%s: expected {\"file\": FILE, \"batch\": N}", lname, name);
        return false;
    }
    *batch = (int64_t)b->valuedouble;
    if (!mc->library_path)
        *path = g_strconcat(LIBRARY_RESOURCE, f->valuestring, NULL);
    else {
        g_autofree char *dir = g_path_get_dirname(mc->library_path);
        *path = g_path_is_absolute(f->valuestring) ? g_strdup(f->valuestring)
                                                   : g_build_filename(dir, f->valuestring, NULL);
    }
    return true;
}

/* Name is listed in run.json's catalog_kept, once. */
static void keep_catalog(mdot_compute *mc, const char *name)
{
    if (!g_ptr_array_find_with_equal_func(mc->kept, name, g_str_equal, NULL))
        g_ptr_array_add(mc->kept, g_strdup(name));
}

double mdot_compute_catalog_s(mdot_compute *mc, const catalog_model *m, catalog_gpu gpu,
                              bool *from_catalog, GError **error)
{
    g_autofree char *path = NULL;
    int64_t batch = 0;
    *from_catalog = false;
    if (!library_entry(mc, m->name, &path, &batch, error))
        return -1;
    if (!path) {
        *from_catalog = true;
        keep_catalog(mc, m->name);
        return m->compute_s[gpu];
    }
    double t = mdot_compute_graph_s(mc, path, batch, error);
    if (t < 0) {
        g_prefix_error(error, "model %s: ", m->name);
        return -1;
    }
    return t / (double)(MAX(m->tp, 1) * MAX(m->pp, 1));
}

bool mdot_compute_stage_times(mdot_compute *mc, const char *name, double micro_batch, int pp,
                              int tp, double fwd_frac, double *fwd_s, double *bwd_s,
                              GError **error)
{
    g_autofree char *path = NULL;
    int64_t batch = 0;
    if (!library_entry(mc, name, &path, &batch, error))
        return false;
    cached *c = path ? graph_at(mc, path, error) : NULL;
    if (!c) {
        if (!path)
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "the graph library keeps the catalog time of '%s' (no graph)", name);
        return false;
    }
    size_t n = mdot_graph_count(c->g);
    if (pp < 1 || (size_t)pp > n || tp < 1 || !(micro_batch >= 1 && micro_batch <= 1e9)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: %d pipeline stages, tp %d, micro-batch %g: need 1 <= pp <= %zu "
                    "operators, tp >= 1, 1 <= micro-batch <= 1e9", name, pp, tp, micro_batch, n);
        return false;
    }
    range_warnings(mc, c, (int64_t)ceil(micro_batch));
    g_autofree double *fx = g_new(double, n);
    g_autofree double *ps = g_new(double, n);
    mdot_estimate est;
    if (!mdot_estimate_graph(mc->model, c->g, &est, fx, ps, error))
        return false;
    double total = mdot_estimate_at(&est, micro_batch), prefix = 0;
    size_t v = 0;
    for (int k = 0; k < pp; k++) {
        double stage = 0;
        /* leave at least one operator for each later stage */
        size_t last = n - (size_t)(pp - 1 - k);
        while (v < last && (k == pp - 1 || prefix < total * (k + 1) / pp || stage == 0)) {
            double t = fx[v] + ps[v] * micro_batch;
            stage += t;
            prefix += t;
            v++;
        }
        fwd_s[k] = stage / tp * fwd_frac;
        bwd_s[k] = stage / tp * (1 - fwd_frac);
    }
    return true;
}

bool mdot_compute_structure(mdot_compute *mc, const char *name, double micro_batch,
                            job_structure *s, bool *kept, GError **error)
{
    g_autofree char *path = NULL;
    int64_t batch = 0;
    *kept = false;
    if (!library_entry(mc, name, &path, &batch, error))
        return false;
    if (!path) {
        *kept = true;
        keep_catalog(mc, name);
        return true;
    }
    double fwd = 0, all = 0;
    for (int k = 0; k < s->pp; k++) {
        fwd += s->stages[k].fwd_s;
        all += s->stages[k].fwd_s + s->stages[k].bwd_s;
    }
    double micro = micro_batch > 0 ? micro_batch
                                   : MAX(1.0, (double)batch / MAX(s->micro_batches, 1));
    g_autofree double *f = g_new(double, s->pp);
    g_autofree double *b = g_new(double, s->pp);
    if (!mdot_compute_stage_times(mc, name, micro, s->pp, MAX(s->tp, 1),
                                  all > 0 ? fwd / all : 1.0 / 3, f, b, error))
        return false;
    for (int k = 0; k < s->pp; k++) {
        s->stages[k].fwd_s = f[k];
        s->stages[k].bwd_s = b[k];
    }
    return true;
}

const char *mdot_compute_weights(const mdot_compute *mc) { return mdot_model_device(mc->model); }
bool mdot_compute_overridden(const mdot_compute *mc) { return mc->override; }
const GPtrArray *mdot_compute_warnings(const mdot_compute *mc) { return mc->warnings; }

cJSON *mdot_compute_to_json(const mdot_compute *mc)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "predictor", mdot_model_version(mc->model));
    cJSON_AddStringToObject(o, "weights", mdot_model_device(mc->model));
    cJSON_AddStringToObject(o, "weights_device_name", mdot_model_device_name(mc->model));
    cJSON_AddStringToObject(o, "gpu", mc->gpu);
    cJSON_AddBoolToObject(o, "override", mc->override);
    cJSON *k = cJSON_AddArrayToObject(o, "catalog_kept");
    for (size_t i = 0; i < mc->kept->len; i++)
        cJSON_AddItemToArray(k, cJSON_CreateString(mc->kept->pdata[i]));
    cJSON *w = cJSON_AddArrayToObject(o, "warnings");
    for (size_t i = 0; i < mc->warnings->len; i++)
        cJSON_AddItemToArray(w, cJSON_CreateString(mc->warnings->pdata[i]));
    return o;
}

void mdot_compute_free(mdot_compute *mc)
{
    if (!mc)
        return;
    mdot_model_free(mc->model);
    g_free(mc->gpu);
    g_free(mc->library_path);
    cJSON_Delete(mc->library);
    g_hash_table_destroy(mc->graphs);
    g_ptr_array_free(mc->warnings, TRUE);
    g_hash_table_destroy(mc->seen);
    g_ptr_array_free(mc->kept, TRUE);
    g_free(mc);
}
