/*
 * ab.c — two series: ts_matrix_profile_ab, ts_discords_ab and ts_motifs_ab
 * (series a against series b, the AB-join), in four forms each: arrays
 * (a, b), queries (a_sql, b_sql), and with their times: arrays (a_times, a,
 * b_times, b) or queries of (time, value) rows (time_type, a_sql, b_sql).
 */
#include "glue.h"

#include <math.h>

#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "api_discords.h"
#include "api_matrix_profile.h"
#include "api_motifs.h"

/* The argument number of a plain form's argument n (n >= 2: after a and b)
 * in the form called: the timed array form has two more (the times arrays),
 * the timed query form one (time_type). */
#define AB_AT(query, timed, n) ((n) + ((timed) ? ((query) ? 1 : 2) : 0))

/* The two series of the form called, and their times when timed (ta->key
 * and tb->key NULL otherwise). */
static void
ab_series(FunctionCallInfo fcinfo, bool query, bool timed, TsmSeries *a, TsmSeries *b, TsmTimes *ta,
		  TsmTimes *tb)
{
	double		t0 = tsm_now_ms();

	memset(ta, 0, sizeof(*ta));
	memset(tb, 0, sizeof(*tb));
	if (!timed)
	{
		tsm_series_arg(fcinfo, 0, "a", query, a);
		tsm_series_arg(fcinfo, 1, "b", query, b);
	}
	else if (query)
	{
		Oid			declared = getBaseType(get_fn_expr_argtype(fcinfo->flinfo, 0));

		TSM_REQUIRE_ARG(fcinfo, 1, "a_sql");
		TSM_REQUIRE_ARG(fcinfo, 2, "b_sql");
		tsm_time_type_check(declared, "time_type");
		tsm_timed_series_from_query(PG_GETARG_TEXT_PP(1), "a_sql", declared, a, ta);
		tsm_timed_series_from_query(PG_GETARG_TEXT_PP(2), "b_sql", declared, b, tb);
	}
	else
	{
		TSM_REQUIRE_ARG(fcinfo, 0, "a_times");
		TSM_REQUIRE_ARG(fcinfo, 1, "a");
		TSM_REQUIRE_ARG(fcinfo, 2, "b_times");
		TSM_REQUIRE_ARG(fcinfo, 3, "b");
		tsm_series_from_array(PG_GETARG_ARRAYTYPE_P(1), "a", a);
		tsm_times_from_array(PG_GETARG_ARRAYTYPE_P(0), a->n, "a_times", "a", ta);
		tsm_series_from_array(PG_GETARG_ARRAYTYPE_P(3), "b", b);
		tsm_times_from_array(PG_GETARG_ARRAYTYPE_P(2), b->n, "b_times", "b", tb);
	}
	tsm_input_ms = tsm_now_ms() - t0;
}

/* The time of window pos0 of a series, or NULL where pos0 < 0. */
static Datum
time_or_null(const TsmTimes *t, int64 pos0, bool *isnull)
{
	*isnull = pos0 < 0;
	return *isnull ? (Datum) 0 : tsm_time_at(t, pos0);
}

/* One row per window of a: (pos, distance, neighbor), NULLs where none;
 * timed: (start_time in a, neighbor_time in b) after them. */
static void
put_profile_rows(ReturnSetInfo *rsinfo, const TsProfile *p, const TsmTimes *ta, const TsmTimes *tb)
{
	for (int64 i = 0; i < p->count; i++)
	{
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};

		values[0] = Int64GetDatum(i + 1);
		values[1] = Float8GetDatum(p->dist[i]);
		values[2] = Int64GetDatum(p->index[i] + 1);
		nulls[1] = nulls[2] = p->index[i] < 0;
		if (ta->key)
		{
			values[3] = tsm_time_at(ta, i);
			values[4] = time_or_null(tb, p->index[i], &nulls[4]);
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* ts_matrix_profile_ab(a, b, m, exclusion_zone) → (pos, distance, neighbor[, start_time, neighbor_time]) */
static Datum
matrix_profile_ab_common(FunctionCallInfo fcinfo, bool query, bool timed)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsmSeries	a,
				b;
	TsmTimes	ta,
				tb;
	int			m = tsm_int_arg(fcinfo, AB_AT(query, timed, 2), "m");
	int64		excl = TSM_ARG_INT_OR_NULL(fcinfo, AB_AT(query, timed, 3));
	TsExec		ex;
	TsProfile	p;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	ab_series(fcinfo, query, timed, &a, &b, &ta, &tb);
	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&ex, "ts_matrix_profile_ab");
	tsm_exec_stage_results(&ex, tsm_profile_bytes(a.n, m));
	tsm_matrix_profile_ab(a.x, a.n, b.x, b.n, m, excl, &ex, &p, &st);
	tsm_exec_finish("ts_matrix_profile_ab", &ex, a.n + b.n, &st, t0);
	put_profile_rows(rsinfo, &p, &ta, &tb);
	return (Datum) 0;
}

