// shapelets.cpp — shapelet discovery (CPU path), decision trees, classification
// and the C entry points of api_shapelets.h.  See shapelets.h for the engine
// and api_shapelets.h for the conventions.

#include "shapelets.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

#include "api_shapelets.h"
#include "dispatch.h"
#include "error.h"
#include "finite.h"
#include "parallel.h"
#include "sliding.h"

namespace tsm {
namespace shp {

// ---- shared pieces ----------------------------------------------------------

bool cand_better(const Cand& a, const Cand& b) {
    if (a.g != b.g) return a.g > b.g;
    if (a.gap != b.gap) return a.gap > b.gap;
    if (a.L != b.L) return a.L < b.L;
    if (a.row != b.row) return a.row < b.row;
    return a.p < b.p;
}

std::vector<int64_t> entropy_table(int64_t n) {
    std::vector<int64_t> t(n + 1, 0);
    for (int64_t c = 2; c <= n; ++c) t[c] = std::llround((double)c * std::log2((double)c) * kGainScale);
    return t;
}

void TopK::add(const Cand& c) {
    if (c.g < 0) return;
    v.push_back(c);
    if ((int64_t)v.size() > 2 * (int64_t)k + 256) {
        std::nth_element(v.begin(), v.begin() + k, v.end(), cand_better);
        v.resize(k);
    }
}

std::vector<Cand> TopK::take() {
    std::sort(v.begin(), v.end(), cand_better);
    if ((int64_t)v.size() > k) v.resize(k);
    return std::move(v);
}

std::vector<int> pivot_lengths(const Subset& d, int min_length, int max_length, int step) {
    int64_t longest = 0;
    for (int64_t n : d.n) longest = std::max(longest, n);
    std::vector<int> out;
    for (int64_t L = min_length; L <= max_length && L <= longest; L += step) out.push_back((int)L);
    return out;
}

bool window_stats_flat(const double* x, int64_t n, int L, double* mu, double* isd) {
    TsExec seq{};
    seq.cpu_threads = 1;  // window_stats inline on this thread, no interrupt polling
    WindowStats ws;
    window_stats(x, n, L, ws, &seq);
    bool any_flat = false;
    for (int64_t u = 0; u + L <= n; ++u) {
        const bool flat = window_is_flat(ws.mean[u], ws.std[u], ws.constant[u]);
        mu[u] = ws.mean[u];
        isd[u] = flat ? 0.0 : 1.0 / ws.std[u];
        any_flat |= flat;
    }
    return any_flat;
}

void length_stats(const Subset& d, int L, LengthStats& out, bool with_terms) {
    const int64_t N = (int64_t)d.x.size();
    out.L = L;
    out.off.assign(N, -1);
    out.has_flat.assign(N, 0);
    int64_t total = 0;
    for (int64_t j = 0; j < N; ++j)
        if (d.n[j] >= L) { out.off[j] = total; total += d.n[j] - L + 1; }
    out.mu.assign(total, 0.0);
    out.isd.assign(total, 0.0);
    if (with_terms) { out.df.assign(total, 0.0); out.dg.assign(total, 0.0); }
    for (int64_t j = 0; j < N; ++j) {
        if (out.off[j] < 0) continue;
        const double* x = d.x[j];
        const int64_t n = d.n[j], U = n - L + 1, o = out.off[j];
        out.has_flat[j] = window_stats_flat(x, n, L, out.mu.data() + o, out.isd.data() + o) ? 1 : 0;
        if (with_terms)
            for (int64_t u = 0; u + 1 < U; ++u) {
                out.df[o + u] = hd::mul(hd::sub(x[u + L], x[u]), 0.5);
                out.dg[o + u] = hd::add(hd::sub(x[u + L], out.mu[o + u + 1]), hd::sub(x[u], out.mu[o + u]));
            }
    }
}

// ---- the CPU engine -----------------------------------------------------------

namespace {

double direct_comoment(const double* a, double mua, const double* b, double mub, int L) {
    double s = 0;
    for (int t = 0; t < L; ++t) s = hd::add(s, hd::mul(hd::sub(a[t], mua), hd::sub(b[t], mub)));
    return s;
}

// Distances of rows [r0, r1) of source a (group start g0 <= r0) to target b, at
// length L; out[(p - r0) * stride].  The same recurrence as the device kernel.
void rows_to_target(const double* a, int64_t oa, const double* b, int64_t ob, int64_t nb,
                    const LengthStats& st, int64_t hb, int64_t g0, int64_t r0, int64_t r1,
                    double* out, int64_t stride, std::vector<double>& prev, std::vector<double>& cur) {
    const int L = st.L;
    const int64_t U = nb - L + 1;
    const double* mua = st.mu.data() + oa;
    const double* isa = st.isd.data() + oa;
    const double* dfa = st.df.data() + oa;
    const double* dga = st.dg.data() + oa;
    const double* mub = st.mu.data() + ob;
    const double* isb = st.isd.data() + ob;
    const double* dfb = st.df.data() + ob;
    const double* dgb = st.dg.data() + ob;
    const bool flat = st.has_flat[hb];
    prev.resize(U);
    cur.resize(U);
    for (int64_t p = g0; p < r1; ++p) {
        if (p == g0) {
            for (int64_t u = 0; u < U; ++u) cur[u] = direct_comoment(a + p, mua[p], b + u, mub[u], L);
        } else {
            cur[0] = direct_comoment(a + p, mua[p], b, mub[0], L);
            const double fa = dfa[p - 1], ga = dga[p - 1];
            for (int64_t u = 1; u < U; ++u) cur[u] = comoment_step(prev[u - 1], fa, ga, dfb[u - 1], dgb[u - 1]);
        }
        if (p >= r0) {
            double vmax = -std::numeric_limits<double>::infinity();
            for (int64_t u = 0; u < U; ++u) {
                double v = hd::mul(cur[u], isb[u]);
                if (v > vmax) vmax = v;
            }
            out[(p - r0) * stride] = distance_from_best(vmax, isa[p], L, flat);
        }
        std::swap(prev, cur);
    }
}

// Best split of one pivot's order line (the sequential form of the gain kernel).
struct SplitScratch {
    std::vector<int32_t> idx;
    std::vector<int64_t> left;
};

void best_split(const double* d, const int32_t* y, int64_t N, int C, const int64_t* T,
                const int64_t* tot, int64_t base_g, SplitScratch& sc, Cand& out) {
    sc.idx.resize(N);
    for (int64_t j = 0; j < N; ++j) sc.idx[j] = (int32_t)j;
    std::sort(sc.idx.begin(), sc.idx.end(), [&](int32_t a, int32_t b) {
        return d[a] < d[b] || (d[a] == d[b] && a < b);
    });
    double total = 0;
    for (int64_t i = 0; i < N; ++i) total = hd::add(total, d[sc.idx[i]]);
    sc.left.assign(C, 0);
    double sum_left = 0;
    out.g = -1;
    int64_t best_i = -1;
    for (int64_t i = 0; i + 1 < N; ++i) {
        const int32_t j = sc.idx[i];
        sum_left = hd::add(sum_left, d[j]);
        ++sc.left[y[j]];
        const double a = d[j], b = d[sc.idx[i + 1]];
        if (!(a < b)) continue;
        int64_t TL = 0, TR = 0;
        for (int c = 0; c < C; ++c) { TL += T[sc.left[c]]; TR += T[tot[c] - sc.left[c]]; }
        const int64_t nL = i + 1, nR = N - nL;
        const int64_t g = base_g - (T[nL] - TL) - (T[nR] - TR);
        const double gap = split_gap(sum_left, total, nL, nR);
        if (best_i < 0 || split_better(g, gap, i, out.g, out.gap, best_i)) {
            out.g = g;
            out.gap = gap;
            out.thr = midpoint(a, b);
            best_i = i;
        }
    }
}

}  // namespace

std::vector<Cand> discover_cpu(const Subset& d, const std::vector<int>& lengths, int k,
                               const Partner& partner, TsExec* ex) {
    const int64_t N = (int64_t)d.x.size();
    const auto T = entropy_table(N);
    std::vector<int64_t> tot(d.C, 0);
    for (int32_t c : d.y) ++tot[c];
    int64_t Ttot = 0;
    for (int c = 0; c < d.C; ++c) Ttot += T[tot[c]];
    const int64_t base_g = T[N] - Ttot;

    TopK best(k);
    for (int L : lengths) {
        check_interrupt(ex);
        LengthStats st;
        length_stats(d, L, st, true);
        struct Task { int32_t s; int64_t g0, g1; };
        std::vector<Task> tasks;
        const int64_t R = rows_per_group(L);
        for (int64_t s = 0; s < N; ++s) {
            if (d.n[s] < L) continue;
            const int64_t P = d.n[s] - L + 1;
            for (int64_t g0 = 0; g0 < P; g0 += R) tasks.push_back({(int32_t)s, g0, std::min(P, g0 + R)});
        }
        std::vector<TopK> part(tasks.size(), TopK(k));
        parallel_for(ex, (int64_t)tasks.size(), [&](int64_t t) {
            const Task& tk = tasks[t];
            const int64_t rows = tk.g1 - tk.g0, oa = st.off[tk.s];
            std::vector<double> D(rows * N), prev, cur, comb(N);
            for (int64_t j = 0; j < N; ++j) {
                double* o = D.data() + j;
                if (j == tk.s) {
                    for (int64_t r = 0; r < rows; ++r) o[r * N] = 0.0;
                } else if (d.n[j] < L) {
                    for (int64_t r = 0; r < rows; ++r) o[r * N] = kShorterDistance;
                } else {
                    rows_to_target(d.x[tk.s], oa, d.x[j], st.off[j], d.n[j], st, j, tk.g0, tk.g0, tk.g1, o, N,
                                   prev, cur);
                }
            }
            SplitScratch sc;
            for (int64_t r = 0; r < rows; ++r) {
                const int64_t p = tk.g0 + r;
                if (st.isd[oa + p] == 0.0) continue;  // flat: not a candidate
                const double* dr = D.data() + r * N;
                if (partner.d) {
                    for (int64_t j = 0; j < N; ++j)
                        comb[j] = partner.op == TS_SHAPELET_AND ? std::fmax(dr[j], partner.d[j])
                                                                : std::fmin(dr[j], partner.d[j]);
                    dr = comb.data();
                }
                Cand c;
                best_split(dr, d.y.data(), N, d.C, T.data(), tot.data(), base_g, sc, c);
                if (c.g < 0) continue;
                c.s = tk.s;
                c.p = (int32_t)p;
                c.L = L;
                c.row = d.row[tk.s];
                part[t].add(c);
            }
        });
        for (auto& p : part) best.merge(p);
    }
    return best.take();
}

std::vector<double> pivot_distances(const Subset& d, int s, int p, int L) {
    const int64_t N = (int64_t)d.x.size();
    LengthStats st;
    length_stats(d, L, st, true);
    const int64_t R = rows_per_group(L), g0 = (p / R) * R;
    std::vector<double> out(N), prev, cur;
    for (int64_t j = 0; j < N; ++j) {
        if (j == s) out[j] = 0.0;
        else if (d.n[j] < L) out[j] = kShorterDistance;
        else rows_to_target(d.x[s], st.off[s], d.x[j], st.off[j], d.n[j], st, j, g0, p, p + 1, &out[j], 1, prev, cur);
    }
    return out;
}

// Direct Definition 1 distance (no recurrence): rho = c / sqrt(qa qb) with
// centred sums, so identical windows give exactly 0.
double shapelet_distance(const double* a, int L, const double* x, int64_t n) {
    if (n < L) return kShorterDistance;
    TsExec seq{};
    seq.cpu_threads = 1;
    WindowStats wa, wx;
    window_stats(a, L, L, wa, &seq);
    window_stats(x, n, L, wx, &seq);
    const bool a_flat = window_is_flat(wa.mean[0], wa.std[0], wa.constant[0]);
    std::vector<double> ca(L);
    double qa = 0, mua = 0;
    if (!a_flat) {
        // two-pass mean of the shapelet, centred copy
        double s = 0;
        for (int t = 0; t < L; ++t) s += a[t];
        mua = s / L;
        double corr = 0;
        for (int t = 0; t < L; ++t) corr += a[t] - mua;
        mua += corr / L;
        for (int t = 0; t < L; ++t) { ca[t] = a[t] - mua; qa += ca[t] * ca[t]; }
    }
    double best = std::numeric_limits<double>::infinity();
    for (int64_t u = 0; u + L <= n; ++u) {
        const bool x_flat = window_is_flat(wx.mean[u], wx.std[u], wx.constant[u]);
        double dist;
        if (a_flat || x_flat) {
            dist = (a_flat && x_flat) ? 0.0 : 1.0;
        } else {
            const double* w = x + u;
            double s = 0;
            for (int t = 0; t < L; ++t) s += w[t];
            double mu = s / L, corr = 0;
            for (int t = 0; t < L; ++t) corr += w[t] - mu;
            mu += corr / L;
            double c = 0, q = 0;
            for (int t = 0; t < L; ++t) {
                double v = w[t] - mu;
                c += ca[t] * v;
                q += v * v;
            }
            double den = std::sqrt(qa * q);
            if (!(den > 0) || !std::isfinite(den)) den = std::sqrt(qa) * std::sqrt(q);
            double rho = den > 0 ? c / den : 0.0;
            double t2 = 2.0 * (1.0 - rho);
            dist = t2 > 0 ? std::sqrt(t2) : 0.0;
        }
        if (dist < best) best = dist;
        if (best == 0.0) break;
    }
    return best;
}

// ---- discovery dispatch and trees -----------------------------------------------

namespace {

std::vector<Cand> discover(const Subset& d, const std::vector<int>& lengths, int k, const Partner& partner,
                           TsExec* ex) {
    int64_t pivots = 0;
    const int64_t N = (int64_t)d.x.size();
    for (int L : lengths)
        for (int64_t s = 0; s < N; ++s)
            if (d.n[s] >= L) pivots += d.n[s] - L + 1;
    if (use_gpu(ex, TS_WORK_SHAPELETS, pivots * N)) {
#ifdef TSMINE_WITH_CUDA
        return gpu::discover(d, lengths, k, partner, ex);
#endif
    }
    return discover_cpu(d, lengths, k, partner, ex);
}

struct Input {
    const double* const* x;
    const int64_t* n;
    const int32_t* y;
    int64_t N;
    int C;
};

void validate(const Input& in, int32_t min_length, int32_t max_length, int32_t step) {
    if (!in.x || !in.n || !in.y) invalid("training set arrays must not be NULL");
    if (in.N < 2)
        invalid("at least two training series are needed",
                "The training query must return two or more rows with a label and a series.");
    if (min_length < 2) invalid(format("min_length must be at least 2, got %d", min_length),
                                "Shapelets are z-normalised subsequences: use a length of 2 or more.");
    if (max_length < min_length)
        invalid(format("max_length (%d) must not be less than min_length (%d)", max_length, min_length));
    if (step < 1) invalid(format("step must be at least 1, got %d", step));
    if (in.C < 2) invalid("the training set has only one class",
                          "Shapelets separate classes: the training query needs at least two distinct labels.");
    std::vector<int64_t> cnt(in.C, 0);
    for (int64_t i = 0; i < in.N; ++i) {
        if (in.y[i] < 0 || in.y[i] >= in.C)
            invalid(format("class id %d of training row %lld is outside 0..%d", in.y[i], (long long)i + 1,
                           in.C - 1));
        ++cnt[in.y[i]];
        if (!in.x[i]) invalid(format("training row %lld has a NULL series", (long long)i + 1));
        if (in.n[i] < min_length)
            invalid(format("training row %lld has %lld values, fewer than min_length %d", (long long)i + 1,
                           (long long)in.n[i], min_length),
                    "Lower min_length or leave the short series out of the training query.");
        if (in.n[i] > std::numeric_limits<int32_t>::max())
            invalid(format("training row %lld is too long for shapelet discovery", (long long)i + 1));
        require_finite(in.x[i], in.n[i], format("training row %lld", (long long)i + 1).c_str(),
                       "Remove or interpolate missing values before training.");
    }
    int present = 0;
    for (int64_t c : cnt) present += c > 0;
    if (present < 2) invalid("the training set has only one class",
                             "Shapelets separate classes: the training query needs at least two distinct labels.");
}

Subset make_subset(const Input& in, const std::vector<int64_t>& rows) {
    Subset s;
    s.C = in.C;
    for (int64_t r : rows) {
        s.x.push_back(in.x[r]);
        s.n.push_back(in.n[r]);
        s.y.push_back(in.y[r]);
        s.row.push_back(r);
    }
    return s;
}

struct NodeB {  // a node under construction
    TsShapeletNode n{};
    std::vector<int64_t> counts;
    const double* v[2] = {nullptr, nullptr};
};

struct TreeBuilder {
    const Input& in;
    int minL, maxL, step, max_depth;
    bool logical;
    TsExec* ex;
    std::vector<NodeB> nodes;

