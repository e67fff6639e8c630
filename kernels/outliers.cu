// outliers.cu — k-sigma and MAD outliers on the GPU.  The arithmetic shared
// with the CPU path (frames, moments and their merge, the one order of
// merging, the rules, the outlier test): src/core/outliers_detail.h; the GPU
// follows that order exactly, so its rule has the CPU's bits.
//   sigma: two kernels, two passes over the series, no host round trip.
//     1. moments_kernel: as many blocks as fit on the device, each taking
//        tiles of outliers_detail.h (kTileValues values) in turn: each lane
//        folds its groups, the lanes of a warp and the warps of the block
//        merge by the pairwise tree (shuffles); the last block to finish (a
//        fence and an atomic ticket) folds the tiles' moments (thread t:
//        tiles t, t + 256, ...), merges its threads by the tree and writes
//        the rule (frame, center, scale, k·scale) to the device.
//        Each warp also leaves the extremes of its 1,024 values (a stretch).
//     2. compact_kernel: an order-preserving compaction of the outlier
//        positions in one pass, by a decoupled look-back over tiles (each
//        tile publishes its count, then finds the count of the tiles before
//        it from their published values), so that there is no separate scan
//        or gather.  A warp reads its stretch's values only when one of its
//        extremes is an outlier (outliers_detail.h's holds_outlier: exactly
//        when the stretch holds one): with sparse outliers (the benchmark's)
//        pass 2 reads the extremes and a stretch in ten; on Gaussian noise at
//        k = 3 nearly every stretch holds one and it reads nearly all.
//   mad: the frame (max |x|), exact median and MAD by radix sorts, the MeanAD
//   (when the MAD is 0) by moments_kernel, then the same compaction.
//
// Bandwidth: both kernels read the series with 16-byte loads, each warp a
// contiguous stretch (8 or 16 loads of 512 bytes in flight per warp).  The
// sigma kernels are launched as one CUDA graph with their timing events
// (TSM_OUTLIERS_GRAPH).  Pass 1 takes its tiles from the end of the series to
// its start (the end is what the copy to the device wrote last) and leaves
// the start of the series in the L2 cache (normal loads for its first
// TSM_OUTLIERS_KEEP_MB, evict-first for the rest); pass 2 goes from the start
// to the end.  Measured on an H100 the L2 part is small (L2 hit rates of 5-10%
// at 2^24; no difference at 2^26 and 2^28 with the keep turned off; measured
// before pass 2 skipped the stretches without an outlier).  When the
// kernels are launched one by one on sm_90, pass 2 is a programmatic
// dependent launch: its first blocks start while pass 1 drains, load their
// tile, and only then wait for pass 1 (griddepcontrol.wait) before they read
// the rule (no measurable difference either; kept because it costs nothing).
#include <cub/cub.cuh>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "gpu_runtime.h"
#include "outliers.h"

// Tuning knobs (compile-time): bytes of the series' start that pass 1 leaves
// in L2 for pass 2, and whether pass 2 is a programmatic dependent launch.
#ifndef TSM_OUTLIERS_KEEP_MB
#define TSM_OUTLIERS_KEEP_MB 20
#endif
// Whether pass 1's grid is only as many blocks as fit on the device (each
// then takes several tiles) rather than a block per tile (on an H100 at 2^24
// values both ran within the runs' spread: bench/RESULTS.md, tenth session).
#ifndef TSM_OUTLIERS_PERSIST
#define TSM_OUTLIERS_PERSIST 1
#endif
// Blocks of pass 1 an SM the compiler must fit (its registers: 64 at most for 4).
#ifndef TSM_OUTLIERS_MIN_BLOCKS
#define TSM_OUTLIERS_MIN_BLOCKS 4
#endif
#ifndef TSM_OUTLIERS_PDL
#define TSM_OUTLIERS_PDL 1
#endif
// Whether the sigma kernels and the events that time them are launched as one
// CUDA graph (captured before the copy to the device, launched after it), so
// that the GPU runs them back to back without waiting for the host's launches
// (on an H100 at 2^24 values: 0.110-0.112 ms of kernels against 0.118-0.128
// ms launched one by one).  Falls back to launching them one by one when the
// capture fails.
#ifndef TSM_OUTLIERS_GRAPH
#define TSM_OUTLIERS_GRAPH 1
#endif

