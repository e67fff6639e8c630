// Discords (PD3 range discords, top-k discords, selection from a profile)
// against a brute-force oracle: all-pairs z-normalised distances in long
// double, every window's exact nearest non-self-match (|i − j| >= exclusion,
// ties: smaller j), then the same ranking rules written out plainly.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "api_discords.h"
#include "args.h"
#include "check.h"
#include "discords.h"
#include "discords_detail.h"
#include "motifs.h"
#include "oracles.h"

namespace {

struct Profile {
    std::vector<double> dist;  // +inf: no non-self-match
    std::vector<int64_t> nn;   // -1: none
};

// Exact NN of every window: long double, the windows' z-normalised values from
// the deviations x − x_i (exact differences: an offset of 1e9 costs no
// digits) about their two-pass mean, d² = Σ (z_i − z_j)².
Profile oracle_profile(const std::vector<double>& x, int m, int64_t excl) {
    const int64_t N = (int64_t)x.size() - m + 1;
    std::vector<long double> z((size_t)N * m);
    std::vector<char> cst(N);
    for (int64_t i = 0; i < N; ++i) {
        long double s = 0, q = 0;
        bool c = true;
        for (int k = 0; k < m; ++k) {
            s += (long double)x[i + k] - x[i];
            c = c && x[i + k] == x[i];
        }
        const long double mu = s / m;
        for (int k = 0; k < m; ++k) q += ((long double)x[i + k] - x[i] - mu) * ((long double)x[i + k] - x[i] - mu);
        const long double sd = std::sqrt(q / m);
        for (int k = 0; k < m; ++k) z[(size_t)i * m + k] = c ? 0 : ((long double)x[i + k] - x[i] - mu) / sd;
        cst[i] = c;
    }
    Profile p{std::vector<double>(N, std::numeric_limits<double>::infinity()), std::vector<int64_t>(N, -1)};
    std::vector<long double> best(N, std::numeric_limits<long double>::infinity());
    for (int64_t i = 0; i < N; ++i)
        for (int64_t j = i + excl; j < N; ++j) {
            long double d2 = 0;
            if (cst[i] != cst[j]) d2 = m;
            else
                for (int k = 0; k < m; ++k) {
                    const long double t = z[(size_t)i * m + k] - z[(size_t)j * m + k];
                    d2 += t * t;
                }
            // i's candidates j ascend, so strict < keeps the smaller j; j's candidate i is
            // smaller than any later one, but larger than earlier ones: compare with <=
            if (d2 < best[i]) { best[i] = d2; p.nn[i] = j; }
            if (d2 < best[j] || (d2 == best[j] && i < p.nn[j])) { best[j] = d2; p.nn[j] = i; }
        }
    for (int64_t i = 0; i < N; ++i)
        if (p.nn[i] >= 0) p.dist[i] = (double)std::sqrt(best[i]);
    return p;
}

struct Row {
    int64_t pos;
    double dist;
    int64_t nn;
};

// The definition, written out: rank by distance desc (ties: smaller pos).
std::vector<Row> oracle_discords(const Profile& p, int m, int64_t k, double r) {
    std::vector<Row> all;
    for (int64_t i = 0; i < (int64_t)p.dist.size(); ++i)
        if (p.nn[i] >= 0) all.push_back({i, p.dist[i], p.nn[i]});
    std::sort(all.begin(), all.end(), [](const Row& a, const Row& b) {
        return a.dist != b.dist ? a.dist > b.dist : a.pos < b.pos;
    });
    std::vector<Row> out;
    for (const Row& d : all) {
        if (k >= 0 && (int64_t)out.size() >= k) break;
        if (!std::isnan(r)) {  // range mode: every window >= r
            if (d.dist < r) break;
            out.push_back(d);
            continue;
        }
        bool overlap = false;  // top-k: greedy, no overlap (|i − j| < m) with a chosen one
        for (const Row& c : out) overlap = overlap || std::llabs(c.pos - d.pos) < m;
        if (!overlap) out.push_back(d);
    }
    return out;
}

std::vector<Row> rows_of(const TsDiscords& d) {
    std::vector<Row> v;
    for (int64_t i = 0; i < d.count; ++i) v.push_back({d.pos[i], d.dist[i], d.neighbor[i]});
    return v;
}

// PD3 (k = -1: all, k NULL)
std::vector<Row> run_pd3(const std::vector<double>& x, int m, int64_t k, double r, int64_t excl, TsExec ex,
                         TsStatus* st_out = nullptr, int* used_backend = nullptr) {
    TsDiscords d;
    TsStatus st;
    tsm_discords_pd3(x.data(), x.size(), m, k == -1 ? TS_ARG_NULL : k, r, excl, &ex, &d, &st);
    if (used_backend) *used_backend = ex.used_backend;
    if (st_out) *st_out = st;
    else CHECK_OK(st);
    return st.code == TS_OK ? rows_of(d) : std::vector<Row>{};
}

// Positions and neighbours identical, distances within `rel` relative.  Small
// distances come from d² = 2m(1 − ρ), whose absolute rounding is ~1e-13·2m in
// double whatever the method, so near 0 the tolerance is on d² (Δd = Δd²/2d).
void check_same(const std::vector<Row>& got, const std::vector<Row>& want, double rel = 1e-9, int m = 0) {
    CHECK_EQ(got.size(), want.size());
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        CHECK_EQ(got[i].pos, want[i].pos);
        CHECK_EQ(got[i].nn, want[i].nn);
        double tol = rel * std::fmax(1.0, std::fabs(want[i].dist)) + 1e-11 * m / std::fmax(want[i].dist, 1e-300);
        CHECK_NEAR(got[i].dist, want[i].dist, tol);
        if (tsmt::g_failures > 8) return;
    }
}

// An r between two neighbouring profile values, near the q-quantile (so no
// window sits within rounding of the threshold).
double gap_threshold(const Profile& p, double q) {
    std::vector<double> v;
    for (double d : p.dist)
        if (std::isfinite(d)) v.push_back(d);
    std::sort(v.begin(), v.end());
    size_t i = std::min(v.size() - 2, (size_t)(q * (v.size() - 1)));
    while (i + 1 < v.size() && v[i + 1] - v[i] < 1e-6 * v[i + 1]) ++i;
    return 0.5 * (v[i] + v[i + 1]);
}

// Random walk with planted anomalies: a sine burst, a spike and a level shift.
std::vector<double> planted(int64_t n, uint64_t seed, int m) {
    auto x = tsmt::random_walk(n, seed);
    std::mt19937_64 rng(seed * 7 + 1);
    int64_t a = rng() % std::max<int64_t>(1, n - 2 * m);
    for (int k = 0; k < m; ++k) x[a + k] += 6.0 * std::sin(k * 0.9);
    int64_t b = rng() % (n - 1);
    x[b] += 25.0;
    int64_t c = rng() % std::max<int64_t>(1, n - m);
    for (int64_t k = c; k < n; ++k) x[k] += 10.0;
    return x;
}

// ../shared/data/anomaly/reference_discords.json: entry [key][field] = three
// [index, NN distance, NN index] triples.  A minimal reader: find the key,
// then the field after it, then the first nine numbers.
std::vector<Row> reference_top3(const std::string& key, const std::string& field) {
    std::ifstream in(tsmt::shared_data("anomaly/reference_discords.json"));
    std::stringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    size_t at = s.find("\"" + key + "\"");
    if (at == std::string::npos) return {};
    at = s.find("\"" + field + "\"", at);
    if (at == std::string::npos) return {};
    at = s.find('[', at);
    std::vector<double> num;
    const char* c = s.c_str() + at;
    while (*c && num.size() < 9) {
        if ((*c >= '0' && *c <= '9') || *c == '-') {
            char* e;
            num.push_back(std::strtod(c, &e));
            c = e;
        } else {
            ++c;
        }
    }
    std::vector<Row> out;
    for (size_t i = 0; i + 2 < num.size(); i += 3) out.push_back({(int64_t)num[i], num[i + 1], (int64_t)num[i + 2]});
    return out;
}

}  // namespace

