// discords.cu — PD3 (Kraeva & Zymbler 2023) on the GPU: candidate
// selection, bitmap conjunction, refinement, collection.  The algorithm and
// its arithmetic are those of the CPU path (src/core/discords.cpp); the
// layout is the GPU's:
//
//  * A segment is SEG = 32·R consecutive windows (candidate rows) owned by one
//    warp; lane l holds rows l·R .. l·R+R−1 of it in registers (co-moment C,
//    df, dg, 1/σ, best distance and column, alive bit).  A block runs WARPS
//    independent segments.
//  * The warp scans columns j in order.  Recurrence (9) in centred form,
//    C(i,j) = C(i−1,j−1) + df_i·dg_j + df_j·dg_i, moves each row's value down
//    one row: within a lane in registers, across lanes with one shuffle; the
//    segment's top row (lane 0, row 0) takes the direct dot product QTcol.
//    Per 32 columns, each lane stages one column's df, dg, 1/σ and QTcol in
//    shared memory (PD3's QTcol / chunk staging), which the warp then reads as
//    broadcasts.  Every value is at most SEG−1 recurrence steps from a direct
//    dot product.
//  * Selection: columns j >= a + exclusion; a pair closer than r clears the
//    row's alive bit (Bitmap.Subseq) and, through a warp vote, the column's
//    Bitmap.Neighbor.  A warp whose rows are all discarded stops (PD3's early
//    termination), checked every 32 columns.
//  * Refinement: the same scan over columns j <= i − exclusion, only for
//    segments that hold candidates, only discarding.
//  * Launches cover a window of W columns for all segments (≲ 20–50 ms of
//    work); the co-moments at the last column, best distances and bits carry
//    over in global memory; tsm::gpu::wait between launches.
#include <cuda_runtime.h>
#include <math_constants.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "discords.h"
#include "gpu_runtime.h"

