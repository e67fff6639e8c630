// outliers.cu — k-sigma and MAD outliers on the GPU.
//   sigma: one pass of Chan-merged moments (count, mean, Σ(x−mean)²) per
//   thread and block, a one-block kernel that merges them and writes the rule
//   (mean, std, k·std) on the device, then an order-preserving compaction of
//   the outlier positions by tiles (select_tiles, gather_tiles) that reads the
//   rule there: two passes over the series and no host round trip.
//   mad: exact median and MAD by radix sorts, then the same compaction.
#include <cub/cub.cuh>

#include <algorithm>
#include <vector>

#include "gpu_runtime.h"
#include "outliers.h"
#include "stats.h"

namespace tsm {
namespace gpu {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 2048;

// Count, mean and sum of squared deviations of a set of values; merged with
// Chan et al.'s formula, which never subtracts large raw sums (the paper's
// E[x²] − E[x]² does, and fails on 1e9 + noise).
struct Moments {
    double n, mean, m2;
};

__device__ __forceinline__ Moments merge(const Moments& a, const Moments& b) {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    double n = a.n + b.n, d = b.mean - a.mean, f = b.n / n;
    return {n, a.mean + d * f, a.m2 + b.m2 + d * d * a.n * f};
}

struct MergeOp {
    __device__ Moments operator()(const Moments& a, const Moments& b) const { return merge(a, b); }
};

// One pass: each thread folds chunks of sixteen values (four double4 loads in
// flight, then their exact two-pass moments) into its running moments; blocks
// merge their threads.  Values are taken relative to ref, a value near the
// data (Chan's merge loses about eps·|mean|/std: with ref subtracted,
// |mean − ref| replaces |mean|).
constexpr int kChunk4 = 4;  // double4 loads per chunk

__global__ void moments_kernel(const double* __restrict__ x, int64_t n, double ref, Moments* __restrict__ out) {
    Moments acc{0, 0, 0};
    const int64_t n16 = n / (4 * kChunk4);
    const double4* x4 = reinterpret_cast<const double4*>(x);
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    for (int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c < n16; c += stride) {
        double v[4 * kChunk4];
#pragma unroll
        for (int j = 0; j < kChunk4; ++j) {
            double4 w = x4[c * kChunk4 + j];
            v[4 * j] = w.x - ref;
            v[4 * j + 1] = w.y - ref;
            v[4 * j + 2] = w.z - ref;
            v[4 * j + 3] = w.w - ref;
        }
        double sum = 0;
#pragma unroll
        for (int j = 0; j < 4 * kChunk4; ++j) sum += v[j];
        const double mu = sum * (1.0 / (4 * kChunk4));
        double q = 0;
#pragma unroll
        for (int j = 0; j < 4 * kChunk4; ++j) q += (v[j] - mu) * (v[j] - mu);
        acc = merge(acc, Moments{4.0 * kChunk4, mu, q});
    }
    const int64_t tail = n16 * 4 * kChunk4;
    if (blockIdx.x == 0 && tail + threadIdx.x < n)  // fewer than 16 values left: n - tail < kThreads
        acc = merge(acc, Moments{1.0, x[tail + threadIdx.x] - ref, 0.0});
    using Reduce = cub::BlockReduce<Moments, kThreads>;
    __shared__ typename Reduce::TempStorage tmp;
    Moments b = Reduce(tmp).Reduce(acc, MergeOp());
    if (threadIdx.x == 0) out[blockIdx.x] = b;
}

// Merges the block moments and writes the outlier rule: center, scale and
// the limit k·scale that the compaction compares against.
__global__ void finish_kernel(const Moments* __restrict__ parts, int count, double ref, double k,
                              double* __restrict__ rule) {
    Moments acc{0, 0, 0};
    for (int i = threadIdx.x; i < count; i += blockDim.x) acc = merge(acc, parts[i]);
    using Reduce = cub::BlockReduce<Moments, kThreads>;
    __shared__ typename Reduce::TempStorage tmp;
    Moments t = Reduce(tmp).Reduce(acc, MergeOp());
    if (threadIdx.x == 0) {
        double var = t.n > 0 ? t.m2 / t.n : 0.0;
        double sd = var > 0 ? sqrt(var) : 0.0;
        rule[0] = ref + t.mean;
        rule[1] = sd;
        rule[2] = k * sd;
    }
}

__global__ void abs_dev(const double* __restrict__ x, int64_t n, double c, double* __restrict__ out) {
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = fabs(x[i] - c);
}

__global__ void abs_dev_sum(const double* __restrict__ x, int64_t n, double c, double* __restrict__ out) {
    double a = 0;
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) a += fabs(x[i] - c);
    using Reduce = cub::BlockReduce<double, kThreads>;
    __shared__ typename Reduce::TempStorage tmp;
    double b = Reduce(tmp).Sum(a);
    if (threadIdx.x == 0) out[blockIdx.x] = b;
}

// Order-preserving compaction in one pass over the series.  A block owns a
// tile of kTile consecutive values: each thread loads its kPerThread values
// first (coalesced), then, round by round, warps ballot the outliers and the
// block writes their positions, in index order, to the tile's own stretch of
// the scratch buffer.  The per-tile counts are then scanned, and a second
// kernel moves each tile's positions (few: outliers are rare) to their place.
// The rule comes from the device: rule[0] = center, rule[2] = limit = k·scale.
constexpr int kPerThread = 16;
constexpr int64_t kTile = int64_t(kThreads) * kPerThread;

__global__ void select_tiles(const double* __restrict__ x, int64_t n, const double* __restrict__ rule,
                             int64_t* __restrict__ scratch, int64_t* __restrict__ tile_count) {
    __shared__ int warp_count[kThreads / 32];
    __shared__ int round_base;
    const double center = rule[0], limit = rule[2];
    const int64_t base = int64_t(blockIdx.x) * kTile;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    double v[kPerThread];
#pragma unroll
    for (int r = 0; r < kPerThread; ++r) {
        int64_t i = base + int64_t(r) * kThreads + threadIdx.x;
        v[r] = i < n ? x[i] : center;  // center is never an outlier
    }
    int written = 0;  // positions this tile has written so far (same in every thread)
#pragma unroll
    for (int r = 0; r < kPerThread; ++r) {
        const bool hit = fabs(v[r] - center) > limit;
        const unsigned ballot = __ballot_sync(0xffffffffu, hit);
        if (lane == 0) warp_count[warp] = __popc(ballot);
        __syncthreads();
        if (threadIdx.x == 0) {
            int acc = 0;
            for (int w = 0; w < kThreads / 32; ++w) {
                int c = warp_count[w];
                warp_count[w] = acc;
                acc += c;
            }
            round_base = acc;
        }
        __syncthreads();
        if (hit) {
            int at = written + warp_count[warp] + __popc(ballot & ((1u << lane) - 1));
            scratch[base + at] = base + int64_t(r) * kThreads + threadIdx.x;
        }
        written += round_base;
        __syncthreads();
    }
    if (threadIdx.x == 0) tile_count[blockIdx.x] = written;
}

__global__ void gather_tiles(const int64_t* __restrict__ scratch, const int64_t* __restrict__ tile_count,
                             const int64_t* __restrict__ tile_offset, int64_t* __restrict__ out) {
    const int64_t c = tile_count[blockIdx.x];
    if (c == 0) return;
    const int64_t from = int64_t(blockIdx.x) * kTile, to = tile_offset[blockIdx.x];
    for (int64_t j = threadIdx.x; j < c; j += blockDim.x) out[to + j] = scratch[from + j];
}

int blocks_for(int64_t n) {
    int64_t b = (n + kThreads * 16 - 1) / (kThreads * 16);
    return static_cast<int>(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
}

size_t sort_temp_bytes(int64_t n, cudaStream_t s) {
    size_t bytes = 0;
    cub::DoubleBuffer<double> keys(nullptr, nullptr);
    check(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, static_cast<int>(n), 0, 64, s),
          "radix sort (sizing)");
    return bytes;
}

// Exact median of d_v (sorted through a double buffer); the formula of tsm::median.
double sorted_median(double* d_v, double* d_alt, int64_t n, Buffer<unsigned char>& temp, cudaStream_t s) {
    cub::DoubleBuffer<double> keys(d_v, d_alt);
    size_t bytes = temp.bytes();
    check(cub::DeviceRadixSort::SortKeys(temp.get(), bytes, keys, static_cast<int>(n), 0, 64, s), "radix sort");
    double mid[2] = {0, 0};
    const double* sorted = keys.Current();
    int64_t lo = n % 2 ? n / 2 : n / 2 - 1;
    check(cudaMemcpyAsync(mid, sorted + lo, (n % 2 ? 1 : 2) * sizeof(double), cudaMemcpyDeviceToHost, s),
          "copy median");
    check(cudaStreamSynchronize(s), "median");
    return n % 2 ? mid[0] : mid[0] + (mid[1] - mid[0]) / 2;
}

}  // namespace

