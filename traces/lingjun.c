/* lingjun.c - the Alibaba Lingjun 2023 trace read into job specs (docs/models.md).
 * Not here: CSV and timestamps (csv.c), statistics (summary.c).
 *
 * The Alibaba Lingjun 2023 trace: job.csv, worker.csv and topo.csv read by
 * header name into raw tables, checked row by row, and turned into job specs
 * (docs/models.md; docs/traces.md).
 *
 * Job spec: start = gmt_job_running (else the earliest gmt_pod_running),
 * end = gmt_job_finished, else gmt_job_stopped, else the latest
 * gmt_pod_finished; GPUs = sum of RES "nvidia.com/gpu" over all pods of the
 * job (master included); hosts = the GPU pods' host_ip, GPUs summed per host.
 * Skipped and counted: jobs that never ran, still Running, CPU-only, with a
 * start before submission or an end before the start (the known id 8169),
 * malformed rows under --lenient.  GPU pods on hosts missing from topo.csv
 * (or with no host) leave the job without recorded hosts (or skip it).
 */
#include "traces-private.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/ccs.h"
#include "base/input.h"
#include "base/json.h"
#include "base/limits.h"

const char *const trace__job_columns[TRACE__J_NCOLS] = {
    "id", "uid", "job_name", "kind", "namespace", "model", "status", "reason", "reason_code",
    "etcd_version", "cluster_id", "tenant_id", "group_id", "user_id",
    "is_enable_gpu_topo_aware", "is_deleted", "is_in_k8s", "gmt_job_submitted",
    "gmt_job_running", "gmt_job_stopped", "gmt_job_finished", "gmt_created", "gmt_modified",
    "extended", "job_max_running_time_minutes", "workspace_id", "priority", "resource_id",
    "resource_level", "workspace_name", "sub_status", "job_restart_times",
};
const char *const trace__worker_columns[TRACE__W_NCOLS] = {
    "id", "job_name", "worker_name", "replica_type", "host_ip", "gmt_created",
    "gmt_pod_running", "gmt_pod_finished", "RES",
};
const char *const trace__topo_columns[TRACE__T_NCOLS] = {"ip", "DSW", "PSW", "ASW"};

trace_lingjun_options trace_lingjun_options_default(void)
{
    trace_lingjun_options o = {.lenient = false, .outside = TRACE_OUTSIDE_PLACE};
    return o;
}

trace__row *trace__row_new(size_t ncols)
{
    trace__row *row = g_new0(trace__row, 1);
    row->f = g_new0(char *, ncols + 1);
    for (size_t i = 0; i < ncols; i++)
        row->f[i] = g_strdup("");
    for (size_t i = 0; i < G_N_ELEMENTS(row->t); i++)
        row->t[i] = TRACE__NO_TIME;
    return row;
}

void trace__row_free(trace__row *row)
{
    if (!row)
        return;
    g_strfreev(row->f);
    g_free(row);
}

void trace__tables_clear(trace__tables *t)
{
    if (t->jobs)
        g_ptr_array_unref(t->jobs);
    if (t->workers)
        g_ptr_array_unref(t->workers);
    if (t->topo)
        g_ptr_array_unref(t->topo);
    memset(t, 0, sizeof *t);
}

/* ---- parsing -------------------------------------------------------- */

/* How one file's header maps onto its named columns. */
typedef struct colmap {
    const char *const *names; /* our column names */
    size_t ncols;             /* how many */
    int idx[TRACE__J_NCOLS];  /* field index of each column in this file, -1 absent */
    size_t nfields;           /* header fields */
    size_t min_fields;        /* fields a row needs to reach every present column */
    bool *unnamed;            /* per header field: empty name (must stay empty) */
} colmap;

