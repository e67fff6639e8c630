/*
 * shapelets.c — ts_shapelets, ts_shapelet_distance, ts_shapelet_tree and
 * ts_shapelet_classify: the training query, labels (compared as text, ids in
 * byte order of the label text), the model as jsonb and back.
 */
#include "glue.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "api_shapelets.h"

#define MODEL_NAME "tsmine shapelet tree"

/* ---- queries of series ------------------------------------------------ */

/* Connects SPI and runs query, which must be a SELECT whose last column is a
 * float8[] and that has min_cols..max_cols columns; usage describes it in
 * errors. */
static TupleDesc
spi_select_series(const char *query, const char *argname, int min_cols, int max_cols, const char *usage)
{
	TupleDesc	desc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (tsm_spi_run_read_only(query, argname, NULL) != SPI_OK_SELECT || SPI_tuptable == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a SELECT returning %s", argname, usage)));
	desc = SPI_tuptable->tupdesc;
	if (desc->natts < min_cols || desc->natts > max_cols ||
		getBaseType(TupleDescAttr(desc, desc->natts - 1)->atttypid) != FLOAT8ARRAYOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s must return %s", argname, usage),
				 max_cols == 3
				 ? errhint("For example: SELECT label, times, series FROM train ORDER BY id. Cast the series with ::float8[].")
				 : errhint("For example: SELECT label, series FROM train ORDER BY id. Cast the series with ::float8[].")));
	return desc;
}

/* The series in the last column of SPI result row i (0-based), checked (no
 * NULL, NaN or infinity; with skip_gaps, NULL elements as NaN, and NaN and
 * ±Infinity pass as gaps) and copied into memory of context `into`. */
static const double *
spi_copy_series(TupleDesc desc, int64 i, const char *argname, bool skip_gaps, MemoryContext into, int64 *len)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[i], desc, desc->natts, &isnull);
	TsmSeries	s;
	char		what[96];
	double	   *copy;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s returned a NULL series at row %lld", argname, (long long) (i + 1))));
	snprintf(what, sizeof(what), "the series of row %lld of %s", (long long) (i + 1), argname);
	tsm_series_from_array_gaps(DatumGetArrayTypeP(d), what, skip_gaps, &s);
	copy = MemoryContextAllocExtended(into, sizeof(double) * Max(s.n, 1), MCXT_ALLOC_HUGE);
	memcpy(copy, s.x, sizeof(double) * s.n);
	*len = s.n;
	return copy;
}

/* ---- the training query ------------------------------------------------ */

typedef struct TrainingSet
{
	int64		n;
	const double **x;
	int64	   *len;
	int32	   *y;
	int32		n_classes;
	char	  **labels;			/* n_classes, sorted */
	int64		total_values;
	TsmTimes   *times;			/* n, the times of each series; NULL without times */
} TrainingSet;

static int
cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The times of row i of a training query (label, times, series): an array
 * of time_type (InvalidOid: of any type a time may have), one per value of
 * the series (len values). */
static void
spi_read_times(TupleDesc desc, int64 i, Oid time_type, int64 len, TsmTimes *out)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[i], desc, 2, &isnull);
	char		times_name[96],
				values_name[96];

	snprintf(times_name, sizeof(times_name), "the times of row %lld of training_sql", (long long) (i + 1));
	snprintf(values_name, sizeof(values_name), "its series");
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("training_sql returned NULL times at row %lld", (long long) (i + 1))));
	tsm_times_from_array(DatumGetArrayTypeP(d), len, times_name, values_name, out);
	if (OidIsValid(time_type) && out->type != time_type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("training_sql returns times of type %s, but time_type is %s",
						format_type_be(out->type), format_type_be(time_type)),
				 errhint("Pass time_type as NULL::%s, or cast the times in the query.", format_type_be(out->type))));
}

