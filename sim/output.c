/* output.c - atomic CSV/JSON result files (output.h, docs/usage.md).
 * Not here: which files a replay writes (replay_output.c).
 */
#include "output.h"

#include <errno.h>
#include <math.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "base/ccs.h"
#include "base/tempfile.h"
#include "output_folder.h"
#include "output_lock.h"

struct output_csv {
    output_dir *dir;
    char *final_path, *tmp_path;
    FILE *plain;        /* exactly one of plain and gz is open */
    gzFile gz;
    size_t n_columns;
    size_t n_cells;     /* cells in the row being built */
    GString *row;
};

struct output_dir {
    char *path;
    bool created;       /* output_dir_open made the folder: abort removes it */
    GPtrArray *csvs;    /* output_csv*, owned */
    GPtrArray *tmp_done;/* temp paths of files already closed (JSON), char* */
    GPtrArray *final_done;
    char *target;       /* output_dir_open_new: where path (staging) goes at commit */
    output_lock *lock;  /* output_dir_open_new: the folder's lock, held to the end */
};

static void csv_close_stream(output_csv *c)
{
    if (c->plain)
        fclose(c->plain);
    if (c->gz)
        gzclose(c->gz);
    c->plain = NULL;
    c->gz = NULL;
}

static void csv_free(gpointer p)
{
    output_csv *c = p;
    csv_close_stream(c);
    g_free(c->final_path);
    g_free(c->tmp_path);
    g_string_free(c->row, TRUE);
    g_free(c);
}

/* DIR/.NAME.TAG.tmp: the tag names this process, so a later run can
 * remove it once this one is gone (base/tempfile.h). */
static char *tmp_path_for(const output_dir *d, const char *name)
{
    g_autofree char *final = g_build_filename(d->path, name, NULL);
    return ccs_temp_path(final);
}

output_dir *output_dir_open(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    bool existed = g_file_test(path, G_FILE_TEST_IS_DIR);
    if (!existed && g_mkdir_with_parents(path, 0755) != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot create folder: %s", path,
                    g_strerror(errno));
        return NULL;
    }
    output_dir *d = g_new0(output_dir, 1);
    d->path = g_strdup(path);
    d->created = !existed;
    d->csvs = g_ptr_array_new_with_free_func(csv_free);
    d->tmp_done = g_ptr_array_new_with_free_func(g_free);
    d->final_done = g_ptr_array_new_with_free_func(g_free);
    return d;
}

output_dir *output_dir_open_new(const char *path, bool force, const char *except,
                                GError **error)
{
    /* one writer per folder; then what dead writers left is removed */
    g_autoptr(output_lock) lock = output_lock_take(path, error);
    if (!lock)
        return NULL;
    g_autofree char *parent = g_path_get_dirname(path);
    ccs_temp_reclaim(parent);
    ccs_temp_reclaim(path);
    output_folder_state st = output_folder_check(path, force, except, error);
    if (st == OUTPUT_FOLDER_REFUSED)
        return NULL;
    output_dir *d = NULL;
    if (st == OUTPUT_FOLDER_EMPTY) {
        d = output_dir_open(path, error);
    } else {
        g_autofree char *staging = output_folder_stage(path, error);
        d = staging ? output_dir_open(staging, error) : NULL;
        if (d)
            d->target = g_strdup(path);
    }
    if (d)
        d->lock = g_steal_pointer(&lock);
    return d;
}

const char *output_dir_path(const output_dir *d) { return d->path; }

static bool csv_write(output_csv *c, const char *text, size_t len, GError **error)
{
    bool ok;
    if (c->gz)
        ok = gzwrite(c->gz, text, (unsigned)len) == (int)len && gzflush(c->gz, Z_SYNC_FLUSH) == Z_OK;
    else
        ok = fwrite(text, 1, len, c->plain) == len && fflush(c->plain) == 0;
    if (!ok)
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: write failed: %s", c->final_path,
                    g_strerror(errno));
    return ok;
}

output_csv *output_csv_open(output_dir *d, const char *name, bool gzip,
                            const char *const *columns, GError **error)
{
    g_return_val_if_fail(d != NULL && name != NULL && columns != NULL && columns[0], NULL);
    g_autofree char *file_name = gzip ? g_strconcat(name, ".gz", NULL) : g_strdup(name);
    output_csv *c = g_new0(output_csv, 1);
    c->dir = d;
    c->final_path = g_build_filename(d->path, file_name, NULL);
    c->tmp_path = tmp_path_for(d, file_name);
    c->row = g_string_new(NULL);
    if (gzip)
        c->gz = gzopen(c->tmp_path, "wb6");
    else
        c->plain = fopen(c->tmp_path, "w");
    if (!c->gz && !c->plain) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot write: %s", c->tmp_path,
                    g_strerror(errno));
        csv_free(c);
        return NULL;
    }
    g_ptr_array_add(d->csvs, c);
    for (const char *const *col = columns; *col; col++)
        output_csv_str(c, *col);
    c->n_columns = c->n_cells;
    if (!output_csv_end_row(c, error))
        return NULL; /* c stays owned by d; abort or commit cleans it */
    return c;
}

static void begin_cell(output_csv *c)
{
    if (c->n_cells++ > 0)
        g_string_append_c(c->row, ',');
}

/* Control bytes (0x01-0x1f, 0x7f) and the backslash are written \xNN:
 * an id holding ESC or BEL cannot reach a terminal that shows the file,
 * a newline cannot split a row, and the escape reads back one way. */
static bool needs_escape(unsigned char ch) { return ch < 0x20 || ch == 0x7f || ch == '\\'; }

