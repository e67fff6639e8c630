/*
 * device_info.c — ts_device_info(): one row per visible GPU, or one CPU row
 * when none is usable (or the build has no CUDA); ts_gpu_slots(): per GPU,
 * the backends that hold one of its slots.
 */
#include "glue.h"

#include <unistd.h>

#include "funcapi.h"
#include "utils/builtins.h"

#define NCOLS 12

static const char *
backend_in_use(bool gpu_usable)
{
	if (tsm_guc_backend == TS_BACKEND_CPU || !gpu_usable || tsm_guc_max_gpu_backends == 0)
		return "cpu";
	return tsm_guc_backend == TS_BACKEND_GPU ? "gpu" : "auto";
}

PG_FUNCTION_INFO_V1(ts_device_info);
Datum
ts_device_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsStatus	st;
	int			count = tsm_gpu_count(&st);
	const char *build = tsm_built_with_cuda() ? "cuda" : "cpu-only";
	InitMaterializedSRF(fcinfo, 0);
	for (int d = 0; d < count; d++)
	{
		TsDeviceInfo info;
		TsStatus	ist;
		Datum		values[NCOLS];
		bool		nulls[NCOLS] = {0};
		int			slot = tsm_gpu_slot_held(d);

		if (tsm_gpu_info(d, &info, &ist) != TS_OK)
			ereport(ERROR,
					(errcode(MAKE_SQLSTATE(ist.sqlstate[0], ist.sqlstate[1], ist.sqlstate[2],
										   ist.sqlstate[3], ist.sqlstate[4])),
					 errmsg_internal("%s", ist.message)));
		values[0] = CStringGetTextDatum(tsm_gpu_listed(d, count) > 0 ? backend_in_use(true) : "-");
		values[1] = CStringGetTextDatum("gpu");
		values[2] = Int32GetDatum(d);
		values[3] = CStringGetTextDatum(info.name);
		values[4] = CStringGetTextDatum(psprintf("%d.%d", info.cc_major, info.cc_minor));
		values[5] = Int64GetDatum(info.total_bytes);
		values[6] = Int64GetDatum(info.free_bytes);
		values[7] = Float8GetDatum(info.mem_bandwidth_gbs);
		values[8] = Int64GetDatum(tsm_gpu_bytes_in_use());
		values[9] = Int32GetDatum(slot);
		nulls[9] = slot < 0;
		values[10] = CStringGetTextDatum(TSM_VERSION);
		values[11] = CStringGetTextDatum(build);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	if (count == 0)
	{
		Datum		values[NCOLS];
		bool		nulls[NCOLS] = {0};
		long		pages = sysconf(_SC_PHYS_PAGES);
		long		avail = sysconf(_SC_AVPHYS_PAGES);
		long		psize = sysconf(_SC_PAGESIZE);
		long		threads = sysconf(_SC_NPROCESSORS_ONLN);

		values[0] = CStringGetTextDatum("cpu");
		values[1] = CStringGetTextDatum("cpu");
		nulls[2] = true;
		values[3] = CStringGetTextDatum(psprintf("CPU, %ld hardware threads, tsmine may use %d now (%s)",
												 threads, tsm_cpu_threads_now(tsm_guc_cpu_threads),
												 st.message));
		nulls[4] = true;
		values[5] = Int64GetDatum((int64) pages * psize);
		values[6] = Int64GetDatum((int64) avail * psize);
		nulls[7] = true;
		nulls[8] = true;
		nulls[9] = true;
		values[10] = CStringGetTextDatum(TSM_VERSION);
		values[11] = CStringGetTextDatum(build);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(ts_gpu_slots);

/* ts_gpu_slots() → per visible GPU: how often tsmine.gpu_devices lists it, its
 * slots, the backends holding one (this one included), this backend's slot.
 * Starts no CUDA context (the slots are locks; the count of GPUs needs none). */
Datum
ts_gpu_slots(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsStatus	st;
	int			count = Min(tsm_gpu_count(&st), TS_MAX_GPU_DEVICES);

	InitMaterializedSRF(fcinfo, 0);
	for (int d = 0; d < count; d++)
	{
		Datum		values[5];
		bool		nulls[5] = {0};
		int			slot = tsm_gpu_slot_held(d);

		values[0] = Int32GetDatum(d);
		values[1] = Int32GetDatum(tsm_gpu_listed(d, count));
		values[2] = Int32GetDatum(tsm_guc_max_gpu_backends);
		values[3] = Int32GetDatum(tsm_gpu_slot_holders(d));
		values[4] = Int32GetDatum(slot);
		nulls[4] = slot < 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
