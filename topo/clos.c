/* clos.c - the Clos assembler behind fat-tree, clos2, clos3, the Crux presets
 * and lingjun.  Not here: each builder's parameters (build_*.c).
 *
 * Racks of hosts, first switches by attachment mode (single / dual / rail),
 * aggregation per pod, an optional core layer.
 *
 * Capacities, when not given: let D be the largest host-facing capacity of
 * any first switch (sum of its NIC links).  Each first switch has one link
 * to every aggregation switch of its pod, so
 *     tor_agg = D / (aggs_per_pod * oversub).
 * Aggregation switches are non-blocking upward: with A the largest number
 * of first switches in a pod and U the core links per aggregation switch
 * (cores / aggs_per_pod in planes, cores in a full mesh),
 *     agg_core = A * tor_agg / U.
 */
#include <string.h>

#include "topo-private.h"

topo__clos topo__clos_default(void)
{
    return (topo__clos){
        .pods = 1,
        .attach = TOPO__ATTACH_SINGLE,
        .rails = 0,
        .aggs_per_pod = 1,
        .oversub = 1.0,
        .latency_s = ccs_us_to_s(1.0),
        .server = topo__server_default(),
    };
}

bool topo__attach_parse(const char *s, topo__attach *out, GError **error)
{
    if (strcmp(s, "single") == 0)
        *out = TOPO__ATTACH_SINGLE;
    else if (strcmp(s, "dual") == 0)
        *out = TOPO__ATTACH_DUAL;
    else if (strcmp(s, "rail") == 0)
        *out = TOPO__ATTACH_RAIL;
    else {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "attach must be single, dual or rail, got '%s'", s);
        return false;
    }
    return true;
}

bool topo__clos_parse_common(topo__params *p, topo__clos *c, GError **error)
{
    double lat_us, link_gbps, ta_gbps, ac_gbps;
    if (!topo__attach_parse(topo__params_string(p, "attach", "single"), &c->attach, error) ||
        !topo__params_double(p, "latency_us", c->latency_s * 1e6, &lat_us, error) ||
        !topo__params_double(p, "oversub", c->oversub, &c->oversub, error) ||
        !topo__params_double(p, "link_gbps", 0, &link_gbps, error) ||
        !topo__params_double(p, "tor_agg_gbps", link_gbps, &ta_gbps, error) ||
        !topo__params_double(p, "agg_core_gbps", link_gbps, &ac_gbps, error))
        return false;
    if (topo__params_has(p, "oversub") && topo__params_has(p, "link_gbps")) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "give link_gbps or oversub, not both");
        return false;
    }
    if (topo__params_has(p, "oversub") && !ccs_positive_finite(c->oversub)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "oversub must be positive");
        return false;
    }
    if ((topo__params_has(p, "link_gbps") || topo__params_has(p, "tor_agg_gbps") ||
         topo__params_has(p, "agg_core_gbps")) &&
        ((topo__params_has(p, "link_gbps") && link_gbps <= 0) ||
         (topo__params_has(p, "tor_agg_gbps") && ta_gbps <= 0) ||
         (topo__params_has(p, "agg_core_gbps") && ac_gbps <= 0))) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "link speeds must be positive");
        return false;
    }
    c->latency_s = ccs_us_to_s(lat_us);
    c->tor_agg_Bps = ccs_gbps_to_Bps(ta_gbps);
    c->agg_core_Bps = ccs_gbps_to_Bps(ac_gbps);
    return true;
}

/* First switches per rack under an attachment mode. */
static size_t rack_switches(const topo__clos *c)
{
    switch (c->attach) {
    case TOPO__ATTACH_SINGLE:
        return 1;
    case TOPO__ATTACH_DUAL:
        return 2;
    case TOPO__ATTACH_RAIL:
        return c->rails;
    }
    return 1;
}

/* The first switch (0..S-1 within the rack) of NIC i of N. */
static size_t nic_switch(const topo__clos *c, size_t i, size_t N)
{
    switch (c->attach) {
    case TOPO__ATTACH_SINGLE:
        return 0;
    case TOPO__ATTACH_DUAL:
        return i * 2 / N;
    case TOPO__ATTACH_RAIL:
        return i % c->rails;
    }
    return 0;
}

