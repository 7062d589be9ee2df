// The course's score formula (hand-computed cases), reading the course
// program's Total line, and the pixel story of a failed check.
#include <gtest/gtest.h>

#include "render/grading.h"
#include "render/pixel_story.h"
#include "scenes/scene.h"

namespace cr {
namespace {

TEST(Grading, ScoreFormula) {
    EXPECT_EQ(course_scene_score(false, 1.0, 1.0), 0);
    EXPECT_EQ(course_scene_score(true, 0.5, 1.0), 9);
    EXPECT_EQ(course_scene_score(true, 1.2, 1.0), 9);    // within 1.2 T_ref: full marks
    EXPECT_EQ(course_scene_score(true, 1.21, 1.0), 8);   // 2 + ceil(7 / 1.21 = 5.79)
    EXPECT_EQ(course_scene_score(true, 2.0, 1.0), 6);    // 2 + ceil(3.5)
    EXPECT_EQ(course_scene_score(true, 3.5, 1.0), 4);    // 2 + ceil(2.0)
    EXPECT_EQ(course_scene_score(true, 7.0, 1.0), 3);    // 2 + ceil(1.0)
    EXPECT_EQ(course_scene_score(true, 10.0, 1.0), 3);   // 2 + ceil(0.7): 10 T_ref is not yet "more than 10"
    EXPECT_EQ(course_scene_score(true, 10.01, 1.0), 2);
    EXPECT_EQ(course_scene_score(true, 0.84, 0.2), 4);   // 4.2 T_ref: 2 + ceil(1.67)
    EXPECT_EQ(course_scored_scenes().size() * kCourseSceneMax, 72u);
}

TEST(Grading, CourseTotalLine) {
    EXPECT_EQ(parse_course_total_ms("Clear:    0.1000 ms\nTotal:    1.2345 ms\n"), 1.2345);
    EXPECT_EQ(parse_course_total_ms("Total: 3.5 ms\nmore\nTotal:   2.25 ms\n"), 2.25);  // the last one
    EXPECT_FALSE(parse_course_total_ms("Render: 1 ms\n").has_value());
}

TEST(PixelStory, RgbCenterBlendsRedGreenBlueInOrder) {
    // Pixel (128, 128) of rgb at 256x256 lies in all three circles; with alpha
    // .5 each blend halves the distance to the circle's color, exactly.
    const PixelStory st = pixel_story(make_scene("rgb"), 256, 256, 128, 128);
    EXPECT_EQ(st.background[0], 1.f);
    ASSERT_EQ(st.covering, 3u);
    ASSERT_EQ(st.steps.size(), 3u);
    EXPECT_EQ(st.steps[0].circle, 0u);
    EXPECT_EQ(st.steps[2].circle, 2u);
    const float want[3][3] = {{1.f, .5f, .5f}, {.5f, .75f, .25f}, {.25f, .375f, .625f}};
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c) EXPECT_EQ(st.steps[k].after[c], want[k][c]) << "step " << k << " channel " << c;
    EXPECT_EQ(st.final_rgba[3], 2.5f);  // alpha 1 + 3 x .5
}

TEST(PixelStory, FirstMismatchesAndTheReport) {
    Image ref(8, 4), test(8, 4);
    test.pixel(3, 2)[1] = .5f;
    test.pixel(6, 2)[0] = 1e-5f;  // within the strict tolerance
    const auto m = first_mismatches(test, ref, 1e-4f, 5);
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0].x, 3);
    EXPECT_EQ(m[0].y, 2);
    EXPECT_EQ(m[0].got[1], .5f);
    Scene none;
    const std::string text = describe_mismatches(test, ref, 1e-4f, 1, none);
    EXPECT_NE(text.find("(3, 2): expected (0.0000, 0.0000, 0.0000), got (0.0000, 0.5000, 0.0000)"), std::string::npos)
        << text;
    EXPECT_NE(text.find("no circle covers it"), std::string::npos) << text;
}

TEST(PixelStory, SceneAtFrameAdvancesOnTheCpu) {
    const Scene s = make_scene("hypnosis");
    const Scene t = scene_at_frame(s, 3);
    EXPECT_EQ(t.radius[0], s.radius[0] + .01f + .01f + .01f);
}

}  // namespace
}  // namespace cr
