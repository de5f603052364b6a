/* net.c - the network's public API (net.h): links, transfers, checks, queries.
 * Not here: bookkeeping and events (net_state.c), solver (net_solve.c).
 */
#include "net.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "net-private.h"

net_options net_options_default(void)
{
    return (net_options){.prio_levels = NET_DEFAULT_PRIO_LEVELS, .rel_eps = NET_DEFAULT_REL_EPS};
}

net *net_new(const net_options *opts, evq *q, GError **error)
{
    g_return_val_if_fail(q != NULL, NULL);
    net_options o = opts ? *opts : net_options_default();
    if (o.prio_levels < 1 || o.prio_levels > NET_MAX_PRIO_LEVELS) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "net: prio_levels must be in 1..%d, got %d", NET_MAX_PRIO_LEVELS,
                    o.prio_levels);
        return NULL;
    }
    if (!(o.rel_eps > 0 && o.rel_eps <= 1e-3)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "net: rel_eps must be in (0, 1e-3], got %g", o.rel_eps);
        return NULL;
    }
    net *n = g_new0(net, 1);
    n->opts = o;
    n->K = o.prio_levels;
    n->q = q;
    n->free_xf = NET__NO_POS;
    n->moved = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    n->moved_out = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    return n;
}

void net_free(net *n)
{
    if (n == NULL)
        return;
    for (size_t s = 0; s < n->n_xf; s++) {
        if (n->xf[s].state != NET__FREE)
            evq_cancel(n->q, n->xf[s].ev);
        g_free(n->xf[s].tl); /* and its eager bits: one block (free slots keep theirs) */
    }
    evq_cancel(n->q, n->solve_ev);
    for (size_t e = 0; e < n->n_links; e++) {
        g_free(n->links[e].users);
        if (n->dom) {
            g_free(n->dom[e].u);
            g_free(n->dom[e].tw);
        }
    }
    g_free(n->dom);
    g_free(n->dom_bits);
    g_free(n->tw_bits);
    g_aligned_free(n->links);
    g_aligned_free(n->lvl);
    g_free(n->lbase);
    g_array_free(n->moved, TRUE);
    g_array_free(n->moved_out, TRUE);
    g_free(n->touched);
    g_free(n->xf);
    g_free(n->dirty);
    g_free(n->comp_t);
    g_free(n->comp_l);
    g_free(n->s_R);
    g_free(n->s_W);
    g_free(n->s_out);
    g_free(n->s_nunf);
    g_free(n->s_heap);
    g_free(n->s_el);
    g_free(n->new_tl);
    g_free(n);
}

evq *net_evq(const net *n)
{
    g_return_val_if_fail(n != NULL, NULL);
    return n->q;
}

int net_prio_levels(const net *n)
{
    g_return_val_if_fail(n != NULL, 0);
    return n->K;
}

void net_flush(net *n)
{
    g_return_if_fail(n != NULL);
    if (n->dirty_any == 0)
        return;
    evq_cancel(n->q, n->solve_ev);
    n->solve_ev = EVQ_ID_NONE;
    net__solve(n);
}

void net_set_rate_observer(net *n, net_rate_fn fn, void *obs)
{
    g_return_if_fail(n != NULL);
    n->rate_obs = fn;
    n->rate_obs_user = obs;
}

void net_set_delay_observer(net *n, net_delay_fn fn, void *obs)
{
    g_return_if_fail(n != NULL);
    n->delay_obs = fn;
    n->delay_obs_user = obs;
}

size_t net_transfer_links(const net *n, net_transfer_id id, net_link_id *out, size_t cap)
{
    uint32_t s = net__lookup(n, id);
    if (s == NET__NO_POS)
        return 0;
    const net__xfer *t = &n->xf[s];
    size_t all = t->n_tl + t->n_dl;
    for (uint32_t k = 0; k < all && k < cap; k++)
        out[k] = t->tl[k].link;
    for (uint32_t k = 0; n->dom && k < t->n_tl; k++) { /* then the twins of its links */
        const net__dom *d = &n->dom[t->tl[k].link];
        for (uint32_t i = 0; i < d->n_tw; i++, all++)
            if (all < cap)
                out[all] = d->tw[i];
    }
    return all;
}

