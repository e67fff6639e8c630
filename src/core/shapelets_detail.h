// shapelets_detail.h — the arithmetic and selection rules of shapelet discovery
// that the CPU path (shapelets.cpp) and the GPU path (kernels/shapelets.cu)
// share, so that both compute bit-identical distances and gains and select the
// same pivots and thresholds.
//
// Everything here is inline and, under nvcc, __host__ __device__.  Operations
// whose rounding matters are spelled with hd.h; the co-moment comes from
// comoment_detail.h and the window statistics from sliding_detail.h, like every
// method's.
//
// Conventions (documented once, here):
//  * Windows.  Per series and length L: the chunks of sliding_detail.h give
//    the mean μ and σ of every window; a window is flat when it is constant,
//    or σ ≤ kFlatRel·|μ|, or σ < kFlatAbs.  A pivot window keeps μ and 1/σ
//    (0 when flat: a flat pivot is no candidate).
//  * Distances of pivot rows p (windows of a source a) to the windows u of a
//    target b use the co-moment C(p, u) (comoment_detail.h; the pivot row is
//    the row window): directly (window_comoment) at every diagonal start —
//    column u = 0 and the first row of each group of rows_per_group(L) rows —
//    and between them by the exact recurrence comoment_next, with the terms
//    of comoment_detail.h's recurrence_terms (df, dg of window i ≥ 1, i.e. of
//    the step i − 1 → i; slot 0 unused), so a recurrence never runs more than
//    rows_per_group(L) steps and never subtracts large raw sums (an offset of
//    1e8 changes nothing).  The distance of the pivot to the target is
//    distance_from_best of the largest C·(1/σ_u) over u.
//  * Gains in fixed point, so that every order of summation gives the same
//    value: G = round(2^32 n gain) from the table T[c] = round(2^32 c log2 c);
//    G(split) = base − (T[n_left] − Σ_c T[left_c]) − (T[n_right] − Σ_c T[right_c]).
//  * Order line: the distances sorted ascending, ties by local series index.
//    A split lies between neighbours a < b (threshold midpoint(a, b)); among a
//    pivot's splits the larger gain wins, then the larger gap, then the
//    smaller position (SplitChoice).  Among candidates: cand_better.
#pragma once

#include <cmath>
#include <cstdint>

#include "api_shapelets.h"
#include "comoment_detail.h"
#include "hd.h"
#include "sliding_detail.h"

