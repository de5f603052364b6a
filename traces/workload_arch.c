/* workload_arch.c - FLOPs and parameters of a transformer from its
 * dimensions, and the per-GPU constants (docs/models.md "Structured jobs").
 * Not here: parsing (workload_parse.c), resolution (workload_resolve.c).
 *
 * The FLOP count is the standard one of Narayanan et al. (SC'21, §5.1 and
 * its appendix): only matrix multiplications count, 2 FLOPs per
 * multiply-add.  For one micro-batch of b sequences of s tokens, one layer's
 * forward pass is
 *     2 b s (h (h + 2 h_kv) + h^2 + n f h)   the QKV, output, MLP weights
 *   + 4 b s^2 h                               scores Q K^T and scores x V
 * with n = 2 MLP matrices (3 when gated) and h_kv = h kv_heads / heads;
 * for GPT (f = 4h, h_kv = h) that is 24 b s h^2 + 4 b s^2 h, and with the
 * logit layer 2 b s h V, the backward pass (2x) and a full recompute (1x)
 * it gives the paper's F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)).
 */
#include "workload.h"
#include "workload-private.h"

#include <math.h>

static double mlp_mats(const workload_arch *a) { return a->gated_mlp ? 3.0 : 2.0; }

static double kv_dim(const workload_arch *a)
{
    return (double)a->hidden * a->kv_heads / a->heads;
}

bool workload_layer_is_moe(const workload_arch *a, int i)
{
    return a->experts > 0 && a->moe_every > 0 && (i + 1) % a->moe_every == 0;
}

double workload_layer_fwd_flops(const workload_arch *a, int b, bool moe)
{
    double h = a->hidden, s = a->seq, bs = (double)b * s;
    double attn = h * (h + 2.0 * kv_dim(a)) + h * h;
    double mlp = mlp_mats(a) * h * a->ffn;
    if (moe) /* each token through top_k experts, plus the router h x E */
        mlp = (double)a->top_k * mlp_mats(a) * h * a->moe_ffn + h * a->experts;
    return 2.0 * bs * (attn + mlp) + 4.0 * bs * s * h;
}

double workload_logit_fwd_flops(const workload_arch *a, int b)
{
    return 2.0 * (double)b * a->seq * a->hidden * a->vocab;
}

/* Parameters of a layer's attention and its two norms. */
static double attn_norm_params(const workload_arch *a)
{
    double h = a->hidden, kv = kv_dim(a);
    double p = h * (h + 2.0 * kv) + h * h;
    if (a->biases)
        p += (h + 2.0 * kv) + h + 4.0 * h; /* QKV and output biases, two LayerNorms (w + b) */
    else
        p += 2.0 * h; /* two RMSNorm weights */
    return p;
}

/* Parameters of one MLP of inner size f. */
static double mlp_params(const workload_arch *a, int f)
{
    double p = mlp_mats(a) * (double)a->hidden * f;
    if (a->biases)
        p += (a->gated_mlp ? 2.0 * f : (double)f) + a->hidden;
    return p;
}

double workload_layer_params(const workload_arch *a, bool moe)
{
    if (!moe)
        return attn_norm_params(a) + mlp_params(a, a->ffn);
    return attn_norm_params(a) + (double)a->experts * mlp_params(a, a->moe_ffn) +
           (double)a->hidden * a->experts;
}

double workload__word_embedding_params(const workload_arch *a)
{
    return (double)a->vocab * a->hidden;
}

double workload_embedding_params(const workload_arch *a)
{
    double p = workload__word_embedding_params(a);
    if (a->learned_pos)
        p += (double)a->seq * a->hidden;
    return p;
}

/* Final norm and, unless tied, the output layer. */
static double head_params(const workload_arch *a)
{
    double p = a->biases ? 2.0 * a->hidden : (double)a->hidden;
    if (!a->tied_embeddings)
        p += workload__word_embedding_params(a);
    return p;
}

double workload_model_params(const workload_arch *a)
{
    double p = workload_embedding_params(a) + head_params(a);
    for (int i = 0; i < a->layers; i++)
        p += workload_layer_params(a, workload_layer_is_moe(a, i));
    return p;
}

double workload__head_params(const workload_arch *a) { return head_params(a); }

double workload__expert_params(const workload_arch *a)
{
    return (double)a->experts * mlp_params(a, a->moe_ffn);
}

/* ---- constants ------------------------------------------------------- */

/* A100: Narayanan et al. SC'21 Table 1, first row (GPT 1.7 B, 32 A100-80GB,
 * data parallel only): 137 TFLOP/s per GPU by the FLOP count above.
 * H100: our measurement M of docs/models.md, llama-7b-b1-s2048, forward +
 * backward 67.092 + 125.023 ms; the count above gives 3 x 2.926e13 =
 * 8.778e13 FLOPs, i.e. 4.569e14 FLOP/s (docs/models.md). */
double workload_gpu_flops(catalog_gpu gpu)
{
    return gpu == CATALOG_GPU_H100 ? 4.569e14 : 1.37e14;
}

/* H100: M's fused AdamW step of LLaMA-7B, 42.797 ms for 6,738,415,616
 * parameters; A100: x 1.643, the HBM bandwidth ratio (3.35 / 2.039 TB/s):
 * the step is memory-bound (docs/models.md "Optimizer step"). */
double workload_opt_s_per_param(catalog_gpu gpu)
{
    double h100 = 42.797e-3 / 6738415616.0;
    return gpu == CATALOG_GPU_H100 ? h100 : h100 * 1.643;
}
