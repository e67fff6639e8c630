// outliers.cu — k-sigma and MAD outliers on the GPU: block reductions for the
// two-pass mean/std (partials finished on the host by the same code as the
// CPU path), radix sorts for the exact median and MAD, and an
// order-preserving compaction of the outlier positions (cub::DeviceSelect).
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <vector>

#include "gpu_runtime.h"
#include "outliers.h"
#include "stats.h"

namespace tsm {
namespace gpu {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 2048;

enum SumMode { kSum = 0, kCentred = 1, kAbsDev = 2 };

// Per-block partial sums over a grid-stride range.
//   kSum:     a = Σx
//   kCentred: a = Σ(x−c), b = Σ(x−c)²
//   kAbsDev:  a = Σ|x−c|
template <int Mode>
__global__ void partial_sums(const double* __restrict__ x, int64_t n, double c,
                             double* __restrict__ out_a, double* __restrict__ out_b) {
    double a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + stride < n; i += 2 * stride) {
        double u = x[i], v = x[i + stride];
        if (Mode == kSum) { a0 += u; a1 += v; }
        if (Mode == kCentred) { u -= c; v -= c; a0 += u; a1 += v; b0 += u * u; b1 += v * v; }
        if (Mode == kAbsDev) { a0 += fabs(u - c); a1 += fabs(v - c); }
    }
    if (i < n) {
        double u = x[i];
        if (Mode == kSum) a0 += u;
        if (Mode == kCentred) { u -= c; a0 += u; b0 += u * u; }
        if (Mode == kAbsDev) a0 += fabs(u - c);
    }
    using Reduce = cub::BlockReduce<double, kThreads>;
    __shared__ typename Reduce::TempStorage ta, tb;
    double a = Reduce(ta).Sum(a0 + a1);
    double b = Mode == kCentred ? Reduce(tb).Sum(b0 + b1) : 0.0;
    if (threadIdx.x == 0) {
        out_a[blockIdx.x] = a;
        if (Mode == kCentred) out_b[blockIdx.x] = b;
    }
}

__global__ void abs_dev(const double* __restrict__ x, int64_t n, double c, double* __restrict__ out) {
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = fabs(x[i] - c);
}

struct IsOutlier {
    const double* x;
    double center, limit;  // limit = k·scale, computed on the host as the CPU path does
    __device__ bool operator()(int64_t i) const { return fabs(x[i] - center) > limit; }
};

int blocks_for(int64_t n) {
    int64_t b = (n + kThreads * 4 - 1) / (kThreads * 4);
    return static_cast<int>(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
}

// Runs a partial-sum kernel and returns the partials on the host.
template <int Mode>
void sums(const double* d_x, int64_t n, double c, cudaStream_t s, Buffer<double>& da,
          Buffer<double>& db, std::vector<double>& a, std::vector<double>& b) {
    int blocks = blocks_for(n);
    partial_sums<Mode><<<blocks, kThreads, 0, s>>>(d_x, n, c, da.get(), db.get());
    check(cudaGetLastError(), "outlier reduction launch");
    a.resize(blocks);
    check(cudaMemcpyAsync(a.data(), da.get(), blocks * sizeof(double), cudaMemcpyDeviceToHost, s),
          "copy partial sums");
    if (Mode == kCentred) {
        b.resize(blocks);
        check(cudaMemcpyAsync(b.data(), db.get(), blocks * sizeof(double), cudaMemcpyDeviceToHost, s),
              "copy partial sums");
    }
    check(cudaStreamSynchronize(s), "outlier reduction");
}

// Exact median of d_v (sorted in place through a double buffer); same
// formula as tsm::median.
double sorted_median(Buffer<double>& d_v, Buffer<double>& d_alt, int64_t n, cudaStream_t s) {
    cub::DoubleBuffer<double> keys(d_v.get(), d_alt.get());
    size_t temp_bytes = 0;
    check(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys, static_cast<int>(n), 0, 64, s),
          "radix sort (sizing)");
    Buffer<unsigned char> temp(temp_bytes, "radix sort scratch");
    check(cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, keys, static_cast<int>(n), 0, 64, s),
          "radix sort");
    double mid[2] = {0, 0};
    const double* sorted = keys.Current();
    if (n % 2) {
        check(cudaMemcpyAsync(mid, sorted + n / 2, sizeof(double), cudaMemcpyDeviceToHost, s), "copy median");
        check(cudaStreamSynchronize(s), "median");
        return mid[0];
    }
    check(cudaMemcpyAsync(mid, sorted + n / 2 - 1, 2 * sizeof(double), cudaMemcpyDeviceToHost, s),
          "copy median");
    check(cudaStreamSynchronize(s), "median");
    return mid[0] + (mid[1] - mid[0]) / 2;
}

}  // namespace

