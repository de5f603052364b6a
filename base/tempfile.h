/* tempfile.h - temporaries that name their owner, files written through
 * them and renamed into place, and the reclaim of those whose owner is
 * provably gone.  Not here: what is written (each writer), the lock of an
 * output folder (sim/output_lock.h).
 *
 * Every temporary file or folder ccsim makes carries a tag "pPIDhHOST"
 * in its name (PID the writer's process id, HOST eight hex digits of a
 * hash of its host name), after a dot or a dash and before one:
 *   .jobs.csv.p4242h1a2b3c4d.tmp            a file being written
 *   .out.new-p4242h1a2b3c4d-Xy12Ab          a folder being staged
 * A later ccsim writing in the same folder calls ccs_temp_reclaim(),
 * which removes the hidden entries whose tag names this host and a
 * process that no longer exists (kill(pid, 0) fails with ESRCH), and the
 * lock files (CCS_LOCK_SUFFIX) no process holds: what a SIGKILL, a power
 * cut or an abort left behind.  Entries of a live process, of another
 * host (a shared file system) or without a tag are never touched.
 */
#ifndef CCSIM_BASE_TEMPFILE_H
#define CCSIM_BASE_TEMPFILE_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

/* The name ending of output-folder lock files (sim/output_lock.h). */
#define CCS_LOCK_SUFFIX ".ccsim-lock"

/* This process's tag, "p4242h1a2b3c4d".  (transfer full) */
char *ccs_temp_tag(void);

/* The temporary for path DIR/NAME: DIR/.NAME.TAG.tmp.  (transfer full) */
char *ccs_temp_path(const char *path);

/* Write data[0..len) to path, created or truncated (no rename).
 * CCS_ERROR_IO "SHOWN: cannot write: REASON" (shown NULL: path); a
 * partly written file is removed. */
bool ccs_write_whole(const char *path, const void *data, size_t len, const char *shown,
                     GError **error);

/* Write data[0..len) to path through ccs_temp_path(path), renamed into
 * place once complete (a reader sees the old file or the new one, never
 * half of one).  CCS_ERROR_IO "PATH: cannot write: REASON" with the
 * system's reason; the temporary is removed on failure. */
bool ccs_write_atomic(const char *path, const void *data, size_t len, GError **error);

/* Delete path and everything under it; symbolic links are removed, not
 * followed.  Missing is fine.  CCS_ERROR_IO "PATH: cannot remove: REASON". */
bool ccs_remove_tree(const char *path, GError **error);

/* True when name carries a tag of this host whose process is gone. */
bool ccs_temp_is_stale(const char *name);

/* Remove the stale temporaries and unheld lock files directly in dir
 * (not below).  Returns how many entries went; a missing dir or an entry
 * that cannot be removed is skipped (g_debug says why). */
size_t ccs_temp_reclaim(const char *dir);

#endif /* CCSIM_BASE_TEMPFILE_H */
