/* crux.c - Crux (Cao et al., SIGCOMM'24): crux, crux-pa, crux-ps-pa.
 * Not here: its cores (sched-paths.c, sched-pair.c, sched-cut.c).
 *
 * From the paper:
 *  - GPU intensity I_j = W_j / t_j, W_j = n_j C_j GPU-seconds per iteration,
 *    t_j = max_e M_{j,e}/B_e the job's standalone communication time (§3);
 *  - path selection (§4.1): jobs from the most to the least intensive, each
 *    flow on the least congested candidate path;
 *  - priority assignment (§4.2): P_j = k_j I_j, k_j from replaying the pair
 *    (j, reference job) on one link under both orders, k_ref = 1;
 *  - priority compression (§4.3): max K-cut on the contention DAG, an exact
 *    DP over random topological orders (Algorithm 1);
 *  - everything recomputed on every job arrival and completion.
 * Our choices where the paper is silent (docs/schedulers.md):
 *  - D2: t_j is measured once, when the job is first seen, under its ECMP
 *    paths (Crux profiles a new job alone); later path changes leave I_j;
 *  - D9: congestion of a candidate = the highest resulting utilization
 *    max_e (load_e + r)/B_e, flow rate r = bytes / isolated iteration time,
 *    ties by the sum over the path, then the lowest index; the fixed
 *    (intra-host) links of all jobs are the background load;
 *  - D3: the reference job has the most network bytes per iteration,
 *    sum_e M_{j,e} over the links of its flows' paths (the paper: "the job
 *    that generates the most network traffic"; intra-host NVLink/PCIe
 *    bytes, which would favour jobs with more GPUs per host, are left
 *    out); ties: larger t_j, then arrival order;
 *  - D4: PAIR_SIM on the pair's tightest shared link e* = argmax
 *    (M_j,e + M_r,e)/B_e, each job's communication there M_{x,e*}/B_e*,
 *    both communication-ready at 0, horizon 3 x the longer pair
 *    iteration; the work-based k (sched-pair.c) with its degenerate case;
 *    a job sharing no link with the reference keeps k = 1;
 *  - our change to D3/D4, the default ("assign": "context"; "reference"
 *    is D4 above): judging a job against the reference alone ranks last
 *    a job whose burst fits the reference's gaps though the other jobs on
 *    its link leave none (it then starves).  P_j = (dN_j - dN_others)/H on
 *    j's bottleneck with every job there as a strict-priority stack
 *    (sched__stack_sim), j on top vs at the bottom; then a local search
 *    moves a job below the next job sharing a link with it when the stack
 *    on their shared link does more GPU work so (crux_assign_context,
 *    crux_refine; docs/schedulers.md has the reasons and the numbers);
 *  - D6, D7: edge u -> v of weight I_u when u, v have bytes on a common
 *    link and P_u > P_v (ties: arrival order); the DP runs on the P-sorted
 *    order and 10 random Kahn orders from the run's RNG;
 *  - crux-pa and crux-ps-pa ask for unlimited levels (one per job) and use
 *    the P ranking directly; crux-pa leaves the ECMP paths.
 * Overrides, for the exhaustive search of `ccsim optimal-gap` (the
 * simulator as the judge of one decision at a time): the scheduler object
 *   {"name": "crux", "path": {"J": p, ...}, "order": ["J", ...],
 *    "levels": {"J": L, ...}}
 * replaces, for the listed trace job ids, the path choice (candidate p
 * modulo its count, for every flow of the job: a job-level route, e.g.
 * through aggregation switch p), the priority ranking (listed jobs first,
 * in that order) or the final level (clamped to K-1).  Without them the
 * scheduler is exactly the algorithm above.
 * Cost per reschedule with n jobs, F flows, P candidates, L links per
 * path: O(F P L) for the paths, O(n) stack simulations (D4: PAIR_SIMs)
 * plus O(n^2) per local-search pass, each O(n horizon/iteration) steps,
 * O(n L log(n L)) to find shared links (link_users_new) and O(10 K n^2)
 * for the cut.  Stack simulations are kept by their inputs across
 * reschedules (sched-stack-cache.c), and so are each job's M_{j,e} and
 * candidate paths (sched-job-cache.c): a repeated one is a lookup.
 */
#include "sim/scheduler.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/ccs.h"

#include "sched-private.h"

