// outliers.h — k-sigma and robust (MAD) outliers: the shared definition, the
// CPU path, and the GPU path's entry (kernels/outliers.cu).
#pragma once

#include <cmath>
#include <cstdint>

#include "tsm_api.h"

namespace tsm {

// center/scale define the score (x − center)/scale; a value is an outlier when
// |x − center| > k·scale.  scale == 0 means no value is an outlier.
struct OutlierRule {
    double center = 0, scale = 0;
    int scale_rule = 3;  // TsOutliers.scale_rule
};

inline bool is_outlier(double x, double k, const OutlierRule& r) {
    return r.scale > 0 && std::fabs(x - r.center) > k * r.scale;
}

// Robust rule from median, MAD and MeanAD (the last only used when MAD is 0).
OutlierRule mad_rule(double median, double mad, double mean_ad);

// Fills out->value and out->score for out->pos (0-based, ascending), from x.
void fill_outlier_rows(const double* x, const OutlierRule& r, TsOutliers* out);

#ifdef TSMINE_WITH_CUDA
namespace gpu {
// Computes the rule on the device and the outlier positions by an
// order-preserving compaction there; fills out->count and out->pos.
OutlierRule outliers(const double* x, int64_t n, double k, int method, TsExec* ex, TsOutliers* out);
}  // namespace gpu
#endif

}  // namespace tsm
