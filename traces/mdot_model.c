/* mdot_model.c - the MDOT network: loading the weights JSON that
 * scripts/mdot/train.py writes, and inference in double precision (the
 * same arithmetic as scripts/mdot/model.py).  Not here: graphs (mdot_graph.c).
 */
#include "mdot.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/json.h"
#include "mdot-private.h"
#include "traces-private.h"

/* PyTorch's nn.LayerNorm default. */
#define LN_EPS 1e-5

typedef struct lin { double *w, *b; size_t out, in; } lin; /* y = W x + b, W out x in */
typedef struct lnorm { double *g, *b; } lnorm;
typedef struct layer { lnorm ln1, ln2; lin q, k, v, o, ff1, ff2; } layer;
typedef enum pe_kind { PE_GRAPH, PE_SEQ, PE_NONE } pe_kind;

struct mdot_model {
    char *version, *device, *device_name;
    pe_kind pe;
    size_t d, heads, ffn, n_layers;
    GHashTable *type_index; /* type name -> index + 1 (GINT_TO_POINTER) */
    double *type_emb;       /* vocab x d */
    lin cfg, load, out;
    layer *layers;
    lnorm ln_f;
    double *mu, *sd;        /* feature standardisation, 11 each */
    GPtrArray *blocks;      /* every tensor allocated, freed together */
};

/* Devices with embedded weights (traces/mdot-NAME.json), the first the default. */
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

static bool load_header(mdot_model *m, const cJSON *root, const char *name, GError **error)
{
    m->version = dup_string(root, "version");
    m->device = dup_string(root, "device");
    m->device_name = dup_string(root, "device_name");
    g_autofree char *pe = dup_string(root, "pe");
    if (!m->version || !m->device || !m->device_name || !pe) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: version, device, device_name and pe must be strings", name);
        return false;
    }
    if (strcmp(m->version, MDOT_VERSION)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: version: '%s', this build reads '%s'", name, m->version, MDOT_VERSION);
        return false;
    }
    m->pe = !strcmp(pe, "graph") ? PE_GRAPH : !strcmp(pe, "seq") ? PE_SEQ : PE_NONE;
    if (!read_size(root, "d_model", &m->d, name, error) ||
        !read_size(root, "heads", &m->heads, name, error) ||
        !read_size(root, "ffn", &m->ffn, name, error) ||
        !read_size(root, "layers", &m->n_layers, name, error))
        return false;
    if (m->d == 0 || m->d % 4 || m->heads == 0 || m->d % m->heads) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: d_model must be a multiple of 4 and of heads", name);
        return false;
    }
    const cJSON *vocab = cJSON_GetObjectItemCaseSensitive(root, "vocab");
    const cJSON *v;
    if (!cJSON_IsArray(vocab) || cJSON_GetArraySize(vocab) == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: vocab: must be a non-empty array",
                    name);
        return false;
    }
    size_t i = 0;
    cJSON_ArrayForEach(v, vocab) {
        if (!cJSON_IsString(v)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: vocab[%zu]: not a string",
                        name, i);
            return false;
        }
        g_hash_table_insert(m->type_index, g_strdup(v->valuestring), GSIZE_TO_POINTER(++i));
    }
    return true;
}

static bool load_tensors(mdot_model *m, const cJSON *ts, const char *name, GError **error)
{
    size_t nv = g_hash_table_size(m->type_index);
    if (!(m->type_emb = tensor(m, ts, "type_emb.weight", nv, m->d, name, error)) ||
        !load_lin(m, ts, "cfg", m->d, MDOT__N_CONFIG, &m->cfg, name, error) ||
        !load_lin(m, ts, "load", m->d, MDOT__N_LOAD, &m->load, name, error) ||
        !load_lin(m, ts, "out", 1, m->d, &m->out, name, error) ||
        !load_ln(m, ts, "ln_f", &m->ln_f, name, error) ||
        !(m->mu = tensor(m, ts, "mu", MDOT__N_FEAT, 0, name, error)) ||
        !(m->sd = tensor(m, ts, "sd", MDOT__N_FEAT, 0, name, error)))
        return false;
    m->layers = g_new0(layer, m->n_layers);
    for (size_t i = 0; i < m->n_layers; i++)
        if (!load_layer(m, ts, i, name, error))
            return false;
    for (size_t i = 0; i < MDOT__N_FEAT; i++)
        if (!(m->sd[i] > 0)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: tensors.sd[%zu]: must be > 0",
                        name, i);
            return false;
        }
    return true;
}

