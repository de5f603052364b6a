/* paths.c - candidate network paths between NICs and the ECMP choice
 * (docs/model.md, §4).  Not here: which path a scheduler picks.
 *
 * Candidates between NIC a (on first switch A) and NIC b (on B) are
 *   a -> A  +  every fewest-hop path A ~> B in the switch graph  +  B -> b,
 * so they depend on (A, B) only and are cached per switch pair: the first
 * query with source A runs igraph_get_all_shortest_paths from A once and
 * caches the candidates from A to every first switch (cost: O(V + E) plus
 * the size of all fewest-hop paths from A); later queries are O(1).  When
 * there are more than max_paths, spread_pick() keeps a subset that spreads
 * over the links.  In path-rich graphs (more than opts.enum_limit fewest-hop
 * paths from A, counted by one BFS first) full enumeration would take
 * seconds and gigabytes, so a pool of paths at evenly spaced ranks is drawn
 * by unranking the BFS path counts instead (fill_sample).
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

/* Choose which n of the `total` candidate paths to keep (total > n): a
 * greedy spread.  Each step keeps the path whose links are least used by the
 * paths kept so far: smallest (highest use of any of its links, total use),
 * ties to igraph's order.  In a symmetric Clos this keeps every uplink and
 * downlink equally often and no core link twice while it can, which an
 * index-based pick does not (igraph's order groups paths by later hops).
 * Cost O(n * total * hops) per switch pair.  use[] is a zeroed counter per
 * switch-graph edge, left zeroed on return. */
static void spread_pick(const igraph_vector_int_list_t *list, const GArray *idx, size_t n,
                        size_t *chosen, uint32_t *use)
{
    size_t total = idx->len;
    g_autofree bool *taken = g_new0(bool, total);
    for (size_t step = 0; step < n; step++) {
        size_t best = SIZE_MAX, best_max = SIZE_MAX, best_sum = SIZE_MAX;
        for (size_t c = 0; c < total; c++) {
            if (taken[c])
                continue;
            const igraph_vector_int_t *e =
                igraph_vector_int_list_get_ptr(list, g_array_index(idx, igraph_integer_t, c));
            size_t mx = 0, sum = 0;
            for (igraph_integer_t k = 0; k < igraph_vector_int_size(e); k++) {
                size_t u = use[VECTOR(*e)[k]];
                mx = MAX(mx, u);
                sum += u;
            }
            if (mx < best_max || (mx == best_max && sum < best_sum)) {
                best = c;
                best_max = mx;
                best_sum = sum;
                if (mx == 0)
                    break; /* all its links unused: nothing can beat it */
            }
        }
        g_assert(best != SIZE_MAX);
        taken[best] = true;
        chosen[step] = best;
        const igraph_vector_int_t *e =
            igraph_vector_int_list_get_ptr(list, g_array_index(idx, igraph_integer_t, best));
        for (igraph_integer_t k = 0; k < igraph_vector_int_size(e); k++)
            use[VECTOR(*e)[k]]++;
    }
    for (size_t step = 0; step < n; step++) {
        const igraph_vector_int_t *e =
            igraph_vector_int_list_get_ptr(list, g_array_index(idx, igraph_integer_t, chosen[step]));
        for (igraph_integer_t k = 0; k < igraph_vector_int_size(e); k++)
            use[VECTOR(*e)[k]] = 0;
    }
}

/* The pathset of one target from the paths idx (indexes into list), kept
 * to at most max_paths by spread_pick. */
