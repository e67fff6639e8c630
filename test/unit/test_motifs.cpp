// Exact motifs (MK, from a profile) and similarity search, against brute-force
// oracles in long double; GPU_TESTs check GPU == CPU on the same inputs.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "args.h"
#include "check.h"
#include "error.h"
#include "motifs.h"

namespace {

using Pairs = std::vector<tsm::MotifPair>;

// ---- oracles -----------------------------------------------------------------

// Window statistics in long double, of the deviations x − x_i (exact
// differences: an offset of 1e9 costs no digits): mu is the mean of x − x_i.
struct LStats {
    std::vector<long double> mu, sd;
    std::vector<char> constant;
};

LStats lstats(const std::vector<double>& x, int m) {
    int64_t N = (int64_t)x.size() - m + 1;
    LStats s;
    s.mu.resize(N);
    s.sd.resize(N);
    s.constant.resize(N);
    for (int64_t i = 0; i < N; ++i) {
        long double a = 0;
        bool eq = true;
        for (int k = 0; k < m; ++k) {
            a += (long double)x[i + k] - x[i];
            eq = eq && x[i + k] == x[i];
        }
        long double mu = a / m, q = 0;
        for (int k = 0; k < m; ++k) q += ((long double)x[i + k] - x[i] - mu) * ((long double)x[i + k] - x[i] - mu);
        s.mu[i] = mu;
        s.sd[i] = std::sqrt(q / m);
        s.constant[i] = eq;
    }
    return s;
}

long double ldist(const std::vector<double>& x, const double* p, long double pmu, long double psd, bool pc,
                  int64_t j, const LStats& s, int m) {
    bool cj = s.constant[j];
    if (pc || cj) return (pc && cj) ? 0.0L : std::sqrt((long double)m);
    long double q = 0;
    for (int k = 0; k < m; ++k) {
        long double t = ((long double)p[k] - p[0] - pmu) / psd - ((long double)x[j + k] - x[j] - s.mu[j]) / s.sd[j];
        q += t * t;
    }
    return std::sqrt(q);
}

long double lpair(const std::vector<double>& x, int64_t a, int64_t b, const LStats& s, int m) {
    return ldist(x, &x[a], s.mu[a], s.sd[a], s.constant[a], b, s, m);
}

// All pairs, sorted by (d, a, b), then the greedy rule.
Pairs oracle_motifs(const std::vector<double>& x, int m, int64_t k, int64_t excl) {
    int64_t N = (int64_t)x.size() - m + 1;
    LStats s = lstats(x, m);
    struct P {
        long double d;
        int64_t a, b;
    };
    std::vector<P> all;
    for (int64_t a = 0; a < N; ++a)
        for (int64_t b = a + excl; b < N; ++b) all.push_back({lpair(x, a, b, s, m), a, b});
    std::sort(all.begin(), all.end(), [](const P& u, const P& v) {
        if (u.d != v.d) return u.d < v.d;
        if (u.a != v.a) return u.a < v.a;
        return u.b < v.b;
    });
    Pairs out;
    for (const P& p : all) {
        if ((int64_t)out.size() >= k) break;
        bool ok = true;
        for (auto& c : out)
            for (int64_t q : {c.a, c.b})
                if (std::llabs(p.a - q) < m || std::llabs(p.b - q) < m) ok = false;
        if (ok) out.push_back({p.a, p.b, (double)p.d});
    }
    return out;
}

// Matrix profile (long double), exclusion excl.
void oracle_profile(const std::vector<double>& x, int m, int64_t excl, std::vector<double>& d,
                    std::vector<int64_t>& idx) {
    int64_t N = (int64_t)x.size() - m + 1;
    LStats s = lstats(x, m);
    d.assign(N, INFINITY);
    idx.assign(N, -1);
    for (int64_t a = 0; a < N; ++a)
        for (int64_t b = 0; b < N; ++b)
            if (std::llabs(a - b) >= excl) {
                double v = (double)lpair(x, a, b, s, m);
                if (v < d[a]) { d[a] = v; idx[a] = b; }
            }
}

struct MatchRow {
    int64_t pos;
    double d;
};
std::vector<MatchRow> oracle_match(const std::vector<double>& x, const std::vector<double>& p, double maxd,
                                   int64_t k, int64_t excl) {
    int m = (int)p.size();
    int64_t N = (int64_t)x.size() - m + 1;
    LStats s = lstats(x, m);
    LStats ps = lstats(p, m);
    std::vector<std::pair<long double, int64_t>> all;
    for (int64_t j = 0; j < N; ++j) all.push_back({ldist(x, p.data(), ps.mu[0], ps.sd[0], ps.constant[0], j, s, m), j});
    std::sort(all.begin(), all.end());
    std::vector<MatchRow> out;
    for (auto& e : all) {
        if (k >= 0 && (int64_t)out.size() >= k) break;
        if (!std::isnan(maxd) && e.first > maxd) break;
        bool ok = true;
        for (auto& c : out)
            if (std::llabs(c.pos - e.second) < excl) ok = false;
        if (ok) out.push_back({e.second, (double)e.first});
    }
    return out;
}

// ---- calls -------------------------------------------------------------------

Pairs to_pairs(const TsMotifs& o) {
    Pairs p;
    for (int64_t i = 0; i < o.count; ++i) p.push_back({o.pos_a[i], o.pos_b[i], o.dist[i]});
    return p;
}

Pairs mk(const std::vector<double>& x, int m, int64_t k, int64_t excl, int n_refs, TsExec ex) {
    TsMotifs o;
    TsStatus st;
    tsm_motifs_mk(x.data(), x.size(), m, k, excl, n_refs, &ex, &o, &st);
    CHECK_OK(st);
    return st.code == TS_OK ? to_pairs(o) : Pairs{};
}

Pairs from_profile(const std::vector<double>& x, int m, int64_t k, int64_t excl, TsExec ex,
                   const std::vector<int64_t>& pi) {
    TsMotifs o;
    TsStatus st;
    tsm_motifs_from_profile(x.data(), x.size(), m, pi.data(), k, excl, 1, &ex, &o, &st);
    CHECK_OK(st);
    return st.code == TS_OK ? to_pairs(o) : Pairs{};
}

// ts_match; k < 0: all (k NULL)
std::vector<MatchRow> match(const std::vector<double>& x, const std::vector<double>& p, double maxd, int64_t k,
                            int64_t excl, TsExec ex) {
    TsMatches o;
    TsStatus st;
    tsm_match(x.data(), x.size(), p.data(), (int)p.size(), maxd, k < 0 ? TS_ARG_NULL : k, excl, 1, &ex, &o, &st);
    CHECK_OK(st);
    std::vector<MatchRow> r;
    if (st.code == TS_OK)
        for (int64_t i = 0; i < o.count; ++i) r.push_back({o.pos[i], o.dist[i]});
    return r;
}

// Positions identical, distances within rel (absolute near 0).
bool same_pairs(const Pairs& got, const Pairs& want, double rel, const char* what) {
    bool ok = got.size() == want.size();
    for (size_t i = 0; ok && i < got.size(); ++i)
        ok = got[i].a == want[i].a && got[i].b == want[i].b &&
             std::fabs(got[i].d - want[i].d) <= rel * std::max(1.0, std::fabs(want[i].d));
    if (!ok) {
        std::printf("    %s: got", what);
        for (auto& p : got) std::printf(" (%lld,%lld,%.12g)", (long long)p.a, (long long)p.b, p.d);
        std::printf("\n    %s: want", what);
        for (auto& p : want) std::printf(" (%lld,%lld,%.12g)", (long long)p.a, (long long)p.b, p.d);
        std::printf("\n");
    }
    return ok;
}

bool same_matches(const std::vector<MatchRow>& got, const std::vector<MatchRow>& want, double rel) {
    bool ok = got.size() == want.size();
    for (size_t i = 0; ok && i < got.size(); ++i)
        ok = got[i].pos == want[i].pos && std::fabs(got[i].d - want[i].d) <= rel * std::max(1.0, std::fabs(want[i].d));
    if (!ok) {
        std::printf("    match: got %zu, want %zu rows\n", got.size(), want.size());
        for (size_t i = 0; i < std::min<size_t>(std::max(got.size(), want.size()), 8); ++i)
            std::printf("    %zu: got %lld %.12g | want %lld %.12g\n", i,
                        i < got.size() ? (long long)got[i].pos : -1LL, i < got.size() ? got[i].d : NAN,
                        i < want.size() ? (long long)want[i].pos : -1LL, i < want.size() ? want[i].d : NAN);
    }
    return ok;
}

// Random walk with `copies` noisy copies of a few patterns planted in it.
std::vector<double> planted(int64_t n, int m, uint64_t seed, int patterns, double noise) {
    auto x = tsmt::random_walk(n, seed);
    std::mt19937_64 rng(seed * 7 + 1);
    std::normal_distribution<double> g(0, 1);
    for (int p = 0; p < patterns; ++p) {
        int64_t src = rng() % (n - m), dst = rng() % (n - m);
        double scale = 0.5 + (rng() % 100) / 50.0, shift = g(rng) * 10;
        for (int k = 0; k < m; ++k) x[dst + k] = scale * x[src + k] + shift + noise * g(rng);
    }
    return x;
}

struct Case {
    std::vector<double> x;
    int m;
    int64_t k, excl;
    int n_refs;
};

std::vector<Case> random_cases() {
    std::vector<Case> cs;
    std::mt19937_64 rng(4242);
    const int ms[] = {8, 16, 24, 40};
    for (int t = 0; t < 12; ++t) {
        int m = ms[t % 4];
        int64_t n = 250 + rng() % 700;
        Case c;
        c.m = m;
        c.x = planted(n, m, 100 + t, 1 + t % 3, t % 2 ? 0.05 : 0.5);
        c.k = 1 + t % 5;
        const int64_t ex[] = {m, std::max(1, m / 2), 2 * m, 1};
        c.excl = ex[t % 4];
        c.n_refs = (t % 3 == 0) ? 1 : 10;
        cs.push_back(std::move(c));
    }
    return cs;
}

// Exactly repeated windows: a pattern copied verbatim to 4 places.
std::vector<double> ties_series(int m) {
    auto x = tsmt::random_walk(1200, 77);
    const int64_t at[] = {100, 400, 700, 1000};
    auto src = tsmt::random_walk(m, 76);  // a pattern from elsewhere
    std::vector<double> p(src.begin(), src.end());
    for (int64_t a : at) std::copy(p.begin(), p.end(), x.begin() + a);
    return x;
}

}  // namespace

