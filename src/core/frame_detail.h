// frame_detail.h — frames: exact power-of-two scaling, shared by the host and
// the device (outliers_detail.h, shapelets_detail.h).
//
// The frame of a magnitude a is the e with a in [2^e, 2^(e+1)), at least
// kMinFrame = −1022 (denormal magnitudes share the frame of the smallest
// normal ones).  Multiplying a set of values by 2^−e, e the frame of their
// largest magnitude, is exact (unless a value is more than 2^1022 times
// smaller than the largest) and brings them into (−2, 2): sums, differences
// and squares there cannot overflow, and denormal values are lifted into the
// normal range.  Values x and 2^k·x give the same doubles in their frames.
// The matrix profile's rescaling (mp_detail.h, series_scale: a centre and the
// top binade 2^480, where these frames put the largest magnitude in [1, 2))
// is built from the same primitives: pow2, binary_exponent, times_pow2_up.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "hd.h"

namespace tsm {
namespace frames {

constexpr int kMinFrame = -1022;

using hd::bits_of;
using hd::from_bits;

// The frame of a magnitude a ≥ 0 (finite).
TSM_HD int frame_of(double a) {
    const int biased = static_cast<int>((bits_of(a) >> 52) & 0x7ff);
    return biased == 0 ? kMinFrame : biased - 1023;
}

// 2^k exactly, k in [−1074, 1023].
TSM_HD double pow2(int k) {
    return k >= -1022 ? from_bits(static_cast<uint64_t>(k + 1023) << 52) : from_bits(uint64_t(1) << (k + 1074));
}

// k with 2^k ≤ |v| < 2^(k+1), for finite v ≠ 0: frame_of without its floor
// (a subnormal's exponent from v·2^64, which is exact).
TSM_HD int binary_exponent(double v) {
    const int biased = static_cast<int>((bits_of(v) >> 52) & 0x7ff);
    return biased != 0 ? biased - 1023 : static_cast<int>((bits_of(hd::mul(v, pow2(64))) >> 52) & 0x7ff) - 1023 - 64;
}

// x·2^k for k ≥ −1022 with one rounding: one multiply up to k = 1023, two
// exact steps above (for values below 2^(2046 − k)·2^-1023, as the matrix
// profile's rescaling has them).
TSM_HD double times_pow2_up(double x, int k) {
    if (k > 1023) return hd::mul(hd::mul(x, pow2(1023)), pow2(k - 1023));
    return hd::mul(x, pow2(k));
}

// x·2^k for k ≤ 0 (k may be far below −1074: then 0).  Exact while the result
// is normal; a denormal result may round twice (host and device alike).
TSM_HD double times_pow2_down(double x, int k) {
    if (k >= -1022) return hd::mul(x, pow2(k));
    if (k >= -2044) return hd::mul(hd::mul(x, pow2(-1022)), pow2(k + 1022));
    return 0.0;
}

// x·2^k for k in [kMinFrame, 1023] (a frame's units back to the values' own).
TSM_HD double times_pow2(double x, int k) { return hd::mul(x, pow2(k)); }

// max(|a|, |b|) for finite values.
TSM_HD double max_abs(double a, double b) {
    const double x = fabs(a), y = fabs(b);
    return x < y ? y : x;
}

}  // namespace frames
}  // namespace tsm
