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
        g->gaps = g_steal_pointer(&o->gaps);
        g->gaps_stride = o->gaps_stride;
        g->carried = g_steal_pointer(&o->carried);
        g->carried_wait = o->carried_wait;
        g->rates_jumped = o->rates_jumped;
        o->rates.n = 0;
        return;
    }
}

/* Member m's increments over the last window measured for it in the old
 * groups (old): its group's last window, or, for a group formed at an
 * earlier change (or earlier in this instant) that has not measured one
 * of its own yet, the window that group carried.  False (out zeroed) if
 * none holds an iteration of m. */
static bool last_window(GPtrArray *old, const job *m, job_counters *out)
{
    *out = (job_counters){0};
    for (guint i = 0; i < old->len; i++) {
        const group *o = g_ptr_array_index(old, i);
        guint at;
        if (!g_ptr_array_find(o->members, m, &at))
            continue;
        const ring *rg = &o->rates;
        job_counters w = {0};
        if (rg->n >= 2)
            w = steady__member_incr(rg->s[rg->n - 2], rg->s[rg->n - 1], at);
        if (w.iterations < 1 && o->carried)
            w = g_array_index(o->carried, job_counters, at);
        if (w.iterations < 1)
            return false;
        *out = w;
        return true;
    }
    return false;
}

void steady__carry_rates(steady *s, group *g, GPtrArray *old, double now_s)
{
    guint n = g->members->len, fresh = 0;
    g_autoptr(GArray) cw = g_array_new(FALSE, TRUE, sizeof(job_counters));
    g_array_set_size(cw, n);
    for (guint k = 0; k < n; k++)
        if (!last_window(old, g_ptr_array_index(g->members, k), &g_array_index(cw, job_counters, k)))
            fresh++; /* a new member: iterations 0 */
    if (!(fresh <= 1 && fresh < n))
        return;
    for (guint k = 0; k < n; k++) {
        const job *m = g_ptr_array_index(g->members, k);
        const job_counters *d = &g_array_index(cw, job_counters, k);
        steady_job *rm = steady__rec(s, m);
        rm->post_wait = d->iterations > 0;
        rm->post_valid = false;
        rm->post_from_s = now_s;
        rm->pre_s = fmax(0.0, now_s - m->iter_start_s);
    }
    g->carried = g_steal_pointer(&cw);
}

void steady__post_boundary(steady *s, const job *j, double now_s)
{
    steady_job *rj = steady__rec(s, j);
    if (!rj->post_wait || rj->post_valid || now_s < rj->post_from_s)
        return;
    rj->post_valid = true;
    rj->post_t = now_s;
    job_phase_counters(j, now_s, &rj->post_ctr);
}

/* A jump of dt moved member m by add (its increments): what it recorded
 * after the change moves with it. */
