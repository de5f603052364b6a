/* steady_group.c - groups of running jobs that share links, their repeats,
 * and the skip of whole repeats (docs/engine.md §5c).
 * Not here: jobs alone (steady.c, §5b), a job's phase (job_phase.c).
 *
 * The rule.  A group is a connected component of the relation "the plans
 * of two running jobs share a link".  Nobody outside a group touches its
 * links, so between two changes (an arrival, an end, a reschedule, an
 * interval tick, the window's end) the group is a closed deterministic
 * system.  At each iteration boundary of its anchor (the member with the
 * longest isolated iteration) the group's state relative to that time is
 * snapshotted: every member's phase (job_phase_capture), counters and the
 * group links' counters.  When the state equals that of an earlier
 * snapshot (within the tolerances of job_phase_capture), the group has a
 * period P = the time between the two, and everything it does in the next
 * period is what it did in the last: the skip moves the whole group k
 * periods ahead (k the largest with now + kP < the next change) and adds
 * k times the last period's increments to every counter.  At the
 * boundaries of its fast member (the shortest isolated iteration) it also
 * looks for repeats modulo long transfers: everything repeats but a long
 * member's transfer carrying the same bytes each period and its events
 * staying where they are (drift_match).
 */
#include <math.h>
#include <string.h>

#include "replay-private.h"
#include "steady-private.h"

/* Anchor boundaries without a repeat after which a group gives up until
 * the next change (counted in run.json: steady_group_fallbacks). */
#define BUDGET 64

struct steady_groups {
    GPtrArray *groups;  /* group* */
    uint32_t *first;    /* per link: the first running job (slot) using it, or NONE */
    uint32_t *uf;       /* union-find parents over running slots */
    size_t cap_uf;
};

#define NONE UINT32_MAX

snap *steady__snap_new(void)
{
    snap *s = g_new0(snap, 1);
    s->vals = g_array_new(FALSE, FALSE, sizeof(phase_val));
    s->off = g_array_new(FALSE, FALSE, sizeof(guint));
    s->ctr = g_array_new(FALSE, FALSE, sizeof(job_counters));
    s->lst = g_array_new(FALSE, FALSE, sizeof(net_link_stats));
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
    g_free(s);
}

void steady__ring_clear(ring *rg)
{
    for (int i = 0; i < rg->n; i++)
        steady__snap_free(rg->s[i]);
    rg->n = 0;
}

static void group_free(gpointer p)
{
    group *g = p;
    g_ptr_array_free(g->members, TRUE);
    g_array_free(g->links, TRUE);
    steady__ring_clear(&g->slow);
    steady__ring_clear(&g->quick);
    steady__ring_clear(&g->rates);
    g_array_free(g->prio, TRUE);
    g_free(g);
}

void replay__groups_free(struct steady_groups *sg)
{
    if (!sg)
        return;
    g_ptr_array_free(sg->groups, TRUE);
    g_free(sg->first);
    g_free(sg->uf);
    g_free(sg);
}

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* Slot i's links in steady_links (steady.c's layout). */
static void job_links(const struct replay *r, guint i, guint *a, guint *b)
{
    guint n = r->steady_off->len;
    *a = g_array_index(r->steady_off, guint, i);
    *b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : r->steady_links->len;
}

/* Union the running jobs that share a link; first[] is left all NONE. */
static void unite(struct replay *r, struct steady_groups *sg)
{
    guint n = r->running->len;
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    for (guint i = 0; i < n; i++)
        sg->uf[i] = i;
    for (guint i = 0; i < n; i++) {
        guint a, b;
        job_links(r, i, &a, &b);
        for (guint k = a; k < b; k++) {
            uint32_t e = all[k];
            if (sg->first[e] == NONE)
                sg->first[e] = i;
            else
                sg->uf[uf_find(sg->uf, i)] = uf_find(sg->uf, sg->first[e]);
        }
    }
    for (guint k = 0; k < r->steady_links->len; k++)
        sg->first[all[k]] = NONE;
}

