/* build_torus.c - the 2D/3D torus builder.
 * Not here: paths (paths.c), the server model (server.c).
 *
 * A 2D or 3D torus of switches (x * y * z, wrap-around in every dimension of
 * size >= 3; a dimension of size 2 has one link between its two switches,
 * size 1 none), hosts_per_switch hosts on every switch with all their NICs on
 * it.  Switch-switch links are tier "other"; there are no pods (every host is
 * in pod 0).
 *
 * Parameters: x=4, y=4, z=1, hosts_per_switch=1, link_gbps=400,
 * latency_us=1, server options. */
#include "topo-private.h"

bool topo__build_torus(topo *t, topo__params *p, GError **error)
{
    size_t dim[3], hps;
    double link_gbps, lat_us;
    topo__server server;
    if (!topo__params_size(p, "x", 4, &dim[0], error) ||
        !topo__params_size(p, "y", 4, &dim[1], error) ||
        !topo__params_size(p, "z", 1, &dim[2], error) ||
        !topo__params_size(p, "hosts_per_switch", 1, &hps, error) ||
        !topo__params_double(p, "link_gbps", 400, &link_gbps, error) ||
        !topo__params_double(p, "latency_us", 1, &lat_us, error) ||
        !topo__server_parse(p, 4, &server, error) || !topo__params_check_unused(p, error))
        return false;
    size_t n = 0, hosts = 0;
    if (dim[0] < 1 || dim[1] < 1 || dim[2] < 1 || hps < 1 ||
        !g_size_checked_mul(&n, dim[0], dim[1]) || !g_size_checked_mul(&n, n, dim[2]) ||
        n > 100000 || !g_size_checked_mul(&hosts, n, hps) || hosts > TOPO__MAX_HOSTS) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "x, y, z and hosts_per_switch must be at least 1 (and x*y*z <= 100000, "
                    "hosts <= %zu)", TOPO__MAX_HOSTS);
        return false;
    }
    if (link_gbps <= 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "link_gbps must be positive");
        return false;
    }
    double cap = ccs_gbps_to_Bps(link_gbps), lat = ccs_us_to_s(lat_us);
    uint32_t *sw = g_new(uint32_t, n);
    size_t host_i = 0;
    bool ok = true;
    for (size_t v = 0; v < n && ok; v++) {
        size_t c0 = v % dim[0], c1 = v / dim[0] % dim[1], c2 = v / (dim[0] * dim[1]);
        g_autofree char *nm = dim[2] > 1 ? g_strdup_printf("sw%zu.%zu.%zu", c0, c1, c2)
                                         : g_strdup_printf("sw%zu.%zu", c0, c1);
        sw[v] = topo__node_add(t, TOPO_NODE_SWITCH, nm, TOPO__NONE);
        for (size_t k = 0; k < hps && ok; k++, host_i++) {
            g_autofree char *hn = g_strdup_printf("h%zu", host_i);
            size_t h;
            ok = topo__host_add(t, hn, &server, &h, error);
            if (!ok)
                break;
            topo__host *hp = topo__host_get(t, h);
            for (size_t i = 0; i < server.nics; i++)
                topo__cable_add(t, hp->nic_node[i], sw[v], server.nic_Bps, lat,
                                TOPO_TIER_HOST_TOR);
        }
    }
    size_t stride[3] = {1, dim[0], dim[0] * dim[1]};
    for (size_t v = 0; v < n && ok; v++) {
        size_t c[3] = {v % dim[0], v / dim[0] % dim[1], v / (dim[0] * dim[1])};
        for (int d = 0; d < 3; d++) {
            if (dim[d] < 2 || (dim[d] == 2 && c[d] == 1))
                continue;
            size_t next = (c[d] + 1) % dim[d];
            size_t u = v - c[d] * stride[d] + next * stride[d];
            topo__cable_add(t, sw[v], sw[u], cap, lat, TOPO_TIER_OTHER);
        }
    }
    g_free(sw);
    return ok;
}
