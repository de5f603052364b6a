/* test_topo.c - suite "topo": builders, server model, paths, ECMP, errors,
 * import/export (topo/topo.h).  Expected numbers are derived by hand in the
 * comment above each case. */
#include <igraph.h>
#include <string.h>

#include "ccs.h"
#include "topo.h"

#include "test_util.h"

static topo *build_ok(const char *spec)
{
    GError *err = NULL;
    topo *t = topo_build(spec, NULL, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    return t;
}

static size_t count_kind(const topo *t, topo_node_kind k)
{
    size_t n = 0;
    for (uint32_t v = 0; v < topo_node_count(t); v++)
        n += topo_node_get_kind(t, v) == k;
    return n;
}

static size_t count_tier(const topo *t, topo_tier tier)
{
    size_t n = 0;
    for (uint32_t id = 0; id < topo_link_count(t); id++)
        n += topo_link_get(t, id)->tier == tier;
    return n;
}

static size_t paths_between_hosts(topo *t, size_t ha, size_t hb)
{
    GError *err = NULL;
    size_t n = topo_path_count(t, topo_host_nic_node(t, ha, 0), topo_host_nic_node(t, hb, 0), &err);
    TEST_ASSERT_NO_ERROR(err);
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

/* Fat-tree k=4 equal-cost paths: hosts 0,1 share ToR 0 -> 1 path of 2 links
 * (NIC->ToR->NIC); hosts 0,2 are in pod 0 on ToRs 0,1 -> one path per agg of
 * the pod: 2 paths of 4 links; hosts 0 and 4 are in pods 0 and 1 -> 2 aggs *
 * 2 cores each = 4 paths of 6 links. */
static void test_topo_fat_tree_paths(void)
{
    g_autoptr(topo) t = build_ok("fat-tree:k=4");
    CU_ASSERT_EQUAL(paths_between_hosts(t, 0, 1), 1);
    CU_ASSERT_EQUAL(paths_between_hosts(t, 0, 2), 2);
    CU_ASSERT_EQUAL(paths_between_hosts(t, 0, 4), 4);
    CU_ASSERT_EQUAL(paths_between_hosts(t, 0, 15), 4);
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GError *err = NULL;
    uint32_t a = topo_host_nic_node(t, 0, 0), b = topo_host_nic_node(t, 4, 0);
    for (size_t i = 0; i < 4; i++) {
        CU_ASSERT_TRUE(topo_path_links(t, a, b, i, links, &err));
        TEST_ASSERT_NO_ERROR(err);
        CU_ASSERT_EQUAL_FATAL(links->len, 6);
        /* contiguous: each link starts where the previous ended */
        CU_ASSERT_EQUAL(topo_link_get(t, g_array_index(links, uint32_t, 0))->src, a);
        CU_ASSERT_EQUAL(topo_link_get(t, g_array_index(links, uint32_t, 5))->dst, b);
        for (guint k = 1; k < links->len; k++)
            CU_ASSERT_EQUAL(topo_link_get(t, g_array_index(links, uint32_t, k))->src,
                            topo_link_get(t, g_array_index(links, uint32_t, k - 1))->dst);
        CU_ASSERT_EQUAL(topo_link_get(t, g_array_index(links, uint32_t, 2))->tier,
                        TOPO_TIER_AGG_CORE);
    }
    CU_ASSERT_TRUE(topo_path_links(t, topo_host_nic_node(t, 0, 0), topo_host_nic_node(t, 1, 0), 0,
                                   links, &err));
    CU_ASSERT_EQUAL(links->len, 2);
    CU_ASSERT_FALSE(topo_path_links(t, a, b, 4, links, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
}

int main(void)
{
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
    CU_TestInfo cases[] = {
        {"fat_tree_k4_counts", test_topo_fat_tree_k4_counts},
        {"fat_tree_k8_counts", test_topo_fat_tree_k8_counts},
        {"fat_tree_paths", test_topo_fat_tree_paths},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("topo", cases);
}
