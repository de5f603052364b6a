/* build_crux_clos2.c - preset: the Crux paper's simulated two-layer Clos.
 * Not here: the Clos assembly (clos.c).
 *
 * Preset: the Crux paper's simulated two-layer Clos (SIGCOMM'24 §6.1: 173 ToR
 * and 16 aggregation switches, one ToR per host; "2,000+ GPUs").  The
 * default 256 hosts of 8 GPUs are 2,048 GPUs, the paper's cluster size
 * (CRUX_HOSTS); they spread over the 173 ToRs as evenly as possible:
 * 256 = 173 + 83, so the first 83 ToRs hold 2 hosts and the other 90 one.
 * Every ToR joins every aggregation switch; link speeds default to
 * non-blocking (oversub=1: 2 x 4 x 200 Gbps / 16 = 100 Gbps per uplink).
 *
 * Parameters: hosts=256 or hosts_from=topo.csv (topo__hosts_from), tors=173,
 * aggs=16, attach=single, oversub=1 or link_gbps, latency_us=1, server
 * options (nics=4). */
#include "topo-private.h"

bool topo__build_crux_clos2(topo *t, topo__params *p, GError **error)
{
    size_t tors, hosts;
    topo__clos c = topo__clos_default();
    g_autoptr(GPtrArray) names = NULL;
    if (!topo__params_size(p, "hosts", TOPO__CRUX_HOSTS, &hosts, error) ||
        !topo__hosts_from(p, &hosts, &names, error) ||
        !topo__params_size(p, "tors", 173, &tors, error) ||
        !topo__params_size(p, "aggs", 16, &c.aggs_per_pod, error) ||
        !topo__server_parse(p, 4, &c.server, error) ||
        !topo__params_size(p, "rails", c.server.nics, &c.rails, error) ||
        !topo__clos_parse_common(p, &c, error) || !topo__params_check_unused(p, error))
        return false;
    if (hosts < 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "hosts must be at least 1");
        return false;
    }
    if (names)
        c.host_name = (const char *const *)names->pdata;
    return topo__clos2_racks(t, &c, tors, hosts, error);
}
