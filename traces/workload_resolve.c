/* workload_resolve.c - a structured job's description into the figures of
 * one iteration (docs/models.md "Structured jobs"): degrees, compute per
 * micro-batch and stage, bytes of every traffic class, checks.
 * Not here: the FLOP and parameter counts (workload_arch.c), parsing
 * (workload_parse.c), the job_structure they become (workload_structure.c).
 */
#include "workload.h"
#include "workload-private.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "base/ccs.h"

void workload__figures_clear(workload_figures *f)
{
    if (!f)
        return;
    g_free(f->fwd_s);
    g_free(f->bwd_s);
    g_free(f->grad_bytes);
    g_free(f->expert_grad_bytes);
    g_free(f->param_bytes);
    g_free(f->moe_layers);
    g_free(f->grad_early_bytes);
    g_free(f->grad_early_at);
    g_free(f->grad_late_bytes);
    memset(f, 0, sizeof *f);
}

/* ---- degrees and checks ---------------------------------------------- */

static bool fail(GError **error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static bool fail(GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error_literal(error, CCS_ERROR, CCS_ERROR_INVALID, msg);
    return false;
}

/* tp, pp, dp, ep, vpp from the spec and the job's GPUs. */
static bool degrees(const workload_spec *s, int gpus, int per_host, workload_figures *f,
                    GError **error)
{
    f->tp = s->par.tp > 0 ? s->par.tp : 1;
    f->pp = s->par.pp > 0 ? s->par.pp : 1;
    f->ep = s->par.ep > 0 ? s->par.ep : 1;
    f->vpp = s->par.vpp > 0 ? s->par.vpp : 1;
    int mp = f->tp * f->pp;
    if (s->par.dp > 0)
        f->dp = s->par.dp;
    else if (gpus % mp == 0)
        f->dp = gpus / mp;
    else
        return fail(error, "tp x pp = %d does not divide the job's %d GPUs", mp, gpus);
    if ((long)mp * f->dp != gpus)
        return fail(error, "tp x pp x dp = %d x %d x %d = %ld, but the job has %d GPUs", f->tp,
                    f->pp, f->dp, (long)mp * f->dp, gpus);
    if (per_host > 0 && f->tp > per_host && !s->par.tp_across_hosts)
        return fail(error,
                    "tp %d is larger than the %d GPUs of a host: say \"tp_across_hosts\": true "
                    "to run tensor parallelism over the network",
                    f->tp, per_host);
    if (f->dp % f->ep)
        return fail(error, "ep %d does not divide dp %d (expert parallelism is carved out of "
                           "data parallelism)", f->ep, f->dp);
    if (s->par.zero == 3 && f->pp > 1)
        return fail(error, "ZeRO-3 / FSDP with pp %d > 1 is not supported", f->pp);
    return true;
}

static bool arch_checks(const workload_spec *s, const workload_figures *f, GError **error)
{
    const workload_arch *a = &s->arch;
    if (f->pp > a->layers)
        return fail(error, "pp %d is larger than the model's %d layers", f->pp, a->layers);
    if (a->layers % f->pp)
        return fail(error, "the model's %d layers are not a multiple of pp %d", a->layers, f->pp);
    if ((a->layers / f->pp) % f->vpp)
        return fail(error, "the %d layers of a stage are not a multiple of vpp %d",
                    a->layers / f->pp, f->vpp);
    if (a->heads % f->tp)
        return fail(error, "the model's %d attention heads are not a multiple of tp %d",
                    a->heads, f->tp);
    if (a->experts > 0 && a->experts % f->ep)
        return fail(error, "the model's %d experts are not a multiple of ep %d", a->experts,
                    f->ep);
    if (a->experts == 0 && f->ep > 1)
        return fail(error, "ep %d > 1 for a model without experts", f->ep);
    return true;
}

/* m from micro_batches, or global batch / (dp x micro-batch). */
static bool micro_batches(const workload_spec *s, workload_figures *f, GError **error)
{
    int b = f->micro_batch = s->par.micro_batch > 0 ? s->par.micro_batch : 1;
    int B = s->par.global_batch;
    if (s->par.micro_batches > 0) {
        f->micro_batches = s->par.micro_batches;
        if (B > 0 && (long)f->micro_batches * f->dp * b != B)
            return fail(error, "micro_batches %d x dp %d x micro_batch %d != global_batch %d",
                        f->micro_batches, f->dp, b, B);
    } else if (B > 0) {
        if (B % ((long)f->dp * b))
            return fail(error,
                        "global_batch %d is not a multiple of dp x micro_batch = %d x %d: the "
                        "micro-batches per iteration must be a whole number",
                        B, f->dp, b);
        f->micro_batches = (int)(B / ((long)f->dp * b));
    } else if (f->pp > 1) {
        return fail(error, "pp %d > 1 needs \"micro_batches\" or \"global_batch\"", f->pp);
    } else {
        f->micro_batches = 1;
    }
    if (f->vpp > 1 && f->micro_batches % f->pp)
        return fail(error,
                    "the interleaved schedule (vpp %d) needs a multiple of pp = %d "
                    "micro-batches, got %d",
                    f->vpp, f->pp, f->micro_batches);
    return true;
}

/* ---- per stage -------------------------------------------------------- */

/* Parameters of the last of pp stages besides its layers: the final norm
 * and the output layer (Megatron keeps a copy of tied word embeddings
 * there when pp > 1 and reduces its gradients too). */
static double last_stage_head_params(const workload_arch *a, int pp)
{
    double p = workload__head_params(a);
    if (pp > 1 && a->tied_embeddings)
        p += workload__word_embedding_params(a);
    return p;
}

/* Parameters of stage k, dense and expert: its layers, the embeddings on
 * the first, last_stage_head_params on the last; *experts the experts'
 * parameters, all E of each MoE layer, and *moe the stage's MoE layers. */
static double stage_params(const workload_arch *a, int pp, int k, double *experts, int *moe)
{
    int L = a->layers / pp;
    double p = 0;
    *experts = 0;
    *moe = 0;
    for (int i = k * L; i < (k + 1) * L; i++) {
        bool m = workload_layer_is_moe(a, i);
        p += workload_layer_params(a, m);
        if (m) {
            *experts += workload__expert_params(a);
            (*moe)++;
        }
    }
    if (k == 0)
        p += workload_embedding_params(a);
    if (k == pp - 1)
        p += last_stage_head_params(a, pp);
    return p;
}

/* Forward FLOPs of stage k (whole TP group) and what a recompute adds. */
static void stage_flops(const workload_spec *s, int pp, int k, int b, double *fwd,
                        double *recompute)
{
    const workload_arch *a = &s->arch;
    int L = a->layers / pp;
    *fwd = *recompute = 0;
    for (int i = k * L; i < (k + 1) * L; i++) {
        double lf = workload_layer_fwd_flops(a, b, workload_layer_is_moe(a, i));
        *fwd += lf;
        if (s->par.recompute == WORKLOAD_RECOMPUTE_FULL)
            *recompute += lf;
        else if (s->par.recompute == WORKLOAD_RECOMPUTE_SELECTIVE)
            *recompute += 4.0 * b * (double)a->seq * a->seq * a->hidden;
    }
    if (k == pp - 1)
        *fwd += workload_logit_fwd_flops(a, b);
}

/* fwd_s, bwd_s, gradient and parameter bytes per stage; flops_iter. */
static void stages(const workload_spec *s, workload_figures *f)
{
    int pp = f->pp;
    double R = f->rep.gpu_flops, gv = s->fw.grad_value_bytes;
    f->fwd_s = g_new0(double, pp);
    f->bwd_s = g_new0(double, pp);
    f->grad_bytes = g_new0(double, pp);
    f->expert_grad_bytes = g_new0(double, pp);
    f->param_bytes = g_new0(double, pp);
    f->moe_layers = g_new0(int, pp);
    for (int k = 0; k < pp; k++) {
        double fwd = 0, rec = 0, p = 0, ex = 0;
        if (s->has_arch) {
            stage_flops(s, pp, k, f->micro_batch, &fwd, &rec);
            p = stage_params(&s->arch, pp, k, &ex, &f->moe_layers[k]);
        }
        f->rep.flops_iter += (3.0 * fwd + rec) * f->micro_batches * f->dp;
        f->fwd_s[k] = s->fwd_s >= 0 ? s->fwd_s : fwd / f->tp / R;
        f->bwd_s[k] = s->bwd_s >= 0 ? s->bwd_s : (2.0 * fwd + rec) / f->tp / R;
        /* an EP rank holds experts / ep of each MoE layer's experts */
        f->grad_bytes[k] = s->grad_bytes >= 0 ? s->grad_bytes : (p - ex) * gv;
        f->expert_grad_bytes[k] = ex / f->ep * gv;
        f->param_bytes[k] = (p - ex + ex / f->ep) * s->fw.param_value_bytes;
    }
}

/* ---- traffic classes ---------------------------------------------------- */

static void tensor_parallel(const workload_spec *s, workload_figures *f)
{
    f->tp_sp = f->tp > 1 && s->par.sequence_parallel;
    if (f->tp > 1) {
        f->tp_colls_fwd = 2; /* per layer: after attention and after the MLP (the g operator) */
        f->tp_colls_bwd = 2; /* the f operator's */
        if (s->par.recompute == WORKLOAD_RECOMPUTE_FULL)
            f->tp_colls_bwd += 2; /* the recomputed forward's */
        if (s->has_arch)
            f->tp_bytes = (double)f->micro_batch * s->arch.seq * s->arch.hidden *
                          s->fw.act_value_bytes;
    }
    if (s->tp_bytes >= 0)
        f->tp_bytes = s->tp_bytes;
}

/* act_bytes is what all TP ranks of a stage send at a boundary together
 * (the engine gives each rank 1/tp of it).  With scatter/gather (SC'21
 * §4.1) or sequence parallelism each rank holds and sends 1/tp of the
 * b s h tensor; without either every rank sends all of it. */
static void pipeline(const workload_spec *s, workload_figures *f)
{
    if (f->pp > 1 && s->has_arch) {
        f->act_bytes =
            (double)f->micro_batch * s->arch.seq * s->arch.hidden * s->fw.act_value_bytes;
        if (!s->fw.pp_scatter_gather && !f->tp_sp)
            f->act_bytes *= f->tp;
    }
    if (s->act_bytes >= 0)
        f->act_bytes = s->act_bytes;
}

/* Gradient buckets of one stage: pinned, or the framework's bucket size
 * over one TP rank's gradients (Megatron with overlap: max(40 M, 1 M x dp)
 * parameters), or one bucket without overlap. */
static int bucket_count(const workload_spec *s, const workload_figures *f)
{
    if (s->buckets > 0)
        return s->buckets;
    if (!s->fw.overlap_grad_reduce)
        return 1;
    double size = s->fw.bucket_bytes;
    if (size <= 0 && s->fw.kind == WORKLOAD_FW_MEGATRON)
        size = fmax(40e6, 1e6 * f->dp) * s->fw.grad_value_bytes;
    if (size <= 0)
        return 1;
    double per_rank = 0;
    for (int k = 0; k < f->pp; k++)
        per_rank = fmax(per_rank, (f->grad_bytes[k] + f->expert_grad_bytes[k]) / f->tp);
    return (int)fmax(1.0, ceil(per_rank / size));
}

static void data_parallel(const workload_spec *s, workload_figures *f)
{
    f->overlap = s->fw.overlap_grad_reduce;
    f->zero = s->fw.kind == WORKLOAD_FW_FSDP ? 3 : s->par.zero;
    if (f->zero == 3) {
        /* one unit per layer plus the root (embeddings, head), as FSDP's
         * transformer auto-wrap policy builds them */
        f->fsdp_units = s->has_arch ? s->arch.layers + 1 : 1;
        f->buckets = f->fsdp_units;
        f->overlap = true;
        return;
    }
    f->fsdp_units = 1;
    f->buckets = bucket_count(s, f);
}

/* When the gradients of the embeddings and the output layer are complete
 * in a stage's last backward pass (docs/model.md §4b "Bucket readiness").
 * The backward runs the model in reverse: the output layer first (its
 * share of the last stage's backward FLOPs is its logit matmul's), the
 * embeddings last (a lookup's backward costs nothing), so their
 * gradients, which the buckets hold in reverse layer order, are complete
 * at those two points; a tied embedding with pp = 1 only at the end (both
 * uses must have added theirs).  Only for the buckets of DDP and Megatron
 * (ZeRO 0-2) with an architecture and gradients not pinned; with
 * interleaving the output layer is in another chunk than the stage's last
 * pass, and its gradient stays spread with the layers.  Without
 * dimensions, a catalog entry's last_grad_params are the late bytes. */
static void grad_profile(const workload_spec *s, workload_figures *f)
{
    int pp = f->pp;
    f->grad_early_bytes = g_new0(double, pp);
    f->grad_late_bytes = g_new0(double, pp);
    f->grad_early_at = g_new0(double, pp);
    if (f->zero == 3 || !f->overlap)
        return;
    if (s->grad_late_bytes >= 0)
        f->grad_late_bytes[0] = s->grad_late_bytes;
    if (!s->has_arch || s->grad_bytes >= 0)
        return;
    const workload_arch *a = &s->arch;
    double gv = s->fw.grad_value_bytes;
    f->grad_late_bytes[0] = workload_embedding_params(a) * gv;
    if (f->vpp > 1)
        return;
    double fwd, rec;
    stage_flops(s, pp, pp - 1, f->micro_batch, &fwd, &rec);
    f->grad_early_bytes[pp - 1] = last_stage_head_params(a, pp) * gv;
    f->grad_early_at[pp - 1] = 2.0 * workload_logit_fwd_flops(a, f->micro_batch) / (2.0 * fwd + rec);
}

/* Megatron-LM keeps a tied word embedding on the first stage and a copy
 * for the output layer on the last when pp > 1; after the data-parallel
 * reductions it all-reduces the two copies' gradients over the
 * "embedding group" (each first-stage rank and its last-stage
 * counterpart) so that both stay equal (training.py in the SC'21 code,
 * finalize_model_grads in Megatron-core). */
static void embedding_sync(const workload_spec *s, workload_figures *f)
{
    if (f->pp > 1 && f->zero != 3 && s->has_arch && s->arch.tied_embeddings)
        f->embed_grad_bytes = workload__word_embedding_params(&s->arch) * s->fw.grad_value_bytes;
}

static void experts(const workload_spec *s, workload_figures *f)
{
    if (!s->has_arch && s->a2a_bytes >= 0) {
        /* a pinned exchange without dimensions: one dispatch/combine pair */
        f->moe_layers[0] = 1;
        f->experts = s->par.experts > 0 ? s->par.experts : f->ep;
        f->a2a_bytes = s->a2a_bytes;
        return;
    }
    if (!s->has_arch || s->arch.experts == 0)
        return;
    f->experts = s->arch.experts;
    /* each GPU dispatches its tokens' hidden states to top_k experts */
    f->a2a_bytes = (double)f->micro_batch * s->arch.seq * s->arch.top_k * s->arch.hidden *
                   s->fw.act_value_bytes;
    if (f->tp_sp)
        f->a2a_bytes /= f->tp;
    if (s->a2a_bytes >= 0)
        f->a2a_bytes = s->a2a_bytes;
}

/* The step over the parameters one GPU holds (the largest stage, / tp,
 * / dp when the optimizer is sharded). */
static void optimizer(const workload_spec *s, catalog_gpu gpu, workload_figures *f)
{
    if (s->opt_s >= 0) {
        f->opt_s = s->opt_s;
        return;
    }
    double p = 0;
    for (int k = 0; k < f->pp; k++)
        p = fmax(p, f->param_bytes[k] / s->fw.param_value_bytes);
    p /= f->tp;
    if (f->zero >= 1)
        p /= f->dp;
    f->opt_s = p * workload_opt_s_per_param(gpu);
}

bool workload__resolve(const workload_spec *spec, int gpus, int gpus_per_host, catalog_gpu gpu,
                       workload_figures *out, GError **error)
{
    g_return_val_if_fail(spec != NULL && out != NULL, false);
    workload_figures f = {0};
    if (gpus < 1)
        return fail(error, "a structured job needs at least one GPU");
    if (!degrees(spec, gpus, gpus_per_host, &f, error) ||
        (spec->has_arch && !arch_checks(spec, &f, error)) || !micro_batches(spec, &f, error))
        return false;
    if (!spec->has_arch && (spec->fwd_s < 0 || spec->bwd_s < 0))
        return fail(error, "a structure needs \"arch\" or both \"fwd_s\" and \"bwd_s\"");
    f.rep.gpu_flops = spec->tflops > 0 ? spec->tflops * 1e12 : workload_gpu_flops(gpu);
    f.rep.micro_batch = f.micro_batch;
    f.layers_per_stage = f.rep.layers_per_stage = spec->has_arch ? spec->arch.layers / f.pp : 0;
    f.rep.params = spec->has_arch ? workload_model_params(&spec->arch) : 0;
    stages(spec, &f);
    tensor_parallel(spec, &f);
    pipeline(spec, &f);
    data_parallel(spec, &f);
    grad_profile(spec, &f);
    embedding_sync(spec, &f);
    experts(spec, &f);
    optimizer(spec, gpu, &f);
    *out = f;
    return true;
}