static topo__pathset *pathset_from(const topo *t, const igraph_vector_int_list_t *list,
                                   const GArray *idx, uint32_t *use)
{
    topo__pathset *ps = g_new0(topo__pathset, 1);
    size_t total = idx->len;
    ps->n = MIN(total, t->opts.max_paths);
    ps->hops = (size_t)igraph_vector_int_size(
        igraph_vector_int_list_get_ptr(list, g_array_index(idx, igraph_integer_t, 0)));
    ps->links = g_new(uint32_t, ps->n * ps->hops + 1);
    g_autofree size_t *chosen = g_new(size_t, ps->n);
    if (total > ps->n)
        spread_pick(list, idx, ps->n, chosen, use);
    else
        for (size_t i = 0; i < ps->n; i++)
            chosen[i] = i;
    for (size_t i = 0; i < ps->n; i++) {
        igraph_integer_t src = g_array_index(idx, igraph_integer_t, chosen[i]);
        const igraph_vector_int_t *e = igraph_vector_int_list_get_ptr(list, src);
        g_assert((size_t)igraph_vector_int_size(e) == ps->hops);
        for (size_t k = 0; k < ps->hops; k++)
            ps->links[i * ps->hops + k] = g_array_index(t->sw_edge_link, uint32_t, VECTOR(*e)[k]);
    }
    return ps;
}

/* Hash of a cache key (sw_a << 32 | sw_b); g_int64_hash folds the halves
 * with XOR, so pairs (a, b) and (b, a) and many more would collide. */
guint topo__pair_hash(gconstpointer key)
{
    return (guint)topo_hash64((uint64_t) * (const gint64 *)key);
}

static void cache_put(topo *t, uint32_t sw_a, uint32_t sw_b, topo__pathset *ps)
{
    gint64 *k = g_new(gint64, 1);
    *k = ((gint64)sw_a << 32) | sw_b;
    g_hash_table_replace(t->path_cache, k, ps);
}

/* Enumerate with igraph: one igraph_get_all_shortest_paths search from sw_a
 * lists the fewest-hop paths to all switches at once (igraph keeps them all
 * internally whatever the target set, so one call per source instead of one
 * per pair); bucket them by target and keep a spread subset per target. */
static bool fill_enumerate(topo *t, uint32_t sw_a, GError **error)
{
    igraph_vector_int_list_t edges;
    if (!topo__igraph_error(igraph_vector_int_list_init(&edges, 0), "vector list", error))
        return false;
    igraph_error_t rc = igraph_get_all_shortest_paths(
        &t->sw_graph, NULL, &edges, NULL, t->node_to_sw[sw_a], igraph_vss_all(), IGRAPH_OUT);
    if (!topo__igraph_error(rc, "all shortest paths", error)) {
        igraph_vector_int_list_destroy(&edges);
        return false;
    }
    size_t nsw = t->sw_to_node->len;
    GArray **by_target = g_new0(GArray *, nsw);
    igraph_integer_t npaths = igraph_vector_int_list_size(&edges);
    for (igraph_integer_t i = 0; i < npaths; i++) {
        const igraph_vector_int_t *e = igraph_vector_int_list_get_ptr(&edges, i);
        igraph_integer_t len = igraph_vector_int_size(e);
        if (len == 0)
            continue; /* the empty path to sw_a itself */
        igraph_integer_t target = IGRAPH_TO(&t->sw_graph, VECTOR(*e)[len - 1]);
        uint32_t node = g_array_index(t->sw_to_node, uint32_t, target);
        if (!t->first_switch[node])
            continue;
        if (!by_target[target])
            by_target[target] = g_array_new(FALSE, FALSE, sizeof(igraph_integer_t));
        g_array_append_val(by_target[target], i);
    }
    g_autofree uint32_t *use = g_new0(uint32_t, (gsize)igraph_ecount(&t->sw_graph) + 1);
    for (size_t v = 0; v < nsw; v++) {
        if (!by_target[v])
            continue;
        cache_put(t, sw_a, g_array_index(t->sw_to_node, uint32_t, v),
                  pathset_from(t, &edges, by_target[v], use));
        g_array_free(by_target[v], TRUE);
    }
    g_free(by_target);
    igraph_vector_int_list_destroy(&edges);
    return true;
}

/* Fewest-hop structure from one source: BFS order and layers (igraph), the
 * hop distance of every vertex and its number of fewest-hop paths from the
 * source (saturating at TOPO__COUNT_MAX). */
