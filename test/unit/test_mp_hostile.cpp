// Matrix profile and ts_match on hostile inputs (issue #15): a glitch spike,
// any power-of-two scale, ±1e308 and subnormal values, a large offset.  The
// oracle is a brute-force scan in long double: every window z-normalised
// directly (relative to its first value, two-pass mean), the distance of
// every admissible pair, the minimum.  GPU = CPU bit for bit on all of them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "check.h"
#include "oracles.h"
#include "mp_detail.h"
#include "sliding_detail.h"

namespace {

using tsmt::Profile;
using tsmt::ZWindows;

int64_t stumpy_excl(int m) { return (m + 3) / 4 + 1; }

// Windows `which` (all when empty) against the oracle: a finite distance within
// rel of the nearest one's (or 1e-14·m near 0, where the z-values' own rounding
// decides: windows that repeat exactly come out at ~1e-15), and a neighbour at
// that distance.  Returns how many fail.
int against_oracle(const std::vector<double>& x, int m, int64_t excl, const Profile& got, double rel,
                   const char* what, std::vector<int64_t> which = {}) {
    const ZWindows o(x, m);
    if (which.empty())
        for (int64_t i = 0; i < (int64_t)got.dist.size(); ++i) which.push_back(i);
    int bad = 0;
    for (int64_t i : which) {
        const double want = (double)o.nearest(i, excl), tol = rel * want + 1e-14 * m;
        const int64_t j = got.index[i];
        const bool ok = std::isfinite(got.dist[i]) && std::fabs(got.dist[i] - want) <= tol && j >= 0 &&
                        std::llabs(j - i) >= excl && std::fabs((double)o.d(i, j) - want) <= tol;
        if (!ok && ++bad <= 5)
            std::printf("    %s: window %lld: %.17g @ %lld, oracle %.17g (pair's own %.17g)\n", what, (long long)i,
                        got.dist[i], (long long)j, want, j >= 0 ? (double)o.d(i, j) : NAN);
    }
    return bad;
}

// The signal: sin(0.3 i) + 0.1 sin(1.7 i), i = 1 .. n.
std::vector<double> signal(int n) {
    std::vector<double> x(n);
    for (int i = 1; i <= n; ++i) x[i - 1] = std::sin(i * 0.3) + 0.1 * std::sin(i * 1.7);
    return x;
}

// 2^k·v, checked exact (every value comes back).
std::vector<double> times_pow2(const std::vector<double>& v, int k) {
    std::vector<double> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
        out[i] = std::ldexp(v[i], k);
        CHECK(std::ldexp(out[i], -k) == v[i]);
    }
    return out;
}

std::vector<double> with_spikes(std::vector<double> x, const std::vector<std::pair<int, double>>& spikes) {
    for (auto& s : spikes) x[s.first] = s.second;
    return x;
}

// A long random walk with glitches in several segments and stats chunks, and
// a stretch whose amplitude drops by 10^6 (the recurrence's error from before
// would dwarf its co-moments).
std::vector<double> glitchy_walk() {
    auto x = tsmt::random_walk(2 * 8192 + 2000, 1515);
    x = with_spikes(x, {{3000, 1e12}, {9001, -1e15}, {17000, 1e9}, {17003, 3e9}});
    for (int i = 12000; i < 12600; ++i) x[i] = x[12000] + 1e-6 * (x[i] - x[12000]);
    return x;
}

// The windows checked on glitchy_walk: around each glitch and the quiet
// stretch, and evenly spaced ones.
std::vector<int64_t> glitchy_windows(int64_t count, int m) {
    std::vector<int64_t> w;
    for (int64_t c : {3000, 9001, 12000, 12600, 17000})
        for (int64_t i = c - m - 3; i <= c + 4; i += 3) w.push_back(i);
    for (int64_t i = 17; i < count; i += 397) w.push_back(i);
    return w;
}

