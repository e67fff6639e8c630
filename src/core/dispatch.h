// dispatch.h — the policy every core entry point shares: which backend runs a
// call, the GPU slot, and the CPU fall-back when the GPU cannot take the input.
// The glue passes the settings as they are (TsExec.backend = tsmine.backend);
// only this file resolves them.
#pragma once

#include <cstdint>
#include <cstdio>

#include "error.h"
#include "tsm_api.h"

namespace tsm {

// True when this piece of work runs on the GPU; sets ex->used_backend.
//  TS_BACKEND_CPU: never.
//  TS_BACKEND_GPU: always, or an error (55000: built without CUDA, no usable
//                  GPU; 53000/55000/57014 from the slot).
//  TS_BACKEND_AUTO: when the build has CUDA, the work is large enough to gain
//                  (tsm_gpu_worthwhile), a GPU is usable and a slot is free
//                  (or tsmine.gpu_busy = wait gave one).
bool use_gpu(TsExec* ex, int work_kind, int64_t n, int64_t m = 0);

// Whether a failure of the GPU path lets an automatic choice run the call on
// the CPU instead: the input does not fit in device memory, exceeds what the
// GPU path holds, or the session's GPU context failed earlier.
bool gpu_failure_falls_back(const TsExec* ex, int code);

// The body of an extern "C" entry point: runs body() under guard(); in auto
// mode, a GPU failure that falls back runs body() again on the CPU (logged by
// nobody: the result is the same).  Returns the status code.
template <class F>
int run_entry(TsExec* ex, TsStatus* st, F&& body) noexcept {
    const int code = guard(st, body);
    if (code == TS_OK || !gpu_failure_falls_back(ex, code)) return code;
    std::snprintf(ex->cpu_fallback, sizeof ex->cpu_fallback, "%s", st->message);
    ex->backend = TS_BACKEND_CPU;
    ex->device_ms = ex->kernel_ms = ex->device_bytes = 0;
    return guard(st, body);
}

}  // namespace tsm
