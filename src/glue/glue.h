/*
 * glue.h — the PostgreSQL side of tsmine: GUCs, the GPU slot cap, input
 * (arrays and queries), execution set-up, and turning core statuses into
 * ereport(ERROR).  Only the glue includes PostgreSQL headers.
 */
#ifndef TSM_GLUE_H
#define TSM_GLUE_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "fmgr.h"
#include "utils/array.h"

#include "compat.h"				/* the calls that differ between PostgreSQL versions */

#include "api_matrix_profile.h"
#include "tsm_api.h"

/* ---- GUCs (tsmine.c) ---- */
/* tsmine.backend takes the values of TsBackend (tsm_api.h). */
typedef enum
{
	TSM_GPU_BUSY_CPU = 0,		/* fall back to the CPU */
	TSM_GPU_BUSY_WAIT,			/* wait for a free slot */
	TSM_GPU_BUSY_ERROR			/* raise an error */
} TsmGpuBusy;

/* tsmine.gpu_devices, parsed: n as TsExec.n_gpu_devices (0: tsmine.gpu_device
 * alone; TS_GPU_DEVICES_ALL; else the ordinals listed) */
typedef struct TsmGpuList
{
	int			n;
	int			devices[TS_MAX_GPU_DEVICES];
} TsmGpuList;
#define TSM_MAX_DEVICE_ORDINAL (TS_MAX_GPU_DEVICES - 1)

extern int	tsm_guc_backend;
extern int	tsm_guc_gpu_device;
extern const TsmGpuList *tsm_guc_gpu_devices;	/* never NULL after _PG_init */
extern int	tsm_guc_max_gpu_backends;
extern int	tsm_guc_gpu_busy;
extern int	tsm_guc_cpu_threads;
extern int	tsm_guc_gpu_memory_limit;	/* MB */
extern int	tsm_guc_gpu_split_min_length;
extern int	tsm_guc_progress;	/* seconds; -1: no NOTICEs */

/* ---- GPU slots (gpu_slots.c) ---- */
/* Each GPU has tsmine.max_gpu_backends cluster-wide slots.
 * TsExec.take_gpu_slot and gpu_slot_load (tsm_api.h): a slot is kept for this
 * backend's lifetime; neither raises an error (the core reports the status). */
extern int	tsm_gpu_slot_take(const int *devices, int n, int mode, TsStatus *st);
extern int	tsm_gpu_slot_load(int device);
extern int	tsm_gpu_slot_held(int device);	/* the slot this backend holds of the GPU, or -1 */
extern int	tsm_gpu_slot_holders(int device);	/* backends holding a slot of the GPU, this one included */
/* How many times the GPUs tsmine.gpu_devices resolves to list `device`
 * (visible: the GPUs there are). */
extern int	tsm_gpu_listed(int device, int visible);

/* ---- progress (progress.c) ---- */
/* The call of `function` starts (right before the core call): points
 * ex->progress at this backend's counters and shows the call in ts_progress();
 * may raise an ERROR (the shared memory of the progress slots). */
extern void tsm_progress_begin(const char *function, TsExec *ex);
/* From the interrupted callback, under the core's frames: publishes the
 * progress and sends a NOTICE when tsmine.progress says one is due; never
 * raises an error. */
extern void tsm_progress_poll(void);
/* The call has ended (also on abort): ts_progress() no longer shows it. */
extern void tsm_progress_end(void);

/* ---- execution (exec.c) ---- */
/* Fills *ex for a core call of `function` (the SQL name): the settings as they
 * are and the callbacks (the core decides the backend, the method and any
 * fall-back); the call's progress starts being reported. */
extern void tsm_exec_prepare(TsExec *ex, const char *function);
/* After a core call: records the run for ts_last_run() and raises the status
 * as an ERROR if it is not TS_OK. */
extern void tsm_exec_finish(const char *function, const TsExec *ex, int64 n, const TsStatus *st,
							double started_ms);
/* Raises a core status that is not TS_OK as an ERROR (57014 as PostgreSQL's
 * own cancel or timeout error). */
extern void tsm_raise_status(const TsStatus *st);
extern double tsm_now_ms(void);
/* Raises the status as an ERROR if it is not TS_OK (a cancel as the cancel
 * or timeout PostgreSQL has pending). */
extern void tsm_raise_status(const TsStatus *st);

