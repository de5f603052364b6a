/* steady.c - which running jobs run as alone, and until when one may run
 * a fast-forwarded stretch (docs/engine.md §5b).
 * Not here: the stretch itself (job_ffwd.c), the profile (ffwd.c), groups
 * that share links (steady_group.c).
 *
 * The rule.  A job that shares no link with any other running job runs
 * exactly as it would alone, and alone its iterations repeat with the
 * period T' of its current paths; so does a job whose shared links can
 * never be overfilled (the running jobs' bounds on each add up to at most
 * its capacity: the link changes no allocation).  Whether that holds
 * can change only when the running set or a path changes: at a job's
 * arrival or end (the reschedule after it) or when a scheduler moves a
 * path.  In window mode every arrival and end time is known in advance
 * (the trace), so at an iteration boundary the job may skip the whole
 * iterations that end before the next of them; it is back on the event
 * path when that change happens, and the scheduler sees it as it would
 * have.  A job sharing a link that can saturate runs so too, up to the
 * earliest time one of its peers there may start a transfer.  Under a
 * scheduler with an on_comm hook that ignores jobs sharing nothing
 * (sched_ops.on_comm_ignores_isolated), a job that shares links runs so
 * only where the scheduler says its hook ignores the job
 * (sched_ops.on_comm_ignores), or, for a hook that sees a job's phases
 * only through communicating jobs sharing a link with it
 * (sched_ops.on_comm_local), while none of those communicates.  Work
 * mode does not: there a job's end is its last iteration, known to no
 * one in advance.
 */
#include <math.h>

#include "replay-private.h"

/* The most job j can put on each link of its plan, its *bound* b_je
 * (docs/engine.md §5b), used only through "the running jobs' bounds on e
 * add up to at most C_e", so each must hold in every allocation x the
 * solver may give (every level's included: feasible, each link's load at
 * most its capacity), whatever the other jobs do.
 *
 * A job runs one step of its plan at a time, so b_je = max over steps of
 * a bound of the step's load on e.  Transfer i of the step moves at x_i,
 * putting m_if x_i on each link f of its own (m_if its multiplicity), so
 * x_i <= s_i = min_f C_f / m_if (its solo rate).  Give i a *covering link*
 * f*(i), an argmin of C_f / m_if (ties: the link carried by the most of
 * the step's transfers, then the lowest id), so s_i = C_f* / m_if*.  Split
 * the step's transfers on e into classes K by covering link f; for the
 * class, every i in K crosses f, and the job's own load on f is at most
 * C_f in any feasible allocation (the other jobs' loads are >= 0):
 *
 *   sum_{i in K} m_ie x_i = sum_{i in K} (m_ie / m_if) m_if x_i
 *                        <= (max_{i in K} m_ie / m_if) sum_{i in K} m_if x_i
 *                        <= ratio_K C_f,
 *
 * and also <= sum_{i in K} m_ie s_i.  So the step's load on e is at most
 * the sum over its classes of min(sum m_ie s_i, ratio_K C_f): channels of
 * one rail, which share their NICs, count one NIC's worth on an uplink
 * that two of them cross, not two.  Only feasibility is used, never what
 * the job would get alone: max-min is not monotone (a job can get more on
 * e when others take a link elsewhere), so the alone rates bound nothing.
 * Cost O(transfer-link pairs) per plan, kept until the job's paths change. */

/* One transfer of a step (plan_bounds). */
typedef struct xfer_cover {
    guint off, len;      /* its links in the step's concatenated arrays */
    double solo_Bps;     /* s_i */
    uint32_t cover;      /* f*(i) */
    uint32_t cover_mult; /* m_if* */
    uint32_t next;       /* the next transfer of its class + 1; 0 ends the class */
} xfer_cover;

/* plan_bounds' work space: per-link arrays zeroed on entry and left zeroed
 * (the replay's), step arrays its own. */
typedef struct bound_scratch {
    double *acc, *ratio;  /* per link: the class's sum of m_ie s_i, its max m_ie / m_if */
    double *step, *peak;  /* per link: the step's bound, the max over the steps so far */
    uint32_t *cnt;        /* per link: the step's transfers on it */
    uint32_t *head;       /* per covering link: its class's first transfer + 1 */
    GArray *links, *mult; /* uint32: the step's transfers' links, one after the other */
    GArray *xfers;        /* xfer_cover per transfer of the step */
    GArray *step_links;   /* uint32: the step's distinct links */
    GArray *covers;       /* uint32: the step's distinct covering links */
    GArray *class_links;  /* uint32: the class's distinct links */
} bound_scratch;

