// discords.cu — PD3 (Kraeva & Zymbler 2023) on the GPU: candidate
// selection, bitmap conjunction, refinement, collection, and the
// verification of the discards.  The algorithm is the CPU path's
// (src/core/discords.cpp), and so is the arithmetic: both call the functions
// of src/core/discords_detail.h (co-moments, restarts at rough windows,
// distances, the discard, verification and nearest-neighbour rules) and of
// motifs_detail.h (the exact distances of the verification), so both propose
// the same candidates with the same partners, bit for bit.  The layout is
// the GPU's:
//
//  * A segment of pd3::kSegmentRows = 32·kRowsPerLane consecutive windows
//    (candidate rows) is owned by one warp; lane l holds rows
//    l·kRowsPerLane .. l·kRowsPerLane + kRowsPerLane − 1 of it in registers
//    (co-moment, df, dg, 1/σ, best d² and column, alive bit).  A block runs
//    kWarpsPerBlock independent segments.
//  * The warp scans columns j in order.  The recurrence moves each row's
//    co-moment down one row: within a lane in registers, across lanes with
//    one shuffle; the segment's top row (lane 0, row 0) takes the direct
//    co-moment (PD3's QTcol).  Per 32 columns, each lane stages one column's
//    df, dg, 1/σ, rough flag and top-row co-moment in shared memory (PD3's
//    QTcol / chunk staging), which the warp then reads as broadcasts.  A
//    rough column (warp-uniform) takes every row's co-moment directly; in a
//    segment with rough rows (a warp-uniform flag) their lanes do too.
//  * Selection: columns j >= a + exclusion; a pair closer than r clears the
//    row's alive bit (Bitmap.Subseq) and, through a warp vote, the column's
//    Bitmap.Neighbor, recording the smallest such row (atomicMin).  A warp
//    whose rows are all discarded stops (PD3's early termination), checked
//    every 32 columns.
//  * Verification (undone): a warp per excluded window, the exact distances
//    to its partners (motif::warp_zdist on the scaled series, with window
//    statistics computed on the device by motif::k_window_zstats).
//  * Refinement: the same scan over columns j <= i − exclusion, only for
//    segments that hold candidates.
//  * Chunks (discords_detail.h: 256 to 8,192 columns by the series'
//    length and m): a launch scans chunk 0 of up to 8,192
//    segments (pd3_scan), a warp each, and lists the segments that need
//    their later chunks; those run as tasks of their own, a warp per chunk,
//    in batches of up to 8,192 slots (pd3_scan_later), each recording its
//    rows' state and which row discarded each of its columns, each batch
//    merged in column order into the sequential scan's result (pd3_merge: a
//    row keeps its first discard; pd3_mark: the columns after the segment's
//    stop column T stay unmarked);
//    ≲ 20 ms of work a launch; tsm::gpu::wait
//    between launches.  A series whose later chunks fit one batch (up to
//    about 2^16 windows) lists them once and runs them as one batch a scan
//    side, with no wait for chunk 0's list (GpuPd3::plan_dense).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "discords.h"
#include "discords_detail.h"
#include "gpu_runtime.h"
#include "motifs_detail.h"

