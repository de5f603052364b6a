/* mdot_infer.c - MDOT inference in double precision: the operator encoding,
 * the encoder layers with windowed attention and the batch-affine readout
 * (the same arithmetic as scripts/mdot/model.py; docs/mdot.md §2).  Not
 * here: loading the weights (mdot_model.c), graphs (mdot_graph.c).
 *
 * Cost per graph of n operators: the encoding O(n d), each layer O(n d
 * (4 d + (2 w + 1) + ffn)) for the attention window w, the readout O(n d):
 * linear in n, so a 20,000-operator graph takes well under a second.
 */
#include "mdot.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "mdot-private.h"

/* PyTorch's nn.LayerNorm default. */
#define LN_EPS 1e-5

/* y[out] = W x + b (y may not alias x). */
static void lin_apply(const mdot__lin *l, const double *x, double *y)
{
    for (size_t o = 0; o < l->out; o++) {
        double s = l->b[o];
        for (size_t i = 0; i < l->in; i++)
            s += l->w[o * l->in + i] * x[i];
        y[o] = s;
    }
}

static void ln_apply(const mdot__lnorm *l, const double *x, double *y, size_t d)
{
    double mean = 0, var = 0;
    for (size_t i = 0; i < d; i++)
        mean += x[i];
    mean /= (double)d;
    for (size_t i = 0; i < d; i++)
        var += (x[i] - mean) * (x[i] - mean);
    double inv = 1.0 / sqrt(var / (double)d + LN_EPS);
    for (size_t i = 0; i < d; i++)
        y[i] = (x[i] - mean) * inv * l->g[i] + l->b[i];
}

/* The index of op's type in m's vocabulary, or false with the error. */
static bool type_of(const mdot_model *m, const mdot_graph *g, size_t v, size_t *t,
                    GError **error)
{
    *t = GPOINTER_TO_SIZE(g_hash_table_lookup(m->type_index, g->ops[v].type));
    if (*t == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: ops[%zu].type: unknown operator type '%s' (the model knows %u types; "
                    "docs/mdot.md lists them)", g->name, v, g->ops[v].type, m->vocab->len);
        return false;
    }
    (*t)--;
    return true;
}

/* The input encoding e_v = T[type] + Wc xc + Wl xl + PE_v into h (n x d). */
static bool embed(const mdot_model *m, const mdot_graph *g, double *h, GError **error)
{
    size_t d = m->d;
    g_autofree double *tmp = g_new(double, d);
    if (m->pe == MDOT__PE_GRAPH)
        mdot_graph_pe(g, d, h);
    for (size_t v = 0; v < g->n; v++) {
        double f[MDOT__N_FEAT], *hv = h + v * d;
        size_t t;
        if (!type_of(m, g, v, &t, error))
            return false;
        if (m->pe == MDOT__PE_SEQ)
            mdot__sinusoid((double)v, d, hv);
        else if (m->pe == MDOT__PE_NONE)
            memset(hv, 0, d * sizeof *hv);
        mdot__op_features(&g->ops[v], g->batch, f);
        for (size_t i = 0; i < MDOT__N_FEAT; i++)
            f[i] = (f[i] - m->mu[i]) / m->sd[i];
        lin_apply(&m->cfg, f, tmp);
        for (size_t i = 0; i < d; i++)
            hv[i] += m->type_emb[t * d + i] + tmp[i];
        lin_apply(&m->load, f + MDOT__N_CONFIG, tmp);
        for (size_t i = 0; i < d; i++)
            hv[i] += tmp[i];
    }
    return true;
}

/* Query i's attention output for head hd over the keys i-w .. i+w that
 * exist, into ctx (the head's dh values); p is scratch of 2w+1. */
static void attend(const double *q, const double *k, const double *v, size_t n, size_t d,
                   size_t dh, size_t hd, size_t i, size_t w, double *p, double *ctx)
{
    size_t lo = i > w ? i - w : 0, hi = i + w < n ? i + w : n - 1;
    double scale = 1.0 / sqrt((double)dh), mx = -INFINITY, sum = 0;
    for (size_t j = lo; j <= hi; j++) {
        double s = 0;
        for (size_t c = hd * dh; c < (hd + 1) * dh; c++)
            s += q[i * d + c] * k[j * d + c];
        p[j - lo] = s * scale;
        mx = fmax(mx, p[j - lo]);
    }
    for (size_t j = lo; j <= hi; j++)
        sum += (p[j - lo] = exp(p[j - lo] - mx));
    for (size_t c = 0; c < dh; c++)
        ctx[c] = 0;
    for (size_t j = lo; j <= hi; j++)
        for (size_t c = 0; c < dh; c++)
            ctx[c] += p[j - lo] / sum * v[j * d + hd * dh + c];
}

