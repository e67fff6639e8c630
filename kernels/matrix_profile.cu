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
//  * The recurrence's guard (mp_detail.h).  guard_replay_kernel replays it
//    before the sweep, a thread per (segment, guard tile column), with
//    mp::guard_tile (the CPU's function, with the same state, so both restart
//    at the same rows): it computes the kTileDirect tiles' pairs directly, as
//    the CPU does, and flags the tasks with a tile that is not kTileRecur.
//    Each chunk of tasks is then swept by two launches of sweep_kernel: the
//    plain one (GUARD = false: the recurrence alone, no guard code at all)
//    takes the unflagged tasks, where the guard would change nothing; the
//    guarded one the flagged tasks.  On ordinary data no task is flagged (the
//    guarded launch's warps return at once).  In the guarded sweep each
//    lane's diagonals lie in one guard tile column (kGuardDiags diagonals),
//    and a group of 32 rows is one tile row, so before every group each lane
//    replays its tile's mode.  kTileRestart: the lane recomputes its
//    co-moments of the row before the group directly (direct_comoment), and
//    the step runs unchanged.  kTileDirect: the lane's co-moments are NaN for
//    the group, so none of its keys wins (a NaN compares false;
//    guard_replay_kernel has those pairs); the next group starts from the
//    direct co-moments of the tile's last row.
//  * Preparation on the device, with the host's functions (mp_detail.h: the
//    rescaling from the minimum, maximum and the host's series_samples, x',
//    window statistics by chunks of kStatsChunk windows, a thread per chunk;
//    constant flags; df, dg, inv_norm; the guard's tables; next_const by a CUB
//    suffix-minimum scan), so only the series goes over the bus.
//  * Host: tasks (segment, band) in a linear order (segment-major, decoded
//    through a per-segment prefix table), launched in chunks of about
//    kMaxPairsPerLaunch pairs, at most two queued per stream, polled (cancel,
//    progress) in between (Sweep, run_sweeps); then a finalisation kernel
//    (STUMPY constant rule + exact distance of the winning pair,
//    mp::finalize_one — the same function as the CPU's).
//  * Several GPUs (tsmine.gpu_devices; matrix_profile.h says why the bits
//    are one GPU's): a DeviceCall per listed GPU (a GPU listed twice: two,
//    each with its stream and memory), each preparing the series itself; the
//    units split by pairs (mp::split_units), one share per DeviceCall, all
//    driven side by side from the calling thread; the keys merged on the host
//    (element-wise maximum) and finalised once, on the first GPU.
//  * Gaps (mp_detail.h): the host fills them (mp::plan_gaps) and uploads
//    the filled series with the per-window flags; mark_kernel gives the
//    flagged windows NaN factors after the guard's tables, so their pairs'
//    v are NaN and lose every comparison of the sweep (rb, col_best start at
//    0.0), and direct_tile drops them as the CPU's gap sweep does.
//  * Tiles (mp_tiles.cpp): a tile runs the tasks and the direct tiles of its
//    units alone and copies the keys out; keys merged from tiles are loaded
//    in place of the sweep's and finalised (DeviceCall).
#include <cub/cub.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "gpu_runtime.h"
#include "progress.h"
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
static_assert(kGroup == mp::kGuardRows && kBand % mp::kGuardDiags == 0 && mp::kGuardDiags % D == 0,
              "a group is a guard tile row; a lane's diagonals lie in one guard tile column");
static_assert(mp::kTileDiags % kBand == 0 && mp::kTileDiags % mp::kGuardDiags == 0,
              "a unit of the tiles is whole bands and whole guard tile columns");

using u64 = unsigned long long;

// What every warp of a sweep launch reads.  The per-window arrays are padded
// with kPad zeros, so that loads past the last window need no bound checks.
struct Params {
    const double* xs;          // the rescaled series (mp_detail.h)
    const double* mu;          // window means
    const double* df;          // recurrence terms (comoment_detail.h)
    const double* dg;
    const double* inv_norm;    // 1/sqrt(Σ(x'−μ)²)
    const double* inv4;        // inv_norm / 4 (raw values: σ², mp::raw_w)
    const mp::GuardStat* guard_rows;  // the guard's tables (mp_detail.h)
    const mp::GuardStat* guard_cols;
    uint8_t* guarded;          // per task: 1 when one of its tiles is not kTileRecur (guard_replay_kernel)
    const int64_t* seg_start;  // first task of each segment (n_seg + 1 entries)
    u64* best;                 // best key per window (atomicMax)
    int64_t task_lo, task_hi;  // the tasks of this launch
    int n_seg;
    int64_t count;             // windows
    int64_t excl;
    int m;
    u64 mask;  // clears the bits below the key's quantum (and keeps the rest)
    mp::KeyCodec codec;
};

// One warp's shared memory.
struct Shared {
    double row_best[kGroup * 33];  // each lane's best of its D pairs per row: [step][lane], padded
    double col_retired[kGroup];    // the column maximum lane 0 retires at each step
    double row_df[kGroup], row_dg[kGroup], row_inv[kGroup];     // row data of the group (raw: row_inv = σ²)
    double new_df[kGroup], new_dg[kGroup], new_inv4[kGroup];  // the columns lane 31 takes in
    double row_mu[kGroup], new_mu[kGroup];                      // raw values: the means of both
};

// One lane's state: its D diagonals k0 + lane·D + d at the current row.
struct Lane {
    double cov[D];                               // co-moment of diagonal d
    double col_df[D], col_dg[D], col_inv4[D];    // column data, in D rotating slots (raw: col_inv4 = σ²)
    double col_mu[D];                            // raw values: the column's mean (unused otherwise)
    double col_best[D];                          // running maximum of the column in each slot
    unsigned row_tag[D];                         // 0x3FF ^ e of diagonal d (e = lane·D + d)
    int64_t r0, r1, k0;                          // the task's rows [r0, r1) and first diagonal
    int64_t col0;                                // column of diagonal 0 at row 0 (= k0 + lane·D)
    int64_t tile_k, tile_r1;                     // the lane's guard tile column: first diagonal, rows
    double guard_err;                            // the guard's bound (mp::guard_tile)
    bool after_direct;                           // the last group was a kTileDirect tile
    int lane;
    Shared* sh;
};

