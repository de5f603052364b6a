/* shard_merge.c - merging a run's time shards into its outputs
 * (shard_merge.h says what each file gets).  Not here: running shards.
 */
#include "shard_merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/ccs.h"
#include "base/input.h"
#include "base/json.h"
#include "sim/output.h"
#include "sim/replay.h"
#include "sweep-private.h"
#include "sweep.h"

/* One shard's files as read. */
typedef struct shard_in {
    char *dir;
    cJSON *run;              /* its run.json */
    const cJSON *sh;         /* run.json's "shard" object */
    GPtrArray *summary, *jobs, *ts, *links, *exact; /* CSV rows, header first */
    GHashTable *exact_by_id; /* job_id -> row of shard_jobs.csv (borrowed) */
} shard_in;

/* One job's sums over the shards. */
typedef struct merged_job {
    int first, last;   /* the first and last shard it ran in, -1: none */
    int no_room;       /* the shard where it found no room, -1: none */
    int64_t iterations;
    double iter_sum_s, busy_gpu_s, shift_s, iso_s, alone_ecmp_s;
    bool at_risk;
} merged_job;

char *shard_merge_dir(const char *run_dir, int k)
{
    char name[16];
    g_snprintf(name, sizeof name, "%d", k);
    return g_build_filename(run_dir, SHARD_MERGE_DIR, name, NULL);
}

/* DIR/NAME or DIR/NAME.gz, whichever exists (NULL: neither). */
static char *find_file(const char *dir, const char *name)
{
    g_autofree char *plain = g_build_filename(dir, name, NULL);
    if (g_file_test(plain, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer(&plain);
    g_autofree char *gz = g_strconcat(plain, ".gz", NULL);
    return g_file_test(gz, G_FILE_TEST_IS_REGULAR) ? g_steal_pointer(&gz) : NULL;
}

bool shard_merge_finished(const char *run_dir, int k)
{
    g_autofree char *dir = shard_merge_dir(run_dir, k);
    g_autofree char *summary = find_file(dir, "summary.csv");
    return summary != NULL;
}

static GBytes *read_file(const char *dir, const char *name, GError **error)
{
    g_autofree char *path = find_file(dir, name);
    if (!path) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: no %s: the shard has not finished",
                    dir, name);
        return NULL;
    }
    return ccs_input_read(path, true, error);
}

static GPtrArray *read_csv(const char *dir, const char *name, GError **error)
{
    g_autoptr(GBytes) b = read_file(dir, name, error);
    if (!b)
        return NULL;
    g_autofree char *where = g_build_filename(dir, name, NULL);
    GPtrArray *rows = sweep_csv_parse(g_bytes_get_data(b, NULL), where, error);
    if (rows && rows->len == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s: empty", where);
        g_ptr_array_unref(rows);
        return NULL;
    }
    return rows;
}

static cJSON *read_run_json(const char *dir, GError **error)
{
    g_autoptr(GBytes) b = read_file(dir, "run.json", error);
    if (!b)
        return NULL;
    gsize len;
    const char *text = g_bytes_get_data(b, &len);
    g_autofree char *where = g_build_filename(dir, "run.json", NULL);
    cJSON *j = ccs_json_parse(text, len, where, error);
    if (!j)
        return NULL;
    if (!cJSON_IsObject(cJSON_GetObjectItem(j, "shard"))) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s/run.json: not a shard's run.json",
                    dir);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

/* Two configurations print alike (a raw number written to run.json reads
 * back as a number: compared as text). */
