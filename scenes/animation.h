// One animation step per circle, shared by the CPU renderers and the CUDA
// advance kernel (`__host__ __device__`). Each step touches only circle i
// (fireworks sparks also read their firework's center, which never moves), so
// a GPU thread per circle computes exactly what the CPU loop computes.
//
// All arithmetic that feeds the next frame's state uses the explicitly
// rounded helpers of render/core/hd_math.h: the GPU must not fuse multiply-adds
// here, or animated frames would drift away from cpuref frame by frame.
//
// Constants and rules: ../shared/SCENES.md ("bouncingballs", "hypnosis",
// "fireworks", "snow"); snow's noise is the course's (scenes/noise.h).
#pragma once

#include <cstdint>

#include "render/core/circles.h"
#include "scenes/noise.h"

namespace cr {

namespace anim {

constexpr float kDt = 1.f / 60.f;

/// The course's CLAMP(v, lo, hi) = max(lo, min(v, hi)) (std::min/std::max
/// argument order), so that even a NaN v gives the course's result (lo).
CR_HD float course_clamp(float v, float lo, float hi) {
    const float m = hi < v ? hi : v;
    return lo < m ? m : lo;
}

/// bouncingballs: gravity -2.8, bounce factor -0.8, rest detection eps .001.
CR_HD void step_bouncing_ball(CircleArrays c, int64_t i) {
    const float kGravity = -2.8f, kBounce = -0.8f, kEps = .001f;
    float y = c.y[i], vy = c.vy[i];
    if (vy == 0.f && y == 0.f) return;  // at rest on the floor
    const float old_vy = vy, old_y = y;
    if (y < 0.f && old_vy < 0.f) vy = mul_rn(vy, kBounce);
    vy = add_rn(vy, mul_rn(kGravity, kDt));
    y = add_rn(y, mul_rn(vy, kDt));
    if (fabsf(sub_rn(vy, old_vy)) < kEps && old_y < 0.f && fabsf(sub_rn(y, old_y)) < kEps) {
        vy = 0.f;
        y = 0.f;
    }
    c.y[i] = y;
    c.vy[i] = vy;
}

/// hypnosis: a radius past .5 restarts at .02, otherwise grows by .01.
CR_HD void step_hypnosis(CircleArrays c, int64_t i) {
    const float r = c.radius[i];
    c.radius[i] = r > .5f ? .02f : add_rn(r, .01f);
}

/// fireworks: sparks (index >= 15) move by v*dt; a spark farther than .25
/// from its firework's center restarts at its start point (aux_x, aux_y).
CR_HD void step_firework_spark(CircleArrays c, int64_t i) {
    const int kFireworks = 15, kSparks = 20;
    if (i < kFireworks) return;  // firework centers stay put
    const int64_t f = (i - kFireworks) / kSparks;
    const float x = add_rn(c.x[i], mul_rn(c.vx[i], kDt));
    const float y = add_rn(c.y[i], mul_rn(c.vy[i], kDt));
    const float dx = sub_rn(x, c.x[f]), dy = sub_rn(y, c.y[f]);
    const float d2 = add_rn(mul_rn(dx, dx), mul_rn(dy, dy));
    const bool restart = d2 > .25f * .25f;
    c.x[i] = restart ? c.aux_x[i] : x;
    c.y[i] = restart ? c.aux_y[i] : y;
}

/// snow, exactly the course's step (SCENES.md, "snow"), each line evaluated
/// left to right as written there, every operation rounded on its own:
///   scale = clamp(1 - z, .1, 1)
///   (nx, ny) = noise(10 x, 10 y, 255 z, i) * (7.5, 5)   (scenes/noise.h)
///   drag = -1 * 2 * v;  position += v * dt
///   vx += scale * (nx + dragx) * dt;  vy += scale * (-1.8 + ny + dragy) * dt
/// A flake past the bottom, left or right edge (y + r < 0, x + r < 0 or
/// x - r > 1) respawns above the top: (nx, ny) = noise(255 x, 255 y, 255 z, i)
/// at its moved position, x = .5 + .5 nx, y = 1.35 + r, vx = 2 ny, vy = 0.
/// Units: positions normalized, velocities per second, dt = 1/60 s.
CR_HD void step_snowflake(CircleArrays c, int64_t i) {
    const float kGravity = -1.8f, kDrag = 2.f;
    const int index = static_cast<int>(i);  // the course's int flake index
    float x = c.x[i], y = c.y[i], z = c.z[i], vx = c.vx[i], vy = c.vy[i];
    const float r = c.radius[i];
    const float scale = course_clamp(sub_rn(1.f, z), .1f, 1.f);
    course_noise::NoisePair n = course_noise::noise(mul_rn(10.f, x), mul_rn(10.f, y), mul_rn(255.f, z), index);
    const float nx = mul_rn(n.x, 7.5f), ny = mul_rn(n.y, 5.f);
    const float dragx = mul_rn(mul_rn(-1.f, kDrag), vx);
    const float dragy = mul_rn(mul_rn(-1.f, kDrag), vy);
    x = add_rn(x, mul_rn(vx, kDt));
    y = add_rn(y, mul_rn(vy, kDt));
    z = add_rn(z, mul_rn(c.vz[i], kDt));
    vx = add_rn(vx, mul_rn(mul_rn(scale, add_rn(nx, dragx)), kDt));
    vy = add_rn(vy, mul_rn(mul_rn(scale, add_rn(add_rn(kGravity, ny), dragy)), kDt));
    if (add_rn(y, r) < 0.f || add_rn(x, r) < 0.f || sub_rn(x, r) > 1.f) {
        n = course_noise::noise(mul_rn(255.f, x), mul_rn(255.f, y), mul_rn(255.f, z), index);
        x = add_rn(.5f, mul_rn(.5f, n.x));
        y = add_rn(1.35f, r);
        vx = mul_rn(2.f, n.y);
        vy = 0.f;
    }
    c.x[i] = x;
    c.y[i] = y;
    c.z[i] = z;
    c.vx[i] = vx;
    c.vy[i] = vy;
}

/// scene files: position += velocity * dt.
CR_HD void step_linear(CircleArrays c, int64_t i) {
    c.x[i] = add_rn(c.x[i], mul_rn(c.vx[i], kDt));
    c.y[i] = add_rn(c.y[i], mul_rn(c.vy[i], kDt));
    c.z[i] = add_rn(c.z[i], mul_rn(c.vz[i], kDt));
}

/// Advances circle i by one step of `motion` (a cr::Motion value as int).
/// No step of the course's scenes depends on the frame number.
CR_HD void step_circle(int motion, CircleArrays c, int64_t i) {
    switch (motion) {
        case 1: step_bouncing_ball(c, i); break;
        case 2: step_hypnosis(c, i); break;
        case 3: step_firework_spark(c, i); break;
        case 4: step_snowflake(c, i); break;
        case 5: step_linear(c, i); break;
        default: break;
    }
}

}  // namespace anim
}  // namespace cr