/* Runs training_sql and reads it into memory of the current context: its
 * rows are (label, series float8[]), or (label, times, series float8[]) with
 * a time_type (the times' type) or when times_optional (any type a time may
 * have); skip_gaps: the series' NULL, NaN and ±Infinity values are gaps. */
static void
read_training(text *sql, Oid time_type, bool times_optional, bool skip_gaps, TrainingSet *t)
{
	char	   *query = text_to_cstring(sql);
	MemoryContext outer = CurrentMemoryContext;
	char	  **row_labels;
	char	  **sorted;
	TupleDesc	desc;
	double		t_read = tsm_now_ms();

	if (OidIsValid(time_type))
		desc = spi_select_series(query, "training_sql", 3, 3, "three columns: a label, the times and a float8[] series");
	else if (times_optional)
		desc = spi_select_series(query, "training_sql", 2, 3,
								 "a label and a float8[] series, or a label, the times and a float8[] series");
	else
		desc = spi_select_series(query, "training_sql", 2, 2, "two columns, a label and a float8[] series");
	t->n = (int64) SPI_processed;
	MemoryContextSwitchTo(outer);
	t->x = palloc0(sizeof(double *) * Max(t->n, 1));
	t->len = palloc0(sizeof(int64) * Max(t->n, 1));
	t->y = palloc0(sizeof(int32) * Max(t->n, 1));
	t->times = desc->natts == 3 ? palloc0(sizeof(TsmTimes) * Max(t->n, 1)) : NULL;
	row_labels = palloc0(sizeof(char *) * Max(t->n, 1));
	t->total_values = 0;
	for (int64 i = 0; i < t->n; i++)
	{
		char	   *label = SPI_getvalue(SPI_tuptable->vals[i], desc, 1);

		if (label == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("training_sql returned a NULL label at row %lld", (long long) (i + 1))));
		row_labels[i] = pstrdup(label);
		t->x[i] = spi_copy_series(desc, i, "training_sql", skip_gaps, outer, &t->len[i]);
		if (t->times)
			spi_read_times(desc, i, time_type, t->len[i], &t->times[i]);
		t->total_values += t->len[i];
	}
	SPI_finish();
	tsm_input_ms = tsm_now_ms() - t_read;	/* ts_last_run's input_ms */

	/* labels → dense ids in byte order of their text */
	sorted = palloc(sizeof(char *) * Max(t->n, 1));
	memcpy(sorted, row_labels, sizeof(char *) * t->n);
	qsort(sorted, t->n, sizeof(char *), cmp_cstr);
	t->n_classes = 0;
	for (int64 i = 0; i < t->n; i++)
		if (i == 0 || strcmp(sorted[i], sorted[i - 1]) != 0)
			sorted[t->n_classes++] = sorted[i];
	t->labels = sorted;
	for (int64 i = 0; i < t->n; i++)
	{
		char	  **hit = bsearch(&row_labels[i], sorted, t->n_classes, sizeof(char *), cmp_cstr);

		t->y[i] = (int32) (hit - sorted);
	}
}

/* min_length, max_length and step, arguments at..at+2 (the core checks them) */
static void
length_args(FunctionCallInfo fcinfo, int at, int *minL, int *maxL, int *step)
{
	*minL = tsm_int_arg(fcinfo, at, "min_length");
	*maxL = tsm_int_arg(fcinfo, at + 1, "max_length");
	*step = tsm_int_arg(fcinfo, at + 2, "step");
}

