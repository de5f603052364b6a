/* steady_approx.c - the approximate mode for groups of jobs sharing links
 * (--steady approx, docs/engine.md §5d): converged mean rates extrapolated
 * with an error bound.  Not here: exact repeats (steady_group.c), the jump
 * itself (steady_snap.c).
 */
#include <math.h>
#include <string.h>

#include "steady-private.h"

static bool same_array(const GArray *a, const GArray *b)
{
    return a->len == b->len &&
           memcmp(a->data, b->data, (size_t)a->len * g_array_get_element_size((GArray *)a)) == 0;
}

void steady__keep_rates(group *g, GPtrArray *old)
{
    for (guint i = 0; i < old->len; i++) {
        group *o = g_ptr_array_index(old, i);
        if (o->members->len != g->members->len ||
            memcmp(o->members->pdata, g->members->pdata, g->members->len * sizeof(gpointer)) ||
            !same_array(o->prio, g->prio) || !same_array(o->links, g->links))
            continue;
        g->rates = o->rates;
        g->rates_stride = o->rates_stride;
        g->rates_count = o->rates_count;
        o->rates.n = 0;
        return;
    }
}

/* Approximate jumps (--steady approx, docs/engine.md §5d): the relative
 * tolerance within which two consecutive windows' mean iteration times
 * must agree, at least APPROX_EPS and APPROX_PHASE / n for a member that
 * ended n iterations in the shorter window, and the longest window, in
 * anchor iterations (a window starts at 1 and doubles each time the two
 * last windows disagree). */
#define APPROX_EPS 1e-2
#define APPROX_PHASE 0.25
#define APPROX_STRIDE_MAX 64

/* A member's mean cycle over a window (d its increments): the time
 * between two of its iteration starts, its iteration and the shift that
 * delays the next (a hook's, cassini's), per iteration ended.  Without
 * shifts, its mean iteration time. */
static double cycle_s(const job_counters *d)
{
    return (d->iter_time_sum_s + d->shift_s) / (double)d->iterations;
}

/* The mean cycle over two windows. */
static double cycle2_s(const job_counters *d1, const job_counters *d2)
{
    return (d1->iter_time_sum_s + d1->shift_s + (d2->iter_time_sum_s + d2->shift_s)) /
           (double)(d1->iterations + d2->iterations);
}

/* Two consecutive windows agree for a member (d1, d2 its increments over
 * them): it ended an iteration in both, its shifts per iteration agree
 * within APPROX_EPS (none in both, without a hook that shifts; a window
 * that holds cassini's first alignment of a job and one that does not
 * disagree: that shift is a transient, not a rate), and its mean cycles
 * (cycle_s) agree within APPROX_EPS, or APPROX_PHASE over its fewest iterations in
 * a window: a member that ends a few iterations per anchor iteration has
 * iterations of different lengths (they meet the anchor's communication
 * or not), and which of them a window holds moves its mean by about the
 * spread over n; the windows that average that out would outlast the
 * group (docs/engine.md §5d).  The bound takes the difference as it is.
 * (Busy time follows from the iterations: a job is busy C + T_opt per
 * iteration; a window's busy time is not compared, it depends on where
 * the window cuts a compute.) */
static bool converged(const job_counters *d1, const job_counters *d2)
{
    if (d1->iterations < 1 || d2->iterations < 1)
        return false;
    double m1 = cycle_s(d1), m2 = cycle_s(d2);
    double n = (double)MIN(d1->iterations, d2->iterations);
    double s1 = d1->shift_s / (double)d1->iterations, s2 = d2->shift_s / (double)d2->iterations;
    return fabs(m2 - m1) <= fmax(APPROX_EPS, APPROX_PHASE / n) * m2 &&
           fabs(s2 - s1) <= APPROX_EPS * fmax(s1, s2);
}

