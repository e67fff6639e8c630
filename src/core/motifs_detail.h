// motifs_detail.h — the arithmetic and the selection rules of exact motifs (MK)
// and matching that the CPU paths (motifs.cpp, match.cpp) and the GPU paths
// (kernels/motifs.cu, kernels/match.cu) share: one definition each, inline,
// host + device (TSM_HD), so that both sides compute the same bits.
//
// Conventions (documented once, here):
//  * The series: every function here reads the series scaled by a power of
//    two, its largest magnitude in [2^480, 2^481) (unit_scaled, motifs.h; the
//    matrix profile's top binade, mp_detail.h), so that no sum, square or
//    product of the window statistics and the distance overflows, and a
//    window whose spread is above 2^-990 of that magnitude keeps normal
//    squares; x and 2^k·x (an exact rescaling) give the same scaled series,
//    hence the same results bit for bit.  On data that needs no rescaling
//    every z-normalised value, and so every result, is the same as on x
//    itself (scaling by a power of two commutes with each rounding).
//  * Window statistics: per window, exactly, from the window's values alone
//    (window_zstat: two-pass mean with its correction, population σ), so equal
//    windows get equal statistics and exact repeats are at distance exactly 0,
//    whatever their positions — the sliding statistics of sliding_detail.h
//    carry each window's history in their last bits and cannot promise that.
//    A window is constant when its values are all equal or σ vanished.
//  * Gaps (NaN, ±Infinity; a NULL arrives as NaN): unit_scaled keeps them
//    (and leaves them out of the scale), window_zstat marks a window that
//    holds one (gap_window: 1/σ = NaN, not constant), and the distance of a
//    pair with such a window is +inf (STUMPY's rule), which no nearest
//    neighbour, pair or match takes.
//  * Distance of two windows: δ_k = ẑa_k − ẑb_k (ẑ = (x − μ)·(1/σ), z_value),
//    d² = Σδ² − (Σδ)²/m.  Element k goes to lane k mod 32, each lane adds its
//    elements in order (lane_add), and the 32 lane sums are combined by the
//    warp's halving tree (lane 0 ends with ((s0 + s16) + (s8 + s24)) + ...),
//    the same on the CPU (32 accumulators) and the GPU (a warp, shuffles).
//    The bounded form abandons (+inf) after p = 128, 256, ... values once the
//    prefix's bound q_p − s_p²/p (a lower bound of d²) exceeds lim2; a value it
//    returns is the unbounded one, bit for bit.  Constant windows: STUMPY's
//    rule (both constant 0, one constant sqrt(m)).
//  * Pair order everywhere: distance, then a, then b (a < b) — pair_less; the
//    GPU's atomics keep it as (ordered_bits(d), pair_code(a, b)).
//  * A window's exact nearest neighbour (WindowProfiler::nearest, the one
//    ranking rule of the discords, discords_detail.h): the smallest distance
//    over the admissible windows, ties to the smaller index — nearer().
//  * Motifs from a matrix profile: the profile's neighbour of window i is
//    used only through u_i = d(i, neighbour) (this distance, ≥ i's exact best)
//    and the lower bound sqrt(u_i² − 2m·kProfileRhoTolerance) of i's exact
//    best (profile_lower_bound): the profile picks each window's neighbour by
//    its correlation to within kProfileRhoTolerance / 2 of the best one's.
//  * MK's setup: the reference rows' spreads (kSpreadLanes partial sums and a
//    halving tree), the PAA coefficients (window_paa), their moment sums over
//    blocks of kAxesSumBlock sampled windows (paa_moment_add), the key
//    (choose_key, window_key) and the rows in linear order (window_rows) are
//    computed by both sides with these functions, so the CPU and the GPU
//    order the windows identically.
//  * Pruning filters (the scan): float rows compared with thresholds from
//    prune_threshold / prune_threshold2.  Each side sums the PAA terms
//    (paa_row_term) in its own order, and nvcc may fuse their multiply-adds;
//    the proof in motifs.cpp covers any order and either rounding, so pruning
//    never changes a result (only how many exact distances are computed).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "hd.h"
#include "rawdist_detail.h"

