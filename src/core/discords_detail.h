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
//  * Guard against spikes: window w ≥ 1 is rough (rough_window) when the
//    recurrence's step into it carries terms far beyond its own norm (a
//    spike leaving the window, a drop of σ), measured as the profile's guard
//    measures them (mp::step_magnitude): the rounding of those terms would
//    swamp the co-moments of every later row of the diagonal.  C(i, j) of a
//    rough row i or a rough column j is computed directly instead, so the
//    recurrence restarts there.  (The profile's guard bounds the error of
//    its tiles of diagonals; PD3's segments scan columns, so it restarts per
//    row and column; either way a deterministic function of the data.)
//  * Distance (pair_d2): d² = 2m − 2·C·isd_i·isd_j = fma(−C, isd_i·(2·isd_j), 2m);
//    constant windows (STUMPY): both constant 0, one constant m (= √m²).
//  * Selection: candidate selection scans the columns to the right
//    (j ≥ i + e), refinement those to the left (j ≤ i − e), e the exclusion
//    zone.  A pair with d² < r² discards its row (Bitmap.Subseq) and, in the
//    selection, its column (Bitmap.Neighbor), provisionally; the column
//    records the smallest row that discarded it (close_row).  The refinement
//    then scans the candidates, Subseq ∧ Neighbor.  A row's nearest
//    neighbour on a side changes only to a strictly nearer column, so a tie
//    keeps the smaller index; its NN is the nearer of its left and right
//    ones, a tie goes left (the smaller index).
//  * Early termination: a segment whose rows are all discarded stops, checked
//    after every 32nd column from its first one and at the end of a column
//    window (a multiple of 32 columns): the same columns on both paths.
//  * Verification (where a step's answer would be taken from the survivors):
//    a window the scan excluded stays excluded only if its exact distance to
//    one of the partners that discarded it (discard_partners: its right
//    neighbour if the selection discarded its row, the recorded row if it
//    discarded its column, its left neighbour if the refinement discarded
//    it) is < r (discard_holds); otherwise the discard is undone and the
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

// How far the step into a window may exceed its own norm before it is rough.
constexpr double kRoughFactor = 64.0;

// Whether window w ≥ 1 is rough: h_w, the largest magnitude of the step into
// it (mp::step_magnitude, the profile's guard's: max(N_{w−1}, N_w, |df_w|,
// |dg_w|), N = sqrt(Σ(x' − μ)²)), exceeds G·N_w (G = kRoughFactor; N_w = 0
// for a flat window).  Otherwise each term of the step into w, and
// C(w − 1, ·), is within G² of w's own scale N_w·N_j, and so is its rounding.
TSM_HD bool rough_window(double h_w, double n_w) { return h_w > hd::mul(kRoughFactor, n_w); }

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

// Whether the segment is done after this column window: it has no pair at
// all, reached its last column, or every row was discarded (dead: PD3's early
// termination).
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

// The partners that discarded window i in a run, in order, −1 for none: its
// right neighbour when the selection discarded its row (kept: its row
// survived the selection), the recorded row when the selection discarded
// its column (neighbor: Bitmap.Neighbor), its left neighbour when the
// refinement discarded it (cand: it was a candidate, alive: it survived).
TSM_HD void discard_partners(bool kept, bool neighbor, bool cand, bool alive, int64_t right_nn, int64_t col_row,
                             int64_t left_nn, int64_t* out) {
    out[0] = kept ? -1 : right_nn;
    out[1] = neighbor ? -1 : col_row;
    out[2] = cand && !alive ? left_nn : -1;
}

// One pair (row, column j) of a scan in ascending j: the row's nearest
// neighbour so far (best_d2, best_j) changes only to a strictly nearer column;
// returns whether the pair discards the row (and, in the selection, the column).
template <class Index>
TSM_HD bool visit_pair(double d2, double r2, Index j, double& best_d2, Index& best_j) {
    const bool nearer = d2 < best_d2;
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
TSM_HD bool visit_pair(bool paired, double d2, double r2, Index j, double& best_d2, Index& best_j) {
    const bool nearer = paired & (d2 < best_d2);
    best_d2 = nearer ? d2 : best_d2;
    best_j = nearer ? j : best_j;
    return paired & (d2 < r2);
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
