// comoment_detail.h — the mean-centred co-moment of two windows, written once
// for every method that slides it along the diagonals of the distance matrix
// (the matrix profile, PD3, shapelets) and for both the host and the device.
//
//   C(i, j) = Σ_t (x[i+t] − μ_i)(x[j+t] − μ_j),   t = 0 .. m−1
//
// computed directly (direct_comoment: fma accumulation, t ascending) where a
// diagonal starts or restarts, and between restarts with the exact recurrence
// ("MPX" form) from C(i−1, j−1):
//
//   C(i, j) = fma(df_i, dg_j, fma(df_j, dg_i, C(i−1, j−1)))
//   df_i = (x[i+m−1] − x[i−1]) / 2,  dg_i = (x[i+m−1] − μ_i) + (x[i−1] − μ_{i−1})
//
// (recurrence_terms gives df_i, dg_i for i ≥ 1).  The argument roles are part
// of the rounding: every caller passes the row window first.
#pragma once

#include <cstdint>

#include "hd.h"

namespace tsm {

// One term of a direct co-moment: acc + (a − μa)(b − μb), one rounding for the product-sum.
TSM_HD double comoment_term(double acc, double a, double mu_a, double b, double mu_b) {
    return hd::fma(hd::sub(a, mu_a), hd::sub(b, mu_b), acc);
}

// C(i, j) of window i of xi and window j of xj (the AB-join's two series;
// the same series in a self-join), directly.
TSM_HD double direct_comoment(const double* xi, int64_t i, const double* xj, int64_t j, int m, double mu_i,
                              double mu_j) {
    double c = 0;
    for (int t = 0; t < m; ++t) c = comoment_term(c, xi[i + t], mu_i, xj[j + t], mu_j);
    return c;
}

// C(i, j0 + d) for d in [0, D) of window i of xi and D consecutive windows
// of xj, each term by term as direct_comoment (so with its bits), the D sums
// in lockstep: their fused multiply-adds' latencies overlap (one sum alone
// waits for it at every term).  mu_j: the D windows' means; xj holds
// j0 + D − 1 + m values.
template <int D>
TSM_HD void direct_comoments(const double* xi, int64_t i, const double* xj, int64_t j0, int m, double mu_i,
                             const double* mu_j, double* c) {
    for (int d = 0; d < D; ++d) c[d] = 0;
    for (int t = 0; t < m; ++t) {
        const double a = xi[i + t];
        for (int d = 0; d < D; ++d) c[d] = comoment_term(c[d], a, mu_i, xj[j0 + d + t], mu_j[d]);
    }
}

// C(i, j) directly from the series x (windows of length m at i and j).
TSM_HD double direct_comoment(const double* x, int64_t i, int64_t j, int m, double mu_i, double mu_j) {
    return direct_comoment(x, i, x, j, m, mu_i, mu_j);
}

// df_i and dg_i of window i ≥ 1 (mu: the windows' means).
TSM_HD void recurrence_terms(const double* x, const double* mu, int m, int64_t i, double* df, double* dg) {
    const double xin = x[i + m - 1], xout = x[i - 1];
    *df = hd::mul(hd::sub(xin, xout), 0.5);
    *dg = hd::add(hd::sub(xin, mu[i]), hd::sub(xout, mu[i - 1]));
}

// C(i, j) from C(i−1, j−1): row window i (df_i, dg_i), column window j (df_j, dg_j).
TSM_HD double comoment_next(double c_prev, double df_i, double dg_i, double df_j, double dg_j) {
    return hd::fma(df_i, dg_j, hd::fma(df_j, dg_i, c_prev));
}

}  // namespace tsm
