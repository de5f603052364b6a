/* fuzz_scenario.c - fuzz harness: the scenario file reader
 * (config_load_buffer).  Not here: what a scenario names (other harnesses).
 */
#include "fuzz.h"

#include "base/ccs.h"
#include "sim/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autoptr(config) c = config_new();
    GError *err = NULL;
    bool ok = config_load_buffer(c, (const char *)data, size, "s.json", &err);
    fuzz_check(ok, err, "s.json");
    if (ok)
        fuzz_check_strict_json(data, size);
    if (ok) {
        cJSON *j = config_to_json(c); /* what run.json would record */
        cJSON_Delete(j);
    }
    return 0;
}
