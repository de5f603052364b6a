/* net_state.c - the network's bookkeeping: slots, user lists, dirty marks and
 * the transfer events.  Not here: the API (net.c), the solver (net_solve.c).
 *
 * Event flow of a transfer: net_transfer_start -> (startup event after
 * startup_s, or at once if 0) -> moving: on its links' user lists, links
 * dirty -> solve (zero-delay event, or the next query) sets its rate and
 * arms its completion event -> completion: off the links, links dirty,
 * on_done, slot reaped.
 */
#include "net-private.h"

#include <math.h>
#include <string.h>

static void solve_event(void *ctx, uint64_t arg, double now_s);
static void completion_event(void *ctx, uint64_t arg, double now_s);

void net__xfer_release(net *n, uint32_t s)
{
    net__xfer *t = &n->xf[s];
    t->n_tl = t->n_dl = 0; /* (its block stays, for the slot's next transfer) */
    t->state = NET__FREE;
    t->ev = EVQ_ID_NONE;
    t->on_done = NULL;
    t->user = NULL;
    t->gen = t->gen == UINT32_MAX ? 1 : t->gen + 1;
    t->next_free = n->free_xf;
    n->free_xf = s;
}

uint32_t net__new_epoch(net *n)
{
    if (++n->epoch == 0) {
        for (size_t e = 0; e < n->n_links; e++) {
            n->links[e].mark = 0;
            if (n->dom)
                n->dom[e].mark = 0;
        }
        for (size_t s = 0; s < n->n_xf; s++)
            n->xf[s].mark = 0;
        n->epoch = 1;
    }
    return n->epoch;
}

/* A link or transfer delayed by the steady-state fast path (net_links_delay)
 * has last_s in the future: nothing is integrated before it. */
void net__link_advance(net__link *l, double now_s)
{
    double dt = now_s - l->last_s;
    if (dt < 0)
        return;
    if (dt > 0) {
        l->carried_bytes += l->load_Bps * dt;
        l->tagged_bytes += l->tag_Bps * dt;
        if (l->load_Bps > 0)
            l->busy_s += dt;
    }
    l->last_s = now_s;
}

void net__xfer_advance(net__xfer *t, double now_s)
{
    double dt = now_s - t->last_s;
    if (dt < 0)
        return;
    if (dt > 0 && t->rate_Bps > 0) {
        double moved = t->rate_Bps * dt;
        t->rem_bytes -= moved;
        if (t->rem_bytes < 0)
            t->rem_bytes = 0;
        t->moved += moved;
        t->busy += dt;
    }
    t->last_s = now_s;
}

/* A lazy link is private to its user u at level L: what eager updates keep
 * there is load_eL = m x_u, res_eL = C_e (nothing else loads the link; see
 * net_solve.c) and counters integrating m x_u.  The counters grow by
 * m (moved_u - base_moved) instead: the same bytes summed per rate phase of
 * u instead of per load change of the link (equal up to rounding, about
 * 1e-16 relative per addition; docs/engine.md section 4). */
static void link_sync_with(net *n, uint32_t e, double now, double mv, double bz);

void net__link_sync(net *n, uint32_t e)
{
    const net__xfer *t = &n->xf[n->links[e].users[0].t];
    double now = evq_now(n->q);
    link_sync_with(n, e, now, net__xfer_moved_at(t, now), net__xfer_busy_at(t, now));
}

/* Bring lazy link e's counters to now from its user's integrals mv and bz;
 * the bytes its user moved since the last sync. */
static double link_sync_counters(net *n, uint32_t e, double now, double mv, double bz)
{
    net__link *l = &n->links[e];
    const net__user us = l->users[0];
    double dm = mv - n->lbase[e].moved;
    if (dm != 0) {
        double bytes = us.mult * dm;
        l->carried_bytes += bytes;
        l->tagged_bytes += bytes * n->xf[us.t].tag;
        n->lbase[e].moved = mv;
    }
    l->busy_s += bz - n->lbase[e].busy;
    n->lbase[e].busy = bz;
    if (now > l->last_s)
        l->last_s = now;
    return dm;
}

