// matrix_profile.cu — the exact self-join matrix profile on the GPU (float64).
// Arithmetic and conventions: src/core/mp_detail.h (shared with the CPU path,
// bit for bit: explicit __fma_rn/__dmul_rn, no contraction differences).
//
// Design (one warp = one task = one segment of p.seg_rows rows × one band of
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
//    Raw values: the value is a = mp::raw_d ≥ 0, whose bits order like the
//    double too; the smallest wins, so the tags are swapped (rows e, columns
//    0x3FF ^ e) and the winners become keys by mp::raw_core (Order).
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
//    Each chunk of tasks is then swept by two launches of sweep_kernel, side
//    by side on two streams: the plain one (GUARD = false: the recurrence
//    alone, no guard code at all) takes the unflagged tasks, where the guard
//    would change nothing; the guarded one the flagged tasks.  On most
//    ordinary data no task is flagged (the guarded launch's warps return at
//    once); TEK16's few restarts flag 33 of its 76 guard tile columns.  In the guarded sweep each
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
//    window statistics by chunks of stats_chunk(m) windows, a thread per chunk;
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
//  * Gaps (mp_detail.h): the host only finds whether a series has one
//    (and the value of leading gaps, mp::lead_fill); the series goes over
//    the bus with its gaps, as any series, and the device plans them as
//    mp::plan_gaps does, by scans (plan_gaps_on_device: the filled series,
//    the windows' gap flags, next_ok; an AB-join plans both series where one
//    has gaps, as mp::ab_gap_plans, the other's flags all clear);
//    mark_kernel gives the flagged windows NaN factors after the guard's
//    tables, so their pairs' values are NaN and lose every comparison of the
//    sweep (which starts from Order::none()), and direct_tile drops them as
//    the CPU's gap sweep does; a row window with a gap skips its pairs
//    altogether (step: only its co-moments move on).
//  * Tiles (mp_tiles.cpp): a tile runs the tasks and the direct tiles of its
//    units alone and copies the keys out; keys merged from tiles are loaded
//    in place of the sweep's and finalised (DeviceCall).
#include <cub/cub.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "finite.h"
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
// blocks per SM the sweep is compiled for: z-normalised 3 (≤ 168 registers,
// no spills); raw values need about 204 (2 blocks fit; forced to 3 blocks
// as one chain per row, without spills, they ran 6% slower on an H100)
constexpr int kZBlocksPerSM = 3, kRawBlocksPerSM = 1;
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

// What sweep launches read.  The per-window arrays are padded with kPad
// zeros, so that loads past the last window need no bound checks.  Pair
// (row r, column j = r + k), k ≥ excl: the rows' windows are one series, the
// columns' another (the same in the self-join; A and B, or B and A, in an
// AB-join, mp_detail.h).
struct Params {
    const double* xs_r;        // the rows' rescaled series (mp_detail.h)
    const double* mu_r;        // the rows' window means
    const double* df_r;        // the rows' recurrence terms (comoment_detail.h)
    const double* dg_r;
    const double* inv_norm_r;  // the rows' 1/sqrt(Σ(x'−μ)²) (raw values: their σ², mp::raw_d)
    const double* xs_c;        // the same of the columns' series
    const double* mu_c;
    const double* df_c;
    const double* dg_c;
    const double* inv4_c;      // the columns' inv_norm / 4 (raw values: σ²)
    const mp::GuardStat* guard_rows;  // the guard's tables (mp_detail.h): the rows'
    const mp::GuardStat* guard_cols;  // and the columns' (prepared with this excl)
    uint8_t* guarded;          // per task: 1 when one of its tiles is not kTileRecur (guard_replay_kernel)
    const int64_t* seg_start;  // first task of each segment (n_seg + 1 entries)
    u64* best_r;               // best key per row window (atomicMax; index: the column), if SIDES has kRows
    u64* best_c;               // best key per column window (index: the row), if SIDES has kCols
    int64_t task_lo, task_hi;  // the tasks of this launch
    int n_seg;
    bool nan_free;             // no window holds a gap: the plain sweep meets no NaN
    int64_t count_r, count_c;  // windows of the rows' and of the columns' series
    int64_t excl;              // the first diagonal
    int m;
    unsigned mask_lo;  // clears the bits below the key's quantum (shift < 32: all in the low word)
    mp::KeyCodec codec;
    int64_t seg_rows;  // rows of a segment (mp::segment_rows of count_r)
};

// Which keys a sweep updates (a template argument of the sweep): the rows',
// the columns', or both (the self-join).
constexpr int kRows = 1, kCols = 2, kBoth = 3;

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

// The D co-moments of the diagonals from j0 at row r, directly (zero past the
// columns' last window), in lockstep (direct_comoments).  Not inlined (and
// given values, not the launch's parameters by reference, which would be
// copied to the stack): the sweep's registers stay those of the recurrence.
struct RowComoments {
    double c[D];
};
__device__ __noinline__ RowComoments direct_pairs(const double* xs_r, const double* mu_r, const double* xs_c,
                                                  const double* mu_c, int64_t count_c, int m, int64_t r, int64_t j0) {
    RowComoments out;
    double mu_j[D];
#pragma unroll
    for (int d = 0; d < D; ++d) mu_j[d] = mu_c[j0 + d];  // padded
    direct_comoments<D>(xs_r, r, xs_c, j0, m, mu_r[r], mu_j, out.c);  // xs_c padded past its last window
#pragma unroll
    for (int d = 0; d < D; ++d)
        if (j0 + d >= count_c) out.c[d] = 0.0;
    return out;
}

// The lane's co-moments at row r, directly (the guard's direct rows).
__device__ __forceinline__ void direct_diagonals(Lane& L, const Params& p, int64_t r) {
    const RowComoments rc = direct_pairs(p.xs_r, p.mu_r, p.xs_c, p.mu_c, p.count_c, p.m, r, r + L.col0);
#pragma unroll
    for (int d = 0; d < D; ++d) L.cov[d] = rc.c[d];
}

// What NaN values a sweep's rows may hold (pairs() reduces a row by them):
// any (a gap's: one chain from none()), none (a tree), or only the guarded
// sweep's kTileDirect lanes (a tree that lets no NaN win).
enum NanMode : int { kAnyNaN = 0, kNoNaN = 1, kGuardNaN = 2 };

