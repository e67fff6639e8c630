// motifs.cpp — exact motifs on the CPU (MK), motifs from a matrix profile, the
// shared arithmetic, and the C entry points of motifs.
//
// MK, as in the thesis (ch. 3–4), generalised to k pairs:
//  1. r reference windows (random, fixed seed); D(r, j) = d(ref_r, window j).
//  2. The reference whose distances have the largest standard deviation orders
//     the windows (linear order I_S, ascending D, ties by position).
//  3. The offset loop: for offset o = 1, 2, ... every pair (I_S[i], I_S[i+o]) is
//     tested with the triangle-inequality bounds max_r |D(r,a) − D(r,b)|; a pair
//     whose bound exceeds the best-so-far (bsf) is pruned (the thesis's bitmap),
//     the rest get their exact distance.  bsf starts as the best pair among
//     (reference, window) pairs (InitBSF).
//  4. Stopping rule: the loop ends at the first offset o at which every pair
//     has an ordering-reference bound D(r0, I_S[i+o]) − D(r0, I_S[i]) > bsf.
//     This bound grows with o for every i, so no later offset can hold a better
//     pair.  (The thesis tests the bound of all references, which is not
//     monotone in o; MK's original rule, used here, is.)
//  5. k pairs, exactly: rank t is found by re-running the offset loop with the
//     windows of ranks 1..t−1 blocked (within m of a chosen member) — the
//     greedy rule is applied exactly, with no candidate-set budget to guess.
//     D, the order and the bounds are computed once and reused by every rank.
// Ties everywhere: smaller distance, then smaller pos_a, then smaller pos_b;
// pruning never drops a pair whose bound equals bsf (slack, see mk_slack).
//
// The PAA bound (beyond the thesis; it makes MK fast on smooth series such as
// random walks, whose reference bounds are weak).  Let ẑ be a window's
// z-normalised values exactly as zdist computes them, (x_k − μ)·(1/σ) in
// double, and the zero vector for a constant window (which makes the STUMPY
// rule Euclidean: |0 − 0| = 0, and |0 − ẑ| ≈ sqrt(m)).  zdist returns
// d = ||δ − δ̄·1||, δ = ẑa − ẑb.  With u_s = 1_{segment s}/sqrt(len_s)
// (W segments, orthonormal) and P the orthogonal projection onto
// span{u_s} ∩ 1⊥, the PAA coefficients c = coordinates of P·ẑ in the u_s
// (window_paa), Bessel's inequality gives ||c(a) − c(b)|| = ||P(δ − δ̄·1)|| ≤ d.
// Any rotation y = Vᵀc keeps the norm: the rows y_k are taken along the
// principal axes of the coefficients (mk_principal_axes), so that the first
// rows carry most of the energy and the partial sums Σ_{k<K} Δy_k² (each a
// lower bound of d²) exceed bsf² after a few rows; axis 0 is itself a
// 1-Lipschitz key (|Δy_0| ≤ d) and orders the windows instead of the best
// reference when its spread is larger (random walks: ~7.5 against ~3 at
// m = 128).  Checks per pair (i, j) in linear order: the key gap, then the
// PAA partial sums, then the other references; survivors get zdist.
//
// Rounding (why pruning on the float rows is safe).  Let Z = max(zmax,
// sqrt(m)), zmax = max ||ẑ|| over the windows (≈ sqrt(m)).  The rows are the
// floats f = fl(y), y computed in double (relative error < 1e-12, V
// orthonormal to 1e-12), so ||f(a) − y(a)|| ≤ 2^-24·||y(a)||·(1 + 1e-12) ≤
// 6e-8·Z.  (1) Key gap g = fl(f_0(b) − f_0(a)) > thr ≥ t := bsf + slackP
// implies |Δy_0| ≥ g/(1 + 2^-24) − 1.2e-7·Z ≥ t − 6e-8·t − 1.2e-7·Z ≥
// t − 2.5e-7·Z (t ≤ 2Z + 1).  (2) The float sum s = fl Σ fl(fl(Δf_k)²) of
// W ≤ 32 terms satisfies s ≤ (1 + γ_34)·Σ Δf_k², γ_34 < 2.1e-6; so
// s > thr2 ≥ t²/(1 − 1e-5) implies ||Δf|| ≥ t·sqrt((1 − 2.1e-6)/(1 − 1e-5))
// ≥ t·(1 + 3.9e-6), and ||Δy|| ≥ ||Δf|| − 1.2e-7·Z > t − 1.2e-7·Z.  In both
// cases the projected distance exceeds bsf + slackP − 2.5e-7·Z, and
// slackP = mk_slack(m)·Z/sqrt(m) + (zmax − sqrt(m))⁺ ≥ 2e-6·Z + (zmax −
// sqrt(m))⁺: for non-constant pairs d (computed by zdist to 1e-12 relative)
// exceeds bsf; for constant vs non-constant ones ||Δy|| ≤ zmax, so
// sqrt(m) = d > bsf; constant pairs have Δy = 0 and are never pruned by it.
#include "motifs.h"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <queue>
#include <random>

#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "dispatch.h"
#include "error.h"
#include "finite.h"
#include "parallel.h"

