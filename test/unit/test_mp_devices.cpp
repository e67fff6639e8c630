// One series' matrix profile split over several GPUs (tsmine.gpu_devices):
// the split of the units by pairs (CPU: the parts' keys, merged, are the whole
// sweep's keys bit for bit), and on a GPU the same device listed once, twice
// and three times (separate streams and memory) giving the same profile,
// discords and motifs, bit for bit, on ordinary and hostile series.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "api_discords.h"
#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "check.h"
#include "oracles.h"
#include "matrix_profile.h"

namespace {

using tsm::mp::UnitRange;

// Unit positions in the sweep's order (a segment's end is the next one's start).
bool before_or_at(int64_t s0, int64_t b0, int64_t s1, int64_t b1) { return s0 < s1 || (s0 == s1 && b0 <= b1); }

// The pairs of the units in r, counted one by one (the pair (row, row + k)
// exists when row + k < count).
int64_t pairs_of(const UnitRange& r, int64_t count, int64_t excl) {
    int64_t pairs = 0;
    for (int64_t s = 0, u; (u = tsm::mp::units_in_segment(count, excl, s)) > 0; ++s)
        for (int64_t b = 0; b < u; ++b) {
            if (!before_or_at(r.seg0, r.band0, s, b) || before_or_at(r.seg1, r.band1, s, b)) continue;
            const int64_t R = tsm::mp::segment_rows(count), r0 = s * R;
            for (int64_t k = excl + b * tsm::mp::kTileDiags; k < excl + (b + 1) * tsm::mp::kTileDiags; ++k)
                pairs += std::max<int64_t>(0, std::min(R, count - r0 - k));
        }
    return pairs;
}

struct Shape {
    int64_t count, excl;
};
// a few windows (fewer units than parts), one segment, several segments, a large exclusion
const Shape kShapes[] = {{700, 3}, {5000, 26}, {30000, 26}, {40001, 9000}};

}  // namespace

TEST(split_units_cover_a_range_in_parts_of_equal_pairs) {
    for (const Shape& sh : kShapes)
        for (int tiles : {1, 3})
            for (int t = 0; t < tiles; ++t) {
                const UnitRange range = tsm::mp::tile_units(sh.count, sh.excl, t, tiles);
                const int64_t total = pairs_of(range, sh.count, sh.excl);
                if (tiles == 1) CHECK_EQ(total, (sh.count - sh.excl) * (sh.count - sh.excl + 1) / 2);  // every pair
                for (int parts = 1; parts <= 7; ++parts) {
                    const std::vector<UnitRange> split = tsm::mp::split_units(sh.count, sh.excl, range, parts);
                    CHECK_EQ((int)split.size(), parts);
                    int64_t sum = 0;
                    for (int i = 0; i < parts; ++i) {
                        const UnitRange& p = split[i];
                        const UnitRange& prev = i ? split[i - 1] : range;
                        CHECK(i ? p.seg0 == prev.seg1 && p.band0 == prev.band1
                                : p.seg0 == range.seg0 && p.band0 == range.band0);  // contiguous
                        CHECK(before_or_at(p.seg0, p.band0, p.seg1, p.band1));
                        CHECK(p.band0 < std::max<int64_t>(1, tsm::mp::units_in_segment(sh.count, sh.excl, p.seg0)));
                        const int64_t pairs = pairs_of(p, sh.count, sh.excl);
                        sum += pairs;
                        // balanced to within one unit (at most segment_rows · kTileDiags pairs)
                        CHECK(std::llabs(pairs - total / parts) <= tsm::mp::segment_rows(sh.count) * tsm::mp::kTileDiags);
                    }
                    CHECK(split.back().seg1 == range.seg1 && split.back().band1 == range.band1);
                    CHECK_EQ(sum, total);
                }
            }
}

TEST(split_sweeps_merged_by_maximum_are_the_whole_sweep_bit_for_bit) {
    struct Case {
        int64_t n;
        int m;
        int64_t excl;
    };
    for (const Case& c : {Case{3000, 20, 6}, Case{20000, 50, 13}, Case{20000, 100, 4000}}) {
        const std::vector<double> x = tsmt::random_walk(c.n, 7 + c.n);
        TsExec ex = tsmt::cpu_exec(2);
        tsm::mp::Prepared P;
        tsm::mp::prepare(x.data(), c.n, c.m, c.excl, &ex, P);
        const int64_t count = P.count;
        std::vector<uint64_t> whole, part;
        tsm::mp::cpu_sweep(P, &ex, tsm::mp::all_units(count, c.excl), whole);
        for (int parts : {2, 3, 5}) {
            std::vector<uint64_t> merged(count, 0);
            for (const UnitRange& r : tsm::mp::split_units(count, c.excl, tsm::mp::all_units(count, c.excl), parts)) {
                tsm::mp::cpu_sweep(P, &ex, r, part);
                for (int64_t i = 0; i < count; ++i) merged[i] = std::max(merged[i], part[i]);
            }
            CHECK(merged == whole);
        }
    }
}