static Datum
float8_array(const double *v, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		d[i] = Float8GetDatum(v[i]);
	return PointerGetDatum(construct_array(d, n, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* ---- ts_shapelets ------------------------------------------------------ */

/* ts_shapelets, and with `timed` its form ts_shapelets(time_type, ...), whose
 * training rows carry the times of their series and whose shapelets carry
 * the time they start at. */
static Datum
shapelets_common(FunctionCallInfo fcinfo, bool timed)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TrainingSet t;
	int			minL,
				maxL,
				step;
	int64		k = TSM_ARG_INT_OR_NULL(fcinfo, TSM_AT(timed, 4));
	Oid			time_type = InvalidOid;
	TsExec		ex;
	TsShapelets out;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	TSM_REQUIRE_ARG(fcinfo, TSM_AT(timed, 0), "training_sql");
	length_args(fcinfo, TSM_AT(timed, 1), &minL, &maxL, &step);
	if (timed)
	{
		time_type = getBaseType(get_fn_expr_argtype(fcinfo->flinfo, 0));
		tsm_time_type_check(time_type, "time_type");
	}
	read_training(PG_GETARG_TEXT_PP(TSM_AT(timed, 0)), time_type, false, tsm_gaps_arg(fcinfo, TSM_AT(timed, 5)), &t);
	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&ex, "ts_shapelets");
	tsm_shapelets(t.x, t.len, t.y, t.n, t.n_classes, minL, maxL, step, k, &ex, &out, &st);
	tsm_exec_finish("ts_shapelets", &ex, t.total_values, &st, t0);
	for (int i = 0; i < out.count; i++)
	{
		TsShapelet *s = &out.items[i];
		Datum		values[9];
		bool		nulls[9] = {0};

		values[0] = Int32GetDatum(i + 1);
		values[1] = Int64GetDatum(s->source_row + 1);
		values[2] = Int32GetDatum(s->start + 1);
		values[3] = Int32GetDatum(s->length);
		values[4] = Float8GetDatum(s->threshold);
		values[5] = Float8GetDatum(s->info_gain);
		values[6] = Float8GetDatum(s->gap);
		values[7] = float8_array(s->values, s->length);
		if (timed)
			values[8] = tsm_time_at(&t.times[s->source_row], s->start);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(ts_shapelets);
Datum
ts_shapelets(PG_FUNCTION_ARGS)
{
	return shapelets_common(fcinfo, false);
}

PG_FUNCTION_INFO_V1(ts_shapelets_timed);
Datum
ts_shapelets_timed(PG_FUNCTION_ARGS)
{
	return shapelets_common(fcinfo, true);
}

/* ---- ts_shapelet_distance ---------------------------------------------- */

/* ts_shapelet_distance(shapelet, series, gaps): NULL when every window of
 * the series holds a gap (the core's NaN). */
PG_FUNCTION_INFO_V1(ts_shapelet_distance);
Datum
ts_shapelet_distance(PG_FUNCTION_ARGS)
{
	TsmSeries	sh,
				s;
	double		d;
	TsStatus	st;
	TsExec		ex;

	TSM_REQUIRE_ARG(fcinfo, 0, "shapelet");
	TSM_REQUIRE_ARG(fcinfo, 1, "series");
	tsm_series_from_array(PG_GETARG_ARRAYTYPE_P(0), "shapelet", &sh);
	tsm_series_from_array_gaps(PG_GETARG_ARRAYTYPE_P(1), "series", tsm_gaps_arg(fcinfo, 2), &s);
	memset(&ex, 0, sizeof(ex));
	ex.used_backend = TS_BACKEND_CPU;
	if (sh.n > PG_INT32_MAX)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("shapelet is too long")));
	tsm_shapelet_distance(sh.x, (int32) sh.n, s.x, s.n, &d, &st);
	if (st.code != TS_OK)
		tsm_exec_finish("ts_shapelet_distance", &ex, s.n, &st, 0);
	if (isnan(d))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(d);
}

/* ---- the model: nodes → jsonb ------------------------------------------ */

static void
json_number(StringInfo b, double v)
{
	if (isfinite(v))
		appendStringInfo(b, "%.17g", v);
	else
		appendStringInfoString(b, "null");
}

static void
json_node(StringInfo b, const TsShapeletTree *tree, const TrainingSet *t, int idx)
{
	const TsShapeletNode *nd = &tree->nodes[idx];
	static const char *const ops[] = {"single", "and", "or"};

	appendStringInfo(b, "{\"kind\": \"%s\", \"label\": ", nd->kind == TS_SHAPELET_LEAF ? "leaf" : "split");
	escape_json(b, t->labels[nd->class_id]);
	appendStringInfo(b, ", \"n_series\": %lld, \"class_counts\": {", (long long) nd->n_series);
	for (int c = 0; c < tree->n_classes; c++)
	{
		if (c)
			appendStringInfoString(b, ", ");
		escape_json(b, t->labels[c]);
		appendStringInfo(b, ": %lld", (long long) nd->class_counts[c]);
	}
	appendStringInfoChar(b, '}');
	if (nd->kind == TS_SHAPELET_SPLIT)
	{
		appendStringInfo(b, ", \"op\": \"%s\", \"threshold\": ", ops[nd->op]);
		json_number(b, nd->threshold);
		appendStringInfoString(b, ", \"gain\": ");
		json_number(b, nd->gain);
		appendStringInfoString(b, ", \"gap\": ");
		json_number(b, nd->gap);
		appendStringInfoString(b, ", \"shapelets\": [");
		for (int s = 0; s < nd->n_shapelets; s++)
		{
			appendStringInfo(b, "%s{\"source_row\": %lld, \"start\": %d, ",
							 s ? ", " : "", (long long) nd->source_row[s] + 1, nd->start[s] + 1);
			if (t->times)
			{
				appendStringInfoString(b, "\"start_time\": ");
				tsm_time_json(b, &t->times[nd->source_row[s]], nd->start[s]);
				appendStringInfoString(b, ", ");
			}
			appendStringInfo(b, "\"length\": %d, \"values\": [", nd->length[s]);
			for (int j = 0; j < nd->length[s]; j++)
			{
				if (j)
					appendStringInfoString(b, ", ");
				json_number(b, nd->values[s][j]);
			}
			appendStringInfoString(b, "]}");
		}
		appendStringInfoString(b, "], \"left\": ");
		json_node(b, tree, t, nd->left);
		appendStringInfoString(b, ", \"right\": ");
		json_node(b, tree, t, nd->right);
	}
	appendStringInfoChar(b, '}');
}

PG_FUNCTION_INFO_V1(ts_shapelet_tree);
Datum
ts_shapelet_tree(PG_FUNCTION_ARGS)
{
	TrainingSet t;
	int			minL,
				maxL,
				step;
	int64		depth;
	bool		logical;
	TsExec		ex;
	TsShapeletTree tree;
	TsStatus	st;
	StringInfoData b;
	double		t0 = tsm_now_ms();

	TSM_REQUIRE_ARG(fcinfo, 0, "training_sql");
	length_args(fcinfo, 1, &minL, &maxL, &step);
	depth = TSM_ARG_INT_OR_NULL(fcinfo, 4);
	TSM_REQUIRE_ARG(fcinfo, 5, "logical");
	logical = PG_GETARG_BOOL(5);
	read_training(PG_GETARG_TEXT_PP(0), InvalidOid, true, tsm_gaps_arg(fcinfo, 6), &t);
	tsm_exec_prepare(&ex, "ts_shapelet_tree");
	tsm_shapelet_tree(t.x, t.len, t.y, t.n, t.n_classes, minL, maxL, step, depth,
									   logical ? 1 : 0, &ex, &tree, &st);
	tsm_exec_finish("ts_shapelet_tree", &ex, t.total_values, &st, t0);

	initStringInfo(&b);
	appendStringInfo(&b, "{\"model\": \"%s\", \"version\": 1, \"logical\": %s, \"min_length\": %d, "
					 "\"max_length\": %d, \"step\": %d, \"n_series\": %lld, \"labels\": [",
					 MODEL_NAME, logical ? "true" : "false", minL, maxL, step, (long long) t.n);
	for (int c = 0; c < t.n_classes; c++)
	{
		if (c)
			appendStringInfoString(&b, ", ");
		escape_json(&b, t.labels[c]);
	}
	appendStringInfoString(&b, "], \"root\": ");
	json_node(&b, &tree, &t, 0);
	appendStringInfoChar(&b, '}');
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}

/* ---- the model: jsonb → nodes ------------------------------------------ */

typedef struct Model
{
	Jsonb	   *source;			/* a copy, to recognise the same model */
	int32		n_nodes;
	int32		n_classes;
	char	  **labels;
	TsShapeletNode *nodes;
} Model;

static void
bad_model(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("model is not a tsmine shapelet tree: %s", what),
			 errhint("Pass the jsonb that ts_shapelet_tree() returned.")));
}

