/* cli_sim.c - options, inputs, progress line and one run, shared by
 * `ccsim run` and `ccsim compare` (cli_sim.h).  Not here: the replay.
 */
#include "cli_sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "base/ccs.h"
#include "base/limits.h"
#include "base/tempfile.h"
#include "cli.h"
#include "schedulers/registry.h"
#include "sim/output.h"

GOptionEntry *cli_sim_entries(cli_sim_opts *o, bool compare)
{
    GOptionEntry e[] = {
        {"scenario", 0, 0, G_OPTION_ARG_FILENAME, &o->scenario,
         "scenario JSON file (topology, trace, scheduler, sim)", "FILE"},
        {"trace", 0, 0, G_OPTION_ARG_FILENAME, &o->trace,
         "Lingjun trace directory (job.csv, worker.csv, topo.csv) or JSON jobs file", "DIR|FILE"},
        {"topo", 0, 0, G_OPTION_ARG_STRING, &o->topo,
         "topology spec, e.g. fat-tree:k=8 (see `ccsim list`)", "SPEC"},
        {compare ? "scheds" : "sched", 0, 0, G_OPTION_ARG_STRING, compare ? &o->scheds : &o->sched,
         compare ? "schedulers to compare, comma-separated (default: all registered)"
                 : "scheduler (default: ecmp; see `ccsim list`)",
         compare ? "A,B,..." : "NAME"},
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &o->out,
         compare ? "output folder, new or empty (default results/SCENARIO_TOPOLOGY_SCHEDULERS_HASH):"
                   " one subfolder per scheduler"
                 : "output folder, new or empty (default results/SCENARIO_TOPOLOGY_SCHEDULER_HASH)",
         "DIR"},
        {"seed", 0, 0, G_OPTION_ARG_STRING, &o->seed, "random seed (sim.seed, default 1)", "N"},
        {"mode", 0, 0, G_OPTION_ARG_STRING, &o->mode,
         "window: run to the recorded end; work: run the isolated iteration count (default window)",
         "window|work"},
        {"start", 0, 0, G_OPTION_ARG_STRING, &o->start,
         "start of the replayed window, trace seconds (default: first job)", "S"},
        {"end", 0, 0, G_OPTION_ARG_STRING, &o->end,
         "end of the replayed window, trace seconds (default: last job end)", "S"},
        {"levels", 0, 0, G_OPTION_ARG_STRING, &o->levels,
         "priority levels K (sim.priority_levels, default 8)", "K"},
        {"gpu", 0, 0, G_OPTION_ARG_STRING, &o->gpu, "GPU type for compute times (default a100)",
         "a100|h100"},
        {"interval", 0, 0, G_OPTION_ARG_STRING, &o->interval,
         "time-series interval, simulated seconds (default 60)", "S"},
        {"time-scale", 0, 0, G_OPTION_ARG_STRING, &o->time_scale,
         "multiply the trace's times by X (default 1)", "X"},
        {"placement", 0, 0, G_OPTION_ARG_STRING, &o->placement,
         "placement policy: recorded (the trace's hosts, locality when missing or full) or one "
         "that ignores them (default recorded)",
         "recorded|locality|packed|spread|random|fragmented"},
        {"collective-model", 0, 0, G_OPTION_ARG_STRING, &o->collective_model,
         "ring: one lock-step transfer per rail; flows: every ring hop its own (default ring)",
         "ring|flows"},
        {"channels", 0, 0, G_OPTION_ARG_STRING, &o->channels,
         "lock-step rings per rail (NCCL channels), 1..32, or auto: NCCL's rule for the NICs "
         "(default auto)",
         "N|auto"},
        {"alpha-us", 0, 0, G_OPTION_ARG_STRING, &o->alpha_us,
         "startup latency per collective step, microseconds (default 5)", "US"},
        {"step-latency", 0, 0, G_OPTION_ARG_STRING, &o->step_latency,
         "once: a lock-step collective waits its hops' latency once; per_step: at every "
         "lock-step, as a packet ring does (default once; docs/validation.md)",
         "once|per_step"},
        {"buckets", 0, 0, G_OPTION_ARG_STRING, &o->buckets,
         "gradient buckets per iteration (default 1; 0: the catalog's)", "B"},
        {"jitter", 0, 0, G_OPTION_ARG_STRING, &o->jitter,
         "log-normal sigma of per-job compute jitter (default 0)", "SIGMA"},
        {"compute", 0, 0, G_OPTION_ARG_STRING, &o->compute,
         "compute times per iteration: the catalog's measurements, or MDOT's predictions of "
         "each catalog model's graph for the GPU (docs/mdot.md §5) (default catalog)",
         "catalog|mdot"},
        {"mdot-weights", 0, 0, G_OPTION_ARG_STRING, &o->mdot_weights,
         "use this device's MDOT weights for every job whatever --gpu is (an override: "
         "warned and recorded in run.json; without it a GPU with no weights is refused)",
         "DEVICE"},
        {"graph-library", 0, 0, G_OPTION_ARG_FILENAME, &o->graph_library,
         "graph library index for --compute mdot (default the built-in one)", "FILE"},
        {"scale-hosts", 0, 0, G_OPTION_ARG_NONE, &o->scale_hosts,
         "allow a trace larger than the topology: skip (and count) the jobs that do not fit", NULL},
        {"gzip", 0, 0, G_OPTION_ARG_NONE, &o->gzip, "write the CSV files gzipped (.csv.gz)", NULL},
        {"no-fast-forward", 0, 0, G_OPTION_ARG_NONE, &o->no_ffwd,
         "simulate every iteration event by event, also of jobs that share no link "
         "(sim.fast_forward false; same results, more events)",
         NULL},
        {"steady", 0, 0, G_OPTION_ARG_STRING, &o->steady,
         "groups of jobs sharing links: exact (skip only exact repeats, the event path's "
         "results) or approx (also extrapolate groups whose mean iteration times converged, "
         "within the error bound run.json reports; docs/engine.md §5d) (default exact)",
         "exact|approx"},
        {"job-model", 0, 0, G_OPTION_ARG_STRING, &o->job_model,
         "how jobs named by a catalog model train: flat (compute, then one gradient "
         "collective) or structured (the parallel structure their model and GPUs resolve to, "
         "docs/models.md) (default structured)",
         "flat|structured"},
        {"structure-set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->structure_set,
         "lay a structure key over every job that resolves to a structure, e.g. "
         "overlap_grad_reduce=false (repeatable; sim.structure_set; docs/usage.md)",
         "KEY=VALUE"},
        {"force", 0, 0, G_OPTION_ARG_NONE, &o->force,
         "replace the output folder whole if it is not empty (never /, home or the working "
         "directory)",
         NULL},
        {"timeline", 0, 0, G_OPTION_ARG_STRING, &o->timeline,
         "write a Chrome/Perfetto trace-event timeline NAME into the output folder "
         "(turns fast-forward off)",
         "NAME"},
        {"timeline-jobs", 0, 0, G_OPTION_ARG_STRING, &o->timeline_jobs,
         "record only these trace job ids (default: all)", "ID,..."},
        {"timeline-span", 0, 0, G_OPTION_ARG_STRING, &o->timeline_span,
         "record only START:END, trace seconds (default: the whole run)", "S:E"},
        {"flows", 0, 0, G_OPTION_ARG_NONE, &o->flows,
         "also write flows.csv: every transfer's start, end, bytes, priority and links", NULL},
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, "no progress line", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    return g_memdup2(e, sizeof e);
}