namespace tsm {
namespace gpu {

namespace {

constexpr int kSegmentRows = pd3::kSegmentRows;
constexpr int kRowsPerLane = kSegmentRows / 32;
constexpr int kWarpsPerBlock = 4;  // segments per block
// later chunks a launch (≈ 1.7e10 pair updates at most; their column
// records 2^27 bytes at most)
inline int64_t chunk_batch(int64_t chunk) {
    return std::min<int64_t>(8192, (int64_t(1) << 26) / chunk);
}
// segments a launch of chunk 0 (≈ 1.7e10 pair updates at most)
constexpr int64_t kSegmentsPerLaunch = 8192;
constexpr unsigned kFullMask = 0xffffffffu;
static_assert(kRowsPerLane * 32 == kSegmentRows, "a segment is one row block per lane");

// What a launch of pd3_scan reads and writes (one side: right in the
// selection, left in the refinement).
struct ScanArgs {
    const double* x;      // the centred series (the profile's preparation)
    const double* mean;
    const double* isd;    // 0 for constant windows
    const double* df;
    const double* dg;
    const uint8_t* rough; // pd3::rough_window
    double* best_d2;      // the side's nearest neighbour so far
    int* best_nn;
    uint8_t* alive;       // Bitmap.Subseq (candidates in the refinement)
    const uint8_t* alive0;  // later chunks: the rows alive after chunk 0
    const int* task_seg;    // later chunks: task t's segment and chunk
    const int* task_chunk;
    int n_tasks;
    double* slot_d2;      // later chunks: task t's rows' state at t·kSegmentRows
    int* slot_nn;
    uint8_t* slot_alive;
    uint16_t* slot_col;   // later chunks: task t's columns' discarding rows at t·chunk (kNoRow: none)
    int* task_stop;       // later chunks: task t marks its columns before this one (pd3_merge)
    int* pending_list;    // chunk 0: the segments that need their later chunks
    uint8_t* needs_later; // chunk 0: whether the segment needs its later chunks
    uint8_t* neighbor;    // Bitmap.Neighbor
    int* col_row;         // the smallest row that discarded the column
    uint8_t* seg_done;
    int* pending;         // chunk 0: how many segments need their later chunks
    int64_t windows, excl, nseg;
    int64_t chunk;        // the chunks' width (pd3::chunk_columns)
    int m;
    double r2;            // pd3::discard_below
};

// A lane's rows of its warp's segment, in registers.
struct LaneRows {
    double comoment[kRowsPerLane], df[kRowsPerLane], dg[kRowsPerLane], isd[kRowsPerLane];
    double best_d2[kRowsPerLane];
    int best_nn[kRowsPerLane];
    unsigned alive;  // bit r: row r is still a candidate
    unsigned rough;  // bit r: row r (not the segment's top row) is rough
};

// 32 columns staged by the warp (one per lane).
struct StagedColumns {
    double df[32], dg[32], isd[32], top[32];  // top: the top row's co-moment
    uint8_t rough[32];
};

__device__ __forceinline__ int lane_row(int lane, int r) { return lane * kRowsPerLane + r; }

// Where a chunk's rows keep their state (index = row of the segment): the
// side's arrays at the segment's first row (chunk 0) or the task's slot.
struct RowState {
    double* best_d2;
    int* best_nn;
    uint8_t* alive;
    const uint8_t* alive_in;  // the rows alive as the chunk begins
    bool fresh;               // no neighbour yet (a later chunk)
};

__device__ __forceinline__ void load_rows(const ScanArgs& d, const pd3::SegmentPlan& sp, int lane,
                                          const RowState& rs, LaneRows& lr) {
    lr.alive = 0;
    lr.rough = 0;
#pragma unroll
    for (int r = 0; r < kRowsPerLane; ++r) {
        const int row = lane_row(lane, r);
        const int64_t i = sp.first_row + row;
        const bool act = row < sp.rows;
        lr.df[r] = act ? d.df[i] : 0.0;
        lr.dg[r] = act ? d.dg[i] : 0.0;
        lr.isd[r] = act ? d.isd[i] : 0.0;
        lr.comoment[r] = 0.0;  // the chunk's first column takes every row directly
        lr.best_d2[r] = act && !rs.fresh ? rs.best_d2[row] : INFINITY;
        lr.best_nn[r] = act && !rs.fresh ? rs.best_nn[row] : -1;
        if (act && rs.alive_in[row]) lr.alive |= 1u << r;
        if (act && row > 0 && d.rough[i]) lr.rough |= 1u << r;
    }
}

__device__ __forceinline__ void store_rows(const pd3::SegmentPlan& sp, int lane, const LaneRows& lr,
                                           const RowState& rs) {
#pragma unroll
    for (int r = 0; r < kRowsPerLane; ++r) {
        const int row = lane_row(lane, r);
        if (row < sp.rows) {
            rs.best_d2[row] = lr.best_d2[r];
            rs.best_nn[row] = lr.best_nn[r];
            rs.alive[row] = (lr.alive >> r) & 1u;
        }
    }
}

// Columns [j0, j0 + 32) ∩ [.., hi): lane t stages column j0 + t.
__device__ __forceinline__ void stage_columns(const ScanArgs& d, const pd3::SegmentPlan& sp, double mean_top,
                                              int64_t j0, int lane, StagedColumns& st) {
    const int64_t j = j0 + lane;
    if (j < sp.hi) {
        st.df[lane] = d.df[j];
        st.dg[lane] = d.dg[j];
        st.isd[lane] = d.isd[j];
        st.rough[lane] = d.rough[j];
        st.top[lane] = direct_comoment(d.x, sp.first_row, j, d.m, mean_top, d.mean[j]);
    }
    __syncwarp();
}

// The lane's co-moments with column j (staged as column t); seg_rough: the
// segment has rough rows (warp-uniform).
__device__ __forceinline__ void advance_column(const ScanArgs& d, const pd3::SegmentPlan& sp, int64_t j, int lane,
                                               const StagedColumns& st, int t, bool seg_rough, LaneRows& lr) {
    if (j == sp.lo || st.rough[t]) {  // the chunk's first column, a rough one: every row directly
        const double mean_j = d.mean[j];
#pragma unroll
        for (int r = 0; r < kRowsPerLane; ++r) {
            const int row = lane_row(lane, r);
            const int64_t i = sp.first_row + row;
            lr.comoment[r] = row < sp.rows ? direct_comoment(d.x, i, j, d.m, d.mean[i], mean_j) : 0.0;
        }
        return;
    }
    const double df_j = st.df[t], dg_j = st.dg[t];
    const double above = __shfl_up_sync(kFullMask, lr.comoment[kRowsPerLane - 1], 1);
#pragma unroll
    for (int r = kRowsPerLane - 1; r >= 1; --r)
        lr.comoment[r] = comoment_next(lr.comoment[r - 1], lr.df[r], lr.dg[r], df_j, dg_j);
    lr.comoment[0] = lane == 0 ? st.top[t] : comoment_next(above, lr.df[0], lr.dg[0], df_j, dg_j);
    if (seg_rough) {
#pragma unroll
        for (int r = 0; r < kRowsPerLane; ++r)
            if ((lr.rough >> r) & 1u) {
                const int64_t i = sp.first_row + lane_row(lane, r);
                lr.comoment[r] = direct_comoment(d.x, i, j, d.m, d.mean[i], d.mean[j]);
            }
    }
}

// The lane's rows [lo, hi) of the segment against column j; returns the
// smallest of them whose pair discarded it (and so the column), −1 for none.
template <bool ColumnConstant>
__device__ __forceinline__ int visit_column(int lane, int lo, int hi, int j, double isd2_j, double md, double m2,
                                            double r2, LaneRows& lr) {
    // Branch-free (no jumps per row): a row that does not pair with the column
    // changes nothing (the pairing is ANDed into the compares' predicates).
    // Rows in descending order, so the last discarding one is the smallest.
    int closer = -1;
#pragma unroll
    for (int r = kRowsPerLane - 1; r >= 0; --r) {
        const int row = lane_row(lane, r);
        const bool paired = (row >= lo) & (row < hi);
        const double d2 = ColumnConstant ? pd3::constant_column_d2(lr.isd[r], md)
                                         : pd3::pair_d2_unbased(lr.comoment[r], lr.isd[r], isd2_j, md, m2);
        const bool discard = pd3::visit_paired(paired, ((lr.alive >> r) & 1u) != 0, d2, r2, j, lr.best_d2[r],
                                               lr.best_nn[r]);
        lr.alive &= discard ? ~(1u << r) : ~0u;
        closer = pd3::close_row(discard, row, closer);
    }
    return closer;
}

constexpr uint16_t kNoRow = 0xFFFF;  // a later chunk's column that no row discarded

// Bitmap.Neighbor of column j after the warp's rows visited it (closer: each
// lane's smallest discarding row): cleared, recording the warp's smallest
// such row (the lowest lane's), when any pair discarded it.  A later chunk
// (slot_col: its columns from the chunk's first) records the row, or kNoRow,
// for pd3_merge instead.
__device__ __forceinline__ void record_column(const ScanArgs& d, int64_t first_row, int64_t j, int lane,
                                              int closer, uint16_t* slot_col) {
    const unsigned votes = __ballot_sync(kFullMask, closer >= 0);
    const int row = votes ? __shfl_sync(kFullMask, closer, __ffs(votes) - 1) : -1;
    if (lane != 0) return;
    if (slot_col) {
        slot_col[0] = votes ? (uint16_t)row : kNoRow;
    } else if (votes) {
        d.neighbor[j] = 0;
        atomicMin(&d.col_row[j], (int)(first_row + row));
    }
}

// Scans the chunk sp of the warp's segment, its rows' state in rs (slot_col:
// a later chunk's column records, record_column); returns whether every row
// was discarded (warp-uniform).
template <bool Select>
__device__ __forceinline__ bool scan_chunk(const ScanArgs& d, const pd3::SegmentPlan& sp, int lane,
                                           StagedColumns& st, const RowState& rs, uint16_t* slot_col) {
    const double md = d.m, m2 = hd::mul(2.0, md);
    LaneRows lr;
    load_rows(d, sp, lane, rs, lr);
    const bool seg_rough = __any_sync(kFullMask, lr.rough != 0);
    const double mean_top = d.mean[sp.first_row];  // the top row's, loaded once
    bool dead = false;
    for (int64_t j0 = sp.lo; j0 < sp.hi; j0 += 32) {
        stage_columns(d, sp, mean_top, j0, lane, st);
        const int count = (int)min((int64_t)32, sp.hi - j0);
        for (int t = 0; t < count; ++t) {
            const int64_t j = j0 + t;
            const double isd_j = st.isd[t];  // read with df_j, dg_j, before the recurrence
            advance_column(d, sp, j, lane, st, t, seg_rough, lr);
            int lo, hi;
            pd3::paired_rows(Select, sp, j, d.excl, &lo, &hi);
            // compiled once per kind of column (the branch is warp-uniform)
            const int closer = isd_j == 0.0 ? visit_column<true>(lane, lo, hi, (int)j, 0.0, md, m2, d.r2, lr)
                                            : visit_column<false>(lane, lo, hi, (int)j, pd3::column_isd2(isd_j),
                                                                  md, m2, d.r2, lr);
            if (Select) record_column(d, sp.first_row, j, lane, closer, slot_col ? slot_col + (j - sp.lo) : nullptr);
        }
        __syncwarp();
        if (!__any_sync(kFullMask, lr.alive != 0)) {  // PD3's early termination
            dead = true;
            break;
        }
    }
    store_rows(sp, lane, lr, rs);
    return dead;
}

// Chunk 0 of segments [s0, s0 + gridDim.x·kWarpsPerBlock), a warp each; a
// segment that needs its later chunks goes to pending_list.
template <bool Select>
__global__ void __launch_bounds__(32 * kWarpsPerBlock, 3) pd3_scan(ScanArgs d, int64_t s0) {
    __shared__ StagedColumns staged[kWarpsPerBlock];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int64_t s = s0 + (int64_t)blockIdx.x * kWarpsPerBlock + warp;
    if (s >= d.nseg || d.seg_done[s]) return;  // warp-uniform
    const pd3::SegmentPlan sp = pd3::plan_chunk(Select, s, d.windows, d.excl, d.chunk, 0);
    const int64_t a = sp.first_row;
    const RowState rs{d.best_d2 + a, d.best_nn + a, d.alive + a, d.alive + a, false};
    const bool dead = sp.lo < sp.hi && scan_chunk<Select>(d, sp, lane, staged[warp], rs, nullptr);
    if (lane == 0) {
        d.seg_done[s] = 1;
        const bool later = !pd3::segment_finished(sp, dead);
        d.needs_later[s] = later;
        if (later) d.pending_list[atomicAdd(d.pending, 1)] = (int)s;
    }
}

// The later chunks of a batch, a warp per task, into the tasks' slots (a
// task of a segment that chunk 0 finished does nothing: the dense batch).
template <bool Select>
__global__ void __launch_bounds__(32 * kWarpsPerBlock, 3) pd3_scan_later(ScanArgs d) {
    __shared__ StagedColumns staged[kWarpsPerBlock];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int64_t t = (int64_t)blockIdx.x * kWarpsPerBlock + warp;
    if (t >= d.n_tasks || !d.needs_later[d.task_seg[t]]) return;  // warp-uniform
    const pd3::SegmentPlan sp = pd3::plan_chunk(Select, d.task_seg[t], d.windows, d.excl, d.chunk, d.task_chunk[t]);
    const int64_t o = t * kSegmentRows;
    const RowState rs{d.slot_d2 + o, d.slot_nn + o, d.slot_alive + o, d.alive0 + sp.first_row, true};
    uint16_t* col = d.slot_col + t * d.chunk;
    if (sp.lo < sp.hi) scan_chunk<Select>(d, sp, lane, staged[warp], rs, col);
}

// Whether any row of the block's segment that was alive after chunk 0 is
// still alive (block-uniform; every thread calls it).
__device__ __forceinline__ bool any_left(bool alive0, uint8_t alive) { return __syncthreads_or(alive0 && alive); }

// T of a segment whose rows alive after chunk 0 all died in the chunk sp:
// the latest of their first discards (best_nn, pd3::merge_chunk), by
// pd3::stop_column.
__device__ __forceinline__ int64_t stop_in_chunk(const pd3::SegmentPlan& sp, bool alive0, int best_nn) {
    __shared__ int last;
    if (threadIdx.x == 0) last = -1;
    __syncthreads();
    if (alive0) atomicMax(&last, best_nn);
    __syncthreads();
    return pd3::stop_column(sp, last);
}

// The columns [sp.lo, stop) of task t's chunk that a row discarded: cleared
// in Bitmap.Neighbor, their smallest discarding rows recorded.
__device__ __forceinline__ void mark_columns(const ScanArgs& d, const pd3::SegmentPlan& sp, int64_t t,
                                             int64_t stop) {
    const uint16_t* col = d.slot_col + t * d.chunk;
    for (int64_t j = sp.lo + threadIdx.x; j < stop; j += blockDim.x) {
        const uint16_t row = col[j - sp.lo];
        if (row == kNoRow) continue;
        d.neighbor[j] = 0;
        atomicMin(&d.col_row[j], (int)(sp.first_row + row));
    }
}

// The slots of a batch merged in order into the sequential scan's result
// (discords_detail.h, "Chunks"): block b merges tasks [run_first[b],
// run_first[b + 1]), all of one segment, thread per row; a chunk after the
// one in which the segment's last row died changes nothing, that chunk
// marks its columns before T, the others all theirs (task_stop, for
// pd3_mark in the selection).
template <bool Select>
__global__ void pd3_merge(ScanArgs d, const int* run_first) {
    const int t0 = run_first[blockIdx.x], t1 = run_first[blockIdx.x + 1];
    const int s = d.task_seg[t0];
    if (!d.needs_later[s]) return;  // block-uniform
    const int64_t i = (int64_t)s * kSegmentRows + threadIdx.x;
    const bool row = i < d.windows, alive0 = row && d.alive0[i];
    uint8_t alive = row ? d.alive[i] : 0;
    double best_d2 = row ? d.best_d2[i] : INFINITY;
    int best_nn = row ? d.best_nn[i] : -1;
    for (int t = t0; t < t1; ++t) {
        int64_t stop = 0;  // none
        if (any_left(alive0, alive)) {  // block-uniform
            const int64_t o = (int64_t)t * kSegmentRows + threadIdx.x;
            if (row) pd3::merge_chunk(d.slot_alive[o], d.slot_d2[o], d.slot_nn[o], alive, best_d2, best_nn);
            const pd3::SegmentPlan sp = pd3::plan_chunk(Select, s, d.windows, d.excl, d.chunk, d.task_chunk[t]);
            stop = any_left(alive0, alive) ? sp.hi : stop_in_chunk(sp, alive0, best_nn);
        }
        if (Select && threadIdx.x == 0) d.task_stop[t] = (int)stop;
    }
    if (!row) return;
    d.alive[i] = alive;
    d.best_d2[i] = best_d2;
    d.best_nn[i] = best_nn;
}

// The selection's column marks of a batch after pd3_merge: a block per task,
// its columns before task_stop.
__global__ void pd3_mark(ScanArgs d) {
    const int t = blockIdx.x;
    const int s = d.task_seg[t];
    if (!d.needs_later[s]) return;  // block-uniform
    const pd3::SegmentPlan sp = pd3::plan_chunk(true, s, d.windows, d.excl, d.chunk, d.task_chunk[t]);
    const int64_t stop = d.task_stop[t];
    mark_columns(d, sp, t, stop < sp.hi ? stop : sp.hi);
}

__global__ void pd3_init(uint8_t* alive, uint8_t* neighbor, int* col_row, double* right_d2, double* left_d2,
                         int* right_nn, int* left_nn, uint8_t* seg_done, int64_t windows, int64_t nseg) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < windows) {
        alive[i] = 1;
        neighbor[i] = 1;
        col_row[i] = INT_MAX;  // none: Bitmap.Neighbor says whether there is one
        right_d2[i] = INFINITY;
        left_d2[i] = INFINITY;
        right_nn[i] = -1;
        left_nn[i] = -1;
    }
    if (i < nseg) seg_done[i] = 0;
}

// Bitmap conjunction (into alive and cand, the refinement's candidates; the
// selection's Subseq into kept) and which segments hold candidates (a block
// per segment).
__global__ void pd3_conj(uint8_t* alive, uint8_t* kept, uint8_t* cand, const uint8_t* neighbor, uint8_t* seg_done,
                         int64_t windows) {
    const int64_t i = (int64_t)blockIdx.x * kSegmentRows + threadIdx.x;
    int v = 0;
    if (i < windows) {
        kept[i] = alive[i];
        v = pd3::candidate(alive[i], neighbor[i]);
        alive[i] = cand[i] = (uint8_t)v;
    }
    const int any = __syncthreads_or(v);
    if (threadIdx.x == 0) seg_done[blockIdx.x] = any ? 0 : 1;
}

// The windows the run excluded whose every discard fails (pd3::discard_partners,
// discard_holds), a warp each, with the smallest exact distance to a partner.
struct UndoneArgs {
    const double* xe;  // the scaled series and its window statistics (motifs_detail.h)
    const double* zmean;
    const double* zinv;
    const uint8_t* zcst;
    const uint8_t *kept, *neighbor, *cand, *alive;
    const int *right_nn, *col_row, *left_nn;
    int64_t windows;
    int m;
    double r;
    int* count;
    int64_t* pos;
    double* u;
};

__global__ void pd3_undone(UndoneArgs a) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32; i < a.windows; i += warps) {
        int64_t q[3];
        pd3::discard_partners(a.kept[i], a.neighbor[i], a.cand[i], a.alive[i], a.right_nn[i], a.col_row[i],
                              a.left_nn[i], q);
        bool holds = false, any = false;
        double least = (double)INFINITY;
        for (int t = 0; t < 3 && !holds; ++t) {  // warp-uniform
            if (q[t] < 0) continue;
            any = true;
            const double d = motif::warp_zdist(a.xe + i, a.zmean[i], a.zinv[i], a.zcst[i], a.xe + q[t],
                                               a.zmean[q[t]], a.zinv[q[t]], a.zcst[q[t]], a.m, lane);
            holds = pd3::discard_holds(d, a.r);
            least = fmin(least, d);
        }
        if (lane == 0 && any && !holds) {
            const int slot = atomicAdd(a.count, 1);
            a.pos[slot] = i;
            a.u[slot] = least;
        }
    }
}