// The order of the sweep's tagged values: z-normalised, v = ρ/4 + off, the
// larger wins; raw values, a = mp::raw_d, the smaller wins.  A NaN (a gap, a
// kTileDirect lane) never wins; none() loses to every other value.  Tags
// (e = lane·D + d) sit below the key's quantum so that ties go to the
// smaller column in a row and to the smaller row in a column.
template <bool RAW>
struct Order {
    __device__ __forceinline__ static double none() { return RAW ? __longlong_as_double(0x7FF0000000000000ll) : 0.0; }
    // compare and select (fmax/fmin, DMNMX, ran 22% slower on an H100)
    __device__ __forceinline__ static double better(double x, double best) {
        return (RAW ? mp::raw_nearer(x, best) : x > best) ? x : best;
    }
    // the same where either may be NaN: a NaN wins only against a NaN (the
    // values of a row are distinct by their tags, so any order of a tree of
    // these gives the chain's winner, or NaN where every value is)
    __device__ __forceinline__ static double better_nan(double x, double y) {
        return (RAW ? mp::raw_nearer(x, y) : x > y) || y != y ? x : y;
    }
    __device__ __forceinline__ static unsigned row_tag(unsigned e) { return RAW ? e : 0x3FFu ^ e; }
    __device__ __forceinline__ static unsigned row_e(double b) { return row_tag((unsigned)__double2loint(b) & 0x3FFu); }
    __device__ __forceinline__ static unsigned col_e(double c) { return 0x3FFu ^ row_e(c); }
    __device__ __forceinline__ static u64 core(double v, const mp::KeyCodec& c) {
        return RAW ? mp::raw_core(v, c) : mp::v_core(v, c);
    }
};

// The D pairs of row r (step()'s arguments): the recurrence, each pair's
// tagged value, the row's best and the columns' running best.
template <int U, bool MASK, int SIDES, bool RAW, int NANS>
__device__ __forceinline__ void pairs(Lane& L, const Params& p, int64_t r, int s, double dfr, double dgr, double ivr,
                                      bool upd) {
    using O = Order<RAW>;
    const double mur = RAW ? L.sh->row_mu[s] : 0.0;
    const double tr = RAW ? mp::raw_row_floor(ivr) : 0.0;  // raw values: the row's floor
    const double off = RAW ? mp::raw_row_cterm(ivr, p.codec.cterm) : p.codec.off;  // raw: the row's c_r
    // tagged values compared as doubles (no 64-bit integer compare).  A NaN
    // (a gap, a kTileDirect lane) never wins better() as its first operand:
    // one chain from none() never holds one (kAnyNaN); without gaps the row
    // is reduced as a tree, a shorter dependency chain: kNoNaN (the plain
    // sweep, where no value is NaN) or kGuardNaN (the guarded sweep, whose
    // kTileDirect lanes' values are NaN: better_nan, then against none())
    double a[D];             // kNoNaN, kGuardNaN: the row's D tagged values, reduced as a tree
    double rb = O::none();   // kAnyNaN: the row's best, one chain
#pragma unroll
    for (int d = 0; d < D; ++d) {
        const int q = (d + U) % D;
        if (upd) L.cov[d] = comoment_next(L.cov[d], dfr, dgr, L.col_df[q], L.col_dg[q]);
        const double v = RAW ? mp::raw_d(L.cov[d], mur, ivr, tr, off, L.col_mu[q], L.col_inv4[q])
                             : mp::sweep_v(L.cov[d], ivr, L.col_inv4[q], off);
        // tagged value: v's bits below the quantum replaced by the tag; the
        // quantum lies in the low word (shift < 32), the high word is v's own
        const unsigned lo = ((unsigned)__double2loint(v) & p.mask_lo) | L.row_tag[d];
        const int hi = __double2hiint(v);
        const double x = __hiloint2double(hi, (int)lo);
        const double c = __hiloint2double(hi, (int)(lo ^ 0x3FFu));
        const bool live = !(MASK && r + L.col0 + d >= p.count_c);
        if (NANS != kAnyNaN) a[d] = live ? x : O::none();
        else if ((SIDES & kRows) && live) rb = O::better(x, rb);
        if ((SIDES & kCols) && live) L.col_best[q] = O::better(c, L.col_best[q]);
    }
    if (SIDES & kRows) {
        if (NANS != kAnyNaN) {  // kNoNaN: none can occur, which would win as better()'s second operand
#pragma unroll
            for (int w = 1; w < D; w *= 2)
#pragma unroll
                for (int d = 0; d + w < D; d += 2 * w)
                    a[d] = NANS == kGuardNaN ? O::better_nan(a[d + w], a[d]) : O::better(a[d + w], a[d]);
            rb = NANS == kGuardNaN ? O::better(a[0], O::none()) : a[0];  // all NaN: none()
        }
        L.sh->row_best[s * 33 + L.lane] = rb;
    }
}

// Retire diagonal 0's column (slot U): lane 0 to shared memory, the others
// pass it (data and running maximum) to the lane below; lane 31 takes the
// next column in.
template <int U, int SIDES, bool RAW>
__device__ __forceinline__ void retire_column(Lane& L, int s) {
    using O = Order<RAW>;
    if ((SIDES & kCols) && L.lane == 0) L.sh->col_retired[s] = L.col_best[U];
    L.col_df[U] = __shfl_down_sync(0xFFFFFFFFu, L.col_df[U], 1);
    L.col_dg[U] = __shfl_down_sync(0xFFFFFFFFu, L.col_dg[U], 1);
    L.col_inv4[U] = __shfl_down_sync(0xFFFFFFFFu, L.col_inv4[U], 1);
    if (RAW) L.col_mu[U] = __shfl_down_sync(0xFFFFFFFFu, L.col_mu[U], 1);
    if (SIDES & kCols) L.col_best[U] = __shfl_down_sync(0xFFFFFFFFu, L.col_best[U], 1);
    if (L.lane == 31) {
        L.col_df[U] = L.sh->new_df[s];
        L.col_dg[U] = L.sh->new_dg[s];
        L.col_inv4[U] = L.sh->new_inv4[s];
        if (RAW) L.col_mu[U] = L.sh->new_mu[s];
        L.col_best[U] = O::none();
    }
}

// One row r (step s within the group) at rotation phase U = (r − r0) mod D;
// RAW: the pair's value is mp::raw_d (raw values), else mp::sweep_v;
// NANS: which pairs' values can be NaN (NanMode).  With gaps (kAnyNaN), a
// row window with a gap (its factor is NaN, mp::mark_gap_window), whose pairs all have a NaN
// value and would win nothing, only moves its co-moments on (a test a row,
// warp-uniform: one kind of step, so the loop's code stays that of one).
template <int U, bool MASK, int SIDES, bool RAW, int NANS>
__device__ __forceinline__ void step(Lane& L, const Params& p, int64_t r, int s) {
    using O = Order<RAW>;
    const double dfr = L.sh->row_df[s], dgr = L.sh->row_dg[s], ivr = L.sh->row_inv[s];
    const bool upd = !MASK || r > L.r0;
    if (NANS == kAnyNaN && ivr != ivr) {
#pragma unroll
        for (int d = 0; d < D; ++d)
            if (upd) L.cov[d] = comoment_next(L.cov[d], dfr, dgr, L.col_df[(d + U) % D], L.col_dg[(d + U) % D]);
        if (SIDES & kRows) L.sh->row_best[s * 33 + L.lane] = O::none();
    } else {
        pairs<U, MASK, SIDES, RAW, NANS>(L, p, r, s, dfr, dgr, ivr, upd);
    }
    retire_column<U, SIDES, RAW>(L, s);
}

