/* test_steady_approx.c - suite "steady_approx": the approximate mode's
 * windows (docs/engine.md §5d) for a member whose rate wanders on a longer
 * scale than the windows, so that doubling them does not make them agree,
 * the windows a group jumped on, kept across a change that keeps it, the
 * windows it carries, kept through a change elsewhere in the same instant,
 * and windows taken while a member's phase still moves.  Not here: the
 * other approximate cases (test_steady_group.c, test_steady_sched.c).
 *
 * Every case is derived by hand and run against the event path.
 */
#include <math.h>
#include <string.h>

#include "sim/replay.h"
#include "test_run.h"
#include "test_util.h"

/* Four hosts under one ToR, 2 GPUs and one 80 Gb/s NIC (1e10 B/s) each,
 * PCIe 1e11 B/s, no latency, one channel, alpha 0.  A job with one GPU on
 * each of H hosts runs a ring of H hops of 2(H - 1)/H S bytes each as one
 * lock-step transfer over their NICs. */
#define TOPO4                                                                                  \
    "\"clos2:tors=1,aggs=1,hosts_per_tor=4,gpus=2,nics=1,pcie=1,nic_gbps=80,pcie_gbps=800,"    \
    "latency_us=0,host_latency_us=0\""
#define MODEL(C, S)                                                                            \
    "\"model\": {\"compute_s\": " C ", \"comm_bytes\": " S ", \"comm_start_frac\": 1.0,"       \
    " \"opt_s\": 0}"

/* A rate that wanders (docs/engine.md §5d, "windows that stop doubling"):
 * window [0, 100), fixed levels.
 *   d (level 0) on h0, h1: C = 0.5, rings of 5e9 B (0.5 s): iterations
 *   of 1 s, communicating in [j + 0.5, j + 1).
 *   e (level 0) on h2, h3: C = 0.6071067811865476, 5e9 B: iterations of
 *   T = 1.1071067811865476 s, communicating in [kT + 0.6071, (k+1)T).
 *   d and e share no link, and f below takes nothing from them (strict
 *   priority): both are never delayed.  d ends 99 iterations (j + 1 <
 *   100), e 90 (90 T = 99.64 < 100 < 91 T).
 *   f (level 1) on h0..h3: C = 1e-4, a ring of 4 hops of 1.5 x 1e8 B over
 *   the NICs of both: 0.015 s alone, an iteration of 0.0151 s.  Its ring
 *   moves only while d and e both compute, so f iterates in the
 *   stretches [j, j + 0.5) inside [kT, kT + 0.6071).
 * e is the anchor (the longest isolated iteration), f the fast member.
 * e's iteration k's window [kT, (k+1)T) starts 0.1071 s later in d's
 * period than the one before, so the stretches in which f moves shrink
 * and grow over 1 / 0.1071 = 9.3 windows (T / (T - 1) = 10.3 s):
 *   window 0: [0, 0.5)                       0.5     s
 *   window 1: [1.1071, 1.5)                  0.39289
 *   window 2: [2.2142, 2.5)                  0.28579
 *   window 3: [3.3213, 3.5)                  0.17868
 *   window 4: [4.4284, 4.5) + [5, 5.0355)    0.10711
 * The checks (f's windows; d's and e's agree exactly, 1 and T):
 *   at 2T: windows 0 and 1, the first opened at the change (0): they
 *     disagree, the first is dropped (no doubling);
 *   at 3T: windows 1 and 2.  f ends 0.39289 / 0.0151 = 26 and 0.28579 /
 *     0.0151 = 19 iterations, each window's iteration times summing to
 *     the 1 s between the ends of its last stretch and the one before
 *     (1.5 - 0.5, 2.5 - 1.5): m1 = 1 / 26 = 0.0385, m2 = 1 / 19 = 0.0526,
 *     27 % apart (1 - 19 / 26; the tolerance is 1 %): the windows double;
 *   at 5T: windows [T, 3T) and [3T, 5T): 45 iterations in 2.5 - 0.5 =
 *     2 s (m1 = 0.0444) and 0.28579 / 0.0151 = 18 or 19 in 5.0355 - 2.5
 *     = 2.5355 s (m2 = 0.1409 or 0.1334): 68 % or 67 % apart, not
 *     smaller than the 27 % of the windows half as long.  The windows
 *     stop doubling and the group jumps there, 5T = 5.5355, up to 100:
 *     dt = 94.46 less at most one of f's mean cycles (m = (2 + 2.5355) /
 *     (45 + 18) = 0.0720 s, or / 64 = 0.0709).
 * Bound: d and e 2 each (their windows agree, never slowed), f dt/m |m2 -
 * m1| / m + 2 = 94.46 / 0.0720 x 0.0964 / 0.0720 + 2 = 1759 (with 19:
 * 94.46 / 0.0709 x 0.0890 / 0.0709 + 2 = 1676), and, since the phases
 * still move (d, 2 iterations a window, begins its iteration in
 * progress 2T - 2 = 0.2142 s of its 1 s cycle later at each record), f's
 * recovery dt (m - 0.0151) / (m x 0.0151) = 94.46 x 0.0569 / (0.0720 x
 * 0.0151) = 4943 (with 19: 4923): 6702 (6599), less up to 0.1 % for the
 * jump's last cycle; f's count is off by far less (its mean over the
 * jump lies between the two windows').  d and e end the
 * event path's 99 and 90 iterations.  Without the rule the windows double
 * to 4, 8, 16, 32 anchor iterations (f's 31 %, 2.7 %, 16 %, 3.0 % apart,
 * the last at 65T = 72 s; the tolerance is 1 %) and the group never
 * jumps. */
