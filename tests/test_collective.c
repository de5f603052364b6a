/* test_collective.c - suite "collective": placement and collective plans on a
 * k=4 fat-tree.  Not here: running them (test_replay.c).
 *
 * Suite "collective": placement (sim/cluster.h) and collective plans
 * (sim/collective.h) on a k=4 fat-tree of default servers (8 GPUs, 4 PCIe
 * switches, 4 NICs: GPUs 2i and 2i+1 behind NIC i).
 */
#include <igraph.h>
#include <string.h>

#include "base/ccs.h"
#include "sim/cluster.h"
#include "sim/collective.h"
#include "test_util.h"
#include "topo/topo.h"

/* One bucket, one channel per rail, uid 0, seed 1 (the model before
 * channels); _flows: every ring hop its own transfer. */
static const coll_options one_channel = {.buckets = 1, .channels = 1, .seed = 1};
static const coll_options one_channel_flows = {
    .buckets = 1, .flows_model = true, .channels = 1, .seed = 1};

static topo *fat_tree(void)
{
    GError *e = NULL;
    topo *t = topo_build("fat-tree:k=4", NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    return t;
}

/* Recorded hosts and the PCIe-aware GPU choice.
 * 4 GPUs on h3: no NIC group holds 4 (2 each), so whole groups, emptiest
 * first, lowest index on ties: groups 0 and 1 -> GPUs 0,1,2,3.
 * 1 GPU on h3: best fit = the fullest group that holds 1; groups 2 and 3
 * tie at 2 free -> group 2 -> GPU 4.  Another 1 GPU: group 2 now has 1
 * free, the fullest -> GPU 5: the two small jobs share NIC 2, as an
 * allocator packing PCIe switches does. */
static void test_cluster_recorded(void)
{
    g_autoptr(topo) t = fat_tree();
    if (!t)
        return;
    g_autoptr(cluster) c = cluster_new(t);
    CU_ASSERT_EQUAL(cluster_gpu_count(c), 16 * 8);
    const char *h3[] = {"h3"};
    GError *e = NULL;
    g_autoptr(cluster_alloc) a = cluster_place(c, h3, NULL, 1, 4, CONFIG_PLACE_RECORDED, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_FALSE(a->by_policy);
    CU_ASSERT_EQUAL(a->n_hosts, 1);
    CU_ASSERT_EQUAL(a->n_gpus, 4);
    for (uint32_t i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(a->gpus[i], i);
    g_autoptr(cluster_alloc) b = cluster_place(c, h3, NULL, 1, 1, CONFIG_PLACE_RECORDED, NULL, &e);
    g_autoptr(cluster_alloc) d = cluster_place(c, h3, NULL, 1, 1, CONFIG_PLACE_RECORDED, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_EQUAL(b->gpus[0], 4);
    CU_ASSERT_EQUAL(d->gpus[0], 5);
    CU_ASSERT_EQUAL(cluster_free_gpu_count(c), 128 - 6);
    /* spread evenly: 6 GPUs over h0 and h1 -> 3 + 3 */
    const char *h01[] = {"h0", "h1"};
    g_autoptr(cluster_alloc) s = cluster_place(c, h01, NULL, 2, 6, CONFIG_PLACE_RECORDED, NULL, &e);
    CU_ASSERT_EQUAL(s->n_hosts, 2);
    CU_ASSERT_EQUAL(s->gpu_off[1], 3);
    CU_ASSERT_EQUAL(s->gpu_off[2], 6);
    cluster_release(c, s);
    cluster_release(c, d);
    cluster_release(c, b);
    cluster_release(c, a);
    CU_ASSERT_EQUAL(cluster_free_gpu_count(c), 128);
}

/* Missing or full hosts go to the policy.  locality: 12 GPUs do not fit on
 * one host (8), so the smallest ToR group that holds them: every ToR has 2
 * hosts = 16 GPUs; the job takes one ToR's two hosts, 8 + 4.  packed: 12
 * GPUs fill h0 (8) and 4 of h1.  Too many GPUs: an error. */
static void test_cluster_policy(void)
{
    g_autoptr(topo) t = fat_tree();
    if (!t)
        return;
    g_autoptr(cluster) c = cluster_new(t);
    const char *nope[] = {"nope"};
    GError *e = NULL;
    g_autoptr(cluster_alloc) a =
        cluster_place(c, nope, NULL, 1, 12, CONFIG_PLACE_RECORDED, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_TRUE(a->by_policy);
    CU_ASSERT_EQUAL(a->n_hosts, 2);
    CU_ASSERT_EQUAL(a->gpu_off[1], 8);
    CU_ASSERT_EQUAL(topo_host_group(t, a->hosts[0], TOPO_LEVEL_TOR),
                    topo_host_group(t, a->hosts[1], TOPO_LEVEL_TOR));
    cluster_release(c, a);
    g_autoptr(cluster_alloc) p = cluster_place(c, NULL, NULL, 0, 12, CONFIG_PLACE_PACKED, NULL, &e);
    CU_ASSERT_EQUAL(p->hosts[0], 0);
    CU_ASSERT_EQUAL(p->hosts[1], 1);
    CU_ASSERT_EQUAL(p->gpu_off[2], 12);
    CU_ASSERT_PTR_NULL(cluster_place(c, NULL, NULL, 0, 200, CONFIG_PLACE_PACKED, NULL, &e));
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    cluster_release(c, p);
    /* random: seeded, so the same seed gives the same hosts */
    GRand *r1 = g_rand_new_with_seed(5), *r2 = g_rand_new_with_seed(5);
    g_autoptr(cluster_alloc) x = cluster_place(c, NULL, NULL, 0, 4, CONFIG_PLACE_RANDOM, r1, &e);
    cluster_release(c, x);
    g_autoptr(cluster_alloc) y = cluster_place(c, NULL, NULL, 0, 4, CONFIG_PLACE_RANDOM, r2, &e);
    CU_ASSERT_EQUAL(x->hosts[0], y->hosts[0]);
    cluster_release(c, y);
    g_rand_free(r1);
    g_rand_free(r2);
}

/* The policies other than recorded ignore the trace's hosts.  On the
 * empty k=4 fat-tree (16 hosts of 8 GPUs, 2 hosts per ToR):
 * locality, 4 GPUs recorded on h3: best fit, all hosts tie at 8 free, the
 * lowest id wins: h0.
 * spread, 4 GPUs: hosts interleaved across ToRs, one GPU each: 4 hosts on
 * 4 different ToRs.  20 GPUs: every host 1, then the first 4 of the order
 * a second: 16 hosts, 4 of them with 2.
 * fragmented, 5 GPUs: at most 8/4 = 2 per host: 2 + 2 + 1 on 3 hosts.
 * 40 GPUs: 16 x 2 = 32 in the first pass, the missing 8 from the same
 * order: the first host to 8 (+6), the second to 4 (+2): one host of 8,
 * one of 4, fourteen of 2. */
static void test_cluster_policies(void)
{
    g_autoptr(topo) t = fat_tree();
    if (!t)
        return;
    g_autoptr(cluster) c = cluster_new(t);
    GError *e = NULL;
    const char *h3[] = {"h3"};
    g_autoptr(cluster_alloc) l = cluster_place(c, h3, NULL, 1, 4, CONFIG_PLACE_LOCALITY, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_TRUE(l->by_policy);
    CU_ASSERT_EQUAL(l->n_hosts, 1);
    CU_ASSERT_EQUAL(l->hosts[0], 0);
    cluster_release(c, l);

    g_autoptr(cluster_alloc) s4 = cluster_place(c, h3, NULL, 1, 4, CONFIG_PLACE_SPREAD, NULL, &e);
    CU_ASSERT_EQUAL_FATAL(s4->n_hosts, 4);
    for (size_t i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(s4->gpu_off[i + 1] - s4->gpu_off[i], 1);
        for (size_t j = 0; j < i; j++)
            CU_ASSERT_NOT_EQUAL(topo_host_group(t, s4->hosts[i], TOPO_LEVEL_TOR),
                                topo_host_group(t, s4->hosts[j], TOPO_LEVEL_TOR));
    }
    cluster_release(c, s4);
    g_autoptr(cluster_alloc) s20 = cluster_place(c, NULL, NULL, 0, 20, CONFIG_PLACE_SPREAD, NULL, &e);
    CU_ASSERT_EQUAL_FATAL(s20->n_hosts, 16);
    size_t twos = 0;
    for (size_t i = 0; i < 16; i++)
        twos += s20->gpu_off[i + 1] - s20->gpu_off[i] == 2;
    CU_ASSERT_EQUAL(twos, 4);
    cluster_release(c, s20);

    GRand *r1 = g_rand_new_with_seed(3), *r2 = g_rand_new_with_seed(3);
    g_autoptr(cluster_alloc) f5 = cluster_place(c, NULL, NULL, 0, 5, CONFIG_PLACE_FRAGMENTED, r1, &e);
    CU_ASSERT_EQUAL_FATAL(f5->n_hosts, 3);
    CU_ASSERT_EQUAL(f5->gpu_off[1], 2);
    CU_ASSERT_EQUAL(f5->gpu_off[2], 4);
    CU_ASSERT_EQUAL(f5->gpu_off[3], 5);
    cluster_release(c, f5);
    g_autoptr(cluster_alloc) g5 = cluster_place(c, NULL, NULL, 0, 5, CONFIG_PLACE_FRAGMENTED, r2, &e);
    CU_ASSERT_EQUAL(g5->hosts[0], f5->hosts[0]); /* same seed, same hosts */
    CU_ASSERT_EQUAL(g5->hosts[2], f5->hosts[2]);
    cluster_release(c, g5);
    g_autoptr(cluster_alloc) f40 = cluster_place(c, NULL, NULL, 0, 40, CONFIG_PLACE_FRAGMENTED, r1, &e);
    CU_ASSERT_EQUAL_FATAL(f40->n_hosts, 16);
    size_t n8 = 0, n4 = 0, n2 = 0;
    for (size_t i = 0; i < 16; i++) {
        uint32_t g = f40->gpu_off[i + 1] - f40->gpu_off[i];
        n8 += g == 8;
        n4 += g == 4;
        n2 += g == 2;
    }
    CU_ASSERT_EQUAL(n8, 1);
    CU_ASSERT_EQUAL(n4, 1);
    CU_ASSERT_EQUAL(n2, 14);
    cluster_release(c, f40);
    CU_ASSERT_EQUAL(cluster_free_gpu_count(c), 128);
    g_rand_free(r1);
    g_rand_free(r2);
}

/* Hierarchical all-reduce of S over 2 hosts x 8 GPUs (4 rails):
 * step 0 NVLink reduce-scatter, one transfer per host of 7/8 S, 7 steps;
 * step 1 one ring per rail (4 transfers) of 2(H-1)/H * S/R = S/4, each the
 * union of the two hops h0->h1 and h1->h0 (2 flows per rail, 8 flows of
 * S/4 per iteration); step 2 NVLink all-gather like step 0.  With
 * --collective-model flows, step 1 has 8 transfers of S/4.  Each ring
 * transfer uses PCIe links (GPU->PCIe->NIC out of each host, NIC->PCIe
 * ->GPU into each), 2 links each way per host, 8 in all, multiplicity 1. */
static void test_collective_allreduce(void)
{
    g_autoptr(topo) t = fat_tree();
    if (!t)
        return;
    g_autoptr(cluster) c = cluster_new(t);
    const char *h[] = {"h0", "h1"};
    GError *e = NULL;
    g_autoptr(cluster_alloc) a = cluster_place(c, h, NULL, 2, 16, CONFIG_PLACE_RECORDED, NULL, &e);
    const double S = 8e9;
    g_autoptr(coll_plan) p = coll_plan_new(t, a, COLL_ALLREDUCE, S, &one_channel, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL_FATAL(coll_plan_step_count(p), 3);
    CU_ASSERT_EQUAL(coll_plan_xfer_count(p, 0), 2);
    TEST_ASSERT_CLOSE(coll_plan_xfer(p, 0, 0)->bytes, 7.0 / 8.0 * S, 1e-12);
    CU_ASSERT_EQUAL(coll_plan_xfer(p, 0, 0)->steps, 7);
    CU_ASSERT_EQUAL(coll_plan_xfer_count(p, 1), 4);
    TEST_ASSERT_CLOSE(coll_plan_xfer(p, 1, 0)->bytes, S / 4, 1e-12);
    CU_ASSERT_EQUAL(coll_plan_xfer(p, 1, 0)->steps, 2);
    CU_ASSERT_EQUAL(coll_plan_flow_count(p), 8);
    for (size_t f = 0; f < 8; f++)
        TEST_ASSERT_CLOSE(coll_plan_flow(p, f)->bytes_per_iter, S / 4, 1e-12);
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) mult = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    coll_xfer_links(p, coll_plan_xfer(p, 1, 0), links, mult);
    size_t pcie = 0;
    for (guint i = 0; i < links->len; i++) {
        CU_ASSERT_EQUAL(g_array_index(mult, uint32_t, i), 1);
        if (topo_link_get(t, g_array_index(links, uint32_t, i))->tier == TOPO_TIER_PCIE)
            pcie++;
    }
    CU_ASSERT_EQUAL(pcie, 8);
    g_autoptr(coll_plan) q = coll_plan_new(t, a, COLL_ALLREDUCE, S, &one_channel_flows, &e);
    CU_ASSERT_EQUAL(coll_plan_xfer_count(q, 1), 8);
    cluster_release(c, a);
}

/* A single-host job only uses NVLink: one step of 2(g-1)/g S = 7/4 S for
 * 8 GPUs, no flows.  One GPU: nothing at all. */
static void test_collective_single_host(void)
{
    g_autoptr(topo) t = fat_tree();
    if (!t)
        return;
    g_autoptr(cluster) c = cluster_new(t);
    const char *h[] = {"h5"};
    GError *e = NULL;
    g_autoptr(cluster_alloc) a = cluster_place(c, h, NULL, 1, 8, CONFIG_PLACE_RECORDED, NULL, &e);
    g_autoptr(coll_plan) p = coll_plan_new(t, a, COLL_ALLREDUCE, 1e9, &one_channel, &e);
    CU_ASSERT_EQUAL_FATAL(coll_plan_step_count(p), 1);
    CU_ASSERT_EQUAL(coll_plan_flow_count(p), 0);
    TEST_ASSERT_CLOSE(coll_plan_xfer(p, 0, 0)->bytes, 1.75e9, 1e-12);
    const uint32_t *fl;
    const double *fb;
    size_t nf = coll_plan_fixed_links(p, &fl, &fb);
    CU_ASSERT_EQUAL(nf, 16); /* 8 GPU->NVSwitch + 8 NVSwitch->GPU */
    for (size_t i = 0; i < nf; i++)
        CU_ASSERT_EQUAL(topo_link_get(t, fl[i])->tier, TOPO_TIER_NVLINK);
    g_autoptr(cluster_alloc) b = cluster_place(c, (const char *[]){"h6"}, NULL, 1, 1,
                                               CONFIG_PLACE_RECORDED, NULL, &e);
    g_autoptr(coll_plan) q = coll_plan_new(t, b, COLL_ALLREDUCE, 1e9, &one_channel, &e);
    CU_ASSERT_EQUAL(coll_plan_step_count(q), 0);
}

/* All-to-all of S over 2 hosts x 8 GPUs (n = 16, 4 rails): each ordered
 * host pair and rail carries g_a g_b S / (n R) = 64 S / 64 = S; NVLink
 * carries (g-1) S/n = 7/16 S per host.  One step, 2 + 8 transfers. */
static void test_collective_alltoall(void)
{
    g_autoptr(topo) t = fat_tree();
    if (!t)
        return;
    g_autoptr(cluster) c = cluster_new(t);
    const char *h[] = {"h0", "h4"};
    GError *e = NULL;
    g_autoptr(cluster_alloc) a = cluster_place(c, h, NULL, 2, 16, CONFIG_PLACE_RECORDED, NULL, &e);
    g_autoptr(coll_plan) p = coll_plan_new(t, a, COLL_ALLTOALL, 1e9, &one_channel, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_EQUAL_FATAL(coll_plan_step_count(p), 1);
    CU_ASSERT_EQUAL(coll_plan_xfer_count(p, 0), 10);
    TEST_ASSERT_CLOSE(coll_plan_xfer(p, 0, 0)->bytes, 7.0 / 16.0 * 1e9, 1e-12);
    TEST_ASSERT_CLOSE(coll_plan_xfer(p, 0, 2)->bytes, 1e9, 1e-12);
    /* h0 and h4 are in different pods: 4 candidate paths (k/2)^2 = 4 */
    CU_ASSERT_EQUAL(coll_plan_flow(p, 0)->n_paths, 4);
}

/* Spread paths: 2 hosts x 8 GPUs in different pods of a k=4 fat-tree, 4
 * rails.  All 4 NICs of h0 hang off one ToR with k/2 = 2 uplinks, so the 4
 * flows h0 -> h4 (S/4 each) at best put 2 flows on each uplink, and each
 * aggregation switch's 2 core uplinks then carry 1 each; the same holds
 * for h4 -> h0.  So after coll_plan_spread_paths no ToR-agg or agg-core
 * link carries more than 2 x S/4, and a second call changes nothing. */
static void test_collective_spread_paths(void)
{
    g_autoptr(topo) t = fat_tree();
    if (!t)
        return;
    g_autoptr(cluster) c = cluster_new(t);
    const char *h[] = {"h0", "h4"};
    GError *e = NULL;
    g_autoptr(cluster_alloc) a = cluster_place(c, h, NULL, 2, 16, CONFIG_PLACE_RECORDED, NULL, &e);
    const double S = 4e9;
    g_autoptr(coll_plan) p = coll_plan_new(t, a, COLL_ALLREDUCE, S, &one_channel, &e);
    CU_ASSERT_TRUE(coll_plan_spread_paths(p, t, &e));
    TEST_ASSERT_NO_ERROR(e);
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) bytes = g_array_new(FALSE, FALSE, sizeof(double));
    coll_plan_link_bytes(p, links, bytes);
    double worst_tor_agg = 0, worst_agg_core = 0;
    for (guint i = 0; i < links->len; i++) {
        topo_tier tier = topo_link_get(t, g_array_index(links, uint32_t, i))->tier;
        double b = g_array_index(bytes, double, i);
        if (tier == TOPO_TIER_TOR_AGG)
            worst_tor_agg = MAX(worst_tor_agg, b);
        if (tier == TOPO_TIER_AGG_CORE)
            worst_agg_core = MAX(worst_agg_core, b);
    }
    TEST_ASSERT_CLOSE(worst_tor_agg, 2 * S / 4, 1e-12);
    TEST_ASSERT_CLOSE(worst_agg_core, S / 4, 1e-12);
    size_t before[8];
    for (size_t f = 0; f < 8; f++)
        before[f] = coll_plan_flow(p, f)->path;
    CU_ASSERT_TRUE(coll_plan_spread_paths(p, t, &e));
    for (size_t f = 0; f < 8; f++)
        CU_ASSERT_EQUAL(coll_plan_flow(p, f)->path, before[f]);
}

/* Hops and startup latency of a 2-host ring on a 2-ToR Clos with one
 * aggregation switch, one GPU and one NIC per host (latency_us=1,
 * host_latency_us=0.5), one channel: the network step is one transfer of 2
 * hops (h0 -> h2, h2 -> h0), each GPU -> PCIe -> NIC (2 host links, 1 us),
 * NIC -> ToR -> agg -> ToR -> NIC (the flow, 4 us), NIC -> PCIe -> GPU
 * (1 us): L = 4 + 2 = 6 us, 2 lock-steps.  Each hop forwards what the
 * other sent.  With alpha = 5 us the transfer waits 2 x 5 + 6 = 16 us
 * (latency once), or 2 x (5 + 6) = 22 us with step_latency. */
static void test_collective_hops_and_step_latency(void)
{
    GError *e = NULL;
    g_autoptr(topo) t = topo_build("clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=1,nics=1,pcie=1,"
                                   "latency_us=1,host_latency_us=0.5",
                                   NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    g_autoptr(cluster) c = cluster_new(t);
    const char *h[] = {"h0", "h2"};
    g_autoptr(cluster_alloc) a = cluster_place(c, h, NULL, 2, 2, CONFIG_PLACE_RECORDED, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    coll_options o = one_channel, per_step = one_channel;
    per_step.step_latency = true;
    g_autoptr(coll_plan) p = coll_plan_new(t, a, COLL_ALLREDUCE, 1e9, &o, &e);
    g_autoptr(coll_plan) q = coll_plan_new(t, a, COLL_ALLREDUCE, 1e9, &per_step, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_FATAL(p && q && coll_plan_step_count(p) == 1 && coll_plan_xfer_count(p, 0) == 1);
    const coll_xfer *x = coll_plan_xfer(p, 0, 0);
    CU_ASSERT_EQUAL(x->steps, 2);
    CU_ASSERT_EQUAL_FATAL(x->hops->len, 2);
    for (uint32_t k = 0; k < 2; k++) {
        const coll_hop *hp = &g_array_index(x->hops, coll_hop, k);
        CU_ASSERT_EQUAL(hp->prev, 1 - k);
        CU_ASSERT_EQUAL(hp->before, 2);
        CU_ASSERT_EQUAL(hp->after, 2);
        CU_ASSERT_EQUAL(hp->flow, g_array_index(x->flows, uint32_t, k));
        CU_ASSERT_EQUAL(coll_plan_flow(p, hp->flow)->links->len, 4);
    }
    TEST_ASSERT_CLOSE(coll_xfer_startup_s(p, x, 5e-6), 16e-6, 1e-9);
    TEST_ASSERT_CLOSE(coll_xfer_startup_s(q, coll_plan_xfer(q, 0, 0), 5e-6), 22e-6, 1e-9);
    cluster_release(c, a);
}

/* Two groups' 2-host rings merged into one lock-step transfer (a
 * structured job's DP groups): 4 hops, each still forwarding what the
 * other hop of its own ring sent (prev 1, 0, 3, 2), not a 4-hop ring. */
static void test_collective_merged_rings(void)
{
    GError *e = NULL;
    g_autoptr(topo) t = topo_build("clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=1,nics=1,pcie=1",
                                   NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    g_autoptr(cluster) c = cluster_new(t);
    const char *g0[] = {"h0", "h2"}, *g1[] = {"h1", "h3"};
    g_autoptr(cluster_alloc) a = cluster_place(c, g0, NULL, 2, 2, CONFIG_PLACE_RECORDED, NULL, &e);
    g_autoptr(cluster_alloc) b = cluster_place(c, g1, NULL, 2, 2, CONFIG_PLACE_RECORDED, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    g_autoptr(coll_plan) p = coll_plan_new_empty(&one_channel);
    const cluster_alloc *groups[] = {a, b};
    coll_op_options oo = {.repeat = 1, .instances = 1, .merge = true};
    int op = coll_plan_add_op(p, t, groups, 2, COLL_ALLREDUCE, 1e9, &oo, &one_channel, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_FATAL(op == 0 && coll_plan_op_step_count(p, 0) == 1 &&
                    coll_plan_op_xfer_count(p, 0, 0) == 1);
    const coll_xfer *x = coll_plan_op_xfer(p, 0, 0, 0);
    CU_ASSERT_EQUAL_FATAL(x->hops->len, 4);
    const uint32_t prev[] = {1, 0, 3, 2};
    for (uint32_t k = 0; k < 4; k++) {
        const coll_hop *hp = &g_array_index(x->hops, coll_hop, k);
        CU_ASSERT_EQUAL(hp->prev, prev[k]);
        /* its host links are its own: the first one leaves its GPU */
        uint32_t first = g_array_index(x->fixed, uint32_t, hp->first);
        CU_ASSERT_EQUAL(topo_node_get_kind(t, topo_link_get(t, first)->src), TOPO_NODE_GPU);
    }
    cluster_release(c, a);
    cluster_release(c, b);
}

/* Links that never bind: 4 hosts of 2 GPUs behind one PCIe switch and one
 * NIC of 200 Gb/s.  Per host, GPU -> PCIe (2), PCIe -> NIC (1) and back
 * (3) are only ever crossed on the way to or from the NIC's network link,
 * whose 200 Gb/s are below PCIe's 252: 6 pairs a host, 24 in all, each
 * link named once, each with its own host's NIC uplink (towards the NIC)
 * or downlink.  With PCIe at 100 Gb/s the NIC links no longer imply them:
 * none. */
static void test_collective_dominated_links(void)
{
    GError *e = NULL;
    g_autoptr(topo) t = topo_build("clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=2,nics=1,pcie=1",
                                   NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    coll_dominated_links(t, pairs);
    CU_ASSERT_EQUAL_FATAL(pairs->len, 2 * 24);
    g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = 0; i < pairs->len; i += 2) {
        const topo_link *a = topo_link_get(t, g_array_index(pairs, uint32_t, i));
        const topo_link *b = topo_link_get(t, g_array_index(pairs, uint32_t, i + 1));
        CU_ASSERT_TRUE(g_hash_table_add(seen, GUINT_TO_POINTER(g_array_index(pairs, uint32_t, i))));
        CU_ASSERT_EQUAL(a->tier, TOPO_TIER_PCIE);
        CU_ASSERT_EQUAL(b->tier, TOPO_TIER_HOST_TOR);
        bool towards_nic = topo_node_get_kind(t, a->src) == TOPO_NODE_GPU ||
                           topo_node_get_kind(t, a->dst) == TOPO_NODE_NIC;
        uint32_t nic = towards_nic ? b->src : b->dst;
        CU_ASSERT_EQUAL(topo_node_get_kind(t, nic), TOPO_NODE_NIC);
        CU_ASSERT_EQUAL(topo_node_host(t, nic), topo_node_host(t, a->src));
    }
    g_autoptr(topo) slow = topo_build(
        "clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=2,nics=1,pcie=1,pcie_gbps=100", NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(slow);
    g_array_set_size(pairs, 0);
    coll_dominated_links(slow, pairs);
    CU_ASSERT_EQUAL(pairs->len, 0);
}

/* The NIC of host h: its uplink and downlink. */
static void nic_links(const topo *t, uint32_t h, uint32_t *up, uint32_t *down)
{
    CU_ASSERT_TRUE_FATAL(topo_nic_links(t, topo_host_nic_node(t, h, 0), up, down));
}

/* Appends (link, to) to want for each link of GPU g's path out of host h
 * to its NIC (out) or in from it. */
static void want_path(const topo *t, size_t h, size_t g, bool out, uint32_t to, GArray *want)
{
    const uint32_t *l;
    size_t n = out ? topo_path_gpu_to_nic(t, h, g, &l) : topo_path_nic_to_gpu(t, h, g, &l);
    for (size_t i = 0; i < n; i++) {
        uint32_t pair[2] = {l[i], to};
        g_array_append_vals(want, pair, 2);
    }
}

static void want_pair(uint32_t a, uint32_t b, GArray *want)
{
    uint32_t pair[2] = {a, b};
    g_array_append_vals(want, pair, 2);
}

/* Appends to want host h's four NVLinks (2 GPUs), each but the lowest
 * with the lowest. */
static void want_nvlinks(const topo *t, size_t h, GArray *want)
{
    const uint32_t *l01, *l10;
    CU_ASSERT_EQUAL_FATAL(topo_path_nvlink(t, h, 0, 1, &l01), 2);
    CU_ASSERT_EQUAL_FATAL(topo_path_nvlink(t, h, 1, 0, &l10), 2);
    uint32_t nv[4] = {l01[0], l01[1], l10[0], l10[1]};
    uint32_t low = MIN(MIN(nv[0], nv[1]), MIN(nv[2], nv[3]));
    for (int i = 0; i < 4; i++)
        if (nv[i] != low)
            want_pair(nv[i], low, want);
}

static gint cmp_pair(gconstpointer a, gconstpointer b)
{
    const uint32_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* got and want hold the same (link, twin) pairs, in any order. */
static void assert_same_pairs(GArray *got, GArray *want)
{
    CU_ASSERT_EQUAL_FATAL(got->len, want->len);
    qsort(got->data, got->len / 2, 2 * sizeof(uint32_t), cmp_pair);
    qsort(want->data, want->len / 2, 2 * sizeof(uint32_t), cmp_pair);
    for (guint i = 0; i < got->len; i++)
        CU_ASSERT_EQUAL(g_array_index(got, uint32_t, i), g_array_index(want, uint32_t, i));
}

/* A job's links that never bind while it runs (coll_plan_nic_links): 4
 * hosts of 2 GPUs, one PCIe switch and one NIC (NIC 200 Gb/s, PCIe 252).
 * A ring over h0, h1, h2 (all their GPUs) in lock step is one transfer
 * over every hop between hosts (one per channel), from the GPU behind one
 * host's NIC (g0) to the next host's, crossing once each NIC's uplink and
 * downlink and, on each host, the PCIe links out of g0 to the NIC and in
 * from the NIC to g0: every one of them is the twin of the
 * NIC link of lowest id, with two channels as with one; nothing is left to
 * dominate.  Its hops as transfers of their own (the flows model): hop
 * h_i -> h_i+1 alone crosses h_i's uplink, h_i+1's downlink and the PCIe
 * links of its two ends, twins of the lower of the two NIC links.  Inside
 * each host, the reduce-scatter and all-gather rings over its two GPUs
 * cross each of its four NVLinks once: twins of the lowest.  A ring over
 * h0 and one GPU of h3: h3 is not all the job's (another job may use its
 * NIC), so only h0's links, twins of its uplink (the lower) and of its
 * lowest NVLink. */
static void test_collective_nic_links(void)
{
    GError *e = NULL;
    g_autoptr(topo) t = topo_build("clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=2,nics=1,pcie=1",
                                   NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    g_autoptr(cluster) c = cluster_new(t);
    const char *h012[] = {"h0", "h1", "h2"};
    g_autoptr(cluster_alloc) a = cluster_place(c, h012, NULL, 3, 6, CONFIG_PLACE_RECORDED, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    uint32_t up[3], down[3];
    for (int i = 0; i < 3; i++)
        nic_links(t, a->hosts[i], &up[i], &down[i]);
    coll_options two = one_channel;
    two.channels = 2;
    const coll_options *opts[] = {&one_channel, &two, &one_channel_flows};
    uint32_t low = MIN(MIN(up[0], MIN(up[1], up[2])), MIN(down[0], MIN(down[1], down[2])));
    for (int k = 0; k < 3; k++) {
        g_autoptr(coll_plan) p = coll_plan_new(t, a, COLL_ALLREDUCE, 1e9, opts[k], &e);
        TEST_ASSERT_NO_ERROR(e);
        g_autoptr(GArray) twins = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_autoptr(GArray) dom = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        coll_plan_nic_links(p, t, a, twins, dom);
        CU_ASSERT_EQUAL(dom->len, 0);
        g_autoptr(GArray) want = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        for (int i = 0; i < 3; i++) {
            int j = (i + 1) % 3; /* the hop h_i -> h_j */
            uint32_t to = k < 2 ? low : MIN(up[i], down[j]);
            want_path(t, a->hosts[i], 0, true, to, want);
            want_path(t, a->hosts[j], 0, false, to, want);
            if (up[i] != to)
                want_pair(up[i], to, want);
            if (down[j] != to)
                want_pair(down[j], to, want);
            want_nvlinks(t, a->hosts[i], want);
        }
        assert_same_pairs(twins, want);
    }
    cluster_release(c, a);
    const char *h03[] = {"h0", "h3"};
    const int gpus03[] = {2, 1};
    g_autoptr(cluster_alloc) b = cluster_place(c, h03, gpus03, 2, 3, CONFIG_PLACE_RECORDED, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    uint32_t up0, down0;
    nic_links(t, b->hosts[0], &up0, &down0);
    CU_ASSERT_FATAL(up0 < down0); /* (the builder numbers a NIC's uplink first) */
    g_autoptr(coll_plan) q = coll_plan_new(t, b, COLL_ALLREDUCE, 1e9, &one_channel, &e);
    TEST_ASSERT_NO_ERROR(e);
    g_autoptr(GArray) twins = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) dom = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    coll_plan_nic_links(q, t, b, twins, dom);
    CU_ASSERT_EQUAL(dom->len, 0);
    g_autoptr(GArray) want = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    want_pair(down0, up0, want);
    want_path(t, b->hosts[0], 0, true, up0, want);
    want_path(t, b->hosts[0], 0, false, up0, want);
    want_nvlinks(t, b->hosts[0], want);
    assert_same_pairs(twins, want);
    cluster_release(c, b);
}

int main(void)
{
    igraph_set_error_handler(igraph_error_handler_ignore);
    CU_TestInfo cases[] = {
        {"cluster_recorded", test_cluster_recorded},
        {"cluster_policy", test_cluster_policy},
        {"cluster_policies", test_cluster_policies},
        {"allreduce", test_collective_allreduce},
        {"single_host", test_collective_single_host},
        {"alltoall", test_collective_alltoall},
        {"spread_paths", test_collective_spread_paths},
        {"hops_and_step_latency", test_collective_hops_and_step_latency},
        {"merged_rings", test_collective_merged_rings},
        {"dominated_links", test_collective_dominated_links},
        {"nic_links", test_collective_nic_links},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("collective", cases);
}
