/* test_topo.c - suite "topo" (topo/topo.h): builders, server model, errors.
 * Not here: paths (test_topo_paths.c), import/export (test_topo_io.c).
 *
 * Also the description and the suite's main.  Expected numbers are derived
 * by hand in the comment above each case.
 */
#include <igraph.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/ccs.h"
#include "topo/topo.h"

#include "test_topo.h"

static size_t count_kind(const topo *t, topo_node_kind k)
{
    size_t n = 0;
    for (uint32_t v = 0; v < topo_node_count(t); v++)
        n += topo_node_get_kind(t, v) == k;
    return n;
}

/* Fat-tree k=4 (Al-Fares): k pods x k/2 = 8 ToRs, 8 aggs, (k/2)^2 = 4
 * cores: 20 switches; k/2 = 2 hosts per ToR: 16 hosts.  Server model: 8 GPUs
 * + 1 NVSwitch + 4 PCIe + 4 NICs = 17 nodes per host -> 16*17 + 20 = 292.
 * Links per host: NVLink 2*8 = 16, GPU<->PCIe 2*8 = 16, PCIe<->NIC 2*4 = 8,
 * NIC<->ToR 2*4 = 8: 48 -> 768; ToR-agg 4 pods * 2*2 cables * 2 = 32;
 * agg-core 8 aggs * 2 cores * 2 = 32; total 832. */
static void test_topo_fat_tree_k4_counts(void)
{
    g_autoptr(topo) t = build_ok("fat-tree:k=4");
    CU_ASSERT_EQUAL(topo_host_count(t), 16);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_TOR), 8);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_AGG), 8);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_CORE), 4);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_GPU), 128);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_NIC), 64);
    CU_ASSERT_EQUAL(topo_node_count(t), 292);
    CU_ASSERT_EQUAL(topo_link_count(t), 832);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_NVLINK), 256);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_PCIE), 384);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_HOST_TOR), 128);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_TOR_AGG), 32);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_AGG_CORE), 32);
}

/* k=8: 8 pods * 4 ToRs * 4 hosts = 128 hosts; 32 ToR + 32 agg + 16 core = 80
 * switches; ToR-agg cables 8*4*4 = 128, agg-core 32*4 = 128. */
static void test_topo_fat_tree_k8_counts(void)
{
    g_autoptr(topo) t = build_ok("fat-tree:k=8,link_gbps=400");
    CU_ASSERT_EQUAL(topo_host_count(t), 128);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_TOR) + count_kind(t, TOPO_NODE_AGG) +
                        count_kind(t, TOPO_NODE_CORE), 80);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_CORE), 16);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_TOR_AGG), 256);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_AGG_CORE), 256);
    /* link_gbps=400 -> 50e9 B/s on every switch-switch link */
    for (uint32_t id = 0; id < topo_link_count(t); id++)
        if (topo_link_get(t, id)->tier == TOPO_TIER_AGG_CORE)
            TEST_ASSERT_CLOSE(topo_link_get(t, id)->cap_Bps, 50e9, 1e-12);
}

/* Default server (Crux testbed host): 8 GPUs, 4 PCIe switches, 4 NICs; GPU g
 * sits on PCIe switch floor(g*4/8) = g/2, which carries NIC g/2.  PCIe Gen4
 * x16 = 252 Gbps = 31.5e9 B/s; NVLink 300 GB/s = 3e11 B/s per direction;
 * NIC 200 Gbps = 25e9 B/s. */
