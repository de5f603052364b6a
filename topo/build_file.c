/* build_file.c - hand-written topologies: the JSON object form and GraphML.
 * Not here: export (export.c).
 *
 * Object form:
 *   {"hosts":    [{"name": "h1", "gpus": 8, "nics": 1, ...}, ...],
 *    "switches": ["s1", {"name": "s2", "kind": "agg"}, ...],
 *    "links":    [{"a": "h1", "b": "s1", "gbps": 100, "latency_us": 1}, ...]}
 * Host keys: name (required), gpus, nics, pcie, nic_gbps, nvlink_gbps
 * (or nvlink_GBps), pcie_gbps, host_latency_us (server-model defaults),
 * pod (locality group, default 0).  A switch is a name (kind "switch") or
 * {"name", "kind"} with kind tor|agg|core|rail|switch.  A link is one
 * full-duplex cable: a, b (host or switch names), gbps (default: the host
 * NIC's rate for a host link, required between switches), latency_us
 * (default 1), nic (which NIC of a host end; default the host's first NIC
 * not yet linked), tier (default host_tor for host links, else from the
 * switch kinds: tor/rail-agg tor_agg, agg-core agg_core, else other).
 * Unknown keys are errors (typos should not pass silently).
 *
 * GraphML: an undirected graph whose vertices carry string attributes
 * name and kind ("host" or a switch kind) plus, for hosts, the numeric host
 * keys above; edges carry gbps, latency_us, nic (-1 or absent: none) and a
 * string tier.  It is converted to the object form and built the same way,
 * which is what topo_export(TOPO_FORMAT_GRAPHML) writes.
 */
#include <string.h>

#include "topo-private.h"

#include "base/input.h"
#include "base/json.h"

/* obj.key inside limit id (base/limits.h), def when absent or null. */
static bool get_number(const cJSON *obj, const char *key, ccs_limit_id id, double def,
                       double *out, const char *where, GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    if (cJSON_IsNull(v))
        return true;
    return ccs_json_number(obj, key, id, NULL, where, out, error);
}

static bool get_count(const cJSON *obj, const char *key, size_t def, size_t *out,
                      const char *where, GError **error)
{
    double x;
    if (!get_number(obj, key, CCS_LIMIT_TOPO_COUNT, (double)def, &x, where, error))
        return false;
    *out = (size_t)x;
    return true;
}

static bool parse_host(topo *t, const cJSON *h, size_t i, GError **error)
{
    static const char *const keys[] = {"name", "gpus", "nics", "pcie", "nic_gbps",
                                       "nvlink_gbps", "nvlink_GBps", "pcie_gbps",
                                       "host_latency_us", "pod", NULL};
    g_autofree char *where = g_strdup_printf("hosts[%zu]", i);
    if (!cJSON_IsObject(h)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected an object", where);
        return false;
    }
    if (!ccs_json_check_keys(h, keys, NULL, where, error))
        return false;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(h, "name");
    if (!cJSON_IsString(name) || !*name->valuestring) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: name must be a non-empty string",
                    where);
        return false;
    }
    topo__server s = topo__server_default();
    double nic, nvl, nvlB, pcie, lat;
    size_t pod;
    if (!get_count(h, "gpus", s.gpus, &s.gpus, where, error) ||
        !get_count(h, "nics", s.nics, &s.nics, where, error) ||
        !get_count(h, "pcie", s.pcie, &s.pcie, where, error) ||
        !get_number(h, "nic_gbps", CCS_LIMIT_LINK_GBPS, ccs_Bps_to_gbps(s.nic_Bps), &nic, where,
                    error) ||
        !get_number(h, "nvlink_gbps", CCS_LIMIT_LINK_GBPS, ccs_Bps_to_gbps(s.nvlink_Bps), &nvl,
                    where, error) ||
        !get_number(h, "nvlink_GBps", CCS_LIMIT_LINK_GBPS, 0, &nvlB, where, error) ||
        !get_number(h, "pcie_gbps", CCS_LIMIT_LINK_GBPS, ccs_Bps_to_gbps(s.pcie_Bps), &pcie,
                    where, error) ||
        !get_number(h, "host_latency_us", CCS_LIMIT_LATENCY_US, s.host_latency_s * 1e6, &lat,
                    where, error) ||
        !get_count(h, "pod", 0, &pod, where, error))
        return false;
    s.nic_Bps = ccs_gbps_to_Bps(nic);
    s.nvlink_Bps = cJSON_GetObjectItemCaseSensitive(h, "nvlink_GBps") ? ccs_GBps_to_Bps(nvlB)
                                                                       : ccs_gbps_to_Bps(nvl);
    s.pcie_Bps = ccs_gbps_to_Bps(pcie);
    s.host_latency_s = ccs_us_to_s(lat);
    size_t hi;
    if (!topo__host_add(t, name->valuestring, &s, &hi, error)) {
        g_prefix_error(error, "%s: ", where);
        return false;
    }
    topo__host_get(t, hi)->pod = (uint32_t)pod;
    return true;
}

