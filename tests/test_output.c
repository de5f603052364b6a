/* test_output.c - suite "output": atomic CSV/JSON files (sim/output.h).
 * Not here: the replay's columns (test_replay.c).
 */
#include "sim/output.h"

#include <glib/gstdio.h>
#include <string.h>
#include <zlib.h>

#include "base/ccs.h"
#include "base/tempfile.h"
#include "test_util.h"

static char *fresh_dir(void)
{
    g_autofree char *base = g_dir_make_tmp("ccsim-output-XXXXXX", NULL);
    return g_build_filename(base, "run", NULL);   /* not there yet */
}

static char *read_file(const char *dir, const char *name)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    char *text = NULL;
    g_file_get_contents(path, &text, NULL, NULL);
    return text;
}

static void remove_tree(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d))) {
        g_autofree char *p = g_build_filename(dir, name, NULL);
        g_unlink(p);
    }
    g_rmdir(dir);
    g_autofree char *parent = g_path_get_dirname(dir);
    g_rmdir(parent);
}

static const char *const columns[] = {"job_id", "gpus", "slowdown", NULL};

/* A row with a comma and a quote in a string is quoted with the quote
 * doubled (RFC 4180), control bytes and the backslash written \xNN; 0.5 prints exactly, 1/3 with 10 significant digits; NaN is
 * an empty cell.  Before commit only the hidden temp file exists. */
static void test_output_csv_commit(void)
{
    GError *err = NULL;
    g_autofree char *dir = fresh_dir();
    output_dir *d = output_dir_open(dir, &err);
    TEST_ASSERT_NO_ERROR(err);
    output_csv *c = output_csv_open(d, "jobs.csv", false, columns, &err);
    TEST_ASSERT_NO_ERROR(err);
    output_csv_str(c, "a,\"b\"");
    output_csv_int(c, 8);
    output_csv_double(c, 0.5);
    CU_ASSERT_TRUE(output_csv_end_row(c, &err));
    output_csv_str(c, "j2");
    output_csv_int(c, -1);
    output_csv_double(c, 1.0 / 3.0);
    CU_ASSERT_TRUE(output_csv_end_row(c, &err));
    output_csv_str(c, "j3");
    output_csv_int(c, 0);
    output_csv_double(c, NAN);
    CU_ASSERT_TRUE(output_csv_end_row(c, &err));
    /* ESC, BEL, a backslash and a newline are written \xNN (docs/usage.md) */
    output_csv_str(c, "e\x1b[2J\a\\\n,x");
    output_csv_int(c, 1);
    output_csv_double(c, 1);
    CU_ASSERT_TRUE(output_csv_end_row(c, &err));

    g_autofree char *before = read_file(dir, "jobs.csv");
    CU_ASSERT_PTR_NULL(before);
    /* the temporary names this process: .jobs.csv.p<pid>h<host>.tmp */
    g_autofree char *final = g_build_filename(dir, "jobs.csv", NULL);
    g_autofree char *tmp_path = ccs_temp_path(final);
    g_autofree char *tag = ccs_temp_tag();
    g_autofree char *want = g_strdup_printf(".jobs.csv.%s.tmp", tag);
    g_autofree char *tmp_base = g_path_get_basename(tmp_path);
    CU_ASSERT_STRING_EQUAL(tmp_base, want);
    g_autofree char *tmp = read_file(dir, tmp_base);
    CU_ASSERT_PTR_NOT_NULL(tmp); /* rows are flushed as they complete */

    CU_ASSERT_TRUE(output_dir_commit(d, &err));
    TEST_ASSERT_NO_ERROR(err);
    g_autofree char *text = read_file(dir, "jobs.csv");
    CU_ASSERT_STRING_EQUAL(text, "job_id,gpus,slowdown\n"
                                 "\"a,\"\"b\"\"\",8,0.5\n"
                                 "j2,-1,0.3333333333\n"
                                 "j3,0,\n"
                                 "\"e\\x1b[2J\\x07\\x5c\\x0a,x\",1,1\n");
    remove_tree(dir);
}

