/* graphml_check.c - what igraph's GraphML reader lets through, refused
 * before it reads a file (topo-private.h).  Not here: turning the graph
 * into a topology (build_file.c).
 *
 * igraph reads "NaN" (or any text strtod takes: "inf", "0x10") as a
 * number and an absent value as NaN too, so a NaN link speed would become
 * the default speed; it keeps one of two nodes with the same id without a
 * word; and an edge may name a node nobody declared.  GLib's GMarkup walks
 * the file once first (it also refuses entity definitions: no billion
 * laughs, no external entities) and stops at the first of:
 *  - a numeric <data> or <default> whose text is not a strict decimal
 *    number (base/limits.h's ccs_parse_double);
 *  - a node id seen before;
 *  - an edge from a node to itself, or to an id no node has.
 */
#include "topo-private.h"

#include <string.h>

#include "base/ccs.h"
#include "base/limits.h"

typedef struct gm_edge {
    char *source, *target;
    int line;
} gm_edge;

typedef struct gm_state {
    const char *path;
    GHashTable *numeric;  /* key id -> attr.name, for numeric keys */
    GHashTable *nodes;    /* node id -> line (GINT_TO_POINTER) */
    GArray *edges;        /* gm_edge */
    const char *key_num;  /* the numeric attribute <key> being read, or NULL */
    const char *data_key; /* the numeric attribute whose value is being read, or NULL */
    const char *data_of;  /* "node", "edge", "graph" or "default" */
    GString *text;
} gm_state;

static int line_of(GMarkupParseContext *ctx)
{
    int line = 0, ch = 0;
    g_markup_parse_context_get_position(ctx, &line, &ch);
    return line;
}

static const char *attr(const char **names, const char **values, const char *want)
{
    for (size_t i = 0; names[i]; i++)
        if (strcmp(names[i], want) == 0)
            return values[i];
    return NULL;
}

static bool is_numeric_type(const char *t)
{
    return t && (strcmp(t, "double") == 0 || strcmp(t, "float") == 0 || strcmp(t, "int") == 0 ||
                 strcmp(t, "long") == 0);
}

static void on_start(GMarkupParseContext *ctx, const char *el, const char **names,
                     const char **values, gpointer user, GError **error)
{
    gm_state *s = user;
    const char *parent = g_markup_parse_context_get_element_stack(ctx)->next
                             ? g_markup_parse_context_get_element_stack(ctx)->next->data
                             : "";
    if (strcmp(el, "key") == 0) {
        const char *id = attr(names, values, "id"), *nm = attr(names, values, "attr.name");
        s->key_num = NULL;
        if (id && is_numeric_type(attr(names, values, "attr.type"))) {
            char *name = g_strdup(nm ? nm : id);
            g_hash_table_replace(s->numeric, g_strdup(id), name);
            s->key_num = name;
        }
        return;
    }
    if (strcmp(el, "node") == 0) {
        const char *id = attr(names, values, "id");
        gpointer first = id ? g_hash_table_lookup(s->nodes, id) : NULL;
        if (first) {
            g_autofree char *shown = ccs_escape(id, -1, 80);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s:%d: node id '%s' appears twice (first on line %d)", s->path,
                        line_of(ctx), shown, GPOINTER_TO_INT(first));
            return;
        }
        if (id)
            g_hash_table_insert(s->nodes, g_strdup(id), GINT_TO_POINTER(line_of(ctx)));
        return;
    }
    if (strcmp(el, "edge") == 0) {
        const char *a = attr(names, values, "source"), *b = attr(names, values, "target");
        gm_edge e = {g_strdup(a ? a : ""), g_strdup(b ? b : ""), line_of(ctx)};
        g_array_append_val(s->edges, e);
        return;
    }
    if (strcmp(el, "data") == 0) {
        const char *key = attr(names, values, "key");
        s->data_key = key ? g_hash_table_lookup(s->numeric, key) : NULL;
        s->data_of = parent;
        g_string_truncate(s->text, 0);
    } else if (strcmp(el, "default") == 0) {
        s->data_key = s->key_num;
        s->data_of = "default";
        g_string_truncate(s->text, 0);
    }
}

static void on_text(GMarkupParseContext *ctx, const char *text, gsize len, gpointer user,
                    GError **error)
{
    (void)ctx;
    (void)error;
    gm_state *s = user;
    if (s->data_key)
        g_string_append_len(s->text, text, (gssize)len);
}

static void on_end(GMarkupParseContext *ctx, const char *el, gpointer user, GError **error)
{
    gm_state *s = user;
    if (!s->data_key || (strcmp(el, "data") != 0 && strcmp(el, "default") != 0))
        return;
    g_autofree char *v = g_strstrip(g_strdup(s->text->str));
    double x = 0;
    if (!ccs_parse_double(v, &x)) {
        g_autofree char *shown = ccs_escape(v, -1, 40);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s:%d: %s data '%s': \"%s\" is not a decimal number (NaN, inf and empty "
                    "values are refused)",
                    s->path, line_of(ctx), s->data_of, s->data_key, shown);
    }
    s->data_key = NULL;
}

/* Edges against the declared nodes: no self link, no unknown end. */
static bool edges_ok(const gm_state *s, GError **error)
{
    for (guint i = 0; i < s->edges->len; i++) {
        const gm_edge *e = &g_array_index(s->edges, gm_edge, i);
        const char *ends[] = {e->source, e->target};
        for (size_t k = 0; k < 2; k++)
            if (!g_hash_table_contains(s->nodes, ends[k])) {
                g_autofree char *shown = ccs_escape(ends[k], -1, 80);
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "%s:%d: edge to '%s', a node the file does not declare", s->path,
                            e->line, shown);
                return false;
            }
        if (strcmp(e->source, e->target) == 0) {
            g_autofree char *shown = ccs_escape(e->source, -1, 80);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s:%d: an edge from '%s' to itself", s->path, e->line, shown);
            return false;
        }
    }
    return true;
}

static void edge_clear(gpointer p)
{
    gm_edge *e = p;
    g_free(e->source);
    g_free(e->target);
}

bool topo__graphml_check(const char *text, size_t len, const char *path, GError **error)
{
    static const GMarkupParser parser = {on_start, on_end, on_text, NULL, NULL};
    gm_state s = {
        .path = path,
        .numeric = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
        .nodes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        .edges = g_array_new(FALSE, FALSE, sizeof(gm_edge)),
        .text = g_string_new(NULL),
    };
    g_array_set_clear_func(s.edges, edge_clear);
    GMarkupParseContext *ctx = g_markup_parse_context_new(&parser, 0, &s, NULL);
    GError *e = NULL;
    bool ok = g_markup_parse_context_parse(ctx, text, (gssize)len, &e) &&
              g_markup_parse_context_end_parse(ctx, &e);
    if (!ok && e && e->domain == CCS_ERROR) {
        g_propagate_error(error, e);
    } else if (!ok) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s:%d: GraphML: %s", path, line_of(ctx),
                    e ? e->message : "not well-formed");
        g_clear_error(&e);
    }
    ok = ok && edges_ok(&s, error);
    g_markup_parse_context_free(ctx);
    g_hash_table_unref(s.numeric);
    g_hash_table_unref(s.nodes);
    g_array_unref(s.edges);
    g_string_free(s.text, TRUE);
    return ok;
}
