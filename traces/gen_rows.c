/* gen_rows.c - the synthetic trace's job.csv and worker.csv rows, hashes and
 * atomic file writing.  Not here: the draws (gen.c, gen_place.c).
 *
 * The synthetic trace's job.csv and worker.csv rows in the real schema
 * (docs/traces.md), hashes, and atomic (optionally gzip)
 * file writing.
 */
#include "gen-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "base/ccs.h"
#include "base/tempfile.h"

char *gen__hash_hex(const char *kind, guint32 seed, guint64 n)
{
    g_autofree char *s = g_strdup_printf("%s:%u:%" G_GUINT64_FORMAT, kind, seed, n);
    return g_compute_checksum_for_string(G_CHECKSUM_SHA256, s, -1);
}

static const char *outside_host(gen *G)
{
    return g_ptr_array_index(G->outside_hosts,
                             (guint)g_rand_int_range(G->r, 0, (gint32)G->outside_hosts->len));
}

/* ---- rows ------------------------------------------------------------- */

void gen__set(trace__row *r, int c, char *v)
{
    g_free(r->f[c]);
    r->f[c] = v;
}

static char *fmt_time(int64_t t)
{
    char buf[32];
    trace__time_format(t, buf);
    return g_strdup(buf);
}

static char *res_json(gen *G, const gjob *j, bool multi)
{
    int g = j->per_pod;
    int cpu = 12 * g;
    const char *mem = NULL;
    g_autofree char *memv = g_strdup_printf("%dGi", 200 * g);
    if (g == 8) {
        double u = g_rand_double(G->r);
        if (u < 0.1) {
            cpu = 48;
        } else if (u < 0.2) {
            cpu = 90;
            mem = "1Ti";
        }
    }
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "{\"cpu\": \"%d\", \"memory\": \"%s\", \"nvidia.com/gpu\": \"%d\", "
                              "\"ephemeral-storage\": \"%dGi\"",
                           cpu, mem ? mem : memv, g, 600 * g);
    if (multi)
        g_string_append(s, ", \"koordinator.sh/rdma\": \"1\"");
    g_string_append_c(s, '}');
    return g_string_free(s, FALSE);
}

