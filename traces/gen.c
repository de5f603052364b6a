/* gen.c - the synthetic Lingjun trace generator (research/workloads.md §3;
 * docs/traces.md "The synthetic generator").
 *
 * Everything is drawn from one GRand seeded by --seed, in a fixed order, so
 * the same options give the same bytes.  Where workloads.md gives a target
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
#include "gen.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "ccs.h"
#include "traces-private.h"

/* ---- the published numbers ------------------------------------------ */

#define GEN_JOBS 5180
#define GEN_WORKER_ROWS 23742
#define GEN_GPU_JOBS 2816
#define GEN_NO_WORKER_JOBS 129
#define GEN_OUTSIDE_HOSTS 150
#define GEN_TOPO_MATCH 0.863

typedef struct model_row {
    const char *name;
    int count;
    char group; /* A B C D E F (workloads.md §3.1 item 4) */
    double p_gpu;
} model_row;

/* workloads.md §2.3 counts and §3.1 item 3 GPU probabilities. */
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

/* Bucket priors by group (b1..b9). */
static const double prior_A[9] = {0, 0, .05, .10, .30, .15, .03, .30, .07};
static const double prior_B[9] = {.05, .05, .25, .20, .25, .08, .01, .08, .03};
static const double prior_C[9] = {.30, .35, .30, .05, 0, 0, 0, 0, 0};
static const double prior_D[9] = {0, .10, .80, .10, 0, 0, 0, 0, 0};
static const double prior_F[9] = {.40, .20, .40, 0, 0, 0, 0, 0, 0};

/* Per-job GPU counts (workloads.md §2.2, S2 without the topo filter, with
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

static int bucket_of(int g)
{
    if (g <= 1)
        return 0;
    if (g < 8)
        return 1;
    if (g == 8)
        return 2;
    if (g <= 16)
        return 3;
    if (g <= 48)
        return 4;
    if (g < 128)
        return 5;
    if (g == 128)
        return 6;
    if (g <= 256)
        return 7;
    return 8;
}

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

/* Synthetic topology: rack sizes per PSW with the real histogram
 * {8: 68, 7: 23, 6: 15, 5: 7, 4: 2, 3: 1, 2: 3} and per-PSW totals
 * P10 362 hosts / 48 racks, P12 306 / 42, P8 179 / 29 (workloads.md §1.4). */
typedef struct psw_racks {
    const char *psw;
    int n_racks;
    int sizes[9]; /* racks with 0..8 hosts */
} psw_racks;
static const psw_racks synth_topo[] = {
    {"P10", 48, {0, 0, 3, 0, 1, 0, 0, 0, 44}},
    {"P12", 42, {0, 0, 0, 1, 1, 2, 1, 13, 24}},
    {"P8", 29, {0, 0, 0, 0, 0, 5, 14, 10, 0}},
};

/* Knots (u, minutes) of the queue delay and run time (workloads.md §3.3). */
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

static void shuffle_int(GRand *r, int *a, size_t n)
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

