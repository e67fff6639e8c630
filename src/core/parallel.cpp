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

void parallel_for(const TsExec* ex, int64_t n_tasks, const std::function<void(int64_t)>& fn) {
    parallel_for(ex, n_tasks, thread_count(ex), fn);
}

void parallel_for(const TsExec* ex, int64_t n_tasks, int threads,
                  const std::function<void(int64_t)>& fn) {
    if (n_tasks <= 0) return;
    if (threads > n_tasks) threads = static_cast<int>(n_tasks);
    if (threads <= 1) {
        for (int64_t t = 0; t < n_tasks; ++t) {
            check_interrupt(ex);
            fn(t);
        }
        check_interrupt(ex);
        return;
    }

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

    // Workers must never run PostgreSQL's signal handlers: block every signal
    // while they are created (they inherit the mask), then restore ours.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    std::vector<std::thread> pool;
    pool.reserve(threads);
    try {
        for (int i = 0; i < threads; ++i) pool.emplace_back(worker);
    } catch (...) {
        // could not start them all: the ones that run will do the work
        running -= threads - static_cast<int>(pool.size());
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (pool.empty()) {  // no thread at all: run inline
        running = 0;
        for (int64_t t = 0; t < n_tasks; ++t) {
            check_interrupt(ex);
            fn(t);
        }
        return;
    }

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

}  // namespace tsm
