/*
 * estimate.c — ts_estimate(function, n, m, k, method, backend, series_count,
 * min_length, step): what a call would cost, before it runs (api_estimate.h).
 */
#include "glue.h"

#include <math.h>

#include "funcapi.h"
#include "utils/builtins.h"

#include "api_estimate.h"

/* A text argument as a C string; NULL when NULL. */
static const char *
text_or_null(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(argno));
}

static void
put_estimate(ReturnSetInfo *rsinfo, const TsEstimate *e)
{
	Datum		values[6];
	bool		nulls[6] = {0};

	values[0] = CStringGetTextDatum(e->function);
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
	TsEstimateArgs a;
	TsExec		ex;
	TsEstimate	e;
	TsStatus	st;

	memset(&a, 0, sizeof(a));
	a.function = tsm_text_arg(fcinfo, 0, "function");
	TSM_REQUIRE_ARG(fcinfo, 1, "n");
	a.n = PG_GETARG_INT64(1);
	a.m = TSM_ARG_INT_OR_NULL(fcinfo, 2);
	a.k = TSM_ARG_INT_OR_NULL(fcinfo, 3);
	a.method = text_or_null(fcinfo, 4);
	a.backend = text_or_null(fcinfo, 5);
	a.series_count = PG_ARGISNULL(6) ? TS_ARG_NULL : PG_GETARG_INT64(6);
	a.min_length = TSM_ARG_INT_OR_NULL(fcinfo, 7);
	a.step = TSM_ARG_INT_OR_NULL(fcinfo, 8);

	memset(&ex, 0, sizeof(ex));
	ex.cpu_threads = tsm_guc_cpu_threads;
	ex.gpu_memory_limit = (int64_t) tsm_guc_gpu_memory_limit << 20;
	ex.backend = tsm_guc_backend;
	InitMaterializedSRF(fcinfo, 0);
	tsm_estimate(&a, &ex, &e, &st);
	tsm_raise_status(&st);
	put_estimate(rsinfo, &e);
	return (Datum) 0;
}