namespace {

// ---- on the GPU: one device listed once, twice, three times ----

TsExec on_devices(int copies) {
    TsExec ex = tsmt::gpu_exec();
    ex.n_gpu_devices = copies;
    for (int i = 0; i < copies; ++i) ex.gpu_devices[i] = ex.gpu_device;
    return ex;
}

struct Result {
    tsmt::Profile profile;
    std::vector<int64_t> disc_pos, disc_nb, mot_a, mot_b;
    std::vector<double> disc_d, mot_d;
};

void expect_identical(const Result& a, const Result& b, const std::string& what) {
    const bool profile = a.profile == b.profile;
    const bool discords = a.disc_pos == b.disc_pos && a.disc_nb == b.disc_nb && tsmt::same_bits(a.disc_d, b.disc_d);
    const bool motifs = a.mot_a == b.mot_a && a.mot_b == b.mot_b && tsmt::same_bits(a.mot_d, b.mot_d);
    if (!profile || !discords || !motifs)
        tsmt::fail(__FILE__, __LINE__, what + ": profile " + (profile ? "same" : "DIFFERS") + ", discords " +
                                           (discords ? "same" : "DIFFER") + ", motifs " + (motifs ? "same" : "DIFFER"));
}

// The profile, the top-5 discords (by the profile) and the top-3 motifs (by
// the profile) of x on `copies` entries of the test's GPU.
Result run_on(const std::vector<double>& x, int m, int64_t excl, int copies) {
    Result r;
    TsStatus st;
    TsExec ex = on_devices(copies);
    TsProfile p;
    tsm_matrix_profile(x.data(), x.size(), m, excl, 1, &ex, &p, &st);
    CHECK_OK(st);
    CHECK_EQ(ex.used_backend, (int)TS_BACKEND_GPU);
    if (st.code != TS_OK) return r;
    r.profile = tsmt::to_profile(p, st);
    ex = on_devices(copies);
    TsDiscords d;
    tsm_discords(x.data(), x.size(), m, 5, NAN, excl, "auto", 1, &ex, &d, &st);
    CHECK_OK(st);
    CHECK_EQ(std::string(ex.used_method ? ex.used_method : ""), std::string("matrix_profile"));
    if (st.code == TS_OK) {
        r.disc_pos.assign(d.pos, d.pos + d.count);
        r.disc_nb.assign(d.neighbor, d.neighbor + d.count);
        r.disc_d.assign(d.dist, d.dist + d.count);
    }
    ex = on_devices(copies);
    TsMotifs mo;
    tsm_motifs(x.data(), x.size(), m, 3, excl, "matrix_profile", 10, 1, &ex, &mo, &st);
    CHECK_OK(st);
    if (st.code == TS_OK) {
        r.mot_a.assign(mo.pos_a, mo.pos_a + mo.count);
        r.mot_b.assign(mo.pos_b, mo.pos_b + mo.count);
        r.mot_d.assign(mo.dist, mo.dist + mo.count);
    }
    return r;
}

// A series and the profile's arguments for it.
struct SplitCase {
    std::string name;
    std::vector<double> x;
    int m;
    int64_t excl;
    int64_t count() const { return (int64_t)x.size() - m + 1; }
};

// Ordinary and hostile series (test_mp_hostile.cpp's kinds), each with an m
// and an exclusion zone; split_cases_cut_later_segments_bands_and_leave_parts_empty
// checks where their splits over 2 and 3 GPUs cut.  Short enough that the
// GPU test takes seconds: 2 to 5 segments of kSegRows rows, not more.  The
// offset's signal is a random walk: one with repeating windows (a sine) makes
// the motifs' exact selection spend minutes on the ties of its profile, which
// no split takes part in (it runs after the merge).
std::vector<SplitCase> split_cases() {
    std::vector<SplitCase> all;
    const std::vector<double> walk = tsmt::random_walk(20000, 16);
    all.push_back({"random walk", walk, 100, 26});
    all.push_back({"random walk, exclusion n/3", walk, 8, 20000 / 3});
    all.push_back({"long random walk, exclusion n/3", tsmt::random_walk(40000, 11), 100, 40000 / 3});
    std::vector<double> glitch = tsmt::random_walk(20000, 12);
    glitch[17000] += 1e9;  // a spike in the third segment: the recurrence's guard restarts around it
    all.push_back({"glitch spike", glitch, 100, 26});
    all.push_back({"glitch spike", glitch, 8, 3});
    std::vector<double> flat = tsmt::gaussian(20000, 13);
    std::fill(flat.begin() + 5000, flat.begin() + 6000, 2.5);  // constant windows
    std::fill(flat.begin() + 12000, flat.begin() + 12500, 2.5);
    all.push_back({"constant stretches", flat, 8, 3});
    all.push_back({"constant stretches", flat, 100, 100});
    std::vector<double> offset = tsmt::random_walk(12000, 17);
    for (double& v : offset) v = 1e9 + 1e-7 * v;
    all.push_back({"offset 1e9 under a walk of 1e-7 steps", offset, 100, 26});
    std::vector<double> tiny = tsmt::gaussian(9000, 14);
    for (double& v : tiny) v = std::ldexp(v, -1000);  // near the subnormals
    all.push_back({"scaled by 2^-1000", tiny, 100, 26});
    const std::vector<double> short_walk = tsmt::random_walk(1500, 15);
    all.push_back({"short (fewer units than GPUs)", short_walk, 8, 3});
    all.push_back({"short, one unit", short_walk, 100, 500});
    return all;
}

}  // namespace

