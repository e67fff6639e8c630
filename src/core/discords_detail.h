// discords_detail.h — the rules of the discords that every method follows,
// and the arithmetic of PD3's scan that the CPU path (discords.cpp) and the
// GPU path (kernels/discords.cu) share: both call these functions, so both
// compute the same co-moments and squared distances to the last bit and keep
// the same candidates; only the layout of the work differs (tasks and stack
// arrays on the CPU, warps and registers on the GPU).
//
// Everything here is inline and, under nvcc, __host__ __device__.
//
// The ranking rule (PD3 and the matrix profile, GPU and CPU: one rule, so
// every method returns the same rows, bit for bit):
//  * Window i's nearest-neighbour (NN) distance E_i is the smallest d(i, j)
//    over the admissible windows j (|i − j| ≥ exclusion), d the direct
//    z-normalised distance of motifs_detail.h (each window's exact
//    statistics, on the series scaled by a power of two: the same for x and
//    2^k·x, an offset or a spike elsewhere changes nothing); its neighbour is
//    the smallest such j (motif::nearer).  WindowProfiler::nearest computes it.
//  * Windows rank by E descending, ties to the smaller position.  Top-k mode
//    takes them greedily, skipping a window within m − 1 of one taken; range
//    mode takes every window with E ≥ r.
//  * A method proposes candidates, each window i with an admissible partner
//    p_i, so u_i = d(i, p_i) ≥ E_i, and a boundary that every other window
//    ranks after.  The selection (discords.cpp, ExactRanking) pops candidates
//    by their key (E_i once known, else u_i) and position: a window whose E
//    is not known yet gets it (nearest, in batches) and goes back; a window
//    whose E is known is the next in rank order, as no other window's E
//    exceeds its key.  Only windows whose u reaches the k-th answer are
//    refined (k and the near-ties), each in O(N·m) with early abandoning; a
//    search that meets a pair below the boundary, below min_distance or below
//    a value the k-th answer is known to reach (ExactRanking::answer_floor)
//    stops there: that window is no answer.
//  * The matrix profile proposes every window, p_i its profile neighbour.
//    PD3 proposes the windows that survive a run with threshold r (below),
//    p_i the scan's neighbour, and those whose discard the verification
//    undid, with the boundary r: every window with E ≥ r is among them.
//    Neither method's rounding can change the rows: it only decides how many
//    windows are refined.
//
// PD3's scan (it proposes; the exact distances decide):
//  * Preparation (discords.cpp pd3_prepare): the matrix profile's
//    (mp::prepare: its rescaled, centred series x', window means μ_i,
//    inv_std_i = 1/σ_i (0 for a constant window, which is how the scan
//    recognises one), the recurrence terms df_i, dg_i), and the rough flags.
//  * Segments: the windows are cut into segments of kSegmentRows consecutive
//    rows (candidates).  A segment scans its columns j in ascending order.  In
//    its first column every row's co-moment C(i, j) is direct
//    (direct_comoment); in the next ones the top row's is direct (PD3's QTcol)
//    and row i's comes from row i − 1 of the previous column by the recurrence
//    (PD3's (9), comoment_next, the row window first).  Every value is at most
//    kSegmentRows − 1 steps from a direct one, and the values depend on the
//    segment length only, not on how a path cuts the columns into tasks or
//    launches (the co-moments at a cut carry over).
//  * Guard against spikes: the scan restarts (computes C(i, j) directly) in
//    every rough row i and rough column j, and a window is rough where the
//    recurrence's step into it could leave rounding beyond what the windows
//    after it allow.  With H_w = mp::step_magnitude (the profile's guard's:
//    max(N_{w−1}, N_w, |df_w|, |dg_w|), N = sqrt(Σ(x' − μ)²), 0 for a flat
//    window), window w ≥ 1 is rough (rough_window) when H_w > G·L_w, G =
//    kRoughFactor = 2^9 and L_w the smallest N of a non-flat window in
//    [w, min(w + kSegmentRows − 1, R_w − 1)], R_w the first rough window
//    after w (pd3_prepare decides from the last window down; +inf when every
//    window there is flat).  The bound: a value C(i, j) of the scan is
//    reached from a direct one C(a, a + k) (k = j − i) in i − a ≤ 255 steps
//    (the segment's rows), through rows a + 1 .. i and columns
//    a + k + 1 .. j that are not rough, so each of them is within 255 of i
//    (of j) and before the next rough window: H_s ≤ G·N_i and
//    H_{s+k} ≤ G·N_j for every step s.  A step rounds by at most
//    15u·H_s·H_{s+k} (u = 2^-53; its two fma roundings 5u, the rounding of
//    df and dg 10u, first order), so the steps leave at most
//    255·16u·G²·N_i·N_j < 2^-23·N_i·N_j, and the direct start
//    2(m + 4)u·N_a·N_{a+k} ≤ (m + 4)·2^-34·N_i·N_j (N_a ≤ H_{a+1} ≤ G·N_i):
//    every co-moment the scan turns into a d² is within
//    (2^-23 + (m + 4)·2^-34)·N_i·N_j of the co-moment of the two windows
//    about their stored means (the means' own rounding enters each step
//    through dg as in mp_detail.h and is not in the bound),
//    wherever the glitches are and however the amplitude decays (a steady
//    decay, no step of which is large, included).  A spike makes the window
//    after it rough (N drops by the spike's size there); on ordinary data
//    almost no window is (random walks, m = 3 .. 256: none; the
//    keogh_discords sets: below 1% for m ≤ 16, none from m = 100).  The scan
//    proposes; the exact distances decide, so the bound only decides how
//    many windows are refined.
//  * Distance (pair_d2): d² = 2m − 2·C·isd_i·isd_j = fma(−C, isd_i·(2·isd_j), 2m);
//    constant windows (STUMPY): both constant 0, one constant m (= √m²).
//  * Selection: candidate selection scans the columns to the right
//    (j ≥ i + e), refinement those to the left (j ≤ i − e), e the exclusion
//    zone.  A pair with d² < r² discards its row (Bitmap.Subseq) and, in the
//    selection, its column (Bitmap.Neighbor), provisionally; the column
//    records the smallest row that discarded it (close_row).  The refinement
//    then scans the candidates, Subseq ∧ Neighbor.  While a row is alive its
//    nearest neighbour on a side changes only to a strictly nearer column, so
//    a tie keeps the smaller index; a discarded row keeps the pair that
//    discarded it first (its partner for the verification; it is no
//    candidate, so its nearest neighbour is never needed), while its pairs
//    still discard columns.  A survivor's NN is the nearer of its left and
//    right ones, a tie goes left (the smaller index).
//  * Early termination: a segment whose rows are all discarded stops,
//    checked after every kCheckColumns-th column from its first one (and at
//    the end of a chunk, a multiple of kCheckColumns columns): its scan
//    visits the columns [start, T), T the end of the check group in which
//    its last row was first discarded (stop_column; T = end when a row
//    survives).
//  * Verification (where a step's answer would be taken from the survivors):
//    a window the scan excluded stays excluded only if its exact distance to
//    one of the partners that discarded it (discard_partners: the column
//    that first discarded its row in the selection, the recorded row if the
//    selection discarded its column, the column that first discarded it in
//    the refinement) is < r (discard_holds); otherwise the discard is undone and the
//    window proposed, u the smallest of those distances.  A window with
//    E ≥ r has every exact distance ≥ r, so it survives or is undone,
//    whatever the scan's rounding.
#pragma once