static void test_topo_server_model(void)
{
    g_autoptr(topo) t = build_ok("clos2:tors=1,aggs=1,hosts_per_tor=2");
    CU_ASSERT_EQUAL(topo_host_gpu_count(t, 0), 8);
    CU_ASSERT_EQUAL(topo_host_nic_count(t, 0), 4);
    CU_ASSERT_EQUAL(topo_host_pcie_count(t, 0), 4);
    for (size_t g = 0; g < 8; g++) {
        CU_ASSERT_EQUAL(topo_gpu_pcie(t, 1, g), g / 2);
        CU_ASSERT_EQUAL(topo_gpu_nic(t, 1, g), g / 2);
        const uint32_t *l = NULL;
        CU_ASSERT_EQUAL_FATAL(topo_path_gpu_to_nic(t, 1, g, &l), 2);
        CU_ASSERT_EQUAL(topo_link_get(t, l[0])->src, topo_host_gpu_node(t, 1, g));
        CU_ASSERT_EQUAL(topo_link_get(t, l[0])->dst, topo_host_pcie_node(t, 1, g / 2));
        CU_ASSERT_EQUAL(topo_link_get(t, l[1])->src, topo_host_pcie_node(t, 1, g / 2));
        CU_ASSERT_EQUAL(topo_link_get(t, l[1])->dst, topo_host_nic_node(t, 1, g / 2));
        CU_ASSERT_EQUAL(topo_link_get(t, l[0])->tier, TOPO_TIER_PCIE);
        TEST_ASSERT_CLOSE(topo_link_get(t, l[0])->cap_Bps, 31.5e9, 1e-12);
        CU_ASSERT_EQUAL_FATAL(topo_path_nic_to_gpu(t, 1, g, &l), 2);
        CU_ASSERT_EQUAL(topo_link_get(t, l[0])->src, topo_host_nic_node(t, 1, g / 2));
        CU_ASSERT_EQUAL(topo_link_get(t, l[1])->dst, topo_host_gpu_node(t, 1, g));
    }
    const uint32_t *l = NULL;
    CU_ASSERT_EQUAL_FATAL(topo_path_nvlink(t, 0, 2, 7, &l), 2);
    CU_ASSERT_EQUAL(topo_link_get(t, l[0])->src, topo_host_gpu_node(t, 0, 2));
    CU_ASSERT_EQUAL(topo_link_get(t, l[0])->dst, topo_host_nvswitch_node(t, 0));
    CU_ASSERT_EQUAL(topo_link_get(t, l[1])->dst, topo_host_gpu_node(t, 0, 7));
    CU_ASSERT_EQUAL(topo_link_get(t, l[1])->tier, TOPO_TIER_NVLINK);
    TEST_ASSERT_CLOSE(topo_link_get(t, l[1])->cap_Bps, 3e11, 1e-12);
    CU_ASSERT_EQUAL(topo_path_nvlink(t, 0, 3, 3, &l), 0);
    /* NIC link: 200 Gbps = 25e9 B/s, latency 1 us */
    GError *err = NULL;
    g_autoptr(GArray) p = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    CU_ASSERT_TRUE(topo_path_links(t, topo_host_nic_node(t, 0, 0), topo_host_nic_node(t, 1, 0), 0,
                                   p, &err));
    TEST_ASSERT_NO_ERROR(err);
    TEST_ASSERT_CLOSE(topo_link_get(t, g_array_index(p, uint32_t, 0))->cap_Bps, 25e9, 1e-12);
    TEST_ASSERT_CLOSE(topo_link_get(t, g_array_index(p, uint32_t, 0))->latency_s, 1e-6, 1e-12);
    CU_ASSERT_STRING_EQUAL(topo_node_name(t, topo_host_gpu_node(t, 1, 3)), "h1/gpu3");
    CU_ASSERT_EQUAL(topo_node_host(t, topo_host_gpu_node(t, 1, 3)), 1);
    CU_ASSERT_EQUAL(topo_node_index(t, topo_host_gpu_node(t, 1, 3)), 3);
    CU_ASSERT_EQUAL(topo_node_index(t, topo_host_nic_node(t, 1, 2)), 2);
    CU_ASSERT_EQUAL(topo_node_index(t, topo_host_pcie_node(t, 0, 1)), 1);
    /* one ToR: every NIC's first switch is it, a GPU has none */
    uint32_t tor = topo_nic_first_switch(t, topo_host_nic_node(t, 0, 0));
    CU_ASSERT_EQUAL(topo_node_get_kind(t, tor), TOPO_NODE_TOR);
    CU_ASSERT_EQUAL(topo_node_host(t, tor), SIZE_MAX);
    CU_ASSERT_EQUAL(topo_node_index(t, tor), SIZE_MAX);
    CU_ASSERT_EQUAL(topo_nic_first_switch(t, topo_host_nic_node(t, 1, 3)), tor);
    CU_ASSERT_EQUAL(topo_nic_first_switch(t, topo_host_gpu_node(t, 1, 3)), TOPO_NODE_NONE);
}

/* Other NIC counts.  nics=8 with 4 PCIe switches: switch p carries GPUs 2p,
 * 2p+1 and NICs 2p, 2p+1, so GPU g's nearest NIC is g.  nics=1: one PCIe
 * switch is built (P = min(4, G, N) = 1) and every GPU uses NIC 0.  nics=2:
 * P = 2, GPUs 0-3 -> NIC 0, GPUs 4-7 -> NIC 1.  nvlink_GBps=450 -> 4.5e11 B/s;
 * pcie_gbps=512 -> 64e9 B/s. */
static void test_topo_server_variants(void)
{
    g_autoptr(topo) t8 = build_ok("clos2:tors=1,aggs=1,hosts_per_tor=1,nics=8");
    for (size_t g = 0; g < 8; g++)
        CU_ASSERT_EQUAL(topo_gpu_nic(t8, 0, g), g);
    g_autoptr(topo) t1 = build_ok("clos2:tors=1,aggs=1,hosts_per_tor=1,nics=1");
    CU_ASSERT_EQUAL(topo_host_pcie_count(t1, 0), 1);
    for (size_t g = 0; g < 8; g++)
        CU_ASSERT_EQUAL(topo_gpu_nic(t1, 0, g), 0);
    g_autoptr(topo) t2 =
        build_ok("clos2:tors=1,aggs=1,hosts_per_tor=1,nics=2,nvlink_GBps=450,pcie_gbps=512");
    for (size_t g = 0; g < 8; g++)
        CU_ASSERT_EQUAL(topo_gpu_nic(t2, 0, g), g / 4);
    const uint32_t *l = NULL;
    topo_path_nvlink(t2, 0, 0, 1, &l);
    TEST_ASSERT_CLOSE(topo_link_get(t2, l[0])->cap_Bps, 4.5e11, 1e-12);
    topo_path_gpu_to_nic(t2, 0, 0, &l);
    TEST_ASSERT_CLOSE(topo_link_get(t2, l[1])->cap_Bps, 64e9, 1e-12);
}

/* clos2 defaults: 8 ToRs x 4 hosts = 32 hosts; 8 + 4 = 12 switches; every
 * ToR to every agg: 32 cables = 64 links.  Uplink speed for oversub=1: a ToR
 * faces 4 hosts x 4 NICs x 200 Gbps = 3200 Gbps over 4 uplinks = 800 Gbps
 * = 100e9 B/s; oversub=2 halves it to 50e9 B/s.  Paths between ToRs: one
 * per spine = 4. */
