// Progress (TsExec.progress, progress.h): each method counts its work as it
// goes, the interrupted callback sees it advance, methods whose work depends
// on the data say so; and the estimates (api_estimate.h) behind ts_estimate.
#include <algorithm>

#include "api_discords.h"
#include "api_estimate.h"
#include "api_matrix_profile.h"
#include "api_motifs.h"
#include "api_shapelets.h"
#include "check.h"

namespace {

// What the interrupted callback saw: every (done, total) while total > 0.
TsProgress g_progress;
int64_t g_polls = 0, g_backwards = 0, g_over = 0, g_last_done = 0, g_last_total = 0;
int watch_progress() {
    const int64_t done = g_progress.done, total = g_progress.total;
    ++g_polls;
    if (total > 0 && total == g_last_total && done < g_last_done) ++g_backwards;
    if (total > 0 && done > total) ++g_over;
    g_last_done = done;
    g_last_total = total;
    return 0;
}

TsExec watched_exec(int threads) {
    TsExec ex = tsmt::cpu_exec(threads);
    g_progress = TsProgress{};
    g_polls = g_backwards = g_over = g_last_done = g_last_total = 0;
    ex.progress = &g_progress;
    ex.interrupted = watch_progress;
    return ex;
}

}  // namespace

TEST(matrix_profile_counts_its_sweep_to_the_end) {
    const auto x = tsmt::random_walk(6000, 17);
    for (int threads : {1, 2}) {
        TsExec ex = watched_exec(threads);
        TsProfile p;
        TsStatus st;
        CHECK_EQ(tsm_matrix_profile(x.data(), (int64_t)x.size(), 50, 13, 1, &ex, &p, &st), (int)TS_OK);
        CHECK(g_progress.total > 0);
        CHECK_EQ(g_progress.done, g_progress.total);
        CHECK(g_polls > 0);
        CHECK_EQ(g_backwards, (int64_t)0);
        CHECK_EQ(g_over, (int64_t)0);
    }
}

GPU_TEST(matrix_profile_on_the_gpu_counts_its_sweep) {
    const auto x = tsmt::random_walk(1 << 16, 18);
    TsExec ex = watched_exec(0);
    ex.backend = TS_BACKEND_GPU;
    TsProfile p;
    TsStatus st;
    CHECK_EQ(tsm_matrix_profile(x.data(), (int64_t)x.size(), 100, 26, 1, &ex, &p, &st), (int)TS_OK);
    CHECK(g_progress.total > 0);
    CHECK(g_progress.done <= g_progress.total);  // the last launch is waited for with the finalisation
    CHECK_EQ(g_backwards, (int64_t)0);
    CHECK_EQ(g_over, (int64_t)0);
}

TEST(match_and_shapelets_count_their_work) {
    const auto x = tsmt::random_walk(5000, 19);
    TsExec ex = watched_exec(1);
    TsMatches mt;
    TsStatus st;
    CHECK_EQ(tsm_match(x.data(), 5000, x.data() + 100, 40, NAN, 5, 40, 1, &ex, &mt, &st), (int)TS_OK);
    CHECK_EQ(g_progress.total, (int64_t)(5000 - 40 + 1));
    CHECK_EQ(g_progress.done, g_progress.total);

    ex = watched_exec(1);
    std::vector<const double*> series;
    std::vector<int64_t> lengths;
    std::vector<int32_t> labels;
    for (int i = 0; i < 6; ++i) {
        series.push_back(x.data() + 300 * i);
        lengths.push_back(300);
        labels.push_back(i % 2);
    }
    TsShapelets sh;
    CHECK_EQ(tsm_shapelets(series.data(), lengths.data(), labels.data(), 6, 2, 10, 30, 5, 1, &ex, &sh, &st),
             (int)TS_OK);
    int64_t pivots = 0;
    for (int L = 10; L <= 30; L += 5) pivots += 6 * (300 - L + 1);
    CHECK_EQ(g_progress.total, pivots);
    CHECK_EQ(g_progress.done, pivots);
}

TEST(pd3_and_mk_say_their_work_depends_on_the_data) {
    const auto x = tsmt::random_walk(3000, 20);
    TsExec ex = watched_exec(1);
    TsDiscords d;
    TsStatus st;
    CHECK_EQ(tsm_discords(x.data(), 3000, 30, 2, NAN, 30, "pd3", 1, &ex, &d, &st), (int)TS_OK);
    CHECK_EQ(g_progress.total, (int64_t)-1);
    ex = watched_exec(1);
    TsMotifs mo;
    CHECK_EQ(tsm_motifs(x.data(), 3000, 30, 1, 30, "mk", 10, 1, &ex, &mo, &st), (int)TS_OK);
    CHECK_EQ(g_progress.total, (int64_t)-1);
    // the profile's selection of motifs after the profile: unknown again
    ex = watched_exec(1);
    CHECK_EQ(tsm_motifs(x.data(), 3000, 30, 1, 30, "matrix_profile", 10, 1, &ex, &mo, &st), (int)TS_OK);
    CHECK_EQ(g_progress.total, (int64_t)-1);
}

