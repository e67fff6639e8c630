// mp_ab.cpp — the matrix profile of a series A against a series B (AB-join,
// STUMPY's stump(T_A, m, T_B, ignore_trivial=False)), and the discords and
// motif pairs that follow from it.  The sweep and the finalisation are the
// self-join's (matrix_profile.cpp, kernels/matrix_profile.cu); mp_detail.h
// says how the rectangle of pairs is swept.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "api_discords.h"
#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "args.h"
#include "dispatch.h"
#include "error.h"
#include "matrix_profile.h"
#include "parallel.h"

namespace tsm {
namespace mp {

FinalizeArgs finalize_args_ab(const Prepared& A, const Prepared& B, int64_t excl, const KeyCodec& codec) {
    FinalizeArgs a = A.finalize_args();  // A's gap flags
    a.x_b = B.x;
    a.xs_b = B.xs.data();
    a.mu_b = B.mu.data();
    a.inv_std_b = B.inv_std.data();
    a.constant_b = B.constant.data();
    a.next_const = B.next_const.data();
    a.first_const = B.first_const;
    a.count = B.count;
    a.excl = excl;
    a.codec = codec;
    a.next_ok = B.has_gaps() ? B.next_ok.data() : nullptr;  // B's windows without a gap
    return a;
}

void prepare_ab(const double* a, int64_t na, const double* b, int64_t nb, int m, int64_t excl, const TsExec* ex,
                bool raw, Prepared& A, Prepared& B) {
    GapPlan ga, gb;
    ab_gap_plans(a, na, b, nb, m, ga, gb);
    const double *xa = series_values(a, ga), *xb = series_values(b, gb);
    const SeriesScale sa = raw ? joint_scale(xa, na, xb, nb) : own_scale(xa, na);
    const SeriesScale sb = raw ? sa : own_scale(xb, nb);
    prepare_planned(a, na, m, ab_first_diagonal(excl, na - m + 1, true), ex, ga, sa, A, raw);
    prepare_planned(b, nb, m, ab_first_diagonal(excl, nb - m + 1, false), ex, gb, sb, B, raw);
}

int64_t ab_first_diagonal(int64_t excl, int64_t count, bool lower) {
    return std::min(lower ? std::max<int64_t>(excl, 1) : excl, count);
}

}  // namespace mp

namespace {

// The length of a self-join with as many pairs as the AB-join (for the
// automatic choice of the backend): windows²/2 = count_a · count_b.
int64_t equivalent_length(int64_t na, int64_t nb, int m) {
    const double pairs = (double)(na - m + 1) * (double)(nb - m + 1);
    return (int64_t)std::sqrt(2.0 * pairs) + m - 1;
}

void check_series(const double* x, int64_t n, const char* name, int m) {
    if (n < 0) invalid(format("negative length of series %s", name));
    if (n > 0 && !x) invalid(format("series %s is missing", name));
    if ((int64_t)m > n)
        invalid(format("window length m = %d is more than the length %lld of series %s", m, (long long)n, name),
                n >= 3 ? format("Use m <= %lld, or a series %s of at least %d values.", (long long)n, name, m)
                       : format("Series %s needs at least %d values.", name, m));
}

}  // namespace

void check_profile_ab_args(const double* a, int64_t na, const double* b, int64_t nb, int m, int64_t exclusion) {
    args::window(m);
    check_series(a, na, "a", m);
    check_series(b, nb, "b", m);
    if (exclusion < 0)
        invalid(format("exclusion_zone must be at least 0, not %lld", (long long)exclusion),
                "NULL is no exclusion zone; give one when a and b are parts of one series, positions aligned.");
}

void matrix_profile_ab(const double* a, int64_t na, const double* b, int64_t nb, int m, int64_t exclusion,
                       TsExec* ex, double* dist, int64_t* index, bool raw) {
    if (m < 1 || na < m || nb < m || exclusion < 0)
        throw Error(TS_INTERNAL, kInternal, "matrix_profile_ab: bad arguments");
    const int64_t ca = na - m + 1, cb = nb - m + 1;
    if (use_gpu(ex, TS_WORK_MATRIX_PROFILE, equivalent_length(na, nb, m), m)) {
#ifdef TSMINE_WITH_CUDA
        gpu::matrix_profile_ab(a, na, b, nb, m, exclusion, ex, dist, index, raw);
#endif
    } else {
        mp::Prepared A, B;
        mp::prepare_ab(a, na, b, nb, m, exclusion, ex, raw, A, B);
        const mp::KeyCodec codec = mp::make_codec(std::max(ca, cb), raw, m);
        std::vector<uint64_t> keys;
        mp::cpu_sweep_ab(A, B, codec, ex, keys);
        check_interrupt(ex);
        mp::cpu_finalize(mp::finalize_args_ab(A, B, exclusion, codec), ex, keys.data(), ca, dist, index);
    }
    if (raw) check_raw_distances(dist, index, ca);
}

namespace {

// Windows of A with a neighbour in B, in rank order: distance descending
// (discords) or ascending (motifs), ties to the smaller position; taken
// greedily, each not overlapping (|i − j| < m) one taken before it; at most
// k (−1: all), in range mode (min_distance not NaN) only those at
// min_distance or more.
std::vector<int64_t> rank_ab_windows(const double* dist, const int64_t* index, int64_t count, int m, int64_t k,
                                     double min_distance, bool farthest) {
    std::vector<int64_t> order;
    for (int64_t i = 0; i < count; ++i)
        if (index[i] >= 0 && !(dist[i] < min_distance)) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
        if (dist[x] != dist[y]) return farthest ? dist[x] > dist[y] : dist[x] < dist[y];
        return x < y;
    });
    const bool range = !std::isnan(min_distance);
    std::vector<int64_t> taken;
    std::vector<uint8_t> blocked(count, 0);
    for (int64_t i : order) {
        if (k >= 0 && (int64_t)taken.size() >= k) break;
        if (!range && blocked[i]) continue;
        taken.push_back(i);
        for (int64_t j = std::max<int64_t>(0, i - m + 1); j < std::min(count, i + m); ++j) blocked[j] = 1;
    }
    return taken;
}

}  // namespace
}  // namespace tsm