// The survivors with their NN (the scan's) as partners.
__global__ void pd3_collect(const uint8_t* alive, const double* left_d2, const int* left_nn, const double* right_d2,
                            const int* right_nn, int64_t windows, int* count, int64_t* pos, int* nn) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    double best;
    int j;
    if (i >= windows || !alive[i] || !pd3::nearest_neighbour(left_d2[i], left_nn[i], right_d2[i], right_nn[i], best, j))
        return;
    const int slot = atomicAdd(count, 1);
    pos[slot] = i;
    nn[slot] = j;
}

// A scan side's later chunks as tasks (segment, chunk), each segment's run
// of tasks beginning at run_first (closed by the count).
struct ChunkTasks {
    std::vector<int> seg, chunk, run_first;
    void add(int s, int c) {
        if (seg.empty() || seg.back() != s) run_first.push_back((int)seg.size());
        seg.push_back(s), chunk.push_back(c);
    }
    void close() { run_first.push_back((int)seg.size()); }
    int runs() const { return (int)run_first.size() - 1; }
};

// The device arrays of a runner, in one allocation.
struct DeviceArrays {
    Arena arena;
    double *xs = nullptr, *mean = nullptr, *isd = nullptr, *df = nullptr, *dg = nullptr;
    double *xe = nullptr, *zmean = nullptr, *zinv = nullptr;          // the exact distances' input
    double *right_d2 = nullptr, *left_d2 = nullptr;                    // NN d² right / left
    int *right_nn = nullptr, *left_nn = nullptr, *out_nn = nullptr;   // NN indices, survivors' partners
    int *col_row = nullptr, *pending = nullptr;
    uint8_t *alive = nullptr, *neighbor = nullptr, *kept = nullptr, *cand = nullptr, *seg_done = nullptr;
    uint8_t* needs_later = nullptr;
    uint8_t *rough = nullptr, *zcst = nullptr;
    int64_t* out_pos = nullptr;
    double* out_u = nullptr;  // undone windows' u
    // the later chunks (discords_detail.h "Chunks"): a batch of slots
    uint8_t* alive0 = nullptr;
    int *pending_list = nullptr, *task_seg = nullptr, *task_chunk = nullptr, *run_first = nullptr;
    double* slot_d2 = nullptr;
    int* slot_nn = nullptr;
    uint8_t* slot_alive = nullptr;
    uint16_t* slot_col = nullptr;
    int* task_stop = nullptr;
    int64_t slots = 0;
    // the dense batches (GpuPd3::plan_dense), refinement [0] and selection [1]
    int *dense_seg[2] = {}, *dense_chunk[2] = {}, *dense_run_first[2] = {};

