/*
 * api_shapelets.h — shapelet discovery, shapelet decision trees (plain and
 * logical) and classification: the plain-C entry points for the glue.
 *
 * Conventions (implemented in shapelets.cpp / kernels/shapelets.cu, tested in
 * test/unit/test_shapelets.cpp):
 *
 *  - Training set: N series (float64, lengths may differ), class ids dense in
 *    0..C-1 (the glue maps text labels to ids sorted by label text).
 *  - Pivot (candidate shapelet): (source series s, start p, length L), every L in
 *    min_length, min_length+step, ... <= max_length (lengths longer than the
 *    longest series are skipped), every p in 0..n_s-L.
 *  - Distance of a window a to a window b of the same length L: formula (2) of
 *    Chang et al. (ICDM 2012): sqrt((1/L) * sum_t (za_t - zb_t)^2) with z the
 *    z-normalised windows (population std) = sqrt(2 (1 - rho)), rho the Pearson
 *    correlation.  Range [0, 2].  The threshold is in these units.
 *  - Distance of a pivot to a series (Definition 1): minimum over all windows of
 *    the series.  Its own source series: exactly 0.  A series shorter than L
 *    (possible with unequal lengths): 2, the largest possible distance.
 *  - Gaps: NaN and ±Infinity values of a series (training, classification,
 *    tsm_shapelet_distance) are gaps (shapelets_detail.h): a window that
 *    holds one is never a pivot and is left out of the minimum; a series with
 *    no window of length L free of gaps is at distance 2 from the pivot, as
 *    one shorter than L (the far side of every split, whose threshold lies
 *    below 2), and tsm_shapelet_distance gives NaN for it (SQL NULL).  A
 *    training series of gaps alone is allowed (it offers no pivot).  The
 *    glue rejects gaps itself under gaps => 'error'.
 *    Distances below 2^-18 are 0 (shapelets_detail.h: the rounding level of
 *    the training's recurrence); identical windows are at exactly 0, and a
 *    window's distance depends on the two windows compared alone (each is
 *    z-normalised in its own frame).
 *  - Flat windows: a window is flat when its values are all equal, or its
 *    population std is <= 2^-52 * |mean| (the variation is below the last
 *    place of its mean).  Flat windows are never candidates.  As targets: flat
 *    vs non-flat counts as rho = 1/2, i.e. distance 1 (STUMPY's rule sqrt(L)
 *    in raw units, divided by sqrt(L)); flat vs flat (only in
 *    tsm_shapelet_distance with a flat shapelet) is 0.
 *  - Quality: information gain (entropy base 2, bits) of the best split of the
 *    order line; the threshold of a split between neighbours a < b is the
 *    midpoint a + (b-a)/2 (so a <= threshold < b); equal distances are never
 *    split; left (near) side: distance <= threshold.  Gains are compared in
 *    fixed point (2^-32 bit·series), so mathematically equal gains are equal.
 *    No split at all (every distance equal): tsm_shapelets returns count 0,
 *    tsm_shapelet_tree a single leaf.
 *  - Ties: larger gain, then larger separation gap (mean distance of the far
 *    side minus mean of the near side, Ye & Keogh), then (within one pivot) the
 *    smaller threshold, then (across pivots) smaller length, smaller source row,
 *    smaller start.
 */
#ifndef TSM_API_SHAPELETS_H
#define TSM_API_SHAPELETS_H

#include "tsm_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TsShapelet
{
	int64_t		source_row;		/* 0-based row of the training input */
	int32_t		start;			/* 0-based */
	int32_t		length;
	double		threshold;		/* best split (near side: distance <= threshold) */
	double		info_gain;		/* bits */
	double		gap;			/* separation gap of that split */
	double	   *values;			/* `length` values copied from the source (exec->alloc) */
} TsShapelet;

typedef struct TsShapelets
{
	int32_t		count;			/* <= k (fewer when fewer pivots have a valid split) */
	TsShapelet *items;			/* best first (exec->alloc) */
} TsShapelets;

/*
 * ts_shapelets' entry: the best k pivots, best first.  series[i] has
 * lengths[i] values, class_ids[i] in 0..n_classes-1.  SQL defaults: step 1,
 * k 1.  Errors (22023): min_length < 2, max_length < min_length, step < 1 (in
 * this order, before the training set's), k < 1 (TS_ARG_NULL: 22004), fewer
 * than two series or classes, a series shorter than min_length (gaps count
 * as values).
 */
