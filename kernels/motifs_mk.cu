// motifs_mk.cu — MK exact motifs on the GPU (see src/core/motifs.cpp for the
// algorithm and its generalisation to k pairs).  Done in CUDA rather than the
// thesis's OpenACC:
//   * window statistics, the distances D of the references (a warp per
//     (reference, window)), their spreads, and the linear order (CUB radix sort
//     by the ordering reference, stable: ties by position) on the device;
//   * the bounds are stored permuted into linear order, as float, so the offset
//     loop reads them coalesced: pair (i, i+o) reads Dp[r][i] and Dp[r][i+o];
//   * the PAA bound (motifs.cpp): the coefficients of every window (a thread
//     per window), sums over a sample of them for the principal axes (a few
//     blocks, partial sums combined on the host in a fixed order), the axes
//     by Jacobi on the host (mk_principal_axes), the key (axis 0 or the best
//     reference, whichever spreads more), and the rotated rows, as float, in
//     linear order;
//   * the offset loop runs as chunks of offsets (one launch set ≲ 50 ms,
//     adapted to the measured time), each: a scan kernel (a block = 256
//     positions i × 64 offsets) that prunes by the key gap, the PAA partial
//     sums and the references against the chunk's bsf, keeps the per-offset
//     minimum of the key gap (stopping rule) and appends surviving pairs
//     (warp-aggregated); a warp leaves its offsets as soon as all its gaps
//     exceed the threshold (gaps grow with the offset; that gap is the warp's
//     lower bound for the remaining offsets); then a warp per survivor
//     computes its exact distance, and the chunk's best pair (distance, then
//     positions) is found by two atomic minima.  The host merges the best,
//     applies the stopping rule and polls for cancel (tsm::gpu::wait).
//   * if survivors overflow their buffer the chunk is redone with half the
//     offsets (bsf has dropped meanwhile); a chunk of one offset cannot
//     overflow (buffer ≥ N pairs).
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "motifs.h"
#include "parallel.h"
#include "zdist.cuh"

namespace tsm {
namespace gpu {

namespace {

constexpr int kScanThreads = 256;
constexpr int kOffsetsPerBlock = 64;
constexpr unsigned kInfBits = 0x7f800000u;  // +inf as float bits
constexpr unsigned long long kNone = ~0ull;

__global__ void k_ref_dist(const double* __restrict__ x, int64_t N, int m, const double* __restrict__ mean,
                           const double* __restrict__ inv, const uint8_t* __restrict__ cst,
                           const int64_t* __restrict__ refs, int R, double* D) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t e = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32; e < (int64_t)R * N; e += warps) {
        int r = (int)(e / N);
        int64_t j = e % N, p = refs[r];
        double d = d_zdist_warp(x + p, mean[p], inv[p], cst[p], x + j, mean[j], inv[j], cst[j], m, lane);
        if (lane == 0) D[e] = d;
    }
}

// Spread of each reference's distances: a block per reference, fixed order.
__global__ void k_ref_std(const double* __restrict__ D, int64_t N, double* sd) {
    __shared__ double sh[1024];
    const double* row = D + (int64_t)blockIdx.x * N;
    double s = 0;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) s += row[j];
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if ((int)threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
        __syncthreads();
    }
    const double mu = sh[0] / N;
    __syncthreads();
    double q = 0;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) q += (row[j] - mu) * (row[j] - mu);
    sh[threadIdx.x] = q;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if ((int)threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) sd[blockIdx.x] = sqrt(sh[0] / N);
}

__global__ void k_iota(int* v, int64_t N) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < N; i += (int64_t)gridDim.x * blockDim.x)
        v[i] = (int)i;
}

