// Shapelet discovery, trees and classification against brute-force oracles,
// the distance conventions, real UCR data, and GPU == CPU.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "api_shapelets.h"
#include "check.h"
#include "shapelets.h"

namespace {

struct Set {
    std::vector<std::vector<double>> x;
    std::vector<int32_t> y;
    int C = 0;
    std::vector<const double*> ptr() const {
        std::vector<const double*> p;
        for (auto& s : x) p.push_back(s.data());
        return p;
    }
    std::vector<int64_t> len() const {
        std::vector<int64_t> l;
        for (auto& s : x) l.push_back((int64_t)s.size());
        return l;
    }
};

// ---- oracle: all pivots, direct distances (long double), direct gain ----------

// Long-double statistics of a window relative to its first value (exact for
// any offset: long doubles hold every difference of two doubles near each
// other, and every square of a double's magnitude).
bool flat_window(const double* w, int L, long double* mu_out, long double* sd_out) {
    long double s = 0;
    for (int t = 0; t < L; ++t) s += (long double)w[t] - w[0];
    long double mu = s / L, q = 0;
    for (int t = 0; t < L; ++t) q += ((long double)w[t] - w[0] - mu) * ((long double)w[t] - w[0] - mu);
    long double sd = std::sqrt(q / L);
    *mu_out = mu;
    *sd_out = sd;
    bool constant = true;
    for (int t = 1; t < L; ++t) constant &= w[t] == w[0];
    return constant || !(sd > std::ldexp(1.0L, -52) * std::fabs(w[0] + mu));
}

// The distance of two windows; below 2^-18 it is 0 (shapelets_detail.h).
double window_dist(const double* a, const double* b, int L) {
    long double ma, sa, mb, sb;
    bool fa = flat_window(a, L, &ma, &sa), fb = flat_window(b, L, &mb, &sb);
    if (fa || fb) return (fa && fb) ? 0.0 : 1.0;
    long double q = 0;
    for (int t = 0; t < L; ++t) {
        long double z = ((long double)a[t] - a[0] - ma) / sa - ((long double)b[t] - b[0] - mb) / sb;
        q += z * z;
    }
    const long double d = std::sqrt(q / L);
    return d < std::ldexp(1.0L, -18) ? 0.0 : (double)std::min(d, 2.0L);
}

// Whether a window holds a gap (NaN or ±Infinity).
bool has_gap(const double* w, int L) {
    for (int t = 0; t < L; ++t)
        if (!std::isfinite(w[t])) return true;
    return false;
}

// The minimum over the windows without a gap; 2 when there is none (shorter
// than L, or a gap in every window).
double oracle_distance(const double* a, int L, const std::vector<double>& x) {
    double best = 2.0;
    for (size_t u = 0; u + L <= x.size(); ++u)
        if (!has_gap(x.data() + u, L)) best = std::min(best, window_dist(a, x.data() + u, L));
    return best;
}

double entropy(const std::vector<int>& cnt, int n) {
    double e = 0;
    for (int c : cnt)
        if (c > 0) e -= (double)c / n * std::log2((double)c / n);
    return e;
}

struct OCand {
    double gain, gap, thr;
    int s, p, L;
};

OCand oracle_split(const std::vector<double>& d, const std::vector<int32_t>& y, int C) {
    int N = (int)d.size();
    std::vector<int> idx(N);
    for (int i = 0; i < N; ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return d[a] < d[b]; });
    std::vector<int> all(C, 0);
    for (int v : y) all[v]++;
    double H = entropy(all, N);
    OCand best{-1, 0, 0, 0, 0, 0};
    for (int i = 0; i + 1 < N; ++i) {
        double a = d[idx[i]], b = d[idx[i + 1]];
        if (!(a < b)) continue;
        double thr = a + (b - a) / 2;
        std::vector<int> l(C, 0), r(C, 0);
        double sl = 0, sr = 0;
        int nl = 0, nr = 0;
        for (int j = 0; j < N; ++j) {
            if (d[j] <= thr) { l[y[j]]++; sl += d[j]; nl++; }
            else { r[y[j]]++; sr += d[j]; nr++; }
        }
        double g = H - (double)nl / N * entropy(l, nl) - (double)nr / N * entropy(r, nr);
        double gap = sr / nr - sl / nl;
        if (best.gain < 0 || g > best.gain + 1e-9 || (g > best.gain - 1e-9 && gap > best.gap + 1e-12)) {
            best.gain = g;
            best.gap = gap;
            best.thr = thr;
        }
    }
    return best;
}

std::vector<OCand> oracle_shapelets(const Set& S, int minL, int maxL, int step, int k) {
    std::vector<OCand> all;
    int N = (int)S.x.size();
    for (int L = minL; L <= maxL; L += step)
        for (int s = 0; s < N; ++s)
            for (int p = 0; p + L <= (int)S.x[s].size(); ++p) {
                long double mu, sd;
                if (has_gap(S.x[s].data() + p, L) || flat_window(S.x[s].data() + p, L, &mu, &sd)) continue;
                std::vector<double> d(N);
                for (int j = 0; j < N; ++j) d[j] = j == s ? 0.0 : oracle_distance(S.x[s].data() + p, L, S.x[j]);
                OCand c = oracle_split(d, S.y, S.C);
                if (c.gain < 0) continue;
                c.s = s;
                c.p = p;
                c.L = L;
                all.push_back(c);
            }
    std::stable_sort(all.begin(), all.end(), [](const OCand& a, const OCand& b) {
        if (std::fabs(a.gain - b.gain) > 1e-9) return a.gain > b.gain;
        if (a.gap != b.gap) return a.gap > b.gap;
        if (a.L != b.L) return a.L < b.L;
        if (a.s != b.s) return a.s < b.s;
        return a.p < b.p;
    });
    if ((int)all.size() > k) all.resize(k);
    return all;
}

// ---- helpers -------------------------------------------------------------------

Set random_set(uint64_t seed, int N, int C, int nmin, int nmax, bool planted = true) {
    std::mt19937_64 rng(seed);
    Set S;
    S.C = C;
    for (int i = 0; i < N; ++i) {
        int n = nmin + (int)(rng() % (uint64_t)(nmax - nmin + 1));
        auto x = tsmt::gaussian(n, seed * 1000 + i);
        int cls = i % C;
        if (planted) {
            // class-specific bump at a random place
            int w = 6;
            int at = (int)(rng() % (uint64_t)(n - w));
            for (int t = 0; t < w; ++t) x[at + t] += (cls + 1) * 1.5 * std::sin(3.14159 * t / (w - 1) * (cls + 1));
        }
        S.x.push_back(x);
        S.y.push_back(cls);
    }
    return S;
}

TsShapelets run_shapelets(const Set& S, int minL, int maxL, int step, int k, TsExec ex, TsStatus* stp = nullptr,
                          TsExec* ex_out = nullptr) {
    auto p = S.ptr();
    auto l = S.len();
    TsShapelets out{};
    TsStatus st;
    tsm_shapelets(p.data(), l.data(), S.y.data(), (int64_t)S.x.size(), S.C, minL, maxL, step, k, &ex, &out, &st);
    if (stp) *stp = st;
    else CHECK_OK(st);
    if (ex_out) *ex_out = ex;  // timings (device_ms, kernel_ms)
    return out;
}

TsShapeletTree run_tree(const Set& S, int minL, int maxL, int step, int64_t depth, int logical, TsExec ex) {
    auto p = S.ptr();
    auto l = S.len();
    TsShapeletTree out{};
    TsStatus st;
    tsm_shapelet_tree(p.data(), l.data(), S.y.data(), (int64_t)S.x.size(), S.C, minL, maxL, step, depth, logical, &ex,
                      &out, &st);
    CHECK_OK(st);
    return out;
}

std::vector<int32_t> classify(const TsShapeletTree& t, const Set& S, TsExec ex) {
    auto p = S.ptr();
    auto l = S.len();
    std::vector<int32_t> out(S.x.size(), -1);
    TsStatus st;
    tsm_shapelet_classify_batch(t.nodes, t.n_nodes, t.n_classes, p.data(), l.data(), (int64_t)S.x.size(), &ex,
                                out.data(), &st);
    CHECK_OK(st);
    return out;
}

double accuracy(const std::vector<int32_t>& pred, const std::vector<int32_t>& y) {
    int ok = 0;
    for (size_t i = 0; i < y.size(); ++i) ok += pred[i] == y[i];
    return (double)ok / y.size();
}

// UCR TSV: label in column 0, values after it.  Labels map to dense ids sorted by label.
bool load_ucr(const std::string& name, const std::string& part, Set& S, std::vector<double>& labels) {
    std::ifstream in(tsmt::shared_data("ucr/" + name + "/" + name + "_" + part + ".tsv"));
    if (!in) return false;
    std::string line;
    std::vector<double> raw;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        double lab, v;
        if (!(ls >> lab)) continue;
        std::vector<double> x;
        while (ls >> v) x.push_back(v);
        S.x.push_back(x);
        raw.push_back(lab);
    }
    if (labels.empty()) {
        labels = raw;
        std::sort(labels.begin(), labels.end());
        labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
    }
    S.C = (int)labels.size();
    for (double l : raw) S.y.push_back((int32_t)(std::lower_bound(labels.begin(), labels.end(), l) - labels.begin()));
    return !S.x.empty();
}

// Same pivots and gains; thresholds and gaps within tol (absolute: both lie in [0, 2]).
void same_shapelets(const TsShapelets& a, const TsShapelets& b, double tol = 2e-9) {
    CHECK_EQ(a.count, b.count);
    for (int i = 0; i < std::min(a.count, b.count); ++i) {
        CHECK_EQ(a.items[i].source_row, b.items[i].source_row);
        CHECK_EQ(a.items[i].start, b.items[i].start);
        CHECK_EQ(a.items[i].length, b.items[i].length);
        CHECK_EQ(a.items[i].info_gain, b.items[i].info_gain);
        CHECK_NEAR(a.items[i].threshold, b.items[i].threshold, tol);
        CHECK_NEAR(a.items[i].gap, b.items[i].gap, tol);
    }
}

