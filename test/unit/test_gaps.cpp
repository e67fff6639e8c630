// Gaps (NaN, ±Infinity; SQL NULLs arrive as NaN): every method against a
// brute-force oracle that leaves the windows with a gap out (STUMPY's rule:
// such a window is at infinite distance from everything), on gaps at the
// start, in the middle, at the end, every k-th value, in a long run, and
// everywhere; and the GPU against the CPU on the same series.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "api_discords.h"
#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "check.h"
#include "matrix_profile.h"
#include "oracles.h"

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using tsmt::Profile;
using tsmt::ZWindows;

// Nearest admissible window without a gap of each window (−1: none).
void oracle_profile(const ZWindows& o, int64_t excl, std::vector<double>& dist, std::vector<int64_t>& index) {
    const int64_t N = o.count();
    dist.assign(N, kInf);
    index.assign(N, -1);
    for (int64_t i = 0; i < N; ++i) {
        if (o.gap[i]) continue;
        long double best = kInf;
        for (int64_t j = 0; j < N; ++j)
            if (!o.gap[j] && std::llabs(i - j) >= excl && o.d(i, j) < best) {
                best = o.d(i, j);
                index[i] = j;
            }
        dist[i] = (double)best;
    }
}

struct Series {
    std::string name;
    std::vector<double> x;
};

// The layouts of gaps the tests run, on a random walk of n values.
std::vector<Series> gap_layouts(int64_t n, uint64_t seed) {
    const std::vector<double> w = tsmt::random_walk(n, seed);
    const double nan = std::nan("");
    std::vector<Series> v;
    auto with = [&](const std::string& name, auto f) {
        Series s{name, w};
        f(s.x);
        v.push_back(s);
    };
    with("start", [&](std::vector<double>& x) { x[0] = x[1] = x[2] = nan; });
    with("middle", [&](std::vector<double>& x) { x[n / 2] = nan; x[n / 2 + 1] = kInf; x[n / 3] = -kInf; });
    with("end", [&](std::vector<double>& x) { x[n - 1] = -kInf; x[n - 4] = nan; });
    with("long run", [&](std::vector<double>& x) { std::fill(x.begin() + n / 4, x.begin() + n / 4 + 60, nan); });
    with("every 31st", [&](std::vector<double>& x) { for (int64_t i = 5; i < n; i += 31) x[i] = nan; });
    with("every 7th", [&](std::vector<double>& x) { for (int64_t i = 3; i < n; i += 7) x[i] = nan; });
    with("constant stretch beside gaps", [&](std::vector<double>& x) {
        std::fill(x.begin() + 100, x.begin() + 160, 2.5);
        std::fill(x.begin() + 300, x.begin() + 360, 2.5);
        x[130] = nan;
    });
    with("all gaps", [&](std::vector<double>& x) { std::fill(x.begin(), x.end(), nan); });
    return v;
}

void check_profile(const Profile& got, const ZWindows& o, int64_t excl, const std::string& what) {
    std::vector<double> dist;
    std::vector<int64_t> index;
    oracle_profile(o, excl, dist, index);
    CHECK_EQ(got.dist.size(), dist.size());
    int bad = 0;
    for (size_t i = 0; i < dist.size() && i < got.dist.size() && bad < 5; ++i) {
        bool ok;
        if (index[i] < 0) {
            ok = got.index[i] == -1 && std::isinf(got.dist[i]);
        } else {
            const int64_t j = got.index[i];
            const double tol = 1e-9 * std::max(1.0, dist[i]);
            ok = j >= 0 && j < o.count() && !o.gap[j] && std::llabs(j - (int64_t)i) >= excl &&
                 std::fabs(got.dist[i] - dist[i]) <= tol && std::fabs((double)o.d(i, j) - dist[i]) <= tol;
        }
        if (!ok) {
            ++bad;
            std::printf("    %s: window %zu: got %.15g @ %lld, oracle %.15g @ %lld\n", what.c_str(), i, got.dist[i],
                        (long long)got.index[i], dist[i], (long long)index[i]);
        }
    }
    CHECK_EQ(bad, 0);
}

