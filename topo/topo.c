/* topo.c - the topology object: nodes, links, hosts, getters, topo__finish().
 * Not here: builders (build_*.c), paths (paths.c).
 */
#include "topo.h"

#include <string.h>

#include "topo-private.h"

static const char *const kind_names[TOPO_NODE_KIND_COUNT] = {
    "gpu", "nvswitch", "pcie", "nic", "tor", "agg", "core", "rail", "switch",
};

static const char *const tier_names[TOPO_TIER_COUNT] = {
    "nvlink", "pcie", "host_tor", "tor_agg", "agg_core", "other",
};

const char *topo_node_kind_name(topo_node_kind kind)
{
    g_return_val_if_fail(kind < TOPO_NODE_KIND_COUNT, "?");
    return kind_names[kind];
}

bool topo_node_kind_parse(const char *name, topo_node_kind *out)
{
    for (int k = 0; k < TOPO_NODE_KIND_COUNT; k++)
        if (g_ascii_strcasecmp(name, kind_names[k]) == 0) {
            *out = (topo_node_kind)k;
            return true;
        }
    return false;
}

const char *topo_tier_name(topo_tier tier)
{
    g_return_val_if_fail(tier < TOPO_TIER_COUNT, "?");
    return tier_names[tier];
}

bool topo_tier_parse(const char *name, topo_tier *out)
{
    for (int k = 0; k < TOPO_TIER_COUNT; k++)
        if (strcmp(name, tier_names[k]) == 0) {
            *out = (topo_tier)k;
            return true;
        }
    return false;
}

topo_options topo_options_default(void)
{
    return (topo_options){.max_paths = 16, .enum_limit = 100000};
}

static void host_free(gpointer p)
{
    topo__host *h = p;
    if (!h)
        return;
    g_free(h->name);
    g_free(h->gpu_node);
    g_free(h->pcie_node);
    g_free(h->nic_node);
    g_free(h->gpu_pcie);
    g_free(h->gpu_nic);
    g_free(h->gpu_nic_path);
    g_free(h->nic_gpu_path);
    g_free(h->nvlink_path);
    g_free(h);
}

static void node_clear(gpointer p)
{
    topo__node *n = p;
    g_free(n->name);
}

static void pathset_free(gpointer p)
{
    topo__pathset *ps = p;
    if (!ps)
        return;
    g_free(ps->links);
    g_free(ps);
}

topo *topo__new(const char *name, const topo_options *opts)
{
    topo *t = g_new0(topo, 1);
    t->name = g_strdup(name ? name : "inline");
    t->opts = opts ? *opts : topo_options_default();
    if (t->opts.max_paths == 0)
        t->opts.max_paths = 1;
    t->nodes = g_array_new(FALSE, FALSE, sizeof(topo__node));
    g_array_set_clear_func(t->nodes, node_clear);
    t->links = g_array_new(FALSE, FALSE, sizeof(topo_link));
    t->hosts = g_ptr_array_new_with_free_func(host_free);
    t->host_by_name = g_hash_table_new(g_str_hash, g_str_equal);
    t->nic_attach = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    t->sw_to_node = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    t->sw_edge_link = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    t->path_cache = g_hash_table_new_full(topo__pair_hash, g_int64_equal, g_free, pathset_free);
    return t;
}

void topo_free(topo *t)
{
    if (!t)
        return;
    g_hash_table_destroy(t->path_cache);
    g_array_free(t->sw_edge_link, TRUE);
    g_array_free(t->sw_to_node, TRUE);
    g_free(t->node_to_sw);
    g_free(t->first_switch);
    topo__igraph_lock();
    if (t->has_in_edges)
        igraph_inclist_destroy(&t->in_edges);
    if (t->has_sw_graph)
        igraph_destroy(&t->sw_graph);
    topo__igraph_unlock();
    g_hash_table_destroy(t->nic_attach);
    g_hash_table_destroy(t->host_by_name);
    g_ptr_array_free(t->hosts, TRUE);
    g_array_free(t->links, TRUE);
    g_array_free(t->nodes, TRUE);
    g_free(t->name);
    g_free(t);
}

const char *topo_name(const topo *t)
{
    g_return_val_if_fail(t, NULL);
    return t->name;
}

