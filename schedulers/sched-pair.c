/* sched-pair.c - PAIR_SIM and Crux's correction factor (Crux §4.2).
 * Not here: the scheduler that uses it (crux.c).
 *
 * Crux compares each job j with the reference job r (the one with the most
 * traffic) by replaying the pair on one link under both priority orders.
 * The paper gives the factor as k_j = dS_j / dS_r, dS_x the change of the
 * link time spent on x's data between x high and x low.  D4: we use the
 * work-based form k_j = (dN_j I_r) / (dN_r I_j), dN_x the change of x's busy
 * GPU-seconds, which equals the paper's on its Example 1 and also handles
 * jobs whose communication is fully hidden (dN = 0) where dS is noisy.
 *
 * The model (docs/design.md §5.2): a job repeats [compute C; communication
 * issued at f C; next iteration opt_s after both end]; the higher job owns
 * the link whenever it has data, the lower one sends in the gaps and is
 * preempted (resumes later).
 */
#include "sched-private.h"

#include <math.h>

typedef struct seg {
    double a, b;
} seg;

static double clip_len(double a, double b, double horizon_s)
{
    double lo = fmax(a, 0.0), hi = fmin(b, horizon_s);
    return hi > lo ? hi - lo : 0.0;
}

/* Timeline of one job sending in the gaps of `blocked` (sorted, disjoint
 * segments; empty for the higher job).  Appends its own link segments to
 * `own` (may be NULL); returns link and busy seconds in [0, horizon). */
static void job_timeline(const sched__pair_job *x, const GArray *blocked, double horizon_s,
                         GArray *own, double *link_s, double *busy_s)
{
    g_assert(x->compute_s + x->opt_s + x->comm_s > 0.0);
    double T = -fmin(x->phase_s, x->fwd_frac * x->compute_s);
    size_t idx = 0; /* first blocked segment that may still matter */
    *link_s = 0.0;
    *busy_s = 0.0;
    while (T < horizon_s) {
        *busy_s += clip_len(T, T + x->compute_s, horizon_s);
        double t = T + x->fwd_frac * x->compute_s;
        double rem = x->comm_s;
        while (rem > 0.0) {
            while (blocked && idx < blocked->len && g_array_index(blocked, seg, idx).b <= t)
                idx++;
            double gap_end = INFINITY;
            if (blocked && idx < blocked->len) {
                const seg *s = &g_array_index(blocked, seg, idx);
                if (s->a <= t) {
                    t = s->b;
                    continue;
                }
                gap_end = s->a;
            }
            double send = fmin(rem, gap_end - t);
            if (own)
                g_array_append_val(own, ((seg){t, t + send}));
            *link_s += clip_len(t, t + send, horizon_s);
            rem -= send;
            t += send;
            if (t >= horizon_s && rem > 0.0)
                break;
        }
        T = fmax(T + x->compute_s, t) + x->opt_s;
    }
}

void sched__pair_sim(const sched__pair_job jobs[2], double horizon_s, sched__pair_result *out)
{
    g_autoptr(GArray) hi = g_array_new(FALSE, FALSE, sizeof(seg));
    job_timeline(&jobs[0], NULL, horizon_s, hi, &out->link_s[0], &out->busy_s[0]);
    job_timeline(&jobs[1], hi, horizon_s, NULL, &out->link_s[1], &out->busy_s[1]);
}

/* Merge two sorted lists of disjoint segments (disjoint from each other)
 * into out, sorted. */
static void merge_segs(const GArray *a, const GArray *b, GArray *out)
{
    g_array_set_size(out, 0);
    guint x = 0, y = 0;
    while (x < a->len || y < b->len) {
        bool take_a = y >= b->len ||
                      (x < a->len && g_array_index(a, seg, x).a <= g_array_index(b, seg, y).a);
        seg v = take_a ? g_array_index(a, seg, x++) : g_array_index(b, seg, y++);
        g_array_append_val(out, v);
    }
}

void sched__stack_sim(const sched__pair_job *jobs, size_t n, double horizon_s, double *busy_s)
{
    g_autoptr(GArray) blocked = g_array_new(FALSE, FALSE, sizeof(seg));
    g_autoptr(GArray) own = g_array_new(FALSE, FALSE, sizeof(seg));
    g_autoptr(GArray) next = g_array_new(FALSE, FALSE, sizeof(seg));
    for (size_t i = 0; i < n; i++) {
        double link_s;
        g_array_set_size(own, 0);
        job_timeline(&jobs[i], i ? blocked : NULL, horizon_s, own, &link_s, &busy_s[i]);
        merge_segs(blocked, own, next);
        GArray *t = blocked;
        blocked = next;
        next = t;
    }
}

double sched__pair_correction(const sched__pair_job *j, double I_j, const sched__pair_job *r,
                              double I_r, double horizon_s, double out_dS[2])
{
    sched__pair_result jr, rj;
    sched__pair_job a[2] = {*j, *r};
    sched__pair_job b[2] = {*r, *j};
    sched__pair_sim(a, horizon_s, &jr);
    sched__pair_sim(b, horizon_s, &rj);
    if (out_dS) {
        out_dS[0] = jr.link_s[0] - rj.link_s[1];
        out_dS[1] = rj.link_s[0] - jr.link_s[1];
    }
    double dN_j = j->gpus * (jr.busy_s[0] - rj.busy_s[1]);
    double dN_r = r->gpus * (rj.busy_s[0] - jr.busy_s[1]);
    double tol = 1e-9 * horizon_s * fmax(j->gpus, r->gpus);
    if (!(I_j > 0.0))
        return 1.0;
    /* r gains nothing from priority (dN_r <= 0 up to noise): D4's
     * degenerate case. */
    if (dN_r <= tol)
        return dN_j > tol ? I_r / I_j * (1.0 + 1e-6) : 1.0;
    return fmax(0.0, (dN_j * I_r) / (dN_r * I_j));
}