namespace tsm {

#define TSM_NO_CONTRACT __attribute__((optimize("fp-contract=off")))

TSM_NO_CONTRACT void window_zstat(const double* w, int m, double* mean, double* inv, uint8_t* constant) {
    double s = 0;
    bool eq = true;
    for (int k = 0; k < m; ++k) {
        s += w[k];
        eq = eq && (w[k] == w[0]);
    }
    double mu0 = s / m, q = 0, q2 = 0;
    for (int k = 0; k < m; ++k) {
        double t = w[k] - mu0;
        q += t;
        q2 += t * t;
    }
    double mu = mu0 + q / m;
    double var = (q2 - q * q / m) / m;
    double sd = var > 0 ? std::sqrt(var) : 0.0;
    bool c = eq || !(sd > 0);
    *mean = eq ? w[0] : mu;
    *inv = c ? 0.0 : 1.0 / sd;
    *constant = c;
}

void zstats(const double* x, int64_t n, int m, ZStats& out, const TsExec* ex) {
    const int64_t N = n - m + 1;
    out.m = m;
    out.count = N;
    out.mean.assign(N, 0.0);
    out.inv.assign(N, 0.0);
    out.constant.assign(N, 0);
    const int64_t B = std::max<int64_t>(256, (int64_t(1) << 20) / m);
    parallel_for(ex, (N + B - 1) / B, [&](int64_t t) {
        int64_t lo = t * B, hi = std::min(N, lo + B);
        for (int64_t i = lo; i < hi; ++i) window_zstat(x + i, m, &out.mean[i], &out.inv[i], &out.constant[i]);
    });
}

TSM_NO_CONTRACT double zdist_bounded(const double* a, double mua, double inva, bool ca, const double* b,
                                     double mub, double invb, bool cb, int m, double lim2) {
    if (ca || cb) return (ca && cb) ? 0.0 : std::sqrt((double)m);
    double s[32], q[32];
    for (int l = 0; l < 32; ++l) s[l] = q[l] = 0.0;
    int k = 0;
    for (; k + 32 <= m; k += 32) {
        for (int l = 0; l < 32; ++l) {
            double dl = (a[k + l] - mua) * inva - (b[k + l] - mub) * invb;
            s[l] += dl;
            q[l] += dl * dl;
        }
        // early abandon, every 128 values: for the first p values,
        // d² = Σ(δ − δ̄)² ≥ Σ_{k<p}(δ_k − δ̄)² ≥ q_p − s_p²/p (the prefix's own mean minimises it)
        if (((k + 32) & 127) == 0 && k + 32 < m && lim2 < std::numeric_limits<double>::infinity()) {
            double sp = 0, qp = 0;
            for (int l = 0; l < 32; ++l) { sp += s[l]; qp += q[l]; }
            if (qp - sp * sp / (k + 32) > lim2) return std::numeric_limits<double>::infinity();
        }
    }
    for (int l = 0; k + l < m; ++l) {
        double dl = (a[k + l] - mua) * inva - (b[k + l] - mub) * invb;
        s[l] += dl;
        q[l] += dl * dl;
    }
    for (int off = 16; off > 0; off >>= 1)
        for (int l = 0; l < off; ++l) {
            s[l] += s[l + off];
            q[l] += q[l + off];
        }
    double d2 = q[0] - s[0] * s[0] / m;
    return d2 > 0 ? std::sqrt(d2) : 0.0;
}

double zdist(const double* a, double mua, double inva, bool ca, const double* b, double mub, double invb, bool cb,
             int m) {
    return zdist_bounded(a, mua, inva, ca, b, mub, invb, cb, m, std::numeric_limits<double>::infinity());
}

std::vector<int64_t> mk_references(int64_t N, int nref) {
    int64_t r = std::min<int64_t>({(int64_t)nref, N, (int64_t)kMaxReferences});
    std::vector<int64_t> refs;
    if (r >= N) {
        refs.resize(N);
        std::iota(refs.begin(), refs.end(), 0);
        return refs;
    }
    std::mt19937_64 rng(0x6d6b2d72656673ULL);  // fixed seed: same references every call
    while ((int64_t)refs.size() < r) {
        int64_t p = (int64_t)(rng() % (uint64_t)N);
        if (std::find(refs.begin(), refs.end(), p) == refs.end()) refs.push_back(p);
    }
    return refs;
}

double mk_slack(int m) { return 1e-6 * (1.0 + 2.0 * std::sqrt((double)m)); }

float mk_threshold(double bsf, double slack) {
    if (!std::isfinite(bsf)) return std::numeric_limits<float>::infinity();
    return std::nextafter((float)(bsf + slack), std::numeric_limits<float>::infinity());
}

float mk_threshold2(double bsf, double slack) {
    if (!std::isfinite(bsf)) return std::numeric_limits<float>::infinity();
    const double t = bsf + slack;
    return std::nextafter((float)(t * t / (1.0 - 1e-5)), std::numeric_limits<float>::infinity());
}

double mk_paa_slack(int m, double zmax) {
    const double sm = std::sqrt((double)m), Z = std::max(zmax, sm);
    return mk_slack(m) * (Z / sm) + std::max(0.0, zmax - sm);
}

TSM_NO_CONTRACT void window_paa(const double* w, int m, double mean, double inv, bool constant, int W, double* c,
                                int64_t stride, double* norm2) {
    if (constant) {
        for (int s = 0; s < W; ++s) c[s * stride] = 0.0;
        *norm2 = 0.0;
        return;
    }
    double tot = 0, q = 0;
    for (int s = 0; s < W; ++s) {
        const int lo = (int)((int64_t)s * m / W), hi = (int)((int64_t)(s + 1) * m / W);
        double a = 0;
        for (int k = lo; k < hi; ++k) {
            const double z = (w[k] - mean) * inv;  // zdist's value
            a += z;
            q += z * z;
        }
        tot += a;
        c[s * stride] = a;
    }
    for (int s = 0; s < W; ++s) {
        const int lo = (int)((int64_t)s * m / W), hi = (int)((int64_t)(s + 1) * m / W);
        const double r = std::sqrt((double)(hi - lo));
        c[s * stride] = c[s * stride] / r - r * (tot / m);
    }
    *norm2 = q;
}

void mk_principal_axes(int W, const double* sum, const double* sumsq, double count, std::vector<double>& V,
                       std::vector<double>& var) {
    std::vector<double> A((size_t)W * W);
    bool finite = count > 0;
    for (int a = 0; a < W; ++a)
        for (int b = 0; b < W; ++b) {
            const double u = sumsq[a * W + b] / count - (sum[a] / count) * (sum[b] / count);
            const double v = sumsq[b * W + a] / count - (sum[b] / count) * (sum[a] / count);
            A[a * W + b] = 0.5 * (u + v);
            finite = finite && std::isfinite(A[a * W + b]);
        }
    const std::vector<double> A0 = A;
    V.assign((size_t)W * W, 0.0);
    for (int a = 0; a < W; ++a) V[a * W + a] = 1.0;
    // cyclic Jacobi: V accumulates the rotations, A → diagonal
    for (int sweep = 0; finite && sweep < 64; ++sweep) {
        double off = 0, dia = 0;
        for (int a = 0; a < W; ++a) {
            dia += A[a * W + a] * A[a * W + a];
            for (int b = a + 1; b < W; ++b) off += A[a * W + b] * A[a * W + b];
        }
        if (!(off > 1e-30 * dia)) break;
        for (int p = 0; p < W; ++p)
            for (int q = p + 1; q < W; ++q) {
                const double apq = A[p * W + q];
                if (apq == 0.0) continue;
                const double th = (A[q * W + q] - A[p * W + p]) / (2.0 * apq);
                const double t = std::fabs(th) > 1e150 ? 0.5 / th
                                                       : (th >= 0 ? 1.0 : -1.0) / (std::fabs(th) + std::sqrt(th * th + 1.0));
                const double c = 1.0 / std::sqrt(t * t + 1.0), sn = t * c;
                for (int k = 0; k < W; ++k) {
                    const double akp = A[k * W + p], akq = A[k * W + q];
                    A[k * W + p] = c * akp - sn * akq;
                    A[k * W + q] = sn * akp + c * akq;
                }
                for (int k = 0; k < W; ++k) {
                    const double apk = A[p * W + k], aqk = A[q * W + k];
                    A[p * W + k] = c * apk - sn * aqk;
                    A[q * W + k] = sn * apk + c * aqk;
                }
                for (int k = 0; k < W; ++k) {
                    const double vkp = V[k * W + p], vkq = V[k * W + q];
                    V[k * W + p] = c * vkp - sn * vkq;
                    V[k * W + q] = sn * vkp + c * vkq;
                }
            }
    }
    // axes by descending variance (ties: index)
    std::vector<int> ord(W);
    std::iota(ord.begin(), ord.end(), 0);
    std::stable_sort(ord.begin(), ord.end(), [&](int a, int b) { return A[a * W + a] > A[b * W + b]; });
    std::vector<double> V2((size_t)W * W);
    var.assign(W, 0.0);
    for (int k = 0; k < W; ++k) {
        var[k] = std::max(0.0, A[ord[k] * W + ord[k]]);
        for (int a = 0; a < W; ++a) V2[a * W + k] = V[a * W + ord[k]];
    }
    V.swap(V2);
    // orthonormal to 1e-12, or no rotation at all (the bound needs ||Vᵀv|| ≤ ||v||)
    bool ok = finite;
    for (int k = 0; ok && k < W; ++k)
        for (int l = 0; ok && l < W; ++l) {
            double d = 0;
            for (int a = 0; a < W; ++a) d += V[a * W + k] * V[a * W + l];
            ok = std::isfinite(d) && std::fabs(d - (k == l ? 1.0 : 0.0)) <= 1e-12;
        }
    if (!ok) {
        V.assign((size_t)W * W, 0.0);
        for (int a = 0; a < W; ++a) {
            V[a * W + a] = 1.0;
            var[a] = std::isfinite(A0[a * W + a]) ? std::max(0.0, A0[a * W + a]) : 0.0;
        }
    }
}

void block_pair(std::vector<uint8_t>& blocked, int64_t a, int64_t b, int m) {
    const int64_t N = (int64_t)blocked.size();
    for (int64_t p : {a, b}) {
        int64_t lo = std::max<int64_t>(0, p - m + 1), hi = std::min<int64_t>(N - 1, p + m - 1);
        for (int64_t q = lo; q <= hi; ++q) blocked[q] = 1;
    }
}

namespace {

struct Best {
    double d = std::numeric_limits<double>::infinity();
    int64_t a = -1, b = -1;
    void offer(double d2, int64_t x, int64_t y) {
        int64_t lo = std::min(x, y), hi = std::max(x, y);
        if (a < 0 || pair_less(d2, lo, hi, d, a, b)) { d = d2; a = lo; b = hi; }
    }
};

}  // namespace

std::vector<MotifPair> motifs_mk_cpu(const double* x, int64_t n, int m, int64_t k, int64_t excl, int nref,
                                     TsExec* ex, MkStats* stats) {
    using clock = std::chrono::steady_clock;
    auto ms_since = [](clock::time_point t) {
        return std::chrono::duration<double, std::milli>(clock::now() - t).count();
    };
    const auto t_setup = clock::now();
    const double t_budget = steady_ms();  // ex->budget_ms counts from here
    const int64_t N = n - m + 1;
    MkStats local_stats;
    MkStats& S = stats ? *stats : local_stats;
    S = MkStats{};
    ZStats zs;
    zstats(x, n, m, zs, ex);
    auto dist = [&](int64_t a, int64_t b) {
        return zdist(x + a, zs.mean[a], zs.inv[a], zs.constant[a], x + b, zs.mean[b], zs.inv[b],
                     zs.constant[b], m);
    };

    // 1. references and D
    const std::vector<int64_t> refs = mk_references(N, nref);
    const int R = (int)refs.size();
    std::vector<double> D((size_t)R * N);
    const int64_t JB = std::max<int64_t>(64, (int64_t(1) << 18) / m);
    const int64_t jt = (N + JB - 1) / JB;
    parallel_for(ex, R * jt, [&](int64_t t) {
        int r = (int)(t / jt);
        int64_t lo = (t % jt) * JB, hi = std::min(N, lo + JB);
        for (int64_t j = lo; j < hi; ++j) D[(size_t)r * N + j] = dist(refs[r], j);
    });
    check_interrupt(ex);
    std::vector<double> ref_sd(R);
    for (int r = 0; r < R; ++r) {
        const double* row = &D[(size_t)r * N];
        double s = 0;
        for (int64_t j = 0; j < N; ++j) s += row[j];
        double mu = s / N, q = 0;
        for (int64_t j = 0; j < N; ++j) q += (row[j] - mu) * (row[j] - mu);
        ref_sd[r] = std::sqrt(q / N);
    }

    // 2. PAA coefficients (C[s·N + p]), their principal axes
    const int W = mk_paa_count(m);
    S.paa_segments = W;
    std::vector<double> paa((size_t)W * N), norm2(N);
    const int64_t PB = std::max<int64_t>(256, (int64_t(1) << 20) / m);
    parallel_for(ex, (N + PB - 1) / PB, [&](int64_t t) {
        int64_t lo = t * PB, hi = std::min(N, lo + PB);
        for (int64_t p = lo; p < hi; ++p)
            window_paa(x + p, m, zs.mean[p], zs.inv[p], zs.constant[p], W, &paa[p], N, &norm2[p]);
    });
    check_interrupt(ex);
    double zmax2 = 0;
    for (int64_t p = 0; p < N; ++p) zmax2 = std::max(zmax2, norm2[p]);
    const double slackP = mk_paa_slack(m, std::sqrt(zmax2));
    std::vector<double> V, var;
    {
        const int64_t stride = mk_pca_stride(N), cnt = (N + stride - 1) / stride;
        const int64_t SB = 4096, st = (cnt + SB - 1) / SB;
        std::vector<double> part((size_t)st * (W + W * W), 0.0);
        parallel_for(ex, st, [&](int64_t t) {
            double* sum = &part[(size_t)t * (W + W * W)];
            double* sq = sum + W;
            double c[kPaaSegments];
            for (int64_t e = t * SB; e < std::min(cnt, (t + 1) * SB); ++e) {
                const int64_t p = e * stride;
                for (int a = 0; a < W; ++a) c[a] = paa[(size_t)a * N + p];
                for (int a = 0; a < W; ++a) {
                    sum[a] += c[a];
                    for (int b = 0; b < W; ++b) sq[a * W + b] += c[a] * c[b];
                }
            }
        });
        for (int64_t t = 1; t < st; ++t)
            for (int e = 0; e < W + W * W; ++e) part[e] += part[(size_t)t * (W + W * W) + e];
        mk_principal_axes(W, part.data(), part.data() + W, (double)cnt, V, var);
    }

    // 3. the key: the PAA's first axis or the reference with the largest spread
    int r0 = 0;
    for (int r = 1; r < R; ++r)
        if (ref_sd[r] > ref_sd[r0]) r0 = r;
    const bool key_paa = std::sqrt(var[0]) > ref_sd[r0];
    S.order_reference = key_paa ? -1 : r0;
    auto axis = [&](int64_t p, int kk) {
        double y = 0;
        for (int a = 0; a < W; ++a) y += V[a * W + kk] * paa[(size_t)a * N + p];
        return y;
    };
    std::vector<double> key(N);
    for (int64_t p = 0; p < N; ++p) key[p] = key_paa ? axis(p, 0) : D[(size_t)r0 * N + p];
    std::vector<int64_t> IS(N);
    std::iota(IS.begin(), IS.end(), 0);
    std::sort(IS.begin(), IS.end(), [&](int64_t a, int64_t b) { return key[a] != key[b] ? key[a] < key[b] : a < b; });
    // the rows in linear order, float: the PAA axes (row 0 = the key when it
    // is axis 0), the references, and per window the key with the next seven
    // axes side by side, Pk[8i .. 8i+7] = (key, Y[k0][i], .., Y[k0+6][i])
    // (0 past the last axis): one cache line for most pairs
    constexpr int PK = 8;
    std::vector<float> Pk((size_t)N * PK, 0.0f), Y((size_t)W * N), Dp((size_t)R * N);
    parallel_for(ex, (N + PB - 1) / PB, [&](int64_t t) {
        int64_t lo = t * PB, hi = std::min(N, lo + PB);
        for (int64_t i = lo; i < hi; ++i) {
            const int64_t p = IS[i];
            const float ki = (float)key[p];
            Pk[(size_t)i * PK] = ki;
            for (int kk = 0; kk < W; ++kk) {
                const float f = (kk == 0 && key_paa) ? ki : (float)axis(p, kk);
                Y[(size_t)kk * N + i] = f;
                if (kk >= (key_paa ? 1 : 0) && kk < (key_paa ? 1 : 0) + PK - 1)
                    Pk[(size_t)i * PK + 1 + kk - (key_paa ? 1 : 0)] = f;
            }
            for (int r = 0; r < R; ++r) Dp[(size_t)r * N + i] = (float)D[(size_t)r * N + p];
        }
    });
    check_interrupt(ex);
    paa.clear();
    paa.shrink_to_fit();
    const int k0 = key_paa ? 1 : 0;  // PAA rows left after the key
    const double slack = mk_slack(m), slackK = key_paa ? slackP : slack;
    S.setup_ms = ms_since(t_setup);

    const auto t_loop = clock::now();
    std::vector<uint8_t> blocked(N, 0), blockedS(N, 0);
    std::vector<MotifPair> result;
    for (int64_t rank = 0; rank < k; ++rank) {
        check_interrupt(ex);
        ++S.runs;
        for (int64_t i = 0; i < N; ++i) blockedS[i] = blocked[IS[i]];
        // InitBSF: the best eligible (reference, window) pair
        Best best;
        for (int r = 0; r < R; ++r) {
            int64_t p = refs[r];
            if (blocked[p]) continue;
            const double* row = &D[(size_t)r * N];
            for (int64_t j = 0; j < N; ++j)
                if (!blocked[j] && std::llabs(j - p) >= excl && row[j] <= best.d) best.offer(row[j], p, j);
        }
        // 3–4. the offset loop, in chunks of offsets; a tile of positions i
        // scans each i's offsets in order and stops at the first whose key gap
        // exceeds the threshold (the gap grows with the offset); that gap is a
        // lower bound of the gaps at every later offset of the chunk (brk).
        int64_t o0 = 1, CH = 8, last = 0;
        const int64_t IB = 1024;
        bool stop = false;
        while (!stop && o0 < N) {
            check_budget(ex, t_budget);
            const int64_t Ce = std::min(CH, N - o0);
            const int64_t span = N - o0;  // i ranges over [0, N - o)
            const int64_t nt = (span + IB - 1) / IB;
            std::vector<Best> tb(nt);
            std::vector<float> mingap((size_t)nt * Ce);
            std::vector<int64_t> computed(nt, 0);
            parallel_for(ex, nt, [&](int64_t t) {
                Best lb = best;
                float thrK = mk_threshold(lb.d, slackK), thr2 = mk_threshold2(lb.d, slackP),
                      thrR = mk_threshold(lb.d, slack);
                int64_t cnt = 0;
                const int64_t lo = t * IB, hi = std::min(lo + IB, span);
                const float inf = std::numeric_limits<float>::infinity();
                float* mg = &mingap[(size_t)t * Ce];
                std::vector<float> brk(Ce, inf);
                std::fill(mg, mg + Ce, inf);
                float yi[kPaaSegments];
                const float* const PkP = Pk.data();
                float* const __restrict mgp = mg;
                for (int64_t i = lo; i < hi; ++i) {
                    float pi[PK];
                    for (int q = 0; q < PK; ++q) pi[q] = PkP[(size_t)i * PK + q];
                    for (int kk = k0 + PK - 1; kk < W; ++kk) yi[kk] = Y[(size_t)kk * N + i];
                    const bool bi = blockedS[i] != 0;
                    const int64_t a = IS[i];
                    const int64_t oe = std::min(Ce, N - o0 - i);
                    for (int64_t oo = 0; oo < oe; ++oo) {
                        const int64_t j = i + o0 + oo;
                        const float* pj = PkP + (size_t)j * PK;
                        const float g = pj[0] - pi[0];
                        if (g > thrK) {
                            brk[oo] = std::min(brk[oo], g);
                            break;
                        }
                        if (g < mgp[oo]) mgp[oo] = g;
                        if (bi) continue;
                        float e[PK];
                        e[0] = k0 ? g * g : 0.0f;
                        for (int q = 1; q < PK; ++q) e[q] = (pj[q] - pi[q]) * (pj[q] - pi[q]);
                        float sq = ((e[0] + e[1]) + (e[2] + e[3])) + ((e[4] + e[5]) + (e[6] + e[7]));
                        bool pruned = sq > thr2;
                        for (int kk = k0 + PK - 1; kk < W && !pruned; ++kk) {
                            const float dk = Y[(size_t)kk * N + j] - yi[kk];
                            sq += dk * dk;
                            pruned = sq > thr2;
                        }
                        for (int r = 0; r < R && !pruned; ++r) {
                            const float* row = &Dp[(size_t)r * N];
                            pruned = std::fabs(row[j] - row[i]) > thrR;
                        }
                        if (pruned || blockedS[j]) continue;
                        const int64_t b = IS[j];
                        if (std::llabs(a - b) < excl) continue;
                        // exact distance, abandoned (+inf) once it must exceed bsf + slack
                        const double lim = lb.d + slack;
                        double d = zdist_bounded(x + a, zs.mean[a], zs.inv[a], zs.constant[a], x + b, zs.mean[b],
                                                 zs.inv[b], zs.constant[b], m, lim * lim);
                        ++cnt;
                        if (d <= lb.d) {
                            lb.offer(d, a, b);
                            thrK = mk_threshold(lb.d, slackK);
                            thr2 = mk_threshold2(lb.d, slackP);
                            thrR = mk_threshold(lb.d, slack);
                        }
                    }
                }
                float run = inf;
                for (int64_t oo = 0; oo < Ce; ++oo) {
                    run = std::min(run, brk[oo]);
                    mg[oo] = std::min(mg[oo], run);
                }
                tb[t] = lb;
                computed[t] = cnt;
            });
            for (int64_t t = 0; t < nt; ++t) {
                if (tb[t].a >= 0) best.offer(tb[t].d, tb[t].a, tb[t].b);
                S.pairs_computed += computed[t];
            }
            // stopping rule, on the minimum over the tiles of each offset's gap bound
            stop = mk_chunk_stops(
                best.d, slackK, Ce,
                [&](int64_t oo) {
                    float mg = std::numeric_limits<float>::infinity();
                    for (int64_t t = 0; t < nt; ++t) mg = std::min(mg, mingap[(size_t)t * Ce + oo]);
                    return mg;
                },
                o0, last, S);
            if (!stop && CH < 1024 && CH * N < (int64_t(1) << 26)) CH *= 2;
        }
        S.last_offset = last;
        if (best.a < 0) break;  // no eligible pair is left
        result.push_back({best.a, best.b, best.d});
        block_pair(blocked, best.a, best.b, m);
    }
    S.scan_ms = ms_since(t_loop);
    return result;
}

// ---- motifs from a matrix profile ------------------------------------------

namespace {

class CpuProfiler : public WindowProfiler {
  public:
    CpuProfiler(const double* x, int64_t n, int m, TsExec* ex) : x_(x), N_(n - m + 1), m_(m), ex_(ex) {
        zstats(x, n, m, zs_, ex);
    }
    void profile(int64_t i, double* out) override {
        const int64_t B = std::max<int64_t>(256, (int64_t(1) << 18) / m_);
        parallel_for(ex_, (N_ + B - 1) / B, [&](int64_t t) {
            int64_t lo = t * B, hi = std::min(N_, lo + B);
            for (int64_t j = lo; j < hi; ++j)
                out[j] = zdist(x_ + i, zs_.mean[i], zs_.inv[i], zs_.constant[i], x_ + j, zs_.mean[j],
                               zs_.inv[j], zs_.constant[j], m_);
        });
    }

