// The course's snow (../shared/SCENES.md, "snow"): the noise tables, the
// noise hash, float-to-int truncation, and the step, against the test
// vectors of issue 11 (computed from the spec; with them, frames 150 and 300
// equal the course's reference renderer). Values are floats printed %.9g.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "render/cpu/cpu_stages.h"
#include "scenes/animation.h"
#include "scenes/noise.h"
#include "scenes/scene.h"

namespace {

namespace cn = cr::course_noise;

// ---- the tables ----------------------------------------------------------------

TEST(CourseNoise, TablesArePermutationsOfTheCourse) {
    int seen_x[256] = {}, seen_y[256] = {};
    for (int k = 0; k < 256; ++k) {
        ASSERT_GE(cn::perm_x[k], 0);
        ASSERT_LT(cn::perm_x[k], 256);
        ASSERT_GE(cn::perm_y[k], 0);
        ASSERT_LT(cn::perm_y[k], 256);
        ++seen_x[cn::perm_x[k]];
        ++seen_y[cn::perm_y[k]];
    }
    for (int k = 0; k < 256; ++k) EXPECT_TRUE(seen_x[k] == 1 && seen_y[k] == 1) << k;
    // First and last entries as in the course's data file.
    EXPECT_EQ(cn::perm_x[0], 76);
    EXPECT_EQ(cn::perm_x[255], 192);
    EXPECT_EQ(cn::perm_y[0], 105);
    EXPECT_EQ(cn::perm_y[255], 119);
    EXPECT_EQ(cn::value_1d[0], 0.47451f);
    EXPECT_EQ(cn::value_1d[90], 1.0f);
    EXPECT_EQ(cn::value_1d[95], -1.0f);
    EXPECT_EQ(cn::value_1d[255], -0.529412f);
}

TEST(CourseNoise, ValuesAreTheDecimalsParsedWithStrtodThenRoundedToFloat) {
    const char* const decimals[256] = {CR_NOISE_VALUE_1D_DECIMAL};
    for (int k = 0; k < 256; ++k) {
        char* end = nullptr;
        const double d = std::strtod(decimals[k], &end);
        ASSERT_EQ(*end, '\0') << decimals[k];
        EXPECT_EQ(cn::value_1d[k], static_cast<float>(d)) << k << " " << decimals[k];
        EXPECT_LE(std::fabs(cn::value_1d[k]), 1.f) << k;
    }
}

// ---- the hash -------------------------------------------------------------------

TEST(CourseNoise, IssueVectors) {
    cn::NoisePair n = cn::noise(3.7f, 12.2f, 255.f, 5);
    EXPECT_EQ(n.x, -0.850979984f);
    EXPECT_EQ(n.y, -0.466666996f);
    n = cn::noise(-0.5f, 7.9f, 0.f, 77);
    EXPECT_EQ(n.x, -0.419607997f);
    EXPECT_EQ(n.y, 0.717647016f);
    n = cn::noise(250.9f, 0.1f, 127.5f, 99999);
    EXPECT_EQ(n.x, 0.0196077991f);
    EXPECT_EQ(n.y, 0.772548974f);
}

/// The spec's formula written out on plain ints (small inputs: no overflow).
cn::NoisePair by_hand(int ia, int ib, int ic, int index) {
    int h = cn::perm_x[(ia * index) & 255];
    h = cn::perm_x[(h + ib) & 255];
    h = cn::perm_x[(h + ic) & 255];
    const float x = cn::value_1d[h];
    h = cn::perm_y[ia & 255];
    h = cn::perm_y[(h + ib) & 255];
    h = cn::perm_y[(h + ic) & 255];
    return {x, cn::value_1d[h]};
}

TEST(CourseNoise, NegativeCellsWrapAsTwosComplementInts) {
    // int(-3.5) = -3 (toward zero); -3 & 255 = 253, (-3 * 7) & 255 = 235.
    for (const auto& [a, b, c, i, ia, ib, ic] :
         {std::tuple{-3.5f, -0.9f, -300.2f, 7, -3, 0, -300}, std::tuple{-1000.f, 5.5f, 2.f, 12345, -1000, 5, 2},
          std::tuple{0.99f, -255.f, -1.f, -9, 0, -255, -1}, std::tuple{17.f, 3.f, 1.f, 0, 17, 3, 1}}) {
        const cn::NoisePair got = cn::noise(a, b, c, i), want = by_hand(ia, ib, ic, i);
        EXPECT_EQ(got.x, want.x) << a << " " << b << " " << c << " " << i;
        EXPECT_EQ(got.y, want.y) << a << " " << b << " " << c << " " << i;
    }
}

TEST(CourseNoise, HugeProductsWrapWithoutOverflow) {
    // ia * index overflows int: the low 8 bits are those of the exact product.
    const int ia = 2000000000, index = 99999;
    const unsigned low = (static_cast<unsigned>(ia) * static_cast<unsigned>(index)) & 255u;
    const cn::NoisePair got = cn::noise(2e9f, 0.f, 0.f, index);
    const int h = cn::perm_x[cn::perm_x[cn::perm_x[low]]];
    EXPECT_EQ(got.x, cn::value_1d[h]);
    EXPECT_EQ(static_cast<float>(ia), 2e9f);
}

TEST(TruncToInt, TowardZeroAndOneDefinedResultOutOfRange) {
    EXPECT_EQ(cr::trunc_to_int(2.9f), 2);
    EXPECT_EQ(cr::trunc_to_int(-2.9f), -2);
    EXPECT_EQ(cr::trunc_to_int(-0.5f), 0);
    EXPECT_EQ(cr::trunc_to_int(-0.f), 0);
    EXPECT_EQ(cr::trunc_to_int(2147483520.f), 2147483520);  // the largest float below 2^31
    EXPECT_EQ(cr::trunc_to_int(-2147483648.f), INT_MIN);     // -2^31 itself is in range
    // Out of range and NaN: INT_MIN, as x86's cvttss2si (the course's CPU).
    EXPECT_EQ(cr::trunc_to_int(2147483648.f), INT_MIN);
    EXPECT_EQ(cr::trunc_to_int(-2147483904.f), INT_MIN);
    EXPECT_EQ(cr::trunc_to_int(3e38f), INT_MIN);
    EXPECT_EQ(cr::trunc_to_int(std::numeric_limits<float>::infinity()), INT_MIN);
    EXPECT_EQ(cr::trunc_to_int(-std::numeric_limits<float>::infinity()), INT_MIN);
    EXPECT_EQ(cr::trunc_to_int(std::numeric_limits<float>::quiet_NaN()), INT_MIN);
}

// ---- the step -------------------------------------------------------------------

/// snow (seed 0) after `steps` steps of the CPU path (cached per step count).
const cr::Scene& snow_after(int steps) {
    static std::map<int, cr::Scene> cache;
    auto it = cache.find(steps);
    if (it != cache.end()) return it->second;
    cr::Scene s = cr::make_scene("snow", 0);
    for (int f = 0; f < steps; ++f)
        cr::advance_circles(s, 0, static_cast<int64_t>(s.count()));
    return cache.emplace(steps, std::move(s)).first->second;
}

TEST(SnowStep, FlakeZeroAfterGeneration) {
    const cr::Scene& s = snow_after(0);
    EXPECT_EQ(s.x[0], 0.539427042f);
    EXPECT_EQ(s.y[0], 1.4494741f);
    EXPECT_EQ(s.radius[0], 0.00749999983f);
    EXPECT_EQ(s.z[0], 1.f);
}

TEST(SnowStep, IssueVectorsAfterOneStep) {
    const cr::Scene& s = snow_after(1);
    EXPECT_EQ(s.vx[0], -0.0122058885f);
    EXPECT_EQ(s.vy[0], -0.00237908494f);
    EXPECT_EQ(s.vx[99999], 0.0525607318f);
    EXPECT_EQ(s.vy[99999], -0.00782887544f);
    // Velocities start at 0, so the first step does not move the flakes.
    EXPECT_EQ(s.x, snow_after(0).x);
    EXPECT_EQ(s.y, snow_after(0).y);
}

TEST(SnowStep, IssueVectorsAfter150Steps) {
    const cr::Scene& s = snow_after(150);
    EXPECT_EQ(s.x[0], 0.591874242f);
    EXPECT_EQ(s.y[0], 1.05466533f);
    EXPECT_EQ(s.vx[0], 0.49569419f);
    EXPECT_EQ(s.vy[0], -0.365524501f);
    EXPECT_EQ(s.x[4242], 0.658523142f);
    EXPECT_EQ(s.y[4242], 1.59719574f);
}

TEST(SnowStep, IssueVectorsAfter300Steps) {
    const cr::Scene& s = snow_after(300);
    EXPECT_EQ(s.x[0], 0.789542913f);
    EXPECT_EQ(s.y[0], 0.923323095f);
    EXPECT_EQ(s.x[4242], 0.380173296f);
    EXPECT_EQ(s.y[4242], 1.35796249f);
    EXPECT_EQ(s.vx[4242], -1.28882968f);
    EXPECT_EQ(s.vy[4242], 0.0138290841f);
    EXPECT_EQ(s.x[99999], 0.56156981f);
    EXPECT_EQ(s.y[99999], 0.933260858f);
}

/// One flake's arrays for a hand-made step.
struct OneFlake {
    float x, y, z, vx, vy, vz, radius, r = 1, g = 1, b = 1;
    cr::CircleArrays arrays() { return {&x, &y, &z, &vx, &vy, &vz, &radius, &r, &g, &b, nullptr, nullptr, 1}; }
};

TEST(SnowStep, OneStepRecomputedFromTheSpec) {
    // Flake 0 of frame 150 stepped once, against the spec's lines in plain
    // float arithmetic (the host build never contracts a*b+c).
    const cr::Scene& s = snow_after(150);
    OneFlake f{s.x[0], s.y[0], s.z[0], s.vx[0], s.vy[0], s.vz[0], s.radius[0]};
    const float dt = 1 / 60.f;
    const float scale = std::max(.1f, std::min(1 - f.z, 1.f));
    const cn::NoisePair n = cn::noise(10 * f.x, 10 * f.y, 255 * f.z, 0);
    const float nx = n.x * 7.5f, ny = n.y * 5.f;
    const float dragx = -1.f * 2.f * f.vx, dragy = -1.f * 2.f * f.vy;
    const float x = f.x + f.vx * dt, y = f.y + f.vy * dt;
    const float vx = f.vx + scale * (nx + dragx) * dt;
    const float vy = f.vy + scale * (-1.8f + ny + dragy) * dt;
    cr::anim::step_circle(static_cast<int>(cr::Motion::Snow), f.arrays(), 0);
    EXPECT_EQ(f.x, x);
    EXPECT_EQ(f.y, y);
    EXPECT_EQ(f.vx, vx);
    EXPECT_EQ(f.vy, vy);
    EXPECT_EQ(f.x, snow_after(151).x[0]);
    EXPECT_EQ(f.vy, snow_after(151).vy[0]);
}

TEST(SnowStep, FlakesLeavingThePictureRespawnAboveIt) {
    // Past the left edge, past the right edge, below the bottom: each
    // respawns with the noise at its moved position (flake 7, z .25).
    const float r = .01f, dt = 1 / 60.f;
    for (const auto& [x0, y0, vx0, vy0] : {std::tuple{-.005f, .5f, -1.f, 0.f}, std::tuple{1.005f, .5f, 1.f, 0.f},
                                            std::tuple{.5f, -.005f, 0.f, -1.f}}) {
        cr::Scene s;
        s.resize(8);
        s.x[7] = x0, s.y[7] = y0, s.z[7] = .25f, s.vx[7] = vx0, s.vy[7] = vy0, s.radius[7] = r;
        const float x = x0 + vx0 * dt, y = y0 + vy0 * dt;
        ASSERT_TRUE(y + r < 0 || x + r < 0 || x - r > 1);
        const cn::NoisePair n = cn::noise(255 * x, 255 * y, 255 * .25f, 7);
        cr::anim::step_circle(static_cast<int>(cr::Motion::Snow), cr::circle_arrays(s), 7);
        EXPECT_EQ(s.x[7], .5f + .5f * n.x) << x0;
        EXPECT_EQ(s.y[7], 1.35f + r) << x0;
        EXPECT_EQ(s.vx[7], 2 * n.y) << x0;
        EXPECT_EQ(s.vy[7], 0.f) << x0;
        EXPECT_EQ(s.z[7], .25f) << x0;
    }
    // Touching an edge is not leaving: x + r == 0 stays.
    OneFlake stay{-r, .5f, .25f, 0.f, 0.f, 0.f, r};
    cr::anim::step_circle(static_cast<int>(cr::Motion::Snow), stay.arrays(), 0);
    EXPECT_EQ(stay.x, -r);
    EXPECT_EQ(stay.y, .5f);
}

TEST(SnowStep, DepthClampUsesTheCoursesOrderEvenForNaN) {
    EXPECT_EQ(cr::anim::course_clamp(std::numeric_limits<float>::quiet_NaN(), .1f, 1.f), .1f);
    EXPECT_EQ(cr::anim::course_clamp(-3.f, .1f, 1.f), .1f);
    EXPECT_EQ(cr::anim::course_clamp(3.f, .1f, 1.f), 1.f);
    EXPECT_EQ(cr::anim::course_clamp(.5f, .1f, 1.f), .5f);
}

}  // namespace
