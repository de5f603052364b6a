/* optimal_gap.c - the Crux §4.4 benchmark (docs/validation.md): cases, searches,
 * report.  Not here: shortcuts, journal, options and printing (sim/cli/).
 *
 *
 * N random small cases: a 2-layer Clos (clos2) with 2-4 ToRs and 2
 * aggregation switches, at most 20 hosts of 8 GPUs, 5 data-parallel jobs
 * of 2-4 hosts each on randomly chosen hosts (so most rings cross the
 * ToR-agg links), models drawn from the catalog's data-parallel
 * all-reduce entries, all running for the whole window.  For each case the
 * simulator itself judges every candidate decision (the crux scheduler's
 * overrides, schedulers/crux.c):
 *   paths        all 2^5 job-level routes (every flow of a job through
 *                candidate p, i.e. one aggregation switch), Crux's priority
 *                assignment on top: optimum vs crux-ps-pa;
 *   priorities   all 5! rankings, one level per job, Crux's paths:
 *                optimum vs crux-ps-pa;
 *   compression  all K^5 level assignments (K = 3), Crux's paths:
 *                optimum vs crux;
 * each optimum includes Crux's own decision (so a ratio is <= 1), and
 * every registered scheduler (but fixed and ideal) is compared with the
 * best utilization seen in the case.  The metric is allocated GPU
 * utilization over the window.  Cases run in parallel (one replay per
 * thread, each case seeded by (seed, case index)).
 */
#include "optimal_gap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ccs.h"
#include "base/limits.h"
#include "schedulers/registry.h"
#include "sim/config.h"
#include "sim/output.h"
#include "sim/replay.h"
#include "topo/topo.h"
#include "traces/catalog.h"
#include "traces/trace.h"

#include "optimal-gap-private.h"

static const char *const og_mech_names[OG_N_MECH] = {"paths", "priorities", "compression"};

/* Catalog entries usable as plain data-parallel jobs. */
static GPtrArray *dp_models(const catalog *cat)
{
    GPtrArray *names = g_ptr_array_new();
    for (size_t i = 0; i < catalog_count(cat); i++) {
        const catalog_model *m = catalog_get(cat, i);
        if (m->network && m->tp == 1 && m->pp == 1 && m->collective == CATALOG_COLL_ALLREDUCE &&
            m->a2a_bytes == 0)
            g_ptr_array_add(names, m->name);
    }
    return names;
}

/* Draw case i: topology and 5 jobs. */
static void og_case_draw(og_case *c, const og_opts *o, const GPtrArray *models)
{
    g_autoptr(GRand) rng = g_rand_new_with_seed((guint32)(o->seed * 1000003 + (gint64)c->index));
    int tors = g_rand_int_range(rng, 2, 5);
    /* room for 5 jobs of 2 hosts: tors * hpt in [10, 20] */
    int hpt_lo = (10 + tors - 1) / tors, hpt_hi = OG_MAX_HOSTS / tors;
    int hpt = g_rand_int_range(rng, hpt_lo, hpt_hi + 1);
    int hosts = tors * hpt;
    c->topo_spec = g_strdup_printf("clos2:tors=%d,aggs=2,hosts_per_tor=%d,link_gbps=%g", tors, hpt,
                                  o->link_gbps);
    int n_hosts[OG_JOBS], used = 0;
    for (int k = 0; k < OG_JOBS; k++, used += 2)
        n_hosts[k] = 2;
    for (int k = 0; k < OG_JOBS; k++) {
        int extra = g_rand_int_range(rng, 0, 3); /* up to 4 hosts */
        extra = MIN(extra, hosts - used);
        n_hosts[k] += extra;
        used += extra;
    }
    int perm[OG_MAX_HOSTS];
    for (int h = 0; h < hosts; h++)
        perm[h] = h;
    for (int h = hosts - 1; h > 0; h--) {
        int r = g_rand_int_range(rng, 0, h + 1), t = perm[h];
        perm[h] = perm[r];
        perm[r] = t;
    }
    c->jobs = cJSON_CreateArray();
    for (int k = 0, next = 0; k < OG_JOBS; k++) {
        cJSON *j = cJSON_CreateObject();
        c->ids[k] = g_strdup_printf("j%d", k + 1);
        cJSON_AddStringToObject(j, "id", c->ids[k]);
        cJSON_AddNumberToObject(j, "gpus", 8 * n_hosts[k]);
        cJSON *hl = cJSON_AddArrayToObject(j, "hosts");
        for (int h = 0; h < n_hosts[k]; h++) {
            g_autofree char *name = g_strdup_printf("h%d", perm[next++]);
            cJSON_AddItemToArray(hl, cJSON_CreateString(name));
        }
        cJSON_AddNumberToObject(j, "start_s", 0.001 * k);
        cJSON_AddNumberToObject(j, "end_s", 1e9);
        const char *model = models->pdata[g_rand_int_range(rng, 0, (gint32)models->len)];
        cJSON_AddStringToObject(j, "model", model);
        cJSON_AddItemToArray(c->jobs, j);
    }
}