// PAA coefficients of every window (window_paa in motifs.cpp): C[s·N + p];
// the largest Σ ẑ² as the bits of a non-negative double.
__global__ void k_paa(const double* __restrict__ x, int64_t N, int m, const double* __restrict__ mean,
                      const double* __restrict__ inv, const uint8_t* __restrict__ cst, int W, double* C,
                      unsigned long long* zmax2) {
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < N; p += (int64_t)gridDim.x * blockDim.x) {
        const double* w = x + p;
        const double mu = mean[p], iv = inv[p];
        double tot = 0, q = 0;
        if (cst[p]) {
            for (int s = 0; s < W; ++s) C[s * N + p] = 0.0;
            continue;
        }
        for (int s = 0; s < W; ++s) {
            const int lo = (int)((int64_t)s * m / W), hi = (int)((int64_t)(s + 1) * m / W);
            double a = 0;
            for (int k = lo; k < hi; ++k) {
                const double z = __dmul_rn(__dsub_rn(w[k], mu), iv);  // zdist's value
                a = __dadd_rn(a, z);
                q = __dadd_rn(q, __dmul_rn(z, z));
            }
            tot = __dadd_rn(tot, a);
            C[s * N + p] = a;
        }
        for (int s = 0; s < W; ++s) {
            const int lo = (int)((int64_t)s * m / W), hi = (int)((int64_t)(s + 1) * m / W);
            const double r = sqrt((double)(hi - lo));
            C[s * N + p] = C[s * N + p] / r - r * (tot / m);
        }
        atomicMax(zmax2, (unsigned long long)__double_as_longlong(q));
    }
}

// Sums of the coefficients and of their products over the sampled windows
// p = e·stride, e < cnt: a block's partial sums at part[block·(W + W²)].
__global__ void k_paa_sums(const double* __restrict__ C, int64_t N, int W, int64_t stride, int64_t cnt,
                           double* part) {
    constexpr int kTile = 32;
    __shared__ double sh[kTile * kPaaSegments];
    const int E = W + W * W;
    double acc[(kPaaSegments + kPaaSegments * kPaaSegments + 255) / 256] = {};
    const int64_t per = (cnt + gridDim.x - 1) / gridDim.x;
    const int64_t lo = blockIdx.x * per, hi = min(cnt, lo + per);
    for (int64_t t0 = lo; t0 < hi; t0 += kTile) {
        const int nt = (int)(hi - t0 < kTile ? hi - t0 : kTile);
        __syncthreads();
        for (int e = threadIdx.x; e < nt * W; e += blockDim.x) {
            const int w = e / W, a = e % W;
            sh[w * W + a] = C[a * N + (t0 + w) * stride];
        }
        __syncthreads();
        int slot = 0;
        for (int e = threadIdx.x; e < E; e += blockDim.x, ++slot) {
            double v = 0;
            if (e < W) {
                for (int w = 0; w < nt; ++w) v += sh[w * W + e];
            } else {
                const int a = (e - W) / W, b = (e - W) % W;
                for (int w = 0; w < nt; ++w) v += sh[w * W + a] * sh[w * W + b];
            }
            acc[slot] += v;
        }
    }
    int slot = 0;
    for (int e = threadIdx.x; e < E; e += blockDim.x, ++slot) part[(int64_t)blockIdx.x * E + e] = acc[slot];
}

// The sort key of every window: axis 0 of the PAA, or the reference row r0.
__global__ void k_key(const double* __restrict__ C, const double* __restrict__ D, int64_t N, int W,
                      const double* __restrict__ V, int key_paa, int r0, double* key) {
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < N; p += (int64_t)gridDim.x * blockDim.x) {
        if (key_paa) {
            double y = 0;
            for (int a = 0; a < W; ++a) y += V[a * W] * C[a * N + p];
            key[p] = y;
        } else {
            key[p] = D[(int64_t)r0 * N + p];
        }
    }
}

