/* metrics.c - step-function integrals and per-tier link use (metrics.h).
 * Not here: writing them out (replay_output.c).
 */
#include "metrics.h"

#include <math.h>
#include <string.h>

/* Busy GPU-seconds at a constant rate over [t0, t1] (metrics_busy_ramp). */
typedef struct ramp {
    double t0, t1, rate;
} ramp;

/* A fast-forwarded job: values(t) = base + F(t - origin). */
typedef struct ffwd_src {
    const ffwd_profile *p; /* NULL: free slot */
    double origin_s;
    ffwd_values base;      /* values at origin */
    ffwd_values seen;      /* values already counted (at the last tick or change) */
} ffwd_src;

struct metrics {
    const topo *t;
    net *n;
    size_t gpus_total;
    double t_last;          /* last change of a step function */
    double t_tick;          /* start of the open interval */
    double t0;
    int busy, alloc, jobs;  /* current values */
    double busy_int, alloc_int, jobs_int;       /* integrals in the open interval */
    double busy_total, alloc_total;              /* integrals since t0 */
    double *carried_prev, *tagged_prev;          /* per link, at the last tick */
    double tier_carried[TOPO_TIER_COUNT], tier_tagged[TOPO_TIER_COUNT];
    double tier_cap[TOPO_TIER_COUNT];            /* sum of capacities */
    double tier_time_s;                          /* time covered by ticks */
    GArray *ffwd;                                /* ffwd_src slots */
    GArray *ffwd_free;                           /* free slot indices (uint32) */
    size_t ffwd_live;                            /* sources in use */
    ffwd_values ffwd_open;                       /* removed sources' part of the open interval */
    GArray *ramps;                               /* ramp: busy time spread over a skip */
};

metrics *metrics_new(const topo *t, net *n, size_t gpus_total, double t0_s)
{
    metrics *m = g_new0(metrics, 1);
    m->t = t;
    m->n = n;
    m->gpus_total = gpus_total;
    m->t_last = m->t_tick = m->t0 = t0_s;
    size_t L = topo_link_count(t);
    m->carried_prev = g_new0(double, L ? L : 1);
    m->tagged_prev = g_new0(double, L ? L : 1);
    m->ffwd = g_array_new(FALSE, TRUE, sizeof(ffwd_src));
    m->ffwd_free = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    m->ramps = g_array_new(FALSE, FALSE, sizeof(ramp));
    for (size_t e = 0; e < L; e++)
        m->tier_cap[topo_link_get(t, (uint32_t)e)->tier] += topo_link_get(t, (uint32_t)e)->cap_Bps;
    return m;
}

void metrics_free(metrics *m)
{
    if (!m)
        return;
    g_free(m->carried_prev);
    g_free(m->tagged_prev);
    g_array_free(m->ffwd, TRUE);
    g_array_free(m->ffwd_free, TRUE);
    g_array_free(m->ramps, TRUE);
    g_free(m);
}

/* The ramps' busy time in [from, to]. */
static double ramps_over(const metrics *m, double from, double to)
{
    double sum = 0;
    for (guint i = 0; i < m->ramps->len; i++) {
        const ramp *rp = &g_array_index(m->ramps, ramp, i);
        double a = fmax(from, rp->t0), b = fmin(to, rp->t1);
        if (b > a)
            sum += rp->rate * (b - a);
    }
    return sum;
}

static void advance(metrics *m, double now_s)
{
    double dt = now_s - m->t_last;
    g_assert(dt >= -1e-9 * fmax(1.0, fabs(now_s)));
    if (dt > 0 && m->ramps->len > 0) {
        double add = ramps_over(m, m->t_last, now_s);
        m->busy_int += add;
        m->busy_total += add;
        guint keep = 0; /* the ramps that end by now are done */
        for (guint i = 0; i < m->ramps->len; i++)
            if (g_array_index(m->ramps, ramp, i).t1 > now_s)
                g_array_index(m->ramps, ramp, keep++) = g_array_index(m->ramps, ramp, i);
        g_array_set_size(m->ramps, keep);
    }
    if (dt > 0) {
        m->busy_int += m->busy * dt;
        m->alloc_int += m->alloc * dt;
        m->jobs_int += m->jobs * dt;
        m->busy_total += m->busy * dt;
        m->alloc_total += m->alloc * dt;
        m->t_last = now_s;
    }
}

