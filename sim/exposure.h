/* exposure.h - one structured job's iteration alone, taken apart: its
 * compute, pipeline bubble and optimizer step, and the communication it
 * leaves exposed, overall and per traffic class (docs/models.md "What a
 * job leaves exposed").  Not here: the graph and its run (job_graph.h).
 *
 * Every time is measured, not computed: the structure is run alone on the
 * engine (job_structure_alone_s) as it is, with every traffic class's bytes
 * removed (compute, bubble and optimizer only), with one class removed, and
 * with only one class kept.  So
 *     exposed        = iter - nocomm
 *     bubble         = nocomm - compute - opt
 *     class marginal = iter - (iter without the class)
 *     class alone    = (iter with only the class) - nocomm
 * where compute is the busiest stage's m (fwd + bwd) per GPU.  The bytes of
 * each class are what one GPU of the busiest stage sends per iteration
 * (ring collectives move 2(n-1)/n, all-gathers and reduce-scatters (n-1)/n
 * of their tensor per GPU, docs/model.md §3).
 */
#ifndef CCSIM_SIM_EXPOSURE_H
#define CCSIM_SIM_EXPOSURE_H

#include <stdbool.h>

#include "cluster.h"
#include "collective.h"
#include "topo/topo.h"
#include "traces/structure.h"

/* The traffic classes (those of job_graph.h, in the same order). */
typedef enum exposure_class {
    EXPOSURE_TP,    /* tensor-parallel collectives */
    EXPOSURE_PP,    /* pipeline activations and their gradients */
    EXPOSURE_DP,    /* gradient reductions */
    EXPOSURE_PARAM, /* ZeRO / FSDP parameter all-gathers */
    EXPOSURE_MOE,   /* MoE all-to-alls */
    EXPOSURE_CLASSES
} exposure_class;

typedef struct exposure {
    double iter_s;        /* one iteration alone */
    double compute_s;     /* the busiest stage's compute per GPU: m (fwd + bwd) */
    double opt_s;         /* the optimizer step */
    double nocomm_s;      /* one iteration with no traffic at all */
    double bubble_s;      /* nocomm_s - compute_s - opt_s: waiting on other stages */
    double exposed_s;     /* iter_s - nocomm_s: waiting on communication */
    bool has[EXPOSURE_CLASSES];        /* the class carries bytes */
    double bytes[EXPOSURE_CLASSES];    /* bytes one GPU sends per iteration */
    double marginal_s[EXPOSURE_CLASSES]; /* iter_s - the iteration without the class */
    double alone_s[EXPOSURE_CLASSES];    /* the iteration with only the class - nocomm_s */
} exposure;

/* "tp", "pp", "dp", "param", "moe" (static). */
const char *exposure_class_name(exposure_class c);

/* Measure s placed on the GPUs of a in t (co, alpha_s as the replay builds
 * a job's plan) into *out: 2 + 2 x (classes with bytes) runs of one
 * iteration alone.  Errors: as job_structure_alone_s. */
bool exposure_measure(const job_structure *s, const cluster_alloc *a, topo *t,
                      const coll_options *co, double alpha_s, exposure *out, GError **error);

/* One iteration of s alone with no traffic at all (compute, bubble,
 * optimizer) on the GPUs of a, into *nocomm_s.  Errors: as
 * job_structure_alone_s. */
bool exposure_nocomm_s(const job_structure *s, const cluster_alloc *a, topo *t,
                       const coll_options *co, double alpha_s, double *nocomm_s, GError **error);

#endif /* CCSIM_SIM_EXPOSURE_H */
