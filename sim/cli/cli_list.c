/* cli_list.c - `ccsim list`: schedulers, topology builders, catalog models.
 * Not here: the tables it prints (schedulers/, topo/, traces/).
 */
#include <stdio.h>
#include <string.h>

#include "base/ccs.h"
#include "cli.h"
#include "schedulers/registry.h"
#include "topo/topo.h"
#include "traces/catalog.h"

int cli_list_main(int argc, char **argv)
{
    gboolean s_only = FALSE, t_only = FALSE, m_only = FALSE;
    GOptionEntry entries[] = {
        {"schedulers", 0, 0, G_OPTION_ARG_NONE, &s_only, "only the schedulers", NULL},
        {"topologies", 0, 0, G_OPTION_ARG_NONE, &t_only, "only the topology builders", NULL},
        {"models", 0, 0, G_OPTION_ARG_NONE, &m_only, "only the catalog models", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("- list schedulers, topologies, models");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *e = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &e)) {
        cli_error("list: %s", e->message);
        g_error_free(e);
        return CLI_EXIT_USAGE;
    }
    bool all = !s_only && !t_only && !m_only;
    if (all || s_only) {
        printf("schedulers (--sched NAME):\n");
        for (size_t i = 0; i < sched_registry_count(); i++) {
            const sched_ops *o = sched_registry_get(i);
            printf("  %-18s %s\n", o->name, o->summary);
        }
    }
    if (all || t_only) {
        size_t n = 0;
        const topo_builder_info *b = topo_builders(&n);
        printf("%stopologies (--topo NAME:key=value,...):\n", all ? "\n" : "");
        for (size_t i = 0; i < n; i++)
            printf("  %-18s %s\n  %-18s   %s\n", b[i].name, b[i].summary, "", b[i].params);
    }
    if (all || m_only) {
        g_autoptr(catalog) c = catalog_load_default(&e);
        if (!c) {
            cli_error("%s", e->message);
            g_error_free(e);
            return CLI_EXIT_FAILURE;
        }
        printf("%smodels (trace model names map onto these; --gpu picks the column):\n",
               all ? "\n" : "");
        printf("  %-16s %-10s %10s %12s %10s %10s %6s %6s %-13s\n", "name", "family", "params",
               "grad_bytes", "a100_s", "h100_s", "fwd", "start", "collective");
        for (size_t i = 0; i < catalog_count(c); i++) {
            const catalog_model *m = catalog_get(c, i);
            printf("  %-16s %-10s %10.3g %12.4g %10.4g %10.4g %6.3f %6.3f %-13s\n", m->name,
                   m->family, m->params, m->grad_bytes, m->compute_s[CATALOG_GPU_A100],
                   m->compute_s[CATALOG_GPU_H100], m->fwd_frac, m->comm_start_frac,
                   m->network ? catalog_collective_name(m->collective) : "none");
        }
    }
    return CLI_EXIT_OK;
}
