/* mdot_model.c - the MDOT network's weights: loading the JSON that
 * scripts/mdot/train.py writes (settings, vocabulary, training range,
 * tensors) and the embedded per-device files.  Not here: graphs
 * (mdot_graph.c), inference (mdot_infer.c), range warnings (mdot_range.c).
 */
#include "mdot.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/json.h"
#include "mdot-private.h"
#include "traces-private.h"

typedef mdot__lin lin;
typedef mdot__lnorm lnorm;
typedef mdot__layer layer;

/* Devices with embedded weights (traces/mdot-NAME.json), the first the
 * default.  A device is a CPU ("cpu1": one thread) or a GPU model named as
 * the replay's --gpu names it ("a100", "h100"). */
#define DEVICES "cpu1"

/* Tensor `key` of the exact shape (rows x cols; cols 0 for a vector). */
static double *tensor(mdot_model *m, const cJSON *ts, const char *key, size_t rows, size_t cols,
                      const char *name, GError **error)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(ts, key);
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(t, "shape");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(t, "data");
    size_t want = rows * (cols ? cols : 1);
    int dims = cols ? 2 : 1;
    bool ok = cJSON_IsArray(shape) && cJSON_GetArraySize(shape) == dims &&
              cJSON_IsArray(data) && (size_t)cJSON_GetArraySize(data) == want &&
              cJSON_GetArrayItem(shape, 0)->valuedouble == (double)rows &&
              (!cols || cJSON_GetArrayItem(shape, 1)->valuedouble == (double)cols);
    if (!ok) {
        g_autofree char *want_shape = cols ? g_strdup_printf("[%zu, %zu]", rows, cols)
                                           : g_strdup_printf("[%zu]", rows);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: tensors.%s: missing or not of shape %s", name, key, want_shape);
        return NULL;
    }
    double *x = g_new(double, want);
    g_ptr_array_add(m->blocks, x);
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, data) {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: tensors.%s.data[%zu]: not a "
                        "finite number", name, key, i);
            return NULL;
        }
        x[i++] = v->valuedouble;
    }
    return x;
}

static bool load_lin(mdot_model *m, const cJSON *ts, const char *prefix, size_t out, size_t in,
                     lin *l, const char *name, GError **error)
{
    g_autofree char *wk = g_strdup_printf("%s.weight", prefix);
    g_autofree char *bk = g_strdup_printf("%s.bias", prefix);
    l->out = out;
    l->in = in;
    return (l->w = tensor(m, ts, wk, out, in, name, error)) &&
           (l->b = tensor(m, ts, bk, out, 0, name, error));
}

static bool load_ln(mdot_model *m, const cJSON *ts, const char *prefix, lnorm *l,
                    const char *name, GError **error)
{
    g_autofree char *wk = g_strdup_printf("%s.weight", prefix);
    g_autofree char *bk = g_strdup_printf("%s.bias", prefix);
    return (l->g = tensor(m, ts, wk, m->d, 0, name, error)) &&
           (l->b = tensor(m, ts, bk, m->d, 0, name, error));
}

static bool load_layer(mdot_model *m, const cJSON *ts, size_t i, const char *name,
                       GError **error)
{
    layer *L = &m->layers[i];
    size_t d = m->d;
    struct { const char *part; lin *l; size_t out, in; } lins[] = {
        {"q", &L->q, d, d}, {"k", &L->k, d, d}, {"v", &L->v, d, d}, {"o", &L->o, d, d},
        {"ff1", &L->ff1, m->ffn, d}, {"ff2", &L->ff2, d, m->ffn}};
    for (size_t j = 0; j < G_N_ELEMENTS(lins); j++) {
        g_autofree char *p = g_strdup_printf("layers.%zu.%s", i, lins[j].part);
        if (!load_lin(m, ts, p, lins[j].out, lins[j].in, lins[j].l, name, error))
            return false;
    }
    g_autofree char *p1 = g_strdup_printf("layers.%zu.ln1", i);
    g_autofree char *p2 = g_strdup_printf("layers.%zu.ln2", i);
    return load_ln(m, ts, p1, &L->ln1, name, error) && load_ln(m, ts, p2, &L->ln2, name, error);
}

static char *dup_string(const cJSON *root, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    return cJSON_IsString(v) ? g_strdup(v->valuestring) : NULL;
}

static bool read_size(const cJSON *root, const char *key, size_t *out, const char *name,
                      GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 4096 ||
        v->valuedouble != floor(v->valuedouble)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s: must be an integer 0..4096",
                    name, key);
        return false;
    }
    *out = (size_t)v->valuedouble;
    return true;
}

