// Matrix profile: CPU against a brute-force oracle and reference outputs,
// GPU against CPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "api_matrix_profile.h"
#include "check.h"
#include "oracles.h"
#include "matrix_profile.h"

namespace {

using tsmt::Profile;

struct Oracle {
    std::vector<double> dist;                 // best distance (long double, rounded)
    std::vector<int64_t> index;               // smallest argmin (exact ties)
    std::vector<std::vector<long double>> z;  // z-normalised windows (empty = constant)
    int m;
    // distance between windows i and j under the STUMPY rule
    long double d(int64_t i, int64_t j) const {
        bool ci = z[i].empty(), cj = z[j].empty();
        if (ci && cj) return 0;
        if (ci || cj) return std::sqrt((long double)m);
        long double s = 0;
        for (int t = 0; t < m; ++t) {
            long double u = z[i][t] - z[j][t];
            s += u * u;
        }
        return std::sqrt(s);
    }
};

// Direct O(n²m): explicit z-normalisation of every window in long double.
Oracle brute_force(const std::vector<double>& x, int m, int64_t excl) {
    const int64_t count = (int64_t)x.size() - m + 1;
    Oracle o;
    o.m = m;
    o.z.resize(count);
    for (int64_t i = 0; i < count; ++i) {
        bool constant = true;
        for (int t = 1; t < m; ++t) constant &= x[i + t] == x[i];
        if (constant) continue;
        long double s = 0;
        for (int t = 0; t < m; ++t) s += x[i + t];
        long double mu = s / m, q = 0;
        for (int t = 0; t < m; ++t) q += (x[i + t] - mu) * (x[i + t] - mu);
        long double sd = std::sqrt(q / m);
        o.z[i].resize(m);
        for (int t = 0; t < m; ++t) o.z[i][t] = (x[i + t] - mu) / sd;
    }
    o.dist.assign(count, INFINITY);
    o.index.assign(count, -1);
    std::vector<long double> best(count, INFINITY);
    for (int64_t i = 0; i < count; ++i)
        for (int64_t j = i + excl; j < count; ++j) {
            long double dd = o.d(i, j);
            if (dd < best[i]) { best[i] = dd; o.index[i] = j; }
            if (dd < best[j] || (dd == best[j] && i < o.index[j])) { best[j] = dd; o.index[j] = i; }
        }
    for (int64_t i = 0; i < count; ++i) o.dist[i] = (double)best[i];
    return o;
}

// Distances within tol (relative, absolute near 0); index equal to the
// oracle's, or — only where the oracle sees a tie within tol — another
// admissible j at the same distance.  strict: indices must be equal.
void check_against(const Profile& got, const Oracle& o, int64_t excl, double tol, bool strict,
                   const char* what) {
    CHECK_EQ(got.dist.size(), o.dist.size());
    if (got.dist.size() != o.dist.size()) return;
    int bad = 0, ties = 0;
    for (size_t i = 0; i < o.dist.size() && bad < 5; ++i) {
        if (std::isinf(o.dist[i])) {
            if (!(std::isinf(got.dist[i]) && got.index[i] == -1)) {
                ++bad;
                std::printf("    %s: window %zu has no neighbour, got %g @ %lld\n", what, i, got.dist[i],
                            (long long)got.index[i]);
            }
            continue;
        }
        double t = tol * std::max(1.0, o.dist[i]);
        bool dist_ok = std::fabs(got.dist[i] - o.dist[i]) <= t;
        bool idx_ok = got.index[i] == o.index[i];
        if (!idx_ok && !strict && got.index[i] >= 0 && std::llabs(got.index[i] - (int64_t)i) >= excl &&
            got.index[i] < (int64_t)o.dist.size() &&
            std::fabs((double)o.d(i, got.index[i]) - o.dist[i]) <= t) {
            idx_ok = true;
            ++ties;
        }
        if (!dist_ok || !idx_ok) {
            ++bad;
            std::printf("    %s: window %zu: got %.15g @ %lld, oracle %.15g @ %lld\n", what, i, got.dist[i],
                        (long long)got.index[i], o.dist[i], (long long)o.index[i]);
        }
    }
    CHECK_EQ(bad, 0);
}

int64_t stumpy_excl(int m) { return (m + 3) / 4 + 1; }

void expect_equal(const Profile& a, const Profile& b, const char* what) {
    CHECK_EQ(a.dist.size(), b.dist.size());
    if (a.dist.size() != b.dist.size()) return;
    int bad = 0;
    for (size_t i = 0; i < a.dist.size() && bad < 5; ++i) {
        bool ok = a.index[i] == b.index[i] &&
                  (a.dist[i] == b.dist[i] ||
                   std::fabs(a.dist[i] - b.dist[i]) <= 1e-9 * std::max(1.0, std::fabs(a.dist[i])));
        if (!ok) {
            ++bad;
            std::printf("    %s: window %zu: %.17g @ %lld vs %.17g @ %lld\n", what, i, a.dist[i],
                        (long long)a.index[i], b.dist[i], (long long)b.index[i]);
        }
    }
    CHECK_EQ(bad, 0);
}

std::vector<double> read_values(const std::string& rel) { return tsmt::load_column(rel, 0); }

// top-1 discord: argmax of the profile (smallest position among ties)
int64_t argmax(const std::vector<double>& d) {
    int64_t b = 0;
    for (size_t i = 1; i < d.size(); ++i)
        if (d[i] > d[b]) b = i;
    return b;
}

}  // namespace

