/* json.c - the strict JSON reader and the key check (json.h).
 * Not here: reading files (input.c), what the values mean (the readers).
 *
 * cJSON parses; this file adds what cJSON lets through: data after the
 * value, duplicate keys (cJSON keeps both, its lookups see the first),
 * NUL characters (cJSON ends the C string there) and numbers past a
 * double (cJSON stores inf).
 */
#include "json.h"

#include <math.h>
#include <string.h>

#include "ccs.h"
#include "input.h"

/* 1-based line of byte offset off in buf. */
static size_t line_at(const char *buf, size_t len, size_t off)
{
    size_t line = 1;
    for (size_t i = 0; i < off && i < len; i++)
        line += buf[i] == '\n';
    return line;
}

static void set_at(GError **error, int code, const char *buf, size_t len, size_t off,
                   const char *name, const char *what)
{
    size_t from = MIN(off, len);
    g_autofree char *near = ccs_escape(buf + from, (gssize)(len - from), 20);
    g_set_error(error, CCS_ERROR, code, "%s:%zu: %s near \"%s\"", name, line_at(buf, len, off),
                what, near);
}

/* Offset of the first NUL in a string or key: a raw byte anywhere, or an
 * escape \u0000 inside a string.  False when there is none. */
static bool find_nul(const char *buf, size_t len, size_t *at)
{
    const char *raw = len ? memchr(buf, '\0', len) : NULL;
    size_t limit = raw ? (size_t)(raw - buf) : len;
    bool in_string = false;
    for (size_t i = 0; i < limit; i++) {
        if (!in_string) {
            in_string = buf[i] == '"';
        } else if (buf[i] == '"') {
            in_string = false;
        } else if (buf[i] == '\\' && i + 1 < limit) {
            if (buf[i + 1] == 'u' && i + 5 < limit && memcmp(buf + i + 2, "0000", 4) == 0) {
                *at = i;
                return true;
            }
            i++; /* the escaped character */
        }
    }
    *at = limit;
    return raw != NULL;
}

static bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* path + ".key" (or "key" at the top), the key escaped. */
static char *member_path(const char *path, const char *key)
{
    g_autofree char *shown = ccs_escape(key, -1, 80);
    return path && *path ? g_strdup_printf("%s.%s", path, shown) : g_strdup(shown);
}

/* A key of obj that an earlier member already has, or NULL: pairwise for
 * small objects (most), through a hash set past 8 members. */
static const char *duplicate_key(const cJSON *obj)
{
    size_t n = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        n++;
    if (n <= 8) {
        for (const cJSON *c = obj->child; c; c = c->next)
            for (const cJSON *d = obj->child; d != c; d = d->next)
                if (strcmp(c->string, d->string) == 0)
                    return c->string;
        return NULL;
    }
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (const cJSON *c = obj->child; c; c = c->next)
        if (!g_hash_table_add(seen, c->string))
            return c->string;
    return NULL;
}

static bool check_duplicates(const cJSON *obj, const char *name, const char *path,
                             GError **error)
{
    const char *dup = duplicate_key(obj);
    if (dup) {
        g_autofree char *shown = ccs_escape(dup, -1, 80);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: %s%skey \"%s\" appears twice",
                    name, path && *path ? path : "", path && *path ? ": " : "", shown);
        return false;
    }
    return true;
}

/* No duplicate key, no non-finite number, anywhere under v. */
static bool check_tree(const cJSON *v, const char *name, const char *path, GError **error)
{
    if (cJSON_IsNumber(v) && !isfinite(v->valuedouble)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s%s%s: a number too large for a double", name, *path ? ": " : "", path);
        return false;
    }
    if (cJSON_IsObject(v)) {
        if (!check_duplicates(v, name, path, error))
            return false;
        for (const cJSON *c = v->child; c; c = c->next) {
            g_autofree char *p = member_path(path, c->string);
            if (!check_tree(c, name, p, error))
                return false;
        }
    } else if (cJSON_IsArray(v)) {
        size_t i = 0;
        for (const cJSON *c = v->child; c; c = c->next, i++) {
            g_autofree char *p = g_strdup_printf("%s[%zu]", path, i);
            if (!check_tree(c, name, p, error))
                return false;
        }
    }
    return true;
}

