// outliers.cpp — k-sigma and robust (MAD) outliers: the CPU path and the C
// entry point.  The arithmetic shared with kernels/outliers.cu, and its
// conventions: outliers_detail.h.
#include "outliers.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "dispatch.h"
#include "error.h"
#include "parallel.h"
#include "stats.h"

namespace tsm {

void fill_outlier_rows(const double* x, const OutlierRule& r, TsOutliers* out) {
    for (int64_t j = 0; j < out->count; ++j) {
        const double v = x[out->pos[j]];
        out->value[j] = v;
        out->score[j] = outliers::outlier_score(v, r);
    }
}

namespace {

constexpr int64_t kBlock = int64_t(1) << 18;  // values per task
static_assert(kBlock % outliers::kGroupValues == 0, "blocks hold whole groups");

// Moments of x[lo, hi) relative to ref: whole groups, then the rest one by one.
outliers::Moments block_moments(const double* x, int64_t lo, int64_t hi, double ref) {
    using namespace outliers;
    Moments acc{0, 0, 0};
    int64_t i = lo;
    for (; i + kGroupValues <= hi; i += kGroupValues) acc = merge_moments(acc, group_moments(x + i, ref));
    for (; i < hi; ++i) acc = merge_moments(acc, single_moments(x[i], ref));
    return acc;
}

// The sigma rule: blocks' moments in parallel, merged in block order.
OutlierRule cpu_sigma_rule(const double* x, int64_t n, const TsExec* ex) {
    const double ref = outliers::sigma_reference(x, n);
    const int64_t blocks = (n + kBlock - 1) / kBlock;
    std::vector<outliers::Moments> parts(blocks);
    parallel_for(ex, blocks, [&](int64_t b) {
        const int64_t lo = b * kBlock, hi = std::min(n, lo + kBlock);
        parts[b] = block_moments(x, lo, hi, ref);
    });
    outliers::Moments total{0, 0, 0};
    for (const outliers::Moments& part : parts) total = outliers::merge_moments(total, part);
    return outliers::sigma_rule(total, ref);
}

}  // namespace

OutlierRule cpu_rule(const double* x, int64_t n, int method, const TsExec* ex) {
    if (method == TS_OUTLIERS_SIGMA) return cpu_sigma_rule(x, n, ex);
    const double med = median(x, n, ex);
    const double mad = median(x, n, ex, true, med);
    const double mean_ad = mad > 0 ? 0.0 : mean_abs_dev(x, n, med, ex);
    return outliers::mad_rule(med, mad, mean_ad);
}

// Positions of the outliers, in order: per-block counts, then per-block writes.
void cpu_compact(const double* x, int64_t n, double k, const OutlierRule& r, TsExec* ex, TsOutliers* out) {
    if (!(r.scale > 0)) {  // no spread: no outliers
        out->count = 0;
        out->pos = alloc_result<int64_t>(ex, 0);
        return;
    }
    const double center = r.center, limit = outliers::outlier_limit(k, r);
    const int64_t nb = (n + kBlock - 1) / kBlock;
    std::vector<int64_t> counts(nb, 0);
    parallel_for(ex, nb, [&](int64_t b) {
        int64_t lo = b * kBlock, hi = std::min(n, lo + kBlock), c = 0;
        for (int64_t i = lo; i < hi; ++i) c += outliers::is_outlier(x[i], center, limit);
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
            if (outliers::is_outlier(x[i], center, limit)) out->pos[w++] = i;
    });
}

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