static char *hash_hex(const char *kind, guint32 seed, guint64 n)
{
    g_autofree char *s = g_strdup_printf("%s:%u:%" G_GUINT64_FORMAT, kind, seed, n);
    return g_compute_checksum_for_string(G_CHECKSUM_SHA256, s, -1);
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

trace_gen_options trace_gen_options_default(void)
{
    trace_gen_options o = {.seed = 1, .days = 16, .scale = 1, .topo_path = NULL, .gzip = false,
                           .gpu_run_tilt = 0.7, .gpu_cap = 2000};
    return o;
}

/* ---- the job population ------------------------------------------------ */

enum { ST_SUCCEEDED, ST_STOPPED, ST_FAILED, ST_RUNNING };

typedef struct gjob {
    int model;        /* index into models[] */
    int burst;
    int status;       /* ST_* */
    bool ran;         /* gmt_job_running set */
    bool gpu;
    int g, pods, per_pod;
    int cpu_pods;     /* CPU-only pods (CPU jobs) */
    bool aimaster, no_workers, outside;
    int user, workspace, cluster;
    int64_t submit, created, running, finished, modified; /* unix s, minute resolution */
    int pod_created_delay, pod_running_delay;             /* minutes */
    double run_key;                                        /* copula rank key */
    bool delayed;                                          /* admission made it wait */
    int empty_hosts;                                       /* pods with an empty host_ip */
    char name[17];
    char **hosts;     /* per GPU pod (owned strings), NULL until placed */
} gjob;

typedef struct gburst {
    int model, size, first; /* first job index */
    bool gpu;
    int g;
    int64_t start;
} gburst;

typedef struct gen {
    GRand *r;
    trace_gen_options o;
    double f; /* count scale = scale * days / 16 */
    int64_t t0, t_end, t_dump;
    GArray *jobs;   /* gjob */
    GArray *bursts; /* gburst */
    GPtrArray *topo_rows;
    GPtrArray *outside_hosts;
} gen;

static gjob *J(gen *G, size_t i) { return &g_array_index(G->jobs, gjob, i); }
static gburst *B(gen *G, size_t i) { return &g_array_index(G->bursts, gburst, i); }

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
    shuffle_int(G->r, order, nb);
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
        target[bucket_of(gvalues[v].g)] += left[v];
        remain[bucket_of(gvalues[v].g)] += left[v];
    }
    /* GPU bursts, the groups with priors first (random order), then E. */
    size_t nb = G->bursts->len;
    g_autofree int *order = g_new(int, nb);
    for (size_t i = 0; i < nb; i++)
        order[i] = (int)i;
    shuffle_int(G->r, order, nb);
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
                        if (bucket_of(gvalues[x].g) != q || left[x] <= 0)
                            continue;
                        v = (int)x;
                        if ((in -= left[x]) < 0)
                            break;
                    }
                    b->g = gvalues[v].g;
                }
                left[v]--;
                remain[bucket_of(gvalues[v].g)]--;
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
        shuffle_int(G->r, idx, k);
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

/* Statuses: exact counts of (status, ran) categories (workloads.md §2.1). */
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
    shuffle_int(G->r, cat, n);
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
            if (load <= G->o.gpu_cap || next == INT64_MAX)
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
    shuffle_int(G->r, perm, nr);
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
    shuffle_int(G->r, cand, nc);
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

static int job_rows(const gjob *j)
{
    if (j->no_workers)
        return 0;
    return (j->gpu ? j->pods : j->cpu_pods) + (j->aimaster ? 1 : 0);
}

/* Whole jobs outside topo.csv (workloads.md §3.5), then corrected so that
 * 86.3% of the worker rows match topo.csv. */
static void choose_outside(gen *G)
{
    size_t n = G->jobs->len;
    long rows = 0, out_rows = 0;
    for (size_t i = 0; i < n; i++) {
        gjob *j = J(G, i);
        double p = !j->gpu     ? .32
                   : j->g == 1 ? .20
                   : j->g == 2 ? .40
                   : j->g <= 6 ? .15
                   : j->g <= 48 ? .06
                                : .01;
        j->outside = g_rand_double(G->r) < p;
        rows += job_rows(j);
    }
    /* rows with an empty host: each pod of a never-ran job with p .5 */
    double empty = 0;
    for (size_t i = 0; i < n; i++) {
        gjob *j = J(G, i);
        if (j->ran)
            continue;
        for (int p = 0; p < job_rows(j); p++)
            j->empty_hosts += g_rand_double(G->r) < 0.5;
        empty += j->empty_hosts;
    }
    for (size_t i = 0; i < n; i++)
        if (J(G, i)->outside)
            out_rows += job_rows(J(G, i)) - J(G, i)->empty_hosts;
    double want = (1.0 - GEN_TOPO_MATCH) * rows - empty;
    g_autofree int *idx = g_new(int, n);
    for (size_t i = 0; i < n; i++)
        idx[i] = (int)i;
    shuffle_int(G->r, idx, n);
    /* small jobs first, then any job of up to 64 rows */
    for (size_t k = 0; k < 2 * n && fabs(out_rows - want) > 2; k++) {
        gjob *j = J(G, (size_t)idx[k % n]);
        int r = job_rows(j) - j->empty_hosts;
        if (r <= 0 || (k < n && (r > 4 || (j->gpu && j->g > 8))) || r > 64)
            continue;
        if (out_rows > want && j->outside) {
            j->outside = false;
            out_rows -= r;
        } else if (out_rows < want && !j->outside) {
            j->outside = true;
            out_rows += r;
        }
    }
    g_debug("gen-trace: %ld rows outside topo.csv, %.0f wanted", out_rows, want);
}

