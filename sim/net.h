/* net.h - the flow-level network: links, transfers and their rates
 * (docs/model.md; docs/engine.md).  Not here: collectives, jobs.
 *
 * The model.
 *   Links e are directed, with capacity C_e > 0 (bytes/s) and latency
 *   l_e >= 0 (s); a full-duplex cable is two links.
 *   A transfer i moves size_i bytes at one common rate x_i over a set of
 *   links, using link e with an integer multiplicity m_ie >= 1 (a lock-step
 *   ring is one transfer whose link set is the union of its hops' paths; a
 *   link crossed twice carries 2 x_i).  It has a priority level
 *   p_i in 0..K-1 (0 is the highest) and a weight w_i > 0.
 *   Rates: strict priority between levels, weighted max-min fairness within
 *   a level.  With load_eL = sum_{i at level L on e} m_ie x_i, level L sees
 *   the residual capacity
 *       R_eL = C_e - sum_{l < L} load_el
 *   and its rates are the weighted max-min allocation on R_eL, found by
 *   progressive filling: x_i = w_i * lambda for every unfrozen i, lambda
 *   grows from 0; link e saturates when sum_i m_ie x_i = R_eL; the
 *   transfers on a saturated link are frozen at their current rate; repeat
 *   until every transfer is frozen.
 *   Startup (alpha-beta): a transfer waits spec.startup_s (the caller's alpha
 *   per step plus the path's propagation latency, see net_path_latency_s)
 *   before its bytes move; meanwhile its rate is 0 and it uses no capacity.
 *   It completes when its size_bytes have moved: for a transfer alone on an
 *   idle path, at start + startup_s + size_bytes / min_e(C_e / m_ie).
 *
 * Incremental solving.  A change (a transfer activates, ends, is cancelled,
 * or changes priority or weight) marks its links dirty from its level
 * downwards.  All changes made at one simulated instant are solved together
 * (a zero-delay solve event; any query solves first if something is dirty),
 * so a scheduler that re-prioritises many jobs at once costs one solve.
 * The solve re-computes, for each level L from the highest dirty level down,
 * only the changed level-L transfers and those that tight links connect to
 * them: a saturated link brings in its users with the largest rate per
 * weight (it is their bottleneck), a link whose residual fell all its
 * users; the others keep their rates unless a link that the re-solved
 * transfers saturate shows one of them must give way (a transfer held at
 * rate 0 by a link with no residual left joins nothing); a link whose
 * residual for the next level moved becomes dirty there if it is tight at
 * that level (a move on a slack link changes no bottleneck).
 * The proof that this equals the from-scratch allocation is at the top of
 * net_solve.c.
 * Completion events live in the evq and are re-keyed only for transfers
 * whose rate changed; remaining bytes and link counters are brought up to
 * date lazily.  Cost of a solve: O(sum over re-solved levels of
 * (elements of the re-solved transfers) * log(links they cross)),
 * plus O(log n) evq work per transfer whose rate changed; nothing is
 * proportional to the number of transfers or links in the whole network.
 *
 * Ids.  Links are numbered 0, 1, 2, ... in the order they are added; a
 * removed link's id is never reused.  Transfer ids are (generation << 32) |
 * slot; 0 (NET_TRANSFER_NONE) is never valid and a finished or cancelled
 * transfer's id is recognised as stale.
 *
 * Floats: every tolerance comes from net_options.rel_eps, held by the net.
 * A net is single-threaded; separate nets are independent.
 */
#ifndef CCSIM_SIM_NET_H
#define CCSIM_SIM_NET_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

typedef struct net net;

/* A link's id: 0 .. net_link_count() - 1. */
typedef uint32_t net_link_id;

/* A transfer's id: (generation << 32) | slot; 0 is never valid. */
typedef uint64_t net_transfer_id;
#define NET_TRANSFER_NONE ((net_transfer_id)0)

#define NET_DEFAULT_PRIO_LEVELS 8
#define NET_MAX_PRIO_LEVELS 64
#define NET_DEFAULT_REL_EPS 1e-11

typedef struct net_options {
    int prio_levels; /* K, number of strict priority levels, 1..NET_MAX_PRIO_LEVELS */
    double rel_eps;  /* relative float tolerance: a rate within rel_eps of its old value
                      * is left unchanged (no re-key), a residual capacity below
                      * rel_eps * C_e counts as 0, a load change below rel_eps * C_e
                      * does not propagate to lower levels; in (0, 1e-3] */
} net_options;

