/* gen.c - the synthetic generator's job population: models, bursts, GPUs, shapes,
 * status, times.  Not here: options (gen_options.c), placement, rows.
 *
 * Everything is drawn from one GRand seeded by --seed, in a fixed order, so
 * the same options give the same bytes.  Where docs/design.md gives a target
 * count (models, statuses, GPU jobs, GPU-count values, pod shapes), the
 * generator meets it exactly (a shuffled list of the scaled counts) instead
 * of drawing it, so the acceptance tests of §3.6 hold at every seed:
 *  - jobs come in bursts (1 + Geometric(.5) jobs sharing model, GPU count and
 *    owner, Exp(10 min) apart); burst starts are uniform over the window;
 *  - each model's bursts are GPU bursts until its GPU-job quota is met;
 *  - GPU counts come from the §2.2 table scaled to the GPU jobs, chosen per
 *    burst by the model group's bucket prior times the bucket's remaining
 *    share (unknown/cognitive take the residual, as §3.1 says);
 *  - pod shapes per GPU value follow fixed quotas calibrated to the per-pod
 *    histogram (docs/traces.md lists the deviations from §3.1 item 5);
 *  - queue delays and run times are stratified draws from the §3.3 knots
 *    (log-linear inverse CDF), so their quantiles match the knots; run
 *    times go to jobs by a Gaussian-copula rank that favours GPU jobs
 *    (gpu_run_tilt), which keeps the quantiles and lifts GPU concurrency;
 *  - placement imitates the production allocator over time: 8-GPU pods on
 *    free hosts of the rack with most free hosts, then the same PSW, then
 *    any; smaller pods first-fit on partly used hosts.
 */
#include "gen-private.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "traces-private.h"

typedef struct model_row {
    const char *name;
    int count;
    char group; /* A B C D E F (docs/design.md §2.4 item 4) */
    double p_gpu;
} model_row;

/* docs/design.md §2.3 counts and §3.1 item 3 GPU probabilities. */
static const model_row models[] = {
    {"unknown", 2793, 'E', 0},       {"cognitive", 1067, 'E', 0},
    {"llama", 266, 'B', .95},        {"GPT-13b", 205, 'A', .95},
    {"ResNet", 118, 'C', .95},       {"GPT-3b", 98, 'B', .95},
    {"rl", 93, 'D', .90},            {"GPT-7b", 83, 'B', .95},
    {"preprocess", 66, 'F', .10},    {"65b", 57, 'A', .95},
    {"mnist", 39, 'C', .95},         {"GPT-13B", 33, 'A', .95},
    {"llama_30b", 32, 'A', .95},     {"DLM", 30, 'B', .95},
    {"GPT", 28, 'B', .95},           {"dota", 28, 'C', .95},
    {"sidecar", 25, 'F', .10},       {"multigen", 25, 'C', .95},
    {"word_embedding", 22, 'C', .90}, {"gpt", 18, 'B', .95},
    {"image", 17, 'C', .95},         {"130b-infer", 10, 'F', .95},
    {"reward", 9, 'B', .95},         {"concat", 8, 'C', .90},
    {"66b", 6, 'A', .95},            {"layer_attn", 4, 'B', .95},
};
#define N_MODELS G_N_ELEMENTS(models)

const char *gen__model_name(int m) { return models[m].name; }

/* Bucket priors by group (b1..b9). */
static const double prior_A[9] = {0, 0, .05, .10, .30, .15, .03, .30, .07};
static const double prior_B[9] = {.05, .05, .25, .20, .25, .08, .01, .08, .03};
static const double prior_C[9] = {.30, .35, .30, .05, 0, 0, 0, 0, 0};
static const double prior_D[9] = {0, .10, .80, .10, 0, 0, 0, 0, 0};
static const double prior_F[9] = {.40, .20, .40, 0, 0, 0, 0, 0, 0};

/* Per-job GPU counts (docs/design.md §2.2, S2 without the topo filter, with
 * the tail values at one job each). */
