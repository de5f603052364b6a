/* test_export_packet.c - suite "export_packet": the packet export of a
 * run (sim/export_packet.h) against the engine's own transfers and hand
 * values.  Not here: the ns-3 replayer (tests/packet_replay_test.sh).
 */
#include "sim/export_packet.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/ccs.h"
#include "sim/collective.h"
#include "sim/output.h"
#include "sim/timeline.h"
#include "test_run.h"
#include "test_util.h"

/* Two jobs on a 2-ToR Clos with two aggregation switches (two candidate
 * paths between the ToRs), one GPU and one 100 Gbps NIC per host, one
 * channel, alpha 5 us:
 *   j1: all-reduce of S = 1 GB on h0, h2: a 2-host ring, one lock-step
 *       transfer of 2 (H - 1) / H S = 1 GB per hop in 2 (H - 1) = 2
 *       lock-steps, i.e. 2 x 2 flows of 0.5 GB (hop 0: h0 -> h2, hop 1:
 *       h2 -> h0); the step-1 flow of hop 0 forwards what hop 1 sent at
 *       step 0;
 *   j2: p2p of S = 0.4 GB from h1 to h3: one transfer, one flow of 0.4 GB.
 * Both compute 0.1 s before communicating; j1 at level 0, j2 at level 1.
 * The window of 0.5 s holds two iterations of each:
 *   j1 alone on its path: 1 GB / 12.5 GB/s = 80 ms (plus startup).
 * Connections: j1 flows 0 (h0 -> h2) and 1 (h2 -> h0), j2 flow 0; the
 * ECMP key of flow f of the job of uid u is topo_hash64(u * 0x9E3779B97F4A7C15
 * + f) (collective.c), j1 arriving first (uid 0), j2 second (uid 1). */
#define TWO_JOBS_TOPO_TRACE                                                                       \
    "{\"topology\": \"clos2:tors=2,aggs=2,hosts_per_tor=2,gpus=1,nics=1,pcie=1,nic_gbps=100,"    \
    "tor_agg_gbps=100,latency_us=1,host_latency_us=0.5\","                                      \
    " \"trace\": {\"jobs\": ["                                                                   \
    "  {\"id\": \"j1\", \"gpus\": 2, \"hosts\": [\"h0\", \"h2\"], \"start_s\": 0, \"end_s\": 0.5," \
    "   \"model\": {\"compute_s\": 0.1, \"comm_bytes\": 1e9, \"comm_start_frac\": 1.0,"          \
    "               \"opt_s\": 0, \"collective\": \"allreduce\"}},"                                \
    "  {\"id\": \"j2\", \"gpus\": 2, \"hosts\": [\"h1\", \"h3\"], \"start_s\": 0, \"end_s\": 0.5," \
    "   \"model\": {\"compute_s\": 0.1, \"comm_bytes\": 4e8, \"comm_start_frac\": 1.0,"          \
    "               \"opt_s\": 0, \"collective\": \"p2p\"}}]},"                                    \
    " \"sim\": {\"channels\": 1, \"interval_s\": 0.1},"
static const char *const two_jobs =
    TWO_JOBS_TOPO_TRACE " \"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"j1\": {\"priority\": 0},"
                        " \"j2\": {\"priority\": 1}}}}";
static const char *const two_jobs_ideal = TWO_JOBS_TOPO_TRACE " \"scheduler\": \"ideal\"}";

/* A CSV file: its rows (cells split at commas; the export writes none
 * inside a cell) and its header. */
typedef struct csv {
    GPtrArray *rows; /* GStrv, header first */
} csv;

static csv csv_read(const char *dir, const char *name)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autofree char *text = NULL;
    csv c = {g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev)};
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(path, &text, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++)
        if (**l)
            g_ptr_array_add(c.rows, g_strsplit(*l, ",", -1));
    return c;
}

static void csv_free(csv *c) { g_ptr_array_free(c->rows, TRUE); }

