/*
 * estimate.c — ts_estimate(function, n, m, k, method, backend, series_count,
 * min_length, step): what a call would cost, before it runs (api_estimate.h).
 */
#include "glue.h"

#include <math.h>

#include "funcapi.h"
#include "utils/builtins.h"

#include "api_discords.h"
#include "api_estimate.h"
#include "api_motifs.h"

typedef struct EstimatedFunction
{
	const char *name;
	int			work;			/* TsWork */
	int			tree;
	const char *const *methods; /* in the order of the function's method enum; NULL: none */
	int			n_methods;
} EstimatedFunction;

/* in the order of TsDiscordMethod, TsMotifMethod, TsOutlierMethod */
static const char *const discord_methods[] = {"auto", "pd3", "matrix_profile"};
static const char *const motif_methods[] = {"auto", "mk", "matrix_profile"};
static const char *const outlier_methods[] = {"sigma", "mad"};

static const EstimatedFunction functions[] = {
	{"ts_outliers", TS_WORK_OUTLIERS, 0, outlier_methods, lengthof(outlier_methods)},
	{"ts_matrix_profile", TS_WORK_MATRIX_PROFILE, 0, NULL, 0},
	{"ts_matrix_profile_arrays", TS_WORK_MATRIX_PROFILE, 0, NULL, 0},
	{"ts_discords", TS_WORK_DISCORDS, 0, discord_methods, lengthof(discord_methods)},
	{"ts_motifs", TS_WORK_MOTIFS, 0, motif_methods, lengthof(motif_methods)},
	{"ts_match", TS_WORK_MATCH, 0, NULL, 0},
	{"ts_shapelets", TS_WORK_SHAPELETS, 0, NULL, 0},
	{"ts_shapelet_tree", TS_WORK_SHAPELETS, 1, NULL, 0},
};

static const EstimatedFunction *
function_arg(FunctionCallInfo fcinfo)
{
	const char *names[lengthof(functions)];

	for (int i = 0; i < lengthof(functions); i++)
		names[i] = functions[i].name;
	return &functions[tsm_text_choice(fcinfo, 0, "function", names, lengthof(functions))];
}

/* The method argument: one of the function's methods; 'auto' (the default)
 * is the function's own default; functions with one method take only 'auto'. */
static int
method_arg(FunctionCallInfo fcinfo, const EstimatedFunction *f)
{
	static const char *const only_auto[] = {"auto"};

	if (PG_ARGISNULL(4))
		return 0;
	if (f->work == TS_WORK_OUTLIERS && pg_strcasecmp(text_to_cstring(PG_GETARG_TEXT_PP(4)), "auto") == 0)
		return TS_OUTLIERS_SIGMA;
	if (f->methods == NULL)
		return tsm_text_choice(fcinfo, 4, "method", only_auto, 1);
	return tsm_text_choice(fcinfo, 4, "method", f->methods, f->n_methods);
}

/* The backend argument: NULL is tsmine.backend. */
static int
backend_arg(FunctionCallInfo fcinfo, int setting)
{
	static const char *const names[] = {"auto", "cpu", "gpu"};	/* TsBackend order */

	return PG_ARGISNULL(5) ? setting : tsm_text_choice(fcinfo, 5, "backend", names, lengthof(names));
}

static void
shapelet_args(FunctionCallInfo fcinfo, TsEstimateArgs *a)
{
	if (PG_ARGISNULL(6) || PG_ARGISNULL(7))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("series_count and min_length must be given for shapelets"),
				 errhint("n is the length of each training series, series_count how many there are, "
						 "min_length and m the shortest and longest shapelet.")));
	a->series_count = PG_GETARG_INT64(6);
	a->min_length = PG_GETARG_INT32(7);
	TSM_REQUIRE_ARG(fcinfo, 8, "step");
	a->step = PG_GETARG_INT32(8);
}

static void
put_estimate(ReturnSetInfo *rsinfo, const char *function, const TsEstimate *e)
{
	Datum		values[6];
	bool		nulls[6] = {0};

	values[0] = CStringGetTextDatum(function);
	values[1] = e->method ? CStringGetTextDatum(e->method) : (Datum) 0;
	nulls[1] = e->method == NULL;
	values[2] = CStringGetTextDatum(e->backend == TS_BACKEND_GPU ? "gpu" : "cpu");
	values[3] = Float8GetDatum(e->seconds);
	values[4] = Int64GetDatum((int64) ceil(e->device_bytes));
	values[5] = Int64GetDatum((int64) ceil(e->host_bytes));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

PG_FUNCTION_INFO_V1(ts_estimate);
Datum
ts_estimate(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const EstimatedFunction *f = function_arg(fcinfo);
	TsEstimateArgs a;
	TsExec		ex;
	TsEstimate	e;
	TsStatus	st;

	memset(&a, 0, sizeof(a));
	a.work = f->work;
	a.tree = f->tree;
	TSM_REQUIRE_ARG(fcinfo, 1, "n");
	a.n = PG_GETARG_INT64(1);
	a.m = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2);
	if (a.work != TS_WORK_OUTLIERS)
		TSM_REQUIRE_ARG(fcinfo, 2, "m");
	a.k = TSM_ARG_INT_OR_NULL(fcinfo, 3);
	a.method = method_arg(fcinfo, f);
	if (a.work == TS_WORK_SHAPELETS)
		shapelet_args(fcinfo, &a);

	memset(&ex, 0, sizeof(ex));
	ex.cpu_threads = tsm_guc_cpu_threads;
	ex.gpu_memory_limit = (int64_t) tsm_guc_gpu_memory_limit << 20;
	ex.backend = backend_arg(fcinfo, tsm_guc_backend);
	InitMaterializedSRF(fcinfo, 0);
	tsm_estimate(&a, &ex, &e, &st);
	tsm_raise_status(&st);
	put_estimate(rsinfo, f->name, &e);
	return (Datum) 0;
}