// The co-moment of rows r and j, directly (0 past the last window).  Not
// inlined: the sweep's registers stay those of the recurrence.
__device__ __noinline__ double direct_pair(const double* xs, const double* mu, int64_t count, int m, int64_t r,
                                           int64_t j) {
    return j < count ? direct_comoment(xs, r, j, m, mu[r], mu[j]) : 0.0;
}

// The lane's co-moments at row r, directly (the guard's direct rows).
__device__ __forceinline__ void direct_diagonals(Lane& L, const Params& p, int64_t r) {
#pragma unroll
    for (int d = 0; d < D; ++d) L.cov[d] = direct_pair(p.xs, p.mu, p.count, p.m, r, r + L.col0 + d);
}

// One row r (step s within the group) at rotation phase U = (r − r0) mod D;
// RAW: the pair's value is mp::raw_w (raw values), else mp::sweep_v.
template <int U, bool MASK, bool RAW>
__device__ __forceinline__ void step(Lane& L, const Params& p, int64_t r, int s) {
    const double dfr = L.sh->row_df[s], dgr = L.sh->row_dg[s], ivr = L.sh->row_inv[s];
    const double mur = RAW ? L.sh->row_mu[s] : 0.0;
    const double off = RAW ? p.codec.cterm : p.codec.off;
    const u64 mask = p.mask;
    const bool upd = !MASK || r > L.r0;
    // keys as doubles in [1, 2): compared with one DSETP and two selects, no
    // 64-bit integer compare; the row chain goes d ascending (any order would do:
    // the tags make the keys distinct)
    double rb = 0.0;
#pragma unroll
    for (int d = 0; d < D; ++d) {
        const int q = (d + U) % D;
        if (upd) L.cov[d] = comoment_next(L.cov[d], dfr, dgr, L.col_df[q], L.col_dg[q]);
        const double v = RAW ? mp::raw_w(L.cov[d], mur, ivr, L.col_mu[q], L.col_inv4[q], off)
                             : mp::sweep_v(L.cov[d], ivr, L.col_inv4[q], off);
        const u64 k = ((u64)__double_as_longlong(v) & mask) | (u64)L.row_tag[d];
        const double a = __longlong_as_double((long long)k);
        const double c = __longlong_as_double((long long)(k ^ 0x3FFull));
        if (!(MASK && r + L.col0 + d >= p.count)) {
            rb = a > rb ? a : rb;
            L.col_best[q] = c > L.col_best[q] ? c : L.col_best[q];
        }
    }
    L.sh->row_best[s * 33 + L.lane] = rb;
    // retire diagonal 0's column (slot U): lane 0 to shared memory, the others
    // pass it (data and running maximum) to the lane below
    if (L.lane == 0) L.sh->col_retired[s] = L.col_best[U];
    L.col_df[U] = __shfl_down_sync(0xFFFFFFFFu, L.col_df[U], 1);
    L.col_dg[U] = __shfl_down_sync(0xFFFFFFFFu, L.col_dg[U], 1);
    L.col_inv4[U] = __shfl_down_sync(0xFFFFFFFFu, L.col_inv4[U], 1);
    L.col_best[U] = __shfl_down_sync(0xFFFFFFFFu, L.col_best[U], 1);
    if (RAW) L.col_mu[U] = __shfl_down_sync(0xFFFFFFFFu, L.col_mu[U], 1);
    if (L.lane == 31) {
        if (RAW) L.col_mu[U] = L.sh->new_mu[s];
        L.col_df[U] = L.sh->new_df[s];
        L.col_dg[U] = L.sh->new_dg[s];
        L.col_inv4[U] = L.sh->new_inv4[s];
        L.col_best[U] = 0.0;
    }
}

template <int U, bool MASK, bool RAW>
struct Block {
    __device__ __forceinline__ static void run(Lane& L, const Params& p, int64_t rb, int sb) {
        if (MASK && rb + U >= L.r1) return;
        step<U, MASK, RAW>(L, p, rb + U, sb + U);
        Block<U + 1, MASK, RAW>::run(L, p, rb, sb);
    }
};
template <bool MASK, bool RAW>
struct Block<D, MASK, RAW> {
    __device__ __forceinline__ static void run(Lane&, const Params&, int64_t, int) {}
};

__device__ __forceinline__ u64 full_key(double v, int64_t idx, const mp::KeyCodec& c) {
    return mp::v_core(v, c) | (c.low - (u64)idx);
}

// The segment of a task: seg_start[seg] ≤ task < seg_start[seg + 1].
__device__ __forceinline__ int segment_of(const Params& p, int64_t task) {
    int lo = 0, hi = p.n_seg;
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (p.seg_start[mid] <= task) lo = mid; else hi = mid;
    }
    return lo;
}

