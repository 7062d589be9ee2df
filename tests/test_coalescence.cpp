// Exact early stopping by coalescence (render/core/coalesce.h,
// render/cpu/coalescence.h): the early result equals cpuref's bit for bit
// on every scene, seed and odd size, and stops early where circles pile up.
#include <gtest/gtest.h>

#include <cstring>

#include "render/cpu/coalescence.h"
#include "scenes/scene.h"

namespace cr {
namespace {

TEST(Coalescence, HundredEqualFragmentsMeetWithinTheFirstWindow) {
    // 100 fragments of color .25, alpha .5: the trajectories from 0 and 2
    // halve their gap each blend and are equal once it is below the spacing
    // of floats near .25 (2^-25): after 27 blends of the last 32.
    const std::vector<Fragment> frags(100, Fragment{.25f, .25f, .25f, .5f});
    const float bg[3] = {1.f, 1.f, 1.f};
    const CoalescedPixel c = coalesce_pixel(frags, bg, ValueBounds{0.f, 2.f, true}, 32);
    EXPECT_EQ(first_window_of(frags, ValueBounds{0.f, 2.f, true}), 34);  // 2 * 2^-34 < 2^-32, 2 * 2^-33 is not
    float full[4] = {1.f, 1.f, 1.f, 1.f};
    for (const Fragment& f : frags) blend(full[0], full[1], full[2], full[3], f);
    EXPECT_EQ(std::memcmp(c.rgb, full, sizeof c.rgb), 0);
    EXPECT_EQ(c.covering, 100);
    EXPECT_EQ(c.start, 68);
    EXPECT_EQ(c.windows, 1);
    EXPECT_EQ(c.merged_after, 27);
    EXPECT_EQ(c.blends, 2 * 27 + 5);  // both trajectories until they meet, then one
}

TEST(Coalescence, FewFragmentsAreBlendedFromTheBackground) {
    const std::vector<Fragment> frags = {{1.f, 0.f, 0.f, .5f}, {0.f, 0.f, 1.f, .5f}};
    const float bg[3] = {1.f, 1.f, 1.f};
    const CoalescedPixel c = coalesce_pixel(frags, bg, ValueBounds{}, 32);
    EXPECT_EQ(c.start, 0);
    EXPECT_EQ(c.merged_after, -1);
    EXPECT_EQ(c.rgb[0], .5f);  // (1 -> 1 -> .5): hand-computed
    EXPECT_EQ(c.rgb[1], .25f);
    EXPECT_EQ(c.rgb[2], .75f);
}

TEST(Coalescence, BoundsOfTheScenes) {
    EXPECT_EQ(value_bounds(make_scene("snowsingle", 0)).hi, 2.f);
    const ValueBounds rgb = value_bounds(make_scene("rgb", 0));
    EXPECT_TRUE(rgb.valid);
    EXPECT_EQ(rgb.lo, 0.f);
    Scene odd = make_scene("rgb", 0);
    odd.r[1] = -.5f;  // a negative color: no early stop is safe
    EXPECT_FALSE(value_bounds(odd).valid);
    odd.r[1] = 3.f;
    EXPECT_EQ(value_bounds(odd).hi, 6.f);
}

TEST(Coalescence, EveryPixelOfEverySceneIsCprefsBitForBit) {
    for (const char* name : {"rgb", "rgby", "rand10k", "rand100k", "biglittle", "littlebig", "pattern", "micro2M",
                             "bouncingballs", "fireworks", "hypnosis", "snow", "snowsingle", "rand1M"})
        for (uint32_t seed : {0u, 7u}) {
            SCOPED_TRACE(std::string(name) + " seed " + std::to_string(seed));
            const CoalescenceStats st = coalescence_stats(make_scene(name, seed), 64, 64);
            EXPECT_EQ(st.mismatches, 0);
            // windows w, 2w, ... shorter than half the list, each walked twice (under 2n in all), then at
            // most the whole list once: at most 3x cpuref's blends
            EXPECT_LE(st.blends_done, 3 * st.blends_full);
        }
    for (const auto& [w, h] : {std::pair{257, 129}, std::pair{1, 1}}) {
        const CoalescenceStats st = coalescence_stats(make_scene("rand100k", 3), w, h);
        EXPECT_EQ(st.mismatches, 0) << w << "x" << h;
    }
}

TEST(Coalescence, StopsEarlyWhereCirclesPileUp) {
    const CoalescenceStats st = coalescence_stats(make_scene("rand100k", 0), 128, 128);
    EXPECT_EQ(st.mismatches, 0);
    EXPECT_LT(st.blends_done * 5, st.blends_full) << st.blends_done << " of " << st.blends_full;
    EXPECT_LE(percentile(st.needed, 0.5), 32);
}

}  // namespace
}  // namespace cr
