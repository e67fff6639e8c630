/*
 * compat.h — the PostgreSQL calls of the glue that differ between major
 * versions, in one file, so that a port to another major is a change here.
 *
 * Supported: PostgreSQL 15, built and tested (the only major Debian 12
 * packages).  14 has the fallbacks below; CI compiles the glue with them
 * (TSM_COMPAT_PG_VERSION_NUM=140000 against 15's headers: test/shell/compat.sh)
 * but no PostgreSQL 14 runs it.  13 and older lack SPI_execute_plan_extended,
 * which the query form needs.  16 and later have every call as 15 has it, as far as
 * their headers were read; none is tested.
 *
 * The glue calls the current names (InitMaterializedSRF, MarkGUCPrefixReserved);
 * for older versions this file maps them.  Calls that are the same in every
 * supported version, and the version each appeared in:
 *   SPI_execute_plan_extended, SPIExecuteOptions.dest  14  (input.c)
 *   GetCommandTagName, PG_FINALLY                      13  (input.c)
 *   getKeyJsonValueFromContainer, TYPALIGN_DOUBLE      13  (shapelets.c, discords.c)
 *   WL_EXIT_ON_PM_DEATH                                12  (gpu_slots.c)
 * Nothing else in src/glue tests PG_VERSION_NUM.
 */
#ifndef TSM_COMPAT_H
#define TSM_COMPAT_H

#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/tuplestore.h"

/* The version the glue is written for: PG_VERSION_NUM, or lower to compile
 * the fallbacks (a test; they use only calls that the older version has). */
#ifndef TSM_COMPAT_PG_VERSION_NUM
#define TSM_COMPAT_PG_VERSION_NUM PG_VERSION_NUM
#endif

#if TSM_COMPAT_PG_VERSION_NUM < 140000
#error "tsmine needs PostgreSQL 14 or later (SPI_execute_plan_extended); it is tested on PostgreSQL 15"
#endif

/* ---- InitMaterializedSRF: 15.1 and later --------------------------------
 * 15.0 called it SetSingleFuncCall; before 15 a materialize-mode SRF set up
 * its tuplestore itself, as below. */
#if TSM_COMPAT_PG_VERSION_NUM >= 150001
/* as PostgreSQL has it */
#elif TSM_COMPAT_PG_VERSION_NUM >= 150000
#define InitMaterializedSRF(fcinfo, flags) SetSingleFuncCall((fcinfo), (flags))
#else
#ifndef MAT_SRF_USE_EXPECTED_DESC
#define MAT_SRF_USE_EXPECTED_DESC 0x01
#define MAT_SRF_BLESS 0x02
#endif
static inline void
tsm_compat_init_materialized_srf(FunctionCallInfo fcinfo, bits32 flags)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext old_context;
	TupleDesc	desc;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-valued function called in context that cannot accept a set")));
	if (!(rsinfo->allowedModes & SFRM_Materialize) ||
		((flags & MAT_SRF_USE_EXPECTED_DESC) != 0 && rsinfo->expectedDesc == NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("materialize mode required, but it is not allowed in this context")));
	old_context = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	if ((flags & MAT_SRF_USE_EXPECTED_DESC) != 0)
		desc = CreateTupleDescCopy(rsinfo->expectedDesc);
	else if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if ((flags & MAT_SRF_BLESS) != 0)
		BlessTupleDesc(desc);
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = tuplestore_begin_heap((rsinfo->allowedModes & SFRM_Materialize_Random) != 0,
											  false, work_mem);
	rsinfo->setDesc = desc;
	MemoryContextSwitchTo(old_context);
}
#define InitMaterializedSRF(fcinfo, flags) tsm_compat_init_materialized_srf((fcinfo), (flags))
#endif

/* ---- MarkGUCPrefixReserved: 15 and later; before, EmitWarningsOnPlaceholders */
#if TSM_COMPAT_PG_VERSION_NUM < 150000
#define MarkGUCPrefixReserved(prefix) EmitWarningsOnPlaceholders(prefix)
#endif

/* This backend's 0-based index among the MaxBackends (the progress slots):
 * MyBackendId - 1 in 14 and 15 (17 replaced it with MyProcNumber). */
#define tsm_compat_backend_index() ((int) MyBackendId - 1)

#endif							/* TSM_COMPAT_H */
