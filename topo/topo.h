/* topo.h - topologies: builders, the server model, path services (docs/model.md,
 * §8).  Not here: link rates or anything that runs (sim/).
 *
 * A topology is a directed graph of nodes (GPUs, NVSwitches, PCIe switches,
 * NICs, network switches) joined by links with a capacity (bytes/s) and a
 * latency (s).  A full-duplex cable is two links.  Every host (server) carries
 * the same server model: G GPUs on an NVSwitch, P PCIe switches each joining
 * a group of GPUs to a group of NICs, N NICs attached to the network.
 *
 * Ids: nodes 0..n-1, links 0..m-1 and hosts 0..h-1 are dense and stable for
 * the life of the object.  The replay adds links to the network engine in id
 * order, so topo link i == net link i.
 *
 * Ownership: topo_build()/topo_from_json() return (transfer full); free with
 * topo_free().  Getters return (transfer none) data valid until topo_free().
 *
 * Threading: the network path cache fills lazily, so the path functions take
 * a non-const topo.  One topo belongs to one simulation (one thread); build
 * another for another simulation.
 */
#ifndef CCSIM_TOPO_TOPO_H
#define CCSIM_TOPO_TOPO_H

#include <cJSON.h>
#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct topo topo;

/* ---- options ------------------------------------------------------------ */

typedef struct topo_options {
    size_t max_paths;  /* cap on equal-cost candidate paths per switch pair (16) */
    size_t enum_limit; /* fewest-hop paths from one switch up to which igraph
                          enumerates them all; above, they are sampled (100000) */
} topo_options;

/* Defaults: max_paths = 16, enum_limit = 100000. */
topo_options topo_options_default(void);

/* ---- building ------------------------------------------------------------ */

/* Build a topology from a spec string `NAME:key=value,...` (`fat-tree:k=8`,
 * `clos2:tors=8`, `file:path.json`, `lingjun:path=topo.csv`; see
 * docs/topologies.md and topo_builders()).  opts may be NULL (defaults).
 * Validates the result (connected, positive capacities, every host reaches
 * every host).  Errors: CCS_ERROR_INVALID for a bad spec, value or topology,
 * CCS_ERROR_IO / CCS_ERROR_PARSE for files, CCS_ERROR_INTERNAL for igraph;
 * messages read `topology 'SPEC': what is wrong`.  Returns (transfer full). */
topo *topo_build(const char *spec, const topo_options *opts, GError **error);

/* Build from the scenario's object form {"hosts": [...], "switches": [...],
 * "links": [...]} (docs/usage.md; details in docs/topologies.md).  name is
 * used in messages and as the topology's name (NULL: "inline").  Default
 * options.  (transfer full) */
topo *topo_from_json(const cJSON *obj, const char *name, GError **error);
/* The same with options (opts may be NULL). */
topo *topo_from_json_with_options(const cJSON *obj, const char *name, const topo_options *opts,
                                  GError **error);