static bool parse_switch(topo *t, const cJSON *s, size_t i, GHashTable *sw_by_name, GError **error)
{
    static const char *const keys[] = {"name", "kind", NULL};
    g_autofree char *where = g_strdup_printf("switches[%zu]", i);
    const char *name = NULL;
    topo_node_kind kind = TOPO_NODE_SWITCH;
    if (cJSON_IsString(s)) {
        name = s->valuestring;
    } else if (cJSON_IsObject(s)) {
        if (!ccs_json_check_keys(s, keys, NULL, where, error))
            return false;
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(s, "name");
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(s, "kind");
        name = cJSON_IsString(n) ? n->valuestring : NULL;
        if (k && (!cJSON_IsString(k) || !topo_node_kind_parse(k->valuestring, &kind) ||
                  kind < TOPO_NODE_TOR)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: kind must be tor, agg, core, rail or switch", where);
            return false;
        }
    }
    if (!name || !*name) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: expected a name or {\"name\": ..., \"kind\": ...}", where);
        return false;
    }
    size_t dummy;
    if (g_hash_table_contains(sw_by_name, name) || topo_host_find(t, name, &dummy)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: duplicate name '%s'", where, name);
        return false;
    }
    uint32_t id = topo__node_add(t, kind, name, TOPO__NONE);
    g_hash_table_insert(sw_by_name, g_strdup(name), GUINT_TO_POINTER(id + 1));
    return true;
}

/* Resolve one end of a link: a switch node, or a host's NIC. */
static bool link_end(topo *t, const char *name, GHashTable *sw_by_name, size_t *nic_next,
                     const cJSON *nic_item, uint32_t *node, size_t *host, const char *where,
                     GError **error)
{
    gpointer sw = g_hash_table_lookup(sw_by_name, name);
    if (sw) {
        *node = GPOINTER_TO_UINT(sw) - 1;
        *host = SIZE_MAX;
        return true;
    }
    size_t h;
    if (!topo_host_find(t, name, &h)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: unknown host or switch '%s'",
                    where, name);
        return false;
    }
    topo__host *hp = topo__host_get(t, h);
    size_t nic;
    if (nic_item && !(cJSON_IsNumber(nic_item) && nic_item->valuedouble < 0)) {
        if (!cJSON_IsNumber(nic_item) || nic_item->valuedouble != floor(nic_item->valuedouble) ||
            nic_item->valuedouble >= (double)hp->server.nics) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: nic must be an index below the %zu NICs of host '%s'", where,
                        hp->server.nics, name);
            return false;
        }
        nic = (size_t)nic_item->valuedouble;
    } else {
        nic = nic_next[h];
        if (nic >= hp->server.nics) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: host '%s' has no unlinked NIC left (it has %zu)", where, name,
                        hp->server.nics);
            return false;
        }
    }
    nic_next[h] = MAX(nic_next[h], nic + 1);
    *node = hp->nic_node[nic];
    *host = h;
    return true;
}

