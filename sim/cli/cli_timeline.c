/* cli_timeline.c - the timeline options of `ccsim run` and `ccsim compare`
 * (--timeline, --timeline-jobs, --timeline-span, --flows; cli_sim.h).
 * Not here: the recorder (sim/timeline.c).
 */
#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "cli_sim.h"

/* "S:E" in trace seconds, either side may be empty (open). */
static bool parse_span(const char *text, double *a, double *b, GError **error)
{
    const char *colon = strchr(text, ':');
    char *end = NULL;
    *a = -INFINITY;
    *b = INFINITY;
    if (colon && colon != text) {
        *a = g_ascii_strtod(text, &end);
        if (end != colon)
            goto bad;
    }
    if (colon && colon[1]) {
        *b = g_ascii_strtod(colon + 1, &end);
        if (*end)
            goto bad;
    }
    if (colon && !isnan(*a) && !isnan(*b) && *a < *b)
        return true;
bad:
    g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                "--timeline-span: expected START:END in trace seconds with START < END, got "
                "\"%s\"",
                text);
    return false;
}

bool cli_timeline_options(const cli_sim_opts *o, timeline_options *out, bool *wanted,
                          GError **error)
{
    memset(out, 0, sizeof *out);
    out->start_s = -INFINITY;
    out->end_s = INFINITY;
    *wanted = o->timeline || o->flows;
    if (!*wanted) {
        if (o->timeline_jobs || o->timeline_span) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "--timeline-jobs and --timeline-span need --timeline or --flows");
            return false;
        }
        return true;
    }
    if (o->timeline && (strchr(o->timeline, '/') || o->timeline[0] == '.' || !o->timeline[0])) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "--timeline: a file name inside the output folder, got \"%s\"", o->timeline);
        return false;
    }
    if (o->timeline_span && !parse_span(o->timeline_span, &out->start_s, &out->end_s, error))
        return false;
    out->file = o->timeline;
    out->flows = o->flows;
    if (o->timeline_jobs) {
        out->jobs = g_strsplit(o->timeline_jobs, ",", -1);
        for (char **p = out->jobs; *p; p++)
            g_strstrip(*p);
    }
    return true;
}
