/* sched-private.h - the pure algorithm cores shared by the scheduler files.
 * Not here: the interface (sim/scheduler.h), the registry (registry.h).
 *
 * Only files in schedulers/ (and the schedulers unit suite) include this.
 * Every function here is pure: it works on plain arrays, never on a
 * sched_ctx, so each one is unit-tested against the papers' worked examples
 * (tests/test_sched_core.c derives each one again).
 *
 *   sched-paths.c   least-congested path selection (Crux §4.1, TACCL*; D9, D13)
 *                   and TACCL* hop-count classes merged to K levels
 *   sched-pair.c    PAIR_SIM, one link under strict priority, and Crux's
 *                   correction factor k (Crux §4.2; D3, D4, D5)
 *   sched-stack-cache.c  the stack simulations' results kept by their inputs
 *   sched-job-cache.c    each running job's bytes per link and candidate
 *                   paths kept by their inputs between reschedules
 *   sched-cut.c     priority compression as max K-cut on the contention DAG
 *                   (Crux §4.3; D6, D7)
 *   sched-bssi.c    Sincronia's BSSI ordering and the rank -> level map (D11, D12)
 *   sched-circle.c  CASSINI's unified-circle score, rotation search and the
 *                   affinity-graph traversal to unique shifts (D14)
 *   sched-common.c  reads from sched_ctx shared by several schedulers
 *                   (intensity, candidate-path tables)
 */
#ifndef CCSIM_SCHEDULERS_SCHED_PRIVATE_H
#define CCSIM_SCHEDULERS_SCHED_PRIVATE_H

#include "sim/scheduler.h"

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Path selection (sched-paths.c) ----------------------------------- */

/* One candidate path: links (indices into the load/capacity arrays). */
typedef struct sched__cand {
    const uint32_t *links; /* (transfer none) */
    size_t n_links;
} sched__cand;

/* One flow to place: its mean rate and its candidates. */
typedef struct sched__pflow {
    double rate_Bps;          /* bytes per iteration / iteration time */
    size_t n_paths;           /* >= 1 */
    const sched__cand *paths; /* (transfer none) n_paths candidates */
} sched__pflow;

/* Place flows one by one in the given order (order[i] indexes flows), each
 * on the candidate p minimising max_{e in p} (load[e] + r)/cap[e]; ties by
 * the sum of that ratio over p, then the lowest index (D9, D18).  load_Bps
 * (n_links entries, in/out) starts as the background load and ends with
 * every flow added; out_path[f] receives the choice for flow f.
 * O(F * P * L). */
void sched__path_select(const double *cap_Bps, double *load_Bps, const sched__pflow *flows,
                        const size_t *order, size_t n_flows, size_t *out_path);

/* TACCL* classes (D13): more hops = higher priority.  The distinct hop
 * counts sorted in decreasing order are classes 0, 1, ...; classes beyond
 * K-1 are merged into level K-1.  out_level[i] for each hops[i].
 * O(n log n + n c), c the number of distinct hop counts. */
void sched__hop_levels(const size_t *hops, size_t n, int K, int *out_level);

/* ---- PAIR_SIM and the correction factor (sched-pair.c) ----------------- */

/* One job on the single link of PAIR_SIM.  An iteration computes compute_s;
 * its communication (comm_s link-seconds) is issued at fwd_frac*compute_s;
 * the next iteration starts opt_s after both are done.  At time 0 the job
 * is phase_s into an iteration (0 <= phase_s <= fwd_frac*compute_s);
 * phase_s = fwd_frac*compute_s is "communication-ready at 0" (D4). */
typedef struct sched__pair_job {
    double gpus;       /* n_j */
    double compute_s;  /* C_j */
    double fwd_frac;   /* f_j */
    double comm_s;     /* link-seconds per iteration on the shared link */
    double opt_s;      /* optimizer step */
    double phase_s;    /* position in the iteration at time 0 */
} sched__pair_job;

/* What PAIR_SIM measures on [0, horizon_s) for each of the two jobs. */
typedef struct sched__pair_result {
    double link_s[2]; /* S_x: link time spent sending x's data */
    double busy_s[2]; /* compute time of x (GPU-busy seconds per GPU) */
} sched__pair_result;

/* Simulate jobs[0] over jobs[1] (jobs[0] strictly higher, preemptive) on
 * one link for horizon_s seconds.  O(iterations). */
void sched__pair_sim(const sched__pair_job jobs[2], double horizon_s, sched__pair_result *out);

/* Crux's correction factor of job j against the reference job r (D4,
 * work-based): run PAIR_SIM with j over r and r over j on horizon_s and
 * return k_j = (dN_j * I_r) / (dN_r * I_j), where dN_x is the change in x's
 * busy GPU-seconds between x high and x low, floored at 0.  Degenerate
 * case dN_r <= 0 (up to noise): k_j = 1 unless dN_j > 0, then k_j puts j
 * just above r (k_j = (I_r/I_j)(1 + 1e-6)); k_j = 1 when I_j = 0.  If out_dS is not NULL it receives
 * {dS_j, dS_r}, the paper's link-time differences. */
