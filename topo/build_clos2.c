/* build_clos2.c - the two-tier leaf-spine Clos builder (clos2).
 * Not here: the Clos assembly (clos.c), the server model (server.c).
 *
 * Two-tier leaf-spine Clos: `tors` ToRs (leaves), each joined to every one of
 * `aggs` spines; hosts_per_tor hosts per ToR. attach=dual pairs ToRs (2 x
 * hosts_per_tor hosts per pair, NICs split); attach=rail groups `rails` ToRs
 * into rail switches (rails x hosts_per_tor hosts per group, NIC i to rail i
 * mod rails).  All hosts are one pod.
 *
 * Parameters: tors=8, aggs=4, hosts_per_tor=4, rails=nics, attach=single,
 * oversub=1 or link_gbps, latency_us=1, and the server options. */
#include "topo-private.h"

bool topo__clos2_racks(topo *t, topo__clos *c, size_t tors, size_t hosts, GError **error)
{
    size_t S = c->attach == TOPO__ATTACH_DUAL ? 2 : c->attach == TOPO__ATTACH_RAIL ? c->rails : 1;
    if (tors < 1 || S < 1 || tors % S != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "tors (%zu) must be a positive multiple of the ToRs per rack (%zu for "
                    "this attach)",
                    tors, S);
        return false;
    }
    c->pods = 1;
    c->cores = 0;
    c->racks = tors / S;
    size_t *rack_pod = g_new0(size_t, c->racks), *rack_hosts = g_new(size_t, c->racks);
    for (size_t r = 0; r < c->racks; r++)
        rack_hosts[r] = topo__spread(hosts, c->racks, r);
    c->rack_pod = rack_pod;
    c->rack_hosts = rack_hosts;
    bool ok = topo__clos_build(t, c, error);
    g_free(rack_pod);
    g_free(rack_hosts);
    return ok;
}

bool topo__build_clos2(topo *t, topo__params *p, GError **error)
{
    size_t tors, hpt;
    topo__clos c = topo__clos_default();
    if (!topo__params_size(p, "tors", 8, &tors, error) ||
        !topo__params_size(p, "aggs", 4, &c.aggs_per_pod, error) ||
        !topo__params_size(p, "hosts_per_tor", 4, &hpt, error) ||
        !topo__server_parse(p, 4, &c.server, error) ||
        !topo__params_size(p, "rails", c.server.nics, &c.rails, error) ||
        !topo__clos_parse_common(p, &c, error) || !topo__params_check_unused(p, error))
        return false;
    return topo__clos2_racks(t, &c, tors, tors * hpt, error);
}
