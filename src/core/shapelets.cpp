// shapelets.cpp — shapelet discovery (CPU path), decision trees, classification
// and the C entry points of api_shapelets.h.  See shapelets.h for the engine,
// shapelets_detail.h for the arithmetic shared with the GPU path, and
// api_shapelets.h for the conventions.
#include "shapelets.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <queue>

#include "api_shapelets.h"
#include "args.h"
#include "dispatch.h"
#include "error.h"
#include "finite.h"
#include "matrix_profile.h"
#include "parallel.h"
#include "progress.h"

namespace tsm {
namespace shp {

// ---- shared pieces ----------------------------------------------------------

namespace {

// T[c] = round(2^32 c log2 c), c = 0..n.
std::vector<int64_t> entropy_table(int64_t n) {
    std::vector<int64_t> t(n + 1, 0);
    for (int64_t c = 2; c <= n; ++c) t[c] = std::llround((double)c * std::log2((double)c) * kGainScale);
    return t;
}

}  // namespace

GainTables gain_tables(const Subset& d) {
    GainTables g;
    g.entropy = entropy_table((int64_t)d.x.size());
    g.class_total.assign(d.C, 0);
    for (int32_t c : d.y) ++g.class_total[c];
    int64_t class_terms = 0;
    for (int c = 0; c < d.C; ++c) class_terms += g.entropy[g.class_total[c]];
    g.base = g.entropy[d.x.size()] - class_terms;
    return g;
}

void TopK::add(const Cand& c) {
    if (c.g < 0) return;
    v.push_back(c);
    if ((int64_t)v.size() > 2 * (int64_t)k + 256) {
        std::nth_element(v.begin(), v.begin() + k, v.end(), cand_better);
        v.resize(k);
    }
}

std::vector<Cand> TopK::take() {
    std::sort(v.begin(), v.end(), cand_better);
    if ((int64_t)v.size() > k) v.resize(k);
    return std::move(v);
}

std::vector<int> pivot_lengths(const Subset& d, int min_length, int max_length, int step) {
    int64_t longest = 0;
    for (int64_t n : d.n) longest = std::max(longest, n);
    std::vector<int> out;
    for (int64_t L = min_length; L <= max_length && L <= longest; L += step) out.push_back((int)L);
    return out;
}

bool gap_prefix(const double* x, int64_t n, std::vector<int32_t>& out) {
    out.clear();
    const int64_t first = first_nonfinite(x, n);
    if (first < 0) return false;
    out.assign(n + 1, 0);
    for (int64_t i = first; i < n; ++i) out[i + 1] = out[i] + (std::isfinite(x[i]) ? 0 : 1);
    return true;
}

Scaled scaled_series(const double* x_in, int64_t n) {
    Scaled sc;
    if (gap_prefix(x_in, n, sc.gaps_before)) {  // computed on the filled series (mp::plan_gaps, m = 1)
        mp::GapPlan plan;
        mp::plan_gaps(x_in, n, 1, plan);
        sc.filled = std::move(plan.filled);
    }
    const double* x = sc.values(x_in);
    sc.frame = series_frame(x, n);
    sc.screenable = series_screenable(x, n, sc.frame);
    const double unit = frames::pow2(-sc.frame);
    sc.y.resize(n);
    for (int64_t t = 0; t < n; ++t) sc.y[t] = hd::mul(x[t], unit);
    return sc;
}

void length_stats(const Subset& d, int L, LengthStats& out) {
    const int64_t N = (int64_t)d.x.size();
    out.L = L;
    out.off.assign(N, -1);
    out.has_flat.assign(N, 0);
    int64_t total = 0;
    for (int64_t j = 0; j < N; ++j)
        if (d.n[j] >= L) { out.off[j] = total; total += d.n[j] - L + 1; }
    out.mean.assign(total, 0.0);
    out.inv_sd.assign(total, 0.0);
    out.df.assign(total, 0.0);
    out.dg.assign(total, 0.0);
    out.frames.assign(total, StoredFrame{});
    out.restart.assign(total, 0);
    out.reach.assign(total, 0.0);
    out.reach_max.assign(N, 0.0);
    out.restarts.clear();
    out.restarts_begin.assign(N + 1, 0);
    for (int64_t j = 0; j < N; ++j) {
        out.restarts_begin[j] = (int64_t)out.restarts.size();
        if (out.off[j] < 0) continue;
        const double *x = d.x[j], *y = d.scaled[j]->y.data();
        const int32_t* gaps = d.scaled[j]->gaps();
        const int64_t U = d.n[j] - L + 1, o = out.off[j];
        double *mean = out.mean.data() + o, *inv_sd = out.inv_sd.data() + o;
        for (int64_t u = 0; u < U; ++u) {
            screen_stats(x + u, L, d.scaled[j]->frame, &mean[u], &inv_sd[u], &out.frames[o + u]);
            mark_gap_window(gaps, u, L, &inv_sd[u]);
            out.has_flat[j] |= pivot_is_flat(inv_sd[u]) ? 1 : 0;
        }
        for (int64_t u = 1; u < U; ++u) local_terms(y, mean, L, u, &out.df[o + u], &out.dg[o + u]);
        auto spans_of = [&](int64_t u) {
            WindowSpans sp;
            window_spans(y, u, L, &sp.step, &sp.own);
            return sp;
        };
        scan_restarts(U, inv_sd, spans_of, [&](int64_t u, bool restart, double reach) {
            out.restart[o + u] = restart ? 1 : 0;
            out.reach[o + u] = reach;
            out.reach_max[j] = std::max(out.reach_max[j], reach);
            if (restart) out.restarts.push_back(u);
        });
    }
    out.restarts_begin[N] = (int64_t)out.restarts.size();
}

// ---- the CPU engine -----------------------------------------------------------

namespace {

struct RowScratch {
    std::vector<double> prev, cur;  // co-moments of the previous and the current row
    std::vector<double> column;     // column-0 co-moments of the rows after the group's first
};

// The direct co-moments (local_comoment's terms, t ascending, each sum on its
// own) of the windows k < K of x (x + k, mean_x[k]) with one window whose
// centred values other(t) gives, computed t-outer so that independent sums
// run side by side, four terms a pass (each sum read and written once for
// four of its terms, in their order).  XFirst: the product's operand order
// as the caller's pair reads it (a product commutes exactly).  Inlined into
// the FMA build and the generic one alike.
template <int Terms, bool XFirst>
__attribute__((always_inline)) inline double add_terms(double c, const double* x, int t, double mean_x,
                                                       const double* other_c) {
    for (int i = 0; i < Terms; ++i) {
        const double xc = centred(x, t + i, mean_x);
        c = XFirst ? centred_comoment_term(c, xc, other_c[i]) : centred_comoment_term(c, other_c[i], xc);
    }
    return c;
}
template <bool XFirst, class Other>
__attribute__((always_inline)) inline void direct_sums(const double* x, const double* mean_x, int64_t K, int L,
                                                       const Other& other, double* c) {
    for (int64_t k = 0; k < K; ++k) c[k] = 0.0;
    int t = 0;
    for (; t + 4 <= L; t += 4) {
        const double o[4] = {other(t), other(t + 1), other(t + 2), other(t + 3)};
        for (int64_t k = 0; k < K; ++k) c[k] = add_terms<4, XFirst>(c[k], x + k, t, mean_x[k], o);
    }
    for (; t < L; ++t) {
        const double o = other(t);
        for (int64_t k = 0; k < K; ++k) c[k] = add_terms<1, XFirst>(c[k], x + k, t, mean_x[k], &o);
    }
}
// C(p, u) of one pivot row (a: its window, mean_p) and every target window u < U.
__attribute__((always_inline)) inline void direct_row(const double* a, double mean_p, const double* b,
                                                      const double* mean_b, int64_t U, int L, double* c) {
    direct_sums<false>(b, mean_b, U, L, [&](int t) { return centred(a, t, mean_p); }, c);
}
// C(p, 0) of the pivot rows p in [p0, p1) (c[p - p0]) and the target's first window.
__attribute__((always_inline)) inline void direct_column(const double* a, const double* mean_a, int64_t p0,
                                                         int64_t p1, const double* b, double mean_b0, int L,
                                                         double* c) {
    direct_sums<true>(a + p0, mean_a + p0, p1 - p0, L, [&](int t) { return centred(b, t, mean_b0); }, c);
}

// keep_larger over a row in two steps, the same values: the largest
// C·(1/σ_u) (four running maxima side by side, so that they vectorise; a
// maximum does not depend on the order of its terms, up to the sign of a
// zero, which distance_from_best does not see), and, only for a distance that
// needs_settling may recompute, the first u that holds it.
__attribute__((always_inline)) inline double row_best(const double* c, const double* inv_sd_b, int64_t U) {
    typedef double Lanes __attribute__((vector_size(32)));  // the four maxima
    Lanes m = {-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
               -std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    int64_t u = 0;
    for (; u + 4 <= U; u += 4) {
        Lanes cu, iu;
        std::memcpy(&cu, c + u, sizeof cu);
        std::memcpy(&iu, inv_sd_b + u, sizeof iu);
        const Lanes v = cu * iu;  // hd::mul, four at once (a product rounds once)
        m = v > m ? v : m;
    }
    double best = m[0];
    for (int l = 1; l < 4; ++l) best = m[l] > best ? m[l] : best;
    for (; u < U; ++u) {
        const double v = hd::mul(c[u], inv_sd_b[u]);
        best = v > best ? v : best;
    }
    return best;
}
__attribute__((always_inline)) inline int64_t first_of(double best, const double* c, const double* inv_sd_b,
                                                       int64_t U) {
    typedef double Lanes __attribute__((vector_size(32)));
    const Lanes best4 = {best, best, best, best};
    int64_t u = 0;
    for (; u + 4 < U; u += 4) {  // four at a time up to the first quad that holds it
        Lanes cu, iu;
        std::memcpy(&cu, c + u, sizeof cu);
        std::memcpy(&iu, inv_sd_b + u, sizeof iu);
        const auto equal = cu * iu == best4;  // hd::mul, four at once
        if (equal[0] | equal[1] | equal[2] | equal[3]) break;
    }
    while (u + 1 < U && !(hd::mul(c[u], inv_sd_b[u]) == best)) ++u;
    return u;
}

// The training distance of pivot p of source s to target j from its row of
// co-moments cur (U target windows; steps: steps_since_direct): the screened
// distance, and in *settle_at the window whose direct distance replaces it
// where needs_settling asks (settle_entry), else −1.  The bound is asked
// first with the target's largest reach (needs_settling_bounded), and only
// then is the chosen window found.
__attribute__((always_inline)) inline double row_distance(const LengthStats& st, int64_t s, int64_t j, int64_t p,
                                                          int64_t steps, const double* cur, int64_t U,
                                                          int32_t* settle_at) {
    const int L = st.L;
    const int64_t oa = st.off[s], ob = st.off[j];
    const double* inv_sd_b = st.inv_sd.data() + ob;
    const bool flat = st.has_flat[j];
    const double best = row_best(cur, inv_sd_b, U), reach_p = st.reach[oa + p];
    const double screened = distance_from_best(best, st.inv_sd[oa + p], L, flat);
    int64_t at = -1;
    const bool settle = needs_settling_bounded(screened, steps, L, reach_p, st.reach_max[j], flat, [&] {
        at = first_of(best, cur, inv_sd_b, U);
        return st.reach[ob + at];
    });
    *settle_at = !settle ? -1 : (int32_t)(at >= 0 ? at : first_of(best, cur, inv_sd_b, U));
    return screened;
}

// The direct distance that replaces a pending entry: pivot p of source s and
// window at of target j.
double settle_entry(const Subset& d, const LengthStats& st, int64_t s, int64_t j, int64_t p, int64_t at) {
    const int64_t oa = st.off[s], ob = st.off[j];
    return direct_distance(d.x[s] + p, st.frames[oa + p], d.x[j] + at, st.frames[ob + at], st.L);
}

// The range of a pending entry's direct distance (settled_range).
SettleRange entry_range(const LengthStats& st, int64_t s, int64_t j, int64_t p, int64_t at, double screened) {
    const int64_t oa = st.off[s], ob = st.off[j];
    const int64_t g0 = p - p % rows_per_group(st.L);
    const int64_t steps = steps_since_direct(p, g0, st.restart.data() + oa);
    const double reach_p = st.reach[oa + p], reach_u = st.reach[ob + at];
    return settled_range(screened, screen_error(steps, st.L, reach_p, reach_u), st.L, reach_p, reach_u);
}

// Distances of rows [r0, r1) of source s (row group starting at g0 <= r0) to
// target j at length st.L into out[(p - r0) * stride]: the co-moments of the
// group's first row and of column 0 directly, the others by the recurrence
// (shapelets_detail.h; the same as the device kernels).  Variant only tells the
// FMA build from the generic one (distinct instantiations).
template <int Variant>
__attribute__((always_inline)) inline void rows_to_target_body(const Subset& d, const LengthStats& st, int64_t s,
                                                               int64_t j, int64_t g0, int64_t r0, int64_t r1,
                                                               double* out, int32_t* at, int64_t stride,
                                                               RowScratch& sc) {
    const int L = st.L;
    const int64_t U = d.n[j] - L + 1, oa = st.off[s], ob = st.off[j];
    const double *a = d.scaled[s]->y.data(), *b = d.scaled[j]->y.data();
    const double* mean_a = st.mean.data() + oa;
    const double *df_a = st.df.data() + oa, *dg_a = st.dg.data() + oa;
    const double* mean_b = st.mean.data() + ob;
    const double *df_b = st.df.data() + ob, *dg_b = st.dg.data() + ob;
    const uint8_t* restart_a = st.restart.data() + oa;
    const int64_t *restarts_b = st.restarts.data() + st.restarts_begin[j],
                  *restarts_b_end = st.restarts.data() + st.restarts_begin[j + 1];
    sc.prev.resize(U);
    sc.cur.resize(U);
    sc.column.resize(r1 - g0);
    direct_column(a, mean_a, g0 + 1, r1, b, mean_b[0], L, sc.column.data());
    for (int64_t p = g0; p < r1; ++p) {
        double* cur = sc.cur.data();
        const double* prev = sc.prev.data();
        if (row_is_direct(p, g0, restart_a)) {  // a diagonal start: the whole row directly
            direct_row(a + p, mean_a[p], b, mean_b, U, L, cur);
        } else {
            cur[0] = sc.column[p - g0 - 1];
            const double df_p = df_a[p], dg_p = dg_a[p];
            for (int64_t u = 1; u < U; ++u) cur[u] = comoment_next(prev[u - 1], df_p, dg_p, df_b[u], dg_b[u]);
            for (const int64_t* r = restarts_b; r != restarts_b_end; ++r)  // restarts of the target's diagonals
                cur[*r] = local_comoment(a + p, mean_a[p], b + *r, mean_b[*r], L);
        }
        if (p >= r0)
            out[(p - r0) * stride] =
                row_distance(st, s, j, p, steps_since_direct(p, g0, restart_a), cur, U, &at[(p - r0) * stride]);
        std::swap(sc.prev, sc.cur);
    }
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) void rows_to_target_fma(const Subset& d, const LengthStats& st, int64_t s,
                                                            int64_t j, int64_t g0, int64_t r0, int64_t r1,
                                                            double* out, int32_t* at, int64_t stride,
                                                            RowScratch& sc) {
    rows_to_target_body<0>(d, st, s, j, g0, r0, r1, out, at, stride, sc);
}
#endif
void rows_to_target_generic(const Subset& d, const LengthStats& st, int64_t s, int64_t j, int64_t g0, int64_t r0,
                            int64_t r1, double* out, int32_t* at, int64_t stride, RowScratch& sc) {
    rows_to_target_body<1>(d, st, s, j, g0, r0, r1, out, at, stride, sc);
}

// The hot loop calls hd::fma: one instruction where the CPU has FMA, a library
// call otherwise.  A pair with a series the screen does not take: directly.
// at: where each entry is pending (row_distance), −1 where it is final.
void rows_to_target(const Subset& d, const LengthStats& st, int64_t s, int64_t j, int64_t g0, int64_t r0, int64_t r1,
                    double* out, int32_t* at, int64_t stride, RowScratch& sc) {
    if (!d.scaled[s]->screenable || !d.scaled[j]->screenable) {
        for (int64_t p = r0; p < r1; ++p) {
            out[(p - r0) * stride] =
                no_window_as_largest(shapelet_distance(d.x[s] + p, st.L, d.x[j], d.n[j], d.scaled[j]->gaps()));
            at[(p - r0) * stride] = -1;
        }
        return;
    }
#if defined(__x86_64__)
    if (cpu_has_fma()) return rows_to_target_fma(d, st, s, j, g0, r0, r1, out, at, stride, sc);
#endif
    rows_to_target_generic(d, st, s, j, g0, r0, r1, out, at, stride, sc);
}

// Best split of one pivot's order line (the sequential form of the gain kernel).
struct SplitScratch {
    std::vector<int32_t> order;       // local series by distance, ties by index
    std::vector<int64_t> left_count;  // per class, left of the split
};

// The order line into order: the series by distance, ties by index (a total
// order: one result whichever sort runs).  A pivot's line is mostly the line
// its scratch last held (the row group's previous pivot: the next window,
// nearly the same distances), so that line is sorted again by insertion,
// which hands over to std::sort once it has moved 8 N entries.
void sort_order_line(const double* dist, int64_t N, std::vector<int32_t>& order) {
    const auto before = [dist](int32_t a, int32_t b) { return dist[a] < dist[b] || (dist[a] == dist[b] && a < b); };
    if ((int64_t)order.size() != N) {
        order.resize(N);
        for (int64_t j = 0; j < N; ++j) order[j] = (int32_t)j;
    }
    int64_t moves_left = 8 * N;
    for (int64_t i = 1; i < N; ++i) {
        const int32_t v = order[i];
        if (before(order[i - 1], v)) continue;  // in place already
        int64_t t = i;
        for (; t > 0 && before(v, order[t - 1]); --t) order[t] = order[t - 1];
        order[t] = v;
        moves_left -= i - t;
        if (moves_left < 0) return std::sort(order.begin(), order.end(), before);
    }
}

// The best split of the order line sc.order (sort_order_line of dist).
void split_order_line(const double* dist, const int32_t* y, int64_t N, int C, const GainTables& gt, SplitScratch& sc,
                      Cand& out) {
    double total = 0;
    for (int64_t i = 0; i < N; ++i) total = hd::add(total, dist[sc.order[i]]);
    sc.left_count.assign(C, 0);
    double sum_left = 0;
    SplitChoice choice;
    for (int64_t i = 0; i + 1 < N; ++i) {
        const int32_t j = sc.order[i];
        sum_left = hd::add(sum_left, dist[j]);
        ++sc.left_count[y[j]];
        if (!(dist[j] < dist[sc.order[i + 1]])) continue;
        int64_t left_terms = 0, right_terms = 0;
        for (int c = 0; c < C; ++c)
            add_class_terms(gt.entropy.data(), sc.left_count[c], gt.class_total[c], left_terms, right_terms);
        const int64_t n_left = i + 1, n_right = N - n_left;
        choice.offer(split_gain(gt.base, gt.entropy.data(), n_left, n_right, left_terms, right_terms),
                     split_gap(sum_left, total, n_left, n_right), i);
    }
    out.g = -1;
    if (choice.i < 0) return;
    out.g = choice.g;
    out.gap = choice.gap;
    out.thr = midpoint(dist[sc.order[choice.i]], dist[sc.order[choice.i + 1]]);
}

void best_split(const double* dist, const int32_t* y, int64_t N, int C, const GainTables& gt, SplitScratch& sc,
                Cand& out) {
    sort_order_line(dist, N, sc.order);
    split_order_line(dist, y, N, C, gt, sc, out);
}

// One task of the CPU engine: the rows [g0, g1) of one row group of source s.
struct RowGroup {
    int32_t s;
    int64_t g0, g1;
};

std::vector<RowGroup> row_groups(const Subset& d, int L) {
    std::vector<RowGroup> groups;
    const int64_t group_rows = rows_per_group(L);
    for (int64_t s = 0; s < (int64_t)d.x.size(); ++s) {
        if (d.n[s] < L) continue;
        const int64_t pivots = d.n[s] - L + 1;
        for (int64_t g0 = 0; g0 < pivots; g0 += group_rows)
            groups.push_back({(int32_t)s, g0, std::min(pivots, g0 + group_rows)});
    }
    return groups;
}

// The distances of a row group's pivots to every series, D[r * N + j], and
// where each is pending (A, row_distance).
void row_group_distances(const Subset& d, const LengthStats& st, const RowGroup& rg, std::vector<double>& D,
                         std::vector<int32_t>& A) {
    const int64_t N = (int64_t)d.x.size(), rows = rg.g1 - rg.g0;
    D.resize(rows * N);
    A.assign(rows * N, -1);
    RowScratch sc;
    for (int64_t j = 0; j < N; ++j) {
        double v;
        if (fixed_distance(rg.s, j, d.n[j], st.L, &v))
            for (int64_t r = 0; r < rows; ++r) D[r * N + j] = v;
        else
            rows_to_target(d, st, rg.s, j, rg.g0, rg.g0, rg.g1, D.data() + j, A.data() + j, N, sc);
    }
}

// The distances the gains see: with a partner, combined (into combined).
const double* gain_distances(const double* dist, int64_t N, const Partner& partner, std::vector<double>& combined) {
    if (!partner.d) return dist;
    for (int64_t j = 0; j < N; ++j) combined[j] = combine_distances(dist[j], partner.d[j], partner.op);
    return combined.data();
}

// What scoring a pivot needs besides its distances.
struct PivotScratch {
    explicit PivotScratch(int64_t N) : combined(N), lo(N), hi(N), order(N) {}
    std::vector<double> combined, lo, hi;
    std::vector<int32_t> order;  // pending_ranges_apart's
    SplitScratch split;
};

// Whether every pending entry of a pivot keeps its place (range_apart for
// each), its order line left in sc.split.order (sort_order_line of dist, the
// distances the gains see): where every range holds its distance
// (range_holds), along the line (neighbours_apart, as the GPU asks it; the
// line is sorted anyway for the screened gain), else pending_ranges_apart.
bool ranges_apart_on_line(const double* dist, int64_t N, PivotScratch& sc) {
    sort_order_line(dist, N, sc.split.order);
    for (int64_t j = 0; j < N; ++j)
        if (!range_holds(sc.lo[j], dist[j], sc.hi[j]))
            return pending_ranges_apart(sc.lo.data(), sc.hi.data(), N, sc.order.data());
    const int32_t* line = sc.split.order.data();
    for (int64_t t = 0; t + 1 < N; ++t)
        if (!neighbours_apart(sc.lo[line[t]], sc.hi[line[t]], sc.lo[line[t + 1]], sc.hi[line[t + 1]])) return false;
    return true;
}

// Settles pivot p's pending entries (at[j] >= 0) in dist where settling
// decides (settling_decides, floor: the k-th best gain kept so far); false
// where it does not: the pivot is none of the k best.
bool settle_where_it_decides(const Subset& d, const LengthStats& st, const GainTables& gt, const Partner& partner,
                             int64_t s, int64_t p, double* dist, const int32_t* at, int64_t floor,
                             PivotScratch& sc) {
    const int64_t N = (int64_t)d.x.size();
    bool pending = false;
    for (int64_t j = 0; j < N; ++j) {
        const SettleRange r = at[j] >= 0 ? entry_range(st, s, j, p, at[j], dist[j]) : SettleRange{dist[j], dist[j]};
        const SettleRange c = combined_range(r, partner.d, (int)j, partner.op);
        sc.lo[j] = c.lo;
        sc.hi[j] = c.hi;
        pending = pending || at[j] >= 0;
    }
    if (!pending) return true;
    // not lazily: as if no entry kept its place
    const double* gd = gain_distances(dist, N, partner, sc.combined);
    const bool apart = settle_lazily() && ranges_apart_on_line(gd, N, sc);
    Cand screened;
    if (apart) split_order_line(gd, d.y.data(), N, d.C, gt, sc.split, screened);
    const bool decides = settling_decides(apart, screened.g, floor);
    const int64_t pending_terms = (N - std::count(at, at + N, -1)) * st.L;
    settle_counts().add(pending_terms, decides ? pending_terms : 0);
    if (!decides) return false;
    for (int64_t j = 0; j < N; ++j)
        if (at[j] >= 0) dist[j] = settle_entry(d, st, s, j, p, at[j]);
    return true;
}

// The gains of the k best candidates a task has kept: the least of them,
// once there are k, is a floor (k_best_floor).
struct KeptGains {
    explicit KeptGains(int k_) : k(k_) {}
    void add(int64_t g) {
        if ((int)least_first.size() == k && g <= least_first.top()) return;
        least_first.push(g);
        if ((int)least_first.size() > k) least_first.pop();
    }
    int64_t floor() const { return (int)least_first.size() == k ? least_first.top() : -1; }
    int k;
    std::priority_queue<int64_t, std::vector<int64_t>, std::greater<int64_t>> least_first;
};

// The call's floor: the largest of its tasks' (each task's k kept gains belong
// to k distinct pivots, so the k best of the call have at least that gain).
void raise_floor(std::atomic<int64_t>& floor, int64_t g) {
    int64_t now = floor.load(std::memory_order_relaxed);
    while (g > now && !floor.compare_exchange_weak(now, g, std::memory_order_relaxed)) {
    }
}

// Scores every non-flat pivot of a row group into best (k: how many the call keeps).
void score_row_group(const Subset& d, const LengthStats& st, const GainTables& gt, const Partner& partner,
                     const RowGroup& rg, std::atomic<int64_t>& floor, TopK& best) {
    const int64_t N = (int64_t)d.x.size();
    std::vector<double> D;
    std::vector<int32_t> A;
    row_group_distances(d, st, rg, D, A);
    PivotScratch sc(N);
    KeptGains kept(best.k);
    for (int64_t p = rg.g0; p < rg.g1; ++p) {
        if (!pivot_is_candidate(st.inv_sd[st.off[rg.s] + p])) continue;  // flat, or holding a gap
        double* dist = D.data() + (p - rg.g0) * N;
        const int64_t now = floor.load(std::memory_order_relaxed);
        if (!settle_where_it_decides(d, st, gt, partner, rg.s, p, dist, A.data() + (p - rg.g0) * N, now, sc))
            continue;
        Cand c;
        best_split(gain_distances(dist, N, partner, sc.combined), d.y.data(), N, d.C, gt, sc.split, c);
        if (c.g < 0) continue;
        c.s = rg.s;
        c.p = (int32_t)p;
        c.L = st.L;
        c.row = d.row[rg.s];
        best.add(c);
        kept.add(c.g);
        raise_floor(floor, kept.floor());
    }
}

}  // namespace

bool& settle_lazily() {
    static bool lazily = true;
    return lazily;
}

SettleCounts& settle_counts() {
    static SettleCounts counts;
    return counts;
}

std::vector<Cand> discover_cpu(const Subset& d, const std::vector<int>& lengths, int k,
                               const Partner& partner, TsExec* ex) {
    const GainTables gt = gain_tables(d);
    TopK best(k);
    std::atomic<int64_t> floor(-1);
    LengthStats st, next;  // this length's window statistics, the next one's
    if (!lengths.empty()) length_stats(d, lengths.front(), st);
    for (size_t li = 0; li < lengths.size(); ++li) {
        check_interrupt(ex);
        const std::vector<RowGroup> groups = row_groups(d, lengths[li]);
        std::vector<TopK> part(groups.size(), TopK(k));
        // the next length's statistics, one task among this length's row
        // groups (in the middle: the caller runs the first tasks alone), so
        // that they are not a serial step between the lengths
        const int64_t n_groups = (int64_t)groups.size(), stats_task = li + 1 < lengths.size() ? n_groups / 2 : -1;
        parallel_for(ex, n_groups + (stats_task >= 0 ? 1 : 0), [&](int64_t t) {
            if (t == stats_task) return length_stats(d, lengths[li + 1], next);
            const int64_t g = stats_task >= 0 && t > stats_task ? t - 1 : t;
            score_row_group(d, st, gt, partner, groups[g], floor, part[g]);
            progress_add(ex, groups[g].g1 - groups[g].g0);
        });
        for (auto& p : part) best.merge(p);
        std::swap(st, next);
    }
    return best.take();
}

std::vector<double> pivot_distances(const Subset& d, int s, int p, int L) {
    const int64_t N = (int64_t)d.x.size();
    LengthStats st;
    length_stats(d, L, st);
    const int64_t group_rows = rows_per_group(L), g0 = (p / group_rows) * group_rows;
    std::vector<double> out(N);
    RowScratch sc;
    for (int64_t j = 0; j < N; ++j) {
        int32_t at = -1;
        if (!fixed_distance(s, j, d.n[j], L, &out[j])) rows_to_target(d, st, s, j, g0, p, p + 1, &out[j], &at, 1, sc);
        if (at >= 0) out[j] = settle_entry(d, st, s, j, p, at);
    }
    return out;
}

std::vector<double> direct_row_comoments(const Subset& d, int s, int j, int p, int L) {
    LengthStats st;
    length_stats(d, L, st);
    std::vector<double> out(d.n[j] - L + 1);
    direct_row(d.scaled[s]->y.data() + p, st.mean[st.off[s] + p], d.scaled[j]->y.data(), st.mean.data() + st.off[j],
               (int64_t)out.size(), L, out.data());
    return out;
}

std::vector<double> direct_column_comoments(const Subset& d, int s, int j, int p0, int p1, int L) {
    LengthStats st;
    length_stats(d, L, st);
    std::vector<double> out(p1 - p0);
    direct_column(d.scaled[s]->y.data(), st.mean.data() + st.off[s], p0, p1, d.scaled[j]->y.data(),
                  st.mean[st.off[j]], L, out.data());
    return out;
}

std::vector<PendingEntry> pending_entries(const Subset& d, int L) {
    LengthStats st;
    length_stats(d, L, st);
    const int64_t N = (int64_t)d.x.size();
    std::vector<PendingEntry> out;
    std::vector<double> D;
    std::vector<int32_t> A;
    for (const RowGroup& rg : row_groups(d, L)) {
        row_group_distances(d, st, rg, D, A);
        for (int64_t p = rg.g0; p < rg.g1; ++p)
            for (int64_t j = 0; j < N; ++j) {
                const int64_t e = (p - rg.g0) * N + j;
                if (A[e] < 0 || !pivot_is_candidate(st.inv_sd[st.off[rg.s] + p])) continue;
                out.push_back({rg.s, (int32_t)p, (int32_t)j, A[e], D[e], entry_range(st, rg.s, j, p, A[e], D[e]),
                               settle_entry(d, st, rg.s, j, p, A[e])});
            }
    }
    return out;
}

// Direct Definition 1 distance: every window's frame and z-values on its own
// (shapelets_detail.h), so identical windows give exactly 0 and nothing
// outside the two windows compared matters.  The minimum is taken over
// squared distances, with one square root at the end (the same value); the
// windows that hold a gap are left out (never read).
double shapelet_distance(const double* a, int L, const double* x, int64_t n, const int32_t* gaps_before) {
    const WindowFrame fa = window_frame(a, L);
    double best = std::numeric_limits<double>::infinity();  // squared
    for (int64_t u = 0; u + L <= n && best > 0.0; ++u) {
        if (window_has_gap(gaps_before, u, L)) continue;
        const double sq = exact_squared_distance(a, fa, x + u, window_frame(x + u, L), L);
        if (sq < best) best = sq;
    }
    return best < std::numeric_limits<double>::infinity() ? distance_from_squared(best) : best;
}

// ---- discovery dispatch and trees -----------------------------------------------

namespace {

std::vector<Cand> discover(const Subset& d, const std::vector<int>& lengths, int k, const Partner& partner,
                           TsExec* ex) {
    int64_t pivots = 0;
    const int64_t N = (int64_t)d.x.size();
    for (int L : lengths)
        for (int64_t s = 0; s < N; ++s)
            if (d.n[s] >= L) pivots += d.n[s] - L + 1;
    progress_start(ex, pivots);
    if (use_gpu(ex, TS_WORK_SHAPELETS, pivots * N)) {
#ifdef TSMINE_WITH_CUDA
        return gpu::discover(d, lengths, k, partner, ex);
#endif
    }
    return discover_cpu(d, lengths, k, partner, ex);
}

struct Input {
    const double* const* x;
    const int64_t* n;
    const int32_t* y;
    int64_t N;
    int C;
    std::vector<Scaled> scaled = {};  // every series in its frame (after validate)
};

// Every training series in its frame, in parallel.
void scale_inputs(Input& in, const TsExec* ex) {
    in.scaled.resize(in.N);
    parallel_for(ex, in.N, [&](int64_t i) { in.scaled[i] = scaled_series(in.x[i], in.n[i]); });
}

// The checks of min_length, max_length and step, in this order.
void check_lengths(int32_t min_length, int32_t max_length, int32_t step) {
    if (min_length < 2) invalid(format("min_length must be at least 2, not %d", min_length));
    if (max_length < min_length)
        invalid(format("max_length (%d) must not be less than min_length (%d)", max_length, min_length));
    if (step < 1) invalid(format("step must be at least 1, not %d", step));
}

void validate(const Input& in, int32_t min_length, int32_t max_length, int32_t step) {
    check_lengths(min_length, max_length, step);
    if (!in.x || !in.n || !in.y) invalid("training set arrays must not be NULL");
    if (in.N < 2)
        invalid("at least two training series are needed",
                "The training query must return two or more rows with a label and a series.");
    if (in.C < 2) invalid("the training set has only one class",
                          "Shapelets separate classes: the training query needs at least two distinct labels.");
    std::vector<int64_t> cnt(in.C, 0);
    for (int64_t i = 0; i < in.N; ++i) {
        if (in.y[i] < 0 || in.y[i] >= in.C)
            invalid(format("class id %d of training row %lld is outside 0..%d", in.y[i], (long long)i + 1,
                           in.C - 1));
        ++cnt[in.y[i]];
        if (!in.x[i]) invalid(format("training row %lld has a NULL series", (long long)i + 1));
        if (in.n[i] < min_length)
            invalid(format("training row %lld has %lld values, fewer than min_length %d", (long long)i + 1,
                           (long long)in.n[i], min_length),
                    "Lower min_length or leave the short series out of the training query.");
        if (in.n[i] > std::numeric_limits<int32_t>::max())
            invalid(format("training row %lld is too long for shapelet discovery", (long long)i + 1));
    }
    int present = 0;
    for (int64_t c : cnt) present += c > 0;
    if (present < 2) invalid("the training set has only one class",
                             "Shapelets separate classes: the training query needs at least two distinct labels.");
}

Subset make_subset(const Input& in, const std::vector<int64_t>& rows) {
    Subset s;
    s.C = in.C;
    for (int64_t r : rows) {
        s.x.push_back(in.scaled[r].values(in.x[r]));
        s.scaled.push_back(&in.scaled[r]);
        s.n.push_back(in.n[r]);
        s.y.push_back(in.y[r]);
        s.row.push_back(r);
    }
    return s;
}

struct NodeB {  // a node under construction
    TsShapeletNode n{};
    std::vector<int64_t> counts;
    const double* v[2] = {nullptr, nullptr};
};

// A node's split: one shapelet, or two with a logical operator; dist: the
// (combined) distance of every series of the node.
struct NodeSplit {
    Cand first, second;
    int op = TS_SHAPELET_SINGLE;
    std::vector<double> dist;
    const Cand& deciding() const { return op == TS_SHAPELET_SINGLE ? first : second; }
};

struct TreeBuilder {
    const Input& in;
    int minL, maxL, step, max_depth;
    bool logical;
    TsExec* ex;
    std::vector<NodeB> nodes;

