// shapelets.cu — shapelet discovery on the GPU (Chang et al., ICDM 2012, with
// the centred recurrence).  Arithmetic and selection rules: shapelets_detail.h
// (shared with the CPU path, bit for bit).
//
// Work: for every length L and source series s, the pivots p = 0..n_s-L are
// rows of a matrix against each target series j (columns u = windows of j).
//  * start_table_kernel: the direct diagonal starts, once per length group:
//    the table holds C(window 0 of s, window u of j) for every ordered pair of
//    series.  These are the first rows of the row group p = 0 of every (s, j),
//    and — read transposed, C(p, 0) of (s, j) = entry (j, s, p), the same
//    products (multiplication commutes exactly) summed in the same order — the
//    column-0 starts of every row.  A thread per target window, eight sources
//    each, the centred source windows staged in shared memory: every direct
//    value once, at full lane use (the distance kernel used to compute each
//    twice, with idle lanes for short rows).  Groups whose table would pass
//    Tuning::start_table_cap leave the starts to the distance kernel.
//  * dist_kernel: one warp per task (s, L, target j, row group); a lane per one,
//    two or four consecutive pivot rows (the paper's thread per pivot; at most
//    Tuning::rows_per_lane, fewer for a tile's last rows), 32 to 128 rows a tile.
//    The warp walks the target's windows u in lockstep: the first row of a lane
//    gets C(p-1,u-1) from the lane before by a shuffle (lane 0 from the previous
//    tile's last row kept in shared memory), the next ones from the lane's own
//    rows, so each step is O(1) (comoment_next) and a pivot's distance to
//    a series costs O(n_j).  The kernel is bound by shared/L1 traffic (the
//    target's terms, the carry, the shuffle): two rows a lane halve it per
//    cell; four cost more registers than they save (measured).  Tasks are
//    taken one at a time from an atomic counter by persistent warps (batches of
//    four consecutive tasks were measured slower on the big sets: longer tails
//    per launch).  Per-pivot distances go to a bounded batch matrix D[j][pivot].
//  * gain_kernel: one warp per pivot, a contiguous range of pivots per warp:
//    the order line (rank sort in shared memory; the tie count only when there
//    are ties), class counts by ballots, the gain of every split in fixed
//    point; then, only where the best gain can still enter the warp's best-k
//    list, the prefix sums and separation gaps of the splits with that gain.
//    For k <= kDeviceTopK each warp keeps its own sorted best-k list on the
//    device across launches (cand_better), merge_kernel merges them at the end
//    and only the k best come back; for larger k, (gain, gap, threshold) per
//    pivot come back per launch.
//  * Settling (shapelets_detail.h, "Settling where it decides"): dist_kernel
//    marks an entry that needs settling by the sign bit of its screened
//    distance (is_pending) and leaves the window to settle it with in arg.
//    With device lists, gain_kernel gives a pivot's pending entries their
//    ranges, tests their places along the order line it sorts anyway
//    (neighbours_apart) and lists the pivots where settling decides;
//    settle_listed_kernel settles those (a thread per entry) and
//    gain_listed_kernel scores them.  Otherwise settle_kernel settles every
//    pending entry before gain_kernel.
// The whole call is planned first (length groups whose window statistics and
// start table fit, launches within them); every device buffer is carved from
// one allocation sized from the plan (one cudaMalloc and one cudaFree a call,
// so the accounting of gpu_runtime.h sees the call's whole footprint and
// nothing stays), and everything the host prepares (series, labels, work
// items, window offsets of every length) is written in place into one staging
// buffer and goes up in one copy.  A launch holds at most kMaxBatchBytes of
// distances; launches queue up without host round trips, with tsm::gpu::wait
// after about kLaunchCost cell updates (tens of ms) of them.  Window statistics
// are computed on the device (stats_kernel, the host's chunks).
// Gaps (shapelets_detail.h): the host's filled series go up as the series,
// and, only when some series has gaps, the prefix counts of its gaps, by
// which stats_kernel marks the windows that hold one (mark_gap_window); the
// other kernels see them through their NaN 1/σ alone.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "api_shapelets.h"
#include "error.h"
#include "gpu_runtime.h"
#include "progress.h"
#include "shapelets.h"
#include "shapelets_scan.cuh"

// Blocks per SM dist_kernel's registers are sized for (its __launch_bounds__).
// dist_kernel<1> and <2> fit 80 registers without spilling (6 blocks of 128
// threads per SM, as before the restarts; unbounded, ptxas takes 114 and
// 124), dist_kernel<4> 128 (4 blocks).  Defining it (1: no constraint)
// applies one value to all three.
#ifdef TSM_SHAPELETS_DIST_MIN_BLOCKS
#define TSM_DIST_MIN_BLOCKS(maxrpl) TSM_SHAPELETS_DIST_MIN_BLOCKS
#else
#define TSM_DIST_MIN_BLOCKS(maxrpl) ((maxrpl) >= 4 ? 4 : 6)
#endif

// Blocks of 8 warps per SM gain_kernel's registers are sized for (its
// __launch_bounds__): 4 (64 registers, 4 bytes spilled) against 3 (ptxas's
// own choice, 72) took 1-2% off the four sets' kernels on the H100; 5 (48
// registers, 68 bytes spilled) is slower (RESULTS).
#ifdef TSM_SHAPELETS_GAIN_MIN_BLOCKS
#define TSM_GAIN_MIN_BLOCKS TSM_SHAPELETS_GAIN_MIN_BLOCKS
#else
#define TSM_GAIN_MIN_BLOCKS 4
#endif

namespace tsm {
namespace shp {
namespace gpu {

using tsm::gpu::check;

Tuning& tuning() {
    static Tuning t;
    return t;
}

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kDistWarps = 4;                        // warps per block of dist_kernel
constexpr double kLaunchCost = 2.5e10;               // cell updates per launch (~20-40 ms on an H100)
constexpr size_t kMaxBatchBytes = size_t(32) << 20;  // distance matrix of one launch
constexpr int64_t kStatsEntries = int64_t(1) << 20;  // windows of one length group
constexpr int kDeviceTopK = 64;                      // device best-k lists up to this k
constexpr int kStartThreads = 128;                   // start_table_kernel: threads (target windows) per block
constexpr int kStartSources = 8;                     // start_table_kernel: sources per thread
constexpr int kStartStaged = 128;                    // start_table_kernel: source-window values staged per pass

// One (source, length) of a launch: its pivots are the rows pivot_base ..
// pivot_base + pivots − 1 of the launch's distance matrix, its tasks (row
// group, target) task_base .. task_base + row_groups · N − 1.
struct Item {
    int64_t task_base;   // relative to its launch
    int64_t pivot_base;  // relative to its launch
    int64_t row;         // training row of the source
    int32_t source, length_index, length, pivots, row_groups, rows_per_group;
};

// ---- device arguments -------------------------------------------------------------

// The training series, concatenated: as given (gaps filled), and in their
// frames (y, what the screen reads; shapelets_detail.h).
struct SeriesArgs {
    const double* values;
    const double* scaled;
    const int64_t* offset;       // per series: its first value
    const int64_t* length;       // per series: its number of values
    const int32_t* frame;        // per series: its frame
    const int32_t* gaps_before;  // null without gaps; else series j's n + 1 prefix counts at offset[j] + j
    int count;                   // N
};

// The windows of one length group: length index li (relative to the group) of
// series j has its windows at entries window_offset[li·N + j] .. (−1: the
// series is shorter than the length).
struct WindowArgs {
    const int64_t* window_offset;
    const int32_t* lengths;
    int n_lengths;
    double* mean;        // relative to the window's first value (screen_stats)
    double* inv_sd;      // 0 for flat windows
    StoredFrame* frames; // each window's own frame (settle_kernel's direct distances)
    double2* terms;      // (df, dg) of window i ≥ 1 of each series (local_terms)
    uint8_t* has_flat;   // [li·N + j]: any flat window (zeroed before stats_kernel)
    uint8_t* restart;    // scan_restarts, per window
    double* reach;       // scan_restarts: each window's reach (the settle rule's bound)
    int32_t* restarts;   // the restarting windows of each series, ascending, from its first window's entry
    int32_t* n_restarts; // [li·N + j]: how many
};

// The start table of a length group: for length index li, windows[li] entries
// per source (every target's windows), the first at length_offset[li] of the
// group; entry (s, j, u) = values[N·length_offset[li] + s·windows[li] +
// window_start[li·N + j] + u − length_offset[li]].  first_block: the first
// start_table_kernel block of each length.
struct StartTableArgs {
    const int64_t* window_start;  // like window_offset, the next one for a shorter series
    const int64_t* windows;
    const int64_t* length_offset;
    const int64_t* first_block;
    double* values;  // null: the distance kernel computes every start itself
};

// The distance matrix of one launch and dist_kernel's scratch.
struct DistArgs {
    double* dist;             // dist[j · pivot_stride + pivot]
    int32_t* arg;             // where an entry is pending (is_pending): the window to settle it with; the same layout
    int64_t pivot_stride;
    unsigned long long* next_task;
    double* carry;            // per warp, when the carries do not fit in shared memory
    int64_t max_windows;      // windows of the longest target at the shortest length
    int carry_in_shared;
};

// What gain_kernel reads besides the distances.
struct GainArgs {
    int n_series, n_classes;
    const int32_t* labels;
    const int64_t* entropy;      // T (gain_tables)
    const int64_t* class_total;
    int64_t base;
    const double* partner;       // the partner's distances (logical shapelets), or null
    int op;                      // TsShapeletOp of the partner
};

// Where gain_kernel puts its results: a best-k list per warp (lists, k) or
// (gain, gap, threshold) per pivot.
struct GainOut {
    Cand* lists;
    int k;
    int64_t* gain;
    double* gap;
    double* thr;
};

// What the gain kernels read and write to settle only where it decides
// (settle_lazily; arg null: every pending entry was settled before them).
struct LazyArgs {
    const int32_t* arg;      // dist_kernel's: the window a pending entry (is_pending) is settled with
    const double* reach;     // the windows' reaches (settled_range)
    const uint8_t* restart;  // the windows' restart flags (steps_since_direct)
    uint32_t* listed;        // the pivots whose pending entries decide (settle_listed_kernel, gain_listed_kernel)
    unsigned* n_listed;
    long long* floor;        // the call's: the largest gain of the last entry of a full list (-1: none)
};

// A pending entry's mark in the distance matrix: dist_kernel stores its
// screened distance negated (a distance is never negative, −0 or NaN
// otherwise) and its window in arg (only there); settling overwrites the distance.
__device__ __forceinline__ bool is_pending(double d) { return signbit(d); }

// ---- small device helpers -----------------------------------------------------------

// The last index i in [0, n) with value(i) <= v (value(0) <= v, value ascending).
template <class Value>
__device__ __forceinline__ int last_at_most(int n, int64_t v, Value value) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (value(mid) <= v) lo = mid; else hi = mid - 1;
    }
    return lo;
}

// ---- window statistics, recurrence terms, start table --------------------------------

// Window statistics on the device, bit-identical with the host's
// (length_stats): screen_stats per window (with its own frame), and the restart scan.  One warp
// per (length, series), a lane per window; the spans of the restart scan go
// through `terms` (terms_kernel writes the terms there afterwards), and the
// warp scans them (warp_scan_restarts, shapelets_scan.cuh).
__global__ void stats_kernel(SeriesArgs series, WindowArgs win) {
    const int N = series.count;
    const int lane = threadIdx.x & 31;
    const int64_t w0 = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t nw = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t q = w0; q < (int64_t)N * win.n_lengths; q += nw) {
        const int64_t o = win.window_offset[q];
        if (o < 0) continue;
        const int li = (int)(q / N), j = (int)(q % N);
        const int L = win.lengths[li];
        const double *x = series.values + series.offset[j], *y = series.scaled + series.offset[j];
        const int32_t* gaps = series.gaps_before ? series.gaps_before + series.offset[j] + j : nullptr;
        const int64_t count = series.length[j] - L + 1;
        bool any_flat = false;
        for (int64_t u = lane; u < count; u += 32) {
            screen_stats(x + u, L, series.frame[j], win.mean + o + u, win.inv_sd + o + u, win.frames + o + u);
            mark_gap_window(gaps, u, L, win.inv_sd + o + u);
            any_flat |= pivot_is_flat(win.inv_sd[o + u]);
            double step, own;
            window_spans(y, u, L, &step, &own);
            win.terms[o + u] = make_double2(step, own);
        }
        if (__any_sync(kFull, any_flat) && lane == 0) win.has_flat[q] = 1;
        __syncwarp();
        const int32_t n = warp_scan_restarts(count, win.inv_sd + o, win.terms + o, win.restart + o, win.reach + o,
                                             win.restarts + o, lane);
        if (lane == 0) win.n_restarts[q] = n;
        __syncwarp();
    }
}

