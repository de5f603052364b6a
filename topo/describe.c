/* describe.c - counts, capacities, oversubscription, bisection bandwidth and
 * the text of `ccsim topo`.  Not here: export formats (export.c).
 */
#include "topo-private.h"

topo_stats topo_stats_get(const topo *t)
{
    topo_stats s = {0};
    s.hosts = t->hosts->len;
    for (uint32_t v = 0; v < t->nodes->len; v++) {
        const topo__node *n = &g_array_index(t->nodes, topo__node, v);
        s.nodes_by_kind[n->kind]++;
        s.switches += n->host == TOPO__NONE;
    }
    s.gpus = s.nodes_by_kind[TOPO_NODE_GPU];
    s.nics = s.nodes_by_kind[TOPO_NODE_NIC];
    /* down = toward the hosts: switch -> NIC, agg -> first switch */
    double host_down = 0, tor_up = 0, tor_down = 0, agg_up = 0;
    for (uint32_t id = 0; id < t->links->len; id++) {
        const topo_link *l = &g_array_index(t->links, topo_link, id);
        s.links_by_tier[l->tier]++;
        s.cap_Bps_by_tier[l->tier] += l->cap_Bps;
        topo_node_kind sk = g_array_index(t->nodes, topo__node, l->src).kind;
        if (l->tier == TOPO_TIER_HOST_TOR && sk != TOPO_NODE_NIC)
            host_down += l->cap_Bps;
        else if (l->tier == TOPO_TIER_TOR_AGG && sk == TOPO_NODE_AGG)
            tor_down += l->cap_Bps;
        else if (l->tier == TOPO_TIER_TOR_AGG)
            tor_up += l->cap_Bps;
        else if (l->tier == TOPO_TIER_AGG_CORE && sk == TOPO_NODE_AGG)
            agg_up += l->cap_Bps;
    }
    s.tor_oversub = tor_up > 0 ? host_down / tor_up : 0;
    s.agg_oversub = agg_up > 0 ? tor_down / agg_up : 0;
    return s;
}

static bool bisection_locked(const topo *t, double *out_Bps, GError **error)
{
    *out_Bps = 0;
    size_t h = t->hosts->len;
    if (h < 2)
        return true;
    igraph_integer_t n = (igraph_integer_t)t->nodes->len, src = n, dst = n + 1;
    igraph_vector_int_t edges;
    igraph_vector_t cap;
    if (!topo__igraph_error(igraph_vector_int_init(&edges, 0), "vector", error))
        return false;
    if (!topo__igraph_error(igraph_vector_init(&cap, 0), "vector", error)) {
        igraph_vector_int_destroy(&edges);
        return false;
    }
    double total = 0;
    igraph_error_t rc = IGRAPH_SUCCESS;
    for (uint32_t id = 0; id < t->links->len && !rc; id++) {
        const topo_link *l = &g_array_index(t->links, topo_link, id);
        if (l->tier <= TOPO_TIER_PCIE)
            continue;
        total += l->cap_Bps;
        rc = igraph_vector_int_push_back(&edges, l->src);
        if (!rc)
            rc = igraph_vector_int_push_back(&edges, l->dst);
        if (!rc)
            rc = igraph_vector_push_back(&cap, l->cap_Bps);
    }
    for (size_t hi = 0; hi < h && !rc; hi++) {
        const topo__host *x = topo__host_get(t, hi);
        for (size_t i = 0; i < x->server.nics && !rc; i++) {
            bool first = hi < h / 2;
            rc = igraph_vector_int_push_back(&edges, first ? src : x->nic_node[i]);
            if (!rc)
                rc = igraph_vector_int_push_back(&edges, first ? x->nic_node[i] : dst);
            if (!rc)
                rc = igraph_vector_push_back(&cap, 2 * total + 1);
        }
    }
    bool ok = topo__igraph_error(rc, "vector", error);
    if (ok) {
        igraph_t g;
        ok = topo__igraph_error(igraph_create(&g, &edges, n + 2, IGRAPH_DIRECTED), "create", error);
        if (ok) {
            igraph_real_t value = 0;
            ok = topo__igraph_error(igraph_maxflow_value(&g, &value, src, dst, &cap, NULL),
                                    "max flow", error);
            *out_Bps = value;
            igraph_destroy(&g);
        }
    }
    igraph_vector_destroy(&cap);
    igraph_vector_int_destroy(&edges);
    return ok;
}

bool topo_bisection_Bps(const topo *t, double *out_Bps, GError **error)
{
    topo__igraph_lock();
    bool ok = bisection_locked(t, out_Bps, error);
    topo__igraph_unlock();
    return ok;
}

