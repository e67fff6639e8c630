// The raw-value matrix profile (normalized => false): CPU against a brute-force
// oracle (long double) on random walks, constant windows, offsets, spikes and
// scales 2^±500; exact ties to the smaller index; overflow as an error; GPU
// against CPU, bit for bit.
#include <algorithm>
#include <cmath>
#include <random>

#include "api_discords.h"
#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "check.h"
#include "oracles.h"
#include "matrix_profile.h"
#include "mp_detail.h"

namespace {

using tsmt::Profile;

// The raw Euclidean distance of windows i and j, in long double.
long double raw_d(const std::vector<double>& x, int m, int64_t i, int64_t j) {
    long double s = 0;
    for (int t = 0; t < m; ++t) {
        const long double u = (long double)x[i + t] - (long double)x[j + t];
        s += u * u;
    }
    return std::sqrt(s);
}

struct RawOracle {
    std::vector<long double> best;  // nearest admissible distance (+inf: none)
    std::vector<int64_t> index;     // its smallest index (exact ties)
};

RawOracle raw_brute_force(const std::vector<double>& x, int m, int64_t excl) {
    const int64_t count = (int64_t)x.size() - m + 1;
    RawOracle o;
    o.best.assign(count, INFINITY);
    o.index.assign(count, -1);
    for (int64_t i = 0; i < count; ++i)
        for (int64_t j = 0; j < count; ++j) {
            if (std::llabs(i - j) < excl) continue;
            const long double d = raw_d(x, m, i, j);
            if (d < o.best[i]) {
                o.best[i] = d;
                o.index[i] = j;
            }
        }
    return o;
}

// Every window: distance within rel of the oracle's best; the reported
// distance is the pair's own (to 1e-12); the index is the oracle's, or — only
// where the oracle's best is within rel of the pair's distance — a near-tie.
void check_against_oracle(const std::vector<double>& x, int m, int64_t excl, const Profile& mp,
                          double rel) {
    const RawOracle o = raw_brute_force(x, m, excl);
    CHECK_EQ(mp.dist.size(), o.best.size());
    int bad = 0;
    for (size_t i = 0; i < o.best.size() && bad < 5; ++i) {
        const double best = (double)o.best[i];
        const int64_t j = mp.index[i];
        bool ok = j >= 0 && std::llabs((int64_t)i - j) >= excl;
        ok = ok && std::fabs(mp.dist[i] - best) <= rel * std::max(best, 1e-300);
        ok = ok && std::fabs(mp.dist[i] - (double)raw_d(x, m, i, j)) <= 1e-12 * std::max(best, 1e-300);
        ok = ok && (j == o.index[i] || (double)(raw_d(x, m, i, j) - o.best[i]) <= rel * best);
        if (!ok) {
            ++bad;
            tsmt::fail(__FILE__, __LINE__,
                       "window " + std::to_string(i) + ": " + std::to_string(mp.dist[i]) + " at " +
                           std::to_string(j) + ", oracle " + std::to_string(best) + " at " +
                           std::to_string(o.index[i]));
        }
    }
}

std::vector<double> with_flats(int64_t n, uint64_t seed) {
    std::vector<double> x = tsmt::random_walk(n, seed);
    for (int64_t i = 0; i < n; ++i)
        if ((i / 40) % 3 == 1) x[i] = std::floor(x[(i / 40) * 40]);  // flat stretches at integer levels
    return x;
}

}  // namespace

TEST(mp_raw_matches_brute_force_on_random_walks) {
    const TsExec ex = tsmt::cpu_exec();
    for (int m : {3, 10, 32}) {
        std::vector<double> x = tsmt::random_walk(700, 100 + m);
        check_against_oracle(x, m, (m + 3) / 4 + 1, tsmt::matrix_profile(x, m, (m + 3) / 4 + 1, ex, 0), 1e-9);
    }
}

