#include "dispatch.h"

#include "error.h"

namespace tsm {

bool use_gpu(TsExec* ex, int work_kind, int64_t n, int64_t m) {
    bool gpu = false;
    if (ex->backend == TS_BACKEND_GPU) {
        if (!tsm_built_with_cuda())
            throw Error(TS_GPU_UNAVAILABLE, kNotInPrerequisiteState,
                        "tsmine.backend is 'gpu', but this tsmine was built without CUDA",
                        "SET tsmine.backend = auto or cpu, or rebuild tsmine where nvcc is installed.");
        gpu = true;
    } else if (ex->backend == TS_BACKEND_AUTO && tsm_built_with_cuda()) {
        TsStatus st;
        gpu = tsm_gpu_worthwhile(work_kind, n, m) && tsm_gpu_count(&st) > 0;
    }
    ex->used_backend = gpu ? TS_BACKEND_GPU : TS_BACKEND_CPU;
    return gpu;
}

}  // namespace tsm
