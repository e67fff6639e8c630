// discords.cpp — exact discords: PD3 on the CPU, the top-k schedule, the
// ranking/selection rules and the C entry points.
//
// PD3 (Kraeva & Zymbler 2023) on the CPU, the same algorithm as the GPU path:
//  1. preprocessing: window means and 1/σ (tsm::window_stats) and the
//     recurrence terms df, dg (Pd3Prep).
//  2. candidate selection: the windows are cut into segments of
//     kPd3CpuSegment rows (candidates).  A segment scans the columns to its
//     right, j >= a + exclusion, in order; column j's centred co-moments with
//     all rows of the segment come from the previous column by the diagonal
//     recurrence C(i,j) = C(i−1,j−1) + df_i·dg_j + df_j·dg_i (PD3's (9)); only
//     the segment's top row is a direct O(m) dot product (PD3's QTcol), so no
//     value is more than one segment length of recurrence steps from a direct
//     one.  A pair (i, j) with j − i >= exclusion and d < r discards row i
//     (Bitmap.Subseq) and window j (Bitmap.Neighbor).  A segment whose rows
//     are all discarded stops early.  Surviving rows saw every right-hand
//     neighbour, so they also know their exact nearest right neighbour.
//  3. bitmap conjunction: candidates = Subseq ∧ Neighbor.
//  4. refinement: segments holding candidates scan the columns to their left
//     (i − j >= exclusion) the same way; a candidate with a neighbour closer
//     than r is dropped, the others get their exact nearest left neighbour.
//     NN = the nearer of left and right (a tie goes left: smaller index).
// Long scans are cut into column windows (≲ 50 ms of work per task); the
// co-moments of a segment's rows at the last column carry over.
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
#include "dispatch.h"
#include "error.h"
#include "finite.h"
#include "parallel.h"
#include "sliding.h"

