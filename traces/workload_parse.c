/* workload_parse.c - the "structure" object of a scenario job and its
 * "arch" (docs/usage.md "Structured jobs"), framework defaults.
 * Not here: what the figures become (workload_resolve.c).
 */
#include "workload.h"
#include "workload-private.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/limits.h"

static const char *const fw_names[] = {
    [WORKLOAD_FW_MEGATRON] = "megatron",
    [WORKLOAD_FW_DDP] = "ddp",
    [WORKLOAD_FW_FSDP] = "fsdp",
};

bool workload_framework_parse(const char *s, workload_framework_kind *out, GError **error)
{
    for (size_t k = 0; k < G_N_ELEMENTS(fw_names); k++) {
        if (s && g_ascii_strcasecmp(s, fw_names[k]) == 0) {
            *out = (workload_framework_kind)k;
            return true;
        }
    }
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "unknown framework \"%s\" (megatron, ddp or fsdp)", s ? s : "(null)");
    return false;
}

const char *workload_framework_name(workload_framework_kind k)
{
    return (size_t)k < G_N_ELEMENTS(fw_names) ? fw_names[k] : "?";
}

/* Sources of every default: docs/models.md "Framework behaviour". */
workload_framework workload_framework_defaults(workload_framework_kind kind)
{
    workload_framework f = {
        .kind = kind,
        .act_value_bytes = 2,   /* bf16 / fp16 activations */
        .param_value_bytes = 2, /* bf16 parameters all-gathered */
    };
    switch (kind) {
    case WORKLOAD_FW_MEGATRON:
        f.grad_value_bytes = 4;        /* bf16 forces fp32 accumulation and all-reduce */
        f.overlap_grad_reduce = false; /* --overlap-grad-reduce is opt-in */
        f.bucket_bytes = 0;            /* no bucketing without overlap */
        f.pp_scatter_gather = true;    /* scatter/gather of stage boundaries (SC'21 §4.1) */
        break;
    case WORKLOAD_FW_DDP:
        f.grad_value_bytes = 4; /* AMP keeps fp32 parameters, so fp32 gradients */
        f.overlap_grad_reduce = true;
        f.bucket_bytes = 25 * WORKLOAD_MIB; /* bucket_cap_mb = 25 */
        break;
    case WORKLOAD_FW_FSDP:
        f.grad_value_bytes = 2; /* bf16 reduce dtype (pure-bf16 recipes) */
        f.overlap_grad_reduce = true;
        break;
    }
    return f;
}

workload_spec workload_spec_default(void)
{
    workload_spec s = {
        .fw = workload_framework_defaults(WORKLOAD_FW_MEGATRON),
        .fwd_s = -1, .bwd_s = -1, .act_bytes = -1, .grad_bytes = -1, .grad_late_bytes = -1,
        .tp_bytes = -1, .a2a_bytes = -1, .opt_s = -1, .tflops = -1,
    };
    return s;
}

/* ---- small readers -------------------------------------------------- */

/* An optional integer key in [lo, hi]; *out untouched when absent. */
static bool opt_int(const cJSON *o, const char *key, int lo, int hi, int *out, const char *name,
                    GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return true;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s: expected an integer in [%d, %d]",
                    name, key, lo, hi);
        return false;
    }
    *out = (int)v->valuedouble;
    return true;
}

/* An optional number in [lo, hi]. */
static bool opt_num(const cJSON *o, const char *key, double lo, double hi, double *out,
                    const char *name, GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return true;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s: expected a number in [%g, %g]",
                    name, key, lo, hi);
        return false;
    }
    *out = v->valuedouble;
    return true;
}

static bool opt_bool(const cJSON *o, const char *key, bool *out, const char *name,
                     GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return true;
    if (!cJSON_IsBool(v)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s: expected true or false", name,
                    key);
        return false;
    }
    *out = cJSON_IsTrue(v);
    return true;
}

/* An optional string key; NULL when absent. */
static bool opt_str(const cJSON *o, const char *key, const char **out, const char *name,
                    GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NULL;
    if (!v)
        return true;
    if (!cJSON_IsString(v) || !v->valuestring[0]) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s: expected a string", name, key);
        return false;
    }
    *out = v->valuestring;
    return true;
}

/* ---- the architecture ------------------------------------------------ */

static bool arch_required(const cJSON *o, const char *name, workload_arch *a, GError **error)
{
    static const char *const req[] = {"layers", "hidden", "heads", "seq", "vocab"};
    for (size_t i = 0; i < G_N_ELEMENTS(req); i++) {
        if (!cJSON_GetObjectItemCaseSensitive(o, req[i])) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: missing \"%s\"", name, req[i]);
            return false;
        }
    }
    return opt_int(o, "layers", 1, 100000, &a->layers, name, error) &&
           opt_int(o, "hidden", 1, 1 << 20, &a->hidden, name, error) &&
           opt_int(o, "heads", 1, 1 << 16, &a->heads, name, error) &&
           opt_int(o, "seq", 1, 1 << 24, &a->seq, name, error) &&
           opt_int(o, "vocab", 1, 1 << 24, &a->vocab, name, error);
}

