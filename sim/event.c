/* event.c - the event queue (event.h): a binary min-heap on (time, seq)
 * whose entries know their slot, and beside it a FIFO of the events pushed
 * for the current instant.  Not here: what the events do.
 *
 * Slots know their heap position, so cancel and re-key are O(log n).
 * An event pushed for now (the net's solve, a job's next step) is the
 * earliest there is: in the heap it would climb to the root and sink back
 * at once.  The FIFO keeps such events in push order, which is their seq
 * order, and a step takes the smaller by (time, seq) of the FIFO's head
 * and the heap's top: the events fire in the order the heap alone gives.
 * A cancelled FIFO event leaves a dead entry behind; a re-keyed or delayed
 * one moves into the heap.
 *
 * Runs: events pushed one right after the other for the same time (the
 * transfers of one step, whose startups end together) have consecutive
 * sequence numbers, so no other event can fall between them.  Only the
 * first enters the heap; the others wait behind it in a list (IN_RUN), and
 * when it fires, or leaves the run, the next takes its heap entry in place:
 * its key is larger by sequence number only, with no other key between, so
 * the heap stays ordered without a sift.  The events fire one at a time in
 * the same order as without runs.
 */
#include "event.h"

#include <math.h>

/* One heap entry: the ordering key inline, for cache-friendly sifting. */
typedef struct heap_entry {
    double time_s; /* when it fires */
    uint64_t seq;  /* tie-break: the queue's counter at push / rekey */
    uint32_t slot; /* index into evq.slots */
} heap_entry;

/* Where a pending event waits. */
enum { IN_HEAP, IN_NOW, IN_RUN };

/* A slot: what to call, its generation, where it waits. */
typedef struct slot {
    evq_handler handler; /* NULL while the slot is free */
    void *ctx;
    uint64_t arg;
    uint32_t gen;      /* bumped when the event fires or is cancelled; >= 1 */
    uint32_t heap_pos; /* index into evq.heap (IN_HEAP) or evq.now_q (IN_NOW) */
    /* the run it heads (IN_HEAP) or belongs to (IN_RUN): the next event of
     * the run, the one before (IN_RUN), and, IN_RUN, its own key */
    uint32_t run_next, run_prev;
    double run_time_s;
    uint64_t run_seq;
    uint32_t next_free; /* free-list link while free */
    uint8_t where;      /* IN_HEAP, IN_NOW or IN_RUN */
} slot; /* (64 bytes: one cache line) */
G_STATIC_ASSERT(sizeof(slot) <= 64);

#define NO_SLOT UINT32_MAX

struct evq {
    double now_s;
    uint64_t next_seq;
    uint64_t fired;
    heap_entry *heap; /* heap[0] is the earliest */
    size_t heap_len, heap_cap;
    slot *slots;
    size_t slots_len, slots_cap;
    uint32_t free_head; /* first free slot or NO_SLOT */
    /* events pushed for the current instant, in push order; entries before
     * now_head have fired, dead ones (slot NO_SLOT) were taken out */
    heap_entry *now_q;
    size_t now_head, now_len, now_cap;
    size_t now_live; /* pending entries in now_q */
    /* the last push, if it went into the heap or a run and nothing has
     * happened since (no other push, move or step): a push for its time
     * takes the next seq and joins its run */
    uint32_t run_tail;
    size_t run_members; /* events waiting IN_RUN */
};

evq *evq_new(void)
{
    evq *q = g_new0(evq, 1);
    q->free_head = NO_SLOT;
    q->run_tail = NO_SLOT;
    return q;
}

void evq_free(evq *q)
{
    if (q == NULL)
        return;
    g_free(q->heap);
    g_free(q->now_q);
    g_free(q->slots);
    g_free(q);
}

double evq_now(const evq *q)
{
    g_return_val_if_fail(q != NULL, NAN);
    return q->now_s;
}

static inline bool entry_less(const heap_entry *a, const heap_entry *b)
{
    return a->time_s < b->time_s || (a->time_s == b->time_s && a->seq < b->seq);
}

static inline void heap_place(evq *q, size_t pos, heap_entry e)
{
    q->heap[pos] = e;
    q->slots[e.slot].heap_pos = (uint32_t)pos;
}

static void sift_up(evq *q, size_t pos)
{
    heap_entry e = q->heap[pos];
    while (pos > 0) {
        size_t parent = (pos - 1) / 2;
        if (!entry_less(&e, &q->heap[parent]))
            break;
        heap_place(q, pos, q->heap[parent]);
        pos = parent;
    }
    heap_place(q, pos, e);
}

/* The smaller child of pos in a heap of n entries, n if it has none. */
static inline size_t smaller_child(const evq *q, size_t pos, size_t n)
{
    size_t child = 2 * pos + 1;
    if (child >= n)
        return n;
    return child + 1 < n && entry_less(&q->heap[child + 1], &q->heap[child]) ? child + 1 : child;
}

