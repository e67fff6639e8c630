// shapelets.cu — shapelet discovery on the GPU (Chang et al., ICDM 2012, with
// the centred recurrence of shapelets.h).
//
// Work: for every length L and source series s, the pivots p = 0..n_s-L are
// rows of a matrix against each target series j (columns u = windows of j).
//  * dist_kernel: one warp per task (s, L, target j, row group); a lane per
//    pivot row (the paper's thread per pivot), 32 rows a tile.  The warp walks
//    the target's windows u in lockstep: lane t gets c(p-1,u-1) from lane t-1
//    by a shuffle, lane 0 from the previous tile's last row kept in shared
//    memory (the target tiled through shared memory), so each step is O(1)
//    (recurrence (6)-(7)) and a pivot's distance to a series costs O(n_j).
//    Tasks are taken from an atomic counter by persistent warps (balanced).
//    Per-pivot distances go to a bounded batch matrix D[j][pivot].
//  * gain_kernel: one warp per pivot: the order line (rank sort in shared
//    memory), class counts by ballots, information gain in fixed point, gap,
//    best split by a warp reduction — all on the device.  For k <= kDevTopK
//    each warp keeps its own sorted best-k list on the device across launches
//    (the order of cand_better) and only those lists come back at the end;
//    for larger k, (gain, gap, threshold) per pivot come back per launch.
// The whole call is planned first (length groups whose window statistics fit,
// launches within them), every device buffer is allocated once for the plan,
// and the work items of all launches are uploaded once.  A launch holds at
// most kMaxBatchBytes of distances (cudaMalloc time grows with the size);
// launches queue up without host round trips, with tsm::gpu::wait after about
// kChunkCost cell updates (tens of ms) of them.  Window statistics are
// computed on the device (stats_kernel, bit-identical with the host's).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
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

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kDistWarps = 4;                     // warps per block of dist_kernel
constexpr double kChunkCost = 2.5e10;             // cell updates per launch (~20-40 ms on an H100)
constexpr size_t kMaxBatchBytes = size_t(32) << 20;  // D matrix of one launch (cudaMalloc costs ~ its size)
constexpr int64_t kStatsEntries = int64_t(1) << 20;  // windows of one length group (x4 arrays)

constexpr int kDevTopK = 64;                         // device best-k lists up to this k

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
    for (int t = 0; t < L; ++t) s = dadd(s, dmul(dsub(a[t], mua), dsub(b[t], mub)));
    return s;
}

// Window statistics on the device, bit-identical with length_stats (sliding.cpp's
// window_stats: blocks of 4096 windows relative to ref = x[block start], an exact
// two-pass restart every 256 windows, difference updates in between, constant
// windows from runs of equal values; then shapelets.cpp's flat rule).  One warp
// per (length, series), a lane per segment of 256 windows.  FLAT must be zeroed.
__device__ __forceinline__ void stats_restart(const double* x, int64_t i, int m, double ref, double& mu, double& sd) {
    const double md = (double)m;
    double a = 0;
    for (int j = 0; j < m; ++j) a = dadd(a, dsub(x[i + j], ref));
    mu = ddiv(a, md);
    double dd = 0, q = 0;
    for (int j = 0; j < m; ++j) {
        const double t = dsub(dsub(x[i + j], ref), mu);
        dd = dadd(dd, t);
        q = dadd(q, dmul(t, t));
    }
    mu = dadd(mu, ddiv(dd, md));
    const double var = ddiv(dsub(q, ddiv(dmul(dd, dd), md)), md);
    sd = var > 0 ? __dsqrt_rn(var) : 0.0;
}

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
        const double md = (double)m;
        const double* x = X + xo[j];
        const int64_t count = xn[j] - m + 1;
        bool any_flat = false;
        for (int64_t i0 = (int64_t)lane * 256; i0 < count; i0 += 32 * 256) {
            const int64_t i1 = min(count, i0 + 256);
            const double ref = x[(i0 / 4096) * 4096];
            double mu, sd;
            stats_restart(x, i0, m, ref, mu, sd);
            double m2 = dmul(dmul(sd, sd), md);
            int64_t brk = -1;  // last t <= i + m - 2 with x[t] != x[t+1]
            for (int64_t t = i0; t + 1 < i0 + m; ++t)
                if (x[t] != x[t + 1]) brk = t;
            for (int64_t i = i0; i < i1; ++i) {
                if (i > i0) {
                    const double xin = dsub(x[i + m - 1], ref), xout = dsub(x[i - 1], ref);
                    const double mu_new = dadd(mu, ddiv(dsub(xin, xout), md));
                    m2 = dadd(m2, dmul(dsub(xin, xout), dsub(dadd(dsub(xin, mu_new), xout), mu)));
                    mu = mu_new;
                    if (m2 < 0) m2 = 0;
                    const int64_t t = i + m - 2;
                    if (t >= i && x[t] != x[t + 1]) brk = t;
                }
                const bool constant = brk < i;
                double mean = constant ? x[i] : dadd(ref, mu);
                double sv = constant ? 0.0 : __dsqrt_rn(ddiv(m2, md));
                if (!constant && !(sv > 0)) {
                    stats_restart(x, i, m, ref, mu, sd);
                    sv = sd;
                    m2 = dmul(dmul(sv, sv), md);
                    mean = dadd(ref, mu);
                }
                const bool flat = constant || !(sv > dmul(kFlatRel, fabs(mean))) || sv < kFlatAbs;
                MU[o + i] = mean;
                ISD[o + i] = flat ? 0.0 : ddiv(1.0, sv);
                any_flat |= flat;
            }
        }
        if (__any_sync(kFull, any_flat) && lane == 0) FLAT[q] = 1;
    }
}

