/* contention.c - the contention-risk tracker and its trace-wide driver
 * (contention.h has the definition).  Not here: the replay's use of it.
 */
#include "contention.h"

#include <stdlib.h>
#include <string.h>

#include "base/ccs.h"
#include "cluster.h"

typedef struct risk_job {
    size_t key;
    int gpus;
    uint32_t *hosts; /* sorted */
    size_t n_hosts;
    uint32_t *links; /* sorted */
    size_t n_links;
    bool at_risk;
    contention_span span; /* with a topology (contention_set_topo) */
    bool by_host;
    unsigned shared_tiers; /* bit per topo_tier of a link shared with a running job */
} risk_job;

struct contention {
    topo *t;            /* NULL: no link tiers known, no spans */
    GPtrArray *jobs;    /* risk_job*, every job started */
    GHashTable *by_key; /* key + 1 -> risk_job* */
    GPtrArray *running; /* risk_job* running now */
};

static void risk_job_free(gpointer p)
{
    risk_job *j = p;
    g_free(j->hosts);
    g_free(j->links);
    g_free(j);
}

contention *contention_new(void)
{
    contention *c = g_new0(contention, 1);
    c->jobs = g_ptr_array_new_with_free_func(risk_job_free);
    c->by_key = g_hash_table_new(g_direct_hash, g_direct_equal);
    c->running = g_ptr_array_new();
    return c;
}

void contention_free(contention *c)
{
    if (!c)
        return;
    g_ptr_array_free(c->running, TRUE);
    g_hash_table_destroy(c->by_key);
    g_ptr_array_free(c->jobs, TRUE);
    g_free(c);
}

void contention_set_topo(contention *c, topo *t)
{
    c->t = t;
}

const char *contention_span_name(contention_span s)
{
    static const char *const names[CONTENTION_SPANS] = {"host", "switch", "agg", "core"};
    return s < CONTENTION_SPANS ? names[s] : "?";
}

int contention_size_bucket(int g)
{
    static const int upper[CONTENTION_SIZES - 1] = {1, 7, 8, 16, 48, 127, 128, 256};
    int b = 0;
    while (b < CONTENTION_SIZES - 1 && g > upper[b])
        b++;
    return b;
}