static void test_topo_clos2(void)
{
    g_autoptr(topo) t = build_ok("clos2");
    CU_ASSERT_EQUAL(topo_host_count(t), 32);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_TOR), 8);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_AGG), 4);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_TOR_AGG), 64);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_AGG_CORE), 0);
    CU_ASSERT_EQUAL(paths_between_hosts(t, 0, 4), 4);
    topo_stats s = topo_stats_get(t);
    TEST_ASSERT_CLOSE(s.cap_Bps_by_tier[TOPO_TIER_TOR_AGG], 64 * 100e9, 1e-12);
    TEST_ASSERT_CLOSE(s.tor_oversub, 1.0, 1e-12);
    g_autoptr(topo) o = build_ok("clos2:oversub=2");
    for (uint32_t id = 0; id < topo_link_count(o); id++)
        if (topo_link_get(o, id)->tier == TOPO_TIER_TOR_AGG)
            TEST_ASSERT_CLOSE(topo_link_get(o, id)->cap_Bps, 50e9, 1e-12);
    TEST_ASSERT_CLOSE(topo_stats_get(o).tor_oversub, 2.0, 1e-12);
    /* bisection: hosts 0..15 are ToRs 0..3; their uplinks carry 4 ToRs x 4
     * x 50e9 = 800e9 B/s, less than their NICs' 16 x 4 x 25e9 = 1600e9. */
    double bis = 0;
    GError *err = NULL;
    CU_ASSERT_TRUE(topo_bisection_Bps(o, &bis, &err));
    TEST_ASSERT_NO_ERROR(err);
    TEST_ASSERT_CLOSE(bis, 800e9, 1e-9);
}

/* clos3 defaults: 4 pods x (4 ToR + 4 agg) + 8 cores = 40 switches, 4 x 4 x 4
 * = 64 hosts; agg j of each pod to plane j = cores 2j, 2j+1: 16 aggs x 2 =
 * 32 cables = 64 links.  Paths between pods: 4 aggs x 2 cores = 8; with
 * core_mesh=full every agg joins all 8 cores (16 x 8 = 128 cables) and every
 * core reaches all 4 aggs of the far pod: 4 x 8 x 4 = 128 paths, capped at
 * max_paths = 16 by default, all 128 with max_paths = 256; within a pod
 * across ToRs: 4 (one per agg). */
static void test_topo_clos3(void)
{
    g_autoptr(topo) t = build_ok("clos3");
    CU_ASSERT_EQUAL(topo_host_count(t), 64);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_TOR) + count_kind(t, TOPO_NODE_AGG) +
                        count_kind(t, TOPO_NODE_CORE), 40);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_AGG_CORE), 64);
    CU_ASSERT_EQUAL(paths_between_hosts(t, 0, 16), 8);
    CU_ASSERT_EQUAL(paths_between_hosts(t, 0, 4), 4);
    g_autoptr(topo) f = build_ok("clos3:core_mesh=full");
    CU_ASSERT_EQUAL(count_tier(f, TOPO_TIER_AGG_CORE), 256);
    CU_ASSERT_EQUAL(paths_between_hosts(f, 0, 16), 16);
    topo_options o = topo_options_default();
    CU_ASSERT_EQUAL(o.max_paths, 16);
    o.max_paths = 256;
    GError *err = NULL;
    g_autoptr(topo) f64 = topo_build("clos3:core_mesh=full", &o, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_EQUAL(paths_between_hosts(f64, 0, 16), 128);
}

/* Rail attachment, fat-tree k=4: a pod's k/2 = 2 ToRs become rail switches
 * and its 4 hosts share them; NIC i goes to rail i mod 2.  NIC 0 of h0 to
 * NIC 0 of h3 (same rail): 1 path NIC -> rail -> NIC, only host_tor links,
 * off the spine.  NIC 0 to NIC 2 (rail 0 again): the same.  NIC 0 to NIC 1
 * (rails 0 and 1): up through the pod's 2 aggs: 2 paths of 4 links.
 * clos2 with attach=rail and nics=4: groups of 4 rails with 4 x 4 = 16
 * hosts; h0 NIC 3 to h15 NIC 3: 1 path of 2 links. */
static void test_topo_rail(void)
{
    g_autoptr(topo) t = build_ok("fat-tree:k=4,attach=rail");
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_RAIL), 8);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_TOR), 0);
    GError *err = NULL;
    g_autoptr(GArray) p = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    uint32_t a0 = topo_host_nic_node(t, 0, 0);
    CU_ASSERT_EQUAL(topo_path_count(t, a0, topo_host_nic_node(t, 3, 0), &err), 1);
    CU_ASSERT_TRUE(topo_path_links(t, a0, topo_host_nic_node(t, 3, 0), 0, p, &err));
    CU_ASSERT_EQUAL_FATAL(p->len, 2);
    for (guint i = 0; i < p->len; i++)
        CU_ASSERT_EQUAL(topo_link_get(t, g_array_index(p, uint32_t, i))->tier, TOPO_TIER_HOST_TOR);
    CU_ASSERT_EQUAL(topo_path_count(t, a0, topo_host_nic_node(t, 3, 2), &err), 1);
    CU_ASSERT_EQUAL(topo_path_count(t, a0, topo_host_nic_node(t, 3, 1), &err), 2);
    CU_ASSERT_TRUE(topo_path_links(t, a0, topo_host_nic_node(t, 3, 1), 1, p, &err));
    CU_ASSERT_EQUAL(p->len, 4);
    TEST_ASSERT_NO_ERROR(err);
    g_autoptr(topo) c = build_ok("clos2:attach=rail");
    CU_ASSERT_EQUAL(topo_path_count(c, topo_host_nic_node(c, 0, 3), topo_host_nic_node(c, 15, 3),
                                    &err), 1);
    CU_ASSERT_EQUAL(topo_path_count(c, topo_host_nic_node(c, 0, 3), topo_host_nic_node(c, 16, 3),
                                    &err), 4);
    TEST_ASSERT_NO_ERROR(err);
}