namespace tsm {
namespace gpu {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
static_assert(kWarps == outliers::kTileWarps && kThreads == outliers::kFoldThreads,
              "a block of pass 1 is one tile of outliers_detail.h; its last block folds with every thread");
constexpr int kLoads = outliers::kGroupPairs;      // pass 1: double2 loads per lane per step
constexpr int kTileLoads = 16;                     // pass 2: double2 loads per thread per tile
constexpr int64_t kWarpTile = 32 * 2 * kTileLoads; // 1024 values: a warp's share of a tile
constexpr int64_t kTile = kWarps * kWarpTile;      // 8192 values: one compaction tile
constexpr int64_t kKeepTiles = int64_t(TSM_OUTLIERS_KEEP_MB) * (1 << 20) / (outliers::kTileValues * 8);
static_assert(kTile == outliers::kTileValues && kWarpTile == outliers::kWarpSteps * outliers::kStepValues,
              "a warp of pass 2 reads the stretch whose extremes the same warp of pass 1 keeps");

using outliers::Moments;

// What the kernels share on the device; all zero before pass 1 (a memset at
// allocation).  The rule (outliers_detail.h: deviation, limit = k·scale, in
// the series' frame) is written by pass 1 or, for mad, by the host; count is
// the number of outliers (written by the last tile of the look-back).
struct Ctrl {
    unsigned int done;    // pass-1 blocks finished
    unsigned int ticket;  // pass-2 tiles claimed
    long long count;
    unsigned long long scanned;  // stretches pass 2 read (for the bytes moved)
    double unit, ref_scaled, center, scale, limit;
    int frame;
    Moments total;        // pass 1's moments of the whole series
};

// Tile states of the look-back: the flag in the top two bits, a count below.
constexpr unsigned long long kAggregate = 1ull << 62;  // this tile's own count
constexpr unsigned long long kInclusive = 2ull << 62;  // count of this tile and all before it
constexpr unsigned long long kValueMask = (1ull << 62) - 1;

__device__ __forceinline__ unsigned long long load_state(const unsigned long long* p) {
    return *reinterpret_cast<const volatile unsigned long long*>(p);
}
__device__ __forceinline__ void store_state(unsigned long long* p, unsigned long long v) {
    *reinterpret_cast<volatile unsigned long long*>(p) = v;
}

// Programmatic dependent launch (sm_90): the dependent grid may start, and
// waiting for the grid it depends on (complete, its writes visible).  No-ops
// below sm_90 and when the kernel was launched without the attribute.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void wait_for_prerequisite_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Moments by a warp shuffle (every field from lane + o).
__device__ __forceinline__ Moments shuffle_down(const Moments& m, int o) {
    return {__shfl_down_sync(0xffffffffu, m.n, o), __shfl_down_sync(0xffffffffu, m.mean, o),
            __shfl_down_sync(0xffffffffu, m.m2, o), __shfl_down_sync(0xffffffffu, m.frame, o)};
}

// outliers_detail.h's tree_merge over the first `count` lanes of a warp
// (count a power of two up to 32; the result in lane 0): at distance o, lane
// l (a multiple of 2o) merges lane l + o's value, which holds its own
// subtree's by then: the pairs of tree_merge, so its bits.
__device__ __forceinline__ Moments warp_tree(Moments m, int lane, int count = 32) {
#pragma unroll
    for (int o = 1; o < count; o <<= 1) {
        const Moments other = shuffle_down(m, o);
        if ((lane & (2 * o - 1)) == 0) m = outliers::merge_moments(m, other);
    }
    return m;
}

// Pass 1, one lane: its groups of the warp's kWarpSteps steps of tile `tile`
// (lane l of step q: values 512q + 64j + 2l, 512q + 64j + 2l + 1, j = 0..7:
// outliers_detail.h's lane_group, here with 16-byte loads), through the
// transform tr, folded in step order; *ext gets the least and greatest of
// the lane's values as loaded, for the plain transform (keeps_extremes; a
// partial stretch's are never read: pass 2 reads its values).
template <class Tr>
__host__ __device__ constexpr bool keeps_extremes() {
    return std::is_same<Tr, outliers::Plain>::value;
}
template <class Tr>
__device__ __forceinline__ Moments lane_fold(const double* __restrict__ x, int64_t n, int64_t tile, int warp,
                                                int lane, double ref, Tr tr, double2* ext) {
    using namespace outliers;
    Moments acc = no_moments();
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    const double2* x2 = reinterpret_cast<const double2*>(x);
    const bool keep = tile < kKeepTiles;
#pragma unroll 1
    for (int s = 0; s < kWarpSteps; ++s) {
        const int64_t base = step_base(tile, warp, s);
        if (base >= n) break;
        if (base + kStepValues > n) {
            partial_step(x, n, base, lane, ref, tr, acc);
            break;
        }
        const double2* p = x2 + base / 2 + lane;
        double2 w[kLoads];
        if (keep) {
#pragma unroll
            for (int j = 0; j < kLoads; ++j) w[j] = __ldg(p + 32 * j);
        } else {
#pragma unroll
            for (int j = 0; j < kLoads; ++j) w[j] = __ldcs(p + 32 * j);
        }
        double v[kGroupValues];
#pragma unroll
        for (int j = 0; j < kLoads; ++j) {
            if (keeps_extremes<Tr>()) lo = fmin(lo, fmin(w[j].x, w[j].y)), hi = fmax(hi, fmax(w[j].x, w[j].y));
            v[2 * j] = tr(w[j].x), v[2 * j + 1] = tr(w[j].y);
        }
        acc = merge_moments(acc, group_moments(v, ref));
    }
    *ext = make_double2(lo, hi);
    return acc;
}

// The extremes of a warp's stretch from its lanes' (every lane gets them).
__device__ __forceinline__ double2 warp_extremes(double2 e) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        e.x = fmin(e.x, __shfl_xor_sync(0xffffffffu, e.x, o));
        e.y = fmax(e.y, __shfl_xor_sync(0xffffffffu, e.y, o));
    }
    return e;
}

