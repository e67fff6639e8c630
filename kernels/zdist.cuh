// zdist.cuh — device versions of window_zstat and zdist (src/core/motifs.cpp),
// written with explicitly rounded intrinsics (no fused multiply-adds) and the
// same operation order, so that the GPU computes the CPU's values bit for bit.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "gpu_runtime.h"

namespace tsm {
namespace gpu {

constexpr unsigned kFullMask = 0xffffffffu;

// One window, sequential (a thread per window).
__device__ inline void d_window_zstat(const double* w, int m, double* mean, double* inv, uint8_t* constant) {
    double s = 0;
    bool eq = true;
    const double w0 = w[0];
    for (int k = 0; k < m; ++k) {
        double v = w[k];
        s = __dadd_rn(s, v);
        eq = eq && (v == w0);
    }
    const double md = (double)m;
    double mu0 = __ddiv_rn(s, md), q = 0, q2 = 0;
    for (int k = 0; k < m; ++k) {
        double t = __dsub_rn(w[k], mu0);
        q = __dadd_rn(q, t);
        q2 = __dadd_rn(q2, __dmul_rn(t, t));
    }
    double mu = __dadd_rn(mu0, __ddiv_rn(q, md));
    double var = __ddiv_rn(__dsub_rn(q2, __ddiv_rn(__dmul_rn(q, q), md)), md);
    double sd = var > 0 ? __dsqrt_rn(var) : 0.0;
    bool c = eq || !(sd > 0);
    *mean = eq ? w0 : mu;
    *inv = c ? 0.0 : __ddiv_rn(1.0, sd);
    *constant = c;
}

// z-normalised distance by a whole warp (every lane calls it with the same
// arguments); lane l accumulates elements l, l+32, ...; the shuffle tree is
// the CPU's lane-combination order.  Every lane gets the result.
// lim2: abandon (return +inf) once the prefix bound q_p − s_p²/p (a lower
// bound of d², see zdist_bounded in motifs.cpp) exceeds it; checked every 128
// values, warp-uniformly; the accumulation itself is untouched.
__device__ inline double d_zdist_warp(const double* __restrict__ a, double mua, double inva, bool ca,
                                      const double* __restrict__ b, double mub, double invb, bool cb, int m,
                                      int lane, double lim2 = (double)INFINITY) {
    if (ca || cb) return (ca && cb) ? 0.0 : __dsqrt_rn((double)m);
    const bool bounded = lim2 < (double)INFINITY;
    double s = 0, q = 0;
    for (int base = 0; base < m; base += 32) {
        const int k = base + lane;
        if (k < m) {
            double ta = __dmul_rn(__dsub_rn(a[k], mua), inva);
            double tb = __dmul_rn(__dsub_rn(b[k], mub), invb);
            double dl = __dsub_rn(ta, tb);
            s = __dadd_rn(s, dl);
            q = __dadd_rn(q, __dmul_rn(dl, dl));
        }
        const int p = base + 32;
        if (bounded && (p & 127) == 0 && p < m) {
            double sp = s, qp = q;
            for (int off = 16; off > 0; off >>= 1) {
                sp += __shfl_xor_sync(kFullMask, sp, off);
                qp += __shfl_xor_sync(kFullMask, qp, off);
            }
            if (qp - sp * sp / p > lim2) return (double)INFINITY;
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        s = __dadd_rn(s, __shfl_down_sync(kFullMask, s, off));
        q = __dadd_rn(q, __shfl_down_sync(kFullMask, q, off));
    }
    double d = 0;
    if (lane == 0) {
        double d2 = __dsub_rn(q, __ddiv_rn(__dmul_rn(s, s), (double)m));
        d = d2 > 0 ? __dsqrt_rn(d2) : 0.0;
    }
    return __shfl_sync(kFullMask, d, 0);
}

// Statistics of every window: a thread per window.
static __global__ void k_window_stats(const double* __restrict__ x, int64_t N, int m, double* mean, double* inv,
                                      uint8_t* constant) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < N; i += (int64_t)gridDim.x * blockDim.x)
        d_window_zstat(x + i, m, &mean[i], &inv[i], &constant[i]);
}

inline unsigned grid_for(int64_t items, int threads, unsigned cap = 1u << 20) {
    int64_t g = (items + threads - 1) / threads;
    if (g < 1) g = 1;
    return (unsigned)(g > (int64_t)cap ? cap : g);
}

inline void launched(const char* what) { check(cudaGetLastError(), what); }

}  // namespace gpu
}  // namespace tsm
