// mp_tiles.cpp — one series' matrix profile in tiles (ts_matrix_profile_tile,
// ts_matrix_profile_merge, ts_matrix_profile_from_tiles): the units of the
// sweep and their split into tiles, the partial profile (header, bitmap of
// tiles, keys), its merge, and the profile from merged tiles.
//
// Why the merged tiles equal the single call bit for bit: a key (mp_detail.h)
// is computed by the task that sweeps its pair, from the co-moment restarted
// at the task's first row (a multiple of segment_rows(count)) with the same operations
// on both paths.  A unit is a set of whole tasks of the single call's sweep
// (matrix_profile.h), a tile a range of units; so every pair gets the key the
// single call gives it, the maximum over the tiles (keys are a total order)
// is the single call's winner, and the finalisation, run on the merged keys
// as on the single call's, gives the same distance and neighbour.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "api_matrix_profile.h"
#include "dispatch.h"
#include "error.h"
#include "matrix_profile.h"

namespace tsm {
namespace mp {

int64_t units_in_segment(int64_t count, int64_t excl, int64_t s) {
    const int64_t diagonals = count - s * segment_rows(count) - excl;  // diagonals k >= excl alive at the segment's first row
    return diagonals > 0 ? (diagonals + kTileDiags - 1) / kTileDiags : 0;
}

namespace {

// Units in all: segments have fewer as they go, none past the last.
int64_t total_units(int64_t count, int64_t excl) {
    int64_t total = 0;
    for (int64_t s = 0, u; (u = units_in_segment(count, excl, s)) > 0; ++s) total += u;
    return total;
}

// The unit at position idx (0 .. total) of the segment-major order; the
// position `total` is (first segment without units, 0).
void unit_at(int64_t count, int64_t excl, int64_t idx, int64_t* seg, int64_t* band) {
    int64_t s = 0;
    for (int64_t u; (u = units_in_segment(count, excl, s)) > 0 && idx >= u; ++s) idx -= u;
    *seg = s;
    *band = idx;
}

// Σ_{k=0}^{e−1} min(R, max(0, c − k)): the pairs of diagonals 0 .. e−1 of a
// segment whose diagonal k has min(R, c − k) rows (c = count − its first row).
int64_t clamp_sum(int64_t c, int64_t R, int64_t e) {
    const int64_t k1 = std::max<int64_t>(0, std::min(e, c - R + 1));  // diagonals with R rows
    const int64_t k2 = std::max(k1, std::min(e, c));                  // then c − k rows
    return R * k1 + (k2 - k1) * (2 * c - k1 - k2 + 1) / 2;
}

// Pairs by unit position: segments' first pairs, and within a segment a
// closed form, so that a split costs O(segments + parts · log) whatever n is.
struct PairIndex {
    int64_t count, excl;
    std::vector<int64_t> seg_first;  // pairs before segment s; one more entry: all pairs
    std::vector<int64_t> seg_units;  // units_in_segment
    PairIndex(int64_t count_, int64_t excl_) : count(count_), excl(excl_), seg_first(1, 0) {
        for (int64_t s = 0, u; (u = units_in_segment(count, excl, s)) > 0; ++s) {
            seg_units.push_back(u);
            seg_first.push_back(seg_first.back() + in_segment(s, u));
        }
    }
    int64_t segments() const { return (int64_t)seg_units.size(); }
    // pairs of segment s's first `units` units (diagonals excl .. excl + units·kTileDiags)
    int64_t in_segment(int64_t s, int64_t units) const {
        const int64_t R = segment_rows(count), c = count - s * R, e = std::min(excl + units * kTileDiags, c);
        return clamp_sum(c, R, e) - clamp_sum(c, R, excl);
    }
    // pairs before the unit (s, b)
    int64_t before(int64_t s, int64_t b) const {
        return s >= segments() ? seg_first.back() : seg_first[s] + in_segment(s, b);
    }
    // the first unit position whose pairs before it reach `target` (every
    // unit has a pair, so positions are strictly increasing in pairs)
    void position(int64_t target, int64_t* seg, int64_t* band) const {
        int64_t s = (int64_t)(std::upper_bound(seg_first.begin(), seg_first.end(), target) - seg_first.begin()) - 1;
        if (s >= segments() || seg_first[s] == target) {
            *seg = std::min(s, segments());
            *band = 0;
            return;
        }
        int64_t lo = 0, hi = seg_units[s];  // before(s, lo) < target <= before(s, hi)
        while (hi - lo > 1) {
            const int64_t mid = (lo + hi) / 2;
            (before(s, mid) < target ? lo : hi) = mid;
        }
        *seg = hi == seg_units[s] ? s + 1 : s;  // a segment's end is the next one's start
        *band = hi == seg_units[s] ? 0 : hi;
    }
};

}  // namespace

std::vector<UnitRange> split_units(int64_t count, int64_t excl, const UnitRange& range, int parts) {
    const PairIndex P(count, excl);
    const int64_t first = P.before(range.seg0, range.band0), last = P.before(range.seg1, range.band1);
    std::vector<UnitRange> split(parts);
    int64_t seg = range.seg0, band = range.band0;
    for (int t = 0; t < parts; ++t) {
        split[t].seg0 = seg;
        split[t].band0 = band;
        if (t + 1 < parts) {
            P.position(first + (int64_t)((__int128)(last - first) * (t + 1) / parts), &seg, &band);
        } else {
            seg = range.seg1;
            band = range.band1;
        }
        split[t].seg1 = seg;
        split[t].band1 = band;
    }
    return split;
}

UnitRange all_units(int64_t count, int64_t excl) {
    UnitRange r;
    unit_at(count, excl, total_units(count, excl), &r.seg1, &r.band1);
    return r;
}

UnitRange tile_units(int64_t count, int64_t excl, int64_t t, int64_t tiles) {
    const __int128 total = total_units(count, excl);
    UnitRange r;
    unit_at(count, excl, (int64_t)(total * t / tiles), &r.seg0, &r.band0);
    unit_at(count, excl, (int64_t)(total * (t + 1) / tiles), &r.seg1, &r.band1);
    return r;
}

}  // namespace mp

namespace {

// ---- the partial profile: header words, the bitmap of tiles, the keys ----

constexpr int64_t kPartialFormat = 0x74736D7000000001LL;     // "tsmp", layout 1
constexpr int64_t kPartialFormatRaw = 0x74736D7000000002LL;  // the same layout, raw-value keys (normalized => false)
enum HeaderWord { kFormat, kN, kM, kExcl, kTiles, kFingerprint, kHeaderWords };
constexpr int64_t kMaxTiles = int64_t(1) << 20;
const char* const kHeaderNames[kHeaderWords] = {"distances (format: z-normalised or raw values)", "series length",
                                                "window length m", "exclusion zone", "number of tiles",
                                                "series values (fingerprint)"};

struct Layout {
    int64_t count = 0;   // windows
    int64_t bitmap = 0;  // first word of the bitmap of tiles
    int64_t keys = 0;    // first key
    int64_t words = 0;   // in all
};

Layout layout(int64_t count, int64_t tiles) {
    Layout L;
    L.count = count;
    L.bitmap = kHeaderWords;
    L.keys = L.bitmap + (tiles + 63) / 64;
    L.words = L.keys + count;
    return L;
}

// The values' bits, mixed (FNV-1a over 64-bit words, folded): a merge or a
// finish with another series is refused.
int64_t fingerprint(const double* x, int64_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (int64_t i = 0; i < n; ++i) {
        uint64_t bits;
        std::memcpy(&bits, &x[i], sizeof bits);
        h = (h ^ bits) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    return (int64_t)(h >> 1);
}

[[noreturn]] void not_partial(const char* what) {
    invalid(format("%s is not a partial matrix profile", what),
            "Partial profiles come from ts_matrix_profile_tile and ts_matrix_profile_merge, unchanged.");
}

// The layout of a partial profile, after checking its header and length.
Layout read_layout(const int64_t* w, int64_t words, const char* what) {
    if (!w || words < kHeaderWords || (w[kFormat] != kPartialFormat && w[kFormat] != kPartialFormatRaw))
        not_partial(what);
    const int64_t n = w[kN], m = w[kM], excl = w[kExcl], tiles = w[kTiles];
    if (m < 3 || n < 2 * m || excl < 1 || excl > n - m || tiles < 1 || tiles > kMaxTiles) not_partial(what);
    const Layout L = layout(n - m + 1, tiles);
    if (words != L.words) not_partial(what);
    return L;
}

void check_tile(int32_t tile, int32_t tiles) {
    if (tiles < 1 || tiles > kMaxTiles)
        invalid(format("tiles must be between 1 and %lld, got %d", (long long)kMaxTiles, (int)tiles),
                "Split the profile into a few tiles per worker (or GPU).");
    if (tile < 1 || tile > tiles)
        invalid(format("tile must be between 1 and tiles = %d, got %d", (int)tiles, (int)tile),
                "Number the tiles 1 .. tiles.");
}

// The tiles missing from the bitmap: how many, and the first few as text.
int64_t missing_tiles(const int64_t* bitmap, int64_t tiles, std::string* first) {
    int64_t missing = 0;
    for (int64_t t = 0; t < tiles; ++t)
        if (!((uint64_t)bitmap[t / 64] >> (t % 64) & 1u) && ++missing <= 10)
            *first += format("%s%lld", missing > 1 ? ", " : "", (long long)(t + 1));
    if (missing > 10) *first += ", ...";
    return missing;
}

// Every window with an admissible neighbour has a key naming one, and no
// other window has a key (what merged tiles of this series always hold);
// with gaps (mp_detail.h), only windows without one count.
void check_keys(const uint64_t* keys, const double* x, int64_t n, int m, int64_t excl) {
    const int64_t count = n - m + 1;
    const mp::KeyCodec codec = mp::make_codec(count);
    mp::GapPlan gaps;
    const bool with_gaps = mp::plan_gaps(x, n, m, gaps);
    auto usable = [&](int64_t q) { return !with_gaps || !gaps.gap[q]; };
    auto has_neighbor = [&](int64_t p) {
        if (!with_gaps) return p - excl >= 0 || p + excl < count;
        return !gaps.gap[p] && ((p - excl >= 0 && gaps.next_ok[0] <= p - excl) ||
                                (p + excl < count && gaps.next_ok[p + excl] < count));
    };
    for (int64_t p = 0; p < count; ++p) {
        const int64_t j = keys[p] ? mp::key_index(keys[p], codec.low) : -1;
        const bool ok = keys[p] ? has_neighbor(p) && j >= 0 && j < count && std::llabs(p - j) >= excl && usable(j)
                                : !has_neighbor(p);
        if (!ok)
            invalid(format("the merged tiles hold no valid candidate for window %lld", (long long)(p + 1)),
                    "Partial profiles come from ts_matrix_profile_tile and ts_matrix_profile_merge, unchanged.");
    }
}

}  // namespace
}  // namespace tsm

extern "C" int tsm_matrix_profile_tile(const double* x, int64_t n, int32_t m, int64_t exclusion, int32_t tile,
                                       int32_t tiles, int32_t normalize, TsExec* ex, TsPartialProfile* out,
                                       TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        exclusion = tsm::check_profile_args(x, n, m, exclusion);
        tsm::check_tile(tile, tiles);
        const int64_t count = n - m + 1;
        const tsm::Layout L = tsm::layout(count, tiles);
        int64_t* w = tsm::alloc_result<int64_t>(ex, L.words);
        std::fill(w, w + L.keys, int64_t(0));
        w[tsm::kFormat] = normalize ? tsm::kPartialFormat : tsm::kPartialFormatRaw;
        w[tsm::kN] = n;
        w[tsm::kM] = m;
        w[tsm::kExcl] = exclusion;
        w[tsm::kTiles] = tiles;
        w[tsm::kFingerprint] = tsm::fingerprint(x, n);
        w[L.bitmap + (tile - 1) / 64] = (int64_t)(uint64_t(1) << ((tile - 1) % 64));
        const tsm::mp::UnitRange units = tsm::mp::tile_units(count, exclusion, tile - 1, tiles);
        tsm::matrix_profile_keys(x, n, m, exclusion, units, ex, reinterpret_cast<uint64_t*>(w + L.keys), !normalize);
        out->words = L.words;
        out->data = w;
    });
}

