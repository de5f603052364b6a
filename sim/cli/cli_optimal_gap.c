/* cli_optimal_gap.c - `ccsim optimal-gap`: the Crux paper's §4.4
 * microbenchmark (issue 7; docs/validation.md).
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
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ccs.h"
#include "cli.h"
#include "schedulers/registry.h"
#include "sim/config.h"
#include "sim/output.h"
#include "sim/replay.h"
#include "topo/topo.h"
#include "traces/catalog.h"
#include "traces/trace.h"

#include "cli-optimal-gap-private.h"

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

/* Reuse of equivalent runs.  In these cases every decision is taken at
 * the five arrivals (0 to 4 ms; no job ends inside the window), and the
 * crux variants decide nothing else (no on_comm hook), so a crux run is
 * fixed by the paths, levels and shifts it sets at those reschedules.  Two
 * runs whose decisions agree are the same run; so are two whose levels
 * differ only in ways the rate allocation cannot see: the net (net_solve.c)
 * allocates level by level per connected component and per link, so only
 * the order of levels on each link matters, i.e. the relation (<, =, >)
 * between jobs that share a link, not the level numbers nor the relation
 * between jobs that share none.  The key of a run is therefore, per
 * reschedule, the time, every job's path per flow and shift, and its level
 * canonicalised on the contention graph (jobs sharing a link at any of the
 * run's reschedules; a running transfer can keep an earlier path until its
 * step ends): equal-level sharers merged, then each group's longest chain
 * of strictly higher sharers above it.  A run whose key was seen before is
 * stopped at its last arrival (replay_set_decision_hook) and takes the
 * earlier run's utilization.  The claim was checked by replaying every
 * candidate (--replay-all) on 20 cases: identical cases.csv
 * (docs/performance-notes.md). */
typedef struct og_resched {
    double now_s;
    int n;
    int job[OG_JOBS];      /* case job index of the ctx job */
    int level[OG_JOBS];
    double shift_s[OG_JOBS];
    char *paths[OG_JOBS];  /* chosen candidate per flow, "0.1.1..." */
} og_resched;

/* A memo entry: the run's utilization, or an upper bound of it if the
 * run was stopped as unable to beat the best (og_watch). */
typedef struct og_memo {
    double util;
    bool exact;
} og_memo;

typedef struct og_probe {
    const og_case *c;
    const char *sched;
    GArray *log;                   /* og_resched per reschedule until all arrived */
    GHashTable *links[OG_JOBS];    /* links the job used at any reschedule (set) */
    char *key;                     /* set once every job has arrived */
    double beat;                   /* the best to beat, NAN to finish every run */
    bool hit;
    og_memo hit_val;
} og_probe;

static int og_job_index(const og_case *c, const char *id)
{
    for (int k = 0; k < OG_JOBS; k++)
        if (strcmp(c->ids[k], id) == 0)
            return k;
    return -1;
}

static bool og_share(const og_probe *p, int a, int b)
{
    GHashTableIter it;
    gpointer e;
    g_hash_table_iter_init(&it, p->links[a]);
    while (g_hash_table_iter_next(&it, &e, NULL))
        if (g_hash_table_contains(p->links[b], e))
            return true;
    return false;
}

