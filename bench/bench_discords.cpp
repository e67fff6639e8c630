// bench_discords.cpp — top-k discords of a random walk by PD3 (tsm::pd3_discords,
// the core alone, no SQL), on the CPU or the GPU: the time of the whole search
// and of its kernels.  A driver to profile PD3's scan (e.g. under ncu).
// Build: make bench_discords (GPU in a CUDA build; make WITH_CUDA=no bench_discords: CPU only).
// Run: bench/bench_discords cpu|gpu n m [k [repeats]]
//   the series: a random walk (Gaussian steps, std::mt19937_64 seed 1).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "discords.h"

static void* alloc(size_t n) { return std::malloc(n); }

static std::vector<double> random_walk(int64_t n) {
    std::vector<double> x;
    std::mt19937_64 rng(1);
    std::normal_distribution<double> g(0, 1);
    double s = 0;
    for (int64_t i = 0; i < n; ++i) x.push_back(s += g(rng));
    return x;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s cpu|gpu n m [k [repeats]]\n", argv[0]);
        return 2;
    }
    const bool gpu = std::strcmp(argv[1], "gpu") == 0;
    const int64_t n = std::atoll(argv[2]);
    const int m = std::atoi(argv[3]);
    const int64_t k = argc > 4 ? std::atoll(argv[4]) : 1;
    const int repeats = argc > 5 ? std::atoi(argv[5]) : 3;
    const std::vector<double> x = random_walk(n);
    TsExec ex{};
    ex.backend = gpu ? TS_BACKEND_GPU : TS_BACKEND_CPU;
    ex.alloc = alloc;
    if (gpu) {  // the first call pays the CUDA context start: not counted
        const std::vector<double> w(x.begin(), x.begin() + std::min<int64_t>(n, 4 * m + 100));
        tsm::pd3_discords(w.data(), (int64_t)w.size(), m, 1, NAN, m, &ex);
    }
    for (int rep = 0; rep < repeats; ++rep) {
        ex.kernel_ms = 0;
        const auto t0 = std::chrono::steady_clock::now();
        const tsm::RankedDiscords r = tsm::pd3_discords(x.data(), n, m, k, NAN, m, &ex);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s n=%lld m=%d k=%lld: %.1f ms (kernels %.1f ms)", gpu ? "gpu" : "cpu", (long long)n, m,
                    (long long)k, 1e3 * s, ex.kernel_ms);
        for (size_t t = 0; t < r.pos.size() && t < 3; ++t)
            std::printf("  %lld:%.9f", (long long)r.pos[t], r.dist[t]);
        std::printf("\n");
    }
    return 0;
}
