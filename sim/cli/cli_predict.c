/* cli_predict.c - `ccsim predict GRAPH`: one training iteration's time from
 * an operator graph by the MDOT predictor, with the warnings where the graph
 * lies outside the training range.  Not here: the predictor (traces/mdot.h).
 */
#include <stdio.h>

#include "base/ccs.h"
#include "base/limits.h"
#include "cli.h"
#include "traces/mdot.h"

static const char DESCRIPTION[] =
    "GRAPH is an operator graph in JSON (plain or gzip), as scripts/mdot/collect.py\n"
    "and export_graph.py write it: {\"batch\": N, \"ops\": [{\"type\", \"config\", \"flops\",\n"
    "\"bytes_read\", \"bytes_written\", \"param_bytes\", \"params\", \"preds\"}, ...]}.  Prints\n"
    "the predicted seconds of one training iteration (forward, backward, optimizer\n"
    "step) on the device whose measurements trained the weights, as fixed seconds\n"
    "plus seconds per sample, and warns (stderr) where the graph lies outside the\n"
    "training range.  Exit status 1 for a bad graph, 2 for a bad option.  See\n"
    "docs/mdot.md.";

typedef struct predict_opts {
    gint64 batch;  /* G_MININT64: the graph's own */
    char *device;  /* NULL: the default */
} predict_opts;

static int fail(GError *e, int status)
{
    cli_error("%s", e->message);
    g_error_free(e);
    return status;
}

/* Parse the options; CLI_EXIT_OK or the usage status. */
static int parse(int *argc, char ***argv, predict_opts *o)
{
    GOptionEntry entries[] = {
        {"batch", 'b', 0, G_OPTION_ARG_INT64, &o->batch,
         "batch size to predict for (default: the graph's own; 1 to 1e9)", "N"},
        {"device", 'd', 0, G_OPTION_ARG_STRING, &o->device,
         "device whose weights to use (default cpu1; the list below)", "NAME"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("GRAPH - predict a training iteration's time");
    g_autofree char *desc = g_strdup_printf("%s\nDevices with weights: %s.", DESCRIPTION,
                                            mdot_model_devices());
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_description(ctx, desc);
    GError *e = NULL;
    if (!g_option_context_parse(ctx, argc, argv, &e)) {
        cli_error("predict: %s", e->message);
        g_error_free(e);
        return CLI_EXIT_USAGE;
    }
    if (*argc != 2) {
        cli_error("predict: needs exactly one GRAPH file (see `ccsim predict --help`)");
        return CLI_EXIT_USAGE;
    }
    if (o->batch != G_MININT64 &&
        !ccs_limit_check(CCS_LIMIT_GRAPH_BATCH, (double)o->batch, "predict: --batch", &e))
        return fail(e, CLI_EXIT_USAGE);
    return CLI_EXIT_OK;
}

int cli_predict_main(int argc, char **argv)
{
    predict_opts o = {G_MININT64, NULL};
    int st = parse(&argc, &argv, &o);
    g_autofree char *device = o.device;
    if (st != CLI_EXIT_OK)
        return st;
    GError *e = NULL;
    g_autoptr(mdot_model) m = mdot_model_load_default(device, &e);
    if (!m)
        return fail(e, CLI_EXIT_USAGE); /* an unknown --device */
    g_autoptr(mdot_graph) g = mdot_graph_load(argv[1], &e);
    if (!g)
        return fail(e, CLI_EXIT_FAILURE);
    mdot_estimate est;
    if (!mdot_estimate_graph(m, g, &est, NULL, NULL, &e))
        return fail(e, CLI_EXIT_FAILURE);
    int64_t batch = o.batch != G_MININT64 ? o.batch : mdot_graph_batch(g);
    g_autoptr(GPtrArray) warn = mdot_model_range_warnings(m, g, batch);
    for (size_t i = 0; i < warn->len; i++)
        cli_error("warning: %s", (char *)warn->pdata[i]);
    printf("%s: %.6g s per training iteration (batch %" G_GINT64_FORMAT ", %zu operators)\n"
           "  = %.6g s + %.6g s per sample\n"
           "predictor %s, device %s (%s, %s)\n",
           mdot_graph_name(g), mdot_estimate_at(&est, (double)batch), batch,
           mdot_graph_count(g), est.fixed_s, est.per_sample_s, mdot_model_version(m),
           mdot_model_device(m), mdot_model_device_name(m), mdot_model_precision(m));
    return CLI_EXIT_OK;
}