  private:
    const double* x_;
    int64_t N_;
    int m_;
    TsExec* ex_;
    ZStats zs_;
};

}  // namespace

std::unique_ptr<WindowProfiler> make_cpu_profiler(const double* x, int64_t n, int m, TsExec* ex) {
    return std::unique_ptr<WindowProfiler>(new CpuProfiler(x, n, m, ex));
}

// Greedy top-k from a profile, exactly.  A heap holds one entry per window:
// first a lower bound (profile distance − slack), later the exact best allowed
// partner (distance profile of the window, blocked windows and |i−j| < excl
// left out; ties: smaller partner).  Popping the smallest key:
//   * blocked window: dropped;
//   * lower bound: replaced by the window's exact best allowed pair;
//   * exact pair whose partner got blocked since: recomputed (it can only grow);
//   * exact pair still allowed: it is the next rank — every other allowed pair
//     has a key at least that of its window's entry (lower bounds stay lower
//     bounds as windows get blocked), and lower bounds sort before exact pairs
//     of the same distance.
std::vector<MotifPair> select_top_motifs_from_profile(int64_t n, int m, const double* pd, int64_t k,
                                                      int64_t excl, WindowProfiler& prof, const TsExec* ex) {
    const int64_t N = n - m + 1;
    struct Entry {
        double d;
        int64_t a, b;  // -1 for a lower bound
        int64_t owner;
        bool operator>(const Entry& o) const {
            if (d != o.d) return d > o.d;
            if (a != o.a) return a > o.a;
            if (b != o.b) return b > o.b;
            return owner > o.owner;
        }
    };
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    const double slack = 1e-6 * (1.0 + 2.0 * std::sqrt((double)m));
    // The lower bounds enter the heap in batches, smallest first: every bound
    // not loaded yet ranks after `loaded_to`, so while the heap's top ranks
    // before it the pops are those of a heap holding every bound (the result is
    // the same), and a batch is loaded only when the top passes it.  A batch is
    // chosen by a bounded heap over the profile: O(N log T), no sort of N.
    auto lower_bound_of = [&](int64_t i, Entry& e) {
        const double v = pd[i];
        if (v == std::numeric_limits<double>::infinity()) return false;  // no neighbour at all
        e = {std::isnan(v) ? 0.0 : std::max(0.0, v - slack), -1, -1, i};
        return true;
    };
    Entry loaded_to{-1.0, -1, -1, -1};  // ranks before every bound
    bool more_bounds = true;
    size_t batch = (size_t)std::max<int64_t>(256, 8 * k);
    auto load_batch = [&] {
        std::vector<Entry> best;  // max-heap (by >) of the batch's smallest bounds after loaded_to
        best.reserve(batch);
        auto worse = [](const Entry& a, const Entry& b) { return b > a; };  // top = the largest kept
        for (int64_t i = 0; i < N; ++i) {
            const double v = pd[i];
            // quick rejections on the bound's value alone (most windows)
            if (best.size() == batch && v - slack > best.front().d) continue;  // NaN: not rejected here
            Entry e;
            if (!lower_bound_of(i, e) || !(e > loaded_to)) continue;
            if (best.size() < batch) {
                best.push_back(e);
                std::push_heap(best.begin(), best.end(), worse);
            } else if (best.front() > e) {
                std::pop_heap(best.begin(), best.end(), worse);
                best.back() = e;
                std::push_heap(best.begin(), best.end(), worse);
            }
        }
        more_bounds = best.size() == batch;
        if (!best.empty()) loaded_to = best.front();
        for (const Entry& e : best) heap.push(e);
        batch = (size_t)std::min<int64_t>(N, (int64_t)batch * 8);
    };
    load_batch();
    std::vector<uint8_t> blocked(N, 0);
    std::vector<double> dp(N);
    std::vector<MotifPair> result;
    auto exact_entry = [&](int64_t i, Entry& e) {
        prof.profile(i, dp.data());
        check_interrupt(ex);
        int64_t bj = -1;
        double bd = 0;
        for (int64_t j = 0; j < N; ++j) {
            if (blocked[j] || std::llabs(i - j) < excl) continue;
            if (bj < 0 || dp[j] < bd) { bd = dp[j]; bj = j; }  // ties: smaller j (scanned first)
        }
        if (bj < 0) return false;
        e = {bd, std::min(i, bj), std::max(i, bj), i};
        return true;
    };
    while ((int64_t)result.size() < k) {
        if (more_bounds && (heap.empty() || heap.top() > loaded_to)) {
            load_batch();
            continue;
        }
        if (heap.empty()) break;
        Entry e = heap.top();
        heap.pop();
        const int64_t i = e.owner;
        if (blocked[i]) continue;
        const int64_t partner = e.a < 0 ? -1 : (e.a == i ? e.b : e.a);
        if (e.a < 0 || blocked[partner]) {
            Entry f;
            if (exact_entry(i, f)) heap.push(f);
            continue;
        }
        result.push_back({e.a, e.b, e.d});
        block_pair(blocked, e.a, e.b, m);
    }
    return result;
}

}  // namespace tsm