TEST(motifs_mk_matches_brute_force_on_random_walks) {
    for (auto& c : random_cases()) {
        auto want = oracle_motifs(c.x, c.m, c.k, c.excl);
        auto got = mk(c.x, c.m, c.k, c.excl, c.n_refs, tsmt::cpu_exec(1 + c.k % 2));
        CHECK(same_pairs(got, want, 1e-9, "mk"));
        CHECK_EQ((int64_t)got.size(), c.k);
    }
}

TEST(motifs_from_profile_matches_brute_force) {
    for (auto& c : random_cases()) {
        std::vector<double> pd;
        std::vector<int64_t> pi;
        oracle_profile(c.x, c.m, c.excl, pd, pi);
        auto want = oracle_motifs(c.x, c.m, c.k, c.excl);
        CHECK(same_pairs(from_profile(c.x, c.m, c.k, c.excl, tsmt::cpu_exec(), pi), want, 1e-9, "profile"));
    }
}

TEST(motifs_ties_exact_repeats_smaller_positions_first) {
    const int m = 30;
    auto x = ties_series(m);
    // pairs among {100,400,700,1000} all at exactly 0: (100,400) first, then (700,1000)
    auto got = mk(x, m, 3, m, 10, tsmt::cpu_exec());
    CHECK(got.size() == 3);
    if (got.size() == 3) {
        CHECK_EQ(got[0].a, 100);
        CHECK_EQ(got[0].b, 400);
        CHECK_EQ(got[0].d, 0.0);
        CHECK_EQ(got[1].a, 700);
        CHECK_EQ(got[1].b, 1000);
        CHECK_EQ(got[1].d, 0.0);
        CHECK(got[2].d > 0);
    }
    CHECK(same_pairs(got, oracle_motifs(x, m, 3, m), 1e-9, "ties"));
    std::vector<double> pd;
    std::vector<int64_t> pi;
    oracle_profile(x, m, m, pd, pi);
    CHECK(same_pairs(from_profile(x, m, 3, m, tsmt::cpu_exec(), pi), got, 0, "ties/profile"));
    // same with a long verbatim copy: 51 zero-distance pairs (a, a+500), smallest a wins
    auto y = tsmt::random_walk(1500, 78);
    std::copy(y.begin() + 200, y.begin() + 280, y.begin() + 700);
    auto g2 = mk(y, m, 2, m, 10, tsmt::cpu_exec());
    CHECK(g2.size() == 2 && g2[0].a == 200 && g2[0].b == 700 && g2[0].d == 0.0);
    CHECK(same_pairs(g2, oracle_motifs(y, m, 2, m), 1e-9, "ties/long"));
}

