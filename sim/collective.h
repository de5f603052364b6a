/* collective.h - a job's collective communication as network transfers
 * (docs/model.md).  Not here: when they run (job.h), their rates (net.h).
 *
 * The maths.  A job of n GPUs on H hosts (g_h GPUs on host h) reduces S
 * bytes per communication phase (S/B per bucket with B buckets).  Its GPUs
 * on host h reach the set of NICs N_h (each GPU's nearest NIC); the job
 * uses R = min_h |N_h| rails, rail r of host h being the r-th NIC of N_h
 * (in index order) reached from the first of the job's GPUs behind it.
 *
 *   all-reduce (H > 1), three steps run one after the other:
 *     1. reduce-scatter over NVLink inside each host: one transfer per host
 *        with g_h >= 2, (g_h-1)/g_h * S bytes over the ring of its GPUs
 *        (GPU -> NVSwitch -> next GPU), g_h - 1 lock-steps;
 *     2. ring all-reduce across hosts on every rail: one transfer per rail
 *        r of size 2(H-1)/H * S/R; its link set is the union over the H
 *        hops (host i -> host i+1 mod H) of the hop's links
 *        GPU->PCIe->NIC, the network path NIC->NIC, NIC->PCIe->GPU, each
 *        link counted with its multiplicity; 2(H-1) lock-steps;
 *     3. all-gather over NVLink, as step 1.
 *   all-reduce (H = 1): one NVLink transfer of 2(g-1)/g * S, 2(g-1) steps.
 *     With C channels (NCCL channels, coll_options.channels) step 2 is C
 *     lock-step rings per rail, each of 2(H-1)/H * S/(R C) bytes and each
 *     hop of each channel its own flow (its own ECMP hash).
 *   all-gather / reduce-scatter: as all-reduce with (H-1)/H (network) and
 *     (g-1)/g (NVLink), H-1 / g-1 steps; all-gather runs network then
 *     NVLink, reduce-scatter NVLink then network.
 *   fsdp: all-gather then reduce-scatter.
 *   all-to-all: every GPU sends S/n to each other GPU: per ordered host
 *     pair (a, b) and rail r one transfer of g_a g_b S/(n R) bytes, plus
 *     one NVLink transfer per host of (g_h - 1) S/n per GPU link; one step.
 *   p2p (pipeline): host i sends S/R to host i+1 on every rail (i < H-1);
 *     one host: GPU 0 sends S to GPU 1 over NVLink.
 *   collective_model flows: every ring hop is its own transfer of the hop
 *     size (for comparison with the lock-step model).
 *
 * Each network hop is a *flow* in the sim/scheduler.h sense: NIC -> NIC, with the
 * topology's equal-cost candidate paths and a chosen one (the ECMP choice
 * from a hash of (job uid, flow index) and the run's seed until a
 * scheduler changes it).  A transfer's startup latency is
 * steps * alpha + the largest propagation latency of its hops' paths.
 */
#ifndef CCSIM_SIM_COLLECTIVE_H
#define CCSIM_SIM_COLLECTIVE_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "topo/topo.h"

typedef enum coll_kind {
    COLL_NONE,
    COLL_ALLREDUCE,
    COLL_ALLGATHER,
    COLL_REDUCESCATTER,
    COLL_FSDP,
    COLL_ALLTOALL,
    COLL_P2P,
} coll_kind;

/* One network hop. */
typedef struct coll_flow {
    uint32_t src_host, dst_host; /* topology host ids */
    uint32_t src_nic, dst_nic;   /* topology node ids of the NICs */
    double bytes_per_iter;       /* bytes per iteration (all buckets) */
    size_t n_paths;              /* candidate paths, >= 1 */
    size_t path;                 /* chosen candidate */
    GArray *links;               /* uint32 topology link ids of the chosen path */
    double latency_s;            /* propagation latency of the chosen path */
} coll_flow;

/* "No flow": a hop that stays inside one host (NVLink). */
#define COLL_NO_FLOW UINT32_MAX

/* One hop of a transfer, GPU to GPU (a ring hop, an all-to-all pair, a
 * pipeline send): its links are fixed[first .. first + before), then the
 * network path of flow (none when flow is COLL_NO_FLOW), then
 * fixed[first + before .. first + before + after).  In a lock-step ring
 * the hop forwards at each lock-step what hop prev (an index into the
 * transfer's hops) sent at the one before; a hop alone is its own prev. */