static bool header_map(trace__csv *r, colmap *m, const char *const *required, GError **error)
{
    GError *e = NULL;
    int rc = trace__csv_next(r, &e);
    if (rc < 0) {
        g_propagate_error(error, e);
        return false;
    }
    if (rc == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s:1: empty file (no header)", r->name);
        return false;
    }
    m->nfields = r->fields->len;
    m->unnamed = g_new0(bool, m->nfields);
    for (size_t c = 0; c < m->ncols; c++)
        m->idx[c] = -1;
    for (size_t i = 0; i < m->nfields; i++) {
        char *h = g_strstrip(g_strdup(g_ptr_array_index(r->fields, i)));
        /* a UTF-8 byte order mark on the first name */
        const char *name = h;
        if (i == 0 && g_str_has_prefix(name, "\xEF\xBB\xBF"))
            name += 3;
        if (*name == '\0')
            m->unnamed[i] = true;
        for (size_t c = 0; c < m->ncols; c++)
            if (m->idx[c] < 0 && strcmp(name, m->names[c]) == 0)
                m->idx[c] = (int)i;
        g_free(h);
    }
    for (const char *const *q = required; *q; q++) {
        bool found = false;
        for (size_t c = 0; c < m->ncols; c++)
            if (strcmp(m->names[c], *q) == 0 && m->idx[c] >= 0)
                found = true;
        if (!found) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                        "%s:%zu: the header has no column \"%s\"", r->name, r->rec_line, *q);
            return false;
        }
    }
    m->min_fields = 0;
    for (size_t c = 0; c < m->ncols; c++)
        if (m->idx[c] >= 0 && (size_t)m->idx[c] + 1 > m->min_fields)
            m->min_fields = (size_t)m->idx[c] + 1;
    return true;
}

/* Map the current record onto a row; false + error when malformed. */
static trace__row *record_to_row(trace__csv *r, const colmap *m, GError **error)
{
    size_t n = r->fields->len;
    if (n < m->min_fields) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                    "%s:%zu: expected %zu fields as in the header, got %zu", r->name, r->rec_line,
                    m->nfields, n);
        return NULL;
    }
    if (n > m->nfields) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                    "%s:%zu: %zu fields, more than the %zu of the header", r->name, r->rec_line,
                    n, m->nfields);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const char *v = g_ptr_array_index(r->fields, i);
        if (m->unnamed[i] && v[0] != '\0') {
            g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                        "%s:%zu: field %zu has no column name but holds \"%.40s\" (an unquoted "
                        "comma shifted the row?)",
                        r->name, r->rec_line, i + 1, v);
            return NULL;
        }
    }
    trace__row *row = trace__row_new(m->ncols);
    row->line = r->rec_line;
    for (size_t c = 0; c < m->ncols; c++) {
        if (m->idx[c] >= 0 && (size_t)m->idx[c] < n) {
            g_free(row->f[c]);
            row->f[c] = g_strdup(g_ptr_array_index(r->fields, (size_t)m->idx[c]));
        }
    }
    return row;
}

static bool check_time(trace__csv *r, trace__row *row, int col, const char *const *names,
                       int64_t *out, GError **error)
{
    const char *v = row->f[col];
    if (v[0] == '\0')
        return true;
    int64_t t;
    if (!trace__time_parse(v, &t)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                    "%s:%zu: %s: expected a time like 2023/7/5 15:18, got \"%.40s\"", r->name,
                    row->line, names[col], v);
        return false;
    }
    if (out)
        *out = t;
    return true;
}

static bool check_int(trace__csv *r, trace__row *row, int col, const char *const *names,
                      GError **error)
{
    const char *v = row->f[col];
    if (v[0] == '\0')
        return true;
    char *end = NULL;
    errno = 0;
    (void)g_ascii_strtoll(v, &end, 10);
    /* pandas may have written integers as floats ("1.0") */
    if (errno == 0 && end && *end == '.') {
        end++;
        while (*end == '0')
            end++;
    }
    if (errno != 0 || end == v || *end != '\0') {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s:%zu: %s: expected an integer, got \"%.40s\"",
                    r->name, row->line, names[col], v);
        return false;
    }
    return true;
}

static bool check_job(trace__csv *r, trace__row *row, GError **error)
{
    const char *const *n = trace__job_columns;
    if (row->f[TRACE__J_JOB_NAME][0] == '\0') {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s:%zu: job_name is empty", r->name,
                    row->line);
        return false;
    }
    if (!check_int(r, row, TRACE__J_ID, n, error))
        return false;
    return check_time(r, row, TRACE__J_GMT_JOB_SUBMITTED, n, &row->t[0], error) &&
           check_time(r, row, TRACE__J_GMT_JOB_RUNNING, n, &row->t[1], error) &&
           check_time(r, row, TRACE__J_GMT_JOB_STOPPED, n, &row->t[2], error) &&
           check_time(r, row, TRACE__J_GMT_JOB_FINISHED, n, &row->t[3], error) &&
           check_time(r, row, TRACE__J_GMT_CREATED, n, NULL, error) &&
           check_time(r, row, TRACE__J_GMT_MODIFIED, n, NULL, error);
}