// Tile i's moments as pass 1's blocks left them (from L2: written by other blocks).
__device__ __forceinline__ Moments load_part(const Moments* parts, int64_t i) {
    return {__ldcg(&parts[i].n), __ldcg(&parts[i].mean), __ldcg(&parts[i].m2), __ldcg(&parts[i].frame)};
}

// The last block: every thread folds its tiles (outliers_detail.h's
// fold_tiles; their loads four at a time, ahead of the merges), then the tree
// over the threads: within each warp by shuffles, then over the warps' results
// by warp 0 (tree_merge's pairs: distances below 32 lie within a warp, 32·o
// pairs warp w with warp w + o); the total in thread 0.
__device__ __forceinline__ Moments fold_all_tiles(const Moments* parts, int64_t tiles, Moments* s_warp) {
    constexpr int kAhead = 4;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    Moments acc = outliers::no_moments();
    for (int64_t i = threadIdx.x; i < tiles; i += kAhead * kThreads) {
        Moments p[kAhead];
#pragma unroll
        for (int a = 0; a < kAhead; ++a)
            p[a] = i + a * kThreads < tiles ? load_part(parts, i + a * kThreads) : outliers::no_moments();
#pragma unroll
        for (int a = 0; a < kAhead; ++a) acc = outliers::merge_moments(acc, p[a]);
    }
    acc = warp_tree(acc, lane);
    if (lane == 0) s_warp[warp] = acc;
    __syncthreads();
    Moments t = outliers::no_moments();
    if (warp == 0) t = warp_tree(lane < kWarps ? s_warp[lane] : outliers::no_moments(), lane, kWarps);
    return t;
}

