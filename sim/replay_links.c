/* replay_links.c - the replay's links that never bind, left out of the
 * rate solves (net_link_set_dominator, net_link_set_twin, docs/engine.md
 * section 4): a hop's PCIe links, dominated by their NIC's network link for
 * the whole run, and, while a job runs, the links of its whole hosts
 * (coll_plan_nic_links: a ring in lock step crosses each of its NIC and
 * PCIe links once, so all but one NIC link of its rail are that one's
 * twins, and a ring inside the hosts each of their NVLinks; where
 * transfers differ, one NIC uplink may still dominate a NIC link).  Rates
 * are those of the full solve.
 */
#include "replay-private.h"

#include "sim/collective.h"

bool replay__set_dominators(replay *r, GError **error)
{
    g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    coll_dominated_links(r->t, pairs);
    r->pcie_by = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                       (GDestroyNotify)g_array_unref);
    r->pcie_nic = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = 0; i < pairs->len; i += 2) {
        uint32_t a = g_array_index(pairs, uint32_t, i), b = g_array_index(pairs, uint32_t, i + 1);
        if (!net_link_set_dominator(r->n, a, b, error))
            return false;
        GArray *by = g_hash_table_lookup(r->pcie_by, GUINT_TO_POINTER(b + 1));
        if (!by) {
            by = g_array_new(FALSE, FALSE, sizeof(uint32_t));
            g_hash_table_insert(r->pcie_by, GUINT_TO_POINTER(b + 1), by);
        }
        g_array_append_val(by, a);
        g_hash_table_insert(r->pcie_nic, GUINT_TO_POINTER(a + 1), GUINT_TO_POINTER(b + 1));
    }
    return true;
}

/* The job's declarations: (link, its twin) and (link, its dominator) from
 * the plan, and for each NIC link among them its whole-run PCIe links that
 * are no twins, dominated by where that NIC link's transfers are solved
 * (every transfer on them is on the NIC link as often, so on its twin or
 * dominator). */
typedef struct job_links {
    GArray *twins, *dom; /* uint32_t pairs */
    GHashTable *to;      /* link + 1 -> its twin or dominator + 1 */
} job_links;

static void pcie_moves(replay *r, job_links *jl)
{
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, jl->to);
    g_autoptr(GArray) moves = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    while (g_hash_table_iter_next(&it, &k, &v)) {
        const GArray *by = g_hash_table_lookup(r->pcie_by, k);
        for (guint i = 0; by && i < by->len; i++) {
            uint32_t p = g_array_index(by, uint32_t, i);
            if (!g_hash_table_contains(jl->to, GUINT_TO_POINTER(p + 1))) {
                uint32_t pair[2] = {p, GPOINTER_TO_UINT(v) - 1};
                g_array_append_vals(moves, pair, 2);
            }
        }
    }
    g_array_append_vals(jl->dom, moves->data, moves->len);
}

/* Take back the whole-run dominators of the PCIe links among pairs' links
 * (a NIC link that still dominates some could not be declared). */
static bool pcie_release(replay *r, const GArray *pairs, GError **error)
{
    for (guint i = 0; i < pairs->len; i += 2) {
        uint32_t a = g_array_index(pairs, uint32_t, i);
        if (g_hash_table_contains(r->pcie_nic, GUINT_TO_POINTER(a + 1)) &&
            !net_link_clear_dominator(r->n, a, error))
            return false;
    }
    return true;
}

static bool declare(replay *r, job *j, const GArray *pairs, bool twin, GError **error)
{
    for (guint i = 0; i < pairs->len; i += 2) {
        uint32_t a = g_array_index(pairs, uint32_t, i), b = g_array_index(pairs, uint32_t, i + 1);
        if (!(twin ? net_link_set_twin : net_link_set_dominator)(r->n, a, b, error))
            return false;
        g_array_append_val(j->nic_dom, a);
    }
    return true;
}

bool replay__job_links_dominate(replay *r, job *j, GError **error)
{
    job_links jl = {g_array_new(FALSE, FALSE, sizeof(uint32_t)),
                    g_array_new(FALSE, FALSE, sizeof(uint32_t)),
                    g_hash_table_new(g_direct_hash, g_direct_equal)};
    coll_plan_nic_links(j->plan, r->t, j->alloc, jl.twins, jl.dom);
    for (int w = 0; w < 2; w++) {
        const GArray *pairs = w ? jl.dom : jl.twins;
        for (guint i = 0; i < pairs->len; i += 2)
            g_hash_table_insert(jl.to, GUINT_TO_POINTER(g_array_index(pairs, uint32_t, i) + 1),
                                GUINT_TO_POINTER(g_array_index(pairs, uint32_t, i + 1) + 1));
    }
    pcie_moves(r, &jl);
    bool ok = true;
    if (jl.twins->len + jl.dom->len > 0) {
        j->nic_dom = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        ok = pcie_release(r, jl.twins, error) && pcie_release(r, jl.dom, error) &&
             declare(r, j, jl.dom, false, error) && declare(r, j, jl.twins, true, error);
    }
    if (ok && jl.twins->len > 0) { /* its transfers name them no more */
        g_autoptr(GArray) tw = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        for (guint i = 0; i < jl.twins->len; i += 2)
            g_array_append_val(tw, g_array_index(jl.twins, uint32_t, i));
        coll_plan_set_twins(j->plan, (const uint32_t *)(void *)tw->data, tw->len);
    }
    g_array_unref(jl.twins);
    g_array_unref(jl.dom);
    g_hash_table_destroy(jl.to);
    return ok;
}

bool replay__job_links_release(replay *r, job *j, GError **error)
{
    if (!j->nic_dom)
        return true;
    const GArray *d = j->nic_dom;
    if (j->plan)
        coll_plan_set_twins(j->plan, NULL, 0);
    bool ok = true;
    for (guint i = 0; ok && i < d->len; i++)
        ok = net_link_clear_dominator(r->n, g_array_index(d, uint32_t, i), error);
    for (guint i = 0; ok && i < d->len; i++) { /* the PCIe links back to their NICs */
        uint32_t a = g_array_index(d, uint32_t, i);
        gpointer b = g_hash_table_lookup(r->pcie_nic, GUINT_TO_POINTER(a + 1));
        ok = !b || net_link_set_dominator(r->n, a, GPOINTER_TO_UINT(b) - 1, error);
    }
    g_clear_pointer(&j->nic_dom, g_array_unref);
    return ok;
}
