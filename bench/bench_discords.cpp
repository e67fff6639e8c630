// bench_discords.cpp — top-k discords (the core alone, no SQL), on the CPU or
// the GPU: the time of the whole search and of its kernels.  A driver to
// profile PD3's scan (e.g. under ncu) and the ranking's fixed costs.
// Build: make bench_discords (GPU in a CUDA build; make WITH_CUDA=no bench_discords: CPU only).
// Run: bench/bench_discords cpu|gpu n m [k [repeats [file column [method]]]]
//   no file: a random walk (Gaussian steps, std::mt19937_64 seed 1);
//   file: the column (0-based, split at blanks, tabs, commas) tiled end to
//   end to n points (n = 0: the file's length);
//   method: pd3 (tsm::pd3_discords, the default) or matrix_profile
//   (tsm_discords, the SQL function's core entry: the profile and the exact
//   ranking), or matrix_profile_raw (the same with raw-value distances,
//   normalize = 0).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api_discords.h"
#include "discords.h"
#include "series_file.h"

static void* alloc(size_t n) { return std::malloc(n); }

// One search: its rows (at most three printed).
static tsm::RankedDiscords search(const std::vector<double>& x, int m, int64_t k, const std::string& method,
                                  TsExec* ex) {
    if (method == "pd3") return tsm::pd3_discords(x.data(), (int64_t)x.size(), m, k, NAN, m, ex);
    const bool raw = method == "matrix_profile_raw";
    TsDiscords out{};
    TsStatus st{};
    tsm::RankedDiscords r;
    if (tsm_discords(x.data(), (int64_t)x.size(), m, k, NAN, m, raw ? "matrix_profile" : method.c_str(), raw ? 0 : 1,
                     ex, &out, &st) != TS_OK) {
        std::fprintf(stderr, "tsm_discords: %s\n", st.message);
        std::exit(1);
    }
    for (int64_t t = 0; t < out.count; ++t) {
        r.pos.push_back(out.pos[t]);
        r.dist.push_back(out.dist[t]);
    }
    return r;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s cpu|gpu n m [k [repeats [file column [method]]]]\n"
                             "  file -: a random walk of n values (to give a method without a file)\n",
                     argv[0]);
        return 2;
    }
    const bool gpu = std::strcmp(argv[1], "gpu") == 0;
    const int64_t n = std::atoll(argv[2]);
    const int m = std::atoi(argv[3]);
    const int64_t k = argc > 4 ? std::atoll(argv[4]) : 1;
    const int repeats = argc > 5 ? std::atoi(argv[5]) : 3;
    const std::string method = argc > 8 ? argv[8] : "pd3";
    std::vector<double> x;
    if (argc > 7 && std::strcmp(argv[6], "-") != 0) {
        const std::vector<double> v = bench::read_column(argv[6], std::atoi(argv[7]));
        if (v.empty()) { std::fprintf(stderr, "no data in %s\n", argv[6]); return 1; }
        x = bench::tiled(v, n, 0.0);
    } else {
        x = bench::random_walk(n);
    }
    TsExec ex{};
    ex.backend = gpu ? TS_BACKEND_GPU : TS_BACKEND_CPU;
    ex.alloc = alloc;
    if (gpu) {  // the first call pays the CUDA context start: not counted
        const std::vector<double> w(x.begin(), x.begin() + std::min<int64_t>((int64_t)x.size(), 4 * m + 100));
        search(w, m, 1, method, &ex);
    }
    for (int rep = 0; rep < repeats; ++rep) {
        ex.kernel_ms = ex.device_ms = 0;
        const auto t0 = std::chrono::steady_clock::now();
        const tsm::RankedDiscords r = search(x, m, k, method, &ex);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s %s n=%lld m=%d k=%lld: %.2f ms (device %.2f ms, kernels %.2f ms)", gpu ? "gpu" : "cpu",
                    method.c_str(), (long long)x.size(), m, (long long)k, 1e3 * s, ex.device_ms, ex.kernel_ms);
        for (size_t t = 0; t < r.pos.size() && t < 3; ++t)
            std::printf("  %lld:%.9f", (long long)r.pos[t], r.dist[t]);
        std::printf("\n");
    }
    return 0;
}
