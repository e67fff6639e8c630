// shapelets_detail.h — the arithmetic and selection rules of shapelet discovery
// that the CPU path (shapelets.cpp) and the GPU path (kernels/shapelets.cu)
// share, so that both compute bit-identical distances and gains and select the
// same pivots and thresholds.
//
// Everything here is inline and, under nvcc, __host__ __device__.  Operations
// whose rounding matters are spelled with hd.h; frames come from
// frame_detail.h, the co-moment recurrence from comoment_detail.h.
//
// Conventions (documented once, here):
//  * Windows (window_frame).  A window's statistics are computed directly, in
//    the frame of its own largest magnitude (an exact power-of-two scaling)
//    and relative to its first value: two-pass mean and σ, exact to rounding
//    for any offset and at any scale, whatever else the series holds.  A
//    window is flat when its values are all equal or σ ≤ 2^−52·|mean| (a
//    spread below the last place of its mean).  Flat windows are never
//    candidates; as targets, flat against non-flat counts as ρ = 1/2
//    (distance 1), flat against flat as distance 0.
//  * The distance (exact_squared_distance, for ts_shapelet_distance and
//    classification): sqrt(Σ_t (z_a − z_b)²/L) with z the windows' values
//    z-normalised in their frames: identical windows give exactly 0, x and
//    2^k·x the same bits, and nothing overflows.  Distances below
//    kDistanceFloor = 2^−18 (ρ above 1 − 7·10^−12) are 0: that is the
//    rounding level of the training's recurrence, so training, classification
//    and ts_shapelet_distance agree on which distances are 0, and no split
//    can separate distances that differ only by rounding.
//  * Training screens with the O(1) co-moment recurrence, in the series'
//    frame: y = x·2^−E, E the frame of the series' largest magnitude (exact).
//    Every window keeps its first value y_w as reference and its mean
//    relative to it (mu), so centred values (y_t − y_w) − mu never subtract
//    large raw sums: an offset of 1e9 costs nothing.  Co-moments C(p, u) of a
//    pivot row p (the row window) and a target window u are computed directly
//    (local_comoment) at every diagonal start — column u = 0, the first row of
//    each group of rows_per_group(L) rows, and the restarts below — and
//    between them by comoment_next with the terms of local_terms (df, dg of
//    window i ≥ 1, the step i − 1 → i).  The screened distance of a pivot to
//    a target is distance_from_best of the largest C·(1/σ_u) over u (the
//    first u of the largest).  That distance is settled — replaced by the
//    distance of that window computed directly (direct_distance): identical
//    windows come out at exactly 0 — when the screen cannot vouch for it
//    (needs_settling): below kVerifyBelow = 2^−6, where the form
//    sqrt(2(1 − ρ)) loses more than 1e-12 of d to its own rounding, and
//    wherever the recurrence's error bound (below) allows more than
//    kSettleTol = 2^−31 of d.  The window the screen chose is the nearest
//    within the restarts' uniform bound (below); its distance is exact to
//    1e-9 relative on every input, as the matrix profile's winner is
//    (mp_detail.h: the nearest within its guard, the distance direct).
//  * Restarts (scan_restarts): the recurrence carries the rounding of the
//    terms it adds along a diagonal; a glitch spike of 1e9 would leave its
//    rounding in every later window of the diagonal.  A non-flat window w
//    restarts (its row and its column are computed directly) when the span of
//    the values of any step since the last restart exceeds kRestartRatio times
//    the span of w's own values: the terms of a diagonal never outgrow its
//    windows' own statistics by more than that.  What that proves: C(i, j)
//    is reached from a direct C(a, a + k) in fewer than R = rows_per_group(L)
//    steps through windows that did not restart, so every step's span S is at
//    most G = kRestartRatio times the own spans s_i, s_j of the pair (the
//    peak since the last restart; window a's values lie in step a + 1's).  A
//    step rounds by at most u(2L + 14)·S_r·S_c (|C| ≤ L·S_r·S_c, |df| ≤ S/2,
//    |dg| ≤ 3S with its own rounding 6uS; u = 2^-53, first order), a direct
//    start by (L + 4)·L·u·s_a·s_b, and N ≥ s/√2, so the screen's ρ is within
//    2G²·u·((R − 1)(2L + 14) + L(L + 4)) of the pair's ρ about the stored
//    means: 2e-6 for L = 10, 2e-2 for L = 100 (the uniform bound: how far
//    the chosen window can be from the nearest).
//  * The settle rule's bound (screen_error), per pair and tighter: after K
//    steps since the row's last direct co-moment (K = p − g0 for a row of
//    the recurrence, 0 for a row computed directly; a diagonal that started
//    later, at column 0 or a restarting column, took fewer), every step's
//    spans are at most the rows' and the columns' peaks P_p, P_u
//    (restart_step's, kept per window as its reach P·(1/σ)).  A step's two
//    fma round by at most u(|C| + 2·S_r·S_c) with |C| ≤ N_r·N_c ≤ L·S_r·S_c/4
//    (σ ≤ S/2), and the rounding of its terms adds at most 8u·S_r·S_c
//    (df: uS/2, dg: 6uS); a direct start rounds by at most u·L(L + 4)/4·S·S
//    (a sum of L products, each of centred values rounded twice).  So
//    L·|ρ̃ − ρ| ≤ u((L/2 + 11)·K + L(L + 4)/4)·reach_p·reach_u (first
//    order), and d = sqrt(2(1 − ρ)) moves by at most |ρ̃ − ρ|/d, relatively
//    by |ρ̃ − ρ|/d²: a distance is settled where that may exceed kSettleTol =
//    2^−31.  On ordinary data the bound settles windows whose own σ is small
//    against the steps around them (short lengths in flat stretches: about
//    10% of GunPoint's pairs at a mean length of 12, 2–3% of Coffee's and
//    Trace's), where the screen's distances were up to 2e-7 off; with it,
//    the largest difference from the direct distance of the same window on
//    those sets is 2e-11.
//  * Settling where it decides (settled_range, range_apart — on both paths
//    neighbours_apart along the order line where every range holds its
//    distance, else the pairwise test, on the CPU as pending_ranges_apart in
//    O(N log N) — settling_decides; settle_lazily switches it off for
//    tests).  An entry
//    that needs_settling is pending: the screen computes it, and its direct
//    distance replaces it only where that can change what the pivot
//    contributes.  The direct distance lies in settled_range's [lo, hi]:
//    with t̃ = screened² (its own rounding by the factors 1 ± 2^−50), the
//    direct square is within `width` of t̃, where width bounds, first order,
//    2|ρ̃ − ρ| (the recurrence, screen_error / L; the screen's window
//    statistics, σ and means in the series' frame, u(L + 2(reach_p +
//    reach_u) + 16)), the rounding of ρ̃'s and t̃'s forms (16u), and the
//    direct distance's own rounding (each z_a − z_b within term = u(L + 4)·
//    (√L + reach_p + reach_u + 4) of its exact value, |z_a − z_b| ≤ 2 on
//    average: 4·term + term², and q's sum 4u(L + 1)), times kRangeSafety = 4
//    for the second-order terms; floored_square and the square root are
//    monotone, so they carry the bounds of the square to the distance.  A
//    pivot's gain depends only on its order line (the order of its distances,
//    ties by index, and which neighbours differ): when every pending entry's
//    range meets no other entry's range or final distance (range_apart,
//    strict), settling moves nothing past anything, and the gain g of the
//    screened order line is the settled one's.  Then the gain decides: below
//    the floor — the least gain of some k distinct pivots already kept, each
//    scored settled — the pivot is none of the k best and is dropped as it
//    is; at or above it (its threshold and gap are values, and ties go by
//    gap) it is settled and scored again, as is every pivot with ranges that
//    meet.  So the rows are those of settling everything, bit for bit.  The
//    floor grows as tasks finish (the CPU's row groups, the GPU's warps'
//    lists, atomicMax into one word): how soon only decides how much is
//    settled.  On OliveOil (72% of its distances pending) 1% of the pending
//    terms are settled; the ranges are checked against the direct distances
//    on real and hostile sets (test_shapelets.cpp).
//  * Screenable series (series_screenable): the screen needs every non-flat
//    window's σ in the series' frame above kScreenFloor = 2^−470 (else its
//    products could underflow).  A non-flat window holds two neighbours that
//    differ by some d ≠ 0, and then σ ≥ |d|/sqrt(2L); so a series whose
//    non-zero differences of neighbours are all at least 2^−450 in its frame
//    is screenable at every length.  One whose values span more than that (a
//    1e150 glitch among ordinary values) is not: the CPU computes the
//    distances of its pairs directly (exact_squared_distance, window by
//    window); the GPU declines the call (TS_GPU_LIMIT: auto runs it on the CPU).
//  * Gaps (NaN, ±Infinity; a NULL arrives as NaN), as STUMPY and the matrix
//    profile (mp_detail.h): a window that holds one is at infinite distance
//    from everything.  A training series with gaps is filled on the host
//    (mp::plan_gaps: each gap replaced by the last finite value before it,
//    the first finite value for leading gaps, 0 when none is finite) and
//    every quantity — frames, window statistics, the recurrence, restarts —
//    is computed on the filled values, so everything stays finite and the
//    recurrence runs through the gaps as through any value; gaps_before, a
//    prefix count of the gaps (n + 1 entries), says which windows hold one
//    (window_has_gap).  mark_gap_window then sets such a window's 1/σ to NaN:
//    as a target, every C·(1/σ_u) with it is NaN, which no comparison keeps
//    (keep_larger, the CPU's row maximum), so the distance of a pivot to a
//    series is the minimum over its windows without a gap; as a pivot, it is
//    no candidate (pivot_is_candidate), its screened distance is NaN, which
//    floored_square turns into 4 (distance 2, never settled), and it never
//    restarts (scan_restarts: neither do flat windows).  A series with no
//    window of the length free of gaps (shorter than it, or a gap in every
//    window) is at kNoWindowDistance = 2, the largest distance there is: on
//    the far side of every split (a threshold lies below a larger distance,
//    so below 2), in training and classification alike.  A series without
//    gaps takes none of these steps (gaps_before null): the same bits as
//    before, and nothing new in the hot loops.
//  * Gains in fixed point, so that every order of summation gives the same
//    value: G = round(2^32 n gain) from the table T[c] = round(2^32 c log2 c);
//    G(split) = base − (T[n_left] − Σ_c T[left_c]) − (T[n_right] − Σ_c T[right_c]).
//  * Order line: the distances sorted ascending, ties by local series index.
//    A split lies between neighbours a < b (threshold midpoint(a, b)); among a
//    pivot's splits the larger gain wins, then the larger gap, then the
//    smaller position (SplitChoice).  Among candidates: cand_better.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "api_shapelets.h"
#include "comoment_detail.h"
#include "frame_detail.h"
#include "hd.h"

