// finite.cpp — finding NaN and infinite values (finite.h, tsm_api.h).
#include "finite.h"

#include <cstring>

#include "error.h"
#include "tsm_api.h"

namespace tsm {

int64_t first_nonfinite(const double* x, int64_t n) noexcept {
    constexpr uint64_t kExp = 0x7FF0000000000000ull;
    constexpr int64_t kBlock = 1024;
    for (int64_t b = 0; b < n; b += kBlock) {
        const int64_t e = b + kBlock < n ? b + kBlock : n;
        uint64_t bad = 0;
        for (int64_t i = b; i < e; ++i) {  // vectorises: no branch, no early exit
            uint64_t u;
            std::memcpy(&u, &x[i], sizeof u);
            bad |= (u & kExp) == kExp;
        }
        if (bad)
            for (int64_t i = b; i < e; ++i) {
                uint64_t u;
                std::memcpy(&u, &x[i], sizeof u);
                if ((u & kExp) == kExp) return i;
            }
    }
    return -1;
}

void require_finite(const double* x, int64_t n, const char* what, const char* hint) {
    const int64_t i = first_nonfinite(x, n);
    if (i >= 0)
        invalid(format("%s contains a NaN or infinite value at position %lld", what, (long long)i + 1), hint);
}

}  // namespace tsm

extern "C" int64_t tsm_first_nonfinite(const double* x, int64_t n) noexcept { return tsm::first_nonfinite(x, n); }
