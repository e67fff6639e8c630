// mp_detail.h — the arithmetic of the matrix profile that the CPU path
// (matrix_profile.cpp) and the GPU path (kernels/matrix_profile.cu) share, so
// that both compute bit-identical correlations and pick identical neighbours.
//
// Everything here is inline and, under nvcc, __host__ __device__.
//
// Conventions (documented once, here):
//  * Data: x' = x − c, c the midrange of x (removes a large offset exactly for
//    ordinary data: x − c is exact when x and c are within a factor of 2).
//    μ_i, σ_i from tsm::window_stats(x') (the same chunks, sliding_detail.h);
//    constant flags from x itself; a constant window gets μ_i = x'[i], 1/σ = 0.
//    The preparation (prepare_chunk, prepare_window) runs on the host for the
//    CPU path and on the device for the GPU path, with the same bits.
//  * Co-moment of windows i and j (comoment_detail.h): computed directly at
//    the first row of every segment of kSegRows rows of a diagonal (rows
//    r ≡ 0 mod kSegRows), and between them with the exact recurrence.
//    ρ/4 + off = fma(C · inv_norm_i, inv_norm_j / 4, off) (sweep_v; the key
//    needs only this value), inv_norm = 1/sqrt(Σ(x'−μ)²) (0 for a constant
//    window: such pairs get ρ = 0 in the sweep and are then fixed by the
//    STUMPY rule, see finalize_one).
//  * Selection: every comparison of candidates uses a 64-bit key
//        key(ρ, idx) = (Q(ρ) << B) | (LOW − idx),  LOW = 2^B − 1 > windows,
//    Q(ρ) = the top 42 mantissa bits of ρ/4 + (1.5 − 2^-43) (fewer when
//    n > 2^21: 63 − B), i.e. ρ is compared to a quantum of 4·2^-42 ≈ 9e-13
//    (below the recurrence's own rounding noise in d: Δd² = 2m·9e-13), and
//    among equal quantised ρ the smaller index wins (see KeyCodec).
//    Keys form a total order, so the maximum does not depend on the order of
//    reduction: CPU threads, GPU warps and global atomics give the same winner.
//  * Distance: recomputed for the winning pair directly from z-normalised
//    values, d² = Σ_t (z_i[t] − z_j[t])², in float64 — exact to rounding, also
//    near d = 0 where sqrt(2m(1 − ρ)) would lose digits.
//  * Constant windows (STUMPY): both constant → 0; one constant → sqrt(m).
//    For a constant window i its neighbour is the smallest admissible constant
//    window j if there is one, otherwise the smallest admissible window.
//    A non-constant window i also sees the smallest admissible constant window
//    as a candidate with ρ = 1/2 (d = sqrt(m)).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "comoment_detail.h"
#include "hd.h"
#include "sliding_detail.h"

