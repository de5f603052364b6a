/* mdot_graph.c - MDOT operator graphs: reading and checking the JSON, the
 * topological order, batch rescaling, operator features and the graph
 * positional encoding.  Not here: the network (mdot_model.c).
 */
#include "mdot.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/json.h"
#include "base/limits.h"
#include "mdot-private.h"

static const char *const CONFIG_KEYS[] = {"k", "s", "g", "cin", "cout", "in", "out"};

/* A required (or optional, default 0) finite non-negative number. */
static bool read_number(const cJSON *obj, const char *key, bool required, double *out,
                        const char *name, const char *where, GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = 0.0;
    if (!v) {
        if (required)
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s.%s: missing", name, where,
                        key);
        return !required;
    }
    return ccs_json_number(obj, key, CCS_LIMIT_GRAPH_AMOUNT, name, where, out, error);
}

/* A product of dimensions inside the limit of one operator's amounts. */
static bool product_ok(double p, const char *name, const char *where, const char *key,
                       GError **error)
{
    g_autofree char *at = g_strdup_printf("%s: %s.config.%s (product)", name, where, key);
    return ccs_limit_check(CCS_LIMIT_GRAPH_AMOUNT, p, at, error);
}

/* Product of a config array's numbers (1 for an empty one), or its first
 * `take` entries' product when take > 0. */
static bool array_product(const cJSON *arr, int take, double *out, const char *name,
                          const char *where, const char *key, GError **error)
{
    double p = 1.0;
    int i = 0;
    const cJSON *x;
    if (!cJSON_IsArray(arr))
        goto bad;
    cJSON_ArrayForEach(x, arr) {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < 0)
            goto bad;
        if (take == 0 || i < take)
            p *= x->valuedouble;
        i++;
    }
    if (take > 0 && i < take)
        goto bad;
    *out = p;
    return product_ok(p, name, where, key, error);
bad:
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "%s: %s.config.%s: must be an array of numbers >= 0%s", name, where, key,
                take > 0 ? (take == 2 ? " ([h, w])" : " (at least one)") : "");
    return false;
}

/* The 8 raw configuration numbers (features.py's op_features order). */
static bool read_config(const cJSON *op, mdot__op *o, const char *name, const char *where,
                        GError **error)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(op, "config");
    if (!c)
        return true;
    /* "p" (padding) is written by scripts/mdot/opgraph.py, not a feature */
    static const char *const keys[] = {"k", "s", "p", "g", "cin", "cout", "in", "out", NULL};
    g_autofree char *path = g_strdup_printf("%s.config", where);
    if (!ccs_json_check_keys(c, keys, name, path, error))
        return false;
    for (size_t i = 0; i < G_N_ELEMENTS(CONFIG_KEYS); i++) {
        const char *key = CONFIG_KEYS[i];
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, key);
        double *slot = &o->config[i];
        if (!v)
            continue;
        if (i == 0 || i == 1 || i >= 5) {
            /* k: kh * kw; s: its first entry; in, out: element counts */
            int take = i == 0 ? 2 : i == 1 ? 1 : 0;
            if (!array_product(v, take, slot, name, where, key, error))
                return false;
        } else {
            g_autofree char *cwhere = g_strdup_printf("%s.config", where);
            if (!read_number(c, key, true, slot, name, cwhere, error))
                return false;
        }
    }
    return true;
}

static bool read_preds(const cJSON *op, mdot__op *o, size_t self, size_t n, const char *name,
                       const char *where, GError **error)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(op, "preds");
    const cJSON *x;
    size_t k = 0;
    if (!p) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s.preds: missing", name, where);
        return false;
    }
    if (!cJSON_IsArray(p))
        goto bad;
    o->n_preds = (size_t)cJSON_GetArraySize(p);
    o->preds = g_new0(size_t, o->n_preds + 1);
    cJSON_ArrayForEach(x, p) {
        double v = cJSON_IsNumber(x) ? x->valuedouble : -1;
        if (v < 0 || v >= (double)n || v != floor(v) || (size_t)v == self)
            goto bad;
        o->preds[k++] = (size_t)v;
    }
    return true;