// ---- CPU against the oracle -------------------------------------------------

TEST(discords_range_mode_matches_oracle) {
    struct Case { int64_t n; int m; int64_t excl; uint64_t seed; };
    for (Case c : {Case{1500, 16, 16, 1}, Case{1800, 40, 40, 2}, Case{1200, 3, 3, 3}, Case{1600, 25, 7, 4},
                   Case{1400, 30, 45, 5}, Case{1000, 20, 1, 6}, Case{2100, 64, 64, 7}}) {
        auto x = planted(c.n, c.seed, c.m);
        auto prof = oracle_profile(x, c.m, c.excl);
        for (double q : {0.5, 0.9, 0.995}) {
            double r = gap_threshold(prof, q);
            auto want = oracle_discords(prof, c.m, -1, r);
            CHECK(!want.empty());
            auto got = run_pd3(x, c.m, -1, r, c.excl, tsmt::cpu_exec((int)(1 + c.seed % 3)));
            check_same(got, want);
            for (auto& g : got) CHECK(g.dist >= r);
            // k truncates the same ranking
            auto got5 = run_pd3(x, c.m, 5, r, c.excl, tsmt::cpu_exec());
            want.resize(std::min<size_t>(5, want.size()));
            check_same(got5, want);
        }
        // r = 0: every window is a range discord (the whole profile, exactly)
        auto all = run_pd3(x, c.m, -1, 0.0, c.excl, tsmt::cpu_exec());
        check_same(all, oracle_discords(prof, c.m, -1, 0.0), 1e-9, c.m);
    }
}

TEST(discords_topk_mode_matches_oracle) {
    struct Case { int64_t n; int m; int64_t excl; uint64_t seed; };
    for (Case c : {Case{2000, 32, 32, 11}, Case{1500, 10, 10, 12}, Case{1700, 50, 20, 13}, Case{1300, 24, 60, 14},
                   Case{2400, 100, 100, 15}}) {
        auto x = planted(c.n, c.seed, c.m);
        auto prof = oracle_profile(x, c.m, c.excl);
        for (int64_t k : {1, 3, 10}) {
            auto want = oracle_discords(prof, c.m, k, std::nan(""));
            auto got = run_pd3(x, c.m, k, std::nan(""), c.excl, tsmt::cpu_exec((int)(1 + k % 2)));
            check_same(got, want);
        }
    }
}

TEST(discords_topk_more_than_the_series_holds) {
    // n = 400, m = 50: at most 8 non-overlapping windows; k = 30 returns them all (r falls to 0)
    auto x = planted(400, 21, 50);
    auto prof = oracle_profile(x, 50, 50);
    auto want = oracle_discords(prof, 50, 30, std::nan(""));
    CHECK(want.size() < 30);
    check_same(run_pd3(x, 50, 30, std::nan(""), 50, tsmt::cpu_exec()), want);
}

TEST(discords_exclusion_boundary_is_exact) {
    // A burst planted twice, exactly `e` apart: with exclusion e the copies are
    // each other's neighbours (distance ~0), with exclusion e + 1 they are not
    // and the burst is the top discord.
    const int m = 40;
    for (int64_t e : {40, 57}) {
        auto x = tsmt::random_walk(1600, 31);
        std::vector<double> burst(m);
        for (int k = 0; k < m; ++k) burst[k] = 15.0 * std::sin(k * 0.5) * std::exp(-0.05 * k);
        const int64_t a = 500;
        for (int k = 0; k < m; ++k) x[a + k] = burst[k];
        for (int k = 0; k < m; ++k) x[a + e + k] = burst[k];
        // with exclusion e: window a's NN is a + e at distance 0
        auto pe = oracle_profile(x, m, e);
        CHECK_EQ(pe.nn[a], a + e);
        CHECK(pe.dist[a] < 1e-6);
        auto got = run_pd3(x, m, 3, std::nan(""), e, tsmt::cpu_exec());
        check_same(got, oracle_discords(pe, m, 3, std::nan("")));
        for (auto& g : got) CHECK(g.pos != a && g.pos != a + e);
        auto all = run_pd3(x, m, -1, 0.0, e, tsmt::cpu_exec());
        for (auto& g : all)
            // identical windows: d² = 2m − 2C/σ² cancels to a few ulps of 2m, so d ~ 1e-7
            if (g.pos == a) { CHECK_EQ(g.nn, a + e); CHECK(g.dist < 1e-5); }
        // with exclusion e + 1 the twin is a self-match
        auto pe1 = oracle_profile(x, m, e + 1);
        auto got1 = run_pd3(x, m, 3, std::nan(""), e + 1, tsmt::cpu_exec());
        check_same(got1, oracle_discords(pe1, m, 3, std::nan("")));
        CHECK(pe1.nn[a] != a + e);
        CHECK(pe1.dist[a] > 1.0);
        auto r1 = run_pd3(x, m, -1, 0.5 * pe1.dist[a], e + 1, tsmt::cpu_exec());
        bool found = false;
        for (auto& g : r1) found = found || (g.pos == a && g.nn == pe1.nn[a]);
        CHECK(found);
    }
}

TEST(discords_survive_an_offset_of_1e8) {
    const int m = 32;
    auto x = planted(1800, 41, m);
    auto y = x;
    for (auto& v : y) v += 1e8;
    auto px = oracle_profile(x, m, m), py = oracle_profile(y, m, m);
    auto gx = run_pd3(x, m, 10, std::nan(""), m, tsmt::cpu_exec());
    auto gy = run_pd3(y, m, 10, std::nan(""), m, tsmt::cpu_exec());
    check_same(gy, oracle_discords(py, m, 10, std::nan("")));
    CHECK_EQ(gx.size(), gy.size());
    for (size_t i = 0; i < std::min(gx.size(), gy.size()); ++i) {
        CHECK_EQ(gx[i].pos, gy[i].pos);
        CHECK_REL(gx[i].dist, gy[i].dist, 1e-6);  // the input itself rounds at 1.5e-8
    }
    double r = gap_threshold(py, 0.95);
    check_same(run_pd3(y, m, -1, r, m, tsmt::cpu_exec()), oracle_discords(py, m, -1, r));
}

TEST(discords_constant_stretches_follow_stumpy) {
    const int m = 20;
    auto x = planted(1500, 51, m);
    // two constant runs, one far above and one far below the walk, so the
    // windows at their edges ([v, c, ..., c] and [c, ..., c, v]) are not
    // z-normalised twins of each other (which would be exact ties)
    for (int k = 200; k < 260; ++k) x[k] = 1000.25;  // constant windows 200..240
    for (int k = 900; k < 920; ++k) x[k] = -1000.5;  // exactly one constant window: 900
    auto prof = oracle_profile(x, m, m);
    CHECK_EQ(prof.dist[900], 0.0);  // its NN is another constant window
    for (double q : {0.3, 0.97}) {
        double r = gap_threshold(prof, q);
        CHECK(r > 1e-3);
        check_same(run_pd3(x, m, -1, r, m, tsmt::cpu_exec()), oracle_discords(prof, m, -1, r));
    }
    // the constant windows themselves: both constant → 0, NN the nearest constant window
    auto all = run_pd3(x, m, -1, 0.0, m, tsmt::cpu_exec());
    int seen = 0;
    for (auto& g : all)
        if (g.pos == 900 || g.pos == 200) {
            ++seen;
            CHECK_EQ(g.dist, 0.0);
            CHECK_EQ(g.nn, g.pos == 200 ? 220 : 200);
        }
    CHECK_EQ(seen, 2);
    check_same(run_pd3(x, m, 5, std::nan(""), m, tsmt::cpu_exec()), oracle_discords(prof, m, 5, std::nan("")));
    // a single constant window among non-constant ones is at sqrt(m) from all of them
    auto y = planted(800, 52, m);
    for (int k = 400; k < 420; ++k) y[k] = 0.0;
    auto py = oracle_profile(y, m, m);
    CHECK_NEAR(py.dist[400], std::sqrt((double)m), 1e-12);
    check_same(run_pd3(y, m, -1, 0.0, m, tsmt::cpu_exec()), oracle_discords(py, m, -1, 0.0), 1e-9, m);
    // an all-constant series: every distance is 0
    std::vector<double> flat(300, 45.0);
    auto f = run_pd3(flat, 10, 3, std::nan(""), 10, tsmt::cpu_exec());
    CHECK_EQ(f.size(), 3u);
    if (f.size() == 3) {
        CHECK_EQ(f[0].pos, 0); CHECK_EQ(f[0].dist, 0.0); CHECK_EQ(f[0].nn, 10);
        CHECK_EQ(f[1].pos, 10); CHECK_EQ(f[2].pos, 20);
    }
}

