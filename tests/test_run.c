/* test_run.c - one replay built from a scenario text (test_run.h).
 * Not here: any case.
 */
#include "test_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "schedulers/registry.h"
#include "sim/output.h"
#include "test_util.h"

void test_run_clear(test_run *x)
{
    replay_free(x->r);
    topo_free(x->t);
    trace_free(x->tr);
    catalog_free(x->cat);
    config_free(x->cfg);
    memset(x, 0, sizeof *x);
}

bool test_run_prepare(test_run *x, const char *text, const char *const *options,
                      GError **error)
{
    memset(x, 0, sizeof *x);
    x->cfg = config_new();
    if (!config_load_buffer(x->cfg, text, strlen(text), "test.json", error))
        return false;
    for (size_t i = 0; options && options[i]; i += 2)
        if (!config_set_option(x->cfg, options[i], options[i + 1], error))
            return false;
    x->t = topo_build(x->cfg->topology_spec, NULL, error);
    if (!x->t)
        return false;
    x->tr = trace_json_from_cjson(cJSON_GetObjectItem(x->cfg->trace_obj, "jobs"), "test.json",
                                  error);
    if (!x->tr)
        return false;
    x->cat = catalog_load_default(error);
    if (!x->cat)
        return false;
    const sched_ops *ops = sched_registry_lookup(x->cfg->scheduler, error);
    if (!ops)
        return false;
    x->r = replay_new(x->cfg, ops, x->t, x->tr, x->cat, error);
    return x->r != NULL;
}

void test_run_remove_outputs(const char *dir)
{
    static const char *const all[] = {"jobs.csv", "timeseries.csv", "links.csv", "summary.csv",
                                      "run.json"};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
        g_autofree char *p = g_build_filename(dir, all[i], NULL);
        g_remove(p);
    }
    g_rmdir(dir);
}

bool test_run_text(test_run *x, const char *text, bool ffwd, const char *dir)
{
    GError *e = NULL;
    const char *const options[] = {"fast_forward", ffwd ? "true" : "false", NULL};
    bool ok = test_run_prepare(x, text, options, &e);
    output_dir *o = NULL;
    if (ok && dir)
        ok = (o = output_dir_open(dir, &e)) != NULL;
    ok = ok && replay_run(x->r, o, NULL, NULL, &e);
    if (o)
        ok = output_dir_commit(o, ok ? &e : NULL) && ok;
    TEST_ASSERT_NO_ERROR(e);
    CU_ASSERT_TRUE(ok);
    return ok;
}

void test_run_assert_csv_close(const char *d1, const char *d2, const char *name, double tol)
{
    g_autofree char *p1 = g_build_filename(d1, name, NULL);
    g_autofree char *p2 = g_build_filename(d2, name, NULL);
    g_autofree char *a = NULL, *b = NULL;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(p1, &a, NULL, NULL));
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(p2, &b, NULL, NULL));
    g_auto(GStrv) la = g_strsplit(a, "\n", -1), lb = g_strsplit(b, "\n", -1);
    CU_ASSERT_EQUAL_FATAL(g_strv_length(la), g_strv_length(lb));
    CU_ASSERT_TRUE(g_strv_length(la) > 2);
    for (guint i = 0; la[i]; i++) {
        g_auto(GStrv) fa = g_strsplit(la[i], ",", -1), fb = g_strsplit(lb[i], ",", -1);
        CU_ASSERT_EQUAL_FATAL(g_strv_length(fa), g_strv_length(fb));
        for (guint k = 0; fa[k]; k++) {
            if (strcmp(fa[k], fb[k]) == 0)
                continue;
            /* summary.csv: the run's wall time, events and memory differ */
            if (strcmp(name, "summary.csv") == 0 && k >= 18)
                continue;
            char *ea, *eb;
            double x = g_ascii_strtod(fa[k], &ea), y = g_ascii_strtod(fb[k], &eb);
            CU_ASSERT_TRUE(*ea == '\0' && *eb == '\0' && ea != fa[k]);
            if (!test_assert_close(x, y, tol, name, __FILE__, __LINE__))
                fprintf(stderr, "  %s line %u field %u\n", name, i, k);
        }
    }
}

bool test_run_approx_and_exact(char *(*build)(const char *steady), test_run *x, test_run *y,
                               replay_summary *s, replay_summary *e)
{
    g_autofree char *approx = build("approx");
    g_autofree char *exact = build("exact");
    *y = (test_run){0};
    if (!test_run_text(x, approx, true, NULL) || !test_run_text(y, exact, false, NULL))
        return false;
    if (s)
        replay_get_summary(x->r, s);
    if (e)
        replay_get_summary(y->r, e);
    return true;
}

void test_run_assert_within_bounds(const test_run *x, const test_run *y, const size_t *at,
                                   size_t n)
{
    replay_summary s, e;
    replay_get_summary(x->r, &s);
    replay_get_summary(y->r, &e);
    for (size_t i = 0; i < n; i++) {
        replay_job_result p, q;
        replay_job_get(x->r, at[i], &p);
        replay_job_get(y->r, at[i], &q);
        CU_ASSERT_TRUE((double)llabs(p.iterations - q.iterations) <= s.approx_iteration_bound);
    }
    CU_ASSERT_TRUE(fabs(s.gpu_util_cluster_frac - e.gpu_util_cluster_frac) <=
                   s.approx_util_bound);
}

void test_run_assert_same(const char *text, double tol, uint64_t *ev_ff, uint64_t *ev_plain)
{
    g_autofree char *tmp = g_dir_make_tmp("ccsim-ffwd-XXXXXX", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
    g_autofree char *d1 = g_build_filename(tmp, "ff", NULL);
    g_autofree char *d2 = g_build_filename(tmp, "plain", NULL);
    test_run x, y;
    bool ok = test_run_text(&x, text, true, d1);
    ok = test_run_text(&y, text, false, d2) && ok;
    if (ok) {
        static const char *const files[] = {"summary.csv", "jobs.csv", "timeseries.csv",
                                            "links.csv"};
        for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
            test_run_assert_csv_close(d1, d2, files[i], tol);
        replay_summary s;
        replay_get_summary(x.r, &s);
        if (ev_ff)
            *ev_ff = s.events;
        replay_get_summary(y.r, &s);
        if (ev_plain)
            *ev_plain = s.events;
    }
    test_run_clear(&x);
    test_run_clear(&y);
    test_run_remove_outputs(d1);
    test_run_remove_outputs(d2);
    g_rmdir(tmp);
}


double test_run_csv_field(const char *dir, const char *name, int line, int field)
{
    g_autofree char *p = g_build_filename(dir, name, NULL);
    g_autofree char *buf = NULL;
    if (!g_file_get_contents(p, &buf, NULL, NULL))
        return NAN;
    g_auto(GStrv) lines = g_strsplit(buf, "\n", -1);
    if ((guint)line >= g_strv_length(lines))
        return NAN;
    g_auto(GStrv) f = g_strsplit(lines[line], ",", -1);
    return (guint)field < g_strv_length(f) ? g_ascii_strtod(f[field], NULL) : NAN;
}