template <int U, bool MASK, int SIDES, bool RAW, int NANS>
struct Block {
    __device__ __forceinline__ static void run(Lane& L, const Params& p, int64_t rb, int sb) {
        if (MASK && rb + U >= L.r1) return;
        step<U, MASK, SIDES, RAW, NANS>(L, p, rb + U, sb + U);
        Block<U + 1, MASK, SIDES, RAW, NANS>::run(L, p, rb, sb);
    }
};
template <bool MASK, int SIDES, bool RAW, int NANS>
struct Block<D, MASK, SIDES, RAW, NANS> {
    __device__ __forceinline__ static void run(Lane&, const Params&, int64_t, int) {}
};

template <bool RAW>
__device__ __forceinline__ u64 full_key(double v, int64_t idx, const mp::KeyCodec& c) {
    return Order<RAW>::core(v, c) | (c.low - (u64)idx);
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
    const double* xr = p.xs_r + r0;
    const double* xc = p.xs_c + r0 + L.col0;
    const double mu0 = p.mu_r[r0];
    double muk[D], w[D];
#pragma unroll
    for (int d = 0; d < D; ++d) {
        muk[d] = p.mu_c[r0 + L.col0 + d];  // padded
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
        L.col_df[d] = __ldg(p.df_c + j);
        L.col_dg[d] = __ldg(p.dg_c + j);
        L.col_inv4[d] = __ldg(p.inv4_c + j);
        if (RAW) L.col_mu[d] = __ldg(p.mu_c + j);
        L.col_best[d] = Order<RAW>::none();
        L.row_tag[d] = Order<RAW>::row_tag((unsigned)(L.lane * D + d));
    }
}

// A group's data, loaded a group ahead: lane l holds row rg + l's data and
// the column lane 31 takes in at step l (new_col = k0 + kBand + l at row 0).
template <bool RAW>
struct GroupData {
    double row_df, row_dg, row_inv, new_df, new_dg, new_inv4, row_mu, new_mu;
    __device__ __forceinline__ void load(const Params& p, int64_t rg, int lane, int64_t new_col) {
        row_df = __ldg(p.df_r + rg + lane);
        row_dg = __ldg(p.dg_r + rg + lane);
        row_inv = __ldg(p.inv_norm_r + rg + lane);
        new_df = __ldg(p.df_c + rg + new_col);
        new_dg = __ldg(p.dg_c + rg + new_col);
        new_inv4 = __ldg(p.inv4_c + rg + new_col);
        if (RAW) {
            row_mu = __ldg(p.mu_r + rg + lane);
            new_mu = __ldg(p.mu_c + rg + new_col);
        }
    }
    __device__ __forceinline__ void stage(Shared* sh, int lane) const {
        sh->row_df[lane] = row_df;
        sh->row_dg[lane] = row_dg;
        sh->row_inv[lane] = row_inv;
        sh->new_df[lane] = new_df;
        sh->new_dg[lane] = new_dg;
        sh->new_inv4[lane] = new_inv4;
        if (RAW) {
            sh->row_mu[lane] = row_mu;
            sh->new_mu[lane] = new_mu;
        }
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
template <int SIDES, bool RAW, int NANS>
__device__ __forceinline__ void sweep_group(Lane& L, const Params& p, int64_t rg, int64_t r_safe) {
    if (rg > L.r0 && rg + kGroup <= r_safe) {
#pragma unroll 1
        for (int sb = 0; sb < kGroup; sb += D) Block<0, false, SIDES, RAW, NANS>::run(L, p, rg + sb, sb);
    } else {
#pragma unroll 1
        for (int sb = 0; sb < kGroup; sb += D) Block<0, true, SIDES, RAW, NANS>::run(L, p, rg + sb, sb);
    }
}

// After a group: lane t reduces row rg + t's best values and merges the
// column retired at step t, each as a full key by one atomicMax.
template <int SIDES, bool RAW>
__device__ __forceinline__ void flush_group(const Lane& L, const Params& p, int64_t rg) {
    using O = Order<RAW>;
    const int64_t steps = min((int64_t)kGroup, L.r1 - rg);
    if (L.lane < steps) {
        const int64_t r = rg + L.lane;
        if (SIDES & kRows) {
            const double* row = L.sh->row_best + L.lane * 33;
            double b = row[0];
#pragma unroll
            for (int i = 1; i < 32; ++i) b = O::better(row[i], b);
            if (b != O::none()) atomicMax(p.best_r + r, full_key<RAW>(b, r + L.k0 + O::row_e(b), p.codec));
        }
        if (SIDES & kCols) {
            const double c = L.sh->col_retired[L.lane];
            if (c != O::none()) atomicMax(p.best_c + (r + L.k0), full_key<RAW>(c, r - O::col_e(c), p.codec));
        }
    }
}

// The columns still in flight at row r1: slot q holds diagonal d = (q − U) mod D.
template <bool RAW>
__device__ __forceinline__ void flush_columns_in_flight(const Lane& L, const Params& p, int64_t count) {
    using O = Order<RAW>;
    const int ue = (int)((L.r1 - L.r0) % D);
#pragma unroll
    for (int q = 0; q < D; ++q) {
        const double c = L.col_best[q];
        const int64_t col = L.r1 + L.col0 + (q - ue + D) % D;
        if (c != O::none() && col < count)
            atomicMax(p.best_c + col, full_key<RAW>(c, col - L.k0 - O::col_e(c), p.codec));
    }
}

// One task per warp: the plain sweep (GUARD = false) takes the tasks that
// guard_replay_kernel left unflagged, the guarded one the others; SIDES: the
// keys it updates; RAW: raw values.
template <bool GUARD, int SIDES, bool RAW, int NANS = kAnyNaN>
__global__ void __launch_bounds__(32 * kWarpsPerBlock, RAW ? kRawBlocksPerSM : kZBlocksPerSM) sweep_kernel(Params p) {
    __shared__ Shared s_all[kWarpsPerBlock];
    const int warp = threadIdx.x >> 5;
    const int64_t task = p.task_lo + (int64_t)blockIdx.x * kWarpsPerBlock + warp;
    if (task >= p.task_hi) return;  // whole warp; the kernel has no block barrier
    if ((p.guarded[task] != 0) != GUARD) return;  // the other launch's task
    const int seg = segment_of(p, task);
    const int64_t count = p.count_c;  // columns
    Lane L;
    L.lane = threadIdx.x & 31;
    L.sh = &s_all[warp];
    L.k0 = p.excl + (task - p.seg_start[seg]) * kBand;
    L.r0 = (int64_t)seg * p.seg_rows;
    const int64_t r_end = min(L.r0 + p.seg_rows, p.count_r);  // the segment's rows
    L.r1 = min(r_end, count - L.k0);
    if (L.r1 <= L.r0) return;
    // rows where every diagonal of the band still exists
    const int64_t r_safe = max(L.r0, min(L.r1, count - L.k0 - kBand + 1));
    L.col0 = L.k0 + (int64_t)L.lane * D;
    if (GUARD) {
        L.tile_k = L.k0 + (int64_t)(L.lane * D / mp::kGuardDiags) * mp::kGuardDiags;
        L.tile_r1 = min(r_end, count - L.tile_k);
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
        sweep_group<SIDES, RAW, NANS>(L, p, rg, r_safe);
        __syncwarp();
        flush_group<SIDES, RAW>(L, p, rg);
    }
    if (SIDES & kCols) flush_columns_in_flight<RAW>(L, p, count);
}

// One kTileDirect tile's pairs (rows [ra, rb), diagonals from k) directly,
// with the CPU's arithmetic and keys, merged by atomicMax into the sides the
// sweep updates (best_r, best_c: null when not).
__device__ void direct_tile(const Params& p, int64_t ra, int64_t rb, int64_t k) {
    const mp::KeyCodec c = p.codec;
    for (int64_t r = ra; r < rb; ++r) {
        u64 row_best = 0;
        const double sq_r = p.inv_norm_r[r];  // raw values: the row's σ², its floor and c_r
        const double t_r = c.raw ? mp::raw_row_floor(sq_r) : 0.0, c_r = c.raw ? mp::raw_row_cterm(sq_r, c.cterm) : 0.0;
        for (int64_t j = r + k; j < r + k + mp::kGuardDiags && j < p.count_c; ++j) {
            const double cov = direct_comoment(p.xs_r, r, p.xs_c, j, p.m, p.mu_r[r], p.mu_c[j]);
            const double v = c.raw ? mp::raw_d(cov, p.mu_r[r], sq_r, t_r, c_r, p.mu_c[j], p.inv4_c[j])
                                   : mp::sweep_v(cov, p.inv_norm_r[r], p.inv4_c[j], c.off);
            if (mp::gap_pair(v)) continue;
            const u64 core = c.raw ? mp::raw_core(v, c) : mp::v_core(v, c);
            row_best = max(row_best, core | (c.low - (u64)j));
            if (p.best_c) atomicMax(p.best_c + j, core | (c.low - (u64)r));
        }
        if (p.best_r && row_best) atomicMax(p.best_r + r, row_best);
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
        const int64_t r0 = seg * p.seg_rows, r1 = min(min(r0 + p.seg_rows, p.count_r), p.count_c - k);
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

// Windows [0, count) of the rows' series (a.count: the candidates').
__global__ void finalize_kernel(mp::FinalizeArgs a, int64_t count, const u64* best, double* dist, int64_t* index) {
    const int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= count) return;
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

// A thread per stats chunk of `chunk` windows (stats_chunk(m)).
__global__ void chunk_kernel(const double* __restrict__ x, const double* __restrict__ xs, int m, int64_t count,
                             int64_t chunk, double* mu, double* inv_std, uint8_t* constant) {
    const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t i0 = c * chunk;
    if (i0 >= count) return;
    mp::prepare_chunk(x, xs, m, i0, min(count, i0 + chunk), mu, inv_std, constant);
}

__global__ void window_kernel(const double* __restrict__ xs, const double* __restrict__ mu,
                              const double* __restrict__ inv_std, int m, double rsm, bool raw, int64_t count,
                              double* inv_norm, double* inv4, double* df, double* dg) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
        mp::prepare_window(xs, mu, inv_std, m, rsm, raw, i, inv_norm, inv4, df, dg);
}

// The guard's tables: entries [0, n_rows) are rows, the next n_cols columns;
// a warp per entry, lane l taking the windows l, l + 32, ... of its range
// (mp::guard_entry), merged by shuffles (maxima and minima: the CPU's bits).
__global__ void guard_kernel(const double* __restrict__ inv_norm, const double* __restrict__ df,
                             const double* __restrict__ dg, const uint8_t* __restrict__ gap, int64_t count,
                             int64_t excl, int64_t n_rows, int64_t n_cols, mp::GuardStat* rows, mp::GuardStat* cols) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t e = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; e < n_rows + n_cols; e += warps) {
        mp::GuardStat g = mp::guard_entry(inv_norm, df, dg, gap, count, excl, n_rows, e, lane, 32);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
            g = mp::merge_guard(g, {__shfl_down_sync(0xFFFFFFFFu, g.h, o), __shfl_down_sync(0xFFFFFFFFu, g.lo, o)});
        if (lane == 0) (e < n_rows ? rows[e] : cols[e - n_rows]) = g;
    }
}

// The windows that hold a gap: NaN factors, not constant (mp::mark_gap_window).
__global__ void mark_kernel(const uint8_t* __restrict__ gap, int64_t count, double* inv_norm, double* inv4,
                            uint8_t* constant) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
        mp::mark_gap_window(gap, i, inv_norm, inv4, constant);
}

