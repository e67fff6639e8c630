// motifs.cu — MK exact motifs on the GPU (see src/core/motifs.cpp for the
// algorithm and its generalisation to k pairs; the arithmetic and the rules
// it shares with the CPU are those of src/core/motifs_detail.h, so both order
// the windows alike and return the same pairs).  Done in CUDA rather than the
// thesis's OpenACC:
//   * window statistics, the distances D of the references (a warp per
//     (reference, window)), their spreads, and the linear order (CUB radix sort
//     by the key, stable: ties by position) on the device;
//   * the bounds are stored permuted into linear order, as float, so the offset
//     loop reads them coalesced: pair (i, i+o) reads Dp[r][i] and Dp[r][i+o];
//   * the PAA bound (motifs.cpp): the coefficients of every window (a thread
//     per window), their moment sums over blocks of sampled windows (a block
//     each, a thread per sum), the axes by Jacobi on the host
//     (mk_principal_axes, through mk_plan), the key (axis 0 or the best
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
#include <cstring>
#include <limits>
#include <vector>

#include "motifs.h"
#include "parallel.h"

namespace tsm {
namespace gpu {

namespace {

using motif::BestPair;
using motif::grid_for;
using motif::kFullMask;
using motif::kPaaSegments;
using motif::kRowHead;
using motif::kSpreadLanes;
using motif::launched;

constexpr int kThreads = 256;  // blocks of the grid-stride kernels
constexpr int kScanThreads = 256;
constexpr int kOffsetsPerBlock = 64;
constexpr int kMaxChunk = 1 << 16;          // offsets per chunk at most
constexpr unsigned kInfBits = 0x7f800000u;  // +inf as float bits
constexpr unsigned long long kNone = ~0ull;
static_assert(kRowHead == 8, "the head of a position is two float4");

// ---- setup kernels -----------------------------------------------------------------

// D[r·N + j] = d(reference r, window j): a warp per (reference, window).
__global__ void k_ref_dist(const double* __restrict__ x, int64_t N, int m, const double* __restrict__ mean,
                           const double* __restrict__ inv, const uint8_t* __restrict__ cst,
                           const int64_t* __restrict__ refs, int n_refs, double* D) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t e = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32; e < (int64_t)n_refs * N; e += warps) {
        const int64_t p = refs[e / N], j = e % N;
        const double d = motif::warp_zdist(x + p, mean[p], inv[p], cst[p], x + j, mean[j], inv[j], cst[j], m, lane);
        if (lane == 0) D[e] = d;
    }
}

// The block's lane values combined by the halving tree (motifs_detail.h); every thread gets the total.
__device__ double block_tree_total(double* lanes, double v) {
    const int t = threadIdx.x;
    lanes[t] = v;
    __syncthreads();
    for (int w = kSpreadLanes / 2; w > 0; w >>= 1) {
        if (t < w) motif::spread_tree_step(lanes, t, w);
        __syncthreads();
    }
    const double total = lanes[0];
    __syncthreads();  // lanes free again
    return total;
}

// The spread of each reference's distances: a block of kSpreadLanes threads per reference.
__global__ void __launch_bounds__(kSpreadLanes) k_ref_spread(const double* __restrict__ D, int64_t N, double* sd) {
    __shared__ double lanes[kSpreadLanes];
    const double* row = D + (int64_t)blockIdx.x * N;
    double acc = 0;
    for (int64_t j = threadIdx.x; j < N; j += kSpreadLanes) motif::spread_add(acc, row[j]);
    const double mean = motif::spread_mean(block_tree_total(lanes, acc), N);
    acc = 0;
    for (int64_t j = threadIdx.x; j < N; j += kSpreadLanes) motif::spread_add_sqdev(acc, row[j], mean);
    const double sqdev = block_tree_total(lanes, acc);
    if (threadIdx.x == 0) sd[blockIdx.x] = motif::spread_sd(sqdev, N);
}

__global__ void k_iota(int* v, int64_t N) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < N; i += (int64_t)gridDim.x * blockDim.x)
        v[i] = (int)i;
}

// PAA coefficients of every window: C[s·N + p]; the largest Σ ẑ² as the bits
// of a non-negative double.
__global__ void k_paa(const double* __restrict__ x, int64_t N, int m, const double* __restrict__ mean,
                      const double* __restrict__ inv, const uint8_t* __restrict__ cst, int W, double* C,
                      unsigned long long* zmax2) {
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < N; p += (int64_t)gridDim.x * blockDim.x) {
        double norm2;
        motif::window_paa(x + p, m, mean[p], inv[p], cst[p], W, C + p, N, &norm2);
        if (norm2 > 0) atomicMax(zmax2, (unsigned long long)motif::ordered_bits(norm2));
    }
}

