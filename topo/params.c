/* params.c - the `key=value,...` part of a topology spec, and the server
 * model's options shared by every builder. */
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

/* ---- the server model ---- */

/* Defaults follow the Crux testbed host: 8 GPUs, 4 PCIe switches with 2
 * GPUs and one 200 Gbps NIC each; NVLink 300 GB/s per GPU per direction
 * (A100 NVLink 3: 600 GB/s total); PCIe Gen4 x16: 16 GT/s x 16 lanes x
 * 128/130 = 252 Gbps per direction; 0.5 us per intra-host hop. */
topo__server topo__server_default(void)
{
    return (topo__server){
        .gpus = 8,
        .nics = 4,
        .pcie = 4,
        .nic_Bps = ccs_gbps_to_Bps(200),
        .nvlink_Bps = ccs_GBps_to_Bps(300),
        .pcie_Bps = ccs_gbps_to_Bps(252),
        .host_latency_s = ccs_us_to_s(0.5),
    };
}

bool topo__server_check(const topo__server *s, GError **error)
{
    if (s->gpus < 1 || s->gpus > 64) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "gpus must be 1..64, got %zu", s->gpus);
        return false;
    }
    if (s->nics < 1 || s->nics > 8) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "nics must be 1..8, got %zu", s->nics);
        return false;
    }
    if (s->pcie < 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "pcie must be at least 1");
        return false;
    }
    if (!ccs_positive_finite(s->nic_Bps) || !ccs_positive_finite(s->nvlink_Bps) ||
        !ccs_positive_finite(s->pcie_Bps)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "nic_gbps, nvlink_gbps and pcie_gbps must be positive");
        return false;
    }
    if (!isfinite(s->host_latency_s) || s->host_latency_s < 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "host_latency_us must be >= 0");
        return false;
    }
    return true;
}

bool topo__server_parse(topo__params *p, size_t nics_def, topo__server *out, GError **error)
{
    topo__server d = topo__server_default();
    double nic_gbps, nvlink_gbps, nvlink_GBps, pcie_gbps, lat_us;
    if (!topo__params_size(p, "gpus", d.gpus, &out->gpus, error) ||
        !topo__params_size(p, "nics", nics_def, &out->nics, error) ||
        !topo__params_size(p, "pcie", d.pcie, &out->pcie, error) ||
        !topo__params_double(p, "nic_gbps", ccs_Bps_to_gbps(d.nic_Bps), &nic_gbps, error) ||
        !topo__params_double(p, "nvlink_gbps", ccs_Bps_to_gbps(d.nvlink_Bps), &nvlink_gbps,
                             error) ||
        !topo__params_double(p, "nvlink_GBps", 0, &nvlink_GBps, error) ||
        !topo__params_double(p, "pcie_gbps", ccs_Bps_to_gbps(d.pcie_Bps), &pcie_gbps, error) ||
        !topo__params_double(p, "host_latency_us", d.host_latency_s * 1e6, &lat_us, error))
        return false;
    if (topo__params_has(p, "nvlink_gbps") && topo__params_has(p, "nvlink_GBps")) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "give nvlink_gbps or nvlink_GBps, not both");
        return false;
    }
    out->nic_Bps = ccs_gbps_to_Bps(nic_gbps);
    out->nvlink_Bps =
        topo__params_has(p, "nvlink_GBps") ? ccs_GBps_to_Bps(nvlink_GBps) : ccs_gbps_to_Bps(nvlink_gbps);
    out->pcie_Bps = ccs_gbps_to_Bps(pcie_gbps);
    out->host_latency_s = ccs_us_to_s(lat_us);
    return topo__server_check(out, error);
}
