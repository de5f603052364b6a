/* sched-common.c - reads from sched_ctx shared by several schedulers:
 * standalone times, path tables, least-congested pass.  Not here: pure cores.
 *
 * A job's standalone communication time, its candidate-path table, and the
 * least-congested path pass over all running jobs (Crux §4.1, TACCL*).
 */
#include "sched-private.h"

int sched__cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

double sched__job_comm_s(sched_ctx *ctx, size_t j, uint32_t *out_link)
{
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) bytes = g_array_new(FALSE, FALSE, sizeof(double));
    sched_job_link_bytes(ctx, j, links, bytes);
    double t = 0.0;
    uint32_t arg = UINT32_MAX;
    for (guint i = 0; i < links->len; i++) {
        uint32_t e = g_array_index(links, uint32_t, i);
        double s = g_array_index(bytes, double, i) / sched_link_capacity_Bps(ctx, e);
        if (s > t) {
            t = s;
            arg = e;
        }
    }
    if (out_link)
        *out_link = arg;
    return t;
}

void sched__job_paths_load(sched_ctx *ctx, size_t j, sched__job_paths *out)
{
    sched_job_info info;
    sched_job_get(ctx, j, &info);
    out->n_flows = info.n_flows;
    out->path_base = g_array_new(FALSE, FALSE, sizeof(size_t));
    out->path_off = g_array_new(FALSE, FALSE, sizeof(size_t));
    out->all_links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_autoptr(GArray) tmp = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    size_t zero = 0;
    g_array_append_val(out->path_off, zero);
    for (size_t f = 0; f < info.n_flows; f++) {
        sched_flow_info fi;
        sched_flow_get(ctx, j, f, &fi);
        size_t base = out->path_off->len - 1;
        g_array_append_val(out->path_base, base);
        for (size_t p = 0; p < fi.n_paths; p++) {
            sched_flow_path_links(ctx, j, f, p, tmp);
            g_array_append_vals(out->all_links, tmp->data, tmp->len);
            size_t end = out->all_links->len;
            g_array_append_val(out->path_off, end);
        }
    }
}

void sched__job_paths_clear(sched__job_paths *p)
{
    g_clear_pointer(&p->path_base, g_array_unref);
    g_clear_pointer(&p->path_off, g_array_unref);
    g_clear_pointer(&p->all_links, g_array_unref);
    p->n_flows = 0;
}

void sched__select_paths(sched_ctx *ctx, const size_t *job_order, size_t n_jobs,
                         sched__job_cache *cache)
{
    size_t n_links = sched_link_count(ctx);
    g_autofree double *cap = g_new(double, n_links ? n_links : 1);
    g_autofree double *load = g_new0(double, n_links ? n_links : 1);
    for (uint32_t e = 0; e < n_links; e++)
        cap[e] = sched_link_capacity_Bps(ctx, e);

    /* Background: every running job's fixed (intra-host) links. */
    size_t n_all = sched_job_count(ctx);
    for (size_t j = 0; j < n_all; j++) {
        sched_job_info info;
        sched_job_get(ctx, j, &info);
        const uint32_t *fl;
        const double *fb;
        size_t nf = sched_job_fixed_links(ctx, j, &fl, &fb);
        double iter = info.isolated_iter_s > 0.0 ? info.isolated_iter_s : 1.0;
        for (size_t i = 0; i < nf; i++)
            load[fl[i]] += fb[i] / iter;
    }

    g_autofree sched__job_paths *own = g_new0(sched__job_paths, n_jobs ? n_jobs : 1);
    g_autofree const sched__job_paths **tabs = g_new(const sched__job_paths *, n_jobs ? n_jobs : 1);
    size_t n_flows = 0, n_cands = 0;
    for (size_t i = 0; i < n_jobs; i++) {
        if (cache) {
            tabs[i] = sched__job_cache_paths(cache, ctx, job_order[i]);
        } else {
            sched__job_paths_load(ctx, job_order[i], &own[i]);
            tabs[i] = &own[i];
        }
        n_flows += tabs[i]->n_flows;
        n_cands += tabs[i]->path_off->len - 1;
    }
    g_autofree sched__pflow *flows = g_new(sched__pflow, n_flows ? n_flows : 1);
    g_autofree sched__cand *cands = g_new(sched__cand, n_cands ? n_cands : 1);
    g_autofree size_t *order = g_new(size_t, n_flows ? n_flows : 1);
    g_autofree size_t *chosen = g_new(size_t, n_flows ? n_flows : 1);
    size_t fi = 0, ci = 0;
    for (size_t i = 0; i < n_jobs; i++) {
        sched_job_info info;
        sched_job_get(ctx, job_order[i], &info);
        double iter = info.isolated_iter_s > 0.0 ? info.isolated_iter_s : 1.0;
        const sched__job_paths *t = tabs[i];
        const size_t *off = (const size_t *)t->path_off->data;
        const uint32_t *links = (const uint32_t *)t->all_links->data;
        for (size_t f = 0; f < t->n_flows; f++, fi++) {
            sched_flow_info finfo;
            sched_flow_get(ctx, job_order[i], f, &finfo);
            size_t base = g_array_index(t->path_base, size_t, f);
            flows[fi].rate_Bps = finfo.bytes / iter;
            flows[fi].n_paths = finfo.n_paths;
            flows[fi].paths = &cands[ci];
            for (size_t p = 0; p < finfo.n_paths; p++, ci++) {
                cands[ci].links = links + off[base + p];
                cands[ci].n_links = off[base + p + 1] - off[base + p];
            }
            order[fi] = fi;
        }
    }
    sched__path_select(cap, load, flows, order, n_flows, chosen);
    fi = 0;
    for (size_t i = 0; i < n_jobs; i++) {
        for (size_t f = 0; f < tabs[i]->n_flows; f++, fi++)
            sched_set_path(ctx, job_order[i], f, chosen[fi]);
        if (!cache)
            sched__job_paths_clear(&own[i]);
    }
}
