/* export_packet_graph.c - one job's iteration as a dependency graph of
 * tasks, from the replay's own collective plan (export_packet.h).
 * Not here: the files and the observation of the run (export_packet.c).
 *
 * The graph is the iteration state machine of sim/job.c written out:
 *   compute  C seconds, the job's n GPUs busy, from the iteration start;
 *   bucket b ready  a timer of s C + b (1 - s) C / B from the start;
 *   bucket b start  after its ready timer and bucket b-1's end;
 *   step k          after step k-1 (step 0: the bucket's start); its
 *                   transfers, each expanded into flows (export_packet.h),
 *                   end with a barrier each; the step ends when all have;
 *   optimizer       T_opt seconds, GPUs busy, after the compute and the
 *                   last bucket; the iteration ends with it.
 * Barriers and timers are "wait" tasks (no GPU busy); a task without
 * dependencies starts with the iteration.
 */
#include <inttypes.h>
#include <string.h>

#include "base/ccs.h"
#include "export_packet-private.h"
#include "replay-private.h"

#define NO_TASK SIZE_MAX

typedef struct graph {
    const struct replay *r;
    const job *jb;
    xp_job *xj;
    output_csv *tasks, *transfers, *conns;
    size_t n;              /* tasks written */
    GHashTable *flow_conn; /* flow index -> connection index + 1 */
    GHashTable *pair_conn; /* (src node << 32 | dst node) -> connection index + 1 */
    GError *error;         /* the first error */
} graph;

static void conn_clear(gpointer p)
{
    xp_conn *c = p;
    if (c->links)
        g_array_free(c->links, TRUE);
}

void export_packet__job_free(xp_job *xj)
{
    if (!xj)
        return;
    g_array_free(xj->conns, TRUE);
    g_array_free(xj->step_base, TRUE);
    g_free(xj);
}

static char *deps_str(const size_t *deps, size_t n)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < n; i++)
        if (deps[i] != NO_TASK)
            g_string_append_printf(s, "%s%zu", s->len ? " " : "", deps[i]);
    return g_string_free(s, FALSE);
}

/* Write one task row; its index.  kind "compute" (gpus busy for
 * duration_s), "wait" (a timer or barrier) or "flow" (bytes on conn of
 * transfer, sent delay_s after its dependencies). */
static size_t task(graph *g, const char *kind, double duration_s, int gpus, const size_t *deps,
                   size_t n_deps, int64_t transfer, int64_t conn, double bytes, double delay_s)
{
    g_autofree char *ds = deps_str(deps, n_deps);
    output_csv *c = g->tasks;
    output_csv_str(c, g->jb->spec.id);
    output_csv_int(c, (int64_t)g->n);
    output_csv_str(c, kind);
    output_csv_double(c, duration_s);
    output_csv_int(c, gpus);
    output_csv_str(c, ds);
    output_csv_int(c, transfer);
    output_csv_int(c, conn);
    output_csv_double(c, bytes);
    output_csv_double(c, delay_s);
    if (!g->error)
        output_csv_end_row(c, &g->error);
    return g->n++;
}

static size_t wait_task(graph *g, double duration_s, const size_t *deps, size_t n_deps)
{
    return task(g, "wait", duration_s, 0, deps, n_deps, -1, -1, 0, 0);
}

/* Hop h's node at its start (end false) or end. */
static uint32_t hop_node(const topo *t, const coll_plan *p, const coll_xfer *x,
                         const coll_hop *h, bool end)
{
    const uint32_t *fx = (const uint32_t *)(void *)x->fixed->data;
    if (!end && h->before > 0)
        return topo_link_get(t, fx[h->first])->src;
    if (end && h->after > 0)
        return topo_link_get(t, fx[h->first + h->before + h->after - 1])->dst;
    const coll_flow *f = coll_plan_flow(p, h->flow);
    return end ? f->dst_nic : f->src_nic;
}

