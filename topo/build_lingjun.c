/* build_lingjun.c - the Lingjun trace's production network from topo.csv
 * (../shared/research/workloads.md §1.4): one row per host, columns
 * ip, DSW, PSW, ASW.  A host is named by its ip hash; a rack is a (PSW, ASW)
 * pair (ASW labels are local to a PSW: S1 under P8 and S1 under P10 are
 * different racks); a PSW label is a pod with `psw` aggregation switches;
 * the DSW layer is `dsw` core switches shared by all pods (the file has one
 * DSW label; several labels are merged into that one layer).
 *
 * Order: pods by PSW label in natural order (P8, P10, P12), racks by ASW
 * label in natural order (S1, S2, ..., S48) within a pod, hosts in file
 * order within a rack; host ids follow, so hosts 0..h/2-1 are a prefix of
 * pods (the bisection cut).
 *
 * Parameters: path (required; plain or .gz), psw=4, dsw=8,
 * core_mesh=plane, attach=single (dual: two ASWs per rack, the NICs split
 * between them; rail: `rails` rail switches per rack), rails=nics,
 * oversub=1 or link_gbps, tor_agg_gbps, agg_core_gbps, latency_us=1, and
 * the server options. */
#include <string.h>
#include <zlib.h>

#include "topo-private.h"

static void row_free(gpointer p)
{
    topo__lingjun_row *r = p;
    g_free(r->ip);
    g_free(r->dsw);
    g_free(r->psw);
    g_free(r->asw);
    g_free(r);
}

GPtrArray *topo__lingjun_parse(const char *buf, size_t len, const char *name, GError **error)
{
    g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(row_free);
    g_autofree char *text = g_strndup(buf, len);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    int col[4] = {-1, -1, -1, -1};
    static const char *const want[4] = {"ip", "DSW", "PSW", "ASW"};
    size_t ncols = 0;
    bool header = false;
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (size_t ln = 0; lines[ln]; ln++) {
        char *line = lines[ln];
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[l - 1] = '\0';
        if (!*g_strstrip(line))
            continue;
        g_auto(GStrv) f = g_strsplit(line, ",", -1);
        size_t nf = g_strv_length(f);
        if (!header) {
            for (size_t i = 0; i < nf; i++)
                for (int k = 0; k < 4; k++)
                    if (strcmp(g_strstrip(f[i]), want[k]) == 0)
                        col[k] = (int)i;
            for (int k = 0; k < 4; k++)
                if (col[k] < 0) {
                    g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                                "%s:%zu: header has no column '%s' (need ip, DSW, PSW, ASW)",
                                name, ln + 1, want[k]);
                    return NULL;
                }
            ncols = nf;
            header = true;
            continue;
        }
        (void)ncols;
        char *v[4];
        for (int k = 0; k < 4; k++) {
            if ((size_t)col[k] >= nf || !*g_strstrip(f[col[k]])) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s:%zu: %s: empty or missing",
                            name, ln + 1, want[k]);
                return NULL;
            }
            v[k] = f[col[k]];
        }
        if (!g_hash_table_add(seen, g_strdup(v[0]))) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s:%zu: ip: duplicate host '%s'",
                        name, ln + 1, v[0]);
            return NULL;
        }
        topo__lingjun_row *r = g_new(topo__lingjun_row, 1);
        *r = (topo__lingjun_row){g_strdup(v[0]), g_strdup(v[1]), g_strdup(v[2]), g_strdup(v[3]),
                                 ln + 1};
        g_ptr_array_add(rows, r);
    }
    if (!header || rows->len == 0) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s: no hosts", name);
        return NULL;
    }
    return g_steal_pointer(&rows);
}

static bool read_maybe_gz(const char *path, char **out, size_t *len, GError **error)
{
    if (!g_str_has_suffix(path, ".gz")) {
        gsize n = 0;
        if (!g_file_get_contents(path, out, &n, NULL)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot read", path);
            return false;
        }
        *len = n;
        return true;
    }
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: cannot read", path);
        return false;
    }
    GByteArray *b = g_byte_array_new();
    guint8 chunk[65536];
    int n;
    while ((n = gzread(gz, chunk, sizeof chunk)) > 0)
        g_byte_array_append(b, chunk, (guint)n);
    int err = 0;
    const char *msg = gzerror(gz, &err);
    bool ok = n == 0 && (err == Z_OK || err == Z_STREAM_END);
    if (!ok)
        g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s: %s", path, msg);
    gzclose(gz);
    *len = b->len;
    *out = (char *)g_byte_array_free(b, !ok);
    return ok;
}

static int natural_cmp(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    g_autofree char *kx = g_utf8_collate_key_for_filename(x, -1);
    g_autofree char *ky = g_utf8_collate_key_for_filename(y, -1);
    int c = strcmp(kx, ky);
    return c ? c : strcmp(x, y);
}

