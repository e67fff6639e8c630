// discords.cpp — exact discords: PD3 on the CPU, the top-k schedule, the
// ranking/selection rules and the C entry points.
//
// PD3 (Kraeva & Zymbler 2023) on the CPU, the same algorithm and, through
// discords_detail.h, the same arithmetic and rules as the GPU path
// (kernels/discords.cu), so both find the same d² and neighbours:
//  1. preprocessing: window means, 1/σ and the recurrence terms (Pd3Prep).
//  2. candidate selection: a task scans one segment of pd3::kSegmentRows rows
//     (candidates) against the columns to its right, j >= a + exclusion, in
//     order, keeping the segment's co-moments in stack arrays (see
//     discords_detail.h for how they are computed).  A pair (i, j) with
//     d < r discards row i (Bitmap.Subseq) and window j (Bitmap.Neighbor).  A
//     segment whose rows are all discarded stops early (checked every
//     kColumnBlock columns).  Surviving rows saw every right-hand
//     neighbour, so they also know their exact nearest right neighbour.
//  3. bitmap conjunction: candidates = Subseq ∧ Neighbor.
//  4. refinement: segments holding candidates scan the columns to their left
//     (i − j >= exclusion) the same way; a candidate with a neighbour closer
//     than r is dropped, the others get their exact nearest left neighbour.
//     NN = the nearer of left and right (a tie goes left: smaller index).
// Long scans are cut into column windows (≲ 50 ms of work per task); the
// co-moments of a segment's rows at the last column carry over.  The scan of
// a segment is compiled twice, for FMA hardware and without (sweep_fma
// pattern of matrix_profile.cpp): hd::fma is one instruction only where the
// target has it.
#include "discords.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <set>

#include "api_discords.h"
#include "api_matrix_profile.h"
#include "discords_detail.h"
#include "dispatch.h"
#include "error.h"
#include "finite.h"
#include "parallel.h"
#include "progress.h"
#include "sliding.h"

