// motifs.cpp — exact motifs on the CPU (MK), motifs from a matrix profile,
// window statistics and the distance on the host, and the C entry points of
// motifs.  The arithmetic shared with the GPU is in motifs_detail.h.
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
// pruning never drops a pair whose bound equals bsf (slack, see
// motif::pruning_slack).
//
// The PAA bound (beyond the thesis; it makes MK fast on smooth series such as
// random walks, whose reference bounds are weak).  Let ẑ be a window's
// z-normalised values exactly as zdist computes them, (x_k − μ)·(1/σ) in
// double, and the zero vector for a constant window (which makes the STUMPY
// rule Euclidean: |0 − 0| = 0, and |0 − ẑ| ≈ sqrt(m)).  zdist returns
// d = ||δ − δ̄·1||, δ = ẑa − ẑb.  With u_s = 1_{segment s}/sqrt(len_s)
// (W segments, orthonormal) and P the orthogonal projection onto
// span{u_s} ∩ 1⊥, the PAA coefficients c = coordinates of P·ẑ in the u_s
// (motif::window_paa), Bessel's inequality gives ||c(a) − c(b)|| = ||P(δ − δ̄·1)|| ≤ d.
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
// W ≤ 32 terms, in any order, each product rounded or fused into its
// addition, satisfies s ≤ (1 + γ_34)·Σ Δf_k², γ_34 < 2.1e-6; so
// s > thr2 ≥ t²/(1 − 1e-5) implies ||Δf|| ≥ t·sqrt((1 − 2.1e-6)/(1 − 1e-5))
// ≥ t·(1 + 3.9e-6), and ||Δy|| ≥ ||Δf|| − 1.2e-7·Z > t − 1.2e-7·Z.  In both
// cases the projected distance exceeds bsf + slackP − 2.5e-7·Z, and
// slackP = pruning_slack(m)·Z/sqrt(m) + (zmax − sqrt(m))⁺ ≥ 2e-6·Z + (zmax −
// sqrt(m))⁺: for non-constant pairs d (computed by zdist to 1e-12 relative)
// exceeds bsf; for constant vs non-constant ones ||Δy|| ≤ zmax, so
// sqrt(m) = d > bsf; constant pairs have Δy = 0 and are never pruned by it.
#include "motifs.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <set>

#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "args.h"
#include "dispatch.h"
#include "error.h"
#include "finite.h"
#include "matrix_profile.h"
#include "mp_detail.h"
#include "parallel.h"
#include "progress.h"

namespace tsm {

using motif::BestPair;
using motif::kPaaSegments;
using motif::kRowHead;

// ---- the series, window statistics and the distance ------------------------------

static_assert(motif::kProfileRhoTolerance >= 25.0 / 4 * mp::kGuardTol + 0x1p-40,
              "the profile path's bounds must cover the profile's guarantee (mp_detail.h)");

int unit_scale_exponent(const double* x, int64_t n) {
    double top = 0;  // the largest finite magnitude (gaps stay gaps; a select, no branch: it vectorises)
    for (int64_t i = 0; i < n; ++i) {
        const double a = std::fabs(x[i]);
        top = a <= std::numeric_limits<double>::max() && a > top ? a : top;
    }
    return mp::scale_exponent(top);
}

std::vector<double> scaled_by(const double* x, int64_t n, int e) {
    std::vector<double> out(n);
    for (int64_t i = 0; i < n; ++i) out[i] = frames::times_pow2_up(x[i], e);
    return out;
}

std::vector<double> unit_scaled(const double* x, int64_t n) { return scaled_by(x, n, unit_scale_exponent(x, n)); }

double raw_distance_unscaled(double d, int e) {
    const double v = mp::scale_any(d, -e);
    if (std::isinf(v) && !std::isinf(d))
        throw Error(TS_INVALID_ARGUMENT, kNumericOutOfRange,
                    "a raw-value distance exceeds the float64 range",
                    "Scale the series down (a power of two changes every distance by the same factor), "
                    "or use normalized => true.");
    return v;
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
        for (int64_t i = lo; i < hi; ++i)
            motif::window_zstat(x + i, m, &out.mean[i], &out.inv[i], &out.constant[i]);
    });
}

namespace {

// The warp's halving tree (motif::warp_merge_lanes) on 32 lane sums: lane 0 ends with the total.
void merge_lanes(double* s, double* q) {
    for (int off = motif::kLanes / 2; off > 0; off >>= 1)
        for (int l = 0; l < off; ++l) motif::lane_merge(s[l], q[l], s[l + off], q[l + off]);
}

}  // namespace

// The warp's accumulation (motifs_detail.h) with 32 accumulators.
double zdist_bounded(const double* a, double mua, double inva, bool ca, const double* b, double mub, double invb,
                     bool cb, int m, double lim2) {
    using motif::kLanes;
    const double inf = std::numeric_limits<double>::infinity();
    if (motif::gap_window(inva) || motif::gap_window(invb)) return inf;
    if (ca || cb) return motif::constant_pair_distance(ca, cb, m);
    const bool bounded = lim2 < inf;
    double s[kLanes] = {}, q[kLanes] = {};
    int base = 0;
    for (; base + kLanes <= m; base += kLanes) {
        for (int l = 0; l < kLanes; ++l)
            motif::lane_add(s[l], q[l], motif::z_difference(a[base + l], mua, inva, b[base + l], mub, invb));
        const int p = base + kLanes;
        if (bounded && motif::abandon_point(p, m)) {
            double sp[kLanes], qp[kLanes];
            std::copy(s, s + kLanes, sp);
            std::copy(q, q + kLanes, qp);
            merge_lanes(sp, qp);
            if (motif::prefix_bound_exceeds(sp[0], qp[0], p, lim2)) return inf;
        }
    }
    for (int l = 0; base + l < m; ++l)
        motif::lane_add(s[l], q[l], motif::z_difference(a[base + l], mua, inva, b[base + l], mub, invb));
    merge_lanes(s, q);
    return motif::distance_from_sums(s[0], q[0], m);
}

double zdist(const double* a, double mua, double inva, bool ca, const double* b, double mub, double invb, bool cb,
             int m) {
    return zdist_bounded(a, mua, inva, ca, b, mub, invb, cb, m, std::numeric_limits<double>::infinity());
}

// ---- MK's setup, shared by both paths (host) ---------------------------------------

std::vector<int64_t> mk_references(int64_t N, int n_refs) {
    int64_t count = std::min<int64_t>({(int64_t)n_refs, N, (int64_t)kMaxReferences});
    std::vector<int64_t> refs;
    if (count >= N) {
        refs.resize(N);
        std::iota(refs.begin(), refs.end(), 0);
        return refs;
    }
    std::mt19937_64 rng(0x6d6b2d72656673ULL);  // fixed seed: same references every call
    while ((int64_t)refs.size() < count) {
        int64_t p = (int64_t)(rng() % (uint64_t)N);
        if (std::find(refs.begin(), refs.end(), p) == refs.end()) refs.push_back(p);
    }
    return refs;
}

namespace {

// The coefficients' covariance (symmetrised) into A (W × W); false if not finite.
bool axes_covariance(int W, const double* sum, const double* sumsq, double count, std::vector<double>& A) {
    A.assign((size_t)W * W, 0.0);
    bool finite = count > 0;
    for (int a = 0; a < W; ++a)
        for (int b = 0; b < W; ++b) {
            const double u = sumsq[a * W + b] / count - (sum[a] / count) * (sum[b] / count);
            const double v = sumsq[b * W + a] / count - (sum[b] / count) * (sum[a] / count);
            A[a * W + b] = 0.5 * (u + v);
            finite = finite && std::isfinite(A[a * W + b]);
        }
    return finite;
}

// (u_k, v_k) ← (c·u_k − s·v_k, s·u_k + c·v_k) for the W pairs u[k·step], v[k·step].
void rotate_pairs(double* u, double* v, int W, int step, double c, double s) {
    for (int k = 0; k < W; ++k) {
        const double uk = u[k * step], vk = v[k * step];
        u[k * step] = c * uk - s * vk;
        v[k * step] = s * uk + c * vk;
    }
}

// One Jacobi rotation of A (W × W) in the plane (p, q) that zeroes A[p][q]; V accumulates it.
void jacobi_rotate(int W, int p, int q, std::vector<double>& A, std::vector<double>& V) {
    const double apq = A[p * W + q];
    const double th = (A[q * W + q] - A[p * W + p]) / (2.0 * apq);
    const double t = std::fabs(th) > 1e150 ? 0.5 / th
                                           : (th >= 0 ? 1.0 : -1.0) / (std::fabs(th) + std::sqrt(th * th + 1.0));
    const double c = 1.0 / std::sqrt(t * t + 1.0), sn = t * c;
    rotate_pairs(&A[p], &A[q], W, W, c, sn);          // columns p and q of A
    rotate_pairs(&A[p * W], &A[q * W], W, 1, c, sn);  // rows p and q of A
    rotate_pairs(&V[p], &V[q], W, W, c, sn);          // columns p and q of V
}

// Cyclic Jacobi: A → diagonal, V (starting at I) accumulates the rotations.
void jacobi_diagonalise(int W, std::vector<double>& A, std::vector<double>& V) {
    for (int sweep = 0; sweep < 64; ++sweep) {
        double off = 0, dia = 0;
        for (int a = 0; a < W; ++a) {
            dia += A[a * W + a] * A[a * W + a];
            for (int b = a + 1; b < W; ++b) off += A[a * W + b] * A[a * W + b];
        }
        if (!(off > 1e-30 * dia)) break;
        for (int p = 0; p < W; ++p)
            for (int q = p + 1; q < W; ++q)
                if (A[p * W + q] != 0.0) jacobi_rotate(W, p, q, A, V);
    }
}

// V's columns orthonormal to 1e-12.
bool orthonormal(int W, const std::vector<double>& V) {
    for (int k = 0; k < W; ++k)
        for (int l = 0; l < W; ++l) {
            double d = 0;
            for (int a = 0; a < W; ++a) d += V[a * W + k] * V[a * W + l];
            if (!(std::isfinite(d) && std::fabs(d - (k == l ? 1.0 : 0.0)) <= 1e-12)) return false;
        }
    return true;
}

}  // namespace

