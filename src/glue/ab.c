/*
 * ab.c — two series: ts_matrix_profile_ab, ts_discords_ab and ts_motifs_ab
 * (series a against series b, the AB-join), in four forms each: arrays
 * (a, b), queries (a_sql, b_sql), and with their times: arrays (a_times, a,
 * b_times, b) or queries of (time, value) rows (time_type, a_sql, b_sql).
 */
#include "glue.h"

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

/* The two series of the form called (with their gaps when skip_gaps), and
 * their times when timed (ta->key and tb->key NULL otherwise). */
static void
ab_series(FunctionCallInfo fcinfo, bool query, bool timed, bool skip_gaps, TsmSeries *a, TsmSeries *b,
		  TsmTimes *ta, TsmTimes *tb)
{
	double		t0 = tsm_now_ms();

	memset(ta, 0, sizeof(*ta));
	memset(tb, 0, sizeof(*tb));
	if (!timed)
	{
		tsm_series_with_gaps(fcinfo, 0, "a", query, skip_gaps, InvalidOid, a, NULL);
		tsm_series_with_gaps(fcinfo, 1, "b", query, skip_gaps, InvalidOid, b, NULL);
	}
	else if (query)
	{
		Oid			declared = getBaseType(get_fn_expr_argtype(fcinfo->flinfo, 0));

		TSM_REQUIRE_ARG(fcinfo, 1, "a_sql");
		TSM_REQUIRE_ARG(fcinfo, 2, "b_sql");
		tsm_time_type_check(declared, "time_type");
		tsm_series_with_gaps(fcinfo, 1, "a_sql", true, skip_gaps, declared, a, ta);
		tsm_series_with_gaps(fcinfo, 2, "b_sql", true, skip_gaps, declared, b, tb);
	}
	else
	{
		TSM_REQUIRE_ARG(fcinfo, 0, "a_times");
		TSM_REQUIRE_ARG(fcinfo, 1, "a");
		TSM_REQUIRE_ARG(fcinfo, 2, "b_times");
		TSM_REQUIRE_ARG(fcinfo, 3, "b");
		tsm_series_with_gaps(fcinfo, 1, "a", false, skip_gaps, InvalidOid, a, NULL);
		tsm_times_from_array(PG_GETARG_ARRAYTYPE_P(0), a->n, "a_times", "a", ta);
		tsm_series_with_gaps(fcinfo, 3, "b", false, skip_gaps, InvalidOid, b, NULL);
		tsm_times_from_array(PG_GETARG_ARRAYTYPE_P(2), b->n, "b_times", "b", tb);
	}
	tsm_input_ms = tsm_now_ms() - t0;
}

/* One call of any form of the three functions: what they all read and the
 * core's execution. */
typedef struct AbCall
{
	TsmSeries	a,
				b;
	TsmTimes	ta,
				tb;
	int32		m;
	int64		excl;			/* TS_ARG_NULL: none */
	int32		normalize;
	TsExec		ex;
	TsStatus	st;
	double		t0;
} AbCall;

/* The start of a call: m (argument 2 of the plain form), exclusion_zone
 * (argument excl_at), normalized and gaps (the two after it), the series,
 * the result set and the execution of function. */
static void
ab_begin(FunctionCallInfo fcinfo, bool query, bool timed, int excl_at, const char *function, AbCall *c)
{
	c->t0 = tsm_now_ms();
	c->m = tsm_int_arg(fcinfo, AB_AT(query, timed, 2), "m");
	c->excl = TSM_ARG_INT_OR_NULL(fcinfo, AB_AT(query, timed, excl_at));
	c->normalize = tsm_normalize_arg(fcinfo, AB_AT(query, timed, excl_at + 1));
	ab_series(fcinfo, query, timed, tsm_gaps_arg(fcinfo, AB_AT(query, timed, excl_at + 2)), &c->a, &c->b, &c->ta,
			  &c->tb);
	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&c->ex, function);
	tsm_exec_stage_results(&c->ex, tsm_profile_bytes(c->a.n, c->m));
}

/* The end of the core's call: its status, timings and backend reported. */
static void
ab_finish(const char *function, AbCall *c)
{
	tsm_exec_finish(function, &c->ex, c->a.n + c->b.n, &c->st, c->t0);
}

/* ts_matrix_profile_ab(a, b, m, exclusion_zone, normalized, gaps) → (pos, distance, neighbor[, start_time, neighbor_time]) */
static Datum
matrix_profile_ab_common(FunctionCallInfo fcinfo, bool query, bool timed)
{
	AbCall		c;
	TsProfile	p;

	ab_begin(fcinfo, query, timed, 3, "ts_matrix_profile_ab", &c);
	tsm_matrix_profile_ab(c.a.x, c.a.n, c.b.x, c.b.n, c.m, c.excl, c.normalize, &c.ex, &p, &c.st);
	ab_finish("ts_matrix_profile_ab", &c);
	tsm_put_profile_rows((ReturnSetInfo *) fcinfo->resultinfo, &p, timed ? &c.ta : NULL, &c.tb);
	return (Datum) 0;
}

/* ts_discords_ab(a, b, m, k, min_distance, exclusion_zone, normalized, gaps) → (rank, pos, distance, neighbor[, start_time, neighbor_time]) */
static Datum
discords_ab_common(FunctionCallInfo fcinfo, bool query, bool timed)
{
	int64		k = TSM_ARG_INT_OR_NULL(fcinfo, AB_AT(query, timed, 3));
	double		r = tsm_distance_arg(fcinfo, AB_AT(query, timed, 4));
	AbCall		c;
	TsDiscords	d;

	ab_begin(fcinfo, query, timed, 5, "ts_discords_ab", &c);
	tsm_discords_ab(c.a.x, c.a.n, c.b.x, c.b.n, c.m, k, r, c.excl, c.normalize, &c.ex, &d, &c.st);
	ab_finish("ts_discords_ab", &c);
	tsm_put_discord_rows((ReturnSetInfo *) fcinfo->resultinfo, &d, timed ? &c.ta : NULL, &c.tb);
	return (Datum) 0;
}

/* ts_motifs_ab(a, b, m, k, exclusion_zone, normalized, gaps) → (rank, pos_a, pos_b, distance[, time_a, time_b]) */
static Datum
motifs_ab_common(FunctionCallInfo fcinfo, bool query, bool timed)
{
	int64		k = TSM_ARG_INT_OR_NULL(fcinfo, AB_AT(query, timed, 3));
	AbCall		c;
	TsMotifs	mo;

	ab_begin(fcinfo, query, timed, 4, "ts_motifs_ab", &c);
	tsm_motifs_ab(c.a.x, c.a.n, c.b.x, c.b.n, c.m, k, c.excl, c.normalize, &c.ex, &mo, &c.st);
	ab_finish("ts_motifs_ab", &c);
	tsm_put_motif_rows((ReturnSetInfo *) fcinfo->resultinfo, &mo, timed ? &c.ta : NULL, &c.tb);
	return (Datum) 0;
}

TSM_SERIES_FORMS(ts_matrix_profile_ab, matrix_profile_ab_common)
TSM_SERIES_FORMS(ts_discords_ab, discords_ab_common)
TSM_SERIES_FORMS(ts_motifs_ab, motifs_ab_common)
