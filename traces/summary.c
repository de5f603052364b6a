/* summary.c - the statistics of a Lingjun-schema trace (`ccsim trace stats`).
 * Not here: loading it for a replay (lingjun.c).
 *
 * The statistics of a Lingjun-schema trace that the acceptance tests of
 * docs/traces.md check (`ccsim trace stats`), so real and synthetic traces can be put side
 * by side.  Quantiles interpolate linearly between order statistics (numpy's
 * default), as the published ones do.
 */
#include "gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/ccs.h"
#include "traces-private.h"

static const double qs[TRACE_SUMMARY_QUANTILES] = {.25, .5, .75, .9, .95, .99, 1.0};
static const char *const qnames[TRACE_SUMMARY_QUANTILES] = {"p25", "p50", "p75", "p90",
                                                            "p95", "p99", "max"};
static const char *const bucket_names[TRACE_SUMMARY_BUCKETS] = {
    "1", "2-7", "8", "9-16", "17-48", "49-127", "128", "129-256", ">256"};

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear-interpolation quantile of sorted x[0..n-1]. */
static double quantile(const double *x, size_t n, double p)
{
    if (n == 0)
        return NAN;
    double h = (n - 1) * p;
    size_t lo = (size_t)floor(h), hi = (size_t)ceil(h);
    return x[lo] + (h - lo) * (x[hi] - x[lo]);
}

static void quantiles(GArray *a, double out[TRACE_SUMMARY_QUANTILES])
{
    if (a->len > 1)
        qsort(a->data, a->len, sizeof(double), cmp_d);
    for (int i = 0; i < TRACE_SUMMARY_QUANTILES; i++)
        out[i] = quantile((double *)(void *)a->data, a->len, qs[i]);
}


/* The GPU-count buckets of docs/design.md §2.4 (b1..b9 as 0..8): {1},
 * {2..7}, {8}, {9..16}, {17..48}, {49..127}, {128}, {129..256}, {>256}. */
int trace__gpu_bucket(int g)
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

typedef struct count_kv {
    const char *key;
    size_t n;
} count_kv;

