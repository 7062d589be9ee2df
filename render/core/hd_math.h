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