// The rows in linear order, as float: Y[k] (the PAA axes; Y[0] = the key
// when the key is axis 0), Dp[r] (the references), and the key with the
// next seven axes in two loads: P4[i] = (key, Y[k0], Y[k0+1], Y[k0+2]),
// P4b[i] = (Y[k0+3], .., Y[k0+6]) (0 past the last axis).
__global__ void k_rows(const double* __restrict__ C, const double* __restrict__ D, const double* __restrict__ keys,
                       const int* __restrict__ IS, int64_t N, int W, const double* __restrict__ V, int key_paa,
                       int R, float4* P4, float4* P4b, float* Y, float* Dp) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < N; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t p = IS[i];
        const float ki = (float)keys[i];
        double c[kPaaSegments];
        float q[7] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        const int k0 = key_paa ? 1 : 0;
        for (int a = 0; a < W; ++a) c[a] = C[a * N + p];
        for (int k = 0; k < W; ++k) {
            double y = 0;
            for (int a = 0; a < W; ++a) y += V[a * W + k] * c[a];
            const float f = (k == 0 && key_paa) ? ki : (float)y;
            Y[k * N + i] = f;
            if (k >= k0 && k < k0 + 7) q[k - k0] = f;
        }
        P4[i] = make_float4(ki, q[0], q[1], q[2]);
        P4b[i] = make_float4(q[3], q[4], q[5], q[6]);
        for (int r = 0; r < R; ++r) Dp[(int64_t)r * N + i] = (float)D[(int64_t)r * N + p];
    }
}

__global__ void k_permute_mask(const uint8_t* __restrict__ blocked, const int* __restrict__ IS, int64_t N,
                               uint8_t* blockedS) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < N; i += (int64_t)gridDim.x * blockDim.x)
        blockedS[i] = blocked[IS[i]];
}

struct DevBest {
    unsigned long long dbits;  // distance as bits (non-negative: ordered like the value)
    unsigned long long ab;     // (a << 32) | b
};

__global__ void k_best_reset(DevBest* b, int* counters, unsigned* mingap, int C) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t == 0) { b->dbits = kNone; b->ab = kNone; counters[0] = 0; counters[1] = 0; }
    for (int o = t; o < C; o += gridDim.x * blockDim.x) mingap[o] = kInfBits;
}

__device__ inline bool init_eligible(int64_t e, int64_t N, const int64_t* refs, const uint8_t* blocked,
                                     int64_t excl, int64_t* a, int64_t* b) {
    int r = (int)(e / N);
    int64_t j = e % N, p = refs[r];
    if (blocked[p] || blocked[j]) return false;
    if ((j > p ? j - p : p - j) < excl) return false;
    *a = p < j ? p : j;
    *b = p < j ? j : p;
    return true;
}

// InitBSF: the best eligible (reference, window) pair, distance first ...
__global__ void k_init_min(const double* __restrict__ D, int64_t N, int R, const int64_t* __restrict__ refs,
                           const uint8_t* __restrict__ blocked, int64_t excl, DevBest* best) {
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < (int64_t)R * N;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t a, b;
        if (init_eligible(e, N, refs, blocked, excl, &a, &b))
            atomicMin(&best->dbits, (unsigned long long)__double_as_longlong(D[e]));
    }
}
// ... then the smallest positions at that distance.
__global__ void k_init_tie(const double* __restrict__ D, int64_t N, int R, const int64_t* __restrict__ refs,
                           const uint8_t* __restrict__ blocked, int64_t excl, DevBest* best) {
    const unsigned long long target = best->dbits;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < (int64_t)R * N;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t a, b;
        if ((unsigned long long)__double_as_longlong(D[e]) == target &&
            init_eligible(e, N, refs, blocked, excl, &a, &b))
            atomicMin(&best->ab, ((unsigned long long)a << 32) | (unsigned long long)b);
    }
}