double sched__pair_correction(const sched__pair_job *j, double I_j, const sched__pair_job *r,
                              double I_r, double horizon_s, double out_dS[2]);

/* PAIR_SIM generalised to a stack: jobs[0..n) on one link in strict
 * preemptive priority order, jobs[0] highest; each sends in the gaps the
 * jobs above it leave.  busy_s[i] receives job i's compute seconds in
 * [0, horizon_s) (per GPU).  With n = 2 it is sched__pair_sim.
 * O(n * segments), segments <= the iterations of all jobs. */
void sched__stack_sim(const sched__pair_job *jobs, size_t n, double horizon_s, double *busy_s);

/* ---- Stack simulations kept by their inputs (sched-stack-cache.c) ------ */

/* A key for a cache of a pure function of (a number, an array of plain
 * structs without padding): their bytes, compared byte for byte
 * (g_bytes_hash / g_bytes_equal).  Used by the stack cache and cassini's
 * rotation search. */
GBytes *sched__inputs_key(double scalar, const void *items, size_t items_len);

/* sched__stack_sim's results under their inputs (the horizon and the jobs
 * in stack order, byte for byte): a repeated stack costs a hash lookup and
 * gives the same busy_s.  Holds at most max_entries results (then forgets
 * them all). */
typedef struct sched__stack_cache sched__stack_cache;

sched__stack_cache *sched__stack_cache_new(size_t max_entries);
void sched__stack_cache_free(sched__stack_cache *c); /* NULL: nothing */
/* sched__stack_sim(jobs, n, horizon_s, busy_s), or the kept result.
 * O(n) plus a simulation on a miss. */
void sched__stack_cache_sim(sched__stack_cache *c, const sched__pair_job *jobs, size_t n,
                            double horizon_s, double *busy_s);
/* Lookups answered from the cache and simulations run, since creation. */
void sched__stack_cache_counts(const sched__stack_cache *c, size_t *hits, size_t *misses);


/* ---- Priority compression (sched-cut.c) -------------------------------- */

/* The DAG is an n x n matrix w (row-major, w[u*n+v] > 0 is the weight of
 * edge u -> v, 0 no edge), acyclic.  A compression assigns levels with no
 * edge going from a lower level to a higher one; its value is the weight
 * of edges between different levels. */

/* Exact DP on one topological order (order[0..n-1]): the best split of
 * the order into at most K consecutive blocks.  Block b -> level b, empty
 * blocks dropped (levels are 0..used-1).  Returns the cut weight.
 * O(K n^2) time, O(n^2) memory. */
double sched__cut_dp(size_t n, const double *w, const size_t *order, int K, int *out_level);

/* A uniformly random Kahn order of the DAG (zero-indegree node drawn
 * uniformly at each step), into order[0..n-1].  O(n^2). */
void sched__kahn_random(size_t n, const double *w, GRand *rng, size_t *order);

/* Crux's compression (D7): the DP over first_order (the P-sorted order,
 * must be topological) and then m random Kahn orders; keeps the first best.
 * Returns the cut weight; out_level[u] for each node.  O(m K n^2). */
double sched__compress(size_t n, const double *w, const size_t *first_order, int K, size_t m,
                       GRand *rng, int *out_level);

/* ---- Sincronia (sched-bssi.c) ------------------------------------------ */

/* BSSI (Sincronia Algorithm 1) over n coflows and n_ports ports: d is
 * n x n_ports row-major (demand of coflow c at port p, in time units), w the
 * weights (NULL: all 1).  order[0] is the highest priority.  Ties of the
 * bottleneck port go to the lowest port index, or the highest when
 * tie_high_port (the paper's "largest ingress index" of example B); ties
 * of the selected coflow to the lowest coflow index.  Coflows with no
 * demand at all come first, by index.  O(n^2 P). */
void sched__bssi(size_t n, size_t n_ports, const double *d, const double *w, bool tie_high_port,
                 size_t *order);

/* D12: rank i (0-based, order[i]) -> level min(i, K-1), so ranks 1..K-1
 * are distinct and the rest share the lowest level. */
void sched__rank_levels(const size_t *order, size_t n, int K, int *out_level);

/* ---- CASSINI (sched-circle.c) ------------------------------------------ */

/* One job on a link, on a time grid of quantum q: iteration iter_q quanta,
 * Up arc [up_start_q, up_start_q + up_len_q) (wrapping), demand bw. */
typedef struct sched__circle_job {
    int64_t iter_q;     /* >= 1 */
    int64_t up_start_q; /* 0 <= . < iter_q */
    int64_t up_len_q;   /* 0 <= . <= iter_q */
    double bw_Bps;      /* demand while Up */
} sched__circle_job;