static JsonbValue *
field(JsonbContainer *c, const char *key, enum jbvType type, bool required)
{
	JsonbValue *v = getKeyJsonValueFromContainer(c, key, strlen(key), NULL);

	if (v == NULL || v->type != type)
	{
		if (required)
			bad_model(psprintf("missing or mistyped \"%s\"", key));
		return NULL;
	}
	return v;
}

static double
field_number(JsonbContainer *c, const char *key)
{
	JsonbValue *v = field(c, key, jbvNumeric, true);

	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
}

static char *
field_string(JsonbContainer *c, const char *key)
{
	JsonbValue *v = field(c, key, jbvString, true);

	return pnstrdup(v->val.string.val, v->val.string.len);
}

static int
label_id(const Model *m, const char *label)
{
	for (int c = 0; c < m->n_classes; c++)
		if (strcmp(m->labels[c], label) == 0)
			return c;
	bad_model(psprintf("label \"%s\" is not in \"labels\"", label));
	return -1;
}

static int
count_nodes(JsonbContainer *c, int depth)
{
	JsonbValue *l,
			   *r;

	if (depth > 10000)
		bad_model("the tree is too deep");
	l = field(c, "left", jbvBinary, false);
	r = field(c, "right", jbvBinary, false);
	if ((l == NULL) != (r == NULL))
		bad_model("a split needs both \"left\" and \"right\"");
	return 1 + (l ? count_nodes(l->val.binary.data, depth + 1) + count_nodes(r->val.binary.data, depth + 1) : 0);
}

