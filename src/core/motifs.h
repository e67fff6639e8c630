// motifs.h — exact motifs (MK, Mueen–Keogh with reference windows, as in the
// GPU thesis ../shared/papers/mk-gpu-motifs-thesis-ru.txt ch. 3–4), motifs from
// a matrix profile, and similarity search (match).  CPU paths in motifs.cpp
// and match.cpp; GPU paths in kernels/motifs_mk.cu and kernels/match.cu.
//
// Arithmetic shared bit-for-bit by CPU and GPU (so both return the same
// positions, and ties are decided the same way):
//  * per-window statistics by a sequential two-pass loop over the window
//    (window_zstat), a function of the window's values only, so equal windows
//    get equal statistics;
//  * the distance (zdist) from z-normalised values, accumulated in 32 lanes
//    (lane l takes elements l, l+32, ...) and combined by the tree of a warp
//    shuffle reduction; no fused multiply-adds on either side.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tsm_api.h"

namespace tsm {

// Statistics of every window, deterministic (see above).
struct ZStats {
    int m = 0;
    int64_t count = 0;
    std::vector<double> mean, inv;   // inv = 1/σ, 0 when constant
    std::vector<uint8_t> constant;   // every value equal, or σ vanished in rounding
};
void window_zstat(const double* w, int m, double* mean, double* inv, uint8_t* constant);
void zstats(const double* x, int64_t n, int m, ZStats& out, const TsExec* ex);

// z-normalised Euclidean distance of windows a and b (pointers to their first
// values) with their statistics.  Symmetric bit-for-bit.
double zdist(const double* a, double mua, double inva, bool ca, const double* b, double mub,
             double invb, bool cb, int m);

// The same, abandoned early (returns +inf) once a rigorous lower bound of d²
// exceeds lim2; a value that is returned is zdist's, bit for bit.
double zdist_bounded(const double* a, double mua, double inva, bool ca, const double* b, double mub, double invb,
                     bool cb, int m, double lim2);

struct MotifPair {
    int64_t a, b;
    double d;
};
// The pair order every method uses: distance, then a, then b.
inline bool pair_less(double d1, int64_t a1, int64_t b1, double d2, int64_t a2, int64_t b2) {
    if (d1 != d2) return d1 < d2;
    if (a1 != a2) return a1 < a2;
    return b1 < b2;
}

// Reference windows of MK: min(nref, N, kMaxReferences) distinct windows drawn
// with a fixed seed (the same on CPU and GPU).
constexpr int kMaxReferences = 256;
std::vector<int64_t> mk_references(int64_t N, int nref);

// Pruning slack: lower bounds are compared in float; a pair is pruned only
// when its bound exceeds bsf + slack, which covers every rounding error of the
// bounds (z-normalised distances are at most 2·sqrt(m)).
double mk_slack(int m);

// The smallest float >= bsf + slack (+inf without a bsf): bounds above it prune.
float mk_threshold(double bsf, double slack);
// The smallest float >= (bsf + slack)² / (1 − 1e-5): squared PAA bounds above it
// prune (the factor covers the float rounding of the PAA rows and of their
// sum; proof in motifs.cpp).
float mk_threshold2(double bsf, double slack);

// ---- the PAA bound: MK's second lower bound (motifs.cpp) --------------------
// A window's z-normalised values ẑ (as zdist computes them; constant windows:
// the zero vector) projected on W orthonormal piecewise-constant vectors
// (segment s = [s·m/W, (s+1)·m/W), W = min(m, kPaaSegments)), the constant
// direction taken out, then rotated to principal axes:  for any two windows
// Σ_k (y_k(a) − y_k(b))² ≤ d(a, b)²  (Bessel's inequality).
constexpr int kPaaSegments = 32;
inline int mk_paa_count(int m) { return m < kPaaSegments ? m : kPaaSegments; }
// c[s·stride], s < W: Σ_{k∈s} ẑ_k / sqrt(len_s) − sqrt(len_s)·Σ_k ẑ_k / m;
// *norm2 = Σ_k ẑ_k² (0 for a constant window).
void window_paa(const double* w, int m, double mean, double inv, bool constant, int W, double* c, int64_t stride,
                double* norm2);
// Principal axes of the coefficients from their sums over `count` windows
// (sum: W, sumsq: W×W): V (W×W, column k = axis k, orthonormal) and the
// variances along them, descending.  Falls back to V = I if the rotation is
// not orthonormal to 1e-12.
void mk_principal_axes(int W, const double* sum, const double* sumsq, double count, std::vector<double>& V,
                       std::vector<double>& var);
// Windows sampled for the principal axes: every mk_pca_stride(N)-th.
inline int64_t mk_pca_stride(int64_t N) { return N > 65536 ? (N + 65535) / 65536 : 1; }
// Slack of the PAA bounds, given zmax = max over windows of ||ẑ||.
double mk_paa_slack(int m, double zmax);

// Windows blocked by the chosen pairs: |p − q| < m for a member q.
void block_pair(std::vector<uint8_t>& blocked, int64_t a, int64_t b, int m);

// What an MK run did (tests, benchmarks).
struct MkStats {
    int64_t runs = 0;            // one per rank (the offset loop is re-run with chosen windows blocked)
    int64_t offsets = 0;         // offsets scanned in all runs
    int64_t last_offset = 0;     // the offset at which the last run stopped
    int64_t pairs_computed = 0;  // exact distances computed in the offset loops
    int order_reference = -1;    // the reference that orders the windows; -1: the PAA's first principal axis
    int paa_segments = 0;        // W of the PAA bound
    double setup_ms = 0;         // statistics, references, PAA, order (wall)
    double scan_ms = 0;          // offset loops: GPU scan kernels; CPU: the whole loops
    double dist_ms = 0;          // GPU exact-distance kernels (CPU: in scan_ms)
};

// The stopping rule of MK's offset loop, the same on CPU and GPU.  Offsets are
// scanned in chunks; after the chunk of ce offsets o0 .. o0 + ce − 1,
// min_gap(oo) (0 <= oo < ce) may exceed the threshold only if every gap of
// the ordering key at offset o0 + oo does (the minimum over all positions, or
// a lower bound of it), and bsf is the best distance so far.  The first offset
// whose min_gap exceeds mk_threshold(bsf, slack) ends the run: no pair at it
// or beyond can beat bsf (the gap grows with the offset); then last = that
// offset and true is returned.  Otherwise the loop moves past the
// chunk (o0 += ce, last = o0 − 1) and false is returned.  S.offsets counts
// the offsets scanned either way.
template <class MinGap>
bool mk_chunk_stops(double bsf, double slack, int64_t ce, MinGap&& min_gap, int64_t& o0, int64_t& last,
                    MkStats& S) {
    const float thr = mk_threshold(bsf, slack);
    for (int64_t oo = 0; oo < ce; ++oo) {
        if (min_gap(oo) > thr) {
            last = o0 + oo;
            S.offsets += oo + 1;
            return true;
        }
    }
    S.offsets += ce;
    o0 += ce;
    last = o0 - 1;
    return false;
}

std::vector<MotifPair> motifs_mk_cpu(const double* x, int64_t n, int m, int64_t k, int64_t excl,
                                     int nref, TsExec* ex, MkStats* stats = nullptr);

// Exact distance profile of window i (all N windows) — the primitive of
// select_top_motifs_from_profile.
struct WindowProfiler {
    virtual ~WindowProfiler() = default;
    virtual void profile(int64_t i, double* out) = 0;  // out: N distances
};
std::unique_ptr<WindowProfiler> make_cpu_profiler(const double* x, int64_t n, int m, TsExec* ex);

// Exact top-k pairs (same rules as MK) from a matrix profile's distances
// (lower bounds; recomputed exactly with prof).
std::vector<MotifPair> select_top_motifs_from_profile(int64_t n, int m, const double* profile_dist,
                                                      int64_t k, int64_t excl, WindowProfiler& prof,
                                                      const TsExec* ex);

// Match: the distance profile of a pattern (CPU), and the greedy selection.
void match_profile_cpu(const double* x, int64_t n, const double* pattern, int m, TsExec* ex,
                       std::vector<double>& dist);
// sorted: (distance, position) ascending.  Returns chosen indices into sorted.
std::vector<int64_t> match_greedy(const std::vector<double>& d_sorted,
                                  const std::vector<int64_t>& pos_sorted, int64_t N, int64_t k,
                                  int64_t excl);

#ifdef TSMINE_WITH_CUDA
namespace gpu {
std::vector<MotifPair> motifs_mk(const double* x, int64_t n, int m, int64_t k, int64_t excl, int nref,
                                 TsExec* ex, MkStats* stats = nullptr);
std::unique_ptr<WindowProfiler> make_window_profiler(const double* x, int64_t n, int m, TsExec* ex);
// Distances of the pattern to every window, those <= max_distance (NaN: all),
// sorted by (distance, position).
void match_sorted(const double* x, int64_t n, const double* pattern, int m, double max_distance,
                  TsExec* ex, std::vector<double>& d_sorted, std::vector<int64_t>& pos_sorted);
}  // namespace gpu
#endif

}  // namespace tsm
