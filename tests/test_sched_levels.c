/* test_sched_levels.c - suite "sched_levels": when a scheduler's new level
 * reaches a job's running transfers (sim/steady/steady_levels.c, docs/engine.md
 * §4), and which jobs no level touches (docs/engine.md §5b).
 * Not here: the schedulers' decisions (test_schedulers.c).
 *
 * sincronia-online runs inside a wrapper whose on_comm looks at the net
 * around the real hook (and the commit the engine does after it): the net
 * level of each job's running transfers against the one its level maps
 * to, whether the net orders the transfers as the levels do, and the
 * bytes left.  A job that runs as alone (every link it shares can never
 * saturate) may keep its transfers' old level: no level changes its
 * rates; the others always stand in the net in the order of their levels,
 * by relabeling the net's levels where that keeps every running transfer
 * where it is.  Every number is worked out by hand below; the rates are
 * checked through the bytes left, with and without the fast-forward
 * (which turns both off: the plain event path).
 */
#include <math.h>
#include <string.h>

#include "sim/replay-private.h"
#include "test_run.h"
#include "test_util.h"

extern const sched_ops sched_sincronia_online_ops;

/* Two hosts under two ToRs (one each), GPUs, NICs and PCIe links one per
 * GPU, NICs 80 Gb/s = 1e10 B/s, PCIe 1e11 B/s, ToR-agg uplinks `up` Gb/s,
 * no latency, one channel, alpha 0.  A job on GPU g of both hosts rings
 * h0 -> h1 -> h0: one lock-step transfer of S bytes (2(H-1)/H S, H = 2)
 * over its two NICs and both uplinks, at most 1e10 B/s (its NICs). */
#define TOPO                                                                                   \
    "\"clos2:tors=2,aggs=1,hosts_per_tor=1,gpus=%d,nics=%d,pcie=%d,nic_gbps=80,"               \
    "pcie_gbps=800,latency_us=0,host_latency_us=0,link_gbps=%.15g\""
#define JOB(id, start, C, S)                                                                   \
    "{\"id\": \"" id "\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"], \"host_gpus\": [1, 1],"          \
    " \"start_s\": " start ", \"end_s\": 3,"                                                    \
    " \"model\": {\"compute_s\": " C ", \"comm_bytes\": " S ", \"comm_start_frac\": 1.0,"       \
    " \"opt_s\": 0.5}}"
/* p: 1e10 B from 1.0; q: 2e10 B from 1.5.  Each job takes the next free
 * GPU of each host, so they use different NICs. */
#define JOBS_PQ JOB("p", "0", "1.0", "1e10") ", " JOB("q", "0.5", "1.0", "2e10")
/* p's model on one GPU of hosts a and b in [0, 100) */
#define ON_HOSTS(id, a, b)                                                                     \
    "{\"id\": \"" id "\", \"gpus\": 2, \"hosts\": [\"" a "\", \"" b "\"], \"host_gpus\": [1, 1],"       \
    " \"start_s\": 0, \"end_s\": 100, \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 1e10,"       \
    " \"comm_start_frac\": 1.0, \"opt_s\": 0.5}}"

static char *scenario(int gpus, double up_gbps, const char *jobs)
{
    g_autofree char *topo = g_strdup_printf(TOPO, gpus, gpus, gpus, up_gbps);
    return g_strdup_printf("{\"topology\": %s, \"scheduler\": \"sincronia-online\","
                           " \"trace\": {\"jobs\": [%s]},"
                           " \"sim\": {\"interval_s\": 1, \"alpha_us\": 0, \"channels\": 1}}",
                           topo, jobs);
}

/* What the wrapper saw of one running job at one call. */
typedef struct seen {
    int job_level; /* the job's (job.priority), -1 if not running */
    int net_level; /* its first running transfer's, -1 without one */
    bool at_level; /* all its running transfers at the net level its level maps to */
    double left;   /* its first transfer's bytes left, NAN without one */
} seen;

enum { P, Q, R, S, T, N_JOBS, MAX_CALLS = 32 };

/* The jobs whose order the net must keep with each other: p, q, r share
 * links in every case below; s and t share none with them (groups). */
static int group_of(size_t k)
{
    return k >= S;
}

/* One on_comm call: when, and the jobs (trace order) before and after. */
typedef struct call {
    double t;
    bool starting;
    seen before[N_JOBS], after[N_JOBS];
    bool order_ok; /* after: the net orders the transfers of the jobs at their
                    * level as their levels do (ties included) */
} call;