// A random walk with glitches of ±10^9 .. 10^15 times its range at random
// places, a third of them at the start of a stats block (a multiple of
// kStatsBlock = 4096: the reference value of the block's window statistics),
// of a stats chunk (a multiple of kStatsChunkMin, which every chunk is) or of a segment (a multiple of
// kSegRows, which every segment_rows is).
std::vector<double> walk_with_random_spikes(std::mt19937_64& rng, int64_t n, std::vector<int64_t>* spikes) {
    auto x = tsmt::random_walk(n, rng());
    const double range = *std::max_element(x.begin(), x.end()) - *std::min_element(x.begin(), x.end());
    std::uniform_real_distribution<double> decade(9, 15);
    std::uniform_int_distribution<int64_t> anywhere(0, n - 1);
    std::uniform_int_distribution<int> how(0, 8), count(1, 3);
    for (int s = count(rng); s > 0; --s) {
        const int kind = how(rng);
        const int64_t unit = kind == 0 ? tsm::kStatsBlock : kind == 1 ? tsm::kStatsChunkMin : kind == 2 ? tsm::mp::kSegRows : 1;
        const int64_t at = anywhere(rng) / unit * unit;
        x[at] = (how(rng) % 2 ? 1 : -1) * std::pow(10.0, decade(rng)) * range;
        spikes->push_back(at);
    }
    return x;
}

// The windows a spike could disturb (around each spike and each block start),
// evenly spaced ones and random ones.
std::vector<int64_t> windows_to_check(std::mt19937_64& rng, int64_t count, int m, const std::vector<int64_t>& spikes) {
    std::vector<int64_t> w;
    auto around = [&](int64_t c) {
        for (int64_t i = std::max<int64_t>(0, c - m - 2); i <= std::min(count - 1, c + 3); ++i) w.push_back(i);
    };
    for (int64_t s : spikes) around(s);
    for (int64_t b = 4096; b < count; b += 4096) around(b);
    for (int64_t i = 11; i < count; i += count / 40) w.push_back(i);
    std::uniform_int_distribution<int64_t> any(0, count - 1);
    for (int k = 0; k < 40; ++k) w.push_back(any(rng));
    std::sort(w.begin(), w.end());
    w.erase(std::unique(w.begin(), w.end()), w.end());
    return w;
}

}  // namespace

TEST(mp_glitch_leaves_other_windows_exact) {
    // the repro: n = 400, m = 10, one value at position 300 replaced
    const auto x = signal(400);
    const Profile clean = tsmt::matrix_profile(x, 10, stumpy_excl(10), tsmt::cpu_exec());
    CHECK_NEAR(clean.dist[49], 0.13456211615479, 1e-13);
    CHECK_NEAR(clean.dist[99], 0.11488651275325, 1e-13);
    for (double s : {1e9, 1e15, -1e15, 1e20, 1e100, 1e300}) {
        const auto y = with_spikes(x, {{299, s}});
        const Profile got = tsmt::matrix_profile(y, 10, stumpy_excl(10), tsmt::cpu_exec());
        CHECK_EQ(against_oracle(y, 10, stumpy_excl(10), got, 1e-9, "spike"), 0);
        for (int64_t i : {49, 99, 149, 199}) {  // positions 50, 100, 150, 200
            CHECK_NEAR(got.dist[i], clean.dist[i], 1e-9 * clean.dist[i]);
            CHECK_EQ(got.index[i], clean.index[i]);
        }
    }
}

TEST(mp_glitch_on_a_random_walk_changes_no_far_neighbour) {
    const auto x = tsmt::random_walk(3000, 1501);
    const int m = 20;
    const int64_t excl = stumpy_excl(m), spike = 1500;
    const Profile clean = tsmt::matrix_profile(x, m, excl, tsmt::cpu_exec());
    for (double s : {1e9, 1e15}) {
        const auto y = with_spikes(x, {{spike, s * 40}});
        const Profile got = tsmt::matrix_profile(y, m, excl, tsmt::cpu_exec());
        CHECK_EQ(against_oracle(y, m, excl, got, 1e-9, "walk with a spike"), 0);
        // the windows that hold no spike and whose neighbours (clean, and now) hold none keep theirs
        int far = 0, moved = 0;
        for (int64_t i = 0; i < (int64_t)got.dist.size(); ++i) {
            const auto holds = [&](int64_t w) { return w <= spike && spike < w + m; };
            if (holds(i) || holds(clean.index[i]) || holds(got.index[i])) continue;
            ++far;
            if (got.index[i] != clean.index[i] && ++moved <= 3)
                std::printf("    window %lld: %.17g @ %lld, clean %.17g @ %lld\n", (long long)i, got.dist[i],
                            (long long)got.index[i], clean.dist[i], (long long)clean.index[i]);
        }
        CHECK(far > 2800);
        CHECK_EQ(moved, 0);
    }
}

