// dispatch.h — which backend runs a call, decided the same way by every method.
#pragma once

#include <cstdint>

#include "tsm_api.h"

namespace tsm {

// True when this call runs on the GPU.  TS_BACKEND_GPU: always (the GPU code
// throws if it cannot start).  TS_BACKEND_AUTO: when a GPU is usable and the
// work is large enough to gain (tsm_gpu_worthwhile).  Sets ex->used_backend.
bool use_gpu(TsExec* ex, int work_kind, int64_t n, int64_t m = 0);

}  // namespace tsm