namespace tsm {

void pd3_prepare(const double* x, int64_t n, int m, int64_t excl, Pd3Prep& p, const TsExec* ex) {
    if (m < 1 || n < m) throw Error(TS_INTERNAL, kInternal, "pd3_prepare: window longer than series");
    const int64_t N = n - m + 1;
    p.x = x;
    p.n = n;
    p.N = N;
    p.m = m;
    p.excl = excl;
    p.mean.resize(N);
    p.isd.resize(N);
    p.constant.resize(N);
    for_each_stats_chunk(ex, N, [&](int64_t i0, int64_t i1) {
        pd3::prepare_chunk(x, m, i0, i1, p.mean.data(), p.isd.data(), p.constant.data());
    });
    p.df.resize(N);
    p.dg.resize(N);
    const int64_t blocks = (N + kStatsBlock - 1) / kStatsBlock;
    parallel_for(ex, blocks, [&](int64_t b) {
        const int64_t i1 = std::min(N, (b + 1) * kStatsBlock);
        for (int64_t i = b * kStatsBlock; i < i1; ++i)
            pd3::prepare_window(x, p.mean.data(), m, i, p.df.data(), p.dg.data());
    });
}

// Fully direct: both windows' means two-pass (the shared exact restart of
// the window statistics, relative to the window's first value: exact for
// offset data), then the centred co-moment and spreads; the reported
// distances do not depend on the sliding statistics.
double pair_distance(const Pd3Prep& p, int64_t i, int64_t j) {
    if (j < i) std::swap(i, j);  // symmetric to the last bit: d(i, j) == d(j, i)
    const bool ci = p.constant[i], cj = p.constant[j];
    if (ci && cj) return 0.0;
    if (ci || cj) return std::sqrt((double)p.m);
    const double* a = p.x + i;
    const double* b = p.x + j;
    const int m = p.m;
    double ma, mb, sd_unused;
    detail::stats_restart(a, 0, m, a[0], ma, sd_unused);
    detail::stats_restart(b, 0, m, b[0], mb, sd_unused);
    double c = 0, qa = 0, qb = 0;
    for (int k = 0; k < m; ++k) {
        double u = (a[k] - a[0]) - ma, v = (b[k] - b[0]) - mb;
        c += u * v;
        qa += u * u;
        qb += v * v;
    }
    if (!(qa > 0) || !(qb > 0)) return std::sqrt((double)m);  // spread lost in rounding
    double d2 = 2.0 * m * (1.0 - c / std::sqrt(qa * qb));
    if (d2 < 0) d2 = 0;
    if (d2 > 4.0 * m) d2 = 4.0 * m;
    return std::sqrt(d2);
}

namespace {

#define TSM_SCAN_INLINE __attribute__((always_inline)) inline

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kSegmentRows = pd3::kSegmentRows;
// Columns a segment handles as a block: their top-row co-moments are computed
// together (direct_block), and after each block the segment checks whether
// any row is left (PD3's early termination).
constexpr int kColumnBlock = 8;
constexpr int kChains = 4;  // direct co-moments computed in lockstep (direct_block)

// ---- the CPU path of PD3 ----------------------------------------------------

// What the scan of one side reads and writes (right: candidate selection,
// left: refinement), per window.
struct SideScan {
    const Pd3Prep* prep;
    bool select;
    double r2;                        // discard below (pd3::discard_below)
    double* carry;                    // C(row, last column scanned), between column windows
    double* best_d2;                  // the side's nearest neighbour so far
    int64_t* best_nn;
    uint8_t* alive;                   // Bitmap.Subseq (the candidates in the refinement)
    std::atomic<uint8_t>* neighbor;   // Bitmap.Neighbor
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
};

TSM_SCAN_INLINE void load_rows(const SideScan& sc, const pd3::SegmentPlan& sp, SegmentRows& sr) {
    const Pd3Prep& p = *sc.prep;
    const int64_t a = sp.first_row;
    const double md = p.m, m2 = hd::mul(2.0, md);
    for (int r = 0; r < sp.rows; ++r) {
        sr.comoment[r] = sp.lo > sp.start ? sc.carry[a + r] : 0.0;
        sr.base[r] = pd3::row_base(p.isd[a + r], md, m2);
        sr.best_d2[r] = sc.best_d2[a + r];
        sr.best_nn[r] = sc.best_nn[a + r];
        sr.alive[r] = sc.alive[a + r];
    }
}

TSM_SCAN_INLINE void store_rows(const SideScan& sc, const pd3::SegmentPlan& sp, const SegmentRows& sr) {
    const int64_t a = sp.first_row;
    for (int r = 0; r < sp.rows; ++r) {
        sc.carry[a + r] = sr.comoment[r];
        sc.best_d2[a + r] = sr.best_d2[r];
        sc.best_nn[a + r] = sr.best_nn[r];
        sc.alive[a + r] = sr.alive[r];
    }
}

// C(i0 + c·DI, j0 + c·DJ) for c in [0, count) directly.  kChains of them
// run in lockstep (each one term by term as direct_comoment, so with its
// bits), which hides the latency of the fused multiply-add: one chain alone
// waits for it at every term.
template <int DI, int DJ>
TSM_SCAN_INLINE void direct_block(const Pd3Prep& p, int64_t i0, int64_t j0, int count, double* out) {
    const double* x = p.x;
    int c0 = 0;
    for (; c0 + kChains <= count; c0 += kChains) {
        const int64_t i = i0 + c0 * DI, j = j0 + c0 * DJ;
        double acc[kChains], mu_i[kChains], mu_j[kChains];
        for (int c = 0; c < kChains; ++c) {
            acc[c] = 0.0;
            mu_i[c] = p.mean[i + c * DI];
            mu_j[c] = p.mean[j + c * DJ];
        }
        for (int t = 0; t < p.m; ++t)
            for (int c = 0; c < kChains; ++c)
                acc[c] = comoment_term(acc[c], x[i + c * DI + t], mu_i[c], x[j + c * DJ + t], mu_j[c]);
        for (int c = 0; c < kChains; ++c) out[c0 + c] = acc[c];
    }
    for (int c = c0; c < count; ++c)
        out[c] = direct_comoment(x, i0 + c * DI, j0 + c * DJ, p.m, p.mean[i0 + c * DI], p.mean[j0 + c * DJ]);
}

// The co-moments of every row of the segment with column j; top: the top
// row's, computed directly (PD3's QTcol).
TSM_SCAN_INLINE void advance_column(const Pd3Prep& p, const pd3::SegmentPlan& sp, int64_t j, double top,
                                    SegmentRows& sr) {
    const int64_t a = sp.first_row;
    if (j == sp.start) {  // the segment's first column: every row directly
        direct_block<1, 0>(p, a, j, sp.rows, sr.comoment);
        return;
    }
    const double* __restrict df = p.df.data() + a;
    const double* __restrict dg = p.dg.data() + a;
    const double* __restrict prev = sr.comoment;
    double* __restrict next = sr.spare;
    const double df_j = p.df[j], dg_j = p.dg[j];
    next[0] = top;
    for (int r = 1; r < sp.rows; ++r) next[r] = comoment_next(prev[r - 1], df[r], dg[r], df_j, dg_j);
    std::swap(sr.comoment, sr.spare);
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
        const bool discard = pd3::visit_pair(d2, r2, j, sr.best_d2[r], sr.best_nn[r]);
        close |= discard;
        sr.alive[r] &= (uint8_t)!discard;
    }
    return close;
}

TSM_SCAN_INLINE bool none_alive(const SegmentRows& sr, int rows) {
    bool any = false;
    for (int r = 0; r < rows; ++r) any |= sr.alive[r] != 0;
    return !any;
}

// Scans the columns [sp.lo, sp.hi) for the segment; returns whether every
// row of it was discarded.  Compiled once per target (scan_fma / scan_generic).
template <int Target>
TSM_SCAN_INLINE bool scan_body(const SideScan& sc, const pd3::SegmentPlan& sp) {
    const Pd3Prep& p = *sc.prep;
    SegmentRows sr;
    load_rows(sc, sp, sr);
    const double md = p.m;
    const double* isd_rows = p.isd.data() + sp.first_row;
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
        if (sc.select && close) sc.neighbor[j].store(0, std::memory_order_relaxed);
        if (slot == kColumnBlock - 1 || j + 1 == sp.hi) dead = none_alive(sr, sp.rows);
    }
    store_rows(sc, sp, sr);
    return dead;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) bool scan_fma(const SideScan& sc, const pd3::SegmentPlan& sp) {
    return scan_body<0>(sc, sp);
}
#endif
bool scan_generic(const SideScan& sc, const pd3::SegmentPlan& sp) { return scan_body<1>(sc, sp); }

