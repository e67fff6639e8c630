// The AB-join (tsm_matrix_profile_ab, discords and motifs of A against B):
// CPU against a brute-force oracle (unequal lengths both ways, several
// segments, constant windows, an exclusion zone, hostile scales of A and B;
// raw values; gaps at the start, middle, end, every k-th value and
// everywhere, in A, in B and in both, with either distance), A = B against
// the self-join bit for bit (z-normalised, raw, with gaps), errors; GPU = CPU
// bit for bit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "api_discords.h"
#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "check.h"
#include "oracles.h"

namespace {

using tsmt::Profile;
using tsmt::to_profile;
using tsmt::ZWindows;

Profile ab(const std::vector<double>& a, const std::vector<double>& b, int m, int64_t excl, TsExec ex,
           bool raw = false) {
    TsProfile p;
    TsStatus st;
    tsm_matrix_profile_ab(a.data(), a.size(), b.data(), b.size(), m, excl, raw ? 0 : 1, &ex, &p, &st);
    CHECK_OK(st);
    return to_profile(p, st);
}

Profile self(const std::vector<double>& x, int m, int64_t excl, TsExec ex, bool raw = false) {
    TsProfile p;
    TsStatus st;
    tsm_matrix_profile(x.data(), x.size(), m, excl, raw ? 0 : 1, &ex, &p, &st);
    CHECK_OK(st);
    return to_profile(p, st);
}

// Every window of A against the oracle: its distance within rel of the
// nearest one's (z-normalised: 1e-14·m near 0), a neighbour at that
// distance, admissible, without a gap; no neighbour (+inf, −1) exactly when
// the oracle has none.  How many fail.
int against_oracle(const std::vector<double>& a, const std::vector<double>& b, int m, int64_t excl,
                   const Profile& got, double rel, const char* what, bool raw = false) {
    const ZWindows za(a, m, raw), zb(b, m, raw);
    int bad = 0;
    CHECK_EQ((int64_t)got.dist.size(), za.count());
    for (int64_t i = 0; i < (int64_t)got.dist.size() && i < za.count(); ++i) {
        const double want = (double)za.nearest(i, zb, excl), tol = rel * want + (raw ? 0.0 : 1e-14 * m);
        const int64_t j = got.index[i];
        bool ok;
        if (std::isinf(want))
            ok = std::isinf(got.dist[i]) && j == -1;
        else
            ok = std::fabs(got.dist[i] - want) <= tol && j >= 0 && j < zb.count() &&
                 std::llabs(j - i) >= excl && std::fabs((double)za.d(i, zb, j) - want) <= tol;
        if (!ok && ++bad <= 5)
            std::printf("    %s: window %lld: %.17g @ %lld, oracle %.17g\n", what, (long long)i, got.dist[i],
                        (long long)j, want);
    }
    return bad;
}

std::vector<double> scaled(const std::vector<double>& v, int k, double offset) {
    std::vector<double> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = std::ldexp(v[i], k) + offset;
    return out;
}

// The cases the GPU test repeats: (A, B, m, exclusion).
struct Case {
    std::vector<double> a, b;
    int m;
    int64_t excl;
    std::string what;
};

std::vector<Case> cases() {
    std::vector<Case> c;
    c.push_back({tsmt::random_walk(700, 1), tsmt::random_walk(1300, 2), 16, 0, "A shorter than B"});
    c.push_back({tsmt::random_walk(1300, 3), tsmt::random_walk(700, 4), 16, 0, "A longer than B"});
    c.push_back({tsmt::random_walk(9000, 5), tsmt::random_walk(300, 6), 8, 0, "A over two segments"});
    c.push_back({tsmt::random_walk(300, 7), tsmt::random_walk(9000, 8), 8, 0, "B over two segments"});
    c.push_back({tsmt::random_walk(900, 9), tsmt::random_walk(1100, 10), 32, 40, "exclusion zone 40"});
    c.push_back({tsmt::random_walk(500, 11), tsmt::random_walk(12, 12), 12, 0, "B of one window"});
    c.push_back({tsmt::random_walk(3, 13), tsmt::random_walk(400, 14), 3, 0, "A of one window, m = 3"});
    c.push_back({tsmt::random_walk(200, 15), tsmt::random_walk(150, 16), 20, 500, "no admissible pair"});
    auto ca = tsmt::random_walk(1200, 17), cb = tsmt::random_walk(1000, 18);
    for (int i = 100; i < 180; ++i) ca[i] = 5.0;
    for (int i = 1100; i < 1200; ++i) ca[i] = -2.0;
    for (int i = 300; i < 360; ++i) cb[i] = 1.5;
    c.push_back({ca, cb, 25, 0, "constant windows in A and B"});
    c.push_back({ca, tsmt::random_walk(800, 19), 25, 0, "constant windows in A alone"});
    c.push_back({tsmt::random_walk(800, 20), cb, 25, 3, "constant windows in B alone"});
    // hostile: A at 2^-900 with an offset, B at 2^700, a glitch of 1e9 in B
    auto hb = tsmt::random_walk(1500, 21);
    hb[700] += 1e9;
    c.push_back({scaled(tsmt::random_walk(1400, 22), -900, 0), scaled(hb, 700, 0), 10, 0, "hostile scales"});
    c.push_back({scaled(tsmt::random_walk(1400, 23), 0, 1e8), tsmt::random_walk(1000, 24), 50, 0, "offset 1e8 in A"});
    // the ends of the float64 range: A at 2^1010, B subnormal
    c.push_back({scaled(tsmt::random_walk(900, 25), 1010, 0), scaled(tsmt::random_walk(700, 26), -1060, 0), 16, 0,
                 "A at 2^1010 (1e306), B subnormal"});
    return c;
}

}  // namespace