#define TOPO__COUNT_MAX ((uint64_t)1 << 62)
typedef struct geodesics {
    igraph_vector_int_t order, layers;
    igraph_integer_t *dist; /* [vertices], -1 unreachable */
    uint64_t *count;        /* [vertices] */
    uint64_t total;         /* sum of count over reached vertices (saturating) */
} geodesics;

static void geodesics_clear(geodesics *g)
{
    igraph_vector_int_destroy(&g->order);
    igraph_vector_int_destroy(&g->layers);
    g_free(g->dist);
    g_free(g->count);
}

static bool in_edges(topo *t, GError **error)
{
    if (t->has_in_edges)
        return true;
    t->has_in_edges = topo__igraph_error(
        igraph_inclist_init(&t->sw_graph, &t->in_edges, IGRAPH_IN, IGRAPH_LOOPS_ONCE),
        "incidence list", error);
    return t->has_in_edges;
}

static bool geodesics_init(topo *t, igraph_integer_t src, geodesics *g, GError **error)
{
    igraph_integer_t nv = igraph_vcount(&t->sw_graph);
    if (!in_edges(t, error) ||
        !topo__igraph_error(igraph_vector_int_init(&g->order, 0), "vector", error))
        return false;
    if (!topo__igraph_error(igraph_vector_int_init(&g->layers, 0), "vector", error)) {
        igraph_vector_int_destroy(&g->order);
        return false;
    }
    g->dist = g_new(igraph_integer_t, (gsize)nv);
    g->count = g_new0(uint64_t, (gsize)nv);
    g->total = 0;
    if (!topo__igraph_error(igraph_bfs_simple(&t->sw_graph, src, IGRAPH_OUT, &g->order,
                                              &g->layers, NULL),
                            "BFS", error)) {
        geodesics_clear(g);
        return false;
    }
    for (igraph_integer_t v = 0; v < nv; v++)
        g->dist[v] = -1;
    igraph_integer_t nl = igraph_vector_int_size(&g->layers) - 1;
    for (igraph_integer_t l = 0; l < nl; l++)
        for (igraph_integer_t i = VECTOR(g->layers)[l]; i < VECTOR(g->layers)[l + 1]; i++)
            g->dist[VECTOR(g->order)[i]] = l;
    g->count[src] = 1;
    for (igraph_integer_t i = 1; i < igraph_vector_int_size(&g->order); i++) {
        igraph_integer_t v = VECTOR(g->order)[i];
        const igraph_vector_int_t *in = igraph_inclist_get(&t->in_edges, v);
        uint64_t c = 0;
        for (igraph_integer_t k = 0; k < igraph_vector_int_size(in); k++) {
            igraph_integer_t u = IGRAPH_FROM(&t->sw_graph, VECTOR(*in)[k]);
            if (g->dist[u] == g->dist[v] - 1)
                c = MIN(TOPO__COUNT_MAX, c + g->count[u]);
        }
        g->count[v] = c;
        g->total = MIN(TOPO__COUNT_MAX, g->total + c);
    }
    return true;
}

/* Fewest-hop path number r (0 <= r < count[target]) from the source to
 * target, as igraph edge ids in *path (cleared first): walk back from the
 * target, taking at each vertex the predecessor whose count range holds r
 * (predecessors in incidence-list order). */
static void geodesic_unrank(topo *t, const geodesics *g, igraph_integer_t target, uint64_t r,
                            igraph_vector_int_t *path)
{
    igraph_integer_t hops = g->dist[target];
    igraph_vector_int_resize(path, hops); /* cannot fail: capacity reserved */
    igraph_integer_t v = target;
    for (igraph_integer_t h = hops - 1; h >= 0; h--) {
        const igraph_vector_int_t *in = igraph_inclist_get(&t->in_edges, v);
        igraph_integer_t pick = -1;
        for (igraph_integer_t k = 0; k < igraph_vector_int_size(in); k++) {
            igraph_integer_t e = VECTOR(*in)[k], u = IGRAPH_FROM(&t->sw_graph, e);
            if (g->dist[u] != g->dist[v] - 1)
                continue;
            pick = e; /* the last one absorbs saturated counts */
            if (r < g->count[u])
                break;
            r -= g->count[u];
        }
        g_assert(pick >= 0);
        VECTOR(*path)[h] = pick;
        v = IGRAPH_FROM(&t->sw_graph, pick);
    }
}

