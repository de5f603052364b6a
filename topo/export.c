/* export.c - the topology as JSON object form, GraphML and DOT.
 * Not here: import (build_file.c), description (describe.c).
 *
 * The topology as the §8 object form (JSON), GraphML and DOT. All three
 * describe hosts and switches, one entry per full-duplex cable; the server
 * model inside each host is carried by the host's parameters.  JSON and
 * GraphML re-import through topo_from_json() / `file:PATH` into a topology
 * with the same hosts, switches and cables (node and link ids may be numbered
 * differently: imports create all hosts first).
 */
#include <string.h>

#include "topo-private.h"

bool topo_format_parse(const char *name, topo_format *out)
{
    if (strcmp(name, "json") == 0)
        *out = TOPO_FORMAT_JSON;
    else if (strcmp(name, "graphml") == 0)
        *out = TOPO_FORMAT_GRAPHML;
    else if (strcmp(name, "dot") == 0)
        *out = TOPO_FORMAT_DOT;
    else
        return false;
    return true;
}

static double round_to(double x, double digits)
{
    /* print 200 rather than 199.99999999999997 after the unit round trip */
    double s = pow(10, digits);
    return round(x * s) / s;
}

/* Is link id+1 the reverse of link id with the same numbers?  Builders and
 * imports add every cable as such a pair. */
static bool is_pair(const topo *t, uint32_t id)
{
    if (id + 1 >= t->links->len)
        return false;
    const topo_link *a = &g_array_index(t->links, topo_link, id);
    const topo_link *b = &g_array_index(t->links, topo_link, id + 1);
    return a->src == b->dst && a->dst == b->src && a->cap_Bps == b->cap_Bps &&
           a->latency_s == b->latency_s && a->tier == b->tier;
}

cJSON *topo_to_json(const topo *t)
{
    g_return_val_if_fail(t != NULL, NULL);
    cJSON *root = cJSON_CreateObject();
    cJSON *hosts = cJSON_AddArrayToObject(root, "hosts");
    cJSON *sws = cJSON_AddArrayToObject(root, "switches");
    cJSON *links = cJSON_AddArrayToObject(root, "links");
    for (size_t hi = 0; hi < t->hosts->len; hi++) {
        const topo__host *h = topo__host_get(t, hi);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", h->name);
        cJSON_AddNumberToObject(o, "gpus", (double)h->server.gpus);
        cJSON_AddNumberToObject(o, "nics", (double)h->server.nics);
        cJSON_AddNumberToObject(o, "pcie", (double)h->server.pcie);
        cJSON_AddNumberToObject(o, "nic_gbps", round_to(ccs_Bps_to_gbps(h->server.nic_Bps), 6));
        cJSON_AddNumberToObject(o, "nvlink_gbps",
                                round_to(ccs_Bps_to_gbps(h->server.nvlink_Bps), 6));
        cJSON_AddNumberToObject(o, "pcie_gbps", round_to(ccs_Bps_to_gbps(h->server.pcie_Bps), 6));
        cJSON_AddNumberToObject(o, "host_latency_us", round_to(h->server.host_latency_s * 1e6, 6));
        cJSON_AddNumberToObject(o, "pod", h->pod);
        cJSON_AddItemToArray(hosts, o);
    }
    for (uint32_t v = 0; v < t->nodes->len; v++) {
        const topo__node *n = &g_array_index(t->nodes, topo__node, v);
        if (n->host != TOPO__NONE)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", n->name);
        cJSON_AddStringToObject(o, "kind", topo_node_kind_name(n->kind));
        cJSON_AddItemToArray(sws, o);
    }
    for (uint32_t id = 0; id < t->links->len; id++) {
        const topo_link *l = &g_array_index(t->links, topo_link, id);
        if (l->tier <= TOPO_TIER_PCIE)
            continue;
        if (is_pair(t, id))
            id++; /* one entry per cable */
        cJSON *o = cJSON_CreateObject();
        const topo__node *a = &g_array_index(t->nodes, topo__node, l->src);
        const topo__node *b = &g_array_index(t->nodes, topo__node, l->dst);
        const topo__node *ends[2] = {a, b};
        int nic = -1;
        for (int e = 0; e < 2; e++) {
            const topo__node *n = ends[e];
            if (n->host != TOPO__NONE) {
                const topo__host *h = topo__host_get(t, n->host);
                for (size_t i = 0; i < h->server.nics; i++)
                    if (h->nic_node[i] == (e ? l->dst : l->src))
                        nic = (int)i;
                cJSON_AddStringToObject(o, e ? "b" : "a", h->name);
            } else {
                cJSON_AddStringToObject(o, e ? "b" : "a", n->name);
            }
        }
        cJSON_AddNumberToObject(o, "gbps", round_to(ccs_Bps_to_gbps(l->cap_Bps), 6));
        cJSON_AddNumberToObject(o, "latency_us", round_to(l->latency_s * 1e6, 6));
        if (nic >= 0)
            cJSON_AddNumberToObject(o, "nic", nic);
        cJSON_AddStringToObject(o, "tier", topo_tier_name(l->tier));
        cJSON_AddItemToArray(links, o);
    }
    return root;
}