/* A row with the wrong number of cells is an internal error. */
static void test_output_csv_cell_count(void)
{
    GError *err = NULL;
    g_autofree char *dir = fresh_dir();
    output_dir *d = output_dir_open(dir, &err);
    output_csv *c = output_csv_open(d, "x.csv", false, columns, &err);
    output_csv_str(c, "only one");
    CU_ASSERT_FALSE(output_csv_end_row(c, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INTERNAL);
    output_dir_abort(d);
    CU_ASSERT_FALSE(g_file_test(dir, G_FILE_TEST_EXISTS));
    g_autofree char *parent = g_path_get_dirname(dir);
    g_rmdir(parent);
}

/* Abort removes the temp files and the folder it created. */
static void test_output_abort(void)
{
    GError *err = NULL;
    g_autofree char *dir = fresh_dir();
    output_dir *d = output_dir_open(dir, &err);
    output_csv_open(d, "a.csv", false, columns, &err);
    output_csv_open(d, "b.csv", true, columns, &err);
    g_autoptr(cJSON) j = cJSON_CreateObject();
    CU_ASSERT_TRUE(output_json_write(d, "run.json", j, &err));
    TEST_ASSERT_NO_ERROR(err);
    output_dir_abort(d);
    CU_ASSERT_FALSE(g_file_test(dir, G_FILE_TEST_EXISTS));
    g_autofree char *parent = g_path_get_dirname(dir);
    g_rmdir(parent);
}

/* A gzip CSV reads back (through zlib) as the same text; JSON lands too. */
static void test_output_gzip_and_json(void)
{
    GError *err = NULL;
    g_autofree char *dir = fresh_dir();
    output_dir *d = output_dir_open(dir, &err);
    output_csv *c = output_csv_open(d, "ts.csv", true, columns, &err);
    output_csv_str(c, "j1");
    output_csv_int(c, 16);
    output_csv_double(c, 2.25);
    output_csv_end_row(c, &err);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "seed", 7);
    CU_ASSERT_TRUE(output_json_write(d, "run.json", j, &err));
    cJSON_Delete(j);
    CU_ASSERT_TRUE(output_dir_commit(d, &err));
    TEST_ASSERT_NO_ERROR(err);

    g_autofree char *gz_path = g_build_filename(dir, "ts.csv.gz", NULL);
    gzFile gz = gzopen(gz_path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(gz);
    char buf[256] = {0};
    int n = gzread(gz, buf, sizeof buf - 1);
    gzclose(gz);
    CU_ASSERT_EQUAL(n, (int)strlen("job_id,gpus,slowdown\nj1,16,2.25\n"));
    CU_ASSERT_STRING_EQUAL(buf, "job_id,gpus,slowdown\nj1,16,2.25\n");
    g_autofree char *json = read_file(dir, "run.json");
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"seed\":\t7"));
    remove_tree(dir);
}

/* A folder that cannot be created is an I/O error naming it. */
static void test_output_bad_folder(void)
{
    GError *err = NULL;
    output_dir *d = output_dir_open("/proc/ccsim-cannot-exist/run", &err);
    CU_ASSERT_PTR_NULL(d);
    CU_ASSERT(err && strstr(err->message, "/proc/ccsim-cannot-exist/run") != NULL);
    TEST_ASSERT_ERROR(err, CCS_ERROR_IO);
}

/* Floats: whole numbers in full, others with OUTPUT_CSV_DIGITS = 10
 * significant digits, so float noise does not reach the files. */
static void test_output_csv_digits(void)
{
    GError *err = NULL;
    g_autofree char *dir = fresh_dir();
    output_dir *d = output_dir_open(dir, &err);
    const char *const one[] = {"v", NULL};
    output_csv *c = output_csv_open(d, "f.csv", false, one, &err);
    const double v[] = {0.99999999998516909, 4299315.6499960581, 1340697832.0, 1e20,
                        1.5e-7, -0.0, 2.0 / 3.0};
    for (size_t i = 0; i < G_N_ELEMENTS(v); i++) {
        output_csv_double(c, v[i]);
        CU_ASSERT_TRUE(output_csv_end_row(c, &err));
    }
    CU_ASSERT_TRUE(output_dir_commit(d, &err));
    TEST_ASSERT_NO_ERROR(err);
    g_autofree char *text = read_file(dir, "f.csv");
    /* 1e20 is above 2^53: "%.10g"; 2/3 rounds its 10th digit up */
    CU_ASSERT_STRING_EQUAL(text, "v\n1\n4299315.65\n1340697832\n1e+20\n1.5e-07\n0\n"
                                 "0.6666666667\n");
    remove_tree(dir);
}

/* test_output_folder.c */
void test_output_folder_force(void);
void test_output_folder_refusals(void);
/* test_output_lock.c */
void test_output_lock_one_writer(void);
void test_output_lock_shards(void);
void test_output_lock_reclaim(void);
void test_output_lock_next_run_reclaims(void);

int main(void)
{
    CU_TestInfo cases[] = {
        {"csv_commit", test_output_csv_commit},
        {"csv_cell_count", test_output_csv_cell_count},
        {"abort", test_output_abort},
        {"gzip_and_json", test_output_gzip_and_json},
        {"bad_folder", test_output_bad_folder},
        {"csv_digits", test_output_csv_digits},
        {"folder_force", test_output_folder_force},
        {"folder_refusals", test_output_folder_refusals},
        {"lock_one_writer", test_output_lock_one_writer},
        {"lock_shards", test_output_lock_shards},
        {"lock_reclaim", test_output_lock_reclaim},
        {"lock_next_run_reclaims", test_output_lock_next_run_reclaims},
        CU_TEST_INFO_NULL,
    };
    return test_run_suite("output", cases);
}
