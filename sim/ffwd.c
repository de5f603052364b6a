/* ffwd.c - periodic piecewise-linear profiles (ffwd.h has the maths).
 * Not here: when a job is fast-forwarded (job_ffwd.c).
 */
#include "ffwd.h"

#include <math.h>
#include <string.h>

/* f on [0, T]: breakpoints tau (nondecreasing) and values; linear between,
 * 0 before the first, the last value after the last. */
typedef struct curve {
    GArray *tau; /* double */
    GArray *val; /* double */
} curve;

struct ffwd_profile {
    double T;
    double tag;
    curve busy;
    curve link[TOPO_TIER_COUNT]; /* tau == NULL: no traffic on the tier */
};

static void curve_init(curve *c)
{
    c->tau = g_array_new(FALSE, FALSE, sizeof(double));
    c->val = g_array_new(FALSE, FALSE, sizeof(double));
}

static void curve_clear(curve *c)
{
    if (c->tau)
        g_array_free(c->tau, TRUE);
    if (c->val)
        g_array_free(c->val, TRUE);
    c->tau = c->val = NULL;
}

/* Append a breakpoint; rounding errors that would make tau or v step
 * back are clamped away. */
static void curve_add(curve *c, double tau, double v)
{
    guint n = c->tau->len;
    if (n > 0) {
        tau = fmax(tau, g_array_index(c->tau, double, n - 1));
        v = fmax(v, g_array_index(c->val, double, n - 1));
    }
    g_array_append_val(c->tau, tau);
    g_array_append_val(c->val, v);
}

static double curve_last(const curve *c)
{
    return c->val->len ? g_array_index(c->val, double, c->val->len - 1) : 0.0;
}

/* f(tau) by binary search for the last breakpoint <= tau. */
static double curve_at(const curve *c, double tau)
{
    guint n = c->tau->len;
    const double *x = (const double *)(void *)c->tau->data;
    const double *y = (const double *)(void *)c->val->data;
    if (n == 0 || tau <= x[0])
        return 0.0;
    if (tau >= x[n - 1])
        return y[n - 1];
    guint lo = 0, hi = n - 1; /* x[lo] < tau < x[hi] */
    while (hi - lo > 1) {
        guint mid = lo + (hi - lo) / 2;
        if (x[mid] <= tau)
            lo = mid;
        else
            hi = mid;
    }
    double w = x[hi] - x[lo];
    return w > 0 ? y[lo] + (y[hi] - y[lo]) * ((tau - x[lo]) / w) : y[hi];
}

ffwd_profile *ffwd_profile_new(double period_s, int gpus, double compute_s, double opt_s,
                               double tag)
{
    g_return_val_if_fail(period_s > 0 && gpus >= 1 && compute_s >= 0 && opt_s >= 0, NULL);
    g_return_val_if_fail(compute_s + opt_s <= period_s * (1 + 1e-12), NULL);
    ffwd_profile *p = g_new0(ffwd_profile, 1);
    p->T = period_s;
    p->tag = tag;
    curve_init(&p->busy);
    double n = gpus;
    double idle_end = fmax(compute_s, period_s - opt_s);
    curve_add(&p->busy, 0.0, 0.0);
    curve_add(&p->busy, compute_s, n * compute_s);
    curve_add(&p->busy, idle_end, n * compute_s);
    curve_add(&p->busy, period_s, n * compute_s + n * opt_s);
    return p;
}

ffwd_profile *ffwd_profile_new_curve(double period_s, double tag)
{
    g_return_val_if_fail(period_s > 0, NULL);
    ffwd_profile *p = g_new0(ffwd_profile, 1);
    p->T = period_s;
    p->tag = tag;
    curve_init(&p->busy);
    return p;
}

void ffwd_profile_add_busy_point(ffwd_profile *p, double tau_s, double cum_gpu_s)
{
    g_return_if_fail(p && tau_s >= 0 && cum_gpu_s >= 0);
    curve_add(&p->busy, tau_s, cum_gpu_s);
}

void ffwd_profile_free(ffwd_profile *p)
{
    if (!p)
        return;
    curve_clear(&p->busy);
    for (int k = 0; k < TOPO_TIER_COUNT; k++)
        curve_clear(&p->link[k]);
    g_free(p);
}

void ffwd_profile_add_link_point(ffwd_profile *p, topo_tier tier, double tau_s, double cum_bytes)
{
    g_return_if_fail(p && tier < TOPO_TIER_COUNT && tau_s >= 0 && cum_bytes >= 0);
    if (!p->link[tier].tau)
        curve_init(&p->link[tier]);
    curve_add(&p->link[tier], tau_s, cum_bytes);
}

double ffwd_profile_period_s(const ffwd_profile *p) { return p->T; }

/* k V + f(tau) for rel > 0 split as k periods and tau. */
static double periodic_at(const curve *c, double k, double tau)
{
    return k * curve_last(c) + curve_at(c, tau);
}

void ffwd_profile_eval(const ffwd_profile *p, double rel_s, ffwd_values *out)
{
    memset(out, 0, sizeof *out);
    if (!(rel_s > 0))
        return;
    double k = floor(rel_s / p->T);
    double tau = rel_s - k * p->T;
    /* rounding can leave tau a hair outside [0, T]: f is continuous
     * across the boundary (f(T) = V = V + f(0)), so clamping is exact up
     * to that rounding */
    tau = fmin(fmax(tau, 0.0), p->T);
    out->busy_gpu_s = periodic_at(&p->busy, k, tau);
    for (int t = 0; t < TOPO_TIER_COUNT; t++) {
        if (!p->link[t].tau)
            continue;
        double b = periodic_at(&p->link[t], k, tau);
        out->carried_bytes[t] = b;
        out->tagged_bytes[t] = b * p->tag;
    }
}

void ffwd_values_add(ffwd_values *out, const ffwd_values *v, double sign)
{
    out->busy_gpu_s += sign * v->busy_gpu_s;
    for (int t = 0; t < TOPO_TIER_COUNT; t++) {
        out->carried_bytes[t] += sign * v->carried_bytes[t];
        out->tagged_bytes[t] += sign * v->tagged_bytes[t];
    }
}