/* Free a topology and everything it owns; NULL does nothing. */
void topo_free(topo *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(topo, topo_free)

/* The spec string or name the topology was built from. */
const char *topo_name(const topo *t);

/* One line per builder, for `ccsim list` and --help. */
typedef struct topo_builder_info {
    const char *name;    /* spec name: "fat-tree" */
    const char *summary; /* one line */
    const char *params;  /* "k=4 (even), oversub=1, ..." with defaults */
} topo_builder_info;
/* The builders, in a static table of *n entries (transfer none). */
const topo_builder_info *topo_builders(size_t *n);

/* ---- nodes ---------------------------------------------------------------- */

typedef enum topo_node_kind {
    TOPO_NODE_GPU,
    TOPO_NODE_NVSWITCH,
    TOPO_NODE_PCIE,   /* PCIe switch inside a host */
    TOPO_NODE_NIC,
    TOPO_NODE_TOR,    /* ToR / leaf / ASW */
    TOPO_NODE_AGG,    /* aggregation / spine / PSW */
    TOPO_NODE_CORE,   /* core / DSW */
    TOPO_NODE_RAIL,   /* rail switch (first switch under attach=rail) */
    TOPO_NODE_SWITCH, /* generic switch (torus, dragonfly, file) */
    TOPO_NODE_KIND_COUNT
} topo_node_kind;

/* "gpu", "nvswitch", "pcie", "nic", "tor", "agg", "core", "rail", "switch". */
const char *topo_node_kind_name(topo_node_kind kind);
/* Parse a kind name as above; false when unknown. */
bool topo_node_kind_parse(const char *name, topo_node_kind *out);

size_t topo_node_count(const topo *t);
topo_node_kind topo_node_get_kind(const topo *t, uint32_t node);
/* Node name: "h3/gpu5", "h3/nic0", "pod1/tor0", "core2" (transfer none). */
const char *topo_node_name(const topo *t, uint32_t node);
/* Host index of a node inside a host, or SIZE_MAX for a network switch. */
size_t topo_node_host(const topo *t, uint32_t node);
/* Index of a node among its host's nodes of its kind (GPU g, NIC i, PCIe
 * switch p; 0 for the NVSwitch), or SIZE_MAX for a network switch. */
size_t topo_node_index(const topo *t, uint32_t node);

/* "No node": returned by lookups that find nothing. */
#define TOPO_NODE_NONE UINT32_MAX

/* The network switch NIC node nic is cabled to, or TOPO_NODE_NONE (not a
 * NIC, or a NIC of a lone host without network).  O(1). */
uint32_t topo_nic_first_switch(const topo *t, uint32_t nic);

/* NIC node nic's network links, nic -> its switch (*up) and back (*down):
 * the first and the last link of every path from and to it.  False (and
 * nothing stored) if it is not an attached NIC.  O(1). */
bool topo_nic_links(const topo *t, uint32_t nic, uint32_t *up, uint32_t *down);

/* ---- links ---------------------------------------------------------------- */

typedef enum topo_tier {
    TOPO_TIER_NVLINK,   /* GPU <-> NVSwitch */
    TOPO_TIER_PCIE,     /* GPU <-> PCIe switch <-> NIC */
    TOPO_TIER_HOST_TOR, /* NIC <-> first switch (ToR or rail switch) */
    TOPO_TIER_TOR_AGG,
    TOPO_TIER_AGG_CORE,
    TOPO_TIER_OTHER,    /* torus, dragonfly, generic switch-switch links */
    TOPO_TIER_COUNT
} topo_tier;

/* snake_case names used as CSV column stems: "nvlink", "pcie", "host_tor",
 * "tor_agg", "agg_core", "other". */
const char *topo_tier_name(topo_tier tier);
bool topo_tier_parse(const char *name, topo_tier *out);

typedef struct topo_link {
    uint32_t src, dst; /* node ids; the link carries src -> dst */
    double cap_Bps;    /* capacity, bytes per second (> 0) */
    double latency_s;  /* propagation latency, seconds (>= 0) */
    topo_tier tier;
} topo_link;

size_t topo_link_count(const topo *t);
/* Link by id (transfer none); id < topo_link_count. */
const topo_link *topo_link_get(const topo *t, uint32_t id);

/* ---- hosts ---------------------------------------------------------------- */

size_t topo_host_count(const topo *t);
const char *topo_host_name(const topo *t, size_t h);
/* Look a host up by name (hash table, O(1)); false when absent. */
bool topo_host_find(const topo *t, const char *name, size_t *out);
size_t topo_host_gpu_count(const topo *t, size_t h);
size_t topo_host_nic_count(const topo *t, size_t h);
size_t topo_host_pcie_count(const topo *t, size_t h);
uint32_t topo_host_gpu_node(const topo *t, size_t h, size_t g);
uint32_t topo_host_nic_node(const topo *t, size_t h, size_t i);
uint32_t topo_host_nvswitch_node(const topo *t, size_t h);
uint32_t topo_host_pcie_node(const topo *t, size_t h, size_t p);
/* Index of the NIC nearest GPU g (on the same PCIe switch). */
size_t topo_gpu_nic(const topo *t, size_t h, size_t g);
/* Index of GPU g's PCIe switch. */
size_t topo_gpu_pcie(const topo *t, size_t h, size_t g);

typedef enum topo_level {
    TOPO_LEVEL_HOST, /* the host itself */
    TOPO_LEVEL_TOR,  /* the first switch of the host's NIC 0 */
    TOPO_LEVEL_POD,  /* pod / PSW group / dragonfly group; one pod for 2-tier */
} topo_level;

/* Locality group of host h at a level: hosts with equal ids share the host,
 * the ToR, the pod.  Ids are small integers but not dense. */
uint32_t topo_host_group(const topo *t, size_t h, topo_level level);

/* ---- intra-host paths (fixed) ------------------------------------------- */

/* GPU g -> its PCIe switch -> its nearest NIC: sets *links to an array of
 * link ids owned by the topo and returns its length (2). */
size_t topo_path_gpu_to_nic(const topo *t, size_t h, size_t g, const uint32_t **links);
/* Nearest NIC -> PCIe switch -> GPU g (2 links). */
size_t topo_path_nic_to_gpu(const topo *t, size_t h, size_t g, const uint32_t **links);
/* GPU g1 -> NVSwitch -> GPU g2 (2 links; 0 when g1 == g2). */
size_t topo_path_nvlink(const topo *t, size_t h, size_t g1, size_t g2, const uint32_t **links);

/* ---- network paths between NICs ------------------------------------------ */

/* Number of candidate paths from NIC node nic_a to NIC node nic_b: all
 * equal-cost (fewest-hop) paths between their first switches, at most
 * max_paths (when there are more, a greedy pick keeps the paths that share
 * the fewest links, see docs/topologies.md).  Cached per (first switch, last
 * switch) pair: the first call from a switch costs one BFS and one igraph
 * all-shortest-paths search (or, above opts.enum_limit paths, a sample drawn
 * from the BFS counts) that fills the cache for all its pairs; later calls
 * are O(1).  Two NICs under one switch: 1 path (NIC -> switch -> NIC).
 * Returns 0 and sets error when a node is not a NIC or igraph fails. */
size_t topo_path_count(topo *t, uint32_t nic_a, uint32_t nic_b, GError **error);

/* Candidate path i (< topo_path_count) as link ids NIC a -> ... -> NIC b,
 * written into out_link_ids (a GArray of uint32_t, cleared first). */
bool topo_path_links(topo *t, uint32_t nic_a, uint32_t nic_b, size_t i, GArray *out_link_ids,
                     GError **error);

/* The ECMP choice among the candidates: a deterministic hash (splitmix64
 * mixing) of (nic_a, nic_b, flow_key, seed), modulo topo_path_count.  The
 * same arguments give the same index in every run; returns 0 when the
 * count is 0 or fails (call topo_path_count first to see the error). */
size_t topo_path_ecmp(topo *t, uint32_t nic_a, uint32_t nic_b, uint64_t flow_key, uint64_t seed);

/* The 64-bit mixing function behind topo_path_ecmp (splitmix64 finaliser). */
uint64_t topo_hash64(uint64_t x);

/* ---- description and export ---------------------------------------------- */

typedef struct topo_stats {
    size_t hosts, gpus, nics, switches; /* switches: network switches only */
    size_t nodes_by_kind[TOPO_NODE_KIND_COUNT];
    size_t links_by_tier[TOPO_TIER_COUNT];
    double cap_Bps_by_tier[TOPO_TIER_COUNT]; /* sum of link capacities */
    double tor_oversub;  /* host-facing / upward capacity of first switches; 0 if none */
    double agg_oversub;  /* ToR-facing / core-facing capacity of aggs; 0 if none */
} topo_stats;

/* Counts and capacities, O(nodes + links). */
topo_stats topo_stats_get(const topo *t);

/* Bisection bandwidth in bytes/s: the igraph max flow over the network
 * links from the NICs of hosts 0..h/2-1 to the NICs of hosts h/2..h-1 (host
 * id order follows ToRs and pods in every builder, so this is the cut
 * between the two halves of the cluster).  O(max-flow) on the switch graph. */
bool topo_bisection_Bps(const topo *t, double *out_Bps, GError **error);

/* Append a human-readable description to out: counts per node kind and
 * tier, capacities, oversubscription, bisection bandwidth, and candidate
 * path counts between sample hosts. */
bool topo_describe(topo *t, GString *out, GError **error);

typedef enum topo_format {
    TOPO_FORMAT_JSON,    /* the §8 object form: re-importable */
    TOPO_FORMAT_GRAPHML, /* hosts and switches as vertices (igraph): re-importable */
    TOPO_FORMAT_DOT,     /* Graphviz, hosts and switches, one edge per cable */
} topo_format;

bool topo_format_parse(const char *name, topo_format *out);

/* The §8 object form of the network: hosts with their server model,
 * switches {"name","kind"}, cables {"a","b","nic","gbps","latency_us","tier"}.
 * topo_from_json() re-imports it.  (transfer full) */
cJSON *topo_to_json(const topo *t);

/* Write the topology to out in a format.  Errors: CCS_ERROR_IO,
 * CCS_ERROR_INTERNAL (igraph). */
bool topo_export(const topo *t, topo_format format, FILE *out, GError **error);

#endif /* CCSIM_TOPO_TOPO_H */
