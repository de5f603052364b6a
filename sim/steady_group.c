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
 * k times the last period's increments to every counter.
 */
#include <math.h>
#include <string.h>

#include "replay-private.h"

/* Snapshots kept per group: a period may span this many anchor
 * iterations. */
#define RING 8
/* Anchor boundaries without a repeat after which a group gives up until
 * the next change (counted in run.json: steady_group_fallbacks). */
#define BUDGET 64

typedef struct snap {
    double t;     /* the anchor boundary */
    GArray *vals; /* phase_val: the anchor's next start, then each member's phase */
    GArray *ctr;  /* job_counters per member */
    GArray *lst;  /* net_link_stats per group link */
} snap;

typedef struct steady_group {
    GPtrArray *members; /* job*, arrival order */
    GArray *links;      /* uint32: the members' plan links, each once */
    job *anchor;
    snap *ring[RING];   /* oldest first */
    int n_ring;
    int boundaries;     /* anchor boundaries since the last repeat or change */
    bool gave_up;
    bool open;          /* a job runs as alone (steady.c) on a link of it: no skips */
} group;

struct steady_groups {
    GPtrArray *groups;  /* group* */
    uint32_t *first;    /* per link: the first running job (slot) using it, or NONE */
    uint32_t *uf;       /* union-find parents over running slots */
    size_t cap_uf;
};

#define NONE UINT32_MAX

static snap *snap_new(void)
{
    snap *s = g_new0(snap, 1);
    s->vals = g_array_new(FALSE, FALSE, sizeof(phase_val));
    s->ctr = g_array_new(FALSE, FALSE, sizeof(job_counters));
    s->lst = g_array_new(FALSE, FALSE, sizeof(net_link_stats));
    return s;
}

static void snap_free(snap *s)
{
    if (!s)
        return;
    g_array_free(s->vals, TRUE);
    g_array_free(s->ctr, TRUE);
    g_array_free(s->lst, TRUE);
    g_free(s);
}

