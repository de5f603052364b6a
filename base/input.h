/* input.h - reading one whole input file, plain or gzip, bounded and
 * checked.  Not here: what the bytes mean (each parser).
 *
 * Every reader of trace, topology, scenario-side and sweep files goes
 * through ccs_input_read(), so all of them share one rule set:
 *  - gzip is recognised by its magic bytes (whatever the file is called);
 *    concatenated gzip members are one stream, as gunzip reads them;
 *  - bytes after the last gzip member that are not another member
 *    ("trailing garbage"), a truncated or corrupt stream, are errors;
 *  - the file, and what it inflates to, may not exceed
 *    CCS_LIMIT_INPUT_BYTES (base/limits.h): a small .gz that unpacks to
 *    gigabytes is refused as soon as it passes the limit, not after;
 *  - text files may not hold a NUL byte (the error gives its line).
 */
#ifndef CCSIM_BASE_INPUT_H
#define CCSIM_BASE_INPUT_H

#include <glib.h>
#include <stdbool.h>

/* The contents of path, inflated when gzip.  text: refuse NUL bytes.  The
 * data is followed by a NUL byte not counted in its size, so it can be
 * read as a C string.  (transfer full) NULL with CCS_ERROR_IO (cannot
 * read, corrupt gzip) or CCS_ERROR_INVALID (too large, trailing data, a
 * NUL byte), the message starting with path. */
GBytes *ccs_input_read(const char *path, bool text, GError **error);

/* The same rules for bytes already in memory (data is not consumed); name
 * is used in messages.  (transfer full) */
GBytes *ccs_input_decode(GBytes *data, const char *name, bool text, GError **error);
/* The same with another size limit (tests use a small one). */
GBytes *ccs_input_decode_max(GBytes *data, const char *name, bool text, size_t max_bytes,
                             GError **error);

#endif /* CCSIM_BASE_INPUT_H */
