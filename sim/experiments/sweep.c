/* sweep.c - a sweep file expanded into runs: axes, product, canonical JSON,
 * run names.  Not here: running (sweep_exec.c), summaries (sweep_csv.c).
 */
#include "sweep.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/ccs.h"
#include "base/input.h"
#include "base/json.h"
#include "base/limits.h"
#include "sweep-private.h"

/* One axis: parallel lists of values for one or more keys (a grid key is a
 * zip group of one). */
typedef struct axis {
    GPtrArray *keys;   /* char *, the parameter keys of this axis */
    GPtrArray *values; /* cJSON * arrays (borrowed from sweep->doc), one per key */
    size_t length;     /* common length of the lists */
} axis;

struct sweep {
    char *name;        /* the sweep file name, for messages */
    char *dir;         /* folder of the sweep file (absolute) */
    char *base_dir;    /* folder the base scenario's paths are relative to */
    cJSON *doc;        /* the sweep as given, base inlined (owns the value lists) */
    cJSON *base;       /* borrowed from doc: the base scenario as written */
    GArray *axes;      /* axis */
    GPtrArray *param_keys;    /* char * (borrowed from axes) */
    GPtrArray *param_columns; /* char * owned */
    GPtrArray *run_names;     /* char * owned */
    GHashTable *name_index;   /* name -> index + 1 */
};

static void axis_clear(axis *a)
{
    g_ptr_array_unref(a->keys);
    g_ptr_array_unref(a->values);
}

void sweep_free(sweep *sw)
{
    if (sw == NULL)
        return;
    for (size_t i = 0; i < sw->axes->len; i++)
        axis_clear(&g_array_index(sw->axes, axis, i));
    g_array_unref(sw->axes);
    g_ptr_array_unref(sw->param_keys);
    g_ptr_array_unref(sw->param_columns);
    g_ptr_array_unref(sw->run_names);
    g_hash_table_unref(sw->name_index);
    cJSON_Delete(sw->doc);
    g_free(sw->name);
    g_free(sw->dir);
    g_free(sw->base_dir);
    g_free(sw);
}

/* --- Canonical JSON ------------------------------------------------------ */

static void canon_string(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_printf(out, "\\%c", *p);
        else if (*p < 0x20)
            g_string_append_printf(out, "\\u%04x", *p);
        else
            g_string_append_c(out, (char)*p);
    }
    g_string_append_c(out, '"');
}

static void canon_number(GString *out, double x)
{
    if (x == floor(x) && fabs(x) < 9007199254740992.0)
        g_string_append_printf(out, "%" G_GINT64_FORMAT, (gint64)x);
    else {
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        g_ascii_formatd(buf, sizeof buf, "%.17g", x);
        g_string_append(out, buf);
    }
}

static int compare_keys(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a;
    const cJSON *y = *(const cJSON *const *)b;
    return strcmp(x->string, y->string);
}

static void canon_value(GString *out, const cJSON *v)
{
    if (cJSON_IsObject(v)) {
        g_autoptr(GPtrArray) members = g_ptr_array_new();
        for (const cJSON *c = v->child; c; c = c->next)
            g_ptr_array_add(members, (gpointer)c);
        if (members->len > 1)
            qsort(members->pdata, members->len, sizeof(gpointer), compare_keys);
        g_string_append_c(out, '{');
        for (size_t i = 0; i < members->len; i++) {
            const cJSON *c = members->pdata[i];
            if (i > 0)
                g_string_append_c(out, ',');
            canon_string(out, c->string);
            g_string_append_c(out, ':');
            canon_value(out, c);
        }
        g_string_append_c(out, '}');
    } else if (cJSON_IsArray(v)) {
        g_string_append_c(out, '[');
        for (const cJSON *c = v->child; c; c = c->next) {
            if (c != v->child)
                g_string_append_c(out, ',');
            canon_value(out, c);
        }
        g_string_append_c(out, ']');
    } else if (cJSON_IsString(v))
        canon_string(out, v->valuestring);
    else if (cJSON_IsNumber(v))
        canon_number(out, v->valuedouble);
    else if (cJSON_IsTrue(v))
        g_string_append(out, "true");
    else if (cJSON_IsFalse(v))
        g_string_append(out, "false");
    else
        g_string_append(out, "null");
}

