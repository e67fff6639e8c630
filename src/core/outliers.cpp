// outliers.cpp — k-sigma and robust (MAD) outliers: the CPU path and the C
// entry point.  The arithmetic shared with kernels/outliers.cu, and its
// conventions: outliers_detail.h.
#include "outliers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "dispatch.h"
#include "args.h"
#include "error.h"
#include "finite.h"
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

constexpr int64_t kBlock = int64_t(1) << 18;  // values per task of the compaction
constexpr int64_t kTilesPerTask = 16;         // tiles per task of the moments

// The moments of one tile in the one order of outliers_detail.h: each lane
// folds its groups step by step (the 32 lanes of a step side by side, so the
// step's 512 values are read in order), then the lanes of each warp and the
// warps by the pairwise tree.
template <class Tr>
outliers::Moments tile_moments(const double* x, int64_t n, int64_t tile, double ref, Tr tr) {
    using namespace outliers;
    Moments warps[kTileWarps];
    for (int w = 0; w < kTileWarps; ++w) {
        Moments lanes[kLanes];
        for (int l = 0; l < kLanes; ++l) lanes[l] = no_moments();
        for (int s = 0; s < kWarpSteps; ++s) {
            const int64_t base = step_base(tile, w, s);
            if (base >= n) break;
            if (base + kStepValues > n) {
                for (int l = 0; l < kLanes; ++l) partial_step(x, n, base, l, ref, tr, lanes[l]);
                break;
            }
            for (int l = 0; l < kLanes; ++l) {
                double v[kGroupValues];
                lane_group(x, base, l, tr, v);
                lanes[l] = merge_moments(lanes[l], group_moments(v, ref));
            }
        }
        tree_merge(lanes, kLanes);
        warps[w] = lanes[0];
    }
    tree_merge(warps, kTileWarps);
    return warps[0];
}

// The moments of the whole series: tiles in parallel, then the final fold.
template <class Tr>
outliers::Moments series_moments(const double* x, int64_t n, double ref, Tr tr, const TsExec* ex) {
    using namespace outliers;
    const int64_t tiles = tile_count(n), tasks = (tiles + kTilesPerTask - 1) / kTilesPerTask;
    std::vector<Moments> parts(tiles);
    parallel_for(ex, tasks, [&](int64_t t) {
        for (int64_t i = t * kTilesPerTask; i < std::min(tiles, (t + 1) * kTilesPerTask); ++i)
            parts[i] = tile_moments(x, n, i, ref, tr);
    });
    Moments fold[kFoldThreads];
    for (int t = 0; t < kFoldThreads; ++t) fold[t] = fold_tiles(parts.data(), tiles, t);
    tree_merge(fold, kFoldThreads);
    return fold[0];
}
}  // namespace

OutlierRule cpu_rule(const double* x, int64_t n, int method, const TsExec* ex) {
    if (method == TS_OUTLIERS_SIGMA) {
        const double ref = outliers::sigma_reference(x, n);
        return outliers::sigma_rule(series_moments(x, n, ref, outliers::Plain{}, ex), ref);
    }
    const int frame = outliers::frame_of(max_magnitude(x, n, ex));
    const double unit = outliers::pow2(-frame);
    const double med = median(x, n, ex, outliers::Affine{unit, 0.0, false});
    const outliers::Affine dev{unit, med, true};
    const double mad = median(x, n, ex, dev);
    const double mean_ad = mad > 0 ? 0.0 : outliers::mean_from_moments(series_moments(x, n, 0.0, dev, ex));
    return outliers::mad_rule(med, frame, mad, mean_ad);
}

// Positions of the outliers, in order: per-block counts, then per-block writes.
void cpu_compact(const double* x, int64_t n, double k, const OutlierRule& r, TsExec* ex, TsOutliers* out) {
    if (!(r.scale > 0)) {  // no spread: no outliers
        out->count = 0;
        out->pos = alloc_result<int64_t>(ex, 0);
        return;
    }
    const double limit = outliers::outlier_limit(k, r);
    auto hit = [&](double v) { return outliers::is_outlier(outliers::deviation(v, r.unit, r.ref_scaled, r.center), limit); };
    const int64_t nb = (n + kBlock - 1) / kBlock;
    std::vector<int64_t> counts(nb, 0);
    parallel_for(ex, nb, [&](int64_t b) {
        int64_t lo = b * kBlock, hi = std::min(n, lo + kBlock), c = 0;
        for (int64_t i = lo; i < hi; ++i) c += hit(x[i]);
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
            if (hit(x[i])) out->pos[w++] = i;
    });
}

// The finite values of x[0..n) (gaps, NaN and ±Infinity, are skipped: they
// are no outliers and count in no statistic) and their positions in x.
// False, and nothing kept, when x has no gap.
bool skip_gaps(const double* x, int64_t n, std::vector<double>& kept, std::vector<int64_t>& where) {
    if (n <= 0 || first_nonfinite(x, n) < 0) return false;
    for (int64_t i = 0; i < n; ++i)
        if (std::isfinite(x[i])) {
            kept.push_back(x[i]);
            where.push_back(i);
        }
    return true;
}

}  // namespace tsm

extern "C" int tsm_outliers(const double* x, int64_t n, double k, const char* method_name, TsExec* ex,
                            TsOutliers* out, TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        if (!(k > 0) || !std::isfinite(k))
            tsm::invalid("k_sigma must be a positive, finite number, not " + tsm::number_text(k),
                         "Values beyond k_sigma standard deviations are outliers; 3 is usual.");
        const int method = tsm::args::choice(method_name, "method", tsm::args::kOutlierMethods, 2);
        if (n < 0) tsm::invalid("negative series length");
        std::vector<double> kept;
        std::vector<int64_t> where;  // with gaps: the position in x of kept[i]
        if (tsm::skip_gaps(x, n, kept, where)) {
            x = kept.data();
            n = (int64_t)kept.size();
        }
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
        out->center = tsm::outliers::center_value(rule);
        out->scale = tsm::outliers::scale_value(rule);
        out->scale_rule = rule.scale_rule;
        if (!where.empty())
            for (int64_t i = 0; i < out->count; ++i) out->pos[i] = where[out->pos[i]];
    });
}
