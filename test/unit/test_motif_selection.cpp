// The selection of motif pairs from a matrix profile (select_top_motifs_from_profile)
// against an exact oracle: the greedy rule applied to every pair, with the
// distances zdist computes (double, the bits the selection compares), so the
// rows must be equal bit for bit, for any k (huge k: every pair the series
// holds), any thread count, and whichever way the selection computes a
// window's best partner (candidates on the host, or the whole profile).
#include <algorithm>
#include <cmath>
#include <random>

#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "check.h"
#include "motifs.h"

namespace {

using Pairs = std::vector<tsm::MotifPair>;

// Every pair (a, b), b − a >= excl, by (distance, a, b); then greedily the
// pairs whose windows are not within m of a member of an earlier one.
Pairs greedy_over_all_pairs(const std::vector<double>& x, int m, int64_t k, int64_t excl) {
    const int64_t n = (int64_t)x.size(), N = n - m + 1;
    TsExec ex = tsmt::cpu_exec(1);
    tsm::ZStats zs;
    tsm::zstats(x.data(), n, m, zs, &ex);
    Pairs all;
    for (int64_t a = 0; a < N; ++a)
        for (int64_t b = a + excl; b < N; ++b)
            all.push_back({a, b,
                           tsm::zdist(&x[a], zs.mean[a], zs.inv[a], zs.constant[a], &x[b], zs.mean[b], zs.inv[b],
                                      zs.constant[b], m)});
    std::sort(all.begin(), all.end(), [](const tsm::MotifPair& u, const tsm::MotifPair& v) {
        if (u.d != v.d) return u.d < v.d;
        return u.a != v.a ? u.a < v.a : u.b < v.b;
    });
    std::vector<uint8_t> blocked(N, 0);
    Pairs out;
    for (const auto& p : all) {
        if ((int64_t)out.size() >= k) break;
        if (blocked[p.a] || blocked[p.b]) continue;
        out.push_back(p);
        tsm::block_pair(blocked, p.a, p.b, m);
    }
    return out;
}

bool identical(const Pairs& got, const Pairs& want, const char* what) {
    bool ok = got.size() == want.size();
    for (size_t i = 0; ok && i < got.size(); ++i)
        ok = got[i].a == want[i].a && got[i].b == want[i].b && got[i].d == want[i].d;
    if (!ok)
        std::printf("    %s: %zu pairs, want %zu; first: (%lld,%lld,%.17g) want (%lld,%lld,%.17g)\n", what,
                    got.size(), want.size(), got.empty() ? -1LL : (long long)got[0].a,
                    got.empty() ? -1LL : (long long)got[0].b, got.empty() ? 0.0 : got[0].d,
                    want.empty() ? -1LL : (long long)want[0].a, want.empty() ? -1LL : (long long)want[0].b,
                    want.empty() ? 0.0 : want[0].d);
    return ok;
}

// Series the selection finds hard: smooth walks (dense distances), a periodic
// signal (every window has many near partners), exact repeats (ties at 0),
// constant stretches (constant windows), and noise.
std::vector<double> series_of_kind(int kind, int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0, 1);
    std::vector<double> x = tsmt::random_walk(n, seed);
    switch (kind) {
        case 1:  // a sine with a little noise
            for (int64_t i = 0; i < n; ++i) x[i] = std::sin(i * 0.21) + 1e-3 * g(rng);
            break;
        case 2:  // a walk with a stretch copied verbatim twice
            for (int64_t i = 0; i < 60 && 500 + i < n; ++i) x[300 + i] = x[500 + i] = x[40 + i];
            break;
        case 3:  // a walk with constant stretches
            for (int64_t i = 100; i < 160 && i < n; ++i) x[i] = 2.5;
            for (int64_t i = 400; i < 430 && i < n; ++i) x[i] = 2.5;
            break;
        case 4:  // noise on a large offset
            for (int64_t i = 0; i < n; ++i) x[i] = 1e6 + g(rng);
            break;
        default:
            break;
    }
    return x;
}

// The profile path's selection with the CPU profile of x (its neighbours
// give the lower bounds and the likely partners), on the scaled series.
Pairs selected(const std::vector<double>& x, int m, int64_t k, int64_t excl, int threads, int64_t whole_after) {
    TsExec ex = tsmt::cpu_exec(threads);
    TsProfile p;
    TsStatus st;
    tsm_matrix_profile(x.data(), (int64_t)x.size(), m, excl, 1, &ex, &p, &st);
    CHECK_EQ(st.code, (int)TS_OK);
    if (st.code != TS_OK) return {};
    const std::vector<double> xs = tsm::unit_scaled(x.data(), (int64_t)x.size());
    auto prof = tsm::make_cpu_profiler(xs.data(), (int64_t)x.size(), m, &ex);
    return tsm::select_top_motifs_from_profile(xs.data(), (int64_t)x.size(), m, p.index, k, excl, *prof,
                                               whole_after, &ex);
}

}  // namespace