void cli_sim_opts_clear(cli_sim_opts *o)
{
    char **s[] = {&o->scenario, &o->trace, &o->topo, &o->sched, &o->scheds, &o->out,
                  &o->mode, &o->start, &o->end, &o->seed, &o->levels, &o->gpu, &o->interval,
                  &o->time_scale, &o->placement, &o->collective_model, &o->channels,
                  &o->alpha_us, &o->buckets, &o->jitter, &o->progress_file, &o->timeline,
                  &o->timeline_jobs, &o->timeline_span, &o->steady, &o->job_model, &o->shards,
                  &o->shard_warmup, &o->compute, &o->mdot_weights, &o->graph_library,
                  &o->step_latency};
    for (size_t i = 0; i < G_N_ELEMENTS(s); i++)
        g_clear_pointer(s[i], g_free);
    g_clear_pointer(&o->structure_set, g_strfreev);
}

config *cli_sim_config(const cli_sim_opts *o, bool *usage, GError **error)
{
    *usage = false;
    g_autoptr(config) c = config_new();
    if (o->scenario && !config_load_file(c, o->scenario, error))
        return NULL;
    struct {
        const char *key, *value;
    } kv[] = {
        {"mode", o->mode},         {"start_s", o->start},       {"end_s", o->end},
        {"seed", o->seed},         {"priority_levels", o->levels}, {"gpu", o->gpu},
        {"interval_s", o->interval}, {"time_scale", o->time_scale},
        {"placement", o->placement}, {"collective_model", o->collective_model},
        {"channels", o->channels},
        {"alpha_us", o->alpha_us}, {"buckets", o->buckets},     {"jitter_sigma", o->jitter},
        {"steady", o->steady},     {"job_model", o->job_model},
        {"shards", o->shards},     {"shard_warmup", o->shard_warmup},
        {"compute", o->compute},   {"mdot_weights", o->mdot_weights},
        {"graph_library", o->graph_library},
        {"step_latency", o->step_latency},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(kv); i++)
        if (kv[i].value && !config_set_option(c, kv[i].key, kv[i].value, error)) {
            *usage = true;
            return NULL;
        }
    for (char **kv1 = o->structure_set; kv1 && *kv1; kv1++)
        if (!config_set_structure_key(c, *kv1, error)) {
            *usage = true;
            return NULL;
        }
    if (!isnan(c->sim.start_s) && !isnan(c->sim.end_s) && !(c->sim.end_s > c->sim.start_s)) {
        /* an empty window is a usage error when an option made it */
        *usage = o->start || o->end;
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s%s: the window's end %g s is not after its start %g s",
                    *usage ? "--start, --end" : o->scenario,
                    *usage ? "" : ": sim.start_s, sim.end_s", c->sim.end_s, c->sim.start_s);
        return NULL;
    }
    if (!o->sched && !o->scheds && !sched_registry_find(c->scheduler)) {
        g_autofree char *shown = ccs_escape(c->scheduler, -1, 80);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: scheduler: unknown scheduler '%s' (see `ccsim list`)",
                    o->scenario ? o->scenario : "scenario", shown);
        return NULL;
    }
    if (o->scale_hosts)
        config_set_option(c, "scale_hosts", "true", NULL);
    if (o->gzip)
        config_set_option(c, "gzip", "true", NULL);
    if (o->no_ffwd)
        config_set_option(c, "fast_forward", "false", NULL);
    if (o->sched)
        config_set_scheduler(c, o->sched);
    if (o->topo)
        config_set_topology(c, o->topo);
    if (o->trace)
        config_set_trace(c, o->trace);
    if (o->trace && !o->scenario) {
        /* the user's trace, not the bundled default: name the runs after it
         * ("mytrace" for results/mytrace or mytrace.json) */
        g_autofree char *base = g_path_get_basename(o->trace);
        char *dot = strchr(base, '.');
        if (dot && dot != base)
            *dot = '\0';
        g_free(c->name);
        c->name = g_strdup(base);
    }
    return g_steal_pointer(&c);
}