TEST(discords_middle_windows_without_neighbours_are_skipped) {
    // n = 2m: windows 1 .. m−1 have no j with |i − j| >= m
    const int m = 30;
    auto x = planted(60, 61, m);
    auto prof = oracle_profile(x, m, m);
    auto all = run_pd3(x, m, -1, 0.0, m, tsmt::cpu_exec());
    check_same(all, oracle_discords(prof, m, -1, 0.0));
    CHECK_EQ(all.size(), 2u);
}

namespace {

// ts_discords with a method (TsDiscordMethod; k = -1: all, k NULL)
std::vector<Row> run_method(const std::vector<double>& x, int m, int64_t k, double r, int64_t excl, int method,
                            TsExec ex) {
    TsDiscords d;
    TsStatus st;
    tsm_discords(x.data(), x.size(), m, k == -1 ? TS_ARG_NULL : k, r, excl, tsm::args::kDiscordMethods[method], 1, &ex,
                 &d, &st);
    CHECK_OK(st);
    return st.code == TS_OK ? rows_of(d) : std::vector<Row>{};
}

// The same rows, distances bit for bit.
void check_identical(const std::vector<Row>& got, const std::vector<Row>& want, const char* what) {
    CHECK_EQ(got.size(), want.size());
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        CHECK_EQ(got[i].pos, want[i].pos);
        CHECK_EQ(got[i].nn, want[i].nn);
        CHECK(std::memcmp(&got[i].dist, &want[i].dist, sizeof(double)) == 0);
        if (tsmt::g_failures > 0) {
            std::printf("    %s: row %zu: got %lld %.17g, want %lld %.17g\n", what, i, (long long)got[i].pos,
                        got[i].dist, (long long)want[i].pos, want[i].dist);
            return;
        }
    }
}

// Both methods (the matrix profile's, PD3) give the same rows, and the oracle's.
void methods_agree_with_oracle(const std::vector<double>& x, int m, int64_t excl, const Profile& prof,
                               int64_t k, double r, TsExec ex, const char* what) {
    auto via_profile = run_method(x, m, k, r, excl, TS_DISCORDS_MATRIX_PROFILE, ex);
    auto via_pd3 = run_method(x, m, k, r, excl, TS_DISCORDS_PD3, ex);
    check_identical(via_pd3, via_profile, what);
    check_same(via_profile, oracle_discords(prof, m, k, r), 1e-9, m);
}

}  // namespace

TEST(discords_profile_method_equals_pd3) {
    const int m = 25;
    auto x = planted(1500, 71, m);
    auto prof = oracle_profile(x, m, m);
    for (int64_t k : {1, 3, 10}) methods_agree_with_oracle(x, m, m, prof, k, std::nan(""), tsmt::cpu_exec(), "top-k");
    methods_agree_with_oracle(x, m, m, prof, -1, gap_threshold(prof, 0.9), tsmt::cpu_exec(2), "range");
    methods_agree_with_oracle(x, m, m, prof, 7, 0.0, tsmt::cpu_exec(), "range, r = 0");
}

// ---- hostile data (issue 15): spikes, offsets, scales, near-ties ---------------

namespace {

// The issue's signal sin(0.3 i) + 0.1 sin(1.7 i), i = 1 .. n, times f, plus
// bump at i = at (0: none).
std::vector<double> issue_signal(int64_t n, double f = 1.0, int64_t at = 0, double bump = 0.0) {
    std::vector<double> x(n);
    for (int64_t i = 1; i <= n; ++i) x[i - 1] = (std::sin(i * 0.3) + 0.1 * std::sin(i * 1.7) + (i == at ? bump : 0.0)) * f;
    return x;
}

// Both methods' top-k and range rows on x: the same, and the oracle's.
void hostile_case(const std::vector<double>& x, int m, int64_t k, TsExec ex, const char* what) {
    auto prof = oracle_profile(x, m, m);
    methods_agree_with_oracle(x, m, m, prof, k, std::nan(""), ex, what);
    methods_agree_with_oracle(x, m, m, prof, -1, gap_threshold(prof, 0.95), ex, what);
}

}  // namespace

// A glitch spike: every window away from it keeps its nearest neighbour, and
// both methods rank the windows by those distances.
TEST(discords_spikes_change_nothing_away_from_them) {
    for (double spike : {1e9, 1e15}) {
        auto y = issue_signal(400);
        y[299] = spike;
        hostile_case(y, 10, 3, tsmt::cpu_exec(), "spike in the signal");
        auto w = planted(2500, 5, 32);
        w[1200] = spike * 10.0;  // the walk's spread is ~10
        hostile_case(w, 32, 5, tsmt::cpu_exec(2), "spike in a walk");
        auto z = planted(2500, 6, 32);
        z[1200] = 1e15 * spike;  // 1e24 and 1e30: the spike's own windows alone at their scale
        hostile_case(z, 32, 3, tsmt::cpu_exec(), "huge spike in a walk");
    }
    // issue 15, item 1: ts_discords(y, 10, 3) = {298, 179, 189} (1-based) by either method
    auto y = issue_signal(400);
    y[299] = 1e9;
    for (int method : {TS_DISCORDS_MATRIX_PROFILE, TS_DISCORDS_PD3}) {
        auto got = run_method(y, 10, 3, std::nan(""), 10, method, tsmt::cpu_exec());
        CHECK_EQ(got.size(), 3u);
        if (got.size() == 3) { CHECK_EQ(got[0].pos, 297); CHECK_EQ(got[1].pos, 178); CHECK_EQ(got[2].pos, 188); }
    }
}

// An offset of 1e9 under a signal of 1e-6 of it (item 3): the oracle's rows,
// {367, 85, 283} (1-based; 85 and 283 are exact twins, the smaller first).
TEST(discords_large_offset_tiny_signal) {
    auto y = issue_signal(400, 1e-6);
    for (auto& v : y) v += 1e9;
    hostile_case(y, 10, 3, tsmt::cpu_exec(), "1e9 + 1e-6 signal");
    auto got = run_method(y, 10, 3, std::nan(""), 10, TS_DISCORDS_PD3, tsmt::cpu_exec());
    CHECK_EQ(got.size(), 3u);
    if (got.size() == 3) { CHECK_EQ(got[0].pos, 366); CHECK_EQ(got[1].pos, 84); CHECK_EQ(got[2].pos, 282); }
    auto w = planted(2000, 8, 24);
    for (auto& v : w) v = 1e9 + 1e-6 * v;
    hostile_case(w, 24, 4, tsmt::cpu_exec(2), "1e9 + 1e-6 walk");
}

