// estimate.cpp — the rates behind the automatic choices (the matrix profile's
// time, which is MK's budget in ts_motifs' auto) and ts_estimate's figures
// for every function whose cost grows with its input.
//
// Each rate says where it was measured.  "H100" figures come from
// bench/RESULTS.md's current tables (one H100, its host's 16-core CPU);
// "build machine" figures from bench/estimate.sh on the 2-core CPU build
// machine (bench/RESULTS.md, "Estimates against measured runs"), per thread.
// Costs count the work inside tsmine: ts_last_run's total_ms − input_ms.
#include "estimate.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "api_discords.h"
#include "api_estimate.h"
#include "api_motifs.h"
#include "args.h"
#include "error.h"
#include "parallel.h"

namespace tsm {
namespace estimate {

// A call as ts_estimate's arguments describe it, checked (estimate_call below).
struct Call {
    int work = 0;         // TsWork: the function's family
    bool tree = false;    // shapelets: ts_shapelet_tree rather than ts_shapelets
    int method = 0;       // TsDiscordMethod, TsMotifMethod or TsOutlierMethod; else 0
    int64_t n = 0;        // values of the series (shapelets: of each training series)
    int32_t m = 0;        // window or pattern length (shapelets: max_length)
    int64_t k = 1;        // results asked for (discords, motifs)
    int64_t series_count = 0;  // shapelets: training series
    int32_t min_length = 0, step = 0;  // shapelets
};

namespace {

// ---- rates ---------------------------------------------------------------

// CPU rates are those of one thread of the build machine; t threads do
// t^0.6 times as much: the exponent that turns its one-thread matrix profile
// (1.6e9 pairs/s) into the H100 host's 16-thread figure (8e9 pairs/s), the
// only CPU rate measured on both machines.
constexpr double kThreadScaling = 0.6;

// Matrix profile, in pairs of windows (windows²/2): H100 kernels 1.03–1.11e12
// pairs/s plus about 10 ms of set-up and transfers (2^18 and 2^20, m = 100
// and 1024); CPU 1.6e9 pairs/s on one thread (2^13 to 2^15, m = 100).
constexpr double kMpGpuPairsPerS = 1.0e12, kMpGpuFixedS = 0.010;
constexpr double kMpCpuPairsPerS = 1.6e9, kMpCpuFixedS = 0.005;

// PD3 prunes by the data; on random walks its time grows as windows^1.2 on
// the CPU (windows^0.88 on the GPU since its scan runs in chunks, a warp
// each), as (m/100)^0.3 with the window, and with k through the r schedule's
// extra rounds.  CPU: 2^13 to 2^16, m = 100 and 400, k = 1 and 10; GPU
// (H100, bench/bench_discords at 6023727, 2026-11-24): 2^18 k = 1 70 ms, 2^20
// k = 1 222–232 ms, k = 10 499–500 ms (random walks of 5,000 to 45,000
// values take up to 2.5 times the figure, the PD3 paper's real series up to
// 7 times: bench/RESULTS.md, PD3 in chunks).
constexpr double kPd3Exponent = 1.2, kPd3GpuExponent = 0.88, kPd3WindowExponent = 0.3;
constexpr double kPd3CpuRate = 1.5e6, kPd3CpuPerK = 0.1;
constexpr double kPd3GpuRate = 1.05e6, kPd3GpuPerK = 0.16, kPd3GpuFixedS = 0.005;

// MK prunes by the data too; on random walks about windows^1.5 a rank.  CPU:
// 2^13 to 2^15; GPU (H100): n = 4·10^5, m = 128 (54 ms).
constexpr double kMkExponent = 1.5;
constexpr double kMkCpuRate = 1.75e7, kMkGpuRate = 4.7e9, kMkGpuFixedS = 0.005;

// The exact distance profile of one window (ts_match, and each window that
// ts_motifs' selection from a profile checks), in window·length products,
// and (CPU) the sort of the distances: CPU 6e8 on one thread (2^18 to 2^20,
// m = 100); GPU 2e11 (one warp a window).  ts_match on the GPU as a whole
// (distances, selection, the copy back): 4e9 window·length products a second
// (H100, bench/estimate.sh, 2026-11-24: 2^22 to 2^24 points, m = 100).
constexpr double kProfileCpuPerS = 6.0e8, kSortCpuPerS = 2.0e8;
constexpr double kProfileGpuPerS = 2.0e11, kProfileGpuFixedS = 0.003;
constexpr double kMatchGpuPerS = 4.0e9;

// Outliers, per value: sigma two passes at memory speed, mad exact medians
// (radix selection, several passes); CPU one thread, 2^22 to 2^24.  GPU: the
// series' transfer to the device and the frames dominate, sigma and mad alike
// (H100, bench/estimate.sh, 2026-11-24: 2^22 to 2^24, 6 GB/s of series).
constexpr double kSigmaCpuPerS = 9.0e8, kMadCpuPerS = 9.0e7;
constexpr double kOutliersGpuBytesPerS = 6.0e9, kOutliersGpuFixedS = 0.002;

// Shapelets, in cell updates (pivots × series × series length): H100 about
// 1e12 a second (UCR Trace, Car, OSULeaf); CPU one thread 1.5e9 (20 series of
// 64 to 128 values), with about 10 ms of set-up.
constexpr double kShapeletGpuPerS = 1.0e12, kShapeletGpuFixedS = 0.002;
constexpr double kShapeletCpuPerS = 1.5e9, kShapeletCpuFixedS = 0.010;

double cpu_speed(int threads) { return std::pow((double)std::max(threads, 1), kThreadScaling); }

// ---- costs ---------------------------------------------------------------

struct Cost {
    double seconds = 0, device = 0, host = 0;
    const char* method = nullptr;
};

double window_count(int64_t n, int64_t m) { return (double)std::max<int64_t>(0, n - m + 1); }

// The profile's arrays (matrix_profile.cu's DeviceMemory, matrix_profile.cpp's
// Prepared): 16 bytes a value and 89 a window on the device; 8 and 105 on the
// CPU; the result (16 a window) on the host either way.
Cost matrix_profile(int64_t n, int64_t m, bool gpu, int threads) {
    const double w = window_count(n, m);
    Cost c;
    c.seconds = matrix_profile_seconds(n, m, gpu, threads);
    c.device = gpu ? 16.0 * n + 89.0 * w : 0;
    c.host = gpu ? 16.0 * w : 8.0 * n + 105.0 * w;
    c.method = "matrix_profile";
    return c;
}

double profile_seconds(double products, bool gpu, int threads) {
    return gpu ? kProfileGpuFixedS + products / kProfileGpuPerS : products / (kProfileCpuPerS * cpu_speed(threads));
}

Cost discords(const Call& a, bool gpu, int threads) {
    Cost c = matrix_profile(a.n, a.m, gpu, threads);
    if (a.method != TS_DISCORDS_PD3) return c;  // auto: the matrix profile
    const double k = (double)std::max<int64_t>(1, a.k), w = window_count(a.n, a.m);
    const double work = std::pow(w, gpu ? kPd3GpuExponent : kPd3Exponent) * std::pow(a.m / 100.0, kPd3WindowExponent);
    c.seconds = gpu ? kPd3GpuFixedS + work * (1 + kPd3GpuPerK * k) / kPd3GpuRate
                    : work * (1 + kPd3CpuPerK * k) / (kPd3CpuRate * cpu_speed(threads));
    // PD3's per-window arrays (distances, neighbours, bitmaps, statistics)
    c.device = gpu ? 8.0 * a.n + 100.0 * w : 0;
    c.host = gpu ? 0 : 8.0 * a.n + 100.0 * w;
    c.method = "pd3";
    return c;
}

// mk: its time a rank, with its reference
// distances (ten references: 80 bytes a window) and index; auto: MK within
// the profile's time, else the profile after it.
Cost motifs(const Call& a, bool gpu, int threads) {
    const double w = window_count(a.n, a.m), k = (double)std::max<int64_t>(1, a.k);
    Cost mp = matrix_profile(a.n, a.m, gpu, threads);
    mp.seconds += profile_seconds(2 * k * w * a.m, gpu, threads);  // the windows the selection checks
    Cost mk;
    const double rank = std::pow(w, kMkExponent);
    mk.seconds = k * (gpu ? kMkGpuFixedS + rank / kMkGpuRate : rank / (kMkCpuRate * cpu_speed(threads)));
    mk.device = gpu ? 8.0 * a.n + 150.0 * w : 0;
    mk.host = gpu ? 16.0 * w : 150.0 * w;
    mk.method = "mk";
    if (a.method == TS_MOTIFS_MK || (a.method == TS_MOTIFS_AUTO && 2 * (int64_t)a.m > a.n)) return mk;
    if (a.method == TS_MOTIFS_MATRIX_PROFILE) return mp;
    if (mk.seconds <= mp.seconds) return mk;
    mp.seconds *= 2;  // MK ran for the profile's time first
    mp.device = std::max(mp.device, mk.device);
    mp.host = std::max(mp.host, mk.host);
    return mp;
}

// the distance of every window, sorted (on the GPU with its buffers)
Cost match(const Call& a, bool gpu, int threads) {
    const double w = window_count(a.n, a.m);
    Cost c;
    c.seconds = gpu ? kProfileGpuFixedS + w * a.m / kMatchGpuPerS
                    : profile_seconds(w * a.m, gpu, threads) +
                          w * std::log2(std::max(w, 2.0)) / (kSortCpuPerS * cpu_speed(threads));
    c.device = gpu ? 8.0 * a.n + 65.0 * w : 0;
    c.host = gpu ? 16.0 * w : 25.0 * w;
    return c;
}

Cost outliers(const Call& a, bool gpu, int threads) {
    const bool mad = a.method == TS_OUTLIERS_MAD;
    Cost c;
    c.method = mad ? "mad" : "sigma";
    if (gpu) {
        c.seconds = kOutliersGpuFixedS + 8.0 * a.n / kOutliersGpuBytesPerS;
        c.device = (mad ? 24.0 : 9.0) * a.n;
    } else {
        c.seconds = a.n / ((mad ? kMadCpuPerS : kSigmaCpuPerS) * cpu_speed(threads));
        c.host = mad ? 16.0 * a.n : 0;
    }
    return c;
}

// Every length's pivots against every series; a tree splits each level's
// series among its nodes, so its levels together cost at most about twice
// the root's discovery (halving subsets: N² + 2(N/2)² + ... ≤ 2N²).
Cost shapelets(const Call& a, bool gpu, int threads) {
    const double series = (double)a.series_count, len = (double)a.n;
    double pivots = 0;
    for (int64_t L = a.min_length; L <= a.m && L <= a.n; L += a.step) pivots += series * (len - L + 1);
    const double cells = pivots * series * len * (a.tree ? 2 : 1);
    Cost c;
    c.seconds = gpu ? kShapeletGpuFixedS + cells / kShapeletGpuPerS
                    : kShapeletCpuFixedS + cells / (kShapeletCpuPerS * cpu_speed(threads));
    const double values = series * len;
    c.device = gpu ? 64.0 * values + 8.0 * series * series : 0;
    c.host = (gpu ? 16.0 : 64.0) * values + 8.0 * series * series;
    return c;
}

}  // namespace

double matrix_profile_seconds(int64_t n, int64_t m, bool gpu, int threads) {
    const double w = window_count(n, m), pairs = w * w / 2;
    if (gpu) return kMpGpuFixedS + pairs / kMpGpuPairsPerS;
    return kMpCpuFixedS + pairs / (kMpCpuPairsPerS * cpu_speed(threads));
}

}  // namespace estimate
}  // namespace tsm

