/* net_solve.c - incremental rate allocation: strict priority levels, weighted
 * max-min within a level (net.h).  Not here: the API (net.c).
 *
 * Symbols as in net.h: C_e capacity, m_ie multiplicity, w_i weight, x_i rate,
 * load_eL = sum_{i in level L, on e} m_ie x_i, R_eL = C_e - sum_{l<L} load_el.
 *
 * State.  Each link keeps, per level L (net.lvl), load_eL (load), the tag-weighted
 * load (tag) and res_eL (res): the residual R_eL that the level-L
 * allocation around e was last computed with.  A link's dirty bit L says
 * "the level-L allocation of the component containing e may be stale": a
 * level-L transfer on e started, ended, changed weight, or moved to/from
 * level L (the change marks all its links at that level), or R_eL moved away
 * from res_eL.
 *
 * The solve.  For L = 0 .. K-1 with some link dirty at L (or a touched
 * level-L transfer: one that started, changed weight or moved to level L
 * since the last solve, net.touched):
 *   seeds = links with dirty bit L;
 *   a link e is *followed* if its residual fell (R_eL < res_eL - tol:
 *           its users may not fit; all of them are followed) or it was
 *           tight at L before the change (load_eL >= res_eL - tol: it is
 *           the bottleneck of those of its users, touched ones aside, with
 *           the largest x/w; only they are followed);
 *   S_L   = the touched level-L transfers plus, breadth-first from the
 *           seeds and the links of S_L, the followed level-L users of
 *           every followed link (epoch-stamped marks), except *pinned*
 *           ones: a transfer whose rate is 0 and one of whose links has
 *           R_eL = 0 keeps rate 0 and is not followed;
 *   E_L   = the seeds plus every shared link of S_L (a link that only one
 *           transfer moves on, at any level, is private to it: see below;
 *           a non-seed link with one level-L user is folded into that
 *           user's bound for this solve, add_transfer());
 *   level-L users of E_L's links outside S_L ("outside users") keep their
 *   rates: solve S_L by progressive filling on R_eL less the outside load
 *   (e in E_L), R_eL computed afresh from the (final) loads of levels < L,
 *   and store res_eL = R_eL;
 *   check: on a link of E_L that the fill saturated and that an outside
 *   user with a larger x/w than every S_L user there shares, that link's
 *   outside users join S_L, the search goes on from their links, and S_L
 *   is filled again (check_outside());
 *   recompute load_eL on the seeds and on the links of transfers whose rate
 *   changed (elsewhere in E_L nothing changed); then R_e,L+1 = R_eL -
 *   load_eL, and if it differs from res_e,L+1 by more than rel_eps * C_e,
 *   set bit L+1 on e if e is tight there (see (4)) and store res_e,L+1
 *   (the old value stays on a link so marked, for the followed test).
 *
 * Why this is exact.  Claim: after the solve every rate equals the
 * from-scratch allocation (up to rel_eps, below).  Induction on L.
 * Hypothesis H(L): levels < L are exact, the level-L rates are the max-min
 * allocation of the level-L system as it was at the last solve, and every
 * level-L transfer or link whose inputs (transfers, weights,
 * multiplicities, residual beyond rel_eps * C_e) changed since is touched
 * or dirty at L.  H(0): R_e0 = C_e never changes and every change of a
 * level-0 transfer touches it and marks its links at level 0.
 * (1) The bottleneck lemma (Bertsekas-Gallager, which holds with positive
 *     coefficients m_ie): a feasible allocation is the (unique) weighted
 *     max-min one iff every transfer has a bottleneck, a saturated link on
 *     which its x/w is the largest.  A transfer crossing a link with
 *     R_eL = 0 has rate 0 and that link as bottleneck (every user of it has
 *     0); it consumes nothing, so it couples nothing.
 * (2) Let x' be S_L's filled rates with the old rates of every other
 *     level-L transfer.  Feasible: on a followed link of E_L every unpinned
 *     user is in S_L; on an unfollowed one R_eL did not fall, so the
 *     outside users' old load still fits; a link outside E_L has no S_L
 *     user and is not a seed, so its users, their rates and its residual
 *     are unchanged.  An outside user j is not touched (its weight and
 *     links are as before) and had a bottleneck f before: f was tight and
 *     j's x/w the largest there, so had f been in E_L, j would have been
 *     followed into S_L; so f is outside E_L, unchanged, and still j's
 *     bottleneck.  A user i
 *     of S_L froze in the fill on a link e that saturated with i's x/w the
 *     largest among S_L's users on e; if e has outside users, the check
 *     found none of them with a larger x/w (else S_L grew and was filled
 *     again), so e is i's bottleneck.  By (1), x' is the max-min
 *     allocation.  S_L only grows, so the check loop ends (at worst with
 *     the whole connected component, which needs no check).
 * (3) Transfers outside S_L keep their rates and loads: only the seeds and
 *     the links of transfers whose rate changed can carry a new load_eL.
 * (4) H(L+1): a level-(L+1) transfer that changed marked its links at L+1.
 *     R_e,L+1 = R_eL - load_eL.  For e outside E_L, neither term changed
 *     (e is not dirty at L, so R_eL is within tolerance of res_eL, and its
 *     level-L users keep their rates by (3)); for e in E_L we
 *     compare R_e,L+1 with res_e,L+1 explicitly.  If it moved, level L+1
 *     needs a re-solve around e only if e is tight at L+1 before or after
 *     (load_e,L+1 >= min(old, new residual) - tol) and has level-(L+1)
 *     users: otherwise e is slack before and after, so it is nobody's
 *     bottleneck; the allocation stays feasible and every transfer keeps
 *     its saturated bottleneck link on which its x/w is maximal, which
 *     characterises the (unique) weighted max-min allocation
 *     (Bertsekas-Gallager's bottleneck lemma, which holds with positive
 *     coefficients m_ie, (1)).  Then res_e,L+1 takes the new value and the same
 *     move is carried to R_e,L+2, and so on (propagate()).  A level without
 *     users is passed over (load 0: the residual below is the same; its
 *     stored residual is not used until a user comes, which is touched, and
 *     the fill stores it), and the walk ends when no level below has one.
 * Approximation: rates within rel_eps of their old value keep the old
 * value (no re-key), residuals below rel_eps * C_e count as zero, and a
 * residual that moved by at most rel_eps * C_e since its level was solved
 * does not trigger a re-solve.  res_eL is only overwritten when the level-L
 * allocation is known to be valid for the new value, so sub-tolerance moves
 * never accumulate unseen: the error stays below K * rel_eps * C_e per
 * link.
 *
 * Private links.  A link with one moving user t (tl[k].priv, kept by
 * net__xfer_activate / net__xfer_deactivate) has R_eL = C_e at t's level L:
 * no other level has a user there, and a level that lost its last one was
 * re-solved (load 0) before L.  In the fill it would be a link with one
 * unfrozen user and no outside load: folded into t's private bound as
 * R_j / W_j = C_e / (0 + m w), never a heap entry, never followed (grow()
 * skips links with one user).  So it is left out of E_L altogether and t
 * keeps min C_e / (m w) over its private links (pbound), recomputed when
 * the set or t's weight changed (pb_stale): the fill sees the same bound,
 * so every rate is bit for bit what the fill over all links gives.  Its
 * load is still updated (update_loads(): the counters integrate it).
 *
 * Progressive filling on S_L.  Each link j of E_L keeps R_j (residual minus
 * frozen consumption), W_j = sum over unfrozen users of m w, and the count
 * of unfrozen users; its saturation level is lambda_j = R_j / W_j.  Freezing
 * a transfer at x = w lambda* (lambda* <= lambda_j) turns lambda_j into
 * (R_j - m x) / (W_j - m w) >= lambda_j: saturation levels only grow.  So a
 * lazy binary min-heap suffices: freezing updates R, W and the count in
 * O(1) per link, and a popped entry whose stored key is below its current
 * lambda_j is re-keyed and sifted down instead of being used (its stored key
 * is a lower bound, so the first fresh top is the true minimum).  Cost:
 * O(elements + pops * log |E_L|) with pops <= |E_L| + re-keys, where
 * elements = sum over S_L of its shared links (plus one scan of the users
 * of the links that outside users share).  SimGrid's maxmin.cpp scans all
 * constraints per round instead (O(|E| * rounds)).
 */
