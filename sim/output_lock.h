/* output_lock.h - one writer per output folder: an advisory lock beside the
 * folder that names its holder.  Not here: refusing non-empty folders
 * (output_folder.h), temporaries and their reclaim (base/tempfile.h).
 *
 * The lock of folder PARENT/NAME is the file PARENT/.NAME.ccsim-lock, held
 * with flock() for as long as the writer runs (the kernel drops it when
 * the process dies, however it dies).  A second `ccsim run`, `compare`,
 * `gen-trace` or `sweep` on the same folder is refused at once, naming the
 * first one's pid and host; the first goes on undisturbed.  The shards of
 * one sweep (`--shard I/N`, the same N) or of one split run
 * (`--shard-only K`) share the folder: each holds the folder's lock shared
 * and its own shard's lock (PARENT/.NAME.shard-I-of-N.ccsim-lock)
 * exclusively; anything else on the folder is refused.
 * Locks are advisory: they keep ccsim processes apart, not other programs.
 * A file system without flock (some network mounts) runs unlocked, as
 * before, said by g_debug.
 */
#ifndef CCSIM_SIM_OUTPUT_LOCK_H
#define CCSIM_SIM_OUTPUT_LOCK_H

#include <glib.h>
#include <stdbool.h>

typedef struct output_lock output_lock;

/* Lock folder dir (it need not exist; its parent is created) for this
 * process alone.  (transfer full) NULL with CCS_ERROR_INVALID "DIR: in use
 * by ccsim pid P on HOST (...)" when another process holds it, or
 * CCS_ERROR_IO when the lock file cannot be made. */
output_lock *output_lock_take(const char *dir, GError **error);

/* Lock dir for shard index of count (a sweep's --shard I/N): shared with
 * the other shards of the same count, exclusive for this index. */
output_lock *output_lock_take_shard(const char *dir, int index, int count, GError **error);

/* The lock file's path (PARENT/.NAME.ccsim-lock).  (transfer none) */
const char *output_lock_file(const output_lock *l);

/* Release the lock and remove its files (those no other shard holds).
 * NULL is fine. */
void output_lock_release(output_lock *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(output_lock, output_lock_release)

#endif /* CCSIM_SIM_OUTPUT_LOCK_H */