typedef struct wrap {
    void *inner;
    bool swap;   /* at q's phase start, also put q on level 0 and p on 1 */
    bool force;  /* levels set by force_levels instead of sincronia-online */
    bool tied;   /* force: t's phase has started */
    call calls[MAX_CALLS];
    size_t n_calls;
} wrap;

static void *wrap_create(const sched_options *o, GError **error)
{
    wrap *w = g_new0(wrap, 1);
    w->inner = sched_sincronia_online_ops.create(o, error);
    return w;
}

static void wrap_destroy(void *self)
{
    wrap *w = self;
    sched_sincronia_online_ops.destroy(w->inner);
    g_free(w);
}

/* The levels of the case `groups`: p 0, q 1, s 2, t 3; from t's phase
 * start s 0 and t 1, tied with p and q. */
static void force_levels(const wrap *w, sched_ctx *ctx)
{
    for (size_t i = 0; i < sched_job_count(ctx); i++) {
        sched_job_info info;
        sched_job_get(ctx, i, &info);
        int k = info.id[0] - 'p';
        sched_set_priority(ctx, i, k >= S && w->tied ? k - S : k - (k >= S));
    }
}

static void wrap_reschedule(void *self, sched_ctx *ctx)
{
    wrap *w = self;
    if (w->force)
        force_levels(w, ctx);
    else
        sched_sincronia_online_ops.reschedule(w->inner, ctx);
}

/* The running jobs by trace order (p, q, r) into out. */
static void look(sched_ctx *ctx, seen *out)
{
    struct replay *r = ctx->r;
    for (size_t i = 0; i < N_JOBS; i++)
        out[i] = (seen){-1, -1, true, NAN};
    for (guint i = 0; i < r->running->len; i++) {
        const job *jb = g_ptr_array_index(r->running, i);
        size_t k = (size_t)(jb->spec.id[0] - 'p');
        g_assert(k < N_JOBS);
        out[k].job_level = jb->priority;
        for (guint a = 0; a < jb->active->len; a++) {
            net_transfer_id id = g_array_index(jb->active, net_transfer_id, a);
            int lv = net_transfer_priority(r->n, id);
            if (a == 0) {
                out[k].net_level = lv;
                out[k].left = net_transfer_remaining_bytes(r->n, id);
            }
            out[k].at_level &= lv == jb->net_level;
        }
    }
}

static bool order_ok(const seen *v)
{
    for (size_t a = 0; a < N_JOBS; a++)
        for (size_t b = 0; b < N_JOBS; b++) {
            if (v[a].net_level < 0 || v[b].net_level < 0 || !v[a].at_level || !v[b].at_level ||
                group_of(a) != group_of(b))
                continue;
            if ((v[a].job_level < v[b].job_level) != (v[a].net_level < v[b].net_level) ||
                (v[a].job_level == v[b].job_level) != (v[a].net_level == v[b].net_level))
                return false;
        }
    return true;
}

/* Running job `id` of ctx (its index). */
static size_t job_index(sched_ctx *ctx, char id)
{
    for (size_t i = 0; i < sched_job_count(ctx); i++) {
        sched_job_info info;
        sched_job_get(ctx, i, &info);
        if (info.id[0] == id)
            return i;
    }
    CU_FAIL_FATAL("job not running");
    return 0;
}

static void wrap_on_comm(void *self, sched_ctx *ctx, size_t j, bool starting)
{
    wrap *w = self;
    call *c = w->n_calls < MAX_CALLS ? &w->calls[w->n_calls++] : NULL;
    if (c) {
        c->t = sched_now_s(ctx);
        c->starting = starting;
        look(ctx, c->before);
    }
    sched_job_info info;
    sched_job_get(ctx, j, &info);
    if (w->force) {
        w->tied |= starting && info.id[0] == 't';
        force_levels(w, ctx);
    } else {
        sched_sincronia_online_ops.on_comm(w->inner, ctx, j, starting);
    }
    if (w->swap && starting && info.id[0] == 'q') {
        sched_set_priority(ctx, job_index(ctx, 'q'), 0);
        sched_set_priority(ctx, job_index(ctx, 'p'), 1);
    }
    steady_levels_commit(ctx->r->steady, true); /* as the engine does after the call */
    if (c) {
        look(ctx, c->after);
        c->order_ok = order_ok(c->after);
    }
}