static bool parse_link(topo *t, const cJSON *l, size_t i, GHashTable *sw_by_name,
                       size_t *nic_next, GError **error)
{
    static const char *const keys[] = {"a", "b", "gbps", "latency_us", "nic", "tier", NULL};
    g_autofree char *where = g_strdup_printf("links[%zu]", i);
    if (!cJSON_IsObject(l)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected an object", where);
        return false;
    }
    if (!ccs_json_check_keys(l, keys, NULL, where, error))
        return false;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(l, "a");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(l, "b");
    if (!cJSON_IsString(a) || !cJSON_IsString(b)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: a and b must be names", where);
        return false;
    }
    const cJSON *nic = cJSON_GetObjectItemCaseSensitive(l, "nic");
    uint32_t na, nb;
    size_t ha, hb;
    if (!link_end(t, a->valuestring, sw_by_name, nic_next, nic, &na, &ha, where, error) ||
        !link_end(t, b->valuestring, sw_by_name, nic_next, nic, &nb, &hb, where, error))
        return false;
    if (na == nb) {
        g_autofree char *shown = ccs_escape(a->valuestring, -1, 80);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: a link from '%s' to itself", where,
                    shown);
        return false;
    }
    if (ha != SIZE_MAX && hb != SIZE_MAX) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: links between two hosts are not supported; put a switch between them",
                    where);
        return false;
    }
    size_t hh = ha != SIZE_MAX ? ha : hb;
    double def_gbps = hh != SIZE_MAX ? ccs_Bps_to_gbps(topo__host_get(t, hh)->server.nic_Bps) : -1;
    double gbps, lat;
    if (!get_number(l, "gbps", CCS_LIMIT_LINK_GBPS, def_gbps, &gbps, where, error) ||
        !get_number(l, "latency_us", CCS_LIMIT_LATENCY_US, 1.0, &lat, where, error))
        return false;
    if (gbps < 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: gbps is required between switches",
                    where);
        return false;
    }
    topo_tier tier = hh != SIZE_MAX ? TOPO_TIER_HOST_TOR
                                    : topo__switch_tier(topo_node_get_kind(t, na),
                                                        topo_node_get_kind(t, nb));
    const cJSON *ti = cJSON_GetObjectItemCaseSensitive(l, "tier");
    if (ti && (!cJSON_IsString(ti) || !topo_tier_parse(ti->valuestring, &tier) ||
               tier <= TOPO_TIER_PCIE)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: tier must be host_tor, tor_agg, agg_core or other", where);
        return false;
    }
    topo__cable_add(t, na, nb, ccs_gbps_to_Bps(gbps), ccs_us_to_s(lat), tier);
    return true;
}

bool topo__build_json(topo *t, const cJSON *obj, GError **error)
{
    static const char *const keys[] = {"hosts", "switches", "links", NULL};
    if (!cJSON_IsObject(obj)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "expected an object {\"hosts\": [...], \"switches\": [...], \"links\": [...]}");
        return false;
    }
    if (!ccs_json_check_keys(obj, keys, NULL, "topology", error))
        return false;
    const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(obj, "hosts");
    const cJSON *sws = cJSON_GetObjectItemCaseSensitive(obj, "switches");
    const cJSON *links = cJSON_GetObjectItemCaseSensitive(obj, "links");
    if (!cJSON_IsArray(hosts) || cJSON_GetArraySize(hosts) == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "hosts must be a non-empty array");
        return false;
    }
    if ((sws && !cJSON_IsArray(sws)) || (links && !cJSON_IsArray(links))) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "switches and links must be arrays");
        return false;
    }
    size_t i = 0;
    for (const cJSON *h = hosts->child; h; h = h->next, i++)
        if (!parse_host(t, h, i, error))
            return false;
    g_autoptr(GHashTable) sw_by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    i = 0;
    for (const cJSON *s = sws ? sws->child : NULL; s; s = s->next, i++)
        if (!parse_switch(t, s, i, sw_by_name, error))
            return false;
    g_autofree size_t *nic_next = g_new0(size_t, topo_host_count(t));
    i = 0;
    for (const cJSON *l = links ? links->child : NULL; l; l = l->next, i++)
        if (!parse_link(t, l, i, sw_by_name, nic_next, error))
            return false;
    return true;
}

/* ---- GraphML ---- */

static const char *const host_num_keys[] = {"gpus", "nics", "pcie", "nic_gbps", "nvlink_gbps",
                                            "pcie_gbps", "host_latency_us", "pod", NULL};