/* net__link_sync() with its user's integrals at now, mv and bz, given (a
 * deactivation syncs all the lazy links of one transfer: the same values
 * for each). */
static void link_sync_with(net *n, uint32_t e, double now, double mv, double bz)
{
    net__link *l = &n->links[e];
    const net__user us = l->users[0];
    const net__xfer *t = &n->xf[us.t];
    double dm = link_sync_counters(n, e, now, mv, bz);
    if (t->rver != n->lbase[e].ver) { /* update_link() of its last rate change */
        n->lbase[e].ver = t->rver;
        net__lvl *lv = &n->lvl[(size_t)e * n->K + t->prio];
        double mx = us.mult * t->rate_Bps;
        lv->load = mx;
        lv->tag = mx * t->tag;
        lv->res = l->cap_Bps;
        if (mx != 0)
            l->load_bits |= (uint64_t)1 << t->prio;
        else
            l->load_bits &= ~((uint64_t)1 << t->prio);
        net__link_sum_loads(n, e);
    }
    if (dm > 0 && !l->moved_listed) {
        l->moved_listed = true;
        g_array_append_val(n->moved, e);
    }
}

void net__link_make_lazy(net *n, uint32_t e)
{
    net__link *l = &n->links[e];
    double now = evq_now(n->q);
    if (l->n_users != 1 || l->lazy || l->last_s > now)
        return; /* shared, lazy already, or delayed (kept eagerly) */
    net__link_advance(l, now);
    const net__user us = l->users[0];
    net__xfer *t = &n->xf[us.t];
    n->lbase[e].moved = net__xfer_moved_at(t, now);
    n->lbase[e].busy = net__xfer_busy_at(t, now);
    n->lbase[e].ver = t->rver;
    l->lazy = true;
    net__tl_set_lazy(t, us.k, true);
}

void net__sync_all_lazy(net *n)
{
    for (size_t s = 0; s < n->n_xf; s++) {
        const net__xfer *t = &n->xf[s];
        if (t->state != NET__MOVING)
            continue;
        for (uint32_t k = 0; k < t->n_tl; k++)
            if (t->tl[k].lazy)
                net__link_sync(n, t->tl[k].link);
    }
}

/* Make a lazy link eager (its user leaves, another comes, or its counters
 * are delayed): synced first. */
static void make_eager(net *n, uint32_t e)
{
    net__link *l = &n->links[e];
    if (l->lazy) {
        net__link_sync(n, e);
        l->lazy = false;
        net__tl_set_lazy(&n->xf[l->users[0].t], l->users[0].k, false);
    }
}

void net__xfer_reschedule(net *n, uint32_t s)
{
    net__xfer *t = &n->xf[s];
    double now = evq_now(n->q);
    double when;
    if (t->rem_bytes <= n->opts.rel_eps * t->size_bytes)
        when = now; /* done up to rounding: complete in this instant */
    else if (t->rate_Bps > 0)
        when = now + t->rem_bytes / t->rate_Bps;
    else
        when = INFINITY;
    if (!isfinite(when)) {
        evq_cancel(n->q, t->ev);
        t->ev = EVQ_ID_NONE;
    } else if (!evq_rekey(n->q, t->ev, when)) {
        t->ev = evq_push(n->q, when, completion_event, n, net__xfer_id(n, s));
    }
}

void net__mark_dirty(net *n, uint32_t e, int L)
{
    net__link *l = &n->links[e];
    if (L >= n->K)
        return;
    if (l->dirty_bits == 0) {
        net__reserve_u32(&n->dirty, n->n_dirty, &n->cap_dirty);
        n->dirty[n->n_dirty++] = e;
    }
    l->dirty_bits |= (uint64_t)1 << L;
    n->dirty_any |= (uint64_t)1 << L;
}