// ---- C entry points -----------------------------------------------------------

namespace {

void check_finite(const double* x, int64_t n, const char* what) {
    tsm::require_finite(x, n, what, "Remove or interpolate the missing values before searching for motifs.");
}

void check_motif_args(const double* x, int64_t n, int32_t m, int64_t k, int64_t exclusion) {
    if (m < 3) tsm::invalid(tsm::format("window length m must be at least 3, not %d", (int)m));
    if (n < 0 || !x) tsm::invalid("series is missing");
    if (exclusion < 1)
        tsm::invalid(tsm::format("exclusion_zone must be at least 1, not %lld", (long long)exclusion),
                     "Leave it NULL to use the window length, which gives non-overlapping motifs.");
    if (k < 1) tsm::invalid(tsm::format("k must be at least 1, not %lld", (long long)k));
    if (n < (int64_t)m || n - m < exclusion)
        tsm::invalid(tsm::format("series of length %lld is too short for two windows of length %d at least "
                                 "%lld apart",
                                 (long long)n, (int)m, (long long)exclusion),
                     "Use a longer series, a shorter window or a smaller exclusion zone.");
    if (n - m + 1 > (int64_t)INT32_MAX) tsm::invalid("series too long for motif search (more than 2^31 windows)");
    check_finite(x, n, "series");
}

void fill_motifs(const std::vector<tsm::MotifPair>& r, TsExec* ex, TsMotifs* out) {
    out->count = (int64_t)r.size();
    out->pos_a = tsm::alloc_result<int64_t>(ex, r.size());
    out->pos_b = tsm::alloc_result<int64_t>(ex, r.size());
    out->dist = tsm::alloc_result<double>(ex, r.size());
    for (size_t i = 0; i < r.size(); ++i) {
        out->pos_a[i] = r[i].a;
        out->pos_b[i] = r[i].b;
        out->dist[i] = r[i].d;
    }
}

}  // namespace

