/* taccl.c - TACCL* (Crux §6.3's inter-job adaptation of TACCL, NSDI'23).
 * Not here: path selection and hop classes (sched-paths.c).
 *
 * TACCL itself synthesises one job's collective with MILPs over a sketch
 * of the topology; Crux keeps its two ideas at the inter-job level: route
 * on the least congested links, and favour traffic with farther to go.
 * From Crux's description: least-congested path per flow, priority by
 * distance.  Our choices (docs/schedulers.md, D13):
 *  - jobs are routed in arrival order (not by intensity: that is Crux),
 *    each flow with the congestion metric of D9 (sched-paths.c), the fixed
 *    intra-host links of all jobs as background load;
 *  - distance = hop count of the chosen NIC-to-NIC path; the distinct hop
 *    counts, longest first, are priority classes 0, 1, ...; classes past
 *    K-1 merge into the lowest level;
 *  - sim/scheduler.h sets priorities per job, not per flow: a job takes the level
 *    of its highest-priority flow class (its longest path), and the
 *    classes are the distinct longest-path lengths of the jobs.  Jobs' flows
 *    mostly have equal lengths (a ring or all-to-all over one job's hosts
 *    is symmetric), so this loses little; a job with only intra-host
 *    traffic has 0 hops, the lowest class.
 * Cost: O(F P L + F log F) per reschedule.
 */
#include "sim/scheduler.h"

#include <stdlib.h>

#include "sched-private.h"

static void *taccl_create(const sched_options *opts, GError **error)
{
    (void)opts;
    (void)error;
    return g_new0(char, 1); /* stateless */
}

static void taccl_destroy(void *self) { g_free(self); }

typedef struct arrival {
    size_t j;
    double arrival_s;
    uint64_t uid;
} arrival;

static int cmp_arrival(const void *a, const void *b)
{
    const arrival *x = a, *y = b;
    if (x->arrival_s != y->arrival_s)
        return x->arrival_s < y->arrival_s ? -1 : 1;
    return (x->uid > y->uid) - (x->uid < y->uid);
}

static void taccl_reschedule(void *self, sched_ctx *ctx)
{
    (void)self;
    size_t n = sched_job_count(ctx);
    if (n == 0)
        return;
    g_autofree arrival *arr = g_new(arrival, n);
    for (size_t j = 0; j < n; j++) {
        sched_job_info info;
        sched_job_get(ctx, j, &info);
        arr[j] = (arrival){j, info.arrival_s, info.uid};
    }
    qsort(arr, n, sizeof *arr, cmp_arrival);
    g_autofree size_t *order = g_new(size_t, n);
    for (size_t i = 0; i < n; i++)
        order[i] = arr[i].j;
    sched__select_paths(ctx, order, n, NULL);

    /* Longest chosen path per job. */
    g_autofree size_t *hops = g_new0(size_t, n);
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (size_t j = 0; j < n; j++) {
        sched_job_info info;
        sched_job_get(ctx, j, &info);
        for (size_t f = 0; f < info.n_flows; f++) {
            sched_flow_info fi;
            sched_flow_get(ctx, j, f, &fi);
            sched_flow_path_links(ctx, j, f, fi.path, links);
            if (links->len > hops[j])
                hops[j] = links->len;
        }
    }
    g_autofree int *level = g_new(int, n);
    sched__hop_levels(hops, n, sched_priority_levels(ctx), level);
    for (size_t j = 0; j < n; j++)
        sched_set_priority(ctx, j, level[j]);
}

const sched_ops sched_taccl_ops = {
    .name = "taccl",
    .summary = "TACCL*: least-congested paths in arrival order, priority by path length",
    .unlimited_levels = false,
    .create = taccl_create,
    .destroy = taccl_destroy,
    .reschedule = taccl_reschedule,
    .on_comm = NULL,
};
