/* test_schedulers.c - suite "schedulers": decisions on a hand-built sched_ctx.
 * Not here: the pure cores (test_sched_core.c), replays.
 *
 * Suite "schedulers": each scheduler's decisions on a hand-built sched_ctx
 * (tests/fake_ctx.h), the papers' worked examples seen through the
 * scheduler interface.
 */
#include "sim/scheduler.h"

#include <cjson/cJSON.h>

#include "base/ccs.h"

#include "fake_ctx.h"
#include "schedulers/sched-private.h"
#include "schedulers/registry.h"
#include "test_util.h"

extern const sched_ops sched_crux_ops, sched_crux_pa_ops, sched_crux_ps_pa_ops;
extern const sched_ops sched_sincronia_ops, sched_sincronia_online_ops;
extern const sched_ops sched_taccl_ops, sched_cassini_ops;

static void *make(const sched_ops *ops, int levels)
{
    sched_options o = {.priority_levels = levels, .seed = 1, .config = NULL};
    GError *err = NULL;
    void *s = ops->create(&o, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    return s;
}

static void run_once(const sched_ops *ops, sched_ctx *ctx)
{
    void *s = make(ops, ctx->levels);
    ops->reschedule(s, ctx);
    ops->destroy(s);
}

/* docs/design.md §5.1 through the interface.  Links 0 = P1, 1 = P2, 100 B/s.
 * Jobs arrive c, b, a (indices 0, 1, 2), each one flow with candidates
 * {P1}, {P2}, ECMP on P1, isolated iteration 1 s so rates = bytes:
 * a 60 B, C .54 s x 10 GPUs: t = .6, I = 5.4/.6 = 9; b 50 B, C .35:
 * t .5, I 7; c 30 B, C .06: t .3, I 2.
 * crux-ps-pa (by I): a P1, b P2, c P2.  taccl (arrival): c P1, b P2, a P1
 * (all 1 hop: one class, level 0).  crux-pa keeps ECMP (all P1). */
static void path_case(sched_ctx *ctx)
{
    static const int p1[] = {0, -1}, p2[] = {1, -1};
    fake_ctx_init(ctx, 2, 100, 8);
    fake_job_flow(fake_ctx_job(ctx, "c", 10, 0.06, 1, 1), 30, p1, p2);
    fake_job_flow(fake_ctx_job(ctx, "b", 10, 0.35, 1, 1), 50, p1, p2);
    fake_job_flow(fake_ctx_job(ctx, "a", 10, 0.54, 1, 1), 60, p1, p2);
}

static void test_schedulers_paths(void)
{
    sched_ctx ctx;
    path_case(&ctx);
    run_once(&sched_crux_ps_pa_ops, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[2].flows[0].path, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].flows[0].path, 1);
    CU_ASSERT_EQUAL(ctx.jobs[0].flows[0].path, 1);
    fake_ctx_clear(&ctx);

    path_case(&ctx);
    run_once(&sched_crux_ops, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[2].flows[0].path, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].flows[0].path, 1);
    CU_ASSERT_EQUAL(ctx.jobs[0].flows[0].path, 1);
    fake_ctx_clear(&ctx);

    path_case(&ctx);
    run_once(&sched_taccl_ops, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[0].flows[0].path, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].flows[0].path, 1);
    CU_ASSERT_EQUAL(ctx.jobs[2].flows[0].path, 0);
    for (int j = 0; j < 3; j++)
        CU_ASSERT_EQUAL(ctx.jobs[j].info.priority, 0);
    fake_ctx_clear(&ctx);

    path_case(&ctx);
    run_once(&sched_crux_pa_ops, &ctx);
    for (int j = 0; j < 3; j++)
        CU_ASSERT_EQUAL(ctx.jobs[j].flows[0].path, 0);
    fake_ctx_clear(&ctx);
}

/* Crux Example 1 on one link of 1 B/s: J1 10 GPUs, C 2, f 1, 2 B per
 * iteration (t = 2, iteration 4); J2 10 GPUs, C 1, f 1, 1 B (t = 1,
 * iteration 2).  I_1 = 20/2 = I_2 = 10/1 = 10.  Reference J1 (2 B);
 * PAIR_SIM horizon 3 x 4 = 12, k_2 = 1.5 (test_sched_core): P_2 = 15 >
 * P_1 = 10.  crux-pa: J2 level 0, J1 level 1.  crux with K = 8: the DAG
 * has one edge J2 -> J1, cut by levels 0 / 1; with K = 1 both on 0. */