namespace tsm {

void pd3_prepare(const double* x, int64_t n, int m, int64_t excl, Pd3Prep& p, const TsExec* ex) {
    WindowStats ws;
    window_stats(x, n, m, ws, ex);
    const int64_t N = ws.count;
    p.x = x;
    p.n = n;
    p.N = N;
    p.m = m;
    p.excl = excl;
    p.mean = std::move(ws.mean);
    p.constant = std::move(ws.constant);
    p.isd.assign(N, 0.0);
    p.df.assign(N, 0.0);
    p.dg.assign(N, 0.0);
    for (int64_t i = 0; i < N; ++i) p.isd[i] = p.constant[i] ? 0.0 : ws.inv_std[i];
    for (int64_t i = 1; i < N; ++i) {
        p.df[i] = (x[i + m - 1] - x[i - 1]) * 0.5;
        p.dg[i] = (x[i + m - 1] - p.mean[i]) + (x[i - 1] - p.mean[i - 1]);
    }
}

namespace {

inline double centred_dot(const Pd3Prep& p, int64_t i, int64_t j) {
    const double* a = p.x + i;
    const double* b = p.x + j;
    const double mi = p.mean[i], mj = p.mean[j];
    double s = 0;
    for (int k = 0; k < p.m; ++k) s += (a[k] - mi) * (b[k] - mj);
    return s;
}

}  // namespace

// Fully direct: both windows' means and spreads two-pass, then the centred
// co-moment; the reported distances do not depend on the sliding statistics.
double pair_distance(const Pd3Prep& p, int64_t i, int64_t j) {
    if (j < i) std::swap(i, j);  // symmetric to the last bit: d(i, j) == d(j, i)
    const bool ci = p.constant[i], cj = p.constant[j];
    if (ci && cj) return 0.0;
    if (ci || cj) return std::sqrt((double)p.m);
    const double* a = p.x + i;
    const double* b = p.x + j;
    const int m = p.m;
    // means relative to the window's first value (exact for offset data), refined once
    double sa = 0, sb = 0;
    for (int k = 0; k < m; ++k) {
        sa += a[k] - a[0];
        sb += b[k] - b[0];
    }
    double ma = sa / m, mb = sb / m, ra = 0, rb = 0;
    for (int k = 0; k < m; ++k) {
        ra += (a[k] - a[0]) - ma;
        rb += (b[k] - b[0]) - mb;
    }
    ma += ra / m;
    mb += rb / m;
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

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- the CPU path of PD3 ----------------------------------------------------

class CpuPd3 final : public Pd3Runner {
  public:
    CpuPd3(const Pd3Prep& p, TsExec* ex) : p_(p), ex_(ex) {
        N_ = p.N;
        nseg_ = (N_ + S - 1) / S;
        carry_.assign(N_, 0.0);
        bestR_.assign(N_, kInf);
        bestL_.assign(N_, kInf);
        bjR_.assign(N_, -1);
        bjL_.assign(N_, -1);
        alive_.assign(N_, 1);
        neighbor_.reset(new std::atomic<uint8_t>[N_]);
        seg_done_.assign(nseg_, 0);
    }

    std::vector<DiscordRow> run(double r) override {
        // r = 0: nothing is discarded (a rounding-negative d² must not count as < 0)
        r2_ = r > 0 ? r * r : -kInf;
        std::fill(bestR_.begin(), bestR_.end(), kInf);
        std::fill(bestL_.begin(), bestL_.end(), kInf);
        std::fill(bjR_.begin(), bjR_.end(), -1);
        std::fill(bjL_.begin(), bjL_.end(), -1);
        std::fill(alive_.begin(), alive_.end(), 1);
        for (int64_t i = 0; i < N_; ++i) neighbor_[i].store(1, std::memory_order_relaxed);
        std::fill(seg_done_.begin(), seg_done_.end(), 0);

        scan(true);  // candidate selection
        // bitmap conjunction; segments without candidates skip the refinement
        std::fill(seg_done_.begin(), seg_done_.end(), 1);
        for (int64_t i = 0; i < N_; ++i) {
            alive_[i] = alive_[i] & neighbor_[i].load(std::memory_order_relaxed);
            if (alive_[i]) seg_done_[i / S] = 0;
        }
        scan(false);  // refinement

        std::vector<DiscordRow> rows;
        for (int64_t i = 0; i < N_; ++i) {
            if (!alive_[i]) continue;
            double d2 = bestL_[i];
            int64_t nn = bjL_[i];
            if (bestR_[i] < d2) {
                d2 = bestR_[i];
                nn = bjR_[i];
            }
            if (nn < 0) continue;  // no non-self-match at all
            rows.push_back({i, d2, std::sqrt(std::max(d2, 0.0)), nn});
        }
        return rows;
    }

  private:
    static constexpr int S = kPd3CpuSegment;

    void scan(bool select) {
        const int64_t e = p_.excl;
        const int64_t first = select ? e : 0, last = select ? N_ : N_ - e;  // columns [first, last)
        // ≈ 1.6e7 pair updates per task
        const int64_t W = std::max<int64_t>(4096, (int64_t(1) << 24) / S);
        for (int64_t c = first; c < last; c += W) {
            bool any = false;
            for (int64_t s = 0; s < nseg_ && !any; ++s) any = !seg_done_[s];
            if (!any) break;
            parallel_for(ex_, nseg_, [&](int64_t s) {
                if (!seg_done_[s]) segment(s, select, c, std::min(last, c + W));
            });
        }
    }

    // Scans the columns [c_lo, c_hi) ∩ (this segment's range) for segment s.
    void segment(int64_t s, bool select, int64_t c_lo, int64_t c_hi) {
        const Pd3Prep& p = p_;
        const int64_t e = p.excl, a = s * S;
        const int rows = (int)std::min<int64_t>(S, N_ - a);
        const int64_t start = select ? a + e : 0;
        const int64_t end = select ? N_ : a + rows - e;  // exclusive
        if (end <= start) {
            seg_done_[s] = 1;
            return;
        }
        const int64_t lo = std::max(start, c_lo), hi = std::min(end, c_hi);
        if (lo >= hi) return;

        double bufA[S], bufB[S], b2[S];
        int64_t bj[S];
        uint8_t al[S];
        double A[S];
        double* C = bufA;
        double* Cn = bufB;
        const double* dfr = p.df.data() + a;
        const double* dgr = p.dg.data() + a;
        const double* isr = p.isd.data() + a;
        double* best = select ? bestR_.data() : bestL_.data();
        int64_t* bestj = select ? bjR_.data() : bjL_.data();
        for (int r = 0; r < rows; ++r) {
            C[r] = lo > start ? carry_[a + r] : 0.0;
            b2[r] = best[a + r];
            bj[r] = bestj[a + r];
            al[r] = alive_[a + r];
            A[r] = p.constant[a + r] ? (double)p.m : 2.0 * p.m;
        }
        const double r2 = r2_;
        const double md = p.m;
        bool dead = false;
        for (int64_t j = lo; j < hi; ++j) {
            if (j == start) {
                for (int r = 0; r < rows; ++r) C[r] = centred_dot(p, a + r, j);
            } else {
                const double dfj = p.df[j], dgj = p.dg[j];
                Cn[0] = centred_dot(p, a, j);
                for (int r = 1; r < rows; ++r) Cn[r] = C[r - 1] + dfr[r] * dgj + dfj * dgr[r];
                std::swap(C, Cn);
            }
            int vlo, vhi;  // rows with a valid pair in this column
            if (select) {
                vlo = 0;
                vhi = (int)std::min<int64_t>(rows, j - e - a + 1);
            } else {
                vlo = (int)std::max<int64_t>(0, j + e - a);
                vhi = rows;
            }
            bool close = false;
            const bool cj = p.constant[j] != 0;
            const double isdj2 = 2.0 * p.isd[j];
            for (int r = vlo; r < vhi; ++r) {
                // STUMPY for a constant j: both constant 0, else m (= √m²)
                const double d2 = cj ? (isr[r] == 0.0 ? 0.0 : md) : A[r] - C[r] * isr[r] * isdj2;
                const bool lt = d2 < r2;
                close |= lt;
                al[r] &= !lt;
                if (d2 < b2[r]) {
                    b2[r] = d2;
                    bj[r] = j;
                }
            }
            if (select && close) neighbor_[j].store(0, std::memory_order_relaxed);
            if (((j - lo) & 7) == 7 || j + 1 == hi) {  // PD3's early termination
                bool any = false;
                for (int r = 0; r < rows; ++r) any |= al[r] != 0;
                if (!any) {
                    dead = true;
                    break;
                }
            }
        }
        for (int r = 0; r < rows; ++r) {
            carry_[a + r] = C[r];
            best[a + r] = b2[r];
            bestj[a + r] = bj[r];
            alive_[a + r] = al[r];
        }
        if (dead || hi == end) seg_done_[s] = 1;
    }

    const Pd3Prep& p_;
    TsExec* ex_;
    int64_t N_ = 0, nseg_ = 0;
    double r2_ = 0;
    std::vector<double> carry_, bestR_, bestL_;
    std::vector<int64_t> bjR_, bjL_;
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
// the last r undershoots the k-th discord's distance.
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
    double r = top;
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
        tsm::invalid("min_distance must be a finite number >= 0",
                     "Pass a distance in z-normalised Euclidean units, or NULL for the top-k discords.");
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

// ts_discords' checks that no method makes for itself (before any work).
void check_discords_call(double min_distance) {
    if (!std::isnan(min_distance) && (!(min_distance >= 0) || std::isinf(min_distance)))
        tsm::invalid("min_distance must be a finite number >= 0, not " + tsm::number_text(min_distance),
                     "min_distance is a z-normalised Euclidean distance, between 0 and 2 sqrt(m).");
}

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
    const int code = tsm::guard(st, [&] { check_discords_call(min_distance); });
    if (code != TS_OK) return code;
    if (method == TS_DISCORDS_PD3) {
        ex->used_method = "pd3";
        return tsm_discords_pd3(x, n, m, k, min_distance, exclusion, ex, out, st);
    }
    // auto: the matrix profile, which bench/discords.sh measured faster than
    // PD3 for top-k and range discords alike, on the GPU and on the CPU, on
    // every series tried (bench/RESULTS.md).
    ex->used_method = "matrix_profile";
    return discords_by_profile(x, n, m, k, min_distance, exclusion, ex, out, st);
}
