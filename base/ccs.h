/* ccs.h - what every module shares: the error domain, unit conversions,
 * float comparison, the version.  Not here: anything with state.
 *
 * Units: time in seconds (_s), sizes in bytes (_bytes), rates in bytes per
 * second (_Bps).  Conversions from the units people write (Gbps, GB/s, us)
 * happen only here, so a factor of 8 or 1e3 is never spelled twice.
 */
#ifndef CCSIM_BASE_CCS_H
#define CCSIM_BASE_CCS_H

#include <cjson/cJSON.h>
#include <glib.h>
#include <math.h>
#include <stdbool.h>

#define CCS_ERROR ccs_error_quark()
GQuark ccs_error_quark(void);

typedef enum ccs_error_code {
    CCS_ERROR_INVALID,     /* a bad value (zero capacity, NaN, unknown name) */
    CCS_ERROR_PARSE,       /* bad file syntax */
    CCS_ERROR_IO,          /* a file could not be read or written */
    CCS_ERROR_UNSUPPORTED, /* a valid request this build cannot honour */
    CCS_ERROR_INTERNAL,    /* a library call failed */
} ccs_error_code;

/* Version string and git commit this binary was built from (static). */
const char *ccs_version(void);
const char *ccs_git_commit(void);

/* Link speed in gigabits per second -> bytes per second. */
static inline double ccs_gbps_to_Bps(double gbps) { return gbps * 1e9 / 8.0; }
/* Bytes per second -> gigabits per second. */
static inline double ccs_Bps_to_gbps(double Bps) { return Bps * 8.0 / 1e9; }
/* Gigabytes per second (NVLink datasheets) -> bytes per second. */
static inline double ccs_GBps_to_Bps(double GBps) { return GBps * 1e9; }
/* Microseconds / milliseconds -> seconds. */
static inline double ccs_us_to_s(double us) { return us * 1e-6; }
static inline double ccs_ms_to_s(double ms) { return ms * 1e-3; }

/* True when a and b agree within a relative tolerance rel_eps (and an
 * absolute floor of rel_eps for values near zero).  The engine holds its
 * own tolerance; this only does the arithmetic. */
static inline bool ccs_double_equals(double a, double b, double rel_eps)
{
    double scale = fmax(1.0, fmax(fabs(a), fabs(b)));
    return fabs(a - b) <= rel_eps * scale;
}

/* True for a finite number strictly greater than zero. */
static inline bool ccs_positive_finite(double x) { return isfinite(x) && x > 0.0; }

/* g_autoptr(cJSON) frees with cJSON_Delete. */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cJSON, cJSON_Delete)

#endif /* CCSIM_BASE_CCS_H */