/* The one lock around igraph (topo-private.h says why): process-wide
 * because igraph's own state is; a static GRecMutex needs no init. */
static GRecMutex igraph_mutex;

void topo__igraph_lock(void) { g_rec_mutex_lock(&igraph_mutex); }

void topo__igraph_unlock(void) { g_rec_mutex_unlock(&igraph_mutex); }

bool topo__igraph_error(igraph_error_t rc, const char *what, GError **error)
{
    if (rc == IGRAPH_SUCCESS)
        return true;
    g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL, "igraph: %s: %s", what,
                igraph_strerror(rc));
    return false;
}

/* ---- construction ---- */

uint32_t topo__node_add(topo *t, topo_node_kind kind, const char *name, uint32_t host)
{
    topo__node n = {.kind = kind, .name = g_strdup(name), .host = host, .index = 0};
    g_array_append_val(t->nodes, n);
    return t->nodes->len - 1;
}

uint32_t topo__link_add(topo *t, uint32_t src, uint32_t dst, double cap_Bps, double latency_s,
                        topo_tier tier)
{
    g_assert(src < t->nodes->len && dst < t->nodes->len);
    topo_link l = {.src = src, .dst = dst, .cap_Bps = cap_Bps, .latency_s = latency_s,
                   .tier = tier};
    g_array_append_val(t->links, l);
    return t->links->len - 1;
}

uint32_t topo__cable_add(topo *t, uint32_t a, uint32_t b, double cap_Bps, double latency_s,
                         topo_tier tier)
{
    uint32_t id = topo__link_add(t, a, b, cap_Bps, latency_s, tier);
    topo__link_add(t, b, a, cap_Bps, latency_s, tier);
    return id;
}

topo_tier topo__switch_tier(topo_node_kind a, topo_node_kind b)
{
    if (a > b) {
        topo_node_kind x = a;
        a = b;
        b = x;
    }
    bool a_first = a == TOPO_NODE_TOR || a == TOPO_NODE_RAIL;
    bool b_first = b == TOPO_NODE_TOR || b == TOPO_NODE_RAIL;
    if ((a_first && b == TOPO_NODE_AGG) || (b_first && a == TOPO_NODE_AGG))
        return TOPO_TIER_TOR_AGG;
    if (a == TOPO_NODE_AGG && b == TOPO_NODE_CORE)
        return TOPO_TIER_AGG_CORE;
    return TOPO_TIER_OTHER;
}

topo__host *topo__host_get(const topo *t, size_t h)
{
    g_assert(h < t->hosts->len);
    return g_ptr_array_index(t->hosts, h);
}

/* ---- finish: index and validate ---- */

static bool attach_nics(topo *t, GError **error)
{
    t->first_switch = g_new0(bool, t->nodes->len);
    for (uint32_t id = 0; id < t->links->len; id++) {
        const topo_link *l = &g_array_index(t->links, topo_link, id);
        topo__node *s = &g_array_index(t->nodes, topo__node, l->src);
        topo__node *d = &g_array_index(t->nodes, topo__node, l->dst);
        bool s_nic = s->kind == TOPO_NODE_NIC, d_nic = d->kind == TOPO_NODE_NIC;
        bool s_net = s->host == TOPO__NONE, d_net = d->host == TOPO__NONE;
        if (s_nic && d_nic) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "link %s -> %s joins two NICs; put a switch between them", s->name,
                        d->name);
            return false;
        }
        if (!((s_nic && d_net) || (d_nic && s_net)))
            continue;
        uint32_t nic = s_nic ? l->src : l->dst;
        uint32_t sw = s_nic ? l->dst : l->src;
        topo__nic_attach *a = g_hash_table_lookup(t->nic_attach, GUINT_TO_POINTER(nic));
        if (!a) {
            a = g_new(topo__nic_attach, 1);
            *a = (topo__nic_attach){.sw = sw, .up = TOPO__NONE, .down = TOPO__NONE};
            g_hash_table_insert(t->nic_attach, GUINT_TO_POINTER(nic), a);
        }
        t->first_switch[sw] = true;
        uint32_t *slot = s_nic ? &a->up : &a->down;
        if (a->sw != sw || *slot != TOPO__NONE) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "NIC %s has more than one network link (each NIC attaches to one "
                        "switch by one cable)",
                        g_array_index(t->nodes, topo__node, nic).name);
            return false;
        }
        *slot = id;
    }
    bool no_network = t->hosts->len <= 1 && t->sw_to_node->len == 0;
    for (size_t hi = 0; hi < t->hosts->len; hi++) {
        topo__host *h = topo__host_get(t, hi);
        for (size_t i = 0; i < h->server.nics; i++) {
            topo__nic_attach *a =
                g_hash_table_lookup(t->nic_attach, GUINT_TO_POINTER(h->nic_node[i]));
            if (no_network && !a)
                continue;
            if (!a || a->up == TOPO__NONE || a->down == TOPO__NONE) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "host '%s' NIC %zu is not attached to a switch in both directions",
                            h->name, i);
                return false;
            }
        }
    }
    return true;
}