static void conn_row(graph *g, size_t c, uint32_t src, uint32_t dst, const coll_flow *f,
                     uint32_t flow)
{
    output_csv *o = g->conns;
    const struct replay *r = g->r;
    output_csv_str(o, g->jb->spec.id);
    output_csv_int(o, (int64_t)c);
    output_csv_int(o, src);
    output_csv_int(o, dst);
    output_csv_int(o, f ? (int64_t)flow : -1);
    output_csv_int(o, f ? (int64_t)f->src_nic : -1);
    output_csv_int(o, f ? (int64_t)f->dst_nic : -1);
    output_csv_int(o, f ? (int64_t)f->n_paths : 1);
    g_autofree char *key =
        f ? g_strdup_printf("%" PRIu64, coll_flow_key(g->jb->uid, flow)) : g_strdup("");
    output_csv_str(o, key);
    output_csv_int(o, f ? (int64_t)topo_path_ecmp(r->t, f->src_nic, f->dst_nic,
                                                   coll_flow_key(g->jb->uid, flow),
                                                   r->cfg->sim.seed)
                        : -1);
    if (!g->error)
        output_csv_end_row(o, &g->error);
}

/* The connection hop h of x rides (created on first use). */
static int64_t conn_of(graph *g, const coll_xfer *x, const coll_hop *h)
{
    const coll_plan *p = g->jb->plan;
    const topo *t = g->r->t;
    uint32_t src = hop_node(t, p, x, h, false), dst = hop_node(t, p, x, h, true);
    const uint32_t *fx = (const uint32_t *)(void *)x->fixed->data + h->first;
    bool net = h->flow != COLL_NO_FLOW;
    GHashTable *tab = net ? g->flow_conn : g->pair_conn;
    gpointer key = net ? GSIZE_TO_POINTER((gsize)h->flow) : GSIZE_TO_POINTER((gsize)src << 32 | dst);
    gpointer v = g_hash_table_lookup(tab, key);
    if (v) {
        const xp_conn *c = &g_array_index(g->xj->conns, xp_conn, GPOINTER_TO_SIZE(v) - 1);
        if (c->before != h->before || c->links->len != h->before + h->after ||
            memcmp(c->links->data, fx, c->links->len * sizeof *fx) != 0) {
            if (!g->error)
                g_set_error(&g->error, CCS_ERROR, CCS_ERROR_INTERNAL,
                            "job %s: flow %u leaves or enters its hosts by two routes",
                            g->jb->spec.id, h->flow);
        }
        return (int64_t)GPOINTER_TO_SIZE(v) - 1;
    }
    xp_conn c = {.flow = h->flow, .before = h->before, .path = -1};
    c.links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_array_append_vals(c.links, fx, h->before + h->after);
    g_array_append_val(g->xj->conns, c);
    size_t idx = g->xj->conns->len - 1;
    g_hash_table_insert(tab, key, GSIZE_TO_POINTER(idx + 1));
    conn_row(g, idx, src, dst, net ? coll_plan_flow(p, h->flow) : NULL, h->flow);
    return (int64_t)idx;
}

/* Transfer x (index tid) issued by task start: its flows and its end
 * barrier (returned). */
static size_t expand(graph *g, const coll_xfer *x, size_t start, size_t tid)
{
    size_t H = x->hops->len, S = x->steps >= 1 ? (size_t)x->steps : 1;
    double chunk = x->bytes / (double)S;
    g_autofree size_t *prev = g_new(size_t, H ? H : 1);
    g_autofree size_t *cur = g_new(size_t, H ? H : 1);
    g_autofree int64_t *conn = g_new(int64_t, H ? H : 1);
    for (size_t h = 0; h < H; h++)
        conn[h] = conn_of(g, x, &g_array_index(x->hops, coll_hop, h));
    for (size_t k = 0; k < S; k++) {
        for (size_t h = 0; h < H; h++) {
            size_t dep = k == 0 ? start : prev[(h + H - 1) % H];
            cur[h] = task(g, "flow", 0, 0, &dep, 1, (int64_t)tid, conn[h], chunk,
                          g->r->env.alpha_s);
        }
        size_t *tmp = prev;
        prev = cur;
        cur = tmp;
    }
    return H ? wait_task(g, 0, prev, H) : start;
}

