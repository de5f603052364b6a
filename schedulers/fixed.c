/* fixed.c - decisions written in the scenario file (docs/usage.md).
 * Not here: how decisions take effect (sim/sched_ctx.c).
 *
 *   "scheduler": {"name": "fixed",
 *                 "jobs": {"j1": {"priority": 0, "shift_s": 0.0},
 *                          "j2": {"priority": 1}}}
 *
 * Each listed job (by trace id) gets its priority level whenever it runs,
 * and its time shift once: the first reschedule that sees the job running
 * delays its next iteration start by shift_s.  Unlisted jobs keep the
 * defaults (ECMP paths, level 0, no shift).  This makes any hand-computed
 * case runnable: the tests reproduce the Crux paper's worked examples with
 * it.  Paths stay ECMP.
 */
#include "sim/scheduler.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "base/limits.h"

typedef struct fixed_decision {
    int priority;   /* level, or -1 when not given */
    double shift_s; /* shift applied once, 0 when not given */
} fixed_decision;

typedef struct fixed_sched {
    GHashTable *decisions; /* job id (char*) -> fixed_decision* */
    GHashTable *shifted;   /* job uid already shifted (as pointer keys of uid + 1) */
} fixed_sched;

static void fixed_destroy(void *self)
{
    fixed_sched *s = self;
    if (!s)
        return;
    g_hash_table_destroy(s->decisions);
    g_hash_table_destroy(s->shifted);
    g_free(s);
}

static bool parse_job(fixed_sched *s, const cJSON *v, int levels, GError **error)
{
    const char *id = v->string;
    if (!cJSON_IsObject(v)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "scheduler.jobs.%s: expected an object {\"priority\": L, \"shift_s\": S}", id);
        return false;
    }
    fixed_decision *d = g_new0(fixed_decision, 1);
    d->priority = -1;
    g_hash_table_replace(s->decisions, g_strdup(id), d);
    for (const cJSON *f = v->child; f; f = f->next) {
        if (strcmp(f->string, "priority") == 0) {
            if (!cJSON_IsNumber(f) || f->valuedouble != floor(f->valuedouble) ||
                f->valuedouble < 0 || f->valuedouble >= levels) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "scheduler.jobs.%s.priority: expected an integer level in [0, %d)",
                            id, levels);
                return false;
            }
            d->priority = (int)f->valuedouble;
        } else if (strcmp(f->string, "shift_s") == 0) {
            g_autofree char *where = g_strdup_printf("scheduler.jobs.%s.shift_s", id);
            if (!cJSON_IsNumber(f)) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID, "%s: expected a number", where);
                return false;
            }
            if (!ccs_limit_check(CCS_LIMIT_SHIFT_S, f->valuedouble, where, error))
                return false;
            d->shift_s = f->valuedouble;
        } else {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "scheduler.jobs.%s.%s: unknown key (expected priority or shift_s)", id,
                        f->string);
            return false;
        }
    }
    return true;
}

static void *fixed_create(const sched_options *opts, GError **error)
{
    fixed_sched *s = g_new0(fixed_sched, 1);
    s->decisions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    s->shifted = g_hash_table_new(g_direct_hash, g_direct_equal);
    const cJSON *cfg = opts->config;
    if (cfg) {
        for (const cJSON *f = cfg->child; f; f = f->next) {
            if (strcmp(f->string, "jobs") != 0)
                continue; /* "name"; the engine refuses other keys (config_keys) */
            if (!cJSON_IsObject(f)) {
                g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                            "scheduler.jobs: expected an object keyed by job id");
                fixed_destroy(s);
                return NULL;
            }
            for (const cJSON *j = f->child; j; j = j->next)
                if (!parse_job(s, j, opts->priority_levels, error)) {
                    fixed_destroy(s);
                    return NULL;
                }
        }
    }
    return s;
}

static void fixed_reschedule(void *self, sched_ctx *ctx)
{
    fixed_sched *s = self;
    size_t n = sched_job_count(ctx);
    for (size_t j = 0; j < n; j++) {
        sched_job_info info;
        sched_job_get(ctx, j, &info);
        const fixed_decision *d = g_hash_table_lookup(s->decisions, info.id);
        if (!d)
            continue;
        if (d->priority >= 0)
            sched_set_priority(ctx, j, d->priority);
        gpointer key = GSIZE_TO_POINTER((gsize)info.uid + 1);
        if (d->shift_s > 0 && !g_hash_table_contains(s->shifted, key)) {
            sched_set_shift(ctx, j, d->shift_s);
            g_hash_table_add(s->shifted, key);
        }
    }
}

static const char *const fixed_keys[] = {"jobs", NULL};

const sched_ops sched_fixed_ops = {
    .name = "fixed",
    .summary = "decisions (priority, shift) written in the scenario file",
    .unlimited_levels = false,
    .create = fixed_create,
    .destroy = fixed_destroy,
    .reschedule = fixed_reschedule,
    .on_comm = NULL,
    .config_keys = fixed_keys,
};