#define CRUX_RANDOM_ORDERS 10
/* Stack simulations kept between reschedules, at most (sched-stack-cache.c). */
#define CRUX_STACKS_KEPT (1u << 14)

/* How P is computed (see crux_assign_context and the file header). */
typedef enum crux_assign_mode {
    CRUX_ASSIGN_CONTEXT,   /* gain against everything on the job's bottleneck (default) */
    CRUX_ASSIGN_REFERENCE, /* k_j against the reference job only (D3, D4) */
} crux_assign_mode;

typedef struct crux_sched {
    bool select_paths;   /* PS */
    bool compress;       /* PC, else one level per rank */
    crux_assign_mode assign;
    GHashTable *comm_s;  /* job uid -> standalone t_j (double *), D2 */
    sched__stack_cache *stacks; /* stack simulations of the context ranking, by their inputs */
    sched__job_cache *jobs;      /* M_{j,e} and candidate paths of the running jobs */
    /* Overrides (see the file header); empty when not given. */
    GHashTable *force_path;  /* job id -> candidate + 1 (GINT_TO_POINTER) */
    GHashTable *force_rank;  /* job id -> position + 1 */
    GHashTable *force_level; /* job id -> level + 1 */
} crux_sched;

/* One running job as Crux sees it. */
typedef struct crux_job {
    size_t j;           /* index in the ctx */
    sched_job_info info;
    double t_s;         /* standalone communication time */
    double I;           /* intensity */
    double P;           /* priority value */
    double tie;         /* second key of the ranking (I in context mode, else 0) */
    double total_bytes; /* sum_e M_{j,e} over network links (not the fixed ones) */
    int forced_rank;    /* position in the "order" override + 1, 0 if unlisted */
    GArray *links;      /* uint32_t, increasing */
    GArray *bytes;      /* double, parallel */
} crux_job;

static void crux_destroy(void *self)
{
    crux_sched *s = self;
    if (!s)
        return;
    g_hash_table_destroy(s->comm_s);
    sched__stack_cache_free(s->stacks);
    sched__job_cache_free(s->jobs);
    g_hash_table_destroy(s->force_path);
    g_hash_table_destroy(s->force_rank);
    g_hash_table_destroy(s->force_level);
    g_free(s);
}

/* {"J": non-negative integer, ...} into map (id -> value + 1). */
static bool parse_id_map(const cJSON *obj, const char *key, GHashTable *map, GError **error)
{
    if (!cJSON_IsObject(obj)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "scheduler.%s: expected an object {\"JOB\": integer}", key);
        return false;
    }
    for (const cJSON *v = obj->child; v; v = v->next) {
        if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble != floor(v->valuedouble) ||
            v->valuedouble > 1e6) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "scheduler.%s.%s: expected a non-negative integer", key, v->string);
            return false;
        }
        g_hash_table_replace(map, g_strdup(v->string), GINT_TO_POINTER(v->valueint + 1));
    }
    return true;
}

static bool parse_overrides(crux_sched *s, const cJSON *cfg, GError **error)
{
    if (!cfg || !cJSON_IsObject(cfg))
        return true;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, "path");
    if (v && !parse_id_map(v, "path", s->force_path, error))
        return false;
    v = cJSON_GetObjectItemCaseSensitive(cfg, "levels");
    if (v && !parse_id_map(v, "levels", s->force_level, error))
        return false;
    v = cJSON_GetObjectItemCaseSensitive(cfg, "assign");
    if (v) {
        if (cJSON_IsString(v) && strcmp(v->valuestring, "context") == 0)
            s->assign = CRUX_ASSIGN_CONTEXT;
        else if (cJSON_IsString(v) && strcmp(v->valuestring, "reference") == 0)
            s->assign = CRUX_ASSIGN_REFERENCE;
        else {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "scheduler.assign: expected \"context\" or \"reference\"");
            return false;
        }
    }
    v = cJSON_GetObjectItemCaseSensitive(cfg, "order");
    if (v) {
        if (!cJSON_IsArray(v)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "scheduler.order: expected an array of job ids");
            return false;
        }
        int pos = 0;
        for (const cJSON *e = v->child; e; e = e->next, pos++) {
            if (!cJSON_IsString(e)) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "scheduler.order[%d]: expected a job id", pos);
                return false;
            }
            g_hash_table_replace(s->force_rank, g_strdup(e->valuestring), GINT_TO_POINTER(pos + 1));
        }
    }
    return true;
}

