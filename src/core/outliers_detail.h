// outliers_detail.h — the arithmetic of the outlier methods that the CPU path
// (outliers.cpp, stats.cpp) and the GPU path (kernels/outliers.cu) share, as
// inline host-device functions: frames, the moments of the sigma method, their
// merge and the one order in which both paths merge them, the rules, the
// outlier test and the score.
//
// Conventions (documented once, here):
//  * Frames (frame_detail.h).  No value is ever squared or subtracted in its
//    own units: a set of values is taken in the frame 2^e of its largest
//    magnitude, i.e. multiplied by the exact power of two 2^−e, so that every
//    scaled value lies in (−2, 2), differences in (−4, 4) and squares below
//    16: nothing overflows, and denormal data are lifted into the normal range
//    exactly.  Multiplying x and 2^k·x by their frames gives the same
//    doubles, so every result below (positions, scores, and center and scale
//    up to the factor 2^k) is the same for both across the float64 range
//    (where 2^k·x itself is normal).
//  * sigma: values are taken relative to ref, the median of three values of
//    the series (sigma_reference: the median of x[0], x[n/2], x[n−1]): for
//    data like 1e9 + noise, x − ref is exact (Sterbenz) and the moments are
//    those of the noise alone.  A group of kGroupValues values gets the frame
//    of max(|ref|, |x_i|) and exact two-pass moments there (group_moments);
//    moments carry their frame and are merged with Chan et al.'s formula
//    (merge_moments) after rescaling the one of the smaller frame to the
//    larger (a power of two again: exact, or below the other's rounding when
//    it underflows).  The E[x²] − E[x]² formula, which loses every digit on
//    1e9 + noise, is never used.  The mean is never added back to ref for the
//    test: a value is an outlier when |(x·2^−e − ref·2^−e) − mean| > k·std in
//    the frame e of the whole series (OutlierRule), so the mean keeps all its
//    digits below those of ref (1e9 + noise: the 1e9 grid would move it by up
//    to half a unit of 1e9's last place, and flip whole levels of the
//    quantised noise across the limit).
//  * One order of merging: the series is cut into tiles of
//    kTileValues values; a tile into kTileWarps warps of kWarpSteps steps of
//    kStepValues values; in step q, lane l (of kLanes) holds the values
//    512q + 64j + 2l and 512q + 64j + 2l + 1, j = 0..7: one group.  A lane
//    folds its groups step by step (a partial last step value by value, j
//    ascending, then the pair in order); the lanes of a warp, the warps of a
//    tile and the final kFoldThreads partial results are merged by the
//    pairwise tree tree_merge; tile t's moments go to thread t mod
//    kFoldThreads, which folds its tiles in increasing order.  The CPU (loops)
//    and the GPU (threads, shuffles, the last block) follow exactly this
//    order, so the two paths give the same bits, whatever the number of
//    threads or the device.
//  * The rule: a value is an outlier when |deviation(x)| > limit, with
//    deviation(x) = (x·2^−e − ref·2^−e) − center and limit = k·scale in the
//    frame e; scale == 0 (or not a number) means no value is an outlier.  The
//    score is deviation(x)/scale.  The center and scale users see are
//    center_value and scale_value (the frame's units times 2^e).
//  * mad (Iglewicz & Hoaglin's modified z-score), in the frame e of max |x|:
//    the median of the values x·2^−e (the mean of the two middle ones, taken
//    there: exact for denormal data too), the deviations |x·2^−e − median|,
//    ref_scaled = median, center = 0; scale = MAD/0.6745, or 1.253314·MeanAD
//    when MAD = 0, or 0 when both are.  The MeanAD is the mean of the Moments
//    of the deviations (the same tiles and order as sigma's).  Values below
//    2^−1022 times 2^e (over 300 orders of magnitude below the largest) count
//    as 0 there.
#pragma once

#include <cmath>
#include <cstdint>

#include "frame_detail.h"
#include "hd.h"

