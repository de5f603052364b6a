/* export_packet_graph.c - one job's iteration as a dependency graph of
 * tasks, from the replay's own collective plan (export_packet.h).
 * Not here: the files and the observation of the run (export_packet.c).
 *
 * A plain job's graph is the iteration state machine of sim/job.c
 * written out:
 *   compute  C seconds, the job's n GPUs busy, from the iteration start;
 *   bucket b ready  a timer of s C + b (1 - s) C / B from the start;
 *   bucket b start  after its ready timer and bucket b-1's end;
 *   step k          after step k-1 (step 0: the bucket's start); its
 *                   transfers, each expanded into flows (export_packet.h),
 *                   end with a barrier each; the step ends when all have;
 *   optimizer       T_opt seconds, GPUs busy, after the compute and the
 *                   last bucket; the iteration ends with it.
 * A structured job's graph is its job_graph (job_graph.h) task for task:
 * a compute task keeps its GPUs busy for its duration; a communication
 * task runs its operation's steps as above; each waits for its
 * predecessors.  Barriers and timers are "wait" tasks (no GPU busy); a
 * task without dependencies starts with the iteration.
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
    g_ptr_array_free(xj->units, TRUE);
    g_free(xj);
}

size_t export_packet__transfer(const xp_job *xj, uint32_t unit, size_t step, size_t xfer)
{
    g_assert(unit < xj->units->len && g_ptr_array_index(xj->units, unit));
    return g_array_index((GArray *)g_ptr_array_index(xj->units, unit), size_t, step) + xfer;
}

static void unit_free(gpointer p)
{
    if (p)
        g_array_free(p, TRUE);
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

/* Hop h's node at its start (end false) or end: the end of its host links
 * on that side, or of its flow's path when it has none there. */
