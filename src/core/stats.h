// stats.h — the order statistics under the outlier methods' CPU path: exact
// order statistics (median, MAD) by a parallel, interruptible radix
// selection, and the largest magnitude of a series.
#pragma once

#include <cstddef>
#include <cstdint>

#include "outliers_detail.h"
#include "tsm_api.h"

namespace tsm {

// The k-th smallest (0-based) of f(x[i]) over i, exactly (f: the identity
// by default; the mad method's values or deviations in their frame).  Runs on
// the CPU threads; interruptible.
double select_kth(const double* x, int64_t n, int64_t k, const TsExec* ex, const outliers::Affine& f = {});
// Median of f(x[i]): the mean of the two middle values when n is even (outliers::middle_mean).
double median(const double* x, int64_t n, const TsExec* ex, const outliers::Affine& f = {});

// max |x[i]| (0 for n = 0).
double max_magnitude(const double* x, int64_t n, const TsExec* ex);

}  // namespace tsm