TEST(mp_ab_cpu_matches_brute_force) {
    for (const Case& c : cases()) {
        const Profile got = ab(c.a, c.b, c.m, c.excl, tsmt::cpu_exec(2));
        CHECK_EQ(against_oracle(c.a, c.b, c.m, c.excl, got, 1e-9, c.what.c_str()), 0);
    }
}

TEST(mp_ab_threads_and_powers_of_two_give_the_same_bits) {
    const auto a = tsmt::random_walk(2000, 31), b = tsmt::random_walk(1700, 32);
    const Profile one = ab(a, b, 20, 0, tsmt::cpu_exec(1));
    CHECK(ab(a, b, 20, 0, tsmt::cpu_exec(4)) == one);
    // each series rescaled by its own power of two: the same rows, bit for bit
    CHECK(ab(scaled(a, 300, 0), scaled(b, -200, 0), 20, 0, tsmt::cpu_exec(2)) == one);
}

TEST(mp_ab_of_a_series_with_itself_is_the_self_join) {
    auto glitchy = tsmt::random_walk(3000, 41);
    glitchy[1500] = 1e12;  // the guard restarts and computes tiles directly
    auto flat = tsmt::random_walk(2500, 42);
    for (int i = 400; i < 520; ++i) flat[i] = 3.0;
    const std::vector<std::pair<std::vector<double>, int>> series = {
        {tsmt::random_walk(2 * 8192 + 700, 43), 8}, {glitchy, 10}, {flat, 30}, {tsmt::random_walk(600, 44), 3}};
    for (const auto& s : series)
        for (int64_t excl : {int64_t(1), int64_t((s.second + 3) / 4 + 1), int64_t(s.second)}) {
            const Profile sj = self(s.first, s.second, excl, tsmt::cpu_exec(2));
            CHECK(ab(s.first, s.first, s.second, excl, tsmt::cpu_exec(2)) == sj);
        }
    // exclusion 0: every window's nearest window is itself (or, constant, the first constant one) at 0
    const Profile z = ab(flat, flat, 30, 0, tsmt::cpu_exec(2));
    int bad = 0;
    for (size_t i = 0; i < z.dist.size(); ++i) bad += z.dist[i] != 0.0 || (z.index[i] != (int64_t)i && z.index[i] != 400);
    CHECK_EQ(bad, 0);
}

