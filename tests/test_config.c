/* test_config.c - suite "config": the scenario file and its overrides.
 * Not here: running scenarios (test_replay.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/ccs.h"
#include "sim/config.h"
#include "test_util.h"

/* The docs/usage.md example reads as written. */
static void test_config_design_example(void)
{
    const char *text =
        "{\"topology\": \"fat-tree:k=8,link_gbps=200\", \"trace\": {\"lingjun\": \"dir\"},"
        " \"scheduler\": \"crux\", \"sim\": {\"mode\": \"window\", \"start_s\": 0, \"end_s\": 86400,"
        " \"seed\": 1, \"priority_levels\": 8, \"interval_s\": 60}}";
    g_autoptr(config) c = config_new();
    GError *e = NULL;
    CU_ASSERT_TRUE(config_load_buffer(c, text, strlen(text), "s.json", &e));
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_STRING_EQUAL(c->topology_spec, "fat-tree:k=8,link_gbps=200");
    CU_ASSERT_STRING_EQUAL(c->scheduler, "crux");
    CU_ASSERT_PTR_NOT_NULL(c->trace_obj);
    CU_ASSERT_EQUAL(c->sim.mode, CONFIG_MODE_WINDOW);
    TEST_ASSERT_CLOSE(c->sim.end_s, 86400, 0);
    CU_ASSERT_EQUAL(c->sim.priority_levels, 8);
}

/* Options override the file: the file says work mode and seed 7, the
 * options say window and 9. */
static void test_config_overrides(void)
{
    const char *text = "{\"scheduler\": {\"name\": \"fixed\", \"jobs\": {}},"
                       " \"sim\": {\"mode\": \"work\", \"seed\": 7, \"alpha_us\": 2}}";
    g_autoptr(config) c = config_new();
    GError *e = NULL;
    CU_ASSERT_TRUE(config_load_buffer(c, text, strlen(text), "s.json", &e));
    CU_ASSERT_EQUAL(c->sim.mode, CONFIG_MODE_WORK);
    CU_ASSERT_EQUAL(c->sim.seed, 7);
    CU_ASSERT_PTR_NOT_NULL(c->scheduler_obj);
    CU_ASSERT_TRUE(config_set_option(c, "mode", "window", &e));
    CU_ASSERT_TRUE(config_set_option(c, "seed", "18446744073709551615", &e));
    CU_ASSERT_TRUE(config_set_option(c, "levels", "4", &e));
    CU_ASSERT_TRUE(config_set_option(c, "collective-model", "flows", &e));
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_EQUAL(c->sim.mode, CONFIG_MODE_WINDOW);
    CU_ASSERT_EQUAL(c->sim.seed, G_MAXUINT64);
    CU_ASSERT_EQUAL(c->sim.priority_levels, 4);
    CU_ASSERT_EQUAL(c->sim.collective_model, CONFIG_COLL_FLOWS);
    TEST_ASSERT_CLOSE(c->sim.alpha_us, 2, 0);
    /* another scheduler on the command line drops the file's object */
    config_set_scheduler(c, "ecmp");
    CU_ASSERT_PTR_NULL(c->scheduler_obj);
    /* and gets it back when the file's scheduler is named again (compare) */
    config_set_scheduler(c, "fixed");
    CU_ASSERT_PTR_NOT_NULL(c->scheduler_obj);
}

