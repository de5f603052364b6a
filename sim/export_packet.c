/* export_packet.c - the replay at packet granularity (export_packet.h).
 * Not here: the iteration graph of one job (export_packet_graph.c).
 *
 * A member of the replay's family (replay-private.h): it reads the running
 * jobs' plans at every reschedule (the decision hook) and observes their
 * transfers through the job callbacks.  Plans are freed when a job ends,
 * so a job's graph and connections are written when it is first seen.
 */
#include "export_packet.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "export_packet-private.h"
#include "replay-private.h"

/* A transfer the engine is running, for ccsim_transfers.csv. */
typedef struct xp_live {
    int64_t iteration;
    size_t transfer;
    double start_s;
} xp_live;

struct export_packet {
    replay *r;
    output_dir *d;
    output_csv *jobs, *tasks, *transfers, *conns, *routes, *decisions, *observed;
    GHashTable *seen;   /* job* -> xp_job* (every job that ran, owned) */
    GPtrArray *order;   /* xp_job* in first-seen order */
    GHashTable *live;   /* net_transfer_id -> xp_live* */
    uint64_t epoch;     /* reschedules seen */
    GError *error;      /* the first write error while the replay ran */
};

static void xp_job_free(gpointer p) { export_packet__job_free(p); }

void export_packet_free(export_packet *x)
{
    if (!x)
        return;
    if (x->r && x->r->decision_user == x) {
        x->r->decision_fn = NULL;
        x->r->decision_user = NULL;
        x->r->env.xfer_started = NULL;
        x->r->env.xfer_done = NULL;
    }
    g_hash_table_destroy(x->seen);
    g_ptr_array_free(x->order, TRUE);
    g_hash_table_destroy(x->live);
    g_clear_error(&x->error);
    g_free(x);
}

/* Keep the first error; later hooks do nothing once one is set. */
static void fail(export_packet *x, GError *e)
{
    if (!x->error)
        x->error = e;
    else
        g_error_free(e);
}

static bool write_run(export_packet *x, GError **error)
{
    static const char *const cols[] = {"scheduler", "mode", "seed", "sim_start_s", "sim_end_s",
                                       "alpha_s", "priority_levels", NULL};
    const struct replay *r = x->r;
    output_csv *c = output_csv_open(x->d, "packet_run.csv", false, cols, error);
    if (!c)
        return false;
    output_csv_str(c, r->ops->name);
    output_csv_str(c, r->cfg->sim.mode == CONFIG_MODE_WORK ? "work" : "window");
    output_csv_int(c, (int64_t)r->cfg->sim.seed);
    output_csv_double(c, r->sim_start_s);
    output_csv_double(c, r->sim_end_s);
    output_csv_double(c, r->env.alpha_s);
    output_csv_int(c, r->levels);
    return output_csv_end_row(c, error);
}

static bool write_topology(export_packet *x, GError **error)
{
    static const char *const ncols[] = {"node", "name", "kind", NULL};
    static const char *const lcols[] = {"link", "src", "dst", "rate_Bps", "latency_s", "tier",
                                        NULL};
    const topo *t = x->r->t;
    output_csv *n = output_csv_open(x->d, "packet_nodes.csv", false, ncols, error);
    if (!n)
        return false;
    for (size_t v = 0; v < topo_node_count(t); v++) {
        output_csv_int(n, (int64_t)v);
        output_csv_str(n, topo_node_name(t, (uint32_t)v));
        output_csv_str(n, topo_node_kind_name(topo_node_get_kind(t, (uint32_t)v)));
        if (!output_csv_end_row(n, error))
            return false;
    }
    output_csv *l = output_csv_open(x->d, "packet_links.csv", false, lcols, error);
    if (!l)
        return false;
    for (size_t e = 0; e < topo_link_count(t); e++) {
        const topo_link *L = topo_link_get(t, (uint32_t)e);
        output_csv_int(l, (int64_t)e);
        output_csv_int(l, L->src);
        output_csv_int(l, L->dst);
        output_csv_double(l, L->cap_Bps);
        output_csv_double(l, L->latency_s);
        output_csv_str(l, topo_tier_name(L->tier));
        if (!output_csv_end_row(l, error))
            return false;
    }
    return true;
}

/* The route of connection c of job jb now: its links, and the candidate
 * path in its middle (-1 for a connection inside a host). */
