// test_args.cpp — the SQL functions' argument checks in the core entries
// (args.h): NULL integers as TS_ARG_NULL, the defaults, the messages and
// SQLSTATEs a SQL user sees, method names, and an empty series.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "api_discords.h"
#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "args.h"
#include "check.h"

namespace {

// The status's SQLSTATE and message are these.
void check_status(const TsStatus& st, const char* sqlstate, const char* message) {
    CHECK_EQ(std::string(st.sqlstate), std::string(sqlstate));
    CHECK_EQ(std::string(st.message), std::string(message));
}

// What the entries below fill.
struct Call {
    TsExec ex = tsmt::cpu_exec();
    TsStatus st;
    TsProfile p;
    TsDiscords d;
    TsMotifs mo;
    TsMatches mt;
};

}  // namespace

TEST(args_names_any_case_and_unknown_ones_listed) {
    CHECK_EQ(tsm::args::choice("PD3", "method", tsm::args::kDiscordMethods, 3), (int)TS_DISCORDS_PD3);
    CHECK_EQ(tsm::args::choice("Matrix_Profile", "method", tsm::args::kMotifMethods, 3),
             (int)TS_MOTIFS_MATRIX_PROFILE);
    CHECK(tsm::args::same_name("auto", "AUTO"));
    CHECK(!tsm::args::same_name("auto", "autos"));
    TsExec ex = tsmt::cpu_exec();
    TsOutliers o;
    TsStatus st;
    std::vector<double> x{1, 2, 3, 40};
    CHECK_EQ(tsm_outliers(x.data(), 4, 1.0, "MAD", &ex, &o, &st), (int)TS_OK);
    tsm_outliers(x.data(), 4, 3.0, "iqr", &ex, &o, &st);
    check_status(st, "22023", "unknown method \"iqr\"");
    CHECK_EQ(std::string(st.hint), std::string("Use 'sigma' or 'mad'."));
    tsm_outliers(x.data(), 4, -1.0, "sigma", &ex, &o, &st);
    check_status(st, "22023", "k_sigma must be a positive, finite number, not -1");
}

TEST(args_null_exclusion_is_each_functions_default) {
    auto x = tsmt::random_walk(300, 7);
    TsExec ex = tsmt::cpu_exec();
    TsStatus st;
    TsProfile a, b;
    // the profile's default: ceil(m/4) + 1
    CHECK_EQ(tsm_matrix_profile(x.data(), 300, 10, TS_ARG_NULL, 1, &ex, &a, &st), (int)TS_OK);
    CHECK_EQ(tsm_matrix_profile(x.data(), 300, 10, 4, 1, &ex, &b, &st), (int)TS_OK);
    CHECK(a.count == b.count && std::memcmp(a.index, b.index, sizeof(int64_t) * a.count) == 0);
    // discords and motifs: m
    TsDiscords d1, d2;
    CHECK_EQ(tsm_discords(x.data(), 300, 10, 3, NAN, TS_ARG_NULL, "auto", 1, &ex, &d1, &st), (int)TS_OK);
    CHECK_EQ(tsm_discords(x.data(), 300, 10, 3, NAN, 10, "auto", 1, &ex, &d2, &st), (int)TS_OK);
    CHECK(d1.count == d2.count && std::memcmp(d1.pos, d2.pos, sizeof(int64_t) * d1.count) == 0);
    TsMotifs m1, m2;
    CHECK_EQ(tsm_motifs(x.data(), 300, 10, 2, TS_ARG_NULL, "mk", 10, 1, &ex, &m1, &st), (int)TS_OK);
    CHECK_EQ(tsm_motifs(x.data(), 300, 10, 2, 10, "mk", 10, 1, &ex, &m2, &st), (int)TS_OK);
    CHECK(m1.count == m2.count && std::memcmp(m1.pos_b, m2.pos_b, sizeof(int64_t) * m1.count) == 0);
}