static void example1_case(sched_ctx *ctx, int levels)
{
    static const int l0[] = {0, -1};
    fake_ctx_init(ctx, 1, 1, levels);
    fake_job_flow(fake_ctx_job(ctx, "J1", 10, 2, 1, 4), 2, l0, NULL);
    fake_job_flow(fake_ctx_job(ctx, "J2", 10, 1, 1, 2), 1, l0, NULL);
}

static void test_schedulers_crux_priorities(void)
{
    sched_ctx ctx;
    example1_case(&ctx, 8);
    run_once(&sched_crux_pa_ops, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 0);
    fake_ctx_clear(&ctx);

    example1_case(&ctx, 8);
    run_once(&sched_crux_ops, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 0);
    fake_ctx_clear(&ctx);

    example1_case(&ctx, 1);
    run_once(&sched_crux_ops, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 0);
    fake_ctx_clear(&ctx);
}

/* Crux's context assignment (crux_assign_context) on one link of 1 B/s
 * with the three jobs of test_sched_core_stack_sim, 1 GPU each: A and B
 * (C = 1, f = 1, 1 B: t = 1, I = 1), H (C = 1.5, f = 1, 0.5 B: t = 0.5,
 * I = 3); every iteration is 2 s alone, so the horizon is 6 s.
 * H: others in decreasing I (A, B by arrival).  H on top [H, A, B]
 * gives H 4.5, A 2.5, B 1; H at the bottom [A, B, H] gives A 3, B 2, H 0:
 * dN_H = 4.5, the others lose (3 - 2.5) + (2 - 1) = 1.5, P_H = 3/6.
 * A: others H (I 3), B.  [A, H, B]: A 3, H 3.5, B 1; [H, B, A]: H 4.5,
 * B 2.5, A 1 (B in A's place above): dN_A = 2, others lose (4.5 - 3.5) +
 * (2.5 - 1) = 2.5, P_A = -0.5/6; B the same by symmetry.  Ranking H, then
 * A and B tied on P and I, by arrival.  The refinement (crux_refine) keeps
 * it: H below A would give [A, H, B] 3 + 3.5 + 1 = 7.5 GPU-s against
 * [H, A, B] 4.5 + 2.5 + 1 = 8, and B above A gives the same 8 (no move).
 * crux-pa levels: H 0, A 1, B 2. */
static void test_schedulers_crux_context(void)
{
    static const int l0[] = {0, -1};
    sched_ctx ctx;
    fake_ctx_init(&ctx, 1, 1, 8);
    fake_job_flow(fake_ctx_job(&ctx, "A", 1, 1, 1, 2), 1, l0, NULL);
    fake_job_flow(fake_ctx_job(&ctx, "B", 1, 1, 1, 2), 1, l0, NULL);
    fake_job_flow(fake_ctx_job(&ctx, "H", 1, 1.5, 1, 2), 0.5, l0, NULL);
    run_once(&sched_crux_pa_ops, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 2);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 0);
    fake_ctx_clear(&ctx);
}

/* Crux keeps its stack simulations between reschedules (by their inputs,
 * sched-stack-cache.c): a scheduler that has seen other job sets must
 * rank as a new one does.  The context case above, one scheduler through
 * five reschedules: as it is (H 0, A 1, B 2, worked out above), again,
 * with H sending 3 B instead of 0.5 (other stacks, other horizons), 0.25 B
 * (other stacks, the same 6 s horizon) and 0.5 B again (H 0, A 1, B 2),
 * H a new job (uid) each time; after each, the levels of a new scheduler
 * on the same jobs.  (That the kept results are those of the inputs
 * asked for is test sched_core/stack_cache.) */
static void test_schedulers_crux_context_reuse(void)
{
    static const int l0[] = {0, -1};
    static const double h_bytes[] = {0.5, 0.5, 3, 0.25, 0.5};
    sched_ctx ctx;
    fake_ctx_init(&ctx, 1, 1, 8);
    fake_job_flow(fake_ctx_job(&ctx, "A", 1, 1, 1, 2), 1, l0, NULL);
    fake_job_flow(fake_ctx_job(&ctx, "B", 1, 1, 1, 2), 1, l0, NULL);
    fake_job_flow(fake_ctx_job(&ctx, "H", 1, 1.5, 1, 2), 0.5, l0, NULL);
    const sched_ops *ops = &sched_crux_pa_ops;
    void *kept = make(ops, 8);
    for (size_t round = 0; round < G_N_ELEMENTS(h_bytes); round++) {
        ctx.jobs[2].flows[0].bytes = h_bytes[round];
        ctx.jobs[2].info.uid = 3 + round; /* a new job each time: t_j is measured once (D2) */
        run_once(ops, &ctx);
        int fresh[3];
        for (size_t j = 0; j < 3; j++)
            fresh[j] = ctx.jobs[j].info.priority;
        ops->reschedule(kept, &ctx);
        for (size_t j = 0; j < 3; j++)
            CU_ASSERT_EQUAL(ctx.jobs[j].info.priority, fresh[j]);
    }
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 2);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 0);
    ops->destroy(kept);
    fake_ctx_clear(&ctx);
}

