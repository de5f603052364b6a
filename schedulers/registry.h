/* registry.h - the table of schedulers: list them and pick one by name.
 * Not here: the interface a scheduler implements (sim/scheduler.h).
 */
#ifndef CCSIM_SCHEDULERS_REGISTRY_H
#define CCSIM_SCHEDULERS_REGISTRY_H

#include <glib.h>
#include <stddef.h>

#include "sim/scheduler.h"

/* The scheduler called name, or NULL. */
const sched_ops *sched_registry_find(const char *name);
/* The scheduler called name; NULL and CCS_ERROR_INVALID ("unknown scheduler
 * 'x' (known: ecmp, crux, ...)") when there is none.  (transfer none) */
const sched_ops *sched_registry_lookup(const char *name, GError **error);
/* All registered schedulers, in a stable order (ecmp first). */
size_t sched_registry_count(void);
const sched_ops *sched_registry_get(size_t i);

#endif /* CCSIM_SCHEDULERS_REGISTRY_H */
