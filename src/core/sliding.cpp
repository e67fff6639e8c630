#include "sliding.h"

#include <algorithm>

#include "error.h"
#include "parallel.h"
#include "sliding_detail.h"

namespace tsm {

void for_each_stats_chunk(const TsExec* ex, int64_t count, int m, const std::function<void(int64_t, int64_t)>& fn) {
    const int64_t chunk = stats_chunk(m);
    const int64_t tasks = (count + kStatsBlock - 1) / kStatsBlock;
    parallel_for(ex, tasks, [&](int64_t t) {
        const int64_t lo = t * kStatsBlock, hi = std::min(count, lo + kStatsBlock);
        for (int64_t i0 = lo; i0 < hi; i0 += chunk) fn(i0, std::min(hi, i0 + chunk));
    });
}

void window_stats(const double* x, int64_t n, int m, WindowStats& out, const TsExec* ex) {
    if (m < 1 || n < m) throw Error(TS_INTERNAL, kInternal, "window_stats: window longer than series");
    const int64_t count = n - m + 1;
    out.m = m;
    out.count = count;
    out.mean.resize(count);
    out.std.resize(count);
    out.inv_std.resize(count);
    out.constant.resize(count);
    for_each_stats_chunk(ex, count, m, [&](int64_t i0, int64_t i1) {
        detail::window_stats_chunk(x, m, i0, i1, out.mean.data(), out.std.data(), out.inv_std.data(),
                                   out.constant.data());
    });
}

}  // namespace tsm