// Top-k discords: the largest exact NN distances, none overlapping one ranked before.
std::vector<int64_t> oracle_discords(const ZWindows& o, int64_t k, int64_t excl, std::vector<double>& d) {
    std::vector<double> dist;
    std::vector<int64_t> index, order, chosen;
    oracle_profile(o, excl, dist, index);
    for (int64_t i = 0; i < o.count(); ++i)
        if (index[i] >= 0) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return dist[a] > dist[b]; });
    d.clear();
    for (int64_t i : order) {
        if ((int64_t)chosen.size() == k) break;
        bool overlaps = false;
        for (int64_t c : chosen) overlaps |= std::llabs(c - i) < o.m;
        if (overlaps) continue;
        chosen.push_back(i);
        d.push_back(dist[i]);
    }
    return chosen;
}

void check_discords(const std::vector<double>& x, int m, int64_t k, const char* method, TsExec ex, const ZWindows& o,
                    const std::string& what) {
    std::vector<double> want_d;
    const std::vector<int64_t> want = oracle_discords(o, k, m, want_d);
    TsDiscords d;
    TsStatus st;
    tsm_discords(x.data(), (int64_t)x.size(), m, k, NAN, m, method, o.raw ? 0 : 1, &ex, &d, &st);
    CHECK_OK(st);
    if (st.code != TS_OK) return;
    CHECK_EQ(d.count, (int64_t)want.size());
    bool same = d.count == (int64_t)want.size();
    for (int64_t r = 0; same && r < d.count; ++r)
        same = d.pos[r] == want[r] && std::fabs(d.dist[r] - want_d[r]) <= 1e-9 * std::max(1.0, want_d[r]) &&
               d.neighbor[r] >= 0 && !o.gap[d.neighbor[r]];
    if (!same) std::printf("    %s: discords differ from the oracle's\n", what.c_str());
    CHECK(same);
}

struct Pair {
    double d;
    int64_t a, b;
};

// Greedy motif pairs over every allowed pair without a gap (MK's rules).
std::vector<Pair> oracle_motifs(const ZWindows& o, int64_t k, int64_t excl) {
    std::vector<Pair> all;
    for (int64_t a = 0; a < o.count(); ++a)
        for (int64_t b = a + excl; b < o.count(); ++b)
            if (!o.gap[a] && !o.gap[b]) all.push_back({(double)o.d(a, b), a, b});
    std::sort(all.begin(), all.end(), [](const Pair& p, const Pair& q) {
        return p.d != q.d ? p.d < q.d : (p.a != q.a ? p.a < q.a : p.b < q.b);
    });
    std::vector<uint8_t> blocked(o.count(), 0);
    std::vector<Pair> out;
    for (const Pair& p : all) {
        if ((int64_t)out.size() == k) break;
        if (blocked[p.a] || blocked[p.b]) continue;
        out.push_back(p);
        for (int64_t w : {p.a, p.b})
            for (int64_t q = std::max<int64_t>(0, w - o.m + 1); q <= std::min(o.count() - 1, w + o.m - 1); ++q)
                blocked[q] = 1;
    }
    return out;
}

void check_motifs(const std::vector<double>& x, int m, int64_t k, const char* method, TsExec ex, const ZWindows& o,
                  const std::string& what, int64_t excl = 0) {
    if (excl == 0) excl = m;
    const std::vector<Pair> want = oracle_motifs(o, k, excl);
    TsMotifs r;
    TsStatus st;
    tsm_motifs(x.data(), (int64_t)x.size(), m, k, excl, method, 10, o.raw ? 0 : 1, &ex, &r, &st);
    CHECK_OK(st);
    if (st.code != TS_OK) return;
    bool same = r.count == (int64_t)want.size();
    for (int64_t t = 0; same && t < r.count; ++t)
        same = r.pos_a[t] == want[t].a && r.pos_b[t] == want[t].b &&
               std::fabs(r.dist[t] - want[t].d) <= 1e-9 * std::max(1.0, want[t].d);
    if (!same) std::printf("    %s: %lld motifs, oracle %zu\n", what.c_str(), (long long)r.count, want.size());
    CHECK(same);
}

