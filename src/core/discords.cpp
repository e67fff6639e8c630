// discords.cpp — exact discords: PD3 on the CPU, the top-k schedule, the
// ranking rule's selection (discords_detail.h), discords from a matrix
// profile, and the C entry points.
//
// PD3 (Kraeva & Zymbler 2023) on the CPU, the same algorithm and, through
// discords_detail.h, the same arithmetic and rules as the GPU path
// (kernels/discords.cu), so both propose the same candidates:
//  1. preprocessing: the matrix profile's preparation of the scaled series
//     and the rough flags (Pd3Prep).
//  2. candidate selection: a task scans one segment of pd3::kSegmentRows rows
//     (candidates) against the columns to its right, j >= a + exclusion, in
//     order, keeping the segment's co-moments in stack arrays (see
//     discords_detail.h for how they are computed).  A pair (i, j) with
//     d < r discards row i (Bitmap.Subseq) and window j (Bitmap.Neighbor),
//     provisionally.  A segment whose rows are all discarded stops early
//     (checked every kAliveCheck columns).
//  3. bitmap conjunction: candidates = Subseq ∧ Neighbor.
//  4. refinement: segments holding candidates scan the columns to their left
//     (i − j >= exclusion) the same way; a candidate with a neighbour closer
//     than r is dropped.
//  The survivors, with their scan neighbours, go to the ranking rule
//  (ExactRanking), which gives each window it needs its exact NN distance;
//  when they would decide the answer, the discards are verified (undone) with
//  exact distances first.
// A segment scans its chunks (discords_detail.h) in order, as a task (the
// GPU reproduces this scan with the chunks in parallel).  The scan of
// a segment is compiled twice, for FMA hardware and without (sweep_fma
// pattern of matrix_profile.cpp): hd::fma is one instruction only where the
// target has it.
#include "discords.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <set>

#include "api_discords.h"
#include "api_matrix_profile.h"
#include "args.h"
#include "discords_detail.h"
#include "dispatch.h"
#include "error.h"
#include "finite.h"
#include "parallel.h"
#include "progress.h"

