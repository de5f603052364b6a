/* build_clos3.c - the three-tier Clos builder (clos3).
 * Not here: the Clos assembly (clos.c), the server model (server.c).
 *
 * Three-tier Clos: `pods` pods of tors_per_pod ToRs and aggs_per_pod
 * aggregation switches (every ToR to every agg of its pod); aggregation
 * switch j of every pod joins core plane j (cores/aggs_per_pod cores), or
 * every core with core_mesh=full.  attach as in clos2, within a pod.
 *
 * Parameters: pods=4, tors_per_pod=4, aggs_per_pod=4, cores=8,
 * hosts_per_tor=4, core_mesh=plane, rails=nics, attach=single, oversub=1 or
 * link_gbps, tor_agg_gbps, agg_core_gbps, latency_us=1, server options. */
#include <string.h>

#include "topo-private.h"

bool topo__core_mesh_parse(topo__params *p, bool *full, GError **error)
{
    const char *m = topo__params_string(p, "core_mesh", "plane");
    if (strcmp(m, "plane") == 0)
        *full = false;
    else if (strcmp(m, "full") == 0)
        *full = true;
    else {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "core_mesh must be plane or full, got '%s'", m);
        return false;
    }
    return true;
}

bool topo__build_clos3(topo *t, topo__params *p, GError **error)
{
    size_t tpp, hpt;
    topo__clos c = topo__clos_default();
    if (!topo__params_size(p, "pods", 4, &c.pods, error) ||
        !topo__params_size(p, "tors_per_pod", 4, &tpp, error) ||
        !topo__params_size(p, "aggs_per_pod", 4, &c.aggs_per_pod, error) ||
        !topo__params_size(p, "cores", 8, &c.cores, error) ||
        !topo__params_size(p, "hosts_per_tor", 4, &hpt, error) ||
        !topo__core_mesh_parse(p, &c.core_full_mesh, error) ||
        !topo__server_parse(p, 4, &c.server, error) ||
        !topo__params_size(p, "rails", c.server.nics, &c.rails, error) ||
        !topo__clos_parse_common(p, &c, error) || !topo__params_check_unused(p, error))
        return false;
    size_t S = c.attach == TOPO__ATTACH_DUAL ? 2 : c.attach == TOPO__ATTACH_RAIL ? c.rails : 1;
    if (c.pods < 1 || c.cores < 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "pods and cores must be at least 1");
        return false;
    }
    if (tpp < 1 || S < 1 || tpp % S != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "tors_per_pod (%zu) must be a positive multiple of the ToRs per rack (%zu "
                    "for this attach)",
                    tpp, S);
        return false;
    }
    size_t rpp = tpp / S;
    c.racks = c.pods * rpp;
    size_t *rack_pod = g_new(size_t, c.racks), *rack_hosts = g_new(size_t, c.racks);
    for (size_t r = 0; r < c.racks; r++) {
        rack_pod[r] = r / rpp;
        rack_hosts[r] = hpt * S;
    }
    c.rack_pod = rack_pod;
    c.rack_hosts = rack_hosts;
    bool ok = topo__clos_build(t, &c, error);
    g_free(rack_pod);
    g_free(rack_hosts);
    return ok;
}
