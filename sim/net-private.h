/* net-private.h - the network's internals, shared by net.c, net_state.c and
 * net_solve.c.  No other file includes this.
 */
#ifndef CCSIM_SIM_NET_PRIVATE_H
#define CCSIM_SIM_NET_PRIVATE_H

#include "net.h"

/* One entry of a dominated link's user list (net_link_set_dominator): a
 * moving transfer whose bytes the link's counters follow. */
typedef struct net__duser {
    uint32_t t;    /* transfer slot */
    uint32_t k;    /* index of this link in the transfer's tl[] (>= its n_tl) */
    uint32_t mult; /* m_ie */
    double base;   /* the transfer's moved when its bytes here were last counted */
} net__duser;

/* A link whose constraint another link implies (net.dom[e]).  It is in no
 * solve, and its counters are here, not in net.links[e]: what its users
 * carried up to their last fold (dom_fold()) and the busy time up to
 * busy_since; net__dom_stats() adds the rest. */
typedef struct net__dom {
    uint32_t by;         /* the dominating link + 1; 0: the link is not dominated */
    bool twin;           /* by is its twin (net_link_set_twin): on no transfer's
                          * links, its counters follow by's */
    uint32_t n, cap;     /* moving users */
    uint32_t n_pos;      /* users moving at a rate > 0 */
    uint32_t refs;       /* transfers (waiting or moving) that name it */
    uint32_t mark, sidx; /* net_transfer_start's merge, as net__link's */
    uint32_t dominates;  /* links that name this one as their dominator (twins too) */
    bool listed;         /* on net.moved */
    double busy_since;   /* while n_pos > 0 */
    double carried_bytes, busy_s, tagged_bytes;
    net__duser *u;
    /* a twin: its twin's counters, less what net_links_delay() added to
     * them, when it was declared (net__twin_stats()) */
    net_link_stats at_set;
    /* a link with twins: their ids, and what net_links_delay() added to its
     * counters since its first twin */
    uint32_t *tw, n_tw, cap_tw;
    net_link_stats added;
} net__dom;

/* One entry of a link's user list: a moving transfer on the link. */
typedef struct net__user {
    uint32_t t;    /* transfer slot */
    uint32_t k;    /* index of this link in the transfer's tl[] */
    uint32_t mult; /* m_ie */
    int32_t prio;  /* the transfer's level (copied: the BFS filters on it) */
} net__user;

/* Two cache lines (the array is 64-byte aligned): what the search and the
 * fill read, then the counters that a load change brings up to date. */
typedef struct net__link {
    /* line 1: read by every solve that reaches the link */
    net__user *users;     /* moving transfers on the link, unordered */
    uint32_t n_users, cap_users;
    uint32_t mark;        /* epoch stamp: visited in the current BFS / dedup */
    uint32_t sidx;        /* local index in the current component */
    uint32_t lmark;       /* == net.load_epoch: its load was updated in this level solve */
    bool lazy;            /* private, and its user's tl[k].lazy (net__link_sync()) */
    uint64_t dirty_bits;  /* bit L: the level-L allocation around this link must be re-solved */
    uint64_t user_bits;   /* bit L: the link has a moving level-L user (lvl users > 0) */
    uint64_t load_bits;   /* bit L: the level-L load is non-zero (the others are exactly 0) */
    double cap_Bps;       /* C_e */
    /* line 2: counters, valid at last_s */
    double load_Bps;      /* sum over levels of the level loads */
    double tag_Bps;       /* sum over levels of the level tag loads */
    double last_s;
    double carried_bytes, busy_s, tagged_bytes;
    double lat_s;         /* l_e */
    bool present;         /* false once removed */
    bool moved_listed;    /* on net.moved (carried load since the last net_links_moved) */
    uint32_t refs;        /* transfers (waiting or moving) that name this link */
} __attribute__((aligned(64))) net__link;

/* While link e is lazy (net.lbase[e]; its one user's tl[k].lazy): its
 * counters and level load hold what they held when its user's integrals
 * were moved and busy and its rate count ver (net__link_sync()).  Apart
 * from the link: read only when the link is synced. */
typedef struct net__lbase {
    double moved, busy;
    uint64_t ver;
} net__lbase;

/* A link's state at one priority level (net.lvl[e * K + L]; 32 bytes, so a
 * record never straddles two cache lines). */