namespace tsm {
namespace gpu {

namespace {

constexpr int R = 8;          // rows per lane
constexpr int SEG = 32 * R;   // rows per segment (warp)
constexpr int WARPS = 4;      // segments per block
constexpr unsigned FULL = 0xffffffffu;

struct Dev {
    const double* x;
    const double* mu;
    const double* isd;  // 0 for constant windows
    const double* df;
    const double* dg;
    double* carry;      // C(i, last column scanned)
    double* best;       // best d² of the current side
    int* bestj;
    uint8_t* alive;     // Bitmap.Subseq (candidates in the refinement)
    uint8_t* neighbor;  // Bitmap.Neighbor
    uint8_t* seg_done;
    int64_t N, e, nseg;
    int m;
};

__device__ __forceinline__ double cdot(const double* __restrict__ x, double mi, double mj, int64_t i, int64_t j,
                                       int m) {
    double s = 0;
    for (int k = 0; k < m; ++k) s = fma(x[i + k] - mi, x[j + k] - mj, s);
    return s;
}

__global__ void pd3_init(uint8_t* alive, uint8_t* neighbor, double* bestR, double* bestL, int* bjR, int* bjL,
                         uint8_t* seg_done, int64_t N, int64_t nseg) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        alive[i] = 1;
        neighbor[i] = 1;
        bestR[i] = CUDART_INF;
        bestL[i] = CUDART_INF;
        bjR[i] = -1;
        bjL[i] = -1;
    }
    if (i < nseg) seg_done[i] = 0;
}

// d² of a row against a column from their co-moment C and 1/σ (isd, 0 for a
// constant window; isj2 = 2·(1/σ) of the column): 2m − 2·C·isd·(1/σ of the
// column), and for constant windows STUMPY's rule: 0 between two constant
// windows, m (= √m²) between a constant and a non-constant one.
template <bool COLUMN_CONSTANT>
__device__ __forceinline__ double pair_d2(double C, double isd, double isj2, double md, double m2) {
    if (COLUMN_CONSTANT) return isd == 0.0 ? 0.0 : md;
    return isd == 0.0 ? md : fma(-C, isd * isj2, m2);
}

// Scans columns [c_lo, c_hi) ∩ the segment's range; see the file comment.
template <bool SELECT>
__global__ void __launch_bounds__(32 * WARPS, 3) pd3_scan(Dev d, int64_t c_lo, int64_t c_hi, double r2, int* pending) {
    __shared__ double sh[WARPS][4][32];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int64_t s = (int64_t)blockIdx.x * WARPS + w;
    if (s >= d.nseg || d.seg_done[s]) return;  // warp-uniform
    const int64_t a = s * SEG;
    const int rows = (int)min((int64_t)SEG, d.N - a);
    const int64_t start = SELECT ? a + d.e : 0;
    const int64_t end = SELECT ? d.N : a + rows - d.e;  // exclusive
    if (end <= start) {
        if (lane == 0) d.seg_done[s] = 1;
        return;
    }
    const int64_t lo = max(start, c_lo), hi = min(end, c_hi);
    if (lo >= hi) {
        if (lane == 0) {
            if (end <= c_lo) d.seg_done[s] = 1;
            else atomicAdd(pending, 1);
        }
        return;
    }
    const double md = d.m, m2 = 2.0 * d.m;
    double C[R], df[R], dg[R], isd[R], b2[R];
    int bj[R];
    unsigned al = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int rr = lane * R + r;
        const int64_t i = a + rr;
        const bool act = rr < rows;
        df[r] = act ? d.df[i] : 0.0;
        dg[r] = act ? d.dg[i] : 0.0;
        isd[r] = act ? d.isd[i] : 0.0;
        C[r] = (act && lo > start) ? d.carry[i] : 0.0;
        b2[r] = act ? d.best[i] : CUDART_INF;
        bj[r] = act ? d.bestj[i] : -1;
        if (act && d.alive[i]) al |= 1u << r;
    }
    const double* __restrict__ x = d.x;
    const double mu_a = d.mu[a];
    double* sdf = sh[w][0];
    double* sdg = sh[w][1];
    double* sis = sh[w][2];
    double* sqt = sh[w][3];
    bool dead = false;
    for (int64_t j0 = lo; j0 < hi; j0 += 32) {
        const int64_t jj = j0 + lane;
        if (jj < hi) {
            sdf[lane] = d.df[jj];
            sdg[lane] = d.dg[jj];
            sis[lane] = d.isd[jj];
            sqt[lane] = cdot(x, mu_a, d.mu[jj], a, jj, d.m);  // QTcol: top row × column jj
        }
        __syncwarp();
        const int cnt = (int)min((int64_t)32, hi - j0);
        for (int t = 0; t < cnt; ++t) {
            const int64_t j = j0 + t;
            const double dfj = sdf[t], dgj = sdg[t], isj = sis[t];
            if (j == start) {  // first column of the segment: every row directly
                const double mj = d.mu[j];
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const int rr = lane * R + r;
                    C[r] = rr < rows ? cdot(x, d.mu[a + rr], mj, a + rr, j, d.m) : 0.0;
                }
            } else {
                const double prev = __shfl_up_sync(FULL, C[R - 1], 1);
#pragma unroll
                for (int r = R - 1; r >= 1; --r) C[r] = fma(dfj, dg[r], fma(df[r], dgj, C[r - 1]));
                C[0] = lane == 0 ? sqt[t] : fma(dfj, dg[0], fma(df[0], dgj, prev));
            }
            // rows with a valid pair in this column: [vlo, vhi)
            int vlo, vhi;
            if (SELECT) {
                vlo = 0;
                vhi = (int)max((int64_t)0, min((int64_t)rows, j - d.e - a + 1));
            } else {
                vlo = (int)min((int64_t)SEG, max((int64_t)0, j + d.e - a));
                vhi = rows;
            }
            // one pass over the lane's rows, compiled once per kind of column
            // (the branch on the column is warp-uniform)
            bool close = false;
            auto rows_vs_column = [&](auto col_constant) {
                const double isj2 = 2.0 * isj;
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const int rr = lane * R + r;
                    const bool v = rr >= vlo && rr < vhi;
                    const double d2 = pair_d2<decltype(col_constant)::value>(C[r], isd[r], isj2, md, m2);
                    if (v && d2 < r2) {
                        al &= ~(1u << r);
                        close = true;
                    }
                    if (v && d2 < b2[r]) {
                        b2[r] = d2;
                        bj[r] = (int)j;
                    }
                }
            };
            if (isj != 0.0) rows_vs_column(std::false_type());
            else rows_vs_column(std::true_type());
            if (SELECT) {
                if (__any_sync(FULL, close) && lane == 0) d.neighbor[j] = 0;
            }
        }
        __syncwarp();
        if (!__any_sync(FULL, al != 0)) {
            dead = true;
            break;
        }
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int rr = lane * R + r;
        if (rr < rows) {
            const int64_t i = a + rr;
            d.carry[i] = C[r];
            d.best[i] = b2[r];
            d.bestj[i] = bj[r];
            d.alive[i] = (al >> r) & 1u;
        }
    }
    if (lane == 0) {
        if (dead || hi == end) d.seg_done[s] = 1;
        else atomicAdd(pending, 1);
    }
}

// Bitmap conjunction (PD3 Alg. 2, lines 26–28) and which segments hold candidates.
__global__ void pd3_conj(uint8_t* alive, const uint8_t* neighbor, uint8_t* seg_done, int64_t N) {
    const int64_t i = (int64_t)blockIdx.x * SEG + threadIdx.x;
    int v = 0;
    if (i < N) {
        v = alive[i] & neighbor[i];
        alive[i] = (uint8_t)v;
    }
    const int any = __syncthreads_or(v);
    if (threadIdx.x == 0) seg_done[blockIdx.x] = any ? 0 : 1;
}

