// shapelets.h — the shapelet engine shared by the CPU path (shapelets.cpp) and
// the GPU path (kernels/shapelets.cu).
//
// Both paths compute bit-identical distances and gains: the same arithmetic in
// the same order, no fused multiply-add (the device code uses __dadd_rn /
// __dmul_rn, which nvcc never contracts; shapelets.cpp is compiled with
// fp-contract off), window statistics from the same chunk arithmetic on both
// sides (sliding_detail.h), and gains in fixed point.  So GPU and CPU select the same pivots and thresholds.
//
// Distances of pivot rows p (of source a) to the windows u of a target b use
// the centred co-moment c(p,u) = sum_t (a[p+t]-mu_a[p]) (b[u+t]-mu_b[u]) and the
// O(1) diagonal recurrence (the centred form of (6)-(7) of Chang et al.):
//     c(p+1,u+1) = c(p,u) + df_a[p]*dg_b[u] + df_b[u]*dg_a[p]
//     df[i] = (x[i+L]-x[i])/2,   dg[i] = (x[i+L]-mu[i+1]) + (x[i]-mu[i])
// which subtracts no large raw sums (offset 1e8 changes nothing).  Diagonal
// starts — column u = 0, and the first row of each row group — are computed
// directly (centred sums).  Rows are processed in groups of rows_per_group()
// rows, so a recurrence never runs more than that many steps.
#pragma once

#include <cstdint>
#include <vector>

#include "tsm_api.h"

#include "hd.h"
#include "sliding_detail.h"

namespace tsm {
namespace shp {

// Arithmetic that must round identically on host and device: hd.h (hd::add, ...).

// Fixed-point scale of the gains: G = round(2^32 * n * gain).
constexpr double kGainScale = 4294967296.0;
// Flat window: all values equal, or std <= kFlatRel * |mean|, or std < kFlatAbs.
constexpr double kFlatRel = 1e-13;
constexpr double kFlatAbs = 1e-300;
TSM_HD bool window_is_flat(double mean, double sd, bool constant) {
    return constant || !(sd > hd::mul(kFlatRel, fabs(mean))) || sd < kFlatAbs;
}
// Distance of a pivot to a series shorter than the pivot (largest possible).
constexpr double kShorterDistance = 2.0;
// Correlation used for a flat target window (distance 1).
constexpr double kFlatRho = 0.5;

// Rows of one recurrence group: a multiple of 32, at least 256 and 4L.
TSM_HD int64_t rows_per_group(int L) {
    int64_t r = 4 * (int64_t)L;
    if (r < 256) r = 256;
    return (r + 31) & ~int64_t(31);
}

// One co-moment update along a diagonal.
TSM_HD double comoment_step(double c, double dfa, double dga, double dfb, double dgb) {
    return hd::add(hd::add(c, hd::mul(dfa, dgb)), hd::mul(dfb, dga));
}

// Distance from the best (largest) c*isd_b over the windows of a target.
TSM_HD double distance_from_best(double vmax, double isa, int L, bool target_has_flat) {
    double rho = hd::div(hd::mul(vmax, isa), (double)L);
    if (target_has_flat && rho < kFlatRho) rho = kFlatRho;
    double t = hd::mul(2.0, hd::sub(1.0, rho));
#ifdef __CUDA_ARCH__
    return t > 0 ? __dsqrt_rn(t) : 0.0;
#else
    return t > 0 ? __builtin_sqrt(t) : 0.0;
#endif
}

// Threshold between neighbours a < b on the order line: a <= t < b.
TSM_HD double midpoint(double a, double b) {
    double t = hd::add(a, hd::mul(hd::sub(b, a), 0.5));
    return t < b ? t : a;
}

// Separation gap of a split: mean of the far side minus mean of the near side.
TSM_HD double split_gap(double sum_left, double total, int64_t n_left, int64_t n_right) {
    return hd::sub(hd::div(hd::sub(total, sum_left), (double)n_right), hd::div(sum_left, (double)n_left));
}

// Strict "better" order of (gain, gap, position): larger gain, larger gap, smaller position.
TSM_HD bool split_better(int64_t g, double gap, int64_t i, int64_t bg, double bgap, int64_t bi) {
    if (g != bg) return g > bg;
    if (gap != bgap) return gap > bgap;
    return i < bi;
}

// ---- host-side structures --------------------------------------------------

// The series a discovery runs on (a tree node's subset), local ids 0..N-1.
struct Subset {
    std::vector<const double*> x;
    std::vector<int64_t> n;
    std::vector<int32_t> y;
    std::vector<int64_t> row;  // training row of each local series
    int C = 0;
};

// Window statistics of every series at one length (host; shared by both paths).
struct LengthStats {
    int L = 0;
    std::vector<int64_t> off;     // per series: offset into the arrays, -1 when n < L
    std::vector<double> mu, isd;  // isd = 1/std, 0 for flat windows
    std::vector<double> df, dg;   // recurrence terms (n-L of them; one slot unused)
    std::vector<uint8_t> has_flat;
};
void length_stats(const Subset& d, int L, LengthStats& out, bool with_terms);
// Means and inverse stds (0 for flat) of the n-L+1 windows of x; true when any window is flat.
bool window_stats_flat(const double* x, int64_t n, int L, double* mu, double* isd);

// One scored pivot (best split of its order line).
struct Cand {
    int64_t g = -1;  // fixed-point gain (G); -1: no valid split
    double gap = 0, thr = 0;
    int32_t s = 0, p = 0, L = 0;  // local source, start, length
    int64_t row = 0;              // training row of the source
};
// Total order: gain, gap, smaller length, smaller row, smaller start.
bool cand_better(const Cand& a, const Cand& b);

// T[c] = round(2^32 c log2 c), c = 0..n.
std::vector<int64_t> entropy_table(int64_t n);

// Keeps the best k candidates.
struct TopK {
    explicit TopK(int k_) : k(k_) {}
    void add(const Cand& c);
    void merge(const TopK& o) { for (auto& c : o.v) add(c); }
    std::vector<Cand> take();  // best first
    int k;
    std::vector<Cand> v;
};

// The lengths a discovery considers for this subset.
std::vector<int> pivot_lengths(const Subset& d, int min_length, int max_length, int step);

// Partner for logical shapelets: combined distance max (AND) / min (OR).
struct Partner {
    const double* d = nullptr;  // distance of the partner to each local series
    int op = 0;                 // TsShapeletOp
};

// Best k pivots on the CPU / GPU.
std::vector<Cand> discover_cpu(const Subset& d, const std::vector<int>& lengths, int k,
                               const Partner& partner, TsExec* ex);
#ifdef TSMINE_WITH_CUDA
namespace gpu {
std::vector<Cand> discover(const Subset& d, const std::vector<int>& lengths, int k,
                           const Partner& partner, TsExec* ex);
// Tuning of the GPU engine (the defaults are the measured best; tests change them
// to cover every path, results are the same with any setting):
//  f_cap: doubles of the table of direct diagonal starts per length group (0: the
//         distance kernel computes every start itself);
//  rows_per_lane: pivot rows per lane of the distance kernel (at most 1, 2 or 4).
struct Tuning {
    int64_t f_cap = int64_t(8) << 20;
    int rows_per_lane = 2;
};
Tuning& tuning();
}
#endif

// Distances of one pivot to every series of the subset (the engine's exact values).
std::vector<double> pivot_distances(const Subset& d, int s, int p, int L);

// Definition 1 distance, computed directly (classification, SQL function).
double shapelet_distance(const double* shp, int L, const double* x, int64_t n);

}  // namespace shp
}  // namespace tsm