typedef struct gvalue {
    int g, jobs;
} gvalue;
static const gvalue gvalues[] = {
    {1, 274},   {2, 169},  {3, 17},  {4, 198},  {6, 34},   {8, 927},  {9, 4},    {10, 1},
    {12, 13},   {14, 1},   {16, 409}, {20, 1},  {24, 34},  {32, 434}, {40, 5},   {48, 88},
    {56, 1},    {59, 1},   {60, 46}, {64, 105}, {72, 21},  {80, 17},  {88, 21},  {91, 1},
    {96, 1},    {104, 1},  {118, 1}, {120, 1},  {128, 17}, {256, 143}, {400, 13}, {448, 1},
    {464, 1},   {496, 2},  {504, 1}, {512, 21}, {688, 1},  {744, 1},
};
#define N_GVALUES G_N_ELEMENTS(gvalues)


/* Pod shapes: (pods, GPUs per pod) with quota weights per GPU value. */
typedef struct shape {
    int g;
    int pods[3], per_pod[3];
    double w[3];
} shape;
static const shape shapes[] = {
    {2, {1, 2, 0}, {2, 1, 0}, {.8, .2, 0}},
    {4, {1, 2, 4}, {4, 2, 1}, {.75, .10, .15}},
    {6, {1, 0, 0}, {6, 0, 0}, {1, 0, 0}},
    {8, {1, 2, 4}, {8, 4, 2}, {.915, .07, .015}},
    {12, {2, 3, 0}, {6, 4, 0}, {.75, .25, 0}},
    {16, {2, 4, 0}, {8, 4, 0}, {.97, .03, 0}},
};

static void default_shape(int g, int *pods, int *per)
{
    if (g == 59 || g == 60 || g == 91 || g == 118 || g == 9 || g == 3 || g == 1) {
        *pods = g;
        *per = 1;
    } else if (g % 8 == 0) {
        *pods = g / 8;
        *per = 8;
    } else if (g % 4 == 0) {
        *pods = g / 4;
        *per = 4;
    } else if (g % 2 == 0) {
        *pods = g / 2;
        *per = 2;
    } else {
        *pods = g;
        *per = 1;
    }
}


/* Knots (u, minutes) of the queue delay and run time (docs/design.md §2.4). */
static const double queue_u[] = {0, .25, .5, .75, .9, .95, .99, 1};
static const double queue_q[] = {0, 1, 1, 2, 3, 6, 36, 5416};
static const double run_u[] = {0, .25, .5, .75, .9, .95, .99, 1};
static const double run_q[] = {0, 1, 4, 18, 165, 660.6, 3287.7, 20631};

/* Copula shift that shortens the runs of jobs above 256 GPUs [A, calibrated
 * so active GPUs stay under 2,000 as in the real trace]. */
#define GEN_BIG_RUN_TILT 1.0
/* ... and the runs of burst members that a later attempt replaced [A]. */
#define GEN_RETRY_RUN_TILT 1.0
/* Log-linear inverse CDF; the first segment is linear. */
static double knots_inverse(const double *u, const double *q, size_t n, double x)
{
    for (size_t i = 1; i < n; i++) {
        if (x <= u[i] || i == n - 1) {
            double f = (x - u[i - 1]) / (u[i] - u[i - 1]);
            f = CLAMP(f, 0.0, 1.0);
            if (q[i - 1] <= 0 || q[i] <= 0)
                return q[i - 1] + f * (q[i] - q[i - 1]);
            return exp(log(q[i - 1]) + f * (log(q[i]) - log(q[i - 1])));
        }
    }
    return q[n - 1];
}

/* ---- helpers ---------------------------------------------------------- */

void gen__shuffle_int(GRand *r, int *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)g_rand_int_range(r, 0, (gint32)i);
        int t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

static double rand_exp(GRand *r, double mean) { return -mean * log(1.0 - g_rand_double(r)); }

/* Geometric on {0, 1, ...} with success probability p. */
static int rand_geom(GRand *r, double p)
{
    int k = 0;
    while (g_rand_double(r) >= p && k < 1000)
        k++;
    return k;
}