/* fills nodes[*next] from c, pre-order; returns its index */
static int
parse_node(Model *m, JsonbContainer *c, int *next, int depth)
{
	int			idx = (*next)++;
	TsShapeletNode *nd = &m->nodes[idx];
	char	   *kind = field_string(c, "kind");

	nd->depth = depth;
	nd->class_counts = palloc0(sizeof(int64) * m->n_classes);
	nd->class_id = label_id(m, field_string(c, "label"));
	if (strcmp(kind, "leaf") == 0)
	{
		nd->kind = TS_SHAPELET_LEAF;
		return idx;
	}
	if (strcmp(kind, "split") != 0)
		bad_model("\"kind\" must be \"leaf\" or \"split\"");
	nd->kind = TS_SHAPELET_SPLIT;
	{
		char	   *op = field_string(c, "op");
		JsonbValue *arr = field(c, "shapelets", jbvBinary, true);
		JsonbContainer *ac = arr->val.binary.data;
		int			ns = JsonContainerSize(ac);

		nd->op = strcmp(op, "single") == 0 ? TS_SHAPELET_SINGLE :
			strcmp(op, "and") == 0 ? TS_SHAPELET_AND :
			strcmp(op, "or") == 0 ? TS_SHAPELET_OR : -1;
		if (nd->op < 0)
			bad_model("\"op\" must be \"single\", \"and\" or \"or\"");
		if (!JsonContainerIsArray(ac) || ns != (nd->op == TS_SHAPELET_SINGLE ? 1 : 2))
			bad_model("\"shapelets\" must hold 1 shapelet (single) or 2 (and, or)");
		nd->n_shapelets = ns;
		for (int s = 0; s < ns; s++)
		{
			JsonbValue *sv = getIthJsonbValueFromContainer(ac, s);
			JsonbValue *vals;
			JsonbContainer *vc;
			int			len;

			if (sv == NULL || sv->type != jbvBinary)
				bad_model("a shapelet must be an object");
			vals = field(sv->val.binary.data, "values", jbvBinary, true);
			vc = vals->val.binary.data;
			len = JsonContainerSize(vc);
			if (!JsonContainerIsArray(vc) || len < 1)
				bad_model("a shapelet's \"values\" must be a non-empty array");
			nd->length[s] = len;
			nd->values[s] = palloc(sizeof(double) * len);
			for (int j = 0; j < len; j++)
			{
				JsonbValue *e = getIthJsonbValueFromContainer(vc, j);

				if (e == NULL || e->type != jbvNumeric)
					bad_model("a shapelet's values must be numbers");
				nd->values[s][j] = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
																	  NumericGetDatum(e->val.numeric)));
			}
		}
		nd->threshold = field_number(c, "threshold");
		nd->left = parse_node(m, field(c, "left", jbvBinary, true)->val.binary.data, next, depth + 1);
		nd->right = parse_node(m, field(c, "right", jbvBinary, true)->val.binary.data, next, depth + 1);
	}
	return idx;
}

