/* test_lingjun.c - suite "lingjun": the Lingjun loader, timestamps, JSON
 * jobs, the bundled sample.  Not here: the generator (test_gen.c).
 *
 * The sample files below are written by hand and reproduce the quirks of
 * the real release (docs/traces.md): 98 empty header names in
 * job.csv, RES as JSON inside a quoted field, unpadded and padded dates,
 * empty fields, master/worker/aimaster pods, hosts missing from topo.csv,
 * CRLF line ends, the known bad row (id 8169).
 */
#include <glib/gstdio.h>
#include <string.h>
#include <zlib.h>

#include "base/ccs.h"
#include "test_util.h"
#include "traces/trace.h"
#include "traces/traces-private.h"

/* ---- the sample ---------------------------------------------------------- */

#define JOB_HEAD                                                                              \
    "id,uid,job_name,kind,namespace,model,status,reason,reason_code,etcd_version,cluster_id,"   \
    "tenant_id,group_id,user_id,is_enable_gpu_topo_aware,is_deleted,is_in_k8s,"               \
    "gmt_job_submitted,gmt_job_running,gmt_job_stopped,gmt_job_finished,gmt_created,"          \
    "gmt_modified,extended,job_max_running_time_minutes,workspace_id,priority,resource_id,"    \
    "resource_level,workspace_name,sub_status,job_restart_times"

/* 98 trailing commas, as on every line of the real job.csv */
static char *job_csv(void)
{
    g_autofree char *tail = g_strnfill(98, ',');
    const char *rows[] = {
        JOB_HEAD,
        /* a: llama, 16 GPUs on two hosts plus a CPU aimaster */
        "10288,u1,dlcjoba,PyTorchJob,ns1,llama,Succeeded,\"PyTorchJob dlcjoba is successfully "
        "completed.\",JobSucceeded,e1,c1,t1,,us1,0,0,1,2023/7/15 00:47,2023/7/15 00:48,,"
        "2023/7/15 02:48,2023/7/15 00:46,2023/7/15 02:49,,0,w1,1,r1,L0,wn1,Normal,",
        /* b: unknown, Stopped, 2 one-GPU pods on one host */
        "10290,u2,dlcjobb,PyTorchJob,ns1,unknown,Stopped,Job is stopped by user,StoppedByUser,e2,"
        "c1,t1,,us1,0,1,0,2023/7/15 01:00,2023/7/15 01:02,2023/7/15 01:32,2023/7/15 01:32,"
        "2023/7/15 01:00,2023/7/15 01:32,,20160,w1,9,r1,L0,wn1,Normal,",
        /* c: never ran: every time empty */
        "10291,u3,dlcjobc,PyTorchJob,ns2,cognitive,Failed,,,e3,c1,t2,,us2,0,0,0,,,,,,,,,w2,,r2,,"
        "wn2,,",
        /* d: CPU-only preprocess */
        "10292,u4,dlcjobd,PyTorchJob,ns2,preprocess,Succeeded,x,JobSucceeded,e4,c1,t2,,us2,0,0,0,"
        "2023/7/15 01:10,2023/7/15 01:11,,2023/7/15 01:20,2023/7/15 01:10,2023/7/15 01:20,,0,w2,"
        "1,r2,L0,wn2,Normal,",
        /* e: still Running at the dump */
        "10293,u5,dlcjobe,PyTorchJob,ns2,rl,Running,,JobRunning,e5,c1,t2,,us2,0,0,0,"
        "2023/7/15 01:10,2023/7/15 01:11,,,2023/7/15 01:10,2023/7/15 01:11,,0,w2,1,r2,L0,wn2,"
        "Normal,",
        /* the known bad row: running before submitted */
        "8169,u6,dlcjobf,PyTorchJob,ns3,GPT,Succeeded,x,JobSucceeded,e6,c2,t3,,us3,0,0,0,"
        "2023/7/15 02:00,2023/7/5 15:18,,2023/7/15 03:00,2023/7/15 02:00,2023/7/15 03:00,,0,w3,"
        "1,r3,L0,wn3,Normal,",
        /* g: 8 GPUs on a host missing from topo.csv */
        "10294,u7,dlcjobg,PyTorchJob,ns3,GPT-13b,Failed,\"PyTorchJob dlcjobg failed because 1 "
        "Master replica(s) failed.\",JobFailed,e7,c1,t3,,us3,0,0,0,2023/7/16 00:47,"
        "2023/7/16 00:48,,2023/7/16 01:48,2023/7/16 00:47,2023/7/16 01:48,,0,w3,1,r3,L0,wn3,"
        "Normal,",
        /* h: ran, but no worker rows */
        "10295,u8,dlcjobh,PyTorchJob,ns3,mnist,Failed,x,JobFailed,e8,c1,t3,,us3,0,0,0,"
        "2023/7/15 05:00,2023/7/15 05:01,,2023/7/15 05:02,2023/7/15 05:00,2023/7/15 05:02,,0,w3,"
        "1,r3,L0,wn3,Normal,",
        /* i: job times empty, the pods' times used; padded date */
        "10296,u9,dlcjobi,PyTorchJob,ns3,ResNet,Succeeded,x,JobSucceeded,e9,c1,t3,,us3,0,0,0,"
        "2023/07/15 02:59,,,,2023/7/15 02:59,,,0,w3,1,r3,L0,wn3,Normal,",
    };
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++)
        g_string_append_printf(s, "%s%s\n", rows[i], tail);
    return g_string_free(s, FALSE);
}

