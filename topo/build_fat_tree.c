/* build_fat_tree.c - the k-ary fat-tree builder (Al-Fares et al., SIGCOMM'08).
 * Not here: the Clos assembly (clos.c), the server model (server.c).
 *
 * The k-ary fat-tree of Al-Fares et al. (SIGCOMM'08): k pods, each with k/2
 * ToRs and k/2 aggregation switches, (k/2)^2 cores; aggregation switch j of
 * every pod joins cores j*k/2 .. j*k/2+k/2-1; k/2 hosts per ToR
 * (hosts_per_tor changes it).  Every host carries the server model;
 * attach=single|dual|rail says how its NICs meet the ToRs (dual: ToR pairs,
 * rail: the pod's k/2 ToRs become rail switches).
 *
 * Parameters: k=4 (even), hosts_per_tor=k/2, attach=single, rails=k/2,
 * oversub=1 or link_gbps (both switch tiers; default non-blocking),
 * tor_agg_gbps, agg_core_gbps, latency_us=1, and the server options. */
#include "topo-private.h"

bool topo__build_fat_tree(topo *t, topo__params *p, GError **error)
{
    size_t k, hpt, rails;
    topo__clos c = topo__clos_default();
    if (!topo__params_size(p, "k", 4, &k, error))
        return false;
    if (k % 2 != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "k must be even, got %zu", k);
        return false;
    }
    if (k < 2) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "k must be at least 2, got %zu", k);
        return false;
    }
    if (k > 64) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "k must be at most 64, got %zu", k);
        return false;
    }
    if (!topo__params_size(p, "hosts_per_tor", k / 2, &hpt, error) ||
        !topo__params_size(p, "rails", k / 2, &rails, error) ||
        !topo__server_parse(p, 4, &c.server, error) || !topo__clos_parse_common(p, &c, error))
        return false;
    size_t half = k / 2, S = 1;
    if (c.attach == TOPO__ATTACH_DUAL) {
        if (half % 2 != 0) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "attach=dual pairs the k/2 ToRs of a pod: k must be a multiple of 4, "
                        "got %zu", k);
            return false;
        }
        S = 2;
    } else if (c.attach == TOPO__ATTACH_RAIL) {
        if (rails < 1 || half % rails != 0) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "rails (%zu) must divide the k/2 = %zu ToRs of a pod", rails, half);
            return false;
        }
        S = rails;
    }
    c.rails = rails;
    c.pods = k;
    c.aggs_per_pod = half;
    c.cores = half * half;
    c.racks = k * (half / S);
    size_t *rack_pod = g_new(size_t, c.racks), *rack_hosts = g_new(size_t, c.racks);
    for (size_t r = 0; r < c.racks; r++) {
        rack_pod[r] = r / (half / S);
        rack_hosts[r] = hpt * S;
    }
    c.rack_pod = rack_pod;
    c.rack_hosts = rack_hosts;
    bool ok = topo__params_check_unused(p, error) && topo__clos_build(t, &c, error);
    g_free(rack_pod);
    g_free(rack_hosts);
    return ok;
}
