#include "outliers.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "dispatch.h"
#include "error.h"
#include "parallel.h"
#include "stats.h"

namespace tsm {

OutlierRule mad_rule(double med, double mad, double mean_ad) {
    OutlierRule r;
    r.center = med;
    if (mad > 0) {
        r.scale = mad * kMadToSigma;
        r.scale_rule = 1;
    } else if (mean_ad > 0) {
        r.scale = mean_ad * kMeanAdToSigma;
        r.scale_rule = 2;
    } else {
        r.scale = 0;
        r.scale_rule = 3;
    }
    return r;
}

void fill_outlier_rows(const double* x, const OutlierRule& r, TsOutliers* out) {
    for (int64_t j = 0; j < out->count; ++j) {
        double v = x[out->pos[j]];
        out->value[j] = v;
        out->score[j] = (v - r.center) / r.scale;
    }
}

namespace {

constexpr int64_t kBlock = int64_t(1) << 18;

OutlierRule cpu_rule(const double* x, int64_t n, int method, const TsExec* ex) {
    if (method == TS_OUTLIERS_SIGMA) {
        MeanStd ms = mean_std(x, n, ex);
        OutlierRule r;
        r.center = ms.mean;
        r.scale = ms.std;
        r.scale_rule = ms.std > 0 ? 0 : 3;
        return r;
    }
    double med = median(x, n, ex);
    double mad = median(x, n, ex, true, med);
    double mean_ad = mad > 0 ? 0.0 : mean_abs_dev(x, n, med, ex);
    return mad_rule(med, mad, mean_ad);
}

// Positions of the outliers, in order: per-block counts, then per-block writes.
void cpu_compact(const double* x, int64_t n, double k, const OutlierRule& r, TsExec* ex,
                 TsOutliers* out) {
    int64_t nb = (n + kBlock - 1) / kBlock;
    std::vector<int64_t> counts(nb, 0);
    parallel_for(ex, nb, [&](int64_t b) {
        int64_t lo = b * kBlock, hi = std::min(n, lo + kBlock), c = 0;
        for (int64_t i = lo; i < hi; ++i) c += is_outlier(x[i], k, r);
        counts[b] = c;
    });
    std::vector<int64_t> offset(nb + 1, 0);
    for (int64_t b = 0; b < nb; ++b) offset[b + 1] = offset[b] + counts[b];
    out->count = offset[nb];
    out->pos = alloc_result<int64_t>(ex, out->count);
    if (out->count == 0) return;
    parallel_for(ex, nb, [&](int64_t b) {
        if (!counts[b]) return;
        int64_t lo = b * kBlock, hi = std::min(n, lo + kBlock), w = offset[b];
        for (int64_t i = lo; i < hi; ++i)
            if (is_outlier(x[i], k, r)) out->pos[w++] = i;
    });
}

}  // namespace

}  // namespace tsm

extern "C" int tsm_outliers(const double* x, int64_t n, double k, int method, TsExec* ex,
                            TsOutliers* out, TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        if (!(k > 0) || !std::isfinite(k)) tsm::invalid("k_sigma must be a positive, finite number");
        if (method != TS_OUTLIERS_SIGMA && method != TS_OUTLIERS_MAD) tsm::invalid("unknown outlier method");
        if (n < 0) tsm::invalid("negative series length");
        ex->used_backend = TS_BACKEND_CPU;
        out->scale_rule = 3;
        if (n == 0) {
            out->pos = tsm::alloc_result<int64_t>(ex, 0);
            out->value = tsm::alloc_result<double>(ex, 0);
            out->score = tsm::alloc_result<double>(ex, 0);
            return;
        }
        tsm::OutlierRule rule;
        if (tsm::use_gpu(ex, TS_WORK_OUTLIERS, n)) {
#ifdef TSMINE_WITH_CUDA
            rule = tsm::gpu::outliers(x, n, k, method, ex, out);
#endif
        } else {
            rule = tsm::cpu_rule(x, n, method, ex);
            tsm::cpu_compact(x, n, k, rule, ex, out);
        }
        out->value = tsm::alloc_result<double>(ex, out->count);
        out->score = tsm::alloc_result<double>(ex, out->count);
        tsm::fill_outlier_rows(x, rule, out);
        out->center = rule.center;
        out->scale = rule.scale;
        out->scale_rule = rule.scale_rule;
    });
}
