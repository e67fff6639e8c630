/*
 * progress.c — how far a running call has come: NOTICEs to its own client
 * (tsmine.progress) and a shared slot per backend that ts_progress() shows to
 * other sessions.
 *
 * The core advances TsProgress (done, total) as its chunks finish and polls
 * TsExec.interrupted between them, on the backend's own thread; that callback
 * calls tsm_progress_poll, which publishes into the slot at most every
 * PUBLISH_MS and sends a NOTICE when one is due.  The core's C++ frames are
 * live below the callback, so no error may longjmp out of it: the NOTICE is
 * sent with interrupts held (errfinish would otherwise process a pending
 * cancel) and inside PG_TRY, whose catch swallows any error of its own.
 *
 * The slots live in a dynamic shared memory segment, created by the first
 * backend that needs it and pinned for the life of the server; its handle is
 * kept in a few bytes of the main shared memory, found by name.  So no
 * shared_preload_libraries entry is needed (as for the GPU slots).  Each
 * backend writes only its own slot (MyBackendId), under the slot's spinlock.
 */
#include "glue.h"

#include <math.h>
#include <pthread.h>

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#define PUBLISH_MS 200.0

typedef struct ProgressSlot
{
	slock_t		mutex;
	int			pid;			/* 0: no call running */
	Oid			userid;
	int			backend;		/* TsBackend in use */
	char		function[48];
	char		method[24];		/* "" when the function has one method */
	TimestampTz started;
	TimestampTz expected_end;	/* 0: unknown */
	int64		done;
	int64		total;			/* TsProgress.total: <= 0 unknown */
} ProgressSlot;

/* in the main shared memory: where the slots are */
typedef struct ProgressDirectory
{
	dsm_handle	handle;			/* DSM_HANDLE_INVALID until created */
	int			n_slots;
} ProgressDirectory;

static ProgressSlot *slots;
static int	n_slots;

/* the call running in this backend */
static TsProgress counters;
static struct
{
	bool		running;
	pthread_t	thread;			/* the backend's own: the only one that may report */
	const TsExec *ex;
	char		function[48];
	double		started_ms;
	TimestampTz started;
	double		phase_ms;		/* when the current total was first seen */
	int64		phase_total;
	int64		last_done;
	double		next_publish_ms;
	double		next_notice_ms;
} call;

static ProgressSlot *
create_slots(ProgressDirectory *dir)
{
	Size		bytes = mul_size(MaxBackends, sizeof(ProgressSlot));
	dsm_segment *seg = dsm_create(bytes, 0);
	ProgressSlot *s = dsm_segment_address(seg);

	for (int i = 0; i < MaxBackends; i++)
	{
		memset(&s[i], 0, sizeof(ProgressSlot));
		SpinLockInit(&s[i].mutex);
	}
	dsm_pin_segment(seg);
	dsm_pin_mapping(seg);
	dir->handle = dsm_segment_handle(seg);
	dir->n_slots = MaxBackends;
	return s;
}

/* Maps the slots into this backend, creating them on first use (ERROR if the
 * server cannot give the memory: the caller is not under core frames). */
static void
attach_slots(void)
{
	ProgressDirectory *dir;
	bool		found;

	if (slots)
		return;
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	dir = ShmemInitStruct("tsmine progress", sizeof(ProgressDirectory), &found);
	if (!found)
		dir->handle = DSM_HANDLE_INVALID;
	if (dir->handle == DSM_HANDLE_INVALID)
		slots = create_slots(dir);
	else
	{
		dsm_segment *seg = dsm_find_mapping(dir->handle);

		if (seg == NULL)
		{
			seg = dsm_attach(dir->handle);
			if (seg == NULL)
				elog(ERROR, "tsmine: could not attach the progress segment");
			dsm_pin_mapping(seg);
		}
		slots = dsm_segment_address(seg);
	}
	n_slots = dir->n_slots;
	LWLockRelease(AddinShmemInitLock);
}

static ProgressSlot *
my_slot(void)
{
	int			i = tsm_compat_backend_index();

	return slots && i >= 0 && i < n_slots ? &slots[i] : NULL;
}