/* The defaults: K = NET_DEFAULT_PRIO_LEVELS, rel_eps = NET_DEFAULT_REL_EPS. */
net_options net_options_default(void);

/* Called once when a transfer has moved all its bytes, after it has been
 * removed from the allocation (its id is no longer active; net queries on
 * it give rate 0 and remaining 0).  The callback may start, cancel and
 * re-prioritise other transfers and add events; the net reaps the finished
 * transfer after the callback returns. */
typedef void (*net_done_fn)(void *user, net_transfer_id id, double now_s);

typedef struct net_transfer_spec {
    double size_bytes;         /* bytes to move, finite > 0 */
    const net_link_id *links;  /* the links it uses (a link listed twice adds up) */
    const uint32_t *mult;      /* multiplicity per entry of links, >= 1; NULL = all 1 */
    size_t n_links;            /* entries in links (and mult), >= 1 */
    int prio;                  /* priority level 0..K-1, 0 highest */
    double weight;             /* max-min weight within its level, finite > 0 */
    double startup_s;          /* wait before bytes move (alpha + propagation), finite >= 0 */
    double tag;                /* finite number; links accumulate m * x * tag * dt
                                * (net_link_stats.tagged_bytes); 0 if unused */
    net_done_fn on_done;       /* called at completion (not on cancel); may be NULL */
    void *user;                /* passed to on_done */
    uint64_t arg;              /* the caller's own, read back by net_transfer_arg */
} net_transfer_spec;

/* Per-link counters, up to date at evq_now(). */
typedef struct net_link_stats {
    double carried_bytes; /* integral of the link's load: sum over transfers of m * x * dt */
    double busy_s;        /* time during which the load was > 0 */
    double tagged_bytes;  /* integral of sum over transfers of m * x * tag * dt */
    double load_Bps;      /* current load: sum over active transfers of m * x */
} net_link_stats;

/* An observer of transfer rates (timelines): called after a solve changed
 * a transfer's rate (rate_Bps, done false) and when it completes (rate 0,
 * done true, before its on_done); xfer_user is the transfer's spec.user.
 * Not called for cancelled transfers. */
typedef void (*net_rate_fn)(void *obs, net_transfer_id id, void *xfer_user, double rate_Bps,
                            bool done, double now_s);

/* An observer of delays (timelines): transfer id was moved dt_s into the
 * future at now_s by net_transfers_delay (carried_B 0: it stands still
 * meanwhile) or net_transfer_progress (it carries carried_B meanwhile). */
typedef void (*net_delay_fn)(void *obs, net_transfer_id id, void *xfer_user, double carried_B,
                             double dt_s, double now_s);

/* Engine-wide counters since net_new(). */
typedef struct net_stats {
    uint64_t solves;              /* solves run (batched changes count once) */
    uint64_t level_solves;        /* (solve, level) pairs that re-solved >= 1 transfer */
    uint64_t resolved_transfers;  /* sum over solves of transfers re-solved (all levels) */
    double mean_component_size;   /* resolved_transfers / solves (0 if no solve) */
    uint64_t transfers_started;   /* successful net_transfer_start calls */
    uint64_t transfers_done;      /* transfers that completed (on_done called) */
    uint64_t transfers_cancelled; /* net_transfer_cancel successes */
    uint64_t rate_changes;        /* transfers whose rate changed in a solve */
    size_t active_transfers;      /* transfers moving bytes or waiting for their startup */
    size_t links;                 /* links present (added and not removed) */
} net_stats;

/* A new network without links on the queue q (the net pushes its startup,
 * completion and solve events there; q must outlive the net).  Errors:
 * CCS_ERROR_INVALID for bad options.  (transfer full) */
net *net_new(const net_options *opts, evq *q, GError **error);

/* Free the net; cancels its pending events in the queue (no on_done is
 * called).  NULL does nothing.  Not from inside a net callback. */
void net_free(net *n);

/* The queue the net runs on.  (transfer none) */
evq *net_evq(const net *n);

/* Number of priority levels K. */
int net_prio_levels(const net *n);

/* Add a directed link with capacity cap_Bps (finite > 0) and latency
 * latency_s (finite >= 0); stores its id in *id.  Errors: CCS_ERROR_INVALID.
 * Amortised O(1). */
