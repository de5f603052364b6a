/* output_folder.c - refuse non-empty result folders, stage and swap them in
 * whole (output_folder.h).  Not here: writing the files (output.c).
 */
#include "output_folder.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/ccs.h"
#include "base/tempfile.h"

/* path holds nothing, or only the file except (nullable; any path). */
static bool folder_is_empty(const char *path, const char *except)
{
    g_autofree char *real = realpath(path, NULL);
    g_autofree char *except_dir = except ? g_path_get_dirname(except) : NULL;
    g_autofree char *except_real = except_dir ? realpath(except_dir, NULL) : NULL;
    g_autofree char *except_name = except ? g_path_get_basename(except) : NULL;
    bool skip = real && except_real && strcmp(real, except_real) == 0;
    g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
    for (const char *n; d && (n = g_dir_read_name(d));)
        if (!skip || strcmp(n, except_name) != 0)
            return false;
    return d != NULL;
}

/* path names the folder of real path p or one of its parents. */
static bool holds(const char *dir, const char *p)
{
    size_t n = strlen(dir);
    return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/' || strcmp(dir, "/") == 0);
}

/* "/", the home folder, the working directory and its parents. */
static bool protected_folder(const char *path)
{
    g_autofree char *real = realpath(path, NULL);
    g_autofree char *cwd = g_get_current_dir();
    g_autofree char *cwd_real = realpath(cwd, NULL);
    g_autofree char *home = realpath(g_get_home_dir(), NULL);
    if (!real)
        return true; /* cannot tell: do not delete */
    return strcmp(real, "/") == 0 || (home && strcmp(real, home) == 0) ||
           (cwd_real && holds(real, cwd_real));
}

output_folder_state output_folder_check(const char *path, bool force, const char *except,
                                        GError **error)
{
    GStatBuf st;
    if (g_lstat(path, &st) != 0)
        return OUTPUT_FOLDER_NEW;
    if (!S_ISDIR(st.st_mode)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: exists and is not a folder", path);
        return OUTPUT_FOLDER_REFUSED;
    }
    if (folder_is_empty(path, except))
        return OUTPUT_FOLDER_EMPTY;
    if (!force) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: folder is not empty (results never mix: choose another --out, or "
                    "--force to replace it whole)",
                    path);
        return OUTPUT_FOLDER_REFUSED;
    }
    if (protected_folder(path)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: --force never replaces /, the home folder, or the working directory "
                    "or a folder holding it",
                    path);
        return OUTPUT_FOLDER_REFUSED;
    }
    return OUTPUT_FOLDER_REPLACE;
}

/* PARENT/.BASE.WHAT-XXXXXX, created. */
static char *sibling_temp(const char *path, const char *what, GError **error)
{
    g_autofree char *parent = g_path_get_dirname(path);
    g_autofree char *base = g_path_get_basename(path);
    if (g_mkdir_with_parents(parent, 0755) != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot create folder: %s", parent,
                    g_strerror(errno));
        return NULL;
    }
    g_autofree char *tag = ccs_temp_tag(); /* a later run removes it once we are gone */
    g_autofree char *name = g_strdup_printf(".%s.%s-%s-XXXXXX", base, what, tag);
    char *tmp = g_build_filename(parent, name, NULL);
    if (!g_mkdtemp_full(tmp, 0755)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot create folder: %s", tmp,
                    g_strerror(errno));
        g_free(tmp);
        return NULL;
    }
    return tmp;
}

char *output_folder_stage(const char *path, GError **error)
{
    return sibling_temp(path, "new", error);
}

/* Swap staging and path; where the system cannot exchange, move path
 * aside first (a moment without path).  On success staging holds the old
 * contents. */
static bool swap_in(const char *staging, const char *path, GError **error)
{
    if (renameat2(AT_FDCWD, staging, AT_FDCWD, path, RENAME_EXCHANGE) == 0)
        return true;
    g_autofree char *old = sibling_temp(path, "old", error);
    if (!old)
        return false;
    if (g_rename(path, old) != 0 || g_rename(staging, path) != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot replace: %s", path,
                    g_strerror(errno));
        if (!g_file_test(path, G_FILE_TEST_EXISTS))
            g_rename(old, path); /* put the old results back */
        g_rmdir(old);
        return false;
    }
    return g_rename(old, staging) == 0 || output_folder_remove(old, error);
}

bool output_folder_install(const char *staging, const char *path, GError **error)
{
    if (g_rename(staging, path) == 0) /* path missing or empty */
        return true;
    if (errno != ENOTEMPTY && errno != EEXIST) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot move results into place: %s",
                    path, g_strerror(errno));
        output_folder_remove(staging, NULL);
        return false;
    }
    if (!swap_in(staging, path, error)) {
        output_folder_remove(staging, NULL);
        return false;
    }
    return output_folder_remove(staging, error); /* now the old results */
}

bool output_folder_remove(const char *path, GError **error)
{
    return ccs_remove_tree(path, error);
}
