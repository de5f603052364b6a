/* csv.c - reading files (plain or gzip), RFC 4180 records, Lingjun timestamps.
 * Not here: what the columns mean (lingjun.c, summary.c, gen_rows.c).
 */
#include "traces-private.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <string.h>

#include "base/ccs.h"
#include "trace-resources.h"

/* ---- bytes ---------------------------------------------------------- */

/* 0 when path is a file (or a link to one); else why not: ENOENT,
 * EISDIR for a folder, ELOOP for a link loop, ... */
static int file_problem(const char *path)
{
    GStatBuf st;
    if (g_stat(path, &st) != 0)
        return errno;
    return S_ISDIR(st.st_mode) ? EISDIR : S_ISREG(st.st_mode) ? 0 : EINVAL;
}

static void set_problem(GError **error, const char *path, int err)
{
    if (err == EISDIR)
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: a folder, not a file", path);
    else if (err == EINVAL)
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: not a regular file", path);
    else
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot read: %s", path, g_strerror(err));
}

char *trace__find_file(const char *dir, const char *base, GError **error)
{
    g_autofree char *plain = g_build_filename(dir, base, NULL);
    g_autofree char *gz = g_strconcat(plain, ".gz", NULL);
    int p = file_problem(plain), z = file_problem(gz);
    if (p == 0 && z == 0) { /* which one is the trace cannot be told */
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s and %s both exist: keep one (they may differ)", plain, gz);
        return NULL;
    }
    if (p == 0)
        return g_steal_pointer(&plain);
    if (z == 0)
        return g_steal_pointer(&gz);
    if (p == ENOENT && z == ENOENT)
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: no such file (nor %s.gz)", plain, base);
    else
        set_problem(error, p != ENOENT ? plain : gz, p != ENOENT ? p : z);
    return NULL;
}

GBytes *trace__resource_bytes(const char *path, GError **error)
{
    GResource *res = trace_resources_get_resource();
    GError *e = NULL;
    GBytes *b = g_resource_lookup_data(res, path, G_RESOURCE_LOOKUP_FLAGS_NONE, &e);
    if (!b) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL, "embedded resource %s: %s", path,
                    e->message);
        g_error_free(e);
    }
    return b;
}

/* ---- CSV ------------------------------------------------------------ */

void trace__csv_init(trace__csv *r, const char *buf, size_t len, const char *name)
{
    memset(r, 0, sizeof *r);
    r->buf = buf;
    r->len = len;
    r->line = 1;
    r->name = name;
    r->fields = g_ptr_array_new_with_free_func(g_free);
}

void trace__csv_clear(trace__csv *r)
{
    if (r->fields)
        g_ptr_array_unref(r->fields);
    r->fields = NULL;
}

/* Skip to just after the next line end (error recovery). */
static void skip_line(trace__csv *r)
{
    while (r->pos < r->len && r->buf[r->pos] != '\n')
        r->pos++;
    if (r->pos < r->len) {
        r->pos++;
        r->line++;
    }
}

