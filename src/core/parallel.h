// parallel.h — the CPU path's threads.  Work is split into tasks; workers take
// them in order from a shared counter.  The calling thread (the PostgreSQL
// backend's own) does not compute: it polls exec->interrupted every few
// milliseconds, so a cancel stops the work within one task's time.
#pragma once

#include <cstdint>
#include <functional>

#include "tsm_api.h"

namespace tsm {

// Threads the CPU path uses: exec->cpu_threads, or every hardware thread when 0.
int thread_count(const TsExec* ex);

// Calls fn(task) for every task in [0, n_tasks).  Throws tsm::Error(TS_CANCELLED)
// if interrupted; rethrows the first exception a task threw.  Tasks must be
// independent; keep each under ~50 ms so cancel is prompt.
// With one thread (exec->cpu_threads = 1, or a single task) the tasks run
// inline on the calling thread, polling for cancel between them.
void parallel_for(const TsExec* ex, int64_t n_tasks, const std::function<void(int64_t)>& fn);

// Polls once; throws tsm::Error(TS_CANCELLED) when the caller asked us to stop.
// Only from the thread that called the entry point.
void check_interrupt(const TsExec* ex);
// Throws over_budget() when ex->budget_ms > 0 and more than that many
// milliseconds have passed since started_ms (steady_ms()).  Calling thread only.
double steady_ms();
void check_budget(const TsExec* ex, double started_ms);

#if defined(__x86_64__)
// Whether this CPU has AVX2 and FMA: hot loops that call hd::fma are built
// twice, with __attribute__((target("avx2,fma"))) and without, and pick the
// first where it runs (the same bits: std::fma is correctly rounded either way).
bool cpu_has_fma();
#endif

}  // namespace tsm