/* ---- GraphML through igraph ---- */

static const char *const host_num_keys[] = {"gpus", "nics", "pcie", "nic_gbps", "nvlink_gbps",
                                            "pcie_gbps", "host_latency_us", "pod", NULL};

static bool write_graphml(const topo *t, FILE *out, GError **error)
{
    cJSON *root = topo_to_json(t);
    const cJSON *hosts = cJSON_GetObjectItem(root, "hosts");
    const cJSON *sws = cJSON_GetObjectItem(root, "switches");
    const cJSON *links = cJSON_GetObjectItem(root, "links");
    igraph_integer_t nh = cJSON_GetArraySize(hosts), ns = cJSON_GetArraySize(sws);
    igraph_integer_t ne = cJSON_GetArraySize(links);
    g_autoptr(GHashTable) index = g_hash_table_new(g_str_hash, g_str_equal);
    igraph_attribute_table_t *old = igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_t g;
    igraph_vector_int_t edges;
    bool ok = topo__igraph_error(igraph_vector_int_init(&edges, 2 * ne), "vector", error);
    igraph_integer_t v = 0;
    for (const cJSON *h = hosts->child; h; h = h->next)
        g_hash_table_insert(index, cJSON_GetObjectItem(h, "name")->valuestring,
                            GSIZE_TO_POINTER(++v));
    for (const cJSON *s = sws->child; s; s = s->next)
        g_hash_table_insert(index, cJSON_GetObjectItem(s, "name")->valuestring,
                            GSIZE_TO_POINTER(++v));
    igraph_integer_t e = 0;
    for (const cJSON *l = ok ? links->child : NULL; l; l = l->next, e++) {
        VECTOR(edges)[2 * e] =
            (igraph_integer_t)GPOINTER_TO_SIZE(g_hash_table_lookup(index, cJSON_GetObjectItem(l, "a")->valuestring)) - 1;
        VECTOR(edges)[2 * e + 1] =
            (igraph_integer_t)GPOINTER_TO_SIZE(g_hash_table_lookup(index, cJSON_GetObjectItem(l, "b")->valuestring)) - 1;
    }
    if (ok) {
        ok = topo__igraph_error(igraph_create(&g, &edges, nh + ns, IGRAPH_UNDIRECTED), "create",
                                error);
        igraph_vector_int_destroy(&edges);
    }
    if (ok) {
        igraph_integer_t x = 0;
        igraph_error_t rc = IGRAPH_SUCCESS;
        for (const cJSON *h = hosts->child; h && !rc; h = h->next, x++) {
            rc = SETVAS(&g, "name", x, cJSON_GetObjectItem(h, "name")->valuestring);
            if (!rc)
                rc = SETVAS(&g, "kind", x, "host");
            for (size_t k = 0; host_num_keys[k] && !rc; k++)
                rc = SETVAN(&g, host_num_keys[k], x,
                            cJSON_GetObjectItem(h, host_num_keys[k])->valuedouble);
        }
        for (const cJSON *s = sws->child; s && !rc; s = s->next, x++) {
            rc = SETVAS(&g, "name", x, cJSON_GetObjectItem(s, "name")->valuestring);
            if (!rc)
                rc = SETVAS(&g, "kind", x, cJSON_GetObjectItem(s, "kind")->valuestring);
            for (size_t k = 0; host_num_keys[k] && !rc; k++)
                rc = SETVAN(&g, host_num_keys[k], x, NAN);
        }
        e = 0;
        for (const cJSON *l = links->child; l && !rc; l = l->next, e++) {
            const cJSON *nic = cJSON_GetObjectItem(l, "nic");
            rc = SETEAN(&g, "gbps", e, cJSON_GetObjectItem(l, "gbps")->valuedouble);
            if (!rc)
                rc = SETEAN(&g, "latency_us", e, cJSON_GetObjectItem(l, "latency_us")->valuedouble);
            if (!rc)
                rc = SETEAN(&g, "nic", e, nic ? nic->valuedouble : -1);
            if (!rc)
                rc = SETEAS(&g, "tier", e, cJSON_GetObjectItem(l, "tier")->valuestring);
        }
        ok = topo__igraph_error(rc, "attributes", error);
        if (ok)
            ok = topo__igraph_error(igraph_write_graph_graphml(&g, out, false), "write GraphML",
                                    error);
        igraph_destroy(&g);
    }
    igraph_set_attribute_table(old);
    cJSON_Delete(root);
    return ok;
}

