// mp_detail.h — the arithmetic of the matrix profile that the CPU path
// (matrix_profile.cpp) and the GPU path (kernels/matrix_profile.cu) share, so
// that both compute bit-identical correlations and pick identical neighbours.
//
// Everything here is inline and, under nvcc, __host__ __device__.
//
// Conventions (documented once, here):
//  * Data: xs = (x·2^e1 − c)·2^e2, an exact power-of-two rescaling of the
//    series centred on c (series_scale: the midrange, or the median of
//    samples when a few values stretch the range), so that no quantity below
//    can overflow or underflow and x and 2^k·x give the same bits (the
//    section "units and centre" says how).
//    μ_i, σ_i from the window statistics of xs (the same chunks,
//    sliding_detail.h, which restart where their rounding outgrows σ);
//    constant flags from x itself; a constant window gets μ_i = xs[i], 1/σ = 0.
//    The preparation (series_scale, prepare_chunk, prepare_window, the guard's
//    tables) runs on the host for the CPU path and on the device for the GPU
//    path, with the same bits.
//  * Co-moment of windows i and j (comoment_detail.h): computed directly at
//    the first row of every segment of R = segment_rows(count) rows of a
//    diagonal (rows r ≡ 0 mod R), and between them with the exact recurrence, under
//    the guard below.
//    ρ/4 + off = fma(C · inv_norm_i, inv_norm_j / 4, off) (sweep_v; the key
//    needs only this value), inv_norm = 1/sqrt(Σ(x'−μ)²) (0 for a constant
//    window: such pairs get ρ = 0 in the sweep and are then fixed by the
//    STUMPY rule, see finalize_one).
//  * The guard.  Each step of the recurrence rounds twice, by at most
//    u·(2|C| + 3|df||dg|) (u = 2^-53); a glitch makes those terms huge for the
//    m + 1 rows (and, on every diagonal, columns) whose windows or recurrence
//    terms hold it, and the rounding they leave would stay in C until the next
//    direct start, far above the small co-moments of the windows after it.  So
//    the sweep carries, per tile of kGuardRows rows × kGuardDiags diagonals
//    (aligned the same way on CPU and GPU), a bound on |C̃ − C| since the
//    diagonals' last direct co-moment, from per-window magnitudes
//    H_i = max(N_{i−1}, N_i, |df_i|, |dg_i|) (N_i = 1/inv_norm_i bounds |C| by
//    Cauchy–Schwarz) maximised over the tile's rows and columns (tables
//    computed once in the preparation): 2^-45·H_r·H_c per tile of steps (8u
//    a step: its two fma roundings, at most 5u·H_r·H_c, with room for the
//    rounding of the bound itself and the growth of the carried error; the
//    rounding of the terms df and dg, at most 10u·H_r·H_c more a step, first
//    order, is not counted, which makes the guarantee below 15/8·τ),
//    2(m+4)u·H_r·H_c for a direct co-moment.  A tile
//    whose bound would exceed τ·lo_r·lo_c (τ = kGuardTol = 2^-30, lo the
//    smallest norm of a non-flat window of its rows or columns) restarts from
//    direct co-moments of the row before it, or, when even that is not enough
//    (the glitch is inside the tile), computes every row directly
//    (guard_tile).  The decision is a function of the data alone, evaluated
//    per tile with the same function on CPU and GPU, so both restart at the
//    same rows and stay bit-identical.  Guarantee: every co-moment the sweep
//    turns into a key is within 15/8·τ·N_i·N_j of the co-moment of the two
//    windows about their stored means, i.e. its ρ within 15/8·τ (+2u),
//    wherever the glitches are, and within 25/8·τ of the pair's exact ρ with
//    the statistics' σ (within 2^-31 + 2^-33 relative wherever the glitches
//    are, one at a stats block's reference value included: sliding_detail.h).
//    The bound does not cover the recurrence's use of the stored means: means
//    off by e add |df_i|·|e_j + e_{j−1}| + |df_j|·|e_i + e_{i−1}| per step,
//    where e is the window statistics' rounding (about u·(|μ − ref| + σ)
//    a slide step since the last exact start, ref the slide's reference
//    value, |μ − ref| ≤ 2^19·σ: sliding_detail.h), independent roundings,
//    far below τ unless |μ − ref| is many thousand σ.  On ordinary data few
//    tiles come near the bound (random walks and Gaussian noise with m ≥ 10:
//    none but a few in 10^5; the ECG, respiration and power sets: with
//    m = 100 below 0.2% restart, with m = 30 about 1%, with m ≤ 10 up to
//    several per cent restart and a few per cent compute directly), so the
//    sweep runs as it always did.
//  * Selection: every comparison of candidates uses a 64-bit key
//        key(ρ, idx) = (Q(ρ) << B) | (LOW − idx),  LOW = 2^B − 1 > windows,
//    Q(ρ) = the top 42 mantissa bits of ρ/4 + (1.5 − 2^-43) (fewer when
//    n > 2^21: 63 − B), i.e. ρ is compared to a quantum of 4·2^-42 ≈ 9e-13,
//    and among equal quantised ρ the smaller index wins (see KeyCodec).
//    Keys form a total order, so the maximum does not depend on the order of
//    reduction: CPU threads, GPU warps and global atomics give the same winner,
//    and so do tiles and GPUs whose keys are merged by their maximum (a key
//    depends only on its pair and on where the pair's segment restarts the
//    recurrence, never on which tile or GPU swept it: matrix_profile.h).
//    With the guard: the winner's exact ρ is within 25/4·τ + 9e-13 of the
//    best one, so its d² = 2m(1 − ρ) exceeds the nearest neighbour's by at
//    most 2m·(25/4·2^-30 + 2^-40) ≈ 1.2e-8·m (in practice the sweep's ρ are
//    within 1e-13 and the winner is the nearest one to ~1e-12·m in d²).
//  * Distance: recomputed for the winning pair directly from z-normalised
//    values, d² = Σ_t (z_i[t] − z_j[t])², in float64 — exact to rounding (σ
//    within 2^-31 + 2^-33 relative, sliding_detail.h), also near d = 0 where
//    sqrt(2m(1 − ρ)) would lose digits.
//  * Raw values (normalized => false): the same sweep, recurrence, guard and
//    selection, with d² of the raw windows in place of ρ in the keys and the
//    winner's raw distance recomputed directly (the section "raw values"
//    below); constant windows are then ordinary windows.
//  * Constant windows (STUMPY): both constant → 0; one constant → sqrt(m).
//    For a constant window i its neighbour is the smallest admissible constant
//    window j if there is one, otherwise the smallest admissible window.
//    A non-constant window i also sees the smallest admissible constant window
//    as a candidate with ρ = 1/2 (d = sqrt(m)).
//  * AB-join (matrix_profile_ab): the rows are A's windows, the columns B's,
//    each series rescaled by its own series_scale (the z-normalised distance
//    of a window does not change under a positive affine map of its series,
//    and every bound of the guard is a product of a row and a column
//    magnitude, so it holds for any two scales).  The rectangle of pairs is
//    swept as two triangles-and-more: columns j = i + k of B for k ≥ excl
//    (rows A, only rows updated), and columns i = r + k of A for
//    k ≥ max(excl, 1) (rows B, only columns updated): every pair once, with
//    the self-join's segments, guard tiles and keys (the key's index is B's
//    window; the codec is that of the longer series).  With A = B and
//    excl ≥ 1 this computes every co-moment of the self-join with the same
//    operations, so both give the same profile bit for bit.  Raw values:
//    both series take one rescaling (joint_range: raw distances compare
//    values of A with values of B), the same as A's own when A = B.  Gaps in
//    either series: both are prepared with gap flags (mp::ab_gap_plans; none
//    set in a series without gaps), so the sweep's gap instantiation and
//    finalize_one (A's flags, B's next_ok) see both.
//  * Gaps (NaN, ±Infinity; a NULL arrives as NaN), as STUMPY: a window that
//    holds one is at infinite distance from everything, so it has no
//    distance, no neighbour, and is no one's neighbour.  The preparation then
//    works on the filled series (plan_gaps, matrix_profile.cpp: each gap
//    replaced by the last finite value before it, the first finite value for
//    leading gaps, 0 when none is finite), so every quantity stays finite,
//    the rescaling is that of the series' own values (a fill value is one of
//    them, never a spike) and the recurrence runs through the gaps as
//    through any value; per window, gap[i] says whether it holds one (a
//    prefix count of gaps; the GPU makes the same plan on the device, by
//    scans, with the same rules: filled_value, window_has_gap).  After the guard's tables (their H covers the
//    filled windows, their lo ignores flagged ones), mark_gap_window sets
//    inv_norm = inv4 = NaN and clears the constant flag of a flagged window:
//    every v = ρ/4 + off of a pair with it is NaN, which the GPU's
//    comparisons drop (a NaN never wins) and the CPU's gap sweep drops
//    (gap_pair), so no key names it and no row of it gets one; a flagged
//    window is neither constant nor anyone's candidate in finalize_one.  Raw
//    values: inv4 holds σ², so raw_d's s is NaN and raw_d returns NaN for
//    every pair with a flagged window, dropped the same ways (the CPU's raw
//    gap sweep by gap_mask_raw; finalize_raw sees key 0 for such a row).  A
//    series without gaps takes none of these steps: the same bits as before.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "comoment_detail.h"
#include "frame_detail.h"
#include "hd.h"
#include "rawdist_detail.h"
#include "sliding_detail.h"

