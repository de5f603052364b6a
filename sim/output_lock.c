/* output_lock.c - advisory flock() locks of output folders (output_lock.h).
 * Not here: staging and swapping folders (output_folder.c).
 *
 * A lock file removed by its last holder may still be open in a process
 * that was about to lock it; after locking, the file at the path must be
 * the one locked (same device and inode), else the lock is taken again.
 */
#include "output_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ccs.h"
#include "base/tempfile.h"

struct output_lock {
    char *path;       /* PARENT/.NAME.ccsim-lock */
    int fd;           /* -1: the file system has no flock (unlocked) */
    bool shared;      /* held shared (a shard) */
    char *shard_path; /* DIR/.shard-I-of-N.ccsim-lock, or NULL */
    int shard_fd;
};

static char *folder_lock_path(const char *dir)
{
    g_autofree char *abs = g_canonicalize_filename(dir, NULL);
    g_autofree char *parent = g_path_get_dirname(abs);
    g_autofree char *base = g_path_get_basename(abs);
    g_autofree char *name = g_strdup_printf(".%s%s", base, CCS_LOCK_SUFFIX);
    return g_build_filename(parent, name, NULL);
}

/* "pid 42 on host", the holders the lock file names, one per line. */
static char *holders(int fd)
{
    char buf[512];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    g_strstrip(buf);
    if (!*buf)
        return g_strdup("a ccsim starting up");
    g_auto(GStrv) lines = g_strsplit(buf, "\n", 8);
    g_autofree char *joined = g_strjoinv(", ", lines);
    return g_strdup_printf("ccsim %s", joined);
}

static bool unsupported(int err)
{
    return err == ENOLCK || err == EOPNOTSUPP || err == ENOSYS || err == EINVAL;
}

/* Open and lock path (LOCK_EX or LOCK_SH) without waiting.  *fd = -1 when
 * the file system cannot lock.  Refused: CCS_ERROR_INVALID naming what. */
static bool lock_file(const char *path, int op, const char *what, int *fd, GError **error)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (*fd < 0) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot create the lock: %s", path,
                        g_strerror(errno));
            return false;
        }
        if (flock(*fd, op | LOCK_NB) != 0) {
            int err = errno;
            if (unsupported(err)) {
                g_debug("%s: locks unsupported (%s): running unlocked", path, g_strerror(err));
                close(*fd);
                *fd = -1;
                return true;
            }
            g_autofree char *who = holders(*fd);
            close(*fd);
            *fd = -1;
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: in use by %s (lock %s); it goes on: wait for it to finish or "
                        "choose another folder",
                        what, who, path);
            return false;
        }
        struct stat a, b;
        if (fstat(*fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino)
            return true;
        close(*fd); /* its last holder removed it meanwhile: lock the new one */
    }
    g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: the lock file keeps changing", path);
    *fd = -1;
    return false;
}

/* Note this process in the lock file: alone (exclusive) or one more line. */
static void note_holder(int fd, bool shared)
{
    if (fd < 0)
        return;
    g_autofree char *line =
        g_strdup_printf("pid %ld on %s\n", (long)getpid(), g_get_host_name());
    if (!shared && ftruncate(fd, 0) != 0)
        return;
    off_t end = shared ? lseek(fd, 0, SEEK_END) : 0;
    if (pwrite(fd, line, strlen(line), end) < 0)
        g_debug("cannot note the lock's holder: %s", g_strerror(errno));
}

static output_lock *lock_new(const char *dir, bool shared, GError **error)
{
    g_autofree char *parent = g_path_get_dirname(dir);
    if (g_mkdir_with_parents(parent, 0755) != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot create folder: %s", parent,
                    g_strerror(errno));
        return NULL;
    }
    output_lock *l = g_new0(output_lock, 1);
    l->path = folder_lock_path(dir);
    l->shared = shared;
    l->shard_fd = -1;
    if (!lock_file(l->path, shared ? LOCK_SH : LOCK_EX, dir, &l->fd, error)) {
        g_free(l->path);
        g_free(l);
        return NULL;
    }
    note_holder(l->fd, shared);
    return l;
}

output_lock *output_lock_take(const char *dir, GError **error)
{
    g_return_val_if_fail(dir != NULL, NULL);
    return lock_new(dir, false, error);
}

/* PARENT/.NAME.shard-I-of-N.ccsim-lock, beside the folder's own lock (a
 * file inside would make the folder look used). */
static char *shard_lock_path(const char *dir, int index, int count)
{
    g_autofree char *abs = g_canonicalize_filename(dir, NULL);
    g_autofree char *parent = g_path_get_dirname(abs);
    g_autofree char *base = g_path_get_basename(abs);
    g_autofree char *name =
        g_strdup_printf(".%s.shard-%d-of-%d%s", base, index, count, CCS_LOCK_SUFFIX);
    return g_build_filename(parent, name, NULL);
}

/* A shard lock of dir with another count, held: refused (their runs overlap). */
static bool other_counts_idle(const char *dir, int count, GError **error)
{
    g_autofree char *abs = g_canonicalize_filename(dir, NULL);
    g_autofree char *parent = g_path_get_dirname(abs);
    g_autofree char *base = g_path_get_basename(abs);
    g_autofree char *prefix = g_strdup_printf(".%s.shard-", base);
    g_autoptr(GDir) d = g_dir_open(parent, 0, NULL);
    for (const char *n; d && (n = g_dir_read_name(d));) {
        int i = 0, m = 0;
        if (!g_str_has_prefix(n, prefix) ||
            sscanf(n + strlen(prefix), "%d-of-%d", &i, &m) != 2 || m == count)
            continue;
        g_autofree char *path = g_build_filename(parent, n, NULL);
        int fd = -1;
        GError *busy = NULL;
        if (!lock_file(path, LOCK_EX, dir, &fd, &busy)) {
            g_propagate_prefixed_error(error, busy, "--shard %d/%d: another shard count: ", i, m);
            return false;
        }
        if (fd >= 0)
            close(fd);
    }
    return true;
}

output_lock *output_lock_take_shard(const char *dir, int index, int count, GError **error)
{
    g_return_val_if_fail(dir != NULL && index >= 0 && index < count, NULL);
    g_autoptr(output_lock) l = lock_new(dir, true, error);
    if (!l)
        return NULL;
    l->shard_path = shard_lock_path(dir, index, count);
    g_autofree char *what = g_strdup_printf("%s (shard %d of %d)", dir, index, count);
    if (!lock_file(l->shard_path, LOCK_EX, what, &l->shard_fd, error))
        return NULL;
    note_holder(l->shard_fd, false);
    if (!other_counts_idle(dir, count, error))
        return NULL;
    return g_steal_pointer(&l);
}

const char *output_lock_file(const output_lock *l) { return l->path; }

void output_lock_release(output_lock *l)
{
    if (!l)
        return;
    if (l->shard_path) {
        if (l->shard_fd >= 0) {
            g_unlink(l->shard_path);
            close(l->shard_fd);
        }
        g_free(l->shard_path);
    }
    if (l->fd >= 0) {
        /* the last of the shards (or the only holder) removes the file */
        if (!l->shared || flock(l->fd, LOCK_EX | LOCK_NB) == 0)
            g_unlink(l->path);
        close(l->fd);
    }
    g_free(l->path);
    g_free(l);
}