void net_resolve_all(net *n)
{
    g_return_if_fail(n != NULL);
    /* every moving transfer joins the solve of its level; no link is
     * marked: loads change only where a rate does */
    for (uint32_t s = 0; s < n->n_xf; s++)
        if (n->xf[s].state == NET__MOVING)
            net__list_touched(n, s);
    n->all_touched = true;
    net_flush(n);
    n->all_touched = false; /* (the flush solves nothing when nothing moves) */
}

/* ---- links ---- */

/* An array of count elements of size bytes, 64-byte aligned (cache lines),
 * holding the first used elements of old (freed). */
static void *renew_aligned(void *old, size_t used, size_t count, size_t size)
{
    void *p = g_aligned_alloc(count, size, 64);
    if (used > 0)
        memcpy(p, old, used * size);
    g_aligned_free(old);
    return p;
}

/* A bit array for links 0 .. old_cap - 1 grown to new_cap, the new bits 0. */
static uint64_t *grow_bits(uint64_t *bits, size_t old_cap, size_t new_cap)
{
    size_t old_w = (old_cap + 63) / 64, new_w = (new_cap + 63) / 64;
    bits = g_renew(uint64_t, bits, new_w);
    memset(bits + old_w, 0, (new_w - old_w) * sizeof *bits);
    return bits;
}

bool net_link_add(net *n, double cap_Bps, double latency_s, net_link_id *id, GError **error)
{
    g_return_val_if_fail(n != NULL, false);
    if (!ccs_positive_finite(cap_Bps)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "link capacity must be finite and > 0 B/s, got %g", cap_Bps);
        return false;
    }
    if (!(isfinite(latency_s) && latency_s >= 0)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "link latency must be finite and >= 0 s, got %g", latency_s);
        return false;
    }
    if (n->n_links >= UINT32_MAX - 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "too many links");
        return false;
    }
    if (n->n_links == n->cap_links) {
        size_t cap = n->cap_links ? 2 * n->cap_links : 64;
        n->links = renew_aligned(n->links, n->n_links, cap, sizeof(net__link));
        n->lvl = renew_aligned(n->lvl, n->n_links * (size_t)n->K, cap * (size_t)n->K,
                               sizeof(net__lvl));
        n->lbase = g_renew(net__lbase, n->lbase, cap);
        if (n->dom) {
            n->dom = g_renew(net__dom, n->dom, cap);
            memset(n->dom + n->cap_links, 0, (cap - n->cap_links) * sizeof *n->dom);
            n->dom_bits = grow_bits(n->dom_bits, n->cap_links, cap);
            n->tw_bits = grow_bits(n->tw_bits, n->cap_links, cap);
        }
        n->cap_links = cap;
    }
    uint32_t e = (uint32_t)n->n_links++;
    net__link *l = &n->links[e];
    memset(l, 0, sizeof *l);
    l->cap_Bps = cap_Bps;
    l->lat_s = latency_s;
    l->present = true;
    l->last_s = evq_now(n->q);
    for (int L = 0; L < n->K; L++)
        n->lvl[(size_t)e * n->K + L] = (net__lvl){.res = cap_Bps};
    n->stats.links++;
    if (id)
        *id = e;
    return true;
}

/* Transfers (waiting or moving) that name link e (a twin's: its twin's). */
static uint32_t link_refs(const net *n, uint32_t e)
{
    if (!net__dominated(n, e))
        return n->links[e].refs;
    const net__dom *d = &n->dom[e];
    return d->twin ? n->links[d->by - 1].refs : d->refs;
}

static bool check_link(const net *n, net_link_id id, GError **error)
{
    if (id >= n->n_links) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "link %" G_GUINT32_FORMAT " does not exist (%zu links)", id, n->n_links);
        return false;
    }
    /* (read a link's record only if some link was removed: a transfer start
     * checks each of its links, and a dominated link's record is read for
     * nothing else) */
    if (n->stats.links < n->n_links && !n->links[id].present) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "link %" G_GUINT32_FORMAT " was removed", id);
        return false;
    }
    return true;
}