// The offset loop's scan: offsets o0 .. o0+C-1, every position i.  Checks:
// key gap (thrK), PAA partial sums (thr2), references (thrR); then blocked
// windows and the exclusion zone.
__global__ void __launch_bounds__(kScanThreads, 8) k_scan(const float4* __restrict__ P4, const float4* __restrict__ P4b,
                                                      const float* __restrict__ Y,
                                                      int W, int k0, const float* __restrict__ Dp, int R, int64_t N,
                                                      const int* __restrict__ IS,
                                                      const uint8_t* __restrict__ blockedS, int64_t excl,
                                                      int64_t o0, int C, float thrK, float thr2, float thrR,
                                                      int2* __restrict__ pairs, int cap, int* counters,
                                                      unsigned* mingap) {
    static_assert(kOffsetsPerBlock == 64, "two offsets per lane hold the warp's minima");
    __shared__ unsigned smin[kOffsetsPerBlock];
    const int tid = threadIdx.x, lane = tid & 31;
    if (tid < kOffsetsPerBlock) smin[tid] = kInfBits;
    __syncthreads();
    const int64_t i = (int64_t)blockIdx.x * kScanThreads + tid;
    const int ob = blockIdx.y * kOffsetsPerBlock;
    const int oe = min(ob + kOffsetsPerBlock, C);
    const bool iv = i < N;
    const float4 pi = iv ? P4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const bool bi = iv ? blockedS[i] != 0 : true;
    const int ai = iv ? IS[i] : 0;
    // the warp's minimum gap at offset ob + t is kept by lane t % 32 (lo: t < 32, hi: t >= 32)
    unsigned mlo = kInfBits, mhi = kInfBits;
    int64_t j = i + o0 + ob;
    float4 pj = iv && j < N ? P4[j] : pi;
    for (int oo = ob; oo < oe; ++oo, ++j) {
        const bool valid = iv && j < N;
        // the next offset's values, loaded while this one is checked
        const float4 pn = iv && j + 1 < N && oo + 1 < oe ? P4[j + 1] : pi;
        const float g = valid ? pj.x - pi.x : __uint_as_float(kInfBits);
        const unsigned wmin = __reduce_min_sync(kFullMask, __float_as_uint(g));  // gaps are >= 0: bits order them
        const int t = oo - ob;
        if (lane == (t & 31)) {
            if (t < 32) mlo = wmin;
            else mhi = wmin;
        }
        if (__uint_as_float(wmin) > thrK) {  // warp-uniform: every later offset's gaps are larger still
            if (lane > t && lane < oe - ob) mlo = min(mlo, wmin);
            if (32 + lane > t && 32 + lane < oe - ob) mhi = min(mhi, wmin);
            break;
        }
        bool surv = valid && g <= thrK && !bi;
        if (surv) {
            const float d1 = pj.y - pi.y, d2 = pj.z - pi.z, d3 = pj.w - pi.w;
            float sq = k0 ? g * g : 0.0f;
            sq += d1 * d1;
            sq += d2 * d2;
            sq += d3 * d3;
            if (sq > thr2) surv = false;
            if (surv) {
                const float4 qi = P4b[i], qj = P4b[j];
                const float e0 = qj.x - qi.x, e1 = qj.y - qi.y, e2 = qj.z - qi.z, e3 = qj.w - qi.w;
                sq += e0 * e0;
                sq += e1 * e1;
                sq += e2 * e2;
                sq += e3 * e3;
                if (sq > thr2) surv = false;
            }
            for (int k = k0 + 7; surv && k < W; ++k) {
                const float d = Y[(int64_t)k * N + j] - Y[(int64_t)k * N + i];
                sq += d * d;
                if (sq > thr2) {
                    surv = false;
                    break;
                }
            }
        }
        for (int r = 0; surv && r < R; ++r) {
            const float* row = Dp + (int64_t)r * N;
            surv = fabsf(row[j] - row[i]) <= thrR;
        }
        if (surv) surv = blockedS[j] == 0;
        int b = 0;
        if (surv) {
            b = IS[j];
            const int64_t dd = (int64_t)b - ai;
            surv = (dd < 0 ? -dd : dd) >= excl;
        }
        const unsigned bal = __ballot_sync(kFullMask, surv);
        if (bal) {
            const int leader = __ffs(bal) - 1;
            int base = 0;
            if (lane == leader) base = atomicAdd(&counters[0], __popc(bal));
            base = __shfl_sync(kFullMask, base, leader);
            if (surv) {
                const int pos = base + __popc(bal & ((1u << lane) - 1));
                if (pos < cap)
                    pairs[pos] = make_int2(min(ai, b), max(ai, b));
                else
                    counters[1] = 1;
            }
        }
        pj = pn;
    }
    // Only gaps <= thrK are reported: the host stops at the first offset
    // whose minimum exceeds its threshold (<= thrK), and a minimum above thrK
    // says "stop" whether it is reported or left at +inf.
    if (__uint_as_float(mlo) <= thrK) atomicMin(&smin[lane], mlo);
    if (__uint_as_float(mhi) <= thrK) atomicMin(&smin[32 + lane], mhi);
    __syncthreads();
    if (tid < kOffsetsPerBlock && ob + tid < C && __uint_as_float(smin[tid]) <= thrK)
        atomicMin(&mingap[ob + tid], smin[tid]);
}