typedef struct net__lvl {
    double load;    /* load_eL = sum over level-L users of m x */
    double tag;     /* sum over level-L users of m x tag */
    double res;     /* the residual R_eL level L was last solved with */
    uint32_t users; /* moving level-L users of e */
} __attribute__((aligned(32))) net__lvl;

/* One link of a transfer. */
typedef struct net__tlink {
    uint32_t link; /* link id */
    uint32_t mult; /* m_ie */
    uint32_t pos;  /* index in the link's users[] while moving */
    bool priv;     /* while moving: the transfer is the link's only moving user */
    bool lazy;     /* priv, and the link's load and counters are not kept up to
                    * date: net__link_sync() brings them from the transfer */
} net__tlink;

/* Solver scratch: one shared link of a transfer in the current search (its
 * private links, which only it moves on, are folded into its bound). */
typedef struct net__elem {
    uint32_t loc;  /* the link's local index in E_L */
    uint32_t mult; /* m_ie */
} net__elem;

enum { NET__FREE, NET__WAITING, NET__MOVING, NET__DONE };

typedef struct net__xfer {
    uint32_t gen;   /* generation, >= 1; part of the id */
    uint8_t state;  /* NET__FREE / WAITING / MOVING / DONE (in on_done) */
    bool frozen;    /* solver scratch */
    bool touched;   /* on net.touched */
    int prio;       /* p_i */
    double weight;  /* w_i */
    double size_bytes;
    double rem_bytes; /* remaining at last_s */
    double last_s;
    double rate_Bps;  /* x_i, in force since last_s */
    double moved;     /* integral of x_i dt up to last_s (what its lazy links carry per m) */
    double busy;      /* time with x_i > 0 up to last_s */
    uint64_t rver;    /* bumped at every rate change (a lazy link's base_ver) */
    double new_rate;  /* solver scratch */
    /* min over its private links (tl[k].priv) of R_eL / (m w), R_eL as the
     * fill uses it (= C_e: nothing else loads the link); stale after its
     * private set or weight changed, recomputed by the next search */
    double pbound;
    bool pb_stale;
    /* solver scratch: pbound and the bounds of the links where the transfer
     * is the only user at its level, folded in by the search */
    double sbound;
    uint32_t el_off, el_n; /* solver scratch: its shared links, net.s_el[el_off ..] */
    double tag;
    /* its links: tl[0 .. n_tl) take part in solves, tl[n_tl .. n_tl + n_dl)
     * are dominated (their pos: the index in net.dom[link].u) */
    net__tlink *tl;
    uint32_t n_tl;
    uint32_t n_dl;
    /* bit k (word k / 64): tl[k] is not lazy, so a solve that changes the
     * transfer's rate updates that link (the search, which wants its shared
     * links, a subset, skips the lazy ones with it) */
    uint64_t *eager; /* in tl's block, after tl[] (net_transfer_start) */
    uint32_t cap_tl; /* links tl's block holds; the block stays with the slot
                      * when it is freed, for its next transfer */
    uint32_t n_lazy; /* its lazy links (0: the plain walk over tl is cheaper) */
    uint32_t mark;    /* epoch stamp */
    uint32_t next_free;
    evq_id ev;        /* startup event while waiting, completion event while moving */
    net_done_fn on_done;
    void *user;
    uint64_t arg;     /* the spec's, for net_transfer_arg */
} net__xfer;