static bool arch_moe(const cJSON *o, const char *name, workload_arch *a, GError **error)
{
    a->top_k = 0;
    a->moe_every = 1;
    a->moe_ffn = a->ffn;
    if (!opt_int(o, "experts", 0, 1 << 16, &a->experts, name, error) ||
        !opt_int(o, "top_k", 1, 1 << 16, &a->top_k, name, error) ||
        !opt_int(o, "moe_every", 1, 100000, &a->moe_every, name, error) ||
        !opt_int(o, "moe_ffn", 1, 1 << 22, &a->moe_ffn, name, error))
        return false;
    if (a->experts > 0 && (a->top_k < 1 || a->top_k > a->experts)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: top_k: expected 1..experts (%d) for an MoE model", name, a->experts);
        return false;
    }
    return true;
}

/* The keys of an "arch" object: a typo must not pass as a default. */
static const char *const arch_keys[] = {
    "layers", "hidden", "heads", "kv_heads", "ffn", "gated_mlp", "seq", "vocab",
    "tied_embeddings", "learned_pos", "biases", "experts", "top_k", "moe_every", "moe_ffn",
};

static bool arch_known_keys(const cJSON *o, const char *name, GError **error)
{
    for (const cJSON *c = o->child; c; c = c->next) {
        bool known = false;
        for (size_t k = 0; k < G_N_ELEMENTS(arch_keys) && !known; k++)
            known = strcmp(c->string, arch_keys[k]) == 0;
        if (!known) {
            g_autofree char *shown = ccs_escape(c->string, -1, 60);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: unknown key \"%s\" (docs/usage.md lists the keys)", name, shown);
            return false;
        }
    }
    return true;
}

bool workload_arch_from_cjson(const cJSON *o, const char *name, workload_arch *out,
                              GError **error)
{
    if (!cJSON_IsObject(o)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected an object", name);
        return false;
    }
    if (!arch_known_keys(o, name, error))
        return false;
    workload_arch a = {.biases = true, .learned_pos = true, .tied_embeddings = true};
    if (!arch_required(o, name, &a, error))
        return false;
    a.kv_heads = a.heads;
    a.ffn = 4 * a.hidden;
    if (!opt_int(o, "kv_heads", 1, a.heads, &a.kv_heads, name, error) ||
        !opt_int(o, "ffn", 1, 1 << 22, &a.ffn, name, error) ||
        !opt_bool(o, "gated_mlp", &a.gated_mlp, name, error) ||
        !opt_bool(o, "tied_embeddings", &a.tied_embeddings, name, error) ||
        !opt_bool(o, "learned_pos", &a.learned_pos, name, error) ||
        !opt_bool(o, "biases", &a.biases, name, error) || !arch_moe(o, name, &a, error))
        return false;
    if (a.hidden % a.heads || a.heads % a.kv_heads) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: hidden (%d) must be a multiple of heads (%d), heads of kv_heads (%d)",
                    name, a.hidden, a.heads, a.kv_heads);
        return false;
    }
    *out = a;
    return true;
}

/* "arch": an object, or the name of a catalog entry that carries one. */
static bool spec_arch(const cJSON *o, const catalog *cat, const char *name, workload_spec *s,
                      GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "arch");
    if (!v)
        return true;
    g_autofree char *an = g_strdup_printf("%s: arch", name);
    if (cJSON_IsObject(v)) {
        s->has_arch = workload_arch_from_cjson(v, an, &s->arch, error);
        return s->has_arch;
    }
    const catalog_model *m = cJSON_IsString(v) && cat ? catalog_find(cat, v->valuestring) : NULL;
    if (!m || !m->arch) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: expected an object or the name of a catalog model with dimensions "
                    "(`ccsim list models`)",
                    an);
        return false;
    }
    s->arch = *m->arch;
    s->has_arch = true;
    return true;
}

/* ---- parallelism, framework, pins ------------------------------------- */

static bool spec_recompute(const cJSON *o, const char *name, workload_spec *s, GError **error)
{
    static const char *const names[] = {"none", "selective", "full"};
    const char *v;
    if (!opt_str(o, "recompute", &v, name, error))
        return false;
    if (!v)
        return true;
    for (size_t k = 0; k < G_N_ELEMENTS(names); k++) {
        if (strcmp(v, names[k]) == 0) {
            s->par.recompute = (workload_recompute)k;
            return true;
        }
    }
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "%s: recompute: expected \"none\", \"selective\" or \"full\"", name);
    return false;
}

