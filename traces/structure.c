/* structure.c - a job's parallel structure from the scenario's `structure`
 * object (structure.h; docs/usage.md "structure").  Not here: deriving
 * figures from an architecture, running the structure (sim/job_graph.c).
 */
#include "structure.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/json.h"
#include "base/limits.h"

/* Every key the parser knows (the rest is refused: a typo must not pass
 * as a default). */
static const char *const known_keys[] = {
    "tp",           "pp",           "dp",           "ep",           "experts",
    "vpp",          "micro_batches", "global_batch", "micro_batch_size",
    "seq_parallel", "tp_across_hosts", "zero",       "fsdp_units",   "overlap_grad_reduce",
    "buckets",      "act_bytes",    "tp_bytes",     "tp_colls_fwd", "tp_colls_bwd",
    "moe_a2a_bytes", "moe_a2a_fwd", "moe_a2a_bwd",  "opt_s",        "layers",
    "stage_layers", "moe_layers",   "fwd_s",        "bwd_s",        "grad_bytes",
    "expert_grad_bytes", "param_bytes", "grad_early_bytes", "grad_early_at",
    "grad_late_bytes", "embed_grad_bytes", "order", NULL,
};

/* What every reader below needs: the object and the job's name. */
typedef struct rd {
    const cJSON *obj;
    const char *where;
    GError **error;
} rd;

static bool fail(rd *r, const char *key, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static bool fail(rd *r, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (key)
        g_set_error(r->error, CCS_ERROR, CCS_ERROR_INVALID, "%s: structure.%s: %s", r->where,
                    key, msg);
    else
        g_set_error(r->error, CCS_ERROR, CCS_ERROR_INVALID, "%s: structure: %s", r->where, msg);
    return false;
}

/* A number in [lo, hi] (def when missing); integer: whole numbers only. */
static bool num(rd *r, const char *key, double def, double lo, double hi, bool integer,
                double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->obj, key);
    if (!v) {
        *out = def;
        return true;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return fail(r, key, "expected a number");
    double x = v->valuedouble;
    if (integer && x != floor(x))
        return fail(r, key, "expected a whole number, got %g", x);
    if (x < lo || x > hi)
        return fail(r, key, "%g is out of range [%g, %g]", x, lo, hi);
    *out = x;
    return true;
}

static bool int_key(rd *r, const char *key, int def, int lo, int hi, int *out)
{
    double x;
    if (!num(r, key, def, lo, hi, true, &x))
        return false;
    *out = (int)x;
    return true;
}

static bool bool_key(rd *r, const char *key, bool def, bool *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->obj, key);
    if (!v) {
        *out = def;
        return true;
    }
    if (!cJSON_IsBool(v))
        return fail(r, key, "expected true or false");
    *out = cJSON_IsTrue(v);
    return true;
}

/* A per-stage figure: a number for every stage or an array of pp numbers,
 * each in [lo, hi], into out[0..pp-1]; def when missing (required: an
 * error then). */
static bool stage_nums(rd *r, const char *key, int pp, bool required, double def, double lo,
                       double hi, bool integer, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->obj, key);
    if (!v && required)
        return fail(r, key, "missing (a number, or an array of one number per stage)");
    if (!v || cJSON_IsNumber(v)) {
        double x;
        if (!num(r, key, def, lo, hi, integer, &x))
            return false;
        for (int s = 0; s < pp; s++)
            out[s] = x;
        return true;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != pp)
        return fail(r, key, "expected a number or an array of %d numbers (one per stage)", pp);
    int s = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) ||
            (integer && e->valuedouble != floor(e->valuedouble)))
            return fail(r, key, "[%d]: expected a %s", s, integer ? "whole number" : "number");
        if (e->valuedouble < lo || e->valuedouble > hi)
            return fail(r, key, "[%d]: %g is out of range [%g, %g]", s, e->valuedouble, lo, hi);
        out[s++] = e->valuedouble;
    }
    return true;
}

static bool check_keys(rd *r)
{
    if (!cJSON_IsObject(r->obj))
        return fail(r, NULL, "expected an object");
    return ccs_json_check_keys(r->obj, known_keys, r->where, "structure", r->error);
}