void metrics_busy_change(metrics *m, double now_s, int delta_gpus)
{
    advance(m, now_s);
    m->busy += delta_gpus;
    g_assert(m->busy >= 0);
}

void metrics_alloc_change(metrics *m, double now_s, int delta_gpus, int delta_jobs)
{
    advance(m, now_s);
    m->alloc += delta_gpus;
    m->jobs += delta_jobs;
    g_assert(m->alloc >= 0 && m->jobs >= 0);
}

void metrics_busy_ramp(metrics *m, double now_s, double until_s, double gpu_s)
{
    g_return_if_fail(until_s > now_s);
    advance(m, now_s);
    ramp rp = {now_s, until_s, gpu_s / (until_s - now_s)};
    g_array_append_val(m->ramps, rp);
}

static void src_values(const ffwd_src *s, double t, ffwd_values *out)
{
    ffwd_profile_eval(s->p, t - s->origin_s, out);
    ffwd_values_add(out, &s->base, 1.0);
}

/* Move what source s did since it was last counted into acc (the open
 * interval's part of the periodic sources). */
static void src_collect(ffwd_src *s, double now_s, ffwd_values *acc)
{
    ffwd_values v;
    src_values(s, now_s, &v);
    ffwd_values_add(acc, &v, 1.0);
    ffwd_values_add(acc, &s->seen, -1.0);
    s->seen = v;
}

uint32_t metrics_ffwd_add(metrics *m, const ffwd_profile *p, double origin_s, double now_s)
{
    g_return_val_if_fail(m && p && origin_s >= now_s, UINT32_MAX);
    ffwd_src s = {.p = p, .origin_s = origin_s};
    uint32_t h;
    if (m->ffwd_free->len > 0) {
        h = g_array_index(m->ffwd_free, uint32_t, m->ffwd_free->len - 1);
        g_array_set_size(m->ffwd_free, m->ffwd_free->len - 1);
        g_array_index(m->ffwd, ffwd_src, h) = s;
    } else {
        h = m->ffwd->len;
        g_array_append_val(m->ffwd, s);
    }
    m->ffwd_live++;
    return h;
}

static ffwd_src *src_get(metrics *m, uint32_t h)
{
    g_return_val_if_fail(h < m->ffwd->len, NULL);
    ffwd_src *s = &g_array_index(m->ffwd, ffwd_src, h);
    g_return_val_if_fail(s->p != NULL, NULL);
    return s;
}

void metrics_ffwd_rebase(metrics *m, uint32_t h, double origin_s, double now_s)
{
    ffwd_src *s = src_get(m, h);
    g_return_if_fail(s && origin_s >= now_s);
    ffwd_values v;
    src_values(s, now_s, &v);
    s->base = v;
    s->origin_s = origin_s;
}

void metrics_ffwd_remove(metrics *m, uint32_t h, double now_s)
{
    ffwd_src *s = src_get(m, h);
    g_return_if_fail(s);
    src_collect(s, now_s, &m->ffwd_open);
    memset(s, 0, sizeof *s);
    g_array_append_val(m->ffwd_free, h);
    m->ffwd_live--;
}

