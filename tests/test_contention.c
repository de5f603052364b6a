/* test_contention.c - suite "contention": the contention-risk statistic
 * (sim/contention.h) on a hand-counted trace.  Not here: the replay's
 * run.json fields (tests/integration.sh).
 *
 * The network: clos2 with 3 ToRs, 2 aggregation switches and 2 hosts of 8
 * GPUs per ToR: h0, h1 under tor0; h2, h3 under tor1; h4, h5 under tor2.
 */
#include <cjson/cJSON.h>
#include <igraph.h>
#include <string.h>

#include "base/ccs.h"
#include "sim/contention.h"
#include "test_util.h"
#include "topo/topo.h"
#include "traces/trace.h"

/* Six jobs, recorded placement (GPUs per host as listed):
 *   A  8 GPUs  h0:4 h2:4   [0, 100)   multi-host, tor0 <-> tor1
 *   B  2 GPUs  h0          [10, 50)   one host, shares h0 with A
 *   C  8 GPUs  h1:4 h3:4   [20, 80)   multi-host, tor0 <-> tor1 too
 *   D  4 GPUs  h4          [0, 100)   one host
 *   E  2 GPUs  h4          [0, 100)   one host, shares h4 with D only
 *   F  8 GPUs  h1:4 h5:4   [100, 200) multi-host, tor0 <-> tor2, starts
 *                                     when A ends (an end goes first)
 * By hand: B shares h0 with A, which crosses hosts: B at risk.  A and C
 * both leave tor0 for tor1, so their rings' candidate paths share tor0's
 * and tor1's uplinks: both at risk (A is not put at risk by B, a one-host
 * job).  D and E share h4 but neither leaves it: not at risk.  F shares
 * tor0's uplinks with A and C and host h1 with C, but never runs with
 * them: not at risk.  Jobs at risk 3 / 6 = 50%; GPUs at risk
 * (8 + 2 + 8) / (8 + 2 + 8 + 4 + 2 + 8) = 18 / 32 = 56.25%. */
static const char *const six_jobs =
    "[{\"id\": \"A\", \"gpus\": 8, \"hosts\": [\"h0\", \"h2\"], \"start_s\": 0, \"end_s\": 100, "
    "\"model\": \"bert-large\"},"
    " {\"id\": \"B\", \"gpus\": 2, \"hosts\": [\"h0\"], \"start_s\": 10, \"end_s\": 50, "
    "\"model\": \"bert-large\"},"
    " {\"id\": \"C\", \"gpus\": 8, \"hosts\": [\"h1\", \"h3\"], \"start_s\": 20, \"end_s\": 80, "
    "\"model\": \"bert-large\"},"
    " {\"id\": \"D\", \"gpus\": 4, \"hosts\": [\"h4\"], \"start_s\": 0, \"end_s\": 100, "
    "\"model\": \"bert-large\"},"
    " {\"id\": \"E\", \"gpus\": 2, \"hosts\": [\"h4\"], \"start_s\": 0, \"end_s\": 100, "
    "\"model\": \"bert-large\"},"
    " {\"id\": \"F\", \"gpus\": 8, \"hosts\": [\"h1\", \"h5\"], \"start_s\": 100, \"end_s\": 200, "
    "\"model\": \"bert-large\"}]";

/* The trace of a JSON job list (NULL, with the error checked, if it does
 * not parse). */