/* Sample instead of enumerating (path-rich graphs: big tori, big
 * fat-trees): per target, a pool of at most TOPO__POOL fewest-hop paths at
 * evenly spaced ranks (all of them when there are fewer), then the same
 * spread pick.  Cost per source: one BFS plus O(targets * pool * hops). */
#define TOPO__POOL 256
static bool fill_sample(topo *t, uint32_t sw_a, const geodesics *g, GError **error)
{
    g_autofree uint32_t *use = g_new0(uint32_t, (gsize)igraph_ecount(&t->sw_graph) + 1);
    igraph_vector_int_t path;
    if (!topo__igraph_error(igraph_vector_int_init(&path, 0), "vector", error))
        return false;
    bool ok = topo__igraph_error(igraph_vector_int_reserve(&path, igraph_vector_int_size(&g->layers)),
                                 "vector", error);
    for (igraph_integer_t i = 1; ok && i < igraph_vector_int_size(&g->order); i++) {
        igraph_integer_t v = VECTOR(g->order)[i];
        uint32_t node = g_array_index(t->sw_to_node, uint32_t, v);
        if (!t->first_switch[node])
            continue;
        uint64_t total = g->count[v], pool = MIN(total, (uint64_t)TOPO__POOL);
        igraph_vector_int_list_t list;
        ok = topo__igraph_error(igraph_vector_int_list_init(&list, 0), "vector list", error);
        if (!ok)
            break;
        g_autoptr(GArray) idx = g_array_new(FALSE, FALSE, sizeof(igraph_integer_t));
        for (uint64_t j = 0; ok && j < pool; j++) {
            uint64_t r = pool == total ? j : (uint64_t)((double)j * (double)total / (double)pool);
            geodesic_unrank(t, g, v, MIN(r, total - 1), &path);
            igraph_integer_t at = igraph_vector_int_list_size(&list);
            ok = topo__igraph_error(igraph_vector_int_list_push_back_copy(&list, &path),
                                    "vector list", error);
            g_array_append_val(idx, at);
        }
        if (ok)
            cache_put(t, sw_a, node, pathset_from(t, &list, idx, use));
        igraph_vector_int_list_destroy(&list);
    }
    igraph_vector_int_destroy(&path);
    return ok;
}

/* Fill the cache for every pair (sw_a, first switch).  Count the fewest-hop
 * paths first (one BFS); igraph enumerates them when there are at most
 * opts.enum_limit from sw_a (to all switches), else they are sampled. */
static bool fill_from(topo *t, uint32_t sw_a, GError **error)
{
    geodesics g;
    if (!geodesics_init(t, t->node_to_sw[sw_a], &g, error))
        return false;
    bool ok = g.total <= t->opts.enum_limit ? fill_enumerate(t, sw_a, error)
                                            : fill_sample(t, sw_a, &g, error);
    geodesics_clear(&g);
    if (!ok)
        return false;
    /* the pair (sw_a, sw_a): NIC -> switch -> NIC */
    topo__pathset *self = g_new0(topo__pathset, 1);
    self->n = 1;
    cache_put(t, sw_a, sw_a, self);
    return true;
}

static const topo__pathset *pathset_get(topo *t, uint32_t sw_a, uint32_t sw_b, GError **error)
{
    gint64 key = ((gint64)sw_a << 32) | sw_b;
    topo__pathset *ps = g_hash_table_lookup(t->path_cache, &key);
    if (ps)
        return ps;
    topo__igraph_lock();
    bool filled = fill_from(t, sw_a, error);
    topo__igraph_unlock();
    if (!filled)
        return NULL;
    ps = g_hash_table_lookup(t->path_cache, &key);
    if (!ps) /* validation guarantees reachability between first switches */
        g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL, "no path from %s to %s",
                    g_array_index(t->nodes, topo__node, sw_a).name,
                    g_array_index(t->nodes, topo__node, sw_b).name);
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
