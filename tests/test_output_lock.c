/* test_output_lock.c - suite "output": one writer per folder
 * (sim/output_lock.h) and the reclaim of what dead writers left
 * (base/tempfile.h).  Not here: refusing non-empty folders
 * (test_output_folder.c).
 */
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/ccs.h"
#include "base/tempfile.h"
#include "sim/output.h"
#include "sim/output_lock.h"
#include "test_util.h"

static char *fresh(void)
{
    char *dir = g_dir_make_tmp("ccsim-lock-XXXXXX", NULL);
    g_assert(dir);
    return dir;
}

static bool exists(const char *dir, const char *name)
{
    g_autofree char *p = g_build_filename(dir, name, NULL);
    return g_file_test(p, G_FILE_TEST_EXISTS);
}

/* A pid that was a process and is no more: a child that exited, reaped. */
static long dead_pid(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    return (long)pid;
}

/* A second writer of the same folder is refused at once, naming the
 * first's pid; the first's lock goes when it is released (file and all),
 * and the folder can be locked again.  Two openings of the lock file
 * conflict even within one process (flock locks open files). */
void test_output_lock_one_writer(void)
{
    g_autofree char *parent = fresh();
    g_autofree char *dir = g_build_filename(parent, "out", NULL);
    GError *e = NULL;
    output_lock *a = output_lock_take(dir, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_TRUE(exists(parent, ".out.ccsim-lock"));
    output_lock *b = output_lock_take(dir, &e);
    CU_ASSERT_PTR_NULL(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    g_autofree char *pid = g_strdup_printf("in use by ccsim pid %ld on ", (long)getpid());
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, pid));
    CU_ASSERT_TRUE(g_str_has_prefix(e->message, dir));
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    /* output_dir_open_new takes the same lock */
    output_dir *d = output_dir_open_new(dir, false, NULL, &e);
    CU_ASSERT_PTR_NULL(d);
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    output_lock_release(a);
    CU_ASSERT_FALSE(exists(parent, ".out.ccsim-lock"));
    d = output_dir_open_new(dir, false, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_TRUE(exists(parent, ".out.ccsim-lock"));
    CU_ASSERT_TRUE(output_dir_commit(d, &e));
    CU_ASSERT_FALSE(exists(parent, ".out.ccsim-lock"));
    ccs_remove_tree(parent, NULL);
}

/* Shards of one count share a folder; a second copy of a shard, a shard
 * of another count and an unsharded writer are refused; the folder's lock
 * file goes with its last shard. */
void test_output_lock_shards(void)
{
    g_autofree char *parent = fresh();
    g_autofree char *dir = g_build_filename(parent, "sw", NULL);
    GError *e = NULL;
    output_lock *s0 = output_lock_take_shard(dir, 0, 2, &e);
    output_lock *s1 = output_lock_take_shard(dir, 1, 2, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_PTR_NOT_NULL(s0);
    CU_ASSERT_PTR_NOT_NULL(s1);
    CU_ASSERT_PTR_NULL(output_lock_take_shard(dir, 0, 2, &e));
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    CU_ASSERT_PTR_NULL(output_lock_take_shard(dir, 0, 3, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "another shard count"));
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    CU_ASSERT_PTR_NULL(output_lock_take(dir, &e));
    TEST_ASSERT_ERROR(e, CCS_ERROR_INVALID);
    output_lock_release(s0);
    CU_ASSERT_TRUE(exists(parent, ".sw.ccsim-lock")); /* s1 still holds it */
    output_lock_release(s1);
    CU_ASSERT_FALSE(exists(parent, ".sw.ccsim-lock"));
    CU_ASSERT_FALSE(exists(parent, ".sw.shard-1-of-2.ccsim-lock"));
    CU_ASSERT_FALSE(g_file_test(dir, G_FILE_TEST_EXISTS)); /* locking made no folder */
    ccs_remove_tree(parent, NULL);
}

/* Reclaim removes exactly the tagged entries of this host whose process
 * is gone and the lock files nobody holds; a live writer's temporary,
 * another host's, an untagged hidden file and a held lock stay. */
void test_output_lock_reclaim(void)
{
    g_autofree char *dir = fresh();
    long dead = dead_pid();
    g_autofree char *tag = ccs_temp_tag(); /* pNNNhHHHHHHHH: this process */
    const char *host = strchr(tag, 'h');
    g_autofree char *stale_dir = g_strdup_printf(".out.new-p%ld%s-Ab12Cd", dead, host);
    g_autofree char *stale_file = g_strdup_printf(".jobs.csv.p%ld%s.tmp", dead, host);
    g_autofree char *live_file = g_strdup_printf(".links.csv.%s.tmp", tag);
    g_autofree char *other_host = g_strdup_printf(".x.csv.p%ldh%08x.tmp", dead,
                                                  g_str_hash(g_get_host_name()) ^ 1u);
    g_autofree char *sd = g_build_filename(dir, stale_dir, NULL);
    g_mkdir(sd, 0755);
    g_autofree char *inner = g_build_filename(sd, "summary.csv", NULL);
    const char *files[] = {stale_file, live_file, other_host, ".keep", ".gone.ccsim-lock",
                           inner};
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        g_autofree char *p = g_path_is_absolute(files[i]) ? g_strdup(files[i])
                                                          : g_build_filename(dir, files[i], NULL);
        CU_ASSERT_TRUE(g_file_set_contents(p, "x", 1, NULL));
    }
    g_autofree char *held_dir = g_build_filename(dir, "held", NULL);
    output_lock *held = output_lock_take(held_dir, NULL);
    CU_ASSERT_EQUAL(ccs_temp_reclaim(dir), 3);
    CU_ASSERT_FALSE(exists(dir, stale_dir));
    CU_ASSERT_FALSE(exists(dir, stale_file));
    CU_ASSERT_FALSE(exists(dir, ".gone.ccsim-lock"));
    CU_ASSERT_TRUE(exists(dir, live_file));
    CU_ASSERT_TRUE(exists(dir, other_host));
    CU_ASSERT_TRUE(exists(dir, ".keep"));
    CU_ASSERT_TRUE(exists(dir, ".held.ccsim-lock"));
    output_lock_release(held);
    ccs_remove_tree(dir, NULL);
}

/* A run killed mid-write leaves its staging folder and its temporaries:
 * the next output_dir_open_new on the same parent removes them. */
void test_output_lock_next_run_reclaims(void)
{
    g_autofree char *parent = fresh();
    long dead = dead_pid();
    g_autofree char *tag = ccs_temp_tag();
    g_autofree char *stale = g_strdup_printf(".old-run.new-p%ld%s-Zz99Yy", dead, strchr(tag, 'h'));
    g_autofree char *sp = g_build_filename(parent, stale, NULL);
    g_mkdir(sp, 0755);
    g_autofree char *dir = g_build_filename(parent, "new-run", NULL);
    GError *e = NULL;
    output_dir *d = output_dir_open_new(dir, false, NULL, &e);
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_FALSE(exists(parent, stale));
    CU_ASSERT_TRUE(output_dir_commit(d, &e));
    ccs_remove_tree(parent, NULL);
}