/* RES: a JSON object; "nvidia.com/gpu" (a string or number, integer >= 0). */
static bool check_res(trace__csv *r, trace__row *row, GError **error)
{
    const char *v = row->f[TRACE__W_RES];
    row->gpus = 0;
    row->res_empty = v[0] == '\0';
    if (row->res_empty)
        return true;
    cJSON *j = ccs_json_parse(v, strlen(v), r->name, NULL);
    if (!j || !cJSON_IsObject(j)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                    "%s:%zu: RES: expected a JSON object, got \"%.60s\"", r->name, row->line, v);
        cJSON_Delete(j);
        return false;
    }
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(j, "nvidia.com/gpu");
    bool ok = true;
    if (g) {
        double x = -1;
        if (cJSON_IsNumber(g)) {
            x = g->valuedouble;
        } else if (cJSON_IsString(g)) {
            char *end = NULL;
            x = g_ascii_strtod(g->valuestring, &end);
            if (end == g->valuestring || *end != '\0')
                x = -1;
        }
        if (!(x >= 0 && x <= 1e6 && x == (double)(int)x)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                        "%s:%zu: RES: nvidia.com/gpu: expected a whole number of GPUs, got %.40s",
                        r->name, row->line,
                        cJSON_IsString(g) ? g->valuestring : "a non-number");
            ok = false;
        } else {
            row->gpus = (int)x;
        }
    }
    cJSON_Delete(j);
    return ok;
}

static bool check_worker(trace__csv *r, trace__row *row, GError **error)
{
    const char *const *n = trace__worker_columns;
    if (row->f[TRACE__W_JOB_NAME][0] == '\0') {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s:%zu: job_name is empty", r->name,
                    row->line);
        return false;
    }
    return check_int(r, row, TRACE__W_ID, n, error) &&
           check_time(r, row, TRACE__W_GMT_CREATED, n, &row->t[0], error) &&
           check_time(r, row, TRACE__W_GMT_POD_RUNNING, n, &row->t[1], error) &&
           check_time(r, row, TRACE__W_GMT_POD_FINISHED, n, &row->t[2], error) &&
           check_res(r, row, error);
}

static bool check_topo(trace__csv *r, trace__row *row, GError **error)
{
    for (int c = 0; c < TRACE__T_NCOLS; c++) {
        if (c == TRACE__T_DSW)
            continue;
        if (row->f[c][0] == '\0') {
            g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s:%zu: %s is empty", r->name,
                        row->line, trace__topo_columns[c]);
            return false;
        }
    }
    return true;
}

typedef bool (*row_check)(trace__csv *r, trace__row *row, GError **error);

static bool parse_file(const char *buf, size_t len, const char *name, const char *const *names,
                       size_t ncols, const char *const *required, row_check check,
                       GPtrArray *out, size_t *malformed, bool lenient, GError **error)
{
    trace__csv r;
    trace__csv_init(&r, buf, len, name);
    colmap m = {.names = names, .ncols = ncols};
    bool ok = header_map(&r, &m, required, error);
    while (ok) {
        GError *e = NULL;
        int rc = trace__csv_next(&r, &e);
        if (rc == 0)
            break;
        trace__row *row = NULL;
        if (rc > 0) {
            row = record_to_row(&r, &m, &e);
            if (row && !check(&r, row, &e)) {
                trace__row_free(row);
                row = NULL;
            }
        }
        if (row) {
            g_ptr_array_add(out, row);
            continue;
        }
        if (lenient) {
            g_debug("skipped: %s", e->message);
            g_error_free(e);
            (*malformed)++;
            continue;
        }
        g_propagate_error(error, e);
        ok = false;
    }
    g_free(m.unnamed);
    trace__csv_clear(&r);
    return ok;
}