static char *wander_with(const char *topo, const char *extra, const char *steady)
{
    return g_strdup_printf(
        "{\"topology\": %s, \"scheduler\": {\"name\": \"fixed\", \"jobs\":"
        " {\"d\": {\"priority\": 0}, \"e\": {\"priority\": 0}, \"f\": {\"priority\": 1}}},"
        " \"trace\": {\"jobs\": ["
        "{\"id\": \"d\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"], \"host_gpus\": [1, 1],"
        " \"start_s\": 0, \"end_s\": 100, " MODEL("0.5", "5e9") "},"
        " {\"id\": \"e\", \"gpus\": 2, \"hosts\": [\"h2\", \"h3\"], \"host_gpus\": [1, 1],"
        " \"start_s\": 0, \"end_s\": 100, " MODEL("0.6071067811865476", "5e9") "},"
        " {\"id\": \"f\", \"gpus\": 4, \"hosts\": [\"h0\", \"h1\", \"h2\", \"h3\"],"
        " \"host_gpus\": [1, 1, 1, 1], \"start_s\": 0, \"end_s\": 100, " MODEL("1e-4", "1e8")
        "}%s]},"
        " \"sim\": {\"interval_s\": 1000, \"alpha_us\": 0, \"channels\": 1, \"steady\": \"%s\"}}",
        topo, extra, steady);
}

static char *wander(const char *steady)
{
    return wander_with(TOPO4, "", steady);
}

