/* trace.c - the trace object, JSON job lists (docs/usage.md), the bundled sample.
 * Not here: the Lingjun CSV loader (lingjun.c).
 */
#include "trace.h"

#include <string.h>

#include "base/ccs.h"
#include "base/input.h"
#include "base/json.h"
#include "base/limits.h"
#include "traces-private.h"
#include "workload.h"

struct trace {
    GPtrArray *jobs;     /* trace_job*, owned */
    double epoch_unix_s; /* unix seconds of t = 0 */
    trace_stats stats;
    char *source;
};

void trace__job_free(trace_job *j)
{
    if (!j)
        return;
    g_free(j->id);
    g_strfreev(j->hosts);
    g_free(j->host_gpus);
    g_free(j->model);
    catalog_model_free(j->inline_model);
    structure_free(j->structure);
    cJSON_Delete(j->structure_desc);
    g_free(j);
}

trace *trace__new(const char *source)
{
    trace *t = g_new0(trace, 1);
    t->jobs = g_ptr_array_new_with_free_func((GDestroyNotify)trace__job_free);
    t->source = g_strdup(source ? source : "");
    return t;
}

void trace__add_job(trace *t, trace_job *job) { g_ptr_array_add(t->jobs, job); }

trace_stats *trace__stats(trace *t) { return &t->stats; }

static gint cmp_start(gconstpointer a, gconstpointer b)
{
    const trace_job *x = *(trace_job *const *)a, *y = *(trace_job *const *)b;
    return (x->start_s > y->start_s) - (x->start_s < y->start_s);
}

void trace__finish(trace *t, double epoch_unix_s, double shift_s)
{
    for (guint i = 0; i < t->jobs->len; i++) {
        trace_job *j = g_ptr_array_index(t->jobs, i);
        j->start_s -= shift_s;
        j->end_s -= shift_s;
    }
    /* g_ptr_array_sort is a stable merge sort in GLib >= 2.32 (g_qsort_with_data). */
    g_ptr_array_sort(t->jobs, cmp_start);
    t->epoch_unix_s = epoch_unix_s;
}

size_t trace_job_count(const trace *t)
{
    g_return_val_if_fail(t != NULL, 0);
    return t->jobs->len;
}

const trace_job *trace_job_get(const trace *t, size_t i)
{
    g_return_val_if_fail(t != NULL && i < t->jobs->len, NULL);
    return g_ptr_array_index(t->jobs, i);
}

const trace_stats *trace_get_stats(const trace *t)
{
    g_return_val_if_fail(t != NULL, NULL);
    return &t->stats;
}

double trace_epoch_unix_s(const trace *t)
{
    g_return_val_if_fail(t != NULL, 0);
    return t->epoch_unix_s;
}

const char *trace_source_name(const trace *t)
{
    g_return_val_if_fail(t != NULL, NULL);
    return t->source;
}

void trace_free(trace *t)
{
    if (!t)
        return;
    g_ptr_array_unref(t->jobs);
    g_free(t->source);
    g_free(t);
}

/* ---- JSON ----------------------------------------------------------- */

static bool json_number(const cJSON *obj, const char *key, bool required, double *out,
                        const char *name, size_t i, GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (required)
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: jobs[%zu]: missing \"%s\"",
                        name, i, key);
        return !required;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: jobs[%zu]: %s: expected a number",
                    name, i, key);
        return false;
    }
    *out = v->valuedouble;
    return true;
}

/* A structure described by architecture and framework (workload.h):
 * resolved here for an A100 (so a bad description fails at load, and the
 * tables have a compute time) and kept as written in *desc, which the
 * replay resolves again for its own GPU type. */
static job_structure *described_structure(const cJSON *obj, int gpus, const char *where,
                                          cJSON **desc, GError **error)
{
    g_autoptr(catalog) cat = catalog_load_default(error);
    if (!cat)
        return NULL;
    job_structure *st =
        workload_structure_from_cjson(obj, cat, gpus, 0, CATALOG_GPU_A100, where, NULL, error);
    if (st)
        *desc = cJSON_Duplicate(obj, true);
    return st;
}

/* A model given by its structure, {"structure": {...}} (structure.h): the
 * structure (and, when it is a description, the description: *desc), and
 * an inline model that names it (the job id) and carries its mean compute
 * per GPU per iteration for the tables that show one. */