// Every non-overlapping occurrence of the pattern among the windows without a gap.
void check_match(const std::vector<double>& x, const std::vector<double>& pattern, TsExec ex, const std::string& what,
                 bool raw = false) {
    const int m = (int)pattern.size();
    std::vector<double> joined(x);
    joined.insert(joined.end(), pattern.begin(), pattern.end());
    const ZWindows o(joined, m, raw);  // the pattern is its last window
    const int64_t N = (int64_t)x.size() - m + 1, p = o.count() - 1;
    std::vector<int64_t> order;
    for (int64_t j = 0; j < N; ++j)
        if (!o.gap[j]) order.push_back(j);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return o.d(p, a) < o.d(p, b); });
    std::vector<int64_t> want;
    for (int64_t j : order) {
        bool near = false;
        for (int64_t c : want) near |= std::llabs(c - j) < m;
        if (!near) want.push_back(j);
    }
    TsMatches r;
    TsStatus st;
    tsm_match(x.data(), (int64_t)x.size(), pattern.data(), m, NAN, TS_ARG_NULL, m, raw ? 0 : 1, &ex, &r, &st);
    CHECK_OK(st);
    if (st.code != TS_OK) return;
    bool same = r.count == (int64_t)want.size();
    for (int64_t t = 0; same && t < r.count; ++t)
        same = r.pos[t] == want[t] &&
               std::fabs(r.dist[t] - (double)o.d(p, want[t])) <= 1e-9 * std::max(1.0L, o.d(p, want[t]));
    if (!same) std::printf("    %s: %lld matches, oracle %zu\n", what.c_str(), (long long)r.count, want.size());
    CHECK(same);
}

// Outliers skip the gaps: those of the finite values alone, at their positions.
void check_outliers(const std::vector<double>& x, const char* method, TsExec ex, const std::string& what) {
    std::vector<double> kept;
    std::vector<int64_t> where;
    for (size_t i = 0; i < x.size(); ++i)
        if (std::isfinite(x[i])) {
            kept.push_back(x[i]);
            where.push_back((int64_t)i);
        }
    TsOutliers a, b;
    TsStatus st;
    tsm_outliers(x.data(), (int64_t)x.size(), 2.0, method, &ex, &a, &st);
    CHECK_OK(st);
    tsm_outliers(kept.data(), (int64_t)kept.size(), 2.0, method, &ex, &b, &st);
    CHECK_OK(st);
    bool same = a.count == b.count && (kept.empty() || (a.center == b.center && a.scale == b.scale));
    for (int64_t t = 0; same && t < a.count; ++t)
        same = a.pos[t] == where[b.pos[t]] && a.value[t] == b.value[t] && a.score[t] == b.score[t] &&
               std::isfinite(x[a.pos[t]]);
    if (!same) std::printf("    %s: outliers differ from those of the finite values\n", what.c_str());
    CHECK(same);
}

// Every step-th window of p against the oracle (the whole oracle is
// O(n²m)): no neighbour for a window with a gap, else one without a gap at
// the nearest distance (within rel, absolute near 0).  How many fail.
int spot_checks(const Profile& p, const ZWindows& o, int64_t excl, int64_t step, double rel) {
    int bad = 0;
    for (int64_t i = 0; i < o.count(); i += step) {
        if (o.gap[i]) {
            bad += !(p.index[i] == -1 && std::isinf(p.dist[i]));
            continue;
        }
        const long double best = o.nearest(i, excl);
        bad += !(p.index[i] >= 0 && !o.gap[p.index[i]] && std::fabs(p.dist[i] - (double)best) <= rel * (1 + best));
    }
    return bad;
}

}  // namespace

TEST(gaps_profile_matches_brute_force) {
    const int m = 20;
    for (const Series& s : gap_layouts(700, 11)) {
        const ZWindows o(s.x, m);
        for (int64_t excl : {int64_t(1), int64_t(6), int64_t(m)}) {
            check_profile(tsmt::matrix_profile(s.x, m, excl, tsmt::cpu_exec()), o, excl, s.name);
            check_profile(tsmt::matrix_profile(s.x, m, excl, tsmt::cpu_exec(1)), o, excl, s.name + " (1 thread)");
        }
    }
}

