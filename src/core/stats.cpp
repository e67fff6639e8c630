// stats.cpp — order statistics and sums of a series (stats.h).
#include "stats.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "error.h"
#include "outliers_detail.h"
#include "parallel.h"

namespace tsm {

namespace {

constexpr int64_t kBlock = int64_t(1) << 18;  // values per task

int64_t n_blocks(int64_t n) { return (n + kBlock - 1) / kBlock; }

// Order-preserving 64-bit key of a double (total order, −0 < +0 irrelevant here).
uint64_t order_key(double v) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return (b & 0x8000000000000000ull) ? ~b : (b | 0x8000000000000000ull);
}
double key_value(uint64_t k) {
    uint64_t b = (k & 0x8000000000000000ull) ? (k & ~0x8000000000000000ull) : ~k;
    double v;
    std::memcpy(&v, &b, sizeof v);
    return v;
}

}  // namespace

double max_magnitude(const double* x, int64_t n, const TsExec* ex) {
    const int64_t nb = n_blocks(n);
    std::vector<double> top(nb, 0.0);
    parallel_for(ex, nb, [&](int64_t b) {
        int64_t lo = b * kBlock, hi = std::min(n, lo + kBlock);
        double a = 0;
        for (int64_t i = lo; i < hi; ++i) a = outliers::max_abs(a, x[i]);
        top[b] = a;
    });
    double a = 0;
    for (double t : top) a = outliers::max_abs(a, t);
    return a;
}

// Radix selection on order keys, 16 bits a round: histogram the next 16 bits of
// the keys that share the prefix found so far, keep the bucket that holds rank
// k, and once few enough candidates remain, collect them and finish with
// nth_element.  Each round is one parallel, interruptible pass.
double select_kth(const double* x, int64_t n, int64_t k, const TsExec* ex, const outliers::Affine& f) {
    if (n <= 0 || k < 0 || k >= n) throw Error(TS_INTERNAL, kInternal, "select_kth: rank out of range");
    auto value_at = [&](int64_t i) { return f(x[i]); };
    auto key_at = [&](int64_t i) { return order_key(value_at(i)); };
    const int64_t nb = n_blocks(n);
    const int64_t kCollect = int64_t(1) << 20;

    uint64_t prefix = 0;
    int prefix_bits = 0;
    int64_t rank = k;         // rank within the candidates that share the prefix
    int64_t candidates = n;
    std::mutex mu;
    while (candidates > kCollect && prefix_bits < 64) {
        const int shift = 64 - prefix_bits - 16;
        std::vector<int64_t> hist(65536, 0);
        parallel_for(ex, nb, [&](int64_t b) {
            std::vector<int64_t> h(65536, 0);
            int64_t lo = b * kBlock, hi = std::min(n, lo + kBlock);
            for (int64_t i = lo; i < hi; ++i) {
                uint64_t kk = key_at(i);
                if (prefix_bits && (kk >> (64 - prefix_bits)) != prefix) continue;
                ++h[(kk >> shift) & 0xffff];
            }
            std::lock_guard<std::mutex> lk(mu);
            for (int j = 0; j < 65536; ++j) hist[j] += h[j];
        });
        int bucket = 0;
        while (rank >= hist[bucket]) rank -= hist[bucket++];
        prefix = (prefix << 16) | static_cast<uint64_t>(bucket);
        prefix_bits += 16;
        candidates = hist[bucket];
    }
    if (prefix_bits >= 64) return key_value(prefix);  // all candidates are equal

    std::vector<std::vector<double>> parts(nb);
    parallel_for(ex, nb, [&](int64_t b) {
        int64_t lo = b * kBlock, hi = std::min(n, lo + kBlock);
        auto& p = parts[b];
        for (int64_t i = lo; i < hi; ++i) {
            uint64_t kk = key_at(i);
            if (prefix_bits && (kk >> (64 - prefix_bits)) != prefix) continue;
            p.push_back(value_at(i));
        }
    });
    std::vector<double> all;
    all.reserve(static_cast<size_t>(candidates));
    for (auto& p : parts) all.insert(all.end(), p.begin(), p.end());
    std::nth_element(all.begin(), all.begin() + rank, all.end());
    return all[rank];
}

double median(const double* x, int64_t n, const TsExec* ex, const outliers::Affine& f) {
    if (n <= 0) return 0;
    double hi = select_kth(x, n, n / 2, ex, f);
    if (n % 2) return hi;
    double lo = select_kth(x, n, n / 2 - 1, ex, f);
    return outliers::middle_mean(lo, hi);
}

}  // namespace tsm
