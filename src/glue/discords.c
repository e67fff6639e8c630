/*
 * discords.c — ts_matrix_profile, ts_matrix_profile_arrays and ts_discords
 * (array and query forms, with times or without).
 */
#include "glue.h"

#include "miscadmin.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "api_discords.h"
#include "api_matrix_profile.h"

/* ---- ts_matrix_profile and ts_matrix_profile_arrays -------------------- */

/* Result memory of the core is staged (tsm_exec_stage_results) with room for
 * an array header in front of every block: the profile becomes the body of
 * an array in place, uncopied. */
#define ARRAY8_HEADER ARR_OVERHEAD_NONULLS(1)
StaticAssertDecl(ARR_OVERHEAD_NONULLS(1) <= TSM_RESULT_PREFIX, "an array header fits in front of a result block");

/* The array around n 8-byte values of a result block (TSM_RESULT_PREFIX). */
ArrayType *
tsm_array8_around(void *body, int64 n, Oid elemtype)
{
	ArrayType  *a = (ArrayType *) ((char *) body - ARRAY8_HEADER);

	memset(a, 0, ARRAY8_HEADER);
	SET_VARSIZE(a, ARRAY8_HEADER + (Size) n * 8);
	a->ndim = 1;
	a->dataoffset = 0;
	a->elemtype = elemtype;
	ARR_DIMS(a)[0] = (int) n;
	ARR_LBOUND(a)[0] = 1;
	return a;
}

/*
 * The array of the n 8-byte values of a result block (body: TSM_RESULT_PREFIX_FOR
 * bytes in front), element i NULL where neighbor[i] (1-based) is 0 (a window
 * without a neighbour; neighbor may be body itself); present: how many are
 * not.  Made in place in one pass: the header and the null bitmap (a byte, 8
 * elements, at a time) in front of the body, the present values moved down
 * over the places of the NULLs (value i goes to place kept <= i, read before
 * it is written).  The array construct_md_array would make, bit for bit.
 */
static ArrayType *
array8_with_nulls_in_place(void *body, const int64 *neighbor, int64 n, int64 present, Oid elemtype)
{
	int64	   *value = (int64 *) body; /* 8 bytes each, moved as they are */
	int32		dataoffset = ARR_OVERHEAD_WITHNULLS(1, n);
	ArrayType  *a = (ArrayType *) ((char *) body - dataoffset);
	bits8	   *bitmap;
	int64		kept = 0;

	Assert(dataoffset <= TSM_RESULT_PREFIX_FOR((size_t) n * 8));
	memset(a, 0, dataoffset);
	SET_VARSIZE(a, dataoffset + (Size) present * 8);
	a->ndim = 1;
	a->dataoffset = dataoffset;
	a->elemtype = elemtype;
	ARR_DIMS(a)[0] = (int) n;
	ARR_LBOUND(a)[0] = 1;
	bitmap = ARR_NULLBITMAP(a);
	for (int64 b = 0; b < n; b += 8)
	{
		int			k_end = (int) Min(8, n - b);
		bits8		bits = 0;

		for (int k = 0; k < k_end; k++)
		{
			bool		here = neighbor[b + k] > 0;
			int64		v = value[b + k];

			bits |= (bits8) (here << k);
			value[kept] = v;
			kept += here;
		}
		bitmap[b / 8] = bits;
	}
	Assert(kept == present);
	return a;
}

/* One row per window: (pos, distance, neighbor), NULLs where none; with
 * times (not NULL), (start_time, neighbor_time from times_b) after them. */