/* The bytes per link and candidate tables kept between reschedules
 * (sched-job-cache.c) are what the engine gives for the job as it is now.
 * Path case above: a (index 2) sends 60 B on its chosen candidate P1
 * (link 0): M = {0: 60}.  Moved to P2: {1: 60}; then 80 B: {1: 80} (the
 * same uid each time).  Its table: two candidates, {0} and {1}; with a
 * third candidate {0, 1} added, three. */
static void expect_bytes(sched__job_cache *c, sched_ctx *ctx, size_t j, uint32_t link,
                         double bytes)
{
    GArray *l, *b;
    sched__job_cache_bytes(c, ctx, j, &l, &b);
    CU_ASSERT_EQUAL_FATAL(l->len, 1);
    CU_ASSERT_EQUAL(g_array_index(l, uint32_t, 0), link);
    TEST_ASSERT_CLOSE(g_array_index(b, double, 0), bytes, 1e-12);
    g_array_unref(l);
    g_array_unref(b);
}

static void test_schedulers_job_cache(void)
{
    static const int both[] = {0, 1, -1};
    sched_ctx ctx;
    path_case(&ctx);
    sched__job_cache *c = sched__job_cache_new();
    expect_bytes(c, &ctx, 2, 0, 60);
    sched_set_path(&ctx, 2, 0, 1);
    expect_bytes(c, &ctx, 2, 1, 60);
    ctx.jobs[2].flows[0].bytes = 80;
    expect_bytes(c, &ctx, 2, 1, 80);
    const sched__job_paths *t = sched__job_cache_paths(c, &ctx, 2);
    CU_ASSERT_EQUAL(t->n_flows, 1);
    CU_ASSERT_EQUAL(t->path_off->len, 3); /* two candidates */
    CU_ASSERT_EQUAL(g_array_index(t->all_links, uint32_t, 0), 0);
    CU_ASSERT_EQUAL(g_array_index(t->all_links, uint32_t, 1), 1);
    fake_flow *f = &ctx.jobs[2].flows[0];
    f->n_links[2] = 2;
    for (size_t k = 0; k < 2; k++)
        f->links[2][k] = (uint32_t)both[k];
    f->n_paths = 3;
    t = sched__job_cache_paths(c, &ctx, 2);
    CU_ASSERT_EQUAL(t->path_off->len, 4); /* three candidates */
    CU_ASSERT_EQUAL(t->all_links->len, 4);
    sched__job_cache_free(c);
    fake_ctx_clear(&ctx);
}

static void run_with(const sched_ops *ops, sched_ctx *ctx, const char *json)
{
    cJSON *cfg = cJSON_Parse(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
    sched_options o = {.priority_levels = ctx->levels, .seed = 1, .config = cfg};
    GError *err = NULL;
    void *s = ops->create(&o, &err);
    TEST_ASSERT_NO_ERROR(err);
    if (s) {
        ops->reschedule(s, ctx);
        ops->destroy(s);
    }
    cJSON_Delete(cfg);
}

/* The optimal-gap overrides.  Example 1 with "order": ["J1"] puts J1
 * first against its P (level 0, J2 1); "levels": {"J1": 5} on crux sets
 * J1's level 5 whatever the cut; "path": {"a": 1} sends a through P2 where
 * Crux chose P1 (path case above); bad values are errors. */
static void test_schedulers_crux_overrides(void)
{
    sched_ctx ctx;
    example1_case(&ctx, 8);
    run_with(&sched_crux_pa_ops, &ctx, "{\"order\": [\"J1\"]}");
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 1);
    fake_ctx_clear(&ctx);

    example1_case(&ctx, 8);
    run_with(&sched_crux_ops, &ctx, "{\"levels\": {\"J1\": 5}}");
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 5);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 0);
    fake_ctx_clear(&ctx);

    path_case(&ctx);
    run_with(&sched_crux_ps_pa_ops, &ctx, "{\"path\": {\"a\": 1}}");
    CU_ASSERT_EQUAL(ctx.jobs[2].flows[0].path, 1);
    fake_ctx_clear(&ctx);

    const char *bad[] = {"{\"order\": 3}", "{\"order\": [1]}", "{\"path\": {\"a\": -1}}",
                         "{\"levels\": {\"a\": 0.5}}", "{\"levels\": []}"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        cJSON *cfg = cJSON_Parse(bad[i]);
        sched_options o = {.priority_levels = 4, .seed = 1, .config = cfg};
        GError *err = NULL;
        CU_ASSERT_PTR_NULL(sched_crux_ops.create(&o, &err));
        TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
        cJSON_Delete(cfg);
    }
}

