// Outliers and the statistics under them, against brute-force oracles.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>

#include "args.h"
#include "check.h"
#include "outliers.h"
#include "stats.h"

namespace {

struct Oracle {
    std::vector<int64_t> pos;
    double center, scale;
};

// Long-double two-pass statistics and a plain scan.
Oracle oracle_sigma(const std::vector<double>& x, double k) {
    long double s = 0;
    for (double v : x) s += v;
    long double mu = s / x.size(), q = 0;
    for (double v : x) q += (v - mu) * (v - mu);
    Oracle o{{}, (double)mu, (double)std::sqrt(q / x.size())};
    for (size_t i = 0; i < x.size(); ++i)
        if (o.scale > 0 && std::fabs(x[i] - o.center) > k * o.scale) o.pos.push_back(i);
    return o;
}

double oracle_median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

TsOutliers run(const std::vector<double>& x, double k, int method, TsExec ex) {
    TsOutliers o;
    TsStatus st;
    tsm_outliers(x.data(), x.size(), k, tsm::args::kOutlierMethods[method], &ex, &o, &st);
    CHECK_OK(st);
    return o;
}

std::vector<int64_t> positions(const TsOutliers& o) { return std::vector<int64_t>(o.pos, o.pos + o.count); }

// The positions the CPU's rule selects, value by value (outliers_detail.h's test).
std::vector<int64_t> rule_positions(const std::vector<double>& x, double k, int method) {
    TsExec ex = tsmt::cpu_exec();
    const tsm::OutlierRule r = tsm::cpu_rule(x.data(), (int64_t)x.size(), method, &ex);
    std::vector<int64_t> out;
    const double limit = tsm::outliers::outlier_limit(k, r);
    for (size_t i = 0; r.scale > 0 && i < x.size(); ++i)
        if (tsm::outliers::is_outlier(tsm::outliers::deviation(x[i], r.unit, r.ref_scaled, r.center), limit))
            out.push_back((int64_t)i);
    return out;
}

}  // namespace

// Two results with the same rows, center, scale and rule, bit for bit (GPU = CPU).
#define CHECK_SAME_ROWS(a, b)                                                         \
    do {                                                                              \
        CHECK(positions(a) == positions(b));                                          \
        CHECK_EQ((a).center, (b).center);                                             \
        CHECK_EQ((a).scale, (b).scale);                                               \
        CHECK_EQ((a).scale_rule, (b).scale_rule);                                     \
        for (int64_t j_ = 0; j_ < (a).count && j_ < (b).count; ++j_) {                \
            CHECK_EQ((a).value[j_], (b).value[j_]);                                   \
            CHECK_EQ((a).score[j_], (b).score[j_]);                                   \
        }                                                                             \
    } while (0)

TEST(outliers_sigma_matches_oracle_on_random_data) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        std::mt19937_64 rng(seed);
        int64_t n = 1 + rng() % 300000;
        auto x = tsmt::gaussian(n, seed, (double)(rng() % 1000) - 500, 1 + rng() % 50);
        for (int j = 0; j < 20; ++j) x[rng() % n] += ((rng() & 1) ? 1 : -1) * 8.0 * (1 + rng() % 50);
        double k = 1.5 + (rng() % 30) / 10.0;
        auto o = run(x, k, TS_OUTLIERS_SIGMA, tsmt::cpu_exec(1 + seed % 3));
        auto want = oracle_sigma(x, k);
        CHECK(positions(o) == want.pos);
        CHECK_REL(o.center, want.center, 1e-12);
        CHECK_REL(o.scale, want.scale, 1e-12);
        for (int64_t j = 0; j < o.count; ++j) {
            CHECK_EQ(o.value[j], x[o.pos[j]]);
            CHECK_REL(o.score[j], (x[o.pos[j]] - want.center) / want.scale, 1e-9);
        }
    }
}