void same_tree(const TsShapeletTree& a, const TsShapeletTree& b) {
    CHECK_EQ(a.n_nodes, b.n_nodes);
    for (int i = 0; i < std::min(a.n_nodes, b.n_nodes); ++i) {
        const auto &x = a.nodes[i], &y = b.nodes[i];
        CHECK_EQ(x.kind, y.kind);
        CHECK_EQ(x.class_id, y.class_id);
        CHECK_EQ(x.n_series, y.n_series);
        CHECK_EQ(x.op, y.op);
        CHECK_EQ(x.left, y.left);
        CHECK_EQ(x.right, y.right);
        for (int s = 0; s < x.n_shapelets; ++s) {
            CHECK_EQ(x.source_row[s], y.source_row[s]);
            CHECK_EQ(x.start[s], y.start[s]);
            CHECK_EQ(x.length[s], y.length[s]);
        }
        if (x.kind == TS_SHAPELET_SPLIT) {
            CHECK_EQ(x.gain, y.gain);
            CHECK_REL(x.threshold, y.threshold, 1e-9);
        }
    }
}

void compare_to_oracle(const Set& S, int minL, int maxL, int step, int k, TsExec ex) {
    auto got = run_shapelets(S, minL, maxL, step, k, ex);
    auto want = oracle_shapelets(S, minL, maxL, step, k);
    CHECK_EQ(got.count, (int)want.size());
    for (int i = 0; i < std::min(got.count, (int)want.size()); ++i) {
        const auto& g = got.items[i];
        const auto& w = want[i];
        CHECK_EQ(g.source_row, (int64_t)w.s);
        CHECK_EQ(g.start, w.p);
        CHECK_EQ(g.length, w.L);
        CHECK_NEAR(g.info_gain, w.gain, 1e-9);
        CHECK_NEAR(g.gap, w.gap, 1e-9);
        CHECK_NEAR(g.threshold, w.thr, 1e-9);
        for (int t = 0; t < g.length; ++t) CHECK_EQ(g.values[t], S.x[w.s][w.p + t]);
    }
}

}  // namespace

TEST(shapelets_match_bruteforce_equal_lengths) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        int C = 2 + (int)(seed % 2);
        auto S = random_set(seed, 9 + (int)seed, C, 28, 28);
        compare_to_oracle(S, 3, 10, 1 + (int)(seed % 2), 8, tsmt::cpu_exec(1 + seed % 2));
    }
}

TEST(shapelets_match_bruteforce_unequal_lengths) {
    for (uint64_t seed = 11; seed <= 16; ++seed) {
        auto S = random_set(seed, 10, 2 + (int)(seed % 3), 14, 34);
        compare_to_oracle(S, 4, 20, 3, 6, tsmt::cpu_exec());  // lengths above the shortest series too
    }
}

TEST(shapelets_long_series_cross_row_groups) {
    // series longer than one row group (256 rows): the per-group restarts must agree with the oracle
    auto S = random_set(77, 5, 2, 300, 330);
    compare_to_oracle(S, 8, 8, 1, 4, tsmt::cpu_exec());
}

TEST(shapelets_order_lines_carried_between_pivots_match_bruteforce) {
    // A pivot's order line starts as the one its scratch last sorted.  Smooth
    // series (cumulative sums) keep it nearly in order (insertion sort),
    // copies of a series put entries at equal distances, and 48 series of
    // noise move it further than 8 N entries (the hand-over to std::sort).
    for (uint64_t seed = 21; seed <= 24; ++seed) {
        const bool smooth = seed % 2 == 1;
        auto S = random_set(seed, smooth ? 24 : 48, 2 + (int)(seed % 3), 40, 48);
        for (size_t i = 0; smooth && i < S.x.size(); ++i)
            if (i % 3 != 2)
                for (size_t t = 1; t < S.x[i].size(); ++t) S.x[i][t] += S.x[i][t - 1];
        S.x[7] = S.x[2];
        S.x[19] = S.x[2];
        S.x[12] = S.x[4];
        compare_to_oracle(S, 5, 9, 1, 120, tsmt::cpu_exec(1 + seed % 2));  // deeper: gains equal within the oracle's 1e-9
    }
}

TEST(shapelet_distance_definition) {
    auto S = random_set(5, 6, 2, 40, 60);
    for (int L : {2, 5, 17, 40}) {
        for (int s = 0; s < 6; ++s) {
            if (3 + L > (int)S.x[s].size()) continue;
            const double* shp = S.x[s].data() + 3;
            double d;
            TsStatus st;
            tsm_shapelet_distance(shp, L, S.x[s].data(), (int64_t)S.x[s].size(), &d, &st);
            CHECK_OK(st);
            CHECK_EQ(d, 0.0);  // own source: exactly 0
            for (int j = 0; j < 6; ++j) {
                tsm_shapelet_distance(shp, L, S.x[j].data(), (int64_t)S.x[j].size(), &d, &st);
                CHECK_OK(st);
                CHECK_NEAR(d, oracle_distance(shp, L, S.x[j]), 1e-9);
                CHECK(d >= 0 && d <= 2);
            }
        }
    }
    // the distance is formula (2): identical up to offset and scale -> 0
    std::vector<double> a = {1, 3, 2, 5, 4}, b = {0, 0, 10, 30, 20, 50, 40, 0};
    for (auto& v : b) v = 7 + v;
    double d;
    TsStatus st;
    tsm_shapelet_distance(a.data(), 5, b.data(), 8, &d, &st);
    CHECK_OK(st);
    CHECK_NEAR(d, 0.0, 1e-7);
    // anti-correlated: 2
    std::vector<double> c = {-1, -3, -2, -5, -4};
    tsm_shapelet_distance(a.data(), 5, c.data(), 5, &d, &st);
    CHECK_NEAR(d, 2.0, 1e-12);
    // series shorter than the shapelet: error
    tsm_shapelet_distance(a.data(), 5, c.data(), 4, &d, &st);
    CHECK_EQ(st.code, (int)TS_INVALID_ARGUMENT);
    CHECK(std::strstr(st.message, "shorter than the shapelet") != nullptr);
    // a NaN in the series is a gap: no window of 5 without one, so NaN (SQL NULL)
    std::vector<double> nan = {1, 2, std::nan(""), 4, 5, 6};
    tsm_shapelet_distance(a.data(), 5, nan.data(), 6, &d, &st);
    CHECK_OK(st);
    CHECK(std::isnan(d));
    // a NaN or infinity in the shapelet: an error
    tsm_shapelet_distance(nan.data(), 5, b.data(), 8, &d, &st);
    CHECK_EQ(st.code, (int)TS_INVALID_ARGUMENT);
    CHECK(std::strstr(st.message, "the shapelet contains a NaN or infinite value") != nullptr);
}

TEST(shapelet_distance_flat_windows) {
    std::vector<double> flat(6, 3.0), ramp = {1, 2, 3, 4, 5, 6};
    std::vector<double> mixed = {5, 5, 5, 5, 9, 1, 7, 2};
    double d;
    TsStatus st;
    tsm_shapelet_distance(ramp.data(), 4, flat.data(), 6, &d, &st);  // only flat windows: 1
    CHECK_OK(st);
    CHECK_EQ(d, 1.0);
    tsm_shapelet_distance(flat.data(), 4, mixed.data(), 8, &d, &st);  // flat shapelet, flat window: 0
    CHECK_EQ(d, 0.0);
    tsm_shapelet_distance(flat.data(), 4, ramp.data(), 6, &d, &st);  // flat shapelet, no flat window: 1
    CHECK_EQ(d, 1.0);
    // offset flat runs with rounding noise count as flat too (std <= 2^-52 |mean|)
    std::vector<double> noisy = {1e8, 1e8 + 1.4901161193847656e-8, 1e8, 1e8, 1e8};
    tsm_shapelet_distance(ramp.data(), 4, noisy.data(), 5, &d, &st);
    CHECK_EQ(d, 1.0);
}

TEST(shapelets_flat_windows_are_not_candidates) {
    // FaceFour-like: long constant runs in every series; the oracle knows the rules too
    auto S = random_set(21, 10, 2, 30, 30);
    for (size_t i = 0; i < S.x.size(); ++i)
        for (int t = 4; t < 14; ++t) S.x[i][t] = (i % 3 == 0) ? 2.5 : -1.0;
    compare_to_oracle(S, 3, 9, 2, 10, tsmt::cpu_exec());
    auto r = run_shapelets(S, 3, 12, 1, 50, tsmt::cpu_exec());
    for (int i = 0; i < r.count; ++i) {
        bool all_eq = true;
        for (int t = 1; t < r.items[i].length; ++t) all_eq &= r.items[i].values[t] == r.items[i].values[0];
        CHECK(!all_eq);
    }
    // a set whose only non-flat windows are in one series still works
    Set F;
    F.C = 2;
    F.x = {{1, 1, 1, 1, 1, 1}, {2, 2, 2, 2, 2, 2}, {0, 1, 0, 2, 0, 3}, {4, 4, 4, 4, 4, 4}};
    F.y = {0, 0, 1, 1};
    auto rf = run_shapelets(F, 3, 4, 1, 3, tsmt::cpu_exec());
    CHECK(rf.count >= 1);
    for (int i = 0; i < rf.count; ++i) CHECK_EQ(rf.items[i].source_row, 2);
}

TEST(shapelets_invariant_to_offset_1e8) {
    auto S = random_set(31, 12, 3, 40, 48);
    Set T = S;
    for (auto& x : T.x)
        for (auto& v : x) v += 1e8;
    same_shapelets(run_shapelets(S, 4, 16, 2, 5, tsmt::cpu_exec()), run_shapelets(T, 4, 16, 2, 5, tsmt::cpu_exec()),
                   1e-5);
}

// Every series classified alone (tsm_shapelet_classify) as in the batch (pred).
static void single_form_agrees(const TsShapeletTree& t, const Set& S, const std::vector<int32_t>& pred) {
    for (size_t i = 0; i < S.x.size(); ++i) {
        int32_t c;
        TsStatus st;
        tsm_shapelet_classify(t.nodes, t.n_nodes, t.n_classes, S.x[i].data(), (int64_t)S.x[i].size(), &c, &st);
        CHECK_OK(st);
        CHECK_EQ(c, pred[i]);
    }
}