struct net {
    net_options opts;
    int K;
    evq *q;
    net__link *links;
    size_t n_links, cap_links;
    net__lvl *lvl;    /* [e * K + L], 64-byte aligned */
    net__lbase *lbase; /* [e] */
    net__dom *dom;     /* [e], NULL until net_link_set_dominator() first names a link */
    uint64_t *dom_bits; /* bit e: link e is dominated (net.dom[e].by != 0) */
    uint64_t *tw_bits;  /* bit e: link e has twins (net.dom[e].n_tw > 0) */
    /* links that carried load since the last net_links_moved (each once) */
    GArray *moved;     /* uint32 link ids */
    GArray *moved_out; /* what the last net_links_moved returned, sorted */
    net__xfer *xf;
    size_t n_xf, cap_xf;
    uint32_t free_xf;
    uint32_t epoch;
    uint32_t load_epoch; /* bumped per level solve */
    /* dirty links (each once) and the lowest dirty level */
    uint32_t *dirty;
    size_t n_dirty, cap_dirty;
    uint64_t dirty_any; /* union of the links' dirty_bits and the touched levels */
    /* transfers touched since the last solve (started, re-weighted, moved to
     * a level; each once): they join the re-solve of their level whatever
     * their links' state */
    uint32_t *touched; /* slots (net__reserve_u32, as dirty: a GArray append was a call a start) */
    size_t n_touched, cap_touched;
    bool all_touched; /* every moving transfer is on touched (net_resolve_all) */
    evq_id solve_ev;
    /* solver scratch, grown on demand */
    uint32_t *comp_t, *comp_l;
    size_t cap_comp_t, cap_comp_l;
    double *s_R, *s_W;
    double *s_out; /* [local link]: largest x/w of its users outside S_L, -1 if none */
    uint32_t *s_nunf;
    net__elem *s_el; /* the shared links of S_L's transfers, by transfer */
    net__tlink *new_tl; /* a starting transfer's links, merged (net_transfer_start) */
    size_t cap_new_tl;
    size_t n_el, cap_el;
    struct net__hent *s_heap;
    size_t cap_s;
    net_stats stats;
    net_rate_fn rate_obs; /* (nullable) net_set_rate_observer */
    void *rate_obs_user;
    net_delay_fn delay_obs; /* (nullable) net_set_delay_observer */
    void *delay_obs_user;
};

#define NET__NO_POS UINT32_MAX

/* The id of the transfer in slot s: generation in the high 32 bits. */
static inline net_transfer_id net__xfer_id(const net *n, uint32_t s)
{
    return ((uint64_t)n->xf[s].gen << 32) | s;
}

/* The slot of a transfer not yet reaped (waiting, moving, or DONE inside
 * its on_done), or NET__NO_POS. */
static inline uint32_t net__slot(const net *n, net_transfer_id id)
{
    uint32_t s = (uint32_t)(id & 0xffffffffu);
    uint32_t gen = (uint32_t)(id >> 32);
    if (gen == 0 || s >= n->n_xf || n->xf[s].gen != gen || n->xf[s].state == NET__FREE)
        return NET__NO_POS;
    return s;
}

/* The slot of an active (waiting or moving) transfer, or NET__NO_POS. */
static inline uint32_t net__lookup(const net *n, net_transfer_id id)
{
    uint32_t s = net__slot(n, id);
    return s != NET__NO_POS && n->xf[s].state != NET__DONE ? s : NET__NO_POS;
}

/* Room in *a (len entries, *cap allocated) for one more: the net's id
 * lists (dirty links, touched transfers, a search's components) double
 * from 64 when full. */
static inline void net__reserve_u32(uint32_t **a, size_t len, size_t *cap)
{
    if (len == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *a = g_renew(uint32_t, *a, *cap);
    }
}

/* ---- Bookkeeping (net_state.c) ---- */

/* A free slot for a new transfer (reused or grown), generation >= 1. */
uint32_t net__xfer_alloc(net *n);
/* Free slot s's links, bump its generation and put it on the free list. */
void net__xfer_release(net *n, uint32_t s);
/* Put a waiting transfer on its links' user lists: its bytes start moving. */
void net__xfer_activate(net *n, uint32_t s);
/* Take a moving transfer off its links' user lists and drop its
 * references to them (O(its links)). */
void net__xfer_deactivate(net *n, uint32_t s);
/* Drop a waiting transfer's references to its links (net_link_remove
 * checks them). */
void net__xfer_release_refs(net *n, uint32_t s);
/* Put a moving transfer on net.touched (once). */
void net__list_touched(net *n, uint32_t s);
/* Mark a transfer's links dirty at level L, list it as touched if it moves
 * at level L, and make sure a solve runs in this instant. */
void net__touch(net *n, uint32_t s, int L);
/* The event that ends a transfer's startup wait (arg: its id). */
void net__startup_event(void *ctx, uint64_t arg, double now_s);

/* Count a moving user of link e at level L in (delta +1) or out (-1). */
static inline void net__count_user(net *n, uint32_t e, int L, int delta)
{
    uint32_t *c = &n->lvl[(size_t)e * n->K + L].users;
    if (delta > 0 && (*c)++ == 0)
        n->links[e].user_bits |= (uint64_t)1 << L;
    else if (delta < 0 && --(*c) == 0)
        n->links[e].user_bits &= ~((uint64_t)1 << L);
}

/* Mark link e dirty at level L (its level-L users or residual changed). */
void net__mark_dirty(net *n, uint32_t e, int L);