// df/dg of every window of every series at every length of the group.
__global__ void terms_kernel(const double* X, const int64_t* xo, const int64_t* xn, const int64_t* so,
                             const int32_t* Ls, int N, int nL, const double* MU, double* DF, double* DG) {
    for (int64_t q = blockIdx.x; q < (int64_t)N * nL; q += gridDim.x) {
        const int li = (int)(q / N), j = (int)(q % N);
        const int64_t o = so[q];
        if (o < 0) continue;
        const int L = Ls[li];
        const double* x = X + xo[j];
        const int64_t U = xn[j] - L + 1;
        for (int64_t u = threadIdx.x; u + 1 < U; u += blockDim.x) {
            DF[o + u] = dmul(dsub(x[u + L], x[u]), 0.5);
            DG[o + u] = dadd(dsub(x[u + L], MU[o + u + 1]), dsub(x[u], MU[o + u]));
        }
    }
}

__global__ void __launch_bounds__(kDistWarps * 32)
dist_kernel(const Item* items, int n_items, int64_t n_tasks, int N, const double* X, const int64_t* xo,
            const int64_t* xn, const int64_t* so, const uint8_t* has_flat, const double* MU, const double* ISD,
            const double* DF, const double* DG, double* D, int64_t Pb, unsigned long long* counter,
            double* gcarry, int64_t ucap, int carry_in_shared) {
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
        const double *mua = MU + oa, *isa = ISD + oa, *dfa = DF + oa, *dga = DG + oa;
        const double *mub = MU + ob, *isb = ISD + ob, *dfb = DF + ob, *dgb = DG + ob;
        const bool flat = has_flat[(int64_t)it.li * N + j];
        const int64_t U = nb - L + 1;
        // the group's first row, directly (diagonal starts)
        for (int64_t u = lane; u < U; u += 32) bufA[u] = direct_comoment(a + g0, mua[g0], b + u, mub[u], L);
        __syncwarp();
        bool first = true;
        for (int64_t pt = g0; pt < g1; pt += 32) {
            const int64_t p = pt + lane;
            const bool valid = p < g1;
            double fa = 0, ga = 0, ia = 0, c = 0;
            if (valid) {
                ia = isa[p];
                if (p > g0) { fa = dfa[p - 1]; ga = dga[p - 1]; }
                c = direct_comoment(a + p, mua[p], b, mub[0], L);  // column 0 (diagonal start)
            }
            double vmax = dmul(c, isb[0]);
            if (lane == 31) bufB[0] = c;
#pragma unroll 4
            for (int64_t u = 1; u < U; ++u) {
                const double up = __shfl_up_sync(kFull, c, 1);
                const double fb = dfb[u - 1], gb = dgb[u - 1], ib = isb[u];
                const double left = bufA[u - 1];  // shared broadcast; lane 0's left neighbour
                double cn = comoment_step(lane == 0 ? left : up, fa, ga, fb, gb);
                if (first && lane == 0) cn = bufA[u];  // the group's first row: direct
                c = cn;
                const double v = dmul(c, ib);
                if (v > vmax) vmax = v;
                if (lane == 31) bufB[u] = c;
            }
            __syncwarp();
            if (valid) Dcol[p] = distance_from_best(vmax, ia, L, flat);
            double* tmp = bufA; bufA = bufB; bufB = tmp;
            first = false;
        }
        __syncwarp();  // every lane done with the buffers before the next task writes them
    }
}