void mk_principal_axes(int W, const double* sum, const double* sumsq, double count, std::vector<double>& V,
                       std::vector<double>& var) {
    std::vector<double> A;
    const bool finite = axes_covariance(W, sum, sumsq, count, A);
    const std::vector<double> A0 = A;
    V.assign((size_t)W * W, 0.0);
    for (int a = 0; a < W; ++a) V[a * W + a] = 1.0;
    if (finite) jacobi_diagonalise(W, A, V);
    // axes by descending variance (ties: index)
    std::vector<int> ord(W);
    std::iota(ord.begin(), ord.end(), 0);
    std::stable_sort(ord.begin(), ord.end(), [&](int a, int b) { return A[a * W + a] > A[b * W + b]; });
    std::vector<double> sorted((size_t)W * W);
    var.assign(W, 0.0);
    for (int k = 0; k < W; ++k) {
        var[k] = std::max(0.0, A[ord[k] * W + ord[k]]);
        for (int a = 0; a < W; ++a) sorted[a * W + k] = V[a * W + ord[k]];
    }
    V.swap(sorted);
    // orthonormal to 1e-12, or no rotation at all (the bound needs ||Vᵀv|| ≤ ||v||)
    if (!(finite && orthonormal(W, V))) {
        V.assign((size_t)W * W, 0.0);
        for (int a = 0; a < W; ++a) {
            V[a * W + a] = 1.0;
            var[a] = std::isfinite(A0[a * W + a]) ? std::max(0.0, A0[a * W + a]) : 0.0;
        }
    }
}

MkPlan mk_plan(int m, int W, const std::vector<double>& ref_sd, std::vector<double>& moment_blocks, int64_t samples,
               double zmax2, MkStats& S) {
    MkPlan plan;
    plan.W = W;
    const int E = W + W * W;
    const int64_t blocks = (int64_t)moment_blocks.size() / E;
    for (int64_t t = 1; t < blocks; ++t)
        for (int e = 0; e < E; ++e) moment_blocks[e] += moment_blocks[(size_t)t * E + e];
    mk_principal_axes(W, moment_blocks.data(), moment_blocks.data() + W, (double)samples, plan.V, plan.var);
    plan.key_paa = motif::choose_key(ref_sd.data(), (int)ref_sd.size(), plan.var[0], &plan.r0);
    plan.k0 = plan.key_paa ? 1 : 0;
    plan.slack = motif::pruning_slack(m);
    plan.slack_paa = motif::paa_slack(m, std::sqrt(zmax2));
    plan.slack_key = plan.key_paa ? plan.slack_paa : plan.slack;
    S.order_reference = plan.key_paa ? -1 : plan.r0;
    S.paa_segments = W;
    return plan;
}

void block_pair(std::vector<uint8_t>& blocked, int64_t a, int64_t b, int m) {
    const int64_t N = (int64_t)blocked.size();
    for (int64_t p : {a, b}) {
        int64_t lo = std::max<int64_t>(0, p - m + 1), hi = std::min<int64_t>(N - 1, p + m - 1);
        for (int64_t q = lo; q <= hi; ++q) blocked[q] = 1;
    }
}

std::vector<MotifPair> mk_ranks(int64_t N, int m, int64_t k, MkStats& S,
                                const std::function<BestPair(const std::vector<uint8_t>&)>& best_pair) {
    std::vector<uint8_t> blocked(N, 0);
    std::vector<MotifPair> result;
    for (int64_t rank = 0; rank < k; ++rank) {
        ++S.runs;
        const BestPair best = best_pair(blocked);
        if (best.a < 0) break;
        result.push_back({best.a, best.b, best.d});
        block_pair(blocked, best.a, best.b, m);
    }
    return result;
}

// ---- MK on the CPU ---------------------------------------------------------------

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// MK's index on the CPU: the references, their distances, and the rows in
// linear order that the offset loop reads.
struct MkIndex {
    int64_t N = 0;
    int m = 0;
    int n_refs = 0;
    std::vector<int64_t> refs;
    std::vector<double> D;         // n_refs × N: D[r·N + j] = d(reference r, window j)
    MkPlan plan;
    std::vector<int64_t> order;    // the window at linear position i
    std::vector<float> head;       // N × kRowHead: (key, the seven PAA rows after it) by position
    std::vector<float> Y;          // W × N: the PAA rows by position
    std::vector<float> Dp;         // n_refs × N: the reference rows by position
};

// Windows per parallel task of the setup's loops over windows.
int64_t setup_block(int m) { return std::max<int64_t>(256, (int64_t(1) << 20) / m); }

std::vector<double> reference_distances(const double* x, const ZStats& zs, const std::vector<int64_t>& refs,
                                        TsExec* ex) {
    const int64_t N = zs.count;
    const int m = zs.m;
    std::vector<double> D(refs.size() * N);
    const int64_t JB = std::max<int64_t>(64, (int64_t(1) << 18) / m);
    const int64_t jt = (N + JB - 1) / JB;
    parallel_for(ex, (int64_t)refs.size() * jt, [&](int64_t t) {
        const int64_t r = t / jt, p = refs[r];
        const int64_t lo = (t % jt) * JB, hi = std::min(N, lo + JB);
        for (int64_t j = lo; j < hi; ++j)
            D[r * N + j] = zdist(x + p, zs.mean[p], zs.inv[p], zs.constant[p], x + j, zs.mean[j], zs.inv[j],
                                 zs.constant[j], m);
    });
    check_interrupt(ex);
    return D;
}

// The spread of each reference's distances, in the lanes and tree of motifs_detail.h.
std::vector<double> reference_spreads(const std::vector<double>& D, int n_refs, int64_t N) {
    using motif::kSpreadLanes;
    std::vector<double> sd(n_refs);
    std::vector<double> lanes(kSpreadLanes);
    auto total = [&] {
        for (int w = kSpreadLanes / 2; w > 0; w >>= 1)
            for (int t = 0; t < w; ++t) motif::spread_tree_step(lanes.data(), t, w);
        return lanes[0];
    };
    for (int r = 0; r < n_refs; ++r) {
        const double* row = &D[(size_t)r * N];
        std::fill(lanes.begin(), lanes.end(), 0.0);
        for (int64_t j = 0; j < N; ++j) motif::spread_add(lanes[j % kSpreadLanes], row[j]);
        const double mean = motif::spread_mean(total(), N);
        std::fill(lanes.begin(), lanes.end(), 0.0);
        for (int64_t j = 0; j < N; ++j) motif::spread_add_sqdev(lanes[j % kSpreadLanes], row[j], mean);
        sd[r] = motif::spread_sd(total(), N);
    }
    return sd;
}

// The PAA coefficients of every window, C[s·N + p]; returns the largest Σ ẑ².
double paa_coefficients(const double* x, const ZStats& zs, int W, TsExec* ex, std::vector<double>& C) {
    const int64_t N = zs.count, PB = setup_block(zs.m);
    C.resize((size_t)W * N);
    std::vector<double> norm2(N);
    parallel_for(ex, (N + PB - 1) / PB, [&](int64_t t) {
        const int64_t lo = t * PB, hi = std::min(N, lo + PB);
        for (int64_t p = lo; p < hi; ++p)
            motif::window_paa(x + p, zs.m, zs.mean[p], zs.inv[p], zs.constant[p], W, &C[p], N, &norm2[p]);
    });
    check_interrupt(ex);
    double zmax2 = 0;
    for (int64_t p = 0; p < N; ++p) zmax2 = std::max(zmax2, norm2[p]);
    return zmax2;
}

