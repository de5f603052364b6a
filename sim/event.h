/* event.h - the discrete-event queue of a simulation (docs/architecture.md, §3).
 * Not here: the handlers (net_state.c, job.c, replay_run.c).
 *
 * An evq holds pending events, each a handler called with (ctx, arg, now_s)
 * at a simulated time.  Events are ordered by (time_s, seq): seq comes from a
 * counter private to the queue, so events at equal times fire in the order
 * they were pushed (libuv's timers do the same).  Re-keying an event gives it
 * a fresh seq: it then fires after every event already pending at its new
 * time, exactly as if it had been cancelled and pushed again.
 *
 * Events are named by evq_id values: slot index + generation, so an id whose
 * event has fired or was cancelled is recognised as stale (never confused
 * with a newer event in the same slot).  0 (EVQ_ID_NONE) is never a valid id.
 *
 * Implementation: a binary min-heap of (time, seq, slot) entries; each slot
 * records its heap position, so push, pop, cancel and rekey are all
 * O(log n) and evq_pending / evq_next_time are O(1).  Beside it, a FIFO of
 * the events pushed for the current instant, and runs: events pushed back
 * to back for one time wait behind the first, out of the heap (push and
 * pop O(1); docs/engine.md §2).  Memory: 88 bytes per pending event; slots
 * are recycled.
 *
 * The queue never goes back in time: pushing or re-keying an event before
 * evq_now() is a programming error (g_return_val_if_fail).  Handlers may
 * push, cancel and re-key events (including in the same instant) while they
 * are being dispatched; the event being dispatched is already removed, so
 * its id is stale inside its own handler.
 *
 * One queue is single-threaded; separate queues are independent (no global
 * state).
 */
#ifndef CCSIM_SIM_EVENT_H
#define CCSIM_SIM_EVENT_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct evq evq;

/* An event's id: (generation << 32) | slot index; 0 is never valid. */
typedef uint64_t evq_id;
#define EVQ_ID_NONE ((evq_id)0)

/* Called when an event fires; now_s is the event's time (= evq_now()). */
typedef void (*evq_handler)(void *ctx, uint64_t arg, double now_s);

/* A new empty queue at time 0.  (transfer full) */
evq *evq_new(void);

/* Free the queue and its pending events (their handlers are not called).
 * NULL does nothing.  Must not be called from inside a handler. */
void evq_free(evq *q);

/* The current simulated time in seconds: the time of the event being (or
 * last) dispatched, or the end of the last evq_run_until(). */
double evq_now(const evq *q);

/* Schedule handler(ctx, arg, time_s) at time_s >= evq_now() (finite).
 * Returns its id.  O(log n). */
evq_id evq_push(evq *q, double time_s, evq_handler handler, void *ctx, uint64_t arg);

/* Remove a pending event.  Returns true if it was pending, false for a stale
 * or unknown id (already fired, already cancelled, or EVQ_ID_NONE).
 * O(log n). */
bool evq_cancel(evq *q, evq_id id);

/* Move a pending event to time_s >= evq_now(); it takes a new sequence
 * number (it fires after the events already pending at time_s).  Returns
 * false (and does nothing) for a stale id.  O(log n). */
bool evq_rekey(evq *q, evq_id id, double time_s);

/* True while the event is pending.  O(1). */
bool evq_pending(const evq *q, evq_id id);

/* The time of a pending event, or NAN for a stale id.  O(1). */
double evq_time(const evq *q, evq_id id);

/* The time of the earliest pending event, INFINITY when empty.  O(1). */
double evq_next_time(const evq *q);

/* Pop the earliest event, set now to its time and call its handler.
 * Returns false (and does nothing) when the queue is empty.  O(log n). */
bool evq_step(evq *q);

/* Fire every event with time <= end_s (including those handlers add while
 * running), then set now to end_s.  end_s >= evq_now(); INFINITY runs until
 * the queue is empty and leaves now at the last event's time. */
void evq_run_until(evq *q, double end_s);

/* A pending event as evq_collect lists it. */
typedef struct evq_entry {
    evq_id id;
    double time_s;
    uint64_t arg;
} evq_entry;

/* Append to out (evq_entry) every pending event of handler h with context
 * ctx, in firing order (time, then push order).  O(pending events): for
 * the steady-state detector (docs/engine.md §5c), once per period. */
void evq_collect(const evq *q, evq_handler h, const void *ctx, GArray *out);

/* Delay a pending event by dt_s >= 0 keeping its place among events at
 * equal times (unlike evq_rekey, which orders it as a new push): events
 * delayed together by the same dt_s fire in the order they had.  Returns
 * false for a stale id.  O(log n). */
bool evq_delay(evq *q, evq_id id, double dt_s);

/* Number of pending events.  O(1). */
size_t evq_size(const evq *q);

/* Number of events dispatched so far.  O(1). */
uint64_t evq_fired_count(const evq *q);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(evq, evq_free)

#endif /* CCSIM_SIM_EVENT_H */