const char *contention_size_name(int bucket)
{
    static const char *const names[CONTENTION_SIZES] = {"1",     "2-7", "8",       "9-16", "17-48",
                                                        "49-127", "128", "129-256", ">256"};
    return bucket >= 0 && bucket < CONTENTION_SIZES ? names[bucket] : "?";
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Whether two sorted arrays share an element: O(na + nb). */
static bool sorted_meet(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
    size_t i = 0, k = 0;
    while (i < na && k < nb) {
        if (a[i] == b[k])
            return true;
        if (a[i] < b[k])
            i++;
        else
            k++;
    }
    return false;
}

/* The tiers (bit per topo_tier) of the links two sorted arrays share; with
 * no topology, bit TOPO_TIER_OTHER for any shared link.  O(na + nb). */
static unsigned shared_tiers(const topo *t, const uint32_t *a, size_t na, const uint32_t *b,
                             size_t nb)
{
    unsigned m = 0;
    size_t i = 0, k = 0;
    while (i < na && k < nb) {
        if (a[i] == b[k]) {
            m |= 1u << (t ? topo_link_get(t, a[i])->tier : TOPO_TIER_OTHER);
            if (!t)
                return m;
            i++;
            k++;
        } else if (a[i] < b[k]) {
            i++;
        } else {
            k++;
        }
    }
    return m;
}

/* One pair of running jobs: who puts whom at risk, and through what. */
static void compare(const contention *c, risk_job *a, risk_job *b)
{
    bool a_multi = a->n_hosts >= 2, b_multi = b->n_hosts >= 2;
    if (!a_multi && !b_multi)
        return;
    if (sorted_meet(a->hosts, a->n_hosts, b->hosts, b->n_hosts)) {
        a->by_host |= b_multi;
        b->by_host |= a_multi;
    }
    if (a_multi && b_multi) {
        unsigned m = shared_tiers(c->t, a->links, a->n_links, b->links, b->n_links);
        a->shared_tiers |= m;
        b->shared_tiers |= m;
    }
    a->at_risk = a->by_host || a->shared_tiers;
    b->at_risk = b->by_host || b->shared_tiers;
}

/* A job's span from its links' tiers (c->t set). */
static contention_span span_of(const contention *c, const risk_job *j)
{
    if (j->n_hosts < 2)
        return CONTENTION_SPAN_HOST;
    contention_span s = CONTENTION_SPAN_SWITCH;
    for (size_t l = 0; l < j->n_links; l++) {
        topo_tier tier = topo_link_get(c->t, j->links[l])->tier;
        if (tier == TOPO_TIER_TOR_AGG && s < CONTENTION_SPAN_AGG)
            s = CONTENTION_SPAN_AGG;
        else if (tier > TOPO_TIER_TOR_AGG)
            s = CONTENTION_SPAN_CORE;
    }
    return s;
}

void contention_job_start(contention *c, size_t key, int gpus, const uint32_t *hosts,
                          size_t n_hosts, const uint32_t *links, size_t n_links)
{
    risk_job *j = g_new0(risk_job, 1);
    j->key = key;
    j->gpus = gpus;
    j->hosts = g_memdup2(hosts, n_hosts * sizeof *hosts);
    j->n_hosts = n_hosts;
    qsort(j->hosts, n_hosts, sizeof *j->hosts, cmp_u32);
    j->links = g_memdup2(links, n_links * sizeof *links);
    j->n_links = n_links;
    if (c->t)
        j->span = span_of(c, j);
    for (guint i = 0; i < c->running->len; i++)
        compare(c, j, g_ptr_array_index(c->running, i));
    g_ptr_array_add(c->jobs, j);
    g_ptr_array_add(c->running, j);
    g_hash_table_insert(c->by_key, GSIZE_TO_POINTER(key + 1), j);
}

void contention_job_end(contention *c, size_t key)
{
    risk_job *j = g_hash_table_lookup(c->by_key, GSIZE_TO_POINTER(key + 1));
    if (j)
        g_ptr_array_remove_fast(c->running, j);
}

bool contention_job_at_risk(const contention *c, size_t key)
{
    const risk_job *j = g_hash_table_lookup(c->by_key, GSIZE_TO_POINTER(key + 1));
    return j && j->at_risk;
}

static void span_add(contention_span_stats *s, const risk_job *j)
{
    s->jobs++;
    s->gpus += j->gpus;
    if (!j->at_risk)
        return;
    s->jobs_at_risk++;
    s->gpus_at_risk += j->gpus;
    s->by_host += j->by_host;
    s->by_tor_agg += (j->shared_tiers >> TOPO_TIER_TOR_AGG) & 1u;
    s->by_core += (j->shared_tiers & (1u << TOPO_TIER_AGG_CORE | 1u << TOPO_TIER_OTHER)) != 0;
}

void contention_get(const contention *c, contention_stats *out)
{
    memset(out, 0, sizeof *out);
    for (guint i = 0; i < c->jobs->len; i++) {
        const risk_job *j = g_ptr_array_index(c->jobs, i);
        out->jobs++;
        out->gpus += j->gpus;
        if (j->at_risk) {
            out->jobs_at_risk++;
            out->gpus_at_risk += j->gpus;
        }
        if (c->t)
            span_add(&out->span[j->span], j);
        span_add(&out->size[contention_size_bucket(j->gpus)], j);
    }
    out->have_spans = c->t != NULL;
}

bool contention_plan_links(topo *t, const coll_plan *p, GArray *out, GError **error)
{
    g_array_set_size(out, 0);
    g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GArray) cand = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (size_t f = 0; f < coll_plan_flow_count(p); f++) {
        const coll_flow *fl = coll_plan_flow(p, f);
        for (size_t k = 0; k < fl->n_paths; k++) {
            if (!topo_path_links(t, fl->src_nic, fl->dst_nic, k, cand, error))
                return false;
            for (guint l = 0; l < cand->len; l++) {
                uint32_t e = g_array_index(cand, uint32_t, l);
                if (topo_link_get(t, e)->tier < TOPO_TIER_TOR_AGG)
                    continue;
                if (g_hash_table_add(seen, GSIZE_TO_POINTER((gsize)e + 1)))
                    g_array_append_val(out, e);
            }
        }
    }
    g_array_sort(out, cmp_u32);
    return true;
}

void contention_chosen_links(topo *t, const coll_plan *p, GArray *out)
{
    g_array_set_size(out, 0);
    for (size_t f = 0; f < coll_plan_flow_count(p); f++) {
        const GArray *links = coll_plan_flow(p, f)->links;
        for (guint l = 0; l < links->len; l++) {
            uint32_t e = g_array_index(links, uint32_t, l);
            if (topo_link_get(t, e)->tier >= TOPO_TIER_TOR_AGG)
                g_array_append_val(out, e);
        }
    }
    g_array_sort(out, cmp_u32);
    guint k = 0;
    for (guint l = 0; l < out->len; l++)
        if (k == 0 || g_array_index(out, uint32_t, k - 1) != g_array_index(out, uint32_t, l))
            g_array_index(out, uint32_t, k++) = g_array_index(out, uint32_t, l);
    g_array_set_size(out, k);
}