static void *crux_create_variant(const sched_options *opts, bool ps, bool pc, GError **error)
{
    crux_sched *s = g_new0(crux_sched, 1);
    s->select_paths = ps;
    s->compress = pc;
    s->comm_s = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    s->stacks = sched__stack_cache_new(CRUX_STACKS_KEPT);
    s->jobs = sched__job_cache_new();
    s->force_path = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    s->force_rank = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    s->force_level = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    if (!parse_overrides(s, opts ? opts->config : NULL, error)) {
        crux_destroy(s);
        return NULL;
    }
    return s;
}

static void *crux_create(const sched_options *opts, GError **error)
{
    return crux_create_variant(opts, true, true, error);
}

static void *crux_pa_create(const sched_options *opts, GError **error)
{
    return crux_create_variant(opts, false, false, error);
}

static void *crux_ps_pa_create(const sched_options *opts, GError **error)
{
    return crux_create_variant(opts, true, false, error);
}

/* D2: t_j from the first time the job is seen; stale uids dropped. */
static void crux_measure(crux_sched *s, sched_ctx *ctx, crux_job *jobs, size_t n)
{
    GHashTable *next = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    for (size_t i = 0; i < n; i++) {
        gint64 uid = (gint64)jobs[i].info.uid;
        const double *known = g_hash_table_lookup(s->comm_s, &uid);
        double t = known ? *known : sched__job_comm_s(ctx, jobs[i].j, NULL);
        g_hash_table_insert(next, g_memdup2(&uid, sizeof uid), g_memdup2(&t, sizeof t));
        jobs[i].t_s = t;
        /* A job without traffic contends with nobody; a large finite I
         * keeps it first without infinities in the DAG. */
        jobs[i].I = jobs[i].info.work_gpu_s / (t > 0.0 ? t : 1e-9);
    }
    g_hash_table_destroy(s->comm_s);
    s->comm_s = next;
}

