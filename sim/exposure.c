/* exposure.c - a structured job's iteration alone, taken apart
 * (exposure.h).  Not here: the engine run (job_structured.c).
 */
#include "exposure.h"

#include <math.h>
#include <string.h>

#include "job.h"

static const char *const class_names[] = {"tp", "pp", "dp", "param", "moe"};
G_STATIC_ASSERT(G_N_ELEMENTS(class_names) == EXPOSURE_CLASSES);

const char *exposure_class_name(exposure_class c)
{
    return (unsigned)c < EXPOSURE_CLASSES ? class_names[c] : "?";
}

/* Remove the bytes of every class not in keep (a bit mask). */
static void strip(job_structure *c, unsigned keep)
{
    if (!(keep & 1u << EXPOSURE_TP)) {
        c->tp_bytes = 0;
        c->tp_colls_fwd = c->tp_colls_bwd = 0;
    }
    if (!(keep & 1u << EXPOSURE_PP))
        c->act_bytes = 0;
    if (!(keep & 1u << EXPOSURE_MOE)) {
        c->moe_a2a_bytes = 0;
        c->moe_a2a_fwd = c->moe_a2a_bwd = 0;
    }
    if (!(keep & 1u << EXPOSURE_DP))
        c->embed_grad_bytes = 0;
    for (int k = 0; k < c->pp; k++) {
        if (!(keep & 1u << EXPOSURE_DP))
            c->stages[k].grad_bytes = c->stages[k].expert_grad_bytes =
                c->stages[k].grad_early_bytes = c->stages[k].grad_late_bytes = 0;
        if (!(keep & 1u << EXPOSURE_PARAM))
            c->stages[k].param_bytes = 0;
    }
}

static bool run_alone(const job_structure *s, unsigned keep, const cluster_alloc *a, topo *t,
                      const coll_options *co, double alpha_s, double *iter_s, GError **error)
{
    g_autoptr(job_structure) c = structure_copy(s);
    strip(c, keep);
    return job_structure_alone_s(c, a, t, co, alpha_s, iter_s, error);
}

/* Ring all-reduce: 2(n-1)/n of the tensor per GPU; all-gather and
 * reduce-scatter (n-1)/n. */
static double ring(int n) { return n > 1 ? (double)(n - 1) / n : 0; }

/* Bytes one GPU of stage k sends per iteration, per class. */
static void stage_bytes(const job_structure *s, int k, double out[EXPOSURE_CLASSES])
{
    const structure_stage *st = &s->stages[k];
    double m = s->micro_batches, t = s->tp;
    int de = s->ep > 0 ? s->dp / s->ep : s->dp;
    out[EXPOSURE_TP] =
        m * st->layers * (s->tp_colls_fwd + s->tp_colls_bwd) * s->tp_bytes * 2 * ring(s->tp);
    int dirs = s->pp > 2 || s->vpp > 1 ? 2 : 1;
    out[EXPOSURE_PP] = s->pp > 1 ? dirs * m * s->vpp * s->act_bytes / t : 0;
    if (s->zero == STRUCTURE_ZERO_0)
        out[EXPOSURE_DP] = (2 * ring(s->dp) * st->grad_bytes + 2 * ring(de) * st->expert_grad_bytes) / t;
    else
        out[EXPOSURE_DP] = (ring(s->dp) * st->grad_bytes + ring(de) * st->expert_grad_bytes) / t;
    if (s->pp > 1 && (k == 0 || k == s->pp - 1)) /* the tied embedding's two copies */
        out[EXPOSURE_DP] += 2 * ring(2) * s->embed_grad_bytes / t;
    double gathers = s->zero == STRUCTURE_ZERO_3 ? 2 : s->zero == STRUCTURE_ZERO_0 ? 0 : 1;
    out[EXPOSURE_PARAM] = gathers * ring(s->dp) * st->param_bytes / t;
    out[EXPOSURE_MOE] =
        m * st->moe_layers * (s->moe_a2a_fwd + s->moe_a2a_bwd) * s->moe_a2a_bytes * ring(s->ep);
}

bool exposure_nocomm_s(const job_structure *s, const cluster_alloc *a, topo *t,
                       const coll_options *co, double alpha_s, double *nocomm_s, GError **error)
{
    return run_alone(s, 0, a, t, co, alpha_s, nocomm_s, error);
}

bool exposure_measure(const job_structure *s, const cluster_alloc *a, topo *t,
                      const coll_options *co, double alpha_s, exposure *out, GError **error)
{
    g_return_val_if_fail(s != NULL && a != NULL && t != NULL && out != NULL, false);
    exposure e = {.opt_s = s->opt_s};
    for (int k = 0; k < s->pp; k++) {
        e.compute_s = fmax(e.compute_s, structure_stage_compute_s(s, k));
        double b[EXPOSURE_CLASSES];
        stage_bytes(s, k, b);
        for (int c = 0; c < EXPOSURE_CLASSES; c++)
            e.bytes[c] = fmax(e.bytes[c], b[c]);
    }
    const unsigned all = (1u << EXPOSURE_CLASSES) - 1;
    if (!run_alone(s, all, a, t, co, alpha_s, &e.iter_s, error) ||
        !run_alone(s, 0, a, t, co, alpha_s, &e.nocomm_s, error))
        return false;
    e.bubble_s = fmax(0, e.nocomm_s - e.compute_s - e.opt_s);
    e.exposed_s = e.iter_s - e.nocomm_s;
    for (int c = 0; c < EXPOSURE_CLASSES; c++) {
        e.has[c] = e.bytes[c] > 0;
        if (!e.has[c])
            continue;
        double without, only;
        if (!run_alone(s, all & ~(1u << c), a, t, co, alpha_s, &without, error) ||
            !run_alone(s, 1u << c, a, t, co, alpha_s, &only, error))
            return false;
        e.marginal_s[c] = e.iter_s - without;
        e.alone_s[c] = only - e.nocomm_s;
    }
    *out = e;
    return true;
}