#include <cmath>
#include <cstdint>

#include "comoment_detail.h"
#include "hd.h"

namespace tsm {
namespace pd3 {

// Rows per segment, on both paths (it decides the rounding, see above).
constexpr int kSegmentRows = 256;

// ---- preparation (host: discords.cpp pd3_prepare) ----------------------------

// G: how far the step into a window may exceed the norms of the windows the
// scan reaches from it before it is rough (the header's bound).
constexpr double kRoughFactor = 0x1p9;

// Whether window w ≥ 1 is rough: h_w, the largest magnitude of the step into
// it (mp::step_magnitude), exceeds G·reach_w, reach_w the smallest norm of a
// non-flat window that a chain of the scan through w can end at (the header's
// L_w; +inf when there is none).
TSM_HD bool rough_window(double h_w, double reach_w) { return h_w > hd::mul(kRoughFactor, reach_w); }

// ---- the scan ----------------------------------------------------------------

// r² of a run with threshold r; r = 0 discards nothing (a d² that rounds
// below 0 must not count as < 0).
TSM_HD double discard_below(double r) { return r > 0 ? hd::mul(r, r) : -INFINITY; }

// A range of columns [begin, end).
struct Columns {
    int64_t begin, end;
};

// The columns some segment scans: j ≥ e in the selection, j < N − e in the refinement.
TSM_HD Columns scan_columns(bool select, int64_t windows, int64_t excl) {
    return select ? Columns{excl, windows} : Columns{0, windows - excl};
}

// Segment s within the column window [c_lo, c_hi) of a scan.
struct SegmentPlan {
    int64_t first_row;   // the segment's rows: [first_row, first_row + rows)
    int rows;
    int64_t start, end;  // the columns it scans in all: [start, end) (empty: no pair)
    int64_t lo, hi;      // those of this column window (empty: none)
};

TSM_HD SegmentPlan plan_segment(bool select, int64_t s, int64_t windows, int64_t excl, int64_t c_lo,
                                int64_t c_hi) {
    SegmentPlan p;
    p.first_row = s * kSegmentRows;
    const int64_t left = windows - p.first_row;
    p.rows = left < kSegmentRows ? (int)left : kSegmentRows;
    p.start = select ? p.first_row + excl : 0;
    p.end = select ? windows : p.first_row + p.rows - excl;
    p.lo = p.start > c_lo ? p.start : c_lo;
    p.hi = p.end < c_hi ? p.end : c_hi;
    return p;
}

// Chunks.  A segment's columns [start, end) are cut into chunks of K =
// chunk_columns(windows, m), chunk c = [start + c·K, start + (c + 1)·K) ∩ [start, end),
// each starting with direct co-moments for every row (as a segment's first
// column: the chain of steps behind a value stays within the segment's rows,
// so the bound above holds).  What a scan computes is the sequential one:
// the chunks in order, the rows' state carried from one to the next, early
// termination as above (the CPU scans so).  The GPU gets the same result
// with the later chunks in parallel: chunk 0 of every segment first; a
// segment with a row still alive after it then scans all its other chunks at
// once, each from the rows alive after chunk 0 with no nearest neighbour
// yet, stopping when each of those rows was discarded within the chunk, and
// recording which rows discarded which of its columns; merged in column
// order (merge_chunk), a chunk's rows change only while they are alive (so a
// row takes its first discard, as the sequential scan), and when the last of
// them dies in chunk c, T follows (stop_column: that chunk scanned at least
// up to T, every chunk before it wholly) and only its columns before T are
// marked, the later chunks' none.
constexpr int64_t kCheckColumns = 32;
// K: the largest power of two ≤ windows/40, at least 2m and 256, at most
// 8192 (a multiple of 32: chunks end where the early termination checks).
// Shorter chunks wait less for a segment's slowest one; longer ones rescan
// less (a later chunk starts from every row alive after chunk 0) and
// restart less (each chunk's first column costs a direct co-moment of m
// products a row).  H100 and the development machine's CPU, bench/RESULTS.md
// ("PD3: chunks from 256 columns"): windows/32, /40 and /48 gave sums of GPU
// times within 1.6% of each other over the keogh_discords series and random
// walks of 2^15 to 2^20 (the best width of a series from 256 at 4,873
// windows to 8,192 at 2^20); the floor 2m keeps the CPU's restarts within
// 5% (power demand, m = 512: +12% with chunks of 512, +2–4% with 1,024).
constexpr int64_t kMinChunkColumns = 256, kMaxChunkColumns = 8192, kWindowsPerChunkColumn = 40;
TSM_HD int64_t chunk_columns(int64_t windows, int m) {
    int64_t k = kMinChunkColumns;
    while (k < kMaxChunkColumns && (k < 2 * (int64_t)m || 2 * k * kWindowsPerChunkColumn <= windows)) k *= 2;
    return k;
}

// Chunk c of segment s in a scan whose chunks are `width` columns
// (chunk_columns).
TSM_HD SegmentPlan plan_chunk(bool select, int64_t s, int64_t windows, int64_t excl, int64_t width, int64_t c) {
    const int64_t first_row = s * kSegmentRows;
    const int64_t c_lo = (select ? first_row + excl : 0) + c * width;
    return plan_segment(select, s, windows, excl, c_lo, c_lo + width);
}

// The number of chunks of `width` columns of a segment (sp: any chunk of it).
TSM_HD int64_t chunk_count(const SegmentPlan& sp, int64_t width) {
    return sp.end > sp.start ? (sp.end - sp.start + width - 1) / width : 0;
}

// T of a segment whose last row was first discarded at column last (sp: any
// chunk of the segment): the end of that check group, at most the end.
TSM_HD int64_t stop_column(const SegmentPlan& sp, int64_t last) {
    const int64_t t = sp.start + ((last - sp.start) / kCheckColumns + 1) * kCheckColumns;
    return t < sp.end ? t : sp.end;
}

// Whether the segment is done after this column window (chunk 0: whether it
// needs no other chunk): it has no pair at all, reached its last column, or
// every row was discarded (dead: PD3's early termination).
TSM_HD bool segment_finished(const SegmentPlan& p, bool dead) {
    return dead || p.end <= p.start || p.hi >= p.end;
}

// The segment's rows [*lo, *hi) (0-based) that pair with column j.
TSM_HD void paired_rows(bool select, const SegmentPlan& p, int64_t j, int64_t excl, int* lo, int* hi) {
    const int64_t bound = select ? j - excl - p.first_row + 1 : j + excl - p.first_row;
    const int64_t floor0 = bound > 0 ? bound : 0;  // two selects (min/max), no jumps
    const int clamped = (int)(floor0 < p.rows ? floor0 : p.rows);
    *lo = select ? 0 : clamped;
    *hi = select ? clamped : p.rows;
}

// d² of row window i and a non-constant column window j from their
// co-moment C, isd_i, base_i = row_base(isd_i) and isd2_j = column_isd2(isd_j):
// fma(−C, isd_i·isd2_j, base_i), which is 2m − 2·C·isd_i·isd_j for a
// non-constant row and exactly m for a constant one (isd_i = 0: the product
// −C·0 is a zero, C being finite).
TSM_HD double row_base(double isd_i, double md, double m2) { return isd_i == 0.0 ? md : m2; }
TSM_HD double column_isd2(double isd_j) { return hd::mul(2.0, isd_j); }
TSM_HD double pair_d2(double C, double isd_i, double base_i, double isd2_j) {
    return hd::fma(-C, hd::mul(isd_i, isd2_j), base_i);
}

// The same value where base_i is not kept per row (the GPU: row_base of each
// of a lane's rows would be hoisted out of the column loop into registers it
// does not have): the constant row's m is chosen instead of added.
TSM_HD double pair_d2_unbased(double C, double isd_i, double isd2_j, double md, double m2) {
    return isd_i == 0.0 ? md : pair_d2(C, isd_i, m2, isd2_j);
}

// d² of row window i and a constant column window (STUMPY): 0 for a constant
// row, m (= √m²) otherwise.  Both paths branch on the column's kind once per
// column.
TSM_HD double constant_column_d2(double isd_i, double md) { return isd_i == 0.0 ? 0.0 : md; }

// The row a column records as its discarder: the smallest row of the pairs
// that discard it (rows visited in descending order: the last).
TSM_HD int close_row(bool discard, int row, int closer) { return discard ? row : closer; }

// A provisional discard stands when the pair's exact distance d is < r.
TSM_HD bool discard_holds(double d, double r) { return d < r; }

// The partners that discarded window i in a run, in order, −1 for none: the
// column that first discarded its row in the selection (right_nn; kept: its
// row survived the selection), the recorded row when the selection
// discarded its column (neighbor: Bitmap.Neighbor), the column that first
// discarded it in the refinement (left_nn; cand: it was a candidate, alive:
// it survived).
TSM_HD void discard_partners(bool kept, bool neighbor, bool cand, bool alive, int64_t right_nn, int64_t col_row,
                             int64_t left_nn, int64_t* out) {
    out[0] = kept ? -1 : right_nn;
    out[1] = neighbor ? -1 : col_row;
    out[2] = cand && !alive ? left_nn : -1;
}

// One pair (row, column j) of a scan in ascending j: the nearest neighbour so
// far (best_d2, best_j) of a row still alive changes only to a strictly
// nearer column; returns whether the pair discards the row (and, in the
// selection, the column).
template <class Index>
TSM_HD bool visit_pair(bool alive, double d2, double r2, Index j, double& best_d2, Index& best_j) {
    const bool nearer = alive & (d2 < best_d2);
    best_d2 = nearer ? d2 : best_d2;
    best_j = nearer ? j : best_j;
    return d2 < r2;
}

// The same for a row that may not pair with the column (paired = false: the
// row is left as it is and nothing is discarded, as with d² = +∞).  The flag
// is ANDed into both comparisons (the GPU folds it into the compare's
// predicate input) instead of selecting a d² of +∞, which costs two selects a
// row (a double is two registers).
template <class Index>
TSM_HD bool visit_paired(bool paired, bool alive, double d2, double r2, Index j, double& best_d2, Index& best_j) {
    const bool nearer = paired & alive & (d2 < best_d2);
    best_d2 = nearer ? d2 : best_d2;
    best_j = nearer ? j : best_j;
    return paired & (d2 < r2);
}

// A later chunk's result for one row merged into the row's (chunks in
// ascending order): a row alive before the chunk takes the chunk's nearest
// neighbour if strictly nearer (a tie keeps the earlier chunk's, the smaller
// index), as within a chunk (visit_pair's rule, the chunk's neighbour as the
// pair), and stays alive only if the chunk did not discard it; a discarded
// row keeps its first discard.
template <class Index>
TSM_HD void merge_chunk(uint8_t chunk_alive, double chunk_d2, Index chunk_j, uint8_t& alive, double& best_d2,
                        Index& best_j) {
    visit_pair(alive != 0, chunk_d2, 0.0, chunk_j, best_d2, best_j);
    alive = (uint8_t)(alive & chunk_alive);
}

// Bitmap conjunction (PD3 Alg. 2, lines 26–28): a candidate of the refinement.
TSM_HD uint8_t candidate(uint8_t subseq, uint8_t neighbor) { return (uint8_t)(subseq & neighbor); }

// A survivor's nearest neighbour from its left and right ones (j < 0: none):
// the nearer, a tie goes left.  False when it has no neighbour at all.
template <class Index>
TSM_HD bool nearest_neighbour(double left_d2, Index left_j, double right_d2, Index right_j, double& d2,
                              Index& j) {
    d2 = left_d2;
    j = left_j;
    if (right_d2 < d2) {
        d2 = right_d2;
        j = right_j;
    }
    return j >= 0;
}

}  // namespace pd3
}  // namespace tsm