/* How contention_trace places and routes each job. */
typedef struct trace_rules {
    config_placement policy;
    contention_paths paths;
    uint64_t seed; /* the hash salt of the chosen paths */
} trace_rules;

/* Job i of the trace placed (its GPUs held) and tracked; false only on a
 * topology error.  A job that does not fit is counted and skipped. */
static bool trace_job_start(topo *t, cluster *cl, contention *c, const trace_job *tj, size_t i,
                            const trace_rules *ru, GRand *rng, cluster_alloc **allocs,
                            contention_stats *out, GError **error)
{
    GError *e = NULL;
    cluster_alloc *a = cluster_place(cl, (const char *const *)tj->hosts, tj->host_gpus,
                                     tj->hosts ? tj->n_hosts : 0, tj->gpus, ru->policy, rng, &e);
    if (!a) {
        g_error_free(e);
        out->jobs_unplaced++;
        return true;
    }
    allocs[i] = a;
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (a->n_hosts >= 2) {
        coll_options o = coll_options_default();
        o.channels = 1;
        o.uid = i;
        if (ru->paths == CONTENTION_PATHS_CHOSEN)
            o.seed = ru->seed;
        g_autoptr(coll_plan) p = coll_plan_new(t, a, COLL_ALLREDUCE, 1.0, &o, error);
        if (!p)
            return false;
        if (ru->paths == CONTENTION_PATHS_CHOSEN)
            contention_chosen_links(t, p, links);
        else if (!contention_plan_links(t, p, links, error))
            return false;
    }
    contention_job_start(c, i, tj->gpus, a->hosts, a->n_hosts,
                         (const uint32_t *)(void *)links->data, links->len);
    return true;
}

typedef struct trace_event {
    double t_s;
    bool start; /* ends sort before starts at one instant */
    size_t job;
} trace_event;

static int cmp_event(const void *pa, const void *pb)
{
    const trace_event *a = pa, *b = pb;
    if (a->t_s != b->t_s)
        return a->t_s < b->t_s ? -1 : 1;
    if (a->start != b->start)
        return a->start ? 1 : -1;
    return (a->job > b->job) - (a->job < b->job);
}

bool contention_trace(topo *t, const trace *tr, config_placement policy, uint64_t seed,
                      contention_paths paths, contention_stats *out, GError **error)
{
    const trace_rules ru = {policy, paths, seed};
    size_t n = trace_job_count(tr);
    g_autoptr(GArray) ev = g_array_new(FALSE, FALSE, sizeof(trace_event));
    for (size_t i = 0; i < n; i++) {
        const trace_job *tj = trace_job_get(tr, i);
        if (tj->gpus < 1 || !(tj->end_s > tj->start_s))
            continue;
        trace_event s = {tj->start_s, true, i}, e = {tj->end_s, false, i};
        g_array_append_val(ev, s);
        g_array_append_val(ev, e);
    }
    g_array_sort(ev, cmp_event);
    /* the replay's placement stream (sim/replay.c): same seed, same draws */
    guint32 words[3] = {(guint32)seed, (guint32)(seed >> 32), 1};
    g_autoptr(GRand) rng = g_rand_new_with_seed_array(words, 3);
    g_autoptr(cluster) cl = cluster_new(t);
    g_autoptr(contention) c = contention_new();
    contention_set_topo(c, t);
    g_autofree cluster_alloc **allocs = g_new0(cluster_alloc *, n ? n : 1);
    memset(out, 0, sizeof *out);
    bool ok = true;
    for (guint k = 0; k < ev->len && ok; k++) {
        const trace_event *x = &g_array_index(ev, trace_event, k);
        if (x->start) {
            ok = trace_job_start(t, cl, c, trace_job_get(tr, x->job), x->job, &ru, rng, allocs,
                                 out, error);
        } else if (allocs[x->job]) {
            contention_job_end(c, x->job);
            cluster_release(cl, allocs[x->job]);
            g_clear_pointer(&allocs[x->job], cluster_alloc_free);
        }
    }
    for (size_t i = 0; i < n; i++)
        cluster_alloc_free(allocs[i]);
    size_t unplaced = out->jobs_unplaced;
    contention_get(c, out);
    out->jobs_unplaced = unplaced;
    return ok;
}
