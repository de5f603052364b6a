/* json.h - the one strict reader of every JSON input (scenarios, sweep
 * files, JSON traces, topology objects, operator graphs, the catalog), and
 * the check of an object's keys against those its reader declares.
 * Not here: what the values mean (each reader), reading the file (input.h).
 *
 * ccs_json_parse() accepts exactly one JSON value, with only whitespace
 * around it, and refuses, naming the file:
 *  - invalid syntax, and any data after the value ("NAME:LINE: ..."):
 *    `{...} {"x": 1}` is two documents, not one;
 *  - a key that appears twice in one object ("NAME: PATH: key \"K\"
 *    appears twice"): which one was meant cannot be told;
 *  - a NUL character in a key or a string, raw or written \u0000: C
 *    strings would silently end there ("NAME:LINE: ...");
 *  - a number too large for a double (1e999), which would read as inf.
 *
 * Unknown keys.  Every reader of an object declares the keys it reads, as
 * a NULL-terminated list, and checks the object against it before reading
 * it; a key not in the list is refused with the list in the message:
 *
 *     static const char *const keys[] = {"seed", "days", "scale", NULL};
 *     if (!ccs_json_check_keys(obj, keys, file, "trace.synthetic", error))
 *         return false;
 *
 * A module adding a key to an object adds it to that object's list.
 * Objects keyed by data (job ids, grid keys) are not checked; their
 * values are.
 */
#ifndef CCSIM_BASE_JSON_H
#define CCSIM_BASE_JSON_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

#include "limits.h"

/* Parse buf[0..len) strictly (above).  name is used in messages.
 * (transfer full) NULL with CCS_ERROR_PARSE or CCS_ERROR_INVALID. */
cJSON *ccs_json_parse(const char *buf, size_t len, const char *name, GError **error);

/* The file at path (plain or gzip, through ccs_input_read) parsed
 * strictly.  (transfer full) NULL with error naming path. */
cJSON *ccs_json_load(const char *path, GError **error);

/* True when every key of obj is in keys (NULL-terminated).  Otherwise
 * CCS_ERROR_INVALID "FILE: PATH.KEY: unknown key (expected a, b or c)"
 * (path NULL or "" for the top level; the key escaped; file NULL when the
 * caller prefixes it).  Also false when obj is not an object: "FILE:
 * PATH: expected an object, got ..." (CCS_ERROR_PARSE "FILE: expected a
 * JSON object, got ..." without a path: the document itself). */
bool ccs_json_check_keys(const cJSON *obj, const char *const *keys, const char *file,
                         const char *path, GError **error);

/* "a number", "a string", "an object", ... for messages.  (static) */
const char *ccs_json_type_name(const cJSON *v);

/* obj.key as a number inside limit id (base/limits.h): absent leaves *out
 * unchanged and returns true; a non-number is "FILE: PATH.KEY: expected a
 * number, got a string"; out of range the limit's own message (file NULL:
 * "PATH.KEY: ..."). */
bool ccs_json_number(const cJSON *obj, const char *key, ccs_limit_id id, const char *file,
                     const char *path, double *out, GError **error);

#endif /* CCSIM_BASE_JSON_H */
