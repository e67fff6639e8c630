// parallel.h — the CPU path's threads.  Work is split into tasks, taken in
// order from a shared counter.  The calling thread (the PostgreSQL backend's
// own) runs tasks itself and polls exec->interrupted between them, so a cancel
// stops the work within one task's time.  Work that is small (under about a
// millisecond on the caller) runs on the caller alone; larger work is shared
// with the backend's pool of threads, started on first need and kept for the
// backend's life (never in the postmaster, never at library load), every
// signal blocked in them; they run only the tasks' code.  Which thread runs
// a task never changes its result: callers merge task results in task order.
#pragma once

#include <cstdint>
#include <functional>

#include "tsm_api.h"

namespace tsm {

// Threads the CPU path may use now: exec->cpu_threads when > 0; else (0, the
// default) the CPUs of this process's affinity mask that the machine's other
// runnable threads leave idle, the caller's own included (at least 1): with
// many backends busy at once each takes about its share, never the whole
// machine each (tsmine.cpu_threads in README).
int thread_count(const TsExec* ex);

// Calls fn(task) for every task in [0, n_tasks).  Throws tsm::Error(TS_CANCELLED)
// if interrupted; rethrows the first exception a task threw (on the calling
// thread, once no task runs).  Tasks must be independent; keep each under
// ~50 ms so cancel is prompt.  The caller runs the first tasks alone until
// about a millisecond has passed; the rest, if any, are shared with up to
// thread_count() − 1 pool threads, fewer when the work left is small (about a
// millisecond of it per thread).  With exec->cpu_threads = 1 every task runs
// on the caller.  A parallel_for inside a task runs inline, without polling.
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
