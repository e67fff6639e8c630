// shapelets.cu — shapelet discovery on the GPU (Chang et al., ICDM 2012, with
// the centred recurrence of shapelets.h).
//
// Work: for every length L and source series s, the pivots p = 0..n_s-L are
// rows of a matrix against each target series j (columns u = windows of j).
//  * f_kernel: the direct (centred-sum) diagonal starts, once per length group:
//    F(s, j, u) = c(window 0 of s, window u of j) for every ordered pair of
//    series.  These are the first rows of the row group p = 0 of every (s, j),
//    and — read transposed, c(p, 0) of (s, j) = F(j, s, p), the same products
//    (multiplication commutes exactly) summed in the same order — the column-0
//    starts of every row.  A thread per target window, eight sources each, the
//    centred source windows staged in shared memory: every direct value once, at
//    full lane use (the distance kernel used to compute each twice, with idle
//    lanes for short rows).  Groups whose table would pass Tuning::f_cap leave
//    the starts to the distance kernel, as before.
//  * dist_kernel: one warp per task (s, L, target j, row group); a lane per one,
//    two or four consecutive pivot rows (the paper's thread per pivot; at most
//    Tuning::rows_per_lane, fewer for a tile's last rows), 32 to 128 rows a tile.
//    The warp walks the target's windows u in lockstep: the first row of a lane
//    gets c(p-1,u-1) from the lane before by a shuffle (lane 0 from the previous
//    tile's last row kept in shared memory), the next ones from the lane's own
//    rows, so each step is O(1) (recurrence (6)-(7)) and a pivot's distance to
//    a series costs O(n_j).  The kernel is bound by shared/L1 traffic (the
//    target's terms, the carry, the shuffle): two rows a lane halve it per
//    cell; four cost more registers than they save (measured).  Tasks are
//    taken one at a time from an atomic counter by persistent warps (batches of
//    four consecutive tasks were measured slower on the big sets: longer tails
//    per launch).  Per-pivot distances go to a bounded batch matrix D[j][pivot].
//  * gain_kernel: one warp per pivot, a contiguous range of pivots per warp:
//    the order line (rank sort in shared memory; the tie count only when there
//    are ties), class counts by ballots, the gain of every split in fixed
//    point; then, only where the best gain can still enter the warp's best-k
//    list, the prefix sums and separation gaps of the splits with that gain.
//    For k <= kDevTopK each warp keeps its own sorted best-k list on the device
//    across launches (the order of cand_better), merge_kernel merges them at
//    the end and only the k best come back; for larger k, (gain, gap,
//    threshold) per pivot come back per launch.
// The whole call is planned first (length groups whose window statistics and F
// table fit, launches within them); every device buffer is carved from one
// allocation sized from the plan (one cudaMalloc and one cudaFree a call, so the
// accounting of gpu_runtime.h sees the call's whole footprint and nothing
// stays), and everything the host prepares (series, labels, work items, window
// offsets of every length) is written in place into one staging buffer and goes
// up in one copy.  A launch holds at most kMaxBatchBytes of distances; launches
// queue up without host round trips, with tsm::gpu::wait after about kChunkCost
// cell updates (tens of ms) of them.  Window statistics are computed on the
// device (stats_kernel, bit-identical with the host's).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "api_shapelets.h"
#include "error.h"
#include "gpu_runtime.h"
#include "parallel.h"
#include "shapelets.h"

namespace tsm {
namespace shp {
namespace gpu {

using tsm::gpu::Buffer;
using tsm::gpu::check;

Tuning& tuning() {
    static Tuning t;
    return t;
}

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kDistWarps = 4;                        // warps per block of dist_kernel
constexpr double kChunkCost = 2.5e10;                // cell updates per launch (~20-40 ms on an H100)
constexpr size_t kMaxBatchBytes = size_t(32) << 20;  // D matrix of one launch
constexpr int64_t kStatsEntries = int64_t(1) << 20;  // windows of one length group
constexpr int kDevTopK = 64;                         // device best-k lists up to this k
constexpr int kFT = 128;                             // f_kernel: threads (target windows) per block
constexpr int kFS = 8;                               // f_kernel: sources per thread
constexpr int kFTC = 128;                            // f_kernel: source-window values staged per pass

struct Item {
    int64_t task_base;   // first warp task of this (s, L), relative to its launch
    int64_t pivot_base;  // first row of D, relative to its launch
    int64_t row;         // training row of the source
    int32_t s, li, L, P, ngroups, R;
};

// A candidate as kept on the device (the fields of Cand).
struct DevCand {
    long long g;
    double gap, thr;
    long long row;
    int32_t s, p, L, pad;
};

// cand_better of shapelets.cpp: gain, gap, smaller length, smaller row, smaller start.
__device__ __forceinline__ bool dev_better(const DevCand& a, const DevCand& b) {
    if (a.g != b.g) return a.g > b.g;
    if (a.gap != b.gap) return a.gap > b.gap;
    if (a.L != b.L) return a.L < b.L;
    if (a.row != b.row) return a.row < b.row;
    return a.p < b.p;
}

__device__ __forceinline__ int find_item_by_task(const Item* it, int n, int64_t t) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) >> 1;
        if (it[mid].task_base <= t) lo = mid; else hi = mid - 1;
    }
    return lo;
}
__device__ __forceinline__ int find_item_by_pivot(const Item* it, int n, int64_t p) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) >> 1;
        if (it[mid].pivot_base <= p) lo = mid; else hi = mid - 1;
    }
    return lo;
}

__device__ __forceinline__ double direct_comoment(const double* a, double mua, const double* b, double mub, int L) {
    double s = 0;
    for (int t = 0; t < L; ++t) s = hd::add(s, hd::mul(hd::sub(a[t], mua), hd::sub(b[t], mub)));
    return s;
}