static void test_approx_wander(void)
{
    test_run x, y;
    if (test_run_approx_and_exact(wander, &x, &y, NULL, NULL)) {
        static const int64_t iters[2] = {99, 90};
        for (int run = 0; run < 2; run++)
            for (size_t i = 0; i < 2; i++) {
                replay_job_result p;
                replay_job_get(run ? y.r : x.r, i, &p);
                CU_ASSERT_EQUAL(p.iterations, iters[i]);
            }
        replay_summary s, e;
        replay_get_summary(x.r, &s);
        replay_get_summary(y.r, &e);
        CU_ASSERT_EQUAL(s.approx_jumps, 1);
        CU_ASSERT_EQUAL(s.approx_wander_jumps, 1); /* the jump at 5T, on windows apart */
        CU_ASSERT_EQUAL(e.approx_wander_jumps, 0);
        CU_ASSERT_TRUE(s.approx_iteration_bound >= 6599 - 10 &&
                       s.approx_iteration_bound <= 6702 + 10);
        replay_job_result p, q;
        replay_job_get(x.r, 2, &p);
        replay_job_get(y.r, 2, &q);
        CU_ASSERT_TRUE((double)llabs(p.iterations - q.iterations) <= s.approx_iteration_bound);
        CU_ASSERT_TRUE(fabs(s.gpu_util_cluster_frac - e.gpu_util_cluster_frac) <=
                       s.approx_util_bound);
        fprintf(stderr, " (f: %" G_GINT64_FORMAT " against %" G_GINT64_FORMAT ", bound %.1f;"
                " utilization %.3g off, bound %.3g) ", p.iterations, q.iterations,
                s.approx_iteration_bound, fabs(s.gpu_util_cluster_frac - e.gpu_util_cluster_frac),
                s.approx_util_bound);
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

/* The approx run's (s) events and utilization against the event path's (e). */
static void report_events(const replay_summary *s, const replay_summary *e)
{
    fprintf(stderr, " (%" G_GUINT64_FORMAT " events against %" G_GUINT64_FORMAT
            ", utilization %.3g off, bound %.3g) ", s->events, e->events,
            fabs(s->gpu_util_cluster_frac - e->gpu_util_cluster_frac), s->approx_util_bound);
}

/* A change that keeps a group keeps the windows it jumped on
 * (docs/engine.md §5d, "changes that keep the group").  Two hosts under
 * one ToR, 4 GPUs and one 80 Gb/s NIC (1e10 B/s) each; a, b, c run one
 * GPU on each of h0 and h1 and share the two NICs (levels 0, 1, 2), a
 * ring of S bytes moving S / 1e10 s alone. */
#define JOB2(id, start, C, S)                                                                  \
    "{\"id\": \"" id "\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"], \"host_gpus\": [1, 1],"  \
    " \"start_s\": " start ", \"end_s\": 200, " MODEL(C, S) "}"

/* The group of tests/test_steady_group.c approx_carried: a (C = 0.5, S =
 * 2e9: 0.7 s, never delayed, the fast member), b (C = 1/sqrt(2), 2e9)
 * from 0 to 200, c (C = sqrt(1.25), 3e9, the anchor) from 10; then
 * EXTRA, more job objects after c (each with its leading comma). */
static char *carried_group(const char *extra, const char *steady)
{
    return g_strdup_printf(
        "{\"topology\": \"clos2:tors=1,aggs=1,hosts_per_tor=2,gpus=4,nics=1,pcie=1,"
        "nic_gbps=80,pcie_gbps=800,latency_us=0,host_latency_us=0\","
        " \"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"a\": {\"priority\": 0},"
        " \"b\": {\"priority\": 1}, \"c\": {\"priority\": 2}}},"
        " \"trace\": {\"jobs\": [" JOB2("a", "0", "0.5", "2e9") ", "
        JOB2("b", "0", "0.7071067811865476", "2e9") ", "
        JOB2("c", "10", "1.118033988749895", "3e9") "%s]},"
        " \"sim\": {\"interval_s\": 50, \"alpha_us\": 0, \"channels\": 1,"
        " \"steady\": \"%s\"}}",
        extra, steady);
}

/* One GPU on HOST without communication from START to END (literals). */
#define ALONE(id, host, start, end)                                                            \
    ", {\"id\": \"" id "\", \"gpus\": 1, \"hosts\": [\"" host "\"], \"host_gpus\": [1],"     \
    " \"start_s\": " start ", \"end_s\": " end ", \"model\": {\"compute_s\": 0.3,"             \
    " \"comm_bytes\": 0, \"opt_s\": 0}}"

/* d, one GPU on h0 without communication, from 100 to 150: it shares no
 * link, so its arrival and its end keep {a, b, c} as it was. */
static char *kept_carried(const char *steady)
{
    return carried_group(ALONE("d", "h0", "100", "150"), steady);
}

/* As in approx_carried, {a, b} jumps once before 10, and {a, b, c}, formed
 * at c's arrival, carries a's and b's windows, checks them against its
 * window from 10 to c's first boundary and jumps there (carried) up to d's
 * arrival, less at most one of a's 0.7 s.  d's arrival at 100 keeps the
 * group: it jumps again at a's first boundary after 100 on the same
 * carried and first windows (no record of c came in between: c's next
 * boundary is 1.4 s or more after the jump's end, a's 0.7 s at most) up
 * to d's end, and after 150 again up to 200: 4 jumps, 3 carried.  (When
 * the carried window went with the first jump, the group measured c's
 * next window after 100 on the event path and jumped on its own
 * windows: 1 carried.)  By hand on both paths: a ends 285 iterations
 * (0.7 x 285 = 199.5 < 200), busy 285 x 1 + [199.5, 200) x 2 = 286 GPU-s
 * (as the fast member it gets whole cycles); d ends 166 (100 + 0.3 x 166
 * = 149.8 < 150 < 150.1), busy 50.  b, c and the cluster utilization
 * are within the reported bounds of the event path's. */
static void test_approx_kept_carried(void)
{
    test_run x, y;
    replay_summary s, e;
    if (test_run_approx_and_exact(kept_carried, &x, &y, &s, &e)) {
        CU_ASSERT_EQUAL(s.approx_jumps, 4);
        CU_ASSERT_EQUAL(s.approx_carried_jumps, 3);
        for (int run = 0; run < 2; run++) {
            replay_job_result a, d;
            replay_job_get(run ? y.r : x.r, 0, &a);
            replay_job_get(run ? y.r : x.r, 3, &d);
            CU_ASSERT_EQUAL(a.iterations, 285);
            TEST_ASSERT_CLOSE(a.busy_gpu_s, 286.0, 1e-9);
            CU_ASSERT_EQUAL(d.iterations, 166);
            TEST_ASSERT_CLOSE(d.busy_gpu_s, 50.0, 1e-9);
        }
        static const size_t bc[2] = {1, 2};
        test_run_assert_within_bounds(&x, &y, bc, 2);
        report_events(&s, &e);
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

/* wander's d, e and f with a fifth host under the ToR, and g, one GPU on h4 without
 * communication, from 50 to 70: it shares no link, so its arrival and
 * end keep {d, e, f} as it was.  The group's windows stop doubling at 5T
 * and it jumps up to 50 (wander); at f's first boundary after 50 it jumps
 * again on the same windows up to 70, and after 70 up to 100: 3 jumps.
 * (When a kept change let the group jump on such windows only at its
 * next record, it measured again after 50: 2 jumps in all.)  By hand on
 * both paths: g ends 66 iterations (50 + 0.3 x 66 = 69.8 < 70), busy 20;
 * d (1 s iterations) and e (T) are never delayed: the event path's 99
 * and 90 iterations, which the jumps reach within 1 (the fraction a jump
 * carries to the next is left over after the last); f and the cluster
 * utilization are within the reported bounds of the event path's. */
static char *kept_wander(const char *steady)
{
    return wander_with("\"clos2:tors=1,aggs=1,hosts_per_tor=5,gpus=2,nics=1,pcie=1,nic_gbps=80,"
                       "pcie_gbps=800,latency_us=0,host_latency_us=0\"",
                       ALONE("g", "h4", "50", "70"), steady);
}

static void test_approx_kept_wander(void)
{
    test_run x, y;
    replay_summary s, e;
    if (test_run_approx_and_exact(kept_wander, &x, &y, &s, &e)) {
        CU_ASSERT_EQUAL(s.approx_jumps, 3);
        static const int64_t iters[3] = {99, 90, 66};
        static const size_t at[3] = {0, 1, 3};
        for (size_t i = 0; i < 3; i++) {
            replay_job_result p, q;
            replay_job_get(x.r, at[i], &p);
            replay_job_get(y.r, at[i], &q);
            CU_ASSERT_EQUAL(q.iterations, iters[i]);
            CU_ASSERT_TRUE(p.iterations == iters[i] || (i < 2 && p.iterations == iters[i] - 1));
        }
        replay_job_result g;
        replay_job_get(x.r, 3, &g);
        TEST_ASSERT_CLOSE(g.busy_gpu_s, 20.0, 1e-9);
        static const size_t f[1] = {2};
        test_run_assert_within_bounds(&x, &y, f, 1);
        replay_job_result p, q;
        replay_job_get(x.r, 2, &p);
        replay_job_get(y.r, 2, &q);
        fprintf(stderr, " (f: %" G_GINT64_FORMAT " against %" G_GINT64_FORMAT ", bound %.1f;"
                " %" G_GUINT64_FORMAT " events against %" G_GUINT64_FORMAT ") ",
                p.iterations, q.iterations, s.approx_iteration_bound, s.events, e.events);
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

/* A change elsewhere in the instant of the change that formed the group
 * (docs/engine.md §5d, "one anchor iteration per group formation"):
 * approx_carried's group, and u, one GPU on h0 without communication,
 * arriving at 10 after c.  The groups are rebuilt after each arrival:
 * {a, b, c} carries a's and b's windows from {a, b}, then u's arrival
 * rebuilds the same group (u has no links), which keeps its records and
 * must keep what it carries too.  So, as in approx_carried, the group
 * jumps at c's first boundary on the carried windows, up to 200 less at
 * most one of a's cycles (one carried jump, two jumps in all; with the
 * carried windows dropped at the second rebuild it measures two windows
 * of its own and none is carried).  a ends 285 iterations (0.7 x 285 =
 * 199.5 < 200) on both paths; b's and c's iterations and the cluster
 * utilization are within the reported bounds of the event path's. */
static char *change_elsewhere(const char *steady)
{
    return carried_group(ALONE("u", "h0", "10", "200"), steady);
}

static void test_approx_change_elsewhere(void)
{
    test_run x, y;
    replay_summary s;
    if (test_run_approx_and_exact(change_elsewhere, &x, &y, &s, NULL)) {
        CU_ASSERT_EQUAL(s.approx_carried_jumps, 1);
        CU_ASSERT_EQUAL(s.approx_jumps, 2);
        for (int run = 0; run < 2; run++) {
            replay_job_result a;
            replay_job_get(run ? y.r : x.r, 0, &a);
            CU_ASSERT_EQUAL(a.iterations, 285);
        }
        static const size_t bc[2] = {1, 2};
        test_run_assert_within_bounds(&x, &y, bc, 2);
        fprintf(stderr, " (%" G_GUINT64_FORMAT " jumps, %" G_GUINT64_FORMAT " carried) ",
                s.approx_jumps, s.approx_carried_jumps);
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

/* A member that ends no iteration between the change and the anchor's
 * next boundary (docs/engine.md §5d, "a member late for the window from
 * the change").  carried_group's two hosts and NICs; every job one GPU on
 * each host, a ring of S bytes moving S / 1e10 s alone, strict levels:
 *   a (level 0, from 0): C = 0.5, S = 2e9: iterations of 0.7 s, its ring
 *     in [0.7m + 0.5, 0.7m + 0.7);
 *   b (level 1, from 0.3): C = 1.2, S = 2e9: 1.4 s, its ring in
 *     [1.4k + 1.5, 1.4k + 1.7), inside a's computes: never delayed,
 *     boundaries 1.7, 3.1, 4.5, 5.9, 7.3; the anchor (the longest
 *     isolated iteration, and the first of the two);
 *   d (level 2, from 1.05): b's twin, its ring in [1.4k + 2.25, 1.4k +
 *     2.45), 0.15 clear of a's rings and b's: never delayed, boundaries
 *     2.45, 3.85, 5.25, 6.65;
 *   c (level 3, from 3.86): C = 0.2, S = 5e8 (0.05 s alone; 0.25 s, the
 *     fast member): its ring moves only where a, b and d are quiet, so it
 *     delays none of them, and every one of its rings ends 0.05 s or more
 *     before theirs start: it ends iterations at 4.25 (0.39: its ring
 *     waits out a's [4.0, 4.2)), 4.55, 4.95, 5.3, 5.65, 5.95 (0.3, 0.4,
 *     0.35, 0.35, 0.3), and so on, 4 every 1.4 s.
 * {a, b, d} forms at 1.05 without a carried window (a and b had none);
 * at 3.1 its window from the change ([1.05, 1.7], no iteration of d) is
 * dropped; its window [1.7, 3.1] holds a 2, b 1, d 1 iterations.  c's
 * arrival at 3.86 forms {a, b, d, c}, which carries that window (c new).
 * At b's boundary 4.5 d has ended no iteration since 3.86 (its next is at
 * 5.25): the window from the change goes on to b's next boundary 5.9,
 * where c has two windows of its own, [3.86, 4.5] (one iteration of 0.39)
 * and [4.5, 5.9] (4, mean 0.35), which agree (0.25 over one iteration).
 * The windows after the change (docs/engine.md §5d): a's iteration in
 * progress at 3.86 began at 3.5 and b's at 3.1, more than 1e-2 of their
 * windows from the change, so theirs start at their first boundaries
 * after it, [4.2, 5.9] (a 2 iterations of 0.7) and [4.5, 5.9] (b 1 of
 * 1.4); d's began at 3.85, 0.01 s before the change, under 1e-2 of its
 * iteration of 1.4 s in [3.86, 5.9], which stands.  Each agrees with its
 * carried window: the group jumps at 5.9 on the carried window, k = 542
 * of c's mean 0.358 s over its two windows (5.9 + 194.04 = 199.94 <
 * 200).  (Without the late member's rule the carried window went at 4.5,
 * the window [3.86, 4.5] was dropped at 5.9, and the group jumped at 7.3
 * on [4.5, 5.9] and [5.9, 7.3] (c 4 iterations each, mean 0.35): no
 * carried jump.)  By hand on the event path: a 285 iterations (0.7 x 285
 * = 199.5), b 142 (0.3 + 1.4 x 142 = 199.1), d 142 (1.05 + 1.4 x 142 =
 * 199.85); jumped: b 4 by 5.9, floor(194.04 / 1.4) = 138 in the jump,
 * none after (its next boundary at 201.34): 142; d 3 + 138, its next
 * boundary at 6.65 + 194.04 = 200.69: 141; a, d, c and the cluster
 * utilization within the reported bounds. */
static char *late_member(const char *steady)
{
    return g_strdup_printf(
        "{\"topology\": \"clos2:tors=1,aggs=1,hosts_per_tor=2,gpus=4,nics=1,pcie=1,"
        "nic_gbps=80,pcie_gbps=800,latency_us=0,host_latency_us=0\","
        " \"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"a\": {\"priority\": 0},"
        " \"b\": {\"priority\": 1}, \"d\": {\"priority\": 2}, \"c\": {\"priority\": 3}}},"
        " \"trace\": {\"jobs\": [" JOB2("a", "0", "0.5", "2e9") ", " JOB2("b", "0.3", "1.2", "2e9")
        ", " JOB2("d", "1.05", "1.2", "2e9") ", " JOB2("c", "3.86", "0.2", "5e8") "]},"
        " \"sim\": {\"interval_s\": 50, \"alpha_us\": 0, \"channels\": 1,"
        " \"steady\": \"%s\"}}",
        steady);
}

static void test_approx_late_member(void)
{
    test_run x, y;
    replay_summary s, e;
    if (test_run_approx_and_exact(late_member, &x, &y, &s, &e)) {
        CU_ASSERT_EQUAL(s.approx_jumps, 1);
        CU_ASSERT_EQUAL(s.approx_carried_jumps, 1);
        CU_ASSERT_TRUE(s.events < e.events);
        static const int64_t event_path[3] = {285, 142, 142};
        for (size_t i = 0; i < 3; i++) {
            replay_job_result q;
            replay_job_get(y.r, i, &q);
            CU_ASSERT_EQUAL(q.iterations, event_path[i]);
        }
        /* a's jumped count is 8 + floor(194.04 / 0.7 = 277.2) + 0, near the
         * edge of a floor: its bound below checks it */
        replay_job_result b, d;
        replay_job_get(x.r, 1, &b);
        replay_job_get(x.r, 2, &d);
        CU_ASSERT_EQUAL(b.iterations, 142);
        CU_ASSERT_EQUAL(d.iterations, 141);
        static const size_t adc[3] = {0, 2, 3};
        test_run_assert_within_bounds(&x, &y, adc, 3);
        report_events(&s, &e);
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

/* A phase still moving (docs/engine.md §5d): the worked example of §5c
 * (examples/steady-group.json), window [0, 3600).  Two hosts with one
 * 80 Gb/s NIC (1e10 B/s) each, one GPU of each per job.
 *   a (level 0): C = 1, rings of 5e9 B (0.5 s), never delayed: iterations
 *   of 1.5 s, communicating in [1.5k + 1, 1.5k + 1.5); 2,399 of them end
 *   (1.5 k < 3600).
 *   b (level 1): C = 2, rings of 8e9 B (0.8 s alone, 2.8 s an iteration),
 *   paused while a rings:
 *     1: compute [0, 2), rings [2, 2.5) 5e9, waits, [3, 3.3): 3.3;
 *     2: [3.3, 5.3), [5.3, 5.5) 2e9, waits, [6, 6.6): 6.6 (3.3);
 *     3: [6.6, 8.6), waits to 9, [9, 9.8): 9.8 (3.2);
 *     from then locked to two of a's cycles: [9.8, 11.8), waits to 12,
 *     [12, 12.8), and so on, ending at 12.8 + 3 k <= 3600: 1,196 more,
 *     1,199 on the event path.
 * b is the anchor (2.8 s alone), a the fast member.  The records at 0
 * (the change), 3.3 and 6.6 close two windows of one b iteration each,
 * 3.3 and 3.3 s: they agree exactly, and a's (two of 1.5 s each) too, so
 * the group jumps at 6.6 k = 2,395 of a's cycles (6.6 + 1.5 k < 3600):
 * dt = 3592.5, b + floor(3592.5 / 3.3) = 1,088, 1,090 in all, 109 short of
 * the event path (b's iteration in progress at 6.6 + 3592.5 does not end
 * by 3600).  But a began its iteration in progress 0.3 s before b's
 * boundary at 3.3 (at 3) and 0.6 s before the one at 6.6 (at 6): 0.3 s,
 * a fifth of its cycle, more than 1e-2, and it ends 2 iterations a window
 * (fewer than 25): the phases still move.  So b, slowed (3.3 against 2.8
 * alone), counts what it would gain at its iteration alone, dt x 0.5 /
 * (3.3 x 2.8) = 194.40: its bound is 196.40 (a's 2: never slowed), which
 * holds the 109.  Busy bound 2 x 2 + 196.40 x 4 GPU-s, over 4 x 3600. */
static char *moving(const char *steady)
{
    return g_strdup_printf(
        "{\"topology\": \"clos2:tors=1,aggs=1,hosts_per_tor=2,gpus=2,nics=1,pcie=1,nic_gbps=80,"
        "pcie_gbps=800,latency_us=0,host_latency_us=0\","
        " \"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"a\": {\"priority\": 0},"
        " \"b\": {\"priority\": 1}}}, \"trace\": {\"jobs\": ["
        "{\"id\": \"a\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"], \"host_gpus\": [1, 1],"
        " \"start_s\": 0, \"end_s\": 3600, " MODEL("1.0", "5e9") "},"
        " {\"id\": \"b\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"], \"host_gpus\": [1, 1],"
        " \"start_s\": 0, \"end_s\": 3600, " MODEL("2.0", "8e9") "}]},"
        " \"sim\": {\"alpha_us\": 0, \"channels\": 1, \"steady\": \"%s\"}}",
        steady);
}

static void test_approx_phase_moving(void)
{
    test_run x, y;
    replay_summary s, e;
    if (test_run_approx_and_exact(moving, &x, &y, &s, &e)) {
        static const int64_t iters[2][2] = {{2399, 1090}, {2399, 1199}};
        for (int run = 0; run < 2; run++)
            for (size_t i = 0; i < 2; i++) {
                replay_job_result p;
                replay_job_get(run ? y.r : x.r, i, &p);
                CU_ASSERT_EQUAL(p.iterations, iters[run][i]);
            }
        double b_bound = 2.0 + 3592.5 * 0.5 / (3.3 * 2.8);
        CU_ASSERT_EQUAL(s.approx_jumps, 1);
        TEST_ASSERT_CLOSE(s.approx_iteration_bound, b_bound, 1e-9);
        TEST_ASSERT_CLOSE(s.approx_util_bound, (2.0 * 2.0 + b_bound * 4.0) / (4.0 * 3600), 1e-9);
        CU_ASSERT_TRUE(1199 - 1090 <= s.approx_iteration_bound);
        CU_ASSERT_TRUE(fabs(s.gpu_util_cluster_frac - e.gpu_util_cluster_frac) <=
                       s.approx_util_bound);
    }
    test_run_clear(&x);
    test_run_clear(&y);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"wander", test_approx_wander},
        {"kept_carried", test_approx_kept_carried},
        {"kept_wander", test_approx_kept_wander},
        {"change_elsewhere", test_approx_change_elsewhere},
        {"late_member", test_approx_late_member},
        {"phase_moving", test_approx_phase_moving},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("steady_approx", cases);
}
