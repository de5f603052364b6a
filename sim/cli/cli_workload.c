/* cli_workload.c - `ccsim workload explain SPEC`: one iteration of a job
 * alone, taken apart (docs/usage.md "workload explain").  Not here: the
 * structure's figures (traces/workload.h), the measurement
 * (sim/exposure.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/ccs.h"
#include "cli.h"
#include "cli_sim.h"
#include "sim/cluster.h"
#include "sim/config.h"
#include "sim/exposure.h"
#include "traces/workload.h"

static const char DESCRIPTION[] =
    "SPEC is a catalog model (`ccsim list models`; trace names such as GPT-13b too),\n"
    "trained as a trace job of --gpus GPUs is by default (--job-model structured)\n"
    "(docs/models.md), on --hosts hosts of the default server under one\n"
    "non-blocking switch layer; or a scenario file, whose job (the first, or --job ID)\n"
    "is explained on the scenario's topology and hosts.  Prints the structure, the\n"
    "compute, the pipeline bubble, each traffic class's bytes per GPU and its time, and\n"
    "the communication left exposed: every time measured by running the iteration\n"
    "alone on the engine (docs/models.md \"What a job leaves exposed\").";

typedef struct explain_args {
    gint gpus, hosts;
    gchar *gpu, *topo, *job;
    gchar **structure_set; /* --structure-set KEY=VALUE, repeated */
    gboolean csv;
} explain_args;

/* The job being explained and where it runs. */
typedef struct subject {
    config *cfg;             /* the scenario, or defaults (owned) */
    cli_inputs in;           /* catalog, trace, topology */
    const trace_job *tj;     /* the job (in in.tr) */
    job_structure *st;       /* its structure (owned) */
    workload_report rep;     /* what the resolution used (catalog models) */
} subject;

static void subject_clear(subject *s)
{
    structure_free(s->st);
    cli_inputs_clear(&s->in);
    config_free(s->cfg);
}

/* A one-job scenario for a catalog model: gpus GPUs over hosts hosts of
 * the default server, one ToR per 8 hosts, non-blocking uplinks. */
static char *model_scenario(const char *model, int gpus, int hosts, const char *topo)
{
    g_autoptr(GString) hs = g_string_new(NULL);
    g_autoptr(GString) gs = g_string_new(NULL);
    for (int k = 0; k < hosts; k++) {
        g_string_append_printf(hs, "%s\"h%d\"", k ? ", " : "", k);
        g_string_append_printf(gs, "%s%d", k ? ", " : "", gpus / hosts + (k < gpus % hosts));
    }
    int per_tor = MIN(hosts, 8), tors = (hosts + per_tor - 1) / per_tor;
    g_autofree char *t = topo ? g_strdup(topo)
                              : g_strdup_printf("clos2:tors=%d,aggs=4,hosts_per_tor=%d", tors,
                                                per_tor);
    g_autoptr(cJSON) m = cJSON_CreateString(model);
    g_autofree char *mq = cJSON_PrintUnformatted(m);
    return g_strdup_printf("{\"topology\": \"%s\", \"trace\": {\"jobs\": [{\"id\": %s, "
                           "\"gpus\": %d, \"start_s\": 0, \"end_s\": 1, \"hosts\": [%s], "
                           "\"host_gpus\": [%s], \"model\": %s}]}}",
                           t, mq, gpus, hs->str, gs->str, mq);
}

static const trace_job *find_job(const trace *tr, const char *id, GError **error)
{
    for (size_t i = 0; i < trace_job_count(tr); i++) {
        const trace_job *j = trace_job_get(tr, i);
        if (!id || strcmp(j->id, id) == 0)
            return j;
    }
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: no job %s", trace_source_name(tr),
                id ? id : "(the trace has none)");
    return NULL;
}

static int max_host_gpus(const topo *t)
{
    int n = 0;
    for (size_t h = 0; h < topo_host_count(t); h++)
        n = MAX(n, (int)topo_host_gpu_count(t, (uint32_t)h));
    return n;
}

/* The structure of s->tj: described, pinned, or its catalog model's. */
static bool subject_structure(subject *s, catalog_gpu gpu, GError **error)
{
    const trace_job *tj = s->tj;
    const catalog_model *m = NULL;
    if (!tj->inline_model) {
        g_autoptr(GRand) rng = g_rand_new_with_seed(1);
        m = catalog_resolve(s->in.cat, tj->model, tj->gpus, tj->max_pod_gpus, rng, error);
        if (!m)
            return false;
    }
    g_autofree char *where = g_strdup_printf("job %s", tj->id);
    GError *e = NULL;
    s->st = workload_structure_for_trace_job(tj, m, s->in.cat, s->cfg->sim.structure_set,
                                             max_host_gpus(s->in.t), gpu, true, where, &s->rep,
                                             &e);
    if (!s->st && !e && tj->structure)
        s->st = structure_copy(tj->structure);
    if (!s->st && !e)
        g_set_error(&e, CCS_ERROR, CCS_ERROR_INVALID,
                    "job %s: model %s has no network traffic (nothing to explain)", tj->id,
                    m ? m->name : "(inline)");
    if (e) {
        g_propagate_error(error, e);
        return false;
    }
    return structure_check_hosts(s->st, max_host_gpus(s->in.t), where, error);
}

