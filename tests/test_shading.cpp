// Coverage, shading and blending (render/shading.h) and the reference
// renderer's pixels, computed by hand from ../shared/SCENES.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "render/cpu/cpu_stages.h"
#include "render/core/shading.h"
#include "scenes/scene.h"

namespace {

void expect_box(const cr::PixelBox& b, int min_x, int max_x, int min_y, int max_y) {
    EXPECT_EQ(b.min_x, min_x);
    EXPECT_EQ(b.max_x, max_x);
    EXPECT_EQ(b.min_y, min_y);
    EXPECT_EQ(b.max_y, max_y);
}

TEST(PixelBox, CenteredCircle) {
    // (.5 - .25) * 8 = 2, (.5 + .25) * 8 = 6 -> 6 + 1 = 7.
    expect_box(cr::circle_pixel_box(.5f, .5f, .25f, 8, 8), 2, 7, 2, 7);
    // Non-square image: x on W = 10, y on H = 4. (.35-.1)*10 = 2.5 -> 2,
    // (.35+.1)*10 = 4.5 -> 5; (.5-.1)*4 = 1.6 -> 1, (.5+.1)*4 = 2.4 -> 3.
    expect_box(cr::circle_pixel_box(.35f, .5f, .1f, 10, 4), 2, 5, 1, 3);
}

TEST(PixelBox, ClampedAtTheEdges) {
    // (-.05 - .1) * 10 = -1.5 -> int -1 -> 0; (-.05 + .1) * 10 = .5 -> 0 + 1 = 1.
    expect_box(cr::circle_pixel_box(-.05f, -.05f, .1f, 10, 10), 0, 1, 0, 1);
    // Right/top: (.95 - .1) * 10 = 8.5 -> 8; (.95 + .1) * 10 = 10.5 -> 11 -> 10.
    expect_box(cr::circle_pixel_box(.95f, .95f, .1f, 10, 10), 8, 10, 8, 10);
    // A circle covering everything.
    expect_box(cr::circle_pixel_box(.5f, .5f, 3.f, 16, 9), 0, 16, 0, 9);
}

TEST(PixelBox, IntTruncatesTowardZero) {
    // (-.1 + .05) * 10 = -.5: int() gives 0 (not floor's -1), so max_x = 1
    // even though the circle lies wholly left of the picture.
    expect_box(cr::circle_pixel_box(-.1f, .5f, .05f, 10, 10), 0, 1, 4, 6);
    // Far left: (-.5 + .1) * 8 = -3.2 -> -3 + 1 = -2 -> clamped 0: empty.
    const cr::PixelBox b = cr::circle_pixel_box(-.5f, .5f, .1f, 8, 8);
    expect_box(b, 0, 0, 3, 5);
    EXPECT_TRUE(b.empty());
}

TEST(PixelBox, HugeNanInfAndNegativeAreClampedWithoutUB) {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    expect_box(cr::circle_pixel_box(1e30f, -1e30f, 1.f, 64, 32), 64, 64, 0, 0);
    EXPECT_TRUE(cr::circle_pixel_box(1e30f, .5f, 1.f, 64, 32).empty());
    expect_box(cr::circle_pixel_box(.5f, .5f, 1e30f, 64, 32), 0, 64, 0, 32);
    expect_box(cr::circle_pixel_box(.5f, .5f, inf, 64, 32), 0, 64, 0, 32);
    expect_box(cr::circle_pixel_box(nan, nan, .1f, 64, 32), 0, 0, 0, 0);
    expect_box(cr::circle_pixel_box(.5f, .5f, nan, 64, 32), 0, 0, 0, 0);
    expect_box(cr::circle_pixel_box(-inf, inf, .1f, 64, 32), 0, 0, 32, 32);
    // Values just past INT_MAX after scaling (2^31 * 16384) must not overflow int().
    expect_box(cr::circle_pixel_box(3e9f, 3e9f, 0.f, 16384, 16384), 16384, 16384, 16384, 16384);
    expect_box(cr::circle_pixel_box(-3e9f, -3e9f, 0.f, 16384, 16384), 0, 0, 0, 0);
    // Negative radius: max < min, empty.
    EXPECT_TRUE(cr::circle_pixel_box(.5f, .5f, -.2f, 10, 10).empty());
}

TEST(PixelCenter, MatchesTheCourseFormula) {
    EXPECT_EQ(cr::pixel_center(0, 1.f / 8.f), .0625f);
    EXPECT_EQ(cr::pixel_center(7, 1.f / 8.f), .9375f);
    EXPECT_EQ(cr::pixel_center(3, 1.f / 3.f), (1.f / 3.f) * 3.5f);
}

TEST(Covers, BoundaryIsInclusive) {
    // r = .5: r*r = .25 exactly.
    EXPECT_TRUE(cr::covers(.25f, .5f));
    EXPECT_FALSE(cr::covers(std::nextafter(.25f, 1.f), .5f));
    EXPECT_TRUE(cr::covers(std::nextafter(.25f, 0.f), .5f));
    // d2 built from a 3-4-5 triangle: dx = .375, dy = .5, d2 = .390625 = .625^2 exactly.
    const float d2 = cr::center_distance2(.5f, .5f, .125f, 0.f);
    EXPECT_EQ(d2, .390625f);
    EXPECT_TRUE(cr::covers(d2, .625f));
    EXPECT_FALSE(cr::covers(d2, std::nextafter(.625f, 0.f)));
}

TEST(Covers, RadiusZeroOnAPixelCenter) {
    const float inv = 1.f / 16.f;
    const float px = cr::pixel_center(5, inv), py = cr::pixel_center(9, inv);
    EXPECT_EQ(cr::center_distance2(px, py, px, py), 0.f);
    EXPECT_TRUE(cr::covers(0.f, 0.f));
    EXPECT_FALSE(cr::covers(1e-30f, 0.f));

    // Rendered: a radius-0 circle on the center of pixel (5, 9) blends exactly there.
    cr::Scene s;
    s.resize(1);
    s.x[0] = px;
    s.y[0] = py;
    s.radius[0] = 0.f;
    s.r[0] = 0.f;
    s.g[0] = 0.f;
    s.b[0] = 0.f;
    cr::CpuRefRenderer ref;
    ref.setup(s, 16, 16);
    ref.clear();
    ref.advance();
    ref.render();
    const cr::Image& img = ref.image();
    int touched = 0;
    for (int j = 0; j < 16; ++j)
        for (int i = 0; i < 16; ++i)
            if (img.pixel(i, j)[0] != 1.f) {
                ++touched;
                EXPECT_EQ(i, 5);
                EXPECT_EQ(j, 9);
            }
    EXPECT_EQ(touched, 1);
    EXPECT_EQ(img.pixel(5, 9)[0], .5f);
    EXPECT_EQ(img.pixel(5, 9)[3], 1.5f);
}

// ---- rgb at 8x8 through cpuref -------------------------------------------------
//
// Pixel centers (i + .5) / 8; circles r = .3 (r*r = .09) at y = .5 and x = .4
// (red), .5 (green), .6 (blue). On row 4 (center y = .5625, dy^2 = .00390625):
//   i = 0 (.0625): red dx .3375 -> d2 .1178 > .09: nothing       -> white
//   i = 1 (.1875): red d2 .0491; green dx .3125 -> .1016: no      -> red only
//   i = 3 (.4375): red .0053, green .0078, blue .0266: all three
//   i = 6 (.8125): blue dx .2125 -> .0491; green .1016: no        -> blue only
//   i = 7 (.9375): blue .1178: nothing                             -> white
// Blend (alpha .5): rgb = .5 c + .5 rgb, a += .5, from (1,1,1,1).
//   red over white   = (1, .5, .5), a 1.5
//   then green       = (.5, .75, .25), a 2
//   then blue        = (.25, .375, .625), a 2.5
//   blue over white  = (.5, .5, 1), a 1.5
// Corner (0,0): center (.0625,.0625): d2 to red .1139 + .1914 > .09 -> white.

class RgbAt8 : public ::testing::Test {
protected:
    void SetUp() override {
        ref.setup(cr::make_scene("rgb"), 8, 8);
        ref.clear();
        ref.advance();
        ref.render();
    }
    void expect_pixel(int i, int j, float r, float g, float b, float a) {
        const float* p = ref.image().pixel(i, j);
        EXPECT_EQ(p[0], r) << "pixel " << i << "," << j;
        EXPECT_EQ(p[1], g) << "pixel " << i << "," << j;
        EXPECT_EQ(p[2], b) << "pixel " << i << "," << j;
        EXPECT_EQ(p[3], a) << "pixel " << i << "," << j;
    }
    cr::CpuRefRenderer ref;
};

TEST_F(RgbAt8, UncoveredPixelsStayWhite) {
    expect_pixel(0, 4, 1, 1, 1, 1);
    expect_pixel(7, 4, 1, 1, 1, 1);
    expect_pixel(0, 0, 1, 1, 1, 1);
    expect_pixel(7, 7, 1, 1, 1, 1);
}

TEST_F(RgbAt8, RedOnly) { expect_pixel(1, 4, 1.f, .5f, .5f, 1.5f); }

TEST_F(RgbAt8, AllThreeBlendInInputOrder) { expect_pixel(3, 4, .25f, .375f, .625f, 2.5f); }

TEST_F(RgbAt8, BlueOnly) { expect_pixel(6, 4, .5f, .5f, 1.f, 1.5f); }

TEST_F(RgbAt8, SizeAndFrameCounter) {
    EXPECT_EQ(ref.image().width, 8);
    EXPECT_EQ(ref.image().height, 8);
    EXPECT_EQ(ref.frame(), 1);
    EXPECT_EQ(ref.name(), "cpuref");
}

TEST(CpuRef, BadSizesThrow) {
    cr::CpuRefRenderer ref;
    const cr::Scene s = cr::make_scene("rgb");
    EXPECT_THROW(ref.setup(s, 0, 8), std::invalid_argument);
    EXPECT_THROW(ref.setup(s, 8, 16385), std::invalid_argument);
    EXPECT_NO_THROW(ref.setup(s, 16384, 1));
}

// ---- snow -----------------------------------------------------------------------

TEST(Snow, BackgroundRamp) {
    // .4 + .45 * (H - j) / H
    EXPECT_EQ(cr::snow_background(0, 8), .4f + .45f);
    EXPECT_NEAR(cr::snow_background(0, 8), .85f, 1e-7f);
    EXPECT_EQ(cr::snow_background(7, 8), .4f + (.45f * 1.f) / 8.f);
    EXPECT_EQ(cr::snow_background(4, 8), .4f + .225f);
    EXPECT_EQ(cr::snow_background(1, 3), .4f + (.45f * 2.f) / 3.f);
    EXPECT_NEAR(cr::snow_background(1, 3), .7f, 1e-7f);

    // cpuref's clear uses it per row, with alpha 1.
    cr::Scene s;
    s.shade = cr::ShadeMode::Snow;
    cr::CpuRefRenderer ref;
    ref.setup(s, 3, 4);
    ref.clear();
    for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 3; ++i) {
            const float* p = ref.image().pixel(i, j);
            const float want = .4f + (.45f * static_cast<float>(4 - j)) / 4.f;
            EXPECT_EQ(p[0], want);
            EXPECT_EQ(p[1], want);
            EXPECT_EQ(p[2], want);
            EXPECT_EQ(p[3], 1.f);
        }
}

