/*
 * api_plot.h — a picture of a series as an SVG image (text), with its
 * discords, motifs, matches and outliers marked and, optionally, its matrix
 * profile beneath (plot.cpp; tested in test/unit/test_plot.cpp).
 *
 * Geometry (the SVG's root carries it as data-* attributes, for checks):
 *  - The series panel spans x from plot_left to plot_left + plot_width
 *    (data-plot-left, data-plot-width); value i (0-based) of n
 *    (data-n) covers [plot_left + i·plot_width/n, plot_left + (i+1)·plot_width/n)
 *    and is drawn at the middle of that interval.  The profile panel beneath
 *    shares the x axis: profile entry i (the window starting at value i) is
 *    drawn at the x of value i.
 *  - Long series are downsampled per pixel column: the first, smallest,
 *    largest and last value of each column, in series order, so every
 *    column's extremes (and the series' own) are drawn.  Non-finite values
 *    (and profile entries) are gaps in the line.
 *  - Every mark has a bar in a strip above the series panel (class
 *    "markbar KIND", data-pos/data-length its 0-based position and length)
 *    spanning its values' interval, at least 2 pixels wide, TSM_PLOT_BAR_H
 *    pixels high with its middle row at data-bar-y, in the kind's colour
 *    (opaque, crisp edges); a label (D1, M1, S1: kind and rank) above it; a
 *    band of that colour behind the marked values in the panels; the marked
 *    values drawn again in the colour.  Outliers: a dot on the value.
 */
#ifndef TSM_API_PLOT_H
#define TSM_API_PLOT_H

#include "tsm_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TsMarkKind
{
	TS_MARK_DISCORD = 0,		/* colour #d62728, label D<rank> */
	TS_MARK_MOTIF = 1,			/* #2ca02c, M<rank> (both members of a pair) */
	TS_MARK_MATCH = 2,			/* #ff7f0e, S<rank> */
	TS_MARK_OUTLIER = 3			/* #9467bd, a dot, no label */
} TsMarkKind;

#define TSM_PLOT_BAR_H 6

typedef struct TsPlotMark
{
	int32_t		kind;			/* TsMarkKind */
	int32_t		rank;			/* in the label; 0: no label */
	int64_t		pos;			/* 0-based first value */
	int64_t		length;			/* values marked (1 for an outlier) */
} TsPlotMark;

typedef struct TsPlotOptions
{
	int32_t		width;			/* pixels of the image, 200 .. 20000 */
	int32_t		height;			/* 100 .. 20000 */
	const char *title;			/* NULL or "": none (any text; escaped) */
	const double *profile;		/* NULL: no profile panel; else profile_n <= n entries, */
	int64_t		profile_n;		/* non-finite where a window has no distance */
	/* x-axis labels: n_ticks positions (0-based) and their texts; 0 ticks:
	 * the 1-based positions tsm_plot_ticks chooses */
	int32_t		n_ticks;
	const int64_t *tick_pos;
	const char *const *tick_label;
} TsPlotOptions;

/*
 * The SVG of x[0..n) with the marks, as a NUL-terminated string from
 * exec->alloc (*svg; its length in *len).  Errors (22023): a size out of
 * range, a mark outside the series, an unknown kind, a length < 1, a
 * profile longer than the series.
 */
int			tsm_plot_svg(const double *x, int64_t n, const TsPlotMark *marks, int64_t n_marks,
						 const TsPlotOptions *opt, TsExec *exec, char **svg, int64_t *len,
						 TsStatus *st) TSM_NOEXCEPT;

/* Up to max_ticks round 1-based positions (1, 2 or 5 times a power of ten
 * apart) for an axis of n values, as 0-based positions into pos; returns
 * how many. */
int32_t		tsm_plot_ticks(int64_t n, int32_t max_ticks, int64_t *pos) TSM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* TSM_API_PLOT_H */
