// main.cpp — runs every TEST in test/unit (optionally only names containing argv[1]).
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <fstream>
#include <random>

#include "check.h"

namespace tsmt {

std::vector<Case>& registry() {
    static std::vector<Case> r;
    return r;
}

int g_failures = 0;

void fail(const char* file, int line, const std::string& what) {
    if (++g_failures <= 10) {
        std::printf("    %s:%d: %s\n", file, line, what.c_str());
        std::fflush(stdout);  // seen even if a later check crashes
    }
}

static void* test_alloc(size_t n) { return std::malloc(n); }

TsExec cpu_exec(int threads) {
    TsExec e{};
    e.backend = TS_BACKEND_CPU;
    e.cpu_threads = threads;
    e.alloc = test_alloc;
    return e;
}

TsExec gpu_exec() {
    TsExec e = cpu_exec();
    e.backend = TS_BACKEND_GPU;
    const char* d = std::getenv("TSMINE_GPU_DEVICE");
    e.gpu_device = d ? std::atoi(d) : 0;
    return e;
}

bool have_gpu() {
    static int cached = -1;
    if (cached < 0) {
        TsStatus st;
        cached = tsm_built_with_cuda() && tsm_gpu_count(&st) > 0;
    }
    return cached == 1;
}

std::string shared_data(const std::string& rel) {
    const char* root = std::getenv("TSMINE_SHARED");
    return std::string(root ? root : "../shared") + "/data/" + rel;
}

std::vector<double> load_column(const std::string& rel, int column, bool csv_header) {
    std::ifstream in(shared_data(rel));
    std::vector<double> v;
    if (!in) return v;
    std::string line;
    if (csv_header) std::getline(in, line);
    while (std::getline(in, line)) {
        for (char& c : line)
            if (c == ',' || c == '\t' || c == '\r') c = ' ';
        std::istringstream ls(line);
        std::string tok;
        for (int c = 0; ls >> tok; ++c)
            if (c == column) {
                v.push_back(std::strtod(tok.c_str(), nullptr));
                break;
            }
    }
    return v;
}

std::vector<double> random_walk(int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0.0, 1.0);
    std::vector<double> v(n);
    double s = 0;
    for (auto& x : v) x = (s += g(rng));
    return v;
}

std::vector<double> periodic(int64_t n, int period, double noise, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = std::sin(2 * M_PI * (double)i / period) + (noise > 0 ? noise * u(rng) : 0.0);
    return v;
}

std::vector<double> gaussian(int64_t n, uint64_t seed, double mean, double sd) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(mean, sd);
    std::vector<double> v(n);
    for (auto& x : v) x = g(rng);
    return v;
}

}  // namespace tsmt

int main(int argc, char** argv) {
    const char* filter = argc > 1 ? argv[1] : nullptr;
    int passed = 0, failed = 0, skipped = 0;
    bool gpu = tsmt::have_gpu();
    std::printf("tsmine core unit tests (%s build, %s)\n", tsm_built_with_cuda() ? "CUDA" : "CPU-only",
                gpu ? "GPU present" : "no GPU");
    for (auto& c : tsmt::registry()) {
        if (filter && !std::strstr(c.name, filter)) continue;
        if (c.gpu && !gpu) {
            std::printf("skip %s (no GPU)\n", c.name);
            ++skipped;
            continue;
        }
        tsmt::g_failures = 0;
        std::printf("run  %s\n", c.name);
        std::fflush(stdout);
        auto t0 = std::chrono::steady_clock::now();
        try {
            c.fn();
        } catch (const std::exception& e) {
            tsmt::fail(__FILE__, __LINE__, std::string("uncaught exception in the test: ") + e.what());
        } catch (...) {
            tsmt::fail(__FILE__, __LINE__, "uncaught exception in the test");
        }
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (tsmt::g_failures) {
            std::printf("FAIL %s (%d failed checks, %.0f ms)\n", c.name, tsmt::g_failures, ms);
            ++failed;
        } else {
            std::printf("ok   %s (%.0f ms)\n", c.name, ms);
            ++passed;
        }
        std::fflush(stdout);
    }
    std::printf("unit: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