char *sweep_canonical_json(const cJSON *value)
{
    g_return_val_if_fail(value != NULL, NULL);
    GString *out = g_string_new(NULL);
    canon_value(out, value);
    return g_string_free(out, FALSE);
}

void sweep__io_error(GError **error, GError *src, const char *prefix)
{
    g_set_error(error, CCS_ERROR, CCS_ERROR_IO, "%s%s", prefix, src->message);
    g_error_free(src);
}

/* --- Dotted paths ---------------------------------------------------------- */

/* Set root.a.b.c = value (a copy), creating objects on the way.  Fails when
 * an intermediate exists and is not an object. */
bool sweep__set_path(cJSON *root, const char *path, const cJSON *value, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(path, ".", -1);
    if (parts[0] == NULL) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "an empty dotted path");
        return false;
    }
    cJSON *node = root;
    for (size_t i = 0; parts[i + 1] != NULL; i++) {
        cJSON *next = cJSON_GetObjectItemCaseSensitive(node, parts[i]);
        if (next == NULL) {
            next = cJSON_AddObjectToObject(node, parts[i]);
        } else if (!cJSON_IsObject(next)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: the base scenario's '%s' is not an object", path, parts[i]);
            return false;
        }
        node = next;
    }
    const char *leaf = parts[g_strv_length(parts) - 1];
    cJSON *copy = cJSON_Duplicate(value, true);
    if (cJSON_GetObjectItemCaseSensitive(node, leaf) != NULL)
        cJSON_ReplaceItemInObjectCaseSensitive(node, leaf, copy);
    else
        cJSON_AddItemToObject(node, leaf, copy);
    return true;
}

static bool key_is_option(const char *key) { return g_str_has_prefix(key, "--"); }

/* The summary column of a swept key: the name run's own summary.csv gives
 * that setting where it has one (sim.seed and --seed: seed; sim.start_s:
 * sim_start_s), else the key without "sim." or "--", '-' written '_'. */
static char *param_column(const char *key)
{
    static const char *const same[][2] = {
        {"seed", "seed"},       {"mode", "mode"},           {"start_s", "sim_start_s"},
        {"start", "sim_start_s"}, {"end_s", "sim_end_s"},  {"end", "sim_end_s"},
    };
    const char *bare = key_is_option(key)            ? key + 2
                       : g_str_has_prefix(key, "sim.") ? key + 4
                                                       : key;
    g_autofree char *under = g_strdelimit(g_strdup(bare), "-", '_');
    for (size_t i = 0; i < G_N_ELEMENTS(same); i++)
        if (strcmp(under, same[i][0]) == 0)
            return g_strdup(same[i][1]);
    return g_steal_pointer(&under);
}

/* The `ccsim run` options a sweep may vary: what a run computes, never
 * where it writes (--out, --progress-file, --timeline, --force), which
 * scenario it reads (--scenario), how it uses the machine (-j, a sweep's
 * own), what part of it runs (--shard-only) or whether it runs (--help,
 * --version).
 * An allow-list: an option added to `ccsim run` is refused here until it
 * is added, so a new output path cannot slip in.  (static) */
const char *const *sweep_option_keys(void)
{
    static const char *const keys[] = {
        "--trace",    "--topo",          "--sched",         "--seed",      "--mode",
        "--start",    "--end",           "--levels",        "--gpu",       "--interval",
        "--time-scale", "--placement",   "--collective-model", "--channels", "--alpha-us",
        "--buckets",  "--jitter",        "--scale-hosts",   "--gzip",      "--no-fast-forward",
        "--steady",   "--timeline-jobs", "--timeline-span", "--flows",     "--job-model",
        "--shards",   "--shard-warmup",  "--compute",     "--mdot-weights", "--graph-library",
        "--step-latency", "--structure-set", NULL};
    return keys;
}

static bool check_option_key(const char *name, const char *key, GError **error)
{
    for (const char *const *k = sweep_option_keys(); *k; k++)
        if (strcmp(*k, key) == 0)
            return true;
    g_autofree char *shown = ccs_escape(key, -1, 80);
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "%s: grid key '%s': not an option a sweep may vary (the sweep sets where each "
                "run writes and which scenario it reads, runs/NAME; docs/experiments.md lists "
                "the options it passes on)",
                name, shown);
    return false;
}

