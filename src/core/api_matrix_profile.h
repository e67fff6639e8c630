/*
 * api_matrix_profile.h — the exact self-join matrix profile (C entry point).
 *
 * For every window i = 0 .. n−m of x (length m), the z-normalised Euclidean
 * distance to its nearest neighbour j with |i − j| ≥ exclusion, and that j.
 * Ties: the smallest j.  A window with no admissible neighbour: +inf, −1.
 * Constant windows (STUMPY's rule): two constant windows are at distance 0,
 * a constant and a non-constant window at sqrt(m).
 * exclusion TS_ARG_NULL (the SQL argument NULL) is the default, ceil(m/4) + 1
 * (= STUMPY's excl_zone ceil(m/4), i.e. |i − j| > ceil(m/4)).
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
 * ts_matrix_profile's entry.  An empty series (n = 0) has no windows (count
 * 0).  normalize = 0: the Euclidean distance of the raw windows instead
 * (STUMPY's aamp, p = 2), for data whose level matters; constant windows are
 * then ordinary windows.  Distances scale with the data (x·2^k: every
 * distance ·2^k, exactly) and ignore a common offset.  Errors (SQLSTATE
 * 22023, the messages args.h gives for m and exclusion): m < 3, exclusion <
 * 1, then x NULL with n > 0, n < 0, m > n/2 (n too short for m), exclusion >
 * n − m (no window would have a neighbour); 22003 (normalize = 0): a
 * distance beyond the float64 range.  NaN and ±Infinity values are gaps
 * (mp_detail.h), with either distance: a window that holds one has dist +inf
 * and index −1 and is no window's neighbour.
 */
int			tsm_matrix_profile(const double *x, int64_t n, int32_t m, int64_t exclusion,
							   int32_t normalize, TsExec *exec, TsProfile *out,
							   TsStatus *st) TSM_NOEXCEPT;

/*
 * The AB-join (STUMPY's stump(T_A, m, T_B, ignore_trivial=False)): for every
 * window i = 0 .. na−m of a, the z-normalised Euclidean distance to its
 * nearest window j of b (0 .. nb−m) and that j; with exclusion > 0 (a and b
 * parts of one series, positions aligned) only j with |i − j| >= exclusion.
 * normalize = 0: the Euclidean distance of the raw windows instead (STUMPY's
 * aamp(T_A, m, T_B, ignore_trivial=False)), as tsm_matrix_profile's.
 * Ties, constant windows, +inf/−1: as tsm_matrix_profile (out->count = na−m+1).
 * NaN and ±Infinity values are gaps, as in tsm_matrix_profile: a window of a
 * that holds one has dist +inf and index −1, a window of b that holds one is
 * no window's neighbour.  exclusion TS_ARG_NULL: none (0).  Errors (22023):
 * a or b NULL with a length > 0, a negative length, m < 3, m > na or m > nb,
 * exclusion < 0; 22003 (normalize = 0): a distance beyond the float64 range.
 */
int			tsm_matrix_profile_ab(const double *a, int64_t na, const double *b, int64_t nb, int32_t m,
								  int64_t exclusion, int32_t normalize, TsExec *exec, TsProfile *out,
								  TsStatus *st) TSM_NOEXCEPT;

/*
 * About how long tsm_matrix_profile would take (ms) for n values and window m
 * with this exec's backend and threads, from the rates bench/RESULTS.md
 * measured (estimate.cpp: GPU 1e12 pairs/s; CPU 1.6e9 pairs/s on one thread,
 * t^0.6 times that on t threads; n²/2 pairs).
 * Automatic method choices use it as the time budget of the alternative.
 */
double		tsm_matrix_profile_estimate_ms(int64_t n, int32_t m, const TsExec *exec) TSM_NOEXCEPT;

/*
 * One series' profile in tiles, computed apart (other backends, other
 * machines) and merged: the sweep's work (pairs i < j, j − i >= exclusion) is
 * cut into `tiles` parts of about equal size along the recurrence's restarts
 * (src/core/matrix_profile.h: units), so that the merged tiles give the
 * single call's profile bit for bit, on either backend.
 *
 * A partial profile is an array of int64 words: a header (a format word, n,
 * m, exclusion, tiles, a fingerprint of the series' values), a bitmap of the
 * tiles it holds (ceil(tiles / 64) words), then the best candidate of every
 * window as a key (mp_detail.h; 0: none in these tiles).  Keys are >= 0.
 */
typedef struct TsPartialProfile
{
	int64_t		words;
	int64_t    *data;			/* from exec->alloc */
} TsPartialProfile;

/*
 * The partial profile of tile `tile` (1 .. tiles) of x's profile (normalize =
 * 0: of the raw-value profile; its format word says so, and only tiles of the
 * same kind merge).  Errors (22023): those of tsm_matrix_profile; tiles < 1
 * or > 2^20; tile outside 1 .. tiles.
 */
int			tsm_matrix_profile_tile(const double *x, int64_t n, int32_t m, int64_t exclusion,
									int32_t tile, int32_t tiles, int32_t normalize, TsExec *exec,
									TsPartialProfile *out, TsStatus *st) TSM_NOEXCEPT;

/*
 * Merges the partial profile `from` into `into` (the same length): the union
 * of their tiles, the larger key of every window.  Merging a tile twice
 * changes nothing.  Errors (22023): not partial profiles, or partial profiles
 * of another series, window, exclusion or number of tiles.
 */
int			tsm_matrix_profile_merge(int64_t *into, int64_t into_words, const int64_t *from,
									 int64_t from_words, TsStatus *st) TSM_NOEXCEPT;

/*
 * The matrix profile of x from a partial profile that holds every tile of x's
 * profile (as tsm_matrix_profile; *m, *exclusion and *normalize: the ones the
 * tiles were computed with).  22003 as tsm_matrix_profile.  Errors (22023): not a partial profile, one of another
 * series (length or values), tiles missing (the message lists them).
 */
int			tsm_matrix_profile_from_tiles(const double *x, int64_t n, const int64_t *merged,
										  int64_t words, TsExec *exec, TsProfile *out,
										  int32_t *m, int64_t *exclusion, int32_t *normalize,
										  TsStatus *st) TSM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* TSM_API_MATRIX_PROFILE_H */