static void sift_down(evq *q, size_t pos)
{
    heap_entry e = q->heap[pos];
    size_t n = q->heap_len;
    for (;;) {
        size_t child = smaller_child(q, pos, n);
        if (child == n || !entry_less(&q->heap[child], &e))
            break;
        heap_place(q, pos, q->heap[child]);
        pos = child;
    }
    heap_place(q, pos, e);
}

/* Remove the entry at heap position pos (O(log n)). */
static void heap_remove_at(evq *q, size_t pos)
{
    q->heap_len--;
    if (pos == q->heap_len)
        return;
    heap_place(q, pos, q->heap[q->heap_len]);
    if (pos > 0 && entry_less(&q->heap[pos], &q->heap[(pos - 1) / 2]))
        sift_up(q, pos);
    else
        sift_down(q, pos);
}

/* Remove the root: its hole goes down to a leaf along the smaller
 * children, and the last entry, which belongs near the bottom, climbs from
 * there (one comparison a level on the way down, where sift_down makes two
 * and mispredicts the one against the last entry; the same order of
 * events: a heap's root is its least entry however it is laid out). */
static void heap_pop_root(evq *q)
{
    size_t n = --q->heap_len, pos = 0;
    if (n == 0)
        return;
    for (;;) {
        size_t child = smaller_child(q, pos, n);
        if (child == n)
            break;
        heap_place(q, pos, q->heap[child]);
        pos = child;
    }
    heap_place(q, pos, q->heap[n]);
    sift_up(q, pos);
}

/* Run member m takes the heap entry at pos of the event before it, which
 * leaves the run: nothing's key lies between theirs (file comment). */
static void run_promote(evq *q, size_t pos, uint32_t m)
{
    slot *ms = &q->slots[m];
    ms->where = IN_HEAP;
    ms->run_prev = NO_SLOT;
    q->run_members--;
    heap_place(q, pos, (heap_entry){ms->run_time_s, ms->run_seq, m});
}

static void slot_release(evq *q, uint32_t s)
{
    slot *sl = &q->slots[s];
    sl->handler = NULL;
    sl->ctx = NULL;
    sl->gen = sl->gen == UINT32_MAX ? 1 : sl->gen + 1;
    sl->next_free = q->free_head;
    q->free_head = s;
}

static inline evq_id make_id(uint32_t gen, uint32_t s) { return ((uint64_t)gen << 32) | s; }

/* The slot of a pending event, or NO_SLOT for a stale id. */
static uint32_t lookup(const evq *q, evq_id id)
{
    uint32_t s = (uint32_t)(id & 0xffffffffu);
    uint32_t gen = (uint32_t)(id >> 32);
    if (gen == 0 || s >= q->slots_len)
        return NO_SLOT;
    const slot *sl = &q->slots[s];
    if (sl->gen != gen || sl->handler == NULL)
        return NO_SLOT;
    return s;
}

static void heap_insert(evq *q, heap_entry e)
{
    if (q->heap_len == q->heap_cap) {
        q->heap_cap = q->heap_cap ? 2 * q->heap_cap : 64;
        q->heap = g_renew(heap_entry, q->heap, q->heap_cap);
    }
    size_t pos = q->heap_len++;
    heap_place(q, pos, e);
    sift_up(q, pos);
}

/* Take slot s's entry out of now_q (it stays there, dead). */
static heap_entry now_take(evq *q, uint32_t s)
{
    heap_entry *e = &q->now_q[q->slots[s].heap_pos];
    heap_entry out = *e;
    e->slot = NO_SLOT;
    q->now_live--;
    q->slots[s].where = IN_HEAP;
    return out;
}

/* The time of pending event s. */
static double slot_time(const evq *q, uint32_t s)
{
    const slot *sl = &q->slots[s];
    return sl->where == IN_NOW  ? q->now_q[sl->heap_pos].time_s
           : sl->where == IN_RUN ? sl->run_time_s
                                 : q->heap[sl->heap_pos].time_s;
}