static size_t csv_rows(const csv *c) { return c->rows->len - 1; }

/* Cell of data row r (0-based) in column col. */
static const char *cell(const csv *c, size_t r, const char *col)
{
    char **head = g_ptr_array_index(c->rows, 0);
    for (size_t i = 0; head[i]; i++)
        if (strcmp(head[i], col) == 0)
            return ((char **)g_ptr_array_index(c->rows, r + 1))[i];
    CU_FAIL_FATAL("no such column");
    return NULL;
}

static double num(const csv *c, size_t r, const char *col) { return atof(cell(c, r, col)); }

static gint cmp_int(gconstpointer a, gconstpointer b)
{
    return *(const int *)a - *(const int *)b;
}

/* The sorted distinct link ids of a space-separated list, as a string. */
static char *link_set(const char *const *lists, size_t n)
{
    g_autoptr(GArray) a = g_array_new(FALSE, FALSE, sizeof(int));
    for (size_t i = 0; i < n; i++) {
        g_auto(GStrv) ids = g_strsplit(lists[i], " ", -1);
        for (char **p = ids; *p; p++) {
            int v = atoi(*p);
            bool seen = false;
            for (guint k = 0; k < a->len; k++)
                seen = seen || g_array_index(a, int, k) == v;
            if (!seen)
                g_array_append_val(a, v);
        }
    }
    g_array_sort(a, cmp_int);
    GString *s = g_string_new(NULL);
    for (guint k = 0; k < a->len; k++)
        g_string_append_printf(s, "%s%d", k ? " " : "", g_array_index(a, int, k));
    return g_string_free(s, FALSE);
}

/* Run two_jobs with the exporter and a flows.csv timeline into a fresh
 * folder (returned; the caller removes it). */