// next_const (next_ok) by a suffix minimum: rev[k] = the window count−1−k if
// its flag is `set` (constant; no gap: set = 0), else count.
__global__ void reverse_flags_kernel(const uint8_t* __restrict__ flag, uint8_t set, int64_t count, int64_t* rev) {
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < count; k += (int64_t)gridDim.x * blockDim.x)
        rev[k] = (flag[count - 1 - k] != 0) == (set != 0) ? count - 1 - k : count;
}
__global__ void next_const_kernel(const int64_t* __restrict__ rev, int64_t count, int64_t* next) {
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q <= count; q += (int64_t)gridDim.x * blockDim.x)
        next[q] = q < count ? rev[count - 1 - q] : count;
}
struct MinI64 {
    __device__ __forceinline__ int64_t operator()(int64_t a, int64_t b) const { return b < a ? b : a; }
};
struct MaxI64 {
    __device__ __forceinline__ int64_t operator()(int64_t a, int64_t b) const { return b > a ? b : a; }
};

// ---- the gap plan (mp::plan_gaps) by scans ----
// last[i] = i where x[i] is finite, else −1 (a maximum scan then gives the
// last finite position at or before i).
__global__ void finite_at_kernel(const double* __restrict__ x, int64_t n, int64_t* last) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        last[i] = mp::is_gap(x[i]) ? -1 : i;
}
__global__ void fill_kernel(const double* __restrict__ x, const int64_t* __restrict__ last, int64_t n, double lead,
                            double* filled) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        filled[i] = mp::filled_value(x, last[i], lead);
}
// gaps[i] = 1 where x[i] is a gap, 0 elsewhere and at n (an exclusive sum
// then gives before[k], the gaps in x[0..k)).
__global__ void gap_at_kernel(const double* __restrict__ x, int64_t n, int64_t* gaps) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i <= n; i += (int64_t)gridDim.x * blockDim.x)
        gaps[i] = i < n && mp::is_gap(x[i]);
}
__global__ void window_gap_kernel(const int64_t* __restrict__ before, int m, int64_t count, uint8_t* gap) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
        gap[i] = mp::window_has_gap(before, i, m);
}

unsigned blocks_for(int64_t items, int threads) {
    const int64_t b = (items + threads - 1) / threads;
    return (unsigned)std::max<int64_t>(1, std::min<int64_t>(b, 1 << 20));
}

