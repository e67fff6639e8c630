/*
 * api_discords.h — exact time-series discords (issue 3): the C boundary.
 *
 * Distance: z-normalised Euclidean distance between windows of length m,
 * d = sqrt(2m(1 − ρ)) (the square root of PD3's formula (7)), computed
 * directly from the two windows' z-normalised values (the motifs' distance,
 * motifs_detail.h: each window's exact statistics, on the series scaled by
 * a power of two), so the same for x and 2^k·x and unchanged by an offset or
 * by a spike outside the two windows.  Constant windows follow STUMPY: two
 * constant windows are at distance 0, a constant and a non-constant one at
 * sqrt(m).
 *
 * A window's nearest neighbour (NN) is its closest non-self-match j, i.e.
 * |i − j| >= exclusion (the boundary counts: |i − j| == exclusion is a
 * neighbour).  Ties between neighbours: the smaller j.  Windows that have
 * no non-self-match at all (possible in the middle of a series when
 * exclusion > (n − m)/2) have no NN distance and are never reported.
 * Every method ranks by these NN distances, computed the same way
 * (discords_detail.h, "The ranking rule"), so all return the same rows.
 *
 * Two modes, the same for both entry points:
 *  - range mode (min_distance = r, finite, >= 0): every window whose NN
 *    distance is >= r (overlapping windows included: PD3's output), ranked by
 *    distance descending, ties: smaller position first; at most k rows
 *    (k = -1: all).
 *  - top-k mode (min_distance = NaN): the k windows with the largest NN
 *    distance, chosen greedily in rank order, skipping any window that
 *    overlaps (|i − j| < m) one already chosen.  Fewer than k rows when the
 *    series does not hold k such windows.
 */
#ifndef TSM_API_DISCORDS_H
#define TSM_API_DISCORDS_H

#include "tsm_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TsDiscords
{
	int64_t		count;
	int64_t    *pos;			/* 0-based window start; rank = array order; from exec->alloc */
	double	   *dist;			/* NN distance (z-normalised Euclidean) */
	int64_t    *neighbor;		/* 0-based start of the NN */
} TsDiscords;

typedef enum TsDiscordMethod
{
	TS_DISCORDS_AUTO = 0,		/* the matrix profile: measured faster on every series (bench/RESULTS.md) */
	TS_DISCORDS_PD3 = 1,
	TS_DISCORDS_MATRIX_PROFILE = 2
} TsDiscordMethod;

/*
 * ts_discords: the one entry of the SQL function.  Checks the arguments,
 * chooses the method (method: 'auto', 'pd3' or 'matrix_profile', any case, in
 * the order of TsDiscordMethod; ex->used_method says which ran) and the
 * backend, then PD3 or the matrix profile, and the ranking rule.  Arguments
 * and modes as tsm_discords_pd3 below; an empty series (n = 0) has no
 * discords.  normalize = 0: the raw-value distance (api_matrix_profile.h;
 * min_distance in the data's units) by the matrix profile (auto), an error
 * (0A000) with method pd3.  When the method may be the profile, result
 * memory of tsm_matrix_profile's size comes from ex->alloc.
 */
int			tsm_discords(const double *x, int64_t n, int32_t m, int64_t k, double min_distance,
						 int64_t exclusion, const char *method, int32_t normalize, TsExec *ex,
						 TsDiscords *out, TsStatus *st) TSM_NOEXCEPT;

/*
 * Discords by PD3 (Kraeva & Zymbler 2023; DRAG's candidate selection and
 * refinement), on the GPU or on the CPU (threads).
 *   x, n           the series; NaN and ±Infinity are gaps (then the matrix
 *                  profile's method runs: windows with gaps are no candidates)
 *   m              window length, 3 <= m <= n/2
 *   k              rows wanted, >= 1, or TS_ARG_NULL for all (range mode only)
 *   min_distance   r (range mode), or NaN (top-k mode: r is found
 *                  automatically, see discords.cpp)
 *   exclusion      a neighbour j of i needs |i − j| >= exclusion; TS_ARG_NULL
 *                  is the default, m; 1 <= exclusion <= n − m
 * Errors (22023, the messages of args.h and tsm_matrix_profile): m < 3; k < 1;
 * top-k mode with k = TS_ARG_NULL (22004); min_distance < 0 or infinite;
 * exclusion < 1; 2m > n; exclusion > n − m (no window would have a
 * neighbour); NULL pointers with n > 0.
 */
int			tsm_discords_pd3(const double *x, int64_t n, int32_t m, int64_t k,
							 double min_distance, int64_t exclusion, TsExec *ex,
							 TsDiscords *out, TsStatus *st) TSM_NOEXCEPT;

/*
 * Discords from a matrix profile computed elsewhere (ts_matrix_profile_tile's
 * tiles, merged) with the same m and exclusion: the ranking rule over every
 * window, each proposed with its profile neighbour (index[i], -1 where it
 * has none; n - m + 1 entries, checked) — the rows tsm_discords returns with
 * method matrix_profile.  Arguments, modes and errors as tsm_discords_pd3.
 * normalize = 0: a raw-value profile, raw-value distances (22003 where one
 * exceeds the float64 range).
 */
int			tsm_discords_from_profile(const double *x, int64_t n, int32_t m, const int64_t *index,
									  int64_t k, double min_distance, int64_t exclusion,
									  int32_t normalize, TsExec *ex, TsDiscords *out,
									  TsStatus *st) TSM_NOEXCEPT;

/*
 * ts_discords_from_tiles: the discords of x (top-k mode, or range mode with
 * min_distance) from merged tiles of its profile (api_matrix_profile.h:
 * tsm_matrix_profile_from_tiles, whose m, exclusion and normalize they use),
 * as tsm_discords_from_profile gives them; ex->used_backend is the profile's.
 */
int			tsm_discords_from_tiles(const double *x, int64_t n, const int64_t *merged, int64_t words,
									int64_t k, double min_distance, TsExec *ex, TsDiscords *out,
									TsStatus *st) TSM_NOEXCEPT;

/*
 * Discords of a relative to b: the windows of a whose nearest window of b
 * (tsm_matrix_profile_ab, with its exclusion) is farthest, ranked by that
 * profile's distance descending, ties to the smaller position; top-k mode
 * skips a window overlapping (|i − j| < m) one ranked before it, range mode
 * (min_distance not NaN) takes every window at min_distance or more (at most
 * k; k TS_ARG_NULL: all).  neighbor: the window of b.  normalize and gaps:
 * as tsm_matrix_profile_ab (a window of a with a gap is never a discord).
 * Errors: tsm_matrix_profile_ab's, and k and min_distance as tsm_discords'.
 */
int			tsm_discords_ab(const double *a, int64_t na, const double *b, int64_t nb, int32_t m, int64_t k,
							double min_distance, int64_t exclusion, int32_t normalize, TsExec *ex,
							TsDiscords *out, TsStatus *st) TSM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* TSM_API_DISCORDS_H */
