/* cli_compare_jobs.c - `ccsim compare -j N`: the schedulers' replays run
 * side by side on a GLib thread pool, with one progress line for all.
 * Not here: options, the table and the sequential path (cli_compare.c).
 *
 * The engine has no global state, but a topology's path cache fills lazily
 * (topo.h), so every run gets its own topology (built again from the same
 * spec) and its own configuration; the trace and the catalog are only read
 * and are shared.  Each run writes its own folder; its summary row and
 * warnings are kept for the caller, which writes the combined summary.csv
 * and prints the warnings once all have finished, in the order of the
 * scheduler list, so files and messages equal those of a sequential
 * compare.
 */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "cli_compare.h"
#include "schedulers/registry.h"

typedef struct par_shared par_shared;

typedef struct par_run {
    const char *name;
    config *cfg;
    topo *t;
    replay *r;
    output_dir *sub;
    GError *error;
    bool ok;
    double frac; /* simulated-time progress, 0..1 (under the lock) */
    bool done;
    par_shared *sh;
} par_run;

struct par_shared {
    GMutex lock;
    par_run *runs;
    size_t n;
    bool show;    /* print the progress line in place (stderr is a terminal, no -q) */
    bool log;     /* a whole line every log_us (not a terminal, no -q) */
    gint64 log_us;
    gint64 t0_us, last_us;
};

/* One line for all runs: how many are done, the running ones' progress and
 * an ETA from the mean simulated-time fraction.  Called under the lock. */
static void print_progress(par_shared *sh, gint64 now_us)
{
    gint64 every_us = sh->log ? sh->log_us : 250000;
    if (!(sh->show || sh->log) || now_us - sh->last_us < every_us)
        return;
    sh->last_us = now_us;
    size_t done = 0;
    double sum = 0;
    GString *running = g_string_new(NULL);
    for (size_t i = 0; i < sh->n; i++) {
        const par_run *p = &sh->runs[i];
        sum += p->done ? 1.0 : p->frac;
        if (p->done)
            done++;
        else if (p->frac > 0 && running->len < 60)
            g_string_append_printf(running, " %s %.0f%%", p->name, 100 * p->frac);
    }
    double f = sum / (double)sh->n, el = (now_us - sh->t0_us) / 1e6;
    double eta = f > 0 ? el * (1 - f) / f : NAN;
    fprintf(stderr, "%scompare: %zu/%zu done,%s  ETA %.0f s%s", sh->log ? "ccsim: " : "\r", done,
            sh->n, running->str, isnan(eta) ? 0.0 : eta, sh->log ? "\n" : "\033[K");
    fflush(stderr);
    g_string_free(running, TRUE);
}

static void on_progress(void *user, const replay_progress *rp)
{
    par_run *p = user;
    double span = rp->end_s - rp->start_s;
    double f = span > 0 ? (rp->now_s - rp->start_s) / span : 0;
    g_mutex_lock(&p->sh->lock);
    p->frac = fmin(fmax(f, 0), 1);
    print_progress(p->sh, g_get_monotonic_time());
    g_mutex_unlock(&p->sh->lock);
}

static void worker(gpointer data, gpointer user)
{
    (void)user;
    par_run *p = data;
    p->ok = replay_run(p->r, p->sub, on_progress, p, &p->error);
    g_mutex_lock(&p->sh->lock);
    p->done = true;
    print_progress(p->sh, g_get_monotonic_time());
    g_mutex_unlock(&p->sh->lock);
}

static void run_clear(par_run *p)
{
    if (p->sub)
        output_dir_abort(p->sub);
    replay_free(p->r);
    topo_free(p->t);
    config_free(p->cfg);
    g_clear_error(&p->error);
}

/* Run p's replay set up: its own configuration, topology and folder. */
static bool run_setup(par_run *p, const cli_sim_opts *o, const cli_inputs *in,
                      const char *base, GError **error)
{
    bool usage = false;
    p->cfg = cli_sim_config(o, &usage, error);
    if (!p->cfg)
        return false;
    cli_default_window(p->cfg, in);
    config_set_scheduler(p->cfg, p->name);
    p->t = cli_inputs_topo(p->cfg, in, error);
    const sched_ops *ops = p->t ? sched_registry_lookup(p->name, error) : NULL;
    p->r = ops ? replay_new(p->cfg, ops, p->t, in->tr, in->cat, error) : NULL;
    if (!p->r)
        return false;
    replay_set_stop(p->r, cli_stop_if_signalled, NULL); /* every thread stops on a signal */
    g_autofree char *out = g_build_filename(base, p->name, NULL);
    p->sub = output_dir_open(out, error);
    return p->sub != NULL;
}

bool cli_compare_parallel(const cli_sim_opts *o, const cli_inputs *in, const GPtrArray *names,
                          const char *base, int jobs, cli_run_result *res, GError **error)
{
    bool tty = isatty(STDERR_FILENO);
    par_shared sh = {.n = names->len, .show = !o->quiet && tty, .log = !o->quiet && !tty,
                     .log_us = (gint64)(cli_progress_log_s() * 1e6)};
    g_mutex_init(&sh.lock);
    sh.runs = g_new0(par_run, sh.n);
    bool ok = true;
    for (size_t i = 0; ok && i < sh.n && !cli_signal_caught(); i++) {
        par_run *p = &sh.runs[i];
        p->name = g_ptr_array_index(names, i);
        p->sh = &sh;
        ok = run_setup(p, o, in, base, error);
        if (!ok)
            g_prefix_error(error, "%s: ", p->name);
    }
    if (ok && !cli_signal_caught()) {
        sh.t0_us = sh.last_us = g_get_monotonic_time();
        GThreadPool *pool = g_thread_pool_new(worker, NULL, jobs, TRUE, NULL);
        for (size_t i = 0; i < sh.n; i++)
            g_thread_pool_push(pool, &sh.runs[i], NULL);
        g_thread_pool_free(pool, FALSE, TRUE); /* waits for every run */
        if (sh.show)
            fprintf(stderr, "\r\033[K");
    }
    if (ok && cli_signal_caught()) { /* the runs stopped (or never started) */
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "interrupted");
        ok = false;
    }
    /* in list order: the first failure is reported, the rows are written */
    for (size_t i = 0; ok && i < sh.n; i++) {
        par_run *p = &sh.runs[i];
        if (!p->ok) {
            g_propagate_prefixed_error(error, g_steal_pointer(&p->error), "%s: ", p->name);
            ok = false;
            break;
        }
        cli_run_result_fill(&res[i], p->r, in);
        ok = output_dir_commit(g_steal_pointer(&p->sub), error);
        if (!ok)
            g_prefix_error(error, "%s: ", p->name);
    }
    for (size_t i = 0; i < sh.n; i++) {
        if (cli_signal_caught()) { /* only the outputs: the process dies next */
            output_dir_abort(g_steal_pointer(&sh.runs[i].sub));
            continue;
        }
        run_clear(&sh.runs[i]);
    }
    g_free(sh.runs);
    g_mutex_clear(&sh.lock);
    return ok;
}
