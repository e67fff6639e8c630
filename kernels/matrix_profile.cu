// matrix_profile.cu — the exact self-join matrix profile on the GPU (float64).
// Arithmetic and conventions: src/core/mp_detail.h (shared with the CPU path,
// bit for bit: explicit __fma_rn/__dmul_rn, no contraction differences).
//
// Design (one warp = one task = one segment of kSegRows rows × one band of
// kBand = 32·D adjacent diagonals; lane l owns diagonals k0 + l·D + d):
//  * The co-moments live in registers: computed directly at the segment's
//    first row (direct_comoment's arithmetic, the row factor shared by the D
//    diagonals), then by the recurrence, one row per step.
//  * Column data (df, dg, inv_norm/4 of j = r + k) rotate through D register
//    slots (the step is unrolled by D so slot indices are static).  The column
//    a lane retires (its diagonal d = 0) is exactly the one its lower
//    neighbour needs next (as diagonal D − 1), so it moves down the warp by
//    __shfl_down together with the column's running maximum; lane 31 takes a
//    new column from a 32-row prefetch buffer in shared memory.  Row data are
//    warp-uniform (staged per 32 rows in shared memory).
//  * Selection without 64-bit key arithmetic per pair: v = ρ/4 + off
//    (mp::sweep_v) lies in [1, 2), so its bits order like the double.  The
//    bits below the key's quantum (≥ 10 of them) are replaced by a tag
//    e = l·D + d < kBand ≤ 1024 that identifies the pair within the band:
//    rows take 0x3FF ^ e (smaller column wins ties), columns take e (smaller
//    row wins ties).  The maxima of these doubles (compared as doubles: one
//    DSETP and two selects) are therefore the
//    maxima of the 64-bit keys restricted to the band; the winners are turned
//    into full keys (mp::v_core | LOW − index) once per row / column per band
//    and merged into global memory by atomicMax (keys are a total order, so the
//    result equals the CPU's whatever the order).
//      - rows: each lane's best of its D pairs goes to a 32×33 shared buffer;
//        every 32 rows lane t reduces row t and does one atomicMax;
//      - columns: the running maximum travels with the column down the warp;
//        lane 0 retires it to shared memory, flushed every 32 rows.
//  * Preparation on the device, with the host's functions (mp_detail.h:
//    midrange, x', window statistics by chunks of kStatsChunk windows, a
//    thread per chunk; constant flags; df, dg, inv_norm; next_const by a CUB
//    suffix-minimum scan), so only the series goes over the bus.
//  * Host: tasks (segment, band) in a linear order (segment-major, decoded
//    through a per-segment prefix table), launched in chunks of about
//    kMaxPairsPerLaunch pairs with tsm::gpu::wait in between (cancel); then a
//    finalisation kernel (STUMPY constant rule + exact distance of the
//    winning pair, mp::finalize_one — the same function as the CPU's).
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>

#include "gpu_runtime.h"
#include "matrix_profile.h"
#include "mp_detail.h"

