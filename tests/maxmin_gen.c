/* maxmin_gen.c - SimGrid maxmin_bench's random systems (maxmin_gen.h).
 * Not here: building them in a solver (bench_net.c, bench_simgrid.cpp).
 *
 * The rule, as SimGrid 3.32's teshsuite/surf/maxmin_bench does it with its
 * default ("xbt") random functions over a 32-bit Mersenne Twister seeded
 * with SEED (GLib's GRand is the same generator with the same seeding):
 *   one uniform_int(0, 999) (printed by the benchmark);
 *   per constraint: bound = uniform_real(0, 10); a concurrency limit drawn
 *     (uniform_real(0, 1) < 0.2: none; else 2^base + 2^uniform_int(0, max-1));
 *   per variable: share = 1 + uniform_int(0, 1); n_elem = 2^base +
 *     2^(8 max / 10) draws, each k = uniform_int(0, n_cnst - 1) until k was
 *     drawn fewer than share times by this variable, then two coefficients
 *     uniform_real(0, 1.5);
 *   one more uniform_int(0, 999) (printed before the solve).
 * Everything is drawn so that the stream (and so every constraint picked)
 * stays the benchmark's, but two things are not used: concurrency limits
 * (ccsim has none, so both solvers get every variable, the benchmark's own
 * "rate_no_limit = 1.0" variant) and the real coefficients (ccsim's are
 * integer multiplicities: each draw counts 1 instead of the sum of its two
 * reals).
 */
#include "maxmin_gen.h"

#include <string.h>

typedef struct shape {
    const char *name;
    int cnst, var, base, max;
} shape;

/* maxmin_bench's TestClasses */
static const shape shapes[] = {
    {"small", 10, 10, 1, 2},
    {"medium", 100, 100, 3, 6},
    {"big", 2000, 2000, 5, 8},
    {"huge", 20000, 20000, 7, 10},
};

/* xbt's uniform_int: rejection to a multiple of the range, then modulo. */
static int uniform_int(GRand *r, int min, int max)
{
    uint64_t range = (uint64_t)((unsigned)max - (unsigned)min) + 1;
    uint64_t limit = UINT32_MAX - UINT32_MAX % range;
    uint64_t v;
    do
        v = g_rand_int(r);
    while (v >= limit);
    return (int)(v % range) + min;
}

/* xbt's uniform_real: a 32-bit draw over 2^32 - 1, the top value redrawn. */
static double uniform_real(GRand *r, double min, double max)
{
    uint32_t v;
    do
        v = g_rand_int(r);
    while (v == UINT32_MAX);
    return min + (max - min) * (double)v / (double)UINT32_MAX;
}

bool maxmin_gen(const char *name, uint32_t seed, maxmin_sys *out)
{
    const shape *sh = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(shapes); i++)
        if (strcmp(shapes[i].name, name) == 0)
            sh = &shapes[i];
    if (sh == NULL)
        return false;
    GRand *r = g_rand_new_with_seed(seed);
    maxmin_sys s = {.shape = sh->name, .n_cnst = sh->cnst, .n_var = sh->var,
                    .n_elem = (1 << sh->base) + (1 << (8 * sh->max / 10))};
    s.check_first = uniform_int(r, 0, 999);
    s.bound = g_new(double, s.n_cnst);
    bool ok = true;
    for (int c = 0; c < s.n_cnst; c++) {
        s.bound[c] = uniform_real(r, 0, 10);
        ok = ok && s.bound[c] > 0;
        if (!(0.2 > uniform_real(r, 0, 1)))
            (void)uniform_int(r, 0, sh->max - 1); /* the limit's exponent */
    }
    s.draw = g_new(uint32_t, (size_t)s.n_var * s.n_elem);
    uint8_t *used = g_new(uint8_t, s.n_cnst);
    for (int v = 0; v < s.n_var; v++) {
        int share = 1 + uniform_int(r, 0, 1);
        memset(used, 0, (size_t)s.n_cnst);
        for (int j = 0; j < s.n_elem; j++) {
            int k;
            do
                k = uniform_int(r, 0, s.n_cnst - 1);
            while (used[k] >= share);
            (void)uniform_real(r, 0, 1.5);
            (void)uniform_real(r, 0, 1.5);
            used[k]++;
            s.draw[(size_t)v * s.n_elem + j] = (uint32_t)k;
        }
    }
    s.check_after = uniform_int(r, 0, 999);
    g_free(used);
    g_rand_free(r);
    if (!ok) {
        maxmin_sys_clear(&s);
        return false;
    }
    *out = s;
    return true;
}

void maxmin_sys_clear(maxmin_sys *s)
{
    g_free(s->bound);
    g_free(s->draw);
    s->bound = NULL;
    s->draw = NULL;
}
