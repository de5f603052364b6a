/* cassini.c - CASSINI (Rajasekaran et al., NSDI'24) behind sim/scheduler.h.
 * Not here: its geometric core (sched-circle.c), the registry.
 *
 * From the paper: each job's iteration is a circle whose perimeter is its
 * iteration time; on a link, the jobs' circles are unified on the LCM of
 * their iteration times and rotated to maximise the compatibility score
 * 1 - sum Excess / (|A| C) (§3); per-link rotations become unique time
 * shifts by a traversal of the bipartite job-link affinity graph
 * (Algorithm 1); shifts delay the next iteration start, and a job whose
 * communication start drifts by more than 5% of its iteration time is
 * re-aligned (§4).
 * Our choices (docs/schedulers.md, D14):
 *  - a job's Up arc on link e starts at f_j C_j (communication issue) and
 *    lasts its standalone communication time t_j, at M_{j,e}/t_j;
 *    iteration = the isolated iteration time; all rounded to a quantum
 *    q = max(1 ms, longest iteration on the link / 72), one angle per
 *    quantum; LCM capped at 20 x the longest iteration;
 *  - rotation search: first job on the link fixed, the others scanned in
 *    5-degree steps of their own circle, exhaustively up to 3 jobs on the
 *    link, coordinate descent beyond; identical link problems (same jobs,
 *    demands, capacity) are solved once per reschedule, and each search's
 *    result is kept across reschedules under its exact inputs;
 *  - placement is fixed (Crux's comparison), so an affinity graph with
 *    cycles cannot be rejected: a BFS spanning tree from the lowest-index
 *    job of each component sets the shifts, non-tree links keep their
 *    violation;
 *  - a link joins the affinity graph only if its jobs can overflow it
 *    (the sum of their Up demands exceeds its capacity); on the others any
 *    rotation scores 1 and would only add needless constraints;
 *  - enforcement keeps each job's phase relative to its component's
 *    reference job (Algorithm 1's shift-0 job), which is never delayed:
 *    at each communication start (on_comm) a job's iteration start is
 *    estimated as now - f_j C_j; job k's target is the reference's latest
 *    start + t_k, modulo g = gcd(iter_k, iter_ref) on a 1 ms grid (the
 *    reference's pattern repeats relative to k with that period).  The
 *    first time after a reschedule, or when the error exceeds 5% of
 *    iter_k, k's next iteration is delayed to the next target (a delay
 *    < g) through sched_set_shift.  Anchoring on the reference rather
 *    than on absolute slots T0 + t_k + n iter_k keeps jobs that all slow
 *    down under contention from being re-aligned every iteration;
 *  - ECMP paths, one priority level; jobs sharing no link are left alone.
 * Cost per reschedule: O(links x prod(72) x p x m) for m <= 3 jobs on a
 * link (p <= 1440 angles), plus the BFS.
 */
#include "sim/scheduler.h"

#include <math.h>
#include <string.h>

#include "sched-private.h"

#define CASSINI_STEPS 72
#define CASSINI_DRIFT_FRAC 0.05

typedef struct cassini_target {
    double shift_s;      /* t_j, relative to the component's root job */
    double iter_s;       /* isolated iteration time */
    double lead_s;       /* f_j C_j: from iteration start to communication */
    double period_s;     /* the root's pattern repeats relative to j with this period */
    gint64 root_uid;     /* the component's reference job (shift 0, never delayed) */
    double last_start_s; /* estimated start of j's current iteration, NAN before one */
    bool aligned;        /* a shift was issued since the last reschedule */
} cassini_target;

/* A job's bytes per link (M_{j,e}) and its standalone communication time:
 * cassini never moves a path, so they hold for the job's life. */
typedef struct cassini_load {
    GArray *links; /* uint32, increasing */
    GArray *bytes; /* double, per link */
    double t_s;    /* max_e M_{j,e} / B_e (sched__job_comm_s) */
} cassini_load;

static void cassini_load_free(void *p)
{
    cassini_load *l = p;
    g_array_unref(l->links);
    g_array_unref(l->bytes);
    g_free(l);
}

typedef struct cassini_sched {
    GHashTable *targets; /* uid (gint64) -> cassini_target */
    GHashTable *loads;   /* uid (gint64) -> cassini_load, of the running jobs */
    GHashTable *solved;  /* GBytes (capacity, circle jobs) -> int64_t rotations, kept
                          * across reschedules (solve_link) */
} cassini_sched;

/* Rotation searches kept across reschedules, at most. */
enum { CASSINI_SOLVED_MAX = 1 << 14 };

static GHashTable *loads_new(void)
{
    return g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, cassini_load_free);
}

