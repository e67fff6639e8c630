#include "dispatch.h"

#include <algorithm>
#include <string>

namespace tsm {

namespace {

[[noreturn]] void gpu_required_but(const std::string& why) {
    throw Error(TS_GPU_UNAVAILABLE, kNotInPrerequisiteState, "tsmine.backend is 'gpu', but " + why,
                "SET tsmine.backend = auto or cpu to run on the CPU.");
}

int visible_gpus() {
    TsStatus st;
    return tsm_gpu_count(&st);
}

// The GPU of the call's single-GPU work, with its slot (through the glue's
// callbacks): true when held (ex->gpu_device set).
bool take_slot(TsExec* ex, int mode) {
    const std::vector<int> listed = listed_gpus(ex, visible_gpus());
    if (!ex->take_gpu_slot) {
        ex->gpu_device = listed[0];
        return true;
    }
    TsStatus st;
    // a GPU whose slot this backend holds first: it keeps its context there
    std::vector<int> order = slot_order(listed, [](int) { return 0; });
    int got = ex->take_gpu_slot(order.data(), (int)order.size(), TS_SLOT_HELD, &st);
    if (got < 0) {
        order = slot_order(listed, [&](int d) { return ex->gpu_slot_load ? ex->gpu_slot_load(d) : 0; });
        got = ex->take_gpu_slot(order.data(), (int)order.size(), mode, &st);
    }
    if (got < -1) throw Error(st.code, st.sqlstate, st.message, st.hint, st.detail);
    if (got < 0) return false;
    ex->gpu_device = order[got];
    return true;
}

bool gpu_required(TsExec* ex) {
    if (!tsm_built_with_cuda())
        throw Error(TS_GPU_UNAVAILABLE, kNotInPrerequisiteState,
                    "tsmine.backend is 'gpu', but this tsmine was built without CUDA",
                    "SET tsmine.backend = auto or cpu, or rebuild tsmine where nvcc is installed.");
    TsStatus st;
    if (tsm_gpu_count(&st) == 0) gpu_required_but(format("no GPU is usable: %s", st.message));
    if (!take_slot(ex, TS_SLOT_REQUIRED)) gpu_required_but("no GPU slot is free");
    return true;
}

bool gpu_chosen(TsExec* ex, int work_kind, int64_t n, int64_t m) {
    if (!tsm_built_with_cuda() || !tsm_gpu_worthwhile(work_kind, n, m)) return false;
    TsStatus st;
    return tsm_gpu_count(&st) > 0 && take_slot(ex, TS_SLOT_OPTIONAL);
}

std::string ordinals_text(int visible) {
    return visible == 1 ? "ordinal 0" : format("ordinals 0 to %d", visible - 1);
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

std::vector<int> listed_gpus(const TsExec* ex, int visible) {
    std::vector<int> listed;
    if (ex->n_gpu_devices == TS_GPU_DEVICES_ALL)
        for (int d = 0; d < std::min(visible, TS_MAX_GPU_DEVICES); ++d) listed.push_back(d);
    else if (ex->n_gpu_devices > 0)
        listed.assign(ex->gpu_devices, ex->gpu_devices + std::min(ex->n_gpu_devices, TS_MAX_GPU_DEVICES));
    else
        listed.push_back(ex->gpu_device);
    for (int d : listed)
        if (d < 0 || d >= visible)
            invalid(format("%s, but this machine has %d GPU%s (CUDA %s)",
                           (ex->n_gpu_devices > 0 ? format("tsmine.gpu_devices names GPU %d", d)
                                                  : format("tsmine.gpu_device is %d", d)).c_str(),
                           visible, visible == 1 ? "" : "s", ordinals_text(visible).c_str()),
                    format("List CUDA %s in tsmine.gpu_devices, or SET tsmine.gpu_devices = 'all'.",
                           ordinals_text(visible).c_str()));
    if (listed.empty()) invalid("tsmine.gpu_devices names no GPU", "SET tsmine.gpu_devices to 'all' or a list.");
    return listed;
}

std::vector<int> split_gpus(TsExec* ex, int64_t n) {
    if (n < ex->gpu_split_min_length) return {ex->gpu_device};
    std::vector<int> gpus;
    std::vector<int> usable{ex->gpu_device}, unusable;  // distinct GPUs, asked once each
    for (int d : listed_gpus(ex, visible_gpus())) {
        auto has = [d](const std::vector<int>& v) { return std::find(v.begin(), v.end(), d) != v.end(); };
        if (!has(usable) && !has(unusable)) {
            TsStatus st;
            const bool held = !ex->take_gpu_slot || ex->take_gpu_slot(&d, 1, TS_SLOT_TRY, &st) == 0;
            (held ? usable : unusable).push_back(d);
        }
        if (has(usable)) gpus.push_back(d);
    }
    return gpus;
}

bool gpu_failure_falls_back(const TsExec* ex, int code) {
    return ex->backend == TS_BACKEND_AUTO &&
           (code == TS_GPU_OUT_OF_MEMORY || code == TS_GPU_UNAVAILABLE || code == TS_GPU_LIMIT);
}

}  // namespace tsm
