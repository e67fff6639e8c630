/*
 * api_matrix_profile.h — the exact self-join matrix profile (C entry point).
 *
 * For every window i = 0 .. n−m of x (length m), the z-normalised Euclidean
 * distance to its nearest neighbour j with |i − j| ≥ exclusion, and that j.
 * Ties: the smallest j.  A window with no admissible neighbour: +inf, −1.
 * Constant windows (STUMPY's rule): two constant windows are at distance 0,
 * a constant and a non-constant window at sqrt(m).
 * The SQL default exclusion is ceil(m/4) + 1 (= STUMPY's excl_zone ceil(m/4),
 * i.e. |i − j| > ceil(m/4)); the glue passes it, the core has no default.
 */
#ifndef TSM_API_MATRIX_PROFILE_H
#define TSM_API_MATRIX_PROFILE_H

#include "tsm_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TsProfile
{
	int64_t		count;			/* n − m + 1 windows */
	double	   *dist;			/* count entries, by window position; from exec->alloc */
	int64_t    *index;			/* count entries, 0-based neighbour, −1 when none */
} TsProfile;

/*
 * Errors (SQLSTATE 22023): x NULL with n > 0, n < 0, a NaN or infinite value,
 * m < 3, m > n/2 (n too short for m), exclusion < 1, exclusion > n − m
 * (no window would have a neighbour).
 */
int			tsm_matrix_profile(const double *x, int64_t n, int32_t m, int64_t exclusion,
							   TsExec *exec, TsProfile *out, TsStatus *st) TSM_NOEXCEPT;

/*
 * About how long tsm_matrix_profile would take (ms) for n values and window m
 * with this exec's backend and threads, from the rates bench/RESULTS.md
 * measured (GPU: 1e12 pairs/s; CPU: 4e8 pairs/s per thread; n²/2 pairs).
 * Automatic method choices use it as the time budget of the alternative.
 */
double		tsm_matrix_profile_estimate_ms(int64_t n, int32_t m, const TsExec *exec) TSM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* TSM_API_MATRIX_PROFILE_H */