#define RES8 "\"{\"\"cpu\"\": \"\"96\"\", \"\"memory\"\": \"\"1600Gi\"\", \"\"nvidia.com/gpu\"\": " \
             "\"\"8\"\", \"\"ephemeral-storage\"\": \"\"4800Gi\"\", \"\"koordinator.sh/rdma\"\": \"\"1\"\"}\""
#define RES1 "\"{\"\"cpu\"\": \"\"12\"\", \"\"memory\"\": \"\"200Gi\"\", \"\"nvidia.com/gpu\"\": \"\"1\"\"}\""
#define RESCPU "\"{\"\"cpu\"\": \"\"4\"\", \"\"memory\"\": \"\"40Gi\"\", \"\"ephemeral-storage\"\": \"\"100Gi\"\"}\""
#define RESAIM "\"{\"\"cpu\"\": \"\"1\"\", \"\"memory\"\": \"\"1Gi\"\", \"\"ephemeral-storage\"\": \"\"10Gi\"\"}\""
#define RES4N "\"{\"\"cpu\"\": \"\"48\"\", \"\"nvidia.com/gpu\"\": 4}\""

static const char worker_csv[] =
    "id,job_name,worker_name,replica_type,host_ip,gmt_created,gmt_pod_running,gmt_pod_finished,RES\r\n"
    "28613,dlcjoba,dlcjoba-master-0,master,hA,2023/7/15 00:47,2023/7/15 00:48,2023/7/15 02:48," RES8 "\r\n"
    "28614,dlcjoba,dlcjoba-worker-0,worker,hB,2023/7/15 00:47,2023/7/15 00:49,2023/7/15 02:48," RES8 "\r\n"
    "28615,dlcjoba,dlcjoba-aimaster-0,aimaster,hC,2023/7/15 00:47,2023/7/15 00:48,2023/7/15 02:48," RESAIM "\r\n"
    "28616,dlcjobb,dlcjobb-master-0,master,hA,2023/7/15 01:00,2023/7/15 01:02,2023/7/15 01:32," RES1 "\r\n"
    "28617,dlcjobb,dlcjobb-worker-0,worker,hA,2023/7/15 01:00,2023/7/15 01:02,2023/7/15 01:32," RES1 "\r\n"
    "28618,dlcjobc,dlcjobc-master-0,master,,2023/7/15 01:05,,,\"{\"\"cpu\"\":\"\"0\"\",\"\"memory\"\":\"\"0\"\"}\"\r\n"
    "28619,dlcjobd,dlcjobd-master-0,master,hC,2023/7/15 01:10,2023/7/15 01:11,2023/7/15 01:20," RESCPU "\r\n"
    "28620,dlcjobe,dlcjobe-master-0,master,hB,2023/7/15 01:10,2023/7/15 01:11,," RES8 "\r\n"
    "28621,dlcjobf,dlcjobf-master-0,master,hC,2023/7/15 02:00,2023/7/15 02:00,2023/7/15 03:00," RES1 "\r\n"
    "28622,dlcjobg,dlcjobg-master-0,master,hX,2023/7/16 00:47,2023/7/16 00:48,2023/7/16 01:48," RES8 "\r\n"
    "28623,dlcjobi,dlcjobi-master-0,master,hB,2023/7/15 02:59,2023/7/15 03:00,2023/7/15 04:00," RES4N "\r\n"
    "28624,dlcjobi,dlcjobi-worker-0,worker,hB,2023/7/15 02:59,2023/7/15 03:01,2023/7/15 03:59,\r\n"
    "28625,dlcother,dlcother-master-0,master,hA,2023/7/15 02:59,2023/7/15 03:01,2023/7/15 03:59," RES1 "\r\n";

static const char topo_csv[] = "ip,DSW,PSW,ASW\nhA,G6,P10,S1\nhB,G6,P10,S2\nhC,G6,P12,S1\n";

static trace *load_sample(const trace_lingjun_options *o, GError **err)
{
    g_autofree char *job = job_csv();
    return trace_lingjun_parse(job, strlen(job), worker_csv, strlen(worker_csv), topo_csv,
                               strlen(topo_csv), "sample", o, err);
}