TEST(motifs_near_identical_windows_distance_is_zero) {
    const int m = 64;
    for (double offset : {0.0, 1e8}) {
        auto x = tsmt::random_walk(3000, 5);
        std::mt19937_64 rng(9);
        std::normal_distribution<double> g(0, 1e-9);
        for (int k = 0; k < m; ++k) x[2100 + k] = x[300 + k] + g(rng);
        for (auto& v : x) v += offset;
        auto got = mk(x, m, 1, m, 10, tsmt::cpu_exec());
        CHECK(got.size() == 1);
        if (got.size() == 1) {
            CHECK_EQ(got[0].a, 300);
            CHECK_EQ(got[0].b, 2100);
            CHECK(got[0].d <= 1e-6);
        }
        std::vector<double> p(x.begin() + 300, x.begin() + 300 + m);
        auto mt = match(x, p, NAN, 2, m, tsmt::cpu_exec());
        CHECK(mt.size() == 2 && mt[0].pos == 300 && mt[0].d == 0.0 && mt[1].pos == 2100 && mt[1].d <= 1e-6);
    }
}

TEST(motifs_offset_loop_runs_long_and_stays_exact) {
    // White noise, short windows: the bounds are weak and the best pair's
    // distance is large next to the spread of the key, so the offset loop has
    // to run far before the stopping rule holds.
    auto x = tsmt::gaussian(1500, 31);
    for (int n_refs : {1, 3}) {
        tsm::MkStats s;
        TsExec ex = tsmt::cpu_exec();
        auto got = tsm::motifs_mk_cpu(x.data(), x.size(), 8, 3, 8, n_refs, &ex, &s);
        CHECK(same_pairs(got, oracle_motifs(x, 8, 3, 8), 1e-9, "long loop"));
        CHECK(s.last_offset > 100);
        CHECK(s.runs == 3);
    }
    // the opposite: a strongly planted motif stops the loop early
    auto y = planted(4000, 64, 3, 1, 0.001);
    tsm::MkStats s;
    TsExec ex = tsmt::cpu_exec();
    auto got = tsm::motifs_mk_cpu(y.data(), y.size(), 64, 1, 64, 10, &ex, &s);
    CHECK(same_pairs(got, oracle_motifs(y, 64, 1, 64), 1e-9, "early stop"));
    CHECK(s.last_offset < 3937);
}

TEST(motifs_large_offset_changes_nothing) {
    for (uint64_t seed : {11, 12, 13}) {
        auto x = planted(1500, 32, seed, 2, 0.1);
        auto base = mk(x, 32, 3, 32, 10, tsmt::cpu_exec());
        for (auto& v : x) v += 1e8;
        auto off = mk(x, 32, 3, 32, 10, tsmt::cpu_exec());
        CHECK(same_pairs(off, base, 1e-6, "offset"));
        std::vector<double> p(x.begin() + 50, x.begin() + 82);
        auto m1 = match(x, p, NAN, 5, 32, tsmt::cpu_exec());
        for (auto& v : x) v -= 1e8;
        for (auto& v : p) v -= 1e8;
        auto m0 = match(x, p, NAN, 5, 32, tsmt::cpu_exec());
        CHECK(same_matches(m1, m0, 1e-6));
    }
}

TEST(motifs_constant_windows_follow_stumpy_rule) {
    auto x = tsmt::random_walk(900, 21);
    for (int k = 0; k < 60; ++k) x[100 + k] = 5.0, x[600 + k] = -3.0;
    auto got = mk(x, 20, 3, 20, 10, tsmt::cpu_exec());
    CHECK(same_pairs(got, oracle_motifs(x, 20, 3, 20), 1e-9, "constant"));
    // constant windows 100..140 and 600..640 are all at 0: (100, 120) is the first pair
    CHECK(got.size() == 3 && got[0].d == 0.0 && got[0].a == 100 && got[0].b == 120);
    std::vector<double> flat(500, 45.0);
    auto f = mk(flat, 10, 2, 10, 10, tsmt::cpu_exec());
    CHECK(f.size() == 2 && f[0].a == 0 && f[0].b == 10 && f[1].a == 20 && f[1].b == 30 && f[1].d == 0.0);
    std::vector<double> p(10, 1.0);
    auto mt = match(x, p, NAN, 3, 10, tsmt::cpu_exec());
    CHECK(mt.size() == 3 && mt[0].pos == 100 && mt[0].d == 0.0 && mt[1].pos == 110);
    CHECK(same_matches(mt, oracle_match(x, p, NAN, 3, 10), 1e-9));
}

// The selection loads the profile's lower bounds in batches (256 or 8k of them
// at a time): many pairs, each blocking windows whose bounds are small, make it
// load several batches; the pairs must still be the brute force's.
TEST(motifs_from_profile_many_pairs_load_bounds_in_batches) {
    auto x = tsmt::random_walk(3000, 41);
    for (int64_t k : {40, 120}) {
        const int m = 8;
        std::vector<double> pd;
        std::vector<int64_t> pi;
        oracle_profile(x, m, m, pd, pi);
        auto want = oracle_motifs(x, m, k, m);
        auto got = from_profile(x, m, k, m, tsmt::cpu_exec(), pi);
        CHECK_EQ((int64_t)got.size(), k);
        CHECK(same_pairs(got, want, 1e-9, "batches"));
    }
}

// ---- the PAA bound ----------------------------------------------------------------

namespace {

// Every window's PAA rows as MK builds them: y (double) and f (float), N × W.
struct PaaRows {
    int W = 0;
    std::vector<double> y, V, var;
    std::vector<float> f;
    double slackP = 0;
};

PaaRows paa_rows(const std::vector<double>& x, int m, const tsm::ZStats& zs) {
    const int64_t N = (int64_t)x.size() - m + 1;
    PaaRows r;
    const int W = r.W = tsm::motif::paa_count(m);
    std::vector<double> C((size_t)W * N), sum(W, 0.0), sq((size_t)W * W, 0.0);
    double zmax2 = 0;
    for (int64_t p = 0; p < N; ++p) {
        double n2;
        tsm::motif::window_paa(&x[p], m, zs.mean[p], zs.inv[p], zs.constant[p], W, &C[p], N, &n2);
        zmax2 = std::max(zmax2, n2);
        for (int a = 0; a < W; ++a) {
            sum[a] += C[(size_t)a * N + p];
            for (int b = 0; b < W; ++b) sq[a * W + b] += C[(size_t)a * N + p] * C[(size_t)b * N + p];
        }
    }
    r.slackP = tsm::motif::paa_slack(m, std::sqrt(zmax2));
    tsm::mk_principal_axes(W, sum.data(), sq.data(), (double)N, r.V, r.var);
    r.y.resize((size_t)N * W);
    r.f.resize((size_t)N * W);
    for (int64_t p = 0; p < N; ++p)
        for (int k = 0; k < W; ++k) {
            double v = 0;
            for (int a = 0; a < W; ++a) v += r.V[a * W + k] * C[(size_t)a * N + p];
            r.y[(size_t)p * W + k] = v;
            r.f[(size_t)p * W + k] = (float)v;
        }
    return r;
}

// The scan's float checks (key gap on axis 0, then the partial sums) at bsf.
bool paa_prunes(const PaaRows& r, int64_t a, int64_t b, double bsf) {
    const int W = r.W;
    const float* fa = &r.f[(size_t)a * W];
    const float* fb = &r.f[(size_t)b * W];
    const float g = std::fabs(fb[0] - fa[0]);
    if (g > tsm::motif::prune_threshold(bsf, r.slackP)) return true;
    const float thr2 = tsm::motif::prune_threshold2(bsf, r.slackP);
    float s = g * g;
    for (int k = 1; k < W; ++k) {
        const float d = fb[k] - fa[k];
        s += d * d;
        if (s > thr2) return true;
    }
    return false;
}

}  // namespace