TEST(gaps_profile_several_segments) {
    // gaps on both sides of a segment boundary (a multiple of segment_rows) and in a guard tile
    std::vector<double> x = tsmt::random_walk(20000, 5);
    for (int64_t i : {0, 8190, 8191, 8192, 8200, 12345, 16383, 16384, 19999}) x[i] = std::nan("");
    const int m = 50;
    const Profile p = tsmt::matrix_profile(x, m, 13, tsmt::cpu_exec());
    const ZWindows o(x, m);
    CHECK_EQ(spot_checks(p, o, 13, 97, 1e-9), 0);
}

// Tiles of either distance, with gaps, merge to the single call's profile.
void check_tiles_with_gaps(bool raw) {
    std::vector<double> x = tsmt::random_walk(3000, 21);
    for (int64_t i = 7; i < 3000; i += 211) x[i] = std::nan("");
    TsExec ex = tsmt::cpu_exec();
    const Profile whole = tsmt::matrix_profile(x, 30, 8, ex, raw ? 0 : 1);
    std::vector<int64_t> acc;
    TsStatus st;
    for (int t = 1; t <= 3; ++t) {
        TsPartialProfile pp;
        tsm_matrix_profile_tile(x.data(), (int64_t)x.size(), 30, 8, t, 3, raw ? 0 : 1, &ex, &pp, &st);
        CHECK_OK(st);
        if (st.code != TS_OK) return;
        std::vector<int64_t> part(pp.data, pp.data + pp.words);
        if (acc.empty()) acc = part;
        else tsm_matrix_profile_merge(acc.data(), (int64_t)acc.size(), part.data(), (int64_t)part.size(), &st);
    }
    TsProfile p;
    int32_t m = 0, normalize = -1;
    int64_t excl = 0;
    tsm_matrix_profile_from_tiles(x.data(), (int64_t)x.size(), acc.data(), (int64_t)acc.size(), &ex, &p, &m, &excl,
                                  &normalize, &st);
    CHECK_OK(st);
    if (st.code != TS_OK) return;
    CHECK_EQ(normalize, raw ? 0 : 1);
    CHECK(std::vector<double>(p.dist, p.dist + p.count) == whole.dist);
    CHECK(std::vector<int64_t>(p.index, p.index + p.count) == whole.index);
}

TEST(gaps_tiles_equal_the_single_call) {
    check_tiles_with_gaps(false);
    check_tiles_with_gaps(true);
}

TEST(gaps_discords_both_methods_match_brute_force) {
    const int m = 16;
    for (const Series& s : gap_layouts(500, 12)) {
        const ZWindows o(s.x, m);
        for (const char* method : {"matrix_profile", "pd3"})
            for (int64_t k : {int64_t(1), int64_t(4)})
                check_discords(s.x, m, k, method, tsmt::cpu_exec(), o, s.name);
    }
}

TEST(gaps_motifs_both_methods_match_brute_force) {
    const int m = 16;
    for (const Series& s : gap_layouts(400, 13)) {
        const ZWindows o(s.x, m);
        for (const char* method : {"matrix_profile", "mk", "auto"})
            for (int64_t k : {int64_t(1), int64_t(3)}) check_motifs(s.x, m, k, method, tsmt::cpu_exec(), o, s.name);
    }
    // too short for a profile (2m > n): every pair compared
    std::vector<double> x = tsmt::random_walk(30, 14);
    x[3] = std::nan("");
    for (int64_t k : {int64_t(1), int64_t(2)})
        check_motifs(x, 16, k, "auto", tsmt::cpu_exec(), ZWindows(x, 16), "2m > n", 5);
}

TEST(gaps_match_and_outliers) {
    for (const Series& s : gap_layouts(600, 15)) {
        std::vector<double> pattern(tsmt::random_walk(24, 16));
        check_match(s.x, pattern, tsmt::cpu_exec(), s.name);
        for (const char* method : {"sigma", "mad"})
            check_outliers(s.x, method, tsmt::cpu_exec(), s.name);
    }
    // a pattern with a gap matches nothing: an error that names it
    std::vector<double> x = tsmt::random_walk(100, 17), pattern(10, 1.0);
    pattern[4] = kInf;
    TsExec ex = tsmt::cpu_exec();
    TsMatches r;
    TsStatus st;
    CHECK_EQ(tsm_match(x.data(), 100, pattern.data(), 10, NAN, TS_ARG_NULL, 10, 1, &ex, &r, &st), (int)TS_INVALID_ARGUMENT);
    CHECK(std::string(st.sqlstate) == "22023" && std::string(st.message).find("pattern") != std::string::npos);
}

