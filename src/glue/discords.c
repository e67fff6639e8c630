/*
 * discords.c — ts_matrix_profile and ts_discords (array and query forms).
 */
#include "glue.h"

#include <math.h>

#include "funcapi.h"
#include "utils/builtins.h"

#include "api_discords.h"
#include "api_matrix_profile.h"

/* ---- ts_matrix_profile ------------------------------------------------- */

static Datum
matrix_profile_common(FunctionCallInfo fcinfo, bool query)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsmSeries	s;
	int			m = tsm_window_arg(fcinfo, 1, "m");
	int64		excl = tsm_exclusion_arg(fcinfo, 2, (m + 3) / 4 + 1);	/* ceil(m/4) + 1 */
	TsExec		ex;
	TsProfile	p;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	tsm_series_arg(fcinfo, 0, query ? "series_sql" : "series", query, &s);
	InitMaterializedSRF(fcinfo, 0);
	if (s.n == 0)
		return (Datum) 0;		/* an empty series has no windows */
	tsm_exec_prepare(&ex, TS_WORK_MATRIX_PROFILE, s.n, m);
	TSM_CALL(ex, st, tsm_matrix_profile(s.x, s.n, m, excl, &ex, &p, &st));
	tsm_exec_finish("ts_matrix_profile", &ex, s.n, &st, t0);

	for (int64 i = 0; i < p.count; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int64GetDatum(i + 1);
		values[1] = Float8GetDatum(p.dist[i]);
		values[2] = Int64GetDatum(p.index[i] + 1);
		if (p.index[i] < 0)
			nulls[1] = nulls[2] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(ts_matrix_profile);
Datum
ts_matrix_profile(PG_FUNCTION_ARGS)
{
	return matrix_profile_common(fcinfo, false);
}

PG_FUNCTION_INFO_V1(ts_matrix_profile_query);
Datum
ts_matrix_profile_query(PG_FUNCTION_ARGS)
{
	return matrix_profile_common(fcinfo, true);
}

/* ---- ts_discords ------------------------------------------------------- */

enum
{
	DISCORDS_AUTO, DISCORDS_PD3, DISCORDS_MATRIX_PROFILE
};
static const char *const discord_methods[] = {"auto", "pd3", "matrix_profile"};

static Datum
discords_common(FunctionCallInfo fcinfo, bool query)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsmSeries	s;
	int			m = tsm_window_arg(fcinfo, 1, "m");
	bool		range = !PG_ARGISNULL(3);
	int64		k = tsm_k_arg(fcinfo, 2, range,
							  "Without min_distance, ts_discords returns the top k discords: give k, or give min_distance for all range discords.");
	double		r = range ? PG_GETARG_FLOAT8(3) : NAN;
	int64		excl = tsm_exclusion_arg(fcinfo, 4, m);
	int			method = tsm_text_choice(fcinfo, 5, "method", discord_methods, lengthof(discord_methods));
	TsExec		ex;
	TsDiscords	d;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	if (range && (!(r >= 0) || isinf(r)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min_distance must be a finite number >= 0, not %g", r),
				 errhint("min_distance is a z-normalised Euclidean distance, between 0 and 2 sqrt(m).")));
	tsm_series_arg(fcinfo, 0, query ? "series_sql" : "series", query, &s);
	InitMaterializedSRF(fcinfo, 0);
	if (s.n == 0)
		return (Datum) 0;		/* an empty series has no windows */

	/* auto: the matrix profile, which bench/discords.sh measured faster than
	 * PD3 for top-k and range discords alike, on the GPU and on the CPU, on
	 * every series tried (bench/RESULTS.md). */
	if (method == DISCORDS_AUTO)
		method = DISCORDS_MATRIX_PROFILE;

	if (method == DISCORDS_PD3)
	{
		tsm_exec_prepare(&ex, TS_WORK_DISCORDS, s.n, m);
		TSM_CALL(ex, st, tsm_discords_pd3(s.x, s.n, m, k, r, excl, &ex, &d, &st));
		tsm_exec_finish("ts_discords (pd3)", &ex, s.n, &st, t0);
	}
	else
	{
		TsProfile	p;
		TsExec		profile_run;

		tsm_profile_first("ts_discords (matrix_profile)", &s, m, excl, &ex, &p, &profile_run, t0);
		tsm_discords_from_profile(p.dist, p.index, p.count, m, k, r, &ex, &d, &st);
		tsm_profile_merge(&ex, &profile_run);
		tsm_exec_finish("ts_discords (matrix_profile)", &ex, s.n, &st, t0);
	}

	for (int64 i = 0; i < d.count; i++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = Int32GetDatum((int32) (i + 1));
		values[1] = Int64GetDatum(d.pos[i] + 1);
		values[2] = Float8GetDatum(d.dist[i]);
		values[3] = Int64GetDatum(d.neighbor[i] + 1);
		nulls[3] = d.neighbor[i] < 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(ts_discords);
Datum
ts_discords(PG_FUNCTION_ARGS)
{
	return discords_common(fcinfo, false);
}

PG_FUNCTION_INFO_V1(ts_discords_query);
Datum
ts_discords_query(PG_FUNCTION_ARGS)
{
	return discords_common(fcinfo, true);
}