typedef struct coll_hop {
    uint32_t first, before, after;
    uint32_t flow;    /* index into the plan's flows, or COLL_NO_FLOW */
    uint32_t prev;    /* the upstream hop in its ring */
} coll_hop;

/* One transfer of a step: size bytes over fixed links plus flow paths.
 * A lock-step ring is one transfer whose hops all move `bytes` in `steps`
 * equal chunks (repeat x steps when it merges repeat collectives), each
 * hop forwarding at chunk k what its prev sent at k-1; a transfer merged
 * from several groups' rings holds all their hops. */
typedef struct coll_xfer {
    double bytes;     /* transfer size (one bucket), per hop */
    int steps;        /* lock-steps, for the alpha part of the startup */
    int repeat;       /* collectives merged into it (their startups add up), >= 1 */
    double fixed_latency_s; /* largest propagation latency of one hop's intra-host links */
    GArray *fixed;    /* uint32 topology link ids inside hosts (repeats = multiplicity) */
    GArray *flows;    /* uint32 indices into the plan's flows */
    GArray *hops;     /* coll_hop, one per GPU-to-GPU hop */
    /* private: the merged link set under the paths of plan version cache_version,
     * and the largest propagation latency of one hop there (coll_xfer_startup_s) */
    GArray *cache_links, *cache_mult;
    double cache_latency_s;
    uint64_t cache_version;
    /* private: the same without the plan's twins (coll_xfer_net_link_set),
     * under plan version cache_net_version and its twins of cache_net_twins */
    GArray *cache_net_links, *cache_net_mult;
    uint64_t cache_net_version, cache_net_twins;
} coll_xfer;

typedef struct coll_plan coll_plan;

/* How a plan is built (coll_options_default: 1 bucket, lock-step rings,
 * NCCL's channel count, A100, uid 0, seed 1). */
typedef struct coll_options {
    int buckets;      /* serialised buckets per phase, >= 1 */
    bool flows_model; /* every ring hop its own transfer (--collective-model flows) */
    int channels;     /* lock-step rings per rail (NCCL channels), >= 1; 0 = NCCL's
                       * default for the job's NICs (coll_channels_nccl) */
    bool sm90;        /* the GPUs are compute capability 9.0 (H100): NCCL's rule differs */
    uint64_t uid;     /* the job's identity, hashed into each flow's ECMP choice */
    uint64_t seed;    /* the run's seed, the switch hash's salt */
    bool step_latency; /* a lock-step transfer waits its hops' latency at every lock-step
                        * (coll_xfer_startup_s), not once */
    bool merge_private; /* a structured job's plan merges its private in-host rings
                         * (coll_plan_merge_private); off where transfers are observed
                         * one by one (timeline, packet export) */
} coll_options;
coll_options coll_options_default(void);

/* NCCL's ring channels per rail for a job using `rails` NICs per host of
 * nic_Bps bytes/s each (docs/model.md §3, our reading of NCCL 2.18+
 * src/graph/search.cc ncclTopoDupChannels and src/graph/connect.cc
 * ncclTopoPostset): one channel per NIC, doubled when the per-channel
 * speed (the largest of NCCL's inter-node speed steps <= the NIC's GB/s)
 * is >= 25 GB/s, except on sm90 with < 50 GB/s and more than 4 channels;
 * doubled again when rings are connected; at most 32 channels in all.
 * Result >= 1. */
int coll_channels_nccl(double nic_Bps, size_t rails, bool sm90);

/* How coll_plan_add_op builds an operation. */
typedef struct coll_op_options {
    int repeat;    /* consecutive collectives of the op run as one: S_bytes holds their
                    * bytes, every transfer's startup counts repeat times, >= 1 */
    int instances; /* times the op runs per iteration (bytes per iteration), >= 1 */
    bool merge;    /* the groups' transfers of one step that have the same size and
                    * lock-steps become one lock-step transfer over all their links */
} coll_op_options;

/* Build the plan of one communication phase of kind over alloc, S bytes
 * per phase, split in o->buckets serialised buckets.  (transfer full);
 * NULL with an error if a topology query fails.  COLL_NONE or a single GPU
 * gives an empty plan (no steps). */
coll_plan *coll_plan_new(topo *t, const cluster_alloc *alloc, coll_kind kind, double S_bytes,
                         const coll_options *o, GError **error);
/* A plan with no operation yet, for a structured job (sim/job_graph.c):
 * its operations come from coll_plan_add_op.  (transfer full) */
