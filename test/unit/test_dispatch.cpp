// The policy every entry point shares (dispatch.h): the backend decided once,
// the GPU slot asked for through the glue's callback, and the CPU fall-back of
// an automatic choice when the GPU cannot take the input.
#include <string>
#include <vector>

#include "check.h"
#include "dispatch.h"

namespace {

int g_slot_calls = 0;
int g_slot_answer = 1;  // 1: a slot (of the first GPU asked for), 0: none free, −1: an error
int slot_callback(const int*, int, int mode, TsStatus* st) {
    if (mode == TS_SLOT_HELD) return -1;  // holds none: asked again with the call's mode
    ++g_slot_calls;
    if (g_slot_answer < 0) tsm::set_status(st, TS_GPU_ERROR, "53000", "all 1 GPU slots of tsmine are taken");
    return g_slot_answer > 0 ? 0 : g_slot_answer == 0 ? -1 : -2;
}

}  // namespace

TEST(cpu_backend_never_asks_for_a_slot) {
    TsExec ex = tsmt::cpu_exec();
    ex.backend = TS_BACKEND_CPU;
    ex.take_gpu_slot = slot_callback;
    g_slot_calls = 0;
    CHECK(!tsm::use_gpu(&ex, TS_WORK_MATRIX_PROFILE, 1 << 20, 100));
    CHECK_EQ(ex.used_backend, (int)TS_BACKEND_CPU);
    CHECK_EQ(g_slot_calls, 0);
}

TEST(auto_backend_asks_for_a_slot_only_for_work_that_gains) {
    TsExec ex = tsmt::cpu_exec();
    ex.backend = TS_BACKEND_AUTO;
    ex.take_gpu_slot = slot_callback;
    g_slot_calls = 0;
    g_slot_answer = 1;
    CHECK(!tsm::use_gpu(&ex, TS_WORK_MATRIX_PROFILE, 100, 10));  // too small to gain
    CHECK_EQ(g_slot_calls, 0);
    const bool gpu = tsm::use_gpu(&ex, TS_WORK_MATRIX_PROFILE, 1 << 20, 100);
    CHECK_EQ(gpu, tsmt::have_gpu());
    CHECK_EQ(g_slot_calls, tsmt::have_gpu() ? 1 : 0);
    g_slot_answer = 0;  // no slot free, tsmine.gpu_busy = cpu: the CPU
    CHECK(!tsm::use_gpu(&ex, TS_WORK_MATRIX_PROFILE, 1 << 20, 100));
    CHECK_EQ(ex.used_backend, (int)TS_BACKEND_CPU);
}

TEST(gpu_backend_reports_why_it_cannot_run) {
    TsExec ex = tsmt::cpu_exec();
    ex.backend = TS_BACKEND_GPU;
    ex.take_gpu_slot = slot_callback;
    g_slot_answer = -1;
    TsStatus st;
    const int code = tsm::guard(&st, [&] { tsm::use_gpu(&ex, TS_WORK_MATRIX_PROFILE, 1 << 20, 100); });
    if (!tsm_built_with_cuda() || !tsmt::have_gpu()) {
        CHECK_EQ(code, (int)TS_GPU_UNAVAILABLE);
        CHECK_EQ(std::string(st.sqlstate), std::string("55000"));
    } else {
        CHECK_EQ(code, (int)TS_GPU_ERROR);  // the slot's status, as the glue gave it
        CHECK_EQ(std::string(st.sqlstate), std::string("53000"));
    }
    g_slot_answer = 1;
}

TEST(auto_falls_back_to_the_cpu_when_the_gpu_cannot_take_the_input) {
    for (int code : {(int)TS_GPU_OUT_OF_MEMORY, (int)TS_GPU_UNAVAILABLE, (int)TS_GPU_LIMIT}) {
        TsExec ex = tsmt::cpu_exec();
        ex.backend = TS_BACKEND_AUTO;
        int runs = 0;
        TsStatus st;
        const int got = tsm::run_entry(&ex, &st, [&] {
            ++runs;
            if (ex.backend != TS_BACKEND_CPU) throw tsm::Error(code, "53200", "the GPU cannot take it");
        });
        CHECK_EQ(got, (int)TS_OK);
        CHECK_EQ(runs, 2);
        CHECK_EQ(ex.backend, (int)TS_BACKEND_CPU);
        CHECK_EQ(std::string(ex.cpu_fallback), std::string("the GPU cannot take it"));  // for the glue's log
    }
}