bool trace__tables_parse(trace__tables *t, const char *job_buf, size_t job_len,
                         const char *job_name, const char *worker_buf, size_t worker_len,
                         const char *worker_name, const char *topo_buf, size_t topo_len,
                         const char *topo_name, bool lenient, GError **error)
{
    static const char *const job_req[] = {"job_name", "model", "status", "gmt_job_running",
                                          "gmt_job_finished", NULL};
    static const char *const worker_req[] = {"job_name", "host_ip", "RES", NULL};
    static const char *const topo_req[] = {"ip", "PSW", "ASW", NULL};
    memset(t, 0, sizeof *t);
    t->jobs = g_ptr_array_new_with_free_func((GDestroyNotify)trace__row_free);
    t->workers = g_ptr_array_new_with_free_func((GDestroyNotify)trace__row_free);
    t->topo = g_ptr_array_new_with_free_func((GDestroyNotify)trace__row_free);
    return parse_file(job_buf, job_len, job_name, trace__job_columns, TRACE__J_NCOLS, job_req,
                      check_job, t->jobs, &t->job_malformed, lenient, error) &&
           parse_file(worker_buf, worker_len, worker_name, trace__worker_columns,
                      TRACE__W_NCOLS, worker_req, check_worker, t->workers,
                      &t->worker_malformed, lenient, error) &&
           parse_file(topo_buf, topo_len, topo_name, trace__topo_columns, TRACE__T_NCOLS,
                      topo_req, check_topo, t->topo, &t->topo_malformed, lenient, error);
}

bool trace__tables_load(trace__tables *t, const char *dir, bool lenient, GError **error)
{
    const char *bases[3] = {"job.csv", "worker.csv", "topo.csv"};
    char *paths[3] = {NULL, NULL, NULL};
    GBytes *data[3] = {NULL, NULL, NULL};
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        paths[i] = trace__find_file(dir, bases[i], error);
        ok = paths[i] && (data[i] = ccs_input_read(paths[i], true, error)) != NULL;
    }
    if (ok) {
        size_t n[3];
        const char *b[3];
        for (int i = 0; i < 3; i++)
            b[i] = g_bytes_get_data(data[i], &n[i]);
        ok = trace__tables_parse(t, b[0], n[0], paths[0], b[1], n[1], paths[1], b[2], n[2],
                                 paths[2], lenient, error);
    } else {
        memset(t, 0, sizeof *t);
    }
    for (int i = 0; i < 3; i++) {
        g_free(paths[i]);
        if (data[i])
            g_bytes_unref(data[i]);
    }
    return ok;
}

/* ---- job specs ------------------------------------------------------ */

static void host_add(GPtrArray *hosts, GArray *gpus, GHashTable *index, const char *ip, int g)
{
    gpointer pos;
    if (g_hash_table_lookup_extended(index, ip, NULL, &pos)) {
        g_array_index(gpus, int, GPOINTER_TO_UINT(pos)) += g;
        return;
    }
    g_hash_table_insert(index, (gpointer)ip, GUINT_TO_POINTER(hosts->len));
    g_ptr_array_add(hosts, g_strdup(ip));
    g_array_append_val(gpus, g);
}

/* job_name -> its first row into names; a later row with the same name is
 * an error (strict: which copy is the job?) or, lenient, skipped and
 * counted (added to dups). */
static bool index_names(const trace__tables *t, const char *name, bool lenient,
                        GHashTable *names, GHashTable *dups, GError **error)
{
    for (guint i = 0; i < t->jobs->len; i++) {
        trace__row *r = g_ptr_array_index(t->jobs, i);
        trace__row *first = g_hash_table_lookup(names, r->f[TRACE__J_JOB_NAME]);
        if (!first) {
            g_hash_table_insert(names, r->f[TRACE__J_JOB_NAME], r);
            continue;
        }
        if (!lenient) {
            g_autofree char *file = g_build_filename(name, "job.csv", NULL);
            g_autofree char *shown = ccs_escape(r->f[TRACE__J_JOB_NAME], -1, 80);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s:%zu: job_name \"%s\" repeats line %zu (one row per job; --lenient "
                        "skips the later rows)",
                        file, r->line, shown, first->line);
            return false;
        }
        g_hash_table_add(dups, r);
    }
    return true;
}

