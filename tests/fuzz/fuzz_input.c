/* fuzz_input.c - fuzz harness: the input reader's gzip and text checks
 * (ccs_input_decode_max with a 1 MiB limit).  Not here: parsing.
 */
#include "fuzz.h"

#include <stdlib.h>

#include "base/ccs.h"
#include "base/input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autoptr(GBytes) in = g_bytes_new(data, size);
    GError *err = NULL;
    GBytes *out = ccs_input_decode_max(in, "f.gz", true, (size_t)1 << 20, &err);
    fuzz_check(out != NULL, err, "f.gz");
    if (out && g_bytes_get_size(out) > ((size_t)1 << 20))
        abort(); /* the limit held */
    if (out)
        g_bytes_unref(out);
    return 0;
}