coll_plan *coll_plan_new_empty(const coll_options *o);

/* Add an operation to p: kind for S_bytes over each group of GPUs
 * (groups[g] lists a group's GPUs as an allocation, hosts in ring order;
 * a group of one GPU adds nothing), every group built as coll_plan_new
 * builds a job's collective (its own members, rails, channels and flows:
 * each group is its own NCCL communicator).  Step k of the op holds step
 * k of every group: the op's steps run in order and a step ends when all
 * its transfers end, so the groups advance together.  The op's index, or
 * -1 with an error if a topology query fails.  O(groups x group size). */
int coll_plan_add_op(coll_plan *p, topo *t, const cluster_alloc *const *groups, size_t n_groups,
                     coll_kind kind, double S_bytes, const coll_op_options *oo,
                     const coll_options *o, GError **error);

/* Merge the in-host transfers that must move alike into one lock-step
 * transfer, in each step of every operation o with serial[o] (no two runs
 * of o ever overlap).  Transfers T_1..T_k of one step are merged when
 * (docs/model.md §4b):
 *   - each is a private ring: it has no network flow, and every link it
 *     uses is an NVLink link (GPU <-> NVSwitch: only transfers to or from
 *     that GPU, the job's alone, cross it) that no other operation of
 *     the plan uses and no other transfer of the step uses;
 *   - they have the same bytes, lock-steps, repeats, startup latency and
 *     rate alone r = min over the links of capacity / multiplicity.
 * While T_i runs, its links then carry T_i alone (the op's steps and runs
 * are serial), so each moves at r from the same instant: the merged
 * transfer, at min over the union = r, moves every link's bytes at the
 * same times and ends the step at the same instant.  Returns the
 * transfers merged away.  O(plan's links x log). */
size_t coll_plan_merge_private(coll_plan *p, const topo *t, const bool *serial);

/* Links that never bind (net_link_set_dominator): every hop between hosts
 * is a GPU's fixed path to its nearest NIC, then a network path, which
 * begins with that NIC's link to its switch, then the reverse at the other
 * end (hop_add), and no transfer uses a PCIe link otherwise.  So each link
 * of GPU g's path to its NIC is on a transfer only together with the NIC's
 * uplink, as often, and each link of the path back only with its downlink.
 * Appends to pairs (uint32_t, two per pair) every (link, that NIC link)
 * whose capacities make the uplink or downlink the tighter, each link once.
 * O(hosts x GPUs). */
void coll_dominated_links(const topo *t, GArray *pairs);

/* Links that never bind while one job runs: on a host whose GPUs are all
 * the job's (allocation a), a NIC's uplink and downlink, the GPUs' NVLinks
 * and the links of their paths to and from their NICs carry the job's
 * transfers and no others.
 * Twins: where the same transfers of plan p cross such links, each as
 * often (a ring in lock step crosses every NIC and PCIe link of its rail
 * once, a ring inside a host every NVLink of the host), the NIC link or
 * NVLink of lowest capacity (then id) among them is the others' twin
 * (net_link_set_twin) for as long as the job runs; appends (link, its
 * twin) to twins, for the others of capacity not below it.
 * Dominators: where every transfer of p that crosses one of the remaining
 * NIC links also crosses another NIC uplink of the job's hosts, at least
 * as often, at a capacity not above it, that uplink dominates it (hop by
 * hop: a downlink by the uplink of the host before it on the same rail);
 * appends (link, its dominator) to pairs, links in the order of a's hosts
 * and NICs, downlink first; the dominator one that already dominates, else
 * the lowest; a dominator is never dominated nor a twin.
 * O(plan's transfer links x log). */
void coll_plan_nic_links(const coll_plan *p, const topo *t, const cluster_alloc *a,
                         GArray *twins, GArray *pairs);

/* The plan's operations (coll_plan_new: one, the job's collective, whose
 * steps the coll_plan_step_count family reads), their steps and transfers.
 * (transfer none) */
size_t coll_plan_op_count(const coll_plan *p);
size_t coll_plan_op_step_count(const coll_plan *p, size_t op);
size_t coll_plan_op_xfer_count(const coll_plan *p, size_t op, size_t step);
const coll_xfer *coll_plan_op_xfer(const coll_plan *p, size_t op, size_t step, size_t i);
/* The transfers of one step at once: *xfers points at its
 * coll_plan_op_xfer_count of them, valid as long as the plan. */