OutlierRule outliers(const double* x, int64_t n, double k, int method, TsExec* ex, TsOutliers* out) {
    use_device(ex);
    if (method == TS_OUTLIERS_MAD && n > 0x7fffffff)
        throw Error(TS_INVALID_ARGUMENT, kInvalidParameter,
                    "the GPU MAD method handles at most 2^31 - 1 values",
                    "Use method 'sigma', or SET tsmine.backend = cpu.");
    const size_t bytes = static_cast<size_t>(n) * sizeof(double);
    const bool mad = method == TS_OUTLIERS_MAD;
    Stream s;

    // Everything is allocated before the clock starts.
    const int64_t tiles = (n + kTile - 1) / kTile;
    size_t scan_bytes = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<int64_t*>(nullptr),
                                        static_cast<int64_t*>(nullptr), tiles, s),
          "scan (sizing)");
    size_t temp_bytes = scan_bytes;
    if (mad) temp_bytes = std::max(temp_bytes, sort_temp_bytes(n, s));
    require_bytes(bytes * (mad ? 4 : 3) + temp_bytes + (1 << 20), "the outlier search");
    Buffer<double> d_x(n, "the series");
    Buffer<int64_t> d_scratch(n, "outlier positions");
    Buffer<int64_t> d_pos(n, "outlier positions");
    Buffer<int64_t> d_tile_count(tiles, "tile counts"), d_tile_offset(tiles + 1, "tile offsets");
    Buffer<unsigned char> temp(temp_bytes, "scratch");
    Buffer<Moments> d_parts(kMaxBlocks, "partial moments");
    Buffer<double> d_rule(4, "outlier rule");
    Buffer<double> d_v;
    if (mad) d_v.allocate(n, "MAD scratch");

    const double t0 = now_ms();
    check(cudaMemcpyAsync(d_x.get(), x, bytes, cudaMemcpyHostToDevice, s), "copy the series to the GPU");
    EventTimer timer(s);
    timer.start();
    const int blocks = blocks_for(n);
    OutlierRule rule;
    double kernel_bytes = 0;
    if (!mad) {
        // ref: the median of three values of the series
        double a = x[0], b = x[n / 2], c = x[n - 1];
        double ref = std::max(std::min(a, b), std::min(std::max(a, b), c));
        moments_kernel<<<blocks, kThreads, 0, s>>>(d_x.get(), n, ref, d_parts.get());
        check(cudaGetLastError(), "moments launch");
        finish_kernel<<<1, kThreads, 0, s>>>(d_parts.get(), blocks, ref, k, d_rule.get());
        check(cudaGetLastError(), "moments launch");
        kernel_bytes += static_cast<double>(bytes);
    } else {
        double* alt = reinterpret_cast<double*>(d_scratch.get());
        check(cudaMemcpyAsync(d_v.get(), d_x.get(), bytes, cudaMemcpyDeviceToDevice, s), "copy for the median");
        double med = sorted_median(d_v.get(), alt, n, temp, s);
        abs_dev<<<blocks, kThreads, 0, s>>>(d_x.get(), n, med, d_v.get());
        check(cudaGetLastError(), "absolute deviations launch");
        double mad_v = sorted_median(d_v.get(), alt, n, temp, s);
        double mean_ad = 0;
        if (!(mad_v > 0)) {
            Buffer<double> parts(blocks, "partial sums");
            abs_dev_sum<<<blocks, kThreads, 0, s>>>(d_x.get(), n, med, parts.get());
            check(cudaGetLastError(), "mean absolute deviation launch");
            std::vector<double> h(blocks);
            check(cudaMemcpyAsync(h.data(), parts.get(), blocks * sizeof(double), cudaMemcpyDeviceToHost, s),
                  "copy partial sums");
            check(cudaStreamSynchronize(s), "mean absolute deviation");
            mean_ad = pairwise_sum(h.data(), h.size()) / static_cast<double>(n);
        }
        rule = mad_rule(med, mad_v, mean_ad);
        double h_rule[4] = {rule.center, rule.scale, k * rule.scale, 0};
        check(cudaMemcpyAsync(d_rule.get(), h_rule, sizeof h_rule, cudaMemcpyHostToDevice, s), "copy rule");
        check(cudaStreamSynchronize(s), "copy rule");
        // two radix sorts (8 passes of 8 bits, read + write each), two copies, the deviations
        kernel_bytes += static_cast<double>(bytes) * (2 * 8 * 2 + 2 + 2);
    }
    // Order-preserving compaction of the positions (a constant series selects nothing).
    select_tiles<<<static_cast<unsigned>(tiles), kThreads, 0, s>>>(d_x.get(), n, d_rule.get(), d_scratch.get(),
                                                                   d_tile_count.get());
    check(cudaGetLastError(), "selection launch");
    size_t sb = temp.bytes();
    check(cub::DeviceScan::ExclusiveSum(temp.get(), sb, d_tile_count.get(), d_tile_offset.get(), tiles, s), "scan");
    gather_tiles<<<static_cast<unsigned>(tiles), 64, 0, s>>>(d_scratch.get(), d_tile_count.get(), d_tile_offset.get(),
                                                             d_pos.get());
    check(cudaGetLastError(), "gather launch");
    kernel_bytes += static_cast<double>(bytes) + 3.0 * tiles * sizeof(int64_t);
    timer.stop();
    double h_rule[4] = {0, 0, 0, 0};
    int64_t count = 0;
    check(cudaMemcpyAsync(h_rule, d_rule.get(), sizeof h_rule, cudaMemcpyDeviceToHost, s), "copy rule");
    int64_t last[2] = {0, 0};
    check(cudaMemcpyAsync(&last[0], d_tile_offset.get() + tiles - 1, sizeof(int64_t), cudaMemcpyDeviceToHost, s),
          "copy outlier count");
    check(cudaMemcpyAsync(&last[1], d_tile_count.get() + tiles - 1, sizeof(int64_t), cudaMemcpyDeviceToHost, s),
          "copy outlier count");
    s.sync("outlier search");
    count = last[0] + last[1];
    ex->kernel_ms = timer.ms();
    if (!mad) {
        rule.center = h_rule[0];
        rule.scale = h_rule[1];
        rule.scale_rule = rule.scale > 0 ? 0 : 3;
    }
    if (!(rule.scale > 0)) count = 0;
    out->count = count;
    out->pos = alloc_result<int64_t>(ex, count);
    if (count) {
        check(cudaMemcpyAsync(out->pos, d_pos.get(), count * sizeof(int64_t), cudaMemcpyDeviceToHost, s),
              "copy outlier positions");
        s.sync("copy outlier positions");
    }
    ex->device_bytes = kernel_bytes + 3.0 * count * sizeof(int64_t);
    ex->device_ms = now_ms() - t0;
    return rule;
}

}  // namespace gpu
}  // namespace tsm