// The lane's co-moments at row r0, directly (direct_comoment's arithmetic,
// t ascending, tiled by D; the row factor shared by the D diagonals).
__device__ __forceinline__ void start_diagonals(Lane& L, const Params& p, int64_t count) {
    const int64_t r0 = L.r0;
    const double* xr = p.xs + r0;
    const double* xc = p.xs + r0 + L.col0;
    const double mu0 = p.mu[r0];
    double muk[D], w[D];
#pragma unroll
    for (int d = 0; d < D; ++d) {
        muk[d] = p.mu[r0 + L.col0 + d];  // padded
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
        if (r0 + L.col0 + d >= count) L.cov[d] = 0.0;
}

// Column data of the lane's diagonals at row r0; empty maxima; the row tags.
template <bool RAW>
__device__ __forceinline__ void load_columns(Lane& L, const Params& p) {
#pragma unroll
    for (int d = 0; d < D; ++d) {
        const int64_t j = L.r0 + L.col0 + d;
        if (RAW) L.col_mu[d] = __ldg(p.mu + j);
        L.col_df[d] = __ldg(p.df + j);
        L.col_dg[d] = __ldg(p.dg + j);
        L.col_inv4[d] = __ldg(p.inv4 + j);
        L.col_best[d] = 0.0;
        L.row_tag[d] = 0x3FFu ^ (unsigned)(L.lane * D + d);
    }
}

// A group's data, loaded a group ahead: lane l holds row rg + l's data and
// the column lane 31 takes in at step l (new_col = k0 + kBand + l at row 0).
template <bool RAW>
struct GroupData {
    double row_df, row_dg, row_inv, new_df, new_dg, new_inv4, row_mu, new_mu;
    __device__ __forceinline__ void load(const Params& p, int64_t rg, int lane, int64_t new_col) {
        row_df = __ldg(p.df + rg + lane);
        row_dg = __ldg(p.dg + rg + lane);
        row_inv = __ldg((RAW ? p.inv4 : p.inv_norm) + rg + lane);
        new_df = __ldg(p.df + rg + new_col);
        new_dg = __ldg(p.dg + rg + new_col);
        new_inv4 = __ldg(p.inv4 + rg + new_col);
        if (RAW) {
            row_mu = __ldg(p.mu + rg + lane);
            new_mu = __ldg(p.mu + rg + new_col);
        }
    }
    __device__ __forceinline__ void stage(Shared* sh, int lane) const {
        if (RAW) {
            sh->row_mu[lane] = row_mu;
            sh->new_mu[lane] = new_mu;
        }
        sh->row_df[lane] = row_df;
        sh->row_dg[lane] = row_dg;
        sh->row_inv[lane] = row_inv;
        sh->new_df[lane] = new_df;
        sh->new_dg[lane] = new_dg;
        sh->new_inv4[lane] = new_inv4;
    }
};

// The guard before the group from rg (the header says what each mode does).
__device__ __forceinline__ void guard_group(Lane& L, const Params& p, int64_t rg) {
    if (rg >= L.tile_r1) return;  // the lane's diagonals have ended
    const int mode = mp::guard_tile(&L.guard_err, rg == L.r0, p.guard_rows[rg / mp::kGuardRows],
                                    p.guard_cols[(rg + L.tile_k - p.excl) / mp::kGuardRows], p.m);
    if (mode == mp::kTileDirect) {
        const double nan = __longlong_as_double(0x7FF8000000000000ll);  // quiet: survives the key mask
#pragma unroll
        for (int d = 0; d < D; ++d) L.cov[d] = nan;
    } else if (mode == mp::kTileRestart || L.after_direct) {
        direct_diagonals(L, p, rg - 1);  // rg > r0: a segment's first tile never restarts
    }
    L.after_direct = mode == mp::kTileDirect;
}

// The group's rows [rg, rg + kGroup): one step per row, unrolled by D.
template <bool RAW>
__device__ __forceinline__ void sweep_group(Lane& L, const Params& p, int64_t rg, int64_t r_safe) {
    if (rg > L.r0 && rg + kGroup <= r_safe) {
#pragma unroll 1
        for (int sb = 0; sb < kGroup; sb += D) Block<0, false, RAW>::run(L, p, rg + sb, sb);
    } else {
#pragma unroll 1
        for (int sb = 0; sb < kGroup; sb += D) Block<0, true, RAW>::run(L, p, rg + sb, sb);
    }
}

// After a group: lane t reduces row rg + t's maxima and merges the column
// retired at step t, each as a full key by one atomicMax.
__device__ __forceinline__ void flush_group(const Lane& L, const Params& p, int64_t rg) {
    const int64_t steps = min((int64_t)kGroup, L.r1 - rg);
    if (L.lane < steps) {
        const int64_t r = rg + L.lane;
        const double* row = L.sh->row_best + L.lane * 33;
        double b = row[0];
#pragma unroll
        for (int i = 1; i < 32; ++i) b = row[i] > b ? row[i] : b;
        if (b != 0.0) {
            const unsigned e = 0x3FFu ^ ((unsigned)__double2loint(b) & 0x3FFu);
            atomicMax(p.best + r, full_key(b, r + L.k0 + e, p.codec));
        }
        const double c = L.sh->col_retired[L.lane];
        if (c != 0.0) {
            const unsigned e = (unsigned)__double2loint(c) & 0x3FFu;
            atomicMax(p.best + (r + L.k0), full_key(c, r - e, p.codec));
        }
    }
}

// The columns still in flight at row r1: slot q holds diagonal d = (q − U) mod D.
__device__ __forceinline__ void flush_columns_in_flight(const Lane& L, const Params& p, int64_t count) {
    const int ue = (int)((L.r1 - L.r0) % D);
#pragma unroll
    for (int q = 0; q < D; ++q) {
        const double c = L.col_best[q];
        if (c != 0.0) {
            const int d = (q - ue + D) % D;
            const int64_t col = L.r1 + L.col0 + d;
            const unsigned e = (unsigned)__double2loint(c) & 0x3FFu;
            if (col < count) atomicMax(p.best + col, full_key(c, col - L.k0 - e, p.codec));
        }
    }
}

// One task per warp: the plain sweep (GUARD = false) takes the tasks that
// guard_replay_kernel left unflagged, the guarded one the others; RAW: raw values.
template <bool GUARD, bool RAW>
__global__ void __launch_bounds__(32 * kWarpsPerBlock) sweep_kernel(Params p) {
    __shared__ Shared s_all[kWarpsPerBlock];
    const int warp = threadIdx.x >> 5;
    const int64_t task = p.task_lo + (int64_t)blockIdx.x * kWarpsPerBlock + warp;
    if (task >= p.task_hi) return;  // whole warp; the kernel has no block barrier
    if ((p.guarded[task] != 0) != GUARD) return;  // the other launch's task
    const int seg = segment_of(p, task);
    const int64_t count = p.count;
    Lane L;
    L.lane = threadIdx.x & 31;
    L.sh = &s_all[warp];
    L.k0 = p.excl + (task - p.seg_start[seg]) * kBand;
    L.r0 = (int64_t)seg * mp::kSegRows;
    L.r1 = min(L.r0 + mp::kSegRows, count - L.k0);
    if (L.r1 <= L.r0) return;
    // rows where every diagonal of the band still exists
    const int64_t r_safe = max(L.r0, min(L.r1, count - L.k0 - kBand + 1));
    L.col0 = L.k0 + (int64_t)L.lane * D;
    if (GUARD) {
        L.tile_k = L.k0 + (int64_t)(L.lane * D / mp::kGuardDiags) * mp::kGuardDiags;
        L.tile_r1 = min(L.r0 + mp::kSegRows, count - L.tile_k);
        L.guard_err = 0.0;
        L.after_direct = false;
    }

    start_diagonals(L, p, count);
    load_columns<RAW>(L, p);
    const int64_t new_col = L.k0 + kBand + L.lane;
    GroupData<RAW> next;
    next.load(p, L.r0, L.lane, new_col);
    for (int64_t rg = L.r0; rg < L.r1; rg += kGroup) {
        __syncwarp();
        next.stage(L.sh, L.lane);
        if (GUARD) guard_group(L, p, rg);
        __syncwarp();
        next.load(p, rg + kGroup, L.lane, new_col);  // the arrays are padded: no bound checks
        sweep_group<RAW>(L, p, rg, r_safe);
        __syncwarp();
        flush_group(L, p, rg);
    }
    flush_columns_in_flight(L, p, count);
}

// One kTileDirect tile's pairs (rows [ra, rb), diagonals from k) directly,
// with the CPU's arithmetic and keys, merged by atomicMax.
__device__ void direct_tile(const Params& p, int64_t ra, int64_t rb, int64_t k) {
    const mp::KeyCodec c = p.codec;
    for (int64_t r = ra; r < rb; ++r) {
        u64 row_best = 0;
        for (int64_t j = r + k; j < r + k + mp::kGuardDiags && j < p.count; ++j) {
            const double cov = direct_comoment(p.xs, r, j, p.m, p.mu[r], p.mu[j]);
            const double v = c.raw ? mp::raw_w(cov, p.mu[r], p.inv4[r], p.mu[j], p.inv4[j], c.cterm)
                                   : mp::sweep_v(cov, p.inv_norm[r], p.inv4[j], c.off);
            if (mp::gap_pair(v)) continue;
            const u64 core = mp::v_core(v, c);
            row_best = max(row_best, core | (c.low - (u64)j));
            atomicMax(p.best + j, core | (c.low - (u64)r));
        }
        if (row_best) atomicMax(p.best + r, row_best);
    }
}

// The guard before the sweep: a thread per (segment, guard tile column)
// replays it as the guarded sweep and the CPU do, computes the kTileDirect
// tiles (the sweep leaves them to this kernel) and flags the task (segment,
// band) of every tile that is not kTileRecur; e = segment · tile_cols +
// column, over [e_lo, e_hi) (guard_columns_of_units).
__global__ void guard_replay_kernel(Params p, int64_t tile_cols, int64_t e_lo, int64_t e_hi) {
    for (int64_t e = e_lo + blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < e_hi;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t seg = e / tile_cols, k = p.excl + (e % tile_cols) * mp::kGuardDiags;
        const int64_t r0 = seg * mp::kSegRows, r1 = min(r0 + mp::kSegRows, p.count - k);
        double err = 0.0;
        bool flag = false;
        for (int64_t rg = r0; rg < r1; rg += mp::kGuardRows) {
            const int mode = mp::guard_tile(&err, rg == r0, p.guard_rows[rg / mp::kGuardRows],
                                            p.guard_cols[(rg + k - p.excl) / mp::kGuardRows], p.m);
            flag |= mode != mp::kTileRecur;
            if (mode == mp::kTileDirect) direct_tile(p, rg, min(rg + mp::kGuardRows, r1), k);
        }
        if (flag) p.guarded[p.seg_start[seg] + (k - p.excl) / kBand] = 1;  // r1 > r0: the task exists
    }
}

__global__ void finalize_kernel(mp::FinalizeArgs a, const u64* best, double* dist, int64_t* index) {
    const int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= a.count) return;
    a.first_const = a.next_const[0];  // computed on the device
    mp::finalize_one(a, p, best[p], dist + p, index + p);
}