static uint32_t hop_node(const topo *t, const coll_plan *p, const coll_xfer *x,
                         const coll_hop *h, bool end)
{
    const uint32_t *fx = (const uint32_t *)(void *)x->fixed->data + h->first;
    uint32_t n = h->before + h->after;
    bool net = h->flow != COLL_NO_FLOW;
    if (!end && (h->before > 0 || !net))
        return topo_link_get(t, fx[0])->src;
    if (end && (h->after > 0 || !net))
        return topo_link_get(t, fx[n - 1])->dst;
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
 * barrier (returned).  A transfer merging `repeat` collectives runs their
 * lock-steps one after the other. */
static size_t expand(graph *g, const coll_xfer *x, size_t start, size_t tid)
{
    size_t H = x->hops->len;
    size_t S = (size_t)(x->steps >= 1 ? x->steps : 1) * (size_t)(x->repeat >= 1 ? x->repeat : 1);
    double chunk = x->bytes / (double)S;
    g_autofree size_t *prev = g_new(size_t, H ? H : 1);
    g_autofree size_t *cur = g_new(size_t, H ? H : 1);
    g_autofree int64_t *conn = g_new(int64_t, H ? H : 1);
    for (size_t h = 0; h < H; h++)
        conn[h] = conn_of(g, x, &g_array_index(x->hops, coll_hop, h));
    for (size_t k = 0; k < S; k++) {
        for (size_t h = 0; h < H; h++) {
            size_t dep = k == 0 ? start : prev[g_array_index(x->hops, coll_hop, h).prev];
            cur[h] = task(g, "flow", 0, 0, &dep, 1, (int64_t)tid, conn[h], chunk,
                          g->r->env.alpha_s);
        }
        size_t *tmp = prev;
        prev = cur;
        cur = tmp;
    }
    return H ? wait_task(g, 0, prev, H) : start;
}

static void transfer_row(graph *g, size_t tid, uint32_t unit, size_t st, size_t xi,
                         const coll_xfer *x, size_t start, size_t end)
{
    output_csv *o = g->transfers;
    output_csv_str(o, g->jb->spec.id);
    output_csv_int(o, (int64_t)tid);
    output_csv_int(o, unit);
    output_csv_int(o, (int64_t)st);
    output_csv_int(o, (int64_t)xi);
    output_csv_double(o, x->bytes);
    output_csv_int(o, x->hops->len);
    output_csv_int(o, (int64_t)(x->steps >= 1 ? x->steps : 1) * (x->repeat >= 1 ? x->repeat : 1));
    output_csv_int(o, (int64_t)start);
    output_csv_int(o, (int64_t)end);
    if (!g->error)
        output_csv_end_row(o, &g->error);
}

/* Operation op of the plan as unit `unit`, issued when the tasks deps
 * (n of them, NO_TASK ignored) are done: its steps one after the other;
 * its last task. */
static size_t run_op(graph *g, size_t op, uint32_t unit, const size_t *deps, size_t n)
{
    const coll_plan *p = g->jb->plan;
    size_t cur = wait_task(g, 0, deps, n);
    GArray *base = g_array_new(FALSE, FALSE, sizeof(size_t));
    if (g->xj->units->len <= unit)
        g_ptr_array_set_size(g->xj->units, unit + 1);
    g_ptr_array_index(g->xj->units, unit) = base;
    g_autoptr(GArray) ends = g_array_new(FALSE, FALSE, sizeof(size_t));
    for (size_t st = 0; st < coll_plan_op_step_count(p, op); st++) {
        g_array_append_val(base, g->xj->transfers);
        g_array_set_size(ends, 0);
        for (size_t xi = 0; xi < coll_plan_op_xfer_count(p, op, st); xi++) {
            const coll_xfer *x = coll_plan_op_xfer(p, op, st, xi);
            size_t tid = g->xj->transfers++;
            size_t end = expand(g, x, cur, tid);
            transfer_row(g, tid, unit, st, xi, x, cur, end);
            g_array_append_val(ends, end);
        }
        if (ends->len)
            cur = wait_task(g, 0, (const size_t *)(void *)ends->data, ends->len);
    }
    return cur;
}

/* A plain job's iteration (sim/job.c). */
static void plain_graph(graph *g)
{
    const job_spec *sp = &g->jb->spec;
    const coll_plan *p = g->jb->plan;
    double C = sp->compute_s, s = sp->fwd_frac;
    int B = sp->buckets >= 1 ? sp->buckets : 1;
    size_t comp = task(g, "compute", C, sp->gpus, NULL, 0, -1, -1, 0, 0);
    size_t last = NO_TASK;
    bool comm = p && coll_plan_step_count(p) > 0 && sp->comm_bytes > 0; /* job__has_comm */
    for (int b = 0; comm && b < B; b++) {
        size_t deps[2] = {wait_task(g, s * C + b * (1.0 - s) * C / B, NULL, 0), last};
        last = run_op(g, 0, (uint32_t)b, deps, 2);
    }
    size_t deps[2] = {comp, last};
    task(g, "compute", sp->opt_s, sp->gpus, deps, 2, -1, -1, 0, 0);
}

/* A structured job's iteration: its job_graph's tasks in a topological
 * order, each after the export tasks that end its predecessors. */
static void structured_graph(graph *g)
{
    const job_graph *jg = g->jb->graph;
    size_t n = job_graph_task_count(jg);
    g_autoptr(GPtrArray) preds = g_ptr_array_new_with_free_func(unit_free);
    g_autofree uint32_t *left = g_new0(uint32_t, n ? n : 1);
    g_autofree size_t *end = g_new(size_t, n ? n : 1);
    for (size_t i = 0; i < n; i++)
        g_ptr_array_add(preds, g_array_new(FALSE, FALSE, sizeof(size_t)));
    for (size_t i = 0; i < n; i++) {
        const job_graph_task *t = job_graph_task_get(jg, i);
        const uint32_t *succ = job_graph_succ(jg, i);
        for (uint32_t k = 0; k < t->n_succ; k++)
            g_array_append_val((GArray *)g_ptr_array_index(preds, succ[k]), i);
        left[i] = t->n_pred;
    }
    g_autoptr(GArray) ready = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++)
        if (left[i] == 0)
            g_array_append_val(ready, i);
    g_autoptr(GArray) deps = g_array_new(FALSE, FALSE, sizeof(size_t));
    for (guint at = 0; at < ready->len; at++) {
        uint32_t i = g_array_index(ready, uint32_t, at);
        const job_graph_task *t = job_graph_task_get(jg, i);
        GArray *pr = g_ptr_array_index(preds, i);
        g_array_set_size(deps, 0);
        for (guint k = 0; k < pr->len; k++)
            g_array_append_val(deps, end[g_array_index(pr, size_t, k)]);
        const size_t *d = (const size_t *)(void *)deps->data;
        end[i] = t->kind == JOB_GRAPH_COMPUTE
                     ? task(g, "compute", t->dur_s, t->gpus, d, deps->len, -1, -1, 0, 0)
                     : run_op(g, (size_t)t->op, i, d, deps->len);
        const uint32_t *succ = job_graph_succ(jg, i);
        for (uint32_t k = 0; k < t->n_succ; k++)
            if (--left[succ[k]] == 0)
                g_array_append_val(ready, succ[k]);
    }
}

xp_job *export_packet__graph(const struct replay *r, const job *jb, output_csv *tasks,
                             output_csv *transfers, output_csv *conns, GError **error)
{
    xp_job *xj = g_new0(xp_job, 1);
    xj->conns = g_array_new(FALSE, TRUE, sizeof(xp_conn));
    g_array_set_clear_func(xj->conns, conn_clear);
    xj->units = g_ptr_array_new_with_free_func(unit_free);
    graph g = {.r = r, .jb = jb, .xj = xj, .tasks = tasks, .transfers = transfers,
               .conns = conns};
    g.flow_conn = g_hash_table_new(g_direct_hash, g_direct_equal);
    g.pair_conn = g_hash_table_new(g_direct_hash, g_direct_equal);
    if (jb->graph)
        structured_graph(&g);
    else
        plain_graph(&g);
    xj->tasks = g.n;
    g_hash_table_destroy(g.flow_conn);
    g_hash_table_destroy(g.pair_conn);
    if (g.error) {
        g_propagate_error(error, g.error);
        export_packet__job_free(xj);
        return NULL;
    }
    return xj;
}
