/*
 * input.c — series from a float8[] argument (read in place) or from a query
 * (read through SPI straight into one growing buffer, so series beyond the
 * 1 GB limit of an array work).
 */
#include "glue.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "access/xact.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "parser/scansup.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"

static void
reject_value(double v, int64 pos, const char *argname, const char *where)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("%s contains %s at %s %lld", argname,
					isnan(v) ? "NaN" : (v > 0 ? "Infinity" : "-Infinity"), where, (long long) pos),
			 errhint("tsmine needs finite values: remove, interpolate or replace them first.")));
}

/* The hint of a series (or times) array of more dimensions. */
const char *const tsm_one_series_hint = "Pass one series per call, e.g. with LATERAL over a table of series.";

int64
tsm_array_length(ArrayType *arr, const char *argname, const char *hint)
{
	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s must be a one-dimensional array, not %d-dimensional", argname, ARR_NDIM(arr)),
				 hint ? errhint("%s", hint) : 0));
	return ARR_NDIM(arr) == 0 ? 0 : ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
}

void
tsm_array_reject_nulls(ArrayType *arr, int64 n, const char *argname, const char *hint)
{
	bits8	   *bitmap = ARR_NULLBITMAP(arr);

	if (n == 0 || !ARR_HASNULL(arr))
		return;
	for (int64 i = 0; i < n; i++)
		if (!(bitmap[i / 8] & (1 << (i % 8))))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s contains a NULL at position %lld", argname, (long long) (i + 1)),
					 errhint("%s", hint)));
}

/*
 * The gap-filled copy of an array with NULLs goes into a region kept for the
 * backend's life (up to TSM_INPUT_KEEP bytes), as staged results do
 * (exec.c): a large series then reuses memory that is already mapped instead
 * of page-faulting fresh memory on every call.  One series at a time holds
 * it, until the memory context it was taken in is reset or deleted (as
 * palloc'd memory would live; an error included); a second series meanwhile
 * (the other of two, a nested call) gets palloc'd memory.
 */
#define TSM_INPUT_KEEP ((size_t) 64 << 20)

static double *kept_base;
static size_t kept_size;
static bool kept_taken;
static MemoryContextCallback kept_release;	/* registered while taken */

static void
kept_give_back(void *arg)
{
	kept_taken = false;
}

/* Room for n doubles until CurrentMemoryContext is reset. */
static double *
series_buffer(int64 n)
{
	size_t		bytes = (size_t) n * sizeof(double);

	if (kept_taken || bytes > TSM_INPUT_KEEP)
		return (double *) palloc_extended(bytes, MCXT_ALLOC_HUGE);
	if (bytes > kept_size)
	{
		double	   *p = malloc(bytes);

		if (p == NULL)
			return (double *) palloc_extended(bytes, MCXT_ALLOC_HUGE);
		free(kept_base);
		kept_base = p;
		kept_size = bytes;
	}
	kept_taken = true;
	kept_release.func = kept_give_back;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &kept_release);
	return kept_base;
}

/*
 * The values of an array with NULLs, each NULL a NaN (a gap): one pass over
 * the null bitmap, a byte (8 elements) at a time; a byte without NULLs (the
 * common case) copies its 8 values at once.
 */
static const double *
values_with_gaps(ArrayType *arr, int64 n)
{
	double	   *x = series_buffer(n);
	const bits8 *bitmap = ARR_NULLBITMAP(arr);
	const double *data = (const double *) ARR_DATA_PTR(arr);
	const double gap = get_float8_nan();
	int64		whole = n / 8 * 8;	/* elements in full bitmap bytes */

	for (int64 b = 0; b < whole; b += 8)
	{
		bits8		present = bitmap[b / 8];

		if (present == 0xFF)
		{
			memcpy(&x[b], data, 8 * sizeof(double));
			data += 8;
			continue;
		}
		for (int k = 0; k < 8; k++)
			x[b + k] = (present >> k) & 1 ? *data++ : gap;
	}
	for (int64 i = whole; i < n; i++)
		x[i] = (bitmap[i / 8] >> (i % 8)) & 1 ? *data++ : gap;
	return x;
}

/* A float8[] series; skip_gaps: NULL, NaN and ±Infinity are gaps (a NULL
 * becomes NaN), else each is an error (22004, 22000). */
