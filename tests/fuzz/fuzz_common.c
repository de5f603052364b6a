/* fuzz_common.c - the contract check and helpers every harness uses
 * (fuzz.h).  Not here: any parser's input.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
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

static bool tree_ok(const cJSON *v)
{
    if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
        return false;
    for (const cJSON *c = v->child; c; c = c->next) {
        if (cJSON_IsObject(v))
            for (const cJSON *d = v->child; d != c; d = d->next)
                if (strcmp(c->string, d->string) == 0)
                    return false;
        if (!tree_ok(c))
            return false;
    }
    return true;
}

void fuzz_check_strict_json(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data, *end = NULL;
    bool ok = size == 0 || memchr(data, '\0', size) == NULL;
    for (size_t i = 0; ok && i + 6 <= size; i++) {
        size_t slashes = 0; /* \u0000 is an escape after an even run of backslashes */
        while (i >= slashes + 1 && text[i - slashes - 1] == '\\')
            slashes++;
        ok = !(memcmp(text + i, "\\u0000", 6) == 0 && slashes % 2 == 0);
    }
    cJSON *root = ok ? cJSON_ParseWithLengthOpts(text, size, &end, false) : NULL;
    ok = root != NULL && tree_ok(root);
    for (const char *p = end; ok && p < text + size; p++)
        ok = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
    cJSON_Delete(root);
    if (!ok) {
        fprintf(stderr, "fuzz: the strict JSON reader accepted what it must refuse\n");
        abort();
    }
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = g_malloc(size + 1);
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}