// ---- preparation on the device (mp_detail.h: the CPU's functions) ---------

// The rescaling (mp::series_scale) from lohi = {min, max} and the host's samples.
__global__ void scale_kernel(const double* __restrict__ lohi, mp::CentreSamples samples, mp::SeriesScale* scale) {
    *scale = mp::series_scale(lohi[0], lohi[1], samples);
}

// xs = the rescaled series (mp::scaled_value).
__global__ void shift_kernel(const double* __restrict__ x, int64_t n, const mp::SeriesScale* __restrict__ scale,
                             double* xs) {
    const mp::SeriesScale sc = *scale;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        xs[i] = mp::scaled_value(x[i], sc);
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
                              const double* __restrict__ inv_std, int m, double rsm, bool raw, int64_t count,
                              double* inv_norm, double* inv4, double* df, double* dg) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
        mp::prepare_window(xs, mu, inv_std, m, rsm, raw, i, inv_norm, inv4, df, dg);
}

// The guard's tables: entries [0, n_rows) are rows, the next n_cols columns.
__global__ void guard_kernel(const double* __restrict__ inv_norm, const double* __restrict__ df,
                             const double* __restrict__ dg, const uint8_t* __restrict__ gap, int64_t count,
                             int64_t excl, int64_t n_rows, int64_t n_cols, mp::GuardStat* rows, mp::GuardStat* cols) {
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n_rows + n_cols;
         e += (int64_t)gridDim.x * blockDim.x) {
        if (e < n_rows)
            rows[e] = mp::guard_row_entry(inv_norm, df, dg, gap, count, e);
        else
            cols[e - n_rows] = mp::guard_col_entry(inv_norm, df, dg, gap, count, excl, e - n_rows);
    }
}

