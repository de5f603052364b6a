/* sweep_csv.c - a sweep's summary.csv and failed.csv, and the merge of
 * sweep folders (docs/usage.md-7).  Not here: expanding or running runs.
 */
#include "sweep.h"

#include <string.h>

#include "base/ccs.h"
#include "base/input.h"
#include "sweep-private.h"

/* --- CSV ------------------------------------------------------------------ */

GPtrArray *sweep_csv_parse(const char *text, const char *name, GError **error)
{
    g_return_val_if_fail(text != NULL && name != NULL, NULL);
    g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    GPtrArray *row = NULL;
    g_autoptr(GString) field = g_string_new(NULL);
    size_t line = 1;
    const char *p = text;
    while (*p) {
        if (row == NULL) {
            row = g_ptr_array_new_with_free_func(g_free);
            g_ptr_array_add(rows, row);
        }
        g_string_truncate(field, 0);
        if (*p == '"') {
            size_t start_line = line;
            p++;
            for (;;) {
                if (*p == '\0') {
                    g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                                "%s:%zu: unterminated quoted field", name, start_line);
                    return NULL;
                }
                if (*p == '"' && p[1] == '"') {
                    g_string_append_c(field, '"');
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    line += *p == '\n';
                    g_string_append_c(field, *p++);
                }
            }
        }
        while (*p && *p != ',' && *p != '\n' && *p != '\r')
            g_string_append_c(field, *p++);
        g_ptr_array_add(row, g_strdup(field->str));
        if (*p == ',') {
            p++;
            if (*p == '\0' || *p == '\n' || *p == '\r')
                g_ptr_array_add(row, g_strdup(""));
        }
        if (*p == '\r')
            p++;
        if (*p == '\n') {
            p++;
            line++;
            row = NULL;
        }
    }
    return g_steal_pointer(&rows);
}

void sweep_csv_append_field(GString *line, const char *field, bool first)
{
    if (!first)
        g_string_append_c(line, ',');
    if (strpbrk(field, ",\"\n\r") == NULL) {
        g_string_append(line, field);
        return;
    }
    g_string_append_c(line, '"');
    for (const char *p = field; *p; p++) {
        if (*p == '"')
            g_string_append_c(line, '"');
        g_string_append_c(line, *p);
    }
    g_string_append_c(line, '"');
}

/* A table: column names, and rows as hash tables column -> value. */
typedef struct table {
    GPtrArray *columns; /* char * owned, in order of first appearance */
    GHashTable *known;  /* column name set (borrowed keys) */
} table;

static void table_init(table *t)
{
    t->columns = g_ptr_array_new_with_free_func(g_free);
    t->known = g_hash_table_new(g_str_hash, g_str_equal);
}

static void table_clear(table *t)
{
    g_hash_table_unref(t->known);
    g_ptr_array_unref(t->columns);
}

static void table_add_column(table *t, const char *name)
{
    if (g_hash_table_contains(t->known, name))
        return;
    char *copy = g_strdup(name);
    g_ptr_array_add(t->columns, copy);
    g_hash_table_add(t->known, copy);
}

static void table_append_row(const table *t, GString *out, GHashTable *row)
{
    for (size_t c = 0; c < t->columns->len; c++) {
        const char *v = g_hash_table_lookup(row, t->columns->pdata[c]);
        sweep_csv_append_field(out, v ? v : "", c == 0);
    }
    g_string_append_c(out, '\n');
}

static void table_append_header(const table *t, GString *out)
{
    for (size_t c = 0; c < t->columns->len; c++)
        sweep_csv_append_field(out, t->columns->pdata[c], c == 0);
    g_string_append_c(out, '\n');
}

/* Parse CSV text into rows (hash column -> value, owning strings), adding
 * its columns to t. */