/* Every malformed scenario names the file and the key path. */
static void test_config_errors(void)
{
    static const struct {
        const char *text;
        int code;
        const char *message;
    } cases[] = {
        {"{\"sim\": {\"mode\": \"fast\"}}", CCS_ERROR_INVALID,
         "s.json: sim.mode: expected \"window\" or \"work\", got \"fast\""},
        {"{\"sim\": {\"mode\": 3}}", CCS_ERROR_INVALID,
         "s.json: sim.mode: expected \"window\" or \"work\", got a number"},
        {"{\"sim\": {\"seed\": -1}}", CCS_ERROR_INVALID,
         "s.json: sim.seed: expected a whole number in [0, 2^64 - 1], got -1"},
        {"{\"sim\": {\"interval_s\": 0}}", CCS_ERROR_INVALID,
         "s.json: sim.interval_s: 0 is outside [0.001, 100000000] s (a millisecond is finer than "
         "any metric of interest)"},
        {"{\"sim\": {\"priority_levels\": 100}}", CCS_ERROR_INVALID,
         "s.json: sim.priority_levels: 100 is outside [1, 64] (the network engine's strict "
         "priority levels)"},
        {"{\"sim\": {\"end_s\": 1e300}}", CCS_ERROR_INVALID,
         "s.json: sim.end_s: 1e+300 is outside [-10000000000, 10000000000] s (317 years either "
         "side of zero)"},
        {"{\"sim\": {\"priority_levels\": 2.5}}", CCS_ERROR_INVALID,
         "s.json: sim.priority_levels: expected a whole number, got 2.5"},
        {"{\"sim\": {\"speed\": 1}}", CCS_ERROR_INVALID, "s.json: sim.speed: unknown key"},
        {"{\"sim\": []}", CCS_ERROR_INVALID, "s.json: sim: expected an object, got an array"},
        {"{\"topology\": 5}", CCS_ERROR_INVALID,
         "s.json: topology: expected a builder spec string or an object, got a number"},
        {"{\"scheduler\": {\"jobs\": {}}}", CCS_ERROR_INVALID,
         "s.json: scheduler.name: expected a string"},
        {"{\"sim\": {\"channels\": 0}}", CCS_ERROR_INVALID,
         "s.json: sim.channels: 0 is outside [1, 32] (NCCL's largest channel count)"},
        {"{\"sim\": {\"channels\": \"many\"}}", CCS_ERROR_INVALID,
         "s.json: sim.channels: expected a number, got a string"},
        {"{\"sim\": {\"gzip\": 1}}", CCS_ERROR_INVALID,
         "s.json: sim.gzip: expected true or false, got a number"},
        {"{\"topo\": \"x\"}", CCS_ERROR_INVALID,
         "s.json: topo: unknown key (expected topology, trace, scheduler, sim, timeline, name "
         "or description)"},
        {"{\"sim\": {\n\"mode\": }", CCS_ERROR_PARSE, "s.json:2: not valid JSON near \"}\""},
        {"[1]", CCS_ERROR_INVALID, "s.json: expected a JSON object at the top level"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(config) c = config_new();
        GError *e = NULL;
        CU_ASSERT_FALSE(config_load_buffer(c, cases[i].text, strlen(cases[i].text), "s.json", &e));
        if (e && strcmp(e->message, cases[i].message) != 0)
            fprintf(stderr, "\ncase %zu: got '%s'\n", i, e->message);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_STRING_EQUAL(e->message, cases[i].message);
        TEST_ASSERT_ERROR(e, cases[i].code);
    }
    /* option errors name the option */
    g_autoptr(config) c = config_new();
    GError *e = NULL;
    CU_ASSERT_FALSE(config_set_option(c, "mode", "fast", &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "--mode: expected \"window\" or \"work\", got \"fast\"");
    g_clear_error(&e);
    CU_ASSERT_FALSE(config_set_option(c, "start", "soon", &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "--start: expected a decimal number, got \"soon\"");
    g_clear_error(&e);
    CU_ASSERT_FALSE(config_set_option(c, "channels", "0", &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "--channels: 0 is outside [1, 32] (NCCL's largest channel count)");
    g_clear_error(&e);
    /* "auto" (NCCL's rule) is 0 inside, a number overrides it */
    CU_ASSERT_TRUE(config_set_option(c, "channels", "4", NULL));
    CU_ASSERT_EQUAL(c->sim.channels, 4);
    CU_ASSERT_TRUE(config_set_option(c, "channels", "auto", NULL));
    CU_ASSERT_EQUAL(c->sim.channels, 0);
    CU_ASSERT_FALSE(config_set_option(c, "placement", "best", &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message,
                           "--placement: expected \"recorded\", \"locality\", \"random\", "
                           "\"packed\", \"spread\", or \"fragmented\", got \"best\"");
    g_clear_error(&e);
    /* numbers are strict decimals; echoed control bytes are escaped */
    CU_ASSERT_FALSE(config_set_option(c, "seed", "0x10", &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "--seed: expected a decimal number, got \"0x10\"");
    g_clear_error(&e);
    CU_ASSERT_FALSE(config_set_option(c, "levels", "100", &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "--levels: 100 is outside [1, 64] (the network engine's "
                                       "strict priority levels)");
    g_clear_error(&e);
    CU_ASSERT_FALSE(config_set_option(c, "mode", "\x1b[2J", &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message,
                           "--mode: expected \"window\" or \"work\", got \"\\x1b[2J\"");
    g_clear_error(&e);
}

/* config_to_json round-trips the sim keys (run.json). */
static void test_config_to_json(void)
{
    g_autoptr(config) c = config_new();
    CU_ASSERT_TRUE(config_set_option(c, "end", "12.5", NULL));
    cJSON *one = config_to_json(c); /* an unsplit run records no shard keys */
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(cJSON_GetObjectItem(one, "sim"), "shards"));
    cJSON_Delete(one);
    CU_ASSERT_TRUE(config_set_option(c, "shards", "2", NULL));
    cJSON *j = config_to_json(c);
    const cJSON *sim = cJSON_GetObjectItem(j, "sim");
    CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(sim, "start_s")));
    TEST_ASSERT_CLOSE(cJSON_GetObjectItem(sim, "end_s")->valuedouble, 12.5, 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(j, "scheduler")->valuestring, "ecmp");
    size_t n = 0;
    for (const char *const *k = config_sim_keys(); *k; k++, n++)
        CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(sim, *k));
    CU_ASSERT_EQUAL(n, 25); /* ..., compute, mdot_weights, graph_library, step_latency */
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(sim, "channels")->valuestring, "auto");
    cJSON_Delete(j);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"design_example", test_config_design_example},
        {"overrides", test_config_overrides},
        {"errors", test_config_errors},
        {"to_json", test_config_to_json},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("config", cases);
}