bool net_link_add(net *n, double cap_Bps, double latency_s, net_link_id *id, GError **error);

/* Remove a link no transfer uses (waiting or moving); its id is never
 * reused.  Errors: CCS_ERROR_INVALID (unknown, already removed, in use). */
bool net_link_remove(net *n, net_link_id id, GError **error);

/* Declare that link a never binds: every transfer that moves on a also
 * moves on b, at least as often, and C_a >= C_b, so b's constraint implies
 * a's and a stays out of every solve (its counters and load still follow
 * its transfers; its busy time is the time some transfer on it moves at a
 * rate > 0).  The caller vouches for the first part: a transfer on a
 * without b at least as often is refused.  a must not be in use; a
 * dominator cannot itself be dominated.  Errors: CCS_ERROR_INVALID. */
bool net_link_set_dominator(net *n, net_link_id a, net_link_id b, GError **error);

/* Declare that link a is b's twin: every transfer on a moves on b exactly
 * as often and every transfer on b moves on a exactly as often, and C_a >=
 * C_b.  Then a carries what b carries: it stays out of every solve and off
 * every transfer's own links (nothing of it follows a transfer), and its
 * counters and load are b's from now on, added to its own.  A transfer on
 * b need not name a (it crosses a all the same); one that names a without
 * b as often is refused.  Neither a nor b may be in use; b must not be
 * dominated nor a twin, a must not dominate.  net_link_clear_dominator()
 * takes it back.  Errors: CCS_ERROR_INVALID. */
bool net_link_set_twin(net *n, net_link_id a, net_link_id b, GError **error);

/* Take back a's dominator (or twin): a is in the solves again, its
 * counters go on from what it carried while dominated.  a must be
 * dominated and not in use.  Errors: CCS_ERROR_INVALID. */
bool net_link_clear_dominator(net *n, net_link_id a, GError **error);

/* One past the largest link id handed out (removed links included). */
size_t net_link_count(const net *n);

/* True if id names a link that was added and not removed. */
bool net_link_exists(const net *n, net_link_id id);

/* Capacity (B/s) and latency (s) of a link; NAN for an unknown or removed id. */
double net_link_capacity_Bps(const net *n, net_link_id id);
double net_link_latency_s(const net *n, net_link_id id);

/* Sum of the latencies of links[0..n_links-1] (a path's propagation delay);
 * NAN if any id is unknown.  O(n_links). */
double net_path_latency_s(const net *n, const net_link_id *links, size_t n_links);

/* Start a transfer described by *spec (copied; spec->links and spec->mult
 * may be freed on return).  Its bytes start moving at evq_now() +
 * spec->startup_s.  Stores its id in *id.  Errors (CCS_ERROR_INVALID): bad
 * size, no links, unknown or removed link, multiplicity 0, priority out of
 * range, bad weight, startup or tag.  O(n_links) + O(log n) evq work; the
 * rates are re-solved once per instant, not here. */
bool net_transfer_start(net *n, const net_transfer_spec *spec, net_transfer_id *id,
                        GError **error);

/* Stop a transfer (waiting or moving) without calling its on_done.
 * Errors: CCS_ERROR_INVALID if id is not active (finished, cancelled,
 * never valid). */
bool net_transfer_cancel(net *n, net_transfer_id id, GError **error);

/* Change a transfer's priority level or weight in place (waiting or
 * moving); bytes already moved count, the rates are re-solved once for the
 * instant.  Errors: CCS_ERROR_INVALID (inactive id, bad value). */
bool net_transfer_set_priority(net *n, net_transfer_id id, int prio, GError **error);
bool net_transfer_set_weight(net *n, net_transfer_id id, double weight, GError **error);

/* True while the transfer is waiting for its startup or moving bytes. */
bool net_transfer_is_active(const net *n, net_transfer_id id);

/* Current rate in B/s (0 while waiting, or for an inactive id). Solves
 * first if changes are pending. */
double net_transfer_rate_Bps(net *n, net_transfer_id id);

/* Bytes still to move at evq_now() (size while waiting, 0 for an inactive
 * id).  Solves first if changes are pending.  O(1). */
double net_transfer_remaining_bytes(net *n, net_transfer_id id);

/* The spec's arg of a transfer that is active or in its on_done (0 for any
 * other id): what the caller keeps per transfer, without a map of its
 * own.  O(1). */
