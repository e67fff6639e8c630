// match.cu — similarity search on the GPU: the pattern's distance to every
// window (a warp per window: motif::warp_zdist, the CPU's distance bit for
// bit, motifs_detail.h), sorted by (distance, position) with CUB's stable
// radix sort; the greedy non-overlap pass is the host's (match_greedy).  Also
// the WindowProfiler of the GPU (motifs.h): exact distance profiles of single
// windows, distances of given pairs (a warp per pair), and exact nearest
// neighbours (a grid of warps over the columns of each window, merged by
// motif::nearer in a fixed order: the CPU's answer whatever the schedule).
// Raw values (normalized => false): the same with motif::warp_raw_sumsq.
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "motifs.h"

namespace tsm {
namespace gpu {

namespace {

using motif::grid_for;
using motif::launched;

// The distance of windows a and b by a whole warp: z-normalised
// (motif::warp_zdist, with their statistics) or, raw (warp-uniform), the
// raw-value distance (motif::warp_raw_sumsq: the CPU's bits); +inf once d²
// is known to exceed lim2.
__device__ __forceinline__ double warp_distance(bool raw, const double* __restrict__ a, double mua, double inva,
                                                bool ca, const double* __restrict__ b, double mub, double invb,
                                                bool cb, int m, int lane, double lim2 = (double)INFINITY) {
    if (raw) return motif::raw_distance_of(motif::warp_raw_sumsq(a, b, m, lane, lim2));
    return motif::warp_zdist(a, mua, inva, ca, b, mub, invb, cb, m, lane, lim2);
}

// dist[j] = d(query, window j); the query is either window q of x
// (qx = x + q with its statistics) or a pattern.
__global__ void k_profile(const double* __restrict__ x, int64_t N, int m, const double* __restrict__ mean,
                          const double* __restrict__ inv, const uint8_t* __restrict__ cst,
                          const double* __restrict__ qx, const double* __restrict__ qstat, bool raw, double* dist) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
    const double qmu = qstat[0], qinv = qstat[1];
    const bool qc = qstat[2] != 0;
    for (int64_t j = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32; j < N; j += warps) {
        const double d = warp_distance(raw, qx, qmu, qinv, qc, x + j, mean[j], inv[j], cst[j], m, lane);
        if (lane == 0) dist[j] = d;
    }
}

__global__ void k_pattern_stat(const double* p, int m, double* qstat) {
    double mu, inv;
    uint8_t c;
    motif::window_zstat(p, m, &mu, &inv, &c);
    qstat[0] = mu;
    qstat[1] = inv;
    qstat[2] = c;
}

__global__ void k_window_stat_of(const double* __restrict__ mean, const double* __restrict__ inv,
                                 const uint8_t* __restrict__ cst, int64_t q, double* qstat) {
    qstat[0] = mean[q];
    qstat[1] = inv[q];
    qstat[2] = cst[q];
}

// out[t] = d(a[t], b[t]) (a null: a[t] = t; b[t] < 0: +inf): a warp per pair.
__global__ void k_pairs(const double* __restrict__ x, int m, const double* __restrict__ mean,
                        const double* __restrict__ inv, const uint8_t* __restrict__ cst, bool raw, const int64_t* a,
                        const int64_t* b, int64_t count, double* out) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t t = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32; t < count; t += warps) {
        const int64_t i = a ? a[t] : t, j = b[t];
        double d = (double)INFINITY;
        if (j >= 0)  // warp-uniform
            d = warp_distance(raw, x + i, mean[i], inv[i], cst[i], x + j, mean[j], inv[j], cst[j], m, lane);
        if (lane == 0) out[t] = d;
    }
}

constexpr int kNearestThreads = 256;