static void transfer_row(graph *g, size_t tid, size_t b, size_t st, size_t xi,
                         const coll_xfer *x, size_t start, size_t end)
{
    output_csv *o = g->transfers;
    output_csv_str(o, g->jb->spec.id);
    output_csv_int(o, (int64_t)tid);
    output_csv_int(o, (int64_t)b);
    output_csv_int(o, (int64_t)st);
    output_csv_int(o, (int64_t)xi);
    output_csv_double(o, x->bytes);
    output_csv_int(o, x->hops->len);
    output_csv_int(o, x->steps >= 1 ? x->steps : 1);
    output_csv_int(o, (int64_t)start);
    output_csv_int(o, (int64_t)end);
    if (!g->error)
        output_csv_end_row(o, &g->error);
}

/* Bucket b after task after (or NO_TASK): its steps; its last task. */
static size_t bucket(graph *g, size_t b, size_t ready, size_t after)
{
    const coll_plan *p = g->jb->plan;
    size_t deps[2] = {ready, after};
    size_t cur = wait_task(g, 0, deps, 2);
    g_autoptr(GArray) ends = g_array_new(FALSE, FALSE, sizeof(size_t));
    for (size_t st = 0; st < coll_plan_step_count(p); st++) {
        g_array_set_size(ends, 0);
        for (size_t xi = 0; xi < coll_plan_xfer_count(p, st); xi++) {
            const coll_xfer *x = coll_plan_xfer(p, st, xi);
            size_t tid = b * g->xj->per_bucket + g_array_index(g->xj->step_base, size_t, st) + xi;
            size_t end = expand(g, x, cur, tid);
            transfer_row(g, tid, b, st, xi, x, cur, end);
            g_array_append_val(ends, end);
        }
        if (ends->len)
            cur = wait_task(g, 0, (const size_t *)(void *)ends->data, ends->len);
    }
    return cur;
}

xp_job *export_packet__graph(const struct replay *r, const job *jb, output_csv *tasks,
                             output_csv *transfers, output_csv *conns, GError **error)
{
    xp_job *xj = g_new0(xp_job, 1);
    xj->conns = g_array_new(FALSE, TRUE, sizeof(xp_conn));
    g_array_set_clear_func(xj->conns, conn_clear);
    xj->step_base = g_array_new(FALSE, FALSE, sizeof(size_t));
    const coll_plan *p = jb->plan;
    size_t steps = p ? coll_plan_step_count(p) : 0;
    for (size_t st = 0; st < steps; st++) {
        g_array_append_val(xj->step_base, xj->per_bucket);
        xj->per_bucket += coll_plan_xfer_count(p, st);
    }
    graph g = {.r = r, .jb = jb, .xj = xj, .tasks = tasks, .transfers = transfers,
               .conns = conns};
    g.flow_conn = g_hash_table_new(g_direct_hash, g_direct_equal);
    g.pair_conn = g_hash_table_new(g_direct_hash, g_direct_equal);
    const job_spec *sp = &jb->spec;
    double C = sp->compute_s, s = sp->fwd_frac;
    int B = sp->buckets >= 1 ? sp->buckets : 1;
    size_t comp = task(&g, "compute", C, sp->gpus, NULL, 0, -1, -1, 0, 0);
    size_t last = NO_TASK;
    bool comm = steps > 0 && sp->comm_bytes > 0; /* job.c's job__has_comm */
    for (int b = 0; comm && b < B; b++) {
        double at = s * C + b * (1.0 - s) * C / B;
        size_t ready = wait_task(&g, at, NULL, 0);
        last = bucket(&g, (size_t)b, ready, last);
    }
    size_t deps[2] = {comp, last};
    task(&g, "compute", sp->opt_s, sp->gpus, deps, 2, -1, -1, 0, 0);
    xj->tasks = g.n;
    xj->transfers = comm ? (size_t)B * xj->per_bucket : 0;
    g_hash_table_destroy(g.flow_conn);
    g_hash_table_destroy(g.pair_conn);
    if (g.error) {
        g_propagate_error(error, g.error);
        export_packet__job_free(xj);
        return NULL;
    }
    return xj;
}