mdot_model *mdot_model_load_json(const char *json, size_t len, const char *name,
                                 GError **error)
{
    g_autoptr(cJSON) root = ccs_json_parse(json, len, name, error);
    static const char *const keys[] = {"version", "device", "device_name", "rows",   "epochs",
                                       "seed",    "d_model", "heads",      "ffn",    "layers",
                                       "pe",      "vocab",  "tensors",     NULL};
    if (!root || !ccs_json_check_keys(root, keys, name, NULL, error))
        return NULL;
    g_autoptr(mdot_model) m = g_new0(mdot_model, 1);
    m->type_index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
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
        return mdot_model_load_json(text, len, path, error);
    }
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "unknown MDOT device '%s' (known: %s)", dev, mdot_model_devices());
    return NULL;
}

const char *mdot_model_devices(void) { return DEVICES; }
const char *mdot_model_version(const mdot_model *m) { return m->version; }
const char *mdot_model_device(const mdot_model *m) { return m->device; }
const char *mdot_model_device_name(const mdot_model *m) { return m->device_name; }

/* ---- inference ------------------------------------------------------ */

/* y[out] = W x + b (y may not alias x). */
static void lin_apply(const lin *l, const double *x, double *y)
{
    for (size_t o = 0; o < l->out; o++) {
        double s = l->b[o];
        for (size_t i = 0; i < l->in; i++)
            s += l->w[o * l->in + i] * x[i];
        y[o] = s;
    }
}

static void ln_apply(const lnorm *l, const double *x, double *y, size_t d)
{
    double mean = 0, var = 0;
    for (size_t i = 0; i < d; i++)
        mean += x[i];
    mean /= (double)d;
    for (size_t i = 0; i < d; i++)
        var += (x[i] - mean) * (x[i] - mean);
    double inv = 1.0 / sqrt(var / (double)d + LN_EPS);
    for (size_t i = 0; i < d; i++)
        y[i] = (x[i] - mean) * inv * l->g[i] + l->b[i];
}

/* The input encoding e_v = T[type] + Wc xc + Wl xl + PE_v into h (n x d). */
static bool embed(const mdot_model *m, const mdot_graph *g, double *h, GError **error)
{
    size_t d = m->d;
    g_autofree double *tmp = g_new(double, d);
    if (m->pe == PE_GRAPH)
        mdot_graph_pe(g, d, h);
    for (size_t v = 0; v < g->n; v++) {
        double f[MDOT__N_FEAT], *hv = h + v * d;
        size_t t = GPOINTER_TO_SIZE(g_hash_table_lookup(m->type_index, g->ops[v].type));
        if (t == 0) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: ops[%zu].type: unknown operator type '%s' (the model knows %u types; "
                        "docs/mdot.md lists them)", g->name, v, g->ops[v].type,
                        g_hash_table_size(m->type_index));
            return false;
        }
        if (m->pe == PE_SEQ)
            mdot__sinusoid((double)v, d, hv);
        else if (m->pe == PE_NONE)
            memset(hv, 0, d * sizeof *hv);
        mdot__op_features(&g->ops[v], f);
        for (size_t i = 0; i < MDOT__N_FEAT; i++)
            f[i] = (f[i] - m->mu[i]) / m->sd[i];
        lin_apply(&m->cfg, f, tmp);
        for (size_t i = 0; i < d; i++)
            hv[i] += m->type_emb[(t - 1) * d + i] + tmp[i];
        lin_apply(&m->load, f + MDOT__N_CONFIG, tmp);
        for (size_t i = 0; i < d; i++)
            hv[i] += tmp[i];
    }
    return true;
}