// ---- raw values (normalized => false): a window with a gap has no distance too

TEST(gaps_raw_profile_matches_brute_force) {
    const int m = 20;
    for (const Series& s : gap_layouts(700, 41)) {
        const ZWindows o(s.x, m, true);
        for (int64_t excl : {int64_t(1), int64_t(6), int64_t(m)}) {
            check_profile(tsmt::matrix_profile(s.x, m, excl, tsmt::cpu_exec(), 0), o, excl, s.name + " (raw)");
            check_profile(tsmt::matrix_profile(s.x, m, excl, tsmt::cpu_exec(1), 0), o, excl, s.name + " (raw, 1 thread)");
        }
    }
    // several segments, readings on a large offset (the raw sweep's centred form)
    std::vector<double> x = tsmt::random_walk(20000, 42);
    for (double& v : x) v += 1e6;
    for (int64_t i : {0, 8191, 8192, 12345, 19999}) x[i] = std::nan("");
    const Profile p = tsmt::matrix_profile(x, 40, 10, tsmt::cpu_exec(), 0);
    const ZWindows o(x, 40, true);
    CHECK_EQ(spot_checks(p, o, 10, 131, 1e-6), 0);
}

TEST(gaps_raw_discords_motifs_match_brute_force) {
    const int m = 16;
    for (const Series& s : gap_layouts(400, 43)) {
        const ZWindows o(s.x, m, true);
        for (int64_t k : {int64_t(1), int64_t(3)}) {
            check_discords(s.x, m, k, "matrix_profile", tsmt::cpu_exec(), o, s.name + " (raw)");
            check_motifs(s.x, m, k, "matrix_profile", tsmt::cpu_exec(), o, s.name + " (raw)");
        }
        check_match(s.x, tsmt::random_walk(24, 44), tsmt::cpu_exec(), s.name + " (raw)", true);
    }
}

// The GPU plans gaps on the device (matrix_profile.cu) and takes the
// rescaling's samples from the series with its gaps (mp::filled_samples):
// they must be the filled series' samples, bit for bit, as the CPU takes them.
TEST(gaps_filled_samples_are_the_filled_series_samples) {
    std::vector<Series> layouts = gap_layouts(5000, 61);
    Series lead{"a run at the start past the first samples", tsmt::random_walk(3000, 63)};
    std::fill(lead.x.begin(), lead.x.begin() + 200, std::nan(""));
    layouts.push_back(lead);
    Series short_one{"n < 255: every value a sample", tsmt::random_walk(100, 64)};
    for (int64_t i : {0, 1, 40, 41, 42, 99}) short_one.x[i] = i == 40 ? kInf : std::nan("");
    layouts.push_back(short_one);
    for (const Series& s : layouts) {
        const int64_t n = (int64_t)s.x.size();
        tsm::mp::GapPlan plan;
        CHECK(tsm::mp::plan_gaps(s.x.data(), n, 16, plan));
        const tsm::mp::CentreSamples want = tsm::mp::series_samples(plan.filled.data(), n);
        const tsm::mp::CentreSamples got = tsm::mp::filled_samples(s.x.data(), n, tsm::mp::lead_fill(s.x.data(), n));
        if (std::memcmp(&want, &got, sizeof want) != 0) tsmt::fail(__FILE__, __LINE__, "the samples of " + s.name);
    }
}

// ---- GPU == CPU ------------------------------------------------------------------

