/* mdot-private.h - what mdot_graph.c and mdot_model.c share: the graph's
 * layout and the operator features.  Nothing else includes it (tests may).
 */
#ifndef CCSIM_TRACES_MDOT_PRIVATE_H
#define CCSIM_TRACES_MDOT_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "mdot.h"

enum { MDOT__N_CONFIG = 8, MDOT__N_LOAD = 3, MDOT__N_FEAT = MDOT__N_CONFIG + MDOT__N_LOAD };

typedef struct mdot__op {
    char *type;                    /* canonical operator type, e.g. "conv" */
    double config[MDOT__N_CONFIG]; /* raw configuration numbers (features.py order):
                                    * kernel area, stride, groups, cin, cout,
                                    * input and output elements per sample, params */
    double flops;                  /* forward FLOPs at the graph's batch */
    double bytes_read;             /* tensor inputs + param_bytes, bytes */
    double bytes_written;          /* outputs, bytes */
    double param_bytes;            /* parameters and buffers read, bytes (batch-free) */
    size_t *preds;                 /* predecessor indices (in this graph's order) */
    size_t n_preds;
} mdot__op;

struct mdot_graph {
    char *name;       /* "name" or the file name */
    int64_t batch;    /* batch size the costs are for */
    double params;    /* parameter count */
    size_t n;         /* operators, in topological order */
    mdot__op *ops;
};

/* Operator i's 11 features (log1p of config then of flops, bytes read,
 * bytes written) into out. */
void mdot__op_features(const mdot__op *op, double out[MDOT__N_FEAT]);

/* Sinusoid of x in dims values (dims even) into out: sin/cos pairs at
 * frequencies 1 / 10000^(2i/dims). */
void mdot__sinusoid(double x, size_t dims, double *out);

#endif /* CCSIM_TRACES_MDOT_PRIVATE_H */