static int og_find(int *parent, int x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/* Levels of one reschedule canonicalised on the contention graph `share`:
 * sharers at equal levels merged, each group at the length of the longest
 * chain of strictly higher-priority sharers above it. */
static void og_canonical_levels(const og_resched *rs, bool share[OG_JOBS][OG_JOBS],
                                int canon[OG_JOBS])
{
    int parent[OG_JOBS], depth[OG_JOBS] = {0};
    for (int i = 0; i < rs->n; i++)
        parent[i] = i;
    for (int a = 0; a < rs->n; a++)
        for (int b = a + 1; b < rs->n; b++)
            if (share[rs->job[a]][rs->job[b]] && rs->level[a] == rs->level[b])
                parent[og_find(parent, a)] = og_find(parent, b);
    for (int round = 0; round < rs->n; round++) /* longest paths in a DAG of <= n nodes */
        for (int a = 0; a < rs->n; a++)
            for (int b = 0; b < rs->n; b++)
                if (share[rs->job[a]][rs->job[b]] && rs->level[a] < rs->level[b]) {
                    int ga = og_find(parent, a), gb = og_find(parent, b);
                    depth[gb] = MAX(depth[gb], depth[ga] + 1);
                }
    for (int i = 0; i < rs->n; i++)
        canon[i] = depth[og_find(parent, i)];
}

static char *og_probe_key(const og_probe *p)
{
    bool share[OG_JOBS][OG_JOBS] = {{false}};
    for (int a = 0; a < OG_JOBS; a++)
        for (int b = a + 1; b < OG_JOBS; b++)
            share[a][b] = share[b][a] = og_share(p, a, b);
    GString *key = g_string_new(p->sched);
    for (guint r = 0; r < p->log->len; r++) {
        const og_resched *rs = &g_array_index(p->log, og_resched, r);
        int canon[OG_JOBS];
        og_canonical_levels(rs, share, canon);
        g_string_append_printf(key, "|%.17g", rs->now_s);
        for (int i = 0; i < rs->n; i++)
            g_string_append_printf(key, ";%d:%d:%.17g:%s", rs->job[i], canon[i], rs->shift_s[i],
                                   rs->paths[i]);
    }
    return g_string_free(key, FALSE);
}

static bool og_probe_hook(void *user, sched_ctx *ctx)
{
    og_probe *p = user;
    if (p->key)
        return true; /* later reschedules (ends at the window's end) change nothing */
    og_resched rs = {.now_s = sched_now_s(ctx), .n = (int)sched_job_count(ctx)};
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) bytes = g_array_new(FALSE, FALSE, sizeof(double));
    for (int i = 0; i < rs.n && i < OG_JOBS; i++) {
        sched_job_info ji;
        sched_job_get(ctx, (size_t)i, &ji);
        rs.job[i] = og_job_index(p->c, ji.id);
        if (rs.job[i] < 0)
            return true; /* not a case job: leave the key unset */
        rs.level[i] = ji.priority;
        rs.shift_s[i] = ji.shift_s;
        GString *paths = g_string_new(NULL);
        for (size_t f = 0; f < ji.n_flows; f++) {
            sched_flow_info fi;
            sched_flow_get(ctx, (size_t)i, f, &fi);
            g_string_append_printf(paths, "%s%zu", f ? "." : "", fi.path);
        }
        rs.paths[i] = g_string_free(paths, FALSE);
        sched_job_link_bytes(ctx, (size_t)i, links, bytes);
        for (guint k = 0; k < links->len; k++)
            if (g_array_index(bytes, double, k) > 0.0)
                g_hash_table_add(p->links[rs.job[i]],
                                 GUINT_TO_POINTER(g_array_index(links, uint32_t, k) + 1));
    }
    g_array_append_val(p->log, rs);
    if (rs.n != OG_JOBS)
        return true;
    p->key = og_probe_key(p);
    const og_memo *seen = g_hash_table_lookup(p->c->memo, p->key);
    /* a bound is enough only if it is below what this run must beat */
    if (!seen || (!seen->exact && !(seen->util < p->beat)))
        return true;
    p->hit = true;
    p->hit_val = *seen;
    return false;
}

/* Stopping runs that cannot win.  After the last arrival the allocation
 * is fixed until the window's end (no job ends inside it), so with B and A
 * the busy and allocated GPU-seconds so far and a the GPUs allocated now,
 * the final utilization is at most (B + a r) / (A + a r), r the time left
 * (every allocated GPU busy from now on).  A search only needs its
 * maximum, so a run whose bound is below the best so far is stopped; the
 * margin (1e-9) is far above the rounding of these sums. */
typedef struct og_watcher {
    double beat;
    double last_arrival_s;
    double bound;   /* set when it stops the run */
} og_watcher;

static bool og_watch(void *user, const replay_watch *w)
{
    og_watcher *wt = user;
    if (w->now_s <= wt->last_arrival_s)
        return true;
    double left = (w->end_s - w->now_s) * w->alloc_gpus;
    double bound = (w->busy_gpu_s + left) / (w->alloc_gpu_s + left);
    if (!(bound < wt->beat - 1e-9))
        return true;
    wt->bound = bound;
    return false;
}

static void og_resched_clear(gpointer data)
{
    og_resched *rs = data;
    for (int i = 0; i < rs->n && i < OG_JOBS; i++)
        g_free(rs->paths[i]);
}

/* One replay: allocated GPU utilization, or NAN with *error set.  With
 * c->memo, a crux variant's run equivalent to an earlier one is not
 * finished (see og_probe).  With a finite `beat`, a run that cannot reach
 * it is stopped (og_watch) and *exact is false: the value returned is then
 * only an upper bound, below beat. */
