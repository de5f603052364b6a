/* test_timeline.c - suite "timeline": the trace-event JSON and flows.csv
 * (sim/timeline.h).  Not here: the replay's own files (test_replay.c).
 */
#include "sim/timeline.h"

#include <cjson/cJSON.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "sim/output.h"
#include "sim/output_folder.h"
#include "test_run.h"
#include "test_util.h"

/* Crux's Example 1 on one 100 Gbps bottleneck (12.5 GB/s), communication
 * after compute (comm_start_frac 1), no optimizer step, no startup
 * latency (alpha 0); j1 (C = 2 s,
 * 25 GB: 2 s alone) has priority 0 over j2 (C = 1 s, 12.5 GB: 1 s alone).
 * By hand, both computing from 0:
 *   j2 computes [0,1), sends alone [1,2); j1 computes [0,2), sends [2,4).
 *   j2 computes [2,3); its send waits (rate 0) behind j1 until 4: [3,5).
 *   j1 computes [4,6), sends [6,8); j2 computes [5,6), sends [6,9) (rate 0
 *   over [6,8)), computes [9,10), sends [10,13) behind j1's [10,12).
 * So in the span [0,12): j1 compute [0,2) [4,6) [8,10), communication
 * [2,4) [6,8) [10,12); j2 compute [0,1) [2,3) [5,6) [9,10), communication
 * [1,2) [3,5) [6,9) and [10,12) clipped.  j2's collective is 4 transfers
 * of 3.125 GB (12.5 GB in all), 25 Gbps apiece over [1,2): 100 Gbps. */
static const char *const example1 =
    "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=1,nics=1,pcie=1,nic_gbps=400,"
    "tor_agg_gbps=100,latency_us=0,host_latency_us=0\","
    " \"trace\": {\"jobs\": ["
    "  {\"id\": \"j1\", \"gpus\": 2, \"hosts\": [\"h0\", \"h2\"], \"start_s\": 0, \"end_s\": 1203,"
    "   \"model\": {\"compute_s\": 2.0, \"comm_bytes\": 25e9, \"comm_start_frac\": 1.0,"
    "               \"opt_s\": 0, \"collective\": \"allreduce\"}},"
    "  {\"id\": \"j2\", \"gpus\": 2, \"hosts\": [\"h1\", \"h3\"], \"start_s\": 0, \"end_s\": 1203,"
    "   \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 12.5e9, \"comm_start_frac\": 1.0,"
    "               \"opt_s\": 0, \"collective\": \"allreduce\"}}]},"
    " \"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"j1\": {\"priority\": 0},"
    "                                               \"j2\": {\"priority\": 1}}},"
    " \"sim\": {\"alpha_us\": 0}}";

/* Run example1 with a timeline over [0, 12) into a fresh folder; returns
 * the folder (the caller removes it) and the parsed JSON in *json. */