// The moment sums of the sampled windows' coefficients, one block of W + W²
// values per kAxesSumBlock samples (motifs_detail.h).
std::vector<double> paa_moment_blocks(const std::vector<double>& C, int64_t N, int W, int64_t samples, TsExec* ex) {
    const int64_t stride = motif::axes_sample_stride(N), SB = motif::kAxesSumBlock;
    const int64_t blocks = (samples + SB - 1) / SB;
    const int E = W + W * W;
    std::vector<double> part((size_t)blocks * E, 0.0);
    parallel_for(ex, blocks, [&](int64_t t) {
        double* sum = &part[(size_t)t * E];
        double* sq = sum + W;
        double c[kPaaSegments];
        for (int64_t e = t * SB; e < std::min(samples, (t + 1) * SB); ++e) {
            for (int a = 0; a < W; ++a) c[a] = C[(size_t)a * N + e * stride];
            for (int a = 0; a < W; ++a) {
                sum[a] = motif::paa_moment_add(sum[a], c, a, -1);
                for (int b = 0; b < W; ++b) sq[a * W + b] = motif::paa_moment_add(sq[a * W + b], c, a, b);
            }
        }
    });
    return part;
}

// The linear order: windows by ascending key, ties by position.
std::vector<int64_t> linear_order(const std::vector<double>& key) {
    std::vector<int64_t> order(key.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](int64_t a, int64_t b) { return key[a] != key[b] ? key[a] < key[b] : a < b; });
    return order;
}

// The key of every window, the linear order, and the rows in that order.
void order_and_rows(MkIndex& ix, const std::vector<double>& C, TsExec* ex) {
    const int64_t N = ix.N, PB = setup_block(ix.m);
    const MkPlan& plan = ix.plan;
    ix.head.assign((size_t)N * kRowHead, 0.0f);
    ix.Y.resize((size_t)plan.W * N);
    ix.Dp.resize((size_t)ix.n_refs * N);
    const motif::RowsLayout L{C.data(), ix.D.data(), plan.V.data(), N, plan.W, ix.n_refs, plan.r0,
                              plan.key_paa, ix.Y.data(), ix.Dp.data()};
    std::vector<double> key(N);
    for (int64_t p = 0; p < N; ++p) key[p] = motif::window_key(L, p);
    ix.order = linear_order(key);
    parallel_for(ex, (N + PB - 1) / PB, [&](int64_t t) {
        const int64_t lo = t * PB, hi = std::min(N, lo + PB);
        for (int64_t i = lo; i < hi; ++i) {
            const int64_t p = ix.order[i];
            motif::window_rows(L, p, i, key[p], &ix.head[(size_t)i * kRowHead]);
        }
    });
    check_interrupt(ex);
}

// 1–3: the references and D, the PAA and its axes, the key, the order and the rows.
MkIndex build_index(const double* x, const ZStats& zs, int n_refs, TsExec* ex, MkStats& S) {
    MkIndex ix;
    ix.N = zs.count;
    ix.m = zs.m;
    ix.refs = mk_references(ix.N, n_refs);
    ix.n_refs = (int)ix.refs.size();
    ix.D = reference_distances(x, zs, ix.refs, ex);
    const std::vector<double> ref_sd = reference_spreads(ix.D, ix.n_refs, ix.N);
    const int W = motif::paa_count(ix.m);
    std::vector<double> C;
    const double zmax2 = paa_coefficients(x, zs, W, ex, C);
    const int64_t stride = motif::axes_sample_stride(ix.N), samples = (ix.N + stride - 1) / stride;
    std::vector<double> moments = paa_moment_blocks(C, ix.N, W, samples, ex);
    ix.plan = mk_plan(ix.m, W, ref_sd, moments, samples, zmax2, S);
    order_and_rows(ix, C, ex);
    return ix;
}

// What one rank's offset loop reads.
struct ScanInput {
    const MkIndex& ix;
    const ZStats& zs;
    const double* x;
    const std::vector<uint8_t>& blocked;     // by window
    const std::vector<uint8_t>& blocked_at;  // by linear position
    int64_t excl;
};

// InitBSF: the best allowed (reference, window) pair.
BestPair initial_bsf(const ScanInput& in) {
    const MkIndex& ix = in.ix;
    BestPair best;
    for (int r = 0; r < ix.n_refs; ++r) {
        const int64_t p = ix.refs[r];
        const double* row = &ix.D[(size_t)r * ix.N];
        for (int64_t j = 0; j < ix.N; ++j)
            if (row[j] <= best.d && motif::pair_allowed(p, j, in.blocked.data(), in.excl)) best.offer(row[j], p, j);
    }
    return best;
}

// The PAA bound of positions i and j exceeds thr2 (yi: i's rows).
inline __attribute__((always_inline)) bool paa_bound_exceeds(const float* head_i, const float* head_j,
                                                             const float* yi, const float* Y, int64_t N, int64_t j,
                                                             int W, int k0, float thr2) {
    float e[kRowHead];
    e[0] = k0 ? motif::paa_row_term(head_j[0], head_i[0]) : 0.0f;
    for (int h = 1; h < kRowHead; ++h) e[h] = motif::paa_row_term(head_j[h], head_i[h]);
    float sq = ((e[0] + e[1]) + (e[2] + e[3])) + ((e[4] + e[5]) + (e[6] + e[7]));
    if (sq > thr2) return true;
    for (int k = k0 + kRowHead - 1; k < W; ++k) {
        sq += motif::paa_row_term(Y[(size_t)k * N + j], yi[k]);
        if (sq > thr2) return true;
    }
    return false;
}

// Some reference bound of positions i and j exceeds thr.
bool refs_bound_exceeds(const MkIndex& ix, int64_t i, int64_t j, float thr) {
    for (int r = 0; r < ix.n_refs; ++r) {
        const float* row = &ix.Dp[(size_t)r * ix.N];
        if (motif::ref_gap_exceeds(row[j], row[i], thr)) return true;
    }
    return false;
}

// The exact distance of windows a and b, abandoned once it must exceed
// bsf + slack, offered to best; whether best changed (or tied).
bool offer_exact(const ScanInput& in, int64_t a, int64_t b, BestPair& best) {
    const ZStats& zs = in.zs;
    const double d = zdist_bounded(in.x + a, zs.mean[a], zs.inv[a], zs.constant[a], in.x + b, zs.mean[b],
                                   zs.inv[b], zs.constant[b], zs.m, motif::abandon_limit2(best.d, in.ix.plan.slack));
    if (!(d <= best.d)) return false;
    best.offer(d, a, b);
    return true;
}

// Position i of the scan: its rows, and its partner at the chunk's first offset.
struct Position {
    float head[kRowHead];
    float y[kPaaSegments];  // PAA rows past the head's
    int64_t j0;             // i + o0
    bool blocked;
};

constexpr int64_t kKeyStop = -1;  // next_candidate: a key gap ended the position's scan

// The hot loop of the scan, with no call in it (its values stay in
// registers): position p's offsets oo .. oe − 1 in order, each key gap into
// min_gap; returns the first offset whose pair passes the key gap and the
// PAA bound, oe when there is none, or kKeyStop when a gap above thr.key
// ended the scan (the gap is a lower bound of p's gaps at every later offset
// of the chunk: into stop_gap).
__attribute__((noinline)) int64_t next_candidate(const MkIndex& ix, const Position& p, int64_t oo, int64_t oe,
                                                 const motif::ScanThresholds& thr, float* __restrict min_gap,
                                                 float* __restrict stop_gap) {
    const float* const head = ix.head.data();
    const float* const Y = ix.Y.data();
    const int64_t N = ix.N;
    const int W = ix.plan.W, k0 = ix.plan.k0;
    const float key_i = p.head[0], thr_key = thr.key, thr_paa2 = thr.paa2;
    for (; oo < oe; ++oo) {
        const int64_t j = p.j0 + oo;
        const float* head_j = head + (size_t)j * kRowHead;
        const float g = head_j[0] - key_i;
        if (g > thr_key) {
            stop_gap[oo] = std::min(stop_gap[oo], g);
            return kKeyStop;
        }
        if (g < min_gap[oo]) min_gap[oo] = g;
        if (!p.blocked && !paa_bound_exceeds(p.head, head_j, p.y, Y, N, j, W, k0, thr_paa2)) return oo;
    }
    return oe;
}

constexpr int64_t kTilePositions = 1024;  // positions per parallel task of the offset loop

// 3–4 for one tile of positions [lo, hi) and the chunk's offsets o0 ..
// o0 + ce − 1: pairs that pass the key gap and the PAA bound (next_candidate)
// are checked against the references, the blocked windows and the exclusion
// zone; the survivors get their exact distance.  best: the tile's best pair
// (starting as the chunk's bsf); computed: exact distances; min_gap[oo]: the
// smallest key gap at offset o0 + oo, or a lower bound of it.
void scan_tile(const ScanInput& in, int64_t o0, int64_t ce, int64_t lo, int64_t hi, BestPair& best,
               int64_t& computed, float* min_gap) {
    const MkIndex& ix = in.ix;
    const int64_t N = ix.N;
    const float inf = std::numeric_limits<float>::infinity();
    motif::ScanThresholds thr = ix.plan.thresholds(best.d);
    std::vector<float> stop_gap(ce, inf);  // per offset: the smallest gap at which a position stopped
    std::fill(min_gap, min_gap + ce, inf);
    Position p;
    for (int64_t i = lo; i < hi; ++i) {
        for (int h = 0; h < kRowHead; ++h) p.head[h] = ix.head[(size_t)i * kRowHead + h];
        for (int k = ix.plan.k0 + kRowHead - 1; k < ix.plan.W; ++k) p.y[k] = ix.Y[(size_t)k * N + i];
        p.j0 = i + o0;
        p.blocked = in.blocked_at[i] != 0;
        const int64_t a = ix.order[i], oe = std::min(ce, N - o0 - i);
        for (int64_t oo = 0;; ++oo) {
            oo = next_candidate(ix, p, oo, oe, thr, min_gap, stop_gap.data());
            if (oo == kKeyStop || oo == oe) break;
            const int64_t j = p.j0 + oo;
            if (refs_bound_exceeds(ix, i, j, thr.refs) || in.blocked_at[j]) continue;
            const int64_t b = ix.order[j];
            if (!motif::far_enough(a, b, in.excl)) continue;
            ++computed;
            if (offer_exact(in, a, b, best)) thr = ix.plan.thresholds(best.d);
        }
    }
    float run = inf;
    for (int64_t oo = 0; oo < ce; ++oo) {
        run = std::min(run, stop_gap[oo]);
        min_gap[oo] = std::min(min_gap[oo], run);
    }
}