bool net_link_remove(net *n, net_link_id id, GError **error)
{
    g_return_val_if_fail(n != NULL, false);
    if (!check_link(n, id, error))
        return false;
    net__link *l = &n->links[id];
    uint32_t refs = link_refs(n, id);
    if (refs > 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "link %" G_GUINT32_FORMAT " is used by %" G_GUINT32_FORMAT
                    " transfer(s) and cannot be removed",
                    id, refs);
        return false;
    }
    net_flush(n); /* its last loads drop to 0 at this instant */
    net__link_advance(l, evq_now(n->q));
    l->present = false;
    n->stats.links--;
    return true;
}

/* Why link a cannot be declared dominated by link b (twin: b's twin), or
 * NULL if it can. */
static const char *dom_refused(const net *n, uint32_t a, uint32_t b, bool twin)
{
    const net__dom *da = &n->dom[a];
    if (a == b)
        return "a link cannot dominate itself";
    if (n->links[a].cap_Bps < n->links[b].cap_Bps)
        return "its capacity is below its dominator's";
    if (link_refs(n, a) > 0)
        return "a transfer uses it";
    if (twin && n->links[b].refs > 0)
        return "a transfer uses its twin";
    if (da->by != 0)
        return "it has another dominator";
    if (da->dominates || n->dom[b].by != 0)
        return "dominators do not chain";
    return NULL;
}

/* Declare a dominated by b, or b's twin: its counters so far move to where
 * a dominated link keeps them (and its place on net.moved, if it has one). */
static bool dom_declare(net *n, uint32_t a, uint32_t b, bool twin, GError **error)
{
    if (!check_link(n, a, error) || !check_link(n, b, error))
        return false;
    if (n->dom == NULL) {
        n->dom = g_new0(net__dom, n->cap_links);
        n->dom_bits = g_new0(uint64_t, (n->cap_links + 63) / 64);
        n->tw_bits = g_new0(uint64_t, (n->cap_links + 63) / 64);
    }
    net__dom *da = &n->dom[a], *db = &n->dom[b];
    if (da->by == b + 1 && da->twin == twin)
        return true; /* said before */
    const char *why = dom_refused(n, a, b, twin);
    if (why) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "link %" G_GUINT32_FORMAT " %s link %" G_GUINT32_FORMAT ": %s", a,
                    twin ? "declared the twin of" : "dominated by", b, why);
        return false;
    }
    net_flush(n);
    net__link *la = &n->links[a];
    net__link_advance(la, evq_now(n->q));
    da->carried_bytes = la->carried_bytes;
    da->busy_s = la->busy_s;
    da->tagged_bytes = la->tagged_bytes;
    da->busy_since = 0;
    da->listed = la->moved_listed;
    la->moved_listed = false;
    da->by = b + 1;
    da->twin = twin;
    db->dominates++;
    n->dom_bits[a / 64] |= (uint64_t)1 << (a % 64);
    if (twin) {
        if (db->n_tw == 0) /* what a delay adds to b from now on */
            db->added = (net_link_stats){0};
        net_link_stats sb;
        net_link_stats_get(n, b, &sb, NULL);
        da->at_set = (net_link_stats){sb.carried_bytes - db->added.carried_bytes,
                                      sb.busy_s - db->added.busy_s,
                                      sb.tagged_bytes - db->added.tagged_bytes, 0};
        if (db->n_tw == db->cap_tw) {
            db->cap_tw = db->cap_tw ? 2 * db->cap_tw : 4;
            db->tw = g_renew(uint32_t, db->tw, db->cap_tw);
        }
        db->tw[db->n_tw++] = a;
        n->tw_bits[b / 64] |= (uint64_t)1 << (b % 64);
    }
    return true;
}

bool net_link_set_dominator(net *n, net_link_id a, net_link_id b, GError **error)
{
    g_return_val_if_fail(n != NULL, false);
    return dom_declare(n, a, b, false, error);
}

bool net_link_set_twin(net *n, net_link_id a, net_link_id b, GError **error)
{
    g_return_val_if_fail(n != NULL, false);
    return dom_declare(n, a, b, true, error);
}

/* Twin a leaves its twin's list. */
static void twin_leave(net *n, uint32_t a)
{
    uint32_t b = n->dom[a].by - 1;
    net__dom *db = &n->dom[b];
    for (uint32_t i = 0; i < db->n_tw; i++)
        if (db->tw[i] == a) {
            db->tw[i] = db->tw[--db->n_tw];
            break;
        }
    if (db->n_tw == 0)
        n->tw_bits[b / 64] &= ~((uint64_t)1 << (b % 64));
}