static char *run_example(cJSON **json, char **jobs)
{
    GError *e = NULL;
    test_run x = {0};
    g_autofree char *base = g_dir_make_tmp("ccsim-timeline-XXXXXX", NULL);
    char *dir = g_build_filename(base, "run", NULL);
    bool ok = test_run_prepare(&x, example1, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    timeline_options o = {.file = "t.json", .jobs = jobs, .start_s = 0, .end_s = 12,
                          .flows = true};
    output_dir *d = ok ? output_dir_open(dir, &e) : NULL;
    if (d)
        replay_set_timeline(x.r, &o);
    ok = d && replay_run(x.r, d, NULL, NULL, &e) && output_dir_commit(d, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_TRUE(ok);
    test_run_clear(&x);
    g_autofree char *path = g_build_filename(dir, "t.json", NULL);
    g_autofree char *text = NULL;
    g_file_get_contents(path, &text, NULL, NULL);
    *json = text ? cJSON_Parse(text) : NULL;
    return dir;
}

/* The pid of the process named "job ID: ..." (0 if none). */
static int pid_of(const cJSON *events, const char *id)
{
    g_autofree char *prefix = g_strdup_printf("job %s:", id);
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
    {
        const cJSON *args = cJSON_GetObjectItem(ev, "args");
        const cJSON *name = args ? cJSON_GetObjectItem(args, "name") : NULL;
        if (strcmp(cJSON_GetObjectItem(ev, "name")->valuestring, "process_name") == 0 &&
            cJSON_IsString(name) && g_str_has_prefix(name->valuestring, prefix))
            return cJSON_GetObjectItem(ev, "pid")->valueint;
    }
    return 0;
}

/* The "X" slices named name of pid as "[a,b) " in seconds, in order. */
static char *slices(const cJSON *events, int pid, const char *name)
{
    GString *s = g_string_new(NULL);
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
    {
        if (strcmp(cJSON_GetObjectItem(ev, "ph")->valuestring, "X") != 0 ||
            cJSON_GetObjectItem(ev, "pid")->valueint != pid ||
            strcmp(cJSON_GetObjectItem(ev, "name")->valuestring, name) != 0)
            continue;
        double ts = cJSON_GetObjectItem(ev, "ts")->valuedouble / 1e6;
        double dur = cJSON_GetObjectItem(ev, "dur")->valuedouble / 1e6;
        g_string_append_printf(s, "[%g,%g) ", ts, ts + dur);
    }
    return g_string_free(s, FALSE);
}

/* Every event has the fields its phase needs (the trace-event schema):
 * name, ph and pid always; ts for X, C, b, n, e; dur >= 0 for X; args an
 * object for M and C; id for b, n, e. */
static void test_timeline_schema(void)
{
    cJSON *json = NULL;
    g_autofree char *dir = run_example(&json, NULL);
    CU_ASSERT_FATAL(json != NULL);
    const cJSON *events = cJSON_GetObjectItem(json, "traceEvents");
    CU_ASSERT_FATAL(cJSON_IsArray(events));
    CU_ASSERT(cJSON_GetArraySize(events) > 20);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(json, "otherData"),
                                                "truncated")));
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
    {
        const cJSON *ph = cJSON_GetObjectItem(ev, "ph");
        CU_ASSERT_FATAL(cJSON_IsString(ph));
        CU_ASSERT(cJSON_IsString(cJSON_GetObjectItem(ev, "name")));
        CU_ASSERT(cJSON_IsNumber(cJSON_GetObjectItem(ev, "pid")));
        const char *p = ph->valuestring;
        CU_ASSERT(strchr("XMCbne", p[0]) != NULL && p[1] == '\0');
        if (strchr("XCbne", p[0]))
            CU_ASSERT(cJSON_IsNumber(cJSON_GetObjectItem(ev, "ts")));
        if (p[0] == 'X')
            CU_ASSERT(cJSON_GetObjectItem(ev, "dur")->valuedouble >= 0);
        if (strchr("MC", p[0]))
            CU_ASSERT(cJSON_IsObject(cJSON_GetObjectItem(ev, "args")));
        if (strchr("bne", p[0]))
            CU_ASSERT(cJSON_IsString(cJSON_GetObjectItem(ev, "id")));
        if (cJSON_GetObjectItem(ev, "ts"))
            CU_ASSERT(cJSON_GetObjectItem(ev, "ts")->valuedouble <= 12e6);
    }
    cJSON_Delete(json);
    output_folder_remove(dir, NULL);
    g_autofree char *parent = g_path_get_dirname(dir);
    g_rmdir(parent);
}

