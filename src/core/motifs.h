// motifs.h — exact motifs (MK, Mueen–Keogh with reference windows, as in the
// GPU thesis ../shared/papers/mk-gpu-motifs-thesis-ru.txt ch. 3–4), motifs from
// a matrix profile, and similarity search (match).  CPU paths in motifs.cpp
// and match.cpp; GPU paths in kernels/motifs.cu and kernels/match.cu; the
// arithmetic and the selection rules both share (window statistics, the
// distance, the pair order, MK's bounds, key and stopping rule) in
// motifs_detail.h, so both return the same positions and decide ties alike.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "motifs_detail.h"
#include "tsm_api.h"

namespace tsm {

// The series scaled by a power of two so that its largest magnitude lies in
// the matrix profile's top binade [2^480, 2^481) (mp::scale_exponent and
// frames::times_pow2_up: one rounding each, exact but below 2^−1022 of the result;
// motifs_detail.h, "The series"); a copy of x when x is all zeros.  Every
// function below takes the series in this form.
std::vector<double> unit_scaled(const double* x, int64_t n);
// Its exponent e (unit_scaled(x) = x·2^e).
int unit_scale_exponent(const double* x, int64_t n);
// x·2^e value by value (frames::times_pow2_up): unit_scaled for a known e.
std::vector<double> scaled_by(const double* x, int64_t n, int e);
// A raw-value distance d of the unit_scaled series in x's units, d·2^−e
// (mp::scale_any); an Error (22003) where that exceeds the float64 range.
double raw_distance_unscaled(double d, int e);

// Statistics of every window (motif::window_zstat, window by window).
struct ZStats {
    int m = 0;
    int64_t count = 0;
    std::vector<double> mean, inv;   // inv = 1/σ, 0 when constant
    std::vector<uint8_t> constant;   // every value equal, or σ vanished in rounding
};
void zstats(const double* x, int64_t n, int m, ZStats& out, const TsExec* ex);

// z-normalised Euclidean distance of windows a and b (pointers to their first
// values) with their statistics (motifs_detail.h).  Symmetric bit-for-bit.
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

// Reference windows of MK: min(n_refs, N, kMaxReferences) distinct windows drawn
// with a fixed seed (the same on CPU and GPU).
constexpr int kMaxReferences = 256;
std::vector<int64_t> mk_references(int64_t N, int n_refs);

// Principal axes of the PAA coefficients from their sums over `count` windows
// (sum: W, sumsq: W×W): V (W×W, column k = axis k, orthonormal) and the
// variances along them, descending.  Falls back to V = I if the rotation is
// not orthonormal to 1e-12.
void mk_principal_axes(int W, const double* sum, const double* sumsq, double count, std::vector<double>& V,
                       std::vector<double>& var);

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

// What MK's setup decides, the same on CPU and GPU: the PAA's principal axes,
// the key, and the slacks of the three bounds.
struct MkPlan {
    int W = 0;                   // PAA segments
    std::vector<double> V, var;  // principal axes (W × W, column k = axis k), variances
    int r0 = 0;                  // the reference with the largest spread
    bool key_paa = false;        // the key is PAA axis 0 (else reference r0's distances)
    int k0 = 0;                  // the first PAA axis after the key
    double slack = 0;            // of the reference bounds (motif::pruning_slack)
    double slack_paa = 0;        // of the PAA bounds (motif::paa_slack)
    double slack_key = 0;        // of the key gap: slack_paa when the key is axis 0, else slack
    motif::ScanThresholds thresholds(double bsf) const {
        return {motif::prune_threshold(bsf, slack_key), motif::prune_threshold2(bsf, slack_paa),
                motif::prune_threshold(bsf, slack)};
    }
};

// The plan from the references' spreads (ref_sd), the blocks of the PAA's
// moment sums (W + W² values a block of kAxesSumBlock sampled windows; merged
// here in block order), the number of sampled windows, and the largest Σ ẑ².
// Records the key and W in S.
MkPlan mk_plan(int m, int W, const std::vector<double>& ref_sd, std::vector<double>& moment_blocks, int64_t samples,
               double zmax2, MkStats& S);

// MK's greedy ranks, the same on CPU and GPU: rank t is the best allowed pair
// with the windows of ranks 1 .. t−1 blocked (block_pair); best_pair(blocked)
// runs one rank's offset loop (a < 0: no allowed pair is left, the ranks end).
std::vector<MotifPair> mk_ranks(int64_t N, int m, int64_t k, MkStats& S,
                                const std::function<motif::BestPair(const std::vector<uint8_t>&)>& best_pair);

std::vector<MotifPair> motifs_mk_cpu(const double* x, int64_t n, int m, int64_t k, int64_t excl,
                                     int n_refs, TsExec* ex, MkStats* stats = nullptr);

// Exact distances of one series' windows (zdist, on the GPU its warp form:
// the same bits) — the primitives of select_top_motifs_from_profile (the
// distance profile of a window with many candidates) and of the discords'
// ranking rule (discords_detail.h).
struct WindowProfiler {
    virtual ~WindowProfiler() = default;
    // The distance profile of window i: out[j] = d(i, j) for all N windows.
    virtual void profile(int64_t i, double* out) = 0;
    // out[t] = d(a[t], b[t]) for t < count (a null: a[t] = t; b[t] < 0: +inf).
    virtual void pair_distances(const int64_t* a, const int64_t* b, int64_t count, double* out) = 0;
    // The exact nearest neighbour of each window w[t] (t < count): the
    // smallest d(w, j) over |w − j| ≥ excl, ties to the smaller j
    // (motif::nearer); index −1 and +inf when no window is admissible.
    // upper[t] ≥ that distance (+inf: unknown) only lets hopeless pairs be
    // abandoned early.  When some admissible j has d(w, j) < floor the search
    // may stop there: then dist[t] < floor (and index[t] is such a j, which
    // one depending on the schedule); dist[t] ≥ floor is always the exact answer.
    virtual void nearest(const int64_t* w, int64_t count, int64_t excl, const double* upper, double floor,
                         double* dist, int64_t* index) = 0;
};
// xs: the series as unit_scaled returns it (kept by the caller while the profiler lives).
// raw: the raw-value distance (motifs_detail.h, "raw values"), in xs's units.
std::unique_ptr<WindowProfiler> make_cpu_profiler(const double* xs, int64_t n, int m, TsExec* ex, bool raw = false);

// Exact top-k pairs (same rules as MK) from a matrix profile's neighbours
// (profile_index: −1 where a window has none; also the likely partners):
// each window's bound is motif::profile_lower_bound of its distance to that
// neighbour, and the distances of the pairs that can rank are computed
// exactly on the host, or, for a window with more than whole_profile_after
// of them, with prof.  xs: the series as unit_scaled returns it.  raw: the
// raw-value profile's neighbours and distances (prof raw too; the bound is
// motif::raw_profile_lower_bound; distances in xs's units).  budget > 0:
// over_budget() (TS_OVER_BUDGET) once more than that many distances were
// computed — where the profile's bounds cannot tell near-ties apart (tiny
// distances: the bound is 0 below about sqrt(2m·2^-27)), every window
// compares itself with every other, and auto turns to MK instead.
std::vector<MotifPair> select_top_motifs_from_profile(const double* xs, int64_t n, int m,
                                                      const int64_t* profile_index, int64_t k, int64_t excl,
                                                      WindowProfiler& prof, int64_t whole_profile_after,
                                                      const TsExec* ex, bool raw = false, int64_t budget = 0);

// Match: the distance profile of a pattern (CPU), and the greedy selection.
void match_profile_cpu(const double* x, int64_t n, const double* pattern, int m, TsExec* ex,
                       std::vector<double>& dist);
// The same for raw values (x and pattern scaled by one power of two).
void match_profile_raw_cpu(const double* x, int64_t n, const double* pattern, int m, TsExec* ex,
                           std::vector<double>& dist);
// sorted: (distance, position) ascending.  Returns chosen indices into sorted.
std::vector<int64_t> match_greedy(const std::vector<double>& d_sorted,
                                  const std::vector<int64_t>& pos_sorted, int64_t N, int64_t k,
                                  int64_t excl);

// The GPU's profiler (on_gpu; only in a CUDA build) or the CPU's; raw: raw-value distances.
std::unique_ptr<WindowProfiler> make_profiler(const double* xs, int64_t n, int m, TsExec* ex, bool on_gpu,
                                              bool raw = false);
// The profiler of unit_scaled(x) from x itself: the GPU's scales its device
// copy (no scaled copy on the host), the CPU's reads xe, kept here.
struct ScaledProfiler {
    int exponent = 0;        // unit_scale_exponent(x)
    std::vector<double> xe;  // unit_scaled(x) for the CPU's profiler; empty for the GPU's
    std::unique_ptr<WindowProfiler> prof;
};
ScaledProfiler make_scaled_profiler(const double* x, int64_t n, int m, TsExec* ex, bool on_gpu, bool raw = false);

#ifdef TSMINE_WITH_CUDA
namespace gpu {
// MK on the series x·2^scale_exp (unit_scaled's form when scale_exp is
// unit_scale_exponent(x); the device scales the copy it reads, with
// frames::times_pow2_up, the bits of unit_scaled).
std::vector<MotifPair> motifs_mk(const double* x, int64_t n, int m, int64_t k, int64_t excl, int n_refs,
                                 TsExec* ex, MkStats* stats = nullptr, int scale_exp = 0);
// The profiler of xs·2^scale_exp (scaled on the device: unit_scaled's bits).
std::unique_ptr<WindowProfiler> make_window_profiler(const double* xs, int64_t n, int m, TsExec* ex, bool raw,
                                                     int scale_exp = 0);
// Distances of the pattern to every window, those <= max_distance (NaN: all),
// sorted by (distance, position).
void match_sorted(const double* x, int64_t n, const double* pattern, int m, double max_distance,
                  TsExec* ex, std::vector<double>& d_sorted, std::vector<int64_t>& pos_sorted, bool raw);
}  // namespace gpu
#endif

}  // namespace tsm