static bool check_key(const char *name, const char *key, GError **error)
{
    if (!*key) { /* also a key that starts with \u0000 */
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: an empty grid key", name);
        return false;
    }
    if (key_is_option(key)) {
        if (key[2] == '\0' || strchr(key, '=') != NULL) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: grid key '%s': expected --option-name", name, key);
            return false;
        }
        return check_option_key(name, key, error);
    }
    g_auto(GStrv) parts = g_strsplit(key, ".", -1);
    for (size_t i = 0; parts[i]; i++)
        if (parts[i][0] == '\0') {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: grid key '%s': empty component in the dotted path", name, key);
            return false;
        }
    return true;
}

/* --- Paths inside scenarios ------------------------------------------------ */

/* Make a relative file path absolute against dir when that file exists
 * there: trace strings and the direct string members of the trace object,
 * a topology string naming a file (absolutize_topo_spec: its parameters),
 * sim.graph_library. */
static void absolutize_string(cJSON *item, const char *dir)
{
    if (!cJSON_IsString(item) || g_path_is_absolute(item->valuestring))
        return;
    g_autofree char *path = g_build_filename(dir, item->valuestring, NULL);
    if (g_file_test(path, G_FILE_TEST_EXISTS))
        cJSON_SetValuestring(item, path);
}

/* A topology spec "NAME:key=value,...": each value naming a file that
 * exists under dir (hosts_from=, path=) made absolute, since the worker
 * runs in its own folder. A string without parameters is a file or a name. */
static void absolutize_topo_spec(cJSON *item, const char *dir)
{
    const char *colon = cJSON_IsString(item) ? strchr(item->valuestring, ':') : NULL;
    if (!colon) {
        absolutize_string(item, dir);
        return;
    }
    g_autoptr(GString) out = g_string_new_len(item->valuestring, colon - item->valuestring + 1);
    g_auto(GStrv) params = g_strsplit(colon + 1, ",", -1);
    for (size_t i = 0; params[i]; i++) {
        const char *eq = strchr(params[i], '=');
        g_autofree char *path =
            eq && eq[1] && !g_path_is_absolute(eq + 1) ? g_build_filename(dir, eq + 1, NULL) : NULL;
        if (i > 0)
            g_string_append_c(out, ',');
        if (path && g_file_test(path, G_FILE_TEST_EXISTS))
            g_string_append_printf(out, "%.*s%s", (int)(eq + 1 - params[i]), params[i], path);
        else
            g_string_append(out, params[i]);
    }
    cJSON_SetValuestring(item, out->str);
}

void sweep__absolutize(cJSON *scenario, const char *dir)
{
    cJSON *trace = cJSON_GetObjectItemCaseSensitive(scenario, "trace");
    if (cJSON_IsString(trace))
        absolutize_string(trace, dir);
    else if (cJSON_IsObject(trace))
        for (cJSON *c = trace->child; c; c = c->next)
            absolutize_string(c, dir);
    absolutize_topo_spec(cJSON_GetObjectItemCaseSensitive(scenario, "topology"), dir);
    /* read relative to the scenario, which the worker reads in its own folder */
    absolutize_string(cJSON_GetObjectItemCaseSensitive(
                          cJSON_GetObjectItemCaseSensitive(scenario, "sim"), "graph_library"),
                      dir);
}

/* --- Parsing ----------------------------------------------------------------- */

