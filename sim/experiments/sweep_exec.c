/* sweep_exec.c - a sweep's runs as `ccsim run` worker processes, N at a time,
 * resumable (docs/usage.md).  Not here: expansion (sweep.c), CSV (sweep_csv.c).
 *
 * Each run is a child process (GSubprocess), so a crash or an abort in one
 * simulation costs that run only.  A run split in time shards is one
 * task per shard (`ccsim run --shard-only K` in its folder), merged in
 * this process when its last shard ends (shard_merge.h).  On Linux the children get SIGKILL when
 * the sweep dies (PR_SET_PDEATHSIG), so a killed sweep leaves no orphan
 * writing into a run folder that a restarted sweep is about to redo.
 */
#include "sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <glib/gstdio.h>

#include "base/ccs.h"
#include "base/tempfile.h"
#include "shard_merge.h"
#include "sim/output_lock.h"
#include "sweep-private.h"

sweep_options sweep_options_default(void)
{
    return (sweep_options){
        .worker_path = NULL,
        .jobs = 1,
        .shard_index = 0,
        .shard_count = 1,
        .cancellable = NULL,
        .progress = NULL,
        .progress_data = NULL,
    };
}

bool sweep__write_atomic(const char *path, const char *text, GError **error)
{
    return ccs_write_atomic(path, text, strlen(text), error);
}

char *sweep__run_dir(const char *dir, const char *name)
{
    return g_build_filename(dir, "runs", name, NULL);
}

char *sweep__run_summary(const char *run_dir)
{
    static const char *const names[] = {"summary.csv", "summary.csv.gz"};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        char *path = g_build_filename(run_dir, names[i], NULL);
        if (g_file_test(path, G_FILE_TEST_IS_REGULAR))
            return path;
        g_free(path);
    }
    return NULL;
}

static bool run_finished(const char *dir, const char *name)
{
    g_autofree char *run_dir = sweep__run_dir(dir, name);
    g_autofree char *summary = sweep__run_summary(run_dir);
    return summary != NULL;
}

GArray *sweep_tasks(const sweep *sw)
{
    GArray *t = g_array_new(FALSE, FALSE, sizeof(sweep_task));
    for (size_t i = 0; i < sweep_run_count(sw); i++) {
        int n = sweep_run_shards(sw, i);
        for (int k = n > 1 ? 0 : -1; k < (n > 1 ? n : 0); k++) {
            sweep_task one = {.run = i, .shard = k, .shards = n};
            g_array_append_val(t, one);
        }
    }
    return t;
}

/* A task is done: its run is (merged), or its shard is. */
static bool task_finished(const sweep *sw, const char *dir, const sweep_task *t)
{
    const char *name = sweep_run_name(sw, t->run);
    if (run_finished(dir, name))
        return true;
    g_autofree char *run_dir = sweep__run_dir(dir, name);
    return t->shard >= 0 && shard_merge_finished(run_dir, t->shard);
}

/* The summary a finished task left (NULL: none). */
static char *task_summary(const char *run_dir, const sweep_task *t)
{
    if (t->shard < 0)
        return sweep__run_summary(run_dir);
    g_autofree char *shard_dir = shard_merge_dir(run_dir, t->shard);
    return sweep__run_summary(shard_dir);
}

/* The progress file of a task's worker (sweep_exec's ETA). */
static char *task_progress(const char *run_dir, const sweep_task *t)
{
    if (t->shard < 0)
        return g_build_filename(run_dir, SWEEP_PROGRESS_FILE, NULL);
    g_autofree char *name = g_strdup_printf(SWEEP_PROGRESS_FILE "-%d", t->shard);
    return g_build_filename(run_dir, name, NULL);
}

static bool make_dir(const char *path, GError **error)
{
    if (g_mkdir_with_parents(path, 0755) != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot create: %s", path,
                    g_strerror(errno));
        return false;
    }
    return true;
}

/* Remove what dead writers left (base/tempfile.h): temporaries in DIR,
 * in DIR/runs and in every run folder. */
