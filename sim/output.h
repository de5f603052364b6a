/* output.h - result files: CSV (optionally gzip) and JSON, written atomically
 * (docs/usage.md).  Not here: their columns (replay_output.c).
 *
 * Every file is first written as a hidden temp file in the folder
 * (".NAME.tmp"); rows are flushed as they are completed, so a crash leaves
 * complete rows behind.  output_dir_commit() renames every temp file to its
 * name; output_dir_abort() removes them, and the folder too when
 * output_dir_open() created it, so a failed run leaves nothing behind.
 *
 * Usage:
 *   output_dir *d = output_dir_open("results/run1", &err);
 *   output_csv *c = output_csv_open(d, "jobs.csv", false, columns, &err);
 *   output_csv_str(c, "j1"); output_csv_int(c, 8); output_csv_double(c, 0.5);
 *   if (!output_csv_end_row(c, &err)) ...
 *   if (!output_dir_commit(d, &err)) ...       (or output_dir_abort(d))
 * The output_csv objects belong to their folder: commit and abort close
 * and free them.  Not thread-safe; one folder per run.
 */
#ifndef CCSIM_SIM_OUTPUT_H
#define CCSIM_SIM_OUTPUT_H

#include "base/ccs.h"
#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct output_dir output_dir;
typedef struct output_csv output_csv;

/* Open (creating it and its parents if needed) the folder path for
 * writing.  (transfer full) NULL with CCS_ERROR_IO on failure. */
output_dir *output_dir_open(const char *path, GError **error);

/* Open a folder for one run's results only: refused (CCS_ERROR_INVALID)
 * when path is a non-empty folder (but for the file except, nullable)
 * unless force.  An empty folder is written into; a new one or one
 * replaced by force is written as a staging folder that
 * output_dir_commit() moves or swaps in whole (output_folder.h), so
 * subfolders made under output_dir_path() go with it. */
output_dir *output_dir_open_new(const char *path, bool force, const char *except,
                                GError **error);

/* The folder's path (for output_dir_open_new, the staging folder's).
 * (transfer none) */
const char *output_dir_path(const output_dir *d);

/* Start a CSV file name in d (".gz" is appended when gzip) with a header
 * row of columns (NULL-terminated, snake_case with units).  (transfer none:
 * owned by d) NULL with CCS_ERROR_IO on failure. */
output_csv *output_csv_open(output_dir *d, const char *name, bool gzip,
                            const char *const *columns, GError **error);

/* Significant digits of a CSV float: what the model carries (its inputs
 * have 3 to 5), with room for sums; more would print float noise. */
#define OUTPUT_CSV_DIGITS 10

/* Append one cell to the current row, in column order.  Strings are quoted
 * as RFC 4180 requires, their control bytes (0x01-0x1f, 0x7f) and
 * backslashes written \xNN (docs/usage.md "Output files"); a whole-number double below 2^53 prints in full
 * ("1340697832"), any other with OUTPUT_CSV_DIGITS significant digits
 * ("%.10g": 0.3333333333, 1.5e-07); NaN and infinities print as empty
 * cells. */
void output_csv_str(output_csv *c, const char *s);
void output_csv_int(output_csv *c, int64_t v);
void output_csv_double(output_csv *c, double v);
/* The text output_csv_double writes for v into buf ("" for NaN and
 * infinities), for callers that hold a row's cells before writing them. */
void output_format_double(double v, char buf[G_ASCII_DTOSTR_BUF_SIZE]);

/* Finish the row: checks it has one cell per column (CCS_ERROR_INTERNAL
 * otherwise), writes it and flushes.  CCS_ERROR_IO on a write error. */
bool output_csv_end_row(output_csv *c, GError **error);

/* Write json (pretty-printed) as name in d, through a temp file too. */
bool output_json_write(output_dir *d, const char *name, const cJSON *json, GError **error);

/* Write len bytes of text as name in d, through a temp file too. */
bool output_text_write(output_dir *d, const char *name, const char *text, size_t len,
                       GError **error);

/* Close every file, rename the temp files to their names, free d.
 * On failure the temp files are removed as by output_dir_abort(). */
bool output_dir_commit(output_dir *d, GError **error);

/* Close and remove every temp file (and the folder if output_dir_open()
 * created it), free d.  NULL does nothing. */
void output_dir_abort(output_dir *d);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(output_dir, output_dir_abort)

#endif /* CCSIM_SIM_OUTPUT_H */