static void conn_route(const job *jb, const xp_conn *c, GArray *out, int64_t *path)
{
    g_array_set_size(out, 0);
    g_array_append_vals(out, c->links->data, c->before);
    *path = -1;
    if (c->flow != COLL_NO_FLOW) {
        const coll_flow *f = coll_plan_flow(jb->plan, c->flow);
        g_array_append_vals(out, f->links->data, f->links->len);
        *path = (int64_t)f->path;
    }
    g_array_append_vals(out, (const uint32_t *)(void *)c->links->data + c->before,
                        c->links->len - c->before);
}

static char *links_str(const GArray *links)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < links->len; i++)
        g_string_append_printf(s, "%s%u", i ? " " : "", g_array_index(links, uint32_t, i));
    return g_string_free(s, FALSE);
}

/* Routes of jb's connections whose path changed since the last epoch. */
static bool write_routes(export_packet *x, const job *jb, xp_job *xj, double now_s,
                         GError **error)
{
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (guint c = 0; c < xj->conns->len; c++) {
        xp_conn *xc = &g_array_index(xj->conns, xp_conn, c);
        int64_t path;
        conn_route(jb, xc, links, &path);
        if (xc->written && path == xc->path)
            continue;
        xc->written = true;
        xc->path = path;
        g_autofree char *ls = links_str(links);
        output_csv_int(x->routes, (int64_t)x->epoch);
        output_csv_double(x->routes, now_s);
        output_csv_str(x->routes, jb->spec.id);
        output_csv_int(x->routes, c);
        output_csv_int(x->routes, path);
        output_csv_str(x->routes, ls);
        if (!output_csv_end_row(x->routes, error))
            return false;
    }
    return true;
}

static bool write_decision(export_packet *x, const job *jb, double now_s, GError **error)
{
    output_csv_int(x->decisions, (int64_t)x->epoch);
    output_csv_double(x->decisions, now_s);
    output_csv_str(x->decisions, jb->spec.id);
    output_csv_int(x->decisions, jb->priority);
    output_csv_double(x->decisions, jb->pending_shift_s);
    return output_csv_end_row(x->decisions, error);
}

/* The decision hook: every reschedule is an epoch. */
static bool on_decisions(void *user, sched_ctx *ctx)
{
    export_packet *x = user;
    const struct replay *r = ctx->r;
    if (x->error)
        return false;
    double now = evq_now(r->q);
    GError *e = NULL;
    for (guint i = 0; i < r->running->len; i++) {
        const job *jb = g_ptr_array_index(r->running, i);
        xp_job *xj = g_hash_table_lookup(x->seen, jb);
        if (!xj) {
            xj = export_packet__graph(r, jb, x->tasks, x->transfers, x->conns, &e);
            if (!xj) {
                fail(x, e);
                return false;
            }
            g_hash_table_insert(x->seen, (gpointer)jb, xj);
            g_ptr_array_add(x->order, (gpointer)jb);
        }
        if (!write_decision(x, jb, now, &e) || !write_routes(x, jb, xj, now, &e)) {
            fail(x, e);
            return false;
        }
    }
    x->epoch++;
    return true;
}

/* The job callbacks get the replay (job_env.user); the exporter is its
 * decision hook's user. */
static export_packet *exporter_of(void *replay_user)
{
    return ((struct replay *)replay_user)->decision_user;
}

static void on_xfer_started(void *user, const job *jb, uint32_t unit, size_t step, size_t xfer,
                            net_transfer_id id, double now_s)
{
    export_packet *x = exporter_of(user);
    xp_job *xj = g_hash_table_lookup(x->seen, jb);
    g_assert(xj);
    xp_live *lv = g_new(xp_live, 1);
    lv->iteration = jb->iterations;
    lv->transfer = export_packet__transfer(xj, unit, step, xfer);
    lv->start_s = now_s;
    g_hash_table_insert(x->live, GSIZE_TO_POINTER((gsize)id), lv);
}

