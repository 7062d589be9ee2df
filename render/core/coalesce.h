// Exact early stopping by coalescence (docs/KERNELS.md, "Exact and early:
// coalescing trajectories"): the blend math of two trajectories of a pixel,
// written once for the CPU and the GPU.
//
// One blend step of a channel, as cpuref computes it in float, is
//   p' = RN(RN(a * c) + RN(RN(1 - a) * p))
// with the fragment's alpha a in [0, 1] and color c fixed. Each rounding is
// monotone non-decreasing, RN(1 - a) >= 0, so p' is a monotone
// non-decreasing function of p, and so is a composition of steps. Every
// value a pixel can hold lies in [lo, hi] (value_bounds), so if the steps
// k..n map lo and hi to the same float, they map every incoming value to it:
// blends 0..k-1 cannot change a bit of the result. Two trajectories started
// at lo and hi at fragment k, equal at the end, give the exact pixel.
#pragma once

#include "render/core/hd_math.h"
#include "render/core/shading.h"

namespace cr {

struct Scene;

/// Every value a pixel's color channel can hold, before or after any blend
/// of `scene`: lo = 0 (colors, alphas and the background are >= 0, and so
/// are sums and products of them), hi = twice the largest of the background
/// and the circles' colors (1 for snow's ramp): rounding can lift a value by
/// a factor of at most (1 + 2^-24)^3 a blend, below 2 for up to 3.9 million
/// blends a pixel. `valid` false when a color is negative or not finite (no
/// early stop is safe then).
struct ValueBounds {
    float lo = 0.f, hi = 2.f;
    bool valid = true;
};
/// Host only (render/core/coalesce.cpp).
ValueBounds value_bounds(const Scene& scene);

/// The lowest and highest trajectory of one pixel's three color channels.
struct Trajectories {
    float lo[3], hi[3];
};

/// Both trajectories at their start: every channel at `lo` and at `hi`.
CR_HD Trajectories start_trajectories(float lo, float hi) {
    return Trajectories{{lo, lo, lo}, {hi, hi, hi}};
}

/// One blend of `f` into both trajectories (cpuref's blend, alpha unused).
/// Returns true when they are equal in all three channels afterwards: from
/// then on they stay equal, and one of them is the pixel.
CR_HD bool blend_trajectories(Trajectories& t, const Fragment& f) {
    float unused = 0.f;
    blend(t.lo[0], t.lo[1], t.lo[2], unused, f);
    blend(t.hi[0], t.hi[1], t.hi[2], unused, f);
    return t.lo[0] == t.hi[0] && t.lo[1] == t.hi[1] && t.lo[2] == t.hi[2];
}

}  // namespace cr
