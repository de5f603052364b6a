/* replay_output.c - the replay's result files (docs/usage.md, "Output files").
 * Not here: the file mechanics (output.c), the numbers (metrics.c).
 *
 * timeseries.csv and links.csv are streamed, one row per interval as the
 * replay passes it; jobs.csv, summary.csv and run.json are written at the
 * end.  Column names are snake_case with their unit.
 */
#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "replay-private.h"
#include "traces/mdot.h"

/* Configuration first (what the run was), then results (what it gave):
 * every row says how it was made without run.json. */
static const char *const summary_columns[] = {
    "scenario", "topology", "trace", "scheduler", "seed", "mode", "sim_start_s", "sim_end_s",
    "placement", "channels", "collective_model", "priority_levels", "gpu", "alpha_us", "buckets",
    "jitter_sigma", "time_scale", "interval_s", "steady", "fast_forward", "scale_hosts",
    "tor_oversub_ratio", "agg_oversub_ratio", "gpus_total",
    "jobs", "jobs_skipped", "jobs_placed_by_policy", "gpu_util_cluster_frac",
    "gpu_util_allocated_frac", "busy_gpu_s", "iterations", "mean_slowdown", "p99_slowdown",
    "jobs_at_risk", "jobs_slowed_by_others", "wall_s", "events", "peak_rss_bytes", NULL};

static const char *const job_columns[] = {
    "job_id", "model", "gpus", "hosts", "start_s", "end_s", "iterations", "busy_gpu_s",
    "isolated_iter_s", "mean_iter_s", "slowdown", "gpu_intensity_gpus", "priority", "shift_s",
    "status", "ran", "placed_by_policy", "target_iterations", "completion_s", "host_names", NULL};

static const char *const link_columns[] = {"t_s", "tier", "links", "capacity_Gbps",
                                           "carried_bytes", "util_frac",
                                           "intensity_occupancy_gpus", NULL};

const char *const *replay_summary_columns(void) { return summary_columns; }

/* Counts the run's files need, computed here from the topology's getters. */
typedef struct tier_info {
    size_t links[TOPO_TIER_COUNT];
    double cap_Bps[TOPO_TIER_COUNT];
    size_t hosts, gpus, nics, switches;
} tier_info;

static tier_info tier_info_get(const topo *t)
{
    tier_info ti = {0};
    for (size_t e = 0; e < topo_link_count(t); e++) {
        const topo_link *l = topo_link_get(t, (uint32_t)e);
        ti.links[l->tier]++;
        ti.cap_Bps[l->tier] += l->cap_Bps;
    }
    ti.hosts = topo_host_count(t);
    for (size_t h = 0; h < ti.hosts; h++) {
        ti.gpus += topo_host_gpu_count(t, h);
        ti.nics += topo_host_nic_count(t, h);
    }
    for (size_t v = 0; v < topo_node_count(t); v++) {
        topo_node_kind k = topo_node_get_kind(t, (uint32_t)v);
        if (k == TOPO_NODE_TOR || k == TOPO_NODE_AGG || k == TOPO_NODE_CORE ||
            k == TOPO_NODE_RAIL || k == TOPO_NODE_SWITCH)
            ti.switches++;
    }
    return ti;
}

bool replay__open_streams(struct replay *r, output_dir *d, GError **error)
{
    GPtrArray *cols = g_ptr_array_new_with_free_func(g_free);
    static const char *const base[] = {"t_s", "active_jobs", "active_gpus", "busy_gpus",
                                       "gpu_util_cluster_frac", "gpu_util_allocated_frac"};
    for (size_t i = 0; i < G_N_ELEMENTS(base); i++)
        g_ptr_array_add(cols, g_strdup(base[i]));
    for (int k = 0; k < TOPO_TIER_COUNT; k++)
        g_ptr_array_add(cols, g_strdup_printf("%s_util_frac", topo_tier_name((topo_tier)k)));
    for (int k = 0; k < TOPO_TIER_COUNT; k++)
        g_ptr_array_add(cols, g_strdup_printf("%s_intensity_occupancy_gpus",
                                              topo_tier_name((topo_tier)k)));
    g_ptr_array_add(cols, NULL);
    bool gz = r->cfg->sim.gzip;
    r->ts_csv = output_csv_open(d, "timeseries.csv", gz, (const char *const *)cols->pdata, error);
    g_ptr_array_free(cols, TRUE);
    if (!r->ts_csv)
        return false;
    r->links_csv = output_csv_open(d, "links.csv", gz, link_columns, error);
    tier_info ti = tier_info_get(r->t);
    memcpy(r->tier_links, ti.links, sizeof r->tier_links);
    memcpy(r->tier_cap_Bps, ti.cap_Bps, sizeof r->tier_cap_Bps);
    return r->links_csv != NULL;
}

