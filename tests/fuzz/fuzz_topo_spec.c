/* fuzz_topo_spec.c - fuzz harness: topology spec strings (topo_build,
 * "builder:key=value,...").  Not here: topology files (fuzz_topo_file.c).
 *
 * Specs with a size above 32 (any number but speeds, latencies and
 * ratios), or whose sizes multiply past 4096, are skipped: a spec within
 * the limits can still ask for a million hosts (fat-tree:k=58 is 48,778;
 * torus:x=2,y=24444 with z at its default, 200,000), which takes seconds
 * and gigabytes to build, and that is not a parser bug.  Specs naming
 * files (file:, lingjun:, path=, hosts_from=) are skipped too.
 */
#include "fuzz.h"

#include <math.h>
#include <string.h>

#include <igraph.h>

#include "base/ccs.h"
#include "topo/topo.h"

/* A number right after "gbps=", "_us=" or "oversub=" is a speed, latency
 * or ratio: it does not size the topology. */
static bool is_rate(const char *start, const char *at)
{
    static const char *const keys[] = {"gbps=", "_us=", "oversub="};
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
        size_t n = strlen(keys[i]);
        if ((size_t)(at - start) >= n && strncmp(at - n, keys[i], n) == 0)
            return true;
    }
    return false;
}

static bool too_big_or_file(const char *spec)
{
    if (strstr(spec, "file") || strstr(spec, "lingjun") || strstr(spec, "path") ||
        strstr(spec, "hosts_from"))
        return true;
    double product = 1;
    for (const char *p = spec; *p;) {
        if (!g_ascii_isdigit(*p)) {
            p++;
            continue;
        }
        bool rate = is_rate(spec, p);
        double n = 0;
        for (; g_ascii_isdigit(*p); p++)
            n = fmin(n * 10 + (*p - '0'), 1e9);
        if (rate)
            continue;
        if (n > 32)
            return true;
        product *= MAX(n, 1);
    }
    return product > 4096;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* as the ccsim binary does (main.c): igraph's default handler aborts */
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
    g_autofree char *spec = fuzz_text(data, size);
    if (strlen(spec) != size || too_big_or_file(spec))
        return 0;
    GError *err = NULL;
    topo *t = topo_build(spec, NULL, &err);
    fuzz_check(t != NULL, err, "topology '");
    topo_free(t);
    return 0;
}