/* The parsed model, cached in fn_extra while the same model comes in. */
static Model *
get_model(FunctionCallInfo fcinfo, Jsonb *jb)
{
	Model	   *m = (Model *) fcinfo->flinfo->fn_extra;
	MemoryContext old;
	JsonbValue *root,
			   *labels;
	JsonbContainer *lc;
	int			next = 0;

	if (m && VARSIZE(m->source) == VARSIZE(jb) && memcmp(m->source, jb, VARSIZE(jb)) == 0)
		return m;
	if (!JB_ROOT_IS_OBJECT(jb))
		bad_model("not a JSON object");
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	m = palloc0(sizeof(Model));
	{
		char	   *name = field_string(&jb->root, "model");

		if (strcmp(name, MODEL_NAME) != 0)
			bad_model(psprintf("\"model\" is \"%s\"", name));
	}
	labels = field(&jb->root, "labels", jbvBinary, true);
	lc = labels->val.binary.data;
	if (!JsonContainerIsArray(lc) || JsonContainerSize(lc) < 1)
		bad_model("\"labels\" must be a non-empty array");
	m->n_classes = JsonContainerSize(lc);
	m->labels = palloc(sizeof(char *) * m->n_classes);
	for (int c = 0; c < m->n_classes; c++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(lc, c);

		if (e == NULL || e->type != jbvString)
			bad_model("\"labels\" must hold strings");
		m->labels[c] = pnstrdup(e->val.string.val, e->val.string.len);
	}
	root = field(&jb->root, "root", jbvBinary, true);
	m->n_nodes = count_nodes(root->val.binary.data, 0);
	m->nodes = palloc0(sizeof(TsShapeletNode) * m->n_nodes);
	parse_node(m, root->val.binary.data, &next, 0);
	m->source = palloc(VARSIZE(jb));
	memcpy(m->source, jb, VARSIZE(jb));
	MemoryContextSwitchTo(old);
	if (fcinfo->flinfo->fn_extra)
		pfree(fcinfo->flinfo->fn_extra);	/* the old model's parts stay until the query ends */
	fcinfo->flinfo->fn_extra = m;
	return m;
}

