/* test_sweep.c - suite "sweep": sweep expansion, names, CSV, summaries, merge.
 * Not here: worker processes (tests/sweep_test.sh, integration).
 */
#include "sim/experiments/sweep.h"

#include <glib/gstdio.h>
#include <string.h>

#include "base/ccs.h"
#include "test_util.h"

static sweep *parse(const char *text, GError **error)
{
    return sweep_parse(text, strlen(text), "t.json", "/tmp", error);
}

/* Grid {"scheduler": [a, b], "sim.seed": [1, 2, 3]}: 2 × 3 = 6 runs, the
 * last axis fastest: run 0 = (a, 1), 1 = (a, 2), 2 = (a, 3), 3 = (b, 1),
 * 5 = (b, 3). */
static void test_sweep_grid_order(void)
{
    GError *err = NULL;
    g_autoptr(sweep) sw = parse("{\"base\": {\"scheduler\": \"x\"},"
                                " \"grid\": {\"scheduler\": [\"a\", \"b\"], \"sim.seed\": [1, 2, 3]}}",
                                &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(sw != NULL);
    CU_ASSERT_EQUAL(sweep_run_count(sw), 6);
    CU_ASSERT_EQUAL(sweep_param_count(sw), 2);
    CU_ASSERT_STRING_EQUAL(sweep_param_key(sw, 0), "scheduler");
    CU_ASSERT_STRING_EQUAL(sweep_param_key(sw, 1), "sim.seed");
    const char *expect[6][2] = {{"a", "1"}, {"a", "2"}, {"a", "3"},
                                {"b", "1"}, {"b", "2"}, {"b", "3"}};
    for (size_t i = 0; i < 6; i++)
        for (size_t k = 0; k < 2; k++) {
            g_autofree char *v = sweep_run_param_text(sw, i, k);
            CU_ASSERT_STRING_EQUAL(v, expect[i][k]);
        }
    /* Six different scenarios, six different names, each found again:
     * the swept values ("b_seed=2_"), then SWEEP_NAME_LEN hex digits. */
    for (size_t i = 0; i < 6; i++) {
        const char *name = sweep_run_name(sw, i);
        g_autofree char *lead = g_strdup_printf("%s_seed=%s_", expect[i][0], expect[i][1]);
        CU_ASSERT(g_str_has_prefix(name, lead));
        CU_ASSERT_EQUAL(strlen(name), strlen(lead) + SWEEP_NAME_LEN);
        CU_ASSERT_EQUAL(sweep_run_find(sw, name), (long)i);
    }
    CU_ASSERT_EQUAL(sweep_run_find(sw, "a_seed=1_00000000"), -1);
    /* summary.csv columns: the run's own name for the setting (seed), no
     * "sim." twin of it */
    CU_ASSERT_STRING_EQUAL(sweep_param_column(sw, 0), "scheduler");
    CU_ASSERT_STRING_EQUAL(sweep_param_column(sw, 1), "seed");
}

/* Swept keys take the summary's column names (sim.start_s: sim_start_s,
 * --gpu: gpu); two keys for one setting are refused. */
static void test_sweep_columns(void)
{
    GError *err = NULL;
    g_autoptr(sweep) sw = parse("{\"base\": {}, \"grid\": {\"sim.start_s\": [0, 10],"
                                " \"--gpu\": [\"a100\"], \"sim.collective_model\": [\"ring\"]}}",
                                &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(sw != NULL);
    CU_ASSERT_STRING_EQUAL(sweep_param_column(sw, 0), "sim_start_s");
    CU_ASSERT_STRING_EQUAL(sweep_param_column(sw, 1), "gpu");
    CU_ASSERT_STRING_EQUAL(sweep_param_column(sw, 2), "collective_model");
    CU_ASSERT(g_str_has_prefix(sweep_run_name(sw, 1),
                               "sim_start_s=10_gpu=a100_collective_model=ring_"));
    sweep *twice = parse("{\"base\": {}, \"grid\": {\"sim.seed\": [1], \"--seed\": [2]}}", &err);
    CU_ASSERT_PTR_NULL(twice);
    CU_ASSERT(err && strstr(err->message, "set the same thing (seed)"));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
}

/* A zip group advances its lists together: grid x [1, 2] and zip
 * {a: [10, 20], b: [30, 40]} give 2 × 2 = 4 runs: (1,10,30), (1,20,40),
 * (2,10,30), (2,20,40); a and b never mix as (10, 40). */
static void test_sweep_zip(void)
{
    GError *err = NULL;
    g_autoptr(sweep) sw = parse("{\"base\": {}, \"grid\": {\"x\": [1, 2]},"
                                " \"zip\": [{\"a\": [10, 20], \"b\": [30, 40]}]}",
                                &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(sw != NULL);
    CU_ASSERT_EQUAL(sweep_run_count(sw), 4);
    const char *expect[4][3] = {{"1", "10", "30"}, {"1", "20", "40"},
                                {"2", "10", "30"}, {"2", "20", "40"}};
    for (size_t i = 0; i < 4; i++)
        for (size_t k = 0; k < 3; k++) {
            g_autofree char *v = sweep_run_param_text(sw, i, k);
            CU_ASSERT_STRING_EQUAL(v, expect[i][k]);
        }
}

/* The name is the first 12 hex digits of SHA-256 of the canonical JSON
 * {"args":{},"scenario":{"scheduler":"ecmp","sim":{"seed":1}}}; computed
 * outside ccsim with `printf '%s' '...' | sha256sum`: d8feb46bf6aa.  With
 * "--gpu": ["h100"] and seed 2 the string is
 * {"args":{"--gpu":"h100"},"scenario":{"scheduler":"ecmp","sim":{"seed":2}}}
 * -> abb614d8710b.  Key order and spacing of the file do not matter. */
static void test_sweep_stable_names(void)
{
    GError *err = NULL;
    g_autoptr(sweep) a = parse("{\"base\": {\"scheduler\": \"ecmp\"}, \"grid\": {\"sim.seed\": [1]}}",
                               &err);
    TEST_ASSERT_NO_ERROR(err);
    g_autoptr(sweep) b = parse("{\"grid\":{\"sim.seed\":[1.0]},\"base\":{\"sim\":{},\"scheduler\":\"ecmp\"}}",
                               &err);
    TEST_ASSERT_NO_ERROR(err);
    g_autoptr(sweep) c = parse("{\"base\": {\"scheduler\": \"ecmp\"},"
                               " \"grid\": {\"sim.seed\": [2], \"--gpu\": [\"h100\"]}}",
                               &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(a && b && c);
    /* the name: swept values, then the first SWEEP_NAME_LEN hex digits */
    CU_ASSERT_STRING_EQUAL(sweep_run_name(a, 0), "seed=1_d8feb46b");
    CU_ASSERT_STRING_EQUAL(sweep_run_name(b, 0), "seed=1_d8feb46b");
    CU_ASSERT_STRING_EQUAL(sweep_run_name(c, 0), "seed=2_gpu=h100_abb614d8");
    g_auto(GStrv) args = sweep_run_args(c, 0);
    CU_ASSERT_EQUAL(g_strv_length(args), 1);
    CU_ASSERT_STRING_EQUAL(args[0], "--gpu=h100");
    CU_ASSERT_STRING_EQUAL(sweep_param_column(c, 1), "gpu");
}

/* Sorted keys, no spaces, 2.0 -> 2, 1.5 stays 1.5, '"' escaped. */
static void test_sweep_canonical_json(void)
{
    cJSON *v = cJSON_Parse("{\"b\": 2.0, \"a\": [1.5, \"x\\\"y\", true, null, {\"d\": 1, \"c\": -3}]}");
    CU_ASSERT_FATAL(v != NULL);
    g_autofree char *s = sweep_canonical_json(v);
    CU_ASSERT_STRING_EQUAL(s, "{\"a\":[1.5,\"x\\\"y\",true,null,{\"c\":-3,\"d\":1}],\"b\":2}");
    cJSON_Delete(v);
}

/* The resolved scenario sets dotted paths (creating "sim"), keeps the
 * other keys, and leaves --options out of the scenario. */
static void test_sweep_scenario(void)
{
    GError *err = NULL;
    g_autoptr(sweep) sw = parse("{\"base\": {\"scheduler\": \"ecmp\", \"topology\": \"t:k=4\"},"
                                " \"grid\": {\"sim.priority_levels\": [8], \"--gpu\": [\"a100\"]}}",
                                &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(sw != NULL);
    g_autofree char *text = sweep_run_scenario_text(sw, 0);
    cJSON *s = cJSON_Parse(text);
    CU_ASSERT_FATAL(s != NULL);
    cJSON *sim = cJSON_GetObjectItem(s, "sim");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(sim, "priority_levels")->valuedouble, 8);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(s, "scheduler")->valuestring, "ecmp");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(s, "topology")->valuestring, "t:k=4");
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(s, "--gpu"));
    cJSON_Delete(s);
}

/* A base file in a temp folder whose trace names a folder next to it: the
 * worker's scenario gets the absolute path; the name does not (it hashes
 * the path as written), so it equals the inline-base sweep's name. */
static void test_sweep_base_file_paths(void)
{
    GError *err = NULL;
    g_autofree char *dir = g_dir_make_tmp("sweep-XXXXXX", &err);
    TEST_ASSERT_NO_ERROR(err);
    g_autofree char *trace_dir = g_build_filename(dir, "tr", NULL);
    g_autofree char *base = g_build_filename(dir, "base.json", NULL);
    CU_ASSERT_EQUAL(g_mkdir(trace_dir, 0755), 0);
    CU_ASSERT(g_file_set_contents(base, "{\"trace\": {\"lingjun\": \"tr\"}}", -1, NULL));
    const char *text = "{\"base\": \"base.json\", \"grid\": {\"scheduler\": [\"ecmp\"]}}";
    g_autoptr(sweep) sw = sweep_parse(text, strlen(text), "s.json", dir, &err);
    TEST_ASSERT_NO_ERROR(err);
    g_autoptr(sweep) inl = parse("{\"base\": {\"trace\": {\"lingjun\": \"tr\"}},"
                                 " \"grid\": {\"scheduler\": [\"ecmp\"]}}",
                                 &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(sw && inl);
    CU_ASSERT_STRING_EQUAL(sweep_run_name(sw, 0), sweep_run_name(inl, 0));
    g_autofree char *scen = sweep_run_scenario_text(sw, 0);
    g_autofree char *quoted = g_strdup_printf("\"%s\"", trace_dir);
    CU_ASSERT_PTR_NOT_NULL(strstr(scen, quoted));
    /* sweep_to_json reads back into the same runs, from anywhere. */
    g_autofree char *json = sweep_to_json(sw);
    g_autoptr(sweep) again = sweep_parse(json, strlen(json), "sweep.json", "/", &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(again != NULL);
    CU_ASSERT_STRING_EQUAL(sweep_run_name(again, 0), sweep_run_name(sw, 0));
    g_autofree char *scen2 = sweep_run_scenario_text(again, 0);
    CU_ASSERT_STRING_EQUAL(scen2, scen);
    g_remove(base);
    g_rmdir(trace_dir);
    g_rmdir(dir);
}

/* A topology spec in the grid whose parameter names a file next to the
 * sweep file (hosts_from=): the worker's scenario gets the absolute path,
 * the other parameters and the run's name stay as written. */
static void test_sweep_topo_param_paths(void)
{
    GError *err = NULL;
    g_autofree char *dir = g_dir_make_tmp("sweep-XXXXXX", &err);
    TEST_ASSERT_NO_ERROR(err);
    g_autofree char *file = g_build_filename(dir, "t.csv", NULL);
    CU_ASSERT(g_file_set_contents(file, "ip,DSW,PSW,ASW\n", -1, NULL));
    const char *text = "{\"base\": {}, \"grid\": {\"topology\":"
                       " [\"crux-clos2:hosts_from=t.csv,oversub=2\", \"crux-clos2:oversub=2\"]}}";
    g_autoptr(sweep) sw = sweep_parse(text, strlen(text), "s.json", dir, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(sw != NULL);
    g_autofree char *scen = sweep_run_scenario_text(sw, 0);
    g_autofree char *want = g_strdup_printf("\"crux-clos2:hosts_from=%s,oversub=2\"", file);
    CU_ASSERT_PTR_NOT_NULL(strstr(scen, want));
    g_autofree char *scen1 = sweep_run_scenario_text(sw, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(scen1, "\"crux-clos2:oversub=2\""));
    g_autoptr(sweep) elsewhere = sweep_parse(text, strlen(text), "s.json", "/", &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(elsewhere != NULL);
    CU_ASSERT_STRING_EQUAL(sweep_run_name(sw, 0), sweep_run_name(elsewhere, 0));
    g_remove(file);
    g_rmdir(dir);
}

/* sim.graph_library relative to the base file (read relative to the
 * scenario): the worker's scenario, in its own folder, gets the absolute
 * path, else every run of the sweep failed not finding it. */
static void test_sweep_graph_library_path(void)
{
    GError *err = NULL;
    g_autofree char *dir = g_dir_make_tmp("sweep-XXXXXX", &err);
    TEST_ASSERT_NO_ERROR(err);
    g_autofree char *lib = g_build_filename(dir, "library.json", NULL);
    CU_ASSERT(g_file_set_contents(lib, "{}", -1, NULL));
    const char *text = "{\"base\": {\"sim\": {\"graph_library\": \"library.json\"}},"
                       " \"grid\": {\"sim.seed\": [1]}}";
    g_autoptr(sweep) sw = sweep_parse(text, strlen(text), "s.json", dir, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(sw != NULL);
    g_autofree char *scen = sweep_run_scenario_text(sw, 0);
    g_autofree char *want = g_strdup_printf("\"graph_library\":\t\"%s\"", lib);
    CU_ASSERT_PTR_NOT_NULL(strstr(scen, want));
    g_remove(lib);
    g_rmdir(dir);
}

typedef struct bad_case {
    const char *name;
    const char *text;
    int code;
} bad_case;

static void test_sweep_bad_input(void)
{
    const bad_case cases[] = {
        {"bad json", "{\"base\": {}, \"grid\": [", CCS_ERROR_PARSE},
        {"not an object", "[1, 2]", CCS_ERROR_PARSE},
        {"no base", "{\"grid\": {}}", CCS_ERROR_INVALID},
        {"unknown key", "{\"base\": {}, \"gird\": {}}", CCS_ERROR_INVALID},
        {"not a list", "{\"base\": {}, \"grid\": {\"x\": 1}}", CCS_ERROR_INVALID},
        {"empty list", "{\"base\": {}, \"grid\": {\"x\": []}}", CCS_ERROR_INVALID},
        {"zip lengths", "{\"base\": {}, \"zip\": [{\"a\": [1, 2], \"b\": [1]}]}", CCS_ERROR_INVALID},
        {"same runs twice", "{\"base\": {}, \"grid\": {\"x\": [1, 1.0]}}", CCS_ERROR_INVALID},
        {"path into a number", "{\"base\": {\"sim\": 3}, \"grid\": {\"sim.seed\": [1]}}",
         CCS_ERROR_INVALID},
        {"key on two axes", "{\"base\": {}, \"grid\": {\"x\": [1]}, \"zip\": [{\"x\": [2]}]}",
         CCS_ERROR_INVALID},
        {"empty path part", "{\"base\": {}, \"grid\": {\"sim..seed\": [1]}}", CCS_ERROR_INVALID},
        {"base file missing", "{\"base\": \"/nonexistent/base.json\"}", CCS_ERROR_IO},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GError *err = NULL;
        sweep *sw = parse(cases[i].text, &err);
        CU_ASSERT_PTR_NULL(sw);
        if (sw != NULL || err == NULL || !g_error_matches(err, CCS_ERROR, cases[i].code)) {
            CU_FAIL("wrong error");
            printf("\ncase '%s': expected code %d, got %s\n", cases[i].name, cases[i].code,
                   err ? err->message : "no error");
        } else
            CU_ASSERT(g_str_has_prefix(err->message, "t.json"));
        sweep_free(sw);
        g_clear_error(&err);
    }
}

/* RFC 4180: a quoted field may hold a comma, a doubled quote and a newline;
 * an empty last field counts; CRLF ends a row.  An open quote is an error
 * at the line where the field began. */
static void test_sweep_csv(void)
{
    GError *err = NULL;
    g_autoptr(GPtrArray) rows = sweep_csv_parse("a,b,c\r\n1,\"x,\"\"y\"\"\nz\",\n", "m.csv", &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(rows != NULL && rows->len == 2);
    GPtrArray *r1 = rows->pdata[1];
    CU_ASSERT_EQUAL_FATAL(r1->len, 3);
    CU_ASSERT_STRING_EQUAL(r1->pdata[0], "1");
    CU_ASSERT_STRING_EQUAL(r1->pdata[1], "x,\"y\"\nz");
    CU_ASSERT_STRING_EQUAL(r1->pdata[2], "");
    g_autoptr(GString) line = g_string_new(NULL);
    sweep_csv_append_field(line, "plain", true);
    sweep_csv_append_field(line, "a,\"b\"", false);
    CU_ASSERT_STRING_EQUAL(line->str, "plain,\"a,\"\"b\"\"\"");
    GPtrArray *bad = sweep_csv_parse("a\n\"open\n", "m.csv", &err);
    CU_ASSERT_PTR_NULL(bad);
    if (err)
        CU_ASSERT_STRING_EQUAL(err->message, "m.csv:2: unterminated quoted field");
    TEST_ASSERT_ERROR(err, CCS_ERROR_PARSE);
}

/* Write a sweep folder by hand: DIR/sweep.json and a summary.csv holding
 * the given runs (indices into the sweep) with a value column. */
static char *make_dir(const sweep *sw, const char *root, const char *sub, const int *runs,
                      size_t n)
{
    char *dir = g_build_filename(root, sub, NULL);
    g_mkdir(dir, 0755);
    g_autofree char *json = sweep_to_json(sw);
    g_autofree char *p1 = g_build_filename(dir, "sweep.json", NULL);
    g_file_set_contents(p1, json, -1, NULL);
    g_autoptr(GString) csv = g_string_new("run,x,util_frac\n");
    for (size_t i = 0; i < n; i++)
        g_string_append_printf(csv, "%s,%d,0.%d\n", sweep_run_name(sw, runs[i]), runs[i] + 1,
                               runs[i] + 1);
    g_autofree char *p2 = g_build_filename(dir, "summary.csv", NULL);
    g_file_set_contents(p2, csv->str, -1, NULL);
    return dir;
}

static void remove_dir(char *dir)
{
    g_autofree char *p1 = g_build_filename(dir, "sweep.json", NULL);
    g_autofree char *p2 = g_build_filename(dir, "summary.csv", NULL);
    g_remove(p1);
    g_remove(p2);
    g_rmdir(dir);
    g_free(dir);
}

/* Runs x = 1..4 (indices 0..3).  Shards {0, 2} + {1, 3} merge to 4 rows in
 * run order (x = 1, 2, 3, 4); {0, 2} + {1} misses run 3; {0, 2} + {1, 2, 3}
 * has run 2 twice. */
static void test_sweep_merge(void)
{
    GError *err = NULL;
    g_autoptr(sweep) sw = parse("{\"base\": {}, \"grid\": {\"x\": [1, 2, 3, 4]}}", &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(sw != NULL);
    g_autofree char *root = g_dir_make_tmp("merge-XXXXXX", &err);
    TEST_ASSERT_NO_ERROR(err);
    char *a = make_dir(sw, root, "a", (int[]){0, 2}, 2);
    char *b = make_dir(sw, root, "b", (int[]){1, 3}, 2);
    char *c = make_dir(sw, root, "c", (int[]){1}, 1);
    char *d = make_dir(sw, root, "d", (int[]){1, 2, 3}, 3);

    sweep_merge_report r = {0};
    g_autofree char *merged = sweep_merge((const char *[]){a, b}, 2, NULL, &r, &err);
    TEST_ASSERT_NO_ERROR(err);
    g_autofree char *expect = g_strdup_printf(
        "run,x,util_frac\n%s,1,0.1\n%s,2,0.2\n%s,3,0.3\n%s,4,0.4\n", sweep_run_name(sw, 0),
        sweep_run_name(sw, 1), sweep_run_name(sw, 2), sweep_run_name(sw, 3));
    if (merged)
        CU_ASSERT_STRING_EQUAL(merged, expect);
    CU_ASSERT_EQUAL(r.rows, 4);
    sweep_merge_report_clear(&r);

    char *missing = sweep_merge((const char *[]){a, c}, 2, NULL, &r, &err);
    CU_ASSERT_PTR_NULL(missing);
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_EQUAL_FATAL(r.missing->len, 1);
    CU_ASSERT_STRING_EQUAL(r.missing->pdata[0], sweep_run_name(sw, 3));
    CU_ASSERT_EQUAL(r.duplicated->len, 0);
    sweep_merge_report_clear(&r);

    char *dup = sweep_merge((const char *[]){a, d}, 2, NULL, &r, &err);
    CU_ASSERT_PTR_NULL(dup);
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_EQUAL(r.missing->len, 0);
    CU_ASSERT_EQUAL_FATAL(r.duplicated->len, 1);
    CU_ASSERT_STRING_EQUAL(r.duplicated->pdata[0], sweep_run_name(sw, 2));
    sweep_merge_report_clear(&r);

    remove_dir(a);
    remove_dir(b);
    remove_dir(c);
    remove_dir(d);
    g_rmdir(root);
}

static void write_file(const char *dir, const char *name, const char *sub, const char *text)
{
    g_autofree char *d = g_build_filename(dir, "runs", name, NULL);
    g_mkdir_with_parents(d, 0755);
    g_autofree char *p = g_build_filename(d, sub, NULL);
    g_file_set_contents(p, text, -1, NULL);
}

/* Runs scheduler = a, b, c.  Run 0 finished with a summary whose own
 * "scheduler" column (already a grid column) is dropped and whose "note"
 * needs quoting; run 1 failed (error.txt: exit status 1, last stderr line
 * "ccsim: bad"); run 2 never ran.  Expected files, by hand:
 *   summary.csv: run,scheduler,util_frac,note / NAME0,a,0.5,"x,y"
 *   failed.csv:  run,scheduler,exit_status,error / NAME1,b,1,ccsim: bad */
static void test_sweep_write_summary(void)
{
    GError *err = NULL;
    g_autoptr(sweep) sw = parse("{\"base\": {}, \"grid\": {\"scheduler\": [\"a\", \"b\", \"c\"]}}",
                                &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(sw != NULL);
    g_autofree char *dir = g_dir_make_tmp("summary-XXXXXX", &err);
    TEST_ASSERT_NO_ERROR(err);
    write_file(dir, sweep_run_name(sw, 0), "summary.csv",
               "scheduler,util_frac,note\nzzz,0.5,\"x,y\"\n");
    write_file(dir, sweep_run_name(sw, 1), "error.txt",
               "command: x\nexit_status: 1\n--- stderr ---\nwarning\nccsim: bad\n\n");
    size_t finished = 9, failed = 9;
    CU_ASSERT(sweep_write_summary(sw, dir, &finished, &failed, &err));
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_EQUAL(finished, 1);
    CU_ASSERT_EQUAL(failed, 1);
    g_autofree char *sp = g_build_filename(dir, "summary.csv", NULL);
    g_autofree char *fp = g_build_filename(dir, "failed.csv", NULL);
    g_autofree char *summary = NULL, *failures = NULL;
    CU_ASSERT(g_file_get_contents(sp, &summary, NULL, NULL));
    CU_ASSERT(g_file_get_contents(fp, &failures, NULL, NULL));
    g_autofree char *expect_s = g_strdup_printf("run,scheduler,util_frac,note\n%s,a,0.5,\"x,y\"\n",
                                                sweep_run_name(sw, 0));
    g_autofree char *expect_f = g_strdup_printf("run,scheduler,exit_status,error\n%s,b,1,ccsim: bad\n",
                                                sweep_run_name(sw, 1));
    if (summary && failures) {
        CU_ASSERT_STRING_EQUAL(summary, expect_s);
        CU_ASSERT_STRING_EQUAL(failures, expect_f);
    }
    for (size_t i = 0; i < 2; i++) {
        g_autofree char *d = g_build_filename(dir, "runs", sweep_run_name(sw, i), NULL);
        g_autofree char *a = g_build_filename(d, "summary.csv", NULL);
        g_autofree char *b = g_build_filename(d, "error.txt", NULL);
        g_remove(a);
        g_remove(b);
        g_rmdir(d);
    }
    g_autofree char *runs = g_build_filename(dir, "runs", NULL);
    g_autofree char *lock = g_build_filename(dir, ".lock", NULL);
    g_remove(sp);
    g_remove(fp);
    g_remove(lock);
    g_rmdir(runs);
    g_rmdir(dir);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"grid_order", test_sweep_grid_order},
        {"zip", test_sweep_zip},
        {"columns", test_sweep_columns},
        {"stable_names", test_sweep_stable_names},
        {"canonical_json", test_sweep_canonical_json},
        {"scenario", test_sweep_scenario},
        {"base_file_paths", test_sweep_base_file_paths},
        {"topo_param_paths", test_sweep_topo_param_paths},
        {"graph_library_path", test_sweep_graph_library_path},
        {"bad_input", test_sweep_bad_input},
        {"csv", test_sweep_csv},
        {"merge", test_sweep_merge},
        {"write_summary", test_sweep_write_summary},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("sweep", cases);
}