// One chunk of ce offsets from o0, in tiles of positions in parallel: their
// best pairs merged into best (in tile order), min_gap[oo] the minimum over
// the tiles.
void scan_chunk(const ScanInput& in, int64_t o0, int64_t ce, BestPair& best, std::vector<float>& min_gap, MkStats& S,
                TsExec* ex) {
    const int64_t span = in.ix.N - o0;  // positions i in [0, N − o)
    const int64_t tiles = (span + kTilePositions - 1) / kTilePositions;
    std::vector<BestPair> tile_best(tiles, best);
    std::vector<float> tile_gap((size_t)tiles * ce);
    std::vector<int64_t> computed(tiles, 0);
    parallel_for(ex, tiles, [&](int64_t t) {
        const int64_t lo = t * kTilePositions, hi = std::min(lo + kTilePositions, span);
        scan_tile(in, o0, ce, lo, hi, tile_best[t], computed[t], &tile_gap[(size_t)t * ce]);
    });
    for (int64_t t = 0; t < tiles; ++t) {
        if (tile_best[t].a >= 0) best.offer(tile_best[t].d, tile_best[t].a, tile_best[t].b);
        S.pairs_computed += computed[t];
    }
    min_gap.assign(ce, std::numeric_limits<float>::infinity());
    for (int64_t t = 0; t < tiles; ++t)
        for (int64_t oo = 0; oo < ce; ++oo) min_gap[oo] = std::min(min_gap[oo], tile_gap[(size_t)t * ce + oo]);
}

// One rank: InitBSF, then the offset loop in chunks until the stopping rule.
BestPair best_allowed_pair(const ScanInput& in, MkStats& S, TsExec* ex, double t_budget) {
    const int64_t N = in.ix.N;
    BestPair best = initial_bsf(in);
    int64_t o0 = 1, chunk = 8, last = 0;
    std::vector<float> min_gap;
    bool stop = false;
    while (!stop && o0 < N) {
        check_budget(ex, t_budget);
        const int64_t ce = std::min(chunk, N - o0);
        scan_chunk(in, o0, ce, best, min_gap, S, ex);
        stop = motif::chunk_stops(
            best.d, in.ix.plan.slack_key, ce, [&](int64_t oo) { return min_gap[oo]; }, o0, last, S.offsets);
        if (!stop && chunk < 1024 && chunk * N < (int64_t(1) << 26)) chunk *= 2;
    }
    S.last_offset = last;
    return best;
}

}  // namespace

std::vector<MotifPair> motifs_mk_cpu(const double* x, int64_t n, int m, int64_t k, int64_t excl, int n_refs,
                                     TsExec* ex, MkStats* stats) {
    const auto t_setup = Clock::now();
    const double t_budget = steady_ms();  // ex->budget_ms counts from here
    MkStats local_stats;
    MkStats& S = stats ? *stats : local_stats;
    S = MkStats{};
    ZStats zs;
    zstats(x, n, m, zs, ex);
    const MkIndex ix = build_index(x, zs, n_refs, ex, S);
    S.setup_ms = ms_since(t_setup);

    const auto t_loop = Clock::now();
    std::vector<uint8_t> blocked_at(ix.N, 0);
    const std::vector<MotifPair> result = mk_ranks(ix.N, m, k, S, [&](const std::vector<uint8_t>& blocked) {
        check_interrupt(ex);
        for (int64_t i = 0; i < ix.N; ++i) blocked_at[i] = blocked[ix.order[i]];
        return best_allowed_pair(ScanInput{ix, zs, x, blocked, blocked_at, excl}, S, ex, t_budget);
    });
    S.scan_ms = ms_since(t_loop);
    return result;
}

// ---- motifs from a matrix profile ------------------------------------------

namespace {

// Reference windows for exact searches where other bounds fail (near-ties:
// every window repeats itself to rounding).  D_r(j) = d(ref_r, j), exact
// (whole distance profiles of MK's references: random, a fixed seed, so they
// share no phase of a periodic series), bound every pair by the triangle
// inequality, |D_r(i) − D_r(j)| ≤ d(i, j).  The windows sorted by D_0
// give a window's possible partners as a range around its own place, read
// outwards with next(); beyond() checks the other references.  Rounding: a
// caller's lim already holds its absolute slack (z-normalised distances:
// motif::pruning_slack); raw-value distances (rawdist_detail.h: m rounded
// squares of rounded differences, added in 32 lanes and a tree, then a
// square root) are within (m + 64)·2^-52 of themselves relatively, so a raw
// index compares |ΔD| with lim·(1 + rel) + rel·(D(i) + D(j)), rel =
// (m + 64)·2^-50: a pair so pruned is farther, exactly, than the best, so
// its computed distance cannot tie it either.
class ReferenceIndex {
  public:
    static constexpr int kRefs = 3;
    explicit ReferenceIndex(double rel = 0) : rel_(rel) {}
    static double raw_rel(int m) { return (m + 64) * 0x1p-50; }
    struct Cursor {
        int64_t i;
        size_t up, down;
        bool turn_down = false;
    };

    // usable(w): w may be a reference (no gap in it); profile(w, out): D_w.
    template <class Usable, class Profile>
    void build(int64_t N, Usable usable, Profile profile) {
        for (int64_t w : mk_references(N, 4 * kRefs)) {
            if (!usable(w)) continue;
            d_.emplace_back(N);
            profile(w, d_.back().data());
            if ((int)d_.size() == kRefs) break;
        }
        if ((int)d_.size() < kRefs) {
            d_.clear();
            return;
        }
        for (int64_t j = 0; j < N; ++j)
            if (d_[0][j] < std::numeric_limits<double>::infinity()) order_.push_back(j);
        std::sort(order_.begin(), order_.end(), [&](int64_t a, int64_t b) { return before(a, b); });
    }
    bool ready() const { return !d_.empty(); }
    // Whether window i is in the order (a finite D_0: no gap in it).
    bool placed(int64_t i) const { return d_[0][i] < std::numeric_limits<double>::infinity(); }
    Cursor start(int64_t i) const {
        const size_t at = std::lower_bound(order_.begin(), order_.end(), i,
                                           [&](int64_t a, int64_t b) { return before(a, b); }) -
                          order_.begin();
        return {i, at, at};
    }
    // The next window within lim of c.i in D_0, alternately above and below
    // it; −1 when none is left (lim never grows, so a side past it is done).
    int64_t next(Cursor& c, double lim) const {
        const std::vector<double>& D0 = d_[0];
        if (c.up < order_.size() && apart(D0[order_[c.up]], D0[c.i], lim)) c.up = order_.size();
        if (c.down > 0 && apart(D0[c.i], D0[order_[c.down - 1]], lim)) c.down = 0;
        const bool can_up = c.up < order_.size(), can_down = c.down > 0;
        if (!can_up && !can_down) return -1;
        c.turn_down = !c.turn_down;
        if (can_down && (c.turn_down || !can_up)) return order_[--c.down];
        return order_[c.up++];
    }
    // Some other reference puts i and j more than lim apart.
    bool beyond(int64_t i, int64_t j, double lim) const {
        for (size_t r = 1; r < d_.size(); ++r)
            if (apart(std::max(d_[r][j], d_[r][i]), std::min(d_[r][j], d_[r][i]), lim)) return true;
        return false;
    }