/* ---- DOT ---- */

static const char *dot_shape(const char *kind)
{
    if (strcmp(kind, "host") == 0)
        return "box";
    if (strcmp(kind, "core") == 0)
        return "doubleoctagon";
    if (strcmp(kind, "agg") == 0)
        return "octagon";
    if (strcmp(kind, "rail") == 0)
        return "hexagon";
    return "ellipse";
}

/* One edge per (a, b) pair, labelled xN when N cables join them; nodes of
 * one kind on one rank (hosts at the bottom). */
static bool write_dot(const topo *t, FILE *out, GError **error)
{
    cJSON *root = topo_to_json(t);
    g_autoptr(GString) s = g_string_new(NULL);
    g_autofree char *gname = g_strescape(t->name, NULL);
    g_string_append_printf(s, "graph \"%s\" {\n  rankdir=BT;\n  node [fontsize=9, height=0.2, "
                              "margin=0.03];\n  edge [color=gray40];\n", gname);
    static const char *const ranks[] = {"host", "tor", "rail", "switch", "agg", "core"};
    for (size_t r = 0; r < G_N_ELEMENTS(ranks); r++) {
        g_autoptr(GString) same = g_string_new(NULL);
        g_autoptr(GString) chain = g_string_new(NULL);
        const cJSON *arr = cJSON_GetObjectItem(root, r == 0 ? "hosts" : "switches");
        for (const cJSON *n = arr->child; n; n = n->next) {
            const cJSON *k = cJSON_GetObjectItem(n, "kind");
            if (r > 0 && strcmp(k->valuestring, ranks[r]) != 0)
                continue;
            g_autofree char *nm = g_strescape(cJSON_GetObjectItem(n, "name")->valuestring, NULL);
            g_string_append_printf(same, " \"%s\";", nm);
            g_string_append_printf(chain, "%s\"%s\"", chain->len ? " -- " : "", nm);
            g_string_append_printf(s, "  \"%s\" [shape=%s];\n", nm, dot_shape(ranks[r]));
        }
        /* an invisible chain keeps a rank in id order (pods 0, 1, 2, ...):
         * Graphviz would reorder it to cross fewer edges */
        if (same->len && strcmp(ranks[r], "switch") != 0)
            g_string_append_printf(s, "  { rank=same;%s }\n  { edge [style=invis]; %s; }\n",
                                   same->str, chain->str);
    }
    g_autoptr(GHashTable) count = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GPtrArray) order = g_ptr_array_new();
    for (const cJSON *l = cJSON_GetObjectItem(root, "links")->child; l; l = l->next) {
        g_autofree char *a = g_strescape(cJSON_GetObjectItem(l, "a")->valuestring, NULL);
        g_autofree char *b = g_strescape(cJSON_GetObjectItem(l, "b")->valuestring, NULL);
        char *key = g_strdup_printf("\"%s\" -- \"%s\"", a, b);
        gpointer old = NULL;
        if (g_hash_table_lookup_extended(count, key, NULL, &old)) {
            g_hash_table_insert(count, key, GSIZE_TO_POINTER(GPOINTER_TO_SIZE(old) + 1));
        } else {
            g_hash_table_insert(count, key, GSIZE_TO_POINTER(1));
            g_ptr_array_add(order, key);
        }
    }
    for (guint i = 0; i < order->len; i++) {
        const char *key = g_ptr_array_index(order, i);
        size_t n = GPOINTER_TO_SIZE(g_hash_table_lookup(count, key));
        if (n > 1)
            g_string_append_printf(s, "  %s [label=\"x%zu\", fontsize=7];\n", key, n);
        else
            g_string_append_printf(s, "  %s;\n", key);
    }
    g_string_append(s, "}\n");
    cJSON_Delete(root);
    if (fwrite(s->str, 1, s->len, out) != s->len) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "cannot write DOT output");
        return false;
    }
    return true;
}

bool topo_export(const topo *t, topo_format format, FILE *out, GError **error)
{
    g_return_val_if_fail(t != NULL && out != NULL, false);
    switch (format) {
    case TOPO_FORMAT_JSON: {
        cJSON *root = topo_to_json(t);
        char *text = cJSON_Print(root);
        cJSON_Delete(root);
        size_t n = strlen(text);
        bool ok = fwrite(text, 1, n, out) == n && fputc('\n', out) != EOF;
        cJSON_free(text);
        if (!ok)
            g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "cannot write JSON output");
        return ok;
    }
    case TOPO_FORMAT_GRAPHML: {
        topo__igraph_lock();
        bool ok = write_graphml(t, out, error);
        topo__igraph_unlock();
        return ok;
    }
    case TOPO_FORMAT_DOT:
        return write_dot(t, out, error);
    }
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "unknown export format");
    return false;
}
