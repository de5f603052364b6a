/* test_topo_io.c - "topo" suite: JSON import/export, round trips, DOT.
 * Not here: builders (test_topo.c), paths (test_topo_paths.c).
 */
#include <igraph.h>
#include <stdio.h>
#include <string.h>

#include "base/ccs.h"
#include "topo/topo.h"

#include "test_topo.h"

/* The object form by hand: 2 hosts with 2 GPUs and 1 NIC, one ToR, 100 Gbps
 * cables.  Per host: 2 GPUs + NVSwitch + 1 PCIe + 1 NIC = 5 nodes; links
 * NVLink 4 + GPU<->PCIe 4 + PCIe<->NIC 2 + NIC<->ToR 2 = 12.  Total 11 nodes,
 * 24 links; 100 Gbps = 12.5e9 B/s; h1 -> h2: one path of 2 links with 2 x 3
 * us = 6 us latency.  Host h3 with 2 NICs and two links without "nic": NIC 0
 * to s1 and NIC 1 to s2. */
void test_topo_json_import(void)
{
    const char *text =
        "{\"hosts\": [{\"name\": \"h1\", \"gpus\": 2, \"nics\": 1},"
        "             {\"name\": \"h2\", \"gpus\": 2, \"nics\": 1}],"
        " \"switches\": [\"s1\"],"
        " \"links\": [{\"a\": \"h1\", \"b\": \"s1\", \"gbps\": 100, \"latency_us\": 3},"
        "             {\"a\": \"s1\", \"b\": \"h2\", \"gbps\": 100, \"latency_us\": 3}]}";
    cJSON *obj = cJSON_Parse(text);
    GError *err = NULL;
    g_autoptr(topo) t = topo_from_json(obj, "hand", &err);
    cJSON_Delete(obj);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(topo_node_count(t), 11);
    CU_ASSERT_EQUAL(topo_link_count(t), 24);
    size_t h2 = 0;
    CU_ASSERT_TRUE(topo_host_find(t, "h2", &h2));
    CU_ASSERT_EQUAL(h2, 1);
    CU_ASSERT_FALSE(topo_host_find(t, "h9", NULL));
    g_autoptr(GArray) p = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    CU_ASSERT_TRUE(topo_path_links(t, topo_host_nic_node(t, 0, 0), topo_host_nic_node(t, 1, 0), 0,
                                   p, &err));
    CU_ASSERT_EQUAL_FATAL(p->len, 2);
    double lat = 0;
    for (guint i = 0; i < 2; i++) {
        const topo_link *l = topo_link_get(t, g_array_index(p, uint32_t, i));
        TEST_ASSERT_CLOSE(l->cap_Bps, 12.5e9, 1e-12);
        lat += l->latency_s;
    }
    TEST_ASSERT_CLOSE(lat, 6e-6, 1e-9);

    const char *dual =
        "{\"hosts\": [{\"name\": \"h3\", \"nics\": 2}, {\"name\": \"h4\", \"nics\": 2}],"
        " \"switches\": [{\"name\": \"s1\", \"kind\": \"tor\"}, {\"name\": \"s2\", \"kind\": \"tor\"},"
        "                {\"name\": \"sp\", \"kind\": \"agg\"}],"
        " \"links\": [{\"a\": \"h3\", \"b\": \"s1\"}, {\"a\": \"h3\", \"b\": \"s2\"},"
        "             {\"a\": \"h4\", \"b\": \"s1\"}, {\"a\": \"h4\", \"b\": \"s2\"},"
        "             {\"a\": \"s1\", \"b\": \"sp\", \"gbps\": 400},"
        "             {\"a\": \"s2\", \"b\": \"sp\", \"gbps\": 400}]}";
    obj = cJSON_Parse(dual);
    g_autoptr(topo) d = topo_from_json(obj, NULL, &err);
    cJSON_Delete(obj);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_STRING_EQUAL(topo_name(d), "inline");
    CU_ASSERT_TRUE(topo_path_links(d, topo_host_nic_node(d, 0, 1), topo_host_nic_node(d, 1, 1), 0,
                                   p, &err));
    CU_ASSERT_STRING_EQUAL(topo_node_name(d, topo_link_get(d, g_array_index(p, uint32_t, 0))->dst),
                           "s2");
    /* NIC 0 of h3 to NIC 1 of h4: s1 -> sp -> s2, a tor_agg link at 50e9 B/s */
    CU_ASSERT_TRUE(topo_path_links(d, topo_host_nic_node(d, 0, 0), topo_host_nic_node(d, 1, 1), 0,
                                   p, &err));
    CU_ASSERT_EQUAL_FATAL(p->len, 4);
    CU_ASSERT_EQUAL(topo_link_get(d, g_array_index(p, uint32_t, 1))->tier, TOPO_TIER_TOR_AGG);
    TEST_ASSERT_CLOSE(topo_link_get(d, g_array_index(p, uint32_t, 1))->cap_Bps, 50e9, 1e-12);
    TEST_ASSERT_NO_ERROR(err);
}