size_t coll_plan_op_step_xfers(const coll_plan *p, size_t op, size_t step,
                               const coll_xfer *const **xfers);

/* The channels per rail the plan's rings use (resolved, >= 1). */
int coll_plan_channels(const coll_plan *p);
void coll_plan_free(coll_plan *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(coll_plan, coll_plan_free)

/* Steps of one bucket of operation 0 (run in order; a step ends when all its transfers
 * end), and the transfers of a step.  (transfer none) */
size_t coll_plan_step_count(const coll_plan *p);
size_t coll_plan_xfer_count(const coll_plan *p, size_t step);
const coll_xfer *coll_plan_xfer(const coll_plan *p, size_t step, size_t i);
int coll_plan_buckets(const coll_plan *p);

/* Flows (network hops) and their state. */
size_t coll_plan_flow_count(const coll_plan *p);
const coll_flow *coll_plan_flow(const coll_plan *p, size_t f);
/* Choose candidate path for flow f (path < n_paths); false + error if the
 * topology cannot give its links. */
bool coll_plan_set_path(coll_plan *p, topo *t, size_t f, size_t path, GError **error);

/* Give every flow the candidate path that, taking the flows in index
 * order, minimises the largest (load + bytes) / capacity along it, counting
 * only this plan's own traffic (fixed links included); ties go to the
 * smaller sum of (load + bytes) / capacity along the path, then the lower
 * index.  The job's best routing when it is alone, used for its
 * isolated time.  Cost O(flows x candidates x path length). */
bool coll_plan_spread_paths(coll_plan *p, topo *t, GError **error);

/* Fixed (intra-host) links and bytes per iteration on each, distinct links
 * in increasing order.  (transfer none) */
size_t coll_plan_fixed_links(const coll_plan *p, const uint32_t **links, const double **bytes);

/* The link set of transfer x under the current paths: distinct links in
 * increasing order with multiplicities (out arrays cleared first, uint32
 * each), and its startup latency for alpha_s per step.  The merged set is
 * cached in x until a path of the plan changes, so repeated calls cost a
 * copy. */
void coll_xfer_links(const coll_plan *p, const coll_xfer *x, GArray *links, GArray *mult);
/* The same set without the copy: the cached arrays themselves, valid
 * until a path of the plan changes or x's next call; returns their
 * length.  (transfer none) */
size_t coll_xfer_link_set(const coll_plan *p, const coll_xfer *x, const uint32_t **links,
                          const uint32_t **mult);
/* The links the net is to be given for x: its link set without the
 * plan's twins (coll_plan_set_twins), which the net counts from their
 * twins (net_link_set_twin); cached as coll_xfer_link_set's.
 * (transfer none) */
size_t coll_xfer_net_link_set(const coll_plan *p, const coll_xfer *x, const uint32_t **links,
                              const uint32_t **mult);

/* The links of the job's hosts that the net knows as twins of others
 * (coll_plan_nic_links' twins, declared with net_link_set_twin): left out
 * of coll_xfer_net_link_set from now on; n = 0 clears them. */
void coll_plan_set_twins(coll_plan *p, const uint32_t *links, size_t n);

/* A number that grows at every change of what coll_xfer_link_set and
 * coll_xfer_net_link_set return (a path, coll_plan_set_twins): a caller
 * that keeps copies of the link sets keeps them while it is unchanged. */
uint64_t coll_plan_links_version(const coll_plan *p);

/* With L = the largest path latency of its flows + its fixed links'
 * latency: repeat x (steps alpha + L), or, for a plan built with
 * step_latency, repeat x steps x (alpha + L): every lock-step waits for
 * its chunk to cross a hop, as in a packet network (docs/validation.md). */
double coll_xfer_startup_s(const coll_plan *p, const coll_xfer *x, double alpha_s);

/* M_{j,e}: bytes per iteration on every link (fixed and chosen paths),
 * distinct links in increasing order (uint32 / double arrays cleared). */
void coll_plan_link_bytes(const coll_plan *p, GArray *links, GArray *bytes);

const char *coll_kind_name(coll_kind k);

/* The ECMP hash input of flow index f of the job with identity uid: the
 * flow_key that topo_path_ecmp mixes with the NIC pair and the run's seed
 * to pick the flow's first path (the identity a switch hashes: one per
 * NCCL connection). */
uint64_t coll_flow_key(uint64_t uid, size_t f);

#endif /* CCSIM_SIM_COLLECTIVE_H */