/* The first switch of each NIC of host h (via its one-link path to itself
 * is not available, so read the NIC's uplink from a path to another host). */
static uint32_t nic_switch(topo *t, size_t h, size_t i, size_t other)
{
    GError *err = NULL;
    g_autoptr(GArray) p = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    CU_ASSERT_TRUE(topo_path_links(t, topo_host_nic_node(t, h, i), topo_host_nic_node(t, other, 0),
                                   0, p, &err));
    TEST_ASSERT_NO_ERROR(err);
    return topo_link_get(t, g_array_index(p, uint32_t, 0))->dst;
}

/* Dual attachment.  fat-tree k=8, attach=dual: the 4 ToRs of a pod form 2
 * pairs; each host has NICs 0,1 on ToR a and NICs 2,3 on ToR b.
 * crux-double-sided: 847 hosts on 3 ToR pairs (283, 282, 282), 8 NICs each,
 * 4 per ToR; 6 ToR, 12 agg, 32 core; hosts 282 and 283 are on different
 * pairs, so in different pods. */
static void test_topo_dual(void)
{
    g_autoptr(topo) t = build_ok("fat-tree:k=8,attach=dual");
    CU_ASSERT_EQUAL(topo_host_count(t), 128);
    for (size_t h = 0; h < 128; h += 13) {
        uint32_t s0 = nic_switch(t, h, 0, (h + 64) % 128), s1 = nic_switch(t, h, 1, (h + 64) % 128);
        uint32_t s2 = nic_switch(t, h, 2, (h + 64) % 128), s3 = nic_switch(t, h, 3, (h + 64) % 128);
        CU_ASSERT_EQUAL(s0, s1);
        CU_ASSERT_EQUAL(s2, s3);
        CU_ASSERT_NOT_EQUAL(s0, s2);
        CU_ASSERT_EQUAL(topo_node_get_kind(t, s0), TOPO_NODE_TOR);
        CU_ASSERT_EQUAL(topo_node_get_kind(t, s2), TOPO_NODE_TOR);
    }
    g_autoptr(topo) c = build_ok("crux-double-sided:hosts=847");
    CU_ASSERT_EQUAL(topo_host_count(c), 847);
    CU_ASSERT_EQUAL(count_kind(c, TOPO_NODE_TOR), 6);
    CU_ASSERT_EQUAL(count_kind(c, TOPO_NODE_AGG), 12);
    CU_ASSERT_EQUAL(count_kind(c, TOPO_NODE_CORE), 32);
    CU_ASSERT_EQUAL(topo_host_nic_count(c, 0), 8);
    uint32_t a = nic_switch(c, 0, 0, 846), b = nic_switch(c, 0, 7, 846);
    CU_ASSERT_NOT_EQUAL(a, b);
    for (size_t i = 0; i < 8; i++)
        CU_ASSERT_EQUAL(nic_switch(c, 0, i, 846), i < 4 ? a : b);
    CU_ASSERT_EQUAL(topo_host_group(c, 282, TOPO_LEVEL_POD), topo_host_group(c, 0, TOPO_LEVEL_POD));
    CU_ASSERT_NOT_EQUAL(topo_host_group(c, 283, TOPO_LEVEL_POD),
                        topo_host_group(c, 0, TOPO_LEVEL_POD));
    CU_ASSERT_EQUAL(count_tier(c, TOPO_TIER_HOST_TOR), 847 * 8 * 2);
}

/* crux-clos2:hosts=847: 847 = 173 x 4 + 155, so ToRs 0..154 hold 5 hosts
 * (hosts 0..774) and ToRs 155..172 hold 4 (775..846).  Every ToR to each
 * of 16 aggs: 173 x 16 cables = 5536 links; 16 paths between ToRs.
 * Default: 256 hosts (2,048 GPUs) = 173 + 83: ToRs 0..82 hold 2 (hosts
 * 0..165), the others 1; uplinks 2 x 4 x 200 Gbps / 16 = 100 Gbps.
 * crux-double-sided default: 256 hosts on 3 pairs, 86 + 85 + 85. */