TEST(mp_cpu_matches_brute_force_on_random_walks) {
    struct C { int64_t n; int m; uint64_t seed; };
    for (C c : {C{40, 3, 1}, C{300, 3, 2}, C{777, 16, 3}, C{1500, 50, 4}, C{2100, 100, 5}, C{1201, 7, 6}}) {
        auto x = tsmt::random_walk(c.n, c.seed);
        for (int64_t excl : {int64_t(1), stumpy_excl(c.m), int64_t(c.m)}) {
            auto o = brute_force(x, c.m, excl);
            auto got = tsmt::matrix_profile(x, c.m, excl, tsmt::cpu_exec(1 + c.seed % 2));
            check_against(got, o, excl, 1e-9, false, "random walk");
        }
    }
}

TEST(mp_cpu_several_segments_match_brute_force) {
    // several segments (of segment_rows(count) = 2048 rows): the co-moments are re-initialised at each one.
    auto x = tsmt::random_walk(2 * tsm::mp::kSegRows + 1500, 17);
    int m = 8;
    auto o = brute_force(x, m, 3);
    check_against(tsmt::matrix_profile(x, m, 3, tsmt::cpu_exec()), o, 3, 1e-9, false, "segments");
}

TEST(mp_cpu_exact_with_1e8_offset) {
    auto base = tsmt::random_walk(1800, 23);
    std::vector<double> x(base.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = 1e8 + base[i];
    for (int m : {10, 64}) {
        int64_t excl = stumpy_excl(m);
        auto o = brute_force(x, m, excl);
        auto got = tsmt::matrix_profile(x, m, excl, tsmt::cpu_exec());
        check_against(got, o, excl, 1e-9, false, "offset 1e8");
        // and the same profile as without the offset (the data differ by ≤ 1 ulp of 1e8)
        auto plain = tsmt::matrix_profile(base, m, excl, tsmt::cpu_exec());
        int far = 0;
        for (size_t i = 0; i < got.dist.size(); ++i) far += std::fabs(got.dist[i] - plain.dist[i]) > 1e-5;
        CHECK_EQ(far, 0);
    }
}

TEST(mp_cpu_constant_windows_follow_stumpy) {
    auto x = tsmt::random_walk(1500, 31);
    for (int i = 100; i < 180; ++i) x[i] = 5.0;     // constant run longer than m
    for (int i = 700; i < 760; ++i) x[i] = -3.25;   // another one
    for (int i = 1400; i < 1500; ++i) x[i] = 7.0;   // at the end
    for (int m : {20, 50}) {
        for (int64_t excl : {int64_t(1), stumpy_excl(m), int64_t(m)}) {
            auto o = brute_force(x, m, excl);
            auto got = tsmt::matrix_profile(x, m, excl, tsmt::cpu_exec());
            // windows 99, 699, 1399 (one value, then a constant run) are exact ties
            // (distance 0 in exact arithmetic, ~1e-14 after rounding): non-strict
            check_against(got, o, excl, 1e-9, false, "constant stretches");
        }
    }
    // a single constant run: constant windows have only non-constant partners → sqrt(m)
    auto y = tsmt::random_walk(600, 32);
    for (int i = 200; i < 260; ++i) y[i] = 1.0;
    auto o = brute_force(y, 40, 11);
    auto got = tsmt::matrix_profile(y, 40, 11, tsmt::cpu_exec());
    check_against(got, o, 11, 1e-9, true, "one constant run");
    CHECK_NEAR(got.dist[210], std::sqrt(40.0), 1e-12);
    // an entirely constant series: every distance 0, neighbour = smallest admissible
    std::vector<double> flat(200, 45.0);
    auto f = tsmt::matrix_profile(flat, 10, 5, tsmt::cpu_exec());
    for (size_t i = 0; i < f.dist.size(); ++i) {
        CHECK_EQ(f.dist[i], 0.0);
        CHECK_EQ(f.index[i], i >= 5 ? 0 : (int64_t)i + 5);
    }
}

TEST(mp_cpu_exact_ties_pick_smallest_index) {
    // the same pattern planted three times: windows of the later copies are at
    // distance 0 from the first copy, the first from the second.
    auto x = tsmt::random_walk(2000, 41);
    for (int t = 0; t < 120; ++t) x[900 + t] = x[1500 + t] = x[300 + t];
    int m = 60;
    auto got = tsmt::matrix_profile(x, m, m, tsmt::cpu_exec());
    CHECK_EQ(got.index[1500], 300);
    CHECK_EQ(got.index[900], 300);
    CHECK_EQ(got.index[300], 900);
    CHECK(got.dist[1500] < 1e-6);
}

TEST(mp_cpu_poorly_conditioned_series) {
    // SCAMP's numerically hard input: 35 quantised levels, constant runs up to 59
    auto x = read_values("mp_reference/scamp_testdata/SampleInput/poorly_conditioned_test.txt");
    CHECK_EQ(x.size(), 4500u);
    if (x.size() != 4500) return;
    for (int m : {24, 64}) {
        int64_t excl = stumpy_excl(m);
        auto o = brute_force(x, m, excl);
        auto got = tsmt::matrix_profile(x, m, excl, tsmt::cpu_exec());
        check_against(got, o, excl, 1e-8, false, "poorly conditioned");
    }
}

TEST(mp_cpu_matches_scamp_reference_randomwalk8k) {
    const std::string d = "mp_reference/scamp_testdata/";
    auto x = read_values(d + "SampleInput/randomwalk8K.txt");
    auto mp = read_values(d + "SampleOutput/mp_randomwalk8K_w100.txt");
    auto mpi = read_values(d + "SampleOutput/mpi_randomwalk8K_w100.txt");
    CHECK_EQ(x.size(), 8192u);
    CHECK_EQ(mp.size(), 8093u);
    if (x.size() != 8192 || mp.size() != 8093 || mpi.size() != 8093) return;
    // SCAMP admits |i − j| ≥ floor(m/4) = 25; STUMPY's ceil(m/4)+1 = 26 gives the same here.
    for (int64_t excl : {int64_t(25), int64_t(26)}) {
        auto got = tsmt::matrix_profile(x, 100, excl, tsmt::cpu_exec());
        int bad = 0;
        for (size_t i = 0; i < mp.size(); ++i)
            if (std::fabs(got.dist[i] - mp[i]) > 1e-8 || got.index[i] != (int64_t)mpi[i]) {
                if (++bad <= 5)
                    std::printf("    window %zu: %.15g @ %lld vs SCAMP %.15g @ %.0f\n", i, got.dist[i],
                                (long long)got.index[i], mp[i], mpi[i]);
            }
        CHECK_EQ(bad, 0);
    }
}

TEST(mp_cpu_top_discord_matches_reference_discords) {
    // reference_discords.json: stumpy_excl = exclusion ceil(m/4)+1, nonoverlap = exclusion m
    struct R { const char* file; int col; int m; int64_t idx_st; double d_st; int64_t idx_no; double d_no; };
    for (R r : {R{"anomaly/keogh_discords/space_shuttle/TEK16.txt", 0, 128, 4863, 14.07941, 4863, 14.07941},
                R{"anomaly/keogh_discords/ecg/qtdbsel102.txt", 1, 256, 4206, 18.6567, 4206, 18.6567}}) {
        auto x = tsmt::load_column(r.file, r.col);
        CHECK(x.size() > 1000);
        if (x.size() < 1000) continue;
        auto st = tsmt::matrix_profile(x, r.m, stumpy_excl(r.m), tsmt::cpu_exec());
        auto no = tsmt::matrix_profile(x, r.m, r.m, tsmt::cpu_exec());
        CHECK_EQ(argmax(st.dist), r.idx_st);
        CHECK_NEAR(st.dist[argmax(st.dist)], r.d_st, 1e-4);
        CHECK_EQ(argmax(no.dist), r.idx_no);
        CHECK_NEAR(no.dist[argmax(no.dist)], r.d_no, 1e-4);
        if (std::string(r.file).find("TEK16") != std::string::npos) {
            CHECK_EQ(st.index[4863], 3299);  // [4863, 14.07941, 3299] in both conventions
            CHECK_EQ(no.index[4863], 3299);
        }
    }
}

TEST(mp_cpu_threads_give_identical_results) {
    auto x = tsmt::random_walk(20000, 51);
    auto a = tsmt::matrix_profile(x, 30, 8, tsmt::cpu_exec(1));
    auto b = tsmt::matrix_profile(x, 30, 8, tsmt::cpu_exec(2));
    auto c = tsmt::matrix_profile(x, 30, 8, tsmt::cpu_exec(5));
    CHECK(a.index == b.index && a.index == c.index);
    CHECK(a.dist == b.dist && a.dist == c.dist);
}

TEST(mp_rejects_bad_arguments) {
    auto x = tsmt::random_walk(100, 1);
    TsExec ex = tsmt::cpu_exec();
    TsProfile p;
    TsStatus st;
    auto err = [&](int64_t n, int m, int64_t excl, const double* data) {
        int rc = tsm_matrix_profile(data, n, m, excl, 1, &ex, &p, &st);
        return rc == TS_INVALID_ARGUMENT && std::string(st.sqlstate) == "22023";
    };
    CHECK(err(100, 2, 1, x.data()));             // m < 3
    CHECK(err(100, 51, 1, x.data()));            // m > n/2
    CHECK(std::string(st.hint).find("m <= 50") != std::string::npos);
    CHECK(err(100, 10, 0, x.data()));            // exclusion < 1
    CHECK(err(100, 10, 91, x.data()));           // exclusion > n − m: no neighbour anywhere
    CHECK(!err(100, 10, 90, x.data()));          // exclusion = n − m: windows 0 and 90 only
    CHECK(err(5, 3, 1, x.data()));               // n too short
    CHECK(err(-1, 3, 1, x.data()));
    CHECK(err(100, 10, 1, nullptr));
    auto y = x;
    y[50] = NAN;  // a gap (test_gaps.cpp), not an error
    CHECK(!err(100, 10, 3, y.data()));
    // exclusion = n − m: only windows 0 and n − m have a neighbour (each other)
    int rc = tsm_matrix_profile(x.data(), 100, 10, 90, 1, &ex, &p, &st);
    CHECK_EQ(rc, TS_OK);
    if (rc == TS_OK) {
        CHECK_EQ(p.count, 91);
        CHECK_EQ(p.index[0], 90);
        CHECK_EQ(p.index[90], 0);
        CHECK_EQ(p.index[45], -1);
        CHECK(std::isinf(p.dist[45]));
    }
}

// ---- GPU == CPU ------------------------------------------------------------

namespace {
void gpu_vs_cpu(const std::vector<double>& x, int m, int64_t excl, const char* what) {
    auto c = tsmt::matrix_profile(x, m, excl, tsmt::cpu_exec());
    auto g = tsmt::matrix_profile(x, m, excl, tsmt::gpu_exec());
    expect_equal(c, g, what);
}
}  // namespace

GPU_TEST(mp_gpu_equals_cpu_on_random_walks) {
    struct C { int64_t n; int m; };
    uint64_t seed = 100;
    for (C c : {C{1000, 3}, C{1000, 100}, C{4099, 3}, C{5003, 100}, C{9001, 1024}, C{20011, 100},
                C{(1 << 17) - 13, 100}, C{1 << 17, 1024}, C{33333, 3}}) {
        auto x = tsmt::random_walk(c.n, ++seed);
        for (int64_t excl : {int64_t(1), stumpy_excl(c.m), int64_t(c.m)}) gpu_vs_cpu(x, c.m, excl, "random walk");
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(mp_gpu_equals_cpu_on_hard_inputs) {
    auto x = tsmt::random_walk(30000, 7);
    for (auto& v : x) v += 1e8;
    gpu_vs_cpu(x, 100, 26, "offset 1e8");
    auto y = tsmt::random_walk(12000, 8);
    for (int i = 1000; i < 1300; ++i) y[i] = 5.0;
    for (int i = 7000; i < 7100; ++i) y[i] = -1.0;
    for (int i = 11900; i < 12000; ++i) y[i] = 2.0;
    for (int m : {16, 64})
        for (int64_t excl : {int64_t(1), stumpy_excl(m), int64_t(m)}) gpu_vs_cpu(y, m, excl, "constant stretches");
    auto p = read_values("mp_reference/scamp_testdata/SampleInput/poorly_conditioned_test.txt");
    if (!p.empty()) gpu_vs_cpu(p, 100, 26, "poorly conditioned");
    auto e = read_values("mp_reference/scamp_testdata/SampleInput/earthquake_precision_test100K.txt");
    if (!e.empty()) gpu_vs_cpu(e, 100, 26, "earthquake precision");
    std::vector<double> flat(5000, 45.0);
    gpu_vs_cpu(flat, 50, 13, "flat");
    // exclusion near its maximum: most windows have no neighbour
    auto z = tsmt::random_walk(3000, 9);
    gpu_vs_cpu(z, 100, 2890, "large exclusion");
    gpu_vs_cpu(z, 100, 2900, "maximum exclusion (n - m)");
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(mp_gpu_several_segments_and_reference) {
    // several segments (of 2048 rows), many bands, odd length
    auto x = tsmt::random_walk(3 * tsm::mp::kSegRows + 777, 77);
    for (int m : {3, 100, 1024}) gpu_vs_cpu(x, m, stumpy_excl(m), "segments");
    const std::string d = "mp_reference/scamp_testdata/";
    auto r = read_values(d + "SampleInput/randomwalk8K.txt");
    auto mp = read_values(d + "SampleOutput/mp_randomwalk8K_w100.txt");
    auto mpi = read_values(d + "SampleOutput/mpi_randomwalk8K_w100.txt");
    if (r.size() == 8192 && mp.size() == 8093) {
        auto g = tsmt::matrix_profile(r, 100, 25, tsmt::gpu_exec());
        int bad = 0;
        for (size_t i = 0; i < mp.size(); ++i)
            bad += std::fabs(g.dist[i] - mp[i]) > 1e-8 || g.index[i] != (int64_t)mpi[i];
        CHECK_EQ(bad, 0);
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(mp_gpu_throughput_n2e17_m100) {
    auto x = tsmt::random_walk(1 << 17, 2024);
    int m = 100;
    tsmt::matrix_profile(x, m, 26, tsmt::gpu_exec());  // warm-up (CUDA start-up, module load)
    TsExec ex = tsmt::gpu_exec();
    auto t0 = std::chrono::steady_clock::now();
    TsProfile p;
    TsStatus st;
    tsm_matrix_profile(x.data(), x.size(), m, 26, 1, &ex, &p, &st);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK_OK(st);
    double n = (double)x.size();
    std::printf("    matrix profile n=2^17 m=100: %.3f ms total, %.3f ms kernels, %.3g pairs/s (n^2/2 / total), "
                "%.3g pairs/s (kernels)\n",
                s * 1e3, ex.kernel_ms, n * n / 2 / s, ex.kernel_ms > 0 ? n * n / 2 / (ex.kernel_ms * 1e-3) : 0.0);
    auto c = tsmt::matrix_profile(x, m, 26, tsmt::cpu_exec());
    if (st.code == TS_OK) {
        expect_equal(c, tsmt::to_profile(p, st), "throughput run");
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(mp_gpu_throughput_n2e20) {
    // Device throughput at n = 2^17 and 2^20 (m = 100 and 1024), and, at
    // n = 2^20, m = 100, a spot check of 6 windows against a direct scan.
    for (int lg : {17, 20}) {
        auto x = tsmt::random_walk(int64_t(1) << lg, 2020 + lg);
        for (int m : {100, 1024}) {
            const int64_t excl = stumpy_excl(m);
            TsExec ex = tsmt::gpu_exec();
            auto t0 = std::chrono::steady_clock::now();
            TsProfile p;
            TsStatus st;
            tsm_matrix_profile(x.data(), x.size(), m, excl, 1, &ex, &p, &st);
            double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            CHECK_OK(st);
            if (st.code != TS_OK) continue;
            double n = (double)x.size();
            std::printf("    matrix profile n=2^%d m=%d: %.1f ms total, %.1f ms kernels, %.3g pairs/s (total), "
                        "%.3g pairs/s (kernels)\n",
                        lg, m, s * 1e3, ex.kernel_ms, n * n / 2 / s, n * n / 2 / (ex.kernel_ms * 1e-3));
            if (lg != 20 || m != 100) continue;
            const int64_t count = p.count;
            auto zdist = [&](int64_t i, int64_t j) {
                long double si = 0, sj = 0, qi = 0, qj = 0, cij = 0;
                for (int t = 0; t < m; ++t) si += x[i + t], sj += x[j + t];
                long double mi = si / m, mj = sj / m;
                for (int t = 0; t < m; ++t) {
                    long double a = x[i + t] - mi, b = x[j + t] - mj;
                    qi += a * a, qj += b * b, cij += a * b;
                }
                long double rho = cij / std::sqrt(qi * qj);
                return (double)std::sqrt(std::max((long double)0, 2 * m * (1 - rho)));
            };
            for (int64_t i : {int64_t(0), int64_t(12345), count / 3, count / 2 + 7, count - 1000, count - 1}) {
                double bd = INFINITY;
                for (int64_t j = 0; j < count; ++j)
                    if (std::llabs(j - i) >= excl) bd = std::min(bd, zdist(i, j));
                CHECK(std::llabs(p.index[i] - i) >= excl);
                CHECK_NEAR(p.dist[i], bd, 1e-6 * std::max(1.0, bd));
                CHECK_NEAR(zdist(i, p.index[i]), bd, 1e-6 * std::max(1.0, bd));
            }
        }
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}