void
tsm_put_profile_rows(ReturnSetInfo *rsinfo, const TsProfile *p, const TsmTimes *times, const TsmTimes *times_b)
{
	for (int64 i = 0; i < p->count; i++)
	{
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};

		values[0] = Int64GetDatum(i + 1);
		values[1] = Float8GetDatum(p->dist[i]);
		values[2] = Int64GetDatum(p->index[i] + 1);
		if (p->index[i] < 0)
			nulls[1] = nulls[2] = true;
		if (times)
		{
			values[3] = tsm_time_at(times, i);
			values[4] = nulls[2] ? (Datum) 0 : tsm_time_at(times_b, p->index[i]);
			nulls[4] = nulls[2];
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/*
 * One row of two arrays (distance, neighbor), element i for window i (and
 * with times, two more: start_time and neighbor_time).  The
 * profile's blocks have room for an array header in front, so the arrays are
 * made around them, uncopied (with NULLs: compacted in place).  The row goes into a tuplestore sized for it:
 * it is already in memory, and a store bounded by work_mem would only write
 * it to a temporary file and read it back.
 */
static void
put_profile_arrays(ReturnSetInfo *rsinfo, TsProfile *p, const TsmTimes *times)
{
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	int64		without = 0;

	/* with times: the windows' start times and their neighbours' */
	if (times->key)
	{
		values[2] = tsm_times_array(times, NULL, p->count);
		values[3] = tsm_times_array(times, p->index, p->count);
	}

	/* 1-based neighbours; a window without one gets NULL in both arrays */
	for (int64 i = 0; i < p->count; i++)
	{
		without += p->index[i] < 0;
		p->index[i] += 1;
	}
	if (without == 0)
	{
		values[0] = PointerGetDatum(tsm_array8_around(p->dist, p->count, FLOAT8OID));
		values[1] = PointerGetDatum(tsm_array8_around(p->index, p->count, INT8OID));
	}
	else
	{
		/* the distances first: the neighbours say where the NULLs are */
		values[0] = PointerGetDatum(array8_with_nulls_in_place(p->dist, p->index, p->count, p->count - without,
																FLOAT8OID));
		values[1] = PointerGetDatum(array8_with_nulls_in_place(p->index, p->index, p->count, p->count - without,
																INT8OID));
	}

	/* a store that keeps the row in memory (random access if the caller asked) */
	{
		MemoryContext old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
		int			kb = (int) Min((int64) MAX_KILOBYTES, (int64) p->count * (times->key ? 32 : 16) / 1024 + 64);

		tuplestore_end(rsinfo->setResult);
		rsinfo->setResult = tuplestore_begin_heap((rsinfo->allowedModes & SFRM_Materialize_Random) != 0,
												  false, Max(work_mem, kb));
		MemoryContextSwitchTo(old);
	}
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* The arrays of a profile without windows (an empty series): empty arrays,
 * of times too when time_type is valid. */
static void
put_empty_profile_arrays(ReturnSetInfo *rsinfo, Oid time_type)
{
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	values[0] = PointerGetDatum(construct_empty_array(FLOAT8OID));
	values[1] = PointerGetDatum(construct_empty_array(INT8OID));
	if (OidIsValid(time_type))
		values[2] = values[3] = PointerGetDatum(construct_empty_array(time_type));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * The exact matrix profile, returned as a row per window or (as_arrays) as
 * one row of two arrays, for callers that keep or process the profile whole.
 * PostgreSQL's 1 GB limit on a value bounds the windows of the array form.
 */
static Datum
matrix_profile_common(FunctionCallInfo fcinfo, bool query, bool timed, bool as_arrays)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *function = as_arrays ? "ts_matrix_profile_arrays" : "ts_matrix_profile";
	TsmSeries	s;
	TsmTimes	times;
	int32		m = tsm_int_arg(fcinfo, TSM_AT(timed, 1), "m");
	int64		excl = TSM_ARG_INT_OR_NULL(fcinfo, TSM_AT(timed, 2));
	int32		normalize = tsm_normalize_arg(fcinfo, TSM_AT(timed, 3));
	const int64 max_windows = (int64) ((MaxAllocSize - 1024) / 16);
	TsExec		ex;
	TsProfile	p;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	tsm_form_series_gaps(fcinfo, query, timed, tsm_gaps_arg(fcinfo, TSM_AT(timed, 4)), &s, &times);
	if (as_arrays && s.n - m + 1 > max_windows)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the matrix profile of %lld windows does not fit in arrays of at most 1 GB",
						(long long) (s.n - m + 1)),
				 errhint("Use ts_matrix_profile(), which returns one row per window, for series of more than %lld values.",
						 (long long) max_windows)));
	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&ex, function);
	tsm_exec_stage_results(&ex, tsm_profile_bytes(s.n, m));
	tsm_matrix_profile(s.x, s.n, m, excl, normalize, &ex, &p, &st);
	tsm_exec_finish(function, &ex, s.n, &st, t0);
	if (as_arrays && p.count == 0)
		put_empty_profile_arrays(rsinfo, timed ? times.type : InvalidOid);
	else if (as_arrays)
		put_profile_arrays(rsinfo, &p, &times);
	else
		tsm_put_profile_rows(rsinfo, &p, times.key ? &times : NULL, &times);
	return (Datum) 0;
}

