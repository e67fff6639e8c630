/*
 * motifs.c — ts_motifs and ts_match (array and query forms, with times or without).
 */
#include "glue.h"

#include "funcapi.h"
#include "utils/builtins.h"

#include "api_matrix_profile.h"
#include "api_motifs.h"

/* One row per motif pair: (rank, pos_a, pos_b, distance); with times
 * (not NULL), (time_a, time_b from times_b) after them. */
void
tsm_put_motif_rows(ReturnSetInfo *rsinfo, const TsMotifs *mo, const TsmTimes *times, const TsmTimes *times_b)
{
	for (int64 i = 0; i < mo->count; i++)
	{
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		values[0] = Int32GetDatum((int32) (i + 1));
		values[1] = Int64GetDatum(mo->pos_a[i] + 1);
		values[2] = Int64GetDatum(mo->pos_b[i] + 1);
		values[3] = Float8GetDatum(mo->dist[i]);
		if (times)
		{
			values[4] = tsm_time_at(times, mo->pos_a[i]);
			values[5] = tsm_time_at(times_b, mo->pos_b[i]);
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

static Datum
motifs_common(FunctionCallInfo fcinfo, bool query, bool timed)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32		m = tsm_int_arg(fcinfo, TSM_AT(timed, 1), "m");
	int64		k = TSM_ARG_INT_OR_NULL(fcinfo, TSM_AT(timed, 2));
	int64		excl = TSM_ARG_INT_OR_NULL(fcinfo, TSM_AT(timed, 3));
	const char *method = tsm_text_arg(fcinfo, TSM_AT(timed, 4), "method");
	int32		refs = tsm_int_arg(fcinfo, TSM_AT(timed, 5), "n_references");
	int32		normalize = tsm_normalize_arg(fcinfo, TSM_AT(timed, 6));
	TsmProfileCall c;
	TsMotifs	mo;

	tsm_profile_call_begin(fcinfo, query, timed, TSM_AT(timed, 7), "ts_motifs", m, &c);
	tsm_motifs(c.s.x, c.s.n, m, k, excl, method, refs, normalize, &c.ex, &mo, &c.st);
	tsm_profile_call_finish(&c);
	tsm_put_motif_rows(rsinfo, &mo, timed ? &c.times : NULL, &c.times);
	return (Datum) 0;
}

TSM_SERIES_FORMS(ts_motifs, motifs_common)

static Datum
match_common(FunctionCallInfo fcinfo, bool query, bool timed)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsmSeries	s,
				pat;
	TsmTimes	times;
	double		maxd = tsm_distance_arg(fcinfo, TSM_AT(timed, 2));
	int64		k = TSM_ARG_INT_OR_NULL(fcinfo, TSM_AT(timed, 3));
	int64		excl = TSM_ARG_INT_OR_NULL(fcinfo, TSM_AT(timed, 4));
	int32		normalize = tsm_normalize_arg(fcinfo, TSM_AT(timed, 5));
	TsExec		ex;
	TsMatches	mt;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	TSM_REQUIRE_ARG(fcinfo, TSM_AT(timed, 1), "pattern");
	tsm_series_from_array(PG_GETARG_ARRAYTYPE_P(TSM_AT(timed, 1)), "pattern", &pat);
	tsm_form_series_gaps(fcinfo, query, timed, tsm_gaps_arg(fcinfo, TSM_AT(timed, 6)), &s, &times);
	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&ex, "ts_match");
	tsm_match(s.x, s.n, pat.x, (int32) Min(pat.n, PG_INT32_MAX), maxd, k, excl, normalize, &ex, &mt, &st);
	tsm_exec_finish("ts_match", &ex, s.n, &st, t0);

	for (int64 i = 0; i < mt.count; i++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = Int32GetDatum((int32) (i + 1));
		values[1] = Int64GetDatum(mt.pos[i] + 1);
		values[2] = Float8GetDatum(mt.dist[i]);
		if (timed)
			values[3] = tsm_time_at(&times, mt.pos[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

TSM_SERIES_FORMS(ts_match, match_common)