static void reclaim_stale(const char *dir, const char *runs)
{
    ccs_temp_reclaim(dir);
    ccs_temp_reclaim(runs);
    g_autoptr(GDir) d = g_dir_open(runs, 0, NULL);
    for (const char *n; d && (n = g_dir_read_name(d));) {
        g_autofree char *run = g_build_filename(runs, n, NULL);
        if (n[0] != '.' && g_file_test(run, G_FILE_TEST_IS_DIR))
            ccs_temp_reclaim(run);
    }
}

/* Write DIR/sweep.json, or check that the one there describes the same
 * runs. */
static bool write_sweep_json(const sweep *sw, const char *dir, GError **error)
{
    g_autofree char *path = g_build_filename(dir, "sweep.json", NULL);
    if (g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_autoptr(sweep) old = sweep_load(path, error);
        if (old == NULL)
            return false;
        bool same = sweep_run_count(old) == sweep_run_count(sw);
        for (size_t i = 0; same && i < sweep_run_count(sw); i++)
            same = strcmp(sweep_run_name(old, i), sweep_run_name(sw, i)) == 0;
        if (!same) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s holds a different sweep; choose another output folder", path);
            return false;
        }
    }
    g_autofree char *text = sweep_to_json(sw);
    return sweep__write_atomic(path, text, error);
}

/* --- The worker pool --------------------------------------------------------- */

typedef struct pool pool;

typedef struct worker {
    pool *pl;
    sweep_task task;   /* its run and shard */
    GSubprocess *proc;
    char *command;     /* for error.txt */
    gint64 start_us;   /* when it started (monotonic) */
} worker;

struct pool {
    const sweep *sw;
    const char *dir;
    const sweep_options *o;
    GArray *todo;       /* sweep_task still to start */
    size_t next;        /* next position in todo */
    GPtrArray *running; /* worker * */
    sweep_progress p;
    size_t ran;         /* tasks that ended in this call */
    double ran_s;       /* their total wall time */
    gint64 start_us;
    bool stopping;      /* cancelled: start nothing more */
    guint kill_timer;   /* cancelled: SIGKILL for workers that outlive SIGTERM */
    GError *fatal;      /* first IO error; stops the pool */
};

/* The simulated-time fraction a running worker has done, from the
 * progress file `ccsim run --progress-file` keeps ("NOW START END"); 0
 * when there is none yet. */
static double worker_fraction(const pool *pl, const worker *w)
{
    g_autofree char *run_dir = sweep__run_dir(pl->dir, sweep_run_name(pl->sw, w->task.run));
    g_autofree char *path = task_progress(run_dir, &w->task);
    g_autofree char *text = NULL;
    double now, start, end;
    if (!g_file_get_contents(path, &text, NULL, NULL) ||
        sscanf(text, "%lf %lf %lf", &now, &start, &end) != 3 || !(end > start))
        return 0.0;
    return CLAMP((now - start) / (end - start), 0.0, 1.0);
}

static void report(pool *pl, sweep_progress_at at)
{
    pl->p.at = at;
    pl->p.elapsed_s = (double)(g_get_monotonic_time() - pl->start_us) * 1e-6;
    pl->p.running = pl->running->len;
    /* Runs left × mean run time, shared by the workers. */
    size_t left = pl->p.total - pl->p.done - pl->p.failed;
    double width = (double)MIN((size_t)pl->o->jobs, MAX(left, (size_t)1));
    pl->p.eta_s = pl->ran > 0 ? pl->ran_s / (double)pl->ran * (double)left / width : -1.0;
    /* Better, from simulated time: the share of this call's runs done,
     * counting each running one by its progress, extrapolated. */
    size_t todo = pl->todo->len;
    double frac = (double)pl->ran;
    for (guint i = 0; i < pl->running->len; i++)
        frac += worker_fraction(pl, pl->running->pdata[i]);
    frac = todo > 0 ? frac / (double)todo : 1.0;
    if (frac > 0.0 && frac < 1.0 && pl->p.elapsed_s > 0.0)
        pl->p.eta_s = pl->p.elapsed_s * (1.0 - frac) / frac;
    if (pl->o->progress != NULL)
        pl->o->progress(&pl->p, pl->o->progress_data);
}

