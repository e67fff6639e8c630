// matrix_profile.cu — the exact self-join matrix profile on the GPU (float64).
// Arithmetic and conventions: src/core/mp_detail.h (shared with the CPU path,
// bit for bit: explicit __fma_rn/__dmul_rn, no contraction differences).
//
// Design (one warp = one unit of work, "band item"):
//  * A band is kBand = 32·kDiagsPerThread adjacent diagonals k ∈ [k0, k0+kBand);
//    lane l owns kDiagsPerThread adjacent diagonals k0 + l·D + d.  A warp walks
//    the rows of one segment (kSegRows rows, mp::kSegRows) of its band, keeping
//    the co-moments in registers: at the segment's first row they are computed
//    directly (mp::direct_cov), then by the recurrence, one row per step.
//  * Column data (df, dg, inv_norm of j = r + k) rotate through D register
//    slots (the loop is unrolled by D so slot indices are static): one new
//    column per lane per step.  Row data are warp-uniform (broadcast loads).
//  * Selection uses 64-bit keys (mp::make_key): max is exact and
//    order-independent, so any reduction order gives the CPU's answer.
//      - row r: each lane reduces its D keys; the 32 lane keys of 32
//        consecutive rows go to a shared 32×33 buffer, then lane t reduces
//        row t and does one global atomicMax per row and band;
//      - column j: a lane's D-slot register accumulator sees column j at D
//        consecutive steps; when finished it is max-ed into a shared column
//        buffer (conflict-free: at a step the lanes' columns are distinct and
//        __syncwarp orders the steps; padding index rel + rel/D avoids bank
//        conflicts); every kColChunk rows the buffer goes to global memory by
//        atomicMax.
//  * Host: one launch per segment (bands split so that a launch stays under
//    kMaxPairsPerLaunch), tsm::gpu::wait after about kPairsPerWait pairs; then
//    a finalisation kernel (STUMPY constant rule + exact distance of the
//    winning pair, mp::finalize_one — the same function as the CPU's).
#include <algorithm>

#include "gpu_runtime.h"
#include "matrix_profile.h"
#include "mp_detail.h"