/* The group of slot i's root, created on first use (by root's index). */
static group *group_of_root(group **by_root, GPtrArray *groups, uint32_t root)
{
    group *g = by_root[root];
    if (!g) {
        g = g_new0(group, 1);
        g->members = g_ptr_array_new();
        g->links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g->prio = g_array_new(FALSE, FALSE, sizeof(int));
        g_ptr_array_add(groups, g);
        by_root[root] = g;
    }
    return g;
}

static gint cmp_u32(gconstpointer a, gconstpointer b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Groups are allowed in this run at all: as stretches (steady.c), and no
 * on_comm hook (its decisions could depend on the phases, and it is called
 * at every phase start and end, which a skip does not replay) unless its
 * decisions for a group depend on the group alone (on_comm_grouped) or it
 * says which jobs it ignores (on_comm_ignores: groups of those only). */
static bool groups_allowed(const struct replay *r)
{
    return r->cfg->sim.fast_forward && r->cfg->sim.mode == CONFIG_MODE_WINDOW && !r->env.ideal &&
           (!r->ops->on_comm || r->ops->on_comm_grouped || r->ops->on_comm_ignores);
}

void replay__groups_update(struct replay *r)
{
    size_t L = topo_link_count(r->t);
    struct steady_groups *sg = r->groups;
    if (!sg) {
        sg = r->groups = g_new0(struct steady_groups, 1);
        sg->groups = g_ptr_array_new_with_free_func(group_free);
        sg->first = g_new(uint32_t, L ? L : 1);
        for (size_t e = 0; e < L; e++)
            sg->first[e] = NONE;
    }
    g_autoptr(GPtrArray) old = sg->groups;
    sg->groups = g_ptr_array_new_with_free_func(group_free);
    guint n = r->running->len;
    if (n > sg->cap_uf) {
        sg->cap_uf = 2 * n;
        sg->uf = g_renew(uint32_t, sg->uf, sg->cap_uf);
    }
    unite(r, sg);
    g_autofree group **by_root = g_new0(group *, n ? n : 1); /* per union-find root */
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    for (guint i = 0; i < n; i++) {
        job *j = g_ptr_array_index(r->running, i);
        j->steady_group = NULL;
        if (j->isolated || !j->plan)
            continue; /* see below */
        group *g = group_of_root(by_root, sg->groups, uf_find(sg->uf, i));
        g_ptr_array_add(g->members, j);
        g_array_append_val(g->prio, j->priority);
        j->steady_group = g;
        if (!g->anchor || j->isolated_iter_s > g->anchor->isolated_iter_s)
            g->anchor = j;
        if (!g->fast || j->isolated_iter_s < g->fast->isolated_iter_s)
            g->fast = j;
        guint a, b;
        job_links(r, i, &a, &b);
        for (guint k = a; k < b; k++)
            if (sg->first[all[k]] == NONE) {
                sg->first[all[k]] = 0;
                g_array_append_val(g->links, all[k]);
            }
    }
    for (guint k = 0; k < r->steady_links->len; k++)
        sg->first[all[k]] = NONE;
    /* a job that runs as alone but shares an (unsaturable) link with a
     * group uses that link too: the group's links are not the group's own */
    for (guint i = 0; i < n; i++) {
        job *j = g_ptr_array_index(r->running, i);
        group *g = j->isolated && j->plan && j->shares_links
                       ? by_root[uf_find(sg->uf, i)]
                       : NULL;
        if (g)
            g->open = true;
    }
    /* under a hook that is not on_comm_grouped, a group skips only if the
     * hook ignores every member (cassini: none has a target) */
    for (guint i = 0; i < n && r->ops->on_comm && !r->ops->on_comm_grouped; i++) {
        job *j = g_ptr_array_index(r->running, i);
        if (j->steady_group &&
            !(r->ops->on_comm_ignores && r->ops->on_comm_ignores(r->sched, &r->ctx, i)))
            j->steady_group->open = true;
    }
    for (guint i = 0; i < sg->groups->len; i++) {
        group *g = g_ptr_array_index(sg->groups, i);
        g_array_sort(g->links, cmp_u32);
        if (r->cfg->sim.steady != CONFIG_STEADY_APPROX)
            continue;
        steady__keep_rates(g, old);
        double now = evq_now(r->q);
        if (g->rates.n == 0 && g->members->len >= 2 && now < r->sim_end_s && groups_allowed(r))
            steady__rates_open(r, g, now);
    }
}

/* Every member runs on the event path and its transfers use only group
 * links (a transfer started before a path change keeps its old links;
 * once none is left, new ones take the plan's links until the next
 * change rebuilds the groups: that part is checked until it holds). */
static bool group_closed(const struct replay *r, group *g)
{
    net_link_id buf[64];
    for (guint i = 0; i < g->members->len; i++) {
        const job *m = g_ptr_array_index(g->members, i);
        if (m->ffwd || m->state != JOB_RUNNING)
            return false;
    }
    if (g->links_own)
        return true;
    for (guint i = 0; i < g->members->len; i++) {
        const job *m = g_ptr_array_index(g->members, i);
        for (guint x = 0; x < m->active->len; x++) {
            net_transfer_id id = g_array_index(m->active, net_transfer_id, x);
            size_t nl = net_transfer_links(r->n, id, buf, G_N_ELEMENTS(buf));
            g_autofree net_link_id *big = nl > G_N_ELEMENTS(buf) ? g_new(net_link_id, nl) : NULL;
            if (big)
                net_transfer_links(r->n, id, big, nl);
            for (size_t k = 0; k < nl; k++)
                if (!g_array_binary_search(g->links, big ? &big[k] : &buf[k], cmp_u32, NULL))
                    return false;
        }
    }
    g->links_own = true;
    return true;
}

/* The time tolerance of a group's snapshots at t: 1e-9 of the anchor's
 * iteration, and never below the rounding of offsets taken at t (a few
 * ulps of t, ~1e-10 s at t = 1e6 s). */
static double time_tol(const group *g, double t)
{
    double ulp = nextafter(fabs(t), INFINITY) - fabs(t);
    return fmax(1e-9 * g->anchor->isolated_iter_s, 8.0 * ulp);
}

/* The group's state at now_s, a boundary of member at (origin_s: its next
 * iteration's start), but for the links' counters (capture_links). */
static void capture(const group *g, const job *at, double origin_s, double now_s, snap *s)
{
    double tol = time_tol(g, now_s);
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
        job_phase_counters(m, now_s, &g_array_index(s->ctr, job_counters, i));
    }
}