/* The expected end of the call: the current phase's rate over what is left. */
static TimestampTz
expected_end(double now, int64 done, int64 total)
{
	double		fraction = total > 0 ? (double) done / total : 0;
	double		left_ms;

	if (fraction <= 0)
		return 0;
	left_ms = (now - call.phase_ms) * (1 - Min(fraction, 1.0)) / fraction;
	return GetCurrentTimestamp() + (TimestampTz) (left_ms * 1000.0);
}

static void
publish(double now, int64 done, int64 total)
{
	ProgressSlot *s = my_slot();
	TimestampTz end = expected_end(now, done, total);

	if (!s)
		return;
	SpinLockAcquire(&s->mutex);
	s->backend = call.ex->used_backend;
	strlcpy(s->method, call.ex->used_method ? call.ex->used_method : "", sizeof(s->method));
	s->done = done;
	s->total = total;
	s->expected_end = end;
	SpinLockRelease(&s->mutex);
}

static const char *
backend_name(int backend)
{
	return backend == TS_BACKEND_GPU ? "gpu" : "cpu";
}

/*
 * The NOTICE, one of
 *   ts_matrix_profile: 42.0% done after 12 s, about 17 s left (matrix_profile on the gpu)
 *   ts_matrix_profile: 0.0% done after 0 s (matrix_profile on the cpu)
 *   ts_discords: running for 12 s, the time left depends on the data (pd3 on the cpu)
 *   ts_outliers: running for 12 s (on the cpu)
 */
static void
notice_text(char *buf, size_t size, double now, int64 done, int64 total)
{
	const char *method = call.ex->used_method;
	double		seconds = (now - call.started_ms) / 1000;
	double		fraction = total > 0 ? Min((double) done / total, 1.0) : 0;
	char		where[64];

	snprintf(where, sizeof(where), "%s%son the %s", method ? method : "", method ? " " : "",
			 backend_name(call.ex->used_backend));
	if (total < 0)
		snprintf(buf, size, "%s: running for %.0f s, the time left depends on the data (%s)",
				 call.function, seconds, where);
	else if (total == 0)
		snprintf(buf, size, "%s: running for %.0f s (%s)", call.function, seconds, where);
	else if (fraction == 0)
		snprintf(buf, size, "%s: 0.0%% done after %.0f s (%s)", call.function, seconds, where);
	else
		snprintf(buf, size, "%s: %.1f%% done after %.0f s, about %.0f s left (%s)", call.function,
				 100 * fraction, seconds, (now - call.phase_ms) * (1 - fraction) / fraction / 1000, where);
}

/* Sends the NOTICE without letting anything longjmp out (see the top). */
static void
send_notice(const char *text)
{
	MemoryContext cxt = CurrentMemoryContext;

	HOLD_INTERRUPTS();
	PG_TRY();
	{
		ereport(NOTICE, (errmsg_internal("%s", text)));
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
	}
	PG_END_TRY();
	RESUME_INTERRUPTS();
}

void
tsm_progress_poll(void)
{
	double		now;
	int64		done,
				total;

	/* the core polls from the calling thread only (tsm_api.h); should any
	 * other thread ever come here, it must not touch PostgreSQL */
	if (!call.running || !pthread_equal(call.thread, pthread_self()))
		return;
	now = tsm_now_ms();
	done = __atomic_load_n(&counters.done, __ATOMIC_RELAXED);
	total = __atomic_load_n(&counters.total, __ATOMIC_RELAXED);
	if (total != call.phase_total || done < call.last_done)
	{
		call.phase_ms = now;	/* a new phase: its own rate */
		call.phase_total = total;
	}
	call.last_done = done;
	if (now < call.next_publish_ms && now < call.next_notice_ms)
		return;
	if (now >= call.next_publish_ms)
	{
		publish(now, done, total);
		call.next_publish_ms = now + PUBLISH_MS;
	}
	if (now >= call.next_notice_ms)
	{
		char		text[256];

		notice_text(text, sizeof(text), now, done, total);
		send_notice(text);
		call.next_notice_ms = now + 1000.0 * Max(tsm_guc_progress, 1);
	}
}