TEST(mp_raw_constant_windows_are_ordinary) {
    const TsExec ex = tsmt::cpu_exec();
    const std::vector<double> x = with_flats(600, 7);
    const Profile mp = tsmt::matrix_profile(x, 12, 4, ex, 0);
    check_against_oracle(x, 12, 4, mp, 1e-9);
    // flat windows at one level: distance 0, the smallest admissible one
    std::vector<double> z = tsmt::random_walk(60, 9);
    for (int i = 10; i <= 40; ++i) z[i] = 2.0;
    const Profile fz = tsmt::matrix_profile(z, 5, 2, ex, 0);
    CHECK_EQ(fz.index[10], (int64_t)12);
    CHECK_EQ(fz.index[20], (int64_t)10);
    CHECK_EQ(fz.dist[20], 0.0);
    // two flat windows at levels 1 and 3: distance sqrt(m)·2, not STUMPY's 0 or sqrt(m)
    std::vector<double> y(10, 1.0);
    for (int i = 5; i < 10; ++i) y[i] = 3.0;
    const Profile f = tsmt::matrix_profile(y, 5, 5, ex, 0);
    CHECK_EQ(f.index[0], (int64_t)5);
    CHECK_EQ(f.index[5], (int64_t)0);
    CHECK_EQ(f.dist[0], 2.0 * std::sqrt(5.0));
    CHECK_EQ(f.dist[5], 2.0 * std::sqrt(5.0));
}

TEST(mp_raw_offsets_and_spikes) {
    const TsExec ex = tsmt::cpu_exec();
    std::vector<double> x = tsmt::random_walk(600, 11);
    std::vector<double> off(x), spike(x);
    for (double& v : off) v = 1e9 + 1e-3 * v;
    spike[300] = 1e9;
    check_against_oracle(off, 10, 4, tsmt::matrix_profile(off, 10, 4, ex, 0), 1e-9);
    check_against_oracle(spike, 10, 4, tsmt::matrix_profile(spike, 10, 4, ex, 0), 1e-9);
    // an offset cancels: the same neighbours as without it, distances to the offset's rounding
    std::vector<double> base(x), shifted(x);
    for (size_t i = 0; i < x.size(); ++i) shifted[i] = base[i] + 1024.0;  // exact: base is a walk of ±1 steps
    const Profile a = tsmt::matrix_profile(base, 10, 4, ex, 0), b = tsmt::matrix_profile(shifted, 10, 4, ex, 0);
    CHECK(a.index == b.index);
    for (size_t i = 0; i < a.dist.size(); ++i) CHECK_REL(a.dist[i], b.dist[i], 1e-12);
}

TEST(mp_raw_power_of_two_scales_are_exact) {
    const TsExec ex = tsmt::cpu_exec();
    const std::vector<double> x = with_flats(500, 23);
    const Profile base = tsmt::matrix_profile(x, 16, 5, ex, 0);
    for (int k : {-500, -37, 1, 300, 500}) {
        std::vector<double> y(x);
        for (double& v : y) v = std::ldexp(v, k);
        const Profile s = tsmt::matrix_profile(y, 16, 5, ex, 0);
        CHECK(s.index == base.index);
        for (size_t i = 0; i < s.dist.size(); ++i) CHECK_EQ(s.dist[i], std::ldexp(base.dist[i], k));
    }
}

TEST(mp_raw_exact_repeats_tie_to_the_smaller_index) {
    const TsExec ex = tsmt::cpu_exec();
    // a pattern of period 37 (small integers: every sum exact), windows of 8
    std::vector<double> x(400);
    std::mt19937_64 g(5);
    std::vector<double> period(37);
    for (double& v : period) v = (double)(g() % 9);
    for (size_t i = 0; i < x.size(); ++i) x[i] = period[i % 37];
    const Profile mp = tsmt::matrix_profile(x, 8, 3, ex, 0);
    for (int64_t i = 0; i < (int64_t)mp.index.size(); ++i) {
        // the smallest admissible exact repeat: i mod 37 itself unless that is within the zone
        int64_t j = i % 37;
        while (std::llabs(i - j) < 3) j += 37;
        CHECK_EQ(mp.index[i], j);
        CHECK_EQ(mp.dist[i], 0.0);
    }
}