/* Sincronia example A as link demands (fixed links, 1 B/s): C1 (0, 2),
 * C2 (4, 1), C3 (0, 3): BSSI order C1, C2, C3 -> levels 0, 1, 2 with
 * K = 8, and 0, 1, 1 with K = 2 (D12). */
static void sincronia_case(sched_ctx *ctx, int levels)
{
    fake_ctx_init(ctx, 2, 1, levels);
    fake_job_fixed(fake_ctx_job(ctx, "C1", 1, 1, 1, 1), 1, 2);
    fake_job *c2 = fake_ctx_job(ctx, "C2", 1, 1, 1, 1);
    fake_job_fixed(c2, 0, 4);
    fake_job_fixed(c2, 1, 1);
    fake_job_fixed(fake_ctx_job(ctx, "C3", 1, 1, 1, 1), 1, 3);
}

static void test_schedulers_sincronia(void)
{
    sched_ctx ctx;
    sincronia_case(&ctx, 8);
    run_once(&sched_sincronia_ops, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 2);
    fake_ctx_clear(&ctx);
    sincronia_case(&ctx, 2);
    run_once(&sched_sincronia_ops, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 1);
    fake_ctx_clear(&ctx);
}

/* Example A plus C0, alone on link 2 with the smallest demand (0.5):
 * sharing no link, C0 is not ranked and goes to the lowest level, so with
 * K = 3 the contending coflows keep their levels C1 0, C2 1, C3 2 and C0
 * gets 2 (ranked, C0 would take a level: its private port is BSSI's last
 * bottleneck, which puts it first). */
static void test_schedulers_sincronia_private(void)
{
    sched_ctx ctx;
    fake_ctx_init(&ctx, 3, 1, 3);
    fake_job_fixed(fake_ctx_job(&ctx, "C0", 1, 1, 1, 1), 2, 0.5);
    fake_job_fixed(fake_ctx_job(&ctx, "C1", 1, 1, 1, 1), 1, 2);
    fake_job *c2 = fake_ctx_job(&ctx, "C2", 1, 1, 1, 1);
    fake_job_fixed(c2, 0, 4);
    fake_job_fixed(c2, 1, 1);
    fake_job_fixed(fake_ctx_job(&ctx, "C3", 1, 1, 1, 1), 1, 3);
    run_once(&sched_sincronia_ops, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 2);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[3].info.priority, 2);
    fake_ctx_clear(&ctx);
}

/* BSSI on fewer ports (sincronia.c, demand_matrix): a member's private
 * links (no other member uses them) count only through the largest, the
 * lowest id among equal ones.  Capacities 1 B/s, K = 8; A: links 0 and 3
 * (3 each, private), 2 (1); B: 2 (2), 4 (1, private); C: 1 (3, private),
 * 2 (1.5), 5 (0.5, private).  From scratch, on all six ports:
 *  round 1, loads (3, 3, 4.5, 3, 1, 0.5): bottleneck link 2, w/d A 1/1,
 *  B 1/2, C 1/1.5: B last; weights A 1 - 1/2 = 0.5, C 1 - 1.5/2 = 0.25;
 *  round 2, A and C, loads (3, 3, 2.5, 3, -, 0.5): links 0, 1, 3 tie at
 *  3, the lowest is link 0, A's: A last, no other weight changes;
 *  round 3: C.  Order C, A, B: levels C 0, A 1, B 2.
 * Dropping the private links would make round 2's bottleneck link 2 (C
 * last: 0.25/1.5 < 0.5/1), and keeping A's link 3 instead of link 0 would
 * make it link 1 (C's): both give A 0, C 1.  sincronia-online: all three
 * start: the same order.  B ends: A and C still share link 2 and order as
 * in rounds 2-3: C 0, A 1, B 7.  B starts again: C 0, A 1, B 2. */
static void sincronia_private_ports_case(sched_ctx *ctx)
{
    fake_ctx_init(ctx, 6, 1, 8);
    fake_job *a = fake_ctx_job(ctx, "A", 1, 1, 1, 1);
    fake_job_fixed(a, 0, 3);
    fake_job_fixed(a, 3, 3);
    fake_job_fixed(a, 2, 1);
    fake_job *b = fake_ctx_job(ctx, "B", 1, 1, 1, 1);
    fake_job_fixed(b, 2, 2);
    fake_job_fixed(b, 4, 1);
    fake_job *c = fake_ctx_job(ctx, "C", 1, 1, 1, 1);
    fake_job_fixed(c, 1, 3);
    fake_job_fixed(c, 2, 1.5);
    fake_job_fixed(c, 5, 0.5);
}

