/*
 * api_estimate.h — what a call would cost, before it runs (ts_estimate).
 *
 * The time and memory of one call of a tsmine function, from its sizes, on
 * the backend that tsmine.backend (in ex->backend) would choose, with the
 * method `auto` would choose: the rates are those the automatic choices use
 * (estimate.cpp), measured on an H100 and its host's CPU and on the 2-core
 * build machine (bench/RESULTS.md, "Estimates").  Nothing runs and no GPU
 * slot or context is taken.  The time is that of the work inside tsmine
 * (ts_last_run's total_ms minus input_ms): reading a query's rows and
 * returning result rows come on top.  PD3 and MK prune by the data: their
 * figures are those of random walks.
 */
#ifndef TSM_API_ESTIMATE_H
#define TSM_API_ESTIMATE_H

#include "tsm_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TsEstimateArgs
{
	const char *function;		/* the SQL function: 'ts_outliers', 'ts_matrix_profile', ... (any case) */
	const char *method;			/* its method argument; NULL: 'auto', the function's default */
	const char *backend;		/* 'auto', 'cpu' or 'gpu'; NULL: exec->backend (tsmine.backend) */
	int64_t		n;				/* values of the series (shapelets: of each training series) */
	/* TS_ARG_NULL below: the SQL argument is NULL */
	int64_t		m;				/* window or pattern length (shapelets: max_length); NULL: ts_outliers only */
	int64_t		k;				/* results asked for (discords, motifs); NULL: 1 */
	int64_t		series_count;	/* shapelets: training series (a given INT64_MIN reads as NULL) */
	int64_t		min_length;		/* shapelets */
	int64_t		step;			/* shapelets */
} TsEstimateArgs;

typedef struct TsEstimate
{
	const char *function;		/* the function's name as the list above spells it */
	int			backend;		/* TS_BACKEND_CPU or TS_BACKEND_GPU */
	const char *method;			/* "matrix_profile", "pd3", "mk", "sigma", "mad", or NULL */
	double		seconds;
	double		device_bytes;	/* device memory the call holds at its peak (0 on the CPU) */
	double		host_bytes;		/* host memory it allocates besides its input and result rows */
} TsEstimate;

/*
 * ts_estimate's entry.  Errors: an unknown function, method or backend
 * (22023, listing the names); m NULL (but for ts_outliers), or series_count,
 * min_length or step NULL for shapelets (22004); then (22023) sizes a call
 * would reject (n < 0, m < 3, a window that does not fit, k < 1, shapelet
 * lengths out of order).  backend 'gpu' gives the GPU's figures even where no
 * GPU is usable (the call would raise 55000).
 */
int			tsm_estimate(const TsEstimateArgs *args, const TsExec *exec, TsEstimate *out,
						 TsStatus *st) TSM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* TSM_API_ESTIMATE_H */