/* The group links' counters now, into s. */
void steady__capture_links(const struct replay *r, const group *g, snap *s)
{
    g_array_set_size(s->lst, g->links->len);
    for (guint k = 0; k < g->links->len; k++)
        net_link_stats_peek(r->n, g_array_index(g->links, uint32_t, k),
                            &g_array_index(s->lst, net_link_stats, k));
    s->has_links = true;
}

static bool same_phase(const snap *a, const snap *b)
{
    if (a->vals->len != b->vals->len)
        return false;
    const phase_val *x = (const phase_val *)(void *)a->vals->data;
    const phase_val *y = (const phase_val *)(void *)b->vals->data;
    for (guint i = 0; i < a->vals->len; i++)
        if (!(fabs(x[i].v - y[i].v) <= fmax(x[i].tol, y[i].tol)))
            return false;
    return true;
}

/* The newest earlier snapshot in the same phase as s, or -1. */
static int find_repeat(const ring *rg, const snap *s)
{
    for (int i = rg->n - 1; i >= 0; i--)
        if (same_phase(rg->s[i], s))
            return i;
    return -1;
}

/* Keep s as the newest snapshot (the oldest one goes when the ring is full). */
void steady__ring_push(ring *rg, snap *s)
{
    if (rg->n == RING) {
        steady__snap_free(rg->s[0]);
        memmove(rg->s, rg->s + 1, (RING - 1) * sizeof rg->s[0]);
        rg->n--;
    }
    rg->s[rg->n++] = s;
}

/* The next change the group must meet on the event path: an arrival, the
 * end of any running job (a member's own included), the window's end and
 * the next interval tick (a skip stays inside one interval, so its busy
 * time and link bytes belong to it whole). */