// The recurrence terms of every window i ≥ 1 of every series at every length of the group.
__global__ void terms_kernel(SeriesArgs series, WindowArgs win) {
    const int N = series.count;
    for (int64_t q = blockIdx.x; q < (int64_t)N * win.n_lengths; q += gridDim.x) {
        const int li = (int)(q / N), j = (int)(q % N);
        const int64_t o = win.window_offset[q];
        if (o < 0) continue;
        const int L = win.lengths[li];
        const double* y = series.scaled + series.offset[j];
        const int64_t U = series.length[j] - L + 1;
        for (int64_t u = 1 + threadIdx.x; u < U; u += blockDim.x) {
            double df, dg;
            local_terms(y, win.mean + o, L, u, &df, &dg);
            win.terms[o + u] = make_double2(df, dg);
        }
    }
}

// The direct diagonal starts of a length group (see the top of the file).
// Block x: kStartThreads consecutive windows of one length (the target windows
// of every series), block y: kStartSources sources.
__global__ void __launch_bounds__(kStartThreads)
start_table_kernel(SeriesArgs series, WindowArgs win, StartTableArgs table) {
    // centred windows 0 of the block's sources: staged[t] holds sources s0 .. s0 + kStartSources − 1
    __shared__ double2 staged[kStartStaged][kStartSources / 2];
    const int N = series.count, tid = threadIdx.x;
    const int64_t block = blockIdx.x;
    const int li = last_at_most(win.n_lengths, block, [&](int i) { return table.first_block[i]; });
    const int L = win.lengths[li];
    const int64_t windows = table.windows[li], e0 = table.length_offset[li];
    const int64_t e = e0 + (block - table.first_block[li]) * kStartThreads + tid;
    const bool valid = e < e0 + windows;
    const int64_t* start_l = table.window_start + (int64_t)li * N;
    const int64_t* offset_l = win.window_offset + (int64_t)li * N;
    int j = 0;  // the target of window e: the last j with start_l[j] <= e (empty series share the next start)
    if (valid) j = last_at_most(N, e, [&](int i) { return start_l[i]; });
    const int64_t u = valid ? e - start_l[j] : 0;
    const int s0 = blockIdx.y * kStartSources;
    const double* target = series.scaled + series.offset[j] + u;
    const double mean_target = valid ? win.mean[e] : 0.0;
    double acc[kStartSources];
#pragma unroll
    for (int r = 0; r < kStartSources; ++r) acc[r] = 0.0;
    double* flat_staged = reinterpret_cast<double*>(staged);
    for (int t0 = 0; t0 < L; t0 += kStartStaged) {
        const int tn = min(kStartStaged, L - t0);
        __syncthreads();
        for (int idx = tid; idx < kStartStaged * kStartSources; idx += kStartThreads) {
            const int r = idx / kStartStaged, t = idx % kStartStaged;
            const int s = s0 + r;
            double v = 0.0;
            if (t < tn && s < N) {
                const int64_t os = offset_l[s];
                if (os >= 0) v = centred(series.scaled + series.offset[s], t0 + t, win.mean[os]);
            }
            flat_staged[t * kStartSources + r] = v;
        }
        __syncthreads();
        if (valid)
            for (int t = 0; t < tn; ++t) {
                const double cb = centred(target, t0 + t, mean_target);
#pragma unroll
                for (int r2 = 0; r2 < kStartSources / 2; ++r2) {
                    const double2 a2 = staged[t][r2];
                    acc[2 * r2] = centred_comoment_term(acc[2 * r2], a2.x, cb);
                    acc[2 * r2 + 1] = centred_comoment_term(acc[2 * r2 + 1], a2.y, cb);
                }
            }
    }
    if (!valid) return;
    double* out = table.values + (int64_t)N * e0 + (e - e0);
#pragma unroll
    for (int r = 0; r < kStartSources; ++r) {
        const int s = s0 + r;
        if (s < N && offset_l[s] >= 0) out[(int64_t)s * windows] = acc[r];
    }
}

// ---- distances ---------------------------------------------------------------------

// One task of dist_kernel: rows [g0, g1) of source a against the windows of
// target b (both in their frames: the screen).
struct DistTask {
    const double *a, *mean_a, *inv_sd_a;
    const double2* terms_a;
    const uint8_t* restart_a;    // the source's restarting windows (rows computed directly)
    const double *reach_a, *reach_b;  // the windows' reaches (the settle rule's bound)
    const double *b, *mean_b, *inv_sd_b;
    const double2* terms_b;
    const int32_t* restarts_b;   // the target's restarting windows (columns computed directly), ascending
    int n_restarts_b;
    const double* start_column;  // C(p, 0): the start table's, or computed into dist first
    double* dist;                // the target's row of the distance matrix, by pivot
    int32_t* arg;                // where a pivot's distance is pending (is_pending): the window to settle it with
    int64_t g0, g1;
    int U, L;
    bool target_has_flat;
};

// The end of a tile: each row's screened distance, and where it needs
// settling, the window to settle it with (marked: is_pending).  Every load
// before the first store (a store through the task's pointers might alias
// them otherwise).
template <int RPL>
__device__ __forceinline__ void tile_results(const DistTask& k, int64_t pt, int64_t end, int lane,
                                             const double (&best)[RPL], const int (&at)[RPL]) {
    const double* __restrict__ inv_sd_a = k.inv_sd_a;
    const double *__restrict__ reach_a = k.reach_a, *__restrict__ reach_b = k.reach_b;
    const uint8_t* __restrict__ restart_a = k.restart_a;
    double screened[RPL];
    int32_t settle_at[RPL];
#pragma unroll
    for (int r = 0; r < RPL; ++r) {
        const int64_t p = min(pt + (int64_t)lane * RPL + r, end - 1);
        screened[r] = distance_from_best(best[r], inv_sd_a[p], k.L, k.target_has_flat);
        const int64_t steps = steps_since_direct(p, k.g0, restart_a);
        const double error = screen_error(steps, k.L, reach_a[p], reach_b[at[r]]);
        settle_at[r] = needs_settling(screened[r], error, k.L, k.target_has_flat) ? at[r] : -1;
    }
    double* __restrict__ dist = k.dist;
    int32_t* __restrict__ arg = k.arg;
#pragma unroll
    for (int r = 0; r < RPL; ++r) {
        const int64_t p = pt + (int64_t)lane * RPL + r;
        if (p >= end) continue;
        dist[p] = settle_at[r] >= 0 ? -screened[r] : screened[r];  // pending: is_pending
        if (settle_at[r] >= 0) arg[p] = settle_at[r];
    }
}

// The end of one column u of a tile: the rows' best C·(1/σ_u) and where, and
// the tile's last row for the next tile.
template <int RPL>
__device__ __forceinline__ void column_done(const double (&c)[RPL], double ib, int u, double (&best)[RPL],
                                            int (&at)[RPL], int lane, double* carry_out) {
#pragma unroll
    for (int r = 0; r < RPL; ++r) keep_larger(best[r], at[r], c[r], ib, u);
    if (lane == 31) carry_out[u] = c[RPL - 1];
}

