/*
 * gpu_slots.c — the cap on backends holding a CUDA context on each GPU.
 *
 * Every GPU has tsmine.max_gpu_backends slots.  A slot is a session-level
 * advisory lock in database 0 (cluster-wide) on key (0x74736D, GPU · 1024 +
 * slot): no shared_preload_libraries needed, released by PostgreSQL when the
 * backend exits, and visible in pg_locks (locktype 'advisory', classid
 * 7631725, objid = GPU · 1024 + slot; GPU 0's slots are the slots of the
 * versions that knew one GPU).  A backend takes a slot of a GPU before its
 * first work there and keeps it, with its CUDA context there, until it exits.
 * Which GPU: the core decides (dispatch.cpp), from the loads reported here.
 */
#include "glue.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "utils/wait_event.h"

#define TSM_SLOT_KEY 0x74736D	/* "tsm" */
#define TSM_SLOTS_PER_GPU 1024	/* objid = GPU · 1024 + slot; tsmine.max_gpu_backends <= 1024 */

static int	held_plus1[TS_MAX_GPU_DEVICES];	/* per GPU: the slot held + 1; 0: none */

static void
slot_tag(LOCKTAG *tag, int device, int slot)
{
	SET_LOCKTAG_ADVISORY(*tag, InvalidOid, TSM_SLOT_KEY, (uint32) (device * TSM_SLOTS_PER_GPU + slot), 2);
}

static bool
valid_device(int device)
{
	return device >= 0 && device < TS_MAX_GPU_DEVICES;
}

int
tsm_gpu_slot_held(int device)
{
	if (!valid_device(device))
		return -1;
	if (held_plus1[device] > 0)
	{
		LOCKTAG		tag;

		slot_tag(&tag, device, held_plus1[device] - 1);
		/* pg_advisory_unlock_all() releases ours too */
		if (!LockHeldByMe(&tag, ExclusiveLock))
			held_plus1[device] = 0;
	}
	return held_plus1[device] - 1;
}

/* The lock operations, as functions of (device, result) run under
 * run_caught: a free slot of the GPU taken (1) or not (0) ... */
static void
take_free_slot(int device, int *got)
{
	*got = 0;
	for (int s = 0; s < tsm_guc_max_gpu_backends && s < TSM_SLOTS_PER_GPU; s++)
	{
		LOCKTAG		tag;

		slot_tag(&tag, device, s);
		if (LockAcquire(&tag, ExclusiveLock, true, true) != LOCKACQUIRE_NOT_AVAIL)
		{
			held_plus1[device] = s + 1;
			*got = 1;
			return;
		}
	}
}

/* ... and the GPU's slots that other backends hold (each probed: taken and
 * released at once when free). */