/* The links of step st's transfers into s, counting the transfers on each
 * link (cnt). */
static void step_load(const coll_plan *p, size_t st, bound_scratch *s)
{
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) mult = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_array_set_size(s->links, 0);
    g_array_set_size(s->mult, 0);
    g_array_set_size(s->xfers, 0);
    g_array_set_size(s->step_links, 0);
    for (size_t i = 0; i < coll_plan_xfer_count(p, st); i++) {
        coll_xfer_links(p, coll_plan_xfer(p, st, i), links, mult);
        xfer_cover x = {.off = s->links->len, .len = links->len};
        g_array_append_vals(s->links, links->data, links->len);
        g_array_append_vals(s->mult, mult->data, mult->len);
        g_array_append_val(s->xfers, x);
        for (guint k = 0; k < links->len; k++) {
            uint32_t e = g_array_index(links, uint32_t, k);
            if (s->cnt[e]++ == 0)
                g_array_append_val(s->step_links, e);
        }
    }
}

/* Each transfer's solo rate and covering link (links come in increasing
 * order, so keeping the first best keeps the lowest id), and the classes:
 * the distinct covering links (covers), each with its transfers chained
 * from head. */
static void step_covers(const struct replay *r, bound_scratch *s)
{
    const uint32_t *lv = (const uint32_t *)(void *)s->links->data;
    const uint32_t *mv = (const uint32_t *)(void *)s->mult->data;
    g_array_set_size(s->covers, 0);
    for (guint i = 0; i < s->xfers->len; i++) {
        xfer_cover *x = &g_array_index(s->xfers, xfer_cover, i);
        x->solo_Bps = INFINITY;
        for (guint k = x->off; k < x->off + x->len; k++) {
            double rate = topo_link_get(r->t, lv[k])->cap_Bps / mv[k];
            if (rate < x->solo_Bps || (rate == x->solo_Bps && s->cnt[lv[k]] > s->cnt[x->cover])) {
                x->solo_Bps = rate;
                x->cover = lv[k];
                x->cover_mult = mv[k];
            }
        }
        if (x->len == 0)
            continue;
        if (s->head[x->cover] == 0)
            g_array_append_val(s->covers, x->cover);
        x->next = s->head[x->cover];
        s->head[x->cover] = i + 1;
    }
}

/* Adds to step[e], for every link e of the class covered by f, the class's
 * bound min(sum m_ie s_i, ratio C_f). */
static void class_bound(const struct replay *r, bound_scratch *s, uint32_t f)
{
    const uint32_t *lv = (const uint32_t *)(void *)s->links->data;
    const uint32_t *mv = (const uint32_t *)(void *)s->mult->data;
    g_array_set_size(s->class_links, 0);
    for (uint32_t i1 = s->head[f]; i1 != 0;) {
        const xfer_cover *x = &g_array_index(s->xfers, xfer_cover, i1 - 1);
        for (guint k = x->off; k < x->off + x->len; k++) {
            uint32_t e = lv[k];
            if (s->ratio[e] == 0)
                g_array_append_val(s->class_links, e);
            s->acc[e] += mv[k] * x->solo_Bps;
            s->ratio[e] = fmax(s->ratio[e], (double)mv[k] / x->cover_mult);
        }
        i1 = x->next;
    }
    s->head[f] = 0;
    double cap = topo_link_get(r->t, f)->cap_Bps;
    for (guint k = 0; k < s->class_links->len; k++) {
        uint32_t e = g_array_index(s->class_links, uint32_t, k);
        s->step[e] += fmin(s->acc[e], s->ratio[e] * cap);
        s->acc[e] = s->ratio[e] = 0;
    }
}