__global__ void k_pair_dist(const double* __restrict__ x, int m, const double* __restrict__ mean,
                            const double* __restrict__ inv, const uint8_t* __restrict__ cst,
                            const int2* __restrict__ pairs, const int* counters, int cap, double* dist,
                            DevBest* best, double bsf, double slack) {
    const int lane = threadIdx.x & 31;
    const int n = min(counters[0], cap);
    const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t s = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32; s < n; s += warps) {
        const int2 p = pairs[s];
        // abandon against the smaller of the chunk's starting bsf and the best found so far in it
        const unsigned long long cur = *(volatile unsigned long long*)&best->dbits;
        double lim = fmin(bsf, cur == kNone ? bsf : __longlong_as_double((long long)cur)) + slack;
        const double lim2 = lim * lim;  // +inf while there is no bsf
        double d = d_zdist_warp(x + p.x, mean[p.x], inv[p.x], cst[p.x], x + p.y, mean[p.y], inv[p.y], cst[p.y], m,
                                lane, __shfl_sync(kFullMask, lim2, 0));
        if (lane == 0) {
            dist[s] = d;
            atomicMin(&best->dbits, (unsigned long long)__double_as_longlong(d));
        }
    }
}

__global__ void k_pair_tie(const int2* __restrict__ pairs, const int* counters, int cap,
                           const double* __restrict__ dist, DevBest* best) {
    const int n = min(counters[0], cap);
    const unsigned long long target = best->dbits;
    if (target >= 0x7ff0000000000000ull) return;  // nothing finite (all abandoned)
    for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < n; s += (int64_t)gridDim.x * blockDim.x)
        if ((unsigned long long)__double_as_longlong(dist[s]) == target)
            atomicMin(&best->ab, ((unsigned long long)pairs[s].x << 32) | (unsigned long long)(unsigned)pairs[s].y);
}

struct HostBest {
    double d = std::numeric_limits<double>::infinity();
    int64_t a = -1, b = -1;
    void offer(const DevBest& db) {
        if (db.dbits >= 0x7ff0000000000000ull || db.ab == kNone) return;  // none, or only abandoned (+inf)
        double d2 = __longlong_as_double_host(db.dbits);
        int64_t a2 = (int64_t)(db.ab >> 32), b2 = (int64_t)(db.ab & 0xffffffffull);
        if (a < 0 || pair_less(d2, a2, b2, d, a, b)) { d = d2; a = a2; b = b2; }
    }
    static double __longlong_as_double_host(unsigned long long v) {
        double d;
        std::memcpy(&d, &v, sizeof d);
        return d;
    }
};

}  // namespace