namespace tsm {
namespace motif {

// ---- window statistics --------------------------------------------------------

// Mean, 1/σ (0 when constant) and the constant flag of the window w[0 .. m−1].
TSM_HD void window_zstat(const double* w, int m, double* mean, double* inv, uint8_t* constant) {
    const double md = (double)m, w0 = w[0];
    double s = 0;
    bool all_equal = true;
    for (int k = 0; k < m; ++k) {
        s = hd::add(s, w[k]);
        all_equal = all_equal && (w[k] == w0);
    }
    if (!(hd::sub(s, s) == 0.0)) {  // a gap: s is NaN or infinite (finite values cannot overflow it)
        *mean = 0.0;
        *inv = hd::from_bits(0x7FF8000000000000ull);
        *constant = 0;
        return;
    }
    const double mu0 = hd::div(s, md);
    double d = 0, q = 0;
    for (int k = 0; k < m; ++k) {
        const double t = hd::sub(w[k], mu0);
        d = hd::add(d, t);
        q = hd::add(q, hd::mul(t, t));
    }
    const double mu = hd::add(mu0, hd::div(d, md));
    const double var = hd::div(hd::sub(q, hd::div(hd::mul(d, d), md)), md);
    const double sd = var > 0 ? hd::sqrt(var) : 0.0;
    const bool cst = all_equal || !(sd > 0);
    *mean = all_equal ? w0 : mu;
    *inv = cst ? 0.0 : hd::div(1.0, sd);
    *constant = cst;
}

// A window that holds a gap (window_zstat's mark).
TSM_HD bool gap_window(double inv) { return inv != inv; }

// ---- the distance -----------------------------------------------------------------

constexpr int kLanes = 32;          // lanes of the distance's accumulation (a warp)
constexpr int kAbandonEvery = 128;  // values between two checks of the bounded distance

// A z-normalised value, as the distance and the PAA use it.
TSM_HD double z_value(double v, double mean, double inv) { return hd::mul(hd::sub(v, mean), inv); }

// δ of one element: ẑa − ẑb.
TSM_HD double z_difference(double a, double mua, double inva, double b, double mub, double invb) {
    return hd::sub(z_value(a, mua, inva), z_value(b, mub, invb));
}

// One element into its lane's sums: s += δ, q += δ².
TSM_HD void lane_add(double& s, double& q, double delta) {
    s = hd::add(s, delta);
    q = hd::add(q, hd::mul(delta, delta));
}

// One step of the halving tree: the other lane's sums into this lane's.
TSM_HD void lane_merge(double& s, double& q, double s_other, double q_other) {
    s = hd::add(s, s_other);
    q = hd::add(q, q_other);
}

// STUMPY's rule for a pair with a constant window (ca || cb).
TSM_HD double constant_pair_distance(bool ca, bool cb, int m) { return (ca && cb) ? 0.0 : hd::sqrt((double)m); }

// Whether the bounded distance checks its prefix after the first p values (p a multiple of kLanes).
TSM_HD bool abandon_point(int p, int m) { return p % kAbandonEvery == 0 && p < m; }

// The prefix bound of d² after p values (merged sums s, q): d² ≥ q − s²/p, as
// the prefix's own mean minimises Σ(δ − c)² over its p values.
TSM_HD bool prefix_bound_exceeds(double s, double q, int p, double lim2) {
    return hd::sub(q, hd::div(hd::mul(s, s), (double)p)) > lim2;
}

// d from the merged sums of all m values.
TSM_HD double distance_from_sums(double s, double q, int m) {
    const double d2 = hd::sub(q, hd::div(hd::mul(s, s), (double)m));
    return d2 > 0 ? hd::sqrt(d2) : 0.0;
}

// The square of bsf + slack, the bounded distance's lim2 (+inf without a bsf).
TSM_HD double abandon_limit2(double bsf, double slack) {
    const double lim = hd::add(bsf, slack);
    return hd::mul(lim, lim);
}

// ---- pairs: order, eligibility, the best so far --------------------------------

// The pair order every method uses: distance, then a, then b.
TSM_HD bool pair_less(double d1, int64_t a1, int64_t b1, double d2, int64_t a2, int64_t b2) {
    if (d1 != d2) return d1 < d2;
    if (a1 != a2) return a1 < a2;
    return b1 < b2;
}

// Windows p and q are far enough apart to pair (|p − q| ≥ excl).
TSM_HD bool far_enough(int64_t p, int64_t q, int64_t excl) {
    const int64_t d = p - q;
    return (d < 0 ? -d : d) >= excl;
}

// Windows p and q may pair now: neither is blocked by a chosen pair, and they are far enough apart.
TSM_HD bool pair_allowed(int64_t p, int64_t q, const uint8_t* blocked, int64_t excl) {
    return !blocked[p] && !blocked[q] && far_enough(p, q, excl);
}

// The best pair so far by pair_less (a < b; a = −1 while there is none).
struct BestPair {
    double d = INFINITY;
    int64_t a = -1, b = -1;
    TSM_HD void offer(double dist, int64_t p, int64_t q) {
        const int64_t lo = p < q ? p : q, hi = p < q ? q : p;
        if (a < 0 || pair_less(dist, lo, hi, d, a, b)) {
            d = dist;
            a = lo;
            b = hi;
        }
    }
};

// The GPU keeps its best pair as two words lowered by atomic minima: first the
// distance's ordered_bits, then, among pairs at that distance,
// pair_code(a, b) = (a << 32) | b (positions < 2^31): together pair_less's order.
// The bits of a non-negative double, which order like its value.
TSM_HD uint64_t ordered_bits(double d) { return hd::bits_of(d); }
TSM_HD double from_ordered_bits(uint64_t bits) { return hd::from_bits(bits); }
TSM_HD uint64_t pair_code(int64_t a, int64_t b) { return ((uint64_t)a << 32) | (uint64_t)b; }
TSM_HD int64_t pair_code_a(uint64_t code) { return (int64_t)(code >> 32); }
TSM_HD int64_t pair_code_b(uint64_t code) { return (int64_t)(code & 0xffffffffull); }

// The nearer of two candidates (d1, j1), (d2, j2) for a window's nearest
// neighbour: the smaller distance, then the smaller index; j < 0 is no candidate.
TSM_HD bool nearer(double d1, int64_t j1, double d2, int64_t j2) {
    if (j1 < 0) return false;
    if (j2 < 0) return true;
    return d1 < d2 || (d1 == d2 && j1 < j2);
}

// ---- motifs from a matrix profile (host) ------------------------------------------

// How far the matrix profile's choice of a neighbour may fall short of the
// best one, in correlation ρ = 1 − d²/2m: its guard keeps the winner's ρ
// within 25/4·τ + 9e−13 of the best (τ = mp::kGuardTol = 2^−30, mp_detail.h:
// the co-moments and the statistics' σ of both pairs), and 2^-27 = 8τ leaves
// room for the roundings of the two distances' definitions.
constexpr double kProfileRhoTolerance = 0x1p-27;

// A lower bound of window i's exact best distance from u = d(i, the profile's
// neighbour): d_best² ≥ u² − 2m·kProfileRhoTolerance (made a little smaller
// still, for the rounding of this formula).
inline double profile_lower_bound(double u, int m) {
    const double d2 = u * u * (1.0 - 0x1p-40) - 2.0 * m * kProfileRhoTolerance;
    return d2 > 0 ? std::sqrt(d2) : 0.0;
}

// ---- raw values (normalized => false) ----------------------------------------------
//
// The raw Euclidean distance of two windows of the scaled series (unit_scaled:
// x·2^e1, the matrix profile's first rescaling): sqrt of rawdist_detail.h's
// sum, the arithmetic of the profile's own distances, so the profile, the
// discords' ranking, the motifs and match compute the same bits (on the GPU
// by a warp: warp_raw_sumsq); callers scale it back by 2^−e1.  +inf once the
// sum is known to exceed lim2.  Constant windows are ordinary windows.  A
// window with a gap makes the sum NaN or +inf: its distance is +inf, as in
// the z-normalised distance (raw_distance_of, shared with the GPU's warp sum).
TSM_HD double raw_distance_of(double sumsq) { return sumsq == sumsq ? hd::sqrt(sumsq) : (double)INFINITY; }
TSM_HD double raw_distance_bounded(const double* a, const double* b, int m, double lim2) {
    return raw_distance_of(rawd::sumsq_bounded(a, b, m, 0, lim2));
}

// A lower bound of window i's exact best raw distance from u = d(i, the raw
// profile's neighbour) and N_i = sqrt(Σ(x − μ_i)²).  The profile orders pairs
// by its d², within 2^-24·(N_i + N_j + d)² of the exact one (the guard's
// 2τ·N_i·N_j, the window statistics' 2^-30 relative, the tie floor, at
// most 2^-39·max(N_i², N_j²)), to a key quantum of 2^-20 of d² at most; and
// N_j ≤ N_i + d for the neighbour and for the best window alike
// (‖(a − μ_a) − (b − μ_b)‖ ≤ ‖a − b‖).  So d_best² ≥ u² − 2^-19·(N_i + u)².
inline double raw_profile_lower_bound(double u, double norm_i) {
    const double t = norm_i + u;
    const double d2 = u * u - 0x1p-19 * t * t;
    return d2 > 0 ? std::sqrt(d2) * (1.0 - 0x1p-40) : 0.0;
}

// ---- MK: pruning thresholds (host, both paths) ------------------------------------

// Pruning slack: lower bounds are compared in float; a pair is pruned only
// when its bound exceeds bsf + slack, which covers every rounding error of the
// bounds (z-normalised distances are at most 2·sqrt(m)).
inline double pruning_slack(int m) { return 1e-6 * (1.0 + 2.0 * std::sqrt((double)m)); }

// Slack of the PAA bounds, given zmax = max over windows of ||ẑ|| (proof in motifs.cpp).
inline double paa_slack(int m, double zmax) {
    const double sm = std::sqrt((double)m), Z = zmax > sm ? zmax : sm;
    return pruning_slack(m) * (Z / sm) + (zmax > sm ? zmax - sm : 0.0);
}

// The smallest float >= bsf + slack (+inf without a bsf): bounds above it prune.
inline float prune_threshold(double bsf, double slack) {
    if (!std::isfinite(bsf)) return std::numeric_limits<float>::infinity();
    return std::nextafter((float)(bsf + slack), std::numeric_limits<float>::infinity());
}

// The smallest float >= (bsf + slack)² / (1 − 1e-5): squared PAA bounds above
// it prune (the factor covers the float rounding of the PAA rows and of their
// sum; proof in motifs.cpp).
inline float prune_threshold2(double bsf, double slack) {
    if (!std::isfinite(bsf)) return std::numeric_limits<float>::infinity();
    const double t = bsf + slack;
    return std::nextafter((float)(t * t / (1.0 - 1e-5)), std::numeric_limits<float>::infinity());
}

// The scan's three thresholds at one bsf: the key gap, the PAA partial sums, the references.
struct ScanThresholds {
    float key, paa2, refs;
};

// ---- MK: the reference rows' spreads ----------------------------------------------

// A reference's distances are summed in kSpreadLanes lanes (lane t: the values
// j ≡ t mod kSpreadLanes, ascending j), the lanes combined by the halving tree
// (spread_tree_step for w = kSpreadLanes/2 .. 1, t < w): first the values, for
// the mean, then their squared deviations.
constexpr int kSpreadLanes = 1024;
TSM_HD void spread_add(double& lane, double v) { lane = hd::add(lane, v); }
TSM_HD void spread_add_sqdev(double& lane, double v, double mean) {
    const double t = hd::sub(v, mean);
    lane = hd::add(lane, hd::mul(t, t));
}
TSM_HD void spread_tree_step(double* lanes, int t, int w) { lanes[t] = hd::add(lanes[t], lanes[t + w]); }
TSM_HD double spread_mean(double total, int64_t count) { return hd::div(total, (double)count); }
TSM_HD double spread_sd(double sqdev_total, int64_t count) { return hd::sqrt(hd::div(sqdev_total, (double)count)); }

// ---- MK: the PAA bound ---------------------------------------------------------------
//
// A window's ẑ (the zero vector for a constant window) projected on W
// orthonormal piecewise-constant vectors (segment s = [s·m/W, (s+1)·m/W),
// W = min(m, kPaaSegments)), the constant direction taken out, then rotated to
// principal axes: for any two windows Σ_k (y_k(a) − y_k(b))² ≤ d(a, b)²
// (Bessel's inequality; motifs.cpp).

constexpr int kPaaSegments = 32;
constexpr int kRowHead = 8;             // per position: the key and the next seven PAA rows
constexpr int64_t kAxesSumBlock = 4096;  // sampled windows per block of the principal axes' sums

TSM_HD int paa_count(int m) { return m < kPaaSegments ? m : kPaaSegments; }

// Windows sampled for the principal axes: every axes_sample_stride(N)-th (at most 65536).
TSM_HD int64_t axes_sample_stride(int64_t N) { return N > 65536 ? (N + 65535) / 65536 : 1; }

// Segment s of W over m values: [lo, hi).
TSM_HD void paa_segment(int s, int m, int W, int& lo, int& hi) {
    lo = (int)((int64_t)s * m / W);
    hi = (int)((int64_t)(s + 1) * m / W);
}

// c[s·stride], s < W: Σ_{k∈s} ẑ_k / sqrt(len_s) − sqrt(len_s)·Σ_k ẑ_k / m;
// *norm2 = Σ_k ẑ_k² (0 for a constant window).
TSM_HD void window_paa(const double* w, int m, double mean, double inv, bool constant, int W, double* c,
                       int64_t stride, double* norm2) {
    if (constant) {
        for (int s = 0; s < W; ++s) c[s * stride] = 0.0;
        *norm2 = 0.0;
        return;
    }
    double total = 0, q = 0;
    for (int s = 0; s < W; ++s) {
        int lo, hi;
        paa_segment(s, m, W, lo, hi);
        double seg = 0;
        for (int k = lo; k < hi; ++k) {
            const double z = z_value(w[k], mean, inv);
            seg = hd::add(seg, z);
            q = hd::add(q, hd::mul(z, z));
        }
        total = hd::add(total, seg);
        c[s * stride] = seg;
    }
    const double zbar = hd::div(total, (double)m);
    for (int s = 0; s < W; ++s) {
        int lo, hi;
        paa_segment(s, m, W, lo, hi);
        const double r = hd::sqrt((double)(hi - lo));
        c[s * stride] = hd::sub(hd::div(c[s * stride], r), hd::mul(r, zbar));
    }
    *norm2 = q;
}

// The moment sums of the coefficients over the sampled windows, W + W² values
// per block: sum[a] (b < 0) and sumsq[a·W + b], each accumulated window by
// window in sample order.  Element e of a block: e < W is sum[e], else sumsq.
TSM_HD double paa_moment_add(double acc, const double* c, int a, int b) {
    return b < 0 ? hd::add(acc, c[a]) : hd::add(acc, hd::mul(c[a], c[b]));
}
TSM_HD void paa_moment_element(int e, int W, int& a, int& b) {
    if (e < W) {
        a = e;
        b = -1;
    } else {
        a = (e - W) / W;
        b = (e - W) % W;
    }
}

// Coordinate k of a window along the principal axes V (W × W, column k = axis k):
// Σ_a V[a·W + k]·c[a·stride].
TSM_HD double paa_axis(const double* V, int W, int k, const double* c, int64_t stride) {
    double y = 0;
    for (int a = 0; a < W; ++a) y = hd::add(y, hd::mul(V[a * W + k], c[a * stride]));
    return y;
}

// The key that orders the windows: axis 0 of the PAA, or reference r0's
// distances, whichever spreads more (ties: the reference).  r0: the reference
// with the largest spread (ties: the first).
TSM_HD bool choose_key(const double* ref_sd, int n_refs, double var0, int* r0) {
    int best = 0;
    for (int r = 1; r < n_refs; ++r)
        if (ref_sd[r] > ref_sd[best]) best = r;
    *r0 = best;
    return hd::sqrt(var0) > ref_sd[best];
}

// What window_key and window_rows read and write: C (W × N, C[a·N + p]: the
// PAA coefficients), D (n_refs × N: the reference distances), V (the axes); Y
// (W × N) and Dp (n_refs × N): the rows by linear position, float.
struct RowsLayout {
    const double* C;
    const double* D;
    const double* V;
    int64_t N;
    int W, n_refs, r0;
    bool key_paa;
    float* Y;
    float* Dp;
};

TSM_HD double window_key(const RowsLayout& L, int64_t p) {
    return L.key_paa ? paa_axis(L.V, L.W, 0, L.C + p, L.N) : L.D[(int64_t)L.r0 * L.N + p];
}

// The rows of window p at linear position i (key: its window_key): Y[k·N + i]
// (axis k; axis 0 is the key itself when the key is axis 0), Dp[r·N + i], and
// head = (key, Y[k0] .. Y[k0 + 6]) with k0 the first axis after the key (0
// past the last axis).
TSM_HD void window_rows(const RowsLayout& L, int64_t p, int64_t i, double key, float* head) {
    const int k0 = L.key_paa ? 1 : 0;
    const float key_row = (float)key;
    double c[kPaaSegments];
    for (int a = 0; a < L.W; ++a) c[a] = L.C[a * L.N + p];
    head[0] = key_row;
    for (int h = 1; h < kRowHead; ++h) head[h] = 0.0f;
    for (int k = 0; k < L.W; ++k) {
        const float f = (k == 0 && L.key_paa) ? key_row : (float)paa_axis(L.V, L.W, k, c, 1);
        L.Y[k * L.N + i] = f;
        if (k >= k0 && k < k0 + kRowHead - 1) head[1 + k - k0] = f;
    }
    for (int r = 0; r < L.n_refs; ++r) L.Dp[(int64_t)r * L.N + i] = (float)L.D[(int64_t)r * L.N + p];
}

// One PAA row's term of the squared bound, float: (y_j − y_i)².
TSM_HD float paa_row_term(float yj, float yi) {
    const float d = yj - yi;
    return d * d;
}

// The reference bound |D(r, j) − D(r, i)| exceeds the threshold.
TSM_HD bool ref_gap_exceeds(float dj, float di, float thr) { return fabsf(dj - di) > thr; }

// ---- MK: the stopping rule (host, both paths) -------------------------------------
//
// Offsets are scanned in chunks; after the chunk of ce offsets o0 .. o0 + ce − 1,
// min_gap(oo) (0 <= oo < ce) may exceed the threshold only if every gap of
// the ordering key at offset o0 + oo does (the minimum over all positions, or
// a lower bound of it), and bsf is the best distance so far.  The first offset
// whose min_gap exceeds prune_threshold(bsf, slack) ends the run: no pair at it
// or beyond can beat bsf (the gap grows with the offset); then last = that
// offset and true is returned.  Otherwise the loop moves past the chunk
// (o0 += ce, last = o0 − 1) and false is returned.  offsets counts the offsets
// scanned either way.
template <class MinGap>
bool chunk_stops(double bsf, double slack, int64_t ce, MinGap&& min_gap, int64_t& o0, int64_t& last,
                 int64_t& offsets) {
    const float thr = prune_threshold(bsf, slack);
    for (int64_t oo = 0; oo < ce; ++oo) {
        if (min_gap(oo) > thr) {
            last = o0 + oo;
            offsets += oo + 1;
            return true;
        }
    }
    offsets += ce;
    o0 += ce;
    last = o0 - 1;
    return false;
}

}  // namespace motif
}  // namespace tsm

