// discords.h — exact discords: PD3 range discords (CPU path in discords.cpp,
// GPU path in kernels/discords.cu, their shared arithmetic and rules in
// discords_detail.h), top-k discords by a decreasing-r schedule, and the
// selection of discords from a full matrix profile.  See api_discords.h for
// the definitions (distance, exclusion, constant windows, modes, ties).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "tsm_api.h"

namespace tsm {

// Everything the candidate selection and refinement need, per window i of
// N = n − m + 1, computed on the host for both paths (discords_detail.h,
// "Preparation"): mean[i], isd[i] = 1/σ_i (0 for a constant window), the
// recurrence terms df[i], dg[i] of the centred co-moment, and the constant
// flags.  Every term is a difference of nearby raw values, so an offset of
// 1e8 changes nothing.
struct Pd3Prep {
    const double* x = nullptr;
    int64_t n = 0, N = 0;
    int m = 0;
    int64_t excl = 0;
    std::vector<double> mean, isd, df, dg;
    std::vector<uint8_t> constant;
};
void pd3_prepare(const double* x, int64_t n, int m, int64_t excl, Pd3Prep& p, const TsExec* ex);

// One window with its exact NN.  dist2 is the squared distance as the scan
// found it; dist the distance recomputed directly (centred, two-pass) for the
// pair (pos, nn), identical on CPU and GPU paths.
struct DiscordRow {
    int64_t pos;
    double dist2;
    double dist;
    int64_t nn;
};

// Direct z-normalised distance of windows i and j (centred; STUMPY's rule for
// constant windows).
double pair_distance(const Pd3Prep& p, int64_t i, int64_t j);

// A PD3 search over one prepared series: run(r) returns every window whose
// NN distance is >= r (unsorted), with its NN, computed exactly.  r = 0 makes
// it exhaustive.  Device state (GPU) is kept between runs.
class Pd3Runner {
  public:
    virtual ~Pd3Runner() = default;
    virtual std::vector<DiscordRow> run(double r) = 0;
};
std::unique_ptr<Pd3Runner> make_cpu_pd3(const Pd3Prep& p, TsExec* ex);

// A survivor as a run found it: the scan's d² and its square root (which
// pd3_discords replaces by the direct distance before ranking).
inline DiscordRow found_row(int64_t pos, double d2, int64_t nn) {
    return {pos, d2, std::sqrt(std::max(d2, 0.0)), nn};
}

// Ranked discords from (pos, dist, nn) rows.  Ranking: dist descending, ties:
// smaller pos first.  non_overlap: greedy, skipping any row with
// |pos − chosen| < m (top-k mode); otherwise every row (range mode).
// min_distance (NaN: none) drops rows with dist < min_distance.  k = -1: all.
struct RankedDiscords {
    std::vector<int64_t> pos, nn;
    std::vector<double> dist;
};
RankedDiscords rank_discords(std::vector<DiscordRow> rows, int m, int64_t k, double min_distance,
                             bool non_overlap);

// Selection from a full profile (method 'matrix_profile'): entries with a
// non-finite distance or a negative index are skipped.
RankedDiscords select_top_discords(const double* profile_dist, const int64_t* profile_index,
                                   int64_t count, int m, int64_t k, double min_distance,
                                   bool non_overlap);

// The whole search: range mode when min_distance is finite, else top-k mode
// with the automatic r schedule.  Uses the GPU when tsm::use_gpu says so.
RankedDiscords pd3_discords(const double* x, int64_t n, int m, int64_t k, double min_distance,
                            int64_t excl, TsExec* ex);

#ifdef TSMINE_WITH_CUDA
namespace gpu {
std::unique_ptr<Pd3Runner> make_pd3(const Pd3Prep& p, TsExec* ex);
}  // namespace gpu
#endif

}  // namespace tsm