/* An attribute read below with the wrong accessor (VAS on a number, VAN on
 * a string) makes igraph read past its value: each must have its type. */
static bool attr_type_ok(const igraph_t *g, igraph_attribute_elemtype_t elem, const char *name,
                         igraph_attribute_type_t want, const char *path, GError **error)
{
    igraph_attribute_type_t type;
    if (!igraph_cattribute_has_attr(g, elem, name))
        return true;
    if (igraph_cattribute_table.gettype(g, &type, elem, name) == IGRAPH_SUCCESS && type == want)
        return true;
    g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s: %s attribute '%s' must be %s", path,
                elem == IGRAPH_ATTRIBUTE_VERTEX ? "vertex" : "edge", name,
                want == IGRAPH_ATTRIBUTE_STRING ? "a string" : "a number");
    return false;
}

static bool graphml_types_ok(const igraph_t *g, const char *path, GError **error)
{
    const igraph_attribute_elemtype_t V = IGRAPH_ATTRIBUTE_VERTEX, E = IGRAPH_ATTRIBUTE_EDGE;
    const igraph_attribute_type_t S = IGRAPH_ATTRIBUTE_STRING, N = IGRAPH_ATTRIBUTE_NUMERIC;
    bool ok = attr_type_ok(g, V, "kind", S, path, error) && attr_type_ok(g, V, "name", S, path, error) &&
              attr_type_ok(g, E, "gbps", N, path, error) &&
              attr_type_ok(g, E, "latency_us", N, path, error) &&
              attr_type_ok(g, E, "nic", N, path, error) && attr_type_ok(g, E, "tier", S, path, error);
    for (size_t k = 0; ok && host_num_keys[k]; k++)
        ok = attr_type_ok(g, V, host_num_keys[k], N, path, error);
    return ok;
}

static bool graphml_to_json(const igraph_t *g, cJSON *root, const char *path, GError **error)
{
    if (!igraph_cattribute_has_attr(g, IGRAPH_ATTRIBUTE_VERTEX, "kind")) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                    "%s: vertices need a string attribute 'kind' (host or a switch kind)", path);
        return false;
    }
    if (!graphml_types_ok(g, path, error))
        return false;
    cJSON *hosts = cJSON_AddArrayToObject(root, "hosts");
    cJSON *sws = cJSON_AddArrayToObject(root, "switches");
    cJSON *links = cJSON_AddArrayToObject(root, "links");
    bool has_name = igraph_cattribute_has_attr(g, IGRAPH_ATTRIBUTE_VERTEX, "name");
    igraph_integer_t nv = igraph_vcount(g), ne = igraph_ecount(g);
    g_autofree char **names = g_new0(char *, (gsize)nv + 1);
    bool ok = true;
    for (igraph_integer_t v = 0; v < nv && ok; v++) {
        const char *kind = VAS(g, "kind", v);
        names[v] = has_name && *VAS(g, "name", v) ? g_strdup(VAS(g, "name", v))
                                                  : g_strdup_printf("n%" IGRAPH_PRId, v);
        if (strcmp(kind, "host") == 0) {
            cJSON *h = cJSON_CreateObject();
            cJSON_AddStringToObject(h, "name", names[v]);
            for (size_t k = 0; host_num_keys[k]; k++)
                if (igraph_cattribute_has_attr(g, IGRAPH_ATTRIBUTE_VERTEX, host_num_keys[k])) {
                    double x = VAN(g, host_num_keys[k], v);
                    if (!isnan(x))
                        cJSON_AddNumberToObject(h, host_num_keys[k], x);
                }
            cJSON_AddItemToArray(hosts, h);
        } else {
            cJSON *s = cJSON_CreateObject();
            cJSON_AddStringToObject(s, "name", names[v]);
            cJSON_AddStringToObject(s, "kind", *kind ? kind : "switch");
            cJSON_AddItemToArray(sws, s);
        }
    }
    bool e_gbps = igraph_cattribute_has_attr(g, IGRAPH_ATTRIBUTE_EDGE, "gbps");
    bool e_lat = igraph_cattribute_has_attr(g, IGRAPH_ATTRIBUTE_EDGE, "latency_us");
    bool e_nic = igraph_cattribute_has_attr(g, IGRAPH_ATTRIBUTE_EDGE, "nic");
    bool e_tier = igraph_cattribute_has_attr(g, IGRAPH_ATTRIBUTE_EDGE, "tier");
    for (igraph_integer_t e = 0; e < ne; e++) {
        cJSON *l = cJSON_CreateObject();
        cJSON_AddStringToObject(l, "a", names[IGRAPH_FROM(g, e)]);
        cJSON_AddStringToObject(l, "b", names[IGRAPH_TO(g, e)]);
        if (e_gbps && !isnan(EAN(g, "gbps", e)))
            cJSON_AddNumberToObject(l, "gbps", EAN(g, "gbps", e));
        if (e_lat && !isnan(EAN(g, "latency_us", e)))
            cJSON_AddNumberToObject(l, "latency_us", EAN(g, "latency_us", e));
        if (e_nic && !isnan(EAN(g, "nic", e)) && EAN(g, "nic", e) >= 0)
            cJSON_AddNumberToObject(l, "nic", EAN(g, "nic", e));
        if (e_tier && *EAS(g, "tier", e))
            cJSON_AddStringToObject(l, "tier", EAS(g, "tier", e));
        cJSON_AddItemToArray(links, l);
    }
    for (igraph_integer_t v = 0; v < nv; v++)
        g_free(names[v]);
    return ok;
}

