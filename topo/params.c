/* params.c - the `key=value,...` part of a topology spec.
 * Not here: what each builder does with them (build_*.c).
 */
#include <string.h>

#include "topo-private.h"

#include "base/limits.h"

struct topo__params {
    GHashTable *values; /* key -> value (owned) */
    GHashTable *used;   /* keys read by a builder (borrowed) */
    GPtrArray *order;   /* keys in spec order (borrowed), for messages */
};

void topo__params_free(topo__params *p)
{
    if (!p)
        return;
    g_ptr_array_free(p->order, TRUE);
    g_hash_table_destroy(p->used);
    g_hash_table_destroy(p->values);
    g_free(p);
}

topo__params *topo__params_parse(const char *args, const char *bare_key, GError **error)
{
    g_autoptr(topo__params) p = g_new0(topo__params, 1);
    p->values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    p->used = g_hash_table_new(g_str_hash, g_str_equal);
    p->order = g_ptr_array_new();
    if (!args || !*args)
        return g_steal_pointer(&p);
    g_auto(GStrv) parts = g_strsplit(args, ",", -1);
    for (size_t i = 0; parts[i]; i++) {
        char *kv = g_strstrip(parts[i]);
        if (!*kv) {
            /* "k=4,,," is a typo more often than not: say so */
            g_autofree char *shown = ccs_escape(args, -1, 80);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "empty parameter (item %zu of '%s')", i + 1, shown);
            return NULL;
        }
        char *eq = strchr(kv, '=');
        const char *key, *val;
        if (!eq) {
            if (i == 0 && bare_key) {
                key = bare_key;
                val = kv;
            } else {
                g_autofree char *shown = ccs_escape(kv, -1, 80);
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "expected key=value, got '%s'", shown);
                return NULL;
            }
        } else {
            *eq = '\0';
            key = g_strstrip(kv);
            val = g_strstrip(eq + 1);
        }
        if (!*key) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "empty parameter name");
            return NULL;
        }
        if (g_hash_table_contains(p->values, key)) {
            g_autofree char *shown = ccs_escape(key, -1, 80);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "parameter '%s' given twice",
                        shown);
            return NULL;
        }
        char *k = g_strdup(key);
        g_hash_table_insert(p->values, k, g_strdup(val));
        g_ptr_array_add(p->order, k);
    }
    return g_steal_pointer(&p);
}

static const char *lookup(topo__params *p, const char *key)
{
    gpointer orig = NULL, val = NULL;
    if (!g_hash_table_lookup_extended(p->values, key, &orig, &val))
        return NULL;
    g_hash_table_add(p->used, orig);
    return val;
}

bool topo__params_has(topo__params *p, const char *key)
{
    return g_hash_table_contains(p->values, key);
}

bool topo__params_size(topo__params *p, const char *key, size_t def, size_t *out, GError **error)
{
    const char *v = lookup(p, key);
    if (!v) {
        *out = def;
        return true;
    }
    int64_t x = 0;
    if (!ccs_parse_int64(v, &x) || x < 0) {
        g_autofree char *shown = ccs_escape(v, -1, 80);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s must be a non-negative decimal integer, got '%s'", key, shown);
        return false;
    }
    if (!ccs_limit_check(CCS_LIMIT_TOPO_COUNT, (double)x, key, error))
        return false;
    *out = (size_t)x;
    return true;
}

/* The limit a double parameter falls under, by its name's unit suffix. */
static int double_limit(const char *key)
{
    if (g_str_has_suffix(key, "_gbps"))
        return CCS_LIMIT_LINK_GBPS;
    if (g_str_has_suffix(key, "latency_us"))
        return CCS_LIMIT_LATENCY_US;
    return -1;
}

bool topo__params_double(topo__params *p, const char *key, double def, double *out,
                         GError **error)
{
    const char *v = lookup(p, key);
    if (!v) {
        *out = def;
        return true;
    }
    double x = 0;
    if (!ccs_parse_double(v, &x) || x < 0) {
        g_autofree char *shown = ccs_escape(v, -1, 80);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s must be a non-negative decimal number, got '%s'", key, shown);
        return false;
    }
    int lim = double_limit(key);
    /* zero speeds get the builders' own "must be positive" message */
    if (lim >= 0 && x > 0 && !ccs_limit_check((ccs_limit_id)lim, x, key, error))
        return false;
    *out = x;
    return true;
}

const char *topo__params_string(topo__params *p, const char *key, const char *def)
{
    const char *v = lookup(p, key);
    return v ? v : def;
}

bool topo__params_check_unused(topo__params *p, GError **error)
{
    for (size_t i = 0; i < p->order->len; i++) {
        const char *k = g_ptr_array_index(p->order, i);
        if (!g_hash_table_contains(p->used, k)) {
            g_autofree char *shown = ccs_escape(k, -1, 80);
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "unknown parameter '%s'", shown);
            return false;
        }
    }
    return true;
}