TEST(mp_ab_discords_and_motifs_follow_the_profile) {
    // one periodic process with noise; A holds a burst that B does not
    auto a = tsmt::gaussian(3000, 51, 0.0, 0.05), b = tsmt::gaussian(2000, 52, 0.0, 0.05);
    for (size_t i = 0; i < a.size(); ++i) a[i] += std::sin(i * 0.125);
    for (size_t i = 0; i < b.size(); ++i) b[i] += std::sin(i * 0.125);
    for (int i = 2000; i < 2040; ++i) a[i] += 2 * std::sin(i * 0.9);
    const int m = 40;
    const Profile p = ab(a, b, m, 0, tsmt::cpu_exec(2));
    TsExec ex = tsmt::cpu_exec(2);
    TsStatus st;
    TsDiscords d;
    tsm_discords_ab(a.data(), a.size(), b.data(), b.size(), m, 3, NAN, 0, 1, &ex, &d, &st);
    CHECK_OK(st);
    CHECK_EQ(d.count, 3);
    CHECK(d.pos[0] > 2000 - m && d.pos[0] < 2040);
    for (int64_t r = 0; r < d.count; ++r) {
        CHECK_EQ(d.dist[r], p.dist[d.pos[r]]);
        CHECK_EQ(d.neighbor[r], p.index[d.pos[r]]);
        for (int64_t q = 0; q < r; ++q) CHECK(std::llabs(d.pos[r] - d.pos[q]) >= m && d.dist[q] >= d.dist[r]);
    }
    CHECK_EQ(d.pos[0], (int64_t)(std::max_element(p.dist.begin(), p.dist.end()) - p.dist.begin()));
    TsMotifs mo;
    tsm_motifs_ab(a.data(), a.size(), b.data(), b.size(), m, 2, 0, 1, &ex, &mo, &st);
    CHECK_OK(st);
    CHECK_EQ(mo.count, 2);
    CHECK_EQ(mo.pos_a[0], (int64_t)(std::min_element(p.dist.begin(), p.dist.end()) - p.dist.begin()));
    CHECK_EQ(mo.pos_b[0], p.index[mo.pos_a[0]]);
    CHECK(mo.dist[1] >= mo.dist[0] && std::llabs(mo.pos_a[1] - mo.pos_a[0]) >= m);
    // range mode: every window at min_distance or more, overlapping ones included
    const double r = d.dist[2];
    tsm_discords_ab(a.data(), a.size(), b.data(), b.size(), m, TS_ARG_NULL, r, 0, 1, &ex, &d, &st);
    CHECK_OK(st);
    CHECK_EQ(d.count, (int64_t)std::count_if(p.dist.begin(), p.dist.end(), [&](double v) { return v >= r; }));
}

TEST(mp_ab_errors) {
    const auto a = tsmt::random_walk(100, 61), b = tsmt::random_walk(20, 62);
    auto code = [&](const std::vector<double>& x, const std::vector<double>& y, int m, int64_t excl, std::string* hint,
                    int normalize = 1) {
        TsExec ex = tsmt::cpu_exec();
        TsProfile p;
        TsStatus st;
        tsm_matrix_profile_ab(x.data(), x.size(), y.data(), y.size(), m, excl, normalize, &ex, &p, &st);
        if (hint) *hint = st.hint;
        return std::string(st.sqlstate);
    };
    std::string hint;
    CHECK_EQ(code(a, b, 21, 0, &hint), "22023");  // m > nb
    CHECK(hint.find("m <= 20") != std::string::npos);
    CHECK_EQ(code(b, a, 21, 0, &hint), "22023");  // m > na
    CHECK(hint.find("m <= 20") != std::string::npos);
    CHECK_EQ(code(a, b, 2, 0, nullptr), "22023");
    CHECK_EQ(code(a, b, 5, -1, nullptr), "22023");
    auto nan_a = a, inf_b = b;  // a NaN in A, an infinity in B: gaps, no error
    nan_a[0] = NAN;
    inf_b[b.size() - 1] = -INFINITY;
    CHECK_EQ(code(nan_a, b, 5, 0, nullptr), "00000");
    CHECK_EQ(code(a, inf_b, 5, 0, nullptr, 0), "00000");
    CHECK_EQ(code(a, b, 20, 0, nullptr), "00000");  // B of exactly one window
    // raw values: a distance past the float64 range is an error (as the self-join's)
    const auto huge = scaled(tsmt::random_walk(100, 63), 1015, 0);
    std::vector<double> neg(huge.size());
    for (size_t i = 0; i < huge.size(); ++i) neg[i] = -huge[i] - std::ldexp(1.0, 1023);
    CHECK_EQ(code(huge, neg, 10, 0, &hint, 0), "22003");
    CHECK(hint.find("normalized => true") != std::string::npos);
    CHECK_EQ(code(huge, neg, 10, 0, nullptr, 1), "00000");
    // exclusion TS_ARG_NULL (SQL NULL) is none: the rows of exclusion 0
    CHECK(ab(a, b, 5, TS_ARG_NULL, tsmt::cpu_exec()) == ab(a, b, 5, 0, tsmt::cpu_exec()));
}