bool replay__write_tick(struct replay *r, const metrics_row *row, GError **error)
{
    if (!r->ts_csv || replay__shard_hides_row(r, row))
        return true;
    output_csv *c = r->ts_csv;
    output_csv_double(c, row->t_s);
    output_csv_double(c, row->active_jobs);
    output_csv_double(c, row->active_gpus);
    output_csv_double(c, row->busy_gpus);
    output_csv_double(c, row->gpu_util_cluster_frac);
    output_csv_double(c, row->gpu_util_allocated_frac);
    for (int k = 0; k < TOPO_TIER_COUNT; k++)
        output_csv_double(c, row->tier_util_frac[k]);
    for (int k = 0; k < TOPO_TIER_COUNT; k++)
        output_csv_double(c, row->tier_occupancy[k]);
    if (!output_csv_end_row(c, error))
        return false;
    for (int k = 0; k < TOPO_TIER_COUNT; k++) {
        if (r->tier_links[k] == 0)
            continue;
        c = r->links_csv;
        output_csv_double(c, row->t_s);
        output_csv_str(c, topo_tier_name((topo_tier)k));
        output_csv_int(c, (int64_t)r->tier_links[k]);
        output_csv_double(c, ccs_Bps_to_gbps(r->tier_cap_Bps[k]));
        output_csv_double(c, row->tier_carried_bytes[k]);
        output_csv_double(c, row->tier_util_frac[k]);
        output_csv_double(c, row->tier_occupancy[k]);
        if (!output_csv_end_row(c, error))
            return false;
    }
    return true;
}

static const char *status_name(replay_job_status s)
{
    switch (s) {
    case REPLAY_JOB_OK: return "ran";
    case REPLAY_JOB_OUTSIDE_WINDOW: return "skipped_window";
    case REPLAY_JOB_NO_CAPACITY: return "skipped_capacity";
    }
    return "?";
}

/* The topology names of the hosts a job ran on, ' '-separated (empty if it
 * did not run). */
static void write_host_names(const struct replay *r, const job *j, output_csv *c)
{
    g_autoptr(GString) s = g_string_new(NULL);
    for (size_t h = 0; j->alloc && h < j->alloc->n_hosts; h++)
        g_string_append_printf(s, "%s%s", h ? " " : "", topo_host_name(r->t, j->alloc->hosts[h]));
    output_csv_str(c, s->str);
}

static bool write_jobs(struct replay *r, output_dir *d, GError **error)
{
    output_csv *c = output_csv_open(d, "jobs.csv", r->cfg->sim.gzip, job_columns, error);
    if (!c)
        return false;
    for (guint i = 0; i < r->jobs->len; i++) {
        const job *j = g_ptr_array_index(r->jobs, i);
        replay_job_result jr;
        replay_job_get(r, i, &jr);
        replay_job_status st = g_array_index(r->status, replay_job_status, i);
        output_csv_str(c, j->spec.id);
        output_csv_str(c, j->spec.model);
        output_csv_int(c, j->spec.gpus);
        output_csv_int(c, (int64_t)jr.hosts);
        output_csv_double(c, jr.ran ? j->run_start_s : j->spec.start_s);
        output_csv_double(c, jr.ran ? j->run_end_s : j->spec.end_s);
        output_csv_int(c, jr.iterations);
        output_csv_double(c, jr.busy_gpu_s);
        output_csv_double(c, jr.isolated_iter_s);
        output_csv_double(c, jr.mean_iter_s);
        output_csv_double(c, jr.slowdown);
        output_csv_double(c, jr.gpu_intensity);
        output_csv_int(c, jr.priority);
        output_csv_double(c, jr.shift_s);
        output_csv_str(c, st == REPLAY_JOB_OK && !jr.ran ? "not_started" : status_name(st));
        output_csv_int(c, jr.ran ? 1 : 0);
        output_csv_int(c, j->placed_by_policy ? 1 : 0);
        output_csv_int(c, j->target_iters);
        output_csv_double(c, jr.completion_s);
        write_host_names(r, j, c);
        if (!output_csv_end_row(c, error))
            return false;
    }
    return true;
}