TEST(shapelets_errors) {
    auto S = random_set(3, 6, 2, 20, 20);
    TsStatus st;
    auto expect = [&](int minL, int maxL, int step, int k, const char* needle) {
        run_shapelets(S, minL, maxL, step, k, tsmt::cpu_exec(), &st);
        CHECK_EQ(st.code, (int)TS_INVALID_ARGUMENT);
        CHECK_EQ(std::string(st.sqlstate), std::string("22023"));
        if (!std::strstr(st.message, needle)) tsmt::fail(__FILE__, __LINE__, std::string("message: ") + st.message);
    };
    expect(1, 5, 1, 1, "min_length must be at least 2");
    expect(5, 4, 1, 1, "max_length");
    expect(3, 5, 0, 1, "step must be at least 1");
    expect(3, 5, 1, 0, "k must be at least 1");
    expect(21, 25, 1, 1, "fewer than min_length");
    Set one = S;
    for (auto& y : one.y) y = 0;
    run_shapelets(one, 3, 5, 1, 1, tsmt::cpu_exec(), &st);
    CHECK(std::strstr(st.message, "only one class") != nullptr);
    Set two;
    two.C = 2;
    two.x = {S.x[0]};
    two.y = {0};
    run_shapelets(two, 3, 5, 1, 1, tsmt::cpu_exec(), &st);
    CHECK(std::strstr(st.message, "at least two") != nullptr);
    Set nan = S;  // a gap, no error (test_shapelets.cpp's gap tests)
    nan.x[4][7] = std::nan("");
    run_shapelets(nan, 3, 5, 1, 1, tsmt::cpu_exec(), &st);
    CHECK_OK(st);
    Set shortrow = S;
    shortrow.x[2].resize(4);
    run_shapelets(shortrow, 5, 8, 1, 1, tsmt::cpu_exec(), &st);
    CHECK(std::strstr(st.message, "training row 3 has 4 values") != nullptr);
}

TEST(shapelet_tree_separable_set) {
    // three classes, each with its own planted shape: 100% training accuracy
    auto S = random_set(41, 24, 3, 50, 60);
    auto t = run_tree(S, 6, 12, 3, TS_ARG_NULL, 0, tsmt::cpu_exec());
    CHECK(t.n_nodes >= 5);
    CHECK_EQ(t.nodes[0].kind, (int)TS_SHAPELET_SPLIT);
    auto pred = classify(t, S, tsmt::cpu_exec());
    CHECK_EQ(accuracy(pred, S.y), 1.0);
    // single form == batch form; pre-order; leaves hold counts
    single_form_agrees(t, S, pred);
    int64_t leaf_total = 0;
    for (int i = 0; i < t.n_nodes; ++i) {
        const auto& n = t.nodes[i];
        int64_t s = 0;
        for (int c = 0; c < t.n_classes; ++c) s += n.class_counts[c];
        CHECK_EQ(s, n.n_series);
        if (n.kind == TS_SHAPELET_LEAF) {
            leaf_total += n.n_series;
            int nz = 0;
            for (int c = 0; c < t.n_classes; ++c) nz += n.class_counts[c] > 0;
            CHECK_EQ(nz, 1);  // pure
        } else {
            CHECK(n.left > i && n.right > i);
            CHECK_EQ(t.nodes[n.left].n_series + t.nodes[n.right].n_series, n.n_series);
            CHECK(n.gain > 0);
        }
    }
    CHECK_EQ(leaf_total, (int64_t)S.x.size());
    // max_depth 0: one leaf with the majority; max_depth 1: one split
    auto t0 = run_tree(S, 6, 12, 3, 0, 0, tsmt::cpu_exec());
    CHECK_EQ(t0.n_nodes, 1);
    CHECK_EQ(t0.nodes[0].kind, (int)TS_SHAPELET_LEAF);
    auto t1 = run_tree(S, 6, 12, 3, 1, 0, tsmt::cpu_exec());
    CHECK_EQ(t1.n_nodes, 3);
    // the root split is the best shapelet of tsm_shapelets
    auto top = run_shapelets(S, 6, 12, 3, 1, tsmt::cpu_exec());
    CHECK_EQ(t.nodes[0].source_row[0], top.items[0].source_row);
    CHECK_EQ(t.nodes[0].start[0], top.items[0].start);
    CHECK_EQ(t.nodes[0].length[0], top.items[0].length);
    CHECK_EQ(t.nodes[0].threshold, top.items[0].threshold);
}

TEST(shapelet_tree_logical_or) {
    // class 1 holds a bump OR a sharp spike pair; class 0 neither: one OR node separates all
    Set S;
    S.C = 2;
    for (int i = 0; i < 24; ++i) {
        auto x = tsmt::gaussian(60, 500 + i, 0, 0.3);
        int cls = i % 2;
        int at = 5 + (i * 7) % 40;
        if (cls == 1 && (i / 2) % 2 == 0)
            for (int t = 0; t < 10; ++t) x[at + t] += 4 * std::sin(3.14159 * t / 9);
        if (cls == 1 && (i / 2) % 2 == 1)
            for (int t = 0; t < 10; ++t) x[at + t] += (t == 2 ? 5 : t == 7 ? -5 : 0);
        S.x.push_back(x);
        S.y.push_back(cls);
    }
    auto plain = run_tree(S, 10, 10, 1, 1, 0, tsmt::cpu_exec());
    auto logic = run_tree(S, 10, 10, 1, 1, 1, tsmt::cpu_exec());
    CHECK_EQ(logic.nodes[0].kind, (int)TS_SHAPELET_SPLIT);
    CHECK_EQ(logic.nodes[0].op, (int)TS_SHAPELET_OR);
    CHECK_EQ(logic.nodes[0].n_shapelets, 2);
    CHECK(logic.nodes[0].gain > plain.nodes[0].gain);
    auto pl = accuracy(classify(plain, S, tsmt::cpu_exec()), S.y);
    auto lo = accuracy(classify(logic, S, tsmt::cpu_exec()), S.y);
    std::printf("    logical OR depth 1: train accuracy %.3f (plain %.3f)\n", lo, pl);
    CHECK_EQ(lo, 1.0);
    CHECK(lo > pl);
}

TEST(shapelet_classify_rejects_bad_trees) {
    TsShapeletNode n[2]{};
    n[0].kind = TS_SHAPELET_SPLIT;
    n[0].op = TS_SHAPELET_SINGLE;
    n[0].n_shapelets = 1;
    double v[3] = {1, 2, 3};
    n[0].values[0] = v;
    n[0].length[0] = 3;
    n[0].left = 0;  // cycle
    n[0].right = 1;
    n[1].kind = TS_SHAPELET_LEAF;
    double x[5] = {1, 2, 3, 4, 5};
    int32_t c;
    TsStatus st;
    tsm_shapelet_classify(n, 2, 2, x, 5, &c, &st);
    CHECK_EQ(st.code, (int)TS_INVALID_ARGUMENT);
    n[0].left = 1;
    n[1].class_id = 2;  // out of range
    tsm_shapelet_classify(n, 2, 2, x, 5, &c, &st);
    CHECK_EQ(st.code, (int)TS_INVALID_ARGUMENT);
    n[1].class_id = 1;
    tsm_shapelet_classify(n, 2, 2, x, 5, &c, &st);
    CHECK_OK(st);
    CHECK_EQ(c, 1);
    // a series shorter than the shapelet goes right (distance 2)
    tsm_shapelet_classify(n, 2, 2, x, 2, &c, &st);
    CHECK_OK(st);
}

namespace {
double ucr_tree_accuracy(const char* name, int minL, int maxL, int step, int logical, TsExec ex, double* secs,
                         TsShapeletTree* tree_out = nullptr) {
    Set tr, te;
    std::vector<double> labels;
    if (!load_ucr(name, "TRAIN", tr, labels) || !load_ucr(name, "TEST", te, labels)) {
        tsmt::fail(__FILE__, __LINE__, std::string("cannot read UCR data set ") + name);
        return 0;
    }
    auto t0 = std::chrono::steady_clock::now();
    auto t = run_tree(tr, minL, maxL, step, TS_ARG_NULL, logical, ex);
    *secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK_EQ(accuracy(classify(t, tr, tsmt::cpu_exec()), tr.y), 1.0);  // grown to purity
    if (tree_out) *tree_out = t;
    return accuracy(classify(t, te, tsmt::cpu_exec()), te.y);
}
}  // namespace

TEST(shapelet_tree_ucr_gunpoint_and_italy) {
    double s1, s2, s3;
    // GunPoint: lengths 10..150 step 10 (the published figures: FS 0.947, ST 1.0; majority 0.493)
    double gp = ucr_tree_accuracy("GunPoint", 10, 150, 10, 0, tsmt::cpu_exec(), &s1);
    // ItalyPowerDemand: every length 3..24 (FS 0.917, C4.5 0.947; majority 0.499)
    double it = ucr_tree_accuracy("ItalyPowerDemand", 3, 24, 1, 0, tsmt::cpu_exec(), &s2);
    double itl = ucr_tree_accuracy("ItalyPowerDemand", 3, 24, 1, 1, tsmt::cpu_exec(), &s3);
    std::printf("    GunPoint tree test accuracy %.4f (%.1f s); ItalyPowerDemand %.4f (%.1f s), logical %.4f (%.1f s)\n",
                gp, s1, it, s2, itl, s3);
    CHECK(gp >= 0.80);
    CHECK(it >= 0.85);
    CHECK(itl >= 0.85);
}

// ---- GPU == CPU --------------------------------------------------------------------

GPU_TEST(shapelets_gpu_matches_cpu_random_sets) {
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        const int nmin = 20 + 5 * (int)seed;
        auto S = random_set(seed, 8 + 3 * (int)seed, 2 + (int)(seed % 4), nmin, nmin + 40 * (int)(seed % 3));
        int step = 1 + (int)(seed % 3);
        auto c = run_shapelets(S, 3, 40, step, 20, tsmt::cpu_exec());
        auto g = run_shapelets(S, 3, 40, step, 20, tsmt::gpu_exec());
        same_shapelets(c, g);
        CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
    }
    // long series: several row groups, carries through many tiles
    auto S = random_set(99, 6, 2, 700, 900);
    same_shapelets(run_shapelets(S, 10, 60, 25, 10, tsmt::cpu_exec()), run_shapelets(S, 10, 60, 25, 10, tsmt::gpu_exec()));
    // brute force on the GPU too
    auto B = random_set(4, 11, 3, 22, 30);
    auto g = run_shapelets(B, 3, 10, 1, 8, tsmt::gpu_exec());
    auto w = oracle_shapelets(B, 3, 10, 1, 8);
    CHECK_EQ(g.count, (int)w.size());
    for (int i = 0; i < std::min(g.count, (int)w.size()); ++i) {
        CHECK_EQ(g.items[i].source_row, (int64_t)w[i].s);
        CHECK_EQ(g.items[i].start, w[i].p);
        CHECK_EQ(g.items[i].length, w[i].L);
        CHECK_NEAR(g.items[i].info_gain, w[i].gain, 1e-9);
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
}