// One tile of a task: rows pt + RPL·lane + r (r < RPL, below end) against every
// window of the target.  carry_in: the row before the tile (lane 0's left
// neighbour), or the tile's first row computed directly when First (a
// group's first row, or a restarting row: a template argument, so that the
// other tiles' loop holds no test of it); carry_out: this tile's last row.
// Between the target's restarting columns the recurrence runs unbroken; at
// them every row is computed directly.
template <int RPL, bool First>
__device__ __forceinline__ void dist_tile(const DistTask& k, int lane, int64_t pt, int64_t end,
                                          const double* carry_in, double* carry_out) {
    double c[RPL], df[RPL], dg[RPL], best[RPL];
    int at[RPL];
#pragma unroll
    for (int r = 0; r < RPL; ++r) {
        const int64_t p = pt + (int64_t)lane * RPL + r;
        df[r] = dg[r] = c[r] = 0;
        if (p < end) {
            if (p > k.g0) {
                const double2 t = k.terms_a[p];
                df[r] = t.x;
                dg[r] = t.y;
            }
            c[r] = k.start_column[p];  // column 0
        }
        best[r] = -INFINITY;
        at[r] = 0;
    }
    column_done<RPL>(c, k.inv_sd_b[0], 0, best, at, lane, carry_out);
    // The target's arrays in registers: the task lives in shared memory, where
    // the stores to carry_out might alias it, so k.terms_b and k.inv_sd_b
    // would be read again at every column (measured: 10-15% of the kernel).
    const double2* __restrict__ terms_b = k.terms_b;
    const double* __restrict__ inv_sd_b = k.inv_sd_b;
    int u = 1;
    for (int q = 0;; ++q) {
        const int segment_end = q < k.n_restarts_b ? k.restarts_b[q] : k.U;
#pragma unroll 4
        for (; u < segment_end; ++u) {
            const double up = __shfl_up_sync(kFull, c[RPL - 1], 1);
            const double2 tb = terms_b[u];
            const double ib = inv_sd_b[u];
#pragma unroll
            for (int r = RPL - 1; r >= 1; --r) c[r] = comoment_next(c[r - 1], df[r], dg[r], tb.x, tb.y);
            const double left = carry_in[u - 1];  // shared broadcast; lane 0's left neighbour
            double cn = comoment_next(lane == 0 ? left : up, df[0], dg[0], tb.x, tb.y);
            if (First && lane == 0) cn = carry_in[u];  // the tile's first row: direct
            c[0] = cn;
            column_done<RPL>(c, ib, u, best, at, lane, carry_out);
        }
        if (u >= k.U) break;
#pragma unroll
        for (int r = 0; r < RPL; ++r) {  // a restarting column: every row directly
            const int64_t p = pt + (int64_t)lane * RPL + r;
            c[r] = p < end ? local_comoment(k.a + p, k.mean_a[p], k.b + u, k.mean_b[u], k.L) : 0.0;
        }
        column_done<RPL>(c, k.inv_sd_b[u], u, best, at, lane, carry_out);
        ++u;
    }
    __syncwarp();
    tile_results<RPL>(k, pt, end, lane, best, at);
}

// A tile of RPL rows a lane, its first row direct or not.
template <int RPL>
__device__ __forceinline__ void dist_tile_of(const DistTask& k, int lane, int64_t pt, int64_t end, bool first,
                                             const double* carry_in, double* carry_out) {
    if (first) dist_tile<RPL, true>(k, lane, pt, end, carry_in, carry_out);
    else dist_tile<RPL, false>(k, lane, pt, end, carry_in, carry_out);
}

// The widest tile (up to MAXRPL rows a lane) that the rows left before end
// fill; returns the rows it took.
template <int MAXRPL>
__device__ __forceinline__ int64_t dist_tile_any(const DistTask& k, int lane, int64_t pt, int64_t end, bool first,
                                                 const double* carry_in, double* carry_out) {
    const int64_t rem = end - pt;
    if (MAXRPL >= 4 && rem > 96) {
        dist_tile_of<4>(k, lane, pt, end, first, carry_in, carry_out);
        return min(rem, (int64_t)128);
    }
    if (MAXRPL >= 2 && rem > 32) {
        dist_tile_of<2>(k, lane, pt, end, first, carry_in, carry_out);
        return min(rem, (int64_t)64);
    }
    dist_tile_of<1>(k, lane, pt, end, first, carry_in, carry_out);
    return min(rem, (int64_t)32);
}

// Where the next tile from pt must end: the first restarting row in
// (pt, pt + 128], or g1 (a tile takes at most 128 rows).
__device__ __forceinline__ int64_t tile_end(const DistTask& k, int64_t pt, int lane) {
    const int64_t lim = min(k.g1, pt + 129);
    for (int64_t base = pt + 1; base < lim; base += 32) {
        const int64_t p = base + lane;
        const unsigned m = __ballot_sync(kFull, p < lim && k.restart_a[p]);
        if (m) return base + __ffs(m) - 1;
    }
    return k.g1;
}

// The arrays of a task that is computed: rows [g0, g1) of the item's source
// against target j, distances into dist (by pivot).
__device__ __forceinline__ DistTask dist_task(const Item& it, int j, int64_t g0, int64_t g1, double* dist,
                                              int32_t* arg, const SeriesArgs& series, const WindowArgs& win,
                                              const StartTableArgs& table) {
    const int N = series.count;
    const int64_t oa = win.window_offset[(int64_t)it.length_index * N + it.source];
    const int64_t ob = win.window_offset[(int64_t)it.length_index * N + j];
    DistTask k;
    k.a = series.scaled + series.offset[it.source];
    k.b = series.scaled + series.offset[j];
    k.mean_a = win.mean + oa, k.inv_sd_a = win.inv_sd + oa, k.terms_a = win.terms + oa;
    k.mean_b = win.mean + ob, k.inv_sd_b = win.inv_sd + ob, k.terms_b = win.terms + ob;
    k.restart_a = win.restart + oa;
    k.reach_a = win.reach + oa, k.reach_b = win.reach + ob;
    k.restarts_b = win.restarts + ob;
    k.n_restarts_b = win.n_restarts[(int64_t)it.length_index * N + j];
    k.start_column = nullptr;
    if (table.values) {  // column 0 of (s, j): the entries (j, s, p)
        const int64_t windows = table.windows[it.length_index], e0 = table.length_offset[it.length_index];
        k.start_column = table.values + (int64_t)N * e0 + (int64_t)j * windows + (oa - e0);
    }
    k.dist = dist;
    k.arg = arg;
    k.g0 = g0;
    k.g1 = g1;
    k.U = (int)(series.length[j] - it.length + 1);
    k.L = it.length;
    k.target_has_flat = win.has_flat[(int64_t)it.length_index * N + j];
    return k;
}

// The group's first row (the diagonal starts) into carry: from the start table
// for row group 0, directly otherwise.
__device__ __forceinline__ void first_row(const DistTask& k, const Item& it, int j, const SeriesArgs& series,
                                          const WindowArgs& win, const StartTableArgs& table, int lane,
                                          double* carry) {
    if (table.values && k.g0 == 0) {  // the entries (s, j, u)
        const int N = series.count;
        const int64_t windows = table.windows[it.length_index], e0 = table.length_offset[it.length_index];
        const int64_t ob = win.window_offset[(int64_t)it.length_index * N + j];
        const double* row = table.values + (int64_t)N * e0 + (int64_t)it.source * windows + (ob - e0);
        for (int64_t u = lane; u < k.U; u += 32) carry[u] = row[u];
    } else {
        for (int64_t u = lane; u < k.U; u += 32)
            carry[u] = local_comoment(k.a + k.g0, k.mean_a[k.g0], k.b + u, k.mean_b[u], k.L);
    }
}

// A restarting row p into carry, directly.
__device__ __forceinline__ void restart_row(const DistTask& k, int64_t p, int lane, double* carry) {
    for (int64_t u = lane; u < k.U; u += 32) carry[u] = local_comoment(k.a + p, k.mean_a[p], k.b + u, k.mean_b[u], k.L);
}

template <int MAXRPL>
__global__ void __launch_bounds__(kDistWarps * 32, TSM_DIST_MIN_BLOCKS(MAXRPL))
dist_kernel(const Item* items, int n_items, int64_t n_tasks, SeriesArgs series, WindowArgs win,
            StartTableArgs table, DistArgs out) {
    extern __shared__ double smem[];
    __shared__ DistTask task[kDistWarps];  // in shared memory: its fields take no registers through the tiles
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t global_warp = (int64_t)blockIdx.x * kDistWarps + warp;
    double* carry_in = out.carry_in_shared ? smem + (size_t)warp * 2 * out.max_windows
                                           : out.carry + (size_t)global_warp * 2 * out.max_windows;
    double* carry_out = carry_in + out.max_windows;
    for (;;) {
        unsigned long long t = 0;
        if (lane == 0) t = atomicAdd(out.next_task, 1ULL);
        t = __shfl_sync(kFull, t, 0);
        if ((int64_t)t >= n_tasks) break;
        const Item it = items[last_at_most(n_items, (int64_t)t, [&](int i) { return items[i].task_base; })];
        const int64_t local = (int64_t)t - it.task_base;  // (row group, target)
        const int j = (int)(local % series.count);
        const int64_t g0 = (local / series.count) * it.rows_per_group;
        const int64_t g1 = min((int64_t)it.pivots, g0 + it.rows_per_group);
        double* dist = out.dist + (int64_t)j * out.pivot_stride + it.pivot_base;
        int32_t* arg = out.arg + (int64_t)j * out.pivot_stride + it.pivot_base;
        double fixed;
        if (fixed_distance(it.source, j, series.length[j], it.length, &fixed)) {
            for (int64_t p = g0 + lane; p < g1; p += 32) dist[p] = fixed;
            continue;
        }
        DistTask& k = task[warp];
        if (lane == 0) k = dist_task(it, j, g0, g1, dist, arg, series, win, table);
        __syncwarp();
        if (!k.start_column) {  // column 0 directly, into the distances' place until the tiles replace them
            for (int64_t p = g0 + lane; p < g1; p += 32) dist[p] = local_comoment(k.a + p, k.mean_a[p], k.b, k.mean_b[0], k.L);
            __syncwarp();
            if (lane == 0) k.start_column = dist;
            __syncwarp();
        }
        first_row(k, it, j, series, win, table, lane, carry_in);
        __syncwarp();
        for (int64_t pt = k.g0; pt < k.g1;) {
            const bool direct = row_is_direct(pt, k.g0, k.restart_a);  // a diagonal start: the row directly
            if (direct && pt != k.g0) {  // (the group's first row: first_row above)
                restart_row(k, pt, lane, carry_in);
                __syncwarp();
            }
            pt += dist_tile_any<MAXRPL>(k, lane, pt, tile_end(k, pt, lane), direct, carry_in, carry_out);
            double* tmp = carry_in; carry_in = carry_out; carry_out = tmp;
        }
        __syncwarp();  // every lane done with the buffers before the next task writes them
    }
}

// Entry (target j, pivot pv) of a launch's distance matrix settled where it
// is pending (is_pending): the direct distance (direct_distance) of the
// pivot's window and the target's window dist_kernel left in arg, with the
// frames stats_kernel stored.
__device__ __forceinline__ void settle_entry(const Item* items, int n_items, const SeriesArgs& series,
                                             const WindowArgs& win, const DistArgs& out, int j, int64_t pv) {
    if (!is_pending(out.dist[(int64_t)j * out.pivot_stride + pv])) return;
    const int64_t u = out.arg[(int64_t)j * out.pivot_stride + pv];
    const Item& it = items[last_at_most(n_items, pv, [&](int i) { return items[i].pivot_base; })];
    const int64_t p = pv - it.pivot_base;
    const int64_t oa = win.window_offset[(int64_t)it.length_index * series.count + it.source];
    const int64_t ob = win.window_offset[(int64_t)it.length_index * series.count + j];
    out.dist[(int64_t)j * out.pivot_stride + pv] =
        direct_distance(series.values + series.offset[it.source] + p, win.frames[oa + p],
                        series.values + series.offset[j] + u, win.frames[ob + u], it.length);
}