namespace tsm {
namespace shp {

// Fixed-point scale of the gains: G = round(2^32 * n * gain).
constexpr double kGainScale = 4294967296.0;
// Flat window: all values equal, or std <= kFlatRel * |mean|, or std < kFlatAbs.
constexpr double kFlatRel = 1e-13;
constexpr double kFlatAbs = 1e-300;
// Distance of a pivot to a series shorter than the pivot (largest possible).
constexpr double kShorterDistance = 2.0;
// Correlation used for a flat target window (distance 1).
constexpr double kFlatRho = 0.5;

// ---- windows -------------------------------------------------------------------

TSM_HD bool window_is_flat(double mean, double sd, bool constant) {
    return constant || !(sd > hd::mul(kFlatRel, fabs(mean))) || sd < kFlatAbs;
}

// Mean and inverse σ (0 when flat) of the pivot windows [i0, i1) of x (one chunk
// of sliding_detail.h: i1 − i0 ≤ kStatsChunk, i0 a multiple of kStatsChunk) into
// mean[i], inv_sd[i]; true when any of them is flat.
TSM_HD bool pivot_stats_chunk(const double* x, int L, int64_t i0, int64_t i1, double* mean, double* inv_sd) {
    bool any_flat = false;
    detail::window_stats_chunk_emit(x, L, i0, i1, [&](int64_t i, double mu, double sd, bool constant) {
        const bool flat = window_is_flat(mu, sd, constant);
        mean[i] = mu;
        inv_sd[i] = flat ? 0.0 : hd::div(1.0, sd);
        any_flat |= flat;
    });
    return any_flat;
}

// A pivot window with 1/σ = 0 is flat: not a candidate.
TSM_HD bool pivot_is_flat(double inv_sd) { return inv_sd == 0.0; }

// ---- co-moments and distances -------------------------------------------------

// The distance of a pivot of source s to target j that needs no computation:
// 0 to its own series, kShorterDistance to a series shorter than the pivot.
TSM_HD bool fixed_distance(int64_t s, int64_t j, int64_t target_length, int L, double* v) {
    if (j == s) { *v = 0.0; return true; }
    if (target_length < L) { *v = kShorterDistance; return true; }
    return false;
}

// Rows of one recurrence group: a multiple of 32, at least 256 and 4L.  The
// first row of every group is computed directly.
TSM_HD int64_t rows_per_group(int L) {
    int64_t r = 4 * (int64_t)L;
    if (r < 256) r = 256;
    return (r + 31) & ~int64_t(31);
}

// C of window a[0..L) (mean mu_a: the row window) and window b[0..L) of another
// series: comoment_detail.h's direct_comoment for two series (its terms, t
// ascending).
TSM_HD double window_comoment(const double* a, double mu_a, const double* b, double mu_b, int L) {
    double c = 0;
    for (int t = 0; t < L; ++t) c = comoment_term(c, a[t], mu_a, b[t], mu_b);
    return c;
}

// comoment_term with both values already centred (a_c = a − μa, b_c = b − μb,
// each rounded once as comoment_term does): the start-table kernel centres a
// source value once for all its target windows.  The product commutes
// exactly, so a table entry read transposed (the column-0 start) is the same C.
TSM_HD double centred_comoment_term(double acc, double a_c, double b_c) { return hd::fma(a_c, b_c, acc); }

// The running maximum over target windows u of C(p, u) · (1/σ_u).
TSM_HD double keep_larger(double best, double c, double inv_sd_b) {
    const double v = hd::mul(c, inv_sd_b);
    return v > best ? v : best;
}

// Definition 1's distance from a correlation, squared: 2 (1 − ρ), 0 where
// rounding makes it ≤ 0.
TSM_HD double squared_distance_from_rho(double rho) {
    const double t = hd::mul(2.0, hd::sub(1.0, rho));
    return t > 0 ? t : 0.0;
}
// The distance from its square.  The square root rounds monotonically, so the
// smallest of several distances is the root of the smallest square.
TSM_HD double distance_from_squared(double t) { return t > 0 ? hd::sqrt(t) : 0.0; }
// Definition 1's distance from a correlation: sqrt(2 (1 − ρ)).
TSM_HD double distance_from_rho(double rho) { return distance_from_squared(squared_distance_from_rho(rho)); }

// Distance of a pivot (1/σ = inv_sd_a) to a target from the best C·(1/σ_u): a flat
// target window counts as ρ = kFlatRho (distance 1).
TSM_HD double distance_from_best(double best, double inv_sd_a, int L, bool target_has_flat) {
    double rho = hd::div(hd::mul(best, inv_sd_a), (double)L);
    if (target_has_flat && rho < kFlatRho) rho = kFlatRho;
    return distance_from_rho(rho);
}

// Logical shapelets: the combined distance of two shapelets, max for AND, min
// for OR (op: TsShapeletOp).
TSM_HD double combine_distances(double d1, double d2, int op) {
    return op == TS_SHAPELET_AND ? fmax(d1, d2) : fmin(d1, d2);
}

// ---- gains and splits ----------------------------------------------------------

// Σ_c T[left_c] and Σ_c T[right_c] of a split, one class at a time.
TSM_HD void add_class_terms(const int64_t* T, int64_t left_count, int64_t class_total, int64_t& left_terms,
                            int64_t& right_terms) {
    left_terms += T[left_count];
    right_terms += T[class_total - left_count];
}

// Fixed-point gain of a split of n_left | n_right series (base: T[n] − Σ_c T[total_c]).
TSM_HD int64_t split_gain(int64_t base, const int64_t* T, int64_t n_left, int64_t n_right, int64_t left_terms,
                          int64_t right_terms) {
    return base - (T[n_left] - left_terms) - (T[n_right] - right_terms);
}

// Threshold between neighbours a < b on the order line: a <= t < b.
TSM_HD double midpoint(double a, double b) {
    double t = hd::add(a, hd::mul(hd::sub(b, a), 0.5));
    return t < b ? t : a;
}

// Separation gap of a split: mean of the far side minus mean of the near side
// (sum_left: the sum of the first n_left distances, added in order).
TSM_HD double split_gap(double sum_left, double total, int64_t n_left, int64_t n_right) {
    return hd::sub(hd::div(hd::sub(total, sum_left), (double)n_right), hd::div(sum_left, (double)n_left));
}

// Strict "better" order of (gain, gap, position): larger gain, larger gap, smaller position.
TSM_HD bool split_better(int64_t g, double gap, int64_t i, int64_t bg, double bgap, int64_t bi) {
    if (g != bg) return g > bg;
    if (gap != bgap) return gap > bgap;
    return i < bi;
}

// The best split of an order line seen so far (position i: the split after the
// i-th distance; -1 while none).
struct SplitChoice {
    int64_t g = -1;
    double gap = 0;
    int64_t i = -1;
    TSM_HD void offer(int64_t g_new, double gap_new, int64_t i_new) {
        if (i < 0 || split_better(g_new, gap_new, i_new, g, gap, i)) {
            g = g_new;
            gap = gap_new;
            i = i_new;
        }
    }
};

// ---- candidates ------------------------------------------------------------------

// One scored pivot (the best split of its order line); the layout is the
// device's too (best-k lists; g = -1, all bits set, marks an empty slot).
struct Cand {
    int64_t g = -1;  // fixed-point gain (G); -1: no valid split
    double gap = 0, thr = 0;
    int64_t row = 0;              // training row of the source
    int32_t s = 0, p = 0, L = 0;  // local source, start, length
};

// Total order: gain, gap, smaller length, smaller row, smaller start.
TSM_HD bool cand_better(const Cand& a, const Cand& b) {
    if (a.g != b.g) return a.g > b.g;
    if (a.gap != b.gap) return a.gap > b.gap;
    if (a.L != b.L) return a.L < b.L;
    if (a.row != b.row) return a.row < b.row;
    return a.p < b.p;
}

}  // namespace shp
}  // namespace tsm