static double rand_normal(GRand *r)
{
    double u1 = 1.0 - g_rand_double(r), u2 = g_rand_double(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * G_PI * u2);
}

/* Largest-remainder rounding of counts[i] * f, summing to round(sum * f)
 * or to total when total >= 0. */
static void scale_counts(const int *counts, size_t n, double f, long total, int *out)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += counts[i];
    if (total < 0)
        total = lround(sum * f);
    double *rem = g_new(double, n);
    long acc = 0;
    for (size_t i = 0; i < n; i++) {
        double x = sum > 0 ? counts[i] * (double)total / sum : 0;
        out[i] = (int)floor(x);
        rem[i] = x - out[i];
        acc += out[i];
    }
    while (acc < total) {
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (rem[i] > rem[best])
                best = i;
        out[best]++;
        rem[best] = -1;
        acc++;
    }
    g_free(rem);
}


/* Zipf(s) sampler over n items: cumulative weights. */
typedef struct zipf {
    double *cum;
    int n;
} zipf;

static void zipf_init(zipf *z, int n, double s)
{
    z->n = n;
    z->cum = g_new(double, n);
    double acc = 0;
    for (int k = 0; k < n; k++) {
        acc += 1.0 / pow(k + 1, s);
        z->cum[k] = acc;
    }
}

