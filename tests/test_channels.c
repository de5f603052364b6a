/* test_channels.c - suite "channels": NCCL channels in the collective plan,
 * NCCL's default rule, and their effect on a ring's time.  Not here: the
 * plan's other patterns (test_collective.c).
 *
 * The network: clos2 with 2 ToRs and 4 aggregation switches, one host per
 * ToR (h0 under tor0, h1 under tor1), 2 GPUs and 2 NICs per host (GPU i
 * behind NIC i), NICs and ToR-agg links of 100 Gbps = 12.5e9 B/s, PCIe and
 * NVLink fast enough never to limit, zero latencies and alpha = 0: a
 * transfer alone takes bytes / rate.
 */
#include <igraph.h>
#include <math.h>

#include "base/ccs.h"
#include "sim/cluster.h"
#include "sim/collective.h"
#include "sim/event.h"
#include "sim/net.h"
#include "test_util.h"
#include "topo/topo.h"

#define TOPO_2TOR_4AGG                                                                          \
    "clos2:tors=2,aggs=4,hosts_per_tor=1,gpus=2,nics=2,pcie=2,nic_gbps=100,tor_agg_gbps=100,"   \
    "pcie_gbps=1000,nvlink_gbps=8000,latency_us=0,host_latency_us=0"

/* Run one bucket of the plan alone on a fresh network holding every
 * topology link (net link i = topology link i), steps one after the other,
 * under the plan's current paths; the time it takes. */
static double bucket_s(topo *t, const coll_plan *p)
{
    g_autoptr(evq) q = evq_new();
    net_options o = net_options_default();
    o.prio_levels = 1;
    GError *e = NULL;
    g_autoptr(net) n = net_new(&o, q, &e);
    TEST_ASSERT_NO_ERROR(e);
    for (size_t l = 0; l < topo_link_count(t); l++) {
        net_link_id id;
        const topo_link *L = topo_link_get(t, (uint32_t)l);
        CU_ASSERT_TRUE(net_link_add(n, L->cap_Bps, L->latency_s, &id, &e));
    }
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) mult = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (size_t s = 0; s < coll_plan_step_count(p); s++) {
        for (size_t i = 0; i < coll_plan_xfer_count(p, s); i++) {
            const coll_xfer *x = coll_plan_xfer(p, s, i);
            coll_xfer_links(p, x, links, mult);
            net_transfer_spec sp = {
                .size_bytes = x->bytes,
                .links = (const net_link_id *)(void *)links->data,
                .mult = (const uint32_t *)(void *)mult->data,
                .n_links = links->len,
                .weight = 1.0,
                .startup_s = coll_xfer_startup_s(p, x, 0.0),
            };
            net_transfer_id id;
            CU_ASSERT_TRUE(net_transfer_start(n, &sp, &id, &e));
            TEST_ASSERT_NO_ERROR(e);
        }
        evq_run_until(q, INFINITY);
    }
    return evq_now(q);
}