static bool check_plan(const topo__clos *c, GError **error)
{
    size_t N = c->server.nics;
    if (c->attach == TOPO__ATTACH_DUAL && N < 2) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "attach=dual needs at least 2 NICs per host, got nics=%zu", N);
        return false;
    }
    if (c->attach == TOPO__ATTACH_RAIL && c->rails < 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "rails must be at least 1");
        return false;
    }
    if (c->aggs_per_pod < 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "need at least one aggregation switch");
        return false;
    }
    if (c->cores > 0 && !c->core_full_mesh && c->cores % c->aggs_per_pod != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "cores (%zu) must be a multiple of the aggregation switches per pod (%zu)",
                    c->cores, c->aggs_per_pod);
        return false;
    }
    if (c->cores == 0 && c->pods > 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "several pods need a core layer");
        return false;
    }
    if (!ccs_positive_finite(c->oversub)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "oversub must be positive");
        return false;
    }
    if (!isfinite(c->latency_s) || c->latency_s < 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "latency_us must be >= 0");
        return false;
    }
    size_t total = 0;
    for (size_t r = 0; r < c->racks && total <= TOPO__MAX_HOSTS; r++)
        total += MIN(c->rack_hosts[r], TOPO__MAX_HOSTS + 1);
    if (total > TOPO__MAX_HOSTS) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "more than %zu hosts", TOPO__MAX_HOSTS);
        return false;
    }
    /* switch-switch cables: first switches x aggs per pod, aggs x core links */
    double cables = (double)c->racks * (double)rack_switches(c) * (double)c->aggs_per_pod +
                    (double)c->pods * (double)c->aggs_per_pod * (double)MAX(c->cores, 1);
    if (cables > 1e7) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "more than 10^7 switch links");
        return false;
    }
    if (total == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "no hosts");
        return false;
    }
    return true;
}

/* Capacities of the switch tiers, given or derived (see the file header). */
static void derive_caps(const topo__clos *c, double *tor_agg, double *agg_core)
{
    size_t S = rack_switches(c), N = c->server.nics;
    double D = 0;
    for (size_t r = 0; r < c->racks; r++)
        for (size_t s = 0; s < S; s++) {
            size_t nics = 0;
            for (size_t i = 0; i < N; i++)
                nics += nic_switch(c, i, N) == s;
            D = MAX(D, (double)(nics * c->rack_hosts[r]) * c->server.nic_Bps);
        }
    *tor_agg = c->tor_agg_Bps > 0 ? c->tor_agg_Bps : D / ((double)c->aggs_per_pod * c->oversub);
    g_autofree size_t *pod_first = g_new0(size_t, c->pods);
    size_t A = 0;
    for (size_t r = 0; r < c->racks; r++) {
        pod_first[c->rack_pod[r]] += S;
        A = MAX(A, pod_first[c->rack_pod[r]]);
    }
    size_t U = c->core_full_mesh ? c->cores : (c->cores > 0 ? c->cores / c->aggs_per_pod : 1);
    *agg_core = c->agg_core_Bps > 0 ? c->agg_core_Bps : (double)A * *tor_agg / (double)U;
}

/* Racks: their first switches (appended to pod_sw[pod]) and their hosts
 * with one cable per NIC. */
