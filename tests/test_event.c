/* test_event.c - suite "event": the event queue (sim/event.h).
 * Not here: the network's events (test_net.c).
 */
#include "sim/event.h"

#include <math.h>
#include <stdio.h>

#include "test_util.h"

/* A log of fired events: each handler appends (arg, now). */
typedef struct fired {
    uint64_t arg;
    double now_s;
} fired;

static void log_handler(void *ctx, uint64_t arg, double now_s)
{
    GArray *log = ctx;
    fired f = {arg, now_s};
    g_array_append_val(log, f);
}

static GArray *new_log(void) { return g_array_new(FALSE, FALSE, sizeof(fired)); }

static uint64_t log_arg(GArray *log, guint i) { return g_array_index(log, fired, i).arg; }

/* Pushed at 3, 1, 2 (args 3, 1, 2): they fire in time order 1, 2, 3 and
 * now follows each event's time; 3 events fired; the queue is then empty
 * (next time INFINITY, step returns false). */
static void test_event_order(void)
{
    g_autoptr(evq) q = evq_new();
    g_autoptr(GArray) log = new_log();
    TEST_ASSERT_CLOSE(evq_now(q), 0.0, 0);
    evq_push(q, 3.0, log_handler, log, 3);
    evq_push(q, 1.0, log_handler, log, 1);
    evq_push(q, 2.0, log_handler, log, 2);
    CU_ASSERT_EQUAL(evq_size(q), 3);
    TEST_ASSERT_CLOSE(evq_next_time(q), 1.0, 0);
    CU_ASSERT_TRUE(evq_step(q));
    TEST_ASSERT_CLOSE(evq_now(q), 1.0, 0);
    CU_ASSERT_TRUE(evq_step(q));
    CU_ASSERT_TRUE(evq_step(q));
    TEST_ASSERT_CLOSE(evq_now(q), 3.0, 0);
    CU_ASSERT_FALSE(evq_step(q));
    CU_ASSERT_EQUAL(log->len, 3);
    for (guint i = 0; i < log->len; i++) {
        CU_ASSERT_EQUAL(log_arg(log, i), i + 1);
        TEST_ASSERT_CLOSE(g_array_index(log, fired, i).now_s, (double)(i + 1), 0);
    }
    CU_ASSERT_EQUAL(evq_fired_count(q), 3);
    CU_ASSERT_TRUE(isinf(evq_next_time(q)));
    CU_ASSERT_EQUAL(evq_size(q), 0);
}

/* Five events at the same time 1.0 fire in push order 10..14; an event at
 * 0.5 pushed last still fires first. */
static void test_event_ties(void)
{
    g_autoptr(evq) q = evq_new();
    g_autoptr(GArray) log = new_log();
    for (uint64_t a = 10; a < 15; a++)
        evq_push(q, 1.0, log_handler, log, a);
    evq_push(q, 0.5, log_handler, log, 99);
    evq_run_until(q, INFINITY);
    CU_ASSERT_EQUAL(log->len, 6);
    CU_ASSERT_EQUAL(log_arg(log, 0), 99);
    for (guint i = 1; i < 6; i++)
        CU_ASSERT_EQUAL(log_arg(log, i), 10 + i - 1);
}

/* Events 1@1, 2@2, 3@3; cancel 2: true the first time, false after (stale);
 * it is no longer pending and 1, 3 fire. */
static void test_event_cancel(void)
{
    g_autoptr(evq) q = evq_new();
    g_autoptr(GArray) log = new_log();
    evq_push(q, 1.0, log_handler, log, 1);
    evq_id b = evq_push(q, 2.0, log_handler, log, 2);
    evq_push(q, 3.0, log_handler, log, 3);
    CU_ASSERT_TRUE(evq_pending(q, b));
    TEST_ASSERT_CLOSE(evq_time(q, b), 2.0, 0);
    CU_ASSERT_TRUE(evq_cancel(q, b));
    CU_ASSERT_FALSE(evq_cancel(q, b));
    CU_ASSERT_FALSE(evq_pending(q, b));
    CU_ASSERT_TRUE(isnan(evq_time(q, b)));
    CU_ASSERT_EQUAL(evq_size(q), 2);
    evq_run_until(q, INFINITY);
    CU_ASSERT_EQUAL(log->len, 2);
    CU_ASSERT_EQUAL(log_arg(log, 0), 1);
    CU_ASSERT_EQUAL(log_arg(log, 1), 3);
}

