// Window statistics against direct two-pass computation, offsets included.
#include <random>

#include "check.h"
#include "sliding.h"

TEST(window_stats_match_direct_computation) {
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        std::mt19937_64 rng(seed);
        int64_t n = 200 + rng() % 20000;
        int m = 3 + rng() % 300;
        if (m > n) m = n;
        auto x = tsmt::random_walk(n, seed);
        double offset = seed % 2 ? 1e8 : 0.0;
        for (auto& v : x) v += offset;
        // a constant stretch and a near-constant one
        for (int64_t i = 50; i < 50 + 2 * m && i < n; ++i) x[i] = x[50];
        tsm::WindowStats ws;
        TsExec ex = tsmt::cpu_exec();
        tsm::window_stats(x.data(), n, m, ws, &ex);
        CHECK_EQ(ws.count, n - m + 1);
        for (int64_t i = 0; i < ws.count; ++i) {
            long double s = 0, q = 0;
            bool flat = true;
            for (int j = 0; j < m; ++j) {
                s += x[i + j];
                flat = flat && x[i + j] == x[i];
            }
            long double mu = s / m;
            for (int j = 0; j < m; ++j) q += (x[i + j] - mu) * (x[i + j] - mu);
            double sd = (double)std::sqrt(q / m);
            CHECK_EQ((bool)ws.constant[i], flat);
            CHECK_NEAR(ws.mean[i], (double)mu, 1e-12 * std::fabs((double)mu) + 1e-12);
            if (flat) CHECK_EQ(ws.std[i], 0.0);
            else CHECK_NEAR(ws.std[i], sd, 1e-9 * sd);
            if (tsmt::g_failures > 5) return;
        }
    }
}
