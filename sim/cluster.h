/* cluster.h - hosts, GPUs and the placement of jobs on them (docs/architecture.md, §3).
 * Not here: the topology itself (topo/topo.h).
 *
 * The cluster is the topology's servers with a used/free flag per GPU.  A
 * job asks for n GPUs, naming the hosts the trace recorded for it; the
 * placement policy (config_placement, the run's seed behind every random
 * choice) decides where it runs:
 *
 *   recorded (default): every named host exists and has enough free GPUs:
 *     the n GPUs are spread over the named hosts as evenly as their free
 *     GPUs allow (or exactly as the trace's per-host counts say);
 *     otherwise as locality.
 *   The others ignore the recorded hosts:
 *   locality: one host if one fits (best fit: the fullest that fits), else
 *     one ToR (the ToR with the fewest free GPUs that fits, hosts with most
 *     free GPUs first), else one pod, else anywhere, most free first;
 *   packed: hosts in id order, first fit;
 *   random: hosts in a random order, first fit;
 *   spread: one GPU per host per round over hosts interleaved across ToRs
 *     (ToR ids ascending, inside a ToR most free first), so a job touches
 *     as many hosts and ToRs as it can;
 *   fragmented: a busy cluster's leftovers: hosts in a random order, at
 *     most a quarter of a host's GPUs (at least one) from each, then
 *     whatever is still missing from the same order.

 * Inside a host the GPUs are chosen the way a topology-aware allocator
 * does: if the GPUs behind one NIC (one PCIe switch group) have room for
 * the whole request, the fullest such group is used (best fit); otherwise
 * whole groups are taken, emptiest first, so the job's GPUs share as few
 * PCIe switches and NICs as possible.  Lowest GPU index first within a
 * group.
 *
 * Cost: a placement is O(hosts + GPUs of the chosen hosts); locality adds
 * a pass per level over all hosts.
 */
#ifndef CCSIM_SIM_CLUSTER_H
#define CCSIM_SIM_CLUSTER_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "topo/topo.h"

typedef struct cluster cluster;

/* Where one job runs.  Hosts are in ring order (the order of the trace's
 * host list, or the policy's order).  GPUs of host k are
 * gpus[gpu_off[k] .. gpu_off[k+1]-1], local indices on that host. */
typedef struct cluster_alloc {
    size_t n_hosts;    /* hosts used (>= 1) */
    uint32_t *hosts;   /* topology host ids, n_hosts */
    uint32_t *gpu_off; /* n_hosts + 1 offsets into gpus */
    uint32_t *gpus;    /* local GPU indices, n_gpus */
    int n_gpus;        /* total GPUs */
    bool by_policy;    /* placed by the policy (recorded hosts missing or full) */
} cluster_alloc;

void cluster_alloc_free(cluster_alloc *a);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cluster_alloc, cluster_alloc_free)

/* A cluster over the servers of t (borrowed; must outlive the cluster),
 * all GPUs free.  (transfer full) */
cluster *cluster_new(topo *t);
void cluster_free(cluster *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cluster, cluster_free)

/* GPUs in the cluster, and GPUs free now. */
size_t cluster_gpu_count(const cluster *c);
size_t cluster_free_gpu_count(const cluster *c);

/* Place a job of gpus GPUs (>= 1) recorded on hosts[0..n_hosts-1] (names;
 * n_hosts may be 0), with host_gpus[k] GPUs on host k when host_gpus is
 * not NULL (else spread evenly).  Marks the GPUs used.  (transfer full)
 * NULL with CCS_ERROR_INVALID when fewer than gpus GPUs are free. */
cluster_alloc *cluster_place(cluster *c, const char *const *hosts, const int *host_gpus,
                             size_t n_hosts, int gpus, config_placement policy, GRand *rng,
                             GError **error);

/* Rank placement of a job of tp x dp x pp GPUs on a (a->n_gpus of them):
 * into pos[r] (n_gpus entries) the position in a->gpus of rank r.  A rank
 * is its coordinates (tp rank, DP rank, stage) in mixed radix, the
 * dimensions taken innermost first as order[] says (order[k] = 0 for TP,
 * 1 for DP, 2 for PP; Megatron-LM's order, {0, 1, 2}: r = t + tp (d + dp
 * s)).  With TP innermost, the TP groups are packed into hosts: each host
 * (in ring order) holds floor(g_h / tp) whole groups of its consecutive
 * GPUs, and the GPUs left over, in host order, make the remaining groups,
 * which then span hosts; group k of all of them is ranks k tp .. k tp +
 * tp - 1.  So a TP group stays inside a host whenever the job's GPUs on
 * that host allow it (a multiple of tp), and a job whose hosts all hold a
 * multiple of tp GPUs numbers its ranks host by host, as torchrun does.
 * Otherwise ranks follow the positions.  O(n_gpus). */
void cluster_rank_positions(const cluster_alloc *a, int tp, int dp, int pp, const int order[3],
                            uint32_t *pos);

/* The host index (into a->hosts) of position p of a->gpus.  O(log hosts). */
size_t cluster_alloc_host_of(const cluster_alloc *a, uint32_t p);

/* Mark the GPUs of a free again. */
void cluster_release(cluster *c, const cluster_alloc *a);

#endif /* CCSIM_SIM_CLUSTER_H */