/* The call at time t (a phase start or end), failing the test if none. */
static const call *call_at(const wrap *w, double t, bool starting)
{
    for (size_t i = 0; i < w->n_calls; i++)
        if (fabs(w->calls[i].t - t) < 1e-9 && w->calls[i].starting == starting)
            return &w->calls[i];
    CU_FAIL_FATAL("no on_comm call at that time");
    return NULL;
}

/* Run text under the wrapper (fast-forward on or off, swap and force as
 * in wrap) into *w (copied out before the replay is freed). */
static void run_wrapped_as(const char *text, bool ffwd, bool swap, bool force, wrap *w)
{
    sched_ops ops = sched_sincronia_online_ops;
    ops.create = wrap_create;
    ops.destroy = wrap_destroy;
    ops.reschedule = wrap_reschedule;
    ops.on_comm = wrap_on_comm;
    test_run x;
    GError *e = NULL;
    const char *const options[] = {"fast_forward", ffwd ? "true" : "false", NULL};
    bool ok = test_run_prepare(&x, text, options, &e);
    TEST_ASSERT_NO_ERROR(e);
    if (ok) {
        replay_free(x.r);
        x.r = replay_new(x.cfg, &ops, x.t, x.tr, x.cat, &e);
        TEST_ASSERT_NO_ERROR(e);
        if (x.r) {
            ((wrap *)x.r->sched)->swap = swap;
            ((wrap *)x.r->sched)->force = force;
        }
        ok = x.r && replay_run(x.r, NULL, NULL, NULL, &e);
        TEST_ASSERT_NO_ERROR(e);
    }
    CU_ASSERT_TRUE(ok);
    memset(w, 0, sizeof *w);
    if (ok)
        *w = *(wrap *)x.r->sched;
    w->inner = NULL;
    test_run_clear(&x);
}

static void run_wrapped(const char *text, bool ffwd, bool swap, wrap *w)
{
    run_wrapped_as(text, ffwd, swap, false, w);
}

/* Uplinks 240 Gb/s = 3e10 B/s: p's and q's bounds (1e10 each, their NICs)
 * add up to 2e10 < 3e10, so the uplinks can never saturate: both run as
 * alone.  At 1.0 p's phase starts alone (no contending member: level K-1
 * = 7).  At 1.5 q's starts: both share the uplinks, BSSI's bottleneck is
 * q's NIC (2e10 / 1e10 = 2 s against the uplinks' 3e10 / 3e10 = 1 s), q
 * goes last: p level 0, q level 1.  p's rate is 1e10 whatever the levels
 * (NIC-bound, 2e10 < 3e10 on the uplinks), and so is q's: at 2.0 p is done
 * (0.5e10 left at 1.5) and q has 2e10 - 0.5 x 1e10 = 1.5e10 left.  Then q
 * alone (no contending member) goes to 7: with the fast-forward its
 * running transfer keeps the net level it started at (it waits), without
 * it gets level 7. */
static void test_sched_levels_wait(void)
{
    g_autofree char *text = scenario(2, 240, JOBS_PQ);
    for (int ff = 1; ff >= 0; ff--) {
        wrap w;
        run_wrapped(text, ff, false, &w);
        const call *q_start = call_at(&w, 1.5, true), *p_end = call_at(&w, 2.0, false);
        CU_ASSERT_EQUAL(q_start->after[P].job_level, 0);
        CU_ASSERT_EQUAL(q_start->after[Q].job_level, 1);
        TEST_ASSERT_CLOSE(q_start->after[P].left, 0.5e10, 1e-9);
        TEST_ASSERT_CLOSE(p_end->before[Q].left, 1.5e10, 1e-9);
        CU_ASSERT_EQUAL(p_end->after[Q].job_level, 7);
        CU_ASSERT_EQUAL(p_end->after[Q].net_level, ff ? p_end->before[Q].net_level : 7);
        CU_ASSERT_EQUAL(p_end->after[Q].at_level, !ff);
    }
}