/* Add one axis from the lists items[0..n) (members of sw->doc, keyed). */
static bool add_axis(sweep *sw, const cJSON *const *items, size_t n_items, const char *where,
                     GError **error)
{
    axis a = {g_ptr_array_new(), g_ptr_array_new(), 0};
    for (size_t it = 0; it < n_items; it++) {
        const cJSON *c = items[it];
        if (!check_key(sw->name, c->string, error))
            goto fail;
        if (!cJSON_IsArray(c) || cJSON_GetArraySize(c) == 0) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: %s.%s: expected a non-empty list of values", sw->name, where,
                        c->string);
            goto fail;
        }
        size_t n = (size_t)cJSON_GetArraySize(c);
        if (a.keys->len > 0 && n != a.length) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: %s: zipped lists differ in length ('%s' has %zu, '%s' has %zu)",
                        sw->name, where, (char *)a.keys->pdata[0], a.length, c->string, n);
            goto fail;
        }
        for (size_t k = 0; k < sw->param_keys->len; k++)
            if (strcmp(sw->param_keys->pdata[k], c->string) == 0) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "%s: %s: key '%s' appears on two axes", sw->name, where, c->string);
                goto fail;
            }
        a.length = n;
        g_ptr_array_add(a.keys, c->string);
        g_ptr_array_add(a.values, (gpointer)c);
        char *column = param_column(c->string);
        for (size_t k = 0; k < sw->param_columns->len; k++)
            if (strcmp(sw->param_columns->pdata[k], column) == 0) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "%s: %s: keys '%s' and '%s' set the same thing (%s)", sw->name, where,
                            (char *)sw->param_keys->pdata[k], c->string, column);
                g_free(column);
                goto fail;
            }
        g_ptr_array_add(sw->param_keys, c->string);
        g_ptr_array_add(sw->param_columns, column);
    }
    if (a.keys->len == 0) {
        axis_clear(&a);
        return true;
    }
    g_array_append_val(sw->axes, a);
    return true;
fail:
    axis_clear(&a);
    return false;
}

/* Read the base: inline object, or a scenario file relative to sw->dir. */
static bool load_base(sweep *sw, GError **error)
{
    cJSON *base = cJSON_GetObjectItemCaseSensitive(sw->doc, "base");
    cJSON *base_dir = cJSON_GetObjectItemCaseSensitive(sw->doc, "base_dir");
    if (cJSON_IsObject(base)) {
        sw->base = base;
        sw->base_dir = g_strdup(cJSON_IsString(base_dir) ? base_dir->valuestring : sw->dir);
        return true;
    }
    if (!cJSON_IsString(base)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: base: expected a scenario file name or a scenario object", sw->name);
        return false;
    }
    g_autofree char *path = g_path_is_absolute(base->valuestring)
                                ? g_strdup(base->valuestring)
                                : g_build_filename(sw->dir, base->valuestring, NULL);
    cJSON *scenario = ccs_json_load(path, error);
    if (!scenario) {
        g_prefix_error(error, "%s: base: ", sw->name);
        return false;
    }
    if (!cJSON_IsObject(scenario)) {
        cJSON_Delete(scenario);
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%s: not a JSON object", path);
        return false;
    }
    cJSON_ReplaceItemInObjectCaseSensitive(sw->doc, "base", scenario);
    sw->base = scenario;
    sw->base_dir = g_path_get_dirname(path);
    return true;
}

/* Decompose run index i into one position per axis (last axis fastest). */
static void run_positions(const sweep *sw, size_t i, size_t *pos)
{
    for (size_t a = sw->axes->len; a-- > 0;) {
        size_t len = g_array_index(sw->axes, axis, a).length;
        pos[a] = i % len;
        i /= len;
    }
}

/* Parameter value k of run i (borrowed). */
static const cJSON *run_param(const sweep *sw, size_t i, size_t k)
{
    size_t pos[sw->axes->len + 1];
    run_positions(sw, i, pos);
    size_t seen = 0;
    for (size_t a = 0; a < sw->axes->len; a++) {
        const axis *ax = &g_array_index(sw->axes, axis, a);
        if (k < seen + ax->keys->len)
            return cJSON_GetArrayItem(ax->values->pdata[k - seen], (int)pos[a]);
        seen += ax->keys->len;
    }
    g_assert_not_reached();
}

/* The scenario of run i as written (no path changes), and its options as an
 * object {"--gpu": "h100"}.  (transfer full) */