static void child_setup(gpointer data)
{
    (void)data;
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
}

static char *describe_status(GSubprocess *proc, int *exit_status)
{
    if (g_subprocess_get_if_exited(proc)) {
        *exit_status = g_subprocess_get_exit_status(proc);
        return g_strdup_printf("%d", *exit_status);
    }
    if (g_subprocess_get_if_signaled(proc)) {
        int sig = g_subprocess_get_term_sig(proc);
        *exit_status = 128 + sig;
        return g_strdup_printf("%d (killed by signal %d, %s)", *exit_status, sig,
                               g_strsignal(sig));
    }
    *exit_status = -1;
    return g_strdup("unknown");
}

static void worker_free(worker *w)
{
    g_clear_object(&w->proc);
    g_free(w->command);
    g_free(w);
}

static void pool_fill(pool *pl);

/* The "ccsim: warning: " lines of a worker's stderr, prefix removed,
 * joined by '\n'; NULL when there is none.  (transfer full) */
static char *warning_lines(const char *err_text)
{
    static const char prefix[] = "ccsim: warning: ";
    g_auto(GStrv) lines = g_strsplit(err_text, "\n", -1);
    GString *out = NULL;
    for (size_t i = 0; lines[i]; i++) {
        if (!g_str_has_prefix(lines[i], prefix))
            continue;
        out = out ? g_string_append_c(out, '\n') : g_string_new(NULL);
        g_string_append(out, lines[i] + strlen(prefix));
    }
    return out ? g_string_free(out, FALSE) : NULL;
}

/* Write DIR/runs/NAME/error.txt (the folder made again if the run removed
 * it); an IO error stops the pool. */
static void record_failure(pool *pl, const char *run_dir, const char *text)
{
    g_autofree char *path = g_build_filename(run_dir, "error.txt", NULL);
    GError *io = NULL;
    if (!make_dir(run_dir, &io) || !sweep__write_atomic(path, text, &io)) {
        if (pl->fatal == NULL)
            pl->fatal = io;
        else
            g_error_free(io);
        pl->stopping = true;
    }
}

/* Merge run i if all its shards are there and it is not merged yet (the
 * merge locks the run's shards); a failed merge goes to its error.txt.
 * False when it failed. */
static bool merge_if_complete(const sweep *sw, const char *dir, size_t i, GError **error)
{
    int n = sweep_run_shards(sw, i);
    const char *name = sweep_run_name(sw, i);
    g_autofree char *run_dir = sweep__run_dir(dir, name);
    if (n <= 1 || run_finished(dir, name))
        return true;
    for (int k = 0; k < n; k++)
        if (!shard_merge_finished(run_dir, k))
            return true;
    GError *e = NULL;
    if (shard_merge(run_dir, n, &e))
        return true;
    g_autofree char *path = g_build_filename(run_dir, "error.txt", NULL);
    g_autofree char *text = g_strdup_printf("merge of %d shards\nexit_status: -\nerror: %s\n", n,
                                            e->message);
    g_error_free(e);
    sweep__write_atomic(path, text, error); /* *error set only when this fails */
    return false;
}

bool sweep_merge_shards(const sweep *sw, const char *dir, size_t *failed, GError **error)
{
    size_t bad = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < sweep_run_count(sw); i++) {
        GError *e = NULL;
        if (!merge_if_complete(sw, dir, i, &e)) {
            bad++;
            if (e) { /* error.txt could not be written */
                g_propagate_error(error, e);
                ok = false;
            }
        }
    }
    if (failed)
        *failed = bad;
    return ok;
}

/* A shard task ended well: merge its run if it was the last. */
static bool after_shard(pool *pl, const sweep_task *t)
{
    GError *e = NULL;
    bool ok = merge_if_complete(pl->sw, pl->dir, t->run, &e);
    if (e) {
        if (pl->fatal == NULL)
            pl->fatal = e;
        else
            g_error_free(e);
        pl->stopping = true;
    }
    return ok;
}