/* Into out (link_bound, each link once): b_je for every link of p. */
static void plan_bounds(struct replay *r, const coll_plan *p, GArray *out)
{
    size_t L = topo_link_count(r->t);
    bound_scratch s = {
        .acc = r->bound_acc, .ratio = r->bound_acc + L, .step = r->bound_acc + 2 * L,
        .peak = r->bound_acc + 3 * L, .cnt = r->bound_cnt, .head = r->bound_cnt + L,
    };
    GArray **arrays[] = {&s.links, &s.mult, &s.step_links, &s.covers, &s.class_links};
    for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++)
        *arrays[i] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s.xfers = g_array_new(FALSE, FALSE, sizeof(xfer_cover));
    g_array_set_size(out, 0);
    for (size_t st = 0; st < coll_plan_step_count(p); st++) {
        step_load(p, st, &s);
        step_covers(r, &s);
        for (guint k = 0; k < s.covers->len; k++)
            class_bound(r, &s, g_array_index(s.covers, uint32_t, k));
        for (guint k = 0; k < s.step_links->len; k++) {
            uint32_t e = g_array_index(s.step_links, uint32_t, k);
            if (s.peak[e] == 0) {
                link_bound b = {e, 0};
                g_array_append_val(out, b);
            }
            s.peak[e] = fmax(s.peak[e], s.step[e]);
            s.step[e] = 0;
            s.cnt[e] = 0;
        }
    }
    for (guint k = 0; k < out->len; k++) {
        link_bound *b = &g_array_index(out, link_bound, k);
        b->Bps = s.peak[b->link];
        s.peak[b->link] = 0;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++)
        g_array_unref(*arrays[i]);
    g_array_unref(s.xfers);
}

/* Can link e saturate?  Only if the running jobs' bounds on it add up to
 * more than its capacity: with a sum of at most C_e the max-min allocation
 * without e loads it at most C_e, so it is the allocation with e too
 * (docs/engine.md §5b).  The margin is above C_e so that a sum that is C_e
 * in exact arithmetic, computed a few ulps per bound high, still counts as
 * unsaturable; it is the net's rel_eps (the replay's net uses the default),
 * so a sum the margin lets through overfills e by at most rel_eps C_e, a
 * residual the solver itself counts as zero. */
static bool link_tight(const struct replay *r, uint32_t e)
{
    return r->link_bound_sum[e] > topo_link_get(r->t, e)->cap_Bps * (1 + NET_DEFAULT_REL_EPS);
}

static gint cmp_pair(gconstpointer a, gconstpointer b)
{
    const uint32_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

static void add_peer(job *j, job *peer)
{
    for (guint i = 0; i < j->tight_peers->len; i++)
        if (g_ptr_array_index(j->tight_peers, i) == peer)
            return;
    g_ptr_array_add(j->tight_peers, peer);
}

/* Each running job's peers (j->tight_peers): the running jobs with which
 * it shares a link that can saturate. */
static void find_peers(struct replay *r)
{
    guint n = r->running->len, total = r->steady_links->len;
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, 2 * sizeof(uint32_t)); /* link, slot */
    for (guint i = 0; i < n; i++) {
        job *j = g_ptr_array_index(r->running, i);
        if (!j->tight_peers)
            j->tight_peers = g_ptr_array_new();
        g_ptr_array_set_size(j->tight_peers, 0);
        guint a = g_array_index(r->steady_off, guint, i);
        guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : total;
        for (guint k = a; k < b && !j->isolated; k++)
            if (r->link_jobs[all[k]] > 1 && link_tight(r, all[k])) {
                uint32_t pr[2] = {all[k], i};
                g_array_append_val(pairs, pr);
            }
    }
    g_array_sort(pairs, cmp_pair);
    const uint32_t *pv = (const uint32_t *)(void *)pairs->data;
    for (guint x = 0; x < pairs->len;) {
        guint y = x;
        while (y < pairs->len && pv[2 * y] == pv[2 * x])
            y++;
        for (guint p = x; p < y; p++)
            for (guint q = x; q < y; q++)
                if (p != q)
                    add_peer(g_ptr_array_index(r->running, pv[2 * p + 1]),
                             g_ptr_array_index(r->running, pv[2 * q + 1]));
        x = y;
    }
}

/* Under a hook that sees a job's phases only through the jobs sharing a
 * link with it (sched_ops.on_comm_local): every (link, slot) of the links
 * that two or more running jobs use, sorted (sharers_quiet_until). */
static void find_sharers(struct replay *r)
{
    if (!r->share_pairs)
        r->share_pairs = g_array_new(FALSE, FALSE, 2 * sizeof(uint32_t));
    g_array_set_size(r->share_pairs, 0);
    if (!r->ops->on_comm_local)
        return;
    guint n = r->running->len, total = r->steady_links->len;
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    for (guint i = 0; i < n; i++) {
        guint a = g_array_index(r->steady_off, guint, i);
        guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : total;
        for (guint k = a; k < b; k++)
            if (r->link_jobs[all[k]] > 1) {
                uint32_t pr[2] = {all[k], i};
                g_array_append_val(r->share_pairs, pr);
            }
    }
    g_array_sort(r->share_pairs, cmp_pair);
}

