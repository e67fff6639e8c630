// matrix_profile.h — the exact self-join matrix profile (z-normalised
// Euclidean distance, float64) for the core's features, CPU and GPU.
// Conventions (key order, constant windows, exclusion, segments): mp_detail.h.
#pragma once

#include <cstdint>
#include <vector>

#include "api_matrix_profile.h"
#include "mp_detail.h"
#include "tsm_api.h"

namespace tsm {

struct MatrixProfile {
    std::vector<double> dist;    // per window i = 0 .. n−m: distance to its nearest admissible neighbour
    std::vector<int64_t> index;  // that neighbour (smallest among ties); −1 with dist = +inf when none
};

// For every window i, the minimum over windows j with |i − j| ≥ exclusion of
// the z-normalised Euclidean distance.  Requires 1 ≤ m ≤ n and exclusion ≥ 1
// (the C entry point validates user input; this one throws Error on misuse).
// Dispatches with tsm::use_gpu(ex, TS_WORK_MATRIX_PROFILE, n, m).
void matrix_profile(const double* x, int64_t n, int m, int64_t exclusion, TsExec* ex, MatrixProfile& out);
// The checks of m and exclusion_zone (args.h): the exclusion zone, the
// profile's default ceil(m/4) + 1 for TS_ARG_NULL.
int64_t profile_exclusion(int m, int64_t exclusion);
// The checks of a profile's arguments (22023 with a hint), before any work:
// profile_exclusion's, then 3 ≤ m ≤ n/2, exclusion ≤ n − m (NaN and ±Infinity are gaps, no error).
// Returns the exclusion zone.
int64_t check_profile_args(const double* x, int64_t n, int m, int64_t exclusion);
// The same into caller memory: dist and index hold n − m + 1 entries.
// raw: the Euclidean distance of the raw windows instead (normalized =>
// false; mp_detail.h, "raw values"): an Error (22003) where a distance
// exceeds the float64 range.
void matrix_profile(const double* x, int64_t n, int m, int64_t exclusion, TsExec* ex, double* dist,
                    int64_t* index, bool raw = false);

// Raw values: a distance past the float64 range (index ≥ 0, dist +inf) is
// an Error (22003), not +inf.
void check_raw_distances(const double* dist, const int64_t* index, int64_t count);

// The AB-join (mp_ab.cpp): for every window i of a (na values), the minimum
// over the windows j of b (nb values) with |i − j| ≥ exclusion (0: every j)
// of the z-normalised Euclidean distance (raw: of the raw windows, as
// matrix_profile), and that j (−1 with +inf when none).  NaN and ±Infinity
// are gaps (mp_detail.h): a window of a with one has +inf and −1, a window
// of b with one is no window's neighbour.  dist and index hold na − m + 1
// entries.  Requires 1 ≤ m ≤ na, nb and exclusion ≥ 0 (throws Error on
// misuse).  Dispatches as matrix_profile does, for a self-join of as many
// pairs.
void matrix_profile_ab(const double* a, int64_t na, const double* b, int64_t nb, int m, int64_t exclusion,
                       TsExec* ex, double* dist, int64_t* index, bool raw = false);
// Its checks (22023 with a hint): 3 ≤ m ≤ na, m ≤ nb, exclusion ≥ 0.
void check_profile_ab_args(const double* a, int64_t na, const double* b, int64_t nb, int m, int64_t exclusion);

namespace mp {
struct UnitRange;
}
// Tiles (mp_tiles.cpp): the sweep over a range of units alone, the best key
// per window into keys (count = n − m + 1 entries, 0 where the range has no
// candidate); and the finalisation of keys merged from tiles into the
// profile.  Both dispatch as matrix_profile does.
// raw: raw-value keys and distances (as matrix_profile).
void matrix_profile_keys(const double* x, int64_t n, int m, int64_t exclusion, const mp::UnitRange& units,
                         TsExec* ex, uint64_t* keys, bool raw = false);
void matrix_profile_finish(const double* x, int64_t n, int m, int64_t exclusion, const uint64_t* keys, TsExec* ex,
                           double* dist, int64_t* index, bool raw = false);

namespace mp {

// Everything the CPU sweep needs, computed on the host.  The GPU path computes
// the same arrays on the device with the same functions (mp_detail.h).
struct Prepared {
    const double* x = nullptr;     // the series (the caller's, or filled: with gaps; raw values' distances)
    int64_t n = 0, count = 0, excl = 0;
    int m = 0;
    SeriesScale scale;             // xs = scaled_value(x, scale)
    std::vector<double> xs;        // (x·2^e1 − c)·2^e2 (mp_detail.h)
    std::vector<double> mu, inv_std, inv_norm, inv4, df, dg;  // per window (inv4 = inv_norm / 4; raw: σ²)
    std::vector<uint8_t> constant;
    std::vector<int64_t> next_const;  // count + 1 entries
    int64_t first_const = 0;
    std::vector<GuardStat> guard_rows, guard_cols;  // the recurrence's guard tables
    KeyCodec codec;
    std::vector<double> filled;      // with gaps only: the filled series (plan_gaps; x points into it)
    std::vector<uint8_t> gap;        // with gaps only (mp_detail.h): per window, whether it holds one
    std::vector<int64_t> next_ok;    // with gaps only: the smallest window ≥ q without one (count + 1 entries)
    bool has_gaps() const { return !gap.empty(); }
    FinalizeArgs finalize_args() const;
};

// The gaps of a series (mp_detail.h, "Gaps"): filled, the series with each
// gap replaced by the last finite value before it (the first finite value
// for leading gaps, 0 when none is finite); gap and next_ok as in Prepared.
struct GapPlan {
    std::vector<double> filled;
    std::vector<uint8_t> gap;
    std::vector<int64_t> next_ok;
};
// False (and g left empty) when x[0..n) holds no gap: the common case costs one scan.
bool plan_gaps(const double* x, int64_t n, int m, GapPlan& g);
// The plan of a series without gaps whose windows need flags all the same
// (an AB-join whose other series has gaps): none set, filled empty.
void plan_no_gaps(int64_t n, int m, GapPlan& g);
// The AB-join's plans: each series' (plan_gaps), and where one of them has
// gaps, plan_no_gaps for the other, so both have flags or neither has.
void ab_gap_plans(const double* a, int64_t na, const double* b, int64_t nb, int m, GapPlan& ga, GapPlan& gb);
// The values the profile works on: x, or the filled series of its plan.
const double* series_values(const double* x, const GapPlan& g);
// The value of leading gaps in the filled series: the first finite value of
// x, 0 when none is.
double lead_fill(const double* x, int64_t n);

// The preparation of a series with its own rescaling (and its gap plan).
void prepare(const double* x, int64_t n, int m, int64_t excl, const TsExec* ex, Prepared& p, bool raw = false);
// The same with its gap plan (taken: left empty) and a rescaling given (the
// AB-join's raw values: joint_scale).
void prepare_planned(const double* x, int64_t n, int m, int64_t excl, const TsExec* ex, GapPlan& gaps,
                     const SeriesScale& scale, Prepared& p, bool raw);

// The samples series_scale (mp_detail.h) chooses the centre by: quantiles of
// kCentreSamples evenly spaced values (of all of them when n is smaller), each
// an element of x.  The same on both paths (the GPU path passes them on).
constexpr int64_t kCentreSamples = 255;
CentreSamples series_samples(const double* x, int64_t n);
// The samples of two series (a, na values; b, nb) for one rescaling of both
// (the AB-join's raw values): the wider quantiles 1/8 and 7/8, the median of
// the longer series (a's on a tie), so a = b gives a's own.
CentreSamples joint_samples(const CentreSamples& a, int64_t na, const CentreSamples& b, int64_t nb);
// The rescaling of x's values (series_values), and the one of a's and b's together.
SeriesScale own_scale(const double* x, int64_t n);
SeriesScale joint_scale(const double* a, int64_t na, const double* b, int64_t nb);
// series_samples of the filled series (plan_gaps; lead: lead_fill), read from
// x with its gaps (the GPU fills the series on the device).
CentreSamples filled_samples(const double* x, int64_t n, double lead);

// ---- tiles of the sweep (ts_matrix_profile_tile, mp_tiles.cpp) ----
// The sweep's work is cut into units: segment s (rows from s·segment_rows(count), where
// every diagonal's co-moment restarts) × kTileDiags diagonals from
// excl + b·kTileDiags.  Both paths split a unit into the very tasks their
// whole-profile sweep runs (CPU: kCpuDiags diagonals, GPU: bands of kBand and
// the guard's direct tiles of their kGuardDiags columns; all divide
// kTileDiags), and a task's guard decisions (mp_detail.h) depend on the data
// and the task alone, so a tile computes every pair's key with the same
// operations as the single call, and the maximum over the tiles' keys is the
// single call's key, bit for bit.
constexpr int64_t kTileDiags = 1024;

// Units from (seg0, band0) up to, not including, (seg1, band1), segment-major.
struct UnitRange {
    int64_t seg0 = 0, band0 = 0, seg1 = 0, band1 = 0;
};

// Units of segment s (0 when its first row has no diagonal ≥ excl).
int64_t units_in_segment(int64_t count, int64_t excl, int64_t s);
// Every unit: the whole profile.
UnitRange all_units(int64_t count, int64_t excl);
// Tile t (0-based) of `tiles`: units [⌊U·t/tiles⌋, ⌊U·(t+1)/tiles⌋) of U.
UnitRange tile_units(int64_t count, int64_t excl, int64_t t, int64_t tiles);

// The units of `range` in `parts` consecutive ranges of about equal numbers
// of pairs (a range is empty when there are fewer units than parts): a split
// call's share per GPU.  Positions at a segment's end are written as the next
// segment's start.
std::vector<UnitRange> split_units(int64_t count, int64_t excl, const UnitRange& range, int parts);

// The profile of merged tiles (tsm_matrix_profile_from_tiles) with the
// window, exclusion zone and distance its tiles were made with: what
// ts_discords_from_tiles and ts_motifs_from_tiles rank.  Returns st's code.
struct TiledProfile {
    TsProfile profile;
    int32_t m = 0, normalize = 1;
    int64_t exclusion = 0;
};
int profile_from_tiles(const double* x, int64_t n, const int64_t* merged, int64_t words, TsExec* ex,
                       TiledProfile& t, TsStatus* st);

// The CPU sweep over a range of units: the best key per window (count
// entries, 0 where the range holds no candidate).
void cpu_sweep(const Prepared& P, const TsExec* ex, const UnitRange& units, std::vector<uint64_t>& keys);

// The AB-join (mp_detail.h): A and B prepared with their first diagonals
// (ab_first_diagonal: A's for the lower part, B's for the upper), the codec
// of the longer series; the best key of every window of A (its index: B's).
int64_t ab_first_diagonal(int64_t excl, int64_t count, bool lower);
// A and B of an AB-join prepared so (ab_gap_plans; raw: joint_scale).
void prepare_ab(const double* a, int64_t na, const double* b, int64_t nb, int m, int64_t excl, const TsExec* ex,
                bool raw, Prepared& A, Prepared& B);
void cpu_sweep_ab(const Prepared& A, const Prepared& B, const KeyCodec& codec, const TsExec* ex,
                  std::vector<uint64_t>& keys);
// The finalisation of A's windows against B's (the self-join: finalize_args).
FinalizeArgs finalize_args_ab(const Prepared& A, const Prepared& B, int64_t excl, const KeyCodec& codec);
// The distances and neighbours of count windows from their keys.
void cpu_finalize(const FinalizeArgs& a, const TsExec* ex, const uint64_t* keys, int64_t count, double* dist,
                  int64_t* index);

}  // namespace mp

#ifdef TSMINE_WITH_CUDA
namespace gpu {
// Preparation, sweep and finalisation on the device; fills dist and index
// (n − m + 1 entries, host memory).  With several GPUs (dispatch.h:
// split_gpus; one GPU may be listed more than once) each prepares the series
// on its own, sweeps its share of the units (mp::split_units, balanced by
// pairs) on its own stream and memory, the keys are merged on the host by
// their element-wise maximum and finalised once, on the first GPU: the bits
// of one GPU's call, because every unit is whole tasks of the one-GPU sweep
// (the header of mp_tiles.cpp says why that gives the same keys), the
// preparation is the same on every GPU (mp_detail.h's functions, exact
// reductions), and the maximum of keys does not depend on the order of
// merging (keys are a total order).
// raw: raw-value keys and distances (mp_detail.h, "raw values").
void matrix_profile(const double* x, int64_t n, int m, int64_t excl, const std::vector<int>& gpus, TsExec* ex,
                    double* dist, int64_t* index, bool raw);
// The sweep over a range of units alone, split over the GPUs as above: the
// best key per window (count entries, host memory), as cpu_sweep.
void matrix_profile_keys(const double* x, int64_t n, int m, int64_t excl, const mp::UnitRange& units,
                         const std::vector<int>& gpus, TsExec* ex, uint64_t* keys, bool raw);
// The finalisation of keys merged from tiles (count entries, host memory), on ex->gpu_device.
void matrix_profile_finish(const double* x, int64_t n, int m, int64_t excl, const uint64_t* keys, TsExec* ex,
                           double* dist, int64_t* index, bool raw);
// The AB-join on the device (as tsm::matrix_profile_ab).
void matrix_profile_ab(const double* a, int64_t na, const double* b, int64_t nb, int m, int64_t excl, TsExec* ex,
                       double* dist, int64_t* index, bool raw);
}  // namespace gpu
#endif

}  // namespace tsm
