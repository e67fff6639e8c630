// hd.h — arithmetic that rounds identically on the host and on the device.
//
// The core is compiled with -std=c++17 (ISO mode: GCC does not contract a*b+c
// into a fused multiply-add); nvcc contracts by default.  Code shared by both
// sides (TSM_HD functions) therefore spells every operation whose rounding
// matters with these helpers: on the device they are the _rn intrinsics, which
// nvcc never fuses; on the host they are the plain operators.  Division and
// square root are correctly rounded on both (nvcc's defaults, no fast math).
#pragma once

#include <cmath>

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
TSM_HD double sqrt(double a) {
#ifdef __CUDA_ARCH__
    return __dsqrt_rn(a);
#else
    return std::sqrt(a);
#endif
}

}  // namespace hd
}  // namespace tsm