extern "C" int tsm_motifs_mk(const double* x, int64_t n, int32_t m, int64_t k, int64_t exclusion,
                             int32_t n_references, TsExec* ex, TsMotifs* out, TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        check_motif_args(x, n, m, k, exclusion);
        if (n_references < 1)
            tsm::invalid(tsm::format("n_references must be at least 1, not %d", (int)n_references),
                         "MK needs at least one reference window; 10 is a good default.");
        std::vector<tsm::MotifPair> r;
        if (tsm::use_gpu(ex, TS_WORK_MOTIFS, n, m)) {
#ifdef TSMINE_WITH_CUDA
            r = tsm::gpu::motifs_mk(x, n, m, k, exclusion, n_references, ex);
#endif
        } else {
            r = tsm::motifs_mk_cpu(x, n, m, k, exclusion, n_references, ex);
        }
        fill_motifs(r, ex, out);
    });
}

extern "C" int tsm_motifs_from_profile(const double* x, int64_t n, int32_t m, const double* profile_dist,
                                       const int64_t* profile_index, int64_t k, int64_t exclusion, TsExec* ex,
                                       TsMotifs* out, TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        check_motif_args(x, n, m, k, exclusion);
        const int64_t N = n - m + 1;
        if (!profile_dist) tsm::invalid("matrix profile is missing");
        if (profile_index)
            for (int64_t i = 0; i < N; ++i)
                if (profile_index[i] < -1 || profile_index[i] >= N)
                    tsm::invalid(tsm::format("matrix profile index %lld at position %lld is out of range",
                                             (long long)profile_index[i], (long long)i));
        std::unique_ptr<tsm::WindowProfiler> prof;
        if (tsm::use_gpu(ex, TS_WORK_MOTIFS, n, m)) {
#ifdef TSMINE_WITH_CUDA
            prof = tsm::gpu::make_window_profiler(x, n, m, ex);
#endif
        } else {
            prof = tsm::make_cpu_profiler(x, n, m, ex);
        }
        fill_motifs(tsm::select_top_motifs_from_profile(n, m, profile_dist, k, exclusion, *prof, ex), ex, out);
    });
}

