// hd.h — arithmetic that rounds identically on the host and on the device.
//
// This is the project's one way to forbid contraction.  The core is compiled
// with -ffp-contract=off (the Makefile's CORE_CXXFLAGS: GCC's C++ default is
// fast even with -std=c++17, and it fuses a*b+c in the functions built for
// FMA targets, such as the hot loops' target("avx2,fma") variants), so host
// code needs no pragma or attribute; nvcc contracts by default.  Code shared by both sides (TSM_HD functions in the *_detail.h
// headers) therefore spells every operation whose rounding matters with these
// helpers: on the device they are the _rn intrinsics, which nvcc never fuses;
// on the host the plain operators and std::fma.  Division and square root are
// correctly rounded on both (nvcc's defaults, no fast math).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#ifndef TSM_HD
#ifdef __CUDACC__
#define TSM_HD __host__ __device__ __forceinline__
#else
#define TSM_HD inline __attribute__((always_inline))
#endif
#endif

namespace tsm {
namespace hd {

TSM_HD double add(double a, double b) {
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}
TSM_HD double sub(double a, double b) {
#ifdef __CUDA_ARCH__
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}
TSM_HD double mul(double a, double b) {
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
TSM_HD double div(double a, double b) {
#ifdef __CUDA_ARCH__
    return __ddiv_rn(a, b);
#else
    return a / b;
#endif
}
// a·b + c with one rounding (the host compiles std::fma to one instruction
// where the target has FMA, a correctly rounded library call otherwise).
TSM_HD double fma(double a, double b, double c) {
#ifdef __CUDA_ARCH__
    return __fma_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}
// The bits of a double and back (exact; no arithmetic).
TSM_HD uint64_t bits_of(double v) {
#ifdef __CUDA_ARCH__
    return static_cast<uint64_t>(__double_as_longlong(v));
#else
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
#endif
}
TSM_HD double from_bits(uint64_t b) {
#ifdef __CUDA_ARCH__
    return __longlong_as_double(static_cast<long long>(b));
#else
    double v;
    std::memcpy(&v, &b, sizeof v);
    return v;
#endif
}

TSM_HD double sqrt(double a) {
#ifdef __CUDA_ARCH__
    return __dsqrt_rn(a);
#else
    return std::sqrt(a);
#endif
}
// s + (a − b)², three roundings in this order (the raw-value distances' sum).
TSM_HD double add_sq_diff(double s, double a, double b) {
    const double d = sub(a, b);
    return add(s, mul(d, d));
}

}  // namespace hd
}  // namespace tsm
