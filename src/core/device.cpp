// device.cpp — the device-management entry points of tsm_api.h, for GPU and
// CPU-only builds alike, and (with CUDA) the runtime helpers of gpu_runtime.h.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "error.h"
#include "gpu_runtime.h"
#include "tsm_api.h"

namespace {

std::atomic<int64_t> g_bytes_in_use{0};
std::atomic<int64_t> g_memory_limit{0};  // of the call in progress; 0: none
std::atomic<int64_t> g_allocs{0};
std::atomic<int64_t> g_frees{0};

#ifdef TSMINE_WITH_CUDA
std::once_flag g_probe_once;
int g_device_count = 0;
char g_probe_error[256] = "";
std::atomic<bool> g_context_broken{false};

void probe() {
    std::call_once(g_probe_once, [] {
        // Load every kernel when the context starts (the first GPU call of a session)
        // rather than at each kernel's first launch, which would charge the first call
        // of every method in a session with its modules' loading.  A setting of the
        // user's own wins.
        setenv("CUDA_MODULE_LOADING", "EAGER", 0);
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess) {
            std::snprintf(g_probe_error, sizeof g_probe_error, "%s (%s)",
                          cudaGetErrorString(e), cudaGetErrorName(e));
            cudaGetLastError();
            n = 0;
        } else if (n == 0) {
            std::snprintf(g_probe_error, sizeof g_probe_error, "no CUDA device is visible");
        }
        g_device_count = n;
    });
}

#endif

}  // namespace

#ifdef TSMINE_WITH_CUDA
namespace tsm {
namespace gpu {

void check(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    const char* name = cudaGetErrorName(e);
    const char* text = cudaGetErrorString(e);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        throw Error(TS_GPU_OUT_OF_MEMORY, kOutOfMemory,
                    format("out of GPU memory during %s", what),
                    "Use a shorter series, or run this call on the CPU with SET tsmine.backend = cpu.");
    }
    // Errors after which the context cannot be used again in this process.
    bool sticky = e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure ||
                  e == cudaErrorIllegalInstruction || e == cudaErrorMisalignedAddress ||
                  e == cudaErrorHardwareStackError || e == cudaErrorAssert ||
                  e == cudaErrorECCUncorrectable;
    if (sticky) g_context_broken = true;
    throw Error(TS_GPU_ERROR, kSystemError, format("CUDA error in %s: %s (%s)", what, text, name),
                sticky ? "The GPU context of this session can no longer be used: reconnect, "
                         "or SET tsmine.backend = cpu. Please report this as a bug."
                       : "Check the GPU with nvidia-smi, or SET tsmine.backend = cpu.");
}

void use_device(const TsExec* ex) { use_device(ex ? ex->gpu_device : 0, ex); }

void use_device(int dev, const TsExec* ex) {
    probe();
    if (g_device_count == 0)
        throw Error(TS_GPU_UNAVAILABLE, kNotInPrerequisiteState,
                    format("no usable GPU: %s", g_probe_error),
                    "SET tsmine.backend = auto or cpu to run on the CPU.");
    if (g_context_broken)
        throw Error(TS_GPU_UNAVAILABLE, kNotInPrerequisiteState,
                    "the GPU context of this session failed earlier and cannot be used again",
                    "Reconnect to get a fresh context, or SET tsmine.backend = cpu.");
    if (dev < 0 || dev >= g_device_count)
        throw Error(TS_GPU_UNAVAILABLE, kNotInPrerequisiteState,
                    format("GPU %d was asked for, but this machine has %d GPU(s)", dev, g_device_count),
                    format("SET tsmine.gpu_devices to ordinals from 0 to %d.", g_device_count - 1));
    check(cudaSetDevice(dev), "cudaSetDevice");
    g_memory_limit = ex ? ex->gpu_memory_limit : 0;
}

size_t free_bytes() {
    size_t fr = 0, total = 0;
    check(cudaMemGetInfo(&fr, &total), "cudaMemGetInfo");
    size_t reserve = 256u << 20;  // runtime, kernels' local memory, other users
    return fr > reserve ? fr - reserve : 0;
}

void require_bytes(size_t bytes, const char* what) {
    size_t fr = free_bytes();
    if (bytes > fr)
        throw Error(TS_GPU_OUT_OF_MEMORY, kOutOfMemory,
                    format("%s needs %.1f MB of GPU memory, but only %.1f MB are free", what,
                           bytes / 1048576.0, fr / 1048576.0),
                    "Use a shorter series, or run this call on the CPU with SET tsmine.backend = cpu.");
}

void note_alloc(size_t bytes) {
    const int64_t limit = g_memory_limit.load();
    const int64_t now = g_bytes_in_use.load();
    if (limit > 0 && now + static_cast<int64_t>(bytes) > limit)
        throw Error(TS_GPU_OUT_OF_MEMORY, kOutOfMemory,
                    format("this call needs more than tsmine.gpu_memory_limit (%lld MB) of GPU memory",
                           static_cast<long long>(limit >> 20)),
                    "Raise tsmine.gpu_memory_limit, use a shorter series, or SET tsmine.backend = cpu.");
    g_bytes_in_use += static_cast<int64_t>(bytes);
    ++g_allocs;
}
void note_free(size_t bytes) {
    g_bytes_in_use -= static_cast<int64_t>(bytes);
    ++g_frees;
}

namespace {
// Polls done() until it reports success; between polls, a pending cancel
// makes it call settle() and throw cancelled().
template <class Done, class Settle>
void poll(Done done, Settle settle, const TsExec* ex) {
    PollPace pace;
    for (;;) {
        cudaError_t e = done();
        if (e == cudaSuccess) return;
        if (e != cudaErrorNotReady) check(e, "kernel execution");
        if (ex && ex->interrupted && ex->interrupted()) {
            settle();
            cancelled();
        }
        pace.pause();
    }
}
}  // namespace

void wait(cudaStream_t s, const TsExec* ex) {
    // the kernels in flight finish (they are short), then we stop
    poll([&] { return cudaStreamQuery(s); }, [&] { cudaStreamSynchronize(s); }, ex);
}

}  // namespace gpu
}  // namespace tsm
#endif