bool topo__build_graphml(topo *t, const char *path, GError **error)
{
    /* through the common reader (bounded, gzip, no NUL), then to igraph */
    g_autoptr(GBytes) bytes = ccs_input_read(path, true, error);
    if (!bytes)
        return false;
    gsize len = 0;
    const void *data = g_bytes_get_data(bytes, &len);
    if (!topo__graphml_check(data, len, path, error))
        return false;
    FILE *f = fmemopen((void *)data, len, "r");
    if (!f) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL, "%s: cannot read from memory", path);
        return false;
    }
    /* igraph keeps the attribute handler process-wide: install the C one for
     * this call and put the previous one back. */
    topo__igraph_lock();
    igraph_attribute_table_t *old = igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_t g;
    igraph_error_t rc = igraph_read_graph_graphml(&g, f, 0);
    fclose(f);
    bool ok = rc == IGRAPH_SUCCESS;
    if (!ok)
        g_set_error(error, CCS_ERROR, rc == IGRAPH_PARSEERROR ? CCS_ERROR_PARSE : CCS_ERROR_INTERNAL,
                    "%s: GraphML: %s", path, igraph_strerror(rc));
    cJSON *root = ok ? cJSON_CreateObject() : NULL;
    if (ok) {
        ok = graphml_to_json(&g, root, path, error);
        igraph_destroy(&g);
    }
    igraph_set_attribute_table(old);
    topo__igraph_unlock();
    if (ok)
        ok = topo__build_json(t, root, error);
    cJSON_Delete(root);
    return ok;
}

bool topo__build_file(topo *t, topo__params *p, GError **error)
{
    const char *path = topo__params_string(p, "path", NULL);
    if (!path || !*path) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "file: a path is required (file:PATH)");
        return false;
    }
    if (!topo__params_check_unused(p, error))
        return false;
    if (g_str_has_suffix(path, ".graphml") || g_str_has_suffix(path, ".xml"))
        return topo__build_graphml(t, path, error);
    g_autoptr(GBytes) bytes = ccs_input_read(path, true, error);
    if (!bytes)
        return false;
    gsize len = 0;
    const char *text = g_bytes_get_data(bytes, &len);
    cJSON *root = ccs_json_parse(text, len, path, error);
    if (!root)
        return false;
    /* a scenario file: use its "topology" member */
    const cJSON *obj = root;
    const cJSON *inner = cJSON_GetObjectItemCaseSensitive(root, "topology");
    if (cJSON_IsObject(inner))
        obj = inner;
    bool ok = topo__build_json(t, obj, error);
    if (!ok)
        g_prefix_error(error, "%s: ", path);
    cJSON_Delete(root);
    return ok;
}
