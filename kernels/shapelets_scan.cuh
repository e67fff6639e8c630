// shapelets_scan.cuh — stats_kernel's restart scan by a warp (shapelets.cu).
// A header of its own so that the unit tests run the same text on the host,
// a thread per lane (test/unit/warp_emulation.h), where there is no GPU.
#pragma once

#include <cstdint>

#include "shapelets_detail.h"

namespace tsm {
namespace shp {
namespace gpu {

constexpr unsigned kScanFull = 0xffffffffu;

// The restart scan (scan_restarts) of a series' count windows by a warp,
// 32 windows at a time (spans: each window's WindowSpans as (step, own)):
// lane l's peak before its window is the peak carried into the chunk raised
// by the steps of the lanes before it — a maximum of non-negative numbers,
// which rounds nothing, so any grouping gives the serial scan's value —
// restart_step decides each window as the serial scan does, and the lanes
// after the chunk's first restart take the chunk again from the peak it
// leaves.  The spans are numbers ≥ +0 (the series are finite, and span_of
// starts both extremes at one value, so hi − lo is never −0): lanes outside
// the pass count as +0.  Returns the number of restarts listed (the same
// in every lane).
__device__ __forceinline__ int32_t warp_scan_restarts(int64_t count, const double* inv_sd, const double2* spans,
                                                      uint8_t* restart, double* reach, int32_t* list, int lane) {
    int32_t n = 0;
    double peak = spans[0].y;
    if (lane == 0) {
        restart[0] = 0;
        reach[0] = reach_of(peak, inv_sd[0]);
    }
    for (int64_t base = 1; base < count; base += 32) {
        const int64_t w = base + lane;
        const bool in = w < count;
        const double2 sp = in ? spans[w] : make_double2(0.0, 0.0);
        const double isd = in ? inv_sd[w] : 0.0;
        for (int first = 0; first < 32;) {
            double upto = lane >= first ? sp.x : 0.0;  // the steps of lanes first .. lane: their maximum
            for (int off = 1; off < 32; off <<= 1) {
                const double y = __shfl_up_sync(kScanFull, upto, off);
                if (lane >= off && y > upto) upto = y;
            }
            double before = __shfl_up_sync(kScanFull, upto, 1);
            double pk = lane > first && before > peak ? before : peak;  // the peak before window w
            const bool live = in && lane >= first;
            const bool r = live && restart_step(pk, sp.x, sp.y, !pivot_is_candidate(isd));
            const unsigned restarted = __ballot_sync(kScanFull, r);
            const int f = restarted ? __ffs(restarted) - 1 : 31;  // the last lane decided in this pass
            if (live && lane <= f) {
                restart[w] = r ? 1 : 0;
                reach[w] = reach_of(pk, isd);
                if (r) list[n] = (int32_t)w;
            }
            peak = __shfl_sync(kScanFull, pk, f);
            if (restarted) ++n;
            first = f + 1;
        }
    }
    return n;
}

}  // namespace gpu
}  // namespace shp
}  // namespace tsm
