// discords_detail.h — the arithmetic and the selection rules of PD3 (exact
// range discords) that the CPU path (discords.cpp) and the GPU path
// (kernels/discords.cu) share.  Both call these functions, so both compute the
// same co-moments and squared distances to the last bit and keep the same
// neighbours; only the layout of the work differs (tasks and stack arrays on
// the CPU, warps and registers on the GPU).
//
// Everything here is inline and, under nvcc, __host__ __device__.
//
// Conventions (documented once, here):
//  * Preparation (on the host, for both paths): per window i of N = n − m + 1,
//    the mean μ_i and isd_i = 1/σ_i from the shared window statistics
//    (sliding_detail.h; isd is exactly 0 for a constant window, which is how
//    the scan recognises one), and the recurrence terms df_i, dg_i
//    (comoment_detail.h; df_0 = dg_0 = 0).
//  * Segments: the windows are cut into segments of kSegmentRows consecutive
//    rows (candidates).  A segment scans its columns j in ascending order.  In
//    its first column every row's co-moment C(i, j) is direct
//    (direct_comoment); in the next ones the top row's is direct (PD3's QTcol)
//    and row i's comes from row i − 1 of the previous column by the recurrence
//    (PD3's (9), comoment_next, the row window first).  Every value is at most
//    kSegmentRows − 1 steps from a direct one, and the values depend on the
//    segment length only, not on how a path cuts the columns into tasks or
//    launches (the co-moments at a cut carry over).
//  * Distance (pair_d2): d² = 2m − 2·C·isd_i·isd_j = fma(−C, isd_i·(2·isd_j), 2m);
//    constant windows (STUMPY): both constant 0, one constant m (= √m²).
//  * Selection: candidate selection scans the columns to the right
//    (j ≥ i + e), refinement those to the left (j ≤ i − e), e the exclusion
//    zone.  A pair with d² < r² discards its row (Bitmap.Subseq) and, in the
//    selection, its column (Bitmap.Neighbor); the refinement scans only the
//    candidates, Subseq ∧ Neighbor.  A row's nearest neighbour on a side
//    changes only to a strictly nearer column, so a tie keeps the smaller
//    index; its NN is the nearer of its left and right ones, a tie goes left
//    (the smaller index).
#pragma once

#include <cmath>
#include <cstdint>

#include "comoment_detail.h"
#include "hd.h"
#include "sliding_detail.h"

namespace tsm {
namespace pd3 {

// Rows per segment, on both paths (it decides the rounding, see above).
constexpr int kSegmentRows = 256;

// ---- preparation (host: discords.cpp pd3_prepare) ----------------------------

// Windows [i0, i1) of one stats chunk: mean, isd (0 for a constant window) and
// the constant flag.
TSM_HD void prepare_chunk(const double* x, int m, int64_t i0, int64_t i1, double* mean, double* isd,
                          uint8_t* constant) {
    detail::window_stats_chunk(x, m, i0, i1, mean, nullptr, isd, constant);
}

// The recurrence terms of window i (after prepare_chunk of every window).
TSM_HD void prepare_window(const double* x, const double* mean, int m, int64_t i, double* df, double* dg) {
    if (i == 0) {
        df[0] = dg[0] = 0.0;
        return;
    }
    recurrence_terms(x, mean, m, i, &df[i], &dg[i]);
}

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