/* What a jump of dt adds to member m (d1, d2 its increments over the two
 * windows): iterations at the mean cycle of both windows (cycle_s; the
 * fraction carried to its next jump; whole > 0: the fast member, whose
 * mean cycles are the jump's unit, gets exactly whole of them), each with
 * the windows' mean iteration time and shift, and busy C + T_opt on its
 * GPUs.
 * Returns the error bound it adds to m's iterations (the windows' drift
 * over the jump, plus 1 for the phase the jump leaves m in and 1 for the
 * fraction carried) and adds that many iterations' busy time to
 * *busy_bound (docs/engine.md §5d). */
static double approx_add(const job *m, steady_job *rm, const job_counters *d1,
                         const job_counters *d2, double dt, int64_t whole, job_counters *add,
                         double *busy_bound)
{
    double mean = cycle2_s(d1, d2), m1 = cycle_s(d1), m2 = cycle_s(d2);
    double n_both = (double)(d1->iterations + d2->iterations);
    double busy_iter = job_busy_gpu_s_per_iter(m);
    if (whole > 0) { /* the jump's unit: exactly whole of its mean iterations */
        add->iterations = whole;
    } else {
        double n = rm->approx_frac + dt / mean;
        add->iterations = (int64_t)floor(n);
        rm->approx_frac = n - (double)add->iterations;
    }
    add->iter_time_sum_s =
        (double)add->iterations * ((d1->iter_time_sum_s + d2->iter_time_sum_s) / n_both);
    add->busy_gpu_s = (double)add->iterations * busy_iter;
    add->shift_s = (double)add->iterations * ((d1->shift_s + d2->shift_s) / n_both);
    double bound = dt / mean * fabs(m2 - m1) / mean + 2.0;
    *busy_bound += bound * busy_iter;
    return bound;
}

/* The members' and group links' counters now, as the newest rates record. */
static void rates_record(const steady *st, group *g, double now_s, bool at_change)
{
    g->rates_fresh = true;
    snap *s = steady__snap_new();
    s->at_change = at_change;
    steady__capture_counters(g, now_s, s);
    steady__capture_links(st, g, s);
    steady__ring_push(&g->rates, s);
}

void steady__rates_push(steady *s, group *g, double now_s)
{
    if (++g->rates_count < MAX(1, g->rates_stride))
        return;
    g->rates_count = 0;
    rates_record(s, g, now_s, false);
}

/* A group formed at this change: its first window opens now, not at the
 * anchor's next boundary (which is up to one anchor iteration away).  An
 * iteration a member ends in that window may have started before the
 * change; if that keeps the two windows from agreeing, the record is
 * dropped (steady__approx_step). */
void steady__rates_open(steady *s, group *g, double now_s)
{
    rates_record(s, g, now_s, true);
    s->c.approx_change_windows++;
}

/* Drop the oldest record (the one taken at the change). */
static void ring_drop_oldest(ring *rg)
{
    steady__snap_free(rg->s[0]);
    memmove(rg->s, rg->s + 1, (size_t)(rg->n - 1) * sizeof rg->s[0]);
    rg->n--;
}

/* The two last windows disagreed: windows twice as long from now on (the
 * ring keeps every other snapshot, from the newest back). */
static void rates_widen(group *g)
{
    ring *rg = &g->rates;
    if (MAX(1, g->rates_stride) >= APPROX_STRIDE_MAX)
        return;
    g->rates_stride = 2 * MAX(1, g->rates_stride);
    int keep = 0;
    for (int i = rg->n - 1; i >= 0; i--) {
        if ((rg->n - 1 - i) % 2 == 0)
            rg->s[RING - 1 - keep++] = rg->s[i];
        else
            steady__snap_free(rg->s[i]);
    }
    memmove(rg->s, rg->s + RING - keep, (size_t)keep * sizeof rg->s[0]);
    rg->n = keep;
}

/* An approximate jump at a boundary of the fast member or the anchor:
 * when every member's mean iteration time agrees over the last two
 * windows (the rates ring's last three snapshots, rates_stride anchor
 * iterations apart), the group jumps k of the anchor's mean iterations up
 * to the next arrival or end, every counter advanced at the two windows'
 * mean rates (approx_add; the links' counters at their mean rates over
 * both windows).  Returns the jump's length, or 0. */