/* Perimeter of the unified circle: LCM of the iteration times, or the
 * largest iteration time if the LCM exceeds 20 x the largest (D14). */
int64_t sched__circle_perimeter(const sched__circle_job *jobs, size_t n);

/* Compatibility score 1 - sum_a Excess(a) / (|A| C) on perimeter p (one
 * angle per quantum), job i rotated by rot_q[i] quanta (later in time).
 * O(p n). */
double sched__circle_score(const sched__circle_job *jobs, size_t n, int64_t p,
                           const int64_t *rot_q, double cap_Bps);

/* The best rotations (job 0 fixed at 0; job i scanned over [0, iter_q) in
 * steps of max(1, iter_q / 72), i.e. 5 degrees of its own circle):
 * exhaustive for n <= 3, coordinate descent otherwise; ties to the
 * lexicographically smallest.  rot_q[i] out; returns the score.
 * O(prod(steps) p n) for n <= 3. */
double sched__circle_optimize(const sched__circle_job *jobs, size_t n, double cap_Bps,
                              int64_t *rot_q);

/* One (job, link) edge of the affinity graph: the link's shift for the job. */
typedef struct sched__affinity_edge {
    size_t job;
    size_t link;     /* any ids, compared for equality only */
    double shift_s;  /* t_j^l */
} sched__affinity_edge;

/* Unique shifts from per-link shifts (CASSINI Algorithm 1, D14): BFS over
 * the bipartite job-link graph from the lowest job index of each connected
 * component (shift 0); crossing link l from j to an unvisited k sets
 * t_k = (t_j - t_j^l + t_k^l) mod iter_k.  Non-tree edges (cycles) are
 * ignored.  Jobs without edges get 0.  out_root (nullable) receives each
 * job's component root (itself when it has no edge).  O(n + E). */
void sched__affinity_shifts(size_t n_jobs, const double *iter_s, const sched__affinity_edge *edges,
                            size_t n_edges, double *out_shift_s, size_t *out_root);

/* ---- Reads from sched_ctx (sched-common.c) ------------------------------ */

/* qsort/g_array_sort comparator of uint32_t. */
int sched__cmp_u32(const void *a, const void *b);

/* Standalone communication time t_j = max_e M_{j,e}/B_e under the current
 * paths (sched_job_link_bytes) and its bottleneck link; 0 and UINT32_MAX for
 * a job without traffic. */
double sched__job_comm_s(sched_ctx *ctx, size_t j, uint32_t *out_link);

/* Candidate paths of every flow of job j, flattened: links of path p of
 * flow f are all_links[path_off[path_base[f] + p] .. path_off[path_base[f] + p + 1]). */
typedef struct sched__job_paths {
    size_t n_flows;
    GArray *path_base; /* size_t per flow: index of its first path */
    GArray *path_off;  /* size_t, one per path + 1 */
    GArray *all_links; /* uint32_t */
} sched__job_paths;

void sched__job_paths_load(sched_ctx *ctx, size_t j, sched__job_paths *out);
void sched__job_paths_clear(sched__job_paths *p);

/* What a scheduler reads of each running job that only changes with the
 * job's flows, kept between reschedules under its uid and the inputs it
 * was read under (sched-job-cache.c): reused while those compare equal
 * byte for byte. */
typedef struct sched__job_cache sched__job_cache;

sched__job_cache *sched__job_cache_new(void);
void sched__job_cache_free(sched__job_cache *c); /* NULL: nothing */
/* What sched_job_link_bytes(ctx, j, ...) gives now, as new references
 * (g_array_unref them): *links (uint32_t, increasing), *bytes (double).
 * Inputs: every flow's chosen path and bytes, the fixed links and their
 * bytes.  O(flows + fixed links of j), plus the engine's sum on a change. */
void sched__job_cache_bytes(sched__job_cache *c, sched_ctx *ctx, size_t j, GArray **links,
                            GArray **bytes);
/* What sched__job_paths_load(ctx, j, ...) gives now (transfer none, valid
 * until the next call for j or sched__job_cache_round).  Inputs: every
 * flow's NICs and number of candidates.  O(flows of j), plus the load on
 * a change. */
const sched__job_paths *sched__job_cache_paths(sched__job_cache *c, sched_ctx *ctx, size_t j);
/* End of a reschedule: forget the jobs not asked for since the last call
 * (they ended). */
void sched__job_cache_round(sched__job_cache *c);

/* Least-congested path for every flow of every job, jobs taken in the
 * given order (job indices), flow rates bytes / isolated iteration time;
 * the background load is every job's fixed links.  Calls sched_set_path.
 * The candidate tables come from cache (nullable: loaded afresh).
 * O(F P L). */
void sched__select_paths(sched_ctx *ctx, const size_t *job_order, size_t n_jobs,
                         sched__job_cache *cache);

#endif /* CCSIM_SCHEDULERS_SCHED_PRIVATE_H */
