// shapelets.h — the shapelet engine: its internal API, used by the C entry
// points (shapelets.cpp), the CPU path (shapelets.cpp) and the GPU path
// (kernels/shapelets.cu).  The arithmetic and selection rules both paths share
// — window statistics, co-moments, distances, gains, the order of splits and of
// candidates — are in shapelets_detail.h, so GPU and CPU compute the same bits
// and select the same pivots and thresholds.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "shapelets_detail.h"
#include "tsm_api.h"

namespace tsm {
namespace shp {

// A training series in its frame (shapelets_detail.h): frame E of its
// largest magnitude, the values times 2^−E (what the screen reads) and
// whether the screen takes it.  With gaps (shapelets_detail.h, "Gaps"): the
// filled series, on which all of this is computed, and the prefix count of
// its gaps; both empty without gaps.
struct Scaled {
    int frame = 0;
    bool screenable = true;
    std::vector<double> y;
    std::vector<double> filled;
    std::vector<int32_t> gaps_before;  // n + 1 entries
    // The values the engine computes on: the filled series, or x itself.
    const double* values(const double* x) const { return filled.empty() ? x : filled.data(); }
    const int32_t* gaps() const { return gaps_before.empty() ? nullptr : gaps_before.data(); }
};
Scaled scaled_series(const double* x, int64_t n);

// The prefix count of the gaps of x[0..n) (n + 1 entries) into out; false
// (out left empty) when x holds none.
bool gap_prefix(const double* x, int64_t n, std::vector<int32_t>& out);

// The series a discovery runs on (a tree node's subset), local ids 0..N-1.
struct Subset {
    std::vector<const double*> x;       // the values the engine computes on (Scaled::values)
    std::vector<const Scaled*> scaled;  // the same series in their frames
    std::vector<int64_t> n;
    std::vector<int32_t> y;
    std::vector<int64_t> row;  // training row of each local series
    int C = 0;
};

// Window statistics of every series at one length, in each series' frame
// (the CPU path's; the GPU computes the same on the device).
struct LengthStats {
    int L = 0;
    std::vector<int64_t> off;           // per series: offset into the arrays, -1 when n < L
    std::vector<double> mean, inv_sd;   // mean relative to the window's first value; inv_sd = 1/σ, 0 when flat
    std::vector<double> df, dg;         // recurrence terms of window i ≥ 1 (slot 0 unused)
    std::vector<StoredFrame> frames;    // each window's own frame (direct distances)
    std::vector<uint8_t> restart;       // scan_restarts
    std::vector<double> reach;          // scan_restarts: each window's reach (the settle rule's bound)
    std::vector<double> reach_max;      // per series: its windows' largest reach
    std::vector<int64_t> restarts;      // the restarting windows, ascending, series after series
    std::vector<int64_t> restarts_begin;  // per series and one past the last: where its list starts
    std::vector<uint8_t> has_flat;      // per series: any flat window
};
void length_stats(const Subset& d, int L, LengthStats& out);

// The fixed-point entropy terms of a subset (shapelets_detail.h: gains).
struct GainTables {
    std::vector<int64_t> entropy;      // T[c] = round(2^32 c log2 c), c = 0..N
    std::vector<int64_t> class_total;  // series of each class
    int64_t base = 0;                  // T[N] − Σ_c T[class_total[c]]
};
GainTables gain_tables(const Subset& d);

// Keeps the best k candidates (cand_better).
struct TopK {
    explicit TopK(int k_) : k(k_) {}
    void add(const Cand& c);
    void merge(const TopK& o) { for (auto& c : o.v) add(c); }
    std::vector<Cand> take();  // best first
    int k;
    std::vector<Cand> v;
};

// The lengths a discovery considers for this subset.
std::vector<int> pivot_lengths(const Subset& d, int min_length, int max_length, int step);

// Partner for logical shapelets: combined distance max (AND) / min (OR).
struct Partner {
    const double* d = nullptr;  // distance of the partner to each local series
    int op = 0;                 // TsShapeletOp
};

// Whether training settles a pivot's pending entries only where that decides
// something (shapelets_detail.h, "Settling where it decides"; the default)
// or every one: tests switch it, the results are the same either way.
bool& settle_lazily();

// Best k pivots on the CPU / GPU.
std::vector<Cand> discover_cpu(const Subset& d, const std::vector<int>& lengths, int k,
                               const Partner& partner, TsExec* ex);
#ifdef TSMINE_WITH_CUDA
namespace gpu {
std::vector<Cand> discover(const Subset& d, const std::vector<int>& lengths, int k,
                           const Partner& partner, TsExec* ex);
// Tuning of the GPU engine (the defaults are the measured best; tests change them
// to cover every path, results are the same with any setting):
//  start_table_cap: doubles of the table of direct diagonal starts per length
//                   group (0: the distance kernel computes every start itself);
//  rows_per_lane: pivot rows per lane of the distance kernel (at most 1, 2 or 4).
struct Tuning {
    int64_t start_table_cap = int64_t(8) << 20;
    int rows_per_lane = 2;
};
Tuning& tuning();
// Tests: the device's restart scan (stats_kernel's) of one series' windows,
// from their spans and 1/σ: each window's restart flag and reach, and the
// restarting windows in order (scan_restarts' visits).
struct RestartScan {
    std::vector<uint8_t> restart;
    std::vector<double> reach;
    std::vector<int32_t> listed;
};
RestartScan restart_scan(const std::vector<WindowSpans>& spans, const std::vector<double>& inv_sd, TsExec* ex);
}
#endif

// The CPU path's pending entries since the process started, in terms (an
// entry of length L: L terms of its direct distance): how many there were and
// how many it settled (tests: laziness works).
struct SettleCounts {
    std::atomic<int64_t> pending{0}, settled{0};
    void add(int64_t p, int64_t s) {
        pending.fetch_add(p, std::memory_order_relaxed);
        settled.fetch_add(s, std::memory_order_relaxed);
    }
};
SettleCounts& settle_counts();

// The pending entries of every candidate pivot of length L (tests): pivot p
// of source s, target j, the window the entry is settled with, its screened
// distance, the range of its direct distance (settled_range) and that distance.
struct PendingEntry {
    int32_t s, p, j, at;
    double screened;
    SettleRange range;
    double settled;
};
std::vector<PendingEntry> pending_entries(const Subset& d, int L);

// Distances of one pivot to every series of the subset (the engine's exact values).
std::vector<double> pivot_distances(const Subset& d, int s, int p, int L);

// The co-moments the CPU engine computes directly (tests: each is
// local_comoment's bits, the device's direct form): pivot p of source s with
// every window of target j (a row), and the pivots [p0, p1) of s with target
// j's first window (a column).
std::vector<double> direct_row_comoments(const Subset& d, int s, int j, int p, int L);
std::vector<double> direct_column_comoments(const Subset& d, int s, int j, int p0, int p1, int L);

// Definition 1 distance, computed directly (classification, SQL function, and
// the training pairs of a series the screen does not take): the minimum over
// the windows of x that hold no gap (gaps_before: gap_prefix's counts, null
// when x has none); +inf when there is none (x shorter than L, or a gap in
// every window).
double shapelet_distance(const double* shp, int L, const double* x, int64_t n, const int32_t* gaps_before);

}  // namespace shp
}  // namespace tsm