static void test_schedulers_sincronia_private_ports(void)
{
    static const int all[] = {1, 2, 0}, without_b[] = {1, 7, 0};
    sched_ctx ctx;
    sincronia_private_ports_case(&ctx);
    run_once(&sched_sincronia_ops, &ctx);
    for (size_t j = 0; j < 3; j++)
        CU_ASSERT_EQUAL(ctx.jobs[j].info.priority, all[j]);
    const sched_ops *ops = &sched_sincronia_online_ops;
    void *s = make(ops, 8);
    ops->reschedule(s, &ctx);
    for (size_t j = 0; j < 3; j++)
        ops->on_comm(s, &ctx, j, true);
    for (size_t j = 0; j < 3; j++)
        CU_ASSERT_EQUAL(ctx.jobs[j].info.priority, all[j]);
    ops->on_comm(s, &ctx, 1, false);
    for (size_t j = 0; j < 3; j++)
        CU_ASSERT_EQUAL(ctx.jobs[j].info.priority, without_b[j]);
    ops->on_comm(s, &ctx, 1, true);
    for (size_t j = 0; j < 3; j++)
        CU_ASSERT_EQUAL(ctx.jobs[j].info.priority, all[j]);
    ops->destroy(s);
    fake_ctx_clear(&ctx);
}

/* sincronia-online, same jobs, K = 8.  Nobody communicating: all on the
 * lowest level 7.  C3 starts: alone, it shares no link with a
 * communicating job, so it is not ranked: still 7.  C2 starts: BSSI over
 * {C2, C3}: loads (4, 4), tie to link 0 where only C2 sends, so C2 last:
 * C3 0, C2 1, C1 7.  C3 ends: C2 alone, 7 like C1 and C3.  C3 starts
 * again: the same set, the same order C3 0, C2 1 (the remembered one); C3
 * ends: C2 7.  Reschedule (C2 still communicating, alone: 7), then C3's demand on link 1 becomes 5 (as a new job would
 * bring) and C3 starts: loads (4, 6), bottleneck link 1, w/d = 1/1 for C2
 * and 1/5 for C3, so C3 last: C2 0, C3 1 (remembered orders and demands
 * must not survive a reschedule). */
static void test_schedulers_sincronia_online(void)
{
    sched_ctx ctx;
    sincronia_case(&ctx, 8);
    const sched_ops *ops = &sched_sincronia_online_ops;
    void *s = make(ops, 8);
    ops->reschedule(s, &ctx);
    for (int j = 0; j < 3; j++)
        CU_ASSERT_EQUAL(ctx.jobs[j].info.priority, 7);
    ops->on_comm(s, &ctx, 2, true);
    for (int j = 0; j < 3; j++)
        CU_ASSERT_EQUAL(ctx.jobs[j].info.priority, 7);
    ops->on_comm(s, &ctx, 1, true);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 7);
    ops->on_comm(s, &ctx, 2, false);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 7);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 7);
    ops->on_comm(s, &ctx, 2, true);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 1);
    ops->on_comm(s, &ctx, 2, false);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 7);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 7);
    ops->reschedule(s, &ctx); /* C2 still communicating, alone */
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 7);
    ctx.jobs[2].fixed_bytes[0] = 5;
    ops->reschedule(s, &ctx);
    ops->on_comm(s, &ctx, 2, true);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 7);
    ops->destroy(s);
    fake_ctx_clear(&ctx);
}

/* sincronia-online with three jobs on one link (demands C1 2, C3 3, C4 1
 * on link 1, K = 8): the shared-link counts must follow three users.
 * All three start: BSSI's bottleneck is link 1 (load 6), the largest
 * demand goes last: C3, then C1 of {C1, C4}: C4 0, C1 1, C3 2.  C3 ends:
 * {C1, C4} still share link 1: C4 0, C1 1.  C1 ends: C4 alone shares
 * nothing: everyone 7. */
