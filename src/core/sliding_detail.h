// sliding_detail.h — the arithmetic of tsm::window_stats (sliding.h), shared by
// the host (sliding.cpp) and the device (kernels that prepare windows on the
// GPU), so that both produce the same bits.
//
// Windows are processed in chunks of stats_chunk(m) consecutive windows, each
// started exactly and independently of the others:
//   * ref = x[start of the chunk's block of kStatsBlock windows]: for data with
//     a large offset, x − ref is exact (Sterbenz) and small;
//   * the chunk's first window: two-pass mean and Σ(x − μ)² on x − ref, with
//     the compensation term d = Σ(x − ref − μ);
//   * the next windows: μ' = μ + (x_in − x_out)/m and
//     M2' = M2 + (x_in − x_out)(x_in − μ' + x_out − μ), which never subtract
//     large raw sums;
//   * a window is constant when its values are all exactly equal (tracked by
//     the last index t with x[t] ≠ x[t+1]); its mean is x[i], its σ is 0;
//   * a window that is not constant but whose σ vanished in rounding is
//     recomputed directly (and the slide continues from there);
//   * so is a window where the slide's rounding may have outgrown what its
//     own statistics allow (StatsGuard): the slide carries a bound on the
//     errors of μ and M2 since the last exact start (first order in the unit
//     roundoff u, with a factor 2 of margin for the rest), and restarts when
//     the bound on M2 exceeds τ·M2 or the bound on μ exceeds τ_μ·σ + 4u·|μ|,
//     with τ = 2^-30 + 4(m+4)u and τ_μ = 2^-26 + 4(m+4)u (the (m+4)u terms:
//     what a direct start itself may leave, so that a restart always meets
//     the bound).  A glitch of 10^9 or 10^15 times the signal leaves rounding
//     of its own size in the slide as it passes; the guard restarts at the
//     first window without it;
//   * the guard takes x − ref as exact, which it is (Sterbenz) when x and ref
//     are within a factor 2, and otherwise off by at most u·|x − ref|, which
//     moves σ by at most u·max|x − ref| ≤ u(|μ − ref| + sqrt(m)·σ).  So a
//     window whose mean lies more than 2^19·σ from ref (far_from_ref: ref is a
//     glitch at the block's start, or the block's values drift by 10^6 of a
//     quiet window's σ) is restarted directly relative to its own first value
//     (restart_near), which stays the chunk's ref from there on: the rounding
//     of x − ref then moves σ by less than 2^-33 relative.
//   So every window's σ is within 2^-31 + 2^-33 relative of the exact σ of its
//   values, and μ within 2^-26·σ (μ enters distances only squared).  On
//   ordinary data the bound stays below τ, except at a window whose spread is
//   far below that of the windows the slide came through (with m = 3, about
//   one window in 100), which the restart makes exact; no window of the
//   keogh_discords sets or of random walks (m = 3 .. 256) is far from its ref,
//   so their bits are those of the slide without the rebase.
// A thread (host task or device thread) per chunk gives the same result
// whatever the parallel schedule.
#pragma once

#include <cstdint>

#include "hd.h"