TEST(Snow, ShadingAtCenterTZero) {
    // t = 0: s = 0, base 0, w 0 -> color T[0] = (1,1,1); alpha = maxAlpha * exp(0).
    cr::Fragment f = cr::shade_snow(0.f, .1f, 0.f);
    EXPECT_EQ(f.r, 1.f);
    EXPECT_EQ(f.g, 1.f);
    EXPECT_EQ(f.b, 1.f);
    EXPECT_EQ(f.alpha, .5f);  // z = 0: .5 * clamp(.6 + .4, 0, 1) = .5
    f = cr::shade_snow(0.f, .1f, 1.f);
    EXPECT_EQ(f.alpha, .5f * .6f);  // z = 1: .5 * .6
    f = cr::shade_snow(0.f, .1f, .5f);
    EXPECT_EQ(f.alpha, .5f * (.6f + .4f * .5f));  // .4
    EXPECT_NEAR(f.alpha, .4f, 1e-7f);
    f = cr::shade_snow(0.f, .1f, -2.f);  // .6 + 1.2 = 1.8 clamps to 1
    EXPECT_EQ(f.alpha, .5f);
}

TEST(Snow, ShadingAtRimTOneUsesBase3) {
    // r = .5, d2 = .25: sqrt(.25) / .5 = 1 exactly; s = 4, base = min(4, 3) = 3,
    // w = 1 -> (1 - 1) * T[3] + 1 * T[4] = (.8, .8, 1).
    const cr::Fragment f = cr::shade_snow(.25f, .5f, 0.f);
    EXPECT_EQ(f.r, .8f);
    EXPECT_EQ(f.g, .8f);
    EXPECT_EQ(f.b, 1.f);
    EXPECT_EQ(f.alpha, .5f * std::exp(-4.f));
    float r, g, b;
    cr::snow_ramp(1.f, r, g, b);
    EXPECT_EQ(r, .8f);
    EXPECT_EQ(g, .8f);
    EXPECT_EQ(b, 1.f);
}

