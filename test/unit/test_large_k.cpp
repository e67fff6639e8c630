// Huge k in PD3's top-k mode: a k of at least ceil(N / m) (more discords than
// any series of N windows holds) runs PD3 once with r = 0 instead of lowering
// r step by step; the rows are those of the schedule: k = ceil(N / m) − 1
// (which lowers r step by step) gives their first rows.
#include <cmath>
#include <random>

#include "api_discords.h"
#include "check.h"

namespace {

struct Rows {
    std::vector<int64_t> pos, nn;
    std::vector<double> d;
};

Rows pd3_top(const std::vector<double>& x, int m, int64_t k, int threads) {
    TsExec ex = tsmt::cpu_exec(threads);
    TsDiscords out;
    TsStatus st;
    tsm_discords_pd3(x.data(), (int64_t)x.size(), m, k, std::nan(""), m, &ex, &out, &st);
    CHECK_EQ(st.code, (int)TS_OK);
    Rows r;
    if (st.code != TS_OK) return r;
    for (int64_t i = 0; i < out.count; ++i) {
        r.pos.push_back(out.pos[i]);
        r.nn.push_back(out.neighbor[i]);
        r.d.push_back(out.dist[i]);
    }
    return r;
}

}  // namespace

TEST(pd3_huge_k_equals_the_schedules_rows) {
    std::mt19937_64 rng(3);
    for (int t = 0; t < 6; ++t) {
        const int m = 8 + (int)(rng() % 40);
        auto x = tsmt::random_walk(600 + (int64_t)(rng() % 900), 30 + t);
        if (t % 2) x[x.size() / 3] += 25.0;  // a spike
        const int64_t N = (int64_t)x.size() - m + 1, most = (N + m - 1) / m;
        const Rows all = pd3_top(x, m, 2147483647, 1 + t % 2);
        CHECK(!all.pos.empty() && (int64_t)all.pos.size() <= most);
        CHECK(all.pos == pd3_top(x, m, most, 2).pos);  // the same path
        const int64_t k = std::min<int64_t>(most - 1, (int64_t)all.pos.size());
        const Rows some = pd3_top(x, m, k, 1);
        CHECK_EQ((int64_t)some.pos.size(), k);
        bool prefix = true;
        for (int64_t i = 0; i < k && i < (int64_t)some.pos.size(); ++i)
            prefix = prefix && some.pos[i] == all.pos[i] && some.nn[i] == all.nn[i] && some.d[i] == all.d[i];
        CHECK(prefix);
    }
}
