// oracles.h — what several unit test files share: the brute-force oracle of
// window distances in long double, and a matrix profile's rows as vectors.
#pragma once

#include <cstdint>
#include <vector>

#include "api_matrix_profile.h"

namespace tsmt {

// The windows of length m of x, in long double, and their distances.
// z-normalised (raw: the values themselves): each window relative to its
// first value (exact differences: an offset costs no digits) about its
// two-pass mean; empty z: a constant window, or one with a gap.  The distance
// follows STUMPY's rules: 0 between two constant windows, √m between a
// constant and another, +inf from a window with a gap (NaN, ±Infinity).
struct ZWindows {
    int m = 0;
    bool raw = false;
    std::vector<std::vector<long double>> z;
    std::vector<uint8_t> gap;  // gap[i]: window i holds a gap

    ZWindows(const std::vector<double>& x, int m, bool raw = false);
    int64_t count() const { return (int64_t)z.size(); }
    // the distance of window i to window j of b (the AB-join), or to window j
    long double d(int64_t i, const ZWindows& b, int64_t j) const;
    long double d(int64_t i, int64_t j) const { return d(i, *this, j); }
    // the distance of window i to its nearest admissible (|j − i| ≥ excl)
    // window j of b, or of these windows (+inf: none)
    long double nearest(int64_t i, const ZWindows& b, int64_t excl) const;
    long double nearest(int64_t i, int64_t excl) const { return nearest(i, *this, excl); }
};

// The bits of a and b are the same.
bool same_bits(const std::vector<double>& a, const std::vector<double>& b);

// A matrix profile's rows; == compares the neighbours and the distances' bits.
struct Profile {
    std::vector<double> dist;
    std::vector<int64_t> index;
    bool operator==(const Profile& o) const { return index == o.index && same_bits(dist, o.dist); }
};

// The rows of p when st is OK, else none.
Profile to_profile(const TsProfile& p, const TsStatus& st);

// tsm_matrix_profile of x (normalize 0: raw values), its status checked to be
// OK, or handed back in *status unchecked; no rows when it failed.
Profile matrix_profile(const std::vector<double>& x, int m, int64_t excl, TsExec ex, int normalize = 1,
                       TsStatus* status = nullptr);

}  // namespace tsmt