static void test_topo_crux_clos2(void)
{
    g_autoptr(topo) d = build_ok("crux-clos2");
    CU_ASSERT_EQUAL(topo_host_count(d), 256);
    CU_ASSERT_EQUAL(topo_host_count(d) * topo_host_gpu_count(d, 0), 2048);
    CU_ASSERT_EQUAL(topo_host_group(d, 164, TOPO_LEVEL_TOR), topo_host_group(d, 165, TOPO_LEVEL_TOR));
    CU_ASSERT_NOT_EQUAL(topo_host_group(d, 165, TOPO_LEVEL_TOR),
                        topo_host_group(d, 166, TOPO_LEVEL_TOR));
    CU_ASSERT_NOT_EQUAL(topo_host_group(d, 166, TOPO_LEVEL_TOR),
                        topo_host_group(d, 167, TOPO_LEVEL_TOR));
    for (size_t l = 0; l < topo_link_count(d); l++)
        if (topo_link_get(d, (uint32_t)l)->tier == TOPO_TIER_TOR_AGG)
            TEST_ASSERT_CLOSE(topo_link_get(d, (uint32_t)l)->cap_Bps, ccs_gbps_to_Bps(100), 1e-12);
    g_autoptr(topo) ds = build_ok("crux-double-sided");
    CU_ASSERT_EQUAL(topo_host_count(ds), 256);
    CU_ASSERT_EQUAL(topo_host_group(ds, 85, TOPO_LEVEL_POD), topo_host_group(ds, 0, TOPO_LEVEL_POD));
    CU_ASSERT_NOT_EQUAL(topo_host_group(ds, 86, TOPO_LEVEL_POD),
                        topo_host_group(ds, 0, TOPO_LEVEL_POD));
    g_autoptr(topo) t = build_ok("crux-clos2:hosts=847");
    CU_ASSERT_EQUAL(topo_host_count(t), 847);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_TOR), 173);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_AGG), 16);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_TOR_AGG), 5536);
    uint32_t (*grp)(const topo *, size_t, topo_level) = topo_host_group;
    CU_ASSERT_EQUAL(grp(t, 4, TOPO_LEVEL_TOR), grp(t, 0, TOPO_LEVEL_TOR));
    CU_ASSERT_NOT_EQUAL(grp(t, 5, TOPO_LEVEL_TOR), grp(t, 0, TOPO_LEVEL_TOR));
    CU_ASSERT_EQUAL(grp(t, 770, TOPO_LEVEL_TOR), grp(t, 774, TOPO_LEVEL_TOR));
    CU_ASSERT_NOT_EQUAL(grp(t, 774, TOPO_LEVEL_TOR), grp(t, 775, TOPO_LEVEL_TOR));
    CU_ASSERT_EQUAL(grp(t, 775, TOPO_LEVEL_TOR), grp(t, 778, TOPO_LEVEL_TOR));
    CU_ASSERT_NOT_EQUAL(grp(t, 778, TOPO_LEVEL_TOR), grp(t, 779, TOPO_LEVEL_TOR));
    CU_ASSERT_EQUAL(grp(t, 0, TOPO_LEVEL_POD), grp(t, 846, TOPO_LEVEL_POD));
    CU_ASSERT_EQUAL(paths_between_hosts(t, 0, 846), 16);
    g_autoptr(topo) s = build_ok("crux-clos2:hosts=100");
    CU_ASSERT_EQUAL(topo_host_count(s), 100);
}

/* hosts_from=topo.csv on the Crux presets: 5 hosts, file order e, a, d, b,
 * c; racks P1/S2 = {e, d}, P1/S10 = {a}, P2/S1 = {b, c}.  Lingjun order:
 * pods P1 < P2, racks S2 < S10 (natural order), file order inside:
 * e then d (file order): host order e, d, a, b, c.  crux-clos2
 * with tors=2 spreads 5 hosts as 3 + 2: ToR 0 {e, d, a}, ToR 1 {b, c}.
 * crux-double-sided (2 ToRs = 1 pair) keeps the names too.  hosts= with
 * hosts_from= is an error, as is a missing file. */
static void test_topo_hosts_from(void)
{
    g_autofree char *path = temp_file(
        ".csv", "ip,DSW,PSW,ASW\ne,G6,P1,S2\na,G6,P1,S10\nd,G6,P1,S2\nb,G6,P2,S1\nc,G6,P2,S1\n");
    g_autofree char *spec = g_strdup_printf("crux-clos2:hosts_from=%s,tors=2,aggs=2", path);
    g_autoptr(topo) t = build_ok(spec);
    CU_ASSERT_EQUAL_FATAL(topo_host_count(t), 5);
    static const char *const order[] = {"e", "d", "a", "b", "c"};
    for (size_t h = 0; h < 5; h++)
        CU_ASSERT_STRING_EQUAL(topo_host_name(t, h), order[h]);
    size_t a = 0, b = 0;
    CU_ASSERT(topo_host_find(t, "a", &a) && topo_host_find(t, "b", &b));
    CU_ASSERT_EQUAL(topo_host_group(t, a, TOPO_LEVEL_TOR), topo_host_group(t, 0, TOPO_LEVEL_TOR));
    CU_ASSERT_NOT_EQUAL(topo_host_group(t, b, TOPO_LEVEL_TOR),
                        topo_host_group(t, 0, TOPO_LEVEL_TOR));
    g_autofree char *ds = g_strdup_printf("crux-double-sided:hosts_from=%s,tors=2,aggs=2,cores=2", path);
    g_autoptr(topo) d = build_ok(ds);
    CU_ASSERT_EQUAL(topo_host_count(d), 5);
    CU_ASSERT_STRING_EQUAL(topo_host_name(d, 4), "c");
    g_autofree char *both = g_strdup_printf("crux-clos2:hosts_from=%s,hosts=5", path);
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(topo_build(both, NULL, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_PTR_NULL(topo_build("crux-clos2:hosts_from=/nonexistent/topo.csv", NULL, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_IO);
    remove(path);
}

/* torus 4x4: 16 switches with 1 host each; every switch has 4 neighbours:
 * 16 x 4 / 2 = 32 cables = 64 links.  h0 at (0,0) to h5 at (1,1): 2 hops,
 * x-then-y or y-then-x = 2 paths of 1 + 2 + 1 = 4 links.  h0 to h3 at (3,0):
 * 1 hop over the wrap-around link.  torus x=2,y=1: the two switches share one
 * cable (no duplicate wrap link): 2 links.  3x3x3: 27 switches, 6 neighbours
 * each: 81 cables = 162 links. */
static void test_topo_torus(void)
{
    g_autoptr(topo) t = build_ok("torus");
    CU_ASSERT_EQUAL(topo_host_count(t), 16);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_SWITCH), 16);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_OTHER), 64);
    CU_ASSERT_EQUAL(paths_between_hosts(t, 0, 5), 2);
    CU_ASSERT_EQUAL(paths_between_hosts(t, 0, 3), 1);
    g_autoptr(topo) two = build_ok("torus:x=2,y=1");
    CU_ASSERT_EQUAL(count_tier(two, TOPO_TIER_OTHER), 2);
    g_autoptr(topo) cube = build_ok("torus:x=3,y=3,z=3,nics=1");
    CU_ASSERT_EQUAL(count_tier(cube, TOPO_TIER_OTHER), 162);
}