/* Makes the core's result memory for this call come from a region kept for
 * the backend's life (up to 64 MB; beyond, palloc'd as usual), for results the
 * caller consumes before its SQL function returns; `bytes` is about how much
 * the call allocates.  Every block, staged or not, has
 * TSM_RESULT_PREFIX_FOR(its bytes) bytes in front of it that the caller may
 * use: room for the header of a one-dimensional array of its bytes / 8
 * elements with a null bitmap, so that the block can become the body of an
 * array, with NULLs or without, in place.  A second staging reuses the
 * region: call it once per SQL function call. */
#define TSM_RESULT_PREFIX 64
#define TSM_RESULT_PREFIX_FOR(bytes) \
	Max((size_t) TSM_RESULT_PREFIX, TYPEALIGN(64, ARR_OVERHEAD_WITHNULLS(1, (bytes) / 8)))
extern void tsm_exec_stage_results(TsExec *ex, size_t bytes);

/* The SQL entry points of a series function whose body is COMMON(fcinfo,
 * query, timed): NAME (array form), NAME_query (query form), and the timed
 * forms NAME_timed (a times array, then the series array) and
 * NAME_timed_query (a value of the time type, then a (time, value) query).
 * A timed form's other arguments come one place later than the plain
 * form's (TSM_AT). */