void replay__steady_update(struct replay *r)
{
    r->steady_stale = false;
    size_t L = topo_link_count(r->t);
    if (!r->link_jobs) {
        r->link_jobs = g_new0(uint32_t, L ? L : 1);
        r->link_bound_sum = g_new0(double, L ? L : 1);
        r->bound_acc = g_new0(double, 4 * (L ? L : 1));
        r->bound_cnt = g_new0(uint32_t, 2 * (L ? L : 1));
        r->steady_links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        r->steady_off = g_array_new(FALSE, FALSE, sizeof(guint));
    }
    for (guint k = 0; k < r->steady_links->len; k++) { /* clear only what was counted */
        uint32_t e = g_array_index(r->steady_links, uint32_t, k);
        r->link_jobs[e] = 0;
        r->link_bound_sum[e] = 0;
    }
    g_array_set_size(r->steady_links, 0);
    g_array_set_size(r->steady_off, 0);
    r->end_min1 = r->end_min2 = INFINITY;
    r->end_min1_job = NULL;
    for (guint i = 0; i < r->running->len; i++) {
        job *j = g_ptr_array_index(r->running, i);
        guint off = r->steady_links->len;
        g_array_append_val(r->steady_off, off);
        j->steady_slot = i;
        if (j->spec.end_s < r->end_min1) {
            r->end_min2 = r->end_min1;
            r->end_min1 = j->spec.end_s;
            r->end_min1_job = j;
        } else if (j->spec.end_s < r->end_min2) {
            r->end_min2 = j->spec.end_s;
        }
        if (!j->plan)
            continue;
        if (!j->link_bounds) { /* kept until its paths change */
            j->link_bounds = g_array_new(FALSE, FALSE, sizeof(link_bound));
            plan_bounds(r, j->plan, j->link_bounds);
        }
        for (guint k = 0; k < j->link_bounds->len; k++) {
            const link_bound *b = &g_array_index(j->link_bounds, link_bound, k);
            r->link_jobs[b->link]++;
            r->link_bound_sum[b->link] += b->Bps;
            g_array_append_val(r->steady_links, b->link);
        }
    }
    guint n = r->running->len, total = r->steady_links->len;
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    for (guint i = 0; i < n; i++) {
        job *j = g_ptr_array_index(r->running, i);
        guint a = g_array_index(r->steady_off, guint, i);
        guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : total;
        bool alone = true, shared = false;
        for (guint k = a; k < b && alone; k++) {
            shared |= r->link_jobs[all[k]] > 1;
            alone = r->link_jobs[all[k]] == 1 || !link_tight(r, all[k]);
        }
        j->isolated = alone;
        j->shares_links = shared;
    }
    find_peers(r);
    find_sharers(r);
    replay__groups_update(r);
}

/* Stretches are allowed in this run at all: jobs that run as alone
 * (isolated) under a scheduler whose on_comm hook ignores them; windows
 * between a job's peers' communication (below) only without a hook. */
static bool steady_allowed(const struct replay *r)
{
    return r->cfg->sim.fast_forward && r->cfg->sim.mode == CONFIG_MODE_WINDOW && !r->env.ideal &&
           (!r->ops->on_comm || r->ops->on_comm_ignores_isolated);
}

/* A job that shares a link that can saturate with its peers runs as alone
 * while none of them communicates: until the earliest time one of them
 * may start a transfer (job_next_comm_s), -INFINITY if one is now. */
static double peers_quiet_until(const job *j, double now_s)
{
    if (!j->tight_peers || j->tight_peers->len == 0)
        return -INFINITY;
    double u = INFINITY;
    for (guint i = 0; i < j->tight_peers->len && u > now_s; i++)
        u = fmin(u, job_next_comm_s(g_ptr_array_index(j->tight_peers, i), now_s));
    return u > now_s ? u : -INFINITY;
}

/* When no job sharing a link with j is in its communication phase (from
 * its first bucket's start to its last bucket's end) until the earliest
 * time one may start one (job_next_comm_s: the first bucket of its next
 * phase); -INFINITY if one is in it now or runs a stretch. */