void net__list_touched(net *n, uint32_t s)
{
    net__xfer *t = &n->xf[s];
    if (!t->touched) {
        t->touched = true;
        net__reserve_u32(&n->touched, n->n_touched, &n->cap_touched);
        n->touched[n->n_touched++] = s;
    }
    /* (also when the slot is listed already: its previous transfer may
     * have been cancelled at another level since, and a transfer whose
     * links are all lazy marks no link) */
    n->dirty_any |= (uint64_t)1 << t->prio;
}

/* net__touch() without marking the links (the caller marked those that
 * need it). */
static void touch_xfer(net *n, uint32_t s, int L)
{
    net__xfer *t = &n->xf[s];
    if (t->state == NET__MOVING && t->prio == L)
        net__list_touched(n, s);
    if (!evq_pending(n->q, n->solve_ev))
        n->solve_ev = evq_push(n->q, evq_now(n->q), solve_event, n, 0);
}

void net__touch(net *n, uint32_t s, int L)
{
    net__xfer *t = &n->xf[s];
    for (uint32_t k = 0; k < t->n_tl; k++)
        net__mark_dirty(n, t->tl[k].link, L);
    touch_xfer(n, s, L);
}

static void solve_event(void *ctx, uint64_t arg, double now_s)
{
    (void)arg;
    (void)now_s;
    net *n = ctx;
    n->solve_ev = EVQ_ID_NONE;
    net__solve(n);
}

uint32_t net__xfer_alloc(net *n)
{
    uint32_t s;
    if (n->free_xf != NET__NO_POS) {
        s = n->free_xf;
        n->free_xf = n->xf[s].next_free;
    } else {
        g_assert(n->n_xf < NET__NO_POS);
        if (n->n_xf == n->cap_xf) {
            n->cap_xf = n->cap_xf ? 2 * n->cap_xf : 64;
            n->xf = g_renew(net__xfer, n->xf, n->cap_xf);
        }
        s = (uint32_t)n->n_xf++;
        memset(&n->xf[s], 0, sizeof n->xf[s]);
        n->xf[s].gen = 1;
    }
    return s;
}

/* A link became (priv) or stopped being (!priv) private to its user u: its
 * private bound is stale. */
static void set_private(net *n, net__user u, bool priv)
{
    net__xfer *t = &n->xf[u.t];
    t->tl[u.k].priv = priv;
    t->pb_stale = true;
}

/* A link that nobody moves on and no solve is pending for (its level loads
 * are all 0) gets its first user: the solve would only store res_eL = C_e
 * and, after the user's rate is set, load_eL = m x (a private link adds its
 * bound to its user, no more: net_solve.c).  So it becomes lazy at once
 * with that residual and is not marked: true if it did. */
static bool first_user_lazy(net *n, uint32_t e, uint32_t s, uint32_t k, double now)
{
    net__link *l = &n->links[e];
    if (l->n_users != 1 || l->dirty_bits != 0 || l->last_s > now)
        return false;
    g_assert(l->load_bits == 0);
    net__xfer *t = &n->xf[s];
    n->lvl[(size_t)e * n->K + t->prio].res = l->cap_Bps;
    net__link_advance(l, now);
    n->lbase[e].moved = t->moved;
    n->lbase[e].busy = t->busy;
    n->lbase[e].ver = t->rver;
    l->lazy = true;
    net__tl_set_lazy(t, k, true);
    return true;
}

/* ---- dominated links -------------------------------------------------
 * A link that another link dominates (net_link_set_dominator) is in no
 * solve: every transfer on it is on its dominator too, whose constraint
 * implies its own.  Its counters follow its users like a lazy link's
 * follow its one user, over many users: what each carried up to its last
 * fold is in the link's counters, the rest is m (moved - base) per user;
 * busy time runs while some user moves at a rate > 0. */