    int32_t build(const std::vector<int64_t>& rows, int depth) {
        check_interrupt(ex);
        const int32_t id = (int32_t)nodes.size();
        nodes.emplace_back();
        {
            NodeB& nb = nodes.back();
            nb.counts.assign(in.C, 0);
            for (int64_t r : rows) ++nb.counts[in.y[r]];
            nb.n.kind = TS_SHAPELET_LEAF;
            nb.n.depth = depth;
            nb.n.n_series = (int64_t)rows.size();
            int32_t maj = 0;
            for (int c = 1; c < in.C; ++c)
                if (nb.counts[c] > nb.counts[maj]) maj = c;
            nb.n.class_id = maj;
            nb.n.left = nb.n.right = -1;
            int present = 0;
            for (int64_t c : nb.counts) present += c > 0;
            if (present < 2 || rows.size() < 2 || (max_depth >= 0 && depth >= max_depth)) return id;
        }
        Subset sub = make_subset(in, rows);
        auto lengths = pivot_lengths(sub, minL, maxL, step);
        if (lengths.empty()) return id;
        auto b1 = discover(sub, lengths, 1, Partner{}, ex);
        if (b1.empty() || b1[0].g <= 0) return id;
        Cand s1 = b1[0], s2;
        int op = TS_SHAPELET_SINGLE;
        std::vector<double> d1 = pivot_distances(sub, s1.s, s1.p, s1.L), dist = d1;
        if (logical) {
            Cand best_c;
            int best_op = TS_SHAPELET_SINGLE;
            for (int o : {TS_SHAPELET_AND, TS_SHAPELET_OR}) {
                auto r = discover(sub, lengths, 1, Partner{d1.data(), o}, ex);
                if (r.empty()) continue;
                const Cand& c = r[0];
                if (best_op == TS_SHAPELET_SINGLE || c.g > best_c.g || (c.g == best_c.g && c.gap > best_c.gap)) {
                    best_c = c;
                    best_op = o;
                }
            }
            if (best_op != TS_SHAPELET_SINGLE && best_c.g > s1.g) {
                op = best_op;
                s2 = best_c;
                auto d2 = pivot_distances(sub, s2.s, s2.p, s2.L);
                for (size_t j = 0; j < dist.size(); ++j)
                    dist[j] = op == TS_SHAPELET_AND ? std::fmax(d1[j], d2[j]) : std::fmin(d1[j], d2[j]);
            }
        }
        const Cand& win = op == TS_SHAPELET_SINGLE ? s1 : s2;
        std::vector<int64_t> lrows, rrows;
        for (size_t j = 0; j < rows.size(); ++j) (dist[j] <= win.thr ? lrows : rrows).push_back(rows[j]);
        if (lrows.empty() || rrows.empty()) return id;  // cannot happen with a valid split; be safe
        {
            NodeB& nb = nodes[id];
            nb.n.kind = TS_SHAPELET_SPLIT;
            nb.n.op = op;
            nb.n.n_shapelets = op == TS_SHAPELET_SINGLE ? 1 : 2;
            const Cand* cs[2] = {&s1, &s2};
            for (int i = 0; i < nb.n.n_shapelets; ++i) {
                nb.n.source_row[i] = cs[i]->row;
                nb.n.start[i] = cs[i]->p;
                nb.n.length[i] = cs[i]->L;
                nb.v[i] = in.x[cs[i]->row] + cs[i]->p;
            }
            nb.n.threshold = win.thr;
            nb.n.gain = (double)win.g / kGainScale / (double)rows.size();
            nb.n.gap = win.gap;
        }
        int32_t l = build(lrows, depth + 1);
        int32_t r = build(rrows, depth + 1);
        nodes[id].n.left = l;
        nodes[id].n.right = r;
        return id;
    }
};

void check_tree(const TsShapeletNode* nodes, int32_t n_nodes, int32_t C) {
    if (!nodes || n_nodes < 1) invalid("the shapelet tree has no nodes");
    if (C < 1) invalid("the shapelet tree has no classes");
    for (int32_t i = 0; i < n_nodes; ++i) {
        const TsShapeletNode& nd = nodes[i];
        if (nd.kind == TS_SHAPELET_LEAF) {
            if (nd.class_id < 0 || nd.class_id >= C)
                invalid(format("leaf %d of the shapelet tree has class id %d, outside 0..%d", i, nd.class_id, C - 1));
            continue;
        }
        if (nd.kind != TS_SHAPELET_SPLIT) invalid(format("node %d of the shapelet tree has an unknown kind", i));
        if (nd.left <= i || nd.left >= n_nodes || nd.right <= i || nd.right >= n_nodes)
            invalid(format("node %d of the shapelet tree has invalid children", i),
                    "Children must come after their parent in the node list.");
        int want = nd.op == TS_SHAPELET_SINGLE ? 1 : (nd.op == TS_SHAPELET_AND || nd.op == TS_SHAPELET_OR) ? 2 : 0;
        if (want == 0 || nd.n_shapelets != want)
            invalid(format("node %d of the shapelet tree has an invalid logical operator or shapelet count", i));
        if (!std::isfinite(nd.threshold)) invalid(format("node %d of the shapelet tree has an invalid threshold", i));
        for (int k = 0; k < want; ++k) {
            if (nd.length[k] < 1 || !nd.values[k])
                invalid(format("node %d of the shapelet tree has an empty shapelet", i));
            for (int t = 0; t < nd.length[k]; ++t)
                if (!std::isfinite(nd.values[k][t]))
                    invalid(format("node %d of the shapelet tree has a shapelet with NaN or infinity", i));
        }
    }
}

int32_t classify_one(const TsShapeletNode* nodes, const double* x, int64_t n) {
    int32_t i = 0;
    for (;;) {
        const TsShapeletNode& nd = nodes[i];
        if (nd.kind == TS_SHAPELET_LEAF) return nd.class_id;
        double d = shapelet_distance(nd.values[0], nd.length[0], x, n);
        if (nd.n_shapelets == 2) {
            double d2 = shapelet_distance(nd.values[1], nd.length[1], x, n);
            d = nd.op == TS_SHAPELET_AND ? std::fmax(d, d2) : std::fmin(d, d2);
        }
        i = d <= nd.threshold ? nd.left : nd.right;
    }
}

void check_series(const double* x, int64_t n, const char* what) {
    if (!x && n > 0) invalid(format("%s is NULL", what));
    if (n < 1) invalid(format("%s is empty", what));
    require_finite(x, n, what);
}

}  // namespace
}  // namespace shp
}  // namespace tsm