bad:
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "%s: %s.preds: must list indices of other operators (0..%zu)", name, where,
                n - 1);
    return false;
}

static bool read_op(const cJSON *op, size_t i, size_t n, mdot__op *o, const char *name,
                    GError **error)
{
    g_autofree char *where = g_strdup_printf("ops[%zu]", i);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(op, "type");
    /* "time_s": a dataset row's own time of the operator (collect.py) */
    static const char *const keys[] = {"type",        "config", "flops", "bytes_read",
                                       "bytes_written", "param_bytes", "params", "preds",
                                       "time_s",      NULL};
    if (!ccs_json_check_keys(op, keys, name, where, error))
        return false;
    if (!cJSON_IsString(t) || !*t->valuestring) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s.type: %s", name, where,
                    t ? "must be a non-empty string" : "missing");
        return false;
    }
    o->type = g_strdup(t->valuestring);
    if (!read_number(op, "flops", true, &o->flops, name, where, error) ||
        !read_number(op, "bytes_read", true, &o->bytes_read, name, where, error) ||
        !read_number(op, "bytes_written", true, &o->bytes_written, name, where, error) ||
        !read_number(op, "param_bytes", false, &o->param_bytes, name, where, error) ||
        !read_number(op, "params", false, &o->config[7], name, where, error) ||
        !read_config(op, o, name, where, error) || !read_preds(op, o, i, n, name, where, error))
        return false;
    if (o->param_bytes > o->bytes_read) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: %s.param_bytes: larger than bytes_read", name, where);
        return false;
    }
    return true;
}

/* A binary min-heap of operator indices (the ready set of topo_order). */
typedef struct idx_heap { size_t *v; size_t n; } idx_heap;

static void heap_push(idx_heap *h, size_t x)
{
    size_t i = h->n++;
    while (i > 0 && h->v[(i - 1) / 2] > x) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
}

static size_t heap_pop(idx_heap *h)
{
    size_t top = h->v[0], x = h->v[--h->n], i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1] < h->v[c])
            c++;
        if (h->v[c] >= x)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = x;
    return top;
}

/* The cycle error, naming up to 8 operators left unordered. */
static void cycle_error(const mdot_graph *g, const size_t *indeg, GError **error)
{
    GString *s = g_string_new(NULL);
    for (size_t u = 0, shown = 0; u < g->n && shown < 8; u++)
        if (indeg[u] > 0)
            g_string_append_printf(s, "%s%zu", shown++ ? ", " : "", u);
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "%s: ops: the predecessors form a cycle (operators left unordered: %s)",
                g->name, s->str);
    g_string_free(s, TRUE);
}

/* Kahn's algorithm taking the lowest ready index first: order[] gets the
 * new sequence.  O((n + edges) log n) with a heap of the ready operators
 * and successor lists in one array (CSR).  False (with the error) on a
 * cycle. */
static bool topo_order(const mdot_graph *g, size_t *order, GError **error)
{
    size_t n = g->n, edges = 0;
    g_autofree size_t *indeg = g_new0(size_t, n);
    g_autofree size_t *start = g_new0(size_t, n + 1);
    for (size_t v = 0; v < n; v++) {
        indeg[v] = g->ops[v].n_preds;
        edges += g->ops[v].n_preds;
        for (size_t j = 0; j < g->ops[v].n_preds; j++)
            start[g->ops[v].preds[j] + 1]++;
    }
    for (size_t u = 0; u < n; u++)
        start[u + 1] += start[u];
    g_autofree size_t *succ = g_new(size_t, edges + 1);
    g_autofree size_t *fill = g_memdup2(start, n * sizeof *start);
    for (size_t v = 0; v < n; v++)
        for (size_t j = 0; j < g->ops[v].n_preds; j++)
            succ[fill[g->ops[v].preds[j]]++] = v;
    g_autofree size_t *heap_v = g_new(size_t, n);
    idx_heap ready = {heap_v, 0};
    for (size_t v = 0; v < n; v++)
        if (indeg[v] == 0)
            heap_push(&ready, v);
    size_t k = 0;
    while (ready.n) {
        size_t v = heap_pop(&ready);
        order[k++] = v;
        for (size_t e = start[v]; e < start[v + 1]; e++)
            if (--indeg[succ[e]] == 0)
                heap_push(&ready, succ[e]);
    }
    if (k < n) {
        cycle_error(g, indeg, error);
        return false;
    }
    return true;
}