// The moment sums of the sampled windows' coefficients (window e·stride,
// e < samples): block b takes samples [b·kAxesSumBlock, (b+1)·kAxesSumBlock)
// in order, a thread per sum, into part[b·(W + W²)] (motifs_detail.h).
__global__ void k_paa_sums(const double* __restrict__ C, int64_t N, int W, int64_t stride, int64_t samples,
                           double* part) {
    constexpr int kTile = 32;
    constexpr int kSlots = (kPaaSegments + kPaaSegments * kPaaSegments + kThreads - 1) / kThreads;
    __shared__ double tile[kTile * kPaaSegments];
    const int E = W + W * W;
    double acc[kSlots] = {};
    const int64_t lo = blockIdx.x * motif::kAxesSumBlock, hi = min(samples, lo + motif::kAxesSumBlock);
    for (int64_t t0 = lo; t0 < hi; t0 += kTile) {
        const int nt = (int)(hi - t0 < kTile ? hi - t0 : kTile);
        __syncthreads();
        for (int v = threadIdx.x; v < nt * W; v += blockDim.x) {
            const int w = v / W, a = v % W;
            tile[w * W + a] = C[a * N + (t0 + w) * stride];
        }
        __syncthreads();
        int slot = 0;
        for (int e = threadIdx.x; e < E; e += blockDim.x, ++slot) {
            int a, b;
            motif::paa_moment_element(e, W, a, b);
            for (int w = 0; w < nt; ++w) acc[slot] = motif::paa_moment_add(acc[slot], tile + w * W, a, b);
        }
    }
    int slot = 0;
    for (int e = threadIdx.x; e < E; e += blockDim.x, ++slot) part[(int64_t)blockIdx.x * E + e] = acc[slot];
}

// The key of every window.
__global__ void k_key(motif::RowsLayout L, double* key) {
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < L.N; p += (int64_t)gridDim.x * blockDim.x)
        key[p] = motif::window_key(L, p);
}

// The rows in linear order (sorted_key[i]: the key of window order[i]), the
// head of each position in two loads: head = (key, three axes), head_b = the
// next four axes.
__global__ void k_rows(motif::RowsLayout L, const double* __restrict__ sorted_key, const int* __restrict__ order,
                       float4* head, float4* head_b) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.N; i += (int64_t)gridDim.x * blockDim.x) {
        float h[kRowHead];
        motif::window_rows(L, order[i], i, sorted_key[i], h);
        head[i] = make_float4(h[0], h[1], h[2], h[3]);
        head_b[i] = make_float4(h[4], h[5], h[6], h[7]);
    }
}

__global__ void k_permute_mask(const uint8_t* __restrict__ blocked, const int* __restrict__ order, int64_t N,
                               uint8_t* blocked_at) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < N; i += (int64_t)gridDim.x * blockDim.x)
        blocked_at[i] = blocked[order[i]];
}

// ---- the best pair ---------------------------------------------------------------------

// The best pair as two words lowered by atomic minima (motifs_detail.h).
struct DevBest {
    unsigned long long dbits;  // motif::ordered_bits
    unsigned long long code;   // motif::pair_code
};

__global__ void k_best_reset(DevBest* b, int* counters, unsigned* mingap, int offsets) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t == 0) { b->dbits = kNone; b->code = kNone; counters[0] = 0; counters[1] = 0; }
    for (int o = t; o < offsets; o += gridDim.x * blockDim.x) mingap[o] = kInfBits;
}

// InitBSF's pair e (reference e / N, window e % N): whether it is allowed, and its code.
__device__ __forceinline__ bool init_pair(int64_t e, int64_t N, const int64_t* refs, const uint8_t* blocked,
                                          int64_t excl, unsigned long long* code) {
    const int64_t p = refs[e / N], j = e % N;
    if (!motif::pair_allowed(p, j, blocked, excl)) return false;
    *code = p < j ? motif::pair_code(p, j) : motif::pair_code(j, p);
    return true;
}

// InitBSF: the best allowed (reference, window) pair, distance first ...
__global__ void k_init_min(const double* __restrict__ D, int64_t N, int n_refs, const int64_t* __restrict__ refs,
                           const uint8_t* __restrict__ blocked, int64_t excl, DevBest* best) {
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < (int64_t)n_refs * N;
         e += (int64_t)gridDim.x * blockDim.x) {
        unsigned long long code;
        if (init_pair(e, N, refs, blocked, excl, &code)) atomicMin(&best->dbits, motif::ordered_bits(D[e]));
    }
}
// ... then the smallest positions at that distance.
__global__ void k_init_tie(const double* __restrict__ D, int64_t N, int n_refs, const int64_t* __restrict__ refs,
                           const uint8_t* __restrict__ blocked, int64_t excl, DevBest* best) {
    const unsigned long long target = best->dbits;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < (int64_t)n_refs * N;
         e += (int64_t)gridDim.x * blockDim.x) {
        unsigned long long code;
        if (motif::ordered_bits(D[e]) == target && init_pair(e, N, refs, blocked, excl, &code))
            atomicMin(&best->code, code);
    }
}