// Pass 1: the tiles of outliers_detail.h, taken from the end of the series to
// its start (the end is what the copy to the device wrote last), block b the
// tiles b, b + grid, ... of that order (grid: resident_blocks; a block's next
// tile loads while warp 0 merges the last one's warps, from the other half of
// s_warp); each tile's moments go to parts; the last block
// to finish (a fence and an atomic ticket) merges them in the one order and
// writes the total and (with k > 0) the sigma rule to ctrl.  With bounds,
// each warp's stretch's extremes go to bounds[tile·kWarps + warp] (the
// values as loaded; only for the plain transform, keeps_extremes).  Also clears pass 2's
// tile states.
template <class Tr>
__global__ void __launch_bounds__(kThreads, TSM_OUTLIERS_MIN_BLOCKS)
    moments_kernel(const double* __restrict__ x, int64_t n, int64_t tiles, double ref, double k, Tr tr,
                   Moments* __restrict__ parts, double2* __restrict__ bounds, Ctrl* ctrl,
                   unsigned long long* __restrict__ state, int64_t states) {
    allow_dependent_launch();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t threads = int64_t(gridDim.x) * kThreads;
    for (int64_t t = int64_t(blockIdx.x) * kThreads + threadIdx.x; t < states; t += threads) state[t] = 0;
    __shared__ Moments s_warp[2][kWarps];
    __shared__ bool last;
    int half = 0;
    for (int64_t i = blockIdx.x; i < tiles; i += gridDim.x, half ^= 1) {
        const int64_t tile = tiles - 1 - i;
        double2 ext;
        const Moments m = warp_tree(lane_fold(x, n, tile, warp, lane, ref, tr, &ext), lane);
        if (keeps_extremes<Tr>() && bounds) {
            ext = warp_extremes(ext);
            if (lane == 0) bounds[tile * kWarps + warp] = ext;
        }
        if (lane == 0) s_warp[half][warp] = m;
        __syncthreads();  // also: warp 0 is done with this half's previous tile
        if (warp == 0) {
            const Moments t = warp_tree(lane < kWarps ? s_warp[half][lane] : outliers::no_moments(), lane, kWarps);
            if (lane == 0) parts[tile] = t;
        }
    }
    if (threadIdx.x == 0) {
        __threadfence();  // thread 0 wrote the block's parts
        last = atomicAdd(&ctrl->done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    const Moments t = fold_all_tiles(parts, tiles, s_warp[0]);  // warp 0 read s_warp before `last`
    if (threadIdx.x == 0) {
        ctrl->total = t;
        if (k > 0) {
            const OutlierRule rule = outliers::sigma_rule(t, ref);
            ctrl->frame = rule.frame;
            ctrl->unit = rule.unit;
            ctrl->ref_scaled = rule.ref_scaled;
            ctrl->center = rule.center;
            ctrl->scale = rule.scale;
            ctrl->limit = outliers::outlier_limit(k, rule);
        }
    }
}

// Pass 2: order-preserving compaction of the positions i with
// |deviation(x[i])| > limit into out[0, count), ascending; ctrl->count gets
// their number.  A block claims the next tile by an atomic ticket (so every
// tile it waits for in the look-back belongs to a block already running: no
// deadlock), waits for pass 1 and reads the rule.  Within a tile, warp w
// holds values [1024w, 1024w + 1024), lane l values 64j + 2l, 64j + 2l + 1
// of it (j = 0..15): index order is (warp, j, lane, x/y).  With bounds (pass
// 1's extremes of the stretch), a full stretch none of whose extremes is an
// outlier holds none (holds_outlier) and is not read.

// The block's tile, by an atomic ticket.
__device__ __forceinline__ int64_t claim_tile(Ctrl* ctrl) {
    __shared__ unsigned s_tile;
    if (threadIdx.x == 0) s_tile = atomicAdd(&ctrl->ticket, 1u);
    __syncthreads();
    return s_tile;
}

// The warp's values of its tile from wbase (0 past n); returns the bits
// (as outlier_bits numbers them) of the values before n.
__device__ __forceinline__ unsigned load_partial(const double* __restrict__ x, int64_t n, int64_t wbase, int lane,
                                                 double2 (&w)[kTileLoads]) {
    unsigned valid = 0;
#pragma unroll
    for (int j = 0; j < kTileLoads; ++j) {
        const int64_t i = wbase + 64 * j + 2 * lane;
        w[j].x = i < n ? x[i] : 0.0;
        w[j].y = i + 1 < n ? x[i + 1] : 0.0;
        valid |= (unsigned(i < n) << (2 * j)) | (unsigned(i + 1 < n) << (2 * j + 1));
    }
    return valid;
}

// The rule of pass 2 (outliers_detail.h's deviation and limit).
struct Test {
    double unit, ref_scaled, center, limit;
    __device__ __forceinline__ bool operator()(double v) const {
        return outliers::is_outlier(outliers::deviation(v, unit, ref_scaled, center), limit);
    }
};

// Outlier bits of the thread's values: bit 2j for w[j].x, bit 2j + 1 for w[j].y.
__device__ __forceinline__ unsigned outlier_bits(const double2 (&w)[kTileLoads], const Test& test) {
    unsigned hits = 0;
#pragma unroll
    for (int j = 0; j < kTileLoads; ++j) {
        hits |= unsigned(test(w[j].x)) << (2 * j);
        hits |= unsigned(test(w[j].y)) << (2 * j + 1);
    }
    return hits;
}

// Warp 0: the number of outliers in the tiles before `tile` (tile > 0), by a
// decoupled look-back: publishes this tile's own count (total) first, then
// lane l looks at tile j − l, 32 tiles a round, until an inclusive state.
__device__ __forceinline__ long long count_before(unsigned long long* state, int64_t tile, long long total,
                                                  int lane) {
    if (lane == 0) store_state(&state[tile], kAggregate | total);
    long long before = 0;
    int64_t j = tile - 1;
    while (true) {
        const int64_t at = j - lane;
        unsigned long long s = at >= 0 ? load_state(&state[at]) : kInclusive;
        while (__any_sync(0xffffffffu, (s >> 62) == 0)) {
            if ((s >> 62) == 0) s = load_state(&state[at]);
        }
        const unsigned inclusive = __ballot_sync(0xffffffffu, (s >> 62) == 2);
        const int stop = inclusive ? __ffs(inclusive) - 1 : 31;  // nearest inclusive state
        long long v = lane <= stop ? static_cast<long long>(s & kValueMask) : 0;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        before += v;
        if (inclusive) return before;
        j -= 32;
    }
}

// Warp 0: the warps' exclusive offsets within the tile (warp_offset, from
// their counts there), the tile's first output index (*tile_start) and its
// inclusive state; the last tile writes the total to ctrl->count.
__device__ __forceinline__ void tile_offsets(int* warp_offset, long long* tile_start, unsigned long long* state,
                                             int64_t tile, int64_t tiles, Ctrl* ctrl, int lane) {
    const int own = lane < kWarps ? warp_offset[lane] : 0;
    int incl = own;
#pragma unroll
    for (int o = 1; o < kWarps; o <<= 1) {
        const int v = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += v;
    }
    const long long total = __shfl_sync(0xffffffffu, incl, kWarps - 1);
    if (lane < kWarps) warp_offset[lane] = incl - own;
    const long long before = tile > 0 ? count_before(state, tile, total, lane) : 0;
    if (lane == 0) {
        store_state(&state[tile], kInclusive | static_cast<unsigned long long>(before + total));
        *tile_start = before;
        if (tile == tiles - 1) ctrl->count = before + total;
    }
}

// The warp's positions, in index order (j, lane, x/y), from out[at].
__device__ __forceinline__ void write_positions(unsigned hits, int64_t wbase, int lane, int64_t at,
                                                int64_t* __restrict__ out) {
    const unsigned below = (1u << lane) - 1;
#pragma unroll
    for (int j = 0; j < kTileLoads; ++j) {
        const bool hx = (hits >> (2 * j)) & 1, hy = (hits >> (2 * j + 1)) & 1;
        const unsigned bx = __ballot_sync(0xffffffffu, hx), by = __ballot_sync(0xffffffffu, hy);
        const int64_t o = at + __popc(bx & below) + __popc(by & below);
        const int64_t i = wbase + 64 * j + 2 * lane;
        if (hx) out[o] = i;
        if (hy) out[o + hx] = i + 1;
        at += __popc(bx) + __popc(by);
    }
}

// The warp's outlier bits (as outlier_bits numbers them) of its stretch from wbase.
__device__ __forceinline__ unsigned stretch_hits(const double* __restrict__ x, int64_t n, int64_t wbase, int lane,
                                                 const Test& test) {
    double2 w[kTileLoads];
    if (wbase + kWarpTile > n) {
        const unsigned valid = load_partial(x, n, wbase, lane, w);
        return outlier_bits(w, test) & valid;
    }
    const double2* p = reinterpret_cast<const double2*>(x + wbase) + lane;
#pragma unroll
    for (int j = 0; j < kTileLoads; ++j) w[j] = __ldcs(p + 32 * j);
    return outlier_bits(w, test);
}

__global__ void __launch_bounds__(kThreads) compact_kernel(const double* __restrict__ x, int64_t n, int64_t tiles,
                                                           const double2* __restrict__ bounds, Ctrl* ctrl,
                                                           unsigned long long* state, int64_t* __restrict__ out) {
    __shared__ int s_warp[kWarps];  // the warps' counts, then their offsets within the tile
    __shared__ long long s_start;   // out index of this tile's first position
    const int64_t tile = claim_tile(ctrl);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t wbase = tile * kTile + int64_t(warp) * kWarpTile;

    wait_for_prerequisite_grid();  // pass 1 complete: the rule, the extremes and the cleared states are there
    const Test test{ctrl->unit, ctrl->ref_scaled, ctrl->center, ctrl->limit};
    bool scan = true;
    if (bounds && wbase + kWarpTile <= n) {
        const double2 e = __ldcg(&bounds[tile * kWarps + warp]);
        scan = outliers::holds_outlier(e.x, e.y, test.unit, test.ref_scaled, test.center, test.limit);
    }
    const unsigned hits = scan ? stretch_hits(x, n, wbase, lane, test) : 0u;
    if (scan && lane == 0) atomicAdd(&ctrl->scanned, 1ull);
    const int warp_count = __reduce_add_sync(0xffffffffu, __popc(hits));
    if (lane == 0) s_warp[warp] = warp_count;
    __syncthreads();
    if (warp == 0) tile_offsets(s_warp, &s_start, state, tile, tiles, ctrl, lane);
    __syncthreads();
    if (warp_count == 0) return;
    write_positions(hits, wbase, lane, s_start + s_warp[warp], out);
}

// The mad method's kernels: the deviations (outliers_detail.h's Affine)
// into out, and max |x| (the bits of a non-negative double order like the double).
__global__ void abs_dev_kernel(const double* __restrict__ x, int64_t n, outliers::Affine dev,
                               double* __restrict__ out) {
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = dev(x[i]);
}

__global__ void max_magnitude_kernel(const double* __restrict__ x, int64_t n, unsigned long long* top) {
    double a = 0;
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) a = outliers::max_abs(a, x[i]);
    using Reduce = cub::BlockReduce<double, kThreads>;
    __shared__ typename Reduce::TempStorage tmp;
    const double b = Reduce(tmp).Reduce(a, [](double u, double v) { return u < v ? v : u; });
    if (threadIdx.x == 0) atomicMax(top, static_cast<unsigned long long>(outliers::bits_of(b)));
}

// Grid of the simple grid-stride kernels of the mad method.
int blocks_for(int64_t n) {
    constexpr int64_t kMaxBlocks = 2048;
    int64_t b = (n + kThreads * 16 - 1) / (kThreads * 16);
    return static_cast<int>(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
}

// Loads pass 1's kernels (lazy module loading) before the clock starts;
// returns how many of its blocks fit on the device at once (TSM_OUTLIERS_PERSIST
// 0: no limit, a block per tile).
int64_t resident_blocks() {
    cudaFuncAttributes attr;
    check(cudaFuncGetAttributes(&attr, moments_kernel<outliers::Plain>), "cudaFuncGetAttributes");
    check(cudaFuncGetAttributes(&attr, moments_kernel<outliers::Affine>), "cudaFuncGetAttributes");
    if (!TSM_OUTLIERS_PERSIST) return INT64_MAX;
    int dev = 0, sms = 0, per_sm = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, moments_kernel<outliers::Plain>, kThreads, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return std::max<int64_t>(1, int64_t(sms) * per_sm);
}

// Whether pass 2 may be a programmatic dependent launch (sm_90 and later).
bool dependent_launch_available() {
    cudaFuncAttributes attr;
    check(cudaFuncGetAttributes(&attr, compact_kernel), "cudaFuncGetAttributes");  // loads the kernel
    int dev = 0, cc_major = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, dev), "cudaDeviceGetAttribute");
    return TSM_OUTLIERS_PDL && cc_major >= 9;
}

