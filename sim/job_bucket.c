/* job_bucket.c - a job's gradient buckets: measured alone (isolated times)
 * and run on the network.  Not here: the iteration (job.c), job_ffwd.c.
 */
#include "job.h"

#include <math.h>

#include "job-private.h"

double job_isolated_iter_s(double C, double s, double opt_s, int buckets, double bucket_s)
{
    if (buckets < 1)
        buckets = 1;
    double e = 0;
    if (bucket_s > 0)
        for (int k = 0; k < buckets; k++) {
            double ready = s * C + k * (1.0 - s) * C / buckets;
            e = fmax(ready, e) + bucket_s;
        }
    return fmax(C, e) + opt_s;
}

static void trace_record(bucket_trace *tr, net *n, const GArray *tiers)
{
    double now = evq_now(net_evq(n));
    double b[TOPO_TIER_COUNT];
    job_graph_tier_bytes(n, tiers, b);
    g_array_append_val(tr->t_s, now);
    g_array_append_vals(tr->bytes, b, TOPO_TIER_COUNT);
}

/* One bucket of j's plan alone on a fresh network of its links; with tr,
 * record its per-tier carried bytes after every event. */
bool job__simulate_bucket(job *j, topo *t, double alpha_s, double *out_s, bucket_trace *tr,
                            GError **error)
{
    double bucket_s = 0;
    if (j->plan && coll_plan_step_count(j->plan) > 0) {
        g_autoptr(evq) q = evq_new();
        net_options o = net_options_default();
        o.prio_levels = 1;
        g_autoptr(net) n = net_new(&o, q, error);
        if (!n)
            return false;
        g_autoptr(GHashTable) map = g_hash_table_new(g_direct_hash, g_direct_equal);
        g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_autoptr(GArray) mult = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_autoptr(GArray) local = g_array_new(FALSE, FALSE, sizeof(net_link_id));
        g_autoptr(GArray) tiers = g_array_new(FALSE, FALSE, sizeof(int)); /* per local link */
        if (tr)
            trace_record(tr, n, tiers);
        for (size_t s = 0; s < coll_plan_step_count(j->plan); s++) {
            for (size_t i = 0; i < coll_plan_xfer_count(j->plan, s); i++) {
                const coll_xfer *x = coll_plan_xfer(j->plan, s, i);
                coll_xfer_links(j->plan, x, links, mult);
                g_array_set_size(local, links->len);
                for (guint l = 0; l < links->len; l++) {
                    uint32_t tl = g_array_index(links, uint32_t, l);
                    gpointer v = g_hash_table_lookup(map, GSIZE_TO_POINTER((gsize)tl + 1));
                    if (!v) {
                        const topo_link *L = topo_link_get(t, tl);
                        net_link_id id;
                        if (!net_link_add(n, L->cap_Bps, L->latency_s, &id, error))
                            return false;
                        int tier = (int)L->tier;
                        g_array_append_val(tiers, tier);
                        v = GSIZE_TO_POINTER((gsize)id + 1);
                        g_hash_table_insert(map, GSIZE_TO_POINTER((gsize)tl + 1), v);
                    }
                    g_array_index(local, net_link_id, l) = (net_link_id)(GPOINTER_TO_SIZE(v) - 1);
                }
                net_transfer_spec sp = {
                    .size_bytes = x->bytes,
                    .links = (const net_link_id *)(void *)local->data,
                    .mult = (const uint32_t *)(void *)mult->data,
                    .n_links = local->len,
                    .prio = 0,
                    .weight = 1.0,
                    .startup_s = coll_xfer_startup_s(j->plan, x, alpha_s),
                };
                net_transfer_id id;
                if (!net_transfer_start(n, &sp, &id, error)) {
                    g_prefix_error(error, "job %s: ", j->spec.id);
                    return false;
                }
            }
            if (!tr)
                evq_run_until(q, INFINITY);
            while (tr && evq_step(q))
                trace_record(tr, n, tiers);
        }
        bucket_s = evq_now(q);
    }
    *out_s = bucket_s;
    return true;
}

