// discords.h — exact discords: PD3 (CPU path in discords.cpp, GPU path in
// kernels/discords.cu, their shared arithmetic and rules in
// discords_detail.h), top-k discords by a decreasing-r schedule, discords from
// a matrix profile, and the ranking rule both methods follow
// (discords_detail.h).  See api_discords.h for the definitions (distance,
// exclusion, constant windows, modes, ties).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include "matrix_profile.h"
#include "motifs.h"
#include "tsm_api.h"

namespace tsm {

// Everything PD3's scan needs, per window i of N = n − m + 1, computed on the
// host for both paths (discords_detail.h, "Preparation").
struct Pd3Prep {
    int64_t n = 0, N = 0;
    int m = 0;
    int64_t excl = 0;
    std::vector<double> xe;      // the series, unit_scaled: the exact distances' input
    mp::Prepared mp;             // the matrix profile's preparation of x (xs, mu, inv_std, df, dg)
    std::vector<uint8_t> rough;  // pd3::rough_window of every window (0 for window 0)
};
void pd3_prepare(const double* x, int64_t n, int m, int64_t excl, Pd3Prep& p, const TsExec* ex);

// A window a method proposes, with an admissible partner (−1: none known).
struct Candidate {
    int64_t pos, partner;
};

// A PD3 search over one prepared series.  run(r) returns the windows that
// survive the scan with threshold r (unsorted), each with its scan neighbour
// as partner; r = 0 returns every window that has a neighbour.  undone(r),
// after run(r), verifies the scan's discards (discords_detail.h): the
// windows whose discards fail, each with u = the smallest exact distance to
// its partners.  Together they include every window whose NN distance (the
// ranking rule) is ≥ r.  Device state (GPU) is kept between runs.
class Pd3Runner {
  public:
    virtual ~Pd3Runner() = default;
    virtual std::vector<Candidate> run(double r) = 0;
    virtual std::vector<std::pair<int64_t, double>> undone(double r) = 0;
};
// exact: the verification's distances (WindowProfiler::pair_distances) on p.xe.
std::unique_ptr<Pd3Runner> make_cpu_pd3(const Pd3Prep& p, WindowProfiler& exact, TsExec* ex);

// Discords in rank order: positions, NN distances, neighbours.
struct RankedDiscords {
    std::vector<int64_t> pos, nn;
    std::vector<double> dist;
};

// A place in the rank order: E descending, then position ascending.
struct RankKey {
    double v;
    int64_t pos;
};
inline bool ranks_before(const RankKey& a, const RankKey& b) { return a.v != b.v ? a.v > b.v : a.pos < b.pos; }
// A boundary no window lies beyond (every window is a candidate).
constexpr RankKey kNoBoundary{-INFINITY, 0};

// The ranking rule's selection (discords_detail.h): k answers (k < 0: all) in
// top-k mode (min_distance NaN) or range mode.  The exact NN distances it
// computes (prof.nearest) are kept for later calls.
class ExactRanking {
  public:
    ExactRanking(WindowProfiler& prof, int m, int64_t excl, int64_t k, double min_distance)
        : prof_(prof), m_(m), excl_(excl), k_(k), r_(min_distance) {}
    // cands: (window, upper bound u ≥ its E); every other window ranks strictly
    // after `boundary`.  True with the answer in out, or false when a window
    // beyond the boundary might belong to it (the caller widens the candidates).
    bool select(const std::vector<std::pair<int64_t, double>>& cands, RankKey boundary, RankedDiscords& out);

  private:
    struct Exact {
        double d;
        int64_t nn;
    };
    struct Entry {
        RankKey key;
        bool exact;
    };
    void refine(std::vector<Entry>& heap, const std::vector<Entry>& batch, double floor);
    double answer_floor();
    void remember(int64_t w, double d, int64_t nn);
    std::vector<Entry> take_batch(std::vector<Entry>& heap, RankKey boundary, const std::set<int64_t>& chosen,
                                  size_t limit) const;

    WindowProfiler& prof_;
    const int m_;
    const int64_t excl_, k_;
    const double r_;
    std::unordered_map<int64_t, Exact> known_;
    // The known windows that have a neighbour, in rank order (answer_floor
    // walks them from the top instead of sorting known_ at each batch).
    struct RankOrder {
        bool operator()(const RankKey& a, const RankKey& b) const { return ranks_before(a, b); }
    };
    std::set<RankKey, RankOrder> ranked_;
    double floor_ = -INFINITY;  // answer_floor's value when ranked_ held floor_size_ windows
    size_t floor_size_ = 0;
};

// Method 'pd3': range mode when min_distance is finite, else top-k mode with
// the automatic r schedule.  Uses the GPU when tsm::use_gpu says so.
RankedDiscords pd3_discords(const double* x, int64_t n, int m, int64_t k, double min_distance, int64_t excl,
                            TsExec* ex);

// Method 'matrix_profile': the ranking rule over every window, proposed with
// its profile neighbour (profile_index: −1 where a window has none).
// raw: a raw-value profile, ranked by raw-value distances (in x's units).
RankedDiscords discords_from_profile(const double* x, int64_t n, int m, const int64_t* profile_index, int64_t k,
                                     double min_distance, int64_t excl, TsExec* ex, bool raw = false);
// Its selection, with the exact distances of prof (N windows); gap (null:
// none) flags the windows that hold a gap, never candidates.
RankedDiscords rank_from_profile(WindowProfiler& prof, int64_t N, int m, const int64_t* profile_index, int64_t k,
                                 double min_distance, int64_t excl, const TsExec* ex, const uint8_t* gap = nullptr);

#ifdef TSMINE_WITH_CUDA
namespace gpu {
std::unique_ptr<Pd3Runner> make_pd3(const Pd3Prep& p, TsExec* ex);
}  // namespace gpu
#endif

}  // namespace tsm