static void on_xfer_done(void *user, const job *jb, net_transfer_id id, double now_s)
{
    export_packet *x = exporter_of(user);
    xp_live *lv = g_hash_table_lookup(x->live, GSIZE_TO_POINTER((gsize)id));
    if (!lv || x->error)
        return;
    output_csv_str(x->observed, jb->spec.id);
    output_csv_int(x->observed, lv->iteration);
    output_csv_int(x->observed, (int64_t)lv->transfer);
    output_csv_double(x->observed, lv->start_s);
    output_csv_double(x->observed, now_s);
    output_csv_double(x->observed, now_s - lv->start_s);
    GError *e = NULL;
    if (!output_csv_end_row(x->observed, &e))
        fail(x, e);
    g_hash_table_remove(x->live, GSIZE_TO_POINTER((gsize)id));
}

static bool open_streams(export_packet *x, GError **error)
{
    static const char *const tcols[] = {"job_id", "task", "kind", "duration_s", "gpus", "deps",
                                        "transfer", "conn", "bytes", "delay_s", NULL};
    static const char *const xcols[] = {"job_id", "transfer", "unit", "step", "xfer",
                                        "bytes", "hops", "ring_steps", "start_task",
                                        "end_task", NULL};
    static const char *const ccols[] = {"job_id", "conn", "src_node", "dst_node", "flow",
                                        "src_nic", "dst_nic", "n_paths", "flow_key",
                                        "ecmp_path", NULL};
    static const char *const rcols[] = {"epoch", "time_s", "job_id", "conn", "path", "links",
                                        NULL};
    static const char *const dcols[] = {"epoch", "time_s", "job_id", "priority", "shift_s",
                                        NULL};
    static const char *const ocols[] = {"job_id", "iteration", "transfer", "start_s", "end_s",
                                        "fct_s", NULL};
    return (x->tasks = output_csv_open(x->d, "packet_tasks.csv", false, tcols, error)) &&
           (x->transfers = output_csv_open(x->d, "packet_transfers.csv", false, xcols, error)) &&
           (x->conns = output_csv_open(x->d, "packet_conns.csv", false, ccols, error)) &&
           (x->routes = output_csv_open(x->d, "packet_routes.csv", false, rcols, error)) &&
           (x->decisions = output_csv_open(x->d, "packet_decisions.csv", false, dcols, error)) &&
           (x->observed = output_csv_open(x->d, "ccsim_transfers.csv", false, ocols, error));
}

export_packet *export_packet_new(replay *r, output_dir *d, GError **error)
{
    g_return_val_if_fail(r && d && !r->ran, NULL);
    if (r->env.ideal || r->ops->on_comm) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_UNSUPPORTED,
                    "export-packet: scheduler %s %s", r->ops->name,
                    r->env.ideal ? "runs jobs as if alone (no transfers to export)"
                                 : "decides at every communication phase; the export "
                                   "records decisions at job starts and ends only");
        return NULL;
    }
    g_autoptr(export_packet) x = g_new0(export_packet, 1);
    x->d = d;
    x->seen = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, xp_job_free);
    x->order = g_ptr_array_new();
    x->live = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    x->r = r;
    if (!write_run(x, error) || !write_topology(x, error) || !open_streams(x, error))
        return NULL;
    r->cfg->sim.fast_forward = false;
    replay_set_decision_hook(r, on_decisions, x);
    r->env.xfer_started = on_xfer_started;
    r->env.xfer_done = on_xfer_done;
    return g_steal_pointer(&x);
}

bool export_packet_finish(export_packet *x, GError **error)
{
    if (x->error) {
        g_propagate_error(error, g_steal_pointer(&x->error));
        return false;
    }
    static const char *const cols[] = {"job_id", "gpus", "start_s", "stop_s",
                                       "target_iterations", "tasks", "transfers", "conns",
                                       NULL};
    output_csv *c = output_csv_open(x->d, "packet_jobs.csv", false, cols, error);
    if (!c)
        return false;
    for (guint i = 0; i < x->order->len; i++) {
        const job *jb = g_ptr_array_index(x->order, i);
        const xp_job *xj = g_hash_table_lookup(x->seen, jb);
        output_csv_str(c, jb->spec.id);
        output_csv_int(c, jb->spec.gpus);
        output_csv_double(c, jb->run_start_s);
        output_csv_double(c, jb->run_end_s);
        output_csv_int(c, jb->target_iters);
        output_csv_int(c, (int64_t)xj->tasks);
        output_csv_int(c, (int64_t)xj->transfers);
        output_csv_int(c, xj->conns->len);
        if (!output_csv_end_row(c, error))
            return false;
    }
    return true;
}