static char *export_two_jobs(void)
{
    GError *e = NULL;
    test_run x = {0};
    g_autofree char *base = g_dir_make_tmp("ccsim-export-XXXXXX", NULL);
    char *dir = g_build_filename(base, "run", NULL);
    bool ok = test_run_prepare(&x, two_jobs, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    timeline_options o = {.start_s = -INFINITY, .end_s = INFINITY, .flows = true};
    output_dir *d = ok ? output_dir_open(dir, &e) : NULL;
    if (d)
        replay_set_timeline(x.r, &o);
    g_autoptr(export_packet) xp = d ? export_packet_new(x.r, d, &e) : NULL;
    ok = xp && replay_run(x.r, d, NULL, NULL, &e) && export_packet_finish(xp, &e) &&
         output_dir_commit(d, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_TRUE(ok);
    g_clear_pointer(&xp, export_packet_free);
    test_run_clear(&x);
    return dir;
}

static void remove_tree(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const char *n;
    while (d && (n = g_dir_read_name(d))) {
        g_autofree char *p = g_build_filename(dir, n, NULL);
        g_remove(p);
    }
    g_rmdir(dir);
    g_autofree char *base = g_path_get_dirname(dir);
    g_rmdir(base);
}

/* The transfers, their bytes and their flows, by hand (two_jobs). */
static void test_export_packet_bytes(void)
{
    g_autofree char *dir = export_two_jobs();
    csv tr = csv_read(dir, "packet_transfers.csv"), tk = csv_read(dir, "packet_tasks.csv");
    CU_ASSERT_EQUAL(csv_rows(&tr), 2);
    CU_ASSERT_STRING_EQUAL(cell(&tr, 0, "job_id"), "j1");
    TEST_ASSERT_CLOSE(num(&tr, 0, "bytes"), 1e9, 1e-12);
    CU_ASSERT_EQUAL(num(&tr, 0, "hops"), 2);
    CU_ASSERT_EQUAL(num(&tr, 0, "ring_steps"), 2);
    TEST_ASSERT_CLOSE(num(&tr, 1, "bytes"), 4e8, 1e-12);
    CU_ASSERT_EQUAL(num(&tr, 1, "hops"), 1);
    /* flows: j1 four of 0.5 GB, j2 one of 0.4 GB, each after alpha */
    size_t flows[2] = {0, 0};
    for (size_t r = 0; r < csv_rows(&tk); r++) {
        if (strcmp(cell(&tk, r, "kind"), "flow") != 0)
            continue;
        bool j1 = strcmp(cell(&tk, r, "job_id"), "j1") == 0;
        flows[j1 ? 0 : 1]++;
        TEST_ASSERT_CLOSE(num(&tk, r, "bytes"), j1 ? 5e8 : 4e8, 1e-12);
        TEST_ASSERT_CLOSE(num(&tk, r, "delay_s"), 5e-6, 1e-12);
    }
    CU_ASSERT_EQUAL(flows[0], 4);
    CU_ASSERT_EQUAL(flows[1], 1);
    /* j1's ring: tasks 3, 4 are step 0 (hops 0, 1), 5, 6 step 1; hop 0 at
     * step 1 (task 5) forwards hop 1's step-0 chunk (task 4) */
    CU_ASSERT_STRING_EQUAL(cell(&tk, 5, "deps"), "4");
    CU_ASSERT_STRING_EQUAL(cell(&tk, 6, "deps"), "3");
    CU_ASSERT_STRING_EQUAL(cell(&tk, 5, "conn"), "0");
    csv_free(&tr);
    csv_free(&tk);
    remove_tree(dir);
}

/* Every transfer the engine ran (flows.csv, the timeline's record of the
 * net's transfers) is in the export: the same count as ccsim_transfers.csv,
 * the export's bytes, and links = the union of its flows' routes. */
static void test_export_packet_engine_transfers(void)
{
    g_autofree char *dir = export_two_jobs();
    csv fl = csv_read(dir, "flows.csv"), ob = csv_read(dir, "ccsim_transfers.csv");
    csv tr = csv_read(dir, "packet_transfers.csv"), rt = csv_read(dir, "packet_routes.csv");
    CU_ASSERT_EQUAL(csv_rows(&fl), csv_rows(&ob));
    CU_ASSERT_TRUE(csv_rows(&fl) >= 4); /* two iterations of each job at least */
    const char *j1_routes[2] = {NULL, NULL}, *j2_route = NULL;
    for (size_t r = 0; r < csv_rows(&rt); r++) {
        if (strcmp(cell(&rt, r, "job_id"), "j1") == 0)
            j1_routes[atoi(cell(&rt, r, "conn"))] = cell(&rt, r, "links");
        else
            j2_route = cell(&rt, r, "links");
    }
    CU_ASSERT_FATAL(j1_routes[0] && j1_routes[1] && j2_route);
    g_autofree char *j1_links = link_set(j1_routes, 2);
    g_autofree char *j2_links = link_set(&j2_route, 1);
    for (size_t r = 0; r < csv_rows(&fl); r++) {
        bool j1 = strcmp(cell(&fl, r, "job_id"), "j1") == 0;
        const char *path = cell(&fl, r, "path");
        g_autofree char *links = link_set(&path, 1);
        CU_ASSERT_STRING_EQUAL(links, j1 ? j1_links : j2_links);
        TEST_ASSERT_CLOSE(num(&fl, r, "bytes"), num(&tr, j1 ? 0 : 1, "bytes"), 1e-9);
    }
    /* ccsim_transfers.csv: j1's first transfer starts when its compute
     * ends (0.1 s) and lasts at least its 1 GB per hop at 12.5 GB/s */
    size_t first = 0; /* rows come as transfers end: j2's first */
    while (first < csv_rows(&ob) && strcmp(cell(&ob, first, "job_id"), "j1") != 0)
        first++;
    CU_ASSERT_FATAL(first < csv_rows(&ob));
    CU_ASSERT_EQUAL(num(&ob, first, "iteration"), 0);
    TEST_ASSERT_CLOSE(num(&ob, first, "start_s"), 0.1, 1e-12);
    CU_ASSERT_TRUE(num(&ob, first, "fct_s") >= 0.08);
    csv_free(&fl);
    csv_free(&ob);
    csv_free(&tr);
    csv_free(&rt);
    remove_tree(dir);
}

/* The ECMP hash input of each network connection and the path it gives
 * (ccsim's ECMP choice, kept by the fixed scheduler): flow_key =
 * topo_hash64(uid * 0x9E3779B97F4A7C15 + flow), ecmp_path =
 * topo_path_ecmp(src NIC, dst NIC, flow_key, seed 1) = the route's path;
 * the decisions' levels as the scenario set them. */
static void test_export_packet_hashes(void)
{
    g_autofree char *dir = export_two_jobs();
    csv cn = csv_read(dir, "packet_conns.csv"), rt = csv_read(dir, "packet_routes.csv");
    csv dc = csv_read(dir, "packet_decisions.csv");
    CU_ASSERT_EQUAL(csv_rows(&cn), 3);
    GError *e = NULL;
    g_autoptr(topo) t = topo_build("clos2:tors=2,aggs=2,hosts_per_tor=2,gpus=1,nics=1,pcie=1,"
                                   "nic_gbps=100,tor_agg_gbps=100,latency_us=1,host_latency_us=0.5",
                                   NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    for (size_t r = 0; r < csv_rows(&cn); r++) {
        uint64_t uid = strcmp(cell(&cn, r, "job_id"), "j1") == 0 ? 0 : 1;
        uint64_t f = (uint64_t)atoi(cell(&cn, r, "flow"));
        uint64_t key = topo_hash64(uid * 0x9E3779B97F4A7C15ULL + f);
        CU_ASSERT_EQUAL(g_ascii_strtoull(cell(&cn, r, "flow_key"), NULL, 10), key);
        CU_ASSERT_EQUAL(num(&cn, r, "n_paths"), 2);
        uint32_t a = (uint32_t)atoi(cell(&cn, r, "src_nic"));
        uint32_t b = (uint32_t)atoi(cell(&cn, r, "dst_nic"));
        CU_ASSERT_EQUAL(num(&cn, r, "ecmp_path"), (double)topo_path_ecmp(t, a, b, key, 1));
        for (size_t k = 0; k < csv_rows(&rt); k++)
            if (strcmp(cell(&rt, k, "job_id"), cell(&cn, r, "job_id")) == 0 &&
                strcmp(cell(&rt, k, "conn"), cell(&cn, r, "conn")) == 0)
                CU_ASSERT_STRING_EQUAL(cell(&rt, k, "path"), cell(&cn, r, "ecmp_path"));
    }
    for (size_t r = 0; r < csv_rows(&dc); r++)
        CU_ASSERT_EQUAL(num(&dc, r, "priority"),
                        strcmp(cell(&dc, r, "job_id"), "j1") == 0 ? 0 : 1);
    csv_free(&cn);
    csv_free(&rt);
    csv_free(&dc);
    remove_tree(dir);
}

/* A structured job (PP 2 on two hosts, one GPU each, 2 micro-batches of
 * 10 ms forward and 20 ms backward, 100 MB of activations, nothing else):
 * per iteration each micro-batch crosses the stage boundary forward (h0 ->
 * h1) and its gradient back (h1 -> h0): 4 transfers of 1e8 bytes, one flow
 * each, on 2 connections.  The engine ran those 4 in its first iteration; the first
 * (micro-batch 0 forward) is issued when stage 0's first forward ends
 * (10 ms) and, alone at 12.5 GB/s, lasts 1e8 / 12.5e9 = 8 ms plus its
 * startup (5 us + the path's latency, under 20 us). */
static const char *const pipeline2 =
    "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=1,gpus=1,nics=1,pcie=1,nic_gbps=100,"
    "tor_agg_gbps=100\","
    " \"trace\": {\"jobs\": [{\"id\": \"pp\", \"gpus\": 2, \"hosts\": [\"h0\", \"h1\"],"
    "   \"start_s\": 0, \"end_s\": 0.5, \"model\": {\"structure\": {\"pp\": 2,"
    "   \"micro_batches\": 2, \"fwd_s\": 0.01, \"bwd_s\": 0.02, \"act_bytes\": 1e8}}}]},"
    " \"scheduler\": \"ecmp\", \"sim\": {\"interval_s\": 0.1}}";

static void test_export_packet_structured(void)
{
    GError *e = NULL;
    test_run x = {0};
    g_autofree char *base = g_dir_make_tmp("ccsim-export-XXXXXX", NULL);
    g_autofree char *dir = g_build_filename(base, "run", NULL);
    bool ok = test_run_prepare(&x, pipeline2, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    output_dir *d = ok ? output_dir_open(dir, &e) : NULL;
    g_autoptr(export_packet) xp = d ? export_packet_new(x.r, d, &e) : NULL;
    ok = xp && replay_run(x.r, d, NULL, NULL, &e) && export_packet_finish(xp, &e) &&
         output_dir_commit(d, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_FATAL(ok);
    g_clear_pointer(&xp, export_packet_free);
    test_run_clear(&x);
    csv tr = csv_read(dir, "packet_transfers.csv"), tk = csv_read(dir, "packet_tasks.csv");
    csv cn = csv_read(dir, "packet_conns.csv"), ob = csv_read(dir, "ccsim_transfers.csv");
    CU_ASSERT_EQUAL(csv_rows(&tr), 4);
    for (size_t r = 0; r < csv_rows(&tr); r++)
        TEST_ASSERT_CLOSE(num(&tr, r, "bytes"), 1e8, 1e-12);
    size_t flows = 0;
    for (size_t r = 0; r < csv_rows(&tk); r++)
        if (strcmp(cell(&tk, r, "kind"), "flow") == 0) {
            flows++;
            TEST_ASSERT_CLOSE(num(&tk, r, "bytes"), 1e8, 1e-12);
        }
    CU_ASSERT_EQUAL(flows, 4);
    CU_ASSERT_EQUAL(csv_rows(&cn), 2);
    size_t first_iteration = 0;
    for (size_t r = 0; r < csv_rows(&ob); r++)
        first_iteration += num(&ob, r, "iteration") == 0;
    CU_ASSERT_EQUAL(first_iteration, 4);
    CU_ASSERT_EQUAL(num(&ob, 0, "transfer"), 0);
    TEST_ASSERT_CLOSE(num(&ob, 0, "start_s"), 0.01, 1e-12);
    CU_ASSERT_TRUE(num(&ob, 0, "fct_s") > 0.008 && num(&ob, 0, "fct_s") < 0.00802);
    csv_free(&tr);
    csv_free(&tk);
    csv_free(&cn);
    csv_free(&ob);
    remove_tree(dir);
}

/* The ideal scheduler has no transfers to export. */
static void test_export_packet_refuses_ideal(void)
{
    GError *e = NULL;
    test_run x = {0};
    CU_ASSERT_TRUE(test_run_prepare(&x, two_jobs_ideal, NULL, &e));
    TEST_ASSERT_NO_ERROR(e);
    g_autofree char *base = g_dir_make_tmp("ccsim-export-XXXXXX", NULL);
    output_dir *d = output_dir_open(base, &e);
    CU_ASSERT_PTR_NULL(export_packet_new(x.r, d, &e));
    TEST_ASSERT_ERROR(e, CCS_ERROR_UNSUPPORTED);
    output_dir_abort(d);
    g_rmdir(base);
    test_run_clear(&x);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"bytes", test_export_packet_bytes},
        {"engine_transfers", test_export_packet_engine_transfers},
        {"hashes", test_export_packet_hashes},
        {"structured", test_export_packet_structured},
        {"refuses_ideal", test_export_packet_refuses_ideal},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("export_packet", cases);
}
