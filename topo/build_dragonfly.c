/* build_dragonfly.c - the dragonfly builder (Kim et al., ISCA'08).
 * Not here: paths (paths.c), the server model (server.c).
 *
 * A dragonfly (Kim et al., ISCA'08): `groups` groups of `routers` routers,
 * the routers of a group fully connected by local links, hosts_per_router
 * hosts on each router, and every pair of groups joined by one global link.
 * Each router has global_links global ports (h); group i uses its ports in
 * order (router = port / h) for its pairs (i, j), j ascending, so the
 * canonical balanced dragonfly is groups = routers*h + 1.  Links between
 * routers are tier "other"; a group is a pod.
 *
 * Parameters: routers=4, global_links=1, groups=routers*global_links+1
 * (2 <= groups <= routers*global_links+1), hosts_per_router=2,
 * local_gbps=400, global_gbps=400, latency_us=1, server options. */
#include "topo-private.h"

bool topo__build_dragonfly(topo *t, topo__params *p, GError **error)
{
    size_t a, h, g, hpr;
    double local_gbps, global_gbps, lat_us;
    topo__server server;
    if (!topo__params_size(p, "routers", 4, &a, error) ||
        !topo__params_size(p, "global_links", 1, &h, error) ||
        !topo__params_size(p, "groups", a * h + 1, &g, error) ||
        !topo__params_size(p, "hosts_per_router", 2, &hpr, error) ||
        !topo__params_double(p, "local_gbps", 400, &local_gbps, error) ||
        !topo__params_double(p, "global_gbps", 400, &global_gbps, error) ||
        !topo__params_double(p, "latency_us", 1, &lat_us, error) ||
        !topo__server_parse(p, 4, &server, error) || !topo__params_check_unused(p, error))
        return false;
    if (a < 1 || h < 1 || hpr < 1 || a > 1000 || h > 1000 || hpr > 1000) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "routers, global_links and hosts_per_router must be 1..1000");
        return false;
    }
    if (g < 2 || g > a * h + 1 || g > 1000 || g * a * hpr > TOPO__MAX_HOSTS) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "groups must be 2..routers*global_links+1 = %zu (one global link per "
                    "group pair; at most 1000 groups and %zu hosts), got %zu",
                    a * h + 1, TOPO__MAX_HOSTS, g);
        return false;
    }
    if (local_gbps <= 0 || global_gbps <= 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "link speeds must be positive");
        return false;
    }
    double lat = ccs_us_to_s(lat_us);
    uint32_t *r = g_new(uint32_t, g * a);
    size_t host_i = 0;
    bool ok = true;
    for (size_t gi = 0; gi < g && ok; gi++)
        for (size_t ri = 0; ri < a && ok; ri++) {
            g_autofree char *nm = g_strdup_printf("g%zu/r%zu", gi, ri);
            r[gi * a + ri] = topo__node_add(t, TOPO_NODE_SWITCH, nm, TOPO__NONE);
            for (size_t k = 0; k < hpr && ok; k++, host_i++) {
                g_autofree char *hn = g_strdup_printf("h%zu", host_i);
                size_t hh;
                ok = topo__host_add(t, hn, &server, &hh, error);
                if (!ok)
                    break;
                topo__host *hp = topo__host_get(t, hh);
                hp->pod = (uint32_t)gi;
                for (size_t i = 0; i < server.nics; i++)
                    topo__cable_add(t, hp->nic_node[i], r[gi * a + ri], server.nic_Bps, lat,
                                    TOPO_TIER_HOST_TOR);
            }
        }
    for (size_t gi = 0; gi < g && ok; gi++)
        for (size_t x = 0; x < a; x++)
            for (size_t y = x + 1; y < a; y++)
                topo__cable_add(t, r[gi * a + x], r[gi * a + y], ccs_gbps_to_Bps(local_gbps), lat,
                                TOPO_TIER_OTHER);
    size_t *port = g_new0(size_t, g);
    for (size_t i = 0; i < g && ok; i++)
        for (size_t j = i + 1; j < g; j++) {
            uint32_t ri = r[i * a + port[i]++ / h], rj = r[j * a + port[j]++ / h];
            topo__cable_add(t, ri, rj, ccs_gbps_to_Bps(global_gbps), lat, TOPO_TIER_OTHER);
        }
    g_free(port);
    g_free(r);
    return ok;
}