static bool build_sw_graph(topo *t, GError **error)
{
    size_t n = t->nodes->len;
    t->node_to_sw = g_new(uint32_t, n);
    for (uint32_t v = 0; v < n; v++) {
        topo__node *nd = &g_array_index(t->nodes, topo__node, v);
        if (nd->host == TOPO__NONE) {
            t->node_to_sw[v] = t->sw_to_node->len;
            g_array_append_val(t->sw_to_node, v);
        } else {
            t->node_to_sw[v] = TOPO__NONE;
        }
    }
    igraph_vector_int_t edges;
    if (!topo__igraph_error(igraph_vector_int_init(&edges, 0), "vector", error))
        return false;
    bool ok = true;
    for (uint32_t id = 0; id < t->links->len && ok; id++) {
        const topo_link *l = &g_array_index(t->links, topo_link, id);
        uint32_t a = t->node_to_sw[l->src], b = t->node_to_sw[l->dst];
        if (a == TOPO__NONE || b == TOPO__NONE)
            continue;
        ok = topo__igraph_error(igraph_vector_int_push_back(&edges, a), "vector", error) &&
             topo__igraph_error(igraph_vector_int_push_back(&edges, b), "vector", error);
        g_array_append_val(t->sw_edge_link, id);
    }
    if (ok) {
        ok = topo__igraph_error(
            igraph_create(&t->sw_graph, &edges, (igraph_integer_t)t->sw_to_node->len, IGRAPH_DIRECTED),
            "create switch graph", error);
        t->has_sw_graph = ok;
    }
    igraph_vector_int_destroy(&edges);
    return ok;
}

static bool check_links(topo *t, GError **error)
{
    for (uint32_t id = 0; id < t->links->len; id++) {
        const topo_link *l = &g_array_index(t->links, topo_link, id);
        if (!ccs_positive_finite(l->cap_Bps) || !isfinite(l->latency_s) || l->latency_s < 0) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "link %s -> %s: capacity %g B/s and latency %g s must be positive "
                        "and finite",
                        g_array_index(t->nodes, topo__node, l->src).name,
                        g_array_index(t->nodes, topo__node, l->dst).name, l->cap_Bps,
                        l->latency_s);
            return false;
        }
    }
    return true;
}

/* Every switch and host in one weakly connected piece, and every NIC's
 * switch able to reach every other NIC's switch (strongly connected among
 * the attachment switches). */
