/* mdot.h - the MDOT training-time predictor: operator graphs and the network
 * that maps one to an iteration time (docs/mdot.md).  Not here: training
 * (scripts/mdot/train.py), the catalog (catalog.h), the replay's use of it
 * (mdot_compute.h).
 *
 * A graph is the JSON a collector writes (scripts/mdot/collect.py): {"batch":
 * N, "ops": [{"type", "config", "flops", "bytes_read", "bytes_written",
 * "param_bytes", "params", "preds"}, ...]} with optional "name", "params".
 * A model is a weights file written by train.py for one device (the embedded
 * ones are traces/mdot-DEVICE.json).  Prediction follows docs/mdot.md §2:
 * every operator v is encoded by its type, its configuration and its
 * per-sample loads (none depends on the batch), a graph positional encoding
 * is added, pre-LN encoder layers with attention over a window of the
 * topological order give each operator three log-corrections u_v of a
 * roofline prior, and the iteration time at batch N is
 *
 *   T(N) = sum_v [e^u0 tau + e^u1 N f_v / P + e^u2 (N a_v + p_v) / BW]
 *        = fixed_s + per_sample_s * N
 *
 * (f_v FLOPs and a_v activation bytes per sample, p_v parameter bytes; tau,
 * P, BW the prior fitted at training).  Everything in double precision.
 */
#ifndef CCSIM_TRACES_MDOT_H
#define CCSIM_TRACES_MDOT_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The weights format and method version this build reads; run.json
 * records it.  Weights of another version are refused. */
#define MDOT_VERSION "mdot-2"

typedef struct mdot_graph mdot_graph;
typedef struct mdot_model mdot_model;

/* A prediction: T(N) = fixed_s + per_sample_s * N seconds per iteration. */
typedef struct mdot_estimate {
    double fixed_s;      /* seconds that do not grow with the batch (>= 0) */
    double per_sample_s; /* seconds per sample of the batch (>= 0) */
} mdot_estimate;

/* A graph from its JSON object; name (a file name) prefixes the error
 * messages ("NAME: ops[3].flops: missing", "NAME: ops[0].config.cin: ...").
 * Checks: a "batch" in CCS_LIMIT_GRAPH_BATCH, at most CCS_LIMIT_GRAPH_OPS
 * operators, every op field present with the right type, costs finite and
 * non-negative, param_bytes <= bytes_read, predecessors naming other ops and
 * no cycle (CCS_ERROR_INVALID, or CCS_ERROR_PARSE for a wrong JSON type).
 * The operators are put in a topological order (Kahn's algorithm, lowest
 * index first, so a file already in that order keeps it; O((ops + edges)
 * log ops)).  Operator types are checked against a model only at
 * prediction.  (transfer full) */
mdot_graph *mdot_graph_from_cjson(const cJSON *obj, const char *name, GError **error);

/* A graph read from a JSON file, plain or gzip (CCS_ERROR_IO if unreadable,
 * _PARSE if not JSON, then as mdot_graph_from_cjson). (transfer full) */
mdot_graph *mdot_graph_load(const char *path, GError **error);

/* The same from len bytes of JSON at text; name as above. (transfer full) */
mdot_graph *mdot_graph_parse(const char *text, size_t len, const char *name, GError **error);

/* The same graph at another batch size: FLOPs, bytes written and the
 * activation part of bytes read scale by batch / recorded batch; parameter
 * bytes do not.  batch in CCS_LIMIT_GRAPH_BATCH (CCS_ERROR_INVALID).
 * (transfer full) */
mdot_graph *mdot_graph_with_batch(const mdot_graph *g, int64_t batch, GError **error);

size_t mdot_graph_count(const mdot_graph *g);     /* number of operators */
int64_t mdot_graph_batch(const mdot_graph *g);    /* batch size */
double mdot_graph_params(const mdot_graph *g);    /* parameter count (the file's "params",
                                                   * else the sum over operators) */
double mdot_graph_flops(const mdot_graph *g);     /* forward FLOPs at the graph's batch */
const char *mdot_graph_name(const mdot_graph *g); /* "name" or the file name (transfer none) */

/* The graph positional encoding, d values per operator in the graph's
 * topological order, row-major into out[count * d]: the first d/2 encode
 * the operator's depth (longest path from an operator without
 * predecessors), the last d/2 its height (longest path to one without
 * successors), each as pe[2i] = sin(x / 10000^(2i/h)), pe[2i+1] =
 * cos(x / 10000^(2i/h)), h = d/2.  d must be a multiple of 4.  O(ops + edges + ops d). */
void mdot_graph_pe(const mdot_graph *g, size_t d, double *out);

/* A model from a weights JSON buffer; name prefixes errors (CCS_ERROR_PARSE,
 * CCS_ERROR_INVALID for a missing tensor or a wrong shape). (transfer full) */
mdot_model *mdot_model_load_json(const char *json, size_t len, const char *name,
                                 GError **error);

/* The embedded weights of device (case-insensitive; NULL: "cpu1").  An
 * unknown device is CCS_ERROR_INVALID naming the devices that have weights.
 * The file must name the same device.  (transfer full) */
mdot_model *mdot_model_load_default(const char *device, GError **error);

/* The devices with embedded weights, comma-separated (static). */
const char *mdot_model_devices(void);
/* Whether device (case-insensitive) has embedded weights. */
bool mdot_model_has_device(const char *device);

const char *mdot_model_version(const mdot_model *m);     /* e.g. "mdot-2" (transfer none) */
const char *mdot_model_device(const mdot_model *m);      /* e.g. "cpu1" */
const char *mdot_model_device_name(const mdot_model *m); /* the measured device, in words */
const char *mdot_model_precision(const mdot_model *m);   /* "fp32", "bf16", "fp16" */

/* The prediction for g on the model's device, and (op_fixed_s and
 * op_per_sample_s, each NULL or of mdot_graph_count(g) values, in the
 * graph's topological order) every operator's share of it.  False and
 * CCS_ERROR_INVALID for an operator type the model has no slot for.
 * O(layers * ops * d * (window + d + ffn)). */
bool mdot_estimate_graph(const mdot_model *m, const mdot_graph *g, mdot_estimate *out,
                         double *op_fixed_s, double *op_per_sample_s, GError **error);

/* Seconds of one training iteration at batch: fixed_s + per_sample_s * batch. */
double mdot_estimate_at(const mdot_estimate *e, double batch);

/* Predicted seconds of one training iteration (forward, backward, optimizer
 * step) of g at its own batch; -1 and the error of mdot_estimate_graph. */
double mdot_predict_s(const mdot_model *m, const mdot_graph *g, GError **error);

/* Where g at batch lies outside the rows m was trained on, one line each
 * (batch, operator count, forward FLOPs per iteration, and operator types no
 * training row used, whose type encoding is then neutral), each naming the
 * value and the training range.  (transfer full; empty when inside) */
GPtrArray *mdot_model_range_warnings(const mdot_model *m, const mdot_graph *g, int64_t batch);

void mdot_graph_free(mdot_graph *g);
void mdot_model_free(mdot_model *m);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(mdot_graph, mdot_graph_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(mdot_model, mdot_model_free)

#endif /* CCSIM_TRACES_MDOT_H */