namespace {

using tsm::estimate::Call;
using tsm::estimate::Cost;

// The functions ts_estimate knows, their work and their methods (in the
// order of the function's method enum; NULL: 'auto' alone).
struct EstimatedFunction {
    const char* name;
    int work;
    bool tree;
    const char* const* methods;
    int n_methods;
};

constexpr int kFunctionCount = 8;
const EstimatedFunction kFunctions[kFunctionCount] = {
    {"ts_outliers", TS_WORK_OUTLIERS, false, tsm::args::kOutlierMethods, 2},
    {"ts_matrix_profile", TS_WORK_MATRIX_PROFILE, false, nullptr, 0},
    {"ts_matrix_profile_arrays", TS_WORK_MATRIX_PROFILE, false, nullptr, 0},
    {"ts_discords", TS_WORK_DISCORDS, false, tsm::args::kDiscordMethods, 3},
    {"ts_motifs", TS_WORK_MOTIFS, false, tsm::args::kMotifMethods, 3},
    {"ts_match", TS_WORK_MATCH, false, nullptr, 0},
    {"ts_shapelets", TS_WORK_SHAPELETS, false, nullptr, 0},
    {"ts_shapelet_tree", TS_WORK_SHAPELETS, true, nullptr, 0},
};

const EstimatedFunction& function_named(const char* name) {
    const char* names[kFunctionCount];
    for (int i = 0; i < kFunctionCount; ++i) names[i] = kFunctions[i].name;
    return kFunctions[tsm::args::choice(name, "function", names, kFunctionCount)];
}

// The method argument: one of the function's methods; NULL or 'auto' (the
// default) is the function's own default; a function with one method takes
// only 'auto'.
int method_named(const EstimatedFunction& f, const char* method) {
    static const char* const only_auto[] = {"auto"};
    if (!method) return 0;
    if (f.work == TS_WORK_OUTLIERS && tsm::args::same_name(method, "auto")) return TS_OUTLIERS_SIGMA;
    if (!f.methods) return tsm::args::choice(method, "method", only_auto, 1);
    return tsm::args::choice(method, "method", f.methods, f.n_methods);
}

[[noreturn]] void not_given(const char* what, const char* hint = "") {
    throw tsm::Error(TS_INVALID_ARGUMENT, tsm::kNullValueNotAllowed, what, hint);
}

// ts_estimate's arguments as a call, in the order the glue used to check
// them: the function, m (only ts_outliers goes without), the method, the
// shapelet sizes, the backend (into ex; NULL: tsmine.backend as it is).
Call estimate_call(const TsEstimateArgs& g, TsExec* ex, const char** function) {
    const EstimatedFunction& f = function_named(g.function);
    Call a;
    *function = f.name;
    a.work = f.work;
    a.tree = f.tree;
    a.n = g.n;
    if (g.m == TS_ARG_NULL && a.work != TS_WORK_OUTLIERS) not_given("m must not be NULL");
    a.m = g.m == TS_ARG_NULL ? 0 : (int32_t)g.m;
    a.k = g.k == TS_ARG_NULL ? 1 : g.k;  // k's SQL default
    a.method = method_named(f, g.method);
    if (a.work == TS_WORK_SHAPELETS) {
        if (g.series_count == TS_ARG_NULL || g.min_length == TS_ARG_NULL)
            not_given("series_count and min_length must be given for shapelets",
                      "n is the length of each training series, series_count how many there are, "
                      "min_length and m the shortest and longest shapelet.");
        if (g.step == TS_ARG_NULL) not_given("step must not be NULL");
        a.series_count = g.series_count;
        a.min_length = (int32_t)g.min_length;
        a.step = (int32_t)g.step;
    }
    if (g.backend) ex->backend = tsm::args::choice(g.backend, "backend", tsm::args::kBackends, 3);
    return a;
}

// The checks a call would make on these sizes (the messages are the calls').
void check_sizes(const Call& a) {
    if (a.n < 0) tsm::invalid("n must be at least 0");
    if (a.work == TS_WORK_OUTLIERS) return;
    if (a.m < (a.work == TS_WORK_SHAPELETS ? 2 : 3))
        tsm::invalid(tsm::format("m must be at least 3, not %d", (int)a.m),
                     "m is the window, pattern or (shapelets) maximum length.");
    if (a.work == TS_WORK_SHAPELETS) {
        if (a.series_count < 2) tsm::invalid("at least two training series are needed");
        if (a.min_length < 2 || a.min_length > a.m || a.step < 1)
            tsm::invalid(tsm::format("shapelet lengths %d..%d by %d are not valid", (int)a.min_length, (int)a.m,
                                     (int)a.step),
                         "Give min_length >= 2, at most m (the maximum length), and step >= 1.");
        return;
    }
    if (a.k < 1) tsm::invalid(tsm::format("k must be at least 1, not %lld", (long long)a.k));
    const bool profile = a.work == TS_WORK_MATRIX_PROFILE || a.work == TS_WORK_DISCORDS ||
                         (a.work == TS_WORK_MOTIFS && a.method == TS_MOTIFS_MATRIX_PROFILE);
    if (profile ? 2 * (int64_t)a.m > a.n : a.m > a.n)
        tsm::invalid(tsm::format("window length m = %d does not fit a series of %lld values", (int)a.m,
                                 (long long)a.n),
                     profile ? "The windows of a matrix profile need n >= 2m." : "The pattern needs n >= m.");
}

Cost cost_of(const Call& a, bool gpu, int threads) {
    switch (a.work) {
        case TS_WORK_OUTLIERS: return tsm::estimate::outliers(a, gpu, threads);
        case TS_WORK_MATRIX_PROFILE: return tsm::estimate::matrix_profile(a.n, a.m, gpu, threads);
        case TS_WORK_DISCORDS: return tsm::estimate::discords(a, gpu, threads);
        case TS_WORK_MOTIFS: return tsm::estimate::motifs(a, gpu, threads);
        case TS_WORK_MATCH: return tsm::estimate::match(a, gpu, threads);
        case TS_WORK_SHAPELETS: return tsm::estimate::shapelets(a, gpu, threads);
        default: tsm::invalid("unknown function");
    }
}

// The size tsm_gpu_worthwhile compares (shapelets: pivots × series).
int64_t work_size(const Call& a) {
    if (a.work != TS_WORK_SHAPELETS) return a.n;
    int64_t pivots = 0;
    for (int64_t L = a.min_length; L <= a.m && L <= a.n; L += a.step) pivots += a.series_count * (a.n - L + 1);
    return pivots * a.series_count;
}

// The backend a call would use, as dispatch.cpp decides it, but without
// taking a GPU slot or starting a context: in auto mode, the GPU when the
// build has CUDA, a GPU is visible, the work gains and it fits the memory
// limit.  A slot that turns out to be taken makes the call run on the CPU.
bool on_gpu(const Call& a, const TsExec* ex, const Cost& gpu_cost) {
    if (ex->backend != TS_BACKEND_AUTO) return ex->backend == TS_BACKEND_GPU;
    if (!tsm_built_with_cuda() || !tsm_gpu_worthwhile(a.work, work_size(a), a.m)) return false;
    TsStatus st;
    if (tsm_gpu_count(&st) == 0) return false;
    return ex->gpu_memory_limit <= 0 || gpu_cost.device <= (double)ex->gpu_memory_limit;
}

}  // namespace

extern "C" int tsm_estimate(const TsEstimateArgs* args, const TsExec* ex, TsEstimate* out, TsStatus* st) noexcept {
    return tsm::guard(st, [&] {
        std::memset(out, 0, sizeof *out);
        TsExec exec = *ex;
        const tsm::estimate::Call a = estimate_call(*args, &exec, &out->function);
        out->backend = TS_BACKEND_CPU;
        if (a.n == 0 && a.work != TS_WORK_SHAPELETS) return;  // an empty series: no work
        check_sizes(a);
        const int threads = tsm::thread_count(&exec);
        const Cost gpu = cost_of(a, true, threads);
        const bool use_gpu = on_gpu(a, &exec, gpu);
        const Cost c = use_gpu ? gpu : cost_of(a, false, threads);
        out->backend = use_gpu ? TS_BACKEND_GPU : TS_BACKEND_CPU;
        out->method = c.method;
        out->seconds = c.seconds;
        out->device_bytes = c.device;
        out->host_bytes = c.host;
    });
}