  private:
    // hi − lo (hi ≥ lo) exceeds lim with the rounding of both.
    bool apart(double hi, double lo, double lim) const {
        return rel_ == 0 ? hi - lo > lim : hi - lo > lim * (1 + rel_) + rel_ * (hi + lo);
    }
    double rel_;
    bool before(int64_t a, int64_t b) const {
        return d_[0][a] < d_[0][b] || (d_[0][a] == d_[0][b] && a < b);
    }
    std::vector<std::vector<double>> d_;  // D_r(j)
    std::vector<int64_t> order_;          // the windows with a finite D_0, by (D_0, window)
};

// The CPU's WindowProfiler; the statistics of every window are computed the
// first time a distance is asked for.  raw: the raw-value distance
// (motif::raw_distance_bounded; no statistics).
class CpuProfiler : public WindowProfiler {
  public:
    CpuProfiler(const double* x, int64_t n, int m, TsExec* ex, bool raw)
        : x_(x), n_(n), N_(n - m + 1), m_(m), ex_(ex), block_(std::max<int64_t>(256, (int64_t(1) << 18) / m)),
          raw_(raw) {}
    void profile(int64_t i, double* out) override {
        need_stats();
        parallel_for(ex_, (N_ + block_ - 1) / block_, [&](int64_t t) {
            int64_t lo = t * block_, hi = std::min(N_, lo + block_);
            for (int64_t j = lo; j < hi; ++j) out[j] = dist(i, j);
        });
    }
    void pair_distances(const int64_t* a, const int64_t* b, int64_t count, double* out) override {
        need_stats();
        parallel_for(ex_, (count + block_ - 1) / block_, [&](int64_t t) {
            int64_t lo = t * block_, hi = std::min(count, lo + block_);
            for (int64_t s = lo; s < hi; ++s)
                out[s] = b[s] < 0 ? std::numeric_limits<double>::infinity() : dist(a ? a[s] : s, b[s]);
        });
    }
    // Tasks (window, block of columns) in parallel, each abandoning pairs
    // beyond the smaller of upper and its best so far, and every task of a
    // window stopping once one found a pair below floor; merged in block order.
    // After kRefsAfter windows' searches, by the references instead.
    void nearest(const int64_t* w, int64_t count, int64_t excl, const double* upper, double floor, double* best_d,
                 int64_t* best_j) override {
        need_stats();
        searched_ += count;
        if (!refs_tried_ && searched_ > kRefsAfter) {
            refs_tried_ = true;
            refs_ = ReferenceIndex(raw_ ? ReferenceIndex::raw_rel(m_) : 0.0);
            refs_.build(N_, [&](int64_t r) { return std::all_of(x_ + r, x_ + r + m_, [](double v) { return std::isfinite(v); }); },
                        [&](int64_t r, double* out) {
                            profile(r, out);
                            check_interrupt(ex_);
                        });
        }
        if (refs_.ready()) return nearest_by_refs(w, count, excl, upper, floor, best_d, best_j);
        const int64_t blocks = (N_ + block_ - 1) / block_;
        std::vector<double> part_d(count * blocks);
        std::vector<int64_t> part_j(count * blocks);
        std::unique_ptr<std::atomic<bool>[]> below(new std::atomic<bool>[count]);
        for (int64_t t = 0; t < count; ++t) below[t].store(false, std::memory_order_relaxed);
        const double slack = motif::pruning_slack(m_);
        parallel_for(ex_, count * blocks, [&](int64_t task) {
            const int64_t t = task / blocks, i = w[t];
            const int64_t lo = (task % blocks) * block_, hi = std::min(N_, lo + block_);
            double bd = std::numeric_limits<double>::infinity();
            int64_t bj = -1;
            for (int64_t j = lo; j < hi && !below[t].load(std::memory_order_relaxed); ++j) {
                if (!motif::far_enough(i, j, excl)) continue;
                const double d = dist(i, j, motif::abandon_limit2(std::min(upper[t], bd), slack));
                if (d < std::numeric_limits<double>::infinity() && motif::nearer(d, j, bd, bj)) {
                    bd = d;
                    bj = j;
                }
                if (d < floor) below[t].store(true, std::memory_order_relaxed);
            }
            part_d[task] = bd;
            part_j[task] = bj;
        });
        check_interrupt(ex_);
        for (int64_t t = 0; t < count; ++t) {
            best_d[t] = std::numeric_limits<double>::infinity();
            best_j[t] = -1;
            for (int64_t b = t * blocks; b < (t + 1) * blocks; ++b)
                if (motif::nearer(part_d[b], part_j[b], best_d[t], best_j[t])) {
                    best_d[t] = part_d[b];
                    best_j[t] = part_j[b];
                }
        }
    }

  private:
    // Every window's statistics, the first time a distance is asked for.
    void need_stats() {
        if (zs_.count == 0 && !raw_) zstats(x_, n_, m_, zs_, ex_);
    }

    // Where the windows' nearest neighbours are all near-ties (a periodic
    // series: every window repeats itself to rounding), the discords'
    // ranking asks for the exact neighbour of almost every window, and each
    // search reads every window; after kRefsAfter searches they go by a
    // ReferenceIndex: a window's search reads the windows near its own in
    // D_0, up to the best so far (or upper) + slack, and skips those beyond
    // it in another reference.  The same exact answer (the least
    // (distance, window)), by fewer distances.
    static constexpr int64_t kRefsAfter = 64;  // windows searched before the references

    // nearest() by the references: a task per window.
    void nearest_by_refs(const int64_t* w, int64_t count, int64_t excl, const double* upper, double floor,
                         double* best_d, int64_t* best_j) {
        const double slack = motif::pruning_slack(m_);
        parallel_for(ex_, count, [&](int64_t t) {
            const int64_t i = w[t];
            double bd = std::numeric_limits<double>::infinity();
            int64_t bj = -1;
            if (refs_.placed(i)) {  // (else a gap in it: no neighbour)
                ReferenceIndex::Cursor c = refs_.start(i);
                for (;;) {
                    const double lim = std::min(upper[t], bd) + slack;
                    const int64_t j = refs_.next(c, lim);
                    if (j < 0) break;
                    if (!motif::far_enough(i, j, excl) || refs_.beyond(i, j, lim)) continue;
                    const double d = dist(i, j, motif::abandon_limit2(std::min(upper[t], bd), slack));
                    if (d < std::numeric_limits<double>::infinity() && motif::nearer(d, j, bd, bj)) {
                        bd = d;
                        bj = j;
                    }
                    if (d < floor) break;
                }
            }
            best_d[t] = bd;
            best_j[t] = bj;
        });
        check_interrupt(ex_);
    }
    double dist(int64_t i, int64_t j, double lim2 = std::numeric_limits<double>::infinity()) const {
        if (raw_) return motif::raw_distance_bounded(x_ + i, x_ + j, m_, lim2);
        return zdist_bounded(x_ + i, zs_.mean[i], zs_.inv[i], zs_.constant[i], x_ + j, zs_.mean[j], zs_.inv[j],
                             zs_.constant[j], m_, lim2);
    }

    const double* x_;
    int64_t n_, N_;
    int m_;
    TsExec* ex_;
    int64_t block_;  // windows per parallel task
    bool raw_;
    ZStats zs_;
    int64_t searched_ = 0;  // windows whose nearest neighbour was searched
    bool refs_tried_ = false;
    ReferenceIndex refs_;
};

// The statistics of the windows the selection compares on the host, each
// computed the first time the window is compared (motif::window_zstat, as
// zstats computes them), and the direct distance of two windows (zdist's
// bits).  A round of comparisons holds each window once, so a window's
// statistics are written by one task.
class WindowStats {
  public:
    WindowStats(const double* x, int64_t N, int m, bool raw)
        : x_(x), m_(m), raw_(raw), mean_(N), inv_(N), constant_(N), have_(N, 0) {}
    void need(int64_t j) {
        if (have_[j] || raw_) return;
        motif::window_zstat(x_ + j, m_, &mean_[j], &inv_[j], &constant_[j]);
        have_[j] = 1;
    }
    // zdist_bounded of windows i and j (both needed first)
    double distance(int64_t i, int64_t j, double lim2) const {
        if (raw_) return motif::raw_distance_bounded(x_ + i, x_ + j, m_, lim2);
        return zdist_bounded(x_ + i, mean_[i], inv_[i], constant_[i], x_ + j, mean_[j], inv_[j], constant_[j], m_,
                             lim2);
    }

