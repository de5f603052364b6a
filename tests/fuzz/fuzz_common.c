/* fuzz_common.c - the contract check and helpers every harness uses
 * (fuzz.h).  Not here: any parser's input.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ccs.h"

void fuzz_check(bool ok, GError *err, const char *prefix)
{
    if (ok && err == NULL)
        return;
    bool good = !ok && err != NULL && err->domain == CCS_ERROR &&
                g_str_has_prefix(err->message, prefix);
    if (!good) {
        fprintf(stderr, "fuzz: broken contract (ok=%d, prefix \"%s\"): %s\n", ok, prefix,
                err ? err->message : "(no error)");
        abort();
    }
    g_error_free(err);
}

void fuzz_check_names(bool ok, GError *err, const char *name)
{
    if (!ok && err && err->domain == CCS_ERROR && strstr(err->message, name)) {
        g_error_free(err);
        return;
    }
    fuzz_check(ok, err, name);
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = g_malloc(size + 1);
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}