/* A path from the scenario file is relative to the file's folder. */
static char *scenario_relative(const config *cfg, const char *p)
{
    if (g_path_is_absolute(p) || !cfg->path)
        return g_strdup(p);
    g_autofree char *dir = g_path_get_dirname(cfg->path);
    return g_build_filename(dir, p, NULL);
}

static trace *load_trace(const config *cfg, GError **error)
{
    if (cfg->trace_path) {
        if (g_file_test(cfg->trace_path, G_FILE_TEST_IS_DIR))
            return trace_lingjun_load(cfg->trace_path, NULL, error);
        /* anything else is a JSON file: the reader says why it cannot be
         * read (missing, a link loop, ...) */
        return trace_json_load(cfg->trace_path, error);
    }
    if (cfg->trace_obj) {
        const char *file = cfg->path ? cfg->path : "scenario";
        g_autofree char *base = cfg->path ? g_path_get_dirname(cfg->path) : NULL;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg->trace_obj, "json");
        if (v) {
            if (!cJSON_IsString(v)) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "%s: trace.json: expected a file name", file);
                return NULL;
            }
            g_autofree char *p = scenario_relative(cfg, v->valuestring);
            return trace_json_load(p, error);
        }
        /* lingjun, synthetic and jobs: the trace module's reader of the
         * scenario's "trace" value. */
        return trace_load_spec(cfg->trace_obj, base, file, NULL, error);
    }
    return trace_load_default(error);
}