static GPtrArray *rows_from_text(const char *text, const char *path, table *t, GError **error)
{
    g_autoptr(GPtrArray) csv = sweep_csv_parse(text, path, error);
    if (csv == NULL)
        return NULL;
    GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_hash_table_unref);
    if (csv->len == 0)
        return rows;
    GPtrArray *header = csv->pdata[0];
    for (size_t c = 0; c < header->len; c++)
        table_add_column(t, header->pdata[c]);
    for (size_t r = 1; r < csv->len; r++) {
        GPtrArray *fields = csv->pdata[r];
        if (fields->len == 1 && ((char *)fields->pdata[0])[0] == '\0')
            continue; /* a blank line */
        if (fields->len != header->len) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                        "%s:%zu: %u fields, the header has %u", path, r + 1, fields->len,
                        header->len);
            g_ptr_array_unref(rows);
            return NULL;
        }
        GHashTable *row = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        for (size_t c = 0; c < header->len; c++)
            g_hash_table_insert(row, g_strdup(header->pdata[c]), g_strdup(fields->pdata[c]));
        g_ptr_array_add(rows, row);
    }
    return rows;
}

/* Read a CSV file as rows_from_text; a missing file is CCS_ERROR_IO. */
static GPtrArray *read_rows(const char *path, table *t, GError **error)
{
    g_autoptr(GBytes) bytes = ccs_input_read(path, true, error); /* plain or .gz */
    if (!bytes)
        return NULL;
    return rows_from_text(g_bytes_get_data(bytes, NULL), path, t, error);
}

/* --- The sweep's summary ------------------------------------------------------ */

/* error.txt -> exit status text and the last non-empty line of stderr. */
static void read_error(const char *path, char **status, char **message)
{
    g_autofree char *text = NULL;
    *status = g_strdup("");
    *message = g_strdup("");
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return;
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    bool in_stderr = false;
    for (size_t i = 0; lines[i]; i++) {
        if (g_str_has_prefix(lines[i], "exit_status: ")) {
            g_free(*status);
            *status = g_strdup(lines[i] + strlen("exit_status: "));
        } else if (g_str_has_prefix(lines[i], "error: ") && !in_stderr) {
            g_free(*message);
            *message = g_strdup(lines[i] + strlen("error: "));
        } else if (strcmp(lines[i], "--- stderr ---") == 0)
            in_stderr = true;
        else if (in_stderr && g_strstrip(lines[i])[0] != '\0') {
            g_free(*message);
            *message = g_strdup(lines[i]);
        }
    }
}

static GHashTable *param_row(const sweep *sw, size_t i)
{
    GHashTable *row = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_hash_table_insert(row, g_strdup("run"), g_strdup(sweep_run_name(sw, i)));
    for (size_t k = 0; k < sweep_param_count(sw); k++)
        g_hash_table_insert(row, g_strdup(sweep_param_column(sw, k)),
                            sweep_run_param_text(sw, i, k));
    return row;
}

static void param_columns(const sweep *sw, table *t)
{
    table_add_column(t, "run");
    for (size_t k = 0; k < sweep_param_count(sw); k++)
        table_add_column(t, sweep_param_column(sw, k));
}

/* The same swept values but the scheduler, as one string. */
static char *peer_key(const sweep *sw, GHashTable *row)
{
    GString *k = g_string_new(NULL);
    for (size_t c = 0; c < sweep_param_count(sw); c++) {
        const char *col = sweep_param_column(sw, c);
        if (strcmp(col, "scheduler") != 0)
            g_string_append_printf(k, "%s\x1f", (const char *)g_hash_table_lookup(row, col));
    }
    return g_string_free(k, FALSE);
}

/* Each row's metric over that of the baseline scheduler's run with the
 * same other swept values, minus 1, into column (empty without such a
 * run). */
static void add_gain_column(const sweep *sw, table *t, GPtrArray *rows, const char *metric,
                            const char *column)
{
    g_autoptr(GHashTable) base = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint r = 0; r < rows->len; r++) {
        const char *s = g_hash_table_lookup(rows->pdata[r], "scheduler");
        if (s && strcmp(s, SWEEP_BASELINE) == 0)
            g_hash_table_insert(base, peer_key(sw, rows->pdata[r]),
                                g_hash_table_lookup(rows->pdata[r], metric));
    }
    if (g_hash_table_size(base) == 0)
        return;
    table_add_column(t, column);
    for (guint r = 0; r < rows->len; r++) {
        g_autofree char *key = peer_key(sw, rows->pdata[r]);
        const char *b = g_hash_table_lookup(base, key);
        const char *v = g_hash_table_lookup(rows->pdata[r], metric);
        double bv = b ? g_ascii_strtod(b, NULL) : 0, vv = v ? g_ascii_strtod(v, NULL) : 0;
        char buf[G_ASCII_DTOSTR_BUF_SIZE] = "";
        if (b && v && *b && *v && bv > 0)
            g_ascii_formatd(buf, sizeof buf, "%.10g", vv / bv - 1.0);
        g_hash_table_insert(rows->pdata[r], g_strdup(column), g_strdup(buf));
    }
}