static double og_run(og_case *c, const og_shared *sh, topo *t, const trace *tr, const char *sched,
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
        p.log = g_array_new(FALSE, TRUE, sizeof(og_resched));
        g_array_set_clear_func(p.log, og_resched_clear);
        for (int k = 0; k < OG_JOBS; k++)
            p.links[k] = g_hash_table_new(g_direct_hash, g_direct_equal);
        replay_set_decision_hook(r, og_probe_hook, &p);
    }
    og_watcher wt = {.beat = beat, .last_arrival_s = 0.001 * (OG_JOBS - 1), .bound = NAN};
    if (c->memo && isfinite(beat))
        replay_set_watch(r, sh->o->window_s / 50, og_watch, &wt);
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
    if (probe) {
        g_array_unref(p.log);
        for (int k = 0; k < OG_JOBS; k++)
            g_hash_table_destroy(p.links[k]);
        g_free(p.key);
    }
    return u;
}

/* Run a crux variant with one override object; keeps the case's best. */
static bool og_try(og_case *c, const og_shared *sh, topo *t, const trace *tr, const char *sched,
                   cJSON *obj, double *best, GError **error)
{
    bool exact;
    double u = og_run(c, sh, t, tr, sched, obj, *best, &exact, error);
    cJSON_Delete(obj);
    c->runs++;
    if (isnan(u))
        return false;
    if (!exact)
        return true; /* below *best (og_watch) */
    *best = fmax(*best, u);
    c->opt = fmax(c->opt, u);
    return true;
}