OutlierRule outliers(const double* x, int64_t n, double k, int method, TsExec* ex, TsOutliers* out) {
    const double t0 = now_ms();
    use_device(ex);
    if (method == TS_OUTLIERS_MAD && n > 0x7fffffff)
        throw Error(TS_INVALID_ARGUMENT, kInvalidParameter,
                    "the GPU MAD method handles at most 2^31 - 1 values",
                    "Use method 'sigma', or SET tsmine.backend = cpu.");
    const size_t bytes = static_cast<size_t>(n) * sizeof(double);
    require_bytes(method == TS_OUTLIERS_MAD ? 3 * bytes : 2 * bytes, "the outlier search");

    Stream s;
    Buffer<double> d_x(n, "the series");
    check(cudaMemcpyAsync(d_x.get(), x, bytes, cudaMemcpyHostToDevice, s), "copy the series to the GPU");
    EventTimer timer(s);
    timer.start();

    Buffer<double> pa(kMaxBlocks, "partial sums"), pb(kMaxBlocks, "partial sums");
    std::vector<double> a, b;
    OutlierRule rule;
    double kernel_bytes = 0;
    if (method == TS_OUTLIERS_SIGMA) {
        sums<kSum>(d_x.get(), n, 0.0, s, pa, pb, a, b);
        double mean0 = finish_mean(pairwise_sum(a.data(), a.size()), n);
        sums<kCentred>(d_x.get(), n, mean0, s, pa, pb, a, b);
        MeanStd ms = finish_mean_std(mean0, pairwise_sum(a.data(), a.size()),
                                     pairwise_sum(b.data(), b.size()), n);
        rule.center = ms.mean;
        rule.scale = ms.std;
        rule.scale_rule = ms.std > 0 ? 0 : 3;
        kernel_bytes += 2.0 * bytes;
    } else {
        Buffer<double> d_v(n, "MAD scratch"), d_alt(n, "MAD scratch");
        check(cudaMemcpyAsync(d_v.get(), d_x.get(), bytes, cudaMemcpyDeviceToDevice, s), "copy for the median");
        double med = sorted_median(d_v, d_alt, n, s);
        abs_dev<<<blocks_for(n), kThreads, 0, s>>>(d_x.get(), n, med, d_v.get());
        check(cudaGetLastError(), "absolute deviations launch");
        double mad = sorted_median(d_v, d_alt, n, s);
        double mean_ad = 0;
        if (!(mad > 0)) {
            sums<kAbsDev>(d_x.get(), n, med, s, pa, pb, a, b);
            mean_ad = pairwise_sum(a.data(), a.size()) / static_cast<double>(n);
        }
        rule = mad_rule(med, mad, mean_ad);
        kernel_bytes += 8.0 * bytes;  // copies, two sorts (≈ 3 passes each at 8 bits/pass is more; a floor)
    }

    out->count = 0;
    if (rule.scale > 0) {
        IsOutlier pred{d_x.get(), rule.center, k * rule.scale};
        Buffer<int64_t> d_count(1, "outlier count");
        size_t temp_bytes = 0;
        thrust::counting_iterator<int64_t> first(0);
        // The outliers are at most n; size the output from a first count to keep memory small.
        check(cub::DeviceSelect::If(nullptr, temp_bytes, first, static_cast<int64_t*>(nullptr),
                                    d_count.get(), n, pred, s),
              "compaction (sizing)");
        Buffer<unsigned char> temp(temp_bytes, "compaction scratch");
        Buffer<int64_t> d_pos(n, "outlier positions");
        check(cub::DeviceSelect::If(temp.get(), temp_bytes, first, d_pos.get(), d_count.get(), n, pred, s),
              "compaction");
        int64_t count = 0;
        check(cudaMemcpyAsync(&count, d_count.get(), sizeof count, cudaMemcpyDeviceToHost, s),
              "copy outlier count");
        check(cudaStreamSynchronize(s), "compaction");
        out->count = count;
        out->pos = alloc_result<int64_t>(ex, count);
        if (count)
            check(cudaMemcpyAsync(out->pos, d_pos.get(), count * sizeof(int64_t), cudaMemcpyDeviceToHost, s),
                  "copy outlier positions");
        kernel_bytes += bytes + count * sizeof(int64_t);
    } else {
        out->pos = alloc_result<int64_t>(ex, 0);
    }
    timer.stop();
    ex->kernel_ms = timer.ms();
    s.sync("outlier search");
    ex->device_bytes = kernel_bytes;
    ex->device_ms = now_ms() - t0;
    return rule;
}

}  // namespace gpu
}  // namespace tsm