namespace tsm {

namespace {

// pd3::rough_window of every window, from the last one down (the rule of
// discords_detail.h): reach_w is the smallest norm of a non-flat window in
// [w, min(w + kSegmentRows − 1, R − 1)], R the first rough window after w,
// kept as a sliding minimum whose ends both move down (a monotone deque:
// norms increase from its back, the right end, to its front).
std::vector<uint8_t> rough_windows(const mp::Prepared& P) {
    const int64_t N = P.count;
    std::vector<uint8_t> rough(N, 0);
    std::vector<int64_t> dq(N);  // the deque: indices dq[lo .. hi), descending
    int64_t lo = N, hi = N, next_rough = N;
    for (int64_t w = N - 1; w >= 1; --w) {
        const double nw = mp::window_norm(P.inv_norm[w]);
        if (nw > 0) {
            while (lo < hi && mp::window_norm(P.inv_norm[dq[lo]]) >= nw) ++lo;
            dq[--lo] = w;
        }
        const int64_t end = std::min(w + pd3::kSegmentRows - 1, next_rough - 1);
        while (lo < hi && dq[hi - 1] > end) --hi;
        const double reach = lo < hi ? mp::window_norm(P.inv_norm[dq[hi - 1]]) : INFINITY;
        const double h = mp::step_magnitude(P.inv_norm.data(), P.df.data(), P.dg.data(), w);
        if (pd3::rough_window(h, reach)) {
            rough[w] = 1;
            next_rough = w;
        }
    }
    return rough;
}

}  // namespace

void pd3_prepare(const double* x, int64_t n, int m, int64_t excl, Pd3Prep& p, const TsExec* ex) {
    if (m < 1 || n < m) throw Error(TS_INTERNAL, kInternal, "pd3_prepare: window longer than series");
    p.n = n;
    p.N = n - m + 1;
    p.m = m;
    p.excl = excl;
    p.xe = unit_scaled(x, n);
    mp::prepare(x, n, m, excl, ex, p.mp);
    p.rough = rough_windows(p.mp);
}

namespace {

#define TSM_SCAN_INLINE __attribute__((always_inline)) inline

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kSegmentRows = pd3::kSegmentRows;
// Columns a segment handles as a block: their top-row co-moments are computed
// together (direct_block).
constexpr int kColumnBlock = 8;
// A segment checks whether any row is left (PD3's early termination) after
// each column j with (j − start) % kAliveCheck = kAliveCheck − 1, and at the
// end of a chunk (pd3::plan_chunk: a multiple of kAliveCheck columns from the
// start): pd3::stop_column's groups, so the GPU's merged chunks stop the
// segment at the same column.
constexpr int kAliveCheck = (int)pd3::kCheckColumns;
constexpr int kChains = 4;  // direct co-moments computed in lockstep (direct_block)

// ---- the CPU path of PD3 ----------------------------------------------------

// The prepared arrays the scan reads (Pd3Prep).
struct ScanSeries {
    const double *xs, *mu, *isd, *df, *dg;
    const uint8_t* rough;
    int64_t N, excl;
    int m;
    int64_t chunk;  // the chunks' width (pd3::chunk_columns)
};

ScanSeries scan_series_of(const Pd3Prep& p) {
    const mp::Prepared& P = p.mp;
    return {P.xs.data(), P.mu.data(), P.inv_std.data(), P.df.data(), P.dg.data(), p.rough.data(), p.N, p.excl, p.m,
            pd3::chunk_columns(p.N, p.m)};
}

// What the scan of one side reads and writes (right: candidate selection,
// left: refinement), per window.
struct SideScan {
    const ScanSeries* in;
    bool select;
    double r2;                        // discard below (pd3::discard_below)
    double* best_d2;                  // the side's nearest neighbour so far
    int64_t* best_nn;
    uint8_t* alive;                   // Bitmap.Subseq (the candidates in the refinement)
    std::atomic<uint8_t>* neighbor;   // Bitmap.Neighbor
    std::atomic<int64_t>* col_row;    // the smallest row that discarded the column (pd3::close_row)
};

// Where one chunk's rows keep their state: the side's arrays at the
// segment's first row (chunk 0), or a later chunk's own slot.
struct RowState {
    double* best_d2;
    int64_t* best_nn;
    uint8_t* alive;
};

// A segment's rows while it scans (a task's stack).
struct SegmentRows {
    double comoment_a[kSegmentRows], comoment_b[kSegmentRows];
    double* comoment = comoment_a;  // C(row, current column)
    double* spare = comoment_b;     // the next column's, while it is computed
    double base[kSegmentRows];      // pd3::row_base
    double best_d2[kSegmentRows];
    int64_t best_nn[kSegmentRows];
    uint8_t alive[kSegmentRows];
    int rough_rows[kSegmentRows];   // rows r >= 1 whose window is rough
    int n_rough = 0;
};

TSM_SCAN_INLINE void load_rows(const SideScan& sc, const pd3::SegmentPlan& sp, const RowState& st,
                               SegmentRows& sr) {
    const ScanSeries& p = *sc.in;
    const int64_t a = sp.first_row;
    const double md = p.m, m2 = hd::mul(2.0, md);
    for (int r = 0; r < sp.rows; ++r) {
        sr.comoment[r] = 0.0;  // the chunk's first column takes every row directly
        sr.base[r] = pd3::row_base(p.isd[a + r], md, m2);
        sr.best_d2[r] = st.best_d2[r];
        sr.best_nn[r] = st.best_nn[r];
        sr.alive[r] = st.alive[r];
        if (r > 0 && p.rough[a + r]) sr.rough_rows[sr.n_rough++] = r;
    }
}

TSM_SCAN_INLINE void store_rows(const pd3::SegmentPlan& sp, const SegmentRows& sr, const RowState& st) {
    for (int r = 0; r < sp.rows; ++r) {
        st.best_d2[r] = sr.best_d2[r];
        st.best_nn[r] = sr.best_nn[r];
        st.alive[r] = sr.alive[r];
    }
}

// C(i0 + c·DI, j0 + c·DJ) for c in [0, count) directly.  kChains of them
// run in lockstep (each one term by term as direct_comoment, so with its
// bits), which hides the latency of the fused multiply-add: one chain alone
// waits for it at every term.
template <int DI, int DJ>
TSM_SCAN_INLINE void direct_block(const ScanSeries& p, int64_t i0, int64_t j0, int count, double* out) {
    const double* x = p.xs;
    int c0 = 0;
    for (; c0 + kChains <= count; c0 += kChains) {
        const int64_t i = i0 + c0 * DI, j = j0 + c0 * DJ;
        double acc[kChains], mu_i[kChains], mu_j[kChains];
        for (int c = 0; c < kChains; ++c) {
            acc[c] = 0.0;
            mu_i[c] = p.mu[i + c * DI];
            mu_j[c] = p.mu[j + c * DJ];
        }
        for (int t = 0; t < p.m; ++t)
            for (int c = 0; c < kChains; ++c)
                acc[c] = comoment_term(acc[c], x[i + c * DI + t], mu_i[c], x[j + c * DJ + t], mu_j[c]);
        for (int c = 0; c < kChains; ++c) out[c0 + c] = acc[c];
    }
    for (int c = c0; c < count; ++c)
        out[c] = direct_comoment(x, i0 + c * DI, j0 + c * DJ, p.m, p.mu[i0 + c * DI], p.mu[j0 + c * DJ]);
}

// The co-moments of every row of the segment with column j; top: the top
// row's, computed directly (PD3's QTcol).  Direct for every row in the
// chunk's first column and in a rough column, for the rough rows elsewhere.
TSM_SCAN_INLINE void advance_column(const ScanSeries& p, const pd3::SegmentPlan& sp, int64_t j, double top,
                                    SegmentRows& sr) {
    const int64_t a = sp.first_row;
    if (j == sp.lo || p.rough[j]) {
        direct_block<1, 0>(p, a, j, sp.rows, sr.comoment);
        return;
    }
    const double* __restrict df = p.df + a;
    const double* __restrict dg = p.dg + a;
    const double* __restrict prev = sr.comoment;
    double* __restrict next = sr.spare;
    const double df_j = p.df[j], dg_j = p.dg[j];
    next[0] = top;
    for (int r = 1; r < sp.rows; ++r) next[r] = comoment_next(prev[r - 1], df[r], dg[r], df_j, dg_j);
    for (int t = 0; t < sr.n_rough; ++t) {
        const int r = sr.rough_rows[t];
        next[r] = direct_comoment(p.xs, a + r, j, p.m, p.mu[a + r], p.mu[j]);
    }
    std::swap(sr.comoment, sr.spare);
}

inline void atomic_min(std::atomic<int64_t>& a, int64_t v) {
    int64_t cur = a.load(std::memory_order_relaxed);
    while (v < cur && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
}

// d² of row r of the segment and column j (isd2_j: column_isd2).
template <bool ColumnConstant>
TSM_SCAN_INLINE double row_d2(const double* __restrict isd_rows, int r, double isd2_j, double md,
                              const SegmentRows& sr) {
    return ColumnConstant ? pd3::constant_column_d2(isd_rows[r], md)
                          : pd3::pair_d2(sr.comoment[r], isd_rows[r], sr.base[r], isd2_j);
}

// Rows [lo, hi) of the segment against column j; returns whether a pair
// discarded its row (and so the column).
template <bool ColumnConstant>
TSM_SCAN_INLINE bool visit_column(const double* __restrict isd_rows, int lo, int hi, int64_t j, double isd2_j,
                                  double md, double r2, SegmentRows& sr) {
    bool close = false;
    for (int r = lo; r < hi; ++r) {
        const double d2 = ColumnConstant ? pd3::constant_column_d2(isd_rows[r], md)
                                         : pd3::pair_d2(sr.comoment[r], isd_rows[r], sr.base[r], isd2_j);
        const bool discard = pd3::visit_pair(sr.alive[r] != 0, d2, r2, j, sr.best_d2[r], sr.best_nn[r]);
        close |= discard;
        sr.alive[r] &= (uint8_t)!discard;
    }
    return close;
}

// The smallest row from lo on whose pair with column j discards it (one does).
template <bool ColumnConstant>
TSM_SCAN_INLINE int first_discarding_row(const double* __restrict isd_rows, int lo, double isd2_j, double md,
                                         double r2, const SegmentRows& sr) {
    int r = lo;
    while (!(row_d2<ColumnConstant>(isd_rows, r, isd2_j, md, sr) < r2)) ++r;
    return r;
}

// Column j discarded by some row of [lo, hi): Bitmap.Neighbor cleared, and
// the column's row lowered to the smallest such row (pd3::close_row) — not
// looked for when the row recorded already is no larger than lo's.
inline void record_column(const SideScan& sc, const pd3::SegmentPlan& sp, int64_t j, int lo,
                          const double* __restrict isd_rows, double isd_j, double md, const SegmentRows& sr) {
    sc.neighbor[j].store(0, std::memory_order_relaxed);
    if (sc.col_row[j].load(std::memory_order_relaxed) <= sp.first_row + lo) return;
    const int r = isd_j == 0.0
                      ? first_discarding_row<true>(isd_rows, lo, 0.0, md, sc.r2, sr)
                      : first_discarding_row<false>(isd_rows, lo, pd3::column_isd2(isd_j), md, sc.r2, sr);
    atomic_min(sc.col_row[j], sp.first_row + r);
}

TSM_SCAN_INLINE bool none_alive(const SegmentRows& sr, int rows) {
    bool any = false;
    for (int r = 0; r < rows; ++r) any |= sr.alive[r] != 0;
    return !any;
}

// Scans the chunk's columns [sp.lo, sp.hi) for the segment, its rows' state
// in st; returns whether every row of it was discarded.  Compiled once per
// target (scan_fma / scan_generic).
template <int Target>
TSM_SCAN_INLINE bool scan_body(const SideScan& sc, const pd3::SegmentPlan& sp, const RowState& st) {
    const ScanSeries& p = *sc.in;
    SegmentRows sr;
    load_rows(sc, sp, st, sr);
    const double md = p.m;
    const double* isd_rows = p.isd + sp.first_row;
    double top[kColumnBlock];  // the top row's co-moments with the block's columns
    bool dead = false;
    for (int64_t j = sp.lo; j < sp.hi && !dead; ++j) {
        const int slot = (int)((j - sp.lo) % kColumnBlock);
        if (slot == 0) direct_block<0, 1>(p, sp.first_row, j, (int)std::min<int64_t>(kColumnBlock, sp.hi - j), top);
        advance_column(p, sp, j, top[slot], sr);
        int lo, hi;
        pd3::paired_rows(sc.select, sp, j, p.excl, &lo, &hi);
        const double isd_j = p.isd[j];
        const bool close = isd_j == 0.0
                               ? visit_column<true>(isd_rows, lo, hi, j, 0.0, md, sc.r2, sr)
                               : visit_column<false>(isd_rows, lo, hi, j, pd3::column_isd2(isd_j), md, sc.r2, sr);
        if (sc.select && close) record_column(sc, sp, j, lo, isd_rows, isd_j, md, sr);
        if ((j - sp.start) % kAliveCheck == kAliveCheck - 1 || j + 1 == sp.hi) dead = none_alive(sr, sp.rows);
    }
    store_rows(sp, sr, st);
    return dead;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) bool scan_fma(const SideScan& sc, const pd3::SegmentPlan& sp,
                                                  const RowState& st) {
    return scan_body<0>(sc, sp, st);
}
#endif
bool scan_generic(const SideScan& sc, const pd3::SegmentPlan& sp, const RowState& st) {
    return scan_body<1>(sc, sp, st);
}

// Chunk c of segment s (pd3::plan_chunk), its rows' state in st; returns
// whether the segment is finished (chunk 0: needs no other chunk).
bool scan_chunk(const SideScan& sc, int64_t s, int64_t c, const RowState& st) {
    const ScanSeries& p = *sc.in;
    const pd3::SegmentPlan sp = pd3::plan_chunk(sc.select, s, p.N, p.excl, p.chunk, c);
    bool dead = false;
    if (sp.lo < sp.hi) {
#if defined(__x86_64__)
        if (cpu_has_fma())
            dead = scan_fma(sc, sp, st);
        else
#endif
            dead = scan_generic(sc, sp, st);
    }
    return pd3::segment_finished(sp, dead);
}

class CpuPd3 final : public Pd3Runner {
  public:
    CpuPd3(const Pd3Prep& p, WindowProfiler& exact, TsExec* ex) : in_(scan_series_of(p)), exact_(exact), ex_(ex) {
        N_ = p.N;
        nseg_ = (N_ + kSegmentRows - 1) / kSegmentRows;
        right_d2_.assign(N_, kInf);
        left_d2_.assign(N_, kInf);
        right_nn_.assign(N_, -1);
        left_nn_.assign(N_, -1);
        alive_.assign(N_, 1);
        cand_.assign(N_, 0);
        kept_.assign(N_, 0);
        neighbor_.reset(new std::atomic<uint8_t>[N_]);
        col_row_.reset(new std::atomic<int64_t>[N_]);
        seg_done_.assign(nseg_, 0);
    }

    std::vector<Candidate> run(double r) override {
        reset();
        const double r2 = pd3::discard_below(r);
        scan({&in_, true, r2, right_d2_.data(), right_nn_.data(), alive_.data(), neighbor_.get(),
              col_row_.get()});
        conjunction();
        scan({&in_, false, r2, left_d2_.data(), left_nn_.data(), alive_.data(), neighbor_.get(),
              col_row_.get()});
        std::vector<Candidate> rows;
        for (int64_t i = 0; i < N_; ++i) {
            double d2;
            int64_t nn;
            if (alive_[i] && pd3::nearest_neighbour(left_d2_[i], left_nn_[i], right_d2_[i], right_nn_[i], d2, nn))
                rows.push_back({i, nn});
        }
        return rows;
    }

    // The excluded windows' partners, tried in order (pd3::discard_partners)
    // in batches of exact distances, until one holds or none is left.
    std::vector<std::pair<int64_t, double>> undone(double r) override {
        std::vector<int64_t> win;
        std::vector<std::array<int64_t, 3>> partners;
        for (int64_t i = 0; i < N_; ++i) {
            std::array<int64_t, 3> q;
            pd3::discard_partners(kept_[i], neighbor_[i].load(std::memory_order_relaxed), cand_[i], alive_[i],
                                  right_nn_[i], col_row_[i].load(std::memory_order_relaxed), left_nn_[i], q.data());
            if (q[0] >= 0 || q[1] >= 0 || q[2] >= 0) {
                win.push_back(i);
                partners.push_back(q);
            }
        }
        std::vector<double> least(win.size(), kInf);
        std::vector<uint8_t> holds(win.size(), 0);
        for (int t = 0; t < 3; ++t) {
            std::vector<int64_t> a, b, at;
            for (size_t w = 0; w < win.size(); ++w)
                if (!holds[w] && partners[w][t] >= 0) {
                    a.push_back(win[w]);
                    b.push_back(partners[w][t]);
                    at.push_back((int64_t)w);
                }
            std::vector<double> d(a.size());
            exact_.pair_distances(a.data(), b.data(), (int64_t)a.size(), d.data());
            for (size_t s = 0; s < a.size(); ++s) {
                holds[at[s]] = pd3::discard_holds(d[s], r);
                least[at[s]] = std::min(least[at[s]], d[s]);
            }
        }
        std::vector<std::pair<int64_t, double>> out;
        for (size_t w = 0; w < win.size(); ++w)
            if (!holds[w]) out.push_back({win[w], least[w]});
        return out;
    }

  private:
    void reset() {
        std::fill(right_d2_.begin(), right_d2_.end(), kInf);
        std::fill(left_d2_.begin(), left_d2_.end(), kInf);
        std::fill(right_nn_.begin(), right_nn_.end(), -1);
        std::fill(left_nn_.begin(), left_nn_.end(), -1);
        std::fill(alive_.begin(), alive_.end(), 1);
        for (int64_t i = 0; i < N_; ++i) {
            neighbor_[i].store(1, std::memory_order_relaxed);
            col_row_[i].store(std::numeric_limits<int64_t>::max(), std::memory_order_relaxed);
        }
        std::fill(seg_done_.begin(), seg_done_.end(), 0);
    }

    // Bitmap conjunction (the selection's Subseq kept); segments without
    // candidates skip the refinement.
    void conjunction() {
        std::fill(seg_done_.begin(), seg_done_.end(), 1);
        for (int64_t i = 0; i < N_; ++i) {
            kept_[i] = alive_[i];
            alive_[i] = pd3::candidate(alive_[i], neighbor_[i].load(std::memory_order_relaxed));
            cand_[i] = alive_[i];
            if (alive_[i]) seg_done_[i / kSegmentRows] = 0;
        }
    }

    // Every unfinished segment (a task each), its chunks in order with the
    // rows' state carried over, until it is finished (discords_detail.h,
    // "Chunks": the sequential scan the GPU's parallel chunks reproduce).
    void scan(const SideScan& sc) {
        parallel_for(ex_, nseg_, [&](int64_t s) {
            if (seg_done_[s]) return;
            const int64_t a = s * kSegmentRows;
            const RowState st{sc.best_d2 + a, sc.best_nn + a, sc.alive + a};
            for (int64_t c = 0; !scan_chunk(sc, s, c, st); ++c) {
            }
            seg_done_[s] = 1;
        });
    }

    const ScanSeries in_;
    WindowProfiler& exact_;
    TsExec* ex_;
    int64_t N_ = 0, nseg_ = 0;
    std::vector<double> right_d2_, left_d2_;  // NN d² right / left
    std::vector<int64_t> right_nn_, left_nn_;         // NN indices
    std::vector<uint8_t> alive_, kept_, cand_, seg_done_;  // kept_: Subseq after the selection; cand_: candidates
    std::unique_ptr<std::atomic<uint8_t>[]> neighbor_;
    std::unique_ptr<std::atomic<int64_t>[]> col_row_;
};

}  // namespace

std::unique_ptr<Pd3Runner> make_cpu_pd3(const Pd3Prep& p, WindowProfiler& exact, TsExec* ex) {
    return std::unique_ptr<Pd3Runner>(new CpuPd3(p, exact, ex));
}

// ---- the ranking rule (discords_detail.h) -------------------------------------

namespace {

constexpr int64_t kNoPosition = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxBatch = 64;  // windows refined together

// Every window beyond the boundary has E < r.
bool beyond_is_below(RankKey boundary, double r) {
    return boundary.v < r || (boundary.v == r && boundary.pos == kNoPosition);
}

// A chosen window within m − 1 of pos.
bool overlaps(const std::set<int64_t>& chosen, int64_t pos, int m) {
    auto it = chosen.lower_bound(pos - m + 1);
    return it != chosen.end() && *it < pos + m;
}

}  // namespace

// The heap's top ranks first; a window whose E is known is the next answer,
// one whose E is not gets it (in a batch) and goes back.
bool ExactRanking::select(const std::vector<std::pair<int64_t, double>>& cands, RankKey boundary,
                          RankedDiscords& out) {
    out = RankedDiscords{};
    const bool range = !std::isnan(r_);
    auto later = [](const Entry& a, const Entry& b) { return ranks_before(b.key, a.key); };
    std::vector<Entry> heap;
    heap.reserve(cands.size());
    for (const auto& c : cands) {
        const auto it = known_.find(c.first);
        if (it == known_.end()) heap.push_back({{c.second, c.first}, false});
        else if (it->second.nn >= 0) heap.push_back({{it->second.d, c.first}, true});
    }
    std::make_heap(heap.begin(), heap.end(), later);
    std::set<int64_t> chosen;
    int misses = 0;  // batches refined since the last answer: each doubles the next one
    for (;;) {
        const int64_t left = k_ < 0 ? kMaxBatch : k_ - (int64_t)out.pos.size();
        if (left <= 0) return true;
        if (heap.empty()) return range ? beyond_is_below(boundary, r_) : boundary.v == -INFINITY;
        const Entry top = heap.front();
        if (range && top.key.v < r_) return beyond_is_below(boundary, r_);
        if (ranks_before(boundary, top.key)) return false;  // a window beyond it may rank first
        if (!range && overlaps(chosen, top.key.pos, m_)) {  // it ranks after the chosen one
            std::pop_heap(heap.begin(), heap.end(), later);
            heap.pop_back();
            continue;
        }
        if (!top.exact) {
            // left windows, more after each batch that gave no answer (near-ties:
            // a periodic series needs most windows' E, and one window a call
            // leaves the GPU's searches one block wide and the CPU's one thread)
            const int64_t want = std::min<int64_t>(kMaxBatch, std::max<int64_t>(1, left) << std::min(misses, 6));
            refine(heap, take_batch(heap, boundary, chosen, (size_t)want),
                   std::max({boundary.v, range ? r_ : -INFINITY, answer_floor()}));
            ++misses;
            continue;
        }
        misses = 0;
        std::pop_heap(heap.begin(), heap.end(), later);
        heap.pop_back();
        const Exact& e = known_.at(top.key.pos);
        out.pos.push_back(top.key.pos);
        out.dist.push_back(e.d);
        out.nn.push_back(e.nn);
        if (!range) chosen.insert(top.key.pos);
    }
}

// Windows of unknown E from the top of the heap (popped), at most limit; in
// top-k mode none within m − 1 of a chosen one (dropped: they rank after
// it) or of another in the batch (put back: one of them ranks first).
std::vector<ExactRanking::Entry> ExactRanking::take_batch(std::vector<Entry>& heap, RankKey boundary,
                                                          const std::set<int64_t>& chosen, size_t limit) const {
    const bool range = !std::isnan(r_);
    auto later = [](const Entry& a, const Entry& b) { return ranks_before(b.key, a.key); };
    std::vector<Entry> batch, deferred;
    std::set<int64_t> taken;
    while (batch.size() < limit && !heap.empty()) {
        const Entry e = heap.front();
        if (e.exact || ranks_before(boundary, e.key) || (range && e.key.v < r_)) break;
        std::pop_heap(heap.begin(), heap.end(), later);
        heap.pop_back();
        if (!range && overlaps(chosen, e.key.pos, m_)) continue;
        if (!range && overlaps(taken, e.key.pos, m_)) {
            deferred.push_back(e);
            continue;
        }
        batch.push_back(e);
        taken.insert(e.key.pos);
    }
    for (const Entry& e : deferred) {
        heap.push_back(e);
        std::push_heap(heap.begin(), heap.end(), later);
    }
    return batch;
}

// A value the k-th answer reaches, from the windows whose E is known (−inf
// when they do not tell): in top-k mode the E of the (2k − 1)-th of them
// taken greedily without overlap — each of the first k − 1 picks overlaps at
// most two windows of such a set, so one of them is still free for the k-th;
// in range mode the k-th largest E.  A window below it is no answer.
double ExactRanking::answer_floor() {
    const bool range = !std::isnan(r_);
    if (k_ < 0) return -INFINITY;
    const size_t need = (size_t)(range ? k_ : 2 * k_ - 1);
    // Any set of known distances gives a valid floor: the walk (linear in the
    // known windows when most overlap, as on a periodic series) is redone
    // only after they grew by an eighth, so its cost stays linear in all.
    if (ranked_.size() < need || ranked_.size() < floor_size_ + floor_size_ / 8 + 1) return floor_;
    floor_size_ = ranked_.size();
    std::set<int64_t> taken;
    for (const RankKey& key : ranked_) {
        if (!range && overlaps(taken, key.pos, m_)) continue;
        taken.insert(key.pos);
        if (taken.size() == need) return floor_ = std::max(floor_, key.v);
    }
    return floor_;
}

// A window's exact NN distance (nn < 0: it has no admissible window).
void ExactRanking::remember(int64_t w, double d, int64_t nn) {
    const auto it = known_.find(w);
    if (it != known_.end() && it->second.nn >= 0) ranked_.erase({it->second.d, w});
    known_[w] = {d, nn};
    if (nn >= 0) ranked_.insert({d, w});
}

// The batch's exact NN distances (remembered), back into the heap.  A window
// found below floor is left out: floor is the largest of the boundary's value
// (such a window ranks after the boundary, like every window not proposed),
// min_distance in range mode and answer_floor (it is no answer).
void ExactRanking::refine(std::vector<Entry>& heap, const std::vector<Entry>& batch, double floor) {
    auto later = [](const Entry& a, const Entry& b) { return ranks_before(b.key, a.key); };
    const int64_t count = (int64_t)batch.size();
    std::vector<int64_t> w(count), nn(count);
    std::vector<double> upper(count), d(count);
    for (int64_t t = 0; t < count; ++t) {
        w[t] = batch[t].key.pos;
        upper[t] = batch[t].key.v;
    }
    prof_.nearest(w.data(), count, excl_, upper.data(), floor, d.data(), nn.data());
    for (int64_t t = 0; t < count; ++t) {
        if (d[t] < floor) continue;  // E < floor, not necessarily d[t]
        remember(w[t], d[t], nn[t]);
        if (nn[t] < 0) continue;  // no admissible window: never reported
        heap.push_back({{d[t], w[t]}, true});
        std::push_heap(heap.begin(), heap.end(), later);
    }
}

namespace {

// Each candidate with u = d(window, partner), its upper bound.
std::vector<std::pair<int64_t, double>> with_upper_bounds(const std::vector<Candidate>& cands,
                                                          WindowProfiler& prof) {
    const int64_t count = (int64_t)cands.size();
    std::vector<int64_t> a(count), b(count);
    std::vector<double> u(count);
    for (int64_t t = 0; t < count; ++t) {
        a[t] = cands[t].pos;
        b[t] = cands[t].partner;
    }
    prof.pair_distances(a.data(), b.data(), count, u.data());
    std::vector<std::pair<int64_t, double>> out(count);
    for (int64_t t = 0; t < count; ++t) out[t] = {a[t], u[t]};
    return out;
}

}  // namespace

// Top-k mode's schedule for r (DRAG/MERLIN style): the largest possible NN
// distance is 2√m (ρ = −1), so r starts there and falls by 10% a step:
// r_t = 2√m · 0.9^t.  Each step runs PD3 with r_t, which proposes every
// window whose NN distance is >= r_t; the ranking rule decides from them
// (with the boundary r_t: every other window is below it) as soon as k
// windows at or above r_t are found.  Once r_t < 0.01·√m the next step uses
// r = 0 (exhaustive: every window), which ends the schedule.  A high r is
// cheap (candidates are discarded at once), so the cost is that of the last
// step or two; the exact NN distances found in one step serve the next.  A
// k of ceil(N / m) or more (windows m apart: no series holds more) can only
// end at r = 0, so the schedule starts there: the same rows, without the ~50
// steps down to it, whose low ones cost as much as r = 0 itself.
RankedDiscords pd3_discords(const double* x, int64_t n, int m, int64_t k, double min_distance, int64_t excl,
                            TsExec* ex) {
    Pd3Prep p;
    pd3_prepare(x, n, m, excl, p, ex);
    const bool on_gpu = use_gpu(ex, TS_WORK_DISCORDS, n, m);
    std::unique_ptr<WindowProfiler> prof = make_profiler(p.xe.data(), n, m, ex, on_gpu);
    std::unique_ptr<Pd3Runner> runner;
#ifdef TSMINE_WITH_CUDA
    if (on_gpu) runner = gpu::make_pd3(p, ex);
#endif
    if (!runner) runner = make_cpu_pd3(p, *prof, ex);
    ExactRanking ranking(*prof, m, excl, k, min_distance);
    RankedDiscords out;
    const bool range = !std::isnan(min_distance);
    const double top = 2.0 * std::sqrt((double)m);
    const int64_t N = n - m + 1;
    const double r0 = k >= (N + m - 1) / m ? 0.0 : top;  // more than the series holds: every window
    for (double r = range ? min_distance : r0;;) {
        auto cands = with_upper_bounds(runner->run(r), *prof);
        check_interrupt(ex);
        const RankKey boundary = r > 0 ? RankKey{r, kNoPosition} : kNoBoundary;
        // The discards are verified (r = 0 discards nothing) in range mode and
        // where some window survived: a step without survivors needs a lower
        // r (a window the scan discarded wrongly could only add answers).
        const bool decided = !range && ranking.select(cands, boundary, out);
        if (range || !cands.empty()) {
            const auto undone = r > 0 ? runner->undone(r) : std::vector<std::pair<int64_t, double>>{};
            check_interrupt(ex);
            if (decided && undone.empty()) return out;
            cands.insert(cands.end(), undone.begin(), undone.end());
            if (ranking.select(cands, boundary, out)) return out;
            if (range || decided) throw Error(TS_INTERNAL, kInternal, "PD3: the ranking found no answer");
        }
        r *= 0.9;
        if (r < 0.005 * top) r = 0;
    }
}

namespace {

// The `limit` windows that rank first by u among those with an admissible
// window (|i − j| >= excl) and (range mode) u >= min_distance, by a bounded
// heap: O(count · log limit) time and O(limit) memory.  The heap sees only
// the blocks that can hold such a window: with B the limit-th largest of the
// blocks' maxima, at least `limit` windows are >= B, so every one of the
// answer is >= B and lies in a block whose maximum is >= B.  The maxima take
// one pass at memory speed.
std::vector<RankKey> best_rows(const double* u, int64_t count, int64_t excl, double min_distance, size_t limit) {
    const bool range = !std::isnan(min_distance);
    auto key = [&](int64_t i) {  // the u of an eligible window, else −1
        const double d = u[i];
        const bool ok = (i >= excl || i + excl < count) && (!range || d >= min_distance);
        return ok ? d : -1.0;
    };
    constexpr int64_t kBlock = 64;
    const int64_t nb = (count + kBlock - 1) / kBlock;
    std::vector<double> bmax(nb);
    for (int64_t b = 0; b < nb; ++b) {
        const int64_t e = std::min(count, (b + 1) * kBlock);
        double mx = -1.0;
        for (int64_t i = b * kBlock; i < e; ++i) mx = std::max(mx, key(i));
        bmax[b] = mx;
    }
    double floor_max = 0.0;  // blocks below it cannot hold a window of the answer
    if ((size_t)nb > limit) {
        std::vector<double> t(bmax);
        std::nth_element(t.begin(), t.begin() + (limit - 1), t.end(), std::greater<double>());
        floor_max = std::max(0.0, t[limit - 1]);
    }
    auto later = [](const RankKey& a, const RankKey& b) { return ranks_before(a, b); };
    std::vector<RankKey> heap;  // front() ranks last among those kept
    heap.reserve(limit);
    for (int64_t b = 0; b < nb; ++b) {
        if (!(bmax[b] >= floor_max)) continue;
        const int64_t e = std::min(count, (b + 1) * kBlock);
        for (int64_t i = b * kBlock; i < e; ++i) {
            const double d = key(i);
            if (d < 0) continue;
            const RankKey row{d, i};
            if (heap.size() < limit) {
                heap.push_back(row);
                std::push_heap(heap.begin(), heap.end(), later);
            } else if (ranks_before(row, heap.front())) {
                std::pop_heap(heap.begin(), heap.end(), later);
                heap.back() = row;
                std::push_heap(heap.begin(), heap.end(), later);
            }
        }
    }
    return heap;
}

}  // namespace

// Every window with an admissible window is a candidate, with
// u = d(i, its profile neighbour) (whatever the profile's rounding: a
// neighbour it names is admissible, so u ≥ E).  The greedy selection reads
// only a prefix of the rank order, so the ranking first sees the T windows
// with the largest u (T ≥ k; a pick hides at most 2m − 2 overlapping
// windows) and every other window beyond the T-th; T widens only when that
// does not decide the answer.
RankedDiscords rank_from_profile(WindowProfiler& prof, int64_t N, int m, const int64_t* profile_index, int64_t k,
                                 double min_distance, int64_t excl, const TsExec* ex, const uint8_t* gap) {
    std::vector<double> u(N);  // +inf where the profile names no neighbour (only its E can tell)
    prof.pair_distances(nullptr, profile_index, N, u.data());
    if (gap)
        for (int64_t i = 0; i < N; ++i)
            if (gap[i]) u[i] = -INFINITY;  // no candidate (best_rows skips u < 0)
    ExactRanking ranking(prof, m, excl, k, min_distance);
    const bool range = !std::isnan(min_distance);
    size_t limit = (size_t)(k >= 0 ? std::min<int64_t>(N, std::max<int64_t>(256, 4 * k)) : N);
    RankedDiscords out;
    for (;;) {
        const std::vector<RankKey> rows = best_rows(u.data(), N, excl, min_distance, limit);
        const bool all = rows.size() < limit || (int64_t)limit >= N;
        RankKey boundary = range ? RankKey{min_distance, kNoPosition} : kNoBoundary;
        if (!all) boundary = rows.front();
        std::vector<std::pair<int64_t, double>> cands(rows.size());
        for (size_t t = 0; t < rows.size(); ++t) cands[t] = {rows[t].pos, rows[t].v};
        check_interrupt(ex);
        if (ranking.select(cands, boundary, out)) return out;
        if (all) throw Error(TS_INTERNAL, kInternal, "discords: the ranking found no answer");
        limit = (size_t)std::min<int64_t>(N, (int64_t)limit * 8);
    }
}

RankedDiscords discords_from_profile(const double* x, int64_t n, int m, const int64_t* profile_index, int64_t k,
                                     double min_distance, int64_t excl, TsExec* ex, bool raw) {
    mp::GapPlan gaps;
    const uint8_t* gap = mp::plan_gaps(x, n, m, gaps) ? gaps.gap.data() : nullptr;
    const ScaledProfiler sp = make_scaled_profiler(x, n, m, ex, use_gpu(ex, TS_WORK_DISCORDS, n, m), raw);
    if (!raw) return rank_from_profile(*sp.prof, n - m + 1, m, profile_index, k, min_distance, excl, ex, gap);
    // raw values: the ranking in unit_scaled(x)'s units, min_distance too
    const int e = sp.exponent;
    const double r = std::isnan(min_distance) ? min_distance : mp::scale_any(min_distance, e);
    RankedDiscords out = rank_from_profile(*sp.prof, n - m + 1, m, profile_index, k, r, excl, ex, gap);
    for (double& d : out.dist) d = raw_distance_unscaled(d, e);
    return out;
}

}  // namespace tsm

namespace {

// The checks of k and min_distance that every discord entry makes (after
// m's): k as the methods take it (-1: all).  function names the SQL function
// in the hint of a missing k.
int64_t check_k_and_distance(int64_t k, double min_distance, const char* function) {
    const bool range = tsm::args::distance_limit(
        min_distance, "min_distance",
        "min_distance is a Euclidean distance: z-normalised, between 0 and 2 sqrt(m); with normalized => false, "
        "in the data's units.");
    if (range)
        k = tsm::args::k_or_all(k);
    else
        k = tsm::args::top_k(k, tsm::format("Without min_distance, %s returns the top k discords: give k, or give "
                                            "min_distance for all range discords.",
                                            function)
                                    .c_str());
    return k == TS_ARG_NULL ? -1 : k;
}

void emit(const tsm::RankedDiscords& r, TsExec* ex, TsDiscords* out) {
    const int64_t c = (int64_t)r.pos.size();
    out->pos = tsm::alloc_result<int64_t>(ex, c);
    out->dist = tsm::alloc_result<double>(ex, c);
    out->neighbor = tsm::alloc_result<int64_t>(ex, c);
    for (int64_t i = 0; i < c; ++i) {
        out->pos[i] = r.pos[i];
        out->dist[i] = r.dist[i];
        out->neighbor[i] = r.nn[i];
    }
    out->count = c;
}

}  // namespace

namespace {
int discords_by_profile(const double* x, int64_t n, int32_t m, int64_t k, double min_distance, int64_t exclusion,
                        int32_t normalize, TsExec* ex, TsDiscords* out, TsStatus* st);

bool has_gaps(const double* x, int64_t n) { return x && n > 0 && tsm::first_nonfinite(x, n) >= 0; }
}  // namespace

extern "C" int tsm_discords_pd3(const double* x, int64_t n, int32_t m, int64_t k, double min_distance,
                                int64_t exclusion, TsExec* ex, TsDiscords* out, TsStatus* st) noexcept {
    if (has_gaps(x, n)) {  // tsm_discords says why
        const int code = tsm::guard(st, [&] {
            tsm::args::window(m);
            check_k_and_distance(k, min_distance, "ts_discords");
            exclusion = tsm::args::exclusion(exclusion, m);
        });
        if (code != TS_OK) return code;
        ex->used_method = "matrix_profile";
        return discords_by_profile(x, n, m, k, min_distance, exclusion, 1, ex, out, st);
    }
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        ex->used_backend = TS_BACKEND_CPU;
        tsm::args::window(m);
        const int64_t limit = check_k_and_distance(k, min_distance, "ts_discords");
        const int64_t excl = tsm::check_profile_args(x, n, m, tsm::args::exclusion(exclusion, m));
        emit(tsm::pd3_discords(x, n, m, limit, min_distance, excl, ex), ex, out);
    });
}

