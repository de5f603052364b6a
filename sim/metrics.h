/* metrics.h - GPU busy time and link use over time (docs/model.md, §7).
 * Not here: the files they go to (replay_output.c).
 *
 * GPU busy time and link use over time (docs/model.md "Metrics", §7;
 * docs/model.md has the formulas).
 *
 * Three step functions of simulated time are integrated exactly (they
 * change only at events): busy GPUs b(t), allocated GPUs a(t) and running
 * jobs r(t).  Over an interval [t0, t1):
 *     busy_gpus     = (1/(t1-t0)) * integral of b
 *     gpu_util_cluster_frac   = integral of b / (G * (t1 - t0))   (G: all GPUs)
 *     gpu_util_allocated_frac = integral of b / integral of a
 * Links: per tier T and interval, from the engine's per-link counters
 * (carried bytes X_e, tagged bytes Y_e = integral of sum_j load_je * I_j):
 *     util_frac     = sum_{e in T} dX_e / sum_{e in T} (C_e * (t1 - t0))
 *     intensity_occupancy = sum_{e in T} dY_e / sum_{e in T} (C_e * (t1 - t0))
 * i.e. the capacity-weighted mean over the tier of sum over jobs of (share
 * of the link's time carrying job j) * I_j -- the Crux paper's figure 24.
 *
 * Fast-forwarded jobs (ffwd.h) send no events: each is a periodic source
 * whose cumulative busy GPU-seconds and per-tier bytes are
 *     base + F(t - origin)
 * and whose increments are added to the interval that contains them, at
 * every tick and when the source is removed: the integrals stay exact.
 */
#ifndef CCSIM_SIM_METRICS_H
#define CCSIM_SIM_METRICS_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

#include "ffwd.h"
#include "net.h"
#include "topo/topo.h"

typedef struct metrics metrics;

/* One interval's numbers. */
typedef struct metrics_row {
    double t_s;                      /* interval start */
    double dt_s;                     /* interval length */
    double active_jobs;              /* time-average of running jobs */
    double active_gpus;              /* time-average of allocated GPUs */
    double busy_gpus;                /* time-average of busy GPUs */
    double gpu_util_cluster_frac;    /* busy / all GPUs */
    double gpu_util_allocated_frac;  /* busy / allocated (NAN when nothing allocated) */
    double tier_util_frac[TOPO_TIER_COUNT];      /* NAN for a tier without links */
    double tier_occupancy[TOPO_TIER_COUNT];      /* intensity-weighted occupancy */
    double tier_carried_bytes[TOPO_TIER_COUNT];
} metrics_row;

/* Metrics of a run starting at t0_s with gpus_total GPUs, over the links of
 * t (read through n's counters).  (transfer full) */
metrics *metrics_new(const topo *t, net *n, size_t gpus_total, double t0_s);
void metrics_free(metrics *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(metrics, metrics_free)

/* The step functions change by delta at now_s (>= the last change). */
void metrics_busy_change(metrics *m, double now_s, int delta_gpus);
void metrics_alloc_change(metrics *m, double now_s, int delta_gpus, int delta_jobs);

/* Add gpu_s busy GPU-seconds (may be negative) spread evenly over
 * [now_s, until_s] (now_s >= the last change, until_s > now_s): what a
 * group of jobs skipped by the steady-state fast path did beyond what the
 * step function b(t) integrates for it (docs/engine.md §5c).  The caller
 * ends the skip before the interval closes, so the interval gets all of
 * it; metrics_peek inside the stretch sees the share up to its time. */
void metrics_busy_ramp(metrics *m, double now_s, double until_s, double gpu_s);

/* A periodic source (a fast-forwarded job) from now_s on, its first
 * iteration starting at origin_s >= now_s; p is borrowed and must stay
 * valid until metrics_ffwd_remove.  Returns its handle.  O(1). */
uint32_t metrics_ffwd_add(metrics *m, const ffwd_profile *p, double origin_s, double now_s);
/* At now_s (an iteration boundary) the source's values freeze and its
 * profile restarts at origin_s >= now_s (a time shift). */
void metrics_ffwd_rebase(metrics *m, uint32_t handle, double origin_s, double now_s);
/* The source stops at now_s; what it did since the last tick goes into
 * the open interval.  The handle becomes invalid. */
void metrics_ffwd_remove(metrics *m, uint32_t handle, double now_s);

/* Close the interval [last tick, now_s) and fill row.  O(links that
 * carried load in the interval (net_links_moved) + periodic sources). */
void metrics_tick(metrics *m, double now_s, metrics_row *row);

/* Totals since t0 up to the last change or tick: busy GPU-seconds,
 * allocated GPU-seconds.  Periodic sources count up to the last tick or
 * their removal. */
double metrics_busy_gpu_s(const metrics *m);
double metrics_alloc_gpu_s(const metrics *m);
/* The same totals carried on to now_s (>= the last change) without
 * changing anything, the periodic sources included, and the GPUs
 * allocated now.  O(periodic sources). */
void metrics_peek(const metrics *m, double now_s, double *busy_gpu_s, double *alloc_gpu_s,
                  int *alloc_gpus);
/* Whole-run link numbers per tier up to the last tick (NAN if no links). */
double metrics_tier_util_frac(const metrics *m, topo_tier tier);
double metrics_tier_occupancy(const metrics *m, topo_tier tier);

#endif /* CCSIM_SIM_METRICS_H */