static int cmp_count(const void *a, const void *b)
{
    const count_kv *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return strcmp(x->key, y->key);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

trace_summary *trace__summary_from_tables(const trace__tables *t)
{
    trace_summary *s = g_new0(trace_summary, 1);
    s->job_rows = t->jobs->len;
    s->worker_rows = t->workers->len;
    s->topo_hosts = t->topo->len;
    g_autoptr(GHashTable) topo = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < t->topo->len; i++)
        g_hash_table_add(topo, ((trace__row *)t->topo->pdata[i])->f[TRACE__T_IP]);
    /* GPUs per job over all its pods */
    g_autoptr(GHashTable) gpus = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < t->workers->len; i++) {
        trace__row *w = t->workers->pdata[i];
        const char *ip = w->f[TRACE__W_HOST_IP];
        if (ip[0] && g_hash_table_contains(topo, ip))
            s->worker_rows_in_topo++;
        if (w->gpus <= 0)
            continue;
        s->gpu_pods++;
        s->pod_gpus[w->gpus <= 8 ? w->gpus : 0]++;
        const char *jn = w->f[TRACE__W_JOB_NAME];
        int g = GPOINTER_TO_INT(g_hash_table_lookup(gpus, jn));
        g_hash_table_insert(gpus, (gpointer)jn, GINT_TO_POINTER(g + w->gpus));
    }
    s->topo_match_frac = s->worker_rows ? (double)s->worker_rows_in_topo / s->worker_rows : 0;
    trace__summary_racks(t, s);
    g_autoptr(GHashTable) models = g_hash_table_new(g_str_hash, g_str_equal);
    g_autoptr(GHashTable) gvals = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GArray) run = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) queue = g_array_new(FALSE, FALSE, sizeof(double));
    /* GPU jobs that ran: [start, end, gpus] */
    g_autoptr(GArray) iv = g_array_new(FALSE, FALSE, sizeof(double));
    double first_submit = INFINITY, last_submit = -INFINITY, last_time = -INFINITY;
    for (guint i = 0; i < t->jobs->len; i++) {
        trace__row *r = t->jobs->pdata[i];
        const char *m = r->f[TRACE__J_MODEL];
        g_hash_table_insert(models, (gpointer)m,
                            GSIZE_TO_POINTER(GPOINTER_TO_SIZE(g_hash_table_lookup(models, m)) + 1));
        const char *st = r->f[TRACE__J_STATUS];
        if (strcmp(st, "Succeeded") == 0)
            s->status_succeeded++;
        else if (strcmp(st, "Stopped") == 0)
            s->status_stopped++;
        else if (strcmp(st, "Failed") == 0)
            s->status_failed++;
        else if (strcmp(st, "Running") == 0)
            s->status_running++;
        else
            s->status_other++;
        int64_t sub = r->t[0], runt = r->t[1];
        int64_t end = r->t[3] != TRACE__NO_TIME ? r->t[3] : r->t[2];
        for (int k = 0; k < 4; k++)
            if (r->t[k] != TRACE__NO_TIME)
                last_time = MAX(last_time, (double)r->t[k]);
        if (sub != TRACE__NO_TIME) {
            first_submit = MIN(first_submit, (double)sub);
            last_submit = MAX(last_submit, (double)sub);
        }
        if (runt == TRACE__NO_TIME)
            s->never_ran++;
        if (runt != TRACE__NO_TIME && sub != TRACE__NO_TIME) {
            double q = (double)(runt - sub) / 60.0;
            g_array_append_val(queue, q);
        }
        bool running = strcmp(st, "Running") == 0;
        if (runt != TRACE__NO_TIME && end != TRACE__NO_TIME && !running) {
            double d = (double)(end - runt) / 60.0;
            g_array_append_val(run, d);
        }
        int g = GPOINTER_TO_INT(g_hash_table_lookup(gpus, r->f[TRACE__J_JOB_NAME]));
        if (g <= 0)
            continue;
        s->gpu_jobs++;
        s->job_gpu_bucket[trace__gpu_bucket(g)]++;
        g_hash_table_insert(gvals, GINT_TO_POINTER(g),
                            GSIZE_TO_POINTER(GPOINTER_TO_SIZE(g_hash_table_lookup(gvals, GINT_TO_POINTER(g))) + 1));
        if (runt != TRACE__NO_TIME) {
            double v[3] = {(double)runt, running || end == TRACE__NO_TIME ? NAN : (double)end, g};
            g_array_append_vals(iv, v, 3);
        }
    }
    s->run_n = run->len;
    s->queue_n = queue->len;
    quantiles(run, s->run_min_q);
    quantiles(queue, s->queue_min_q);
    /* concurrency over the steady window, every 10 minutes */
    if (isfinite(first_submit) && last_submit > first_submit) {
        double span = last_submit - first_submit;
        s->window_start_s = first_submit + MIN(3 * 86400.0, span / 4);
        s->window_end_s = last_submit;
        g_autoptr(GArray) cj = g_array_new(FALSE, FALSE, sizeof(double));
        g_autoptr(GArray) cg = g_array_new(FALSE, FALSE, sizeof(double));
        const double *v = (const double *)(void *)iv->data;
        size_t n = iv->len / 3;
        for (double x = s->window_start_s; x <= s->window_end_s; x += 600) {
            double jobs = 0, gp = 0;
            for (size_t k = 0; k < n; k++) {
                double e = isnan(v[3 * k + 1]) ? last_time : v[3 * k + 1];
                if (v[3 * k] <= x && x < e) {
                    jobs += 1;
                    gp += v[3 * k + 2];
                }
            }
            g_array_append_val(cj, jobs);
            g_array_append_val(cg, gp);
        }
        if (cj->len > 1) {
            qsort(cj->data, cj->len, sizeof(double), cmp_d);
            qsort(cg->data, cg->len, sizeof(double), cmp_d);
        }
        const double *a = (const double *)(void *)cj->data, *b = (const double *)(void *)cg->data;
        s->conc_jobs_median = quantile(a, cj->len, .5);
        s->conc_jobs_p95 = quantile(a, cj->len, .95);
        s->conc_jobs_max = quantile(a, cj->len, 1);
        s->active_gpus_median = quantile(b, cg->len, .5);
        s->active_gpus_p95 = quantile(b, cg->len, .95);
        s->active_gpus_max = quantile(b, cg->len, 1);
    }
    /* model counts, descending */
    s->n_models = g_hash_table_size(models);
    g_autofree count_kv *kv = g_new(count_kv, MAX(s->n_models, 1));
    GHashTableIter it;
    gpointer k, val;
    size_t x = 0;
    g_hash_table_iter_init(&it, models);
    while (g_hash_table_iter_next(&it, &k, &val))
        kv[x++] = (count_kv){k, GPOINTER_TO_SIZE(val)};
    if (s->n_models > 1)
        qsort(kv, s->n_models, sizeof *kv, cmp_count);
    s->model_names = g_new0(char *, s->n_models + 1);
    s->model_counts = g_new0(size_t, MAX(s->n_models, 1));
    for (size_t i = 0; i < s->n_models; i++) {
        s->model_names[i] = g_strdup(kv[i].key);
        s->model_counts[i] = kv[i].n;
    }
    s->n_gpu_values = g_hash_table_size(gvals);
    s->gpu_values = g_new0(int, MAX(s->n_gpu_values, 1));
    s->gpu_value_jobs = g_new0(size_t, MAX(s->n_gpu_values, 1));
    x = 0;
    g_hash_table_iter_init(&it, gvals);
    while (g_hash_table_iter_next(&it, &k, &val))
        s->gpu_values[x++] = GPOINTER_TO_INT(k);
    if (s->n_gpu_values > 1)
        qsort(s->gpu_values, s->n_gpu_values, sizeof(int), cmp_int);
    for (size_t i = 0; i < s->n_gpu_values; i++)
        s->gpu_value_jobs[i] =
            GPOINTER_TO_SIZE(g_hash_table_lookup(gvals, GINT_TO_POINTER(s->gpu_values[i])));
    return s;
}