bool topo__build_lingjun(topo *t, topo__params *p, GError **error)
{
    const char *path = topo__params_string(p, "path", NULL);
    size_t psw, dsw;
    topo__clos c = topo__clos_default();
    if (!path) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "path=topo.csv is required");
        return false;
    }
    if (!topo__params_size(p, "psw", 4, &psw, error) ||
        !topo__params_size(p, "dsw", 8, &dsw, error) ||
        !topo__core_mesh_parse(p, &c.core_full_mesh, error) ||
        !topo__server_parse(p, 4, &c.server, error) ||
        !topo__params_size(p, "rails", c.server.nics, &c.rails, error) ||
        !topo__clos_parse_common(p, &c, error) || !topo__params_check_unused(p, error))
        return false;
    if (psw < 1 || dsw < 1) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "psw and dsw must be at least 1");
        return false;
    }
    g_autofree char *buf = NULL;
    size_t len = 0;
    if (!read_maybe_gz(path, &buf, &len, error))
        return false;
    g_autoptr(GPtrArray) rows = topo__lingjun_parse(buf, len, path, error);
    if (!rows)
        return false;
    /* pods and racks in natural label order */
    g_autoptr(GHashTable) pod_set = g_hash_table_new(g_str_hash, g_str_equal);
    g_autoptr(GHashTable) rack_set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < rows->len; i++) {
        topo__lingjun_row *r = g_ptr_array_index(rows, i);
        g_hash_table_add(pod_set, r->psw);
        g_hash_table_add(rack_set, g_strdup_printf("%s/%s", r->psw, r->asw));
    }
    guint npods = 0, nracks = 0;
    g_autofree gpointer *pods = g_hash_table_get_keys_as_array(pod_set, &npods);
    qsort(pods, npods, sizeof(char *), natural_cmp);
    g_autoptr(GHashTable) pod_index = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < npods; i++)
        g_hash_table_insert(pod_index, pods[i], GUINT_TO_POINTER(i));
    /* racks sorted by (pod index, ASW natural order) */
    g_autoptr(GPtrArray) racks = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GHashTable) rack_rows = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint pi = 0; pi < npods; pi++) {
        g_autoptr(GPtrArray) asws = g_ptr_array_new();
        g_autoptr(GHashTable) asw_seen = g_hash_table_new(g_str_hash, g_str_equal);
        for (guint i = 0; i < rows->len; i++) {
            topo__lingjun_row *r = g_ptr_array_index(rows, i);
            if (strcmp(r->psw, pods[pi]) == 0 && g_hash_table_add(asw_seen, r->asw))
                g_ptr_array_add(asws, r->asw);
        }
        g_ptr_array_sort(asws, natural_cmp);
        for (guint k = 0; k < asws->len; k++)
            g_ptr_array_add(racks, g_strdup_printf("%s/%s", (char *)pods[pi],
                                                   (char *)g_ptr_array_index(asws, k)));
    }
    nracks = racks->len;
    size_t *rack_pod = g_new(size_t, nracks), *rack_hosts = g_new0(size_t, nracks);
    const char **host_names = g_new(const char *, rows->len);
    g_autoptr(GHashTable) rack_idx = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint r = 0; r < nracks; r++)
        g_hash_table_insert(rack_idx, g_ptr_array_index(racks, r), GUINT_TO_POINTER(r));
    /* hosts grouped by rack, file order inside */
    g_autofree size_t *row_rack = g_new(size_t, rows->len);
    for (guint i = 0; i < rows->len; i++) {
        topo__lingjun_row *r = g_ptr_array_index(rows, i);
        g_autofree char *key = g_strdup_printf("%s/%s", r->psw, r->asw);
        row_rack[i] = GPOINTER_TO_UINT(g_hash_table_lookup(rack_idx, key));
        rack_hosts[row_rack[i]]++;
    }
    size_t *first = g_new0(size_t, nracks + 1);
    for (guint r = 0; r < nracks; r++) {
        first[r + 1] = first[r] + rack_hosts[r];
        const char *rn = g_ptr_array_index(racks, r);
        const char *slash = strchr(rn, '/');
        g_autofree char *pn = g_strndup(rn, (gsize)(slash - rn));
        rack_pod[r] = GPOINTER_TO_UINT(g_hash_table_lookup(pod_index, pn));
    }
    size_t *fill = g_new0(size_t, nracks);
    for (guint i = 0; i < rows->len; i++) {
        topo__lingjun_row *r = g_ptr_array_index(rows, i);
        size_t rk = row_rack[i];
        host_names[first[rk] + fill[rk]++] = r->ip;
    }
    (void)rack_rows;
    c.pods = npods;
    c.racks = nracks;
    c.rack_pod = rack_pod;
    c.rack_hosts = rack_hosts;
    c.rack_name = (const char *const *)racks->pdata;
    c.pod_name = (const char *const *)pods;
    c.host_name = host_names;
    c.aggs_per_pod = psw;
    c.cores = dsw;
    bool ok = topo__clos_build(t, &c, error);
    g_free(fill);
    g_free(first);
    g_free(host_names);
    g_free(rack_pod);
    g_free(rack_hosts);
    return ok;
}