namespace {

// Series for the PAA bound's property: random walks, white noise, constant and
// near-constant stretches, a large offset, a quantised series (σ/|x| ~ 1e-14).
std::vector<std::pair<const char*, std::vector<double>>> paa_bound_series() {
    std::vector<std::pair<const char*, std::vector<double>>> series;
    series.push_back({"random walk", tsmt::random_walk(2500, 41)});
    series.push_back({"white noise", tsmt::gaussian(2500, 42)});
    {
        auto x = tsmt::random_walk(2500, 43);
        std::mt19937_64 rng(44);
        std::normal_distribution<double> tiny(0, 1e-9);
        for (int k = 0; k < 300; ++k) x[200 + k] = 3.0, x[1200 + k] = -7.5, x[1800 + k] = 2.0 + tiny(rng);
        series.push_back({"constant stretches", x});
    }
    {
        auto x = tsmt::random_walk(2500, 45);
        for (auto& v : x) v += 1e8;
        series.push_back({"offset 1e8", x});
        auto q = tsmt::random_walk(2500, 46);
        for (auto& v : q) v = 1e8 + 1e-6 * v;
        series.push_back({"quantised", q});
    }
    return series;
}

// The property on one series and window length (see below).
void check_paa_bound(const char* name, const std::vector<double>& x, int m, std::mt19937_64& rng) {
    const int64_t N = (int64_t)x.size() - m + 1;
    tsm::ZStats zs;
    TsExec ex = tsmt::cpu_exec();
    tsm::zstats(x.data(), x.size(), m, zs, &ex);
    PaaRows r = paa_rows(x, m, zs);
    // orthonormal axes, variances descending
    double orth = 0;
    for (int k = 0; k < r.W; ++k)
        for (int l = 0; l < r.W; ++l) {
            double d = 0;
            for (int a = 0; a < r.W; ++a) d += r.V[a * r.W + k] * r.V[a * r.W + l];
            orth = std::max(orth, std::fabs(d - (k == l)));
        }
    CHECK(orth <= 1e-12);
    for (int k = 1; k < r.W; ++k) CHECK(r.var[k] <= r.var[k - 1]);
    // pairs: random ones, and every pair among some constant / near-constant windows
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (int t = 0; t < 4000; ++t) pairs.push_back({(int64_t)(rng() % N), (int64_t)(rng() % N)});
    for (int64_t a : {200, 250, 1200, 1300, 1800, 1850})
        for (int64_t b : {210, 260, 1210, 1250, 1810, 900})
            if (a < N && b < N) pairs.push_back({a, b});
    int bad_bound = 0, bad_prune = 0;
    double ratio = 0;
    int nratio = 0;
    for (auto& pr : pairs) {
        const int64_t a = pr.first, b = pr.second;
        const double d = tsm::zdist(&x[a], zs.mean[a], zs.inv[a], zs.constant[a], &x[b], zs.mean[b], zs.inv[b],
                                    zs.constant[b], m);
        double lb2 = 0;
        for (int k = 0; k < r.W; ++k) {
            const double t = r.y[(size_t)b * r.W + k] - r.y[(size_t)a * r.W + k];
            lb2 += t * t;
        }
        if (lb2 > d * d * (1 + 1e-9) + 1e-12 * m) ++bad_bound;
        if (paa_prunes(r, a, b, d)) ++bad_prune;
        if (d > 0) ratio += std::sqrt(lb2) / d, ++nratio;
    }
    if (bad_bound || bad_prune)
        std::printf("    %s m=%d: %d bounds above the distance, %d pairs pruned at their own distance\n", name, m,
                    bad_bound, bad_prune);
    CHECK_EQ(bad_bound, 0);
    CHECK_EQ(bad_prune, 0);
    // and the bound is tight on smooth series (what makes MK fast on them)
    if (std::string(name) == "random walk" && m >= 64) CHECK(ratio / nratio > 0.9);
    if (m <= 32 && std::string(name) == "white noise") CHECK(ratio / nratio > 0.999);  // W = m: exact
}

}  // namespace

TEST(motifs_paa_bound_never_exceeds_distance) {
    // Property: for every pair, Σ_k Δy_k² ≤ zdist², and the scan's float checks
    // never prune a pair when bsf equals its own distance.  The series of
    // paa_bound_series, and m around the segment count.
    std::mt19937_64 rng(47);
    for (auto& sc : paa_bound_series())
        for (int m : {3, 5, 8, 31, 32, 33, 64, 100, 128, 257}) check_paa_bound(sc.first, sc.second, m, rng);
    // constant windows have the zero vector: equal rows, no pruning among them
    std::vector<double> flat(200, 4.25);
    tsm::ZStats zs;
    TsExec ex = tsmt::cpu_exec();
    tsm::zstats(flat.data(), flat.size(), 40, zs, &ex);
    PaaRows r = paa_rows(flat, 40, zs);
    for (float v : r.f) CHECK_EQ(v, 0.0f);
    CHECK(!paa_prunes(r, 0, 100, 0.0));
}

TEST(motifs_mk_paa_key_on_random_walks) {
    // m = 128 on random walks: the PAA's first axis spreads more than any
    // reference and orders the windows; the PAA bound leaves few exact
    // distances.  Positions as the oracle's; a large offset changes nothing.
    auto x = planted(3000, 128, 17, 2, 0.05);
    tsm::MkStats s;
    TsExec ex = tsmt::cpu_exec();
    auto got = tsm::motifs_mk_cpu(x.data(), x.size(), 128, 3, 128, 10, &ex, &s);
    CHECK(same_pairs(got, oracle_motifs(x, 128, 3, 128), 1e-9, "paa key"));
    CHECK_EQ(s.order_reference, -1);
    CHECK_EQ(s.paa_segments, 32);
    CHECK(s.pairs_computed < 3000);  // of ~4 million pairs
    for (auto& v : x) v += 1e8;
    auto off = tsm::motifs_mk_cpu(x.data(), x.size(), 128, 3, 128, 10, &ex, &s);
    CHECK(same_pairs(off, got, 1e-6, "paa key + 1e8"));
    // a plain random walk, short windows, the exclusion zone below m
    auto y = tsmt::random_walk(2000, 18);
    CHECK(same_pairs(mk(y, 40, 4, 20, 10, tsmt::cpu_exec(2)), oracle_motifs(y, 40, 4, 20), 1e-9, "paa m40"));
}

