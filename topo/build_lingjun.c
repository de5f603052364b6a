/* build_lingjun.c - the Lingjun trace's production network from topo.csv.
 * Not here: the Clos assembly (clos.c), the trace itself (traces/).
 *
 * The Lingjun trace's production network from topo.csv
 * (docs/traces.md): one row per host, columns ip, DSW,
 * PSW, ASW.  A host is named by its ip hash; a rack is a (PSW, ASW) pair (ASW
 * labels are local to a PSW: S1 under P8 and S1 under P10 are different
 * racks); a PSW label is a pod with `psw` aggregation switches; the DSW layer
 * is `dsw` core switches shared by all pods (the file has one DSW label;
 * several labels are merged into that one layer).
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

#include "topo-private.h"
#include "topo-resources.h"

#include "base/input.h"

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
            header = true;
            continue;
        }
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

/* Natural order of labels ("P8" < "P10"), as GCompareFunc on pointers to
 * strings. */
static gint natural_cmp(gconstpointer a, gconstpointer b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    g_autofree char *kx = g_utf8_collate_key_for_filename(x, -1);
    g_autofree char *ky = g_utf8_collate_key_for_filename(y, -1);
    int c = strcmp(kx, ky);
    return c ? c : strcmp(x, y);
}

/* The racks of the file in build order, and the hosts grouped by rack. */
typedef struct lingjun_plan {
    GPtrArray *pods;   /* PSW labels, natural order (borrowed from rows) */
    GPtrArray *racks;  /* "PSW/ASW", owned, pod-major natural order */
    size_t *rack_pod;  /* [racks] */
    size_t *rack_hosts; /* [racks] */
    const char **host_names; /* [rows] ips grouped by rack, file order inside */
} lingjun_plan;

static void plan_clear(lingjun_plan *pl)
{
    if (pl->pods)
        g_ptr_array_free(pl->pods, TRUE);
    if (pl->racks)
        g_ptr_array_free(pl->racks, TRUE);
    g_free(pl->rack_pod);
    g_free(pl->rack_hosts);
    g_free(pl->host_names);
}

static void plan_make(const GPtrArray *rows, lingjun_plan *pl)
{
    g_autoptr(GHashTable) pod_seen = g_hash_table_new(g_str_hash, g_str_equal);
    pl->pods = g_ptr_array_new();
    for (guint i = 0; i < rows->len; i++) {
        topo__lingjun_row *r = g_ptr_array_index(rows, i);
        if (g_hash_table_add(pod_seen, r->psw))
            g_ptr_array_add(pl->pods, r->psw);
    }
    g_ptr_array_sort(pl->pods, natural_cmp);
    pl->racks = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GArray) pods_of = g_array_new(FALSE, FALSE, sizeof(size_t));
    for (size_t pi = 0; pi < pl->pods->len; pi++) {
        const char *pod = g_ptr_array_index(pl->pods, pi);
        g_autoptr(GPtrArray) asws = g_ptr_array_new();
        g_autoptr(GHashTable) asw_seen = g_hash_table_new(g_str_hash, g_str_equal);
        for (guint i = 0; i < rows->len; i++) {
            topo__lingjun_row *r = g_ptr_array_index(rows, i);
            if (strcmp(r->psw, pod) == 0 && g_hash_table_add(asw_seen, r->asw))
                g_ptr_array_add(asws, r->asw);
        }
        g_ptr_array_sort(asws, natural_cmp);
        for (guint k = 0; k < asws->len; k++) {
            g_ptr_array_add(pl->racks,
                            g_strdup_printf("%s/%s", pod, (char *)g_ptr_array_index(asws, k)));
            g_array_append_val(pods_of, pi);
        }
    }
    size_t nr = pl->racks->len;
    pl->rack_pod = g_memdup2(pods_of->data, nr * sizeof(size_t));
    pl->rack_hosts = g_new0(size_t, nr);
    g_autoptr(GHashTable) rack_idx = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint r = 0; r < nr; r++)
        g_hash_table_insert(rack_idx, g_ptr_array_index(pl->racks, r), GUINT_TO_POINTER(r));
    g_autofree size_t *row_rack = g_new(size_t, rows->len);
    for (guint i = 0; i < rows->len; i++) {
        topo__lingjun_row *r = g_ptr_array_index(rows, i);
        g_autofree char *key = g_strdup_printf("%s/%s", r->psw, r->asw);
        row_rack[i] = GPOINTER_TO_UINT(g_hash_table_lookup(rack_idx, key));
        pl->rack_hosts[row_rack[i]]++;
    }
    /* counting sort of the rows by rack */
    g_autofree size_t *next = g_new0(size_t, nr);
    for (guint r = 1; r < nr; r++)
        next[r] = next[r - 1] + pl->rack_hosts[r - 1];
    pl->host_names = g_new(const char *, rows->len);
    for (guint i = 0; i < rows->len; i++)
        pl->host_names[next[row_rack[i]]++] = ((topo__lingjun_row *)g_ptr_array_index(rows, i))->ip;
}