namespace tsm {
namespace mp {

// Rows per segment: the co-moment of every diagonal is recomputed directly at
// rows r = s·R, R = segment_rows(count) for a sweep whose rows are `count`
// windows.  The same on CPU and GPU (it decides the rounding).  A task walks
// its segment's rows one after the other, so a short series needs short
// segments to give the GPU more tasks than a few long ones (TEK16's 4,873
// rows in one segment: about 20 warps, each up to 4,841 rows, bench/RESULTS.md):
// the largest power of two ≤ count/8 within [kMinSegRows, kSegRows], so every
// series of 2^16 windows or more has segments of kSegRows rows.  (Shorter
// segments, count/16 or count/32, made the GPU's power demand, 34,529
// windows at m = 512, 10% faster but the CPU's sweeps of nprs44, power
// demand and ECG 15-45% slower: a restart costs m products per diagonal,
// and the rows must be the same on both paths; bench/RESULTS.md.)
constexpr int64_t kSegRows = 8192, kMinSegRows = 512;
TSM_HD int64_t segment_rows(int64_t count) {
    int64_t r = kMinSegRows;
    while (r < kSegRows && 2 * r <= count / 8) r *= 2;
    return r;
}

// ρ quantum: ρ/4 + off is kept to kKeptBits mantissa bits (fewer when the
// index needs more than 63 − kKeptBits bits), i.e. ρ to 4·2^-kKeptBits ≈ 9e-13.
// off = 1.5 − q/2 centres a quantum on ρ = 1, so exact repeats whose computed
// ρ differ by rounding (1 ± 1e-14) fall into one quantum and the smaller index wins.
constexpr int kKeptBits = 42;

struct KeyCodec {
    int bits = 1;             // B: index bits
    int shift = 10;           // 52 − kept mantissa bits (raw: max(B, 10))
    uint64_t low = 1;         // 2^B − 1
    double off = 1.5;         // 1.5 − 2^−(kept+1)
    bool raw = false;         // raw-value distances (normalized => false, "Raw values" below)
    double cterm = 0;         // raw: −2/m, the co-moment's factor in d²/m
};

inline KeyCodec make_codec(int64_t windows, bool raw = false, int m = 1) {
    KeyCodec c;
    int b = 1;
    while ((int64_t(1) << b) <= windows) ++b;  // 2^B > windows ⇒ LOW − idx ≥ 1
    int kept = b + kKeptBits <= 63 ? kKeptBits : 63 - b;
    c.bits = b;
    c.shift = 52 - kept;
    c.low = (uint64_t(1) << b) - 1;
    c.off = 1.5 - std::ldexp(1.0, -(kept + 1));
    if (raw) {
        c.raw = true;
        c.shift = b > 10 ? b : 10;  // (kRawTop − bits) >> shift << B < 2^63; ≥ 10 low bits for the GPU's tags
        c.cterm = -2.0 / (double)m;
    }
    return c;
}

// The ρ part of a key (low B bits zero).  v = ρ/4 + off lies in [1, 2) for
// |ρ| < 1.9, where the bit pattern of v is monotone in v.
TSM_HD uint64_t rho_core(double rho, const KeyCodec& c) {
#ifdef __CUDA_ARCH__
    const double v = __fma_rn(rho, 0.25, c.off);
#else
    const double v = rho * 0.25 + c.off;  // ρ·0.25 is exact, so this equals fma(ρ, 0.25, off)
#endif
    return ((hd::bits_of(v) & 0xFFFFFFFFFFFFFull) >> c.shift) << c.bits;
}

// The ρ part of a key from v = ρ/4 + off already computed (its bit pattern).
TSM_HD uint64_t v_core(double v, const KeyCodec& c) {
    return ((hd::bits_of(v) & 0xFFFFFFFFFFFFFull) >> c.shift) << c.bits;
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

// ---- raw values (normalized => false) -------------------------------------
//
// The sweep's value of a pair (row r, column j) is then a = max(|d²/m|, t),
// a non-negative double that grows with the pair's squared Euclidean
// distance d² = Σ(xs_r − xs_j)² = m(μ_r − μ_j)² + N_r² + N_j² − 2C (the
// centred form: an offset cancels in μ_r − μ_j and in C, so it costs no
// digits), taken as d²/m = fma(g, g, fma(C, c_r, s)), g = μ_r − μ_j,
// s = σ_r² + σ_j² (σ² = N²/m, raw_sq), c_r = −2/m, or 0 for a flat row
// window (raw_row_cterm: its C with any window is 0, not the rounding the
// recurrence carries from other windows; two flat windows then give g²
// exactly; a test once a row, not a select once a pair),
// floored at the row window's t_r = 2^-40·2^⌊log2 2σ_r²⌋ (raw_row_floor: the
// floor of s for a partner with σ_j = σ_r; 0 when 2σ_r² < 2^-982), a d² that
// rounds below 0 counting as 0.  The floor is the row's, not the pair's, so
// that the sweeps compute it once a row, not once a pair (the pair (r, j),
// r < j, of the self-join is one value for row r and for column j: both
// compare it under r's floor).
// Non-negative doubles order like their bits, so the key's part is
//     raw_core(a) = ((kRawTop − bits(a)) >> shift) << B
// (kRawTop − bits(a): larger for nearer pairs, so the largest key wins as in
// the z-normalised sweep; a is +0 or −0 where d² rounds below 0 and the
// floor is 0, the same key): d² to 2^(shift−52) relative (2^-32 at 2^20 windows), ties to
// the smaller index as above.  kRawTop's low 52 bits are all ones, so the
// subtraction borrows nothing from the exponent: bits of a below the
// quantum (the GPU's tags) never reach the key.  The GPU compares the a
// themselves, the smallest winning (raw_nearer).  The floor is the
// z-normalised key's resolution (ρ to ≈ 2^-40): pairs closer than it are
// ties, so exact repeats of a window, whose computed d² are rounding noise of
// different sizes, tie at their common floor (the row's; for a column, the
// σ² of its repeats, the rows, differ by rounding only, not in their binade)
// and the smaller index wins.  The co-moment, its
// recurrence, restarts and guard are those of the z-normalised sweep
// (C within τ·N_r·N_j, so d² within 2τ·N_r·N_j); a NaN co-moment (the GPU's
// kTileDirect lanes) or a window with a gap (σ² NaN, mark_gap_window) gives
// a NaN a, which wins no comparison.  Constant windows are ordinary windows
// here (σ = 0).  The winner's distance is recomputed directly from x
// (raw_direct_distance).
constexpr uint64_t kRawTop = 0x7FEFFFFFFFFFFFFFull;  // the bits of DBL_MAX: raw_core(0) is the largest
constexpr uint64_t kRawTieExp = uint64_t(40) << 52;    // the floor: 2^-40 (in the exponent field)

// t = 2^-40·2^⌊log2 s⌋ (s ≥ 0; 0 when s < 2^-982); NaN s: a finite t (the caller's d² is NaN then).
TSM_HD double raw_floor(double s) {
    const uint64_t e = hd::bits_of(s) & 0x7FF0000000000000ull;
    return hd::from_bits(e > kRawTieExp ? e - kRawTieExp : 0);
}

// The row window's floor t_r from its σ² (a NaN σ²: a finite t_r, its d² are NaN).
TSM_HD double raw_row_floor(double sq_r) { return raw_floor(hd::add(sq_r, sq_r)); }

// The row window's multiplier c_r of C from its σ² and cterm = −2/m: 0 for a
// flat row (and for a NaN σ², whose s is NaN anyway).
TSM_HD double raw_row_cterm(double sq_r, double cterm) { return sq_r > 0 ? cterm : 0.0; }

// a = max(d²/m, t_r) of the pair (row r, column j); t_r = raw_row_floor(sq_r),
// c_r = raw_row_cterm(sq_r, −2/m).  Two flat windows: fma(g, g, C·0 + 0) =
// g²; a NaN C (C·0 is NaN) or a NaN σ² gives NaN.
TSM_HD double raw_d(double cov, double mu_r, double sq_r, double t_r, double c_r, double mu_j, double sq_j) {
    const double g = hd::sub(mu_r, mu_j);
    const double d2m = hd::fma(g, g, hd::fma(cov, c_r, hd::add(sq_r, sq_j)));
    return t_r > d2m ? t_r : d2m;  // below 0: t_r (≥ 0); a NaN d2m stays NaN
}

// The d² part of a key from a = raw_d(...) (bits of a below the quantum ignored).
TSM_HD uint64_t raw_core(double a, const KeyCodec& c) {
    return ((kRawTop - (hd::bits_of(a) & 0x7FFFFFFFFFFFFFFFull)) >> c.shift) << c.bits;
}

// Whether a (raw_d, tags in its low bits) is nearer than b: NaN never is.
TSM_HD bool raw_nearer(double a, double b) { return a < b; }

// σ² of a window from 1/σ (0 for a flat window): the raw sweep's per-window term.
TSM_HD double raw_sq(double inv_std) { return inv_std > 0 ? hd::div(1.0, hd::mul(inv_std, inv_std)) : 0.0; }

TSM_HD uint64_t make_key(double rho, int64_t idx, const KeyCodec& c) {
    return rho_core(rho, c) | (c.low - (uint64_t)idx);
}

TSM_HD int64_t key_index(uint64_t key, uint64_t low) {
    return (int64_t)(low - (key & low));
}

// Exact z-normalised distance of two non-constant windows: i of xi, j of xj
// (each z-normalised with its own series' statistics).
TSM_HD double direct_distance(const double* xi, int64_t i, const double* xj, int64_t j, int m, double mu_i,
                              double is_i, double mu_j, double is_j) {
    double s = 0;
    for (int t = 0; t < m; ++t) {
        const double a = hd::mul(hd::sub(xi[i + t], mu_i), is_i);
        const double b = hd::mul(hd::sub(xj[j + t], mu_j), is_j);
        const double d = hd::sub(a, b);
        s = hd::add(s, hd::mul(d, d));  // hd: nvcc would contract these into fma
    }
    return hd::sqrt(s);
}

// ---- units and centre: an exact power-of-two rescaling (host and device) ---
//
// The profile works on xs = (x·2^e1 − c)·2^e2 (series_scale, scaled_value).
// e1 brings the largest |x| to [2^kScaleTop, 2^(kScaleTop+1)), so that
// x·2^e1 − c cannot overflow.  c, the centre, is the midrange (what removes a
// large offset exactly: x − c is exact when x and c are within a factor 2),
// unless a few values stretch the range: when the samples' quantiles 1/8 and
// 7/8 (CentreSamples, from evenly spaced values) span less than 1/16 of it
// (a glitch of 10^9 times the signal), c is the samples' median instead, so
// that the bulk of the values stays next to c and keeps its bits (the
// midrange would sit half a glitch away, and x − c would round the signal
// away).  e2 brings the largest |x·2^e1 − c| to the top binade too.  Every
// later quantity then has room on both sides: |xs| < 2^481, so sums of
// m < 2^31 squares stay below 2^1000, and a window whose spread is above
// 2^-990 of the largest |xs| keeps normal squares.  Multiplying by a power of
// two commutes exactly with every operation of the profile (sums, products,
// quotients, square roots of squared quantities, the choice of c) as long as
// nothing over- or underflows, and subnormal differences are exact, so x and
// 2^k·x (when exact) give the same xs, hence the same rows, bit for bit, and
// ordinary data give the bits they gave before the rescaling.
constexpr int kScaleTop = 480;

// The power-of-two primitives are frame_detail.h's, shared with outliers and
// shapelets (times_pow2_up scales up by more than 2^1023 only values below
// 2^(481−1023) here).
using frames::binary_exponent;
using frames::times_pow2_up;

// e with a·2^e in [2^kScaleTop, 2^(kScaleTop+1)) for a > 0 (0 for a = 0).
TSM_HD int scale_exponent(double a) { return a > 0 ? kScaleTop - binary_exponent(a) : 0; }

// The midrange of lo and hi.
TSM_HD double midrange(double lo, double hi) { return hd::add(hd::mul(0.5, lo), hd::mul(0.5, hi)); }

// Quantiles 1/8, 1/2 and 7/8 of evenly spaced values of a series (mp::series_samples).
struct CentreSamples {
    double q1 = 0, med = 0, q7 = 0;
};

// The rescaling of a series whose minimum and maximum are lo and hi.
struct SeriesScale {
    int e1 = 0;      // x·2^e1: the largest |x| in the top binade
    double c = 0;    // the centre of x·2^e1
    int e2 = 0;      // (x·2^e1 − c)·2^e2: the largest deviation in the top binade
};

TSM_HD SeriesScale series_scale(double lo, double hi, const CentreSamples& q) {
    SeriesScale s;
    s.e1 = scale_exponent(fmax(fabs(lo), fabs(hi)));
    const double lo1 = times_pow2_up(lo, s.e1), hi1 = times_pow2_up(hi, s.e1);
    const double bulk = hd::sub(times_pow2_up(q.q7, s.e1), times_pow2_up(q.q1, s.e1));
    const bool stretched = bulk < hd::mul(hd::sub(hi1, lo1), 0.0625);
    s.c = stretched ? hd::add(times_pow2_up(q.med, s.e1), 0.0) : midrange(lo1, hi1);  // (+0 for −0)
    // rounding is monotone: the largest |x·2^e1 − c| is at the minimum or the maximum
    s.e2 = scale_exponent(fmax(hd::sub(hi1, s.c), hd::sub(s.c, lo1)));
    return s;
}

// xs of one value: (x·2^e1 − c)·2^e2.
TSM_HD double scaled_value(double x, const SeriesScale& s) {
    return times_pow2_up(hd::sub(times_pow2_up(x, s.e1), s.c), s.e2);
}

// v·2^e for e ≥ −2044 with one rounding (below 2^-1022 in two steps, the
// first exact when v·2^(e+1022) is normal: for raw_direct_distance's
// |v| ≥ 2^-52, as e < −1022 only when every |x| < 2^-542).
TSM_HD double scale_any(double v, int e) {
    if (e < -1022) return hd::mul(hd::mul(v, frames::pow2(e + 1022)), frames::pow2(-1022));
    return times_pow2_up(v, e);
}

// The raw Euclidean distance of window i of xi and window j of xj ("raw
// values" above; the self-join's xi = xj, the AB-join's A and B, rescaled
// alike: joint_range), directly in float64 on x·2^e1 (the rescaling's first
// step; rawdist_detail.h, the arithmetic every method shares), scaled back by
// 2^−e1: the same for x and 2^k·x, bit for bit, unless the result over- or
// underflows; +inf where the distance itself exceeds the float64 range.
TSM_HD double raw_direct_distance(const double* xi, int64_t i, const double* xj, int64_t j, int m, int e1) {
    return scale_any(hd::sqrt(rawd::sumsq_bounded(xi + i, xj + j, m, e1, INFINITY)), -e1);
}

// The AB-join with raw values compares values of A with values of B, so both
// series take one rescaling: series_scale of the range of both (this, from
// each one's minimum and maximum, on host and device alike) and of
// mp::joint_samples.  For A = B it is the series' own range, bit for bit.
TSM_HD void joint_range(double lo_a, double hi_a, double lo_b, double hi_b, double* lo, double* hi) {
    *lo = lo_b < lo_a ? lo_b : lo_a;
    *hi = hi_b > hi_a ? hi_b : hi_a;
}

// ---- preparation (host: matrix_profile.cpp; device: kernels/matrix_profile.cu)

// Windows [i0, i1) of one stats chunk (i0 a multiple of stats_chunk(m)): μ and
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
// inv_norm = (1/σ)/sqrt(m), inv4 = inv_norm/4 (raw values: σ², raw_sq), and
// the recurrence's df, dg.
TSM_HD void prepare_window(const double* xs, const double* mu, const double* inv_std, int m, double rsm, bool raw,
                           int64_t i, double* inv_norm, double* inv4, double* df, double* dg) {
    const double in = hd::mul(inv_std[i], rsm);
    inv_norm[i] = in;
    inv4[i] = raw ? raw_sq(inv_std[i]) : hd::mul(in, 0.25);  // (÷4 exact)
    if (i == 0) {
        df[0] = dg[0] = 0.0;
        return;
    }
    recurrence_terms(xs, mu, m, i, &df[i], &dg[i]);
}

// ---- the recurrence's guard (host and device; the header says why) ---------

constexpr int64_t kGuardRows = 32;   // rows per tile (tiles are aligned: every segment's rows are a multiple)
constexpr int64_t kGuardDiags = 64;  // diagonals per tile: [excl + 64t, excl + 64t + 64)
constexpr int64_t kGuardCols = kGuardRows + kGuardDiags - 1;  // the columns one tile touches
constexpr double kGuardTol = 0x1p-30;                         // τ
static_assert(kMinSegRows % kGuardRows == 0, "tiles must not straddle segments");

enum TileMode : int { kTileRecur = 0, kTileRestart = 1, kTileDirect = 2 };

// The statistics of a range of windows the guard needs: the largest step
// magnitude H and the smallest norm N of a non-flat window (+inf when none).
struct GuardStat {
    double h;
    double lo;
};

// N_i = sqrt(Σ(x' − μ_i)²) = 1/inv_norm_i (0 for a flat window).
TSM_HD double window_norm(double inv_norm) { return inv_norm > 0 ? hd::div(1.0, inv_norm) : 0.0; }

// H_i = max(N_{i−1}, N_i, |df_i|, |dg_i|) (window 0: N_0): bounds every
// magnitude in the recurrence's step at row or column i.
TSM_HD double step_magnitude(const double* inv_norm, const double* df, const double* dg, int64_t i) {
    const double h = fmax(window_norm(inv_norm[i]), fmax(fabs(df[i]), fabs(dg[i])));
    return i > 0 ? fmax(h, window_norm(inv_norm[i - 1])) : h;
}

// The GuardStat of two ranges together.  Maxima and minima are exact, so a
// table entry has the same bits whatever the order its windows are taken in
// (the CPU one by one, the GPU a warp's lanes each a stride and a reduction).
TSM_HD GuardStat merge_guard(GuardStat a, GuardStat b) { return {fmax(a.h, b.h), fmin(a.lo, b.lo)}; }

// GuardStat of the windows a, a + stride, ... below b, in [0, count); gap
// (null: none) flags the windows that hold a gap, whose pairs give no key:
// they count in h alone.
TSM_HD GuardStat guard_range(const double* inv_norm, const double* df, const double* dg, const uint8_t* gap,
                             int64_t count, int64_t a, int64_t b, int64_t stride = 1) {
    GuardStat g{0.0, INFINITY};
    for (int64_t i = a; i < b && i < count; i += stride) {
        if (i < 0) continue;
        g.h = fmax(g.h, step_magnitude(inv_norm, df, dg, i));
        if (inv_norm[i] > 0 && !(gap && gap[i])) g.lo = fmin(g.lo, window_norm(inv_norm[i]));
    }
    return g;
}

// The tables, with room for every tile a CPU task or a GPU lane asks about:
// rows[β] over the rows [32β, 32β + 32), cols[q] over the columns
// [excl + 32q, excl + 32q + kGuardCols) (the tile of rows from 32β and
// diagonals from excl + 64t reads rows[β] and cols[β + 2t]).
TSM_HD int64_t guard_row_entries(int64_t count) { return count / kGuardRows + 3; }
TSM_HD int64_t guard_col_entries(int64_t count, int64_t excl) { return (count - excl + 1024) / kGuardRows + 3; }
// The windows [*a, *b) of table entry e: rows[e] for e < n_rows, else cols[e − n_rows].
TSM_HD void guard_entry_windows(int64_t e, int64_t n_rows, int64_t excl, int64_t* a, int64_t* b) {
    if (e < n_rows) {
        *a = e * kGuardRows;
        *b = *a + kGuardRows;
    } else {
        *a = excl + (e - n_rows) * kGuardRows;
        *b = *a + kGuardCols;
    }
}
// Entry e of the tables (rows, then columns) from the windows offset,
// offset + stride, ... of its range (the CPU: 0 and 1; a GPU lane: its lane and 32).
TSM_HD GuardStat guard_entry(const double* inv_norm, const double* df, const double* dg, const uint8_t* gap,
                             int64_t count, int64_t excl, int64_t n_rows, int64_t e, int offset = 0, int stride = 1) {
    int64_t a, b;
    guard_entry_windows(e, n_rows, excl, &a, &b);
    return guard_range(inv_norm, df, dg, gap, count, a + offset, b, stride);
}

// ---- gaps (the header says how) --------------------------------------------

// A gap: NaN or ±Infinity.
TSM_HD bool is_gap(double v) { return !(hd::sub(v, v) == 0.0); }

// The plan of a series' gaps (mp::plan_gaps on the CPU, by a pass; the GPU's
// preparation, by scans):
// the filled value at a position whose last finite value at or before it is
// at last_ok (−1: none, a leading gap: lead, the series' first finite value,
// 0 when none is);
TSM_HD double filled_value(const double* x, int64_t last_ok, double lead) { return last_ok >= 0 ? x[last_ok] : lead; }
// whether window i of m values holds a gap, before[k] being the number of
// gaps in x[0..k) (n + 1 entries).
TSM_HD uint8_t window_has_gap(const int64_t* before, int64_t i, int m) { return before[i + m] > before[i]; }

// After the guard's tables: a window that holds a gap gets NaN factors (its
// pairs' v are NaN) and is not constant.
TSM_HD void mark_gap_window(const uint8_t* gap, int64_t i, double* inv_norm, double* inv4, uint8_t* constant) {
    if (!gap[i]) return;
    const double nan = hd::from_bits(0x7FF8000000000000ull);
    inv_norm[i] = nan;
    inv4[i] = nan;
    constant[i] = 0;
}

// A pair of the sweep with a window that holds a gap: its v is NaN.
TSM_HD bool gap_pair(double v) { return v != v; }

// The same as a mask, without a branch: all ones for a pair's v in [1, 2)
// (exponent field 0x3FF, bit 62 clear), 0 for a NaN (exponent 0x7FF).
TSM_HD uint64_t gap_mask(double v) { return ((hd::bits_of(v) >> 62) & 1u) - 1u; }

// The raw sweep's (raw_d's a is any non-negative double up to DBL_MAX): all
// ones for a finite a, 0 for a NaN (exponent field 0x7FF, whatever the sign).
TSM_HD uint64_t gap_mask_raw(double w) {
    return uint64_t(0) - (((hd::bits_of(w) & 0x7FFFFFFFFFFFFFFFull) - 0x7FF0000000000000ull) >> 63);
}

// The mode of one tile and the error bound it leaves in *err (the bound on
// |C̃ − C| carried along the tile's diagonals since their last direct row,
// ignored for a segment's first tile, which starts with a direct row).
//   own = 2^-45·h_r·h_c bounds the roundings of ≤ 32 steps of the tile,
//   dir = 2(m+4)u·h_r·h_c bounds one direct co-moment of its rows or of the
//         row before it (N_{r−1} ≤ H_r, and the same for the columns),
//   lim = τ·lo_r·lo_c is what every pair of the tile allows.
// kTileRecur when err + own ≤ lim (the recurrence goes on); else
// kTileRestart when dir + own ≤ lim (the co-moments of the row before the
// tile are recomputed directly, and the recurrence goes on from them); else
// kTileDirect (every row of the tile directly; the next tile goes on from the
// last one).
TSM_HD int guard_tile(double* err, bool first, const GuardStat& rows, const GuardStat& cols, int m) {
    const double hh = hd::mul(rows.h, cols.h);
    const double own = hd::mul(0x1p-45, hh);
    const double dir = hd::mul(hd::mul(0x1p-52, hd::add((double)m, 4.0)), hh);
    const double lim = hd::mul(kGuardTol, hd::mul(rows.lo, cols.lo));
    const double cont = hd::add(*err, own);
    if (!first && cont <= lim) {
        *err = cont;
        return kTileRecur;
    }
    const double restart = hd::add(dir, own);
    if (restart <= lim) {
        *err = restart;
        return first ? kTileRecur : kTileRestart;
    }
    *err = dir;
    return kTileDirect;
}

// What the sweep leaves for window p (best key, 0 = no candidate), turned into
// the final (distance, index) with the STUMPY rule for constant windows.
// Window p is one of the rows' series (A), its candidates j the windows of
// the columns' series (B); in the self-join both are the same series.
//   next_const[q]: smallest constant window of B ≥ q (count when none), for q in [0, count]
//   first_const:   smallest constant window of B (count when none)
//   count:         B's windows; a candidate j needs |p − j| ≥ excl (0: every j)
//   gap, next_ok:  with gaps only (else null): the windows of A that hold a
//                  gap, and the smallest window of B ≥ q that holds none
//                  (count when none); an AB-join with gaps in one series
//                  gives the other flags too (mp::ab_gap_plans), none set
struct FinalizeArgs {
    const double* x;            // A (raw values: the winner's distance)
    const double* x_b;          // B (raw values)
    const SeriesScale* scale;   // its rescaling (raw values: e1)
    const double* xs;           // A
    const double* mu;
    const double* inv_std;
    const uint8_t* constant;
    const double* xs_b;  // B
    const double* mu_b;
    const double* inv_std_b;
    const uint8_t* constant_b;
    const int64_t* next_const;
    int64_t first_const;
    int64_t count;
    int64_t excl;
    int m;
    KeyCodec codec;
    const uint8_t* gap;
    const int64_t* next_ok;
};

// The smallest admissible window (|p − j| ≥ excl) among those next[] lists
// (next[q]: the smallest one ≥ q, count when none), −1 when none.
TSM_HD int64_t smallest_admissible(const FinalizeArgs& a, const int64_t* next, int64_t p) {
    const int64_t first = next[0];
    if (p - a.excl >= 0 && first <= p - a.excl) return first;
    if (p + a.excl < a.count && next[p + a.excl] < a.count) return next[p + a.excl];
    return -1;
}

// Raw values: the winner of the key (every window an ordinary one), its
// distance directly from x.
TSM_HD void finalize_raw(const FinalizeArgs& a, int64_t p, uint64_t key, double* dist, int64_t* index) {
    if (key == 0) {  // no admissible neighbour
        *dist = INFINITY;
        *index = -1;
        return;
    }
    const int64_t j = key_index(key, a.codec.low);
    *index = j;
    *dist = raw_direct_distance(a.x, p, a.x_b, j, a.m, a.scale->e1);
}

TSM_HD void finalize_one(const FinalizeArgs& a, int64_t p, uint64_t key, double* dist, int64_t* index) {
    if (a.codec.raw) {
        finalize_raw(a, p, key, dist, index);
        return;
    }
    // smallest admissible constant window j (|p − j| ≥ excl), and smallest admissible window
    int64_t cst = -1, any = -1;
    if (p - a.excl >= 0) {
        any = 0;
        if (a.first_const <= p - a.excl && a.first_const < a.count) cst = a.first_const;  // (p ≥ count in an AB-join)
    } else if (p + a.excl < a.count) {
        any = p + a.excl;
    }
    if (cst < 0 && p + a.excl < a.count) {
        int64_t q = a.next_const[p + a.excl];
        if (q < a.count) cst = q;
    }
    if (a.gap) any = a.gap[p] ? -1 : smallest_admissible(a, a.next_ok, p);
    if (any < 0 || (key == 0 && cst < 0 && !a.constant[p])) {  // no admissible neighbour at all
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
    if (a.constant_b[j]) {
        *dist = sqrt((double)a.m);
    } else {
        *dist = direct_distance(a.xs, p, a.xs_b, j, a.m, a.mu[p], a.inv_std[p], a.mu_b[j], a.inv_std_b[j]);
    }
}

}  // namespace mp
}  // namespace tsm