// Tasks (segment, band) with at least one row, segment-major: the first task
// of every segment, and the number of tasks last (n_seg + 1 entries).  Rows:
// count_r windows, columns: count_c, diagonals from excl.
std::vector<int64_t> segment_starts(int64_t count_r, int64_t count_c, int64_t excl) {
    std::vector<int64_t> seg_start(1, 0);
    const int64_t R = mp::segment_rows(count_r);
    for (int64_t seg = 0; seg * R < count_r && seg * R < count_c - excl; ++seg) {
        const int64_t r0 = seg * R;
        const int64_t bands = (count_c - r0 - excl + kBand - 1) / kBand;  // bands with k0 < count_c − r0
        seg_start.push_back(seg_start.back() + bands);
    }
    return seg_start;
}

// Scratch bytes of the CUB calls of the preparation (minimum, maximum, scans;
// those of the gap plan over n + 1 values).
size_t cub_scratch_bytes(int64_t n, int64_t count) {
    size_t min_bytes = 0, max_bytes = 0, scan_bytes = 0, gap_max_bytes = 0, gap_sum_bytes = 0;
    check(cub::DeviceReduce::Min(nullptr, min_bytes, (const double*)nullptr, (double*)nullptr, n),
          "cub::DeviceReduce::Min");
    check(cub::DeviceReduce::Max(nullptr, max_bytes, (const double*)nullptr, (double*)nullptr, n),
          "cub::DeviceReduce::Max");
    check(cub::DeviceScan::InclusiveScan(nullptr, scan_bytes, (int64_t*)nullptr, (int64_t*)nullptr, MinI64(),
                                         count),
          "cub::DeviceScan::InclusiveScan");
    check(cub::DeviceScan::InclusiveScan(nullptr, gap_max_bytes, (int64_t*)nullptr, (int64_t*)nullptr, MaxI64(),
                                         n + 1),
          "cub::DeviceScan::InclusiveScan");
    check(cub::DeviceScan::ExclusiveSum(nullptr, gap_sum_bytes, (int64_t*)nullptr, (int64_t*)nullptr, n + 1),
          "cub::DeviceScan::ExclusiveSum");
    return std::max({scan_bytes, min_bytes, max_bytes, gap_max_bytes, gap_sum_bytes});
}

// One series of a call (the self-join's, or A or B of an AB-join): its
// values, and the first diagonal of the sweep whose columns are its windows.
struct SeriesIn {
    const double* x;
    int64_t n, excl;
};

// What the host knows of a series' gaps (DeviceCall::gaps_of): whether the
// device plans them (plan_gaps_on_device) and the value of leading gaps.
struct GapsIn {
    bool planned = false;
    double lead = 0;
};

// One sweep of a call: the series of its rows and of its columns (indices
// into the call's series) and the keys it updates (kRows, kCols, kBoth).
struct SweepSpec {
    int rows, cols, sides;
};

// One series' device arrays (the preparation's, mp_detail.h).  Arrays
// marked padded have kPad zeros after their last window (cleared by upload).
struct SeriesArrays {
    int64_t n = 0, count = 0, excl = 0;
    int64_t guard_n_rows = 0, guard_n_cols = 0;
    double* x;                     // the series
    double* xs;                    // the rescaled series (padded)
    double* lohi;                  // {min, max} of x
    mp::SeriesScale* scale;        // the rescaling
    mp::GuardStat *guard_rows, *guard_cols;  // the guard's tables
    double *mu, *df, *dg;          // per window (padded)
    double *inv_norm, *inv4;       // per window (padded)
    double* inv_std;               // per window
    uint8_t* constant;             // per window
    uint8_t* gap = nullptr;        // per window, with gaps only (mp::GapPlan's, plan_gaps_on_device)
    int64_t* next_ok = nullptr;    // count + 1 entries, with gaps only
    int64_t* gap_scan = nullptr;   // n + 1 entries, with gaps only: the gap plan's scans
    int64_t* next_const;           // count + 1 entries
    int64_t* const_scan;           // next_const's suffix minimum, reversed

    void reserve(Arena& arena, const SeriesIn& in, int m, bool gaps) {
        n = in.n;
        count = in.n - m + 1;
        excl = in.excl;
        const int64_t padded = count + kPad;
        guard_n_rows = mp::guard_row_entries(count);
        guard_n_cols = mp::guard_col_entries(count, excl);
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
            arena.reserve(gap_scan, n + 1);
        }
        arena.reserve(next_const, count + 1);
        arena.reserve(const_scan, count);
    }
};

// One sweep's task table (segment_starts) and the guard's flags of its tasks.
struct SweepArrays {
    int64_t n_tasks = 0;
    int64_t* seg_start;            // segment_starts
    uint8_t* guarded;              // per task: the guard's flag (Params::guarded)
};

// Every device array of the call, in one allocation: the series (one, or A
// and B), the sweeps' tables, the best key of every window of the first
// series (the rows of the self-join, A) and the result.
struct DeviceMemory {
    SeriesArrays series[2];
    SweepArrays sweeps[2];
    u64* best;                     // the sweep's best key per window
    double* dist;                  // the result
    int64_t* index;
    unsigned char* scratch;        // the CUB calls' temporary storage (one series at a time)
    size_t scratch_bytes = 0;
    Arena arena;

    DeviceMemory(const std::vector<SeriesIn>& in, int m, const std::vector<std::vector<int64_t>>& seg_starts,
                 const std::vector<GapsIn>& gaps) {
        for (size_t i = 0; i < in.size(); ++i) {
            series[i].reserve(arena, in[i], m, gaps[i].planned);
            scratch_bytes = std::max(scratch_bytes, cub_scratch_bytes(series[i].n, series[i].count));
        }
        for (size_t w = 0; w < seg_starts.size(); ++w) {
            sweeps[w].n_tasks = seg_starts[w].back();
            arena.reserve(sweeps[w].seg_start, seg_starts[w].size());
            arena.reserve(sweeps[w].guarded, sweeps[w].n_tasks);
        }
        const int64_t count = series[0].count;
        arena.reserve(best, count);
        arena.reserve(dist, count);
        arena.reserve(index, count);
        arena.reserve(scratch, scratch_bytes);
        arena.allocate("matrix profile device memory");
    }
};

// Clears a series' padded arrays; copies its values: into x, or, where the
// device plans gaps, into xs (its first n values), which plan_gaps_on_device
// fills into x before the preparation computes xs.
void upload(const SeriesArrays& d, const double* x, cudaStream_t s) {
    const size_t padded_bytes = (d.count + kPad) * sizeof(double);
    check(cudaMemsetAsync(d.xs, 0, (d.n + kPad) * sizeof(double), s), "cudaMemsetAsync");
    for (double* a : {d.mu, d.df, d.dg, d.inv_norm, d.inv4}) check(cudaMemsetAsync(a, 0, padded_bytes, s), "cudaMemsetAsync");
    check(cudaMemcpyAsync(d.gap ? d.xs : d.x, x, d.n * sizeof(double), cudaMemcpyHostToDevice, s), "copy series");
}

