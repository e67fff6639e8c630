// match.cpp — similarity search (MASS-like): the z-normalised distance of a
// pattern to every window (the motifs' distance, motifs_detail.h: direct, from
// z-normalised values, exact on offset data, ~0 for near-identical windows),
// then every non-overlapping occurrence, best first.  The GPU path
// (kernels/match.cu) computes the same distances with the same functions and
// sorts them on the device; the greedy pass is shared.  Both paths search
// the series and the pattern rescaled each by its own power of two
// (unit_scaled), so that no window's sums over- or underflow.  normalized =>
// false: the raw-value distance (rawdist_detail.h), the series and the
// pattern scaled by one power of two, the distances scaled back.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "api_motifs.h"
#include "args.h"
#include "dispatch.h"
#include "error.h"
#include "finite.h"
#include "motifs.h"
#include "mp_detail.h"
#include "parallel.h"
#include "progress.h"

namespace tsm {

void match_profile_cpu(const double* x, int64_t n, const double* pattern, int m, TsExec* ex,
                       std::vector<double>& dist) {
    const int64_t N = n - m + 1;
    double pmu, pinv;
    uint8_t pc;
    motif::window_zstat(pattern, m, &pmu, &pinv, &pc);
    dist.assign(N, 0.0);
    const int64_t B = std::max<int64_t>(256, (int64_t(1) << 18) / m);
    progress_start(ex, N);
    parallel_for(ex, (N + B - 1) / B, [&](int64_t t) {
        int64_t lo = t * B, hi = std::min(N, lo + B);
        for (int64_t j = lo; j < hi; ++j) {
            double mu, inv;
            uint8_t c;
            motif::window_zstat(x + j, m, &mu, &inv, &c);
            dist[j] = zdist(pattern, pmu, pinv, pc, x + j, mu, inv, c, m);
        }
        progress_add(ex, hi - lo);
    });
}

// Raw values: the raw-value distance (motif::raw_distance_bounded) of the
// pattern to every window, both scaled by one power of two (match_raw_scale).
void match_profile_raw_cpu(const double* xs, int64_t n, const double* ps, int m, TsExec* ex,
                           std::vector<double>& dist) {
    const int64_t N = n - m + 1;
    dist.assign(N, 0.0);
    const int64_t B = std::max<int64_t>(256, (int64_t(1) << 18) / m);
    progress_start(ex, N);
    parallel_for(ex, (N + B - 1) / B, [&](int64_t t) {
        const int64_t lo = t * B, hi = std::min(N, lo + B);
        for (int64_t j = lo; j < hi; ++j) dist[j] = motif::raw_distance_bounded(ps, xs + j, m, INFINITY);
        progress_add(ex, hi - lo);
    });
}

// Greedy: walk the (distance, position)-sorted list, take a window unless it
// is within excl (|p − q| < excl) of one taken already; stop after k (k < 0: all).
std::vector<int64_t> match_greedy(const std::vector<double>& d_sorted, const std::vector<int64_t>& pos_sorted,
                                  int64_t N, int64_t k, int64_t excl) {
    std::vector<uint8_t> blocked(N, 0);
    std::vector<int64_t> chosen;
    for (size_t s = 0; s < pos_sorted.size(); ++s) {
        if (k >= 0 && (int64_t)chosen.size() >= k) break;
        int64_t p = pos_sorted[s];
        if (blocked[p]) continue;
        chosen.push_back((int64_t)s);
        int64_t lo = std::max<int64_t>(0, p - excl + 1), hi = std::min<int64_t>(N - 1, p + excl - 1);
        for (int64_t q = lo; q <= hi; ++q) blocked[q] = 1;
    }
    return chosen;
}

namespace {

// The series and the pattern as match searches them: each unit_scaled
// (z-normalised distances), or for raw values both scaled by the one power of
// two 2^e that brings the larger of their largest magnitudes to unit_scaled's
// binade (*e; distances then come in those units).
void match_inputs(const double* x, int64_t n, const double* pattern, int m, bool raw, std::vector<double>& xs,
                  std::vector<double>& ps, int* e) {
    if (!raw) {
        xs = unit_scaled(x, n);
        ps = unit_scaled(pattern, m);
        *e = 0;
        return;
    }
    *e = std::min(unit_scale_exponent(x, n), unit_scale_exponent(pattern, m));
    xs.resize(n);
    ps.resize(m);
    for (int64_t i = 0; i < n; ++i) xs[i] = mp::times_pow2_up(x[i], *e);
    for (int k = 0; k < m; ++k) ps[k] = mp::times_pow2_up(pattern[k], *e);
}

// Every window's distance within limit (NaN: all), sorted by (distance, position);
// the windows with a gap (at +inf) are left out.
void match_sorted(const std::vector<double>& xs, const std::vector<double>& pat, int m, double limit, bool raw,
                  TsExec* ex, std::vector<double>& ds, std::vector<int64_t>& ps) {
    const int64_t n = (int64_t)xs.size(), N = n - m + 1;
    if (use_gpu(ex, TS_WORK_MATCH, n, m)) {
#ifdef TSMINE_WITH_CUDA
        gpu::match_sorted(xs.data(), n, pat.data(), m, limit, ex, ds, ps, raw);
#endif
        while (!ds.empty() && std::isinf(ds.back())) {  // windows with gaps: sorted last
            ds.pop_back();
            ps.pop_back();
        }
        return;
    }
    std::vector<double> d;
    if (raw)
        match_profile_raw_cpu(xs.data(), n, pat.data(), m, ex, d);
    else
        match_profile_cpu(xs.data(), n, pat.data(), m, ex, d);
    ps.reserve(N);
    for (int64_t j = 0; j < N; ++j)
        if (!std::isinf(d[j]) && (std::isnan(limit) || d[j] <= limit)) ps.push_back(j);  // +inf: a gap
    std::sort(ps.begin(), ps.end(), [&](int64_t a, int64_t b) { return d[a] != d[b] ? d[a] < d[b] : a < b; });
    ds.resize(ps.size());
    for (size_t s = 0; s < ps.size(); ++s) ds[s] = d[ps[s]];
}

}  // namespace
}  // namespace tsm