/* ---- placement -------------------------------------------------------- */

typedef struct phost {
    int used;  /* GPUs in use */
    int rack;
} phost;

typedef struct prack {
    int psw;
    GArray *hosts; /* int host indices */
    int free_hosts;
} prack;

typedef struct placer {
    phost *hosts;
    size_t n_hosts;
    prack *racks;
    size_t n_racks;
    char **ips; /* borrowed from the topo rows */
} placer;

static void placer_init(placer *P, GPtrArray *topo)
{
    P->n_hosts = topo->len;
    P->hosts = g_new0(phost, P->n_hosts);
    P->ips = g_new0(char *, P->n_hosts);
    g_autoptr(GHashTable) racks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) psws = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GArray *rk = g_array_new(FALSE, TRUE, sizeof(prack));
    for (size_t h = 0; h < P->n_hosts; h++) {
        trace__row *row = g_ptr_array_index(topo, h);
        P->ips[h] = row->f[TRACE__T_IP];
        gpointer pv;
        if (!g_hash_table_lookup_extended(psws, row->f[TRACE__T_PSW], NULL, &pv)) {
            pv = GUINT_TO_POINTER(g_hash_table_size(psws));
            g_hash_table_insert(psws, g_strdup(row->f[TRACE__T_PSW]), pv);
        }
        g_autofree char *key = g_strdup_printf("%s/%s", row->f[TRACE__T_PSW], row->f[TRACE__T_ASW]);
        gpointer rv;
        if (!g_hash_table_lookup_extended(racks, key, NULL, &rv)) {
            rv = GUINT_TO_POINTER(rk->len);
            g_hash_table_insert(racks, g_strdup(key), rv);
            prack r = {.psw = (int)GPOINTER_TO_UINT(pv), .hosts = g_array_new(FALSE, FALSE, sizeof(int))};
            g_array_append_val(rk, r);
        }
        prack *r = &g_array_index(rk, prack, GPOINTER_TO_UINT(rv));
        int hi = (int)h;
        g_array_append_val(r->hosts, hi);
        r->free_hosts++;
        P->hosts[h].rack = (int)GPOINTER_TO_UINT(rv);
    }
    P->n_racks = rk->len;
    P->racks = (prack *)(void *)g_array_free(rk, FALSE);
}

static void placer_clear(placer *P)
{
    for (size_t r = 0; r < P->n_racks; r++)
        g_array_unref(P->racks[r].hosts);
    g_free(P->racks);
    g_free(P->hosts);
    g_free(P->ips);
}

static void host_use(placer *P, int h, int g)
{
    if (P->hosts[h].used == 0 && g > 0)
        P->racks[P->hosts[h].rack].free_hosts--;
    P->hosts[h].used += g;
    if (P->hosts[h].used == 0)
        P->racks[P->hosts[h].rack].free_hosts++;
}

/* The best rack for whole hosts: most free hosts, in psw if psw >= 0. */
static int best_rack(const placer *P, int psw)
{
    int best = -1;
    for (size_t r = 0; r < P->n_racks; r++) {
        if (P->racks[r].free_hosts == 0 || (psw >= 0 && P->racks[r].psw != psw))
            continue;
        if (best < 0 || P->racks[r].free_hosts > P->racks[best].free_hosts)
            best = (int)r;
    }
    return best;
}