// Window w[blockIdx.y]'s nearest neighbour among the columns its block's warps
// take (warp g of G takes j ≡ g mod G, ascending), pairs abandoned beyond the
// smaller of upper and the warp's best; the block's best into part.  Every
// warp of the window stops once one found a pair below floor (below[y]).
__global__ void __launch_bounds__(kNearestThreads) k_nearest_part(
    const double* __restrict__ x, int64_t N, int m, const double* __restrict__ mean, const double* __restrict__ inv,
    const uint8_t* __restrict__ cst, bool raw, const int64_t* __restrict__ w, int64_t excl,
    const double* __restrict__ upper, double floor, int* below, double slack, double* part_d, int64_t* part_j) {
    __shared__ double sd[kNearestThreads / 32];
    __shared__ int64_t sj[kNearestThreads / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, per_block = kNearestThreads / 32;
    const int64_t i = w[blockIdx.y];
    const double mi = mean[i], vi = inv[i], lim = upper[blockIdx.y];
    const bool ci = cst[i];
    double bd = (double)INFINITY;
    int64_t bj = -1;
    const int64_t G = (int64_t)gridDim.x * per_block;
    volatile int* stop = below + blockIdx.y;
    for (int64_t j = (int64_t)blockIdx.x * per_block + warp; j < N; j += G) {
        if (__shfl_sync(motif::kFullMask, *stop, 0)) break;  // warp-uniform
        if (!motif::far_enough(i, j, excl)) continue;  // warp-uniform
        const double lim2 = motif::abandon_limit2(fmin(lim, bd), slack);
        const double d = warp_distance(raw, x + i, mi, vi, ci, x + j, mean[j], inv[j], cst[j], m, lane, lim2);
        if (d < (double)INFINITY && motif::nearer(d, j, bd, bj)) {
            bd = d;
            bj = j;
        }
        if (d < floor && lane == 0) *stop = 1;
    }
    if (lane == 0) {
        sd[warp] = bd;
        sj[warp] = bj;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int v = 1; v < per_block; ++v)
            if (motif::nearer(sd[v], sj[v], bd, bj)) {
                bd = sd[v];
                bj = sj[v];
            }
        part_d[(int64_t)blockIdx.y * gridDim.x + blockIdx.x] = bd;
        part_j[(int64_t)blockIdx.y * gridDim.x + blockIdx.x] = bj;
    }
}

// The blocks (parts) of each window's search: 2,048 columns a block (256 a
// warp), or, for a small batch of short series, as many as bring the batch
// to about kNearestMinBlocks (four an SM) with at least 64 columns a block
// (a warp's columns are one after the other: with 256 columns a block, one
// window of TEK16's 4,873 had 20 blocks, and the warm-up's and the call's
// searches took 123 µs on an H100; 41 µs now, bench/RESULTS.md);
// at most about 2^12 blocks in all (count · parts <= max(count, 4096)).  The
// parts change no result (nearer is a total order; merged in block order).
constexpr int64_t kNearestMinBlocks = 512;
inline int nearest_parts(int64_t N, int64_t count) {
    const int64_t wide = (N + 2047) / 2048, narrow = std::min<int64_t>((N + 63) / 64, kNearestMinBlocks / count);
    return (int)std::max<int64_t>(1, std::min<int64_t>(std::max(wide, narrow), 4096 / count));
}

// The parts of each window merged in block order: a thread per window.
__global__ void k_nearest_merge(const double* part_d, const int64_t* part_j, int parts, int64_t count,
                                double* dist, int64_t* index) {
    const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (t >= count) return;
    double bd = (double)INFINITY;
    int64_t bj = -1;
    for (int p = 0; p < parts; ++p)
        if (motif::nearer(part_d[t * parts + p], part_j[t * parts + p], bd, bj)) {
            bd = part_d[t * parts + p];
            bj = part_j[t * parts + p];
        }
    dist[t] = bd;
    index[t] = bj;
}

__global__ void k_iota64(int64_t* v, int64_t N) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < N; i += (int64_t)gridDim.x * blockDim.x)
        v[i] = i;
}

// The series on the device with its window statistics, in one allocation
// (with what `more` reserves in it: a caller's arrays, for one cudaMalloc and
// one cudaFree); scale_exp ≠ 0: the series x·2^scale_exp, scaled on the
// device (motif::k_scale: unit_scaled's bits), so the host needs no scaled copy.
struct DeviceSeries {
    int64_t n, N;
    int m;
    bool raw;  // raw-value distances (the statistics are then unused)
    Arena ar;
    double *x = nullptr, *mean = nullptr, *inv = nullptr, *qstat = nullptr, *dist = nullptr;
    uint8_t* cst = nullptr;
    DeviceSeries(const double* hx, int64_t n_, int m_, bool raw_, cudaStream_t st, const TsExec* ex,
                 int scale_exp = 0, const std::function<void(Arena&)>& more = nullptr)
        : n(n_), N(n_ - m_ + 1), m(m_), raw(raw_) {
        const size_t o_x = ar.take<double>(n), o_mean = ar.take<double>(N), o_inv = ar.take<double>(N);
        const size_t o_cst = ar.take<uint8_t>(N), o_qstat = ar.take<double>(3), o_dist = ar.take<double>(N);
        if (more) more(ar);
        require_bytes(ar.off + (1u << 20), "distance profile");
        ar.allocate("distance profile");
        x = ar.at<double>(o_x), mean = ar.at<double>(o_mean), inv = ar.at<double>(o_inv);
        cst = ar.at<uint8_t>(o_cst), qstat = ar.at<double>(o_qstat), dist = ar.at<double>(o_dist);
        check(cudaMemcpyAsync(x, hx, n * sizeof(double), cudaMemcpyHostToDevice, st), "copy series");
        if (scale_exp != 0) {
            motif::k_scale<<<grid_for(n, 256), 256, 0, st>>>(x, n, scale_exp);
            launched("scaling");
        }
        motif::k_window_zstats<<<grid_for(N, 256), 256, 0, st>>>(x, N, m, mean, inv, cst);
        launched("window statistics");
    }
    // the profile of query qx (device pointer; qstat filled) into dist
    void profile(const double* qx, cudaStream_t st) {
        k_profile<<<grid_for(N * 32, 256, 16384), 256, 0, st>>>(x, N, m, mean, inv, cst, qx, qstat, raw, dist);
        launched("distance profile");
    }
};

