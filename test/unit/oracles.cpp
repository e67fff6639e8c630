// oracles.cpp — the oracle and helpers of oracles.h.
#include "oracles.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "check.h"

namespace tsmt {

using ld = long double;

ZWindows::ZWindows(const std::vector<double>& x, int m_, bool raw_)
    : m(m_), raw(raw_), z(x.size() - m_ + 1), gap(x.size() - m_ + 1, 0) {
    for (size_t i = 0; i < z.size(); ++i) {
        bool constant = true;
        for (int t = 0; t < m; ++t) {
            constant &= x[i + t] == x[i];
            gap[i] |= !std::isfinite(x[i + t]);
        }
        if (gap[i]) continue;
        if (raw) {
            z[i].assign(x.begin() + i, x.begin() + i + m);
            continue;
        }
        if (constant) continue;
        const ld ref = x[i];
        ld s = 0;
        for (int t = 0; t < m; ++t) s += (ld)x[i + t] - ref;
        ld mu = s / m, c = 0;
        for (int t = 0; t < m; ++t) c += (ld)x[i + t] - ref - mu;
        mu += c / m;
        ld q = 0;
        for (int t = 0; t < m; ++t) q += ((ld)x[i + t] - ref - mu) * ((ld)x[i + t] - ref - mu);
        const ld sd = std::sqrt(q / m);
        z[i].resize(m);
        for (int t = 0; t < m; ++t) z[i][t] = ((ld)x[i + t] - ref - mu) / sd;
    }
}

ld ZWindows::d(int64_t i, const ZWindows& b, int64_t j) const {
    if (gap[i] || b.gap[j]) return INFINITY;
    const std::vector<ld>&zi = z[i], &zj = b.z[j];
    if (zi.empty() || zj.empty()) return zi.empty() && zj.empty() ? 0 : std::sqrt((ld)m);
    ld s = 0;
    for (int t = 0; t < m; ++t) s += (zi[t] - zj[t]) * (zi[t] - zj[t]);
    return std::sqrt(s);
}

ld ZWindows::nearest(int64_t i, const ZWindows& b, int64_t excl) const {
    ld best = INFINITY;
    for (int64_t j = 0; j < b.count(); ++j)
        if (std::llabs(j - i) >= excl) best = std::min(best, d(i, b, j));
    return best;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

Profile to_profile(const TsProfile& p, const TsStatus& st) {
    Profile r;
    if (st.code == TS_OK) {
        r.dist.assign(p.dist, p.dist + p.count);
        r.index.assign(p.index, p.index + p.count);
    }
    return r;
}

Profile matrix_profile(const std::vector<double>& x, int m, int64_t excl, TsExec ex, int normalize,
                       TsStatus* status) {
    TsProfile p;
    TsStatus st;
    tsm_matrix_profile(x.data(), (int64_t)x.size(), m, excl, normalize, &ex, &p, &st);
    if (status) *status = st;
    else CHECK_OK(st);
    return to_profile(p, st);
}

}  // namespace tsmt