// The windows that hold a gap: NaN factors, not constant (mp::mark_gap_window).
__global__ void mark_kernel(const uint8_t* __restrict__ gap, int64_t count, double* inv_norm, double* inv4,
                            uint8_t* constant) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
        mp::mark_gap_window(gap, i, inv_norm, inv4, constant);
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

// Tasks (segment, band) with at least one row, segment-major: the first task
// of every segment, and the number of tasks last (n_seg + 1 entries).
std::vector<int64_t> segment_starts(int64_t count, int64_t excl) {
    std::vector<int64_t> seg_start(1, 0);
    for (int64_t seg = 0; seg * mp::kSegRows < count - excl; ++seg) {
        const int64_t r0 = seg * mp::kSegRows;
        const int64_t bands = (count - r0 - excl + kBand - 1) / kBand;  // bands with k0 < count − r0
        seg_start.push_back(seg_start.back() + bands);
    }
    return seg_start;
}

// Scratch bytes of the CUB calls of the preparation (minimum, maximum, scan).
size_t cub_scratch_bytes(int64_t n, int64_t count) {
    size_t min_bytes = 0, max_bytes = 0, scan_bytes = 0;
    check(cub::DeviceReduce::Min(nullptr, min_bytes, (const double*)nullptr, (double*)nullptr, n),
          "cub::DeviceReduce::Min");
    check(cub::DeviceReduce::Max(nullptr, max_bytes, (const double*)nullptr, (double*)nullptr, n),
          "cub::DeviceReduce::Max");
    check(cub::DeviceScan::InclusiveScan(nullptr, scan_bytes, (int64_t*)nullptr, (int64_t*)nullptr, MinI64(),
                                         count),
          "cub::DeviceScan::InclusiveScan");
    return std::max(scan_bytes, std::max(min_bytes, max_bytes));
}

// Every device array of the call, in one allocation.  Arrays marked padded
// have kPad zeros after their last window (cleared by upload).
struct DeviceMemory {
    int64_t n, count, excl, n_tasks;
    int64_t guard_n_rows, guard_n_cols;
    double* x;                     // the series
    double* xs;                    // the rescaled series (padded)
    double* lohi;                  // {min, max} of x
    mp::SeriesScale* scale;        // the rescaling
    mp::GuardStat *guard_rows, *guard_cols;  // the guard's tables
    double *mu, *df, *dg;          // per window (padded)
    double *inv_norm, *inv4;       // per window (padded)
    double* inv_std;               // per window
    uint8_t* constant;             // per window
    uint8_t* gap = nullptr;        // per window, with gaps only (mp::GapPlan)
    int64_t* next_ok = nullptr;    // count + 1 entries, with gaps only
    int64_t* next_const;           // count + 1 entries
    int64_t* const_scan;           // next_const's suffix minimum, reversed
    int64_t* seg_start;            // segment_starts
    uint8_t* guarded;              // per task: the guard's flag (Params::guarded)
    u64* best;                     // the sweep's best key per window
    double* dist;                  // the result
    int64_t* index;
    unsigned char* scratch;        // the CUB calls' temporary storage
    size_t scratch_bytes;
    Arena arena;

    DeviceMemory(int64_t n_, int64_t count_, int64_t excl_, const std::vector<int64_t>& seg_start_, bool gaps)
        : n(n_), count(count_), excl(excl_), n_tasks(seg_start_.back()) {
        const int64_t padded = count + kPad;
        guard_n_rows = mp::guard_row_entries(count);
        guard_n_cols = mp::guard_col_entries(count, excl);
        scratch_bytes = cub_scratch_bytes(n, count);
        arena.reserve(x, n);
        arena.reserve(xs, n + kPad);
        arena.reserve(lohi, 2);
        arena.reserve(scale, 1);
        arena.reserve(guard_rows, guard_n_rows);
        arena.reserve(guard_cols, guard_n_cols);
        for (double** a : {&mu, &df, &dg, &inv_norm, &inv4}) arena.reserve(*a, padded);
        arena.reserve(inv_std, count);
        arena.reserve(constant, count);
        if (gaps) {
            arena.reserve(gap, count);
            arena.reserve(next_ok, count + 1);
        }
        arena.reserve(next_const, count + 1);
        arena.reserve(const_scan, count);
        arena.reserve(seg_start, seg_start_.size());
        arena.reserve(guarded, n_tasks);
        arena.reserve(best, count);
        arena.reserve(dist, count);
        arena.reserve(index, count);
        arena.reserve(scratch, scratch_bytes);
        arena.allocate("matrix profile device memory");
    }
};