static void
count_taken_slots(int device, int *taken)
{
	*taken = 0;
	for (int s = 0; s < tsm_guc_max_gpu_backends && s < TSM_SLOTS_PER_GPU; s++)
	{
		LOCKTAG		tag;

		slot_tag(&tag, device, s);
		if (LockAcquire(&tag, ExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
			++*taken;
		else
			LockRelease(&tag, ExclusiveLock, true);
	}
}

/* A status for the core (the callbacks never raise an error). */
static int
slot_failure(TsStatus *st, int code, const char *sqlstate, const char *msg, const char *hint)
{
	memset(st, 0, sizeof(*st));
	st->code = code;
	strlcpy(st->sqlstate, sqlstate, sizeof(st->sqlstate));
	strlcpy(st->message, msg, sizeof(st->message));
	strlcpy(st->hint, hint, sizeof(st->hint));
	return -2;
}

/* op(device, &result), with any error it raises (the lock table full, say)
 * turned into a status: this runs under the core's frames, where no longjmp
 * may pass.  0 when it ran, -2 with *st filled when it failed. */
static int
run_caught(void (*op) (int, int *), int device, int *result, TsStatus *st)
{
	MemoryContext cxt = CurrentMemoryContext;
	volatile int failed = 0;

	PG_TRY();
	{
		op(device, result);
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		FlushErrorState();
		failed = slot_failure(st, TS_GPU_ERROR, unpack_sql_state(e->sqlerrcode), e->message,
							  "Retry, or SET tsmine.backend = cpu.");
		FreeErrorData(e);
	}
	PG_END_TRY();
	return failed;
}

int
tsm_gpu_slot_load(int device)
{
	TsStatus	st;
	int			taken = 0;

	if (!valid_device(device) || run_caught(count_taken_slots, device, &taken, &st) != 0)
		return 0;
	return taken;
}

int
tsm_gpu_slot_holders(int device)
{
	return tsm_gpu_slot_load(device) + (tsm_gpu_slot_held(device) >= 0 ? 1 : 0);
}

/* The first of devices[0 .. n) with a slot free, taken: its index; -1 when
 * none; -2 with *st on an error. */
static int
try_devices(const int *devices, int n, TsStatus *st)
{
	for (int i = 0; i < n; i++)
	{
		int			got = 0;

		if (!valid_device(devices[i]))
			continue;
		if (run_caught(take_free_slot, devices[i], &got, st) != 0)
			return -2;
		if (got)
			return i;
	}
	return -1;
}

/* Waits for a free slot of one of the GPUs (tsmine.gpu_busy = wait), cancellably. */
static int
wait_for_slot(const int *devices, int n, TsStatus *st)
{
	for (;;)
	{
		int			got;

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 50L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		if (QueryCancelPending || ProcDiePending)
			return slot_failure(st, TS_CANCELLED, "57014", "canceling statement due to user request", "");
		if ((got = try_devices(devices, n, st)) != -1)
			return got;
	}
}

/* The error of gpu_busy = error (and of a required slot with gpu_busy = cpu). */
static int
all_taken(const int *devices, int n, TsStatus *st)
{
	char		msg[256];
	char		hint[240];
	char		gpus[64] = "";

	for (int i = 0; i < n && i < 8; i++)
		snprintf(gpus + strlen(gpus), sizeof(gpus) - strlen(gpus), "%s%d", i ? ", " : "", devices[i]);
	snprintf(msg, sizeof(msg), "all %d GPU slots of tsmine on %s %s%s are taken by other backends",
			 tsm_guc_max_gpu_backends, n == 1 ? "GPU" : "each of the GPUs", gpus, n > 8 ? ", ..." : "");
	snprintf(hint, sizeof(hint), "SET tsmine.gpu_busy = 'wait' to wait for one, or SET tsmine.backend = cpu; "
			 "pg_locks shows the holders (advisory locks with classid %d).", TSM_SLOT_KEY);
	return slot_failure(st, TS_GPU_ERROR, "53000", msg, hint);
}

int
tsm_gpu_slot_take(const int *devices, int n, int mode, TsStatus *st)
{
	int			got;

	for (int i = 0; i < n; i++)
		if (tsm_gpu_slot_held(devices[i]) >= 0)
			return i;
	if (mode == TS_SLOT_HELD)
		return -1;
	if (tsm_guc_max_gpu_backends <= 0)
		return mode == TS_SLOT_REQUIRED
			? slot_failure(st, TS_GPU_UNAVAILABLE, "55000",
						   "tsmine.backend is 'gpu', but tsmine.max_gpu_backends is 0",
						   "Raise tsmine.max_gpu_backends, or SET tsmine.backend = auto or cpu.")
			: -1;
	if ((got = try_devices(devices, n, st)) != -1 || mode == TS_SLOT_TRY)
		return got;
	if (tsm_guc_gpu_busy == TSM_GPU_BUSY_CPU && mode == TS_SLOT_OPTIONAL)
		return -1;
	if (tsm_guc_gpu_busy == TSM_GPU_BUSY_WAIT)
		return wait_for_slot(devices, n, st);
	return all_taken(devices, n, st);
}

int
tsm_gpu_listed(int device, int visible)
{
	const TsmGpuList *list = tsm_guc_gpu_devices;
	int			times = 0;

	if (list->n == TS_GPU_DEVICES_ALL)
		return device < visible ? 1 : 0;
	if (list->n == 0)
		return device == tsm_guc_gpu_device ? 1 : 0;
	for (int i = 0; i < list->n; i++)
		times += list->devices[i] == device;
	return times;
}