  private:
    const double* x_;
    const int m_;
    const bool raw_;  // raw-value distances (no statistics)
    std::vector<double> mean_, inv_;
    std::vector<uint8_t> constant_, have_;
};

// An entry of the selection: a lower bound of the pairs (owner, q), q > owner
// (a = owner, b = −1), or owner's exact best allowed pair (either side).
struct Entry {
    double d;
    int64_t a, b;
    int64_t owner;
    bool operator>(const Entry& o) const {
        if (d != o.d) return d > o.d;
        if (a != o.a) return a > o.a;
        if (b != o.b) return b > o.b;
        return owner > o.owner;
    }
    bool operator<(const Entry& o) const { return o > *this; }
};

// A window's best partner so far: the least (distance, window).
struct Partner {
    double d = std::numeric_limits<double>::infinity();
    int64_t j = -1;
    void offer(double dist, int64_t w) {
        if (j < 0 ? dist <= d : (dist < d || (dist == d && w < j))) {
            d = dist;
            j = w;
        }
    }
};

// Greedy top-k from a profile, exactly.  An ordered set (keys_) holds one
// entry per window: first a lower bound (motif::profile_lower_bound), later the
// exact best allowed partner (blocked windows and |i−j| < excl left out;
// ties: smaller partner).  A pair (a, b), a < b, is window a's: its key
// (d, a, b) is at least a's entry — a lower bound (lb_a, a, −1), as d ≥ lb_a,
// or a's exact best pair, the least key of a's pairs.  Taking the smallest key:
//   * blocked window: dropped;
//   * lower bound: replaced by the window's exact best allowed pair;
//   * exact pair whose partner got blocked since: recomputed (it can only grow);
//   * exact pair still allowed: it is the next rank — every other allowed pair
//     has a key at least that of its smaller window's entry (lower bounds stay
//     lower bounds as windows get blocked).
// So a window whose bound ties the next rank's distance (many do where the
// series repeats itself exactly: distance 0) needs its exact pair only when
// it precedes that rank's first window.
// The lower bounds enter the set in batches, smallest first: every bound not
// loaded yet ranks after `loaded_to_`, so while the set's first entry ranks
// before it the steps are those of a set holding every bound (the result is
// the same), and a batch is loaded only when the first entry passes it.  A
// batch is chosen by a bounded heap over the profile: O(N log T), no sort of N.
// A window's exact pair compares it with the few windows whose keys are
// small enough (exact_entry), not with all N.
class ProfileSelection {
  public:
    // lb[i]: a lower bound of window i's best pair (+inf: it has no neighbour);
    // pi: the profile's neighbours (likely partners)
    // budget > 0: over_budget() once the selection has computed more
    // distances (auto then runs MK instead)
    ProfileSelection(const double* xs, int64_t n, int m, const double* lb, const int64_t* pi, int64_t k,
                     int64_t excl, WindowProfiler& prof, int64_t whole_profile_after, int64_t budget,
                     const TsExec* ex, bool raw)
        : N_(n - m + 1), m_(m), pd_(lb), pi_(pi), k_(k), excl_(excl), prof_(prof), whole_after_(whole_profile_after),
          budget_(budget), raw_(raw), ex_(ex), slack_(motif::pruning_slack(m)),
          batch_((size_t)std::min<int64_t>(N_, std::max<int64_t>(256, 8 * k))), blocked_(N_, 0), seen_(N_, 0),
          stats_(xs, N_, m, raw) {}

    std::vector<MotifPair> run() {
        load_batch();
        std::vector<MotifPair> result;
        while ((int64_t)result.size() < k_) {
            if (more_bounds_ && (keys_.empty() || *keys_.begin() > loaded_to_)) {
                load_batch();
                continue;
            }
            if (keys_.empty()) break;
            const Entry e = *keys_.begin();
            keys_.erase(keys_.begin());
            const int64_t i = e.owner;
            if (blocked_[i]) continue;
            const int64_t partner = e.b < 0 ? -1 : (e.a == i ? e.b : e.a);
            if (e.b < 0 || blocked_[partner]) {
                Entry f;
                if (exact_entry(i, f)) keys_.insert(f);
                continue;
            }
            result.push_back({e.a, e.b, e.d});
            block_pair(blocked_, e.a, e.b, m_);
        }
        return result;
    }

  private:
    bool lower_bound_of(int64_t i, Entry& e) const {
        const double v = pd_[i];
        if (v == std::numeric_limits<double>::infinity()) return false;  // no neighbour at all
        e = {v, i, -1, i};
        return true;
    }

    void load_batch() {
        std::vector<Entry> best;  // max-heap (by >) of the batch's smallest bounds after loaded_to_
        best.reserve(batch_);
        auto worse = [](const Entry& a, const Entry& b) { return b > a; };  // top = the largest kept
        for (int64_t i = 0; i < N_; ++i) {
            // quick rejections on the bound's value alone (most windows)
            if (best.size() == batch_ && pd_[i] > best.front().d) continue;
            Entry e;
            if (!lower_bound_of(i, e) || !(e > loaded_to_)) continue;
            if (best.size() < batch_) {
                best.push_back(e);
                std::push_heap(best.begin(), best.end(), worse);
            } else if (best.front() > e) {
                std::pop_heap(best.begin(), best.end(), worse);
                best.back() = e;
                std::push_heap(best.begin(), best.end(), worse);
            }
        }
        more_bounds_ = best.size() == batch_;
        if (!best.empty()) loaded_to_ = best.front();
        keys_.insert(best.begin(), best.end());
        batch_ = (size_t)std::min<int64_t>(N_, (int64_t)batch_ * 8);
    }

    // Window i's exact best allowed pair: the least (distance, partner) over
    // the allowed windows j.  A window j with an entry in keys_ has a key of
    // at most d(i, j): its lower bound, or the distance of its best allowed
    // pair when that was computed, which d(i, j) cannot undercut (i was
    // allowed then too: windows are only ever blocked, never freed).  A window
    // without one is blocked, or has no allowed partner (so is not i's), or
    // is not loaded yet (its bound ranks after loaded_to_).  So only windows
    // whose keys are at most the best distance found so far can beat it: the
    // scan of keys_ in order compares them with i, in rounds of candidates
    // computed in parallel, and stops at the first larger key; bounds are
    // loaded while the best reaches loaded_to_ (the scan then starts again,
    // skipping the windows compared).  A first round of likely partners (the
    // profile's neighbours of i and of the windows beside it, shifted) makes
    // the best small from the start.  Past whole_after_ candidates, the
    // profiler's whole distance profile of i is cheaper.
    bool exact_entry(int64_t i, Entry& e) {
        check_interrupt(ex_);
        if (++stamp_ == 0) {  // the stamps wrapped: forget every mark
            std::fill(seen_.begin(), seen_.end(), 0);
            stamp_ = 1;
        }
        stats_.need(i);
        Partner best;
        likely_partners(i);
        compare(i, best);
        int64_t compared = (int64_t)candidates_.size();
        if (!refs_tried_ && pi_ && spent_ > kRefsAfter * N_) build_refs();
        if (refs_.ready()) return reference_entry(i, best, compared, e);
        size_t round = 64;
        auto it = keys_.begin();
        for (;;) {
            gather(i, best.d, round, it);
            if (candidates_.empty()) {
                if (!more_bounds_ || loaded_to_.d > best.d) break;
                load_batch();
                it = keys_.begin();
                continue;
            }
            compare(i, best);
            compared += (int64_t)candidates_.size();
            if (compared > whole_after_) return whole_profile_entry(i, e);
            round = std::min<size_t>(round * 2, 8192);
        }
        if (best.j < 0 || std::isinf(best.d)) return false;  // +inf: only windows with gaps were left
        e = {best.d, std::min(i, best.j), std::max(i, best.j), i};
        return true;
    }

    // Where the bounds cannot tell windows apart (near-ties at tiny
    // distances: every bound 0 below about sqrt(2m·2^-27)), exact_entry
    // compares a window with almost every other.  Once the selection has
    // computed kRefsAfter·N distances, a ReferenceIndex gives a window's
    // candidates as a range.
    void build_refs() {
        refs_tried_ = true;
        refs_ = ReferenceIndex(raw_ ? ReferenceIndex::raw_rel(m_) : 0.0);
        refs_.build(N_, [&](int64_t w) { return pd_[w] < std::numeric_limits<double>::infinity(); },  // no gap
                    [&](int64_t w, double* out) {
                        spend(N_);
                        prof_.profile(w, out);
                        check_interrupt(ex_);
                    });
    }

    // exact_entry with the references: window i's candidates are the windows
    // within best.d + slack of it in every D_r, read outwards from i's place
    // in the D_0 order; one round holds the whole range as a rule (its width
    // is mostly the slack, which a better best does not shrink; a round is a
    // parallel_for), filtered as gather does (and by the candidate's own
    // bound: d(i, j) ≥ j's best ≥ its bound).
    bool reference_entry(int64_t i, Partner& best, int64_t compared, Entry& e) {
        ReferenceIndex::Cursor c = refs_.start(i);
        for (;;) {
            const double lim = best.d + slack_;
            candidates_.clear();
            int64_t j;
            while (candidates_.size() < 8192 && (j = refs_.next(c, lim)) >= 0) offer_candidate(i, j, best.d, lim);
            if (candidates_.empty()) break;
            compare(i, best);
            compared += (int64_t)candidates_.size();
            if (compared > whole_after_) return whole_profile_entry(i, e);
        }
        if (best.j < 0 || std::isinf(best.d)) return false;
        e = {best.d, std::min(i, best.j), std::max(i, best.j), i};
        return true;
    }

    void offer_candidate(int64_t i, int64_t j, double best_d, double lim) {
        if (blocked_[j] || seen_[j] == stamp_ || !motif::far_enough(i, j, excl_) || pd_[j] > best_d ||
            refs_.beyond(i, j, lim))
            return;
        seen_[j] = stamp_;
        candidates_.push_back(j);
    }

    // The profile's neighbours of windows i − 1, i and i + 1, shifted to
    // partners of i, where allowed: the first candidates of window i.
    void likely_partners(int64_t i) {
        candidates_.clear();
        if (!pi_) return;
        for (int64_t s = -1; s <= 1; ++s) {
            if (i + s < 0 || i + s >= N_ || pi_[i + s] < 0) continue;
            const int64_t j = pi_[i + s] - s;
            if (j < 0 || j >= N_ || seen_[j] == stamp_ || blocked_[j] || !motif::far_enough(i, j, excl_)) continue;
            seen_[j] = stamp_;
            candidates_.push_back(j);
        }
    }

