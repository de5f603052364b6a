/* bench_net.c - engine microbenchmarks (scripts/bench.sh runs them).
 * Not here: any test; timings depend on the machine.
 *
 *   bench_net maxmin SHAPE SEED [USAGE_FILE]
 *       SimGrid maxmin_bench shapes (small 10x10, medium 100x100,
 *       big 2000x2000, huge 20000x20000 constraints x variables), drawn as
 *       maxmin_gen.h says (the same system tests/bench_simgrid.cpp gives
 *       SimGrid).  Times the first solve and net_resolve_all() (a full
 *       from-scratch solve); prints one tab-separated line: shape,
 *       constraints, variables, distinct elements, first solve us,
 *       re-solve us, re-solves timed, peak RSS MB.  USAGE_FILE gets each
 *       link's load, one per line.
 *   bench_net churn MEMBERS EVENTS SEED
 *       k=16 fat-tree (1,024 hosts, 100 Gb/s, 1 us links, random ECMP
 *       paths), 64 ring transfers of MEMBERS random hosts over 4 priority
 *       levels; each completion starts a new random ring; EVENTS
 *       completions are timed.
 * churn prints one markdown table row; peak RSS from getrusage().
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/ccs.h"
#include "sim/net.h"
#include "maxmin_gen.h"

/* CPU time of this process in microseconds: less disturbed than wall time
 * when other jobs share the machine. */
static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0; /* ru_maxrss is in KiB on Linux */
}

/* ---- maxmin_bench shapes ---- */

/* Write each link's load after the last solve, one per line, to path
 * (bench.sh compares them with SimGrid's constraint usages). */
static int write_usage(net *n, int n_cnst, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    for (int c = 0; c < n_cnst; c++) {
        net_link_stats st;
        if (!net_link_stats_get(n, (net_link_id)c, &st, NULL))
            return 1;
        fprintf(f, "%.17g\n", st.load_Bps);
    }
    return fclose(f) == 0 ? 0 : 1;
}

static int bench_maxmin(const char *name, guint32 seed, const char *usage_path)
{
    maxmin_sys sys;
    if (!maxmin_gen(name, seed, &sys)) {
        fprintf(stderr, "bench_net: unknown shape %s (or a zero bound drawn)\n", name);
        return 2;
    }
    g_autoptr(evq) q = evq_new();
    net_options o = net_options_default();
    o.prio_levels = 1;
    g_autoptr(net) n = net_new(&o, q, NULL);
    for (int c = 0; c < sys.n_cnst; c++)
        net_link_add(n, sys.bound[c], 0, NULL, NULL);
    size_t elements = 0;
    GHashTable *distinct = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (int v = 0; v < sys.n_var; v++) {
        const uint32_t *links = &sys.draw[(size_t)v * sys.n_elem];
        g_hash_table_remove_all(distinct);
        for (int d = 0; d < sys.n_elem; d++)
            g_hash_table_add(distinct, GUINT_TO_POINTER(links[d] + 1));
        elements += g_hash_table_size(distinct);
        /* net_link_id is uint32_t: the draws are the links */
        net_transfer_spec sp = {.size_bytes = 1e30, .links = links,
                                .n_links = (size_t)sys.n_elem, .weight = 1};
        if (!net_transfer_start(n, &sp, NULL, NULL))
            return 1;
    }
    g_hash_table_destroy(distinct);

    double t0 = cpu_us();
    net_flush(n); /* first solve */
    double first_us = cpu_us() - t0;
    /* repeat full solves for about 1 s of CPU (at least 3), in doubling
     * batches: reading the CPU clock is a system call, dearer than a small
     * solve */
    int reps = 0;
    t0 = cpu_us();
    double el = 0;
    for (int batch = 1; reps < 3 || el < 1e6; batch *= 2) {
        for (int i = 0; i < batch; i++)
            net_resolve_all(n);
        reps += batch;
        el = cpu_us() - t0;
    }
    printf("%s\t%d\t%d\t%zu\t%.2f\t%.3f\t%d\t%.1f\n", sys.shape, sys.n_cnst, sys.n_var,
           elements, first_us, el / reps, reps, peak_rss_mb());
    int rc = usage_path ? write_usage(n, sys.n_cnst, usage_path) : 0;
    maxmin_sys_clear(&sys);
    return rc;
}

/* ---- churn on a k=16 fat-tree ---- */

enum { K_FT = 16, HALF = K_FT / 2, HOSTS = K_FT * K_FT * K_FT / 4, LEVELS = 4, RINGS = 64 };

typedef struct fattree {
    /* directed link ids */
    net_link_id host_up[HOSTS], host_down[HOSTS];           /* host <-> edge */
    net_link_id ea_up[K_FT][HALF][HALF], ea_down[K_FT][HALF][HALF]; /* edge e <-> agg a */
    net_link_id ac_up[K_FT][HALF][HALF], ac_down[K_FT][HALF][HALF]; /* agg a <-> core (a, c) */
} fattree;