int trace__csv_next(trace__csv *r, GError **error)
{
    g_ptr_array_set_size(r->fields, 0);
    /* blank lines */
    while (r->pos < r->len) {
        char c = r->buf[r->pos];
        if (c == '\n') {
            r->pos++;
            r->line++;
        } else if (c == '\r' && r->pos + 1 < r->len && r->buf[r->pos + 1] == '\n') {
            r->pos += 2;
            r->line++;
        } else {
            break;
        }
    }
    if (r->pos >= r->len)
        return 0;
    r->rec_line = r->line;
    g_autoptr(GString) field = g_string_sized_new(64);
    for (;;) {
        g_string_truncate(field, 0);
        if (r->pos < r->len && r->buf[r->pos] == '"') {
            size_t qline = r->line;
            r->pos++;
            for (;;) {
                if (r->pos >= r->len) {
                    g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                                "%s:%zu: unterminated quoted field (opened on line %zu)", r->name,
                                r->rec_line, qline);
                    g_ptr_array_set_size(r->fields, 0);
                    return -1;
                }
                char c = r->buf[r->pos++];
                if (c == '"') {
                    if (r->pos < r->len && r->buf[r->pos] == '"') {
                        g_string_append_c(field, '"');
                        r->pos++;
                        continue;
                    }
                    break;
                }
                if (c == '\n')
                    r->line++;
                g_string_append_c(field, c);
            }
            if (r->pos < r->len && r->buf[r->pos] != ',' && r->buf[r->pos] != '\n' &&
                !(r->buf[r->pos] == '\r' && (r->pos + 1 >= r->len || r->buf[r->pos + 1] == '\n'))) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                            "%s:%zu: unexpected character '%c' after a closing quote", r->name,
                            r->line, r->buf[r->pos]);
                g_ptr_array_set_size(r->fields, 0);
                skip_line(r);
                return -1;
            }
        } else {
            while (r->pos < r->len) {
                char c = r->buf[r->pos];
                if (c == ',' || c == '\n' ||
                    (c == '\r' && (r->pos + 1 >= r->len || r->buf[r->pos + 1] == '\n')))
                    break;
                if (c == '"') {
                    g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                                "%s:%zu: a quote inside an unquoted field (field %u)", r->name,
                                r->line, r->fields->len + 1);
                    g_ptr_array_set_size(r->fields, 0);
                    skip_line(r);
                    return -1;
                }
                g_string_append_c(field, c);
                r->pos++;
            }
        }
        g_ptr_array_add(r->fields, g_strndup(field->str, field->len));
        if (r->pos >= r->len)
            return 1;
        char c = r->buf[r->pos];
        if (c == ',') {
            r->pos++;
            continue;
        }
        if (c == '\r')
            r->pos++;
        r->pos++; /* '\n' (or end) */
        r->line++;
        return 1;
    }
}

void trace__csv_append_field(GString *out, const char *field)
{
    if (strpbrk(field, ",\"\r\n") == NULL) {
        g_string_append(out, field);
        return;
    }
    g_string_append_c(out, '"');
    for (const char *p = field; *p; p++) {
        if (*p == '"')
            g_string_append_c(out, '"');
        g_string_append_c(out, *p);
    }
    g_string_append_c(out, '"');
}

/* ---- time ----------------------------------------------------------- */

/* Howard Hinnant's days_from_civil (proleptic Gregorian). */
int64_t trace__days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void trace__civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yy + (*m <= 2);
}

/* Read 1..maxd digits; false if none. */
static bool digits(const char **p, int mind, int maxd, int *out)
{
    int v = 0, n = 0;
    while (n < maxd && **p >= '0' && **p <= '9') {
        v = v * 10 + (**p - '0');
        (*p)++;
        n++;
    }
    *out = v;
    return n >= mind;
}

static int days_in_month(int y, int m)
{
    static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : dm[m - 1];
}

bool trace__time_parse(const char *s, int64_t *unix_s)
{
    const char *p = s;
    int y, mo, d, h, mi, sec = 0;
    if (!digits(&p, 4, 4, &y) || *p++ != '/' || !digits(&p, 1, 2, &mo) || *p++ != '/' ||
        !digits(&p, 1, 2, &d) || *p++ != ' ' || !digits(&p, 1, 2, &h) || *p++ != ':' ||
        !digits(&p, 2, 2, &mi))
        return false;
    if (*p == ':') {
        p++;
        if (!digits(&p, 2, 2, &sec))
            return false;
    }
    if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 ||
        mi > 59 || sec > 59)
        return false;
    *unix_s = trace__days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
              TRACE__TZ_OFFSET_S;
    return true;
}

void trace__time_format(int64_t unix_s, char out[32])
{
    int64_t local = unix_s + TRACE__TZ_OFFSET_S;
    int64_t days = local >= 0 ? local / 86400 : -((-local + 86399) / 86400);
    int64_t sod = local - days * 86400;
    int64_t y;
    int m, d;
    trace__civil_from_days(days, &y, &m, &d);
    g_snprintf(out, 32, "%" G_GINT64_FORMAT "/%d/%d %02d:%02d", y, m, d, (int)(sod / 3600),
               (int)(sod % 3600 / 60));
}
