/* sweep_exec.c - a sweep's runs as `ccsim run` worker processes, N at a time,
 * resumable (docs/usage.md).  Not here: expansion (sweep.c), CSV (sweep_csv.c).
 *
 * Each run is a child process (GSubprocess), so a crash or an abort in one
 * simulation costs that run only.  On Linux the children get SIGKILL when
 * the sweep dies (PR_SET_PDEATHSIG), so a killed sweep leaves no orphan
 * writing into a run folder that a restarted sweep is about to redo.
 */
#include "sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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
    GError *io = NULL;
    if (!g_file_set_contents(path, text, -1, &io)) {
        sweep__io_error(error, io, "");
        return false;
    }
    return true;
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

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* Remove a folder and everything in it (nothing when it does not exist). */
static bool remove_tree(const char *path, GError **error)
{
    if (!g_file_test(path, G_FILE_TEST_EXISTS))
        return true;
    if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot remove: %s", path,
                    g_strerror(errno));
        return false;
    }
    return true;
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
    size_t index;      /* run index */
    GSubprocess *proc;
    char *command;     /* for error.txt */
    gint64 start_us;   /* when it started (monotonic) */
} worker;

struct pool {
    const sweep *sw;
    const char *dir;
    const sweep_options *o;
    GArray *todo;       /* size_t run indices still to start */
    size_t next;        /* next position in todo */
    GPtrArray *running; /* worker * */
    sweep_progress p;
    size_t ran;         /* runs that ended in this call */
    double ran_s;       /* their total wall time */
    gint64 start_us;
    bool stopping;      /* cancelled: start nothing more */
    GError *fatal;      /* first IO error; stops the pool */
};

/* The simulated-time fraction a running worker has done, from the
 * progress file `ccsim run --progress-file` keeps ("NOW START END"); 0
 * when there is none yet. */
static double worker_fraction(const pool *pl, const worker *w)
{
    g_autofree char *run_dir = sweep__run_dir(pl->dir, sweep_run_name(pl->sw, w->index));
    g_autofree char *path = g_build_filename(run_dir, SWEEP_PROGRESS_FILE, NULL);
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
    const char *name = sweep_run_name(pl->sw, w->index);
    int exit_status = 0;
    g_autofree char *status = describe_status(w->proc, &exit_status);
    bool finished = run_finished(pl->dir, name);
    bool ok = exit_status == 0 && finished;
    pl->ran_s += (double)(g_get_monotonic_time() - w->start_us) * 1e-6;
    if (ok) {
        pl->p.done++;
        pl->ran++;
    } else if (!pl->stopping) {
        /* The run may have removed its own folder on failure; recreate it.
         * A summary.csv from a run that then failed (a crash at exit, a
         * leak report) is moved aside: finished means succeeded. */
        g_autofree char *run_dir = sweep__run_dir(pl->dir, name);
        if (finished) {
            g_autofree char *from = sweep__run_summary(run_dir);
            g_autofree char *to = g_strconcat(from, ".failed", NULL);
            if (g_rename(from, to) != 0)
                g_debug("%s: cannot rename: %s", from, g_strerror(errno));
        }
        g_autofree char *path = g_build_filename(run_dir, "error.txt", NULL);
        g_autofree char *text = g_strdup_printf(
            "command: %s\nexit_status: %s\n%s--- stderr ---\n%s", w->command, status,
            exit_status == 0 ? "error: exited 0 but wrote no summary.csv (nor summary.csv.gz)\n" : "",
            err_text ? err_text : (comm_error ? comm_error->message : ""));
        GError *io = NULL;
        if (!make_dir(run_dir, &io) || !sweep__write_atomic(path, text, &io)) {
            if (pl->fatal == NULL)
                pl->fatal = io;
            else
                g_error_free(io);
            pl->stopping = true;
        }
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

/* Empty the run's folder, write its scenario, and start its worker. */
static bool pool_start(pool *pl, size_t index, GError **error)
{
    const char *name = sweep_run_name(pl->sw, index);
    g_autofree char *run_dir = sweep__run_dir(pl->dir, name);
    g_autofree char *scenario_path = g_build_filename(run_dir, "scenario.json", NULL);
    g_autofree char *scenario = sweep_run_scenario_text(pl->sw, index);
    if (!remove_tree(run_dir, error) || !make_dir(run_dir, error) ||
        !sweep__write_atomic(scenario_path, scenario, error))
        return false;
    g_auto(GStrv) extra = sweep_run_args(pl->sw, index);
    g_autoptr(GStrvBuilder) b = g_strv_builder_new();
    /* The worker runs inside its folder with relative names, so what it
     * records about its inputs ("scenario.json") is the same whatever DIR
     * is; the scenario's own paths are absolute. */
    g_strv_builder_add_many(b, pl->o->worker_path, "run", "--scenario", "scenario.json", "--out",
                            ".", "--progress-file=" SWEEP_PROGRESS_FILE, NULL);
    g_strv_builder_addv(b, (const char **)extra);
    g_auto(GStrv) argv = g_strv_builder_end(b);

    g_autoptr(GSubprocessLauncher) l = g_subprocess_launcher_new(
        G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
    g_subprocess_launcher_set_child_setup(l, child_setup, NULL, NULL);
    g_subprocess_launcher_set_cwd(l, run_dir);
    worker *w = g_new0(worker, 1);
    w->pl = pl;
    w->index = index;
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
        size_t index = g_array_index(pl->todo, size_t, pl->next++);
        if (!pool_start(pl, index, &pl->fatal))
            pl->stopping = true;
    }
}

static void pool_cancel(GCancellable *c, gpointer data)
{
    (void)c;
    pool *pl = data;
    pl->stopping = true;
    for (size_t i = 0; i < pl->running->len; i++)
        g_subprocess_force_exit(((worker *)pl->running->pdata[i])->proc);
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
    g_autofree char *runs = g_build_filename(dir, "runs", NULL);
    if (!make_dir(runs, error) || !write_sweep_json(sw, dir, error))
        return false;

    pool pl = {.sw = sw, .dir = dir, .o = opts};
    pl.todo = g_array_new(FALSE, FALSE, sizeof(size_t));
    pl.running = g_ptr_array_new();
    pl.start_us = g_get_monotonic_time();
    for (size_t i = (size_t)opts->shard_index; i < sweep_run_count(sw);
         i += (size_t)opts->shard_count) {
        pl.p.total++;
        if (run_finished(dir, sweep_run_name(sw, i)))
            pl.p.skipped++;
        else
            g_array_append_val(pl.todo, i);
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

    if (last)
        *last = pl.p;
    g_array_unref(pl.todo);
    g_ptr_array_unref(pl.running);
    if (pl.fatal != NULL) {
        g_propagate_error(error, pl.fatal);
        return false;
    }
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