evq_id evq_push(evq *q, double time_s, evq_handler handler, void *ctx, uint64_t arg)
{
    g_return_val_if_fail(q != NULL, EVQ_ID_NONE);
    g_return_val_if_fail(handler != NULL, EVQ_ID_NONE);
    g_return_val_if_fail(isfinite(time_s), EVQ_ID_NONE);
    g_return_val_if_fail(time_s >= q->now_s, EVQ_ID_NONE);

    uint32_t s;
    if (q->free_head != NO_SLOT) {
        s = q->free_head;
        q->free_head = q->slots[s].next_free;
    } else {
        g_assert(q->slots_len < NO_SLOT);
        if (q->slots_len == q->slots_cap) {
            q->slots_cap = q->slots_cap ? 2 * q->slots_cap : 64;
            q->slots = g_renew(slot, q->slots, q->slots_cap);
        }
        s = (uint32_t)q->slots_len++;
        q->slots[s].gen = 1;
    }
    slot *sl = &q->slots[s];
    sl->handler = handler;
    sl->ctx = ctx;
    sl->arg = arg;
    sl->where = IN_HEAP;
    sl->run_next = NO_SLOT;

    if (time_s == q->now_s) {
        if (q->now_len == q->now_cap) {
            q->now_cap = q->now_cap ? 2 * q->now_cap : 64;
            q->now_q = g_renew(heap_entry, q->now_q, q->now_cap);
        }
        sl->where = IN_NOW;
        sl->heap_pos = (uint32_t)q->now_len;
        q->now_q[q->now_len++] = (heap_entry){time_s, q->next_seq++, s};
        q->now_live++;
        q->run_tail = NO_SLOT;
        return make_id(sl->gen, s);
    }
    uint64_t seq = q->next_seq++;
    if (q->run_tail != NO_SLOT && slot_time(q, q->run_tail) == time_s) {
        sl->where = IN_RUN;
        sl->run_prev = q->run_tail;
        sl->run_time_s = time_s;
        sl->run_seq = seq;
        q->slots[q->run_tail].run_next = s;
        q->run_members++;
    } else {
        heap_insert(q, (heap_entry){time_s, seq, s});
    }
    q->run_tail = s;
    return make_id(sl->gen, s);
}

/* Take pending event s out of wherever it waits; its key.  A run's head
 * hands its heap entry to the next of the run. */
static heap_entry take_out(evq *q, uint32_t s)
{
    slot *sl = &q->slots[s];
    q->run_tail = NO_SLOT;
    if (sl->where == IN_NOW)
        return now_take(q, s);
    heap_entry e;
    if (sl->where == IN_RUN) {
        e = (heap_entry){sl->run_time_s, sl->run_seq, s};
        q->slots[sl->run_prev].run_next = sl->run_next;
        if (sl->run_next != NO_SLOT)
            q->slots[sl->run_next].run_prev = sl->run_prev;
        q->run_members--;
    } else {
        e = q->heap[sl->heap_pos];
        if (sl->run_next != NO_SLOT)
            run_promote(q, sl->heap_pos, sl->run_next);
        else
            heap_remove_at(q, sl->heap_pos);
    }
    sl->where = IN_HEAP;
    sl->run_next = NO_SLOT;
    return e;
}

/* Whether s sits in the heap with no run behind it (moved there in place). */
static inline bool heap_alone(const evq *q, uint32_t s)
{
    return q->slots[s].where == IN_HEAP && q->slots[s].run_next == NO_SLOT;
}

bool evq_cancel(evq *q, evq_id id)
{
    g_return_val_if_fail(q != NULL, false);
    uint32_t s = lookup(q, id);
    if (s == NO_SLOT)
        return false;
    take_out(q, s);
    slot_release(q, s);
    return true;
}

bool evq_rekey(evq *q, evq_id id, double time_s)
{
    g_return_val_if_fail(q != NULL, false);
    g_return_val_if_fail(isfinite(time_s), false);
    g_return_val_if_fail(time_s >= q->now_s, false);
    uint32_t s = lookup(q, id);
    if (s == NO_SLOT)
        return false;
    if (!heap_alone(q, s)) {
        take_out(q, s);
        heap_insert(q, (heap_entry){time_s, q->next_seq++, s});
        return true;
    }
    q->run_tail = NO_SLOT;
    size_t pos = q->slots[s].heap_pos;
    heap_entry *e = &q->heap[pos];
    e->time_s = time_s;
    e->seq = q->next_seq++; /* a re-keyed event is ordered as a new push */
    if (pos > 0 && entry_less(e, &q->heap[(pos - 1) / 2]))
        sift_up(q, pos);
    else
        sift_down(q, pos);
    return true;
}

static gint entry_cmp(gconstpointer a, gconstpointer b)
{
    return entry_less(a, b) ? -1 : entry_less(b, a) ? 1 : 0;
}

/* Append to found the entries[0 .. n) of handler h with context ctx, and
 * the runs behind them. */
static void collect_from(const evq *q, const heap_entry *entries, size_t n, evq_handler h,
                         const void *ctx, GArray *found)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t s = entries[i].slot;
        if (s != NO_SLOT && q->slots[s].handler == h && q->slots[s].ctx == ctx)
            g_array_append_val(found, entries[i]);
        for (uint32_t m = s == NO_SLOT ? NO_SLOT : q->slots[s].run_next; m != NO_SLOT;
             m = q->slots[m].run_next) {
            const slot *ms = &q->slots[m];
            if (ms->handler == h && ms->ctx == ctx) {
                heap_entry e = {ms->run_time_s, ms->run_seq, m};
                g_array_append_val(found, e);
            }
        }
    }
}