// Window statistics on the device, bit-identical with the host's
// window_stats_flat: the chunks of sliding_detail.h (the host's own code), then
// the flat rule (window_is_flat).  One warp per (length, series), a lane per
// chunk of kStatsChunk windows.  FLAT must be zeroed.
__global__ void stats_kernel(const double* X, const int64_t* xo, const int64_t* xn, const int64_t* so,
                             const int32_t* Ls, int N, int nL, double* MU, double* ISD, uint8_t* FLAT) {
    const int lane = threadIdx.x & 31;
    const int64_t w0 = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t nw = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t q = w0; q < (int64_t)N * nL; q += nw) {
        const int64_t o = so[q];
        if (o < 0) continue;
        const int li = (int)(q / N), j = (int)(q % N);
        const int m = Ls[li];
        const double* x = X + xo[j];
        const int64_t count = xn[j] - m + 1;
        bool any_flat = false;
        for (int64_t i0 = (int64_t)lane * kStatsChunk; i0 < count; i0 += 32 * kStatsChunk) {
            detail::window_stats_chunk_emit(x, m, i0, min(count, i0 + kStatsChunk),
                                            [&](int64_t i, double mean, double sv, bool constant) {
                                                const bool flat = window_is_flat(mean, sv, constant);
                                                MU[o + i] = mean;
                                                ISD[o + i] = flat ? 0.0 : hd::div(1.0, sv);
                                                any_flat |= flat;
                                            });
        }
        if (__any_sync(kFull, any_flat) && lane == 0) FLAT[q] = 1;
    }
}

// df/dg of every window of every series at every length of the group, as pairs.
__global__ void terms_kernel(const double* X, const int64_t* xo, const int64_t* xn, const int64_t* so,
                             const int32_t* Ls, int N, int nL, const double* MU, double2* DFG) {
    for (int64_t q = blockIdx.x; q < (int64_t)N * nL; q += gridDim.x) {
        const int li = (int)(q / N), j = (int)(q % N);
        const int64_t o = so[q];
        if (o < 0) continue;
        const int L = Ls[li];
        const double* x = X + xo[j];
        const int64_t U = xn[j] - L + 1;
        for (int64_t u = threadIdx.x; u + 1 < U; u += blockDim.x)
            DFG[o + u] = make_double2(hd::mul(hd::sub(x[u + L], x[u]), 0.5),
                                      hd::add(hd::sub(x[u + L], MU[o + u + 1]), hd::sub(x[u], MU[o + u])));
    }
}

// The direct diagonal starts of a length group (see the top of the file):
// F[N*eoff[li] + s*E[li] + (e - eoff[li])] = direct_comoment(x_s, mu_s[0], x_j + u, mu_j[u], L)
// for the group-relative window e = st[li*N + j] + u of every target j and every
// source s with n_s >= L.  Block x: kFT consecutive windows of one length (fblk:
// first block of each length), block y: kFS sources.
__global__ void __launch_bounds__(kFT)
f_kernel(const double* X, const int64_t* xo, const int64_t* so, const int64_t* st, const int32_t* Ls,
         const int64_t* E, const int64_t* eoff, const int64_t* fblk, int N, int nL, const double* MU, double* F) {
    __shared__ double2 ca[kFTC][kFS / 2];  // centred source windows: ca[t] holds sources s0..s0+kFS-1
    const int tid = threadIdx.x;
    const int64_t b = blockIdx.x;
    int lo = 0, hi = nL - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (fblk[mid] <= b) lo = mid; else hi = mid - 1;
    }
    const int li = lo;
    const int L = Ls[li];
    const int64_t El = E[li], e0 = eoff[li];
    const int64_t e = e0 + (b - fblk[li]) * kFT + tid;
    const bool valid = e < e0 + El;
    const int64_t* stl = st + (int64_t)li * N;
    const int64_t* sol = so + (int64_t)li * N;
    int j = 0;
    int64_t u = 0;
    if (valid) {  // the target of window e: the last j with st[j] <= e (empty series share the next start)
        int a = 0, z = N - 1;
        while (a < z) {
            const int mid = (a + z + 1) >> 1;
            if (stl[mid] <= e) a = mid; else z = mid - 1;
        }
        j = a;
        u = e - stl[j];
    }
    const int s0 = blockIdx.y * kFS;
    const double* xj = X + xo[j] + u;
    const double muj = valid ? MU[e] : 0.0;
    double acc[kFS];
#pragma unroll
    for (int r = 0; r < kFS; ++r) acc[r] = 0.0;
    double* cad = reinterpret_cast<double*>(ca);
    for (int t0 = 0; t0 < L; t0 += kFTC) {
        const int tn = min(kFTC, L - t0);
        __syncthreads();
        for (int idx = tid; idx < kFTC * kFS; idx += kFT) {
            const int r = idx / kFTC, t = idx % kFTC;
            const int s = s0 + r;
            double v = 0.0;
            if (t < tn && s < N) {
                const int64_t os = sol[s];
                if (os >= 0) v = hd::sub(X[xo[s] + t0 + t], MU[os]);
            }
            cad[t * kFS + r] = v;
        }
        __syncthreads();
        if (valid)
            for (int t = 0; t < tn; ++t) {
                const double cb = hd::sub(xj[t0 + t], muj);
#pragma unroll
                for (int r2 = 0; r2 < kFS / 2; ++r2) {
                    const double2 a2 = ca[t][r2];
                    acc[2 * r2] = hd::add(acc[2 * r2], hd::mul(a2.x, cb));
                    acc[2 * r2 + 1] = hd::add(acc[2 * r2 + 1], hd::mul(a2.y, cb));
                }
            }
    }
    if (!valid) return;
    double* out = F + (int64_t)N * e0 + (e - e0);
#pragma unroll
    for (int r = 0; r < kFS; ++r) {
        const int s = s0 + r;
        if (s < N && sol[s] >= 0) out[(int64_t)s * El] = acc[r];
    }
}