// Clears a sweep's flags; copies its segment table.
void upload(const SweepArrays& w, const std::vector<int64_t>& seg_start, cudaStream_t s) {
    check(cudaMemsetAsync(w.guarded, 0, w.n_tasks, s), "cudaMemsetAsync");
    check(cudaMemcpyAsync(w.seg_start, seg_start.data(), seg_start.size() * sizeof(int64_t),
                          cudaMemcpyHostToDevice, s),
          "copy segment table");
}

// next[q] = the smallest window p >= q whose flag is `set` (count when none),
// count + 1 entries, by a suffix minimum through rev (count entries).
void next_flagged(const uint8_t* flag, uint8_t set, int64_t count, int64_t* rev, int64_t* next, unsigned char* scratch,
                  size_t scratch_bytes, cudaStream_t s) {
    reverse_flags_kernel<<<blocks_for(count, 256), 256, 0, s>>>(flag, set, count, rev);
    check(cudaGetLastError(), "matrix profile flags launch");
    size_t bytes = scratch_bytes;
    check(cub::DeviceScan::InclusiveScan(scratch, bytes, rev, rev, MinI64(), count, s), "flags scan");
    next_const_kernel<<<blocks_for(count + 1, 256), 256, 0, s>>>(rev, count, next);
    check(cudaGetLastError(), "matrix profile flag index launch");
}

// The gap plan of a series uploaded with its gaps (into xs), as mp::plan_gaps
// makes it (mp_detail.h's rules): x, the filled series (the last finite value
// at or before each position: a maximum scan); gap, the windows' flags (from
// the gaps before each position: an exclusive sum); next_ok.
void plan_gaps_on_device(const SeriesArrays& d, unsigned char* scratch, size_t scratch_bytes, int m, double lead,
                         cudaStream_t s) {
    const int64_t n = d.n, count = d.count;
    size_t bytes = scratch_bytes;
    finite_at_kernel<<<blocks_for(n, 256), 256, 0, s>>>(d.xs, n, d.gap_scan);
    check(cudaGetLastError(), "matrix profile gap launch");
    check(cub::DeviceScan::InclusiveScan(scratch, bytes, d.gap_scan, d.gap_scan, MaxI64(), n, s), "last finite scan");
    fill_kernel<<<blocks_for(n, 256), 256, 0, s>>>(d.xs, d.gap_scan, n, lead, d.x);
    check(cudaGetLastError(), "matrix profile fill launch");
    gap_at_kernel<<<blocks_for(n + 1, 256), 256, 0, s>>>(d.xs, n, d.gap_scan);
    check(cudaGetLastError(), "matrix profile gap launch");
    bytes = scratch_bytes;
    check(cub::DeviceScan::ExclusiveSum(scratch, bytes, d.gap_scan, d.gap_scan, n + 1, s), "gap count scan");
    window_gap_kernel<<<blocks_for(count, 256), 256, 0, s>>>(d.gap_scan, m, count, d.gap);
    check(cudaGetLastError(), "matrix profile gap flags launch");
    next_flagged(d.gap, 0, count, d.const_scan, d.next_ok, scratch, scratch_bytes, s);
}

// A series' minimum and maximum into d.lohi.
void series_range(const SeriesArrays& d, unsigned char* scratch, size_t scratch_bytes, cudaStream_t s) {
    size_t bytes = scratch_bytes;
    check(cub::DeviceReduce::Min(scratch, bytes, d.x, d.lohi, d.n, s), "series minimum");
    bytes = scratch_bytes;
    check(cub::DeviceReduce::Max(scratch, bytes, d.x, d.lohi + 1, d.n, s), "series maximum");
}

// The range of two series (mp::joint_range) into both one's lohi (the
// AB-join's raw values: one rescaling for both).
__global__ void joint_range_kernel(double* lohi_a, double* lohi_b) {
    double lo, hi;
    mp::joint_range(lohi_a[0], lohi_a[1], lohi_b[0], lohi_b[1], &lo, &hi);
    lohi_a[0] = lohi_b[0] = lo;
    lohi_a[1] = lohi_b[1] = hi;
}