/* The rows of the topo.csv at path, parsed and grouped into the plan. */
static GPtrArray *load_plan(const char *path, lingjun_plan *pl, GError **error)
{
    g_autoptr(GBytes) bytes = ccs_input_read(path, true, error);
    if (!bytes)
        return NULL;
    size_t len = 0;
    const char *buf = g_bytes_get_data(bytes, &len);
    GPtrArray *rows = topo__lingjun_parse(buf, len, path, error);
    if (rows)
        plan_make(rows, pl);
    return rows;
}

bool topo__hosts_from(topo__params *p, size_t *hosts, GPtrArray **names, GError **error)
{
    *names = NULL;
    const char *path = topo__params_string(p, "hosts_from", NULL);
    if (!path)
        return true;
    if (topo__params_has(p, "hosts")) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "give hosts= or hosts_from=, not both (hosts_from sets the host count)");
        return false;
    }
    lingjun_plan pl = {0};
    g_autoptr(GPtrArray) rows = load_plan(path, &pl, error);
    if (!rows)
        return false;
    *hosts = rows->len;
    *names = g_ptr_array_new_full(rows->len, g_free);
    for (guint i = 0; i < rows->len; i++)
        g_ptr_array_add(*names, g_strdup(pl.host_names[i]));
    plan_clear(&pl);
    return true;
}

/* The lingjun builder on the topo.csv text buf (name for messages). */
static bool build_from(topo *t, topo__params *p, const char *buf, size_t len, const char *name,
                       GError **error)
{
    size_t psw, dsw;
    topo__clos c = topo__clos_default();
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
    lingjun_plan pl = {0};
    g_autoptr(GPtrArray) rows = topo__lingjun_parse(buf, len, name, error);
    if (!rows)
        return false;
    plan_make(rows, &pl);
    c.pods = pl.pods->len;
    c.racks = pl.racks->len;
    c.rack_pod = pl.rack_pod;
    c.rack_hosts = pl.rack_hosts;
    c.rack_name = (const char *const *)pl.racks->pdata;
    c.pod_name = (const char *const *)pl.pods->pdata;
    c.host_name = pl.host_names;
    c.aggs_per_pod = psw;
    c.cores = dsw;
    bool ok = topo__clos_build(t, &c, error);
    plan_clear(&pl);
    return ok;
}

bool topo__build_lingjun(topo *t, topo__params *p, GError **error)
{
    const char *path = topo__params_string(p, "path", NULL);
    if (!path) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "path=topo.csv is required");
        return false;
    }
    g_autoptr(GBytes) bytes = ccs_input_read(path, true, error);
    if (!bytes)
        return false;
    size_t len = 0;
    const char *buf = g_bytes_get_data(bytes, &len);
    return build_from(t, p, buf, len, path, error);
}

bool topo__build_lingjun_sample(topo *t, topo__params *p, GError **error)
{
    const char *name = "lingjun-sample topo.csv";
    g_autoptr(GBytes) gz = g_resource_lookup_data(topo_resources_get_resource(),
                                                  "/ccsim/topo/sample-topo.csv.gz",
                                                  G_RESOURCE_LOOKUP_FLAGS_NONE, error);
    g_autoptr(GBytes) csv = gz ? ccs_input_decode(gz, name, true, error) : NULL;
    if (!csv)
        return false;
    size_t len = 0;
    const char *buf = g_bytes_get_data(csv, &len);
    return build_from(t, p, buf, len, name, error);
}