TEST(Snow, RampInterpolatesTheTable) {
    float r, g, b;
    // t = .375: s = 1.5, base 1, w .5: (.5 * 1 + .5 * .8, .5 * 1 + .5 * .9) = (.9, .95)
    cr::snow_ramp(.375f, r, g, b);
    EXPECT_EQ(r, .5f * 1.f + .5f * .8f);
    EXPECT_EQ(g, .5f * 1.f + .5f * .9f);
    EXPECT_EQ(b, 1.f);
    EXPECT_NEAR(r, .9f, 1e-7f);
    EXPECT_NEAR(g, .95f, 1e-7f);
    // t = .625: s = 2.5, base 2, between (.8,.9,1) and (.8,.9,1).
    cr::snow_ramp(.625f, r, g, b);
    EXPECT_EQ(r, .5f * .8f + .5f * .8f);
    EXPECT_EQ(g, .5f * .9f + .5f * .9f);
    // t = .875: s = 3.5, base 3, between (.8,.9,1) and (.8,.8,1): g = .85.
    cr::snow_ramp(.875f, r, g, b);
    EXPECT_EQ(g, .5f * .9f + .5f * .8f);
    EXPECT_NEAR(g, .85f, 1e-7f);
    // t = .25: s = 1 exactly, base 1, w 0: T[1] = (1,1,1).
    cr::snow_ramp(.25f, r, g, b);
    EXPECT_EQ(r, 1.f);
    EXPECT_EQ(g, 1.f);
}