// The preparation of one series on the device after series_range: the
// rescaling (with the host's series_samples), xs, window statistics,
// constant flags, per-window factors, the guard's tables, next_const.
void prepare_on_device(const SeriesArrays& d, unsigned char* scratch, size_t scratch_bytes, int m, bool raw,
                       const mp::CentreSamples& samples, cudaStream_t s) {
    const int64_t n = d.n, count = d.count;
    scale_kernel<<<1, 1, 0, s>>>(d.lohi, samples, d.scale);
    check(cudaGetLastError(), "matrix profile scale launch");
    shift_kernel<<<blocks_for(n, 256), 256, 0, s>>>(d.x, n, d.scale, d.xs);
    check(cudaGetLastError(), "matrix profile shift launch");
    const int64_t chunk = stats_chunk(m), chunks = (count + chunk - 1) / chunk;
    chunk_kernel<<<blocks_for(chunks, 64), 64, 0, s>>>(d.x, d.xs, m, count, chunk, d.mu, d.inv_std, d.constant);
    check(cudaGetLastError(), "matrix profile statistics launch");
    window_kernel<<<blocks_for(count, 256), 256, 0, s>>>(d.xs, d.mu, d.inv_std, m, 1.0 / std::sqrt((double)m), raw,
                                                         count, d.inv_norm, d.inv4, d.df, d.dg);
    check(cudaGetLastError(), "matrix profile window launch");
    guard_kernel<<<blocks_for((d.guard_n_rows + d.guard_n_cols) * 32, 128), 128, 0, s>>>(
        d.inv_norm, d.df, d.dg, d.gap, count, d.excl, d.guard_n_rows, d.guard_n_cols, d.guard_rows, d.guard_cols);
    check(cudaGetLastError(), "matrix profile guard launch");
    if (d.gap) {
        mark_kernel<<<blocks_for(count, 256), 256, 0, s>>>(d.gap, count, d.inv_norm, d.inv4, d.constant);
        check(cudaGetLastError(), "matrix profile gap launch");
    }
    next_flagged(d.constant, 1, count, d.const_scan, d.next_const, scratch, scratch_bytes, s);
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

// The two launches of a chunk of tasks of a sweep that updates `sides`: the
// plain one on s, the guarded one on s_guarded (they take disjoint tasks and
// merge by atomicMax, so they may run side by side: a short series' few long
// tasks then take the time of the longer launch, not of both).
template <int SIDES, bool RAW>
void launch_sweep(const Params& p, unsigned blocks, cudaStream_t s, cudaStream_t s_guarded) {
    if (p.nan_free)
        sweep_kernel<false, SIDES, RAW, kNoNaN><<<blocks, 32 * kWarpsPerBlock, 0, s>>>(p);
    else
        sweep_kernel<false, SIDES, RAW, kAnyNaN><<<blocks, 32 * kWarpsPerBlock, 0, s>>>(p);
    check(cudaGetLastError(), "matrix profile kernel launch");
    if (p.nan_free)
        sweep_kernel<true, SIDES, RAW, kGuardNaN><<<blocks, 32 * kWarpsPerBlock, 0, s_guarded>>>(p);
    else
        sweep_kernel<true, SIDES, RAW, kAnyNaN><<<blocks, 32 * kWarpsPerBlock, 0, s_guarded>>>(p);
    check(cudaGetLastError(), "matrix profile guarded kernel launch");
}

template <int SIDES>
void launch_sweep(const Params& p, unsigned blocks, cudaStream_t s, cudaStream_t s_guarded) {
    if (p.codec.raw)
        launch_sweep<SIDES, true>(p, blocks, s, s_guarded);
    else
        launch_sweep<SIDES, false>(p, blocks, s, s_guarded);
}

void launch_sweep(const Params& p, int sides, unsigned blocks, cudaStream_t s, cudaStream_t s_guarded) {
    if (sides == kBoth)
        launch_sweep<kBoth>(p, blocks, s, s_guarded);
    else if (sides == kRows)
        launch_sweep<kRows>(p, blocks, s, s_guarded);
    else
        launch_sweep<kCols>(p, blocks, s, s_guarded);
}

// One GPU's share of a sweep (that updates `sides`): its tasks [first, last)
// in launches of about kMaxPairsPerLaunch pairs, at most two queued on its
// stream at a time, so that the device never idles while the host polls (for
// cancel) in between.
class Sweep {
public:
    Sweep(const Params& p, int sides, int64_t first, int64_t last, cudaStream_t s, int device)
        : p_(p), sides_(sides), first_(first), next_(first), last_(last), s_(s), device_(device),
          per_launch_(std::max<int64_t>(kWarpsPerBlock, (int64_t)(kMaxPairsPerLaunch / ((double)kBand * p.seg_rows)) /
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
        fork_.record(s_);  // the guarded launch after what s_ holds (the guard's replay, earlier launches)
        check(cudaStreamWaitEvent(guarded_, fork_, 0), "cudaStreamWaitEvent");
        launch_sweep(p_, sides_, (unsigned)((p_.task_hi - p_.task_lo + kWarpsPerBlock - 1) / kWarpsPerBlock), s_,
                     guarded_);
        join_.record(guarded_);  // s_ goes on (the next launch, the keys) after both
        check(cudaStreamWaitEvent(s_, join_, 0), "cudaStreamWaitEvent");
        done_[launched_ & 1].record(s_);
        ++launched_;
        next_ = p_.task_hi;
    }

    Params p_;
    int sides_;
    int64_t first_, next_, last_;
    cudaStream_t s_;
    int device_;
    int64_t per_launch_;
    int64_t launched_ = 0, finished_ = 0;
    Stream guarded_;     // the guarded launches' (launch_sweep); synchronised when the sweep ends, as on cancel
    Event fork_, join_;  // recorded and waited for at once: one of each serves every launch
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
    PollPace pace;
    for (;;) {
        bool all_done = true;
        int64_t done = 0;
        for (auto& s : sweeps) {
            all_done = s->advance() && all_done;
            done += s->tasks_done();
        }
        progress_set(ex, done);
        if (all_done) return;
        if (ex && ex->interrupted && ex->interrupted()) cancelled();
        pace.pause();
    }
}

// One call on one GPU: the series uploaded and prepared (the constructor),
// then the sweep of a range of units (the self-join) or every sweep (the
// AB-join), keys loaded from merged tiles, the finalisation, or the keys
// copied out.  The self-join has one series and one sweep (both sides); the
// AB-join the series A and B and two sweeps (mp_detail.h).  A split call
// has one per GPU it lists (the same GPU listed twice: two, with their own
// stream and memory).
class DeviceCall {
public:
    DeviceCall(const double* x, int64_t n, int m, int64_t excl, int device, TsExec* ex, bool raw)
        : DeviceCall({SeriesIn{x, n, excl}}, {SweepSpec{0, 0, kBoth}}, m, device, ex, raw) {}

    // raw: raw-value distances (an AB-join's series then take one
    // rescaling: mp::joint_range, mp::joint_samples).  A series with gaps
    // (and an AB-join's other series) is uploaded as it is and planned on
    // the device (gaps_of, plan_gaps_on_device).
    DeviceCall(const std::vector<SeriesIn>& in, const std::vector<SweepSpec>& sweeps, int m, int device, TsExec* ex,
               bool raw = false)
        : ex_(ex), device_(device), t_start_(start_device(device, ex)), count_(in[0].n - m + 1),
          n_series_((int)in.size()), m_(m), codec_(mp::make_codec(max_count(in, m), raw, m)), specs_(sweeps),
          seg_starts_(segment_tables(in, sweeps, m)), gaps_(gaps_of(in)), d_(in, m, seg_starts_, gaps_),
          timer_(s_) {
        std::vector<mp::CentreSamples> samples = centre_samples(in, raw);
        for (size_t i = 0; i < in.size(); ++i) upload(d_.series[i], in[i].x, s_);
        for (size_t w = 0; w < specs_.size(); ++w) upload(d_.sweeps[w], seg_starts_[w], s_);
        check(cudaMemsetAsync(d_.best, 0, count_ * sizeof(u64), s_), "cudaMemsetAsync");
        timer_.start();
        for (size_t i = 0; i < in.size(); ++i) {
            if (gaps_[i].planned) plan_gaps_on_device(d_.series[i], d_.scratch, d_.scratch_bytes, m, gaps_[i].lead, s_);
            series_range(d_.series[i], d_.scratch, d_.scratch_bytes, s_);
        }
        if (raw && in.size() == 2) {
            joint_range_kernel<<<1, 1, 0, s_>>>(d_.series[0].lohi, d_.series[1].lohi);
            check(cudaGetLastError(), "matrix profile joint range launch");
        }
        for (size_t i = 0; i < in.size(); ++i)
            prepare_on_device(d_.series[i], d_.scratch, d_.scratch_bytes, m, raw, samples[i], s_);
    }
    ~DeviceCall() { cudaSetDevice(device_); }  // the members are freed on their device
    DeviceCall(const DeviceCall&) = delete;

    // The self-join: the guard of the units' tiles (their direct tiles, the
    // tasks' flags) launched; the sweep of their tasks to be run by run_sweeps.
    std::unique_ptr<Sweep> sweep(const mp::UnitRange& units) {
        on();
        int64_t first = 0, last = 0;
        tasks_of_units(seg_starts_[0], units, &first, &last);
        const Params p = params(0);
        int64_t e_lo = 0, e_hi = 0;
        guard_columns_of_units(units, p.n_seg, tile_cols(p), &e_lo, &e_hi);
        return sweep_tasks(0, e_lo, e_hi, first, last);
    }

    // Every sweep of the call, all their tasks (the AB-join), to be run by run_sweeps.
    std::vector<std::unique_ptr<Sweep>> sweep_all() {
        on();
        std::vector<std::unique_ptr<Sweep>> sweeps;
        for (size_t w = 0; w < specs_.size(); ++w) {
            const Params p = params((int)w);
            sweeps.push_back(sweep_tasks((int)w, 0, (int64_t)p.n_seg * tile_cols(p), 0, seg_starts_[w].back()));
        }
        return sweeps;
    }

    void load_keys(const uint64_t* keys) {
        on();
        check(cudaMemcpyAsync(d_.best, keys, count_ * sizeof(u64), cudaMemcpyHostToDevice, s_), "copy keys");
    }

    // The first series' windows against the last series' (the self-join's
    // against themselves; A's against B's), candidates |p − j| ≥ excl.
    void finalize(int64_t excl, double* dist, int64_t* index) {
        on();
        const SeriesArrays& A = d_.series[0];
        const SeriesArrays& B = d_.series[n_series_ - 1];
        const mp::FinalizeArgs fin{A.x, B.x, A.scale, A.xs, A.mu, A.inv_std, A.constant, B.xs, B.mu, B.inv_std,
                                   B.constant, B.next_const, /*first_const: next_const[0], read on the device*/ B.count,
                                   B.count, excl, m_, codec_, A.gap, B.next_ok};
        const unsigned finalize_blocks = (unsigned)((count_ + kFinalizeThreads - 1) / kFinalizeThreads);
        finalize_kernel<<<finalize_blocks, kFinalizeThreads, 0, s_>>>(fin, count_, d_.best, d_.dist, d_.index);
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
    static int64_t max_count(const std::vector<SeriesIn>& in, int m) {
        int64_t c = 0;
        for (const SeriesIn& si : in) c = std::max(c, si.n - m + 1);
        return c;
    }
    // Which series the device plans (all of them where one has gaps, as
    // mp::ab_gap_plans: a series without gaps then gets no flag set) and the
    // value of their leading gaps.
    static std::vector<GapsIn> gaps_of(const std::vector<SeriesIn>& in) {
        bool any = false;
        for (const SeriesIn& si : in) any = any || first_nonfinite(si.x, si.n) >= 0;
        std::vector<GapsIn> gaps(in.size());
        if (any)
            for (size_t i = 0; i < in.size(); ++i) gaps[i] = GapsIn{true, mp::lead_fill(in[i].x, in[i].n)};
        return gaps;
    }
    // Each series' samples (series_samples of the values it is prepared
    // from: filled_samples where the device plans gaps); raw values of an
    // AB-join: mp::joint_samples of both, for both.
    std::vector<mp::CentreSamples> centre_samples(const std::vector<SeriesIn>& in, bool raw) const {
        std::vector<mp::CentreSamples> q;
        for (size_t i = 0; i < in.size(); ++i)
            q.push_back(gaps_[i].planned ? mp::filled_samples(in[i].x, in[i].n, gaps_[i].lead)
                                         : mp::series_samples(in[i].x, in[i].n));
        if (raw && in.size() == 2) q[0] = q[1] = mp::joint_samples(q[0], in[0].n, q[1], in[1].n);
        return q;
    }
    static std::vector<std::vector<int64_t>> segment_tables(const std::vector<SeriesIn>& in,
                                                            const std::vector<SweepSpec>& sweeps, int m) {
        std::vector<std::vector<int64_t>> t;
        for (const SweepSpec& w : sweeps)
            t.push_back(segment_starts(in[w.rows].n - m + 1, in[w.cols].n - m + 1, in[w.cols].excl));
        return t;
    }
    // The launches' parameters of sweep w (task_lo, task_hi: per launch).
    Params params(int w) const {
        const SweepSpec& sp = specs_[w];
        const SeriesArrays &R = d_.series[sp.rows], &C = d_.series[sp.cols];
        // shift ≥ 10: room for the 10-bit tags; shift < 32 (fewer than 2^31 windows,
        // far beyond a GPU's memory): the quantum lies in the low word
        if (codec_.shift >= 32) throw std::length_error("matrix profile: 2^31 windows or more on the GPU");
        const unsigned key_mask = ~((1u << codec_.shift) - 1u);
        return Params{R.xs, R.mu, R.df, R.dg, codec_.raw ? R.inv4 : R.inv_norm, C.xs, C.mu, C.df, C.dg, C.inv4, R.guard_rows, C.guard_cols,
                      d_.sweeps[w].guarded, d_.sweeps[w].seg_start, (sp.sides & kRows) ? d_.best : nullptr,
                      (sp.sides & kCols) ? d_.best : nullptr, 0, 0, (int)seg_starts_[w].size() - 1, nan_free(),
                      R.count, C.count, C.excl, m_, key_mask, codec_, mp::segment_rows(R.count)};
    }
    // No series has gap flags (none planned: gaps_of): no value of the plain sweep is NaN.
    bool nan_free() const {
        return std::all_of(gaps_.begin(), gaps_.end(), [](const GapsIn& g) { return !g.planned; });
    }
    static int64_t tile_cols(const Params& p) { return (p.count_c - p.excl + mp::kGuardDiags - 1) / mp::kGuardDiags; }
    // The guard of sweep w's tile columns [e_lo, e_hi) (their direct tiles,
    // the tasks' flags) launched; its tasks [first, last) to be run.
    std::unique_ptr<Sweep> sweep_tasks(int w, int64_t e_lo, int64_t e_hi, int64_t first, int64_t last) {
        const Params p = params(w);
        if (e_hi > e_lo) {
            guard_replay_kernel<<<blocks_for(e_hi - e_lo, 128), 128, 0, s_>>>(p, tile_cols(p), e_lo, e_hi);
            check(cudaGetLastError(), "matrix profile guard launch");
        }
        return std::unique_ptr<Sweep>(new Sweep(p, specs_[w].sides, first, last, s_, device_));
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
    int64_t count_;  // windows of the first series (the rows of the self-join, A)
    int n_series_;
    int m_;
    mp::KeyCodec codec_;
    std::vector<SweepSpec> specs_;
    std::vector<std::vector<int64_t>> seg_starts_;
    std::vector<GapsIn> gaps_;  // per series
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
    calls[0]->finalize(excl, dist, index);
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
    call.finalize(excl, dist, index);
}

void matrix_profile_ab(const double* a, int64_t na, const double* b, int64_t nb, int m, int64_t excl, TsExec* ex,
                       double* dist, int64_t* index, bool raw) {
    const int64_t ca = na - m + 1, cb = nb - m + 1;
    ex->kernel_ms = 0;
    // A gives the columns of the lower sweep, B those of the upper one (mp_detail.h)
    DeviceCall call({SeriesIn{a, na, mp::ab_first_diagonal(excl, ca, true)},
                     SeriesIn{b, nb, mp::ab_first_diagonal(excl, cb, false)}},
                    {SweepSpec{0, 1, kRows}, SweepSpec{1, 0, kCols}}, m, ex->gpu_device, ex, raw);
    std::vector<std::unique_ptr<Sweep>> sweeps = call.sweep_all();
    run_sweeps(sweeps, ex);
    call.finalize(excl, dist, index);
}

}  // namespace gpu
}  // namespace tsm