// The CPU merges its blocks' moments in block order (outliers_detail.h):
// the rule is the same to the bit whatever the number of threads.
TEST(outliers_sigma_same_bits_for_any_thread_count) {
    auto x = tsmt::random_walk((int64_t(1) << 20) + 12345, 3);
    for (auto& v : x) v += 1e6;
    auto one = run(x, 3.0, TS_OUTLIERS_SIGMA, tsmt::cpu_exec(1));
    for (int threads : {2, 3, 7}) {
        auto o = run(x, 3.0, TS_OUTLIERS_SIGMA, tsmt::cpu_exec(threads));
        CHECK_EQ(o.center, one.center);
        CHECK_EQ(o.scale, one.scale);
        CHECK(positions(o) == positions(one));
    }
}

TEST(outliers_sigma_is_stable_on_a_large_offset) {
    // 1e9 + N(0,1) with one planted 10-sigma outlier: E[x^2]-E[x]^2 fails here.
    auto x = tsmt::gaussian(1 << 20, 7, 1e9, 1.0);
    for (auto& v : x) v = std::clamp(v, 1e9 - 4.5, 1e9 + 4.5);  // no natural 5-sigma points
    x[123457] = 1e9 + 10.0;
    auto o = run(x, 5.0, TS_OUTLIERS_SIGMA, tsmt::cpu_exec());
    CHECK_EQ(o.count, 1);
    if (o.count == 1) CHECK_EQ(o.pos[0], 123457);
    CHECK_NEAR(o.scale, 1.0, 0.01);
}

TEST(outliers_sigma_constant_series_has_none) {
    std::vector<double> x(1000, 42.0);
    auto o = run(x, 3, TS_OUTLIERS_SIGMA, tsmt::cpu_exec());
    CHECK_EQ(o.count, 0);
    CHECK_EQ(o.scale_rule, 3);
}

TEST(outliers_empty_series) {
    std::vector<double> x;
    auto o = run(x, 3, TS_OUTLIERS_MAD, tsmt::cpu_exec());
    CHECK_EQ(o.count, 0);
}

TEST(outliers_rejects_bad_arguments) {
    std::vector<double> x{1, 2, 3};
    TsExec ex = tsmt::cpu_exec();
    TsOutliers o;
    TsStatus st;
    CHECK(tsm_outliers(x.data(), 3, 0.0, "sigma", &ex, &o, &st) == TS_INVALID_ARGUMENT);
    CHECK(std::string(st.sqlstate) == "22023");
    CHECK(tsm_outliers(x.data(), 3, NAN, "sigma", &ex, &o, &st) == TS_INVALID_ARGUMENT);
    CHECK(tsm_outliers(x.data(), 3, 3.0, "iqr", &ex, &o, &st) == TS_INVALID_ARGUMENT);
}

TEST(select_kth_is_exact) {
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        std::mt19937_64 rng(seed);
        int64_t n = 1 + rng() % 3000000;
        std::vector<double> x = seed % 3 == 0 ? tsmt::gaussian(n, seed, 1e9, 1)
                                : seed % 3 == 1 ? tsmt::random_walk(n, seed)
                                                : std::vector<double>(n, 5.0);
        if (seed % 4 == 0)
            for (auto& v : x) v = std::round(v * 4) / 4;  // many ties
        auto sorted = x;
        std::sort(sorted.begin(), sorted.end());
        TsExec ex = tsmt::cpu_exec();
        for (int t = 0; t < 3; ++t) {
            int64_t k = rng() % n;
            CHECK_EQ(tsm::select_kth(x.data(), n, k, &ex), sorted[k]);
        }
        CHECK_EQ(tsm::median(x.data(), n, &ex), oracle_median(x));
    }
}

TEST(outliers_mad_matches_oracle) {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        std::mt19937_64 rng(seed);
        int64_t n = 2 + rng() % 200000;
        auto x = tsmt::gaussian(n, seed, 10, 3);
        for (int j = 0; j < 10; ++j) x[rng() % n] = 1000.0 * ((rng() & 1) ? 1 : -1);
        double med = oracle_median(x);
        std::vector<double> dev(n);
        for (int64_t i = 0; i < n; ++i) dev[i] = std::fabs(x[i] - med);
        double mad = oracle_median(dev);
        auto o = run(x, 3.5, TS_OUTLIERS_MAD, tsmt::cpu_exec());
        CHECK_EQ(o.center, med);
        CHECK_EQ(o.scale_rule, 1);
        CHECK_REL(o.scale, mad / 0.6745, 1e-15);
        std::vector<int64_t> want;
        for (int64_t i = 0; i < n; ++i)
            if (std::fabs(0.6745 * (x[i] - med) / mad) > 3.5) want.push_back(i);
        CHECK(positions(o) == want);
    }
}

