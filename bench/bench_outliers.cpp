// bench_outliers.cpp — the GPU outlier kernels alone (no SQL): for each size,
// ts_outliers(x, 3, 'sigma') on uniform noise in [-5, 5) with one value in
// 10,000 shifted by 40 (the data of bench/outliers.sh), a first call and then
// warm calls, each with kernel ms (CUDA events around the kernels), device ms
// (host-to-device copy + kernels + result copy) and the kernels' bandwidth
// (the bytes they moved, TsExec.device_bytes: pass 1 reads the series, pass 2
// only the stretches that hold an outlier), checking the outliers found.
// With "copy", also times ways of moving the series to the device.  With
// "dense", the data are near-Gaussian noise instead (the sum of 12 uniforms
// minus 6), where k = 3 flags about 0.27% of the values: nearly every stretch
// of 1,024 values holds one, so pass 2 reads nearly the whole series (the
// outliers are then counted, not checked).
// Build: make bench_outliers (a CUDA build; CUDA_ARCH=... as for make).
// Run: bench/bench_outliers [copy] [dense] log2n...      e.g. bench/bench_outliers 20 24 26 28
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "tsm_api.h"

static void* alloc(size_t n) { return std::malloc(n ? n : 1); }

static double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// A uniform number in [0, 1), a deterministic function of i.
static double uniform(int64_t i) {
    uint64_t h = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

// Value of row i (1-based), a deterministic function of i.
static double value(int64_t i) { return (uniform(i) - 0.5) * 10 + (i % 10000 == 0 ? 40 : 0); }

// Value of row i of the dense data: near-Gaussian noise, deterministic in i.
static double dense_value(int64_t i) {
    double g = 0;
    for (int j = 0; j < 12; ++j) g += uniform(i * 12 + j);
    return g - 6;
}

static void copy_experiment(const std::vector<double>& x) {
    const size_t bytes = x.size() * sizeof(double);
    double* d = nullptr;
    cudaMalloc(reinterpret_cast<void**>(&d), bytes);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    for (int rep = 0; rep < 3; ++rep) {
        double t0 = now_ms();
        cudaMemcpyAsync(d, x.data(), bytes, cudaMemcpyHostToDevice, s);
        cudaStreamSynchronize(s);
        double t1 = now_ms();
        cudaHostRegister(const_cast<double*>(x.data()), bytes, cudaHostRegisterDefault);
        double t2 = now_ms();
        cudaMemcpyAsync(d, x.data(), bytes, cudaMemcpyHostToDevice, s);
        cudaStreamSynchronize(s);
        double t3 = now_ms();
        cudaHostUnregister(const_cast<double*>(x.data()));
        double t4 = now_ms();
        // staging through two pinned buffers, memcpy by T threads overlapped with the DMA
        const size_t chunk = size_t(8) << 20;
        double* pin[2];
        double ta = now_ms();
        cudaHostAlloc(reinterpret_cast<void**>(&pin[0]), chunk, cudaHostAllocDefault);
        cudaHostAlloc(reinterpret_cast<void**>(&pin[1]), chunk, cudaHostAllocDefault);
        double tb = now_ms();
        cudaEvent_t ev[2];
        cudaEventCreateWithFlags(&ev[0], cudaEventDisableTiming);
        cudaEventCreateWithFlags(&ev[1], cudaEventDisableTiming);
        for (int threads : {1, 4, 8}) {
            double tc = now_ms();
            const char* src = reinterpret_cast<const char*>(x.data());
            for (size_t off = 0, c = 0; off < bytes; off += chunk, ++c) {
                size_t len = std::min(chunk, bytes - off);
                int b = c & 1;
                cudaEventSynchronize(ev[b]);
                std::vector<std::thread> th;
                size_t part = (len / threads + 63) & ~size_t(63);
                for (int t = 0; t < threads; ++t) {
                    size_t lo = t * part, hi = std::min(len, lo + part);
                    if (lo < hi)
                        th.emplace_back([&, lo, hi, b] { std::memcpy(reinterpret_cast<char*>(pin[b]) + lo, src + off + lo, hi - lo); });
                }
                for (auto& t : th) t.join();
                cudaMemcpyAsync(reinterpret_cast<char*>(d) + off, pin[b], len, cudaMemcpyHostToDevice, s);
                cudaEventRecord(ev[b], s);
            }
            cudaStreamSynchronize(s);
            double td = now_ms();
            std::printf("copy %zu MB: staged (2 x 8 MB pinned, %d memcpy threads) %.2f ms\n", bytes >> 20, threads,
                        td - tc);
        }
        double te = now_ms();
        cudaFreeHost(pin[0]);
        cudaFreeHost(pin[1]);
        double tf = now_ms();
        std::printf("copy %zu MB: pageable %.2f ms | register %.2f + copy %.2f + unregister %.2f ms | "
                    "pinned alloc %.2f ms, free %.2f ms\n",
                    bytes >> 20, t1 - t0, t2 - t1, t3 - t2, t4 - t3, tb - ta, tf - te);
        cudaEventDestroy(ev[0]);
        cudaEventDestroy(ev[1]);
    }
    cudaStreamDestroy(s);
    cudaFree(d);
}

int main(int argc, char** argv) {
    bool copy = false, dense = false;
    TsStatus st;
    if (tsm_gpu_count(&st) < 1) {
        std::fprintf(stderr, "no GPU: %s\n", st.message);
        return 1;
    }
    TsDeviceInfo info;
    tsm_gpu_info(0, &info, &st);
    const double peak = info.mem_bandwidth_gbs > 0 ? info.mem_bandwidth_gbs : 3352;
    std::printf("%s, %d SMs, %.0f GB/s theoretical\n", info.name, info.multiprocessors, peak);
    for (int a = 1; a < argc; ++a) {
        if (!std::strcmp(argv[a], "copy")) {
            copy = true;
            continue;
        }
        if (!std::strcmp(argv[a], "dense")) {
            dense = true;
            continue;
        }
        const int e = std::atoi(argv[a]);
        const int64_t n = int64_t(1) << e;
        std::vector<double> x(n);
        {
            std::vector<std::thread> th;
            const int T = 8;
            for (int t = 0; t < T; ++t)
                th.emplace_back([&, t] {
                    for (int64_t i = n * t / T; i < n * (t + 1) / T; ++i) x[i] = dense ? dense_value(i + 1) : value(i + 1);
                });
            for (auto& t : th) t.join();
        }
        if (copy) copy_experiment(x);
        for (int call = 0; call < 5; ++call) {
            TsExec ex{};
            ex.backend = TS_BACKEND_GPU;
            ex.alloc = alloc;
            TsOutliers o;
            double t0 = now_ms();
            int rc = tsm_outliers(x.data(), n, 3.0, "sigma", &ex, &o, &st);
            double t1 = now_ms();
            if (rc != TS_OK) {
                std::printf("2^%d: error %s\n", e, st.message);
                return 1;
            }
            bool ok = dense || o.count == n / 10000;
            for (int64_t j = 0; ok && !dense && j < o.count; ++j) ok = o.pos[j] == 9999 + 10000 * j;
            const double gbs = ex.device_bytes / (ex.kernel_ms * 1e6);
            std::printf("2^%d call %d: kernels %.4f ms, %.0f GB/s (%.1f%%) | device %.2f ms | call %.2f ms | "
                        "%lld outliers %s | mean %.6f std %.6f\n",
                        e, call, ex.kernel_ms, gbs, 100 * gbs / peak, ex.device_ms, t1 - t0, (long long)o.count,
                        ok ? (dense ? "counted" : "ok") : "WRONG", o.center, o.scale);
            std::free(o.pos);
            std::free(o.value);
            std::free(o.score);
        }
    }
    return 0;
}