static cJSON *run_raw(const sweep *sw, size_t i, cJSON **args, GError **error)
{
    g_autoptr(cJSON) scenario = cJSON_Duplicate(sw->base, true);
    *args = cJSON_CreateObject();
    for (size_t k = 0; k < sw->param_keys->len; k++) {
        const char *key = sw->param_keys->pdata[k];
        const cJSON *v = run_param(sw, i, k);
        if (key_is_option(key))
            cJSON_AddItemToObject(*args, key, cJSON_Duplicate(v, true));
        else if (!sweep__set_path(scenario, key, v, error)) {
            g_prefix_error(error, "%s: ", sw->name);
            cJSON_Delete(*args);
            *args = NULL;
            return NULL;
        }
    }
    return g_steal_pointer(&scenario);
}

static char *run_hash(const cJSON *scenario, const cJSON *args)
{
    g_autoptr(cJSON) both = cJSON_CreateObject();
    cJSON_AddItemReferenceToObject(both, "args", (cJSON *)args);
    cJSON_AddItemReferenceToObject(both, "scenario", (cJSON *)scenario);
    g_autofree char *canon = sweep_canonical_json(both);
    g_autofree char *hex = g_compute_checksum_for_string(G_CHECKSUM_SHA256, canon, -1);
    return g_strndup(hex, SWEEP_NAME_LEN);
}

/* Append a value to a run name: [A-Za-z0-9.+-] kept, a path reduced to its
 * base name without extensions, objects and arrays left to the hash. */
static void append_value(GString *out, const cJSON *v, const char *text)
{
    if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
        g_string_append(out, "obj");
        return;
    }
    g_autofree char *base = strchr(text, '/') ? g_path_get_basename(text) : g_strdup(text);
    char *dot = strchr(base, '.');
    if (dot && dot != base && cJSON_IsString(v) && strchr(text, '/'))
        *dot = '\0';
    for (const char *p = base; *p; p++)
        if (g_ascii_isalnum(*p) || strchr(".+-", *p))
            g_string_append_c(out, *p);
}

/* COLUMN=VALUE_..._HASH (the scheduler by its name alone), at most
 * SWEEP_READABLE_MAX characters before the hash. */
static char *run_name(const sweep *sw, size_t i, const char *hash)
{
    GString *out = g_string_new(NULL);
    for (size_t k = 0; k < sw->param_keys->len; k++) {
        const char *column = sw->param_columns->pdata[k];
        if (out->len)
            g_string_append_c(out, '_');
        if (strcmp(column, "scheduler") != 0)
            g_string_append_printf(out, "%s=", column);
        const cJSON *v = run_param(sw, i, k);
        g_autofree char *text =
            cJSON_IsString(v) ? g_strdup(v->valuestring) : sweep_canonical_json(v);
        append_value(out, v, text);
    }
    if (out->len > SWEEP_READABLE_MAX)
        g_string_truncate(out, SWEEP_READABLE_MAX);
    if (out->len)
        g_string_append_c(out, '_');
    g_string_append(out, hash);
    return g_string_free(out, FALSE);
}

static bool expand(sweep *sw, GError **error)
{
    size_t total = 1;
    for (size_t a = 0; a < sw->axes->len; a++) {
        size_t len = g_array_index(sw->axes, axis, a).length;
        size_t cap = (size_t)ccs_limit_get(CCS_LIMIT_SWEEP_RUNS)->max;
        if (total > cap / len) {
            g_autofree char *where = g_strdup_printf("%s: runs of the grid", sw->name);
            return ccs_limit_check(CCS_LIMIT_SWEEP_RUNS, (double)total * (double)len, where,
                                   error);
        }
        total *= len;
    }
    for (size_t i = 0; i < total; i++) {
        cJSON *args = NULL;
        g_autoptr(cJSON) scenario = run_raw(sw, i, &args, error);
        if (scenario == NULL)
            return false;
        g_autofree char *hash = run_hash(scenario, args);
        cJSON_Delete(args);
        char *name = run_name(sw, i, hash);
        gpointer prev = g_hash_table_lookup(sw->name_index, name);
        if (prev != NULL) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: runs %zu and %zu have the same parameters (run %s)", sw->name,
                        GPOINTER_TO_SIZE(prev) - 1, i, name);
            g_free(name);
            return false;
        }
        g_ptr_array_add(sw->run_names, name);
        g_hash_table_insert(sw->name_index, name, GSIZE_TO_POINTER(i + 1));
    }
    return true;
}

