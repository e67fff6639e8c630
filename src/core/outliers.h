// outliers.h — k-sigma and robust (MAD) outliers: the CPU path
// (outliers.cpp) and the GPU path's entry (kernels/outliers.cu).  The rule,
// the test and the arithmetic both paths share: outliers_detail.h.
#pragma once

#include <cstdint>

#include "outliers_detail.h"
#include "tsm_api.h"

namespace tsm {

// Fills out->value and out->score for out->pos (0-based, ascending), from x.
void fill_outlier_rows(const double* x, const OutlierRule& r, TsOutliers* out);

// The CPU path: the rule of `method` (TS_OUTLIERS_SIGMA or TS_OUTLIERS_MAD)
// for x[0 .. n), n ≥ 1 (outliers_detail.h: the same bits as the GPU's); then
// the positions of the outliers, ascending (out->count and out->pos, none
// when the rule's scale is 0).
OutlierRule cpu_rule(const double* x, int64_t n, int method, const TsExec* ex);
void cpu_compact(const double* x, int64_t n, double k, const OutlierRule& r, TsExec* ex, TsOutliers* out);

#ifdef TSMINE_WITH_CUDA
namespace gpu {
// Computes the rule on the device and the outlier positions by an
// order-preserving compaction there; fills out->count and out->pos.
OutlierRule outliers(const double* x, int64_t n, double k, int method, TsExec* ex, TsOutliers* out);
}  // namespace gpu
#endif

}  // namespace tsm