namespace {

// ts_motifs' checks that MK and the profile path share, before any work.
void check_motifs_call(int64_t n, int32_t m, int64_t exclusion, int32_t n_references) {
    if (n_references < 1)
        tsm::invalid(tsm::format("n_references must be at least 1, not %d", (int)n_references),
                     "MK compares windows through their distances to n_references reference windows; "
                     "10 is usual.");
    if (m >= 3 && exclusion >= 1 && n > 0 && n - m < exclusion)
        tsm::invalid(tsm::format("series of length %lld is too short for two windows of length %d at least "
                                 "%lld apart",
                                 (long long)n, (int)m, (long long)exclusion),
                     "Use a longer series, a shorter window or a smaller exclusion zone.");
}

// Motifs by way of the matrix profile: the profile, then the exact pairs from it.
int motifs_by_profile(const double* x, int64_t n, int32_t m, int64_t k, int64_t exclusion, TsExec* ex,
                      TsMotifs* out, TsStatus* st) {
    ex->used_method = "matrix_profile";
    TsProfile p;
    int code = tsm_matrix_profile(x, n, m, exclusion, ex, &p, st);
    if (code != TS_OK) return code;
    return tsm_motifs_from_profile(x, n, m, p.dist, p.index, k, exclusion, ex, out, st);
}

}  // namespace