typedef struct demand_edge {
    double t, d;
} demand_edge;

static int demand_cmp(const void *a, const void *b)
{
    const demand_edge *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->d > y->d) - (x->d < y->d); /* ends first */
}

double cli_trace_peak(const trace *tr, double *when)
{
    size_t n = trace_job_count(tr);
    g_autofree demand_edge *e = g_new(demand_edge, 2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        const trace_job *j = trace_job_get(tr, i);
        e[2 * i] = (demand_edge){j->start_s, j->gpus};
        e[2 * i + 1] = (demand_edge){j->end_s, -j->gpus};
    }
    qsort(e, 2 * n, sizeof *e, demand_cmp);
    double cur = 0, peak = 0;
    *when = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        cur += e[i].d;
        if (cur > peak) {
            peak = cur;
            *when = e[i].t;
        }
    }
    return peak;
}

void cli_default_window(config *cfg, const cli_inputs *in)
{
    if (cfg->path || cfg->trace_path || cfg->trace_obj || !isnan(cfg->sim.start_s) ||
        !isnan(cfg->sim.end_s) || trace_job_count(in->tr) == 0)
        return;
    double when = 0;
    cli_trace_peak(in->tr, &when);
    double lo = trace_job_get(in->tr, 0)->start_s;
    cfg->sim.start_s = fmax(lo, when - CLI_DEFAULT_WINDOW_S / 2);
    cfg->sim.end_s = cfg->sim.start_s + CLI_DEFAULT_WINDOW_S;
}

/* fat-tree:k=K with the smallest even K >= 4 whose k^3/4 hosts of 8 GPUs
 * hold the trace's peak GPU demand (as the replay counts it). */
static char *default_topology(const trace *tr)
{
    double when = 0, peak = cli_trace_peak(tr, &when);
    int k = 4;
    while ((double)k * k * k / 4.0 * 8.0 < peak)
        k += 2;
    return g_strdup_printf("fat-tree:k=%d", k);
}

/* The topology a trace implies: for the bundled sample, the lingjun
 * builder on its topo.csv built into the binary ("lingjun-sample", the
 * same wherever the binary runs); for a Lingjun directory with a topo.csv,
 * the lingjun builder on that file (the path as the user gave it), so jobs
 * run on their recorded hosts; else a fat-tree sized for the trace's peak
 * demand. */
static char *default_topology_for(const config *cfg, const trace *tr)
{
    g_autofree char *dir = NULL;
    if (cfg->trace_path) {
        if (g_file_test(cfg->trace_path, G_FILE_TEST_IS_DIR))
            dir = g_strdup(cfg->trace_path);
    } else if (cfg->trace_obj) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg->trace_obj, "lingjun");
        if (cJSON_IsString(v))
            dir = scenario_relative(cfg, v->valuestring);
    } else {
        return g_strdup("lingjun-sample");
    }
    static const char *const names[] = {"topo.csv", "topo.csv.gz"};
    for (size_t i = 0; dir && i < G_N_ELEMENTS(names); i++) {
        g_autofree char *p = g_build_filename(dir, names[i], NULL);
        if (g_file_test(p, G_FILE_TEST_IS_REGULAR) && !strchr(p, ','))
            return g_strdup_printf("lingjun:path=%s", p);
    }
    return default_topology(tr);
}