void metrics_tick(metrics *m, double now_s, metrics_row *row)
{
    advance(m, now_s);
    /* the periodic sources' part of [t_tick, now_s) */
    ffwd_values ff = m->ffwd_open;
    memset(&m->ffwd_open, 0, sizeof m->ffwd_open);
    for (guint i = 0; m->ffwd_live > 0 && i < m->ffwd->len; i++) {
        ffwd_src *s = &g_array_index(m->ffwd, ffwd_src, i);
        if (s->p)
            src_collect(s, now_s, &ff);
    }
    m->busy_int += ff.busy_gpu_s;
    m->busy_total += ff.busy_gpu_s;
    double dt = now_s - m->t_tick;
    row->t_s = m->t_tick;
    row->dt_s = dt;
    row->active_jobs = dt > 0 ? m->jobs_int / dt : m->jobs;
    row->active_gpus = dt > 0 ? m->alloc_int / dt : m->alloc;
    row->busy_gpus = dt > 0 ? m->busy_int / dt : m->busy;
    row->gpu_util_cluster_frac = dt > 0 && m->gpus_total ? m->busy_int / (m->gpus_total * dt) : NAN;
    row->gpu_util_allocated_frac = m->alloc_int > 0 ? m->busy_int / m->alloc_int : NAN;
    double carried[TOPO_TIER_COUNT] = {0}, tagged[TOPO_TIER_COUNT] = {0};
    /* Only links that carried load since the last tick can have moved
     * counters; the others would add exactly 0.  Visited in id order, so
     * the sums are the same as over every link. */
    size_t L = topo_link_count(m->t), n_moved;
    const uint32_t *moved = net_links_moved(m->n, &n_moved);
    for (size_t i = 0; i < n_moved; i++) {
        uint32_t e = moved[i];
        if (e >= L)
            continue;
        net_link_stats st;
        if (!net_link_stats_get(m->n, (net_link_id)e, &st, NULL))
            continue;
        topo_tier tier = topo_link_get(m->t, e)->tier;
        carried[tier] += st.carried_bytes - m->carried_prev[e];
        tagged[tier] += st.tagged_bytes - m->tagged_prev[e];
        m->carried_prev[e] = st.carried_bytes;
        m->tagged_prev[e] = st.tagged_bytes;
    }
    for (int k = 0; k < TOPO_TIER_COUNT; k++) {
        carried[k] += ff.carried_bytes[k];
        tagged[k] += ff.tagged_bytes[k];
    }
    for (int k = 0; k < TOPO_TIER_COUNT; k++) {
        double denom = m->tier_cap[k] * dt;
        row->tier_carried_bytes[k] = carried[k];
        row->tier_util_frac[k] = denom > 0 ? carried[k] / denom : NAN;
        row->tier_occupancy[k] = denom > 0 ? tagged[k] / denom : NAN;
        m->tier_carried[k] += carried[k];
        m->tier_tagged[k] += tagged[k];
    }
    m->tier_time_s += dt;
    m->busy_int = m->alloc_int = m->jobs_int = 0;
    m->t_tick = now_s;
}

double metrics_busy_gpu_s(const metrics *m) { return m->busy_total; }

void metrics_peek(const metrics *m, double now_s, double *busy_gpu_s, double *alloc_gpu_s,
                  int *alloc_gpus)
{
    double dt = now_s > m->t_last ? now_s - m->t_last : 0.0;
    /* the periodic sources' busy time not counted yet */
    double ff = m->ffwd_open.busy_gpu_s;
    for (guint i = 0; m->ffwd_live > 0 && i < m->ffwd->len; i++) {
        const ffwd_src *s = &g_array_index(m->ffwd, ffwd_src, i);
        if (s->p) {
            ffwd_values v;
            src_values(s, now_s, &v);
            ff += v.busy_gpu_s - s->seen.busy_gpu_s;
        }
    }
    if (dt > 0)
        ff += ramps_over(m, m->t_last, now_s);
    *busy_gpu_s = m->busy_total + m->busy * dt + ff;
    *alloc_gpu_s = m->alloc_total + m->alloc * dt;
    *alloc_gpus = m->alloc;
}
double metrics_alloc_gpu_s(const metrics *m) { return m->alloc_total; }

double metrics_tier_util_frac(const metrics *m, topo_tier tier)
{
    double d = m->tier_cap[tier] * m->tier_time_s;
    return d > 0 ? m->tier_carried[tier] / d : NAN;
}

double metrics_tier_occupancy(const metrics *m, topo_tier tier)
{
    double d = m->tier_cap[tier] * m->tier_time_s;
    return d > 0 ? m->tier_tagged[tier] / d : NAN;
}