/* The job: 4 GPUs, 2 on h0 and 2 on h1, so 2 rails; all-reduce of S. */
static cluster_alloc *place_job(cluster *c)
{
    const char *hosts[] = {"h0", "h1"};
    GError *e = NULL;
    cluster_alloc *a = cluster_place(c, hosts, NULL, 2, 4, CONFIG_PLACE_RECORDED, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    return a;
}

/* Give the plan's h0 -> h1 flows the candidate paths paths[k] in flow
 * order; the h1 -> h0 flows their own candidates 0, 1, ... (they use the
 * other direction of every link, so they never meet the first ones). */
static void force_paths(topo *t, coll_plan *p, const size_t *paths)
{
    size_t up = 0, down = 0;
    GError *e = NULL;
    for (size_t f = 0; f < coll_plan_flow_count(p); f++) {
        const coll_flow *fl = coll_plan_flow(p, f);
        CU_ASSERT_EQUAL(fl->n_paths, 4); /* one candidate per aggregation switch */
        size_t c = fl->src_host == 0 ? paths[up++] : down++ % 4;
        CU_ASSERT_TRUE(coll_plan_set_path(p, t, f, c, &e));
        TEST_ASSERT_NO_ERROR(e);
    }
}

/* S = 25e9 B.  Step 1 and 3 (NVLink, 2 GPUs per host) take
 * (1/2) 25e9 / 1e12 = 0.0125 s each; the network step is what differs.
 *
 * channels = 1: one ring per rail of 2(H-1)/H * S/R = S/2 = 12.5e9 B per
 * hop.  Forced collision: both rails' h0 -> h1 flows on the same
 * aggregation switch, so the two ring transfers share tor0 -> agg (12.5e9
 * B/s): 6.25e9 B/s each, 12.5e9 / 6.25e9 = 2 s.  Each on its own switch:
 * 12.5e9 / 12.5e9 = 1 s.
 *
 * channels = 2: two rings per rail of S/4 = 6.25e9 B per hop.  One hash on
 * each aggregation switch: every ToR uplink carries one channel, each NIC
 * the two channels of its rail: 6.25e9 B/s each, 6.25e9 / 6.25e9 = 1 s.
 * One colliding hash (two channels of different rails on one switch, the
 * other two on their own): that uplink carries 2 channels at 6.25e9 each
 * = 12.5e9, exactly its capacity, so still 1 s: half-size flows make a
 * collision cost nothing while the NIC is the bottleneck. */
static void test_channels_ring_time(void)
{
    GError *e = NULL;
    g_autoptr(topo) t = topo_build(TOPO_2TOR_4AGG, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    if (!t)
        return;
    g_autoptr(cluster) cl = cluster_new(t);
    g_autoptr(cluster_alloc) a = place_job(cl);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    double S = 25e9, nvl = 2 * 0.5 * S / 1e12;
    coll_options o = coll_options_default();
    o.channels = 1;
    g_autoptr(coll_plan) p1 = coll_plan_new(t, a, COLL_ALLREDUCE, S, &o, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_EQUAL(coll_plan_flow_count(p1), 4);
    CU_ASSERT_EQUAL(coll_plan_xfer_count(p1, 1), 2);
    TEST_ASSERT_CLOSE(coll_plan_xfer(p1, 1, 0)->bytes, 12.5e9, 1e-12);
    force_paths(t, p1, (const size_t[]){0, 0});
    TEST_ASSERT_CLOSE(bucket_s(t, p1), nvl + 2.0, 1e-9);
    force_paths(t, p1, (const size_t[]){0, 1});
    TEST_ASSERT_CLOSE(bucket_s(t, p1), nvl + 1.0, 1e-9);

    o.channels = 2;
    g_autoptr(coll_plan) p2 = coll_plan_new(t, a, COLL_ALLREDUCE, S, &o, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_EQUAL(coll_plan_channels(p2), 2);
    CU_ASSERT_EQUAL(coll_plan_flow_count(p2), 8);
    CU_ASSERT_EQUAL(coll_plan_xfer_count(p2, 1), 4);
    TEST_ASSERT_CLOSE(coll_plan_xfer(p2, 1, 0)->bytes, 6.25e9, 1e-12);
    /* flows are built rail by rail, channel by channel: r0c0, r0c1, r1c0, r1c1 */
    force_paths(t, p2, (const size_t[]){0, 1, 2, 3});
    TEST_ASSERT_CLOSE(bucket_s(t, p2), nvl + 1.0, 1e-9);
    force_paths(t, p2, (const size_t[]){0, 1, 0, 2});
    TEST_ASSERT_CLOSE(bucket_s(t, p2), nvl + 1.0, 1e-9);
    /* but the two channels of one rail and one of the other on a switch:
     * 3 x 6.25e9 on 12.5e9 -> 4.1667e9 each for those three, the NIC of
     * rail 0 then carries 2 x 4.1667e9: the three take 6.25e9 / 4.1667e9
     * = 1.5 s */
    force_paths(t, p2, (const size_t[]){0, 0, 0, 1});
    TEST_ASSERT_CLOSE(bucket_s(t, p2), nvl + 1.5, 1e-9);
}

/* Every (hop, channel) is its own flow with its own hash, and the plan is
 * the same function of (uid, seed) every time it is built. */
static void test_channels_hashing(void)
{
    GError *e = NULL;
    g_autoptr(topo) t = topo_build(TOPO_2TOR_4AGG, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    if (!t)
        return;
    g_autoptr(cluster) cl = cluster_new(t);
    g_autoptr(cluster_alloc) a = place_job(cl);
    coll_options o = coll_options_default();
    o.channels = 8;
    o.uid = 7;
    g_autoptr(coll_plan) p = coll_plan_new(t, a, COLL_ALLREDUCE, 1e9, &o, &e);
    g_autoptr(coll_plan) q = coll_plan_new(t, a, COLL_ALLREDUCE, 1e9, &o, &e);
    TEST_ASSERT_NO_ERROR(e);
    /* 2 rails x 8 channels x 2 hops; 16 flows h0 -> h1 hashed over 4
     * switches: not all on one (probability 4 / 4^16) */
    CU_ASSERT_EQUAL(coll_plan_flow_count(p), 32);
    bool used[4] = {false};
    size_t distinct = 0;
    for (size_t f = 0; f < coll_plan_flow_count(p); f++) {
        CU_ASSERT_EQUAL(coll_plan_flow(p, f)->path, coll_plan_flow(q, f)->path);
        if (coll_plan_flow(p, f)->src_host == 0 && !used[coll_plan_flow(p, f)->path]) {
            used[coll_plan_flow(p, f)->path] = true;
            distinct++;
        }
    }
    CU_ASSERT_TRUE(distinct >= 2);
    /* each bucket byte crosses the network once per channel ring:
     * 2(H-1)/H * S/(R C) = 1e9 / 16 per hop */
    TEST_ASSERT_CLOSE(coll_plan_xfer(p, 1, 0)->bytes, 1e9 / 16, 1e-12);
}

/* NCCL's rule (collective.h): channels per rail.
 * 200 Gbps = 25 GB/s -> speed step 24 < 25: no duplication in the search,
 *   x2 when rings connect: 2 per NIC whatever the NIC count.
 * 400 Gbps = 50 GB/s -> step 48 >= 25: x2 then x2 = 4 per NIC (A100);
 *   H100 with 8 NICs: 48 < 50 and 8 > 4 channels: no search duplication
 *   -> 2; H100 with 4 NICs: 4 is not > 4 -> 4.
 * 100 Gbps -> 12: 2.  8 NICs of 400 Gbps on A100: 8 x 4 = 32, the cap, 4.
 * 16 NICs of 400 Gbps: 64 capped to 32 -> 2 per NIC. */
static void test_channels_nccl_rule(void)
{
    CU_ASSERT_EQUAL(coll_channels_nccl(ccs_gbps_to_Bps(200), 4, false), 2);
    CU_ASSERT_EQUAL(coll_channels_nccl(ccs_gbps_to_Bps(200), 1, false), 2);
    CU_ASSERT_EQUAL(coll_channels_nccl(ccs_gbps_to_Bps(400), 1, false), 4);
    CU_ASSERT_EQUAL(coll_channels_nccl(ccs_gbps_to_Bps(400), 8, true), 2);
    CU_ASSERT_EQUAL(coll_channels_nccl(ccs_gbps_to_Bps(400), 4, true), 4);
    CU_ASSERT_EQUAL(coll_channels_nccl(ccs_gbps_to_Bps(100), 2, false), 2);
    CU_ASSERT_EQUAL(coll_channels_nccl(ccs_gbps_to_Bps(400), 8, false), 4);
    CU_ASSERT_EQUAL(coll_channels_nccl(ccs_gbps_to_Bps(400), 16, false), 2);
    /* the plan resolves "auto" (0) with the job's NIC rate: 100 Gbps -> 2 */
    GError *e = NULL;
    g_autoptr(topo) t = topo_build(TOPO_2TOR_4AGG, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    if (!t)
        return;
    g_autoptr(cluster) cl = cluster_new(t);
    g_autoptr(cluster_alloc) a = place_job(cl);
    coll_options o = coll_options_default();
    g_autoptr(coll_plan) p = coll_plan_new(t, a, COLL_ALLREDUCE, 1e9, &o, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_EQUAL(coll_plan_channels(p), 2);
}

int main(void)
{
    igraph_set_error_handler(igraph_error_handler_ignore);
    CU_TestInfo cases[] = {
        {"ring_time", test_channels_ring_time},
        {"hashing", test_channels_hashing},
        {"nccl_rule", test_channels_nccl_rule},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("channels", cases);
}
