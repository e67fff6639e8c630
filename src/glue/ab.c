/*
 * ab.c — two series: ts_matrix_profile_ab, ts_discords_ab and ts_motifs_ab
 * (array and query forms): series a against series b (the AB-join).
 */
#include "glue.h"

#include <math.h>

#include "funcapi.h"
#include "utils/builtins.h"

#include "api_discords.h"
#include "api_matrix_profile.h"
#include "api_motifs.h"

/* The two series (arguments 0 and 1: arrays, or queries in the query forms). */
static void
ab_series(FunctionCallInfo fcinfo, bool query, TsmSeries *a, TsmSeries *b)
{
	double		input_ms;

	tsm_series_arg(fcinfo, 0, "a", query, a);
	input_ms = tsm_input_ms;
	tsm_series_arg(fcinfo, 1, "b", query, b);
	tsm_input_ms += input_ms;
}

/* exclusion_zone: NULL is none (0); the core checks the value. */
static int64
ab_exclusion_arg(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? 0 : PG_GETARG_INT32(argno);
}

/* ts_matrix_profile_ab(a, b, m, exclusion_zone) → (pos, distance, neighbor) */
static Datum
matrix_profile_ab_common(FunctionCallInfo fcinfo, bool query)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsmSeries	a,
				b;
	int			m;
	int64		excl = ab_exclusion_arg(fcinfo, 3);
	TsExec		ex;
	TsProfile	p;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	TSM_REQUIRE_ARG(fcinfo, 2, "m");
	m = PG_GETARG_INT32(2);
	ab_series(fcinfo, query, &a, &b);
	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&ex, "ts_matrix_profile_ab");
	tsm_exec_stage_results(&ex, tsm_profile_bytes(a.n, m));
	tsm_matrix_profile_ab(a.x, a.n, b.x, b.n, m, excl, &ex, &p, &st);
	tsm_exec_finish("ts_matrix_profile_ab", &ex, a.n + b.n, &st, t0);
	tsm_put_profile_rows(rsinfo, &p, NULL);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(ts_matrix_profile_ab);
Datum
ts_matrix_profile_ab(PG_FUNCTION_ARGS)
{
	return matrix_profile_ab_common(fcinfo, false);
}

PG_FUNCTION_INFO_V1(ts_matrix_profile_ab_query);
Datum
ts_matrix_profile_ab_query(PG_FUNCTION_ARGS)
{
	return matrix_profile_ab_common(fcinfo, true);
}

/* ts_discords_ab(a, b, m, k, min_distance, exclusion_zone) → (rank, pos, distance, neighbor) */
static Datum
discords_ab_common(FunctionCallInfo fcinfo, bool query)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsmSeries	a,
				b;
	int			m;
	bool		range = !PG_ARGISNULL(4);
	int64		k = tsm_k_arg(fcinfo, 3, range,
							  "Without min_distance, ts_discords_ab returns the top k discords: give k, or give min_distance for all range discords.");
	double		r = tsm_distance_arg(fcinfo, 4, "min_distance");
	int64		excl = ab_exclusion_arg(fcinfo, 5);
	TsExec		ex;
	TsDiscords	d;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	TSM_REQUIRE_ARG(fcinfo, 2, "m");
	m = PG_GETARG_INT32(2);
	ab_series(fcinfo, query, &a, &b);
	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&ex, "ts_discords_ab");
	tsm_exec_stage_results(&ex, tsm_profile_bytes(a.n, m));
	tsm_discords_ab(a.x, a.n, b.x, b.n, m, k, r, excl, &ex, &d, &st);
	tsm_exec_finish("ts_discords_ab", &ex, a.n + b.n, &st, t0);
	tsm_put_discord_rows(rsinfo, &d, NULL);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(ts_discords_ab);
Datum
ts_discords_ab(PG_FUNCTION_ARGS)
{
	return discords_ab_common(fcinfo, false);
}

PG_FUNCTION_INFO_V1(ts_discords_ab_query);
Datum
ts_discords_ab_query(PG_FUNCTION_ARGS)
{
	return discords_ab_common(fcinfo, true);
}

/* ts_motifs_ab(a, b, m, k, exclusion_zone) → (rank, pos_a, pos_b, distance) */
static Datum
motifs_ab_common(FunctionCallInfo fcinfo, bool query)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsmSeries	a,
				b;
	int			m;
	int64		k = tsm_k_arg(fcinfo, 3, false, "Give how many motif pairs to return.");
	int64		excl = ab_exclusion_arg(fcinfo, 4);
	TsExec		ex;
	TsMotifs	mo;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	TSM_REQUIRE_ARG(fcinfo, 2, "m");
	m = PG_GETARG_INT32(2);
	ab_series(fcinfo, query, &a, &b);
	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&ex, "ts_motifs_ab");
	tsm_exec_stage_results(&ex, tsm_profile_bytes(a.n, m));
	tsm_motifs_ab(a.x, a.n, b.x, b.n, m, k, excl, &ex, &mo, &st);
	tsm_exec_finish("ts_motifs_ab", &ex, a.n + b.n, &st, t0);
	tsm_put_motif_rows(rsinfo, &mo, NULL);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(ts_motifs_ab);
Datum
ts_motifs_ab(PG_FUNCTION_ARGS)
{
	return motifs_ab_common(fcinfo, false);
}

PG_FUNCTION_INFO_V1(ts_motifs_ab_query);
Datum
ts_motifs_ab_query(PG_FUNCTION_ARGS)
{
	return motifs_ab_common(fcinfo, true);
}