/* One replay: allocated GPU utilization, or NAN with *error set.  With
 * c->memo, a crux variant's run equivalent to an earlier one is not
 * finished (see og_probe, optimal-gap-private.h).  With a finite `beat`, a run that cannot reach
 * it is stopped (og__watch) and *exact is false: the value returned is then
 * only an upper bound, below beat. */
static double og_run(og_case *c, const og_bench *sh, topo *t, const trace *tr, const char *sched,
                     const cJSON *obj, double beat, bool *exact, GError **error)
{
    *exact = true;
    g_autoptr(config) cfg = config_new();
    config_set_scheduler(cfg, sched);
    cfg->scheduler_obj = obj;
    g_autofree char *end = g_strdup_printf("%.17g", sh->o->window_s);
    g_autofree char *levels = g_strdup_printf("%d", sh->o->levels);
    g_autofree char *interval = g_strdup_printf("%.17g", sh->o->window_s);
    if (!config_set_option(cfg, "end_s", end, error) ||
        !config_set_option(cfg, "priority_levels", levels, error) ||
        !config_set_option(cfg, "interval_s", interval, error))
        return NAN;
    const sched_ops *ops = sched_registry_lookup(sched, error);
    if (!ops)
        return NAN;
    g_autoptr(replay) r = replay_new(cfg, ops, t, tr, sh->cat, error);
    if (!r)
        return NAN;
    bool probe = c->memo && g_str_has_prefix(sched, "crux") && strcmp(sched, "crux-pa") != 0;
    og_probe p = {.c = c, .sched = sched, .beat = beat};
    if (probe) {
        og__probe_start(&p);
        replay_set_decision_hook(r, og__probe_hook, &p);
    }
    og_watcher wt = {.beat = beat, .last_arrival_s = 0.001 * (OG_JOBS - 1), .bound = NAN};
    if (c->memo && isfinite(beat))
        replay_set_watch(r, sh->o->window_s / 50, og__watch, &wt);
    double u = NAN;
    if (replay_run(r, NULL, NULL, NULL, error)) {
        og_memo val;
        if (p.hit) {
            val = p.hit_val;
        } else {
            c->replays++;
            if (replay_stopped(r)) {
                val = (og_memo){wt.bound, false};
            } else {
                replay_summary s;
                replay_get_summary(r, &s);
                val = (og_memo){s.gpu_util_allocated_frac, true};
            }
            if (p.key)
                g_hash_table_replace(c->memo, g_steal_pointer(&p.key),
                                     g_memdup2(&val, sizeof val));
        }
        u = val.util;
        *exact = val.exact;
    }
    if (probe)
        og__probe_clear(&p);
    return u;
}

/* Run a crux variant with one override object; keeps the case's best. */
static bool og_try(og_case *c, const og_bench *sh, topo *t, const trace *tr, const char *sched,
                   cJSON *obj, double *best, GError **error)
{
    bool exact;
    double u = og_run(c, sh, t, tr, sched, obj, *best, &exact, error);
    cJSON_Delete(obj);
    c->runs++;
    if (isnan(u))
        return false;
    if (!exact)
        return true; /* below *best (og__watch) */
    *best = fmax(*best, u);
    c->opt = fmax(c->opt, u);
    return true;
}

static bool og_search_paths(og_case *c, const og_bench *sh, topo *t, const trace *tr,
                            GError **error)
{
    for (int mask = 0; mask < (1 << OG_JOBS); mask++) {
        cJSON *obj = cJSON_CreateObject();
        cJSON *p = cJSON_AddObjectToObject(obj, "path");
        for (int k = 0; k < OG_JOBS; k++)
            cJSON_AddNumberToObject(p, c->ids[k], (mask >> k) & 1);
        if (!og_try(c, sh, t, tr, "crux-ps-pa", obj, &c->best[OG_PATHS], error))
            return false;
    }
    return true;
}

