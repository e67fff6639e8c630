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

bool
tsm_gpu_slot_acquire(bool required)
{
	if (tsm_gpu_slot_held() >= 0)
		return true;
	if (tsm_guc_max_gpu_backends <= 0)
	{
		if (required)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("tsmine.backend is 'gpu', but tsmine.max_gpu_backends is 0"),
					 errhint("Raise tsmine.max_gpu_backends, or SET tsmine.backend = auto or cpu.")));
		return false;
	}
	if (try_slots())
		return true;
	if (tsm_guc_gpu_busy == TSM_GPU_BUSY_CPU && !required)
		return false;
	if (tsm_guc_gpu_busy != TSM_GPU_BUSY_WAIT)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("all %d GPU slots of tsmine are taken by other backends",
						tsm_guc_max_gpu_backends),
				 errhint("SET tsmine.gpu_busy = 'wait' to wait for one, or SET tsmine.backend = cpu; "
						 "pg_locks shows the holders (advisory locks with classid %d).", TSM_SLOT_KEY)));
	for (;;)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 50L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (try_slots())
			return true;
	}
}