// Segment s within the column window [c_lo, c_hi); returns whether it is finished.
bool scan_segment(const SideScan& sc, int64_t s, int64_t c_lo, int64_t c_hi) {
    const Pd3Prep& p = *sc.prep;
    const pd3::SegmentPlan sp = pd3::plan_segment(sc.select, s, p.N, p.excl, c_lo, c_hi);
    bool dead = false;
    if (sp.lo < sp.hi) {
#if defined(__x86_64__)
        if (cpu_has_fma())
            dead = scan_fma(sc, sp);
        else
#endif
            dead = scan_generic(sc, sp);
    }
    return pd3::segment_finished(sp, dead);
}

class CpuPd3 final : public Pd3Runner {
  public:
    CpuPd3(const Pd3Prep& p, TsExec* ex) : p_(p), ex_(ex) {
        N_ = p.N;
        nseg_ = (N_ + kSegmentRows - 1) / kSegmentRows;
        carry_.assign(N_, 0.0);
        right_d2_.assign(N_, kInf);
        left_d2_.assign(N_, kInf);
        right_nn_.assign(N_, -1);
        left_nn_.assign(N_, -1);
        alive_.assign(N_, 1);
        neighbor_.reset(new std::atomic<uint8_t>[N_]);
        seg_done_.assign(nseg_, 0);
    }