/* The busy time d's clock has run since busy_since (0 if it is stopped). */
static inline double dom_busy_run(const net__dom *d, double now)
{
    return d->n_pos > 0 && now > d->busy_since ? now - d->busy_since : 0;
}

/* Dominated link e's busy clock: one more (delta +1) or one fewer user at a
 * rate > 0. */
static void dom_busy(net *n, uint32_t e, int delta, double now)
{
    net__dom *d = &n->dom[e];
    if (delta > 0) {
        if (d->n_pos++ == 0)
            d->busy_since = now;
    } else {
        d->busy_s += d->n_pos == 1 ? dom_busy_run(d, now) : 0;
        d->n_pos--;
    }
}

/* Put dominated link e on net.moved (once). */
static void dom_list_moved(net *n, net__dom *d, uint32_t e)
{
    if (!d->listed) {
        d->listed = true;
        g_array_append_val(n->moved, e);
    }
}

/* Count user u's bytes up to moved mv into the link's counters. */
static void dom_fold(net *n, net__dom *d, net__duser *u, double mv)
{
    double b = u->mult * (mv - u->base);
    d->carried_bytes += b;
    d->tagged_bytes += b * n->xf[u->t].tag;
    u->base = mv;
}

static void dom_join(net *n, uint32_t s, uint32_t k)
{
    net__xfer *t = &n->xf[s];
    uint32_t e = t->tl[k].link;
    net__dom *d = &n->dom[e];
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 4;
        d->u = g_renew(net__duser, d->u, d->cap);
    }
    t->tl[k].pos = d->n;
    d->u[d->n++] = (net__duser){s, k, t->tl[k].mult, t->moved};
    dom_list_moved(n, d, e);
}

static void dom_leave(net *n, uint32_t s, uint32_t k, double now, double mv)
{
    net__xfer *t = &n->xf[s];
    uint32_t e = t->tl[k].link, pos = t->tl[k].pos;
    net__dom *d = &n->dom[e];
    g_assert(pos < d->n && d->u[pos].t == s);
    dom_fold(n, d, &d->u[pos], mv);
    if (t->rate_Bps > 0)
        dom_busy(n, e, -1, now);
    d->u[pos] = d->u[--d->n];
    if (pos != d->n)
        n->xf[d->u[pos].t].tl[d->u[pos].k].pos = pos;
}

void net__dom_rate_sign(net *n, uint32_t s, bool up, double now_s)
{
    const net__xfer *t = &n->xf[s];
    for (uint32_t k = t->n_tl; k < t->n_tl + t->n_dl; k++)
        dom_busy(n, t->tl[k].link, up ? +1 : -1, now_s);
}

void net__dom_stats(const net *n, uint32_t e, double now_s, net_link_stats *out)
{
    const net__dom *d = &n->dom[e];
    *out = (net_link_stats){.carried_bytes = d->carried_bytes,
                            .busy_s = d->busy_s,
                            .tagged_bytes = d->tagged_bytes};
    for (uint32_t i = 0; i < d->n; i++) {
        const net__xfer *t = &n->xf[d->u[i].t];
        double b = d->u[i].mult * (net__xfer_moved_at(t, now_s) - d->u[i].base);
        out->carried_bytes += b;
        out->tagged_bytes += b * t->tag;
        out->load_Bps += d->u[i].mult * t->rate_Bps;
    }
    out->busy_s += dom_busy_run(d, now_s);
}

void net__twin_stats(const net *n, uint32_t e, const net_link_stats *by, net_link_stats *out)
{
    const net__dom *d = &n->dom[e];
    const net_link_stats *add = &n->dom[d->by - 1].added;
    *out = (net_link_stats){
        .carried_bytes = d->carried_bytes + (by->carried_bytes - add->carried_bytes -
                                             d->at_set.carried_bytes),
        .busy_s = d->busy_s + (by->busy_s - add->busy_s - d->at_set.busy_s),
        .tagged_bytes = d->tagged_bytes + (by->tagged_bytes - add->tagged_bytes -
                                           d->at_set.tagged_bytes),
        .load_Bps = by->load_Bps};
}

