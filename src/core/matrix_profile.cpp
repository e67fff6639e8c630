// matrix_profile.cpp — the exact self-join matrix profile: preparation shared
// with the GPU path, the multithreaded CPU sweep, finalisation, and the C entry.
// See mp_detail.h for the arithmetic and the conventions.
#include "matrix_profile.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>

#include "api_matrix_profile.h"
#include "args.h"
#include "dispatch.h"
#include "error.h"
#include "estimate.h"
#include "finite.h"
#include "parallel.h"
#include "progress.h"
#include "sliding.h"

namespace tsm {
namespace mp {

FinalizeArgs Prepared::finalize_args() const {
    FinalizeArgs a;
    a.x = x;
    a.x_b = x;
    a.scale = &scale;
    a.xs = xs.data();
    a.mu = mu.data();
    a.inv_std = inv_std.data();
    a.constant = constant.data();
    a.xs_b = a.xs;
    a.mu_b = a.mu;
    a.inv_std_b = a.inv_std;
    a.constant_b = a.constant;
    a.next_const = next_const.data();
    a.first_const = first_const;
    a.count = count;
    a.excl = excl;
    a.m = m;
    a.codec = codec;
    a.gap = has_gaps() ? gap.data() : nullptr;
    a.next_ok = has_gaps() ? next_ok.data() : nullptr;
    return a;
}

double lead_fill(const double* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        if (!is_gap(x[i])) return x[i];
    return 0;
}

bool plan_gaps(const double* x, int64_t n, int m, GapPlan& g) {
    if (first_nonfinite(x, n) < 0) return false;
    const int64_t count = n - m + 1;
    const double lead = lead_fill(x, n);
    g.filled.resize(n);
    std::vector<int64_t>& before = g.next_ok;  // first before[i], the gaps in x[0..i); then next_ok, over it
    before.resize(n + 1);
    before[0] = 0;
    int64_t last_ok = -1;
    for (int64_t i = 0; i < n; ++i) {
        const bool gap = is_gap(x[i]);
        if (!gap) last_ok = i;
        g.filled[i] = filled_value(x, last_ok, lead);
        before[i + 1] = before[i] + gap;
    }
    g.gap.resize(count);
    for (int64_t i = 0; i < count; ++i) g.gap[i] = window_has_gap(before.data(), i, m);
    g.next_ok.resize(count + 1);
    g.next_ok[count] = count;
    for (int64_t i = count - 1; i >= 0; --i) g.next_ok[i] = g.gap[i] ? g.next_ok[i + 1] : i;
    return true;
}

void plan_no_gaps(int64_t n, int m, GapPlan& g) {
    const int64_t count = n - m + 1;
    g.filled.clear();
    g.gap.assign(count, 0);
    g.next_ok.resize(count + 1);
    for (int64_t i = 0; i <= count; ++i) g.next_ok[i] = i;
}

void ab_gap_plans(const double* a, int64_t na, const double* b, int64_t nb, int m, GapPlan& ga, GapPlan& gb) {
    const bool in_a = plan_gaps(a, na, m, ga), in_b = plan_gaps(b, nb, m, gb);
    if (in_a && !in_b) plan_no_gaps(nb, m, gb);
    if (in_b && !in_a) plan_no_gaps(na, m, ga);
}

namespace {

// The guard's tables (mp_detail.h), from the per-window factors.
void prepare_guard(Prepared& p, const TsExec* ex) {
    const int64_t nr = guard_row_entries(p.count), nc = guard_col_entries(p.count, p.excl);
    p.guard_rows.resize(nr);
    p.guard_cols.resize(nc);
    const double *in = p.inv_norm.data(), *df = p.df.data(), *dg = p.dg.data();
    const uint8_t* gap = p.has_gaps() ? p.gap.data() : nullptr;
    const int64_t per = 1024;
    parallel_for(ex, (nr + nc + per - 1) / per, [&](int64_t b) {
        for (int64_t e = b * per; e < std::min(nr + nc, (b + 1) * per); ++e)
            (e < nr ? p.guard_rows[e] : p.guard_cols[e - nr]) = guard_entry(in, df, dg, gap, p.count, p.excl, nr, e);
    });
}

}  // namespace

namespace {

// The sample positions of a series of n values (series_samples).
int64_t sample_count(int64_t n) { return std::min(n, kCentreSamples); }
int64_t sample_at(int64_t n, int64_t k, int64_t i) { return k > 1 ? i * (n - 1) / (k - 1) : 0; }

CentreSamples quantiles(std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    const int64_t k = (int64_t)v.size();
    CentreSamples q;
    q.q1 = v[(k - 1) / 8];
    q.med = v[(k - 1) / 2];
    q.q7 = v[7 * (k - 1) / 8];
    return q;
}

}  // namespace

CentreSamples series_samples(const double* x, int64_t n) {
    const int64_t k = sample_count(n);
    std::vector<double> v(k);
    for (int64_t i = 0; i < k; ++i) v[i] = x[sample_at(n, k, i)];
    return quantiles(v);
}

CentreSamples filled_samples(const double* x, int64_t n, double lead) {
    const int64_t k = sample_count(n);
    std::vector<double> v(k);
    int64_t last_ok = -1;  // the last finite position at or before the previous sample's
    for (int64_t i = 0, prev = -1; i < k; ++i) {
        const int64_t p = sample_at(n, k, i);
        for (int64_t j = p; j > prev; --j)  // every position once in all
            if (!is_gap(x[j])) {
                last_ok = j;
                break;
            }
        v[i] = filled_value(x, last_ok, lead);
        prev = p;
    }
    return quantiles(v);
}

CentreSamples joint_samples(const CentreSamples& a, int64_t na, const CentreSamples& b, int64_t nb) {
    CentreSamples q;
    q.q1 = std::min(a.q1, b.q1);
    q.med = nb > na ? b.med : a.med;
    q.q7 = std::max(a.q7, b.q7);
    return q;
}

namespace {

// The minimum and maximum of x[0..n).
void series_range(const double* x, int64_t n, double* lo, double* hi) {
    *lo = *hi = x[0];
    for (int64_t i = 1; i < n; ++i) {
        *lo = std::min(*lo, x[i]);
        *hi = std::max(*hi, x[i]);
    }
}

}  // namespace

const double* series_values(const double* x, const GapPlan& g) { return g.filled.empty() ? x : g.filled.data(); }

SeriesScale own_scale(const double* x, int64_t n) {
    double lo, hi;
    series_range(x, n, &lo, &hi);
    return series_scale(lo, hi, series_samples(x, n));
}

SeriesScale joint_scale(const double* a, int64_t na, const double* b, int64_t nb) {
    double lo_a, hi_a, lo_b, hi_b, lo, hi;
    series_range(a, na, &lo_a, &hi_a);
    series_range(b, nb, &lo_b, &hi_b);
    joint_range(lo_a, hi_a, lo_b, hi_b, &lo, &hi);
    return series_scale(lo, hi, joint_samples(series_samples(a, na), na, series_samples(b, nb), nb));
}

void prepare(const double* series, int64_t n, int m, int64_t excl, const TsExec* ex, Prepared& p, bool raw) {
    GapPlan gaps;
    plan_gaps(series, n, m, gaps);
    const double* x = series_values(series, gaps);
    prepare_planned(series, n, m, excl, ex, gaps, own_scale(x, n), p, raw);
}

void prepare_planned(const double* series, int64_t n, int m, int64_t excl, const TsExec* ex, GapPlan& gaps,
                     const SeriesScale& scale, Prepared& p, bool raw) {
    // the filled series, where filled; the flags after the guard's tables
    p.x = series_values(series, gaps);
    p.filled.swap(gaps.filled);
    p.gap.swap(gaps.gap);
    p.next_ok.swap(gaps.next_ok);
    const double* x = p.x;
    p.n = n;
    p.m = m;
    p.excl = excl;
    p.count = n - m + 1;
    const int64_t count = p.count;
    p.scale = scale;
    p.xs.resize(n);
    for (int64_t i = 0; i < n; ++i) p.xs[i] = scaled_value(x[i], p.scale);

    p.mu.resize(count);
    p.inv_std.resize(count);
    p.constant.resize(count);
    for_each_stats_chunk(ex, count, m, [&](int64_t i0, int64_t i1) {
        prepare_chunk(x, p.xs.data(), m, i0, i1, p.mu.data(), p.inv_std.data(), p.constant.data());
    });
    p.inv_norm.resize(count);
    p.inv4.resize(count);
    p.df.resize(count);
    p.dg.resize(count);
    const double rsm = 1.0 / std::sqrt((double)m);
    const int64_t blocks = (count + kStatsBlock - 1) / kStatsBlock;
    parallel_for(ex, blocks, [&](int64_t b) {
        const int64_t b0 = b * kStatsBlock, b1 = std::min(count, b0 + kStatsBlock);
        for (int64_t i = b0; i < b1; ++i)
            prepare_window(p.xs.data(), p.mu.data(), p.inv_std.data(), m, rsm, raw, i, p.inv_norm.data(),
                           p.inv4.data(), p.df.data(), p.dg.data());
    });
    prepare_guard(p, ex);
    if (p.has_gaps())
        for (int64_t i = 0; i < count; ++i)
            mark_gap_window(p.gap.data(), i, p.inv_norm.data(), p.inv4.data(), p.constant.data());
    p.next_const.resize(count + 1);
    p.next_const[count] = count;
    for (int64_t i = count - 1; i >= 0; --i) p.next_const[i] = p.constant[i] ? i : p.next_const[i + 1];
    p.first_const = p.next_const[0];
    p.codec = make_codec(count, raw, m);
}

namespace {

constexpr int64_t kCpuDiags = kGuardDiags;  // diagonals per CPU task (one segment of rows): one guard tile column
static_assert(kTileDiags % kCpuDiags == 0, "a unit of the tiles is whole CPU tasks");

struct Task {
    int64_t seg, k0, k1;
};

// One sweep: the rows' windows and the columns' (the same in the self-join;
// A and B, or B and A, in an AB-join), the first diagonal and the codec.
// Pair (r, j = r + k), k ≥ excl; the guard's column tables are the columns'
// (prepared with this excl).
struct Sweep {
    const Prepared* row;
    const Prepared* col;
    int64_t excl;
    KeyCodec codec;
};

// Which keys a sweep updates: the rows' (index: the column), the columns'
// (index: the row), or both (the self-join).
enum Sides : int { kRowsOnly = 1, kColsOnly = 2, kBothSides = 3 };

// The co-moments of the nd diagonals from k0 at row r, directly (0 past the
// columns' last window): eight at a time in lockstep (direct_comoments: the
// same bits as one by one, the latencies overlapped), the rest one by one.
inline void direct_row(const Sweep& S, int64_t r, int64_t k0, int64_t nd, double* cov) {
    constexpr int kLockstep = 8;
    const Prepared &R = *S.row, &C = *S.col;
    int64_t d = 0;
    for (; d + kLockstep <= nd && r + k0 + d + kLockstep <= C.count; d += kLockstep)
        direct_comoments<kLockstep>(R.xs.data(), r, C.xs.data(), r + k0 + d, R.m, R.mu[r], C.mu.data() + r + k0 + d,
                                    cov + d);
    for (; d < nd; ++d) {
        const int64_t j = r + k0 + d;
        cov[d] = j < C.count ? direct_comoment(R.xs.data(), r, C.xs.data(), j, R.m, R.mu[r], C.mu[j]) : 0.0;
    }
}

// The rows [r0, r1) of a task: those where its first diagonal k0 exists.
inline int64_t task_row_end(const Sweep& S, const Task& t) {
    const int64_t R = segment_rows(S.row->count);
    return std::min(std::min(t.seg * R + R, S.row->count), S.col->count - t.k0);
}

// A pair's key (core, its value's part; keep: the gap mask) into the row's
// best (tagged with the column j: row_tag) and the column's slot (tagged with
// the row: col_tag), for the SIDES a sweep updates.
template <int SIDES>
__attribute__((always_inline)) inline void merge_pair(uint64_t core, uint64_t keep, uint64_t row_tag,
                                                      uint64_t col_tag, uint64_t& best, uint64_t& slot) {
    if (SIDES & kRowsOnly) {
        const uint64_t rk = (core | row_tag) & keep;
        best = rk > best ? rk : best;
    }
    if (SIDES & kColsOnly) {
        const uint64_t cc = (core | col_tag) & keep;
        slot = cc > slot ? cc : slot;
    }
}

// One task: diagonals [k0, k1) over the rows [r0, r1) of segment seg.  Writes
// the best key of every row r (row_keys[r − r0]) and of every column j
// (col_keys[j − r0 − k0]) into scratch, for the SIDES it updates; *rows_out,
// *cols_out: how many.  Variant only makes the FMA-target and the generic
// builds two instantiations; Raw: the pair's value is raw_d (raw values),
// else sweep_v (mp_detail.h).  Gaps (rows and columns both with gap flags:
// mp_detail.h, AB-join) drops the pairs with a window that holds a gap
// (their value is NaN, mp_detail.h: gap_mask / gap_mask_raw, branch-free),
// the only difference of the series with gaps.
template <int Variant, int SIDES, bool Raw, bool Gaps>
__attribute__((always_inline)) inline void sweep_body(const Sweep& S, const Task& t, uint64_t* row_keys,
                                                      uint64_t* col_keys, double* cov, int64_t* rows_out,
                                                      int64_t* cols_out) {
    constexpr bool kRows = (SIDES & kRowsOnly) != 0, kCols = (SIDES & kColsOnly) != 0;
    const Prepared &R = *S.row, &C = *S.col;
    const int64_t ccount = C.count;
    const int64_t r0 = t.seg * segment_rows(S.row->count);
    const int64_t r1 = task_row_end(S, t);
    const int64_t nd0 = t.k1 - t.k0;
    const double* __restrict df = C.df.data();
    const double* __restrict dg = C.dg.data();
    const double* __restrict inv = R.inv_norm.data();
    const double* __restrict colw = C.inv4.data();  // inv_norm/4, or raw values' σ²
    const double* __restrict mu = C.mu.data();
    const KeyCodec codec = S.codec;
    const double cterm = codec.cterm;
    const uint64_t low = codec.low;
    const double off = codec.off;
    const int m = R.m;
    direct_row(S, r0, t.k0, nd0, cov);
    const int64_t ncol = (r1 - r0) + nd0 - 1;
    if (kCols) std::fill(col_keys, col_keys + ncol, uint64_t(0));
    double guard_err = 0;  // the guard's bound (mp_detail.h), tile by tile
    int mode = kTileRecur;
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t nd = std::min(t.k1, ccount - r) - t.k0;  // diagonals alive at row r
        if (r % kGuardRows == 0) {
            mode = guard_tile(&guard_err, r == r0, R.guard_rows[r / kGuardRows],
                              C.guard_cols[(r + t.k0 - S.excl) / kGuardRows], m);
            if (mode == kTileRestart) direct_row(S, r - 1, t.k0, nd, cov);  // never at r0
        }
        const bool direct = r > r0 && mode == kTileDirect;
        const int64_t jb = r + t.k0;
        const double dfr = R.df[r], dgr = R.dg[r], invr = inv[r], mur = R.mu[r], colr = R.inv4[r];
        const double tr = Raw ? raw_row_floor(colr) : 0.0, cr = Raw ? raw_row_cterm(colr, cterm) : 0.0;
        if (Gaps && R.gap[r]) {  // a row with a gap: no key, the co-moments go on as in any row
            if (direct) direct_row(S, r, t.k0, nd, cov);
            else if (r > r0)
                for (int64_t d = 0; d < nd; ++d) cov[d] = comoment_next(cov[d], dfr, dgr, df[jb + d], dg[jb + d]);
            if (kRows) row_keys[r - r0] = 0;
            continue;
        }
        const uint64_t rlow = low - (uint64_t)r;
        uint64_t* __restrict ck = col_keys + (r - r0);
        uint64_t best = 0;
        if (r > r0 && !direct) {
            for (int64_t d = 0; d < nd; ++d) {
                const int64_t j = jb + d;
                const double c = comoment_next(cov[d], dfr, dgr, df[j], dg[j]);
                cov[d] = c;
                const double v = Raw ? raw_d(c, mur, colr, tr, cr, mu[j], colw[j]) : sweep_v(c, invr, colw[j], off);
                const uint64_t core = Raw ? raw_core(v, codec) : v_core(v, codec);
                const uint64_t keep = !Gaps ? ~uint64_t(0) : Raw ? gap_mask_raw(v) : gap_mask(v);
                merge_pair<SIDES>(core, keep, low - (uint64_t)j, rlow, best, ck[d]);
            }
        } else {
            if (direct) direct_row(S, r, t.k0, nd, cov);
            for (int64_t d = 0; d < nd; ++d) {
                const int64_t j = jb + d;
                const double v =
                    Raw ? raw_d(cov[d], mur, colr, tr, cr, mu[j], colw[j]) : sweep_v(cov[d], invr, colw[j], off);
                const uint64_t core = Raw ? raw_core(v, codec) : v_core(v, codec);
                const uint64_t keep = !Gaps ? ~uint64_t(0) : Raw ? gap_mask_raw(v) : gap_mask(v);
                merge_pair<SIDES>(core, keep, low - (uint64_t)j, rlow, best, ck[d]);
            }
        }
        if (kRows) row_keys[r - r0] = best;
    }
    *rows_out = kRows ? r1 - r0 : 0;
    *cols_out = kCols ? ncol : 0;
}

using SweepFn = void (*)(const Sweep&, const Task&, uint64_t*, uint64_t*, double*, int64_t*, int64_t*);

#if defined(__x86_64__)
template <int SIDES, bool Raw, bool Gaps>
__attribute__((target("avx2,fma"))) void sweep_fma(const Sweep& S, const Task& t, uint64_t* row_keys,
                                                   uint64_t* col_keys, double* cov, int64_t* rows_out,
                                                   int64_t* cols_out) {
    sweep_body<0, SIDES, Raw, Gaps>(S, t, row_keys, col_keys, cov, rows_out, cols_out);
}
#endif
template <int SIDES, bool Raw, bool Gaps>
void sweep_generic(const Sweep& S, const Task& t, uint64_t* row_keys, uint64_t* col_keys, double* cov,
                   int64_t* rows_out, int64_t* cols_out) {
    sweep_body<1, SIDES, Raw, Gaps>(S, t, row_keys, col_keys, cov, rows_out, cols_out);
}

// The instantiation for this CPU, these sides, distances and gaps.
template <int SIDES, bool Raw, bool Gaps>
SweepFn sweep_fn() {
#if defined(__x86_64__)
    if (cpu_has_fma()) return &sweep_fma<SIDES, Raw, Gaps>;
#endif
    return &sweep_generic<SIDES, Raw, Gaps>;
}

template <int SIDES>
SweepFn sweep_fn(bool raw, bool gaps) {
    if (raw) return gaps ? sweep_fn<SIDES, true, true>() : sweep_fn<SIDES, true, false>();
    return gaps ? sweep_fn<SIDES, false, true>() : sweep_fn<SIDES, false, false>();
}

// raw: raw-value distances, gaps: series with gap flags.
SweepFn sweep_fn(int sides, bool raw, bool gaps) {
    return sides == kBothSides ? sweep_fn<kBothSides>(raw, gaps)
                               : sides == kRowsOnly ? sweep_fn<kRowsOnly>(raw, gaps) : sweep_fn<kColsOnly>(raw, gaps);
}

inline void atomic_max(std::atomic<uint64_t>& a, uint64_t v) {
    uint64_t cur = a.load(std::memory_order_relaxed);
    while (v > cur && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
}

// The tasks of a range of units: (segment, block of kCpuDiags diagonals)
// with at least one row, segment-major.  All units: every task of the sweep.
std::vector<Task> cpu_tasks(const Prepared& P, const UnitRange& units) {
    const int64_t count = P.count;
    std::vector<Task> tasks;
    for (int64_t s = units.seg0; s <= units.seg1; ++s) {
        const int64_t r0 = s * segment_rows(count);
        const int64_t b0 = s == units.seg0 ? units.band0 : 0;
        const int64_t b1 = s == units.seg1 ? units.band1 : units_in_segment(count, P.excl, s);
        const int64_t k_end = std::min(P.excl + b1 * kTileDiags, count - r0);
        for (int64_t k0 = P.excl + b0 * kTileDiags; k0 < k_end; k0 += kCpuDiags)
            tasks.push_back({s, k0, std::min(k0 + kCpuDiags, count)});
    }
    return tasks;
}

// Every task of a sweep over all its rows and diagonals (the AB-join's
// passes): the self-join's tasks when rows and columns are one series.
std::vector<Task> all_tasks(const Sweep& S) {
    std::vector<Task> tasks;
    const int64_t ccount = S.col->count, R = segment_rows(S.row->count);
    for (int64_t s = 0; s * R < S.row->count && s * R + S.excl < ccount; ++s)
        for (int64_t k0 = S.excl; k0 < ccount - s * R; k0 += kCpuDiags)
            tasks.push_back({s, k0, std::min(k0 + kCpuDiags, ccount)});
    return tasks;
}

// The tasks swept in parallel; the keys of the sides updated merged into
// row_best (the rows' windows) and col_best (the columns').
void run_tasks(const Sweep& S, int sides, const std::vector<Task>& tasks, const TsExec* ex,
               std::atomic<uint64_t>* row_best, std::atomic<uint64_t>* col_best) {
    const SweepFn fn = sweep_fn(sides, S.codec.raw, S.row->has_gaps());
    parallel_for(ex, (int64_t)tasks.size(), [&](int64_t ti) {
        thread_local std::vector<uint64_t> row_keys, col_keys;
        thread_local std::vector<double> cov;
        row_keys.resize(kSegRows);  // the longest segment
        col_keys.resize(kSegRows + kCpuDiags);
        cov.resize(kCpuDiags);
        const Task& t = tasks[ti];
        int64_t rows = 0, cols = 0;
        fn(S, t, row_keys.data(), col_keys.data(), cov.data(), &rows, &cols);
        const int64_t r0 = t.seg * segment_rows(S.row->count);
        for (int64_t r = 0; r < rows; ++r)
            if (row_keys[r]) atomic_max(row_best[r0 + r], row_keys[r]);
        for (int64_t c = 0; c < cols; ++c)
            if (col_keys[c]) atomic_max(col_best[r0 + t.k0 + c], col_keys[c]);
        progress_add(ex, 1);
    });
}

std::unique_ptr<std::atomic<uint64_t>[]> zero_keys(int64_t count) {
    std::unique_ptr<std::atomic<uint64_t>[]> best(new std::atomic<uint64_t>[count]);
    for (int64_t i = 0; i < count; ++i) best[i].store(0, std::memory_order_relaxed);
    return best;
}

void copy_keys(const std::atomic<uint64_t>* best, int64_t count, std::vector<uint64_t>& keys) {
    keys.resize(count);
    for (int64_t i = 0; i < count; ++i) keys[i] = best[i].load(std::memory_order_relaxed);
}

}  // namespace

void cpu_sweep(const Prepared& P, const TsExec* ex, const UnitRange& units, std::vector<uint64_t>& keys) {
    const Sweep S{&P, &P, P.excl, P.codec};
    auto best = zero_keys(P.count);
    const std::vector<Task> tasks = cpu_tasks(P, units);
    progress_start(ex, (int64_t)tasks.size());
    run_tasks(S, kBothSides, tasks, ex, best.get(), best.get());
    copy_keys(best.get(), P.count, keys);
}

void cpu_sweep_ab(const Prepared& A, const Prepared& B, const KeyCodec& codec, const TsExec* ex,
                  std::vector<uint64_t>& keys) {
    const Sweep upper{&A, &B, B.excl, codec};  // j = i + k of B, k ≥ excl: A's rows
    const Sweep lower{&B, &A, A.excl, codec};  // i = r + k of A, k ≥ max(excl, 1): A's columns
    auto best = zero_keys(A.count);
    const std::vector<Task> upper_tasks = all_tasks(upper), lower_tasks = all_tasks(lower);
    progress_start(ex, (int64_t)(upper_tasks.size() + lower_tasks.size()));
    run_tasks(upper, kRowsOnly, upper_tasks, ex, best.get(), nullptr);
    run_tasks(lower, kColsOnly, lower_tasks, ex, nullptr, best.get());
    copy_keys(best.get(), A.count, keys);
}

void cpu_finalize(const FinalizeArgs& a, const TsExec* ex, const uint64_t* keys, int64_t count, double* dist,
                  int64_t* index) {
    const int64_t per = std::max<int64_t>(256, (int64_t(1) << 22) / std::max(a.m, 1));
    parallel_for(ex, (count + per - 1) / per, [&](int64_t b) {
        const int64_t lo = b * per, hi = std::min(count, lo + per);
        for (int64_t p = lo; p < hi; ++p) finalize_one(a, p, keys[p], &dist[p], &index[p]);
    });
}

}  // namespace mp

void check_raw_distances(const double* dist, const int64_t* index, int64_t count) {
    for (int64_t i = 0; i < count; ++i)
        if (index[i] >= 0 && std::isinf(dist[i]))
            throw Error(TS_INVALID_ARGUMENT, kNumericOutOfRange,
                        format("the raw-value distance of the window at position %lld to its nearest neighbour "
                               "exceeds the float64 range",
                               (long long)(i + 1)),
                        "Scale the series down (a power of two changes every distance by the same factor), "
                        "or use normalized => true.");
}

void matrix_profile(const double* x, int64_t n, int m, int64_t exclusion, TsExec* ex, double* dist,
                    int64_t* index, bool raw) {
    if (m < 1 || n < m || exclusion < 1)
        throw Error(TS_INTERNAL, kInternal, "matrix_profile: bad arguments");
    const int64_t count = n - m + 1;
    if (use_gpu(ex, TS_WORK_MATRIX_PROFILE, n, m)) {
#ifdef TSMINE_WITH_CUDA
        gpu::matrix_profile(x, n, m, exclusion, split_gpus(ex, n), ex, dist, index, raw);  // prepares on the device
#endif
    } else {
        mp::Prepared P;
        mp::prepare(x, n, m, exclusion, ex, P, raw);
        std::vector<uint64_t> keys;
        mp::cpu_sweep(P, ex, mp::all_units(count, exclusion), keys);
        check_interrupt(ex);
        mp::cpu_finalize(P.finalize_args(), ex, keys.data(), count, dist, index);
    }
    if (raw) check_raw_distances(dist, index, count);
}

void matrix_profile_keys(const double* x, int64_t n, int m, int64_t exclusion, const mp::UnitRange& units,
                         TsExec* ex, uint64_t* keys, bool raw) {
    if (m < 1 || n < m || exclusion < 1)
        throw Error(TS_INTERNAL, kInternal, "matrix_profile_keys: bad arguments");
    if (use_gpu(ex, TS_WORK_MATRIX_PROFILE, n, m)) {
#ifdef TSMINE_WITH_CUDA
        gpu::matrix_profile_keys(x, n, m, exclusion, units, split_gpus(ex, n), ex, keys, raw);
#endif
        return;
    }
    mp::Prepared P;
    mp::prepare(x, n, m, exclusion, ex, P, raw);
    std::vector<uint64_t> best;
    mp::cpu_sweep(P, ex, units, best);
    std::copy(best.begin(), best.end(), keys);
}

void matrix_profile_finish(const double* x, int64_t n, int m, int64_t exclusion, const uint64_t* keys, TsExec* ex,
                           double* dist, int64_t* index, bool raw) {
    if (m < 1 || n < m || exclusion < 1)
        throw Error(TS_INTERNAL, kInternal, "matrix_profile_finish: bad arguments");
    if (use_gpu(ex, TS_WORK_MATRIX_PROFILE, n, m)) {
#ifdef TSMINE_WITH_CUDA
        gpu::matrix_profile_finish(x, n, m, exclusion, keys, ex, dist, index, raw);
#endif
    } else {
        mp::Prepared P;
        mp::prepare(x, n, m, exclusion, ex, P, raw);
        mp::cpu_finalize(P.finalize_args(), ex, keys, n - m + 1, dist, index);
    }
    if (raw) check_raw_distances(dist, index, n - m + 1);
}

void matrix_profile(const double* x, int64_t n, int m, int64_t exclusion, TsExec* ex, MatrixProfile& out) {
    const int64_t count = n >= m && m >= 1 ? n - m + 1 : 0;
    out.dist.resize(count);
    out.index.resize(count);
    matrix_profile(x, n, m, exclusion, ex, out.dist.data(), out.index.data());
}

int64_t profile_exclusion(int m, int64_t exclusion) {
    args::window(m);
    return args::exclusion(exclusion, (m + 3) / 4 + 1);  // ceil(m/4) + 1
}

int64_t check_profile_args(const double* x, int64_t n, int m, int64_t exclusion) {
    exclusion = profile_exclusion(m, exclusion);
    if (n < 0) invalid("negative series length");
    if (n > 0 && !x) invalid("series is missing");
    if ((int64_t)m > n / 2)
        invalid(format("window length m = %d is more than half the series length %lld", (int)m, (long long)n),
                n / 2 >= 3
                    ? format("Use m <= %lld, or a series of at least %lld points.", (long long)(n / 2), 2LL * m)
                    : format("The series is too short for a matrix profile: it needs at "
                             "least %lld points for m = %d (and at least 6 for any m).",
                             2LL * m, (int)m));
    const int64_t count = n - m + 1;
    if (exclusion > count - 1)
        invalid(format("exclusion zone %lld leaves no neighbour for any of the %lld windows", (long long)exclusion,
                       (long long)count),
                format("Use an exclusion zone of at most %lld (n - m), or a longer series.", (long long)(count - 1)));
    return exclusion;
}

}  // namespace tsm

extern "C" double tsm_matrix_profile_estimate_ms(int64_t n, int32_t m, const TsExec* exec) noexcept {
    TsExec probe = *exec;  // use_gpu records its choice in used_backend
    bool gpu = false;
    try {
        gpu = tsm::use_gpu(&probe, TS_WORK_MATRIX_PROFILE, n, m);
    } catch (...) {
    }
    return 1e3 * tsm::estimate::matrix_profile_seconds(n, m, gpu, tsm::thread_count(exec));
}

extern "C" int tsm_matrix_profile(const double* x, int64_t n, int32_t m, int64_t exclusion, int32_t normalize,
                                  TsExec* ex, TsProfile* out, TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        if (n == 0) {  // an empty series has no windows
            tsm::profile_exclusion(m, exclusion);
            return;
        }
        const int64_t excl = tsm::check_profile_args(x, n, m, exclusion);
        const int64_t count = n - m + 1;
        double* dist = tsm::alloc_result<double>(ex, count);
        int64_t* index = tsm::alloc_result<int64_t>(ex, count);
        tsm::matrix_profile(x, n, m, excl, ex, dist, index, normalize == 0);
        out->count = count;
        out->dist = dist;
        out->index = index;
    });
}
