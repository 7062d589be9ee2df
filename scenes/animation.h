// One animation step per circle, shared by the CPU renderers and the CUDA
// advance kernel (`__host__ __device__`). Each step touches only circle i
// (fireworks sparks also read their firework's center, which never moves), so
// a GPU thread per circle computes exactly what the CPU loop computes.
//
// All arithmetic that feeds the next frame's state uses the explicitly
// rounded helpers of render/hd_math.h: the GPU must not fuse multiply-adds
// here, or animated frames would drift away from cpuref frame by frame.
//
// Constants and rules: ../shared/SCENES.md ("bouncingballs", "hypnosis",
// "fireworks", "snow"). The snow noise and respawn are this project's own.
#pragma once

#include <cstdint>

#include "render/core/circles.h"

namespace cr {

namespace anim {

constexpr float kDt = 1.f / 60.f;

/// 32-bit integer hash (a xorshift-multiply mix); exact on host and device.
CR_HD uint32_t hash_u32(uint32_t v) {
    v ^= v >> 16;
    v *= 0x7feb352du;
    v ^= v >> 15;
    v *= 0x846ca68bu;
    v ^= v >> 16;
    return v;
}

/// Maps a hash to [0, 1) exactly (24 bits times 2^-24).
CR_HD float hash_unit(uint32_t h) { return static_cast<float>(h >> 8) * (1.f / 16777216.f); }

/// Smooth 2-D value noise in [0, 1): hashed values on the integer lattice,
/// blended with the smoothstep weight s = f*f*(3 - 2f). `channel` picks an
/// independent field. Every operation is exactly rounded.
CR_HD float value_noise(float px, float py, uint32_t channel) {
    px = clamp_float(px, -1000.f, 1000.f);
    py = clamp_float(py, -1000.f, 1000.f);
    const float fx0 = floorf(px), fy0 = floorf(py);
    const int ix = static_cast<int>(fx0), iy = static_cast<int>(fy0);
    const float fx = sub_rn(px, fx0), fy = sub_rn(py, fy0);
    const float sx = mul_rn(mul_rn(fx, fx), sub_rn(3.f, mul_rn(2.f, fx)));
    const float sy = mul_rn(mul_rn(fy, fy), sub_rn(3.f, mul_rn(2.f, fy)));
    auto corner = [channel](int cx, int cy) {
        const uint32_t h = hash_u32(static_cast<uint32_t>(cx) * 73856093u ^
                                    static_cast<uint32_t>(cy) * 19349663u ^ channel * 83492791u);
        return hash_unit(h);
    };
    const float v00 = corner(ix, iy), v10 = corner(ix + 1, iy);
    const float v01 = corner(ix, iy + 1), v11 = corner(ix + 1, iy + 1);
    const float a = add_rn(v00, mul_rn(sx, sub_rn(v10, v00)));
    const float b = add_rn(v01, mul_rn(sx, sub_rn(v11, v01)));
    return add_rn(a, mul_rn(sy, sub_rn(b, a)));
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

/// snow: position += v*dt; v += scale * (noise + drag + gravity) * dt with
/// scale = clamp(1 - z, .1, 1), drag = -2 v, gravity -1.8 (y), noise a smooth
/// field (3 lattice cells across the picture, drifting with time) of
/// amplitude .25 (x) and .15 (y). A flake fully past the left, right or
/// bottom edge respawns just above the top at a hashed x and horizontal
/// velocity (hash of circle index and frame number).
CR_HD void step_snowflake(CircleArrays c, int64_t i, uint32_t frame) {
    const float kGravity = -1.8f, kDrag = 2.f;
    float x = c.x[i], y = c.y[i], vx = c.vx[i], vy = c.vy[i];
    const float r = c.radius[i];
    x = add_rn(x, mul_rn(vx, kDt));
    y = add_rn(y, mul_rn(vy, kDt));
    const float scale = clamp_float(sub_rn(1.f, c.z[i]), .1f, 1.f);
    // The field drifts upward by 1/120 lattice cell a frame, so gusts change.
    const float t = mul_rn(static_cast<float>(frame % 1048576u), 1.f / 128.f);
    const float qx = mul_rn(x, 3.f), qy = add_rn(mul_rn(y, 3.f), t);
    const float nx = mul_rn(sub_rn(value_noise(qx, qy, 1u), .5f), .5f);
    const float ny = mul_rn(sub_rn(value_noise(qx, qy, 2u), .5f), .3f);
    const float fx = sub_rn(nx, mul_rn(kDrag, vx));
    const float fy = add_rn(sub_rn(ny, mul_rn(kDrag, vy)), kGravity);
    vx = add_rn(vx, mul_rn(mul_rn(scale, fx), kDt));
    vy = add_rn(vy, mul_rn(mul_rn(scale, fy), kDt));
    const bool gone = add_rn(x, r) < 0.f || sub_rn(x, r) > 1.f || add_rn(y, r) < 0.f;
    if (gone) {
        const uint32_t h = hash_u32(static_cast<uint32_t>(i) * 2654435761u ^ hash_u32(frame));
        x = hash_unit(h);
        y = add_rn(1.f, r);
        vx = mul_rn(sub_rn(hash_unit(hash_u32(h)), .5f), .2f);
        vy = 0.f;
    }
    c.x[i] = x;
    c.y[i] = y;
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
/// `frame` counts steps taken so far (0 on the first advance).
CR_HD void step_circle(int motion, CircleArrays c, int64_t i, uint32_t frame) {
    switch (motion) {
        case 1: step_bouncing_ball(c, i); break;
        case 2: step_hypnosis(c, i); break;
        case 3: step_firework_spark(c, i); break;
        case 4: step_snowflake(c, i, frame); break;
        case 5: step_linear(c, i); break;
        default: break;
    }
}

}  // namespace anim
}  // namespace cr