namespace {

// The AB profile into result memory (the checks first; exclusion
// TS_ARG_NULL: none).
void profile_ab(const double* a, int64_t na, const double* b, int64_t nb, int32_t m, int64_t exclusion,
                int32_t normalize, TsExec* ex, TsProfile* out) {
    std::memset(out, 0, sizeof *out);
    if (exclusion == TS_ARG_NULL) exclusion = 0;
    tsm::check_profile_ab_args(a, na, b, nb, m, exclusion);
    const int64_t count = na - m + 1;
    out->dist = tsm::alloc_result<double>(ex, count);
    out->index = tsm::alloc_result<int64_t>(ex, count);
    tsm::matrix_profile_ab(a, na, b, nb, m, exclusion, ex, out->dist, out->index, normalize == 0);
    out->count = count;
}

// k of the discords (TS_ARG_NULL: all, in range mode only; returns −1 for
// all) and min_distance (NaN: top-k mode), as ts_discords checks them.
int64_t check_k_and_distance(int64_t k, double min_distance, int32_t normalize) {
    const bool range = tsm::args::distance_limit(
        min_distance, "min_distance",
        normalize ? "min_distance is a z-normalised Euclidean distance, between 0 and 2 sqrt(m)."
                  : "min_distance is the Euclidean distance of the raw values, in the data's units.");
    if (range)
        k = tsm::args::k_or_all(k);
    else
        k = tsm::args::top_k(k, "Without min_distance, ts_discords_ab returns the top k discords: give k, or give "
                                "min_distance for all range discords.");
    return k == TS_ARG_NULL ? -1 : k;
}

}  // namespace

extern "C" int tsm_matrix_profile_ab(const double* a, int64_t na, const double* b, int64_t nb, int32_t m,
                                     int64_t exclusion, int32_t normalize, TsExec* ex, TsProfile* out,
                                     TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] { profile_ab(a, na, b, nb, m, exclusion, normalize, ex, out); });
}

extern "C" int tsm_discords_ab(const double* a, int64_t na, const double* b, int64_t nb, int32_t m, int64_t k,
                               double min_distance, int64_t exclusion, int32_t normalize, TsExec* ex,
                               TsDiscords* out, TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        k = check_k_and_distance(k, min_distance, normalize);
        TsProfile p;
        profile_ab(a, na, b, nb, m, exclusion, normalize, ex, &p);
        const std::vector<int64_t> rows = tsm::rank_ab_windows(p.dist, p.index, p.count, m, k, min_distance, true);
        const int64_t c = (int64_t)rows.size();
        out->pos = tsm::alloc_result<int64_t>(ex, c);
        out->dist = tsm::alloc_result<double>(ex, c);
        out->neighbor = tsm::alloc_result<int64_t>(ex, c);
        for (int64_t r = 0; r < c; ++r) {
            out->pos[r] = rows[r];
            out->dist[r] = p.dist[rows[r]];
            out->neighbor[r] = p.index[rows[r]];
        }
        out->count = c;
    });
}

extern "C" int tsm_motifs_ab(const double* a, int64_t na, const double* b, int64_t nb, int32_t m, int64_t k,
                             int64_t exclusion, int32_t normalize, TsExec* ex, TsMotifs* out,
                             TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        tsm::args::top_k(k, "Give how many motif pairs to return.");
        TsProfile p;
        profile_ab(a, na, b, nb, m, exclusion, normalize, ex, &p);
        const std::vector<int64_t> rows = tsm::rank_ab_windows(p.dist, p.index, p.count, m, k, NAN, false);
        const int64_t c = (int64_t)rows.size();
        out->pos_a = tsm::alloc_result<int64_t>(ex, c);
        out->pos_b = tsm::alloc_result<int64_t>(ex, c);
        out->dist = tsm::alloc_result<double>(ex, c);
        for (int64_t r = 0; r < c; ++r) {
            out->pos_a[r] = rows[r];
            out->pos_b[r] = p.index[rows[r]];
            out->dist[r] = p.dist[rows[r]];
        }
        out->count = c;
    });
}