/* vocab: the operator types, in index order. */
static bool load_vocab(mdot_model *m, const cJSON *root, const char *name, GError **error)
{
    const cJSON *vocab = cJSON_GetObjectItemCaseSensitive(root, "vocab");
    const cJSON *v;
    if (!cJSON_IsArray(vocab) || cJSON_GetArraySize(vocab) == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: vocab: must be a non-empty array",
                    name);
        return false;
    }
    size_t i = 0;
    cJSON_ArrayForEach(v, vocab) {
        if (!cJSON_IsString(v) || g_hash_table_contains(m->type_index, v->valuestring)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: vocab[%zu]: not a string, or a repeated type", name, i);
            return false;
        }
        g_ptr_array_add(m->vocab, g_strdup(v->valuestring));
        g_hash_table_insert(m->type_index, g_strdup(v->valuestring), GSIZE_TO_POINTER(++i));
    }
    return true;
}

/* range.KEY: [min, max], numbers with 0 <= min <= max. */
static bool load_pair(const cJSON *range, const char *key, double out[2], const char *name,
                      GError **error)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(range, key);
    const cJSON *a = cJSON_GetArrayItem(r, 0), *b = cJSON_GetArrayItem(r, 1);
    if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != 2 || !cJSON_IsNumber(a) ||
        !cJSON_IsNumber(b) || !(a->valuedouble >= 0) || !(b->valuedouble >= a->valuedouble)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: range.%s: must be [min, max] with 0 <= min <= max", name, key);
        return false;
    }
    out[0] = a->valuedouble;
    out[1] = b->valuedouble;
    return true;
}

/* range: the training rows' batch, operator and FLOP ranges and the
 * training operators per type (types absent count 0). */
static bool load_range(mdot_model *m, const cJSON *root, const char *name, GError **error)
{
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(root, "range");
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(range, "type_ops");
    if (!cJSON_IsObject(range) || !cJSON_IsObject(types)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: range: must be an object with type_ops", name);
        return false;
    }
    if (!load_pair(range, "batch", m->range.batch, name, error) ||
        !load_pair(range, "ops", m->range.ops, name, error) ||
        !load_pair(range, "flops", m->range.flops, name, error))
        return false;
    m->range.type_ops = g_new0(double, m->vocab->len);
    g_ptr_array_add(m->blocks, m->range.type_ops);
    for (size_t i = 0; i < m->vocab->len; i++) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(types, m->vocab->pdata[i]);
        m->range.type_ops[i] = cJSON_IsNumber(c) && c->valuedouble > 0 ? c->valuedouble : 0;
    }
    return true;
}

static bool load_header(mdot_model *m, const cJSON *root, const char *name, GError **error)
{
    m->version = dup_string(root, "version");
    m->device = dup_string(root, "device");
    m->device_name = dup_string(root, "device_name");
    m->precision = dup_string(root, "precision");
    g_autofree char *pe = dup_string(root, "pe");
    if (!m->version || !m->device || !m->device_name || !m->precision || !pe) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: version, device, device_name, precision and pe must be strings", name);
        return false;
    }
    if (strcmp(m->version, MDOT_VERSION)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: version: '%s', this build reads '%s'", name, m->version, MDOT_VERSION);
        return false;
    }
    m->pe = !strcmp(pe, "graph") ? MDOT__PE_GRAPH
            : !strcmp(pe, "seq") ? MDOT__PE_SEQ : MDOT__PE_NONE;
    if (!read_size(root, "d_model", &m->d, name, error) ||
        !read_size(root, "heads", &m->heads, name, error) ||
        !read_size(root, "ffn", &m->ffn, name, error) ||
        !read_size(root, "layers", &m->n_layers, name, error) ||
        !read_size(root, "window", &m->window, name, error))
        return false;
    if (m->d == 0 || m->d % 4 || m->heads == 0 || m->d % m->heads) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: d_model must be a multiple of 4 and of heads", name);
        return false;
    }
    return load_vocab(m, root, name, error) && load_range(m, root, name, error);
}

/* Every value of a tensor must be > 0 (standard deviations, the prior). */
static bool all_positive(const double *x, size_t n, const char *key, const char *name,
                         GError **error)
{
    for (size_t i = 0; i < n; i++)
        if (!(x[i] > 0)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: tensors.%s[%zu]: must be > 0",
                        name, key, i);
            return false;
        }
    return true;
}