/* Place pods; out[k] = host index.  false (nothing used) if it does not fit. */
static bool place(placer *P, int pods, int per, int *out)
{
    int k = 0;
    if (per >= 8) {
        int free_total = 0;
        for (size_t r = 0; r < P->n_racks; r++)
            free_total += P->racks[r].free_hosts;
        if (free_total < pods)
            return false;
        int psw = -1;
        while (k < pods) {
            int r = best_rack(P, psw);
            if (r < 0)
                r = best_rack(P, -1);
            psw = P->racks[r].psw;
            prack *rk = &P->racks[r];
            for (guint x = 0; x < rk->hosts->len && k < pods; x++) {
                int h = g_array_index(rk->hosts, int, x);
                if (P->hosts[h].used == 0) {
                    host_use(P, h, per);
                    out[k++] = h;
                }
            }
        }
        return true;
    }
    for (; k < pods; k++) {
        int h = -1;
        for (size_t x = 0; x < P->n_hosts && h < 0; x++)
            if (P->hosts[x].used > 0 && P->hosts[x].used + per <= 8)
                h = (int)x;
        if (h < 0) {
            int r = best_rack(P, -1);
            prack *rk = r >= 0 ? &P->racks[r] : NULL;
            for (guint x = 0; rk && x < rk->hosts->len && h < 0; x++)
                if (P->hosts[g_array_index(rk->hosts, int, x)].used == 0)
                    h = g_array_index(rk->hosts, int, x);
        }
        if (h < 0) {
            for (int q = 0; q < k; q++)
                host_use(P, out[q], -per);
            return false;
        }
        host_use(P, h, per);
        out[k] = h;
    }
    return true;
}

static int cmp_running(gconstpointer a, gconstpointer b, gpointer data)
{
    gen *G = data;
    const gjob *x = J(G, (size_t) * (const int *)a), *y = J(G, (size_t) * (const int *)b);
    if (x->running != y->running)
        return x->running < y->running ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}

static const char *outside_host(gen *G)
{
    return g_ptr_array_index(G->outside_hosts,
                             (guint)g_rand_int_range(G->r, 0, (gint32)G->outside_hosts->len));
}

static void place_jobs(gen *G)
{
    placer P;
    placer_init(&P, G->topo_rows);
    size_t n = G->jobs->len;
    g_autofree int *order = g_new(int, n);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (J(G, i)->ran && J(G, i)->gpu && !J(G, i)->outside && !J(G, i)->no_workers)
            order[m++] = (int)i;
    g_qsort_with_data(order, (gint)m, sizeof *order, cmp_running, G);
    g_autoptr(GArray) active = g_array_new(FALSE, FALSE, sizeof(int));
    for (size_t k = 0; k < m; k++) {
        gjob *j = J(G, (size_t)order[k]);
        /* release the jobs that ended */
        for (guint a = 0; a < active->len;) {
            gjob *x = J(G, (size_t)g_array_index(active, int, a));
            int64_t end = x->status == ST_RUNNING ? G->t_dump : x->finished;
            if (end <= j->running) {
                for (int p = 0; p < x->pods; p++)
                    host_use(&P, GPOINTER_TO_INT(x->hosts[x->pods + p]), -x->per_pod);
                g_array_remove_index_fast(active, a);
            } else {
                a++;
            }
        }
        g_autofree int *hs = g_new(int, j->pods);
        if (!place(&P, j->pods, j->per_pod, hs)) {
            j->outside = true; /* the cluster is full: the job ran elsewhere */
            g_debug("gen-trace: no room for %d x %d GPUs at %" G_GINT64_FORMAT, j->pods, j->per_pod,
                    j->running);
            continue;
        }
        /* hosts[0..pods-1]: names; hosts[pods..2 pods-1]: indices */
        j->hosts = g_new0(char *, 2 * (size_t)j->pods + 1);
        for (int p = 0; p < j->pods; p++) {
            j->hosts[p] = g_strdup(P.ips[hs[p]]);
            j->hosts[j->pods + p] = GINT_TO_POINTER(hs[p]);
        }
        int idx = order[k];
        g_array_append_val(active, idx);
    }
    /* keep only the names */
    for (size_t i = 0; i < n; i++) {
        gjob *j = J(G, i);
        if (j->hosts)
            for (int p = 0; p < j->pods; p++)
                j->hosts[j->pods + p] = NULL;
    }
    placer_clear(&P);
}

/* ---- rows ------------------------------------------------------------- */

static void set(trace__row *r, int c, char *v)
{
    g_free(r->f[c]);
    r->f[c] = v;
}

static char *fmt_time(int64_t t)
{
    char buf[32];
    trace__time_format(t, buf);
    return g_strdup(buf);
}