TEST(motifs_k_larger_than_possible_returns_fewer) {
    auto x = tsmt::random_walk(100, 3);
    auto got = mk(x, 10, 50, 10, 10, tsmt::cpu_exec());
    CHECK(!got.empty() && got.size() < 50);
    CHECK(same_pairs(got, oracle_motifs(x, 10, 50, 10), 1e-9, "few"));
}

// Exact motifs of real series, from ../shared/data/anomaly/reference_discords.json
// ("nonoverlap_motif" = [i, NN(i), distance], exclusion m, 6 decimals).
struct RealCase {
    const char* file;
    int column, m;
    int64_t a, b;
    double d;
};
const RealCase kReal[] = {
    {"anomaly/keogh_discords/ecg/mitdb__100_180.txt", 1, 256, 215, 4837, 1.42602},
    {"anomaly/keogh_discords/ecg/chfdbchf15.txt", 1, 256, 1219, 1523, 0.689267},
    {"anomaly/keogh_discords/space_shuttle/TEK16.txt", 0, 128, 3385, 4347, 0.348539},
    {"anomaly/keogh_discords/respiration/nprs44.txt", 0, 256, 7085, 15708, 4.962114},
    {"anomaly/keogh_discords/power_demand/power_data.txt", 0, 512, 2050, 16834, 2.59275},
    {"anomaly/keogh_discords/ecg/qtdbsel102.txt", 1, 256, 21899, 26649, 1.531599},
};

// The series of a real case (empty, and a failed check, when it is missing).
std::vector<double> load_real(const RealCase& c) {
    auto x = tsmt::load_column(c.file, c.column);
    CHECK(x.size() > 1000);
    if (x.size() < 1000) x.clear();
    return x;
}

// ---- hostile data (issue 15): spikes, offsets, scales --------------------------

namespace {

// The issue's signal sin(0.3 i) + 0.1 sin(1.7 i), i = 1 .. n, times f.
std::vector<double> issue_signal(int64_t n, double f = 1.0) {
    std::vector<double> x(n);
    for (int64_t i = 1; i <= n; ++i) x[i - 1] = (std::sin(i * 0.3) + 0.1 * std::sin(i * 1.7)) * f;
    return x;
}

// The hostile series: spikes of 1e9 and 1e15 times the signal, an offset of
// 1e9 under a signal of 1e-6 of it, and planted walks alike.
std::vector<std::pair<std::vector<double>, int>> hostile_series() {
    std::vector<std::pair<std::vector<double>, int>> out;
    for (double spike : {1e9, 1e15}) {
        auto y = issue_signal(400);
        y[299] = spike;
        out.push_back({y, 10});
        auto w = planted(900, 16, 31, 2, 0.05);
        w[450] = 10.0 * spike;
        out.push_back({w, 16});
    }
    auto o = issue_signal(400, 1e-6);
    for (auto& v : o) v += 1e9;
    out.push_back({o, 10});
    auto ow = planted(900, 24, 32, 2, 0.05);
    for (auto& v : ow) v = 1e9 + 1e-6 * v;
    out.push_back({ow, 24});
    return out;
}

}  // namespace

namespace {

// ts_motifs with a method (the matrix profile's is computed here).
Pairs motifs_by(const std::vector<double>& x, int m, int64_t k, int method, TsExec ex) {
    TsMotifs o;
    TsStatus st;
    tsm_motifs(x.data(), x.size(), m, k, m, tsm::args::kMotifMethods[method], 10, 1, &ex, &o, &st);
    CHECK_OK(st);
    return st.code == TS_OK ? to_pairs(o) : Pairs{};
}

}  // namespace

// MK and the profile path (given the exact profile, and the profile itself)
// return the oracle's pairs on every hostile series, the same bits in all.
TEST(motifs_hostile_series_match_oracle) {
    for (auto& c : hostile_series()) {
        const int m = c.second;
        auto want = oracle_motifs(c.first, m, 3, m);
        auto got = mk(c.first, m, 3, m, 10, tsmt::cpu_exec());
        CHECK(same_pairs(got, want, 1e-9, "hostile/mk"));
        std::vector<double> pd;
        std::vector<int64_t> pi;
        oracle_profile(c.first, m, m, pd, pi);
        CHECK(same_pairs(from_profile(c.first, m, 3, m, tsmt::cpu_exec(), pi), got, 0, "hostile/profile"));
        CHECK(same_pairs(motifs_by(c.first, m, 3, TS_MOTIFS_MATRIX_PROFILE, tsmt::cpu_exec()), got, 0,
                         "hostile/the profile's"));
    }
    // issue 15, item 1: ts_motifs(y, 10, 2) = (5, 382), (27, 341) (1-based)
    auto y = issue_signal(400);
    y[299] = 1e9;
    auto got = mk(y, 10, 2, 10, 10, tsmt::cpu_exec());
    CHECK(got.size() == 2 && got[0].a == 4 && got[0].b == 381 && got[1].a == 26 && got[1].b == 340);
}

// x and 2^e·x give the same pairs and matches, distances bit for bit, for e
// over the float64 range (fixed seed); a pattern at ±1e308 is no flat window.
TEST(motifs_any_scale_gives_the_same_pairs) {
    const int m = 16;
    auto x = planted(700, m, 33, 2, 0.05);
    const auto want = mk(x, m, 3, m, 10, tsmt::cpu_exec());
    CHECK(same_pairs(want, oracle_motifs(x, m, 3, m), 1e-9, "scale/oracle"));
    std::vector<double> pd;
    std::vector<int64_t> pi;
    oracle_profile(x, m, m, pd, pi);
    const std::vector<double> pattern(x.begin() + 100, x.begin() + 100 + m);
    const auto want_match = match(x, pattern, NAN, 5, m, tsmt::cpu_exec());
    std::mt19937_64 g(1015);
    for (int t = 0; t < 8; ++t) {
        const int e = (int)(g() % 2001) - 1000, f = (int)(g() % 2001) - 1000;
        auto y = x, p = pattern;
        for (auto& v : y) v = std::ldexp(v, e);
        for (auto& v : p) v = std::ldexp(v, f);
        CHECK(same_pairs(mk(y, m, 3, m, 10, tsmt::cpu_exec()), want, 0, "scale/mk"));
        CHECK(same_pairs(from_profile(y, m, 3, m, tsmt::cpu_exec(), pi), want, 0, "scale/profile"));
        CHECK(same_pairs(motifs_by(y, m, 3, TS_MOTIFS_MATRIX_PROFILE, tsmt::cpu_exec()), want, 0, "scale/the profile's"));
        CHECK(same_matches(match(y, p, NAN, 5, m, tsmt::cpu_exec()), want_match, 0));
    }
    // {1e308, -1e308, 1e308} is the shape of {1, -1, 1}
    std::vector<double> s = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(same_matches(match(s, {1e308, -1e308, 1e308}, NAN, TS_ARG_NULL, 3, tsmt::cpu_exec()),
                       match(s, {1, -1, 1}, NAN, TS_ARG_NULL, 3, tsmt::cpu_exec()), 0));
}

