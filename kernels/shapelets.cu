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
//    best split by a warp reduction — all on the device; only (gain, gap,
//    threshold) per pivot come back.
// Launches are chunks of about kChunkCost cell updates (tens of ms), with
// tsm::gpu::wait between them; device memory is bounded by kMaxBatchBytes.
#include <cuda_runtime.h>

#include <algorithm>
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
constexpr size_t kMaxBatchBytes = size_t(1) << 30;  // D matrix of one chunk
constexpr int64_t kStatsEntries = int64_t(1) << 22;  // windows of one length group (x4 arrays)

struct Item {
    int64_t task_base;   // first warp task of this (s, L)
    int64_t pivot_base;  // first row of D
    int32_t s, li, L, P, ngroups, R;
};

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
            for (int64_t u = 1; u < U; ++u) {
                const double up = __shfl_up_sync(kFull, c, 1);
                const double fb = dfb[u - 1], gb = dgb[u - 1], ib = isb[u];
                double cn;
                if (lane == 0) cn = first ? bufA[u] : comoment_step(bufA[u - 1], fa, ga, fb, gb);
                else cn = comoment_step(up, fa, ga, fb, gb);
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
                            double* outGap, double* outThr) {
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
            if (lane == 0) outG[pv] = -1;
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
            outG[pv] = bg;
            if (bg >= 0) {
                outGap[pv] = bgap;
                outThr[pv] = midpoint(od[bi], od[bi + 1]);
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

std::vector<Cand> discover(const Subset& d, const std::vector<int>& lengths, int k, const Partner& partner,
                           TsExec* ex) {
    tsm::gpu::use_device(ex);
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
        throw Error(TS_INVALID_ARGUMENT, kInvalidParameter,
                    format("too many training series (%d) for the GPU shapelet engine", N),
                    "SET tsmine.backend = cpu for this query.");
    const int gain_wpb = (int)std::max<size_t>(1, std::min<size_t>(8, (size_t)smem_optin / 2 / gain_per_warp));

    tsm::gpu::Stream stream;
    tsm::gpu::EventTimer timer(stream);
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

    Buffer<double> X, PART;
    Buffer<int64_t> XO, XN, T, TOT;
    Buffer<int32_t> Y;
    upload(X, xh, stream, "shapelet series");
    upload(XO, xo, stream, "shapelet offsets");
    upload(XN, xn, stream, "shapelet lengths");
    upload(Y, d.y, stream, "shapelet labels");
    upload(T, Th, stream, "entropy table");
    upload(TOT, toth, stream, "class counts");
    std::vector<double> parth;
    if (partner.d) parth.assign(partner.d, partner.d + N);
    if (partner.d) upload(PART, parth, stream, "partner distances");

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
    Buffer<double> GCARRY;
    if (!carry_in_shared) GCARRY.allocate((size_t)dist_blocks * kDistWarps * 2 * ucap, "shapelet carries");
    const size_t gain_smem = gain_per_warp * gain_wpb;
    check(cudaFuncSetAttribute(gain_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)gain_smem),
          "cudaFuncSetAttribute");
    int gain_bps = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&gain_bps, gain_kernel, gain_wpb * 32, gain_smem),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    const int gain_blocks_max = std::max(1, gain_bps) * sms;

    // the batch matrix D and per-pivot results, sized once
    const int64_t pcap = std::max<int64_t>(
        longest, std::min<int64_t>(int64_t(1) << 22, (int64_t)(kMaxBatchBytes / ((size_t)N * sizeof(double)))));
    Buffer<double> Dm((size_t)pcap * N, "shapelet distance batch");
    Buffer<int64_t> OG(pcap, "shapelet gains");
    Buffer<double> OGAP(pcap, "shapelet gaps"), OTHR(pcap, "shapelet thresholds");
    Buffer<unsigned long long> COUNTER(1, "task counter");
    std::vector<int64_t> hg(pcap);
    std::vector<double> hgap(pcap), hthr(pcap);

    size_t gi = 0;
    while (gi < lengths.size()) {
        // a group of lengths whose window statistics fit
        size_t ge = gi;
        int64_t entries = 0;
        while (ge < lengths.size()) {
            int64_t e = 0;
            for (int j = 0; j < N; ++j) e += std::max<int64_t>(0, d.n[j] - lengths[ge] + 1);
            if (ge > gi && entries + e > kStatsEntries) break;
            entries += e;
            ++ge;
        }
        const int nL = (int)(ge - gi);
        std::vector<LengthStats> st(nL);
        parallel_for(ex, nL, [&](int64_t li) { length_stats(d, lengths[gi + li], st[li], false); });
        std::vector<int64_t> so((size_t)nL * N, -1);
        std::vector<double> muh, isdh;
        muh.reserve(entries);
        isdh.reserve(entries);
        std::vector<uint8_t> flath((size_t)nL * N, 0);
        std::vector<int32_t> Lh(nL);
        for (int li = 0; li < nL; ++li) {
            Lh[li] = lengths[gi + li];
            for (int j = 0; j < N; ++j) {
                flath[(size_t)li * N + j] = st[li].has_flat[j];
                if (st[li].off[j] < 0) continue;
                so[(size_t)li * N + j] = (int64_t)muh.size();
                const int64_t U = d.n[j] - Lh[li] + 1;
                muh.insert(muh.end(), st[li].mu.begin() + st[li].off[j], st[li].mu.begin() + st[li].off[j] + U);
                isdh.insert(isdh.end(), st[li].isd.begin() + st[li].off[j], st[li].isd.begin() + st[li].off[j] + U);
            }
        }
        st.clear();
        Buffer<double> MU, ISD, DF(entries, "shapelet df"), DG(entries, "shapelet dg");
        Buffer<int64_t> SO;
        Buffer<uint8_t> FLAT;
        Buffer<int32_t> LS;
        upload(MU, muh, stream, "window means");
        upload(ISD, isdh, stream, "window inverse stds");
        upload(SO, so, stream, "window offsets");
        upload(FLAT, flath, stream, "flat flags");
        upload(LS, Lh, stream, "lengths");
        terms_kernel<<<(unsigned)std::min<int64_t>((int64_t)nL * N, 65535), 128, 0, stream>>>(
            X.get(), XO.get(), XN.get(), SO.get(), LS.get(), N, nL, MU.get(), DF.get(), DG.get());
        check(cudaGetLastError(), "terms_kernel launch");

        // items of the group, in chunks
        std::vector<Item> all;
        std::vector<double> cost;
        int64_t sum_n = 0;
        for (int j = 0; j < N; ++j) sum_n += d.n[j];
        for (int li = 0; li < nL; ++li) {
            const int L = Lh[li];
            const int64_t R = rows_per_group(L);
            for (int s = 0; s < N; ++s) {
                if (d.n[s] < L) continue;
                Item it{};
                it.s = s;
                it.li = li;
                it.L = L;
                it.P = (int32_t)(d.n[s] - L + 1);
                it.R = (int32_t)R;
                it.ngroups = (int32_t)((it.P + R - 1) / R);
                all.push_back(it);
                cost.push_back((double)it.P * (double)sum_n);
            }
        }
        size_t ci = 0;
        while (ci < all.size()) {
            size_t ce = ci;
            int64_t piv = 0, tasks = 0;
            double c = 0;
            std::vector<Item> chunk;
            while (ce < all.size() && (ce == ci || (piv + all[ce].P <= pcap && c + cost[ce] <= kChunkCost))) {
                Item it = all[ce];
                it.pivot_base = piv;
                it.task_base = tasks;
                piv += it.P;
                tasks += (int64_t)it.ngroups * N;
                c += cost[ce];
                chunk.push_back(it);
                ++ce;
            }
            Buffer<Item> ITEMS;
            upload(ITEMS, chunk, stream, "shapelet work items");
            check(cudaMemsetAsync(COUNTER.get(), 0, sizeof(unsigned long long), stream), "cudaMemsetAsync");
            timer.start();
            dist_kernel<<<dist_blocks, kDistWarps * 32, dist_smem, stream>>>(
                ITEMS.get(), (int)chunk.size(), tasks, N, X.get(), XO.get(), XN.get(), SO.get(), FLAT.get(), MU.get(),
                ISD.get(), DF.get(), DG.get(), Dm.get(), pcap, COUNTER.get(), GCARRY.get(), ucap, carry_in_shared);
            check(cudaGetLastError(), "dist_kernel launch");
            const int gblocks = (int)std::min<int64_t>(gain_blocks_max, (piv + gain_wpb - 1) / gain_wpb);
            gain_kernel<<<gblocks, gain_wpb * 32, gain_smem, stream>>>(
                ITEMS.get(), (int)chunk.size(), piv, N, C, Y.get(), T.get(), TOT.get(), base_g, Dm.get(), pcap,
                ISD.get(), SO.get(), partner.d ? PART.get() : nullptr, partner.op, OG.get(), OGAP.get(), OTHR.get());
            check(cudaGetLastError(), "gain_kernel launch");
            timer.stop();
            check(cudaMemcpyAsync(hg.data(), OG.get(), piv * sizeof(int64_t), cudaMemcpyDeviceToHost, stream), "copy gains");
            check(cudaMemcpyAsync(hgap.data(), OGAP.get(), piv * sizeof(double), cudaMemcpyDeviceToHost, stream), "copy gaps");
            check(cudaMemcpyAsync(hthr.data(), OTHR.get(), piv * sizeof(double), cudaMemcpyDeviceToHost, stream),
                  "copy thresholds");
            tsm::gpu::wait(stream, ex);
            kernel_ms += timer.ms();
            for (const Item& it : chunk)
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
                    cd.row = d.row[it.s];
                    best.add(cd);
                }
            ci = ce;
        }
        gi = ge;
    }
    stream.sync();
    ex->kernel_ms += kernel_ms;
    ex->device_ms += tsm::gpu::now_ms() - t_start;
    return best.take();
}

}  // namespace gpu
}  // namespace shp
}  // namespace tsm
