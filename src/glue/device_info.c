/*
 * device_info.c — ts_device_info(): one row per visible GPU, or one CPU row
 * when none is usable (or the build has no CUDA).
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
	int			slot = tsm_gpu_slot_held();

	InitMaterializedSRF(fcinfo, 0);
	for (int d = 0; d < count; d++)
	{
		TsDeviceInfo info;
		TsStatus	ist;
		Datum		values[NCOLS];
		bool		nulls[NCOLS] = {0};

		if (tsm_gpu_info(d, &info, &ist) != TS_OK)
			ereport(ERROR,
					(errcode(MAKE_SQLSTATE(ist.sqlstate[0], ist.sqlstate[1], ist.sqlstate[2],
										   ist.sqlstate[3], ist.sqlstate[4])),
					 errmsg_internal("%s", ist.message)));
		values[0] = CStringGetTextDatum(d == tsm_guc_gpu_device ? backend_in_use(true) : "-");
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