void evq_collect(const evq *q, evq_handler h, const void *ctx, GArray *out)
{
    g_return_if_fail(q != NULL && out != NULL);
    g_autoptr(GArray) found = g_array_new(FALSE, FALSE, sizeof(heap_entry));
    collect_from(q, q->heap, q->heap_len, h, ctx, found);
    collect_from(q, q->now_q + q->now_head, q->now_len - q->now_head, h, ctx, found);
    g_array_sort(found, entry_cmp);
    for (guint i = 0; i < found->len; i++) {
        const heap_entry *he = &g_array_index(found, heap_entry, i);
        const slot *sl = &q->slots[he->slot];
        evq_entry e = {make_id(sl->gen, he->slot), he->time_s, sl->arg};
        g_array_append_val(out, e);
    }
}

bool evq_delay(evq *q, evq_id id, double dt_s)
{
    g_return_val_if_fail(q != NULL, false);
    g_return_val_if_fail(isfinite(dt_s) && dt_s >= 0, false);
    uint32_t s = lookup(q, id);
    if (s == NO_SLOT)
        return false;
    double t = slot_time(q, s);
    if (t + dt_s == t)
        return true; /* (its key stays: taken out of a run, it would sit
                      * between the run's events, which fire back to back) */
    if (!heap_alone(q, s)) {
        heap_entry e = take_out(q, s);
        e.time_s += dt_s;
        heap_insert(q, e);
        return true;
    }
    q->run_tail = NO_SLOT;
    size_t pos = q->slots[s].heap_pos;
    q->heap[pos].time_s += dt_s; /* later: only the subtree can be earlier */
    sift_down(q, pos);
    return true;
}

bool evq_pending(const evq *q, evq_id id)
{
    g_return_val_if_fail(q != NULL, false);
    return lookup(q, id) != NO_SLOT;
}

double evq_time(const evq *q, evq_id id)
{
    g_return_val_if_fail(q != NULL, NAN);
    uint32_t s = lookup(q, id);
    return s == NO_SLOT ? NAN : slot_time(q, s);
}

double evq_next_time(const evq *q)
{
    g_return_val_if_fail(q != NULL, NAN);
    if (q->now_live > 0)
        return q->now_s;
    return q->heap_len ? q->heap[0].time_s : INFINITY;
}

/* Take the next event to fire out of the FIFO or the heap into *top; false
 * if none is pending. */
static bool take_next(evq *q, heap_entry *top)
{
    while (q->now_head < q->now_len && q->now_q[q->now_head].slot == NO_SLOT)
        q->now_head++;
    if (q->now_head == q->now_len)
        q->now_head = q->now_len = 0;
    if (q->now_live > 0 && (q->heap_len == 0 || entry_less(&q->now_q[q->now_head], &q->heap[0]))) {
        *top = q->now_q[q->now_head++];
        q->now_live--;
        q->slots[top->slot].where = IN_HEAP;
        return true;
    }
    if (q->heap_len == 0)
        return false;
    *top = q->heap[0];
    uint32_t next = q->slots[top->slot].run_next;
    if (next != NO_SLOT) {
        q->slots[top->slot].run_next = NO_SLOT;
        run_promote(q, 0, next);
    } else {
        heap_pop_root(q);
    }
    return true;
}

bool evq_step(evq *q)
{
    g_return_val_if_fail(q != NULL, false);
    heap_entry top;
    if (!take_next(q, &top))
        return false;
    slot *sl = &q->slots[top.slot];
    evq_handler handler = sl->handler;
    void *ctx = sl->ctx;
    uint64_t arg = sl->arg;
    /* Release before dispatch: the handler may push (reusing the slot). */
    slot_release(q, top.slot);
    q->run_tail = NO_SLOT;
    g_assert(top.time_s >= q->now_s);
    q->now_s = top.time_s;
    q->fired++;
    handler(ctx, arg, top.time_s);
    return true;
}

void evq_run_until(evq *q, double end_s)
{
    g_return_if_fail(q != NULL);
    g_return_if_fail(!isnan(end_s) && end_s >= q->now_s);
    while (evq_next_time(q) <= end_s && evq_step(q))
        ;
    if (isfinite(end_s))
        q->now_s = end_s;
}

size_t evq_size(const evq *q)
{
    g_return_val_if_fail(q != NULL, 0);
    return q->heap_len + q->now_live + q->run_members;
}

uint64_t evq_fired_count(const evq *q)
{
    g_return_val_if_fail(q != NULL, 0);
    return q->fired;
}
