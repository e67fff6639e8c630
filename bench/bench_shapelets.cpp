// bench_shapelets.cpp — shapelet discovery on one UCR training set, the core
// alone (no SQL): what bench/shapelets.sh times through ts_shapelets, without
// the glue, for profilers (nsys, ncu) and for comparing two trees.
// Build: make bench_shapelets (the GPU in a CUDA build; make WITH_CUDA=no bench_shapelets: CPU only).
// Run: bench/bench_shapelets cpu|gpu file.tsv [step [reps [settle]]]
//   file.tsv: a UCR set (label, then the values, tab-separated, a series a
//   line), as ../shared/data/ucr/<set>/<set>_TRAIN.tsv; every length
//   2..longest by step (default 1), k = 1; reps calls (default 3), each
//   timed, after one warm-up call on the GPU (the CUDA context's start);
//   settle: lazy (the default: settle only where it decides) or all (settle
//   every pending entry; the same rows, for comparing the two).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "api_shapelets.h"
#include "shapelets.h"

static void* alloc(size_t n) { return std::malloc(n); }

struct TrainingSet {
    std::vector<std::vector<double>> series;
    std::vector<int32_t> class_ids;
    int32_t n_classes = 0;
    int32_t longest = 0;
};

// The set's lines: label, values; class ids by label text, as the glue gives them.
static bool read_training_set(const char* path, TrainingSet& set) {
    std::ifstream in(path);
    std::string line, tok;
    std::vector<std::string> labels;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        if (!std::getline(ls, tok, '\t')) continue;
        labels.push_back(std::to_string(std::atoi(tok.c_str())));
        std::vector<double> v;
        while (std::getline(ls, tok, '\t')) v.push_back(std::strtod(tok.c_str(), nullptr));
        set.longest = std::max<int32_t>(set.longest, (int32_t)v.size());
        set.series.push_back(std::move(v));
    }
    std::map<std::string, int32_t> ids;
    for (auto& l : labels) ids[l] = 0;
    for (auto& e : ids) e.second = set.n_classes++;
    for (auto& l : labels) set.class_ids.push_back(ids[l]);
    return !set.series.empty();
}

// One call; false (and the status printed) when it fails.
static bool discover(const TrainingSet& set, int step, bool gpu, double* ms, double* kernel_ms, TsShapelets* out) {
    std::vector<const double*> ptr;
    std::vector<int64_t> len;
    for (auto& s : set.series) {
        ptr.push_back(s.data());
        len.push_back((int64_t)s.size());
    }
    TsExec ex{};
    ex.backend = gpu ? TS_BACKEND_GPU : TS_BACKEND_CPU;
    ex.alloc = alloc;
    TsStatus st{};
    auto t0 = std::chrono::steady_clock::now();
    int rc = tsm_shapelets(ptr.data(), len.data(), set.class_ids.data(), (int64_t)ptr.size(), set.n_classes, 2,
                           set.longest, step, 1, &ex, out, &st);
    *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    *kernel_ms = ex.kernel_ms;
    if (rc != 0) std::fprintf(stderr, "tsm_shapelets: %s (%s)\n", st.message, st.sqlstate);
    return rc == 0;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s cpu|gpu file.tsv [step [reps [lazy|all]]]\n", argv[0]);
        return 2;
    }
    const bool gpu = std::strcmp(argv[1], "gpu") == 0;
    const int step = argc > 3 ? std::atoi(argv[3]) : 1;
    const int reps = argc > 4 ? std::atoi(argv[4]) : 3;
    if (argc > 5 && std::strcmp(argv[5], "lazy") != 0 && std::strcmp(argv[5], "all") != 0) {
        std::fprintf(stderr, "settle: lazy or all, not %s\n", argv[5]);
        return 2;
    }
    tsm::shp::settle_lazily() = !(argc > 5 && std::strcmp(argv[5], "all") == 0);
    TrainingSet set;
    if (!read_training_set(argv[2], set)) {
        std::fprintf(stderr, "no series in %s\n", argv[2]);
        return 1;
    }
    TsShapelets out{};
    double ms, kernel_ms;
    if (gpu && !discover(set, step, gpu, &ms, &kernel_ms, &out)) return 1;  // the context's start: not counted
    std::printf("%s %s: N=%zu L=%d step %d, settle %s\n", gpu ? "gpu" : "cpu", argv[2], set.series.size(),
                set.longest, step, tsm::shp::settle_lazily() ? "lazy" : "all");
    for (int r = 0; r < reps; ++r) {
        if (!discover(set, step, gpu, &ms, &kernel_ms, &out)) return 1;
        std::printf("  call %d: %.1f ms (kernels %.2f ms)", r + 1, ms, kernel_ms);
        if (out.count > 0)
            std::printf(", row %lld start %d length %d gain %.9f threshold %.9f", (long long)out.items[0].source_row,
                        out.items[0].start, out.items[0].length, out.items[0].info_gain, out.items[0].threshold);
        std::printf("\n");
        for (int32_t i = 0; i < out.count; ++i) std::free(out.items[i].values);
        std::free(out.items);
        out = TsShapelets{};
    }
    return 0;
}