bool net_link_clear_dominator(net *n, net_link_id a, GError **error)
{
    g_return_val_if_fail(n != NULL, false);
    if (!check_link(n, a, error))
        return false;
    const char *why = NULL;
    if (!net__dominated(n, a))
        why = "it is not dominated";
    else if (link_refs(n, a) > 0)
        why = "a transfer uses it";
    if (why) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "link %" G_GUINT32_FORMAT ": cannot take back its dominator: %s", a, why);
        return false;
    }
    net_flush(n);
    net__dom *da = &n->dom[a];
    net__link *la = &n->links[a];
    /* no user: nothing moves on it, its busy clock is stopped */
    net_link_stats st;
    net_link_stats_get(n, a, &st, NULL);
    la->carried_bytes = st.carried_bytes;
    la->busy_s = st.busy_s;
    la->tagged_bytes = st.tagged_bytes;
    la->last_s = evq_now(n->q);
    la->moved_listed = da->listed;
    da->listed = false;
    if (da->twin) { /* what it carried since the last net_links_moved() is its twin's */
        twin_leave(n, a);
        if (!la->moved_listed) {
            la->moved_listed = true;
            g_array_append_val(n->moved, a);
        }
    }
    n->dom[da->by - 1].dominates--;
    da->by = 0;
    da->twin = false;
    n->dom_bits[a / 64] &= ~((uint64_t)1 << (a % 64));
    return true;
}

size_t net_link_count(const net *n)
{
    g_return_val_if_fail(n != NULL, 0);
    return n->n_links;
}

bool net_link_exists(const net *n, net_link_id id)
{
    g_return_val_if_fail(n != NULL, false);
    return id < n->n_links && n->links[id].present;
}

double net_link_capacity_Bps(const net *n, net_link_id id)
{
    g_return_val_if_fail(n != NULL, NAN);
    return net_link_exists(n, id) ? n->links[id].cap_Bps : NAN;
}

double net_link_latency_s(const net *n, net_link_id id)
{
    g_return_val_if_fail(n != NULL, NAN);
    return net_link_exists(n, id) ? n->links[id].lat_s : NAN;
}

double net_path_latency_s(const net *n, const net_link_id *links, size_t n_links)
{
    g_return_val_if_fail(n != NULL, NAN);
    g_return_val_if_fail(links != NULL || n_links == 0, NAN);
    double sum = 0;
    for (size_t i = 0; i < n_links; i++)
        sum += net_link_latency_s(n, links[i]);
    return sum;
}

bool net_link_stats_get(net *n, net_link_id id, net_link_stats *out, GError **error)
{
    g_return_val_if_fail(n != NULL && out != NULL, false);
    if (id >= n->n_links) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "link %" G_GUINT32_FORMAT " does not exist (%zu links)", id, n->n_links);
        return false;
    }
    net_flush(n);
    if (net__dominated(n, id) && n->dom[id].twin) {
        net_link_stats by;
        net_link_stats_get(n, n->dom[id].by - 1, &by, NULL);
        net__twin_stats(n, id, &by, out);
        return true;
    }
    if (net__dominated(n, id)) {
        net__dom_stats(n, id, evq_now(n->q), out);
        return true;
    }
    net__link *l = &n->links[id];
    if (l->lazy)
        net__link_sync(n, id);
    if (l->present)
        net__link_advance(l, evq_now(n->q));
    *out = (net_link_stats){.carried_bytes = l->carried_bytes,
                            .busy_s = l->busy_s,
                            .tagged_bytes = l->tagged_bytes,
                            .load_Bps = l->load_Bps};
    return true;
}