static bool og_next_perm(int *a, int n)
{
    int i = n - 1;
    while (i > 0 && a[i - 1] >= a[i])
        i--;
    if (i <= 0)
        return false;
    int j = n - 1;
    while (a[j] <= a[i - 1])
        j--;
    int tmp = a[i - 1];
    a[i - 1] = a[j];
    a[j] = tmp;
    for (int l = i, r = n - 1; l < r; l++, r--) {
        tmp = a[l];
        a[l] = a[r];
        a[r] = tmp;
    }
    return true;
}

static bool og_search_priorities(og_case *c, const og_bench *sh, topo *t, const trace *tr,
                                 GError **error)
{
    int perm[OG_JOBS];
    for (int k = 0; k < OG_JOBS; k++)
        perm[k] = k;
    do {
        cJSON *obj = cJSON_CreateObject();
        cJSON *order = cJSON_AddArrayToObject(obj, "order");
        for (int k = 0; k < OG_JOBS; k++)
            cJSON_AddItemToArray(order, cJSON_CreateString(c->ids[perm[k]]));
        if (!og_try(c, sh, t, tr, "crux-ps-pa", obj, &c->best[OG_PRIORITIES], error))
            return false;
    } while (og_next_perm(perm, OG_JOBS));
    return true;
}

static bool og_search_compression(og_case *c, const og_bench *sh, topo *t, const trace *tr,
                                  GError **error)
{
    int K = sh->o->levels, total = 1;
    for (int k = 0; k < OG_JOBS; k++)
        total *= K;
    for (int code = 0; code < total; code++) {
        cJSON *obj = cJSON_CreateObject();
        cJSON *lv = cJSON_AddObjectToObject(obj, "levels");
        for (int k = 0, x = code; k < OG_JOBS; k++, x /= K)
            cJSON_AddNumberToObject(lv, c->ids[k], x % K);
        if (!og_try(c, sh, t, tr, "crux", obj, &c->best[OG_COMPRESSION], error))
            return false;
    }
    return true;
}

static bool og_case_run(og_case *c, const og_bench *sh, GError **error)
{
    topo_options to = topo_options_default();
    g_autoptr(topo) t = topo_build(c->topo_spec, &to, error);
    if (!t)
        return false;
    g_autoptr(trace) tr = trace_json_from_cjson(c->jobs, "optimal-gap", error);
    if (!tr)
        return false;
    c->sched_util = g_new(double, sh->sched_names->len);
    c->opt = 0.0;
    if (!sh->o->replay_all)
        c->memo = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    for (guint i = 0; i < sh->sched_names->len; i++) {
        const char *name = sh->sched_names->pdata[i];
        bool exact;
        c->sched_util[i] = og_run(c, sh, t, tr, name, NULL, NAN, &exact, error);
        c->runs++;
        if (isnan(c->sched_util[i]))
            return false;
        c->opt = fmax(c->opt, c->sched_util[i]);
        if (strcmp(name, "crux-ps-pa") == 0)
            c->crux_util[OG_PATHS] = c->crux_util[OG_PRIORITIES] = c->sched_util[i];
        if (strcmp(name, "crux") == 0)
            c->crux_util[OG_COMPRESSION] = c->sched_util[i];
    }
    for (int m = 0; m < OG_N_MECH; m++)
        c->best[m] = c->crux_util[m];
    return og_search_paths(c, sh, t, tr, error) && og_search_priorities(c, sh, t, tr, error) &&
           og_search_compression(c, sh, t, tr, error);
}

static void og_worker(gpointer data, gpointer user)
{
    og_case *c = data;
    GError *err = NULL;
    og_bench *sh = user;
    c->ok = og_case_run(c, sh, &err);
    if (c->memo) {
        g_hash_table_destroy(c->memo);
        c->memo = NULL;
    }
    if (!c->ok) {
        c->error = g_strdup_printf("case %zu: %s", c->index, err ? err->message : "failed");
        g_clear_error(&err);
    }
    g_mutex_lock(&sh->lock);
    og__journal_write(sh, c);
    sh->done++;
    if (sh->progress) {
        og_progress p = {.index = c->index, .done = sh->done, .total = sh->o->cases,
                         .runs = c->runs, .replays = c->replays, .opt = c->opt};
        sh->progress(sh->progress_user, &p);
    }
    g_mutex_unlock(&sh->lock);
}

