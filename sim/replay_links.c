/* replay_links.c - the replay's links that never bind, left out of the
 * rate solves (net_link_set_dominator, docs/engine.md section 4): a hop's
 * PCIe links, dominated by their NIC's network link for the whole run, and,
 * while a job runs, the NIC links of its whole hosts that one of its
 * uplinks dominates (coll_plan_nic_dominators: a ring in lock step crosses
 * each of its NIC links as often).  Rates are those of the full solve.
 */
#include "replay-private.h"

#include "sim/collective.h"

bool replay__set_dominators(replay *r, GError **error)
{
    g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    coll_dominated_links(r->t, pairs);
    r->pcie_by = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                       (GDestroyNotify)g_array_unref);
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
    }
    return true;
}

/* The PCIe links that link a dominates for the whole run, dominated by
 * link to instead (a itself, or a's dominator: every transfer on them is
 * on a as often, so on what dominates a). */
static bool pcie_dominated_by(replay *r, uint32_t a, uint32_t to, GError **error)
{
    const GArray *by = g_hash_table_lookup(r->pcie_by, GUINT_TO_POINTER(a + 1));
    for (guint k = 0; by && k < by->len; k++) {
        uint32_t p = g_array_index(by, uint32_t, k);
        if (!net_link_clear_dominator(r->n, p, error) || !net_link_set_dominator(r->n, p, to, error))
            return false;
    }
    return true;
}

/* Link a (not in use) dominated by b from now on, a's PCIe links too. */
static bool dominate(replay *r, uint32_t a, uint32_t b, GError **error)
{
    return pcie_dominated_by(r, a, b, error) && net_link_set_dominator(r->n, a, b, error);
}

/* Undo dominate(r, a, b): a in the solves again, its PCIe links its own. */
static bool undominate(replay *r, uint32_t a, GError **error)
{
    return net_link_clear_dominator(r->n, a, error) && pcie_dominated_by(r, a, a, error);
}

bool replay__job_links_dominate(replay *r, job *j, GError **error)
{
    g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    coll_plan_nic_dominators(j->plan, r->t, j->alloc, pairs);
    if (pairs->len == 0)
        return true;
    j->nic_dom = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (guint i = 0; i < pairs->len; i += 2) {
        uint32_t a = g_array_index(pairs, uint32_t, i), b = g_array_index(pairs, uint32_t, i + 1);
        if (!dominate(r, a, b, error))
            return false;
        g_array_append_val(j->nic_dom, a);
    }
    return true;
}

bool replay__job_links_release(replay *r, job *j, GError **error)
{
    if (!j->nic_dom)
        return true;
    bool ok = true;
    for (guint i = 0; ok && i < j->nic_dom->len; i++)
        ok = undominate(r, g_array_index(j->nic_dom, uint32_t, i), error);
    g_clear_pointer(&j->nic_dom, g_array_unref);
    return ok;
}