// The device's best pair offered to the host's (none, or only abandoned pairs: nothing).
void offer(BestPair& best, const DevBest& db) {
    if (db.dbits >= 0x7ff0000000000000ull || db.code == kNone) return;
    best.offer(motif::from_ordered_bits(db.dbits), motif::pair_code_a(db.code), motif::pair_code_b(db.code));
}

// ---- the offset loop's kernels -------------------------------------------------------------

// The PAA bound of positions i and j (heads hd_i, hd_j; g: their key gap) stays within thr2.
__device__ __forceinline__ bool paa_bound_within(const float4* __restrict__ head_b, const float* __restrict__ Y,
                                                 int64_t N, int W, int k0, int64_t i, int64_t j, float4 hd_i,
                                                 float4 hd_j, float g, float thr2) {
    float sq = k0 ? g * g : 0.0f;
    sq += motif::paa_row_term(hd_j.y, hd_i.y);
    sq += motif::paa_row_term(hd_j.z, hd_i.z);
    sq += motif::paa_row_term(hd_j.w, hd_i.w);
    if (sq > thr2) return false;
    const float4 bi = head_b[i], bj = head_b[j];
    sq += motif::paa_row_term(bj.x, bi.x);
    sq += motif::paa_row_term(bj.y, bi.y);
    sq += motif::paa_row_term(bj.z, bi.z);
    sq += motif::paa_row_term(bj.w, bi.w);
    if (sq > thr2) return false;
    for (int k = k0 + kRowHead - 1; k < W; ++k) {
        sq += motif::paa_row_term(Y[(int64_t)k * N + j], Y[(int64_t)k * N + i]);
        if (sq > thr2) return false;
    }
    return true;
}

// Every reference bound of positions i and j stays within thr.
__device__ __forceinline__ bool refs_within(const float* __restrict__ Dp, int n_refs, int64_t N, int64_t i,
                                            int64_t j, float thr) {
    for (int r = 0; r < n_refs; ++r) {
        const float* row = Dp + (int64_t)r * N;
        if (motif::ref_gap_exceeds(row[j], row[i], thr)) return false;
    }
    return true;
}

// The warp's surviving pairs (a, b) appended to pairs (one atomic per warp);
// counters[0] counts them, counters[1] is set when they overflow cap.
__device__ __forceinline__ void append_survivors(bool surv, int a, int b, int lane, int2* __restrict__ pairs,
                                                 int cap, int* counters) {
    const unsigned bal = __ballot_sync(kFullMask, surv);
    if (!bal) return;
    const int leader = __ffs(bal) - 1;
    int base = 0;
    if (lane == leader) base = atomicAdd(&counters[0], __popc(bal));
    base = __shfl_sync(kFullMask, base, leader);
    if (surv) {
        const int pos = base + __popc(bal & ((1u << lane) - 1));
        if (pos < cap)
            pairs[pos] = make_int2(min(a, b), max(a, b));
        else
            counters[1] = 1;
    }
}

// The warp's minimum key gap at the block's offset t is kept by lane t % 32,
// in min_lo (t < 32) or min_hi (t ≥ 32), as float bits (gaps are ≥ 0: the bits order them).
__device__ __forceinline__ void keep_warp_min(unsigned wmin, int t, int lane, unsigned& min_lo, unsigned& min_hi) {
    if (lane == (t & 31)) {
        if (t < 32) min_lo = wmin;
        else min_hi = wmin;
    }
}

// The warp leaves at the block's offset t (every gap above the threshold):
// wmin bounds its gaps at the block's later offsets (below count) from below.
__device__ __forceinline__ void keep_warp_bound(unsigned wmin, int t, int count, int lane, unsigned& min_lo,
                                                unsigned& min_hi) {
    if (lane > t && lane < count) min_lo = min(min_lo, wmin);
    if (32 + lane > t && 32 + lane < count) min_hi = min(min_hi, wmin);
}