static void
series_from_array(ArrayType *arr, const char *argname, bool skip_gaps, TsmSeries *out)
{
	int64		n = tsm_array_length(arr, argname, tsm_one_series_hint);

	if (ARR_ELEMTYPE(arr) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s must be a float8[] array", argname)));
	if (skip_gaps)
	{
		out->x = n > 0 && ARR_HASNULL(arr) ? values_with_gaps(arr, n) : (const double *) ARR_DATA_PTR(arr);
		out->n = n;
		return;
	}
	tsm_array_reject_nulls(arr, n, argname, "Remove or fill the NULLs first, e.g. with coalesce() or interpolation.");
	out->x = (const double *) ARR_DATA_PTR(arr);
	out->n = n;
	{
		int64		bad = tsm_first_nonfinite(out->x, n);

		if (bad >= 0)
			reject_value(out->x[bad], bad + 1, argname, "position");
	}
}

void
tsm_series_from_array(ArrayType *arr, const char *argname, TsmSeries *out)
{
	series_from_array(arr, argname, false, out);
}

void
tsm_series_from_array_gaps(ArrayType *arr, const char *argname, bool skip_gaps, TsmSeries *out)
{
	series_from_array(arr, argname, skip_gaps, out);
}

/* ---- the query form ---------------------------------------------------- */

static void
growing_free(void *arg)
{
	TsmGrowing *g = (TsmGrowing *) arg;

	free(g->data);
	g->data = NULL;
}

TsmGrowing *
tsm_growing_new(size_t elem_size)
{
	TsmGrowing *g = palloc0(sizeof(TsmGrowing));

	g->elem_size = elem_size;
	g->cb.func = growing_free;
	g->cb.arg = g;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &g->cb);
	return g;
}

void
tsm_growing_room(TsmGrowing *g, int64 n, const char *what, const char *argname)
{
	int64		cap;
	void	   *p;

	if (n < g->cap)
		return;
	cap = g->cap ? g->cap * 2 : 65536;
	p = realloc(g->data, (size_t) cap * g->elem_size);
	if (p == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory reading the %s of %s (%lld rows so far)", what, argname, (long long) n)));
	g->data = p;
	g->cap = cap;
}

typedef struct SeriesReceiver
{
	DestReceiver pub;
	TsmGrowing *values;			/* doubles */
	int64		n;				/* rows read */
	Oid			type;
	const char *argname;
	TsmTimes   *times;			/* the timed query form: (time, value) rows; else NULL */
	Oid			time_type;		/* the type its times must have (InvalidOid: any) */
	bool		times_optional; /* one column (no times) will do too */
	bool		skip_gaps;		/* NULL, NaN and ±Infinity are gaps (NULL: NaN), not errors */
	int			value_attno;	/* the value column: 1, or 2 after the time */
} SeriesReceiver;

static void
receiver_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	SeriesReceiver *r = (SeriesReceiver *) self;
	Oid			t;

	if (r->times && r->times_optional && typeinfo->natts == 1)
		r->times = NULL;		/* the values alone */
	else if (r->times && r->times_optional && typeinfo->natts != 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the query in %s must return one column (the values) or two (times and values), not %d",
						r->argname, typeinfo->natts),
				 errhint("For example: 'SELECT v FROM readings ORDER BY ts' or 'SELECT ts, v FROM readings ORDER BY ts'.")));
	if (r->times)
		tsm_times_query_start(r->times, r->time_type, typeinfo, r->argname);
	else if (typeinfo->natts != 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the query in %s must return exactly one column, not %d", r->argname, typeinfo->natts),
				 errhint("Select only the value column, ordered by time, e.g. 'SELECT v FROM t ORDER BY ts'; "
						 "to have the times returned, pass their type first: f(NULL::timestamptz, 'SELECT ts, v ...', ...).")));
	r->value_attno = r->times ? 2 : 1;
	t = TupleDescAttr(typeinfo, r->value_attno - 1)->atttypid;
	t = getBaseType(t);
	if (t != FLOAT8OID && t != FLOAT4OID && t != INT2OID && t != INT4OID && t != INT8OID && t != NUMERICOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the query in %s must return a numeric %scolumn, not %s", r->argname,
						r->times ? "value " : "", format_type_be(t)),
				 errhint("Cast the column to float8.")));
	r->type = t;
}

/* A value of the query's numeric column as float8. */
static double
datum_value(Datum d, Oid type)
{
	switch (type)
	{
		case FLOAT8OID:
			return DatumGetFloat8(d);
		case FLOAT4OID:
			return DatumGetFloat4(d);
		case INT2OID:
			return DatumGetInt16(d);
		case INT4OID:
			return DatumGetInt32(d);
		case INT8OID:
			return (double) DatumGetInt64(d);
		default:
			return DatumGetFloat8(DirectFunctionCall1(numeric_float8, d));
	}
}