double steady__approx_step(steady *s, group *g, double now_s)
{
    ring *rg = &g->rates;
    bool fresh = g->rates_fresh;
    g->rates_fresh = false;
    if (rg->n < 3)
        return 0;
    snap *a = rg->s[rg->n - 3];
    const snap *b = rg->s[rg->n - 2];
    const snap *c = rg->s[rg->n - 1];
    if (!a->has_links || !b->has_links || !c->has_links)
        return 0;
    double T = c->t - a->t;
    g_autoptr(GArray) c1 = g_array_new(FALSE, TRUE, sizeof(job_counters));
    g_autoptr(GArray) l1 = g_array_new(FALSE, TRUE, sizeof(net_link_stats));
    g_autoptr(GArray) c2 = g_array_new(FALSE, TRUE, sizeof(job_counters));
    g_autoptr(GArray) l2 = g_array_new(FALSE, TRUE, sizeof(net_link_stats));
    steady__period_incr(a, b, c1, l1);
    steady__period_incr(b, c, c2, l2);
    const job_counters *d1 = (const job_counters *)(void *)c1->data;
    const job_counters *d2 = (const job_counters *)(void *)c2->data;
    guint fast = 0;
    for (guint i = 0; i < g->members->len; i++) {
        if (!converged(&d1[i], &d2[i])) {
            if (a->at_change) /* a window cut by the change: wait for a whole one */
                ring_drop_oldest(rg);
            else if (fresh)
                rates_widen(g);
            return 0;
        }
        if (g_ptr_array_index(g->members, i) == g->fast)
            fast = i;
    }
    /* whole mean iterations of the fast member: the jump stops at most one
     * of them short of the next change */
    double P = cycle2_s(&d1[fast], &d2[fast]);
    int64_t k = steady__periods_before(now_s, P, steady__next_change(s, false));
    if (k < 1)
        return 0;
    double dt = (double)k * P;
    if (a->at_change) { /* counted once: the record moves on with the jump */
        a->at_change = false;
        s->c.approx_change_kept++;
    }
    g_autoptr(GArray) tc = g_array_new(FALSE, TRUE, sizeof(job_counters));
    g_autoptr(GArray) tl = g_array_new(FALSE, TRUE, sizeof(net_link_stats));
    g_array_set_size(tc, g->members->len);
    g_array_set_size(tl, g->links->len);
    for (guint i = 0; i < g->members->len; i++) {
        const job *m = g_ptr_array_index(g->members, i);
        steady_job *rm = steady__rec(s, m);
        job_counters *add = &g_array_index(tc, job_counters, i);
        rm->approx_iter_bound += approx_add(m, rm, &d1[i], &d2[i], dt, i == fast ? k : 0, add,
                                            &s->c.approx_busy_bound);
        s->c.approx_iter_bound = fmax(s->c.approx_iter_bound, rm->approx_iter_bound);
        s->c.approx_iters += (uint64_t)add->iterations;
    }
    for (guint i = 0; i < g->links->len; i++)
        steady__lst_add(&g_array_index(tl, net_link_stats, i),
                        &g_array_index(l1, net_link_stats, i), dt / T);
    for (guint i = 0; i < g->links->len; i++)
        steady__lst_add(&g_array_index(tl, net_link_stats, i),
                        &g_array_index(l2, net_link_stats, i), dt / T);
    steady__jump(s, g, dt, now_s, (const job_counters *)(void *)tc->data,
         (const net_link_stats *)(void *)tl->data, c, NULL, NULL);
    /* the windows stay measured ones: every snapshot moves with the group;
     * the phase snapshots describe a past the group no longer has */
    steady__ring_shift(rg, 0, dt, 1.0, tc, tl);
    steady__ring_clear(&g->slow);
    steady__ring_clear(&g->quick);
    s->c.approx_jumps++;
    return dt;
}