GPU_TEST(shapelets_gpu_matches_cpu_every_k) {
    // k <= 64: per-warp best-k lists on the device; k > 64: per-pivot results merged on the host
    auto S = random_set(77, 24, 3, 60, 90);
    for (int k : {1, 2, 63, 64, 65, 300}) {
        auto c = run_shapelets(S, 3, 40, 1, k, tsmt::cpu_exec());
        auto g = run_shapelets(S, 3, 40, 1, k, tsmt::gpu_exec());
        CHECK_EQ(c.count, k);
        same_shapelets(c, g);
    }
    // many series: the distances of one launch are bounded (32 MiB), so several launches
    auto M = random_set(78, 120, 4, 90, 120);
    for (int k : {1, 100}) same_shapelets(run_shapelets(M, 5, 60, 5, k, tsmt::cpu_exec()), run_shapelets(M, 5, 60, 5, k, tsmt::gpu_exec()));
    CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
}

GPU_TEST(shapelets_gpu_matches_cpu_flat_and_offset) {
    auto S = random_set(21, 14, 3, 50, 70);
    for (size_t i = 0; i < S.x.size(); ++i)
        for (int t = 4; t < 20; ++t) S.x[i][t] = (i % 3 == 0) ? 2.5 : -1.0;
    same_shapelets(run_shapelets(S, 3, 30, 1, 25, tsmt::cpu_exec()), run_shapelets(S, 3, 30, 1, 25, tsmt::gpu_exec()));
    for (auto& x : S.x)
        for (auto& v : x) v += 1e8;
    same_shapelets(run_shapelets(S, 3, 30, 1, 25, tsmt::cpu_exec()), run_shapelets(S, 3, 30, 1, 25, tsmt::gpu_exec()));
    CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
}

GPU_TEST(shapelet_trees_gpu_match_cpu) {
    auto S = random_set(41, 30, 3, 50, 80);
    same_tree(run_tree(S, 5, 30, 1, TS_ARG_NULL, 0, tsmt::cpu_exec()),
              run_tree(S, 5, 30, 1, TS_ARG_NULL, 0, tsmt::gpu_exec()));
    same_tree(run_tree(S, 5, 30, 2, 3, 1, tsmt::cpu_exec()), run_tree(S, 5, 30, 2, 3, 1, tsmt::gpu_exec()));
    CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
}

GPU_TEST(shapelets_gpu_gunpoint_all_lengths) {
    Set tr;
    std::vector<double> labels;
    CHECK(load_ucr("GunPoint", "TRAIN", tr, labels));
    // CPU reference with step 10 (seconds), GPU all lengths (the paper's Table II setting)
    same_shapelets(run_shapelets(tr, 10, 150, 10, 10, tsmt::cpu_exec()), run_shapelets(tr, 10, 150, 10, 10, tsmt::gpu_exec()));
    auto t0 = std::chrono::steady_clock::now();
    TsExec ex = tsmt::gpu_exec();
    auto g = run_shapelets(tr, 2, 150, 1, 5, ex);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("    GunPoint all lengths on the GPU: %.3f s (kernels %.1f ms); best: row %lld start %d length %d gain %.4f\n",
                s, ex.kernel_ms, (long long)g.items[0].source_row, g.items[0].start, g.items[0].length, g.items[0].info_gain);
    CHECK(g.count == 5);
    // tree GPU == CPU on GunPoint (step 10 to keep the CPU side short)
    same_tree(run_tree(tr, 10, 150, 10, TS_ARG_NULL, 0, tsmt::cpu_exec()),
              run_tree(tr, 10, 150, 10, TS_ARG_NULL, 0, tsmt::gpu_exec()));
    same_tree(run_tree(tr, 10, 150, 10, TS_ARG_NULL, 1, tsmt::cpu_exec()),
              run_tree(tr, 10, 150, 10, TS_ARG_NULL, 1, tsmt::gpu_exec()));
    CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
}

GPU_TEST(shapelets_gpu_table2_timings) {
    // The paper's Table II (GTX 480, distance computation, seconds), all lengths unless marked *
    // (* = lengths multiple of 10).  Goal: >= 100x faster; OSULeaf with all lengths (20.2 min there) < 10 s.
    struct Row { const char* name; double paper; int step; };
    const Row rows[] = {{"Coffee", 3.0, 1},  {"CBF", 0.4, 1},      {"GunPoint", 1.2, 1},  {"Trace", 34.2, 1},
                        {"FaceFour", 3.8, 1}, {"Beef", 18.1, 1},    {"OliveOil", 31.2, 1}, {"Car", 127.7, 1},
                        {"ItalyPowerDemand", 0.0, 1}, {"OSULeaf", 65.9, 10}, {"OSULeaf", 1212.0, 1}};
    for (const Row& r : rows) {
        Set tr;
        std::vector<double> labels;
        if (!load_ucr(r.name, "TRAIN", tr, labels)) { tsmt::fail(__FILE__, __LINE__, r.name); continue; }
        int64_t longest = 0;
        for (auto& x : tr.x) longest = std::max<int64_t>(longest, (int64_t)x.size());
        TsExec ex = tsmt::gpu_exec();
        auto t0 = std::chrono::steady_clock::now();
        auto g = run_shapelets(tr, r.step == 10 ? 10 : 2, (int)longest, r.step, 1, ex, nullptr, &ex);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("    %-17s step %2d: %7.3f s (device %8.1f ms, kernels %8.1f ms, paper %6.1f s, x%.0f); best row %lld start %d length %d gain %.4f\n",
                    r.name, r.step, s, ex.device_ms, ex.kernel_ms, r.paper, r.paper > 0 ? r.paper / s : 0.0,
                    g.count ? (long long)g.items[0].source_row : -1LL, g.count ? g.items[0].start : -1,
                    g.count ? g.items[0].length : -1, g.count ? g.items[0].info_gain : 0.0);
        CHECK_EQ(g.count, 1);
        if (std::strcmp(r.name, "OSULeaf") == 0 && r.step == 1) CHECK(s < 10.0);
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
}

#ifdef TSMINE_WITH_CUDA
GPU_TEST(shapelets_gpu_every_tuning_matches_cpu) {
    // The GPU engine's paths: direct diagonal starts from the start table or computed by
    // the distance kernel (start_table_cap 0), table groups split by a small cap (some
    // lengths too big for it: mixed groups), one, two or four pivot rows per lane; series
    // of unequal lengths (shorter than some pivots), long series (several row groups),
    // more than 32 and 64 series (several rounds of the gain kernel), device best-k lists
    // (k <= 64) and per-pivot results (k > 64), logical trees (partner distances); settling
    // lazily or not.  Every setting must give the CPU's pivots, gains, thresholds and gaps
    // exactly.
    using tsm::shp::gpu::Tuning;
    using tsm::shp::gpu::tuning;
    const Tuning saved = tuning();
    struct Case { int64_t start_table_cap; int rpl; bool lazily; };
    const int64_t cap = saved.start_table_cap;
    const Case cases[] = {{cap, saved.rows_per_lane, true}, {cap, 1, true}, {cap, 2, true}, {cap, 4, true},
                          {0, 1, true}, {0, 2, true}, {0, 4, true}, {3000, 2, true}, {40000, 1, true},
                          {40000, 4, true}, {cap, saved.rows_per_lane, false}};
    auto A = random_set(501, 13, 3, 30, 95);    // unequal lengths: series shorter than the longest pivots
    auto B = random_set(502, 70, 4, 60, 64);    // N > 64
    auto Lg = random_set(503, 5, 2, 600, 700);  // several row groups of 256 rows
    auto Cc = random_set(504, 40, 2, 20, 140);
    const TsShapelets ca1 = run_shapelets(A, 2, 95, 1, 7, tsmt::cpu_exec());
    const TsShapelets ca2 = run_shapelets(A, 3, 60, 4, 90, tsmt::cpu_exec());
    const TsShapelets cb = run_shapelets(B, 2, 64, 3, 3, tsmt::cpu_exec());
    const TsShapelets cl = run_shapelets(Lg, 20, 300, 40, 4, tsmt::cpu_exec());
    const TsShapelets cc = run_shapelets(Cc, 2, 140, 1, 1, tsmt::cpu_exec());
    const TsShapeletTree ct = run_tree(Cc, 3, 60, 3, 3, 1, tsmt::cpu_exec());
    for (const Case& c : cases) {
        tuning().start_table_cap = c.start_table_cap;
        tuning().rows_per_lane = c.rpl;
        tsm::shp::settle_lazily() = c.lazily;
        std::printf("    start_table_cap %lld, rows per lane %d, settle lazily %d\n", (long long)c.start_table_cap,
                    c.rpl, (int)c.lazily);
        same_shapelets(ca1, run_shapelets(A, 2, 95, 1, 7, tsmt::gpu_exec()), 0.0);
        same_shapelets(ca2, run_shapelets(A, 3, 60, 4, 90, tsmt::gpu_exec()), 0.0);
        same_shapelets(cb, run_shapelets(B, 2, 64, 3, 3, tsmt::gpu_exec()), 0.0);
        same_shapelets(cl, run_shapelets(Lg, 20, 300, 40, 4, tsmt::gpu_exec()), 0.0);
        same_shapelets(cc, run_shapelets(Cc, 2, 140, 1, 1, tsmt::gpu_exec()), 0.0);
        same_tree(ct, run_tree(Cc, 3, 60, 3, 3, 1, tsmt::gpu_exec()));
        CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
    }
    tuning() = saved;
    tsm::shp::settle_lazily() = true;
}
#endif

// ---- hostile data (issue #15): identical windows, glitch spikes, offsets,
// ---- scales over the float64 range, denormals -------------------------------

namespace {

// A Set as the engine's Subset (every series in its frame).
struct Engine {
    std::vector<tsm::shp::Scaled> scaled;
    tsm::shp::Subset sub;
    explicit Engine(const Set& S) {
        for (size_t i = 0; i < S.x.size(); ++i) scaled.push_back(tsm::shp::scaled_series(S.x[i].data(), S.x[i].size()));
        sub.C = S.C;
        for (size_t i = 0; i < S.x.size(); ++i) {
            sub.x.push_back(scaled[i].values(S.x[i].data()));
            sub.scaled.push_back(&scaled[i]);
            sub.n.push_back((int64_t)S.x[i].size());
            sub.y.push_back(S.y[i]);
            sub.row.push_back((int64_t)i);
        }
    }
};

TEST(shapelets_direct_comoments_are_local_comoment_bits) {
    // The CPU engine's direct rows and columns (t-outer, four terms a pass)
    // against local_comoment, the device's direct form: the same bits, at
    // lengths with every remainder mod 4, scales 2^-600..2^600 and an offset.
    const auto bits_differ = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) != 0; };
    int bad = 0;
    for (uint64_t seed = 31; seed <= 34; ++seed) {
        auto S = random_set(seed, 3, 2, 60, 80);
        const double scale = std::ldexp(1.0, (int)(seed % 4) * 400 - 600);
        for (auto& x : S.x)
            for (double& v : x) v = (v + (seed % 2 ? 1e9 : 0.0)) * scale;
        Engine e(S);
        for (int L : {2, 3, 4, 5, 11, 16, 37}) {
            tsm::shp::LengthStats st;
            tsm::shp::length_stats(e.sub, L, st);
            const int s = 0, j = 1, n_s = (int)S.x[s].size(), n_j = (int)S.x[j].size();
            const double *a = e.sub.scaled[s]->y.data(), *b = e.sub.scaled[j]->y.data();
            const double *mean_a = st.mean.data() + st.off[s], *mean_b = st.mean.data() + st.off[j];
            for (int p : {0, 7, n_s - L}) {
                const auto row = tsm::shp::direct_row_comoments(e.sub, s, j, p, L);
                for (int u = 0; u <= n_j - L; ++u)
                    bad += bits_differ(row[u], tsm::shp::local_comoment(a + p, mean_a[p], b + u, mean_b[u], L));
            }
            const auto column = tsm::shp::direct_column_comoments(e.sub, s, j, 1, n_s - L + 1, L);
            for (int p = 1; p <= n_s - L; ++p)
                bad += bits_differ(column[p - 1], tsm::shp::local_comoment(a + p, mean_a[p], b, mean_b[0], L));
        }
    }
    CHECK_EQ(bad, 0);
}

