// stats.h — the order statistics and sums under the outlier methods' CPU
// path: exact order statistics (median, MAD) by a parallel, interruptible
// radix selection, the mean absolute deviation, and the pairwise sum that
// both paths use to add per-block partial sums.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tsm_api.h"

namespace tsm {

// Σ of per-block partials in index order, pairwise (CPU and GPU use it alike).
double pairwise_sum(const double* v, size_t count);

// The k-th smallest (0-based) of f(x[i]) over i, exactly.  f is identity or
// |x − c|.  Runs on the CPU threads; interruptible.
double select_kth(const double* x, int64_t n, int64_t k, const TsExec* ex, bool abs_dev = false,
                  double c = 0);
// Median: mean of the two middle values when n is even (outliers::middle_mean).
double median(const double* x, int64_t n, const TsExec* ex, bool abs_dev = false, double c = 0);

// Mean absolute deviation from c, Σ|x−c|/n (two-level summation).
double mean_abs_dev(const double* x, int64_t n, double c, const TsExec* ex);

}  // namespace tsm
