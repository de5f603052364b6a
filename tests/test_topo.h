/* test_topo.h - what the files of the "topo" suite share: helpers, cases.
 * Not here: the cases themselves.
 */
#ifndef CCSIM_TESTS_TEST_TOPO_H
#define CCSIM_TESTS_TEST_TOPO_H

#include <glib.h>
#include <unistd.h>

#include "topo/topo.h"

#include "test_util.h"

static inline topo *build_ok(const char *spec)
{
    GError *err = NULL;
    topo *t = topo_build(spec, NULL, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    return t;
}

static inline size_t count_tier(const topo *t, topo_tier tier)
{
    size_t n = 0;
    for (uint32_t id = 0; id < topo_link_count(t); id++)
        n += topo_link_get(t, id)->tier == tier;
    return n;
}

static inline size_t paths_between_hosts(topo *t, size_t ha, size_t hb)
{
    GError *err = NULL;
    size_t n = topo_path_count(t, topo_host_nic_node(t, ha, 0), topo_host_nic_node(t, hb, 0), &err);
    TEST_ASSERT_NO_ERROR(err);
    return n;
}

/* Write text to a fresh temporary file whose name ends in suffix; returns
 * its path (caller frees and removes). */
static inline char *temp_file(const char *suffix, const char *text)
{
    g_autofree char *tmpl = g_strdup_printf("ccsim-topo-XXXXXX%s", suffix);
    char *path = NULL;
    GError *err = NULL;
    int fd = g_file_open_tmp(tmpl, &path, &err);
    TEST_ASSERT_NO_ERROR(err);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    CU_ASSERT_TRUE(g_file_set_contents(path, text, -1, NULL));
    return path;
}

/* Building from the file `text` (suffix e.g. ".csv") with the spec
 * `prefix` + its path must fail with `code`, a message holding `needle`
 * and the file's path; the file is removed. */
static inline void assert_file_error(const char *prefix, const char *suffix, const char *text,
                                     int code, const char *needle)
{
    g_autofree char *path = temp_file(suffix, text);
    g_autofree char *spec = g_strconcat(prefix, path, NULL);
    GError *err = NULL;
    topo *t = topo_build(spec, NULL, &err);
    CU_ASSERT_PTR_NULL(t);
    topo_free(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    if (!strstr(err->message, needle))
        printf("\n  %s: got '%s'\n", needle, err->message);
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, needle));
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, path));
    TEST_ASSERT_ERROR(err, code);
    g_clear_error(&err);
    remove(path);
}

/* test_topo_paths.c: candidate paths, their spread and sampling, ECMP. */
void test_topo_fat_tree_paths(void);
void test_topo_path_spread(void);
void test_topo_path_sampling(void);
void test_topo_ecmp(void);
void test_topo_paths_threads(void);

/* test_topo_io.c: JSON import, export and round trips, DOT. */
void test_topo_json_import(void);
void test_topo_json_errors(void);
void test_topo_round_trip(void);
void test_topo_graphml_types(void);
void test_topo_graphml_strict(void);
void test_topo_dot(void);

#endif /* CCSIM_TESTS_TEST_TOPO_H */