    // Algorithm 2: the node of rows, then (unless it stays a leaf) its subtrees.
    int32_t build(const std::vector<int64_t>& rows, int depth) {
        check_interrupt(ex);
        const int32_t id = add_leaf(rows, depth);
        if (!may_split(nodes[id], rows.size(), depth)) return id;
        NodeSplit sp;
        if (!find_split(make_subset(in, rows), sp)) return id;
        std::vector<int64_t> lrows, rrows;
        for (size_t j = 0; j < rows.size(); ++j) (sp.dist[j] <= sp.deciding().thr ? lrows : rrows).push_back(rows[j]);
        if (lrows.empty() || rrows.empty()) return id;  // cannot happen with a valid split; be safe
        make_split(id, sp, rows.size());
        int32_t l = build(lrows, depth + 1);
        int32_t r = build(rrows, depth + 1);
        nodes[id].n.left = l;
        nodes[id].n.right = r;
        return id;
    }

    // A leaf with the class counts of rows and their majority (ties: the first class).
    int32_t add_leaf(const std::vector<int64_t>& rows, int depth) {
        const int32_t id = (int32_t)nodes.size();
        NodeB& nb = nodes.emplace_back();
        nb.counts.assign(in.C, 0);
        for (int64_t r : rows) ++nb.counts[in.y[r]];
        nb.n.kind = TS_SHAPELET_LEAF;
        nb.n.depth = depth;
        nb.n.n_series = (int64_t)rows.size();
        int32_t maj = 0;
        for (int c = 1; c < in.C; ++c)
            if (nb.counts[c] > nb.counts[maj]) maj = c;
        nb.n.class_id = maj;
        nb.n.left = nb.n.right = -1;
        return id;
    }