static void worker_done(GObject *source, GAsyncResult *res, gpointer data)
{
    worker *w = data;
    pool *pl = w->pl;
    /* Bytes, not UTF-8: a run's stderr is kept whatever its encoding. */
    g_autoptr(GBytes) err_bytes = NULL;
    g_autoptr(GError) comm_error = NULL;
    g_subprocess_communicate_finish(G_SUBPROCESS(source), res, NULL, &err_bytes, &comm_error);
    g_autofree char *err_text = NULL;
    if (err_bytes != NULL) {
        gsize len = 0;
        const char *data = g_bytes_get_data(err_bytes, &len);
        err_text = g_strndup(data ? data : "", len);
    }
    g_ptr_array_remove(pl->running, w);
    const char *name = sweep_run_name(pl->sw, w->task.run);
    g_autofree char *run_dir = sweep__run_dir(pl->dir, name);
    int exit_status = 0;
    g_autofree char *status = describe_status(w->proc, &exit_status);
    bool finished = task_finished(pl->sw, pl->dir, &w->task);
    bool ok = exit_status == 0 && finished;
    pl->ran_s += (double)(g_get_monotonic_time() - w->start_us) * 1e-6;
    bool merge_failed = ok && w->task.shard >= 0 && !after_shard(pl, &w->task);
    ok = ok && !merge_failed; /* a failed merge wrote its error.txt */
    if (ok) {
        pl->p.done++;
        pl->ran++;
    } else if (!pl->stopping && !merge_failed) {
        /* A summary.csv from a run that then failed (a crash at exit, a
         * leak report) is moved aside: finished means succeeded. */
        g_autofree char *from = finished ? task_summary(run_dir, &w->task) : NULL;
        g_autofree char *to = from ? g_strconcat(from, ".failed", NULL) : NULL;
        if (from && g_rename(from, to) != 0)
            g_debug("%s: cannot rename: %s", from, g_strerror(errno));
        g_autofree char *text = g_strdup_printf(
            "command: %s\nexit_status: %s\n%s--- stderr ---\n%s", w->command, status,
            exit_status == 0 ? "error: exited 0 but wrote no summary.csv (nor summary.csv.gz)\n" : "",
            err_text ? err_text : (comm_error ? comm_error->message : ""));
        record_failure(pl, run_dir, text);
        pl->p.failed++;
        pl->ran++;
    } else if (!pl->stopping) { /* the merge failed: error.txt says why */
        pl->p.failed++;
        pl->ran++;
    }
    pool_fill(pl); /* first, so the report counts the worker that replaces this one */
    pl->p.last_name = name;
    pl->p.last_ok = ok;
    g_autofree char *warnings = ok && err_text ? warning_lines(err_text) : NULL;
    pl->p.last_warnings = warnings;
    if (!pl->stopping || ok || pl->fatal)
        report(pl, SWEEP_AT_RUN_END);
    pl->p.last_warnings = NULL;
    worker_free(w);
}

/* The worker of a task: `ccsim run` in the run's folder, for a shard with
 * --shard-only K (its run folder and its shards/ kept). */
static char **task_argv(pool *pl, const sweep_task *t)
{
    g_auto(GStrv) extra = sweep_run_args(pl->sw, t->run);
    g_autoptr(GStrvBuilder) b = g_strv_builder_new();
    /* The worker runs inside its folder with relative names, so what it
     * records about its inputs ("scenario.json") is the same whatever DIR
     * is; the scenario's own paths are absolute. */
    g_strv_builder_add_many(b, pl->o->worker_path, "run", "--scenario", "scenario.json", "--out",
                            ".", NULL);
    if (t->shard < 0) {
        g_strv_builder_add(b, "--progress-file=" SWEEP_PROGRESS_FILE);
    } else {
        g_autofree char *progress =
            g_strdup_printf("--progress-file=" SWEEP_PROGRESS_FILE "-%d", t->shard);
        g_autofree char *only = g_strdup_printf("--shard-only=%d", t->shard);
        g_strv_builder_add_many(b, progress, only, NULL);
    }
    g_strv_builder_addv(b, (const char **)extra);
    return g_strv_builder_end(b);
}