    std::vector<DiscordRow> run(double r) override {
        reset();
        const double r2 = pd3::discard_below(r);
        scan({&p_, true, r2, carry_.data(), right_d2_.data(), right_nn_.data(), alive_.data(), neighbor_.get()});
        conjunction();
        scan({&p_, false, r2, carry_.data(), left_d2_.data(), left_nn_.data(), alive_.data(), neighbor_.get()});
        std::vector<DiscordRow> rows;
        for (int64_t i = 0; i < N_; ++i) {
            double d2;
            int64_t nn;
            if (alive_[i] && pd3::nearest_neighbour(left_d2_[i], left_nn_[i], right_d2_[i], right_nn_[i], d2, nn))
                rows.push_back(found_row(i, d2, nn));
        }
        return rows;
    }

  private:
    void reset() {
        std::fill(right_d2_.begin(), right_d2_.end(), kInf);
        std::fill(left_d2_.begin(), left_d2_.end(), kInf);
        std::fill(right_nn_.begin(), right_nn_.end(), -1);
        std::fill(left_nn_.begin(), left_nn_.end(), -1);
        std::fill(alive_.begin(), alive_.end(), 1);
        for (int64_t i = 0; i < N_; ++i) neighbor_[i].store(1, std::memory_order_relaxed);
        std::fill(seg_done_.begin(), seg_done_.end(), 0);
    }

    // Bitmap conjunction; segments without candidates skip the refinement.
    void conjunction() {
        std::fill(seg_done_.begin(), seg_done_.end(), 1);
        for (int64_t i = 0; i < N_; ++i) {
            alive_[i] = pd3::candidate(alive_[i], neighbor_[i].load(std::memory_order_relaxed));
            if (alive_[i]) seg_done_[i / kSegmentRows] = 0;
        }
    }

    void scan(const SideScan& sc) {
        const pd3::Columns cols = pd3::scan_columns(sc.select, N_, p_.excl);
        // ≈ 1.6e7 pair updates per task
        const int64_t W = std::max<int64_t>(4096, (int64_t(1) << 24) / kSegmentRows);
        for (int64_t c = cols.begin; c < cols.end; c += W) {
            if (std::find(seg_done_.begin(), seg_done_.end(), 0) == seg_done_.end()) break;
            const int64_t c_hi = std::min(cols.end, c + W);
            parallel_for(ex_, nseg_, [&](int64_t s) {
                if (!seg_done_[s]) seg_done_[s] = scan_segment(sc, s, c, c_hi) ? 1 : 0;
            });
        }
    }

    const Pd3Prep& p_;
    TsExec* ex_;
    int64_t N_ = 0, nseg_ = 0;
    std::vector<double> carry_, right_d2_, left_d2_;  // NN d² right / left
    std::vector<int64_t> right_nn_, left_nn_;         // NN indices
    std::vector<uint8_t> alive_, seg_done_;
    std::unique_ptr<std::atomic<uint8_t>[]> neighbor_;
};

bool rank_less(const DiscordRow& a, const DiscordRow& b) {
    if (a.dist != b.dist) return a.dist > b.dist;
    return a.pos < b.pos;
}

// dist of every row recomputed directly for its (pos, nn) pair
void recompute_distances(const Pd3Prep& p, std::vector<DiscordRow>& rows, TsExec* ex) {
    const int64_t blk = std::max<int64_t>(64, (int64_t(1) << 22) / std::max(1, p.m));
    const int64_t nb = ((int64_t)rows.size() + blk - 1) / blk;
    parallel_for(ex, nb, [&](int64_t b) {
        int64_t lo = b * blk, hi = std::min<int64_t>(rows.size(), lo + blk);
        for (int64_t t = lo; t < hi; ++t) rows[t].dist = pair_distance(p, rows[t].pos, rows[t].nn);
    });
}

}  // namespace