static bool og_search_paths(og_case *c, const og_shared *sh, topo *t, const trace *tr,
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

static bool og_search_priorities(og_case *c, const og_shared *sh, topo *t, const trace *tr,
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

static bool og_search_compression(og_case *c, const og_shared *sh, topo *t, const trace *tr,
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

static bool og_case_run(og_case *c, const og_shared *sh, GError **error)
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
    og_shared *sh = user;
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
    cli__og_journal_write(sh, c);
    sh->done++;
    if (!sh->o->quiet)
        fprintf(stderr,
                "optimal-gap: case %zu done (%d/%d), %zu runs (%zu replayed, the others "
                "equivalent), optimum %.4f\n",
                c->index, sh->done, sh->o->cases, c->runs, c->replays, c->opt);
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

static bool og_write_cases(output_dir *d, const og_case *cases, size_t n, const og_shared *sh,
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

/* Table on stdout and, with --output, summary.csv and cases.csv. */
static bool og_report(const og_case *cases, size_t n, const og_shared *sh, GError **error)
{
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
    printf("optimal-gap: %zu cases (seed %" G_GINT64_FORMAT ", window %g s, K = %d)\n", ok,
           sh->o->seed, sh->o->window_s, sh->o->levels);
    printf("ratio of GPU utilization to the optimum   mean      p10       min\n");
    for (size_t r = 0; r < rows; r++) {
        double st[3];
        og_stats(ratios->pdata[r], ok, st);
        bool mech = r < OG_N_MECH;
        const char *name = mech ? og_mech_names[r] : sh->sched_names->pdata[r - OG_N_MECH];
        printf("  %-11s %-26s %7.2f%%  %7.2f%%  %7.2f%%\n", mech ? "mechanism" : "scheduler",
               name, 100 * st[0], 100 * st[1], 100 * st[2]);
        if (csv) {
            output_csv_str(csv, mech ? "mechanism" : "scheduler");
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

static int og_main(const og_opts *o)
{
    GError *err = NULL;
    g_autoptr(catalog) cat = catalog_load_default(&err);
    if (!cat) {
        cli_error("optimal-gap: %s", err->message);
        g_error_free(err);
        return CLI_EXIT_FAILURE;
    }
    g_autoptr(GPtrArray) models = dp_models(cat);
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    for (size_t i = 0; i < sched_registry_count(); i++) {
        const char *nm = sched_registry_get(i)->name;
        if (strcmp(nm, "fixed") != 0 && strcmp(nm, "ideal") != 0)
            g_ptr_array_add(names, (gpointer)nm);
    }
    og_shared sh = {.o = o, .cat = cat, .sched_names = names};
    g_mutex_init(&sh.lock);
    og_case *cases = g_new0(og_case, (size_t)o->cases);
    for (int i = 0; i < o->cases; i++) {
        cases[i].index = (size_t)i;
        og_case_draw(&cases[i], o, models);
    }
    size_t resumed = 0;
    if (!cli__og_journal_open(&sh, cases, (size_t)o->cases, &resumed, &err)) {
        cli_error("optimal-gap: %s", err->message);
        g_error_free(err);
        for (int i = 0; i < o->cases; i++)
            og_case_clear(&cases[i]);
        g_free(cases);
        g_mutex_clear(&sh.lock);
        return CLI_EXIT_FAILURE;
    }
    if (resumed > 0 && !o->quiet)
        fprintf(stderr, "optimal-gap: %zu cases taken from %s/%s\n", resumed, o->output,
                OG_JOURNAL);
    sh.done = (int)resumed;
    GThreadPool *pool = g_thread_pool_new(og_worker, &sh, o->threads, TRUE, NULL);
    for (int i = 0; i < o->cases; i++)
        if (!cases[i].ok)
            g_thread_pool_push(pool, &cases[i], NULL);
    g_thread_pool_free(pool, FALSE, TRUE);
    g_mutex_clear(&sh.lock);
    size_t failed = 0;
    for (int i = 0; i < o->cases; i++)
        if (!cases[i].ok) {
            if (!o->quiet || failed == 0)
                cli_error("optimal-gap: %s", cases[i].error);
            failed++;
        }
    bool ok = og_report(cases, (size_t)o->cases, &sh, &err);
    if (ok && failed == 0)
        cli__og_journal_remove(&sh); /* else kept: --resume retries what failed */
    else if (sh.journal)
        fclose(sh.journal);
    for (int i = 0; i < o->cases; i++)
        og_case_clear(&cases[i]);
    g_free(cases);
    if (!ok) {
        cli_error("%s", err->message);
        g_error_free(err);
        return CLI_EXIT_FAILURE;
    }
    return failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

int cli_optimal_gap_main(int argc, char **argv)
{
    og_opts o = {.cases = 1500, .seed = 1, .window_s = 10.0, .levels = 3, .threads = 0,
                 .link_gbps = 50.0};
    GOptionEntry entries[] = {
        {"cases", 'n', 0, G_OPTION_ARG_INT, &o.cases, "random cases (default 1500)", "N"},
        {"seed", 's', 0, G_OPTION_ARG_INT64, &o.seed, "seed of the case generator (default 1)",
         "S"},
        {"window", 'w', 0, G_OPTION_ARG_DOUBLE, &o.window_s,
         "simulated seconds per run (default 10)", "SECONDS"},
        {"levels", 'k', 0, G_OPTION_ARG_INT, &o.levels, "priority levels K (default 3)", "K"},
        {"link-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &o.link_gbps,
         "ToR-aggregation link speed, Gbps (default 50: the network matters)", "GBPS"},
        {"threads", 'j', 0, G_OPTION_ARG_INT, &o.threads,
         "parallel cases (default: the number of processors)", "N"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output,
         "write summary.csv and cases.csv into DIR", "DIR"},
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet, "report only the first failed case", NULL},
        {"resume", 0, 0, G_OPTION_ARG_NONE, &o.resume,
         "go on with an interrupted run: take the cases finished in DIR/cases.journal", NULL},
        {"replay-all", 0, 0, G_OPTION_ARG_NONE, &o.replay_all,
         "replay every candidate, also those equivalent to an earlier run (slower, same result)",
         NULL},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("- Crux §4.4: schedulers and mechanisms against exhaustive search");
    g_option_context_set_summary(
        ctx, "Random small cases (2-layer Clos, 2-4 ToRs, 2 aggs, <= 20 hosts of 8 GPUs,\n"
             "5 data-parallel jobs); every path choice (2^5), ranking (5!) and K-level\n"
             "assignment (K^5) is replayed; prints, per mechanism and per scheduler, the\n"
             "ratio of GPU utilization to the optimum: mean, p10, min.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *err = NULL;
    int status;
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        cli_error("optimal-gap: %s", err->message);
        g_error_free(err);
        status = CLI_EXIT_USAGE;
    } else if (argc != 1 || o.cases < 1 || !ccs_positive_finite(o.window_s) || o.levels < 1 ||
               o.levels > 8 || o.threads < 0 || !ccs_positive_finite(o.link_gbps) ||
               (o.resume && !o.output)) {
        cli_error("optimal-gap: expected no arguments, --cases >= 1, --window > 0, "
                  "--levels in 1..8, --threads >= 0, --link-gbps > 0, --resume with --output");
        status = CLI_EXIT_USAGE;
    } else {
        if (o.threads == 0)
            o.threads = (int)MAX(1, g_get_num_processors());
        status = og_main(&o);
    }
    g_free(o.output);
    return status;
}