// The cases of the GPU test below cut where a split can go wrong: inside a
// segment (band > 0, the rows' keys then come from two GPUs), in a later
// segment than the first, and with more parts than units (empty parts).
TEST(split_cases_cut_later_segments_bands_and_leave_parts_empty) {
    bool inside_a_segment = false, later_segment = false, empty_part = false;
    for (const SplitCase& c : split_cases())
        for (int parts : {2, 3}) {
            const std::vector<UnitRange> split =
                tsm::mp::split_units(c.count(), c.excl, tsm::mp::all_units(c.count(), c.excl), parts);
            for (int i = 0; i < parts; ++i) {
                const UnitRange& p = split[i];
                empty_part |= p.seg0 == p.seg1 && p.band0 == p.band1;
                if (i == 0) continue;  // a cut: where part i starts
                inside_a_segment |= p.band0 > 0;
                later_segment |= p.seg0 > 0 && p.seg0 < split.back().seg1;
            }
        }
    CHECK(inside_a_segment);
    CHECK(later_segment);
    CHECK(empty_part);
}

GPU_TEST(gpu_profile_split_over_listed_devices_is_one_gpus_bit_for_bit) {
    for (const SplitCase& c : split_cases()) {
        const Result one = run_on(c.x, c.m, c.excl, 1);
        for (int copies : {2, 3}) {
            const std::string what = c.name + ", m = " + std::to_string(c.m) + ", exclusion " +
                                     std::to_string(c.excl) + ", GPU listed " + std::to_string(copies) + "x";
            expect_identical(one, run_on(c.x, c.m, c.excl, copies), what);
        }
    }
}

GPU_TEST(gpu_tile_keys_split_over_listed_devices_are_one_gpus) {
    const std::vector<double> x = tsmt::random_walk(30000, 21);
    std::vector<std::vector<int64_t>> got;
    for (int copies : {1, 2, 3}) {
        TsExec ex = on_devices(copies);
        TsPartialProfile pp;
        TsStatus st;
        tsm_matrix_profile_tile(x.data(), x.size(), 64, 17, 2, 3, 1, &ex, &pp, &st);
        CHECK_OK(st);
        got.push_back(st.code == TS_OK ? std::vector<int64_t>(pp.data, pp.data + pp.words) : std::vector<int64_t>());
    }
    CHECK(!got[0].empty() && got[1] == got[0] && got[2] == got[0]);
}

namespace {
int g_polls = 0;
int cancel_after_a_few_polls() { return ++g_polls > 20; }
}  // namespace

GPU_TEST(gpu_split_profile_cancels_and_frees_every_device_buffer) {
    const std::vector<double> x = tsmt::random_walk(1 << 19, 31);  // long enough for many polls
    TsExec ex = on_devices(3);
    ex.interrupted = cancel_after_a_few_polls;
    g_polls = 0;
    TsProfile p;
    TsStatus st;
    CHECK_EQ(tsm_matrix_profile(x.data(), x.size(), 100, 26, 1, &ex, &p, &st), (int)TS_CANCELLED);
    CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
    int64_t allocs = 0, frees = 0;
    tsm_gpu_alloc_counts(&allocs, &frees);
    CHECK_EQ(allocs, frees);
}

GPU_TEST(gpu_a_listed_device_that_does_not_exist_is_an_error_at_use) {
    TsStatus st;
    const int visible = tsm_gpu_count(&st);
    TsExec ex = on_devices(1);
    ex.n_gpu_devices = 2;
    ex.gpu_devices[1] = visible;  // one past the last
    const std::vector<double> x = tsmt::random_walk(8000, 41);
    TsProfile p;
    CHECK_EQ(tsm_matrix_profile(x.data(), x.size(), 50, 13, 1, &ex, &p, &st), (int)TS_INVALID_ARGUMENT);
    CHECK_EQ(std::string(st.sqlstate), std::string("22023"));
    CHECK(std::string(st.message).find("names GPU " + std::to_string(visible)) != std::string::npos);
}