#include <math.h>

#include "net-private.h"

/* min / max of two numbers that are never NaN here: the same values as
 * fmin / fmax, which GCC does not inline (a call per use on the hot path). */
static inline double min2(double a, double b) { return a < b ? a : b; }
static inline double max2(double a, double b) { return a > b ? a : b; }

struct net__hent {
    double key;  /* lower bound of the link's saturation level */
    uint32_t j;  /* local link index */
};
typedef struct net__hent hent;

static void grow_scratch(net *n, size_t need)
{
    if (need <= n->cap_s)
        return;
    size_t c = n->cap_s ? n->cap_s : 64;
    while (c < need)
        c *= 2;
    n->s_R = g_renew(double, n->s_R, c);
    n->s_W = g_renew(double, n->s_W, c);
    n->s_out = g_renew(double, n->s_out, c);
    n->s_nunf = g_renew(uint32_t, n->s_nunf, c);
    n->s_heap = g_renew(hent, n->s_heap, c);
    n->cap_s = c;
}

/* The child taken is the smaller one, the left one on a tie; it is picked
 * by arithmetic, not by a branch (which of two keys is smaller is a coin
 * toss the branch predictor loses half the time). */
static void heap_down(hent *h, size_t len, size_t i)
{
    hent e = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= len)
            break;
        if (c + 1 < len)
            c += (size_t)(h[c + 1].key < h[c].key);
        if (!(h[c].key < e.key))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