static void post_shift(steady *s, const job *m, double dt, const job_counters *add)
{
    steady_job *rm = steady__rec(s, m);
    if (!rm->post_wait)
        return;
    rm->post_from_s += dt;
    if (rm->post_valid) {
        rm->post_t += dt;
        steady__ctr_add(&rm->post_ctr, add, 1.0);
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

/* A member's shifts per iteration over two windows (d1, d2, an iteration
 * ended in each) differ by at most APPROX_EPS of its cycle in the second
 * (converged). */
static bool shifts_agree(const job_counters *d1, const job_counters *d2)
{
    double s1 = d1->shift_s / (double)d1->iterations, s2 = d2->shift_s / (double)d2->iterations;
    return fabs(s2 - s1) <= APPROX_EPS * cycle_s(d2);
}

/* A member's window d2 holds an alignment that its window d1 (an
 * iteration ended in each) does not: their shifts disagree (shifts_agree)
 * and d1's are at most APPROX_EPS of the shorter cycle per iteration, d2's
 * more.  cassini forgets its alignments at every reschedule, wherever in
 * the cluster the change was, and aligns each job with a target again,
 * by up to the period its target repeats with (nearly a whole iteration
 * for a job a little slower than a reference as long as itself): such a
 * one-off comes back at no later check, so the window that holds it is
 * dropped, not doubled into the next, and a carried window is checked
 * against the next one (docs/engine.md §5d). */
static bool realigned(const job_counters *d1, const job_counters *d2)
{
    if (d1->iterations < 1 || d2->iterations < 1 || shifts_agree(d1, d2))
        return false;
    double s1 = d1->shift_s / (double)d1->iterations, s2 = d2->shift_s / (double)d2->iterations;
    return s1 <= APPROX_EPS * fmin(cycle_s(d1), cycle_s(d2)) && s2 > s1;
}

/* Two consecutive windows agree for a member (d1, d2 its increments over
 * them): it ended an iteration in both, its shifts per iteration differ
 * by at most APPROX_EPS of its cycle (none in both, without a hook that
 * shifts; a window that holds a long one-off alignment and one that does
 * not disagree even where the tolerance for few iterations would let
 * their cycles agree, while cassini's realignments of a few milliseconds
 * after each reschedule, which fall into some windows and not others,
 * are no reason to measure again: docs/engine.md §5d), and its mean cycles
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
    return fabs(m2 - m1) <= fmax(APPROX_EPS, APPROX_PHASE / n) * m2 && shifts_agree(d1, d2);
}

/* What m would gain over dt were it to run at its iteration alone instead
 * of the windows' mean cycle c and mean iteration it: dt / (c - s) - dt /
 * c, s how much longer it is than its iteration alone. */
static double recovery(const job *m, double c, double it, double dt)
{
    double slow = fmax(0.0, it - m->isolated_iter_s);
    return dt * slow / (c * (c - slow));
}

/* What a jump of dt adds to member m (d1, d2 its increments over the two
 * windows): iterations at the mean cycle of both windows (cycle_s; the
 * fraction carried to its next jump; whole > 0: the fast member, whose
 * mean cycles are the jump's unit, gets exactly whole of them), each with
 * the windows' mean iteration time and shift, and busy C + T_opt on its
 * GPUs.
 * Returns the error bound it adds to m's iterations (the windows' drift
 * over the jump, the tolerance unverified over it for a rate measured in
 * one window only (0 for two), the windows' mean shift per iteration
 * over the jump (shifts may be one-offs that no reschedule repeats inside
 * it: the cycle may be that much shorter; 0 without shifts), where the
 * windows were taken while the members' phases still moved (moving) what
 * m would gain were it to run alone (recovery), plus 1 for the phase the
 * jump leaves m in and 1 for the fraction carried) and adds that many
 * iterations' busy time to *busy_bound (docs/engine.md §5d). */
static double approx_add(const job *m, steady_job *rm, const job_counters *d1,
                         const job_counters *d2, double unverified, bool moving, double dt,
                         int64_t whole, job_counters *add, double *busy_bound)
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
    double it = (d1->iter_time_sum_s + d2->iter_time_sum_s) / n_both;
    add->iter_time_sum_s = (double)add->iterations * it;
    add->busy_gpu_s = (double)add->iterations * busy_iter;
    double shift = (d1->shift_s + d2->shift_s) / n_both;
    add->shift_s = (double)add->iterations * shift;
    double bound = dt / mean * fabs(m2 - m1) / mean + dt / mean * unverified +
                   dt / mean * shift / mean + (moving ? recovery(m, mean, it, dt) : 0.0) + 2.0;
    *busy_bound += bound * busy_iter;
    return bound;
}

/* The members' and group links' counters now, as the newest rates record. */
static void rates_record(const steady *st, group *g, double now_s, bool at_change)
{
    g->rates_fresh = true;
    g->rates_jumped = false;
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

/* The window from the change (the oldest record) to the newest is one:
 * the records between go. */
static void ring_join(ring *rg)
{
    for (int i = 1; i < rg->n - 1; i++)
        steady__snap_free(rg->s[i]);
    if (rg->n > 2)
        rg->s[1] = rg->s[rg->n - 1];
    rg->n = MIN(rg->n, 2);
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

/* A check on whole windows (d1, d2 the members' increments over them):
 * where some member disagrees, should the windows stop doubling?  Yes when
 * the windows were doubled since the last check on whole windows (its
 * stride half this one) and every member that disagrees now ended an
 * iteration in both windows, its shifts agree (shifts_agree) and its
 * disagreement |m2 - m1| / m2 is not smaller than at that check: doubling
 * did not average it out, so it is a rate that wanders on a longer scale
 * than the windows, not the phase of a few iterations, and measuring
 * longer only keeps the group on the event path (docs/engine.md §5d).
 * The members' disagreements and the stride are kept for the next check
 * either way (g->gaps). */
static bool wanders(group *g, const job_counters *d1, const job_counters *d2)
{
    guint n = g->members->len;
    int stride = MAX(1, g->rates_stride);
    bool stop = g->gaps && 2 * g->gaps_stride == stride;
    if (!g->gaps) {
        g->gaps = g_array_new(FALSE, TRUE, sizeof(double));
        g_array_set_size(g->gaps, n);
    }
    for (guint i = 0; i < n; i++) {
        double *gap = &g_array_index(g->gaps, double, i);
        double now = INFINITY;
        if (d1[i].iterations >= 1 && d2[i].iterations >= 1) {
            double m1 = cycle_s(&d1[i]), m2 = cycle_s(&d2[i]);
            now = fabs(m2 - m1) / m2;
        }
        if (!converged(&d1[i], &d2[i]) &&
            (!isfinite(now) || now < *gap || !shifts_agree(&d1[i], &d2[i])))
            stop = false;
        *gap = now;
    }
    g->gaps_stride = stride;
    return stop;
}

/* Were the windows (d1 up to record b, d2 from b to c) taken while the
 * members' phases still moved?  Yes when a member other than the anchor
 * that ends so few iterations in a window that the tolerance for few
 * iterations applies (APPROX_PHASE / n > APPROX_EPS: which parts of the
 * others' iterations its iterations meet decides its rate) began its
 * iteration in progress at c more than APPROX_EPS of its cycle earlier or
 * later, relative to the anchor's boundary, than at b.  Such windows may
 * hold a transient: the rates agree, but the members meet differently
 * from one window to the next, and a member slowed in them may yet lock
 * in to a faster rate (docs/engine.md §5d, "A phase still moving"). */
static bool phases_move(const group *g, const snap *b, const snap *c, const job_counters *d1,
                        const job_counters *d2)
{
    for (guint i = 0; i < g->members->len; i++) {
        int64_t n = MIN(d1[i].iterations, d2[i].iterations);
        if (g_ptr_array_index(g->members, i) == g->anchor || n < 1 ||
            (double)n * APPROX_EPS >= APPROX_PHASE)
            continue;
        double m = cycle2_s(&d1[i], &d2[i]);
        double moved = remainder(
            g_array_index(c->since, double, i) - g_array_index(b->since, double, i), m);
        if (fabs(moved) > APPROX_EPS * m)
            return true;
    }
    return false;
}

/* The windows a jump extrapolates: per member its increments over two
 * windows (d1, d2) and the tolerance of a rate only one window measured
 * (unverified, NULL: none); whether the members' phases still moved
 * (phases_move); per group link its increments (l1, NULL: none, and l2)
 * over T. */
typedef struct windows {
    const job_counters *d1, *d2;
    const double *unverified;
    bool moving;
    const GArray *l1, *l2;
    double T;
} windows;

/* Jump g at the rates of w: k of its fast member's mean cycles over both
 * windows up to the next arrival or end, every counter advanced at the
 * windows' mean rates (approx_add; the links' counters at theirs), the
 * rates ring moved along (first: its oldest record, counted kept if it
 * was taken at the change).  Returns the jump's length, or 0. */
static double jump(steady *s, group *g, double now_s, const windows *w, const snap *c,
                   snap *first)
{
    guint fast = 0;
    for (guint i = 0; i < g->members->len; i++)
        if (g_ptr_array_index(g->members, i) == g->fast)
            fast = i;
    /* whole mean iterations of the fast member: the jump stops at most one
     * of them short of the next change */
    double P = cycle2_s(&w->d1[fast], &w->d2[fast]);
    int64_t k = steady__periods_before(now_s, P, steady__next_change(s, false));
    if (k < 1)
        return 0;
    double dt = (double)k * P;
    if (first->at_change && !first->kept) { /* counted once: it moves on with the jump */
        first->at_change = false;
        first->kept = true;
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
        rm->approx_iter_bound +=
            approx_add(m, rm, &w->d1[i], &w->d2[i], w->unverified ? w->unverified[i] : 0.0,
                       w->moving, dt,
                       i == fast ? k : 0, add, &s->c.approx_busy_bound);
        s->c.approx_iter_bound = fmax(s->c.approx_iter_bound, rm->approx_iter_bound);
        s->c.approx_iters += (uint64_t)add->iterations;
    }
    for (guint i = 0; w->l1 && i < g->links->len; i++)
        steady__lst_add(&g_array_index(tl, net_link_stats, i),
                        &g_array_index(w->l1, net_link_stats, i), dt / w->T);
    for (guint i = 0; i < g->links->len; i++)
        steady__lst_add(&g_array_index(tl, net_link_stats, i),
                        &g_array_index(w->l2, net_link_stats, i), dt / w->T);
    steady__jump(s, g, dt, now_s, (const job_counters *)(void *)tc->data,
                 (const net_link_stats *)(void *)tl->data, c, NULL, NULL);
    /* the windows stay measured ones: every snapshot moves with the group;
     * the phase snapshots describe a past the group no longer has */
    steady__ring_shift(&g->rates, 0, dt, 1.0, tc, tl);
    for (guint i = 0; i < g->members->len; i++)
        post_shift(s, g_ptr_array_index(g->members, i), dt, &g_array_index(tc, job_counters, i));
    steady__ring_clear(&g->slow);
    steady__ring_clear(&g->quick);
    s->c.approx_jumps++;
    g->rates_jumped = true;
    return dt;
}

/* The new member's (of n, the one with carried dc iterations 0) two
 * windows of its own where the window from the change went past a record
 * (rg, three records or more): from the change to the last record but one
 * into d1, the last window into d2.  False if they do not agree
 * (converged). */
static bool new_member_windows(const ring *rg, guint n, const job_counters *dc, job_counters *d1,
                               job_counters *d2)
{
    const snap *a = rg->s[0], *b = rg->s[rg->n - 2], *c = rg->s[rg->n - 1];
    for (guint i = 0; i < n; i++) {
        if (dc[i].iterations > 0)
            continue;
        d1[i] = steady__member_incr(a, b, i);
        d2[i] = steady__member_incr(b, c, i);
        if (!converged(&d1[i], &d2[i]))
            return false;
    }
    return true;
}

/* Member i's window after the change, from record a (the change, or a
 * later record the carried window is checked from) up to c (*out: its
 * increments from a).  Unless its first boundary after the change came
 * by a, the first iteration it ends there began pre_s before the change,
 * and that part of it ran at the old rates: it would agree with the
 * carried window whatever the group does to the member.  Where that part
 * is at most APPROX_EPS of the iterations in *out (one of many, or begun
 * at the change, as the anchor's after a jump), *out stands; otherwise
 * the window starts at the member's first boundary after the change.
 * False while that window holds no iteration: the window goes on. */
static bool window_after(steady *s, const group *g, guint i, const snap *a, const snap *c,
                         job_counters *out)
{
    const steady_job *rm = steady__rec(s, g_ptr_array_index(g->members, i));
    if (!rm->post_wait || (rm->post_valid && rm->post_t <= a->t) ||
        rm->pre_s <= APPROX_EPS * (out->iter_time_sum_s + out->shift_s))
        return true;
    if (!rm->post_valid)
        return false;
    job_counters w = steady__ctr_diff(&g_array_index(c->ctr, job_counters, i), &rm->post_ctr);
    if (w.iterations < 1)
        return false;
    *out = w;
    return true;
}

/* A group that differs by one member from one before the change, at its
 * first record after the one taken at the change: the window between
 * them against the carried one (g->carried).  Every member ended an
 * iteration in it, each member the old group had agrees with its carried
 * window (converged), and the new member's rate, measured in that window
 * only, counts with the tolerance it would have had to meet (the
 * unverified term of the bound): then the group jumps on the carried and
 * the new window, the links at the new window's rates.  Where a member
 * (a slow one whose boundary came just after the anchor's) ended no
 * iteration in it, the window from the change goes on to the next record
 * (g->carried_wait; the next check without a record drops the carried
 * window if it still does not decide), and then the new member is measured in two windows
 * of its own, which must agree, instead of one (new_member_windows).  A
 * disagreement drops the carried window: the group measures two windows
 * of its own; but where every
 * member that disagrees does so because the new window holds an
 * alignment the carried one does not (realigned), that window is dropped
 * instead and the carried one is checked against the next.  After a jump the
 * carried window stays until the group's next record, so that a change
 * that keeps the group lets it jump again on the same two windows
 * (g->rates_jumped), as one that jumped on two windows of its own does
 * (docs/engine.md §5d).  Returns the jump's length, or 0. */
static double carried_step(steady *s, group *g, double now_s)
{
    ring *rg = &g->rates;
    snap *a = rg->s[0];
    const snap *c = rg->s[rg->n - 1];
    g->carried_wait = false;
    if (!a->at_change || !a->has_links || !c->has_links) {
        g_clear_pointer(&g->carried, g_array_unref);
        return 0;
    }
    g_autoptr(GArray) cw = g_array_new(FALSE, TRUE, sizeof(job_counters));
    g_autoptr(GArray) lw = g_array_new(FALSE, TRUE, sizeof(net_link_stats));
    steady__period_incr(a, c, cw, lw);
    guint n = g->members->len;
    const job_counters *dw = (const job_counters *)(void *)cw->data;
    const job_counters *dc = (const job_counters *)(void *)g->carried->data;
    g_autofree job_counters *d1 = g_new(job_counters, n);
    g_autofree job_counters *d2 = g_memdup2(dw, n * sizeof *dw);
    g_autofree double *unverified = g_new0(double, n);
    bool lump = false; /* the new window holds a one-off alignment (realigned) */
    for (guint i = 0; i < n; i++)
        if (dw[i].iterations < 1 || !window_after(s, g, i, a, c, &d2[i])) {
            g->carried_wait = true; /* the window from the change goes on */
            return 0;
        }
    bool late = rg->n > 2; /* the window from the change went past a record */
    if (late && !new_member_windows(rg, n, dc, d1, d2)) {
        g->carried_wait = true;
        return 0;
    }
    for (guint i = 0; i < n; i++) {
        if (dc[i].iterations == 0) { /* the new member: late, two windows of its own */
            if (!late) {
                d1[i] = dw[i];
                unverified[i] = fmax(APPROX_EPS, APPROX_PHASE / (double)dw[i].iterations);
            }
            continue;
        }
        d1[i] = dc[i];
        if (!converged(&dc[i], &d2[i])) {
            if (!realigned(&dc[i], &d2[i])) {
                g_clear_pointer(&g->carried, g_array_unref);
                return 0;
            }
            lump = true;
        }
    }
    ring_join(rg); /* one window from the change to c */
    if (lump) { /* the carried window is checked against the next one, from c */
        ring_drop_oldest(rg);
        rg->s[0]->at_change = true;
        rg->s[0]->kept = true; /* not a window opened at a change (approx_change_kept) */
        return 0;
    }
    windows w = {d1, d2, unverified, false, NULL, lw, c->t - a->t};
    double dt = jump(s, g, now_s, &w, c, a);
    if (dt > 0) {
        /* the window cut by the change stays one: if the next disagrees
         * with it, it goes without doubling the windows */
        a->at_change = true;
        s->c.approx_carried++;
    }
    return dt;
}

/* An approximate jump at a boundary of the fast member or the anchor:
 * when every member's mean iteration time agrees over the last two
 * windows (the rates ring's last three snapshots, rates_stride anchor
 * iterations apart), the group jumps k of the anchor's mean iterations up
 * to the next arrival or end, every counter advanced at the two windows'
 * mean rates (approx_add; the links' counters at their mean rates over
 * both windows); a group that differs from one before the change by one
 * member may jump after one window (carried_step).  Windows that disagree
 * are doubled, but the first is dropped where it was cut by the change or
 * where one of them holds an alignment the other does not (realigned).
 * Windows that stopped doubling (wanders) and a carried window are
 * decided at a fresh record; until the next one, the group jumps again on windows it jumped on
 * (g->rates_jumped: after a change that kept it).  Returns the jump's
 * length, or 0. */
double steady__approx_step(steady *s, group *g, double now_s)
{
    ring *rg = &g->rates;
    bool fresh = g->rates_fresh;
    g->rates_fresh = false;
    if (g->carried && (rg->n == 2 ? fresh || g->rates_jumped : fresh && g->carried_wait)) {
        double dt = carried_step(s, g, now_s);
        if (dt > 0 || g->carried_wait)
            return dt;
    }
    if (rg->n < 3)
        return 0;
    g_clear_pointer(&g->carried, g_array_unref);
    snap *a = rg->s[rg->n - 3];
    const snap *b = rg->s[rg->n - 2];
    const snap *c = rg->s[rg->n - 1];
    if (!a->has_links || !b->has_links || !c->has_links)
        return 0;
    g_autoptr(GArray) c1 = g_array_new(FALSE, TRUE, sizeof(job_counters));
    g_autoptr(GArray) l1 = g_array_new(FALSE, TRUE, sizeof(net_link_stats));
    g_autoptr(GArray) c2 = g_array_new(FALSE, TRUE, sizeof(job_counters));
    g_autoptr(GArray) l2 = g_array_new(FALSE, TRUE, sizeof(net_link_stats));
    steady__period_incr(a, b, c1, l1);
    steady__period_incr(b, c, c2, l2);
    const job_counters *d1 = (const job_counters *)(void *)c1->data;
    const job_counters *d2 = (const job_counters *)(void *)c2->data;
    bool agree = true;
    for (guint i = 0; i < g->members->len && agree; i++)
        agree = converged(&d1[i], &d2[i]);
    bool lump = false; /* a member realigned in one window only */
    for (guint i = 0; i < g->members->len && !agree && !lump; i++)
        lump = realigned(&d1[i], &d2[i]) || realigned(&d2[i], &d1[i]);
    if ((a->at_change || lump) && !agree) {
        /* a window cut by the change, or one that holds a one-off
         * alignment: wait for a whole one, without doubling */
        ring_drop_oldest(rg);
        return 0;
    }
    bool wander = !a->at_change && (fresh ? wanders(g, d1, d2) : g->rates_jumped);
    if (!agree && !wander) {
        if (fresh)
            rates_widen(g);
        return 0;
    }
    windows w = {d1, d2, NULL, phases_move(g, b, c, d1, d2), l1, l2, c->t - a->t};
    double dt = jump(s, g, now_s, &w, c, a);
    if (dt > 0 && !agree)
        s->c.approx_wander++;
    return dt;
}