// Clears the padded arrays and the keys; copies the series (filled, with
// its gap flags, where it has gaps) and the segment table.
void upload(const DeviceMemory& d, const double* x, const mp::GapPlan& gaps, const std::vector<int64_t>& seg_start,
            cudaStream_t s) {
    const size_t padded_bytes = (d.count + kPad) * sizeof(double);
    check(cudaMemsetAsync(d.xs, 0, (d.n + kPad) * sizeof(double), s), "cudaMemsetAsync");
    for (double* a : {d.mu, d.df, d.dg, d.inv_norm, d.inv4}) check(cudaMemsetAsync(a, 0, padded_bytes, s), "cudaMemsetAsync");
    check(cudaMemsetAsync(d.best, 0, d.count * sizeof(u64), s), "cudaMemsetAsync");
    check(cudaMemsetAsync(d.guarded, 0, d.n_tasks, s), "cudaMemsetAsync");
    check(cudaMemcpyAsync(d.x, d.gap ? gaps.filled.data() : x, d.n * sizeof(double), cudaMemcpyHostToDevice, s),
          "copy series");
    if (d.gap) {
        check(cudaMemcpyAsync(d.gap, gaps.gap.data(), d.count, cudaMemcpyHostToDevice, s), "copy gap flags");
        check(cudaMemcpyAsync(d.next_ok, gaps.next_ok.data(), (d.count + 1) * sizeof(int64_t),
                              cudaMemcpyHostToDevice, s),
              "copy gap index");
    }
    check(cudaMemcpyAsync(d.seg_start, seg_start.data(), seg_start.size() * sizeof(int64_t),
                          cudaMemcpyHostToDevice, s),
          "copy segment table");
}

// The preparation on the device: the rescaling (with the host's
// series_samples), xs, window statistics, constant flags, per-window factors,
// the guard's tables, next_const.
void prepare_on_device(const DeviceMemory& d, int m, bool raw, const mp::CentreSamples& samples, cudaStream_t s) {
    const int64_t n = d.n, count = d.count;
    size_t bytes = d.scratch_bytes;
    check(cub::DeviceReduce::Min(d.scratch, bytes, d.x, d.lohi, n, s), "series minimum");
    bytes = d.scratch_bytes;
    check(cub::DeviceReduce::Max(d.scratch, bytes, d.x, d.lohi + 1, n, s), "series maximum");
    scale_kernel<<<1, 1, 0, s>>>(d.lohi, samples, d.scale);
    check(cudaGetLastError(), "matrix profile scale launch");
    shift_kernel<<<blocks_for(n, 256), 256, 0, s>>>(d.x, n, d.scale, d.xs);
    check(cudaGetLastError(), "matrix profile shift launch");
    const int64_t chunks = (count + kStatsChunk - 1) / kStatsChunk;
    chunk_kernel<<<blocks_for(chunks, 64), 64, 0, s>>>(d.x, d.xs, m, count, d.mu, d.inv_std, d.constant);
    check(cudaGetLastError(), "matrix profile statistics launch");
    window_kernel<<<blocks_for(count, 256), 256, 0, s>>>(d.xs, d.mu, d.inv_std, m, 1.0 / std::sqrt((double)m), raw,
                                                         count, d.inv_norm, d.inv4, d.df, d.dg);
    check(cudaGetLastError(), "matrix profile window launch");
    guard_kernel<<<blocks_for(d.guard_n_rows + d.guard_n_cols, 128), 128, 0, s>>>(
        d.inv_norm, d.df, d.dg, d.gap, count, d.excl, d.guard_n_rows, d.guard_n_cols, d.guard_rows, d.guard_cols);
    check(cudaGetLastError(), "matrix profile guard launch");
    if (d.gap) {
        mark_kernel<<<blocks_for(count, 256), 256, 0, s>>>(d.gap, count, d.inv_norm, d.inv4, d.constant);
        check(cudaGetLastError(), "matrix profile gap launch");
    }
    reverse_const_kernel<<<blocks_for(count, 256), 256, 0, s>>>(d.constant, count, d.const_scan);
    check(cudaGetLastError(), "matrix profile constant launch");
    bytes = d.scratch_bytes;
    check(cub::DeviceScan::InclusiveScan(d.scratch, bytes, d.const_scan, d.const_scan, MinI64(), count, s),
          "constant windows scan");
    next_const_kernel<<<blocks_for(count + 1, 256), 256, 0, s>>>(d.const_scan, count, d.next_const);
    check(cudaGetLastError(), "matrix profile constant index launch");
}

// The tasks [task_lo, task_hi) of a range of units (segment_starts' order is
// the units' order; a unit is kTileDiags / kBand bands of one segment).
void tasks_of_units(const std::vector<int64_t>& seg_start, const mp::UnitRange& u, int64_t* task_lo,
                    int64_t* task_hi) {
    const int64_t n_seg = (int64_t)seg_start.size() - 1;
    const int64_t bands_per_unit = mp::kTileDiags / kBand;
    *task_lo = u.seg0 >= n_seg ? seg_start.back() : seg_start[u.seg0] + u.band0 * bands_per_unit;
    *task_hi = u.seg1 >= n_seg ? seg_start.back() : seg_start[u.seg1] + u.band1 * bands_per_unit;
}

// The (segment, guard tile column) pairs of guard_replay_kernel in a range of
// units: e in [e_lo, e_hi), e = segment · tile_cols + column, a unit being
// kTileDiags / kGuardDiags columns of one segment (columns past a segment's
// last diagonal hold no rows).
void guard_columns_of_units(const mp::UnitRange& u, int64_t n_seg, int64_t tile_cols, int64_t* e_lo, int64_t* e_hi) {
    const int64_t cols_per_unit = mp::kTileDiags / mp::kGuardDiags;
    auto e_of = [&](int64_t seg, int64_t band) {
        return seg >= n_seg ? n_seg * tile_cols : seg * tile_cols + std::min(band * cols_per_unit, tile_cols);
    };
    *e_lo = e_of(u.seg0, u.band0);
    *e_hi = e_of(u.seg1, u.band1);
}

// One GPU's share of a sweep: its tasks [first, last) in launches of about
// kMaxPairsPerLaunch pairs, at most two queued on its stream at a time, so
// that the device never idles while the host polls (for cancel) in between.
class Sweep {
public:
    Sweep(const Params& p, int64_t first, int64_t last, cudaStream_t s, int device)
        : p_(p), first_(first), next_(first), last_(last), s_(s), device_(device),
          per_launch_(std::max<int64_t>(kWarpsPerBlock, (int64_t)(kMaxPairsPerLaunch / ((double)kBand * mp::kSegRows)) /
                                                            kWarpsPerBlock * kWarpsPerBlock)) {}
    ~Sweep() { cudaSetDevice(device_); }  // the events are destroyed on their device
    Sweep(Sweep&&) = delete;