/* tp, pp, dp against the job's GPUs (dp defaults to what is left). */
static bool degrees(rd *r, job_structure *s, int gpus)
{
    if (!int_key(r, "tp", 1, 1, 1 << 20, &s->tp) || !int_key(r, "pp", 1, 1, 1 << 20, &s->pp) ||
        !int_key(r, "vpp", 1, 1, 1024, &s->vpp))
        return false;
    int def_dp = gpus % (s->tp * s->pp) == 0 ? gpus / (s->tp * s->pp) : 1;
    if (!int_key(r, "dp", def_dp, 1, 1 << 20, &s->dp))
        return false;
    if ((long)s->tp * s->pp * s->dp != gpus)
        return fail(r, NULL,
                    "tp x pp x dp = %d x %d x %d = %ld, but the job has %d GPUs (ep does not "
                    "multiply: its groups are made of DP ranks)",
                    s->tp, s->pp, s->dp, (long)s->tp * s->pp * s->dp, gpus);
    if (!int_key(r, "ep", 1, 1, 1 << 20, &s->ep) ||
        !int_key(r, "experts", 0, 0, 1 << 20, &s->experts))
        return false;
    if (s->dp % s->ep != 0)
        return fail(r, "ep", "ep %d does not divide dp %d (an expert-parallel group is ep DP "
                             "ranks)", s->ep, s->dp);
    if (s->ep > 1 && s->experts == 0)
        return fail(r, "experts", "missing: ep %d needs the number of experts per MoE layer",
                    s->ep);
    if (s->experts > 0 && s->experts % s->ep != 0)
        return fail(r, "experts", "%d experts cannot be divided over ep = %d ranks", s->experts,
                    s->ep);
    return true;
}

/* The rank order: "tp-dp-pp" (innermost first), any permutation. */
static bool rank_order(rd *r, job_structure *s)
{
    static const char *const dims[] = {"tp", "dp", "pp"};
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->obj, "order");
    for (int q = 0; q < 3; q++)
        s->order[q] = q;
    if (!v)
        return true;
    g_auto(GStrv) parts = cJSON_IsString(v) ? g_strsplit(v->valuestring, "-", -1) : NULL;
    bool seen[3] = {false, false, false};
    bool ok = parts && g_strv_length(parts) == 3;
    for (int q = 0; ok && q < 3; q++) {
        int d = -1;
        for (int k = 0; k < 3; k++)
            if (strcmp(parts[q], dims[k]) == 0)
                d = k;
        ok = d >= 0 && !seen[d];
        if (ok) {
            seen[d] = true;
            s->order[q] = d;
        }
    }
    if (!ok)
        return fail(r, "order", "expected tp, dp and pp joined by '-', innermost first, such "
                                "as \"tp-dp-pp\"");
    return true;
}

/* m directly, or global batch / (micro-batch size x dp). */
static bool micro_batches(rd *r, job_structure *s)
{
    bool has_m = cJSON_GetObjectItemCaseSensitive(r->obj, "micro_batches") != NULL;
    bool has_g = cJSON_GetObjectItemCaseSensitive(r->obj, "global_batch") != NULL;
    double gb, mbs;
    if (!int_key(r, "micro_batches", 1, 1, 1 << 24, &s->micro_batches) ||
        !num(r, "global_batch", 1, 1, 1e12, true, &gb) ||
        !num(r, "micro_batch_size", 1, 1, 1e9, true, &mbs))
        return false;
    if (has_m && has_g)
        return fail(r, "global_batch", "give micro_batches or global_batch, not both");
    if (has_g) {
        double m = gb / (mbs * s->dp);
        if (m != floor(m) || m < 1)
            return fail(r, "global_batch",
                        "global batch %g is not a whole number of micro-batches of %g per DP "
                        "replica (dp %d)", gb, mbs, s->dp);
        if (m > (1 << 24))
            return fail(r, "global_batch", "%g micro-batches per iteration is too many", m);
        s->micro_batches = (int)m;
    }
    if (s->vpp > 1 && s->micro_batches % s->pp != 0)
        return fail(r, "micro_batches",
                    "the interleaved schedule (vpp %d) needs a multiple of pp = %d "
                    "micro-batches, got %d", s->vpp, s->pp, s->micro_batches);
    return true;
}

/* Layers per stage: stage_layers, or layers spread evenly (the first
 * stages take the remainder); MoE layers the same way. */
