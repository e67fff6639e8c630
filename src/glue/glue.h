/*
 * glue.h — the PostgreSQL side of tsmine: GUCs, the GPU slot cap, input
 * (arrays and queries), execution set-up, and turning core statuses into
 * ereport(ERROR).  Only the glue includes PostgreSQL headers.
 */
#ifndef TSM_GLUE_H
#define TSM_GLUE_H

#include "postgres.h"

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

extern int	tsm_guc_backend;
extern int	tsm_guc_gpu_device;
extern int	tsm_guc_max_gpu_backends;
extern int	tsm_guc_gpu_busy;
extern int	tsm_guc_cpu_threads;
extern int	tsm_guc_gpu_memory_limit;	/* MB */

/* ---- GPU slots (gpu_slots.c) ---- */
/* TsExec.take_gpu_slot: takes (or keeps) one of tsmine.max_gpu_backends
 * cluster-wide slots for this backend's lifetime, as tsmine.gpu_busy and
 * `required` say; never raises an error (the core reports the status). */
extern int	tsm_gpu_slot_take(int required, TsStatus *st);
extern int	tsm_gpu_slot_held(void);	/* slot number, or -1 */

/* ---- execution (exec.c) ---- */
/* Fills *ex for a core call: the settings as they are and the callbacks (the
 * core decides the backend, the method and any fall-back). */
extern void tsm_exec_prepare(TsExec *ex);
/* After a core call: records the run for ts_last_run() and raises the status
 * as an ERROR if it is not TS_OK. */
extern void tsm_exec_finish(const char *function, const TsExec *ex, int64 n, const TsStatus *st,
							double started_ms);
extern double tsm_now_ms(void);
/* Raises the status as an ERROR if it is not TS_OK (a cancel as the cancel
 * or timeout PostgreSQL has pending). */
extern void tsm_raise_status(const TsStatus *st);

/* Makes the core's result memory for this call come from a region kept for
 * the backend's life (up to 64 MB; beyond, palloc'd as usual), for results the
 * caller consumes before its SQL function returns; `bytes` is about how much
 * the call allocates.  Every block, staged or not, has TSM_RESULT_PREFIX bytes
 * in front of it that the caller may use (an array header, say).  A second
 * staging reuses the region: call it once per SQL function call. */
#define TSM_RESULT_PREFIX 64
extern void tsm_exec_stage_results(TsExec *ex, size_t bytes);

/* The SQL entry points NAME (array form) and NAME_query (query form) of a
 * function whose body is COMMON(fcinfo, query). */
#define TSM_ARRAY_AND_QUERY_FORMS(name, common) \
	PG_FUNCTION_INFO_V1(name); \
	Datum name(PG_FUNCTION_ARGS) { return common(fcinfo, false); } \
	PG_FUNCTION_INFO_V1(name##_query); \
	Datum name##_query(PG_FUNCTION_ARGS) { return common(fcinfo, true); }

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
 * (rank, pos, distance, neighbor), motif pairs (rank, pos_a, pos_b, distance). */
extern void tsm_put_profile_rows(struct ReturnSetInfo *rsinfo, const TsProfile *p);
extern void tsm_put_discord_rows(struct ReturnSetInfo *rsinfo, const struct TsDiscords *d);
extern void tsm_put_motif_rows(struct ReturnSetInfo *rsinfo, const struct TsMotifs *mo);

/* ---- input (input.c) ---- */
typedef struct TsmSeries
{
	const double *x;
	int64		n;
} TsmSeries;

/* The array must be 1-D float8 without NULL, NaN or infinity (ERROR naming
 * the position otherwise); read in place.  argname is used in messages. */
extern void tsm_series_from_array(ArrayType *arr, const char *argname, TsmSeries *out);
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
/* The series argument: a float8[] (array form) or a text query (query form). */
extern void tsm_series_arg(FunctionCallInfo fcinfo, int argno, const char *argname, bool query,
						   TsmSeries *out);

/* Parses a text argument against a list of names; ERROR listing them if none
 * matches.  Returns the index in names. */
extern int	tsm_text_choice(FunctionCallInfo fcinfo, int argno, const char *argname,
							const char *const *names, int count);

/* Arguments that must not be NULL. */
#define TSM_REQUIRE_ARG(fcinfo, argno, name) \
	do { \
		if (PG_ARGISNULL(argno)) \
			ereport(ERROR, \
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), \
					 errmsg("%s must not be NULL", (name)))); \
	} while (0)

/* Optional int arguments: the default when NULL. */
#define TSM_ARG_INT_OR(fcinfo, argno, dflt) \
	(PG_ARGISNULL(argno) ? (int64) (dflt) : (int64) PG_GETARG_INT32(argno))

/* Window length m: a clear error when it cannot fit; returns m. */
extern int	tsm_window_arg(FunctionCallInfo fcinfo, int argno, const char *argname);
/* exclusion_zone: NULL → dflt; else >= 1 (error otherwise). */
extern int64 tsm_exclusion_arg(FunctionCallInfo fcinfo, int argno, int64 dflt);
/* A distance limit (min_distance, max_distance): NULL → NaN (none); a NaN
 * given is an error (the core checks the range). */
extern double tsm_distance_arg(FunctionCallInfo fcinfo, int argno, const char *argname);
/* k: NULL → -1 when allow_all, else an error; else >= 1. */
extern int64 tsm_k_arg(FunctionCallInfo fcinfo, int argno, bool allow_all, const char *all_hint);

#endif							/* TSM_GLUE_H */