static int cmp_by_I(const void *a, const void *b)
{
    const crux_job *x = *(const crux_job *const *)a, *y = *(const crux_job *const *)b;
    if (x->I != y->I)
        return x->I > y->I ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

static int cmp_by_P(const void *a, const void *b)
{
    const crux_job *x = *(const crux_job *const *)a, *y = *(const crux_job *const *)b;
    if (x->forced_rank != y->forced_rank) /* listed first, in order; then by P */
        return x->forced_rank == 0 ? 1 : y->forced_rank == 0 ? -1
                                       : (x->forced_rank < y->forced_rank ? -1 : 1);
    if (x->P != y->P)
        return x->P > y->P ? -1 : 1;
    if (x->tie != y->tie)
        return x->tie > y->tie ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

/* The shared link of a and b with the largest (M_a + M_b)/B, or
 * UINT32_MAX; its index in each job's arrays. */
static uint32_t tightest_shared(sched_ctx *ctx, const crux_job *a, const crux_job *b, guint *ia,
                                guint *ib)
{
    uint32_t best = UINT32_MAX;
    double best_load = -1.0;
    guint x = 0, y = 0;
    while (x < a->links->len && y < b->links->len) {
        uint32_t ea = g_array_index(a->links, uint32_t, x);
        uint32_t eb = g_array_index(b->links, uint32_t, y);
        if (ea < eb) {
            x++;
        } else if (eb < ea) {
            y++;
        } else {
            double ma = g_array_index(a->bytes, double, x);
            double mb = g_array_index(b->bytes, double, y);
            double load = (ma + mb) / sched_link_capacity_Bps(ctx, ea);
            if (ma > 0.0 && mb > 0.0 && load > best_load) {
                best_load = load;
                best = ea;
                *ia = x;
                *ib = y;
            }
            x++;
            y++;
        }
    }
    return best;
}

static sched__pair_job pair_job(const crux_job *x, double comm_s)
{
    sched__pair_job p = {
        .gpus = x->info.gpus,
        .compute_s = x->info.compute_s,
        .fwd_frac = x->info.fwd_frac,
        .comm_s = comm_s,
        .opt_s = x->info.opt_s,
        .phase_s = x->info.fwd_frac * x->info.compute_s, /* comm-ready at 0 (D4) */
    };
    return p;
}

static double pair_iter_s(const sched__pair_job *p)
{
    return fmax(p->compute_s, p->fwd_frac * p->compute_s + p->comm_s) + p->opt_s;
}

/* P_j = k_j I_j against the reference job (§4.2, D3, D4). */
static void crux_assign(sched_ctx *ctx, crux_job *jobs, size_t n)
{
    size_t r = 0;
    for (size_t i = 1; i < n; i++) {
        const crux_job *a = &jobs[i], *b = &jobs[r];
        if (a->total_bytes > b->total_bytes ||
            (a->total_bytes == b->total_bytes && a->t_s > b->t_s))
            r = i;
    }
    for (size_t i = 0; i < n; i++) {
        double k = 1.0;
        guint ia = 0, ir = 0;
        uint32_t e = i == r ? UINT32_MAX : tightest_shared(ctx, &jobs[i], &jobs[r], &ia, &ir);
        if (e != UINT32_MAX) {
            double cap = sched_link_capacity_Bps(ctx, e);
            sched__pair_job pj = pair_job(&jobs[i], g_array_index(jobs[i].bytes, double, ia) / cap);
            sched__pair_job pr = pair_job(&jobs[r], g_array_index(jobs[r].bytes, double, ir) / cap);
            double horizon = 3.0 * fmax(pair_iter_s(&pj), pair_iter_s(&pr));
            if (horizon > 0.0)
                k = sched__pair_correction(&pj, jobs[i].I, &pr, jobs[r].I, horizon, NULL);
            g_debug("crux: job %s against reference %s on link %u: k %.6g", jobs[i].info.id,
                    jobs[r].info.id, e, k);
        }
        jobs[i].P = k * jobs[i].I;
    }
}

/* Bytes of job x on link e, 0 if it has none (binary search). */
static double bytes_on(const crux_job *x, uint32_t e)
{
    guint lo = 0, hi = x->links->len;
    while (lo < hi) {
        guint mid = (lo + hi) / 2;
        uint32_t m = g_array_index(x->links, uint32_t, mid);
        if (m == e)
            return g_array_index(x->bytes, double, mid);
        if (m < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0.0;
}

/* Job x's bytes M_{x,e} > 0 on link e: one entry of the link users. */
typedef struct link_user {
    uint32_t link;
    uint32_t x;
    double bytes;
} link_user;

static int cmp_link_user(const void *a, const void *b)
{
    const link_user *u = a, *v = b;
    if (u->link != v->link)
        return u->link < v->link ? -1 : 1;
    return (u->x > v->x) - (u->x < v->x);
}

/* Every link's users with bytes on it, by link, each link's in job order
 * (as a loop over the jobs meets them): O(n L log) once per reschedule
 * instead of a search through every job per link of every job. */
static GArray *link_users_new(const crux_job *jobs, size_t n)
{
    GArray *lu = g_array_new(FALSE, FALSE, sizeof(link_user));
    for (size_t x = 0; x < n; x++)
        for (guint k = 0; k < jobs[x].links->len; k++) {
            link_user u = {g_array_index(jobs[x].links, uint32_t, k), (uint32_t)x,
                           g_array_index(jobs[x].bytes, double, k)};
            if (u.bytes > 0.0)
                g_array_append_val(lu, u);
        }
    g_array_sort(lu, cmp_link_user);
    return lu;
}

/* The users of link e: the first of *count entries (NULL, 0 if none). */
static const link_user *users_of(const GArray *lu, uint32_t e, size_t *count)
{
    const link_user *u = (const link_user *)(const void *)lu->data;
    guint lo = 0, hi = lu->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (u[mid].link < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    guint end = lo;
    while (end < lu->len && u[end].link == e)
        end++;
    *count = end - lo;
    return end > lo ? u + lo : NULL;
}

/* Job i's bottleneck among the links it shares: the largest total
 * sum_x M_{x,e}/B_e; UINT32_MAX if it shares none.  lu: link_users_new. */
static uint32_t context_link(sched_ctx *ctx, const crux_job *jobs, const GArray *lu, size_t i)
{
    uint32_t best = UINT32_MAX;
    double best_load = -1.0;
    for (guint k = 0; k < jobs[i].links->len; k++) {
        double mi = g_array_index(jobs[i].bytes, double, k);
        if (!(mi > 0.0))
            continue;
        uint32_t e = g_array_index(jobs[i].links, uint32_t, k);
        double total = mi;
        bool shared = false;
        size_t c;
        const link_user *u = users_of(lu, e, &c);
        for (size_t q = 0; q < c; q++)
            if (u[q].x != i) {
                total += u[q].bytes;
                shared = true;
            }
        double load = total / sched_link_capacity_Bps(ctx, e);
        if (shared && load > best_load) {
            best_load = load;
            best = e;
        }
    }
    return best;
}

static int cmp_ptr_by_I(const void *a, const void *b) { return cmp_by_I(a, b); }

/* Context mode: P_j = (dN_j - dN_rest) / H.  On j's bottleneck e (above)
 * the jobs sharing it run as a stack on one link (sched__stack_sim, each
 * job's communication M_{x,e}/B_e, communication-ready at 0 as in D4, the
 * others in decreasing I, horizon H = 3 x the longest iteration), once
 * with j on top and once with j at the bottom: dN_j is what j gains on
 * top, dN_rest what the others lose.  With two jobs j is above r exactly
 * when D4 puts it there (dN_j > dN_r); with more, a job is judged against
 * all the traffic that can delay it, not against the reference alone.
 * Ties (|P| below noise, e.g. jobs that share nothing): I, then arrival. */
static void crux_assign_context(crux_sched *s, sched_ctx *ctx, crux_job *jobs, size_t n)
{
    g_autofree const crux_job **others = g_new(const crux_job *, n);
    g_autofree sched__pair_job *stack = g_new(sched__pair_job, n);
    g_autofree double *top = g_new(double, n);
    g_autofree double *bot = g_new(double, n);
    g_autoptr(GArray) lu = link_users_new(jobs, n);
    for (size_t i = 0; i < n; i++) {
        jobs[i].P = 0.0;
        jobs[i].tie = jobs[i].I;
        uint32_t e = context_link(ctx, jobs, lu, i);
        if (e == UINT32_MAX)
            continue;
        double cap = sched_link_capacity_Bps(ctx, e);
        size_t m = 0, c;
        const link_user *u = users_of(lu, e, &c);
        for (size_t q = 0; q < c; q++)
            if (u[q].x != i)
                others[m++] = &jobs[u[q].x];
        qsort(others, m, sizeof *others, cmp_ptr_by_I);
        /* top: j, others...; bottom: others..., j */
        double horizon = 0.0, gpus = jobs[i].info.gpus;
        stack[0] = pair_job(&jobs[i], bytes_on(&jobs[i], e) / cap);
        for (size_t k = 0; k < m; k++) {
            stack[k + 1] = pair_job(others[k], bytes_on(others[k], e) / cap);
            gpus += others[k]->info.gpus;
        }
        for (size_t k = 0; k <= m; k++)
            horizon = fmax(horizon, pair_iter_s(&stack[k]));
        horizon *= 3.0;
        if (!(horizon > 0.0))
            continue;
        sched__stack_cache_sim(s->stacks, stack, m + 1, horizon, top);
        sched__pair_job mine = stack[0];
        memmove(stack, stack + 1, m * sizeof *stack);
        stack[m] = mine;
        sched__stack_cache_sim(s->stacks, stack, m + 1, horizon, bot);
        double dN_j = jobs[i].info.gpus * (top[0] - bot[m]);
        double dN_rest = 0.0;
        for (size_t k = 0; k < m; k++)
            dN_rest += others[k]->info.gpus * (bot[k] - top[k + 1]);
        double P = (dN_j - dN_rest) / horizon;
        jobs[i].P = fabs(P) <= 1e-9 * gpus ? 0.0 : P;
        g_debug("crux: job %s on link %u against %zu jobs: dN %.6g, others lose %.6g, P %.6g",
                jobs[i].info.id, e, m, dN_j, dN_rest, jobs[i].P);
    }
}

static bool share_link(const crux_job *a, const crux_job *b)
{
    guint x = 0, y = 0;
    while (x < a->links->len && y < b->links->len) {
        uint32_t ea = g_array_index(a->links, uint32_t, x);
        uint32_t eb = g_array_index(b->links, uint32_t, y);
        if (ea < eb)
            x++;
        else if (eb < ea)
            y++;
        else if (g_array_index(a->bytes, double, x) > 0.0 && g_array_index(b->bytes, double, y) > 0.0)
            return true;
        else
            x++, y++;
    }
    return false;
}

/* Total busy GPU-seconds on link e of the jobs using it, stacked in the
 * order of `by` (sched__stack_sim, horizon 3 x the longest iteration). */
static double stack_work(crux_sched *s, sched_ctx *ctx, crux_job *const *by, size_t n, uint32_t e,
                         sched__pair_job *stack, const crux_job **who, double *busy)
{
    double cap = sched_link_capacity_Bps(ctx, e), horizon = 0.0, work = 0.0;
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        double b = bytes_on(by[k], e);
        if (b > 0.0) {
            who[m] = by[k];
            stack[m] = pair_job(by[k], b / cap);
            horizon = fmax(horizon, pair_iter_s(&stack[m]));
            m++;
        }
    }
    if (!(horizon > 0.0))
        return 0.0;
    sched__stack_cache_sim(s->stacks, stack, m, 3.0 * horizon, busy);
    for (size_t k = 0; k < m; k++)
        work += who[k]->info.gpus * busy[k];
    return work;
}

/* Context mode, second step: a local search on the ranking.  For each job
 * a, b is the next job below it that shares a link with it (the jobs in
 * between share none with a, so moving a just below b changes only the
 * order of a and b); on their tightest shared link, with every job using
 * it stacked in the current ranking, a moves below b if that gives more
 * busy GPU-seconds.  At most n^2 moves (each improves one link; cycles
 * across links are cut off).  O(n^2) stack simulations per pass. */
static void crux_refine(crux_sched *s, sched_ctx *ctx, crux_job **by, size_t n)
{
    g_autofree sched__pair_job *stack = g_new(sched__pair_job, n);
    g_autofree const crux_job **who = g_new(const crux_job *, n);
    g_autofree double *busy = g_new(double, n);
    size_t moves = 0;
    bool changed = true;
    while (changed && moves < n * n) {
        changed = false;
        for (size_t r = 0; r + 1 < n && moves < n * n; r++) {
            size_t q = r + 1;
            while (q < n && !share_link(by[r], by[q]))
                q++;
            if (q == n)
                continue;
            guint ia, ib;
            uint32_t e = tightest_shared(ctx, by[r], by[q], &ia, &ib);
            if (e == UINT32_MAX)
                continue;
            double now = stack_work(s, ctx, by, n, e, stack, who, busy);
            crux_job *a = by[r];
            memmove(&by[r], &by[r + 1], (q - r) * sizeof *by);
            by[q] = a;
            double moved = stack_work(s, ctx, by, n, e, stack, who, busy);
            if (moved > now * (1.0 + 1e-9)) {
                g_debug("crux: %s below %s on link %u: %.6g -> %.6g GPU-s", a->info.id,
                        by[q - 1]->info.id, e, now, moved);
                moves++;
                changed = true;
                r = (size_t)-1; /* from the top again (r++ makes it 0) */
                continue;
            }
            memmove(&by[r + 1], &by[r], (q - r) * sizeof *by);
            by[r] = a;
        }
    }
}

/* Levels from the P ranking `by`: one per rank, or the max K-cut. */
static void crux_levels(const crux_sched *s, sched_ctx *ctx, crux_job *const *by, size_t n,
                        int *level)
{
    int K = sched_priority_levels(ctx);
    if (!s->compress) {
        for (size_t rank = 0; rank < n; rank++)
            level[by[rank]->j] = rank < (size_t)K ? (int)rank : K - 1;
        return;
    }
    /* The DAG in P order: rank a -> rank b (a < b) when they share. */
    g_autofree double *w = g_new0(double, n * n);
    g_autofree size_t *p_order = g_new(size_t, n);
    for (size_t a = 0; a < n; a++) {
        p_order[a] = by[a]->j;
        for (size_t b = a + 1; b < n; b++)
            if (share_link(by[a], by[b]))
                w[by[a]->j * n + by[b]->j] = by[a]->I;
    }
    sched__compress(n, w, p_order, K, CRUX_RANDOM_ORDERS, sched_rng(ctx), level);
}

/* The "path" override: candidate p (modulo its count) for every flow. */
static void crux_force_paths(const crux_sched *s, sched_ctx *ctx, const crux_job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int forced = GPOINTER_TO_INT(g_hash_table_lookup(s->force_path, jobs[i].info.id));
        if (forced == 0)
            continue;
        for (size_t f = 0; f < jobs[i].info.n_flows; f++) {
            sched_flow_info fi;
            sched_flow_get(ctx, i, f, &fi);
            sched_set_path(ctx, i, f, (size_t)(forced - 1) % fi.n_paths);
        }
    }
}

static void crux_reschedule(void *self, sched_ctx *ctx)
{
    crux_sched *s = self;
    size_t n = sched_job_count(ctx);
    if (n == 0) {
        g_hash_table_remove_all(s->comm_s);
        sched__job_cache_round(s->jobs);
        return;
    }
    g_autofree crux_job *jobs = g_new0(crux_job, n);
    g_autofree crux_job **by = g_new(crux_job *, n);
    for (size_t i = 0; i < n; i++) {
        jobs[i].j = i;
        sched_job_get(ctx, i, &jobs[i].info);
        by[i] = &jobs[i];
    }
    crux_measure(s, ctx, jobs, n);

    if (s->select_paths) {
        qsort(by, n, sizeof *by, cmp_by_I);
        g_autofree size_t *order = g_new(size_t, n);
        for (size_t i = 0; i < n; i++)
            order[i] = by[i]->j;
        sched__select_paths(ctx, order, n, s->jobs);
    }
    crux_force_paths(s, ctx, jobs, n);

    for (size_t i = 0; i < n; i++) {
        sched__job_cache_bytes(s->jobs, ctx, i, &jobs[i].links, &jobs[i].bytes);
        /* network traffic only: the intra-host fixed links are not (D3) */
        for (guint k = 0; k < jobs[i].bytes->len; k++)
            jobs[i].total_bytes += g_array_index(jobs[i].bytes, double, k);
        const uint32_t *fl;
        const double *fb;
        size_t nf = sched_job_fixed_links(ctx, i, &fl, &fb);
        for (size_t k = 0; k < nf; k++)
            jobs[i].total_bytes -= fb[k];
    }
    if (s->assign == CRUX_ASSIGN_CONTEXT)
        crux_assign_context(s, ctx, jobs, n);
    else
        crux_assign(ctx, jobs, n);
    for (size_t i = 0; i < n; i++)
        jobs[i].forced_rank = GPOINTER_TO_INT(g_hash_table_lookup(s->force_rank, jobs[i].info.id));
    qsort(by, n, sizeof *by, cmp_by_P);
    bool forced = false;
    for (size_t i = 0; i < n; i++)
        forced = forced || jobs[i].forced_rank > 0;
    if (s->assign == CRUX_ASSIGN_CONTEXT && !forced)
        crux_refine(s, ctx, by, n);

    g_autofree int *level = g_new(int, n);
    crux_levels(s, ctx, by, n, level);
    int K = sched_priority_levels(ctx);
    for (size_t i = 0; i < n; i++) {
        int forced = GPOINTER_TO_INT(g_hash_table_lookup(s->force_level, jobs[i].info.id));
        if (forced > 0)
            level[i] = MIN(forced - 1, K - 1);
    }
    for (size_t i = 0; i < n; i++)
        g_debug("crux %.3f s: job %s t %.6g s I %.6g P %.6g level %d", sched_now_s(ctx),
                jobs[i].info.id, jobs[i].t_s, jobs[i].I, jobs[i].P, level[i]);
    for (size_t i = 0; i < n; i++) {
        sched_set_priority(ctx, i, level[i]);
        g_array_unref(jobs[i].links);
        g_array_unref(jobs[i].bytes);
    }
    sched__job_cache_round(s->jobs);
}

/* scheduler.path, .levels, .order, .assign (parse_overrides) */
static const char *const crux_keys[] = {"path", "levels", "order", "assign", NULL};

const sched_ops sched_crux_ops = {
    .name = "crux",
    .summary = "Crux: intensity-ordered path selection, corrected priorities, max K-cut compression",
    .unlimited_levels = false,
    .create = crux_create,
    .destroy = crux_destroy,
    .reschedule = crux_reschedule,
    .on_comm = NULL,
    .config_keys = crux_keys,
};

const sched_ops sched_crux_pa_ops = {
    .name = "crux-pa",
    .summary = "Crux priority assignment only: ECMP paths, one level per job",
    .unlimited_levels = true,
    .create = crux_pa_create,
    .destroy = crux_destroy,
    .reschedule = crux_reschedule,
    .on_comm = NULL,
    .config_keys = crux_keys,
};

const sched_ops sched_crux_ps_pa_ops = {
    .name = "crux-ps-pa",
    .summary = "Crux path selection + priority assignment, one level per job",
    .unlimited_levels = true,
    .create = crux_ps_pa_create,
    .destroy = crux_destroy,
    .reschedule = crux_reschedule,
    .on_comm = NULL,
    .config_keys = crux_keys,
};