TEST(mp_glitches_across_segments_match_the_oracle) {
    const auto x = glitchy_walk();
    const int m = 16;
    const Profile got = tsmt::matrix_profile(x, m, stumpy_excl(m), tsmt::cpu_exec(2));
    CHECK_EQ(against_oracle(x, m, stumpy_excl(m), got, 1e-9, "glitchy walk",
                            glitchy_windows(got.dist.size(), m)),
             0);
    CHECK(got == tsmt::matrix_profile(x, m, stumpy_excl(m), tsmt::cpu_exec(1)));
}

TEST(mp_glitch_at_a_stats_block_start_matches_the_oracle) {
    // a 2^16-point walk with 10^15 at 32768, the start of a stats block: the
    // block's windows took their statistics relative to the glitch, which
    // rounded their values to its ulp (0.125), and the profile's row of
    // window 65362 was 11.634 (the exact nearest neighbour: 9.934 at 28036)
    auto x = tsmt::random_walk(65536, 1);
    x[32768] = 1e15;
    const int m = 100;
    const Profile got = tsmt::matrix_profile(x, m, stumpy_excl(m), tsmt::cpu_exec());
    CHECK_NEAR(got.dist[65362], 9.9339024814528539, 1e-8);
    CHECK_EQ(got.index[65362], 28036);
    CHECK_NEAR(got.dist[35719], 7.375433140788102, 1e-8);  // in the glitch's block
    CHECK_EQ(got.index[35719], 62607);
    std::vector<int64_t> which;
    for (int64_t i = 65355; i < 65370; ++i) which.push_back(i);
    for (int64_t i = 32668; i < 36864; i += 97) which.push_back(i);
    CHECK_EQ(against_oracle(x, m, stumpy_excl(m), got, 1e-9, "10^15 at a block start", which), 0);
}

TEST(mp_random_glitches_in_random_walks_match_the_oracle) {
    // property: 1-3 glitches of ±10^9 .. 10^15 times the range, anywhere and
    // at block, chunk and segment starts, in walks of several lengths
    std::mt19937_64 rng(1515);
    std::uniform_int_distribution<int> pick_m(0, 3);
    for (int64_t n : {700, 3000, 9000, 17000}) {
        for (int trial = 0; trial < 3; ++trial) {
            std::vector<int64_t> spikes;
            const auto x = walk_with_random_spikes(rng, n, &spikes);
            const int m = std::vector<int>{8, 16, 50, 100}[pick_m(rng)];
            const int64_t excl = stumpy_excl(m);
            const Profile got = tsmt::matrix_profile(x, m, excl, tsmt::cpu_exec());
            const int bad = against_oracle(x, m, excl, got, 1e-9, "walk with random glitches",
                                           windows_to_check(rng, n - m + 1, m, spikes));
            if (bad) std::printf("    n = %lld, m = %d, trial %d: %d windows off\n", (long long)n, m, trial, bad);
            CHECK_EQ(bad, 0);
        }
    }
}

TEST(mp_power_of_two_scales_give_identical_rows) {
    // property: random series, offsets and scales 2^k, k in [−1000, 1000]
    std::mt19937_64 rng(2015);
    std::uniform_int_distribution<int> scale(-1000, 1000), pick(0, 2);
    for (int trial = 0; trial < 24; ++trial) {
        const double offset = std::vector<double>{0.0, 1e3, 1e9}[pick(rng)];
        auto base = trial % 2 ? tsmt::random_walk(600, 3000 + trial) : signal(600);
        for (auto& v : base) v = offset + v;
        const int m = 8 + 8 * pick(rng), k = scale(rng);
        const Profile want = tsmt::matrix_profile(base, m, stumpy_excl(m), tsmt::cpu_exec());
        const Profile got = tsmt::matrix_profile(times_pow2(base, k), m, stumpy_excl(m), tsmt::cpu_exec());
        if (!(got == want)) std::printf("    trial %d: offset %g, m = %d, 2^%d differs\n", trial, offset, m, k);
        CHECK(got == want);
    }
    const auto x = signal(500);
    CHECK_EQ(against_oracle(times_pow2(x, -1000), 10, 4, tsmt::matrix_profile(times_pow2(x, -1000), 10, 4, tsmt::cpu_exec()),
                            1e-9, "2^-1000"),
             0);
}