extern "C" int tsm_discords_from_profile(const double* x, int64_t n, int32_t m, const int64_t* index, int64_t k,
                                         double min_distance, int64_t exclusion, int32_t normalize, TsExec* ex,
                                         TsDiscords* out, TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        tsm::args::window(m);
        const int64_t limit = check_k_and_distance(k, min_distance, "ts_discords");
        const int64_t excl = tsm::check_profile_args(x, n, m, tsm::args::exclusion(exclusion, m));
        if (!index) tsm::invalid("the matrix profile is missing");
        const int64_t N = n - m + 1;
        for (int64_t i = 0; i < N; ++i)
            if (index[i] < -1 || index[i] >= N)
                tsm::invalid(tsm::format("matrix profile index %lld at position %lld is out of range",
                                         (long long)index[i], (long long)i));
        emit(tsm::discords_from_profile(x, n, m, index, limit, min_distance, excl, ex, normalize == 0), ex, out);
    });
}

namespace {

// Discords by way of the matrix profile: the profile (its own checks,
// backend and timings), then the ranking rule over its neighbours.
int discords_by_profile(const double* x, int64_t n, int32_t m, int64_t k, double min_distance,
                        int64_t exclusion, int32_t normalize, TsExec* ex, TsDiscords* out, TsStatus* st) {
    TsProfile p;
    const int code = tsm_matrix_profile(x, n, m, exclusion, normalize, ex, &p, st);
    if (code != TS_OK) return code;
    const int profile_backend = ex->used_backend;
    const int done =
        tsm_discords_from_profile(x, n, m, p.index, k, min_distance, exclusion, normalize, ex, out, st);
    ex->used_backend = profile_backend;  // the method's main work
    return done;
}

}  // namespace