using namespace tsm;
using namespace tsm::shp;

extern "C" int tsm_shapelets(const double* const* series, const int64_t* lengths, const int32_t* class_ids,
                             int64_t n_series, int32_t n_classes, int32_t min_length, int32_t max_length,
                             int32_t step, int32_t k, TsExec* ex, TsShapelets* out, TsStatus* st) noexcept {
    return guard(st, [&] {
        std::memset(out, 0, sizeof *out);
        ex->used_backend = TS_BACKEND_CPU;
        if (k < 1) invalid(format("k must be at least 1, got %d", k));
        Input in{series, lengths, class_ids, n_series, n_classes};
        validate(in, min_length, max_length, step);
        std::vector<int64_t> rows(n_series);
        for (int64_t i = 0; i < n_series; ++i) rows[i] = i;
        Subset sub = make_subset(in, rows);
        auto lens = pivot_lengths(sub, min_length, max_length, step);
        auto best = discover(sub, lens, k, Partner{}, ex);
        out->count = (int32_t)best.size();
        out->items = alloc_result<TsShapelet>(ex, best.size());
        for (size_t i = 0; i < best.size(); ++i) {
            const Cand& c = best[i];
            TsShapelet& s = out->items[i];
            s.source_row = c.row;
            s.start = c.p;
            s.length = c.L;
            s.threshold = c.thr;
            s.info_gain = (double)c.g / kGainScale / (double)n_series;
            s.gap = c.gap;
            s.values = alloc_result<double>(ex, c.L);
            std::memcpy(s.values, series[c.row] + c.p, sizeof(double) * c.L);
        }
    });
}

