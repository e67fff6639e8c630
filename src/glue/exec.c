/*
 * exec.c — setting up a core call (backend, threads, callbacks) and turning
 * its status into ereport; ts_last_run() reports the last call's timings.
 */
#include "glue.h"

#include <time.h>

#include "funcapi.h"
#include "access/parallel.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

/* the last call, for ts_last_run() */
static struct
{
	char		function[64];
	int			backend;
	int64		n;
	double		total_ms;
	double		device_ms;
	double		kernel_ms;
	double		device_bytes;
	double		input_ms;
	bool		valid;
} last_run;

double		tsm_input_ms = -1;

double
tsm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* Called by the core, on the backend's own thread, between chunks of work.
 * Reports the progress, then reads the flags only: the cancel itself is
 * raised by CHECK_FOR_INTERRUPTS once the core has returned and released what
 * it held.  A lost client (found when a NOTICE could not be sent) stops the
 * call too: CHECK_FOR_INTERRUPTS then ends the session. */
static int
glue_interrupted(void)
{
	tsm_progress_poll();
	return (QueryCancelPending || ProcDiePending || ClientConnectionLost) ? 1 : 0;
}

/* Result memory for the core: never throws (NULL on failure), may be > 1 GB. */
static void *
glue_alloc(size_t bytes)
{
	return MemoryContextAllocExtended(CurrentMemoryContext, bytes,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

/*
 * Staged result memory: one host region, kept for the backend's life, for
 * results that the glue consumes before its SQL function returns (the matrix
 * profile, which becomes rows, arrays or discords).  Large calls then reuse
 * memory that is already mapped instead of page-faulting fresh memory every
 * time (bench/RESULTS.md measured it).  The region is malloc'd, at most
 * TSM_STAGE_MAX bytes; a call that needs more, or a block past the region's
 * end, gets palloc'd memory as before.  Every block has
 * TSM_RESULT_PREFIX_FOR(its bytes) bytes in front of it, so it can become an
 * array's body in place (an array with NULLs too).
 */
#define TSM_STAGE_MAX ((size_t) 64 << 20)

static char *stage_base;
static size_t stage_size;
static size_t stage_used;

static void *
stage_alloc(size_t bytes)
{
	size_t		prefix = TSM_RESULT_PREFIX_FOR(bytes);
	size_t		need = prefix + TYPEALIGN(64, bytes);
	char	   *p;

	if (stage_base && need <= stage_size - stage_used)
	{
		p = stage_base + stage_used;
		stage_used += need;
		return p + prefix;
	}
	p = MemoryContextAllocExtended(CurrentMemoryContext, prefix + bytes,
								   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	return p ? p + prefix : NULL;
}

void
tsm_exec_stage_results(TsExec *ex, size_t bytes)
{
	size_t		want = bytes + ((size_t) 64 << 10);

	if (want <= TSM_STAGE_MAX && want > stage_size)
	{
		char	   *p = malloc(want);

		if (p)
		{
			free(stage_base);
			stage_base = p;
			stage_size = want;
		}
	}
	stage_used = 0;
	ex->alloc = stage_alloc;
}

void
tsm_exec_prepare(TsExec *ex, const char *function)
{
	memset(ex, 0, sizeof(*ex));
	ex->alloc = glue_alloc;
	ex->interrupted = glue_interrupted;
	ex->take_gpu_slot = tsm_gpu_slot_take;
	ex->gpu_slot_load = tsm_gpu_slot_load;
	ex->cpu_threads = tsm_guc_cpu_threads;
	ex->gpu_device = tsm_guc_gpu_device;
	ex->n_gpu_devices = tsm_guc_gpu_devices->n;
	if (ex->n_gpu_devices > 0)
		memcpy(ex->gpu_devices, tsm_guc_gpu_devices->devices, ex->n_gpu_devices * sizeof(int));
	ex->gpu_split_min_length = tsm_guc_gpu_split_min_length;
	ex->gpu_memory_limit = (int64_t) tsm_guc_gpu_memory_limit << 20;
	ex->backend = tsm_guc_backend;
	/* Parallel workers stay on the CPU: GPU slots are session locks, which
	 * workers may not take. */
	if (IsParallelWorker())
		ex->backend = TS_BACKEND_CPU;
	tsm_progress_begin(function, ex);
}

void
tsm_exec_finish(const char *function, const TsExec *ex, int64 n, const TsStatus *st, double started_ms)
{
	tsm_progress_end();
	if (ex->cpu_fallback[0])
		ereport(DEBUG1,
				(errmsg_internal("tsmine: %s ran on the CPU instead: %s", function, ex->cpu_fallback)));
	if (ex->used_method)
		snprintf(last_run.function, sizeof(last_run.function), "%s (%s)", function, ex->used_method);
	else
		strlcpy(last_run.function, function, sizeof(last_run.function));
	last_run.backend = ex->used_backend;
	last_run.n = n;
	last_run.total_ms = tsm_now_ms() - started_ms;
	last_run.device_ms = ex->device_ms;
	last_run.kernel_ms = ex->kernel_ms;
	last_run.device_bytes = ex->device_bytes;
	last_run.input_ms = tsm_input_ms;
	last_run.valid = true;
	tsm_input_ms = -1;			/* the next call reports its own */
	tsm_raise_status(st);
}

void
tsm_raise_status(const TsStatus *st)
{
	if (st->code == TS_OK)
		return;
	if (st->code == TS_CANCELLED)
	{
		/* raises the proper cancel or timeout error */
		CHECK_FOR_INTERRUPTS();
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("canceling statement due to user request")));
	}
	ereport(ERROR,
			(errcode(MAKE_SQLSTATE(st->sqlstate[0], st->sqlstate[1], st->sqlstate[2],
								   st->sqlstate[3], st->sqlstate[4])),
			 errmsg_internal("%s", st->message),
			 st->detail[0] ? errdetail_internal("%s", st->detail) : 0,
			 st->hint[0] ? errhint("%s", st->hint) : 0));
}

PG_FUNCTION_INFO_V1(ts_last_run);

/* ts_last_run() → one row describing this session's last tsmine call. */
Datum
ts_last_run(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[9];
	bool		nulls[9] = {0};

	InitMaterializedSRF(fcinfo, 0);
	if (!last_run.valid)
		PG_RETURN_NULL();
	values[0] = CStringGetTextDatum(last_run.function);
	values[1] = CStringGetTextDatum(last_run.backend == TS_BACKEND_GPU ? "gpu" : "cpu");
	values[2] = Int64GetDatum(last_run.n);
	values[3] = Float8GetDatum(last_run.total_ms);
	values[4] = Float8GetDatum(last_run.device_ms);
	values[5] = Float8GetDatum(last_run.kernel_ms);
	values[6] = Float8GetDatum(last_run.device_bytes);
	if (last_run.backend == TS_BACKEND_GPU && last_run.kernel_ms > 0)
		values[7] = Float8GetDatum(last_run.device_bytes / (last_run.kernel_ms * 1e6));
	else
		nulls[7] = true;
	if (last_run.backend != TS_BACKEND_GPU)
		nulls[4] = nulls[5] = nulls[6] = true;
	values[8] = Float8GetDatum(last_run.input_ms);
	nulls[8] = last_run.input_ms < 0;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	PG_RETURN_NULL();
}

size_t
tsm_profile_bytes(int64 n, int m)
{
	int64		count = n >= m ? n - m + 1 : 0;

	return 2 * ((size_t) count * 8 + TSM_RESULT_PREFIX_FOR((size_t) count * 8)) + 4 * TSM_RESULT_PREFIX;
}
