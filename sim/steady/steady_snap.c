/* steady_snap.c - a group's snapshots, their rings, and the jump that
 * moves a whole group ahead (docs/engine.md §5c, §5d).  Not here: when a
 * group repeats (steady_group.c) or converges (steady_approx.c).
 */
#include <math.h>
#include <string.h>

#include "steady-private.h"

snap *steady__snap_new(void)
{
    snap *s = g_new0(snap, 1);
    s->vals = g_array_new(FALSE, FALSE, sizeof(phase_val));
    s->off = g_array_new(FALSE, FALSE, sizeof(guint));
    s->ctr = g_array_new(FALSE, FALSE, sizeof(job_counters));
    s->lst = g_array_new(FALSE, FALSE, sizeof(net_link_stats));
    s->since = g_array_new(FALSE, FALSE, sizeof(double));
    return s;
}

void steady__snap_free(snap *s)
{
    if (!s)
        return;
    g_array_free(s->vals, TRUE);
    g_array_free(s->off, TRUE);
    g_array_free(s->ctr, TRUE);
    g_array_free(s->lst, TRUE);
    g_array_free(s->since, TRUE);
    g_free(s);
}

void steady__ring_clear(ring *rg)
{
    for (int i = 0; i < rg->n; i++)
        steady__snap_free(rg->s[i]);
    rg->n = 0;
}

/* The time tolerance of a group's snapshots at t: 1e-9 of the anchor's
 * iteration, and never below the rounding of offsets taken at t (a few
 * ulps of t, ~1e-10 s at t = 1e6 s). */
double steady__time_tol(const group *g, double t)
{
    double ulp = nextafter(fabs(t), INFINITY) - fabs(t);
    return fmax(1e-9 * g->anchor->isolated_iter_s, 8.0 * ulp);
}

/* What the scheduler's hook keeps about member m at now_s (its times as
 * offsets from now_s), as values that must repeat (tolerance tol). */
static void hook_capture(steady *st, const job *m, double now_s, double tol, GArray *vals)
{
    const steady_env *e = &st->env;
    if (!e->hook_state)
        return;
    g_autoptr(GArray) h = g_array_new(FALSE, FALSE, sizeof(double));
    e->hook_state(e->user, steady__rec(st, m)->slot, now_s, h);
    for (guint k = 0; k < h->len; k++) {
        phase_val v = {g_array_index(h, double, k), tol, PHASE_SAME};
        g_array_append_val(vals, v);
    }
}

void steady__capture(steady *st, const group *g, const job *at, double origin_s, double now_s,
                     snap *s)
{
    double tol = steady__time_tol(g, now_s);
    s->t = now_s;
    g_array_set_size(s->vals, 0);
    g_array_set_size(s->off, 0);
    g_array_set_size(s->ctr, g->members->len);
    s->has_links = false;
    phase_val origin = {origin_s - now_s, tol, PHASE_TIME};
    g_array_append_val(s->vals, origin);
    for (guint i = 0; i < g->members->len; i++) {
        const job *m = g_ptr_array_index(g->members, i);
        g_array_append_val(s->off, s->vals->len);
        job_phase_capture(m, now_s, tol, m == at, s->vals);
        hook_capture(st, m, now_s, tol, s->vals);
        job_phase_counters(m, now_s, &g_array_index(s->ctr, job_counters, i));
    }
}

void steady__capture_counters(const group *g, double now_s, snap *s)
{
    s->t = now_s;
    g_array_set_size(s->ctr, g->members->len);
    for (guint i = 0; i < g->members->len; i++)
        job_phase_counters(g_ptr_array_index(g->members, i), now_s,
                           &g_array_index(s->ctr, job_counters, i));
    g_array_set_size(s->since, g->members->len);
    for (guint i = 0; i < g->members->len; i++)
        g_array_index(s->since, double, i) =
            now_s - ((const job *)g_ptr_array_index(g->members, i))->iter_start_s;
}

void steady__capture_links(const steady *st, const group *g, snap *s)
{
    g_array_set_size(s->lst, g->links->len);
    for (guint k = 0; k < g->links->len; k++)
        net_link_stats_peek(st->env.n, g_array_index(g->links, uint32_t, k),
                            &g_array_index(s->lst, net_link_stats, k));
    s->has_links = true;
}


void steady__ring_push(ring *rg, snap *s)
{
    if (rg->n == RING) {
        steady__snap_free(rg->s[0]);
        memmove(rg->s, rg->s + 1, (RING - 1) * sizeof rg->s[0]);
        rg->n--;
    }
    rg->s[rg->n++] = s;
}


int64_t steady__periods_before(double now_s, double P, double u)
{
    if (!(P > 0) || !(u > now_s))
        return 0;
    double kf = floor((u - now_s) / P);
    int64_t k = kf > 1e12 ? (int64_t)1e12 : (int64_t)kf;
    while (k > 0 && now_s + (double)k * P >= u)
        k--;
    return k;
}

