// test_finite.cpp — finding NaN and infinite values (finite.h) against a
// plain loop, at every place relative to the blocks it scans.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "check.h"
#include "finite.h"
#include "tsm_api.h"

static int64_t oracle_first_nonfinite(const std::vector<double>& x) {
    for (size_t i = 0; i < x.size(); ++i)
        if (!std::isfinite(x[i])) return (int64_t)i;
    return -1;
}

TEST(first_nonfinite_equals_a_plain_loop) {
    const double bad[] = {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
                          std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    for (int64_t n : {0, 1, 7, 1023, 1024, 1025, 5000}) {
        std::vector<double> x = tsmt::random_walk(n, 3);
        CHECK_EQ(tsm_first_nonfinite(x.data(), n), -1);
        for (int64_t at : {int64_t(0), n / 2, n - 1, int64_t(1023), int64_t(1024), int64_t(2047)}) {
            if (at < 0 || at >= n) continue;
            for (double b : bad) {
                std::vector<double> y = x;
                y[at] = b;
                if (at + 3 < n) y[at + 3] = bad[0];  // a later one does not count
                CHECK_EQ(tsm_first_nonfinite(y.data(), n), oracle_first_nonfinite(y));
                CHECK_EQ(tsm_first_nonfinite(y.data(), n), at);
            }
        }
    }
    // the extremes of the finite doubles are finite
    std::vector<double> e = {std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::denorm_min(), -0.0, 0.0,
                             std::numeric_limits<double>::min()};
    CHECK_EQ(tsm_first_nonfinite(e.data(), (int64_t)e.size()), -1);
}

TEST(require_finite_names_the_1_based_position) {
    std::vector<double> x(3000, 1.0);
    x[2500] = std::numeric_limits<double>::infinity();
    bool threw = false;
    try {
        tsm::require_finite(x.data(), (int64_t)x.size(), "series");
    } catch (const std::exception&) {
        threw = true;
    }
    CHECK(threw);
    TsStatus st;
    TsExec ex = tsmt::cpu_exec();
    TsMatches mo;  // a series' gaps are gaps (test_gaps.cpp); a pattern's are an error
    tsm_match(x.data() + 2000, 1000, x.data() + 2490, 20, NAN, TS_ARG_NULL, 20, 1, &ex, &mo, &st);
    CHECK_EQ(st.code, (int)TS_INVALID_ARGUMENT);
    CHECK(std::strstr(st.message, "position 11") != nullptr);
}