std::unique_ptr<Pd3Runner> make_cpu_pd3(const Pd3Prep& p, TsExec* ex) {
    return std::unique_ptr<Pd3Runner>(new CpuPd3(p, ex));
}

RankedDiscords rank_discords(std::vector<DiscordRow> rows, int m, int64_t k, double min_distance,
                             bool non_overlap) {
    if (!std::isnan(min_distance))
        rows.erase(std::remove_if(rows.begin(), rows.end(),
                                  [&](const DiscordRow& d) { return !(d.dist >= min_distance); }),
                   rows.end());
    std::sort(rows.begin(), rows.end(), rank_less);
    RankedDiscords out;
    std::set<int64_t> chosen;
    for (const DiscordRow& d : rows) {
        if (k >= 0 && (int64_t)out.pos.size() >= k) break;
        if (non_overlap) {
            // overlap: |pos − c| < m for a chosen c
            auto it = chosen.lower_bound(d.pos - m + 1);
            if (it != chosen.end() && *it < d.pos + m) continue;
            chosen.insert(d.pos);
        }
        out.pos.push_back(d.pos);
        out.dist.push_back(d.dist);
        out.nn.push_back(d.nn);
    }
    return out;
}

// The first `limit` rows of the rank order among the profile's windows that
// have a neighbour and (range mode) reach min_distance, by a bounded heap:
// O(count · log limit) time and O(limit) memory, no sort of the whole profile.
// The heap sees only the blocks that can hold such a row: with B the
// limit-th largest of the blocks' maxima, at least `limit` rows are >= B, so
// every row of the answer is >= B and lies in a block whose maximum is >= B.
// The maxima take one pass at memory speed; the heap then reads a few blocks.
static std::vector<DiscordRow> best_rows(const double* dist, const int64_t* index, int64_t count,
                                         double min_distance, size_t limit) {
    const bool range = !std::isnan(min_distance);
    auto key = [&](int64_t i) {  // the distance of an eligible row, else −1
        const double d = dist[i];
        const bool ok = std::isfinite(d) && index[i] >= 0 && (!range || d >= min_distance);
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
    double floor_max = 0.0;  // blocks below it cannot hold a row of the answer
    if ((size_t)nb > limit) {
        std::vector<double> t(bmax);
        std::nth_element(t.begin(), t.begin() + (limit - 1), t.end(), std::greater<double>());
        floor_max = std::max(0.0, t[limit - 1]);
    }
    std::vector<DiscordRow> heap;  // a heap by rank_less: front() ranks last among those kept
    heap.reserve(limit);
    for (int64_t b = 0; b < nb; ++b) {
        if (!(bmax[b] >= floor_max)) continue;
        const int64_t e = std::min(count, (b + 1) * kBlock);
        for (int64_t i = b * kBlock; i < e; ++i) {
            const double d = key(i);
            if (d < 0) continue;
            const DiscordRow row{i, d * d, d, index[i]};
            if (heap.size() < limit) {
                heap.push_back(row);
                std::push_heap(heap.begin(), heap.end(), rank_less);
            } else if (rank_less(row, heap.front())) {
                std::pop_heap(heap.begin(), heap.end(), rank_less);
                heap.back() = row;
                std::push_heap(heap.begin(), heap.end(), rank_less);
            }
        }
    }
    return heap;
}

// Top-k (and range) discords from a matrix profile.  The greedy selection reads
// the rows in rank order and stops after k picks, so it only ever needs a
// prefix of that order: take the best T rows (T ≥ k; a pick hides at most
// 2m − 2 overlapping windows), select, and widen T only when the prefix ran
// out before k picks.  The result equals the greedy selection over all rows.
RankedDiscords select_top_discords(const double* profile_dist, const int64_t* profile_index,
                                   int64_t count, int m, int64_t k, double min_distance,
                                   bool non_overlap) {
    if (k >= 0 && k < count / 8) {
        size_t limit = (size_t)std::max<int64_t>(k, 1);
        if (non_overlap) limit = (size_t)std::min<int64_t>(count, std::max<int64_t>(256, 4 * k));
        for (;;) {
            std::vector<DiscordRow> rows = best_rows(profile_dist, profile_index, count, min_distance, limit);
            const bool exhausted = rows.size() < limit;
            RankedDiscords got = rank_discords(std::move(rows), m, k, min_distance, non_overlap);
            if ((int64_t)got.pos.size() >= k || exhausted || (int64_t)limit >= count) return got;
            limit = (size_t)std::min<int64_t>(count, (int64_t)limit * 8);
        }
    }
    std::vector<DiscordRow> rows;
    rows.reserve(count);
    for (int64_t i = 0; i < count; ++i) {
        double d = profile_dist[i];
        if (!std::isfinite(d) || profile_index[i] < 0) continue;
        rows.push_back({i, d * d, d, profile_index[i]});
    }
    return rank_discords(std::move(rows), m, k, min_distance, non_overlap);
}

// Top-k mode's schedule for r (DRAG/MERLIN style): the largest possible NN
// distance is 2√m (ρ = −1), so r starts there and falls by 10% a step:
// r_t = 2√m · 0.9^t.  Each step runs PD3 with r_t, which returns D_r, every
// window whose NN distance is >= r_t, exactly.  The greedy non-overlapping
// selection in rank order over D_r equals the first picks of the greedy
// selection over all windows (every window ranked before the last one of D_r
// is in D_r), so as soon as it yields k picks they are the exact top-k.  Once
// r_t < 0.01·√m the next step uses r = 0 (exhaustive: every window), which
// ends the schedule.  A high r is cheap (candidates are discarded at once),
// so the cost is that of the last step or two; the 10% step bounds how far
// the last r undershoots the k-th discord's distance.  A k of ceil(N / m) or
// more (windows m apart: no series holds more) can only end at r = 0, so the
// schedule starts there: the same rows, without the ~50 steps down to it,
// whose low ones cost as much as r = 0 itself (k = 2^31 − 1, N = 16,384,
// m = 16 on the CPU: 28 s before, 0.6 s).
RankedDiscords pd3_discords(const double* x, int64_t n, int m, int64_t k, double min_distance,
                            int64_t excl, TsExec* ex) {
    Pd3Prep p;
    pd3_prepare(x, n, m, excl, p, ex);
    std::unique_ptr<Pd3Runner> runner;
    if (use_gpu(ex, TS_WORK_DISCORDS, n, m)) {
#ifdef TSMINE_WITH_CUDA
        runner = gpu::make_pd3(p, ex);
#endif
    }
    if (!runner) runner = make_cpu_pd3(p, ex);

    if (!std::isnan(min_distance)) {
        auto rows = runner->run(min_distance);
        check_interrupt(ex);
        recompute_distances(p, rows, ex);
        return rank_discords(std::move(rows), m, k, min_distance, false);
    }
    const double top = 2.0 * std::sqrt((double)m);
    const int64_t N = n - m + 1;
    double r = k >= (N + m - 1) / m ? 0.0 : top;  // more than the series holds: every window
    for (;;) {
        auto rows = runner->run(r);
        check_interrupt(ex);
        recompute_distances(p, rows, ex);
        RankedDiscords got = rank_discords(std::move(rows), m, k, std::nan(""), true);
        if ((int64_t)got.pos.size() >= k || r == 0) return got;
        r *= 0.9;
        if (r < 0.005 * top) r = 0;
    }
}

}  // namespace tsm

