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

namespace mp {

// Everything the sweep needs, computed once on the host (and copied to the
// device by the GPU path), so both paths see identical inputs.
struct Prepared {
    int64_t n = 0, count = 0, excl = 0;
    int m = 0;
    std::vector<double> xs;        // x − midrange
    std::vector<double> mu, inv_std, inv_norm, inv4, df, dg;  // per window (inv4 = inv_norm / 4)
    std::vector<uint8_t> constant;
    std::vector<int64_t> next_const;  // count + 1 entries
    int64_t first_const = 0;
    KeyCodec codec;
    FinalizeArgs finalize_args() const;
};

void prepare(const double* x, int64_t n, int m, int64_t excl, const TsExec* ex, Prepared& p);

}  // namespace mp

#ifdef TSMINE_WITH_CUDA
namespace gpu {
// The sweep and the finalisation on the device; fills out (count entries).
void matrix_profile(const mp::Prepared& p, TsExec* ex, MatrixProfile& out);
}  // namespace gpu
#endif

}  // namespace tsm
