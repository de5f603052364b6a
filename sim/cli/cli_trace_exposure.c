/* cli_trace_exposure.c - `ccsim trace stats DIR --exposure`: the share of
 * the allocated GPU-seconds the trace's jobs, each as if alone, spend not
 * computing (docs/traces.md "Exposed communication").  Not here: the
 * replay (sim/replay.h), the other statistics (cli_trace.c).
 *
 * Measured, not estimated: the trace is replayed under the `ideal`
 * scheduler, where every job runs as if alone on the network, once with
 * flat jobs and once with structured ones (--job-model); what the GPUs of
 * the running jobs do not compute is 1 - the allocated utilization.  For
 * flat jobs that is all waiting on communication; a pipelined structured
 * job also waits on its pipeline's bubble, which is measured for each such
 * job by one iteration of its structure without traffic (exposure.h) and
 * taken out: bubble GPU-seconds = its iterations x the sum over its GPUs
 * of (that iteration - the GPU's compute and optimizer step).
 */
#include <stdio.h>
#include <string.h>

#include "base/ccs.h"
#include "cli.h"
#include "cli_trace.h"
#include "schedulers/registry.h"
#include "sim/cluster.h"
#include "sim/exposure.h"
#include "sim/replay.h"
#include "traces/catalog.h"

/* The replay's configuration: the options as given, scheduler ideal. */
static config *exposure_config(const cli_trace_exposure_opts *o, const char *job_model,
                               GError **error)
{
    g_autoptr(config) c = config_new();
    config_set_scheduler(c, "ideal");
    struct {
        const char *key, *value;
    } kv[] = {{"placement", o->placement}, {"seed", o->seed}, {"gpu", o->gpu},
              {"start_s", o->start},       {"end_s", o->end}, {"job_model", job_model}};
    for (size_t i = 0; i < G_N_ELEMENTS(kv); i++)
        if (kv[i].value && !config_set_option(c, kv[i].key, kv[i].value, error))
            return NULL;
    return g_steal_pointer(&c);
}

/* The pipeline-bubble GPU-seconds of structured job s that ran iters
 * iterations: its iteration without traffic on an empty cluster, minus
 * each GPU's compute and optimizer step, times its GPUs and iterations. */
static bool bubble_gpu_s(const job_structure *s, int64_t iters, topo *t, const config *cfg,
                         double *out, GError **error)
{
    *out = 0;
    if (s->pp == 1 || iters == 0)
        return true;
    g_autoptr(cluster) cl = cluster_new(t);
    g_autoptr(GRand) rng = g_rand_new_with_seed(1);
    g_autoptr(cluster_alloc) a = cluster_place(cl, NULL, NULL, 0, structure_gpus(s),
                                               CONFIG_PLACE_LOCALITY, rng, error);
    coll_options co = coll_options_default();
    double nocomm;
    if (!a || !exposure_nocomm_s(s, a, t, &co, ccs_us_to_s(cfg->sim.alpha_us), &nocomm, error))
        return false;
    for (int k = 0; k < s->pp; k++)
        *out += (double)s->tp * s->dp *
                (nocomm - structure_stage_compute_s(s, k) - s->opt_s) * (double)iters;
    return true;
}

/* One ideal replay of tr on t with jobs of model job_model: its summary,
 * and in *bubble the pipeline-bubble GPU-seconds of its structured jobs. */
static bool idle_share(const cli_trace_exposure_opts *o, const char *job_model, topo *t,
                       const trace *tr, const catalog *cat, replay_summary *sum, double *bubble,
                       GError **error)
{
    g_autoptr(config) cfg = exposure_config(o, job_model, error);
    const sched_ops *ops = cfg ? sched_registry_lookup("ideal", error) : NULL;
    replay *r = ops ? replay_new(cfg, ops, t, tr, cat, error) : NULL;
    bool ok = r && replay_run(r, NULL, NULL, NULL, error);
    if (ok)
        replay_get_summary(r, sum);
    *bubble = 0;
    for (size_t i = 0; ok && i < replay_job_count(r); i++) {
        replay_job_result jr;
        replay_job_get(r, i, &jr);
        double b = 0;
        ok = !jr.ran || !jr.structure || bubble_gpu_s(jr.structure, jr.iterations, t, cfg, &b, error);
        *bubble += b;
    }
    replay_free(r);
    return ok;
}

int cli_trace_exposure(const cli_trace_exposure_opts *o, topo *t, const trace *tr, GString *csv,
                       bool print)
{
    GError *e = NULL;
    g_autoptr(catalog) cat = catalog_load_default(&e);
    static const char *const models[] = {"flat", "structured"};
    if (print)
        printf("\nexposed communication, every job alone (the ideal scheduler), placement %s, "
               "%s:\n",
               o->placement ? o->placement : "recorded", o->gpu ? o->gpu : "a100");
    for (size_t k = 0; cat && k < G_N_ELEMENTS(models); k++) {
        if (o->job_model && strcmp(o->job_model, models[k]) != 0)
            continue;
        replay_summary s;
        double bubble_gpu_s = 0;
        if (!idle_share(o, models[k], t, tr, cat, &s, &bubble_gpu_s, &e))
            break;
        double alloc = s.gpu_util_allocated_frac > 0 ? s.busy_gpu_s / s.gpu_util_allocated_frac : 0;
        double idle = 1 - s.gpu_util_allocated_frac;
        double bubble = alloc > 0 ? bubble_gpu_s / alloc : 0;
        if (print)
            printf("  --job-model %-10s %5.1f%% of allocated GPU-seconds waiting on "
                   "communication, %4.1f%% on pipeline bubbles (%zu jobs, window [%.0f, %.0f) "
                   "s)\n",
                   models[k], 100 * (idle - bubble), 100 * bubble, s.jobs, s.sim_start_s,
                   s.sim_end_s);
        g_string_append_printf(csv,
                               "exposure,%s_comm_alloc_frac,%.6f\nexposure,%s_bubble_alloc_frac,"
                               "%.6f\nexposure,%s_jobs,%zu\n",
                               models[k], idle - bubble, models[k], bubble, models[k], s.jobs);
    }
    if (e) {
        cli_error("%s", e->message);
        g_error_free(e);
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}