TEST(mp_extreme_magnitudes_are_finite_and_exact) {
    // ±1e308: the oracle; values spanning the whole range
    auto big = signal(500);
    for (auto& v : big) v *= 1.6e308;
    const Profile b = tsmt::matrix_profile(big, 10, 4, tsmt::cpu_exec());
    CHECK_EQ(against_oracle(big, 10, 4, b, 1e-9, "1.6e308 sine"), 0);
    auto alternating = signal(500);
    for (size_t i = 0; i < alternating.size(); ++i) alternating[i] = (i % 2 ? 1e308 : -1e308) + alternating[i] * 5e307;
    CHECK_EQ(against_oracle(alternating, 10, 4, tsmt::matrix_profile(alternating, 10, 4, tsmt::cpu_exec()), 1e-9, "±1e308"), 0);
    // subnormal values: integers times 2^-1074 give the integers' rows
    auto ints = tsmt::random_walk(700, 77);
    for (auto& v : ints) v = std::round(v * 1000);
    const Profile want = tsmt::matrix_profile(ints, 12, 4, tsmt::cpu_exec());
    CHECK(tsmt::matrix_profile(times_pow2(ints, -1074), 12, 4, tsmt::cpu_exec()) == want);
    CHECK_EQ(against_oracle(times_pow2(ints, -1074), 12, 4, want, 1e-9, "subnormal"), 0);
}

TEST(mp_large_offset_matches_the_oracle) {
    // 1e9 + a·signal, 40,000 points, m = 100: evenly spaced windows and the anomaly
    auto s = signal(40000);
    s[1999] += 0.8;
    for (double a : {1e-6, 1e-3}) {
        std::vector<double> x(s.size());
        for (size_t i = 0; i < s.size(); ++i) x[i] = 1e9 + a * s[i];
        const Profile got = tsmt::matrix_profile(x, 100, 100, tsmt::cpu_exec());
        std::vector<int64_t> which = {1900, 1944, 1945, 1950, 2000};
        for (int64_t i = 5; i < (int64_t)got.dist.size(); i += 1601) which.push_back(i);
        CHECK_EQ(against_oracle(x, 100, 100, got, 1e-9, a < 1e-4 ? "1e9 + 1e-6 signal" : "1e9 + 1e-3 signal", which),
                 0);
    }
}

// ---- ts_match ------------------------------------------------------------------

namespace {

struct Matches {
    std::vector<int64_t> pos;
    std::vector<double> dist;
    bool operator==(const Matches& o) const {
        return pos == o.pos && tsmt::same_bits(dist, o.dist);
    }
};

Matches match(const std::vector<double>& x, const std::vector<double>& p, TsExec ex) {
    TsMatches r;
    TsStatus st;
    tsm_match(x.data(), x.size(), p.data(), p.size(), NAN, TS_ARG_NULL, p.size(), 1, &ex, &r, &st);
    CHECK_OK(st);
    Matches out;
    if (st.code == TS_OK) {
        out.pos.assign(r.pos, r.pos + r.count);
        out.dist.assign(r.dist, r.dist + r.count);
    }
    return out;
}

}  // namespace

TEST(match_extreme_magnitudes_and_scales) {
    // ts_match(ARRAY[1..8], '{1e308,-1e308,1e308}'): z = (1, −2, 1)/√2 against
    // the ramps (−1, 0, 1)·√(3/2), ρ = 0, so every distance is √6 (not the flat 1.732)
    const Matches r = match({1, 2, 3, 4, 5, 6, 7, 8}, {1e308, -1e308, 1e308}, tsmt::cpu_exec());
    CHECK_EQ(r.pos.size(), 2u);
    for (double d : r.dist) CHECK_NEAR(d, std::sqrt(6.0), 1e-12);
    // series and pattern scaled apart by powers of two give the same rows
    auto x = tsmt::random_walk(3000, 15);
    for (auto& v : x) v = std::ldexp(std::round(std::ldexp(v, 20)), -20);  // bits down to 2^-20: 2^k·x exact for k ≥ −1054
    std::vector<double> p(x.begin() + 700, x.begin() + 764);
    const Matches want = match(x, p, tsmt::cpu_exec());
    CHECK_EQ(want.pos[0], 700);
    CHECK_EQ(want.dist[0], 0.0);
    for (int kx : {-1054, -600, 0, 700, 1000})
        for (int kp : {-1054, -3, 950}) CHECK(match(times_pow2(x, kx), times_pow2(p, kp), tsmt::cpu_exec()) == want);
}

// ---- GPU = CPU, bit for bit ---------------------------------------------------------