// One tile of a task of dist_kernel: rows pt + RPL*lane + r (r < RPL) against
// every window of the target.  bufA: the row before the tile (lane 0's left
// neighbour), or the group's first row when `first`; bufB: this tile's last row.
template <int RPL>
__device__ __forceinline__ void dist_tile(int lane, int64_t pt, int64_t g0, int64_t g1, int U, int L, bool first,
                                          const double* a, const double* mua, const double* isa, const double2* tfa,
                                          const double* b, const double* mub, const double* isb, const double2* tfb,
                                          const double* Fcol, bool flat, const double* bufA, double* bufB,
                                          double* Dcol) {
    double c[RPL], fa[RPL], ga[RPL], ia[RPL], vmax[RPL];
    const double ib0 = isb[0];
#pragma unroll
    for (int r = 0; r < RPL; ++r) {
        const int64_t p = pt + (int64_t)lane * RPL + r;
        fa[r] = ga[r] = ia[r] = c[r] = 0;
        if (p < g1) {
            ia[r] = isa[p];
            if (p > g0) {
                const double2 t = tfa[p - 1];
                fa[r] = t.x;
                ga[r] = t.y;
            }
            c[r] = Fcol ? Fcol[p] : direct_comoment(a + p, mua[p], b, mub[0], L);  // column 0 (diagonal start)
        }
        vmax[r] = hd::mul(c[r], ib0);
    }
    if (lane == 31) bufB[0] = c[RPL - 1];
#pragma unroll 4
    for (int u = 1; u < U; ++u) {
        const double up = __shfl_up_sync(kFull, c[RPL - 1], 1);
        const double2 tb = tfb[u - 1];
        const double ib = isb[u];
#pragma unroll
        for (int r = RPL - 1; r >= 1; --r) c[r] = comoment_step(c[r - 1], fa[r], ga[r], tb.x, tb.y);
        const double left = bufA[u - 1];  // shared broadcast; lane 0's left neighbour
        double cn = comoment_step(lane == 0 ? left : up, fa[0], ga[0], tb.x, tb.y);
        if (first && lane == 0) cn = bufA[u];  // the group's first row: direct
        c[0] = cn;
#pragma unroll
        for (int r = 0; r < RPL; ++r) {
            const double v = hd::mul(c[r], ib);
            if (v > vmax[r]) vmax[r] = v;
        }
        if (lane == 31) bufB[u] = c[RPL - 1];
    }
    __syncwarp();
#pragma unroll
    for (int r = 0; r < RPL; ++r) {
        const int64_t p = pt + (int64_t)lane * RPL + r;
        if (p < g1) Dcol[p] = distance_from_best(vmax[r], ia[r], L, flat);
    }
}

template <int MAXRPL>
__device__ __forceinline__ int64_t dist_tile_any(int lane, int64_t pt, int64_t g0, int64_t g1, int U, int L, bool first,
                                                 const double* a, const double* mua, const double* isa,
                                                 const double2* tfa, const double* b, const double* mub,
                                                 const double* isb, const double2* tfb, const double* Fcol, bool flat,
                                                 const double* bufA, double* bufB, double* Dcol) {
    const int64_t rem = g1 - pt;
    if (MAXRPL >= 4 && rem > 96) {
        dist_tile<4>(lane, pt, g0, g1, U, L, first, a, mua, isa, tfa, b, mub, isb, tfb, Fcol, flat, bufA, bufB, Dcol);
        return 128;
    }
    if (MAXRPL >= 2 && rem > 32) {
        dist_tile<2>(lane, pt, g0, g1, U, L, first, a, mua, isa, tfa, b, mub, isb, tfb, Fcol, flat, bufA, bufB, Dcol);
        return 64;
    }
    dist_tile<1>(lane, pt, g0, g1, U, L, first, a, mua, isa, tfa, b, mub, isb, tfb, Fcol, flat, bufA, bufB, Dcol);
    return 32;
}

template <int MAXRPL>
__global__ void __launch_bounds__(kDistWarps * 32)
dist_kernel(const Item* items, int n_items, int64_t n_tasks, int N, const double* X, const int64_t* xo,
            const int64_t* xn, const int64_t* so, const uint8_t* has_flat, const double* MU, const double* ISD,
            const double2* DFG, const double* F, const int64_t* E, const int64_t* eoff, double* D,
            int64_t Pb, unsigned long long* counter, double* gcarry, int64_t ucap, int carry_in_shared) {
    extern __shared__ double smem[];
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const int64_t gw = (int64_t)blockIdx.x * kDistWarps + wib;
    double* bufA = carry_in_shared ? smem + (size_t)wib * 2 * ucap : gcarry + (size_t)gw * 2 * ucap;
    double* bufB = bufA + ucap;
    for (;;) {
        unsigned long long t = 0;
        if (lane == 0) t = atomicAdd(counter, 1ULL);
        t = __shfl_sync(kFull, t, 0);
        if ((int64_t)t >= n_tasks) break;
        const Item it = items[find_item_by_task(items, n_items, (int64_t)t)];
        const int64_t local = (int64_t)t - it.task_base;
        const int j = (int)(local % N);
        const int64_t grp = local / N;
        const int64_t g0 = grp * it.R, g1 = min((int64_t)it.P, g0 + it.R);
        const int L = it.L;
        double* Dcol = D + (int64_t)j * Pb + it.pivot_base;
        const int64_t nb = xn[j];
        if (j == it.s || nb < L) {
            const double v = j == it.s ? 0.0 : kShorterDistance;
            for (int64_t p = g0 + lane; p < g1; p += 32) Dcol[p] = v;
            continue;
        }
        const int64_t oa = so[(int64_t)it.li * N + it.s], ob = so[(int64_t)it.li * N + j];
        const double* a = X + xo[it.s];
        const double* b = X + xo[j];
        const double *mua = MU + oa, *isa = ISD + oa;
        const double *mub = MU + ob, *isb = ISD + ob;
        const double2 *tfa = DFG + oa, *tfb = DFG + ob;
        const bool flat = has_flat[(int64_t)it.li * N + j];
        const int64_t U = nb - L + 1;
        const double* Frow = nullptr;  // the first row of group 0: F(s, j, u)
        const double* Fcol = nullptr;  // column 0: F(j, s, p)
        if (F) {
            const int64_t El = E[it.li], e0 = eoff[it.li];
            Frow = F + (int64_t)N * e0 + (int64_t)it.s * El + (ob - e0);
            Fcol = F + (int64_t)N * e0 + (int64_t)j * El + (oa - e0);
        }
        // the group's first row (diagonal starts)
        if (Frow && g0 == 0)
            for (int64_t u = lane; u < U; u += 32) bufA[u] = Frow[u];
        else
            for (int64_t u = lane; u < U; u += 32) bufA[u] = direct_comoment(a + g0, mua[g0], b + u, mub[u], L);
        __syncwarp();
        for (int64_t pt = g0; pt < g1;) {
            pt += dist_tile_any<MAXRPL>(lane, pt, g0, g1, (int)U, L, pt == g0, a, mua, isa, tfa, b, mub, isb, tfb, Fcol,
                                        flat, bufA, bufB, Dcol);
            double* tmp = bufA; bufA = bufB; bufB = tmp;
        }
        __syncwarp();  // every lane done with the buffers before the next task writes them
    }
}

