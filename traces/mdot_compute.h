/* mdot_compute.h - a replay's compute times from MDOT: the weights for the
 * replay's GPU (or an explicit, recorded override), graph files and the
 * graph library of catalog models, cached predictions, and the warnings to
 * print and record (docs/mdot.md §5).  Not here: the predictor (mdot.h),
 * the catalog's measured times (catalog.h).
 *
 * Rules: a replay on GPU X uses MDOT weights measured on X.  When there are
 * none, mdot_compute_new refuses, naming the devices that have weights,
 * unless the options name other weights explicitly (--mdot-weights, scenario
 * sim.mdot_weights): then their times are used for every job, a warning says
 * so, and run.json records it (mdot_compute_to_json).
 *
 * The graph library maps catalog model names to operator graphs and the
 * batch to predict them at: {"graphs": {"ResNet-50": {"file":
 * "resnet50.json.gz", "batch": 256}, "Non-training": {"file": null, "why":
 * "..."}}}, files relative to the index.  The embedded library is
 * traces/graphs/library.json (written by scripts/mdot/library.py).  An entry
 * whose file is null keeps the catalog's time (listed in run.json).
 */
#ifndef CCSIM_TRACES_MDOT_COMPUTE_H
#define CCSIM_TRACES_MDOT_COMPUTE_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "catalog.h"

typedef struct mdot_compute mdot_compute;

typedef struct mdot_compute_options {
    const char *gpu;     /* the replay's GPU type, e.g. "a100": whose weights are wanted */
    const char *weights; /* NULL, or an explicit device whose weights to use for every job */
    const char *library; /* NULL (the embedded library), or a library index file */
} mdot_compute_options;

/* The weights for o->gpu, or o->weights'.  CCS_ERROR_INVALID when o->gpu
 * has none and o->weights is NULL (the message names the devices with
 * weights and the override), or o->weights names no device with weights.
 * The library is read at first use.  (transfer full) */
mdot_compute *mdot_compute_new(const mdot_compute_options *o, GError **error);

/* Seconds of one training iteration of the graph in file path at batch (0:
 * the graph's own) on the weights' device.  Predictions are cached per file
 * (the estimate is affine in the batch); range warnings are kept, once each.
 * -1 and the error of the graph or the prediction. */
double mdot_compute_graph_s(mdot_compute *mc, const char *path, int64_t batch, GError **error);

/* Compute seconds per iteration per GPU of catalog model m from its library
 * graph: the whole graph at the entry's batch divided by m->tp * m->pp (the
 * work of one GPU of the model-parallel group).  Sets *from_catalog and
 * returns m's catalog time for gpu when the library entry has no graph;
 * CCS_ERROR_INVALID (-1) when the library has no entry for m->name. */
double mdot_compute_catalog_s(mdot_compute *mc, const catalog_model *m, catalog_gpu gpu,
                              bool *from_catalog, GError **error);

/* Per pipeline stage (fwd_s and bwd_s, arrays of pp) of catalog model
 * `name`: its library graph at micro_batch, its operators in topological
 * order cut into pp contiguous stages of as equal predicted time as the
 * cut allows (each cut where the prefix time first reaches k/pp of the
 * total), each stage's time divided by tp and split into forward and
 * backward by fwd_frac.  For jobs built as per-stage forward and backward
 * tasks.  The micro-batch may be fractional (the estimate is affine in the
 * batch: an average of micro-batches of different sizes); range warnings
 * take it rounded up.  False with CCS_ERROR_INVALID when the library has no
 * graph for name, pp exceeds the operator count or the micro-batch is
 * outside [1, 1e9]. */
bool mdot_compute_stage_times(mdot_compute *mc, const char *name, double micro_batch, int pp,
                              int tp, double fwd_frac, double *fwd_s, double *bwd_s,
                              GError **error);

/* A structured job's stage times from MDOT (docs/mdot.md §5): the library
 * graph of model `name` at micro_batch samples (0: the entry's batch, the
 * samples of one replica's iteration, over s->micro_batches, at least 1),
 * cut into s->pp stages by mdot_compute_stage_times with the forward share s
 * already has, replaces every stage's fwd_s and bwd_s.  When the library
 * keeps the catalog time of name (no graph), s is left as it is, name is
 * listed as kept and *kept is set.  False with the error of
 * mdot_compute_stage_times. */
struct job_structure;
bool mdot_compute_structure(mdot_compute *mc, const char *name, double micro_batch,
                            struct job_structure *s, bool *kept, GError **error);

/* The device whose weights are used (transfer none). */
const char *mdot_compute_weights(const mdot_compute *mc);
/* True when those are not the replay's GPU's (the explicit override). */
bool mdot_compute_overridden(const mdot_compute *mc);
/* Warnings so far, each once: the override, graphs outside the training
 * range (transfer none; valid until the next call on mc). */
const GPtrArray *mdot_compute_warnings(const mdot_compute *mc);

/* For run.json: {"predictor", "weights", "weights_device_name", "gpu",
 * "override", "catalog_kept": [...], "warnings": [...]}.  (transfer full) */
cJSON *mdot_compute_to_json(const mdot_compute *mc);

void mdot_compute_free(mdot_compute *mc);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(mdot_compute, mdot_compute_free)

#endif /* CCSIM_TRACES_MDOT_COMPUTE_H */