static bool same_config(const cJSON *a, const cJSON *b)
{
    g_autofree char *x = a ? cJSON_PrintUnformatted(a) : NULL;
    g_autofree char *y = b ? cJSON_PrintUnformatted(b) : NULL;
    return x && y && strcmp(x, y) == 0;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

bool shard_merge_check(const char *run_dir, int k, int count, const cJSON *config,
                       GError **error)
{
    g_autofree char *dir = shard_merge_dir(run_dir, k);
    g_autoptr(cJSON) run = read_run_json(dir, error);
    if (!run)
        return false;
    const cJSON *sh = cJSON_GetObjectItem(run, "shard");
    if (num(sh, "index") != k || num(sh, "count") != count ||
        !same_config(cJSON_GetObjectItem(run, "config"), config)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s holds shard %g of %g of another run (its run.json's shard or config "
                    "differs); use another output folder or --force",
                    dir, num(sh, "index"), num(sh, "count"));
        return false;
    }
    return true;
}

/* --- Reading ---------------------------------------------------------------- */

static void shard_in_clear(shard_in *s)
{
    g_free(s->dir);
    cJSON_Delete(s->run);
    GPtrArray **t[] = {&s->summary, &s->jobs, &s->ts, &s->links, &s->exact};
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
        g_clear_pointer(t[i], g_ptr_array_unref);
    g_clear_pointer(&s->exact_by_id, g_hash_table_unref);
}

static const char *cell(const GPtrArray *row, int c)
{
    return c >= 0 && (guint)c < row->len ? g_ptr_array_index(row, c) : "";
}

/* The column called name in a header row, or -1. */
static int col(const GPtrArray *rows, const char *name)
{
    const GPtrArray *h = g_ptr_array_index(rows, 0);
    for (guint i = 0; i < h->len; i++)
        if (strcmp(g_ptr_array_index(h, i), name) == 0)
            return (int)i;
    return -1;
}

static bool shard_in_read(shard_in *s, const char *run_dir, int k, GError **error)
{
    s->dir = shard_merge_dir(run_dir, k);
    if (!(s->run = read_run_json(s->dir, error)))
        return false;
    s->sh = cJSON_GetObjectItem(s->run, "shard");
    if (!(s->summary = read_csv(s->dir, "summary.csv", error)) ||
        !(s->jobs = read_csv(s->dir, "jobs.csv", error)) ||
        !(s->ts = read_csv(s->dir, "timeseries.csv", error)) ||
        !(s->links = read_csv(s->dir, "links.csv", error)) ||
        !(s->exact = read_csv(s->dir, REPLAY_SHARD_JOBS_FILE, error)))
        return false;
    s->exact_by_id = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 1; i < s->exact->len; i++) {
        GPtrArray *row = g_ptr_array_index(s->exact, i);
        g_hash_table_insert(s->exact_by_id, (char *)cell(row, 0), row);
    }
    return true;
}

/* The shards belong together: indices, counts, one configuration, windows
 * that join, the same jobs in the same order. */
static bool shards_agree(shard_in *in, int count, GError **error)
{
    const cJSON *config = cJSON_GetObjectItem(in[0].run, "config");
    for (int k = 0; k < count; k++) {
        const cJSON *sh = in[k].sh;
        const char *why = NULL;
        if (num(sh, "index") != k || num(sh, "count") != count)
            why = "its run.json's shard index or count differs";
        else if (!same_config(cJSON_GetObjectItem(in[k].run, "config"), config))
            why = "its configuration differs from shard 0's";
        else if (k > 0 && num(sh, "start_s") != num(in[k - 1].sh, "end_s"))
            why = "its window does not start where the previous shard's ends";
        else if (in[k].jobs->len != in[0].jobs->len)
            why = "its jobs.csv lists other jobs than shard 0's";
        if (why) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: cannot merge: %s", in[k].dir,
                        why);
            return false;
        }
    }
    return true;
}

/* --- Jobs ------------------------------------------------------------------- */

static double exact(const GPtrArray *exact_rows, const GPtrArray *row, const char *name)
{
    return g_ascii_strtod(cell(row, col(exact_rows, name)), NULL);
}

static void merge_jobs(shard_in *in, int count, merged_job *mj, guint n_jobs)
{
    int c_status = col(in[0].jobs, "status"), c_id = col(in[0].jobs, "job_id");
    for (guint i = 0; i < n_jobs; i++)
        mj[i] = (merged_job){.first = -1, .last = -1, .no_room = -1};
    for (int k = 0; k < count; k++)
        for (guint i = 0; i < n_jobs; i++) {
            const GPtrArray *row = g_ptr_array_index(in[k].jobs, i + 1);
            const char *st = cell(row, c_status);
            if (strcmp(st, "skipped_capacity") == 0)
                mj[i].no_room = k;
            const GPtrArray *ex = g_hash_table_lookup(in[k].exact_by_id, cell(row, c_id));
            if (strcmp(st, "ran") != 0 || !ex)
                continue;
            merged_job *m = &mj[i];
            if (m->first < 0)
                m->first = k;
            m->last = k;
            m->iterations += g_ascii_strtoll(cell(ex, col(in[k].exact, "iterations")), NULL, 10);
            m->iter_sum_s += exact(in[k].exact, ex, "iter_time_sum_s");
            m->busy_gpu_s += exact(in[k].exact, ex, "busy_gpu_s");
            m->shift_s += exact(in[k].exact, ex, "shift_s");
            m->iso_s = exact(in[k].exact, ex, "isolated_iter_s");
            m->alone_ecmp_s = exact(in[k].exact, ex, "alone_ecmp_iter_s");
            m->at_risk |= strcmp(cell(ex, col(in[k].exact, "at_risk")), "1") == 0;
        }
}