// The sweep's raw value of a pair (mp_detail.h): floored at the row window's
// t_r = 2^-40 of the binade of 2σ_r²; a d² that rounds below 0 counts as 0
// (then t_r); a flat row's C counts as 0 (c_r = 0), so two flat windows give
// g² exactly; a window with a gap (σ² NaN) gives NaN, which wins nothing.
TEST(mp_raw_pair_value_floor_and_rounding_below_zero) {
    namespace mp = tsm::mp;
    const double cterm = -2.0 / 10;  // m = 10
    const double c1 = mp::raw_row_cterm(1.0, cterm), t1 = mp::raw_row_floor(1.0);
    CHECK_EQ(t1, 0x1p-39);
    CHECK_EQ(mp::raw_row_floor(1.5), 0x1p-39);
    CHECK_EQ(mp::raw_row_floor(0.0), 0.0);
    CHECK_EQ(c1, cterm);
    CHECK_EQ(mp::raw_row_cterm(0.0, cterm), 0.0);
    // s = 2, C·cterm just below −2: d²/m rounds below 0, the floor instead
    CHECK_EQ(mp::raw_d(10.0000001, 3.0, 1.0, t1, c1, 3.0, 1.0), 0x1p-39);
    // a flat row (t_r = 0, c_r = 0): the recurrence's C does not count
    CHECK_EQ(mp::raw_d(5.0000001, 3.0, 0.0, 0.0, mp::raw_row_cterm(0.0, cterm), 3.0, 1.0), 1.0);
    CHECK_EQ(mp::raw_d(5.0000001, 5.0, 0.0, 0.0, mp::raw_row_cterm(0.0, cterm), 3.0, 1.0), 5.0);
    // two flat windows: g² exactly, whatever rounding C carries (a NaN C: NaN)
    CHECK_EQ(mp::raw_d(-1e-9, 3.0, 0.0, 0.0, mp::raw_row_cterm(0.0, cterm), 3.0, 0.0), 0.0);
    CHECK_EQ(mp::raw_d(1e-9, 3.5, 0.0, 0.0, mp::raw_row_cterm(0.0, cterm), 3.0, 0.0), 0.25);
    // a flat column under a row that is not flat: g² + σ_r² + C·cterm
    CHECK_EQ(mp::raw_d(0.0, 5.0, 1.0, t1, c1, 3.0, 0.0), 5.0);
    // far apart: d²/m itself (g² + s − 2C/m = 4 + 2 − 0)
    CHECK_EQ(mp::raw_d(0.0, 5.0, 1.0, t1, c1, 3.0, 1.0), 6.0);
    // a tiny d² of a repeat is the row's floor, whichever partner
    CHECK_EQ(mp::raw_d(9.9999999999999, 3.0, 1.0, t1, c1, 3.0, 1.0), 0x1p-39);
    const double nan = std::nan("");
    CHECK(std::isnan(mp::raw_d(0.0, 3.0, nan, mp::raw_row_floor(nan), mp::raw_row_cterm(nan, cterm), 3.0, 1.0)));
    CHECK(std::isnan(mp::raw_d(0.0, 3.0, 1.0, t1, c1, 3.0, nan)));
    CHECK(std::isnan(mp::raw_d(nan, 3.0, 0.0, 0.0, mp::raw_row_cterm(0.0, cterm), 3.0, 0.0)));
}

TEST(mp_raw_near_the_float64_limits) {
    const TsExec ex = tsmt::cpu_exec();
    std::vector<double> x = tsmt::random_walk(300, 3);
    const Profile base = tsmt::matrix_profile(x, 10, 3, ex, 0);
    // values near 1e308: the distances are finite and exact multiples
    std::vector<double> big(x);
    for (double& v : big) v = std::ldexp(v, 1015);  // |v| up to ~2^1021
    const Profile b = tsmt::matrix_profile(big, 10, 3, ex, 0);
    CHECK(b.index == base.index);
    for (size_t i = 0; i < b.dist.size(); ++i) CHECK_EQ(b.dist[i], std::ldexp(base.dist[i], 1015));
    // distances beyond the float64 range: a clear error (22003); signs of
    // period 3, so windows 0 and 4, the only admissible pair, differ by 3.4e308
    std::vector<double> huge(8);
    for (size_t i = 0; i < huge.size(); ++i) huge[i] = i % 3 == 2 ? -1.7e308 : 1.7e308;
    TsStatus st;
    tsmt::matrix_profile(huge, 4, 4, ex, 0, &st);
    CHECK_EQ(std::string(st.sqlstate), std::string("22003"));
}