static double sharers_quiet_until(const struct replay *r, const job *j, double now_s)
{
    const uint32_t *pv = (const uint32_t *)(void *)r->share_pairs->data;
    const uint32_t *all = (const uint32_t *)(void *)r->steady_links->data;
    guint np = r->share_pairs->len, n = r->steady_off->len, i = (guint)j->steady_slot;
    guint a = g_array_index(r->steady_off, guint, i);
    guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : r->steady_links->len;
    double u = INFINITY;
    for (guint k = a; k < b && u > now_s; k++) {
        uint32_t e = all[k];
        if (r->link_jobs[e] < 2)
            continue;
        guint lo = 0, hi = np; /* the first pair on e */
        while (lo < hi) {
            guint mid = lo + (hi - lo) / 2;
            if (pv[2 * mid] < e)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (guint p = lo; p < np && pv[2 * p] == e && u > now_s; p++) {
            const job *o = g_ptr_array_index(r->running, pv[2 * p + 1]);
            if (o == j)
                continue;
            bool in_phase = o->buckets_started > 0 && o->buckets_done < o->spec.buckets;
            u = fmin(u, in_phase ? now_s : job_next_comm_s(o, now_s));
        }
    }
    return u > now_s ? u : -INFINITY;
}

double replay__next_arrival_s(const struct replay *r)
{
    if (r->next_start >= r->start_order->len)
        return INFINITY;
    guint idx = g_array_index(r->start_order, guint, r->next_start);
    const job *next = g_ptr_array_index(r->jobs, idx);
    return next->spec.start_s;
}

double replay__steady_until(void *user, const job *j, double origin_s)
{
    struct replay *r = user;
    (void)origin_s;
    if (!steady_allowed(r))
        return -INFINITY;
    if (r->steady_stale)
        replay__steady_update(r);
    if (j->steady_slot >= r->steady_off->len || g_ptr_array_index(r->running, j->steady_slot) != j)
        return -INFINITY;
    /* a hook that ignores jobs sharing no link may still see one that
     * shares links: the scheduler says whether it ignores j (cassini gives
     * a job no target unless its jobs can overflow a shared link) or sees
     * j's phases only while a job sharing a link with j communicates
     * (sincronia-online: j is then no contending member) */
    double now = evq_now(r->q);
    double until = INFINITY;
    if (r->ops->on_comm && j->shares_links && r->ops->on_comm_levels_only && j->levels_free) {
        /* no level in its component changes a rate; its own is what
         * jobs.csv reports at its end, so the stretch stops before it */
        until = fmin(j->spec.end_s, r->sim_end_s);
    } else if (r->ops->on_comm && j->shares_links &&
               !(r->ops->on_comm_ignores &&
                 r->ops->on_comm_ignores(r->sched, &r->ctx, j->steady_slot))) {
        if (!r->ops->on_comm_local)
            return -INFINITY;
        until = sharers_quiet_until(r, j, now);
    }
    /* under --steady approx a job sharing a link that can saturate runs
     * with its group, which jumps whole (§5d): a stretch of its own would
     * keep the group from it */
    if (!j->isolated && r->cfg->sim.steady == CONFIG_STEADY_APPROX)
        return -INFINITY;
    if (!j->isolated)
        until = fmin(until, peers_quiet_until(j, now));
    if (!(until > now))
        return -INFINITY;
    /* a transfer started before the last path change may still use a link
     * the job now has alone (it keeps its links until its step ends), or
     * one it shares, where the bounds count only the current plans */
    guint n = r->steady_off->len, i = (guint)j->steady_slot;
    guint a = g_array_index(r->steady_off, guint, i);
    guint b = i + 1 < n ? g_array_index(r->steady_off, guint, i + 1) : r->steady_links->len;
    for (guint k = a; k < b; k++) {
        uint32_t e = g_array_index(r->steady_links, uint32_t, k);
        if (r->link_jobs[e] == 1 && net_link_in_use(r->n, e))
            return -INFINITY;
    }
    if (j->shares_links)
        for (guint k = 0; k < r->running->len; k++)
            if (((const job *)g_ptr_array_index(r->running, k))->old_path_xfers)
                return -INFINITY;
    until = fmin(until, j == r->end_min1_job ? r->end_min2 : r->end_min1);
    return fmin(until, replay__next_arrival_s(r));
}