/* As replay_job_get computes them. */
static double mean_iter_s(const merged_job *m)
{
    return m->iterations > 0 ? m->iter_sum_s / m->iterations : NAN;
}

static double slowdown(const merged_job *m)
{
    return m->iterations > 0 && m->iso_s > 0 ? mean_iter_s(m) / m->iso_s : NAN;
}

/* One merged jobs.csv row: a job that ran takes its texts from its first
 * shard, its end and priority from its last, its counters from the sums;
 * one that never ran, the row of the shard it found no room in, or the
 * first shard's. */
static void write_job(output_csv *c, shard_in *in, const merged_job *m, guint i)
{
    const GPtrArray *jobs = in[0].jobs, *head = g_ptr_array_index(jobs, 0);
    int from = m->first >= 0 ? m->first : (m->no_room >= 0 ? m->no_room : 0);
    const GPtrArray *row = g_ptr_array_index(in[from].jobs, i + 1);
    const GPtrArray *last = m->last >= 0 ? g_ptr_array_index(in[m->last].jobs, i + 1) : row;
    for (guint k = 0; k < head->len; k++) {
        const char *name = g_ptr_array_index(head, k);
        if (m->first < 0 || strcmp(name, "end_s") == 0 || strcmp(name, "priority") == 0)
            output_csv_str(c, cell(m->first < 0 ? row : last, (int)k));
        else if (strcmp(name, "iterations") == 0)
            output_csv_int(c, m->iterations);
        else if (strcmp(name, "busy_gpu_s") == 0)
            output_csv_double(c, m->busy_gpu_s);
        else if (strcmp(name, "mean_iter_s") == 0)
            output_csv_double(c, mean_iter_s(m));
        else if (strcmp(name, "slowdown") == 0)
            output_csv_double(c, slowdown(m));
        else if (strcmp(name, "shift_s") == 0)
            output_csv_double(c, m->shift_s);
        else
            output_csv_str(c, cell(row, (int)k));
    }
}

/* --- Totals ----------------------------------------------------------------- */

typedef struct totals {
    double start_s, end_s, gpus;
    double busy_gpu_s, alloc_gpu_s;
    size_t jobs, skipped, no_room, by_policy, at_risk, slowed;
    double gpus_ran, gpus_at_risk;
    int64_t iterations;
    double mean_slowdown, p99_slowdown;
} totals;

/* The slowdowns' mean and 99th percentile, as the run computes them. */
static void slowdowns(const merged_job *mj, guint n, totals *t)
{
    g_autoptr(GArray) sl = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint i = 0; i < n; i++) {
        double s = slowdown(&mj[i]);
        if (!isnan(s))
            g_array_append_val(sl, s);
    }
    replay_slowdowns_summarize(sl, &t->mean_slowdown, &t->p99_slowdown);
}

