// gpu_runtime.h — device management for the core: lazy CUDA start-up in the
// calling process, checked CUDA calls, device buffers that are always freed,
// and accounting of what tsmine holds on the device.
//
// Only compiled in with TSMINE_WITH_CUDA.  Host code in kernels/*.cu uses it
// to orchestrate its kernels.
#pragma once

#ifdef TSMINE_WITH_CUDA

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "error.h"
#include "tsm_api.h"

namespace tsm {
namespace gpu {

// Makes exec->gpu_device current, starting the CUDA runtime on first use.
// Throws Error(TS_GPU_UNAVAILABLE) when it is not usable.
void use_device(const TsExec* ex);
// The same for the GPU `ordinal` (one of a split call's GPUs, dispatch.h).
void use_device(int ordinal, const TsExec* ex);

// Throws Error for a failed CUDA call (device out of memory is its own code).
void check(cudaError_t e, const char* what);

// Device memory this process's tsmine may still allocate, with headroom kept
// back for the CUDA runtime and kernels' scratch.
size_t free_bytes();

// Throws TS_GPU_OUT_OF_MEMORY with a clear message if `bytes` cannot be had.
void require_bytes(size_t bytes, const char* what);

// Accounting, for ts_device_info() and the leak tests.  note_alloc throws
// TS_GPU_OUT_OF_MEMORY when the call's limit (TsExec.gpu_memory_limit, set by
// use_device) would be passed; call it before allocating.
void note_alloc(size_t bytes);
void note_free(size_t bytes);

template <class T>
class Buffer {
  public:
    Buffer() = default;
    explicit Buffer(size_t count, const char* what = "device buffer") { allocate(count, what); }
    ~Buffer() { release(); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; o.n_ = 0; }
    Buffer& operator=(Buffer&& o) noexcept {
        if (this != &o) { release(); p_ = o.p_; n_ = o.n_; o.p_ = nullptr; o.n_ = 0; }
        return *this;
    }
    void allocate(size_t count, const char* what = "device buffer") {
        release();
        if (count == 0) count = 1;
        note_alloc(count * sizeof(T));  // throws past the call's memory limit
        void* p = nullptr;
        cudaError_t e = cudaMalloc(&p, count * sizeof(T));
        if (e != cudaSuccess) {
            cudaGetLastError();  // clear a non-sticky allocation error
            note_free(count * sizeof(T));
            if (e == cudaErrorMemoryAllocation) require_bytes(count * sizeof(T), what);
            check(e, what);
        }
        p_ = static_cast<T*>(p);
        n_ = count;
    }
    void release() noexcept {
        if (p_) {
            cudaFree(p_);
            note_free(n_ * sizeof(T));
            p_ = nullptr;
            n_ = 0;
        }
    }
    T* get() const { return p_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }

  private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

// The device memory of one call as a single allocation (one cudaMalloc and
// one cudaFree instead of one per array).  Either reserve(ptr, count) each
// array (256-byte aligned) and allocate once, which points every reserved
// pointer at its array; or take<T>(count), which returns the array's offset,
// and at<T>(offset) after allocate.
struct Arena {
    size_t off = 0;
    Buffer<unsigned char> mem;
    template <class T>
    size_t take(size_t count) {
        const size_t o = (off + 255) & ~size_t(255);
        off = o + (count > 0 ? count : 1) * sizeof(T);
        return o;
    }
    template <class T>
    void reserve(T*& ptr, size_t count) {
        const size_t o = take<T>(count);
        bind_.push_back([&ptr, o](unsigned char* base) { ptr = reinterpret_cast<T*>(base + o); });
    }
    void allocate(const char* what) {
        mem.allocate(off, what);
        for (auto& bind : bind_) bind(mem.get());
    }
    template <class T>
    T* at(size_t o) const { return reinterpret_cast<T*>(mem.get() + o); }

  private:
    std::vector<std::function<void(unsigned char*)>> bind_;  // one per reserved pointer
};

class Stream {
  public:
    Stream() { check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
    ~Stream() {
        if (s_) { cudaStreamSynchronize(s_); cudaStreamDestroy(s_); }
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    operator cudaStream_t() const { return s_; }
    void sync(const char* what = "cudaStreamSynchronize") { check(cudaStreamSynchronize(s_), what); }

  private:
    cudaStream_t s_ = nullptr;
};

// An event that marks a point of a stream's work (no timing).
class Event {
  public:
    Event() { check(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming), "cudaEventCreate"); }
    ~Event() {
        if (e_) cudaEventDestroy(e_);
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    void record(cudaStream_t s) { check(cudaEventRecord(e_, s), "cudaEventRecord"); }
    operator cudaEvent_t() const { return e_; }

  private:
    cudaEvent_t e_ = nullptr;
};

// Kernel time on a stream, by events.
class EventTimer {
  public:
    explicit EventTimer(cudaStream_t s) : s_(s) {
        check(cudaEventCreate(&a_), "cudaEventCreate");
        check(cudaEventCreate(&b_), "cudaEventCreate");
    }
    ~EventTimer() { cudaEventDestroy(a_); cudaEventDestroy(b_); }
    void start() { check(cudaEventRecord(a_, s_), "cudaEventRecord"); }
    void stop() { check(cudaEventRecord(b_, s_), "cudaEventRecord"); }
    double ms() {
        check(cudaEventSynchronize(b_), "cudaEventSynchronize");
        float t = 0;
        check(cudaEventElapsedTime(&t, a_, b_), "cudaEventElapsedTime");
        return t;
    }

  private:
    cudaStream_t s_;
    cudaEvent_t a_ = nullptr, b_ = nullptr;
};

// Wall-clock milliseconds, for exec->device_ms.
inline double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// Synchronises the stream in slices, polling exec->interrupted between them,
// so a long kernel sequence can be cancelled.  Throws cancelled().
void wait(cudaStream_t s, const TsExec* ex);

// The pace of a host thread that polls the device (and the cancel flag)
// until its work ends: queries back to back for the first kSpinMs of the
// wait, then a sleep between polls.  A sleep of 50 µs lasts that plus the
// timer's slack (50 µs by default on Linux), which a short call (a matrix
// profile of 2^16 windows: about 2 ms) would pay at its end; a long one
// spends at most kSpinMs of a core per wait.
class PollPace {
  public:
    static constexpr double kSpinMs = 3.0;
    void pause() {
        if (now_ms() - start_ > kSpinMs) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }

  private:
    double start_ = now_ms();
};

}  // namespace gpu
}  // namespace tsm

#endif  // TSMINE_WITH_CUDA
