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
 */
#include "event.h"

#include <math.h>

/* One heap entry: the ordering key inline, for cache-friendly sifting. */
typedef struct heap_entry {
    double time_s; /* when it fires */
    uint64_t seq;  /* tie-break: the queue's counter at push / rekey */
    uint32_t slot; /* index into evq.slots */
} heap_entry;

/* A slot: what to call, its generation, where it sits in the heap. */
typedef struct slot {
    evq_handler handler; /* NULL while the slot is free */
    void *ctx;
    uint64_t arg;
    uint32_t gen;      /* bumped when the event fires or is cancelled; >= 1 */
    uint32_t heap_pos; /* index into evq.heap while pending (into evq.now_q if in_now) */
    bool in_now;       /* pending in evq.now_q */
    uint32_t next_free; /* free-list link while free */
} slot;

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
};

evq *evq_new(void)
{
    evq *q = g_new0(evq, 1);
    q->free_head = NO_SLOT;
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

static void sift_down(evq *q, size_t pos)
{
    heap_entry e = q->heap[pos];
    size_t n = q->heap_len;
    for (;;) {
        size_t child = 2 * pos + 1;
        if (child >= n)
            break;
        if (child + 1 < n && entry_less(&q->heap[child + 1], &q->heap[child]))
            child++;
        if (!entry_less(&q->heap[child], &e))
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
        size_t child = 2 * pos + 1;
        if (child >= n)
            break;
        if (child + 1 < n && entry_less(&q->heap[child + 1], &q->heap[child]))
            child++;
        heap_place(q, pos, q->heap[child]);
        pos = child;
    }
    heap_place(q, pos, q->heap[n]);
    sift_up(q, pos);
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
    q->slots[s].in_now = false;
    return out;
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

    sl->in_now = false;
    if (time_s == q->now_s) {
        if (q->now_len == q->now_cap) {
            q->now_cap = q->now_cap ? 2 * q->now_cap : 64;
            q->now_q = g_renew(heap_entry, q->now_q, q->now_cap);
        }
        sl->in_now = true;
        sl->heap_pos = (uint32_t)q->now_len;
        q->now_q[q->now_len++] = (heap_entry){time_s, q->next_seq++, s};
        q->now_live++;
        return make_id(sl->gen, s);
    }
    heap_insert(q, (heap_entry){time_s, q->next_seq++, s});
    return make_id(sl->gen, s);
}

bool evq_cancel(evq *q, evq_id id)
{
    g_return_val_if_fail(q != NULL, false);
    uint32_t s = lookup(q, id);
    if (s == NO_SLOT)
        return false;
    if (q->slots[s].in_now)
        now_take(q, s);
    else
        heap_remove_at(q, q->slots[s].heap_pos);
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
    if (q->slots[s].in_now) {
        now_take(q, s);
        heap_insert(q, (heap_entry){time_s, q->next_seq++, s});
        return true;
    }
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

/* Append to found the entries[0 .. n) of handler h with context ctx. */
static void collect_from(const evq *q, const heap_entry *entries, size_t n, evq_handler h,
                         const void *ctx, GArray *found)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t s = entries[i].slot;
        if (s != NO_SLOT && q->slots[s].handler == h && q->slots[s].ctx == ctx)
            g_array_append_val(found, entries[i]);
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
    if (q->slots[s].in_now) {
        heap_entry e = now_take(q, s);
        e.time_s += dt_s;
        heap_insert(q, e);
        return true;
    }
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
    if (s != NO_SLOT && q->slots[s].in_now)
        return q->now_q[q->slots[s].heap_pos].time_s;
    return s == NO_SLOT ? NAN : q->heap[q->slots[s].heap_pos].time_s;
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
        q->slots[top->slot].in_now = false;
        return true;
    }
    if (q->heap_len == 0)
        return false;
    *top = q->heap[0];
    heap_pop_root(q);
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
    return q->heap_len + q->now_live;
}

uint64_t evq_fired_count(const evq *q)
{
    g_return_val_if_fail(q != NULL, 0);
    return q->fired;
}