/* Put the operators in topological order, renumbering predecessors. */
static bool sort_ops(mdot_graph *g, GError **error)
{
    g_autofree size_t *order = g_new(size_t, g->n);
    g_autofree size_t *pos = g_new(size_t, g->n);
    if (!topo_order(g, order, error))
        return false;
    mdot__op *ops = g_new(mdot__op, g->n);
    for (size_t k = 0; k < g->n; k++) {
        ops[k] = g->ops[order[k]];
        pos[order[k]] = k;
    }
    for (size_t k = 0; k < g->n; k++)
        for (size_t j = 0; j < ops[k].n_preds; j++)
            ops[k].preds[j] = pos[ops[k].preds[j]];
    g_free(g->ops);
    g->ops = ops;
    return true;
}

/* batch and params; the graph's "name" into *gname (transfer full). */
static bool read_header(const cJSON *obj, mdot_graph *g, char **gname, GError **error)
{
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(obj, "name");
    double batch = NAN, params = -1;
    if (!ccs_json_number(obj, "batch", CCS_LIMIT_GRAPH_BATCH, g->name, NULL, &batch, error) ||
        !ccs_json_number(obj, "params", CCS_LIMIT_GRAPH_AMOUNT, g->name, NULL, &params, error))
        return false;
    if (isnan(batch)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: batch: missing", g->name);
        return false;
    }
    g->batch = (int64_t)batch;
    g->params = params;
    if (cJSON_IsString(nm) && *nm->valuestring)
        *gname = g_strdup(nm->valuestring);
    return true;
}

mdot_graph *mdot_graph_from_cjson(const cJSON *obj, const char *name, GError **error)
{
    g_autoptr(mdot_graph) g = g_new0(mdot_graph, 1);
    g_autofree char *gname = NULL;
    g->name = g_strdup(name ? name : "graph"); /* the file, for errors; "name" once read */
    /* what scripts/mdot/opgraph.py, export_graph.py and collect.py write;
     * ccsim reads batch, name, params and ops */
    static const char *const keys[] = {
        "name",   "batch",  "input",   "params",  "ops",    "family", "variant",
        "size",   "device", "times_s", "time_s",  "torch",  "device_name",
        "date",   "opsum_s", "precision", "clock", "warmup", "repeat", "started_utc",
        "load",   NULL};
    if (!ccs_json_check_keys(obj, keys, g->name, NULL, error))
        return NULL;
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(obj, "ops");
    if (!cJSON_IsArray(ops) || cJSON_GetArraySize(ops) == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: ops: %s", g->name,
                    ops ? "must be a non-empty array" : "missing");
        return NULL;
    }
    /* prediction cost is linear in the count (docs/mdot.md §4); the limit stops absurd files */
    g_autofree char *at = g_strdup_printf("%s: ops: operators", g->name);
    if (!ccs_limit_check(CCS_LIMIT_GRAPH_OPS, cJSON_GetArraySize(ops), at, error))
        return NULL;
    g->n = (size_t)cJSON_GetArraySize(ops);
    g->ops = g_new0(mdot__op, g->n);
    size_t i = 0;
    const cJSON *op;
    cJSON_ArrayForEach(op, ops) {
        if (!read_op(op, i, g->n, &g->ops[i], g->name, error))
            return NULL;
        i++;
    }
    if (!read_header(obj, g, &gname, error) || !sort_ops(g, error))
        return NULL;
    if (gname) {
        g_free(g->name);
        g->name = g_steal_pointer(&gname);
    }
    if (g->params < 0) {
        g->params = 0;
        for (size_t k = 0; k < g->n; k++)
            g->params += g->ops[k].config[7];
    }
    return g_steal_pointer(&g);
}

mdot_graph *mdot_graph_parse(const char *text, size_t len, const char *name, GError **error)
{
    g_autoptr(cJSON) root = ccs_json_parse(text, len, name, error);
    return root ? mdot_graph_from_cjson(root, name, error) : NULL;
}