namespace tsm {

// The test and the score: see the conventions above.  scale_rule:
// TsOutliers.scale_rule (0 std, 1 MAD, 2 MeanAD, 3 none).
struct OutlierRule {
    double ref = 0;     // the reference value (sigma: sigma_reference; mad: the median)
    int frame = 0;      // e: the frame of the whole series
    double unit = 1;    // 2^−e
    double ref_scaled = 0;  // ref·2^−e
    double center = 0, scale = 0;  // in the frame, center relative to ref_scaled
    int scale_rule = 3;
};

namespace outliers {

// Scale factors of the robust (modified) z-score, Iglewicz & Hoaglin:
// M = 0.6745·(x − median)/MAD, or, when MAD = 0, (x − median)/(1.253314·MeanAD).
constexpr double kMadToSigma = 1.0 / 0.6745;
constexpr double kMeanAdToSigma = 1.253314;

using frames::bits_of;
using frames::from_bits;
using frames::frame_of;
using frames::kMinFrame;
using frames::max_abs;
using frames::pow2;
using frames::times_pow2;
using frames::times_pow2_down;

// ---- moments ----------------------------------------------------------------------

// Values per group of group_moments (taken as kGroupValues/2 pairs).
constexpr int kGroupPairs = 8;
constexpr int kGroupValues = 2 * kGroupPairs;

// Count, mean and sum of squared deviations of a set of values (relative to
// the reference), the mean in units of 2^frame and m2 in units of 2^(2·frame).
struct Moments {
    double n, mean, m2;
    int frame;
};

TSM_HD Moments no_moments() { return {0.0, 0.0, 0.0, kMinFrame}; }

// Chan et al.'s merge of the moments of two disjoint sets, in the larger frame.
TSM_HD Moments merge_moments(const Moments& a, const Moments& b) {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int frame = a.frame < b.frame ? b.frame : a.frame;
    const int da = a.frame - frame, db = b.frame - frame;  // ≤ 0, one of them 0
    const double am = da ? times_pow2_down(a.mean, da) : a.mean, am2 = da ? times_pow2_down(a.m2, 2 * da) : a.m2;
    const double bm = db ? times_pow2_down(b.mean, db) : b.mean, bm2 = db ? times_pow2_down(b.m2, 2 * db) : b.m2;
    // f = b.n/n; two sets of one size (every merge of the tree over full
    // tiles) give exactly 1/2, without the division's latency
    const double n = hd::add(a.n, b.n), d = hd::sub(bm, am), f = a.n == b.n ? 0.5 : hd::div(b.n, n);
    return {n, hd::add(am, hd::mul(d, f)), hd::add(hd::add(am2, bm2), hd::mul(hd::mul(hd::mul(d, d), a.n), f)),
            frame};
}

// The moments of one value.
TSM_HD Moments single_moments(double x, double ref) {
    const int frame = frame_of(max_abs(x, ref));
    const double unit = pow2(-frame);
    return {1.0, hd::sub(hd::mul(x, unit), hd::mul(ref, unit)), 0.0, frame};
}

// Exact two-pass moments of the kGroupValues values v[0 ..), relative to ref,
// in the frame of their largest magnitude and ref's.
TSM_HD Moments group_moments(const double* v, double ref) {
    double a[kGroupValues];  // the largest |v| by a pairwise tree (a maximum: any order gives it)
    for (int j = 0; j < kGroupValues; ++j) a[j] = fabs(v[j]);
    for (int w = 1; w < kGroupValues; w *= 2)
        for (int j = 0; j + w < kGroupValues; j += 2 * w) a[j] = max_abs(a[j], a[j + w]);
    const int frame = frame_of(max_abs(ref, a[0]));
    const double unit = pow2(-frame), r = hd::mul(ref, unit);
    double d[kGroupValues];
    for (int j = 0; j < kGroupValues; ++j) d[j] = hd::sub(hd::mul(v[j], unit), r);
    double sum = 0;
    for (int j = 0; j < kGroupPairs; ++j) sum = hd::add(sum, hd::add(d[2 * j], d[2 * j + 1]));
    const double mean = hd::mul(sum, 1.0 / kGroupValues);
    double m2 = 0;
    for (int j = 0; j < kGroupPairs; ++j) {
        const double a = hd::sub(d[2 * j], mean), b = hd::sub(d[2 * j + 1], mean);
        m2 = hd::add(m2, hd::add(hd::mul(a, a), hd::mul(b, b)));
    }
    return {(double)kGroupValues, mean, m2, frame};
}

// ---- the one order of merging --------------------------------------------------

constexpr int kLanes = 32;
constexpr int64_t kStepValues = kLanes * kGroupValues;  // 512: one step of a warp
constexpr int kWarpSteps = 2;                           // steps of a warp in a tile
constexpr int kTileWarps = 8;
constexpr int64_t kTileSteps = int64_t(kTileWarps) * kWarpSteps;
constexpr int64_t kTileValues = kTileSteps * kStepValues;  // 8,192
constexpr int kFoldThreads = 256;                          // the final fold's partial results

TSM_HD int64_t tile_count(int64_t n) { return (n + kTileValues - 1) / kTileValues; }

// The values of a transform: x itself (sigma) ...
struct Plain {
    TSM_HD double operator()(double x) const { return x; }
};
// ... or x·2^−e − c, or its magnitude (the mad method: the values, and their
// deviations from the median c, in the frame e).
struct Affine {
    double unit = 1, c = 0;
    bool absolute = false;
    TSM_HD double operator()(double x) const {
        const double v = hd::sub(hd::mul(x, unit), c);
        return absolute ? fabs(v) : v;
    }
};

// Lane `lane`'s values of a partial step at base (< n < base + kStepValues),
// one by one, merged into acc.
template <class Tr>
TSM_HD void partial_step(const double* x, int64_t n, int64_t base, int lane, double ref, Tr tr, Moments& acc) {
    for (int j = 0; j < kGroupPairs; ++j)
        for (int h = 0; h < 2; ++h) {
            const int64_t i = base + 64 * j + 2 * lane + h;
            if (i < n) acc = merge_moments(acc, single_moments(tr(x[i]), ref));
        }
}

// The first value of step s of warp `warp` in tile `tile`.
TSM_HD int64_t step_base(int64_t tile, int warp, int s) {
    return (tile * kTileSteps + int64_t(warp) * kWarpSteps + s) * kStepValues;
}

// Lane `lane`'s group of a full step at base, through tr, in group_moments' order.
template <class Tr>
TSM_HD void lane_group(const double* x, int64_t base, int lane, Tr tr, double* v) {
    for (int j = 0; j < kGroupPairs; ++j) {
        v[2 * j] = tr(x[base + 64 * j + 2 * lane]);
        v[2 * j + 1] = tr(x[base + 64 * j + 2 * lane + 1]);
    }
}

// The pairwise tree over v[0 .. count) (count a power of two) into v[0]: at
// distance o = 1, 2, 4, ..., v[i] = merge(v[i], v[i + o]) for i a multiple of 2o.
TSM_HD void tree_merge(Moments* v, int count) {
    for (int o = 1; o < count; o <<= 1)
        for (int i = 0; i + o < count; i += 2 * o) v[i] = merge_moments(v[i], v[i + o]);
}

// Thread t's fold of the tiles' moments: tiles t, t + kFoldThreads, ... in order.
TSM_HD Moments fold_tiles(const Moments* tiles, int64_t count, int t) {
    Moments acc = no_moments();
    for (int64_t i = t; i < count; i += kFoldThreads) acc = merge_moments(acc, tiles[i]);
    return acc;
}

// ---- rules ---------------------------------------------------------------------

// The median of three values (the reference value of the sigma method).
TSM_HD double median_of_three(double a, double b, double c) {
    const double lo = b < a ? b : a, hi = a < b ? b : a;  // min(a, b), max(a, b)
    const double mid = c < hi ? c : hi;                   // min(max(a, b), c)
    return lo < mid ? mid : lo;                           // max(min(a, b), min(max(a, b), c))
}

// The reference value of the sigma method for the series x[0 .. n), n ≥ 1.
TSM_HD double sigma_reference(const double* x, int64_t n) { return median_of_three(x[0], x[n / 2], x[n - 1]); }

// A rule's frame: ref and its frame's units.
TSM_HD OutlierRule rule_in_frame(double ref, int frame) {
    OutlierRule r;
    r.ref = ref;
    r.frame = frame;
    r.unit = pow2(-frame);
    r.ref_scaled = hd::mul(ref, r.unit);
    return r;
}

// The sigma rule from the moments of the whole series (relative to ref):
// center = mean, scale = population standard deviation, in the series' frame.
TSM_HD OutlierRule sigma_rule(const Moments& t, double ref) {
    OutlierRule r = rule_in_frame(ref, t.frame);
    const double var = t.n > 0 ? hd::div(t.m2, t.n) : 0.0;
    r.center = t.mean;
    r.scale = var > 0 ? hd::sqrt(var) : 0.0;
    r.scale_rule = r.scale > 0 ? 0 : 3;
    return r;
}

// The robust rule from the median, the MAD and the MeanAD (the latter only
// used when the MAD is 0), all in the frame `frame` (that of max |x|).
TSM_HD OutlierRule mad_rule(double median_scaled, int frame, double mad, double mean_ad) {
    OutlierRule r;
    r.frame = frame;
    r.unit = pow2(-frame);
    r.ref_scaled = median_scaled;
    r.ref = times_pow2(median_scaled, frame);
    r.center = 0;
    if (mad > 0) {
        r.scale = hd::mul(mad, kMadToSigma);
        r.scale_rule = 1;
    } else if (mean_ad > 0) {
        r.scale = hd::mul(mean_ad, kMeanAdToSigma);
        r.scale_rule = 2;
    } else {
        r.scale = 0;
        r.scale_rule = 3;
    }
    return r;
}

// The median of an even number of values from its two middle ones (halves
// first where their difference would overflow).
TSM_HD double middle_mean(double lo, double hi) {
    const double d = hd::sub(hi, lo);
    if (fabs(d) <= 1.7976931348623157e308) return hd::add(lo, hd::div(d, 2.0));
    return hd::add(hd::mul(lo, 0.5), hd::mul(hi, 0.5));
}

// The MeanAD in the frame of the deviations, from their moments.
TSM_HD double mean_from_moments(const Moments& t) { return t.n > 0 ? times_pow2(t.mean, t.frame) : 0.0; }

// The deviation of x from the center in the rule's frame, its test and its score.
TSM_HD double deviation(double x, double unit, double ref_scaled, double center) {
    return hd::sub(hd::sub(hd::mul(x, unit), ref_scaled), center);
}
TSM_HD double outlier_limit(double k, const OutlierRule& r) { return hd::mul(k, r.scale); }
TSM_HD bool is_outlier(double dev, double limit) { return fabs(dev) > limit; }

// Whether a stretch of values whose least is lo and greatest hi holds an
// outlier: exactly when lo or hi is one.  deviation(x) is non-decreasing in x
// (a product by the positive 2^−e and two subtractions of constants, each
// rounded to nearest, and rounding is monotone), so every x of the stretch
// has deviation(lo) ≤ deviation(x) ≤ deviation(hi): |deviation(x)| > limit
// needs deviation(hi) > limit or deviation(lo) < −limit, and lo and hi are
// values of the stretch.  The GPU's pass 1 keeps the extremes of each warp's
// kWarpSteps·kStepValues values, and pass 2 reads only the stretches that
// hold an outlier (kernels/outliers.cu): the same positions as testing
// every value.
TSM_HD bool holds_outlier(double lo, double hi, double unit, double ref_scaled, double center, double limit) {
    return is_outlier(deviation(lo, unit, ref_scaled, center), limit) ||
           is_outlier(deviation(hi, unit, ref_scaled, center), limit);
}
TSM_HD double outlier_score(double x, const OutlierRule& r) {
    return hd::div(deviation(x, r.unit, r.ref_scaled, r.center), r.scale);
}

// The center and scale in the values' own units (for TsOutliers).
TSM_HD double center_value(const OutlierRule& r) { return times_pow2(hd::add(r.ref_scaled, r.center), r.frame); }
TSM_HD double scale_value(const OutlierRule& r) { return times_pow2(r.scale, r.frame); }

}  // namespace outliers
}  // namespace tsm
