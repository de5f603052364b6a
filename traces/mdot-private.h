/* mdot-private.h - what the mdot_*.c files share: the graph's and the
 * model's layouts and the operator features.  Nothing else includes it
 * (tests may).
 */
#ifndef CCSIM_TRACES_MDOT_PRIVATE_H
#define CCSIM_TRACES_MDOT_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "mdot.h"

enum { MDOT__N_CONFIG = 8, MDOT__N_LOAD = 3, MDOT__N_FEAT = MDOT__N_CONFIG + MDOT__N_LOAD,
       MDOT__N_OUT = 3 };

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

/* The per-sample loads of op in a graph of batch: FLOPs per sample,
 * activation bytes per sample (read + written - param_bytes, over the
 * batch), parameter bytes. */
void mdot__op_loads(const mdot__op *op, int64_t batch, double out[MDOT__N_LOAD]);

/* Operator op's 11 features: log1p of the 8 config numbers, then of its
 * per-sample loads (mdot__op_loads); none depends on the batch. */
void mdot__op_features(const mdot__op *op, int64_t batch, double out[MDOT__N_FEAT]);

/* Sinusoid of x in dims values (dims even) into out: sin/cos pairs at
 * frequencies 1 / 10000^(2i/dims). */
void mdot__sinusoid(double x, size_t dims, double *out);

/* ---- the model ------------------------------------------------------ */

typedef struct mdot__lin { double *w, *b; size_t out, in; } mdot__lin; /* y = W x + b */
typedef struct mdot__lnorm { double *g, *b; } mdot__lnorm;
typedef struct mdot__layer {
    mdot__lnorm ln1, ln2;
    mdot__lin q, k, v, o, ff1, ff2;
} mdot__layer;
typedef enum mdot__pe { MDOT__PE_GRAPH, MDOT__PE_SEQ, MDOT__PE_NONE } mdot__pe;

/* What the weights were trained on (the range the predictor warns outside of). */
typedef struct mdot__range {
    double batch[2];     /* smallest and largest batch */
    double ops[2];       /* operators per graph */
    double flops[2];     /* forward FLOPs per iteration */
    double *type_ops;    /* training operators per vocabulary type (vocab order) */
} mdot__range;

struct mdot_model {
    char *version, *device, *device_name, *precision;
    mdot__pe pe;
    size_t d, heads, ffn, n_layers, window;
    GHashTable *type_index; /* type name -> index + 1 (GSIZE_TO_POINTER) */
    GPtrArray *vocab;       /* type names in index order */
    double *type_emb;       /* vocab x d */
    mdot__lin cfg, load, out;
    mdot__layer *layers;
    mdot__lnorm ln_f;
    double *mu, *sd;        /* feature standardisation, 11 each */
    double *prior;          /* tau (s per operator), P (FLOP/s), BW (bytes/s) */
    mdot__range range;
    GPtrArray *blocks;      /* every tensor allocated, freed together */
};

#endif /* CCSIM_TRACES_MDOT_PRIVATE_H */