static void add_double(GPtrArray *cells, double v)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    output_format_double(v, buf);
    g_ptr_array_add(cells, g_strdup(buf));
}

static void add_count(GPtrArray *cells, uint64_t v)
{
    g_ptr_array_add(cells, g_strdup_printf("%" G_GUINT64_FORMAT, v));
}

/* An oversubscription ratio, empty where the topology has no such tier. */
static void add_ratio(GPtrArray *cells, double ratio)
{
    add_double(cells, ratio > 0 ? ratio : NAN);
}

GPtrArray *replay_summary_cells(const replay *r, const replay_summary *s)
{
    const config_sim *sim = &r->cfg->sim;
    GPtrArray *c = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(c, g_strdup(r->cfg_in->name));
    g_ptr_array_add(c, g_strdup(topo_name(r->t)));
    g_ptr_array_add(c, g_strdup(trace_source_name(r->tr)));
    g_ptr_array_add(c, g_strdup(s->scheduler));
    add_count(c, sim->seed);
    g_ptr_array_add(c, g_strdup(config_mode_name(sim->mode)));
    add_double(c, s->sim_start_s);
    add_double(c, s->sim_end_s);
    g_ptr_array_add(c, g_strdup(config_placement_name(sim->placement)));
    g_ptr_array_add(c, sim->channels > 0 ? g_strdup_printf("%d", sim->channels) : g_strdup("auto"));
    g_ptr_array_add(c, g_strdup(config_collective_model_name(sim->collective_model)));
    add_count(c, (uint64_t)sim->priority_levels);
    g_ptr_array_add(c, g_strdup(sim->gpu));
    add_double(c, sim->alpha_us);
    add_count(c, (uint64_t)sim->buckets);
    add_double(c, sim->jitter_sigma);
    add_double(c, sim->time_scale);
    add_double(c, sim->interval_s);
    g_ptr_array_add(c, g_strdup(config_steady_name(sim->steady)));
    g_ptr_array_add(c, g_strdup(sim->fast_forward ? "true" : "false"));
    g_ptr_array_add(c, g_strdup(sim->scale_hosts ? "true" : "false"));
    topo_stats ts = topo_stats_get(r->t);
    add_ratio(c, ts.tor_oversub);
    add_ratio(c, ts.agg_oversub);
    add_count(c, s->gpus_total);
    add_count(c, s->jobs);
    add_count(c, s->jobs_skipped);
    add_count(c, s->jobs_by_policy);
    add_double(c, s->gpu_util_cluster_frac);
    add_double(c, s->gpu_util_allocated_frac);
    add_double(c, s->busy_gpu_s);
    add_count(c, (uint64_t)s->iterations);
    add_double(c, s->mean_slowdown);
    add_double(c, s->p99_slowdown);
    replay_contention rc;
    replay_contention_get(r, &rc);
    add_count(c, rc.jobs_at_risk);
    add_count(c, rc.jobs_slowed_by_others);
    add_double(c, s->wall_s);
    add_count(c, s->events);
    add_count(c, (uint64_t)s->peak_rss_bytes);
    g_assert(c->len == G_N_ELEMENTS(summary_columns) - 1);
    return c;
}

bool replay_summary_write_row(const replay *r, const replay_summary *s, output_csv *c,
                              GError **error)
{
    g_autoptr(GPtrArray) cells = replay_summary_cells(r, s);
    for (guint i = 0; i < cells->len; i++)
        output_csv_str(c, cells->pdata[i]);
    return output_csv_end_row(c, error);
}