    void allocate(int64_t n, int64_t windows, int64_t nseg, int64_t chunk, const ChunkTasks (&dense)[2]) {
        for (double** a : {&xs, &xe}) arena.reserve(*a, n);
        for (double** a : {&mean, &isd, &df, &dg, &zmean, &zinv, &right_d2, &left_d2, &out_u})
            arena.reserve(*a, windows);
        for (int** a : {&right_nn, &left_nn, &out_nn, &col_row}) arena.reserve(*a, windows);
        for (uint8_t** a : {&alive, &neighbor, &kept, &cand, &rough, &zcst, &alive0}) arena.reserve(*a, windows);
        arena.reserve(seg_done, nseg);
        arena.reserve(needs_later, nseg);
        arena.reserve(pending, 2);
        arena.reserve(pending_list, nseg);
        // at most every segment's chunks but its first; a batch is at most chunk_batch
        slots = std::max<int64_t>(1, std::min<int64_t>(chunk_batch(chunk), nseg * ((windows - 1) / chunk)));
        for (int** a : {&task_seg, &task_chunk}) arena.reserve(*a, slots);
        arena.reserve(run_first, slots + 1);
        arena.reserve(slot_d2, slots * kSegmentRows);
        arena.reserve(slot_nn, slots * kSegmentRows);
        arena.reserve(slot_alive, slots * kSegmentRows);
        arena.reserve(slot_col, slots * chunk);
        arena.reserve(task_stop, slots);
        for (int side = 0; side < 2; ++side) {
            arena.reserve(dense_seg[side], dense[side].seg.size());
            arena.reserve(dense_chunk[side], dense[side].chunk.size());
            arena.reserve(dense_run_first[side], dense[side].run_first.size());
        }
        arena.reserve(out_pos, windows);
        require_bytes(arena.off, "PD3 discord search");
        arena.allocate("PD3 discord search");
    }
};

