/* registry.c - spec strings `NAME:key=value,...` -> builders, and the table
 * of builders for `ccsim list`.  Not here: the builders (build_*.c).
 */
#include <string.h>

#include "topo-private.h"

/* impls[i] builds infos[i]. */
typedef struct builder {
    const char *bare_key; /* a first token without '=' is this key */
    bool (*build)(topo *t, topo__params *p, GError **error);
} builder;

#define SERVER_PARAMS                                                                      \
    "gpus=8, nics=4 (1..8), pcie=4, nic_gbps=200, nvlink_gbps=2400 (or nvlink_GBps=300), " \
    "pcie_gbps=252, host_latency_us=0.5"
#define CLOS_PARAMS                                                                       \
    "attach=single|dual|rail, oversub=1 or link_gbps (default: non-blocking), "           \
    "tor_agg_gbps, agg_core_gbps, latency_us=1"

static const topo_builder_info infos[] = {
    {"fat-tree", "k-ary fat-tree (Al-Fares): k pods of k/2 ToR + k/2 agg, (k/2)^2 cores",
      "k=4 (even), hosts_per_tor=k/2, rails=k/2, " CLOS_PARAMS ", " SERVER_PARAMS},
    {"clos2", "two-tier leaf-spine Clos: every ToR to every spine",
      "tors=8, aggs=4, hosts_per_tor=4, rails=nics, " CLOS_PARAMS ", " SERVER_PARAMS},
    {"clos3", "three-tier Clos: pods of ToRs and aggs, agg j of each pod to core plane j",
      "pods=4, tors_per_pod=4, aggs_per_pod=4, cores=8, hosts_per_tor=4, core_mesh=plane|full, "
      "rails=nics, " CLOS_PARAMS ", " SERVER_PARAMS},
    {"torus", "2D/3D torus of switches with wrap-around, hosts on every switch",
      "x=4, y=4, z=1, hosts_per_switch=1, link_gbps=400, latency_us=1, " SERVER_PARAMS},
    {"dragonfly", "dragonfly: fully connected groups of routers, one global link per group pair",
      "groups=a*h+1, routers=4, hosts_per_router=2, global_links=1 (per router), "
      "local_gbps=400, global_gbps=400, latency_us=1, " SERVER_PARAMS},
    {"crux-clos2", "Crux paper's two-layer Clos: 173 ToR, 16 agg, one ToR per host",
      "hosts=256 (2,048 GPUs), tors=173, aggs=16, " CLOS_PARAMS ", " SERVER_PARAMS},
    {"crux-double-sided",
      "Crux paper's double-sided Clos: 6 ToR, 12 agg, 32 core, each host on two ToRs via 8 links",
      "hosts=256 (2,048 GPUs), nics=8, " CLOS_PARAMS ", " SERVER_PARAMS},
    {"lingjun", "the Lingjun trace's three-layer Clos from topo.csv (ip, DSW, PSW, ASW)",
      "path=topo.csv (required), psw=4 (per PSW group), dsw=8, attach=single|dual|rail, "
      "core_mesh=plane|full, oversub=1 or link_gbps, latency_us=1, " SERVER_PARAMS},
    {"lingjun-sample",
      "the lingjun builder on the bundled sample trace's topo.csv, built into the binary",
      "psw=4 (per PSW group), dsw=8, attach=single|dual|rail, core_mesh=plane|full, "
      "oversub=1 or link_gbps, latency_us=1, " SERVER_PARAMS},
    {"file", "a JSON topology (the scenario's object form) or a GraphML file",
      "path (required; .graphml/.xml read as GraphML, else JSON)"},
};

static const builder impls[] = {
    {NULL, topo__build_fat_tree},
    {NULL, topo__build_clos2},
    {NULL, topo__build_clos3},
    {NULL, topo__build_torus},
    {NULL, topo__build_dragonfly},
    {NULL, topo__build_crux_clos2},
    {NULL, topo__build_crux_double_sided},
    {"path", topo__build_lingjun},
    {NULL, topo__build_lingjun_sample},
    {"path", topo__build_file},
};


const topo_builder_info *topo_builders(size_t *n)
{
    G_STATIC_ASSERT(G_N_ELEMENTS(infos) == G_N_ELEMENTS(impls));
    *n = G_N_ELEMENTS(infos);
    return infos;
}

topo *topo_build(const char *spec, const topo_options *opts, GError **error)
{
    g_return_val_if_fail(spec != NULL, NULL);
    const char *colon = strchr(spec, ':');
    g_autofree char *name = colon ? g_strndup(spec, (gsize)(colon - spec)) : g_strdup(spec);
    g_strstrip(name);
    const builder *b = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(infos); i++)
        if (strcmp(infos[i].name, name) == 0)
            b = &impls[i];
    if (!b) {
        g_autoptr(GString) known = g_string_new(NULL);
        for (size_t i = 0; i < G_N_ELEMENTS(infos); i++)
            g_string_append_printf(known, "%s%s", i ? ", " : "", infos[i].name);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "topology '%s': unknown topology '%s' (known: %s)", spec, name, known->str);
        return NULL;
    }
    GError *err = NULL;
    g_autoptr(topo__params) p = topo__params_parse(colon ? colon + 1 : "", b->bare_key, &err);
    g_autoptr(topo) t = p ? topo__new(spec, opts) : NULL;
    if (!p || !b->build(t, p, &err) || !topo__params_check_unused(p, &err) ||
        !topo__finish(t, &err)) {
        g_propagate_prefixed_error(error, err, "topology '%s': ", spec);
        return NULL;
    }
    return g_steal_pointer(&t);
}

topo *topo_from_json_with_options(const cJSON *obj, const char *name, const topo_options *opts,
                                  GError **error)
{
    g_return_val_if_fail(obj != NULL, NULL);
    if (!name)
        name = "inline";
    GError *err = NULL;
    g_autoptr(topo) t = topo__new(name, opts);
    if (!topo__build_json(t, obj, &err) || !topo__finish(t, &err)) {
        g_propagate_prefixed_error(error, err, "topology '%s': ", name);
        return NULL;
    }
    return g_steal_pointer(&t);
}

topo *topo_from_json(const cJSON *obj, const char *name, GError **error)
{
    return topo_from_json_with_options(obj, name, NULL, error);
}
