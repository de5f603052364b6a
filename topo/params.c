/* params.c - the `key=value,...` part of a topology spec.
 * Not here: what each builder does with them (build_*.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topo-private.h"

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
        if (!*kv)
            continue;
        char *eq = strchr(kv, '=');
        const char *key, *val;
        if (!eq) {
            if (i == 0 && bare_key) {
                key = bare_key;
                val = kv;
            } else {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "expected key=value, got '%s'", kv);
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
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "parameter '%s' given twice", key);
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
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s must be a non-negative integer, got '%s'", key, v);
        return false;
    }
    if (x > 1000000) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s must be at most 1000000, got '%s'",
                    key, v);
        return false;
    }
    *out = (size_t)x;
    return true;
}

bool topo__params_double(topo__params *p, const char *key, double def, double *out,
                         GError **error)
{
    const char *v = lookup(p, key);
    if (!v) {
        *out = def;
        return true;
    }
    char *end = NULL;
    errno = 0;
    double x = g_ascii_strtod(v, &end);
    if (errno || end == v || *end || !isfinite(x) || x < 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s must be a non-negative number, got '%s'", key, v);
        return false;
    }
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
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "unknown parameter '%s'", k);
            return false;
        }
    }
    return true;
}