/* R_eL = C_e - sum_{l<L} load_el, from the current loads. */
static inline double residual(const net *n, uint32_t e, int L)
{
    const net__lvl *lv = &n->lvl[(size_t)e * n->K];
    double r = n->links[e].cap_Bps;
    /* levels without load hold exactly 0: skipping them changes nothing */
    for (uint64_t b = n->links[e].load_bits & (((uint64_t)1 << L) - 1); b; b &= b - 1)
        r -= lv[__builtin_ctzll(b)].load;
    return r;
}

/* True if one of t's links has no residual left at level L: t's level-L
 * rate is then 0 whatever the rest of its component does.  A private link
 * has its whole capacity left (private_bound()) and is not looked at. */
static bool pinned(const net *n, const net__xfer *t, int L)
{
    for (uint32_t k = 0; k < t->n_tl; k++) {
        if (t->tl[k].priv)
            continue;
        uint32_t e = t->tl[k].link;
        if (residual(n, e, L) <= n->opts.rel_eps * n->links[e].cap_Bps)
            return true;
    }
    return false;
}

/* ---- building S_L and E_L ---- */

/* The search of one level solve: S_L is comp_t[0 .. n_t), E_L is
 * comp_l[0 .. n_l), its first n_seeds the seeds; links before next_l have
 * been searched. */
typedef struct search {
    int L;
    uint32_t ep; /* marks S_L's transfers (pinned ones too) and E_L's links */
    size_t n_t, n_l, n_seeds, next_l;
} search;

/* Put link e into E_L (once); returns its local index. */
static inline uint32_t visit_link(net *n, uint32_t e, search *s)
{
    net__link *l = &n->links[e];
    if (l->mark == s->ep)
        return l->sidx;
    l->mark = s->ep;
    net__reserve_u32(&n->comp_l, s->n_l, &n->cap_comp_l);
    l->sidx = (uint32_t)s->n_l;
    n->comp_l[s->n_l++] = e;
    return l->sidx;
}

/* Room for count more elements in net.s_el. */
static void reserve_elems(net *n, size_t count)
{
    if (n->n_el + count <= n->cap_el)
        return;
    size_t c = n->cap_el ? n->cap_el : 256;
    while (c < n->n_el + count)
        c *= 2;
    n->s_el = g_renew(net__elem, n->s_el, c);
    n->cap_el = c;
}

/* min over t's private links of R_eL / (m w): the quotient the fill forms
 * for a link with one user (R_j / W_j with W_j = 0 + m w).  R_eL = C_e
 * exactly while the link is private: no other level has a user there, and
 * a level that lost its last one was re-solved (load 0) before level L.
 * So the value stays valid until the private set or the weight changes
 * (pb_stale). */
static double private_bound(const net *n, const net__xfer *t, int L)
{
    double pb = INFINITY;
    for (uint32_t k = 0; k < t->n_tl; k++) {
        if (!t->tl[k].priv)
            continue;
        uint32_t e = t->tl[k].link;
        g_assert(residual(n, e, L) == n->links[e].cap_Bps);
        double b = n->links[e].cap_Bps / ((double)t->tl[k].mult * t->weight);
        if (b < pb)
            pb = b;
    }
    return pb;
}

/* The fill's bound R_j / W_j for link e whose only level-L user is t (its
 * one unfrozen user, no outside load: R_j = R_eL, or 0 below rel_eps C_e,
 * and W_j = 0 + m w), with R_eL stored as the residual level L is solved
 * with, as fill() stores it for E_L. */
static double level_private_bound(net *n, uint32_t e, int L, uint32_t mult, double w)
{
    double r = residual(n, e, L);
    n->lvl[(size_t)e * n->K + L].res = r;
    double R = r <= n->opts.rel_eps * n->links[e].cap_Bps ? 0.0 : r;
    return R / (mult * w);
}

/* add_transfer() for t's shared link tk (private ones are skipped): its
 * element appended to el[m] (returns the new count), or, if other_levels
 * (the mask of the levels other than L, 0 with one level), its bound
 * folded into *sb. */