/// The snow ramp as an int index into the table (the form SCENES.md
/// describes, and snow_ramp's before it chose the index by comparisons).
void ramp_by_index(float t, float& r, float& g, float& b) {
    const float red[5] = {1.f, 1.f, .8f, .8f, .8f}, green[5] = {1.f, 1.f, .9f, .9f, .8f};
    const float s = cr::mul_rn(t, 4.f);
    const int base = std::isnan(s) ? 0 : std::min(std::max(static_cast<int>(s), 0), 3);
    const float w = cr::sub_rn(s, static_cast<float>(base)), v = cr::sub_rn(1.f, w);
    r = cr::add_rn(cr::mul_rn(v, red[base]), cr::mul_rn(w, red[base + 1]));
    g = cr::add_rn(cr::mul_rn(v, green[base]), cr::mul_rn(w, green[base + 1]));
    b = cr::add_rn(cr::mul_rn(v, 1.f), cr::mul_rn(w, 1.f));
}

TEST(Snow, RampByComparisonsEqualsTheIndexedTable) {
    // snow_ramp picks the row by comparing s = 4t with 1, 2 and 3; the
    // course's form converts s to an int. 200 floats around each row's edge
    // (t = 0, .25, .5, .75, 1), the rim past 1, NaN, and 100,000 spread over
    // [0, 1.01]: every bit the same (scripts/probes/snow_ramp_check.cpp
    // runs all 2^32 floats).
    std::vector<float> ts = {std::nanf(""), -0.f, 1.0001f, 1.5f};
    for (float edge : {0.f, .25f, .5f, .75f, 1.f}) {
        float t = edge;
        for (int k = 0; k < 100; ++k) t = std::nextafter(t, -1.f);
        for (int k = 0; k < 200; ++k, t = std::nextafter(t, 2.f)) ts.push_back(t);
    }
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.f, 1.01f);
    for (int k = 0; k < 100000; ++k) ts.push_back(u(rng));
    for (float t : ts) {
        float r0, g0, b0, r1, g1, b1;
        ramp_by_index(t, r0, g0, b0);
        cr::snow_ramp(t, r1, g1, b1);
        if (std::isnan(t)) {
            EXPECT_TRUE(std::isnan(r1) && std::isnan(g1) && std::isnan(b1));
            continue;
        }
        ASSERT_EQ(std::memcmp(&r0, &r1, 4), 0) << "red at t = " << t;
        ASSERT_EQ(std::memcmp(&g0, &g1, 4), 0) << "green at t = " << t;
        ASSERT_EQ(std::memcmp(&b0, &b1, 4), 0) << "blue at t = " << t;
    }
}