template <class T>
void copy_async(T* dst, const T* src, int64_t count, cudaMemcpyKind kind, cudaStream_t stream, const char* what) {
    if (count > 0) check(cudaMemcpyAsync(dst, src, sizeof(T) * count, kind, stream), what);
}

class GpuPd3 final : public Pd3Runner {
  public:
    GpuPd3(const Pd3Prep& p, TsExec* ex) : p_(p), ex_(ex) {
        use_device(ex);
        stream_.reset(new Stream());
        windows_ = p.N;
        if (windows_ >= (int64_t(1) << 31) - 64)
            throw Error(TS_INVALID_ARGUMENT, kInvalidParameter, "series too long for the GPU discord search",
                        "Use tsmine.backend = cpu for more than 2^31 subsequences.");
        nseg_ = (windows_ + kSegmentRows - 1) / kSegmentRows;
        chunk_ = pd3::chunk_columns(windows_, p.m);
        const double t0 = now_ms();
        plan_dense();
        dev_.allocate(p.n, windows_, nseg_, chunk_, dense_);
        const cudaMemcpyKind up = cudaMemcpyHostToDevice;
        for (int side = 0; side < 2; ++side) {
            const ChunkTasks& t = dense_[side];
            copy_async(dev_.dense_seg[side], t.seg.data(), (int64_t)t.seg.size(), up, *stream_, "upload");
            copy_async(dev_.dense_chunk[side], t.chunk.data(), (int64_t)t.chunk.size(), up, *stream_, "upload");
            copy_async(dev_.dense_run_first[side], t.run_first.data(), (int64_t)t.run_first.size(), up, *stream_,
                       "upload");
        }
        const mp::Prepared& P = p.mp;
        copy_async(dev_.xs, P.xs.data(), p.n, up, *stream_, "upload");
        copy_async(dev_.mean, P.mu.data(), windows_, up, *stream_, "upload");
        copy_async(dev_.isd, P.inv_std.data(), windows_, up, *stream_, "upload");
        copy_async(dev_.df, P.df.data(), windows_, up, *stream_, "upload");
        copy_async(dev_.dg, P.dg.data(), windows_, up, *stream_, "upload");
        copy_async(dev_.rough, p.rough.data(), windows_, up, *stream_, "upload");
        copy_async(dev_.xe, p.xe.data(), p.n, up, *stream_, "upload");
        motif::k_window_zstats<<<motif::grid_for(windows_, 256), 256, 0, *stream_>>>(dev_.xe, windows_, p.m, dev_.zmean,
                                                                                     dev_.zinv, dev_.zcst);
        check(cudaGetLastError(), "window statistics");
        wait(*stream_, ex_);
        ex_->device_ms += now_ms() - t0;
    }

