/* registry.c - the table of schedulers (docs/schedulers.md): list, find, look up.
 * Not here: the interface they implement (sim/scheduler.h).
 *
 * Order is stable and ecmp comes first: `ccsim compare` reports gains over
 * the first entry.  A new scheduler adds one `extern const sched_ops
 * sched_NAME_ops;` line and one table entry here.
 */
#include "registry.h"

#include <string.h>

#include "base/ccs.h"

extern const sched_ops sched_ecmp_ops;
extern const sched_ops sched_crux_ops;
extern const sched_ops sched_crux_pa_ops;
extern const sched_ops sched_crux_ps_pa_ops;
extern const sched_ops sched_sincronia_ops;
extern const sched_ops sched_sincronia_online_ops;
extern const sched_ops sched_taccl_ops;
extern const sched_ops sched_cassini_ops;
extern const sched_ops sched_fixed_ops;
extern const sched_ops sched_ideal_ops;

static const sched_ops *const registry[] = {
    &sched_ecmp_ops,
    &sched_crux_ops,
    &sched_crux_pa_ops,
    &sched_crux_ps_pa_ops,
    &sched_sincronia_ops,
    &sched_sincronia_online_ops,
    &sched_taccl_ops,
    &sched_cassini_ops,
    &sched_fixed_ops,
    &sched_ideal_ops,
};

const sched_ops *sched_registry_find(const char *name)
{
    g_return_val_if_fail(name != NULL, NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(registry); i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const sched_ops *sched_registry_lookup(const char *name, GError **error)
{
    g_return_val_if_fail(name != NULL, NULL);
    const sched_ops *ops = sched_registry_find(name);
    if (!ops) {
        GString *names = g_string_new(NULL);
        for (size_t i = 0; i < G_N_ELEMENTS(registry); i++)
            g_string_append_printf(names, "%s%s", i ? ", " : "", registry[i]->name);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "unknown scheduler '%s' (known: %s)",
                    name, names->str);
        g_string_free(names, TRUE);
    }
    return ops;
}

size_t sched_registry_count(void) { return G_N_ELEMENTS(registry); }

const sched_ops *sched_registry_get(size_t i)
{
    g_return_val_if_fail(i < G_N_ELEMENTS(registry), NULL);
    return registry[i];
}