// x and 2^e·x give the same rows, distances bit for bit, for e over the
// float64 range (fixed seeds), in both methods (item 2).
TEST(discords_any_scale_gives_the_same_rows) {
    const int m = 20;
    auto x = planted(1500, 9, m);
    auto prof = oracle_profile(x, m, m);
    std::vector<std::vector<Row>> want;
    for (int method : {TS_DISCORDS_MATRIX_PROFILE, TS_DISCORDS_PD3}) {
        want.push_back(run_method(x, m, 4, std::nan(""), m, method, tsmt::cpu_exec()));
        check_same(want.back(), oracle_discords(prof, m, 4, std::nan("")), 1e-9, m);
    }
    std::mt19937_64 g(1015);
    for (int t = 0; t < 8; ++t) {
        const int e = (int)(g() % 2001) - 1000;
        auto y = x;
        for (auto& v : y) v = std::ldexp(v, e);
        for (int method : {TS_DISCORDS_MATRIX_PROFILE, TS_DISCORDS_PD3})
            check_identical(run_method(y, m, 4, std::nan(""), m, method, tsmt::cpu_exec()),
                            want[method == TS_DISCORDS_PD3], "scaled");
        if (tsmt::g_failures > 0) return;
    }
    // the issue's signal at 1e-300 .. 1e300: {179, 189, 126} (1-based)
    for (double f : {1e-300, 1e-200, 1e-100, 1.0, 1e100, 1e160, 1e300}) {
        auto got = run_method(issue_signal(400, f), 10, 3, std::nan(""), 10, TS_DISCORDS_PD3, tsmt::cpu_exec());
        CHECK_EQ(got.size(), 3u);
        if (got.size() == 3) { CHECK_EQ(got[0].pos, 178); CHECK_EQ(got[1].pos, 188); CHECK_EQ(got[2].pos, 125); }
    }
}

// Near-ties at ordinary scale (item 4, smaller): a quasi-periodic signal whose
// windows' NN distances agree to ~10 digits; both methods rank them alike, as
// the oracle does.
TEST(discords_near_ties_rank_alike) {
    const auto y = issue_signal(3000, 1.0, 1500, 0.8);
    hostile_case(y, 40, 3, tsmt::cpu_exec(), "near-ties");
}

namespace {

// A profiler over a table: the exact NN distances E and neighbours nn of
// every window, and the upper bounds u ≥ E that pair_distances reports (as
// d(i, its profile neighbour)); counts the windows it refines.
struct TableProfiler : tsm::WindowProfiler {
    std::vector<double> E, u;
    std::vector<int64_t> nn;
    int64_t refined = 0, calls = 0;
    void profile(int64_t, double*) override { CHECK(false); }
    void pair_distances(const int64_t* a, const int64_t* b, int64_t count, double* out) override {
        for (int64_t t = 0; t < count; ++t) out[t] = b[t] < 0 ? INFINITY : u[a ? a[t] : t];
    }
    void nearest(const int64_t* w, int64_t count, int64_t, const double* upper, double, double* d,
                 int64_t* j) override {
        ++calls;
        for (int64_t t = 0; t < count; ++t) {
            CHECK(upper[t] >= E[w[t]]);
            d[t] = E[w[t]];
            j[t] = nn[w[t]];
            ++refined;
        }
    }
};

}  // namespace

// Near-ties: every window's bound exceeds its E by more than the E's spread
// (as the windows of a periodic series), so the selection refines almost
// every window; it does so in growing batches, not one window a call (a GPU
// search of one window a launch: 54,486 launches for a 40,000-point sine).
TEST(discords_ranking_refines_near_ties_in_growing_batches) {
    auto ex = tsmt::cpu_exec();
    const int64_t count = 20000;
    const int m = 50;
    TableProfiler tp;
    Profile prof;
    tp.E.resize(count);
    tp.nn.resize(count);
    for (int64_t i = 0; i < count; ++i) {
        tp.E[i] = 1.0 + 1e-9 * (double)((i * 7919) % count);
        tp.nn[i] = (i + count / 2) % count;
    }
    tp.u = tp.E;
    for (double& u : tp.u) u += 0.5;
    prof.dist = tp.E;
    prof.nn = tp.nn;
    for (int64_t k : {1, 10}) {
        tp.calls = tp.refined = 0;
        auto got = tsm::rank_from_profile(tp, count, m, tp.nn.data(), k, std::nan(""), m, &ex);
        std::vector<Row> rows;
        for (size_t t = 0; t < got.pos.size(); ++t) rows.push_back({got.pos[t], got.dist[t], got.nn[t]});
        check_same(rows, oracle_discords(prof, m, k, std::nan("")), 0);
        CHECK(tp.refined >= count / 2);
        CHECK(tp.calls <= count / 16);  // one window a call: ~2·count calls here
    }
}

// The ranking rule's selection reads only a prefix of the rank order (the
// windows of largest u, widened when the picks run out) and refines windows
// lazily: it must equal the greedy selection over every window's exact E,
// also when ties are everywhere, each pick hides many windows, u exceeds E
// (a profile that named a worse neighbour) or is +inf (it named none); with
// u = E it refines few.
TEST(discords_ranking_rule_selection_equals_full_ranking) {
    auto ex = tsmt::cpu_exec();
    std::mt19937_64 g(17);
    // few distinct values (ties everywhere), then a smooth profile (a random
    // walk's magnitude: long runs of close values, as real profiles have)
    for (int64_t count : {5000, 40000, -40000}) {
        const bool smooth = count < 0;
        count = std::abs(count);
        TableProfiler tp;
        Profile prof;
        tp.E.resize(count);
        tp.nn.resize(count);
        const std::vector<double> walk = tsmt::random_walk(count, 29);
        for (int64_t i = 0; i < count; ++i) {
            tp.E[i] = smooth ? std::fabs(walk[i]) : (double)(g() % 7) + ((i % 5 == 0) ? 0.5 : 0.0);
            tp.nn[i] = (int64_t)(g() % count);
        }
        prof.dist = tp.E;
        prof.nn = tp.nn;
        for (bool inflated : {false, true}) {
            tp.u = tp.E;
            std::vector<int64_t> named = tp.nn;  // the profile's neighbours
            if (inflated)
                for (int64_t i = 0; i < count; ++i) {
                    if (g() % 3 == 0) tp.u[i] += (double)(g() % 5) * 0.25;
                    if (g() % 97 == 0) named[i] = -1;
                }
            for (int m : {3, 50, 400}) {
                for (int64_t k : {1, 5, 50, 300, 2000}) {
                    for (double r : {std::nan(""), 4.0}) {
                        tp.refined = 0;
                        auto got = tsm::rank_from_profile(tp, count, m, named.data(), k, r, m, &ex);
                        std::vector<Row> rows;
                        for (size_t t = 0; t < got.pos.size(); ++t) rows.push_back({got.pos[t], got.dist[t], got.nn[t]});
                        check_same(rows, oracle_discords(prof, m, k, r), 0);
                        if (!inflated && std::isnan(r)) CHECK(tp.refined <= 4 * k + 64);
                        if (tsmt::g_failures > 0) return;
                    }
                }
            }
        }
    }
}

