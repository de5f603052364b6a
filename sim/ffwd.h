/* ffwd.h - the periodic profile of a fast-forwarded job (docs/model.md).
 * Not here: the job side (job_ffwd.c), the integration (metrics.c).
 *
 * The periodic profile of a fast-forwarded job (docs/model.md "Jobs" and
 * "Metrics"; docs/engine.md "Fast-forward").
 *
 * A job whose iterations can never meet another job's (no communication,
 * communication only on the NVLink links of its own GPUs, or the ideal
 * scheduler's private communication) repeats one iteration of period
 * T = its isolated iteration time, so nothing about it needs an event per
 * iteration.  Starting its first iteration at the origin o, each of its
 * cumulative quantities -- busy GPU-seconds, bytes carried on each link
 * tier, intensity-tagged bytes on each tier -- is
 *     F(t) = 0                           for t <= o
 *     F(t) = k V + f(tau)                for t >  o,
 *            k = floor((t - o) / T),  tau = t - o - k T  in [0, T),
 * where f is piecewise linear on [0, T] with f(0) = 0 and f(T) = V (the
 * amount of one iteration).  F is continuous, so rounding in k near an
 * iteration boundary moves F by a rounding error only.
 *
 * The busy GPU curve of a job of n GPUs, compute C and optimizer T_opt:
 * busy on [0, C) and [T - T_opt, T), i.e. f goes through (0, 0), (C, nC),
 * (T - T_opt, nC), (T, n(C + T_opt)).  The link curves are recorded from
 * the engine's own simulation of the job alone (job.c); tagged bytes are
 * the carried bytes times the job's tag (its GPU intensity), as the
 * network counts them.
 */
#ifndef CCSIM_SIM_FFWD_H
#define CCSIM_SIM_FFWD_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"

/* Cumulative values of one job since its origin. */
typedef struct ffwd_values {
    double busy_gpu_s;                      /* GPU-seconds busy */
    double carried_bytes[TOPO_TIER_COUNT];  /* bytes carried, summed over the tier's links */
    double tagged_bytes[TOPO_TIER_COUNT];   /* carried bytes times the tag */
} ffwd_values;

typedef struct ffwd_profile ffwd_profile;

/* The profile of an iteration of period_s > 0 on gpus GPUs computing
 * compute_s then idle then busy for opt_s at its end (compute_s + opt_s <=
 * period_s), with no link traffic yet; tag multiplies carried bytes into
 * tagged bytes.  (transfer full) */
ffwd_profile *ffwd_profile_new(double period_s, int gpus, double compute_s, double opt_s,
                               double tag);
/* A profile of period_s > 0 whose busy curve is given point by point
 * (ffwd_profile_add_busy_point; empty: never busy), with no link traffic
 * yet: a job whose busy GPUs vary within its iteration (a structured job's
 * stages).  (transfer full) */
ffwd_profile *ffwd_profile_new_curve(double period_s, double tag);
/* Add a breakpoint (tau_s in [0, period], busy GPU-seconds since the
 * iteration's start, nondecreasing over successive calls) of the busy
 * curve of a profile from ffwd_profile_new_curve. */
void ffwd_profile_add_busy_point(ffwd_profile *p, double tau_s, double cum_gpu_s);
void ffwd_profile_free(ffwd_profile *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ffwd_profile, ffwd_profile_free)

/* Add a breakpoint (tau_s, cumulative bytes within the iteration) of the
 * tier's carried-bytes curve; tau_s in [0, period] and bytes
 * nondecreasing over successive calls (a step back by rounding is
 * clamped).  Before the first breakpoint the
 * curve is 0, after the last it stays at the last value (V). */
void ffwd_profile_add_link_point(ffwd_profile *p, topo_tier tier, double tau_s,
                                 double cum_bytes);

double ffwd_profile_period_s(const ffwd_profile *p);

/* F(rel_s) above, rel_s = t - origin (<= 0 gives zeros).  O(log b) per
 * tier with link traffic, b breakpoints. */
void ffwd_profile_eval(const ffwd_profile *p, double rel_s, ffwd_values *out);

/* out += sign * v, component-wise. */
void ffwd_values_add(ffwd_values *out, const ffwd_values *v, double sign);

#endif /* CCSIM_SIM_FFWD_H */