// The warps' minima into the block's, then into mingap[ob ..].  Only gaps <=
// thr_key are reported: the host stops at the first offset whose minimum
// exceeds its threshold (<= thr_key), and a minimum above thr_key says "stop"
// whether it is reported or left at +inf.
__device__ __forceinline__ void report_minima(unsigned* block_min, unsigned min_lo, unsigned min_hi, float thr_key,
                                              int ob, int offsets, unsigned* mingap) {
    const int tid = threadIdx.x, lane = tid & 31;
    if (__uint_as_float(min_lo) <= thr_key) atomicMin(&block_min[lane], min_lo);
    if (__uint_as_float(min_hi) <= thr_key) atomicMin(&block_min[32 + lane], min_hi);
    __syncthreads();
    if (tid < kOffsetsPerBlock && ob + tid < offsets && __uint_as_float(block_min[tid]) <= thr_key)
        atomicMin(&mingap[ob + tid], block_min[tid]);
}

// The offset loop's scan: offsets o0 .. o0 + offsets − 1, every position i.
// Checks: the key gap (thr_key), the PAA partial sums (thr_paa2), the
// references (thr_refs); then blocked windows and the exclusion zone.
__global__ void __launch_bounds__(kScanThreads, 8)
    k_scan(const float4* __restrict__ head, const float4* __restrict__ head_b, const float* __restrict__ Y, int W,
           int k0, const float* __restrict__ Dp, int n_refs, int64_t N, const int* __restrict__ order,
           const uint8_t* __restrict__ blocked_at, int64_t excl, int64_t o0, int offsets, float thr_key,
           float thr_paa2, float thr_refs, int2* __restrict__ pairs, int cap, int* counters, unsigned* mingap) {
    static_assert(kOffsetsPerBlock == 64, "two offsets per lane hold the warp's minima");
    __shared__ unsigned block_min[kOffsetsPerBlock];
    const int tid = threadIdx.x, lane = tid & 31;
    if (tid < kOffsetsPerBlock) block_min[tid] = kInfBits;
    __syncthreads();
    const int64_t i = (int64_t)blockIdx.x * kScanThreads + tid;
    const int ob = blockIdx.y * kOffsetsPerBlock;
    const int oe = min(ob + kOffsetsPerBlock, offsets);
    const bool iv = i < N;
    const float4 hd_i = iv ? head[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const bool blocked_i = iv ? blocked_at[i] != 0 : true;
    const int a = iv ? order[i] : 0;
    unsigned min_lo = kInfBits, min_hi = kInfBits;
    int64_t j = i + o0 + ob;
    float4 hd_j = iv && j < N ? head[j] : hd_i;
    for (int oo = ob; oo < oe; ++oo, ++j) {
        const bool valid = iv && j < N;
        // the next offset's head, loaded while this one is checked
        const float4 hd_next = iv && j + 1 < N && oo + 1 < oe ? head[j + 1] : hd_i;
        const float g = valid ? hd_j.x - hd_i.x : __uint_as_float(kInfBits);
        const unsigned wmin = __reduce_min_sync(kFullMask, __float_as_uint(g));
        const int t = oo - ob;
        keep_warp_min(wmin, t, lane, min_lo, min_hi);
        if (__uint_as_float(wmin) > thr_key) {  // warp-uniform: every later offset's gaps are larger still
            keep_warp_bound(wmin, t, oe - ob, lane, min_lo, min_hi);
            break;
        }
        bool surv = valid && g <= thr_key && !blocked_i &&
                    paa_bound_within(head_b, Y, N, W, k0, i, j, hd_i, hd_j, g, thr_paa2) &&
                    refs_within(Dp, n_refs, N, i, j, thr_refs) && blocked_at[j] == 0;
        int b = 0;
        if (surv) {
            b = order[j];
            surv = motif::far_enough(a, b, excl);
        }
        append_survivors(surv, a, b, lane, pairs, cap, counters);
        hd_j = hd_next;
    }
    report_minima(block_min, min_lo, min_hi, thr_key, ob, offsets, mingap);
}

// The exact distance of every survivor (a warp each), abandoned against the
// smaller of the chunk's starting bsf and the best found so far in it; the
// smallest distance into best->dbits.
__global__ void k_pair_dist(const double* __restrict__ x, int m, const double* __restrict__ mean,
                            const double* __restrict__ inv, const uint8_t* __restrict__ cst,
                            const int2* __restrict__ pairs, const int* counters, int cap, double* dist,
                            DevBest* best, double bsf, double slack) {
    const int lane = threadIdx.x & 31;
    const int n = min(counters[0], cap);
    const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t s = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32; s < n; s += warps) {
        const int2 p = pairs[s];
        const unsigned long long cur = *(volatile unsigned long long*)&best->dbits;
        const double lim2 =  // +inf while there is no bsf
            motif::abandon_limit2(fmin(bsf, cur == kNone ? bsf : motif::from_ordered_bits(cur)), slack);
        const double d = motif::warp_zdist(x + p.x, mean[p.x], inv[p.x], cst[p.x], x + p.y, mean[p.y], inv[p.y],
                                           cst[p.y], m, lane, __shfl_sync(kFullMask, lim2, 0));
        if (lane == 0) {
            dist[s] = d;
            atomicMin(&best->dbits, motif::ordered_bits(d));
        }
    }
}