namespace tsm {
namespace gpu {
namespace {

#ifndef TSM_MP_DIAGS
#define TSM_MP_DIAGS 8
#endif
constexpr int D = TSM_MP_DIAGS;               // diagonals per lane (8: 168 registers, no spills)
constexpr int kWarpsPerBlock = 4;             // independent tasks per block
constexpr int kBand = 32 * D;                 // diagonals per warp (≤ 1024: tags fit in 10 bits)
constexpr int kGroup = 32;                    // rows per flush group (= warp size)
constexpr int64_t kPad = kBand + 4 * kGroup;  // zero padding after the per-window arrays
constexpr double kMaxPairsPerLaunch = 2.5e10; // ≈ 15–25 ms on an H100
constexpr int kFinalizeThreads = 128;
static_assert(kBand <= 1024 && kGroup % D == 0, "tag or group layout");

using u64 = unsigned long long;

struct Params {
    const double* xs;   // padded with kPad zeros
    const double* mu;   // padded
    const double* df;   // padded
    const double* dg;   // padded
    const double* inv;  // inv_norm, padded
    const double* inv4; // inv_norm / 4, padded
    const int64_t* seg_start;  // first task of each segment (n_seg + 1 entries)
    u64* best;
    int64_t task_lo, task_hi;
    int n_seg;
    int64_t count;
    int64_t excl;
    int m;
    u64 mask;  // clears the bits below the key's quantum (and keeps the rest)
    mp::KeyCodec codec;
};

struct Shared {
    double row[kGroup * 33];  // row keys: [step][lane], padded
    double col[kGroup];       // columns retired by lane 0
    double rdf[kGroup], rdg[kGroup], rinv[kGroup];  // row data of the group
    double fdf[kGroup], fdg[kGroup], fi4[kGroup];   // lane 31's new columns
};

struct Lane {
    double cov[D], cdf[D], cdg[D], ci4[D], acc[D];
    unsigned rtag[D];
    int64_t r0, r1, k0;
    int64_t jl;  // column of diagonal 0 at row 0 (= k0 + lane·D)
    int lane;
    Shared* sh;
};

// One row r (step s within the group) at rotation phase U = (r − r0) mod D.
template <int U, bool MASK>
__device__ __forceinline__ void step(Lane& L, const Params& p, int64_t r, int s) {
    const double dfr = L.sh->rdf[s], dgr = L.sh->rdg[s], ivr = L.sh->rinv[s];
    const double off = p.codec.off;
    const u64 mask = p.mask;
    const bool upd = !MASK || r > L.r0;
    // keys as doubles in [1, 2): compared with one DSETP and two selects, no
    // 64-bit integer compare; the row chain goes d ascending (any order would do:
    // the tags make the keys distinct)
    double rb = 0.0;
#pragma unroll
    for (int d = 0; d < D; ++d) {
        const int q = (d + U) % D;
        if (upd) L.cov[d] = comoment_next(L.cov[d], dfr, dgr, L.cdf[q], L.cdg[q]);
        const double v = mp::sweep_v(L.cov[d], ivr, L.ci4[q], off);
        const u64 k = ((u64)__double_as_longlong(v) & mask) | (u64)L.rtag[d];
        const double a = __longlong_as_double((long long)k);
        const double c = __longlong_as_double((long long)(k ^ 0x3FFull));
        if (!(MASK && r + L.jl + d >= p.count)) {
            rb = a > rb ? a : rb;
            L.acc[q] = c > L.acc[q] ? c : L.acc[q];
        }
    }
    L.sh->row[s * 33 + L.lane] = rb;
    // retire diagonal 0's column (slot U): lane 0 to shared memory, the others
    // pass it (data and running maximum) to the lane below
    if (L.lane == 0) L.sh->col[s] = L.acc[U];
    L.cdf[U] = __shfl_down_sync(0xFFFFFFFFu, L.cdf[U], 1);
    L.cdg[U] = __shfl_down_sync(0xFFFFFFFFu, L.cdg[U], 1);
    L.ci4[U] = __shfl_down_sync(0xFFFFFFFFu, L.ci4[U], 1);
    L.acc[U] = __shfl_down_sync(0xFFFFFFFFu, L.acc[U], 1);
    if (L.lane == 31) {
        L.cdf[U] = L.sh->fdf[s];
        L.cdg[U] = L.sh->fdg[s];
        L.ci4[U] = L.sh->fi4[s];
        L.acc[U] = 0.0;
    }
}

template <int U, bool MASK>
struct Block {
    __device__ __forceinline__ static void run(Lane& L, const Params& p, int64_t rb, int sb) {
        if (MASK && rb + U >= L.r1) return;
        step<U, MASK>(L, p, rb + U, sb + U);
        Block<U + 1, MASK>::run(L, p, rb, sb);
    }
};
template <bool MASK>
struct Block<D, MASK> {
    __device__ __forceinline__ static void run(Lane&, const Params&, int64_t, int) {}
};

__device__ __forceinline__ u64 full_key(double v, int64_t idx, const mp::KeyCodec& c) {
    return mp::v_core(v, c) | (c.low - (u64)idx);
}

__global__ void __launch_bounds__(32 * kWarpsPerBlock) sweep_kernel(Params p) {
    __shared__ Shared s_all[kWarpsPerBlock];
    const int warp = threadIdx.x >> 5;
    const int64_t task = p.task_lo + (int64_t)blockIdx.x * kWarpsPerBlock + warp;
    if (task >= p.task_hi) return;  // whole warp; the kernel has no block barrier
    // segment of the task: seg_start[seg] ≤ task < seg_start[seg + 1]
    int lo = 0, hi = p.n_seg;
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (p.seg_start[mid] <= task) lo = mid; else hi = mid;
    }
    Lane L;
    L.lane = threadIdx.x & 31;
    L.sh = &s_all[warp];
    const int64_t count = p.count;
    L.k0 = p.excl + (task - p.seg_start[lo]) * kBand;
    L.r0 = (int64_t)lo * mp::kSegRows;
    L.r1 = min(L.r0 + mp::kSegRows, count - L.k0);
    if (L.r1 <= L.r0) return;
    // rows where every diagonal of the band still exists
    const int64_t r_safe = max(L.r0, min(L.r1, count - L.k0 - kBand + 1));
    L.jl = L.k0 + (int64_t)L.lane * D;
    const int64_t r0 = L.r0;