void gen__make_rows(gen *G, trace__tables *t)
{
    size_t n = G->jobs->len;
    /* ids by submit time: 10288 + rank, plus a gap with p .06 */
    g_autofree int *order = g_new(int, n);
    for (size_t i = 0; i < n; i++)
        order[i] = (int)i;
    g_autofree int64_t *sub = g_new(int64_t, n);
    for (size_t i = 0; i < n; i++)
        sub[i] = J(G, i)->submit;
    /* stable sort by submit */
    for (size_t i = 1; i < n; i++) {
        int x = order[i];
        size_t k = i;
        while (k > 0 && sub[order[k - 1]] > sub[x]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = x;
    }
    long id = 10288, wid = 28613;
    static const char *const status_names[] = {"Succeeded", "Stopped", "Failed", "Running"};
    for (size_t k = 0; k < n; k++) {
        gjob *j = J(G, (size_t)order[k]);
        trace__row *r = trace__row_new(TRACE__J_NCOLS);
        const char *st = status_names[j->status];
        gen__set(r, TRACE__J_ID, g_strdup_printf("%ld", id));
        id += 1 + (g_rand_double(G->r) < 0.06 ? 1 : 0);
        gen__set(r, TRACE__J_UID, gen__hash_hex("uid", G->o.seed, (guint64)k));
        gen__set(r, TRACE__J_JOB_NAME, g_strdup(j->name));
        gen__set(r, TRACE__J_KIND, g_strdup("PyTorchJob"));
        gen__set(r, TRACE__J_NAMESPACE, gen__hash_hex("namespace", 0, (guint64)j->workspace));
        gen__set(r, TRACE__J_MODEL, g_strdup(gen__model_name(j->model)));
        gen__set(r, TRACE__J_STATUS, g_strdup(st));
        if (j->status == ST_SUCCEEDED) {
            gen__set(r, TRACE__J_REASON, g_strdup_printf("PyTorchJob %s is successfully completed.", j->name));
            gen__set(r, TRACE__J_REASON_CODE, g_strdup("JobSucceeded"));
        } else if (j->status == ST_FAILED) {
            gen__set(r, TRACE__J_REASON,
                g_strdup_printf("PyTorchJob %s failed because 1 %s replica(s) failed.", j->name,
                                g_rand_double(G->r) < 0.5 ? "Master" : "Worker"));
            gen__set(r, TRACE__J_REASON_CODE, g_strdup("JobFailed"));
        } else if (j->status == ST_STOPPED) {
            gen__set(r, TRACE__J_REASON, g_strdup("Job is stopped by user"));
            gen__set(r, TRACE__J_REASON_CODE, g_strdup("StoppedByUser"));
        } else {
            gen__set(r, TRACE__J_REASON, g_strdup_printf("PyTorchJob %s is running.", j->name));
            gen__set(r, TRACE__J_REASON_CODE, g_strdup("JobRunning"));
        }
        gen__set(r, TRACE__J_ETCD_VERSION, gen__hash_hex("etcd", G->o.seed, (guint64)k));
        gen__set(r, TRACE__J_CLUSTER_ID, gen__hash_hex("cluster", 0, (guint64)j->cluster));
        gen__set(r, TRACE__J_TENANT_ID, gen__hash_hex("tenant", 0, (guint64)(j->user % 60)));
        gen__set(r, TRACE__J_USER_ID, gen__hash_hex("user", 0, (guint64)j->user));
        gen__set(r, TRACE__J_IS_ENABLE_GPU_TOPO_AWARE, g_strdup("0"));
        gen__set(r, TRACE__J_IS_DELETED, g_strdup(g_rand_double(G->r) < 0.17 ? "1" : "0"));
        gen__set(r, TRACE__J_IS_IN_K8S, g_strdup(g_rand_double(G->r) < 0.26 ? "1" : "0"));
        double u = g_rand_double(G->r);
        gen__set(r, TRACE__J_JOB_MAX_RUNNING_TIME_MINUTES,
            g_strdup_printf("%d", u < .70 ? 0 : u < .85 ? 20160 : u < .93 ? 14400 : u < .97 ? 11520
                                                                      : 1440 * g_rand_int_range(G->r, 1, 8)));
        gen__set(r, TRACE__J_WORKSPACE_ID, gen__hash_hex("workspace", 0, (guint64)j->workspace));
        gen__set(r, TRACE__J_RESOURCE_ID, gen__hash_hex("resource", 0, (guint64)j->workspace));
        gen__set(r, TRACE__J_WORKSPACE_NAME, gen__hash_hex("workspace_name", 0, (guint64)j->workspace));
        if (j->ran) {
            u = g_rand_double(G->r);
            gen__set(r, TRACE__J_PRIORITY,
                g_strdup_printf("%d", u < .80 ? 1 : u < .95 ? 9 : g_rand_int_range(G->r, 2, 9)));
            gen__set(r, TRACE__J_RESOURCE_LEVEL, g_strdup("L0"));
            gen__set(r, TRACE__J_SUB_STATUS, g_strdup("Normal"));
            gen__set(r, TRACE__J_GMT_JOB_SUBMITTED, fmt_time(j->submit));
            gen__set(r, TRACE__J_GMT_JOB_RUNNING, fmt_time(j->running));
            gen__set(r, TRACE__J_GMT_CREATED, fmt_time(j->created));
            gen__set(r, TRACE__J_GMT_MODIFIED, fmt_time(j->modified));
            if (j->status != ST_RUNNING) {
                gen__set(r, TRACE__J_GMT_JOB_FINISHED, fmt_time(j->finished));
                if (j->status == ST_STOPPED)
                    gen__set(r, TRACE__J_GMT_JOB_STOPPED, fmt_time(j->finished));
            }
        }
        r->line = t->jobs->len + 2;
        g_ptr_array_add(t->jobs, r);
        if (j->no_workers)
            continue;
        /* worker rows: master-0, worker-0..k-1, then aimaster-0 */
        int pods = j->gpu ? j->pods : j->cpu_pods;
        for (int p = 0; p < pods + (j->aimaster ? 1 : 0); p++) {
            trace__row *w = trace__row_new(TRACE__W_NCOLS);
            bool aim = p == pods;
            const char *type = aim ? "aimaster" : p == 0 ? "master" : "worker";
            int index = aim || p == 0 ? 0 : p - 1;
            gen__set(w, TRACE__W_ID, g_strdup_printf("%ld", wid++));
            gen__set(w, TRACE__W_JOB_NAME, g_strdup(j->name));
            gen__set(w, TRACE__W_WORKER_NAME, g_strdup_printf("%s-%s-%d", j->name, type, index));
            gen__set(w, TRACE__W_REPLICA_TYPE, g_strdup(type));
            const char *host = NULL;
            if (p < j->empty_hosts)
                host = "";
            else if (j->outside)
                host = outside_host(G);
            else if (j->gpu && !aim && j->hosts)
                host = j->hosts[p];
            else
                host = ((trace__row *)g_ptr_array_index(
                            G->topo_rows, (guint)g_rand_int_range(G->r, 0, (gint32)G->topo_rows->len)))
                           ->f[TRACE__T_IP];
            gen__set(w, TRACE__W_HOST_IP, g_strdup(host));
            gen__set(w, TRACE__W_GMT_CREATED, fmt_time(j->created + 60 * j->pod_created_delay));
            if (j->ran)
                gen__set(w, TRACE__W_GMT_POD_RUNNING, fmt_time(j->running + 60 * j->pod_running_delay));
            if (j->status != ST_RUNNING || !j->ran)
                gen__set(w, TRACE__W_GMT_POD_FINISHED, fmt_time(j->finished));
            if (aim)
                gen__set(w, TRACE__W_RES,
                    g_strdup("{\"cpu\": \"1\", \"memory\": \"1Gi\", \"ephemeral-storage\": \"10Gi\"}"));
            else if (j->gpu)
                gen__set(w, TRACE__W_RES, res_json(G, j, j->pods > 1));
            else
                gen__set(w, TRACE__W_RES,
                    g_strdup("{\"cpu\": \"4\", \"memory\": \"40Gi\", \"ephemeral-storage\": \"100Gi\"}"));
            w->line = t->workers->len + 2;
            g_ptr_array_add(t->workers, w);
        }
    }
}

bool trace__write_file(const char *path, const char *data, size_t len, bool gz, GError **error)
{
    if (!gz)
        return ccs_write_atomic(path, data, len, error);
    g_autofree char *tmp = ccs_temp_path(path); /* names this process (base/tempfile.h) */
    errno = 0;
    gzFile f = gzopen(tmp, "wb9");
    /* no timestamp or name in the header: same input, same bytes */
    bool ok = f != NULL;
    for (size_t off = 0; ok && off < len;) {
        unsigned chunk = (unsigned)MIN(len - off, (size_t)1 << 30);
        ok = gzwrite(f, data + off, chunk) == (int)chunk;
        off += chunk;
    }
    if (f && gzclose(f) != Z_OK)
        ok = false;
    if (!ok || rename(tmp, path) != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot write: %s", path,
                    g_strerror(errno ? errno : EIO));
        g_unlink(tmp);
        return false;
    }
    return true;
}

