/* net_solve.c - incremental rate allocation: strict priority levels,
 * weighted max-min (progressive filling) within a level (net.h, DESIGN.md §3).
 *
 * Symbols as in net.h: C_e capacity, m_ie multiplicity, w_i weight, x_i rate,
 * load_eL = sum_{i in level L, on e} m_ie x_i, R_eL = C_e - sum_{l<L} load_el.
 *
 * The solve.  Dirty links carry the highest level from which their residual
 * or their user set may have changed (dirty_level).  For L = highest dirty
 * level .. K-1:
 *   seeds  = links with dirty_level <= L;
 *   S_L    = level-L transfers reachable from the seeds through links shared
 *            by level-L transfers (breadth-first, epoch-stamped marks);
 *   E_L    = the seeds plus every link of S_L;
 *   solve S_L by progressive filling on residuals R_eL (e in E_L);
 *   recompute load_eL for e in E_L; a link whose load_eL changed (by more
 *   than rel_eps * C_e) becomes dirty for L+1.
 *
 * Why this is exact.  Claim: after the solve, every transfer's rate equals
 * the from-scratch allocation.  By induction on L, assume levels < L are
 * exact and that every link whose R_eL changed since the last solve has
 * dirty_level <= L.  (Base: R_e0 = C_e never changes; links whose level-0
 * users changed were marked at the change.)
 * (1) Weighted max-min within one level decomposes over the connected
 *     components of the bipartite graph {level-L transfers} x {links}
 *     (edge when m_ie > 0): progressive filling on a component only reads
 *     the residuals of its own links and the weights of its own transfers,
 *     and the allocation is unique, so each component's allocation is a
 *     function of (its transfers, their weights and multiplicities, R_eL of
 *     its links) alone.
 * (2) S_L is a union of whole components: the BFS follows every level-L
 *     user of every link it reaches, so no level-L transfer outside S_L
 *     shares a link with S_L; hence solving S_L alone gives its exact
 *     allocation.
 * (3) A component outside S_L touches no dirty link, so none of its links
 *     changed residual, and none of its transfers changed (a change marks
 *     the transfer's links dirty at its level): by (1) its allocation, and
 *     hence its loads, are unchanged.
 * (4) R_e,L+1 = R_eL - load_eL.  It can change only if R_eL changed (e is
 *     dirty at <= L, and stays dirty at L+1) or load_eL changed (e is in E_L
 *     by (3), and we mark it for L+1).  So the induction hypothesis holds at
 *     L+1.
 * Approximation: rates within rel_eps of their old value keep the old
 * value, residuals below rel_eps * C_e count as zero, and load changes
 * below rel_eps * C_e do not propagate; each introduces at most rel_eps
 * relative (to C_e) error, and nothing accumulates because every solve
 * computes from the stored rates, not from deltas.
 *
 * Progressive filling on S_L.  Each link j of E_L keeps R_j (residual minus
 * frozen consumption), W_j = sum over unfrozen users of m w, and the count
 * of unfrozen users; its saturation level is lambda_j = R_j / W_j.  A
 * binary min-heap on lambda_j gives the next link to saturate; its unfrozen
 * users are frozen at x_i = w_i lambda_j and subtracted from their other
 * links, whose lambda can only grow (R - a lambda*) / (W - a) >= R / W when
 * lambda* <= R / W, so they sift down.  Cost: O(elements * log |E_L|), where
 * elements = sum over S_L of its links; SimGrid's maxmin.cpp scans all
 * constraints per round instead (O(|E| * rounds)).
 */
#include <math.h>

#include "net-private.h"

static void grow_u32(uint32_t **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    *p = g_renew(uint32_t, *p, c);
    *cap = c;
}

static void grow_scratch(net *n, size_t need)
{
    if (need <= n->cap_s)
        return;
    size_t c = n->cap_s ? n->cap_s : 64;
    while (c < need)
        c *= 2;
    n->s_R = g_renew(double, n->s_R, c);
    n->s_W = g_renew(double, n->s_W, c);
    n->s_key = g_renew(double, n->s_key, c);
    n->s_nunf = g_renew(uint32_t, n->s_nunf, c);
    n->s_hpos = g_renew(uint32_t, n->s_hpos, c);
    n->s_heap = g_renew(uint32_t, n->s_heap, c);
    n->cap_s = c;
}

/* ---- an indexed min-heap of local link indices keyed by s_key ---- */

typedef struct lheap {
    uint32_t *h;   /* heap of local indices */
    uint32_t *pos; /* position of each local index, NET__NO_POS if absent */
    double *key;
    size_t len;
} lheap;