TEST(outliers_mad_zero_falls_back_to_mean_abs_dev) {
    std::vector<double> x(100, 1.0);
    x[10] = 50;  // MAD = 0 (more than half the values equal the median)
    auto o = run(x, 3, TS_OUTLIERS_MAD, tsmt::cpu_exec());
    CHECK_EQ(o.scale_rule, 2);
    CHECK_NEAR(o.scale, 1.253314 * 49.0 / 100, 1e-12);
    CHECK_EQ(o.count, 1);
    std::vector<double> flat(10, 3.0);
    auto f = run(flat, 3, TS_OUTLIERS_MAD, tsmt::cpu_exec());
    CHECK_EQ(f.count, 0);
    CHECK_EQ(f.scale_rule, 3);
}

GPU_TEST(outliers_gpu_equals_cpu) {
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        std::mt19937_64 rng(seed);
        int64_t n = seed < 4 ? (int64_t)(1 + rng() % 5000) : (int64_t)(1 + rng() % 6000000);
        auto x = seed % 2 ? tsmt::gaussian(n, seed, 1e9, 1) : tsmt::random_walk(n, seed);
        for (int j = 0; j < 30; ++j) x[rng() % n] += 12.0 * ((rng() & 1) ? 1 : -1);
        for (int method : {TS_OUTLIERS_SIGMA, TS_OUTLIERS_MAD}) {
            auto c = run(x, 3.0, method, tsmt::cpu_exec());
            auto g = run(x, 3.0, method, tsmt::gpu_exec());
            CHECK_SAME_ROWS(c, g);
        }
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(outliers_gpu_planted_10_sigma_on_large_offset) {
    auto x = tsmt::gaussian(1 << 24, 11, 1e9, 1.0);
    for (auto& v : x) v = std::clamp(v, 1e9 - 4.5, 1e9 + 4.5);
    x[9876543] = 1e9 + 10.0;
    auto o = run(x, 5.0, TS_OUTLIERS_SIGMA, tsmt::gpu_exec());
    CHECK_EQ(o.count, 1);
    if (o.count == 1) CHECK_EQ(o.pos[0], 9876543);
}

// The GPU's order-preserving compaction (a decoupled look-back over tiles of
// 8,192 values; pass 1 reads in steps of 512): at the edges of its warps
// (1,024 values) and tiles, with no, few, many and almost all values
// selected, the positions must be exactly those the GPU's own rule selects
// (checked on the host, value by value), equal to the CPU's, and the same on
// a second call.
GPU_TEST(outliers_gpu_compaction_edges_and_dense_selections) {
    const int64_t sizes[] = {1, 2, 3, 63, 64, 65, 511, 512, 513, 1023, 1024, 1025, 4095, 4096, 4097, 8191,
                             8192, 8193, 3 * 8192 + 17, 40 * 8192, 100003, (1 << 20) + 3, 3000001};
    uint64_t seed = 100;
    for (int64_t n : sizes) {
        for (double k : {0.05, 0.7, 2.5, 6.0}) {
            ++seed;
            auto x = seed % 3 ? tsmt::gaussian(n, seed, 5.0, 2.0) : tsmt::random_walk(n, seed);
            std::mt19937_64 rng(seed);
            for (int j = 0; j < 5 && n > 10; ++j) x[rng() % n] += 50.0 * ((rng() & 1) ? 1 : -1);
            if (n > 9000) x[n - 1] += 100.0, x[8191] -= 100.0, x[8192] += 100.0;  // at the tile edges
            auto g = run(x, k, TS_OUTLIERS_SIGMA, tsmt::gpu_exec());
            const std::vector<int64_t> want = rule_positions(x, k, TS_OUTLIERS_SIGMA);
            CHECK(positions(g) == want);
            if (positions(g) != want) std::printf("  n %lld k %g: %lld positions, want %zu\n", (long long)n, k,
                                                  (long long)g.count, want.size());
            auto c = run(x, k, TS_OUTLIERS_SIGMA, tsmt::cpu_exec());
            CHECK_SAME_ROWS(c, g);
            for (int64_t j = 0; j < g.count; ++j) CHECK_EQ(g.value[j], x[g.pos[j]]);
            auto g2 = run(x, k, TS_OUTLIERS_SIGMA, tsmt::gpu_exec());
            CHECK(positions(g2) == positions(g));
            CHECK_EQ(g2.center, g.center);  // the same grid and merge order: bit for bit
            CHECK_EQ(g2.scale, g.scale);
        }
        // the mad method goes through the same compaction
        auto x = tsmt::gaussian(n, seed, 0.0, 1.0);
        auto gm = run(x, 0.5, TS_OUTLIERS_MAD, tsmt::gpu_exec());
        auto cm = run(x, 0.5, TS_OUTLIERS_MAD, tsmt::cpu_exec());
        CHECK_SAME_ROWS(cm, gm);
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

// 2^26 values with 1e9 added (the moments merged across every block of the
// grid) and one planted 12-sigma outlier in the last tile, one in the first.
GPU_TEST(outliers_gpu_large_series_planted_at_both_ends) {
    const int64_t n = int64_t(1) << 26;
    auto x = tsmt::gaussian(n, 29, 1e9, 1.0);
    for (auto& v : x) v = std::clamp(v, 1e9 - 5.5, 1e9 + 5.5);
    x[7] = 1e9 - 12.0;
    x[n - 2] = 1e9 + 12.0;
    auto o = run(x, 6.0, TS_OUTLIERS_SIGMA, tsmt::gpu_exec());
    CHECK_EQ(o.count, 2);
    if (o.count == 2) {
        CHECK_EQ(o.pos[0], 7);
        CHECK_EQ(o.pos[1], n - 2);
    }
    CHECK_NEAR(o.scale, 1.0, 0.01);
}

// ---- hostile data (issue #15): offsets, the whole float64 range, denormals ----

namespace {

uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
double uniform01(uint64_t& s) { return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0); }

// offset + sd·(sum of 12 uniforms − 6): near-Gaussian noise of standard
// deviation sd, the same doubles on every machine (no library distribution).
std::vector<double> offset_noise(int64_t n, uint64_t seed, double offset, double sd) {
    std::vector<double> x(n);
    for (auto& v : x) {
        double g = 0;
        for (int j = 0; j < 12; ++j) g += uniform01(seed);
        v = offset + sd * (g - 6.0);
    }
    return x;
}

// The exact k-sigma outliers (k = k4/4) of values on a grid, x_i = c + m_i·u
// with integers m_i (checked): |x_i − mean| > k·std exactly when
// (4(n·m_i − S1))² > k4²·(n·S2 − S1²), in 128-bit integers.  margin: the
// smallest |lhs/rhs − 1| over the values (how close the nearest one is to the limit).
struct ExactOutliers {
    std::vector<int64_t> pos;
    long double margin = 1e30L;
    bool on_grid = true;
};
ExactOutliers exact_grid_outliers(const std::vector<double>& x, double c, double u, int64_t k4) {
    ExactOutliers o;
    const int64_t n = (int64_t)x.size();
    std::vector<int64_t> m(n);
    __int128 s1 = 0, s2 = 0;
    for (int64_t i = 0; i < n; ++i) {
        const long double q = ((long double)x[i] - (long double)c) / (long double)u;
        m[i] = (int64_t)std::llround(q);
        o.on_grid &= (long double)m[i] == q;
        s1 += m[i];
        s2 += (__int128)m[i] * m[i];
    }
    const __int128 spread = (__int128)n * s2 - s1 * s1;  // n²·variance / u²
    for (int64_t i = 0; i < n && spread > 0; ++i) {
        const __int128 d = 4 * ((__int128)n * m[i] - s1), lhs = d * d, rhs = (__int128)k4 * k4 * spread;
        if (lhs > rhs) o.pos.push_back(i);
        o.margin = std::min(o.margin, std::fabs((long double)lhs / (long double)rhs - 1.0L));
    }
    return o;
}

}  // namespace

// The repro of issue #15: 1e9 + noise of standard deviation 8.7e-6 (180,000
// values, seed 26).  The values lie on the grid of 1e9's last place (2^-23);
// the exact answer (integer arithmetic) flags 366 values, and the nearest
// value is 0.3% from the limit, so the answer is not a matter of rounding.
// Before the fix the test used the mean rounded to that grid (ref + mean) and
// flagged 361.
TEST(outliers_sigma_offset_noise_exact_count) {
    const auto x = offset_noise(180000, 26, 1e9, 8.7e-6);
    const ExactOutliers want = exact_grid_outliers(x, 1e9, std::ldexp(1.0, -23), 12);
    CHECK(want.on_grid);
    CHECK_EQ(want.pos.size(), (size_t)366);
    CHECK(want.margin > 1e-3L);
    for (int threads : {1, 3}) {
        auto o = run(x, 3.0, TS_OUTLIERS_SIGMA, tsmt::cpu_exec(threads));
        CHECK_EQ(o.count, 366);
        CHECK(positions(o) == want.pos);
        CHECK_NEAR(o.scale, 8.704e-6, 1e-9);
    }
}

// Offsets on a grid over many magnitudes against the exact oracle: the same
// positions wherever the nearest value is not within 1e-12 of the limit.
TEST(outliers_sigma_offsets_match_exact_oracle) {
    const double offsets[] = {0.0, 1e3, -7e6, 1e9, 3.5e12, -1e15, 1e100, -1e300, 1e-200};
    uint64_t seed = 500;
    for (double c : offsets) {
        for (int rep = 0; rep < 3; ++rep) {
            ++seed;
            uint64_t s = seed;
            const int64_t n = 1000 + (int64_t)(splitmix(s) % 200000);
            // the grid: a multiple of the offset's last place, so c + m·u is exact
            const double ulp = c == 0 ? std::ldexp(1.0, -30) : std::nextafter(std::fabs(c), 1e308) - std::fabs(c);
            const double u = ulp * (double)(1 + splitmix(s) % 64);
            std::vector<double> x(n);
            for (auto& v : x) {
                int64_t m = 0;
                for (int j = 0; j < 4; ++j) m += (int64_t)(splitmix(s) % 2001) - 1000;
                if (splitmix(s) % 997 == 0) m *= 9;  // planted outliers
                v = c + (double)m * u;
            }
            const ExactOutliers want = exact_grid_outliers(x, c, u, 12);
            CHECK(want.on_grid);
            auto o = run(x, 3.0, TS_OUTLIERS_SIGMA, tsmt::cpu_exec());
            if (want.margin > 1e-12L) CHECK(positions(o) == want.pos);
            CHECK(std::isfinite(o.center) && std::isfinite(o.scale));
        }
    }
}

// One value of 1e160 (or −1e300) among 2,000 sine values: flagged, alone
// (its square overflows, so a sum of squares cannot find it).
TEST(outliers_huge_value_among_sines) {
    for (double spike : {1e160, -1e300, 1.7976931348623157e308}) {
        std::vector<double> x(2000);
        for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.1 * (double)i);
        x[777] = spike;
        for (int method : {TS_OUTLIERS_SIGMA, TS_OUTLIERS_MAD}) {
            auto o = run(x, 3.0, method, tsmt::cpu_exec());
            CHECK(positions(o) == std::vector<int64_t>{777});
            CHECK(std::isfinite(o.center) && std::isfinite(o.scale) && o.scale > 0);
            for (int64_t j = 0; j < o.count; ++j) CHECK(std::isfinite(o.score[j]));
        }
    }
}

// {1e308 ×9, −1e308} at k = 2: the mean is 0.8e308, the std 0.6e308 and the
// last value 1.8e308 from the mean (3 sigma): flagged, with a finite score.
// The mad method: MAD = 0, MeanAD = 0.2e308, score −2e308/(1.253314·0.2e308).
TEST(outliers_extremes_of_the_range) {
    std::vector<double> x(9, 1e308);
    x.push_back(-1e308);
    auto o = run(x, 2.0, TS_OUTLIERS_SIGMA, tsmt::cpu_exec());
    CHECK(positions(o) == std::vector<int64_t>{9});
    CHECK_REL(o.center, 0.8e308, 1e-15);
    CHECK_REL(o.scale, 0.6e308, 1e-15);
    if (o.count == 1) CHECK_REL(o.score[0], -3.0, 1e-14);
    auto m = run(x, 2.0, TS_OUTLIERS_MAD, tsmt::cpu_exec());
    CHECK(positions(m) == std::vector<int64_t>{9});
    CHECK_EQ(m.scale_rule, 2);
    CHECK_EQ(m.center, 1e308);
    if (m.count == 1) CHECK_REL(m.score[0], -2.0 / (1.253314 * 0.2), 1e-14);
    // alternating ±DBL_MAX and a near-zero value: no overflow, no outlier at k = 1.5
    std::vector<double> y{1.7976931348623157e308, -1.7976931348623157e308, 1.7976931348623157e308,
                          -1.7976931348623157e308, 1e-300};
    auto a = run(y, 1.5, TS_OUTLIERS_SIGMA, tsmt::cpu_exec());
    CHECK_EQ(a.count, 0);
    CHECK(std::isfinite(a.scale) && a.scale > 0);
}

// A series of denormal values (integers times 2^-1074, one planted outlier)
// flags exactly what the integers flag, with the same scores.
TEST(outliers_denormal_series) {
    uint64_t s = 77;
    std::vector<double> m(5000), x(5000);
    for (size_t i = 0; i < m.size(); ++i) m[i] = (double)(1000 + (int64_t)(splitmix(s) % 41) - 20);
    m[1234] = 1400;
    for (size_t i = 0; i < m.size(); ++i) x[i] = std::ldexp(m[i], -1074);
    CHECK(x[0] > 0 && x[0] < 2.2250738585072014e-308);
    for (int method : {TS_OUTLIERS_SIGMA, TS_OUTLIERS_MAD}) {
        auto a = run(m, 3.0, method, tsmt::cpu_exec());
        auto b = run(x, 3.0, method, tsmt::cpu_exec());
        CHECK(positions(b) == std::vector<int64_t>{1234});
        CHECK(positions(a) == positions(b));
        for (int64_t j = 0; j < a.count && j < b.count; ++j) CHECK_EQ(a.score[j], b.score[j]);
        CHECK(b.scale > 0);
    }
}

// x and 2^k·x (k from −1000 to 1000, fixed seeds) give the same positions and
// scores, bit for bit, and center and scale times 2^k exactly, for both methods.
TEST(outliers_same_rows_at_every_power_of_two_scale) {
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        uint64_t s = seed * 7919;
        const int64_t n = 1 + (int64_t)(splitmix(s) % 100000);
        const double offset = seed % 3 == 0 ? 1e6 : (seed % 3 == 1 ? 0.0 : -37.25);
        auto x = offset_noise(n, seed, offset, std::ldexp(1.0, (int)(splitmix(s) % 20) - 10));
        for (int j = 0; j < 8; ++j) x[splitmix(s) % n] += (double)(splitmix(s) % 100) - 50;
        for (int rep = 0; rep < 4; ++rep) {
            const int k = (int)(splitmix(s) % 2001) - 1000;
            std::vector<double> y(x);
            for (auto& v : y) v = std::ldexp(v, k);
            for (int method : {TS_OUTLIERS_SIGMA, TS_OUTLIERS_MAD}) {
                auto a = run(x, 2.5, method, tsmt::cpu_exec());
                auto b = run(y, 2.5, method, tsmt::cpu_exec());
                CHECK(positions(a) == positions(b));
                CHECK_EQ(std::ldexp(a.center, k), b.center);
                CHECK_EQ(std::ldexp(a.scale, k), b.scale);
                for (int64_t j = 0; j < a.count && j < b.count; ++j) CHECK_EQ(a.score[j], b.score[j]);
            }
        }
    }
}