static void
clear_slot(void)
{
	ProgressSlot *s = my_slot();

	call.running = false;
	if (!s)
		return;
	SpinLockAcquire(&s->mutex);
	s->pid = 0;
	SpinLockRelease(&s->mutex);
}

static void
progress_xact_callback(XactEvent event, void *arg)
{
	if (call.running && (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT))
		clear_slot();
}

static void
progress_subxact_callback(SubXactEvent event, SubTransactionId my, SubTransactionId parent, void *arg)
{
	if (call.running && event == SUBXACT_EVENT_ABORT_SUB)
		clear_slot();
}

void
tsm_progress_begin(const char *function, TsExec *ex)
{
	static bool callbacks_registered = false;
	ProgressSlot *s;

	if (!callbacks_registered)
	{
		RegisterXactCallback(progress_xact_callback, NULL);
		RegisterSubXactCallback(progress_subxact_callback, NULL);
		callbacks_registered = true;
	}
	attach_slots();
	memset(&counters, 0, sizeof(counters));
	memset(&call, 0, sizeof(call));
	ex->progress = &counters;
	call.ex = ex;
	call.thread = pthread_self();
	strlcpy(call.function, function, sizeof(call.function));
	call.started_ms = call.phase_ms = tsm_now_ms();
	call.started = GetCurrentTimestamp();
	call.next_notice_ms = tsm_guc_progress >= 0 ? call.started_ms + 1000.0 * tsm_guc_progress : INFINITY;
	call.running = true;
	if ((s = my_slot()) == NULL)
		return;
	SpinLockAcquire(&s->mutex);
	s->pid = MyProcPid;
	s->userid = GetUserId();
	s->backend = ex->backend == TS_BACKEND_GPU ? TS_BACKEND_GPU : TS_BACKEND_CPU;
	strlcpy(s->function, function, sizeof(s->function));
	s->method[0] = '\0';
	s->started = call.started;
	s->expected_end = 0;
	s->done = s->total = 0;
	SpinLockRelease(&s->mutex);
}

void
tsm_progress_end(void)
{
	if (call.running)
		clear_slot();
}

/* ---- ts_progress() ------------------------------------------------------ */

#define NCOLS 10

static void
put_slot_row(ReturnSetInfo *rsinfo, const ProgressSlot *s, TimestampTz now)
{
	Datum		values[NCOLS];
	bool		nulls[NCOLS] = {0};
	double		fraction = s->total > 0 ? Min((double) s->done / s->total, 1.0) : -1;

	values[0] = Int32GetDatum(s->pid);
	values[1] = CStringGetTextDatum(s->function);
	values[2] = CStringGetTextDatum(s->method);
	nulls[2] = s->method[0] == '\0';
	values[3] = CStringGetTextDatum(backend_name(s->backend));
	values[4] = TimestampTzGetDatum(s->started);
	values[5] = Float8GetDatum((now - s->started) / 1e6);
	values[6] = Float8GetDatum(fraction);
	nulls[6] = fraction < 0;
	values[7] = Float8GetDatum(Max(s->expected_end - now, 0) / 1e6);
	nulls[7] = s->expected_end == 0;
	values[8] = Int64GetDatum(s->done);
	values[9] = Int64GetDatum(s->total);
	nulls[8] = nulls[9] = s->total <= 0;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* ts_progress() → a row per tsmine call running now in a session whose role
 * the caller has the privileges of (all of them with pg_read_all_stats). */
PG_FUNCTION_INFO_V1(ts_progress);
Datum
ts_progress(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		read_all = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	TimestampTz now = GetCurrentTimestamp();

	InitMaterializedSRF(fcinfo, 0);
	attach_slots();
	for (int i = 0; i < n_slots; i++)
	{
		ProgressSlot copy;

		SpinLockAcquire(&slots[i].mutex);
		copy = slots[i];
		SpinLockRelease(&slots[i].mutex);
		if (copy.pid != 0 && (read_all || has_privs_of_role(GetUserId(), copy.userid)))
			put_slot_row(rsinfo, &copy, now);
	}
	return (Datum) 0;
}
