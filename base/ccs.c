/* ccs.c - the shared error domain and version strings (base/ccs.h).
 * Not here: units and float comparison (inline in ccs.h).
 */
#include "ccs.h"

#include "ccs-commit.h"
#include "ccs-config.h"

G_DEFINE_QUARK(ccs-error-quark, ccs_error)

const char *ccs_version(void) { return CCS_VERSION; }

const char *ccs_git_commit(void) { return CCS_GIT_COMMIT; }
