#include "parallel.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "error.h"

namespace tsm {

int thread_count(const TsExec* ex) {
    int t = ex ? ex->cpu_threads : 0;
    if (t <= 0) {
        unsigned hw = std::thread::hardware_concurrency();
        t = hw ? static_cast<int>(hw) : 1;
    }
    return t;
}

double steady_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void check_budget(const TsExec* ex, double started_ms) {
    if (ex && ex->budget_ms > 0 && steady_ms() - started_ms > ex->budget_ms) over_budget();
}

void check_interrupt(const TsExec* ex) {
    if (ex && ex->interrupted && ex->interrupted()) cancelled();
}

namespace {

// Runs the tasks inline on the calling thread, polling for cancel between them.
void run_inline(const TsExec* ex, int64_t n_tasks, const std::function<void(int64_t)>& fn) {
    for (int64_t t = 0; t < n_tasks; ++t) {
        check_interrupt(ex);
        fn(t);
    }
    check_interrupt(ex);
}

// Starts up to `threads` workers that run `worker`, with every signal blocked
// while they are created (they inherit the mask: workers must never run
// PostgreSQL's signal handlers).  Returns fewer, or none, when threads could
// not be started.
std::vector<std::thread> start_workers(int threads, const std::function<void()>& worker) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    std::vector<std::thread> pool;
    pool.reserve(threads);
    try {
        for (int i = 0; i < threads; ++i) pool.emplace_back(worker);
    } catch (...) {
        // could not start them all: the ones that run will do the work
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return pool;
}

}  // namespace

void parallel_for(const TsExec* ex, int64_t n_tasks, const std::function<void(int64_t)>& fn) {
    if (n_tasks <= 0) return;
    int threads = thread_count(ex);
    if (threads > n_tasks) threads = static_cast<int>(n_tasks);
    if (threads <= 1) return run_inline(ex, n_tasks, fn);

    std::atomic<int64_t> next{0};
    std::atomic<bool> stop{false};
    std::atomic<int> running{threads};
    std::mutex mu;
    std::condition_variable done_cv;
    std::exception_ptr first_error;

    auto worker = [&]() {
        for (;;) {
            if (stop.load(std::memory_order_relaxed)) break;
            int64_t t = next.fetch_add(1, std::memory_order_relaxed);
            if (t >= n_tasks) break;
            try {
                fn(t);
            } catch (...) {
                std::lock_guard<std::mutex> lk(mu);
                if (!first_error) first_error = std::current_exception();
                stop = true;
            }
        }
        std::lock_guard<std::mutex> lk(mu);
        if (--running == 0) done_cv.notify_all();
    };
    std::vector<std::thread> pool = start_workers(threads, worker);
    running -= threads - static_cast<int>(pool.size());  // the ones that did not start
    if (pool.empty()) return run_inline(ex, n_tasks, fn);  // no thread at all

    bool was_cancelled = false;
    {
        std::unique_lock<std::mutex> lk(mu);
        while (running > 0) {
            done_cv.wait_for(lk, std::chrono::milliseconds(5));
            if (!was_cancelled && ex && ex->interrupted && ex->interrupted()) {
                was_cancelled = true;
                stop = true;
            }
        }
    }
    for (auto& th : pool) th.join();
    if (first_error) std::rethrow_exception(first_error);
    if (was_cancelled) cancelled();
}

#if defined(__x86_64__)
bool cpu_has_fma() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}
#endif

}  // namespace tsm
