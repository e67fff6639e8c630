// sliding_detail.h — the arithmetic of tsm::window_stats (sliding.h), shared by
// the host (sliding.cpp) and the device (kernels that prepare windows on the
// GPU), so that both produce the same bits.
//
// Windows are processed in chunks of kStatsChunk consecutive windows, each
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
//     recomputed directly (and the slide continues from there).
// A thread (host task or device thread) per chunk gives the same result
// whatever the parallel schedule.
#pragma once

#include <cstdint>

#include "hd.h"

namespace tsm {

constexpr int64_t kStatsChunk = 256;   // windows per exact restart
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

// Mean, σ and the constant flag of windows [i0, i1) of x (one chunk:
// i1 − i0 ≤ kStatsChunk, i0 a multiple of kStatsChunk), handed to
// emit(i, mean, sd, constant) window by window.
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <class Emit>
TSM_HD void window_stats_chunk_emit(const double* x, int m, int64_t i0, int64_t i1, Emit&& emit) {
    const double md = (double)m;
    const double ref = x[(i0 / kStatsBlock) * kStatsBlock];
    double mu, s0;
    stats_restart(x, i0, m, ref, mu, s0);
    double m2 = hd::mul(hd::mul(s0, s0), md);
    int64_t brk = -1;
    for (int64_t t = i0; t + 1 < i0 + m; ++t)
        if (x[t] != x[t + 1]) brk = t;
    for (int64_t i = i0; i < i1; ++i) {
        if (i > i0) {
            const double xin = hd::sub(x[i + m - 1], ref), xout = hd::sub(x[i - 1], ref);
            const double mu_new = hd::add(mu, hd::div(hd::sub(xin, xout), md));
            m2 = hd::add(m2, hd::mul(hd::sub(xin, xout), hd::sub(hd::add(hd::sub(xin, mu_new), xout), mu)));
            mu = mu_new;
            if (m2 < 0) m2 = 0;
            const int64_t t = i + m - 2;
            if (t >= i && x[t] != x[t + 1]) brk = t;
        }
        const bool cst = brk < i;
        double mv = cst ? x[i] : hd::add(ref, mu);
        double s = cst ? 0.0 : hd::sqrt(hd::div(m2, md));
        if (!cst && !(s > 0)) {  // not constant, but the spread vanished in rounding: directly
            stats_restart(x, i, m, ref, mu, s0);
            s = s0;
            m2 = hd::mul(hd::mul(s, s), md);
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