// Every pending entry of a launch settled (settle_lazily off, or results per
// pivot): a thread per entry.
__global__ void settle_kernel(const Item* items, int n_items, int64_t n_pivots, SeriesArgs series, WindowArgs win,
                              DistArgs out) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n_pivots * series.count; e += stride)
        settle_entry(items, n_items, series, win, out, (int)(e / n_pivots), e % n_pivots);
}

// The pending entries of the pivots gain_kernel listed (where settling
// decides): a thread per entry of a listed pivot.
__global__ void settle_listed_kernel(const Item* items, int n_items, SeriesArgs series, WindowArgs win, DistArgs out,
                                     const uint32_t* listed, const unsigned* n_listed) {
    const int64_t n = *n_listed, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n * series.count; e += stride)
        settle_entry(items, n_items, series, win, out, (int)(e / n), listed[e % n]);
}

// ---- gains ---------------------------------------------------------------------------

// Shared memory of one warp of gain_kernel (16-byte aligned): dist, sorted,
// prefix, and settling lazily lo and hi (N doubles), label, sorted_label (N
// ints), left_base (C ints).
__host__ __device__ inline size_t gain_warp_bytes(int N, int C, bool lazy) {
    const size_t doubles = (size_t)(lazy ? 5 : 3) * N;
    return ((doubles * sizeof(double) + (size_t)2 * N * sizeof(int32_t) + (size_t)C * sizeof(int32_t)) + 15) &
           ~size_t(15);
}

struct GainScratch {
    double* dist;           // the pivot's distances by series; then split_gain: the gain of every split
    double* sorted;         // the order line
    double* prefix;         // sums of the order line's first i + 1 distances; before: the ranks, then the order
    double *lo, *hi;        // settling lazily: each entry's range by series (a final one: its distance)
    int32_t* label;         // by series
    int32_t* sorted_label;  // along the order line
    int32_t* left_base;     // per class: series of the class before the current 32 positions
    __device__ long long* gain() const { return reinterpret_cast<long long*>(dist); }
    __device__ int32_t* rank() const { return reinterpret_cast<int32_t*>(prefix); }
    __device__ int32_t* order(int N) const { return rank() + N; }  // the series at each place of the line
};

__device__ __forceinline__ GainScratch gain_scratch(char* smem, int warp, int N, int C, bool lazy) {
    GainScratch w;
    w.dist = reinterpret_cast<double*>(smem + warp * gain_warp_bytes(N, C, lazy));
    w.sorted = w.dist + N;
    w.prefix = w.sorted + N;
    w.lo = lazy ? w.prefix + N : nullptr;
    w.hi = lazy ? w.lo + N : nullptr;
    w.label = reinterpret_cast<int32_t*>(w.prefix + (lazy ? 3 : 1) * N);
    w.sorted_label = w.label + N;
    w.left_base = w.sorted_label + N;
    return w;
}

// What load_pivot found (the same in every lane): whether an entry stays
// pending, and whether every range holds its entry's distance (range_holds).
struct Loaded {
    bool pending, holds;
};

// The distances of pivot pv to every series (combined with the partner's)
// and the labels.  Settling lazily (lz.arg), a pending entry (is_pending)
// keeps its screened distance and gets its range (settled_range); every
// entry's range (a final one: its distance) goes to w.lo, w.hi.
__device__ __forceinline__ Loaded load_pivot(const GainArgs& g, const LazyArgs& lz, const double* dist, int64_t stride,
                                             int64_t pv, const Item& it, int64_t p, const int64_t* window_offset,
                                             const GainScratch& w, int lane) {
    const int N = g.n_series, L = it.length;
    const int64_t* offsets = lz.arg ? window_offset + (int64_t)it.length_index * N : nullptr;
    bool pending = false, holds = true;
    for (int j = lane; j < N; j += 32) {
        double d = dist[(int64_t)j * stride + pv];
        bool kept = false;
        SettleRange r;
        if (lz.arg && is_pending(d)) {
            d = -d;
            const int64_t oa = offsets[it.source], u = lz.arg[(int64_t)j * stride + pv];
            const int64_t steps = steps_since_direct(p, p - p % rows_per_group(L), lz.restart + oa);
            const double reach_p = lz.reach[oa + p], reach_u = lz.reach[offsets[j] + u];
            r = settled_range(d, screen_error(steps, L, reach_p, reach_u), L, reach_p, reach_u);
            kept = true;
        }
        if (g.partner) d = combine_distances(d, g.partner[j], g.op);
        w.dist[j] = d;
        w.label[j] = g.labels[j];
        if (lz.arg) {
            r = kept ? combined_range(r, g.partner, j, g.op) : SettleRange{d, d};
            w.lo[j] = r.lo;
            w.hi[j] = r.hi;
            holds = holds && range_holds(r.lo, d, r.hi);
            pending = pending || kept;
        }
    }
    for (int c = lane; c < g.n_classes; c += 32) w.left_base[c] = 0;
    const Loaded loaded{__any_sync(kFull, pending) != 0, __all_sync(kFull, holds) != 0};
    __syncwarp();
    return loaded;
}

// The order line: rank = the number of smaller distances, plus (ties) the
// number of equal ones at smaller indexes.  The ranks of smaller distances sum
// to N(N-1)/2 exactly when there are no ties; only then is the second count
// skipped.  With_order: the series at each place too (w.order).
__device__ __forceinline__ void sort_order_line(int N, const GainScratch& w, bool with_order, int lane) {
    int32_t* rank = w.rank();
    int rank_sum = 0;
    for (int j = lane; j < N; j += 32) {
        const double dj = w.dist[j];
        int r = 0;
#pragma unroll 8
        for (int i = 0; i < N; ++i) r += w.dist[i] < dj;
        rank[j] = r;
        rank_sum += r;
    }
    for (int off = 16; off > 0; off >>= 1) rank_sum += __shfl_xor_sync(kFull, rank_sum, off);
    if (rank_sum != N * (N - 1) / 2)
        for (int j = lane; j < N; j += 32) {
            const double dj = w.dist[j];
            int e = 0;
            for (int i = 0; i < j; ++i) e += w.dist[i] == dj;
            rank[j] += e;
        }
    for (int j = lane; j < N; j += 32) {
        const int r = rank[j];
        w.sorted[r] = w.dist[j];
        w.sorted_label[r] = w.label[j];
        if (with_order) w.order(N)[r] = j;
    }
    __syncwarp();
}

// The gain of every split between distinct neighbours (-1 elsewhere) into
// w.gain(); returns the largest (the same in every lane).
__device__ __forceinline__ long long split_gains(const GainArgs& g, const GainScratch& w, int lane) {
    const int N = g.n_series;
    const unsigned at_or_below = (lane == 31) ? kFull : ((1u << (lane + 1)) - 1u);
    long long best = -1;
    for (int k0 = 0; k0 < N; k0 += 32) {
        const int i = k0 + lane;
        const int yi = i < N ? w.sorted_label[i] : -1;
        int64_t left_terms = 0, right_terms = 0;
        for (int c = 0; c < g.n_classes; ++c) {
            const unsigned m = __ballot_sync(kFull, yi == c);
            const int left = w.left_base[c] + __popc(m & at_or_below);
            add_class_terms(g.entropy, left, g.class_total[c], left_terms, right_terms);
        }
        __syncwarp();
        for (int c = 0; c < g.n_classes; ++c) {
            const unsigned m = __ballot_sync(kFull, yi == c);
            if (lane == 0) w.left_base[c] += __popc(m);
        }
        __syncwarp();
        if (i + 1 < N) {
            long long gain = -1;
            if (w.sorted[i] < w.sorted[i + 1])
                gain = split_gain(g.base, g.entropy, i + 1, N - (i + 1), left_terms, right_terms);
            w.gain()[i] = gain;
            if (gain > best) best = gain;
        }
    }
    for (int off = 16; off > 0; off >>= 1) best = max(best, __shfl_xor_sync(kFull, best, off));
    __syncwarp();
    return best;
}

// Among the splits of gain `gain`, the best (largest gap, then smallest
// position): prefix sums in the CPU's order, then a gap per split (the same in every lane).
__device__ __forceinline__ SplitChoice best_split_of_gain(int N, long long gain, const GainScratch& w, int lane) {
    if (lane == 0) {
        double s = 0;
        for (int i = 0; i < N; ++i) { s = hd::add(s, w.sorted[i]); w.prefix[i] = s; }
    }
    __syncwarp();
    const double total = w.prefix[N - 1];
    SplitChoice choice;
    for (int i = lane; i + 1 < N; i += 32) {
        if (w.gain()[i] != gain) continue;
        choice.offer(gain, split_gap(w.prefix[i], total, i + 1, N - (i + 1)), i);
    }
    for (int off = 16; off > 0; off >>= 1) {
        const double other_gap = __shfl_xor_sync(kFull, choice.gap, off);
        const int64_t other_i = __shfl_xor_sync(kFull, choice.i, off);
        if (other_i >= 0) choice.offer(gain, other_gap, other_i);
    }
    return choice;
}

// Inserts c into a sorted best-k list (best first; g < 0: empty slots) if it belongs there.
__device__ __forceinline__ void keep_in_list(Cand* list, int k, const Cand& c) {
    if (!(list[k - 1].g < 0 || cand_better(c, list[k - 1]))) return;
    int pos = k - 1;
    while (pos > 0 && (list[pos - 1].g < 0 || cand_better(c, list[pos - 1]))) {
        list[pos] = list[pos - 1];
        --pos;
    }
    list[pos] = c;
}

// Whether every pending entry keeps its place on the order line (range_apart
// for each): along the line (neighbours_apart) where every range holds its
// entry's distance (holds), else pair by pair.
__device__ __forceinline__ bool ranges_apart(int N, const GainScratch& w, bool holds, int lane) {
    bool apart = true;
    if (holds) {
        const int32_t* order = w.order(N);
        for (int t = lane; t + 1 < N; t += 32) {
            const int a = order[t], b = order[t + 1];
            apart = apart && neighbours_apart(w.lo[a], w.hi[a], w.lo[b], w.hi[b]);
        }
    } else {
        for (int j = lane; j < N; j += 32)
            if (w.lo[j] < w.hi[j]) apart = apart && range_apart(w.lo, w.hi, N, j);
    }
    return __all_sync(kFull, apart);
}