/* Uplinks 100 Gb/s = 1.25e10 B/s: the bounds (2e10) exceed it, the uplinks
 * can saturate, neither job runs as alone.  At 1.5 the bottleneck is an
 * uplink (3e10 / 1.25e10 = 2.4 s, q's NIC 2 s); q's ratio w/d = 1 / 1.6 is
 * the smaller (p's 1 / 0.8): q last, p level 0, q level 1.  p's transfer
 * started at 1.0 at the net level of 7, the only level in use; mapping
 * level 0 there and level 1 just below keeps it where it is (no re-solve
 * with the fast-forward), and q starts below it.  p then takes 1e10 (its
 * NIC) and q the uplink's rest, 0.25e10: p, 0.5e10 left at 1.5, is done at
 * 2.0; q has 2e10 - 0.5 x 0.25e10 = 1.875e10 left.  Had p stood below q,
 * q would have taken 1e10 and left 1.5e10. */
static void test_sched_levels_tight(void)
{
    g_autofree char *text = scenario(2, 100, JOBS_PQ);
    for (int ff = 1; ff >= 0; ff--) {
        wrap w;
        run_wrapped(text, ff, false, &w);
        const call *q_start = call_at(&w, 1.5, true), *p_end = call_at(&w, 2.0, false);
        CU_ASSERT_EQUAL(q_start->after[P].job_level, 0);
        CU_ASSERT_TRUE(q_start->after[P].at_level);
        CU_ASSERT_TRUE(q_start->order_ok);
        if (ff) {
            CU_ASSERT_EQUAL(q_start->after[P].net_level, q_start->before[P].net_level);
        } else {
            CU_ASSERT_EQUAL(q_start->after[P].net_level, 0);
        }
        TEST_ASSERT_CLOSE(p_end->before[Q].left, 1.875e10, 1e-9);
        CU_ASSERT_TRUE(p_end->after[Q].at_level);
        CU_ASSERT_TRUE(p_end->order_ok);
    }
}

/* The same jobs, but at q's phase start the levels are swapped (q 0, p 1):
 * p's transfer, at the net level of 7 (the only level in use at 1.0), must
 * now stand below q, which has no transfer yet and takes the top level:
 * no map keeps p's transfer where it is and puts level 0 above it, so the
 * map falls back to the levels themselves and p's transfer moves to 1. */
static void test_sched_levels_swap(void)
{
    g_autofree char *text = scenario(2, 100, JOBS_PQ);
    wrap w;
    run_wrapped(text, true, true, &w);
    const call *q_start = call_at(&w, 1.5, true);
    CU_ASSERT_EQUAL(q_start->before[P].net_level, 0);
    CU_ASSERT_EQUAL(q_start->after[P].job_level, 1);
    CU_ASSERT_EQUAL(q_start->after[P].net_level, 1);
    CU_ASSERT_TRUE(q_start->after[P].at_level);
    CU_ASSERT_TRUE(q_start->order_ok);
}

/* The first case with a third GPU per host and job r (compute 0.2 s,
 * 1e10 B) arriving at 2.2, on uplinks of 239.99999988 Gb/s =
 * 2.9999999985e10 B/s = 3e10 (1 - 5e-10): p's and q's bounds (2e10) stay
 * below it, as in the first case, but with r's three bounds of 1e10 exceed
 * it by 5e-10 relative, beyond the margin rel_eps = 1e-11 (docs/engine.md
 * §5b), so the uplinks may saturate and nobody runs as alone any more.
 * q's transfer, left at its old net level at 2.0, gets its level's at the
 * reschedule: at r's phase start (2.4) it is there.  q alone moves 1e10 B/s from 2.0:
 * 1.5e10 - 0.4e10 = 1.1e10 left at 2.4. */
static void test_sched_levels_sync(void)
{
    g_autofree char *text = scenario(3, 239.99999988, JOBS_PQ ", " JOB("r", "2.2", "0.2", "1e10"));
    wrap w;
    run_wrapped(text, true, false, &w);
    const call *p_end = call_at(&w, 2.0, false), *r_start = call_at(&w, 2.4, true);
    CU_ASSERT_FALSE(p_end->after[Q].at_level);
    CU_ASSERT_TRUE(r_start->before[Q].at_level);
    TEST_ASSERT_CLOSE(r_start->before[Q].left, 1.1e10, 1e-9);
    CU_ASSERT_TRUE(r_start->after[Q].at_level);
    CU_ASSERT_TRUE(r_start->order_ok);
}

