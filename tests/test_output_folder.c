/* test_output_folder.c - suite "output": whole result folders that never mix
 * (sim/output_folder.h, output_dir_open_new).  Not here: the files (test_output.c).
 */
#include <glib/gstdio.h>
#include <string.h>

#include "base/ccs.h"
#include "sim/output.h"
#include "sim/output_folder.h"
#include "test_util.h"

static const char *const cols[] = {"x", NULL};

static bool write_one(const char *path, bool force, int value, bool commit, GError **err)
{
    output_dir *d = output_dir_open_new(path, force, NULL, err);
    if (!d)
        return false;
    output_csv *c = output_csv_open(d, "a.csv", false, cols, err);
    output_csv_int(c, value);
    output_csv_end_row(c, err);
    if (!commit) {
        output_dir_abort(d);
        return false;
    }
    return output_dir_commit(d, err);
}

static char *slurp(const char *dir, const char *name)
{
    g_autofree char *p = g_build_filename(dir, name, NULL);
    char *text = NULL;
    g_file_get_contents(p, &text, NULL, NULL);
    return text;
}

/* The parent holds only the named folder: no staging or old copy left. */
static int entries(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    int n = 0;
    while (d && g_dir_read_name(d))
        n++;
    return n;
}

/* New folder: written.  Again without force: refused, the old file intact.
 * With force: the folder is replaced whole (a stray file the user put
 * there is gone).  An aborted forced run leaves the old folder as it was. */
void test_output_folder_force(void)
{
    GError *err = NULL;
    g_autofree char *base = g_dir_make_tmp("ccsim-folder-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(base, "run", NULL);
    CU_ASSERT_TRUE(write_one(path, false, 1, true, &err));
    TEST_ASSERT_NO_ERROR(err);
    g_autofree char *stray = g_build_filename(path, "stray.txt", NULL);
    g_file_set_contents(stray, "x", -1, NULL);

    CU_ASSERT_FALSE(write_one(path, false, 2, true, &err));
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    g_autofree char *a1 = slurp(path, "a.csv");
    CU_ASSERT_STRING_EQUAL(a1, "x\n1\n");

    CU_ASSERT_FALSE(write_one(path, true, 3, false, &err)); /* aborted */
    g_autofree char *a2 = slurp(path, "a.csv");
    CU_ASSERT_STRING_EQUAL(a2, "x\n1\n");
    CU_ASSERT_EQUAL(entries(base), 1);

    CU_ASSERT_TRUE(write_one(path, true, 4, true, &err));
    TEST_ASSERT_NO_ERROR(err);
    g_autofree char *a3 = slurp(path, "a.csv");
    CU_ASSERT_STRING_EQUAL(a3, "x\n4\n");
    CU_ASSERT_FALSE(g_file_test(stray, G_FILE_TEST_EXISTS));
    CU_ASSERT_EQUAL(entries(base), 1);
    CU_ASSERT_TRUE(output_folder_remove(base, &err));
    CU_ASSERT_FALSE(g_file_test(base, G_FILE_TEST_EXISTS));
}

/* An empty folder is used as is, so is one holding only the run's own
 * scenario file (a sweep's run folder); a file in the way and the protected
 * folders ("/", home, the working directory and its parent) are refused
 * even with force. */
void test_output_folder_refusals(void)
{
    GError *err = NULL;
    g_autofree char *base = g_dir_make_tmp("ccsim-folder-XXXXXX", NULL);
    CU_ASSERT_EQUAL(output_folder_check(base, false, NULL, &err), OUTPUT_FOLDER_EMPTY);
    g_autofree char *file = g_build_filename(base, "f", NULL);
    g_file_set_contents(file, "x", -1, NULL);
    CU_ASSERT_EQUAL(output_folder_check(file, true, NULL, &err), OUTPUT_FOLDER_REFUSED);
    TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    CU_ASSERT_EQUAL(output_folder_check(base, false, file, &err), OUTPUT_FOLDER_EMPTY);
    CU_ASSERT_EQUAL(output_folder_check(base, false, NULL, &err), OUTPUT_FOLDER_REFUSED);
    CU_ASSERT(err && strstr(err->message, "--force") != NULL);
    g_clear_error(&err);

    g_autofree char *cwd = g_get_current_dir();
    CU_ASSERT_EQUAL(g_chdir(base), 0);
    const char *protect[] = {"/", ".", "..", g_get_home_dir()};
    for (size_t i = 0; i < G_N_ELEMENTS(protect); i++) {
        CU_ASSERT_EQUAL(output_folder_check(protect[i], true, NULL, &err), OUTPUT_FOLDER_REFUSED);
        TEST_ASSERT_ERROR(err, CCS_ERROR_INVALID);
    }
    CU_ASSERT_EQUAL(g_chdir(cwd), 0);
    CU_ASSERT_EQUAL(output_folder_check(base, true, NULL, &err), OUTPUT_FOLDER_REPLACE);
    output_folder_remove(base, NULL);
}
