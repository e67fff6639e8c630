/*
 * api_motifs.h — exact motifs (MK with reference subsequences, or from a
 * matrix profile) and similarity search (every non-overlapping occurrence of a
 * pattern).  Plain C; the glue includes it, src/core/motifs.cpp implements it.
 *
 * Distance: z-normalised Euclidean distance of windows of length m, computed
 * directly from the z-normalised values (d² = Σδ² − (Σδ)²/m, δ = za − zb), so
 * exactly repeated windows are at distance exactly 0, near-identical ones ~0,
 * and an offset of 1e8 changes nothing; on the series scaled by a power of
 * two (motifs_detail.h), so the same for x and 2^k·x over the float64 range.  Constant windows (every value equal,
 * or a spread that vanishes in rounding): STUMPY's rule, two constant windows
 * are at 0, a constant and a non-constant one at sqrt(m).
 * Positions are 0-based window starts.  NaN and ±Infinity values of the
 * series are gaps: a window that holds one pairs with none and is never a
 * match (motifs_detail.h); a pattern that holds one is an error.
 * Result arrays come from exec->alloc (never freed by the core).
 */
#ifndef TSM_API_MOTIFS_H
#define TSM_API_MOTIFS_H

#include "tsm_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TsMotifs
{
	int64_t		count;			/* pairs found: k, or fewer when no further pair is allowed */
	int64_t    *pos_a;			/* pos_a < pos_b, pos_b - pos_a >= exclusion */
	int64_t    *pos_b;
	double	   *dist;			/* ascending (rank order) */
} TsMotifs;

typedef enum TsMotifMethod
{
	TS_MOTIFS_AUTO = 0,			/* MK within the matrix profile's estimated time, then the profile */
	TS_MOTIFS_MK = 1,
	TS_MOTIFS_MATRIX_PROFILE = 2
} TsMotifMethod;

/*
 * ts_motifs: the one entry of the SQL function.  Checks the arguments,
 * chooses the method (method: 'auto', 'mk' or 'matrix_profile', any case, in
 * the order of TsMotifMethod; ex->used_method says which ran): auto runs MK
 * with a time budget of what the matrix profile would take and, past it, the
 * profile; MK alone where the profile cannot run (2m > n).  Arguments and
 * results as tsm_motifs_mk below; an empty series (n = 0) has no motifs.
 * normalize = 0: the raw-value distance (api_matrix_profile.h) by the matrix
 * profile (auto), an error (0A000) with method mk.
 */
int			tsm_motifs(const double *x, int64_t n, int32_t m, int64_t k, int64_t exclusion,
					   const char *method, int32_t n_references, int32_t normalize, TsExec *ex,
					   TsMotifs *out, TsStatus *st) TSM_NOEXCEPT;

/*
 * The exact top-k motif pairs, greedy: rank 1 is the pair (a, b), a < b,
 * b - a >= exclusion, of smallest distance (ties: smaller a, then smaller b);
 * each later rank is the best such pair whose members are at least m away
 * from every member of every earlier pair (|p - q| >= m: no shared member, no
 * overlap).  MK (Mueen–Keogh) with n_references random reference windows
 * (fixed seed; capped at min(N, 256), N = n - m + 1 windows); a series with
 * gaps (NaN, ±Infinity) takes the matrix profile's method instead (the same pairs).
 * k >= 1 (TS_ARG_NULL: an error, 22004); exclusion TS_ARG_NULL is m.
 * Errors (22023, the messages of args.h for m, k and exclusion): m < 3, k < 1,
 * exclusion < 1, n_references < 1, no two windows exclusion apart in n
 * values.  SQL defaults: k = 1, n_references = 10.
 */
int			tsm_motifs_mk(const double *x, int64_t n, int32_t m, int64_t k, int64_t exclusion,
						  int32_t n_references, TsExec *ex, TsMotifs *out, TsStatus *st) TSM_NOEXCEPT;

/*
 * The same answer from a matrix profile computed with the same exclusion
 * (profile_index[i]: window i's nearest neighbour, -1 where it has none; N
 * entries, checked).  The profile is used only for lower bounds: its
 * neighbour j of window i gives d(i, j), and window i's best pair is at
 * least sqrt(d(i, j)^2 - 2m*tau) (tau: motifs_detail.h,
 * kProfileRhoTolerance); every reported distance is computed exactly here
 * (distance profiles of the windows that are candidates), so the result
 * equals tsm_motifs_mk's.  normalize = 0: a raw-value profile's neighbours
 * and raw-value distances (motif::raw_profile_lower_bound; 22003 where a
 * distance exceeds the float64 range).
 */
int			tsm_motifs_from_profile(const double *x, int64_t n, int32_t m, const int64_t *profile_index,
									int64_t k, int64_t exclusion, int32_t normalize, TsExec *ex,
									TsMotifs *out, TsStatus *st) TSM_NOEXCEPT;

/*
 * ts_motifs_from_tiles: the motifs of x from merged tiles of its profile
 * (api_matrix_profile.h: tsm_matrix_profile_from_tiles, whose m, exclusion and
 * normalize they use), as tsm_motifs_from_profile gives them.
 */
int			tsm_motifs_from_tiles(const double *x, int64_t n, const int64_t *merged, int64_t words,
								  int64_t k, TsExec *ex, TsMotifs *out, TsStatus *st) TSM_NOEXCEPT;

typedef struct TsMatches
{
	int64_t		count;
	int64_t    *pos;			/* window starts, best first */
	double	   *dist;			/* ascending; ties: smaller position first */
} TsMatches;

/*
 * Similarity search: the distance of pattern (length m) to every window of x,
 * then greedily every window best first (ties: smaller position), skipping a
 * window within exclusion (|p - q| < exclusion) of one already chosen; only
 * distances <= max_distance (NaN: no limit); at most k (TS_ARG_NULL: all);
 * exclusion TS_ARG_NULL is m.  An empty series (n = 0) has no matches.
 * normalize = 0: the raw-value distance (api_matrix_profile.h; max_distance
 * in the data's units; 22003 where a distance exceeds the float64 range).
 */
int			tsm_match(const double *x, int64_t n, const double *pattern, int32_t m,
					  double max_distance, int64_t k, int64_t exclusion, int32_t normalize,
					  TsExec *ex, TsMatches *out, TsStatus *st) TSM_NOEXCEPT;

/*
 * Motif pairs between a and b: the pairs (window i of a, its nearest window
 * of b by tsm_matrix_profile_ab, with its exclusion) with the smallest
 * distance, ties to the smaller i; a later pair's window of a does not
 * overlap (|i − i'| < m) an earlier one's.  pos_a: the window of a, pos_b:
 * of b (pos_a < pos_b does not hold here).  At most k (>= 1) pairs.
 * normalize and gaps: as tsm_matrix_profile_ab (a window with a gap is in no
 * pair).  Errors: tsm_matrix_profile_ab's, k < 1 (22023) or TS_ARG_NULL (22004).
 */
int			tsm_motifs_ab(const double *a, int64_t na, const double *b, int64_t nb, int32_t m, int64_t k,
						  int64_t exclusion, int32_t normalize, TsExec *ex, TsMotifs *out,
						  TsStatus *st) TSM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* TSM_API_MOTIFS_H */