// ---- raw values (normalize = 0: STUMPY's aamp(T_A, m, T_B, ignore_trivial=False))

// The raw cases: unequal lengths both ways, an exclusion zone, two segments,
// constant stretches (ordinary windows here), a large offset, A and B far apart.
std::vector<Case> raw_cases() {
    std::vector<Case> c;
    c.push_back({tsmt::random_walk(600, 101), tsmt::random_walk(1100, 102), 16, 0, "raw, A shorter than B"});
    c.push_back({tsmt::random_walk(1100, 103), tsmt::random_walk(600, 104), 16, 0, "raw, A longer than B"});
    c.push_back({tsmt::random_walk(9000, 105), tsmt::random_walk(250, 106), 8, 0, "raw, A over two segments"});
    c.push_back({tsmt::random_walk(250, 107), tsmt::random_walk(9000, 108), 8, 0, "raw, B over two segments"});
    c.push_back({tsmt::random_walk(800, 109), tsmt::random_walk(900, 110), 24, 30, "raw, exclusion zone 30"});
    auto fa = tsmt::random_walk(700, 111), fb = tsmt::random_walk(500, 112);
    std::fill(fa.begin() + 100, fa.begin() + 180, 4.0);
    std::fill(fb.begin() + 200, fb.begin() + 260, 4.0);
    std::fill(fb.begin() + 300, fb.begin() + 360, -1.0);
    c.push_back({fa, fb, 20, 0, "raw, constant windows"});
    c.push_back({scaled(tsmt::random_walk(900, 113), 0, 1e6), scaled(tsmt::random_walk(700, 114), 0, 1e6), 30, 0,
                 "raw, offset 1e6 in both"});
    c.push_back({tsmt::random_walk(500, 115), scaled(tsmt::random_walk(400, 116), 0, 50), 12, 0, "raw, B 50 above A"});
    return c;
}

TEST(mp_ab_raw_matches_brute_force) {
    for (const Case& c : raw_cases()) {
        const Profile got = ab(c.a, c.b, c.m, c.excl, tsmt::cpu_exec(2), true);
        CHECK_EQ(against_oracle(c.a, c.b, c.m, c.excl, got, 1e-9, c.what.c_str(), true), 0);
        CHECK(ab(c.a, c.b, c.m, c.excl, tsmt::cpu_exec(1), true) == got);
    }
    // raw and z-normalised differ where the level matters: B is A 1000 higher
    const auto a = tsmt::random_walk(400, 117);
    const auto b = scaled(a, 0, 1000);
    const Profile z = ab(a, b, 16, 0, tsmt::cpu_exec(2)), r = ab(a, b, 16, 0, tsmt::cpu_exec(2), true);
    int bad = 0;
    for (size_t i = 0; i < z.dist.size(); ++i) bad += !(z.dist[i] < 1e-6 && r.dist[i] > 100);
    CHECK_EQ(bad, 0);
}

TEST(mp_ab_raw_of_a_series_with_itself_is_the_raw_self_join) {
    auto glitchy = tsmt::random_walk(3000, 121);
    glitchy[1500] = 1e12;
    auto flat = tsmt::random_walk(2500, 122);
    std::fill(flat.begin() + 400, flat.begin() + 520, 3.0);
    const std::vector<std::pair<std::vector<double>, int>> series = {{tsmt::random_walk(2 * 8192 + 700, 123), 8},
                                                                     {glitchy, 10},
                                                                     {flat, 30},
                                                                     {scaled(tsmt::random_walk(600, 124), 0, 1e8), 3}};
    for (const auto& s : series)
        for (int64_t excl : {int64_t(1), int64_t((s.second + 3) / 4 + 1), int64_t(s.second)})
            CHECK(ab(s.first, s.first, s.second, excl, tsmt::cpu_exec(2), true) ==
                  self(s.first, s.second, excl, tsmt::cpu_exec(2), true));
}

