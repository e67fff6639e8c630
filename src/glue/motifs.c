/*
 * motifs.c — ts_motifs and ts_match (array and query forms).
 */
#include "glue.h"

#include <math.h>

#include "funcapi.h"
#include "utils/builtins.h"

#include "api_matrix_profile.h"
#include "api_motifs.h"

enum
{
	MOTIFS_AUTO, MOTIFS_MK, MOTIFS_MATRIX_PROFILE
};
static const char *const motif_methods[] = {"auto", "mk", "matrix_profile"};

static Datum
motifs_common(FunctionCallInfo fcinfo, bool query)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsmSeries	s;
	int			m = tsm_window_arg(fcinfo, 1, "m");
	int64		k = tsm_k_arg(fcinfo, 2, false, "Give how many motif pairs to return.");
	int64		excl = tsm_exclusion_arg(fcinfo, 3, m);
	int			method = tsm_text_choice(fcinfo, 4, "method", motif_methods, lengthof(motif_methods));
	int			refs;
	TsExec		ex;
	TsMotifs	mo;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	TSM_REQUIRE_ARG(fcinfo, 5, "n_references");
	refs = PG_GETARG_INT32(5);
	if (refs < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n_references must be at least 1, not %d", refs),
				 errhint("MK compares windows through their distances to n_references reference windows; 10 is usual.")));
	tsm_series_arg(fcinfo, 0, query ? "series_sql" : "series", query, &s);
	InitMaterializedSRF(fcinfo, 0);
	if (s.n == 0)
		return (Datum) 0;		/* an empty series has no windows */

	if (s.n - m < excl)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("series of length %lld is too short for two windows of length %d at least %lld apart",
						(long long) s.n, m, (long long) excl),
				 errhint("Use a longer series, a shorter window or a smaller exclusion zone.")));

	/*
	 * auto: MK, within a time budget of what the matrix profile would take
	 * (tsm_matrix_profile_estimate_ms); past it, the matrix profile.  MK is
	 * usually much faster (bench/motifs.sh: 2-5x on random walks and ECG, top
	 * pair), but its pruning depends on the data and it re-runs for every
	 * rank; the budget bounds auto at about twice the profile's time.  Where
	 * the profile cannot run (m > n/2): MK without a budget.
	 */
	if (method == MOTIFS_AUTO && 2 * (int64) m > s.n)
		method = MOTIFS_MK;
	if (method == MOTIFS_AUTO)
	{
		tsm_exec_prepare(&ex, TS_WORK_MOTIFS, s.n, m);
		ex.budget_ms = tsm_matrix_profile_estimate_ms(s.n, m, &ex);
		TSM_CALL(ex, st, tsm_motifs_mk(s.x, s.n, m, k, excl, refs, &ex, &mo, &st));
		if (st.code == TS_OVER_BUDGET)
			method = MOTIFS_MATRIX_PROFILE;
		else
			tsm_exec_finish("ts_motifs (mk)", &ex, s.n, &st, t0);
	}
	else if (method == MOTIFS_MK)
	{
		tsm_exec_prepare(&ex, TS_WORK_MOTIFS, s.n, m);
		TSM_CALL(ex, st, tsm_motifs_mk(s.x, s.n, m, k, excl, refs, &ex, &mo, &st));
		tsm_exec_finish("ts_motifs (mk)", &ex, s.n, &st, t0);
	}
	if (method == MOTIFS_MATRIX_PROFILE)
	{
		TsProfile	p;
		TsExec		profile_run;

		tsm_profile_first("ts_motifs (matrix_profile)", &s, m, excl, &ex, &p, &profile_run, t0);
		tsm_motifs_from_profile(s.x, s.n, m, p.dist, p.index, k, excl, &ex, &mo, &st);
		tsm_profile_merge(&ex, &profile_run);
		tsm_exec_finish("ts_motifs (matrix_profile)", &ex, s.n, &st, t0);
	}

	for (int64 i = 0; i < mo.count; i++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = Int32GetDatum((int32) (i + 1));
		values[1] = Int64GetDatum(mo.pos_a[i] + 1);
		values[2] = Int64GetDatum(mo.pos_b[i] + 1);
		values[3] = Float8GetDatum(mo.dist[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

TSM_ARRAY_AND_QUERY_FORMS(ts_motifs, motifs_common)

static Datum
match_common(FunctionCallInfo fcinfo, bool query)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsmSeries	s,
				pat;
	double		maxd = PG_ARGISNULL(2) ? NAN : PG_GETARG_FLOAT8(2);
	int64		k = tsm_k_arg(fcinfo, 3, true, NULL);
	int64		excl;
	TsExec		ex;
	TsMatches	mt;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	if (!PG_ARGISNULL(2) && (!(maxd >= 0) || isinf(maxd)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_distance must be a finite number >= 0, not %g", maxd),
				 errhint("max_distance is a z-normalised Euclidean distance, between 0 and 2 sqrt(m); NULL means no limit.")));
	TSM_REQUIRE_ARG(fcinfo, 1, "pattern");
	tsm_series_from_array(PG_GETARG_ARRAYTYPE_P(1), "pattern", &pat);
	if (pat.n < 3)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("pattern must have at least 3 values, not %lld", (long long) pat.n)));
	excl = tsm_exclusion_arg(fcinfo, 4, pat.n);
	tsm_series_arg(fcinfo, 0, query ? "series_sql" : "series", query, &s);
	InitMaterializedSRF(fcinfo, 0);
	if (s.n == 0)
		return (Datum) 0;		/* an empty series has no windows */

	tsm_exec_prepare(&ex, TS_WORK_MATCH, s.n, pat.n);
	TSM_CALL(ex, st, tsm_match(s.x, s.n, pat.x, (int32) pat.n, maxd, k, excl, &ex, &mt, &st));
	tsm_exec_finish("ts_match", &ex, s.n, &st, t0);

	for (int64 i = 0; i < mt.count; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int32GetDatum((int32) (i + 1));
		values[1] = Int64GetDatum(mt.pos[i] + 1);
		values[2] = Float8GetDatum(mt.dist[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

TSM_ARRAY_AND_QUERY_FORMS(ts_match, match_common)
