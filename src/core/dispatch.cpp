#include "dispatch.h"

namespace tsm {

namespace {

[[noreturn]] void gpu_required_but(const std::string& why) {
    throw Error(TS_GPU_UNAVAILABLE, kNotInPrerequisiteState, "tsmine.backend is 'gpu', but " + why,
                "SET tsmine.backend = auto or cpu to run on the CPU.");
}

// The slot through the glue's callback: true when held.
bool take_slot(TsExec* ex, bool required) {
    if (!ex->take_gpu_slot) return true;
    TsStatus st;
    const int got = ex->take_gpu_slot(required ? 1 : 0, &st);
    if (got < 0) throw Error(st.code, st.sqlstate, st.message, st.hint, st.detail);
    return got > 0;
}

bool gpu_required(TsExec* ex) {
    if (!tsm_built_with_cuda())
        throw Error(TS_GPU_UNAVAILABLE, kNotInPrerequisiteState,
                    "tsmine.backend is 'gpu', but this tsmine was built without CUDA",
                    "SET tsmine.backend = auto or cpu, or rebuild tsmine where nvcc is installed.");
    TsStatus st;
    if (tsm_gpu_count(&st) == 0) gpu_required_but(format("no GPU is usable: %s", st.message));
    if (!take_slot(ex, true)) gpu_required_but("no GPU slot is free");
    return true;
}

bool gpu_chosen(TsExec* ex, int work_kind, int64_t n, int64_t m) {
    if (!tsm_built_with_cuda() || !tsm_gpu_worthwhile(work_kind, n, m)) return false;
    TsStatus st;
    return tsm_gpu_count(&st) > 0 && take_slot(ex, false);
}

}  // namespace

bool use_gpu(TsExec* ex, int work_kind, int64_t n, int64_t m) {
    bool gpu = false;
    if (ex->backend == TS_BACKEND_GPU)
        gpu = gpu_required(ex);
    else if (ex->backend == TS_BACKEND_AUTO)
        gpu = gpu_chosen(ex, work_kind, n, m);
    ex->used_backend = gpu ? TS_BACKEND_GPU : TS_BACKEND_CPU;
    return gpu;
}

bool gpu_failure_falls_back(const TsExec* ex, int code) {
    return ex->backend == TS_BACKEND_AUTO &&
           (code == TS_GPU_OUT_OF_MEMORY || code == TS_GPU_UNAVAILABLE || code == TS_GPU_LIMIT);
}

}  // namespace tsm