namespace {

void validate_common(int32_t m, int64_t k, double min_distance) {
    if (m < 3)
        tsm::invalid(tsm::format("subsequence length m must be at least 3, got %d", (int)m),
                     "Use a window length of 3 or more.");
    if (k < 1 && k != -1)
        tsm::invalid(tsm::format("k must be positive, got %lld", (long long)k),
                     "Ask for at least one discord, or pass NULL for all range discords.");
    if (!std::isnan(min_distance) && (!(min_distance >= 0) || !std::isfinite(min_distance)))
        tsm::invalid("min_distance must be a finite number >= 0, not " + tsm::number_text(min_distance),
                     "min_distance is a z-normalised Euclidean distance, between 0 and 2 sqrt(m).");
    if (std::isnan(min_distance) && k == -1)
        tsm::invalid("k must be given when min_distance is NULL",
                     "Pass k for the top-k discords, or min_distance for all range discords.");
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

extern "C" int tsm_discords_pd3(const double* x, int64_t n, int32_t m, int64_t k, double min_distance,
                                int64_t exclusion, TsExec* ex, TsDiscords* out, TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        ex->used_backend = TS_BACKEND_CPU;
        validate_common(m, k, min_distance);
        if (n < 0 || (n > 0 && !x)) tsm::invalid("invalid series");
        tsm::require_finite(x, n, "series", "Remove or interpolate NaN and infinite values first.");
        if (2 * (int64_t)m > n)
            tsm::invalid(tsm::format("subsequence length m = %d is more than half the series length %lld",
                                     (int)m, (long long)n),
                         "Use a window length of at most half the number of values.");
        const int64_t N = n - m + 1;
        if (exclusion < 1 || exclusion > N - 1)
            tsm::invalid(tsm::format("exclusion_zone must be between 1 and %lld, got %lld",
                                     (long long)(N - 1), (long long)exclusion),
                         "A larger exclusion zone leaves no subsequence a neighbour; NULL means m.");
        tsm::RankedDiscords r = tsm::pd3_discords(x, n, m, k, min_distance, exclusion, ex);
        emit(r, ex, out);
    });
}

