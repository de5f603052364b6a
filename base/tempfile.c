/* tempfile.c - tagged temporaries, atomic writes, reclaim (tempfile.h).
 * Not here: output-folder locks (sim/output_lock.c).
 */
#include "tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccs.h"

static guint32 host_hash(void) { return g_str_hash(g_get_host_name()); }

char *ccs_temp_tag(void) { return g_strdup_printf("p%ldh%08x", (long)getpid(), host_hash()); }

char *ccs_temp_path(const char *path)
{
    g_autofree char *dir = g_path_get_dirname(path);
    g_autofree char *base = g_path_get_basename(path);
    g_autofree char *tag = ccs_temp_tag();
    g_autofree char *name = g_strdup_printf(".%s.%s.tmp", base, tag);
    return g_build_filename(dir, name, NULL);
}

bool ccs_write_whole(const char *path, const void *data, size_t len, const char *shown,
                     GError **error)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = fd >= 0;
    for (size_t off = 0; ok && off < len;) {
        ssize_t n = write(fd, (const char *)data + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        off += ok ? (size_t)n : 0;
    }
    int err = ok ? 0 : errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot write: %s", shown ? shown : path,
                    g_strerror(err ? err : EIO));
        if (fd >= 0)
            g_unlink(path);
    }
    return ok;
}

bool ccs_write_atomic(const char *path, const void *data, size_t len, GError **error)
{
    g_autofree char *tmp = ccs_temp_path(path);
    if (!ccs_write_whole(tmp, data, len, path, error))
        return false;
    if (rename(tmp, path) == 0)
        return true;
    g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot write: %s", path, g_strerror(errno));
    g_unlink(tmp);
    return false;
}

bool ccs_remove_tree(const char *path, GError **error)
{
    GStatBuf st;
    if (g_lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return true;
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot remove: %s", path,
                    g_strerror(errno));
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
        for (const char *n; d && (n = g_dir_read_name(d));) {
            g_autofree char *child = g_build_filename(path, n, NULL);
            if (!ccs_remove_tree(child, error))
                return false;
        }
    }
    if ((S_ISDIR(st.st_mode) ? g_rmdir(path) : g_unlink(path)) != 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot remove: %s", path,
                    g_strerror(errno));
        return false;
    }
    return true;
}

/* The tag in name ("pPIDhHHHHHHHH" between '.'/'-' and '.'/'-'): its pid
 * and host hash.  False when there is none. */
static bool find_tag(const char *name, long *pid, guint32 *host)
{
    for (const char *p = strchr(name, 'p'); p; p = strchr(p + 1, 'p')) {
        if (p == name || (p[-1] != '.' && p[-1] != '-'))
            continue;
        const char *q = p + 1;
        while (g_ascii_isdigit(*q))
            q++;
        if (q == p + 1 || q - p > 12 || *q != 'h')
            continue;
        const char *h = q + 1;
        size_t k = 0;
        while (k < 8 && g_ascii_isxdigit(h[k]))
            k++;
        if (k != 8 || (h[8] != '.' && h[8] != '-'))
            continue;
        *pid = strtol(p + 1, NULL, 10);
        char hex[9];
        memcpy(hex, h, 8);
        hex[8] = '\0';
        *host = (guint32)strtoul(hex, NULL, 16);
        return true;
    }
    return false;
}

bool ccs_temp_is_stale(const char *name)
{
    long pid = 0;
    guint32 host = 0;
    if (name[0] != '.' || !find_tag(name, &pid, &host) || host != host_hash() || pid <= 0 ||
        pid == (long)getpid())
        return false;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* A lock file nobody holds: take it without waiting, remove it. */
static bool reclaim_lock(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool free_lock = flock(fd, LOCK_EX | LOCK_NB) == 0;
    bool gone = free_lock && g_unlink(path) == 0;
    close(fd);
    return gone;
}

size_t ccs_temp_reclaim(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (const char *n; d && (n = g_dir_read_name(d));)
        if (n[0] == '.')
            g_ptr_array_add(names, g_strdup(n));
    size_t removed = 0;
    for (guint i = 0; i < names->len; i++) {
        const char *n = g_ptr_array_index(names, i);
        g_autofree char *path = g_build_filename(dir, n, NULL);
        if (g_str_has_suffix(n, CCS_LOCK_SUFFIX)) {
            removed += reclaim_lock(path);
            continue;
        }
        if (!ccs_temp_is_stale(n))
            continue;
        GError *e = NULL;
        if (ccs_remove_tree(path, &e)) {
            g_debug("%s: removed (its writer is gone)", path);
            removed++;
        } else {
            g_debug("%s", e->message);
            g_error_free(e);
        }
    }
    return removed;
}
