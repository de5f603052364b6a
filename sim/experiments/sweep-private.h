/* sweep-private.h - what sweep.c, sweep_exec.c and sweep_csv.c share.
 * Not here: the public API (sweep.h).
 */
#ifndef CCSIM_SIM_EXPERIMENTS_SWEEP_PRIVATE_H
#define CCSIM_SIM_EXPERIMENTS_SWEEP_PRIVATE_H

#include <cjson/cJSON.h>
#include <glib.h>

#include "base/ccs.h" /* g_autoptr(cJSON) */


/* The file in a run's folder where its worker keeps its simulated-time
 * progress (`ccsim run --progress-file`), read for the sweep's ETA. */
#define SWEEP_PROGRESS_FILE ".progress"

/* Set root.PATH (dotted) to a copy of value, creating objects on the way. */
bool sweep__set_path(cJSON *root, const char *path, const cJSON *value, GError **error);
/* Make relative trace/topology file paths of a scenario absolute against dir. */
void sweep__absolutize(cJSON *scenario, const char *dir);

/* Set *error (nullable) to CCS_ERROR_IO "PREFIXmessage of src"; frees src. */
void sweep__io_error(GError **error, GError *src, const char *prefix);
/* Write text to path atomically (temp file + rename). */
bool sweep__write_atomic(const char *path, const char *text, GError **error);
/* The folder of run `name` under dir: DIR/runs/NAME.  (transfer full) */
char *sweep__run_dir(const char *dir, const char *name);
/* The summary a finished run left in run_dir: summary.csv, or
 * summary.csv.gz when the run wrote gzip (sim.gzip); NULL when neither
 * exists.  (transfer full) */
char *sweep__run_summary(const char *run_dir);

/* Take the POSIX lock on DIR/.lock (blocking); returns the fd to pass to
 * sweep__unlock, or -1 with CCS_ERROR_IO. */
int sweep__lock(const char *dir, GError **error);
void sweep__unlock(int fd);

#endif /* CCSIM_SIM_EXPERIMENTS_SWEEP_PRIVATE_H */