// The profiler's inputs and outputs on the device, reserved in its series'
// allocation (DeviceSeries' `more`) for its life: N windows or pairs a call
// at most, and the parts of nearest's merge (count · parts <= max(N, 4096),
// see nearest).  A call's inputs are one upload into `in` and its results
// one download from `res` (8-byte words: two arrays of count one after the
// other), since each copy of pageable memory costs the host its own wait.
struct ProfilerScratch {
    uint64_t *in = nullptr, *res = nullptr;  // 2N words each
    int64_t* part_j = nullptr;
    double* part_d = nullptr;
    int* below = nullptr;  // nearest: a window's search found a pair below floor
    void reserve(Arena& ar, int64_t N) {
        const int64_t P = std::max<int64_t>(N, 4096);
        ar.reserve(below, N);
        ar.reserve(in, 2 * N);
        ar.reserve(res, 2 * N);
        ar.reserve(part_d, P);
        ar.reserve(part_j, P);
    }
};

// Two host arrays of count 8-byte values as one run of words (one upload).
template <class T, class U>
std::vector<uint64_t> packed(const T* first, const U* second, int64_t count) {
    static_assert(sizeof(T) == 8 && sizeof(U) == 8, "8-byte values");
    std::vector<uint64_t> words(2 * count);
    std::memcpy(words.data(), first, count * 8);
    std::memcpy(words.data() + count, second, count * 8);
    return words;
}

class GpuProfiler : public WindowProfiler {
  public:
    GpuProfiler(const double* x, int64_t n, int m, TsExec* ex, bool raw, int scale_exp)
        : ex_(ex), s_(x, n, m, raw, st_, ex, scale_exp, [&](Arena& ar) { w_.reserve(ar, n - m + 1); }) {}
    void profile(int64_t i, double* out) override {
        const double t0 = now_ms();
        k_window_stat_of<<<1, 1, 0, st_>>>(s_.mean, s_.inv, s_.cst, i, s_.qstat);
        launched("query statistics");
        s_.profile(s_.x + i, st_);
        wait(st_, ex_);
        check(cudaMemcpy(out, s_.dist, s_.N * sizeof(double), cudaMemcpyDeviceToHost), "copy profile");
        ex_->device_ms += now_ms() - t0;
    }
    void pair_distances(const int64_t* a, const int64_t* b, int64_t count, double* out) override {
        if (count == 0) return;
        const double t0 = now_ms();
        fits(count);
        const int64_t* da = reinterpret_cast<const int64_t*>(w_.in);  // [a, b] or [b]
        if (a) upload(w_.in, packed(a, b, count).data(), 2 * count);
        else upload(w_.in, reinterpret_cast<const uint64_t*>(b), count);
        double* dout = reinterpret_cast<double*>(w_.res);
        k_pairs<<<grid_for(count * 32, 256), 256, 0, st_>>>(s_.x, s_.m, s_.mean, s_.inv, s_.cst, s_.raw,
                                                           a ? da : nullptr, a ? da + count : da, count, dout);
        launched("pair distances");
        download(out, dout, count);
        ex_->device_ms += now_ms() - t0;
    }
    void nearest(const int64_t* w, int64_t count, int64_t excl, const double* upper, double floor, double* dist,
                 int64_t* index) override {
        if (count == 0) return;
        const double t0 = now_ms();
        fits(count);
        upload(w_.in, packed(w, upper, count).data(), 2 * count);  // [w, upper]
        const int64_t* dw = reinterpret_cast<const int64_t*>(w_.in);
        const double* dupper = reinterpret_cast<const double*>(w_.in + count);
        check(cudaMemsetAsync(w_.below, 0, count * sizeof(int), st_), "cudaMemsetAsync");
        const int parts = nearest_parts(s_.N, count);
        k_nearest_part<<<dim3((unsigned)parts, (unsigned)count), kNearestThreads, 0, st_>>>(
            s_.x, s_.N, s_.m, s_.mean, s_.inv, s_.cst, s_.raw, dw, excl, dupper, floor, w_.below,
            motif::pruning_slack(s_.m), w_.part_d, w_.part_j);
        launched("nearest neighbours");
        double* ddist = reinterpret_cast<double*>(w_.res);  // [dist, index]
        int64_t* dindex = reinterpret_cast<int64_t*>(w_.res + count);
        k_nearest_merge<<<grid_for(count, 256), 256, 0, st_>>>(w_.part_d, w_.part_j, parts, count, ddist, dindex);
        launched("nearest neighbours");
        std::vector<uint64_t> got(2 * count);
        wait(st_, ex_);
        check(cudaMemcpy(got.data(), w_.res, 2 * count * sizeof(uint64_t), cudaMemcpyDeviceToHost), "copy neighbours");
        std::memcpy(dist, got.data(), count * sizeof(double));
        std::memcpy(index, got.data() + count, count * sizeof(int64_t));
        ex_->device_ms += now_ms() - t0;
    }