extern "C" int tsm_shapelet_distance(const double* shapelet, int32_t length, const double* series, int64_t n,
                                     double* out, TsStatus* st) noexcept {
    return guard(st, [&] {
        *out = 0;
        if (length < 1 || !shapelet) invalid("the shapelet is empty");
        check_series(shapelet, length, "the shapelet");
        if (n < length)
            invalid(format("the series (%lld values) is shorter than the shapelet (%d values)", (long long)n, length),
                    "The distance is the minimum over windows of the shapelet's length; the series has none.");
        check_series(series, n, "the series");
        *out = shapelet_distance(shapelet, length, series, n);
    });
}

extern "C" int tsm_shapelet_tree(const double* const* series, const int64_t* lengths, const int32_t* class_ids,
                                 int64_t n_series, int32_t n_classes, int32_t min_length, int32_t max_length,
                                 int32_t step, int32_t max_depth, int32_t logical, TsExec* ex, TsShapeletTree* out,
                                 TsStatus* st) noexcept {
    return guard(st, [&] {
        std::memset(out, 0, sizeof *out);
        ex->used_backend = TS_BACKEND_CPU;
        if (max_depth < -1) invalid(format("max_depth must be -1 (no limit) or at least 0, got %d", max_depth));
        Input in{series, lengths, class_ids, n_series, n_classes};
        validate(in, min_length, max_length, step);
        TreeBuilder tb{in, min_length, max_length, step, max_depth, logical != 0, ex, {}};
        std::vector<int64_t> rows(n_series);
        for (int64_t i = 0; i < n_series; ++i) rows[i] = i;
        tb.build(rows, 0);
        out->n_nodes = (int32_t)tb.nodes.size();
        out->n_classes = n_classes;
        out->nodes = alloc_result<TsShapeletNode>(ex, tb.nodes.size());
        for (size_t i = 0; i < tb.nodes.size(); ++i) {
            NodeB& nb = tb.nodes[i];
            TsShapeletNode& o = out->nodes[i];
            o = nb.n;
            o.class_counts = alloc_result<int64_t>(ex, n_classes);
            std::memcpy(o.class_counts, nb.counts.data(), sizeof(int64_t) * n_classes);
            for (int s = 0; s < 2; ++s) {
                o.values[s] = nullptr;
                if (s < o.n_shapelets) {
                    o.values[s] = alloc_result<double>(ex, o.length[s]);
                    std::memcpy(o.values[s], nb.v[s], sizeof(double) * o.length[s]);
                }
            }
        }
    });
}