TEST(no_progress_struct_is_fine) {
    const auto x = tsmt::random_walk(2000, 21);
    TsExec ex = tsmt::cpu_exec(2);  // progress NULL
    TsProfile p;
    TsStatus st;
    CHECK_EQ(tsm_matrix_profile(x.data(), 2000, 20, 6, 1, &ex, &p, &st), (int)TS_OK);
}

// ---- estimates --------------------------------------------------------------

namespace {

// ts_estimate(function, n, m, k, method) with tsmine.backend = backend; seconds -1 on an error
TsEstimate estimate(const char* function, const char* method, int64_t n, int32_t m, int backend, int threads = 1,
                    int64_t k = 1) {
    TsEstimateArgs a{};
    a.function = function;
    a.method = method;
    a.n = n;
    a.m = m;
    a.k = k;
    TsExec ex = tsmt::cpu_exec(threads);
    ex.backend = backend;
    TsEstimate e;
    TsStatus st;
    if (tsm_estimate(&a, &ex, &e, &st) != TS_OK) e.seconds = -1;
    return e;
}

}  // namespace

TEST(estimate_of_the_profile_is_auto_motifs_budget) {
    TsExec ex = tsmt::cpu_exec(3);
    const TsEstimate e = estimate("ts_matrix_profile", nullptr, 200000, 100, TS_BACKEND_CPU, 3);
    CHECK_NEAR(e.seconds * 1e3, tsm_matrix_profile_estimate_ms(200000, 100, &ex), 1e-9);
    CHECK_EQ(e.backend, (int)TS_BACKEND_CPU);
    CHECK(e.host_bytes > 16.0 * 200000);
    CHECK_EQ(e.device_bytes, 0.0);
}

TEST(estimates_grow_with_the_work) {
    const char* const functions[] = {"ts_outliers", "ts_matrix_profile", "ts_discords", "ts_motifs", "ts_match"};
    for (const char* w : functions)
        for (int backend : {TS_BACKEND_CPU, TS_BACKEND_GPU}) {
            const double small = estimate(w, nullptr, 1 << 16, 100, backend).seconds;
            const double large = estimate(w, nullptr, 1 << 20, 100, backend).seconds;
            CHECK(small > 0);
            CHECK(large > small);
        }
    // the profile is quadratic, the outliers linear; more threads are faster
    const double p1 = estimate("ts_matrix_profile", nullptr, 1 << 20, 100, TS_BACKEND_CPU).seconds;
    const double p2 = estimate("ts_matrix_profile", nullptr, 1 << 21, 100, TS_BACKEND_CPU).seconds;
    CHECK_NEAR(p2 / p1, 4.0, 0.01);
    CHECK(estimate("ts_matrix_profile", nullptr, 1 << 20, 100, TS_BACKEND_CPU, 8).seconds < p1);
    // PD3 costs more the more discords are asked for
    CHECK(estimate("ts_discords", "pd3", 1 << 18, 100, TS_BACKEND_CPU, 1, 50).seconds >
          estimate("ts_discords", "pd3", 1 << 18, 100, TS_BACKEND_CPU, 1, 1).seconds);
}

TEST(estimate_names_the_method_and_backend_a_call_would_use) {
    CHECK_EQ(std::string(estimate("ts_discords", "auto", 1 << 16, 100, TS_BACKEND_CPU).method),
             std::string("matrix_profile"));
    CHECK_EQ(std::string(estimate("ts_motifs", "auto", 100, 60, TS_BACKEND_CPU).method), std::string("mk"));
    const TsEstimate g = estimate("ts_matrix_profile", nullptr, 1 << 20, 100, TS_BACKEND_GPU);
    CHECK_EQ(g.backend, (int)TS_BACKEND_GPU);
    CHECK(g.device_bytes > 16.0 * (1 << 20));
    // auto: small work on the CPU everywhere
    CHECK_EQ(estimate("ts_matrix_profile", nullptr, 1000, 100, TS_BACKEND_AUTO).backend, (int)TS_BACKEND_CPU);
}

TEST(estimate_rejects_what_a_call_would_reject) {
    CHECK_EQ(estimate("ts_matrix_profile", nullptr, 1000, 2, TS_BACKEND_CPU).seconds, -1.0);
    CHECK_EQ(estimate("ts_matrix_profile", nullptr, 1000, 600, TS_BACKEND_CPU).seconds, -1.0);
    CHECK_EQ(estimate("ts_match", nullptr, 100, 200, TS_BACKEND_CPU).seconds, -1.0);
    CHECK_EQ(estimate("ts_motifs", nullptr, 1000, 10, TS_BACKEND_CPU, 1, 0).seconds, -1.0);
    CHECK_EQ(estimate("ts_outliers", nullptr, -5, 0, TS_BACKEND_CPU).seconds, -1.0);
    CHECK_EQ(estimate("ts_matrix_profile", nullptr, 0, 100, TS_BACKEND_CPU).seconds, 0.0);  // empty: no work
    CHECK_EQ(estimate("ts_everything", nullptr, 1000, 10, TS_BACKEND_CPU).seconds, -1.0);
    CHECK_EQ(estimate("ts_match", "pd3", 1000, 10, TS_BACKEND_CPU).seconds, -1.0);  // ts_match takes 'auto' only
    CHECK_EQ(std::string(estimate("TS_Discords", "PD3", 1000, 10, TS_BACKEND_CPU).function), std::string("ts_discords"));
}