// One warp per pivot.  Shared per warp: sd, od, suml (N doubles), sy, oy (N ints), base (C ints).
// After the order line is built, sd holds the gain of every split (int64).
__global__ void gain_kernel(const Item* items, int n_items, int64_t n_piv, int N, int C, const int32_t* y,
                            const int64_t* T, const int64_t* tot, int64_t base_g, const double* D, int64_t Pb,
                            const double* ISD, const int64_t* so, const double* partner, int op, int64_t* outG,
                            double* outGap, double* outThr, DevCand* top, int k) {
    extern __shared__ double smem[];
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5, wpb = blockDim.x >> 5;
    const size_t per_warp = (size_t)3 * N * sizeof(double) + (size_t)2 * N * sizeof(int32_t) + (size_t)C * sizeof(int32_t);
    const size_t per_warp_al = (per_warp + 15) & ~size_t(15);
    char* base_ptr = reinterpret_cast<char*>(smem) + wib * per_warp_al;
    double* sd = reinterpret_cast<double*>(base_ptr);
    double* od = sd + N;
    double* suml = od + N;
    int32_t* sy = reinterpret_cast<int32_t*>(suml + N);
    int32_t* oy = sy + N;
    int32_t* base = oy + N;
    long long* gi = reinterpret_cast<long long*>(sd);
    const unsigned lemask = (lane == 31) ? kFull : ((1u << (lane + 1)) - 1u);
    // this warp's own best-k list (sorted, best first, g = -1 marks empty slots), kept
    // across launches; `worst` is the gain of its last entry (-1 while not full)
    DevCand* list = top ? top + ((int64_t)blockIdx.x * wpb + wib) * k : nullptr;
    long long worst = list ? list[k - 1].g : -1;
    // a contiguous range of pivots per warp: the item of the next pivot is this one or a later one
    const int64_t nw = (int64_t)gridDim.x * wpb, per = (n_piv + nw - 1) / nw;
    const int64_t pv0 = ((int64_t)blockIdx.x * wpb + wib) * per, pv1 = min(n_piv, pv0 + per);
    int idx = pv0 < pv1 ? find_item_by_pivot(items, n_items, pv0) : 0;
    for (int64_t pv = pv0; pv < pv1; ++pv) {
        while (idx + 1 < n_items && items[idx + 1].pivot_base <= pv) ++idx;
        const Item it = items[idx];
        const int64_t p = pv - it.pivot_base;
        if (ISD[so[(int64_t)it.li * N + it.s] + p] == 0.0) {  // flat: not a candidate
            if (lane == 0 && !top) outG[pv] = -1;
            continue;
        }
        for (int j = lane; j < N; j += 32) {
            double d = D[(int64_t)j * Pb + pv];
            if (partner) d = op == TS_SHAPELET_AND ? fmax(d, partner[j]) : fmin(d, partner[j]);
            sd[j] = d;
            sy[j] = y[j];
        }
        for (int c = lane; c < C; c += 32) base[c] = 0;
        __syncwarp();
        // rank = position on the order line: the number of smaller distances, plus (ties)
        // the number of equal ones at smaller indexes.  The ranks of smaller distances sum
        // to N(N-1)/2 exactly when there are no ties; only then is the second count skipped.
        int32_t* rk = reinterpret_cast<int32_t*>(suml);  // scratch until the prefix sums
        int rsum = 0;
        for (int j = lane; j < N; j += 32) {
            const double dj = sd[j];
            int r = 0;
#pragma unroll 8
            for (int i = 0; i < N; ++i) r += sd[i] < dj;
            rk[j] = r;
            rsum += r;
        }
        for (int off = 16; off > 0; off >>= 1) rsum += __shfl_xor_sync(kFull, rsum, off);
        if (rsum != N * (N - 1) / 2)
            for (int j = lane; j < N; j += 32) {
                const double dj = sd[j];
                int e = 0;
                for (int i = 0; i < j; ++i) e += sd[i] == dj;
                rk[j] += e;
            }
        for (int j = lane; j < N; j += 32) {
            const int r = rk[j];
            od[r] = sd[j];
            oy[r] = sy[j];
        }
        __syncwarp();
        // the gain of every split between distinct neighbours (-1 elsewhere), and the best
        long long bg = -1;
        for (int k0 = 0; k0 < N; k0 += 32) {
            const int i = k0 + lane;
            const int yi = i < N ? oy[i] : -1;
            int64_t TL = 0, TR = 0;
            for (int c = 0; c < C; ++c) {
                const unsigned m = __ballot_sync(kFull, yi == c);
                const int l = base[c] + __popc(m & lemask);
                TL += T[l];
                TR += T[tot[c] - l];
            }
            __syncwarp();
            for (int c = 0; c < C; ++c) {
                const unsigned m = __ballot_sync(kFull, yi == c);
                if (lane == 0) base[c] += __popc(m);
            }
            __syncwarp();
            if (i + 1 < N) {
                long long g = -1;
                if (od[i] < od[i + 1]) {
                    const int64_t nL = i + 1, nR = N - nL;
                    g = base_g - (T[nL] - TL) - (T[nR] - TR);
                }
                gi[i] = g;
                if (g > bg) bg = g;
            }
        }
        for (int off = 16; off > 0; off >>= 1) bg = max(bg, __shfl_xor_sync(kFull, bg, off));
        __syncwarp();
        // no valid split, or (best-k lists) a gain below the list's last entry: not a candidate
        // (a candidate needs a gain >= that of the entry it would replace)
        if (bg < 0 || (list && worst >= 0 && bg < worst)) {
            if (lane == 0 && !top) outG[pv] = -1;
            continue;
        }
        // prefix sums in the CPU's order, then the best gap among the splits of gain bg
        if (lane == 0) {
            double s = 0;
            for (int i = 0; i < N; ++i) { s = hd::add(s, od[i]); suml[i] = s; }
        }
        __syncwarp();
        const double total = suml[N - 1];
        int64_t bi = INT64_MAX;
        double bgap = 0;
        for (int i = lane; i + 1 < N; i += 32) {
            if (gi[i] != bg) continue;
            const int64_t nL = i + 1, nR = N - nL;
            const double gap = split_gap(suml[i], total, nL, nR);
            if (bi == INT64_MAX || split_better(bg, gap, i, bg, bgap, bi)) { bgap = gap; bi = i; }
        }
        for (int off = 16; off > 0; off >>= 1) {
            const double ogap = __shfl_xor_sync(kFull, bgap, off);
            const int64_t oi = __shfl_xor_sync(kFull, bi, off);
            if (oi != INT64_MAX && (bi == INT64_MAX || split_better(bg, ogap, oi, bg, bgap, bi))) { bgap = ogap; bi = oi; }
        }
        if (lane == 0) {
            if (!top) {
                outG[pv] = bg;
                outGap[pv] = bgap;
                outThr[pv] = midpoint(od[bi], od[bi + 1]);
            } else {
                DevCand c;
                c.g = bg; c.gap = bgap; c.thr = midpoint(od[bi], od[bi + 1]);
                c.row = it.row; c.s = it.s; c.p = (int32_t)p; c.L = it.L; c.pad = 0;
                if (list[k - 1].g < 0 || dev_better(c, list[k - 1])) {
                    int pos = k - 1;
                    while (pos > 0 && (list[pos - 1].g < 0 || dev_better(c, list[pos - 1]))) {
                        list[pos] = list[pos - 1];
                        --pos;
                    }
                    list[pos] = c;
                }
                worst = list[k - 1].g;
            }
        }
        if (list) worst = __shfl_sync(kFull, worst, 0);
        __syncwarp();
    }
}