    // Notes the launches that have finished and queues more while fewer than
    // two are pending: true when every launch has finished.  Never waits.
    bool advance() {
        for (;;) {
            if (finished_ < launched_) {
                const cudaError_t e = cudaEventQuery(done_[finished_ & 1]);
                if (e == cudaSuccess) {
                    ++finished_;
                    continue;
                }
                if (e != cudaErrorNotReady) check(e, "kernel execution");
            }
            if (next_ < last_ && launched_ - finished_ < 2) {
                launch();
                continue;
            }
            return next_ >= last_ && finished_ == launched_;
        }
    }
    int64_t tasks() const { return last_ - first_; }
    int64_t tasks_done() const { return std::min(last_, first_ + finished_ * per_launch_) - first_; }

private:
    void launch() {
        check(cudaSetDevice(device_), "cudaSetDevice");
        p_.task_lo = next_;
        p_.task_hi = std::min(last_, next_ + per_launch_);
        const unsigned blocks = (unsigned)((p_.task_hi - p_.task_lo + kWarpsPerBlock - 1) / kWarpsPerBlock);
        if (p_.codec.raw)
            sweep_kernel<false, true><<<blocks, 32 * kWarpsPerBlock, 0, s_>>>(p_);
        else
            sweep_kernel<false, false><<<blocks, 32 * kWarpsPerBlock, 0, s_>>>(p_);
        check(cudaGetLastError(), "matrix profile kernel launch");
        if (p_.codec.raw)
            sweep_kernel<true, true><<<blocks, 32 * kWarpsPerBlock, 0, s_>>>(p_);
        else
            sweep_kernel<true, false><<<blocks, 32 * kWarpsPerBlock, 0, s_>>>(p_);
        check(cudaGetLastError(), "matrix profile guarded kernel launch");
        done_[launched_ & 1].record(s_);
        ++launched_;
        next_ = p_.task_hi;
    }

    Params p_;
    int64_t first_, next_, last_;
    cudaStream_t s_;
    int device_;
    int64_t per_launch_;
    int64_t launched_ = 0, finished_ = 0;
    Event done_[2];
};

