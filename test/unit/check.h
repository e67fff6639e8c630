// check.h — the tiny test harness of the core's unit tests.
//   TEST(name) { CHECK(cond); CHECK_NEAR(a, b, tol); CHECK_EQ(a, b); }
//   GPU_TEST(name) { ... }  runs only where a GPU is usable (else: skipped)
// The runner prints one line per test and ends with "unit: N passed, N failed, N skipped".
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tsm_api.h"

namespace tsmt {

struct Case {
    const char* name;
    void (*fn)();
    bool gpu;
};
std::vector<Case>& registry();
struct Reg {
    Reg(const char* n, void (*f)(), bool gpu) { registry().push_back({n, f, gpu}); }
};

// failures of the running test
extern int g_failures;
void fail(const char* file, int line, const std::string& what);

// A TsExec for tests: malloc'd results (freed at exit: tests are short-lived).
TsExec cpu_exec(int threads = 0);
TsExec gpu_exec();
bool have_gpu();

// ../shared/data (or $TSMINE_SHARED/data): one column of a whitespace/CSV file.
std::string shared_data(const std::string& rel);
std::vector<double> load_column(const std::string& rel, int column, bool csv_header = false);

// Seeded random walk and Gaussian noise.
std::vector<double> random_walk(int64_t n, uint64_t seed);
std::vector<double> gaussian(int64_t n, uint64_t seed, double mean = 0, double sd = 1);
// sin(2πi/period) plus uniform noise in [0, noise) (none: every window
// repeats itself to rounding, the near-ties of a periodic series).
std::vector<double> periodic(int64_t n, int period, double noise, uint64_t seed);

}  // namespace tsmt

#define TSMT_CAT2(a, b) a##b
#define TSMT_CAT(a, b) TSMT_CAT2(a, b)
#define TEST(name)                                                   \
    static void name();                                              \
    static tsmt::Reg TSMT_CAT(reg_, name)(#name, name, false);       \
    static void name()
#define GPU_TEST(name)                                               \
    static void name();                                              \
    static tsmt::Reg TSMT_CAT(reg_, name)(#name, name, true);        \
    static void name()

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) tsmt::fail(__FILE__, __LINE__, "CHECK(" #cond ")");     \
    } while (0)
#define CHECK_EQ(a, b)                                                       \
    do {                                                                     \
        auto va_ = (a);                                                      \
        auto vb_ = (b);                                                      \
        if (!(va_ == vb_)) {                                                 \
            std::ostringstream os_;                                          \
            os_ << #a " == " #b ": " << va_ << " vs " << vb_;                \
            tsmt::fail(__FILE__, __LINE__, os_.str());                       \
        }                                                                    \
    } while (0)
#define CHECK_NEAR(a, b, tol)                                                \
    do {                                                                     \
        double va_ = (a), vb_ = (b), t_ = (tol);                             \
        if (!(std::fabs(va_ - vb_) <= t_)) {                                 \
            std::ostringstream os_;                                          \
            os_.precision(17);                                               \
            os_ << #a " ~ " #b ": " << va_ << " vs " << vb_ << " (tol " << t_ << ")"; \
            tsmt::fail(__FILE__, __LINE__, os_.str());                       \
        }                                                                    \
    } while (0)
// relative tolerance (absolute near 0)
#define CHECK_REL(a, b, rel)                                                 \
    CHECK_NEAR(a, b, (rel) * std::fmax(1.0, std::fmax(std::fabs((double)(a)), std::fabs((double)(b)))))
#define CHECK_OK(call_status)                                                \
    do {                                                                     \
        TsStatus& s_ = (call_status);                                        \
        if (s_.code != TS_OK)                                                \
            tsmt::fail(__FILE__, __LINE__, std::string("status ") + s_.sqlstate + ": " + s_.message); \
    } while (0)
