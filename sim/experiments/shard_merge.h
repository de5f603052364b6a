/* shard_merge.h - the folders of a run split in time shards and their merge
 * into the run's own outputs (docs/cluster.md, "Long replays split in
 * time").  Not here: running a shard (replay_new_shard in sim/replay.h),
 * running them side by side (the command line, the sweep).
 *
 * A run split in N shards keeps shard K's outputs in RUN/shards/K (a run
 * folder of its own, over its measured window, plus shard_jobs.csv and a
 * "shard" object in its run.json).  The merge writes RUN/summary.csv,
 * jobs.csv, timeseries.csv, links.csv (.csv.gz when the shards wrote gzip)
 * and run.json as one run over the whole window (under a POSIX lock on
 * RUN/shards/.lock: processes that find the last shard at once merge one
 * after the other):
 *   - timeseries.csv and links.csv: the shards' rows one after the other
 *     (their warm-ups were never written);
 *   - jobs.csv: per job, iterations, busy GPU-seconds, iteration time and
 *     shifts summed over the shards (exact sums, from shard_jobs.csv), the
 *     mean iteration time the sum of the times over the sum of the
 *     iterations, its slowdown, start from the first shard it ran in, end
 *     and priority from the last;
 *   - summary.csv: busy and allocated GPU-seconds summed, utilization over
 *     the whole window, iterations summed, slowdowns over the merged jobs
 *     as a run computes them, events and wall time summed (the warm-ups'
 *     included), peak memory the largest;
 *   - run.json: the first shard's, with the totals, the contention block
 *     from the merged jobs, and "sharded" saying how it was split.
 */
#ifndef CCSIM_SIM_EXPERIMENTS_SHARD_MERGE_H
#define CCSIM_SIM_EXPERIMENTS_SHARD_MERGE_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>

/* The folder of the shards, under the run's folder. */
#define SHARD_MERGE_DIR "shards"

/* RUN/shards/K.  (transfer full) */
char *shard_merge_dir(const char *run_dir, int k);

/* Shard k of the run in run_dir has finished: its summary.csv (or
 * summary.csv.gz) exists, the last file it commits. */
bool shard_merge_finished(const char *run_dir, int k);

/* The finished shard k was run as shard k of count with this
 * configuration (config_to_json of the run's).  CCS_ERROR_INVALID naming
 * the folder otherwise, CCS_ERROR_IO / _PARSE when its run.json cannot
 * be read. */
bool shard_merge_check(const char *run_dir, int k, int count, const cJSON *config,
                       GError **error);

/* Merge the count finished shards of run_dir into its outputs (above),
 * each file written atomically.  Errors: CCS_ERROR_INVALID when a shard is
 * missing, of another run or configuration, or its windows do not join;
 * CCS_ERROR_IO / _PARSE for unreadable files.  O(rows of all shards). */
bool shard_merge(const char *run_dir, int count, GError **error);

#endif /* CCSIM_SIM_EXPERIMENTS_SHARD_MERGE_H */
