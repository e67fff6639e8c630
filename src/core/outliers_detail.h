// outliers_detail.h — the arithmetic of the outlier methods that the CPU path
// (outliers.cpp, stats.cpp) and the GPU path (kernels/outliers.cu) share, as
// inline host-device functions: the moments of the sigma method and their
// merge, the sigma rule, the robust (MAD) rule, the median of two middle
// values, the outlier test and the score.
//
// Conventions (documented once, here):
//  * sigma: values are taken relative to ref, the median of three values of
//    the series (sigma_reference: the median of x[0], x[n/2], x[n−1]): Chan's merge loses
//    about eps·|mean|/std, and with ref subtracted |mean − ref| replaces
//    |mean|.  Both paths fold groups of kGroupValues consecutive values into
//    exact two-pass moments (group_moments), the values after the last whole
//    group one by one (single_moments), and merge moments with Chan et al.'s
//    formula (merge_moments), which never subtracts large raw sums (the
//    E[x²] − E[x]² formula does, and fails on 1e9 + noise).  The CPU merges
//    its groups block by block in index order, the GPU by threads, blocks and
//    a last block: the same functions in another order, so the two paths
//    agree to rounding, not bit for bit.
//  * The rule: center and scale define the score (x − center)/scale; a value
//    is an outlier when |x − center| > limit, limit = k·scale; scale == 0
//    (or not a number) means no value is an outlier.
//  * mad (Iglewicz & Hoaglin's modified z-score): center = median,
//    scale = MAD/0.6745, or 1.253314·MeanAD when MAD = 0, or 0 when both are.
#pragma once

#include <cmath>
#include <cstdint>

#include "hd.h"

namespace tsm {

// center/scale of the score and the test; scale_rule: TsOutliers.scale_rule
// (0 std, 1 MAD, 2 MeanAD, 3 none).
struct OutlierRule {
    double center = 0, scale = 0;
    int scale_rule = 3;
};

namespace outliers {

// Scale factors of the robust (modified) z-score, Iglewicz & Hoaglin:
// M = 0.6745·(x − median)/MAD, or, when MAD = 0, (x − median)/(1.253314·MeanAD).
constexpr double kMadToSigma = 1.0 / 0.6745;
constexpr double kMeanAdToSigma = 1.253314;

// Values per group of group_moments (taken as kGroupValues/2 pairs).
constexpr int kGroupPairs = 8;
constexpr int kGroupValues = 2 * kGroupPairs;

// Count, mean and sum of squared deviations of a set of values (relative to ref).
struct Moments {
    double n, mean, m2;
};

// Chan et al.'s merge of the moments of two disjoint sets.
TSM_HD Moments merge_moments(const Moments& a, const Moments& b) {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const double n = hd::add(a.n, b.n), d = hd::sub(b.mean, a.mean), f = hd::div(b.n, n);
    return {n, hd::add(a.mean, hd::mul(d, f)),
            hd::add(hd::add(a.m2, b.m2), hd::mul(hd::mul(hd::mul(d, d), a.n), f))};
}

// The moments of one value.
TSM_HD Moments single_moments(double x, double ref) { return {1.0, hd::sub(x, ref), 0.0}; }

// Exact two-pass moments of the kGroupValues values v[0 ..), relative to ref.
TSM_HD Moments group_moments(const double* v, double ref) {
    double sum = 0;
    for (int j = 0; j < kGroupPairs; ++j)
        sum = hd::add(sum, hd::add(hd::sub(v[2 * j], ref), hd::sub(v[2 * j + 1], ref)));
    const double mean = hd::mul(sum, 1.0 / kGroupValues);
    double m2 = 0;
    for (int j = 0; j < kGroupPairs; ++j) {
        const double a = hd::sub(hd::sub(v[2 * j], ref), mean), b = hd::sub(hd::sub(v[2 * j + 1], ref), mean);
        m2 = hd::add(m2, hd::add(hd::mul(a, a), hd::mul(b, b)));
    }
    return {(double)kGroupValues, mean, m2};
}

// The median of three values (the reference value of the sigma method).
TSM_HD double median_of_three(double a, double b, double c) {
    const double lo = b < a ? b : a, hi = a < b ? b : a;  // min(a, b), max(a, b)
    const double mid = c < hi ? c : hi;                   // min(max(a, b), c)
    return lo < mid ? mid : lo;                           // max(min(a, b), min(max(a, b), c))
}

// The reference value of the sigma method for the series x[0 .. n), n ≥ 1.
TSM_HD double sigma_reference(const double* x, int64_t n) { return median_of_three(x[0], x[n / 2], x[n - 1]); }

// The sigma rule from the moments of the whole series (relative to ref):
// center = mean, scale = population standard deviation.
TSM_HD OutlierRule sigma_rule(const Moments& t, double ref) {
    const double var = t.n > 0 ? hd::div(t.m2, t.n) : 0.0;
    OutlierRule r;
    r.center = hd::add(ref, t.mean);
    r.scale = var > 0 ? hd::sqrt(var) : 0.0;
    r.scale_rule = r.scale > 0 ? 0 : 3;
    return r;
}

// The robust rule from the median, the MAD and the MeanAD (the last only
// used when the MAD is 0).
TSM_HD OutlierRule mad_rule(double median, double mad, double mean_ad) {
    OutlierRule r;
    r.center = median;
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

// The median of an even number of values from its two middle ones.
TSM_HD double middle_mean(double lo, double hi) { return hd::add(lo, hd::div(hd::sub(hi, lo), 2.0)); }

// |x − c|: the absolute deviation (the MAD's and the MeanAD's values).
TSM_HD double abs_dev(double x, double c) { return fabs(hd::sub(x, c)); }

// limit = k·scale, and the test |x − center| > limit.
TSM_HD double outlier_limit(double k, const OutlierRule& r) { return hd::mul(k, r.scale); }
TSM_HD bool is_outlier(double x, double center, double limit) { return abs_dev(x, center) > limit; }

// The score (x − center)/scale of an outlier.
TSM_HD double outlier_score(double x, const OutlierRule& r) { return hd::div(hd::sub(x, r.center), r.scale); }

}  // namespace outliers
}  // namespace tsm