// The smallest pair_code among the survivors at best->dbits.
__global__ void k_pair_tie(const int2* __restrict__ pairs, const int* counters, int cap,
                           const double* __restrict__ dist, DevBest* best) {
    const int n = min(counters[0], cap);
    const unsigned long long target = best->dbits;
    if (target >= 0x7ff0000000000000ull) return;  // nothing finite (all abandoned)
    for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < n; s += (int64_t)gridDim.x * blockDim.x)
        if (motif::ordered_bits(dist[s]) == target) atomicMin(&best->code, motif::pair_code(pairs[s].x, pairs[s].y));
}

// ---- the host's side -------------------------------------------------------------------------

// MK's index on the device: the series and its window statistics, the
// references and their distances, the plan, and the rows in linear order.
struct DeviceIndex {
    int64_t n = 0, N = 0;
    int m = 0, n_refs = 0;
    Buffer<double> x, mean, inv;
    Buffer<uint8_t> cst;
    Buffer<int64_t> refs;
    Buffer<double> D;  // n_refs × N
    MkPlan plan;
    Buffer<int> order;
    Buffer<float4> head, head_b;
    Buffer<float> Y, Dp;
};

// Blocks of the PAA's moment sums: one a kAxesSumBlock sampled windows.
int64_t sum_blocks(int64_t N) {
    const int64_t stride = motif::axes_sample_stride(N), samples = (N + stride - 1) / stride;
    return (samples + motif::kAxesSumBlock - 1) / motif::kAxesSumBlock;
}

// The peak: series, statistics, D, PAA coefficients (double) + rows (float),
// order and sort scratch, the loop's buffers.
void require_memory(int64_t n, int64_t N, int n_refs, int W, int cap) {
    require_bytes((size_t)n * 8 + (size_t)N * 17 + (size_t)n_refs * N * 12 + (size_t)W * N * 12 + (size_t)N * 58 +
                      (size_t)cap * 16 + (size_t)sum_blocks(N) * (W + W * W) * 8 + (size_t)n_refs * 8 + (1u << 20),
                  "MK motif search");
}

// The series and the references onto the device.
void upload(DeviceIndex& ix, const double* x, int scale_exp, const std::vector<int64_t>& refs, cudaStream_t st) {
    ix.x.allocate(ix.n, "series");
    ix.mean.allocate(ix.N, "window means");
    ix.inv.allocate(ix.N, "window spreads");
    ix.cst.allocate(ix.N, "constant flags");
    check(cudaMemcpyAsync(ix.x.get(), x, ix.n * sizeof(double), cudaMemcpyHostToDevice, st), "copy series");
    if (scale_exp != 0) {
        motif::k_scale<<<grid_for(ix.n, kThreads), kThreads, 0, st>>>(ix.x.get(), ix.n, scale_exp);
        launched("scaling");
    }
    ix.refs.allocate(ix.n_refs, "references");
    check(cudaMemcpyAsync(ix.refs.get(), refs.data(), ix.n_refs * sizeof(int64_t), cudaMemcpyHostToDevice, st),
          "copy refs");
}

// 1: window statistics, D in slices of references (≲ 50 ms each: ~2^32
// values of windows per launch), and the references' spreads into ref_sd.
void reference_distances(DeviceIndex& ix, Buffer<double>& ref_sd, cudaStream_t st, TsExec* ex) {
    const int64_t N = ix.N;
    motif::k_window_zstats<<<grid_for(N, kThreads), kThreads, 0, st>>>(ix.x.get(), N, ix.m, ix.mean.get(),
                                                                       ix.inv.get(), ix.cst.get());
    launched("window statistics");
    ix.D.allocate((size_t)ix.n_refs * N, "reference distances");
    const int slice = (int)std::max<int64_t>(1, std::min<int64_t>(ix.n_refs, (int64_t(1) << 32) / (N * ix.m)));
    for (int r = 0; r < ix.n_refs; r += slice) {
        const int count = std::min(slice, ix.n_refs - r);
        k_ref_dist<<<grid_for((int64_t)count * N * 32, kThreads), kThreads, 0, st>>>(
            ix.x.get(), N, ix.m, ix.mean.get(), ix.inv.get(), ix.cst.get(), ix.refs.get() + r, count,
            ix.D.get() + (size_t)r * N);
        launched("reference distances");
        wait(st, ex);
    }
    ref_sd.allocate(ix.n_refs, "reference spreads");
    k_ref_spread<<<ix.n_refs, kSpreadLanes, 0, st>>>(ix.D.get(), N, ref_sd.get());
    launched("reference spreads");
}