trace *trace__from_tables(const trace__tables *t, const char *name,
                          const trace_lingjun_options *opts, GError **error)
{
    trace_lingjun_options o = opts ? *opts : trace_lingjun_options_default();
    g_autoptr(GHashTable) topo = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < t->topo->len; i++) {
        trace__row *r = g_ptr_array_index(t->topo, i);
        g_hash_table_add(topo, r->f[TRACE__T_IP]);
    }
    /* job_name -> GPtrArray of its worker rows (file order) */
    g_autoptr(GHashTable) pods =
        g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_ptr_array_unref);
    g_autoptr(GHashTable) names = g_hash_table_new(g_str_hash, g_str_equal);
    g_autoptr(GHashTable) dups = g_hash_table_new(NULL, NULL);
    if (!index_names(t, name, o.lenient, names, dups, error))
        return NULL;
    trace *tr = trace__new(name);
    trace_stats *st = trace__stats(tr);
    st->job_rows = t->jobs->len + t->job_malformed;
    st->worker_rows = t->workers->len + t->worker_malformed;
    st->topo_hosts = t->topo->len;
    st->skipped_malformed = t->job_malformed;
    st->skipped_duplicate = g_hash_table_size(dups);
    st->worker_rows_malformed = t->worker_malformed;
    st->topo_malformed = t->topo_malformed;
    for (guint i = 0; i < t->workers->len; i++) {
        trace__row *r = g_ptr_array_index(t->workers, i);
        const char *jn = r->f[TRACE__W_JOB_NAME];
        if (!g_hash_table_contains(names, jn)) {
            st->worker_rows_orphan++;
            continue;
        }
        GPtrArray *a = g_hash_table_lookup(pods, jn);
        if (!a) {
            a = g_ptr_array_new();
            g_hash_table_insert(pods, (gpointer)jn, a);
        }
        g_ptr_array_add(a, r);
    }
    double min_start = INFINITY;
    for (guint i = 0; i < t->jobs->len; i++) {
        trace__row *r = g_ptr_array_index(t->jobs, i);
        if (g_hash_table_contains(dups, r))
            continue;
        GPtrArray *jp = g_hash_table_lookup(pods, r->f[TRACE__J_JOB_NAME]);
        int64_t start = r->t[1], end = r->t[3] != TRACE__NO_TIME ? r->t[3] : r->t[2];
        int64_t pod_start = TRACE__NO_TIME, pod_end = TRACE__NO_TIME;
        int gpus = 0, max_pod = 0;
        size_t n_pods = 0;
        for (guint k = 0; jp && k < jp->len; k++) {
            trace__row *w = g_ptr_array_index(jp, k);
            if (w->t[1] != TRACE__NO_TIME && (pod_start == TRACE__NO_TIME || w->t[1] < pod_start))
                pod_start = w->t[1];
            if (w->t[2] != TRACE__NO_TIME && (pod_end == TRACE__NO_TIME || w->t[2] > pod_end))
                pod_end = w->t[2];
            gpus += w->gpus;
            if (w->gpus > 0)
                n_pods++;
            max_pod = MAX(max_pod, w->gpus);
        }
        if (start == TRACE__NO_TIME)
            start = pod_start;
        if (start == TRACE__NO_TIME) {
            st->skipped_never_ran++;
            continue;
        }
        if (strcmp(r->f[TRACE__J_STATUS], "Running") == 0) {
            st->skipped_running++;
            continue;
        }
        if (end == TRACE__NO_TIME)
            end = pod_end;
        if (end == TRACE__NO_TIME) {
            st->skipped_running++;
            continue;
        }
        if ((r->t[0] != TRACE__NO_TIME && start < r->t[0]) || end < start) {
            if (st->skipped_bad_time++ == 0)
                st->first_bad_time_line = r->line;
            continue;
        }
        if (gpus <= 0) {
            st->skipped_cpu_only++;
            continue;
        }
        g_autoptr(GPtrArray) hosts = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GArray) hg = g_array_new(FALSE, FALSE, sizeof(int));
        g_autoptr(GHashTable) hidx = g_hash_table_new(g_str_hash, g_str_equal);
        size_t outside = 0, nohost = 0;
        for (guint k = 0; k < jp->len; k++) {
            trace__row *w = g_ptr_array_index(jp, k);
            if (w->gpus <= 0)
                continue;
            const char *ip = w->f[TRACE__W_HOST_IP];
            if (ip[0] == '\0')
                nohost++;
            else if (!g_hash_table_contains(topo, ip))
                outside++;
            else
                host_add(hosts, hg, hidx, ip, w->gpus);
        }
        if (outside + nohost > 0 && o.outside == TRACE_OUTSIDE_SKIP) {
            st->skipped_outside_topo++;
            continue;
        }
        st->pods_outside_topo += outside;
        st->pods_no_host += nohost;
        trace_job *j = g_new0(trace_job, 1);
        j->id = g_strdup(r->f[TRACE__J_JOB_NAME]);
        j->start_s = (double)start;
        j->end_s = (double)end;
        j->gpus = gpus;
        j->max_pod_gpus = max_pod;
        j->n_pods = n_pods;
        j->model = g_strdup(r->f[TRACE__J_MODEL][0] ? r->f[TRACE__J_MODEL] : "unknown");
        if (outside + nohost > 0) {
            st->jobs_unplaced++;
        } else {
            j->n_hosts = hosts->len;
            g_ptr_array_add(hosts, NULL);
            j->hosts = (char **)g_ptr_array_free(g_steal_pointer(&hosts), FALSE);
            j->host_gpus = (int *)(void *)g_array_free(g_steal_pointer(&hg), FALSE);
        }
        min_start = MIN(min_start, j->start_s);
        trace__add_job(tr, j);
        st->jobs_loaded++;
    }
    if (!isfinite(min_start))
        min_start = 0;
    trace__finish(tr, min_start, min_start);
    return tr;
}

