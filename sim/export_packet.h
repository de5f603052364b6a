/* export_packet.h - a replay written out at packet granularity, for a
 * packet-level simulator to replay the same run (docs/validation.md,
 * "Packet-level cross-check").  Not here: the replay (replay.h), the
 * packet simulator (validate/ns3/).
 *
 * The export records, while the replay runs:
 *  - the topology: every node and directed link with its rate and latency;
 *  - per job, at its start, one iteration as a dependency graph built from
 *    the replay's own collective plan (the object the job starts its
 *    transfers from): compute tasks (GPUs busy), timers, and flows.  A
 *    lock-step ring transfer of b bytes per hop in S lock-steps over H hops
 *    becomes S x H flows of b/S bytes; flow (k, h) waits for flow
 *    (k-1, h-1 mod H), the chunk hop h forwards, then alpha (the engine's
 *    per-step startup) before it sends.  Each flow rides a connection (one
 *    per network flow of the plan, i.e. per NCCL connection, with the ECMP
 *    hash input ccsim hashes; one per GPU pair inside a host);
 *  - at every reschedule: each running job's priority level, pending time
 *    shift and, when it changed, each connection's route (GPU to GPU, the
 *    chosen candidate path in the middle);
 *  - every network transfer the engine starts and ends (the observed side
 *    of the cross-check: its iteration, transfer, start and end).
 * The files (columns in docs/validation.md) go into the run's output
 * folder beside its usual results.  Fast-forward is turned off (every
 * transfer goes through the event queue).
 *
 * Usage:
 *   export_packet *x = export_packet_new(r, d, &err);  (before replay_run)
 *   replay_run(r, d, ...);
 *   if (!export_packet_finish(x, &err)) ...            (before committing d)
 *   export_packet_free(x);
 */
#ifndef CCSIM_SIM_EXPORT_PACKET_H
#define CCSIM_SIM_EXPORT_PACKET_H

#include <glib.h>
#include <stdbool.h>

#include "output.h"
#include "replay.h"

typedef struct export_packet export_packet;

/* Attach an exporter to r (not yet run), writing into d (borrowed; both
 * must outlive it): opens the files, writes the topology and turns
 * fast-forward off.  CCS_ERROR_UNSUPPORTED for the `ideal` scheduler (no
 * transfers to export) and for a scheduler that decides at every
 * communication phase (on_comm: the export records decisions at starts and
 * ends only); CCS_ERROR_IO when a file cannot be opened.  (transfer full) */
export_packet *export_packet_new(replay *r, output_dir *d, GError **error);

/* After replay_run: the jobs' start and stop times; a write error met
 * while the replay ran.  Call once. */
bool export_packet_finish(export_packet *x, GError **error);

void export_packet_free(export_packet *x);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(export_packet, export_packet_free)

#endif /* CCSIM_SIM_EXPORT_PACKET_H */
