// Built-in scenes (scenes/course_scenes.cpp) against ../shared/SCENES.md:
// circle counts, exact first/last circles for seeds 0 and 7, hand
// recomputations of the constant scenes from the spec, and one animation step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/cpu/cpu_stages.h"
#include "scenes/animation.h"
#include "scenes/glibc_rand.h"
#include "scenes/scene.h"

namespace {

struct Circle {
    float x, y, z, radius, r, g, b, vx, vy;
};

struct Golden {
    const char* scene;
    uint32_t seed;
    size_t count;
    Circle first, last;
};

// Values printed (%.9g) from the implementation once, then cross-checked: the
// constant scenes by the hand tests below, rand10k's first circle by
// RandTenK.FirstCircleRecomputedFromTheSpec. They pin generation order.
const Golden kGolden[] = {
    {"rgb", 0, 3,
     {0.400000006f, 0.5f, 0.75f, 0.300000012f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f},
     {0.600000024f, 0.5f, 0.25f, 0.300000012f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f}},
    {"rgb", 7, 3,
     {0.400000006f, 0.5f, 0.75f, 0.300000012f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f},
     {0.600000024f, 0.5f, 0.25f, 0.300000012f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f}},
    {"rgby", 0, 4,
     {0.25f, 0.25f, 0.75f, 0.189999998f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f},
     {0.200000003f, 0.200000003f, 0.899999976f, 0.100000001f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f}},
    {"rgby", 7, 4,
     {0.25f, 0.25f, 0.75f, 0.189999998f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f},
     {0.200000003f, 0.200000003f, 0.899999976f, 0.100000001f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f}},
    {"rand10k", 0, 10000,
     {0.856839299f, 0.19919768f, 0.999993563f, 0.0224882383f, 0.419634521f, 0.372896612f, 0.836913407f, 0.0f, 0.0f},
     {0.257362098f, 0.887219489f, 4.68776561e-05f, 0.0472631752f, 0.541551054f, 0.36858058f, 0.713340878f, 0.0f, 0.0f}},
    {"rand10k", 7, 10000,
     {0.0309072305f, 0.629396558f, 0.999971628f, 0.0323529281f, 0.752951562f, 0.23083818f, 0.847748518f, 0.0f, 0.0f},
     {0.253371209f, 0.277045727f, 8.60644504e-05f, 0.0320360102f, 0.905879438f, 0.285274804f, 0.890500247f, 0.0f, 0.0f}},
    {"rand100k", 0, 100000,
     {0.539427042f, 0.220987022f, 0.999993563f, 0.053111665f, 0.801187813f, 0.753875732f, 0.349475622f, 0.0f, 0.0f},
     {0.950929046f, 0.714313328f, 1.73319131e-06f, 0.0773654282f, 0.839739561f, 0.167586744f, 0.330571115f, 0.0f, 0.0f}},
    {"rand100k", 7, 100000,
     {0.660175562f, 0.933476031f, 0.999994695f, 0.0384175554f, 0.531818986f, 0.51300776f, 0.45463106f, 0.0f, 0.0f},
     {0.489408046f, 0.128138423f, 1.8319115e-05f, 0.0370232202f, 1.05731428f, 0.1778384f, 0.214005738f, 0.0f, 0.0f}},
    {"rand1M", 0, 1000000,
     {0.790400147f, 0.300792456f, 0.999998331f, 0.0107954191f, 0.390187383f, 0.567553341f, 0.468930721f, 0.0f, 0.0f},
     {0.629101217f, 0.84362185f, 5.63450158e-07f, 0.0137523534f, 0.472002566f, 0.710871577f, 0.12299183f, 0.0f, 0.0f}},
    {"rand1M", 7, 1000000,
     {0.5364604f, 0.464687824f, 0.999999225f, 0.0134771662f, 0.427730739f, 0.543732882f, 0.254802912f, 0.0f, 0.0f},
     {0.498030841f, 0.279708475f, 5.3178519e-07f, 0.00930278841f, 0.527251959f, 0.774007142f, 0.28375721f, 0.0f, 0.0f}},
    {"biglittle", 0, 10000,
     {0.0414706469f, 0.856839299f, 0.999993563f, 0.25f, 0.279277921f, 0.377574742f, 0.672896624f, 0.0f, 0.0f},
     {0.0911376923f, 0.941202044f, 4.68776561e-05f, 0.0500000007f, 0.159576878f, 0.44622159f, 0.900857985f, 0.0f, 0.0f}},
    {"biglittle", 7, 10000,
     {0.205882132f, 0.0309072305f, 0.999971628f, 0.25f, 0.666456938f, 0.562750876f, 0.530838192f, 0.0f, 0.0f},
     {0.131246001f, 0.94606787f, 8.60644504e-05f, 0.0500000007f, 0.707432568f, 0.595257342f, 0.664992094f, 0.0f, 0.0f}},
    {"littlebig", 0, 10000,
     {0.0414706469f, 0.856839299f, 0.999993563f, 0.25f, 0.279277921f, 0.377574742f, 0.672896624f, 0.0f, 0.0f},
     {0.891137719f, 0.141202047f, 4.68776561e-05f, 0.0500000007f, 0.159576878f, 0.44622159f, 0.900857985f, 0.0f, 0.0f}},
    {"littlebig", 7, 10000,
     {0.205882132f, 0.0309072305f, 0.999971628f, 0.25f, 0.666456938f, 0.562750876f, 0.530838192f, 0.0f, 0.0f},
     {0.931246042f, 0.146067873f, 8.60644504e-05f, 0.0500000007f, 0.707432568f, 0.595257342f, 0.664992094f, 0.0f, 0.0f}},
    {"pattern", 0, 1217,
     {0.03125f, 0.03125f, 0.840187728f, 0.03125f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f},
     {1.875f, 1.875f, 0.950885296f, 0.03125f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f}},
    {"pattern", 7, 1217,
     {0.03125f, 0.03125f, 0.486904144f, 0.03125f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f},
     {1.875f, 1.875f, 0.395154536f, 0.03125f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f}},
    {"micro2M", 0, 2000000,
     {0.133219883f, 0.590876698f, 0.999998927f, 0.00100000005f, 0.549088955f, 0.10934414f, 0.307889223f, 0.0f, 0.0f},
     {0.129334643f, 0.967368722f, 5.63450158e-07f, 0.00100000005f, 0.398064494f, 0.383516878f, 0.244512782f, 0.0f, 0.0f}},
    {"micro2M", 7, 2000000,
     {0.697484851f, 0.666374266f, 0.999999225f, 0.00100000005f, 1.03223038f, 0.336196333f, 0.294630587f, 0.0f, 0.0f},
     {0.379653871f, 0.335530102f, 5.3178519e-07f, 0.00100000005f, 1.10541916f, 0.387878448f, 0.324523807f, 0.0f, 0.0f}},
    {"bouncingballs", 0, 10,
     {0.840187728f, 0.394382924f, 0.783099234f, 0.0500000007f, 1.0f, 0.0f, 0.0f, 0.0f, 0.798440039f},
     {0.493582994f, 0.972775042f, 0.292516798f, 0.0500000007f, 1.0f, 0.0f, 0.0f, 0.0f, 0.771357715f}},
    {"bouncingballs", 7, 10,
     {0.486904144f, 0.86797744f, 0.592591166f, 0.0500000007f, 1.0f, 0.0f, 0.0f, 0.0f, 0.214709833f},
     {0.288963288f, 0.733485341f, 0.982543409f, 0.0500000007f, 1.0f, 0.0f, 0.0f, 0.0f, 0.89052856f}},
    {"fireworks", 0, 315,
     {0.840187728f, 0.394382924f, 0.0f, 0.00499999989f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f},
     {1.00367975f, 0.216711804f, 0.0f, 0.00999999978f, 0.0f, 0.0f, 1.0f, 0.190211013f, -0.0618042946f}},
    {"fireworks", 7, 315,
     {0.486904144f, 0.86797744f, 0.0f, 0.00499999989f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f},
     {0.040678367f, 0.0708620697f, 0.0f, 0.00999999978f, 0.0f, 0.0f, 1.0f, 0.190211013f, -0.0618042946f}},
    {"hypnosis", 0, 25,
     {0.5f, 0.5f, 0.0f, 0.0199999996f, 0.840187728f, 0.394382924f, 0.783099234f, 0.0f, 0.0f},
     {0.5f, 0.5f, 0.0f, 0.5f, 0.437637597f, 0.931835055f, 0.930809796f, 0.0f, 0.0f}},
    {"hypnosis", 7, 25,
     {0.5f, 0.5f, 0.0f, 0.0199999996f, 0.486904144f, 0.86797744f, 0.592591166f, 0.0f, 0.0f},
     {0.5f, 0.5f, 0.0f, 0.5f, 0.417906821f, 0.449784249f, 0.58113724f, 0.0f, 0.0f}},
    {"snow", 0, 100000,
     {0.539427042f, 1.4494741f, 1.0f, 0.00749999983f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f},
     {0.535151541f, 1.45469987f, 0.0340187736f, 0.0821786225f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f}},
    {"snow", 7, 100000,
     {0.660175562f, 2.87445211f, 1.0f, 0.00749999983f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f},
     {0.0297074318f, 1.44050741f, 0.0f, 0.256171435f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f}},
    {"snowsingle", 0, 100000,
     {0.539427042f, 0.220987022f, 1.0f, 0.00749999983f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f},
     {0.535151541f, 0.186260626f, 0.0340187736f, 0.0821786225f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f}},
    {"snowsingle", 7, 100000,
     {0.660175562f, 0.933476031f, 1.0f, 0.00749999983f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f},
     {0.0297074318f, 0.0921679959f, 0.0f, 0.256171435f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f}},
    {"rand10M", 0, 10000000,
     {0.412950456f, 0.101646438f, 0.999999702f, 0.00956133101f, 0.44427526f, 0.826117873f, 0.156083629f, 0.0f, 0.0f},
     {0.725841641f, 0.454396248f, 1.72294676e-08f, 0.0134463403f, 0.542442143f, 0.855852842f, 0.200946182f, 0.0f, 0.0f}},
    {"rand10M", 7, 10000000,
     {0.79564321f, 0.455040187f, 0.99999994f, 0.0117814541f, 0.492668509f, 0.849255085f, 0.315147251f, 0.0f, 0.0f},
     {0.519901276f, 0.215327814f, 1.0849908e-07f, 0.0110379858f, 0.659374774f, 0.666609049f, 0.22452803f, 0.0f, 0.0f}},
};

Circle circle_at(const cr::Scene& s, size_t i) {
    return Circle{s.x[i], s.y[i], s.z[i], s.radius[i], s.r[i], s.g[i], s.b[i], s.vx[i], s.vy[i]};
}

void expect_circle(const Circle& got, const Circle& want, const std::string& what) {
    EXPECT_EQ(got.x, want.x) << what << " x";
    EXPECT_EQ(got.y, want.y) << what << " y";
    EXPECT_EQ(got.z, want.z) << what << " z";
    EXPECT_EQ(got.radius, want.radius) << what << " radius";
    EXPECT_EQ(got.r, want.r) << what << " r";
    EXPECT_EQ(got.g, want.g) << what << " g";
    EXPECT_EQ(got.b, want.b) << what << " b";
    EXPECT_EQ(got.vx, want.vx) << what << " vx";
    EXPECT_EQ(got.vy, want.vy) << what << " vy";
}

void expect_all_arrays_sized(const cr::Scene& s) {
    const size_t n = s.count();
    for (const auto* v : {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.radius, &s.r, &s.g, &s.b})
        EXPECT_EQ(v->size(), n);
}

class SceneGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(SceneGolden, CountAndFirstLastCircleForSeeds0And7) {
    const std::string name = GetParam();
    int found = 0;
    for (const Golden& g : kGolden) {
        if (name != g.scene) continue;
        ++found;
        const cr::Scene s = cr::make_scene(name, g.seed);
        const std::string what = name + " seed " + std::to_string(g.seed);
        ASSERT_EQ(s.count(), g.count) << what;
        EXPECT_EQ(cr::scene_circle_count(name), g.count) << what;
        EXPECT_EQ(s.name, name);
        EXPECT_EQ(s.seed, g.seed);
        expect_all_arrays_sized(s);
        expect_circle(circle_at(s, 0), g.first, what + " first circle");
        expect_circle(circle_at(s, s.count() - 1), g.last, what + " last circle");
    }
    EXPECT_EQ(found, 2) << "golden values for seeds 0 and 7 of " << name;
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(AllScenes, SceneGolden, ::testing::ValuesIn(cr::scene_names()), param_name);

TEST(SceneNames, TheFifteenScenesInCourseOrder) {
    const std::vector<std::string> want = {"rgb",     "rgby",     "rand10k",       "rand100k",  "rand1M",
                                           "biglittle", "littlebig", "pattern",     "micro2M",   "bouncingballs",
                                           "fireworks", "hypnosis", "snow",         "snowsingle", "rand10M"};
    EXPECT_EQ(cr::scene_names(), want);
    for (const auto& n : want) EXPECT_TRUE(cr::is_scene_name(n)) << n;
    EXPECT_FALSE(cr::is_scene_name("RGB"));
    EXPECT_FALSE(cr::is_scene_name(""));
}

TEST(SceneNames, CountsWithoutGenerating) {
    EXPECT_EQ(cr::scene_circle_count("rgb"), 3u);
    EXPECT_EQ(cr::scene_circle_count("rgby"), 4u);
    EXPECT_EQ(cr::scene_circle_count("rand10k"), 10000u);
    EXPECT_EQ(cr::scene_circle_count("rand100k"), 100000u);
    EXPECT_EQ(cr::scene_circle_count("rand1M"), 1000000u);
    EXPECT_EQ(cr::scene_circle_count("rand10M"), 10000000u);
    EXPECT_EQ(cr::scene_circle_count("biglittle"), 10000u);
    EXPECT_EQ(cr::scene_circle_count("littlebig"), 10000u);
    EXPECT_EQ(cr::scene_circle_count("micro2M"), 2000000u);
    EXPECT_EQ(cr::scene_circle_count("pattern"), 1217u);
    EXPECT_EQ(cr::scene_circle_count("bouncingballs"), 10u);
    EXPECT_EQ(cr::scene_circle_count("fireworks"), 315u);
    EXPECT_EQ(cr::scene_circle_count("hypnosis"), 25u);
    EXPECT_EQ(cr::scene_circle_count("snow"), 100000u);
    EXPECT_EQ(cr::scene_circle_count("snowsingle"), 100000u);
}

TEST(SceneNames, UnknownSceneThrowsInvalidArgumentListingValidNames) {
    for (const char* bad : {"nope", "", "RGB", "rand10K"}) {
        try {
            cr::make_scene(bad, 0);
            FAIL() << "make_scene('" << bad << "') did not throw";
        } catch (const std::invalid_argument& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(std::string("'") + bad + "'"), std::string::npos) << msg;
            for (const auto& n : cr::scene_names()) EXPECT_NE(msg.find(n), std::string::npos) << n << " in " << msg;
        }
        EXPECT_THROW(cr::scene_circle_count(bad), std::invalid_argument);
    }
}

// ---- constant scenes, recomputed from the spec --------------------------------

void expect_flat_still(const cr::Scene& s) {
    EXPECT_EQ(s.shade, cr::ShadeMode::Flat);
    EXPECT_EQ(s.motion, cr::Motion::None);
    for (size_t i = 0; i < s.count(); ++i) {
        EXPECT_EQ(s.vx[i], 0.f);
        EXPECT_EQ(s.vy[i], 0.f);
        EXPECT_EQ(s.vz[i], 0.f);
    }
}

TEST(HandScenes, RgbIsTheSpecsThreeCircles) {
    for (uint32_t seed : {0u, 7u}) {
        const cr::Scene s = cr::make_scene("rgb", seed);
        ASSERT_EQ(s.count(), 3u);
        expect_circle(circle_at(s, 0), {.4f, .5f, .75f, .3f, 1, 0, 0, 0, 0}, "red");
        expect_circle(circle_at(s, 1), {.5f, .5f, .5f, .3f, 0, 1, 0, 0, 0}, "green");
        expect_circle(circle_at(s, 2), {.6f, .5f, .25f, .3f, 0, 0, 1, 0, 0}, "blue");
        expect_flat_still(s);
    }
}

TEST(HandScenes, RgbyIsTheSpecsFourCircles) {
    const cr::Scene s = cr::make_scene("rgby", 0);
    ASSERT_EQ(s.count(), 4u);
    expect_circle(circle_at(s, 0), {.25f, .25f, .75f, .19f, 1, 0, 0, 0, 0}, "red");
    expect_circle(circle_at(s, 1), {.3f, .3f, .5f, .19f, 0, 1, 0, 0, 0}, "green");
    expect_circle(circle_at(s, 2), {.5f, .5f, .25f, .25f, 0, 0, 1, 0, 0}, "blue");
    expect_circle(circle_at(s, 3), {.2f, .2f, .9f, .1f, 1, 1, 0, 0, 0}, "yellow");
    expect_flat_still(s);
}

TEST(HandScenes, PatternGridsAndDepthDraws) {
    for (uint32_t seed : {0u, 7u}) {
        const cr::Scene s = cr::make_scene("pattern", seed);
        ASSERT_EQ(s.count(), 1217u);
        expect_flat_still(s);
        const float r = .5f / 16.f;
        EXPECT_EQ(r, 0.03125f);
        cr::GlibcRand u(seed);
        size_t k = 0;
        for (int j = 0; j < 16; ++j)
            for (int i = 0; i < 16; ++i, ++k) {
                const float z = u.next_float();
                ASSERT_EQ(s.x[k], r + 2.f * r * static_cast<float>(i)) << k;
                ASSERT_EQ(s.y[k], r + 2.f * r * static_cast<float>(j)) << k;
                ASSERT_EQ(s.z[k], z) << k;
                ASSERT_EQ(s.radius[k], r) << k;
                ASSERT_EQ(s.r[k], 1.f);
                ASSERT_EQ(s.g[k], 0.f);
                ASSERT_EQ(s.b[k], 0.f);
            }
        for (int j = 0; j < 31; ++j)
            for (int i = 0; i < 31; ++i, ++k) {
                const float z = u.next_float();
                ASSERT_EQ(s.x[k], 2.f * r * static_cast<float>(i)) << k;
                ASSERT_EQ(s.y[k], 2.f * r * static_cast<float>(j)) << k;
                ASSERT_EQ(s.z[k], z) << k;
                ASSERT_EQ(s.radius[k], r) << k;
                ASSERT_EQ(s.r[k], 1.f);
                ASSERT_EQ(s.g[k], 1.f);
                ASSERT_EQ(s.b[k], 0.f);
            }
        // Spot values written out by hand: red (1,1) and yellow (3,2).
        EXPECT_EQ(s.x[17], 0.09375f);
        EXPECT_EQ(s.y[17], 0.09375f);
        EXPECT_EQ(s.x[256], 0.f);
        EXPECT_EQ(s.x[256 + 2 * 31 + 3], 0.1875f);
        EXPECT_EQ(s.y[256 + 2 * 31 + 3], 0.125f);
    }
}

TEST(HandScenes, HypnosisRingsAndColors) {
    for (uint32_t seed : {0u, 7u}) {
        const cr::Scene s = cr::make_scene("hypnosis", seed);
        ASSERT_EQ(s.count(), 25u);
        EXPECT_EQ(s.motion, cr::Motion::Hypnosis);
        cr::GlibcRand u(seed);
        for (size_t i = 0; i < 25; ++i) {
            const float cr_ = u.next_float(), cg = u.next_float(), cb = u.next_float();
            expect_circle(circle_at(s, i), {.5f, .5f, 0.f, .02f + .02f * static_cast<float>(i), cr_, cg, cb, 0, 0},
                          "hypnosis " + std::to_string(i));
        }
        EXPECT_EQ(s.radius[0], .02f);
        EXPECT_EQ(s.radius[24], .5f);  // .02f + .02f * 24 rounds to exactly .5f
    }
}

TEST(HandScenes, FireworksCentersAndSparks) {
    for (uint32_t seed : {0u, 7u}) {
        const cr::Scene s = cr::make_scene("fireworks", seed);
        ASSERT_EQ(s.count(), 315u);
        EXPECT_EQ(s.motion, cr::Motion::Fireworks);
        ASSERT_EQ(s.aux_x.size(), 315u);
        ASSERT_EQ(s.aux_y.size(), 315u);
        const float pi = 3.14159f;
        const float rgb[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        cr::GlibcRand u(seed);
        for (int f = 0; f < 15; ++f) {
            const float cx = u.next_float(), cy = u.next_float();
            expect_circle(circle_at(s, f), {cx, cy, 0.f, .005f, 1, 1, 1, 0, 0}, "firework " + std::to_string(f));
            for (int j = 0; j < 20; ++j) {
                const size_t k = 15 + 20 * f + j;
                const float a = static_cast<float>(j) * 2.f * pi / 20.f;
                const float c = std::cos(a), sn = std::sin(a);
                const Circle want{cx + c * .005f, cy + sn * .005f, 0.f, .01f,
                                  rgb[f % 3][0], rgb[f % 3][1], rgb[f % 3][2], c / 5.f, sn / 5.f};
                expect_circle(circle_at(s, k), want, "spark " + std::to_string(k));
                EXPECT_EQ(s.aux_x[k], want.x);
                EXPECT_EQ(s.aux_y[k], want.y);
            }
        }
        // Spark j = 0 of firework 0 points along +x: exactly (.2, 0).
        EXPECT_EQ(s.vx[15], .2f);
        EXPECT_EQ(s.vy[15], 0.f);
    }
}

TEST(HandScenes, BouncingBallsDrawOrder) {
    for (uint32_t seed : {0u, 7u}) {
        const cr::Scene s = cr::make_scene("bouncingballs", seed);
        ASSERT_EQ(s.count(), 10u);
        EXPECT_EQ(s.motion, cr::Motion::BouncingBalls);
        const float rgb[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        cr::GlibcRand u(seed);
        for (size_t i = 0; i < 10; ++i) {
            const float x = u.next_float(), y = u.next_float(), z = u.next_float(), vy = u.next_float();
            expect_circle(circle_at(s, i), {x, y, z, .05f, rgb[i % 3][0], rgb[i % 3][1], rgb[i % 3][2], 0.f, vy},
                          "ball " + std::to_string(i));
        }
    }
}

TEST(RandTenK, FirstCircleRecomputedFromTheSpec) {
    for (uint32_t seed : {0u, 7u}) {
        cr::GlibcRand u(seed);
        std::vector<float> depth(10000);
        for (auto& d : depth) d = u.next_float();
        std::sort(depth.begin(), depth.end(), [](float a, float b) { return a > b; });
        const float radius = .02f + .06f * u.next_float();
        const float x = u.next_float();
        const float y = u.next_float();
        const float r = .1f + .9f * u.next_float();
        const float g = .2f + .5f * u.next_float();
        const float b = .5f + .5f * u.next_float();
        const cr::Scene s = cr::make_scene("rand10k", seed);
        expect_circle(circle_at(s, 0), {x, y, depth[0], radius, r, g, b, 0, 0}, "rand10k first");
        // Depths are sorted descending over the whole scene.
        EXPECT_TRUE(std::is_sorted(s.z.begin(), s.z.end(), [](float a, float b) { return a > b; }));
        EXPECT_EQ(s.z.back(), depth.back());
    }
}

TEST(Snow, FlakesStartAboveThePictureAndUseSnowShading) {
    const cr::Scene s = cr::make_scene("snow", 0);
    EXPECT_EQ(s.shade, cr::ShadeMode::Snow);
    EXPECT_EQ(s.motion, cr::Motion::Snow);
    for (size_t i = 0; i < s.count(); ++i) ASSERT_GE(s.y[i] - s.radius[i], 1.f - 1e-6f) << i;
    const cr::Scene still = cr::make_scene("snowsingle", 0);
    EXPECT_EQ(still.shade, cr::ShadeMode::Snow);
    EXPECT_EQ(still.motion, cr::Motion::None);
    // Same depths, radii and x; snowsingle spreads y over the picture.
    EXPECT_EQ(still.z, s.z);
    EXPECT_EQ(still.radius, s.radius);
    EXPECT_EQ(still.x, s.x);
}

// ---- one animation step ----------------------------------------------------------

constexpr float kDt = 1.f / 60.f;

TEST(Animation, BouncingBallFallsOneStep) {
    cr::Scene s = cr::make_scene("bouncingballs", 0);
    const cr::Scene before = s;
    cr::advance_circles(s, 0, static_cast<int64_t>(s.count()));
    // Ball 0: y = .394382924, vy = .798440039 (above the floor, no bounce).
    const float vy = 0.798440039f + (-2.8f * kDt);
    const float y = 0.394382924f + vy * kDt;
    EXPECT_EQ(s.vy[0], vy);
    EXPECT_EQ(s.y[0], y);
    EXPECT_NEAR(s.vy[0], 0.798440039 - 2.8 / 60, 1e-6);
    EXPECT_NEAR(s.y[0], 0.394382924 + (0.798440039 - 2.8 / 60) / 60, 1e-6);
    EXPECT_EQ(s.x, before.x);
    EXPECT_EQ(s.radius, before.radius);
    EXPECT_EQ(s.vx, before.vx);
}

TEST(Animation, BouncingBallBouncesRestsAndStops) {
    cr::Scene s;
    s.resize(3);
    s.motion = cr::Motion::BouncingBalls;
    s.y[0] = -.01f;  // below the floor, falling: bounces
    s.vy[0] = -1.f;
    s.y[1] = 0.f;  // at rest: unchanged
    s.vy[1] = 0.f;
    s.y[2] = -.0001f;  // a bounce that nearly cancels gravity: comes to rest
    s.vy[2] = -.0259259f;
    cr::anim::step_circle(static_cast<int>(cr::Motion::BouncingBalls), cr::circle_arrays(s), 0);
    cr::anim::step_circle(static_cast<int>(cr::Motion::BouncingBalls), cr::circle_arrays(s), 1);
    cr::anim::step_circle(static_cast<int>(cr::Motion::BouncingBalls), cr::circle_arrays(s), 2);
    const float vy0 = (-1.f * -.8f) + (-2.8f * kDt);  // .8 - .04666667
    EXPECT_EQ(s.vy[0], vy0);
    EXPECT_EQ(s.y[0], -.01f + vy0 * kDt);
    EXPECT_NEAR(s.vy[0], 0.7533333, 1e-6);
    EXPECT_EQ(s.y[1], 0.f);
    EXPECT_EQ(s.vy[1], 0.f);
    EXPECT_EQ(s.y[2], 0.f);
    EXPECT_EQ(s.vy[2], 0.f);
}

TEST(Animation, HypnosisGrowsAndWraps) {
    cr::Scene s = cr::make_scene("hypnosis", 0);
    cr::advance_circles(s, 0, static_cast<int64_t>(s.count()));
    EXPECT_EQ(s.radius[0], .02f + .01f);
    EXPECT_EQ(s.radius[1], .04f + .01f);
    EXPECT_EQ(s.radius[24], .5f + .01f);  // .5 is not > .5: it still grows
    cr::advance_circles(s, 0, static_cast<int64_t>(s.count()));
    EXPECT_EQ(s.radius[24], .02f);  // .51 > .5 wraps to .02
    EXPECT_EQ(s.radius[0], (.02f + .01f) + .01f);
    EXPECT_EQ(s.x[0], .5f);
}

TEST(Animation, FireworkSparkMovesAndRestarts) {
    cr::Scene s = cr::make_scene("fireworks", 0);
    const cr::Scene before = s;
    // Spark 16 (firework 0, j = 1) is moved .3 away from its center: restarts.
    s.x[16] = s.x[0] + .3f;
    cr::advance_circles(s, 0, static_cast<int64_t>(s.count()));
    // Spark 15 (firework 0, j = 0): velocity (.2, 0).
    EXPECT_EQ(s.x[15], before.x[15] + .2f * kDt);
    EXPECT_EQ(s.y[15], before.y[15] + 0.f * kDt);
    EXPECT_EQ(s.x[16], before.aux_x[16]);
    EXPECT_EQ(s.y[16], before.aux_y[16]);
    // Firework centers stay.
    for (int f = 0; f < 15; ++f) {
        EXPECT_EQ(s.x[f], before.x[f]);
        EXPECT_EQ(s.y[f], before.y[f]);
    }
    // The last spark moves by its own velocity.
    EXPECT_EQ(s.x[314], before.x[314] + before.vx[314] * kDt);
    EXPECT_EQ(s.y[314], before.y[314] + before.vy[314] * kDt);
}

TEST(Animation, FireworkSparkRestartsAfterTravellingPastQuarter) {
    cr::Scene s = cr::make_scene("fireworks", 0);
    // Speed .2 per second: .005 + .2 t > .25 first at t > 1.225 s = 73.5 steps.
    int restarted_at = -1;
    for (int f = 0; f < 100 && restarted_at < 0; ++f) {
        cr::advance_circles(s, 0, static_cast<int64_t>(s.count()));
        if (s.x[15] == s.aux_x[15] && s.y[15] == s.aux_y[15]) restarted_at = f;
    }
    EXPECT_EQ(restarted_at, 73);
}

TEST(Animation, StillScenesDoNotMove) {
    cr::Scene s = cr::make_scene("rgb", 0);
    const cr::Scene before = s;
    cr::advance_circles(s, 0, 3);
    EXPECT_EQ(s.x, before.x);
    EXPECT_EQ(s.y, before.y);
    EXPECT_EQ(s.radius, before.radius);
}

TEST(Animation, LinearMotionAddsVelocityTimesDt) {
    cr::Scene s;
    s.resize(1);
    s.motion = cr::Motion::Linear;
    s.x[0] = .5f;
    s.y[0] = .25f;
    s.z[0] = .1f;
    s.vx[0] = 6.f;
    s.vy[0] = -3.f;
    s.vz[0] = .6f;
    cr::advance_circles(s, 0, 1);
    EXPECT_EQ(s.x[0], .5f + 6.f * kDt);
    EXPECT_EQ(s.y[0], .25f + -3.f * kDt);
    EXPECT_EQ(s.z[0], .1f + .6f * kDt);
    EXPECT_NEAR(s.x[0], .6f, 1e-6f);
}

}  // namespace
