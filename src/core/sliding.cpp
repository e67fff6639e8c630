#include "sliding.h"

#include <algorithm>
#include <cmath>

#include "error.h"
#include "parallel.h"

namespace tsm {

void window_mean_std(const double* w, int m, double* mean, double* sd) {
    double s = 0;
    for (int j = 0; j < m; ++j) s += w[j];
    double mu = s / m, d = 0, q = 0;
    for (int j = 0; j < m; ++j) {
        double t = w[j] - mu;
        d += t;
        q += t * t;
    }
    mu += d / m;
    double var = (q - d * d / m) / m;
    *mean = mu;
    *sd = var > 0 ? std::sqrt(var) : 0.0;
}

double znorm_distance_from_corr(double rho, int m) {
    double d2 = 2.0 * m * (1.0 - rho);
    if (d2 < 0) d2 = 0;
    if (d2 > 4.0 * m) d2 = 4.0 * m;
    return std::sqrt(d2);
}

void window_stats(const double* x, int64_t n, int m, WindowStats& out, const TsExec* ex) {
    if (m < 1 || n < m) throw Error(TS_INTERNAL, kInternal, "window_stats: window longer than series");
    const int64_t count = n - m + 1;
    out.m = m;
    out.count = count;
    out.mean.assign(count, 0.0);
    out.std.assign(count, 0.0);
    out.inv_std.assign(count, 0.0);
    out.constant.assign(count, 0);

    // run[i]: how many values from i on equal x[i] (capped at m)
    std::vector<int32_t> run(n);
    run[n - 1] = 1;
    for (int64_t i = n - 2; i >= 0; --i) run[i] = (x[i] == x[i + 1]) ? std::min(run[i + 1] + 1, m) : 1;

    const int64_t kBlock = 4096;  // windows per task; each task re-starts exactly
    const int64_t tasks = (count + kBlock - 1) / kBlock;
    parallel_for(ex, tasks, [&](int64_t t) {
        int64_t lo = t * kBlock, hi = std::min(count, lo + kBlock);
        // Work relative to a reference value of this block: for data with a
        // large offset, x - ref is exact (Sterbenz) and small, so the sliding
        // updates keep their precision.
        const double ref = x[lo];
        double mu, sd;
        auto restart = [&](int64_t i) {  // two-pass on x - ref
            double a = 0;
            for (int j = 0; j < m; ++j) a += x[i + j] - ref;
            mu = a / m;
            double d = 0, q = 0;
            for (int j = 0; j < m; ++j) {
                double t = (x[i + j] - ref) - mu;
                d += t;
                q += t * t;
            }
            mu += d / m;
            double var = (q - d * d / m) / m;
            sd = var > 0 ? std::sqrt(var) : 0.0;
        };
        restart(lo);
        double m2 = sd * sd * m;
        for (int64_t i = lo; i < hi; ++i) {
            if (i > lo) {
                // re-start exactly every 256 windows to bound drift
                if ((i - lo) % 256 == 0) {
                    restart(i);
                    m2 = sd * sd * m;
                } else {
                    double xin = x[i + m - 1] - ref, xout = x[i - 1] - ref;
                    double mu_new = mu + (xin - xout) / m;
                    m2 += (xin - xout) * (xin - mu_new + xout - mu);
                    mu = mu_new;
                    if (m2 < 0) m2 = 0;
                }
            }
            bool constant = run[i] >= m;
            out.constant[i] = constant;
            out.mean[i] = constant ? x[i] : ref + mu;
            double s = constant ? 0.0 : std::sqrt(m2 / m);
            if (!constant && !(s > 0)) {
                // not exactly constant but the spread vanished in rounding: recompute directly
                restart(i);
                s = sd;
                m2 = s * s * m;
                out.mean[i] = ref + mu;
            }
            out.std[i] = s;
            out.inv_std[i] = s > 0 ? 1.0 / s : 0.0;
        }
    });
}

}  // namespace tsm