// ---- gaps (NaN, ±Infinity): a window of A with one has no distance, a window of B with one is no neighbour

// x with gaps laid out as `layout` says.
std::vector<double> with_gaps(std::vector<double> x, const std::string& layout) {
    const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
    const int64_t n = (int64_t)x.size();
    if (layout == "start") x[0] = x[1] = nan;
    if (layout == "middle") {
        x[n / 2] = inf;
        x[n / 3] = nan;
    }
    if (layout == "end") x[n - 1] = -inf;
    if (layout == "every 13th")
        for (int64_t i = 4; i < n; i += 13) x[i] = nan;
    if (layout == "all") std::fill(x.begin(), x.end(), nan);
    return x;
}

const char* const kLayouts[] = {"none", "start", "middle", "end", "every 13th", "all"};

TEST(mp_ab_gaps_match_brute_force) {
    const auto a0 = tsmt::random_walk(500, 131), b0 = tsmt::random_walk(700, 132);
    for (const char* la : kLayouts)
        for (const char* lb : kLayouts)
            for (bool raw : {false, true}) {
                const auto a = with_gaps(a0, la), b = with_gaps(b0, lb);
                const std::string what = std::string("A: ") + la + ", B: " + lb + (raw ? " (raw)" : "");
                for (int64_t excl : {int64_t(0), int64_t(9)}) {
                    const Profile got = ab(a, b, 12, excl, tsmt::cpu_exec(2), raw);
                    CHECK_EQ(against_oracle(a, b, 12, excl, got, 1e-9, what.c_str(), raw), 0);
                    // and the other way round: B's windows against A's (B longer than A)
                    const Profile back = ab(b, a, 12, excl, tsmt::cpu_exec(2), raw);
                    CHECK_EQ(against_oracle(b, a, 12, excl, back, 1e-9, ("reversed " + what).c_str(), raw), 0);
                }
            }
}

TEST(mp_ab_gaps_of_a_series_with_itself_is_the_self_join) {
    const auto x0 = tsmt::random_walk(2 * 8192 + 300, 141);
    for (const char* layout : kLayouts)
        for (bool raw : {false, true}) {
            const auto x = with_gaps(x0, layout);
            CHECK(ab(x, x, 10, 3, tsmt::cpu_exec(2), raw) == self(x, 10, 3, tsmt::cpu_exec(2), raw));
        }
}

TEST(mp_ab_gaps_discords_and_motifs_leave_gap_windows_out) {
    auto a = tsmt::random_walk(900, 151);
    const auto b = with_gaps(tsmt::random_walk(800, 152), "middle");
    for (int i = 300; i < 340; ++i) a[i] += 3 * std::sin(i * 1.3);  // a discord of A, then a gap in it
    a[320] = std::nan("");
    const int m = 20;
    for (int normalize : {1, 0}) {
        const Profile p = ab(a, b, m, 0, tsmt::cpu_exec(2), normalize == 0);
        TsExec ex = tsmt::cpu_exec(2);
        TsStatus st;
        TsDiscords d;
        tsm_discords_ab(a.data(), a.size(), b.data(), b.size(), m, 5, NAN, 0, normalize, &ex, &d, &st);
        CHECK_OK(st);
        CHECK_EQ(d.count, 5);
        for (int64_t r = 0; r < d.count; ++r) {
            CHECK(d.pos[r] < 320 - m + 1 || d.pos[r] > 320);  // no window with the gap
            CHECK_EQ(d.dist[r], p.dist[d.pos[r]]);
            CHECK_EQ(d.neighbor[r], p.index[d.pos[r]]);
        }
        TsMotifs mo;
        tsm_motifs_ab(a.data(), a.size(), b.data(), b.size(), m, 3, 0, normalize, &ex, &mo, &st);
        CHECK_OK(st);
        CHECK_EQ(mo.count, 3);
        for (int64_t r = 0; r < mo.count; ++r) {
            CHECK(mo.pos_a[r] < 320 - m + 1 || mo.pos_a[r] > 320);
            CHECK(mo.pos_b[r] >= 0 && p.index[mo.pos_a[r]] == mo.pos_b[r]);
        }
        // all gaps in A or in B: no discords, no motifs, no error
        const auto none = with_gaps(a, "all");
        for (int side = 0; side < 2; ++side) {
            const auto &x = side ? a : none, &y = side ? none : b;
            tsm_discords_ab(x.data(), x.size(), y.data(), y.size(), m, 3, NAN, 0, normalize, &ex, &d, &st);
            CHECK_OK(st);
            CHECK_EQ(d.count, 0);
            tsm_discords_ab(x.data(), x.size(), y.data(), y.size(), m, TS_ARG_NULL, 0.0, 0, normalize, &ex, &d, &st);
            CHECK_OK(st);
            CHECK_EQ(d.count, 0);
            tsm_motifs_ab(x.data(), x.size(), y.data(), y.size(), m, 3, 0, normalize, &ex, &mo, &st);
            CHECK_OK(st);
            CHECK_EQ(mo.count, 0);
        }
    }
}