bool net_link_stats_peek(const net *n, net_link_id id, net_link_stats *out)
{
    g_return_val_if_fail(n != NULL && out != NULL, false);
    if (id >= n->n_links)
        return false;
    if (net__dominated(n, id) && n->dom[id].twin) {
        net_link_stats by;
        net_link_stats_peek(n, n->dom[id].by - 1, &by);
        net__twin_stats(n, id, &by, out);
        return true;
    }
    if (net__dominated(n, id)) {
        net__dom_stats(n, id, evq_now(n->q), out);
        return true;
    }
    const net__link *l = &n->links[id];
    if (l->lazy) { /* its counters from its user's integrals */
        const net__user us = l->users[0];
        const net__xfer *t = &n->xf[us.t];
        double now = evq_now(n->q);
        double bytes = us.mult * (net__xfer_moved_at(t, now) - n->lbase[id].moved);
        *out = (net_link_stats){.carried_bytes = l->carried_bytes + bytes,
                                .busy_s = l->busy_s + net__xfer_busy_at(t, now) - n->lbase[id].busy,
                                .tagged_bytes = l->tagged_bytes + bytes * t->tag,
                                .load_Bps = us.mult * t->rate_Bps};
        return true;
    }
    double dt = l->present ? evq_now(n->q) - l->last_s : 0;
    if (!(dt > 0))
        dt = 0;
    *out = (net_link_stats){.carried_bytes = l->carried_bytes + l->load_Bps * dt,
                            .busy_s = l->busy_s + (l->load_Bps > 0 ? dt : 0),
                            .tagged_bytes = l->tagged_bytes + l->tag_Bps * dt,
                            .load_Bps = l->load_Bps};
    return true;
}

bool net_link_in_use(const net *n, net_link_id id)
{
    g_return_val_if_fail(n != NULL, false);
    if (id >= n->n_links)
        return false;
    return link_refs(n, id) > 0;
}

static gint cmp_u32(gconstpointer a, gconstpointer b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Add to the sorted link ids in ids the twins of those that have some
 * (they carry what their twins carry), keeping it sorted, each once. */
static void append_twins(const net *n, GArray *ids)
{
    guint len = ids->len;
    for (guint i = 0; i < len; i++) {
        uint32_t e = g_array_index(ids, uint32_t, i);
        if (net__has_twins(n, e))
            g_array_append_vals(ids, n->dom[e].tw, n->dom[e].n_tw);
    }
    if (ids->len == len)
        return;
    g_array_sort(ids, cmp_u32);
    guint keep = 0;
    for (guint i = 0; i < ids->len; i++)
        if (keep == 0 || g_array_index(ids, uint32_t, i) != g_array_index(ids, uint32_t, keep - 1))
            g_array_index(ids, uint32_t, keep++) = g_array_index(ids, uint32_t, i);
    g_array_set_size(ids, keep);
}

const uint32_t *net_links_moved(net *n, size_t *count)
{
    g_return_val_if_fail(n != NULL && count != NULL, NULL);
    net_flush(n);
    net__sync_all_lazy(n); /* lazy links list themselves if they carried load */
    g_array_sort(n->moved, cmp_u32);
    g_array_set_size(n->moved_out, 0);
    g_array_append_vals(n->moved_out, n->moved->data, n->moved->len);
    append_twins(n, n->moved_out);
    /* the set restarts from the links that carry load now */
    guint keep = 0;
    for (guint i = 0; i < n->moved->len; i++) {
        uint32_t e = g_array_index(n->moved, uint32_t, i);
        bool dom = net__dominated(n, e);
        if (dom ? n->dom[e].n > 0 : n->links[e].load_Bps > 0)
            g_array_index(n->moved, uint32_t, keep++) = e;
        else if (dom)
            n->dom[e].listed = false;
        else
            n->links[e].moved_listed = false;
    }
    g_array_set_size(n->moved, keep);
    *count = n->moved_out->len;
    return (const uint32_t *)n->moved_out->data;
}

void net_stats_get(const net *n, net_stats *out)
{
    g_return_if_fail(n != NULL && out != NULL);
    *out = n->stats;
    out->mean_component_size =
        n->stats.solves ? (double)n->stats.resolved_transfers / (double)n->stats.solves : 0.0;
}

/* ---- transfers ---- */

static bool lookup_active(const net *n, net_transfer_id id, uint32_t *slot, GError **error)
{
    *slot = net__lookup(n, id);
    if (*slot == NET__NO_POS) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "transfer %#" G_GINT64_MODIFIER "x is not active "
                    "(finished, cancelled or never started)",
                    (guint64)id);
        return false;
    }
    return true;
}