static bool structured_model(const cJSON *m, const char *name, const char *id, int gpus,
                             job_structure **st, cJSON **desc, catalog_model **inl,
                             GError **error)
{
    g_autofree char *shown = ccs_escape(id, -1, 80);
    g_autofree char *where = g_strdup_printf("%s: job %s", name, shown);
    if (cJSON_GetArraySize(m) != 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: model: a structured model has only the \"structure\" member", where);
        return false;
    }
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(m, "structure");
    *st = workload_cjson_is_description(obj)
              ? described_structure(obj, gpus, where, desc, error)
              : structure_parse(obj, gpus, where, error);
    if (!*st)
        return false;
    double c = 0;
    for (int s = 0; s < (*st)->pp; s++)
        c += structure_stage_compute_s(*st, s) / (*st)->pp;
    g_autofree char *what = g_strdup_printf("%s: structure: compute per GPU per iteration", where);
    if (!ccs_limit_check(CCS_LIMIT_COMPUTE_S, c, what, error))
        return false;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "compute_s", c);
    cJSON_AddNumberToObject(o, "opt_s", (*st)->opt_s);
    *inl = catalog_model_from_cjson(o, id, NULL, error);
    cJSON_Delete(o);
    if (!*inl)
        return false;
    g_free((*inl)->family);
    (*inl)->family = g_strdup("structure");
    return true;
}