TEST(discords_errors) {
    auto x = planted(200, 81, 10);
    auto ex = tsmt::cpu_exec();
    auto bad = [&](int m, int64_t k, double r, int64_t e) {
        TsStatus st;
        run_pd3(x, m, k, r, e, ex, &st);
        CHECK_EQ(st.code, (int)TS_INVALID_ARGUMENT);
        CHECK(std::strcmp(st.sqlstate, "22023") == 0);
        CHECK(std::strlen(st.message) > 0);
    };
    bad(2, 1, NAN, 2);          // m < 3
    bad(101, 1, NAN, 101);      // m > n/2
    bad(10, 0, NAN, 10);        // k < 1
    bad(10, -2, 1.0, 10);       // k < 1
    bad(10, 1, -1.0, 10);       // min_distance < 0
    bad(10, 1, INFINITY, 10);   // min_distance not finite
    bad(10, 1, NAN, 0);         // exclusion < 1
    bad(10, 1, NAN, 191);       // no window has a neighbour (N − 1 = 190)
    TsStatus st;
    run_pd3(x, 10, -1, NAN, 10, ex, &st);  // top-k mode without k: 22004
    CHECK_EQ(st.code, (int)TS_INVALID_ARGUMENT);
    CHECK(std::strcmp(st.sqlstate, "22004") == 0);
    run_pd3(x, 100, 1, NAN, 100, ex, &st);  // m = n/2 is allowed
    CHECK_OK(st);
    run_pd3(x, 10, 1, NAN, 190, ex, &st);   // exclusion N − 1: windows 0 and N − 1 pair
    CHECK_OK(st);
    TsDiscords d;
    for (const char* method : {"matrix_profile", "auto"}) {
        tsm_discords(x.data(), x.size(), 2, 1, NAN, 2, method, 1, &ex, &d, &st);
        CHECK_EQ(st.code, (int)TS_INVALID_ARGUMENT);
        tsm_discords(x.data(), x.size(), 10, TS_ARG_NULL, NAN, 10, method, 1, &ex, &d, &st);
        CHECK_EQ(st.code, (int)TS_INVALID_ARGUMENT);
        tsm_discords(x.data(), x.size(), 10, -1, 1.0, 10, method, 1, &ex, &d, &st);
        CHECK_EQ(st.code, (int)TS_INVALID_ARGUMENT);
        tsm_discords(x.data(), x.size(), 10, 1, -0.5, 10, method, 1, &ex, &d, &st);
        CHECK_EQ(st.code, (int)TS_INVALID_ARGUMENT);
    }
    tsm_discords(x.data(), x.size(), 10, 1, NAN, 10, "drag", 1, &ex, &d, &st);
    CHECK(st.code == TS_INVALID_ARGUMENT && std::strstr(st.message, "unknown method") != nullptr);
}

// ---- the CPU scan against PD3's rules, stated plainly --------------------------
//
// discords_detail.h holds the arithmetic and rules that the CPU path and the
// kernel share.  Written out here as a plain serial scan (every segment over
// its columns in one go: no column windows, no threads, no FMA
// multiversioning) with the GPU's form of the distance (pair_d2_unbased), it
// must give the CPU runner's survivors, partners and undone discards exactly.

namespace {

struct SideResult {
    std::vector<double> d2;        // nearest neighbour's d² on this side so far (inf: none)
    std::vector<int64_t> nn;       // -1: none
    std::vector<char> alive;       // not discarded (as row)
    std::vector<char> hit;         // discarded as column
    std::vector<int64_t> col_row;  // the smallest row that discarded the column
};

// PD3's scan of one side, stated plainly: every segment over its columns in
// one go; co-moments C direct in the first column of each chunk
// (pd3::chunk_columns), for its top row and for rough rows or columns, by the
// recurrence otherwise; visit(i, j, C)
// for every row i the side pairs with column j.  A segment is not scanned
// when live(plan) is false, and stops after the first 32nd column (from its
// first) at which it is.
template <class Live, class Visit>
void plain_scan(const tsm::Pd3Prep& p, bool select, Live live, Visit visit) {
    namespace pd3 = tsm::pd3;
    const tsm::mp::Prepared& P = p.mp;
    const pd3::Columns cols = pd3::scan_columns(select, p.N, p.excl);
    const int64_t K = pd3::chunk_columns(p.N, p.m);
    for (int64_t s = 0; s * pd3::kSegmentRows < p.N; ++s) {
        const pd3::SegmentPlan sp = pd3::plan_segment(select, s, p.N, p.excl, cols.begin, cols.end);
        if (!live(sp)) continue;
        std::vector<double> C(sp.rows), next(sp.rows);
        for (int64_t j = sp.start; j < sp.end; ++j) {
            for (int r = 0; r < sp.rows; ++r) {
                const int64_t i = sp.first_row + r;
                next[r] = ((j - sp.start) % K == 0 || r == 0 || p.rough[i] || p.rough[j])
                              ? tsm::direct_comoment(P.xs.data(), i, j, p.m, P.mu[i], P.mu[j])
                              : tsm::comoment_next(C[r - 1], P.df[i], P.dg[i], P.df[j], P.dg[j]);
            }
            C.swap(next);
            int lo, hi;
            pd3::paired_rows(select, sp, j, p.excl, &lo, &hi);
            for (int r = lo; r < hi; ++r) visit(sp.first_row + r, j, C[r]);
            if ((j - sp.start) % 32 == 31 && !live(sp)) break;
        }
    }
}

// One side: rows start alive where `alive` says; a segment with no row alive
// is not scanned, and stops after the first 32nd column (from its first) at
// which none is left.
SideResult plain_side(const tsm::Pd3Prep& p, bool select, double r2, const std::vector<char>& alive) {
    namespace pd3 = tsm::pd3;
    const tsm::mp::Prepared& P = p.mp;
    const int64_t N = p.N;
    SideResult out{std::vector<double>(N, INFINITY), std::vector<int64_t>(N, -1), alive, std::vector<char>(N, 0),
                   std::vector<int64_t>(N, N)};
    const double md = p.m, m2 = 2.0 * p.m;
    auto any_alive = [&](const pd3::SegmentPlan& sp) {
        bool any = false;
        for (int r = 0; r < sp.rows; ++r) any = any || out.alive[sp.first_row + r];
        return any;
    };
    plain_scan(p, select, any_alive, [&](int64_t i, int64_t j, double C) {
        const double isd2_j = pd3::column_isd2(P.inv_std[j]);
        const double d2 = P.inv_std[j] == 0.0 ? pd3::constant_column_d2(P.inv_std[i], md)
                                              : pd3::pair_d2_unbased(C, P.inv_std[i], isd2_j, md, m2);
        if (pd3::visit_pair((bool)out.alive[i], d2, r2, j, out.d2[i], out.nn[i])) {
            out.alive[i] = 0;
            out.hit[j] = 1;
            out.col_row[j] = std::min(out.col_row[j], i);
        }
    });
    return out;
}

// A run with threshold r: the survivors with their partners (the nearer
// side's neighbour), and the windows whose discards all fail verification
// with the smallest exact distance to a partner (right neighbour if the
// selection discarded the row, the recorded row if it discarded the column,
// left neighbour if the refinement discarded it).
struct PlainRun {
    std::vector<tsm::Candidate> survivors;
    std::vector<std::pair<int64_t, double>> undone;
};

PlainRun plain_run(const tsm::Pd3Prep& p, double r, tsm::WindowProfiler& exact) {
    const double r2 = tsm::pd3::discard_below(r);
    const SideResult right = plain_side(p, true, r2, std::vector<char>(p.N, 1));
    std::vector<char> cand(p.N);
    for (int64_t i = 0; i < p.N; ++i) cand[i] = right.alive[i] && !right.hit[i];
    const SideResult left = plain_side(p, false, r2, cand);
    PlainRun out;
    for (int64_t i = 0; i < p.N; ++i) {
        double d2;
        int64_t nn;
        if (cand[i] && left.alive[i]) {
            if (tsm::pd3::nearest_neighbour(left.d2[i], left.nn[i], right.d2[i], right.nn[i], d2, nn))
                out.survivors.push_back({i, nn});
            continue;
        }
        std::vector<int64_t> partners;
        if (!right.alive[i]) partners.push_back(right.nn[i]);
        if (right.hit[i]) partners.push_back(right.col_row[i]);
        if (cand[i]) partners.push_back(left.nn[i]);
        double least = INFINITY;
        bool holds = false;
        for (int64_t q : partners) {
            double d;
            exact.pair_distances(&i, &q, 1, &d);
            least = std::min(least, d);
            holds = holds || d < r;
        }
        if (!holds && !partners.empty()) out.undone.push_back({i, least});
    }
    return out;
}

std::vector<tsm::Candidate> by_position(std::vector<tsm::Candidate> rows) {
    std::sort(rows.begin(), rows.end(),
              [](const tsm::Candidate& a, const tsm::Candidate& b) { return a.pos < b.pos; });
    return rows;
}

// The same windows with the same partners.
void check_candidates(const std::vector<tsm::Candidate>& got, const std::vector<tsm::Candidate>& want) {
    CHECK_EQ(got.size(), want.size());
    for (size_t t = 0; t < std::min(got.size(), want.size()); ++t) {
        CHECK_EQ(got[t].pos, want[t].pos);
        CHECK_EQ(got[t].partner, want[t].partner);
        if (tsmt::g_failures > 8) return;
    }
}

// A walk with planted anomalies, optionally offset, with constant stretches
// and a spike (rough windows).
std::vector<double> scan_series(int64_t n, int m, uint64_t seed, bool special) {
    auto x = planted(n, seed, m);
    if (special) {
        for (auto& v : x) v += 1e8;
        for (int64_t k = n / 5; k < n / 5 + 3 * m; ++k) x[k] = 1e8 + 0.5;  // constant windows
        for (int64_t k = n / 2; k < n / 2 + m; ++k) x[k] = 3.0;            // one constant window, far off
        x[3 * n / 4] = 1e12;                                               // a spike
    }
    return x;
}

}  // namespace