static inline uint32_t add_link(net *n, search *s, uint64_t other_levels, const net__tlink *tk,
                                double w, double *sb, net__elem *el, uint32_t m)
{
    if (tk->priv)
        return m;
    uint32_t e = tk->link;
    const net__link *l = &n->links[e];
    /* (a link in E_L already is a seed or has another user in S_L; one
     * with users at level L only has several there: its level record is
     * not read) */
    if (l->mark != s->ep && (l->user_bits & other_levels) != 0 &&
        n->lvl[(size_t)e * n->K + s->L].users == 1) {
        double q = level_private_bound(n, e, s->L, tk->mult, w);
        if (q < *sb)
            *sb = q;
        return m;
    }
    el[m] = (net__elem){visit_link(n, e, s), tk->mult};
    return m + 1;
}

/* Put transfer ts into S_L (unless it is there or pinned) and its shared
 * links into E_L.  A link that only ts moves on (any level) is *private*:
 * it stays out of E_L (neither the search nor the fill touches it), its
 * bound is ts's pbound.  A shared link whose only level-L user is ts and
 * that is not a seed (level L solves it for ts alone: nobody joins S_L
 * through it and no outside user loads it) stays out of E_L too: its bound
 * for this solve goes into ts's sbound. */
static void add_transfer(net *n, search *s, uint32_t ts)
{
    net__xfer *t = &n->xf[ts];
    if (t->mark == s->ep)
        return;
    t->mark = s->ep;
    if (s->L > 0 && t->rate_Bps == 0 && pinned(n, t, s->L)) {
        t->frozen = true; /* stays at 0, joins nothing (see the header) */
        t->new_rate = 0;
        return;
    }
    net__reserve_u32(&n->comp_t, s->n_t, &n->cap_comp_t);
    n->comp_t[s->n_t++] = ts;
    if (t->pb_stale) {
        t->pbound = private_bound(n, t, s->L);
        t->pb_stale = false;
    }
    /* its shared links, for fill() and freeze() (locals: the stores into
     * links and comp_l would otherwise make GCC reload t's fields) */
    const net__tlink *tl = t->tl;
    const uint32_t n_tl = t->n_tl;
    const double w = t->weight;
    double sb = t->pbound;
    reserve_elems(n, n_tl);
    net__elem *el = &n->s_el[n->n_el];
    /* levels other than L: a link with users there may be one ts is alone
     * on at L (none with one level) */
    const uint64_t other = n->K > 1 ? ~((uint64_t)1 << s->L) : 0;
    uint32_t m = 0;
    if (t->n_lazy == 0) {
        for (uint32_t k = 0; k < n_tl; k++)
            m = add_link(n, s, other, &tl[k], w, &sb, el, m);
    } else { /* lazy links are private: walk the others only */
        const uint64_t *eager = t->eager;
        for (uint32_t wd = 0; wd < net__eager_words(t); wd++)
            for (uint64_t bits = eager[wd]; bits; bits &= bits - 1)
                m = add_link(n, s, other, &tl[wd * 64 + (uint32_t)__builtin_ctzll(bits)], w,
                             &sb, el, m);
    }
    t->sbound = sb;
    t->el_off = (uint32_t)n->n_el;
    t->el_n = m;
    n->n_el += m;
}

/* How the search goes through link e (its level load and res still hold the
 * state before the change here: update_loads() and fill() write them
 * later, and propagate() keeps the old residual of a link it marks). */
enum {
    FOLLOW_NONE, /* slack before: nobody's bottleneck */
    FOLLOW_MAX,  /* tight before: a bottleneck of the users with the largest x/w */
    FOLLOW_ALL,  /* its residual fell: its users may no longer fit */
};

static inline int followed(const net *n, uint32_t e, int L)
{
    const net__link *l = &n->links[e];
    size_t i = (size_t)e * n->K + L;
    double tol = n->opts.rel_eps * l->cap_Bps;
    if (((l->dirty_bits >> L) & 1) && residual(n, e, L) < n->lvl[i].res - tol)
        return FOLLOW_ALL;
    return n->lvl[i].load >= n->lvl[i].res - tol ? FOLLOW_MAX : FOLLOW_NONE;
}

/* Search the links not searched yet: the level-L users of a followed link
 * join S_L (on a tight link only those with the largest x/w: the others'
 * bottlenecks are elsewhere), and their links E_L.  A user that stays
 * outside keeps its rate unless check_outside() finds the link it shares
 * with S_L saturated with S_L's users below it. */
