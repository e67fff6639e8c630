// stats_kernel's restart scan by a warp (kernels/shapelets_scan.cuh) against
// the serial scan (scan_restarts), bit for bit: on the host, the kernel's
// text run a thread per lane (warp_emulation.h), so that machines without a
// GPU test it too; and on the device.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "check.h"
#include "shapelets.h"
#include "warp_emulation.h"

namespace tsm {
namespace shp {
namespace gpu {
using namespace warp_emulation;
}
}  // namespace shp
}  // namespace tsm
#include "../../kernels/shapelets_scan.cuh"

namespace {

using tsm::shp::WindowSpans;

struct ScanCase {
    std::vector<WindowSpans> spans;
    std::vector<double> inv_sd;
};

struct ScanResult {
    std::vector<uint8_t> restart;
    std::vector<double> reach;
    std::vector<int32_t> listed;
};

// Counts around multiples of 32 (1 to 1000) by patterns: no restarts; a
// large step with probability 1/16, 1/3 or always (every window restarting);
// large steps at the first and last lane of each chunk; zero spans.  Flat
// (1/σ = 0) and gap (NaN) windows throughout.
std::vector<ScanCase> scan_cases() {
    std::mt19937_64 rng(20261210);
    auto uniform = [&] { return (double)(rng() % 1000001) / 1e6; };
    std::vector<ScanCase> cases;
    for (int64_t count : {1, 2, 31, 32, 33, 63, 64, 65, 97, 200, 1000})
        for (int pattern = 0; pattern < 6; ++pattern) {
            ScanCase c;
            c.spans.resize(count);
            c.inv_sd.resize(count);
            for (int64_t w = 0; w < count; ++w) {
                const bool large = pattern == 1   ? rng() % 16 == 0
                                   : pattern == 2 ? rng() % 3 == 0
                                   : pattern == 3 ? true
                                   : pattern == 4 ? (w % 32 == 1 || w % 32 == 0)
                                                  : false;
                const bool zero = pattern == 5 && rng() % 2;
                c.spans[w].step = w == 0 ? 0.0 : large ? 1e6 * (1 + uniform()) : zero ? 0.0 : uniform();
                c.spans[w].own = pattern == 5 && rng() % 2 ? 0.0 : 0.5 + uniform();
                const uint64_t kind = rng() % 20;
                c.inv_sd[w] = kind == 0 ? 0.0 : kind == 1 ? std::nan("") : 0.1 + 10 * uniform();
            }
            cases.push_back(c);
        }
    return cases;
}

ScanResult serial_scan(const ScanCase& c) {
    const int64_t count = (int64_t)c.spans.size();
    ScanResult r;
    r.restart.resize(count);
    r.reach.resize(count);
    tsm::shp::scan_restarts(
        count, c.inv_sd.data(), [&](int64_t w) { return c.spans[w]; },
        [&](int64_t w, bool restart, double reach) {
            r.restart[w] = restart ? 1 : 0;
            r.reach[w] = reach;
            if (restart) r.listed.push_back((int32_t)w);
        });
    return r;
}

// The kernel's function on the emulated warp; every lane must return the same count.
ScanResult emulated_warp_scan(const ScanCase& c) {
    const int64_t count = (int64_t)c.spans.size();
    std::vector<warp_emulation::double2> spans(count);
    for (int64_t w = 0; w < count; ++w) spans[w] = warp_emulation::make_double2(c.spans[w].step, c.spans[w].own);
    ScanResult r;
    r.restart.assign(count, 7);
    r.reach.assign(count, -1.0);
    std::vector<int32_t> list(count, -1), listed(warp_emulation::kLanes, -1);
    warp_emulation::run_warp([&](int lane) {
        listed[lane] = tsm::shp::gpu::warp_scan_restarts(count, c.inv_sd.data(), spans.data(), r.restart.data(),
                                                         r.reach.data(), list.data(), lane);
    });
    for (int32_t n : listed) CHECK_EQ(n, listed[0]);
    r.listed.assign(list.begin(), list.begin() + listed[0]);
    return r;
}

bool same_scan(const ScanResult& a, const ScanResult& b) {
    return a.restart == b.restart && a.listed == b.listed && a.reach.size() == b.reach.size() &&
           std::memcmp(a.reach.data(), b.reach.data(), a.reach.size() * sizeof(double)) == 0;
}

// Chunks (32 windows from window 1) with two or more restarts: the passes after a restart.
int64_t crowded_chunks(const ScanResult& r) {
    int64_t crowded = 0;
    for (int64_t chunk = 0; chunk * 32 < (int64_t)r.restart.size(); ++chunk) {
        int in_chunk = 0;
        for (int32_t w : r.listed) in_chunk += (w - 1) / 32 == chunk;
        crowded += in_chunk >= 2;
    }
    return crowded;
}

}  // namespace

TEST(shapelets_warp_restart_scan_equals_the_serial_scan) {
    int64_t restarts = 0, crowded = 0;
    for (const ScanCase& c : scan_cases()) {
        const ScanResult want = serial_scan(c);
        CHECK(same_scan(emulated_warp_scan(c), want));
        restarts += (int64_t)want.listed.size();
        crowded += crowded_chunks(want);
    }
    std::printf("    %lld restarts, %lld chunks with two or more\n", (long long)restarts, (long long)crowded);
    CHECK(crowded > 50);
}

#ifdef TSMINE_WITH_CUDA
GPU_TEST(shapelets_gpu_restart_scan_equals_the_serial_scan) {
    for (const ScanCase& c : scan_cases()) {
        TsExec ex = tsmt::gpu_exec();
        const tsm::shp::gpu::RestartScan got = tsm::shp::gpu::restart_scan(c.spans, c.inv_sd, &ex);
        CHECK(same_scan(ScanResult{got.restart, got.reach, got.listed}, serial_scan(c)));
    }
    CHECK_EQ(tsm_gpu_bytes_in_use(), (int64_t)0);
}
#endif