static bool check_prio(const net *n, int prio, GError **error)
{
    if (prio < 0 || prio >= n->K) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "transfer priority must be in 0..%d, got %d", n->K - 1, prio);
        return false;
    }
    return true;
}

static bool check_weight(double w, GError **error)
{
    if (!ccs_positive_finite(w)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "transfer weight must be finite and > 0, got %g", w);
        return false;
    }
    return true;
}

static bool check_spec(const net *n, const net_transfer_spec *sp, GError **error)
{
    if (!ccs_positive_finite(sp->size_bytes)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "transfer size must be finite and > 0 bytes, got %g", sp->size_bytes);
        return false;
    }
    if (sp->n_links == 0 || sp->links == NULL) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "transfer over no links");
        return false;
    }
    if (sp->n_links >= UINT32_MAX) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "transfer over too many links");
        return false;
    }
    for (size_t i = 0; i < sp->n_links; i++) {
        if (!check_link(n, sp->links[i], error)) {
            g_prefix_error(error, "transfer link %zu: ", i);
            return false;
        }
        if (sp->mult && sp->mult[i] == 0) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "transfer link %zu: multiplicity must be >= 1, got 0", i);
            return false;
        }
    }
    if (!check_prio(n, sp->prio, error) || !check_weight(sp->weight, error))
        return false;
    if (!(isfinite(sp->startup_s) && sp->startup_s >= 0)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "transfer startup must be finite and >= 0 s, got %g", sp->startup_s);
        return false;
    }
    if (!isfinite(sp->tag)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "transfer tag must be finite, got %g",
                    sp->tag);
        return false;
    }
    return true;
}

/* Copy a new transfer's n_tl + n_dl links into its slot's block: tl[cap_tl],
 * then the eager bits (8-byte aligned), all set.  The block is the one the
 * slot's earlier transfers used if it holds them all (one allocation per
 * slot, not per transfer: a replay starts millions). */
static void xfer_links_set(net__xfer *t, const net__tlink *tl, uint32_t n_tl, uint32_t n_dl)
{
    uint32_t all = n_tl + n_dl;
    if (t->tl == NULL || all > t->cap_tl) {
        g_free(t->tl);
        t->cap_tl = MAX(all, 1);
        size_t tl_bytes = ((size_t)t->cap_tl * sizeof(net__tlink) + 7) / 8 * 8;
        size_t words = ((size_t)t->cap_tl + 63) / 64;
        t->tl = g_malloc(tl_bytes + words * sizeof(uint64_t));
        t->eager = (uint64_t *)(void *)((char *)t->tl + tl_bytes);
    }
    if (all > 0)
        memcpy(t->tl, tl, (size_t)all * sizeof(net__tlink));
    t->n_tl = n_tl;
    t->n_dl = n_dl;
    /* every link eager (whole words at once: a bit at a time was 2% of a
     * structured replay) */
    for (uint32_t w = 0; w < n_tl / 64; w++)
        t->eager[w] = ~(uint64_t)0;
    if (n_tl % 64)
        t->eager[n_tl / 64] = ((uint64_t)1 << (n_tl % 64)) - 1;
}

/* Each of the *n_dl dominated links dl[] must have its dominator among the
 * transfer's other links tl[] (marked with epoch ep) at least as often
 * (net_link_set_dominator), a twin its twin exactly as often
 * (net_link_set_twin).  The twins then leave dl[]: their twins carry them. */
static bool dominators_present(const net *n, const net__tlink *tl, net__tlink *dl,
                               uint32_t *n_dl, uint32_t ep, GError **error)
{
    uint32_t keep = 0;
    for (uint32_t k = 0; k < *n_dl; k++) {
        const net__dom *d = &n->dom[dl[k].link];
        uint32_t by = d->by - 1;
        const net__link *b = &n->links[by];
        if (b->mark != ep ||
            (d->twin ? tl[b->sidx].mult != dl[k].mult : tl[b->sidx].mult < dl[k].mult)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "transfer link %" G_GUINT32_FORMAT ": its %s, link %" G_GUINT32_FORMAT
                        ", is not on the transfer as often",
                        dl[k].link, d->twin ? "twin" : "dominator", by);
            return false;
        }
        if (!d->twin)
            dl[keep++] = dl[k];
    }
    *n_dl = keep;
    return true;
}