static bool spec_parallel(const cJSON *o, const char *name, workload_spec *s, GError **error)
{
    workload_parallel *p = &s->par;
    return opt_int(o, "tp", 1, 1 << 16, &p->tp, name, error) &&
           opt_int(o, "pp", 1, 1 << 16, &p->pp, name, error) &&
           opt_int(o, "dp", 1, 1 << 20, &p->dp, name, error) &&
           opt_int(o, "ep", 1, 1 << 16, &p->ep, name, error) &&
           opt_int(o, "experts", 0, 1 << 20, &p->experts, name, error) &&
           opt_int(o, "vpp", 1, 1024, &p->vpp, name, error) &&
           opt_int(o, "zero", 0, 3, &p->zero, name, error) &&
           opt_int(o, "micro_batch_size", 1, 1 << 20, &p->micro_batch, name, error) &&
           opt_int(o, "global_batch", 1, 1 << 26, &p->global_batch, name, error) &&
           opt_int(o, "micro_batches", 1, 1 << 20, &p->micro_batches, name, error) &&
           opt_bool(o, "seq_parallel", &p->sequence_parallel, name, error) &&
           opt_bool(o, "tp_across_hosts", &p->tp_across_hosts, name, error) &&
           spec_recompute(o, name, s, error);
}

/* "grad_dtype": "fp32" | "bf16" | "fp16" -> bytes per value. */
static bool spec_grad_dtype(const cJSON *o, const char *name, workload_spec *s, GError **error)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, "grad_dtype");
    if (!j)
        return true;
    /* one message for any other value (a number from --structure-set too) */
    const char *v = cJSON_IsString(j) ? j->valuestring : "";
    if (strcmp(v, "fp32") == 0)
        s->fw.grad_value_bytes = 4;
    else if (strcmp(v, "bf16") == 0 || strcmp(v, "fp16") == 0)
        s->fw.grad_value_bytes = 2;
    else {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: grad_dtype: expected \"fp32\", \"bf16\" or \"fp16\"", name);
        return false;
    }
    return true;
}

/* The framework first (it sets the defaults), then its overrides. */
static bool spec_framework(const cJSON *o, const char *name, workload_spec *s, GError **error)
{
    const char *v;
    if (!opt_str(o, "framework", &v, name, error))
        return false;
    if (v) {
        workload_framework_kind k;
        if (!workload_framework_parse(v, &k, error)) {
            g_prefix_error(error, "%s: framework: ", name);
            return false;
        }
        s->fw = workload_framework_defaults(k);
    }
    double mb = -1;
    if (!spec_grad_dtype(o, name, s, error) ||
        !opt_bool(o, "overlap_grad_reduce", &s->fw.overlap_grad_reduce, name, error) ||
        !opt_bool(o, "pp_scatter_gather", &s->fw.pp_scatter_gather, name, error) ||
        !opt_num(o, "bucket_mb", 0, 1e9, &mb, name, error))
        return false;
    if (mb >= 0)
        s->fw.bucket_bytes = mb * WORKLOAD_MIB;
    return true;
}

/* A pinned figure: a number is used by the resolution; an array (one
 * value per stage) is left to structure_parse() but counts as pinned (0
 * here, replaced when the figures are overlaid). */
static bool opt_pin(const cJSON *o, const char *key, double *out, const char *name,
                    GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v && cJSON_IsArray(v)) {
        *out = 0;
        return true;
    }
    return opt_num(o, key, 0, 1e15, out, name, error);
}

static bool spec_pins(const cJSON *o, const char *name, workload_spec *s, GError **error)
{
    /* a catalog entry's late bytes are of its own gradients, not of pinned ones */
    if (cJSON_GetObjectItemCaseSensitive(o, "grad_bytes"))
        s->grad_late_bytes = -1;
    return opt_pin(o, "fwd_s", &s->fwd_s, name, error) &&
           opt_pin(o, "bwd_s", &s->bwd_s, name, error) &&
           opt_pin(o, "act_bytes", &s->act_bytes, name, error) &&
           opt_pin(o, "grad_bytes", &s->grad_bytes, name, error) &&
           opt_pin(o, "tp_bytes", &s->tp_bytes, name, error) &&
           opt_pin(o, "moe_a2a_bytes", &s->a2a_bytes, name, error) &&
           opt_pin(o, "opt_s", &s->opt_s, name, error) &&
           opt_num(o, "tflops", 1e-6, 1e9, &s->tflops, name, error) &&
           opt_int(o, "buckets", 1, 100000, &s->buckets, name, error);
}

bool workload_spec_from_cjson(const cJSON *o, const catalog *cat, const char *name,
                              workload_spec *out, GError **error)
{
    if (!name)
        name = "structure";
    if (!cJSON_IsObject(o)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected an object", name);
        return false;
    }
    workload_spec s = workload_spec_default();
    if (!spec_arch(o, cat, name, &s, error) || !workload__spec_overlay(o, name, &s, error))
        return false;
    *out = s;
    return true;
}

bool workload__spec_overlay(const cJSON *o, const char *name, workload_spec *s, GError **error)
{
    return spec_framework(o, name, s, error) && spec_parallel(o, name, s, error) &&
           spec_pins(o, name, s, error);
}