trace *trace_lingjun_parse(const char *job_buf, size_t job_len, const char *worker_buf,
                           size_t worker_len, const char *topo_buf, size_t topo_len,
                           const char *name, const trace_lingjun_options *opts, GError **error)
{
    g_return_val_if_fail(name != NULL, NULL);
    trace_lingjun_options o = opts ? *opts : trace_lingjun_options_default();
    g_autofree char *jn = g_build_filename(name, "job.csv", NULL);
    g_autofree char *wn = g_build_filename(name, "worker.csv", NULL);
    g_autofree char *tn = g_build_filename(name, "topo.csv", NULL);
    trace__tables t;
    if (!trace__tables_parse(&t, job_buf ? job_buf : "", job_buf ? job_len : 0, jn,
                             worker_buf ? worker_buf : "", worker_buf ? worker_len : 0, wn,
                             topo_buf ? topo_buf : "", topo_buf ? topo_len : 0, tn, o.lenient,
                             error)) {
        trace__tables_clear(&t);
        return NULL;
    }
    trace *tr = trace__from_tables(&t, name, &o, error);
    trace__tables_clear(&t);
    return tr;
}

trace *trace_lingjun_load(const char *dir, const trace_lingjun_options *opts, GError **error)
{
    g_return_val_if_fail(dir != NULL, NULL);
    trace_lingjun_options o = opts ? *opts : trace_lingjun_options_default();
    trace__tables t;
    if (!trace__tables_load(&t, dir, o.lenient, error)) {
        trace__tables_clear(&t);
        return NULL;
    }
    trace *tr = trace__from_tables(&t, dir, &o, error);
    trace__tables_clear(&t);
    return tr;
}

/* ---- writing -------------------------------------------------------- */

static void append_rows(GString *s, const GPtrArray *rows, size_t ncols, size_t trailing)
{
    for (guint i = 0; i < rows->len; i++) {
        trace__row *r = g_ptr_array_index(rows, i);
        for (size_t c = 0; c < ncols; c++) {
            if (c)
                g_string_append_c(s, ',');
            trace__csv_append_field(s, r->f[c]);
        }
        for (size_t k = 0; k < trailing; k++)
            g_string_append_c(s, ',');
        g_string_append_c(s, '\n');
    }
}

static void append_header(GString *s, const char *const *names, size_t ncols, size_t trailing)
{
    for (size_t c = 0; c < ncols; c++) {
        if (c)
            g_string_append_c(s, ',');
        g_string_append(s, names[c]);
    }
    for (size_t k = 0; k < trailing; k++)
        g_string_append_c(s, ',');
    g_string_append_c(s, '\n');
}

GString *trace__job_csv(const trace__tables *t)
{
    GString *s = g_string_sized_new(t->jobs->len * 1024 + 1024);
    append_header(s, trace__job_columns, TRACE__J_NCOLS, TRACE__JOB_EMPTY_COLUMNS);
    append_rows(s, t->jobs, TRACE__J_NCOLS, TRACE__JOB_EMPTY_COLUMNS);
    return s;
}

GString *trace__worker_csv(const trace__tables *t)
{
    GString *s = g_string_sized_new(t->workers->len * 300 + 256);
    append_header(s, trace__worker_columns, TRACE__W_NCOLS, 0);
    append_rows(s, t->workers, TRACE__W_NCOLS, 0);
    return s;
}

GString *trace__topo_csv(const trace__tables *t)
{
    GString *s = g_string_sized_new(t->topo->len * 90 + 64);
    append_header(s, trace__topo_columns, TRACE__T_NCOLS, 0);
    append_rows(s, t->topo, TRACE__T_NCOLS, 0);
    return s;
}