    bool may_split(const NodeB& nb, size_t n_rows, int depth) const {
        int present = 0;
        for (int64_t c : nb.counts) present += c > 0;
        return present >= 2 && n_rows >= 2 && (max_depth < 0 || depth < max_depth);
    }

    // The best shapelet of the subset (and, for logical trees, a better pair); false when none gains.
    bool find_split(const Subset& sub, NodeSplit& sp) {
        const auto lengths = pivot_lengths(sub, minL, maxL, step);
        if (lengths.empty()) return false;
        const auto single = discover(sub, lengths, 1, Partner{}, ex);
        if (single.empty() || single[0].g <= 0) return false;
        sp.first = single[0];
        sp.dist = pivot_distances(sub, sp.first.s, sp.first.p, sp.first.L);
        if (logical) add_partner(sub, lengths, sp);
        return true;
    }

    // The best partner of sp.first under AND and OR; taken when its gain is larger.
    void add_partner(const Subset& sub, const std::vector<int>& lengths, NodeSplit& sp) {
        Cand best;
        int best_op = TS_SHAPELET_SINGLE;
        for (int op : {TS_SHAPELET_AND, TS_SHAPELET_OR}) {
            const auto r = discover(sub, lengths, 1, Partner{sp.dist.data(), op}, ex);
            if (r.empty()) continue;
            const Cand& c = r[0];
            if (best_op == TS_SHAPELET_SINGLE || c.g > best.g || (c.g == best.g && c.gap > best.gap)) {
                best = c;
                best_op = op;
            }
        }
        if (best_op == TS_SHAPELET_SINGLE || best.g <= sp.first.g) return;
        sp.op = best_op;
        sp.second = best;
        const auto d2 = pivot_distances(sub, best.s, best.p, best.L);
        for (size_t j = 0; j < sp.dist.size(); ++j) sp.dist[j] = combine_distances(sp.dist[j], d2[j], sp.op);
    }

