/* ecmp.c - the baseline scheduler: ECMP paths, one level, fair sharing,
 * no shifts (docs/schedulers.md).  Not here: the ECMP hash (topo/paths.c).
 *
 * It decides nothing: the engine's defaults are exactly this baseline (each
 * flow on the candidate path chosen by topo_path_ecmp from a hash of the
 * flow's identity and the run's seed, every transfer at level 0, weighted
 * max-min sharing within the level).  reschedule still resets every running
 * job to those defaults, so ecmp stays the baseline even if something else
 * changed a decision before.
 */
#include "sim/scheduler.h"

static void *ecmp_create(const sched_options *opts, GError **error)
{
    (void)opts;
    (void)error;
    /* no state; a non-NULL token means success */
    return g_new0(char, 1);
}

static void ecmp_destroy(void *self) { g_free(self); }

static void ecmp_reschedule(void *self, sched_ctx *ctx)
{
    (void)self;
    size_t n = sched_job_count(ctx);
    for (size_t j = 0; j < n; j++)
        sched_set_priority(ctx, j, 0);
}

const sched_ops sched_ecmp_ops = {
    .name = "ecmp",
    .summary = "baseline: ECMP paths, one priority level, max-min fair sharing",
    .unlimited_levels = false,
    .create = ecmp_create,
    .destroy = ecmp_destroy,
    .reschedule = ecmp_reschedule,
    .on_comm = NULL,
};