static void grow(net *n, search *s)
{
    const int L = s->L;
    const double eps = n->opts.rel_eps;
    for (; s->next_l < s->n_l; s->next_l++) {
        uint32_t e = n->comp_l[s->next_l];
        /* a link that only its S_L user brought in has nobody else to add */
        uint32_t users = n->lvl[(size_t)e * n->K + L].users;
        if (users == 0 || (users == 1 && s->next_l >= s->n_seeds))
            continue;
        int how = followed(n, e, L);
        if (how == FOLLOW_NONE)
            continue;
        const net__link *l = &n->links[e];
        /* the largest x/w of the users as they were (a touched one is in
         * S_L already, and its rate or weight may be from before) */
        double mx = 0;
        if (how == FOLLOW_MAX)
            for (uint32_t u = 0; u < l->n_users; u++)
                if (l->users[u].prio == L) {
                    const net__xfer *t = &n->xf[l->users[u].t];
                    if (!t->touched)
                        mx = max2(mx, t->rate_Bps / t->weight);
                }
        double floor = mx - 4 * eps * mx; /* rates within rel_eps count as equal */
        for (uint32_t u = 0; u < l->n_users; u++) {
            if (l->users[u].prio != L)
                continue;
            const net__xfer *t = &n->xf[l->users[u].t];
            if (how == FOLLOW_ALL || t->rate_Bps / t->weight >= floor)
                add_transfer(n, s, l->users[u].t);
        }
    }
}

/* Start the search of level L from the touched level-L transfers and the
 * seeds (the links with dirty bit L). */
static void collect(net *n, search *s)
{
    const uint64_t bit = (uint64_t)1 << s->L;
    s->ep = net__new_epoch(n);
    s->n_t = s->n_l = s->n_seeds = s->next_l = 0;
    n->n_el = 0;
    for (size_t d = 0; d < n->n_dirty; d++) {
        uint32_t e = n->dirty[d];
        if (n->links[e].dirty_bits & bit) {
            if (n->links[e].lazy) /* the search reads its level load */
                net__link_sync(n, e);
            visit_link(n, e, s);
        }
    }
    s->n_seeds = s->n_l;
    for (size_t i = 0; i < n->n_touched; i++) {
        uint32_t ts = n->touched[i];
        /* a slot may have been freed (and reused) since it was touched */
        if (n->xf[ts].state == NET__MOVING && n->xf[ts].prio == s->L)
            add_transfer(n, s, ts);
    }
    if (n->all_touched) /* every level-L user is in S_L: nothing to search */
        s->next_l = s->n_l;
    grow(n, s);
}

/* W_j recomputed from scratch (only if rounding drove it to <= 0). */
static double recompute_w(const net *n, uint32_t e, const search *s)
{
    const net__link *l = &n->links[e];
    double w = 0;
    for (uint32_t u = 0; u < l->n_users; u++) {
        const net__xfer *t = &n->xf[l->users[u].t];
        if (l->users[u].prio == s->L && t->mark == s->ep && !t->frozen)
            w += l->users[u].mult * t->weight;
    }
    return w;
}

/* Freeze transfer t at x = w lambda: subtract it from its links. */
static inline void freeze(net *n, net__xfer *t, double lambda)
{
    double *R = n->s_R, *W = n->s_W;
    uint32_t *nunf = n->s_nunf;
    t->frozen = true;
    double x = t->weight * lambda;
    t->new_rate = x;
    const net__elem *el = &n->s_el[t->el_off];
    for (uint32_t k = 0; k < t->el_n; k++) {
        uint32_t jj = el[k].loc;
        double m = el[k].mult;
        R[jj] -= m * x;
        W[jj] -= m * t->weight;
        nunf[jj]--;
    }
}

/* Progressive filling of S_L on the residuals of E_L less the load of the
 * users outside S_L: sets new_rate.
 * A link with a single level-L user (most links of a ring) is folded into
 * its user's private bound min_j R_j / (m_j w) instead of getting its own
 * heap entry: it saturates exactly when that user reaches the bound.  Heap
 * entries j < n_l are shared links, n_l + i the private bound of comp_t[i]. */
/* Level-L users of link e outside S_L (they keep their rates): their load,
 * and their largest x/w in *xw_max (-1 if there are none). */
static double outside_load(const net *n, uint32_t e, const search *s, double *xw_max)
{
    const net__link *l = &n->links[e];
    double load = 0, mx = -1;
    for (uint32_t u = 0; u < l->n_users; u++) {
        if (l->users[u].prio != s->L)
            continue;
        const net__xfer *t = &n->xf[l->users[u].t];
        if (t->mark == s->ep)
            continue;
        load += l->users[u].mult * t->rate_Bps;
        mx = max2(mx, t->rate_Bps / t->weight);
    }
    *xw_max = mx;
    return load;
}