/* The phases of the hand-worked schedule above, and flows.csv. */
static void test_timeline_two_jobs(void)
{
    cJSON *json = NULL;
    g_autofree char *dir = run_example(&json, NULL);
    CU_ASSERT_FATAL(json != NULL);
    const cJSON *events = cJSON_GetObjectItem(json, "traceEvents");
    int p1 = pid_of(events, "j1"), p2 = pid_of(events, "j2");
    CU_ASSERT(p1 > 0 && p2 > 0 && p1 != p2);
    g_autofree char *c1 = slices(events, p1, "compute");
    g_autofree char *m1 = slices(events, p1, "communication");
    g_autofree char *c2 = slices(events, p2, "compute");
    g_autofree char *m2 = slices(events, p2, "communication");
    g_autofree char *o1 = slices(events, p1, "optimizer");
    CU_ASSERT_STRING_EQUAL(c1, "[0,2) [4,6) [8,10) ");
    CU_ASSERT_STRING_EQUAL(m1, "[2,4) [6,8) [10,12) ");
    CU_ASSERT_STRING_EQUAL(c2, "[0,1) [2,3) [5,6) [9,10) ");
    CU_ASSERT_STRING_EQUAL(m2, "[1,2) [3,5) [6,9) [10,12) ");
    CU_ASSERT_STRING_EQUAL(o1, ""); /* opt_s 0: no optimizer step */
    /* flows.csv: j2's first transfers, [1, 2), 3.125 GB each at priority 1 */
    g_autofree char *fp = g_build_filename(dir, "flows.csv", NULL);
    g_autofree char *flows = NULL;
    CU_ASSERT_TRUE(g_file_get_contents(fp, &flows, NULL, NULL));
    CU_ASSERT(flows && g_str_has_prefix(flows, "job_id,transfer,start_s,end_s,bytes,priority,path\n"));
    CU_ASSERT(flows && strstr(flows, "\nj2,") && strstr(flows, ",1,2,3125000000,1,"));
    cJSON_Delete(json);
    output_folder_remove(dir, NULL);
    g_autofree char *parent = g_path_get_dirname(dir);
    g_rmdir(parent);
}

/* --timeline-jobs: only the named job has a process. */
static void test_timeline_chosen_jobs(void)
{
    cJSON *json = NULL;
    char *only[] = {"j2", NULL};
    g_autofree char *dir = run_example(&json, only);
    CU_ASSERT_FATAL(json != NULL);
    const cJSON *events = cJSON_GetObjectItem(json, "traceEvents");
    CU_ASSERT_EQUAL(pid_of(events, "j1"), 0);
    CU_ASSERT(pid_of(events, "j2") > 0);
    cJSON_Delete(json);
    output_folder_remove(dir, NULL);
    g_autofree char *parent = g_path_get_dirname(dir);
    g_rmdir(parent);
}

/* The last value of pid's counter name at ts_s (NAN when none). */
static double counter_at(const cJSON *events, int pid, const char *name, double ts_s)
{
    double v = NAN;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
    {
        if (strcmp(cJSON_GetObjectItem(ev, "ph")->valuestring, "C") == 0 &&
            cJSON_GetObjectItem(ev, "pid")->valueint == pid &&
            strcmp(cJSON_GetObjectItem(ev, "name")->valuestring, name) == 0 &&
            fabs(cJSON_GetObjectItem(ev, "ts")->valuedouble - ts_s * 1e6) < 1e-3)
            v = cJSON_GetObjectItem(cJSON_GetObjectItem(ev, "args"), "Gbps")->valuedouble;
    }
    return v;
}

/* Events named name (any phase ph, "" for all) in the JSON. */
static size_t count_events(const cJSON *events, const char *name, const char *ph)
{
    size_t n = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
        n += strcmp(cJSON_GetObjectItem(ev, "name")->valuestring, name) == 0 &&
             (!*ph || strcmp(cJSON_GetObjectItem(ev, "ph")->valuestring, ph) == 0);
    return n;
}

/* Transfer tracks are clipped to the span [0, 12] like the slices: every
 * "b" has its "e", none after 12 s (j2's send of [10,13) ends there).  The
 * rate counters: over [1,2) j2 sends alone, 4 transfers at 25 Gbps: its
 * "network Gbps" is 100 at 1 s; one GPU per host, so every transfer
 * crosses a ToR and there is no "NVLink Gbps" counter at all. */