  private:
    void fits(int64_t count) const {
        if (count > s_.N) throw Error(TS_INTERNAL, kInternal, "window profiler: more pairs than windows");
    }
    template <class T>
    void upload(T* dev, const T* host, int64_t count) {
        check(cudaMemcpyAsync(dev, host, count * sizeof(T), cudaMemcpyHostToDevice, st_), "copy input");
    }
    void download(double* host, const double* dev, int64_t count) {
        wait(st_, ex_);
        check(cudaMemcpy(host, dev, count * sizeof(double), cudaMemcpyDeviceToHost), "copy distances");
    }

    TsExec* ex_;
    Stream st_;
    ProfilerScratch w_;  // in s_'s allocation: declared first, bound when s_ allocates
    DeviceSeries s_;
};

}  // namespace

std::unique_ptr<WindowProfiler> make_window_profiler(const double* x, int64_t n, int m, TsExec* ex, bool raw,
                                                     int scale_exp) {
    use_device(ex);
    return std::unique_ptr<WindowProfiler>(new GpuProfiler(x, n, m, ex, raw, scale_exp));
}

void match_sorted(const double* x, int64_t n, const double* pattern, int m, double max_distance, TsExec* ex,
                  std::vector<double>& d_sorted, std::vector<int64_t>& pos_sorted, bool raw) {
    use_device(ex);
    const double t0 = now_ms();
    Stream st;
    EventTimer timer(st);
    DeviceSeries s(x, n, m, raw, st, ex);
    const int64_t N = s.N;
    Buffer<double> dp(m, "pattern");
    check(cudaMemcpyAsync(dp.get(), pattern, m * sizeof(double), cudaMemcpyHostToDevice, st), "copy pattern");
    timer.start();
    k_pattern_stat<<<1, 1, 0, st>>>(dp.get(), m, s.qstat);
    launched("pattern statistics");
    s.profile(dp.get(), st);
    wait(st, ex);
    Buffer<int64_t> pos(N, "positions"), pos_out(N, "sorted positions");
    Buffer<double> keys_out(N, "sorted distances");
    k_iota64<<<grid_for(N, 256), 256, 0, st>>>(pos.get(), N);
    launched("iota");
    size_t tmp_bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, s.dist, keys_out.get(), pos.get(),
                                          pos_out.get(), (int)N, 0, 64, st),
          "sort size");
    Buffer<unsigned char> tmp(tmp_bytes, "sort scratch");
    check(cub::DeviceRadixSort::SortPairs(tmp.get(), tmp_bytes, s.dist, keys_out.get(), pos.get(),
                                          pos_out.get(), (int)N, 0, 64, st),
          "sort");
    timer.stop();
    wait(st, ex);
    d_sorted.resize(N);
    pos_sorted.resize(N);
    check(cudaMemcpy(d_sorted.data(), keys_out.get(), N * sizeof(double), cudaMemcpyDeviceToHost), "copy distances");
    int64_t keep = N;
    if (!std::isnan(max_distance))
        keep = std::upper_bound(d_sorted.begin(), d_sorted.end(), max_distance) - d_sorted.begin();
    d_sorted.resize(keep);
    pos_sorted.resize(keep);
    if (keep)
        check(cudaMemcpy(pos_sorted.data(), pos_out.get(), keep * sizeof(int64_t), cudaMemcpyDeviceToHost),
              "copy positions");
    ex->kernel_ms = timer.ms();
    ex->device_ms = now_ms() - t0;
    ex->device_bytes = (double)N * (8.0 * m / 32 + 48);
}

}  // namespace gpu
}  // namespace tsm