// The k-th best gain known to the warp: its list's last entry's (worst, -1
// while not full) or the call's floor, read once and the same in every lane.
__device__ __forceinline__ long long known_floor(long long worst, const long long* floor, int lane) {
    long long f = -1;
    if (floor && lane == 0) f = *reinterpret_cast<const volatile long long*>(floor);
    f = __shfl_sync(kFull, f, 0);
    return f > worst ? f : worst;
}

// The best split of a pivot whose order line split_gains scored (best: its
// gain), kept: into the warp's best-k list (worst: the gain of its last entry,
// raised with the call's floor) or as the pivot's result; not where no split
// is valid or (lists) its gain is below the known floor.
__device__ __forceinline__ void keep_pivot(const GainScratch& w, int N, long long best, const Item& it, int64_t p,
                                           int64_t pv, const GainOut& out, Cand* list, long long& worst,
                                           long long* floor, int lane) {
    if (best < 0 || (list && best < known_floor(worst, floor, lane))) {
        if (lane == 0 && !list) out.gain[pv] = -1;
        return;
    }
    const SplitChoice choice = best_split_of_gain(N, best, w, lane);
    if (lane == 0) {
        const double thr = midpoint(w.sorted[choice.i], w.sorted[choice.i + 1]);
        if (!list) {
            out.gain[pv] = best;
            out.gap[pv] = choice.gap;
            out.thr[pv] = thr;
        } else {
            Cand c;
            c.g = best;
            c.gap = choice.gap;
            c.thr = thr;
            c.row = it.row;
            c.s = it.source;
            c.p = (int32_t)p;
            c.L = it.length;
            keep_in_list(list, out.k, c);
            if (list[out.k - 1].g > worst) {
                worst = list[out.k - 1].g;
                if (floor) atomicMax(floor, worst);
            }
        }
    }
    if (list) worst = __shfl_sync(kFull, worst, 0);
    __syncwarp();
}

// This warp's own best-k list, kept across launches (null: results per pivot).
__device__ __forceinline__ Cand* warp_list(const GainOut& out, int64_t list_index) {
    return out.lists ? out.lists + list_index * out.k : nullptr;
}

// One warp per pivot, a contiguous range of pivots per warp (the item of the
// next pivot is this one or a later one).  Shared memory: gain_scratch.  With
// lz.arg (settle_lazily), a pivot with pending entries is listed where settling
// decides (settling_decides) and gain_listed_kernel scores it once they are
// settled; it is dropped where not.
__global__ void __launch_bounds__(256, TSM_GAIN_MIN_BLOCKS)
gain_kernel(const Item* items, int n_items, int64_t n_pivots, const double* dist, int64_t stride, const double* inv_sd,
            const int64_t* window_offset, GainArgs g, LazyArgs lz, GainOut out) {
    extern __shared__ double smem[];
    const int N = g.n_series;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const GainScratch w = gain_scratch(reinterpret_cast<char*>(smem), warp, N, g.n_classes, lz.arg != nullptr);
    const int64_t list_index = (int64_t)blockIdx.x * warps + warp;
    Cand* list = warp_list(out, list_index);
    long long worst = list ? list[out.k - 1].g : -1;
    const int64_t n_warps = (int64_t)gridDim.x * warps, per = (n_pivots + n_warps - 1) / n_warps;
    const int64_t pv0 = list_index * per, pv1 = min(n_pivots, pv0 + per);
    int idx = pv0 < pv1 ? last_at_most(n_items, pv0, [&](int i) { return items[i].pivot_base; }) : 0;
    for (int64_t pv = pv0; pv < pv1; ++pv) {
        while (idx + 1 < n_items && items[idx + 1].pivot_base <= pv) ++idx;
        const Item& it = items[idx];  // fields read where used
        const int64_t p = pv - it.pivot_base;
        long long best = -1;
        if (pivot_is_candidate(inv_sd[window_offset[(int64_t)it.length_index * N + it.source] + p])) {
            const Loaded loaded = load_pivot(g, lz, dist, stride, pv, it, p, window_offset, w, lane);
            sort_order_line(N, w, loaded.pending && loaded.holds, lane);
            const bool apart = !loaded.pending || ranges_apart(N, w, loaded.holds, lane);
            best = split_gains(g, w, lane);
            if (loaded.pending) {
                const long long floor = known_floor(worst, lz.floor, lane);
                if (lane == 0 && settling_decides(apart, best, floor))
                    lz.listed[atomicAdd(lz.n_listed, 1u)] = (uint32_t)pv;
                continue;
            }
        }
        keep_pivot(w, N, best, it, p, pv, out, list, worst, lz.floor, lane);
    }
}

// The pivots gain_kernel listed, scored once their pending entries are
// settled (settle_listed_kernel): a warp per pivot, in turns.  Shared memory:
// gain_kernel's (settling lazily).
__global__ void gain_listed_kernel(const Item* items, int n_items, const double* dist, int64_t stride, GainArgs g,
                                   LazyArgs lz, GainOut out) {
    extern __shared__ double smem[];
    const int N = g.n_series;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const GainScratch w = gain_scratch(reinterpret_cast<char*>(smem), warp, N, g.n_classes, true);
    LazyArgs settled = lz;  // every entry of a listed pivot is final now
    settled.arg = nullptr;
    const int64_t list_index = (int64_t)blockIdx.x * warps + warp, n_warps = (int64_t)gridDim.x * warps;
    Cand* list = warp_list(out, list_index);
    long long worst = list[out.k - 1].g;
    const int64_t n = *lz.n_listed;
    for (int64_t q = list_index; q < n; q += n_warps) {
        const int64_t pv = lz.listed[q];
        const Item& it = items[last_at_most(n_items, pv, [&](int i) { return items[i].pivot_base; })];
        load_pivot(g, settled, dist, stride, pv, it, pv - it.pivot_base, nullptr, w, lane);
        sort_order_line(N, w, false, lane);
        const long long best = split_gains(g, w, lane);
        keep_pivot(w, N, best, it, pv - it.pivot_base, pv, out, list, worst, lz.floor, lane);
    }
}

// The k best of all warps' lists (n entries, g < 0: empty) into best[0..k), best first
// (g = -1 past the last candidate).  One block; marks the taken entries in `lists`.
__global__ void __launch_bounds__(1024) merge_kernel(Cand* lists, int64_t n, int k, Cand* best) {
    __shared__ int64_t bidx[1024];
    const int tid = threadIdx.x;
    for (int r = 0; r < k; ++r) {
        int64_t b = -1;
        for (int64_t q = tid; q < n; q += blockDim.x)
            if (lists[q].g >= 0 && (b < 0 || cand_better(lists[q], lists[b]))) b = q;
        bidx[tid] = b;
        __syncthreads();
        for (int w = blockDim.x / 2; w > 0; w >>= 1) {
            if (tid < w) {
                const int64_t o = bidx[tid + w], m = bidx[tid];
                if (o >= 0 && (m < 0 || cand_better(lists[o], lists[m]))) bidx[tid] = o;
            }
            __syncthreads();
        }
        if (tid == 0) {
            const int64_t w = bidx[0];
            if (w >= 0) {
                best[r] = lists[w];
                lists[w].g = -2;
            } else {
                best[r].g = -1;
            }
        }
        __syncthreads();
    }
}

// ---- host: the plan -------------------------------------------------------------------

// Device properties the plan depends on.
struct DeviceLimits {
    int sms = 1;
    int smem_optin = 48 * 1024;
};