static void fill(net *n, const search *s)
{
    const double eps = n->opts.rel_eps;
    const int K = n->K, L = s->L;
    const size_t n_t = s->n_t, n_l = s->n_l;
    grow_scratch(n, n_l + n_t);
    double *R = n->s_R, *W = n->s_W, *out = n->s_out;
    uint32_t *nunf = n->s_nunf;
    for (size_t j = 0; j < n_l; j++) {
        W[j] = 0;
        nunf[j] = 0;
    }
    for (size_t i = 0; i < n_t; i++) {
        net__xfer *t = &n->xf[n->comp_t[i]];
        t->frozen = false;
        t->new_rate = 0;
        const net__elem *el = &n->s_el[t->el_off];
        for (uint32_t k = 0; k < t->el_n; k++) {
            uint32_t j = el[k].loc;
            W[j] += el[k].mult * t->weight;
            nunf[j]++;
        }
    }
    for (size_t j = 0; j < n_l; j++) {
        uint32_t e = n->comp_l[j];
        double r = residual(n, e, L);
        net__lvl *lv = &n->lvl[(size_t)e * K + L];
        lv->res = r;
        out[j] = -1;
        /* users outside S_L (or pinned) take their load off the residual */
        if (nunf[j] < lv->users)
            r -= outside_load(n, e, s, &out[j]);
        R[j] = r <= eps * n->links[e].cap_Bps ? 0.0 : r;
    }
    hent *h = n->s_heap;
    size_t len = 0;
    for (size_t i = 0; i < n_t; i++) {
        const net__xfer *t = &n->xf[n->comp_t[i]];
        double bound = t->sbound;
        const net__elem *el = &n->s_el[t->el_off];
        for (uint32_t k = 0; k < t->el_n; k++) {
            uint32_t j = el[k].loc;
            if (nunf[j] == 1) {
                double b = R[j] / W[j];
                if (b < bound)
                    bound = b;
            }
        }
        if (bound < INFINITY)
            h[len++] = (hent){bound, (uint32_t)(n_l + i)};
    }
    for (size_t j = 0; j < n_l; j++)
        if (nunf[j] > 1)
            h[len++] = (hent){R[j] / W[j], (uint32_t)j};
    for (size_t i = len / 2; i-- > 0;)
        heap_down(h, len, i);

    /* once every transfer of S_L is frozen, what is left on the heap are
     * links without unfrozen users and private bounds of frozen transfers:
     * popping them changes nothing (R_j, read by check_outside(), moves only
     * in freeze()), so the fill stops there */
    size_t left = n_t;
    double lambda = 0;
    while (len > 0 && left > 0) {
        uint32_t j = h[0].j;
        if (j >= n_l) { /* a private bound: exact, never stale */
            net__xfer *t = &n->xf[n->comp_t[j - n_l]];
            double key = h[0].key;
            h[0] = h[--len];
            heap_down(h, len, 0);
            if (t->frozen)
                continue;
            if (key > lambda)
                lambda = key;
            freeze(n, t, lambda);
            left--;
            continue;
        }
        if (nunf[j] == 0) { /* all its users froze elsewhere */
            h[0] = h[--len];
            heap_down(h, len, 0);
            continue;
        }
        if (!(W[j] > 0))
            W[j] = recompute_w(n, n->comp_l[j], s);
        double cur = (R[j] > 0 ? R[j] : 0.0) / W[j];
        if (cur > h[0].key) { /* stale lower bound: re-key */
            h[0].key = cur;
            heap_down(h, len, 0);
            continue;
        }
        h[0] = h[--len];
        heap_down(h, len, 0);
        if (cur > lambda)
            lambda = cur;
        const net__link *l = &n->links[n->comp_l[j]];
        for (uint32_t u = 0; u < l->n_users; u++) {
            if (l->users[u].prio != L)
                continue;
            net__xfer *t = &n->xf[l->users[u].t];
            if (t->mark == s->ep && !t->frozen) { /* users outside S_L keep their rates */
                freeze(n, t, lambda);
                left--;
            }
        }
    }
}

/* After a fill: a link of E_L that users outside S_L share and that is now
 * saturated is a bottleneck of S_L only if no outside user has a larger
 * x/w there (header, (2)).  Where one has, its outside users join S_L (and
 * the search goes on from their links); true if S_L grew, so that it is
 * filled again. */