    // direct co-moments at row r0 (direct_comoment's arithmetic, t ascending, tiled)
    {
        const double* xr = p.xs + r0;
        const double* xc = p.xs + r0 + L.jl;
        const double mu0 = p.mu[r0];
        double muk[D], w[D];
#pragma unroll
        for (int d = 0; d < D; ++d) {
            muk[d] = p.mu[r0 + L.jl + d];  // padded
            w[d] = xc[d];
            L.cov[d] = 0.0;
        }
        const int m = p.m;
        for (int t0 = 0; t0 < m; t0 += D) {
#pragma unroll
            for (int u = 0; u < D; ++u) {
                const int t = t0 + u;
                if (t < m) {
#pragma unroll
                    for (int d = 0; d < D; ++d)
                        L.cov[d] = comoment_term(L.cov[d], xr[t], mu0, w[(d + u) % D], muk[d]);
                    w[u] = xc[t + D];
                }
            }
        }
#pragma unroll
        for (int d = 0; d < D; ++d)
            if (r0 + L.jl + d >= count) L.cov[d] = 0.0;
    }
#pragma unroll
    for (int d = 0; d < D; ++d) {
        const int64_t j = r0 + L.jl + d;
        L.cdf[d] = __ldg(p.df + j);
        L.cdg[d] = __ldg(p.dg + j);
        L.ci4[d] = __ldg(p.inv4 + j);
        L.acc[d] = 0.0;
        L.rtag[d] = 0x3FFu ^ (unsigned)(L.lane * D + d);
    }
    // prefetch of the first group's row data and new columns
    double pr0 = __ldg(p.df + r0 + L.lane), pr1 = __ldg(p.dg + r0 + L.lane), pr2 = __ldg(p.inv + r0 + L.lane);
    const int64_t fbase = L.k0 + kBand + L.lane;
    double pf0 = __ldg(p.df + r0 + fbase), pf1 = __ldg(p.dg + r0 + fbase), pf2 = __ldg(p.inv4 + r0 + fbase);
    const u64 low = p.codec.low;
    Shared* sh = L.sh;