static trace_job *json_job(const cJSON *o, const char *name, size_t i, GError **error)
{
    if (!cJSON_IsObject(o)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: jobs[%zu]: expected an object",
                    name, i);
        return NULL;
    }
    static const char *const keys[] = {"id",      "gpus",  "hosts", "host_gpus",
                                       "start_s", "end_s", "model", NULL};
    g_autofree char *path = g_strdup_printf("jobs[%zu]", i);
    if (!ccs_json_check_keys(o, keys, name, path, error))
        return NULL;
    double gpus = 0, start = 0, end = 0;
    if (!json_number(o, "gpus", true, &gpus, name, i, error) ||
        !json_number(o, "start_s", true, &start, name, i, error) ||
        !json_number(o, "end_s", true, &end, name, i, error))
        return NULL;
    static const char *const numbers[] = {"gpus", "start_s", "end_s"};
    const double vals[] = {gpus, start, end};
    const ccs_limit_id lims[] = {CCS_LIMIT_JOB_GPUS, CCS_LIMIT_TIME_S, CCS_LIMIT_TIME_S};
    for (size_t k = 0; k < G_N_ELEMENTS(numbers); k++) {
        g_autofree char *where = g_strdup_printf("%s: jobs[%zu].%s", name, i, numbers[k]);
        if (!ccs_limit_check(lims[k], vals[k], where, error))
            return NULL;
    }
    if (start < 0 || end < start) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: jobs[%zu]: need 0 <= start_s <= end_s, got start_s %g, end_s %g", name,
                    i, start, end);
        return NULL;
    }
    g_autoptr(GPtrArray) hosts = g_ptr_array_new_with_free_func(g_free);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "hosts");
    if (h) {
        if (!cJSON_IsArray(h)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: jobs[%zu]: hosts: expected an array of names", name, i);
            return NULL;
        }
        const cJSON *e;
        cJSON_ArrayForEach(e, h)
        {
            if (!cJSON_IsString(e) || e->valuestring[0] == '\0') {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "%s: jobs[%zu]: hosts: expected non-empty strings", name, i);
                return NULL;
            }
            if (g_ptr_array_find_with_equal_func(hosts, e->valuestring, g_str_equal, NULL)) {
                /* which of the two GPU counts would be meant? */
                g_autofree char *shown = ccs_escape(e->valuestring, -1, 80);
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "%s: jobs[%zu].hosts: \"%s\" listed twice", name, i, shown);
                return NULL;
            }
            g_ptr_array_add(hosts, g_strdup(e->valuestring));
        }
    }
    size_t n = hosts->len;
    int g = (int)gpus;
    if (n > (size_t)g) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: jobs[%zu]: %zu hosts for %d GPUs (each host needs one)", name, i, n, g);
        return NULL;
    }
    g_autofree int *hg = n ? g_new0(int, n) : NULL;
    const cJSON *hgj = cJSON_GetObjectItemCaseSensitive(o, "host_gpus");
    if (hgj) {
        if (!cJSON_IsArray(hgj) || (size_t)cJSON_GetArraySize(hgj) != n) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: jobs[%zu]: host_gpus: expected an array as long as hosts", name, i);
            return NULL;
        }
        int64_t sum = 0;
        const cJSON *e = hgj->child;
        for (size_t k = 0; k < n; k++, e = e->next) {
            g_autofree char *where = g_strdup_printf("%s: jobs[%zu].host_gpus[%zu]", name, i, k);
            if (!cJSON_IsNumber(e)) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected a number", where);
                return NULL;
            }
            if (!ccs_limit_check(CCS_LIMIT_JOB_GPUS, e->valuedouble, where, error))
                return NULL;
            hg[k] = (int)e->valuedouble;
            sum += hg[k];
        }
        if (sum != g) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: jobs[%zu]: host_gpus add up to %" G_GINT64_FORMAT ", gpus is %d",
                        name, i, sum, g);
            return NULL;
        }
    } else {
        for (size_t k = 0; k < n; k++)
            hg[k] = g / (int)n + ((int)k < g % (int)n ? 1 : 0);
    }
    g_autofree char *id = NULL;
    const cJSON *idj = cJSON_GetObjectItemCaseSensitive(o, "id");
    if (idj && cJSON_IsString(idj) && idj->valuestring[0])
        id = g_strdup(idj->valuestring);
    else if (idj && cJSON_IsNumber(idj))
        id = g_strdup_printf("%g", idj->valuedouble);
    else if (idj) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: jobs[%zu]: id: expected a string or number", name, i);
        return NULL;
    } else
        id = g_strdup_printf("j%zu", i + 1);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "model");
    g_autofree char *model = NULL;
    g_autoptr(catalog_model) inl = NULL;
    g_autoptr(job_structure) st = NULL;
    g_autoptr(cJSON) desc = NULL;
    if (cJSON_IsObject(m) && cJSON_GetObjectItemCaseSensitive(m, "structure")) {
        if (!structured_model(m, name, id, g, &st, &desc, &inl, error))
            return NULL;
    } else if (!m || cJSON_IsNull(m)) {
        model = g_strdup("unknown");
    } else if (cJSON_IsString(m) && m->valuestring[0]) {
        model = g_strdup(m->valuestring);
    } else if (cJSON_IsObject(m)) {
        g_autofree char *mn = g_strdup_printf("%s: jobs[%zu]: model", name, i);
        g_autofree char *base = g_path_get_dirname(name); /* graph files: next to the job's file */
        inl = catalog_model_from_cjson(m, mn, base, error);
        if (!inl)
            return NULL;
        g_free(inl->name);
        inl->name = g_strdup(id);
    } else {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: jobs[%zu]: model: expected a catalog name or an object", name, i);
        return NULL;
    }
    trace_job *j = g_new0(trace_job, 1);
    j->id = g_steal_pointer(&id);
    j->start_s = start;
    j->end_s = end;
    j->gpus = g;
    j->max_pod_gpus = g;
    j->n_pods = n ? n : 1;
    j->n_hosts = n;
    if (n) {
        g_ptr_array_add(hosts, NULL);
        j->hosts = (char **)g_ptr_array_free(g_steal_pointer(&hosts), FALSE);
        j->host_gpus = g_steal_pointer(&hg);
        int mx = 0;
        for (size_t k = 0; k < n; k++)
            mx = MAX(mx, j->host_gpus[k]);
        j->max_pod_gpus = mx;
    }
    j->model = g_steal_pointer(&model);
    j->inline_model = g_steal_pointer(&inl);
    j->structure = g_steal_pointer(&st);
    j->structure_desc = g_steal_pointer(&desc);
    return j;
}

