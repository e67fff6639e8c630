/*
 * outliers.c — ts_outliers(series, k_sigma, method), array and query forms,
 * with times or without.
 */
#include "glue.h"

#include "funcapi.h"
#include "utils/builtins.h"

static Datum
outliers_common(FunctionCallInfo fcinfo, bool query, bool timed)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsmSeries	s;
	TsmTimes	times;
	double		k;
	const char *method;
	TsExec		ex;
	TsOutliers	out;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	TSM_REQUIRE_ARG(fcinfo, TSM_AT(timed, 1), "k_sigma");
	k = PG_GETARG_FLOAT8(TSM_AT(timed, 1));
	method = tsm_text_arg(fcinfo, TSM_AT(timed, 2), "method");
	tsm_form_series_gaps(fcinfo, query, timed, tsm_gaps_arg(fcinfo, TSM_AT(timed, 3)), &s, &times);

	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&ex, "ts_outliers");
	tsm_outliers(s.x, s.n, k, method, &ex, &out, &st);
	tsm_exec_finish("ts_outliers", &ex, s.n, &st, t0);

	for (int64 j = 0; j < out.count; j++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = Int64GetDatum(out.pos[j] + 1);
		values[1] = Float8GetDatum(out.value[j]);
		values[2] = Float8GetDatum(out.score[j]);
		if (timed)
			values[3] = tsm_time_at(&times, out.pos[j]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

TSM_SERIES_FORMS(ts_outliers, outliers_common)