    for (int64_t rg = r0; rg < L.r1; rg += kGroup) {
        __syncwarp();
        sh->rdf[L.lane] = pr0;
        sh->rdg[L.lane] = pr1;
        sh->rinv[L.lane] = pr2;
        sh->fdf[L.lane] = pf0;
        sh->fdg[L.lane] = pf1;
        sh->fi4[L.lane] = pf2;
        __syncwarp();
        {  // next group (the arrays are padded, so no bound checks)
            const int64_t rn = rg + kGroup;
            pr0 = __ldg(p.df + rn + L.lane);
            pr1 = __ldg(p.dg + rn + L.lane);
            pr2 = __ldg(p.inv + rn + L.lane);
            pf0 = __ldg(p.df + rn + fbase);
            pf1 = __ldg(p.dg + rn + fbase);
            pf2 = __ldg(p.inv4 + rn + fbase);
        }
        if (rg > r0 && rg + kGroup <= r_safe) {
#pragma unroll 1
            for (int sb = 0; sb < kGroup; sb += D) Block<0, false>::run(L, p, rg + sb, sb);
        } else {
#pragma unroll 1
            for (int sb = 0; sb < kGroup; sb += D) Block<0, true>::run(L, p, rg + sb, sb);
        }
        __syncwarp();
        const int64_t nst = min((int64_t)kGroup, L.r1 - rg);
        if (L.lane < nst) {
            const int64_t rr = rg + L.lane;
            const double* row = sh->row + L.lane * 33;
            double b = row[0];
#pragma unroll
            for (int i = 1; i < 32; ++i) b = row[i] > b ? row[i] : b;
            if (b != 0.0) {
                const unsigned e = 0x3FFu ^ ((unsigned)__double2loint(b) & 0x3FFu);
                atomicMax(p.best + rr, full_key(b, rr + L.k0 + e, p.codec));
            }
            const double c = sh->col[L.lane];
            if (c != 0.0) {
                const unsigned e = (unsigned)__double2loint(c) & 0x3FFu;
                atomicMax(p.best + (rr + L.k0), full_key(c, rr - e, p.codec));
            }
        }
    }
    // columns still in flight: slot q holds diagonal d = (q − U) mod D at row r1
    const int ue = (int)((L.r1 - r0) % D);
#pragma unroll
    for (int q = 0; q < D; ++q) {
        const double c = L.acc[q];
        if (c != 0.0) {
            const int d = (q - ue + D) % D;
            const int64_t col = L.r1 + L.jl + d;
            const unsigned e = (unsigned)__double2loint(c) & 0x3FFu;
            if (col < count) atomicMax(p.best + col, full_key(c, col - L.k0 - e, p.codec));
        }
    }
    (void)low;
}

__global__ void finalize_kernel(mp::FinalizeArgs a, const u64* best, double* dist, int64_t* index) {
    const int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= a.count) return;
    a.first_const = a.next_const[0];  // computed on the device
    mp::finalize_one(a, p, best[p], dist + p, index + p);
}

// ---- preparation on the device (mp_detail.h: the CPU's functions) ---------

// x' = x − c, c the midrange from lohi = {min, max}.
__global__ void shift_kernel(const double* __restrict__ x, int64_t n, const double* __restrict__ lohi, double* xs) {
    const double c = mp::midrange(lohi[0], lohi[1]);
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        xs[i] = x[i] - c;  // one rounding, as on the host
}

// A thread per stats chunk of kStatsChunk windows.
__global__ void chunk_kernel(const double* __restrict__ x, const double* __restrict__ xs, int m, int64_t count,
                             double* mu, double* inv_std, uint8_t* constant) {
    const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t i0 = c * kStatsChunk;
    if (i0 >= count) return;
    mp::prepare_chunk(x, xs, m, i0, min(count, i0 + kStatsChunk), mu, inv_std, constant);
}

__global__ void window_kernel(const double* __restrict__ xs, const double* __restrict__ mu,
                              const double* __restrict__ inv_std, int m, double rsm, int64_t count, double* inv,
                              double* inv4, double* df, double* dg) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
        mp::prepare_window(xs, mu, inv_std, m, rsm, i, inv, inv4, df, dg);
}

// next_const by a suffix minimum: rev[k] = the window count−1−k if constant, else count.
__global__ void reverse_const_kernel(const uint8_t* __restrict__ constant, int64_t count, int64_t* rev) {
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < count; k += (int64_t)gridDim.x * blockDim.x)
        rev[k] = constant[count - 1 - k] ? count - 1 - k : count;
}
__global__ void next_const_kernel(const int64_t* __restrict__ rev, int64_t count, int64_t* next) {
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q <= count; q += (int64_t)gridDim.x * blockDim.x)
        next[q] = q < count ? rev[count - 1 - q] : count;
}
struct MinI64 {
    __device__ __forceinline__ int64_t operator()(int64_t a, int64_t b) const { return b < a ? b : a; }
};

unsigned blocks_for(int64_t items, int threads) {
    const int64_t b = (items + threads - 1) / threads;
    return (unsigned)std::max<int64_t>(1, std::min<int64_t>(b, 1 << 20));
}

}  // namespace