TEST(discords_cpu_scan_equals_plain_rules) {
    struct Case { int64_t n; int m; int64_t excl; uint64_t seed; bool special; };
    for (Case c : {Case{1500, 16, 16, 1, false}, Case{1203, 3, 3, 2, false}, Case{2100, 40, 7, 3, true},
                   Case{1800, 25, 90, 4, true}, Case{900, 20, 1, 5, false},
                   Case{9000, 16, 16, 6, false}, Case{7000, 30, 30, 7, true}}) {  // chunks of 256 columns
        const auto x = scan_series(c.n, c.m, c.seed, c.special);
        TsExec ex = tsmt::cpu_exec((int)(1 + c.seed % 3));
        tsm::Pd3Prep p;
        tsm::pd3_prepare(x.data(), c.n, c.m, c.excl, p, &ex);
        auto exact = tsm::make_cpu_profiler(p.xe.data(), c.n, c.m, &ex);
        auto runner = tsm::make_cpu_pd3(p, *exact, &ex);
        // r = 0: every window; then thresholds that keep many, a few, none
        for (double r : {0.0, 1.0, 3.0, 4.5, 2.0 * std::sqrt((double)c.m)}) {
            const PlainRun want = plain_run(p, r, *exact);
            check_candidates(by_position(runner->run(r)), want.survivors);
            auto undone = runner->undone(r);
            std::sort(undone.begin(), undone.end());
            CHECK(undone == want.undone);
            if (tsmt::g_failures > 0) return;
        }
    }
}

// A spike makes its windows' steps rough (and only those), so that the
// recurrence restarts past it.
TEST(discords_rough_windows_mark_a_spike) {
    const int m = 20;
    auto x = planted(1000, 6, m);
    x[500] = 1e9;
    TsExec ex = tsmt::cpu_exec();
    tsm::Pd3Prep p;
    tsm::pd3_prepare(x.data(), 1000, m, m, p, &ex);
    CHECK(p.rough[501]);  // the spike has just left the window
    int64_t rough = 0;
    for (int64_t i = 0; i < p.N; ++i) rough += p.rough[i];
    CHECK(rough <= 3);
    tsm::Pd3Prep q;
    auto y = planted(1000, 6, m);
    tsm::pd3_prepare(y.data(), 1000, m, m, q, &ex);
    for (int64_t i = 0; i < q.N; ++i) CHECK(!q.rough[i]);
}

namespace {

// The largest |C̃ − C| / ((2^-23 + (m + 4)·2^-34)·N_i·N_j) over the pairs
// (i, j) of non-flat windows that one side of the scan turns into a d², C̃
// by the scan's rules (plain_scan, every segment whole) and C the co-moment
// about the stored means in long double: at most 1 (discords_detail.h).
double scan_error_ratio(const tsm::Pd3Prep& p, bool select) {
    const tsm::mp::Prepared& P = p.mp;
    const double tol = 0x1p-23 + (p.m + 4) * 0x1p-34;
    double worst = 0;
    auto every_segment = [](const tsm::pd3::SegmentPlan&) { return true; };
    plain_scan(p, select, every_segment, [&](int64_t i, int64_t j, double C) {
        const double ni = tsm::mp::window_norm(P.inv_norm[i]), nj = tsm::mp::window_norm(P.inv_norm[j]);
        if (!(ni > 0 && nj > 0)) return;
        long double exact = 0;
        for (int t = 0; t < p.m; ++t)
            exact += ((long double)P.xs[i + t] - P.mu[i]) * ((long double)P.xs[j + t] - P.mu[j]);
        worst = std::max(worst, (double)(std::fabs((long double)C - exact) / (tol * ni * nj)));
    });
    return worst;
}

}  // namespace

// The scan's co-moments keep discords_detail.h's bound wherever the spikes
// are and however the amplitude decays: noise whose amplitude falls by
// 2^(1/16) a step, by 2^16 in a segment's 255 steps (no single step changes N
// by more than a few times, so no window is rough by its own norm: that rule
// left 7 times the bound here), then jumps back; x[0], the stats' reference
// value, at the lowest amplitude (the means keep their rounding at σ's size).
TEST(discords_scan_comoments_keep_their_bound) {
    std::mt19937_64 rng(1517);
    std::vector<std::vector<double>> series;
    auto decay = tsmt::gaussian(1500, 1518);
    for (size_t t = 0; t < decay.size(); ++t) decay[t] = std::ldexp(decay[t], -(int)((t + 255) % 256) / 16);
    series.push_back(decay);
    for (int trial = 0; trial < 3; ++trial) {
        auto x = tsmt::random_walk(1500, rng());
        std::uniform_int_distribution<int> at(0, 1499);
        std::uniform_real_distribution<double> decade(9, 15);
        for (int k = 0; k < 3; ++k) x[at(rng)] = (k % 2 ? -1 : 1) * std::pow(10.0, decade(rng));
        for (int t = 700; t < 760; ++t) x[t] = 4.0;  // constant windows
        series.push_back(x);
    }
    series.push_back(scan_series(1500, 16, 7, true));
    TsExec ex = tsmt::cpu_exec();
    for (size_t c = 0; c < series.size(); ++c) {
        for (int m : {8, 16}) {
            tsm::Pd3Prep p;
            tsm::pd3_prepare(series[c].data(), series[c].size(), m, m, p, &ex);
            for (bool select : {true, false}) {
                const double ratio = scan_error_ratio(p, select);
                if (!(ratio <= 1.0)) std::printf("    series %zu, m = %d, %s: %g of the bound\n", c, m,
                                                 select ? "selection" : "refinement", ratio);
                CHECK(ratio <= 1.0);
            }
        }
    }
}

// The GPU's form of the distance (the constant row's m chosen) and the CPU's
// (the constant row's m added, base_i) give the same bits.
TEST(discords_pair_d2_forms_agree) {
    namespace pd3 = tsm::pd3;
    std::mt19937_64 g(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int m : {3, 17, 100, 1000}) {
        const double md = m, m2 = 2.0 * m;
        for (int t = 0; t < 20000; ++t) {
            const double C = u(g) * m * std::exp(4 * u(g));
            const double isd_i = t % 7 == 0 ? 0.0 : std::exp(6 * u(g));
            const double isd2_j = pd3::column_isd2(std::exp(6 * u(g)));
            const double a = pd3::pair_d2(C, isd_i, pd3::row_base(isd_i, md, m2), isd2_j);
            const double b = pd3::pair_d2_unbased(C, isd_i, isd2_j, md, m2);
            CHECK(std::memcmp(&a, &b, sizeof a) == 0);
            if (tsmt::g_failures > 0) return;
        }
    }
}

