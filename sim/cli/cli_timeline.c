/* cli_timeline.c - the timeline options of `ccsim run` and `ccsim compare`
 * (--timeline, --timeline-jobs, --timeline-span, --flows; cli_sim.h).
 * Not here: the recorder (sim/timeline.c).
 */
#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/limits.h"
#include "cli_sim.h"

/* One side of "S:E": empty is open (-inf or +inf), else a strict decimal
 * number inside the time limit. */
static bool span_side(const char *text, size_t n, double open, double *out, GError **error)
{
    g_autofree char *v = g_strndup(text, n);
    if (!*v) {
        *out = open;
        return true;
    }
    if (!ccs_parse_double(v, out)) {
        g_autofree char *shown = ccs_escape(v, -1, 80);
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "--timeline-span: expected a decimal number, got \"%s\"", shown);
        return false;
    }
    return ccs_limit_check(CCS_LIMIT_TIME_S, *out, "--timeline-span", error);
}

/* "S:E" in trace seconds, either side may be empty (open). */
static bool parse_span(const char *text, double *a, double *b, GError **error)
{
    const char *colon = strchr(text, ':');
    if (colon && span_side(text, (size_t)(colon - text), -INFINITY, a, error) &&
        span_side(colon + 1, strlen(colon + 1), INFINITY, b, error) && *a < *b)
        return true;
    if (error && *error)
        return false;
    g_autofree char *shown = ccs_escape(text, -1, 80);
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "--timeline-span: expected START:END in trace seconds with START < END, got "
                "\"%s\"",
                shown);
    return false;
}

static bool bad(GError **error, const char *where, const char *key, const char *what)
{
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: timeline.%s: %s", where, key, what);
    return false;
}

/* The scenario's "timeline" object: {"file": NAME, "jobs": [ID, ...],
 * "span": [START, END] (null: open), "flows": BOOL}. */
static bool from_scenario(const config *cfg, timeline_options *out, GError **error)
{
    const char *where = cfg->path ? cfg->path : "scenario";
    for (const cJSON *v = cfg->timeline_obj->child; v; v = v->next) {
        const char *k = v->string;
        if (strcmp(k, "file") == 0) {
            if (!cJSON_IsString(v))
                return bad(error, where, k, "expected a file name");
            g_free(out->file);
            out->file = g_strdup(v->valuestring);
        } else if (strcmp(k, "flows") == 0) {
            if (!cJSON_IsBool(v))
                return bad(error, where, k, "expected true or false");
            out->flows = cJSON_IsTrue(v);
        } else if (strcmp(k, "jobs") == 0) {
            if (!cJSON_IsArray(v))
                return bad(error, where, k, "expected an array of job ids");
            g_autoptr(GStrvBuilder) b = g_strv_builder_new();
            const cJSON *id;
            cJSON_ArrayForEach(id, v)
            {
                if (!cJSON_IsString(id))
                    return bad(error, where, k, "expected an array of job ids");
                g_strv_builder_add(b, id->valuestring);
            }
            g_strfreev(out->jobs);
            out->jobs = g_strv_builder_end(b);
        } else if (strcmp(k, "span") == 0) {
            const cJSON *a = cJSON_GetArrayItem(v, 0), *e = cJSON_GetArrayItem(v, 1);
            bool ok = cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2 &&
                      (cJSON_IsNumber(a) || cJSON_IsNull(a)) && (cJSON_IsNumber(e) || cJSON_IsNull(e));
            out->start_s = ok && cJSON_IsNumber(a) ? a->valuedouble : -INFINITY;
            out->end_s = ok && cJSON_IsNumber(e) ? e->valuedouble : INFINITY;
            if (!ok || !(out->start_s < out->end_s))
                return bad(error, where, k, "expected [START, END] in trace seconds, START < END");
            g_autofree char *at = g_strdup_printf("%s: timeline.span", where);
            if ((isfinite(out->start_s) &&
                 !ccs_limit_check(CCS_LIMIT_TIME_S, out->start_s, at, error)) ||
                (isfinite(out->end_s) && !ccs_limit_check(CCS_LIMIT_TIME_S, out->end_s, at, error)))
                return false;
        } else {
            return bad(error, where, k, "unknown key (expected file, jobs, span or flows)");
        }
    }
    return true;
}

bool cli_timeline_options(const cli_sim_opts *o, const config *cfg, timeline_options *out,
                          bool *wanted, bool *usage, GError **error)
{
    memset(out, 0, sizeof *out);
    out->start_s = -INFINITY;
    out->end_s = INFINITY;
    *usage = false;
    if (cfg->timeline_obj && !from_scenario(cfg, out, error))
        return false;
    *usage = true;
    if (o->timeline) {
        g_free(out->file);
        out->file = g_strdup(o->timeline);
    }
    out->flows = out->flows || o->flows;
    *wanted = out->file || out->flows;
    if (!*wanted) {
        if (o->timeline_jobs || o->timeline_span) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "--timeline-jobs and --timeline-span need --timeline or --flows");
            return false;
        }
        return true;
    }
    if (out->file && (strchr(out->file, '/') || out->file[0] == '.' || !out->file[0])) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "--timeline: a file name inside the output folder, got \"%s\"", out->file);
        *usage = o->timeline != NULL;
        return false;
    }
    if (o->timeline_span && !parse_span(o->timeline_span, &out->start_s, &out->end_s, error))
        return false;
    if (o->timeline_jobs) {
        g_strfreev(out->jobs);
        out->jobs = g_strsplit(o->timeline_jobs, ",", -1);
        for (char **p = out->jobs; *p; p++)
            g_strstrip(*p);
    }
    return true;
}

void cli_timeline_options_clear(timeline_options *out)
{
    g_clear_pointer(&out->file, g_free);
    g_clear_pointer(&out->jobs, g_strfreev);
}

bool cli_timeline_jobs_check(const cli_sim_opts *o, const config *cfg,
                             const timeline_options *tlo, const trace *tr, bool *usage,
                             GError **error)
{
    *usage = o->timeline_jobs != NULL;
    if (!tlo->jobs)
        return true;
    g_autoptr(GHashTable) ids = g_hash_table_new(g_str_hash, g_str_equal);
    for (size_t i = 0; i < trace_job_count(tr); i++)
        g_hash_table_add(ids, trace_job_get(tr, i)->id);
    for (char **id = tlo->jobs; *id; id++) {
        if (g_hash_table_contains(ids, *id))
            continue;
        g_autofree char *shown = ccs_escape(*id, -1, 80);
        if (*usage)
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "--timeline-jobs: the trace has no job \"%s\" (%s)", shown,
                        trace_source_name(tr));
        else
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: timeline.jobs: the trace has no job \"%s\"",
                        cfg->path ? cfg->path : "scenario", shown);
        return false;
    }
    return true;
}
