// stats.h — numerically safe summary statistics of a series, shared by every
// method: two-pass mean and standard deviation (never E[x²]−E[x]²), and exact
// order statistics (median, MAD) by a parallel, interruptible radix selection.
#pragma once

#include <cmath>
#include <cstdint>

#include "tsm_api.h"

namespace tsm {

// Mean and population standard deviation by the corrected two-pass formula:
// μ₀ = Σx/n; d = x−μ₀; μ = μ₀ + Σd/n; σ² = (Σd² − (Σd)²/n) / n.
struct MeanStd {
    double mean = 0, std = 0;
};
MeanStd mean_std(const double* x, int64_t n, const TsExec* ex);
double finish_mean(double sum, int64_t n);
// Σ of per-block partials in index order, pairwise (CPU and GPU use it alike).
double pairwise_sum(const double* v, size_t count);
MeanStd finish_mean_std(double mean0, double sum_d, double sum_d2, int64_t n);

// The k-th smallest (0-based) of f(x[i]) over i, exactly.  f is identity or
// |x − c|.  Runs on the CPU threads; interruptible.
double select_kth(const double* x, int64_t n, int64_t k, const TsExec* ex, bool abs_dev = false,
                  double c = 0);
// Median: mean of the two middle values when n is even.
double median(const double* x, int64_t n, const TsExec* ex, bool abs_dev = false, double c = 0);

// Mean absolute deviation from c, Σ|x−c|/n (two-level summation).
double mean_abs_dev(const double* x, int64_t n, double c, const TsExec* ex);

// Scale factors of the robust (modified) z-score, Iglewicz & Hoaglin:
// M = 0.6745·(x − median)/MAD, or, when MAD = 0, (x − median)/(1.253314·MeanAD).
constexpr double kMadToSigma = 1.0 / 0.6745;
constexpr double kMeanAdToSigma = 1.253314;

// Order-preserving 64-bit key of a double (total order, −0 < +0 irrelevant here).
inline uint64_t order_key(double v) {
    uint64_t b;
    __builtin_memcpy(&b, &v, sizeof b);
    return (b & 0x8000000000000000ull) ? ~b : (b | 0x8000000000000000ull);
}
inline double key_value(uint64_t k) {
    uint64_t b = (k & 0x8000000000000000ull) ? (k & ~0x8000000000000000ull) : ~k;
    double v;
    __builtin_memcpy(&v, &b, sizeof v);
    return v;
}

}  // namespace tsm