// Every pivot's training distances (the engine's) against the oracle: equal
// within 1e-9 relative, and 0 exactly where the oracle's is 0 (below the floor).
void training_distances_match_oracle(const Set& S, const std::vector<int>& lengths, const char* what) {
    Engine e(S);
    int bad = 0;
    for (int L : lengths)
        for (int s = 0; s < (int)S.x.size(); ++s)
            for (int p = 0; p + L <= (int)S.x[s].size(); p += 5) {
                long double mu, sd;
                if (has_gap(S.x[s].data() + p, L) || flat_window(S.x[s].data() + p, L, &mu, &sd))
                    continue;  // never a candidate
                const auto got = tsm::shp::pivot_distances(e.sub, s, p, L);
                for (int j = 0; j < (int)S.x.size(); ++j) {
                    const double want = j == s ? 0.0 : oracle_distance(S.x[s].data() + p, L, S.x[j]);
                    const bool ok = std::isfinite(got[j]) &&
                                    (want == 0 ? got[j] == 0 : std::fabs(got[j] - want) <= 1e-9 * want);
                    if (!ok && bad++ < 5)
                        std::printf("  %s: L %d pivot (%d, %d) to %d: %.17g, oracle %.17g\n", what, L, s, p, j, got[j],
                                    want);
                }
            }
    CHECK_EQ(bad, 0);
}

// The sine-and-noise set of the hostile tests: 6 series, 2 classes.
Set wave_set(uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    Set S;
    S.C = 2;
    for (int i = 0; i < 6; ++i) {
        std::vector<double> x(n);
        const double f = 0.2 + 0.05 * (i % 3);
        for (int t = 0; t < n; ++t) x[t] = std::sin(f * t) + 0.3 * std::sin(2.3 * t + i) + 0.01 * (double)(rng() % 1000) / 1000;
        S.x.push_back(x);
        S.y.push_back(i % 2);
    }
    return S;
}

double distance_of(const std::vector<double>& shp, const std::vector<double>& x) {
    double d = -1;
    TsStatus st;
    tsm_shapelet_distance(shp.data(), (int32_t)shp.size(), x.data(), (int64_t)x.size(), &d, &st);
    CHECK_OK(st);
    return d;
}

}  // namespace

// The repro of issue #15: four identical series labelled a, b, a, b.  Every
// window of the ramp is a ramp, so every distance is exactly 0 (before the
// fix, 1.49e-8 through the recurrence, and a "split" at 7.45e-9 with gain
// 0.311).  No split separates anything: ts_shapelets returns no rows, and
// the tree is one leaf with the class counts {2, 2} (majority: the first
// label), which classifies all four as 'a' and claims no purity.
TEST(shapelets_identical_series_have_no_split) {
    Set S;
    S.C = 2;
    for (int i = 0; i < 4; ++i) {
        S.x.push_back({1, 2, 3, 4, 5, 6, 7, 8});
        S.y.push_back(i % 2);
    }
    Engine e(S);
    for (int L : {3, 4})
        for (int p = 0; p + L <= 8; ++p)
            for (double d : tsm::shp::pivot_distances(e.sub, 0, p, L)) CHECK_EQ(d, 0.0);
    auto r = run_shapelets(S, 3, 4, 1, 1, tsmt::cpu_exec());
    CHECK_EQ(r.count, 0);
    auto t = run_tree(S, 3, 4, 1, TS_ARG_NULL, 0, tsmt::cpu_exec());
    CHECK_EQ(t.n_nodes, 1);
    CHECK_EQ(t.nodes[0].kind, (int)TS_SHAPELET_LEAF);
    CHECK_EQ(t.nodes[0].class_counts[0], 2);
    CHECK_EQ(t.nodes[0].class_counts[1], 2);
    CHECK_EQ(t.nodes[0].class_id, 0);
}

// A window copied into another series (and, scaled by 2^-600 or shifted by a
// multiple of its own last place, into a third) is at distance exactly 0 in
// training and in ts_shapelet_distance.
TEST(shapelets_identical_windows_are_at_distance_zero) {
    auto S = random_set(41, 6, 2, 300, 300, false);
    for (int L : {5, 17, 60}) {
        for (int t = 0; t < L; ++t) {
            S.x[3][200 + t] = S.x[0][100 + t];
            S.x[4][10 + t] = std::ldexp(S.x[0][100 + t], -600);
        }
        Engine e(S);
        const auto d = tsm::shp::pivot_distances(e.sub, 0, 100, L);
        CHECK_EQ(d[3], 0.0);
        CHECK_EQ(d[4], 0.0);
        const std::vector<double> shp(S.x[0].begin() + 100, S.x[0].begin() + 100 + L);
        CHECK_EQ(distance_of(shp, S.x[3]), 0.0);
        CHECK_EQ(distance_of(shp, S.x[4]), 0.0);
    }
}

// A glitch of 1e9 (and of 1e15 times the signal) in a series leaves every
// other window's distances alone: training distances equal the oracle within
// 1e-9 relative, pivots in the spiked series and targets in it alike.
TEST(shapelets_glitch_spike_elsewhere) {
    for (double spike : {1e9, 1e15, -3e12}) {
        auto S = wave_set(5, 400);
        S.x[1][150] = spike;
        S.x[4][390] = spike;
        training_distances_match_oracle(S, {4, 40}, "spike");
        const std::vector<double> shp(S.x[0].begin() + 30, S.x[0].begin() + 42);
        for (int j = 0; j < 6; ++j) CHECK_REL(distance_of(shp, S.x[j]), oracle_distance(shp.data(), 12, S.x[j]), 1e-9);
    }
}

// Offsets of 1e9 with a signal of 1e-6 (the values carry 8 units of 1e9's
// last place), and mixed offsets between series.
TEST(shapelets_offset_1e9_signal_1e6) {
    auto S = wave_set(6, 200);
    for (size_t i = 0; i < S.x.size(); ++i)
        for (auto& v : S.x[i]) v = (i % 3 == 2 ? -5e8 : 1e9) + 1e-6 * v;
    training_distances_match_oracle(S, {5, 20}, "offset");
    const std::vector<double> shp(S.x[0].begin() + 30, S.x[0].begin() + 50);
    for (int j = 0; j < 6; ++j) CHECK_REL(distance_of(shp, S.x[j]), oracle_distance(shp.data(), 20, S.x[j]), 1e-9);
}

// Each series scaled by its own power of two from 2^-1000 to 2^1000, one by
// 2^1023 (values near ±1.2e308), and a denormal series: the same distances as the oracle, and
// ts_shapelets gives the same rows (thresholds and gaps bit for bit) as on
// the unscaled set.
TEST(shapelets_scales_over_the_float64_range) {
    const auto base = wave_set(7, 120);
    std::mt19937_64 rng(8);
    for (int rep = 0; rep < 3; ++rep) {
        Set S = base;
        for (size_t i = 0; i < S.x.size(); ++i) {
            const int k = rep == 2 && i == 2 ? -1070 : (int)(rng() % 2001) - 1000;  // one denormal series
            for (auto& v : S.x[i]) v = std::ldexp(v, k);
        }
        for (size_t t = 0; t < S.x[5].size(); ++t) S.x[5][t] = std::ldexp(base.x[5][t], 1023);  // up to ±1.2e308
        training_distances_match_oracle(S, {3, 10, 30}, "scale");
        if (rep < 2) same_shapelets(run_shapelets(S, 3, 30, 3, 4, tsmt::cpu_exec()),
                                    run_shapelets(Set(base), 3, 30, 3, 4, tsmt::cpu_exec()), 0.0);
    }
}

// Real data, short lengths: GunPoint's flat stretches hold windows whose own
// σ is tiny against the steps around them, where the screen's distances were
// up to 1e-7 off (about 0.2% of the pairs at L ≤ 8) before the settle rule's
// bound: every sampled pivot's training distances equal the oracle.
TEST(shapelets_training_distances_gunpoint_short_lengths) {
    Set S;
    std::vector<double> labels;
    CHECK(load_ucr("GunPoint", "TRAIN", S, labels));
    if (S.x.empty()) return;
    Set sample;
    sample.C = S.C;
    for (size_t i = 0; i < S.x.size(); i += 2) {  // 25 of the 50 series
        sample.x.push_back(S.x[i]);
        sample.y.push_back(S.y[i]);
    }
    training_distances_match_oracle(sample, {4, 7}, "GunPoint");
}

// Values spanning more than 2^470 within one series (a 1e200 glitch among
// values near 1): the screen does not take it, its pairs are computed
// directly; distances still equal the oracle, and every one is finite.
TEST(shapelets_series_beyond_the_screen) {
    auto S = wave_set(9, 150);
    S.x[2][70] = 1e200;
    S.x[3][10] = -1.7976931348623157e308;
    Engine e(S);
    CHECK(!e.scaled[2].screenable && !e.scaled[3].screenable && e.scaled[0].screenable);
    training_distances_match_oracle(S, {6, 25}, "beyond");
    auto r = run_shapelets(S, 6, 25, 1, 3, tsmt::cpu_exec());
    for (int i = 0; i < r.count; ++i) CHECK(std::isfinite(r.items[i].threshold) && std::isfinite(r.items[i].gap));
}

