// Matrix profile in tiles (mp_tiles.cpp): the units cover the sweep exactly
// once, merged tiles equal the single call bit for bit (CPU; GPU tiles equal
// CPU tiles key for key), and partial profiles that do not belong together
// are refused.
#include <algorithm>
#include <cstring>
#include <string>

#include "api_matrix_profile.h"
#include "check.h"
#include "oracles.h"
#include "matrix_profile.h"

namespace {

using tsmt::Profile;

std::vector<int64_t> tile(const std::vector<double>& x, int m, int64_t excl, int t, int tiles, TsExec ex,
                          int normalize = 1) {
    TsPartialProfile pp;
    TsStatus st;
    tsm_matrix_profile_tile(x.data(), x.size(), m, excl, t, tiles, normalize, &ex, &pp, &st);
    CHECK_OK(st);
    return st.code == TS_OK ? std::vector<int64_t>(pp.data, pp.data + pp.words) : std::vector<int64_t>();
}

// Every tile of `tiles`, merged in the order given by `order` (a permutation
// of 1 .. tiles), on the exec `ex`.
std::vector<int64_t> merged_tiles(const std::vector<double>& x, int m, int64_t excl, int tiles, TsExec ex,
                                  const std::vector<int>& order, int normalize = 1) {
    std::vector<int64_t> acc;
    for (int t : order) {
        std::vector<int64_t> part = tile(x, m, excl, t, tiles, ex, normalize);
        if (acc.empty()) {
            acc = part;
            continue;
        }
        TsStatus st;
        tsm_matrix_profile_merge(acc.data(), acc.size(), part.data(), part.size(), &st);
        CHECK_OK(st);
    }
    return acc;
}

Profile from_tiles(const std::vector<double>& x, const std::vector<int64_t>& merged, TsExec ex, TsStatus* st,
                   int32_t* normalize = nullptr) {
    TsProfile p;
    int32_t m = 0, norm = 1;
    int64_t excl = 0;
    tsm_matrix_profile_from_tiles(x.data(), x.size(), merged.data(), merged.size(), &ex, &p, &m, &excl, &norm, st);
    if (normalize) *normalize = norm;
    return tsmt::to_profile(p, *st);
}

std::vector<int> one_to(int tiles, bool reversed) {
    std::vector<int> v(tiles);
    for (int t = 0; t < tiles; ++t) v[t] = reversed ? tiles - t : t + 1;
    return v;
}

// Bit for bit: the same neighbours and the same distance bits.
void expect_identical(const Profile& a, const Profile& b, const char* what) {
    CHECK_EQ(a.dist.size(), b.dist.size());
    if (a.dist.size() != b.dist.size()) return;
    int64_t bad = 0;
    for (size_t i = 0; i < a.dist.size(); ++i)
        if (a.index[i] != b.index[i] || std::memcmp(&a.dist[i], &b.dist[i], sizeof(double)) != 0) {
            if (++bad <= 3)
                std::printf("    %s: window %zu: %.17g @ %lld vs %.17g @ %lld\n", what, i, a.dist[i],
                            (long long)a.index[i], b.dist[i], (long long)b.index[i]);
        }
    CHECK_EQ(bad, 0);
}

// A random walk with glitches in several segments and a stretch whose
// amplitude drops by 10^6: the recurrence's guard (mp_detail.h) restarts
// and computes tiles directly there.
std::vector<double> glitchy_walk() {
    auto x = tsmt::random_walk(2 * 8192 + 2000, 1515);
    for (auto spike : {std::pair<int, double>{3000, 1e12}, {9001, -1e15}, {17000, 1e9}, {17003, 3e9}})
        x[spike.first] = spike.second;
    for (int i = 12000; i < 12600; ++i) x[i] = x[12000] + 1e-6 * (x[i] - x[12000]);
    return x;
}

// Pairs (r, r + k) in a range of units: rows of segment s, diagonals of band b.
int64_t pairs_of(const tsm::mp::UnitRange& u, int64_t count, int64_t excl) {
    const int64_t S = tsm::mp::segment_rows(count), W = tsm::mp::kTileDiags;
    int64_t pairs = 0;
    for (int64_t s = u.seg0; s <= u.seg1; ++s) {
        const int64_t b0 = s == u.seg0 ? u.band0 : 0;
        const int64_t b1 = s == u.seg1 ? u.band1 : tsm::mp::units_in_segment(count, excl, s);
        for (int64_t k = excl + b0 * W; k < std::min(excl + b1 * W, count); ++k)
            pairs += std::max<int64_t>(0, std::min(s * S + S, count - k) - s * S);
    }
    return pairs;
}

}  // namespace