/* gain_vs_BASELINE_frac (SWEEP_GAIN_METRIC, the cluster utilization) and
 * gain_allocated_vs_BASELINE_frac (the allocated utilization), the names
 * of `ccsim compare`'s summary.csv.  Only when the scheduler is swept and
 * the baseline is among its values. */
static void add_gain(const sweep *sw, table *t, GPtrArray *rows)
{
    bool swept = false;
    for (size_t c = 0; c < sweep_param_count(sw); c++)
        swept = swept || strcmp(sweep_param_column(sw, c), "scheduler") == 0;
    if (!swept)
        return;
    add_gain_column(sw, t, rows, SWEEP_GAIN_METRIC, "gain_vs_" SWEEP_BASELINE "_frac");
    add_gain_column(sw, t, rows, "gpu_util_allocated_frac",
                    "gain_allocated_vs_" SWEEP_BASELINE "_frac");
}

/* Build summary.csv and failed.csv texts from DIR/runs. */
static bool build_summary(const sweep *sw, const char *dir, GString *ok_csv, GString *failed_csv,
                          size_t *n_ok, size_t *n_failed, GError **error)
{
    table ok, bad;
    table_init(&ok);
    table_init(&bad);
    param_columns(sw, &ok);
    param_columns(sw, &bad);
    table_add_column(&bad, "exit_status");
    table_add_column(&bad, "error");
    g_autoptr(GPtrArray) ok_rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_hash_table_unref);
    g_autoptr(GPtrArray) bad_rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_hash_table_unref);
    bool result = true;
    for (size_t i = 0; i < sweep_run_count(sw) && result; i++) {
        g_autofree char *run_dir = sweep__run_dir(dir, sweep_run_name(sw, i));
        g_autofree char *summary = sweep__run_summary(run_dir);
        g_autofree char *err = g_build_filename(run_dir, "error.txt", NULL);
        if (summary) {
            /* The run's own columns, except those the parameters name. */
            table run_cols;
            table_init(&run_cols);
            g_autoptr(GPtrArray) rows = read_rows(summary, &run_cols, error);
            result = rows != NULL;
            GHashTable *row = param_row(sw, i);
            for (size_t c = 0; result && c < run_cols.columns->len; c++) {
                const char *col = run_cols.columns->pdata[c];
                if (g_hash_table_contains(row, col))
                    continue;
                table_add_column(&ok, col);
                const char *v = rows->len > 0 ? g_hash_table_lookup(rows->pdata[0], col) : "";
                g_hash_table_insert(row, g_strdup(col), g_strdup(v));
            }
            table_clear(&run_cols);
            g_ptr_array_add(ok_rows, row);
        } else if (g_file_test(err, G_FILE_TEST_IS_REGULAR)) {
            GHashTable *row = param_row(sw, i);
            char *status, *message;
            read_error(err, &status, &message);
            g_hash_table_insert(row, g_strdup("exit_status"), status);
            g_hash_table_insert(row, g_strdup("error"), message);
            g_ptr_array_add(bad_rows, row);
        }
    }
    if (result) {
        add_gain(sw, &ok, ok_rows);
        table_append_header(&ok, ok_csv);
        for (size_t r = 0; r < ok_rows->len; r++)
            table_append_row(&ok, ok_csv, ok_rows->pdata[r]);
        table_append_header(&bad, failed_csv);
        for (size_t r = 0; r < bad_rows->len; r++)
            table_append_row(&bad, failed_csv, bad_rows->pdata[r]);
        *n_ok = ok_rows->len;
        *n_failed = bad_rows->len;
    }
    table_clear(&ok);
    table_clear(&bad);
    return result;
}