static void *cassini_create(const sched_options *opts, GError **error)
{
    (void)opts;
    (void)error;
    cassini_sched *s = g_new0(cassini_sched, 1);
    s->targets = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    s->loads = loads_new();
    s->solved = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref,
                                      g_free);
    return s;
}

static void cassini_destroy(void *self)
{
    cassini_sched *s = self;
    if (!s)
        return;
    g_hash_table_destroy(s->targets);
    g_hash_table_destroy(s->loads);
    g_hash_table_destroy(s->solved);
    g_free(s);
}

/* One job's profile. */
typedef struct cjob {
    sched_job_info info;
    double t_s; /* standalone communication time */
} cjob;

/* (job, bytes) of one link. */
typedef struct link_use {
    size_t j;
    double bytes;
} link_use;

/* The best rotations of the circle jobs cj on capacity cap_Bps
 * (sched__circle_optimize), kept in s->solved under those exact inputs:
 * between two reschedules most links keep their jobs, and the search is
 * a pure function of them, so a kept result is the one a new search
 * would find. */
static void optimize_kept(cassini_sched *s, const sched__circle_job *cj, size_t m, double cap_Bps,
                          int64_t *rot)
{
    g_autoptr(GBytes) key = sched__inputs_key(cap_Bps, cj, m * sizeof *cj);
    const int64_t *hit = g_hash_table_lookup(s->solved, key);
    if (hit) {
        memcpy(rot, hit, m * sizeof *rot);
        return;
    }
    sched__circle_optimize(cj, m, cap_Bps, rot);
    if (g_hash_table_size(s->solved) >= CASSINI_SOLVED_MAX)
        g_hash_table_remove_all(s->solved);
    g_hash_table_insert(s->solved, g_bytes_ref(key), g_memdup2(rot, m * sizeof *rot));
}

/* Solve one link: per-link shifts of its jobs appended to edges. */
static void solve_link(cassini_sched *s, uint32_t e, double cap_Bps, const GArray *uses,
                       const cjob *jobs, GHashTable *memo, GArray *edges)
{
    size_t m = uses->len;
    double max_iter = 0.0;
    for (size_t i = 0; i < m; i++)
        max_iter = fmax(max_iter, jobs[g_array_index(uses, link_use, i).j].info.isolated_iter_s);
    double q = fmax(1e-3, max_iter / CASSINI_STEPS);
    g_autofree sched__circle_job *cj = g_new(sched__circle_job, m);
    GString *key = g_string_new(NULL);
    g_string_append_printf(key, "%.6g", cap_Bps);
    for (size_t i = 0; i < m; i++) {
        const link_use *u = &g_array_index(uses, link_use, i);
        const cjob *x = &jobs[u->j];
        int64_t iter_q = MAX(1, llround(x->info.isolated_iter_s / q));
        int64_t start_q = llround(x->info.fwd_frac * x->info.compute_s / q) % iter_q;
        int64_t len_q = MIN(iter_q, MAX(1, llround(x->t_s / q)));
        cj[i] = (sched__circle_job){iter_q, start_q, len_q, u->bytes / x->t_s};
        g_string_append_printf(key, "|%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                               ",%.6g",
                               iter_q, start_q, len_q, cj[i].bw_Bps);
    }
    g_autofree int64_t *rot = g_new(int64_t, m);
    const int64_t *known = g_hash_table_lookup(memo, key->str);
    if (known) {
        for (size_t i = 0; i < m; i++)
            rot[i] = known[i];
        g_string_free(key, TRUE);
    } else {
        optimize_kept(s, cj, m, cap_Bps, rot);
        g_hash_table_insert(memo, g_string_free(key, FALSE), g_memdup2(rot, m * sizeof *rot));
    }
    for (size_t i = 0; i < m; i++) {
        const link_use *u = &g_array_index(uses, link_use, i);
        double iter = jobs[u->j].info.isolated_iter_s;
        sched__affinity_edge ed = {u->j, e, fmod((double)rot[i] * q, iter)};
        g_array_append_val(edges, ed);
    }
}

/* Relative to a job with iteration b, a job with iteration a sees the
 * same picture again after gcd(a, b): computed on a 1 ms grid (D14's
 * quantum), at least 1 ms. */
static double common_period(double a_s, double b_s)
{
    int64_t a = MAX(1, llround(a_s * 1e3)), b = MAX(1, llround(b_s * 1e3));
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return (double)a * 1e-3;
}

/* Job j's load (uid in info), kept from the last reschedule (old) or
 * computed; moved into s->loads. */
