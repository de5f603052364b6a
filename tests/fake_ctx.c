/* fake_ctx.c - the sched_ctx of fake_ctx.h.
 * Not here: the engine's sched_ctx (sim/sched_ctx.c).
 */
#include "fake_ctx.h"

#include <string.h>

void fake_ctx_init(sched_ctx *ctx, size_t n_links, double cap_Bps, int levels)
{
    memset(ctx, 0, sizeof *ctx);
    g_assert(n_links <= FAKE_MAX_LINKS);
    ctx->n_links = n_links;
    for (size_t e = 0; e < n_links; e++)
        ctx->cap_Bps[e] = cap_Bps;
    ctx->levels = levels;
    ctx->rng = g_rand_new_with_seed(7);
}

void fake_ctx_clear(sched_ctx *ctx) { g_clear_pointer(&ctx->rng, g_rand_free); }

fake_job *fake_ctx_job(sched_ctx *ctx, const char *id, int gpus, double compute_s,
                       double fwd_frac, double isolated_iter_s)
{
    g_assert(ctx->n_jobs < FAKE_MAX_JOBS);
    fake_job *j = &ctx->jobs[ctx->n_jobs];
    memset(j, 0, sizeof *j);
    j->info.id = id;
    j->info.uid = ctx->n_jobs;
    j->info.arrival_s = (double)ctx->n_jobs;
    j->info.gpus = gpus;
    j->info.n_hosts = 1;
    j->info.model = "fake";
    j->info.compute_s = compute_s;
    j->info.fwd_frac = fwd_frac;
    j->info.isolated_iter_s = isolated_iter_s;
    j->info.work_gpu_s = gpus * compute_s;
    ctx->n_jobs++;
    return j;
}

fake_flow *fake_job_flow(fake_job *j, double bytes, const int *path0, const int *path1)
{
    g_assert(j->info.n_flows < FAKE_MAX_FLOWS);
    fake_flow *f = &j->flows[j->info.n_flows++];
    f->bytes = bytes;
    const int *paths[2] = {path0, path1};
    for (int p = 0; p < 2 && paths[p]; p++) {
        for (const int *l = paths[p]; *l >= 0; l++)
            f->links[p][f->n_links[p]++] = (uint32_t)*l;
        f->n_paths++;
    }
    return f;
}

void fake_job_fixed(fake_job *j, uint32_t link, double bytes)
{
    g_assert(j->n_fixed < FAKE_MAX_FIXED);
    j->fixed_links[j->n_fixed] = link;
    j->fixed_bytes[j->n_fixed++] = bytes;
}

size_t sched_job_count(const sched_ctx *ctx) { return ctx->n_jobs; }

void sched_job_get(const sched_ctx *ctx, size_t j, sched_job_info *out)
{
    g_assert(j < ctx->n_jobs);
    *out = ctx->jobs[j].info;
}

void sched_flow_get(const sched_ctx *ctx, size_t j, size_t f, sched_flow_info *out)
{
    const fake_flow *fl = &ctx->jobs[j].flows[f];
    out->src_nic = 0;
    out->dst_nic = 1;
    out->bytes = fl->bytes;
    out->n_paths = fl->n_paths;
    out->path = fl->path;
}

void sched_flow_path_links(sched_ctx *ctx, size_t j, size_t f, size_t p, GArray *out)
{
    const fake_flow *fl = &ctx->jobs[j].flows[f];
    g_assert(p < fl->n_paths);
    g_array_set_size(out, 0);
    g_array_append_vals(out, fl->links[p], fl->n_links[p]);
}

size_t sched_job_fixed_links(const sched_ctx *ctx, size_t j, const uint32_t **links,
                             const double **bytes)
{
    *links = ctx->jobs[j].fixed_links;
    *bytes = ctx->jobs[j].fixed_bytes;
    return ctx->jobs[j].n_fixed;
}

void sched_job_link_bytes(sched_ctx *ctx, size_t j, GArray *out_links, GArray *out_bytes)
{
    double m[FAKE_MAX_LINKS] = {0};
    bool used[FAKE_MAX_LINKS] = {false};
    const fake_job *jb = &ctx->jobs[j];
    for (size_t f = 0; f < jb->info.n_flows; f++) {
        const fake_flow *fl = &jb->flows[f];
        for (size_t k = 0; k < fl->n_links[fl->path]; k++) {
            m[fl->links[fl->path][k]] += fl->bytes;
            used[fl->links[fl->path][k]] = true;
        }
    }
    for (size_t k = 0; k < jb->n_fixed; k++) {
        m[jb->fixed_links[k]] += jb->fixed_bytes[k];
        used[jb->fixed_links[k]] = true;
    }
    g_array_set_size(out_links, 0);
    g_array_set_size(out_bytes, 0);
    for (uint32_t e = 0; e < ctx->n_links; e++)
        if (used[e]) {
            g_array_append_val(out_links, e);
            g_array_append_val(out_bytes, m[e]);
        }
}

size_t sched_link_count(const sched_ctx *ctx) { return ctx->n_links; }
double sched_link_capacity_Bps(const sched_ctx *ctx, uint32_t link) { return ctx->cap_Bps[link]; }
int sched_priority_levels(const sched_ctx *ctx) { return ctx->levels; }
double sched_now_s(const sched_ctx *ctx) { return ctx->now_s; }
GRand *sched_rng(sched_ctx *ctx) { return ctx->rng; }

void sched_set_path(sched_ctx *ctx, size_t j, size_t f, size_t p)
{
    g_assert(p < ctx->jobs[j].flows[f].n_paths);
    ctx->jobs[j].flows[f].path = p;
}

void sched_set_priority(sched_ctx *ctx, size_t j, int level)
{
    g_assert(level >= 0 && level < ctx->levels);
    ctx->jobs[j].info.priority = level;
}

void sched_set_class_priority(sched_ctx *ctx, size_t j, sched_class cls, int level)
{
    g_assert(cls < SCHED_CLASS_COUNT && level >= -1 && level < ctx->levels);
    ctx->jobs[j].class_priority[cls] = level;
}

void sched_set_shift(sched_ctx *ctx, size_t j, double shift_s)
{
    g_assert(shift_s >= 0);
    ctx->jobs[j].info.shift_s = shift_s;
    ctx->jobs[j].shift_calls++;
    ctx->jobs[j].last_shift_s = shift_s;
}