    std::vector<Candidate> run(double r) override {
        const double t0 = now_ms();
        EventTimer timer(*stream_);
        timer.start();
        const double r2 = pd3::discard_below(r);
        const int tb = 256;
        const int64_t gN = (std::max(windows_, nseg_) + tb - 1) / tb;
        pd3_init<<<(unsigned)gN, tb, 0, *stream_>>>(dev_.alive, dev_.neighbor, dev_.col_row, dev_.right_d2,
                                                     dev_.left_d2, dev_.right_nn, dev_.left_nn, dev_.seg_done,
                                                     windows_, nseg_);
        check(cudaGetLastError(), "pd3_init");
        scan(true, r2);
        pd3_conj<<<(unsigned)nseg_, kSegmentRows, 0, *stream_>>>(dev_.alive, dev_.kept, dev_.cand, dev_.neighbor,
                                                                 dev_.seg_done, windows_);
        check(cudaGetLastError(), "pd3_conj");
        scan(false, r2);
        check(cudaMemsetAsync(dev_.pending, 0, sizeof(int), *stream_), "cudaMemsetAsync");
        pd3_collect<<<(unsigned)((windows_ + tb - 1) / tb), tb, 0, *stream_>>>(
            dev_.alive, dev_.left_d2, dev_.left_nn, dev_.right_d2, dev_.right_nn, windows_, dev_.pending,
            dev_.out_pos, dev_.out_nn);
        check(cudaGetLastError(), "pd3_collect");
        timer.stop();
        std::vector<Candidate> rows = download_survivors();
        ex_->kernel_ms += timer.ms();
        ex_->device_ms += now_ms() - t0;
        return rows;
    }