static void test_timeline_span_and_rates(void)
{
    cJSON *json = NULL;
    g_autofree char *dir = run_example(&json, NULL);
    CU_ASSERT_FATAL(json != NULL);
    const cJSON *events = cJSON_GetObjectItem(json, "traceEvents");
    g_autoptr(GHashTable) open = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    size_t begins = 0, ends = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
    {
        const char *ph = cJSON_GetObjectItem(ev, "ph")->valuestring;
        if (strcmp(cJSON_GetObjectItem(ev, "name")->valuestring, "transfer") != 0)
            continue;
        const char *id = cJSON_GetObjectItem(ev, "id")->valuestring;
        double ts = cJSON_GetObjectItem(ev, "ts")->valuedouble;
        CU_ASSERT(ts >= 0 && ts <= 12e6);
        if (strcmp(ph, "b") == 0) {
            CU_ASSERT(ts < 12e6);
            CU_ASSERT_TRUE(g_hash_table_add(open, g_strdup(id)));
            begins++;
        } else if (strcmp(ph, "e") == 0) {
            CU_ASSERT_TRUE(g_hash_table_remove(open, id));
            ends++;
        }
    }
    CU_ASSERT(begins > 0);
    CU_ASSERT_EQUAL(begins, ends);
    CU_ASSERT_EQUAL(g_hash_table_size(open), 0);
    int p2 = pid_of(events, "j2");
    TEST_ASSERT_CLOSE(counter_at(events, p2, "network Gbps", 1.0), 100.0, 1e-9);
    CU_ASSERT_EQUAL(count_events(events, "NVLink Gbps", "C"), 0);
    cJSON_Delete(json);
    output_folder_remove(dir, NULL);
    g_autofree char *parent = g_path_get_dirname(dir);
    g_rmdir(parent);
}

/* A job of 8 GPUs on one host of fat-tree:k=4 (8 GPUs on an NVSwitch):
 * its ring never leaves the host, so its rate is all "NVLink Gbps" and
 * its "network Gbps" counter never appears. */
static void test_timeline_nvlink_apart(void)
{
    static const char *const one_host =
        "{\"topology\": \"fat-tree:k=4\", \"trace\": {\"jobs\": ["
        "  {\"id\": \"j1\", \"gpus\": 8, \"hosts\": [\"h0\"], \"start_s\": 0, \"end_s\": 5,"
        "   \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 1e9, \"comm_start_frac\": 1.0}}]},"
        " \"sim\": {\"alpha_us\": 0}}";
    GError *e = NULL;
    test_run x = {0};
    g_autofree char *base = g_dir_make_tmp("ccsim-timeline-XXXXXX", NULL);
    g_autofree char *dir = g_build_filename(base, "run", NULL);
    CU_ASSERT_TRUE_FATAL(test_run_prepare(&x, one_host, NULL, &e));
    timeline_options o = {.file = "t.json", .start_s = -INFINITY, .end_s = INFINITY};
    output_dir *d = output_dir_open(dir, &e);
    replay_set_timeline(x.r, &o);
    CU_ASSERT_TRUE(d && replay_run(x.r, d, NULL, NULL, &e) && output_dir_commit(d, &e));
    TEST_ASSERT_NO_ERROR(e);
    test_run_clear(&x);
    g_autofree char *path = g_build_filename(dir, "t.json", NULL);
    g_autofree char *text = NULL;
    CU_ASSERT_TRUE(g_file_get_contents(path, &text, NULL, NULL));
    cJSON *json = text ? cJSON_Parse(text) : NULL;
    CU_ASSERT_FATAL(json != NULL);
    const cJSON *events = cJSON_GetObjectItem(json, "traceEvents");
    CU_ASSERT(count_events(events, "NVLink Gbps", "C") > 0);
    CU_ASSERT_EQUAL(count_events(events, "network Gbps", "C"), 0);
    cJSON_Delete(json);
    output_folder_remove(dir, NULL);
    g_rmdir(base);
}

/* The span with the fast path on outside it.  j1 and j2 (Crux's example 1
 * above, on two racks of three hosts) repeat every 4 s and skip whole
 * periods as a group; j3 rings over the NVLink of its own host and j4
 * never communicates: both fast-forwarded alone (docs/engine.md); j5
 * shares no link (its two hosts hang off one switch): it runs stretches
 * (§5b) up to the next change.  Over
 * the span [600, 630] (ticks every 50 s: the fast path is off from the
 * tick at 600 to the first tick after 630 at which no transfer from the
 * span runs), the timeline and flows.csv must be those of the run without
 * the fast path, number for number within 1e-9 relative (transfer ids
 * aside: the two runs number their transfers apart), and the fast path
 * must have run outside the span (far fewer events). */