/* Bad object forms. */
void test_topo_json_errors(void)
{
    static const struct {
        const char *text;
        const char *needle;
    } cases[] = {
        {"{\"hosts\": []}", "hosts must be a non-empty array"},
        {"{\"hosts\": [{\"name\": \"h1\", \"gpu\": 2}]}", "hosts[0].gpu: unknown key (expected name, gpus,"},
        {"{\"hosts\": [{\"name\": \"h1\"}, {\"name\": \"h1\"}]}", "duplicate host name 'h1'"},
        {"{\"hosts\": [{\"name\": \"h1\", \"nics\": 1}], \"switches\": [\"s1\"],"
         " \"links\": [{\"a\": \"h1\", \"b\": \"s9\"}]}", "links[0]: unknown host or switch 's9'"},
        {"{\"hosts\": [{\"name\": \"h1\", \"nics\": 1}, {\"name\": \"h2\", \"nics\": 1}],"
         " \"links\": [{\"a\": \"h1\", \"b\": \"h2\"}]}", "links between two hosts"},
        {"{\"hosts\": [{\"name\": \"h1\", \"nics\": 1}], \"switches\": [\"s1\", \"s2\"],"
         " \"links\": [{\"a\": \"h1\", \"b\": \"s1\"}, {\"a\": \"s1\", \"b\": \"s2\"}]}",
         "links[1]: gbps is required between switches"},
        {"{\"hosts\": [{\"name\": \"h1\", \"nics\": 2}, {\"name\": \"h2\", \"nics\": 1}],"
         " \"switches\": [\"s1\"], \"links\": [{\"a\": \"h1\", \"b\": \"s1\"},"
         " {\"a\": \"h2\", \"b\": \"s1\"}]}", "host 'h1' NIC 1 is not attached"},
        {"{\"hosts\": [{\"name\": \"h1\", \"nics\": 1}, {\"name\": \"h2\", \"nics\": 1}],"
         " \"switches\": [\"s1\", \"s2\"], \"links\": [{\"a\": \"h1\", \"b\": \"s1\"},"
         " {\"a\": \"h2\", \"b\": \"s2\"}]}", "cannot reach host 'h2'"},
        {"{\"hosts\": [{\"name\": \"h1\", \"nics\": 1}], \"switches\": [\"s1\"],"
         " \"links\": [{\"a\": \"h1\", \"b\": \"s1\", \"gbps\": 0}]}",
         "links[0].gbps: 0 is outside (0, 1000000] Gbps"},
        {"{\"hosts\": [{\"name\": \"h1\", \"nics\": 1}], \"switches\": [\"s1\"],"
         " \"links\": [{\"a\": \"h1\", \"b\": \"s1\"}, {\"a\": \"s1\", \"b\": \"s1\", \"gbps\": 1}]}",
         "links[1]: a link from 's1' to itself"},
        {"{\"hosts\": [{\"name\": \"h1\", \"nics\": 1}], \"switches\": [\"s1\"],"
         " \"links\": [{\"a\": \"h1\", \"b\": \"s1\", \"nic\": 1}]}", "nic must be an index below"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        cJSON *obj = cJSON_Parse(cases[i].text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(obj);
        GError *err = NULL;
        topo *t = topo_from_json(obj, "case", &err);
        cJSON_Delete(obj);
        CU_ASSERT_PTR_NULL(t);
        topo_free(t);
        CU_ASSERT_PTR_NOT_NULL_FATAL(err);
        if (!strstr(err->message, cases[i].needle))
            printf("\n  case %zu: got '%s'\n", i, err->message);
        CU_ASSERT_PTR_NOT_NULL(strstr(err->message, cases[i].needle));
        CU_ASSERT_TRUE(g_str_has_prefix(err->message, "topology 'case': "));
        TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    }
    /* a JSON syntax error in a file names file:line */
    g_autofree char *path = temp_file(".json", "{\"hosts\": [\n  {\"name\": \"h1\",,}\n]}\n");
    g_autofree char *spec = g_strdup_printf("file:%s", path);
    GError *err = NULL;
    topo *t = topo_build(spec, NULL, &err);
    CU_ASSERT_PTR_NULL(t);
    topo_free(t);
    g_autofree char *want = g_strdup_printf("%s:2: not valid JSON", path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, want));
    TEST_ASSERT_ERROR(err, CCS_ERROR_PARSE);
    remove(path);
}

/* Both per-tier link counts, host names and the cross-ToR path count must
 * survive an export and re-import.  clos2 tors=2, aggs=2, 2 hosts per ToR:
 * 4 hosts, 4 switches, host_tor 4 x 4 x 2 = 32 links, tor_agg 4 x 2 = 8;
 * h0 -> h3: 2 paths (one per spine). */
static void check_same(topo *a, topo *b)
{
    CU_ASSERT_EQUAL(topo_host_count(b), topo_host_count(a));
    CU_ASSERT_EQUAL(topo_node_count(b), topo_node_count(a));
    CU_ASSERT_EQUAL(topo_link_count(b), topo_link_count(a));
    for (int k = 0; k < TOPO_TIER_COUNT; k++) {
        CU_ASSERT_EQUAL(count_tier(b, (topo_tier)k), count_tier(a, (topo_tier)k));
        TEST_ASSERT_CLOSE(topo_stats_get(b).cap_Bps_by_tier[k], topo_stats_get(a).cap_Bps_by_tier[k],
                          1e-9);
    }
    for (size_t h = 0; h < topo_host_count(a); h++)
        CU_ASSERT_STRING_EQUAL(topo_host_name(b, h), topo_host_name(a, h));
    CU_ASSERT_EQUAL(paths_between_hosts(b, 0, 3), 2);
    CU_ASSERT_EQUAL(topo_host_group(b, 3, TOPO_LEVEL_POD), topo_host_group(a, 3, TOPO_LEVEL_POD));
}

void test_topo_round_trip(void)
{
    g_autoptr(topo) a = build_ok("clos2:tors=2,aggs=2,hosts_per_tor=2,nic_gbps=100");
    CU_ASSERT_EQUAL(count_tier(a, TOPO_TIER_HOST_TOR), 32);
    CU_ASSERT_EQUAL(count_tier(a, TOPO_TIER_TOR_AGG), 8);
    CU_ASSERT_EQUAL(paths_between_hosts(a, 0, 3), 2);
    /* JSON */
    cJSON *obj = topo_to_json(a);
    GError *err = NULL;
    g_autoptr(topo) j = topo_from_json(obj, "rt", &err);
    cJSON_Delete(obj);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    check_same(a, j);
    /* GraphML through a file */
    g_autofree char *path = temp_file(".graphml", "");
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_TRUE(topo_export(a, TOPO_FORMAT_GRAPHML, f, &err));
    fclose(f);
    TEST_ASSERT_NO_ERROR(err);
    g_autofree char *spec = g_strdup_printf("file:%s", path);
    g_autoptr(topo) g = build_ok(spec);
    check_same(a, g);
    remove(path);
}

/* GraphML attributes of the wrong type are refused with their name (a
 * numeric 'name' read as a string made igraph read past its value). */
void test_topo_graphml_types(void)
{
#define KIND_KEY "<key id=\"k\" for=\"node\" attr.name=\"kind\" attr.type=\"string\"/>"
    static const struct {
        const char *keys, *needle;
    } cases[] = {
        {KIND_KEY "<key id=\"a\" for=\"node\" attr.name=\"name\" attr.type=\"double\"/>",
         "vertex attribute 'name' must be a string"},
        {KIND_KEY "<key id=\"a\" for=\"node\" attr.name=\"gpus\" attr.type=\"string\"/>",
         "vertex attribute 'gpus' must be a number"},
        {KIND_KEY "<key id=\"a\" for=\"edge\" attr.name=\"gbps\" attr.type=\"boolean\"/>",
         "edge attribute 'gbps' must be a number"},
        {"<key id=\"k\" for=\"node\" attr.name=\"kind\" attr.type=\"int\"/>",
         "vertex attribute 'kind' must be a string"},
    };
#undef KIND_KEY
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *text = g_strdup_printf(
            "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n%s\n"
            "<graph edgedefault=\"undirected\"><node id=\"n0\"/><node id=\"n1\"/>"
            "<edge source=\"n0\" target=\"n1\"/></graph></graphml>\n",
            cases[i].keys);
        assert_file_error("file:", ".graphml", text, CCS_ERROR_PARSE, cases[i].needle);
    }
}