static void totals_get(shard_in *in, int count, const merged_job *mj, guint n, totals *t)
{
    memset(t, 0, sizeof *t);
    t->start_s = num(in[0].sh, "run_start_s");
    t->end_s = num(in[0].sh, "run_end_s");
    const GPtrArray *sum0 = g_ptr_array_index(in[0].summary, 1);
    t->gpus = g_ascii_strtod(cell(sum0, col(in[0].summary, "gpus_total")), NULL);
    for (int k = 0; k < count; k++) {
        t->busy_gpu_s += num(in[k].sh, "busy_gpu_s");
        t->alloc_gpu_s += num(in[k].sh, "alloc_gpu_s");
    }
    int c_status = col(in[0].jobs, "status"), c_policy = col(in[0].jobs, "placed_by_policy");
    int c_gpus = col(in[0].jobs, "gpus");
    for (guint i = 0; i < n; i++) {
        const merged_job *m = &mj[i];
        const GPtrArray *row = g_ptr_array_index(in[m->first >= 0 ? m->first : 0].jobs, i + 1);
        if (m->first < 0) {
            const GPtrArray *r2 = m->no_room >= 0 ? g_ptr_array_index(in[m->no_room].jobs, i + 1)
                                                  : row;
            t->skipped += g_str_has_prefix(cell(r2, c_status), "skipped_");
            t->no_room += strcmp(cell(r2, c_status), "skipped_capacity") == 0;
            continue;
        }
        double g = g_ascii_strtod(cell(row, c_gpus), NULL);
        t->jobs++;
        t->by_policy += strcmp(cell(row, c_policy), "1") == 0;
        t->iterations += m->iterations;
        t->gpus_ran += g;
        if (m->at_risk) {
            t->at_risk++;
            t->gpus_at_risk += g;
            /* contention_json's rule: slowed past 1.01 x its time alone */
            t->slowed += m->iterations > 0 &&
                         mean_iter_s(m) > 1.01 * fmax(m->alone_ecmp_s, m->iso_s);
        }
    }
    slowdowns(mj, n, t);
}

/* --- Writing ---------------------------------------------------------------- */

static const GPtrArray *header(const GPtrArray *rows) { return g_ptr_array_index(rows, 0); }

static output_csv *open_like(output_dir *d, const char *name, bool gz, const GPtrArray *rows,
                             GError **error)
{
    const GPtrArray *h = header(rows);
    g_autofree const char **cols = g_new0(const char *, h->len + 1);
    for (guint i = 0; i < h->len; i++)
        cols[i] = g_ptr_array_index(h, i);
    return output_csv_open(d, name, gz, cols, error);
}

/* timeseries.csv or links.csv: the shards' rows in order. */
static bool write_concat(output_dir *d, const char *name, bool gz, shard_in *in, int count,
                         size_t field, GError **error)
{
    GPtrArray *first = G_STRUCT_MEMBER(GPtrArray *, &in[0], field);
    output_csv *c = open_like(d, name, gz, first, error);
    for (int k = 0; c && k < count; k++) {
        GPtrArray *rows = G_STRUCT_MEMBER(GPtrArray *, &in[k], field);
        for (guint i = 1; i < rows->len; i++) {
            const GPtrArray *row = g_ptr_array_index(rows, i);
            for (guint x = 0; x < row->len; x++)
                output_csv_str(c, g_ptr_array_index(row, x));
            if (!output_csv_end_row(c, error))
                return false;
        }
    }
    return c != NULL;
}

static double sum_of(shard_in *in, int count, const char *key, bool largest)
{
    double v = 0;
    for (int k = 0; k < count; k++)
        v = largest ? fmax(v, num(in[k].run, key)) : v + num(in[k].run, key);
    return v;
}

static bool write_summary(output_dir *d, bool gz, shard_in *in, int count, const totals *t,
                          GError **error)
{
    output_csv *c = open_like(d, "summary.csv", gz, in[0].summary, error);
    if (!c)
        return false;
    const GPtrArray *h = header(in[0].summary), *row0 = g_ptr_array_index(in[0].summary, 1);
    double span = t->end_s - t->start_s;
    for (guint k = 0; k < h->len; k++) {
        const char *n = g_ptr_array_index(h, k);
        if (strcmp(n, "sim_start_s") == 0)
            output_csv_double(c, t->start_s);
        else if (strcmp(n, "sim_end_s") == 0)
            output_csv_double(c, t->end_s);
        else if (strcmp(n, "jobs") == 0)
            output_csv_int(c, (int64_t)t->jobs);
        else if (strcmp(n, "jobs_skipped") == 0)
            output_csv_int(c, (int64_t)t->skipped);
        else if (strcmp(n, "jobs_placed_by_policy") == 0)
            output_csv_int(c, (int64_t)t->by_policy);
        else if (strcmp(n, "gpu_util_cluster_frac") == 0)
            output_csv_double(c, t->busy_gpu_s / (t->gpus * span));
        else if (strcmp(n, "gpu_util_allocated_frac") == 0)
            output_csv_double(c, t->alloc_gpu_s > 0 ? t->busy_gpu_s / t->alloc_gpu_s : NAN);
        else if (strcmp(n, "busy_gpu_s") == 0)
            output_csv_double(c, t->busy_gpu_s);
        else if (strcmp(n, "iterations") == 0)
            output_csv_int(c, t->iterations);
        else if (strcmp(n, "mean_slowdown") == 0)
            output_csv_double(c, t->mean_slowdown);
        else if (strcmp(n, "p99_slowdown") == 0)
            output_csv_double(c, t->p99_slowdown);
        else if (strcmp(n, "jobs_at_risk") == 0)
            output_csv_int(c, (int64_t)t->at_risk);
        else if (strcmp(n, "jobs_slowed_by_others") == 0)
            output_csv_int(c, (int64_t)t->slowed);
        else if (strcmp(n, "wall_s") == 0 || strcmp(n, "events") == 0 ||
                 strcmp(n, "peak_rss_bytes") == 0)
            output_csv_double(c, sum_of(in, count, n, strcmp(n, "peak_rss_bytes") == 0));
        else
            output_csv_str(c, cell(row0, (int)k));
    }
    return output_csv_end_row(c, error);
}

