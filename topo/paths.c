/* paths.c - candidate network paths between NICs and the ECMP choice
 * (DESIGN.md §3 "Network", §4 "candidate paths per host pair").
 *
 * Candidates between NIC a (on first switch A) and NIC b (on B) are
 *   a -> A  +  every fewest-hop path A ~> B in the switch graph  +  B -> b,
 * so they depend on (A, B) only and are cached per switch pair: the first
 * query of a pair runs igraph_get_all_shortest_paths from A to B
 * (O(V + E) plus the paths' size), later ones are O(1).  When there are more
 * than max_paths, the kept ones are evenly spaced in igraph's enumeration
 * order (index floor(i * total / max_paths)), which spreads them over the
 * first hops instead of keeping only the paths through the first uplink.
 */
#include "topo-private.h"

uint64_t topo_hash64(uint64_t x)
{
    /* splitmix64's finaliser (Steele, Lea, Flood 2014) */
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static const topo__nic_attach *nic_get(const topo *t, uint32_t nic, GError **error)
{
    const topo__nic_attach *a = NULL;
    if (nic < t->nodes->len && g_array_index(t->nodes, topo__node, nic).kind == TOPO_NODE_NIC)
        a = g_hash_table_lookup(t->nic_attach, GUINT_TO_POINTER(nic));
    if (!a)
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "node %u is not an attached NIC", nic);
    return a;
}

static const topo__pathset *pathset_get(topo *t, uint32_t sw_a, uint32_t sw_b, GError **error)
{
    gint64 key = ((gint64)sw_a << 32) | sw_b;
    topo__pathset *ps = g_hash_table_lookup(t->path_cache, &key);
    if (ps)
        return ps;
    ps = g_new0(topo__pathset, 1);
    if (sw_a == sw_b) {
        ps->n = 1;
        ps->hops = 0;
    } else {
        igraph_integer_t va = t->node_to_sw[sw_a], vb = t->node_to_sw[sw_b];
        igraph_vector_int_list_t edges;
        if (!topo__igraph_error(igraph_vector_int_list_init(&edges, 0), "vector list", error)) {
            g_free(ps);
            return NULL;
        }
        igraph_error_t rc = igraph_get_all_shortest_paths(&t->sw_graph, NULL, &edges, NULL, va,
                                                          igraph_vss_1(vb), IGRAPH_OUT);
        if (!topo__igraph_error(rc, "all shortest paths", error)) {
            igraph_vector_int_list_destroy(&edges);
            g_free(ps);
            return NULL;
        }
        size_t total = (size_t)igraph_vector_int_list_size(&edges);
        ps->n = MIN(total, t->opts.max_paths);
        ps->hops = total ? (size_t)igraph_vector_int_size(igraph_vector_int_list_get_ptr(&edges, 0)) : 0;
        ps->links = g_new(uint32_t, ps->n * ps->hops + 1);
        for (size_t i = 0; i < ps->n; i++) {
            size_t src = i * total / ps->n;
            const igraph_vector_int_t *e = igraph_vector_int_list_get_ptr(&edges, (igraph_integer_t)src);
            g_assert((size_t)igraph_vector_int_size(e) == ps->hops);
            for (size_t k = 0; k < ps->hops; k++)
                ps->links[i * ps->hops + k] = g_array_index(t->sw_edge_link, uint32_t, VECTOR(*e)[k]);
        }
        igraph_vector_int_list_destroy(&edges);
    }
    gint64 *k = g_new(gint64, 1);
    *k = key;
    g_hash_table_insert(t->path_cache, k, ps);
    return ps;
}

size_t topo_path_count(topo *t, uint32_t nic_a, uint32_t nic_b, GError **error)
{
    g_return_val_if_fail(t != NULL, 0);
    const topo__nic_attach *a = nic_get(t, nic_a, error);
    const topo__nic_attach *b = a ? nic_get(t, nic_b, error) : NULL;
    if (!b)
        return 0;
    const topo__pathset *ps = pathset_get(t, a->sw, b->sw, error);
    return ps ? ps->n : 0;
}

bool topo_path_links(topo *t, uint32_t nic_a, uint32_t nic_b, size_t i, GArray *out_link_ids,
                     GError **error)
{
    g_return_val_if_fail(t != NULL && out_link_ids != NULL, false);
    g_array_set_size(out_link_ids, 0);
    const topo__nic_attach *a = nic_get(t, nic_a, error);
    const topo__nic_attach *b = a ? nic_get(t, nic_b, error) : NULL;
    if (!b)
        return false;
    const topo__pathset *ps = pathset_get(t, a->sw, b->sw, error);
    if (!ps)
        return false;
    if (i >= ps->n) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "path %zu of %zu between NICs %u and %u does not exist", i, ps->n, nic_a,
                    nic_b);
        return false;
    }
    g_array_append_val(out_link_ids, a->up);
    if (ps->hops)
        g_array_append_vals(out_link_ids, &ps->links[i * ps->hops], (guint)ps->hops);
    g_array_append_val(out_link_ids, b->down);
    return true;
}

size_t topo_path_ecmp(topo *t, uint32_t nic_a, uint32_t nic_b, uint64_t flow_key, uint64_t seed)
{
    size_t n = topo_path_count(t, nic_a, nic_b, NULL);
    if (n <= 1)
        return 0;
    uint64_t h = topo_hash64(((uint64_t)nic_a << 32) | nic_b);
    h = topo_hash64(h ^ flow_key);
    h = topo_hash64(h ^ topo_hash64(seed));
    return (size_t)(h % n);
}