/* What igraph would let through is refused with the file and line: a NaN
 * or infinite or empty numeric value (node, edge, or a key's default), a
 * node id twice, an edge to itself, an edge to an undeclared node. */
void test_topo_graphml_strict(void)
{
#define KEYS "<key id=\"k\" for=\"node\" attr.name=\"kind\" attr.type=\"string\"/>" \
             "<key id=\"g\" for=\"edge\" attr.name=\"gbps\" attr.type=\"double\"/>"
#define NODES "<node id=\"n0\"><data key=\"k\">host</data></node>" \
              "<node id=\"n1\"><data key=\"k\">tor</data></node>"
    static const struct {
        const char *body, *needle;
    } cases[] = {
        {KEYS "<graph>" NODES "<edge source=\"n0\" target=\"n1\"><data key=\"g\">NaN</data>"
              "</edge></graph>",
         ":4: edge data 'gbps': \"NaN\" is not a decimal number"},
        {KEYS "<graph>" NODES "<edge source=\"n0\" target=\"n1\"><data key=\"g\"> inf </data>"
              "</edge></graph>",
         ":4: edge data 'gbps': \"inf\" is not"},
        {KEYS "<graph>" NODES "<edge source=\"n0\" target=\"n1\"><data key=\"g\"></data>"
              "</edge></graph>",
         ":4: edge data 'gbps': \"\" is not"},
        {"<key id=\"g\" for=\"edge\" attr.name=\"gbps\" attr.type=\"double\"><default>nan"
         "</default></key><graph>" NODES "</graph>",
         ":4: default data 'gbps': \"nan\" is not"},
        {KEYS "<graph>" NODES "\n<node id=\"n1\"/></graph>", ":5: node id 'n1' appears twice "
                                                             "(first on line 4)"},
        {KEYS "<graph>" NODES "\n<edge source=\"n1\" target=\"n1\"/></graph>",
         ":5: an edge from 'n1' to itself"},
        {KEYS "<graph>" NODES "\n<edge source=\"n0\" target=\"n7\"/></graph>",
         ":5: edge to 'n7', a node the file does not declare"},
    };
#undef KEYS
#undef NODES
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *text = g_strdup_printf(
            "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
            "\n%s</graphml>\n",
            cases[i].body);
        assert_file_error("file:", ".graphml", text, CCS_ERROR_INVALID, cases[i].needle);
    }
}

/* DOT: one undirected edge per (host, ToR) pair labelled with the 4 cables
 * of the 4 NICs, and one per ToR-agg cable. */
void test_topo_dot(void)
{
    g_autoptr(topo) t = build_ok("clos2:tors=2,aggs=2,hosts_per_tor=2");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    GError *err = NULL;
    CU_ASSERT_TRUE(topo_export(t, TOPO_FORMAT_DOT, f, &err));
    fclose(f);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_TRUE(g_str_has_prefix(buf, "graph \""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"h0\" -- \"rack0/tor\" [label=\"x4\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"rack1/tor\" -- \"agg1\";"));
    free(buf);
}