TEST(gpu_mode_and_other_failures_do_not_fall_back) {
    for (int backend : {(int)TS_BACKEND_GPU, (int)TS_BACKEND_AUTO}) {
        const int code = backend == TS_BACKEND_GPU ? (int)TS_GPU_OUT_OF_MEMORY : (int)TS_INVALID_ARGUMENT;
        TsExec ex = tsmt::cpu_exec();
        ex.backend = backend;
        int runs = 0;
        TsStatus st;
        const int got = tsm::run_entry(&ex, &st, [&] {
            ++runs;
            throw tsm::Error(code, "22023", "no");
        });
        CHECK_EQ(got, code);
        CHECK_EQ(runs, 1);
    }
}

// ---- the GPUs a call may use (tsmine.gpu_devices, tsmine.gpu_device) ----

TEST(listed_gpus_resolve_the_settings) {
    TsExec ex = tsmt::cpu_exec();
    ex.gpu_device = 2;
    CHECK(tsm::listed_gpus(&ex, 4) == std::vector<int>({2}));  // no list: tsmine.gpu_device alone
    ex.n_gpu_devices = TS_GPU_DEVICES_ALL;
    CHECK(tsm::listed_gpus(&ex, 3) == std::vector<int>({0, 1, 2}));
    ex.n_gpu_devices = 3;
    ex.gpu_devices[0] = 1;
    ex.gpu_devices[1] = 0;
    ex.gpu_devices[2] = 1;
    CHECK(tsm::listed_gpus(&ex, 2) == std::vector<int>({1, 0, 1}));  // listed order, repeats kept
}

TEST(a_listed_gpu_that_does_not_exist_is_a_clear_error) {
    TsExec ex = tsmt::cpu_exec();
    ex.n_gpu_devices = 2;
    ex.gpu_devices[0] = 0;
    ex.gpu_devices[1] = 3;
    TsStatus st;
    CHECK_EQ(tsm::guard(&st, [&] { tsm::listed_gpus(&ex, 2); }), (int)TS_INVALID_ARGUMENT);
    CHECK_EQ(std::string(st.sqlstate), std::string("22023"));
    CHECK_EQ(std::string(st.message),
             std::string("tsmine.gpu_devices names GPU 3, but this machine has 2 GPUs (CUDA ordinals 0 to 1)"));
    ex.n_gpu_devices = 0;
    ex.gpu_device = 1;
    CHECK_EQ(tsm::guard(&st, [&] { tsm::listed_gpus(&ex, 1); }), (int)TS_INVALID_ARGUMENT);
    CHECK_EQ(std::string(st.message),
             std::string("tsmine.gpu_device is 1, but this machine has 1 GPU (CUDA ordinal 0)"));
}

TEST(a_series_shorter_than_the_split_length_stays_on_the_backends_gpu) {
    TsExec ex = tsmt::cpu_exec();
    ex.gpu_device = 1;  // the backend's GPU, chosen by use_gpu
    ex.n_gpu_devices = 2;
    ex.gpu_devices[0] = 0;
    ex.gpu_devices[1] = 1;
    ex.gpu_split_min_length = 1000;
    CHECK(tsm::split_gpus(&ex, 999) == std::vector<int>({1}));  // no other GPU asked for a slot
    CHECK(tsm::split_gpus(&ex, 1) == std::vector<int>({1}));
}

TEST(a_new_backend_takes_the_least_loaded_gpu) {
    const std::vector<int> loads = {3, 1, 1, 0};  // other backends holding a slot of GPU d
    auto load = [&](int d) { return loads[d]; };
    CHECK(tsm::slot_order({0, 1, 2, 3}, load) == std::vector<int>({3, 1, 2, 0}));  // ties: listed order
    CHECK(tsm::slot_order({2, 1, 0}, load) == std::vector<int>({2, 1, 0}));
    CHECK(tsm::slot_order({0, 0, 1, 0}, load) == std::vector<int>({1, 0}));  // each GPU once
}
