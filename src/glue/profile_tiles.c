/*
 * profile_tiles.c — one series' matrix profile in tiles, for computing it on
 * several backends or machines (Citus workers): ts_matrix_profile_tile, the
 * aggregate ts_matrix_profile_merge and its two-argument form, and the
 * profile, discords and motifs from merged tiles.
 *
 * A partial profile is a bigint[] whose layout is the core's
 * (api_matrix_profile.h: a header, a bitmap of tiles, a key per window).
 */
#include "glue.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "api_discords.h"
#include "api_matrix_profile.h"
#include "api_motifs.h"

/* Result memory with TSM_RESULT_PREFIX bytes in front, in the current memory
 * context: a partial profile becomes the body of the returned array in place
 * (it outlives the call, so it is not staged). */
static void *
prefixed_alloc(size_t bytes)
{
	char	   *p = MemoryContextAllocExtended(CurrentMemoryContext, TSM_RESULT_PREFIX + bytes,
											   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);

	return p ? p + TSM_RESULT_PREFIX : NULL;
}

/* A partial profile as the core reads it: its words, or none (NULL, 0) when
 * the array is not a one-dimensional bigint[] without NULLs (the core then
 * says that it is not a partial profile). */
typedef struct PartialWords
{
	int64	   *data;
	int64		words;
} PartialWords;

static PartialWords
partial_words(ArrayType *a)
{
	PartialWords w = {NULL, 0};

	if (ARR_ELEMTYPE(a) == INT8OID && ARR_NDIM(a) == 1 && !ARR_HASNULL(a))
	{
		w.data = (int64 *) ARR_DATA_PTR(a);
		w.words = ARR_DIMS(a)[0];
	}
	return w;
}

/* The series (argument 0) of a tile function, with its gaps as its gaps argument says. */
static void
series_of_tiles(FunctionCallInfo fcinfo, int gaps_argno, TsmSeries *s)
{
	double		t0 = tsm_now_ms();

	tsm_series_with_gaps(fcinfo, 0, "series", false, tsm_gaps_arg(fcinfo, gaps_argno), InvalidOid, s, NULL);
	tsm_input_ms = tsm_now_ms() - t0;
}

PG_FUNCTION_INFO_V1(ts_matrix_profile_tile);

/* ts_matrix_profile_tile(series, m, tile, tiles, exclusion_zone, normalized, gaps) → bigint[] */
Datum
ts_matrix_profile_tile(PG_FUNCTION_ARGS)
{
	TsmSeries	s;
	int32		m = tsm_int_arg(fcinfo, 1, "m");
	int64		excl = TSM_ARG_INT_OR_NULL(fcinfo, 4);
	int32		normalize = tsm_normalize_arg(fcinfo, 5);
	const int64 max_words = (int64) ((MaxAllocSize - 1024) / 8);
	int32		tile,
				tiles;
	TsExec		ex;
	TsPartialProfile pp;
	TsStatus	st;
	double		t0 = tsm_now_ms();

	tile = tsm_int_arg(fcinfo, 2, "tile");
	tiles = tsm_int_arg(fcinfo, 3, "tiles");
	series_of_tiles(fcinfo, 6, &s);
	if (s.n - m + 1 > max_words - (int64) tiles / 64 - 64)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the partial profile of %lld windows does not fit in an array of at most 1 GB",
						(long long) (s.n - m + 1))));
	tsm_exec_prepare(&ex, "ts_matrix_profile_tile");
	ex.alloc = prefixed_alloc;
	tsm_matrix_profile_tile(s.x, s.n, m, excl, tile, tiles, normalize, &ex, &pp, &st);
	tsm_exec_finish("ts_matrix_profile_tile", &ex, s.n, &st, t0);
	PG_RETURN_ARRAYTYPE_P(tsm_array8_around(pp.data, pp.words, INT8OID));
}

static void
merge_words(PartialWords into, PartialWords from)
{
	TsStatus	st;

	tsm_matrix_profile_merge(into.data, into.words, from.data, from.words, &st);
	tsm_raise_status(&st);
}

PG_FUNCTION_INFO_V1(ts_matrix_profile_merge);

/* ts_matrix_profile_merge(a, b) → bigint[]: the partial profile of a's and
 * b's tiles (STRICT). */
