// rawdist_detail.h — the raw-value distance of two windows (normalized =>
// false: the Euclidean distance of the values themselves, STUMPY's aamp with
// p = 2), written once for the host and the device, for every method that
// computes it directly: the matrix profile's winners (mp_detail.h), the
// discords' ranking and the motifs' selection (WindowProfiler, motifs.h) and
// match.
//
//   Σ_k (a_k·2^e − b_k·2^e)²
//
// Element k goes to lane k mod 32, each lane adds its elements in order
// (hd::add_sq_diff), and the 32 lane sums are combined by the halving tree
// (lane l += lane l + off, off = 16, 8, 4, 2, 1): in one thread with 32
// accumulators (sumsq_bounded, host and device) or by a warp, one lane each,
// with shuffles (motif::warp_raw_sumsq, motifs_detail.h), to the same bits.
// The scaling 2^e (frames::times_pow2_up, the rescaled series' own
// operations, bit for bit) is the caller's rescaling (the largest |x| in
// [2^480, 2^481): no square or sum overflows, and the difference of two values
// within a factor 2 — readings on a large offset — is exact; e = 0 for a
// series already scaled).  The bounded form returns +inf once the merged
// prefix after k = 128, 256, ... values exceeds lim2: every lane sum only
// grows as terms are added and rounded addition is monotone, so the final sum
// would exceed it too; a value it returns is the unbounded one, bit for bit.
#pragma once

#include <cmath>
#include <cstdint>

#include "frame_detail.h"
#include "hd.h"

namespace tsm {
namespace rawd {

constexpr int kLanes = 32;          // lanes of the accumulation (a warp)
constexpr int kAbandonEvery = 128;  // values between two checks of the bounded form

// The halving tree over 32 lane sums: q[0] ends with the total.
TSM_HD void merge_lanes(double* q) {
    for (int off = kLanes / 2; off > 0; off >>= 1)
        for (int l = 0; l < off; ++l) q[l] = hd::add(q[l], q[l + off]);
}

// Whether the bounded form checks its prefix after the first p values (p a multiple of kLanes).
TSM_HD bool abandon_point(int p, int m) { return p % kAbandonEvery == 0 && p < m; }

// Σ(a_k·2^e − b_k·2^e)² of windows a and b (pointers to their first values),
// +inf once a merged prefix exceeds lim2 (the header says why that is exact).
TSM_HD double sumsq_bounded(const double* a, const double* b, int m, int e, double lim2) {
    double q[kLanes] = {};
    for (int base = 0; base < m; base += kLanes) {
        for (int l = 0; l < kLanes && base + l < m; ++l)
            q[l] = hd::add_sq_diff(q[l], frames::times_pow2_up(a[base + l], e), frames::times_pow2_up(b[base + l], e));
        if (lim2 < (double)INFINITY && abandon_point(base + kLanes, m)) {
            double p[kLanes];
            for (int l = 0; l < kLanes; ++l) p[l] = q[l];
            merge_lanes(p);
            if (p[0] > lim2) return (double)INFINITY;
        }
    }
    merge_lanes(q);
    return q[0];
}

}  // namespace rawd
}  // namespace tsm