static void test_schedulers_sincronia_online_three(void)
{
    sched_ctx ctx;
    fake_ctx_init(&ctx, 2, 1, 8);
    fake_job_fixed(fake_ctx_job(&ctx, "C1", 1, 1, 1, 1), 1, 2);
    fake_job_fixed(fake_ctx_job(&ctx, "C3", 1, 1, 1, 1), 1, 3);
    fake_job_fixed(fake_ctx_job(&ctx, "C4", 1, 1, 1, 1), 1, 1);
    const sched_ops *ops = &sched_sincronia_online_ops;
    void *s = make(ops, 8);
    ops->reschedule(s, &ctx);
    for (size_t j = 0; j < 3; j++)
        ops->on_comm(s, &ctx, j, true);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 2);
    ops->on_comm(s, &ctx, 1, false);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 7);
    ops->on_comm(s, &ctx, 0, false);
    for (int j = 0; j < 3; j++)
        CU_ASSERT_EQUAL(ctx.jobs[j].info.priority, 7);
    ops->destroy(s);
    fake_ctx_clear(&ctx);
}

/* Two components that cannot meet, K = 2: A1 (demand 2) and A2 (1) on
 * link 0, B1 (3) and B2 (1) on link 2, all communicating.  One ordering
 * over all four: loads link 0 3, link 2 4: B1 last (w/d 1/3 < 1/1), B2's
 * weight 1 - 1/3 = 2/3; then link 0 (3 > 1): A1 last (1/2 < 1/1), A2's
 * weight 1/2; then loads 1 and 1, tie to link 0: A2, then B2.  Order B2,
 * A2, A1, B1: with K = 2, B2 0 and the other three 1, so A1 and A2,
 * which share link 0, tie (sincronia, offline, keeps this).
 * sincronia-online orders each component on its own, the same relative
 * order inside each (A2 before A1, B2 before B1), ranks from 0 in each:
 * A2 0, A1 1, B2 0, B1 1. */
static void test_schedulers_sincronia_online_components(void)
{
    sched_ctx ctx;
    fake_ctx_init(&ctx, 3, 1, 2);
    fake_job_fixed(fake_ctx_job(&ctx, "A1", 1, 1, 1, 1), 0, 2);
    fake_job_fixed(fake_ctx_job(&ctx, "A2", 1, 1, 1, 1), 0, 1);
    fake_job_fixed(fake_ctx_job(&ctx, "B1", 1, 1, 1, 1), 2, 3);
    fake_job_fixed(fake_ctx_job(&ctx, "B2", 1, 1, 1, 1), 2, 1);
    static const int offline[] = {1, 1, 1, 0}, online[] = {1, 0, 1, 0};
    run_once(&sched_sincronia_ops, &ctx);
    for (size_t j = 0; j < 4; j++)
        CU_ASSERT_EQUAL(ctx.jobs[j].info.priority, offline[j]);
    const sched_ops *ops = &sched_sincronia_online_ops;
    void *s = make(ops, 2);
    ops->reschedule(s, &ctx);
    for (size_t j = 0; j < 4; j++)
        ops->on_comm(s, &ctx, j, true);
    for (size_t j = 0; j < 4; j++)
        CU_ASSERT_EQUAL(ctx.jobs[j].info.priority, online[j]);
    ops->destroy(s);
    fake_ctx_clear(&ctx);
}

/* TACCL* levels (docs/design.md §5.6): X's path crosses 6 links, Y's 4,
 * Z's 2 -> X 0, Y 1, Z 2; with K = 2, X 0 and Y, Z 1. */
static void taccl_case(sched_ctx *ctx, int levels)
{
    static const int six[] = {0, 1, 2, 3, 4, 5, -1}, four[] = {6, 7, 8, 9, -1},
                     two[] = {10, 11, -1};
    fake_ctx_init(ctx, 12, 1, levels);
    fake_job_flow(fake_ctx_job(ctx, "X", 1, 1, 1, 2), 1, six, NULL);
    fake_job_flow(fake_ctx_job(ctx, "Y", 1, 1, 1, 2), 1, four, NULL);
    fake_job_flow(fake_ctx_job(ctx, "Z", 1, 1, 1, 2), 1, two, NULL);
}

static void test_schedulers_taccl_levels(void)
{
    sched_ctx ctx;
    taccl_case(&ctx, 8);
    run_once(&sched_taccl_ops, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 2);
    fake_ctx_clear(&ctx);
    taccl_case(&ctx, 2);
    run_once(&sched_taccl_ops, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 1);
    CU_ASSERT_EQUAL(ctx.jobs[2].info.priority, 1);
    fake_ctx_clear(&ctx);
}