TEST(motifs_real_series_match_reference) {
    for (const RealCase& c : kReal) {
        const auto x = load_real(c);
        if (x.empty()) continue;
        auto got = mk(x, c.m, 1, c.m, 10, tsmt::cpu_exec());
        CHECK(got.size() == 1);
        if (got.size() != 1) continue;
        CHECK_EQ(got[0].a, c.a);
        CHECK_EQ(got[0].b, c.b);
        CHECK_NEAR(got[0].d, c.d, 1e-6);
    }
}

TEST(motifs_match_matches_brute_force) {
    std::mt19937_64 rng(5);
    for (int t = 0; t < 10; ++t) {
        int m = 8 + rng() % 40;
        auto x = planted(800 + rng() % 2000, m, 300 + t, 3, 0.2);
        int64_t src = rng() % (x.size() - m);
        std::vector<double> p(x.begin() + src, x.begin() + src + m);
        if (t % 2) {
            std::normal_distribution<double> g(0, 0.3);
            for (auto& v : p) v = v * 2 + 7 + g(rng);
        }
        const double maxds[] = {NAN, 2.0, 4.0};
        const int64_t ks[] = {-1, 1, 7};
        const int64_t exs[] = {m, 1, m / 2 + 1, 3 * m};
        double maxd = maxds[t % 3];
        int64_t k = ks[(t / 3) % 3], ex = exs[t % 4];
        auto want = oracle_match(x, p, maxd, k, ex);
        CHECK(same_matches(match(x, p, maxd, k, ex, tsmt::cpu_exec(1 + t % 2)), want, 1e-9));
        if (!std::isnan(maxd))
            for (auto& r : want) CHECK(r.d <= maxd);
    }
}

TEST(motifs_invalid_arguments_are_rejected) {
    auto x = tsmt::random_walk(100, 1);
    std::vector<double> p(10, 0.0);
    TsExec ex = tsmt::cpu_exec();
    TsMotifs o;
    TsMatches mo;
    TsStatus st;
    auto bad = [&](int rc) { CHECK(rc == TS_INVALID_ARGUMENT && std::string(st.sqlstate) == "22023"); };
    bad(tsm_motifs_mk(x.data(), 100, 2, 1, 2, 10, &ex, &o, &st));     // m < 3
    bad(tsm_motifs_mk(x.data(), 100, 50, 1, 51, 10, &ex, &o, &st));   // too short
    bad(tsm_motifs_mk(x.data(), 19, 10, 1, 10, 10, &ex, &o, &st));    // too short
    bad(tsm_motifs_mk(x.data(), 100, 10, 0, 10, 10, &ex, &o, &st));   // k < 1
    bad(tsm_motifs_mk(x.data(), 100, 10, 1, 0, 10, &ex, &o, &st));    // exclusion < 1
    bad(tsm_motifs_mk(x.data(), 100, 10, 1, 10, 0, &ex, &o, &st));    // n_references < 1
    CHECK(tsm_motifs_mk(x.data(), 20, 10, 1, 10, 10, &ex, &o, &st) == TS_OK && o.count == 1);
    auto y = x;
    y[50] = NAN;  // a gap (test_gaps.cpp): no error, and no pair holds it
    CHECK(tsm_motifs_mk(y.data(), 100, 10, 1, 10, 10, &ex, &o, &st) == TS_OK && o.count == 1);
    CHECK(o.count == 1 && (o.pos_a[0] > 50 || o.pos_a[0] < 41) && (o.pos_b[0] > 50 || o.pos_b[0] < 41));
    bad(tsm_match(x.data(), 100, p.data(), 2, NAN, TS_ARG_NULL, 2, 1, &ex, &mo, &st));
    bad(tsm_match(x.data(), 5, p.data(), 10, NAN, TS_ARG_NULL, 10, 1, &ex, &mo, &st));
    bad(tsm_match(x.data(), 100, p.data(), 10, -1.0, TS_ARG_NULL, 10, 1, &ex, &mo, &st));
    bad(tsm_match(x.data(), 100, p.data(), 10, NAN, 0, 10, 1, &ex, &mo, &st));
    bad(tsm_match(x.data(), 100, p.data(), 10, NAN, -2, 10, 1, &ex, &mo, &st));
    bad(tsm_match(x.data(), 100, p.data(), 10, NAN, TS_ARG_NULL, 0, 1, &ex, &mo, &st));
    auto q = p;
    q[3] = NAN;  // a gap in the pattern matches nothing: an error
    bad(tsm_match(x.data(), 100, q.data(), 10, NAN, TS_ARG_NULL, 10, 1, &ex, &mo, &st));
    CHECK(std::string(st.message).find("pattern contains a NaN or infinite value at position 4") != std::string::npos);
    CHECK(tsm_match(x.data(), 10, p.data(), 10, NAN, TS_ARG_NULL, 10, 1, &ex, &mo, &st) == TS_OK && mo.count == 1);
    std::vector<int64_t> pi(91, 200);
    bad(tsm_motifs_from_profile(x.data(), 100, 10, pi.data(), 1, 10, 1, &ex, &o, &st));
}

// ---- GPU == CPU ------------------------------------------------------------------

namespace {
void gpu_vs_cpu_mk(const std::vector<double>& x, int m, int64_t k, int64_t excl, int n_refs, const char* what) {
    auto c = mk(x, m, k, excl, n_refs, tsmt::cpu_exec());
    auto g = mk(x, m, k, excl, n_refs, tsmt::gpu_exec());
    CHECK(same_pairs(g, c, 1e-9, what));
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}
}  // namespace