/* Put a waiting transfer on its links' user lists: its bytes start moving. */
void net__xfer_activate(net *n, uint32_t s)
{
    net__xfer *t = &n->xf[s];
    const double now = evq_now(n->q);
    t->state = NET__MOVING;
    t->last_s = now;
    t->rate_Bps = 0;
    t->ev = EVQ_ID_NONE;
    t->pb_stale = true;
    /* (its links are all eager, none lazy: net_transfer_start) */
    for (uint32_t k = 0; k < t->n_tl; k++) {
        net__link *l = &n->links[t->tl[k].link];
        if (l->n_users == l->cap_users) {
            l->cap_users = l->cap_users ? 2 * l->cap_users : 4;
            l->users = g_renew(net__user, l->users, l->cap_users);
        }
        t->tl[k].priv = l->n_users == 0;
        if (l->n_users == 1) { /* the link was private to its other user */
            make_eager(n, t->tl[k].link);
            set_private(n, l->users[0], false);
        }
        t->tl[k].pos = l->n_users;
        l->users[l->n_users++] = (net__user){s, k, t->tl[k].mult, t->prio};
        net__count_user(n, t->tl[k].link, t->prio, +1);
        if (!first_user_lazy(n, t->tl[k].link, s, k, now))
            net__mark_dirty(n, t->tl[k].link, t->prio);
    }
    for (uint32_t k = t->n_tl; k < t->n_tl + t->n_dl; k++)
        dom_join(n, s, k);
    touch_xfer(n, s, t->prio);
}

/* Its last user leaves lazy link e, on which no solve is pending: the solve
 * would only set load_eL = 0 and res_eL = C_e at the user's level L (no
 * other level has a user or a load, so nothing moves below).  Done here,
 * after the counters are synced; e is not marked. */
static void last_user_leaves(net *n, uint32_t e, int L, double now, double mv, double bz)
{
    net__link *l = &n->links[e];
    const net__user us = l->users[0];
    const net__xfer *t = &n->xf[us.t];
    bool new_rate = t->rver != n->lbase[e].ver;
    double dm = link_sync_counters(n, e, now, mv, bz);
    /* (not the level load of the user's last rate, which link_sync_with
     * would set and this clears; the link is listed as having moved where
     * that load or these bytes would list it there) */
    if ((dm > 0 || (new_rate && us.mult * t->rate_Bps > 0)) && !l->moved_listed) {
        l->moved_listed = true;
        g_array_append_val(n->moved, e);
    }
    net__lvl *lv = &n->lvl[(size_t)e * n->K + L];
    lv->load = 0;
    lv->tag = 0;
    lv->res = l->cap_Bps;
    l->load_bits &= ~((uint64_t)1 << L);
    net__link_sum_loads(n, e);
    l->lazy = false;
}

/* Take a moving transfer off its links' user lists and drop its references
 * to them (O(its links)). */