    void make_split(int32_t id, const NodeSplit& sp, size_t n_rows) {
        NodeB& nb = nodes[id];
        nb.n.kind = TS_SHAPELET_SPLIT;
        nb.n.op = sp.op;
        nb.n.n_shapelets = sp.op == TS_SHAPELET_SINGLE ? 1 : 2;
        const Cand* cs[2] = {&sp.first, &sp.second};
        for (int i = 0; i < nb.n.n_shapelets; ++i) {
            nb.n.source_row[i] = cs[i]->row;
            nb.n.start[i] = cs[i]->p;
            nb.n.length[i] = cs[i]->L;
            nb.v[i] = in.x[cs[i]->row] + cs[i]->p;
        }
        const Cand& win = sp.deciding();
        nb.n.threshold = win.thr;
        nb.n.gain = (double)win.g / kGainScale / (double)n_rows;
        nb.n.gap = win.gap;
    }
};

void check_tree(const TsShapeletNode* nodes, int32_t n_nodes, int32_t C) {
    if (!nodes || n_nodes < 1) invalid("the shapelet tree has no nodes");
    if (C < 1) invalid("the shapelet tree has no classes");
    for (int32_t i = 0; i < n_nodes; ++i) {
        const TsShapeletNode& nd = nodes[i];
        if (nd.kind == TS_SHAPELET_LEAF) {
            if (nd.class_id < 0 || nd.class_id >= C)
                invalid(format("leaf %d of the shapelet tree has class id %d, outside 0..%d", i, nd.class_id, C - 1));
            continue;
        }
        if (nd.kind != TS_SHAPELET_SPLIT) invalid(format("node %d of the shapelet tree has an unknown kind", i));
        if (nd.left <= i || nd.left >= n_nodes || nd.right <= i || nd.right >= n_nodes)
            invalid(format("node %d of the shapelet tree has invalid children", i),
                    "Children must come after their parent in the node list.");
        int want = nd.op == TS_SHAPELET_SINGLE ? 1 : (nd.op == TS_SHAPELET_AND || nd.op == TS_SHAPELET_OR) ? 2 : 0;
        if (want == 0 || nd.n_shapelets != want)
            invalid(format("node %d of the shapelet tree has an invalid logical operator or shapelet count", i));
        if (!std::isfinite(nd.threshold)) invalid(format("node %d of the shapelet tree has an invalid threshold", i));
        for (int k = 0; k < want; ++k) {
            if (nd.length[k] < 1 || !nd.values[k])
                invalid(format("node %d of the shapelet tree has an empty shapelet", i));
            for (int t = 0; t < nd.length[k]; ++t)
                if (!std::isfinite(nd.values[k][t]))
                    invalid(format("node %d of the shapelet tree has a shapelet with NaN or infinity", i));
        }
    }
}

// The class of series x (NaN and ±Infinity are gaps; a series with no window
// of a shapelet's length free of gaps is at kNoWindowDistance from it).
int32_t classify_one(const TsShapeletNode* nodes, const double* x, int64_t n) {
    std::vector<int32_t> gaps_before;
    const int32_t* gaps = gap_prefix(x, n, gaps_before) ? gaps_before.data() : nullptr;
    auto distance = [&](const TsShapeletNode& nd, int k) {
        return no_window_as_largest(shapelet_distance(nd.values[k], nd.length[k], x, n, gaps));
    };
    int32_t i = 0;
    for (;;) {
        const TsShapeletNode& nd = nodes[i];
        if (nd.kind == TS_SHAPELET_LEAF) return nd.class_id;
        double d = distance(nd, 0);
        if (nd.n_shapelets == 2) d = combine_distances(d, distance(nd, 1), nd.op);
        i = d <= nd.threshold ? nd.left : nd.right;
    }
}

// A series to classify or measure: not NULL, not empty (NaN and ±Infinity
// are gaps); a shapelet must be finite as well.
void check_series(const double* x, int64_t n, const char* what, bool finite = false) {
    if (!x && n > 0) invalid(format("%s is NULL", what));
    if (n < 1) invalid(format("%s is empty", what));
    if (finite) require_finite(x, n, what);
}

}  // namespace
}  // namespace shp
}  // namespace tsm

using namespace tsm;
using namespace tsm::shp;

extern "C" int tsm_shapelets(const double* const* series, const int64_t* lengths, const int32_t* class_ids,
                             int64_t n_series, int32_t n_classes, int32_t min_length, int32_t max_length,
                             int32_t step, int64_t k, TsExec* ex, TsShapelets* out, TsStatus* st) noexcept {
    return run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        ex->used_backend = TS_BACKEND_CPU;
        k = std::min<int64_t>(args::top_k(k, "Give how many shapelets to return."), INT32_MAX);
        Input in{series, lengths, class_ids, n_series, n_classes};
        validate(in, min_length, max_length, step);
        scale_inputs(in, ex);
        std::vector<int64_t> rows(n_series);
        for (int64_t i = 0; i < n_series; ++i) rows[i] = i;
        Subset sub = make_subset(in, rows);
        auto lens = pivot_lengths(sub, min_length, max_length, step);
        auto best = discover(sub, lens, k, Partner{}, ex);
        out->count = (int32_t)best.size();
        out->items = alloc_result<TsShapelet>(ex, best.size());
        for (size_t i = 0; i < best.size(); ++i) {
            const Cand& c = best[i];
            TsShapelet& s = out->items[i];
            s.source_row = c.row;
            s.start = c.p;
            s.length = c.L;
            s.threshold = c.thr;
            s.info_gain = (double)c.g / kGainScale / (double)n_series;
            s.gap = c.gap;
            s.values = alloc_result<double>(ex, c.L);
            std::memcpy(s.values, series[c.row] + c.p, sizeof(double) * c.L);
        }
    });
}

