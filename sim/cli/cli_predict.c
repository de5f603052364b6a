/* cli_predict.c - `ccsim predict GRAPH`: one training iteration's time from
 * an operator graph by the MDOT predictor.  Not here: the predictor (traces/mdot.h).
 */
#include <stdio.h>

#include "base/ccs.h"
#include "base/limits.h"
#include "cli.h"
#include "traces/mdot.h"

static const char DESCRIPTION[] =
    "GRAPH is an operator graph in JSON (plain or gzip), as scripts/mdot/collect.py\n"
    "writes it: {\"batch\": N, \"ops\": [{\"type\", \"config\", \"flops\", \"bytes_read\",\n"
    "\"bytes_written\", \"param_bytes\", \"params\", \"preds\"}, ...]}.  Prints the predicted\n"
    "seconds of one training iteration (forward, backward, optimizer step) on the\n"
    "device whose measurements trained the weights.  See docs/mdot.md.";

static int fail(GError *e)
{
    cli_error("%s", e->message);
    g_error_free(e);
    return CLI_EXIT_FAILURE;
}

int cli_predict_main(int argc, char **argv)
{
    gint64 batch = G_MININT64; /* not given */
    g_autofree char *device = NULL;
    GOptionEntry entries[] = {
        {"batch", 'b', 0, G_OPTION_ARG_INT64, &batch,
         "batch size to predict for (default: the graph's own)", "N"},
        {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
         "device whose weights to use (default cpu1; `ccsim predict --help` lists them)", "NAME"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("GRAPH - predict a training iteration's time");
    g_autofree char *desc = g_strdup_printf("%s\nDevices: %s.", DESCRIPTION, mdot_model_devices());
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_description(ctx, desc);
    GError *e = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &e)) {
        cli_error("predict: %s", e->message);
        g_error_free(e);
        return CLI_EXIT_USAGE;
    }
    if (argc != 2) {
        cli_error("predict: needs exactly one GRAPH file (see `ccsim predict --help`)");
        return CLI_EXIT_USAGE;
    }
    if (batch != G_MININT64 && !ccs_limit_check(CCS_LIMIT_GRAPH_BATCH, (double)batch, "--batch", &e)) {
        cli_error("predict: %s", e->message);
        g_error_free(e);
        return CLI_EXIT_USAGE;
    }
    g_autoptr(mdot_model) m = mdot_model_load_default(device, &e);
    if (!m) {
        fail(e); /* an unknown --device */
        return CLI_EXIT_USAGE;
    }
    g_autoptr(mdot_graph) g = mdot_graph_load(argv[1], &e);
    if (!g)
        return fail(e);
    if (batch != G_MININT64) {
        mdot_graph *scaled = mdot_graph_with_batch(g, batch, &e);
        if (!scaled)
            return fail(e);
        mdot_graph_free(g_steal_pointer(&g));
        g = scaled;
    }
    double t_s = mdot_predict_s(m, g, &e);
    if (t_s < 0)
        return fail(e);
    printf("%s: %.6g s per training iteration (batch %" G_GINT64_FORMAT ", %zu operators)\n"
           "predictor %s, device %s (%s)\n",
           mdot_graph_name(g), t_s, mdot_graph_batch(g), mdot_graph_count(g),
           mdot_model_version(m), mdot_model_device(m), mdot_model_device_name(m));
    return CLI_EXIT_OK;
}