void net__xfer_deactivate(net *n, uint32_t s)
{
    net__xfer *t = &n->xf[s];
    /* its integrals, which its lazy links' counters follow (t does not
     * change in here: the same values for every link) */
    const double now = evq_now(n->q);
    const double mv = net__xfer_moved_at(t, now), bz = net__xfer_busy_at(t, now);
    /* (t's own lazy bits are left as they are: t leaves, nothing reads them
     * again before its slot's next transfer sets them afresh) */
    bool marked = false;
    for (uint32_t k = 0; k < t->n_tl; k++) {
        net__link *l = &n->links[t->tl[k].link];
        bool quiet = l->lazy && l->dirty_bits == 0;
        if (quiet) /* (a lazy link's one user is t) */
            last_user_leaves(n, t->tl[k].link, t->prio, now, mv, bz);
        else
            make_eager(n, t->tl[k].link);
        uint32_t pos = t->tl[k].pos;
        g_assert(pos < l->n_users && l->users[pos].t == s);
        net__user last = l->users[--l->n_users];
        if (pos != l->n_users) {
            l->users[pos] = last;
            n->xf[last.t].tl[last.k].pos = pos;
        }
        net__count_user(n, t->tl[k].link, t->prio, -1);
        l->refs--;
        if (l->n_users == 1) /* the link is private to its other user now */
            set_private(n, l->users[0], true);
        if (!quiet) {
            net__mark_dirty(n, t->tl[k].link, t->prio);
            marked = true;
        }
    }
    for (uint32_t k = t->n_tl; k < t->n_tl + t->n_dl; k++) {
        dom_leave(n, s, k, now, mv);
        n->dom[t->tl[k].link].refs--;
    }
    /* A transfer that leaves only quiet links (all its links when it was
     * alone throughout: a third of a structured replay's solves) left
     * nothing for a solve to do: the solve would find no dirty link and no
     * moving touched transfer.  So none is asked for. */
    if (marked)
        touch_xfer(n, s, t->prio);
}

void net__xfer_release_refs(net *n, uint32_t s)
{
    net__xfer *t = &n->xf[s];
    for (uint32_t k = 0; k < t->n_tl; k++)
        n->links[t->tl[k].link].refs--;
    for (uint32_t k = t->n_tl; k < t->n_tl + t->n_dl; k++)
        n->dom[t->tl[k].link].refs--;
}

void net__startup_event(void *ctx, uint64_t arg, double now_s)
{
    (void)now_s;
    net *n = ctx;
    uint32_t s = net__lookup(n, arg);
    g_assert(s != NET__NO_POS && n->xf[s].state == NET__WAITING);
    net__xfer_activate(n, s);
}

static void completion_event(void *ctx, uint64_t arg, double now_s)
{
    net *n = ctx;
    uint32_t s = net__lookup(n, arg);
    g_assert(s != NET__NO_POS && n->xf[s].state == NET__MOVING);
    net__xfer *t = &n->xf[s];
    t->ev = EVQ_ID_NONE;
    /* (Its links' counters run with the old loads up to now: the solve
     * advances a link before its load changes, net__xfer_deactivate() syncs
     * its lazy links.) */
    net__xfer_advance(t, now_s);
    /* What rounding leaves (a few bytes at most) is dropped; no g_debug
     * here: GLib formats the message even when debug output is off, and this
     * runs once per transfer (a tenth of a replay's time). */
    t->rem_bytes = 0;
    net__xfer_deactivate(n, s);
    t->state = NET__DONE;
    t->rate_Bps = 0;
    n->stats.transfers_done++;
    n->stats.active_transfers--;
    if (n->rate_obs)
        n->rate_obs(n->rate_obs_user, arg, t->user, 0, true, now_s);
    if (t->on_done)
        t->on_done(t->user, arg, now_s);
    /* Reap after the callback (it may have grown n->xf: re-fetch). */
    net__xfer_release(n, s);
}

void net_transfers_delay(net *n, const net_transfer_id *ids, size_t count, double dt_s)
{
    g_return_if_fail(n != NULL && (ids != NULL || count == 0));
    g_return_if_fail(isfinite(dt_s) && dt_s >= 0);
    net_flush(n);
    double now = evq_now(n->q);
    for (size_t i = 0; i < count; i++) {
        uint32_t s = net__lookup(n, ids[i]);
        if (s == NET__NO_POS)
            continue;
        net__xfer *t = &n->xf[s];
        net__xfer_advance(t, now);
        t->last_s = now + dt_s;
        evq_delay(n->q, t->ev, dt_s);
        if (n->delay_obs)
            n->delay_obs(n->delay_obs_user, ids[i], t->user, 0, dt_s, now);
    }
}