void replay_contention_get(const replay *r, replay_contention *out)
{
    contention_stats cs;
    contention_get(r->risk, &cs);
    size_t slowed = 0;
    for (guint i = 0; i < r->jobs->len; i++) {
        const job *j = g_ptr_array_index(r->jobs, i);
        replay_job_result jr;
        replay_job_get(r, i, &jr);
        if (jr.ran && jr.iterations > 0 && contention_job_at_risk(r->risk, j->uid) &&
            jr.mean_iter_s > 1.01 * fmax(j->alone_ecmp_iter_s, j->isolated_iter_s))
            slowed++;
    }
    *out = (replay_contention){.jobs = cs.jobs,
                               .jobs_at_risk = cs.jobs_at_risk,
                               .jobs_slowed_by_others = slowed,
                               .gpus_at_risk_frac = cs.gpus > 0 ? cs.gpus_at_risk / cs.gpus : 0};
}

/* run.json "contention" (replay_contention_get). */
static cJSON *contention_json(const replay *r)
{
    replay_contention rc;
    replay_contention_get(r, &rc);
    double jobs = (double)rc.jobs;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "jobs", jobs);
    cJSON_AddNumberToObject(o, "jobs_at_risk", (double)rc.jobs_at_risk);
    cJSON_AddNumberToObject(o, "jobs_at_risk_frac", rc.jobs ? (double)rc.jobs_at_risk / jobs : 0);
    cJSON_AddNumberToObject(o, "gpus_at_risk_frac", rc.gpus_at_risk_frac);
    cJSON_AddNumberToObject(o, "jobs_slowed_by_others", (double)rc.jobs_slowed_by_others);
    cJSON_AddNumberToObject(o, "jobs_slowed_by_others_frac",
                            rc.jobs ? (double)rc.jobs_slowed_by_others / jobs : 0);
    return o;
}

/* SHA-256 of the topology's links and of the trace's jobs, so run.json
 * identifies its inputs whatever file they came from. */
static char *topo_digest(const topo *t)
{
    g_autoptr(GChecksum) h = g_checksum_new(G_CHECKSUM_SHA256);
    for (size_t i = 0; i < topo_link_count(t); i++) {
        const topo_link *l = topo_link_get(t, (uint32_t)i);
        char buf[128];
        int n = g_snprintf(buf, sizeof buf, "%u %u %.17g %.17g %d\n", l->src, l->dst, l->cap_Bps,
                           l->latency_s, (int)l->tier);
        g_checksum_update(h, (const guchar *)buf, n);
    }
    for (size_t i = 0; i < topo_host_count(t); i++) {
        const char *name = topo_host_name(t, i);
        g_checksum_update(h, (const guchar *)name, (gssize)strlen(name));
    }
    return g_strdup(g_checksum_get_string(h));
}

static char *trace_digest(const trace *tr)
{
    g_autoptr(GChecksum) h = g_checksum_new(G_CHECKSUM_SHA256);
    for (size_t i = 0; i < trace_job_count(tr); i++) {
        const trace_job *j = trace_job_get(tr, i);
        g_autofree char *line = g_strdup_printf(
            "%s %.17g %.17g %d %s %zu\n", j->id, j->start_s, j->end_s, j->gpus,
            j->model ? j->model : (j->inline_model ? j->inline_model->name : "-"), j->n_hosts);
        g_checksum_update(h, (const guchar *)line, (gssize)strlen(line));
        for (size_t k = 0; k < j->n_hosts; k++)
            g_checksum_update(h, (const guchar *)j->hosts[k], (gssize)strlen(j->hosts[k]));
    }
    return g_strdup(g_checksum_get_string(h));
}

static cJSON *summary_json(const replay *r, const replay_summary *s)
{
    (void)r;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "sim_start_s", s->sim_start_s);
    cJSON_AddNumberToObject(o, "sim_end_s", s->sim_end_s);
    cJSON_AddNumberToObject(o, "jobs", (double)s->jobs);
    cJSON_AddNumberToObject(o, "gpus_total", (double)s->gpus_total);
    if (isfinite(s->gpu_util_cluster_frac))
        cJSON_AddNumberToObject(o, "gpu_util_cluster_frac", s->gpu_util_cluster_frac);
    if (isfinite(s->gpu_util_allocated_frac))
        cJSON_AddNumberToObject(o, "gpu_util_allocated_frac", s->gpu_util_allocated_frac);
    cJSON_AddNumberToObject(o, "busy_gpu_s", s->busy_gpu_s);
    cJSON_AddNumberToObject(o, "iterations", (double)s->iterations);
    if (isfinite(s->mean_slowdown))
        cJSON_AddNumberToObject(o, "mean_slowdown", s->mean_slowdown);
    if (isfinite(s->p99_slowdown))
        cJSON_AddNumberToObject(o, "p99_slowdown", s->p99_slowdown);
    return o;
}