namespace tsm {
namespace shp {

// Fixed-point scale of the gains: G = round(2^32 * n * gain).
constexpr double kGainScale = 4294967296.0;
// Flat window: all values equal, or std <= kFlatRel * |mean|.
constexpr double kFlatRel = 0x1p-52;
// Distances below this are 0 (the rounding level of the training's recurrence).
constexpr double kDistanceFloor = 0x1p-18;
// Screened distances below this are recomputed directly (the ρ form loses
// about 1e-16/d² of d: below 2^-6, more than 1e-12 relative).
constexpr double kVerifyBelow = 0x1p-6;
// A screened distance whose error bound exceeds this fraction of it is settled.
constexpr double kSettleTol = 0x1p-31;
// settled_range's factor over its first-order bound.
constexpr double kRangeSafety = 4.0;
// Restart when a step's span exceeds this many times a window's own span.
constexpr double kRestartRatio = 1024.0;
// The smallest σ of a non-flat window (in its series' frame) the screen takes.
constexpr double kScreenFloor = 0x1p-470;
// Distance of a pivot to a series with no window of its length free of gaps
// (shorter than the pivot, or a gap in every window): the largest possible.
constexpr double kNoWindowDistance = 2.0;
// Correlation used for a flat target window (distance 1).
constexpr double kFlatRho = 0.5;

// ---- windows -------------------------------------------------------------------

// A window's statistics in its own frame: unit = 2^−frame, ref = w[0]·unit,
// mean (relative to ref) and σ of the values w[t]·unit.
struct WindowFrame {
    int frame;
    double unit, ref, mean, sd;
    bool flat;
};

// The scaled value w[t]·unit − ref of a window (exact for a window of offset data).
TSM_HD double frame_value(double v, const WindowFrame& f) { return hd::sub(hd::mul(v, f.unit), f.ref); }

TSM_HD WindowFrame window_frame(const double* w, int L) {
    WindowFrame f;
    double top = 0;
    bool constant = true;
    for (int t = 0; t < L; ++t) {
        top = frames::max_abs(top, w[t]);
        constant = constant && w[t] == w[0];
    }
    f.frame = frames::frame_of(top);
    f.unit = frames::pow2(-f.frame);
    f.ref = hd::mul(w[0], f.unit);
    const double md = (double)L;
    double a = 0;
    for (int t = 0; t < L; ++t) a = hd::add(a, frame_value(w[t], f));
    double mean = hd::div(a, md), d = 0, q = 0;
    for (int t = 0; t < L; ++t) {
        const double c = hd::sub(frame_value(w[t], f), mean);
        d = hd::add(d, c);
        q = hd::add(q, hd::mul(c, c));
    }
    f.mean = hd::add(mean, hd::div(d, md));
    const double var = hd::div(hd::sub(q, hd::div(hd::mul(d, d), md)), md);
    f.sd = var > 0 ? hd::sqrt(var) : 0.0;
    f.flat = constant || !(f.sd > hd::mul(kFlatRel, fabs(hd::add(f.ref, f.mean))));
    return f;
}

// A window's frame as the statistics keep it for every window (so that a
// direct distance reads it rather than computing it again): window_frame less
// unit and ref, which the frame and the window's first value give back
// exactly (the same operations as window_frame's).
struct StoredFrame {
    double mean, sd;
    int32_t frame, flat;
};
TSM_HD StoredFrame stored_frame(const WindowFrame& f) { return {f.mean, f.sd, f.frame, f.flat ? 1 : 0}; }
TSM_HD WindowFrame window_frame_of(const double* w, const StoredFrame& s) {
    WindowFrame f;
    f.frame = s.frame;
    f.unit = frames::pow2(-f.frame);
    f.ref = hd::mul(w[0], f.unit);
    f.mean = s.mean;
    f.sd = s.sd;
    f.flat = s.flat != 0;
    return f;
}

// The frame of a series: that of its largest magnitude.
TSM_HD int series_frame(const double* x, int64_t n) {
    double top = 0;
    for (int64_t t = 0; t < n; ++t) top = frames::max_abs(top, x[t]);
    return frames::frame_of(top);
}

// Whether the screen takes the series x[0 .. n) of frame E (see the conventions).
TSM_HD bool series_screenable(const double* x, int64_t n, int frame) {
    const double unit = frames::pow2(-frame);
    for (int64_t t = 0; t + 1 < n; ++t) {
        const double d = fabs(hd::sub(hd::mul(x[t + 1], unit), hd::mul(x[t], unit)));
        if (d != 0.0 && d < kScreenFloor * 0x1p20) return false;
    }
    return true;
}

// The screen's statistics of window x[0 .. L) of a series of frame E: the
// mean relative to the window's first value and 1/σ (0 when flat), in units
// of 2^E (the series' values times 2^−E: y); and the window's own frame.
TSM_HD void screen_stats(const double* x, int L, int series_frame, double* mean, double* inv_sd, StoredFrame* own) {
    const WindowFrame f = window_frame(x, L);
    *own = stored_frame(f);
    const int shift = f.frame - series_frame;  // ≤ 0
    *mean = frames::times_pow2_down(f.mean, shift);
    *inv_sd = f.flat ? 0.0 : hd::div(1.0, frames::times_pow2_down(f.sd, shift));
}

// A window with 1/σ = 0 is flat.
TSM_HD bool pivot_is_flat(double inv_sd) { return inv_sd == 0.0; }
// A candidate pivot: neither flat (1/σ = 0) nor holding a gap (1/σ NaN).
TSM_HD bool pivot_is_candidate(double inv_sd) { return inv_sd > 0.0; }

// ---- gaps (the header says how) ---------------------------------------------------

// Whether window u of length L holds a gap (gaps_before: null for a series
// without gaps, else the number of gaps before each position, n + 1 entries).
TSM_HD bool window_has_gap(const int32_t* gaps_before, int64_t u, int L) {
    return gaps_before && gaps_before[u + L] > gaps_before[u];
}

// After screen_stats: a window that holds a gap gets 1/σ = NaN.
TSM_HD void mark_gap_window(const int32_t* gaps_before, int64_t u, int L, double* inv_sd) {
    if (window_has_gap(gaps_before, u, L)) *inv_sd = hd::from_bits(0x7FF8000000000000ull);
}

// The span (largest minus smallest) of y[i0 .. i1).
TSM_HD double span_of(const double* y, int64_t i0, int64_t i1) {
    double lo = y[i0], hi = y[i0];
    for (int64_t t = i0 + 1; t < i1; ++t) {
        lo = y[t] < lo ? y[t] : lo;
        hi = y[t] > hi ? y[t] : hi;
    }
    return hd::sub(hi, lo);
}

// The spans restarts compare, by definition: of step w ≥ 1 (the values
// y[w − 1 .. w + L − 1]) and of window w's own values (the scans take both
// from window_spans; the unit tests hold it to these).
TSM_HD double step_span(const double* y, int64_t w, int L) { return span_of(y, w - 1, w + L); }
TSM_HD double own_span(const double* y, int64_t w, int L) { return span_of(y, w, w + L); }

// Both spans of window w in one pass over its values: the step's values are
// the window's and y[w − 1] before them, so the step's extremes are the
// window's and y[w − 1] (which wins ties: span_of's first value) — the
// same bits as step_span and own_span (step: 0 for window 0) where y is
// finite, as the filled series are.
TSM_HD void window_spans(const double* y, int64_t w, int L, double* step, double* own) {
    double lo = y[w], hi = y[w];
    for (int64_t t = w + 1; t < w + L; ++t) {
        lo = y[t] < lo ? y[t] : lo;
        hi = y[t] > hi ? y[t] : hi;
    }
    *own = hd::sub(hi, lo);
    if (w == 0) {
        *step = 0.0;
        return;
    }
    const double first = y[w - 1];
    *step = hd::sub(first >= hi ? first : hi, first <= lo ? first : lo);
}

// One window of the restart scan: peak, the largest step span since the last
// restart (at first, window 0's own span), takes step w's; a non-flat window
// whose own span is more than kRestartRatio times smaller restarts (true).
TSM_HD bool restart_step(double& peak, double step, double own, bool flat) {
    peak = step > peak ? step : peak;
    if (flat || !(peak > hd::mul(kRestartRatio, own))) return false;
    peak = own;
    return true;
}

// A window's reach: the peak step span since its last restart over its own σ
// (the settle rule's bound); 0 for a window that is no candidate.
TSM_HD double reach_of(double peak, double inv_sd) {
    return pivot_is_candidate(inv_sd) ? hd::mul(peak, inv_sd) : 0.0;
}

// A window's spans for the restart scan: step_span (unused for window 0)
// and own_span.
struct WindowSpans {
    double step, own;
};

// The restart scan of the U = n − L + 1 windows of a series, in order:
// spans_of(w) gives window w's WindowSpans, inv_sd the screen's 1/σ (a window
// that is no candidate, flat or holding a gap, never restarts);
// visit(w, restart, reach) takes each window's flag (window 0: none, column
// 0 and the first row of a group are direct anyway) and reach.  The CPU
// (length_stats) computes the spans as it goes; the GPU (stats_kernel's
// warp_scan_restarts) reads those its lanes computed and takes 32 windows at
// a time: each window's peak before its step as a maximum over the lanes
// before it (grouped differently, the same value: a maximum rounds nothing),
// each decision by restart_step.
template <class SpansOf, class Visit>
TSM_HD void scan_restarts(int64_t U, const double* inv_sd, SpansOf spans_of, Visit visit) {
    if (U < 1) return;
    double peak = spans_of(0).own;
    visit(0, false, reach_of(peak, inv_sd[0]));
    for (int64_t w = 1; w < U; ++w) {
        const WindowSpans sp = spans_of(w);
        const bool restart = restart_step(peak, sp.step, sp.own, !pivot_is_candidate(inv_sd[w]));
        visit(w, restart, reach_of(peak, inv_sd[w]));
    }
}

// Whether row p of a recurrence group that starts at row g0 takes its
// co-moments directly: the group's first row or a restarting one.
TSM_HD bool row_is_direct(int64_t p, int64_t g0, const uint8_t* restart) { return p == g0 || restart[p] != 0; }

// ---- co-moments and distances -------------------------------------------------

// The distance of a pivot of source s to target j that needs no computation:
// 0 to its own series, kNoWindowDistance to a series shorter than the pivot.
TSM_HD bool fixed_distance(int64_t s, int64_t j, int64_t target_length, int L, double* v) {
    if (j == s) { *v = 0.0; return true; }
    if (target_length < L) { *v = kNoWindowDistance; return true; }
    return false;
}

// Rows of one recurrence group: a multiple of 32, at least 256 and 4L.  The
// first row of every group is computed directly.
TSM_HD int64_t rows_per_group(int L) {
    int64_t r = 4 * (int64_t)L;
    if (r < 256) r = 256;
    return (r + 31) & ~int64_t(31);
}

// The centred value of window w at t: (w[t] − w[0]) − mean (mean relative to w[0]).
TSM_HD double centred(const double* w, int t, double mean) { return hd::sub(hd::sub(w[t], w[0]), mean); }

// One term of a direct co-moment from two centred values (a product commutes
// exactly, so a start-table entry read transposed is the same C).
TSM_HD double centred_comoment_term(double acc, double a_c, double b_c) { return hd::fma(a_c, b_c, acc); }

// C of window a[0..L) (the row window, mean mu_a relative to a[0]) and window
// b[0..L) (mean mu_b relative to b[0]): the terms t ascending.
TSM_HD double local_comoment(const double* a, double mu_a, const double* b, double mu_b, int L) {
    double c = 0;
    for (int t = 0; t < L; ++t) c = centred_comoment_term(c, centred(a, t, mu_a), centred(b, t, mu_b));
    return c;
}

// df_i and dg_i of window i ≥ 1 of y (mean: relative to each window's first
// value), for comoment_detail.h's comoment_next.  Window i − 1 starts at the
// value that leaves, so its centred value is −mean[i − 1].
TSM_HD void local_terms(const double* y, const double* mean, int L, int64_t i, double* df, double* dg) {
    const double xin = y[i + L - 1], xout = y[i - 1];
    *df = hd::mul(hd::sub(xin, xout), 0.5);
    *dg = hd::sub(hd::sub(hd::sub(xin, y[i]), mean[i]), mean[i - 1]);
}

// The running maximum over target windows u of C(p, u) · (1/σ_u), and where
// it is (the first u of the largest).
TSM_HD void keep_larger(double& best, int& at, double c, double inv_sd_b, int u) {
    const double v = hd::mul(c, inv_sd_b);
    if (v > best) {
        best = v;
        at = u;
    }
}

// A squared distance in [0, 4] with the floor applied: below kDistanceFloor², 0;
// NaN (a pivot that holds a gap: its 1/σ is NaN) gives 4.
TSM_HD double floored_square(double t) {
    if (t < hd::mul(kDistanceFloor, kDistanceFloor)) return 0.0;
    return t < 4.0 ? t : 4.0;
}
// Definition 1's distance from a correlation, squared: 2 (1 − ρ), floored.
TSM_HD double squared_distance_from_rho(double rho) { return floored_square(hd::mul(2.0, hd::sub(1.0, rho))); }
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

// The squared distance of two windows (Definition 1, formula (2)) directly
// from their frames (see the conventions), floored.
TSM_HD double exact_squared_distance(const double* a, const WindowFrame& fa, const double* b, const WindowFrame& fb,
                                     int L) {
    if (fa.flat || fb.flat) return (fa.flat && fb.flat) ? 0.0 : 1.0;
    const double ia = hd::div(1.0, fa.sd), ib = hd::div(1.0, fb.sd);
    double q = 0;
    for (int t = 0; t < L; ++t) {
        const double za = hd::mul(hd::sub(frame_value(a[t], fa), fa.mean), ia);
        const double zb = hd::mul(hd::sub(frame_value(b[t], fb), fb.mean), ib);
        const double dz = hd::sub(za, zb);
        q = hd::fma(dz, dz, q);
    }
    return floored_square(hd::div(q, (double)L));
}

// The recurrence's steps since row p's last direct co-moment (g0: its
// group's first row; restart: the rows' restart flags, row_is_direct).
TSM_HD int64_t steps_since_direct(int64_t p, int64_t g0, const uint8_t* restart) {
    return row_is_direct(p, g0, restart) ? 0 : p - g0;
}

// The bound on |ρ̃ − ρ| of a pivot (reach_p) and a target window (reach_u)
// after that many steps (the conventions say why), times L (no division).
TSM_HD double screen_error(int64_t steps, int L, double reach_p, double reach_u) {
    const double md = (double)L;
    const double per_step = hd::add(hd::mul(0.5, md), 11.0), start = hd::mul(hd::mul(0.25, md), hd::add(md, 4.0));
    const double rounding = hd::mul(0x1p-53, hd::add(hd::mul(per_step, (double)steps), start));
    return hd::mul(hd::mul(rounding, reach_p), reach_u);
}

// Whether a screened distance is settled (replaced by the direct distance of
// the window the screen chose): below kVerifyBelow, or where its error bound
// (screen_error, times L) exceeds kSettleTol of it — but not a distance of 1
// or more to a target with a flat window, which may be the flat window's
// (kFlatRho).
TSM_HD bool needs_settling(double screened, double error, int L, bool target_has_flat) {
    if (screened < kVerifyBelow) return true;
    if (target_has_flat && !(screened < 1.0)) return false;
    return error > hd::mul(hd::mul(hd::mul(kSettleTol, screened), screened), (double)L);
}
// needs_settling with the error bound of the chosen target window's reach,
// asked first with the target's largest reach (reach_max, at least every
// reach of its windows): screen_error grows with the reach and
// needs_settling with the error, so where the largest reach rules settling
// out, the window's does too, and window_reach() (which may have to find the
// window, or gather its reach) is called only where it does not.  The same
// decisions as needs_settling(screened, screen_error(steps, L, reach_p,
// window_reach()), L, target_has_flat).  The host's row_distance asks it so
// (finding the window costs a pass over the row there); dist_kernel has the
// window at hand and asks needs_settling with its reach directly (the bound
// first made it slower on an H100: bench/RESULTS.md, 2026-12-07).
template <class WindowReach>
TSM_HD bool needs_settling_bounded(double screened, int64_t steps, int L, double reach_p, double reach_max,
                                   bool target_has_flat, WindowReach window_reach) {
    if (!needs_settling(screened, screen_error(steps, L, reach_p, reach_max), L, target_has_flat)) return false;
    if (screened < kVerifyBelow) return true;  // whatever the error
    return needs_settling(screened, screen_error(steps, L, reach_p, window_reach()), L, target_has_flat);
}

TSM_HD double direct_distance(const double* a, const StoredFrame& fa, const double* b, const StoredFrame& fb, int L) {
    return distance_from_squared(exact_squared_distance(a, window_frame_of(a, fa), b, window_frame_of(b, fb), L));
}

// A direct distance (shapelet_distance: +inf when the series has no window
// free of gaps) as training and classification take it: at most kNoWindowDistance.
TSM_HD double no_window_as_largest(double d) { return d < kNoWindowDistance ? d : kNoWindowDistance; }

// Logical shapelets: the combined distance of two shapelets, max for AND, min
// for OR (op: TsShapeletOp).
TSM_HD double combine_distances(double d1, double d2, int op) {
    return op == TS_SHAPELET_AND ? fmax(d1, d2) : fmin(d1, d2);
}

// The direct distance of a pending entry lies in [lo, hi] (the conventions,
// "Settling where it decides"): from its screened distance, the recurrence's
// bound (screen_error, times L) and the reaches of its two windows.
struct SettleRange {
    double lo, hi;
};
TSM_HD SettleRange settled_range(double screened, double error, int L, double reach_p, double reach_u) {
    const double u = 0x1p-53, md = (double)L, reaches = hd::add(reach_p, reach_u);
    const double stats = hd::mul(u, hd::add(hd::add(md, hd::mul(2.0, reaches)), 16.0));  // σ, means, ρ's form
    const double term = hd::mul(hd::mul(u, hd::add(md, 4.0)), hd::add(hd::add(hd::sqrt(md), reaches), 4.0));
    const double direct = hd::add(hd::add(hd::mul(4.0, term), hd::mul(term, term)), hd::mul(hd::mul(4.0, u), hd::add(md, 1.0)));
    const double rho = hd::add(hd::div(error, md), stats);
    const double width = hd::mul(kRangeSafety, hd::add(hd::add(hd::mul(2.0, rho), hd::mul(4.0 * u, 4.0)), direct));
    const double t = hd::mul(screened, screened);
    const double t_lo = screened > 0.0 ? hd::sub(hd::mul(t, 1.0 - 0x1p-50), width) : 0.0;
    const double t_hi = hd::add(screened > 0.0 ? hd::mul(t, 1.0 + 0x1p-50) : hd::mul(kDistanceFloor, kDistanceFloor), width);
    return {distance_from_squared(floored_square(t_lo)), distance_from_squared(floored_square(t_hi))};
}

// An entry's range as the gains see it: with a partner (logical shapelets)
// combined at both ends (max and min are monotone).
TSM_HD SettleRange combined_range(SettleRange r, const double* partner, int j, int op) {
    if (!partner) return r;
    return {combine_distances(r.lo, partner[j], op), combine_distances(r.hi, partner[j], op)};
}

// Whether entry j of a pivot's N ranges (lo[i] == hi[i]: a final distance)
// keeps its place on the order line whatever its direct distance: its range
// meets no other entry's.
TSM_HD bool range_apart(const double* lo, const double* hi, int64_t N, int64_t j) {
    for (int64_t i = 0; i < N; ++i)
        if (i != j && !(hi[i] < lo[j] || hi[j] < lo[i])) return false;
    return true;
}

// Whether every pending entry (lo[j] < hi[j]) of a pivot's N ranges keeps
// its place: range_apart for each, as the CPU evaluates it, in O(N log N)
// rather than O(N²) (order: N ints of scratch).  By ascending lo, an entry
// meets an earlier one exactly when the largest hi before it reaches its lo,
// and a later one exactly when the next lo is within its hi (entries of equal
// lo meet either way, as closed ranges do).  A NaN bound meets every range
// (range_apart's comparisons are all false): then the pairs are compared.
inline bool pending_ranges_apart(const double* lo, const double* hi, int64_t N, int32_t* order) {
    for (int64_t j = 0; j < N; ++j)
        if (lo[j] != lo[j] || hi[j] != hi[j]) {
            for (int64_t i = 0; i < N; ++i)
                if (lo[i] < hi[i] && !range_apart(lo, hi, N, i)) return false;
            return true;
        }
    for (int64_t j = 0; j < N; ++j) order[j] = (int32_t)j;
    std::sort(order, order + N, [&](int32_t a, int32_t b) { return lo[a] < lo[b]; });
    double reach = -INFINITY;  // the largest hi of the entries before t
    for (int64_t t = 0; t < N; ++t) {
        const int32_t j = order[t];
        if (lo[j] < hi[j] && (reach >= lo[j] || (t + 1 < N && lo[order[t + 1]] <= hi[j]))) return false;
        reach = std::fmax(reach, hi[j]);
    }
    return true;
}

// Whether an entry's range holds the distance the order line sorts it by
// (lo <= d <= hi; false with a NaN): what neighbours_apart needs.
TSM_HD bool range_holds(double lo, double d, double hi) { return lo <= d && d <= hi; }

// The GPU's test of the same question along the order line (the entries
// sorted by their distances d, ties in any order), where every range holds
// its entry's distance (range_holds): every pending entry keeps its place
// exactly when each two neighbours on the line of which one is pending, a
// before b, are apart: hi_a < lo_b.  Why: then lo never falls along the line
// (two final neighbours: lo_b = d_b >= d_a = hi_a >= lo_a; else lo_b > hi_a
// >= lo_a), nor does hi, so a pending entry at t is apart from every entry
// after t + 1 (their lo >= lo_{t+1} > hi_t) and, the same way, from every
// one before t − 1.  Conversely, where a pending a and its neighbour b are
// apart, hi_b < lo_a cannot hold (lo_a <= d_a <= d_b <= hi_b), so hi_a < lo_b
// does.  Point ranges of equal final distances are not tested: neither moves.
TSM_HD bool neighbours_apart(double lo_a, double hi_a, double lo_b, double hi_b) {
    return !(lo_a < hi_a || lo_b < hi_b) || hi_a < lo_b;
}

// Whether a pivot's pending entries must be settled: unless every one keeps
// its place (apart) and the gain of the screened order line (the gain of the
// settled one, then), g, is below floor (k candidates already have at least
// floor: this pivot is none of the k best) or no split at all (g < 0).
TSM_HD bool settling_decides(bool apart, int64_t g, int64_t floor) { return !apart || (g >= 0 && g >= floor); }

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