// ---- real series: reference_discords.json, "nonoverlap_top3_discords" -------

namespace {
struct RealCase {
    const char* file;
    int column;
    int m;
};
const RealCase kReal[] = {
    {"keogh_discords/space_shuttle/TEK16.txt", 0, 128},
    {"keogh_discords/space_shuttle/TEK17.txt", 0, 128},
    {"keogh_discords/ecg/qtdbsel102.txt", 1, 256},
    {"keogh_discords/respiration/nprs44.txt", 0, 256},
    {"keogh_discords/ecg/mitdb__100_180.txt", 1, 256},
};
}  // namespace

TEST(discords_real_series_match_reference_json) {
    for (const RealCase& c : kReal) {
        auto x = tsmt::load_column(std::string("anomaly/") + c.file, c.column);
        auto ref = reference_top3(std::string(c.file) + "|m=" + std::to_string(c.m), "nonoverlap_top3_discords");
        CHECK(!x.empty());
        CHECK_EQ(ref.size(), 3u);
        if (x.empty() || ref.size() != 3) continue;
        auto got = run_pd3(x, c.m, 3, std::nan(""), c.m, tsmt::cpu_exec());
        CHECK_EQ(got.size(), 3u);
        for (size_t i = 0; i < std::min<size_t>(3, got.size()); ++i) {
            CHECK_EQ(got[i].pos, ref[i].pos);
            CHECK_EQ(got[i].nn, ref[i].nn);
            CHECK_NEAR(got[i].dist, ref[i].dist, 1e-5);  // printed with 6 decimals
        }
        // range mode at just below the third discord returns the first one and more
        auto range = run_pd3(x, c.m, 1, ref[2].dist - 1e-3, c.m, tsmt::cpu_exec());
        CHECK_EQ(range.size(), 1u);
        if (!range.empty()) CHECK_EQ(range[0].pos, ref[0].pos);
    }
}

// ---- GPU == CPU ---------------------------------------------------------------

namespace {
void gpu_equals_cpu(const std::vector<double>& x, int m, int64_t k, double r, int64_t excl) {
    auto c = run_pd3(x, m, k, r, excl, tsmt::cpu_exec());
    int used = -1;
    auto gr = run_pd3(x, m, k, r, excl, tsmt::gpu_exec(), nullptr, &used);
    CHECK_EQ(used, (int)TS_BACKEND_GPU);
    CHECK(!c.empty());
    check_same(gr, c, 1e-9);
}
}  // namespace