void net_transfer_progress(net *n, net_transfer_id id, double bytes_B, double dt_s)
{
    g_return_if_fail(n != NULL && isfinite(dt_s) && dt_s >= 0 && bytes_B >= 0);
    net_flush(n);
    uint32_t s = net__lookup(n, id);
    if (s == NET__NO_POS)
        return;
    net__xfer *t = &n->xf[s];
    double now = evq_now(n->q);
    net__xfer_advance(t, now);
    g_return_if_fail(t->state == NET__MOVING && bytes_B < t->rem_bytes);
    t->rem_bytes -= bytes_B;
    t->last_s = now + dt_s;
    if (t->rate_Bps > 0 && !evq_rekey(n->q, t->ev, now + dt_s + t->rem_bytes / t->rate_Bps))
        t->ev = evq_push(n->q, now + dt_s + t->rem_bytes / t->rate_Bps, completion_event, n, id);
    if (n->delay_obs)
        n->delay_obs(n->delay_obs_user, id, t->user, bytes_B, dt_s, now);
}

/* net_links_delay() for dominated link e: its counters brought to now,
 * add added, its busy clock stopped until now + dt.  Its users are delayed
 * with it, so their bytes move again from now + dt.  (A transfer of
 * another group that starts on it within the delay counts its bytes from
 * its start, where a link kept eagerly leaves them out until now + dt:
 * PCIe links are one GPU's or one NIC's, so this needs two jobs behind one
 * NIC in different groups, and moves only that link's counters.) */
static void dom_delay(net *n, uint32_t e, const net_link_stats *add, double now, double dt)
{
    net__dom *d = &n->dom[e];
    for (uint32_t i = 0; i < d->n; i++)
        dom_fold(n, d, &d->u[i], net__xfer_moved_at(&n->xf[d->u[i].t], now));
    d->busy_s += dom_busy_run(d, now);
    if (d->n_pos > 0)
        d->busy_since = now + dt;
    d->carried_bytes += add->carried_bytes;
    d->busy_s += add->busy_s;
    d->tagged_bytes += add->tagged_bytes;
    dom_list_moved(n, d, e);
}

void net_links_delay(net *n, const net_link_id *ids, size_t count, const net_link_stats *add,
                     double dt_s)
{
    g_return_if_fail(n != NULL && (ids != NULL || count == 0) && (add != NULL || count == 0));
    g_return_if_fail(isfinite(dt_s) && dt_s >= 0);
    net_flush(n);
    double now = evq_now(n->q);
    for (size_t i = 0; i < count; i++) {
        if (ids[i] >= n->n_links || !n->links[ids[i]].present)
            continue;
        if (net__dominated(n, ids[i]) && n->dom[ids[i]].twin) { /* its clock is its twin's */
            net__dom *d = &n->dom[ids[i]];
            d->carried_bytes += add[i].carried_bytes;
            d->busy_s += add[i].busy_s;
            d->tagged_bytes += add[i].tagged_bytes;
            continue;
        }
        if (net__dominated(n, ids[i])) {
            dom_delay(n, ids[i], &add[i], now, dt_s);
            continue;
        }
        if (net__has_twins(n, ids[i])) { /* its twins' own counters have it */
            net_link_stats *a = &n->dom[ids[i]].added;
            a->carried_bytes += add[i].carried_bytes;
            a->busy_s += add[i].busy_s;
            a->tagged_bytes += add[i].tagged_bytes;
        }
        net__link *l = &n->links[ids[i]];
        make_eager(n, ids[i]); /* its user's integrals would not see the delay */
        net__link_advance(l, now);
        l->carried_bytes += add[i].carried_bytes;
        l->busy_s += add[i].busy_s;
        l->tagged_bytes += add[i].tagged_bytes;
        l->last_s = now + dt_s;
        if (!l->moved_listed) {
            l->moved_listed = true;
            g_array_append_val(n->moved, ids[i]);
        }
    }
}