bool net_transfer_start(net *n, const net_transfer_spec *spec, net_transfer_id *id,
                        GError **error)
{
    g_return_val_if_fail(n != NULL && spec != NULL, false);
    if (!check_spec(n, spec, error))
        return false;

    /* Merge repeated links (a link listed twice adds its multiplicities),
     * in net.new_tl first: the slot is taken only once the spec is good.
     * The dominated links go to its second half (their marks are in
     * net.dom: their own entries are not read), then behind the others. */
    if (2 * spec->n_links > n->cap_new_tl) {
        n->cap_new_tl = MAX(2 * spec->n_links, 2 * n->cap_new_tl);
        n->new_tl = g_renew(net__tlink, n->new_tl, n->cap_new_tl);
    }
    net__tlink *tl = n->new_tl, *dl = n->new_tl + spec->n_links;
    uint32_t n_tl = 0, n_dl = 0;
    uint32_t ep = net__new_epoch(n);
    for (size_t i = 0; i < spec->n_links; i++) {
        uint32_t e = spec->links[i];
        bool dom = net__dominated(n, e);
        uint32_t *mark = dom ? &n->dom[e].mark : &n->links[e].mark;
        uint32_t *sidx = dom ? &n->dom[e].sidx : &n->links[e].sidx;
        net__tlink *list = dom ? dl : tl;
        uint32_t *count = dom ? &n_dl : &n_tl;
        uint64_t m = spec->mult ? spec->mult[i] : 1;
        if (*mark == ep) {
            m += list[*sidx].mult;
            if (m > UINT32_MAX) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "transfer link %zu: multiplicity overflows", i);
                return false;
            }
            list[*sidx].mult = (uint32_t)m;
        } else {
            *mark = ep;
            *sidx = *count;
            list[(*count)++] = (net__tlink){e, (uint32_t)m, NET__NO_POS, false, false};
        }
    }
    if (n_dl > 0) {
        if (!dominators_present(n, tl, dl, &n_dl, ep, error))
            return false;
        memcpy(tl + n_tl, dl, n_dl * sizeof *tl); /* n_tl + n_dl <= n_links */
    }

    uint32_t s = net__xfer_alloc(n);
    net__xfer *t = &n->xf[s];
    t->state = NET__WAITING;
    t->frozen = false;
    t->prio = spec->prio;
    t->weight = spec->weight;
    t->size_bytes = spec->size_bytes;
    t->rem_bytes = spec->size_bytes;
    t->last_s = evq_now(n->q);
    t->rate_Bps = 0;
    t->moved = 0;
    t->busy = 0;
    t->new_rate = 0;
    t->tag = spec->tag;
    xfer_links_set(t, tl, n_tl, n_dl);
    t->n_lazy = 0;
    t->on_done = spec->on_done;
    t->user = spec->user;
    t->arg = spec->arg;
    t->ev = EVQ_ID_NONE;
    for (uint32_t k = 0; k < n_tl; k++)
        n->links[tl[k].link].refs++;
    for (uint32_t k = n_tl; k < n_tl + n_dl; k++)
        n->dom[tl[k].link].refs++;
    n->stats.transfers_started++;
    n->stats.active_transfers++;
    net_transfer_id tid = net__xfer_id(n, s);
    if (spec->startup_s > 0)
        t->ev = evq_push(n->q, evq_now(n->q) + spec->startup_s, net__startup_event, n, tid);
    else
        net__xfer_activate(n, s);
    if (id)
        *id = tid;
    return true;
}

bool net_transfer_cancel(net *n, net_transfer_id id, GError **error)
{
    g_return_val_if_fail(n != NULL, false);
    uint32_t s;
    if (!lookup_active(n, id, &s, error))
        return false;
    net__xfer *t = &n->xf[s];
    evq_cancel(n->q, t->ev);
    if (t->state == NET__MOVING)
        net__xfer_deactivate(n, s);
    else
        net__xfer_release_refs(n, s);
    n->stats.transfers_cancelled++;
    n->stats.active_transfers--;
    net__xfer_release(n, s);
    return true;
}