bool replay__write_final(struct replay *r, output_dir *d, GError **error)
{
    if (!write_jobs(r, d, error))
        return false;
    if (r->tl && !timeline_write(r->tl, d, r->cfg->sim.gzip, error))
        return false;
    replay_summary s;
    replay_get_summary(r, &s);
    output_csv *c = output_csv_open(d, "summary.csv", r->cfg->sim.gzip, summary_columns, error);
    if (!c || !replay_summary_write_row(r, &s, c, error))
        return false;

    g_autoptr(cJSON) root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "version", ccs_version());
    cJSON_AddStringToObject(root, "git_commit", ccs_git_commit());
    /* where compute times came from: the catalog, MDOT (docs/mdot.md §5) */
    cJSON_AddItemToObject(root, "compute", replay__compute_json(r));
    cJSON_AddItemToObject(root, "config", config_to_json(r->cfg_in));
    /* an integer, written exactly (64-bit), as in config.sim.seed */
    char seed[32];
    g_snprintf(seed, sizeof seed, "%" G_GUINT64_FORMAT, r->cfg->sim.seed);
    cJSON_AddRawToObject(root, "seed", seed);
    cJSON_AddStringToObject(root, "scheduler", r->ops->name);
    cJSON_AddNumberToObject(root, "priority_levels", r->levels);
    cJSON *in = cJSON_AddObjectToObject(root, "inputs");
    cJSON_AddStringToObject(in, "topology", topo_name(r->t));
    g_autofree char *td = topo_digest(r->t);
    cJSON_AddStringToObject(in, "topology_sha256", td);
    cJSON_AddStringToObject(in, "trace", trace_source_name(r->tr));
    g_autofree char *trd = trace_digest(r->tr);
    cJSON_AddStringToObject(in, "trace_sha256", trd);
    if (r->cfg_in->path) {
        g_autofree char *buf = NULL;
        gsize len = 0;
        if (g_file_get_contents(r->cfg_in->path, &buf, &len, NULL)) {
            g_autofree char *sd = g_compute_checksum_for_data(G_CHECKSUM_SHA256,
                                                              (const guchar *)buf, len);
            cJSON_AddStringToObject(in, "scenario_sha256", sd);
        }
    }
    tier_info ts = tier_info_get(r->t);
    cJSON *to = cJSON_AddObjectToObject(root, "topology");
    cJSON_AddNumberToObject(to, "hosts", (double)ts.hosts);
    cJSON_AddNumberToObject(to, "gpus", (double)ts.gpus);
    cJSON_AddNumberToObject(to, "nics", (double)ts.nics);
    cJSON_AddNumberToObject(to, "switches", (double)ts.switches);
    cJSON_AddNumberToObject(to, "links", (double)topo_link_count(r->t));
    cJSON *tiers = cJSON_AddObjectToObject(to, "links_by_tier");
    for (int k = 0; k < TOPO_TIER_COUNT; k++)
        cJSON_AddNumberToObject(tiers, topo_tier_name((topo_tier)k), (double)ts.links[k]);
    const trace_stats *tst = trace_get_stats(r->tr);
    cJSON *tj = cJSON_AddObjectToObject(root, "trace");
    cJSON_AddNumberToObject(tj, "jobs", (double)trace_job_count(r->tr));
    cJSON_AddNumberToObject(tj, "job_rows", (double)tst->job_rows);
    cJSON_AddNumberToObject(tj, "jobs_loaded", (double)tst->jobs_loaded);
    cJSON_AddNumberToObject(tj, "skipped_never_ran", (double)tst->skipped_never_ran);
    cJSON_AddNumberToObject(tj, "skipped_running", (double)tst->skipped_running);
    cJSON_AddNumberToObject(tj, "skipped_cpu_only", (double)tst->skipped_cpu_only);
    cJSON_AddNumberToObject(tj, "skipped_bad_time", (double)tst->skipped_bad_time);
    cJSON_AddNumberToObject(tj, "skipped_duplicate", (double)tst->skipped_duplicate);
    cJSON_AddNumberToObject(tj, "skipped_outside_topo", (double)tst->skipped_outside_topo);
    cJSON_AddNumberToObject(tj, "jobs_unplaced", (double)tst->jobs_unplaced);
    cJSON_AddNumberToObject(tj, "peak_gpus_demand", (double)r->peak_gpus_demand);
    cJSON *pl = cJSON_AddObjectToObject(root, "placement");
    cJSON_AddStringToObject(pl, "policy", config_placement_name(r->cfg->sim.placement));
    cJSON_AddNumberToObject(pl, "jobs_ran", (double)r->jobs_ran);
    cJSON_AddNumberToObject(pl, "jobs_naming_unknown_hosts", (double)r->jobs_unknown_hosts);
    if (r->first_unknown_host)
        cJSON_AddStringToObject(pl, "first_unknown_host", r->first_unknown_host);
    cJSON_AddNumberToObject(pl, "jobs_on_recorded_hosts", (double)(r->jobs_ran - r->jobs_by_policy));
    cJSON_AddNumberToObject(pl, "jobs_placed_by_policy", (double)r->jobs_by_policy);
    cJSON_AddNumberToObject(pl, "jobs_skipped_window", (double)r->jobs_skipped_window);
    cJSON_AddNumberToObject(pl, "jobs_skipped_capacity", (double)r->jobs_skipped_capacity);
    cJSON_AddItemToObject(root, "contention", contention_json(r));
    cJSON_AddItemToObject(root, "summary", summary_json(r, &s));
    cJSON_AddNumberToObject(root, "wall_s", s.wall_s);
    cJSON_AddNumberToObject(root, "events", (double)s.events);
    cJSON_AddNumberToObject(root, "jobs_fast_forwarded", (double)s.jobs_fast_forwarded);
    cJSON_AddNumberToObject(root, "fast_forward_stretches", (double)s.ffwd_stretches);
    cJSON_AddNumberToObject(root, "fast_forward_stretch_iterations",
                            (double)s.ffwd_stretch_iterations);
    cJSON_AddNumberToObject(root, "steady_group_repeats", (double)s.group_repeats);
    cJSON_AddNumberToObject(root, "steady_group_fallbacks", (double)s.group_fallbacks);
    cJSON_AddNumberToObject(root, "steady_group_skips", (double)s.group_skips);
    cJSON_AddNumberToObject(root, "steady_group_skipped_iterations",
                            (double)s.group_skip_iterations);
    cJSON_AddNumberToObject(root, "steady_group_drift_skips", (double)s.group_drift_skips);
    cJSON_AddNumberToObject(root, "steady_approx_jumps", (double)s.approx_jumps);
    cJSON_AddNumberToObject(root, "steady_approx_iterations", (double)s.approx_iterations);
    cJSON_AddNumberToObject(root, "steady_approx_iteration_bound", s.approx_iteration_bound);
    cJSON_AddNumberToObject(root, "steady_approx_busy_gpu_s_bound", s.approx_busy_gpu_s_bound);
    cJSON_AddNumberToObject(root, "steady_approx_util_bound", s.approx_util_bound);
    cJSON_AddNumberToObject(root, "steady_approx_change_windows", (double)s.approx_change_windows);
    cJSON_AddNumberToObject(root, "steady_approx_change_windows_kept",
                            (double)s.approx_change_windows_kept);
    cJSON_AddNumberToObject(root, "steady_approx_carried_jumps", (double)s.approx_carried_jumps);
    cJSON_AddNumberToObject(root, "steady_approx_wander_jumps", (double)s.approx_wander_jumps);
    cJSON_AddNumberToObject(root, "peak_rss_bytes", (double)s.peak_rss_bytes);
    if (r->shard && !replay__shard_write(r, d, root, error))
        return false;
    return output_json_write(d, "run.json", root, error);
}
