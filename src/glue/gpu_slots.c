/*
 * gpu_slots.c — the cap on backends holding a GPU context.
 *
 * A slot is a session-level advisory lock in database 0 (cluster-wide) on
 * key (0x74736D, slot): no shared_preload_libraries needed, released by
 * PostgreSQL when the backend exits, and visible in pg_locks
 * (locktype 'advisory', classid 7631725).  A backend takes a slot before its
 * first GPU call and keeps it, with its CUDA context, until it exits.
 */
#include "glue.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "utils/wait_event.h"

#define TSM_SLOT_KEY 0x74736D	/* "tsm" */

static int	held_slot = -1;

static void
slot_tag(LOCKTAG *tag, int slot)
{
	SET_LOCKTAG_ADVISORY(*tag, InvalidOid, TSM_SLOT_KEY, (uint32) slot, 2);
}

int
tsm_gpu_slot_held(void)
{
	if (held_slot >= 0)
	{
		LOCKTAG		tag;

		slot_tag(&tag, held_slot);
		/* pg_advisory_unlock_all() releases ours too */
		if (!LockHeldByMe(&tag, ExclusiveLock))
			held_slot = -1;
	}
	return held_slot;
}

static bool
try_slots(void)
{
	for (int s = 0; s < tsm_guc_max_gpu_backends; s++)
	{
		LOCKTAG		tag;

		slot_tag(&tag, s);
		if (LockAcquire(&tag, ExclusiveLock, true, true) != LOCKACQUIRE_NOT_AVAIL)
		{
			held_slot = s;
			return true;
		}
	}
	return false;
}

/* A status for the core (the callback never raises an error). */
static int
slot_failure(TsStatus *st, int code, const char *sqlstate, const char *msg, const char *hint)
{
	memset(st, 0, sizeof(*st));
	st->code = code;
	strlcpy(st->sqlstate, sqlstate, sizeof(st->sqlstate));
	strlcpy(st->message, msg, sizeof(st->message));
	strlcpy(st->hint, hint, sizeof(st->hint));
	return -1;
}

/* try_slots, with any error it raises (the lock table full, say) turned into
 * a status: this runs under the core's frames, where no longjmp may pass. */
static int
try_slots_caught(TsStatus *st)
{
	MemoryContext cxt = CurrentMemoryContext;
	volatile int got = 0;

	PG_TRY();
	{
		got = try_slots() ? 1 : 0;
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		FlushErrorState();
		got = slot_failure(st, TS_GPU_ERROR, unpack_sql_state(e->sqlerrcode), e->message,
						   "Retry, or SET tsmine.backend = cpu.");
		FreeErrorData(e);
	}
	PG_END_TRY();
	return got;
}

/* Waits for a free slot (tsmine.gpu_busy = wait), cancellably. */
static int
wait_for_slot(TsStatus *st)
{
	for (;;)
	{
		int			got;

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 50L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		if (QueryCancelPending || ProcDiePending)
			return slot_failure(st, TS_CANCELLED, "57014", "canceling statement due to user request", "");
		if ((got = try_slots_caught(st)) != 0)
			return got;
	}
}

int
tsm_gpu_slot_take(int required, TsStatus *st)
{
	char		msg[160];
	char		hint[240];
	int			got;

	if (tsm_gpu_slot_held() >= 0)
		return 1;
	if (tsm_guc_max_gpu_backends <= 0)
		return required ? slot_failure(st, TS_GPU_UNAVAILABLE, "55000",
									   "tsmine.backend is 'gpu', but tsmine.max_gpu_backends is 0",
									   "Raise tsmine.max_gpu_backends, or SET tsmine.backend = auto or cpu.")
			: 0;
	if ((got = try_slots_caught(st)) != 0)
		return got;
	if (tsm_guc_gpu_busy == TSM_GPU_BUSY_CPU && !required)
		return 0;
	if (tsm_guc_gpu_busy == TSM_GPU_BUSY_WAIT)
		return wait_for_slot(st);
	snprintf(msg, sizeof(msg), "all %d GPU slots of tsmine are taken by other backends",
			 tsm_guc_max_gpu_backends);
	snprintf(hint, sizeof(hint), "SET tsmine.gpu_busy = 'wait' to wait for one, or SET tsmine.backend = cpu; "
			 "pg_locks shows the holders (advisory locks with classid %d).", TSM_SLOT_KEY);
	return slot_failure(st, TS_GPU_ERROR, "53000", msg, hint);
}