cJSON *ccs_json_parse(const char *buf, size_t len, const char *name, GError **error)
{
    g_return_val_if_fail(buf != NULL || len == 0, NULL);
    if (!name)
        name = "(json)";
    if (!buf)
        buf = "";
    size_t nul = 0;
    if (find_nul(buf, len, &nul)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE,
                    "%s:%zu: a NUL character (byte %zu) in a JSON string: not allowed", name,
                    line_at(buf, len, nul), nul + 1);
        return NULL;
    }
    const char *end = NULL;
    g_autoptr(cJSON) root = cJSON_ParseWithLengthOpts(buf, len, &end, false);
    if (!root) {
        size_t off = end ? (size_t)(end - buf) : 0;
        set_at(error, CCS_ERROR_PARSE, buf, len, off, name, "not valid JSON");
        return NULL;
    }
    size_t off = (size_t)(end - buf);
    while (off < len && is_json_space(buf[off]))
        off++;
    if (off < len) {
        set_at(error, CCS_ERROR_PARSE, buf, len, off, name,
               "data after the JSON value (one value per file)");
        return NULL;
    }
    if (!check_tree(root, name, "", error))
        return NULL;
    return g_steal_pointer(&root);
}

cJSON *ccs_json_load(const char *path, GError **error)
{
    g_autoptr(GBytes) bytes = ccs_input_read(path, true, error);
    if (!bytes)
        return NULL;
    size_t len = 0;
    const char *text = g_bytes_get_data(bytes, &len);
    return ccs_json_parse(text, len, path, error);
}

/* "a, b or c" */
static char *keys_text(const char *const *keys)
{
    GString *s = g_string_new(NULL);
    size_t n = 0;
    while (keys[n])
        n++;
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            g_string_append(s, i + 1 == n ? " or " : ", ");
        g_string_append(s, keys[i]);
    }
    return g_string_free(s, FALSE);
}

bool ccs_json_check_keys(const cJSON *obj, const char *const *keys, const char *file,
                         const char *path, GError **error)
{
    g_return_val_if_fail(keys != NULL, false);
    g_autofree char *prefix = file ? g_strdup_printf("%s: ", file) : g_strdup("");
    if (!cJSON_IsObject(obj) && !(path && *path)) { /* the document itself */
        g_set_error(error, CCS_ERROR, CCS_ERROR_PARSE, "%sexpected a JSON object, got %s",
                    prefix, ccs_json_type_name(obj));
        return false;
    }
    if (!cJSON_IsObject(obj)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s%s: expected an object, got %s",
                    prefix, path, ccs_json_type_name(obj));
        return false;
    }
    for (const cJSON *c = obj->child; c; c = c->next) {
        bool known = false;
        for (const char *const *k = keys; *k && !known; k++)
            known = strcmp(*k, c->string) == 0;
        if (known)
            continue;
        g_autofree char *where = member_path(path, c->string);
        g_autofree char *expected = keys_text(keys);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s%s: unknown key (expected %s)",
                    prefix, where, *expected ? expected : "no keys");
        return false;
    }
    return true;
}

const char *ccs_json_type_name(const cJSON *v)
{
    if (!v)
        return "nothing";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    return "an object";
}

bool ccs_json_number(const cJSON *obj, const char *key, ccs_limit_id id, const char *file,
                     const char *path, double *out, GError **error)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return true;
    g_autofree char *where0 = member_path(path, key);
    g_autofree char *where = file ? g_strdup_printf("%s: %s", file, where0) : g_strdup(where0);
    if (!cJSON_IsNumber(v)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected a number, got %s", where,
                    ccs_json_type_name(v));
        return false;
    }
    if (!ccs_limit_check(id, v->valuedouble, where, error))
        return false;
    *out = v->valuedouble;
    return true;
}