static void set_num(cJSON *o, const char *key, double v)
{
    cJSON_DeleteItemFromObject(o, key);
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
}

/* run.json's counters: summed over the shards (a job fast-forwarded in
 * two shards counts twice), the iteration bound the largest. */
static void merge_counters(cJSON *run, shard_in *in, int count, const totals *t)
{
    static const char *const summed[] = {
        "wall_s", "events", "jobs_fast_forwarded", "fast_forward_stretches",
        "fast_forward_stretch_iterations", "steady_group_repeats", "steady_group_fallbacks",
        "steady_group_skips", "steady_group_skipped_iterations", "steady_group_drift_skips",
        "steady_approx_jumps", "steady_approx_iterations", "steady_approx_busy_gpu_s_bound",
        "steady_approx_change_windows", "steady_approx_change_windows_kept"};
    for (size_t i = 0; i < G_N_ELEMENTS(summed); i++)
        set_num(run, summed[i], sum_of(in, count, summed[i], false));
    set_num(run, "steady_approx_iteration_bound",
            sum_of(in, count, "steady_approx_iteration_bound", true));
    set_num(run, "peak_rss_bytes", sum_of(in, count, "peak_rss_bytes", true));
    set_num(run, "steady_approx_util_bound",
            num(run, "steady_approx_busy_gpu_s_bound") / (t->gpus * (t->end_s - t->start_s)));
}

static void merge_blocks(cJSON *run, const totals *t)
{
    double span = t->end_s - t->start_s;
    cJSON *s = cJSON_GetObjectItem(run, "summary");
    set_num(s, "sim_start_s", t->start_s);
    set_num(s, "sim_end_s", t->end_s);
    set_num(s, "jobs", (double)t->jobs);
    set_num(s, "gpu_util_cluster_frac", t->busy_gpu_s / (t->gpus * span));
    set_num(s, "gpu_util_allocated_frac", t->alloc_gpu_s > 0 ? t->busy_gpu_s / t->alloc_gpu_s
                                                             : NAN);
    set_num(s, "busy_gpu_s", t->busy_gpu_s);
    set_num(s, "iterations", (double)t->iterations);
    set_num(s, "mean_slowdown", t->mean_slowdown);
    set_num(s, "p99_slowdown", t->p99_slowdown);
    cJSON *pl = cJSON_GetObjectItem(run, "placement");
    set_num(pl, "jobs_ran", (double)t->jobs);
    set_num(pl, "jobs_on_recorded_hosts", (double)(t->jobs - t->by_policy));
    set_num(pl, "jobs_placed_by_policy", (double)t->by_policy);
    set_num(pl, "jobs_skipped_window", (double)(t->skipped - t->no_room));
    set_num(pl, "jobs_skipped_capacity", (double)t->no_room);
    cJSON *c = cJSON_GetObjectItem(run, "contention");
    double jobs = (double)t->jobs;
    set_num(c, "jobs", jobs);
    set_num(c, "jobs_at_risk", (double)t->at_risk);
    set_num(c, "jobs_at_risk_frac", jobs > 0 ? t->at_risk / jobs : 0);
    set_num(c, "gpus_at_risk_frac", t->gpus_ran > 0 ? t->gpus_at_risk / t->gpus_ran : 0);
    set_num(c, "jobs_slowed_by_others", (double)t->slowed);
    set_num(c, "jobs_slowed_by_others_frac", jobs > 0 ? t->slowed / jobs : 0);
}