trace_summary *trace_summary_load(const char *dir, bool lenient, GError **error)
{
    g_return_val_if_fail(dir != NULL, NULL);
    trace__tables t;
    if (!trace__tables_load(&t, dir, lenient, error)) {
        trace__tables_clear(&t);
        return NULL;
    }
    trace_summary *s = trace__summary_from_tables(&t);
    s->job_rows += t.job_malformed;
    s->worker_rows += t.worker_malformed;
    trace__tables_clear(&t);
    return s;
}

trace_summary *trace_summary_load_default(GError **error)
{
    trace__tables t;
    trace_summary *s = trace__default_tables(&t, error) ? trace__summary_from_tables(&t) : NULL;
    trace__tables_clear(&t);
    return s;
}

size_t trace_summary_model_count(const trace_summary *s, const char *model)
{
    for (size_t i = 0; i < s->n_models; i++)
        if (strcmp(s->model_names[i], model) == 0)
            return s->model_counts[i];
    return 0;
}

void trace_summary_free(trace_summary *s)
{
    if (!s)
        return;
    g_strfreev(s->model_names);
    g_free(s->model_counts);
    g_free(s->gpu_values);
    g_free(s->gpu_value_jobs);
    g_free(s);
}

/* ---- output ------------------------------------------------------------ */

typedef void (*emit_fn)(GString *out, const char *section, const char *key, double value);

static void emit_table(GString *out, const char *section, const char *key, double value)
{
    g_string_append_printf(out, "  %-10s %-22s %12.6g\n", section, key, value);
}

static void emit_csv(GString *out, const char *section, const char *key, double value)
{
    g_string_append_printf(out, "%s,", section);
    trace__csv_append_field(out, key);
    g_string_append_printf(out, ",%.10g\n", value);
}

