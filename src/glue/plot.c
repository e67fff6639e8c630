/*
 * plot.c — ts_plot: the SVG picture of a series (src/core/plot.cpp), its
 * marks read from jsonb (the result rows of the series functions, by kind),
 * its x axis labelled with positions or with the series' times.
 */
#include "glue.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "api_plot.h"

/* The keys of the marks object, in the order of TsMarkKind. */
static const char *const mark_keys[] = {"discords", "motifs", "matches", "outliers"};

static void
bad_marks(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("marks: %s", what),
			 errhint("Pass an object of arrays of rows, e.g. jsonb_build_object('discords', "
					 "(SELECT jsonb_agg(d) FROM ts_discords(s, 100, 3) d)); keys: discords, motifs, matches, outliers.")));
}

/* A whole number of a mark row (key of what); NULL when absent. */
static bool
row_number_field(JsonbContainer *row, const char *key, int64 *out)
{
	JsonbValue *v = getKeyJsonValueFromContainer(row, key, strlen(key), NULL);

	if (v == NULL || v->type == jbvNull)
		return false;
	if (v->type != jbvNumeric)
		bad_marks(psprintf("\"%s\" must be a number", key));
	*out = DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(v->val.numeric)));
	return true;
}

/* The mark(s) of one row (a number: its position; an object: a result row
 * with pos, or pos_a and pos_b for a motif pair, rank and length if given):
 * appended to marks[*count]. */
static void
read_mark_row(JsonbValue *v, int32 kind, int64 ordinal, int64 m, TsPlotMark *marks, int64 *count)
{
	TsPlotMark mk = {kind, (int32) Min(ordinal, PG_INT32_MAX), 0, kind == TS_MARK_OUTLIER ? 1 : m};
	int64		at[2];
	int			members = 1;

	if (v->type == jbvNumeric)
		at[0] = DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(v->val.numeric)));
	else if (v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data))
	{
		JsonbContainer *row = v->val.binary.data;
		int64		rank,
					length;

		if (kind == TS_MARK_MOTIF)
		{
			if (!row_number_field(row, "pos_a", &at[0]) || !row_number_field(row, "pos_b", &at[1]))
				bad_marks("a motif row needs \"pos_a\" and \"pos_b\"");
			members = 2;
		}
		else if (!row_number_field(row, "pos", &at[0]))
			bad_marks(psprintf("a row of %s needs \"pos\"", mark_keys[kind]));
		if (row_number_field(row, "rank", &rank))
			mk.rank = (int32) Max(Min(rank, PG_INT32_MAX), 0);
		if (row_number_field(row, "length", &length))
			mk.length = length;
	}
	else
		bad_marks(psprintf("the rows of %s must be objects (result rows) or positions", mark_keys[kind]));
	for (int i = 0; i < members; i++)
	{
		mk.pos = at[i] - 1;		/* 1-based in SQL */
		marks[(*count)++] = mk;
	}
}

/* The marks of a jsonb object {"discords": [rows], "motifs": [...], ...};
 * windows of m values unless a row says its length. */
static TsPlotMark *
read_marks(Jsonb *jb, int64 m, int64 *count)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int32		kind = -1;
	TsPlotMark *marks;

	*count = 0;
	if (!JB_ROOT_IS_OBJECT(jb))
		bad_marks("must be a jsonb object");
	marks = palloc(sizeof(TsPlotMark));
	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			kind = -1;
			for (int k = 0; k < lengthof(mark_keys); k++)
				if (v.val.string.len == strlen(mark_keys[k]) && memcmp(v.val.string.val, mark_keys[k], v.val.string.len) == 0)
					kind = k;
			if (kind < 0)
				bad_marks(psprintf("unknown key \"%.*s\"", v.val.string.len, v.val.string.val));
		}
		else if (tok == WJB_VALUE && v.type != jbvNull)
		{
			JsonbIterator *rows;
			JsonbValue	row;
			int64		ordinal = 0;

			if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data))
				bad_marks(psprintf("\"%s\" must be an array of rows", mark_keys[kind]));
			/* room for two marks per row (a motif pair) */
			marks = repalloc_huge(marks, sizeof(TsPlotMark) *
								  (*count + 2 * (int64) JsonContainerSize(v.val.binary.data) + 1));
			rows = JsonbIteratorInit(v.val.binary.data);
			while ((tok = JsonbIteratorNext(&rows, &row, true)) != WJB_DONE)
				if (tok == WJB_ELEM && row.type != jbvNull)
					read_mark_row(&row, kind, ++ordinal, m, marks, count);
		}
	}
	return marks;
}