/* h += Wo MHA(LN1(h)) with each operator attending to the operators at
 * most w places away in the topological order. */
static void attention(const mdot__layer *L, size_t n, size_t d, size_t heads, size_t w,
                      double *h)
{
    size_t dh = d / heads;
    g_autofree double *a = g_new(double, d);
    g_autofree double *q = g_new(double, n * d);
    g_autofree double *k = g_new(double, n * d);
    g_autofree double *v = g_new(double, n * d);
    g_autofree double *ctx = g_new(double, n * d);
    g_autofree double *p = g_new(double, 2 * w + 1);
    for (size_t i = 0; i < n; i++) {
        ln_apply(&L->ln1, h + i * d, a, d);
        lin_apply(&L->q, a, q + i * d);
        lin_apply(&L->k, a, k + i * d);
        lin_apply(&L->v, a, v + i * d);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t hd = 0; hd < heads; hd++)
            attend(q, k, v, n, d, dh, hd, i, w, p, ctx + i * d + hd * dh);
    for (size_t i = 0; i < n; i++) {
        lin_apply(&L->o, ctx + i * d, a);
        for (size_t c = 0; c < d; c++)
            h[i * d + c] += a[c];
    }
}

/* h += W2 relu(W1 LN2(h) + b1) + b2, row by row. */
static void feed_forward(const mdot__layer *L, size_t n, size_t d, size_t ffn, double *h)
{
    g_autofree double *a = g_new(double, d);
    g_autofree double *mid = g_new(double, ffn);
    g_autofree double *y = g_new(double, d);
    for (size_t i = 0; i < n; i++) {
        ln_apply(&L->ln2, h + i * d, a, d);
        lin_apply(&L->ff1, a, mid);
        for (size_t j = 0; j < ffn; j++)
            mid[j] = fmax(mid[j], 0.0);
        lin_apply(&L->ff2, mid, y);
        for (size_t c = 0; c < d; c++)
            h[i * d + c] += y[c];
    }
}

/* Operator v's share: fixed = e^u0 tau + e^u2 p / BW, per sample =
 * e^u1 f / P + e^u2 a / BW (model.py's op_times, split by batch). */
static void readout(const mdot_model *m, const mdot__op *op, int64_t batch, const double *u,
                    double *fixed_s, double *per_sample_s)
{
    double loads[MDOT__N_LOAD];
    mdot__op_loads(op, batch, loads);
    double tau = m->prior[0], flops_s = m->prior[1], bytes_s = m->prior[2];
    *fixed_s = exp(u[0]) * tau + exp(u[2]) * loads[2] / bytes_s;
    *per_sample_s = exp(u[1]) * loads[0] / flops_s + exp(u[2]) * loads[1] / bytes_s;
}

bool mdot_estimate_graph(const mdot_model *m, const mdot_graph *g, mdot_estimate *out,
                         double *op_fixed_s, double *op_per_sample_s, GError **error)
{
    size_t n = g->n, d = m->d;
    g_autofree double *h = g_new0(double, n * d);
    g_autofree double *a = g_new(double, d);
    if (!embed(m, g, h, error))
        return false;
    for (size_t l = 0; l < m->n_layers; l++) {
        attention(&m->layers[l], n, d, m->heads, m->window, h);
        feed_forward(&m->layers[l], n, d, m->ffn, h);
    }
    out->fixed_s = out->per_sample_s = 0;
    for (size_t v = 0; v < n; v++) {
        double u[MDOT__N_OUT], fx, ps;
        ln_apply(&m->ln_f, h + v * d, a, d);
        lin_apply(&m->out, a, u);
        readout(m, &g->ops[v], g->batch, u, &fx, &ps);
        out->fixed_s += fx;
        out->per_sample_s += ps;
        if (op_fixed_s)
            op_fixed_s[v] = fx;
        if (op_per_sample_s)
            op_per_sample_s[v] = ps;
    }
    return true;
}

double mdot_estimate_at(const mdot_estimate *e, double batch)
{
    return e->fixed_s + e->per_sample_s * batch;
}

double mdot_predict_s(const mdot_model *m, const mdot_graph *g, GError **error)
{
    mdot_estimate e;
    if (!mdot_estimate_graph(m, g, &e, NULL, NULL, error))
        return -1;
    return mdot_estimate_at(&e, (double)g->batch);
}
