/* summary_racks.c - how the trace's GPU jobs spread over racks, for `trace
 * stats` (docs/traces.md "Jobs across racks").  Not here: the other
 * statistics (summary.c), the contention risk on a network (sim/contention.c).
 *
 * Read from worker.csv and topo.csv alone, so it compares the real trace
 * with a synthetic one: a job is its GPU pods on a topo.csv host that
 * finished after they were created (a later minute), over [first created,
 * last finished].  Counted:
 * jobs on two racks or more (a rack is a (PSW, ASW) pair), jobs on two ASW
 * labels or more (labels taken across PSWs), and of those the jobs that at
 * some moment share a label with another such job: the "contention rate"
 * a published analysis of the real files measured (49.5% of 2,713 jobs).
 */
#include "traces-private.h"

#include <stdlib.h>
#include <string.h>

#include "gen.h"

typedef struct rjob {
    int64_t start, end;
    GHashTable *racks;  /* "PSW/ASW" strings (owned) */
    GHashTable *labels; /* ASW labels (borrowed from the topo rows) */
} rjob;

typedef struct rev {
    int64_t t;
    bool start; /* ends sort before starts at one instant */
    rjob *job;
} rev;

static void rjob_free(gpointer p)
{
    rjob *j = p;
    g_hash_table_destroy(j->racks);
    g_hash_table_destroy(j->labels);
    g_free(j);
}

static int cmp_rev(const void *pa, const void *pb)
{
    const rev *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (int)a->start - (int)b->start;
}

/* The jobs of the counted pods, by job name (owned rjob values). */
static GHashTable *rack_jobs(const trace__tables *t)
{
    g_autoptr(GHashTable) rack = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
    g_autoptr(GHashTable) label = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < t->topo->len; i++) {
        trace__row *r = t->topo->pdata[i];
        g_hash_table_insert(rack, r->f[TRACE__T_IP],
                            g_strdup_printf("%s/%s", r->f[TRACE__T_PSW], r->f[TRACE__T_ASW]));
        g_hash_table_insert(label, r->f[TRACE__T_IP], r->f[TRACE__T_ASW]);
    }
    GHashTable *jobs = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, rjob_free);
    for (guint i = 0; i < t->workers->len; i++) {
        const trace__row *w = t->workers->pdata[i];
        const char *rk = g_hash_table_lookup(rack, w->f[TRACE__W_HOST_IP]);
        if (w->gpus <= 0 || !rk || w->t[0] == TRACE__NO_TIME || w->t[2] == TRACE__NO_TIME ||
            w->t[2] <= w->t[0])
            continue;
        rjob *j = g_hash_table_lookup(jobs, w->f[TRACE__W_JOB_NAME]);
        if (!j) {
            j = g_new0(rjob, 1);
            j->start = INT64_MAX;
            j->end = INT64_MIN;
            j->racks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
            j->labels = g_hash_table_new(g_str_hash, g_str_equal);
            g_hash_table_insert(jobs, w->f[TRACE__W_JOB_NAME], j);
        }
        j->start = MIN(j->start, w->t[0]);
        j->end = MAX(j->end, w->t[2]);
        if (!g_hash_table_contains(j->racks, rk))
            g_hash_table_add(j->racks, g_strdup(rk));
        g_hash_table_add(j->labels, g_hash_table_lookup(label, w->f[TRACE__W_HOST_IP]));
    }
    return jobs;
}

/* Whether a label set meets a label of count >= 2. */
static bool meets_shared(GHashTable *labels, GHashTable *count)
{
    GHashTableIter it;
    gpointer k;
    g_hash_table_iter_init(&it, labels);
    while (g_hash_table_iter_next(&it, &k, NULL))
        if (GPOINTER_TO_UINT(g_hash_table_lookup(count, k)) >= 2)
            return true;
    return false;
}

/* Jobs on >= 2 labels that share a label with another such job while both
 * run: a sweep over starts and ends, each instant checked once all its
 * events are applied. */
static size_t label_contention(GHashTable *jobs)
{
    g_autoptr(GArray) ev = g_array_new(FALSE, FALSE, sizeof(rev));
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, jobs);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        rjob *j = v;
        if (g_hash_table_size(j->labels) < 2)
            continue;
        rev s = {j->start, true, j}, e = {j->end, false, j};
        g_array_append_val(ev, s);
        g_array_append_val(ev, e);
    }
    g_array_sort(ev, cmp_rev);
    g_autoptr(GPtrArray) active = g_ptr_array_new();
    g_autoptr(GHashTable) hit = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint k = 0; k < ev->len; k++) {
        const rev *x = &g_array_index(ev, rev, k);
        if (x->start)
            g_ptr_array_add(active, x->job);
        else
            g_ptr_array_remove_fast(active, x->job);
        if (k + 1 < ev->len && g_array_index(ev, rev, k + 1).t == x->t)
            continue;
        g_autoptr(GHashTable) count = g_hash_table_new(g_str_hash, g_str_equal);
        for (guint a = 0; a < active->len; a++) {
            GHashTableIter li;
            gpointer l;
            g_hash_table_iter_init(&li, ((rjob *)active->pdata[a])->labels);
            while (g_hash_table_iter_next(&li, &l, NULL))
                g_hash_table_insert(count, l, GUINT_TO_POINTER(
                                                  GPOINTER_TO_UINT(g_hash_table_lookup(count, l)) + 1));
        }
        for (guint a = 0; a < active->len; a++)
            if (meets_shared(((rjob *)active->pdata[a])->labels, count))
                g_hash_table_add(hit, active->pdata[a]);
    }
    return g_hash_table_size(hit);
}

void trace__summary_racks(const trace__tables *t, trace_summary *s)
{
    g_autoptr(GHashTable) jobs = rack_jobs(t);
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, jobs);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        const rjob *j = v;
        s->racks_jobs++;
        s->racks_multi_rack += g_hash_table_size(j->racks) >= 2;
        s->racks_multi_label += g_hash_table_size(j->labels) >= 2;
    }
    s->racks_label_contention = label_contention(jobs);
}
