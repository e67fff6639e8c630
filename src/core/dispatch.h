// dispatch.h — the policy every core entry point shares: which backend runs a
// call, the GPU slot, and the CPU fall-back when the GPU cannot take the input.
// The glue passes the settings as they are (TsExec.backend = tsmine.backend);
// only this file resolves them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include "error.h"
#include "tsm_api.h"

namespace tsm {

// True when this piece of work runs on the GPU; sets ex->used_backend and,
// when true, ex->gpu_device (the GPU of the call's single-GPU work).
//  TS_BACKEND_CPU: never.
//  TS_BACKEND_GPU: always, or an error (55000: built without CUDA, no usable
//                  GPU; 22023: a listed GPU that does not exist;
//                  53000/55000/57014 from the slot).
//  TS_BACKEND_AUTO: when the build has CUDA, the work is large enough to gain
//                  (tsm_gpu_worthwhile), a GPU is usable and a slot is free
//                  (or tsmine.gpu_busy = wait gave one); 22023 as above.
// The GPU is one of the listed GPUs (listed_gpus): the one whose slot this
// backend holds, else the least loaded (slot_order), so that backends spread
// over the GPUs and each keeps its CUDA context on its GPU for its life.
bool use_gpu(TsExec* ex, int work_kind, int64_t n, int64_t m = 0);

// The GPUs ex lets a call use (TsExec.n_gpu_devices resolved against the
// `visible` GPUs), in listed order, repeats kept.  Throws 22023 when one of
// them is not below `visible`.
std::vector<int> listed_gpus(const TsExec* ex, int visible);

// The order in which a backend that holds no slot of the listed GPUs tries
// them for one: each GPU once, by load (fewest other holders first), ties in
// listed order.  load(d): TsExec.gpu_slot_load.
template <class Load>
std::vector<int> slot_order(const std::vector<int>& listed, Load load) {
    std::vector<int> gpus, loads;
    for (int d : listed) {
        bool seen = false;
        for (int g : gpus) seen = seen || g == d;
        if (seen) continue;
        const int l = load(d);
        size_t at = gpus.size();
        while (at > 0 && loads[at - 1] > l) --at;  // stable: ties keep listed order
        gpus.insert(gpus.begin() + at, d);
        loads.insert(loads.begin() + at, l);
    }
    return gpus;
}

// The GPUs a call that splits its work runs on (the matrix profile's sweep:
// one part per entry), once use_gpu has chosen the GPU: the listed GPUs in
// listed order, repeats kept, less those of which this backend holds no slot
// and none is free now (TS_SLOT_TRY: it never waits for another GPU, so two
// backends cannot wait for each other); ex->gpu_device is always among them.
// A series of fewer than ex->gpu_split_min_length values (tsmine.
// gpu_split_min_length) is not split: {ex->gpu_device} alone, so that the
// backends of many short series spread over the GPUs, a GPU each.
std::vector<int> split_gpus(TsExec* ex, int64_t n);

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
