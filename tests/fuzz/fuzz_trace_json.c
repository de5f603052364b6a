/* fuzz_trace_json.c - fuzz harness: JSON traces ({"jobs": [...]},
 * trace_json_parse).  Not here: Lingjun CSV (fuzz_lingjun_csv.c).
 */
#include "fuzz.h"

#include <stdlib.h>

#include "base/ccs.h"
#include "traces/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *err = NULL;
    trace *t = trace_json_parse((const char *)data, size, "t.json", &err);
    fuzz_check(t != NULL, err, "t.json");
    if (t)
        fuzz_check_strict_json(data, size);
    for (size_t i = 0; t && i < trace_job_count(t); i++) {
        const trace_job *j = trace_job_get(t, i);
        if (j->gpus < 1 || !(j->end_s >= j->start_s))
            abort(); /* a loaded job breaks the trace's invariants */
    }
    trace_free(t);
    return 0;
}