static bool check_top(const sweep *sw, GError **error)
{
    static const char *const keys[] = {"base", "grid", "zip", "base_dir", "sweep_dir", "name",
                                       NULL};
    return ccs_json_check_keys(sw->doc, keys, sw->name, NULL, error);
}

static bool parse_axes(sweep *sw, GError **error)
{
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(sw->doc, "grid");
    const cJSON *zip = cJSON_GetObjectItemCaseSensitive(sw->doc, "zip");
    if (grid != NULL && !cJSON_IsObject(grid)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: grid: expected an object of key: [values]", sw->name);
        return false;
    }
    for (const cJSON *c = grid ? grid->child : NULL; c; c = c->next)
        if (!add_axis(sw, &c, 1, "grid", error))
            return false;
    if (zip != NULL && !cJSON_IsArray(zip)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: zip: expected a list of objects of key: [values]", sw->name);
        return false;
    }
    int n = 0;
    for (const cJSON *g = zip ? zip->child : NULL; g; g = g->next, n++) {
        g_autofree char *where = g_strdup_printf("zip[%d]", n);
        if (!cJSON_IsObject(g)) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: %s: expected an object of key: [values]", sw->name, where);
            return false;
        }
        g_autoptr(GPtrArray) items = g_ptr_array_new();
        for (const cJSON *c = g->child; c; c = c->next)
            g_ptr_array_add(items, (gpointer)c);
        if (!add_axis(sw, (const cJSON *const *)items->pdata, items->len, where, error))
            return false;
    }
    return true;
}

/* Parse buf into sw->doc; errors give the line (an empty file says so). */
static bool parse_doc(sweep *sw, const char *buf, size_t len, GError **error)
{
    size_t i = 0;
    while (i < len && g_ascii_isspace(buf[i]))
        i++;
    if (i == len) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                    "%s: the file is empty (expected a JSON object with base, grid or zip)",
                    sw->name);
        return false;
    }
    sw->doc = ccs_json_parse(buf, len, sw->name, error);
    return sw->doc != NULL;
}

sweep *sweep_parse(const char *buf, size_t len, const char *name, const char *dir,
                   GError **error)
{
    g_return_val_if_fail(buf != NULL && name != NULL && dir != NULL, NULL);
    g_autoptr(sweep) sw = g_new0(sweep, 1);
    sw->name = g_strdup(name);
    sw->dir = g_canonicalize_filename(dir, NULL);
    sw->axes = g_array_new(FALSE, TRUE, sizeof(axis));
    sw->param_keys = g_ptr_array_new();
    sw->param_columns = g_ptr_array_new_with_free_func(g_free);
    sw->run_names = g_ptr_array_new_with_free_func(g_free);
    sw->name_index = g_hash_table_new(g_str_hash, g_str_equal);
    if (!parse_doc(sw, buf, len, error))
        return NULL;
    if (!check_top(sw, error) || !load_base(sw, error))
        return NULL;
    const cJSON *sweep_dir = cJSON_GetObjectItemCaseSensitive(sw->doc, "sweep_dir");
    if (cJSON_IsString(sweep_dir)) {
        g_free(sw->dir);
        sw->dir = g_strdup(sweep_dir->valuestring);
    }
    if (!parse_axes(sw, error) || !expand(sw, error))
        return NULL;
    return g_steal_pointer(&sw);
}

sweep *sweep_load(const char *path, GError **error)
{
    g_autoptr(GBytes) bytes = ccs_input_read(path, true, error);
    if (!bytes)
        return NULL;
    size_t len = 0;
    const char *text = g_bytes_get_data(bytes, &len);
    g_autofree char *dir = g_path_get_dirname(path);
    return sweep_parse(text, len, path, dir, error);
}

/* --- Accessors ---------------------------------------------------------------- */

size_t sweep_run_count(const sweep *sw) { return sw->run_names->len; }

const char *sweep_run_name(const sweep *sw, size_t i)
{
    g_return_val_if_fail(i < sw->run_names->len, NULL);
    return sw->run_names->pdata[i];
}

long sweep_run_find(const sweep *sw, const char *name)
{
    return (long)GPOINTER_TO_SIZE(g_hash_table_lookup(sw->name_index, name)) - 1;
}