/* h += Wo MHA(LN1(h)) over n operators. */
static void attention(const layer *L, size_t n, size_t d, size_t heads, double *h)
{
    size_t dh = d / heads;
    g_autofree double *a = g_new(double, d);
    g_autofree double *q = g_new(double, n * d);
    g_autofree double *k = g_new(double, n * d);
    g_autofree double *v = g_new(double, n * d);
    g_autofree double *ctx = g_new0(double, n * d);
    g_autofree double *p = g_new(double, n);
    for (size_t i = 0; i < n; i++) {
        ln_apply(&L->ln1, h + i * d, a, d);
        lin_apply(&L->q, a, q + i * d);
        lin_apply(&L->k, a, k + i * d);
        lin_apply(&L->v, a, v + i * d);
    }
    double scale = 1.0 / sqrt((double)dh);
    for (size_t hd = 0; hd < heads; hd++)
        for (size_t i = 0; i < n; i++) {
            double mx = -INFINITY, sum = 0;
            for (size_t j = 0; j < n; j++) {
                double s = 0;
                for (size_t c = hd * dh; c < (hd + 1) * dh; c++)
                    s += q[i * d + c] * k[j * d + c];
                p[j] = s * scale;
                mx = fmax(mx, p[j]);
            }
            for (size_t j = 0; j < n; j++)
                sum += (p[j] = exp(p[j] - mx));
            for (size_t j = 0; j < n; j++)
                for (size_t c = hd * dh; c < (hd + 1) * dh; c++)
                    ctx[i * d + c] += p[j] / sum * v[j * d + c];
        }
    for (size_t i = 0; i < n; i++) {
        lin_apply(&L->o, ctx + i * d, a);
        for (size_t c = 0; c < d; c++)
            h[i * d + c] += a[c];
    }
}

/* h += W2 relu(W1 LN2(h) + b1) + b2, row by row. */
static void feed_forward(const layer *L, size_t n, size_t d, size_t ffn, double *h)
{
    g_autofree double *a = g_new(double, d);
    g_autofree double *mid = g_new(double, ffn);
    g_autofree double *y = g_new(double, d);
    for (size_t i = 0; i < n; i++) {
        ln_apply(&L->ln2, h + i * d, a, d);
        lin_apply(&L->ff1, a, mid);
        for (size_t j = 0; j < ffn; j++)
            mid[j] = fmax(mid[j], 0.0);
        lin_apply(&L->ff2, mid, y);
        for (size_t c = 0; c < d; c++)
            h[i * d + c] += y[c];
    }
}

double mdot_predict_s(const mdot_model *m, const mdot_graph *g, GError **error)
{
    size_t n = g->n, d = m->d;
    g_autofree double *h = g_new0(double, n * d);
    g_autofree double *a = g_new(double, d);
    g_autofree double *s = g_new(double, n);
    if (!embed(m, g, h, error))
        return -1;
    for (size_t l = 0; l < m->n_layers; l++) {
        attention(&m->layers[l], n, d, m->heads, h);
        feed_forward(&m->layers[l], n, d, m->ffn, h);
    }
    /* y = log sum_v exp(s_v), computed from the largest term */
    double mx = -INFINITY, sum = 0;
    for (size_t v = 0; v < n; v++) {
        ln_apply(&m->ln_f, h + v * d, a, d);
        lin_apply(&m->out, a, &s[v]);
        mx = fmax(mx, s[v]);
    }
    for (size_t v = 0; v < n; v++)
        sum += exp(s[v] - mx);
    return exp(mx + log(sum));
}

double mdot_predict_file_s(const char *path, int64_t batch, const char *device, double *params,
                           GError **error)
{
    g_autoptr(mdot_model) m = mdot_model_load_default(device, error);
    g_autoptr(mdot_graph) g = m ? mdot_graph_load(path, error) : NULL;
    if (!g)
        return -1;
    if (batch != 0) {
        mdot_graph *scaled = mdot_graph_with_batch(g, batch, error);
        if (!scaled)
            return -1;
        mdot_graph_free(g);
        g = scaled;
    }
    if (params)
        *params = g->params;
    return mdot_predict_s(m, g, error);
}

void mdot_model_free(mdot_model *m)
{
    if (!m)
        return;
    g_free(m->version);
    g_free(m->device);
    g_free(m->device_name);
    if (m->type_index)
        g_hash_table_destroy(m->type_index);
    if (m->blocks)
        g_ptr_array_free(m->blocks, TRUE);
    g_free(m->layers);
    g_free(m);
}
