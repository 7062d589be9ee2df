// Small arithmetic helpers shared by host (C++) and device (CUDA) code.
//
// The GPU compiler contracts `a * b + c` into one fused multiply-add (FMA),
// which rounds once instead of twice. The course's reference renderer runs on
// an x86 CPU without FMA, so wherever a result decides *which* pixels a circle
// covers, or feeds the animation state that later frames depend on, we write
// the operations with these explicitly rounded helpers. They compile to plain
// operators on the host and to the `__f*_rn` intrinsics (never contracted) on
// the device, so both sides compute bit-identical values.
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define CR_HD __host__ __device__ __forceinline__
#else
#define CR_HD inline
#endif

namespace cr {

/// a * b, rounded to nearest, never fused with a following add.
CR_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

/// a + b, rounded to nearest, never fused with a preceding multiply.
CR_HD float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}

/// a - b, rounded to nearest, never fused.
CR_HD float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}

/// a / b, IEEE round-to-nearest division on both sides.
CR_HD float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}

/// a * b + c with one rounding (IEEE fused multiply-add) on both sides.
CR_HD float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(a, b, c);
#else
    return std::fmaf(a, b, c);
#endif
}

/// The divisors (snow's radii) for which div_by_reciprocal is used:
/// [2^-40, 2^40]. There, for a dividend of 0 or at least 2^-75 (a square
/// root of a float), the reciprocal, the quotient and the remainder are
/// normal floats; elsewhere divide.
constexpr float kReciprocalMinDivisor = 0x1p-40f, kReciprocalMaxDivisor = 0x1p40f;

/// True when div_by_reciprocal may replace div_rn for divisor b (false for
/// NaN, zero and subnormal b).
CR_HD bool reciprocal_divides(float b) { return b >= kReciprocalMinDivisor && b <= kReciprocalMaxDivisor; }

/// a / b rounded to nearest, from inv_b = div_rn(1, b): q = a * inv_b,
/// its remainder a - q * b (exact in one fma), and q corrected by
/// remainder * inv_b in one more fma: the correction step of Markstein's
/// division (IBM J. Res. Dev. 34(1), 1990). His proof needs q within an ulp
/// of a / b, which a * inv_b is not always (up to about 1.5 ulp), so the
/// equality with div_rn rests on checks: exhaustive at 6- to 14-bit
/// precision, 2^31 + 4e8 float quotients and every covered pixel of the
/// snow scenes (scripts/probes/reciprocal_check.cpp; tests/test_shading.cpp).
/// Checked for reciprocal_divides(b) and a = 0 or 2^-75 <= a <= 2 * b (a
/// square root of a float is 0 or at least 2^-74.5); for much smaller a the
/// remainder or the quotient falls among the subnormals and the result can
/// be an ulp off. Three instructions where the GPU's IEEE division takes about nine
/// and a branch (the reciprocal is computed once per circle).
CR_HD float div_by_reciprocal(float a, float b, float inv_b) {
    const float q = mul_rn(a, inv_b);
    const float remainder = fma_rn(-q, b, a);
    return fma_rn(remainder, inv_b, q);
}

/// int(v), truncation toward zero, with one defined result for every input on
/// host and device alike: a NaN, or a value outside [-2^31, 2^31) (where a
/// C++ cast is undefined), gives INT_MIN (-2147483648). That is what x86's
/// cvttss2si instruction returns for those inputs, so the course's x86
/// reference renderer sees the same number. Used by the course's snow noise.
CR_HD int trunc_to_int(float v) {
    const int kIntMin = -2147483647 - 1;
    if (!(v >= -2147483648.f && v < 2147483648.f)) return kIntMin;  // also catches NaN
    return static_cast<int>(v);
}

CR_HD int clamp_int(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
CR_HD float clamp_float(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

/// clamp(int(v) + add, lo, hi) without undefined behaviour for huge or NaN v.
/// v is first limited to [lo - 2, hi + 2]; truncation of values outside that
/// range would be clamped to the same bound anyway, so results are unchanged.
CR_HD int trunc_clamp(float v, int add, int lo, int hi) {
    const float flo = static_cast<float>(lo) - 2.f;
    const float fhi = static_cast<float>(hi) + 2.f;
    float c = v;
    if (!(c >= flo)) c = flo;  // also catches NaN
    if (c > fhi) c = fhi;
    return clamp_int(static_cast<int>(c) + add, lo, hi);
}

}  // namespace cr