extern "C" int tsm_discords(const double* x, int64_t n, int32_t m, int64_t k, double min_distance,
                            int64_t exclusion, const char* method, int32_t normalize, TsExec* ex, TsDiscords* out,
                            TsStatus* st) noexcept {
    std::memset(out, 0, sizeof *out);
    int chosen = TS_DISCORDS_AUTO;
    // the checks both methods make, before the profile is computed
    const int code = tsm::guard(st, [&] {
        tsm::args::window(m);
        check_k_and_distance(k, min_distance, "ts_discords");
        exclusion = tsm::args::exclusion(exclusion, m);
        chosen = tsm::args::choice(method, "method", tsm::args::kDiscordMethods, 3);
        if (!normalize && chosen == TS_DISCORDS_PD3)  // PD3 scans z-normalised windows only
            throw tsm::Error(TS_INVALID_ARGUMENT, tsm::kFeatureNotSupported,
                             "method pd3 does not support normalized => false",
                             "Use method => 'matrix_profile' or 'auto' for raw-value distances.");
    });
    if (code != TS_OK || n == 0) return code;  // an empty series has no windows
    // A series with gaps (NaN, ±Infinity) takes the matrix profile, whose
    // windows with gaps are no candidates and no neighbours: the rows of the
    // same ranking rule (tsm_discords_pd3 does the same).
    if (chosen == TS_DISCORDS_PD3 && !has_gaps(x, n)) {
        ex->used_method = "pd3";
        tsm::progress_unknown(ex);  // PD3's pruning depends on the data
        return tsm_discords_pd3(x, n, m, k, min_distance, exclusion, ex, out, st);
    }
    // auto: the matrix profile, which bench/discords.sh measured faster than
    // PD3 for top-k and range discords alike, on the GPU and on the CPU, on
    // every series tried (bench/RESULTS.md).
    ex->used_method = "matrix_profile";
    return discords_by_profile(x, n, m, k, min_distance, exclusion, normalize, ex, out, st);
}

extern "C" int tsm_discords_from_tiles(const double* x, int64_t n, const int64_t* merged, int64_t words, int64_t k,
                                       double min_distance, TsExec* ex, TsDiscords* out, TsStatus* st) noexcept {
    std::memset(out, 0, sizeof *out);
    const int code = tsm::guard(st, [&] { check_k_and_distance(k, min_distance, "ts_discords_from_tiles"); });
    if (code != TS_OK) return code;
    tsm::mp::TiledProfile t;
    if (tsm::mp::profile_from_tiles(x, n, merged, words, ex, t, st) != TS_OK) return st->code;
    const int profile_backend = ex->used_backend;
    tsm_discords_from_profile(x, n, t.m, t.profile.index, k, min_distance, t.exclusion, t.normalize, ex, out, st);
    ex->used_backend = profile_backend;  // the profile's backend tells
    return st->code;
}