extern "C" int tsm_shapelet_distance(const double* shapelet, int32_t length, const double* series, int64_t n,
                                     double* out, TsStatus* st) noexcept {
    return guard(st, [&] {
        *out = 0;
        if (length < 1 || !shapelet) invalid("the shapelet is empty");
        check_series(shapelet, length, "the shapelet", true);
        if (n < length)
            invalid(format("the series (%lld values) is shorter than the shapelet (%d values)", (long long)n, length),
                    "The distance is the minimum over windows of the shapelet's length; the series has none.");
        check_series(series, n, "the series");
        std::vector<int32_t> gaps_before;
        const int32_t* gaps = gap_prefix(series, n, gaps_before) ? gaps_before.data() : nullptr;
        const double d = shapelet_distance(shapelet, length, series, n, gaps);
        *out = d < std::numeric_limits<double>::infinity() ? d : std::numeric_limits<double>::quiet_NaN();
    });
}

extern "C" int tsm_shapelet_tree(const double* const* series, const int64_t* lengths, const int32_t* class_ids,
                                 int64_t n_series, int32_t n_classes, int32_t min_length, int32_t max_length,
                                 int32_t step, int64_t max_depth, int32_t logical, TsExec* ex, TsShapeletTree* out,
                                 TsStatus* st) noexcept {
    return run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        ex->used_backend = TS_BACKEND_CPU;
        check_lengths(min_length, max_length, step);
        if (max_depth != TS_ARG_NULL && max_depth < 0)
            invalid(format("max_depth must be at least 0, not %lld", (long long)max_depth),
                    "NULL grows the tree until its leaves are pure or no split gains.");
        Input in{series, lengths, class_ids, n_series, n_classes};
        validate(in, min_length, max_length, step);
        scale_inputs(in, ex);
        const int depth_limit = max_depth == TS_ARG_NULL ? -1 : (int)std::min<int64_t>(max_depth, INT32_MAX);
        TreeBuilder tb{in, min_length, max_length, step, depth_limit, logical != 0, ex, {}};
        std::vector<int64_t> rows(n_series);
        for (int64_t i = 0; i < n_series; ++i) rows[i] = i;
        tb.build(rows, 0);
        out->n_nodes = (int32_t)tb.nodes.size();
        out->n_classes = n_classes;
        out->nodes = alloc_result<TsShapeletNode>(ex, tb.nodes.size());
        for (size_t i = 0; i < tb.nodes.size(); ++i) {
            NodeB& nb = tb.nodes[i];
            TsShapeletNode& o = out->nodes[i];
            o = nb.n;
            o.class_counts = alloc_result<int64_t>(ex, n_classes);
            std::memcpy(o.class_counts, nb.counts.data(), sizeof(int64_t) * n_classes);
            for (int s = 0; s < 2; ++s) {
                o.values[s] = nullptr;
                if (s < o.n_shapelets) {
                    o.values[s] = alloc_result<double>(ex, o.length[s]);
                    std::memcpy(o.values[s], nb.v[s], sizeof(double) * o.length[s]);
                }
            }
        }
    });
}