extern "C" {

int tsm_built_with_cuda(void) noexcept {
#ifdef TSMINE_WITH_CUDA
    return 1;
#else
    return 0;
#endif
}

int tsm_gpu_count(TsStatus* st) noexcept {
    tsm::set_ok(st);
#ifdef TSMINE_WITH_CUDA
    try {
        probe();
    } catch (...) {
        tsm::set_status(st, TS_GPU_UNAVAILABLE, tsm::kNotInPrerequisiteState, "CUDA start-up failed");
        return 0;
    }
    if (g_device_count == 0)
        tsm::set_status(st, TS_GPU_UNAVAILABLE, tsm::kNotInPrerequisiteState, g_probe_error);
    return g_device_count;
#else
    tsm::set_status(st, TS_GPU_UNAVAILABLE, tsm::kNotInPrerequisiteState,
                    "this tsmine was built without CUDA");
    return 0;
#endif
}

int tsm_gpu_info(int ordinal, TsDeviceInfo* info, TsStatus* st) noexcept {
    return tsm::guard(st, [&] {
        std::memset(info, 0, sizeof *info);
        info->ordinal = ordinal;
#ifdef TSMINE_WITH_CUDA
        TsExec ex{};
        ex.gpu_device = ordinal;
        tsm::gpu::use_device(&ex);
        cudaDeviceProp p;
        tsm::gpu::check(cudaGetDeviceProperties(&p, ordinal), "cudaGetDeviceProperties");
        std::snprintf(info->name, sizeof info->name, "%.127s", p.name);
        info->cc_major = p.major;
        info->cc_minor = p.minor;
        info->multiprocessors = p.multiProcessorCount;
        size_t fr = 0, total = 0;
        tsm::gpu::check(cudaMemGetInfo(&fr, &total), "cudaMemGetInfo");
        info->total_bytes = static_cast<int64_t>(total);
        info->free_bytes = static_cast<int64_t>(fr);
        int clock_khz = 0, bus_bits = 0;
        cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, ordinal);
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal);
        cudaGetLastError();
        // double data rate: 2 transfers per clock
        info->mem_bandwidth_gbs = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
#else
        tsm::invalid("this tsmine was built without CUDA");
#endif
    });
}

int64_t tsm_gpu_bytes_in_use(void) noexcept { return g_bytes_in_use.load(); }

void tsm_gpu_alloc_counts(int64_t* allocs, int64_t* frees) noexcept {
    *allocs = g_allocs.load();
    *frees = g_frees.load();
}

int tsm_gpu_worthwhile(int kind, int64_t n, int64_t m) noexcept {
    (void)m;
    // Measured break-even points (bench/RESULTS.md): below them the transfer
    // and launch costs outweigh the GPU's speed.
    switch (kind) {
        case TS_WORK_OUTLIERS: return n >= (int64_t(1) << 21);
        case TS_WORK_MATRIX_PROFILE:
        case TS_WORK_DISCORDS:
        case TS_WORK_MOTIFS: return n >= 4096;
        case TS_WORK_MATCH: return n >= (int64_t(1) << 18);
        case TS_WORK_SHAPELETS: return n >= 100000;  // n = total pivot-series pairs work units
        default: return 0;
    }
}

}  // extern "C"