TEST(motif_selection_equals_greedy_over_all_pairs_for_any_k) {
    std::mt19937_64 rng(1616);
    const int64_t ks[] = {1, 2, 5, 20, 2147483647};
    for (int t = 0; t < 20; ++t) {
        const int m = 3 + (int)(rng() % 22);
        const int64_t n = 200 + (int64_t)(rng() % 700);
        const auto x = series_of_kind(t % 5, n, 70 + t);
        const int64_t excls[] = {m, std::max(1, m / 2), 2 * m, 1};
        const int64_t excl = excls[t % 4];
        const int64_t N = n - m + 1;
        const auto all = greedy_over_all_pairs(x, m, 2147483647, excl);
        for (int64_t k : ks) {
            const Pairs want(all.begin(), all.begin() + std::min<int64_t>(k, (int64_t)all.size()));
            // host candidates (whole profiles past N/4 of them), on 1 and 2 threads
            CHECK(identical(selected(x, m, k, excl, 1, N / 4), want, "candidates, 1 thread"));
            CHECK(identical(selected(x, m, k, excl, 2, N / 4), want, "candidates, 2 threads"));
            // a whole distance profile for every window with a candidate beyond its
            // likely partners, and never one
            CHECK(identical(selected(x, m, k, excl, 2, 0), want, "whole profiles"));
            CHECK(identical(selected(x, m, k, excl, 1, N), want, "candidates only"));
        }
    }
}

namespace {

// A periodic signal of 1e-6 on an offset of 1e9: the values round to a few
// levels (an ulp of 1e9 is 1.2e-7), so many windows repeat exactly (pairs at
// distance 0, a few hundred values apart) and the profile bounds most windows
// by 0.
std::vector<double> quantised_offset_series(int64_t n) {
    std::vector<double> x(n);
    for (int64_t i = 0; i < n; ++i) x[i] = 1e9 + 1e-6 * (std::sin(i * 0.05) + 0.1 * std::sin(i * 1.7));
    return x;
}

}  // namespace

// Ties at distance 0 among most windows: the rows are the greedy rule's over
// every pair (ties to the smaller positions), bit for bit.
TEST(motif_selection_of_exact_repeats_on_a_large_offset_equals_greedy_over_all_pairs) {
    const int m = 100;
    const auto x = quantised_offset_series(2000);
    const int64_t N = (int64_t)x.size() - m + 1;
    for (int64_t excl : {(int64_t)m, (int64_t)m / 4 + 1}) {
        const auto all = greedy_over_all_pairs(x, m, 2147483647, excl);
        CHECK(all.size() > 3 && all[2].d == 0.0);  // the ties the test is about
        for (int64_t k : {1, 3, 20, 2147483647}) {
            const Pairs want(all.begin(), all.begin() + std::min<int64_t>(k, (int64_t)all.size()));
            CHECK(identical(selected(x, m, k, excl, 2, N / 4), want, "candidates, 2 threads"));
            CHECK(identical(selected(x, m, k, excl, 1, 0), want, "whole profiles"));
        }
    }
}

namespace {

// The same series at 25,000 values (the selection resolved every window bound
// by 0 before the first rank, N² distances, a minute on two CPU threads): the
// rows the exhaustive selection gave, and MK's, on ex's backend.
void check_exact_repeats_at_25000_values(TsExec ex) {
    const int m = 100;
    const auto x = quantised_offset_series(25000);
    const Pairs want = {{0, 14200, 0},   {100, 14300, 0}, {256, 633, 0},   {356, 14556, 0}, {456, 14656, 0},
                        {733, 14933, 0}, {833, 15033, 0}, {933, 15133, 0}, {1033, 1410, 0}, {1276, 15476, 0}};
    for (const char* method : {"matrix_profile", "mk"}) {
        TsMotifs mo;
        TsStatus st;
        tsm_motifs(x.data(), (int64_t)x.size(), m, 10, TS_ARG_NULL, method, 10, 1, &ex, &mo, &st);
        CHECK_EQ(st.code, (int)TS_OK);
        if (st.code != TS_OK) continue;
        Pairs got;
        for (int64_t r = 0; r < mo.count; ++r) got.push_back({mo.pos_a[r], mo.pos_b[r], mo.dist[r]});
        CHECK(identical(got, want, method));
    }
}

}  // namespace

TEST(motifs_of_exact_repeats_on_a_large_offset_at_25000_values) {
    check_exact_repeats_at_25000_values(tsmt::cpu_exec(2));
}

GPU_TEST(motifs_gpu_of_exact_repeats_on_a_large_offset_at_25000_values) {
    check_exact_repeats_at_25000_values(tsmt::gpu_exec());
}