Datum
ts_matrix_profile_merge(PG_FUNCTION_ARGS)
{
	ArrayType  *into = PG_GETARG_ARRAYTYPE_P_COPY(0);

	merge_words(partial_words(into), partial_words(PG_GETARG_ARRAYTYPE_P(1)));
	PG_RETURN_ARRAYTYPE_P(into);
}

/*
 * The aggregate ts_matrix_profile_merge(partial) keeps its state as a bytea:
 * 4 bytes of padding (so that the words are 8-byte aligned in a palloc'd
 * value), then the partial profile's words in this machine's byte order.
 * Citus ships a partial aggregate's state between nodes as the text of its
 * type: a bytea's is hex, written and read several times faster than a
 * bigint[]'s decimal text (seconds per worker at 2^23 windows).
 */
#define STATE_PAD 4

static bytea *
state_of_words(const void *data, int64 words, MemoryContext cxt)
{
	Size		bytes = VARHDRSZ + STATE_PAD + (Size) words * sizeof(int64);
	bytea	   *b = MemoryContextAllocExtended(cxt, bytes, MCXT_ALLOC_HUGE);

	SET_VARSIZE(b, bytes);
	memset(VARDATA(b), 0, STATE_PAD);
	if (words > 0)
		memcpy(VARDATA(b) + STATE_PAD, data, (Size) words * sizeof(int64));
	return b;
}

/* A state's words (none when it is not a state: the core then refuses it),
 * copied where they are not aligned. */
static PartialWords
state_words(bytea *b)
{
	PartialWords w = {NULL, 0};
	Size		len = VARSIZE(b) - VARHDRSZ;
	char	   *body = VARDATA(b) + STATE_PAD;

	if (len < STATE_PAD || (len - STATE_PAD) % sizeof(int64) != 0)
		return w;
	w.words = (int64) ((len - STATE_PAD) / sizeof(int64));
	if ((uintptr_t) body % sizeof(int64) != 0)
		body = VARDATA(state_of_words(body, w.words, CurrentMemoryContext)) + STATE_PAD;
	w.data = (int64 *) body;
	return w;
}

/* The state (argument 0), to be merged into in place when it is the
 * aggregate's own (plain, in its memory), else a copy. */
static bytea *
state_to_merge_into(FunctionCallInfo fcinfo)
{
	MemoryContext aggcontext;
	Datum		d = PG_GETARG_DATUM(0);

	if (AggCheckCallContext(fcinfo, &aggcontext) && !VARATT_IS_EXTENDED(DatumGetPointer(d)))
		return (bytea *) DatumGetPointer(d);
	return PG_GETARG_BYTEA_P_COPY(0);
}

PG_FUNCTION_INFO_V1(ts_matrix_profile_merge_state);

/*
 * ts_matrix_profile_merge_state(state bytea, partial bigint[]) → bytea: the
 * transition of the aggregate ts_matrix_profile_merge(partial): partial
 * merged into the state; the first becomes the state (checked by merging it
 * with itself, which changes nothing).  NULL partials are skipped.
 */
Datum
ts_matrix_profile_merge_state(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	PartialWords from;
	bytea	   *state;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ts_matrix_profile_merge_state is the aggregate ts_matrix_profile_merge's own"),
				 errhint("Merge partial profiles with ts_matrix_profile_merge(partial) or ts_matrix_profile_merge(a, b).")));
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	from = partial_words(PG_GETARG_ARRAYTYPE_P(1));
	if (PG_ARGISNULL(0))
	{
		state = state_of_words(from.data, from.words, aggcontext);
		from = state_words(state);
	}
	else
		state = state_to_merge_into(fcinfo);
	merge_words(state_words(state), from);
	PG_RETURN_BYTEA_P(state);
}

PG_FUNCTION_INFO_V1(ts_matrix_profile_merge_states);

/* ts_matrix_profile_merge_states(a bytea, b bytea) → bytea: the combine
 * function of the aggregate (STRICT): b's tiles merged into a. */
Datum
ts_matrix_profile_merge_states(PG_FUNCTION_ARGS)
{
	bytea	   *into = state_to_merge_into(fcinfo);

	merge_words(state_words(into), state_words(PG_GETARG_BYTEA_P(1)));
	PG_RETURN_BYTEA_P(into);
}

PG_FUNCTION_INFO_V1(ts_matrix_profile_merge_final);