size_t sort_temp_bytes(int64_t n, cudaStream_t s) {
    size_t bytes = 0;
    cub::DoubleBuffer<double> keys(nullptr, nullptr);
    check(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, static_cast<int>(n), 0, 64, s),
          "radix sort (sizing)");
    return bytes;
}

// One call's setup and device memory, allocated (and the kernels loaded)
// before the clock starts.
struct Search {
    int64_t n;
    double k;
    bool mad;
    size_t bytes;          // of the series
    int64_t tiles;         // pass 2's tiles
    int64_t blocks;        // pass 1's tiles (outliers_detail.h's)
    int64_t grid1;         // pass 1's grid: at most the blocks that fit on the device at once
    bool pdl;              // pass 2 as a programmatic dependent launch
    double ref = 0;        // sigma: outliers::sigma_reference
    Buffer<double> d_x;    // the series
    Buffer<int64_t> d_pos; // outlier positions (mad: the sorts' second buffer before that)
    Buffer<unsigned long long> d_state;  // tile states of the look-back
    Buffer<Ctrl> d_ctrl;
    Buffer<Moments> d_parts;             // pass 1's per-tile moments
    Buffer<double2> d_bounds;            // sigma: pass 1's extremes of each warp's stretch
    Buffer<unsigned char> d_temp;        // mad: the sorts' scratch
    Buffer<double> d_v;                  // mad: the values sorted for a median