static bool build_racks(topo *t, const topo__clos *c, GArray **pod_sw, GError **error)
{
    size_t S = rack_switches(c), N = c->server.nics, host_i = 0;
    bool three = c->cores > 0;
    g_autofree uint32_t *sw = g_new(uint32_t, S);
    for (size_t r = 0; r < c->racks; r++) {
        size_t pod = c->rack_pod[r];
        g_autofree char *rack = c->rack_name ? g_strdup(c->rack_name[r])
                                : three      ? g_strdup_printf("pod%zu/rack%zu", pod, r)
                                             : g_strdup_printf("rack%zu", r);
        for (size_t s = 0; s < S; s++) {
            g_autofree char *nm = c->attach == TOPO__ATTACH_RAIL ? g_strdup_printf("%s/rail%zu", rack, s)
                                  : c->attach == TOPO__ATTACH_DUAL
                                      ? g_strdup_printf("%s/tor%c", rack, (int)('a' + s))
                                      : g_strdup_printf("%s/tor", rack);
            sw[s] = topo__node_add(t, c->attach == TOPO__ATTACH_RAIL ? TOPO_NODE_RAIL : TOPO_NODE_TOR,
                                   nm, TOPO__NONE);
            g_array_append_val(pod_sw[pod], sw[s]);
        }
        for (size_t k = 0; k < c->rack_hosts[r]; k++, host_i++) {
            g_autofree char *hn =
                c->host_name ? g_strdup(c->host_name[host_i]) : g_strdup_printf("h%zu", host_i);
            size_t h;
            if (!topo__host_add(t, hn, &c->server, &h, error))
                return false;
            topo__host *hp = topo__host_get(t, h);
            hp->pod = (uint32_t)pod;
            for (size_t i = 0; i < N; i++)
                topo__cable_add(t, hp->nic_node[i], sw[nic_switch(c, i, N)], c->server.nic_Bps,
                                c->latency_s, TOPO_TIER_HOST_TOR);
        }
    }
    return true;
}

/* Aggregation switches of every pod joined to the pod's first switches,
 * then the core layer. */
static void build_upper(topo *t, const topo__clos *c, GArray **pod_sw, double tor_agg,
                        double agg_core)
{
    bool three = c->cores > 0;
    g_autofree uint32_t *agg = g_new(uint32_t, c->pods * c->aggs_per_pod);
    for (size_t p = 0; p < c->pods; p++)
        for (size_t j = 0; j < c->aggs_per_pod; j++) {
            g_autofree char *nm = c->pod_name ? g_strdup_printf("%s/agg%zu", c->pod_name[p], j)
                                  : three     ? g_strdup_printf("pod%zu/agg%zu", p, j)
                                              : g_strdup_printf("agg%zu", j);
            uint32_t a = topo__node_add(t, TOPO_NODE_AGG, nm, TOPO__NONE);
            agg[p * c->aggs_per_pod + j] = a;
            for (size_t s = 0; s < pod_sw[p]->len; s++)
                topo__cable_add(t, g_array_index(pod_sw[p], uint32_t, s), a, tor_agg, c->latency_s,
                                TOPO_TIER_TOR_AGG);
        }
    if (!three)
        return;
    size_t U = c->core_full_mesh ? c->cores : c->cores / c->aggs_per_pod;
    g_autofree uint32_t *core = g_new(uint32_t, c->cores);
    for (size_t x = 0; x < c->cores; x++) {
        g_autofree char *nm = g_strdup_printf("core%zu", x);
        core[x] = topo__node_add(t, TOPO_NODE_CORE, nm, TOPO__NONE);
    }
    for (size_t p = 0; p < c->pods; p++)
        for (size_t j = 0; j < c->aggs_per_pod; j++) {
            size_t first = c->core_full_mesh ? 0 : j * U;
            for (size_t x = first; x < first + U; x++)
                topo__cable_add(t, agg[p * c->aggs_per_pod + j], core[x], agg_core, c->latency_s,
                                TOPO_TIER_AGG_CORE);
        }
}

bool topo__clos_build(topo *t, const topo__clos *c, GError **error)
{
    if (!check_plan(c, error))
        return false;
    double tor_agg, agg_core;
    derive_caps(c, &tor_agg, &agg_core);
    GArray **pod_sw = g_new0(GArray *, c->pods);
    for (size_t p = 0; p < c->pods; p++)
        pod_sw[p] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    bool ok = build_racks(t, c, pod_sw, error);
    if (ok)
        build_upper(t, c, pod_sw, tor_agg, agg_core);
    for (size_t p = 0; p < c->pods; p++)
        g_array_free(pod_sw[p], TRUE);
    g_free(pod_sw);
    return ok;
}