#define TSM_SERIES_FORMS(name, common) \
	PG_FUNCTION_INFO_V1(name); \
	Datum name(PG_FUNCTION_ARGS) { return common(fcinfo, false, false); } \
	PG_FUNCTION_INFO_V1(name##_query); \
	Datum name##_query(PG_FUNCTION_ARGS) { return common(fcinfo, true, false); } \
	PG_FUNCTION_INFO_V1(name##_timed); \
	Datum name##_timed(PG_FUNCTION_ARGS) { return common(fcinfo, false, true); } \
	PG_FUNCTION_INFO_V1(name##_timed_query); \
	Datum name##_timed_query(PG_FUNCTION_ARGS) { return common(fcinfo, true, true); }

/* The argument number of a plain form's argument n in the form called. */
#define TSM_AT(timed, n) ((n) + ((timed) ? 1 : 0))

/* The result memory of a matrix profile of n values, window m (for
 * tsm_exec_stage_results before calls that may go by way of the profile). */
extern size_t tsm_profile_bytes(int64 n, int m);

/* ---- results (discords.c, motifs.c) ---- */
struct ReturnSetInfo;
struct TsDiscords;
struct TsMotifs;
/* The array around n 8-byte values (FLOAT8OID or INT8OID) of a result block
 * with TSM_RESULT_PREFIX bytes in front: the block becomes its body, uncopied. */
extern ArrayType *tsm_array8_around(void *body, int64 n, Oid elemtype);
/* Rows of a materialised SRF: a profile (pos, distance, neighbor), discords
 * (rank, pos, distance, neighbor), motif pairs (rank, pos_a, pos_b, distance);
 * with times (not NULL), the times of pos (pos_a) from times and of neighbor
 * (pos_b) from times_b after them (the same in one series; b's in an AB-join). */
struct TsmTimes;
extern void tsm_put_profile_rows(struct ReturnSetInfo *rsinfo, const TsProfile *p, const struct TsmTimes *times,
								 const struct TsmTimes *times_b);
extern void tsm_put_discord_rows(struct ReturnSetInfo *rsinfo, const struct TsDiscords *d,
								 const struct TsmTimes *times, const struct TsmTimes *times_b);
extern void tsm_put_motif_rows(struct ReturnSetInfo *rsinfo, const struct TsMotifs *mo,
							   const struct TsmTimes *times, const struct TsmTimes *times_b);

/* ---- input (input.c) ---- */
typedef struct TsmSeries
{
	const double *x;
	int64		n;
} TsmSeries;

/* What a query form reads its rows into (input.c): a malloc'd array of
 * elem_size-byte elements that doubles as it fills (it may exceed 1 GB), freed
 * by a reset callback of the memory context current at tsm_growing_new, on
 * every path. */
typedef struct TsmGrowing
{
	void	   *data;
	int64		cap;			/* elements */
	size_t		elem_size;
	MemoryContextCallback cb;
} TsmGrowing;
extern TsmGrowing *tsm_growing_new(size_t elem_size);
/* Room for element n (0-based) of g; ERROR 53200 "out of memory reading the
 * <what> of <argname>" when there is none. */
extern void tsm_growing_room(TsmGrowing *g, int64 n, const char *what, const char *argname);

/* The times of a series (times.c): keys strictly increasing, one per value. */
typedef struct TsmTimes
{
	int64	   *key;			/* NULL when the call has no times */
	int64		n;
	Oid			type;			/* timestamptz, timestamp, date, bigint or integer */
	TsmGrowing *buffer;			/* the query form's keys (malloc'd) */
} TsmTimes;

/* The elements of a one-dimensional array argument (0 when empty; ERROR
 * 22000 naming argname for more dimensions, with hint unless NULL). */
extern int64 tsm_array_length(ArrayType *arr, const char *argname, const char *hint);
extern const char *const tsm_one_series_hint;	/* "Pass one series per call, ..." */
/* ERROR 22004 at the first NULL among the n elements of arr, naming argname
 * and the position, with hint. */
extern void tsm_array_reject_nulls(ArrayType *arr, int64 n, const char *argname, const char *hint);
/* The array must be 1-D float8 without NULL, NaN or infinity (ERROR naming
 * the position otherwise); read in place.  argname is used in messages. */
extern void tsm_series_from_array(ArrayType *arr, const char *argname, TsmSeries *out);
/* The same, or with skip_gaps with its gaps: NULL, NaN and ±Infinity pass (a
 * NULL as NaN) for the core (tsm_series_with_gaps' rule). */
extern void tsm_series_from_array_gaps(ArrayType *arr, const char *argname, bool skip_gaps, TsmSeries *out);
/* Runs query (SPI connected) read-only: it must be one SELECT, and nothing it
 * calls may write (ERROR 25006 otherwise, nothing changed); rows go to dest
 * (NULL: SPI_tuptable).  Returns the SPI result code. */
struct _DestReceiver;
extern int	tsm_spi_run_read_only(const char *query, const char *argname, struct _DestReceiver *dest);
/* Runs a query returning one numeric column and reads it, in order, into
 * memory owned by the current memory context. */
extern void tsm_series_from_query(text *sql, const char *argname, TsmSeries *out);
/* Time the last series argument took to read (ms; -1 until one is read):
 * ts_last_run's input_ms. */
extern double tsm_input_ms;
/* A text argument whose first non-blank character is '{' is an array literal,
 * not a query (no SQL statement starts with '{'): the float8[] it spells
 * (ERROR 22P02 when malformed); NULL for any other text.  Every query form
 * reads its series through series_from_query (input.c: tsm_series_from_query
 * and the timed variants), which takes such text as the array: an untyped
 * literal '{1,2,3}' resolves to the text overload (PostgreSQL prefers text for
 * an unknown literal), so this makes it mean what it looks like.  A timed
 * query form, which needs times, raises 22023 for one. */
extern ArrayType *tsm_array_literal(text *t);
/* The series argument: a float8[] (array form) or a text query (query form;
 * an array literal there is taken as the array). */
extern void tsm_series_arg(FunctionCallInfo fcinfo, int argno, const char *argname, bool query,
						   TsmSeries *out);
/* The series argument argno as tsm_series_arg reads it, or with skip_gaps
 * with its gaps: NULL, NaN and ±Infinity pass (a NULL as NaN) for the core,
 * whose methods leave the windows that hold one out.  A query form with
 * times (not NULL) reads (time, value) rows of type time_type. */
extern void tsm_series_with_gaps(FunctionCallInfo fcinfo, int argno, const char *argname, bool query,
								 bool skip_gaps, Oid time_type, TsmSeries *out, TsmTimes *times);
/* The gaps argument (argno, the function's last): true for 'skip', false
 * for 'error'; another value is an error (22023), NULL too (22004).  A call
 * with fewer arguments (stored in a view before gaps existed, see the
 * update script) gets the default, 'skip'. */
extern bool tsm_gaps_arg(FunctionCallInfo fcinfo, int argno);

/* The series of any of the four forms (TSM_SERIES_FORMS), and its times when
 * `timed` (times->key NULL otherwise); checked as the functions above and
 * below say. */
extern void tsm_form_series(FunctionCallInfo fcinfo, bool query, bool timed, TsmSeries *s, TsmTimes *times);
/* tsm_form_series, with the series' gaps when skip_gaps (tsm_series_with_gaps). */
extern void tsm_form_series_gaps(FunctionCallInfo fcinfo, bool query, bool timed, bool skip_gaps, TsmSeries *s,
								 TsmTimes *times);
/* A query of (value) or (time, value) rows, times of any type a time may have
 * (times->key NULL without them); NULL, NaN and ±Infinity values pass as gaps
 * (ts_plot draws them as breaks). */
extern void tsm_series_maybe_timed_from_query(text *sql, const char *argname, TsmSeries *out, TsmTimes *times);

/* ---- times (times.c) ---- */
/* ERROR 42804 unless type is one a time may have; what names it. */
extern void tsm_time_type_check(Oid type, const char *what);
/* A times array (times_name in messages) for a series of n_values
 * (values_name): 1-D, as long, no NULL, strictly increasing (ERROR naming
 * the position otherwise); copied. */
extern void tsm_times_from_array(ArrayType *arr, int64 n_values, const char *times_name, const char *values_name,
								 TsmTimes *out);
/* The query form: begin (memory of the current context), then at the
 * query's start check its columns (two, the first of type `declared`, or of
 * any type a time may have when InvalidOid), then
 * one push per row (ERROR on NULL or a time not after the last). */
extern void tsm_times_query_begin(TsmTimes *t);
extern void tsm_times_query_start(TsmTimes *t, Oid declared, TupleDesc desc, const char *argname);
extern void tsm_times_query_push(TsmTimes *t, Datum d, bool isnull, const char *argname);
/* The time of the value at 0-based position pos0, as a Datum of t->type. */
extern Datum tsm_time_at(const TsmTimes *t, int64 pos0);
/* The time at pos0 as its type prints it (labels, messages). */
extern char *tsm_time_text(const TsmTimes *t, int64 pos0);
/* The time at pos0 as a JSON value: a number (bigint, integer) or an ISO 8601
 * string (date, timestamp, timestamptz, as to_json writes them). */
struct StringInfoData;
extern void tsm_time_json(struct StringInfoData *b, const TsmTimes *t, int64 pos0);
/* An array of the times at pos0[0..count) (pos0 NULL: positions 0..count-1;
 * NULL elements where pos0[i] < 0). */
extern Datum tsm_times_array(const TsmTimes *t, const int64 *pos0, int64 count);

/* One call of ts_discords or ts_motifs, any form (discords.c): the series,
 * its times and the core's execution of function, which may go by way of
 * the profile of the series' m-windows. */
typedef struct TsmProfileCall
{
	const char *function;
	int32		m;
	TsmSeries	s;
	TsmTimes	times;
	TsExec		ex;
	TsStatus	st;
	double		t0;
} TsmProfileCall;
/* The start of a call: the series of the form called (gaps: the boolean
 * argument gaps_argno), the result set, the execution with result memory of
 * the profile's size staged. */
extern void tsm_profile_call_begin(FunctionCallInfo fcinfo, bool query, bool timed, int gaps_argno,
								   const char *function, int32 m, TsmProfileCall *c);
/* The end of the core's call: its status, timings and backend reported. */
extern void tsm_profile_call_finish(TsmProfileCall *c);

/* Arguments that must not be NULL. */
#define TSM_REQUIRE_ARG(fcinfo, argno, name) \
	do { \
		if (PG_ARGISNULL(argno)) \
			ereport(ERROR, \
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), \
					 errmsg("%s must not be NULL", (name)))); \
	} while (0)

/* An int argument, TS_ARG_NULL when NULL (the core entry gives NULL its
 * meaning: a default, "all", or an error). */
#define TSM_ARG_INT_OR_NULL(fcinfo, argno) \
	(PG_ARGISNULL(argno) ? (int64) TS_ARG_NULL : (int64) PG_GETARG_INT32(argno))
/* An int argument that must not be NULL (error otherwise). */
extern int32 tsm_int_arg(FunctionCallInfo fcinfo, int argno, const char *argname);
/* A text argument that must not be NULL, as a C string (a method name: the
 * core entry checks it). */
extern const char *tsm_text_arg(FunctionCallInfo fcinfo, int argno, const char *argname);
/* normalized (z-normalised distances, 1) or raw values (0); NULL is an error,
 * an argument the call lacks (a 0.1.0 signature) is 1. */
extern int32 tsm_normalize_arg(FunctionCallInfo fcinfo, int argno);
/* A distance limit (min_distance, max_distance): NULL → NaN, which the core
 * reads as "none"; a NaN given → the NaN of TS_NAN_GIVEN_BITS, which the core
 * refuses (it checks the range). */
extern double tsm_distance_arg(FunctionCallInfo fcinfo, int argno);

#endif							/* TSM_GLUE_H */