bool job_compute_isolated(job *j, topo *t, double alpha_s, GError **error)
{
    double bucket_s = 0, ecmp_s = 0;
    if (j->plan) {
        /* alone, the job would route its own flows apart: measure with the
         * spread paths, then give the flows their ECMP paths back */
        size_t nf = coll_plan_flow_count(j->plan);
        g_autofree size_t *saved = g_new(size_t, nf ? nf : 1);
        for (size_t f = 0; f < nf; f++)
            saved[f] = coll_plan_flow(j->plan, f)->path;
        bool ok = coll_plan_spread_paths(j->plan, t, error) &&
                  job__simulate_bucket(j, t, alpha_s, &bucket_s, NULL, error);
        bool moved = false;
        for (size_t f = 0; f < nf; f++)
            if (coll_plan_flow(j->plan, f)->path != saved[f]) {
                moved = true;
                if (!coll_plan_set_path(j->plan, t, f, saved[f], ok ? error : NULL))
                    ok = false;
            }
        /* alone on its ECMP paths (the yardstick of "slowed by another
         * job", docs/traces.md): the same unless spreading moved a flow */
        ecmp_s = bucket_s;
        if (ok && moved)
            ok = job__simulate_bucket(j, t, alpha_s, &ecmp_s, NULL, error);
        if (!ok)
            return false;
    }
    j->isolated_bucket_s = bucket_s;
    j->isolated_iter_s = job_isolated_iter_s(j->spec.compute_s, j->spec.fwd_frac, j->spec.opt_s,
                                             j->spec.buckets, bucket_s);
    j->alone_ecmp_iter_s = job_isolated_iter_s(j->spec.compute_s, j->spec.fwd_frac,
                                               j->spec.opt_s, j->spec.buckets, ecmp_s);
    return true;
}

static void on_transfer_done(void *user, net_transfer_id id, double now_s)
{
    job *j = user;
    if (j->env->xfer_done)
        j->env->xfer_done(j->env->user, j, id, now_s);
    for (guint i = 0; i < j->active->len; i++)
        if (g_array_index(j->active, net_transfer_id, i) == id) {
            g_array_remove_index_fast(j->active, i);
            break;
        }
    if (j->active->len == 0) {
        j->old_path_xfers = false;
        job__push(j, now_s, EV_STEP_DONE);
    }
}

static void start_step(job *j, double now_s)
{
    const job_env *env = j->env;
    size_t nx = coll_plan_xfer_count(j->plan, j->step);
    for (size_t i = 0; i < nx; i++) {
        const coll_xfer *x = coll_plan_xfer(j->plan, j->step, i);
        const uint32_t *links, *mult;
        size_t n_links = coll_xfer_net_link_set(j->plan, x, &links, &mult);
        net_transfer_spec sp = {
            .size_bytes = x->bytes,
            .links = links,
            .mult = mult,
            .n_links = n_links,
            .prio = j->class_priority[JOB_GRAPH_DP] >= 0 ? j->class_priority[JOB_GRAPH_DP]
                                                         : j->net_level,
            .weight = 1.0,
            .startup_s = coll_xfer_startup_s(j->plan, x, env->alpha_s),
            .tag = j->intensity,
            .on_done = on_transfer_done,
            .user = j,
        };
        net_transfer_id id;
        GError *e = NULL;
        if (!net_transfer_start(env->n, &sp, &id, &e)) {
            /* an engine invariant broke (links and sizes come from the
             * topology, numbers from checked limits): stop the run with the
             * error rather than hang the job or abort the process */
            g_prefix_error(&e, "job %s: ", j->spec.id);
            if (env->failed)
                env->failed(env->user, j, e);
            else {
                g_critical("%s", e->message);
                g_error_free(e);
            }
            return;
        }
        g_array_append_val(j->active, id);
        if (env->xfer_started)
            env->xfer_started(env->user, j, (uint32_t)j->buckets_started - 1, j->step, i, id,
                              now_s);
    }
    if (nx == 0)
        job__push(j, now_s, EV_STEP_DONE);
}

void job__try_start_bucket(job *j, double now_s)
{
    if (j->bucket_running || j->buckets_started >= j->buckets_ready)
        return;
    j->bucket_running = true;
    j->buckets_started++;
    if (j->buckets_started == 1 && j->env->comm_phase) {
        uint32_t gen = j->gen;
        j->env->comm_phase(j->env->user, j, true, now_s);
        if (gen != j->gen || j->state != JOB_RUNNING)
            return;
    }
    if (j->env->ideal) {
        job__push(j, now_s + j->isolated_bucket_s, EV_BUCKET_DONE_IDEAL);
        return;
    }
    j->step = 0;
    start_step(j, now_s);
}

void job__bucket_done(job *j, double now_s)
{
    j->bucket_running = false;
    j->buckets_done++;
    if (j->buckets_done == j->spec.buckets) {
        if (j->env->comm_phase) {
            uint32_t gen = j->gen;
            j->env->comm_phase(j->env->user, j, false, now_s);
            if (gen != j->gen || j->state != JOB_RUNNING)
                return;
        }
        job__check_end(j, now_s);
    } else {
        job__try_start_bucket(j, now_s);
    }
}

void job__step_done(job *j, double now_s)
{
    j->step++;
    if (j->step < coll_plan_step_count(j->plan))
        start_step(j, now_s);
    else
        job__bucket_done(j, now_s);
}
