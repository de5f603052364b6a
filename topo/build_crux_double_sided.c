/* build_crux_double_sided.c - preset: the Crux paper's double-sided Clos.
 * Not here: the Clos assembly (clos.c).
 *
 * Preset: the Crux paper's simulated "double-sided" Clos (SIGCOMM'24 §6.1: 6
 * ToR, 12 aggregation, 32 core switches; each host has 8 links to 2 ToRs).
 *
 * Our reading: the 6 ToRs form 3 ToR pairs, one pair per pod (which matches
 * the trace's 3 PSW groups); each pod has 12/3 = 4 aggregation switches
 * joined to both ToRs of the pair; aggregation switch j of each pod joins
 * core plane j (32/4 = 8 cores).  Each host has 8 NICs, NICs 0-3 on ToR a
 * and 4-7 on ToR b of its pair (attach=dual).  The default 256 hosts
 * (2,048 GPUs, the paper's "2,000+", TOPO__CRUX_HOSTS) spread over the 3
 * pairs as evenly as possible: 86, 85, 85.  Link speeds default to
 * non-blocking (oversub=1).
 *
 * Parameters: hosts=256 or hosts_from=topo.csv (topo__hosts_from), tors=6
 * (even), aggs=12 (multiple of tors/2), cores=32, core_mesh=plane, oversub=1
 * or link_gbps, tor_agg_gbps, agg_core_gbps, latency_us=1, server options
 * (nics=8). */
#include "topo-private.h"

bool topo__build_crux_double_sided(topo *t, topo__params *p, GError **error)
{
    size_t tors, aggs, hosts;
    topo__clos c = topo__clos_default();
    g_autoptr(GPtrArray) names = NULL;
    if (!topo__params_size(p, "hosts", TOPO__CRUX_HOSTS, &hosts, error) ||
        !topo__hosts_from(p, &hosts, &names, error) ||
        !topo__params_size(p, "tors", 6, &tors, error) ||
        !topo__params_size(p, "aggs", 12, &aggs, error) ||
        !topo__params_size(p, "cores", 32, &c.cores, error) ||
        !topo__core_mesh_parse(p, &c.core_full_mesh, error) ||
        !topo__server_parse(p, 8, &c.server, error) || !topo__clos_parse_common(p, &c, error) ||
        !topo__params_check_unused(p, error))
        return false;
    if (c.attach != TOPO__ATTACH_DUAL && topo__params_has(p, "attach")) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "crux-double-sided is attach=dual by definition (use clos3 for others)");
        return false;
    }
    c.attach = TOPO__ATTACH_DUAL;
    if (hosts < 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "hosts must be at least 1");
        return false;
    }
    if (tors < 2 || tors % 2 != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "tors must be even, got %zu", tors);
        return false;
    }
    c.pods = tors / 2;
    if (aggs < c.pods || aggs % c.pods != 0 || c.cores < 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "aggs (%zu) must be a multiple of the %zu ToR pairs, and cores at least 1",
                    aggs, c.pods);
        return false;
    }
    c.aggs_per_pod = aggs / c.pods;
    c.racks = c.pods;
    size_t *rack_pod = g_new(size_t, c.racks), *rack_hosts = g_new(size_t, c.racks);
    for (size_t r = 0; r < c.racks; r++) {
        rack_pod[r] = r;
        rack_hosts[r] = topo__spread(hosts, c.racks, r);
    }
    c.rack_pod = rack_pod;
    c.rack_hosts = rack_hosts;
    if (names)
        c.host_name = (const char *const *)names->pdata;
    bool ok = topo__clos_build(t, &c, error);
    g_free(rack_pod);
    g_free(rack_hosts);
    return ok;
}