GPU_TEST(discords_gpu_equals_cpu_random_walks) {
    struct Case { int64_t n; int m; int64_t excl; uint64_t seed; };
    for (Case c : {Case{1500, 16, 16, 1}, Case{1200, 3, 3, 3}, Case{1600, 25, 7, 4}, Case{1000, 20, 1, 6},
                   Case{20000, 64, 64, 7}, Case{30000, 100, 100, 8}, Case{50000, 300, 300, 9},
                   Case{40000, 1024, 1024, 10}, Case{9000, 31, 77, 12}}) {
        auto x = planted(c.n, c.seed, c.m);
        for (int64_t k : {1, 3, 10}) gpu_equals_cpu(x, c.m, k, std::nan(""), c.excl);
        if (c.n <= 2000) {
            auto prof = oracle_profile(x, c.m, c.excl);
            for (double q : {0.0, 0.5, 0.99}) gpu_equals_cpu(x, c.m, -1, q == 0 ? 0.0 : gap_threshold(prof, q), c.excl);
        } else {
            // range mode at a fraction of the top discord's distance
            auto top = run_pd3(x, c.m, 1, std::nan(""), c.excl, tsmt::cpu_exec());
            if (!top.empty()) gpu_equals_cpu(x, c.m, -1, 0.8 * top[0].dist, c.excl);
        }
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(discords_gpu_equals_cpu_offset_constants_boundary) {
    const int m = 32;
    auto x = planted(6000, 41, m);
    for (auto& v : x) v += 1e8;
    for (int k = 2000; k < 2100; ++k) x[k] = 1e8 + 0.5;  // constant windows
    for (int k = 4000; k < 4032; ++k) x[k] = 3.0;        // one constant window, far from the rest
    for (int64_t k : {1, 10}) gpu_equals_cpu(x, m, k, std::nan(""), m);
    // (no r = 0 here: windows [v, c, ..., c] at the edges of the two constant
    // runs can be exact z-normalised twins, whose NN order is rounding's choice)
    gpu_equals_cpu(x, m, -1, 1.0, m);
    gpu_equals_cpu(x, m, -1, 3.0, m);
    // twin bursts exactly e apart (the exclusion boundary)
    for (int64_t e : {40, 41}) {
        auto y = tsmt::random_walk(5000, 31);
        for (int k = 0; k < 40; ++k) y[1000 + k] = y[1000 + e + k] = 15.0 * std::sin(k * 0.5);
        gpu_equals_cpu(y, 40, 3, std::nan(""), e);
        gpu_equals_cpu(y, 40, -1, 0.0, e);
    }
    std::vector<double> flat(3000, 45.0);
    gpu_equals_cpu(flat, 10, 3, std::nan(""), 10);
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(discords_gpu_real_series_match_reference_json) {
    for (const RealCase& c : kReal) {
        auto x = tsmt::load_column(std::string("anomaly/") + c.file, c.column);
        auto ref = reference_top3(std::string(c.file) + "|m=" + std::to_string(c.m), "nonoverlap_top3_discords");
        CHECK_EQ(ref.size(), 3u);
        if (x.empty() || ref.size() != 3) continue;
        TsExec g = tsmt::gpu_exec();
        auto got = run_pd3(x, c.m, 3, std::nan(""), c.m, g);
        CHECK_EQ(got.size(), 3u);
        for (size_t i = 0; i < std::min<size_t>(3, got.size()); ++i) {
            CHECK_EQ(got[i].pos, ref[i].pos);
            CHECK_EQ(got[i].nn, ref[i].nn);
            CHECK_NEAR(got[i].dist, ref[i].dist, 1e-5);
        }
        gpu_equals_cpu(x, c.m, 10, std::nan(""), c.m);
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

// The hostile series of the CPU tests: GPU = CPU, both methods, bit for bit.
GPU_TEST(discords_gpu_hostile_series_equal_cpu) {
    std::vector<std::pair<std::vector<double>, int>> cases;
    auto y = issue_signal(400);
    y[299] = 1e9;
    cases.push_back({y, 10});
    auto o = issue_signal(400, 1e-6);
    for (auto& v : o) v += 1e9;
    cases.push_back({o, 10});
    auto w = planted(20000, 5, 64);
    w[12000] = 1e12;
    cases.push_back({w, 64});
    for (double f : {0x1p-1000, 0x1p1000}) cases.push_back({issue_signal(5000, f, 2500, 0.8), 50});
    for (double f : {1.0, 1e-100}) cases.push_back({issue_signal(40000, f, 2000, 0.8), 100});  // items 2, 4
    for (auto& c : cases) {
        for (int method : {TS_DISCORDS_MATRIX_PROFILE, TS_DISCORDS_PD3}) {
            auto cpu = run_method(c.first, c.second, 3, std::nan(""), c.second, method, tsmt::cpu_exec());
            auto gpu = run_method(c.first, c.second, 3, std::nan(""), c.second, method, tsmt::gpu_exec());
            check_identical(gpu, cpu, "gpu");
            CHECK(!cpu.empty());
        }
        if (tsmt::g_failures > 0) break;
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(discords_gpu_large_random_walk_top10) {
    // 2^18 points, m = 100: GPU top-10 equals the CPU's
    auto x = planted(1 << 18, 91, 100);
    gpu_equals_cpu(x, 100, 10, std::nan(""), 100);
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

// The scans themselves: the GPU runner's survivors and partners, and the
// discards its verification undoes, equal the CPU runner's (both call
// discords_detail.h and verify with the same exact distances), over several
// launch windows, with constant windows, an offset and a spike.
#ifdef TSMINE_WITH_CUDA
namespace {

// The CPU's candidates at the first r of the top-k schedule (2√m·0.9^t) that
// keeps at least `least` windows (high r is cheap: candidates go at once),
// so that the GPU is compared on a non-trivial set; *r gets that r.
std::vector<tsm::Candidate> cpu_survivors(tsm::Pd3Runner& runner, double m, size_t least, double* r) {
    for (*r = 2.0 * std::sqrt(m);; *r *= 0.9) {
        auto rows = runner.run(*r);
        if (rows.size() >= least || *r < 1e-3) return by_position(std::move(rows));
    }
}

}  // namespace
#endif

GPU_TEST(discords_gpu_scan_bits_equal_cpu) {
#ifdef TSMINE_WITH_CUDA
    // r < 0: r chosen from the series (cpu_survivors), so that some windows
    // survive.  2^17 + 4096 values: up to 66 chunks of 2,048 columns
    // (pd3::plan_chunk) a segment, 20,000 values up to 78 of 256, the later
    // ones scanned as tasks of their own and merged.
    struct Case { int64_t n; int m; int64_t excl; uint64_t seed; bool special; double r; };
    for (Case c : {Case{3000, 16, 16, 1, false, 0.0}, Case{20000, 64, 64, 2, true, 0.0},
                   Case{20000, 7, 3, 3, false, -1.0}, Case{1 << 18, 100, 100, 4, false, -1.0},
                   Case{1 << 18, 100, 100, 5, true, -1.0}, Case{20000, 64, 64, 6, true, -1.0},
                   Case{(1 << 17) + 4096, 100, 100, 7, false, -1.0}}) {
        const auto x = scan_series(c.n, c.m, c.seed, c.special);
        TsExec cpu = tsmt::cpu_exec(), gpu = tsmt::gpu_exec();
        tsm::Pd3Prep p;
        tsm::pd3_prepare(x.data(), c.n, c.m, c.excl, p, &cpu);
        auto exact = tsm::make_cpu_profiler(p.xe.data(), c.n, c.m, &cpu);
        auto runner = tsm::make_cpu_pd3(p, *exact, &cpu);
        double r = c.r;
        const auto want = r < 0 ? cpu_survivors(*runner, c.m, 5, &r) : by_position(runner->run(r));
        CHECK(want.size() >= (r == 0 ? (size_t)(c.n - c.m + 1) : 5));
        auto gpu_runner = tsm::gpu::make_pd3(p, &gpu);
        check_candidates(by_position(gpu_runner->run(r)), want);
        auto undone_cpu = runner->undone(r), undone_gpu = gpu_runner->undone(r);
        std::sort(undone_cpu.begin(), undone_cpu.end());
        std::sort(undone_gpu.begin(), undone_gpu.end());
        CHECK(undone_gpu == undone_cpu);
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
#endif
}

// The CPU profiler's nearest-neighbour search by reference windows (after
// 64 windows searched; what the discords' ranking uses on a periodic series,
// where every window's neighbour is a near-tie) against its plain search (a
// fresh profiler for every 64 windows): the same neighbour and distance, bit
// for bit, for every window — a pure sine, one with 1e-9 noise, a random walk
// with planted anomalies and one with constant stretches and a gap; with
// z-normalised and raw-value distances.
TEST(discords_nearest_by_references_equals_the_plain_search) {
    const int m = 50;
    std::vector<std::vector<double>> series = {tsmt::periodic(2500, 50, 0, 3), tsmt::periodic(2500, 50, 1e-9, 3)};
    series.push_back(planted(2200, 5, m));
    auto flat = planted(2300, 6, m);
    for (int i = 700; i < 900; ++i) flat[i] = 3.0;
    flat[1500] = NAN;
    series.push_back(flat);
    for (bool raw : {false, true})
    for (const auto& x : series) {
        const int64_t n = (int64_t)x.size(), N = n - m + 1;
        const std::vector<double> xs = tsm::unit_scaled(x.data(), n);
        TsExec ex = tsmt::cpu_exec(2);
        std::vector<int64_t> w(N);
        std::iota(w.begin(), w.end(), 0);
        const std::vector<double> upper(N, INFINITY);
        std::vector<double> d_ref(N), d_plain(N);
        std::vector<int64_t> j_ref(N), j_plain(N);
        tsm::make_cpu_profiler(xs.data(), n, m, &ex, raw)->nearest(w.data(), N, m, upper.data(), -INFINITY, d_ref.data(),
                                                              j_ref.data());
        for (int64_t lo = 0; lo < N; lo += 64) {
            const int64_t count = std::min<int64_t>(64, N - lo);
            tsm::make_cpu_profiler(xs.data(), n, m, &ex, raw)->nearest(w.data() + lo, count, m, upper.data(), -INFINITY,
                                                                  d_plain.data() + lo, j_plain.data() + lo);
        }
        CHECK(j_ref == j_plain);
        CHECK(tsmt::same_bits(d_ref, d_plain));
    }
}

// PD3's chunk width (discords_detail.h): the largest power of two ≤
// windows/40, at least 2m and 256, at most 8192; chunks cover a segment's
// columns exactly.
TEST(discords_chunks_cover_the_columns) {
    namespace pd3 = tsm::pd3;
    CHECK_EQ(pd3::chunk_columns(4873, 128), 256);     // TEK16
    CHECK_EQ(pd3::chunk_columns(20479, 100), 256);
    CHECK_EQ(pd3::chunk_columns(20480, 100), 512);
    CHECK_EQ(pd3::chunk_columns(23870, 256), 512);    // nprs44
    CHECK_EQ(pd3::chunk_columns(34529, 512), 1024);   // power demand: 2m
    CHECK_EQ(pd3::chunk_columns(44745, 256), 1024);   // ECG qtdbsel102
    CHECK_EQ(pd3::chunk_columns(3000, 129), 512);     // 2m rounds up
    CHECK_EQ(pd3::chunk_columns(327680, 100), 8192);
    CHECK_EQ(pd3::chunk_columns(327679, 100), 4096);
    CHECK_EQ(pd3::chunk_columns(3000, 100000), 8192);
    CHECK_EQ(pd3::chunk_columns(int64_t(1) << 30, 3), 8192);
    for (int64_t windows : {int64_t(3000), int64_t(40000), int64_t(262144), int64_t(1) << 20})
        for (bool select : {true, false})
            for (int64_t s : {int64_t(0), int64_t(3), (windows - 1) / pd3::kSegmentRows}) {
                const int64_t width = pd3::chunk_columns(windows, 100);
                const pd3::SegmentPlan first = pd3::plan_chunk(select, s, windows, 100, width, 0);
                const int64_t count = pd3::chunk_count(first, width);
                int64_t next = first.start;
                for (int64_t c = 0; c < count; ++c) {
                    const pd3::SegmentPlan sp = pd3::plan_chunk(select, s, windows, 100, width, c);
                    CHECK_EQ(sp.lo, next);
                    CHECK(sp.hi > sp.lo && ((sp.hi - sp.start) % 32 == 0 || sp.hi == sp.end));
                    next = sp.hi;
                }
                CHECK_EQ(next, first.end > first.start ? first.end : first.start);
            }
}