static bool check_connected(topo *t, GError **error)
{
    if (t->hosts->len == 0) {
        g_set_error_literal(error, CCS_ERROR, CCS_ERROR_INVALID, "no hosts");
        return false;
    }
    size_t n = t->nodes->len;
    igraph_vector_int_t edges;
    if (!topo__igraph_error(igraph_vector_int_init(&edges, 2 * (igraph_integer_t)t->links->len),
                            "vector", error))
        return false;
    for (uint32_t id = 0; id < t->links->len; id++) {
        const topo_link *l = &g_array_index(t->links, topo_link, id);
        VECTOR(edges)[2 * id] = l->src;
        VECTOR(edges)[2 * id + 1] = l->dst;
    }
    igraph_t g;
    igraph_vector_int_t memb;
    igraph_integer_t no = 0;
    bool ok = topo__igraph_error(igraph_create(&g, &edges, (igraph_integer_t)n, IGRAPH_DIRECTED),
                                 "create", error);
    igraph_vector_int_destroy(&edges);
    if (!ok)
        return false;
    ok = topo__igraph_error(igraph_vector_int_init(&memb, 0), "vector", error);
    if (ok)
        ok = topo__igraph_error(igraph_connected_components(&g, &memb, NULL, &no, IGRAPH_STRONG),
                                "connected components", error);
    if (ok) {
        /* Hosts are strongly connected inside (every intra-host link is
         * duplex), so comparing each host's GPU 0 component suffices. */
        igraph_integer_t c0 = VECTOR(memb)[topo__host_get(t, 0)->gpu_node[0]];
        for (size_t hi = 1; hi < t->hosts->len && ok; hi++) {
            topo__host *h = topo__host_get(t, hi);
            if (VECTOR(memb)[h->gpu_node[0]] != c0) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "host '%s' cannot reach host '%s' (the network is not connected)",
                            topo__host_get(t, 0)->name, h->name);
                ok = false;
            }
        }
        for (uint32_t v = 0; v < n && ok; v++) {
            if (VECTOR(memb)[v] != c0) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "%s '%s' is not connected to the hosts' network (or not in both "
                            "directions)",
                            topo_node_kind_name(g_array_index(t->nodes, topo__node, v).kind),
                            g_array_index(t->nodes, topo__node, v).name);
                ok = false;
            }
        }
        igraph_vector_int_destroy(&memb);
    }
    igraph_destroy(&g);
    return ok;
}

bool topo__finish(topo *t, GError **error)
{
    topo__igraph_lock();
    bool ok = check_links(t, error) && build_sw_graph(t, error) && attach_nics(t, error) &&
              check_connected(t, error);
    topo__igraph_unlock();
    return ok;
}

/* ---- getters ---- */

size_t topo_node_count(const topo *t) { return t->nodes->len; }

topo_node_kind topo_node_get_kind(const topo *t, uint32_t node)
{
    g_return_val_if_fail(node < t->nodes->len, TOPO_NODE_SWITCH);
    return g_array_index(t->nodes, topo__node, node).kind;
}

const char *topo_node_name(const topo *t, uint32_t node)
{
    g_return_val_if_fail(node < t->nodes->len, NULL);
    return g_array_index(t->nodes, topo__node, node).name;
}

size_t topo_node_host(const topo *t, uint32_t node)
{
    g_return_val_if_fail(node < t->nodes->len, SIZE_MAX);
    uint32_t h = g_array_index(t->nodes, topo__node, node).host;
    return h == TOPO__NONE ? SIZE_MAX : h;
}

size_t topo_node_index(const topo *t, uint32_t node)
{
    g_return_val_if_fail(node < t->nodes->len, SIZE_MAX);
    const topo__node *n = &g_array_index(t->nodes, topo__node, node);
    return n->host == TOPO__NONE ? SIZE_MAX : n->index;
}

uint32_t topo_nic_first_switch(const topo *t, uint32_t nic)
{
    g_return_val_if_fail(nic < t->nodes->len, TOPO_NODE_NONE);
    const topo__nic_attach *a = g_hash_table_lookup(t->nic_attach, GUINT_TO_POINTER(nic));
    return a ? a->sw : TOPO_NODE_NONE;
}

bool topo_nic_links(const topo *t, uint32_t nic, uint32_t *up, uint32_t *down)
{
    g_return_val_if_fail(nic < t->nodes->len && up && down, false);
    const topo__nic_attach *a = g_hash_table_lookup(t->nic_attach, GUINT_TO_POINTER(nic));
    if (!a || a->up == TOPO__NONE || a->down == TOPO__NONE)
        return false;
    *up = a->up;
    *down = a->down;
    return true;
}

size_t topo_link_count(const topo *t) { return t->links->len; }

const topo_link *topo_link_get(const topo *t, uint32_t id)
{
    g_return_val_if_fail(id < t->links->len, NULL);
    return &g_array_index(t->links, topo_link, id);
}

size_t topo_host_count(const topo *t) { return t->hosts->len; }

#define HOST_OR(t, h, val)                                     \
    do {                                                       \
        g_return_val_if_fail((h) < (t)->hosts->len, (val));    \
    } while (0)

const char *topo_host_name(const topo *t, size_t h)
{
    HOST_OR(t, h, NULL);
    return topo__host_get(t, h)->name;
}

