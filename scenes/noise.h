// The course's cell noise (../shared/SCENES.md, "snow"): the snow step's
// pseudo-random force, a hash of a flake's integer cell through three
// 256-entry tables. `__host__ __device__`: the CPU renderers and the CUDA
// advance kernel (kernels/advance.cu) call the same function.
//
// The tables are data of the course (scenes/course_noise_tables.h, generated
// by scripts/gen_noise_tables.py). The host reads the constexpr arrays below;
// device code reads copies in device global memory (a warp's 32 flakes look
// up 32 different entries, which the constant cache would serialize).
//
// For the course compatibility layer (its getNoiseTables / vec2CellNoise):
// course_noise::perm_x, perm_y, value_1d and course_noise::noise().
#pragma once

#include "render/core/hd_math.h"
#include "scenes/course_noise_tables.h"

namespace cr {
namespace course_noise {

/// Entries of each table.
constexpr int kTableSize = 256;

/// permutation_x of the course: a permutation of 0..255 (host copy).
inline constexpr int perm_x[kTableSize] = {CR_NOISE_PERM_X};
/// permutation_y of the course: a permutation of 0..255 (host copy).
inline constexpr int perm_y[kTableSize] = {CR_NOISE_PERM_Y};
/// value_1d of the course: values in [-1, 1], each the data file's decimal
/// parsed with strtod and then rounded to float (host copy).
inline constexpr float value_1d[kTableSize] = {CR_NOISE_VALUE_1D};

#if defined(__CUDACC__)
namespace device {
// One copy per CUDA translation unit (whole-program compilation, internal linkage).
static __device__ const int perm_x[kTableSize] = {CR_NOISE_PERM_X};
static __device__ const int perm_y[kTableSize] = {CR_NOISE_PERM_Y};
static __device__ const float value_1d[kTableSize] = {CR_NOISE_VALUE_1D};
}  // namespace device
#endif

/// Table lookups on either side; k must be in 0..255.
CR_HD unsigned px_at(unsigned k) {
#if defined(__CUDA_ARCH__)
    return static_cast<unsigned>(device::perm_x[k]);
#else
    return static_cast<unsigned>(perm_x[k]);
#endif
}
CR_HD unsigned py_at(unsigned k) {
#if defined(__CUDA_ARCH__)
    return static_cast<unsigned>(device::perm_y[k]);
#else
    return static_cast<unsigned>(perm_y[k]);
#endif
}
CR_HD float value_at(unsigned k) {
#if defined(__CUDA_ARCH__)
    return device::value_1d[k];
#else
    return value_1d[k];
#endif
}

/// A noise sample: x and y components, each one of value_1d's entries.
struct NoisePair {
    float x, y;
};

/// The course's vec2CellNoise at (a, b, c) for flake `index`:
///   ia, ib, ic = int(a), int(b), int(c)   (truncation, see trunc_to_int)
///   x = V[PX[(PX[(PX[(ia * index) & 255] + ib) & 255] + ic) & 255]]
///   y = V[PY[(PY[(PY[ia & 255] + ib) & 255] + ic) & 255]]
/// with C++ int semantics on two's complement (negative values wrap into
/// 0..255). The arithmetic is done on unsigned ints, which gives those same
/// low 8 bits without the undefined behaviour of a signed overflow in
/// ia * index or h + ib. A NaN or out-of-range coordinate truncates to
/// INT_MIN on both host and device (render/core/hd_math.h, trunc_to_int).
/// Exact: no float arithmetic, so host and device agree bit for bit.
CR_HD NoisePair noise(float a, float b, float c, int index) {
    const unsigned ia = static_cast<unsigned>(trunc_to_int(a));
    const unsigned ib = static_cast<unsigned>(trunc_to_int(b));
    const unsigned ic = static_cast<unsigned>(trunc_to_int(c));
    unsigned h = px_at((ia * static_cast<unsigned>(index)) & 255u);
    h = px_at((h + ib) & 255u);
    h = px_at((h + ic) & 255u);
    const float x = value_at(h);
    h = py_at(ia & 255u);
    h = py_at((h + ib) & 255u);
    h = py_at((h + ic) & 255u);
    return NoisePair{x, value_at(h)};
}

}  // namespace course_noise
}  // namespace cr