static void emit_all(const trace_summary *s, GString *out, emit_fn e)
{
    e(out, "rows", "job_rows", s->job_rows);
    e(out, "rows", "worker_rows", s->worker_rows);
    e(out, "rows", "topo_hosts", s->topo_hosts);
    e(out, "status", "Succeeded", s->status_succeeded);
    e(out, "status", "Stopped", s->status_stopped);
    e(out, "status", "Failed", s->status_failed);
    e(out, "status", "Running", s->status_running);
    e(out, "status", "other", s->status_other);
    e(out, "status", "never_ran", s->never_ran);
    e(out, "gpu", "gpu_jobs", s->gpu_jobs);
    e(out, "gpu", "gpu_pods", s->gpu_pods);
    for (int b = 0; b < TRACE_SUMMARY_BUCKETS; b++) {
        g_autofree char *k = g_strdup_printf("jobs_gpus_%s", bucket_names[b]);
        e(out, "gpu", k, s->job_gpu_bucket[b]);
    }
    for (int g = 1; g <= 8; g++) {
        g_autofree char *k = g_strdup_printf("pods_gpus_%d", g);
        e(out, "gpu", k, s->pod_gpus[g]);
    }
    e(out, "gpu", "pods_gpus_>8", s->pod_gpus[0]);
    e(out, "run_min", "n", s->run_n);
    for (int i = 0; i < TRACE_SUMMARY_QUANTILES; i++)
        e(out, "run_min", qnames[i], s->run_min_q[i]);
    e(out, "queue_min", "n", s->queue_n);
    for (int i = 0; i < TRACE_SUMMARY_QUANTILES; i++)
        e(out, "queue_min", qnames[i], s->queue_min_q[i]);
    e(out, "topo", "worker_rows_in_topo", s->worker_rows_in_topo);
    e(out, "topo", "match_frac", s->topo_match_frac);
    e(out, "racks", "gpu_jobs", s->racks_jobs);
    e(out, "racks", "multi_rack_jobs", s->racks_multi_rack);
    e(out, "racks", "multi_asw_label_jobs", s->racks_multi_label);
    e(out, "racks", "label_contention_jobs", s->racks_label_contention);
    e(out, "racks", "label_contention_frac",
      s->racks_jobs ? (double)s->racks_label_contention / (double)s->racks_jobs : 0);
    e(out, "conc", "window_days", (s->window_end_s - s->window_start_s) / 86400.0);
    e(out, "conc", "gpu_jobs_median", s->conc_jobs_median);
    e(out, "conc", "gpu_jobs_p95", s->conc_jobs_p95);
    e(out, "conc", "gpu_jobs_max", s->conc_jobs_max);
    e(out, "conc", "active_gpus_median", s->active_gpus_median);
    e(out, "conc", "active_gpus_p95", s->active_gpus_p95);
    e(out, "conc", "active_gpus_max", s->active_gpus_max);
    for (size_t i = 0; i < s->n_models; i++)
        e(out, "model", s->model_names[i][0] ? s->model_names[i] : "(empty)", s->model_counts[i]);
    for (size_t i = 0; i < s->n_gpu_values; i++) {
        g_autofree char *k = g_strdup_printf("%d", s->gpu_values[i]);
        e(out, "job_gpus", k, s->gpu_value_jobs[i]);
    }
}

char *trace_summary_table(const trace_summary *s)
{
    GString *out = g_string_new("  section    statistic                     value\n");
    emit_all(s, out, emit_table);
    return g_string_free(out, FALSE);
}

char *trace_summary_csv(const trace_summary *s)
{
    GString *out = g_string_new("section,key,value\n");
    emit_all(s, out, emit_csv);
    return g_string_free(out, FALSE);
}

bool trace_summary_write_csv(const trace_summary *s, const char *path, GError **error)
{
    g_autofree char *csv = trace_summary_csv(s);
    return trace__write_file(path, csv, strlen(csv), false, error);
}
