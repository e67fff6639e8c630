/*
 * tsmine.c — module magic and the GUCs.  _PG_init defines settings only: CUDA
 * is started lazily, in a backend, on its first GPU call (never in the
 * postmaster).
 */
#include "glue.h"

#include <ctype.h>

#include "utils/guc.h"

PG_MODULE_MAGIC;

int			tsm_guc_backend = TS_BACKEND_AUTO;
int			tsm_guc_gpu_device = 0;
static char *tsm_guc_gpu_devices_text = NULL;
const TsmGpuList *tsm_guc_gpu_devices = NULL;
int			tsm_guc_max_gpu_backends = 4;
int			tsm_guc_gpu_busy = TSM_GPU_BUSY_CPU;
int			tsm_guc_cpu_threads = 0;
int			tsm_guc_gpu_memory_limit = 0;
int			tsm_guc_gpu_split_min_length = 262144;
int			tsm_guc_progress = -1;

static const struct config_enum_entry backend_options[] = {
	{"auto", TS_BACKEND_AUTO, false},
	{"gpu", TS_BACKEND_GPU, false},
	{"cpu", TS_BACKEND_CPU, false},
	{NULL, 0, false}
};

static const struct config_enum_entry gpu_busy_options[] = {
	{"cpu", TSM_GPU_BUSY_CPU, false},
	{"wait", TSM_GPU_BUSY_WAIT, false},
	{"error", TSM_GPU_BUSY_ERROR, false},
	{NULL, 0, false}
};

void		_PG_init(void);

/* One entry of tsmine.gpu_devices (between commas, blanks around it allowed):
 * a CUDA ordinal from 0 to TSM_MAX_DEVICE_ORDINAL; false with the detail set. */
static bool
parse_gpu_ordinal(const char *item, int len, int *ordinal)
{
	long		v = 0;
	int			digits = 0;

	while (len > 0 && isspace((unsigned char) item[0]))
		item++, len--;
	while (len > 0 && isspace((unsigned char) item[len - 1]))
		len--;
	for (; digits < len && isdigit((unsigned char) item[digits]); digits++)
		if ((v = v * 10 + (item[digits] - '0')) > TSM_MAX_DEVICE_ORDINAL)
			break;
	if (len == 0 || digits < len || v > TSM_MAX_DEVICE_ORDINAL)
	{
		GUC_check_errdetail("\"%.*s\" is not a CUDA ordinal from 0 to %d.", len, item, TSM_MAX_DEVICE_ORDINAL);
		GUC_check_errhint("Write 'all', or CUDA ordinals separated by commas, such as '0,1'; empty: "
						  "tsmine.gpu_device alone.");
		return false;
	}
	*ordinal = (int) v;
	return true;
}

/* Whether text is blanks alone. */
static bool
blank(const char *text)
{
	return strspn(text, " \t\n\r") == strlen(text);
}

/* tsmine.gpu_devices: '' (tsmine.gpu_device alone), 'all', or a comma list of
 * ordinals (repeats allowed); the parsed list becomes the setting's extra. */
static bool
check_gpu_devices(char **newval, void **extra, GucSource source)
{
	TsmGpuList	list = {0};
	const char *p = *newval + strspn(*newval, " \t\n\r");

	if (pg_strncasecmp(p, "all", 3) == 0 && blank(p + 3))
		list.n = TS_GPU_DEVICES_ALL;
	else if (!blank(p))
		for (;;)
		{
			const char *comma = strchr(p, ',');

			if (list.n == TS_MAX_GPU_DEVICES)
			{
				GUC_check_errdetail("It lists more than %d GPUs.", TS_MAX_GPU_DEVICES);
				return false;
			}
			if (!parse_gpu_ordinal(p, comma ? (int) (comma - p) : (int) strlen(p), &list.devices[list.n++]))
				return false;
			if (!comma)
				break;
			p = comma + 1;
		}
	if (!(*extra = malloc(sizeof(TsmGpuList))))
	{
		GUC_check_errcode(ERRCODE_OUT_OF_MEMORY);
		return false;
	}
	memcpy(*extra, &list, sizeof(TsmGpuList));
	return true;
}

static void
assign_gpu_devices(const char *newval, void *extra)
{
	tsm_guc_gpu_devices = (const TsmGpuList *) extra;
}

void
_PG_init(void)
{
	DefineCustomEnumVariable("tsmine.backend",
							 "Where tsmine runs: auto, gpu or cpu.",
							 "auto uses the GPU when one is usable and the input is large enough to gain; "
							 "gpu raises an error when no GPU is usable; cpu never touches the GPU.",
							 &tsm_guc_backend, TS_BACKEND_AUTO, backend_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("tsmine.gpu_device",
							"CUDA ordinal of the GPU tsmine uses when tsmine.gpu_devices is empty.",
							NULL,
							&tsm_guc_gpu_device, 0, 0, TSM_MAX_DEVICE_ORDINAL,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("tsmine.gpu_devices",
							   "The GPUs tsmine may use: a comma list of CUDA ordinals, or all.",
							   "Empty (the default): tsmine.gpu_device alone. A backend's work runs on the listed GPU "
							   "whose slot it holds, else the least loaded; one long series' matrix profile is split "
							   "over every entry (a GPU listed twice takes two shares).",
							   &tsm_guc_gpu_devices_text, "",
							   PGC_USERSET, GUC_LIST_INPUT, check_gpu_devices, assign_gpu_devices, NULL);
	DefineCustomIntVariable("tsmine.max_gpu_backends",
							"How many backends of the cluster may hold a GPU context on each GPU at once.",
							"Each context costs about 250 ms to create and some device memory; a backend keeps "
							"its context, and its slot, until it exits. 0 disables the GPU.",
							&tsm_guc_max_gpu_backends, 4, 0, 1024,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("tsmine.gpu_busy",
							 "What a call does when every GPU slot is taken: cpu, wait or error.",
							 "cpu runs the call on the CPU (with tsmine.backend = gpu it raises an error "
							 "instead); wait waits for a slot; error raises an error.",
							 &tsm_guc_gpu_busy, TSM_GPU_BUSY_CPU, gpu_busy_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("tsmine.cpu_threads",
							"Threads the CPU path uses at most (0: the CPUs idle when a call starts).",
							"Work under about a millisecond runs on one thread whatever the setting.",
							&tsm_guc_cpu_threads, 0, 0, 1024,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("tsmine.gpu_split_min_length",
							"The shortest series whose matrix profile is split over the GPUs tsmine.gpu_devices lists.",
							"A shorter series runs on one of them, the backend's (the least loaded when it took "
							"its first), so that the backends of many series spread over the GPUs. 0 splits "
							"every series.",
							&tsm_guc_gpu_split_min_length, 262144, 0, PG_INT32_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("tsmine.gpu_memory_limit",
							"Device memory one tsmine call may hold (0: as much as is free).",
							"A call that needs more runs on the CPU in auto mode and raises an error with "
							"tsmine.backend = gpu.",
							&tsm_guc_gpu_memory_limit, 0, 0, PG_INT32_MAX,
							PGC_SUSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("tsmine.progress",
							"After how long a tsmine call reports its progress in NOTICEs (-1: never).",
							"A call that has run this long (counted from when its series has been read) "
							"sends a NOTICE with the fraction done and the estimated time left, then one "
							"more every as many seconds (at least 1). 0 reports from the start.",
							&tsm_guc_progress, -1, -1, INT_MAX / 1000,
							PGC_USERSET, GUC_UNIT_S, NULL, NULL, NULL);
	MarkGUCPrefixReserved("tsmine");
}