int			tsm_shapelets(const double *const *series, const int64_t *lengths,
						  const int32_t *class_ids, int64_t n_series, int32_t n_classes,
						  int32_t min_length, int32_t max_length, int32_t step, int64_t k,
						  TsExec *exec, TsShapelets *out, TsStatus *st) TSM_NOEXCEPT;

/* Definition 1 distance of a shapelet (length L >= 1, finite values) to a
 * series (n >= L; NaN and ±Infinity are gaps): *out is NaN when every window
 * of the series holds a gap. */
int			tsm_shapelet_distance(const double *shapelet, int32_t length,
								  const double *series, int64_t n, double *out,
								  TsStatus *st) TSM_NOEXCEPT;

/* ---- decision trees ---------------------------------------------------- */

typedef enum TsShapeletNodeKind
{
	TS_SHAPELET_LEAF = 0,
	TS_SHAPELET_SPLIT = 1
} TsShapeletNodeKind;

typedef enum TsShapeletOp
{
	TS_SHAPELET_SINGLE = 0,		/* one shapelet */
	TS_SHAPELET_AND = 1,		/* distance = max(d1, d2) */
	TS_SHAPELET_OR = 2			/* distance = min(d1, d2) */
} TsShapeletOp;

typedef struct TsShapeletNode
{
	int32_t		kind;			/* TsShapeletNodeKind */
	int32_t		depth;			/* root 0 */
	int64_t		n_series;		/* training series that reached the node */
	int64_t    *class_counts;	/* n_classes counts of those series (every node) */
	int32_t		class_id;		/* majority class (ties: smallest id); the prediction at a leaf */
	/* splits only (zeros at leaves): */
	int32_t		op;				/* TsShapeletOp */
	int32_t		n_shapelets;	/* 1 (SINGLE) or 2 (AND / OR) */
	int64_t		source_row[2];	/* 0-based training rows */
	int32_t		start[2];
	int32_t		length[2];
	double	   *values[2];		/* length[i] values each */
	double		threshold;		/* on the (combined) distance */
	double		gain;			/* information gain, bits */
	double		gap;
	int32_t		left;			/* node index for distance <= threshold */
	int32_t		right;			/* node index for distance > threshold */
} TsShapeletNode;

typedef struct TsShapeletTree
{
	int32_t		n_nodes;
	int32_t		n_classes;
	TsShapeletNode *nodes;		/* pre-order: root first, children after their parent */
} TsShapeletTree;

/*
 * ts_shapelet_tree's entry, Algorithm 2: recursive; stops at pure nodes, at
 * depth max_depth (TS_ARG_NULL: no limit; 0: a single leaf; < 0: an error),
 * below 2 series, or when no split gains.  The lengths as tsm_shapelets.  With
 * logical = 1 a node holds S1 AND S2 or S1 OR S2 (S1 the best single
 * shapelet, S2 the best partner) when that beats S1's gain.
 */
int			tsm_shapelet_tree(const double *const *series, const int64_t *lengths,
							  const int32_t *class_ids, int64_t n_series, int32_t n_classes,
							  int32_t min_length, int32_t max_length, int32_t step,
							  int64_t max_depth, int32_t logical, TsExec *exec,
							  TsShapeletTree *out, TsStatus *st) TSM_NOEXCEPT;

/*
 * Walks the tree (nodes as produced above, or rebuilt by the glue from jsonb;
 * children must have larger indices than their parent).  *class_out: class id.
 */
int			tsm_shapelet_classify(const TsShapeletNode *nodes, int32_t n_nodes, int32_t n_classes,
								  const double *series, int64_t n, int32_t *class_out,
								  TsStatus *st) TSM_NOEXCEPT;

/* The same for many series at once (multithreaded); class_out[count]. */
int			tsm_shapelet_classify_batch(const TsShapeletNode *nodes, int32_t n_nodes,
										int32_t n_classes, const double *const *series,
										const int64_t *lengths, int64_t count, TsExec *exec,
										int32_t *class_out, TsStatus *st) TSM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* TSM_API_SHAPELETS_H */
