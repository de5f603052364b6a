/* event.c - the event queue (event.h): a binary min-heap on (time, seq)
 * whose entries know their slot.  Not here: what the events do.
 *
 * Slots know their heap position, so cancel and re-key are O(log n).
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
    uint32_t heap_pos; /* index into evq.heap while pending */
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

    if (q->heap_len == q->heap_cap) {
        q->heap_cap = q->heap_cap ? 2 * q->heap_cap : 64;
        q->heap = g_renew(heap_entry, q->heap, q->heap_cap);
    }
    size_t pos = q->heap_len++;
    heap_place(q, pos, (heap_entry){time_s, q->next_seq++, s});
    sift_up(q, pos);
    return make_id(sl->gen, s);
}

bool evq_cancel(evq *q, evq_id id)
{
    g_return_val_if_fail(q != NULL, false);
    uint32_t s = lookup(q, id);
    if (s == NO_SLOT)
        return false;
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

static int entry_cmp(const void *a, const void *b, void *user)
{
    const heap_entry *heap = user;
    const heap_entry *x = &heap[((const uint32_t *)a)[1]], *y = &heap[((const uint32_t *)b)[1]];
    return entry_less(x, y) ? -1 : entry_less(y, x) ? 1 : 0;
}

void evq_collect(const evq *q, evq_handler h, const void *ctx, GArray *out)
{
    g_return_if_fail(q != NULL && out != NULL);
    g_autoptr(GArray) found = g_array_new(FALSE, FALSE, 2 * sizeof(uint32_t));
    for (size_t i = 0; i < q->heap_len; i++) {
        const slot *sl = &q->slots[q->heap[i].slot];
        if (sl->handler == h && sl->ctx == ctx) {
            uint32_t pair[2] = {q->heap[i].slot, (uint32_t)i};
            g_array_append_val(found, pair);
        }
    }
    g_array_sort_with_data(found, entry_cmp, q->heap);
    for (guint i = 0; i < found->len; i++) {
        const uint32_t *pair = &g_array_index(found, uint32_t, 2 * i);
        const slot *sl = &q->slots[pair[0]];
        evq_entry e = {make_id(sl->gen, pair[0]), q->heap[pair[1]].time_s, sl->arg};
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
    return s == NO_SLOT ? NAN : q->heap[q->slots[s].heap_pos].time_s;
}

double evq_next_time(const evq *q)
{
    g_return_val_if_fail(q != NULL, NAN);
    return q->heap_len ? q->heap[0].time_s : INFINITY;
}

bool evq_step(evq *q)
{
    g_return_val_if_fail(q != NULL, false);
    if (q->heap_len == 0)
        return false;
    heap_entry top = q->heap[0];
    heap_remove_at(q, 0);
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
    while (q->heap_len > 0 && q->heap[0].time_s <= end_s)
        evq_step(q);
    if (isfinite(end_s))
        q->now_s = end_s;
}

size_t evq_size(const evq *q)
{
    g_return_val_if_fail(q != NULL, 0);
    return q->heap_len;
}

uint64_t evq_fired_count(const evq *q)
{
    g_return_val_if_fail(q != NULL, 0);
    return q->fired;
}
