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

static void test_contention_six_jobs(void)
{
    GError *e = NULL;
    g_autoptr(topo) t = topo_build("clos2:tors=3,aggs=2,hosts_per_tor=2", NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    cJSON *jobs = cJSON_Parse(six_jobs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(jobs);
    g_autoptr(trace) tr = trace_json_from_cjson(jobs, "six.json", &e);
    cJSON_Delete(jobs);
    TEST_ASSERT_NO_ERROR(e);
    if (!t || !tr)
        return;
    contention_stats s;
    CU_ASSERT_TRUE(contention_trace(t, tr, CONFIG_PLACE_RECORDED, 1, &s, &e));
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_EQUAL(s.jobs, 6);
    CU_ASSERT_EQUAL(s.jobs_at_risk, 3);
    TEST_ASSERT_CLOSE(s.gpus, 32, 0);
    TEST_ASSERT_CLOSE(s.gpus_at_risk, 18, 0);
    CU_ASSERT_EQUAL(s.jobs_unplaced, 0);
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
}

int main(void)
{
    igraph_set_error_handler(igraph_error_handler_ignore);
    CU_TestInfo cases[] = {
        {"six_jobs", test_contention_six_jobs},
        {"tracker", test_contention_tracker},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("contention", cases);
}