/* CASSINI two-job example (docs/design.md §5.7) through the interface.
 * Link 0 shared, 50 Gbps = 6.25e9 B/s; links 1, 2 the jobs' own 40 Gbps
 * = 5e9 B/s NIC links.  A: C 36 ms, f .5 (sends from 18 ms), 9e7 B: t_A =
 * 9e7/5e9 = 18 ms, 40 Gbps on link 0 during [18, 36); B: C 72 ms, f .75,
 * 9e7 B: Up [54, 72).  Peak 80 > 50 Gbps, so link 0 is a constraint.
 * q = 72/72 = 1 ms; optimum B rotated 18 ms; A is the reference (shift 0,
 * never delayed); B's targets: A's latest start + 18 ms, modulo
 * gcd(36, 72) = 36 ms.
 * A's comm at 18 ms: its start 0 is recorded, no shift.
 * B's comm at 54 ms: start 0, target 18: error -18 ms, delay 18 ms.
 * B's comm at 145 ms: start 91, (91 - 18) mod 36 = 1 ms = 1.4% of 72 < 5%:
 * nothing.  At 149 ms: error 5 ms = 6.9%: delay 36 - 5 = 31 ms.
 * A drifts: comm at 130 ms, start 112; B at 150 ms, start 96:
 * (96 - 130) mod 36 = 2 ms = 2.8%: nothing (B still 19 ms after A's
 * previous start, 76 ms). */
static void test_schedulers_cassini(void)
{
    static const int pa[] = {1, 0, -1}, pb[] = {2, 0, -1};
    sched_ctx ctx;
    fake_ctx_init(&ctx, 3, 5e9, 8);
    ctx.cap_Bps[0] = 6.25e9;
    fake_job_flow(fake_ctx_job(&ctx, "A", 8, 0.036, 0.5, 0.036), 9e7, pa, NULL);
    fake_job_flow(fake_ctx_job(&ctx, "B", 8, 0.072, 0.75, 0.072), 9e7, pb, NULL);
    const sched_ops *ops = &sched_cassini_ops;
    void *s = make(ops, 8);
    ops->reschedule(s, &ctx);
    CU_ASSERT_EQUAL(ctx.jobs[0].info.priority, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].info.priority, 0);
    ctx.now_s = 0.018;
    ops->on_comm(s, &ctx, 0, true);
    CU_ASSERT_EQUAL(ctx.jobs[0].shift_calls, 0);
    ctx.now_s = 0.054;
    ops->on_comm(s, &ctx, 1, true);
    CU_ASSERT_EQUAL(ctx.jobs[1].shift_calls, 1);
    TEST_ASSERT_CLOSE(ctx.jobs[1].last_shift_s, 0.018, 1e-9);
    ops->on_comm(s, &ctx, 1, false);
    ctx.now_s = 0.145;
    ops->on_comm(s, &ctx, 1, true);
    CU_ASSERT_EQUAL(ctx.jobs[1].shift_calls, 1);
    ctx.now_s = 0.149;
    ops->on_comm(s, &ctx, 1, true);
    CU_ASSERT_EQUAL(ctx.jobs[1].shift_calls, 2);
    TEST_ASSERT_CLOSE(ctx.jobs[1].last_shift_s, 0.031, 1e-9);
    ctx.now_s = 0.130;
    ops->on_comm(s, &ctx, 0, true);
    CU_ASSERT_EQUAL(ctx.jobs[0].shift_calls, 0);
    ctx.now_s = 0.150;
    ops->on_comm(s, &ctx, 1, true);
    CU_ASSERT_EQUAL(ctx.jobs[1].shift_calls, 2);
    ops->destroy(s);
    fake_ctx_clear(&ctx);
}

/* B's first shift after a reschedule of scheduler s (the example above:
 * A communicates at 18 ms, B at 54 ms). */
static double cassini_first_shift(void *s, sched_ctx *ctx)
{
    const sched_ops *ops = &sched_cassini_ops;
    ctx->jobs[1].shift_calls = 0;
    ctx->jobs[1].last_shift_s = -1;
    ops->reschedule(s, ctx);
    ctx->now_s = 0.018;
    ops->on_comm(s, ctx, 0, true);
    ctx->now_s = 0.054;
    ops->on_comm(s, ctx, 1, true);
    return ctx->jobs[1].shift_calls ? ctx->jobs[1].last_shift_s : 0.0;
}

/* CASSINI keeps its rotation searches across reschedules, under their
 * exact inputs (cassini.c, optimize_kept): one scheduler through the
 * example (B first delayed 18 ms, derived above), then B sending 1.8e8 B
 * (another circle problem on link 0), then the example again; after each,
 * B's first delay is that of a new scheduler (and 18 ms for the example). */