    // The next candidates of window i from `it` on, in key order: windows not
    // compared with i yet, not blocked (blocked ones met are dropped from
    // keys_), far enough from i; at most `count`, none with a key above limit.
    void gather(int64_t i, double limit, size_t count, std::set<Entry>::iterator& it) {
        candidates_.clear();
        while (it != keys_.end() && candidates_.size() < count && !(it->d > limit)) {
            const int64_t j = it->owner;
            if (blocked_[j]) {
                it = keys_.erase(it);
                continue;
            }
            ++it;
            if (seen_[j] == stamp_ || !motif::far_enough(i, j, excl_)) continue;
            seen_[j] = stamp_;
            candidates_.push_back(j);
        }
    }

    // The distances of window i to the candidates (abandoned past the best
    // so far: those cannot win), in parallel; the least into best.
    void compare(int64_t i, Partner& best) {
        const size_t count = candidates_.size();
        spend((int64_t)count);
        dist_.resize(count);
        const double lim2 = motif::abandon_limit2(best.d, slack_);
        const int64_t per = std::max<int64_t>(16, 4096 / m_);  // candidates a task
        parallel_for(ex_, ((int64_t)count + per - 1) / per, [&](int64_t t) {
            const size_t lo = (size_t)(t * per), hi = std::min(count, lo + (size_t)per);
            for (size_t c = lo; c < hi; ++c) {
                stats_.need(candidates_[c]);
                dist_[c] = stats_.distance(i, candidates_[c], lim2);
            }
        });
        for (size_t c = 0; c < count; ++c) best.offer(dist_[c], candidates_[c]);
    }

    void spend(int64_t distances) {
        spent_ += distances;
        if (budget_ > 0 && spent_ > budget_) over_budget();
    }

    // Window i's exact best allowed pair from its whole distance profile
    // (ties: the smaller partner, scanned first).
    bool whole_profile_entry(int64_t i, Entry& e) {
        spend(N_);
        dist_.resize(N_);
        prof_.profile(i, dist_.data());
        check_interrupt(ex_);
        Partner best;
        for (int64_t j = 0; j < N_; ++j)
            if (!blocked_[j] && motif::far_enough(i, j, excl_)) best.offer(dist_[j], j);
        if (best.j < 0 || std::isinf(best.d)) return false;
        e = {best.d, std::min(i, best.j), std::max(i, best.j), i};
        return true;
    }

    const int64_t N_;
    const int m_;
    const double* pd_;
    const int64_t* pi_;
    const int64_t k_, excl_;
    WindowProfiler& prof_;
    const int64_t whole_after_;
    const int64_t budget_;
    const bool raw_;     // raw-value distances (the references' relative slack)
    int64_t spent_ = 0;  // distances computed
    static constexpr int64_t kRefsAfter = 2;  // × N distances computed before the references
    bool refs_tried_ = false;
    ReferenceIndex refs_;
    const TsExec* ex_;
    const double slack_;  // of the distances' early abandoning
    size_t batch_;
    std::vector<uint8_t> blocked_;
    std::vector<uint32_t> seen_;  // == stamp_: compared with the window of the current exact_entry
    uint32_t stamp_ = 0;
    WindowStats stats_;
    std::vector<int64_t> candidates_;
    std::vector<double> dist_;
    std::set<Entry> keys_;
    Entry loaded_to_{-1.0, -1, -1, -1};  // ranks before every bound
    bool more_bounds_ = true;
};

}  // namespace

std::unique_ptr<WindowProfiler> make_cpu_profiler(const double* xs, int64_t n, int m, TsExec* ex, bool raw) {
    return std::unique_ptr<WindowProfiler>(new CpuProfiler(xs, n, m, ex, raw));
}

std::unique_ptr<WindowProfiler> make_profiler(const double* xs, int64_t n, int m, TsExec* ex, bool on_gpu,
                                              bool raw) {
#ifdef TSMINE_WITH_CUDA
    if (on_gpu) return gpu::make_window_profiler(xs, n, m, ex, raw);
#endif
    return make_cpu_profiler(xs, n, m, ex, raw);
}

ScaledProfiler make_scaled_profiler(const double* x, int64_t n, int m, TsExec* ex, bool on_gpu, bool raw) {
    ScaledProfiler sp;
    sp.exponent = unit_scale_exponent(x, n);
#ifdef TSMINE_WITH_CUDA
    if (on_gpu) {
        sp.prof = gpu::make_window_profiler(x, n, m, ex, raw, sp.exponent);
        return sp;
    }
#endif
    sp.xe = scaled_by(x, n, sp.exponent);
    sp.prof = make_cpu_profiler(sp.xe.data(), n, m, ex, raw);
    return sp;
}

std::vector<MotifPair> select_top_motifs_from_profile(const double* xs, int64_t n, int m, const int64_t* pi,
                                                      int64_t k, int64_t excl, WindowProfiler& prof,
                                                      int64_t whole_profile_after, const TsExec* ex, bool raw,
                                                      int64_t budget) {
    const int64_t N = n - m + 1;
    std::vector<double> lb(N);
    prof.pair_distances(nullptr, pi, N, lb.data());
    const int64_t per = std::max<int64_t>(256, (int64_t(1) << 18) / m);
    parallel_for(ex, (N + per - 1) / per, [&](int64_t t) {
        for (int64_t i = t * per; i < std::min(N, (t + 1) * per); ++i) {
            if (pi[i] < 0) continue;
            if (!raw) {
                lb[i] = motif::profile_lower_bound(lb[i], m);
                continue;
            }
            double mu, inv;
            uint8_t c;
            motif::window_zstat(xs + i, m, &mu, &inv, &c);
            lb[i] = motif::raw_profile_lower_bound(lb[i], c ? 0.0 : std::sqrt((double)m) / inv);
        }
    });
    return ProfileSelection(xs, n, m, lb.data(), pi, k, excl, prof, whole_profile_after, budget, ex, raw).run();
}

}  // namespace tsm

// ---- C entry points -----------------------------------------------------------

namespace {

// Two windows of length m at least `exclusion` apart fit in n values.
void check_two_windows_fit(int64_t n, int32_t m, int64_t exclusion) {
    if (n < (int64_t)m || n - m < exclusion)
        tsm::invalid(tsm::format("series of length %lld is too short for two windows of length %d at least "
                                 "%lld apart",
                                 (long long)n, (int)m, (long long)exclusion),
                     "Use a longer series, a shorter window or a smaller exclusion zone.");
}

// The hint of a k left NULL.
constexpr const char* kGiveK = "Give how many motif pairs to return.";

// The checks of m, k and exclusion_zone that every motif entry makes, in
// ts_motifs' order: the exclusion zone (TS_ARG_NULL: m).
int64_t check_window_k_exclusion(int32_t m, int64_t k, int64_t exclusion) {
    tsm::args::window(m);
    tsm::args::top_k(k, kGiveK);
    return tsm::args::exclusion(exclusion, m);
}

void check_references(int32_t n_references) {
    if (n_references < 1)
        tsm::invalid(tsm::format("n_references must be at least 1, not %d", (int)n_references),
                     "MK compares windows through their distances to n_references reference windows; "
                     "10 is usual.");
}

// The checks of a series for the motif methods, with an exclusion zone checked.
void check_motif_series(const double* x, int64_t n, int32_t m, int64_t exclusion) {
    if (n < 0 || !x) tsm::invalid("series is missing");
    check_two_windows_fit(n, m, exclusion);
    if (n - m + 1 > (int64_t)INT32_MAX) tsm::invalid("series too long for motif search (more than 2^31 windows)");
}

bool has_gaps(const double* x, int64_t n) { return x && n > 0 && tsm::first_nonfinite(x, n) >= 0; }

int motifs_by_profile(const double* x, int64_t n, int32_t m, int64_t k, int64_t exclusion, int32_t normalize,
                      TsExec* ex, TsMotifs* out, TsStatus* st, int64_t selection_budget = 0);

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
    // A series with gaps (NaN, ±Infinity) takes the matrix profile, whose
    // windows with gaps pair with none: the rows of MK's rules.
    if (has_gaps(x, n) && n_references >= 1) {
        const int code = tsm::guard(st, [&] { exclusion = check_window_k_exclusion(m, k, exclusion); });
        return code != TS_OK ? code : motifs_by_profile(x, n, m, k, exclusion, 1, ex, out, st);
    }
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        exclusion = check_window_k_exclusion(m, k, exclusion);
        check_references(n_references);
        check_motif_series(x, n, m, exclusion);
        std::vector<tsm::MotifPair> r;
        if (tsm::use_gpu(ex, TS_WORK_MOTIFS, n, m)) {  // the device scales its copy
#ifdef TSMINE_WITH_CUDA
            r = tsm::gpu::motifs_mk(x, n, m, k, exclusion, n_references, ex, nullptr, tsm::unit_scale_exponent(x, n));
#endif
        } else {
            const std::vector<double> xs = tsm::unit_scaled(x, n);
            r = tsm::motifs_mk_cpu(xs.data(), n, m, k, exclusion, n_references, ex);
        }
        fill_motifs(r, ex, out);
    });
}