// outliers_detail.h's holds_outlier (the GPU's pass 2 skips the stretches
// it clears): a stretch holds an outlier exactly when its least or greatest
// value is one.  Against the value-by-value test, on stretches of series on
// the grid of large offsets and at the ends of the range, with limits from
// k = 0.5 (most values outliers) to 4, some of them set on a value's own
// deviation (ties at the limit).
TEST(outliers_stretch_screen_equals_the_values_test) {
    const double offsets[] = {0.0, 1e9, -3.5e12, 1e300, 1e-300};
    uint64_t s = 4242;
    for (double c : offsets) {
        for (int rep = 0; rep < 40; ++rep) {
            auto x = offset_noise(4096, splitmix(s), c, c == 0 ? 1.0 : std::fabs(c) * 1e-9);
            for (int j = 0; j < 6; ++j) x[splitmix(s) % x.size()] *= rep % 2 ? 1.0000001 : -1.0;
            TsExec ex = tsmt::cpu_exec();
            const tsm::OutlierRule r = tsm::cpu_rule(x.data(), (int64_t)x.size(), TS_OUTLIERS_SIGMA, &ex);
            const double k = 0.5 + (double)(splitmix(s) % 8) / 2;
            double limit = tsm::outliers::outlier_limit(k, r);
            auto dev = [&](double v) { return tsm::outliers::deviation(v, r.unit, r.ref_scaled, r.center); };
            if (rep % 4 == 0) limit = std::fabs(dev(x[splitmix(s) % x.size()]));  // a value on the limit
            for (int t = 0; t < 200; ++t) {
                const size_t a = splitmix(s) % x.size(), len = 1 + splitmix(s) % 1024;
                const size_t b = std::min(x.size(), a + len);
                bool any = false;
                for (size_t i = a; i < b; ++i) any |= tsm::outliers::is_outlier(dev(x[i]), limit);
                const auto [lo, hi] = std::minmax_element(x.begin() + a, x.begin() + b);
                CHECK_EQ(tsm::outliers::holds_outlier(*lo, *hi, r.unit, r.ref_scaled, r.center, limit), any);
            }
        }
    }
}