extern "C" int tsm_discords_from_profile(const double* dist, const int64_t* index, int64_t count,
                                         int32_t m, int64_t k, double min_distance, TsExec* ex,
                                         TsDiscords* out, TsStatus* st) noexcept {
    return tsm::guard(st, [&] {
        std::memset(out, 0, sizeof *out);
        ex->used_backend = TS_BACKEND_CPU;
        validate_common(m, k, min_distance);
        if (count < 0 || (count > 0 && (!dist || !index))) tsm::invalid("invalid matrix profile");
        tsm::RankedDiscords r =
            tsm::select_top_discords(dist, index, count, m, k, min_distance, std::isnan(min_distance));
        emit(r, ex, out);
    });
}

namespace {

// Discords by way of the matrix profile: the profile (its own checks,
// backend and timings), then the selection, which runs on the CPU.
int discords_by_profile(const double* x, int64_t n, int32_t m, int64_t k, double min_distance,
                        int64_t exclusion, TsExec* ex, TsDiscords* out, TsStatus* st) {
    TsProfile p;
    int code = tsm_matrix_profile(x, n, m, exclusion, ex, &p, st);
    if (code != TS_OK) return code;
    const int profile_backend = ex->used_backend;
    code = tsm_discords_from_profile(p.dist, p.index, p.count, m, k, min_distance, ex, out, st);
    ex->used_backend = profile_backend;
    return code;
}

}  // namespace

extern "C" int tsm_discords(const double* x, int64_t n, int32_t m, int64_t k, double min_distance,
                            int64_t exclusion, int32_t method, TsExec* ex, TsDiscords* out,
                            TsStatus* st) noexcept {
    std::memset(out, 0, sizeof *out);
    // the checks both methods make, before the profile is computed
    const int code = tsm::guard(st, [&] { validate_common(m, k, min_distance); });
    if (code != TS_OK) return code;
    if (method == TS_DISCORDS_PD3) {
        ex->used_method = "pd3";
        tsm::progress_unknown(ex);  // PD3's pruning depends on the data
        return tsm_discords_pd3(x, n, m, k, min_distance, exclusion, ex, out, st);
    }
    // auto: the matrix profile, which bench/discords.sh measured faster than
    // PD3 for top-k and range discords alike, on the GPU and on the CPU, on
    // every series tried (bench/RESULTS.md).
    ex->used_method = "matrix_profile";
    return discords_by_profile(x, n, m, k, min_distance, exclusion, ex, out, st);
}
