/* steady_group.c - groups of running jobs that share links, their repeats,
 * and the skip of whole repeats (docs/engine.md §5c).
 * Not here: jobs alone (steady_links.c, §5b), the snapshots and the jump
 * (steady_snap.c), a job's phase (sim/job_phase.c).
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

#include "steady-private.h"

/* Anchor boundaries without a repeat after which a group gives up until
 * the next change (counted in run.json: steady_group_fallbacks). */
#define BUDGET 64

static void group_free(gpointer p)
{
    group *g = p;
    g_ptr_array_free(g->members, TRUE);
    g_array_free(g->links, TRUE);
    steady__ring_clear(&g->slow);
    steady__ring_clear(&g->quick);
    steady__ring_clear(&g->rates);
    g_array_free(g->prio, TRUE);
    if (g->carried)
        g_array_free(g->carried, TRUE);
    if (g->gaps)
        g_array_free(g->gaps, TRUE);
    g_free(g);
}

void steady__groups_free(steady *s)
{
    if (s->groups)
        g_ptr_array_free(s->groups, TRUE);
    g_free(s->first);
    g_free(s->uf);
}

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* Union the running jobs that share a link; first[] is left all NONE. */
static void unite(steady *s)
{
    guint n = s->env.running->len;
    const uint32_t *all = (const uint32_t *)(void *)s->links->data;
    for (guint i = 0; i < n; i++)
        s->uf[i] = i;
    for (guint i = 0; i < n; i++) {
        guint a, b;
        steady__job_links(s, i, &a, &b);
        for (guint k = a; k < b; k++) {
            uint32_t e = all[k];
            if (s->first[e] == NONE)
                s->first[e] = i;
            else
                s->uf[uf_find(s->uf, i)] = uf_find(s->uf, s->first[e]);
        }
    }
    for (guint k = 0; k < s->links->len; k++)
        s->first[all[k]] = NONE;
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
 * decisions for a group depend on the group alone (hints.grouped) or it
 * says which jobs it ignores (hints.ignores: groups of those only). */
bool steady__groups_allowed(const steady *s)
{
    const steady_env *e = &s->env;
    return e->fast_forward && e->window_mode && !e->ideal &&
           (!e->hook || e->hints.grouped || e->hints.ignores);
}

/* Running job j (slot i) joins its group (by_root) unless it runs as
 * alone or has no plan. */
static void join(steady *s, group **by_root, job *j, guint i)
{
    steady_job *rj = steady__rec(s, j);
    rj->group = NULL;
    if (rj->isolated || job_comm_plan_count(j) == 0)
        return; /* see open_groups */
    const uint32_t *all = (const uint32_t *)(void *)s->links->data;
    group *g = group_of_root(by_root, s->groups, uf_find(s->uf, i));
    g_ptr_array_add(g->members, j);
    g_array_append_val(g->prio, j->priority);
    rj->group = g;
    if (!g->anchor || j->isolated_iter_s > g->anchor->isolated_iter_s)
        g->anchor = j;
    if (!g->fast || j->isolated_iter_s < g->fast->isolated_iter_s)
        g->fast = j;
    guint a, b;
    steady__job_links(s, i, &a, &b);
    for (guint k = a; k < b; k++)
        if (s->first[all[k]] == NONE) {
            s->first[all[k]] = 0;
            g_array_append_val(g->links, all[k]);
        }
}

/* The groups that may not skip: one with a job that runs as alone but
 * shares an (unsaturable) link with it uses that link too (the group's
 * links are not the group's own); under a hook that is not grouped, one
 * with a member the hook does not ignore (cassini: a member with a
 * target). */
static void open_groups(steady *s, group **by_root)
{
    GPtrArray *running = s->env.running;
    guint n = running->len;
    for (guint i = 0; i < n; i++) {
        job *j = g_ptr_array_index(running, i);
        const steady_job *rj = steady__rec(s, j);
        group *g = rj->isolated && job_comm_plan_count(j) > 0 && rj->shares_links
                       ? by_root[uf_find(s->uf, i)]
                       : NULL;
        if (g)
            g->open = true;
    }
    const steady_env *e = &s->env;
    for (guint i = 0; i < n && e->hook && !e->hints.grouped; i++) {
        const steady_job *rj = steady__rec(s, g_ptr_array_index(running, i));
        if (rj->group && !(e->ignores && e->ignores(e->user, i)))
            rj->group->open = true;
    }
}

/* g->prio from the members' levels to their ranks among them (0 the
 * highest, equal levels one rank): the strict-priority max-min allocation
 * depends on the levels of jobs that share links only through their
 * order, ties included (docs/engine.md §4, relabeling), so a group whose
 * members keep their order keeps its rates (steady__keep_rates) when a
 * scheduler that gives every job its own level renumbers them all. */
static void level_ranks(group *g)
{
    guint n = g->prio->len;
    g_autofree int *lv = g_memdup2(g->prio->data, n * sizeof(int));
    for (guint i = 0; i < n; i++) {
        int rank = 0;
        for (guint k = 0; k < n; k++)
            rank += lv[k] < lv[i];
        g_array_index(g->prio, int, i) = rank;
    }
}

void steady__groups_update(steady *s)
{
    size_t L = topo_link_count(s->env.t);
    if (!s->groups) {
        s->groups = g_ptr_array_new_with_free_func(group_free);
        s->first = g_new(uint32_t, L ? L : 1);
        for (size_t e = 0; e < L; e++)
            s->first[e] = NONE;
    }
    g_autoptr(GPtrArray) old = s->groups;
    s->groups = g_ptr_array_new_with_free_func(group_free);
    GPtrArray *running = s->env.running;
    guint n = running->len;
    if (n > s->cap_uf) {
        s->cap_uf = 2 * n;
        s->uf = g_renew(uint32_t, s->uf, s->cap_uf);
    }
    unite(s);
    g_autofree group **by_root = g_new0(group *, n ? n : 1); /* per union-find root */
    for (guint i = 0; i < n; i++)
        join(s, by_root, g_ptr_array_index(running, i), i);
    const uint32_t *all = (const uint32_t *)(void *)s->links->data;
    for (guint k = 0; k < s->links->len; k++)
        s->first[all[k]] = NONE;
    open_groups(s, by_root);
    for (guint i = 0; i < s->groups->len; i++) {
        group *g = g_ptr_array_index(s->groups, i);
        g_array_sort(g->links, cmp_u32);
        level_ranks(g);
        if (!s->env.approx)
            continue;
        steady__keep_rates(g, old);
        double now = evq_now(s->env.q);
        if (g->rates.n == 0)
            steady__carry_rates(s, g, old, now);
        if (g->rates.n == 0 && g->members->len >= 2 && now < s->env.end_s &&
            steady__groups_allowed(s))
            steady__rates_open(s, g, now);
    }
}

/* Every member runs on the event path and its transfers use only group
 * links (a transfer started before a path change keeps its old links;
 * once none is left, new ones take the plan's links until the next
 * change rebuilds the groups: that part is checked until it holds). */
static bool group_closed(const steady *s, group *g)
{
    net_link_id buf[64];
    for (guint i = 0; i < g->members->len; i++)
        if (!job_on_event_path(g_ptr_array_index(g->members, i)))
            return false;
    if (g->links_own)
        return true;
    for (guint i = 0; i < g->members->len; i++) {
        const job *m = g_ptr_array_index(g->members, i);
        for (size_t x = 0; x < job_transfer_count(m); x++) {
            net_transfer_id id = job_transfer_get(m, x);
            size_t nl = net_transfer_links(s->env.n, id, buf, G_N_ELEMENTS(buf));
            g_autofree net_link_id *big = nl > G_N_ELEMENTS(buf) ? g_new(net_link_id, nl) : NULL;
            if (big)
                net_transfer_links(s->env.n, id, big, nl);
            for (size_t k = 0; k < nl; k++)
                if (!g_array_binary_search(g->links, big ? &big[k] : &buf[k], cmp_u32, NULL))
                    return false;
        }
    }
    g->links_own = true;
    return true;
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

/* k periods (dt = kP) of rg's repeat from snapshot e to the newest: every
 * counter advances by k times the period's increment.  act, bytes: as
 * jump's, for a repeat modulo long transfers (the snapshots then no
 * longer describe the group's past). */
static void skip(steady *s, group *g, ring *rg, int e, int64_t k, double dt,
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
        steady__ctr_add(&g_array_index(tc, job_counters, i), &g_array_index(dc, job_counters, i),
                        (double)k);
        s->c.group_skip_iters += (uint64_t)g_array_index(tc, job_counters, i).iterations;
    }
    for (guint i = 0; i < dl->len; i++)
        steady__lst_add(&g_array_index(tl, net_link_stats, i),
                        &g_array_index(dl, net_link_stats, i), (double)k);
    steady__jump(s, g, dt, now_s, (const job_counters *)(void *)tc->data,
         (const net_link_stats *)(void *)tl->data, S, act, bytes);
    if (act) {
        steady__ring_clear(&g->slow);
        steady__ring_clear(&g->quick);
        s->c.group_drift_skips++;
    } else {
        steady__ring_shift(rg, e, dt, (double)k, dc, dl);
        steady__ring_clear(&g->quick);
    }
    s->c.group_skips++;
}

/* An exact repeat at the anchor's boundary (s its snapshot, kept in the
 * slow ring): the skip's length, or 0. */
static double exact_step(steady *st, group *g, snap *s, double now_s)
{
    ring *rg = &g->slow;
    int e = find_repeat(rg, s);
    if (e < 0) {
        if (++rg->boundaries >= BUDGET) {
            rg->gave_up = true;
            st->c.group_fallbacks++;
        }
        steady__ring_push(rg, s);
        return 0;
    }
    st->c.group_repeats++;
    rg->boundaries = 0;
    if (rg->n == RING) /* the ring drops its oldest entry for s */
        e--;
    steady__ring_push(rg, s);
    if (e < 0)
        return 0;
    double P = now_s - rg->s[e]->t;
    int64_t k = steady__periods_before(now_s, P, steady__next_change(st, true));
    if (k < 1)
        return 0;
    double dt = (double)k * P;
    skip(st, g, rg, e, k, dt, now_s, NULL, NULL);
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
 * stays: act PHASE_STAY; an event's must lie beyond the skip), a
 * transfer's remaining bytes by the same amount each period
 * (PHASE_PROGRESS, per[i] the bytes per period).  Returns the most periods
 * from c that keep every staying time beyond them and every progressing
 * transfer's remaining bytes above 0 (with a margin of 1e-6 of its size),
 * or -1 if c is no such repeat. */
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
static double drift_step(steady *s, group *g, ring *rg, double now_s)
{
    snap *c = rg->s[rg->n - 1];
    g_autofree uint8_t *act = g_new(uint8_t, c->vals->len);
    g_autofree double *per = g_new0(double, c->vals->len);
    for (int p = 1; p <= DRIFT_SPAN && rg->n - 1 - 2 * p >= 0; p++) {
        const snap *a = rg->s[rg->n - 1 - 2 * p], *b = rg->s[rg->n - 1 - p];
        double P = c->t - b->t;
        if (!(fabs(b->t - a->t - P) <= steady__time_tol(g, now_s)))
            continue;
        int64_t kd = drift_match(a, b, c, P, act, per);
        if (kd < 0)
            continue;
        g->drift_boundaries = 0;
        int64_t k = MIN(kd, steady__periods_before(now_s, P, steady__next_change(s, true)));
        if (k < DRIFT_MIN_K + !b->has_links)
            return 0;
        /* the links' counters are read only here (a group's links are many):
         * c can start a skip at the next boundary */
        if (!c->has_links)
            steady__capture_links(s, g, c);
        if (!b->has_links)
            return 0;
        for (guint i = 0; i < c->vals->len; i++)
            per[i] *= (double)k;
        double dt = (double)k * P;
        skip(s, g, rg, rg->n - 1 - p, k, dt, now_s, act, per);
        return dt;
    }
    if (++g->drift_boundaries >= BUDGET)
        g->drift_gave_up = true;
    return 0;
}

double steady__group_boundary(steady *s, job *j, double origin_s, double now_s)
{
    group *g = steady__rec(s, j)->group;
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
    bool approx = s->env.approx;
    if (!(exact || drift || approx) || !group_closed(s, g))
        return 0;
    if (approx && j == g->anchor)
        steady__rates_push(s, g, now_s);
    double dt = 0;
    if (exact || drift) {
        ring *rg = j == g->anchor ? &g->slow : &g->quick;
        snap *sn = steady__snap_new();
        steady__capture(s, g, j, origin_s, now_s, sn);
        if (exact)
            steady__capture_links(s, g, sn);
        if (exact)
            dt = exact_step(s, g, sn, now_s);
        else
            steady__ring_push(rg, sn);
        if (dt == 0 && drift)
            dt = drift_step(s, g, rg, now_s);
    }
    if (dt == 0 && approx)
        dt = steady__approx_step(s, g, now_s);
    return dt;
}