static const cassini_load *job_load(cassini_sched *s, GHashTable *old, sched_ctx *ctx, size_t j,
                                    gint64 uid)
{
    gpointer key, val;
    if (g_hash_table_steal_extended(old, &uid, &key, &val)) {
        g_hash_table_insert(s->loads, key, val);
        return val;
    }
    cassini_load *l = g_new0(cassini_load, 1);
    l->links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    l->bytes = g_array_new(FALSE, FALSE, sizeof(double));
    sched_job_link_bytes(ctx, j, l->links, l->bytes);
    for (guint k = 0; k < l->links->len; k++) /* as sched__job_comm_s */
        l->t_s = fmax(l->t_s, g_array_index(l->bytes, double, k) /
                                  sched_link_capacity_Bps(ctx, g_array_index(l->links, uint32_t, k)));
    g_hash_table_insert(s->loads, g_memdup2(&uid, sizeof uid), l);
    return l;
}

/* Profiles of every job and, per link, the jobs with bytes on it. */
static void collect_uses(cassini_sched *s, sched_ctx *ctx, cjob *jobs, size_t n,
                         GHashTable *by_link)
{
    GHashTable *old = s->loads; /* what ended goes with it */
    s->loads = loads_new();
    for (size_t j = 0; j < n; j++) {
        sched_job_get(ctx, j, &jobs[j].info);
        const cassini_load *l = job_load(s, old, ctx, j, (gint64)jobs[j].info.uid);
        const GArray *links = l->links, *bytes = l->bytes;
        jobs[j].t_s = l->t_s;
        if (!(jobs[j].t_s > 0.0) || !(jobs[j].info.isolated_iter_s > 0.0))
            continue;
        for (guint k = 0; k < links->len; k++) {
            double b = g_array_index(bytes, double, k);
            if (!(b > 0.0))
                continue;
            gpointer key = GUINT_TO_POINTER(g_array_index(links, uint32_t, k) + 1);
            GArray *uses = g_hash_table_lookup(by_link, key);
            if (!uses) {
                uses = g_array_new(FALSE, FALSE, sizeof(link_use));
                g_hash_table_insert(by_link, key, uses);
            }
            link_use u = {j, b};
            g_array_append_val(uses, u);
        }
    }
    g_hash_table_destroy(old);
}

/* Per-link shifts of every link with two jobs or more, links in id order. */
static GArray *solve_links(cassini_sched *s, sched_ctx *ctx, const cjob *jobs,
                          GHashTable *by_link)
{
    g_autoptr(GArray) shared = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, by_link);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        const GArray *uses = val;
        uint32_t e = GPOINTER_TO_UINT(key) - 1;
        double peak = 0.0; /* every job Up at once */
        for (guint i = 0; i < uses->len; i++) {
            const link_use *u = &g_array_index(uses, link_use, i);
            peak += u->bytes / jobs[u->j].t_s;
        }
        if (uses->len >= 2 && peak > sched_link_capacity_Bps(ctx, e) * (1.0 + 1e-9))
            g_array_append_val(shared, e);
    }
    g_array_sort(shared, (GCompareFunc)sched__cmp_u32);
    g_autoptr(GHashTable) memo = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    GArray *edges = g_array_new(FALSE, FALSE, sizeof(sched__affinity_edge));
    for (guint i = 0; i < shared->len; i++) {
        uint32_t e = g_array_index(shared, uint32_t, i);
        GArray *uses = g_hash_table_lookup(by_link, GUINT_TO_POINTER(e + 1));
        solve_link(s, e, sched_link_capacity_Bps(ctx, e), uses, jobs, memo, edges);
    }
    return edges;
}

static void cassini_reschedule(void *self, sched_ctx *ctx)
{
    cassini_sched *s = self;
    g_hash_table_remove_all(s->targets);
    size_t n = sched_job_count(ctx);
    if (n == 0) {
        g_hash_table_remove_all(s->loads);
        return;
    }
    for (size_t j = 0; j < n; j++)
        sched_set_priority(ctx, j, 0);
    g_autofree cjob *jobs = g_new0(cjob, n);
    g_autoptr(GHashTable) by_link = /* link id + 1 -> GArray of link_use */
        g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref);
    collect_uses(s, ctx, jobs, n, by_link);
    g_autoptr(GArray) edges = solve_links(s, ctx, jobs, by_link);

    g_autofree double *iter = g_new(double, n);
    g_autofree double *shift = g_new(double, n);
    g_autofree size_t *root = g_new(size_t, n);
    g_autofree bool *linked = g_new0(bool, n);
    for (size_t j = 0; j < n; j++)
        iter[j] = jobs[j].info.isolated_iter_s > 0.0 ? jobs[j].info.isolated_iter_s : 1.0;
    for (guint i = 0; i < edges->len; i++)
        linked[g_array_index(edges, sched__affinity_edge, i).job] = true;
    sched__affinity_shifts(n, iter, (const sched__affinity_edge *)(void *)edges->data, edges->len,
                           shift, root);
    for (size_t j = 0; j < n; j++) {
        if (!linked[j])
            continue;
        g_debug("cassini %.3f s: job %s iteration %.6g s comm %.6g s shift %.6g s from %s",
                sched_now_s(ctx), jobs[j].info.id, iter[j], jobs[j].t_s, shift[j],
                jobs[root[j]].info.id);
        cassini_target t = {
            .shift_s = shift[j],
            .iter_s = iter[j],
            .lead_s = jobs[j].info.fwd_frac * jobs[j].info.compute_s,
            .period_s = common_period(iter[j], iter[root[j]]),
            .root_uid = (gint64)jobs[root[j]].info.uid,
            .last_start_s = NAN,
            .aligned = false,
        };
        gint64 uid = (gint64)jobs[j].info.uid;
        g_hash_table_insert(s->targets, g_memdup2(&uid, sizeof uid), g_memdup2(&t, sizeof t));
    }
}