    Search(const double* x, int64_t n_, double k_, bool mad_, cudaStream_t s)
        : n(n_), k(k_), mad(mad_), bytes(static_cast<size_t>(n_) * sizeof(double)),
          tiles((n_ + kTile - 1) / kTile), blocks(outliers::tile_count(n_)), pdl(dependent_launch_available()) {
        grid1 = std::min<int64_t>(blocks, resident_blocks());
        const size_t temp_bytes = mad ? sort_temp_bytes(n, s) : 0;
        const int64_t stretches = mad ? 0 : blocks * kWarps;  // sigma: pass 1's extremes
        require_bytes(bytes * (mad ? 3 : 2) + temp_bytes + tiles * sizeof(unsigned long long) +
                          stretches * sizeof(double2) + (1 << 20),
                      "the outlier search");
        d_x.allocate(n, "the series");
        d_pos.allocate(n, "outlier positions");
        d_state.allocate(tiles, "tile states");
        d_ctrl.allocate(1, "outlier rule");
        d_parts.allocate(blocks, "partial moments");
        if (mad) {
            d_temp.allocate(temp_bytes, "scratch");
            d_v.allocate(n, "MAD scratch");
        } else {
            d_bounds.allocate(stretches, "stretch extremes");
            ref = outliers::sigma_reference(x, n);
        }
    }
};

// Launches pass 1.
cudaError_t launch_moments(const Search& d, cudaStream_t s) {
    moments_kernel<<<static_cast<unsigned>(d.grid1), kThreads, 0, s>>>(d.d_x.get(), d.n, d.blocks, d.ref, d.k,
                                                                     outliers::Plain{}, d.d_parts.get(),
                                                                     d.d_bounds.get(), d.d_ctrl.get(),
                                                                     d.d_state.get(), d.tiles);
    return cudaGetLastError();
}

// Launches pass 2 (with pdl: as a programmatic dependent launch).
cudaError_t launch_compact(const Search& d, cudaStream_t s, bool pdl) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(static_cast<unsigned>(d.tiles));
    cfg.blockDim = dim3(kThreads);
    cfg.stream = s;
    cudaLaunchAttribute pdl_attr[1];
    pdl_attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    pdl_attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = pdl_attr;
    cfg.numAttrs = pdl ? 1 : 0;
    const double2* bounds = d.mad ? nullptr : d.d_bounds.get();
    return cudaLaunchKernelEx(&cfg, compact_kernel, static_cast<const double*>(d.d_x.get()), d.n, d.tiles, bounds,
                              d.d_ctrl.get(), d.d_state.get(), d.d_pos.get());
}

// Exact median of d_v times unit (sorted through a double buffer); the formula of tsm::median.
double sorted_median(double* d_v, double* d_alt, int64_t n, double unit, Buffer<unsigned char>& temp,
                     cudaStream_t s) {
    cub::DoubleBuffer<double> keys(d_v, d_alt);
    size_t bytes = temp.bytes();
    check(cub::DeviceRadixSort::SortKeys(temp.get(), bytes, keys, static_cast<int>(n), 0, 64, s), "radix sort");
    double mid[2] = {0, 0};
    const double* sorted = keys.Current();
    int64_t lo = n % 2 ? n / 2 : n / 2 - 1;
    check(cudaMemcpyAsync(mid, sorted + lo, (n % 2 ? 1 : 2) * sizeof(double), cudaMemcpyDeviceToHost, s),
          "copy median");
    check(cudaStreamSynchronize(s), "median");
    return n % 2 ? hd::mul(mid[0], unit) : outliers::middle_mean(hd::mul(mid[0], unit), hd::mul(mid[1], unit));
}

