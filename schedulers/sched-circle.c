/* sched-circle.c - CASSINI's geometric abstraction (CASSINI §3-4).
 * Not here: the scheduler that uses it (cassini.c).
 *
 * Each job's iteration is wrapped around a circle; on a link the jobs share
 * the unified circle of perimeter p = LCM of their iteration times, and a
 * rotation Delta_j moves j's Up arcs later.  demand(a) = sum_j bw_j(a -
 * Delta_j), Excess(a) = max(0, demand(a) - C), score = 1 - sum_a Excess(a)
 * / (|A| C).  One angle per time quantum q (D14: iteration times rounded to
 * q; LCM capped at 20 x the largest iteration, else the largest).  The
 * rotation search fixes the first job and scans the others in 5-degree
 * steps of their own circle: exhaustive up to 3 jobs, coordinate descent
 * beyond (D14).  Per-link shifts become unique ones by BFS on the bipartite
 * job-link affinity graph (Algorithm 1); CASSINI drops placements whose
 * graph has a cycle, ours is fixed (Crux's setting), so non-tree edges are
 * simply not honoured (D14).
 */
#include "sched-private.h"

#include <math.h>

#define CIRCLE_LCM_CAP 20
#define CIRCLE_STEPS 72 /* 5 degrees */
#define CIRCLE_DESCENT_ROUNDS 10

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int64_t sched__circle_perimeter(const sched__circle_job *jobs, size_t n)
{
    int64_t mx = 1;
    for (size_t i = 0; i < n; i++)
        if (jobs[i].iter_q > mx)
            mx = jobs[i].iter_q;
    int64_t l = 1;
    for (size_t i = 0; i < n; i++) {
        int64_t it = jobs[i].iter_q;
        l = l / gcd64(l, it) * it;
        if (l > CIRCLE_LCM_CAP * mx)
            return mx;
    }
    return l;
}

static int64_t mod64(int64_t a, int64_t m)
{
    int64_t r = a % m;
    return r < 0 ? r + m : r;
}

static bool is_up(const sched__circle_job *j, int64_t t)
{
    return mod64(mod64(t, j->iter_q) - j->up_start_q, j->iter_q) < j->up_len_q;
}

double sched__circle_score(const sched__circle_job *jobs, size_t n, int64_t p,
                           const int64_t *rot_q, double cap_Bps)
{
    double excess = 0.0;
    for (int64_t a = 0; a < p; a++) {
        double demand = 0.0;
        for (size_t i = 0; i < n; i++)
            if (is_up(&jobs[i], a - rot_q[i]))
                demand += jobs[i].bw_Bps;
        if (demand > cap_Bps)
            excess += demand - cap_Bps;
    }
    return 1.0 - excess / ((double)p * cap_Bps);
}

static int64_t rot_step(const sched__circle_job *j)
{
    int64_t s = j->iter_q / CIRCLE_STEPS;
    return s > 1 ? s : 1;
}

static bool better(double a, double b)
{
    return a > b + 1e-12;
}

double sched__circle_optimize(const sched__circle_job *jobs, size_t n, double cap_Bps,
                              int64_t *rot_q)
{
    for (size_t i = 0; i < n; i++)
        rot_q[i] = 0;
    if (n == 0)
        return 1.0;
    int64_t p = sched__circle_perimeter(jobs, n);
    double best = sched__circle_score(jobs, n, p, rot_q, cap_Bps);
    if (n == 1)
        return best;
    g_autofree int64_t *cur = g_new0(int64_t, n);
    if (n <= 3) {
        int64_t s1 = rot_step(&jobs[1]);
        int64_t s2 = n == 3 ? rot_step(&jobs[2]) : 1;
        int64_t end2 = n == 3 ? jobs[2].iter_q : 1;
        for (int64_t r1 = 0; r1 < jobs[1].iter_q; r1 += s1) {
            for (int64_t r2 = 0; r2 < end2; r2 += s2) {
                cur[1] = r1;
                if (n == 3)
                    cur[2] = r2;
                double sc = sched__circle_score(jobs, n, p, cur, cap_Bps);
                if (better(sc, best)) {
                    best = sc;
                    for (size_t i = 0; i < n; i++)
                        rot_q[i] = cur[i];
                }
            }
        }
        return best;
    }
    for (int round = 0; round < CIRCLE_DESCENT_ROUNDS; round++) {
        bool improved = false;
        for (size_t i = 1; i < n; i++) {
            for (size_t k = 0; k < n; k++)
                cur[k] = rot_q[k];
            for (int64_t r = 0; r < jobs[i].iter_q; r += rot_step(&jobs[i])) {
                cur[i] = r;
                double sc = sched__circle_score(jobs, n, p, cur, cap_Bps);
                if (better(sc, best)) {
                    best = sc;
                    rot_q[i] = r;
                    improved = true;
                }
            }
        }
        if (!improved)
            break;
    }
    return best;
}

void sched__affinity_shifts(size_t n_jobs, const double *iter_s, const sched__affinity_edge *edges,
                            size_t n_edges, double *out_shift_s, size_t *out_root)
{
    g_autofree bool *seen = g_new0(bool, n_jobs ? n_jobs : 1);
    g_autofree size_t *queue = g_new(size_t, n_jobs ? n_jobs : 1);
    /* Edges of each job, in input order; link -> its edges. */
    g_autoptr(GPtrArray) by_job = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    for (size_t j = 0; j < n_jobs; j++) {
        g_ptr_array_add(by_job, g_array_new(FALSE, FALSE, sizeof(size_t)));
        out_shift_s[j] = 0.0;
    }
    g_autoptr(GHashTable) by_link =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, (GDestroyNotify)g_array_unref);
    for (size_t e = 0; e < n_edges; e++) {
        g_assert(edges[e].job < n_jobs);
        g_array_append_val((GArray *)by_job->pdata[edges[e].job], e);
        gint64 key = (gint64)edges[e].link;
        GArray *list = g_hash_table_lookup(by_link, &key);
        if (!list) {
            list = g_array_new(FALSE, FALSE, sizeof(size_t));
            g_hash_table_insert(by_link, g_memdup2(&key, sizeof key), list);
        }
        g_array_append_val(list, e);
    }
    for (size_t root = 0; root < n_jobs; root++) {
        if (seen[root])
            continue;
        seen[root] = true;
        if (out_root)
            out_root[root] = root;
        size_t head = 0, tail = 0;
        queue[tail++] = root;
        while (head < tail) {
            size_t j = queue[head++];
            GArray *mine = by_job->pdata[j];
            for (size_t a = 0; a < mine->len; a++) {
                const sched__affinity_edge *ej = &edges[g_array_index(mine, size_t, a)];
                gint64 key = (gint64)ej->link;
                GArray *peers = g_hash_table_lookup(by_link, &key);
                for (size_t b = 0; b < peers->len; b++) {
                    const sched__affinity_edge *ek = &edges[g_array_index(peers, size_t, b)];
                    size_t k = ek->job;
                    if (seen[k])
                        continue;
                    seen[k] = true;
                    double t = fmod(out_shift_s[j] - ej->shift_s + ek->shift_s, iter_s[k]);
                    if (t < 0.0)
                        t += iter_s[k];
                    /* a full period up to rounding is no shift */
                    if (t >= iter_s[k] * (1.0 - 1e-9))
                        t = 0.0;
                    out_shift_s[k] = t;
                    if (out_root)
                        out_root[k] = root;
                    queue[tail++] = k;
                }
            }
        }
    }
}
