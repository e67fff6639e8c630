// progress.h — the hooks through which a method reports how far it has come
// (TsExec.progress, tsm_api.h).  A method calls progress_start with the units
// of its main work before its chunk loop and progress_add as chunks finish;
// the glue reads the counters when the core polls exec->interrupted between
// chunks, which is when it reports progress.  All of them do nothing when the
// glue passed no TsProgress.
#pragma once

#include <cstdint>

#include "tsm_api.h"

namespace tsm {

// The work starting now has `total` units, none done.
inline void progress_start(const TsExec* ex, int64_t total) {
    if (!ex || !ex->progress) return;
    __atomic_store_n(&ex->progress->done, int64_t(0), __ATOMIC_RELAXED);
    __atomic_store_n(&ex->progress->total, total, __ATOMIC_RELAXED);
}

// The work from here on depends on the data: no fraction can be given.
inline void progress_unknown(const TsExec* ex) { progress_start(ex, -1); }

// `units` more are done; from any thread.
inline void progress_add(const TsExec* ex, int64_t units) {
    if (ex && ex->progress) __atomic_fetch_add(&ex->progress->done, units, __ATOMIC_RELAXED);
}

// `done` units are done (a loop on the calling thread that knows the count).
inline void progress_set(const TsExec* ex, int64_t done) {
    if (ex && ex->progress) __atomic_store_n(&ex->progress->done, done, __ATOMIC_RELAXED);
}

}  // namespace tsm