void matrix_profile(const double* x, int64_t n, int m, int64_t excl, TsExec* ex, double* dist, int64_t* index) {
    use_device(ex);
    const double t_start = now_ms();
    const int64_t count = n - m + 1;
    const int64_t padded = count + kPad;
    const mp::KeyCodec codec = mp::make_codec(count);
    // tasks: (segment, band) with at least one row, segment-major
    std::vector<int64_t> seg_start(1, 0);
    for (int64_t seg = 0; seg * mp::kSegRows < count - excl; ++seg) {
        const int64_t r0 = seg * mp::kSegRows;
        const int64_t nb = (count - r0 - excl + kBand - 1) / kBand;  // bands with k0 < count − r0
        seg_start.push_back(seg_start.back() + nb);
    }
    const int n_seg = (int)seg_start.size() - 1;
    const int64_t n_tasks = seg_start.back();

    // one device allocation for every array of the call
    Arena ar;
    const size_t o_x = ar.take<double>(n), o_xs = ar.take<double>(n + kPad), o_lohi = ar.take<double>(2);
    const size_t o_mu = ar.take<double>(padded), o_istd = ar.take<double>(count);
    const size_t o_df = ar.take<double>(padded), o_dg = ar.take<double>(padded), o_inv = ar.take<double>(padded),
                 o_inv4 = ar.take<double>(padded);
    const size_t o_seg = ar.take<int64_t>(seg_start.size()), o_const = ar.take<uint8_t>(count);
    const size_t o_next = ar.take<int64_t>(count + 1), o_rev = ar.take<int64_t>(count);
    const size_t o_best = ar.take<u64>(count), o_dist = ar.take<double>(count), o_index = ar.take<int64_t>(count);
    size_t tmp_min = 0, tmp_max = 0, tmp_scan = 0;
    check(cub::DeviceReduce::Min(nullptr, tmp_min, (const double*)nullptr, (double*)nullptr, n),
          "cub::DeviceReduce::Min");
    check(cub::DeviceReduce::Max(nullptr, tmp_max, (const double*)nullptr, (double*)nullptr, n),
          "cub::DeviceReduce::Max");
    check(cub::DeviceScan::InclusiveScan(nullptr, tmp_scan, (int64_t*)nullptr, (int64_t*)nullptr, MinI64(), count),
          "cub::DeviceScan::InclusiveScan");
    const size_t tmp_size = std::max(tmp_scan, std::max(tmp_min, tmp_max));
    const size_t o_tmp = ar.take<unsigned char>(tmp_size);
    ar.allocate("matrix profile device memory");
    double *d_x = ar.at<double>(o_x), *d_xs = ar.at<double>(o_xs), *d_lohi = ar.at<double>(o_lohi);
    double *d_mu = ar.at<double>(o_mu), *d_istd = ar.at<double>(o_istd), *d_df = ar.at<double>(o_df);
    double *d_dg = ar.at<double>(o_dg), *d_inv = ar.at<double>(o_inv), *d_inv4 = ar.at<double>(o_inv4);
    int64_t *d_seg = ar.at<int64_t>(o_seg), *d_next = ar.at<int64_t>(o_next), *d_rev = ar.at<int64_t>(o_rev);
    uint8_t* d_const = ar.at<uint8_t>(o_const);
    u64* d_best = ar.at<u64>(o_best);
    double* d_dist = ar.at<double>(o_dist);
    int64_t* d_index = ar.at<int64_t>(o_index);
    unsigned char* d_tmp = ar.at<unsigned char>(o_tmp);
    size_t tmp_bytes = tmp_size;

    Stream s;
    check(cudaMemsetAsync(d_xs, 0, (n + kPad) * sizeof(double), s), "cudaMemsetAsync");
    check(cudaMemsetAsync(d_mu, 0, padded * sizeof(double), s), "cudaMemsetAsync");
    check(cudaMemsetAsync(d_df, 0, padded * sizeof(double), s), "cudaMemsetAsync");
    check(cudaMemsetAsync(d_dg, 0, padded * sizeof(double), s), "cudaMemsetAsync");
    check(cudaMemsetAsync(d_inv, 0, padded * sizeof(double), s), "cudaMemsetAsync");
    check(cudaMemsetAsync(d_inv4, 0, padded * sizeof(double), s), "cudaMemsetAsync");
    check(cudaMemsetAsync(d_best, 0, count * sizeof(u64), s), "cudaMemsetAsync");
    check(cudaMemcpyAsync(d_x, x, n * sizeof(double), cudaMemcpyHostToDevice, s), "copy series");
    check(cudaMemcpyAsync(d_seg, seg_start.data(), seg_start.size() * sizeof(int64_t), cudaMemcpyHostToDevice,
                          s),
          "copy segment table");

    EventTimer timer(s);
    timer.start();
    // preparation: midrange, x', window statistics, constant flags, per-window factors
    tmp_bytes = tmp_size;
    check(cub::DeviceReduce::Min(d_tmp, tmp_bytes, d_x, d_lohi, n, s), "series minimum");
    tmp_bytes = tmp_size;
    check(cub::DeviceReduce::Max(d_tmp, tmp_bytes, d_x, d_lohi + 1, n, s), "series maximum");
    shift_kernel<<<blocks_for(n, 256), 256, 0, s>>>(d_x, n, d_lohi, d_xs);
    check(cudaGetLastError(), "matrix profile shift launch");
    const int64_t chunks = (count + kStatsChunk - 1) / kStatsChunk;
    chunk_kernel<<<blocks_for(chunks, 64), 64, 0, s>>>(d_x, d_xs, m, count, d_mu, d_istd,
                                                       d_const);
    check(cudaGetLastError(), "matrix profile statistics launch");
    window_kernel<<<blocks_for(count, 256), 256, 0, s>>>(d_xs, d_mu, d_istd, m,
                                                         1.0 / std::sqrt((double)m), count, d_inv,
                                                         d_inv4, d_df, d_dg);
    check(cudaGetLastError(), "matrix profile window launch");
    reverse_const_kernel<<<blocks_for(count, 256), 256, 0, s>>>(d_const, count, d_rev);
    check(cudaGetLastError(), "matrix profile constant launch");
    tmp_bytes = tmp_size;
    check(cub::DeviceScan::InclusiveScan(d_tmp, tmp_bytes, d_rev, d_rev, MinI64(), count, s),
          "constant windows scan");
    next_const_kernel<<<blocks_for(count + 1, 256), 256, 0, s>>>(d_rev, count, d_next);
    check(cudaGetLastError(), "matrix profile constant index launch");

    Params p{};
    p.xs = d_xs;
    p.mu = d_mu;
    p.df = d_df;
    p.dg = d_dg;
    p.inv = d_inv;
    p.inv4 = d_inv4;
    p.seg_start = d_seg;
    p.best = d_best;
    p.n_seg = n_seg;
    p.count = count;
    p.excl = excl;
    p.m = m;
    p.codec = codec;
    p.mask = ~((1ull << codec.shift) - 1ull);  // shift ≥ 10: room for the 10-bit tags

    const int64_t per_launch = std::max<int64_t>(
        kWarpsPerBlock, (int64_t)(kMaxPairsPerLaunch / ((double)kBand * mp::kSegRows)) / kWarpsPerBlock * kWarpsPerBlock);
    // Launch by launch, polling for cancel between them, with the next launch
    // already queued while we wait for one: the device never idles in between.
    Event launched[2];
    int64_t launch = 0;
    for (int64_t t0 = 0; t0 < n_tasks; t0 += per_launch, ++launch) {
        p.task_lo = t0;
        p.task_hi = std::min(n_tasks, t0 + per_launch);
        const unsigned blocks = (unsigned)((p.task_hi - p.task_lo + kWarpsPerBlock - 1) / kWarpsPerBlock);
        sweep_kernel<<<blocks, 32 * kWarpsPerBlock, 0, s>>>(p);
        check(cudaGetLastError(), "matrix profile kernel launch");
        if (p.task_hi < n_tasks) {
            launched[launch & 1].record(s);
            if (launch > 0) wait(launched[(launch - 1) & 1], ex);
        }
    }
    mp::FinalizeArgs a{};
    a.xs = d_xs;
    a.mu = d_mu;
    a.inv_std = d_istd;
    a.constant = d_const;
    a.next_const = d_next;
    a.first_const = count;  // replaced on the device by next_const[0]
    a.count = count;
    a.excl = excl;
    a.m = m;
    a.codec = codec;
    const unsigned fblocks = (unsigned)((count + kFinalizeThreads - 1) / kFinalizeThreads);
    finalize_kernel<<<fblocks, kFinalizeThreads, 0, s>>>(a, d_best, d_dist, d_index);
    check(cudaGetLastError(), "matrix profile finalize launch");
    timer.stop();
    wait(s, ex);
    ex->kernel_ms = timer.ms();
    check(cudaMemcpyAsync(dist, d_dist, count * sizeof(double), cudaMemcpyDeviceToHost, s), "copy distances");
    check(cudaMemcpyAsync(index, d_index, count * sizeof(int64_t), cudaMemcpyDeviceToHost, s), "copy indices");
    s.sync("matrix profile results");
    ex->device_ms = now_ms() - t_start;
    ex->device_bytes = (double)count * (8.0 * 10);
}

}  // namespace gpu
}  // namespace tsm