// Survivors with their NN (the nearer of left and right; a tie goes left).
__global__ void pd3_collect(const uint8_t* alive, const double* bestL, const int* bjL, const double* bestR,
                            const int* bjR, int64_t N, int* count, int64_t* pos, double* d2, int* nn) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N || !alive[i]) return;
    double b = bestL[i];
    int j = bjL[i];
    if (bestR[i] < b) {
        b = bestR[i];
        j = bjR[i];
    }
    if (j < 0) return;
    const int slot = atomicAdd(count, 1);
    pos[slot] = i;
    d2[slot] = b;
    nn[slot] = j;
}

class GpuPd3 final : public Pd3Runner {
  public:
    GpuPd3(const Pd3Prep& p, TsExec* ex) : p_(p), ex_(ex) {
        use_device(ex);
        stream_holder_.reset(new Stream());
        N_ = p.N;
        if (N_ >= (int64_t(1) << 31) - 64)
            throw Error(TS_INVALID_ARGUMENT, kInvalidParameter, "series too long for the GPU discord search",
                        "Use tsmine.backend = cpu for more than 2^31 subsequences.");
        nseg_ = (N_ + SEG - 1) / SEG;
        // one device allocation for every array of the runner
        const size_t o_x = ar_.take<double>(p.n), o_mu = ar_.take<double>(N_), o_isd = ar_.take<double>(N_);
        const size_t o_df = ar_.take<double>(N_), o_dg = ar_.take<double>(N_), o_carry = ar_.take<double>(N_);
        const size_t o_bestR = ar_.take<double>(N_), o_bestL = ar_.take<double>(N_);  // NN d² right / left
        const size_t o_bjR = ar_.take<int>(N_), o_bjL = ar_.take<int>(N_);            // NN indices
        const size_t o_alive = ar_.take<uint8_t>(N_), o_neighbor = ar_.take<uint8_t>(N_);  // the bitmaps
        const size_t o_seg_done = ar_.take<uint8_t>(nseg_), o_pending = ar_.take<int>(2);
        const size_t o_out_pos = ar_.take<int64_t>(N_), o_out_d2 = ar_.take<double>(N_), o_out_nn = ar_.take<int>(N_);
        require_bytes(ar_.off, "PD3 discord search");
        const double t0 = now_ms();
        ar_.allocate("PD3 discord search");
        x_ = ar_.at<double>(o_x), mu_ = ar_.at<double>(o_mu), isd_ = ar_.at<double>(o_isd);
        df_ = ar_.at<double>(o_df), dg_ = ar_.at<double>(o_dg), carry_ = ar_.at<double>(o_carry);
        bestR_ = ar_.at<double>(o_bestR), bestL_ = ar_.at<double>(o_bestL);
        bjR_ = ar_.at<int>(o_bjR), bjL_ = ar_.at<int>(o_bjL);
        alive_ = ar_.at<uint8_t>(o_alive), neighbor_ = ar_.at<uint8_t>(o_neighbor);
        seg_done_ = ar_.at<uint8_t>(o_seg_done), pending_ = ar_.at<int>(o_pending);
        out_pos_ = ar_.at<int64_t>(o_out_pos), out_d2_ = ar_.at<double>(o_out_d2), out_nn_ = ar_.at<int>(o_out_nn);
        check(cudaMemcpyAsync(x_, p.x, sizeof(double) * p.n, cudaMemcpyHostToDevice, *stream_holder_), "upload");
        check(cudaMemcpyAsync(mu_, p.mean.data(), sizeof(double) * N_, cudaMemcpyHostToDevice, *stream_holder_),
              "upload");
        check(cudaMemcpyAsync(isd_, p.isd.data(), sizeof(double) * N_, cudaMemcpyHostToDevice, *stream_holder_),
              "upload");
        check(cudaMemcpyAsync(df_, p.df.data(), sizeof(double) * N_, cudaMemcpyHostToDevice, *stream_holder_), "upload");
        check(cudaMemcpyAsync(dg_, p.dg.data(), sizeof(double) * N_, cudaMemcpyHostToDevice, *stream_holder_), "upload");
        wait(*stream_holder_, ex_);
        ex_->device_ms += now_ms() - t0;
    }

