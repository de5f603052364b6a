/* bench_simgrid.cpp - SimGrid 3.32's max-min solver (lmm) on the systems of
 * maxmin_gen.h, for the side-by-side in scripts/bench.sh.  Not here: ccsim.
 *
 *   bench_simgrid SHAPE SEED [USAGE_FILE]
 * Prints the same tab-separated line as `bench_net maxmin` (shape,
 * constraints, variables, distinct elements, first solve us, re-solve us,
 * re-solves timed, peak RSS MB); USAGE_FILE gets each constraint's usage
 * (sum of coefficient x value), one per line.
 *
 * Optional: built by scripts/bench.sh with a C++ compiler against Debian's
 * libsimgrid-dev, never by meson.  That package ships no kernel/lmm headers,
 * so the few members used are declared below by hand, exactly as the
 * library exports them (nm -DC libsimgrid.so); all are non-virtual, so only
 * their mangled names matter, not the classes' layout.  The objects are
 * only ever handled through pointers the library returns.  What cannot be
 * reached this way: Variable::get_value() is inline (it reads a field), so
 * the allocation is compared through Constraint::get_usage(), which is
 * exported, instead of per variable.  The system is never freed (its
 * destructor is virtual, which would need the real class): the process
 * ends right after.
 */
#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "maxmin_gen.h"

namespace simgrid::kernel {
namespace resource {
class Action;
class Resource;
} // namespace resource
namespace lmm {
class Constraint {
  public:
    double get_usage() const;
};
class Variable;
class System {
  public:
    static System *build(std::string_view solver_name, bool selective_update);
    Constraint *constraint_new(resource::Resource *id, double bound_value);
    Variable *variable_new(resource::Action *id, double sharing_penalty, double bound,
                           size_t number_of_constraints);
    void expand(Constraint *cnst, Variable *var, double consumption_weight,
                bool force_creation);
    void update_constraint_bound(Constraint *cnst, double bound);
    void solve();
};
} // namespace lmm
} // namespace simgrid::kernel

namespace lmm = simgrid::kernel::lmm;

static double cpu_us()
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double peak_rss_mb()
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: bench_simgrid small|medium|big|huge SEED [USAGE_FILE]\n");
        return 2;
    }
    maxmin_sys sys;
    if (!maxmin_gen(argv[1], (uint32_t)std::strtoul(argv[2], nullptr, 10), &sys)) {
        std::fprintf(stderr, "bench_simgrid: unknown shape %s (or a zero bound drawn)\n",
                     argv[1]);
        return 2;
    }
    /* maxmin_bench's system: no selective update (its variables have no
     * Action), default concurrency limit (none), weight 1, no bound */
    lmm::System *s = lmm::System::build("maxmin", false);
    std::vector<lmm::Constraint *> cnst(sys.n_cnst);
    for (int c = 0; c < sys.n_cnst; c++)
        cnst[c] = s->constraint_new(nullptr, sys.bound[c]);
    size_t elements = 0;
    std::vector<int> seen(sys.n_cnst, -1);
    for (int v = 0; v < sys.n_var; v++) {
        lmm::Variable *var = s->variable_new(nullptr, 1.0, -1.0, sys.n_elem);
        for (int j = 0; j < sys.n_elem; j++) {
            uint32_t k = sys.draw[(size_t)v * sys.n_elem + j];
            if (seen[k] != v) {
                seen[k] = v;
                elements++;
            }
            /* a repeated constraint adds to its element's coefficient */
            s->expand(cnst[k], var, 1.0, false);
        }
    }
    double t0 = cpu_us();
    s->solve();
    double first_us = cpu_us() - t0;
    /* solve() does nothing unless the system was modified: re-setting a
     * bound marks it so, and without selective update every solve is a full
     * one (the same work as ccsim's net_resolve_all) */
    int reps = 0;
    double el = 0;
    t0 = cpu_us();
    for (int batch = 1; reps < 3 || el < 1e6; batch *= 2) { /* as bench_net */
        for (int i = 0; i < batch; i++) {
            s->update_constraint_bound(cnst[0], sys.bound[0]);
            s->solve();
        }
        reps += batch;
        el = cpu_us() - t0;
    }
    std::printf("%s\t%d\t%d\t%zu\t%.2f\t%.3f\t%d\t%.1f\n", sys.shape, sys.n_cnst, sys.n_var,
                elements, first_us, el / reps, reps, peak_rss_mb());
    int rc = 0;
    if (argc == 4) {
        FILE *f = std::fopen(argv[3], "w");
        if (f == nullptr) {
            std::perror(argv[3]);
            return 1;
        }
        for (int c = 0; c < sys.n_cnst; c++)
            std::fprintf(f, "%.17g\n", cnst[c]->get_usage());
        rc = std::fclose(f) == 0 ? 0 : 1;
    }
    maxmin_sys_clear(&sys);
    return rc;
}