namespace tsm {
namespace gpu {
namespace {

constexpr int kDiagsPerThread = 4;                 // D: adjacent diagonals per lane
constexpr int kWarpsPerBlock = 4;                  // independent band items per block
constexpr int kBand = 32 * kDiagsPerThread;        // diagonals per warp
constexpr int kColChunk = 128;                     // rows between column-buffer flushes (multiple of 32)
constexpr int kColSpan = kColChunk + kBand;        // columns one chunk can finish
constexpr int kColPadded = kColSpan + kColSpan / kDiagsPerThread + 1;
constexpr double kMaxPairsPerLaunch = 2e10;        // ≈ 20 ms at 1e12 pairs/s
constexpr double kPairsPerWait = 2e10;             // poll for cancel after about this much work
constexpr int kFinalizeThreads = 128;

static_assert(kColChunk % 32 == 0, "kColChunk must be a multiple of 32");

using u64 = unsigned long long;

struct Params {
    const double* xs;
    const double* mu;
    const double* df;   // padded with kBand zeros
    const double* dg;
    const double* inv;  // inv_norm, padded
    u64* best;
    int64_t count;
    int64_t excl;
    int64_t seg;
    int64_t band_lo;
    int64_t n_bands;
    int m;
    mp::KeyCodec codec;
};

struct Lane {
    double cov[kDiagsPerThread];
    double cdf[kDiagsPerThread], cdg[kDiagsPerThread], cinv[kDiagsPerThread];
    u64 cacc[kDiagsPerThread];
    int64_t kl;  // first diagonal of this lane
    int64_t r0, r1, r_safe;
    int lane;
    u64* srow;  // this warp's 32×33 row buffer
    u64* scol;  // this warp's column buffer
};

__device__ __forceinline__ int col_pos(int64_t rel) { return (int)(rel + rel / kDiagsPerThread); }

// One row r at rotation phase U (= (r − r0) mod D).
template <int U, bool MASK>
__device__ __forceinline__ void step(Lane& L, const Params& p, int64_t r) {
    constexpr int D = kDiagsPerThread;
    const int64_t count = p.count;
    // the new column (diagonal d = D−1) enters slot (D−1+U) mod D
    {
        constexpr int s = (D - 1 + U) % D;
        const int64_t j = r + L.kl + D - 1;
        L.cdf[s] = __ldg(p.df + j);
        L.cdg[s] = __ldg(p.dg + j);
        L.cinv[s] = __ldg(p.inv + j);
    }
    const double dfr = __ldg(p.df + r), dgr = __ldg(p.dg + r), invr = __ldg(p.inv + r);
    const bool update = r > L.r0;
    const u64 low = p.codec.low;
    const u64 rlow = low - (u64)r;
    u64 rbest = 0;
#pragma unroll
    for (int d = 0; d < D; ++d) {
        const int s = (d + U) % D;
        const int64_t j = r + L.kl + d;
        if (update) L.cov[d] = __fma_rn(dfr, L.cdg[s], __fma_rn(L.cdf[s], dgr, L.cov[d]));
        const double rho = __dmul_rn(__dmul_rn(L.cov[d], invr), L.cinv[s]);
        const u64 core = mp::rho_core(rho, p.codec);
        u64 rk = core | (low - (u64)j);
        u64 ck = core | rlow;
        if (MASK && j >= count) rk = ck = 0;
        rbest = rk > rbest ? rk : rbest;
        L.cacc[s] = ck > L.cacc[s] ? ck : L.cacc[s];
    }
    const int64_t off = r - L.r0;
    L.srow[(off & 31) * 33 + L.lane] = rbest;
    // the column of diagonal d = 0 (slot U) is finished for this lane
    const int64_t rc = L.r0 + (off / kColChunk) * kColChunk;  // first row of this column chunk
    {
        constexpr int s = U % D;
        const int pos = col_pos((r - rc) + (int64_t)L.lane * D);
        __syncwarp();
        const u64 v = L.scol[pos];
        if (L.cacc[s] > v) L.scol[pos] = L.cacc[s];
        L.cacc[s] = 0;
    }
    const bool last = r == L.r1 - 1;
    if (last) {  // columns of d ≥ 1 are unfinished: straight to global memory
#pragma unroll
        for (int d = 1; d < D; ++d) {
            const int s = (d + U) % D;
            if (L.cacc[s]) atomicMax(p.best + (r + L.kl + d), L.cacc[s]);
            L.cacc[s] = 0;
        }
    }
    if ((off & 31) == 31 || last) {  // 32 rows complete: reduce them across the warp
        __syncwarp();
        const int64_t rr = L.r0 + (off & ~int64_t(31)) + L.lane;
        if (rr <= r) {
            const u64* row = L.srow + L.lane * 33;
            u64 b = 0;
#pragma unroll 8
            for (int t = 0; t < 32; ++t) b = row[t] > b ? row[t] : b;
            if (b) atomicMax(p.best + rr, b);
        }
        __syncwarp();
    }
    if (r - rc == kColChunk - 1 || last) {  // flush the column buffer
        __syncwarp();
        const int64_t base = rc + (L.kl - (int64_t)L.lane * D);  // rc + k0
        for (int e = L.lane; e < kColSpan; e += 32) {
            const int pos = col_pos(e);
            const u64 v = L.scol[pos];
            if (v) {
                atomicMax(p.best + (base + e), v);
                L.scol[pos] = 0;
            }
        }
        __syncwarp();
    }
}

template <int U>
struct Group {
    __device__ __forceinline__ static void run(Lane& L, const Params& p, int64_t rg) {
        const int64_t r = rg + U;
        if (r >= L.r1) return;
        if (r < L.r_safe)
            step<U, false>(L, p, r);
        else
            step<U, true>(L, p, r);
        Group<U + 1>::run(L, p, rg);
    }
};
template <>
struct Group<kDiagsPerThread> {
    __device__ __forceinline__ static void run(Lane&, const Params&, int64_t) {}
};

__global__ void __launch_bounds__(32 * kWarpsPerBlock) sweep_kernel(Params p) {
    __shared__ u64 s_row[kWarpsPerBlock][32 * 33];
    __shared__ u64 s_col[kWarpsPerBlock][kColPadded];
    constexpr int D = kDiagsPerThread;
    const int warp = threadIdx.x >> 5;
    Lane L;
    L.lane = threadIdx.x & 31;
    const int64_t band = p.band_lo + (int64_t)blockIdx.x * kWarpsPerBlock + warp;
    if (band >= p.band_lo + p.n_bands) return;  // whole warp; the kernel has no block barrier
    const int64_t count = p.count;
    const int64_t k0 = p.excl + band * kBand;
    L.kl = k0 + (int64_t)L.lane * D;
    L.r0 = p.seg * mp::kSegRows;
    L.r1 = min(L.r0 + mp::kSegRows, count - k0);
    if (L.r1 <= L.r0) return;
    // rows where every diagonal of the band still exists
    L.r_safe = max(L.r0, min(L.r1, count - k0 - kBand + 1));
    L.srow = s_row[warp];
    L.scol = s_col[warp];
    for (int e = L.lane; e < kColPadded; e += 32) L.scol[e] = 0;
    __syncwarp();
#pragma unroll
    for (int d = 0; d < D; ++d) {
        const int64_t k = L.kl + d;
        L.cov[d] = (L.r0 + k < count) ? mp::direct_cov(p.xs, L.r0, L.r0 + k, p.m, p.mu[L.r0], p.mu[L.r0 + k])
                                      : 0.0;
        L.cacc[d] = 0;
    }
    // slots 0..D−2 hold the columns of diagonals 0..D−2 at row r0 (phase 0)
#pragma unroll
    for (int d = 0; d < D - 1; ++d) {
        const int64_t j = L.r0 + L.kl + d;
        L.cdf[d] = __ldg(p.df + j);
        L.cdg[d] = __ldg(p.dg + j);
        L.cinv[d] = __ldg(p.inv + j);
    }
    for (int64_t rg = L.r0; rg < L.r1; rg += D) Group<0>::run(L, p, rg);
}

__global__ void finalize_kernel(mp::FinalizeArgs a, const u64* best, double* dist, int64_t* index) {
    const int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= a.count) return;
    mp::finalize_one(a, p, best[p], dist + p, index + p);
}

template <class T>
void upload(Buffer<T>& b, const std::vector<T>& v, cudaStream_t s, const char* what) {
    check(cudaMemcpyAsync(b.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, s), what);
}

}  // namespace

void matrix_profile(const mp::Prepared& P, TsExec* ex, MatrixProfile& out) {
    use_device(ex);
    const double t_start = now_ms();
    const int64_t count = P.count, n = P.n;
    const int64_t padded = count + kBand + 32;
    Buffer<double> d_xs(n, "series"), d_mu(count, "window means"), d_istd(count, "window 1/std");
    Buffer<double> d_df(padded, "df"), d_dg(padded, "dg"), d_inv(padded, "inv_norm");
    Buffer<uint8_t> d_const(count, "constant flags");
    Buffer<int64_t> d_next(count + 1, "constant index");
    Buffer<u64> d_best(count, "profile keys");
    Buffer<double> d_dist(count, "profile distances");
    Buffer<int64_t> d_index(count, "profile indices");
    Stream s;
    check(cudaMemsetAsync(d_df.get(), 0, d_df.bytes(), s), "cudaMemsetAsync");
    check(cudaMemsetAsync(d_dg.get(), 0, d_dg.bytes(), s), "cudaMemsetAsync");
    check(cudaMemsetAsync(d_inv.get(), 0, d_inv.bytes(), s), "cudaMemsetAsync");
    check(cudaMemsetAsync(d_best.get(), 0, d_best.bytes(), s), "cudaMemsetAsync");
    upload(d_xs, P.xs, s, "copy series");
    upload(d_mu, P.mu, s, "copy means");
    upload(d_istd, P.inv_std, s, "copy stds");
    upload(d_df, P.df, s, "copy df");
    upload(d_dg, P.dg, s, "copy dg");
    upload(d_inv, P.inv_norm, s, "copy inv_norm");
    upload(d_const, P.constant, s, "copy constant flags");
    upload(d_next, P.next_const, s, "copy constant index");

    Params p{};
    p.xs = d_xs.get();
    p.mu = d_mu.get();
    p.df = d_df.get();
    p.dg = d_dg.get();
    p.inv = d_inv.get();
    p.best = d_best.get();
    p.count = count;
    p.excl = P.excl;
    p.m = P.m;
    p.codec = P.codec;

    EventTimer timer(s);
    timer.start();
    double pending = 0;
    const int64_t bands_per_launch =
        std::max<int64_t>(kWarpsPerBlock, (int64_t)(kMaxPairsPerLaunch / ((double)kBand * mp::kSegRows)));
    for (int64_t seg = 0; seg * mp::kSegRows < count - P.excl; ++seg) {
        const int64_t r0 = seg * mp::kSegRows;
        // bands with a diagonal that has rows in this segment: k0 < count − r0
        const int64_t nb = (count - r0 - P.excl + kBand - 1) / kBand;
        for (int64_t b0 = 0; b0 < nb; b0 += bands_per_launch) {
            p.seg = seg;
            p.band_lo = b0;
            p.n_bands = std::min(bands_per_launch, nb - b0);
            const unsigned blocks = (unsigned)((p.n_bands + kWarpsPerBlock - 1) / kWarpsPerBlock);
            sweep_kernel<<<blocks, 32 * kWarpsPerBlock, 0, s>>>(p);
            check(cudaGetLastError(), "matrix profile kernel launch");
            pending += (double)p.n_bands * kBand * mp::kSegRows;
            if (pending >= kPairsPerWait) {
                wait(s, ex);
                pending = 0;
            }
        }
    }
    mp::FinalizeArgs a = P.finalize_args();
    a.xs = d_xs.get();
    a.mu = d_mu.get();
    a.inv_std = d_istd.get();
    a.constant = d_const.get();
    a.next_const = d_next.get();
    const unsigned fblocks = (unsigned)((count + kFinalizeThreads - 1) / kFinalizeThreads);
    finalize_kernel<<<fblocks, kFinalizeThreads, 0, s>>>(a, d_best.get(), d_dist.get(), d_index.get());
    check(cudaGetLastError(), "matrix profile finalize launch");
    timer.stop();
    wait(s, ex);
    ex->kernel_ms = timer.ms();
    out.dist.resize(count);
    out.index.resize(count);
    check(cudaMemcpyAsync(out.dist.data(), d_dist.get(), count * sizeof(double), cudaMemcpyDeviceToHost, s),
          "copy distances");
    check(cudaMemcpyAsync(out.index.data(), d_index.get(), count * sizeof(int64_t), cudaMemcpyDeviceToHost, s),
          "copy indices");
    s.sync("matrix profile results");
    ex->device_ms = now_ms() - t_start;
    ex->device_bytes = (double)count * (8.0 * 8);
}

}  // namespace gpu
}  // namespace tsm
