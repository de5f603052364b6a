/* cli_shards.c - `ccsim run --shards N`: one run split in time shards, run
 * side by side on a thread pool (-j), resumable, merged (docs/cluster.md,
 * "Long replays split in time").  Not here: a shard's replay
 * (replay_new_shard), the merge (sim/experiments/shard_merge.c).
 *
 * OUT/shards/K holds shard K's outputs, committed whole when it ends, so a
 * finished shard is never redone: the same command again runs only the
 * missing shards, then merges.  --shard-only K runs one shard and stops
 * (a Slurm array task); the run merges when it finds them all.  Each
 * shard has its own topology and replay; the trace, catalog and
 * configuration are only read and are shared.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/ccs.h"
#include "base/input.h"
#include "base/json.h"
#include "base/limits.h"
#include "base/tempfile.h"
#include "cli.h"
#include "cli_sim.h"
#include "schedulers/registry.h"
#include "sim/experiments/shard_merge.h"
#include "sim/output_folder.h"
#include "sim/output_lock.h"

char *cli_shards_refusal(const cli_sim_opts *o, const config *cfg, bool timeline)
{
    int n = cfg->sim.shards;
    if (o->shard_only >= 0 && o->shard_only >= n)
        return g_strdup_printf("--shard-only %d: the run has %d shard%s (--shards), numbered from "
                               "0",
                               o->shard_only, n, n == 1 ? "" : "s");
    if (o->shard_only < -1)
        return g_strdup_printf("--shard-only: expected a shard number >= 0, got %d",
                               o->shard_only);
    g_autoptr(GError) e = NULL;
    if (!ccs_limit_check(CCS_LIMIT_PARALLEL, o->jobs, "-j", &e))
        return g_strdup(e->message);
    if (n <= 1)
        return NULL;
    if (cfg->sim.mode != CONFIG_MODE_WINDOW)
        return g_strdup("--shards: only window mode can be split in time (in work mode a job's "
                        "end depends on everything before it)");
    if (timeline)
        return g_strdup("--shards: a timeline or flows.csv records one run's events; run the "
                        "window you want to look at without --shards");
    return NULL;
}

/* The window of the run and its shards' bounds: a --shards the window
 * cannot hold is a usage error (*usage), found before anything runs. */
static bool check_window(const config *cfg, cli_inputs *in, bool *usage, GError **error)
{
    const sched_ops *ops = sched_registry_lookup(cfg->scheduler, error);
    g_autoptr(replay) r = ops ? replay_new(cfg, ops, in->t, in->tr, in->cat, error) : NULL;
    if (!r)
        return false;
    double s = 0, e = 0;
    replay_window(r, &s, &e);
    g_autofree double *b = g_new(double, cfg->sim.shards + 1);
    *usage = !replay_shard_bounds(s, e, cfg->sim.interval_s, cfg->sim.shards, b, error);
    return !*usage;
}

/* OUT may hold only this run's shards: new, empty, replaced whole
 * (--force), or holding OUT/shards to resume. */
static bool prepare_out(const cli_sim_opts *o, const char *out, GError **error)
{
    GError *e = NULL;
    output_folder_state st = output_folder_check(out, o->force, o->scenario, &e);
    if (st == OUTPUT_FOLDER_REPLACE)
        return output_folder_remove(out, error);
    if (st != OUTPUT_FOLDER_REFUSED)
        return true;
    g_autofree char *shards = g_build_filename(out, SHARD_MERGE_DIR, NULL);
    if (g_file_test(shards, G_FILE_TEST_IS_DIR)) {
        g_error_free(e);
        return true; /* resume: each finished shard is checked below */
    }
    g_propagate_error(error, e);
    return false;
}

typedef struct shard_task {
    int k;
    const config *cfg;
    cli_inputs in;     /* the shared inputs with its own topology */
    output_dir *d;
    const char *progress_file;
    bool quiet;        /* no "shard K done" line */
    bool progress;     /* its own progress line (one shard running alone) */
    cli_run_result res;
    GError *error;
    bool ok;
} shard_task;

static void shard_worker(gpointer data, gpointer user)
{
    (void)user;
    shard_task *t = data;
    t->ok = cli_run_one(t->cfg, &t->in, g_steal_pointer(&t->d), !t->progress,
                        t->progress_file, &t->res, &t->error);
    if (t->ok && !t->quiet)
        fprintf(stderr, "run: shard %d done (%.1f s wall, %llu events)\n", t->k, t->res.s.wall_s,
                (unsigned long long)t->res.s.events);
}

static bool task_setup(shard_task *t, const cli_sim_opts *o, const config *cfg,
                       const cli_inputs *in, const char *out, int k, GError **error)
{
    t->k = k;
    t->cfg = cfg;
    t->in = *in;
    t->in.shard = k;
    t->quiet = o->quiet;
    t->progress = !o->quiet && o->shard_only >= 0;
    t->progress_file = o->shard_only >= 0 ? o->progress_file : NULL;
    t->in.t = cli_inputs_topo(cfg, in, error);
    if (!t->in.t)
        return false;
    g_autofree char *dir = shard_merge_dir(out, k);
    /* an unfinished shard's leftovers go: it runs again whole */
    if (!output_folder_remove(dir, error))
        return false;
    t->d = output_dir_open_new(dir, false, NULL, error);
    return t->d != NULL;
}

