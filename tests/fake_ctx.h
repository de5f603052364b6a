/* fake_ctx.h - a hand-built sched_ctx for scheduler unit tests.
 * Not here: the engine's (sim/sched_ctx.c).
 *
 * The engine implements sched_ctx in libccsim; test executables that link
 * this file instead get these definitions (the linker takes the test's
 * objects before any archive member, and nothing else in these tests
 * pulls the engine's).  Jobs, flows, candidate paths, fixed links and
 * link capacities are filled in by the test; decisions are recorded. */
#ifndef CCSIM_TESTS_FAKE_CTX_H
#define CCSIM_TESTS_FAKE_CTX_H

#include "sim/scheduler.h"

#define FAKE_MAX_PATHS 4
#define FAKE_MAX_HOPS 8
#define FAKE_MAX_FLOWS 4
#define FAKE_MAX_FIXED 4
#define FAKE_MAX_JOBS 8
#define FAKE_MAX_LINKS 16

typedef struct fake_flow {
    double bytes;
    size_t n_paths;
    size_t n_links[FAKE_MAX_PATHS];
    uint32_t links[FAKE_MAX_PATHS][FAKE_MAX_HOPS];
    size_t path; /* chosen */
} fake_flow;

typedef struct fake_job {
    sched_job_info info; /* n_flows, priority, shift_s kept in sync */
    fake_flow flows[FAKE_MAX_FLOWS];
    size_t n_fixed;
    uint32_t fixed_links[FAKE_MAX_FIXED];
    double fixed_bytes[FAKE_MAX_FIXED];
    int class_priority[SCHED_CLASS_COUNT]; /* sched_set_class_priority (0 until set) */
    int shift_calls; /* sched_set_shift calls */
    double last_shift_s;
} fake_job;

struct sched_ctx {
    size_t n_jobs;
    fake_job jobs[FAKE_MAX_JOBS];
    size_t n_links;
    double cap_Bps[FAKE_MAX_LINKS];
    int levels;
    double now_s;
    GRand *rng;
};

/* A zeroed context with n_links links of capacity cap_Bps, K levels. */
void fake_ctx_init(sched_ctx *ctx, size_t n_links, double cap_Bps, int levels);
void fake_ctx_clear(sched_ctx *ctx);
/* Add a job (fields of info as given; n_flows set by fake_job_flow). */
fake_job *fake_ctx_job(sched_ctx *ctx, const char *id, int gpus, double compute_s,
                       double fwd_frac, double isolated_iter_s);
/* Add a flow with one candidate per path given as a -1-terminated list. */
fake_flow *fake_job_flow(fake_job *j, double bytes, const int *path0, const int *path1);
void fake_job_fixed(fake_job *j, uint32_t link, double bytes);

#endif /* CCSIM_TESTS_FAKE_CTX_H */