static void cassini_on_comm(void *self, sched_ctx *ctx, size_t j, bool starting)
{
    cassini_sched *s = self;
    if (!starting)
        return;
    sched_job_info info;
    sched_job_get(ctx, j, &info);
    gint64 uid = (gint64)info.uid;
    cassini_target *t = g_hash_table_lookup(s->targets, &uid);
    if (!t)
        return;
    double start = sched_now_s(ctx) - t->lead_s;
    t->last_start_s = start;
    if (t->root_uid == uid)
        return; /* the reference sets the phase, it is never delayed */
    const cassini_target *root = g_hash_table_lookup(s->targets, &t->root_uid);
    if (!root || isnan(root->last_start_s))
        return;
    double g = t->period_s;
    double err = fmod(start - (root->last_start_s + t->shift_s), g);
    if (err < 0.0)
        err += g;
    if (err > g / 2)
        err -= g; /* now in (-g/2, g/2] */
    if (t->aligned && fabs(err) <= CASSINI_DRIFT_FRAC * t->iter_s)
        return;
    double delay = err > 0.0 ? g - err : -err;
    if (delay >= g * (1.0 - 1e-9))
        delay = 0.0;
    g_debug("cassini %.3f s: job %s phase error %.6g s (period %.6g s), delay %.6g s",
            sched_now_s(ctx), info.id, err, g, delay);
    sched_set_shift(ctx, j, delay);
    t->aligned = true;
}

/* What the hook keeps about job j (comm_hints.state): whether it has a
 * target, then whether it was aligned since the last reschedule and its
 * last start, as an offset from now (a flag 0 and 0 before its first). */
static void cassini_state(void *self, sched_ctx *ctx, size_t j, double now_s, GArray *out)
{
    cassini_sched *s = self;
    sched_job_info info;
    sched_job_get(ctx, j, &info);
    gint64 uid = (gint64)info.uid;
    const cassini_target *t = g_hash_table_lookup(s->targets, &uid);
    double has = t != NULL;
    g_array_append_val(out, has);
    if (!t)
        return;
    bool seen = !isnan(t->last_start_s);
    double v[3] = {t->aligned, seen, seen ? t->last_start_s - now_s : 0.0};
    g_array_append_vals(out, v, 3);
}

/* j's group moved dt_s ahead (comm_hints.delay): so does its last start. */
static void cassini_delay(void *self, sched_ctx *ctx, size_t j, double dt_s)
{
    cassini_sched *s = self;
    sched_job_info info;
    sched_job_get(ctx, j, &info);
    gint64 uid = (gint64)info.uid;
    cassini_target *t = g_hash_table_lookup(s->targets, &uid);
    if (t && !isnan(t->last_start_s))
        t->last_start_s += dt_s;
}

/* A job without a target (it shares no link that its jobs can overflow,
 * solve_links) is neither shifted by on_comm nor any job's reference. */
static bool cassini_on_comm_ignores(void *self, sched_ctx *ctx, size_t j)
{
    cassini_sched *s = self;
    sched_job_info info;
    sched_job_get(ctx, j, &info);
    gint64 uid = (gint64)info.uid;
    return !g_hash_table_contains(s->targets, &uid);
}

const sched_ops sched_cassini_ops = {
    .name = "cassini",
    .summary = "CASSINI: per-link circle rotation, affinity-graph time shifts, ECMP paths",
    .unlimited_levels = false,
    .create = cassini_create,
    .destroy = cassini_destroy,
    .reschedule = cassini_reschedule,
    .on_comm = cassini_on_comm,
    .comm_hints = {
        /* a job sharing no link gets no target: the hook returns at once */
        .ignores_isolated = true,
        .ignores = cassini_on_comm_ignores,
        /* a job's target is relative to its reference's last start, and
         * the reference shares links with it (the affinity graph's links),
         * so it lies in the job's group; what the hook keeps is a target's
         * alignment and last start, relative to now (cassini_state) */
        .grouped = true,
        .state = cassini_state,
        .delay = cassini_delay,
    },
};