// 2: the PAA coefficients (into C) and their moment sums; on the host, the plan.
MkPlan paa_and_plan(DeviceIndex& ix, const Buffer<double>& ref_sd, Buffer<double>& C, cudaStream_t st, TsExec* ex,
                    MkStats& S) {
    const int64_t N = ix.N;
    const int W = motif::paa_count(ix.m), E = W + W * W;
    C.allocate((size_t)W * N, "PAA coefficients");
    Buffer<unsigned long long> zmax_bits(1, "largest norm");
    check(cudaMemsetAsync(zmax_bits.get(), 0, sizeof(unsigned long long), st), "clear norm");
    k_paa<<<grid_for(N, kThreads), kThreads, 0, st>>>(ix.x.get(), N, ix.m, ix.mean.get(), ix.inv.get(),
                                                      ix.cst.get(), W, C.get(), zmax_bits.get());
    launched("PAA coefficients");
    const int64_t stride = motif::axes_sample_stride(N), samples = (N + stride - 1) / stride;
    const int64_t blocks = sum_blocks(N);
    Buffer<double> part_dev((size_t)blocks * E, "PAA sums");
    k_paa_sums<<<(unsigned)blocks, kThreads, 0, st>>>(C.get(), N, W, stride, samples, part_dev.get());
    launched("PAA sums");
    wait(st, ex);
    std::vector<double> sd(ix.n_refs), part((size_t)blocks * E);
    unsigned long long zbits = 0;
    check(cudaMemcpy(sd.data(), ref_sd.get(), ix.n_refs * sizeof(double), cudaMemcpyDeviceToHost), "copy spreads");
    check(cudaMemcpy(part.data(), part_dev.get(), part.size() * sizeof(double), cudaMemcpyDeviceToHost),
          "copy sums");
    check(cudaMemcpy(&zbits, zmax_bits.get(), sizeof zbits, cudaMemcpyDeviceToHost), "copy norm");
    return mk_plan(ix.m, W, sd, part, samples, motif::from_ordered_bits(zbits), S);
}

// 3: the key of every window, the linear order (stable radix sort: ties by
// position), and the rows in that order.
void order_and_rows(DeviceIndex& ix, const Buffer<double>& C, cudaStream_t st, TsExec* ex) {
    const int64_t N = ix.N;
    const MkPlan& plan = ix.plan;
    Buffer<double> V(plan.V.size(), "PAA axes");
    check(cudaMemcpyAsync(V.get(), plan.V.data(), plan.V.size() * sizeof(double), cudaMemcpyHostToDevice, st),
          "copy axes");
    ix.order.allocate(N, "linear order");
    Buffer<int> positions(N, "positions");
    Buffer<double> key(N, "keys"), sorted_key(N, "sorted keys");
    motif::RowsLayout L{C.get(), ix.D.get(), V.get(), N, plan.W, ix.n_refs, plan.r0, plan.key_paa, nullptr, nullptr};
    k_key<<<grid_for(N, kThreads), kThreads, 0, st>>>(L, key.get());
    launched("keys");
    k_iota<<<grid_for(N, kThreads), kThreads, 0, st>>>(positions.get(), N);
    launched("iota");
    size_t tmp_bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, key.get(), sorted_key.get(), positions.get(),
                                          ix.order.get(), (int)N, 0, 64, st),
          "sort size");
    {
        Buffer<unsigned char> tmp(tmp_bytes, "sort scratch");
        check(cub::DeviceRadixSort::SortPairs(tmp.get(), tmp_bytes, key.get(), sorted_key.get(), positions.get(),
                                              ix.order.get(), (int)N, 0, 64, st),
              "sort");
        wait(st, ex);
    }
    key.release();
    positions.release();
    ix.head.allocate(N, "key rows");
    ix.head_b.allocate(N, "key rows");
    ix.Y.allocate((size_t)plan.W * N, "PAA rows");
    ix.Dp.allocate((size_t)ix.n_refs * N, "reference rows");
    L.Y = ix.Y.get();
    L.Dp = ix.Dp.get();
    k_rows<<<grid_for(N, kThreads), kThreads, 0, st>>>(L, sorted_key.get(), ix.order.get(), ix.head.get(),
                                                       ix.head_b.get());
    launched("rows");
    wait(st, ex);
}