static bool load_tensors(mdot_model *m, const cJSON *ts, const char *name, GError **error)
{
    size_t nv = m->vocab->len;
    if (!(m->type_emb = tensor(m, ts, "type_emb.weight", nv, m->d, name, error)) ||
        !load_lin(m, ts, "cfg", m->d, MDOT__N_CONFIG, &m->cfg, name, error) ||
        !load_lin(m, ts, "load", m->d, MDOT__N_LOAD, &m->load, name, error) ||
        !load_lin(m, ts, "out", MDOT__N_OUT, m->d, &m->out, name, error) ||
        !load_ln(m, ts, "ln_f", &m->ln_f, name, error) ||
        !(m->mu = tensor(m, ts, "mu", MDOT__N_FEAT, 0, name, error)) ||
        !(m->sd = tensor(m, ts, "sd", MDOT__N_FEAT, 0, name, error)) ||
        !(m->prior = tensor(m, ts, "prior", 3, 0, name, error)))
        return false;
    m->layers = g_new0(layer, m->n_layers);
    for (size_t i = 0; i < m->n_layers; i++)
        if (!load_layer(m, ts, i, name, error))
            return false;
    return all_positive(m->sd, MDOT__N_FEAT, "sd", name, error) &&
           all_positive(m->prior, 3, "prior", name, error);
}

mdot_model *mdot_model_load_json(const char *json, size_t len, const char *name,
                                 GError **error)
{
    g_autoptr(cJSON) root = ccs_json_parse(json, len, name, error);
    static const char *const keys[] = {"version", "device",  "device_name", "precision", "rows",
                                       "epochs",  "seed",    "d_model",     "heads",     "ffn",
                                       "layers",  "window",  "pe",          "vocab",     "range",
                                       "tensors", NULL};
    if (!root || !ccs_json_check_keys(root, keys, name, NULL, error))
        return NULL;
    g_autoptr(mdot_model) m = g_new0(mdot_model, 1);
    m->type_index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    m->vocab = g_ptr_array_new_with_free_func(g_free);
    m->blocks = g_ptr_array_new_with_free_func(g_free);
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(root, "tensors");
    if (!load_header(m, root, name, error))
        return NULL;
    if (!cJSON_IsObject(ts)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: tensors: missing", name);
        return NULL;
    }
    if (!load_tensors(m, ts, name, error))
        return NULL;
    return g_steal_pointer(&m);
}

mdot_model *mdot_model_load_default(const char *device, GError **error)
{
    g_auto(GStrv) known = g_strsplit(DEVICES, ",", -1);
    const char *dev = device ? device : known[0];
    for (size_t i = 0; known[i]; i++) {
        if (g_ascii_strcasecmp(dev, known[i]))
            continue;
        g_autofree char *path = g_strdup_printf("/ccsim/traces/mdot-%s.json", known[i]);
        g_autoptr(GBytes) b = trace__resource_bytes(path, error);
        if (!b)
            return NULL;
        gsize len;
        const char *text = g_bytes_get_data(b, &len);
        g_autoptr(mdot_model) m = mdot_model_load_json(text, len, path, error);
        if (m && strcmp(m->device, known[i])) {
            /* the weights name their device: a file copied under another
             * device's name is refused, not used for that device */
            g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL,
                        "%s: device: '%s', but the file is the weights of '%s'", path,
                        m->device, known[i]);
            return NULL;
        }
        return g_steal_pointer(&m);
    }
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "no MDOT weights for device '%s' (weights exist for: %s)", dev,
                mdot_model_devices());
    return NULL;
}

const char *mdot_model_devices(void) { return DEVICES; }

bool mdot_model_has_device(const char *device)
{
    g_auto(GStrv) known = g_strsplit(DEVICES, ",", -1);
    for (size_t i = 0; device && known[i]; i++)
        if (!g_ascii_strcasecmp(device, known[i]))
            return true;
    return false;
}

const char *mdot_model_version(const mdot_model *m) { return m->version; }
const char *mdot_model_device(const mdot_model *m) { return m->device; }
const char *mdot_model_device_name(const mdot_model *m) { return m->device_name; }
const char *mdot_model_precision(const mdot_model *m) { return m->precision; }

void mdot_model_free(mdot_model *m)
{
    if (!m)
        return;
    g_free(m->version);
    g_free(m->device);
    g_free(m->device_name);
    g_free(m->precision);
    if (m->vocab)
        g_ptr_array_free(m->vocab, TRUE);
    if (m->type_index)
        g_hash_table_destroy(m->type_index);
    if (m->blocks)
        g_ptr_array_free(m->blocks, TRUE);
    g_free(m->layers);
    g_free(m);
}
