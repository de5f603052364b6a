/* server.c - the server model every host carries (docs/model.md "Hosts").
 * Not here: the network between hosts (build_*.c, clos.c).
 *
 * The server model every host carries (docs/model.md "Hosts"): G GPUs on an
 * NVSwitch, P PCIe switches each joining a group of GPUs to a group of NICs,
 * N NICs; its options, defaults and checks.
 */
#include "topo-private.h"

/* ---- the server model ---- */

/* Defaults follow the Crux testbed host: 8 GPUs, 4 PCIe switches with 2
 * GPUs and one 200 Gbps NIC each; NVLink 300 GB/s per GPU per direction
 * (A100 NVLink 3: 600 GB/s total); PCIe Gen4 x16: 16 GT/s x 16 lanes x
 * 128/130 = 252 Gbps per direction; 0.5 us per intra-host hop. */
topo__server topo__server_default(void)
{
    return (topo__server){
        .gpus = 8,
        .nics = 4,
        .pcie = 4,
        .nic_Bps = ccs_gbps_to_Bps(200),
        .nvlink_Bps = ccs_GBps_to_Bps(300),
        .pcie_Bps = ccs_gbps_to_Bps(252),
        .host_latency_s = ccs_us_to_s(0.5),
    };
}

bool topo__server_check(const topo__server *s, GError **error)
{
    if (s->gpus < 1 || s->gpus > 64) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "gpus must be 1..64, got %zu", s->gpus);
        return false;
    }
    if (s->nics < 1 || s->nics > 8) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "nics must be 1..8, got %zu", s->nics);
        return false;
    }
    if (s->pcie < 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "pcie must be at least 1");
        return false;
    }
    if (!ccs_positive_finite(s->nic_Bps) || !ccs_positive_finite(s->nvlink_Bps) ||
        !ccs_positive_finite(s->pcie_Bps)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "nic_gbps, nvlink_gbps and pcie_gbps must be positive");
        return false;
    }
    if (!isfinite(s->host_latency_s) || s->host_latency_s < 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "host_latency_us must be >= 0");
        return false;
    }
    return true;
}

bool topo__server_parse(topo__params *p, size_t nics_def, topo__server *out, GError **error)
{
    topo__server d = topo__server_default();
    double nic_gbps, nvlink_gbps, nvlink_GBps, pcie_gbps, lat_us;
    if (!topo__params_size(p, "gpus", d.gpus, &out->gpus, error) ||
        !topo__params_size(p, "nics", nics_def, &out->nics, error) ||
        !topo__params_size(p, "pcie", d.pcie, &out->pcie, error) ||
        !topo__params_double(p, "nic_gbps", ccs_Bps_to_gbps(d.nic_Bps), &nic_gbps, error) ||
        !topo__params_double(p, "nvlink_gbps", ccs_Bps_to_gbps(d.nvlink_Bps), &nvlink_gbps,
                             error) ||
        !topo__params_double(p, "nvlink_GBps", 0, &nvlink_GBps, error) ||
        !topo__params_double(p, "pcie_gbps", ccs_Bps_to_gbps(d.pcie_Bps), &pcie_gbps, error) ||
        !topo__params_double(p, "host_latency_us", d.host_latency_s * 1e6, &lat_us, error))
        return false;
    if (topo__params_has(p, "nvlink_gbps") && topo__params_has(p, "nvlink_GBps")) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "give nvlink_gbps or nvlink_GBps, not both");
        return false;
    }
    out->nic_Bps = ccs_gbps_to_Bps(nic_gbps);
    out->nvlink_Bps =
        topo__params_has(p, "nvlink_GBps") ? ccs_GBps_to_Bps(nvlink_GBps) : ccs_gbps_to_Bps(nvlink_gbps);
    out->pcie_Bps = ccs_gbps_to_Bps(pcie_gbps);
    out->host_latency_s = ccs_us_to_s(lat_us);
    return topo__server_check(out, error);
}

/* Nearest NIC of GPU g: the (g's rank among its PCIe switch's GPUs mod
 * that switch's NIC count)-th NIC of its switch. */
static size_t nearest_nic(const topo__host *h, size_t g)
{
    size_t N = h->server.nics, P = h->server.pcie, p = h->gpu_pcie[g];
    size_t rank = 0, first_nic = SIZE_MAX, nic_count = 0;
    for (size_t x = 0; x < g; x++)
        rank += h->gpu_pcie[x] == p;
    for (size_t i = 0; i < N; i++)
        if (i * P / N == p) {
            if (first_nic == SIZE_MAX)
                first_nic = i;
            nic_count++;
        }
    g_assert(nic_count > 0);
    return first_nic + rank % nic_count;
}

