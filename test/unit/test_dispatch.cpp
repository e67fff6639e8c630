// The policy every entry point shares (dispatch.h): the backend decided once,
// the GPU slot asked for through the glue's callback, and the CPU fall-back of
// an automatic choice when the GPU cannot take the input.
#include "check.h"
#include "dispatch.h"

namespace {

int g_slot_calls = 0;
int g_slot_answer = 1;
int slot_callback(int, TsStatus* st) {
    ++g_slot_calls;
    if (g_slot_answer < 0) tsm::set_status(st, TS_GPU_ERROR, "53000", "all 1 GPU slots of tsmine are taken");
    return g_slot_answer;
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