    std::vector<DiscordRow> run(double r) override {
        const double t0 = now_ms();
        EventTimer timer(*stream_holder_);
        timer.start();
        const double r2 = r > 0 ? r * r : -std::numeric_limits<double>::infinity();
        const int tb = 256;
        const int64_t gN = (std::max(N_, nseg_) + tb - 1) / tb;
        pd3_init<<<(unsigned)gN, tb, 0, *stream_holder_>>>(alive_, neighbor_, bestR_, bestL_, bjR_, bjL_,
                                                            seg_done_, N_, nseg_);
        check(cudaGetLastError(), "pd3_init");
        scan(true, r2);
        pd3_conj<<<(unsigned)nseg_, SEG, 0, *stream_holder_>>>(alive_, neighbor_, seg_done_, N_);
        check(cudaGetLastError(), "pd3_conj");
        scan(false, r2);
        check(cudaMemsetAsync(pending_, 0, sizeof(int), *stream_holder_), "cudaMemsetAsync");
        pd3_collect<<<(unsigned)((N_ + tb - 1) / tb), tb, 0, *stream_holder_>>>(
            alive_, bestL_, bjL_, bestR_, bjR_, N_, pending_, out_pos_, out_d2_, out_nn_);
        check(cudaGetLastError(), "pd3_collect");
        timer.stop();
        int count = 0;
        check(cudaMemcpyAsync(&count, pending_, sizeof(int), cudaMemcpyDeviceToHost, *stream_holder_), "download");
        wait(*stream_holder_, ex_);
        std::vector<int64_t> pos(count);
        std::vector<double> d2(count);
        std::vector<int> nn(count);
        if (count > 0) {
            check(cudaMemcpyAsync(pos.data(), out_pos_, sizeof(int64_t) * count, cudaMemcpyDeviceToHost,
                                  *stream_holder_), "download");
            check(cudaMemcpyAsync(d2.data(), out_d2_, sizeof(double) * count, cudaMemcpyDeviceToHost, *stream_holder_),
                  "download");
            check(cudaMemcpyAsync(nn.data(), out_nn_, sizeof(int) * count, cudaMemcpyDeviceToHost, *stream_holder_),
                  "download");
            wait(*stream_holder_, ex_);
        }
        ex_->kernel_ms += timer.ms();
        ex_->device_ms += now_ms() - t0;
        std::vector<DiscordRow> rows(count);
        for (int t = 0; t < count; ++t) rows[t] = {pos[t], d2[t], std::sqrt(std::max(d2[t], 0.0)), (int64_t)nn[t]};
        return rows;
    }

  private:
    void scan(bool select, double r2) {
        const int64_t e = p_.excl;
        const int64_t first = select ? e : 0, last = select ? N_ : N_ - e;
        // ≈ 2^34 pair updates a launch at most (every row busy): ~10–40 ms on an H100
        int64_t W = (int64_t(1) << 34) / std::max<int64_t>(N_, 1);
        W = std::max<int64_t>(256, (W + 31) / 32 * 32);
        Dev d{x_, mu_, isd_, df_, dg_, carry_, select ? bestR_ : bestL_, select ? bjR_ : bjL_, alive_,
              neighbor_, seg_done_, N_, e, nseg_, p_.m};
        const unsigned blocks = (unsigned)((nseg_ + WARPS - 1) / WARPS);
        for (int64_t c = first; c < last; c += W) {
            check(cudaMemsetAsync(pending_, 0, sizeof(int), *stream_holder_), "cudaMemsetAsync");
            if (select)
                pd3_scan<true><<<blocks, 32 * WARPS, 0, *stream_holder_>>>(d, c, std::min(last, c + W), r2, pending_);
            else
                pd3_scan<false><<<blocks, 32 * WARPS, 0, *stream_holder_>>>(d, c, std::min(last, c + W), r2, pending_);
            check(cudaGetLastError(), "pd3_scan");
            int pending = 0;
            check(cudaMemcpyAsync(&pending, pending_, sizeof(int), cudaMemcpyDeviceToHost, *stream_holder_),
                  "download");
            wait(*stream_holder_, ex_);
            if (pending == 0) break;  // every segment finished or discarded
        }
    }

    const Pd3Prep& p_;
    TsExec* ex_;
    int64_t N_ = 0, nseg_ = 0;
    std::unique_ptr<Stream> stream_holder_;  // created after use_device
    Arena ar_;  // the device memory of the arrays below
    double *x_ = nullptr, *mu_ = nullptr, *isd_ = nullptr, *df_ = nullptr, *dg_ = nullptr, *carry_ = nullptr;
    double *bestR_ = nullptr, *bestL_ = nullptr, *out_d2_ = nullptr;
    int *bjR_ = nullptr, *bjL_ = nullptr, *pending_ = nullptr, *out_nn_ = nullptr;
    uint8_t *alive_ = nullptr, *neighbor_ = nullptr, *seg_done_ = nullptr;
    int64_t* out_pos_ = nullptr;
};

}  // namespace

std::unique_ptr<Pd3Runner> make_pd3(const Pd3Prep& p, TsExec* ex) {
    return std::unique_ptr<Pd3Runner>(new GpuPd3(p, ex));
}

}  // namespace gpu
}  // namespace tsm
