/* fuzz_lingjun_csv.c - fuzz harness: the Lingjun CSV reader
 * (trace_lingjun_parse), strict and --lenient.  Not here: the older
 * mutation test of the bundled sample (tests/fuzz_lingjun.c).
 *
 * The input is job.csv, worker.csv and topo.csv separated by NUL bytes.
 */
#include "fuzz.h"

#include <stdlib.h>

#include "base/ccs.h"
#include "traces/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *parts[3] = {"", "", ""};
    size_t lens[3] = {0, 0, 0}, k = 0, start = 0;
    for (size_t i = 0; i <= size && k < 3; i++)
        if (i == size || p[i] == '\0') {
            parts[k] = p + start;
            lens[k++] = i - start;
            start = i + 1;
        }
    for (int lenient = 0; lenient < 2; lenient++) {
        trace_lingjun_options o = trace_lingjun_options_default();
        o.lenient = lenient;
        GError *err = NULL;
        trace *t = trace_lingjun_parse(parts[0], lens[0], parts[1], lens[1], parts[2], lens[2],
                                       "fz", &o, &err);
        fuzz_check(t != NULL, err, "fz/");
        const trace_stats *s = t ? trace_get_stats(t) : NULL;
        if (s && s->jobs_loaded + s->skipped_never_ran + s->skipped_running +
                         s->skipped_cpu_only + s->skipped_bad_time + s->skipped_malformed +
                         s->skipped_outside_topo + s->skipped_duplicate !=
                     s->job_rows)
            abort(); /* every job row is loaded or counted once */
        trace_free(t);
    }
    return 0;
}