/* The profile: a 1-D float8[] whose NULLs (windows without a distance) become NaN. */
static const double *
read_profile(ArrayType *arr, int64 *n)
{
	double	   *p;
	bits8	   *bitmap = ARR_NULLBITMAP(arr);
	const double *data = (const double *) ARR_DATA_PTR(arr);

	*n = tsm_array_length(arr, "profile", NULL);
	if (!bitmap)
		return data;
	p = palloc_extended(sizeof(double) * Max(*n, 1), MCXT_ALLOC_HUGE);
	for (int64 i = 0; i < *n; i++)
		p[i] = (bitmap[i / 8] & (1 << (i % 8))) ? *data++ : NAN;
	return p;
}

/* x-axis labels at round positions, as the times there read. */
static void
time_ticks(const TsmTimes *times, int32 width, TsPlotOptions *o)
{
	int64	   *pos = palloc(sizeof(int64) * 16);
	const char **label = palloc(sizeof(char *) * 16);

	o->n_ticks = tsm_plot_ticks(times->n, Max(2, Min(16, (width - 92) / 160)), pos);
	for (int32 t = 0; t < o->n_ticks; t++)
		label[t] = tsm_time_text(times, pos[t]);
	o->tick_pos = pos;
	o->tick_label = label;
}

/*
 * ts_plot(series | series_sql, marks, m, profile, width, height, title[, times]):
 * the array form's times (argument 7) or the query's (time, value) rows
 * label the x axis.
 */
static Datum
plot_common(FunctionCallInfo fcinfo, bool query)
{
	TsmSeries	s;
	TsmTimes	times;
	TsPlotOptions o;
	TsPlotMark *marks = NULL;
	int64		n_marks = 0;
	int64		m = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2);
	TsExec		ex;
	TsStatus	st;
	char	   *svg;
	int64		len;
	double		t0 = tsm_now_ms();

	memset(&o, 0, sizeof(o));
	memset(&times, 0, sizeof(times));
	o.width = tsm_int_arg(fcinfo, 4, "width");
	o.height = tsm_int_arg(fcinfo, 5, "height");
	o.title = PG_ARGISNULL(6) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(6));
	if (query)
	{
		TSM_REQUIRE_ARG(fcinfo, 0, "series_sql");
		tsm_series_maybe_timed_from_query(PG_GETARG_TEXT_PP(0), "series_sql", &s, &times);
		tsm_input_ms = tsm_now_ms() - t0;
	}
	else
	{
		tsm_series_with_gaps(fcinfo, 0, "series", false, true, InvalidOid, &s, NULL);	/* gaps: breaks */
		tsm_input_ms = tsm_now_ms() - t0;
		if (!PG_ARGISNULL(7))
			tsm_times_from_array(PG_GETARG_ARRAYTYPE_P(7), s.n, "times", "series", &times);
	}
	if (!PG_ARGISNULL(1))
		marks = read_marks(PG_GETARG_JSONB_P(1), m, &n_marks);
	if (!PG_ARGISNULL(3))
		o.profile = read_profile(PG_GETARG_ARRAYTYPE_P(3), &o.profile_n);
	if (times.key && times.n > 0)
		time_ticks(&times, o.width, &o);
	tsm_exec_prepare(&ex, "ts_plot");
	tsm_plot_svg(s.x, s.n, marks, n_marks, &o, &ex, &svg, &len, &st);
	tsm_exec_finish("ts_plot", &ex, s.n, &st, t0);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(svg, (int) len));
}

PG_FUNCTION_INFO_V1(ts_plot);
Datum
ts_plot(PG_FUNCTION_ARGS)
{
	return plot_common(fcinfo, false);
}

PG_FUNCTION_INFO_V1(ts_plot_query);
Datum
ts_plot_query(PG_FUNCTION_ARGS)
{
	return plot_common(fcinfo, true);
}