static void test_schedulers_cassini_reuse(void)
{
    static const int pa[] = {1, 0, -1}, pb[] = {2, 0, -1};
    static const double b_bytes[] = {9e7, 1.8e8, 9e7};
    sched_ctx ctx;
    fake_ctx_init(&ctx, 3, 5e9, 8);
    ctx.cap_Bps[0] = 6.25e9;
    fake_job_flow(fake_ctx_job(&ctx, "A", 8, 0.036, 0.5, 0.036), 9e7, pa, NULL);
    fake_job_flow(fake_ctx_job(&ctx, "B", 8, 0.072, 0.75, 0.072), 9e7, pb, NULL);
    void *kept = make(&sched_cassini_ops, 8);
    for (size_t round = 0; round < G_N_ELEMENTS(b_bytes); round++) {
        ctx.jobs[1].flows[0].bytes = b_bytes[round];
        ctx.jobs[1].info.uid = 2 + round; /* a new job: loads are kept per uid */
        void *fresh = make(&sched_cassini_ops, 8);
        double want = cassini_first_shift(fresh, &ctx);
        sched_cassini_ops.destroy(fresh);
        TEST_ASSERT_CLOSE(cassini_first_shift(kept, &ctx), want, 1e-12);
        if (b_bytes[round] == 9e7)
            TEST_ASSERT_CLOSE(want, 0.018, 1e-9);
    }
    sched_cassini_ops.destroy(kept);
    fake_ctx_clear(&ctx);
}

/* A link its jobs cannot overflow is no constraint: the same two jobs
 * with link 0 at 100 Gbps (peak 80): no targets, no shifts ever. */
static void test_schedulers_cassini_roomy(void)
{
    static const int pa[] = {1, 0, -1}, pb[] = {2, 0, -1};
    sched_ctx ctx;
    fake_ctx_init(&ctx, 3, 5e9, 8);
    ctx.cap_Bps[0] = 12.5e9;
    fake_job_flow(fake_ctx_job(&ctx, "A", 8, 0.036, 0.5, 0.036), 9e7, pa, NULL);
    fake_job_flow(fake_ctx_job(&ctx, "B", 8, 0.072, 0.75, 0.072), 9e7, pb, NULL);
    const sched_ops *ops = &sched_cassini_ops;
    void *s = make(ops, 8);
    ops->reschedule(s, &ctx);
    ctx.now_s = 0.018;
    ops->on_comm(s, &ctx, 0, true);
    ctx.now_s = 0.054;
    ops->on_comm(s, &ctx, 1, true);
    CU_ASSERT_EQUAL(ctx.jobs[0].shift_calls, 0);
    CU_ASSERT_EQUAL(ctx.jobs[1].shift_calls, 0);
    ops->destroy(s);
    fake_ctx_clear(&ctx);
}

/* Every registered scheduler (the registry's own list, so one added later
 * is covered too) accepts an empty cluster and a job without traffic and
 * gives it a priority among the 4 levels. */
static void test_schedulers_empty(void)
{
    CU_ASSERT(sched_registry_count() >= 10); /* ecmp, 7 from papers, fixed, ideal */
    for (size_t i = 0; i < sched_registry_count(); i++) {
        const sched_ops *ops = sched_registry_get(i);
        sched_ctx ctx;
        fake_ctx_init(&ctx, 1, 1, 4);
        void *s = make(ops, 4);
        ops->reschedule(s, &ctx);
        fake_ctx_job(&ctx, "lonely", 8, 1, 1, 1);
        ops->reschedule(s, &ctx);
        if (ops->on_comm)
            ops->on_comm(s, &ctx, 0, true);
        if (!(ctx.jobs[0].info.priority >= 0 && ctx.jobs[0].info.priority < 4))
            fprintf(stderr, "%s: priority %d\n", ops->name, ctx.jobs[0].info.priority);
        CU_ASSERT_TRUE(ctx.jobs[0].info.priority >= 0 && ctx.jobs[0].info.priority < 4);
        ops->destroy(s);
        fake_ctx_clear(&ctx);
    }
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"paths", test_schedulers_paths},
        {"crux_priorities", test_schedulers_crux_priorities},
        {"crux_context", test_schedulers_crux_context},
        {"crux_context_reuse", test_schedulers_crux_context_reuse},
        {"job_cache", test_schedulers_job_cache},
        {"crux_overrides", test_schedulers_crux_overrides},
        {"sincronia", test_schedulers_sincronia},
        {"sincronia_private", test_schedulers_sincronia_private},
        {"sincronia_private_ports", test_schedulers_sincronia_private_ports},
        {"sincronia_online", test_schedulers_sincronia_online},
        {"sincronia_online_three", test_schedulers_sincronia_online_three},
        {"sincronia_online_components", test_schedulers_sincronia_online_components},
        {"taccl_levels", test_schedulers_taccl_levels},
        {"cassini", test_schedulers_cassini},
        {"cassini_roomy", test_schedulers_cassini_roomy},
        {"cassini_reuse", test_schedulers_cassini_reuse},
        {"empty", test_schedulers_empty},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("schedulers", cases);
}