bool cli_inputs_load(const config *cfg, cli_inputs *in, GError **error)
{
    memset(in, 0, sizeof *in);
    in->shard = -1;
    in->cat = catalog_load_default(error);
    if (!in->cat)
        return false;
    in->tr = load_trace(cfg, error);
    if (!in->tr)
        return false;
    if (!cfg->topology_obj)
        in->topo_spec = cfg->topology_spec ? g_strdup(cfg->topology_spec)
                                           : default_topology_for(cfg, in->tr);
    in->t = cli_inputs_topo(cfg, in, error);
    return in->t != NULL;
}

topo *cli_inputs_topo(const config *cfg, const cli_inputs *in, GError **error)
{
    if (!cfg->topology_obj)
        return topo_build(in->topo_spec, NULL, error);
    /* rows name it by the scenario, not by its file (a sweep's runs all
     * read "scenario.json") */
    g_autofree char *name = g_strdup_printf("custom (%s)", cfg->name);
    return topo_from_json(cfg->topology_obj, name, error);
}

void cli_inputs_clear(cli_inputs *in)
{
    topo_free(in->t);
    trace_free(in->tr);
    catalog_free(in->cat);
    g_free(in->topo_spec);
    memset(in, 0, sizeof *in);
}

double cli_progress_log_s(void)
{
    const char *env = g_getenv("CCSIM_PROGRESS_LOG_S");
    double v = env ? g_ascii_strtod(env, NULL) : 0;
    return v > 0 ? v : CLI_PROGRESS_LOG_S;
}

void cli_progress_init(cli_progress *p, const char *label, bool quiet, const char *file)
{
    bool tty = isatty(STDERR_FILENO);
    p->enabled = !quiet && tty;
    p->log = !quiet && !tty && !file;
    p->log_s = cli_progress_log_s();
    p->last_wall_s = p->log ? 0 : -1; /* a log's first line after log_s */
    p->label = label;
    p->file = file;
    p->last_file_s = -1;
}

/* The progress file a sweep reads for its ETA (sweep_exec.c); a failed
 * write only costs the ETA. */
static void progress_file_write(cli_progress *p, const replay_progress *rp)
{
    if (!p->file || rp->wall_s - p->last_file_s < 0.5)
        return;
    p->last_file_s = rp->wall_s;
    char buf[96];
    g_snprintf(buf, sizeof buf, "%.17g %.17g %.17g\n", rp->now_s, rp->start_s, rp->end_s);
    GError *e = NULL;
    if (!ccs_write_atomic(p->file, buf, strlen(buf), &e)) {
        g_debug("%s", e->message);
        g_error_free(e);
    }
}

void cli_progress_cb(void *user, const replay_progress *rp)
{
    cli_progress *p = user;
    progress_file_write(p, rp);
    double every_s = p->log ? p->log_s : 0.25;
    if (!(p->enabled || p->log) || rp->wall_s - p->last_wall_s < every_s)
        return;
    p->last_wall_s = rp->wall_s;
    double span = rp->end_s - rp->start_s;
    double frac = span > 0 ? (rp->now_s - rp->start_s) / span : 0;
    frac = fmin(fmax(frac, 0), 1);
    double eta = frac > 0 ? rp->wall_s * (1 - frac) / frac : NAN;
    fprintf(stderr, "%s%s: t=%.0f/%.0f s (%4.1f%%)  jobs %zu/%zu  %.0f ev/s  ETA %.0f s%s",
            p->log ? "ccsim: " : "\r", p->label, rp->now_s, rp->end_s, 100 * frac,
            rp->jobs_done, rp->jobs_total, rp->wall_s > 0 ? rp->events / rp->wall_s : 0.0,
            isnan(eta) ? 0.0 : eta, p->log ? "\n" : "   ");
    fflush(stderr);
}

void cli_progress_done(cli_progress *p)
{
    if (p->enabled && p->last_wall_s >= 0)
        fprintf(stderr, "\r\033[K");
    if (p->file)
        g_remove(p->file);
}

/* One text per class of odd input the run accepted and counted
 * (docs/usage.md, "Odd input"), with the count and the first example. */
