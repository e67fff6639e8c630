/*
 * tsm_api.h — the boundary between the PostgreSQL glue (C) and the core (C++).
 *
 * Everything here is plain C: the glue includes it, the core implements it.
 * Every entry point of the core is extern "C", noexcept, takes plain data and
 * reports failure through a TsStatus (code, SQLSTATE, message, hint) that the
 * glue turns into ereport(ERROR).  The core never calls PostgreSQL and never
 * longjmps; the glue never lets ereport run while core objects are live.
 */
#ifndef TSM_API_H
#define TSM_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define TSM_NOEXCEPT noexcept
extern "C" {
#else
#define TSM_NOEXCEPT
#endif

/* ---- status ------------------------------------------------------------ */

typedef enum TsCode
{
	TS_OK = 0,
	TS_INVALID_ARGUMENT,		/* 22023 (or the SQLSTATE given) */
	TS_OUT_OF_MEMORY,			/* 53200 host memory */
	TS_GPU_OUT_OF_MEMORY,		/* 53200 device memory */
	TS_GPU_UNAVAILABLE,			/* 55000 no usable GPU and one was required */
	TS_GPU_ERROR,				/* 58000 a CUDA call failed */
	TS_CANCELLED,				/* 57014 the caller asked us to stop */
	TS_INTERNAL,				/* XX000 a bug: please report */
	TS_OVER_BUDGET,				/* TsExec.budget_ms ran out: the core's automatic
								 * choice runs another method (never reported) */
	TS_GPU_LIMIT				/* 54000 the input exceeds what the GPU path holds
								 * (auto runs it on the CPU) */
} TsCode;

typedef struct TsStatus
{
	int			code;			/* TsCode */
	char		sqlstate[6];	/* five characters and a NUL */
	char		message[320];
	char		detail[320];
	char		hint[320];
} TsStatus;

/* ---- arguments ---------------------------------------------------------- */

/*
 * An integer argument that the SQL call left NULL (k, exclusion_zone): the
 * value the glue passes for it, outside the range of any SQL integer
 * argument.  The core entry gives it its meaning: the argument's default, "all
 * results" where the function says so, or an error.  Text arguments (method
 * names) arrive as C strings; the core entry checks them too.
 */
#define TS_ARG_NULL INT64_MIN

/*
 * A distance argument (min_distance, max_distance) is NaN when left NULL:
 * "none".  A NaN the caller gave arrives as the NaN with these bits, which
 * the core entry refuses (22023, as an out-of-range distance).
 */
#define TS_NAN_GIVEN_BITS UINT64_C(0x7ff8000000000bad)

/* ---- execution options ------------------------------------------------- */

/* The setting tsmine.backend: its values are these (the GUC's enum uses them). */
typedef enum TsBackend
{
	TS_BACKEND_AUTO = 0,		/* the GPU when one is usable, a slot is free and the work gains */
	TS_BACKEND_CPU = 1,
	TS_BACKEND_GPU = 2			/* the GPU or an error */
} TsBackend;

/*
 * How far a call has come, in units of work that its method counts (the
 * matrix profile's sweep tasks, windows, shapelet candidates): the core sets
 * total when its main work starts and advances done, from any of its threads
 * (atomically), as chunks finish.  total is 0 until the main work starts (and
 * for work too short to count), and -1 where the work depends on the data
 * (PD3's and MK's pruning).  A later phase (the profile after MK ran past its
 * budget) starts again with its own total.  The glue owns it and reads it in
 * `interrupted`, which the core calls between chunks.
 */
typedef struct TsProgress
{
	int64_t		done;
	int64_t		total;
} TsProgress;

/*
 * What the glue hands every entry point: the settings as they are, and
 * callbacks.  The core decides (dispatch.cpp): which backend runs the call,
 * whether to take a GPU slot, which method `auto` means, and the CPU
 * fall-back when the GPU cannot take the input.  The callbacks are called
 * only from the thread that called the entry point, and never longjmp.
 */
/* TsExec.n_gpu_devices: every visible GPU (tsmine.gpu_devices = 'all') */
#define TS_GPU_DEVICES_ALL (-1)
/* the most entries tsmine.gpu_devices may list */
#define TS_MAX_GPU_DEVICES 64

/* TsExec.take_gpu_slot's mode */
typedef enum TsSlotMode
{
	TS_SLOT_OPTIONAL = 0,		/* none free: as tsmine.gpu_busy says (the CPU, wait, or an error) */
	TS_SLOT_REQUIRED = 1,		/* none free: wait (gpu_busy = wait) or an error, never the CPU */
	TS_SLOT_TRY = 2,			/* none free: -1 at once, whatever gpu_busy says */
	TS_SLOT_HELD = 3			/* a slot this backend holds, or -1: takes none */
} TsSlotMode;

typedef struct TsExec
{
	int			backend;		/* TsBackend: tsmine.backend (CPU in parallel workers) */
	/* The GPUs a call may use (dispatch.h resolves them): n_gpu_devices > 0:
	 * the CUDA ordinals gpu_devices[0 .. n) (tsmine.gpu_devices; repeats
	 * allowed); TS_GPU_DEVICES_ALL: every visible GPU; 0: gpu_device alone
	 * (tsmine.gpu_device, the setting before tsmine.gpu_devices).  The core
	 * sets gpu_device to the device it chose for the call's single-GPU work. */
	int			gpu_device;		/* CUDA ordinal */
	int			n_gpu_devices;
	int			gpu_devices[TS_MAX_GPU_DEVICES];
	/* a series of fewer values runs on gpu_device alone, however many GPUs
	 * are listed (tsmine.gpu_split_min_length); 0: every series is split */
	int64_t		gpu_split_min_length;
	int			cpu_threads;	/* 0: the CPUs idle now (parallel.h) */
	int64_t		gpu_memory_limit;	/* device bytes one call may hold; 0: no limit */
	/* non-zero when the query was cancelled or timed out; may be NULL.  Called
	 * between chunks of work, so the glue also reports *progress from it. */
	int			(*interrupted) (void);
	/* the call's progress (see TsProgress); may be NULL */
	TsProgress *progress;
	/* allocator for result arrays; returns NULL on failure; never NULL */
	void	   *(*alloc) (size_t bytes);
	/* GPU slots (tsmine.max_gpu_backends per GPU, cluster-wide); both NULL:
	 * no slots needed.  A backend keeps a slot, with its CUDA context on that
	 * GPU, until it exits.
	 * gpu_slot_load: how many other backends hold a slot of `device` now (0
	 * when it cannot tell).
	 * take_gpu_slot: takes (or confirms) a slot of the first of devices[0 .. n)
	 * that this backend holds or that has one free, trying them in that order,
	 * before the core's first GPU work there: the index of that device; -1 when
	 * none is free and the call may do without (mode TS_SLOT_OPTIONAL with
	 * tsmine.gpu_busy = cpu, or TS_SLOT_TRY); -2 with *st filled when the call
	 * must fail (no slot and tsmine.gpu_busy = error, slots disabled and
	 * TS_SLOT_REQUIRED, or a cancel while waiting). */
	int			(*gpu_slot_load) (int device);
	int			(*take_gpu_slot) (const int *devices, int n, int mode, TsStatus *st);
	/* > 0: methods that support it stop with TS_OVER_BUDGET once they have run
	 * this many milliseconds (an automatic choice trying the method that is
	 * usually faster); 0: no budget */
	double		budget_ms;
	/* out */
	int			used_backend;	/* TS_BACKEND_CPU or TS_BACKEND_GPU */
	const char *used_method;	/* the method that produced the result ("pd3",
								 * "matrix_profile", "mk"), or NULL */
	char		cpu_fallback[320];	/* why auto ran the call on the CPU after the
									 * GPU could not take it ("" when it did not) */
	double		device_ms;		/* time spent on the device, transfers included */
	double		kernel_ms;		/* time in kernels alone (GPU) */
	double		device_bytes;	/* bytes the kernels read and wrote (for bandwidth) */
} TsExec;

/* ---- device management ------------------------------------------------- */

typedef struct TsDeviceInfo
{
	int			ordinal;
	char		name[128];
	int			cc_major;
	int			cc_minor;
	int64_t		total_bytes;
	int64_t		free_bytes;
	int			multiprocessors;
	double		mem_bandwidth_gbs;	/* theoretical, from clock and bus width; 0 if unknown */
} TsDeviceInfo;

/* 1 when this build has CUDA code in it */
int			tsm_built_with_cuda(void) TSM_NOEXCEPT;

/* Number of usable GPUs (initialises the CUDA runtime on first call, in this
 * process).  0 with a reason in *st when none; never an error status. */
int			tsm_gpu_count(TsStatus *st) TSM_NOEXCEPT;

/* Fills info for one GPU; TS_OK or an error status. */
int			tsm_gpu_info(int ordinal, TsDeviceInfo *info, TsStatus *st) TSM_NOEXCEPT;

/* Bytes of device memory tsmine holds right now (0 between calls). */
int64_t		tsm_gpu_bytes_in_use(void) TSM_NOEXCEPT;

/* The threads a CPU call may use now (parallel.h): cpu_threads when > 0,
 * else (0) the CPUs of this process that the machine's other runnable threads
 * leave idle, at least 1. */
int			tsm_cpu_threads_now(int cpu_threads) TSM_NOEXCEPT;

/* Number of device allocations made and freed since the backend started. */
void		tsm_gpu_alloc_counts(int64_t *allocs, int64_t *frees) TSM_NOEXCEPT;

/* Whether, for work of this size, the GPU is expected to beat the CPU
 * (auto mode).  kind is one of the TS_WORK_* values. */
typedef enum TsWork
{
	TS_WORK_OUTLIERS = 1,
	TS_WORK_MATRIX_PROFILE,
	TS_WORK_DISCORDS,
	TS_WORK_MOTIFS,
	TS_WORK_MATCH,
	TS_WORK_SHAPELETS
} TsWork;
int			tsm_gpu_worthwhile(int kind, int64_t n, int64_t m) TSM_NOEXCEPT;

/* ---- input ------------------------------------------------------------- */

/* The 0-based position of the first NaN or infinite value of x[0..n), or -1
 * when every value is finite; at memory speed (finite.cpp). */
int64_t		tsm_first_nonfinite(const double *x, int64_t n) TSM_NOEXCEPT;

/* ---- outliers ---------------------------------------------------------- */

typedef enum TsOutlierMethod
{
	TS_OUTLIERS_SIGMA = 0,
	TS_OUTLIERS_MAD = 1
} TsOutlierMethod;

typedef struct TsOutliers
{
	int64_t		count;
	int64_t    *pos;			/* 0-based, ascending; from exec->alloc */
	double	   *value;
	double	   *score;			/* z-score (sigma) or modified z-score (mad) */
	double		center;			/* mean or median */
	double		scale;			/* std, or MAD / 0.6745 (or its MeanAD fallback) */
	int			scale_rule;		/* 0 std, 1 MAD, 2 MeanAD fallback, 3 no spread */
} TsOutliers;

/*
 * ts_outliers' entry: the values beyond k standard deviations (sigma) or
 * modified z-scores (mad) of the center; method 'sigma' or 'mad' (any case,
 * in the order of TsOutlierMethod).  Errors (22023): k not positive or not
 * finite, an unknown method.  NaN and ±Infinity values of x are gaps:
 * skipped (no statistic counts them, none is an outlier); positions are
 * those of x.
 */
int			tsm_outliers(const double *x, int64_t n, double k, const char *method,
						 TsExec *exec, TsOutliers *out, TsStatus *st) TSM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* TSM_API_H */