// The offset loop's buffers (device) and the host's copy of the offsets' gap bounds.
struct LoopBuffers {
    int cap;
    Buffer<uint8_t> blocked, blocked_at;
    Buffer<int2> pairs;
    Buffer<double> dist;
    Buffer<DevBest> best;
    Buffer<int> counters;
    Buffer<unsigned> mingap;
    std::vector<unsigned> host_mingap;
    LoopBuffers(int64_t N, int cap_)
        : cap(cap_), blocked(N, "blocked"), blocked_at(N, "blocked (ordered)"), pairs(cap_, "candidate pairs"),
          dist(cap_, "candidate distances"), best(1, "best pair"), counters(2, "counters"),
          mingap(kMaxChunk, "offset bounds"), host_mingap(kMaxChunk) {}
};

// The chunk's best pair from the device, offered to best.
void collect_best(LoopBuffers& lb, BestPair& best) {
    DevBest db;
    check(cudaMemcpy(&db, lb.best.get(), sizeof db, cudaMemcpyDeviceToHost), "copy best");
    offer(best, db);
}

// InitBSF, with the blocked windows of the rank (also in linear order).
BestPair initial_bsf(const DeviceIndex& ix, LoopBuffers& lb, const std::vector<uint8_t>& blocked, int64_t excl,
                     cudaStream_t st, TsExec* ex) {
    const int64_t N = ix.N, pairs = (int64_t)ix.n_refs * N;
    check(cudaMemcpyAsync(lb.blocked.get(), blocked.data(), N, cudaMemcpyHostToDevice, st), "copy mask");
    k_permute_mask<<<grid_for(N, kThreads), kThreads, 0, st>>>(lb.blocked.get(), ix.order.get(), N,
                                                               lb.blocked_at.get());
    launched("permute mask");
    k_best_reset<<<1, 32, 0, st>>>(lb.best.get(), lb.counters.get(), lb.mingap.get(), 0);
    launched("reset");
    k_init_min<<<grid_for(pairs, kThreads), kThreads, 0, st>>>(ix.D.get(), N, ix.n_refs, ix.refs.get(),
                                                               lb.blocked.get(), excl, lb.best.get());
    launched("init bsf");
    k_init_tie<<<grid_for(pairs, kThreads), kThreads, 0, st>>>(ix.D.get(), N, ix.n_refs, ix.refs.get(),
                                                               lb.blocked.get(), excl, lb.best.get());
    launched("init bsf ties");
    wait(st, ex);
    BestPair best;
    collect_best(lb, best);
    return best;
}

// The timers of the offset loop's two kernel groups.
struct LoopTimers {
    EventTimer scan, dist;
    explicit LoopTimers(cudaStream_t st) : scan(st), dist(st) {}
};

// One chunk of ce offsets from o0: the scan, the survivors' exact distances
// and the chunk's best pair (offered to best); the offsets' gap bounds into
// lb.host_mingap.  Whether the survivors overflowed their buffer.
bool scan_chunk(const DeviceIndex& ix, LoopBuffers& lb, int64_t o0, int ce, int64_t excl, BestPair& best,
                LoopTimers& timers, cudaStream_t st, TsExec* ex, MkStats& S) {
    const int64_t N = ix.N;
    const MkPlan& plan = ix.plan;
    const motif::ScanThresholds thr = plan.thresholds(best.d);
    k_best_reset<<<grid_for(ce, kThreads), kThreads, 0, st>>>(lb.best.get(), lb.counters.get(), lb.mingap.get(), ce);
    launched("reset");
    const dim3 grid((unsigned)((N - o0 + kScanThreads - 1) / kScanThreads),
                    (unsigned)((ce + kOffsetsPerBlock - 1) / kOffsetsPerBlock));
    timers.scan.start();
    k_scan<<<grid, kScanThreads, 0, st>>>(ix.head.get(), ix.head_b.get(), ix.Y.get(), plan.W, plan.k0, ix.Dp.get(),
                                          ix.n_refs, N, ix.order.get(), lb.blocked_at.get(), excl, o0, ce, thr.key,
                                          thr.paa2, thr.refs, lb.pairs.get(), lb.cap, lb.counters.get(),
                                          lb.mingap.get());
    launched("offset scan");
    timers.scan.stop();
    timers.dist.start();
    k_pair_dist<<<grid_for((int64_t)lb.cap * 32, kThreads, 8192), kThreads, 0, st>>>(
        ix.x.get(), ix.m, ix.mean.get(), ix.inv.get(), ix.cst.get(), lb.pairs.get(), lb.counters.get(), lb.cap,
        lb.dist.get(), lb.best.get(), best.d, plan.slack);
    launched("pair distances");
    k_pair_tie<<<grid_for(lb.cap, kThreads, 4096), kThreads, 0, st>>>(lb.pairs.get(), lb.counters.get(), lb.cap,
                                                                     lb.dist.get(), lb.best.get());
    launched("pair ties");
    timers.dist.stop();
    wait(st, ex);
    S.scan_ms += timers.scan.ms();
    S.dist_ms += timers.dist.ms();
    int counts[2];
    check(cudaMemcpy(counts, lb.counters.get(), sizeof counts, cudaMemcpyDeviceToHost), "copy counters");
    collect_best(lb, best);
    check(cudaMemcpy(lb.host_mingap.data(), lb.mingap.get(), ce * sizeof(unsigned), cudaMemcpyDeviceToHost),
          "copy offset bounds");
    S.pairs_computed += std::min(counts[0], lb.cap);
    return counts[1] != 0;
}