/* Prepare the task's folder: a whole run's emptied, a shard's run folder
 * kept (its other shards live there) with shards/ made and its error.txt
 * gone; then write the scenario. */
static bool task_folder(pool *pl, const sweep_task *t, const char *run_dir, GError **error)
{
    g_autofree char *scenario_path = g_build_filename(run_dir, "scenario.json", NULL);
    g_autofree char *scenario = sweep_run_scenario_text(pl->sw, t->run);
    if (t->shard < 0) {
        if (!ccs_remove_tree(run_dir, error) || !make_dir(run_dir, error))
            return false;
    } else {
        g_autofree char *shards = g_build_filename(run_dir, SHARD_MERGE_DIR, NULL);
        g_autofree char *err = g_build_filename(run_dir, "error.txt", NULL);
        if (!make_dir(shards, error))
            return false;
        g_remove(err);
    }
    return sweep__write_atomic(scenario_path, scenario, error);
}

/* Set the task's folder up and start its worker. */
static bool pool_start(pool *pl, const sweep_task *t, GError **error)
{
    const char *name = sweep_run_name(pl->sw, t->run);
    g_autofree char *run_dir = sweep__run_dir(pl->dir, name);
    if (!task_folder(pl, t, run_dir, error))
        return false;
    g_auto(GStrv) argv = task_argv(pl, t);
    g_autoptr(GSubprocessLauncher) l = g_subprocess_launcher_new(
        G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
    g_subprocess_launcher_set_child_setup(l, child_setup, NULL, NULL);
    g_subprocess_launcher_set_cwd(l, run_dir);
    worker *w = g_new0(worker, 1);
    w->pl = pl;
    w->task = *t;
    g_autofree char *joined = g_strjoinv(" ", argv);
    w->command = g_strdup_printf("(cd %s && %s)", run_dir, joined);
    w->start_us = g_get_monotonic_time();
    w->proc = g_subprocess_launcher_spawnv(l, (const char *const *)argv, error);
    if (w->proc == NULL) {
        g_prefix_error(error, "%s: ", pl->o->worker_path);
        worker_free(w);
        return false;
    }
    g_ptr_array_add(pl->running, w);
    g_subprocess_communicate_async(w->proc, NULL, NULL, worker_done, w);
    return true;
}

static void pool_fill(pool *pl)
{
    while (!pl->stopping && pl->running->len < (size_t)pl->o->jobs && pl->next < pl->todo->len) {
        if (pl->o->cancellable && g_cancellable_is_cancelled(pl->o->cancellable)) {
            pl->stopping = true;
            break;
        }
        const sweep_task *t = &g_array_index(pl->todo, sweep_task, pl->next++);
        if (!pool_start(pl, t, &pl->fatal))
            pl->stopping = true;
    }
}

/* Workers still running SWEEP_KILL_AFTER_S after SIGTERM get SIGKILL
 * (their temporaries are reclaimed by the next sweep, base/tempfile.h). */
#define SWEEP_KILL_AFTER_S 2

static gboolean kill_stragglers(gpointer data)
{
    pool *pl = data;
    for (size_t i = 0; i < pl->running->len; i++)
        g_subprocess_force_exit(((worker *)pl->running->pdata[i])->proc);
    return G_SOURCE_CONTINUE;
}

/* Stop: start nothing more, and ask every worker to stop as a user's
 * SIGTERM does (`ccsim run` then removes its temporaries and dies of it). */
static void pool_cancel(GCancellable *c, gpointer data)
{
    (void)c;
    pool *pl = data;
    pl->stopping = true;
    for (size_t i = 0; i < pl->running->len; i++)
        g_subprocess_send_signal(((worker *)pl->running->pdata[i])->proc, SIGTERM);
    if (!pl->kill_timer)
        pl->kill_timer = g_timeout_add_seconds(SWEEP_KILL_AFTER_S, kill_stragglers, pl);
}

static gboolean progress_tick(gpointer data)
{
    pool *pl = data;
    if (pl->running->len > 0 && !pl->stopping)
        report(pl, SWEEP_AT_TICK);
    return G_SOURCE_CONTINUE;
}

bool sweep_execute(const sweep *sw, const char *dir, const sweep_options *opts,
                   sweep_progress *last, GError **error)
{
    g_return_val_if_fail(sw && dir && opts && opts->worker_path, false);
    g_return_val_if_fail(opts->jobs >= 1 && opts->shard_count >= 1, false);
    g_return_val_if_fail(opts->shard_index >= 0 && opts->shard_index < opts->shard_count, false);
    /* one sweep (or one shard) per folder, then what dead ones left */
    g_autoptr(output_lock) lock =
        opts->shard_count > 1 ? output_lock_take_shard(dir, opts->shard_index, opts->shard_count, error)
                              : output_lock_take(dir, error);
    if (!lock)
        return false;
    g_autofree char *runs = g_build_filename(dir, "runs", NULL);
    if (!make_dir(runs, error) || !write_sweep_json(sw, dir, error))
        return false;
    reclaim_stale(dir, runs);

    pool pl = {.sw = sw, .dir = dir, .o = opts};
    pl.running = g_ptr_array_new();
    pl.start_us = g_get_monotonic_time();
    pl.todo = g_array_new(FALSE, FALSE, sizeof(sweep_task));
    g_autoptr(GArray) tasks = sweep_tasks(sw);
    for (guint i = (guint)opts->shard_index; i < tasks->len; i += (guint)opts->shard_count) {
        const sweep_task *t = &g_array_index(tasks, sweep_task, i);
        pl.p.total++;
        if (task_finished(sw, dir, t))
            pl.p.skipped++;
        else
            g_array_append_val(pl.todo, *t);
    }
    pl.p.done = pl.p.skipped;
    report(&pl, SWEEP_AT_START);

    gulong handler = 0;
    if (opts->cancellable)
        handler = g_cancellable_connect(opts->cancellable, G_CALLBACK(pool_cancel), &pl, NULL);
    GMainContext *ctx = g_main_context_ref_thread_default();
    pool_fill(&pl);
    /* the progress line (and its ETA) also moves while runs are going */
    GSource *tick = g_timeout_source_new_seconds(1);
    g_source_set_callback(tick, progress_tick, &pl, NULL);
    g_source_attach(tick, ctx);
    while (pl.running->len > 0)
        g_main_context_iteration(ctx, TRUE);
    g_source_destroy(tick);
    g_source_unref(tick);
    g_main_context_unref(ctx);
    if (opts->cancellable)
        g_cancellable_disconnect(opts->cancellable, handler);
    if (pl.kill_timer)
        g_source_remove(pl.kill_timer);

    if (last)
        *last = pl.p;
    g_array_unref(pl.todo);
    g_ptr_array_unref(pl.running);
    if (pl.fatal != NULL) {
        g_propagate_error(error, pl.fatal);
        return false;
    }
    if (opts->cancellable && g_cancellable_is_cancelled(opts->cancellable))
        return true; /* the finished runs are whole; the next sweep merges and sums them */
    /* runs whose last shards other processes (Slurm tasks) finished */
    size_t bad = 0;
    if (!sweep_merge_shards(sw, dir, &bad, error))
        return false;
    if (last)
        last->failed += bad;
    return sweep_write_summary(sw, dir, NULL, NULL, error);
}

/* --- The summary lock ------------------------------------------------------- */

/* Some shared file systems (Lustre without -o flock) refuse locks; then the
 * summary is written unlocked, and `ccsim merge` rebuilds it from the run
 * folders anyway. */
int sweep__lock(const char *dir, GError **error)
{
    g_autofree char *path = g_build_filename(dir, ".lock", NULL);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot open: %s", path,
                    g_strerror(errno));
        return -1;
    }
    int rc;
    while ((rc = lockf(fd, F_LOCK, 0)) != 0 && errno == EINTR)
        ;
    if (rc != 0 && (errno == ENOLCK || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL)) {
        g_debug("%s: locks unsupported (%s); writing the summary unlocked", path,
                g_strerror(errno));
    } else if (rc != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot lock: %s", path,
                    g_strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

void sweep__unlock(int fd)
{
    if (fd >= 0)
        close(fd);
}
