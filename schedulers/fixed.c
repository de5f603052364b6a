/* fixed.c - decisions written in the scenario file (docs/usage.md).
 * Not here: how decisions take effect (sim/sched_ctx.c).
 *
 *   "scheduler": {"name": "fixed",
 *                 "jobs": {"j1": {"priority": 0, "shift_s": 0.0},
 *                          "j2": {"priority": 1, "classes": {"pp": 0, "dp": 2}}}}
 *
 * Each listed job (by trace id) gets its priority level whenever it runs,
 * the levels of its traffic classes ("classes": tp, pp, dp, param, moe;
 * sched_set_class_priority), and its time shift once: the first reschedule that sees the job running
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
    int classes[SCHED_CLASS_COUNT]; /* per traffic class: level, or -1 when not given */
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

static const char *const class_names[SCHED_CLASS_COUNT] = {"tp", "pp", "dp", "param", "moe"};

/* A level in [0, levels) at path, or an error. */
static bool parse_level(const cJSON *f, int levels, const char *path, int *out, GError **error)
{
    if (!cJSON_IsNumber(f) || f->valuedouble != floor(f->valuedouble) || f->valuedouble < 0 ||
        f->valuedouble >= levels) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "%s: expected an integer level in [0, %d)", path, levels);
        return false;
    }
    *out = (int)f->valuedouble;
    return true;
}

/* "classes": {"tp": L, ...} of job id into d. */
static bool parse_classes(fixed_decision *d, const cJSON *v, const char *id, int levels,
                          GError **error)
{
    if (!cJSON_IsObject(v)) {
        g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                    "scheduler.jobs.%s.classes: expected an object such as {\"pp\": 0}", id);
        return false;
    }
    for (const cJSON *f = v->child; f; f = f->next) {
        int c = 0;
        while (c < SCHED_CLASS_COUNT && strcmp(f->string, class_names[c]) != 0)
            c++;
        g_autofree char *path = g_strdup_printf("scheduler.jobs.%s.classes.%s", id, f->string);
        if (c == SCHED_CLASS_COUNT) {
            g_set_error(error, CCS_ERROR, CCS_ERROR_INVALID,
                        "%s: unknown traffic class (expected tp, pp, dp, param or moe)", path);
            return false;
        }
        if (!parse_level(f, levels, path, &d->classes[c], error))
            return false;
    }
    return true;
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
    for (int c = 0; c < SCHED_CLASS_COUNT; c++)
        d->classes[c] = -1;
    g_hash_table_replace(s->decisions, g_strdup(id), d);
    for (const cJSON *f = v->child; f; f = f->next) {
        if (strcmp(f->string, "priority") == 0) {
            g_autofree char *path = g_strdup_printf("scheduler.jobs.%s.priority", id);
            if (!parse_level(f, levels, path, &d->priority, error))
                return false;
        } else if (strcmp(f->string, "classes") == 0) {
            if (!parse_classes(d, f, id, levels, error))
                return false;
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
                        "scheduler.jobs.%s.%s: unknown key (expected priority, classes or shift_s)", id,
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
        for (int c = 0; c < SCHED_CLASS_COUNT; c++)
            if (d->classes[c] >= 0)
                sched_set_class_priority(ctx, j, (sched_class)c, d->classes[c]);
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
    .summary = "decisions (priority, class levels, shift) written in the scenario file",
    .unlimited_levels = false,
    .class_levels = true,
    .create = fixed_create,
    .destroy = fixed_destroy,
    .reschedule = fixed_reschedule,
    .on_comm = NULL,
    .config_keys = fixed_keys,
};