TEST(args_messages_are_the_sql_functions) {
    auto x = tsmt::random_walk(300, 8);
    Call c;
    TsExec& ex = c.ex;
    TsStatus& st = c.st;
    tsm_matrix_profile(x.data(), 300, 2, TS_ARG_NULL, 1, &ex, &c.p, &st);
    check_status(st, "22023", "m must be at least 3, not 2");
    tsm_matrix_profile(x.data(), 300, 10, 0, 1, &ex, &c.p, &st);
    check_status(st, "22023", "exclusion_zone must be at least 1, not 0");
    tsm_discords(x.data(), 300, 10, TS_ARG_NULL, NAN, TS_ARG_NULL, "auto", 1, &ex, &c.d, &st);
    check_status(st, "22004", "k must not be NULL here");
    CHECK(std::strstr(st.hint, "ts_discords returns the top k discords") != nullptr);
    tsm_discords(x.data(), 300, 10, 0, 1.0, TS_ARG_NULL, "auto", 1, &ex, &c.d, &st);
    check_status(st, "22023", "k must be at least 1, not 0");
    CHECK_EQ(std::string(st.hint), std::string("k is how many results to return; NULL returns all of them."));
    tsm_discords(x.data(), 300, 10, 1, NAN, TS_ARG_NULL, "drag", 1, &ex, &c.d, &st);
    check_status(st, "22023", "unknown method \"drag\"");
    tsm_motifs(x.data(), 300, 10, TS_ARG_NULL, TS_ARG_NULL, "auto", 10, 1, &ex, &c.mo, &st);
    check_status(st, "22004", "k must not be NULL here");
    tsm_motifs(x.data(), 300, 10, 1, TS_ARG_NULL, "mk", 0, 1, &ex, &c.mo, &st);
    check_status(st, "22023", "n_references must be at least 1, not 0");
    std::vector<double> pat(x.begin(), x.begin() + 10);
    tsm_match(x.data(), 300, pat.data(), 10, NAN, -1, TS_ARG_NULL, 1, &ex, &c.mt, &st);
    check_status(st, "22023", "k must be at least 1, not -1");
    // range discords with k NULL: all of them
    CHECK_EQ(tsm_discords(x.data(), 300, 10, TS_ARG_NULL, 0.0, TS_ARG_NULL, "pd3", 1, &ex, &c.d, &st), (int)TS_OK);
    CHECK(c.d.count > 0);
}

TEST(args_empty_series_has_no_windows) {
    Call c;
    TsExec& ex = c.ex;
    TsStatus& st = c.st;
    const double pat[3] = {1, 2, 4};
    CHECK(tsm_matrix_profile(nullptr, 0, 3, TS_ARG_NULL, 1, &ex, &c.p, &st) == TS_OK && c.p.count == 0);
    CHECK(tsm_discords(nullptr, 0, 3, 1, NAN, TS_ARG_NULL, "pd3", 1, &ex, &c.d, &st) == TS_OK && c.d.count == 0);
    CHECK(tsm_motifs(nullptr, 0, 3, 1, TS_ARG_NULL, "auto", 10, 1, &ex, &c.mo, &st) == TS_OK && c.mo.count == 0);
    CHECK(tsm_match(nullptr, 0, pat, 3, NAN, TS_ARG_NULL, TS_ARG_NULL, 1, &ex, &c.mt, &st) == TS_OK && c.mt.count == 0);
    // the arguments are checked all the same
    tsm_matrix_profile(nullptr, 0, 2, TS_ARG_NULL, 1, &ex, &c.p, &st);
    check_status(st, "22023", "m must be at least 3, not 2");
    tsm_discords(nullptr, 0, 3, 1, NAN, TS_ARG_NULL, "drag", 1, &ex, &c.d, &st);
    check_status(st, "22023", "unknown method \"drag\"");
}

TEST(args_a_nan_distance_given_is_refused_and_none_is_not) {
    auto x = tsmt::random_walk(300, 9);
    Call c;
    TsExec& ex = c.ex;
    TsStatus& st = c.st;
    const uint64_t bits = TS_NAN_GIVEN_BITS;
    double given;
    std::memcpy(&given, &bits, sizeof given);
    CHECK(std::isnan(given) && tsm::args::nan_given(given) && !tsm::args::nan_given(NAN));
    for (const char* method : {"auto", "pd3", "matrix_profile"}) {
        tsm_discords(x.data(), 300, 10, 3, given, TS_ARG_NULL, method, 1, &ex, &c.d, &st);
        check_status(st, "22023", "min_distance must be a finite number >= 0, not NaN");
        CHECK_EQ(tsm_discords(x.data(), 300, 10, 3, NAN, TS_ARG_NULL, method, 1, &ex, &c.d, &st), (int)TS_OK);
        CHECK_EQ(c.d.count, 3);  // none: the top k
    }
    std::vector<double> pat(x.begin(), x.begin() + 10);
    tsm_match(x.data(), 300, pat.data(), 10, given, TS_ARG_NULL, TS_ARG_NULL, 1, &ex, &c.mt, &st);
    check_status(st, "22023", "max_distance must be a finite number >= 0, not NaN");
    CHECK_EQ(tsm_match(x.data(), 300, pat.data(), 10, NAN, TS_ARG_NULL, TS_ARG_NULL, 1, &ex, &c.mt, &st), (int)TS_OK);
}