GPU_TEST(motifs_gpu_mk_equals_cpu_on_random_walks) {
    for (auto& c : random_cases()) {
        gpu_vs_cpu_mk(c.x, c.m, c.k, c.excl, c.n_refs, "gpu mk");
        CHECK(same_pairs(mk(c.x, c.m, c.k, c.excl, c.n_refs, tsmt::gpu_exec()), oracle_motifs(c.x, c.m, c.k, c.excl),
                         1e-9, "gpu mk/oracle"));
    }
    // larger: several chunks of offsets, k = 5
    for (uint64_t seed : {1, 2}) gpu_vs_cpu_mk(planted(60000, 128, seed, 4, 0.2), 128, 5, 128, 10, "gpu mk 60k");
    gpu_vs_cpu_mk(planted(20000, 16, 9, 2, 0.5), 16, 3, 8, 10, "gpu mk 20k m16");
}

GPU_TEST(motifs_gpu_mk_paa_key_equals_cpu) {
    // Long random walks, where the PAA's first axis orders the windows and the
    // PAA bound does the pruning (the bench's case, smaller): GPU == CPU.
#ifdef TSMINE_WITH_CUDA
    struct C {
        int64_t n;
        int m;
        int64_t k;
        uint64_t seed;
        double offset;
    };
    for (const C& c : {C{200000, 128, 2, 61, 0.0}, C{100000, 1024, 1, 62, 0.0}, C{50000, 256, 3, 63, 1e8},
                       C{30000, 33, 2, 64, 0.0}}) {
        auto x = tsmt::random_walk(c.n, c.seed);
        for (auto& v : x) v += c.offset;
        tsm::MkStats sg, sc;
        TsExec eg = tsmt::gpu_exec(), ec = tsmt::cpu_exec();
        auto g = tsm::gpu::motifs_mk(x.data(), c.n, c.m, c.k, c.m, 10, &eg, &sg);
        auto r = tsm::motifs_mk_cpu(x.data(), c.n, c.m, c.k, c.m, 10, &ec, &sc);
        CHECK(same_pairs(g, r, 1e-9, "gpu paa key"));
        CHECK_EQ((int64_t)g.size(), c.k);
        CHECK_EQ(sg.order_reference, -1);
        CHECK_EQ(sc.order_reference, -1);
        std::printf("    n=%lld m=%d k=%lld: gpu %lld offsets, %lld exact; cpu %lld offsets, %lld exact\n",
                    (long long)c.n, c.m, (long long)c.k, (long long)sg.offsets, (long long)sg.pairs_computed,
                    (long long)sc.offsets, (long long)sc.pairs_computed);
    }
    // the ECG tiled with a little noise (bench/motifs.sh's series, shorter)
    auto e = tsmt::load_column("anomaly/keogh_discords/ecg/qtdbsel102.txt", 1);
    CHECK(e.size() > 40000);
    if (e.size() > 40000) {
        std::vector<double> x;
        std::mt19937_64 rng(65);
        std::normal_distribution<double> g(0, 0.01);
        for (int t = 0; t < 3; ++t)
            for (double v : e) x.push_back(v + g(rng));
        for (int m : {128, 1024}) gpu_vs_cpu_mk(x, m, 2, m, 10, "gpu ecg tiled");
    }
#endif
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(motifs_gpu_ties_near_identical_offset_constant) {
    auto x = ties_series(30);
    gpu_vs_cpu_mk(x, 30, 3, 30, 10, "gpu ties");
    auto g = mk(x, 30, 2, 30, 10, tsmt::gpu_exec());
    CHECK(g.size() == 2 && g[0].a == 100 && g[0].b == 400 && g[0].d == 0.0 && g[1].a == 700 && g[1].b == 1000);
    for (double offset : {0.0, 1e8}) {
        auto y = tsmt::random_walk(3000, 5);
        std::mt19937_64 rng(9);
        std::normal_distribution<double> gg(0, 1e-9);
        for (int k = 0; k < 64; ++k) y[2100 + k] = y[300 + k] + gg(rng);
        for (auto& v : y) v += offset;
        auto r = mk(y, 64, 1, 64, 10, tsmt::gpu_exec());
        CHECK(r.size() == 1 && r[0].a == 300 && r[0].b == 2100 && r[0].d <= 1e-6);
        gpu_vs_cpu_mk(y, 64, 2, 64, 10, "gpu near-identical");
    }
    auto z = tsmt::random_walk(900, 21);
    for (int k = 0; k < 60; ++k) z[100 + k] = 5.0, z[600 + k] = -3.0;
    gpu_vs_cpu_mk(z, 20, 3, 20, 10, "gpu constant");
    std::vector<double> flat(500, 45.0);
    gpu_vs_cpu_mk(flat, 10, 2, 10, 10, "gpu flat");
    gpu_vs_cpu_mk(tsmt::gaussian(1500, 31), 8, 3, 8, 1, "gpu long loop");
    gpu_vs_cpu_mk(tsmt::random_walk(100, 3), 10, 50, 10, 10, "gpu few");
#ifdef TSMINE_WITH_CUDA
    tsm::MkStats s;
    TsExec ex = tsmt::gpu_exec();
    auto w = tsmt::gaussian(1500, 31);
    auto r = tsm::gpu::motifs_mk(w.data(), w.size(), 8, 3, 8, 1, &ex, &s);
    CHECK(same_pairs(r, oracle_motifs(w, 8, 3, 8), 1e-9, "gpu long loop/oracle"));
    CHECK(s.last_offset > 100 && s.runs == 3);
#endif
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(motifs_gpu_real_series_match_reference) {
    for (const RealCase& c : kReal) {
        const auto x = load_real(c);
        if (x.empty()) continue;
        auto g = mk(x, c.m, 3, c.m, 10, tsmt::gpu_exec());
        CHECK(g.size() == 3 && g[0].a == c.a && g[0].b == c.b);
        if (!g.empty()) CHECK_NEAR(g[0].d, c.d, 1e-6);
        CHECK(same_pairs(g, mk(x, c.m, 3, c.m, 10, tsmt::cpu_exec()), 1e-9, c.file));
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

// The hostile series: GPU = CPU, MK and the profile path, bit for bit.
GPU_TEST(motifs_gpu_hostile_series_equal_cpu) {
    for (auto& c : hostile_series()) {
        const int m = c.second;
        std::vector<double> pd;
        std::vector<int64_t> pi;
        oracle_profile(c.first, m, m, pd, pi);
        auto cpu = mk(c.first, m, 3, m, 10, tsmt::cpu_exec());
        CHECK(same_pairs(mk(c.first, m, 3, m, 10, tsmt::gpu_exec()), cpu, 0, "gpu hostile/mk"));
        CHECK(same_pairs(from_profile(c.first, m, 3, m, tsmt::gpu_exec(), pi), cpu, 0, "gpu hostile/profile"));
        CHECK(same_pairs(motifs_by(c.first, m, 3, TS_MOTIFS_MATRIX_PROFILE, tsmt::gpu_exec()), cpu, 0,
                         "gpu hostile/the profile's"));
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(motifs_gpu_from_profile_equals_cpu) {
    for (auto& c : random_cases()) {
        std::vector<double> pd;
        std::vector<int64_t> pi;
        oracle_profile(c.x, c.m, c.excl, pd, pi);
        auto cc = from_profile(c.x, c.m, c.k, c.excl, tsmt::cpu_exec(), pi);
        auto gg = from_profile(c.x, c.m, c.k, c.excl, tsmt::gpu_exec(), pi);
        CHECK(same_pairs(gg, cc, 1e-9, "gpu profile"));
        CHECK(same_pairs(gg, mk(c.x, c.m, c.k, c.excl, c.n_refs, tsmt::gpu_exec()), 1e-9, "gpu profile/mk"));
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(motifs_gpu_match_equals_cpu) {
    std::mt19937_64 rng(5);
    for (int t = 0; t < 10; ++t) {
        int m = 8 + rng() % 200;
        auto x = planted(5000 + rng() % 300000, m, 300 + t, 3, 0.2);
        if (t == 3)
            for (auto& v : x) v += 1e8;
        int64_t src = rng() % (x.size() - m);
        std::vector<double> p(x.begin() + src, x.begin() + src + m);
        const double maxds[] = {NAN, 3.0, 6.0};
        const int64_t ks[] = {-1, 1, 7};
        double maxd = maxds[t % 3];
        int64_t k = ks[(t / 3) % 3], ex = t % 2 ? m : 1;
        auto c = match(x, p, maxd, k, ex, tsmt::cpu_exec());
        auto g = match(x, p, maxd, k, ex, tsmt::gpu_exec());
        CHECK(same_matches(g, c, 1e-9));
        CHECK(!g.empty() && g[0].pos == src && g[0].d <= 1e-6);
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

// auto's time budget (TsExec.budget_ms): MK gives up with TS_OVER_BUDGET once
// the offset loop has run longer, and runs to the end without one.
static void check_mk_budget(TsExec ex) {
    auto x = tsmt::random_walk(20000, 5);
    TsMotifs o;
    TsStatus st;
    ex.budget_ms = 1e-6;
    tsm_motifs_mk(x.data(), x.size(), 64, 1, 64, 10, &ex, &o, &st);
    CHECK_EQ(st.code, (int)TS_OVER_BUDGET);
    ex.budget_ms = 0;
    tsm_motifs_mk(x.data(), x.size(), 64, 1, 64, 10, &ex, &o, &st);
    CHECK_OK(st);
    CHECK_EQ(o.count, 1);
}

TEST(motifs_mk_stops_past_its_budget) { check_mk_budget(tsmt::cpu_exec()); }
GPU_TEST(motifs_gpu_mk_stops_past_its_budget) { check_mk_budget(tsmt::gpu_exec()); }

// Near-ties at tiny distances (one period repeated, 1e-9 noise): every
// profile bound is 0 (below about sqrt(2m·2^-27) it cannot tell), so without
// its reference windows the profile's selection would compare every window
// with every other (about N²/2 distances).  With them it compares a window
// with the windows of its phase only (about N²/50 here; a budget of N²/8 it
// must not exceed); with a budget of 4·N it stops (TS_OVER_BUDGET), as auto's
// ((64 + 16·k)·N) does here, which then finishes with MK.
// MK, the profile and auto give the same pairs.
static void check_near_ties(TsExec ex) {
    const std::vector<double> x = tsmt::periodic(3000, 50, 1e-9, 7);
    const int m = 100;
    const int64_t n = (int64_t)x.size(), N = n - m + 1;
    TsProfile p;
    TsStatus st;
    tsm_matrix_profile(x.data(), n, m, m, 1, &ex, &p, &st);
    CHECK_OK(st);
    const std::vector<double> xs = tsm::unit_scaled(x.data(), n);
    auto prof = tsm::make_cpu_profiler(xs.data(), n, m, &ex);
    auto select = [&](int64_t budget, int& code) {
        code = TS_OK;
        try {
            return tsm::select_top_motifs_from_profile(xs.data(), n, m, p.index, 3, m, *prof, N / 4, &ex, false,
                                                       budget);
        } catch (const tsm::Error& e) {
            code = e.code;
        }
        return Pairs{};
    };
    int code;
    select(4 * N, code);
    CHECK_EQ(code, (int)TS_OVER_BUDGET);
    const Pairs by_mk = motifs_by(x, m, 3, TS_MOTIFS_MK, ex);
    Pairs selected = select(N * N / 8, code);
    CHECK_EQ(code, (int)TS_OK);
    CHECK(same_pairs(selected, by_mk, 0, "selection within N^2/8"));
    CHECK(same_pairs(motifs_by(x, m, 3, TS_MOTIFS_MATRIX_PROFILE, ex), by_mk, 0, "profile"));
    CHECK(same_pairs(motifs_by(x, m, 3, TS_MOTIFS_AUTO, ex), by_mk, 0, "auto"));
}

TEST(motifs_of_near_ties_by_every_method) { check_near_ties(tsmt::cpu_exec()); }
GPU_TEST(motifs_gpu_of_near_ties_by_every_method) { check_near_ties(tsmt::gpu_exec()); }

// The selection with its reference windows (near-ties: they take over after
// 2·N distances) against the selection by whole distance profiles alone
// (whole_profile_after = 0: every window's exact pair from its whole
// profile, no reference involved): the same pairs, z-normalised and raw.
TEST(motif_selection_by_references_equals_whole_profiles) {
    const std::vector<double> x = tsmt::periodic(2000, 50, 1e-9, 11);
    const int m = 50;
    const int64_t n = (int64_t)x.size(), N = n - m + 1;
    for (bool raw : {false, true}) {
        TsExec ex = tsmt::cpu_exec(2);
        TsProfile p;
        TsStatus st;
        tsm_matrix_profile(x.data(), n, m, m, raw ? 0 : 1, &ex, &p, &st);
        CHECK_OK(st);
        const std::vector<double> xs = tsm::unit_scaled(x.data(), n);
        auto prof = tsm::make_cpu_profiler(xs.data(), n, m, &ex, raw);
        const Pairs by_refs = tsm::select_top_motifs_from_profile(xs.data(), n, m, p.index, 5, m, *prof, N / 4, &ex, raw);
        const Pairs whole = tsm::select_top_motifs_from_profile(xs.data(), n, m, p.index, 5, m, *prof, 0, &ex, raw);
        CHECK(same_pairs(by_refs, whole, 0, raw ? "raw" : "z"));
        CHECK_EQ(by_refs.size(), (size_t)5);
    }
}
