/* fuzz_sweep.c - fuzz harness: sweep files (sweep_parse: base, grid, zip,
 * expansion into runs).  Not here: running them.
 *
 * A base scenario named by file is looked up in a folder that does not
 * exist, so only inline bases get past the first check.
 */
#include "fuzz.h"

#include "base/ccs.h"
#include "sim/experiments/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *err = NULL;
    sweep *sw = sweep_parse((const char *)data, size, "sw.json", "/nonexistent-fuzz-dir", &err);
    fuzz_check(sw != NULL, err, "");
    if (sw)
        fuzz_check_strict_json(data, size);
    sweep_free(sw);
    return 0;
}