mdot_graph *mdot_graph_load(const char *path, GError **error)
{
    g_autoptr(cJSON) root = ccs_json_load(path, error);
    return root ? mdot_graph_from_cjson(root, path, error) : NULL;
}

mdot_graph *mdot_graph_with_batch(const mdot_graph *g, int64_t batch, GError **error)
{
    g_autofree char *at = g_strdup_printf("%s: batch", g->name);
    if (!ccs_limit_check(CCS_LIMIT_GRAPH_BATCH, (double)batch, at, error))
        return NULL;
    double f = (double)batch / (double)g->batch;
    mdot_graph *c = g_new0(mdot_graph, 1);
    *c = *g;
    c->name = g_strdup(g->name);
    c->batch = batch;
    c->ops = g_new(mdot__op, g->n);
    for (size_t k = 0; k < g->n; k++) {
        const mdot__op *o = &g->ops[k];
        c->ops[k] = *o;
        c->ops[k].type = g_strdup(o->type);
        c->ops[k].preds = g_memdup2(o->preds, (o->n_preds + 1) * sizeof(size_t));
        c->ops[k].flops = o->flops * f;
        c->ops[k].bytes_read = (o->bytes_read - o->param_bytes) * f + o->param_bytes;
        c->ops[k].bytes_written = o->bytes_written * f;
    }
    return c;
}

size_t mdot_graph_count(const mdot_graph *g) { return g->n; }
int64_t mdot_graph_batch(const mdot_graph *g) { return g->batch; }
double mdot_graph_params(const mdot_graph *g) { return g->params; }
const char *mdot_graph_name(const mdot_graph *g) { return g->name; }

double mdot_graph_flops(const mdot_graph *g)
{
    double f = 0;
    for (size_t k = 0; k < g->n; k++)
        f += g->ops[k].flops;
    return f;
}

void mdot__op_loads(const mdot__op *op, int64_t batch, double out[MDOT__N_LOAD])
{
    double n = (double)batch;
    out[0] = op->flops / n;
    out[1] = (op->bytes_read - op->param_bytes + op->bytes_written) / n;
    out[2] = op->param_bytes;
}

void mdot__op_features(const mdot__op *op, int64_t batch, double out[MDOT__N_FEAT])
{
    double loads[MDOT__N_LOAD];
    mdot__op_loads(op, batch, loads);
    for (size_t i = 0; i < MDOT__N_CONFIG; i++)
        out[i] = log1p(op->config[i]);
    for (size_t i = 0; i < MDOT__N_LOAD; i++)
        out[MDOT__N_CONFIG + i] = log1p(loads[i]);
}

void mdot__sinusoid(double x, size_t dims, double *out)
{
    for (size_t i = 0; i < dims / 2; i++) {
        double f = x / pow(10000.0, (double)(2 * i) / (double)dims);
        out[2 * i] = sin(f);
        out[2 * i + 1] = cos(f);
    }
}

void mdot_graph_pe(const mdot_graph *g, size_t d, double *out)
{
    g_autofree double *depth = g_new0(double, g->n);
    g_autofree double *height = g_new0(double, g->n);
    for (size_t v = 0; v < g->n; v++)
        for (size_t j = 0; j < g->ops[v].n_preds; j++)
            depth[v] = fmax(depth[v], depth[g->ops[v].preds[j]] + 1);
    for (size_t v = g->n; v-- > 0;)
        for (size_t j = 0; j < g->ops[v].n_preds; j++) {
            size_t u = g->ops[v].preds[j];
            height[u] = fmax(height[u], height[v] + 1);
        }
    for (size_t v = 0; v < g->n; v++) {
        mdot__sinusoid(depth[v], d / 2, out + v * d);
        mdot__sinusoid(height[v], d / 2, out + v * d + d / 2);
    }
}

void mdot_graph_free(mdot_graph *g)
{
    if (!g)
        return;
    for (size_t k = 0; g->ops && k < g->n; k++) {
        g_free(g->ops[k].type);
        g_free(g->ops[k].preds);
    }
    g_free(g->ops);
    g_free(g->name);
    g_free(g);
}