/* Remove the files trace_gen_write wrote into dir (and dir when it made
 * it), after a failure. */
static void gen_write_undo(const char *dir, bool created, const char *const *written, int n)
{
    for (int i = 0; i < n; i++) {
        g_autofree char *path = g_build_filename(dir, written[i], NULL);
        g_unlink(path);
    }
    if (created)
        g_rmdir(dir);
}

bool trace_gen_write(const char *dir, const trace_gen_options *opts, GError **error)
{
    g_return_val_if_fail(dir != NULL, false);
    trace_gen_options o = opts ? *opts : trace_gen_options_default();
    /* generate first: bad options must leave no folder behind */
    trace__tables t;
    if (!trace__gen_tables(&t, &o, error)) {
        trace__tables_clear(&t);
        return false;
    }
    bool created = !g_file_test(dir, G_FILE_TEST_IS_DIR);
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot create the directory", dir);
        trace__tables_clear(&t);
        return false;
    }
    GString *(*writers[3])(const trace__tables *) = {trace__job_csv, trace__worker_csv,
                                                      trace__topo_csv};
    const char *names[3] = {"job.csv", "worker.csv", "topo.csv"};
    const char *gz_names[3] = {"job.csv.gz", "worker.csv.gz", "topo.csv.gz"};
    const char *const *mine = o.gzip ? gz_names : names, *const *other = o.gzip ? names : gz_names;
    int written = 0;
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        GString *s = writers[i](&t);
        g_autofree char *path = g_build_filename(dir, mine[i], NULL);
        ok = trace__write_file(path, s->str, s->len, o.gzip, error);
        written += ok;
        g_string_free(s, TRUE);
    }
    trace__tables_clear(&t);
    if (!ok) {
        gen_write_undo(dir, created, mine, written);
        return false;
    }
    /* a reused folder keeps no table of an earlier trace in the other
     * form (a reader prefers neither, so both would be ambiguous) */
    for (int i = 0; i < 3; i++) {
        g_autofree char *path = g_build_filename(dir, other[i], NULL);
        g_unlink(path);
    }
    return true;
}

trace *trace_gen_load(const trace_gen_options *opts, const trace_lingjun_options *lopts,
                      GError **error)
{
    trace_gen_options o = opts ? *opts : trace_gen_options_default();
    trace__tables t;
    if (!trace__gen_tables(&t, &o, error)) {
        trace__tables_clear(&t);
        return NULL;
    }
    g_autofree char *name =
        g_strdup_printf("synthetic:seed=%u,days=%g,scale=%g", o.seed, o.days, o.scale);
    /* through the CSV text, so the loader sees exactly what a file holds */
    GString *j = trace__job_csv(&t), *w = trace__worker_csv(&t), *p = trace__topo_csv(&t);
    trace__tables_clear(&t);
    trace_lingjun_options lo = lopts ? *lopts : trace_lingjun_options_default();
    trace *tr = trace_lingjun_parse(j->str, j->len, w->str, w->len, p->str, p->len, name, &lo,
                                    error);
    g_string_free(j, TRUE);
    g_string_free(w, TRUE);
    g_string_free(p, TRUE);
    return tr;
}