/* A@1, B@2, C@3.  Rekey C to 0.5 (earlier) and A to 2 (the tie with B: A
 * takes a new sequence number, so it fires after B).  Order: C, B, A. */
static void test_event_rekey(void)
{
    g_autoptr(evq) q = evq_new();
    g_autoptr(GArray) log = new_log();
    evq_id a = evq_push(q, 1.0, log_handler, log, 'A');
    evq_push(q, 2.0, log_handler, log, 'B');
    evq_id c = evq_push(q, 3.0, log_handler, log, 'C');
    CU_ASSERT_TRUE(evq_rekey(q, c, 0.5));
    CU_ASSERT_TRUE(evq_rekey(q, a, 2.0));
    TEST_ASSERT_CLOSE(evq_time(q, a), 2.0, 0);
    TEST_ASSERT_CLOSE(evq_next_time(q), 0.5, 0);
    evq_run_until(q, INFINITY);
    CU_ASSERT_EQUAL(log->len, 3);
    CU_ASSERT_EQUAL(log_arg(log, 0), 'C');
    CU_ASSERT_EQUAL(log_arg(log, 1), 'B');
    CU_ASSERT_EQUAL(log_arg(log, 2), 'A');
    CU_ASSERT_FALSE(evq_rekey(q, a, 5.0)); /* fired: stale */
}

/* Ids: 0 is never valid; an id whose event fired is stale even after its
 * slot is reused by a new event (the new id differs). */
static void test_event_stale_ids(void)
{
    g_autoptr(evq) q = evq_new();
    g_autoptr(GArray) log = new_log();
    CU_ASSERT_FALSE(evq_pending(q, EVQ_ID_NONE));
    CU_ASSERT_FALSE(evq_cancel(q, EVQ_ID_NONE));
    CU_ASSERT_FALSE(evq_rekey(q, EVQ_ID_NONE, 1.0));
    CU_ASSERT_FALSE(evq_pending(q, (evq_id)12345 << 32 | 7)); /* never issued */
    evq_id a = evq_push(q, 1.0, log_handler, log, 1);
    CU_ASSERT_NOT_EQUAL(a, EVQ_ID_NONE);
    CU_ASSERT_TRUE(evq_step(q));
    evq_id b = evq_push(q, 2.0, log_handler, log, 2); /* reuses a's slot */
    CU_ASSERT_NOT_EQUAL(a, b);
    CU_ASSERT_FALSE(evq_pending(q, a));
    CU_ASSERT_FALSE(evq_cancel(q, a));
    CU_ASSERT_TRUE(evq_pending(q, b));
    CU_ASSERT_TRUE(evq_cancel(q, b));
    evq_id c = evq_push(q, 3.0, log_handler, log, 3);
    CU_ASSERT_FALSE(evq_pending(q, b));
    CU_ASSERT_TRUE(evq_pending(q, c));
}

/* Handlers that change the queue while dispatched. */
typedef struct reentry {
    evq *q;
    GArray *log;
    evq_id victim;
} reentry;

static void reentrant_handler(void *ctx, uint64_t arg, double now_s)
{
    reentry *r = ctx;
    log_handler(r->log, arg, now_s);
    if (arg == 1) {
        /* at t=1: push 'N' at now (after 2, already pending at 1), cancel the
         * victim (3 @ 2), rekey nothing */
        evq_push(r->q, now_s, reentrant_handler, r, 'N');
        CU_ASSERT_TRUE(evq_cancel(r->q, r->victim));
    }
}

/* 1@1 and 2@1 pending, 3@2 the victim.  Handler 1 pushes N@1 and cancels 3:
 * order 1, 2, N; 3 never fires; now ends at 1 (run to INFINITY). */
