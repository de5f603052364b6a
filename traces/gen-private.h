/* gen-private.h - what the generator's files share (gen_options.c, gen.c,
 * gen_place.c, gen_rows.c).  Nothing outside traces/gen*.c includes it.
 */
#ifndef CCSIM_TRACES_GEN_PRIVATE_H
#define CCSIM_TRACES_GEN_PRIVATE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "gen.h"
#include "traces-private.h"

/* ---- the published numbers ------------------------------------------ */

#define GEN_JOBS 5180
#define GEN_WORKER_ROWS 23742
#define GEN_GPU_JOBS 2816
#define GEN_NO_WORKER_JOBS 129
#define GEN_OUTSIDE_HOSTS 150
#define GEN_TOPO_MATCH 0.863

enum { ST_SUCCEEDED, ST_STOPPED, ST_FAILED, ST_RUNNING };

typedef struct gjob {
    int model;        /* index into models[] */
    int burst;
    int status;       /* ST_* */
    bool ran;         /* gmt_job_running set */
    bool gpu;
    int g, pods, per_pod;
    int cpu_pods;     /* CPU-only pods (CPU jobs) */
    bool aimaster, no_workers, outside;
    int user, workspace, cluster;
    int64_t submit, created, running, finished, modified; /* unix s, minute resolution */
    int pod_created_delay, pod_running_delay;             /* minutes */
    double run_key;                                        /* copula rank key */
    bool delayed;                                          /* admission made it wait */
    int empty_hosts;                                       /* pods with an empty host_ip */
    char name[17];
    char **hosts;     /* per GPU pod (owned strings), NULL until placed */
} gjob;

typedef struct gburst {
    int model, size, first; /* first job index */
    bool gpu;
    int g;
    int64_t start;
} gburst;

typedef struct gen {
    GRand *r;
    trace_gen_options o;
    double f; /* count scale = scale * days / 16 */
    int64_t t0, t_end, t_dump;
    GArray *jobs;   /* gjob */
    GArray *bursts; /* gburst */
    GPtrArray *topo_rows;
    GPtrArray *outside_hosts;
} gen;

static inline gjob *J(gen *G, size_t i) { return &g_array_index(G->jobs, gjob, i); }
static inline gburst *B(gen *G, size_t i) { return &g_array_index(G->bursts, gburst, i); }

/* Fisher-Yates shuffle of a[0..n-1] from r. */
void gen__shuffle_int(GRand *r, int *a, size_t n);
/* SHA-256 hex of "<kind>:<seed>:<n>" (transfer full). */
char *gen__hash_hex(const char *kind, guint32 seed, guint64 n);
/* The trace name of model index m (static). */
const char *gen__model_name(int m);
/* Worker rows of a job (pods, plus its aimaster). */
int gen__job_rows(const gjob *j);
/* The job population in G->jobs and G->bursts: bursts, GPU or CPU, GPU
 * counts, pod shapes, statuses, times, lifecycle and pods, drawn in that
 * order (gen.c). */
void gen__populate(gen *G);
/* Whole jobs outside topo.csv, calibrated to 86.3% of rows in topo.csv. */
void gen__choose_outside(gen *G);
/* The allocator (gen_placer.c): an occupancy map of topo_rows' hosts (8
 * GPUs each, all free; the rows are borrowed and must outlive it), with the
 * tenant's partition of whole racks holding pool_gpus GPUs. */
typedef struct gen_placer gen_placer;
gen_placer *gen__placer_new(GPtrArray *topo_rows, double pool_gpus);
void gen__placer_free(gen_placer *P);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gen_placer, gen__placer_free)
/* Place pods of per GPUs by o's rules (topo_aware, spill_whole_racks,
 * small_most_allocated); out[k] = host index (topo row).  False, nothing
 * used, if they do not fit.  r: draws for !o->topo_aware only. */
bool gen__placer_place(gen_placer *P, GRand *r, const trace_gen_options *o, int pods, int per,
                       int *out);
/* g more GPUs in use on host h (negative: released). */
void gen__placer_use(gen_placer *P, int h, int g);
/* The ip of host h (borrowed from the topo row). */
const char *gen__placer_ip(const gen_placer *P, int h);
/* Time-ordered placement of in-topo GPU jobs. */
void gen__place_jobs(gen *G);
/* Replace field c of row r by v (taking v). */
void gen__set(trace__row *r, int c, char *v);
/* job.csv and worker.csv rows into t. */
void gen__make_rows(gen *G, trace__tables *t);
/* The synthetic 847-host topology (seed-independent) into rows. */
void gen__synth_topology(GPtrArray *rows);

#endif /* CCSIM_TRACES_GEN_PRIVATE_H */