// One warp per pivot.  Shared per warp: sd, od, suml (N doubles), sy, oy (N ints), base (C ints).
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
    const unsigned lemask = (lane == 31) ? kFull : ((1u << (lane + 1)) - 1u);
    for (int64_t pv = (int64_t)blockIdx.x * wpb + wib; pv < n_piv; pv += (int64_t)gridDim.x * wpb) {
        const Item it = items[find_item_by_pivot(items, n_items, pv)];
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
        for (int j = lane; j < N; j += 32) {  // rank = position on the order line, ties by index
            const double dj = sd[j];
            int r = 0;
            for (int i = 0; i < N; ++i) {
                const double di = sd[i];
                r += (di < dj) || (di == dj && i < j);
            }
            od[r] = dj;
            oy[r] = sy[j];
        }
        __syncwarp();
        if (lane == 0) {
            double s = 0;
            for (int i = 0; i < N; ++i) { s = dadd(s, od[i]); suml[i] = s; }
        }
        __syncwarp();
        const double total = suml[N - 1];
        int64_t bg = -1, bi = INT64_MAX;
        double bgap = 0;
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
                const double a = od[i], b = od[i + 1];
                if (a < b) {
                    const int64_t nL = i + 1, nR = N - nL;
                    const int64_t g = base_g - (T[nL] - TL) - (T[nR] - TR);
                    const double gap = split_gap(suml[i], total, nL, nR);
                    if (bg < 0 || split_better(g, gap, i, bg, bgap, bi)) { bg = g; bgap = gap; bi = i; }
                }
            }
        }
        for (int off = 16; off > 0; off >>= 1) {
            const int64_t og = __shfl_xor_sync(kFull, bg, off);
            const double ogap = __shfl_xor_sync(kFull, bgap, off);
            const int64_t oi = __shfl_xor_sync(kFull, bi, off);
            if (og >= 0 && (bg < 0 || split_better(og, ogap, oi, bg, bgap, bi))) { bg = og; bgap = ogap; bi = oi; }
        }
        if (lane == 0) {
            if (!top) {
                outG[pv] = bg;
                if (bg >= 0) {
                    outGap[pv] = bgap;
                    outThr[pv] = midpoint(od[bi], od[bi + 1]);
                }
            } else if (bg >= 0) {
                // this warp's own best-k list (sorted, best first, g = -1 marks empty slots),
                // kept across launches; the host merges the lists at the end
                DevCand c;
                c.g = bg; c.gap = bgap; c.thr = midpoint(od[bi], od[bi + 1]);
                c.row = it.row; c.s = it.s; c.p = (int32_t)p; c.L = it.L; c.pad = 0;
                DevCand* list = top + ((int64_t)blockIdx.x * wpb + wib) * k;
                if (list[k - 1].g < 0 || dev_better(c, list[k - 1])) {
                    int pos = k - 1;
                    while (pos > 0 && (list[pos - 1].g < 0 || dev_better(c, list[pos - 1]))) {
                        list[pos] = list[pos - 1];
                        --pos;
                    }
                    list[pos] = c;
                }
            }
        }
        __syncwarp();
    }
}

template <class T>
void upload(Buffer<T>& b, const std::vector<T>& v, cudaStream_t s, const char* what) {
    b.allocate(v.size(), what);
    if (!v.empty()) check(cudaMemcpyAsync(b.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, s), what);
}

}  // namespace