/* Six hosts, three under each of two ToRs (h0-h2, h3-h5), one 1e10 B/s
 * NIC per host for its two GPUs, uplinks 240 Gb/s = 3e10 B/s; three jobs
 * of p's model (T = 2.5 s alone) in [0, 100): m on h0, h1 (under one ToR),
 * k on h0, h3, j on h2, h5.  m and k share h0's NIC (bounds 2 x 1e10 >
 * 1e10: it may saturate, neither runs as alone); k and j share the uplinks
 * (2 x 1e10 < 3e10: they cannot), so j runs as alone, but its levels
 * (through k's) reach the NIC that m and k fight over: j is not free of
 * levels under sincronia-online, and all three communicate in [1, 2) of
 * every iteration, so it never gets a window either: no stretch.  Under
 * ecmp (no hook) j runs one stretch from its arrival at 0 to before the
 * ends at 100: 2.5 x 39 = 97.5 < 100, 39 iterations; m and k, peers that
 * communicate together, none. */
static void test_sched_levels_component(void)
{
    static const char *const scheds[] = {"ecmp", "sincronia-online"};
    static const size_t stretches[] = {1, 0}, iters[] = {39, 0};
    for (size_t i = 0; i < G_N_ELEMENTS(scheds); i++) {
        g_autofree char *text = g_strdup_printf(
            "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=3,gpus=2,nics=1,pcie=1,"
            "nic_gbps=80,pcie_gbps=800,latency_us=0,host_latency_us=0,link_gbps=240\","
            " \"scheduler\": \"%s\", \"trace\": {\"jobs\": [%s, %s, %s]},"
            " \"sim\": {\"interval_s\": 3, \"alpha_us\": 0, \"channels\": 1}}",
            scheds[i], ON_HOSTS("m", "h0", "h1"), ON_HOSTS("k", "h0", "h3"),
            ON_HOSTS("j", "h2", "h5"));
        test_run x;
        if (test_run_text(&x, text, true, NULL)) {
            replay_summary sum;
            replay_get_summary(x.r, &sum);
            CU_ASSERT_EQUAL(sum.ffwd_stretches, stretches[i]);
            CU_ASSERT_EQUAL(sum.ffwd_stretch_iterations, iters[i]);
            replay_job_result jr;
            replay_job_get(x.r, 2, &jr);
            CU_ASSERT_EQUAL(jr.iterations, 39);
        }
        test_run_clear(&x);
        test_run_assert_same(text, 1e-9, NULL, NULL);
    }
}

/* p's model from start_s */
#define FROM(id, start, a, b)                                                                  \
    "{\"id\": \"" id "\", \"gpus\": 2, \"hosts\": [\"" a "\", \"" b "\"], \"host_gpus\": [1, 1],"       \
    " \"start_s\": " start ", \"end_s\": 100, \"model\": {\"compute_s\": 1.0,"                   \
    " \"comm_bytes\": 1e10, \"comm_start_frac\": 1.0, \"opt_s\": 0.5}}"

/* The six hosts of `component`, nics=1: p and q on h0, h3 (they share both
 * NICs, 2 x 1e10 > 1e10: tight), s and t on h1, h2 (under one ToR: their
 * NICs only, tight too); the two pairs share no link: two groups.  Their
 * phases start at 1.0 (p), 1.1 (q), 1.2 (s), 1.3 (t).  The levels are
 * forced: p 0, q 1, s 2, t 3.  With one map for all jobs, s's transfer
 * would start on net level 2, and at t's start, where s and t take 0 and
 * 1 (the levels of p and q), the map would need net level 0 for p's
 * transfer and 2 for s's: a tie the net does not have, so it would fall
 * back to the identity and move s's transfer to 0.  Per group, s's
 * transfer sits where its group's map put it and stays there, p's too,
 * and t starts below s.  Rates: p above q on h0's NIC takes 1e10, q 0;
 * s above t takes 1e10, t 0.  At p's end (2.0): s started at 1.2,
 * 1e10 - 0.8 x 1e10 = 0.2e10 left; t 1e10 (nothing yet), with and
 * without the fast-forward (without it the map is the identity: s's
 * transfer starts on 2 and moves to 0 at t's start). */