DeviceLimits device_limits() {
    DeviceLimits lim;
    int dev = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&lim.sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
    check(cudaDeviceGetAttribute(&lim.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
          "cudaDeviceGetAttribute");
    return lim;
}

// The GPU cannot take this input: a warp of gain_kernel holds the order line
// of every series in shared memory.  TS_GPU_LIMIT (54000) makes auto mode run
// the call on the CPU.
[[noreturn]] void gpu_cannot_take_series(int n_series) {
    throw Error(TS_GPU_LIMIT, kProgramLimitExceeded,
                format("too many training series (%d) for the shared memory of the GPU shapelet engine", n_series),
                "SET tsmine.backend = auto or cpu for this query.");
}

// The GPU cannot take a series the screen does not take (shapelets_detail.h:
// values spanning more than about 2^470); auto mode runs the call on the CPU.
[[noreturn]] void gpu_cannot_screen(int64_t row) {
    throw Error(TS_GPU_LIMIT, kProgramLimitExceeded,
                format("the values of training row %lld span too many orders of magnitude for the GPU shapelet engine",
                       (long long)row + 1),
                "SET tsmine.backend = auto or cpu for this query: the CPU computes such series directly.");
}

// Where each series goes in the concatenation.
struct SeriesLayout {
    std::vector<int64_t> offset, length;
    int64_t total = 0, longest = 0;
    bool gaps = false;  // some series has gaps: their prefix counts go up too
};

SeriesLayout series_layout(const Subset& d) {
    SeriesLayout sl;
    for (size_t j = 0; j < d.x.size(); ++j) {
        sl.offset.push_back(sl.total);
        sl.length.push_back(d.n[j]);
        sl.total += d.n[j];
        sl.longest = std::max(sl.longest, d.n[j]);
        sl.gaps = sl.gaps || d.scaled[j]->gaps() != nullptr;
    }
    return sl;
}

size_t count_items(const Subset& d, const std::vector<int>& lengths) {
    size_t n = 0;
    for (int L : lengths)
        for (int64_t len : d.n) n += len >= L;
    return n;
}

// The first part of the one allocation: what the host prepares, written in
// place into a staging buffer of the same layout and uploaded in one copy
// (offsets into both).  Per length (index into `lengths`, N entries per
// length for the first two): see WindowArgs and StartTableArgs.
struct Upload {
    size_t values, scaled, gaps_before, frame, offset, length, labels, entropy, class_total, items, partner;
    size_t window_offset, window_start, lengths, windows, length_offset, first_block;
    size_t end;
    bool gaps;  // gaps_before holds the series' prefix counts of gaps (else nothing)
};

Upload reserve_upload(tsm::gpu::Arena& ar, const Subset& d, const SeriesLayout& sl, size_t entropy_size,
                      size_t n_items, size_t n_lengths, bool partner) {
    const size_t N = d.x.size();
    Upload up;
    up.values = ar.take<double>(sl.total);
    up.scaled = ar.take<double>(sl.total);
    up.gaps_before = ar.take<int32_t>(sl.gaps ? sl.total + N : 0);
    up.gaps = sl.gaps;
    up.frame = ar.take<int32_t>(N);
    up.offset = ar.take<int64_t>(N);
    up.length = ar.take<int64_t>(N);
    up.labels = ar.take<int32_t>(N);
    up.entropy = ar.take<int64_t>(entropy_size);
    up.class_total = ar.take<int64_t>(d.C);
    up.items = ar.take<Item>(n_items);
    up.partner = ar.take<double>(partner ? N : 0);
    up.window_offset = ar.take<int64_t>(n_lengths * N);
    up.window_start = ar.take<int64_t>(n_lengths * N);
    up.lengths = ar.take<int32_t>(n_lengths);
    up.windows = ar.take<int64_t>(n_lengths);
    up.length_offset = ar.take<int64_t>(n_lengths);
    up.first_block = ar.take<int64_t>(n_lengths);
    up.end = ar.off;
    return up;
}

// The planning tables in the staging buffer (filled by stage_inputs and make_plan).
struct Staged {
    Item* items;
    int64_t *window_offset, *window_start;
    int32_t* lengths;
    int64_t *windows, *length_offset, *first_block;
};

// Series j's prefix counts of gaps at entry `at` (offset[j] + j) of the
// concatenation: its own, or zeros for a series without gaps.
void put_gaps_before(unsigned char* dst, int64_t at, const Scaled& sc, int64_t n) {
    int32_t* out = reinterpret_cast<int32_t*>(dst) + at;
    if (sc.gaps()) std::memcpy(out, sc.gaps(), (size_t)(n + 1) * sizeof(int32_t));
    else std::memset(out, 0, (size_t)(n + 1) * sizeof(int32_t));
}

// Writes the series, labels, gain tables, partner, gap counts and the lengths
// with their window counts into the staging buffer.
Staged stage_inputs(unsigned char* stage, const Upload& up, const Subset& d, const SeriesLayout& sl,
                    const GainTables& gt, const Partner& partner, const std::vector<int>& lengths) {
    const size_t N = d.x.size();
    auto put = [&](size_t o, const void* src, size_t bytes) { if (bytes) std::memcpy(stage + o, src, bytes); };
    std::vector<int32_t> frames(N);
    for (size_t j = 0; j < N; ++j) {
        put(up.values + (size_t)sl.offset[j] * sizeof(double), d.x[j], (size_t)d.n[j] * sizeof(double));
        put(up.scaled + (size_t)sl.offset[j] * sizeof(double), d.scaled[j]->y.data(), (size_t)d.n[j] * sizeof(double));
        frames[j] = d.scaled[j]->frame;
        if (sl.gaps) put_gaps_before(stage + up.gaps_before, sl.offset[j] + (int64_t)j, *d.scaled[j], d.n[j]);
    }
    put(up.frame, frames.data(), N * sizeof(int32_t));
    put(up.offset, sl.offset.data(), N * sizeof(int64_t));
    put(up.length, sl.length.data(), N * sizeof(int64_t));
    put(up.labels, d.y.data(), N * sizeof(int32_t));
    put(up.entropy, gt.entropy.data(), gt.entropy.size() * sizeof(int64_t));
    put(up.class_total, gt.class_total.data(), gt.class_total.size() * sizeof(int64_t));
    if (partner.d) put(up.partner, partner.d, N * sizeof(double));
    Staged st;
    st.items = reinterpret_cast<Item*>(stage + up.items);
    st.window_offset = reinterpret_cast<int64_t*>(stage + up.window_offset);
    st.window_start = reinterpret_cast<int64_t*>(stage + up.window_start);
    st.lengths = reinterpret_cast<int32_t*>(stage + up.lengths);
    st.windows = reinterpret_cast<int64_t*>(stage + up.windows);
    st.length_offset = reinterpret_cast<int64_t*>(stage + up.length_offset);
    st.first_block = reinterpret_cast<int64_t*>(stage + up.first_block);
    for (size_t l = 0; l < lengths.size(); ++l) {
        st.lengths[l] = lengths[l];
        int64_t e = 0;
        for (size_t j = 0; j < N; ++j) e += std::max<int64_t>(0, d.n[j] - lengths[l] + 1);
        st.windows[l] = e;
    }
    return st;
}

// Lengths [l0, l1) whose windows share one set of window arrays (and one start
// table), launches [c0, c1); entries: their windows, blocks: start_table_kernel's.
struct Group {
    size_t l0, l1;
    int64_t entries, blocks;
    bool use_table;
    size_t c0, c1;
};
// Items [i0, i1) launched together: their pivots (rows of the distance matrix),
// tasks and estimated cost (cell updates).
struct Launch {
    size_t i0, i1;
    int64_t pivots, tasks;
    double cost;
};
struct Plan {
    std::vector<Group> groups;
    std::vector<Launch> launches;
    int64_t max_entries = 0, max_pivots = 0, max_table = 0;
};

// The group of lengths from l0 on (at most kStatsEntries windows, and a table
// within table_cap when the first length's fits): the window offsets of every
// series at each of its lengths.
Group plan_group(const Subset& d, const std::vector<int>& lengths, size_t l0, int64_t table_cap, const Staged& st) {
    const int N = (int)d.x.size();
    Group g{l0, l0, 0, 0, false, 0, 0};
    g.use_table = table_cap > 0 && (int64_t)N * st.windows[l0] <= table_cap;
    for (size_t l = l0; l < lengths.size(); ++l) {
        const int64_t e = st.windows[l];
        if (l > l0 && (g.entries + e > kStatsEntries || (g.use_table && (int64_t)N * (g.entries + e) > table_cap)))
            break;
        st.length_offset[l] = g.entries;
        st.first_block[l] = g.blocks;
        int64_t o = g.entries;
        for (int j = 0; j < N; ++j) {
            st.window_start[l * N + j] = o;
            st.window_offset[l * N + j] = d.n[j] >= lengths[l] ? o : -1;
            if (d.n[j] >= lengths[l]) o += d.n[j] - lengths[l] + 1;
        }
        g.entries += e;
        g.blocks += (e + kStartThreads - 1) / kStartThreads;
        g.l1 = l + 1;
    }
    return g;
}

// The items (source, length) of a group, from items[n] on; returns the new count.
size_t write_items(const Subset& d, const std::vector<int>& lengths, const Group& g, Item* items, size_t n) {
    for (size_t li = 0; li < g.l1 - g.l0; ++li) {
        const int L = lengths[g.l0 + li];
        const int64_t group_rows = rows_per_group(L);
        for (int s = 0; s < (int)d.x.size(); ++s) {
            if (d.n[s] < L) continue;
            Item& it = items[n++];
            it = Item{};
            it.source = s;
            it.length_index = (int32_t)li;
            it.length = L;
            it.pivots = (int32_t)(d.n[s] - L + 1);
            it.rows_per_group = (int32_t)group_rows;
            it.row_groups = (int32_t)((it.pivots + group_rows - 1) / group_rows);
            it.row = d.row[s];
        }
    }
    return n;
}

// Cuts items [i0, i1) into launches of at most pivot_cap pivots and about
// kLaunchCost cell updates (cells: pivots × the values of all series).
void plan_launches(Item* items, size_t i0, size_t i1, int N, int64_t pivot_cap, int64_t total_values,
                   std::vector<Launch>& launches) {
    double c = 0;
    Launch ch{i0, i0, 0, 0, 0};
    for (size_t i = i0; i < i1; ++i) {
        Item& it = items[i];
        const double cost = (double)it.pivots * (double)total_values;
        if (ch.i1 > ch.i0 && (ch.pivots + it.pivots > pivot_cap || c + cost > kLaunchCost)) {
            ch.cost = c;
            launches.push_back(ch);
            ch = Launch{i, i, 0, 0, 0};
            c = 0;
        }
        it.pivot_base = ch.pivots;
        it.task_base = ch.tasks;
        ch.pivots += it.pivots;
        ch.tasks += (int64_t)it.row_groups * N;
        c += cost;
        ch.i1 = i + 1;
    }
    ch.cost = c;
    if (ch.i1 > ch.i0) launches.push_back(ch);
}

// The plan of the whole call: length groups, the launches within each; every
// buffer is sized once from it.
Plan make_plan(const Subset& d, const std::vector<int>& lengths, const SeriesLayout& sl, int64_t table_cap,
               const Staged& st) {
    const int N = (int)d.x.size();
    const int64_t pivot_cap = std::max<int64_t>(sl.longest, (int64_t)(kMaxBatchBytes / ((size_t)N * sizeof(double))));
    Plan plan;
    size_t n_items = 0;
    for (size_t l0 = 0; l0 < lengths.size();) {
        Group g = plan_group(d, lengths, l0, table_cap, st);
        const size_t i0 = n_items;
        n_items = write_items(d, lengths, g, st.items, n_items);
        g.c0 = plan.launches.size();
        plan_launches(st.items, i0, n_items, N, pivot_cap, sl.total, plan.launches);
        g.c1 = plan.launches.size();
        plan.groups.push_back(g);
        plan.max_entries = std::max(plan.max_entries, g.entries);
        if (g.use_table) plan.max_table = std::max(plan.max_table, (int64_t)N * g.entries);
        l0 = g.l1;
    }
    for (const Launch& ch : plan.launches) plan.max_pivots = std::max(plan.max_pivots, ch.pivots);
    return plan;
}

// ---- host: kernels, buffers, launches ----------------------------------------------------

using DistKernel = void (*)(const Item*, int, int64_t, SeriesArgs, WindowArgs, StartTableArgs, DistArgs);

struct KernelConfig {
    DistKernel dist;
    size_t dist_smem;
    int carry_in_shared;
    int dist_blocks;
    int64_t max_windows;  // windows of the longest series at the shortest length
    size_t gain_smem;
    int gain_warps;       // per block
    int gain_blocks_max;
    bool device_lists;    // k <= kDeviceTopK: best-k lists on the device
    bool lazy;            // device lists and settle_lazily: settle only where it decides
    int64_t n_lists;
};

// dist_kernel (rows per lane: up to 1, 2 or 4; carries in shared memory when
// they fit) and gain_kernel (up to 8 warps a block, half the shared memory).
KernelConfig configure_kernels(const DeviceLimits& lim, const Tuning& tune, int N, int C, int64_t max_windows, int k) {
    KernelConfig kc;
    kc.dist = tune.rows_per_lane >= 4 ? dist_kernel<4> : tune.rows_per_lane >= 2 ? dist_kernel<2> : dist_kernel<1>;
    kc.max_windows = max_windows;
    kc.dist_smem = (size_t)kDistWarps * 2 * max_windows * sizeof(double);
    kc.carry_in_shared = kc.dist_smem <= (size_t)std::min(lim.smem_optin, 100 * 1024);
    if (!kc.carry_in_shared) kc.dist_smem = 0;
    check(cudaFuncSetAttribute(kc.dist, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kc.dist_smem),
          "cudaFuncSetAttribute");
    int blocks_per_sm = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kc.dist, kDistWarps * 32, kc.dist_smem),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    kc.dist_blocks = std::max(1, blocks_per_sm) * lim.sms;
    kc.device_lists = k <= kDeviceTopK;
    // settling lazily where one warp's ranges fit
    kc.lazy = kc.device_lists && settle_lazily() && gain_warp_bytes(N, C, true) <= (size_t)lim.smem_optin;
    const size_t per_warp = gain_warp_bytes(N, C, kc.lazy);
    kc.gain_warps = (int)std::max<size_t>(1, std::min<size_t>(8, (size_t)lim.smem_optin / 2 / per_warp));
    kc.gain_smem = per_warp * kc.gain_warps;
    check(cudaFuncSetAttribute(gain_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kc.gain_smem),
          "cudaFuncSetAttribute");
    check(cudaFuncSetAttribute(gain_listed_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kc.gain_smem),
          "cudaFuncSetAttribute");
    blocks_per_sm = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, gain_kernel, kc.gain_warps * 32, kc.gain_smem),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    kc.gain_blocks_max = std::max(1, blocks_per_sm) * lim.sms;
    kc.n_lists = (int64_t)kc.gain_blocks_max * kc.gain_warps;
    return kc;
}

