/* input.c - whole input files, plain or gzip, bounded and checked
 * (input.h).  Not here: parsing them.
 */
#include "input.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "ccs.h"
#include "limits.h"

static bool is_gzip(const guint8 *p, size_t n) { return n >= 2 && p[0] == 0x1f && p[1] == 0x8b; }

static size_t input_cap(void) { return (size_t)ccs_limit_get(CCS_LIMIT_INPUT_BYTES)->max; }

static void set_too_large(const char *name, const char *what, size_t cap, GError **error)
{
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "%s: %s more than %zu bytes, the limit of one input file", name, what, cap);
}

/* Inflate p[0..n) (one or more gzip members) into out, at most the cap. */
static bool gunzip(const guint8 *p, size_t n, const char *name, size_t cap, GByteArray *out,
                   GError **error)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 16) != Z_OK) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INTERNAL, "%s: zlib: cannot initialise", name);
        return false;
    }
    guint8 chunk[65536];
    zs.next_in = (Bytef *)p;
    zs.avail_in = (uInt)n;
    bool ok = true;
    for (;;) {
        zs.next_out = chunk;
        zs.avail_out = sizeof chunk;
        int rc = inflate(&zs, Z_NO_FLUSH);
        size_t got = sizeof chunk - zs.avail_out;
        if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && zs.avail_in == 0)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: gzip: %s", name,
                        zs.msg ? zs.msg : "corrupt data");
            ok = false;
            break;
        }
        if (out->len + got > cap) {
            set_too_large(name, "inflates to", cap, error);
            ok = false;
            break;
        }
        g_byte_array_append(out, chunk, (guint)got);
        if (rc == Z_STREAM_END) {
            if (zs.avail_in == 0)
                break;
            if (!is_gzip(zs.next_in, zs.avail_in)) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "%s: %u bytes of trailing data after the gzip stream", name,
                            zs.avail_in);
                ok = false;
                break;
            }
            inflateReset(&zs); /* the next of concatenated members */
        } else if (zs.avail_in == 0 && got == 0) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: gzip: truncated data", name);
            ok = false;
            break;
        }
    }
    inflateEnd(&zs);
    return ok;
}

/* A NUL byte in text: error naming its line. */
static bool check_no_nul(const guint8 *p, size_t n, const char *name, GError **error)
{
    const guint8 *nul = n ? memchr(p, 0, n) : NULL; /* p may be NULL when n == 0 */
    if (!nul)
        return true;
    size_t line = 1;
    for (const guint8 *q = p; q < nul; q++)
        line += *q == '\n';
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "%s:%zu: a NUL byte (byte %zu): not a text file", name, line,
                (size_t)(nul - p) + 1);
    return false;
}

GBytes *ccs_input_decode_max(GBytes *data, const char *name, bool text, size_t max_bytes,
                             GError **error)
{
    size_t n = 0;
    const guint8 *p = g_bytes_get_data(data, &n);
    g_autoptr(GByteArray) out = g_byte_array_new();
    if (!is_gzip(p, n)) {
        if (n > max_bytes) {
            set_too_large(name, "holds", max_bytes, error);
            return NULL;
        }
        g_byte_array_append(out, p ? p : (const guint8 *)"", (guint)n);
    } else if (!gunzip(p, n, name, max_bytes, out, error)) {
        return NULL;
    }
    if (text && !check_no_nul(out->data, out->len, name, error))
        return NULL;
    size_t len = out->len;
    guint8 nul = 0;
    g_byte_array_append(out, &nul, 1);
    GBytes *all = g_byte_array_free_to_bytes(g_steal_pointer(&out));
    GBytes *res = g_bytes_new_from_bytes(all, 0, len);
    g_bytes_unref(all);
    return res;
}

GBytes *ccs_input_decode(GBytes *data, const char *name, bool text, GError **error)
{
    return ccs_input_decode_max(data, name, text, input_cap(), error);
}

GBytes *ccs_input_read(const char *path, bool text, GError **error)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot read: %s", path,
                    g_strerror(errno));
        return NULL;
    }
    /* read in chunks, so a device or pipe that never ends stops at the cap */
    g_autoptr(GByteArray) raw = g_byte_array_new();
    guint8 chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (raw->len + n > input_cap()) {
            fclose(f);
            set_too_large(path, "holds", input_cap(), error);
            return NULL;
        }
        g_byte_array_append(raw, chunk, (guint)n);
    }
    bool failed = ferror(f) != 0;
    int err = errno;
    fclose(f);
    if (failed) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot read: %s", path,
                    g_strerror(err));
        return NULL;
    }
    g_autoptr(GBytes) bytes = g_byte_array_free_to_bytes(g_steal_pointer(&raw));
    return ccs_input_decode(bytes, path, text, error);
}
