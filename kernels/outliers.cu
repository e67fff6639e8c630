// outliers.cu — k-sigma and MAD outliers on the GPU.
//   sigma: two kernels, two passes over the series, no host round trip.
//     1. moments_kernel: Chan-merged moments (count, mean, Σ(x−mean)²) per
//        thread and block; the last block to finish (a fence and an atomic
//        ticket) merges the blocks' moments in block order and writes the
//        rule (mean, std, k·std) to the device.
//     2. compact_kernel: an order-preserving compaction of the outlier
//        positions in one pass, by a decoupled look-back over tiles (each
//        tile publishes its count, then finds the count of the tiles before
//        it from their published values), so that there is no separate scan
//        or gather.
//   mad: exact median and MAD by radix sorts, then the same compaction.
//
// Bandwidth: both kernels read the series with 16-byte loads, each warp a
// contiguous stretch (8 or 16 loads of 512 bytes in flight per warp), pass 1
// with as many blocks as fit on the device at once.  The sigma kernels are
// launched as one CUDA graph with their timing events (TSM_OUTLIERS_GRAPH).
// Pass 1 goes from the end of the series to its start (the end is what the
// copy to the device wrote last) and leaves the start of the series in the L2
// cache (normal loads for its first TSM_OUTLIERS_KEEP_MB, evict-first for
// the rest); pass 2 goes from the start to the end.  Measured on an H100 the
// L2 part is small (L2 hit rates of 5-10% at 2^24; no difference at 2^26 and
// 2^28 with the keep turned off).  When the kernels are launched one by one
// on sm_90, pass 2 is a programmatic dependent launch: its first blocks start
// while pass 1 drains, load their tile, and only then wait for pass 1
// (griddepcontrol.wait) before they read the rule (no measurable difference
// either; kept because it costs nothing).
#include <cub/cub.cuh>

#include <algorithm>
#include <vector>

#include "gpu_runtime.h"
#include "outliers.h"
#include "stats.h"

// Tuning knobs (compile-time): bytes of the series' start that pass 1 leaves
// in L2 for pass 2, and whether pass 2 is a programmatic dependent launch.
#ifndef TSM_OUTLIERS_KEEP_MB
#define TSM_OUTLIERS_KEEP_MB 20
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
constexpr int kLoads = 8;                          // pass 1: double2 loads per thread per step
constexpr int64_t kWarpSpan = 32 * 2 * kLoads;     // 512 values: one warp step of pass 1
constexpr int kTileLoads = 16;                     // pass 2: double2 loads per thread per tile
constexpr int64_t kWarpTile = 32 * 2 * kTileLoads; // 1024 values: a warp's share of a tile
constexpr int64_t kTile = kWarps * kWarpTile;      // 8192 values: one compaction tile
constexpr int64_t kKeepSteps = int64_t(TSM_OUTLIERS_KEEP_MB) * (1 << 20) / (kWarpSpan * 8);

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