PG_FUNCTION_INFO_V1(ts_shapelet_classify);
Datum
ts_shapelet_classify(PG_FUNCTION_ARGS)
{
	Model	   *m;
	TsmSeries	s;
	int32		cls;
	TsStatus	st;
	TsExec		ex;

	TSM_REQUIRE_ARG(fcinfo, 0, "model");
	TSM_REQUIRE_ARG(fcinfo, 1, "series");
	m = get_model(fcinfo, PG_GETARG_JSONB_P(0));
	tsm_series_from_array_gaps(PG_GETARG_ARRAYTYPE_P(1), "series", tsm_gaps_arg(fcinfo, 2), &s);
	tsm_shapelet_classify(m->nodes, m->n_nodes, m->n_classes, s.x, s.n, &cls, &st);
	if (st.code != TS_OK)
	{
		memset(&ex, 0, sizeof(ex));
		tsm_exec_finish("ts_shapelet_classify", &ex, s.n, &st, 0);
	}
	PG_RETURN_TEXT_P(cstring_to_text(m->labels[cls]));
}

/* The series to classify in a batch, read into memory of the calling context. */
typedef struct Batch
{
	int64		n;
	const double **x;
	int64	   *len;
	char	  **ids;				/* NULL entries without an id column */
} Batch;

static void
batch_alloc(Batch *b, int64 n)
{
	b->n = n;
	b->x = palloc0(sizeof(double *) * Max(n, 1));
	b->len = palloc0(sizeof(int64) * Max(n, 1));
	b->ids = palloc0(sizeof(char *) * Max(n, 1));
}

/* series_sql's rows (series) or (id, series); an array literal there is one
 * series, without an id (tsm_array_literal); skip_gaps: NULL, NaN and
 * ±Infinity values are gaps. */
static void
read_batch(text *sql, bool skip_gaps, Batch *b)
{
	MemoryContext outer = CurrentMemoryContext;
	ArrayType  *literal = tsm_array_literal(sql);
	TupleDesc	desc;

	if (literal)
	{
		TsmSeries	s;

		tsm_series_from_array_gaps(literal, "series", skip_gaps, &s);
		batch_alloc(b, 1);
		b->x[0] = s.x;
		b->len[0] = s.n;
		return;
	}
	desc = spi_select_series(text_to_cstring(sql), "series_sql", 1, 2, "(series float8[]) or (id, series float8[])");
	MemoryContextSwitchTo(outer);
	batch_alloc(b, (int64) SPI_processed);
	for (int64 i = 0; i < b->n; i++)
	{
		b->x[i] = spi_copy_series(desc, i, "series_sql", skip_gaps, outer, &b->len[i]);
		if (desc->natts == 2)
		{
			char	   *id = SPI_getvalue(SPI_tuptable->vals[i], desc, 1);

			b->ids[i] = id ? MemoryContextStrdup(outer, id) : NULL;
		}
	}
	SPI_finish();
}

/* Batch form: series_sql returns (series) or (id, series); one row each. */
PG_FUNCTION_INFO_V1(ts_shapelet_classify_query);
Datum
ts_shapelet_classify_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Model	   *m;
	Batch		b;
	int32	   *cls;
	TsExec		ex;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	TSM_REQUIRE_ARG(fcinfo, 0, "model");
	TSM_REQUIRE_ARG(fcinfo, 1, "series_sql");
	m = get_model(fcinfo, PG_GETARG_JSONB_P(0));
	read_batch(PG_GETARG_TEXT_PP(1), tsm_gaps_arg(fcinfo, 2), &b);
	cls = palloc0(sizeof(int32) * Max(b.n, 1));
	tsm_input_ms = tsm_now_ms() - t0;	/* ts_last_run's input_ms */

	InitMaterializedSRF(fcinfo, 0);
	tsm_exec_prepare(&ex, "ts_shapelet_classify");
	tsm_shapelet_classify_batch(m->nodes, m->n_nodes, m->n_classes, b.x, b.len, b.n, &ex, cls, &st);
	tsm_exec_finish("ts_shapelet_classify", &ex, b.n, &st, t0);
	for (int64 i = 0; i < b.n; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int64GetDatum(i + 1);
		if (b.ids[i])
			values[1] = CStringGetTextDatum(b.ids[i]);
		else
			nulls[1] = true;
		values[2] = CStringGetTextDatum(m->labels[cls[i]]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