static double g_prof[32]; static const char* g_profn[32]; static int g_np = 0;
#define PROF(nm) do { if (g_np < 32) { g_prof[g_np] = tsm::gpu::now_ms(); g_profn[g_np++] = nm; } } while (0)
static void prof_dump() {
    std::fprintf(stderr, "SHPPROF gpu:");
    for (int i = 1; i < g_np; ++i) std::fprintf(stderr, " %s=%.3f", g_profn[i], g_prof[i] - g_prof[i - 1]);
    std::fprintf(stderr, " total=%.3f\n", g_np ? g_prof[g_np - 1] - g_prof[0] : 0.0);
    g_np = 0;
}
void prof_end() { PROF("frees"); prof_dump(); }

std::vector<Cand> discover(const Subset& d, const std::vector<int>& lengths, int k, const Partner& partner,
                           TsExec* ex) {
    g_np = 0;
    PROF("begin");
    tsm::gpu::use_device(ex);
    PROF("use_device");
    const double t_start = tsm::gpu::now_ms();
    const int N = (int)d.x.size(), C = d.C;
    TopK best(k);
    if (lengths.empty()) return best.take();

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
    PROF("attrs");
    tsm::gpu::Stream stream;
    tsm::gpu::EventTimer timer(stream);
    PROF("stream_events");
    double kernel_ms = 0;

    // series, labels, entropy table
    std::vector<int64_t> xo(N), xn(N);
    int64_t total = 0, longest = 0;
    for (int j = 0; j < N; ++j) { xo[j] = total; xn[j] = d.n[j]; total += d.n[j]; longest = std::max(longest, d.n[j]); }
    std::vector<double> xh(total);
    for (int j = 0; j < N; ++j) std::copy(d.x[j], d.x[j] + d.n[j], xh.begin() + xo[j]);
    const auto Th = entropy_table(N);
    std::vector<int64_t> toth(C, 0);
    for (int32_t c : d.y) ++toth[c];
    int64_t Ttot = 0;
    for (int c = 0; c < C; ++c) Ttot += Th[toth[c]];
    const int64_t base_g = Th[N] - Ttot;

    PROF("host_prep");
    // ---- the plan of the whole call: length groups (window statistics that fit), and
    // launches (chunks) within each group; every buffer is sized once from it.
    struct Group { size_t l0, l1; int64_t entries; size_t c0, c1; };
    struct Chunk { size_t i0, i1; int64_t piv, tasks; double cost; };
    std::vector<Group> groups;
    std::vector<Chunk> chunks;
    std::vector<Item> all;
    const int64_t piv_cap = std::max<int64_t>(longest, (int64_t)(kMaxBatchBytes / ((size_t)N * sizeof(double))));
    int64_t max_entries = 0, max_piv = 0;
    size_t max_nl = 0;
    for (size_t gi = 0; gi < lengths.size();) {
        size_t ge = gi;
        int64_t entries = 0;
        while (ge < lengths.size()) {
            int64_t e = 0;
            for (int j = 0; j < N; ++j) e += std::max<int64_t>(0, d.n[j] - lengths[ge] + 1);
            if (ge > gi && entries + e > kStatsEntries) break;
            entries += e;
            ++ge;
        }
        Group g{gi, ge, entries, chunks.size(), 0};
        const size_t i_first = all.size();
        for (size_t li = 0; li < ge - gi; ++li) {
            const int L = lengths[gi + li];
            const int64_t R = rows_per_group(L);
            for (int s = 0; s < N; ++s) {
                if (d.n[s] < L) continue;
                Item it{};
                it.s = s;
                it.li = (int32_t)li;
                it.L = L;
                it.P = (int32_t)(d.n[s] - L + 1);
                it.R = (int32_t)R;
                it.ngroups = (int32_t)((it.P + R - 1) / R);
                it.row = d.row[s];
                all.push_back(it);
            }
        }
        double c = 0;
        Chunk ch{i_first, i_first, 0, 0, 0};
        for (size_t i = i_first; i < all.size(); ++i) {
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
        max_nl = std::max(max_nl, ge - gi);
        gi = ge;
    }
    for (const Chunk& ch : chunks) max_piv = std::max(max_piv, ch.piv);

    PROF("plan");
    // dist kernel: carries in shared memory when they fit
    const int64_t ucap = longest - lengths.front() + 1;
    size_t dist_smem = (size_t)kDistWarps * 2 * ucap * sizeof(double);
    int carry_in_shared = dist_smem <= (size_t)std::min(smem_optin, 100 * 1024);
    if (!carry_in_shared) dist_smem = 0;
    check(cudaFuncSetAttribute(dist_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dist_smem),
          "cudaFuncSetAttribute");
    int dist_bps = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&dist_bps, dist_kernel, kDistWarps * 32, dist_smem),
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

    PROF("func_attrs_occupancy");
    // every device buffer, once
    Buffer<double> X, PART, GCARRY;
    Buffer<int64_t> XO, XN, T, TOT;
    Buffer<int32_t> Y;
    Buffer<Item> ITEMS;
    upload(X, xh, stream, "shapelet series");
    upload(XO, xo, stream, "shapelet offsets");
    upload(XN, xn, stream, "shapelet lengths");
    upload(Y, d.y, stream, "shapelet labels");
    upload(T, Th, stream, "entropy table");
    upload(TOT, toth, stream, "class counts");
    upload(ITEMS, all, stream, "shapelet work items");
    std::vector<double> parth;
    if (partner.d) parth.assign(partner.d, partner.d + N);
    if (partner.d) upload(PART, parth, stream, "partner distances");
    if (!carry_in_shared) GCARRY.allocate((size_t)dist_blocks * kDistWarps * 2 * ucap, "shapelet carries");
    Buffer<double> MU(max_entries, "window means"), ISD(max_entries, "window inverse stds");
    Buffer<double> DF(max_entries, "shapelet df"), DG(max_entries, "shapelet dg");
    Buffer<int64_t> SO(max_nl * N, "window offsets");
    Buffer<uint8_t> FLAT(max_nl * N, "flat flags");
    Buffer<int32_t> LS(max_nl, "lengths");
    Buffer<double> Dm((size_t)max_piv * N, "shapelet distance batch");
    Buffer<unsigned long long> COUNTER(1, "task counter");
    Buffer<DevCand> TOP;
    Buffer<int64_t> OG;
    Buffer<double> OGAP, OTHR;
    std::vector<int64_t> hg;
    std::vector<double> hgap, hthr;
    if (dev_top) {
        TOP.allocate((size_t)n_lists * k, "shapelet best lists");
        check(cudaMemsetAsync(TOP.get(), 0xff, TOP.bytes(), stream), "cudaMemsetAsync");  // g = -1: empty
    } else {
        OG.allocate(max_piv, "shapelet gains");
        OGAP.allocate(max_piv, "shapelet gaps");
        OTHR.allocate(max_piv, "shapelet thresholds");
        hg.resize(max_piv);
        hgap.resize(max_piv);
        hthr.resize(max_piv);
    }

    PROF("alloc_upload");
    // window offsets of one group (the statistics themselves are computed on the device)
    std::vector<int64_t> so(max_nl * N);
    std::vector<int32_t> Lh(max_nl);
    double since_wait = 0;  // estimated work launched since the last tsm::gpu::wait
    bool timing = false;

    for (size_t gi = 0; gi < groups.size(); ++gi) {
        const Group& g = groups[gi];
        const int nL = (int)(g.l1 - g.l0);
        int64_t o = 0;
        for (int li = 0; li < nL; ++li) {
            Lh[li] = lengths[g.l0 + li];
            for (int j = 0; j < N; ++j) {
                so[(size_t)li * N + j] = d.n[j] >= Lh[li] ? o : -1;
                if (d.n[j] >= Lh[li]) o += d.n[j] - Lh[li] + 1;
            }
        }
        // (pageable uploads are staged before the calls return: the host arrays may be refilled next)
        check(cudaMemcpyAsync(SO.get(), so.data(), (size_t)nL * N * sizeof(int64_t), cudaMemcpyHostToDevice, stream), "window offsets");
        check(cudaMemcpyAsync(LS.get(), Lh.data(), (size_t)nL * sizeof(int32_t), cudaMemcpyHostToDevice, stream), "lengths");
        check(cudaMemsetAsync(FLAT.get(), 0, (size_t)nL * N, stream), "cudaMemsetAsync");
        stats_kernel<<<(unsigned)std::min<int64_t>(((int64_t)nL * N + 3) / 4, 65535), 128, 0, stream>>>(
            X.get(), XO.get(), XN.get(), SO.get(), LS.get(), N, nL, MU.get(), ISD.get(), FLAT.get());
        check(cudaGetLastError(), "stats_kernel launch");
        terms_kernel<<<(unsigned)std::min<int64_t>((int64_t)nL * N, 65535), 128, 0, stream>>>(
            X.get(), XO.get(), XN.get(), SO.get(), LS.get(), N, nL, MU.get(), DF.get(), DG.get());
        check(cudaGetLastError(), "terms_kernel launch");

        for (size_t ci = g.c0; ci < g.c1; ++ci) {
            const Chunk& ch = chunks[ci];
            const Item* items = ITEMS.get() + ch.i0;
            const int n_items = (int)(ch.i1 - ch.i0);
            if (!timing) { timer.start(); timing = true; }
            check(cudaMemsetAsync(COUNTER.get(), 0, sizeof(unsigned long long), stream), "cudaMemsetAsync");
            dist_kernel<<<dist_blocks, kDistWarps * 32, dist_smem, stream>>>(
                items, n_items, ch.tasks, N, X.get(), XO.get(), XN.get(), SO.get(), FLAT.get(), MU.get(),
                ISD.get(), DF.get(), DG.get(), Dm.get(), max_piv, COUNTER.get(), GCARRY.get(), ucap, carry_in_shared);
            check(cudaGetLastError(), "dist_kernel launch");
            const int gblocks = (int)std::min<int64_t>(gain_blocks_max, (ch.piv + gain_wpb - 1) / gain_wpb);
            gain_kernel<<<gblocks, gain_wpb * 32, gain_smem, stream>>>(
                items, n_items, ch.piv, N, C, Y.get(), T.get(), TOT.get(), base_g, Dm.get(), max_piv,
                ISD.get(), SO.get(), partner.d ? PART.get() : nullptr, partner.op, OG.get(), OGAP.get(), OTHR.get(),
                dev_top ? TOP.get() : nullptr, k);
            check(cudaGetLastError(), "gain_kernel launch");
            if (!dev_top) {
                check(cudaMemcpyAsync(hg.data(), OG.get(), ch.piv * sizeof(int64_t), cudaMemcpyDeviceToHost, stream), "copy gains");
                check(cudaMemcpyAsync(hgap.data(), OGAP.get(), ch.piv * sizeof(double), cudaMemcpyDeviceToHost, stream), "copy gaps");
                check(cudaMemcpyAsync(hthr.data(), OTHR.get(), ch.piv * sizeof(double), cudaMemcpyDeviceToHost, stream),
                      "copy thresholds");
            }
            // launches queue up without host round trips; wait (and poll for cancel)
            // after about kChunkCost of work, per launch when results come back per pivot
            since_wait += ch.cost;
            if (!dev_top || since_wait >= kChunkCost || (gi + 1 == groups.size() && ci + 1 == g.c1)) {
                timer.stop();
                PROF("queue");
                tsm::gpu::wait(stream, ex);
                PROF("wait");
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
        std::vector<DevCand> lists((size_t)n_lists * k);
        check(cudaMemcpyAsync(lists.data(), TOP.get(), TOP.bytes(), cudaMemcpyDeviceToHost, stream), "copy best lists");
        stream.sync();
        PROF("copy_lists");
        for (const DevCand& c : lists) {
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
    PROF("merge");
    std::fprintf(stderr, "SHPPROF groups=%zu chunks=%zu items=%zu max_piv=%lld max_entries=%lld dist_blocks=%d gain_blocks=%d gain_wpb=%d n_lists=%lld kernel_ms=%.3f smem=%zu\n",
                 groups.size(), chunks.size(), all.size(), (long long)max_piv, (long long)max_entries, dist_blocks, gain_blocks_max, gain_wpb, (long long)n_lists, kernel_ms, dist_smem);
    ex->kernel_ms += kernel_ms;
    ex->device_ms += tsm::gpu::now_ms() - t_start;
    return best.take();
}

}  // namespace gpu
}  // namespace shp
}  // namespace tsm