// One rank: InitBSF, then the offset loop in chunks (sized to ≲ 50 ms) until the stopping rule.
BestPair best_allowed_pair(const DeviceIndex& ix, LoopBuffers& lb, const std::vector<uint8_t>& blocked,
                           int64_t excl, LoopTimers& timers, cudaStream_t st, TsExec* ex, double t_budget,
                           MkStats& S) {
    const int64_t N = ix.N;
    BestPair best = initial_bsf(ix, lb, blocked, excl, st, ex);
    int64_t o0 = 1, last = 0;
    int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(kMaxChunk, (int64_t(1) << 22) / N));
    bool stop = false;
    while (!stop && o0 < N) {
        check_budget(ex, t_budget);
        const int ce = (int)std::min<int64_t>(chunk, N - o0);
        const double t0 = now_ms();
        const bool overflow = scan_chunk(ix, lb, o0, ce, excl, best, timers, st, ex, S);
        const double ms = now_ms() - t0;
        if (overflow) {  // redo these offsets, fewer at a time
            chunk = std::max<int64_t>(1, ce / 2);
            continue;
        }
        // the stopping rule, on the offsets' gap bounds (floats, kept as their bits for atomicMin)
        stop = motif::chunk_stops(
            best.d, ix.plan.slack_key, ce,
            [&](int64_t oo) {
                float gap;
                std::memcpy(&gap, &lb.host_mingap[oo], sizeof gap);
                return gap;
            },
            o0, last, S.offsets);
        if (!stop) {
            if (ms < 12 && chunk < kMaxChunk) chunk = std::min<int64_t>(kMaxChunk, chunk * 2);
            else if (ms > 50 && chunk > 1) chunk = chunk / 2;
        }
    }
    S.last_offset = last;
    return best;
}

}  // namespace

std::vector<MotifPair> motifs_mk(const double* x, int64_t n, int m, int64_t k, int64_t excl, int n_refs,
                                 TsExec* ex, MkStats* stats, int scale_exp) {
    use_device(ex);
    const double t_start = now_ms();
    const double t_budget = steady_ms();  // ex->budget_ms counts from here
    MkStats local_stats;
    MkStats& S = stats ? *stats : local_stats;
    S = MkStats{};
    DeviceIndex ix;
    ix.n = n;
    ix.N = n - m + 1;
    ix.m = m;
    const std::vector<int64_t> refs = mk_references(ix.N, n_refs);
    ix.n_refs = (int)refs.size();
    const int cap = (int)std::min<int64_t>(std::max<int64_t>(ix.N, int64_t(1) << 20), INT32_MAX / 2);
    require_memory(n, ix.N, ix.n_refs, motif::paa_count(m), cap);

    Stream st;
    EventTimer timer(st);
    upload(ix, x, scale_exp, refs, st);
    timer.start();
    {
        Buffer<double> ref_sd, C;
        reference_distances(ix, ref_sd, st, ex);
        ix.plan = paa_and_plan(ix, ref_sd, C, st, ex, S);
        order_and_rows(ix, C, st, ex);
    }
    LoopBuffers lb(ix.N, cap);
    LoopTimers timers(st);
    S.setup_ms = now_ms() - t_start;

    const std::vector<MotifPair> result = mk_ranks(ix.N, m, k, S, [&](const std::vector<uint8_t>& blocked) {
        return best_allowed_pair(ix, lb, blocked, excl, timers, st, ex, t_budget, S);
    });
    timer.stop();
    ex->kernel_ms = timer.ms();
    ex->device_ms = now_ms() - t_start;
    return result;
}

}  // namespace gpu
}  // namespace tsm
