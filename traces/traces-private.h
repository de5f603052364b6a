/* traces-private.h - what the files of traces/ share: file reading, CSV,
 * timestamps, raw Lingjun tables.  Nothing else includes it.
 *
 * What the files of traces/ share and nothing else includes: file reading
 * (plain or gzip), the RFC 4180 CSV reader, Lingjun timestamps, and the raw
 * Lingjun tables that the loader, the generator and `ccsim trace stats` all
 * work on.
 */
#ifndef CCSIM_TRACES_TRACES_PRIVATE_H
#define CCSIM_TRACES_TRACES_PRIVATE_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* ---- bytes ---------------------------------------------------------- */

/* Whole files (plain or gzip, bounded, no NUL bytes) are read with
 * ccs_input_read() of base/input.h. */
/* Find DIR/BASE or DIR/BASE.gz (transfer full path), NULL + CCS_ERROR_IO. */
char *trace__find_file(const char *dir, const char *base, GError **error);

/* GPU-count bucket 0..8 of a job (docs/design.md §2.4), shared by the
 * generator and the statistics (summary.c). */
int trace__gpu_bucket(int g);
/* A bundled file from the library's GResource (path under /ccsim/), transfer full. */
GBytes *trace__resource_bytes(const char *path, GError **error);

/* ---- CSV (RFC 4180) ------------------------------------------------- */

typedef struct trace__csv {
    const char *buf;   /* the text (not owned) */
    size_t len, pos;   /* size and read position */
    size_t line;       /* current line (1-based) */
    size_t rec_line;   /* line the last record started on */
    const char *name;  /* file name for messages (not owned) */
    GPtrArray *fields; /* the last record's fields (owned strings) */
} trace__csv;

void trace__csv_init(trace__csv *r, const char *buf, size_t len, const char *name);
/* Next record into r->fields: 1 = a record, 0 = end of input, -1 = syntax
 * error ("NAME:LINE: ..." CCS_ERROR_PARSE).  Blank lines are skipped.  After
 * an error the reader resumes at the next line (for --lenient). */
int trace__csv_next(trace__csv *r, GError **error);
void trace__csv_clear(trace__csv *r);
/* Append one field to out, quoted when it holds , " CR or LF. */
void trace__csv_append_field(GString *out, const char *field);

/* ---- Lingjun timestamps --------------------------------------------- */

/* Hours east of UTC that Lingjun times are read in (assumed UTC+8). */
#define TRACE__TZ_OFFSET_S (8 * 3600)
/* "YYYY/M/D HH:MM" (month/day unpadded or padded, optional ":SS") -> unix
 * seconds, read as UTC+8.  false on anything else. */
bool trace__time_parse(const char *s, int64_t *unix_s);
/* unix seconds -> "YYYY/M/D HH:MM" in UTC+8 (seconds dropped), into out[32]. */
void trace__time_format(int64_t unix_s, char out[32]);
/* Days since 1970-01-01 of a civil date, and back. */
int64_t trace__days_from_civil(int64_t y, int m, int d);
void trace__civil_from_days(int64_t days, int64_t *y, int *m, int *d);

/* ---- raw Lingjun tables --------------------------------------------- */

enum {
    TRACE__J_ID, TRACE__J_UID, TRACE__J_JOB_NAME, TRACE__J_KIND, TRACE__J_NAMESPACE,
    TRACE__J_MODEL, TRACE__J_STATUS, TRACE__J_REASON, TRACE__J_REASON_CODE,
    TRACE__J_ETCD_VERSION, TRACE__J_CLUSTER_ID, TRACE__J_TENANT_ID, TRACE__J_GROUP_ID,
    TRACE__J_USER_ID, TRACE__J_IS_ENABLE_GPU_TOPO_AWARE, TRACE__J_IS_DELETED,
    TRACE__J_IS_IN_K8S, TRACE__J_GMT_JOB_SUBMITTED, TRACE__J_GMT_JOB_RUNNING,
    TRACE__J_GMT_JOB_STOPPED, TRACE__J_GMT_JOB_FINISHED, TRACE__J_GMT_CREATED,
    TRACE__J_GMT_MODIFIED, TRACE__J_EXTENDED, TRACE__J_JOB_MAX_RUNNING_TIME_MINUTES,
    TRACE__J_WORKSPACE_ID, TRACE__J_PRIORITY, TRACE__J_RESOURCE_ID, TRACE__J_RESOURCE_LEVEL,
    TRACE__J_WORKSPACE_NAME, TRACE__J_SUB_STATUS, TRACE__J_JOB_RESTART_TIMES,
    TRACE__J_NCOLS
};
enum {
    TRACE__W_ID, TRACE__W_JOB_NAME, TRACE__W_WORKER_NAME, TRACE__W_REPLICA_TYPE,
    TRACE__W_HOST_IP, TRACE__W_GMT_CREATED, TRACE__W_GMT_POD_RUNNING,
    TRACE__W_GMT_POD_FINISHED, TRACE__W_RES, TRACE__W_NCOLS
};
enum { TRACE__T_IP, TRACE__T_DSW, TRACE__T_PSW, TRACE__T_ASW, TRACE__T_NCOLS };

