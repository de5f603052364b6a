/* cli_out.c - the default output folder of `ccsim run` and `ccsim compare`
 * (cli_sim.h).  Not here: refusing and replacing folders (sim/output_folder.c).
 *
 * results/SCENARIO_TOPOLOGY_SCHEDULERS_HASH: readable parts, and the first
 * six hex digits of the SHA-256 of the whole configuration, so two runs
 * that differ anywhere (seed, window, an option) never share a folder.
 */
#include <string.h>

#include "cli_sim.h"

#define LABEL_MAX 40 /* characters of one readable part */

/* Keep [A-Za-z0-9._=+-], write ':' and ',' as '-', drop the rest. */
static void append_clean(GString *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        char ch = s[i];
        if (g_ascii_isalnum(ch) || strchr("._=+-", ch))
            g_string_append_c(out, ch);
        else if (ch == ':' || ch == ',')
            g_string_append_c(out, '-');
    }
}

/* A file name in a spec value: its base name without extensions. */
static void append_value(GString *out, const char *v, size_t n)
{
    g_autofree char *val = g_strndup(v, n);
    if (!strchr(val, '/') && !strchr(val, '.')) {
        append_clean(out, val, n);
        return;
    }
    g_autofree char *base = g_path_get_basename(val);
    char *dot = strchr(base, '.');
    if (dot && dot != base)
        *dot = '\0';
    append_clean(out, base, strlen(base));
}

/* fat-tree:k=8,attach=rail -> fat-tree-k=8-attach=rail;
 * lingjun:path=dir/topo.csv.gz -> lingjun-path=topo. */
static char *topology_label(const char *spec)
{
    if (!spec)
        return g_strdup("custom");
    GString *out = g_string_new(NULL);
    for (const char *p = spec; *p;) {
        size_t n = strcspn(p, ":,");
        const char *eq = memchr(p, '=', n);
        if (eq) {
            append_clean(out, p, (size_t)(eq - p) + 1);
            append_value(out, eq + 1, n - (size_t)(eq - p) - 1);
        } else {
            append_clean(out, p, n);
        }
        p += n;
        if (*p) {
            g_string_append_c(out, '-');
            p++;
        }
    }
    if (out->len > LABEL_MAX)
        g_string_truncate(out, LABEL_MAX);
    return g_string_free(out, FALSE);
}

static char *scheds_label(const GPtrArray *scheds, bool all)
{
    if (all)
        return g_strdup("all");
    GString *out = g_string_new(NULL);
    for (guint i = 0; i < scheds->len; i++) {
        if (i)
            g_string_append_c(out, '+');
        const char *s = g_ptr_array_index(scheds, i);
        append_clean(out, s, strlen(s));
    }
    if (out->len > LABEL_MAX) {
        g_string_free(out, TRUE);
        return g_strdup_printf("%u-schedulers", scheds->len);
    }
    return g_string_free(out, FALSE);
}

/* The configuration as run.json has it, with the scheduler set in place of
 * the current scheduler. */
static char *config_hash(const config *cfg, const GPtrArray *scheds)
{
    cJSON *j = config_to_json(cfg);
    if (scheds->len != 1 || strcmp(g_ptr_array_index(scheds, 0), cfg->scheduler) != 0) {
        cJSON *names = cJSON_CreateArray();
        for (guint i = 0; i < scheds->len; i++)
            cJSON_AddItemToArray(names, cJSON_CreateString(g_ptr_array_index(scheds, i)));
        cJSON_ReplaceItemInObjectCaseSensitive(j, "scheduler", names);
        if (cfg->scheduler_file_obj)
            cJSON_AddItemToObject(j, "scheduler_file",
                                  cJSON_Duplicate(cfg->scheduler_file_obj, true));
    }
    g_autofree char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);
    sum[6] = '\0';
    return sum;
}

char *cli_default_out(const config *cfg, const char *topo_spec, const GPtrArray *scheds,
                      bool all)
{
    g_autofree char *topo = topology_label(topo_spec);
    g_autofree char *who = scheds_label(scheds, all);
    g_autofree char *hash = config_hash(cfg, scheds);
    GString *scen = g_string_new(NULL);
    append_clean(scen, cfg->name, LABEL_MAX);
    g_autofree char *scenario = g_string_free(scen, FALSE);
    g_autofree char *name = g_strdup_printf("%s_%s_%s_%s", *scenario ? scenario : "scenario",
                                            topo, who, hash);
    return g_build_filename("results", name, NULL);
}