// ---- settling where it decides (shapelets_detail.h) ---------------------------------

namespace {

// Every pending entry's direct distance lies in its range (settled_range) at
// each length; returns how many were pending, *wide: how many ranges are
// wider than 1e-5 (too wide to order neighbours by).
int64_t ranges_hold_direct_distances(const Set& S, const std::vector<int>& lengths, const char* what, int64_t* wide) {
    Engine e(S);
    int64_t pending = 0, bad = 0;
    for (int L : lengths)
        for (const auto& en : tsm::shp::pending_entries(e.sub, L)) {
            ++pending;
            if (en.range.hi - en.range.lo > 1e-5) ++*wide;
            if (en.range.lo <= en.settled && en.settled <= en.range.hi && en.range.lo <= en.screened &&
                en.screened <= en.range.hi)
                continue;
            if (bad++ < 5)
                std::printf("  %s: L %d pivot (%d, %d) to %d: settled %.17g screened %.17g outside [%.17g, %.17g]\n",
                            what, L, en.s, en.p, en.j, en.settled, en.screened, en.range.lo, en.range.hi);
        }
    CHECK_EQ(bad, (int64_t)0);
    return pending;
}

Set ucr_train(const char* name) {
    Set S;
    std::vector<double> labels;
    CHECK(load_ucr(name, "TRAIN", S, labels));
    return S;
}

}  // namespace

// The ranges the gain step orders pending entries by hold their direct
// distances, on the sets where most entries are pending (OliveOil: nearly
// every distance is below 2^-6), on GunPoint, and on hostile data (spikes,
// offsets, scales over the float64 range, identical series); and they are
// narrow enough to order by: on OliveOil from length 9, fewer than 1% are
// wider than 1e-5 (at length 2 every distance is 0 or 2: ranges about 0 are
// some 1e-5 wide, and such ties are settled anyway).
TEST(shapelets_settled_ranges_hold_the_direct_distances) {
    int64_t wide = 0, pending = 0;
    const Set oil = ucr_train("OliveOil");
    if (oil.x.empty()) return;
    const int64_t oil_pending = ranges_hold_direct_distances(oil, {9, 42, 160, 570}, "OliveOil", &wide);
    std::printf("    OliveOil: %lld pending entries, %lld ranges wider than 1e-5\n", (long long)oil_pending,
                (long long)wide);
    CHECK(oil_pending > 100000);
    CHECK(wide * 100 < oil_pending);
    pending += oil_pending + ranges_hold_direct_distances(oil, {2}, "OliveOil", &wide);
    pending += ranges_hold_direct_distances(ucr_train("GunPoint"), {3, 7, 37, 150}, "GunPoint", &wide);
    for (double spike : {1e9, 1e15}) {
        auto S = wave_set(5, 300);
        S.x[1][150] = spike;
        pending += ranges_hold_direct_distances(S, {4, 40}, "spike", &wide);
    }
    auto O = wave_set(6, 200);
    for (size_t i = 0; i < O.x.size(); ++i)
        for (auto& v : O.x[i]) v = (i % 3 == 2 ? -5e8 : 1e9) + 1e-6 * v;
    pending += ranges_hold_direct_distances(O, {5, 20}, "offset", &wide);
    auto K = wave_set(7, 120);
    for (size_t i = 0; i < K.x.size(); ++i)
        for (auto& v : K.x[i]) v = std::ldexp(v, (int)(i * 397 % 2001) - 1000);
    pending += ranges_hold_direct_distances(K, {3, 30}, "scale", &wide);
    auto I = wave_set(8, 100);
    I.x[3] = I.x[0];
    I.x[4] = I.x[0];
    pending += ranges_hold_direct_distances(I, {3, 12, 50}, "identical", &wide);
    std::printf("    all sets: %lld pending entries, %lld ranges wider than 1e-5\n", (long long)pending, (long long)wide);
}

// Five waves with a 1e9 spike in one, a 1e9 offset under a 1e-6 signal in
// another, and two identical series: the lazy-settling tests' hostile set.
static Set hostile_wave_set() {
    auto S = wave_set(5, 300);
    S.x[1][150] = 1e9;
    for (auto& v : S.x[4]) v = 1e9 + 1e-6 * v;
    S.x[2] = S.x[0];
    return S;
}

// Settling only where it decides gives the rows of settling everything, bit
// for bit (gains, gaps, thresholds), for one and several shapelets and for
// logical trees (partner distances), on OliveOil (most entries pending) and
// hostile data; and on OliveOil it settles fewer than a tenth of them (in
// terms of their direct distances).
TEST(shapelets_lazy_settling_equals_settling_everything) {
    bool& lazily = tsm::shp::settle_lazily();
    const Set oil = ucr_train("OliveOil");
    if (oil.x.empty()) return;
    auto& counts = tsm::shp::settle_counts();
    for (int k : {1, 4}) {
        lazily = false;
        const TsShapelets every = run_shapelets(oil, 2, 570, 41, k, tsmt::cpu_exec());
        lazily = true;
        const int64_t p0 = counts.pending, s0 = counts.settled;
        const TsShapelets lazy = run_shapelets(oil, 2, 570, 41, k, tsmt::cpu_exec());
        const int64_t p = counts.pending - p0, settled = counts.settled - s0;
        std::printf("    OliveOil k %d: %lld pending terms, %lld settled\n", k, (long long)p, (long long)settled);
        CHECK(p > 100000 && settled * 10 < p);
        same_shapelets(every, lazy, 0.0);
    }
    const Set S = hostile_wave_set();
    lazily = false;
    const TsShapelets every = run_shapelets(S, 3, 60, 1, 6, tsmt::cpu_exec());
    const TsShapeletTree every_or = run_tree(S, 3, 40, 2, 3, 1, tsmt::cpu_exec());
    lazily = true;
    same_shapelets(every, run_shapelets(S, 3, 60, 1, 6, tsmt::cpu_exec()), 0.0);
    same_tree(every_or, run_tree(S, 3, 40, 2, 3, 1, tsmt::cpu_exec()));
}

// The definition: every pending entry (lo < hi) keeps its place (range_apart).
static bool every_pending_range_apart(const std::vector<double>& lo, const std::vector<double>& hi) {
    const int64_t N = (int64_t)lo.size();
    for (int64_t j = 0; j < N; ++j)
        if (lo[j] < hi[j] && !tsm::shp::range_apart(lo.data(), hi.data(), N, j)) return false;
    return true;
}

// A faster test's answers against the definition's over random trials: the
// first disagreement fails (and is printed); both answers must be exercised.
struct ApartAnswers {
    int answers[2] = {0, 0};
    bool agree(bool definition, bool fast, int trial, int64_t N) {
        CHECK(fast == definition);
        if (fast != definition) {
            std::printf("    trial %d: N %lld, definition %d, fast %d\n", trial, (long long)N, definition, fast);
            return false;
        }
        ++answers[definition];
        return true;
    }
    void both_exercised() const {
        std::printf("    apart %d, not apart %d\n", answers[1], answers[0]);
        CHECK(answers[0] > 1000 && answers[1] > 1000);
    }
};

// pending_ranges_apart (the CPU's O(N log N) test) answers as range_apart
// taken over every pending entry (the definition) on random ranges with
// ties, points, shared ends, nested and disjoint ranges, and NaNs.
TEST(shapelets_pending_ranges_apart_equals_the_pairwise_test) {
    std::mt19937_64 rng(20261207);
    std::vector<double> lo, hi;
    std::vector<int32_t> order;
    ApartAnswers answers;
    for (int trial = 0; trial < 20000; ++trial) {
        const int64_t N = 1 + (int64_t)(rng() % 40);
        const double grid = (double)(2 + rng() % 60);  // coarse grids give ties and shared ends
        lo.assign(N, 0.0);
        hi.assign(N, 0.0);
        order.assign(N, 0);
        for (int64_t j = 0; j < N; ++j) {
            lo[j] = (double)(rng() % (uint64_t)grid);
            hi[j] = rng() % 3 == 0 ? lo[j] + (double)(rng() % 4) : lo[j];  // a third pending
            if (trial % 50 == 0 && rng() % 17 == 0) (rng() % 2 ? lo[j] : hi[j]) = NAN;
        }
        const bool fast = tsm::shp::pending_ranges_apart(lo.data(), hi.data(), N, order.data());
        if (!answers.agree(every_pending_range_apart(lo, hi), fast, trial, N)) return;
    }
    answers.both_exercised();
}

// neighbours_apart along the order line (the GPU's test) answers as
// range_apart over every pending entry wherever the ranges hold their
// distances (range_holds): random lines with ties, points, shared ends,
// nested and disjoint ranges; and a pair of neighbours is apart only when
// the earlier one ends below the later one's start.
TEST(shapelets_neighbours_apart_along_the_line_equals_the_pairwise_test) {
    std::mt19937_64 rng(20261208);
    std::vector<double> d, lo, hi;
    std::vector<int32_t> order;
    ApartAnswers answers;
    for (int trial = 0; trial < 20000; ++trial) {
        const int64_t N = 1 + (int64_t)(rng() % 40);
        const double grid = (double)(2 + rng() % 60);  // coarse grids give ties and shared ends
        d.assign(N, 0.0);
        lo.assign(N, 0.0);
        hi.assign(N, 0.0);
        for (int64_t j = 0; j < N; ++j) {
            d[j] = (double)(rng() % (uint64_t)grid);
            const bool pending = rng() % 3 == 0;
            lo[j] = pending ? d[j] - (double)(rng() % 3) : d[j];
            hi[j] = pending ? d[j] + (double)(rng() % 3) : d[j];
            CHECK(tsm::shp::range_holds(lo[j], d[j], hi[j]));
        }
        order.resize(N);
        for (int64_t j = 0; j < N; ++j) order[j] = (int32_t)j;
        if (trial % 2) std::reverse(order.begin(), order.end());  // ties in either order
        std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return d[a] < d[b]; });
        bool line = true;
        for (int64_t t = 0; t + 1 < N; ++t) {
            const int32_t a = order[t], b = order[t + 1];
            line = line && tsm::shp::neighbours_apart(lo[a], hi[a], lo[b], hi[b]);
        }
        if (!answers.agree(every_pending_range_apart(lo, hi), line, trial, N)) return;
    }
    answers.both_exercised();
    CHECK(tsm::shp::neighbours_apart(1.0, 1.0, 1.0, 1.0));   // two equal final distances: neither moves
    CHECK(!tsm::shp::neighbours_apart(0.5, 1.0, 1.0, 1.0));  // a pending range reaching its neighbour
    CHECK(!tsm::shp::neighbours_apart(1.0, 1.0, 1.0, 2.0));
    CHECK(tsm::shp::neighbours_apart(0.5, 0.9, 1.0, 1.0));
    CHECK(!tsm::shp::range_holds(NAN, 1.0, 2.0) && !tsm::shp::range_holds(1.1, 1.0, 2.0));
}