static void test_event_reentrant(void)
{
    g_autoptr(evq) q = evq_new();
    g_autoptr(GArray) log = new_log();
    reentry r = {q, log, 0};
    evq_push(q, 1.0, reentrant_handler, &r, 1);
    evq_push(q, 1.0, reentrant_handler, &r, 2);
    r.victim = evq_push(q, 2.0, reentrant_handler, &r, 3);
    evq_run_until(q, INFINITY);
    CU_ASSERT_EQUAL(log->len, 3);
    CU_ASSERT_EQUAL(log_arg(log, 0), 1);
    CU_ASSERT_EQUAL(log_arg(log, 1), 2);
    CU_ASSERT_EQUAL(log_arg(log, 2), 'N');
    TEST_ASSERT_CLOSE(evq_now(q), 1.0, 0);
}

/* run_until(2) fires events at 1 and exactly 2, not 2.5, and leaves now=2;
 * run_until(2) again fires nothing; run_until(10) fires 2.5, now = 10. */
static void test_event_run_until(void)
{
    g_autoptr(evq) q = evq_new();
    g_autoptr(GArray) log = new_log();
    evq_push(q, 1.0, log_handler, log, 1);
    evq_push(q, 2.0, log_handler, log, 2);
    evq_push(q, 2.5, log_handler, log, 3);
    evq_run_until(q, 2.0);
    CU_ASSERT_EQUAL(log->len, 2);
    TEST_ASSERT_CLOSE(evq_now(q), 2.0, 0);
    evq_run_until(q, 2.0);
    CU_ASSERT_EQUAL(log->len, 2);
    evq_run_until(q, 10.0);
    CU_ASSERT_EQUAL(log->len, 3);
    TEST_ASSERT_CLOSE(evq_now(q), 10.0, 0);
    CU_ASSERT_EQUAL(evq_fired_count(q), 3);
}

/* Random pushes (integer times 0..99, so ties are frequent), cancels and
 * rekeys of 5,000 events; the firing order must be the order of (time,
 * seq) where seq is the push/rekey counter, which the test tracks itself. */
typedef struct model_ev {
    double time_s;
    uint64_t seq;
    evq_id id;
    bool live;
} model_ev;