/* Run the unfinished shards (all, or --shard-only's), -j at a time. */
static bool run_missing(const cli_sim_opts *o, const config *cfg, cli_inputs *in,
                        const char *out, size_t *ran, GError **error)
{
    int n = cfg->sim.shards, lo = o->shard_only >= 0 ? o->shard_only : 0;
    int hi = o->shard_only >= 0 ? o->shard_only + 1 : n;
    g_autoptr(cJSON) conf = config_to_json(cfg);
    shard_task *tasks = g_new0(shard_task, n);
    size_t todo = 0;
    bool ok = true;
    for (int k = lo; ok && k < hi; k++) {
        if (shard_merge_finished(out, k)) {
            ok = shard_merge_check(out, k, n, conf, error);
            continue;
        }
        ok = task_setup(&tasks[todo], o, cfg, in, out, k, error);
        todo++;
    }
    int jobs = o->jobs > 0 ? o->jobs : (int)MAX(1, g_get_num_processors());
    if (ok && todo > 0) {
        GThreadPool *pool = g_thread_pool_new(shard_worker, NULL, jobs, TRUE, NULL);
        for (size_t i = 0; i < todo; i++)
            g_thread_pool_push(pool, &tasks[i], NULL);
        g_thread_pool_free(pool, FALSE, TRUE); /* waits for every shard */
    }
    g_autofree cli_run_result *results = g_new0(cli_run_result, todo + 1);
    size_t done = 0;
    for (size_t i = 0; i < todo; i++)
        if (tasks[i].ok)
            results[done++] = tasks[i].res;
    cli_run_warnings_print(results, done); /* each text once, for all shards */
    for (size_t i = 0; i < todo; i++) {
        shard_task *t = &tasks[i];
        cli_run_result_clear(&t->res);
        if (ok && !t->ok && t->error) {
            g_propagate_prefixed_error(error, g_steal_pointer(&t->error), "shard %d: ", t->k);
            ok = false;
        }
        output_dir_abort(t->d);
        topo_free(t->in.t);
        g_clear_error(&t->error);
    }
    g_free(tasks);
    *ran = todo;
    return ok;
}

/* The merged run's headline, as `ccsim run` prints one (from run.json). */
static void print_result(const char *out, int n, size_t ran)
{
    g_autofree char *path = g_build_filename(out, "run.json", NULL);
    g_autoptr(GBytes) b = ccs_input_read(path, true, NULL);
    gsize len = 0;
    const char *text = b ? g_bytes_get_data(b, &len) : NULL;
    g_autoptr(cJSON) j = text ? ccs_json_parse(text, len, path, NULL) : NULL;
    const cJSON *s = cJSON_GetObjectItem(j, "summary");
    double v[5] = {NAN, NAN, NAN, NAN, NAN};
    const char *keys[] = {"gpu_util_cluster_frac", "gpu_util_allocated_frac", "mean_slowdown",
                          "iterations", "jobs"};
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
        if (cJSON_IsNumber(cJSON_GetObjectItem(s, keys[i])))
            v[i] = cJSON_GetObjectItem(s, keys[i])->valuedouble;
    const cJSON *sched = cJSON_GetObjectItem(j, "scheduler");
    printf("%s: %.0f jobs, GPU utilization %.4f (cluster) %.4f (allocated), mean slowdown %.4f, "
           "%.0f iterations; %d shards (%zu run now)\n",
           cJSON_IsString(sched) ? sched->valuestring : "?", v[4], v[0], v[1], v[2], v[3], n,
           ran);
    printf("results in %s/\n", out);
}

int cli_run_shards(const cli_sim_opts *o, const config *cfg, cli_inputs *in, const char *out)
{
    GError *e = NULL;
    bool usage = false;
    /* one writer per folder: the --shard-only tasks of one run share it */
    g_autoptr(output_lock) lock = NULL;
    if (check_window(cfg, in, &usage, &e))
        lock = o->shard_only >= 0 ? output_lock_take_shard(out, o->shard_only, cfg->sim.shards, &e)
                                  : output_lock_take(out, &e);
    if (lock)
        ccs_temp_reclaim(out);
    if (!lock || !prepare_out(o, out, &e)) {
        cli_error("%s", e->message);
        g_error_free(e);
        return usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
    }
    size_t ran = 0;
    bool ok = run_missing(o, cfg, in, out, &ran, &e);
    if (!ok && cli_signal_caught()) {
        g_clear_error(&e);
        g_autofree char *what = g_strdup_printf("the finished shards stay in %s/%s; the same "
                                                "command runs the others and merges",
                                                out, SHARD_MERGE_DIR);
        cli_signals_exit_saying(what);
    }
    int n = cfg->sim.shards;
    bool all = true;
    for (int k = 0; ok && k < n; k++)
        all = all && shard_merge_finished(out, k);
    if (ok && o->shard_only >= 0 && !all) {
        printf("shard %d of %d in %s/%s/%d; the run merges when every shard is there\n",
               o->shard_only, n, out, SHARD_MERGE_DIR, o->shard_only);
        return CLI_EXIT_OK;
    }
    ok = ok && shard_merge(out, n, &e);
    if (!ok) {
        cli_error("%s", e->message);
        g_error_free(e);
        return CLI_EXIT_FAILURE;
    }
    print_result(out, n, ran);
    return CLI_EXIT_OK;
}
