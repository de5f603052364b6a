/* topo-private.h - internals shared by the files of topo/ (never included
 * outside topo/).  Not here: the public API (topo.h).
 *
 * Builders create nodes, links and hosts through these functions, then call
 * topo__finish() which indexes and validates.
 */
#ifndef CCSIM_TOPO_TOPO_PRIVATE_H
#define CCSIM_TOPO_TOPO_PRIVATE_H

#include <igraph.h>

#include "base/ccs.h"
#include "topo.h"

#define TOPO__NONE TOPO_NODE_NONE
/* Largest host count a builder accepts (a guard against typos like
 * hosts_per_tor=1000000 that would exhaust memory). */
#define TOPO__MAX_HOSTS ((size_t)1 << 20)

typedef struct topo__node {
    topo_node_kind kind;
    char *name;    /* owned */
    uint32_t host; /* host index, TOPO__NONE for network switches */
    uint32_t index; /* GPU/NIC/PCIe index within the host (set by server.c) */
} topo__node;

/* The server model of one host (docs/model.md "Hosts"). */
typedef struct topo__server {
    size_t gpus;           /* G, 1..64 */
    size_t nics;           /* N, 1..8 */
    size_t pcie;           /* PCIe switches actually built: min(requested, G, N) */
    double nic_Bps;        /* NIC line rate */
    double nvlink_Bps;     /* per GPU per direction */
    double pcie_Bps;       /* per GPU<->PCIe and PCIe<->NIC link per direction */
    double host_latency_s; /* latency of each intra-host link */
} topo__server;

typedef struct topo__host {
    char *name;
    topo__server server;
    uint32_t nvswitch;      /* node */
    uint32_t *gpu_node;     /* [gpus] */
    uint32_t *pcie_node;    /* [pcie] */
    uint32_t *nic_node;     /* [nics] */
    size_t *gpu_pcie;       /* [gpus] PCIe switch of each GPU */
    size_t *gpu_nic;        /* [gpus] nearest NIC of each GPU */
    uint32_t *gpu_nic_path; /* [gpus][2] GPU -> PCIe -> NIC */
    uint32_t *nic_gpu_path; /* [gpus][2] NIC -> PCIe -> GPU */
    uint32_t *nvlink_path;  /* [gpus][gpus][2] GPU -> NVSwitch -> GPU */
    uint32_t pod;           /* pod group set by the builder (0 by default) */
} topo__host;

/* Per NIC node: its attachment to the network (filled by topo__finish). */
typedef struct topo__nic_attach {
    uint32_t sw;   /* first switch node, TOPO__NONE if unattached */
    uint32_t up;   /* link NIC -> sw */
    uint32_t down; /* link sw -> NIC */
} topo__nic_attach;

struct topo {
    char *name;
    topo_options opts;
    GArray *nodes;            /* topo__node */
    GArray *links;            /* topo_link */
    GPtrArray *hosts;         /* topo__host*, owned */
    GHashTable *host_by_name; /* name (borrowed from host) -> index+1 */
    /* indexes built by topo__finish */
    GHashTable *nic_attach;   /* NIC node id -> topo__nic_attach* (owned) */
    bool has_sw_graph;
    igraph_t sw_graph;        /* network switches, one edge per switch-switch link */
    uint32_t *node_to_sw;     /* [nodes] switch vertex or TOPO__NONE */
    bool *first_switch;       /* [nodes] a NIC attaches to this switch */
    GArray *sw_to_node;       /* uint32_t: vertex -> node id */
    GArray *sw_edge_link;     /* uint32_t: igraph edge -> link id */
    GHashTable *path_cache;   /* (sw_a << 32 | sw_b) -> topo__pathset* */
    bool has_in_edges;
    igraph_inclist_t in_edges; /* switch graph in-edges, built on first sampling */
};

/* Candidate switch-level paths between two switches (the cache entry). */
typedef struct topo__pathset {
    size_t n;        /* number of paths */
    size_t hops;     /* links per path (equal-cost) */
    uint32_t *links; /* [n][hops] link ids, switch a -> switch b */
} topo__pathset;

/* Hash of a path-cache key (paths.c). */
guint topo__pair_hash(gconstpointer key);