static void group_free(gpointer p)
{
    group *g = p;
    g_ptr_array_free(g->members, TRUE);
    g_array_free(g->links, TRUE);
    for (int i = 0; i < g->n_ring; i++)
        snap_free(g->ring[i]);
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
static group *group_of_root(GHashTable *by_root, GPtrArray *groups, uint32_t root)
{
    group *g = g_hash_table_lookup(by_root, GUINT_TO_POINTER(root + 1));
    if (!g) {
        g = g_new0(group, 1);
        g->members = g_ptr_array_new();
        g->links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_ptr_array_add(groups, g);
        g_hash_table_insert(by_root, GUINT_TO_POINTER(root + 1), g);
    }
    return g;
}

static gint cmp_u32(gconstpointer a, gconstpointer b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
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
    g_ptr_array_set_size(sg->groups, 0);
    guint n = r->running->len;
    if (n > sg->cap_uf) {
        sg->cap_uf = 2 * n;
        sg->uf = g_renew(uint32_t, sg->uf, sg->cap_uf);
    }
    unite(r, sg);
    g_autoptr(GHashTable) by_root = g_hash_table_new(g_direct_hash, g_direct_equal);
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    for (guint i = 0; i < n; i++) {
        job *j = g_ptr_array_index(r->running, i);
        j->steady_group = NULL;
        if (j->isolated || !j->plan)
            continue; /* see below */
        group *g = group_of_root(by_root, sg->groups, uf_find(sg->uf, i));
        g_ptr_array_add(g->members, j);
        j->steady_group = g;
        if (!g->anchor || j->isolated_iter_s > g->anchor->isolated_iter_s)
            g->anchor = j;
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
                       ? g_hash_table_lookup(by_root, GUINT_TO_POINTER(uf_find(sg->uf, i) + 1))
                       : NULL;
        if (g)
            g->open = true;
    }
    for (guint i = 0; i < sg->groups->len; i++) {
        group *g = g_ptr_array_index(sg->groups, i);
        g_array_sort(g->links, cmp_u32);
    }
}

/* Groups are allowed in this run at all: as stretches (steady.c), and no
 * on_comm hook (its decisions could depend on the phases, and it is called
 * at every phase start and end, which a skip does not replay). */
static bool groups_allowed(const struct replay *r)
{
    return r->cfg->sim.fast_forward && r->cfg->sim.mode == CONFIG_MODE_WINDOW && !r->env.ideal &&
           !r->ops->on_comm;
}

/* Every member runs on the event path and its transfers use only group
 * links (a transfer started before a path change keeps its old links). */
static bool group_closed(const struct replay *r, const group *g)
{
    net_link_id buf[64];
    for (guint i = 0; i < g->members->len; i++) {
        const job *m = g_ptr_array_index(g->members, i);
        if (m->ffwd || m->state != JOB_RUNNING)
            return false;
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

static void capture(const struct replay *r, const group *g, double origin_s, double now_s,
                    snap *s)
{
    double tol = time_tol(g, now_s);
    s->t = now_s;
    g_array_set_size(s->vals, 0);
    g_array_set_size(s->ctr, g->members->len);
    g_array_set_size(s->lst, g->links->len);
    phase_val origin = {origin_s - now_s, tol};
    g_array_append_val(s->vals, origin);
    for (guint i = 0; i < g->members->len; i++) {
        const job *m = g_ptr_array_index(g->members, i);
        job_phase_capture(m, now_s, tol, m == g->anchor, s->vals);
        job_phase_counters(m, now_s, &g_array_index(s->ctr, job_counters, i));
    }
    for (guint k = 0; k < g->links->len; k++)
        net_link_stats_peek(r->n, g_array_index(g->links, uint32_t, k),
                            &g_array_index(s->lst, net_link_stats, k));
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
static int find_repeat(const group *g, const snap *s)
{
    for (int i = g->n_ring - 1; i >= 0; i--)
        if (same_phase(g->ring[i], s))
            return i;
    return -1;
}

/* Keep s as the newest snapshot (the oldest one goes when the ring is full). */
static void ring_push(group *g, snap *s)
{
    if (g->n_ring == RING) {
        snap_free(g->ring[0]);
        memmove(g->ring, g->ring + 1, (RING - 1) * sizeof g->ring[0]);
        g->n_ring--;
    }
    g->ring[g->n_ring++] = s;
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
static int64_t periods_before(double now_s, double P, double u)
{
    if (!(P > 0) || !(u > now_s))
        return 0;
    double kf = floor((u - now_s) / P);
    int64_t k = kf > 1e12 ? (int64_t)1e12 : (int64_t)kf;
    while (k > 0 && now_s + (double)k * P >= u)
        k--;
    return k;
}

static void ctr_add(job_counters *to, const job_counters *a, const job_counters *b, double k)
{
    to->iterations += (int64_t)k * (a->iterations - b->iterations);
    to->iter_time_sum_s += k * (a->iter_time_sum_s - b->iter_time_sum_s);
    to->busy_gpu_s += k * (a->busy_gpu_s - b->busy_gpu_s);
}

static void lst_add(net_link_stats *to, const net_link_stats *a, const net_link_stats *b,
                    double k)
{
    to->carried_bytes += k * (a->carried_bytes - b->carried_bytes);
    to->busy_s += k * (a->busy_s - b->busy_s);
    to->tagged_bytes += k * (a->tagged_bytes - b->tagged_bytes);
}

/* The snapshots from e on describe times a whole number of periods
 * before the group's new present: move them dt later, counters k periods
 * on (by periodicity, the state at t + kP is that at t for t >= the
 * repeat's first snapshot); the older ones go. */
static void ring_shift(group *g, int e, double dt, double k)
{
    const snap *E = g->ring[e], *S = g->ring[g->n_ring - 1];
    g_autoptr(GArray) dc = g_array_new(FALSE, TRUE, sizeof(job_counters));
    g_autoptr(GArray) dl = g_array_new(FALSE, TRUE, sizeof(net_link_stats));
    g_array_set_size(dc, S->ctr->len);
    g_array_set_size(dl, S->lst->len);
    for (guint i = 0; i < S->ctr->len; i++)
        ctr_add(&g_array_index(dc, job_counters, i), &g_array_index(S->ctr, job_counters, i),
                &g_array_index(E->ctr, job_counters, i), k);
    for (guint i = 0; i < S->lst->len; i++)
        lst_add(&g_array_index(dl, net_link_stats, i), &g_array_index(S->lst, net_link_stats, i),
                &g_array_index(E->lst, net_link_stats, i), k);
    for (int x = 0; x < e; x++)
        snap_free(g->ring[x]);
    memmove(g->ring, g->ring + e, (size_t)(g->n_ring - e) * sizeof g->ring[0]);
    g->n_ring -= e;
    for (int x = 0; x < g->n_ring; x++) {
        snap *s = g->ring[x];
        s->t += dt;
        for (guint i = 0; i < s->ctr->len; i++)
            ctr_add(&g_array_index(s->ctr, job_counters, i), &g_array_index(dc, job_counters, i),
                    &(job_counters){0}, 1.0);
        for (guint i = 0; i < s->lst->len; i++)
            lst_add(&g_array_index(s->lst, net_link_stats, i),
                    &g_array_index(dl, net_link_stats, i), &(net_link_stats){0}, 1.0);
    }
}

/* Move the whole group k periods (dt = kP) ahead: its events, transfers
 * and links delayed by dt, every counter advanced by k times the last
 * period's increment (snapshot e to the newest).  The metrics' busy step
 * function keeps the members busy now busy for dt (their busy-off events
 * moved): the difference to what they did goes in as a lump. */
static void skip(struct replay *r, group *g, int e, int64_t k, double dt, double now_s)
{
    const snap *E = g->ring[e], *S = g->ring[g->n_ring - 1];
    net_flush(r->n);
    double busy_now = 0, lump = 0;
    for (guint i = 0; i < g->members->len; i++) {
        job *m = g_ptr_array_index(g->members, i);
        if (!isnan(m->busy_since_s))
            busy_now += m->spec.gpus;
        job_counters add = {0};
        ctr_add(&add, &g_array_index(S->ctr, job_counters, i),
                &g_array_index(E->ctr, job_counters, i), (double)k);
        lump += add.busy_gpu_s;
        r->group_skip_iters += (uint64_t)add.iterations;
        job_phase_delay(m, dt, &add);
    }
    g_autoptr(GArray) add = g_array_new(FALSE, TRUE, sizeof(net_link_stats));
    g_array_set_size(add, g->links->len);
    for (guint i = 0; i < g->links->len; i++)
        lst_add(&g_array_index(add, net_link_stats, i), &g_array_index(S->lst, net_link_stats, i),
                &g_array_index(E->lst, net_link_stats, i), (double)k);
    net_links_delay(r->n, (const net_link_id *)(void *)g->links->data, g->links->len,
                    (const net_link_stats *)(void *)add->data, dt);
    metrics_busy_ramp(r->m, now_s, now_s + dt, lump - busy_now * dt);
    ring_shift(g, e, dt, (double)k);
    r->group_skips++;
}

double replay__group_boundary(void *user, job *j, double origin_s, double now_s)
{
    struct replay *r = user;
    if (!groups_allowed(r))
        return 0;
    if (r->steady_stale)
        replay__steady_update(r);
    group *g = j->steady_group;
    if (!g || g->anchor != j || g->gave_up || g->open || g->members->len < 2 ||
        !group_closed(r, g))
        return 0;
    snap *s = snap_new();
    capture(r, g, origin_s, now_s, s);
    int e = find_repeat(g, s);
    if (e < 0) {
        if (++g->boundaries >= BUDGET) {
            g->gave_up = true;
            r->group_fallbacks++;
        }
        ring_push(g, s);
        return 0;
    }
    r->group_repeats++;
    g->boundaries = 0;
    if (g->n_ring == RING) /* the ring drops its oldest entry for s */
        e--;
    ring_push(g, s);
    if (e < 0)
        return 0;
    double P = now_s - g->ring[e]->t;
    int64_t k = periods_before(now_s, P, next_change(r));
    if (k < 1)
        return 0;
    double dt = (double)k * P;
    skip(r, g, e, k, dt, now_s);
    return dt;
}
