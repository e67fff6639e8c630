// estimate.h — the measured rates behind the automatic choices and
// ts_estimate (estimate.cpp, which says where each rate was measured).
#pragma once

#include <cstdint>

namespace tsm {
namespace estimate {

// Seconds of the exact matrix profile of n values, window m, on the GPU or on
// `threads` CPU threads.
double matrix_profile_seconds(int64_t n, int64_t m, bool gpu, int threads);

}  // namespace estimate
}  // namespace tsm