GPU_TEST(mp_ab_gpu_equals_cpu) {
    for (const Case& c : cases()) {
        const Profile cpu = ab(c.a, c.b, c.m, c.excl, tsmt::cpu_exec(2));
        const Profile gpu = ab(c.a, c.b, c.m, c.excl, tsmt::gpu_exec());
        if (!(gpu == cpu)) std::printf("    GPU != CPU: %s\n", c.what.c_str());
        CHECK(gpu == cpu);
    }
    // A = B on the GPU: the self-join's rows (GPU), bit for bit
    const auto x = tsmt::random_walk(2 * 8192 + 900, 71);
    CHECK(ab(x, x, 8, 3, tsmt::gpu_exec()) == self(x, 8, 3, tsmt::gpu_exec()));
    // long enough for several bands and segments of the GPU sweep, both ways
    const auto a = tsmt::random_walk(20000, 72), b = tsmt::random_walk(11000, 73);
    CHECK(ab(a, b, 64, 0, tsmt::gpu_exec()) == ab(a, b, 64, 0, tsmt::cpu_exec(2)));
    CHECK(ab(b, a, 64, 0, tsmt::gpu_exec()) == ab(b, a, 64, 0, tsmt::cpu_exec(2)));
}

GPU_TEST(mp_ab_raw_and_gaps_gpu_equal_cpu) {
    for (const Case& c : raw_cases()) {
        const bool same = ab(c.a, c.b, c.m, c.excl, tsmt::gpu_exec(), true) == ab(c.a, c.b, c.m, c.excl, tsmt::cpu_exec(2), true);
        if (!same) std::printf("    GPU != CPU: %s\n", c.what.c_str());
        CHECK(same);
    }
    const auto a0 = tsmt::random_walk(20000, 161), b0 = tsmt::random_walk(11000, 162);
    for (const char* la : kLayouts)
        for (const char* lb : {"none", "every 13th", "all"})
            for (bool raw : {false, true}) {
                const auto a = with_gaps(a0, la), b = with_gaps(b0, lb);
                const bool same = ab(a, b, 10, 0, tsmt::gpu_exec(), raw) == ab(a, b, 10, 0, tsmt::cpu_exec(2), raw) &&
                                  ab(b, a, 10, 7, tsmt::gpu_exec(), raw) == ab(b, a, 10, 7, tsmt::cpu_exec(2), raw);
                if (!same) std::printf("    GPU != CPU: A %s, B %s%s\n", la, lb, raw ? " (raw)" : "");
                CHECK(same);
            }
    // A = B on the GPU: the self-join's rows (GPU), raw, and with gaps
    const auto w = tsmt::random_walk(2 * 8192 + 900, 163);
    const auto x = with_gaps(w, "every 13th");
    CHECK(ab(w, w, 8, 3, tsmt::gpu_exec(), true) == self(w, 8, 3, tsmt::gpu_exec(), true));
    CHECK(ab(x, x, 8, 3, tsmt::gpu_exec(), true) == self(x, 8, 3, tsmt::gpu_exec(), true));
    CHECK(ab(x, x, 8, 3, tsmt::gpu_exec()) == self(x, 8, 3, tsmt::gpu_exec()));
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}
