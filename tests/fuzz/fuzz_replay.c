/* fuzz_replay.c - run a harness over corpus files without libFuzzer: the
 * fuzz harnesses' main() when clang's libFuzzer is not used.  Not here:
 * the harnesses (fuzz_*.c).
 *
 * Usage: fuzz_NAME PATH...   (a PATH may be a folder: every file in it,
 * in name order).  Exit 0 when every input kept the contract (a broken
 * one aborts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t replay_file(const char *path)
{
    gchar *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &data, &len, NULL)) {
        fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
        exit(1);
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    g_free(data);
    return 1;
}

static size_t replay_path(const char *path)
{
    if (!g_file_test(path, G_FILE_TEST_IS_DIR))
        return replay_file(path);
    GDir *d = g_dir_open(path, 0, NULL);
    if (!d) {
        fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
        exit(1);
    }
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    for (const char *n; (n = g_dir_read_name(d));)
        g_ptr_array_add(names, g_build_filename(path, n, NULL));
    g_dir_close(d);
    qsort(names->pdata, names->len, sizeof(char *), compare_names);
    size_t count = 0;
    for (guint i = 0; i < names->len; i++)
        count += replay_path(g_ptr_array_index(names, i));
    g_ptr_array_unref(names);
    return count;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    size_t n = 0;
    for (int i = 1; i < argc; i++)
        n += replay_path(argv[i]);
    printf("%s: %zu inputs replayed, contract kept\n", argv[0], n);
    return 0;
}
