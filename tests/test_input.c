/* test_input.c - suite "input": whole input files, plain or gzip, bounded
 * and checked (base/input.h).  Not here: the parsers reading them.
 */
#include "base/input.h"

#include <glib/gstdio.h>
#include <string.h>
#include <zlib.h>

#include "base/ccs.h"
#include "test_util.h"

/* text gzipped as one member (zlib's gzip wrapper, level 6). */
static GByteArray *gz_of(const char *text, size_t n)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    g_assert(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    GByteArray *out = g_byte_array_new();
    guint8 buf[4096];
    zs.next_in = (Bytef *)text;
    zs.avail_in = (uInt)n;
    int rc;
    do {
        zs.next_out = buf;
        zs.avail_out = sizeof buf;
        rc = deflate(&zs, Z_FINISH);
        g_byte_array_append(out, buf, (guint)(sizeof buf - zs.avail_out));
    } while (rc != Z_STREAM_END);
    deflateEnd(&zs);
    return out;
}

static GBytes *decode(const GByteArray *a, bool text, size_t max, GError **e)
{
    g_autoptr(GBytes) in = g_bytes_new(a->data, a->len);
    return ccs_input_decode_max(in, "f.csv.gz", text, max, e);
}

/* Plain bytes come back as they are; one gzip member and two concatenated
 * members ("a,b\n" + "1,2\n") inflate to their text, NUL-terminated. */
static void test_input_plain_and_gzip(void)
{
    GError *e = NULL;
    g_autoptr(GByteArray) plain = g_byte_array_new();
    g_byte_array_append(plain, (const guint8 *)"x,y\n", 4);
    g_autoptr(GBytes) p = decode(plain, true, 100, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_STRING_EQUAL(g_bytes_get_data(p, NULL), "x,y\n");
    g_autoptr(GByteArray) two = gz_of("a,b\n", 4);
    g_autoptr(GByteArray) second = gz_of("1,2\n", 4);
    g_byte_array_append(two, second->data, second->len);
    g_autoptr(GBytes) t = decode(two, true, 100, &e);
    TEST_ASSERT_NO_ERROR(e);
    size_t n = 0;
    CU_ASSERT_STRING_EQUAL(g_bytes_get_data(t, &n), "a,b\n1,2\n");
    CU_ASSERT_EQUAL(n, 8);
}

/* Bytes after the last member that are not a member: refused, counted. */
static void test_input_trailing_garbage(void)
{
    GError *e = NULL;
    g_autoptr(GByteArray) a = gz_of("a,b\n", 4);
    g_byte_array_append(a, (const guint8 *)"junk!", 5);
    g_autoptr(GBytes) t = decode(a, true, 100, &e);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "f.csv.gz: 5 bytes of trailing data after the gzip stream");
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
}

/* A member cut short, and a corrupt one, are I/O errors. */
static void test_input_truncated(void)
{
    GError *e = NULL;
    g_autoptr(GByteArray) a = gz_of("hello, world\n", 13);
    g_byte_array_set_size(a, a->len - 6); /* drop most of the CRC/size trailer */
    g_autoptr(GBytes) t = decode(a, true, 100, &e);
    CU_ASSERT_PTR_NULL(t);
    TEST_ASSERT_ERROR(e, CCS_ERROR_IO);
    g_autoptr(GByteArray) b = gz_of("hello, world\n", 13);
    b->data[12] ^= 0xff; /* inside the deflate data */
    g_autoptr(GBytes) u = decode(b, true, 100, &e);
    CU_ASSERT_PTR_NULL(u);
    CU_ASSERT_PTR_NOT_NULL(e);
    g_clear_error(&e);
}

/* 10,000 newlines compress to a few dozen bytes: with a 1,000-byte limit
 * the inflation stops at the limit (the 300 MB of blank lines);
 * exactly the limit is fine. */
static void test_input_bounded(void)
{
    GError *e = NULL;
    g_autofree char *nl = g_strnfill(10000, '\n');
    g_autoptr(GByteArray) a = gz_of(nl, 10000);
    CU_ASSERT(a->len < 200);
    g_autoptr(GBytes) t = decode(a, true, 1000, &e);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message,
                           "f.csv.gz: inflates to more than 1000 bytes, the limit of one input file");
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    g_autoptr(GBytes) ok = decode(a, true, 10000, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_EQUAL(g_bytes_get_size(ok), 10000);
    g_autoptr(GByteArray) plain = g_byte_array_new();
    g_byte_array_append(plain, (const guint8 *)nl, 1001);
    g_autoptr(GBytes) p = decode(plain, true, 1000, &e);
    CU_ASSERT_PTR_NULL(p);
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
}

/* A NUL byte in text: refused with its line (line 2, byte 5); the same
 * bytes read as binary pass. */
static void test_input_nul(void)
{
    GError *e = NULL;
    g_autoptr(GByteArray) a = g_byte_array_new();
    g_byte_array_append(a, (const guint8 *)"a,b\nc\0d\n", 8);
    g_autoptr(GBytes) t = decode(a, true, 100, &e);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "f.csv.gz:2: a NUL byte (byte 6): not a text file");
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    g_autoptr(GBytes) b = decode(a, false, 100, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_EQUAL(g_bytes_get_size(b), 8);
}

/* A missing file: I/O error naming it. */
static void test_input_missing(void)
{
    GError *e = NULL;
    g_autoptr(GBytes) t = ccs_input_read("/nonexistent/x.csv", true, &e);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_TRUE(g_str_has_prefix(e->message, "/nonexistent/x.csv: cannot read: "));
    TEST_ASSERT_ERROR(e, CCS_ERROR_IO);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"plain_and_gzip", test_input_plain_and_gzip},
        {"trailing_garbage", test_input_trailing_garbage},
        {"truncated", test_input_truncated},
        {"bounded", test_input_bounded},
        {"nul", test_input_nul},
        {"missing", test_input_missing},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("input", cases);
}