/* Bump n->epoch (resetting all marks on wrap) and return it. */
uint32_t net__new_epoch(net *n);

/* Bring link counters up to now with the current totals. */
void net__link_advance(net__link *l, double now_s);

/* Link e's total loads from its level loads (the same sums as over all K
 * levels: the skipped ones hold exactly 0), and e listed on net.moved if it
 * carries load. */
static inline void net__link_sum_loads(net *n, uint32_t e)
{
    net__link *l = &n->links[e];
    const net__lvl *lv = &n->lvl[(size_t)e * n->K];
    double sum = 0, tsum = 0;
    for (uint64_t b = l->load_bits; b; b &= b - 1) {
        sum += lv[__builtin_ctzll(b)].load;
        tsum += lv[__builtin_ctzll(b)].tag;
    }
    l->load_Bps = sum;
    l->tag_Bps = tsum;
    if (sum > 0 && !l->moved_listed) {
        l->moved_listed = true;
        g_array_append_val(n->moved, e);
    }
}

/* Mark t's link k lazy or not (tl[k].lazy and its bit in t->eager). */
static inline void net__tl_set_lazy(net__xfer *t, uint32_t k, bool lazy)
{
    uint64_t bit = (uint64_t)1 << (k % 64);
    if (t->tl[k].lazy != lazy)
        t->n_lazy = lazy ? t->n_lazy + 1 : t->n_lazy - 1;
    t->tl[k].lazy = lazy;
    if (lazy)
        t->eager[k / 64] &= ~bit;
    else
        t->eager[k / 64] |= bit;
}

/* The words of t->eager (the links that are not lazy are, in order, k =
 * 64 w + each set bit of word w). */
static inline uint32_t net__eager_words(const net__xfer *t)
{
    return (t->n_tl + 63) / 64;
}

/* Bring a transfer's remaining bytes and its integrals up to now with its
 * current rate. */
void net__xfer_advance(net__xfer *t, double now_s);

/* The integral of t's rate (moved) and its busy time up to now_s, without
 * advancing it (its rem_bytes keep their rounding). */
static inline double net__xfer_moved_at(const net__xfer *t, double now_s)
{
    double dt = now_s - t->last_s;
    return dt > 0 && t->rate_Bps > 0 ? t->moved + t->rate_Bps * dt : t->moved;
}
static inline double net__xfer_busy_at(const net__xfer *t, double now_s)
{
    double dt = now_s - t->last_s;
    return dt > 0 && t->rate_Bps > 0 ? t->busy + dt : t->busy;
}

/* Bring lazy link e's counters up to now from its user's integrals, and its
 * level load (and solved residual) to what eager updates would have left
 * after the user's last rate change; e stays lazy. */
void net__link_sync(net *n, uint32_t e);

/* Make link e lazy if it is private and not yet lazy (its level load and
 * counters are up to date: the solve has just updated it), unless
 * net_links_delay() put its counters ahead of now. */
void net__link_make_lazy(net *n, uint32_t e);

/* Sync every lazy link (net_links_moved()). */
void net__sync_all_lazy(net *n);

/* Re-arm a moving transfer's completion event after its rate changed. */
void net__xfer_reschedule(net *n, uint32_t slot);

/* ---- Dominated links (net_state.c) ---- */

/* True if link e is dominated (it is in no solve). */
static inline bool net__dominated(const net *n, uint32_t e)
{
    return n->dom_bits != NULL && (n->dom_bits[e / 64] >> (e % 64)) & 1;
}

/* True if link e has twins (net_link_set_twin). */
static inline bool net__has_twins(const net *n, uint32_t e)
{
    return n->tw_bits != NULL && (n->tw_bits[e / 64] >> (e % 64)) & 1;
}

/* Twin e's counters, from its twin's (*by, up to date at now). */
void net__twin_stats(const net *n, uint32_t e, const net_link_stats *by, net_link_stats *out);

/* Transfer s's rate went from 0 to > 0 (up) or back: its dominated links'
 * busy clocks. */
void net__dom_rate_sign(net *n, uint32_t s, bool up, double now_s);

/* Dominated link e's counters at now_s. */
void net__dom_stats(const net *n, uint32_t e, double now_s, net_link_stats *out);

/* Solve everything dirty (net_solve.c). */
void net__solve(net *n);

#endif /* CCSIM_SIM_NET_PRIVATE_H */