namespace {

// tsm_motifs_from_profile with the selection's budget (select_top_motifs_from_profile).
int motifs_from_profile(const double* x, int64_t n, int32_t m, const int64_t* profile_index, int64_t k,
                        int64_t exclusion, int32_t normalize, int64_t budget, TsExec* ex, TsMotifs* out,
                        TsStatus* st) {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        exclusion = check_window_k_exclusion(m, k, exclusion);
        check_motif_series(x, n, m, exclusion);
        const int64_t N = n - m + 1;
        if (!profile_index) tsm::invalid("matrix profile is missing");
        for (int64_t i = 0; i < N; ++i)
            if (profile_index[i] < -1 || profile_index[i] >= N)
                tsm::invalid(tsm::format("matrix profile index %lld at position %lld is out of range",
                                         (long long)profile_index[i], (long long)i));
        const std::vector<double> xs = tsm::unit_scaled(x, n);
        const bool raw = normalize == 0;
        const bool on_gpu = tsm::use_gpu(ex, TS_WORK_MOTIFS, n, m);
        std::unique_ptr<tsm::WindowProfiler> prof = tsm::make_profiler(xs.data(), n, m, ex, on_gpu, raw);
        // Past this many host distances for one window, the profiler's whole
        // distance profile of it is cheaper: on the CPU, a whole profile costs
        // N distances; on the GPU, one kernel, about what the host spends on
        // a few percent of them (an estimate).
        const int64_t whole_profile_after = on_gpu ? N / 32 : N / 4;
        std::vector<tsm::MotifPair> r = tsm::select_top_motifs_from_profile(
            xs.data(), n, m, profile_index, k, exclusion, *prof, whole_profile_after, ex, raw, budget);
        if (raw) {
            const int e = tsm::unit_scale_exponent(x, n);
            for (tsm::MotifPair& p : r) p.d = tsm::raw_distance_unscaled(p.d, e);
        }
        fill_motifs(r, ex, out);
    });
}

}  // namespace

extern "C" int tsm_motifs_from_profile(const double* x, int64_t n, int32_t m, const int64_t* profile_index,
                                       int64_t k, int64_t exclusion, int32_t normalize, TsExec* ex, TsMotifs* out,
                                       TsStatus* st) noexcept {
    return motifs_from_profile(x, n, m, profile_index, k, exclusion, normalize, 0, ex, out, st);
}

namespace {

// A series with gaps too short for a profile (2m > n: at most m windows):
// every window without a gap is a candidate with lower bound 0 (the
// selection compares it with every other), one with a gap none.
int motifs_of_few_windows(const double* x, int64_t n, int32_t m, int64_t k, int64_t exclusion, TsExec* ex,
                          TsMotifs* out, TsStatus* st) {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        exclusion = check_window_k_exclusion(m, k, exclusion);
        check_motif_series(x, n, m, exclusion);
        const int64_t N = n - m + 1;
        const std::vector<double> xs = tsm::unit_scaled(x, n);
        tsm::mp::GapPlan gaps;
        tsm::mp::plan_gaps(x, n, m, gaps);
        std::vector<double> lb(N);
        for (int64_t i = 0; i < N; ++i) lb[i] = gaps.gap[i] ? std::numeric_limits<double>::infinity() : 0.0;
        std::unique_ptr<tsm::WindowProfiler> prof = tsm::make_cpu_profiler(xs.data(), n, m, ex);
        ex->used_backend = TS_BACKEND_CPU;
        fill_motifs(tsm::ProfileSelection(xs.data(), n, m, lb.data(), nullptr, k, exclusion, *prof, N, 0, ex, false).run(),
                    ex, out);
    });
}

// Motifs by way of the matrix profile: the profile, then the exact pairs from
// it (selection_budget > 0: TS_OVER_BUDGET past that many distances).
int motifs_by_profile(const double* x, int64_t n, int32_t m, int64_t k, int64_t exclusion, int32_t normalize,
                      TsExec* ex, TsMotifs* out, TsStatus* st, int64_t selection_budget) {
    ex->used_method = "matrix_profile";
    // (raw values need the profile, as without gaps: 2m > n is an error there)
    if (normalize && 2 * (int64_t)m > n && has_gaps(x, n))
        return motifs_of_few_windows(x, n, m, k, exclusion, ex, out, st);
    TsProfile p;
    int code = tsm_matrix_profile(x, n, m, exclusion, normalize, ex, &p, st);
    if (code != TS_OK) return code;
    tsm::progress_unknown(ex);  // the selection's work depends on the data
    return motifs_from_profile(x, n, m, p.index, k, exclusion, normalize, selection_budget, ex, out, st);
}

// auto's budget for the profile's selection, in whole distance profiles (N
// distances each): a base and as many more for each rank asked for (MK,
// which auto would run instead, also runs again for every rank).
constexpr int64_t kSelectionBudgetProfiles = 64, kSelectionBudgetPerRank = 16;

// MK compares z-normalised windows only.
void check_raw_method(int32_t method) {
    if (method == TS_MOTIFS_MK)
        throw tsm::Error(TS_INVALID_ARGUMENT, tsm::kFeatureNotSupported,
                         "method mk does not support normalized => false",
                         "Use method => 'matrix_profile' or 'auto' for raw-value distances.");
}

}  // namespace

extern "C" int tsm_motifs(const double* x, int64_t n, int32_t m, int64_t k, int64_t exclusion, const char* method,
                          int32_t n_references, int32_t normalize, TsExec* ex, TsMotifs* out,
                          TsStatus* st) noexcept {
    std::memset(out, 0, sizeof *out);
    int chosen = TS_MOTIFS_AUTO;
    // the checks MK and the profile path share, before any work
    int code = tsm::guard(st, [&] {
        exclusion = check_window_k_exclusion(m, k, exclusion);
        chosen = tsm::args::choice(method, "method", tsm::args::kMotifMethods, 3);
        check_references(n_references);
        if (n > 0) check_two_windows_fit(n, m, exclusion);
        if (!normalize) check_raw_method(chosen);
    });
    if (code != TS_OK || n == 0) return code;  // an empty series has no windows
    // raw values: the matrix profile (MK compares z-normalised windows)
    if (!normalize) return motifs_by_profile(x, n, m, k, exclusion, 0, ex, out, st);
    // auto: MK, within a time budget of what the matrix profile would take;
    // past it, the matrix profile.  MK is usually much faster (bench/motifs.sh),
    // but its pruning depends on the data and it re-runs for every rank; the
    // budget bounds auto at about twice the profile's time.  Where the profile
    // cannot run (2m > n): MK without a budget.
    if (chosen == TS_MOTIFS_AUTO && 2 * (int64_t)m > n) chosen = TS_MOTIFS_MK;
    if (chosen == TS_MOTIFS_MATRIX_PROFILE) return motifs_by_profile(x, n, m, k, exclusion, 1, ex, out, st);
    ex->used_method = "mk";
    tsm::progress_unknown(ex);  // MK's pruning depends on the data
    if (chosen == TS_MOTIFS_AUTO) ex->budget_ms = tsm_matrix_profile_estimate_ms(n, m, ex);
    code = tsm_motifs_mk(x, n, m, k, exclusion, n_references, ex, out, st);
    ex->budget_ms = 0;
    if (code != TS_OVER_BUDGET) return code;
    ex->device_ms = ex->kernel_ms = ex->device_bytes = 0;
    // The profile's selection, within the distances of 64 + 16·k whole
    // distance profiles (a random walk of 10^5 values takes about 1.2 at
    // k = 10, exact repeats about 29 at k = 20): near-ties at tiny distances
    // (which its bounds cannot separate) would make it compare every window
    // with every other; MK's exact reference distances separate them, so
    // MK then runs to the end.
    const int64_t N = n - m + 1;
    const int64_t ranks = std::min<int64_t>(k, int64_t(1) << 20);  // (no overflow)
    code = motifs_by_profile(x, n, m, k, exclusion, 1, ex, out, st,
                             (kSelectionBudgetProfiles + kSelectionBudgetPerRank * ranks) * N + (1 << 20));
    if (code != TS_OVER_BUDGET) return code;
    ex->device_ms = ex->kernel_ms = ex->device_bytes = 0;
    ex->used_method = "mk";
    return tsm_motifs_mk(x, n, m, k, exclusion, n_references, ex, out, st);
}

extern "C" int tsm_motifs_from_tiles(const double* x, int64_t n, const int64_t* merged, int64_t words, int64_t k,
                                     TsExec* ex, TsMotifs* out, TsStatus* st) noexcept {
    std::memset(out, 0, sizeof *out);
    const int code = tsm::guard(st, [&] { tsm::args::top_k(k, kGiveK); });
    if (code != TS_OK) return code;
    tsm::mp::TiledProfile t;
    if (tsm::mp::profile_from_tiles(x, n, merged, words, ex, t, st) != TS_OK) return st->code;
    return tsm_motifs_from_profile(x, n, t.m, t.profile.index, k, t.exclusion, t.normalize, ex, out, st);
}