bool topo_host_find(const topo *t, const char *name, size_t *out)
{
    gpointer v = g_hash_table_lookup(t->host_by_name, name);
    if (!v)
        return false;
    if (out)
        *out = GPOINTER_TO_SIZE(v) - 1;
    return true;
}

size_t topo_host_gpu_count(const topo *t, size_t h)
{
    HOST_OR(t, h, 0);
    return topo__host_get(t, h)->server.gpus;
}

size_t topo_host_nic_count(const topo *t, size_t h)
{
    HOST_OR(t, h, 0);
    return topo__host_get(t, h)->server.nics;
}

size_t topo_host_pcie_count(const topo *t, size_t h)
{
    HOST_OR(t, h, 0);
    return topo__host_get(t, h)->server.pcie;
}

uint32_t topo_host_gpu_node(const topo *t, size_t h, size_t g)
{
    HOST_OR(t, h, TOPO__NONE);
    topo__host *x = topo__host_get(t, h);
    g_return_val_if_fail(g < x->server.gpus, TOPO__NONE);
    return x->gpu_node[g];
}

uint32_t topo_host_nic_node(const topo *t, size_t h, size_t i)
{
    HOST_OR(t, h, TOPO__NONE);
    topo__host *x = topo__host_get(t, h);
    g_return_val_if_fail(i < x->server.nics, TOPO__NONE);
    return x->nic_node[i];
}

uint32_t topo_host_nvswitch_node(const topo *t, size_t h)
{
    HOST_OR(t, h, TOPO__NONE);
    return topo__host_get(t, h)->nvswitch;
}

uint32_t topo_host_pcie_node(const topo *t, size_t h, size_t p)
{
    HOST_OR(t, h, TOPO__NONE);
    topo__host *x = topo__host_get(t, h);
    g_return_val_if_fail(p < x->server.pcie, TOPO__NONE);
    return x->pcie_node[p];
}

size_t topo_gpu_nic(const topo *t, size_t h, size_t g)
{
    HOST_OR(t, h, 0);
    topo__host *x = topo__host_get(t, h);
    g_return_val_if_fail(g < x->server.gpus, 0);
    return x->gpu_nic[g];
}

size_t topo_gpu_pcie(const topo *t, size_t h, size_t g)
{
    HOST_OR(t, h, 0);
    topo__host *x = topo__host_get(t, h);
    g_return_val_if_fail(g < x->server.gpus, 0);
    return x->gpu_pcie[g];
}

uint32_t topo_host_group(const topo *t, size_t h, topo_level level)
{
    HOST_OR(t, h, 0);
    topo__host *x = topo__host_get(t, h);
    switch (level) {
    case TOPO_LEVEL_HOST:
        return (uint32_t)h;
    case TOPO_LEVEL_TOR: {
        topo__nic_attach *a =
            g_hash_table_lookup(t->nic_attach, GUINT_TO_POINTER(x->nic_node[0]));
        /* an unattached single host is its own ToR group */
        return a ? a->sw : x->nic_node[0];
    }
    case TOPO_LEVEL_POD:
        return x->pod;
    }
    return 0;
}

size_t topo_path_gpu_to_nic(const topo *t, size_t h, size_t g, const uint32_t **links)
{
    HOST_OR(t, h, 0);
    topo__host *x = topo__host_get(t, h);
    g_return_val_if_fail(g < x->server.gpus, 0);
    *links = &x->gpu_nic_path[g * 2];
    return 2;
}

size_t topo_path_nic_to_gpu(const topo *t, size_t h, size_t g, const uint32_t **links)
{
    HOST_OR(t, h, 0);
    topo__host *x = topo__host_get(t, h);
    g_return_val_if_fail(g < x->server.gpus, 0);
    *links = &x->nic_gpu_path[g * 2];
    return 2;
}

size_t topo_path_nvlink(const topo *t, size_t h, size_t g1, size_t g2, const uint32_t **links)
{
    HOST_OR(t, h, 0);
    topo__host *x = topo__host_get(t, h);
    size_t G = x->server.gpus;
    g_return_val_if_fail(g1 < G && g2 < G, 0);
    *links = &x->nvlink_path[(g1 * G + g2) * 2];
    return g1 == g2 ? 0 : 2;
}