static bool layers(rd *r, job_structure *s)
{
    int pp = s->pp;
    g_autofree double *v = g_new(double, pp);
    bool has_stage = cJSON_GetObjectItemCaseSensitive(r->obj, "stage_layers") != NULL;
    int total;
    if (!int_key(r, "layers", pp * s->vpp, 1, 1 << 20, &total))
        return false;
    if (has_stage) {
        if (cJSON_GetObjectItemCaseSensitive(r->obj, "layers"))
            return fail(r, "stage_layers", "give layers or stage_layers, not both");
        if (!stage_nums(r, "stage_layers", pp, true, 0, 1, 1 << 20, true, v))
            return false;
        for (int st = 0; st < pp; st++)
            s->stages[st].layers = (int)v[st];
    } else {
        if (total < pp * s->vpp)
            return fail(r, "layers", "%d layers cannot fill pp x vpp = %d x %d model chunks",
                        total, pp, s->vpp);
        for (int st = 0; st < pp; st++)
            s->stages[st].layers = total / pp + (st < total % pp ? 1 : 0);
    }
    for (int st = 0; st < pp; st++)
        if (s->stages[st].layers < s->vpp)
            return fail(r, "stage_layers", "stage %d has %d layers for vpp = %d chunks", st,
                        s->stages[st].layers, s->vpp);
    const cJSON *mv = cJSON_GetObjectItemCaseSensitive(r->obj, "moe_layers");
    if (mv && cJSON_IsArray(mv)) {
        if (!stage_nums(r, "moe_layers", pp, true, 0, 0, 1 << 20, true, v))
            return false;
        for (int st = 0; st < pp; st++)
            s->stages[st].moe_layers = (int)v[st];
    } else {
        int moe;
        if (!int_key(r, "moe_layers", 0, 0, 1 << 20, &moe))
            return false;
        for (int st = 0; st < pp; st++)
            s->stages[st].moe_layers = moe / pp + (st < moe % pp ? 1 : 0);
    }
    bool any_moe = false;
    for (int st = 0; st < pp; st++) {
        if (s->stages[st].moe_layers > s->stages[st].layers)
            return fail(r, "moe_layers", "stage %d has %d MoE layers but %d layers", st,
                        s->stages[st].moe_layers, s->stages[st].layers);
        any_moe = any_moe || s->stages[st].moe_layers > 0;
    }
    if (any_moe && s->experts == 0)
        return fail(r, "experts", "missing: MoE layers need the number of experts");
    return true;
}

/* The per-stage figures. */
static bool stage_figures(rd *r, job_structure *s)
{
    int pp = s->pp;
    g_autofree double *f = g_new(double, pp);
    g_autofree double *b = g_new(double, pp);
    g_autofree double *g = g_new(double, pp);
    g_autofree double *e = g_new(double, pp);
    g_autofree double *p = g_new(double, pp);
    if (!stage_nums(r, "fwd_s", pp, true, 0, 0, 1e6, false, f) ||
        !stage_nums(r, "bwd_s", pp, true, 0, 0, 1e6, false, b) ||
        !stage_nums(r, "grad_bytes", pp, false, 0, 0, 1e15, false, g) ||
        !stage_nums(r, "expert_grad_bytes", pp, false, 0, 0, 1e15, false, e))
        return false;
    /* parameters default to the gradients' bytes (the same values) */
    bool has_p = cJSON_GetObjectItemCaseSensitive(r->obj, "param_bytes") != NULL;
    if (has_p && !stage_nums(r, "param_bytes", pp, false, 0, 0, 1e15, false, p))
        return false;
    for (int st = 0; st < pp; st++) {
        structure_stage *x = &s->stages[st];
        if (!(f[st] + b[st] > 0))
            return fail(r, "fwd_s", "stage %d computes nothing (fwd_s + bwd_s = 0)", st);
        x->fwd_s = f[st];
        x->bwd_s = b[st];
        x->grad_bytes = g[st];
        x->expert_grad_bytes = e[st];
        x->param_bytes = has_p ? p[st] : g[st];
        if (x->expert_grad_bytes > 0 && x->moe_layers == 0)
            return fail(r, "expert_grad_bytes", "stage %d has expert gradients but no MoE layer",
                        st);
    }
    return true;
}

/* When a stage's gradients are complete in its last backward pass:
 * grad_early_bytes at grad_early_at of it, grad_late_bytes at its end. */
static bool grad_profile(rd *r, job_structure *s)
{
    int pp = s->pp;
    g_autofree double *e = g_new(double, pp);
    g_autofree double *at = g_new(double, pp);
    g_autofree double *l = g_new(double, pp);
    if (!stage_nums(r, "grad_early_bytes", pp, false, 0, 0, 1e15, false, e) ||
        !stage_nums(r, "grad_early_at", pp, false, 0, 0, 1, false, at) ||
        !stage_nums(r, "grad_late_bytes", pp, false, 0, 0, 1e15, false, l))
        return false;
    for (int st = 0; st < pp; st++) {
        structure_stage *x = &s->stages[st];
        if (e[st] + l[st] > x->grad_bytes)
            return fail(r, e[st] > 0 ? "grad_early_bytes" : "grad_late_bytes",
                        "stage %d: early %g + late %g bytes exceed its grad_bytes %g", st, e[st],
                        l[st], x->grad_bytes);
        if (e[st] > 0 && !(at[st] > 0))
            return fail(r, "grad_early_at",
                        "stage %d: early gradients need a point in (0, 1] of the backward pass",
                        st);
        x->grad_early_bytes = e[st];
        x->grad_early_at = e[st] > 0 ? at[st] : 0;
        x->grad_late_bytes = l[st];
    }
    return true;
}

