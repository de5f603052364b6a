/* cli_topo.c - `ccsim topo SPEC [--export graphml|dot|json] [-o FILE]`.
 * Not here: building, describing, exporting (topo/).
 *
 * Builds a topology and describes it, or exports it (docs/usage.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/ccs.h"
#include "base/tempfile.h"
#include "cli.h"
#include "topo/topo.h"

typedef struct topo_cli_opts {
    char *export_fmt;  /* NULL: describe */
    char *output;      /* NULL or "-": stdout */
    int max_paths;     /* 0: default */
    gboolean list;     /* list the builders */
} topo_cli_opts;

static void list_builders(void)
{
    size_t n = 0;
    const topo_builder_info *b = topo_builders(&n);
    for (size_t i = 0; i < n; i++)
        printf("%-18s %s\n%-18s   %s\n", b[i].name, b[i].summary, "", b[i].params);
}

/* Build SPEC and describe or export it; returns the exit status. */
static int run(const topo_cli_opts *o, const char *spec)
{
    topo_format fmt = TOPO_FORMAT_JSON;
    if (o->export_fmt && !topo_format_parse(o->export_fmt, &fmt)) {
        cli_error("topo: --export must be graphml, dot or json, got '%s'", o->export_fmt);
        return CLI_EXIT_USAGE;
    }
    if (o->max_paths < 0) {
        cli_error("topo: --max-paths must be positive");
        return CLI_EXIT_USAGE;
    }
    topo_options opts = topo_options_default();
    if (o->max_paths > 0)
        opts.max_paths = (size_t)o->max_paths;
    GError *err = NULL;
    g_autoptr(topo) t = topo_build(spec, &opts, &err);
    if (!t) {
        cli_error("%s", err->message);
        g_error_free(err);
        return CLI_EXIT_FAILURE;
    }
    bool to_file = o->output && strcmp(o->output, "-") != 0;
    g_autofree char *tmp = to_file ? ccs_temp_path(o->output) : NULL;
    FILE *out = to_file ? fopen(tmp, "w") : stdout;
    if (!out) {
        cli_error("%s: cannot write: %s", o->output, g_strerror(errno));
        return CLI_EXIT_FAILURE;
    }
    bool ok;
    if (o->export_fmt) {
        ok = topo_export(t, fmt, out, &err);
    } else {
        g_autoptr(GString) s = g_string_new(NULL);
        ok = topo_describe(t, s, &err);
        if (ok)
            fputs(s->str, out);
    }
    if (!ok) /* igraph's "File operation error" says neither which file nor why */
        g_prefix_error(&err, "%s: ", to_file ? o->output : "stdout");
    if (to_file) {
        errno = 0;
        bool closed = fclose(out) == 0;
        if (ok && !closed)
            g_set_error(&err, CCS_ERROR, CCS_ERROR_IO, "%s: cannot write: %s", o->output,
                        g_strerror(errno ? errno : EIO));
        ok = ok && closed;
        if (ok && rename(tmp, o->output) != 0) {
            g_set_error(&err, CCS_ERROR, CCS_ERROR_IO, "%s: cannot write: %s", o->output,
                        g_strerror(errno));
            ok = false;
        }
        if (!ok)
            remove(tmp);
    } else {
        fflush(stdout);
    }
    if (!ok) {
        cli_error("%s", err ? err->message : "write failed");
        g_clear_error(&err);
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

int cli_topo_main(int argc, char **argv)
{
    topo_cli_opts o = {0};
    GOptionEntry entries[] = {
        {"export", 'e', 0, G_OPTION_ARG_STRING, &o.export_fmt,
         "write the topology as graphml, dot or json instead of describing it", "FORMAT"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "write to FILE (default stdout)",
         "FILE"},
        {"max-paths", 0, 0, G_OPTION_ARG_INT, &o.max_paths,
         "cap on equal-cost candidate paths per switch pair (default 16)", "N"},
        {"list", 'l', 0, G_OPTION_ARG_NONE, &o.list, "list the topology builders and parameters",
         NULL},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("SPEC - describe or export a topology");
    g_option_context_set_summary(
        ctx, "SPEC is NAME:key=value,... e.g. fat-tree:k=8,link_gbps=400, clos2:tors=16,\n"
             "crux-double-sided, lingjun:path=topo.csv, file:net.json (see --list).");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *err = NULL;
    int status;
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        cli_error("topo: %s", err->message);
        g_error_free(err);
        status = CLI_EXIT_USAGE;
    } else if (o.list) {
        list_builders();
        status = CLI_EXIT_OK;
    } else if (argc != 2) {
        cli_error("topo: expected one SPEC (see `ccsim topo --help`)");
        status = CLI_EXIT_USAGE;
    } else {
        status = run(&o, argv[1]);
    }
    g_free(o.export_fmt);
    g_free(o.output);
    return status;
}