static void add_nodes(topo *t, topo__host *h, uint32_t hi)
{
    size_t G = h->server.gpus, N = h->server.nics, P = h->server.pcie;
    h->gpu_node = g_new(uint32_t, G);
    h->pcie_node = g_new(uint32_t, P);
    h->nic_node = g_new(uint32_t, N);
    for (size_t g = 0; g < G; g++) {
        g_autofree char *nm = g_strdup_printf("%s/gpu%zu", h->name, g);
        h->gpu_node[g] = topo__node_add(t, TOPO_NODE_GPU, nm, hi);
        g_array_index(t->nodes, topo__node, h->gpu_node[g]).index = (uint32_t)g;
    }
    g_autofree char *nvs = g_strdup_printf("%s/nvswitch", h->name);
    h->nvswitch = topo__node_add(t, TOPO_NODE_NVSWITCH, nvs, hi);
    for (size_t p = 0; p < P; p++) {
        g_autofree char *nm = g_strdup_printf("%s/pcie%zu", h->name, p);
        h->pcie_node[p] = topo__node_add(t, TOPO_NODE_PCIE, nm, hi);
        g_array_index(t->nodes, topo__node, h->pcie_node[p]).index = (uint32_t)p;
    }
    for (size_t i = 0; i < N; i++) {
        g_autofree char *nm = g_strdup_printf("%s/nic%zu", h->name, i);
        h->nic_node[i] = topo__node_add(t, TOPO_NODE_NIC, nm, hi);
        g_array_index(t->nodes, topo__node, h->nic_node[i]).index = (uint32_t)i;
    }
}

/* NVLink: GPU->NVS and NVS->GPU per GPU; the G x G table of 2-link paths. */
static void add_nvlink(topo *t, topo__host *h)
{
    size_t G = h->server.gpus;
    const topo__server *s = &h->server;
    g_autofree uint32_t *to_nvs = g_new(uint32_t, G);
    g_autofree uint32_t *from_nvs = g_new(uint32_t, G);
    for (size_t g = 0; g < G; g++) {
        to_nvs[g] = topo__link_add(t, h->gpu_node[g], h->nvswitch, s->nvlink_Bps,
                                   s->host_latency_s, TOPO_TIER_NVLINK);
        from_nvs[g] = topo__link_add(t, h->nvswitch, h->gpu_node[g], s->nvlink_Bps,
                                     s->host_latency_s, TOPO_TIER_NVLINK);
    }
    h->nvlink_path = g_new(uint32_t, G * G * 2);
    for (size_t a = 0; a < G; a++)
        for (size_t b = 0; b < G; b++) {
            h->nvlink_path[(a * G + b) * 2] = to_nvs[a];
            h->nvlink_path[(a * G + b) * 2 + 1] = from_nvs[b];
        }
}

/* GPU<->PCIe cables per GPU, PCIe<->NIC cables per NIC, and each GPU's
 * fixed paths to and from its nearest NIC. */
static void add_pcie(topo *t, topo__host *h)
{
    size_t G = h->server.gpus, N = h->server.nics, P = h->server.pcie;
    const topo__server *s = &h->server;
    h->gpu_pcie = g_new(size_t, G);
    h->gpu_nic = g_new(size_t, G);
    g_autofree uint32_t *gpu_up = g_new(uint32_t, G);
    for (size_t g = 0; g < G; g++) {
        h->gpu_pcie[g] = g * P / G;
        gpu_up[g] = topo__cable_add(t, h->gpu_node[g], h->pcie_node[h->gpu_pcie[g]], s->pcie_Bps,
                                    s->host_latency_s, TOPO_TIER_PCIE);
    }
    g_autofree uint32_t *nic_up = g_new(uint32_t, N);
    for (size_t i = 0; i < N; i++)
        nic_up[i] = topo__cable_add(t, h->pcie_node[i * P / N], h->nic_node[i], s->pcie_Bps,
                                    s->host_latency_s, TOPO_TIER_PCIE);
    h->gpu_nic_path = g_new(uint32_t, G * 2);
    h->nic_gpu_path = g_new(uint32_t, G * 2);
    for (size_t g = 0; g < G; g++) {
        size_t nic = nearest_nic(h, g);
        h->gpu_nic[g] = nic;
        /* a cable is (x -> y, y -> x): id and id + 1 */
        h->gpu_nic_path[g * 2] = gpu_up[g];
        h->gpu_nic_path[g * 2 + 1] = nic_up[nic];
        h->nic_gpu_path[g * 2] = nic_up[nic] + 1;
        h->nic_gpu_path[g * 2 + 1] = gpu_up[g] + 1;
    }
}

/* The server model: nodes GPUs, NVSwitch, PCIe switches, NICs; links in the
 * order NVLink (GPU->NVS, NVS->GPU per GPU), GPU<->PCIe per GPU, PCIe<->NIC
 * per NIC.  GPU g sits on PCIe switch floor(g*P/G), NIC i on floor(i*P/N)
 * with P = min(pcie, G, N), so every PCIe switch has a GPU and a NIC. */
bool topo__host_add(topo *t, const char *name, const topo__server *server, size_t *out_h,
                    GError **error)
{
    if (g_hash_table_contains(t->host_by_name, name)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "duplicate host name '%s'", name);
        return false;
    }
    if (!topo__server_check(server, error)) {
        g_prefix_error(error, "host '%s': ", name);
        return false;
    }
    topo__host *h = g_new0(topo__host, 1);
    size_t hi = t->hosts->len;
    h->name = g_strdup(name);
    h->server = *server;
    h->server.pcie = MIN(server->pcie, MIN(server->gpus, server->nics));
    add_nodes(t, h, (uint32_t)hi);
    add_nvlink(t, h);
    add_pcie(t, h);
    g_ptr_array_add(t->hosts, h);
    g_hash_table_insert(t->host_by_name, h->name, GSIZE_TO_POINTER(hi + 1));
    if (out_h)
        *out_h = hi;
    return true;
}