TEST(mp_tiles_units_cover_the_sweep_once) {
    // units of every tile, concatenated, are all units, each once, in order
    for (int64_t count : {int64_t(100), int64_t(8192 * 3 + 77), int64_t(50000)}) {
        for (int64_t excl : {int64_t(1), int64_t(26), int64_t(2000)}) {
            if (excl >= count) continue;
            const tsm::mp::UnitRange all = tsm::mp::all_units(count, excl);
            for (int tiles : {1, 2, 7, 64}) {
                int64_t seg = 0, band = 0;
                for (int t = 0; t < tiles; ++t) {
                    const tsm::mp::UnitRange r = tsm::mp::tile_units(count, excl, t, tiles);
                    CHECK(r.seg0 == seg && r.band0 == band);
                    CHECK(r.seg0 < r.seg1 || (r.seg0 == r.seg1 && r.band0 <= r.band1));
                    seg = r.seg1;
                    band = r.band1;
                }
                CHECK(seg == all.seg1 && band == all.band1);
            }
            // the units hold every pair (i, i + k), k >= excl, of the sweep
            const int64_t d = count - excl;
            CHECK_EQ(pairs_of(all, count, excl), d * (d + 1) / 2);
            CHECK_EQ(tsm::mp::units_in_segment(count, excl, all.seg1), 0);
        }
    }
}

TEST(mp_tiles_merged_equal_the_single_call_bit_for_bit) {
    // segments of 2,048 rows (segment_rows of 19,951 windows), several units per segment
    auto x = tsmt::random_walk(20000, 77);
    for (int64_t excl : {int64_t(13), int64_t(50)}) {
        const Profile single = tsmt::matrix_profile(x, 50, excl, tsmt::cpu_exec());
        for (int tiles : {1, 3, 40}) {  // 40: more tiles than units, some of them empty
            for (bool reversed : {false, true}) {
                TsStatus st;
                Profile p = from_tiles(x, merged_tiles(x, 50, excl, tiles, tsmt::cpu_exec(), one_to(tiles, reversed)),
                                       tsmt::cpu_exec(), &st);
                CHECK_OK(st);
                expect_identical(single, p, "tiles");
            }
        }
    }
}

TEST(mp_tiles_constant_windows_and_ties) {
    // constant stretches (the STUMPY rule in the finalisation) and exact repeats (ties to the smaller index)
    auto x = tsmt::random_walk(12000, 5);
    std::fill(x.begin() + 3000, x.begin() + 3400, 2.5);
    std::fill(x.begin() + 9000, x.begin() + 9300, 2.5);
    std::copy(x.begin() + 100, x.begin() + 600, x.begin() + 6000);
    const Profile single = tsmt::matrix_profile(x, 64, 17, tsmt::cpu_exec());
    TsStatus st;
    Profile p = from_tiles(x, merged_tiles(x, 64, 17, 5, tsmt::cpu_exec(), {3, 1, 5, 2, 4}), tsmt::cpu_exec(), &st);
    CHECK_OK(st);
    expect_identical(single, p, "constant windows and repeats");
}

TEST(mp_tiles_where_the_guard_restarts) {
    const auto x = glitchy_walk();
    for (int m : {3, 16}) {
        const int64_t excl = (m + 3) / 4 + 1;
        const Profile single = tsmt::matrix_profile(x, m, excl, tsmt::cpu_exec());
        for (int tiles : {3, 11}) {
            TsStatus st;
            Profile p = from_tiles(x, merged_tiles(x, m, excl, tiles, tsmt::cpu_exec(), one_to(tiles, true)),
                                   tsmt::cpu_exec(), &st);
            CHECK_OK(st);
            expect_identical(single, p, "glitchy walk");
        }
    }
}