// window_spans (both spans in one pass) against their definitions,
// step_span and own_span, bit for bit: values from a small set with both
// zeros, so that extremes tie (the step's first value wins them) and spans
// are 0, and ordinary doubles.
TEST(shapelets_window_spans_equal_step_and_own_spans) {
    std::mt19937_64 rng(20261209);
    const double few[] = {-1.0, -0.0, 0.0, 1.0, 2.5};
    int64_t compared = 0, zero_spans = 0;
    for (int trial = 0; trial < 400; ++trial) {
        const int n = 1 + (int)(rng() % 80);
        std::vector<double> y(n);
        const bool coarse = trial % 2 == 0;
        for (double& v : y) v = coarse ? few[rng() % 5] : std::ldexp((double)(rng() % 2000001) - 1e6, -(int)(rng() % 40));
        for (int L = 1; L <= n; L += 1 + (int)(rng() % 4))
            for (int64_t w = 0; w + L <= n; ++w) {
                double step = -1, own = -1;
                tsm::shp::window_spans(y.data(), w, L, &step, &own);
                const double step_def = w > 0 ? tsm::shp::step_span(y.data(), w, L) : 0.0;
                const double own_def = tsm::shp::own_span(y.data(), w, L);
                CHECK(std::memcmp(&step, &step_def, sizeof(double)) == 0);
                CHECK(std::memcmp(&own, &own_def, sizeof(double)) == 0);
                zero_spans += own == 0.0;
                ++compared;
            }
    }
    std::printf("    %lld windows, %lld with a zero span\n", (long long)compared, (long long)zero_spans);
    CHECK(zero_spans > 1000);
}

// The settle rule asked first with the target's largest reach
// (needs_settling_bounded, as the host's row_distance asks it) decides as
// the rule asked with the chosen window's reach,
// and asks about the window only where the largest reach does not rule
// settling out: random screened distances around the rule's thresholds,
// steps, lengths and reaches (0, tiny, huge, +inf, NaN windows' reaches).
TEST(shapelets_settle_rule_bounded_by_the_largest_reach_decides_as_the_window) {
    std::mt19937_64 rng(20261207);
    auto reach_of = [&](int kind) {
        switch (kind) {
            case 0: return 0.0;
            case 1: return std::ldexp(1.0 + (double)(rng() % 1000) / 1000, -(int)(rng() % 60));
            case 2: return std::ldexp(1.0 + (double)(rng() % 1000) / 1000, (int)(rng() % 1000));
            case 3: return std::numeric_limits<double>::infinity();
            default: return 1.0 + (double)(rng() % 100000) / 100;
        }
    };
    int64_t cases = 0, asked = 0, ruled_out_by_bound = 0, settled = 0, bound_only = 0;
    for (int trial = 0; trial < 400000; ++trial) {
        const int L = 3 + (int)(rng() % 1000);
        const int64_t steps = (int64_t)(rng() % 100000);
        const double reach_p = reach_of((int)(rng() % 5));
        double reach_u = reach_of((int)(rng() % 5));
        const double reach_max = std::max(reach_u, reach_of((int)(rng() % 5)));
        if (rng() % 50 == 0) reach_u = std::numeric_limits<double>::quiet_NaN();  // passed over by the maximum
        const bool flat = rng() % 8 == 0;
        const double screened = rng() % 4 == 0 ? std::ldexp((double)(rng() % 4096) / 2048, -6)  // around kVerifyBelow
                                               : std::ldexp((double)(rng() % 1000000) / 1e6, -(int)(rng() % 40)) +
                                                     (rng() % 3 == 0 ? 1.0 : 0.0);
        bool called = false;
        const bool bounded = tsm::shp::needs_settling_bounded(screened, steps, L, reach_p, reach_max, flat, [&] {
            called = true;
            return reach_u;
        });
        const bool direct =
            tsm::shp::needs_settling(screened, tsm::shp::screen_error(steps, L, reach_p, reach_u), L, flat);
        CHECK(bounded == direct);
        const bool bound_settles =
            tsm::shp::needs_settling(screened, tsm::shp::screen_error(steps, L, reach_p, reach_max), L, flat);
        CHECK(called == (bound_settles && !(screened < tsm::shp::kVerifyBelow)));
        ++cases;
        asked += called;
        ruled_out_by_bound += !bound_settles;
        settled += direct;
        bound_only += bound_settles && !direct;
    }
    std::printf("    %lld cases: %lld settle, %lld ruled out by the largest reach, %lld asked about the window, "
                "%lld of them not settled\n",
                (long long)cases, (long long)settled, (long long)ruled_out_by_bound, (long long)asked,
                (long long)bound_only);
    CHECK(settled > 10000 && ruled_out_by_bound > 10000 && bound_only > 10000);
}

#ifdef TSMINE_WITH_CUDA
// On the GPU too, settling only where it decides gives the rows of settling
// everything, and the CPU's: OliveOil (most entries pending) at every length
// (the benchmark's call) and by 41 with several shapelets, and a hostile set
// with its logical tree (partner distances).
GPU_TEST(shapelets_gpu_lazy_settling_equals_settling_everything) {
    bool& lazily = tsm::shp::settle_lazily();
    const Set oil = ucr_train("OliveOil");
    if (oil.x.empty()) return;
    lazily = false;
    const TsShapelets every = run_shapelets(oil, 2, 570, 1, 1, tsmt::gpu_exec());
    lazily = true;
    same_shapelets(every, run_shapelets(oil, 2, 570, 1, 1, tsmt::gpu_exec()), 0.0);
    for (int k : {1, 4})
        same_shapelets(run_shapelets(oil, 2, 570, 41, k, tsmt::cpu_exec()),
                       run_shapelets(oil, 2, 570, 41, k, tsmt::gpu_exec()), 0.0);
    const Set S = hostile_wave_set();
    lazily = false;
    const TsShapelets every_s = run_shapelets(S, 3, 60, 1, 6, tsmt::gpu_exec());
    const TsShapeletTree every_or = run_tree(S, 3, 40, 2, 3, 1, tsmt::gpu_exec());
    lazily = true;
    same_shapelets(every_s, run_shapelets(S, 3, 60, 1, 6, tsmt::gpu_exec()), 0.0);
    same_shapelets(every_s, run_shapelets(S, 3, 60, 1, 6, tsmt::cpu_exec()), 0.0);
    same_tree(every_or, run_tree(S, 3, 40, 2, 3, 1, tsmt::gpu_exec()));
    same_tree(every_or, run_tree(S, 3, 40, 2, 3, 1, tsmt::cpu_exec()));
    CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
}
#endif

#ifdef TSMINE_WITH_CUDA
// The GPU's shapelets (top 5 of length 3..40 step 1; top 90 step 3) and tree
// equal the CPU's bit for bit under every tuning of the distance kernels
// (tuning restored to saved); returns how many the first run found.
static int64_t gpu_equals_cpu_under_every_tuning(const Set& S, const tsm::shp::gpu::Tuning& saved) {
    using tsm::shp::gpu::tuning;
    const int64_t cap = saved.start_table_cap;
    const std::pair<int64_t, int> cases[] = {{cap, saved.rows_per_lane}, {cap, 1}, {cap, 4}, {0, 1}, {0, 2}, {0, 4}};
    const TsShapelets c1 = run_shapelets(S, 3, 40, 1, 5, tsmt::cpu_exec());
    const TsShapelets c2 = run_shapelets(S, 3, 40, 3, 90, tsmt::cpu_exec());
    for (const auto& cs : cases) {
        tuning().start_table_cap = cs.first;
        tuning().rows_per_lane = cs.second;
        same_shapelets(c1, run_shapelets(S, 3, 40, 1, 5, tsmt::gpu_exec()), 0.0);
        same_shapelets(c2, run_shapelets(S, 3, 40, 3, 90, tsmt::gpu_exec()), 0.0);
    }
    tuning() = saved;
    same_tree(run_tree(S, 3, 30, 2, 3, 1, tsmt::cpu_exec()), run_tree(S, 3, 30, 2, 3, 1, tsmt::gpu_exec()));
    CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
    return c1.count;
}

// The hostile sets on the GPU, with every tuning (start table or starts in
// the kernel, one, two or four rows a lane): the CPU's rows bit for bit.
// The glitch sets restart rows and columns (kRestartRatio) inside tiles and
// across row groups; small distances go through settle_kernel.
GPU_TEST(shapelets_gpu_hostile_equal_cpu) {
    using tsm::shp::gpu::Tuning;
    using tsm::shp::gpu::tuning;
    const Tuning saved = tuning();
    std::vector<Set> sets;
    Set ident;
    ident.C = 2;
    for (int i = 0; i < 4; ++i) {
        ident.x.push_back({1, 2, 3, 4, 5, 6, 7, 8});
        ident.y.push_back(i % 2);
    }
    sets.push_back(ident);
    Set spiky = wave_set(5, 700);  // longer than a row group (256 rows)
    for (int at : {150, 300, 301, 640}) spiky.x[1][at] = 1e9;
    spiky.x[4][20] = -3e12;
    sets.push_back(spiky);
    Set offset = wave_set(6, 200);
    for (size_t i = 0; i < offset.x.size(); ++i)
        for (auto& v : offset.x[i]) v = (i % 3 == 2 ? -5e8 : 1e9) + 1e-6 * v;
    sets.push_back(offset);
    Set scaled = wave_set(7, 150);
    for (size_t i = 0; i < scaled.x.size(); ++i)
        for (auto& v : scaled.x[i]) v = std::ldexp(v, i == 2 ? -1070 : (int)(i * 397 % 2001) - 1000);
    sets.push_back(scaled);
    for (const Set& S : sets) gpu_equals_cpu_under_every_tuning(S, saved);
    CHECK_EQ(run_shapelets(ident, 3, 4, 1, 1, tsmt::gpu_exec()).count, 0);
    // a series beyond the screen: the GPU declines (54000), auto would run the CPU
    Set beyond = wave_set(9, 150);
    beyond.x[2][70] = 1e200;
    TsStatus st;
    run_shapelets(beyond, 6, 25, 1, 3, tsmt::gpu_exec(), &st);
    CHECK_EQ(st.code, (int)TS_GPU_LIMIT);
    CHECK_EQ(std::string(st.sqlstate), std::string("54000"));
    CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
}
#endif

