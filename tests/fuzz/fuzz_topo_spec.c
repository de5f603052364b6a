/* fuzz_topo_spec.c - fuzz harness: topology spec strings (topo_build,
 * "builder:key=value,...").  Not here: topology files (fuzz_topo_file.c).
 *
 * Specs whose numbers multiply to more than 4096 are skipped: a spec
 * within the limits can still ask for a million hosts (with the other
 * dimensions at their defaults, torus:x=2,y=24444 is 200,000), which takes
 * seconds and gigabytes to build, and that is not a parser bug.  Specs naming
 * files (file:, lingjun:, path=, hosts_from=) are skipped too.
 */
#include "fuzz.h"

#include <math.h>
#include <string.h>

#include "base/ccs.h"
#include "topo/topo.h"

static bool too_big_or_file(const char *spec)
{
    if (strstr(spec, "file") || strstr(spec, "lingjun") || strstr(spec, "path") ||
        strstr(spec, "hosts_from"))
        return true;
    double product = 1;
    while (*spec) {
        if (!g_ascii_isdigit(*spec)) {
            spec++;
            continue;
        }
        double n = 0;
        for (; g_ascii_isdigit(*spec); spec++)
            n = fmin(n * 10 + (*spec - '0'), 1e9);
        product *= MAX(n, 1);
    }
    return product > 4096;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autofree char *spec = fuzz_text(data, size);
    if (strlen(spec) != size || too_big_or_file(spec))
        return 0;
    GError *err = NULL;
    topo *t = topo_build(spec, NULL, &err);
    fuzz_check(t != NULL, err, "topology '");
    topo_free(t);
    return 0;
}