extern "C" int tsm_motifs(const double* x, int64_t n, int32_t m, int64_t k, int64_t exclusion, int32_t method,
                          int32_t n_references, TsExec* ex, TsMotifs* out, TsStatus* st) noexcept {
    std::memset(out, 0, sizeof *out);
    int code = tsm::guard(st, [&] { check_motifs_call(n, m, exclusion, n_references); });
    if (code != TS_OK || n == 0) return code;
    // auto: MK, within a time budget of what the matrix profile would take;
    // past it, the matrix profile.  MK is usually much faster (bench/motifs.sh),
    // but its pruning depends on the data and it re-runs for every rank; the
    // budget bounds auto at about twice the profile's time.  Where the profile
    // cannot run (2m > n): MK without a budget.
    if (method == TS_MOTIFS_AUTO && 2 * (int64_t)m > n) method = TS_MOTIFS_MK;
    if (method == TS_MOTIFS_MATRIX_PROFILE) return motifs_by_profile(x, n, m, k, exclusion, ex, out, st);
    ex->used_method = "mk";
    if (method == TS_MOTIFS_AUTO) ex->budget_ms = tsm_matrix_profile_estimate_ms(n, m, ex);
    code = tsm_motifs_mk(x, n, m, k, exclusion, n_references, ex, out, st);
    ex->budget_ms = 0;
    if (code != TS_OVER_BUDGET) return code;
    ex->device_ms = ex->kernel_ms = ex->device_bytes = 0;
    return motifs_by_profile(x, n, m, k, exclusion, ex, out, st);
}