static bool check_outside(net *n, search *s)
{
    const double eps = n->opts.rel_eps;
    const double *R = n->s_R, *out = n->s_out;
    bool grew = false;
    /* only the links this fill saw: add_transfer() appends links whose
     * R and out the next fill computes */
    const size_t n_l = s->n_l;
    for (size_t j = 0; j < n_l; j++) {
        if (out[j] < 0)
            continue;
        uint32_t e = n->comp_l[j];
        const net__link *l = &n->links[e];
        if (R[j] > eps * l->cap_Bps)
            continue; /* slack: nobody's bottleneck */
        double in = 0;
        for (uint32_t u = 0; u < l->n_users; u++) {
            const net__xfer *t = &n->xf[l->users[u].t];
            if (l->users[u].prio == s->L && t->mark == s->ep)
                in = max2(in, t->new_rate / t->weight);
        }
        if (out[j] <= in + eps * max2(in, out[j]))
            continue;
        for (uint32_t u = 0; u < l->n_users; u++)
            if (l->users[u].prio == s->L)
                add_transfer(n, s, l->users[u].t);
        grew = true;
    }
    if (grew)
        grow(n, s);
    return grew;
}

/* Install the new rates of S_L; re-arm completion events of those that
 * changed.  The transfers whose rate changed are moved to the front of
 * comp_t; returns their count. */
static size_t apply_rates(net *n, size_t n_t, double now)
{
    const double eps = n->opts.rel_eps;
    size_t n_ch = 0;
    for (size_t i = 0; i < n_t; i++) {
        uint32_t s = n->comp_t[i];
        net__xfer *t = &n->xf[s];
        double old = t->rate_Bps, x = t->new_rate;
        if (fabs(x - old) <= eps * max2(x, old))
            continue;
        net__xfer_advance(t, now);
        if (t->n_dl > 0 && (old > 0) != (x > 0))
            net__dom_rate_sign(n, s, x > 0, now);
        t->rate_Bps = x;
        t->rver++;
        n->stats.rate_changes++;
        net__xfer_reschedule(n, s);
        if (n->rate_obs)
            n->rate_obs(n->rate_obs_user, net__xfer_id(n, s), t->user, x, false, now);
        n->comp_t[n_ch++] = s;
    }
    return n_ch;
}

/* True if link e has a level-l user (moving, any rate). */
static inline bool has_users_at(const net *n, uint32_t e, int l)
{
    return (n->links[e].user_bits >> l) & 1;
}

/* Level l-1's load on e is final: carry a move of R_el down the levels.
 * Level l must be re-solved around e only if e is (or becomes) tight
 * there; a link that was slack before and stays slack after is nobody's
 * bottleneck, so the level-l allocation stays max-min (header, (4)), and
 * R_e,l+1 moves by the same amount. */
static void propagate(net *n, uint32_t e, int l, double r)
{
    const int K = n->K;
    const net__link *lk = &n->links[e];
    const double tol = n->opts.rel_eps * lk->cap_Bps;
    net__lvl *lv = &n->lvl[(size_t)e * K];
    /* r = R_el, then R_e,l+1 = R_el - load_el, ... */
    for (; l < K; r -= lv[l].load, l++) {
        if (((lk->user_bits | lk->dirty_bits) >> l) == 0)
            return; /* no level from l down has a user: nobody to re-solve */
        if (lk->dirty_bits & ((uint64_t)1 << l))
            return; /* level l re-solves around e and carries on from there */
        if (!has_users_at(n, e, l))
            continue; /* its load is 0 and its stored residual unused */
        double *res = &lv[l].res;
        if (fabs(r - *res) <= tol)
            return; /* no move: nothing below moves either */
        double load = lv[l].load;
        bool slack = load + tol < min2(r, *res);
        if (!slack && has_users_at(n, e, l)) {
            /* the old residual stays for followed(); fill() stores the new */
            net__mark_dirty(n, e, l);
            return;
        }
        *res = r;
    }
}

/* Recompute load_eL on link e (once per level solve) and carry the move of
 * its residual to the levels below.  only: NULL, or e's one level-L user
 * (k: e's index in its links), whose load is then read without scanning
 * e's user list (the same sum: 0 + m x); a link without level-L users has
 * load 0 without a scan either.  filled_ep: the search epoch of this level's
 * fill, which stored R_eL for every link of E_L (the links it marked), or 0
 * if there was no fill. */
