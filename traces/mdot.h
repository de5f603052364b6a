/* mdot.h - the MDOT training-time predictor: operator graphs and the
 * Transformer that maps one to an iteration time (docs/mdot.md).  Not here:
 * training (scripts/mdot/train.py) and the catalog (catalog.h).
 *
 * A graph is the JSON a collector writes (scripts/mdot/collect.py): {"batch":
 * N, "ops": [{"type", "config", "flops", "bytes_read", "bytes_written",
 * "param_bytes", "params", "preds"}, ...]} with optional "name", "params".
 * A model is a weights file written by train.py (the embedded default is
 * traces/mdot-cpu1.json).  Prediction follows docs/mdot.md §2: each operator
 * encoded by type, configuration and compute load, a graph positional
 * encoding, pre-LN encoder layers, a log-sum-exp readout of per-operator
 * times; everything in double precision.
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
#define MDOT_VERSION "mdot-1"

typedef struct mdot_graph mdot_graph;
typedef struct mdot_model mdot_model;

/* A graph from its JSON object; name (a file name) prefixes the error
 * messages ("NAME: ops[3].flops: missing").  Checks: a positive integer
 * "batch", every op field present with the right type, costs finite and
 * non-negative, param_bytes <= bytes_read, predecessors naming other ops and
 * no cycle (CCS_ERROR_INVALID, or CCS_ERROR_PARSE for a wrong JSON type).
 * The operators are put in a topological order (Kahn's algorithm, lowest
 * index first, so a file already in that order keeps it).  Operator types
 * are checked against a model only at prediction.  (transfer full) */
mdot_graph *mdot_graph_from_cjson(const cJSON *obj, const char *name, GError **error);

/* A graph read from a JSON file (CCS_ERROR_IO if unreadable, _PARSE if not
 * JSON, then as mdot_graph_from_cjson). (transfer full) */
mdot_graph *mdot_graph_load(const char *path, GError **error);

/* The same graph at another batch size: FLOPs, bytes written and the
 * activation part of bytes read scale by batch / recorded batch; parameter
 * bytes do not.  batch must be >= 1 (CCS_ERROR_INVALID).  (transfer full) */
mdot_graph *mdot_graph_with_batch(const mdot_graph *g, int64_t batch, GError **error);

size_t mdot_graph_count(const mdot_graph *g);   /* number of operators */
int64_t mdot_graph_batch(const mdot_graph *g);  /* batch size */
double mdot_graph_params(const mdot_graph *g);  /* parameter count (the file's "params",
                                                 * else the sum over operators) */
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

/* The embedded model for device (NULL: the default, "cpu1");
 * CCS_ERROR_INVALID naming the known devices otherwise. (transfer full) */
mdot_model *mdot_model_load_default(const char *device, GError **error);

/* The devices with embedded weights, comma-separated (static). */
const char *mdot_model_devices(void);

const char *mdot_model_version(const mdot_model *m);     /* e.g. "mdot-1" (transfer none) */
const char *mdot_model_device(const mdot_model *m);      /* e.g. "cpu1" */
const char *mdot_model_device_name(const mdot_model *m); /* the measured device, in words */

/* Predicted seconds of one training iteration (forward, backward, optimizer
 * step) of g on the model's device.  CCS_ERROR_INVALID (returns -1) for an
 * operator type the model does not know.  O(layers * (n^2 d + n d ffn)). */
double mdot_predict_s(const mdot_model *m, const mdot_graph *g, GError **error);

/* Convenience: the graph in file path at batch (0: the graph's own) through
 * the embedded weights of device (NULL: the default).  params (nullable)
 * gets the graph's parameter count.  -1 and the error of the step that
 * failed. */
double mdot_predict_file_s(const char *path, int64_t batch, const char *device, double *params,
                           GError **error);

void mdot_graph_free(mdot_graph *g);
void mdot_model_free(mdot_model *m);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(mdot_graph, mdot_graph_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(mdot_model, mdot_model_free)

#endif /* CCSIM_TRACES_MDOT_H */