TEST(mp_tiles_refuse_what_does_not_belong_together) {
    auto x = tsmt::random_walk(3000, 9);
    TsExec ex = tsmt::cpu_exec();
    TsStatus st;
    auto is_22023 = [&](const TsStatus& s) { return s.code == TS_INVALID_ARGUMENT && std::string(s.sqlstate) == "22023"; };
    TsPartialProfile pp;
    CHECK(tsm_matrix_profile_tile(x.data(), x.size(), 50, 13, 0, 4, 1, &ex, &pp, &st) != TS_OK && is_22023(st));
    CHECK(tsm_matrix_profile_tile(x.data(), x.size(), 50, 13, 5, 4, 1, &ex, &pp, &st) != TS_OK && is_22023(st));
    CHECK(tsm_matrix_profile_tile(x.data(), x.size(), 50, 13, 1, 0, 1, &ex, &pp, &st) != TS_OK && is_22023(st));
    CHECK(tsm_matrix_profile_tile(x.data(), x.size(), 2, 13, 1, 4, 1, &ex, &pp, &st) != TS_OK && is_22023(st));

    // a missing tile: named in the message
    std::vector<int64_t> three = merged_tiles(x, 50, 13, 4, ex, {1, 2, 4});
    from_tiles(x, three, ex, &st);
    CHECK(is_22023(st) && std::string(st.message).find("lack 1 of the 4 tiles: 3") != std::string::npos);
    // tiles of another m, exclusion or number of tiles do not merge
    for (auto other : {tile(x, 40, 13, 3, 4, ex), tile(x, 50, 14, 3, 4, ex), tile(x, 50, 13, 3, 5, ex)}) {
        std::vector<int64_t> acc = three;
        tsm_matrix_profile_merge(acc.data(), acc.size(), other.data(), other.size(), &st);
        CHECK(is_22023(st));
    }
    // another series: of another length, or other values
    std::vector<int64_t> all = merged_tiles(x, 50, 13, 4, ex, {1, 2, 3, 4});
    std::vector<double> shorter(x.begin(), x.end() - 1), changed = x;
    changed[1234] += 1e-9;
    from_tiles(shorter, all, ex, &st);
    CHECK(is_22023(st));
    from_tiles(changed, all, ex, &st);
    CHECK(is_22023(st) && std::string(st.message).find("other values") != std::string::npos);
    // not a partial profile at all, or one with a key that names no neighbour
    std::vector<int64_t> junk(all.size(), 7);
    from_tiles(x, junk, ex, &st);
    CHECK(is_22023(st));
    std::vector<int64_t> bad_key = all;
    bad_key.back() = 0;  // the last window has neighbours: a key must name one
    from_tiles(x, bad_key, ex, &st);
    CHECK(is_22023(st));
    from_tiles(x, all, ex, &st);
    CHECK_OK(st);
}

// ---- GPU tiles ---------------------------------------------------------------

GPU_TEST(mp_tiles_gpu_keys_equal_cpu_keys) {
    // the GPU sweep of each tile gives the CPU's keys, word for word, and
    // merged GPU tiles finished on the GPU equal the GPU's single call; also
    // on a glitchy walk, where the guard works
    auto x = tsmt::random_walk(40000, 31);
    for (int64_t excl : {int64_t(26), int64_t(100)}) {
        for (int tiles : {1, 5, 64}) {
            for (int t = 1; t <= tiles; t += std::max(1, tiles / 4)) {
                std::vector<int64_t> c = tile(x, 100, excl, t, tiles, tsmt::cpu_exec());
                std::vector<int64_t> g = tile(x, 100, excl, t, tiles, tsmt::gpu_exec());
                CHECK(c == g);
            }
        }
        const Profile single = tsmt::matrix_profile(x, 100, excl, tsmt::gpu_exec());
        TsStatus st;
        Profile p = from_tiles(x, merged_tiles(x, 100, excl, 6, tsmt::gpu_exec(), one_to(6, true)),
                               tsmt::gpu_exec(), &st);
        CHECK_OK(st);
        expect_identical(single, p, "GPU tiles");
    }
    // where the guard restarts and computes tiles directly (on the GPU: direct_tiles_kernel, per tile)
    const auto w = glitchy_walk();
    for (int tiles : {1, 7}) {
        for (int t = 1; t <= tiles; t += 3)
            CHECK(tile(w, 3, 2, t, tiles, tsmt::cpu_exec()) == tile(w, 3, 2, t, tiles, tsmt::gpu_exec()));
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), 0);
}

TEST(mp_tiles_raw_values_merge_to_the_single_call) {
    std::vector<double> x = tsmt::random_walk(30000, 77);
    x[12000] = 1e9;
    for (int tiles : {1, 3, 7}) {
        const std::vector<int64_t> merged = merged_tiles(x, 40, 11, tiles, tsmt::cpu_exec(), one_to(tiles, true), 0);
        TsStatus st;
        int32_t normalize = 1;
        const Profile p = from_tiles(x, merged, tsmt::cpu_exec(), &st, &normalize);
        CHECK_OK(st);
        CHECK_EQ(normalize, 0);
        expect_identical(p, tsmt::matrix_profile(x, 40, 11, tsmt::cpu_exec(), 0), "raw tiles");
    }
    // a raw tile and a z-normalised tile of the same series do not merge
    std::vector<int64_t> a = tile(x, 40, 11, 1, 2, tsmt::cpu_exec(), 0), b = tile(x, 40, 11, 2, 2, tsmt::cpu_exec(), 1);
    TsStatus st;
    CHECK(tsm_matrix_profile_merge(a.data(), a.size(), b.data(), b.size(), &st) != TS_OK);
    CHECK(std::string(st.message).find("distances") != std::string::npos);
}

GPU_TEST(mp_tiles_raw_values_gpu_equals_cpu) {
    std::vector<double> x = tsmt::random_walk(40000, 78);
    for (int t = 1; t <= 3; ++t)
        CHECK(tile(x, 64, 17, t, 3, tsmt::gpu_exec(), 0) == tile(x, 64, 17, t, 3, tsmt::cpu_exec(), 0));
}