GPU_TEST(gaps_gpu_equals_cpu) {
    const int m = 20;
    for (const Series& s : gap_layouts(5000, 31)) {
        for (int64_t excl : {int64_t(1), int64_t(6), int64_t(m)}) {
            const Profile c = tsmt::matrix_profile(s.x, m, excl, tsmt::cpu_exec());
            const Profile g = tsmt::matrix_profile(s.x, m, excl, tsmt::gpu_exec());
            CHECK(c.index == g.index);
            CHECK(c.dist == g.dist);
        }
        const ZWindows o(s.x, m);
        check_discords(s.x, m, 3, "matrix_profile", tsmt::gpu_exec(), o, s.name + " (GPU)");
        check_motifs(s.x, m, 2, "mk", tsmt::gpu_exec(), o, s.name + " (GPU)");
        check_match(s.x, tsmt::random_walk(24, 32), tsmt::gpu_exec(), s.name + " (GPU)");
        check_outliers(s.x, "mad", tsmt::gpu_exec(), s.name + " (GPU)");
    }
    // several segments and bands, a few per cent of gaps
    std::vector<double> x = tsmt::random_walk(3 * 8192 + 777, 33);
    for (size_t i = 11; i < x.size(); i += 37) x[i] = std::nan("");
    for (int mm : {3, 30})
        for (int64_t excl : {int64_t(1), int64_t(mm)}) {
            const Profile c = tsmt::matrix_profile(x, mm, excl, tsmt::cpu_exec());
            const Profile g = tsmt::matrix_profile(x, mm, excl, tsmt::gpu_exec());
            CHECK(c.index == g.index);
            CHECK(c.dist == g.dist);
        }
    // runs of gaps far apart: the GPU sweep's rows with a gap (only their
    // co-moments move on) in groups of 32 rows with and without others, long
    // stretches of columns without gaps; z-normalised and raw values
    std::vector<double> runs = tsmt::random_walk(3 * 8192 + 777, 35);
    for (size_t i = 700; i + 40 < runs.size(); i += 2100) std::fill(runs.begin() + i, runs.begin() + i + 40, kInf);
    for (int mm : {16, 100})
        for (int64_t excl : {int64_t(1), int64_t(mm)})
            for (int normalize : {1, 0}) {
                const Profile c = tsmt::matrix_profile(runs, mm, excl, tsmt::cpu_exec(), normalize);
                const Profile g = tsmt::matrix_profile(runs, mm, excl, tsmt::gpu_exec(), normalize);
                CHECK(c.index == g.index);
                CHECK(c.dist == g.dist);
            }
    // the device's gap plan (scans over many blocks): a leading run past
    // several of the rescaling's samples, a run of infinities, trailing gaps
    std::vector<double> y = tsmt::random_walk(3 * 8192 + 777, 34);
    std::fill(y.begin(), y.begin() + 500, std::nan(""));
    std::fill(y.begin() + 9000, y.begin() + 9300, kInf);
    std::fill(y.end() - 7, y.end(), std::nan(""));
    const Profile c = tsmt::matrix_profile(y, 30, 30, tsmt::cpu_exec());
    const Profile g = tsmt::matrix_profile(y, 30, 30, tsmt::gpu_exec());
    CHECK(c.index == g.index);
    CHECK(c.dist == g.dist);
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(gaps_raw_gpu_equals_cpu) {
    const int m = 20;
    for (const Series& s : gap_layouts(5000, 51)) {
        for (int64_t excl : {int64_t(1), int64_t(m)}) {
            const Profile c = tsmt::matrix_profile(s.x, m, excl, tsmt::cpu_exec(), 0);
            const Profile g = tsmt::matrix_profile(s.x, m, excl, tsmt::gpu_exec(), 0);
            CHECK(c.index == g.index);
            CHECK(c.dist == g.dist);
        }
        const ZWindows o(s.x, m, true);
        check_discords(s.x, m, 3, "matrix_profile", tsmt::gpu_exec(), o, s.name + " (raw, GPU)");
        check_motifs(s.x, m, 2, "matrix_profile", tsmt::gpu_exec(), o, s.name + " (raw, GPU)");
        check_match(s.x, tsmt::random_walk(24, 52), tsmt::gpu_exec(), s.name + " (raw, GPU)", true);
    }
    std::vector<double> x = tsmt::random_walk(3 * 8192 + 777, 53);
    for (size_t i = 11; i < x.size(); i += 37) x[i] = std::nan("");
    for (int mm : {3, 30}) {
        const Profile c = tsmt::matrix_profile(x, mm, mm, tsmt::cpu_exec(), 0);
        const Profile g = tsmt::matrix_profile(x, mm, mm, tsmt::gpu_exec(), 0);
        CHECK(c.index == g.index);
        CHECK(c.dist == g.dist);
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}