/* ts_matrix_profile_merge_final(state bytea) → bigint[]: the aggregate's
 * result, the merged partial profile (STRICT). */
Datum
ts_matrix_profile_merge_final(PG_FUNCTION_ARGS)
{
	PartialWords w = state_words(PG_GETARG_BYTEA_P(0));
	int64	   *body = prefixed_alloc((size_t) w.words * sizeof(int64));

	if (!body)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory for the merged partial profile")));
	if (w.words > 0)
		memcpy(body, w.data, (size_t) w.words * sizeof(int64));
	PG_RETURN_ARRAYTYPE_P(tsm_array8_around(body, w.words, INT8OID));
}

/* One call of a *_from_tiles function: the series, the merged tiles and
 * the core's execution. */
typedef struct TilesCall
{
	const char *function;
	TsmSeries	s;
	PartialWords merged;
	TsExec		ex;
	TsStatus	st;
	double		t0;
} TilesCall;

/* The start of a call: the series and the merged tiles, the execution of
 * function (result memory for a profile of the series staged). */
static void
tiles_begin(FunctionCallInfo fcinfo, const char *function, TilesCall *c)
{
	c->function = function;
	c->t0 = tsm_now_ms();
	series_of_tiles(fcinfo, PG_NARGS() - 1, &c->s);	/* gaps: the last argument */
	TSM_REQUIRE_ARG(fcinfo, 1, "merged");
	c->merged = partial_words(PG_GETARG_ARRAYTYPE_P(1));
	tsm_exec_prepare(&c->ex, function);
	tsm_exec_stage_results(&c->ex, tsm_profile_bytes(c->s.n, 3));	/* m >= 3: at most n - 2 windows */
}

/* The end of the core's call: its status reported (an error raised), then
 * the result set the rows go into. */
static ReturnSetInfo *
tiles_finish(FunctionCallInfo fcinfo, const TilesCall *c)
{
	tsm_exec_finish(c->function, &c->ex, c->s.n, &c->st, c->t0);
	InitMaterializedSRF(fcinfo, 0);
	return (ReturnSetInfo *) fcinfo->resultinfo;
}

PG_FUNCTION_INFO_V1(ts_matrix_profile_from_tiles);

/* ts_matrix_profile_from_tiles(series, merged) → (pos, distance, neighbor) */
Datum
ts_matrix_profile_from_tiles(PG_FUNCTION_ARGS)
{
	TilesCall	c;
	TsProfile	p;
	int32		m,
				normalize;
	int64		excl;

	tiles_begin(fcinfo, "ts_matrix_profile_from_tiles", &c);
	tsm_matrix_profile_from_tiles(c.s.x, c.s.n, c.merged.data, c.merged.words, &c.ex, &p, &m, &excl, &normalize,
								  &c.st);
	tsm_put_profile_rows(tiles_finish(fcinfo, &c), &p, NULL, NULL);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(ts_discords_from_tiles);

/* ts_discords_from_tiles(series, merged, k, min_distance) → (rank, pos, distance, neighbor) */
Datum
ts_discords_from_tiles(PG_FUNCTION_ARGS)
{
	int64		k = TSM_ARG_INT_OR_NULL(fcinfo, 2);
	double		r = tsm_distance_arg(fcinfo, 3);
	TilesCall	c;
	TsDiscords	d;

	tiles_begin(fcinfo, "ts_discords_from_tiles", &c);
	tsm_discords_from_tiles(c.s.x, c.s.n, c.merged.data, c.merged.words, k, r, &c.ex, &d, &c.st);
	tsm_put_discord_rows(tiles_finish(fcinfo, &c), &d, NULL, NULL);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(ts_motifs_from_tiles);

/* ts_motifs_from_tiles(series, merged, k) → (rank, pos_a, pos_b, distance) */
Datum
ts_motifs_from_tiles(PG_FUNCTION_ARGS)
{
	int64		k = TSM_ARG_INT_OR_NULL(fcinfo, 2);
	TilesCall	c;
	TsMotifs	mo;

	tiles_begin(fcinfo, "ts_motifs_from_tiles", &c);
	tsm_motifs_from_tiles(c.s.x, c.s.n, c.merged.data, c.merged.words, k, &c.ex, &mo, &c.st);
	tsm_put_motif_rows(tiles_finish(fcinfo, &c), &mo, NULL, NULL);
	return (Datum) 0;
}