void output_csv_str(output_csv *c, const char *s)
{
    begin_cell(c);
    if (s == NULL)
        return;
    bool quote = strpbrk(s, ",\"") != NULL, escape = false;
    for (const unsigned char *p = (const unsigned char *)s; *p && !escape; p++)
        escape = needs_escape(*p);
    if (!quote && !escape) {
        g_string_append(c->row, s);
        return;
    }
    if (quote)
        g_string_append_c(c->row, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (needs_escape(*p))
            g_string_append_printf(c->row, "\\x%02x", *p);
        else if (*p == '"')
            g_string_append(c->row, "\"\"");
        else
            g_string_append_c(c->row, (char)*p);
    }
    if (quote)
        g_string_append_c(c->row, '"');
}

void output_csv_int(output_csv *c, int64_t v)
{
    begin_cell(c);
    g_string_append_printf(c->row, "%" G_GINT64_FORMAT, (gint64)v);
}

void output_format_double(double v, char buf[G_ASCII_DTOSTR_BUF_SIZE])
{
    buf[0] = '\0';
    if (!isfinite(v))
        return;
    /* A whole number (a byte or GPU count) prints in full; anything else
     * with the digits the model carries, so float noise such as
     * 0.99999999998516909 reads 1. */
    if (v == nearbyint(v) && fabs(v) < 0x1p53)
        g_ascii_formatd(buf, G_ASCII_DTOSTR_BUF_SIZE, "%.0f", v);
    else
        g_ascii_formatd(buf, G_ASCII_DTOSTR_BUF_SIZE, "%." G_STRINGIFY(OUTPUT_CSV_DIGITS) "g", v);
    if (strcmp(buf, "-0") == 0)
        strcpy(buf, "0");
}

void output_csv_double(output_csv *c, double v)
{
    begin_cell(c);
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    output_format_double(v, buf);
    g_string_append(c->row, buf);
}

bool output_csv_end_row(output_csv *c, GError **error)
{
    size_t cells = c->n_cells;
    c->n_cells = 0;
    if (c->n_columns != 0 && cells != c->n_columns) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL, "%s: row has %zu cells, expected %zu",
                    c->final_path, cells, c->n_columns);
        g_string_truncate(c->row, 0);
        return false;
    }
    g_string_append_c(c->row, '\n');
    bool ok = csv_write(c, c->row->str, c->row->len, error);
    g_string_truncate(c->row, 0);
    return ok;
}

bool output_json_write(output_dir *d, const char *name, const cJSON *json, GError **error)
{
    g_autofree char *text = cJSON_Print(json);
    if (text == NULL) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL, "%s: cannot format JSON", name);
        return false;
    }
    g_autofree char *with_newline = g_strconcat(text, "\n", NULL);
    return output_text_write(d, name, with_newline, strlen(with_newline), error);
}

bool output_text_write(output_dir *d, const char *name, const char *text, size_t len,
                       GError **error)
{
    char *tmp = tmp_path_for(d, name);
    char *final = g_build_filename(d->path, name, NULL);
    g_ptr_array_add(d->tmp_done, tmp);
    g_ptr_array_add(d->final_done, final);
    return ccs_write_whole(tmp, text, len, final, error);
}

static void remove_folder_if_created(output_dir *d)
{
    if (d->created)
        g_rmdir(d->path); /* fails, harmlessly, if the user put files there */
}

static void dir_free(output_dir *d)
{
    g_ptr_array_unref(d->csvs);
    g_ptr_array_unref(d->tmp_done);
    g_ptr_array_unref(d->final_done);
    g_free(d->path);
    g_free(d->target);
    output_lock_release(d->lock);
    g_free(d);
}

void output_dir_abort(output_dir *d)
{
    if (d == NULL)
        return;
    for (guint i = 0; i < d->csvs->len; i++) {
        output_csv *c = g_ptr_array_index(d->csvs, i);
        csv_close_stream(c);
        g_unlink(c->tmp_path);
    }
    for (guint i = 0; i < d->tmp_done->len; i++)
        g_unlink(g_ptr_array_index(d->tmp_done, i));
    if (d->target)
        output_folder_remove(d->path, NULL); /* staging, with any subfolders */
    else
        remove_folder_if_created(d);
    dir_free(d);
}

static bool rename_into_place(const char *tmp, const char *final, GError **error)
{
    if (g_rename(tmp, final) == 0)
        return true;
    g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot rename into place: %s", final,
                g_strerror(errno));
    return false;
}

bool output_dir_commit(output_dir *d, GError **error)
{
    g_return_val_if_fail(d != NULL, false);
    /* Close everything first so a close error (gzip trailer, full disk)
     * aborts before any file is renamed. */
    for (guint i = 0; i < d->csvs->len; i++) {
        output_csv *c = g_ptr_array_index(d->csvs, i);
        errno = 0;
        int rc = c->gz ? gzclose(c->gz) : fclose(c->plain);
        c->gz = NULL;
        c->plain = NULL;
        if (rc != 0) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot close: %s", c->final_path,
                        g_strerror(errno ? errno : EIO));
            output_dir_abort(d);
            return false;
        }
    }
    for (guint i = 0; i < d->csvs->len; i++) {
        output_csv *c = g_ptr_array_index(d->csvs, i);
        if (!rename_into_place(c->tmp_path, c->final_path, error)) {
            output_dir_abort(d);
            return false;
        }
    }
    for (guint i = 0; i < d->tmp_done->len; i++)
        if (!rename_into_place(g_ptr_array_index(d->tmp_done, i),
                               g_ptr_array_index(d->final_done, i), error)) {
            output_dir_abort(d);
            return false;
        }
    bool ok = !d->target || output_folder_install(d->path, d->target, error);
    dir_free(d);
    return ok;
}