// The frame of max |x| (outliers_detail.h), on the device.
int device_mad_frame(const Search& d, cudaStream_t s) {
    Buffer<unsigned long long> top(1, "largest magnitude");
    check(cudaMemsetAsync(top.get(), 0, sizeof(unsigned long long), s), "clear the largest magnitude");
    max_magnitude_kernel<<<blocks_for(d.n), kThreads, 0, s>>>(d.d_x.get(), d.n, top.get());
    check(cudaGetLastError(), "largest magnitude launch");
    unsigned long long h = 0;
    check(cudaMemcpyAsync(&h, top.get(), sizeof h, cudaMemcpyDeviceToHost, s), "copy the largest magnitude");
    check(cudaStreamSynchronize(s), "largest magnitude");
    return outliers::frame_of(outliers::from_bits(h));
}

// MeanAD: the mean of the moments of the deviations, by pass 1's kernel (the
// one order of outliers_detail.h, as on the CPU).
double device_mean_abs_dev(const Search& d, const outliers::Affine& dev, cudaStream_t s) {
    check(cudaMemsetAsync(d.d_ctrl.get(), 0, sizeof(Ctrl), s), "clear the moments");
    moments_kernel<<<static_cast<unsigned>(d.grid1), kThreads, 0, s>>>(
        d.d_x.get(), d.n, d.blocks, 0.0, 0.0, dev, d.d_parts.get(), nullptr, d.d_ctrl.get(), d.d_state.get(),
        d.tiles);
    check(cudaGetLastError(), "mean absolute deviation launch");
    Ctrl h{};
    check(cudaMemcpyAsync(&h, d.d_ctrl.get(), sizeof h, cudaMemcpyDeviceToHost, s), "copy the moments");
    check(cudaStreamSynchronize(s), "mean absolute deviation");
    return outliers::mean_from_moments(h.total);
}

// The mad rule: median and MAD by radix sorts, MeanAD when the MAD is 0;
// writes the rule to the device and clears the tile states for pass 2.
OutlierRule mad_rule_on_device(Search& d, cudaStream_t s) {
    double* alt = reinterpret_cast<double*>(d.d_pos.get());  // free until the compaction
    check(cudaMemcpyAsync(d.d_v.get(), d.d_x.get(), d.bytes, cudaMemcpyDeviceToDevice, s), "copy for the median");
    const int frame = device_mad_frame(d, s);
    const double unit = outliers::pow2(-frame);
    const double med = sorted_median(d.d_v.get(), alt, d.n, unit, d.d_temp, s);
    const outliers::Affine dev{unit, med, true};
    abs_dev_kernel<<<blocks_for(d.n), kThreads, 0, s>>>(d.d_x.get(), d.n, dev, d.d_v.get());
    check(cudaGetLastError(), "absolute deviations launch");
    const double mad = sorted_median(d.d_v.get(), alt, d.n, 1.0, d.d_temp, s);
    const double mean_ad = mad > 0 ? 0.0 : device_mean_abs_dev(d, dev, s);
    const OutlierRule rule = outliers::mad_rule(med, frame, mad, mean_ad);
    Ctrl h{};
    h.frame = rule.frame;
    h.unit = rule.unit;
    h.ref_scaled = rule.ref_scaled;
    h.center = rule.center;
    h.scale = rule.scale;
    h.limit = outliers::outlier_limit(d.k, rule);
    check(cudaMemcpyAsync(d.d_ctrl.get(), &h, sizeof h, cudaMemcpyHostToDevice, s), "copy rule");
    check(cudaMemsetAsync(d.d_state.get(), 0, d.tiles * sizeof(unsigned long long), s), "clear tile states");
    check(cudaStreamSynchronize(s), "copy rule");
    return rule;
}

