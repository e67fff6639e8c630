// Outliers and the statistics under them, against brute-force oracles.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>

#include "check.h"
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
    tsm_outliers(x.data(), x.size(), k, method, &ex, &o, &st);
    CHECK_OK(st);
    return o;
}

std::vector<int64_t> positions(const TsOutliers& o) { return std::vector<int64_t>(o.pos, o.pos + o.count); }

}  // namespace

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
    CHECK(tsm_outliers(x.data(), 3, 0.0, TS_OUTLIERS_SIGMA, &ex, &o, &st) == TS_INVALID_ARGUMENT);
    CHECK(std::string(st.sqlstate) == "22023");
    CHECK(tsm_outliers(x.data(), 3, NAN, TS_OUTLIERS_SIGMA, &ex, &o, &st) == TS_INVALID_ARGUMENT);
    CHECK(tsm_outliers(x.data(), 3, 3.0, 7, &ex, &o, &st) == TS_INVALID_ARGUMENT);
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
            CHECK(positions(c) == positions(g));
            CHECK_REL(c.center, g.center, 1e-12);
            CHECK_REL(c.scale, g.scale, 1e-12);
            CHECK_EQ(c.scale_rule, g.scale_rule);
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
            std::vector<int64_t> want;
            for (int64_t i = 0; i < n; ++i)
                if (g.scale > 0 && std::fabs(x[i] - g.center) > k * g.scale) want.push_back(i);
            CHECK(positions(g) == want);
            if (positions(g) != want) std::printf("  n %lld k %g: %lld positions, want %zu\n", (long long)n, k,
                                                  (long long)g.count, want.size());
            auto c = run(x, k, TS_OUTLIERS_SIGMA, tsmt::cpu_exec());
            CHECK(positions(c) == positions(g));
            CHECK_REL(c.center, g.center, 1e-12);
            CHECK_REL(c.scale, g.scale, 1e-12);
            for (int64_t j = 0; j < g.count && j < c.count; ++j) {
                CHECK_EQ(g.value[j], x[g.pos[j]]);
                CHECK_REL(g.score[j], c.score[j], 1e-9);
            }
            auto g2 = run(x, k, TS_OUTLIERS_SIGMA, tsmt::gpu_exec());
            CHECK(positions(g2) == positions(g));
            CHECK_EQ(g2.center, g.center);  // the same grid and merge order: bit for bit
            CHECK_EQ(g2.scale, g.scale);
        }
        // the mad method goes through the same compaction
        auto x = tsmt::gaussian(n, seed, 0.0, 1.0);
        auto gm = run(x, 0.5, TS_OUTLIERS_MAD, tsmt::gpu_exec());
        auto cm = run(x, 0.5, TS_OUTLIERS_MAD, tsmt::cpu_exec());
        CHECK(positions(gm) == positions(cm));
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