namespace tsm {
namespace mp {

// Rows per segment: the co-moment of every diagonal is recomputed directly at
// rows r = s·kSegRows.  The same on CPU and GPU (it decides the rounding).
constexpr int64_t kSegRows = 8192;

// ρ quantum: ρ/4 + off is kept to kKeptBits mantissa bits (fewer when the
// index needs more than 63 − kKeptBits bits), i.e. ρ to 4·2^-kKeptBits ≈ 9e-13.
// off = 1.5 − q/2 centres a quantum on ρ = 1, so exact repeats whose computed
// ρ differ by rounding (1 ± 1e-14) fall into one quantum and the smaller index wins.
constexpr int kKeptBits = 42;

struct KeyCodec {
    int bits = 1;             // B: index bits
    int shift = 10;           // 52 − kept mantissa bits
    uint64_t low = 1;         // 2^B − 1
    double off = 1.5;         // 1.5 − 2^−(kept+1)
};

inline KeyCodec make_codec(int64_t windows) {
    KeyCodec c;
    int b = 1;
    while ((int64_t(1) << b) <= windows) ++b;  // 2^B > windows ⇒ LOW − idx ≥ 1
    int kept = b + kKeptBits <= 63 ? kKeptBits : 63 - b;
    c.bits = b;
    c.shift = 52 - kept;
    c.low = (uint64_t(1) << b) - 1;
    c.off = 1.5 - std::ldexp(1.0, -(kept + 1));
    return c;
}

// The ρ part of a key (low B bits zero).  v = ρ/4 + off lies in [1, 2) for
// |ρ| < 1.9, where the bit pattern of v is monotone in v.
TSM_HD uint64_t rho_core(double rho, const KeyCodec& c) {
#ifdef __CUDA_ARCH__
    double v = __fma_rn(rho, 0.25, c.off);
    uint64_t b = (uint64_t)__double_as_longlong(v);
#else
    double v = rho * 0.25 + c.off;  // ρ·0.25 is exact, so this equals fma(ρ, 0.25, off)
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
#endif
    return ((b & 0xFFFFFFFFFFFFFull) >> c.shift) << c.bits;
}

// The ρ part of a key from v = ρ/4 + off already computed (its bit pattern).
TSM_HD uint64_t v_core(double v, const KeyCodec& c) {
#ifdef __CUDA_ARCH__
    uint64_t b = (uint64_t)__double_as_longlong(v);
#else
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
#endif
    return ((b & 0xFFFFFFFFFFFFFull) >> c.shift) << c.bits;
}

// v = ρ/4 + off of the sweep's pair (row i, column j) from the co-moment C:
// v = fma(C · inv_norm_i, inv_norm_j / 4, off)  (inv4_j = inv_norm_j / 4, exact).
// One rounding fewer than fma((C·inv_i)·inv_j, 1/4, off), and one operation
// fewer per pair; CPU and GPU both use this form, so their keys are identical.
TSM_HD double sweep_v(double cov, double inv_i, double inv4_j, double off) {
#ifdef __CUDA_ARCH__
    return __fma_rn(__dmul_rn(cov, inv_i), inv4_j, off);
#else
    return std::fma(cov * inv_i, inv4_j, off);
#endif
}

TSM_HD uint64_t make_key(double rho, int64_t idx, const KeyCodec& c) {
    return rho_core(rho, c) | (c.low - (uint64_t)idx);
}

TSM_HD int64_t key_index(uint64_t key, uint64_t low) {
    return (int64_t)(low - (key & low));
}

// Exact z-normalised distance of two non-constant windows.
TSM_HD double direct_distance(const double* xs, int64_t i, int64_t j, int m, double mu_i,
                              double is_i, double mu_j, double is_j) {
    double s = 0;
    for (int t = 0; t < m; ++t) {
        double a = (xs[i + t] - mu_i) * is_i;
        double b = (xs[j + t] - mu_j) * is_j;
        double d = a - b;
        s += d * d;
    }
    return sqrt(s);
}

// ---- preparation (host: matrix_profile.cpp; device: kernels/matrix_profile.cu)

// c = midrange of the series (lo, hi: its minimum and maximum).
TSM_HD double midrange(double lo, double hi) { return hd::add(hd::mul(0.5, lo), hd::mul(0.5, hi)); }

// Windows [i0, i1) of one stats chunk (i0 a multiple of kStatsChunk): μ and
// 1/σ of x' = x − c, constant flags of x, and the constant override.
TSM_HD void prepare_chunk(const double* x, const double* xs, int m, int64_t i0, int64_t i1, double* mu,
                          double* inv_std, uint8_t* constant) {
    detail::window_stats_chunk(xs, m, i0, i1, mu, nullptr, inv_std, constant);  // constant: scratch here
    detail::constant_chunk(x, m, i0, i1, constant);
    for (int64_t i = i0; i < i1; ++i)
        if (constant[i]) {
            mu[i] = xs[i];  // exact centre: x' − μ = 0 for a constant window
            inv_std[i] = 0;
        }
}

// Per-window factors of window i (after prepare_chunk of every window):
// inv_norm = (1/σ)/sqrt(m), inv4 = inv_norm/4, and the recurrence's df, dg.
TSM_HD void prepare_window(const double* xs, const double* mu, const double* inv_std, int m, double rsm,
                           int64_t i, double* inv_norm, double* inv4, double* df, double* dg) {
    const double in = hd::mul(inv_std[i], rsm);
    inv_norm[i] = in;
    inv4[i] = hd::mul(in, 0.25);  // exact
    if (i == 0) {
        df[0] = dg[0] = 0.0;
        return;
    }
    recurrence_terms(xs, mu, m, i, &df[i], &dg[i]);
}

// What the sweep leaves for window p (best key, 0 = no candidate), turned into
// the final (distance, index) with the STUMPY rule for constant windows.
//   next_const[q]: smallest constant window ≥ q (count when none), for q in [0, count]
//   first_const:   smallest constant window (count when none)
struct FinalizeArgs {
    const double* xs;
    const double* mu;
    const double* inv_std;
    const uint8_t* constant;
    const int64_t* next_const;
    int64_t first_const;
    int64_t count;
    int64_t excl;
    int m;
    KeyCodec codec;
};

TSM_HD void finalize_one(const FinalizeArgs& a, int64_t p, uint64_t key, double* dist, int64_t* index) {
    // smallest admissible constant window j (|p − j| ≥ excl), and smallest admissible window
    int64_t cst = -1, any = -1;
    if (p - a.excl >= 0) {
        any = 0;
        if (a.first_const <= p - a.excl) cst = a.first_const;
    } else if (p + a.excl < a.count) {
        any = p + a.excl;
    }
    if (cst < 0 && p + a.excl < a.count) {
        int64_t q = a.next_const[p + a.excl];
        if (q < a.count) cst = q;
    }
    if (any < 0) {  // no admissible neighbour at all
        *dist = INFINITY;
        *index = -1;
        return;
    }
    if (a.constant[p]) {
        if (cst >= 0) {
            *dist = 0.0;
            *index = cst;
        } else {
            *dist = sqrt((double)a.m);
            *index = any;
        }
        return;
    }
    if (cst >= 0) {
        uint64_t k2 = make_key(0.5, cst, a.codec);
        if (k2 > key) key = k2;
    }
    int64_t j = key_index(key, a.codec.low);
    *index = j;
    if (a.constant[j]) {
        *dist = sqrt((double)a.m);
    } else {
        *dist = direct_distance(a.xs, p, j, a.m, a.mu[p], a.inv_std[p], a.mu[j], a.inv_std[j]);
    }
}

}  // namespace mp
}  // namespace tsm