    std::vector<std::pair<int64_t, double>> undone(double r) override {
        const double t0 = now_ms();
        check(cudaMemsetAsync(dev_.pending, 0, sizeof(int), *stream_), "cudaMemsetAsync");
        const UndoneArgs a{dev_.xe,       dev_.zmean,   dev_.zinv,     dev_.zcst,   dev_.kept,     dev_.neighbor,
                           dev_.cand,     dev_.alive,   dev_.right_nn, dev_.col_row, dev_.left_nn, windows_,
                           p_.m,          r,            dev_.pending,  dev_.out_pos, dev_.out_u};
        pd3_undone<<<motif::grid_for(windows_ * 32, 256), 256, 0, *stream_>>>(a);
        check(cudaGetLastError(), "pd3_undone");
        std::vector<std::pair<int64_t, double>> out = download_pairs(dev_.out_u);
        ex_->device_ms += now_ms() - t0;
        return out;
    }

  private:
    // The pairs (out_pos[t], second[t]) a kernel wrote, t below the count it
    // left in pending; the first kPrefix come with the count (one wait where
    // they are all: the usual case), the rest after it.
    template <class T>
    std::vector<std::pair<int64_t, T>> download_pairs(const T* second) {
        constexpr int64_t kPrefix = 1024;
        const cudaMemcpyKind down = cudaMemcpyDeviceToHost;
        const int64_t prefix = std::min(kPrefix, windows_);
        int count = 0;
        std::vector<int64_t> pos(prefix);
        std::vector<T> value(prefix);
        copy_async(&count, dev_.pending, 1, down, *stream_, "download");
        copy_async(pos.data(), dev_.out_pos, prefix, down, *stream_, "download");
        copy_async(value.data(), second, prefix, down, *stream_, "download");
        wait(*stream_, ex_);
        pos.resize(count), value.resize(count);
        if (count > prefix) {
            copy_async(pos.data() + prefix, dev_.out_pos + prefix, count - prefix, down, *stream_, "download");
            copy_async(value.data() + prefix, second + prefix, count - prefix, down, *stream_, "download");
            wait(*stream_, ex_);
        }
        std::vector<std::pair<int64_t, T>> out(count);
        for (int t = 0; t < count; ++t) out[t] = {pos[t], value[t]};
        return out;
    }

    std::vector<Candidate> download_survivors() {
        std::vector<Candidate> rows;
        for (const std::pair<int64_t, int>& s : download_pairs(dev_.out_nn)) rows.push_back({s.first, s.second});
        return rows;
    }

    void scan(bool select, double r2) {
        ScanArgs d{};
        d.x = dev_.xs, d.mean = dev_.mean, d.isd = dev_.isd, d.df = dev_.df, d.dg = dev_.dg, d.rough = dev_.rough;
        d.best_d2 = select ? dev_.right_d2 : dev_.left_d2;
        d.best_nn = select ? dev_.right_nn : dev_.left_nn;
        d.alive = dev_.alive, d.neighbor = dev_.neighbor, d.col_row = dev_.col_row, d.seg_done = dev_.seg_done;
        d.alive0 = dev_.alive0, d.task_seg = dev_.task_seg, d.task_chunk = dev_.task_chunk;
        d.slot_d2 = dev_.slot_d2, d.slot_nn = dev_.slot_nn, d.slot_alive = dev_.slot_alive, d.slot_col = dev_.slot_col;
        d.task_stop = dev_.task_stop;
        d.pending = dev_.pending, d.pending_list = dev_.pending_list;
        d.windows = windows_, d.excl = p_.excl, d.nseg = nseg_, d.chunk = chunk_, d.m = p_.m, d.r2 = r2;
        d.needs_later = dev_.needs_later;
        if (dense_ok_) {
            launch_first_chunks(select, d);
            later_dense(select, d);
            return;
        }
        const std::vector<int> pending = first_chunks(select, d);
        if (!pending.empty()) later_chunks(select, d, pending);
    }

    // Whether every later chunk of both scan sides fits one batch of slots;
    // then they are listed once (dense_) and each scan side runs them as one
    // batch, the segments chunk 0 finished doing nothing, with no wait for
    // chunk 0's list: a small series' scan is a handful of launches, and each
    // wait costs as much as one.
    void plan_dense() {
        for (int side = 0; side < 2; ++side) {
            ChunkTasks& t = dense_[side];
            const int64_t limit = chunk_batch(chunk_);
            for (int64_t s = 0; s < nseg_ && (int64_t)t.seg.size() <= limit; ++s) add_later_chunks(side == 1, s, t);
            if ((int64_t)t.seg.size() > limit) {
                dense_[0] = dense_[1] = ChunkTasks();
                return;
            }
            t.close();
        }
        dense_ok_ = true;
    }

    // The number of chunks of segment s in a scan (select: the selection's).
    int64_t segment_chunks(bool select, int64_t s) const {
        return pd3::chunk_count(pd3::plan_chunk(select, s, windows_, p_.excl, chunk_, 0), chunk_);
    }

    void add_later_chunks(bool select, int64_t s, ChunkTasks& t) const {
        const int64_t count = segment_chunks(select, s);
        for (int64_t c = 1; c < count; ++c) t.add((int)s, (int)c);
    }