/* ts_discords_ab(a, b, m, k, min_distance, exclusion_zone) → (rank, pos, distance, neighbor[, start_time, neighbor_time]) */
static Datum
discords_ab_common(FunctionCallInfo fcinfo, bool query, bool timed)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsmSeries	a,
				b;
	TsmTimes	ta,
				tb;
	int			m = tsm_int_arg(fcinfo, AB_AT(query, timed, 2), "m");
	int64		k = TSM_ARG_INT_OR_NULL(fcinfo, AB_AT(query, timed, 3));
	double		r = tsm_distance_arg(fcinfo, AB_AT(query, timed, 4), "min_distance");
	int64		excl = TSM_ARG_INT_OR_NULL(fcinfo, AB_AT(query, timed, 5));
	TsExec		ex;
	TsDiscords	d;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	ab_series(fcinfo, query, timed, &a, &b, &ta, &tb);
	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&ex, "ts_discords_ab");
	tsm_exec_stage_results(&ex, tsm_profile_bytes(a.n, m));
	tsm_discords_ab(a.x, a.n, b.x, b.n, m, k, r, excl, &ex, &d, &st);
	tsm_exec_finish("ts_discords_ab", &ex, a.n + b.n, &st, t0);
	for (int64 i = 0; i < d.count; i++)
	{
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		values[0] = Int32GetDatum((int32) (i + 1));
		values[1] = Int64GetDatum(d.pos[i] + 1);
		values[2] = Float8GetDatum(d.dist[i]);
		values[3] = Int64GetDatum(d.neighbor[i] + 1);
		if (timed)
		{
			values[4] = tsm_time_at(&ta, d.pos[i]);
			values[5] = tsm_time_at(&tb, d.neighbor[i]);
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* ts_motifs_ab(a, b, m, k, exclusion_zone) → (rank, pos_a, pos_b, distance[, time_a, time_b]) */
static Datum
motifs_ab_common(FunctionCallInfo fcinfo, bool query, bool timed)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsmSeries	a,
				b;
	TsmTimes	ta,
				tb;
	int			m = tsm_int_arg(fcinfo, AB_AT(query, timed, 2), "m");
	int64		k = TSM_ARG_INT_OR_NULL(fcinfo, AB_AT(query, timed, 3));
	int64		excl = TSM_ARG_INT_OR_NULL(fcinfo, AB_AT(query, timed, 4));
	TsExec		ex;
	TsMotifs	mo;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	ab_series(fcinfo, query, timed, &a, &b, &ta, &tb);
	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&ex, "ts_motifs_ab");
	tsm_exec_stage_results(&ex, tsm_profile_bytes(a.n, m));
	tsm_motifs_ab(a.x, a.n, b.x, b.n, m, k, excl, &ex, &mo, &st);
	tsm_exec_finish("ts_motifs_ab", &ex, a.n + b.n, &st, t0);
	for (int64 i = 0; i < mo.count; i++)
	{
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		values[0] = Int32GetDatum((int32) (i + 1));
		values[1] = Int64GetDatum(mo.pos_a[i] + 1);
		values[2] = Int64GetDatum(mo.pos_b[i] + 1);
		values[3] = Float8GetDatum(mo.dist[i]);
		if (timed)
		{
			values[4] = tsm_time_at(&ta, mo.pos_a[i]);
			values[5] = tsm_time_at(&tb, mo.pos_b[i]);
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

TSM_SERIES_FORMS(ts_matrix_profile_ab, matrix_profile_ab_common)
TSM_SERIES_FORMS(ts_discords_ab, discords_ab_common)
TSM_SERIES_FORMS(ts_motifs_ab, motifs_ab_common)