// The device side of the call: typed pointers into the one allocation.
struct Device {
    unsigned char* base;
    size_t zero_begin, zero_end;  // zeroed before the first launch
    SeriesArgs series;
    GainArgs gain;
    const Item* items;
    const int64_t *window_offset, *window_start, *windows, *length_offset, *first_block;
    const int32_t* lengths;
    uint8_t* has_flat;
    uint8_t* restart;
    int32_t *restarts, *n_restarts;
    unsigned long long* next_task;  // per launch
    double *mean, *inv_sd, *reach, *table, *dist, *carry;
    StoredFrame* frames;
    int32_t* arg;
    double2* terms;
    Cand *lists, *best;                                          // device_lists
    uint32_t* listed;                                            // lazy: LazyArgs
    unsigned* n_listed;
    long long* floor;
    int64_t* pivot_gain;                                         // !device_lists
    double *pivot_gap, *pivot_thr;
};

// After the upload: what is zeroed, then the rest; one allocation.
Device allocate_device(tsm::gpu::Arena& ar, const Upload& up, const Plan& plan, const KernelConfig& kc,
                       const Subset& d, size_t n_lengths, int k, const GainTables& gt, const Partner& partner) {
    const size_t N = d.x.size();
    const bool lists = kc.device_lists;
    const size_t has_flat = ar.take<uint8_t>(n_lengths * N);
    const size_t next_task = ar.take<unsigned long long>(plan.launches.size());
    const size_t zero_end = ar.off;
    const size_t mean = ar.take<double>(plan.max_entries), inv_sd = ar.take<double>(plan.max_entries);
    const size_t frames = ar.take<StoredFrame>(plan.max_entries);
    const size_t restart = ar.take<uint8_t>(plan.max_entries), restarts = ar.take<int32_t>(plan.max_entries);
    const size_t reach = ar.take<double>(plan.max_entries);
    const size_t n_restarts = ar.take<int32_t>(n_lengths * N);
    const size_t terms = ar.take<double2>(plan.max_entries), table = ar.take<double>(plan.max_table);
    const size_t dist = ar.take<double>((size_t)plan.max_pivots * N);
    const size_t arg = ar.take<int32_t>((size_t)plan.max_pivots * N);
    const size_t carry_doubles = (size_t)kc.dist_blocks * kDistWarps * 2 * kc.max_windows;
    const size_t carry = ar.take<double>(kc.carry_in_shared ? 0 : carry_doubles);
    const size_t list = ar.take<Cand>(lists ? (size_t)kc.n_lists * k : 0), best = ar.take<Cand>(lists ? k : 0);
    const size_t listed = ar.take<uint32_t>(kc.lazy ? plan.max_pivots : 0);
    const size_t n_listed = ar.take<unsigned>(1), floor = ar.take<long long>(1);
    const size_t per_pivot = lists ? 0 : plan.max_pivots;
    const size_t gain = ar.take<int64_t>(per_pivot), gap = ar.take<double>(per_pivot), thr = ar.take<double>(per_pivot);
    ar.allocate("shapelet device memory");
    Device dev;
    dev.base = ar.at<unsigned char>(0);
    dev.zero_begin = has_flat;
    dev.zero_end = zero_end;
    dev.series = SeriesArgs{ar.at<const double>(up.values), ar.at<const double>(up.scaled),
                            ar.at<const int64_t>(up.offset), ar.at<const int64_t>(up.length),
                            ar.at<const int32_t>(up.frame),
                            up.gaps ? ar.at<const int32_t>(up.gaps_before) : nullptr, (int)N};
    dev.gain = GainArgs{(int)N, d.C, ar.at<const int32_t>(up.labels), ar.at<const int64_t>(up.entropy),
                        ar.at<const int64_t>(up.class_total), gt.base,
                        partner.d ? ar.at<const double>(up.partner) : nullptr, partner.op};
    dev.items = ar.at<const Item>(up.items);
    dev.window_offset = ar.at<const int64_t>(up.window_offset);
    dev.window_start = ar.at<const int64_t>(up.window_start);
    dev.lengths = ar.at<const int32_t>(up.lengths);
    dev.windows = ar.at<const int64_t>(up.windows);
    dev.length_offset = ar.at<const int64_t>(up.length_offset);
    dev.first_block = ar.at<const int64_t>(up.first_block);
    dev.has_flat = ar.at<uint8_t>(has_flat);
    dev.next_task = ar.at<unsigned long long>(next_task);
    dev.restart = ar.at<uint8_t>(restart);
    dev.reach = ar.at<double>(reach);
    dev.restarts = ar.at<int32_t>(restarts);
    dev.n_restarts = ar.at<int32_t>(n_restarts);
    dev.mean = ar.at<double>(mean);
    dev.inv_sd = ar.at<double>(inv_sd);
    dev.frames = ar.at<StoredFrame>(frames);
    dev.terms = ar.at<double2>(terms);
    dev.table = ar.at<double>(table);
    dev.dist = ar.at<double>(dist);
    dev.arg = ar.at<int32_t>(arg);
    dev.carry = kc.carry_in_shared ? nullptr : ar.at<double>(carry);
    dev.lists = lists ? ar.at<Cand>(list) : nullptr;
    dev.best = lists ? ar.at<Cand>(best) : nullptr;
    dev.listed = ar.at<uint32_t>(listed);
    dev.n_listed = ar.at<unsigned>(n_listed);
    dev.floor = ar.at<long long>(floor);
    dev.pivot_gain = lists ? nullptr : ar.at<int64_t>(gain);
    dev.pivot_gap = lists ? nullptr : ar.at<double>(gap);
    dev.pivot_thr = lists ? nullptr : ar.at<double>(thr);
    return dev;
}

WindowArgs window_args(const Device& dev, const Group& g) {
    const int N = dev.series.count;
    return WindowArgs{dev.window_offset + g.l0 * N, dev.lengths + g.l0, (int)(g.l1 - g.l0), dev.mean,
                      dev.inv_sd, dev.frames, dev.terms, dev.has_flat + g.l0 * N, dev.restart, dev.reach,
                      dev.restarts, dev.n_restarts + g.l0 * N};
}

StartTableArgs table_args(const Device& dev, const Group& g) {
    const int N = dev.series.count;
    return StartTableArgs{dev.window_start + g.l0 * N, dev.windows + g.l0, dev.length_offset + g.l0,
                          dev.first_block + g.l0, g.use_table ? dev.table : nullptr};
}

// Window statistics, recurrence terms and (when the group has one) the start table of a group.
void launch_group(const Device& dev, const Group& g, const WindowArgs& win, const StartTableArgs& table,
                  cudaStream_t stream) {
    const int N = dev.series.count;
    const int64_t pairs = (int64_t)win.n_lengths * N;  // (length, series)
    stats_kernel<<<(unsigned)std::min<int64_t>((pairs + 3) / 4, 65535), 128, 0, stream>>>(dev.series, win);
    check(cudaGetLastError(), "stats_kernel launch");
    terms_kernel<<<(unsigned)std::min<int64_t>(pairs, 65535), 128, 0, stream>>>(dev.series, win);
    check(cudaGetLastError(), "terms_kernel launch");
    if (!g.use_table) return;
    const dim3 grid((unsigned)g.blocks, (unsigned)((N + kStartSources - 1) / kStartSources));
    start_table_kernel<<<grid, kStartThreads, 0, stream>>>(dev.series, win, table);
    check(cudaGetLastError(), "start_table_kernel launch");
}

// The distances and gains of one launch (launch index li).
void launch_scoring(const Device& dev, const Plan& plan, size_t li, const WindowArgs& win,
                    const StartTableArgs& table, const KernelConfig& kc, int k, cudaStream_t stream) {
    const Launch& ch = plan.launches[li];
    const Item* items = dev.items + ch.i0;
    const int n_items = (int)(ch.i1 - ch.i0);
    const DistArgs da{dev.dist,    dev.arg,        plan.max_pivots,     dev.next_task + li,
                      dev.carry,   kc.max_windows, kc.carry_in_shared};
    kc.dist<<<kc.dist_blocks, kDistWarps * 32, kc.dist_smem, stream>>>(items, n_items, ch.tasks, dev.series, win,
                                                                       table, da);
    check(cudaGetLastError(), "dist_kernel launch");
    const int64_t entries = ch.pivots * dev.series.count;
    const unsigned settle_blocks = (unsigned)std::min<int64_t>((entries + 255) / 256, 4096);
    if (kc.lazy) {
        check(cudaMemsetAsync(dev.n_listed, 0, sizeof(unsigned), stream), "cudaMemsetAsync");
    } else {
        settle_kernel<<<settle_blocks, 256, 0, stream>>>(items, n_items, ch.pivots, dev.series, win, da);
        check(cudaGetLastError(), "settle_kernel launch");
    }
    const int blocks = (int)std::min<int64_t>(kc.gain_blocks_max, (ch.pivots + kc.gain_warps - 1) / kc.gain_warps);
    const GainOut out{dev.lists, k, dev.pivot_gain, dev.pivot_gap, dev.pivot_thr};
    const LazyArgs lz{kc.lazy ? dev.arg : nullptr, win.reach, win.restart, dev.listed, dev.n_listed,
                      kc.device_lists ? dev.floor : nullptr};
    gain_kernel<<<blocks, kc.gain_warps * 32, kc.gain_smem, stream>>>(
        items, n_items, ch.pivots, dev.dist, plan.max_pivots, win.inv_sd, win.window_offset, dev.gain, lz, out);
    check(cudaGetLastError(), "gain_kernel launch");
    if (!kc.lazy) return;
    settle_listed_kernel<<<std::min(settle_blocks, 1024u), 256, 0, stream>>>(items, n_items, dev.series, win, da,
                                                                              dev.listed, dev.n_listed);
    check(cudaGetLastError(), "settle_listed_kernel launch");
    gain_listed_kernel<<<blocks, kc.gain_warps * 32, kc.gain_smem, stream>>>(items, n_items, dev.dist,
                                                                             plan.max_pivots, dev.gain, lz, out);
    check(cudaGetLastError(), "gain_listed_kernel launch");
}