static void fattree_build(net *n, fattree *ft)
{
    double cap = ccs_gbps_to_Bps(100), lat = ccs_us_to_s(1);
    for (int h = 0; h < HOSTS; h++) {
        net_link_add(n, cap, lat, &ft->host_up[h], NULL);
        net_link_add(n, cap, lat, &ft->host_down[h], NULL);
    }
    for (int p = 0; p < K_FT; p++)
        for (int i = 0; i < HALF; i++)
            for (int j = 0; j < HALF; j++) {
                net_link_add(n, cap, lat, &ft->ea_up[p][i][j], NULL);
                net_link_add(n, cap, lat, &ft->ea_down[p][i][j], NULL);
                net_link_add(n, cap, lat, &ft->ac_up[p][i][j], NULL);
                net_link_add(n, cap, lat, &ft->ac_down[p][i][j], NULL);
            }
}

/* Append the links of one random ECMP path a -> b to out; returns count. */
static size_t fattree_path(const fattree *ft, GRand *rng, int a, int b, net_link_id *out)
{
    int pa = a / (HALF * HALF), ea = (a / HALF) % HALF;
    int pb = b / (HALF * HALF), eb = (b / HALF) % HALF;
    size_t k = 0;
    out[k++] = ft->host_up[a];
    if (pa == pb && ea == eb) {
        out[k++] = ft->host_down[b];
        return k;
    }
    int agg = g_rand_int_range(rng, 0, HALF);
    out[k++] = ft->ea_up[pa][ea][agg];
    if (pa != pb) {
        int core = g_rand_int_range(rng, 0, HALF);
        out[k++] = ft->ac_up[pa][agg][core];
        out[k++] = ft->ac_down[pb][agg][core];
    }
    out[k++] = ft->ea_down[pb][eb][agg];
    out[k++] = ft->host_down[b];
    return k;
}

typedef struct churn {
    net *n;
    GRand *rng;
    fattree *ft;
    int members;
    net_link_id *buf;
    int *hosts;
    uint64_t done;
    uint64_t target;
} churn;

static void churn_done(void *user, net_transfer_id id, double now_s);

static void churn_start(churn *c)
{
    /* members distinct random hosts (partial Fisher-Yates) */
    for (int i = 0; i < c->members; i++) {
        int j = g_rand_int_range(c->rng, i, HOSTS);
        int t = c->hosts[i];
        c->hosts[i] = c->hosts[j];
        c->hosts[j] = t;
    }
    size_t n_links = 0;
    for (int i = 0; i < c->members; i++)
        n_links += fattree_path(c->ft, c->rng, c->hosts[i], c->hosts[(i + 1) % c->members],
                                c->buf + n_links);
    net_transfer_spec sp = {.size_bytes = g_rand_double_range(c->rng, 1e6, 1e8),
                            .links = c->buf,
                            .n_links = n_links,
                            .prio = g_rand_int_range(c->rng, 0, LEVELS),
                            .weight = 1,
                            .startup_s = 0,
                            .tag = 1,
                            .on_done = churn_done,
                            .user = c};
    GError *err = NULL;
    if (!net_transfer_start(c->n, &sp, NULL, &err)) {
        fprintf(stderr, "bench_net: %s\n", err->message);
        exit(1);
    }
}

static void churn_done(void *user, net_transfer_id id, double now_s)
{
    (void)id;
    (void)now_s;
    churn *c = user;
    c->done++;
    churn_start(c);
}

static int bench_churn(int members, uint64_t events, guint32 seed)
{
    g_autoptr(GRand) rng = g_rand_new_with_seed(seed);
    g_autoptr(evq) q = evq_new();
    net_options o = net_options_default();
    o.prio_levels = LEVELS;
    g_autoptr(net) n = net_new(&o, q, NULL);
    fattree *ft = g_new(fattree, 1);
    fattree_build(n, ft);
    churn c = {n, rng, ft, members, g_new(net_link_id, (size_t)members * 6), g_new(int, HOSTS), 0,
               events};
    for (int h = 0; h < HOSTS; h++)
        c.hosts[h] = h;
    for (int r = 0; r < RINGS; r++)
        churn_start(&c);
    net_flush(n);
    net_stats before;
    net_stats_get(n, &before);
    double t0 = cpu_us();
    while (c.done < events && evq_step(q))
        ;
    double secs = (cpu_us() - t0) / 1e6;
    net_stats st;
    net_stats_get(n, &st);
    double solves = (double)(st.solves - before.solves);
    double comp = solves > 0 ? (double)(st.resolved_transfers - before.resolved_transfers) / solves
                             : 0;
    printf("| %d | %d | %" G_GUINT64_FORMAT " | %.2f | %.0f | %.1f | %.0f | %.2f | %.1f |\n",
           members, RINGS, c.done, secs, (double)c.done / secs, comp, solves,
           (double)(st.rate_changes - before.rate_changes) / (double)c.done, peak_rss_mb());
    g_free(c.buf);
    g_free(c.hosts);
    g_free(ft);
    return 0;
}

int main(int argc, char **argv)
{
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "maxmin") == 0)
        return bench_maxmin(argv[2], (guint32)strtoul(argv[3], NULL, 10),
                            argc == 5 ? argv[4] : NULL);
    if (argc == 5 && strcmp(argv[1], "churn") == 0)
        return bench_churn(atoi(argv[2]), strtoull(argv[3], NULL, 10),
                           (guint32)strtoul(argv[4], NULL, 10));
    fprintf(stderr, "usage: bench_net maxmin small|medium|big|huge SEED [USAGE_FILE]\n"
                    "       bench_net churn MEMBERS EVENTS SEED\n");
    return 2;
}