TEST(Snow, FlakeRenderedOverBackground) {
    // One flake (z = 0) on the center of pixel (2, 1) of a 4x4 snow image.
    cr::Scene s;
    s.resize(1);
    s.shade = cr::ShadeMode::Snow;
    s.x[0] = .625f;  // pixel_center(2, .25)
    s.y[0] = .375f;  // pixel_center(1, .25)
    s.radius[0] = .5f;
    s.r[0] = s.g[0] = s.b[0] = 1.f;
    cr::CpuRefRenderer ref;
    ref.setup(s, 4, 4);
    ref.clear();
    ref.advance();
    ref.render();
    // Center pixel: t = 0, color (1,1,1), alpha .5, background .4 + .45 * 3 / 4.
    const float bg1 = .4f + (.45f * 3.f) / 4.f;
    const float* p = ref.image().pixel(2, 1);
    EXPECT_EQ(p[0], .5f * 1.f + (1.f - .5f) * bg1);
    EXPECT_EQ(p[3], 1.5f);
    // Pixel (0, 1): dx = .5, d2 = .25 = r*r: covered at t = 1 (base 3).
    const float a = .5f * std::exp(-4.f);
    p = ref.image().pixel(0, 1);
    EXPECT_EQ(p[0], a * .8f + (1.f - a) * bg1);
    EXPECT_EQ(p[1], a * .8f + (1.f - a) * bg1);
    EXPECT_EQ(p[2], a * 1.f + (1.f - a) * bg1);
    EXPECT_EQ(p[3], 1.f + a);
    // Pixel (0, 0): d2 = .25 + .0625 > .25: background only.
    const float bg0 = .4f + (.45f * 4.f) / 4.f;
    p = ref.image().pixel(0, 0);
    EXPECT_EQ(p[0], bg0);
    EXPECT_EQ(p[3], 1.f);
}

TEST(Blend, OverRuleAndAlphaSum) {
    float r = .2f, g = .4f, b = .6f, a = 1.f;
    cr::blend(r, g, b, a, cr::Fragment{1.f, 0.f, .5f, .25f});
    EXPECT_EQ(r, .25f * 1.f + .75f * .2f);
    EXPECT_EQ(g, .25f * 0.f + .75f * .4f);
    EXPECT_EQ(b, .25f * .5f + .75f * .6f);
    EXPECT_EQ(a, 1.25f);
    const cr::Fragment flat = cr::shade_flat(.1f, .2f, .3f);
    EXPECT_EQ(flat.alpha, .5f);
    EXPECT_EQ(flat.r, .1f);
}

uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

TEST(Reciprocal, TheCorrectionMakesTheProductTheQuotient) {
    // .001f * (1 / .01f) rounds to 0x1.99999ap-4, one ulp below .001f / .01f
    // = 0x1.99999cp-4; the remainder's correction gives the quotient.
    const float a = .001f, b = .01f, inv_b = cr::div_rn(1.f, b);
    EXPECT_EQ(float_bits(cr::mul_rn(a, inv_b)), float_bits(0x1.99999ap-4f));
    EXPECT_EQ(float_bits(cr::div_by_reciprocal(a, b, inv_b)), float_bits(0x1.99999cp-4f));
    EXPECT_EQ(float_bits(a / b), float_bits(0x1.99999cp-4f));
    EXPECT_EQ(cr::div_by_reciprocal(0.f, b, inv_b), 0.f);
    EXPECT_EQ(cr::div_by_reciprocal(b, b, inv_b), 1.f);
    EXPECT_EQ(cr::div_by_reciprocal(.75f, .25f, 4.f), 3.f);
    // the smallest dividend snow can have, sqrtf of the smallest float, by the range's ends
    const float tiny = std::sqrt(std::numeric_limits<float>::denorm_min());
    for (float r : {0x1p-40f, 0x1p40f, 0x1.fffffep39f, 0x1.000002p-40f})
        EXPECT_EQ(float_bits(cr::div_by_reciprocal(tiny, r, cr::div_rn(1.f, r))), float_bits(tiny / r)) << r;
}

