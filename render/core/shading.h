// Coverage, shading and blending: the math of ../shared/SCENES.md
// ("Coverage, shading, blending"), written once for the CPU renderers and the
// CUDA kernels (`__host__ __device__`).
//
// Units: circle positions and radii are normalized scene coordinates in
// [0,1] x [0,1] (origin bottom-left); pixel indices are integers; images are
// W x H pixels with row 0 at the bottom.
#pragma once

#include <cmath>

#include "render/core/hd_math.h"

namespace cr {

/// Half-open pixel rectangle [min_x, max_x) x [min_y, max_y).
struct PixelBox {
    int min_x, max_x, min_y, max_y;
    CR_HD bool empty() const { return min_x >= max_x || min_y >= max_y; }
};

/// The spec's bounding box of circle (x, y, r) on a W x H image, in pixels:
/// min = clamp(int((x - r) * W), 0, W), max = clamp(int((x + r) * W) + 1, 0, W).
CR_HD PixelBox circle_pixel_box(float x, float y, float r, int width, int height) {
    const float fw = static_cast<float>(width);
    const float fh = static_cast<float>(height);
    PixelBox b;
    b.min_x = trunc_clamp(mul_rn(sub_rn(x, r), fw), 0, 0, width);
    b.max_x = trunc_clamp(mul_rn(add_rn(x, r), fw), 1, 0, width);
    b.min_y = trunc_clamp(mul_rn(sub_rn(y, r), fh), 0, 0, height);
    b.max_y = trunc_clamp(mul_rn(add_rn(y, r), fh), 1, 0, height);
    return b;
}

/// Normalized coordinate of the center of pixel column/row i:
/// (1/W) * (i + 0.5), as the course computes it (inv_size = 1.f / W).
CR_HD float pixel_center(int i, float inv_size) {
    return mul_rn(inv_size, static_cast<float>(i) + 0.5f);
}

/// Squared distance between a pixel center (px, py) and a circle center
/// (cx, cy), normalized units squared. Exactly rounded on host and device.
CR_HD float center_distance2(float cx, float cy, float px, float py) {
    const float dx = sub_rn(cx, px);
    const float dy = sub_rn(cy, py);
    return add_rn(mul_rn(dx, dx), mul_rn(dy, dy));
}

/// The coverage rule: a pixel is covered when d2 <= r*r (a radius-0 circle
/// still covers a pixel center it sits on exactly).
CR_HD bool covers(float d2, float r) { return d2 <= mul_rn(r, r); }

/// How a scene's circles are shaded.
enum class ShadeMode : int {
    Flat = 0,  ///< the circle's own rgb, alpha 0.5
    Snow = 1,  ///< radial color ramp and Gaussian alpha falloff (snow scenes)
};

/// Color and opacity of one circle at one covered pixel.
struct Fragment {
    float r, g, b, alpha;
};

/// The snow color ramp: piecewise-linear lookup of t in [0,1] in the 5-entry
/// table of SCENES.md, rows {1,1,1}, {1,1,1}, {.8,.9,1}, {.8,.9,1},
/// {.8,.8,1}: s = 4t, base = min(int(s), 3) (clamped to 3, the value the
/// course meant at t == 1), w = s - base, each channel (1 - w) * T[base] +
/// w * T[base + 1]. Every product and sum here and in the rest of the snow
/// math is written with mul_rn/add_rn/sub_rn/div_rn (render/core/hd_math.h):
/// each rounds once, as the host (built without FMA contraction) does, and
/// the GPU compiler may not fuse them. So the GPU's snow pixels differ from
/// cpuref only where expf does (the GPU's expf is not correctly rounded),
/// and they do not move when the compiler makes other choices around them.
///
/// The index and the table entries come from three comparisons of s, not
/// from a float-to-int conversion, an int-to-float one and selects on the
/// int (on the GPU two conversions run on the quarter-rate pipe): the same
/// base, w and entries for every s below 2^31 and for NaN, so the same
/// floats: below 1, int(s) clamped to 0..3 gave base 0 too; for NaN the
/// host's int(s) is INT_MIN and the GPU's 0, both clamped to 0; past 2^31
/// int(s) is undefined on the host. A covered pixel's t is at most about 1.
/// Multiplying by blue's 1 is exact, so blue is v + w.
/// scripts/probes/snow_ramp_check.cpp compares it with the table lookup for
/// every float t, every bit.
CR_HD void snow_ramp(float t, float& r, float& g, float& b) {
    const float s = mul_rn(t, 4.f);
    const bool at1 = s >= 1.f, at2 = s >= 2.f, at3 = s >= 3.f;  // base >= 1, 2, 3 (all false for NaN)
    const float base = at3 ? 3.f : at2 ? 2.f : at1 ? 1.f : 0.f;
    const float w = sub_rn(s, base);
    const float v = sub_rn(1.f, w);
    // red: 1 in rows 0-1, .8 after; green: 1, 1, .9, .9, .8 (rows base and base + 1)
    r = add_rn(mul_rn(v, at2 ? .8f : 1.f), mul_rn(w, at1 ? .8f : 1.f));
    g = add_rn(mul_rn(v, at2 ? .9f : 1.f), mul_rn(w, at3 ? .8f : at1 ? .9f : 1.f));
    b = add_rn(v, w);
}

/// The snow alpha's depth factor, 0.5 * clamp(.6 + .4 * (1 - z), 0, 1): one
/// value per circle (the tiled kernels compute it once per listed circle).
CR_HD float snow_max_alpha(float z) {
    const float a = add_rn(.6f, mul_rn(.4f, sub_rn(1.f, z)));
    return mul_rn(.5f, clamp_float(a, 0.f, 1.f));
}

/// Snow shading at t = sqrt(d2) / r (the pixel's distance in radii):
/// color = ramp(t), alpha = max_alpha * exp(-4 t^2).
CR_HD Fragment shade_snow_at(float t, float max_alpha) {
    Fragment f;
    snow_ramp(t, f.r, f.g, f.b);
    f.alpha = mul_rn(max_alpha, expf(mul_rn(mul_rn(-4.f, t), t)));
    return f;
}

/// Snow shading with the circle's snow_max_alpha already computed.
CR_HD Fragment shade_snow_scaled(float d2, float r, float max_alpha) {
    return shade_snow_at(div_rn(sqrtf(d2), r), max_alpha);  // sqrtf is correctly rounded on both sides
}

/// shade_snow_scaled with the division by r done from inv_r = div_rn(1, r)
/// (div_by_reciprocal): the same fragment, bit for bit, for
/// reciprocal_divides(r) and a covered pixel (d2 <= r * r).
CR_HD Fragment shade_snow_reciprocal(float d2, float r, float inv_r, float max_alpha) {
    return shade_snow_at(div_by_reciprocal(sqrtf(d2), r, inv_r), max_alpha);
}

/// Snow shading for a covered pixel at squared distance d2 from a circle of
/// radius r and depth z: t = sqrt(d2)/r, color = ramp(t),
/// alpha = 0.5 * clamp(.6 + .4 * (1 - z), 0, 1) * exp(-4 t^2).
CR_HD Fragment shade_snow(float d2, float r, float z) { return shade_snow_scaled(d2, r, snow_max_alpha(z)); }

/// Flat shading: the circle's color at alpha 0.5.
CR_HD Fragment shade_flat(float r, float g, float b) { return Fragment{r, g, b, .5f}; }

/// Blend one fragment over an RGB accumulator (the course's "over" rule, in
/// circle input order): rgb = alpha * c + (1 - alpha) * rgb, each product
/// and the sum rounded to nearest as cpuref rounds them. The tiled and
/// persistent kernels blend only this (they write alpha 1; docs/KERNELS.md,
/// "Alpha").
CR_HD void blend_rgb(float& pr, float& pg, float& pb, const Fragment& f) {
    const float one_minus_alpha = sub_rn(1.f, f.alpha);
    pr = add_rn(mul_rn(f.alpha, f.r), mul_rn(one_minus_alpha, pr));
    pg = add_rn(mul_rn(f.alpha, f.g), mul_rn(one_minus_alpha, pg));
    pb = add_rn(mul_rn(f.alpha, f.b), mul_rn(one_minus_alpha, pb));
}

/// Blend one fragment over an RGBA accumulator: blend_rgb, then a += alpha
/// (the course's alpha: 1 plus every alpha blended, clamped to 1 in files).
CR_HD void blend(float& pr, float& pg, float& pb, float& pa, const Fragment& f) {
    blend_rgb(pr, pg, pb, f);
    pa = add_rn(pa, f.alpha);
}

/// Background gray of row j for snow scenes: .4 + .45 * (H - j) / H.
CR_HD float snow_background(int j, int height) {
    const float num = mul_rn(.45f, static_cast<float>(height - j));
    return add_rn(.4f, div_rn(num, static_cast<float>(height)));
}

/// The background gray of row j (0 = bottom) of an image `height` pixels
/// high: 1 (white), or for snow scenes the ramp of snow_background(); the
/// background's alpha is 1. The clear stages (CPU and GPU) and the GPU
/// kernels that start a frame from the background use this one function.
CR_HD float background_value(ShadeMode shade, int j, int height) {
    return shade == ShadeMode::Snow ? snow_background(j, height) : 1.f;
}

}  // namespace cr