static void og_case_clear(og_case *c)
{
    g_free(c->topo_spec);
    cJSON_Delete(c->jobs);
    for (int k = 0; k < OG_JOBS; k++)
        g_free(c->ids[k]);
    g_free(c->sched_util);
    g_free(c->error);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* mean, p10 (nearest rank), min of v[0..n) (sorted in place). */
static void og_stats(double *v, size_t n, double out[3])
{
    qsort(v, n, sizeof *v, cmp_double);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    size_t rank = (size_t)ceil(0.10 * (double)n);
    out[0] = sum / (double)n;
    out[1] = v[rank > 0 ? rank - 1 : 0];
    out[2] = v[0];
}

/* The ratio rows: 3 mechanisms, then the schedulers; ratios[row][case]. */
static size_t og_ratios(const og_case *cases, size_t n, size_t n_sched, double **ratios)
{
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].ok)
            continue;
        for (int m = 0; m < OG_N_MECH; m++)
            ratios[m][ok] = cases[i].crux_util[m] / cases[i].best[m];
        for (size_t s = 0; s < n_sched; s++)
            ratios[OG_N_MECH + s][ok] = cases[i].sched_util[s] / cases[i].opt;
        ok++;
    }
    return ok;
}

static bool og_write_cases(output_dir *d, const og_case *cases, size_t n, const og_bench *sh,
                           GError **error)
{
    g_autoptr(GPtrArray) cols = g_ptr_array_new_with_free_func(g_free);
    const char *fixed[] = {"case", "topology", "models", "runs", "opt_util_frac",
                           "best_paths_util_frac", "best_priorities_util_frac",
                           "best_compression_util_frac"};
    for (size_t i = 0; i < G_N_ELEMENTS(fixed); i++)
        g_ptr_array_add(cols, g_strdup(fixed[i]));
    for (guint s = 0; s < sh->sched_names->len; s++) {
        g_autofree char *name = g_strdelimit(g_strdup(sh->sched_names->pdata[s]), "-", '_');
        g_ptr_array_add(cols, g_strdup_printf("%s_util_frac", name));
    }
    g_ptr_array_add(cols, NULL);
    output_csv *csv = output_csv_open(d, "cases.csv", false, (const char *const *)cols->pdata, error);
    if (!csv)
        return false;
    for (size_t i = 0; i < n; i++) {
        const og_case *c = &cases[i];
        if (!c->ok)
            continue;
        g_autoptr(GString) models = g_string_new(NULL);
        for (const cJSON *j = c->jobs->child; j; j = j->next)
            g_string_append_printf(models, "%s%s:%d", models->len ? ";" : "",
                                   cJSON_GetObjectItem(j, "model")->valuestring,
                                   cJSON_GetObjectItem(j, "gpus")->valueint);
        output_csv_int(csv, (int64_t)c->index);
        output_csv_str(csv, c->topo_spec);
        output_csv_str(csv, models->str);
        output_csv_int(csv, (int64_t)c->runs);
        output_csv_double(csv, c->opt);
        for (int m = 0; m < OG_N_MECH; m++)
            output_csv_double(csv, c->best[m]);
        for (guint s = 0; s < sh->sched_names->len; s++)
            output_csv_double(csv, c->sched_util[s]);
        if (!output_csv_end_row(csv, error))
            return false;
    }
    return true;
}

/* The rows to row_fn and, with --output, summary.csv and cases.csv. */
bool og_bench_report(og_bench *sh, og_row_fn row_fn, void *user, GError **error)
{
    g_return_val_if_fail(sh != NULL && row_fn != NULL, false);
    const og_case *cases = sh->cases;
    size_t n = sh->n_cases;
    size_t n_sched = sh->sched_names->len, rows = OG_N_MECH + n_sched;
    g_autoptr(GPtrArray) ratios = g_ptr_array_new_with_free_func(g_free);
    for (size_t r = 0; r < rows; r++)
        g_ptr_array_add(ratios, g_new(double, n ? n : 1));
    size_t ok = og_ratios(cases, n, n_sched, (double **)ratios->pdata);
    if (ok == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL, "optimal-gap: no case completed");
        return false;
    }
    g_autoptr(output_dir) d = NULL;
    output_csv *csv = NULL;
    if (sh->o->output) {
        d = output_dir_open(sh->o->output, error);
        static const char *const cols[] = {"kind", "name", "cases", "mean_ratio", "p10_ratio",
                                           "min_ratio", NULL};
        if (!d || !(csv = output_csv_open(d, "summary.csv", false, cols, error)))
            return false;
    }
    for (size_t r = 0; r < rows; r++) {
        double st[3];
        og_stats(ratios->pdata[r], ok, st);
        bool mech = r < OG_N_MECH;
        const char *name = mech ? og_mech_names[r] : sh->sched_names->pdata[r - OG_N_MECH];
        og_row row = {.kind = mech ? "mechanism" : "scheduler", .name = name, .cases = ok,
                      .mean = st[0], .p10 = st[1], .min = st[2]};
        row_fn(user, r, &row);
        if (csv) {
            output_csv_str(csv, row.kind);
            output_csv_str(csv, name);
            output_csv_int(csv, (int64_t)ok);
            for (int k = 0; k < 3; k++)
                output_csv_double(csv, st[k]);
            if (!output_csv_end_row(csv, error))
                return false;
        }
    }
    if (d && (!og_write_cases(d, cases, n, sh, error) ||
              !output_dir_commit(g_steal_pointer(&d), error)))
        return false;
    return true;
}