void steady__ctr_add(job_counters *to, const job_counters *d, double k)
{
    to->iterations += (int64_t)k * d->iterations;
    to->iter_time_sum_s += k * d->iter_time_sum_s;
    to->busy_gpu_s += k * d->busy_gpu_s;
    to->shift_s += k * d->shift_s;
}

void steady__lst_add(net_link_stats *to, const net_link_stats *d, double k)
{
    to->carried_bytes += k * d->carried_bytes;
    to->busy_s += k * d->busy_s;
    to->tagged_bytes += k * d->tagged_bytes;
}

/* Member i's increments, S - E. */
job_counters steady__ctr_diff(const job_counters *a, const job_counters *b)
{
    return (job_counters){a->iterations - b->iterations, a->iter_time_sum_s - b->iter_time_sum_s,
                          a->busy_gpu_s - b->busy_gpu_s, a->shift_s - b->shift_s};
}

job_counters steady__member_incr(const snap *E, const snap *S, guint i)
{
    return steady__ctr_diff(&g_array_index(S->ctr, job_counters, i),
                            &g_array_index(E->ctr, job_counters, i));
}

/* One period's increments, S - E: per member (dc) and per group link (dl). */
void steady__period_incr(const snap *E, const snap *S, GArray *dc, GArray *dl)
{
    g_array_set_size(dc, S->ctr->len);
    g_array_set_size(dl, S->lst->len);
    for (guint i = 0; i < S->ctr->len; i++)
        g_array_index(dc, job_counters, i) = steady__member_incr(E, S, i);
    for (guint i = 0; i < S->lst->len; i++) {
        const net_link_stats *a = &g_array_index(S->lst, net_link_stats, i);
        const net_link_stats *b = &g_array_index(E->lst, net_link_stats, i);
        net_link_stats *d = &g_array_index(dl, net_link_stats, i);
        d->carried_bytes = a->carried_bytes - b->carried_bytes;
        d->busy_s = a->busy_s - b->busy_s;
        d->tagged_bytes = a->tagged_bytes - b->tagged_bytes;
    }
}

/* The snapshots from e on describe times a whole number of periods
 * before the group's new present: move them dt later, counters k periods
 * on (dc, dl: one period's; by periodicity, the state at t + kP is that
 * at t for t >= the repeat's first snapshot); the older ones go. */
void steady__ring_shift(ring *rg, int e, double dt, double k, const GArray *dc, const GArray *dl)
{
    for (int x = 0; x < e; x++)
        steady__snap_free(rg->s[x]);
    memmove(rg->s, rg->s + e, (size_t)(rg->n - e) * sizeof rg->s[0]);
    rg->n -= e;
    for (int x = 0; x < rg->n; x++) {
        snap *s = rg->s[x];
        s->t += dt;
        for (guint i = 0; i < s->ctr->len; i++)
            steady__ctr_add(&g_array_index(s->ctr, job_counters, i),
                            &g_array_index(dc, job_counters, i), k);
        for (guint i = 0; i < s->lst->len; i++)
            steady__lst_add(&g_array_index(s->lst, net_link_stats, i),
                            &g_array_index(dl, net_link_stats, i), k);
    }
}

/* Move the whole group dt ahead: its events, transfers and links delayed
 * by dt, each member's counters advanced by dc[i], each group link's by
 * dl[i].  The metrics' busy step function keeps the members busy now busy
 * for dt (their busy-off events moved or beyond dt): the difference to
 * what they did goes in as a ramp over the jump.  act, bytes (NULL: all
 * moves): what each value of the snapshot S taken now does
 * (job_phase_delay), for a repeat modulo long transfers; what the
 * scheduler's hook keeps about each member moves whole (env.hook_delay). */
void steady__jump(steady *st, group *g, double dt, double now_s, const job_counters *dc,
                  const net_link_stats *dl, const snap *S, const uint8_t *act,
                  const double *bytes)
{
    net_flush(st->env.n);
    double busy_now = 0, lump = 0;
    for (guint i = 0; i < g->members->len; i++) {
        job *m = g_ptr_array_index(g->members, i);
        busy_now += job_busy_gpus(m);
        lump += dc[i].busy_gpu_s;
        guint off = act ? g_array_index(S->off, guint, i) : 0;
        job_phase_delay(m, dt, &dc[i], act ? act + off : NULL, bytes ? bytes + off : NULL);
        if (st->env.hook_delay)
            st->env.hook_delay(st->env.user, steady__rec(st, m)->slot, dt);
    }
    net_links_delay(st->env.n, (const net_link_id *)(void *)g->links->data, g->links->len, dl,
                    dt);
    metrics_busy_ramp(st->env.m, now_s, now_s + dt, lump - busy_now * dt);
}