/* dragonfly defaults: routers a = 4, global links h = 1, groups = a*h+1 = 5,
 * 2 hosts per router: 40 hosts, 20 routers; local cables 5 x C(4,2) = 30,
 * global cables C(5,2) = 10: 80 directed links.  Hosts of one router: 1
 * path; hosts in different groups: minimal route, at most local-global-
 * local, 1 path (one global link per group pair); a group is a pod. */
static void test_topo_dragonfly(void)
{
    g_autoptr(topo) t = build_ok("dragonfly");
    CU_ASSERT_EQUAL(topo_host_count(t), 40);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_SWITCH), 20);
    CU_ASSERT_EQUAL(count_tier(t, TOPO_TIER_OTHER), 80);
    CU_ASSERT_EQUAL(paths_between_hosts(t, 0, 39), 1);
    CU_ASSERT_EQUAL(topo_host_group(t, 0, TOPO_LEVEL_POD), topo_host_group(t, 7, TOPO_LEVEL_POD));
    CU_ASSERT_NOT_EQUAL(topo_host_group(t, 0, TOPO_LEVEL_POD),
                        topo_host_group(t, 8, TOPO_LEVEL_POD));
}

/* Lingjun topo.csv (docs/design.md §1): 847 hosts; ASW labels are local to
 * a PSW, giving 119 (PSW, ASW) racks; 3 PSW groups P8 (179 hosts), P10
 * (362), P12 (306).  Pods sorted naturally P8, P10, P12, so hosts 0..178
 * are in pod P8 and 179..540 in P10.  Defaults psw=4, dsw=8: 3 x 4 = 12
 * aggs, 8 cores; attach=dual doubles the ToRs to 238. */
static void test_topo_lingjun(void)
{
    g_autofree char *path = test_shared_data_path("lingjun/topo.csv");
    if (!path) {
        printf("\n  note: the real lingjun/topo.csv is absent, lingjun test skipped\n");
        return;
    }
    g_autofree char *spec = g_strdup_printf("lingjun:path=%s", path);
    g_autoptr(topo) t = build_ok(spec);
    CU_ASSERT_EQUAL(topo_host_count(t), 847);
    g_autoptr(GHashTable) tors = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GHashTable) pods = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (size_t h = 0; h < 847; h++) {
        g_hash_table_add(tors, GUINT_TO_POINTER(topo_host_group(t, h, TOPO_LEVEL_TOR)));
        g_hash_table_add(pods, GUINT_TO_POINTER(topo_host_group(t, h, TOPO_LEVEL_POD) + 1));
    }
    CU_ASSERT_EQUAL(g_hash_table_size(tors), 119);
    CU_ASSERT_EQUAL(g_hash_table_size(pods), 3);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_TOR), 119);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_AGG), 12);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_CORE), 8);
    CU_ASSERT_EQUAL(topo_host_group(t, 0, TOPO_LEVEL_POD), topo_host_group(t, 178, TOPO_LEVEL_POD));
    CU_ASSERT_NOT_EQUAL(topo_host_group(t, 178, TOPO_LEVEL_POD),
                        topo_host_group(t, 179, TOPO_LEVEL_POD));
    CU_ASSERT_EQUAL(topo_host_group(t, 179, TOPO_LEVEL_POD), topo_host_group(t, 540, TOPO_LEVEL_POD));
    CU_ASSERT_NOT_EQUAL(topo_host_group(t, 540, TOPO_LEVEL_POD),
                        topo_host_group(t, 541, TOPO_LEVEL_POD));
    /* hosts are named by their ip hash: the first data row of the file */
    size_t h = 0;
    CU_ASSERT_TRUE(topo_host_find(
        t, "0c9d9de1b19e7f39b08f49ddfa26744ae26d3adf8bd59af1b16e203b6fa5fe4b", &h));
    g_autofree char *spec2 = g_strdup_printf("lingjun:%s,attach=dual", path);
    g_autoptr(topo) d = build_ok(spec2);
    CU_ASSERT_EQUAL(count_kind(d, TOPO_NODE_TOR), 238);
}

/* Lingjun parse errors name file:line. */
static void test_topo_lingjun_errors(void)
{
    static const struct {
        const char *text;
        int code;
        const char *needle;
    } cases[] = {
        {"ip,DSW,PSW\na,G6,P1\n", CCS_ERROR_PARSE, ":1: header has no column 'ASW'"},
        {"ip,DSW,PSW,ASW\na,G6,P1,S1\nb,G6,,S1\n", CCS_ERROR_PARSE, ":3: PSW: empty"},
        {"ip,DSW,PSW,ASW\na,G6,P1,S1\na,G6,P1,S2\n", CCS_ERROR_PARSE, ":3: ip: duplicate"},
        {"ip,DSW,PSW,ASW\n", CCS_ERROR_PARSE, "no hosts"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        assert_file_error("lingjun:path=", ".csv", cases[i].text, cases[i].code, cases[i].needle);
    /* a well-formed small file with extra columns and CRLF: 3 hosts, 2 racks
     * (P1/S1, P2/S1: the same ASW label under two PSWs), 2 pods */
    g_autofree char *path =
        temp_file(".csv", "x,ip,DSW,PSW,ASW\r\n1,a,G6,P1,S1\r\n2,b,G6,P2,S1\r\n3,c,G6,P1,S1\r\n");
    g_autofree char *spec = g_strdup_printf("lingjun:path=%s,psw=2,dsw=2", path);
    g_autoptr(topo) t = build_ok(spec);
    CU_ASSERT_EQUAL(topo_host_count(t), 3);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_TOR), 2);
    CU_ASSERT_EQUAL(count_kind(t, TOPO_NODE_AGG), 4);
    remove(path);
}

