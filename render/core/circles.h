// The circles of a scene as structure-of-arrays (SoA): the type every layer
// above shares (scenes fill it, renderers draw it).
//
// Units: x, y and radius are normalized scene coordinates ([0,1] spans the
// image, origin bottom-left); z is depth in [0,1]; velocities are normalized
// units per second (one animation step is dt = 1/60 s); colors are linear
// floats (may exceed 1 for some random scenes, as in the course).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "render/core/shading.h"

namespace cr {

/// Which animation step a scene runs on `advance` (see scenes/animation.h).
enum class Motion : int {
    None = 0,            ///< still scenes
    BouncingBalls = 1,   ///< gravity and damped bounces on the bottom edge
    Hypnosis = 2,        ///< radii grow by .01 and wrap to .02 past .5
    Fireworks = 3,       ///< sparks fly out and restart at their start points
    Snow = 4,            ///< falling flakes with noise, drag and respawn
    Linear = 5,          ///< position += velocity * dt (scene files)
};

/// All circles of a scene in input (= blending) order, as structure-of-arrays.
/// Every vector has `count()` entries. aux_x/aux_y hold per-circle animation
/// constants (fireworks: each spark's start point), empty when unused.
struct Scene {
    std::string name;
    ShadeMode shade = ShadeMode::Flat;
    Motion motion = Motion::None;
    uint32_t seed = 0;
    std::vector<float> x, y, z, vx, vy, vz, radius, r, g, b;
    std::vector<float> aux_x, aux_y;

    size_t count() const { return x.size(); }
    /// Resizes every per-circle array (new entries are zero; aux_x/aux_y untouched).
    void resize(size_t n) {
        for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &radius, &r, &g, &b}) v->assign(n, 0.f);
    }
    /// Bytes held by the per-circle arrays (what a renderer uploads).
    size_t bytes() const { return sizeof(float) * (10 * count() + aux_x.size() + aux_y.size()); }
};

/// Raw pointers to a scene's per-circle arrays (host or device memory).
struct CircleArrays {
    float *x, *y, *z, *vx, *vy, *vz, *radius, *r, *g, *b;
    const float *aux_x, *aux_y;  ///< fireworks start points, else null
    int64_t count;
};

/// Pointers into a host scene's arrays (for the shared animation steps).
inline CircleArrays circle_arrays(Scene& s) {
    return CircleArrays{s.x.data(), s.y.data(), s.z.data(), s.vx.data(), s.vy.data(), s.vz.data(),
                        s.radius.data(), s.r.data(), s.g.data(), s.b.data(),
                        s.aux_x.empty() ? nullptr : s.aux_x.data(),
                        s.aux_y.empty() ? nullptr : s.aux_y.data(),
                        static_cast<int64_t>(s.count())};
}

}  // namespace cr