/* Load SPEC (a scenario file, or a catalog model put in a one-job
 * scenario) with the options applied; usage errors set *usage. */
static bool subject_load(const char *spec, const explain_args *a, subject *s, bool *usage,
                         GError **error)
{
    s->cfg = config_new();
    bool ok;
    if (g_file_test(spec, G_FILE_TEST_IS_REGULAR)) {
        ok = config_load_file(s->cfg, spec, error);
    } else {
        int hosts = a->hosts > 0 ? a->hosts : (a->gpus + 7) / 8;
        if (a->gpus < 1 || hosts < 1 || hosts > a->gpus) {
            *usage = true;
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "--gpus must be >= 1 and --hosts in 1..gpus");
            return false;
        }
        g_autofree char *json = model_scenario(spec, a->gpus, hosts, a->topo);
        ok = config_load_buffer(s->cfg, json, strlen(json), spec, error);
    }
    if (ok && a->topo && g_file_test(spec, G_FILE_TEST_IS_REGULAR))
        config_set_topology(s->cfg, a->topo);
    if (ok && a->gpu && !config_set_option(s->cfg, "gpu", a->gpu, error)) {
        *usage = true;
        return false;
    }
    for (char **kv = a->structure_set; ok && kv && *kv; kv++)
        if (!config_set_structure_key(s->cfg, *kv, error)) {
            *usage = true;
            return false;
        }
    return ok && cli_inputs_load(s->cfg, &s->in, error) &&
           (s->tj = find_job(s->in.tr, a->job, error)) != NULL;
}

/* Place the job and measure it. */
static bool subject_measure(subject *s, exposure *e, GError **error)
{
    g_autoptr(cluster) cl = cluster_new(s->in.t);
    g_autoptr(GRand) rng = g_rand_new_with_seed((guint32)s->cfg->sim.seed);
    const trace_job *tj = s->tj;
    g_autoptr(cluster_alloc) a =
        cluster_place(cl, (const char *const *)tj->hosts, tj->host_gpus, tj->n_hosts, tj->gpus,
                      s->cfg->sim.placement, rng, error);
    if (!a)
        return false;
    coll_options co = coll_options_default();
    co.channels = s->cfg->sim.channels;
    co.sm90 = strcmp(s->cfg->sim.gpu, "h100") == 0;
    co.seed = s->cfg->sim.seed;
    return exposure_measure(s->st, a, s->in.t, &co, ccs_us_to_s(s->cfg->sim.alpha_us), e, error);
}

static void print_line(const char *what, double s, double iter)
{
    printf("  %-28s %10.4f s %6.1f%%\n", what, s, iter > 0 ? 100 * s / iter : 0);
}

/* The gradients a stage's buckets wait for out of the even spread
 * (docs/model.md §4b "Bucket readiness"). */
static void print_grad_profile(const job_structure *st)
{
    if (!st->overlap_grad_reduce)
        return;
    for (int k = 0; k < st->pp; k++) {
        const structure_stage *g = &st->stages[k];
        if (g->grad_early_bytes > 0)
            printf("gradients  stage %d: %.4g of %.4g B complete at %.1f%% of its last backward "
                   "pass\n",
                   k, g->grad_early_bytes, g->grad_bytes, 100 * g->grad_early_at);
        if (g->grad_late_bytes > 0)
            printf("gradients  stage %d: %.4g of %.4g B complete only at its last backward "
                   "pass's end\n",
                   k, g->grad_late_bytes, g->grad_bytes);
    }
}

/* The tied embedding's two copies, synchronized after the reductions. */
static void print_embedding_sync(const job_structure *st)
{
    if (st->embed_grad_bytes > 0)
        printf("embedding  %.4g B of tied embedding gradients all-reduced between stage 0 and "
               "stage %d after their reductions\n",
               st->embed_grad_bytes, st->pp - 1);
}

static void print_text(const subject *s, const exposure *e)
{
    const job_structure *st = s->st;
    printf("job %s: %d GPUs on %s, %s\n", s->tj->id, s->tj->gpus, topo_name(s->in.t),
           s->cfg->sim.gpu);
    printf("structure  tp %d, pp %d, dp %d, ep %d, vpp %d, zero %d; %d micro-batches per "
           "iteration; buckets %d, reduced %s the last backward\n",
           st->tp, st->pp, st->dp, st->ep, st->vpp, (int)st->zero, st->micro_batches,
           st->buckets, st->overlap_grad_reduce ? "during" : "after");
    print_grad_profile(st);
    print_embedding_sync(st);
    if (s->rep.flops_iter > 0)
        printf("model      %.4g parameters, %.4g FLOPs per iteration at %.4g TFLOP/s per GPU\n",
               s->rep.params, s->rep.flops_iter, s->rep.gpu_flops / 1e12);
    printf("iteration alone %22.4f s\n", e->iter_s);
    print_line("compute (busiest stage)", e->compute_s, e->iter_s);
    print_line("optimizer step", e->opt_s, e->iter_s);
    print_line("pipeline bubble", e->bubble_s, e->iter_s);
    print_line("communication exposed", e->exposed_s, e->iter_s);
    printf("traffic class  bytes per GPU   alone (s)  marginal (s)\n");
    for (int c = 0; c < EXPOSURE_CLASSES; c++)
        if (e->has[c])
            printf("  %-10s %14.4g %11.4f %13.4f\n", exposure_class_name(c), e->bytes[c],
                   e->alone_s[c], e->marginal_s[c]);
    if (s->rep.flops_iter > 0)
        printf("throughput %.4g TFLOP/s per GPU (FLOPs / (iteration x GPUs))\n",
               s->rep.flops_iter / (e->iter_s * s->tj->gpus) / 1e12);
}