static char *res_json(gen *G, const gjob *j, bool multi)
{
    int g = j->per_pod;
    int cpu = 12 * g;
    const char *mem = NULL;
    g_autofree char *memv = g_strdup_printf("%dGi", 200 * g);
    if (g == 8) {
        double u = g_rand_double(G->r);
        if (u < 0.1) {
            cpu = 48;
        } else if (u < 0.2) {
            cpu = 90;
            mem = "1Ti";
        }
    }
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "{\"cpu\": \"%d\", \"memory\": \"%s\", \"nvidia.com/gpu\": \"%d\", "
                              "\"ephemeral-storage\": \"%dGi\"",
                           cpu, mem ? mem : memv, g, 600 * g);
    if (multi)
        g_string_append(s, ", \"koordinator.sh/rdma\": \"1\"");
    g_string_append_c(s, '}');
    return g_string_free(s, FALSE);
}

static void make_rows(gen *G, trace__tables *t)
{
    size_t n = G->jobs->len;
    /* ids by submit time: 10288 + rank, plus a gap with p .06 */
    g_autofree int *order = g_new(int, n);
    for (size_t i = 0; i < n; i++)
        order[i] = (int)i;
    g_autofree int64_t *sub = g_new(int64_t, n);
    for (size_t i = 0; i < n; i++)
        sub[i] = J(G, i)->submit;
    /* stable sort by submit */
    for (size_t i = 1; i < n; i++) {
        int x = order[i];
        size_t k = i;
        while (k > 0 && sub[order[k - 1]] > sub[x]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = x;
    }
    long id = 10288, wid = 28613;
    static const char *const status_names[] = {"Succeeded", "Stopped", "Failed", "Running"};
    for (size_t k = 0; k < n; k++) {
        gjob *j = J(G, (size_t)order[k]);
        trace__row *r = trace__row_new(TRACE__J_NCOLS);
        const char *st = status_names[j->status];
        set(r, TRACE__J_ID, g_strdup_printf("%ld", id));
        id += 1 + (g_rand_double(G->r) < 0.06 ? 1 : 0);
        set(r, TRACE__J_UID, hash_hex("uid", G->o.seed, (guint64)k));
        set(r, TRACE__J_JOB_NAME, g_strdup(j->name));
        set(r, TRACE__J_KIND, g_strdup("PyTorchJob"));
        set(r, TRACE__J_NAMESPACE, hash_hex("namespace", 0, (guint64)j->workspace));
        set(r, TRACE__J_MODEL, g_strdup(models[j->model].name));
        set(r, TRACE__J_STATUS, g_strdup(st));
        if (j->status == ST_SUCCEEDED) {
            set(r, TRACE__J_REASON, g_strdup_printf("PyTorchJob %s is successfully completed.", j->name));
            set(r, TRACE__J_REASON_CODE, g_strdup("JobSucceeded"));
        } else if (j->status == ST_FAILED) {
            set(r, TRACE__J_REASON,
                g_strdup_printf("PyTorchJob %s failed because 1 %s replica(s) failed.", j->name,
                                g_rand_double(G->r) < 0.5 ? "Master" : "Worker"));
            set(r, TRACE__J_REASON_CODE, g_strdup("JobFailed"));
        } else if (j->status == ST_STOPPED) {
            set(r, TRACE__J_REASON, g_strdup("Job is stopped by user"));
            set(r, TRACE__J_REASON_CODE, g_strdup("StoppedByUser"));
        } else {
            set(r, TRACE__J_REASON, g_strdup_printf("PyTorchJob %s is running.", j->name));
            set(r, TRACE__J_REASON_CODE, g_strdup("JobRunning"));
        }
        set(r, TRACE__J_ETCD_VERSION, hash_hex("etcd", G->o.seed, (guint64)k));
        set(r, TRACE__J_CLUSTER_ID, hash_hex("cluster", 0, (guint64)j->cluster));
        set(r, TRACE__J_TENANT_ID, hash_hex("tenant", 0, (guint64)(j->user % 60)));
        set(r, TRACE__J_USER_ID, hash_hex("user", 0, (guint64)j->user));
        set(r, TRACE__J_IS_ENABLE_GPU_TOPO_AWARE, g_strdup("0"));
        set(r, TRACE__J_IS_DELETED, g_strdup(g_rand_double(G->r) < 0.17 ? "1" : "0"));
        set(r, TRACE__J_IS_IN_K8S, g_strdup(g_rand_double(G->r) < 0.26 ? "1" : "0"));
        double u = g_rand_double(G->r);
        set(r, TRACE__J_JOB_MAX_RUNNING_TIME_MINUTES,
            g_strdup_printf("%d", u < .70 ? 0 : u < .85 ? 20160 : u < .93 ? 14400 : u < .97 ? 11520
                                                                      : 1440 * g_rand_int_range(G->r, 1, 8)));
        set(r, TRACE__J_WORKSPACE_ID, hash_hex("workspace", 0, (guint64)j->workspace));
        set(r, TRACE__J_RESOURCE_ID, hash_hex("resource", 0, (guint64)j->workspace));
        set(r, TRACE__J_WORKSPACE_NAME, hash_hex("workspace_name", 0, (guint64)j->workspace));
        if (j->ran) {
            u = g_rand_double(G->r);
            set(r, TRACE__J_PRIORITY,
                g_strdup_printf("%d", u < .80 ? 1 : u < .95 ? 9 : g_rand_int_range(G->r, 2, 9)));
            set(r, TRACE__J_RESOURCE_LEVEL, g_strdup("L0"));
            set(r, TRACE__J_SUB_STATUS, g_strdup("Normal"));
            set(r, TRACE__J_GMT_JOB_SUBMITTED, fmt_time(j->submit));
            set(r, TRACE__J_GMT_JOB_RUNNING, fmt_time(j->running));
            set(r, TRACE__J_GMT_CREATED, fmt_time(j->created));
            set(r, TRACE__J_GMT_MODIFIED, fmt_time(j->modified));
            if (j->status != ST_RUNNING) {
                set(r, TRACE__J_GMT_JOB_FINISHED, fmt_time(j->finished));
                if (j->status == ST_STOPPED)
                    set(r, TRACE__J_GMT_JOB_STOPPED, fmt_time(j->finished));
            }
        }
        r->line = t->jobs->len + 2;
        g_ptr_array_add(t->jobs, r);
        if (j->no_workers)
            continue;
        /* worker rows: master-0, worker-0..k-1, then aimaster-0 */
        int pods = j->gpu ? j->pods : j->cpu_pods;
        for (int p = 0; p < pods + (j->aimaster ? 1 : 0); p++) {
            trace__row *w = trace__row_new(TRACE__W_NCOLS);
            bool aim = p == pods;
            const char *type = aim ? "aimaster" : p == 0 ? "master" : "worker";
            int index = aim || p == 0 ? 0 : p - 1;
            set(w, TRACE__W_ID, g_strdup_printf("%ld", wid++));
            set(w, TRACE__W_JOB_NAME, g_strdup(j->name));
            set(w, TRACE__W_WORKER_NAME, g_strdup_printf("%s-%s-%d", j->name, type, index));
            set(w, TRACE__W_REPLICA_TYPE, g_strdup(type));
            const char *host = NULL;
            if (p < j->empty_hosts)
                host = "";
            else if (j->outside)
                host = outside_host(G);
            else if (j->gpu && !aim && j->hosts)
                host = j->hosts[p];
            else
                host = ((trace__row *)g_ptr_array_index(
                            G->topo_rows, (guint)g_rand_int_range(G->r, 0, (gint32)G->topo_rows->len)))
                           ->f[TRACE__T_IP];
            set(w, TRACE__W_HOST_IP, g_strdup(host));
            set(w, TRACE__W_GMT_CREATED, fmt_time(j->created + 60 * j->pod_created_delay));
            if (j->ran)
                set(w, TRACE__W_GMT_POD_RUNNING, fmt_time(j->running + 60 * j->pod_running_delay));
            if (j->status != ST_RUNNING || !j->ran)
                set(w, TRACE__W_GMT_POD_FINISHED, fmt_time(j->finished));
            if (aim)
                set(w, TRACE__W_RES,
                    g_strdup("{\"cpu\": \"1\", \"memory\": \"1Gi\", \"ephemeral-storage\": \"10Gi\"}"));
            else if (j->gpu)
                set(w, TRACE__W_RES, res_json(G, j, j->pods > 1));
            else
                set(w, TRACE__W_RES,
                    g_strdup("{\"cpu\": \"4\", \"memory\": \"40Gi\", \"ephemeral-storage\": \"100Gi\"}"));
            w->line = t->workers->len + 2;
            g_ptr_array_add(t->workers, w);
        }
    }
}

/* ---- topology ----------------------------------------------------------- */

static void synth_topology(GPtrArray *rows)
{
    /* Seed-independent, so traces of different seeds share one cluster. */
    g_autoptr(GRand) r = g_rand_new_with_seed(847);
    guint64 n = 0;
    for (size_t p = 0; p < G_N_ELEMENTS(synth_topo); p++) {
        const psw_racks *ps = &synth_topo[p];
        int sizes[64], k = 0;
        for (int s = 8; s >= 1; s--)
            for (int c = 0; c < ps->sizes[s]; c++)
                sizes[k++] = s;
        /* ASW labels S1..S<n>, except P8 which uses 29 labels up to S33 */
        int labels[64];
        int nl = 0;
        for (int l = 1; nl < ps->n_racks; l++)
            if (!(strcmp(ps->psw, "P8") == 0 && (l == 5 || l == 12 || l == 19 || l == 27)))
                labels[nl++] = l;
        shuffle_int(r, sizes, (size_t)k);
        for (int rk = 0; rk < k; rk++)
            for (int h = 0; h < sizes[rk]; h++) {
                trace__row *row = trace__row_new(TRACE__T_NCOLS);
                set(row, TRACE__T_IP, hash_hex("topo-host", 0, n++));
                set(row, TRACE__T_DSW, g_strdup("G6"));
                set(row, TRACE__T_PSW, g_strdup(ps->psw));
                set(row, TRACE__T_ASW, g_strdup_printf("S%d", labels[rk]));
                g_ptr_array_add(rows, row);
            }
    }
    /* rows are unordered in the real file */
    for (guint i = rows->len; i > 1; i--) {
        guint j = (guint)g_rand_int_range(r, 0, (gint32)i);
        gpointer t = rows->pdata[i - 1];
        rows->pdata[i - 1] = rows->pdata[j];
        rows->pdata[j] = t;
    }
    for (guint i = 0; i < rows->len; i++)
        ((trace__row *)rows->pdata[i])->line = i + 2;
}

bool trace__gen_tables(trace__tables *out, const trace_gen_options *opts, GError **error)
{
    trace_gen_options o = opts ? *opts : trace_gen_options_default();
    memset(out, 0, sizeof *out);
    if (!(o.days > 0 && o.days <= 366) || !(o.scale > 0 && o.scale <= 100) ||
        !isfinite(o.gpu_run_tilt) || !(o.gpu_cap >= 1)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "gen-trace: need 0 < days <= 366 and 0 < scale <= 100 (got %g, %g)", o.days,
                    o.scale);
        return false;
    }
    if (lround(GEN_JOBS * o.scale * o.days / 16.0) < 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "gen-trace: days x scale too small for a single job");
        return false;
    }
    out->jobs = g_ptr_array_new_with_free_func((GDestroyNotify)trace__row_free);
    out->workers = g_ptr_array_new_with_free_func((GDestroyNotify)trace__row_free);
    out->topo = g_ptr_array_new_with_free_func((GDestroyNotify)trace__row_free);
    if (o.topo_path) {
        trace__tables tt;
        g_autoptr(GBytes) b = trace__read_file(o.topo_path, error);
        if (!b)
            return false;
        size_t len;
        const char *s = g_bytes_get_data(b, &len);
        static const char job_hdr[] = "job_name,model,status,gmt_job_running,gmt_job_finished\n";
        static const char worker_hdr[] = "job_name,host_ip,RES\n";
        if (!trace__tables_parse(&tt, job_hdr, strlen(job_hdr), "(none)", worker_hdr,
                                 strlen(worker_hdr), "(none)", s, len, o.topo_path, false, error)) {
            trace__tables_clear(&tt);
            return false;
        }
        g_ptr_array_unref(out->topo);
        out->topo = g_ptr_array_ref(tt.topo);
        trace__tables_clear(&tt);
        if (out->topo->len == 0) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: no hosts", o.topo_path);
            return false;
        }
    } else {
        synth_topology(out->topo);
    }
    gen G = {.o = o, .f = o.scale * o.days / 16.0};
    G.r = g_rand_new_with_seed(o.seed);
    /* T0 = 2023-07-15 00:00 UTC+8 */
    G.t0 = trace__days_from_civil(2023, 7, 15) * 86400 - TRACE__TZ_OFFSET_S;
    G.t_end = G.t0 + (int64_t)llround(o.days * 86400);
    G.t_dump = G.t_end + 7 * 86400;
    G.jobs = g_array_new(FALSE, TRUE, sizeof(gjob));
    G.bursts = g_array_new(FALSE, TRUE, sizeof(gburst));
    G.topo_rows = out->topo;
    G.outside_hosts = g_ptr_array_new_with_free_func(g_free);
    for (guint64 h = 0; h < GEN_OUTSIDE_HOSTS; h++)
        g_ptr_array_add(G.outside_hosts, hash_hex("outside-host", 0, h));
    make_bursts(&G);
    choose_gpu(&G);
    choose_gpus(&G);
    choose_shapes(&G);
    choose_status(&G);
    choose_times(&G);
    choose_lifecycle(&G);
    choose_pods(&G);
    choose_outside(&G);
    place_jobs(&G);
    make_rows(&G, out);
    for (size_t i = 0; i < G.jobs->len; i++)
        g_strfreev(J(&G, i)->hosts);
    g_array_unref(G.jobs);
    g_array_unref(G.bursts);
    g_ptr_array_unref(G.outside_hosts);
    g_rand_free(G.r);
    return true;
}

