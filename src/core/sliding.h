// sliding.h — statistics of every window x[i .. i+m-1] of a series, computed
// so that they survive raw, un-normalised data (an offset of 1e8 changes
// nothing): mean, standard deviation (population), 1/std, and whether the
// window is constant.  The host side of the one window-statistics code:
// window_stats fills arrays (discords, shapelets), for_each_stats_chunk runs
// a method's own per-chunk preparation (the matrix profile); kernels call
// sliding_detail.h's functions, which these use, directly.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tsm_api.h"

namespace tsm {

struct WindowStats {
    int m = 0;
    int64_t count = 0;              // n - m + 1 windows
    std::vector<double> mean;       // μ_i
    std::vector<double> std;        // σ_i (population); 0 when constant
    std::vector<double> inv_std;    // 1/σ_i; 0 when constant
    std::vector<uint8_t> constant;  // 1 when every value of the window is equal
};

// Exact to a few ulps: windows are processed in chunks of stats_chunk(m)
// (sliding_detail.h); each chunk starts from an exact two-pass mean and
// Σ(x−μ)² and then slides with the difference updates
// μ' = μ + (x_in − x_out)/m and M2' = M2 + (x_in − x_out)(x_in − μ' + x_out − μ),
// which never subtract large raw sums.  A window is constant when its values
// are all equal (exactly), found from the last place where two neighbouring
// values differ, so σ of such a window is 0 whatever the rounding.
void window_stats(const double* x, int64_t n, int m, WindowStats& out, const TsExec* ex);

// Calls fn(i0, i1) for every stats chunk [i0, i1) of windows 0 .. count−1 of
// m values (sliding_detail.h: stats_chunk(m) windows, started exactly), in
// parallel tasks of kStatsBlock windows.  fn runs on worker threads.
void for_each_stats_chunk(const TsExec* ex, int64_t count, int m, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace tsm
