// The CPU threads (parallel.h): every task once, errors and cancel carried
// back to the caller, one pool for the process's life, nested calls inline,
// and a pool of its own in a forked child.  Each test that needs the pool to
// take part makes the caller wait for it (bounded), so none depends on speed.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "check.h"
#include "error.h"
#include "parallel.h"

namespace {

using Clock = std::chrono::steady_clock;

// Task 0 takes 2 ms (past the caller's first millisecond alone), so the rest
// is shared; the caller then waits in its next task until a pool thread has
// run one (at most 10 s), so the pool takes part however loaded the machine.
struct SharedWork {
    std::thread::id caller = std::this_thread::get_id();
    std::atomic<bool> pool_ran{false};
    std::mutex mu;
    std::set<std::thread::id> pool_threads;
    // true on a pool thread
    bool step(int64_t t) {
        if (t == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        if (std::this_thread::get_id() != caller) {
            std::lock_guard<std::mutex> lk(mu);
            pool_threads.insert(std::this_thread::get_id());
            pool_ran = true;
            return true;
        }
        const auto until = Clock::now() + std::chrono::seconds(10);
        while (t > 0 && !pool_ran && Clock::now() < until) std::this_thread::sleep_for(std::chrono::microseconds(200));
        return false;
    }
};

std::thread::id g_poller;
int g_polls_left = 0;
bool g_polled_elsewhere = false;
std::atomic<bool> g_cancel_sent{false};
int interrupt_after_polls() {
    if (std::this_thread::get_id() != g_poller) g_polled_elsewhere = true;
    if (--g_polls_left >= 0) return 0;
    g_cancel_sent = true;
    return 1;
}

}  // namespace

TEST(parallel_for_runs_every_task_once) {
    for (int threads : {0, 1, 2, 4, 8})
        for (int64_t n : {1, 2, 7, 1000, 200000}) {
            TsExec ex = tsmt::cpu_exec(threads);
            std::vector<std::atomic<int>> runs(n);
            for (auto& r : runs) r = 0;
            tsm::parallel_for(&ex, n, [&](int64_t t) {
                volatile double s = 0;
                for (int k = 0; k < 200; ++k) s = s + k * 1e-3;  // some work, so that large n shares it
                ++runs[t];
            });
            bool once = true;
            for (auto& r : runs) once = once && r == 1;
            CHECK(once);
        }
}

TEST(parallel_for_carries_a_pool_threads_exception_to_the_caller) {
    TsExec ex = tsmt::cpu_exec(3);
    SharedWork w;
    bool caught = false;
    try {
        tsm::parallel_for(&ex, 50, [&](int64_t t) {
            if (w.step(t)) throw std::runtime_error("from a pool thread");
        });
    } catch (const std::runtime_error& e) {
        caught = std::string(e.what()) == "from a pool thread" && std::this_thread::get_id() == w.caller;
    }
    CHECK(w.pool_ran);
    CHECK(caught);
    // a tsm::Error keeps its code and SQLSTATE
    SharedWork w2;
    int code = 0;
    try {
        tsm::parallel_for(&ex, 50, [&](int64_t t) {
            if (w2.step(t)) tsm::invalid("bad task");
        });
    } catch (const tsm::Error& e) {
        code = e.code;
    }
    CHECK_EQ(code, (int)TS_INVALID_ARGUMENT);
}

TEST(parallel_for_keeps_one_pool_for_the_process) {
    // 300 calls, a pool thread in each: a pool of fewer than 300 threads (any
    // machine here) serves several calls with one of its threads; threads
    // started per call would each serve one
    TsExec ex = tsmt::cpu_exec(3);
    std::atomic<int> most_calls{0};
    for (int call = 0; call < 300; ++call) {
        SharedWork w;
        tsm::parallel_for(&ex, 40, [&](int64_t t) {
            if (!w.step(t)) return;
            thread_local int last_call = -1, calls = 0;
            if (last_call != call) {
                last_call = call;
                ++calls;
            }
            int seen = most_calls.load();
            while (calls > seen && !most_calls.compare_exchange_weak(seen, calls)) {
            }
        });
        CHECK(w.pool_ran);
    }
    CHECK(most_calls >= 2);
}

TEST(parallel_for_cancel_polls_on_the_caller_only) {
    TsExec ex = tsmt::cpu_exec(4);
    ex.interrupted = interrupt_after_polls;
    g_poller = std::this_thread::get_id();
    g_polled_elsewhere = false;
    for (int polls : {0, 1, 3, 30}) {
        g_polls_left = polls;
        g_cancel_sent = false;
        SharedWork w;
        std::atomic<int64_t> ran{0};
        int code = 0;
        try {
            tsm::parallel_for(&ex, 400, [&](int64_t t) {
                if (w.step(t)) {  // a pool thread: holds its task until the caller saw the cancel
                    const auto until = Clock::now() + std::chrono::seconds(10);
                    while (!g_cancel_sent && Clock::now() < until)
                        std::this_thread::sleep_for(std::chrono::microseconds(200));
                }
                ++ran;
            });
        } catch (const tsm::Error& e) {
            code = e.code;
        }
        CHECK_EQ(code, (int)TS_CANCELLED);
        CHECK(ran < 400);
    }
    CHECK(!g_polled_elsewhere);
    // the pool goes on working after a cancel
    ex.interrupted = nullptr;
    std::atomic<int64_t> ran{0};
    SharedWork w;
    tsm::parallel_for(&ex, 100, [&](int64_t t) {
        w.step(t);
        ++ran;
    });
    CHECK_EQ((int64_t)ran, (int64_t)100);
}

TEST(parallel_for_nested_runs_inline) {
    TsExec ex = tsmt::cpu_exec(4);
    std::atomic<int64_t> inner{0};
    SharedWork w;
    tsm::parallel_for(&ex, 30, [&](int64_t t) {
        w.step(t);
        tsm::parallel_for(&ex, 50, [&](int64_t) { ++inner; });
    });
    CHECK_EQ((int64_t)inner, (int64_t)30 * 50);
}

TEST(parallel_for_in_a_forked_child_starts_its_own_pool) {
    TsExec ex = tsmt::cpu_exec(3);
    SharedWork w;
    tsm::parallel_for(&ex, 40, [&](int64_t t) { w.step(t); });  // the parent's pool runs
    CHECK(w.pool_ran);
    const pid_t child = fork();
    if (child == 0) {
        SharedWork cw;
        std::atomic<int64_t> ran{0};
        tsm::parallel_for(&ex, 40, [&](int64_t t) {
            cw.step(t);
            ++ran;
        });
        _exit(cw.pool_ran && ran == 40 ? 0 : 1);
    }
    int status = -1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(thread_count_default_is_at_least_one_at_most_the_cpus) {
    TsExec ex = tsmt::cpu_exec(5);
    CHECK_EQ(tsm::thread_count(&ex), 5);
    ex.cpu_threads = 0;
    const int t = tsm::thread_count(&ex);
    CHECK(t >= 1 && t <= (int)std::thread::hardware_concurrency());
}