/* ---- construction (topo.c) ---- */
topo *topo__new(const char *name, const topo_options *opts);
uint32_t topo__node_add(topo *t, topo_node_kind kind, const char *name, uint32_t host);
uint32_t topo__link_add(topo *t, uint32_t src, uint32_t dst, double cap_Bps, double latency_s,
                        topo_tier tier);
/* A full-duplex cable: link a->b then b->a; returns the first id. */
uint32_t topo__cable_add(topo *t, uint32_t a, uint32_t b, double cap_Bps, double latency_s,
                         topo_tier tier);
/* Add a host with the server model; fails on a duplicate name. */
bool topo__host_add(topo *t, const char *name, const topo__server *server, size_t *out_h,
                    GError **error);
topo__host *topo__host_get(const topo *t, size_t h);
/* Index, attach NICs, build the switch graph, validate. */
bool topo__finish(topo *t, GError **error);
/* Tier of a link between two switches of the given kinds. */
topo_tier topo__switch_tier(topo_node_kind a, topo_node_kind b);
bool topo__igraph_error(igraph_error_t rc, const char *what, GError **error);

/* igraph keeps its error-cleanup ("finally") stack and its attribute
 * handler in process-wide variables unless it is built thread-safe
 * (Debian's is not: IGRAPH_THREAD_SAFE is 0), so two threads inside igraph
 * at once corrupt them and abort (compare -j and sweep -j build one
 * topology per run and fill its path cache lazily).  Every igraph call of
 * topo/ runs between these two; the lock is recursive. */
void topo__igraph_lock(void);
void topo__igraph_unlock(void);

/* ---- spec parameters (params.c) ---- */
typedef struct topo__params topo__params;
/* Parse "k=v,k=v" (a bare first token without '=' becomes key bare_key,
 * when bare_key is non-NULL). */