static const char *const span_case =
    "{\"topology\": \"clos2:tors=2,aggs=1,hosts_per_tor=4,gpus=2,nics=1,pcie=1,nic_gbps=400,"
    "tor_agg_gbps=100,latency_us=0,host_latency_us=0\","
    " \"trace\": {\"jobs\": ["
    "  {\"id\": \"j1\", \"gpus\": 2, \"hosts\": [\"h0\", \"h4\"], \"start_s\": 0, \"end_s\": 1203,"
    "   \"model\": {\"compute_s\": 2.0, \"comm_bytes\": 25e9, \"comm_start_frac\": 1.0,"
    "               \"opt_s\": 0, \"collective\": \"allreduce\"}},"
    "  {\"id\": \"j2\", \"gpus\": 2, \"hosts\": [\"h1\", \"h5\"], \"start_s\": 0, \"end_s\": 1203,"
    "   \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 12.5e9, \"comm_start_frac\": 1.0,"
    "               \"opt_s\": 0, \"collective\": \"allreduce\"}},"
    "  {\"id\": \"j3\", \"gpus\": 2, \"hosts\": [\"h2\"], \"start_s\": 5, \"end_s\": 1100,"
    "   \"model\": {\"compute_s\": 0.7, \"comm_bytes\": 2e9, \"comm_start_frac\": 0.5,"
    "               \"opt_s\": 0.05, \"collective\": \"allreduce\"}},"
    "  {\"id\": \"j4\", \"gpus\": 1, \"hosts\": [\"h3\"], \"start_s\": 3, \"end_s\": 1150,"
    "   \"model\": {\"compute_s\": 1.3, \"comm_bytes\": 0, \"opt_s\": 0.2}},"
    "  {\"id\": \"j5\", \"gpus\": 2, \"hosts\": [\"h6\", \"h7\"], \"start_s\": 1, \"end_s\": 1180,"
    "   \"model\": {\"compute_s\": 0.9, \"comm_bytes\": 4e9, \"comm_start_frac\": 0.3,"
    "               \"opt_s\": 0.1, \"collective\": \"allreduce\"}}]},"
    " \"scheduler\": {\"name\": \"fixed\", \"jobs\": {\"j1\": {\"priority\": 0},"
    "   \"j2\": {\"priority\": 1}, \"j3\": {\"priority\": 2}, \"j4\": {\"priority\": 3},"
    "   \"j5\": {\"priority\": 4}}},"
    " \"sim\": {\"alpha_us\": 0, \"interval_s\": 50}}";

/* Run span_case with the timeline over [600, 630] (fast path ffwd) into a
 * fresh folder (returned); its summary into *out. */
static char *run_span_case(bool ffwd, replay_summary *out)
{
    GError *e = NULL;
    test_run x = {0};
    g_autofree char *base = g_dir_make_tmp("ccsim-timeline-XXXXXX", NULL);
    char *dir = g_build_filename(base, "run", NULL);
    const char *const opts[] = {"fast_forward", ffwd ? "true" : "false", NULL};
    CU_ASSERT_TRUE_FATAL(test_run_prepare(&x, span_case, opts, &e));
    timeline_options o = {.file = "t.json", .start_s = 600, .end_s = 630, .flows = true};
    output_dir *d = output_dir_open(dir, &e);
    replay_set_timeline(x.r, &o);
    CU_ASSERT_TRUE(d && replay_run(x.r, d, NULL, NULL, &e) && output_dir_commit(d, &e));
    TEST_ASSERT_NO_ERROR(e);
    replay_get_summary(x.r, out);
    test_run_clear(&x);
    return dir;
}

/* a and b are the same JSON value, numbers within 1e-9 relative (1e-3
 * absolute: microseconds printed to 3 decimals), "id" members aside. */
static bool json_close(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return fabs(a->valuedouble - b->valuedouble) <=
               fmax(1e-3, 1e-9 * fmax(fabs(a->valuedouble), fabs(b->valuedouble)));
    if (cJSON_IsString(a) && cJSON_IsString(b))
        return strcmp(a->valuestring, b->valuestring) == 0;
    if ((cJSON_IsObject(a) && cJSON_IsObject(b)) || (cJSON_IsArray(a) && cJSON_IsArray(b))) {
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
            return false;
        for (const cJSON *x = a->child, *y = b->child; x && y; x = x->next, y = y->next)
            if ((x->string && strcmp(x->string, y->string) != 0) ||
                (!(x->string && strcmp(x->string, "id") == 0) && !json_close(x, y)))
                return false;
        return true;
    }
    return cJSON_IsBool(a) && cJSON_IsBool(b) && cJSON_IsTrue(a) == cJSON_IsTrue(b);
}