size_t sweep_param_count(const sweep *sw) { return sw->param_keys->len; }

const char *sweep_param_key(const sweep *sw, size_t k)
{
    g_return_val_if_fail(k < sw->param_keys->len, NULL);
    return sw->param_keys->pdata[k];
}

const char *sweep_param_column(const sweep *sw, size_t k)
{
    g_return_val_if_fail(k < sw->param_columns->len, NULL);
    return sw->param_columns->pdata[k];
}

char *sweep_run_param_text(const sweep *sw, size_t i, size_t k)
{
    g_return_val_if_fail(i < sw->run_names->len && k < sw->param_keys->len, NULL);
    const cJSON *v = run_param(sw, i, k);
    if (cJSON_IsString(v))
        return g_strdup(v->valuestring);
    return sweep_canonical_json(v);
}

char *sweep_run_scenario_text(const sweep *sw, size_t i)
{
    g_return_val_if_fail(i < sw->run_names->len, NULL);
    g_autoptr(cJSON) scenario = cJSON_Duplicate(sw->base, true);
    sweep__absolutize(scenario, sw->base_dir);
    for (size_t k = 0; k < sw->param_keys->len; k++) {
        const char *key = sw->param_keys->pdata[k];
        if (key_is_option(key))
            continue;
        /* Resolve the value's paths against the sweep file's folder. */
        g_autoptr(cJSON) one = cJSON_CreateObject();
        g_assert(sweep__set_path(one, key, run_param(sw, i, k), NULL));
        sweep__absolutize(one, sw->dir);
        const cJSON *v = one;
        g_auto(GStrv) parts = g_strsplit(key, ".", -1);
        for (size_t p = 0; parts[p]; p++)
            v = cJSON_GetObjectItemCaseSensitive(v, parts[p]);
        g_assert(sweep__set_path(scenario, key, v, NULL)); /* checked in expand() */
    }
    char *text = cJSON_Print(scenario);
    char *copy = g_strconcat(text, "\n", NULL);
    cJSON_free(text);
    return copy;
}

/* A shard count as given: a whole number >= 1 (text or JSON), else 1. */
static int shards_of(const cJSON *v)
{
    double n = cJSON_IsNumber(v) ? v->valuedouble
               : cJSON_IsString(v) ? g_ascii_strtod(v->valuestring, NULL)
                                   : 1;
    return n >= 1 && n <= G_MAXINT && floor(n) == n ? (int)n : 1;
}

int sweep_run_shards(const sweep *sw, size_t i)
{
    g_return_val_if_fail(i < sw->run_names->len, 1);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(sw->base, "sim"), "shards");
    const cJSON *opt = NULL; /* --shards, an option, wins over sim.shards */
    for (size_t k = 0; k < sw->param_keys->len; k++) {
        const char *key = sw->param_keys->pdata[k];
        if (strcmp(key, "sim.shards") == 0)
            v = run_param(sw, i, k);
        else if (strcmp(key, "--shards") == 0)
            opt = run_param(sw, i, k);
    }
    return shards_of(opt ? opt : v);
}

char **sweep_run_args(const sweep *sw, size_t i)
{
    g_return_val_if_fail(i < sw->run_names->len, NULL);
    GPtrArray *out = g_ptr_array_new();
    for (size_t k = 0; k < sw->param_keys->len; k++) {
        const char *key = sw->param_keys->pdata[k];
        if (!key_is_option(key))
            continue;
        g_autofree char *v = sweep_run_param_text(sw, i, k);
        g_ptr_array_add(out, g_strdup_printf("%s=%s", key, v));
    }
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

char *sweep_to_json(const sweep *sw)
{
    g_autoptr(cJSON) doc = cJSON_Duplicate(sw->doc, true);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "base_dir");
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "sweep_dir");
    cJSON_AddStringToObject(doc, "base_dir", sw->base_dir);
    cJSON_AddStringToObject(doc, "sweep_dir", sw->dir);
    char *text = cJSON_Print(doc);
    char *copy = g_strconcat(text, "\n", NULL);
    cJSON_free(text);
    return copy;
}