TEST(mp_raw_and_normalized_differ_where_the_level_matters) {
    // a sine and the same sine 10 units higher: z-normalised twins, raw strangers
    std::vector<double> x(400);
    for (int i = 0; i < 400; ++i) x[i] = std::sin(2 * M_PI * (i % 20) / 20.0) + (i >= 200 ? 10.0 : 0.0);
    TsExec ex = tsmt::cpu_exec();
    TsProfile p;
    TsStatus st;
    tsm_matrix_profile(x.data(), 400, 20, 200, 1, &ex, &p, &st);
    CHECK_OK(st);
    CHECK(p.dist[0] < 1e-6);
    const Profile r = tsmt::matrix_profile(x, 20, 200, ex, 0);
    CHECK_EQ(r.index[0], (int64_t)200);
    CHECK_NEAR(r.dist[0], 10.0 * std::sqrt(20.0), 1e-12);
}

GPU_TEST(mp_raw_gpu_equals_cpu) {
    std::vector<std::vector<double>> inputs;
    inputs.push_back(tsmt::random_walk(20000, 1));
    inputs.push_back(with_flats(9000, 2));
    std::vector<double> spike = tsmt::random_walk(12000, 3);
    spike[5000] = 1e9;
    spike[9000] = -1e15;
    inputs.push_back(spike);
    std::vector<double> off = tsmt::random_walk(10000, 4);
    for (double& v : off) v = 1e9 + 1e-4 * v;
    inputs.push_back(off);
    for (const std::vector<double>& x : inputs)
        for (int m : {3, 16, 100}) {
            const int64_t excl = (m + 3) / 4 + 1;
            const Profile c = tsmt::matrix_profile(x, m, excl, tsmt::cpu_exec(), 0);
            const Profile g = tsmt::matrix_profile(x, m, excl, tsmt::gpu_exec(), 0);
            CHECK(c.index == g.index);
            CHECK(c.dist == g.dist);
        }
}

namespace {

struct RawCalls {
    TsDiscords d{};
    TsMotifs mo{};
    TsMatches mt{};
};

// Top-3 discords, the top-2 motif pairs and the 3 best matches of window 200,
// all with raw values (exclusion m), on the backend of ex.
RawCalls raw_calls(const std::vector<double>& x, int m, TsExec ex) {
    RawCalls r;
    TsStatus st;
    tsm_discords(x.data(), (int64_t)x.size(), m, 3, NAN, m, "auto", 0, &ex, &r.d, &st);
    CHECK_OK(st);
    tsm_motifs(x.data(), (int64_t)x.size(), m, 2, m, "auto", 10, 0, &ex, &r.mo, &st);
    CHECK_OK(st);
    tsm_match(x.data(), (int64_t)x.size(), x.data() + 200, m, NAN, 3, m, 0, &ex, &r.mt, &st);
    CHECK_OK(st);
    return r;
}

}  // namespace