extern "C" int tsm_shapelet_classify(const TsShapeletNode* nodes, int32_t n_nodes, int32_t n_classes,
                                     const double* series, int64_t n, int32_t* class_out, TsStatus* st) noexcept {
    return guard(st, [&] {
        *class_out = -1;
        check_tree(nodes, n_nodes, n_classes);
        check_series(series, n, "the series");
        *class_out = classify_one(nodes, series, n);
    });
}

extern "C" int tsm_shapelet_classify_batch(const TsShapeletNode* nodes, int32_t n_nodes, int32_t n_classes,
                                           const double* const* series, const int64_t* lengths, int64_t count,
                                           TsExec* ex, int32_t* class_out, TsStatus* st) noexcept {
    return guard(st, [&] {
        ex->used_backend = TS_BACKEND_CPU;
        check_tree(nodes, n_nodes, n_classes);
        if (count < 0) invalid("negative number of series");
        if (count > 0 && (!series || !lengths || !class_out)) invalid("series arrays must not be NULL");
        for (int64_t i = 0; i < count; ++i) {
            class_out[i] = -1;
            check_series(series[i], lengths[i], format("series %lld", (long long)i + 1).c_str());
        }
        const int64_t per = 16;
        parallel_for(ex, (count + per - 1) / per, [&](int64_t t) {
            for (int64_t i = t * per; i < std::min(count, t * per + per); ++i)
                class_out[i] = classify_one(nodes, series[i], lengths[i]);
        });
    });
}
