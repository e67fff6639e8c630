// finite.h — finding NaN and infinite values in a series at memory speed.
#pragma once

#include <cstdint>

namespace tsm {

// The 0-based position of the first NaN or infinite value of x[0..n), or −1
// when every value is finite.  Branch-free within blocks (a value is not
// finite exactly when its exponent bits are all ones), so the common case,
// all finite, runs at memory speed; only a block that holds a bad value is
// searched value by value.
int64_t first_nonfinite(const double* x, int64_t n) noexcept;

// Throws tsm::invalid("<what> contains a NaN or infinite value at position
// <1-based position>", hint) when x holds one.
void require_finite(const double* x, int64_t n, const char* what, const char* hint = "");

}  // namespace tsm