bool trace__write_file(const char *path, const char *data, size_t len, bool gz, GError **error)
{
    g_autofree char *tmp = g_strconcat(path, ".tmp", NULL);
    bool ok = true;
    if (gz) {
        gzFile f = gzopen(tmp, "wb9");
        /* no timestamp or name in the header: same input, same bytes */
        ok = f != NULL;
        size_t off = 0;
        while (ok && off < len) {
            unsigned chunk = (unsigned)MIN(len - off, (size_t)1 << 30);
            ok = gzwrite(f, data + off, chunk) == (int)chunk;
            off += chunk;
        }
        if (f && gzclose(f) != Z_OK)
            ok = false;
    } else {
        GError *e = NULL;
        ok = g_file_set_contents(tmp, data, (gssize)len, &e);
        if (e)
            g_error_free(e);
    }
    if (!ok || rename(tmp, path) != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot write", path);
        g_unlink(tmp);
        return false;
    }
    return true;
}

bool trace_gen_write(const char *dir, const trace_gen_options *opts, GError **error)
{
    g_return_val_if_fail(dir != NULL, false);
    trace_gen_options o = opts ? *opts : trace_gen_options_default();
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot create the directory", dir);
        return false;
    }
    trace__tables t;
    if (!trace__gen_tables(&t, &o, error)) {
        trace__tables_clear(&t);
        return false;
    }
    GString *(*writers[3])(const trace__tables *) = {trace__job_csv, trace__worker_csv,
                                                      trace__topo_csv};
    const char *names[3] = {"job.csv", "worker.csv", "topo.csv"};
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        GString *s = writers[i](&t);
        g_autofree char *base = g_strconcat(names[i], o.gzip ? ".gz" : "", NULL);
        g_autofree char *path = g_build_filename(dir, base, NULL);
        ok = trace__write_file(path, s->str, s->len, o.gzip, error);
        g_string_free(s, TRUE);
    }
    trace__tables_clear(&t);
    return ok;
}

trace *trace_gen_load(const trace_gen_options *opts, const trace_lingjun_options *lopts,
                      GError **error)
{
    trace_gen_options o = opts ? *opts : trace_gen_options_default();
    trace__tables t;
    if (!trace__gen_tables(&t, &o, error)) {
        trace__tables_clear(&t);
        return NULL;
    }
    g_autofree char *name =
        g_strdup_printf("synthetic:seed=%u,days=%g,scale=%g", o.seed, o.days, o.scale);
    /* through the CSV text, so the loader sees exactly what a file holds */
    GString *j = trace__job_csv(&t), *w = trace__worker_csv(&t), *p = trace__topo_csv(&t);
    trace__tables_clear(&t);
    trace_lingjun_options lo = lopts ? *lopts : trace_lingjun_options_default();
    trace *tr = trace_lingjun_parse(j->str, j->len, w->str, w->len, p->str, p->len, name, &lo,
                                    error);
    g_string_free(j, TRUE);
    g_string_free(w, TRUE);
    g_string_free(p, TRUE);
    return tr;
}