// ---- gaps (issue #11 item 2): NaN and ±Infinity are gaps, as STUMPY's -------
// A window that holds one is no candidate and is at no distance; the distance
// of a pivot to a series is the minimum over its windows without one, 2 when
// it has none.  The oracles above skip such windows (has_gap).

namespace {

// Gaps of every kind: two at the start of series 0, a run of four in the
// middle of series 1, one at the end of series 2, every k-th value of series
// 3, and series 4 nothing but gaps (NaN, +inf and -inf).
Set gap_set(Set S, int every_k) {
    const double nan = std::nan(""), inf = INFINITY;
    S.x[0][0] = S.x[0][1] = nan;
    const size_t mid = S.x[1].size() / 2;
    for (size_t t = mid; t < mid + 4; ++t) S.x[1][t] = t % 2 ? inf : nan;
    S.x[2].back() = -inf;
    for (size_t t = every_k - 1; t < S.x[3].size(); t += every_k) S.x[3][t] = nan;
    for (size_t t = 0; t < S.x[4].size(); ++t) S.x[4][t] = t % 3 == 0 ? nan : t % 3 == 1 ? inf : -inf;
    return S;
}

// The leaf a walk that always goes right reaches (a series at distance 2 from every shapelet).
int32_t rightmost_leaf_class(const TsShapeletTree& t) {
    int32_t i = 0;
    while (t.nodes[i].kind == TS_SHAPELET_SPLIT) i = t.nodes[i].right;
    return t.nodes[i].class_id;
}

}  // namespace

TEST(shapelets_gaps_match_bruteforce) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        auto S = gap_set(random_set(200 + seed, 10, 2 + (int)(seed % 2), 24, 36), 3 + (int)(seed % 3));
        compare_to_oracle(S, 3, 10, 1 + (int)(seed % 2), 8, tsmt::cpu_exec(1 + seed % 2));  // shapelets: finite values
    }
    // every series all gaps but two: the two hold every candidate
    auto S = random_set(210, 6, 2, 20, 20);
    for (int i = 2; i < 6; ++i)
        for (auto& v : S.x[i]) v = std::nan("");
    auto r = run_shapelets(S, 3, 6, 1, 20, tsmt::cpu_exec());
    CHECK(r.count > 0);
    for (int i = 0; i < r.count; ++i) CHECK(r.items[i].source_row < 2);
    compare_to_oracle(S, 3, 6, 1, 20, tsmt::cpu_exec());
    // nothing but gaps: no candidate, no rows, a single leaf; no error
    for (auto& x : S.x)
        for (auto& v : x) v = std::nan("");
    CHECK_EQ(run_shapelets(S, 3, 6, 1, 5, tsmt::cpu_exec()).count, 0);
    CHECK_EQ(run_tree(S, 3, 6, 1, TS_ARG_NULL, 1, tsmt::cpu_exec()).n_nodes, 1);
}

// The engine's training distances with gaps (long series: several row groups;
// a spike: restarts; a series beyond the screen: its pairs computed
// directly) equal the oracle's, windows with gaps left out.
TEST(shapelets_gaps_training_distances_match_oracle) {
    auto S = gap_set(wave_set(12, 700), 7);
    S.x[5][300] = 1e9;
    S.x[5][301] = std::nan("");
    for (int t = 500; t < 540; ++t) S.x[0][t] = std::nan("");
    training_distances_match_oracle(S, {4, 40}, "gaps");
    Engine e(S);
    for (double d : tsm::shp::pivot_distances(e.sub, 0, 100, 8)) CHECK(d >= 0 && d <= 2);
    CHECK_EQ(tsm::shp::pivot_distances(e.sub, 0, 100, 8)[4], 2.0);  // all gaps
    CHECK_EQ(tsm::shp::pivot_distances(e.sub, 0, 100, 8)[3], 2.0);  // a gap every 7th value: no window of 8
    S.x[2][70] = 1e200;  // beyond the screen: the direct path, with gaps
    Engine beyond(S);
    CHECK(!beyond.scaled[2].screenable);
    training_distances_match_oracle(S, {6, 25}, "gaps beyond the screen");
}

TEST(shapelet_distance_and_classify_with_gaps) {
    auto S = gap_set(random_set(220, 8, 2, 40, 60), 5);
    for (int L : {3, 4, 9}) {
        const std::vector<double> shp(S.x[0].begin() + 10, S.x[0].begin() + 10 + L);
        for (int j = 0; j < 8; ++j) {
            double d;
            TsStatus st;
            tsm_shapelet_distance(shp.data(), L, S.x[j].data(), (int64_t)S.x[j].size(), &d, &st);
            CHECK_OK(st);
            if (j == 4 || (j == 3 && L >= 5)) CHECK(std::isnan(d));  // no window without a gap: NULL
            else CHECK_NEAR(d, oracle_distance(shp.data(), L, S.x[j]), 1e-9);
        }
    }
    // a tree trained with gaps classifies series with gaps; one of nothing but
    // gaps is at distance 2 from every shapelet: right at every split
    auto t = run_tree(S, 4, 12, 2, TS_ARG_NULL, 0, tsmt::cpu_exec());
    CHECK_EQ(t.nodes[0].kind, (int)TS_SHAPELET_SPLIT);
    auto pred = classify(t, S, tsmt::cpu_exec());
    CHECK_EQ(accuracy(pred, S.y), 1.0);  // grown to purity, gaps and all
    CHECK_EQ(pred[4], rightmost_leaf_class(t));
    single_form_agrees(t, S, pred);
}

// UCR sets with 1% of their values missing (NaN, at random) and, in every
// fifth series, a run of 12 missing values (a third of ItalyPowerDemand's
// 24): training works and grows to purity, and the test accuracy stays
// sensible: 0.847 and 0.851 (complete data: 0.940 and 0.936; the majority
// class: 0.493 and 0.499).
TEST(shapelet_tree_ucr_with_gaps) {
    struct Row { const char* name; int minL, maxL, step; double bound; };
    for (const Row& r : {Row{"GunPoint", 10, 150, 10, 0.80}, Row{"ItalyPowerDemand", 3, 24, 1, 0.80}}) {
        Set tr, te;
        std::vector<double> labels;
        if (!load_ucr(r.name, "TRAIN", tr, labels) || !load_ucr(r.name, "TEST", te, labels)) {
            tsmt::fail(__FILE__, __LINE__, std::string("cannot read UCR data set ") + r.name);
            continue;
        }
        std::mt19937_64 rng(31);
        for (Set* s : {&tr, &te})
            for (size_t i = 0; i < s->x.size(); ++i) {
                auto& x = s->x[i];
                for (auto& v : x)
                    if (rng() % 100 == 0) v = std::nan("");
                if (i % 5 == 0)
                    for (size_t t = x.size() / 3; t < x.size() / 3 + 12 && t < x.size(); ++t) x[t] = std::nan("");
            }
        auto t = run_tree(tr, r.minL, r.maxL, r.step, TS_ARG_NULL, 0, tsmt::cpu_exec());
        const double acc = accuracy(classify(t, te, tsmt::cpu_exec()), te.y);
        std::printf("    %s with gaps: tree test accuracy %.4f (%d nodes)\n", r.name, acc, t.n_nodes);
        CHECK_EQ(accuracy(classify(t, tr, tsmt::cpu_exec()), tr.y), 1.0);  // grown to purity
        CHECK(acc >= r.bound);
        for (int i = 0; i < t.n_nodes; ++i)
            for (int k = 0; k < t.nodes[i].n_shapelets; ++k)
                for (int v = 0; v < t.nodes[i].length[k]; ++v) CHECK(std::isfinite(t.nodes[i].values[k][v]));
    }
}

#ifdef TSMINE_WITH_CUDA
// Sets with gaps on the GPU, with every tuning: the CPU's rows bit for bit
// (the gap windows' NaN 1/σ from stats_kernel, their restarts, the
// settling, series with no window free of gaps), and trees.
GPU_TEST(shapelets_gpu_gaps_equal_cpu) {
    using tsm::shp::gpu::Tuning;
    using tsm::shp::gpu::tuning;
    const Tuning saved = tuning();
    std::vector<Set> sets = {gap_set(random_set(230, 12, 3, 30, 95), 4), gap_set(random_set(231, 70, 4, 60, 64), 9)};
    Set spiky = gap_set(wave_set(13, 700), 6);  // several row groups, restarts and gaps
    for (int at : {150, 300, 640}) spiky.x[1][at] = 1e9;
    for (int t = 400; t < 470; ++t) spiky.x[5][t] = std::nan("");
    sets.push_back(spiky);
    for (const Set& S : sets) CHECK(gpu_equals_cpu_under_every_tuning(S, saved) == 5);
    // GunPoint, all lengths, with 1% of its values missing: the GPU's rows are
    // the CPU's (step 10 on the CPU side to keep it short); the times of the
    // GPU with and without gaps are printed (the gap-free set runs the code
    // it ran before the gaps)
    Set gp;
    std::vector<double> labels;
    CHECK(load_ucr("GunPoint", "TRAIN", gp, labels));
    Set gp_gaps = gp;
    std::mt19937_64 rng(33);
    for (auto& x : gp_gaps.x)
        for (auto& v : x)
            if (rng() % 100 == 0) v = std::nan("");
    same_shapelets(run_shapelets(gp_gaps, 10, 150, 10, 10, tsmt::cpu_exec()),
                   run_shapelets(gp_gaps, 10, 150, 10, 10, tsmt::gpu_exec()), 0.0);
    for (const Set* S : {&gp, &gp_gaps}) {
        TsExec ex = tsmt::gpu_exec();
        auto t0 = std::chrono::steady_clock::now();
        auto g = run_shapelets(*S, 2, 150, 1, 5, ex, nullptr, &ex);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("    GunPoint all lengths on the GPU, %s: %.3f s (kernels %.1f ms)\n",
                    S == &gp ? "no gaps" : "1% gaps", secs, ex.kernel_ms);
        CHECK_EQ(g.count, 5);
    }
    Set none = random_set(232, 6, 2, 20, 20);  // nothing but gaps: no rows on either
    for (auto& x : none.x)
        for (auto& v : x) v = std::nan("");
    CHECK_EQ(run_shapelets(none, 3, 6, 1, 5, tsmt::gpu_exec()).count, 0);
    CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
}
#endif