static trace *trace_of(const char *json, const char *name)
{
    cJSON *jobs = cJSON_Parse(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(jobs);
    GError *e = NULL;
    trace *tr = trace_json_from_cjson(jobs, name, &e);
    cJSON_Delete(jobs);
    TEST_ASSERT_NO_ERROR(e);
    return tr;
}

static void test_contention_six_jobs(void)
{
    GError *e = NULL;
    g_autoptr(topo) t = topo_build("clos2:tors=3,aggs=2,hosts_per_tor=2", NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    g_autoptr(trace) tr = trace_of(six_jobs, "six.json");
    if (!t || !tr)
        return;
    contention_stats s;
    CU_ASSERT_TRUE(contention_trace(t, tr, CONFIG_PLACE_RECORDED, 1, CONTENTION_PATHS_CANDIDATES, &s, &e));
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_EQUAL(s.jobs, 6);
    CU_ASSERT_EQUAL(s.jobs_at_risk, 3);
    TEST_ASSERT_CLOSE(s.gpus, 32, 0);
    TEST_ASSERT_CLOSE(s.gpus_at_risk, 18, 0);
    CU_ASSERT_EQUAL(s.jobs_unplaced, 0);
    /* By span (clos2 has no core tier): B, D, E on one host (2 + 4 + 2 =
     * 8 GPUs), B at risk by a host (2 GPUs); A, C, F through the
     * aggregation switches (24 GPUs), A and C at risk by tor0's and tor1's
     * uplinks (16 GPUs), none by a host (A's host partner B is one-host; F
     * meets C's host h1 only after C ended). */
    CU_ASSERT_TRUE(s.have_spans);
    const contention_span_stats *h = &s.span[CONTENTION_SPAN_HOST];
    const contention_span_stats *g = &s.span[CONTENTION_SPAN_AGG];
    CU_ASSERT_EQUAL(h->jobs, 3);
    CU_ASSERT_EQUAL(h->jobs_at_risk, 1);
    TEST_ASSERT_CLOSE(h->gpus, 8, 0);
    TEST_ASSERT_CLOSE(h->gpus_at_risk, 2, 0);
    CU_ASSERT_EQUAL(h->by_host, 1);
    CU_ASSERT_EQUAL(g->jobs, 3);
    CU_ASSERT_EQUAL(g->jobs_at_risk, 2);
    TEST_ASSERT_CLOSE(g->gpus, 24, 0);
    TEST_ASSERT_CLOSE(g->gpus_at_risk, 16, 0);
    CU_ASSERT_EQUAL(g->by_host, 0);
    CU_ASSERT_EQUAL(g->by_tor_agg, 2);
    CU_ASSERT_EQUAL(g->by_core, 0);
    CU_ASSERT_EQUAL(s.span[CONTENTION_SPAN_SWITCH].jobs, 0);
    CU_ASSERT_EQUAL(s.span[CONTENTION_SPAN_CORE].jobs, 0);
    /* By size: 8 GPUs: A, C, F (24 GPUs), A and C at risk (16); 2-7 GPUs:
     * B, D, E (8 GPUs), B at risk (2); no other size. */
    const contention_span_stats *g8 = &s.size[contention_size_bucket(8)];
    const contention_span_stats *g2 = &s.size[contention_size_bucket(2)];
    CU_ASSERT_STRING_EQUAL(contention_size_name(contention_size_bucket(8)), "8");
    CU_ASSERT_STRING_EQUAL(contention_size_name(contention_size_bucket(4)), "2-7");
    CU_ASSERT_EQUAL(g8->jobs, 3);
    CU_ASSERT_EQUAL(g8->jobs_at_risk, 2);
    TEST_ASSERT_CLOSE(g8->gpus_at_risk, 16, 0);
    CU_ASSERT_EQUAL(g2->jobs, 3);
    CU_ASSERT_EQUAL(g2->jobs_at_risk, 1);
    TEST_ASSERT_CLOSE(g2->gpus, 8, 0);
    TEST_ASSERT_CLOSE(g2->gpus_at_risk, 2, 0);
    CU_ASSERT_EQUAL(contention_size_bucket(1), 0);
    CU_ASSERT_EQUAL(contention_size_bucket(128), 6);
    CU_ASSERT_EQUAL(contention_size_bucket(129), 7);
    CU_ASSERT_EQUAL(contention_size_bucket(257), 8);
}

/* The spans on a three-tier network: fat-tree k=4 (pod 0: h0, h1 under
 * tor0, h2, h3 under tor1; pod 1: h4, h5 under tor2, h6, h7 under tor3;
 * pod 2: h8, h9 under tor4), all three jobs over [0, 100):
 *   G  8 GPUs  h0:4 h4:4   pod 0 <-> pod 1 from tor0 to tor2: span core
 *   H  8 GPUs  h2:4 h6:4   pod 0 <-> pod 1 from tor1 to tor3: span core
 *   K  8 GPUs  h8:4 h9:4   both under tor4: span switch
 * By hand: G and H use different ToRs, so no ToR uplink of one is on a
 * path of the other, but both cross between pod 0's and pod 1's
 * aggregation switches and the cores: they share agg_core links, both at
 * risk by core only.  K's flows never leave tor4 and it shares no host:
 * not at risk.  Core: 2 jobs, 2 at risk (16 GPUs), by_core 2, by_tor_agg
 * 0; switch: 1 job, 0 at risk. */
static void test_contention_spans_core(void)
{
    GError *e = NULL;
    g_autoptr(topo) t = topo_build("fat-tree:k=4", NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    g_autoptr(trace) tr = trace_of(
        "[{\"id\": \"G\", \"gpus\": 8, \"hosts\": [\"h0\", \"h4\"], \"start_s\": 0, \"end_s\": 100, "
        "\"model\": \"bert-large\"},"
        " {\"id\": \"H\", \"gpus\": 8, \"hosts\": [\"h2\", \"h6\"], \"start_s\": 0, \"end_s\": 100, "
        "\"model\": \"bert-large\"},"
        " {\"id\": \"K\", \"gpus\": 8, \"hosts\": [\"h8\", \"h9\"], \"start_s\": 0, \"end_s\": 100, "
        "\"model\": \"bert-large\"}]",
        "spans.json");
    if (!t || !tr)
        return;
    contention_stats s;
    CU_ASSERT_TRUE(contention_trace(t, tr, CONFIG_PLACE_RECORDED, 1, CONTENTION_PATHS_CANDIDATES, &s, &e));
    TEST_ASSERT_NO_ERROR(e);
    const contention_span_stats *c = &s.span[CONTENTION_SPAN_CORE];
    const contention_span_stats *w = &s.span[CONTENTION_SPAN_SWITCH];
    CU_ASSERT_EQUAL(c->jobs, 2);
    CU_ASSERT_EQUAL(c->jobs_at_risk, 2);
    TEST_ASSERT_CLOSE(c->gpus_at_risk, 16, 0);
    CU_ASSERT_EQUAL(c->by_core, 2);
    CU_ASSERT_EQUAL(c->by_tor_agg, 0);
    CU_ASSERT_EQUAL(c->by_host, 0);
    CU_ASSERT_EQUAL(w->jobs, 1);
    CU_ASSERT_EQUAL(w->jobs_at_risk, 0);
    CU_ASSERT_EQUAL(s.jobs_at_risk, 2);
}

/* Two jobs across the same two ToRs, A on h0 and h2, B on h1 and h3 (ToR 0:
 * h0, h1; ToR 1: h2, h3), one NIC per host, both over [0, 100).  Each
 * job's one-channel ring is two flows, one each way between the ToRs.
 * Candidate paths: every spine's links, shared: both at risk at any seed.
 * Chosen paths with one spine: the only path, so the same.  Chosen paths
 * with two spines: each flow hashes to one of two spines, so the jobs
 * share a link exactly when the flows going the same way picked the same
 * spine; that holds for both jobs or neither (0 or 2 at risk), and the
 * hash, salted by the seed, must give each outcome at some of seeds
 * 1..16 (were they independent draws, all 16 would agree with a chance of
 * about 1 in 100; the hash is fixed, so the test is deterministic). */
static void test_contention_chosen_paths(void)
{
    g_autoptr(trace) tr = trace_of(
        "[{\"id\": \"A\", \"gpus\": 16, \"hosts\": [\"h0\", \"h2\"], \"start_s\": 0, "
        "\"end_s\": 100, \"model\": \"bert-large\"},"
        " {\"id\": \"B\", \"gpus\": 16, \"hosts\": [\"h1\", \"h3\"], \"start_s\": 0, "
        "\"end_s\": 100, \"model\": \"bert-large\"}]",
        "two.json");
    GError *e = NULL;
    g_autoptr(topo) one = topo_build("clos2:tors=2,aggs=1,hosts_per_tor=2,nics=1", NULL, &e);
    g_autoptr(topo) two = topo_build("clos2:tors=2,aggs=2,hosts_per_tor=2,nics=1", NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_FATAL(tr && one && two);
    contention_stats s;
    CU_ASSERT_TRUE(contention_trace(one, tr, CONFIG_PLACE_RECORDED, 1, CONTENTION_PATHS_CHOSEN, &s,
                                    &e));
    CU_ASSERT_EQUAL(s.jobs_at_risk, 2);
    int outcomes[3] = {0, 0, 0};
    for (uint64_t seed = 1; seed <= 16; seed++) {
        CU_ASSERT_TRUE(contention_trace(two, tr, CONFIG_PLACE_RECORDED, seed,
                                        CONTENTION_PATHS_CANDIDATES, &s, &e));
        CU_ASSERT_EQUAL(s.jobs_at_risk, 2);
        CU_ASSERT_TRUE(contention_trace(two, tr, CONFIG_PLACE_RECORDED, seed,
                                        CONTENTION_PATHS_CHOSEN, &s, &e));
        CU_ASSERT(s.jobs_at_risk == 0 || s.jobs_at_risk == 2);
        outcomes[MIN(s.jobs_at_risk, 2)]++;
    }
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT(outcomes[0] > 0);
    CU_ASSERT(outcomes[2] > 0);
}

/* The tracker alone.  Links: job 1 on {5, 9}, job 2 on {7, 9}, job 3 on
 * {1, 2}; hosts disjoint.  1 and 2 meet on link 9: both at risk; 3 meets
 * nobody.  Job 4 (one host, h 10) starts after 1 ended and shares host 10
 * with job 1's old host: not at risk; job 5 (multi-host on 10 and 11)
 * starts while 4 runs: 4 at risk (shares host 10 with a multi-host job),
 * 5 not (4 is one-host). */
static void test_contention_tracker(void)
{
    g_autoptr(contention) c = contention_new();
    contention_job_start(c, 1, 8, (const uint32_t[]){10, 1}, 2, (const uint32_t[]){5, 9}, 2);
    contention_job_start(c, 2, 8, (const uint32_t[]){2, 3}, 2, (const uint32_t[]){7, 9}, 2);
    contention_job_start(c, 3, 8, (const uint32_t[]){4, 6}, 2, (const uint32_t[]){1, 2}, 2);
    CU_ASSERT_TRUE(contention_job_at_risk(c, 1));
    CU_ASSERT_TRUE(contention_job_at_risk(c, 2));
    CU_ASSERT_FALSE(contention_job_at_risk(c, 3));
    contention_job_end(c, 1);
    contention_job_start(c, 4, 1, (const uint32_t[]){10}, 1, NULL, 0);
    CU_ASSERT_FALSE(contention_job_at_risk(c, 4));
    contention_job_start(c, 5, 4, (const uint32_t[]){11, 10}, 2, (const uint32_t[]){3}, 1);
    CU_ASSERT_TRUE(contention_job_at_risk(c, 4));
    CU_ASSERT_FALSE(contention_job_at_risk(c, 5));
    contention_stats s;
    contention_get(c, &s);
    CU_ASSERT_EQUAL(s.jobs, 5);
    CU_ASSERT_EQUAL(s.jobs_at_risk, 3);
    TEST_ASSERT_CLOSE(s.gpus_at_risk, 17, 0);
    CU_ASSERT_FALSE(s.have_spans); /* no topology given: totals only */
}

int main(void)
{
    igraph_set_error_handler(igraph_error_handler_ignore);
    CU_TestInfo cases[] = {
        {"six_jobs", test_contention_six_jobs},
        {"spans_core", test_contention_spans_core},
        {"chosen_paths", test_contention_chosen_paths},
        {"tracker", test_contention_tracker},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("contention", cases);
}