extern "C" int tsm_shapelet_classify(const TsShapeletNode* nodes, int32_t n_nodes, int32_t n_classes,
                                     const double* series, int64_t n, int32_t* class_out, TsStatus* st) noexcept {
    return guard(st, [&] {
        *class_out = -1;
        check_tree(nodes, n_nodes, n_classes);
        check_series(series, n, "the series");
        *class_out = classify_one(nodes, series, n);
    });
}

extern "C" int tsm_shapelet_classify_batch(const TsShapeletNode* nodes, int32_t n_nodes, int32_t n_classes,
                                           const double* const* series, const int64_t* lengths, int64_t count,
                                           TsExec* ex, int32_t* class_out, TsStatus* st) noexcept {
    return guard(st, [&] {
        ex->used_backend = TS_BACKEND_CPU;
        check_tree(nodes, n_nodes, n_classes);
        if (count < 0) invalid("negative number of series");
        if (count > 0 && (!series || !lengths || !class_out)) invalid("series arrays must not be NULL");
        for (int64_t i = 0; i < count; ++i) {
            class_out[i] = -1;
            check_series(series[i], lengths[i], format("series %lld", (long long)i + 1).c_str());
        }
        const int64_t per = 16;
        parallel_for(ex, (count + per - 1) / per, [&](int64_t t) {
            for (int64_t i = t * per; i < std::min(count, t * per + per); ++i)
                class_out[i] = classify_one(nodes, series[i], lengths[i]);
        });
    });
}