static char *read_in(const char *dir, const char *name)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    char *text = NULL;
    CU_ASSERT_TRUE(g_file_get_contents(path, &text, NULL, NULL));
    return text;
}

static void test_timeline_span_fast_path(void)
{
    replay_summary sf, sp;
    g_autofree char *fast = run_span_case(true, &sf);
    g_autofree char *plain = run_span_case(false, &sp);
    CU_ASSERT(sf.events * 3 < sp.events);
    CU_ASSERT_EQUAL(sf.jobs_fast_forwarded, 2); /* j3 and j4 */
    CU_ASSERT(sf.group_skips >= 2);             /* j1 and j2, before and after */
    CU_ASSERT(sf.ffwd_stretches >= 2);          /* j5, before and after */
    TEST_ASSERT_CLOSE(sf.gpu_util_cluster_frac, sp.gpu_util_cluster_frac, 1e-9);
    g_autofree char *tf = read_in(fast, "t.json"), *tp = read_in(plain, "t.json");
    cJSON *jf = tf ? cJSON_Parse(tf) : NULL, *jp = tp ? cJSON_Parse(tp) : NULL;
    CU_ASSERT_FATAL(jf && jp);
    const cJSON *ef = cJSON_GetObjectItem(jf, "traceEvents");
    const cJSON *ep = cJSON_GetObjectItem(jp, "traceEvents");
    CU_ASSERT(cJSON_GetArraySize(ep) > 100);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(ef), cJSON_GetArraySize(ep));
    int bad = 0;
    for (const cJSON *x = ef->child, *y = ep->child; x && y; x = x->next, y = y->next)
        bad += !json_close(x, y);
    CU_ASSERT_EQUAL(bad, 0);
    /* every job has slices in the span, j3 and j4 too */
    for (int k = 1; k <= 5; k++) {
        g_autofree char *id = g_strdup_printf("j%d", k);
        g_autofree char *c = slices(ep, pid_of(ep, id), "compute");
        CU_ASSERT(strlen(c) > 0);
    }
    /* flows.csv: the same rows, the transfer ids aside */
    g_autofree char *ff = read_in(fast, "flows.csv"), *fp = read_in(plain, "flows.csv");
    g_auto(GStrv) rf = g_strsplit(ff ? ff : "", "\n", -1), rp = g_strsplit(fp ? fp : "", "\n", -1);
    CU_ASSERT(g_strv_length(rp) > 10);
    CU_ASSERT_EQUAL_FATAL(g_strv_length(rf), g_strv_length(rp));
    for (guint i = 0; rf[i]; i++) {
        g_auto(GStrv) a = g_strsplit(rf[i], ",", -1), b = g_strsplit(rp[i], ",", -1);
        CU_ASSERT_EQUAL_FATAL(g_strv_length(a), g_strv_length(b));
        for (guint c = 0; a[c]; c++) {
            char *end_a, *end_b;
            double x = g_ascii_strtod(a[c], &end_a), y = g_ascii_strtod(b[c], &end_b);
            if (c == 1 || (*end_a == '\0' && *end_b == '\0' && end_a != a[c] &&
                           fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y))))
                continue;
            CU_ASSERT_STRING_EQUAL(a[c], b[c]);
        }
    }
    cJSON_Delete(jf);
    cJSON_Delete(jp);
    const char *dirs[] = {fast, plain};
    for (int i = 0; i < 2; i++) {
        output_folder_remove(dirs[i], NULL);
        g_autofree char *parent = g_path_get_dirname(dirs[i]);
        g_rmdir(parent);
    }
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"schema", test_timeline_schema},
        {"two_jobs", test_timeline_two_jobs},
        {"chosen_jobs", test_timeline_chosen_jobs},
        {"span_and_rates", test_timeline_span_and_rates},
        {"nvlink_apart", test_timeline_nvlink_apart},
        {"span_fast_path", test_timeline_span_fast_path},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("timeline", cases);
}