static void print_csv(const subject *s, const exposure *e)
{
    printf("key,value\njob,%s\ngpus,%d\ntp,%d\npp,%d\ndp,%d\nmicro_batches,%d\n", s->tj->id,
           s->tj->gpus, s->st->tp, s->st->pp, s->st->dp, s->st->micro_batches);
    printf("iter_s,%.10g\ncompute_s,%.10g\nopt_s,%.10g\nbubble_s,%.10g\nexposed_s,%.10g\n",
           e->iter_s, e->compute_s, e->opt_s, e->bubble_s, e->exposed_s);
    printf("params,%.10g\nflops_iter,%.10g\ngpu_flops,%.10g\n", s->rep.params,
           s->rep.flops_iter, s->rep.gpu_flops);
    double early = 0, late = 0;
    for (int k = 0; k < s->st->pp; k++) {
        early += s->st->stages[k].grad_early_bytes;
        late += s->st->stages[k].grad_late_bytes;
    }
    printf("grad_early_bytes,%.10g\ngrad_late_bytes,%.10g\nembed_grad_bytes,%.10g\n", early,
           late, s->st->embed_grad_bytes);
    if (s->rep.flops_iter > 0)
        printf("tflops_per_gpu,%.10g\n", s->rep.flops_iter / (e->iter_s * s->tj->gpus) / 1e12);
    for (int c = 0; c < EXPOSURE_CLASSES; c++)
        if (e->has[c])
            printf("%s_bytes,%.10g\n%s_alone_s,%.10g\n%s_marginal_s,%.10g\n",
                   exposure_class_name(c), e->bytes[c], exposure_class_name(c), e->alone_s[c],
                   exposure_class_name(c), e->marginal_s[c]);
}

static int explain_main(int argc, char **argv)
{
    explain_args a = {.gpus = 8};
    GOptionEntry entries[] = {
        {"gpus", 'n', 0, G_OPTION_ARG_INT, &a.gpus, "GPUs of a catalog model's job (default 8)",
         "N"},
        {"hosts", 0, 0, G_OPTION_ARG_INT, &a.hosts,
         "hosts they are spread over (default: 8 GPUs per host)", "N"},
        {"gpu", 0, 0, G_OPTION_ARG_STRING, &a.gpu, "GPU type: a100 or h100 (default a100)",
         "TYPE"},
        {"topo", 0, 0, G_OPTION_ARG_STRING, &a.topo,
         "topology instead of the default (or the scenario's)", "SPEC"},
        {"job", 0, 0, G_OPTION_ARG_STRING, &a.job, "the scenario's job to explain (default: "
         "the first)", "ID"},
        {"structure-set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.structure_set,
         "lay a structure key over the job's structure, as `ccsim run --structure-set` does "
         "(repeatable)",
         "KEY=VALUE"},
        {"csv", 0, 0, G_OPTION_ARG_NONE, &a.csv, "key,value lines instead of the table", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("explain SPEC - one iteration of a job alone, taken apart");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_description(ctx, DESCRIPTION);
    GError *e = NULL;
    int status = CLI_EXIT_OK;
    if (!g_option_context_parse(ctx, &argc, &argv, &e)) {
        cli_error("workload: %s", e->message);
        g_error_free(e);
        status = CLI_EXIT_USAGE;
    } else if (argc != 3 || strcmp(argv[1], "explain") != 0) {
        cli_error("workload: usage: ccsim workload explain SPEC (see --help)");
        status = CLI_EXIT_USAGE;
    } else {
        subject s = {0};
        exposure ex;
        bool usage = false;
        if (!subject_load(argv[2], &a, &s, &usage, &e) ||
            !subject_structure(&s, catalog_gpu_parse(s.cfg->sim.gpu, NULL), &e) ||
            !subject_measure(&s, &ex, &e)) {
            cli_error("%s", e->message);
            g_error_free(e);
            status = usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
        } else if (a.csv) {
            print_csv(&s, &ex);
        } else {
            print_text(&s, &ex);
        }
        subject_clear(&s);
    }
    g_free(a.gpu);
    g_free(a.topo);
    g_free(a.job);
    g_strfreev(a.structure_set);
    return status;
}

int cli_workload_main(int argc, char **argv) { return explain_main(argc, argv); }