TEST(Reciprocal, EqualsTheIeeeDivisionOverItsRange) {
    // 4 M quotients a / b: b log-uniform over [2^-40, 2^40] with a random
    // significand, a uniform in [0, 2b]. scripts/probes/reciprocal_check.cpp
    // runs 2^31 more, whole binades of a.
    std::mt19937 rng(20261204);
    std::uniform_real_distribution<float> exponent(-40.f, 40.f), fraction(0.f, 2.f);
    int differ = 0, tested = 0;
    for (int k = 0; k < 4000000; ++k) {
        const float b = std::exp2(exponent(rng));
        if (!cr::reciprocal_divides(b)) continue;
        const float a = cr::mul_rn(fraction(rng), b);
        differ += float_bits(cr::div_by_reciprocal(a, b, cr::div_rn(1.f, b))) != float_bits(a / b);
        ++tested;
    }
    EXPECT_GT(tested, 3990000);
    EXPECT_EQ(differ, 0);
}

TEST(Reciprocal, OnlyNormalDivisorsInRange) {
    EXPECT_TRUE(cr::reciprocal_divides(0x1p-40f));
    EXPECT_TRUE(cr::reciprocal_divides(0x1p40f));
    EXPECT_TRUE(cr::reciprocal_divides(.01f));
    EXPECT_FALSE(cr::reciprocal_divides(0x1.fffffep-41f));
    EXPECT_FALSE(cr::reciprocal_divides(0x1.000002p40f));
    EXPECT_FALSE(cr::reciprocal_divides(0.f));
    EXPECT_FALSE(cr::reciprocal_divides(-.01f));
    EXPECT_FALSE(cr::reciprocal_divides(std::numeric_limits<float>::denorm_min()));
    EXPECT_FALSE(cr::reciprocal_divides(std::numeric_limits<float>::infinity()));
    EXPECT_FALSE(cr::reciprocal_divides(std::numeric_limits<float>::quiet_NaN()));
}

TEST(Reciprocal, SnowsinglesFragmentsAreUnchanged) {
    // Every covered pixel of every flake of snowsingle at 256x256: the
    // fragment from the reciprocal equals shade_snow_scaled's, every bit.
    const cr::Scene s = cr::make_scene("snowsingle", 0);
    const int w = 256, h = 256;
    const float inv = 1.f / static_cast<float>(w);
    long long covered = 0, differ = 0;
    for (size_t i = 0; i < s.count(); ++i) {
        const float r = s.radius[i], ma = cr::snow_max_alpha(s.z[i]), inv_r = cr::div_rn(1.f, r);
        ASSERT_TRUE(cr::reciprocal_divides(r));
        const cr::PixelBox box = cr::circle_pixel_box(s.x[i], s.y[i], r, w, h);
        for (int y = box.min_y; y < box.max_y; ++y)
            for (int x = box.min_x; x < box.max_x; ++x) {
                const float d2 = cr::center_distance2(s.x[i], s.y[i], cr::pixel_center(x, inv), cr::pixel_center(y, inv));
                if (!cr::covers(d2, r)) continue;
                const cr::Fragment a = cr::shade_snow_scaled(d2, r, ma), b = cr::shade_snow_reciprocal(d2, r, inv_r, ma);
                differ += float_bits(a.r) != float_bits(b.r) || float_bits(a.g) != float_bits(b.g) ||
                          float_bits(a.b) != float_bits(b.b) || float_bits(a.alpha) != float_bits(b.alpha);
                ++covered;
            }
    }
    EXPECT_GT(covered, 3000000);
    EXPECT_EQ(differ, 0);
}

}  // namespace