TEST(raw_discords_motifs_match_against_brute_force) {
    const int m = 10;
    std::vector<double> x = with_flats(400, 31);
    for (double& v : x) v = 1e9 + v;  // an offset: the distances of the values as stored
    const RawCalls r = raw_calls(x, m, tsmt::cpu_exec());
    const RawOracle o = raw_brute_force(x, m, m);
    // discord 1: the window farthest from its nearest neighbour, at that distance
    int64_t top = 0;
    for (int64_t i = 1; i < (int64_t)o.best.size(); ++i)
        if (o.best[i] > o.best[top]) top = i;
    CHECK(r.d.count == 3);
    CHECK_EQ(r.d.pos[0], top);
    CHECK_EQ(r.d.neighbor[0], o.index[top]);
    CHECK_REL(r.d.dist[0], (double)o.best[top], 1e-12);
    // motif 1: the closest pair (smallest a, then b, among ties)
    int64_t a = 0;
    for (int64_t i = 1; i < (int64_t)o.best.size(); ++i)
        if (o.best[i] < o.best[a]) a = i;
    CHECK(r.mo.count == 2);
    CHECK_EQ(r.mo.pos_a[0], std::min(a, o.index[a]));
    CHECK_EQ(r.mo.pos_b[0], std::max(a, o.index[a]));
    CHECK_REL(r.mo.dist[0], (double)o.best[a], 1e-12);
    // match: window 200 itself at exactly 0, then the others at their raw distances
    CHECK(r.mt.count == 3);
    CHECK_EQ(r.mt.pos[0], (int64_t)200);
    CHECK_EQ(r.mt.dist[0], 0.0);
    for (int t = 1; t < 3; ++t) CHECK_REL(r.mt.dist[t], (double)raw_d(x, m, 200, r.mt.pos[t]), 1e-12);
    // PD3 and MK compare z-normalised windows only
    TsExec ex = tsmt::cpu_exec();
    TsStatus st;
    TsDiscords d;
    TsMotifs mo;
    tsm_discords(x.data(), (int64_t)x.size(), m, 1, NAN, m, "pd3", 0, &ex, &d, &st);
    CHECK_EQ(std::string(st.sqlstate), std::string("0A000"));
    tsm_motifs(x.data(), (int64_t)x.size(), m, 1, m, "mk", 10, 0, &ex, &mo, &st);
    CHECK_EQ(std::string(st.sqlstate), std::string("0A000"));
}

TEST(raw_match_scales_with_the_data) {
    std::vector<double> x = tsmt::random_walk(500, 8);
    std::vector<double> p(x.begin() + 100, x.begin() + 120);
    for (double& v : p) v += 0.25;
    TsExec ex = tsmt::cpu_exec();
    TsStatus st;
    TsMatches a, b;
    tsm_match(x.data(), 500, p.data(), 20, NAN, 4, 20, 0, &ex, &a, &st);
    CHECK_OK(st);
    CHECK_EQ(a.pos[0], (int64_t)100);
    CHECK_NEAR(a.dist[0], 0.25 * std::sqrt(20.0), 1e-12);
    for (double& v : x) v = std::ldexp(v, -700);
    for (double& v : p) v = std::ldexp(v, -700);
    tsm_match(x.data(), 500, p.data(), 20, NAN, 4, 20, 0, &ex, &b, &st);
    CHECK_OK(st);
    for (int t = 0; t < 4; ++t) {
        CHECK_EQ(b.pos[t], a.pos[t]);
        CHECK_EQ(b.dist[t], std::ldexp(a.dist[t], -700));
    }
}

GPU_TEST(raw_discords_motifs_match_gpu_equals_cpu) {
    std::vector<double> x = tsmt::random_walk(30000, 12);
    x[20000] = 1e9;
    for (int m : {16, 100}) {
        const RawCalls c = raw_calls(x, m, tsmt::cpu_exec()), g = raw_calls(x, m, tsmt::gpu_exec());
        CHECK(c.d.count == g.d.count && c.mo.count == g.mo.count && c.mt.count == g.mt.count);
        for (int64_t t = 0; t < c.d.count && t < g.d.count; ++t) {
            CHECK_EQ(c.d.pos[t], g.d.pos[t]);
            CHECK_EQ(c.d.neighbor[t], g.d.neighbor[t]);
            CHECK_EQ(c.d.dist[t], g.d.dist[t]);
        }
        for (int64_t t = 0; t < c.mo.count && t < g.mo.count; ++t) {
            CHECK_EQ(c.mo.pos_a[t], g.mo.pos_a[t]);
            CHECK_EQ(c.mo.pos_b[t], g.mo.pos_b[t]);
            CHECK_EQ(c.mo.dist[t], g.mo.dist[t]);
        }
        for (int64_t t = 0; t < c.mt.count && t < g.mt.count; ++t) {
            CHECK_EQ(c.mt.pos[t], g.mt.pos[t]);
            CHECK_EQ(c.mt.dist[t], g.mt.dist[t]);
        }
    }
}