// (gain, gap, threshold) per pivot of a launch, on the host (k > kDeviceTopK).
struct PivotResults {
    std::vector<int64_t> gain;
    std::vector<double> gap, thr;
};

void copy_pivot_results(const Device& dev, const Launch& ch, PivotResults& h, cudaStream_t stream) {
    check(cudaMemcpyAsync(h.gain.data(), dev.pivot_gain, ch.pivots * sizeof(int64_t), cudaMemcpyDeviceToHost, stream),
          "copy gains");
    check(cudaMemcpyAsync(h.gap.data(), dev.pivot_gap, ch.pivots * sizeof(double), cudaMemcpyDeviceToHost, stream),
          "copy gaps");
    check(cudaMemcpyAsync(h.thr.data(), dev.pivot_thr, ch.pivots * sizeof(double), cudaMemcpyDeviceToHost, stream),
          "copy thresholds");
}

void collect_pivot_results(const Item* items, const Launch& ch, const PivotResults& h, TopK& best) {
    for (size_t i = ch.i0; i < ch.i1; ++i) {
        const Item& it = items[i];
        for (int64_t p = 0; p < it.pivots; ++p) {
            const int64_t q = it.pivot_base + p;
            if (h.gain[q] < 0) continue;
            Cand c;
            c.g = h.gain[q];
            c.gap = h.gap[q];
            c.thr = h.thr[q];
            c.s = it.source;
            c.p = (int32_t)p;
            c.L = it.length;
            c.row = it.row;
            best.add(c);
        }
    }
}

// Kernel time, from the first launch after a wait to the next wait; launches
// queue up without host round trips in between (tsm::gpu::wait polls for cancel).
struct LaunchClock {
    LaunchClock(tsm::gpu::Stream& s, TsExec* e) : stream(s), timer(s), ex(e) {}
    tsm::gpu::Stream& stream;
    tsm::gpu::EventTimer timer;
    TsExec* ex;
    double kernel_ms = 0, since_wait = 0;  // since_wait: estimated cell updates
    int64_t pivots_queued = 0;             // of the launches since the last wait (progress)
    bool timing = false;
    void start() {
        if (!timing) { timer.start(); timing = true; }
    }
    void wait() {
        timer.stop();
        tsm::gpu::wait(stream, ex);
        tsm::progress_add(ex, pivots_queued);
        pivots_queued = 0;
        kernel_ms += timer.ms();
        timing = false;
        since_wait = 0;
    }
};

// Every launch of the plan: a wait after about kLaunchCost of work (per launch
// when results come back per pivot); with device lists, merge_kernel after the last.
void run_launches(const Device& dev, const Plan& plan, const KernelConfig& kc, const Item* host_items, int k,
                  LaunchClock& clock, TopK& best) {
    PivotResults h;
    if (!kc.device_lists) {
        h.gain.resize(plan.max_pivots);
        h.gap.resize(plan.max_pivots);
        h.thr.resize(plan.max_pivots);
    }
    for (size_t gi = 0; gi < plan.groups.size(); ++gi) {
        const Group& g = plan.groups[gi];
        const WindowArgs win = window_args(dev, g);
        const StartTableArgs table = table_args(dev, g);
        clock.start();
        launch_group(dev, g, win, table, clock.stream);
        for (size_t li = g.c0; li < g.c1; ++li) {
            clock.start();
            launch_scoring(dev, plan, li, win, table, kc, k, clock.stream);
            if (!kc.device_lists) copy_pivot_results(dev, plan.launches[li], h, clock.stream);
            clock.since_wait += plan.launches[li].cost;
            clock.pivots_queued += plan.launches[li].pivots;
            const bool last = gi + 1 == plan.groups.size() && li + 1 == g.c1;
            if (kc.device_lists && last) {
                merge_kernel<<<1, 1024, 0, clock.stream>>>(dev.lists, kc.n_lists * k, k, dev.best);
                check(cudaGetLastError(), "merge_kernel launch");
            }
            if (!kc.device_lists || clock.since_wait >= kLaunchCost || last) clock.wait();
            if (!kc.device_lists) collect_pivot_results(host_items, plan.launches[li], h, best);
        }
    }
}

void collect_device_best(const Device& dev, int k, tsm::gpu::Stream& stream, TopK& best) {
    std::vector<Cand> out(k);
    check(cudaMemcpyAsync(out.data(), dev.best, (size_t)k * sizeof(Cand), cudaMemcpyDeviceToHost, stream), "copy best");
    stream.sync();
    for (const Cand& c : out) best.add(c);  // g < 0 past the last candidate: not added
}

// Tests (restart_scan): warp_scan_restarts of one series' windows by one warp.
__global__ void restart_scan_kernel(int64_t count, const double* inv_sd, const double2* spans, uint8_t* restart,
                                    double* reach, int32_t* list, int32_t* n_listed) {
    const int32_t n = warp_scan_restarts(count, inv_sd, spans, restart, reach, list, threadIdx.x & 31);
    if (threadIdx.x == 0) *n_listed = n;
}

}  // namespace

RestartScan restart_scan(const std::vector<WindowSpans>& spans, const std::vector<double>& inv_sd, TsExec* ex) {
    tsm::gpu::use_device(ex);
    const int64_t U = (int64_t)spans.size();
    RestartScan out;
    if (U < 1) return out;
    std::vector<double2> sp(U);
    for (int64_t w = 0; w < U; ++w) sp[w] = make_double2(spans[w].step, spans[w].own);
    tsm::gpu::Arena ar;
    double *d_inv_sd = nullptr, *d_reach = nullptr;
    double2* d_spans = nullptr;
    uint8_t* d_restart = nullptr;
    int32_t *d_list = nullptr, *d_n = nullptr;
    ar.reserve(d_inv_sd, U);
    ar.reserve(d_spans, U);
    ar.reserve(d_restart, U);
    ar.reserve(d_reach, U);
    ar.reserve(d_list, U);
    ar.reserve(d_n, 1);
    ar.allocate("restart scan");
    tsm::gpu::Stream stream;
    check(cudaMemcpyAsync(d_inv_sd, inv_sd.data(), U * sizeof(double), cudaMemcpyHostToDevice, stream), "upload");
    check(cudaMemcpyAsync(d_spans, sp.data(), U * sizeof(double2), cudaMemcpyHostToDevice, stream), "upload");
    restart_scan_kernel<<<1, 32, 0, stream>>>(U, d_inv_sd, d_spans, d_restart, d_reach, d_list, d_n);
    check(cudaGetLastError(), "restart_scan_kernel launch");
    int32_t n = 0;
    out.restart.resize(U);
    out.reach.resize(U);
    check(cudaMemcpyAsync(out.restart.data(), d_restart, U, cudaMemcpyDeviceToHost, stream), "copy restarts");
    check(cudaMemcpyAsync(out.reach.data(), d_reach, U * sizeof(double), cudaMemcpyDeviceToHost, stream), "copy reaches");
    check(cudaMemcpyAsync(&n, d_n, sizeof(int32_t), cudaMemcpyDeviceToHost, stream), "copy count");
    stream.sync();
    out.listed.resize(n);
    check(cudaMemcpy(out.listed.data(), d_list, n * sizeof(int32_t), cudaMemcpyDeviceToHost), "copy list");
    return out;
}

std::vector<Cand> discover(const Subset& d, const std::vector<int>& lengths, int k, const Partner& partner,
                           TsExec* ex) {
    tsm::gpu::use_device(ex);
    const double t_start = tsm::gpu::now_ms();
    const int N = (int)d.x.size(), C = d.C;
    TopK best(k);
    if (lengths.empty()) return best.take();
    const Tuning tune = tuning();
    const DeviceLimits lim = device_limits();
    if (gain_warp_bytes(N, C, false) > (size_t)lim.smem_optin) gpu_cannot_take_series(N);
    for (int j = 0; j < N; ++j)
        if (!d.scaled[j]->screenable) gpu_cannot_screen(d.row[j]);

    tsm::gpu::Stream stream;
    LaunchClock clock(stream, ex);
    const SeriesLayout sl = series_layout(d);
    const GainTables gt = gain_tables(d);

    // the inputs and the plan of the whole call, written into the staging buffer
    // of the one upload; then every device buffer sized from the plan
    tsm::gpu::Arena ar;
    const Upload up = reserve_upload(ar, d, sl, gt.entropy.size(), count_items(d, lengths), lengths.size(),
                                   partner.d != nullptr);
    std::unique_ptr<unsigned char[]> stage(new unsigned char[up.end]);
    const Staged st = stage_inputs(stage.get(), up, d, sl, gt, partner, lengths);
    const Plan plan = make_plan(d, lengths, sl, tune.start_table_cap, st);
    const KernelConfig kc = configure_kernels(lim, tune, N, C, sl.longest - lengths.front() + 1, k);
    const Device dev = allocate_device(ar, up, plan, kc, d, lengths.size(), k, gt, partner);

    // the one upload (pageable: staged before the call returns; `stage` lives on anyway)
    check(cudaMemcpyAsync(dev.base, stage.get(), up.end, cudaMemcpyHostToDevice, stream), "shapelet upload");
    check(cudaMemsetAsync(dev.base + dev.zero_begin, 0, dev.zero_end - dev.zero_begin, stream), "cudaMemsetAsync");
    if (kc.device_lists) {  // g = -1: empty; the floor -1: none
        check(cudaMemsetAsync(dev.lists, 0xff, (size_t)kc.n_lists * k * sizeof(Cand), stream), "cudaMemsetAsync");
        check(cudaMemsetAsync(dev.floor, 0xff, sizeof(long long), stream), "cudaMemsetAsync");
    }
    run_launches(dev, plan, kc, st.items, k, clock, best);
    if (kc.device_lists) collect_device_best(dev, k, stream, best);
    stream.sync();
    ex->kernel_ms += clock.kernel_ms;
    ex->device_ms += tsm::gpu::now_ms() - t_start;
    return best.take();
}
}  // namespace gpu
}  // namespace shp
}  // namespace tsm