static gint cmp_model(gconstpointer a, gconstpointer b)
{
    const model_ev *x = a, *y = b;
    if (x->time_s != y->time_s)
        return x->time_s < y->time_s ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void test_event_random_against_model(void)
{
    const guint32 seed = 42;
    g_autoptr(GRand) rng = g_rand_new_with_seed(seed);
    g_autoptr(evq) q = evq_new();
    g_autoptr(GArray) log = new_log();
    enum { N = 5000 };
    model_ev *m = g_new0(model_ev, N);
    uint64_t seq = 0;
    for (uint64_t i = 0; i < N; i++) {
        m[i].time_s = g_rand_int_range(rng, 0, 100);
        m[i].seq = seq++;
        m[i].live = true;
        m[i].id = evq_push(q, m[i].time_s, log_handler, log, i);
    }
    for (int k = 0; k < 2000; k++) {
        uint64_t i = g_rand_int_range(rng, 0, N);
        if (g_rand_boolean(rng)) {
            CU_ASSERT_EQUAL(evq_cancel(q, m[i].id), m[i].live);
            m[i].live = false;
        } else {
            double t = g_rand_int_range(rng, 0, 100);
            CU_ASSERT_EQUAL(evq_rekey(q, m[i].id, t), m[i].live);
            if (m[i].live) {
                m[i].time_s = t;
                m[i].seq = seq++;
            }
        }
    }
    GArray *expect = g_array_new(FALSE, FALSE, sizeof(model_ev));
    size_t live = 0;
    for (uint64_t i = 0; i < N; i++) {
        if (m[i].live) {
            model_ev e = m[i];
            e.id = i; /* reuse the field for the arg */
            g_array_append_val(expect, e);
            live++;
        }
    }
    g_array_sort(expect, cmp_model);
    CU_ASSERT_EQUAL(evq_size(q), live);
    evq_run_until(q, INFINITY);
    CU_ASSERT_EQUAL(log->len, live);
    bool ok = log->len == live;
    for (guint i = 0; ok && i < log->len; i++)
        ok = log_arg(log, i) == g_array_index(expect, model_ev, i).id;
    if (!ok)
        fprintf(stderr, "event order differs from the model (seed %u)\n", seed);
    CU_ASSERT_TRUE(ok);
    g_array_free(expect, TRUE);
    g_free(m);
}

/* Runs (event.c: consecutive pushes for one time wait behind the first):
 * bursts of 1-6 pushes for one integer time in 0..29, then 3,000 random
 * cancels, rekeys and delays (integer dt, so delayed events meet others at
 * equal times) of any event, head, middle or tail of a run; the queue is
 * run to 10 half way (so later bursts for time 10 go to the FIFO) and
 * then to the end.  Before each run every live event's evq_time, the
 * queue's size and evq_collect's list must be the model's, and the firing
 * order must be (time, seq), seq the push / rekey counter (a delay keeps
 * it), as the model keeps it. */
typedef struct run_model {
    model_ev *m;
    size_t n;
    uint64_t seq;
} run_model;

static void run_model_bursts(run_model *rm, evq *q, GArray *log, GRand *rng, size_t count,
                             int t_lo)
{
    while (count > 0) {
        double t = g_rand_int_range(rng, t_lo, 30);
        for (int b = g_rand_int_range(rng, 1, 7); b > 0 && count > 0; b--, count--) {
            model_ev *e = &rm->m[rm->n];
            *e = (model_ev){t, rm->seq++, evq_push(q, t, log_handler, log, rm->n), true};
            rm->n++;
        }
    }
}

static void run_model_mutate(run_model *rm, evq *q, GRand *rng, int ops)
{
    for (int k = 0; k < ops; k++) {
        model_ev *e = &rm->m[g_rand_int_range(rng, 0, (gint32)rm->n)];
        int op = g_rand_int_range(rng, 0, 3);
        if (op == 0) {
            CU_ASSERT_EQUAL(evq_cancel(q, e->id), e->live);
            e->live = false;
        } else if (op == 1) {
            double t = g_rand_int_range(rng, (gint32)evq_now(q), 30);
            CU_ASSERT_EQUAL(evq_rekey(q, e->id, t), e->live);
            if (e->live) {
                e->time_s = t;
                e->seq = rm->seq++;
            }
        } else {
            double dt = g_rand_int_range(rng, 0, 4);
            CU_ASSERT_EQUAL(evq_delay(q, e->id, dt), e->live);
            if (e->live)
                e->time_s += dt;
        }
    }
}

/* The model's live events in firing order (id holds the arg). */
static GArray *run_model_order(const run_model *rm)
{
    GArray *order = g_array_new(FALSE, FALSE, sizeof(model_ev));
    for (size_t i = 0; i < rm->n; i++)
        if (rm->m[i].live) {
            model_ev e = rm->m[i];
            e.id = i;
            g_array_append_val(order, e);
        }
    g_array_sort(order, cmp_model);
    return order;
}

static bool run_model_check(const run_model *rm, evq *q, GArray *log)
{
    g_autoptr(GArray) order = run_model_order(rm);
    g_autoptr(GArray) got = g_array_new(FALSE, FALSE, sizeof(evq_entry));
    evq_collect(q, log_handler, log, got);
    bool ok = evq_size(q) == order->len && got->len == order->len;
    for (guint i = 0; ok && i < order->len; i++) {
        const model_ev *e = &g_array_index(order, model_ev, i);
        ok = g_array_index(got, evq_entry, i).arg == e->id &&
             evq_time(q, rm->m[e->id].id) == e->time_s;
    }
    return ok;
}

static void test_event_runs_against_model(void)
{
    g_autoptr(GRand) rng = g_rand_new_with_seed(7);
    g_autoptr(evq) q = evq_new();
    g_autoptr(GArray) log = new_log();
    run_model rm = {.m = g_new0(model_ev, 4000)};
    run_model_bursts(&rm, q, log, rng, 2000, 0);
    run_model_mutate(&rm, q, rng, 1500);
    CU_ASSERT_TRUE(run_model_check(&rm, q, log));
    g_autoptr(GArray) first = run_model_order(&rm);
    evq_run_until(q, 10);
    guint fired = log->len;
    bool ok = true;
    for (guint i = 0; i < fired && ok; i++)
        ok = log_arg(log, i) == g_array_index(first, model_ev, i).id;
    CU_ASSERT_TRUE(ok);
    for (guint i = 0; i < fired; i++)
        rm.m[log_arg(log, i)].live = false;
    run_model_bursts(&rm, q, log, rng, 2000, 10);
    run_model_mutate(&rm, q, rng, 1500);
    CU_ASSERT_TRUE(run_model_check(&rm, q, log));
    g_autoptr(GArray) rest = run_model_order(&rm);
    evq_run_until(q, INFINITY);
    CU_ASSERT_EQUAL(log->len, fired + rest->len);
    for (guint i = 0; i < rest->len && ok && fired + i < log->len; i++)
        ok = log_arg(log, fired + i) == g_array_index(rest, model_ev, i).id;
    CU_ASSERT_TRUE(ok);
    CU_ASSERT_EQUAL(evq_size(q), 0);
    g_free(rm.m);
}

/* Handlers that push (docs/engine.md §2, runs): every event that fires
 * does up to 5 things: pushes an event at now + 0, 1 or 2 (integer
 * times, so that many fall together), or now and then cancels or re-keys
 * a pending one (to now + 0, 1 or 2), in between its pushes; each
 * event that fires must be the least (time, seq) of a model of the
 * pending events, seq counted as the queue counts it (a push or a re-key
 * takes the next).  The runs a handler's pushes form, and those its
 * cancels and re-keys break, must leave that order as it is. */
typedef struct dyn_ev {
    double time_s;
    uint64_t seq, arg;
    evq_id id;
} dyn_ev;

typedef struct dyn_case {
    evq *q;
    GRand *rng;
    GArray *pend; /* dyn_ev */
    uint64_t seq, next_arg;
    int budget;
    bool ok;
} dyn_case;

static void dyn_handler(void *ctx, uint64_t arg, double now_s);

static void dyn_push(dyn_case *d, double t)
{
    dyn_ev e = {t, d->seq++, d->next_arg++, 0};
    e.id = evq_push(d->q, t, dyn_handler, d, e.arg);
    g_array_append_val(d->pend, e);
}

static void dyn_handler(void *ctx, uint64_t arg, double now_s)
{
    dyn_case *d = ctx;
    guint least = 0;
    for (guint i = 1; i < d->pend->len; i++) {
        const dyn_ev *a = &g_array_index(d->pend, dyn_ev, i);
        const dyn_ev *b = &g_array_index(d->pend, dyn_ev, least);
        if (a->time_s < b->time_s || (a->time_s == b->time_s && a->seq < b->seq))
            least = i;
    }
    if (d->pend->len == 0 || g_array_index(d->pend, dyn_ev, least).arg != arg)
        d->ok = false;
    g_array_remove_index_fast(d->pend, least);
    if (d->budget-- <= 0)
        return;
    for (int k = g_rand_int_range(d->rng, 0, 6); k > 0; k--) {
        int what = g_rand_int_range(d->rng, 0, 8); /* 0: cancel, 1: re-key, else push */
        if (what > 1 || d->pend->len == 0) {
            dyn_push(d, now_s + g_rand_int_range(d->rng, 0, 3));
            continue;
        }
        guint i = (guint)g_rand_int_range(d->rng, 0, (gint32)d->pend->len);
        dyn_ev *e = &g_array_index(d->pend, dyn_ev, i);
        if (what == 0) {
            evq_cancel(d->q, e->id);
            g_array_remove_index_fast(d->pend, i);
        } else {
            e->time_s = now_s + g_rand_int_range(d->rng, 0, 3);
            e->seq = d->seq++;
            evq_rekey(d->q, e->id, e->time_s);
        }
    }
}

static void test_event_handler_pushes(void)
{
    for (guint32 seed = 1; seed <= 20; seed++) {
        g_autoptr(GRand) rng = g_rand_new_with_seed(seed);
        g_autoptr(evq) q = evq_new();
        g_autoptr(GArray) pend = g_array_new(FALSE, FALSE, sizeof(dyn_ev));
        dyn_case d = {.q = q, .rng = rng, .pend = pend, .budget = 3000, .ok = true};
        for (int i = 0; i < 40; i++)
            dyn_push(&d, g_rand_int_range(rng, 0, 4));
        evq_run_until(q, INFINITY);
        CU_ASSERT_TRUE(d.ok);
        CU_ASSERT_EQUAL(pend->len, 0);
        CU_ASSERT_EQUAL(evq_size(q), 0);
        CU_ASSERT_TRUE(evq_fired_count(q) > 3000);
    }
}

/* Two queues are independent (no shared state): times and counts differ. */
static void test_event_two_queues(void)
{
    g_autoptr(evq) a = evq_new();
    g_autoptr(evq) b = evq_new();
    g_autoptr(GArray) log = new_log();
    evq_push(a, 5.0, log_handler, log, 1);
    evq_push(b, 7.0, log_handler, log, 2);
    evq_run_until(a, INFINITY);
    TEST_ASSERT_CLOSE(evq_now(a), 5.0, 0);
    TEST_ASSERT_CLOSE(evq_now(b), 0.0, 0);
    CU_ASSERT_EQUAL(evq_size(b), 1);
    CU_ASSERT_EQUAL(evq_fired_count(b), 0);
}

/* evq_collect and evq_delay.  Events (ctx log) 1@1, 2@2, 3@2, 4@5 and
 * one of another context 9@2.  Collected for log: 1, 2, 3, 4 in firing
 * order.  Delaying 2 and 3 by 3 (to 5, both) keeps them in their order
 * and ahead of 4 (pushed after them) at 5: firing order 1, 9, 2, 3, 4;
 * a stale id is refused. */
static void test_event_collect_delay(void)
{
    g_autoptr(evq) q = evq_new();
    g_autoptr(GArray) log = new_log(), other = new_log();
    evq_push(q, 1.0, log_handler, log, 1);
    evq_id e2 = evq_push(q, 2.0, log_handler, log, 2);
    evq_id e3 = evq_push(q, 2.0, log_handler, log, 3);
    evq_push(q, 5.0, log_handler, log, 4);
    evq_push(q, 2.0, log_handler, other, 9);
    g_autoptr(GArray) got = g_array_new(FALSE, FALSE, sizeof(evq_entry));
    evq_collect(q, log_handler, log, got);
    CU_ASSERT_EQUAL(got->len, 4);
    for (guint i = 0; i < got->len && i < 4; i++)
        CU_ASSERT_EQUAL(g_array_index(got, evq_entry, i).arg, i + 1);
    TEST_ASSERT_CLOSE(g_array_index(got, evq_entry, 2).time_s, 2.0, 0);
    CU_ASSERT_TRUE(evq_delay(q, e3, 3.0));
    CU_ASSERT_TRUE(evq_delay(q, e2, 3.0));
    TEST_ASSERT_CLOSE(evq_time(q, e2), 5.0, 0);
    evq_run_until(q, INFINITY);
    CU_ASSERT_EQUAL(log->len, 4);
    for (guint i = 0; i < log->len && i < 4; i++)
        CU_ASSERT_EQUAL(log_arg(log, i), i + 1);
    CU_ASSERT_EQUAL(other->len, 1);
    CU_ASSERT_FALSE(evq_delay(q, e2, 1.0));
}

/* Events pushed for the current instant (the FIFO beside the heap), by
 * hand.  Before the run: A at 1 (arg 1), G at 1 (7), X at 2 (9).  A fires
 * at 1 and pushes, for now, B (2), C (3), D (4), E (5) and F (6), then
 * cancels D, re-keys E to 1.5 and delays F by 0.25, and collects the
 * pending events of its handler: G, B, C, F, E, X.  The order is (time,
 * seq): A, then G (in the heap, pushed before B and C, which are in the
 * FIFO), B, C, F at 1.25 (a delay keeps its seq), E at 1.5, X at 2; D
 * never fires. */
typedef struct now_case {
    evq *q;
    GArray *log;
    GArray *collected;
} now_case;

static void now_pusher(void *ctx, uint64_t arg, double now_s)
{
    now_case *c = ctx;
    log_handler(c->log, arg, now_s);
    if (arg != 1)
        return;
    evq_push(c->q, now_s, now_pusher, c, 2);
    evq_push(c->q, now_s, now_pusher, c, 3);
    evq_id d = evq_push(c->q, now_s, now_pusher, c, 4);
    evq_id e = evq_push(c->q, now_s, now_pusher, c, 5);
    evq_id f = evq_push(c->q, now_s, now_pusher, c, 6);
    CU_ASSERT_EQUAL(evq_size(c->q), 7); /* G, X and the five */
    TEST_ASSERT_CLOSE(evq_time(c->q, d), 1.0, 0);
    TEST_ASSERT_CLOSE(evq_next_time(c->q), 1.0, 0);
    CU_ASSERT_TRUE(evq_cancel(c->q, d));
    CU_ASSERT_FALSE(evq_pending(c->q, d));
    CU_ASSERT_FALSE(evq_cancel(c->q, d));
    CU_ASSERT_TRUE(evq_rekey(c->q, e, 1.5));
    CU_ASSERT_TRUE(evq_delay(c->q, f, 0.25));
    TEST_ASSERT_CLOSE(evq_time(c->q, f), 1.25, 0);
    CU_ASSERT_EQUAL(evq_size(c->q), 6);
    evq_collect(c->q, now_pusher, c, c->collected);
}

static void test_event_now_queue(void)
{
    g_autoptr(evq) q = evq_new();
    g_autoptr(GArray) log = new_log();
    g_autoptr(GArray) collected = g_array_new(FALSE, FALSE, sizeof(evq_entry));
    now_case c = {q, log, collected};
    evq_push(q, 1.0, now_pusher, &c, 1);
    evq_push(q, 1.0, now_pusher, &c, 7);
    evq_push(q, 2.0, now_pusher, &c, 9);
    evq_run_until(q, INFINITY);
    const uint64_t want[] = {1, 7, 2, 3, 6, 5, 9};
    const double at[] = {1, 1, 1, 1, 1.25, 1.5, 2};
    CU_ASSERT_EQUAL_FATAL(log->len, G_N_ELEMENTS(want));
    for (guint i = 0; i < log->len; i++) {
        CU_ASSERT_EQUAL(log_arg(log, i), want[i]);
        TEST_ASSERT_CLOSE(g_array_index(log, fired, i).now_s, at[i], 0);
    }
    /* what A saw pending of its handler, in firing order */
    const uint64_t seen[] = {7, 2, 3, 6, 5, 9};
    CU_ASSERT_EQUAL_FATAL(collected->len, G_N_ELEMENTS(seen));
    for (guint i = 0; i < collected->len; i++)
        CU_ASSERT_EQUAL(g_array_index(collected, evq_entry, i).arg, seen[i]);
    CU_ASSERT_EQUAL(evq_size(q), 0);
    CU_ASSERT_EQUAL(evq_fired_count(q), 7);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"order", test_event_order},
        {"ties", test_event_ties},
        {"cancel", test_event_cancel},
        {"rekey", test_event_rekey},
        {"stale_ids", test_event_stale_ids},
        {"reentrant", test_event_reentrant},
        {"run_until", test_event_run_until},
        {"random_against_model", test_event_random_against_model},
        {"runs_against_model", test_event_runs_against_model},
        {"handler_pushes", test_event_handler_pushes},
        {"two_queues", test_event_two_queues},
        {"now_queue", test_event_now_queue},
        {"collect_delay", test_event_collect_delay},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("event", cases);
}