extern "C" int tsm_match(const double* x, int64_t n, const double* pattern, int32_t m, double max_distance,
                         int64_t k, int64_t exclusion, int32_t normalize, TsExec* ex, TsMatches* out,
                         TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        if (m < 3) tsm::invalid(tsm::format("pattern must have at least 3 values, not %d", (int)m));
        if (!pattern || n < 0 || (n > 0 && !x)) tsm::invalid("series or pattern is missing");
        const int64_t limit = tsm::args::k_or_all(k);
        exclusion = tsm::args::exclusion(exclusion, m);
        tsm::args::distance_limit(max_distance, "max_distance",
                                  "max_distance is a Euclidean distance: z-normalised, between 0 and 2 sqrt(m); "
                                  "with normalized => false, in the data's units.  NULL means no limit.");
        if (n == 0) return;  // an empty series has no windows
        if (n < (int64_t)m)
            tsm::invalid(tsm::format("pattern of length %d is longer than the series of length %lld", (int)m,
                                     (long long)n),
                         "Search a longer series or use a shorter pattern.");
        // gaps of the series: their windows are at +inf (motifs_detail.h), never matches
        tsm::require_finite(pattern, m, "pattern",
                            "A pattern with a gap matches nothing: pass a pattern of finite values.");
        const int64_t N = n - m + 1;
        const bool raw = normalize == 0;
        std::vector<double> xs, pat, ds;
        std::vector<int64_t> ps;
        int e = 0;
        tsm::match_inputs(x, n, pattern, m, raw, xs, pat, &e);
        const double cut = raw && !std::isnan(max_distance) ? tsm::mp::scale_any(max_distance, e) : max_distance;
        tsm::match_sorted(xs, pat, m, cut, raw, ex, ds, ps);
        if (raw)
            for (double& d : ds) d = tsm::raw_distance_unscaled(d, e);  // 22003 past the float64 range
        std::vector<int64_t> chosen = tsm::match_greedy(ds, ps, N, limit == TS_ARG_NULL ? -1 : limit, exclusion);
        out->count = (int64_t)chosen.size();
        out->pos = tsm::alloc_result<int64_t>(ex, chosen.size());
        out->dist = tsm::alloc_result<double>(ex, chosen.size());
        for (size_t c = 0; c < chosen.size(); ++c) {
            out->pos[c] = ps[chosen[c]];
            out->dist[c] = ds[chosen[c]];
        }
    });
}