static inline void lh_place(lheap *hp, size_t i, uint32_t j)
{
    hp->h[i] = j;
    hp->pos[j] = (uint32_t)i;
}

static void lh_up(lheap *hp, size_t i)
{
    uint32_t j = hp->h[i];
    double k = hp->key[j];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!(k < hp->key[hp->h[p]]))
            break;
        lh_place(hp, i, hp->h[p]);
        i = p;
    }
    lh_place(hp, i, j);
}

static void lh_down(lheap *hp, size_t i)
{
    uint32_t j = hp->h[i];
    double k = hp->key[j];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= hp->len)
            break;
        if (c + 1 < hp->len && hp->key[hp->h[c + 1]] < hp->key[hp->h[c]])
            c++;
        if (!(hp->key[hp->h[c]] < k))
            break;
        lh_place(hp, i, hp->h[c]);
        i = c;
    }
    lh_place(hp, i, j);
}

static void lh_remove(lheap *hp, uint32_t j)
{
    size_t i = hp->pos[j];
    hp->pos[j] = NET__NO_POS;
    hp->len--;
    if (i == hp->len)
        return;
    uint32_t moved = hp->h[hp->len];
    lh_place(hp, i, moved);
    if (i > 0 && hp->key[moved] < hp->key[hp->h[(i - 1) / 2]])
        lh_up(hp, i);
    else
        lh_down(hp, i);
}

static void lh_update(lheap *hp, uint32_t j)
{
    size_t i = hp->pos[j];
    if (i > 0 && hp->key[j] < hp->key[hp->h[(i - 1) / 2]])
        lh_up(hp, i);
    else
        lh_down(hp, i);
}

/* ---- building S_L and E_L ---- */

static inline void visit_link(net *n, uint32_t e, uint32_t ep, size_t *n_l)
{
    net__link *l = &n->links[e];
    if (l->mark == ep)
        return;
    l->mark = ep;
    grow_u32(&n->comp_l, &n->cap_comp_l, *n_l + 1);
    l->sidx = (uint32_t)*n_l;
    n->comp_l[(*n_l)++] = e;
}

/* Fill comp_t / comp_l with S_L / E_L; returns false if no link is dirty at L. */
static bool collect(net *n, int L, size_t *n_t_out, size_t *n_l_out)
{
    uint32_t ep = net__new_epoch(n);
    size_t n_l = 0, n_t = 0;
    for (size_t d = 0; d < n->n_dirty; d++) {
        uint32_t e = n->dirty[d];
        if (n->links[e].dirty_level <= L)
            visit_link(n, e, ep, &n_l);
    }
    if (n_l == 0)
        return false;
    for (size_t i = 0; i < n_l; i++) {
        const net__link *l = &n->links[n->comp_l[i]];
        for (uint32_t u = 0; u < l->n_users; u++) {
            const net__user *us = &l->users[u];
            if (us->prio != L)
                continue;
            net__xfer *t = &n->xf[us->t];
            if (t->mark == ep)
                continue;
            t->mark = ep;
            grow_u32(&n->comp_t, &n->cap_comp_t, n_t + 1);
            n->comp_t[n_t++] = us->t;
            for (uint32_t k = 0; k < t->n_tl; k++)
                visit_link(n, t->tl[k].link, ep, &n_l);
        }
    }
    *n_t_out = n_t;
    *n_l_out = n_l;
    return true;
}