bool og_opts_check(const og_opts *o, GError **error)
{
    return ccs_limit_check(CCS_LIMIT_OG_CASES, o->cases, "--cases", error) &&
           ccs_limit_check(CCS_LIMIT_OG_WINDOW_S, o->window_s, "--window", error) &&
           ccs_limit_check(CCS_LIMIT_OG_LEVELS, o->levels, "--levels", error) &&
           ccs_limit_check(CCS_LIMIT_PARALLEL, o->threads, "--threads", error) &&
           ccs_limit_check(CCS_LIMIT_LINK_GBPS, o->link_gbps, "--link-gbps", error);
}

og_bench *og_bench_new(const og_opts *o, GError **error)
{
    g_return_val_if_fail(o != NULL, NULL);
    if (!og_opts_check(o, error))
        return NULL;
    g_autoptr(catalog) cat = catalog_load_default(error);
    if (!cat)
        return NULL;
    g_autoptr(og_bench) sh = g_new0(og_bench, 1);
    sh->o = o;
    sh->cat = g_steal_pointer(&cat);
    sh->models = dp_models(sh->cat);
    sh->sched_names = g_ptr_array_new();
    for (size_t i = 0; i < sched_registry_count(); i++) {
        const char *nm = sched_registry_get(i)->name;
        if (strcmp(nm, "fixed") != 0 && strcmp(nm, "ideal") != 0)
            g_ptr_array_add(sh->sched_names, (gpointer)nm);
    }
    g_mutex_init(&sh->lock);
    sh->n_cases = (size_t)o->cases;
    sh->cases = g_new0(og_case, sh->n_cases);
    for (size_t i = 0; i < sh->n_cases; i++) {
        sh->cases[i].index = i;
        og_case_draw(&sh->cases[i], o, sh->models);
    }
    if (!og__journal_open(sh, sh->cases, sh->n_cases, &sh->resumed, error))
        return NULL;
    sh->done = (int)sh->resumed;
    return g_steal_pointer(&sh);
}

void og_bench_free(og_bench *sh)
{
    if (!sh)
        return;
    if (sh->journal)
        fclose(sh->journal);
    for (size_t i = 0; i < sh->n_cases; i++)
        og_case_clear(&sh->cases[i]);
    g_free(sh->cases);
    if (sh->sched_names)
        g_ptr_array_unref(sh->sched_names);
    if (sh->models)
        g_ptr_array_unref(sh->models);
    catalog_free(sh->cat);
    g_mutex_clear(&sh->lock);
    g_free(sh);
}

size_t og_bench_resumed(const og_bench *sh)
{
    g_return_val_if_fail(sh != NULL, 0);
    return sh->resumed;
}

void og_bench_run(og_bench *sh, og_progress_fn progress, void *user)
{
    g_return_if_fail(sh != NULL);
    sh->progress = progress;
    sh->progress_user = user;
    GThreadPool *pool = g_thread_pool_new(og_worker, sh, sh->o->threads, TRUE, NULL);
    for (size_t i = 0; i < sh->n_cases; i++)
        if (!sh->cases[i].ok)
            g_thread_pool_push(pool, &sh->cases[i], NULL);
    g_thread_pool_free(pool, FALSE, TRUE);
    sh->progress = NULL;
    sh->progress_user = NULL;
}

size_t og_bench_case_count(const og_bench *sh)
{
    g_return_val_if_fail(sh != NULL, 0);
    return sh->n_cases;
}

const char *og_bench_case_error(const og_bench *sh, size_t i)
{
    g_return_val_if_fail(sh != NULL && i < sh->n_cases, NULL);
    return sh->cases[i].ok ? NULL : sh->cases[i].error;
}

void og_bench_close(og_bench *sh, bool remove_journal)
{
    g_return_if_fail(sh != NULL);
    if (remove_journal) {
        og__journal_remove(sh);
    } else if (sh->journal) {
        fclose(sh->journal);
        sh->journal = NULL;
    }
}
