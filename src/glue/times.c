/*
 * times.c — the times of a series, for the timed forms of the series
 * functions: a times array beside the values (array form) or the first
 * column of a (time, value) query (query form).  They are checked (one
 * dimension, as many as the values, no NULL, strictly increasing, a
 * supported type) and kept as int64 keys; a result's position turns back
 * into its time with tsm_time_at.
 */
#include "glue.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

/* The types a time may have: every one is passed by value and ordered as
 * the integer that represents it. */
static bool
time_type_supported(Oid type)
{
	return type == TIMESTAMPTZOID || type == TIMESTAMPOID || type == DATEOID ||
		type == INT8OID || type == INT4OID;
}

static bool
time_type_is_int32(Oid type)
{
	return type == DATEOID || type == INT4OID;
}

static int64
time_key(Datum d, Oid type)
{
	return time_type_is_int32(type) ? (int64) DatumGetInt32(d) : DatumGetInt64(d);
}

Datum
tsm_time_at(const TsmTimes *t, int64 pos0)
{
	Assert(pos0 >= 0 && pos0 < t->n);
	return time_type_is_int32(t->type) ? Int32GetDatum((int32) t->key[pos0]) : Int64GetDatum(t->key[pos0]);
}

/* A time as its type prints it, for messages. */
static char *
time_text(int64 key, Oid type)
{
	Oid			out;
	bool		varlena;
	Datum		d = time_type_is_int32(type) ? Int32GetDatum((int32) key) : Int64GetDatum(key);

	getTypeOutputInfo(type, &out, &varlena);
	return OidOutputFunctionCall(out, d);
}

char *
tsm_time_text(const TsmTimes *t, int64 pos0)
{
	return time_text(t->key[pos0], t->type);
}

void
tsm_time_json(StringInfo b, const TsmTimes *t, int64 pos0)
{
	if (t->type == INT8OID || t->type == INT4OID)
		appendStringInfo(b, "%lld", (long long) t->key[pos0]);
	else
		escape_json(b, JsonEncodeDateTime(NULL, tsm_time_at(t, pos0), t->type, NULL));
}

void
tsm_time_type_check(Oid type, const char *what)
{
	if (!time_type_supported(type))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s must be of type timestamptz, timestamp, date, bigint or integer, not %s",
						what, format_type_be(type)),
				 errhint("Cast the times, e.g. ts::timestamptz or extract(epoch FROM ts)::bigint.")));
}

/* The ERROR for key (at 1-based place `at`, a position or a row) not after
 * prev; what names the times. */
static void
pg_attribute_noreturn()
not_increasing(const TsmTimes *t, int64 prev, int64 key, int64 at, const char *where, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("%s must be strictly increasing: %s %lld (%s) is not after %s %lld (%s)",
					what, where, (long long) at, time_text(key, t->type), where, (long long) (at - 1),
					time_text(prev, t->type)),
			 errhint("Order the rows by time (the query form: ORDER BY the time column) and merge or remove rows with equal times.")));
}

/* ---- the array form: a times array beside the values ------------------ */

void
tsm_times_from_array(ArrayType *arr, int64 n_values, const char *times_name, const char *values_name,
					 TsmTimes *out)
{
	int64		n = tsm_array_length(arr, times_name, tsm_one_series_hint);

	out->type = getBaseType(ARR_ELEMTYPE(arr));
	tsm_time_type_check(out->type, times_name);
	if (n != n_values)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s and %s differ in length (%lld and %lld elements): there must be one time per value",
						times_name, values_name, (long long) n, (long long) n_values),
				 errhint("Aggregate both in the same order, e.g. array_agg(ts ORDER BY ts) and array_agg(v ORDER BY ts).")));
	tsm_array_reject_nulls(arr, n, times_name, "Every value needs its time: remove the rows without one.");
	out->n = n;
	out->key = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
	if (time_type_is_int32(out->type))
	{
		const int32 *v = (const int32 *) ARR_DATA_PTR(arr);

		for (int64 i = 0; i < n; i++)
			out->key[i] = v[i];
	}
	else
		memcpy(out->key, ARR_DATA_PTR(arr), sizeof(int64) * n);
	for (int64 i = 1; i < n; i++)
		if (out->key[i] <= out->key[i - 1])
			not_increasing(out, out->key[i - 1], out->key[i], i + 1, "position", times_name);
}