topo__params *topo__params_parse(const char *args, const char *bare_key, GError **error);
void topo__params_free(topo__params *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(topo__params, topo__params_free)
bool topo__params_has(topo__params *p, const char *key);
bool topo__params_size(topo__params *p, const char *key, size_t def, size_t *out, GError **error);
bool topo__params_double(topo__params *p, const char *key, double def, double *out,
                         GError **error);
/* String value (borrowed) or def. */
const char *topo__params_string(topo__params *p, const char *key, const char *def);
/* Fails naming the first key no builder read. */
bool topo__params_check_unused(topo__params *p, GError **error);

/* Common server options: gpus, nics, pcie, nic_gbps, nvlink_gbps (or
 * nvlink_GBps), pcie_gbps, host_latency_us, with defaults (nics_def lets a
 * preset change the NIC count). */
bool topo__server_parse(topo__params *p, size_t nics_def, topo__server *out, GError **error);
topo__server topo__server_default(void);
bool topo__server_check(const topo__server *s, GError **error);

/* ---- the Clos assembler (clos.c) ---- */
typedef enum topo__attach {
    TOPO__ATTACH_SINGLE, /* all NICs of a host to one ToR */
    TOPO__ATTACH_DUAL,   /* NICs split over two ToRs */
    TOPO__ATTACH_RAIL,   /* NIC i to rail switch i mod R of the host's group */
} topo__attach;

bool topo__attach_parse(const char *s, topo__attach *out, GError **error);

/* A 2- or 3-tier Clos.  Hosts sit in racks; a rack is the set of hosts that
 * share their first switches (1 ToR for single, a ToR pair for dual, R rail
 * switches for rail).  Racks belong to pods; each pod has aggs_per_pod
 * aggregation switches joined to every first switch of the pod.  With
 * cores > 0, aggregation switch j of every pod joins core plane j (cores /
 * aggs_per_pod cores), or every core when core_full_mesh. */
typedef struct topo__clos {
    size_t pods;
    size_t racks;            /* total */
    const size_t *rack_pod;  /* [racks] pod of each rack */
    const size_t *rack_hosts; /* [racks] hosts in each rack */
    const char *const *rack_name; /* [racks] or NULL: "podP/rackR" */
    const char *const *pod_name;  /* [pods] or NULL: "podP" (names the aggs) */
    const char *const *host_name; /* [sum hosts] or NULL: "hI" */
    topo__attach attach;
    size_t rails;            /* first switches per rack under rail (>= 1) */
    size_t aggs_per_pod;
    size_t cores;            /* 0: two tiers */
    bool core_full_mesh;
    double tor_agg_Bps;      /* 0: derive from oversub */
    double agg_core_Bps;     /* 0: derive (non-blocking agg) */
    double oversub;          /* first-switch downlink/uplink when deriving */
    double latency_s;        /* every network link */
    topo__server server;
} topo__clos;

topo__clos topo__clos_default(void);
/* Parse attach=, rails=, latency_us=, oversub=, link_gbps= (both switch
 * tiers), tor_agg_gbps=, agg_core_gbps= into c. */
bool topo__clos_parse_common(topo__params *p, topo__clos *c, GError **error);
bool topo__clos_build(topo *t, const topo__clos *c, GError **error);
/* A 2-tier Clos of `tors` first switches (pods=1, cores=0) with `hosts`
 * spread over the racks as evenly as possible (first racks one more). */
bool topo__clos2_racks(topo *t, topo__clos *c, size_t tors, size_t hosts, GError **error);
/* core_mesh=plane|full (default plane). */
bool topo__core_mesh_parse(topo__params *p, bool *full, GError **error);

/* ---- builders: each parses its own parameters and builds into t ---- */
bool topo__build_fat_tree(topo *t, topo__params *p, GError **error);
bool topo__build_clos2(topo *t, topo__params *p, GError **error);
bool topo__build_clos3(topo *t, topo__params *p, GError **error);
bool topo__build_torus(topo *t, topo__params *p, GError **error);
bool topo__build_dragonfly(topo *t, topo__params *p, GError **error);
bool topo__build_crux_clos2(topo *t, topo__params *p, GError **error);
bool topo__build_crux_double_sided(topo *t, topo__params *p, GError **error);
bool topo__build_lingjun(topo *t, topo__params *p, GError **error);
/* The same on the bundled sample's topo.csv, embedded (topo.gresource.xml). */
bool topo__build_lingjun_sample(topo *t, topo__params *p, GError **error);
bool topo__build_file(topo *t, topo__params *p, GError **error);
/* Object form into t (file builder and topo_from_json). */
bool topo__build_json(topo *t, const cJSON *obj, GError **error);
bool topo__build_graphml(topo *t, const char *path, GError **error);
/* What igraph's GraphML reader would let through (graphml_check.c): a
 * numeric value that is not a strict decimal number (NaN, inf, empty), a
 * node id seen twice, an edge to itself or to an undeclared node.  text
 * is the whole file; errors start "PATH:LINE: ". */
bool topo__graphml_check(const char *text, size_t len, const char *path, GError **error);

/* One row of a Lingjun topo.csv. */
typedef struct topo__lingjun_row {
    char *ip, *dsw, *psw, *asw; /* owned */
    size_t line;                /* 1-based line in the file */
} topo__lingjun_row;
/* Parse topo.csv text (columns found by header name: ip, DSW, PSW, ASW;
 * others ignored) into rows (GPtrArray of topo__lingjun_row*, owning).
 * Errors name `name:line:`.  (transfer full) */
GPtrArray *topo__lingjun_parse(const char *buf, size_t len, const char *name, GError **error);

/* Default hosts of the Crux presets: 256 hosts of 8 GPUs = 2,048 GPUs, the
 * "2,000+ GPUs" of the Crux paper's simulated cluster (SIGCOMM'24 §6.1),
 * which the Lingjun trace (about 1,000 busy GPUs, 1,650 at its peak) fills
 * as the paper's did. */
#define TOPO__CRUX_HOSTS 256

/* hosts_from=topo.csv, for the presets that place a trace's hosts on
 * another network (crux-clos2, crux-double-sided): the hosts take the
 * file's host names in the lingjun builder's order (pods, racks, file order
 * inside a rack), so a Lingjun trace's recorded placement carries over and
 * jobs that shared a production rack share a ToR; *hosts becomes the
 * file's host count.  Without the parameter *names is NULL.  hosts= and
 * hosts_from= together are an error.  *names owns its strings. */
bool topo__hosts_from(topo__params *p, size_t *hosts, GPtrArray **names, GError **error);

/* Spread n items over k bins as evenly as possible: bin b gets n/k, the first
 * n%k bins one more. */
static inline size_t topo__spread(size_t n, size_t k, size_t b)
{
    return n / k + (b < n % k ? 1 : 0);
}

#endif /* CCSIM_TOPO_TOPO_PRIVATE_H */