static double next_change(const struct replay *r)
{
    double u = fmin(fmin(r->end_min1, r->sim_end_s), r->next_tick_s);
    return fmin(u, replay__next_arrival_s(r));
}

/* Whole periods P from now that end strictly before u. */
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

static void ctr_add(job_counters *to, const job_counters *d, double k)
{
    to->iterations += (int64_t)k * d->iterations;
    to->iter_time_sum_s += k * d->iter_time_sum_s;
    to->busy_gpu_s += k * d->busy_gpu_s;
}

void steady__lst_add(net_link_stats *to, const net_link_stats *d, double k)
{
    to->carried_bytes += k * d->carried_bytes;
    to->busy_s += k * d->busy_s;
    to->tagged_bytes += k * d->tagged_bytes;
}

/* One period's increments, S - E: per member (dc) and per group link (dl). */
void steady__period_incr(const snap *E, const snap *S, GArray *dc, GArray *dl)
{
    g_array_set_size(dc, S->ctr->len);
    g_array_set_size(dl, S->lst->len);
    for (guint i = 0; i < S->ctr->len; i++) {
        const job_counters *a = &g_array_index(S->ctr, job_counters, i);
        const job_counters *b = &g_array_index(E->ctr, job_counters, i);
        g_array_index(dc, job_counters, i) =
            (job_counters){a->iterations - b->iterations, a->iter_time_sum_s - b->iter_time_sum_s,
                           a->busy_gpu_s - b->busy_gpu_s};
    }
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
            ctr_add(&g_array_index(s->ctr, job_counters, i), &g_array_index(dc, job_counters, i),
                    k);
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
 * (job_phase_delay), for a repeat modulo long transfers. */
void steady__jump(struct replay *r, group *g, double dt, double now_s, const job_counters *dc,
                 const net_link_stats *dl, const snap *S, const uint8_t *act, const double *bytes)
{
    net_flush(r->n);
    double busy_now = 0, lump = 0;
    for (guint i = 0; i < g->members->len; i++) {
        job *m = g_ptr_array_index(g->members, i);
        if (!isnan(m->busy_since_s))
            busy_now += m->spec.gpus;
        lump += dc[i].busy_gpu_s;
        guint off = act ? g_array_index(S->off, guint, i) : 0;
        job_phase_delay(m, dt, &dc[i], act ? act + off : NULL, bytes ? bytes + off : NULL);
    }
    net_links_delay(r->n, (const net_link_id *)(void *)g->links->data, g->links->len, dl, dt);
    metrics_busy_ramp(r->m, now_s, now_s + dt, lump - busy_now * dt);
}

/* k periods (dt = kP) of rg's repeat from snapshot e to the newest: every
 * counter advances by k times the period's increment.  act, bytes: as
 * jump's, for a repeat modulo long transfers (the snapshots then no
 * longer describe the group's past). */
static void skip(struct replay *r, group *g, ring *rg, int e, int64_t k, double dt,
                 double now_s, const uint8_t *act, const double *bytes)
{
    const snap *S = rg->s[rg->n - 1];
    g_autoptr(GArray) dc = g_array_new(FALSE, TRUE, sizeof(job_counters));
    g_autoptr(GArray) dl = g_array_new(FALSE, TRUE, sizeof(net_link_stats));
    steady__period_incr(rg->s[e], S, dc, dl);
    g_autoptr(GArray) tc = g_array_new(FALSE, TRUE, sizeof(job_counters));
    g_autoptr(GArray) tl = g_array_new(FALSE, TRUE, sizeof(net_link_stats));
    g_array_set_size(tc, dc->len);
    g_array_set_size(tl, dl->len);
    for (guint i = 0; i < dc->len; i++) {
        ctr_add(&g_array_index(tc, job_counters, i), &g_array_index(dc, job_counters, i),
                (double)k);
        r->group_skip_iters += (uint64_t)g_array_index(tc, job_counters, i).iterations;
    }
    for (guint i = 0; i < dl->len; i++)
        steady__lst_add(&g_array_index(tl, net_link_stats, i), &g_array_index(dl, net_link_stats, i),
                (double)k);
    steady__jump(r, g, dt, now_s, (const job_counters *)(void *)tc->data,
         (const net_link_stats *)(void *)tl->data, S, act, bytes);
    if (act) {
        steady__ring_clear(&g->slow);
        steady__ring_clear(&g->quick);
        r->group_drift_skips++;
    } else {
        steady__ring_shift(rg, e, dt, (double)k, dc, dl);
        steady__ring_clear(&g->quick);
    }
    r->group_skips++;
}

/* An exact repeat at the anchor's boundary (s its snapshot, kept in the
 * slow ring): the skip's length, or 0. */
static double exact_step(struct replay *r, group *g, snap *s, double now_s)
{
    ring *rg = &g->slow;
    int e = find_repeat(rg, s);
    if (e < 0) {
        if (++rg->boundaries >= BUDGET) {
            rg->gave_up = true;
            r->group_fallbacks++;
        }
        steady__ring_push(rg, s);
        return 0;
    }
    r->group_repeats++;
    rg->boundaries = 0;
    if (rg->n == RING) /* the ring drops its oldest entry for s */
        e--;
    steady__ring_push(rg, s);
    if (e < 0)
        return 0;
    double P = now_s - rg->s[e]->t;
    int64_t k = steady__periods_before(now_s, P, next_change(r));
    if (k < 1)
        return 0;
    double dt = (double)k * P;
    skip(r, g, rg, e, k, dt, now_s, NULL, NULL);
    return dt;
}

/* The largest k with x - k d > m (d > 0), at most INT64_MAX / 2. */
static int64_t below(double x, double d, double m)
{
    double kf = ceil((x - m) / d) - 1;
    if (!(kf >= 0))
        return -1;
    return kf > 1e12 ? (int64_t)1e12 : (int64_t)kf;
}

/* Three snapshots a, b, c, each P after the other: does every value of
 * c repeat b's as a's, or drift as its kind allows (docs/engine.md §5c,
 * modulo long transfers)?  A time offset may fall by P (its absolute time
 * stays: act PHASE_STAY; an event's must lie beyond the skip), a transfer's remaining bytes by the same amount
 * each period (PHASE_PROGRESS, per[i] the bytes per period).  Returns the
 * most periods from c that keep every staying time beyond them and every
 * progressing transfer's remaining bytes above 0 (with a margin of 1e-6
 * of its size), or -1 if c is no such repeat. */
static int64_t drift_match(const snap *a, const snap *b, const snap *c, double P, uint8_t *act,
                           double *per)
{
    guint n = c->vals->len;
    if (a->vals->len != n || b->vals->len != n)
        return -1;
    const phase_val *x = (const phase_val *)(void *)a->vals->data;
    const phase_val *y = (const phase_val *)(void *)b->vals->data;
    const phase_val *z = (const phase_val *)(void *)c->vals->data;
    int64_t kmax = (int64_t)1e12;
    for (guint i = 0; i < n; i++) {
        double tol = fmax(fmax(x[i].tol, y[i].tol), z[i].tol);
        bool eq = fabs(y[i].v - x[i].v) <= tol && fabs(z[i].v - y[i].v) <= tol;
        double d1 = y[i].v - x[i].v, d2 = z[i].v - y[i].v;
        act[i] = PHASE_MOVE;
        if (x[i].kind != z[i].kind || y[i].kind != z[i].kind)
            return -1;
        if (eq || z[i].kind == PHASE_DERIVED)
            continue;
        bool stays = fabs(d1 + P) <= tol && fabs(d2 + P) <= tol;
        if (z[i].kind == PHASE_SINCE && stays) {
            act[i] = PHASE_STAY; /* a busy or iteration start in the past */
        } else if (z[i].kind == PHASE_TIME && i > 0 && stays) {
            act[i] = PHASE_STAY; /* an event beyond c + kP: z > kP + tol */
            kmax = MIN(kmax, below(z[i].v, P, tol));
        } else if (z[i].kind == PHASE_REM && d2 < -tol && fabs(d1 - d2) <= tol) {
            act[i] = PHASE_PROGRESS;
            per[i] = -d2;
            kmax = MIN(kmax, below(z[i].v, -d2, 1e3 * tol));
        } else {
            return -1;
        }
    }
    return kmax;
}

/* Repeats spanning up to this many of the fast member's iterations are
 * looked for modulo long transfers. */
#define DRIFT_SPAN 3
/* The fewest periods a skip modulo long transfers takes: such a skip
 * reads, advances and freezes every group link's counters (thousands of
 * links on the trace's groups), which costs about as much as a few of
 * the fast member's periods of events. */
#define DRIFT_MIN_K 4

/* A repeat modulo long transfers at a boundary of the group's fast member
 * (rg's newest snapshot just taken): the skip's length, or 0.  The skip
 * needs the links' counters of b, read when b matched: the first match
 * only reads them, the next one skips. */
static double drift_step(struct replay *r, group *g, ring *rg, double now_s)
{
    snap *c = rg->s[rg->n - 1];
    g_autofree uint8_t *act = g_new(uint8_t, c->vals->len);
    g_autofree double *per = g_new0(double, c->vals->len);
    for (int p = 1; p <= DRIFT_SPAN && rg->n - 1 - 2 * p >= 0; p++) {
        const snap *a = rg->s[rg->n - 1 - 2 * p], *b = rg->s[rg->n - 1 - p];
        double P = c->t - b->t;
        if (!(fabs(b->t - a->t - P) <= time_tol(g, now_s)))
            continue;
        int64_t kd = drift_match(a, b, c, P, act, per);
        if (kd < 0)
            continue;
        g->drift_boundaries = 0;
        int64_t k = MIN(kd, steady__periods_before(now_s, P, next_change(r)));
        if (k < DRIFT_MIN_K + !b->has_links)
            return 0;
        /* the links' counters are read only here (a group's links are many):
         * c can start a skip at the next boundary */
        if (!c->has_links)
            steady__capture_links(r, g, c);
        if (!b->has_links)
            return 0;
        for (guint i = 0; i < c->vals->len; i++)
            per[i] *= (double)k;
        double dt = (double)k * P;
        skip(r, g, rg, rg->n - 1 - p, k, dt, now_s, act, per);
        return dt;
    }
    if (++g->drift_boundaries >= BUDGET)
        g->drift_gave_up = true;
    return 0;
}

double replay__group_boundary(void *user, job *j, double origin_s, double now_s)
{
    struct replay *r = user;
    if (!groups_allowed(r))
        return 0;
    if (r->steady_stale)
        replay__steady_update(r);
    group *g = j->steady_group;
    if (!g || g->open || g->members->len < 2 || (j != g->anchor && j != g->fast))
        return 0;
    if (j == g->anchor && j != g->fast && g->drift_gave_up) {
        /* the anchor moved on: its new phase may let the fast member repeat */
        g->drift_gave_up = false;
        g->drift_boundaries = 0;
        steady__ring_clear(&g->quick);
    }
    bool exact = j == g->anchor && !g->slow.gave_up;
    bool drift = j == g->fast && !g->drift_gave_up;
    bool approx = r->cfg->sim.steady == CONFIG_STEADY_APPROX;
    if (!(exact || drift || approx) || !group_closed(r, g))
        return 0;
    if (approx && j == g->anchor)
        steady__rates_push(r, g, now_s);
    double dt = 0;
    if (exact || drift) {
        ring *rg = j == g->anchor ? &g->slow : &g->quick;
        snap *s = steady__snap_new();
        capture(g, j, origin_s, now_s, s);
        if (exact)
            steady__capture_links(r, g, s);
        if (exact)
            dt = exact_step(r, g, s, now_s);
        else
            steady__ring_push(rg, s);
        if (dt == 0 && drift)
            dt = drift_step(r, g, rg, now_s);
    }
    if (dt == 0 && approx)
        dt = steady__approx_step(r, g, now_s);
    return dt;
}
