/* contention.h - the contention-risk statistic of the Crux paper's §2
 * (docs/traces.md, "Contention risk").  Not here: placing jobs
 * (cluster.h), routing them (collective.h).
 *
 * The definition.  A GPU job j is *at risk of contention* if at some
 * moment of its run it shares, with another job k running at the same
 * moment that communicates across hosts (k runs on >= 2 hosts),
 *   - a host (its PCIe switches and NICs), or
 *   - a network link: j also runs on >= 2 hosts and some link above the
 *     hosts' NIC cables (ToR uplinks and up) lies on a candidate path of
 *     both jobs' network flows.
 * Jobs on one host that share it only with other one-host jobs, and jobs
 * that never overlap in time, are not at risk.  The GPUs at risk are the
 * GPUs of the jobs at risk.  Two jobs meet when one starts while the other
 * runs ([start, end) intervals).
 *
 * A tracker is fed job starts and ends in time order; each start is
 * compared with the jobs running then: O(running jobs x (hosts + links))
 * per start.
 */
#ifndef CCSIM_SIM_CONTENTION_H
#define CCSIM_SIM_CONTENTION_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collective.h"
#include "config.h"
#include "topo/topo.h"
#include "traces/trace.h"

/* How far a job's network flows reach: its span, the highest link tier on
 * any candidate path (a one-switch job crosses only NIC cables). */
typedef enum contention_span {
    CONTENTION_SPAN_HOST,   /* one host: no network flow */
    CONTENTION_SPAN_SWITCH, /* several hosts under one switch (one ToR) */
    CONTENTION_SPAN_AGG,    /* through aggregation switches (ToR uplinks, tier tor_agg) */
    CONTENTION_SPAN_CORE,   /* through core switches (tiers agg_core or other) */
    CONTENTION_SPANS
} contention_span;

/* The statistic for the jobs of one span, and why they are at risk (a job
 * may count under several reasons): a shared host, a shared ToR uplink
 * (tor_agg link), a shared core link (agg_core or other). */
typedef struct contention_span_stats {
    size_t jobs, jobs_at_risk;
    double gpus, gpus_at_risk;
    size_t by_host, by_tor_agg, by_core;
} contention_span_stats;

/* "host", "switch", "agg", "core" (static). */
const char *contention_span_name(contention_span s);

/* Job sizes (GPUs) of the breakdown by size: 1, 2-7, 8, 9-16, 17-48,
 * 49-127, 128, 129-256, >256 (the trace statistics' buckets). */
#define CONTENTION_SIZES 9
/* The bucket of a job of g GPUs, and its name ("1", "2-7", ..., ">256"). */
int contention_size_bucket(int g);
const char *contention_size_name(int bucket);

typedef struct contention_stats {
    size_t jobs;          /* GPU jobs started */
    size_t jobs_at_risk;  /* of them, at risk */
    double gpus;          /* their GPUs (sum over jobs) */
    double gpus_at_risk;  /* GPUs of the jobs at risk */
    size_t jobs_unplaced; /* contention_trace: jobs that found too few free GPUs (skipped) */
    bool have_spans;      /* span[] filled: the tracker knew the links' tiers */
    contention_span_stats span[CONTENTION_SPANS];
    contention_span_stats size[CONTENTION_SIZES]; /* by job size (always filled) */
} contention_stats;

typedef struct contention contention;

contention *contention_new(void);
void contention_free(contention *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(contention, contention_free)
/* Let the tracker read link tiers from t (borrowed, must outlive c): jobs
 * started afterwards are classified by span and reason (contention_get's
 * span[]).  Without it only the totals are kept. */
void contention_set_topo(contention *c, topo *t);

/* Job `key` (unique, any value) starts with gpus GPUs on hosts[0..n_hosts)
 * (topology host ids, any order) and the network links links[0..n_links)
 * (sorted ascending, distinct; empty for a one-host job); it is compared
 * with every running job.  The arrays are copied. */
void contention_job_start(contention *c, size_t key, int gpus, const uint32_t *hosts,
                          size_t n_hosts, const uint32_t *links, size_t n_links);
/* Job `key` ends (no-op for an unknown key). */
void contention_job_end(contention *c, size_t key);
/* Whether job key has been at risk so far (false for an unknown key). */
bool contention_job_at_risk(const contention *c, size_t key);
void contention_get(const contention *c, contention_stats *out);

/* The links above the NIC cables (tier TOR_AGG and up, and OTHER) on any
 * candidate path of any of plan p's flows: sorted, distinct (out cleared
 * first, uint32).  False with an error if the topology cannot give a
 * path. */
bool contention_plan_links(topo *t, const coll_plan *p, GArray *out, GError **error);

/* Which links of a multi-host job's flows count for contention_trace:
 * those of every equal-cost candidate path (the definition above), or only
 * those of the path each flow's ECMP hash picks (one reading of "shares a
 * link"; docs/traces.md). */
typedef enum contention_paths {
    CONTENTION_PATHS_CANDIDATES,
    CONTENTION_PATHS_CHOSEN,
} contention_paths;

/* The links above the NIC cables of the chosen path of each of plan p's
 * flows: sorted, distinct (out cleared first, uint32). */
void contention_chosen_links(topo *t, const coll_plan *p, GArray *out);

/* The statistic of a whole trace: its GPU jobs placed on t in start order
 * (an end at t before a start at t) by `policy` with placement draws from
 * `seed`, GPUs released at each job's end; a multi-host job's flows are
 * those of a one-channel ring all-reduce, their links per `paths` (the
 * chosen ones hashed with `seed`).  Jobs that do not fit when they
 * start are skipped and counted.  out->span[] is filled (the breakdown by
 * span and reason).  Cost: one placement and one plan per
 * job plus the tracker's comparisons. */
bool contention_trace(topo *t, const trace *tr, config_placement policy, uint64_t seed,
                      contention_paths paths, contention_stats *out, GError **error);

#endif /* CCSIM_SIM_CONTENTION_H */