namespace tsm {

// Windows per exact restart for windows of m values: a chunk is one GPU
// thread's serial slide, so short series need short chunks to keep the
// device busy (TEK16's 4,873 windows of 128: 153 threads of 32; chunks of 256
// left 20 threads sliding for 0.3 ms, bench/RESULTS.md), and a direct start
// costs 2m additions, about 8 a window at a chunk of m/4 (a slide step costs
// about 20): the largest power of two ≤ m/4 within [32, 256].  Every chunk
// starts at a multiple of 32 and divides kStatsBlock.
constexpr int64_t kStatsChunkMin = 32, kStatsChunkMax = 256;
TSM_HD int64_t stats_chunk(int m) {
    int64_t c = kStatsChunkMin;
    while (c < kStatsChunkMax && 2 * c <= m / 4) c *= 2;
    return c;
}
constexpr int64_t kStatsBlock = 4096;  // windows sharing one reference value

namespace detail {

// Exact two-pass mean (relative to ref) and population σ of window x[i .. i+m-1].
TSM_HD void stats_restart(const double* x, int64_t i, int m, double ref, double& mu, double& sd) {
    const double md = (double)m;
    double a = 0;
    for (int j = 0; j < m; ++j) a = hd::add(a, hd::sub(x[i + j], ref));
    mu = hd::div(a, md);
    double d = 0, q = 0;
    for (int j = 0; j < m; ++j) {
        const double t = hd::sub(hd::sub(x[i + j], ref), mu);
        d = hd::add(d, t);
        q = hd::add(q, hd::mul(t, t));
    }
    mu = hd::add(mu, hd::div(d, md));
    const double var = hd::div(hd::sub(q, hd::div(hd::mul(d, d), md)), md);
    sd = var > 0 ? hd::sqrt(var) : 0.0;
}

// Whether each window i in [i0, i1) of x is constant (all m values equal).
// brk: the last t ≤ i + m − 2 with x[t] ≠ x[t + 1] (−1 when none).
TSM_HD void constant_chunk(const double* x, int m, int64_t i0, int64_t i1, uint8_t* constant) {
    int64_t brk = -1;
    for (int64_t t = i0; t + 1 < i0 + m; ++t)
        if (x[t] != x[t + 1]) brk = t;
    for (int64_t i = i0; i < i1; ++i) {
        if (i > i0) {
            const int64_t t = i + m - 2;
            if (t >= i && x[t] != x[t + 1]) brk = t;
        }
        constant[i] = brk < i ? 1 : 0;
    }
}

// The slide's error bounds since the last exact start (sliding_detail.h's
// header): on μ (relative to ref) and on M2 = Σ(x − μ)².
struct StatsGuard {
    double emu = 0, em2 = 0;
    // what a direct start (stats_restart) may leave: 2u(|μ| + m·σ) and 2(m+4)u·M2
    TSM_HD void restart(double mu, double sd, double m2, double md) {
        constexpr double u = 0x1p-53;
        emu = hd::mul(2 * u, hd::add(fabs(mu), hd::mul(md, sd)));
        em2 = hd::mul(hd::mul(2 * u, hd::add(md, 4.0)), m2);
    }
    // one slide step: Δ = x_in − x_out, P = ((x_in − μ') + x_out) − μ with
    // a = x_in − μ', b = a + x_out; the new μ' and M2' (all as computed)
    TSM_HD void step(double delta, double a, double b, double p, double mu_new, double m2_new, double md) {
        constexpr double u2 = 0x1p-52;  // 2u: first-order bound with a factor 2 of margin
        const double ad = fabs(delta);
        const double emu_new = hd::add(emu, hd::mul(u2, hd::add(fabs(mu_new), hd::div(hd::mul(2.0, ad), md))));
        const double ep = hd::add(hd::mul(u2, hd::add(hd::add(fabs(a), fabs(b)), hd::mul(3.0, fabs(p)))),
                                  hd::add(emu, emu_new));
        em2 = hd::add(hd::add(em2, hd::mul(u2, fabs(m2_new))), hd::mul(ad, ep));
        emu = emu_new;
    }
    // whether the bounds exceed what the window's own statistics allow
    TSM_HD bool drifted(double mu, double sd, double m2, double md) const {
        constexpr double u = 0x1p-53;
        const double direct = hd::mul(4 * u, hd::add(md, 4.0));
        const double lim_m2 = hd::mul(hd::add(0x1p-30, direct), m2);
        const double lim_mu = hd::add(hd::mul(hd::add(0x1p-26, direct), sd), hd::mul(4 * u, fabs(mu)));
        return em2 > lim_m2 || emu > lim_mu;
    }
};

// Whether μ (relative to ref) lies so far from ref, against σ, that the
// rounding of x − ref may move σ by more than 2^-33 relative (the header's
// "rebase"): each x − ref is within u·|x − ref| ≤ u(|μ| + sqrt(m)σ) of the
// exact difference, which moves σ by at most that much.
TSM_HD bool far_from_ref(double mu, double sd) { return fabs(mu) > hd::mul(0x1p19, sd); }

// The direct start of a non-constant window i: relative to ref, or, when the
// window lies too far from ref (far_from_ref), relative to its own first
// value, which becomes the slide's ref from there on.
TSM_HD void restart_near(const double* x, int64_t i, int m, double& ref, double& mu, double& sd) {
    stats_restart(x, i, m, ref, mu, sd);
    if (far_from_ref(mu, sd) && x[i] != ref) {
        ref = x[i];
        stats_restart(x, i, m, ref, mu, sd);
    }
}

// Mean, σ and the constant flag of windows [i0, i1) of x (one chunk:
// i1 − i0 ≤ stats_chunk(m), i0 a multiple of it), handed to
// emit(i, mean, sd, constant) window by window.
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <class Emit>
TSM_HD void window_stats_chunk_emit(const double* x, int m, int64_t i0, int64_t i1, Emit&& emit) {
    const double md = (double)m;
    double ref = x[(i0 / kStatsBlock) * kStatsBlock];
    double mu, s0;
    stats_restart(x, i0, m, ref, mu, s0);
    double m2 = hd::mul(hd::mul(s0, s0), md);
    StatsGuard guard;
    guard.restart(mu, s0, m2, md);
    int64_t brk = -1;
    for (int64_t t = i0; t + 1 < i0 + m; ++t)
        if (x[t] != x[t + 1]) brk = t;
    for (int64_t i = i0; i < i1; ++i) {
        if (i > i0) {
            const double xin = hd::sub(x[i + m - 1], ref), xout = hd::sub(x[i - 1], ref);
            const double delta = hd::sub(xin, xout);
            const double mu_new = hd::add(mu, hd::div(delta, md));
            const double a = hd::sub(xin, mu_new), b = hd::add(a, xout), p = hd::sub(b, mu);
            m2 = hd::add(m2, hd::mul(delta, p));
            guard.step(delta, a, b, p, mu_new, m2, md);
            mu = mu_new;
            if (m2 < 0) m2 = 0;
            const int64_t t = i + m - 2;
            if (t >= i && x[t] != x[t + 1]) brk = t;
        }
        const bool cst = brk < i;
        double mv = cst ? x[i] : hd::add(ref, mu);
        double s = cst ? 0.0 : hd::sqrt(hd::div(m2, md));
        if (!cst && (!(s > 0) || guard.drifted(mu, s, m2, md) || far_from_ref(mu, s))) {  // the header says when
            restart_near(x, i, m, ref, mu, s0);
            s = s0;
            m2 = hd::mul(hd::mul(s, s), md);
            guard.restart(mu, s, m2, md);
            mv = hd::add(ref, mu);
        }
        emit(i, mv, s, cst);
    }
}

// The same into arrays indexed by window (sd may be null).
TSM_HD void window_stats_chunk(const double* x, int m, int64_t i0, int64_t i1, double* mean, double* sd,
                               double* inv_std, uint8_t* constant) {
    window_stats_chunk_emit(x, m, i0, i1, [=](int64_t i, double mv, double s, bool cst) {
        mean[i] = mv;
        if (sd) sd[i] = s;
        inv_std[i] = s > 0 ? hd::div(1.0, s) : 0.0;
        constant[i] = cst ? 1 : 0;
    });
}

}  // namespace detail
}  // namespace tsm