static bool
receiver_receive(TupleTableSlot *slot, DestReceiver *self)
{
	SeriesReceiver *r = (SeriesReceiver *) self;
	bool		isnull;
	Datum		d;
	double		v;

	if (r->times)
	{
		d = slot_getattr(slot, 1, &isnull);
		tsm_times_query_push(r->times, d, isnull, r->argname);
	}
	d = slot_getattr(slot, r->value_attno, &isnull);

	if (isnull && !r->skip_gaps)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the query in %s returned a NULL at row %lld", r->argname, (long long) (r->n + 1)),
				 errhint("Filter or fill the NULLs in the query, e.g. WHERE v IS NOT NULL or coalesce().")));
	v = isnull ? get_float8_nan() : datum_value(d, r->type);	/* a NULL: a gap */
	if (!isfinite(v) && !r->skip_gaps)
		reject_value(v, r->n + 1, r->argname, "row");
	tsm_growing_room(r->values, r->n, "series", r->argname);
	((double *) r->values->data)[r->n++] = v;
	return true;
}

static void
receiver_shutdown(DestReceiver *self)
{
}

static void
receiver_destroy(DestReceiver *self)
{
}

/*
 * The statements of query must be one plain SELECT: no INSERT, UPDATE or
 * DELETE (with RETURNING or not), no data-modifying WITH, no SELECT INTO, no
 * row locks, no utility command, one statement only.
 */
static void
require_one_select(SPIPlanPtr plan, const char *argname)
{
	List	   *sources = SPI_plan_get_plan_sources(plan);
	ListCell   *lc;

	if (list_length(sources) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the query in %s must be one statement, not %d", argname, list_length(sources)),
				 errhint("Pass a single SELECT, without a semicolon between statements.")));
	foreach(lc, ((CachedPlanSource *) linitial(sources))->query_list)
	{
		Query	   *q = lfirst_node(Query, lc);

		if (q->commandType != CMD_SELECT || q->utilityStmt != NULL || q->hasModifyingCTE ||
			q->rowMarks != NIL)
			ereport(ERROR,
					(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
					 errmsg("the query in %s must be a read-only SELECT", argname),
					 errdetail("tsmine runs the queries it is given read-only: %s is not allowed.",
							   GetCommandTagName(((CachedPlanSource *) linitial(sources))->commandTag)),
					 errhint("Pass a SELECT (without INTO, FOR UPDATE or data-modifying WITH) that reads the series.")));
	}
}

int
tsm_spi_run_read_only(const char *query, const char *argname, DestReceiver *dest)
{
	SPIPlanPtr	plan = SPI_prepare(query, 0, NULL);
	SPIExecuteOptions opts;
	bool		was_read_only = XactReadOnly;
	int			rc;

	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	require_one_select(plan, argname);
	memset(&opts, 0, sizeof(opts));
	opts.dest = dest;
	opts.read_only = true;
	/* functions the SELECT calls cannot write either, as in a read-only transaction */
	XactReadOnly = true;
	PG_TRY();
	{
		rc = SPI_execute_plan_extended(plan, &opts);
	}
	PG_FINALLY();
	{
		XactReadOnly = was_read_only;
	}
	PG_END_TRY();
	return rc;
}

/* ---- array literals where a query goes --------------------------------- */

ArrayType *
tsm_array_literal(text *t)
{
	const char *p = VARDATA_ANY(t);
	const char *end = p + VARSIZE_ANY_EXHDR(t);
	char	   *literal;

	while (p < end && scanner_isspace(*p))
		p++;
	if (p == end || *p != '{')
		return NULL;
	/* array_in raises 22P02 (malformed array literal) with the position */
	literal = text_to_cstring(t);
	return DatumGetArrayTypeP(OidFunctionCall3(F_ARRAY_IN, CStringGetDatum(literal),
											   ObjectIdGetDatum(FLOAT8OID), Int32GetDatum(-1)));
}

/* The series of an array literal given where a query goes: the array's;
 * a form that needs times from the query cannot take one. */
static void
series_from_literal(ArrayType *literal, const char *argname, TsmTimes *times, bool times_optional,
					bool skip_gaps, TsmSeries *out)
{
	if (times && !times_optional)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s is an array literal, which has no times", argname),
				 errhint("Pass the times and the values as two arrays, (times, series), or a query that returns (time, value) rows.")));
	if (times)
		memset(times, 0, sizeof(*times));
	series_from_array(literal, "series", skip_gaps, out);
}

/* The query form: one numeric column, or (times not NULL) (time, value)
 * rows whose times are read into *times, of type time_type (InvalidOid: any
 * a time may have); with times_optional, one column will do too.  Every query
 * form comes here: text that is an array literal is the array it spells. */
