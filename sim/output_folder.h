/* output_folder.h - whole result folders: refuse to mix, replace atomically.
 * Not here: the files inside a folder (output.h).
 *
 * A run's results go into a folder that holds nothing else.  A folder that
 * exists and is not empty is refused unless the caller forces it; then the
 * new results are written into a hidden staging folder next to it
 * (".NAME.new-XXXXXX") and swapped in whole at the end, so the old results
 * stay readable until the new ones are complete, and a failed run leaves
 * the old folder untouched.  Forcing never replaces "/", the home folder,
 * the working directory or a folder that contains it.
 */
#ifndef CCSIM_SIM_OUTPUT_FOLDER_H
#define CCSIM_SIM_OUTPUT_FOLDER_H

#include <glib.h>
#include <stdbool.h>

typedef enum output_folder_state {
    OUTPUT_FOLDER_REFUSED, /* error set */
    OUTPUT_FOLDER_NEW,     /* path does not exist */
    OUTPUT_FOLDER_EMPTY,   /* an empty folder (but for except): write into it */
    OUTPUT_FOLDER_REPLACE, /* not empty, force given and allowed: stage and swap */
} output_folder_state;

/* Whether results may be written into path: it does not exist, or is a
 * folder empty but for the file except (nullable: the run's own scenario
 * file, which a sweep writes there first), or force is set and it is a
 * folder that may be replaced.  CCS_ERROR_INVALID otherwise, naming path
 * and, when it is only non-empty, the --force option. */
output_folder_state output_folder_check(const char *path, bool force, const char *except,
                                        GError **error);

/* Create the staging folder for path (its parents too).  (transfer full)
 * NULL with CCS_ERROR_IO. */
char *output_folder_stage(const char *path, GError **error);

/* Put the staging folder in place of path (atomically where the system
 * can exchange two names) and delete what path held.  CCS_ERROR_IO on
 * failure, with staging removed. */
bool output_folder_install(const char *staging, const char *path, GError **error);

/* Delete path and everything under it (symbolic links are removed, not
 * followed).  Missing is fine.  CCS_ERROR_IO on failure. */
bool output_folder_remove(const char *path, GError **error);

#endif /* CCSIM_SIM_OUTPUT_FOLDER_H */
