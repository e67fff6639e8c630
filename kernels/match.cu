// match.cu — similarity search on the GPU: the pattern's distance to every
// window (a warp per window: motif::warp_zdist, the CPU's distance bit for
// bit, motifs_detail.h), sorted by (distance, position) with CUB's stable
// radix sort; the greedy non-overlap pass is the host's (match_greedy).  Also
// the exact distance profiles of single windows used by
// select_top_motifs_from_profile.
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <vector>

#include "motifs.h"

namespace tsm {
namespace gpu {

namespace {

using motif::grid_for;
using motif::launched;

// dist[j] = d(query, window j); the query is either window q of x
// (qx = x + q with its statistics) or a pattern.
__global__ void k_profile(const double* __restrict__ x, int64_t N, int m, const double* __restrict__ mean,
                          const double* __restrict__ inv, const uint8_t* __restrict__ cst,
                          const double* __restrict__ qx, const double* __restrict__ qstat, double* dist) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
    const double qmu = qstat[0], qinv = qstat[1];
    const bool qc = qstat[2] != 0;
    for (int64_t j = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32; j < N; j += warps) {
        const double d = motif::warp_zdist(qx, qmu, qinv, qc, x + j, mean[j], inv[j], cst[j], m, lane);
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

__global__ void k_iota64(int64_t* v, int64_t N) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < N; i += (int64_t)gridDim.x * blockDim.x)
        v[i] = i;
}

// The series on the device with its window statistics, in one allocation.
struct DeviceSeries {
    int64_t n, N;
    int m;
    Arena ar;
    double *x = nullptr, *mean = nullptr, *inv = nullptr, *qstat = nullptr, *dist = nullptr;
    uint8_t* cst = nullptr;
    DeviceSeries(const double* hx, int64_t n_, int m_, cudaStream_t st, const TsExec* ex)
        : n(n_), N(n_ - m_ + 1), m(m_) {
        require_bytes((size_t)n * 8 + (size_t)N * 41 + (1u << 20), "distance profile");
        const size_t o_x = ar.take<double>(n), o_mean = ar.take<double>(N), o_inv = ar.take<double>(N);
        const size_t o_cst = ar.take<uint8_t>(N), o_qstat = ar.take<double>(3), o_dist = ar.take<double>(N);
        ar.allocate("distance profile");
        x = ar.at<double>(o_x), mean = ar.at<double>(o_mean), inv = ar.at<double>(o_inv);
        cst = ar.at<uint8_t>(o_cst), qstat = ar.at<double>(o_qstat), dist = ar.at<double>(o_dist);
        check(cudaMemcpyAsync(x, hx, n * sizeof(double), cudaMemcpyHostToDevice, st), "copy series");
        motif::k_window_zstats<<<grid_for(N, 256), 256, 0, st>>>(x, N, m, mean, inv, cst);
        launched("window statistics");
    }
    // the profile of query qx (device pointer; qstat filled) into dist
    void profile(const double* qx, cudaStream_t st) {
        k_profile<<<grid_for(N * 32, 256, 16384), 256, 0, st>>>(x, N, m, mean, inv, cst, qx, qstat, dist);
        launched("distance profile");
    }
};

class GpuProfiler : public WindowProfiler {
  public:
    GpuProfiler(const double* x, int64_t n, int m, TsExec* ex) : ex_(ex), s_(x, n, m, st_, ex) {}
    void profile(int64_t i, double* out) override {
        const double t0 = now_ms();
        k_window_stat_of<<<1, 1, 0, st_>>>(s_.mean, s_.inv, s_.cst, i, s_.qstat);
        launched("query statistics");
        s_.profile(s_.x + i, st_);
        wait(st_, ex_);
        check(cudaMemcpy(out, s_.dist, s_.N * sizeof(double), cudaMemcpyDeviceToHost), "copy profile");
        ex_->device_ms += now_ms() - t0;
    }

  private:
    TsExec* ex_;
    Stream st_;
    DeviceSeries s_;
};

}  // namespace

std::unique_ptr<WindowProfiler> make_window_profiler(const double* x, int64_t n, int m, TsExec* ex) {
    use_device(ex);
    return std::unique_ptr<WindowProfiler>(new GpuProfiler(x, n, m, ex));
}

void match_sorted(const double* x, int64_t n, const double* pattern, int m, double max_distance, TsExec* ex,
                  std::vector<double>& d_sorted, std::vector<int64_t>& pos_sorted) {
    use_device(ex);
    const double t0 = now_ms();
    Stream st;
    EventTimer timer(st);
    DeviceSeries s(x, n, m, st, ex);
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