std::vector<MotifPair> motifs_mk(const double* x, int64_t n, int m, int64_t k, int64_t excl, int nref, TsExec* ex,
                                 MkStats* stats) {
    use_device(ex);
    const double t_start = now_ms();
    const double t_budget = steady_ms();  // ex->budget_ms counts from here
    MkStats local_stats;
    MkStats& S = stats ? *stats : local_stats;
    S = MkStats{};
    const int64_t N = n - m + 1;
    const std::vector<int64_t> refs = mk_references(N, nref);
    const int R = (int)refs.size();
    const int W = mk_paa_count(m);
    S.paa_segments = W;
    const int cap = (int)std::min<int64_t>(std::max<int64_t>(N, int64_t(1) << 20), INT32_MAX / 2);
    const int kMaxChunk = 1 << 16;
    const int kSumBlocks = 32;
    // peak: series, statistics, D, PAA coefficients (double) + rows (float),
    // order and sort scratch, the loop's buffers
    require_bytes((size_t)n * 8 + (size_t)N * 17 + (size_t)R * N * 12 + (size_t)W * N * 12 + (size_t)N * 58 +
                      (size_t)cap * 16 + (size_t)kSumBlocks * (W + W * W) * 8 + (size_t)R * 8 + (1u << 20),
                  "MK motif search");

    Stream st;
    EventTimer timer(st);
    Buffer<double> dx(n, "series"), dmean(N, "window means"), dinv(N, "window spreads");
    Buffer<uint8_t> dcst(N, "constant flags");
    check(cudaMemcpyAsync(dx.get(), x, n * sizeof(double), cudaMemcpyHostToDevice, st), "copy series");
    Buffer<int64_t> drefs(R, "references");
    check(cudaMemcpyAsync(drefs.get(), refs.data(), R * sizeof(int64_t), cudaMemcpyHostToDevice, st), "copy refs");
    timer.start();
    k_window_stats<<<grid_for(N, 256), 256, 0, st>>>(dx.get(), N, m, dmean.get(), dinv.get(), dcst.get());
    launched("window statistics");

    // D: a warp per (reference, window), in slices of references (≲ 50 ms
    // each: ~2^32 values of windows per launch)
    Buffer<double> D((size_t)R * N, "reference distances");
    const int rslice = (int)std::max<int64_t>(1, std::min<int64_t>(R, (int64_t(1) << 32) / ((int64_t)N * m)));
    for (int r = 0; r < R; r += rslice) {
        const int rn = std::min(rslice, R - r);
        k_ref_dist<<<grid_for((int64_t)rn * N * 32, 256), 256, 0, st>>>(
            dx.get(), N, m, dmean.get(), dinv.get(), dcst.get(), drefs.get() + r, rn, D.get() + (size_t)r * N);
        launched("reference distances");
        wait(st, ex);
    }
    Buffer<double> dsd(R, "reference spreads");
    k_ref_std<<<R, 1024, 0, st>>>(D.get(), N, dsd.get());
    launched("reference spreads");

    // the PAA coefficients and the sums for their principal axes
    Buffer<double> dC((size_t)W * N, "PAA coefficients");
    Buffer<unsigned long long> dzmax(1, "largest norm");
    check(cudaMemsetAsync(dzmax.get(), 0, sizeof(unsigned long long), st), "clear norm");
    k_paa<<<grid_for(N, 256), 256, 0, st>>>(dx.get(), N, m, dmean.get(), dinv.get(), dcst.get(), W, dC.get(),
                                           dzmax.get());
    launched("PAA coefficients");
    const int64_t pstride = mk_pca_stride(N), pcnt = (N + pstride - 1) / pstride;
    const int sblocks = (int)std::min<int64_t>(kSumBlocks, (pcnt + 255) / 256);
    const int E = W + W * W;
    Buffer<double> dpart((size_t)sblocks * E, "PAA sums");
    k_paa_sums<<<sblocks, 256, 0, st>>>(dC.get(), N, W, pstride, pcnt, dpart.get());
    launched("PAA sums");
    wait(st, ex);
    std::vector<double> sd(R), part((size_t)sblocks * E);
    unsigned long long zbits = 0;
    check(cudaMemcpy(sd.data(), dsd.get(), R * sizeof(double), cudaMemcpyDeviceToHost), "copy spreads");
    check(cudaMemcpy(part.data(), dpart.get(), part.size() * sizeof(double), cudaMemcpyDeviceToHost), "copy sums");
    check(cudaMemcpy(&zbits, dzmax.get(), sizeof zbits, cudaMemcpyDeviceToHost), "copy norm");
    dpart.release();
    for (int b = 1; b < sblocks; ++b)
        for (int e = 0; e < E; ++e) part[e] += part[(size_t)b * E + e];
    double zmax2;
    std::memcpy(&zmax2, &zbits, sizeof zmax2);
    const double slackP = mk_paa_slack(m, std::sqrt(zmax2));
    std::vector<double> V, var;
    mk_principal_axes(W, part.data(), part.data() + W, (double)pcnt, V, var);
    int r0 = 0;
    for (int r = 1; r < R; ++r)
        if (sd[r] > sd[r0]) r0 = r;
    const bool key_paa = std::sqrt(var[0]) > sd[r0];
    S.order_reference = key_paa ? -1 : r0;
    Buffer<double> dV((size_t)W * W, "PAA axes");
    check(cudaMemcpyAsync(dV.get(), V.data(), V.size() * sizeof(double), cudaMemcpyHostToDevice, st), "copy axes");

    // linear order by the key (stable radix sort: ties by position)
    Buffer<int> iota(N, "positions"), IS(N, "linear order");
    Buffer<double> keys(N, "keys"), keys_out(N, "sorted keys");
    k_key<<<grid_for(N, 256), 256, 0, st>>>(dC.get(), D.get(), N, W, dV.get(), key_paa, r0, keys.get());
    launched("keys");
    k_iota<<<grid_for(N, 256), 256, 0, st>>>(iota.get(), N);
    launched("iota");
    size_t tmp_bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, keys.get(), keys_out.get(), iota.get(), IS.get(), (int)N,
                                          0, 64, st),
          "sort size");
    {
        Buffer<unsigned char> tmp(tmp_bytes, "sort scratch");
        check(cub::DeviceRadixSort::SortPairs(tmp.get(), tmp_bytes, keys.get(), keys_out.get(), iota.get(), IS.get(),
                                              (int)N, 0, 64, st),
              "sort");
        wait(st, ex);
    }
    keys.release();
    iota.release();
    Buffer<float4> P4(N, "key rows"), P4b(N, "key rows");
    Buffer<float> Y((size_t)W * N, "PAA rows"), Dp((size_t)R * N, "reference rows");
    k_rows<<<grid_for(N, 256), 256, 0, st>>>(dC.get(), D.get(), keys_out.get(), IS.get(), N, W, dV.get(), key_paa, R,
                                            P4.get(), P4b.get(), Y.get(), Dp.get());
    launched("rows");
    wait(st, ex);
    dC.release();
    keys_out.release();
    const int k0 = key_paa ? 1 : 0;
    const double slack = mk_slack(m), slackK = key_paa ? slackP : slack;

    Buffer<uint8_t> dblocked(N, "blocked"), dblockedS(N, "blocked (ordered)");
    Buffer<int2> pairs(cap, "candidate pairs");
    Buffer<double> pdist(cap, "candidate distances");
    Buffer<DevBest> dbest(1, "best pair");
    Buffer<int> counters(2, "counters");
    Buffer<unsigned> mingap(kMaxChunk, "offset bounds");
    std::vector<unsigned> h_mingap(kMaxChunk);
    std::vector<uint8_t> blocked(N, 0);
    std::vector<MotifPair> result;
    EventTimer scan_timer(st), dist_timer(st);
    S.setup_ms = now_ms() - t_start;

    for (int64_t rank = 0; rank < k; ++rank) {
        ++S.runs;
        check(cudaMemcpyAsync(dblocked.get(), blocked.data(), N, cudaMemcpyHostToDevice, st), "copy mask");
        k_permute_mask<<<grid_for(N, 256), 256, 0, st>>>(dblocked.get(), IS.get(), N, dblockedS.get());
        launched("permute mask");
        // InitBSF
        k_best_reset<<<1, 32, 0, st>>>(dbest.get(), counters.get(), mingap.get(), 0);
        launched("reset");
        k_init_min<<<grid_for((int64_t)R * N, 256), 256, 0, st>>>(D.get(), N, R, drefs.get(), dblocked.get(), excl,
                                                                 dbest.get());
        launched("init bsf");
        k_init_tie<<<grid_for((int64_t)R * N, 256), 256, 0, st>>>(D.get(), N, R, drefs.get(), dblocked.get(), excl,
                                                                 dbest.get());
        launched("init bsf ties");
        wait(st, ex);
        DevBest hb;
        check(cudaMemcpy(&hb, dbest.get(), sizeof hb, cudaMemcpyDeviceToHost), "copy best");
        HostBest best;
        best.offer(hb);

        // the offset loop
        int64_t o0 = 1, last = 0;
        int64_t C = std::max<int64_t>(1, std::min<int64_t>(kMaxChunk, (int64_t(1) << 22) / N));
        bool stop = false;
        while (!stop && o0 < N) {
            check_budget(ex, t_budget);
            const int Ce = (int)std::min<int64_t>(C, N - o0);
            const double t0 = now_ms();
            k_best_reset<<<grid_for(Ce, 256), 256, 0, st>>>(dbest.get(), counters.get(), mingap.get(), Ce);
            launched("reset");
            dim3 grid((unsigned)((N - o0 + kScanThreads - 1) / kScanThreads),
                      (unsigned)((Ce + kOffsetsPerBlock - 1) / kOffsetsPerBlock));
            scan_timer.start();
            k_scan<<<grid, kScanThreads, 0, st>>>(P4.get(), P4b.get(), Y.get(), W, k0, Dp.get(), R, N, IS.get(), dblockedS.get(),
                                                 excl, o0, Ce, mk_threshold(best.d, slackK),
                                                 mk_threshold2(best.d, slackP), mk_threshold(best.d, slack),
                                                 pairs.get(), cap, counters.get(), mingap.get());
            launched("offset scan");
            scan_timer.stop();
            dist_timer.start();
            k_pair_dist<<<grid_for((int64_t)cap * 32, 256, 8192), 256, 0, st>>>(
                dx.get(), m, dmean.get(), dinv.get(), dcst.get(), pairs.get(), counters.get(), cap, pdist.get(),
                dbest.get(), best.d, slack);
            launched("pair distances");
            k_pair_tie<<<grid_for(cap, 256, 4096), 256, 0, st>>>(pairs.get(), counters.get(), cap, pdist.get(),
                                                                dbest.get());
            launched("pair ties");
            dist_timer.stop();
            wait(st, ex);
            S.scan_ms += scan_timer.ms();
            S.dist_ms += dist_timer.ms();
            int hc[2];
            check(cudaMemcpy(hc, counters.get(), sizeof hc, cudaMemcpyDeviceToHost), "copy counters");
            check(cudaMemcpy(&hb, dbest.get(), sizeof hb, cudaMemcpyDeviceToHost), "copy best");
            check(cudaMemcpy(h_mingap.data(), mingap.get(), Ce * sizeof(unsigned), cudaMemcpyDeviceToHost),
                  "copy offset bounds");
            best.offer(hb);
            S.pairs_computed += std::min(hc[0], cap);
            const double ms = now_ms() - t0;
            if (hc[1]) {  // survivors overflowed: redo these offsets, fewer at a time
                C = std::max<int64_t>(1, Ce / 2);
                continue;
            }
            // stopping rule, on the offsets' gap bounds (floats, kept as their bits for atomicMin)
            stop = mk_chunk_stops(
                best.d, slackK, Ce,
                [&](int64_t oo) {
                    float mg;
                    std::memcpy(&mg, &h_mingap[oo], sizeof mg);
                    return mg;
                },
                o0, last, S);
            if (!stop) {
                if (ms < 12 && C < kMaxChunk) C = std::min<int64_t>(kMaxChunk, C * 2);
                else if (ms > 50 && C > 1) C = C / 2;
            }
        }
        S.last_offset = last;
        if (best.a < 0) break;
        result.push_back({best.a, best.b, best.d});
        block_pair(blocked, best.a, best.b, m);
    }
    timer.stop();
    ex->kernel_ms = timer.ms();
    ex->device_ms = now_ms() - t_start;
    return result;
}

}  // namespace gpu
}  // namespace tsm