trace *trace_json_from_cjson(const cJSON *jobs_array, const char *name, GError **error)
{
    if (!name)
        name = "(json)";
    if (!cJSON_IsArray(jobs_array)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: jobs: expected an array", name);
        return NULL;
    }
    g_autoptr(trace) t = trace__new(name);
    size_t i = 0;
    const cJSON *o;
    g_autoptr(GHashTable) ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    cJSON_ArrayForEach(o, jobs_array)
    {
        if (i >= (size_t)ccs_limit_get(CCS_LIMIT_TRACE_JOBS)->max) {
            g_autofree char *where = g_strdup_printf("%s: jobs", name);
            ccs_limit_check(CCS_LIMIT_TRACE_JOBS, (double)i + 1, where, error);
            return NULL;
        }
        trace_job *j = json_job(o, name, i, error);
        if (!j)
            return NULL;
        if (!g_hash_table_add(ids, g_strdup(j->id))) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: jobs[%zu]: duplicate id \"%s\"",
                        name, i, j->id);
            trace__job_free(j);
            return NULL;
        }
        trace__add_job(t, j);
        i++;
    }
    t->stats.job_rows = i;
    t->stats.jobs_loaded = i;
    trace__finish(t, 0, 0);
    return g_steal_pointer(&t);
}

trace *trace_json_load(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_autoptr(GBytes) b = ccs_input_read(path, true, error);
    if (!b)
        return NULL;
    size_t n;
    const char *s = g_bytes_get_data(b, &n);
    return trace_json_parse(s, n, path, error);
}

trace *trace_json_parse(const char *s, size_t n, const char *path, GError **error)
{
    g_return_val_if_fail(s != NULL && path != NULL, NULL);
    cJSON *root = ccs_json_parse(s, n, path, error);
    if (!root)
        return NULL;
    /* {"jobs": [...]}, or a scenario file whose trace is {"jobs": [...]} */
    static const char *const keys[] = {"jobs", "name", "description", NULL};
    static const char *const scenario_keys[] = {"topology", "trace",       "scheduler", "sim",
                                                "timeline", "name",        "description", NULL};
    bool scenario = cJSON_GetObjectItemCaseSensitive(root, "trace") != NULL;
    if (!ccs_json_check_keys(root, scenario ? scenario_keys : keys, path, NULL, error)) {
        cJSON_Delete(root);
        return NULL;
    }
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(root, "jobs");
    if (!jobs) {
        const cJSON *tr = cJSON_GetObjectItemCaseSensitive(root, "trace");
        jobs = tr ? cJSON_GetObjectItemCaseSensitive(tr, "jobs") : NULL;
        static const char *const trace_keys[] = {"jobs", NULL};
        if (jobs && !ccs_json_check_keys(tr, trace_keys, path, "trace", error)) {
            cJSON_Delete(root);
            return NULL;
        }
    }
    trace *t = NULL;
    if (!jobs)
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: no \"jobs\" array (nor \"trace\": {\"jobs\": [...]})", path);
    else
        t = trace_json_from_cjson(jobs, path, error);
    cJSON_Delete(root);
    return t;
}

/* ---- the bundled sample --------------------------------------------- */

bool trace__default_tables(trace__tables *tab, GError **error)
{
    static const char *const files[3] = {"/ccsim/traces/data/job.csv.gz",
                                         "/ccsim/traces/data/worker.csv.gz",
                                         "/ccsim/traces/data/topo.csv.gz"};
    GBytes *plain[3] = {NULL, NULL, NULL};
    bool ok = true;
    memset(tab, 0, sizeof *tab);
    for (int i = 0; i < 3 && ok; i++) {
        g_autoptr(GBytes) gz = trace__resource_bytes(files[i], error);
        ok = gz && (plain[i] = ccs_input_decode(gz, files[i], true, error)) != NULL;
    }
    if (ok) {
        size_t n[3];
        const char *b[3];
        for (int i = 0; i < 3; i++)
            b[i] = g_bytes_get_data(plain[i], &n[i]);
        ok = trace__tables_parse(tab, b[0], n[0], "(default)/job.csv", b[1], n[1],
                                 "(default)/worker.csv", b[2], n[2], "(default)/topo.csv", false,
                                 error);
    }
    for (int i = 0; i < 3; i++)
        if (plain[i])
            g_bytes_unref(plain[i]);
    return ok;
}

trace *trace_load_default(GError **error)
{
    trace__tables tab;
    trace *t = NULL;
    if (trace__default_tables(&tab, error))
        t = trace__from_tables(&tab, "(default)", NULL, error);
    trace__tables_clear(&tab);
    return t;
}