/* Expected, by hand.  Epoch = the earliest start: job a's gmt_job_running
 * 2023/7/15 00:48 (UTC+8) = 2023-07-14 16:48 UTC.  Days 1970-01-01 ->
 * 2023-07-14 = 19552, so epoch = 19552 * 86400 + 16 * 3600 + 48 * 60
 * = 1689353280.
 *  a: 0 .. 7200 s (00:48 -> 02:48), 8 + 8 = 16 GPUs (master counted,
 *     aimaster has none), hosts hA 8, hB 8;
 *  b: 01:02 -> 01:32 = 840 .. 2640 s, 1 + 1 = 2 GPUs on hA;
 *  i: job times empty -> pods: min running 03:00, max finished 04:00
 *     = 7920 .. 11520 s; 4 GPUs (numeric RES) + 0 (empty RES) on hB;
 *  g: 2023/7/16 00:48 -> 01:48 = 86400 .. 90000 s, 8 GPUs, host hX not in
 *     topo.csv: no recorded hosts.
 * Skipped: c never ran; d CPU-only and h without workers (cpu_only 2);
 * e Running; 8169 started before submission.  dlcother is an orphan. */
static void test_lingjun_sample(void)
{
    GError *err = NULL;
    g_autoptr(trace) t = load_sample(NULL, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL_FATAL(trace_job_count(t), 4);
    TEST_ASSERT_CLOSE(trace_epoch_unix_s(t), 1689353280.0, 0);
    const trace_job *a = trace_job_get(t, 0), *b = trace_job_get(t, 1);
    const trace_job *i = trace_job_get(t, 2), *g = trace_job_get(t, 3);
    CU_ASSERT_STRING_EQUAL(a->id, "dlcjoba");
    CU_ASSERT_STRING_EQUAL(a->model, "llama");
    TEST_ASSERT_CLOSE(a->start_s, 0, 0);
    TEST_ASSERT_CLOSE(a->end_s, 7200, 0);
    CU_ASSERT_EQUAL(a->gpus, 16);
    CU_ASSERT_EQUAL(a->max_pod_gpus, 8);
    CU_ASSERT_EQUAL_FATAL(a->n_hosts, 2);
    CU_ASSERT_STRING_EQUAL(a->hosts[0], "hA");
    CU_ASSERT_STRING_EQUAL(a->hosts[1], "hB");
    CU_ASSERT_EQUAL(a->host_gpus[0], 8);
    CU_ASSERT_EQUAL(a->host_gpus[1], 8);
    CU_ASSERT_PTR_NULL(a->inline_model);
    CU_ASSERT_STRING_EQUAL(b->id, "dlcjobb");
    TEST_ASSERT_CLOSE(b->start_s, 840, 0);
    TEST_ASSERT_CLOSE(b->end_s, 2640, 0);
    CU_ASSERT_EQUAL(b->gpus, 2);
    CU_ASSERT_EQUAL_FATAL(b->n_hosts, 1);
    CU_ASSERT_STRING_EQUAL(b->hosts[0], "hA");
    CU_ASSERT_EQUAL(b->host_gpus[0], 2);
    CU_ASSERT_STRING_EQUAL(i->id, "dlcjobi");
    TEST_ASSERT_CLOSE(i->start_s, 7920, 0);
    TEST_ASSERT_CLOSE(i->end_s, 11520, 0);
    CU_ASSERT_EQUAL(i->gpus, 4);
    CU_ASSERT_EQUAL_FATAL(i->n_hosts, 1);
    CU_ASSERT_EQUAL(i->host_gpus[0], 4);
    CU_ASSERT_STRING_EQUAL(g->id, "dlcjobg");
    TEST_ASSERT_CLOSE(g->start_s, 86400, 0);
    TEST_ASSERT_CLOSE(g->end_s, 90000, 0);
    CU_ASSERT_EQUAL(g->gpus, 8);
    CU_ASSERT_EQUAL(g->n_hosts, 0);
    const trace_stats *s = trace_get_stats(t);
    CU_ASSERT_EQUAL(s->job_rows, 9);
    CU_ASSERT_EQUAL(s->worker_rows, 13);
    CU_ASSERT_EQUAL(s->topo_hosts, 3);
    CU_ASSERT_EQUAL(s->jobs_loaded, 4);
    CU_ASSERT_EQUAL(s->skipped_never_ran, 1);
    CU_ASSERT_EQUAL(s->skipped_cpu_only, 2);
    CU_ASSERT_EQUAL(s->skipped_running, 1);
    CU_ASSERT_EQUAL(s->skipped_bad_time, 1);
    CU_ASSERT_EQUAL(s->skipped_malformed, 0);
    CU_ASSERT_EQUAL(s->worker_rows_orphan, 1);
    CU_ASSERT_EQUAL(s->pods_outside_topo, 1);
    CU_ASSERT_EQUAL(s->pods_no_host, 0);
    CU_ASSERT_EQUAL(s->jobs_unplaced, 1);
    CU_ASSERT_STRING_EQUAL(trace_source_name(t), "sample");
}

/* With outside = skip, job g goes: 3 jobs, skipped_outside_topo 1. */
static void test_lingjun_skip_outside(void)
{
    GError *err = NULL;
    trace_lingjun_options o = trace_lingjun_options_default();
    o.outside = TRACE_OUTSIDE_SKIP;
    g_autoptr(trace) t = load_sample(&o, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(trace_job_count(t), 3);
    CU_ASSERT_EQUAL(trace_get_stats(t)->skipped_outside_topo, 1);
    CU_ASSERT_EQUAL(trace_get_stats(t)->jobs_unplaced, 0);
}

/* The same files gzip-compressed (job, topo) and plain (worker) in a
 * directory give the same four jobs. */
static void write_gz(const char *path, const char *data)
{
    gzFile f = gzopen(path, "wb");
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(gzwrite(f, data, (unsigned)strlen(data)) == (int)strlen(data));
    gzclose(f);
}

static void test_lingjun_dir_gzip(void)
{
    g_autofree char *dir = g_dir_make_tmp("ccsim-lingjun-XXXXXX", NULL);
    CU_ASSERT_FATAL(dir != NULL);
    g_autofree char *job = job_csv();
    g_autofree char *jp = g_build_filename(dir, "job.csv.gz", NULL);
    g_autofree char *wp = g_build_filename(dir, "worker.csv", NULL);
    g_autofree char *tp = g_build_filename(dir, "topo.csv.gz", NULL);
    write_gz(jp, job);
    CU_ASSERT(g_file_set_contents(wp, worker_csv, -1, NULL));
    write_gz(tp, topo_csv);
    GError *err = NULL;
    g_autoptr(trace) t = trace_lingjun_load(dir, NULL, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(trace_job_count(t), 4);
    CU_ASSERT_EQUAL(trace_job_get(t, 0)->gpus, 16);
    /* a missing file is an I/O error naming it */
    g_unlink(wp);
    g_autoptr(trace) t2 = trace_lingjun_load(dir, NULL, &err);
    CU_ASSERT_PTR_NULL(t2);
    CU_ASSERT(err && strstr(err->message, "worker.csv") != NULL);
    TEST_ASSERT_ERROR(err, CCS_ERROR_IO);
    g_unlink(jp);
    g_unlink(tp);
    g_rmdir(dir);
}

/* ---- malformed input ----------------------------------------------------- */

#define MJ "id,job_name,model,status,gmt_job_submitted,gmt_job_running,gmt_job_finished,,\n"
#define MW "id,job_name,worker_name,replica_type,host_ip,gmt_created,gmt_pod_running,gmt_pod_finished,RES\n"
#define MT "ip,DSW,PSW,ASW\nh1,G6,P1,S1\n"
#define GOODJ MJ "1,dlca,llama,Succeeded,2023/7/15 00:47,2023/7/15 00:48,2023/7/15 01:48,,\n"
#define GOODW MW "1,dlca,dlca-master-0,master,h1,,2023/7/15 00:48,2023/7/15 01:48,\"{\"\"nvidia.com/gpu\"\": \"\"8\"\"}\"\n"

typedef struct bad_case {
    const char *name;
    const char *job, *worker, *topo;
    const char *prefix; /* expected start of the message: FILE:LINE: */
    const char *what;   /* a piece of the reason */
} bad_case;

/* Each row: one defect; the message starts with the file and the line the
 * defective record starts on (the header is line 1). */
static const bad_case bad_cases[] = {
    {"unterminated quote", MJ "1,dlca,\"llama,Succeeded,,,\n", GOODW, MT, "m/job.csv:2:", "unterminated"},
    {"text after quote", MJ "1,dlca,\"llama\"x,Succeeded,,,,,\n", GOODW, MT, "m/job.csv:2:", "after a closing quote"},
    {"quote inside field", MJ "1,dl\"ca,llama,Succeeded,,,,,\n", GOODW, MT, "m/job.csv:2:", "quote inside"},
    {"dashed date", MJ "1,dlca,llama,Succeeded,2023-07-15 00:47,,,,\n", GOODW, MT, "m/job.csv:2:", "gmt_job_submitted"},
    {"month 13", MJ "1,dlca,llama,Succeeded,,2023/13/1 00:00,,,\n", GOODW, MT, "m/job.csv:2:", "gmt_job_running"},
    {"Feb 30", MJ "1,dlca,llama,Succeeded,,,2023/2/30 00:00,,\n", GOODW, MT, "m/job.csv:2:", "gmt_job_finished"},
    {"minute 60", MJ "1,dlca,llama,Succeeded,,,2023/2/3 10:60,,\n", GOODW, MT, "m/job.csv:2:", "gmt_job_finished"},
    {"bad id", MJ "x1,dlca,llama,Succeeded,,,,,\n", GOODW, MT, "m/job.csv:2:", "id: expected an integer"},
    {"empty job_name", MJ "1,,llama,Succeeded,,,,,\n", GOODW, MT, "m/job.csv:2:", "job_name is empty"},
    {"shifted row", MJ "1,dlca,llama,Succeeded,,,,oops,\n", GOODW, MT, "m/job.csv:2:", "no column name"},
    {"too few fields", MJ "1,dlca,llama\n", GOODW, MT, "m/job.csv:2:", "expected 9 fields"},
    {"too many fields", MJ "1,dlca,llama,Succeeded,,,,,,\n", GOODW, MT, "m/job.csv:2:", "more than"},
    {"second row", GOODJ "2,dlcb,llama,Succeeded,2023/7/15 00:7,,,,\n", GOODW, MT, "m/job.csv:3:", "gmt_job_submitted"},
    {"missing column", "id,job_name,status,gmt_job_running,gmt_job_finished\n", GOODW, MT, "m/job.csv:1:", "\"model\""},
    {"empty job file", "", GOODW, MT, "m/job.csv:1:", "empty file"},
    {"RES not JSON", GOODJ, MW "1,dlca,w,master,h1,,,,\"{cpu\"\n", MT, "m/worker.csv:2:", "RES: expected a JSON object"},
    {"RES GPUs a word", GOODJ, MW "1,dlca,w,master,h1,,,,\"{\"\"nvidia.com/gpu\"\": \"\"eight\"\"}\"\n", MT, "m/worker.csv:2:", "nvidia.com/gpu"},
    {"RES GPUs negative", GOODJ, MW "1,dlca,w,master,h1,,,,\"{\"\"nvidia.com/gpu\"\": -1}\"\n", MT, "m/worker.csv:2:", "nvidia.com/gpu"},
    {"RES GPUs fraction", GOODJ, MW "1,dlca,w,master,h1,,,,\"{\"\"nvidia.com/gpu\"\": \"\"0.5\"\"}\"\n", MT, "m/worker.csv:2:", "nvidia.com/gpu"},
    {"worker time", GOODJ, MW "1,dlca,w,master,h1,yesterday,,,\n", MT, "m/worker.csv:2:", "gmt_created"},
    {"worker no RES column", GOODJ, "id,job_name,host_ip\n", MT, "m/worker.csv:1:", "\"RES\""},
    {"worker quote after newline", GOODJ, MW "1,dlca,w,master,h1,,,,\"{\n\n", MT, "m/worker.csv:2:", "unterminated"},
    {"topo empty PSW", GOODJ, GOODW, "ip,DSW,PSW,ASW\nh1,G6,,S1\n", "m/topo.csv:2:", "PSW is empty"},
    {"topo no ASW", GOODJ, GOODW, "ip,DSW,PSW\nh1,G6,P1\n", "m/topo.csv:1:", "\"ASW\""},
};

static void test_lingjun_malformed(void)
{
    for (size_t k = 0; k < G_N_ELEMENTS(bad_cases); k++) {
        const bad_case *c = &bad_cases[k];
        GError *err = NULL;
        trace *t = trace_lingjun_parse(c->job, strlen(c->job), c->worker, strlen(c->worker),
                                       c->topo, strlen(c->topo), "m", NULL, &err);
        CU_ASSERT_PTR_NULL(t);
        trace_free(t);
        bool ok = err && g_str_has_prefix(err->message, c->prefix) &&
                  strstr(err->message, c->what) != NULL;
        if (!ok)
            fprintf(stderr, "case \"%s\": got \"%s\", expected \"%s ...%s...\"\n", c->name,
                    err ? err->message : "(no error)", c->prefix, c->what);
        CU_ASSERT(ok);
        TEST_ASSERT_ERROR(err, CCS_ERROR_PARSE);
    }
}

/* --lenient: the two bad job rows and the bad worker row are skipped and
 * counted; the good job (8 GPUs from its remaining pod) loads. */
static void test_lingjun_lenient(void)
{
    const char *job = MJ "1,dlca,llama,Succeeded,2023/7/15 00:47,2023/7/15 00:48,2023/7/15 01:48,,\n"
                         "2,dlcb,llama,Succeeded,2023-07-15,,,,\n"
                         "3,\"dlcc,llama\n";
    const char *worker = GOODW "2,dlca,w,worker,h1,,,,\"{\"\"nvidia.com/gpu\"\": \"\"x\"\"}\"\n";
    trace_lingjun_options o = trace_lingjun_options_default();
    o.lenient = true;
    GError *err = NULL;
    g_autoptr(trace) t = trace_lingjun_parse(job, strlen(job), worker, strlen(worker), MT,
                                             strlen(MT), "m", &o, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(trace_job_count(t), 1);
    CU_ASSERT_EQUAL(trace_job_get(t, 0)->gpus, 8);
    const trace_stats *s = trace_get_stats(t);
    CU_ASSERT_EQUAL(s->job_rows, 3);
    CU_ASSERT_EQUAL(s->skipped_malformed, 2);
    CU_ASSERT_EQUAL(s->worker_rows, 2);
    CU_ASSERT_EQUAL(s->worker_rows_malformed, 1);
    /* strict: the first bad row fails */
    g_autoptr(trace) t2 = trace_lingjun_parse(job, strlen(job), worker, strlen(worker), MT,
                                              strlen(MT), "m", NULL, &err);
    CU_ASSERT_PTR_NULL(t2);
    CU_ASSERT(err && g_str_has_prefix(err->message, "m/job.csv:3:"));
    TEST_ASSERT_ERROR(err, CCS_ERROR_PARSE);
}

/* ---- timestamps and CSV ---------------------------------------------------- */

/* 2023/7/5 15:18 in UTC+8 = 2023-07-05 07:18 UTC; days 1970-01-01 ->
 * 2023-07-05 = 19543; 19543 * 86400 + 7 * 3600 + 18 * 60 = 1688541480.
 * 2024/2/29 00:00 UTC+8 = 2024-02-28 16:00 UTC = 19781 * 86400 + 57600
 * = 1709136000. */
static void test_lingjun_time(void)
{
    int64_t t = 0;
    CU_ASSERT(trace__time_parse("2023/7/5 15:18", &t));
    CU_ASSERT_EQUAL(t, 1688541480);
    CU_ASSERT(trace__time_parse("2023/07/05 15:18", &t));
    CU_ASSERT_EQUAL(t, 1688541480);
    CU_ASSERT(trace__time_parse("2023/7/5 15:18:00", &t));
    CU_ASSERT_EQUAL(t, 1688541480);
    CU_ASSERT(trace__time_parse("2024/2/29 00:00", &t));
    CU_ASSERT_EQUAL(t, 1709136000);
    CU_ASSERT_FALSE(trace__time_parse("2023/2/29 00:00", &t));
    CU_ASSERT_FALSE(trace__time_parse("2023/7/5", &t));
    CU_ASSERT_FALSE(trace__time_parse("2023/7/5 15:18 ", &t));
    CU_ASSERT_FALSE(trace__time_parse("2023/7/5 24:00", &t));
    CU_ASSERT_FALSE(trace__time_parse("", &t));
    char buf[32];
    trace__time_format(1688541480, buf);
    CU_ASSERT_STRING_EQUAL(buf, "2023/7/5 15:18");
    trace__time_format(1709136000 + 47, buf); /* seconds are dropped */
    CU_ASSERT_STRING_EQUAL(buf, "2024/2/29 00:00");
}

/* RFC 4180: "" inside quotes, a newline inside quotes (the record spans
 * lines 1-2, the next starts on line 3), CRLF, an empty last field. */
static void test_lingjun_csv(void)
{
    const char *text = "a,\"b \"\"q\"\"\nc\",\r\nx,,\"\"\n\n";
    trace__csv r;
    trace__csv_init(&r, text, strlen(text), "t.csv");
    GError *err = NULL;
    CU_ASSERT_EQUAL(trace__csv_next(&r, &err), 1);
    CU_ASSERT_EQUAL_FATAL(r.fields->len, 3);
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(r.fields, 1), "b \"q\"\nc");
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(r.fields, 2), "");
    CU_ASSERT_EQUAL(r.rec_line, 1);
    CU_ASSERT_EQUAL(trace__csv_next(&r, &err), 1);
    CU_ASSERT_EQUAL(r.rec_line, 3);
    CU_ASSERT_EQUAL_FATAL(r.fields->len, 3);
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(r.fields, 0), "x");
    CU_ASSERT_EQUAL(trace__csv_next(&r, &err), 0);
    TEST_ASSERT_NO_ERROR(err);
    trace__csv_clear(&r);
    /* writing quotes exactly the fields that need it */
    GString *s = g_string_new(NULL);
    trace__csv_append_field(s, "plain");
    g_string_append_c(s, ',');
    trace__csv_append_field(s, "{\"a\": \"1\", \"b\": \"2\"}");
    CU_ASSERT_STRING_EQUAL(s->str, "plain,\"{\"\"a\"\": \"\"1\"\", \"\"b\"\": \"\"2\"\"}\"");
    g_string_free(s, TRUE);
}

/* ---- JSON ------------------------------------------------------------------ */

/* j2's 10 GPUs over 3 hosts: 10 / 3 = 3 rem 1, so 4, 3, 3.  Sorted by
 * start: j2 (0) before j1 (5). */
static void test_lingjun_json(void)
{
    const char *text =
        "{\"jobs\": ["
        "{\"id\": \"j1\", \"gpus\": 8, \"hosts\": [\"h1\"], \"start_s\": 5, \"end_s\": 12, "
        "\"model\": \"bert-large\"},"
        "{\"id\": \"j2\", \"gpus\": 10, \"hosts\": [\"h1\", \"h2\", \"h3\"], \"start_s\": 0, "
        "\"end_s\": 12, \"model\": {\"compute_s\": 1.0, \"comm_bytes\": 1.25e9, "
        "\"comm_start_frac\": 0.5, \"opt_s\": 0.1, \"collective\": \"alltoall\"}},"
        "{\"gpus\": 2, \"start_s\": 1, \"end_s\": 2, \"hosts\": [\"a\", \"b\"], \"host_gpus\": [1, 1]}"
        "]}";
    cJSON *root = cJSON_Parse(text);
    GError *err = NULL;
    g_autoptr(trace) t =
        trace_json_from_cjson(cJSON_GetObjectItem(root, "jobs"), "s.json", &err);
    cJSON_Delete(root);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL_FATAL(trace_job_count(t), 3);
    const trace_job *j2 = trace_job_get(t, 0), *j3 = trace_job_get(t, 1), *j1 = trace_job_get(t, 2);
    CU_ASSERT_STRING_EQUAL(j2->id, "j2");
    CU_ASSERT_EQUAL_FATAL(j2->n_hosts, 3);
    CU_ASSERT_EQUAL(j2->host_gpus[0], 4);
    CU_ASSERT_EQUAL(j2->host_gpus[1], 3);
    CU_ASSERT_EQUAL(j2->host_gpus[2], 3);
    CU_ASSERT_PTR_NULL(j2->model);
    CU_ASSERT_FATAL(j2->inline_model != NULL);
    TEST_ASSERT_CLOSE(j2->inline_model->grad_bytes, 1.25e9, 0);
    TEST_ASSERT_CLOSE(j2->inline_model->fwd_frac, 0.5, 0);
    TEST_ASSERT_CLOSE(j2->inline_model->compute_s[CATALOG_GPU_H100], 1.0, 0);
    TEST_ASSERT_CLOSE(j2->inline_model->opt_s[CATALOG_GPU_A100], 0.1, 0);
    CU_ASSERT_EQUAL(j2->inline_model->collective, CATALOG_COLL_ALLTOALL);
    CU_ASSERT_STRING_EQUAL(j3->id, "j3"); /* default id: position from 1 */
    CU_ASSERT_STRING_EQUAL(j3->model, "unknown");
    CU_ASSERT_STRING_EQUAL(j1->model, "bert-large");
    TEST_ASSERT_CLOSE(j1->start_s, 5, 0);
    TEST_ASSERT_CLOSE(trace_epoch_unix_s(t), 0, 0);
}

static void test_lingjun_json_errors(void)
{
    static const char *const bad[] = {
        "[{\"gpus\": 0, \"start_s\": 0, \"end_s\": 1}]",
        "[{\"gpus\": 2.5, \"start_s\": 0, \"end_s\": 1}]",
        "[{\"gpus\": 2, \"start_s\": 3, \"end_s\": 1}]",
        "[{\"gpus\": 2, \"start_s\": 0}]",
        "[{\"gpus\": 2, \"start_s\": 0, \"end_s\": 1, \"model\": 7}]",
        "[{\"gpus\": 2, \"start_s\": 0, \"end_s\": 1, \"model\": {\"comm_bytes\": 1}}]",
        "[{\"gpus\": 2, \"start_s\": 0, \"end_s\": 1, \"model\": {\"compute_s\": 1, \"collective\": \"ring\"}}]",
        "[{\"gpus\": 2, \"start_s\": 0, \"end_s\": 1, \"hosts\": [\"a\"], \"host_gpus\": [3]}]",
        "[{\"gpus\": 1, \"start_s\": 0, \"end_s\": 1, \"hosts\": [\"a\", \"b\"]}]",
        "[{\"id\": \"x\", \"gpus\": 1, \"start_s\": 0, \"end_s\": 1}, {\"id\": \"x\", \"gpus\": 1, \"start_s\": 0, \"end_s\": 1}]",
        "{\"gpus\": 1}",
    };
    for (size_t k = 0; k < G_N_ELEMENTS(bad); k++) {
        cJSON *a = cJSON_Parse(bad[k]);
        GError *err = NULL;
        trace *t = trace_json_from_cjson(a, "b.json", &err);
        cJSON_Delete(a);
        CU_ASSERT_PTR_NULL(t);
        trace_free(t);
        CU_ASSERT(err && g_str_has_prefix(err->message, "b.json: "));
        if (!err)
            fprintf(stderr, "JSON case %zu did not fail\n", k);
        TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    }
}

/* A scenario file with "trace": {"jobs": [...]} loads; invalid JSON names
 * the file and line 2. */
static void test_lingjun_json_file(void)
{
    g_autofree char *dir = g_dir_make_tmp("ccsim-json-XXXXXX", NULL);
    g_autofree char *p = g_build_filename(dir, "s.json", NULL);
    CU_ASSERT(g_file_set_contents(
        p, "{\"trace\": {\"jobs\": [{\"gpus\": 1, \"start_s\": 0, \"end_s\": 1}]}}", -1, NULL));
    GError *err = NULL;
    g_autoptr(trace) t = trace_json_load(p, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT(t && trace_job_count(t) == 1);
    CU_ASSERT(g_file_set_contents(p, "{\"jobs\":\n [ oops ]}", -1, NULL));
    g_autoptr(trace) t2 = trace_json_load(p, &err);
    CU_ASSERT_PTR_NULL(t2);
    g_autofree char *prefix = g_strconcat(p, ":2:", NULL);
    CU_ASSERT(err && g_str_has_prefix(err->message, prefix));
    TEST_ASSERT_ERROR(err, CCS_ERROR_PARSE);
    g_unlink(p);
    g_rmdir(dir);
}

/* The bundled sample loads from the library alone: a 1-day slice
 * submitted from 2023/7/15 00:00 UTC+8 (unix 1689350400), so its epoch
 * (the first start) lies within that day, and every job has GPUs and
 * runs for >= 0 s. */
static void test_lingjun_default(void)
{
    GError *err = NULL;
    g_autoptr(trace) t = trace_load_default(&err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT(trace_job_count(t) > 50);
    CU_ASSERT(trace_epoch_unix_s(t) >= 1689350400 && trace_epoch_unix_s(t) < 1689350400 + 86400);
    CU_ASSERT_EQUAL(trace_get_stats(t)->topo_hosts, 847);
    for (size_t i = 0; i < trace_job_count(t); i++) {
        const trace_job *j = trace_job_get(t, i);
        CU_ASSERT(j->gpus > 0 && j->end_s >= j->start_s && j->start_s >= 0);
        if (i > 0)
            CU_ASSERT(j->start_s >= trace_job_get(t, i - 1)->start_s);
    }
}

/* Scenario "trace" values: jobs, synthetic (0.5 day: 5180 x 0.5 / 16 =
 * 162 job rows), a Lingjun directory relative to base_dir, NULL (the
 * sample), and shapes that must fail. */
static void test_lingjun_spec(void)
{
    GError *err = NULL;
    cJSON *j = cJSON_Parse("{\"jobs\": [{\"gpus\": 2, \"start_s\": 0, \"end_s\": 1}]}");
    g_autoptr(trace) a = trace_load_spec(j, NULL, "s.json", NULL, &err);
    cJSON_Delete(j);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT(a && trace_job_count(a) == 1);
    j = cJSON_Parse("{\"synthetic\": {\"seed\": 4, \"days\": 0.5}}");
    g_autoptr(trace) b = trace_load_spec(j, NULL, "s.json", NULL, &err);
    cJSON_Delete(j);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT(b && trace_get_stats(b)->job_rows == 162);
    g_autofree char *tmp = g_dir_make_tmp("ccsim-spec-XXXXXX", NULL);
    g_autofree char *sub = g_build_filename(tmp, "lj", NULL);
    g_mkdir(sub, 0755);
    g_autofree char *job = job_csv();
    const char *names[3] = {"job.csv", "worker.csv", "topo.csv"};
    const char *texts[3] = {job, worker_csv, topo_csv};
    for (int i = 0; i < 3; i++) {
        g_autofree char *p = g_build_filename(sub, names[i], NULL);
        CU_ASSERT(g_file_set_contents(p, texts[i], -1, NULL));
    }
    j = cJSON_Parse("{\"lingjun\": \"lj\"}");
    g_autoptr(trace) c = trace_load_spec(j, tmp, "s.json", NULL, &err);
    cJSON_Delete(j);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT(c && trace_job_count(c) == 4);
    for (int i = 0; i < 3; i++) {
        g_autofree char *p = g_build_filename(sub, names[i], NULL);
        g_unlink(p);
    }
    g_rmdir(sub);
    g_rmdir(tmp);
    g_autoptr(trace) d = trace_load_spec(NULL, NULL, "s.json", NULL, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT(d && trace_job_count(d) > 50);
    static const char *const bad[] = {"{\"lingjun\": 3}", "{\"csv\": \"x\"}",
                                      "{\"synthetic\": {\"days\": -1}}", "[1]"};
    for (size_t k = 0; k < G_N_ELEMENTS(bad); k++) {
        j = cJSON_Parse(bad[k]);
        trace *t = trace_load_spec(j, NULL, "s.json", NULL, &err);
        cJSON_Delete(j);
        CU_ASSERT_PTR_NULL(t);
        trace_free(t);
        CU_ASSERT(err && g_str_has_prefix(err->message, "s.json: "));
        TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    }
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"sample", test_lingjun_sample},
        {"skip_outside", test_lingjun_skip_outside},
        {"dir_gzip", test_lingjun_dir_gzip},
        {"malformed", test_lingjun_malformed},
        {"lenient", test_lingjun_lenient},
        {"time", test_lingjun_time},
        {"csv", test_lingjun_csv},
        {"json", test_lingjun_json},
        {"json_errors", test_lingjun_json_errors},
        {"json_file", test_lingjun_json_file},
        {"default", test_lingjun_default},
        {"spec", test_lingjun_spec},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("lingjun", cases);
}
