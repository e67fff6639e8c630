// bench_motifs.cpp — the thesis's MK table (n = 4·10^5, m = 128 / 1024, r = 10)
// for tsmine's MK on CPU or GPU, and match.
// Build: make bench_motifs (with the GPU in a CUDA build; make WITH_CUDA=no bench_motifs: CPU only).
// Run: bench/bench_motifs cpu|gpu n m [k] [file column [noise]]
//   no file: a random walk (Gaussian steps, std::mt19937_64 seed 1);
//   file: the column (0-based, split at blanks, tabs, commas) tiled end to end
//   to n points, plus Gaussian noise of noise·σ (σ of the column; seed 2), as
//   bench/motifs.sh does for the ECG with noise = 0.01.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "api_motifs.h"
#include "motifs.h"
#include "series_file.h"

static void* alloc(size_t n) { return std::malloc(n); }

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s cpu|gpu n m [k] [file column [noise]]\n", argv[0]);
        return 2;
    }
    bool gpu = std::strcmp(argv[1], "gpu") == 0;
    int64_t n = std::atoll(argv[2]);
    int m = std::atoi(argv[3]);
    int64_t k = argc > 4 ? std::atoll(argv[4]) : 1;
    std::vector<double> x;
    if (argc > 6) {  // a real series, tiled (repeated end to end) to n points
        const std::vector<double> v = bench::read_column(argv[5], std::atoi(argv[6]));
        if (v.empty()) { std::fprintf(stderr, "no data in %s\n", argv[5]); return 1; }
        x = bench::tiled(v, n, argc > 7 ? std::atof(argv[7]) : 0.0);
    } else {
        x = bench::random_walk(n);
    }
    TsExec ex{};
    ex.backend = gpu ? TS_BACKEND_GPU : TS_BACKEND_CPU;
    ex.alloc = alloc;
    tsm::MkStats st;
#ifdef TSMINE_WITH_CUDA
    if (gpu) {  // the first call pays the CUDA context start: not counted
        std::vector<double> w(x.begin(), x.begin() + std::min<int64_t>(n, 4 * m + 100));
        tsm::gpu::motifs_mk(w.data(), (int64_t)w.size(), m, 1, m, 10, &ex, &st);
    }
#endif
    auto t0 = std::chrono::steady_clock::now();
    std::vector<tsm::MotifPair> r;
#ifdef TSMINE_WITH_CUDA
    if (gpu) r = tsm::gpu::motifs_mk(x.data(), n, m, k, m, 10, &ex, &st);
    else
#endif
        r = tsm::motifs_mk_cpu(x.data(), n, m, k, m, 10, &ex, &st);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s n=%lld m=%d k=%lld: %.3f s (kernel %.1f ms), offsets %lld (last %lld), pairs computed %lld\n",
                gpu ? "gpu" : "cpu", (long long)n, m, (long long)k, s, ex.kernel_ms, (long long)st.offsets,
                (long long)st.last_offset, (long long)st.pairs_computed);
    std::printf("  setup %.1f ms, scan %.1f ms, distances %.1f ms, key %s, W %d\n", st.setup_ms, st.scan_ms, st.dist_ms,
                st.order_reference < 0 ? "PAA axis 0" : "reference", st.paa_segments);
    for (auto& p : r) std::printf("  %lld %lld %.9f\n", (long long)p.a, (long long)p.b, p.d);
    return 0;
}