static void describe_path(topo *t, GString *out, size_t a, size_t b, const char *what,
                          GError **error, bool *ok)
{
    if (!*ok)
        return;
    uint32_t na = topo__host_get(t, a)->nic_node[0], nb = topo__host_get(t, b)->nic_node[0];
    size_t n = topo_path_count(t, na, nb, error);
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (n == 0 || !topo_path_links(t, na, nb, 0, links, error)) {
        *ok = false;
        return;
    }
    double lat = 0;
    for (guint i = 0; i < links->len; i++)
        lat += g_array_index(t->links, topo_link, g_array_index(links, uint32_t, i)).latency_s;
    g_string_append_printf(out, "  %-28s %s -> %s: %zu path%s of %u links, %.3g us\n", what,
                           topo__host_get(t, a)->name, topo__host_get(t, b)->name, n,
                           n == 1 ? "" : "s", links->len, lat * 1e6);
}

bool topo_describe(topo *t, GString *out, GError **error)
{
    g_return_val_if_fail(t != NULL && out != NULL, false);
    topo_stats s = topo_stats_get(t);
    g_string_append_printf(out, "topology %s\n", t->name);
    const topo__host *h0 = topo__host_get(t, 0);
    g_string_append_printf(out,
                           "hosts %zu, GPUs %zu, NICs %zu, network switches %zu\n"
                           "host 0 server: %zu GPUs, NVLink %.4g GB/s per GPU per direction, "
                           "%zu PCIe switches at %.4g Gbps, %zu NICs at %.4g Gbps\n",
                           s.hosts, s.gpus, s.nics, s.switches, h0->server.gpus,
                           h0->server.nvlink_Bps / 1e9, h0->server.pcie,
                           ccs_Bps_to_gbps(h0->server.pcie_Bps), h0->server.nics,
                           ccs_Bps_to_gbps(h0->server.nic_Bps));
    g_string_append(out, "nodes:");
    for (int k = 0; k < TOPO_NODE_KIND_COUNT; k++)
        if (s.nodes_by_kind[k])
            g_string_append_printf(out, " %s %zu", topo_node_kind_name((topo_node_kind)k),
                                   s.nodes_by_kind[k]);
    g_string_append_printf(out, " (total %u)\n", t->nodes->len);
    g_string_append_printf(out, "links (directed) by tier:%*s count  capacity Gbps (sum)\n", 1, "");
    for (int k = 0; k < TOPO_TIER_COUNT; k++)
        if (s.links_by_tier[k])
            g_string_append_printf(out, "  %-10s %8zu  %14.6g\n", topo_tier_name((topo_tier)k),
                                   s.links_by_tier[k], ccs_Bps_to_gbps(s.cap_Bps_by_tier[k]));
    g_string_append_printf(out, "  %-10s %8u\n", "total", t->links->len);
    if (s.tor_oversub > 0)
        g_string_append_printf(out, "oversubscription at the first switches: %.3g:1\n",
                               s.tor_oversub);
    if (s.agg_oversub > 0)
        g_string_append_printf(out, "oversubscription at the aggregation layer: %.3g:1\n",
                               s.agg_oversub);
    double bis = 0;
    if (!topo_bisection_Bps(t, &bis, error))
        return false;
    size_t h = t->hosts->len;
    if (h >= 2)
        g_string_append_printf(out,
                               "bisection bandwidth: %.6g Gbps (max flow from hosts 0..%zu to "
                               "hosts %zu..%zu)\n",
                               ccs_Bps_to_gbps(bis), h / 2 - 1, h / 2, h - 1);
    if (h < 2)
        return true;
    g_string_append(out, "candidate paths, NIC 0 to NIC 0 (equal-cost, capped at max_paths):\n");
    uint32_t tor0 = topo_host_group(t, 0, TOPO_LEVEL_TOR), pod0 = topo_host_group(t, 0, TOPO_LEVEL_POD);
    size_t same_tor = SIZE_MAX, same_pod = SIZE_MAX, other_pod = SIZE_MAX;
    for (size_t b = 1; b < h; b++) {
        bool st = topo_host_group(t, b, TOPO_LEVEL_TOR) == tor0;
        bool sp = topo_host_group(t, b, TOPO_LEVEL_POD) == pod0;
        if (st && same_tor == SIZE_MAX)
            same_tor = b;
        if (!st && sp && same_pod == SIZE_MAX)
            same_pod = b;
        if (!sp && other_pod == SIZE_MAX)
            other_pod = b;
    }
    bool ok = true;
    if (same_tor != SIZE_MAX)
        describe_path(t, out, 0, same_tor, "same first switch", error, &ok);
    if (same_pod != SIZE_MAX)
        describe_path(t, out, 0, same_pod, "same pod, other switch", error, &ok);
    if (other_pod != SIZE_MAX)
        describe_path(t, out, 0, other_pod, "other pod", error, &ok);
    describe_path(t, out, 0, h - 1, "first to last host", error, &ok);
    return ok;
}
