/* test_run.c - one replay built from a scenario text (test_run.h).
 * Not here: any case.
 */
#include "test_run.h"

#include <string.h>

#include <glib/gstdio.h>

#include "schedulers/registry.h"

void test_run_clear(test_run *x)
{
    replay_free(x->r);
    topo_free(x->t);
    trace_free(x->tr);
    catalog_free(x->cat);
    config_free(x->cfg);
    memset(x, 0, sizeof *x);
}

bool test_run_prepare(test_run *x, const char *text, const char *const *options,
                      GError **error)
{
    memset(x, 0, sizeof *x);
    x->cfg = config_new();
    if (!config_load_buffer(x->cfg, text, strlen(text), "test.json", error))
        return false;
    for (size_t i = 0; options && options[i]; i += 2)
        if (!config_set_option(x->cfg, options[i], options[i + 1], error))
            return false;
    x->t = topo_build(x->cfg->topology_spec, NULL, error);
    if (!x->t)
        return false;
    x->tr = trace_json_from_cjson(cJSON_GetObjectItem(x->cfg->trace_obj, "jobs"), "test.json",
                                  error);
    if (!x->tr)
        return false;
    x->cat = catalog_load_default(error);
    if (!x->cat)
        return false;
    const sched_ops *ops = sched_registry_lookup(x->cfg->scheduler, error);
    if (!ops)
        return false;
    x->r = replay_new(x->cfg, ops, x->t, x->tr, x->cat, error);
    return x->r != NULL;
}

void test_run_remove_outputs(const char *dir)
{
    static const char *const all[] = {"jobs.csv", "timeseries.csv", "links.csv", "summary.csv",
                                      "run.json"};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
        g_autofree char *p = g_build_filename(dir, all[i], NULL);
        g_remove(p);
    }
    g_rmdir(dir);
}