// Runs the sweeps to their end together (one host thread drives every GPU),
// reporting progress and polling for cancel between polls of the devices.
// On cancel it throws: the callers' DeviceCalls then wait for their streams
// before they free their memory.
void run_sweeps(std::vector<std::unique_ptr<Sweep>>& sweeps, const TsExec* ex) {
    int64_t total = 0;
    for (auto& s : sweeps) total += s->tasks();
    progress_start(ex, total);
    for (int spins = 0;; ++spins) {
        bool all_done = true;
        int64_t done = 0;
        for (auto& s : sweeps) {
            all_done = s->advance() && all_done;
            done += s->tasks_done();
        }
        progress_set(ex, done);
        if (all_done) return;
        if (ex && ex->interrupted && ex->interrupted()) cancelled();
        if (spins > 100) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

// One call on one GPU: the series uploaded and prepared (the constructor),
// then the sweep of a range of units, keys loaded from merged tiles, the
// finalisation, or the keys copied out.  A split call has one per GPU it
// lists (the same GPU listed twice: two, with their own stream and memory).
class DeviceCall {
public:
    DeviceCall(const double* x, int64_t n, int m, int64_t excl, int device, TsExec* ex, bool raw)
        : ex_(ex), device_(device), t_start_(start_device(device, ex)), count_(n - m + 1), excl_(excl), m_(m),
          codec_(mp::make_codec(count_, raw, m)), seg_start_(segment_starts(count_, excl)),
          has_gaps_(mp::plan_gaps(x, n, m, gaps_)), d_(n, count_, excl, seg_start_, has_gaps_), timer_(s_) {
        const mp::CentreSamples samples = mp::series_samples(has_gaps_ ? gaps_.filled.data() : x, n);
        upload(d_, x, gaps_, seg_start_, s_);
        timer_.start();
        prepare_on_device(d_, m, raw, samples, s_);
    }
    ~DeviceCall() { cudaSetDevice(device_); }  // the members are freed on their device
    DeviceCall(const DeviceCall&) = delete;

    // The guard of the units' tiles (their direct tiles, the tasks' flags)
    // launched; the sweep of their tasks to be run by run_sweeps.
    std::unique_ptr<Sweep> sweep(const mp::UnitRange& units) {
        on();
        int64_t first = 0, last = 0;
        tasks_of_units(seg_start_, units, &first, &last);
        const u64 key_mask = ~((1ull << codec_.shift) - 1ull);  // shift ≥ 10: room for the 10-bit tags
        const int n_seg = (int)seg_start_.size() - 1;
        const Params p{d_.xs, d_.mu, d_.df, d_.dg, d_.inv_norm, d_.inv4, d_.guard_rows, d_.guard_cols,
                       d_.guarded, d_.seg_start, d_.best, /*task_lo, task_hi: per launch*/ 0, 0, n_seg, count_, excl_,
                       m_, key_mask, codec_};
        const int64_t tile_cols = (count_ - excl_ + mp::kGuardDiags - 1) / mp::kGuardDiags;
        int64_t e_lo = 0, e_hi = 0;
        guard_columns_of_units(units, n_seg, tile_cols, &e_lo, &e_hi);
        if (e_hi > e_lo) {
            guard_replay_kernel<<<blocks_for(e_hi - e_lo, 128), 128, 0, s_>>>(p, tile_cols, e_lo, e_hi);
            check(cudaGetLastError(), "matrix profile guard launch");
        }
        return std::unique_ptr<Sweep>(new Sweep(p, first, last, s_, device_));
    }

    void load_keys(const uint64_t* keys) {
        on();
        check(cudaMemcpyAsync(d_.best, keys, count_ * sizeof(u64), cudaMemcpyHostToDevice, s_), "copy keys");
    }

    void finalize(double* dist, int64_t* index) {
        on();
        const mp::FinalizeArgs fin{d_.x, d_.scale, d_.xs, d_.mu, d_.inv_std, d_.constant, d_.next_const,
                                   /*first_const: next_const[0], read on the device*/ count_, count_, excl_, m_,
                                   codec_, d_.gap, d_.next_ok};
        const unsigned finalize_blocks = (unsigned)((count_ + kFinalizeThreads - 1) / kFinalizeThreads);
        finalize_kernel<<<finalize_blocks, kFinalizeThreads, 0, s_>>>(fin, d_.best, d_.dist, d_.index);
        check(cudaGetLastError(), "matrix profile finalize launch");
        end_kernels();
        check(cudaMemcpyAsync(dist, d_.dist, count_ * sizeof(double), cudaMemcpyDeviceToHost, s_), "copy distances");
        check(cudaMemcpyAsync(index, d_.index, count_ * sizeof(int64_t), cudaMemcpyDeviceToHost, s_), "copy indices");
        end_copies();
    }

    void copy_keys(uint64_t* keys) {
        on();
        end_kernels();
        check(cudaMemcpyAsync(keys, d_.best, count_ * sizeof(u64), cudaMemcpyDeviceToHost, s_), "copy keys");
        end_copies();
    }

private:
    static double start_device(int device, TsExec* ex) {
        use_device(device, ex);
        return now_ms();
    }
    void on() { check(cudaSetDevice(device_), "cudaSetDevice"); }
    void end_kernels() {
        timer_.stop();
        wait(s_, ex_);
        ex_->kernel_ms = std::max(ex_->kernel_ms, timer_.ms());  // GPUs of a split call run side by side
    }
    void end_copies() {
        s_.sync("matrix profile results");
        ex_->device_ms = now_ms() - t_start_;
        ex_->device_bytes = (double)count_ * (8.0 * 10);
    }

    TsExec* ex_;
    int device_;
    double t_start_;
    int64_t count_, excl_;
    int m_;
    mp::KeyCodec codec_;
    std::vector<int64_t> seg_start_;
    mp::GapPlan gaps_;  // (declared before has_gaps_, which fills it)
    bool has_gaps_;
    DeviceMemory d_;
    Stream s_;
    EventTimer timer_;
};

using Calls = std::vector<std::unique_ptr<DeviceCall>>;

// A DeviceCall per listed GPU, each preparing the series on its own (the same
// bits: the preparation's kernels compute mp_detail.h's functions, and its
// reductions, a minimum, a maximum and a suffix minimum, are exact).
Calls start_calls(const double* x, int64_t n, int m, int64_t excl, const std::vector<int>& gpus, TsExec* ex,
                  bool raw) {
    ex->kernel_ms = 0;
    Calls calls;
    for (int device : gpus) calls.emplace_back(new DeviceCall(x, n, m, excl, device, ex, raw));
    return calls;
}

// The units split over the calls' GPUs by pairs (mp::split_units), swept side
// by side.
void sweep_split(Calls& calls, int64_t count, int64_t excl, const mp::UnitRange& units, const TsExec* ex) {
    const std::vector<mp::UnitRange> parts = mp::split_units(count, excl, units, (int)calls.size());
    std::vector<std::unique_ptr<Sweep>> sweeps;
    for (size_t i = 0; i < calls.size(); ++i) sweeps.push_back(calls[i]->sweep(parts[i]));
    run_sweeps(sweeps, ex);
}

// The calls' keys merged into keys (host, count entries): the element-wise
// maximum, which is the one call's key of every window (keys are a total order).
void merged_keys(Calls& calls, int64_t count, uint64_t* keys) {
    calls[0]->copy_keys(keys);
    if (calls.size() == 1) return;
    std::vector<uint64_t> part(count);
    for (size_t i = 1; i < calls.size(); ++i) {
        calls[i]->copy_keys(part.data());
        for (int64_t p = 0; p < count; ++p) keys[p] = std::max(keys[p], part[p]);
    }
}

}  // namespace

void matrix_profile(const double* x, int64_t n, int m, int64_t excl, const std::vector<int>& gpus, TsExec* ex,
                    double* dist, int64_t* index, bool raw) {
    const int64_t count = n - m + 1;
    Calls calls = start_calls(x, n, m, excl, gpus, ex, raw);
    sweep_split(calls, count, excl, mp::all_units(count, excl), ex);
    if (calls.size() > 1) {  // the keys of every GPU, finalised once, on the first
        std::vector<uint64_t> keys(count);
        merged_keys(calls, count, keys.data());
        calls[0]->load_keys(keys.data());
    }
    calls[0]->finalize(dist, index);
}

void matrix_profile_keys(const double* x, int64_t n, int m, int64_t excl, const mp::UnitRange& units,
                         const std::vector<int>& gpus, TsExec* ex, uint64_t* keys, bool raw) {
    Calls calls = start_calls(x, n, m, excl, gpus, ex, raw);
    sweep_split(calls, n - m + 1, excl, units, ex);
    merged_keys(calls, n - m + 1, keys);
}

void matrix_profile_finish(const double* x, int64_t n, int m, int64_t excl, const uint64_t* keys, TsExec* ex,
                           double* dist, int64_t* index, bool raw) {
    ex->kernel_ms = 0;
    DeviceCall call(x, n, m, excl, ex->gpu_device, ex, raw);
    call.load_keys(keys);
    call.finalize(dist, index);
}

}  // namespace gpu
}  // namespace tsm
