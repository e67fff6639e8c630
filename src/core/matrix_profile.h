// matrix_profile.h — the exact self-join matrix profile (z-normalised
// Euclidean distance, float64) for the core's features, CPU and GPU.
// Conventions (key order, constant windows, exclusion, segments): mp_detail.h.
#pragma once

#include <cstdint>
#include <vector>

#include "mp_detail.h"
#include "tsm_api.h"

namespace tsm {

struct MatrixProfile {
    std::vector<double> dist;    // per window i = 0 .. n−m: distance to its nearest admissible neighbour
    std::vector<int64_t> index;  // that neighbour (smallest among ties); −1 with dist = +inf when none
};

// For every window i, the minimum over windows j with |i − j| ≥ exclusion of
// the z-normalised Euclidean distance.  Requires 1 ≤ m ≤ n and exclusion ≥ 1
// (the C entry point validates user input; this one throws Error on misuse).
// Dispatches with tsm::use_gpu(ex, TS_WORK_MATRIX_PROFILE, n, m).
void matrix_profile(const double* x, int64_t n, int m, int64_t exclusion, TsExec* ex, MatrixProfile& out);
// The same into caller memory: dist and index hold n − m + 1 entries.
void matrix_profile(const double* x, int64_t n, int m, int64_t exclusion, TsExec* ex, double* dist,
                    int64_t* index);

namespace mp {

// Everything the CPU sweep needs, computed on the host.  The GPU path computes
// the same arrays on the device with the same functions (mp_detail.h).
struct Prepared {
    int64_t n = 0, count = 0, excl = 0;
    int m = 0;
    SeriesScale scale;             // xs = scaled_value(x, scale)
    std::vector<double> xs;        // (x·2^e1 − c)·2^e2 (mp_detail.h)
    std::vector<double> mu, inv_std, inv_norm, inv4, df, dg;  // per window (inv4 = inv_norm / 4)
    std::vector<uint8_t> constant;
    std::vector<int64_t> next_const;  // count + 1 entries
    int64_t first_const = 0;
    std::vector<GuardStat> guard_rows, guard_cols;  // the recurrence's guard tables
    KeyCodec codec;
    FinalizeArgs finalize_args() const;
};

void prepare(const double* x, int64_t n, int m, int64_t excl, const TsExec* ex, Prepared& p);

// The samples series_scale (mp_detail.h) chooses the centre by: quantiles of
// kCentreSamples evenly spaced values (of all of them when n is smaller), each
// an element of x.  The same on both paths (the GPU path passes them on).
constexpr int64_t kCentreSamples = 255;
CentreSamples series_samples(const double* x, int64_t n);

}  // namespace mp

#ifdef TSMINE_WITH_CUDA
namespace gpu {
// Preparation, sweep and finalisation on the device; fills dist and index
// (n − m + 1 entries, host memory).
void matrix_profile(const double* x, int64_t n, int m, int64_t excl, TsExec* ex, double* dist, int64_t* index);
}  // namespace gpu
#endif

}  // namespace tsm