namespace {
// One window of both profiles, for the report of a difference.
void print_window(const Profile& c, const Profile& g, int64_t i) {
    if (i < 0 || i >= (int64_t)c.dist.size() || i >= (int64_t)g.dist.size()) return;
    std::printf("      window %lld: CPU %.17g @ %lld, GPU %.17g @ %lld\n", (long long)i, c.dist[i],
                (long long)c.index[i], g.dist[i], (long long)g.index[i]);
}

void gpu_equals_cpu(const std::vector<double>& x, int m, int64_t excl, const char* what) {
    const Profile c = tsmt::matrix_profile(x, m, excl, tsmt::cpu_exec()), g = tsmt::matrix_profile(x, m, excl, tsmt::gpu_exec());
    if (!(c == g) && c.dist.size() == g.dist.size()) {
        // where they differ: how many windows (by index, by distance bits only), the first one and its neighbours
        int64_t first = -1, by_index = 0, by_bits = 0;
        for (int64_t i = 0; i < (int64_t)c.dist.size(); ++i) {
            const bool index_differs = c.index[i] != g.index[i];
            const bool bits_differ = std::memcmp(&c.dist[i], &g.dist[i], sizeof(double)) != 0;
            by_index += index_differs;
            by_bits += !index_differs && bits_differ;
            if ((index_differs || bits_differ) && first < 0) first = i;
        }
        std::printf("    %s (m = %d, n = %zu): GPU and CPU differ in %lld windows by neighbour, %lld more by "
                    "distance bits only; the first:\n",
                    what, m, x.size(), (long long)by_index, (long long)by_bits);
        for (int64_t i = first - 1; i <= first + 1; ++i) print_window(c, g, i);
    } else if (!(c == g)) {
        std::printf("    %s (m = %d): GPU and CPU differ in size\n", what, m);
    }
    CHECK(c == g);
}
}  // namespace

GPU_TEST(mp_gpu_equals_cpu_on_hostile_inputs) {
    for (double s : {1e9, 1e15, 1e300}) gpu_equals_cpu(with_spikes(signal(400), {{299, s}}), 10, 4, "spike");
    const auto w = glitchy_walk();
    for (int m : {3, 16, 100}) gpu_equals_cpu(w, m, stumpy_excl(m), "glitchy walk");
    gpu_equals_cpu(tsmt::random_walk(20000, 5), 3, 2, "random walk m = 3 (restarts)");
    auto big = signal(5000);
    for (auto& v : big) v *= 1.6e308;
    gpu_equals_cpu(big, 10, 4, "1.6e308");
    auto coarse = signal(5000);  // multiples of 2^-12: ×2^-1060 keeps every bit (subnormal, ≥ 2^-1072)
    for (auto& v : coarse) v = std::ldexp(std::round(std::ldexp(v, 12)), -12);
    gpu_equals_cpu(times_pow2(coarse, -1060), 10, 4, "subnormal");
    auto s = signal(40000);
    for (auto& v : s) v = 1e9 + 1e-6 * v;
    gpu_equals_cpu(s, 100, 100, "1e9 + 1e-6 signal");
    auto block = tsmt::random_walk(65536, 1);
    block[32768] = 1e15;
    gpu_equals_cpu(block, 100, stumpy_excl(100), "10^15 at a block start");
    std::mt19937_64 rng(1516);
    for (int64_t n : {3000, 17000}) {
        std::vector<int64_t> spikes;
        const auto x = walk_with_random_spikes(rng, n, &spikes);
        for (int m : {8, 100}) gpu_equals_cpu(x, m, stumpy_excl(m), "walk with random glitches");
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

GPU_TEST(match_gpu_equals_cpu_on_extreme_magnitudes) {
    auto x = tsmt::random_walk(5000, 16);
    for (auto& v : x) v = std::ldexp(std::round(std::ldexp(v, 20)), -20);
    std::vector<double> p(x.begin() + 100, x.begin() + 164);
    for (int k : {-1054, 0, 1000}) {
        const auto xs = times_pow2(x, k);
        CHECK(match(xs, p, tsmt::cpu_exec()) == match(xs, p, tsmt::gpu_exec()));
    }
    CHECK(match({1, 2, 3, 4, 5, 6, 7, 8}, {1e308, -1e308, 1e308}, tsmt::gpu_exec()) ==
          match({1, 2, 3, 4, 5, 6, 7, 8}, {1e308, -1e308, 1e308}, tsmt::cpu_exec()));
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}