bool sweep_write_summary(const sweep *sw, const char *dir, size_t *finished, size_t *failed,
                         GError **error)
{
    g_return_val_if_fail(sw != NULL && dir != NULL, false);
    int fd = sweep__lock(dir, error);
    if (fd < 0)
        return false;
    g_autoptr(GString) ok_csv = g_string_new(NULL);
    g_autoptr(GString) failed_csv = g_string_new(NULL);
    size_t n_ok = 0, n_failed = 0;
    g_autofree char *ok_path = g_build_filename(dir, "summary.csv", NULL);
    g_autofree char *failed_path = g_build_filename(dir, "failed.csv", NULL);
    bool result = build_summary(sw, dir, ok_csv, failed_csv, &n_ok, &n_failed, error) &&
                  sweep__write_atomic(ok_path, ok_csv->str, error) &&
                  sweep__write_atomic(failed_path, failed_csv->str, error);
    sweep__unlock(fd);
    if (finished)
        *finished = n_ok;
    if (failed)
        *failed = n_failed;
    return result;
}

/* --- Merge --------------------------------------------------------------------- */

void sweep_merge_report_clear(sweep_merge_report *r)
{
    g_clear_pointer(&r->missing, g_ptr_array_unref);
    g_clear_pointer(&r->duplicated, g_ptr_array_unref);
    g_clear_pointer(&r->failed, g_ptr_array_unref);
    r->rows = 0;
}

/* Add the runs of sw to the expected list (in order, once). */
static void add_expected(const sweep *sw, GPtrArray *expected, GHashTable *order)
{
    for (size_t i = 0; i < sweep_run_count(sw); i++) {
        const char *name = sweep_run_name(sw, i);
        if (g_hash_table_contains(order, name))
            continue;
        char *copy = g_strdup(name);
        g_ptr_array_add(expected, copy);
        g_hash_table_insert(order, copy, GSIZE_TO_POINTER(expected->len));
    }
}

/* Failed runs listed in a failed.csv text, name -> "exit status N: error". */
static void add_failed(const char *text, GHashTable *failed)
{
    table t;
    table_init(&t);
    g_autoptr(GPtrArray) rows = text ? rows_from_text(text, "failed.csv", &t, NULL) : NULL;
    for (size_t r = 0; rows && r < rows->len; r++) {
        GHashTable *row = rows->pdata[r];
        const char *name = g_hash_table_lookup(row, "run");
        const char *status = g_hash_table_lookup(row, "exit_status");
        const char *msg = g_hash_table_lookup(row, "error");
        if (name)
            g_hash_table_insert(failed, g_strdup(name),
                                g_strdup_printf("exit status %s: %s", status ? status : "?",
                                                msg ? msg : ""));
    }
    table_clear(&t);
}

/* The summary rows of one sweep folder: rebuilt from DIR/runs when the
 * folder has them (so a summary.csv left stale by a shard that could not
 * lock is not trusted), else DIR/summary.csv.  Adds the folder's runs to
 * expected and its failed runs to failed. */
static GPtrArray *load_dir(const char *dir, GPtrArray *expected, GHashTable *order,
                           GHashTable *failed, table *t, GError **error)
{
    g_autofree char *sweep_path = g_build_filename(dir, "sweep.json", NULL);
    g_autofree char *runs = g_build_filename(dir, "runs", NULL);
    g_autofree char *summary = g_build_filename(dir, "summary.csv", NULL);
    g_autofree char *failed_path = g_build_filename(dir, "failed.csv", NULL);
    g_autoptr(sweep) sw = sweep_load(sweep_path, error);
    if (sw == NULL)
        return NULL;
    add_expected(sw, expected, order);
    if (!g_file_test(runs, G_FILE_TEST_IS_DIR)) {
        g_autofree char *failed_text = NULL;
        if (g_file_get_contents(failed_path, &failed_text, NULL, NULL))
            add_failed(failed_text, failed);
        return read_rows(summary, t, error);
    }
    g_autoptr(GString) ok_csv = g_string_new(NULL);
    g_autoptr(GString) failed_csv = g_string_new(NULL);
    size_t n_ok, n_failed;
    if (!build_summary(sw, dir, ok_csv, failed_csv, &n_ok, &n_failed, error))
        return NULL;
    add_failed(failed_csv->str, failed);
    return rows_from_text(ok_csv->str, summary, t, error);
}

typedef struct merge_row {
    size_t order; /* position among the expected runs, or past them */
    GHashTable *row;
} merge_row;