/* The named columns of each file, in the real files' order. */
extern const char *const trace__job_columns[TRACE__J_NCOLS];
extern const char *const trace__worker_columns[TRACE__W_NCOLS];
extern const char *const trace__topo_columns[TRACE__T_NCOLS];
/* job.csv's header ends with this many empty names. */
#define TRACE__JOB_EMPTY_COLUMNS 98

/* One data row: the named fields in the enum order above ("" when the
 * column is absent or the field empty), the line it started on, and the
 * numbers the parser derived and checked. */
typedef struct trace__row {
    char **f;           /* owned strings, n = the file's TRACE__*_NCOLS */
    size_t line;        /* line in its file */
    int64_t t[4];       /* job: submitted, running, stopped, finished; worker: created,
                         * pod_running, pod_finished (unix s, INT64_MIN = empty) */
    int gpus;           /* worker: nvidia.com/gpu of RES (0 if none) */
    bool res_empty;     /* worker: RES field empty */
} trace__row;

#define TRACE__NO_TIME INT64_MIN

typedef struct trace__tables {
    GPtrArray *jobs;    /* trace__row*, in file order */
    GPtrArray *workers; /* trace__row* */
    GPtrArray *topo;    /* trace__row* */
    size_t job_malformed, worker_malformed, topo_malformed; /* lenient skips */
} trace__tables;

/* Parse the three files (plain text).  names are used in messages.  On a
 * malformed row: error unless lenient (then skip and count). */
bool trace__tables_parse(trace__tables *t, const char *job_buf, size_t job_len,
                         const char *job_name, const char *worker_buf, size_t worker_len,
                         const char *worker_name, const char *topo_buf, size_t topo_len,
                         const char *topo_name, bool lenient, GError **error);
/* Read DIR's three files (plain or .gz) and parse them. */
bool trace__tables_load(trace__tables *t, const char *dir, bool lenient, GError **error);
void trace__tables_clear(trace__tables *t);
/* Parse the bundled sample's three files, embedded in the library. */
bool trace__default_tables(trace__tables *t, GError **error);
trace__row *trace__row_new(size_t ncols);
void trace__row_free(trace__row *row);

/* Build the job list from parsed tables. */
trace *trace__from_tables(const trace__tables *t, const char *name,
                          const trace_lingjun_options *opts, GError **error);

/* Serialise tables in the exact real schema (job.csv with 98 empty trailing
 * header names and as many trailing commas per row). */
GString *trace__job_csv(const trace__tables *t);
GString *trace__worker_csv(const trace__tables *t);
GString *trace__topo_csv(const trace__tables *t);

/* ---- generator and statistics (gen.c, summary.c) ---------------------- */

struct trace_gen_options;
struct trace_summary;
/* Generate the three tables in memory (gen.c). */
bool trace__gen_tables(trace__tables *out, const struct trace_gen_options *opts, GError **error);
/* Statistics of parsed tables (summary.c). */
struct trace_summary *trace__summary_from_tables(const trace__tables *t);
/* The jobs-across-racks fields of s from t's worker and topo rows
 * (summary_racks.c). */
void trace__summary_racks(const trace__tables *t, struct trace_summary *s);
/* Write bytes to path atomically (temp file + rename), gzip-compressed when gz. */
bool trace__write_file(const char *path, const char *data, size_t len, bool gz, GError **error);

/* ---- trace object (trace.c) ----------------------------------------- */

trace *trace__new(const char *source);
/* Takes ownership of job. */
void trace__add_job(trace *t, trace_job *job);
trace_stats *trace__stats(trace *t);
/* Sort by start_s (stable), set epoch_unix_s and shift times by -shift_s. */
void trace__finish(trace *t, double epoch_unix_s, double shift_s);
void trace__job_free(trace_job *j);

#endif /* CCSIM_TRACES_TRACES_PRIVATE_H */