    // Chunk 0 of every unfinished segment (needs_later and pending_list say
    // which need their later chunks).
    void launch_first_chunks(bool select, const ScanArgs& d) {
        check(cudaMemsetAsync(dev_.pending, 0, sizeof(int), *stream_), "cudaMemsetAsync");
        check(cudaMemsetAsync(dev_.needs_later, 0, nseg_, *stream_), "cudaMemsetAsync");
        for (int64_t s0 = 0; s0 < nseg_; s0 += kSegmentsPerLaunch) {
            if (s0 > 0) wait(*stream_, ex_);  // (cancel between launches)
            const int64_t segs = std::min(kSegmentsPerLaunch, nseg_ - s0);
            const unsigned blocks = (unsigned)((segs + kWarpsPerBlock - 1) / kWarpsPerBlock);
            if (select) pd3_scan<true><<<blocks, 32 * kWarpsPerBlock, 0, *stream_>>>(d, s0);
            else pd3_scan<false><<<blocks, 32 * kWarpsPerBlock, 0, *stream_>>>(d, s0);
            check(cudaGetLastError(), "pd3_scan");
        }
    }

    // Chunk 0 of every unfinished segment; returns those that need their
    // later chunks (one wait for the last launch and the list).
    std::vector<int> first_chunks(bool select, const ScanArgs& d) {
        launch_first_chunks(select, d);
        int count = 0;
        std::vector<int> list(nseg_);
        copy_async(&count, dev_.pending, 1, cudaMemcpyDeviceToHost, *stream_, "download");
        copy_async(list.data(), dev_.pending_list, nseg_, cudaMemcpyDeviceToHost, *stream_, "download");
        wait(*stream_, ex_);
        list.resize(count);
        std::sort(list.begin(), list.end());
        return list;
    }

    // The side's dense batch (plan_dense), without a wait.
    void later_dense(bool select, ScanArgs d) {
        const ChunkTasks& t = dense_[select ? 1 : 0];
        if (t.seg.empty()) return;
        check(cudaMemcpyAsync(dev_.alive0, dev_.alive, windows_, cudaMemcpyDeviceToDevice, *stream_), "copy");
        d.task_seg = dev_.dense_seg[select ? 1 : 0], d.task_chunk = dev_.dense_chunk[select ? 1 : 0];
        launch_later(select, d, (int)t.seg.size(), dev_.dense_run_first[select ? 1 : 0], t.runs());
    }

    // The later chunks of the pending segments, in batches of slots merged in
    // order, each batch drawn when it runs (a scan at r = 0 of a long series
    // has n^2/2^21 chunks).
    void later_chunks(bool select, ScanArgs d, const std::vector<int>& pending) {
        check(cudaMemcpyAsync(dev_.alive0, dev_.alive, windows_, cudaMemcpyDeviceToDevice, *stream_), "copy");
        ChunkTasks batch;
        size_t p = 0;  // the next chunk: pending[p]'s chunk c
        int64_t c = 1;
        while (p < pending.size()) {
            batch = ChunkTasks();
            while (p < pending.size() && (int64_t)batch.seg.size() < dev_.slots) {
                const int64_t count = segment_chunks(select, pending[p]);
                if (c < count) batch.add(pending[p], (int)c++);
                if (c >= count) ++p, c = 1;
            }
            if (!batch.seg.empty()) run_batch(select, d, batch);
        }
    }

    // One batch of later chunks scanned into the slots and merged.
    void run_batch(bool select, ScanArgs d, ChunkTasks& batch) {
        const cudaMemcpyKind up = cudaMemcpyHostToDevice;
        const int n = (int)batch.seg.size();
        batch.close();
        copy_async(dev_.task_seg, batch.seg.data(), n, up, *stream_, "upload");
        copy_async(dev_.task_chunk, batch.chunk.data(), n, up, *stream_, "upload");
        copy_async(dev_.run_first, batch.run_first.data(), (int64_t)batch.run_first.size(), up, *stream_, "upload");
        d.task_seg = dev_.task_seg, d.task_chunk = dev_.task_chunk;
        launch_later(select, d, n, dev_.run_first, batch.runs());
        wait(*stream_, ex_);  // (the host's arrays outlive the copies)
    }

    // n tasks (d.task_seg, d.task_chunk) into the slots, merged by segment
    // (runs of them, beginning at run_first on the device).
    void launch_later(bool select, ScanArgs d, int n, const int* run_first, int runs) {
        d.n_tasks = n;
        const unsigned blocks = (unsigned)((n + kWarpsPerBlock - 1) / kWarpsPerBlock);
        if (select) pd3_scan_later<true><<<blocks, 32 * kWarpsPerBlock, 0, *stream_>>>(d);
        else pd3_scan_later<false><<<blocks, 32 * kWarpsPerBlock, 0, *stream_>>>(d);
        check(cudaGetLastError(), "pd3_scan_later");
        if (select) pd3_merge<true><<<(unsigned)runs, kSegmentRows, 0, *stream_>>>(d, run_first);
        else pd3_merge<false><<<(unsigned)runs, kSegmentRows, 0, *stream_>>>(d, run_first);
        check(cudaGetLastError(), "pd3_merge");
        if (select) pd3_mark<<<(unsigned)n, kSegmentRows, 0, *stream_>>>(d);
        check(cudaGetLastError(), "pd3_mark");
    }

    const Pd3Prep& p_;
    TsExec* ex_;
    int64_t windows_ = 0, nseg_ = 0, chunk_ = 0;  // chunk_: the chunks' width (pd3::chunk_columns)
    ChunkTasks dense_[2];  // plan_dense: refinement [0], selection [1]
    bool dense_ok_ = false;
    std::unique_ptr<Stream> stream_;  // created after use_device
    DeviceArrays dev_;                // freed before the stream (declared after it)
};

}  // namespace

std::unique_ptr<Pd3Runner> make_pd3(const Pd3Prep& p, TsExec* ex) {
    return std::unique_ptr<Pd3Runner>(new GpuPd3(p, ex));
}

}  // namespace gpu
}  // namespace tsm