/* run.json's "sharded": how the run was split, and each shard's start. */
static cJSON *sharded_json(shard_in *in, int count)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "shards", count);
    cJSON_AddNumberToObject(o, "warmup_iterations", num(in[0].sh, "warmup_iterations"));
    cJSON *b = cJSON_AddArrayToObject(o, "bounds_s");
    cJSON *list = cJSON_AddArrayToObject(o, "shard");
    static const char *const keys[] = {
        "warmup_start_s", "start_s", "end_s", "slowest_iter_s", "jobs_running_at_start",
        "jobs_resumed_at_start", "jobs_resumed_sharing_links", "gpus_resumed_sharing_links"};
    for (int k = 0; k < count; k++) {
        cJSON_AddItemToArray(b, cJSON_CreateNumber(num(in[k].sh, "start_s")));
        cJSON *e = cJSON_CreateObject();
        for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
            cJSON_AddNumberToObject(e, keys[i], num(in[k].sh, keys[i]));
        cJSON_AddNumberToObject(e, "events", num(in[k].run, "events"));
        cJSON_AddNumberToObject(e, "wall_s", num(in[k].run, "wall_s"));
        cJSON_AddItemToArray(list, e);
    }
    cJSON_AddItemToArray(b, cJSON_CreateNumber(num(in[count - 1].sh, "end_s")));
    return o;
}

static bool write_all(const char *run_dir, shard_in *in, int count, GError **error)
{
    guint n = in[0].jobs->len - 1;
    g_autofree merged_job *mj = g_new0(merged_job, n + 1);
    merge_jobs(in, count, mj, n);
    totals t;
    totals_get(in, count, mj, n, &t);
    g_autofree char *gz_summary = g_build_filename(in[0].dir, "summary.csv.gz", NULL);
    bool gz = g_file_test(gz_summary, G_FILE_TEST_IS_REGULAR);
    output_dir *d = output_dir_open(run_dir, error);
    if (!d)
        return false;
    output_csv *jobs = open_like(d, "jobs.csv", gz, in[0].jobs, error);
    bool ok = jobs != NULL;
    for (guint i = 0; ok && i < n; i++) {
        write_job(jobs, in, &mj[i], i);
        ok = output_csv_end_row(jobs, error);
    }
    ok = ok && write_concat(d, "timeseries.csv", gz, in, count, G_STRUCT_OFFSET(shard_in, ts),
                            error) &&
         write_concat(d, "links.csv", gz, in, count, G_STRUCT_OFFSET(shard_in, links), error);
    g_autoptr(cJSON) run = ok ? cJSON_Duplicate(in[0].run, true) : NULL;
    if (run) {
        cJSON_DeleteItemFromObject(run, "shard");
        merge_counters(run, in, count, &t);
        merge_blocks(run, &t);
        cJSON_AddItemToObject(run, "sharded", sharded_json(in, count));
    }
    /* summary.csv the last CSV (renamed first of the two): a sweep takes it to mean "finished" */
    ok = ok && output_json_write(d, "run.json", run, error) &&
         write_summary(d, gz, in, count, &t, error);
    if (!ok) {
        output_dir_abort(d);
        return false;
    }
    return output_dir_commit(d, error);
}

bool shard_merge(const char *run_dir, int count, GError **error)
{
    g_return_val_if_fail(run_dir && count >= 1, false);
    /* two processes may find the last shard at once (array tasks): one
     * merges after the other, into the same bytes */
    g_autofree char *shards = g_build_filename(run_dir, SHARD_MERGE_DIR, NULL);
    int fd = sweep__lock(shards, error);
    if (fd < 0)
        return false;
    shard_in *in = g_new0(shard_in, count);
    bool ok = true;
    for (int k = 0; ok && k < count; k++)
        ok = shard_in_read(&in[k], run_dir, k, error);
    ok = ok && shards_agree(in, count, error) && write_all(run_dir, in, count, error);
    for (int k = 0; k < count; k++)
        shard_in_clear(&in[k]);
    g_free(in);
    sweep__unlock(fd);
    return ok;
}