static GPtrArray *run_warnings(const replay *r, const cli_inputs *in)
{
    GPtrArray *w = g_ptr_array_new_with_free_func(g_free);
    size_t n = 0;
    const char *first = replay_unknown_hosts(r, &n);
    if (n > 0)
        g_ptr_array_add(w, g_strdup_printf("%zu job%s name%s a host the topology lacks and %s "
                                           "placed by the placement policy (first: %s)",
                                           n, n == 1 ? "" : "s", n == 1 ? "s" : "",
                                           n == 1 ? "was" : "were", first));
    const GPtrArray *cw = replay_compute_warnings(r);
    for (size_t i = 0; cw && i < cw->len; i++)
        g_ptr_array_add(w, g_strdup(cw->pdata[i]));
    char *unused = replay_compute_unused(r);
    if (unused)
        g_ptr_array_add(w, unused);
    const trace_stats *st = trace_get_stats(in->tr);
    if (st->skipped_bad_time > 0)
        g_ptr_array_add(w, g_strdup_printf(
                               "%s: %zu job row%s skipped for inverted times (running before "
                               "submitted, or ending before running; first: job.csv line %zu)",
                               trace_source_name(in->tr), st->skipped_bad_time,
                               st->skipped_bad_time == 1 ? "" : "s", st->first_bad_time_line));
    return w;
}

void cli_run_result_fill(cli_run_result *res, const replay *r, const cli_inputs *in)
{
    replay_get_summary(r, &res->s);
    replay_contention_get(r, &res->contention);
    res->cells = replay_summary_cells(r, &res->s);
    res->warnings = run_warnings(r, in);
    replay_unknown_hosts(r, &res->unknown_hosts);
}

void cli_run_result_clear(cli_run_result *res)
{
    g_clear_pointer(&res->cells, g_ptr_array_unref);
    g_clear_pointer(&res->warnings, g_ptr_array_unref);
}

void cli_run_warnings_print(const cli_run_result *res, size_t n)
{
    g_autoptr(GHashTable) done = g_hash_table_new(g_str_hash, g_str_equal);
    for (size_t i = 0; i < n; i++)
        for (guint k = 0; res[i].warnings && k < res[i].warnings->len; k++) {
            const char *text = res[i].warnings->pdata[k];
            if (!g_hash_table_add(done, (gpointer)text))
                continue;
            g_autoptr(GString) who = g_string_new(NULL);
            size_t count = 0;
            for (size_t j = i; j < n; j++)
                if (res[j].warnings && g_ptr_array_find_with_equal_func(res[j].warnings, text,
                                                                        g_str_equal, NULL)) {
                    g_string_append_printf(who, "%s%s", count ? ", " : "", res[j].s.scheduler);
                    count++;
                }
            if (n == 1)
                cli_error("warning: %s", text);
            else if (count == n)
                cli_error("warning: all %zu runs: %s", n, text);
            else
                cli_error("warning: %s: %s", who->str, text);
        }
}

/* The replay's watcher: stop when SIGINT or SIGTERM came (cli_signal.c). */
bool cli_stop_if_signalled(void *user)
{
    (void)user;
    return cli_signal_caught() != 0;
}

bool cli_run_one(const config *cfg, cli_inputs *in, output_dir *d, bool quiet,
                 const char *progress_file, cli_run_result *res, GError **error)
{
    const sched_ops *ops = sched_registry_lookup(cfg->scheduler, error);
    g_autoptr(replay) r =
        ops ? replay_new_shard(cfg, ops, in->t, in->tr, in->cat, in->shard, error) : NULL;
    if (!r) {
        output_dir_abort(d);
        return false;
    }
    replay_set_stop(r, cli_stop_if_signalled, NULL);
    if (in->timeline)
        replay_set_timeline(r, in->timeline);
    cli_progress p;
    cli_progress_init(&p, cfg->scheduler, quiet, progress_file);
    bool ok = cli_signal_caught() || replay_run(r, d, cli_progress_cb, &p, error);
    cli_progress_done(&p);
    if (ok && cli_signal_caught()) {
        /* the stop poll ended the run (or it never started) */
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "interrupted");
        ok = false;
    }
    if (!ok) {
        output_dir_abort(d);
        return false;
    }
    cli_run_result_fill(res, r, in);
    return output_dir_commit(d, error);
}