/* Progressive filling of S_L on the residuals of E_L: sets new_rate. */
static void fill(net *n, int L, size_t n_t, size_t n_l)
{
    const double eps = n->opts.rel_eps;
    const int K = n->K;
    grow_scratch(n, n_l);
    double *R = n->s_R, *W = n->s_W;
    uint32_t *nunf = n->s_nunf;
    for (size_t j = 0; j < n_l; j++) {
        uint32_t e = n->comp_l[j];
        const double *ld = &n->lvl_load[(size_t)e * K];
        double cap = n->links[e].cap_Bps, r = cap;
        for (int l = 0; l < L; l++)
            r -= ld[l];
        R[j] = r <= eps * cap ? 0.0 : r;
        W[j] = 0;
        nunf[j] = 0;
    }
    for (size_t i = 0; i < n_t; i++) {
        net__xfer *t = &n->xf[n->comp_t[i]];
        t->frozen = false;
        t->new_rate = 0;
        for (uint32_t k = 0; k < t->n_tl; k++) {
            uint32_t j = n->links[t->tl[k].link].sidx;
            W[j] += t->tl[k].mult * t->weight;
            nunf[j]++;
        }
    }
    lheap hp = {n->s_heap, n->s_hpos, n->s_key, 0};
    for (size_t j = 0; j < n_l; j++) {
        hp.pos[j] = NET__NO_POS;
        if (nunf[j] > 0) {
            hp.key[j] = R[j] / W[j];
            lh_place(&hp, hp.len++, (uint32_t)j);
        }
    }
    for (size_t i = hp.len / 2; i-- > 0;)
        lh_down(&hp, i);

    double lambda = 0;
    while (hp.len > 0) {
        uint32_t j = hp.h[0];
        if (hp.key[j] > lambda)
            lambda = hp.key[j];
        lh_remove(&hp, j);
        const net__link *l = &n->links[n->comp_l[j]];
        for (uint32_t u = 0; u < l->n_users; u++) {
            if (l->users[u].prio != L)
                continue;
            net__xfer *t = &n->xf[l->users[u].t];
            if (t->frozen)
                continue;
            t->frozen = true;
            double x = t->weight * lambda;
            t->new_rate = x;
            for (uint32_t k = 0; k < t->n_tl; k++) {
                uint32_t jj = n->links[t->tl[k].link].sidx;
                double m = t->tl[k].mult;
                R[jj] -= m * x;
                W[jj] -= m * t->weight;
                nunf[jj]--;
                if (hp.pos[jj] == NET__NO_POS)
                    continue;
                if (nunf[jj] == 0) {
                    lh_remove(&hp, jj);
                } else {
                    double w = W[jj] > 0 ? W[jj] : 1e-300;
                    hp.key[jj] = (R[jj] > 0 ? R[jj] : 0.0) / w;
                    lh_update(&hp, jj);
                }
            }
        }
    }
}

/* Install the new rates of S_L; re-arm completion events of those that
 * changed. */
static void apply_rates(net *n, size_t n_t, double now)
{
    const double eps = n->opts.rel_eps;
    for (size_t i = 0; i < n_t; i++) {
        uint32_t s = n->comp_t[i];
        net__xfer *t = &n->xf[s];
        double old = t->rate_Bps, x = t->new_rate;
        if (fabs(x - old) <= eps * fmax(x, old))
            continue;
        net__xfer_advance(t, now);
        t->rate_Bps = x;
        n->stats.rate_changes++;
        net__xfer_reschedule(n, s);
    }
}

/* Recompute load_eL on E_L; mark links whose load changed dirty for L+1. */
static void update_loads(net *n, int L, size_t n_l, double now)
{
    const int K = n->K;
    const double eps = n->opts.rel_eps;
    for (size_t j = 0; j < n_l; j++) {
        uint32_t e = n->comp_l[j];
        net__link *l = &n->links[e];
        double load = 0, tag = 0;
        for (uint32_t u = 0; u < l->n_users; u++) {
            if (l->users[u].prio != L)
                continue;
            const net__xfer *t = &n->xf[l->users[u].t];
            double mx = l->users[u].mult * t->rate_Bps;
            load += mx;
            tag += mx * t->tag;
        }
        double *ld = &n->lvl_load[(size_t)e * K];
        double *tg = &n->lvl_tag[(size_t)e * K];
        if (load == ld[L] && tag == tg[L])
            continue;
        net__link_advance(l, now);
        if (fabs(load - ld[L]) > eps * l->cap_Bps)
            net__mark_dirty(n, e, L + 1);
        ld[L] = load;
        tg[L] = tag;
        double sum = 0, tsum = 0;
        for (int k = 0; k < K; k++) {
            sum += ld[k];
            tsum += tg[k];
        }
        l->load_Bps = sum;
        l->tag_Bps = tsum;
    }
}

void net__solve(net *n)
{
    if (n->n_dirty == 0)
        return;
    double now = evq_now(n->q);
    n->stats.solves++;
    for (int L = n->min_dirty_level; L < n->K; L++) {
        size_t n_t = 0, n_l = 0;
        if (!collect(n, L, &n_t, &n_l))
            continue;
        if (n_t > 0) {
            fill(n, L, n_t, n_l);
            apply_rates(n, n_t, now);
            n->stats.level_solves++;
            n->stats.resolved_transfers += n_t;
        }
        update_loads(n, L, n_l, now);
    }
    for (size_t d = 0; d < n->n_dirty; d++)
        n->links[n->dirty[d]].dirty_level = n->K;
    n->n_dirty = 0;
    n->min_dirty_level = n->K;
}