/* The scalar figures and framework switches. */
static bool job_figures(rd *r, job_structure *s)
{
    int zero;
    if (!bool_key(r, "seq_parallel", false, &s->seq_parallel) ||
        !bool_key(r, "tp_across_hosts", false, &s->tp_across_hosts) ||
        !bool_key(r, "overlap_grad_reduce", true, &s->overlap_grad_reduce) ||
        !int_key(r, "zero", 0, 0, 3, &zero) || !int_key(r, "fsdp_units", 1, 1, 1 << 20,
                                                         &s->fsdp_units) ||
        !int_key(r, "buckets", 1, 1, 100000, &s->buckets) ||
        !num(r, "act_bytes", 0, 0, 1e15, false, &s->act_bytes) ||
        !num(r, "tp_bytes", 0, 0, 1e15, false, &s->tp_bytes) ||
        !int_key(r, "tp_colls_fwd", 2, 0, 1000, &s->tp_colls_fwd) ||
        !int_key(r, "tp_colls_bwd", 2, 0, 1000, &s->tp_colls_bwd) ||
        !num(r, "moe_a2a_bytes", 0, 0, 1e15, false, &s->moe_a2a_bytes) ||
        !int_key(r, "moe_a2a_fwd", 2, 0, 1000, &s->moe_a2a_fwd) ||
        !int_key(r, "moe_a2a_bwd", 2, 0, 1000, &s->moe_a2a_bwd) ||
        !num(r, "embed_grad_bytes", 0, 0, 1e15, false, &s->embed_grad_bytes) ||
        !num(r, "opt_s", 0, 0, 1e6, false, &s->opt_s))
        return false;
    s->zero = (structure_zero)zero;
    if (s->embed_grad_bytes > 0 && s->pp < 2)
        return fail(r, "embed_grad_bytes",
                    "the embedding's two copies are on the first and the last stage: needs "
                    "pp > 1, got pp %d",
                    s->pp);
    if (s->fsdp_units > 1 && s->zero != STRUCTURE_ZERO_3)
        return fail(r, "fsdp_units", "only ZeRO 3 (FSDP) gathers parameters in units");
    return true;
}

job_structure *structure_parse(const cJSON *obj, int gpus, const char *where, GError **error)
{
    rd r = {obj, where ? where : "job", error};
    if (!check_keys(&r))
        return NULL;
    g_autoptr(job_structure) s = g_new0(job_structure, 1);
    if (!degrees(&r, s, gpus) || !rank_order(&r, s) || !micro_batches(&r, s))
        return NULL;
    s->stages = g_new0(structure_stage, s->pp);
    if (!layers(&r, s) || !stage_figures(&r, s) || !grad_profile(&r, s) || !job_figures(&r, s))
        return NULL;
    return g_steal_pointer(&s);
}

bool structure_check_hosts(const job_structure *s, int gpus_per_host, const char *where,
                           GError **error)
{
    if (s->tp <= gpus_per_host || s->tp_across_hosts)
        return true;
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "%s: structure.tp: a TP group of %d GPUs is larger than a host (%d GPUs); set "
                "\"tp_across_hosts\": true to let it span hosts",
                where ? where : "job", s->tp, gpus_per_host);
    return false;
}

int structure_gpus(const job_structure *s) { return s->tp * s->pp * s->dp; }

double structure_stage_compute_s(const job_structure *s, int st)
{
    return s->micro_batches * (s->stages[st].fwd_s + s->stages[st].bwd_s);
}

void structure_scale_compute(job_structure *s, double factor)
{
    for (int st = 0; st < s->pp; st++) {
        s->stages[st].fwd_s *= factor;
        s->stages[st].bwd_s *= factor;
    }
}

job_structure *structure_copy(const job_structure *s)
{
    if (!s)
        return NULL;
    job_structure *c = g_memdup2(s, sizeof *s);
    c->stages = g_memdup2(s->stages, sizeof *s->stages * (size_t)s->pp);
    return c;
}

void structure_free(job_structure *s)
{
    if (!s)
        return;
    g_free(s->stages);
    g_free(s);
}