// Every hostile series above, on the GPU: the same rows, center, scale and
// scores as the CPU, bit for bit.
GPU_TEST(outliers_gpu_hostile_equal_cpu) {
    std::vector<std::vector<double>> series;
    series.push_back(offset_noise(180000, 26, 1e9, 8.7e-6));
    series.push_back(std::vector<double>(9, 1e308));
    series.back().push_back(-1e308);
    std::vector<double> sines(100000);
    for (size_t i = 0; i < sines.size(); ++i) sines[i] = std::sin(0.1 * (double)i);
    sines[77777] = 1e160;
    series.push_back(sines);
    std::vector<double> denormal(70000);
    for (size_t i = 0; i < denormal.size(); ++i) denormal[i] = std::ldexp((double)(1000 + i % 37), -1074);
    denormal[5] = std::ldexp(3000.0, -1074);
    series.push_back(denormal);
    for (int k : {-1000, -500, 0, 500, 990}) {
        auto y = offset_noise(3000001, 9 + k, 0.0, 1.0);
        for (auto& v : y) v = std::ldexp(v, k);
        series.push_back(y);
    }
    for (const auto& x : series) {
        for (int method : {TS_OUTLIERS_SIGMA, TS_OUTLIERS_MAD}) {
            for (double k : {2.0, 3.0}) {
                auto c = run(x, k, method, tsmt::cpu_exec());
                auto g = run(x, k, method, tsmt::gpu_exec());
                CHECK_SAME_ROWS(c, g);
            }
        }
    }
    CHECK_EQ(run(series[0], 3.0, TS_OUTLIERS_SIGMA, tsmt::gpu_exec()).count, 366);
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}
