/* ideal.c - the upper bound: every job runs as if it were alone.
 * Not here: the engine's ideal mode it selects (sim/job_bucket.c).
 *
 * No real scheduler can do better than giving every job its isolated
 * iteration time, so this is the bound the others are measured against.
 * It is not reachable by decisions through sched_ctx (paths, priorities and
 * shifts cannot remove contention), so the engine implements it: for a
 * scheduler with sched_ops.ideal_network, the replay does not put a job's communication
 * on the shared network at all; each communication phase takes exactly the
 * time it took when the job was simulated alone on a fresh network
 * (job isolated time, sim/job.h), and compute is unchanged.  Iterations,
 * busy time and utilization then follow from the same state machine as for
 * every other scheduler.  Link statistics stay zero under ideal (no
 * transfers are placed on the shared network), which links.csv shows.
 */
#include "sim/scheduler.h"

static void *ideal_create(const sched_options *opts, GError **error)
{
    (void)opts;
    (void)error;
    return g_new0(char, 1);
}

static void ideal_destroy(void *self) { g_free(self); }

static void ideal_reschedule(void *self, sched_ctx *ctx)
{
    (void)self;
    (void)ctx;
}

const sched_ops sched_ideal_ops = {
    .name = "ideal",
    .summary = "upper bound: every job's communication as if it were alone in the cluster",
    .unlimited_levels = false,
    .ideal_network = true,
    .create = ideal_create,
    .destroy = ideal_destroy,
    .reschedule = ideal_reschedule,
    .on_comm = NULL,
};