static int compare_rows(const void *a, const void *b)
{
    const merge_row *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* What a merge gathers from its folders. */
typedef struct merge_state {
    GPtrArray *expected; /* run names in order (char *, owned) */
    GHashTable *order;   /* name -> position + 1 (keys borrowed from expected) */
    GHashTable *failed;  /* name -> "exit status N: error" */
    GHashTable *seen;    /* name -> times seen */
    GPtrArray *tables;   /* the rows of each folder (GPtrArray of GHashTable) */
    GArray *rows;        /* merge_row */
    table columns;
} merge_state;

static void merge_state_init(merge_state *m)
{
    m->expected = g_ptr_array_new_with_free_func(g_free);
    m->order = g_hash_table_new(g_str_hash, g_str_equal);
    m->failed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    m->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    m->tables = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    m->rows = g_array_new(FALSE, FALSE, sizeof(merge_row));
    table_init(&m->columns);
}

static void merge_state_clear(merge_state *m)
{
    table_clear(&m->columns);
    g_array_unref(m->rows);
    g_ptr_array_unref(m->tables);
    g_hash_table_unref(m->seen);
    g_hash_table_unref(m->failed);
    g_hash_table_unref(m->order);
    g_ptr_array_unref(m->expected);
}

/* Add one folder's rows, noting duplicates in report. */
static bool merge_add_dir(merge_state *m, const char *dir, sweep_merge_report *report,
                          GError **error)
{
    GPtrArray *these = load_dir(dir, m->expected, m->order, m->failed, &m->columns, error);
    if (these == NULL)
        return false;
    g_ptr_array_add(m->tables, these);
    for (size_t r = 0; r < these->len; r++) {
        GHashTable *row = these->pdata[r];
        const char *name = g_hash_table_lookup(row, "run");
        if (name == NULL) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s/summary.csv: no 'run' column",
                        dir);
            return false;
        }
        size_t count = GPOINTER_TO_SIZE(g_hash_table_lookup(m->seen, name));
        if (count == 1)
            g_ptr_array_add(report->duplicated, g_strdup(name));
        g_hash_table_insert(m->seen, g_strdup(name), GSIZE_TO_POINTER(count + 1));
        size_t pos = GPOINTER_TO_SIZE(g_hash_table_lookup(m->order, name));
        merge_row mr = {pos ? pos - 1 : G_MAXSIZE, row};
        g_array_append_val(m->rows, mr);
    }
    return true;
}

/* Note the expected runs no folder had; false when any is missing or
 * duplicated. */
static bool merge_check(merge_state *m, sweep_merge_report *report, GError **error)
{
    for (size_t i = 0; i < m->expected->len; i++) {
        const char *name = m->expected->pdata[i];
        if (g_hash_table_contains(m->seen, name))
            continue;
        g_ptr_array_add(report->missing, g_strdup(name));
        const char *why = g_hash_table_lookup(m->failed, name);
        if (why)
            g_ptr_array_add(report->failed, g_strdup_printf("%s: %s", name, why));
    }
    if (report->missing->len == 0 && report->duplicated->len == 0)
        return true;
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%u run(s) missing, %u duplicated",
                report->missing->len, report->duplicated->len);
    return false;
}

char *sweep_merge(const char *const *dirs, size_t n, const char *out_path,
                  sweep_merge_report *report, GError **error)
{
    g_return_val_if_fail(dirs != NULL && report != NULL, NULL);
    report->missing = g_ptr_array_new_with_free_func(g_free);
    report->duplicated = g_ptr_array_new_with_free_func(g_free);
    report->failed = g_ptr_array_new_with_free_func(g_free);
    merge_state m;
    merge_state_init(&m);
    bool ok = true;
    for (size_t d = 0; d < n && ok; d++)
        ok = merge_add_dir(&m, dirs[d], report, error);
    char *text = NULL;
    if (ok && merge_check(&m, report, error)) {
        g_array_sort(m.rows, compare_rows); /* GLib's sort is stable */
        GString *out = g_string_new(NULL);
        table_append_header(&m.columns, out);
        for (size_t r = 0; r < m.rows->len; r++)
            table_append_row(&m.columns, out, g_array_index(m.rows, merge_row, r).row);
        report->rows = m.rows->len;
        text = g_string_free(out, FALSE);
        if (out_path != NULL && strcmp(out_path, "-") != 0 &&
            !sweep__write_atomic(out_path, text, error))
            g_clear_pointer(&text, g_free);
    }
    merge_state_clear(&m);
    return text;
}