// The k best of all warps' lists (n entries, g < 0: empty) into out[0..k), best first
// (g = -1 past the last candidate).  One block; marks the taken entries in `top`.
__global__ void __launch_bounds__(1024) merge_kernel(DevCand* top, int64_t n, int k, DevCand* out) {
    __shared__ int64_t bidx[1024];
    const int tid = threadIdx.x;
    for (int r = 0; r < k; ++r) {
        int64_t best = -1;
        for (int64_t q = tid; q < n; q += blockDim.x)
            if (top[q].g >= 0 && (best < 0 || dev_better(top[q], top[best]))) best = q;
        bidx[tid] = best;
        __syncthreads();
        for (int w = blockDim.x / 2; w > 0; w >>= 1) {
            if (tid < w) {
                const int64_t o = bidx[tid + w], m = bidx[tid];
                if (o >= 0 && (m < 0 || dev_better(top[o], top[m]))) bidx[tid] = o;
            }
            __syncthreads();
        }
        if (tid == 0) {
            const int64_t w = bidx[0];
            if (w >= 0) {
                out[r] = top[w];
                top[w].g = -2;
            } else {
                out[r].g = -1;
            }
        }
        __syncthreads();
    }
}

}  // namespace


std::vector<Cand> discover(const Subset& d, const std::vector<int>& lengths, int k, const Partner& partner,
                           TsExec* ex) {
    tsm::gpu::use_device(ex);
    const double t_start = tsm::gpu::now_ms();
    const int N = (int)d.x.size(), C = d.C;
    TopK best(k);
    if (lengths.empty()) return best.take();
    const Tuning tune = tuning();

    int dev = 0, sms = 1, smem_optin = 48 * 1024;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
    check(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "cudaDeviceGetAttribute");

    // the gain kernel's shared memory per warp
    const size_t gain_per_warp =
        (((size_t)3 * N * sizeof(double) + (size_t)2 * N * sizeof(int32_t) + (size_t)C * sizeof(int32_t)) + 15) & ~size_t(15);
    if (gain_per_warp > (size_t)smem_optin)
        // the GPU cannot take it: auto mode runs it on the CPU (TS_GPU_OUT_OF_MEMORY)
        throw Error(TS_GPU_OUT_OF_MEMORY, "54000",
                    format("too many training series (%d) for the shared memory of the GPU shapelet engine", N),
                    "SET tsmine.backend = auto or cpu for this query.");
    const int gain_wpb = (int)std::max<size_t>(1, std::min<size_t>(8, (size_t)smem_optin / 2 / gain_per_warp));

    tsm::gpu::Stream stream;
    tsm::gpu::EventTimer timer(stream);
    double kernel_ms = 0;

    // series, labels, entropy table
    std::vector<int64_t> xo(N), xn(N);
    int64_t total = 0, longest = 0;
    for (int j = 0; j < N; ++j) { xo[j] = total; xn[j] = d.n[j]; total += d.n[j]; longest = std::max(longest, d.n[j]); }
    const auto Th = entropy_table(N);
    std::vector<int64_t> toth(C, 0);
    for (int32_t c : d.y) ++toth[c];
    int64_t Ttot = 0;
    for (int c = 0; c < C; ++c) Ttot += Th[toth[c]];
    const int64_t base_g = Th[N] - Ttot;

    // ---- the plan of the whole call: length groups (window statistics and F table
    // that fit), and launches (chunks) within each group; every buffer is sized once
    // from it.  Per length (index gl into `lengths`): the windows of each series in
    // its group's arrays (so: offset or -1; st: offset, the next one for a series
    // shorter than the length), their number E, the group offset eoff of the first,
    // and fblk, the first f_kernel block of the length within its group.  All of it,
    // with the series, labels and work items, is written straight into the staging
    // buffer of the one upload (its layout: the first part of the device memory).
    const size_t nLen = lengths.size();
    size_t n_items = 0;
    for (int L : lengths)
        for (int j = 0; j < N; ++j) n_items += d.n[j] >= L;
    tsm::gpu::Arena ar;
    const size_t oX = ar.take<double>(total), oXO = ar.take<int64_t>(N), oXN = ar.take<int64_t>(N);
    const size_t oY = ar.take<int32_t>(N), oT = ar.take<int64_t>(Th.size()), oTOT = ar.take<int64_t>(C);
    const size_t oITEMS = ar.take<Item>(n_items), oPART = ar.take<double>(partner.d ? N : 0);
    const size_t oSO = ar.take<int64_t>(nLen * N), oST = ar.take<int64_t>(nLen * N), oLS = ar.take<int32_t>(nLen);
    const size_t oE = ar.take<int64_t>(nLen), oEOFF = ar.take<int64_t>(nLen), oFBLK = ar.take<int64_t>(nLen);
    const size_t up_end = ar.off;
    std::unique_ptr<unsigned char[]> stage(new unsigned char[up_end]);
    auto hp = [&](size_t o) { return stage.get() + o; };
    auto put = [&](size_t o, const void* src, size_t bytes) { if (bytes) std::memcpy(hp(o), src, bytes); };
    for (int j = 0; j < N; ++j) put(oX + (size_t)xo[j] * sizeof(double), d.x[j], (size_t)d.n[j] * sizeof(double));
    put(oXO, xo.data(), N * sizeof(int64_t));
    put(oXN, xn.data(), N * sizeof(int64_t));
    put(oY, d.y.data(), N * sizeof(int32_t));
    put(oT, Th.data(), Th.size() * sizeof(int64_t));
    put(oTOT, toth.data(), C * sizeof(int64_t));
    if (partner.d) put(oPART, partner.d, N * sizeof(double));
    Item* const all = reinterpret_cast<Item*>(hp(oITEMS));
    int64_t* const so = reinterpret_cast<int64_t*>(hp(oSO));
    int64_t* const st = reinterpret_cast<int64_t*>(hp(oST));
    int32_t* const Lh = reinterpret_cast<int32_t*>(hp(oLS));
    int64_t* const El = reinterpret_cast<int64_t*>(hp(oE));
    int64_t* const eoff = reinterpret_cast<int64_t*>(hp(oEOFF));
    int64_t* const fblk = reinterpret_cast<int64_t*>(hp(oFBLK));
    for (size_t gl = 0; gl < nLen; ++gl) {
        Lh[gl] = lengths[gl];
        int64_t e = 0;
        for (int j = 0; j < N; ++j) e += std::max<int64_t>(0, d.n[j] - lengths[gl] + 1);
        El[gl] = e;
    }
    struct Group { size_t l0, l1; int64_t entries, fblocks; bool use_f; size_t c0, c1; };
    struct Chunk { size_t i0, i1; int64_t piv, tasks; double cost; };
    std::vector<Group> groups;
    std::vector<Chunk> chunks;
    size_t ni = 0;  // items written
    const int64_t piv_cap = std::max<int64_t>(longest, (int64_t)(kMaxBatchBytes / ((size_t)N * sizeof(double))));
    int64_t max_entries = 0, max_piv = 0, max_f = 0;
    for (size_t gi = 0; gi < nLen;) {
        const bool use_f = tune.f_cap > 0 && (int64_t)N * El[gi] <= tune.f_cap;
        size_t ge = gi;
        int64_t entries = 0, fblocks = 0;
        while (ge < nLen) {
            const int64_t e = El[ge];
            if (ge > gi && (entries + e > kStatsEntries || (use_f && (int64_t)N * (entries + e) > tune.f_cap))) break;
            eoff[ge] = entries;
            fblk[ge] = fblocks;
            int64_t o = entries;
            for (int j = 0; j < N; ++j) {
                st[ge * N + j] = o;
                so[ge * N + j] = d.n[j] >= lengths[ge] ? o : -1;
                if (d.n[j] >= lengths[ge]) o += d.n[j] - lengths[ge] + 1;
            }
            entries += e;
            fblocks += (e + kFT - 1) / kFT;
            ++ge;
        }
        Group g{gi, ge, entries, fblocks, use_f, chunks.size(), 0};
        const size_t i_first = ni;
        for (size_t li = 0; li < ge - gi; ++li) {
            const int L = lengths[gi + li];
            const int64_t R = rows_per_group(L);
            for (int s = 0; s < N; ++s) {
                if (d.n[s] < L) continue;
                Item& it = all[ni++];
                it = Item{};
                it.s = s;
                it.li = (int32_t)li;
                it.L = L;
                it.P = (int32_t)(d.n[s] - L + 1);
                it.R = (int32_t)R;
                it.ngroups = (int32_t)((it.P + R - 1) / R);
                it.row = d.row[s];
            }
        }
        double c = 0;
        Chunk ch{i_first, i_first, 0, 0, 0};
        for (size_t i = i_first; i < ni; ++i) {
            Item& it = all[i];
            const double cost = (double)it.P * (double)total;
            if (ch.i1 > ch.i0 && (ch.piv + it.P > piv_cap || c + cost > kChunkCost)) {
                ch.cost = c;
                chunks.push_back(ch);
                ch = Chunk{i, i, 0, 0, 0};
                c = 0;
            }
            it.pivot_base = ch.piv;
            it.task_base = ch.tasks;
            ch.piv += it.P;
            ch.tasks += (int64_t)it.ngroups * N;
            c += cost;
            ch.i1 = i + 1;
        }
        ch.cost = c;
        if (ch.i1 > ch.i0) chunks.push_back(ch);
        g.c1 = chunks.size();
        groups.push_back(g);
        max_entries = std::max(max_entries, entries);
        if (use_f) max_f = std::max(max_f, (int64_t)N * entries);
        gi = ge;
    }
    for (const Chunk& ch : chunks) max_piv = std::max(max_piv, ch.piv);

    // dist kernel (rows per lane: up to 1, 2 or 4): carries in shared memory when they fit
    auto dist_fn = tune.rows_per_lane >= 4 ? dist_kernel<4> : tune.rows_per_lane >= 2 ? dist_kernel<2> : dist_kernel<1>;
    const int64_t ucap = longest - lengths.front() + 1;
    size_t dist_smem = (size_t)kDistWarps * 2 * ucap * sizeof(double);
    int carry_in_shared = dist_smem <= (size_t)std::min(smem_optin, 100 * 1024);
    if (!carry_in_shared) dist_smem = 0;
    check(cudaFuncSetAttribute(dist_fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dist_smem),
          "cudaFuncSetAttribute");
    int dist_bps = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&dist_bps, dist_fn, kDistWarps * 32, dist_smem),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    const int dist_blocks = std::max(1, dist_bps) * sms;
    const size_t gain_smem = gain_per_warp * gain_wpb;
    check(cudaFuncSetAttribute(gain_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)gain_smem),
          "cudaFuncSetAttribute");
    int gain_bps = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&gain_bps, gain_kernel, gain_wpb * 32, gain_smem),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    const int gain_blocks_max = std::max(1, gain_bps) * sms;
    const bool dev_top = k <= kDevTopK;
    const int64_t n_lists = (int64_t)gain_blocks_max * gain_wpb;

    // ---- every device buffer, carved from one allocation: first what goes up in the
    // one copy (laid out above), then what is zeroed, then the rest
    const size_t oFLAT = ar.take<uint8_t>(nLen * N), oCNT = ar.take<unsigned long long>(chunks.size());
    const size_t zero_begin = oFLAT, zero_end = ar.off;
    const size_t oMU = ar.take<double>(max_entries), oISD = ar.take<double>(max_entries);
    const size_t oDFG = ar.take<double2>(max_entries), oF = ar.take<double>(max_f);
    const size_t oD = ar.take<double>((size_t)max_piv * N);
    const size_t oCARRY = ar.take<double>(carry_in_shared ? 0 : (size_t)dist_blocks * kDistWarps * 2 * ucap);
    const size_t oTOP = ar.take<DevCand>(dev_top ? (size_t)n_lists * k : 0), oOUT = ar.take<DevCand>(dev_top ? k : 0);
    const size_t oOG = ar.take<int64_t>(dev_top ? 0 : max_piv), oOGAP = ar.take<double>(dev_top ? 0 : max_piv);
    const size_t oOTHR = ar.take<double>(dev_top ? 0 : max_piv);
    ar.allocate("shapelet device memory");
    unsigned char* const mb = ar.at<unsigned char>(0);
    const double* X = ar.at<const double>(oX);
    const int64_t* XO = ar.at<const int64_t>(oXO);
    const int64_t* XN = ar.at<const int64_t>(oXN);
    const int32_t* Y = ar.at<const int32_t>(oY);
    const int64_t* T = ar.at<const int64_t>(oT);
    const int64_t* TOT = ar.at<const int64_t>(oTOT);
    const Item* ITEMS = ar.at<const Item>(oITEMS);
    const double* PART = partner.d ? ar.at<const double>(oPART) : nullptr;
    const int64_t* SO = ar.at<const int64_t>(oSO);
    const int64_t* ST = ar.at<const int64_t>(oST);
    const int32_t* LS = ar.at<const int32_t>(oLS);
    const int64_t* EL = ar.at<const int64_t>(oE);
    const int64_t* EOFF = ar.at<const int64_t>(oEOFF);
    const int64_t* FBLK = ar.at<const int64_t>(oFBLK);
    uint8_t* FLAT = ar.at<uint8_t>(oFLAT);
    unsigned long long* COUNTERS = ar.at<unsigned long long>(oCNT);
    double* MU = ar.at<double>(oMU);
    double* ISD = ar.at<double>(oISD);
    double2* DFG = ar.at<double2>(oDFG);
    double* F = ar.at<double>(oF);
    double* Dm = ar.at<double>(oD);
    double* GCARRY = carry_in_shared ? nullptr : ar.at<double>(oCARRY);
    DevCand* TOP = dev_top ? ar.at<DevCand>(oTOP) : nullptr;
    DevCand* OUT = dev_top ? ar.at<DevCand>(oOUT) : nullptr;
    int64_t* OG = dev_top ? nullptr : ar.at<int64_t>(oOG);
    double* OGAP = dev_top ? nullptr : ar.at<double>(oOGAP);
    double* OTHR = dev_top ? nullptr : ar.at<double>(oOTHR);

    // the one upload (pageable: staged before the call returns; `stage` lives on anyway)
    check(cudaMemcpyAsync(mb, stage.get(), up_end, cudaMemcpyHostToDevice, stream), "shapelet upload");
    check(cudaMemsetAsync(ar.at<unsigned char>(zero_begin), 0, zero_end - zero_begin, stream), "cudaMemsetAsync");
    if (dev_top) check(cudaMemsetAsync(TOP, 0xff, (size_t)n_lists * k * sizeof(DevCand), stream), "cudaMemsetAsync");  // g = -1: empty
    std::vector<int64_t> hg;
    std::vector<double> hgap, hthr;
    if (!dev_top) {
        hg.resize(max_piv);
        hgap.resize(max_piv);
        hthr.resize(max_piv);
    }

    double since_wait = 0;  // estimated work launched since the last tsm::gpu::wait
    bool timing = false;
    for (size_t gi = 0; gi < groups.size(); ++gi) {
        const Group& g = groups[gi];
        const int nL = (int)(g.l1 - g.l0);
        const int64_t* gSO = SO + g.l0 * N;
        const int32_t* gLS = LS + g.l0;
        uint8_t* gFLAT = FLAT + g.l0 * N;
        if (!timing) { timer.start(); timing = true; }
        stats_kernel<<<(unsigned)std::min<int64_t>(((int64_t)nL * N + 3) / 4, 65535), 128, 0, stream>>>(
            X, XO, XN, gSO, gLS, N, nL, MU, ISD, gFLAT);
        check(cudaGetLastError(), "stats_kernel launch");
        terms_kernel<<<(unsigned)std::min<int64_t>((int64_t)nL * N, 65535), 128, 0, stream>>>(
            X, XO, XN, gSO, gLS, N, nL, MU, DFG);
        check(cudaGetLastError(), "terms_kernel launch");
        if (g.use_f) {
            f_kernel<<<dim3((unsigned)g.fblocks, (unsigned)((N + kFS - 1) / kFS)), kFT, 0, stream>>>(
                X, XO, gSO, ST + g.l0 * N, gLS, EL + g.l0, EOFF + g.l0, FBLK + g.l0, N, nL, MU, F);
            check(cudaGetLastError(), "f_kernel launch");
        }

        for (size_t ci = g.c0; ci < g.c1; ++ci) {
            const Chunk& ch = chunks[ci];
            const Item* items = ITEMS + ch.i0;
            const int n_items = (int)(ch.i1 - ch.i0);
            if (!timing) { timer.start(); timing = true; }
            dist_fn<<<dist_blocks, kDistWarps * 32, dist_smem, stream>>>(
                items, n_items, ch.tasks, N, X, XO, XN, gSO, gFLAT, MU, ISD, DFG, g.use_f ? F : nullptr,
                EL + g.l0, EOFF + g.l0, Dm, max_piv, COUNTERS + ci, GCARRY, ucap, carry_in_shared);
            check(cudaGetLastError(), "dist_kernel launch");
            const int gblocks = (int)std::min<int64_t>(gain_blocks_max, (ch.piv + gain_wpb - 1) / gain_wpb);
            gain_kernel<<<gblocks, gain_wpb * 32, gain_smem, stream>>>(
                items, n_items, ch.piv, N, C, Y, T, TOT, base_g, Dm, max_piv, ISD, gSO, PART, partner.op,
                OG, OGAP, OTHR, TOP, k);
            check(cudaGetLastError(), "gain_kernel launch");
            if (!dev_top) {
                check(cudaMemcpyAsync(hg.data(), OG, ch.piv * sizeof(int64_t), cudaMemcpyDeviceToHost, stream), "copy gains");
                check(cudaMemcpyAsync(hgap.data(), OGAP, ch.piv * sizeof(double), cudaMemcpyDeviceToHost, stream), "copy gaps");
                check(cudaMemcpyAsync(hthr.data(), OTHR, ch.piv * sizeof(double), cudaMemcpyDeviceToHost, stream),
                      "copy thresholds");
            }
            // launches queue up without host round trips; wait (and poll for cancel)
            // after about kChunkCost of work, per launch when results come back per pivot
            since_wait += ch.cost;
            const bool last = gi + 1 == groups.size() && ci + 1 == g.c1;
            if (dev_top && last) {
                merge_kernel<<<1, 1024, 0, stream>>>(TOP, n_lists * k, k, OUT);
                check(cudaGetLastError(), "merge_kernel launch");
            }
            if (!dev_top || since_wait >= kChunkCost || last) {
                timer.stop();
                tsm::gpu::wait(stream, ex);
                kernel_ms += timer.ms();
                timing = false;
                since_wait = 0;
            }
            if (!dev_top)
                for (size_t i = ch.i0; i < ch.i1; ++i) {
                    const Item& it = all[i];
                    for (int64_t p = 0; p < it.P; ++p) {
                        const int64_t q = it.pivot_base + p;
                        if (hg[q] < 0) continue;
                        Cand cd;
                        cd.g = hg[q];
                        cd.gap = hgap[q];
                        cd.thr = hthr[q];
                        cd.s = it.s;
                        cd.p = (int32_t)p;
                        cd.L = it.L;
                        cd.row = it.row;
                        best.add(cd);
                    }
                }
        }
    }
    if (dev_top) {
        std::vector<DevCand> out(k);
        check(cudaMemcpyAsync(out.data(), OUT, (size_t)k * sizeof(DevCand), cudaMemcpyDeviceToHost, stream), "copy best");
        stream.sync();
        for (const DevCand& c : out) {
            if (c.g < 0) continue;
            Cand cd;
            cd.g = c.g;
            cd.gap = c.gap;
            cd.thr = c.thr;
            cd.s = c.s;
            cd.p = c.p;
            cd.L = c.L;
            cd.row = c.row;
            best.add(cd);
        }
    }
    stream.sync();
    ex->kernel_ms += kernel_ms;
    ex->device_ms += tsm::gpu::now_ms() - t_start;
    return best.take();
}

}  // namespace gpu
}  // namespace shp
}  // namespace tsm