extern "C" int tsm_matrix_profile_merge(int64_t* into, int64_t into_words, const int64_t* from, int64_t from_words,
                                        TsStatus* st) noexcept {
    return tsm::guard(st, [&] {
        const tsm::Layout L = tsm::read_layout(into, into_words, "the first argument");
        tsm::read_layout(from, from_words, "the second argument");
        for (int h = 0; h < tsm::kHeaderWords; ++h)
            if (into[h] != from[h])
                tsm::invalid(tsm::format("partial profiles of different profiles cannot be merged: their %s differ "
                                         "(%lld and %lld)",
                                         tsm::kHeaderNames[h], (long long)into[h], (long long)from[h]),
                             "Merge the tiles of one call: one series, the same m, exclusion_zone, tiles and "
                             "normalized.");
        for (int64_t i = L.bitmap; i < L.keys; ++i) into[i] |= from[i];
        for (int64_t i = L.keys; i < L.words; ++i) into[i] = std::max(into[i], from[i]);
    });
}

extern "C" int tsm_matrix_profile_from_tiles(const double* x, int64_t n, const int64_t* merged, int64_t words,
                                             TsExec* ex, TsProfile* out, int32_t* m_out, int64_t* excl_out,
                                             int32_t* normalize_out, TsStatus* st) noexcept {
    return tsm::run_entry(ex, st, [&] {
        std::memset(out, 0, sizeof *out);
        const tsm::Layout L = tsm::read_layout(merged, words, "merged");
        const int m = (int)merged[tsm::kM];
        const int64_t excl = merged[tsm::kExcl], tiles = merged[tsm::kTiles];
        const char* hint = "Pass the series the tiles were computed from.";
        if (merged[tsm::kN] != n)
            tsm::invalid(tsm::format("the tiles are of a series of %lld values, this one has %lld",
                                     (long long)merged[tsm::kN], (long long)n), hint);
        tsm::check_profile_args(x, n, m, excl);
        if (tsm::fingerprint(x, n) != merged[tsm::kFingerprint])
            tsm::invalid("the tiles are of a series with other values than this one", hint);
        std::string first;
        const int64_t missing = tsm::missing_tiles(merged + L.bitmap, tiles, &first);
        if (missing > 0)
            tsm::invalid(tsm::format("the merged tiles lack %lld of the %lld tiles: %s", (long long)missing,
                                     (long long)tiles, first.c_str()),
                         "Merge every tile from 1 to tiles, each computed with the same tiles.");
        const uint64_t* keys = reinterpret_cast<const uint64_t*>(merged + L.keys);
        tsm::check_keys(keys, x, n, m, excl);
        double* dist = tsm::alloc_result<double>(ex, L.count);
        int64_t* index = tsm::alloc_result<int64_t>(ex, L.count);
        const bool raw = merged[tsm::kFormat] == tsm::kPartialFormatRaw;
        tsm::matrix_profile_finish(x, n, m, excl, keys, ex, dist, index, raw);
        out->count = L.count;
        out->dist = dist;
        out->index = index;
        *m_out = m;
        *excl_out = excl;
        *normalize_out = raw ? 0 : 1;
    });
}

namespace tsm {
namespace mp {

int profile_from_tiles(const double* x, int64_t n, const int64_t* merged, int64_t words, TsExec* ex,
                       TiledProfile& t, TsStatus* st) {
    return tsm_matrix_profile_from_tiles(x, n, merged, words, ex, &t.profile, &t.m, &t.exclusion, &t.normalize, st);
}

}  // namespace mp
}  // namespace tsm