static int zipf_draw(const zipf *z, GRand *r)
{
    double u = g_rand_double(r) * z->cum[z->n - 1];
    int lo = 0, hi = z->n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (z->cum[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* ---- the job population ------------------------------------------------ */


/* Bursts with exact model counts. */
static void make_bursts(gen *G)
{
    int base[N_MODELS], cnt[N_MODELS];
    for (size_t m = 0; m < N_MODELS; m++)
        base[m] = models[m].count;
    scale_counts(base, N_MODELS, G->f, -1, cnt);
    long left = 0;
    for (size_t m = 0; m < N_MODELS; m++)
        left += cnt[m];
    while (left > 0) {
        long u = (long)(g_rand_double(G->r) * left);
        size_t m = 0;
        for (long acc = cnt[0]; acc <= u; acc += cnt[++m])
            ;
        int size = 1 + rand_geom(G->r, 0.5);
        size = MIN(size, cnt[m]);
        gburst b = {.model = (int)m, .size = size, .first = (int)G->jobs->len};
        g_array_append_val(G->bursts, b);
        for (int k = 0; k < size; k++) {
            gjob j;
            memset(&j, 0, sizeof j);
            j.model = (int)m;
            j.burst = (int)G->bursts->len - 1;
            g_array_append_val(G->jobs, j);
        }
        cnt[m] -= size;
        left -= size;
    }
}

/* GPU bursts per model until the model's GPU-job quota is met. */
static void choose_gpu(gen *G)
{
    double fixed = 0;
    int e_jobs = 0;
    for (size_t m = 0; m < N_MODELS; m++) {
        if (models[m].group == 'E')
            e_jobs += models[m].count;
        else
            fixed += models[m].count * models[m].p_gpu;
    }
    /* cognitive and unknown share one p, solved so that GPU jobs = 2816 */
    double p_e = (GEN_GPU_JOBS - fixed) / e_jobs;
    size_t nb = G->bursts->len;
    g_autofree int *order = g_new(int, nb);
    for (size_t i = 0; i < nb; i++)
        order[i] = (int)i;
    gen__shuffle_int(G->r, order, nb);
    for (size_t m = 0; m < N_MODELS; m++) {
        int total = 0;
        for (size_t i = 0; i < nb; i++)
            if (B(G, i)->model == (int)m)
                total += B(G, i)->size;
        double p = models[m].group == 'E' ? p_e : models[m].p_gpu;
        double target = total * p, acc = 0;
        for (size_t k = 0; k < nb; k++) {
            gburst *b = B(G, (size_t)order[k]);
            if (b->model != (int)m)
                continue;
            if (acc + b->size / 2.0 <= target) {
                b->gpu = true;
                acc += b->size;
            }
        }
    }
}

static const double *prior_of(char group)
{
    switch (group) {
    case 'A': return prior_A;
    case 'B': return prior_B;
    case 'C': return prior_C;
    case 'D': return prior_D;
    case 'F': return prior_F;
    default: return NULL;
    }
}

/* GPU counts: exact value counts scaled to the GPU jobs, per burst. */
static void choose_gpus(gen *G)
{
    int n_gpu_jobs = 0;
    for (size_t i = 0; i < G->bursts->len; i++)
        if (B(G, i)->gpu)
            n_gpu_jobs += B(G, i)->size;
    int base[N_GVALUES], left[N_GVALUES];
    for (size_t v = 0; v < N_GVALUES; v++)
        base[v] = gvalues[v].jobs;
    scale_counts(base, N_GVALUES, 0, n_gpu_jobs, left);
    double target[9] = {0}, remain[9] = {0};
    for (size_t v = 0; v < N_GVALUES; v++) {
        target[trace__gpu_bucket(gvalues[v].g)] += left[v];
        remain[trace__gpu_bucket(gvalues[v].g)] += left[v];
    }
    /* GPU bursts, the groups with priors first (random order), then E. */
    size_t nb = G->bursts->len;
    g_autofree int *order = g_new(int, nb);
    for (size_t i = 0; i < nb; i++)
        order[i] = (int)i;
    gen__shuffle_int(G->r, order, nb);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < nb; k++) {
            gburst *b = B(G, (size_t)order[k]);
            const double *pr = prior_of(models[b->model].group);
            if (!b->gpu || (pass == 0) != (pr != NULL))
                continue;
            for (int m = 0; m < b->size; m++) {
                gjob *j = J(G, (size_t)(b->first + m));
                j->gpu = true;
                int v = -1;
                /* the burst's value while it lasts */
                if (m > 0) {
                    for (size_t x = 0; x < N_GVALUES; x++)
                        if (gvalues[x].g == b->g && left[x] > 0)
                            v = (int)x;
                }
                if (v < 0) {
                    double w[9], tot = 0;
                    for (int q = 0; q < 9; q++) {
                        w[q] = remain[q] <= 0 ? 0
                               : pr      ? pr[q] * remain[q] / target[q]
                                         : remain[q];
                        tot += w[q];
                    }
                    if (tot <= 0) { /* the prior's buckets are used up */
                        for (int q = 0; q < 9; q++)
                            tot += (w[q] = remain[q]);
                    }
                    double u = g_rand_double(G->r) * tot;
                    int q = 0;
                    while (q < 8 && (u -= w[q]) >= 0)
                        q++;
                    while (remain[q] <= 0) /* rounding at the edge */
                        q = (q + 1) % 9;
                    double in = g_rand_double(G->r) * remain[q];
                    for (size_t x = 0; x < N_GVALUES; x++) {
                        if (trace__gpu_bucket(gvalues[x].g) != q || left[x] <= 0)
                            continue;
                        v = (int)x;
                        if ((in -= left[x]) < 0)
                            break;
                    }
                    b->g = gvalues[v].g;
                }
                left[v]--;
                remain[trace__gpu_bucket(gvalues[v].g)]--;
                j->g = gvalues[v].g;
            }
        }
    }
}

/* Pod shapes by quota per GPU value. */
static void choose_shapes(gen *G)
{
    size_t n = G->jobs->len;
    for (size_t i = 0; i < n; i++) {
        gjob *j = J(G, i);
        if (j->gpu)
            default_shape(j->g, &j->pods, &j->per_pod);
    }
    g_autofree int *idx = g_new(int, n);
    for (size_t s = 0; s < G_N_ELEMENTS(shapes); s++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (J(G, i)->gpu && J(G, i)->g == shapes[s].g)
                idx[k++] = (int)i;
        gen__shuffle_int(G->r, idx, k);
        int quota[3];
        int w[3];
        for (int c = 0; c < 3; c++)
            w[c] = (int)lround(shapes[s].w[c] * 1000);
        scale_counts(w, 3, 0, (long)k, quota);
        size_t pos = 0;
        for (int c = 0; c < 3; c++) {
            for (int q = 0; q < quota[c]; q++, pos++) {
                gjob *j = J(G, (size_t)idx[pos]);
                j->pods = shapes[s].pods[c];
                j->per_pod = shapes[s].per_pod[c];
            }
        }
    }
}

/* Statuses: exact counts of (status, ran) categories (docs/design.md §2.1). */
static void choose_status(gen *G)
{
    /* never ran: Stopped 453, Failed 295, Succeeded 55; ran and finished:
     * Succeeded 2187, Stopped 1181, Failed 1000; Running 9. */
    static const int base[7] = {453, 295, 55, 2187, 1181, 1000, 9};
    static const int st[7] = {ST_STOPPED, ST_FAILED, ST_SUCCEEDED, ST_SUCCEEDED,
                              ST_STOPPED, ST_FAILED, ST_RUNNING};
    static const bool ran[7] = {false, false, false, true, true, true, true};
    size_t n = G->jobs->len;
    int cnt[7];
    scale_counts(base, 7, 0, (long)n, cnt);
    g_autofree int *cat = g_new(int, n);
    size_t k = 0;
    for (int c = 0; c < 7; c++)
        for (int q = 0; q < cnt[c]; q++)
            cat[k++] = c;
    gen__shuffle_int(G->r, cat, n);
    /* inside a burst, the earlier attempts fail or are stopped and the
     * successful one comes last */
    for (size_t b = 0; b < G->bursts->len; b++) {
        gburst *bu = B(G, b);
        for (int x = 0; x < bu->size; x++)
            for (int y = x + 1; y < bu->size; y++) {
                int *a = &cat[bu->first + x], *c = &cat[bu->first + y];
                if (st[*a] == ST_SUCCEEDED && st[*c] != ST_SUCCEEDED) {
                    int t = *a;
                    *a = *c;
                    *c = t;
                }
            }
    }
    for (size_t i = 0; i < n; i++) {
        J(G, i)->status = st[cat[i]];
        J(G, i)->ran = ran[cat[i]];
    }
}

/* Arrival times, job names, owners. */
static void choose_times(gen *G)
{
    zipf zu, zw;
    zipf_init(&zu, 150, 1.1);
    zipf_init(&zw, 80, 1.1);
    g_autoptr(GHashTable) names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    double span = (double)(G->t_end - G->t0);
    for (size_t b = 0; b < G->bursts->len; b++) {
        gburst *bu = B(G, b);
        double t = G->t0 + g_rand_double(G->r) * span;
        int user = zipf_draw(&zu, G->r), ws = zipf_draw(&zw, G->r);
        int cluster = g_rand_double(G->r) < 0.9 ? 0 : 1;
        for (int m = 0; m < bu->size; m++) {
            gjob *j = J(G, (size_t)(bu->first + m));
            if (m > 0)
                t += rand_exp(G->r, 600);
            j->submit = (int64_t)floor(t / 60) * 60;
            j->user = user;
            j->workspace = ws;
            j->cluster = cluster;
            do {
                static const char al[] = "abcdefghijklmnopqrstuvwxyz0123456789";
                memcpy(j->name, "dlc", 3);
                for (int c = 3; c < 16; c++)
                    j->name[c] = al[g_rand_int_range(G->r, 0, 36)];
                j->name[16] = '\0';
            } while (!g_hash_table_add(names, g_strdup(j->name)));
        }
    }
    g_free(zu.cum);
    g_free(zw.cum);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_key(gconstpointer a, gconstpointer b, gpointer data)
{
    gen *G = data;
    double x = J(G, (size_t) * (const int *)a)->run_key, y = J(G, (size_t) * (const int *)b)->run_key;
    int c = (x > y) - (x < y);
    return c ? c : *(const int *)a - *(const int *)b;
}

static int64_t job_end(const gen *G, const gjob *j)
{
    return j->status == ST_RUNNING ? G->t_dump : j->finished;
}

/* The cluster's GPU quota: a GPU job that would lift the GPUs in use above
 * gpu_cap waits (its queue delay grows) until enough of them end, as the
 * production scheduler queues jobs.  Load only grows at starts, so checking
 * every start suffices; passes repeat until no start is over the cap. */
static void admit(gen *G)
{
    size_t n = G->jobs->len;
    g_autofree int *idx = g_new(int, n);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (J(G, i)->ran && J(G, i)->gpu)
            idx[m++] = (int)i;
    for (int pass = 0; pass < 100; pass++) {
        bool changed = false;
        for (size_t a = 0; a < m; a++) {
            gjob *j = J(G, (size_t)idx[a]);
            double load = j->g;
            int64_t next = INT64_MAX;
            for (size_t b = 0; b < m; b++) {
                gjob *x = J(G, (size_t)idx[b]);
                if (b == a || x->running > j->running || job_end(G, x) <= j->running)
                    continue;
                load += x->g;
                next = MIN(next, job_end(G, x));
            }
            if (load <= G->o.gpu_cap * G->o.scale || next == INT64_MAX)
                continue;
            int64_t dur = job_end(G, j) - j->running;
            j->running = next;
            j->delayed = true;
            if (j->status != ST_RUNNING)
                j->finished = MIN(next + dur, G->t_dump - 60);
            changed = true;
        }
        if (!changed)
            break;
    }
}

static int cmp_q_desc(gconstpointer a, gconstpointer b, gpointer data)
{
    const int64_t *q = data;
    int64_t x = q[*(const int *)a], y = q[*(const int *)b];
    if (x != y)
        return x > y ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}

/* Admission delays lengthen some queue delays.  To keep the multiset of
 * drawn delays (and so their quantiles), each delayed job's drawn delay goes
 * to the CPU job with the largest drawn delay: the top of the distribution
 * is replaced by the admission delays, which are long anyway.  CPU jobs do
 * not count against the GPU quota, so this cannot break it. */
static void give_back_queue(gen *G, const int64_t *q0)
{
    size_t n = G->jobs->len;
    g_autofree int *cpu = g_new(int, n);
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        if (J(G, i)->ran && !J(G, i)->gpu)
            cpu[nc++] = (int)i;
    g_qsort_with_data(cpu, (gint)nc, sizeof *cpu, cmp_q_desc, (gpointer)q0);
    size_t k = 0;
    for (size_t i = 0; i < n && k < nc; i++) {
        gjob *j = J(G, i);
        if (!j->delayed)
            continue;
        gjob *c = J(G, (size_t)cpu[k++]);
        int64_t shift = q0[i] - (c->running - c->submit);
        c->running += shift;
        if (c->status != ST_RUNNING)
            c->finished += shift;
    }
}

/* Queue delays, run times and the timestamps that follow from them. */
static void choose_lifecycle(gen *G)
{
    size_t n = G->jobs->len;
    g_autofree int *ran = g_new(int, n), *fin = g_new(int, n);
    size_t nr = 0, nf = 0;
    for (size_t i = 0; i < n; i++) {
        gjob *j = J(G, i);
        if (j->ran)
            ran[nr++] = (int)i;
        if (j->ran && j->status != ST_RUNNING)
            fin[nf++] = (int)i;
    }
    /* stratified queue delays, shuffled over the jobs that ran */
    g_autofree double *q = g_new(double, MAX(nr, 1));
    for (size_t k = 0; k < nr; k++)
        q[k] = knots_inverse(queue_u, queue_q, G_N_ELEMENTS(queue_u),
                             (k + g_rand_double(G->r)) / (double)nr);
    g_autofree int *perm = g_new(int, MAX(nr, 1));
    for (size_t k = 0; k < nr; k++)
        perm[k] = (int)k;
    gen__shuffle_int(G->r, perm, nr);
    for (size_t k = 0; k < nr; k++) {
        gjob *j = J(G, (size_t)ran[k]);
        /* rounding to whole minutes, as truncated timestamps do */
        j->running = j->submit + 60 * (int64_t)floor(q[perm[k]] + 0.5);
    }
    /* stratified run times, sorted, given to jobs in the order of a
     * Gaussian key that GPU jobs tilt upwards */
    g_autofree double *d = g_new(double, MAX(nf, 1));
    for (size_t k = 0; k < nf; k++)
        d[k] = knots_inverse(run_u, run_q, G_N_ELEMENTS(run_u),
                             (k + g_rand_double(G->r)) / (double)nf);
    qsort(d, nf, sizeof *d, cmp_double);
    for (size_t k = 0; k < nf; k++) {
        gjob *j = J(G, (size_t)fin[k]);
        const gburst *bu = B(G, (size_t)j->burst);
        bool retried = fin[k] < bu->first + bu->size - 1 && j->status != ST_SUCCEEDED;
        j->run_key = rand_normal(G->r) + (j->gpu ? G->o.gpu_run_tilt : 0) -
                     (j->gpu && j->g > 256 ? GEN_BIG_RUN_TILT : 0) -
                     (retried ? GEN_RETRY_RUN_TILT : 0);
    }
    g_qsort_with_data(fin, (gint)nf, sizeof *fin, cmp_key, G);
    for (size_t k = 0; k < nf; k++) {
        gjob *j = J(G, (size_t)fin[k]);
        int64_t dur = 60 * (int64_t)floor(d[k] + 0.5);
        j->finished = MIN(j->running + dur, G->t_dump - 60);
    }
    g_autofree int64_t *q0 = g_new(int64_t, n);
    for (size_t i = 0; i < n; i++)
        q0[i] = J(G, i)->running - J(G, i)->submit;
    admit(G);
    give_back_queue(G, q0);
    for (size_t i = 0; i < n; i++) {
        gjob *j = J(G, i);
        j->created = j->submit - (g_rand_double(G->r) < 0.3 ? 60 : 0);
        if (!j->ran) /* the pods are deleted after Exp(3 min) */
            j->finished = j->submit + 60 * (int64_t)floor(rand_exp(G->r, 3));
        j->modified = (j->status == ST_RUNNING ? j->running : j->finished) +
                      (g_rand_double(G->r) < 0.5 ? 60 : 0);
        j->pod_created_delay = g_rand_double(G->r) < 0.5 ? 1 : 0;
        j->pod_running_delay = g_rand_double(G->r) < 0.6 ? 1 : 0;
    }
}

/* CPU pods, aimasters and jobs without workers, tuned to the row count. */
static void choose_pods(gen *G)
{
    size_t n = G->jobs->len;
    long gpu_pods = 0, aim = 0, cpu_jobs = 0;
    int no_workers = (int)lround(GEN_NO_WORKER_JOBS * G->f);
    /* jobs without workers: among never-ran CPU jobs */
    g_autofree int *cand = g_new(int, n);
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        if (!J(G, i)->ran && !J(G, i)->gpu)
            cand[nc++] = (int)i;
    gen__shuffle_int(G->r, cand, nc);
    for (size_t k = 0; k < nc && (int)k < no_workers; k++)
        J(G, (size_t)cand[k])->no_workers = true;
    for (size_t i = 0; i < n; i++) {
        gjob *j = J(G, i);
        if (j->no_workers)
            continue;
        j->aimaster = g_rand_double(G->r) < 0.05;
        aim += j->aimaster;
        if (j->gpu)
            gpu_pods += j->pods;
        else
            cpu_jobs++;
    }
    double rows = GEN_WORKER_ROWS * G->f;
    double mean = cpu_jobs > 0 ? (rows - gpu_pods - aim) / cpu_jobs : 1;
    double p = 1.0 / MAX(mean, 1.0); /* 1 + Geometric(p) has mean 1/p */
    for (size_t i = 0; i < n; i++) {
        gjob *j = J(G, i);
        if (!j->no_workers && !j->gpu)
            j->cpu_pods = 1 + rand_geom(G->r, p);
    }
}

void gen__populate(gen *G)
{
    make_bursts(G);
    choose_gpu(G);
    choose_gpus(G);
    choose_shapes(G);
    choose_status(G);
    choose_times(G);
    choose_lifecycle(G);
    choose_pods(G);
}