/* Bad specs: the message names the spec and the problem. */
static void test_topo_bad_specs(void)
{
    static const struct {
        const char *spec;
        int code;
        const char *message; /* prefix of the message */
    } cases[] = {
        {"fat-tree:k=7", CCS_ERROR_INVALID, "topology 'fat-tree:k=7': k must be even"},
        {"fat-tree:k=0", CCS_ERROR_INVALID, "topology 'fat-tree:k=0': k must be at least 2"},
        {"fat-tree:k=x", CCS_ERROR_INVALID, "topology 'fat-tree:k=x': k must be a non-negative decimal integer, got 'x'"},
        /* strict numbers and no empty items (docs/usage.md, Limits) */
        {"fat-tree:k=4,,,", CCS_ERROR_INVALID, "topology 'fat-tree:k=4,,,': empty parameter (item 2 of 'k=4,,,')"},
        {"fat-tree:nic_gbps=0x10", CCS_ERROR_INVALID, "topology 'fat-tree:nic_gbps=0x10': nic_gbps must be a non-negative decimal number, got '0x10'"},
        {"fat-tree:nic_gbps=inf", CCS_ERROR_INVALID, "topology 'fat-tree:nic_gbps=inf': nic_gbps must be a non-negative decimal number"},
        {"fat-tree:nic_gbps=2e6", CCS_ERROR_INVALID, "topology 'fat-tree:nic_gbps=2e6': nic_gbps: 2000000 is outside (0, 1000000] Gbps"},
        {"fat-tree:latency_us=5e6", CCS_ERROR_INVALID, "topology 'fat-tree:latency_us=5e6': latency_us: 5000000 is outside [0, 1000000] us"},
        {"fat-tree:k=4,nics=\x1b", CCS_ERROR_INVALID, "topology 'fat-tree:k=4,nics=\x1b': nics must be a non-negative decimal integer, got '\\x1b'"},
        {"fat-tree:k=4,k=8", CCS_ERROR_INVALID, "topology 'fat-tree:k=4,k=8': parameter 'k' given twice"},
        {"fat-tree:k", CCS_ERROR_INVALID, "topology 'fat-tree:k': expected key=value"},
        {"fat-tree:k=4,bogus=1", CCS_ERROR_INVALID, "topology 'fat-tree:k=4,bogus=1': unknown parameter 'bogus'"},
        {"fat-trees", CCS_ERROR_INVALID, "topology 'fat-trees': unknown topology 'fat-trees'"},
        {"fat-tree:nics=9", CCS_ERROR_INVALID, "topology 'fat-tree:nics=9': nics must be 1..8"},
        {"fat-tree:gpus=0", CCS_ERROR_INVALID, "topology 'fat-tree:gpus=0': gpus must be 1..64"},
        {"fat-tree:k=6,attach=dual", CCS_ERROR_INVALID, "topology 'fat-tree:k=6,attach=dual': attach=dual pairs"},
        {"fat-tree:attach=ring", CCS_ERROR_INVALID, "topology 'fat-tree:attach=ring': attach must be single, dual or rail"},
        {"fat-tree:link_gbps=0", CCS_ERROR_INVALID, "topology 'fat-tree:link_gbps=0': link speeds must be positive"},
        {"fat-tree:oversub=2,link_gbps=100", CCS_ERROR_INVALID, "topology 'fat-tree:oversub=2,link_gbps=100': give link_gbps or oversub"},
        {"fat-tree:nic_gbps=0", CCS_ERROR_INVALID, "topology 'fat-tree:nic_gbps=0': nic_gbps, nvlink_gbps and pcie_gbps must be positive"},
        {"clos2:attach=dual,nics=1", CCS_ERROR_INVALID, "topology 'clos2:attach=dual,nics=1': attach=dual needs at least 2 NICs"},
        {"clos2:tors=0", CCS_ERROR_INVALID, "topology 'clos2:tors=0': tors (0) must be a positive multiple"},
        {"clos2:tors=10000000000000", CCS_ERROR_INVALID, "topology 'clos2:tors=10000000000000': tors: 10000000000000 is outside [0, 1000000]"},
        {"clos2:hosts_per_tor=200000", CCS_ERROR_INVALID, "topology 'clos2:hosts_per_tor=200000': more than 1048576 hosts"},
        {"clos3:cores=6", CCS_ERROR_INVALID, "topology 'clos3:cores=6': cores (6) must be a multiple"},
        {"torus:x=0", CCS_ERROR_INVALID, "topology 'torus:x=0': x, y, z"},
        {"dragonfly:groups=9", CCS_ERROR_INVALID, "topology 'dragonfly:groups=9': groups must be 2..routers*global_links+1 = 5"},
        {"crux-double-sided:tors=5", CCS_ERROR_INVALID, "topology 'crux-double-sided:tors=5': tors must be even"},
        {"lingjun", CCS_ERROR_INVALID, "topology 'lingjun': path=topo.csv is required"},
        {"lingjun:/nonexistent/topo.csv", CCS_ERROR_IO, "topology 'lingjun:/nonexistent/topo.csv': /nonexistent/topo.csv: cannot read"},
        {"file:/nonexistent.json", CCS_ERROR_IO, "topology 'file:/nonexistent.json': /nonexistent.json: cannot read"},
        {"file:", CCS_ERROR_INVALID, "topology 'file:': file: a path is required"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GError *err = NULL;
        topo *t = topo_build(cases[i].spec, NULL, &err);
        CU_ASSERT_PTR_NULL(t);
        topo_free(t);
        CU_ASSERT_PTR_NOT_NULL_FATAL(err);
        if (!g_str_has_prefix(err->message, cases[i].message))
            printf("\n  spec '%s': got '%s'\n", cases[i].spec, err->message);
        CU_ASSERT_TRUE(g_str_has_prefix(err->message, cases[i].message));
        TEST_ASSERT_ERROR(err, cases[i].code);
    }
}

/* Describe: fat-tree k=4 is non-blocking; the bisection between hosts 0..7
 * and 8..15 is their NIC capacity 8 x 4 x 200 Gbps = 6400 Gbps. */
static void test_topo_describe(void)
{
    g_autoptr(topo) t = build_ok("fat-tree:k=4");
    g_autoptr(GString) s = g_string_new(NULL);
    GError *err = NULL;
    CU_ASSERT_TRUE(topo_describe(t, s, &err));
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_PTR_NOT_NULL(strstr(s->str, "bisection bandwidth: 6400 Gbps"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s->str, "h0 -> h4: 4 paths of 6 links"));
    double bis = 0;
    CU_ASSERT_TRUE(topo_bisection_Bps(t, &bis, &err));
    TEST_ASSERT_CLOSE(bis, 800e9, 1e-9);
    size_t n = 0;
    const topo_builder_info *b = topo_builders(&n);
    CU_ASSERT_EQUAL(n, 10); /* lingjun-sample is the tenth */
    CU_ASSERT_STRING_EQUAL(b[0].name, "fat-tree");
    /* the bundled sample's topology, built in: 847 hosts of 8 GPUs (the
     * synthetic topo.csv has the real shape: 179 + 362 + 306 hosts) */
    g_autoptr(topo) sample = topo_build("lingjun-sample", NULL, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_EQUAL(sample ? topo_host_count(sample) : 0, 847);
    CU_ASSERT_EQUAL(sample ? topo_host_gpu_count(sample, 0) : 0, 8);
    CU_ASSERT_PTR_NULL(topo_build("lingjun-sample:path=x.csv", NULL, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_STRING_EQUAL(topo_tier_name(TOPO_TIER_HOST_TOR), "host_tor");
    CU_ASSERT_STRING_EQUAL(topo_tier_name(TOPO_TIER_AGG_CORE), "agg_core");
}

/* Locality groups in fat-tree k=4: h0, h1 share ToR 0; h2 is on ToR 1 of
 * pod 0; h4 is in pod 1. */
static void test_topo_groups(void)
{
    g_autoptr(topo) t = build_ok("fat-tree:k=4");
    CU_ASSERT_EQUAL(topo_host_group(t, 5, TOPO_LEVEL_HOST), 5);
    CU_ASSERT_EQUAL(topo_host_group(t, 0, TOPO_LEVEL_TOR), topo_host_group(t, 1, TOPO_LEVEL_TOR));
    CU_ASSERT_NOT_EQUAL(topo_host_group(t, 0, TOPO_LEVEL_TOR), topo_host_group(t, 2, TOPO_LEVEL_TOR));
    CU_ASSERT_EQUAL(topo_host_group(t, 0, TOPO_LEVEL_POD), topo_host_group(t, 3, TOPO_LEVEL_POD));
    CU_ASSERT_NOT_EQUAL(topo_host_group(t, 0, TOPO_LEVEL_POD), topo_host_group(t, 4, TOPO_LEVEL_POD));
    size_t h = 0;
    CU_ASSERT_TRUE(topo_host_find(t, "h5", &h));
    CU_ASSERT_EQUAL(h, 5);
}

int main(void)
{
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
    CU_TestInfo cases[] = {
        {"fat_tree_k4_counts", test_topo_fat_tree_k4_counts},
        {"fat_tree_k8_counts", test_topo_fat_tree_k8_counts},
        {"fat_tree_paths", test_topo_fat_tree_paths},
        {"server_model", test_topo_server_model},
        {"server_variants", test_topo_server_variants},
        {"clos2", test_topo_clos2},
        {"clos3", test_topo_clos3},
        {"path_spread", test_topo_path_spread},
        {"path_sampling", test_topo_path_sampling},
        {"rail", test_topo_rail},
        {"dual", test_topo_dual},
        {"crux_clos2", test_topo_crux_clos2},
        {"hosts_from", test_topo_hosts_from},
        {"torus", test_topo_torus},
        {"dragonfly", test_topo_dragonfly},
        {"lingjun", test_topo_lingjun},
        {"lingjun_errors", test_topo_lingjun_errors},
        {"ecmp", test_topo_ecmp},
        {"paths_threads", test_topo_paths_threads},
        {"bad_specs", test_topo_bad_specs},
        {"json_import", test_topo_json_import},
        {"json_errors", test_topo_json_errors},
        {"round_trip", test_topo_round_trip},
        {"graphml_types", test_topo_graphml_types},
        {"graphml_strict", test_topo_graphml_strict},
        {"dot", test_topo_dot},
        {"describe", test_topo_describe},
        {"groups", test_topo_groups},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("topo", cases);
}