// What the kernels share on the device; all zero before pass 1 (a memset at
// allocation).  center, scale and limit are the rule (limit = k·scale,
// written by pass 1 or, for mad, by the host); count is the number of
// outliers (written by the last tile of the look-back).
struct Ctrl {
    unsigned int done;    // pass-1 blocks finished
    unsigned int ticket;  // pass-2 tiles claimed
    long long count;
    double center, scale, limit;
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

// Pass 1.  Each warp folds steps of 512 consecutive values (lane l takes
// values 64j + 2l, 64j + 2l + 1, j = 0..7) into its lanes' running moments:
// per step, a thread's 16 values get their exact two-pass moments, then one
// Chan merge.  Steps are taken from the end of the series to its start.
// Values are taken relative to ref, a value near the data (Chan's merge loses
// about eps·|mean|/std: with ref subtracted, |mean − ref| replaces |mean|).
// Also clears pass 2's tile states.
__global__ void __launch_bounds__(kThreads) moments_kernel(const double* __restrict__ x, int64_t n, double ref,
                                                           double k, Moments* __restrict__ parts, Ctrl* ctrl,
                                                           unsigned long long* __restrict__ state, int64_t tiles) {
    allow_dependent_launch();
    const int64_t gtid = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    const int64_t gthreads = int64_t(gridDim.x) * kThreads;
    for (int64_t t = gtid; t < tiles; t += gthreads) state[t] = 0;

    Moments acc{0, 0, 0};
    const int lane = threadIdx.x & 31;
    const int64_t steps = n / kWarpSpan, warps = gthreads / 32;
    for (int64_t i = steps * kWarpSpan + gtid; i < n; i += gthreads)  // the last n mod 512 values
        acc = merge(acc, Moments{1.0, x[i] - ref, 0.0});
    const double2* x2 = reinterpret_cast<const double2*>(x);
    for (int64_t r = gtid / 32; r < steps; r += warps) {
        const int64_t s = steps - 1 - r;
        const double2* p = x2 + s * (kWarpSpan / 2) + lane;
        double2 w[kLoads];
        if (s >= kKeepSteps) {
#pragma unroll
            for (int j = 0; j < kLoads; ++j) w[j] = __ldcs(p + 32 * j);
        } else {
#pragma unroll
            for (int j = 0; j < kLoads; ++j) w[j] = __ldg(p + 32 * j);
        }
        double sum = 0;
#pragma unroll
        for (int j = 0; j < kLoads; ++j) sum += (w[j].x - ref) + (w[j].y - ref);
        const double mu = sum * (1.0 / (2 * kLoads));
        double q = 0;
#pragma unroll
        for (int j = 0; j < kLoads; ++j) {
            const double a = (w[j].x - ref) - mu, b = (w[j].y - ref) - mu;
            q += a * a + b * b;
        }
        acc = merge(acc, Moments{2.0 * kLoads, mu, q});
    }

    using Reduce = cub::BlockReduce<Moments, kThreads>;
    __shared__ typename Reduce::TempStorage tmp;
    __shared__ bool last;
    Moments b = Reduce(tmp).Reduce(acc, MergeOp());
    if (threadIdx.x == 0) {
        parts[blockIdx.x] = b;
        __threadfence();
        last = atomicAdd(&ctrl->done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    // The last block: merge every block's moments, in block order.
    __threadfence();
    Moments m{0, 0, 0};
    for (unsigned i = threadIdx.x; i < gridDim.x; i += kThreads) {
        const Moments p{__ldcg(&parts[i].n), __ldcg(&parts[i].mean), __ldcg(&parts[i].m2)};
        m = merge(m, p);
    }
    __syncthreads();  // tmp is reused
    Moments t = Reduce(tmp).Reduce(m, MergeOp());
    if (threadIdx.x == 0) {
        const double var = t.n > 0 ? t.m2 / t.n : 0.0;
        const double sd = var > 0 ? sqrt(var) : 0.0;
        ctrl->center = ref + t.mean;
        ctrl->scale = sd;
        ctrl->limit = k * sd;
    }
}

// Pass 2: order-preserving compaction of the positions i with
// |x[i] − center| > limit into out[0, count), ascending; ctrl->count gets
// their number.  A block claims the next tile by an atomic ticket (so every
// tile it waits for in the look-back belongs to a block already running: no
// deadlock), loads it, and only then waits for pass 1 and reads the rule.
// Within a tile, warp w holds values [1024w, 1024w + 1024), lane l values
// 64j + 2l, 64j + 2l + 1 of it (j = 0..15): index order is (warp, j, lane, x/y).
__global__ void __launch_bounds__(kThreads) compact_kernel(const double* __restrict__ x, int64_t n, int64_t tiles,
                                                           Ctrl* ctrl, unsigned long long* state,
                                                           int64_t* __restrict__ out) {
    __shared__ unsigned s_tile;
    __shared__ int s_warp[kWarps];
    __shared__ long long s_start;  // out index of this tile's first position
    if (threadIdx.x == 0) s_tile = atomicAdd(&ctrl->ticket, 1u);
    __syncthreads();
    const int64_t tile = s_tile;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t wbase = tile * kTile + int64_t(warp) * kWarpTile;

    double2 w[kTileLoads];
    const bool full = wbase + kWarpTile <= n;
    if (full) {
        const double2* p = reinterpret_cast<const double2*>(x + wbase) + lane;
#pragma unroll
        for (int j = 0; j < kTileLoads; ++j) w[j] = __ldcs(p + 32 * j);
    }
    wait_for_prerequisite_grid();  // pass 1 complete: the rule and the cleared states are there
    const double center = ctrl->center, limit = ctrl->limit;
    if (!full) {
#pragma unroll
        for (int j = 0; j < kTileLoads; ++j) {
            const int64_t i = wbase + 64 * j + 2 * lane;
            w[j].x = i < n ? x[i] : center;  // center is never an outlier
            w[j].y = i + 1 < n ? x[i + 1] : center;
        }
    }
    unsigned hits = 0;  // bit 2j: w[j].x, bit 2j + 1: w[j].y
#pragma unroll
    for (int j = 0; j < kTileLoads; ++j) {
        hits |= unsigned(fabs(w[j].x - center) > limit) << (2 * j);
        hits |= unsigned(fabs(w[j].y - center) > limit) << (2 * j + 1);
    }
    const int warp_count = __reduce_add_sync(0xffffffffu, __popc(hits));
    if (lane == 0) s_warp[warp] = warp_count;
    __syncthreads();

    if (warp == 0) {
        const int own = lane < kWarps ? s_warp[lane] : 0;
        int incl = own;
#pragma unroll
        for (int o = 1; o < kWarps; o <<= 1) {
            const int v = __shfl_up_sync(0xffffffffu, incl, o);
            if (lane >= o) incl += v;
        }
        const long long total = __shfl_sync(0xffffffffu, incl, kWarps - 1);
        if (lane < kWarps) s_warp[lane] = incl - own;  // exclusive offsets of the warps
        // The count of the tiles before this one.
        long long before = 0;
        if (tile > 0) {
            if (lane == 0) store_state(&state[tile], kAggregate | total);
            int64_t j = tile - 1;  // lane l looks at tile j − l
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
                if (inclusive) break;
                j -= 32;
            }
        }
        if (lane == 0) {
            store_state(&state[tile], kInclusive | static_cast<unsigned long long>(before + total));
            s_start = before;
            if (tile == tiles - 1) ctrl->count = before + total;
        }
    }
    __syncthreads();
    if (warp_count == 0) return;
    // This warp's positions, in index order (j, lane, x/y).
    int64_t at = s_start + s_warp[warp];
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

// Grid of the simple grid-stride kernels of the mad method.
int blocks_for(int64_t n) {
    constexpr int64_t kMaxBlocks = 2048;
    int64_t b = (n + kThreads * 16 - 1) / (kThreads * 16);
    return static_cast<int>(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
}

// Pass 1's grid: as many blocks as are resident on the device at once (each
// runs to the end of the series), fewer for short series.  Querying the
// kernels here also loads them (lazy module loading) before the clock starts.
int moments_blocks(int64_t n) {
    int dev = 0, sms = 0, per_sm = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, moments_kernel, kThreads, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    const int64_t resident = int64_t(std::max(sms, 1)) * std::max(per_sm, 1);
    const int64_t per_block = int64_t(kThreads) * 2 * kLoads;  // at least one 16-value step per thread
    const int64_t useful = (n + per_block - 1) / per_block;
    return static_cast<int>(std::max<int64_t>(1, std::min(resident, useful)));
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

// Launches pass 2 (with pdl: as a programmatic dependent launch).
cudaError_t launch_compact(cudaStream_t s, const double* x, int64_t n, int64_t tiles, Ctrl* ctrl,
                           unsigned long long* state, int64_t* pos, bool pdl) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(static_cast<unsigned>(tiles));
    cfg.blockDim = dim3(kThreads);
    cfg.stream = s;
    cudaLaunchAttribute pdl_attr[1];
    pdl_attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    pdl_attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = pdl_attr;
    cfg.numAttrs = pdl ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, compact_kernel, x, n, tiles, ctrl, state, pos);
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
bool capture_sigma(Graph& g, cudaStream_t s, Events& ev, int blocks, const double* x, int64_t n, double ref,
                   double k, Moments* parts, Ctrl* ctrl, unsigned long long* state, int64_t tiles, int64_t* pos) {
    if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    bool ok = cudaEventRecordWithFlags(ev.start, s, cudaEventRecordExternal) == cudaSuccess;
    if (ok) {
        moments_kernel<<<blocks, kThreads, 0, s>>>(x, n, ref, k, parts, ctrl, state, tiles);
        ok = cudaGetLastError() == cudaSuccess;
    }
    ok = ok && launch_compact(s, x, n, tiles, ctrl, state, pos, false) == cudaSuccess;
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

    // Everything is allocated (and the kernels loaded) before the clock starts.
    const int64_t tiles = (n + kTile - 1) / kTile;
    const int blocks = mad ? 1 : moments_blocks(n);
    cudaFuncAttributes attr;
    check(cudaFuncGetAttributes(&attr, compact_kernel), "cudaFuncGetAttributes");
    int dev = 0, cc_major = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, dev), "cudaDeviceGetAttribute");
    const bool pdl = TSM_OUTLIERS_PDL && cc_major >= 9;  // programmatic dependent launch: sm_90 and later
    const size_t temp_bytes = mad ? sort_temp_bytes(n, s) : 0;
    require_bytes(bytes * (mad ? 3 : 2) + temp_bytes + tiles * sizeof(unsigned long long) + (1 << 20),
                  "the outlier search");
    Buffer<double> d_x(n, "the series");
    Buffer<int64_t> d_pos(n, "outlier positions");
    Buffer<unsigned long long> d_state(tiles, "tile states");
    Buffer<Ctrl> d_ctrl(1, "outlier rule");
    Buffer<Moments> d_parts(blocks, "partial moments");
    Buffer<unsigned char> temp;
    Buffer<double> d_v;
    if (mad) {
        temp.allocate(temp_bytes, "scratch");
        d_v.allocate(n, "MAD scratch");
    }
    // ref: the median of three values of the series
    double ref = 0;
    if (!mad) {
        const double a = x[0], b = x[n / 2], c = x[n - 1];
        ref = std::max(std::min(a, b), std::min(std::max(a, b), c));
    }
    Events ev;
    Graph graph;
    const bool graphed = !mad && TSM_OUTLIERS_GRAPH &&
                         capture_sigma(graph, s, ev, blocks, d_x.get(), n, ref, k, d_parts.get(), d_ctrl.get(),
                                       d_state.get(), tiles, d_pos.get());
    check(cudaMemsetAsync(d_ctrl.get(), 0, sizeof(Ctrl), s), "clear the outlier rule");

    const double t0 = now_ms();
    check(cudaMemcpyAsync(d_x.get(), x, bytes, cudaMemcpyHostToDevice, s), "copy the series to the GPU");
    OutlierRule rule;
    double kernel_bytes = 0;
    if (graphed) {
        check(cudaGraphLaunch(graph.exec, s), "outlier search launch");
        kernel_bytes += static_cast<double>(bytes) + tiles * sizeof(unsigned long long);
    } else {
        check(cudaEventRecord(ev.start, s), "cudaEventRecord");
        if (!mad) {
            moments_kernel<<<blocks, kThreads, 0, s>>>(d_x.get(), n, ref, k, d_parts.get(), d_ctrl.get(),
                                                       d_state.get(), tiles);
            check(cudaGetLastError(), "moments launch");
            kernel_bytes += static_cast<double>(bytes) + tiles * sizeof(unsigned long long);
        } else {
            double* alt = reinterpret_cast<double*>(d_pos.get());  // free until the compaction
            check(cudaMemcpyAsync(d_v.get(), d_x.get(), bytes, cudaMemcpyDeviceToDevice, s), "copy for the median");
            double med = sorted_median(d_v.get(), alt, n, temp, s);
            const int mb = blocks_for(n);
            abs_dev<<<mb, kThreads, 0, s>>>(d_x.get(), n, med, d_v.get());
            check(cudaGetLastError(), "absolute deviations launch");
            double mad_v = sorted_median(d_v.get(), alt, n, temp, s);
            double mean_ad = 0;
            if (!(mad_v > 0)) {
                Buffer<double> parts(mb, "partial sums");
                abs_dev_sum<<<mb, kThreads, 0, s>>>(d_x.get(), n, med, parts.get());
                check(cudaGetLastError(), "mean absolute deviation launch");
                std::vector<double> h(mb);
                check(cudaMemcpyAsync(h.data(), parts.get(), mb * sizeof(double), cudaMemcpyDeviceToHost, s),
                      "copy partial sums");
                check(cudaStreamSynchronize(s), "mean absolute deviation");
                mean_ad = pairwise_sum(h.data(), h.size()) / static_cast<double>(n);
            }
            rule = mad_rule(med, mad_v, mean_ad);
            const Ctrl h{0, 0, 0, rule.center, rule.scale, k * rule.scale};
            check(cudaMemcpyAsync(d_ctrl.get(), &h, sizeof h, cudaMemcpyHostToDevice, s), "copy rule");
            check(cudaMemsetAsync(d_state.get(), 0, tiles * sizeof(unsigned long long), s), "clear tile states");
            check(cudaStreamSynchronize(s), "copy rule");
            // two radix sorts (8 passes of 8 bits, read + write each), two copies, the deviations
            kernel_bytes += static_cast<double>(bytes) * (2 * 8 * 2 + 2 + 2);
        }
        // Order-preserving compaction of the positions (a constant series selects nothing).
        check(launch_compact(s, d_x.get(), n, tiles, d_ctrl.get(), d_state.get(), d_pos.get(), !mad && pdl),
              "compaction launch");
        check(cudaGetLastError(), "compaction launch");
        check(cudaEventRecord(ev.stop, s), "cudaEventRecord");
    }
    Ctrl h{};
    check(cudaMemcpyAsync(&h, d_ctrl.get(), sizeof h, cudaMemcpyDeviceToHost, s), "copy the outlier rule");
    s.sync("outlier search");
    int64_t count = h.count;
    ex->kernel_ms = ev.ms();
    if (!mad) {
        rule.center = h.center;
        rule.scale = h.scale;
        rule.scale_rule = rule.scale > 0 ? 0 : 3;
    }
    if (!(rule.scale > 0)) count = 0;
    if (count < 0 || count > n) throw Error(TS_INTERNAL, kInternal, "the GPU outlier count is out of range");
    kernel_bytes += static_cast<double>(bytes) + 2.0 * tiles * sizeof(unsigned long long) +
                    static_cast<double>(count) * sizeof(int64_t);
    out->count = count;
    out->pos = alloc_result<int64_t>(ex, count);
    if (count) {
        check(cudaMemcpyAsync(out->pos, d_pos.get(), count * sizeof(int64_t), cudaMemcpyDeviceToHost, s),
              "copy outlier positions");
        s.sync("copy outlier positions");
    }
    ex->device_bytes = kernel_bytes;
    ex->device_ms = now_ms() - t0;
    return rule;
}

}  // namespace gpu
}  // namespace tsm