bool net_transfer_set_priority(net *n, net_transfer_id id, int prio, GError **error)
{
    g_return_val_if_fail(n != NULL, false);
    uint32_t s;
    if (!lookup_active(n, id, &s, error) || !check_prio(n, prio, error))
        return false;
    net__xfer *t = &n->xf[s];
    if (t->prio == prio)
        return true;
    int old = t->prio;
    if (t->state == NET__MOVING) /* lazy links' level loads are kept at the old level */
        for (uint32_t k = 0; k < t->n_tl; k++)
            if (t->tl[k].lazy)
                net__link_sync(n, t->tl[k].link);
    t->prio = prio;
    if (t->state == NET__MOVING) {
        for (uint32_t k = 0; k < t->n_tl; k++) {
            n->links[t->tl[k].link].users[t->tl[k].pos].prio = prio;
            net__count_user(n, t->tl[k].link, old, -1);
            net__count_user(n, t->tl[k].link, prio, +1);
        }
        net__touch(n, s, old); /* its old level loses a user, */
        net__touch(n, s, prio); /* its new level gains one */
    }
    return true;
}

bool net_transfer_set_weight(net *n, net_transfer_id id, double weight, GError **error)
{
    g_return_val_if_fail(n != NULL, false);
    uint32_t s;
    if (!lookup_active(n, id, &s, error) || !check_weight(weight, error))
        return false;
    net__xfer *t = &n->xf[s];
    if (t->weight == weight)
        return true;
    t->weight = weight;
    t->pb_stale = true; /* its private bound divides by the weight */
    if (t->state == NET__MOVING)
        net__touch(n, s, t->prio);
    return true;
}

bool net_transfer_is_active(const net *n, net_transfer_id id)
{
    g_return_val_if_fail(n != NULL, false);
    return net__lookup(n, id) != NET__NO_POS;
}

double net_transfer_rate_Bps(net *n, net_transfer_id id)
{
    g_return_val_if_fail(n != NULL, 0);
    uint32_t s = net__lookup(n, id);
    if (s == NET__NO_POS)
        return 0;
    net_flush(n);
    return n->xf[s].rate_Bps;
}

double net_transfer_remaining_bytes(net *n, net_transfer_id id)
{
    g_return_val_if_fail(n != NULL, 0);
    uint32_t s = net__lookup(n, id);
    if (s == NET__NO_POS)
        return 0;
    net_flush(n);
    const net__xfer *t = &n->xf[s];
    double rem = t->rem_bytes - t->rate_Bps * (evq_now(n->q) - t->last_s);
    return rem > 0 ? rem : 0;
}

bool net_transfer_peek(const net *n, net_transfer_id id, net_transfer_view *out)
{
    g_return_val_if_fail(n != NULL && out != NULL, false);
    uint32_t s = net__lookup(n, id);
    if (s == NET__NO_POS)
        return false;
    const net__xfer *t = &n->xf[s];
    double now = evq_now(n->q), rem = t->rem_bytes;
    if (now > t->last_s && t->rate_Bps > 0)
        rem = fmax(0.0, rem - t->rate_Bps * (now - t->last_s));
    double ev = evq_time(n->q, t->ev);
    *out = (net_transfer_view){.moving = t->state == NET__MOVING,
                               .prio = t->prio,
                               .size_bytes = t->size_bytes,
                               .rem_bytes = rem,
                               .rate_Bps = t->rate_Bps,
                               .event_s = isnan(ev) ? INFINITY : ev,
                               .tag = t->tag};
    return true;
}

uint64_t net_transfer_arg(const net *n, net_transfer_id id)
{
    g_return_val_if_fail(n != NULL, 0);
    uint32_t s = net__slot(n, id); /* (a transfer in its on_done is DONE, not active) */
    return s == NET__NO_POS ? 0 : n->xf[s].arg;
}

int net_transfer_priority(const net *n, net_transfer_id id)
{
    g_return_val_if_fail(n != NULL, -1);
    uint32_t s = net__lookup(n, id);
    return s == NET__NO_POS ? -1 : n->xf[s].prio;
}

double net_transfer_weight(const net *n, net_transfer_id id)
{
    g_return_val_if_fail(n != NULL, NAN);
    uint32_t s = net__lookup(n, id);
    return s == NET__NO_POS ? NAN : n->xf[s].weight;
}
