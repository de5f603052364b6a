/* export_packet-private.h - what export_packet.c and export_packet_graph.c
 * share.  No other file includes it.
 */
#ifndef CCSIM_SIM_EXPORT_PACKET_PRIVATE_H
#define CCSIM_SIM_EXPORT_PACKET_PRIVATE_H

#include "job.h"
#include "output.h"

struct replay;

/* A connection of a job: a network flow of its plan (one NCCL
 * connection), or a GPU pair inside a host. */
typedef struct xp_conn {
    uint32_t flow;    /* the plan's flow index, or COLL_NO_FLOW */
    GArray *links;    /* uint32 host links: `before` of them before the flow's path, the
                       * rest after it (all of them for a connection inside a host) */
    uint32_t before;
    bool written;     /* a route was written */
    int64_t path;     /* the candidate path last written (-1: inside a host) */
} xp_conn;

/* What the exporter keeps of a job once its plan is written. */
typedef struct xp_job {
    GArray *conns;      /* xp_conn */
    GPtrArray *units;   /* per unit (a plain job's bucket, a structured job's task): NULL, or
                         * a GArray of size_t per step: the index of its first transfer */
    size_t tasks, transfers; /* rows written for one iteration */
} xp_job;

/* The index in the export of transfer xfer of step `step` of unit. */
size_t export_packet__transfer(const xp_job *xj, uint32_t unit, size_t step, size_t xfer);

void export_packet__job_free(xp_job *xj);

/* Write job jb's iteration graph (rows of tasks and transfers) and its
 * connections (rows of conns) from its plan, as export_packet.h describes.
 * (transfer full) NULL with an error (a write error, or CCS_ERROR_INTERNAL
 * when two hops of one network flow leave their hosts differently). */
xp_job *export_packet__graph(const struct replay *r, const job *jb, output_csv *tasks,
                             output_csv *transfers, output_csv *conns, GError **error);

#endif /* CCSIM_SIM_EXPORT_PACKET_PRIVATE_H */