static Datum
matrix_profile_rows(FunctionCallInfo fcinfo, bool query, bool timed)
{
	return matrix_profile_common(fcinfo, query, timed, false);
}

static Datum
matrix_profile_arrays(FunctionCallInfo fcinfo, bool query, bool timed)
{
	return matrix_profile_common(fcinfo, query, timed, true);
}

TSM_SERIES_FORMS(ts_matrix_profile, matrix_profile_rows)
TSM_SERIES_FORMS(ts_matrix_profile_arrays, matrix_profile_arrays)

/* ---- ts_discords ------------------------------------------------------- */

/* One row per discord: (rank, pos, distance, neighbor); with times (not
 * NULL), (start_time, neighbor_time from times_b) after them. */
void
tsm_put_discord_rows(ReturnSetInfo *rsinfo, const TsDiscords *d, const TsmTimes *times, const TsmTimes *times_b)
{
	for (int64 i = 0; i < d->count; i++)
	{
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		values[0] = Int32GetDatum((int32) (i + 1));
		values[1] = Int64GetDatum(d->pos[i] + 1);
		values[2] = Float8GetDatum(d->dist[i]);
		values[3] = Int64GetDatum(d->neighbor[i] + 1);
		nulls[3] = d->neighbor[i] < 0;
		if (times)
		{
			values[4] = tsm_time_at(times, d->pos[i]);
			values[5] = nulls[3] ? (Datum) 0 : tsm_time_at(times_b, d->neighbor[i]);
			nulls[5] = nulls[3];
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

void
tsm_profile_call_begin(FunctionCallInfo fcinfo, bool query, bool timed, int gaps_argno, const char *function,
					   int32 m, TsmProfileCall *c)
{
	c->function = function;
	c->m = m;
	c->t0 = tsm_now_ms();
	tsm_form_series_gaps(fcinfo, query, timed, tsm_gaps_arg(fcinfo, gaps_argno), &c->s, &c->times);
	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&c->ex, function);
	tsm_exec_stage_results(&c->ex, tsm_profile_bytes(c->s.n, m));
}

void
tsm_profile_call_finish(TsmProfileCall *c)
{
	tsm_exec_finish(c->function, &c->ex, c->s.n, &c->st, c->t0);
}

static Datum
discords_common(FunctionCallInfo fcinfo, bool query, bool timed)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32		m = tsm_int_arg(fcinfo, TSM_AT(timed, 1), "m");
	int64		k = TSM_ARG_INT_OR_NULL(fcinfo, TSM_AT(timed, 2));
	double		r = tsm_distance_arg(fcinfo, TSM_AT(timed, 3));
	int64		excl = TSM_ARG_INT_OR_NULL(fcinfo, TSM_AT(timed, 4));
	const char *method = tsm_text_arg(fcinfo, TSM_AT(timed, 5), "method");
	int32		normalize = tsm_normalize_arg(fcinfo, TSM_AT(timed, 6));
	TsmProfileCall c;
	TsDiscords	d;

	tsm_profile_call_begin(fcinfo, query, timed, TSM_AT(timed, 7), "ts_discords", m, &c);
	tsm_discords(c.s.x, c.s.n, m, k, r, excl, method, normalize, &c.ex, &d, &c.st);
	tsm_profile_call_finish(&c);
	tsm_put_discord_rows(rsinfo, &d, timed ? &c.times : NULL, &c.times);
	return (Datum) 0;
}

TSM_SERIES_FORMS(ts_discords, discords_common)