static void
series_from_query(text *sql, const char *argname, TsmTimes *times, Oid time_type, bool times_optional,
				  bool skip_gaps, TsmSeries *out)
{
	ArrayType  *literal = tsm_array_literal(sql);
	char	   *query;
	SeriesReceiver rcv;
	int			rc;

	if (literal)
	{
		series_from_literal(literal, argname, times, times_optional, skip_gaps, out);
		return;
	}
	query = text_to_cstring(sql);
	memset(&rcv, 0, sizeof(rcv));
	rcv.pub.receiveSlot = receiver_receive;
	rcv.pub.rStartup = receiver_startup;
	rcv.pub.rShutdown = receiver_shutdown;
	rcv.pub.rDestroy = receiver_destroy;
	rcv.pub.mydest = DestNone;
	rcv.values = tsm_growing_new(sizeof(double));	/* freed with this context */
	rcv.argname = argname;
	rcv.times = times;
	rcv.time_type = time_type;
	rcv.times_optional = times_optional;
	rcv.skip_gaps = skip_gaps;
	if (times)
		tsm_times_query_begin(times);	/* its keys live in this context too */

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rc = tsm_spi_run_read_only(query, argname, (DestReceiver *) &rcv);
	/* a SELECT into a DestNone receiver reports SPI_OK_UTILITY */
	if (rc != SPI_OK_SELECT && rc != SPI_OK_UTILITY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the query in %s must be a SELECT returning one numeric column", argname),
				 errdetail("SPI_execute returned %s.", SPI_result_code_string(rc))));
	SPI_finish();
	pfree(query);
	out->x = rcv.values->data;
	out->n = rcv.n;
}

void
tsm_series_from_query(text *sql, const char *argname, TsmSeries *out)
{
	series_from_query(sql, argname, NULL, InvalidOid, false, false, out);
}

void
tsm_series_maybe_timed_from_query(text *sql, const char *argname, TsmSeries *out, TsmTimes *times)
{
	series_from_query(sql, argname, times, InvalidOid, true, true, out);
}

void
tsm_series_with_gaps(FunctionCallInfo fcinfo, int argno, const char *argname, bool query, bool skip_gaps,
					 Oid time_type, TsmSeries *out, TsmTimes *times)
{
	TSM_REQUIRE_ARG(fcinfo, argno, argname);
	if (query)
		series_from_query(PG_GETARG_TEXT_PP(argno), argname, times, time_type, false, skip_gaps, out);
	else
		series_from_array(PG_GETARG_ARRAYTYPE_P(argno), argname, skip_gaps, out);
}

void
tsm_series_arg(FunctionCallInfo fcinfo, int argno, const char *argname, bool query, TsmSeries *out)
{
	double		t0 = tsm_now_ms();

	tsm_series_with_gaps(fcinfo, argno, argname, query, false, InvalidOid, out, NULL);
	tsm_input_ms = tsm_now_ms() - t0;
}

bool
tsm_gaps_arg(FunctionCallInfo fcinfo, int argno)
{
	const char *rule;

	if (PG_NARGS() <= argno)
		return true;			/* a call stored before the argument existed: its default */
	rule = tsm_text_arg(fcinfo, argno, "gaps");
	if (pg_strcasecmp(rule, "skip") != 0 && pg_strcasecmp(rule, "error") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown gaps \"%s\"", rule),
				 errhint("Use 'skip' (NULL, NaN and infinite values are gaps) or 'error'.")));
	return pg_strcasecmp(rule, "skip") == 0;
}

int32
tsm_int_arg(FunctionCallInfo fcinfo, int argno, const char *argname)
{
	TSM_REQUIRE_ARG(fcinfo, argno, argname);
	return PG_GETARG_INT32(argno);
}

const char *
tsm_text_arg(FunctionCallInfo fcinfo, int argno, const char *argname)
{
	TSM_REQUIRE_ARG(fcinfo, argno, argname);
	return text_to_cstring(PG_GETARG_TEXT_PP(argno));
}

int32
tsm_normalize_arg(FunctionCallInfo fcinfo, int argno)
{
	if (PG_NARGS() <= argno)
		return 1;				/* a call stored before the argument existed: its default */
	TSM_REQUIRE_ARG(fcinfo, argno, "normalized");
	return PG_GETARG_BOOL(argno) ? 1 : 0;
}

double
tsm_distance_arg(FunctionCallInfo fcinfo, int argno)
{
	double		d;

	if (PG_ARGISNULL(argno))
		return NAN;
	d = PG_GETARG_FLOAT8(argno);
	if (isnan(d))
	{
		uint64		given = TS_NAN_GIVEN_BITS;

		memcpy(&d, &given, sizeof(d));
	}
	return d;
}