uint64_t net_transfer_arg(const net *n, net_transfer_id id);

/* Priority and weight of an active transfer (-1 / NAN if inactive). */
int net_transfer_priority(const net *n, net_transfer_id id);
double net_transfer_weight(const net *n, net_transfer_id id);

/* The link's counters brought up to evq_now().  Errors: CCS_ERROR_INVALID
 * for an unknown id (a removed link keeps its final counters). */
bool net_link_stats_get(net *n, net_link_id id, net_link_stats *out, GError **error);

/* The engine's counters. */
void net_stats_get(const net *n, net_stats *out);

/* True while a transfer (waiting for its startup or moving) names link id. */
bool net_link_in_use(const net *n, net_link_id id);

/* The links whose counters may have moved since the previous call (every
 * link that carried load at some moment since then; the first call counts
 * from the net's creation), sorted by id; every other link's counters are
 * exactly what they were at the previous call.  The set then restarts from
 * the links that carry load now.  For one consumer per net (the per-interval
 * output).  (transfer none: valid until the next call)  O(set · log set). */
const uint32_t *net_links_moved(net *n, size_t *count);

/* Solve now if changes are pending (queries do this themselves; the zero-
 * delay solve event would do it later in the same instant). */
void net_flush(net *n);

/* Set (fn NULL: clear) the rate observer, the delay observer. */
void net_set_rate_observer(net *n, net_rate_fn fn, void *obs);
void net_set_delay_observer(net *n, net_delay_fn fn, void *obs);

/* The links of an active transfer, each once, into out (up to cap): those
 * in the solves, the dominated ones, then the twins of the first; returns
 * how many it has (0 if id is not active). */
size_t net_transfer_links(const net *n, net_transfer_id id, net_link_id *out, size_t cap);

/* ---- The steady-state fast path (docs/engine.md §5c) ---- */

/* A transfer as it stands at evq_now(), read without solving. */
typedef struct net_transfer_view {
    bool moving;       /* false: still waiting for its startup */
    int prio;
    double size_bytes;
    double rem_bytes;  /* at evq_now(), with the rate in force */
    double rate_Bps;   /* in force (a solve pending in this instant may change it) */
    double event_s;    /* the end of its startup wait, or its completion (INFINITY: none) */
    double tag;
} net_transfer_view;

/* Fill *out for an active transfer; false if id is not active.  O(1);
 * changes nothing (no solve). */
bool net_transfer_peek(const net *n, net_transfer_id id, net_transfer_view *out);

/* A link's counters carried on to evq_now() without writing them and
 * without solving (with the loads in force).  False for an unknown id. */
bool net_link_stats_peek(const net *n, net_link_id id, net_link_stats *out);

/* Move a set of transfers dt_s >= 0 into the future: pending changes are
 * solved first (net_flush), then each transfer's remaining bytes are
 * brought up to now and frozen until now + dt_s, and its startup or
 * completion event is delayed by dt_s (evq_delay).  Its rate stays.  The
 * caller guarantees that until now + dt_s nothing starts, ends or changes
 * on the links these transfers use.  Unknown ids are skipped. */
void net_transfers_delay(net *n, const net_transfer_id *ids, size_t count, double dt_s);

/* The same for one moving transfer whose rate repeats over the delay
 * (docs/engine.md §5c, skips modulo long transfers): it carries bytes_B
 * meanwhile, so its remaining bytes at now fall by bytes_B (the caller
 * guarantees they stay above 0), stay frozen until now + dt_s and its
 * completion is rescheduled for then at the rate in force.  An unknown id
 * is skipped. */
void net_transfer_progress(net *n, net_transfer_id id, double bytes_B, double dt_s);

/* The same for links only such transfers use: each link's counters are
 * brought up to now, add[i] (carried, busy and tagged; load ignored) is
 * added to them, and they stay frozen until now + dt_s (when they resume
 * with the load in force).  The links count as moved (net_links_moved). */
void net_links_delay(net *n, const net_link_id *ids, size_t count, const net_link_stats *add,
                     double dt_s);

/* Re-solve every level of every transfer from scratch (all touched).
 * O(all elements * log links): for benchmarks and debugging only. */
void net_resolve_all(net *n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(net, net_free)

#endif /* CCSIM_SIM_NET_H */