static void update_link(net *n, uint32_t e, int L, double now, uint32_t filled_ep,
                        const net__xfer *only, uint32_t k)
{
    const int K = n->K;
    const uint64_t bit = (uint64_t)1 << L;
    net__link *l = &n->links[e];
    if (l->lmark == n->load_epoch)
        return;
    l->lmark = n->load_epoch;
    double load = 0, tag = 0;
    if (only) {
        double mx = only->tl[k].mult * only->rate_Bps;
        load += mx;
        tag += mx * only->tag;
    } else if (n->lvl[(size_t)e * K + L].users > 0) {
        for (uint32_t u = 0; u < l->n_users; u++) {
            if (l->users[u].prio != L)
                continue;
            const net__xfer *t = &n->xf[l->users[u].t];
            double mx = l->users[u].mult * t->rate_Bps;
            load += mx;
            tag += mx * t->tag;
        }
    }
    net__lvl *lv = &n->lvl[(size_t)e * K];
    if (load != lv[L].load || tag != lv[L].tag) {
        net__link_advance(l, now);
        lv[L].load = load;
        lv[L].tag = tag;
        if (load != 0) /* rates are >= 0: no load means no tag either */
            l->load_bits |= bit;
        else
            l->load_bits &= ~bit;
        net__link_sum_loads(n, e);
    }
    /* level L around e is now solved for its current residual (a fill of
     * this level stored it already on E_L; a private link, outside E_L,
     * gets the same value from residual(): the loads above L have not
     * moved since the fill; this also covers seeds without level-L users
     * and components of pinned transfers only).  R_e,L+1 = R_eL - load_eL
     * is the same subtraction residual() would do (bit for bit: it
     * subtracts the loaded levels in order). */
    double r = filled_ep != 0 && l->mark == filled_ep ? lv[L].res : residual(n, e, L);
    lv[L].res = r;
    if (L + 1 < K)
        propagate(n, e, L + 1, r - lv[L].load);
}

/* Recompute load_eL where it can have changed: on the seeds (their user set
 * or residual changed; the first n_seeds links of E_L) and on the links of
 * the n_ch transfers whose rate changed (comp_t's front).  Elsewhere in E_L
 * R_eL is within tolerance of res_eL (else the link would be a seed, or
 * propagate() already stored the slack move) and the load is unchanged. */
static void update_loads(net *n, int L, size_t n_seeds, size_t n_ch, uint32_t filled_ep,
                         double now)
{
    for (size_t i = 0; i < n_ch; i++) {
        const net__xfer *t = &n->xf[n->comp_t[i]];
        /* lazy links are brought up to date when read (net__link_sync()) */
        for (uint32_t wd = 0; wd < net__eager_words(t); wd++)
            for (uint64_t bits = t->eager[wd]; bits; bits &= bits - 1) {
                uint32_t k = wd * 64 + (uint32_t)__builtin_ctzll(bits);
                uint32_t e = t->tl[k].link;
                if (n->links[e].lmark == n->load_epoch)
                    continue; /* updated already (another user of it changed rate) */
                bool alone = t->tl[k].priv || n->lvl[(size_t)e * n->K + L].users == 1;
                update_link(n, e, L, now, filled_ep, alone ? t : NULL, k);
            }
    }
    for (size_t j = 0; j < n_seeds; j++) {
        uint32_t e = n->comp_l[j];
        if (n->links[e].lazy)
            net__link_sync(n, e);
        update_link(n, e, L, now, filled_ep, NULL, 0);
        /* a private link (its other users left: it is a seed) is kept
         * lazily from now on */
        if (n->links[e].n_users == 1 && !n->links[e].lazy)
            net__link_make_lazy(n, e);
    }
}

void net__solve(net *n)
{
    if (n->dirty_any == 0)
        return;
    double now = evq_now(n->q);
    n->stats.solves++;
    for (int L = 0; L < n->K; L++) {
        if (!(n->dirty_any & ((uint64_t)1 << L)))
            continue;
        if (++n->load_epoch == 0) { /* wrapped: clear the stamps */
            for (size_t e = 0; e < n->n_links; e++)
                n->links[e].lmark = 0;
            n->load_epoch = 1;
        }
        search s = {.L = L};
        collect(n, &s);
        size_t n_ch = 0;
        if (s.n_t > 0) {
            do
                fill(n, &s);
            while (check_outside(n, &s));
            n->stats.level_solves++;
            n->stats.resolved_transfers += s.n_t;
            n_ch = apply_rates(n, s.n_t, now);
        }
        update_loads(n, L, s.n_seeds, n_ch, s.n_t > 0 ? s.ep : 0, now);
    }
    for (size_t d = 0; d < n->n_dirty; d++)
        n->links[n->dirty[d]].dirty_bits = 0;
    n->n_dirty = 0;
    n->dirty_any = 0;
    for (size_t i = 0; i < n->n_touched; i++)
        n->xf[n->touched[i]].touched = false;
    n->n_touched = 0;
    n->all_touched = false;
}
