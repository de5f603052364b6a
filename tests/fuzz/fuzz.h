/* fuzz.h - what the fuzz harnesses share: the libFuzzer entry point each
 * defines, and the contract every parser is held to.  Not here: the
 * corpus replay driver (fuzz_replay.c).
 *
 * Each harness fuzz_NAME.c feeds one parser from memory and checks its
 * contract: the call either succeeds, or fails with a CCS_ERROR whose
 * message starts with the name it was given (the file, spec or option).
 * (Control bytes a message quotes from the input are escaped when it is
 * printed, by cli_error.)  A broken contract aborts, as a
 * crash or a sanitizer report does.  Built with clang's -fsanitize=fuzzer,
 * libFuzzer drives it; otherwise fuzz_replay.c replays a corpus folder.
 */
#ifndef CCSIM_TESTS_FUZZ_FUZZ_H
#define CCSIM_TESTS_FUZZ_FUZZ_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort unless ok (the call succeeded, err NULL) or err is a CCS_ERROR
 * whose message starts with prefix.  Frees err. */
void fuzz_check(bool ok, GError *err, const char *prefix);

/* The same, but err's message need only contain name (anywhere). */
void fuzz_check_names(bool ok, GError *err, const char *name);

/* Abort unless data[0..size) is what the strict JSON reader (base/json.h)
 * may accept, checked independently of it: no NUL byte or \u0000 escape,
 * cJSON parses it with only whitespace after the value, no object repeats
 * a key, no number is infinite.  Harnesses call it when their parser
 * accepted the input. */
void fuzz_check_strict_json(const uint8_t *data, size_t size);

/* data[0..size) as a NUL-terminated string (transfer full). */
char *fuzz_text(const uint8_t *data, size_t size);

#endif /* CCSIM_TESTS_FUZZ_FUZZ_H */