static void test_sched_levels_groups(void)
{
    g_autofree char *jobs =
        g_strdup_printf("%s, %s, %s, %s", FROM("p", "0", "h0", "h3"), FROM("q", "0.1", "h0", "h3"),
                        FROM("s", "0.2", "h1", "h2"), FROM("t", "0.3", "h1", "h2"));
    g_autofree char *text = g_strdup_printf(
        "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=3,gpus=2,nics=1,pcie=1,"
        "nic_gbps=80,pcie_gbps=800,latency_us=0,host_latency_us=0,link_gbps=240\","
        " \"scheduler\": \"sincronia-online\", \"trace\": {\"jobs\": [%s]},"
        " \"sim\": {\"interval_s\": 1, \"alpha_us\": 0, \"channels\": 1}}",
        jobs);
    for (int ff = 1; ff >= 0; ff--) {
        wrap w;
        run_wrapped_as(text, ff, false, true, &w);
        const call *t_start = call_at(&w, 1.3, true), *p_end = call_at(&w, 2.0, false);
        CU_ASSERT_EQUAL(t_start->before[S].job_level, 2);
        CU_ASSERT_EQUAL(t_start->after[S].job_level, 0);
        CU_ASSERT_EQUAL(t_start->after[P].job_level, 0);
        CU_ASSERT_TRUE(t_start->after[S].at_level);
        CU_ASSERT_TRUE(t_start->after[P].at_level);
        CU_ASSERT_TRUE(t_start->order_ok);
        CU_ASSERT_EQUAL(t_start->after[P].net_level, t_start->before[P].net_level);
        if (ff) {
            CU_ASSERT_EQUAL(t_start->after[S].net_level, t_start->before[S].net_level);
        } else {
            CU_ASSERT_EQUAL(t_start->before[S].net_level, 2);
            CU_ASSERT_EQUAL(t_start->after[S].net_level, 0);
        }
        TEST_ASSERT_CLOSE(p_end->before[S].left, 0.2e10, 1e-9);
        TEST_ASSERT_CLOSE(p_end->before[T].left, 1e10, 1e-9);
        CU_ASSERT_TRUE(p_end->order_ok);
    }
}

/* Levels a scheduler with unlimited levels (crux-pa) gets: K is the most
 * jobs whose intervals overlap (a start and an end at one instant both
 * counted), at least sim.priority_levels (8), at most 64; in work mode the
 * number of jobs.  Jobs of 1 GPU, n_a of them in [0, 10) and n_b in
 * [10, 20):
 *  - 12 and 1: 12 at once, and at 10 the start counts before the ends:
 *    13 (the old rule, one level per job of the run, gives 13 too);
 *  - 6 and 6: at most 6 run at once, 12 counted at 10: max(8, 12) = 12;
 *  - 3 and 3: 6 counted, max(8, 6) = 8 (the old rule gives 8 as well);
 *  - 10 and 10 in work mode: 20 jobs, 20 levels;
 *  - 5 and 6 in window mode with 2 more in [30, 40): 11 (the old rule 13). */
static void test_sched_levels_unlimited(void)
{
    static const struct {
        int na, nb, nc;
        const char *mode;
        int K;
    } cases[] = {{12, 1, 0, "window", 13}, {6, 6, 0, "window", 12}, {3, 3, 0, "window", 8},
                 {10, 10, 0, "work", 20},  {5, 6, 2, "window", 11}};
    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        g_autoptr(GString) jobs = g_string_new(NULL);
        int n[3] = {cases[c].na, cases[c].nb, cases[c].nc};
        const double at[3] = {0, 10, 30};
        for (int w = 0; w < 3; w++)
            for (int i = 0; i < n[w]; i++)
                g_string_append_printf(
                    jobs,
                    "%s{\"id\": \"j%d_%d\", \"gpus\": 1, \"start_s\": %g, \"end_s\": %g,"
                    " \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 1e6,"
                    " \"comm_start_frac\": 1.0, \"opt_s\": 0.5}}",
                    jobs->len ? ", " : "", w, i, at[w], at[w] + 10);
        g_autofree char *text = g_strdup_printf(
            "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=8,nics=8,pcie=8\","
            " \"scheduler\": \"crux-pa\", \"trace\": {\"jobs\": [%s]},"
            " \"sim\": {\"mode\": \"%s\", \"interval_s\": 5}}",
            jobs->str, cases[c].mode);
        test_run x;
        GError *e = NULL;
        if (test_run_prepare(&x, text, NULL, &e))
            CU_ASSERT_EQUAL(x.r->levels, cases[c].K);
        TEST_ASSERT_NO_ERROR(e);
        test_run_clear(&x);
    }
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"wait", test_sched_levels_wait},
        {"tight", test_sched_levels_tight},
        {"swap", test_sched_levels_swap},
        {"sync", test_sched_levels_sync},
        {"component", test_sched_levels_component},
        {"groups", test_sched_levels_groups},
        {"unlimited", test_sched_levels_unlimited},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("sched_levels", cases);
}
