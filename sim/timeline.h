/* timeline.h - a run's per-iteration, per-transfer and per-link timeline as
 * Chrome/Perfetto trace-event JSON, and flows.csv.  Not here: when the
 * replay calls it (replay.c, replay_run.c) and the run's other files.
 *
 * The JSON ({"traceEvents": [...]}, times in microseconds of simulated
 * time, which is trace time) opens in ui.perfetto.dev or chrome://tracing:
 *  - one process per chosen job ("job ID: MODEL, N GPUs"), thread 1 "GPU
 *    group" with a "compute" and an "optimizer" slice per iteration,
 *    thread 2 "communication" with a slice per communication phase (first
 *    bucket ready to last bucket done), a counter "network Gbps" (the sum
 *    of the rates of its transfers that leave a host), a counter "NVLink
 *    Gbps" (those within one host: NVLink and PCIe only) and one async
 *    track per transfer ("b" at its first rate, "n" at every rate change
 *    with args rate_Gbps, "e" at its end);
 *  - process 0 "network links": a counter per link a chosen job's
 *    transfer used in the span, "link ID SRC>DST util", its utilization
 *    averaged over each metrics interval.
 * Slices and transfer tracks are clipped to the span (a transfer still
 * running at its end ends there, a cancelled one at its job's end);
 * events outside it are dropped.  At most TIMELINE_MAX_EVENTS events (then
 * otherData.truncated is true).  Processes are numbered in the order the
 * jobs start; an iteration is the job's own count.
 * flows.csv: one row per finished transfer of a chosen job in the span.
 *
 * What the file says depends only on what happens from the span's opening
 * (timeline_span_open, at the last metrics tick at or before its start) to
 * its end: the replay may fast-forward before and after (docs/usage.md,
 * "Timeline").  A transfer moved by a skip before the span (the net's
 * delay observer) counts as the copy of itself that runs later.
 */
#ifndef CCSIM_SIM_TIMELINE_H
#define CCSIM_SIM_TIMELINE_H

#include <glib.h>
#include <stdbool.h>

#include "job.h"
#include "net.h"
#include "output.h"
#include "topo/topo.h"

#define TIMELINE_MAX_EVENTS 4000000

typedef struct timeline_options {
    char *file;       /* JSON file name in the output folder, or NULL: none */
    char **jobs;      /* trace job ids to record (NULL-terminated), NULL: all */
    double start_s;   /* span, simulated (= trace) seconds; -INFINITY / INFINITY: all */
    double end_s;
    bool flows;       /* also write flows.csv */
} timeline_options;

typedef struct timeline timeline;

/* A recorder on net n (it becomes n's rate observer).  (transfer full) */
timeline *timeline_new(const timeline_options *o, net *n, const topo *t);
void timeline_free(timeline *tl);

/* The replay's job callbacks: busy GPUs changed by delta; communication
 * phase starts or ends. */
void timeline_busy(timeline *tl, const job *j, int delta, double now_s);
void timeline_comm(timeline *tl, const job *j, bool starting, double now_s);
/* Job j starts (its process is numbered now) / ends (its communication
 * slice and the tracks of its transfers, cancelled, close). */
void timeline_job_start(timeline *tl, const job *j);
void timeline_job_end(timeline *tl, const job *j, double now_s);
/* The span opens now (a metrics tick, or the run's start): every link's
 * counters are kept from each tick on, the transfers in flight count with
 * the levels they have now.  O(links). */
void timeline_span_open(timeline *tl, double now_s);
/* The span's start (o->start_s). */
double timeline_span_start_s(const timeline *tl);
/* The span is over and no transfer that started in it is still running. */
bool timeline_span_done(const timeline *tl, double now_s);
/* A metrics interval ended at now_s: sample the tracked links. */
void timeline_tick(timeline *tl, double now_s);
/* The run ended at now_s: close what is open. */
void timeline_finish(timeline *tl, double now_s);

/* Write the JSON (o->file) and, with o->flows, flows.csv (gzipped when
 * gzip) into d. */
bool timeline_write(timeline *tl, output_dir *d, bool gzip, GError **error);

#endif /* CCSIM_SIM_TIMELINE_H */