/* ---- the query form: the first column of (time, value) rows ----------- */

void
tsm_times_query_begin(TsmTimes *t)
{
	t->n = 0;
	t->key = NULL;
	t->buffer = tsm_growing_new(sizeof(int64));
}

void
tsm_times_query_start(TsmTimes *t, Oid declared, TupleDesc desc, const char *argname)
{
	Oid			type;

	if (desc->natts != 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the query in %s must return two columns, a time and a value, not %d", argname, desc->natts),
				 errhint("For example: 'SELECT ts, v FROM readings ORDER BY ts'.")));
	type = getBaseType(TupleDescAttr(desc, 0)->atttypid);
	tsm_time_type_check(type, psprintf("the time column of the query in %s", argname));
	if (OidIsValid(declared) && type != declared)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the query in %s returns times of type %s, but time_type is %s",
						argname, format_type_be(type), format_type_be(declared)),
				 errhint("Pass time_type as NULL::%s, or cast the time column in the query.", format_type_be(type))));
	t->type = type;
}

void
tsm_times_query_push(TsmTimes *t, Datum d, bool isnull, const char *argname)
{
	int64		key;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the query in %s returned a NULL time at row %lld", argname, (long long) (t->n + 1)),
				 errhint("Every value needs its time: filter the rows without one, e.g. WHERE ts IS NOT NULL.")));
	key = time_key(d, t->type);
	if (t->n > 0 && unlikely(key <= t->key[t->n - 1]))
		not_increasing(t, t->key[t->n - 1], key, t->n + 1, "row", psprintf("the times of %s", argname));
	tsm_growing_room(t->buffer, t->n, "times", argname);
	t->key = t->buffer->data;
	t->key[t->n++] = key;
}

/* ---- the series of a form, with its times ---------------------------- */

void
tsm_form_series_gaps(FunctionCallInfo fcinfo, bool query, bool timed, bool skip_gaps, TsmSeries *s,
					 TsmTimes *times)
{
	const char *argname = query ? "series_sql" : "series";
	double		t0 = tsm_now_ms();

	memset(times, 0, sizeof(*times));
	if (!timed)
		tsm_series_with_gaps(fcinfo, 0, argname, query, skip_gaps, InvalidOid, s, NULL);
	else if (query)
	{
		Oid			declared = getBaseType(get_fn_expr_argtype(fcinfo->flinfo, 0));

		TSM_REQUIRE_ARG(fcinfo, 1, argname);
		tsm_time_type_check(declared, "time_type");
		tsm_series_with_gaps(fcinfo, 1, argname, true, skip_gaps, declared, s, times);
	}
	else
	{
		TSM_REQUIRE_ARG(fcinfo, 1, argname);
		TSM_REQUIRE_ARG(fcinfo, 0, "times");
		tsm_series_with_gaps(fcinfo, 1, argname, false, skip_gaps, InvalidOid, s, NULL);
		tsm_times_from_array(PG_GETARG_ARRAYTYPE_P(0), s->n, "times", argname, times);
	}
	tsm_input_ms = tsm_now_ms() - t0;
}

void
tsm_form_series(FunctionCallInfo fcinfo, bool query, bool timed, TsmSeries *s, TsmTimes *times)
{
	tsm_form_series_gaps(fcinfo, query, timed, false, s, times);
}

/* ---- results ----------------------------------------------------------- */

Datum
tsm_times_array(const TsmTimes *t, const int64 *pos0, int64 count)
{
	int16		typlen;
	bool		byval;
	char		align;
	int			dims[1] = {(int) count};
	int			lbs[1] = {1};
	Datum	   *d = palloc_extended(sizeof(Datum) * Max(count, 1), MCXT_ALLOC_HUGE);
	bool	   *null = palloc_extended(Max(count, 1), MCXT_ALLOC_HUGE);

	for (int64 i = 0; i < count; i++)
	{
		int64		p = pos0 ? pos0[i] : i;

		null[i] = p < 0;
		d[i] = null[i] ? (Datum) 0 : tsm_time_at(t, p);
	}
	get_typlenbyvalalign(t->type, &typlen, &byval, &align);
	if (count == 0)
		return PointerGetDatum(construct_empty_array(t->type));
	return PointerGetDatum(construct_md_array(d, null, 1, dims, lbs, t->type, typlen, byval, align));
}