// Two timing events, always destroyed.
struct Events {
    cudaEvent_t start = nullptr, stop = nullptr;
    Events() {
        check(cudaEventCreate(&start), "cudaEventCreate");
        check(cudaEventCreate(&stop), "cudaEventCreate");
    }
    ~Events() {
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;
    double ms() {
        check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float t = 0;
        check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
        return t;
    }
};

// A captured graph and its executable form, always destroyed (an executable
// graph still running is freed when it completes).
struct Graph {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    Graph() = default;
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;
    ~Graph() { reset(); }
    void reset() {
        if (exec) cudaGraphExecDestroy(exec);
        if (graph) cudaGraphDestroy(graph);
        exec = nullptr;
        graph = nullptr;
    }
};

// Captures [start event, pass 1, pass 2, stop event] from stream s into g.
// Returns false (errors cleared, g empty, s out of capture) on any failure:
// the caller then launches them one by one.
bool capture_sigma(Graph& g, const Search& d, Events& ev, cudaStream_t s) {
    if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    bool ok = cudaEventRecordWithFlags(ev.start, s, cudaEventRecordExternal) == cudaSuccess;
    ok = ok && launch_moments(d, s) == cudaSuccess;
    ok = ok && launch_compact(d, s, false) == cudaSuccess;
    ok = ok && cudaEventRecordWithFlags(ev.stop, s, cudaEventRecordExternal) == cudaSuccess;
    cudaGraph_t graph = nullptr;
    if (cudaStreamEndCapture(s, &graph) != cudaSuccess) ok = false;
    g.graph = graph;
    ok = ok && graph && cudaGraphInstantiate(&g.exec, graph, 0) == cudaSuccess;
    if (!ok) {
        cudaGetLastError();
        g.reset();
    }
    return ok;
}

// The bytes pass 1 moves: the series, the tile states it clears and the extremes.
double pass1_bytes(const Search& d) {
    return static_cast<double>(d.bytes) + d.tiles * sizeof(unsigned long long) + static_cast<double>(d.d_bounds.bytes());
}

// The kernels launched one by one between the timing events: sigma's pass 1
// (the rule on the device), or the mad rule (*rule, on the host); then pass 2.
// Returns the bytes the kernels move before pass 2's own.
double launch_one_by_one(Search& d, Events& ev, cudaStream_t s, OutlierRule* rule) {
    double kernel_bytes = 0;
    check(cudaEventRecord(ev.start, s), "cudaEventRecord");
    if (!d.mad) {
        check(launch_moments(d, s), "moments launch");
        kernel_bytes += pass1_bytes(d);
    } else {
        *rule = mad_rule_on_device(d, s);
        // two radix sorts (8 passes of 8 bits, read + write each), two copies, the deviations
        kernel_bytes += static_cast<double>(d.bytes) * (2 * 8 * 2 + 2 + 2);
    }
    // Order-preserving compaction of the positions (a constant series selects nothing).
    check(launch_compact(d, s, !d.mad && d.pdl), "compaction launch");
    check(cudaGetLastError(), "compaction launch");
    check(cudaEventRecord(ev.stop, s), "cudaEventRecord");
    return kernel_bytes;
}

}  // namespace

OutlierRule outliers(const double* x, int64_t n, double k, int method, TsExec* ex, TsOutliers* out) {
    use_device(ex);
    if (method == TS_OUTLIERS_MAD && n > 0x7fffffff)
        throw Error(TS_INVALID_ARGUMENT, kInvalidParameter,
                    "the GPU MAD method handles at most 2^31 - 1 values",
                    "Use method 'sigma', or SET tsmine.backend = cpu.");
    const bool mad = method == TS_OUTLIERS_MAD;
    Stream s;
    Search d(x, n, k, mad, s);
    Events ev;
    Graph graph;
    const bool graphed = !mad && TSM_OUTLIERS_GRAPH && capture_sigma(graph, d, ev, s);
    check(cudaMemsetAsync(d.d_ctrl.get(), 0, sizeof(Ctrl), s), "clear the outlier rule");

    const double t0 = now_ms();
    check(cudaMemcpyAsync(d.d_x.get(), x, d.bytes, cudaMemcpyHostToDevice, s), "copy the series to the GPU");
    OutlierRule rule;
    double kernel_bytes = 0;
    if (graphed) {
        check(cudaGraphLaunch(graph.exec, s), "outlier search launch");
        kernel_bytes += pass1_bytes(d);
    } else {
        kernel_bytes += launch_one_by_one(d, ev, s, &rule);
    }
    Ctrl h{};
    check(cudaMemcpyAsync(&h, d.d_ctrl.get(), sizeof h, cudaMemcpyDeviceToHost, s), "copy the outlier rule");
    s.sync("outlier search");
    int64_t count = h.count;
    ex->kernel_ms = ev.ms();
    if (!mad) {
        rule = outliers::rule_in_frame(d.ref, h.frame);
        rule.center = h.center;
        rule.scale = h.scale;
        rule.scale_rule = rule.scale > 0 ? 0 : 3;
    }
    if (!(rule.scale > 0)) count = 0;
    if (count < 0 || count > n) throw Error(TS_INTERNAL, kInternal, "the GPU outlier count is out of range");
    kernel_bytes += std::min(static_cast<double>(d.bytes), static_cast<double>(h.scanned) * kWarpTile * sizeof(double)) +
                    static_cast<double>(d.d_bounds.bytes()) + 2.0 * d.tiles * sizeof(unsigned long long) +
                    static_cast<double>(count) * sizeof(int64_t);
    out->count = count;
    out->pos = alloc_result<int64_t>(ex, count);
    if (count) {
        check(cudaMemcpyAsync(out->pos, d.d_pos.get(), count * sizeof(int64_t), cudaMemcpyDeviceToHost, s),
              "copy outlier positions");
        s.sync("copy outlier positions");
    }
    ex->device_bytes = kernel_bytes;
    ex->device_ms = now_ms() - t0;
    return rule;
}

}  // namespace gpu
}  // namespace tsm