// ---- the device side: warp-level forms and launch helpers (kernels/motifs.cu, kernels/match.cu)
#ifdef __CUDACC__
#include "gpu_runtime.h"

namespace tsm {
namespace motif {

constexpr unsigned kFullMask = 0xffffffffu;

// The lane sums of a warp combined by the butterfly: every lane ends with the
// halving tree's value (lane 0's additions are the tree's, and at each step
// a lane pair adds the same two values, a + b = b + a exactly).
__device__ __forceinline__ void warp_merge_lanes(double& s, double& q) {
    for (int off = kLanes / 2; off > 0; off >>= 1)
        lane_merge(s, q, __shfl_xor_sync(kFullMask, s, off), __shfl_xor_sync(kFullMask, q, off));
}

// The distance by a whole warp (every lane calls it with the same arguments,
// lim2 warp-uniform); every lane gets the result.  Lane l takes elements l,
// l + 32, ...; +inf once the prefix bound exceeds lim2 (see above).
__device__ __forceinline__ double warp_zdist(const double* __restrict__ a, double mua, double inva, bool ca,
                                             const double* __restrict__ b, double mub, double invb, bool cb,
                                             int m, int lane, double lim2 = (double)INFINITY) {
    if (gap_window(inva) || gap_window(invb)) return (double)INFINITY;
    if (ca || cb) return constant_pair_distance(ca, cb, m);
    const bool bounded = lim2 < (double)INFINITY;
    double s = 0, q = 0;
    for (int base = 0; base < m; base += kLanes) {
        const int k = base + lane;
        if (k < m) lane_add(s, q, z_difference(a[k], mua, inva, b[k], mub, invb));
        const int p = base + kLanes;
        if (bounded && abandon_point(p, m)) {
            double sp = s, qp = q;
            warp_merge_lanes(sp, qp);
            if (prefix_bound_exceeds(sp, qp, p, lim2)) return (double)INFINITY;
        }
    }
    warp_merge_lanes(s, q);
    return distance_from_sums(s, q, m);
}

// rawd::sumsq_bounded(a, b, m, 0, lim2) by a whole warp (as warp_zdist: every
// lane calls it alike and gets the result; lane l sums elements l, l + 32, ...).
__device__ __forceinline__ double warp_raw_sumsq(const double* __restrict__ a, const double* __restrict__ b, int m,
                                                 int lane, double lim2 = (double)INFINITY) {
    const bool bounded = lim2 < (double)INFINITY;
    double s = 0, q = 0;  // s stays 0: warp_merge_lanes' first sum is unused here
    for (int base = 0; base < m; base += kLanes) {
        const int k = base + lane;
        if (k < m) q = hd::add_sq_diff(q, a[k], b[k]);
        if (bounded && rawd::abandon_point(base + kLanes, m)) {
            double sp = s, qp = q;
            warp_merge_lanes(sp, qp);
            if (qp > lim2) return (double)INFINITY;
        }
    }
    warp_merge_lanes(s, q);
    return q;
}

// Statistics of every window: a thread per window.
static __global__ void k_window_zstats(const double* __restrict__ x, int64_t N, int m, double* mean, double* inv,
                                       uint8_t* constant) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < N; i += (int64_t)gridDim.x * blockDim.x)
        window_zstat(x + i, m, &mean[i], &inv[i], &constant[i]);
}

// x[i]·2^e in place (unit_scaled's arithmetic, frames::times_pow2_up: the same bits).
static __global__ void k_scale(double* x, int64_t n, int e) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        x[i] = frames::times_pow2_up(x[i], e);
}

// Blocks of `threads` for `items` grid-stride items (at most cap).
inline unsigned grid_for(int64_t items, int threads, unsigned cap = 1u << 20) {
    int64_t g = (items + threads - 1) / threads;
    if (g < 1) g = 1;
    return (unsigned)(g > (int64_t)cap ? cap : g);
}

inline void launched(const char* what) { gpu::check(cudaGetLastError(), what); }

}  // namespace motif
}  // namespace tsm
#endif  // __CUDACC__
