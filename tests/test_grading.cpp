// The course's score formula (hand-computed cases), reading the course
// program's Total line, the grade's scenes and snow.par, the course's timing
// run of a fresh process, and the pixel story of a failed check.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/file_checks.h"
#include "render/compare.h"
#include "render/frame_loop.h"
#include "render/grade_checks.h"
#include "render/grading.h"
#include "render/image_io.h"
#include "render/pixel_story.h"
#include "render/reference_cache.h"
#include "render/renderer_factory.h"
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

TEST(Grading, TimingStopsOnlyWhenTheScoreCannotChange) {
    EXPECT_TRUE(timing_settled(false, 0.5, 1.0));      // incorrect: 0 points whatever the time
    EXPECT_TRUE(timing_settled(true, 12.51, 1.0));     // above 12.5 T_ref: 2 points unless a run is 20% faster
    EXPECT_FALSE(timing_settled(true, 12.5, 1.0));
    EXPECT_FALSE(timing_settled(true, 11.0, 1.0));     // above the floor (10 T_ref) but close: all 3 runs
    EXPECT_FALSE(timing_settled(true, 1e9, std::nullopt));  // T_ref not known yet
    EXPECT_TRUE(timing_settled(true, 1.2, 1.0));       // 9 points, and a steady time: other runs move it < 1%
    EXPECT_TRUE(timing_settled(true, 30.2, 25.4));     // rand1M of the H200's grade: 9 points after one run
    EXPECT_FALSE(timing_settled(true, 1.21, 1.0));     // 8 points: a faster run would give 9
    EXPECT_FALSE(timing_settled(true, 0.107, 0.094));  // 9 points, but rgb's runs spread by up to 20%: all 3 runs
    EXPECT_EQ(course_scene_score(true, 12.51, 1.0), 2);
}

TEST(Grading, TheReferenceStopsOnlyWhenItsOtherRunsCannotChangeTheScore) {
    EXPECT_TRUE(reference_settled(false, 0.5, 1.0));      // incorrect: 0 points whatever T_ref
    EXPECT_TRUE(reference_settled(true, 12.51, 1.0));     // 2 points: a lower T_ref keeps T above 12.5 T_ref
    EXPECT_TRUE(reference_settled(true, 1.1759, 1.0));    // 9 points unless another run were 2% faster
    EXPECT_FALSE(reference_settled(true, 1.1761, 1.0));   // within 1.2 T_ref, but not with 2% to spare
    EXPECT_TRUE(reference_settled(true, 4.6544, 4.3015)); // rand100k of the H200's grade: 1.082 T_ref
    EXPECT_FALSE(reference_settled(true, 30.2086, 25.411));  // rand1M there: 1.189 T_ref, all 3 reference runs
    EXPECT_FALSE(reference_settled(true, 0.102, 0.1055)); // rgb: T_ref under 1 ms spreads by up to 20%
    EXPECT_FALSE(reference_settled(true, 5.0, 1.0));      // between: a lower T_ref lowers the score
    EXPECT_FALSE(reference_settled(true, 1.0, 0.0));
}

TEST(Grading, TheRunsOfASceneComeInThePlannedOrder) {
    SceneRuns r;
    EXPECT_EQ(next_timing_run(r), NextRun::Reference);  // one run of each first
    r.ref_runs = 1;
    r.t_ref_ms = 4.3015;
    EXPECT_EQ(next_timing_run(r), NextRun::Student);
    r.stu_runs = 1;
    r.t_ms = 4.6544;
    EXPECT_EQ(next_timing_run(r), NextRun::Done);  // 9 points with 2% to spare, from 1 ms on: 2 runs, not 6
    r.t_ms = 30.2086 / 25.411 * 4.3015;            // rand1M's ratio, 1.189: the reference's other runs first
    EXPECT_EQ(next_timing_run(r), NextRun::Reference);
    r.ref_runs = 3;
    EXPECT_EQ(next_timing_run(r), NextRun::Done);  // then 9 points at a steady T: no more of the student's

    SceneRuns small;  // rgb: under 1 ms both sides make 3 runs
    small.ref_runs = 1;
    small.t_ref_ms = 0.1055;
    small.stu_runs = 1;
    small.t_ms = 0.102;
    EXPECT_EQ(next_timing_run(small), NextRun::Reference);
    small.ref_runs = 3;
    EXPECT_EQ(next_timing_run(small), NextRun::Student);
    small.stu_runs = 3;
    EXPECT_EQ(next_timing_run(small), NextRun::Done);

    SceneRuns wrong = small;  // incorrect: one run each
    wrong.correct = false;
    wrong.ref_runs = wrong.stu_runs = 1;
    EXPECT_EQ(next_timing_run(wrong), NextRun::Done);

    SceneRuns faster;  // T_ref steady, T under 1 ms: the reference stops, T gets its 3 runs
    faster.ref_runs = faster.stu_runs = 1;
    faster.t_ref_ms = 1.0;
    faster.t_ms = 0.9;
    EXPECT_EQ(next_timing_run(faster), NextRun::Student);
    faster.stu_runs = 3;
    EXPECT_EQ(next_timing_run(faster), NextRun::Done);

    SceneRuns given;  // --ref-times: no reference run at all
    given.ref_given = true;
    given.t_ref_ms = 1.0;
    EXPECT_EQ(next_timing_run(given), NextRun::Student);
    given.stu_runs = 1;
    given.t_ms = 5.0;  // 4 points: a faster run could give more
    EXPECT_EQ(next_timing_run(given), NextRun::Student);
    given.stu_runs = 3;
    EXPECT_EQ(next_timing_run(given), NextRun::Done);

    SceneRuns kept;  // one run kept from an earlier grade counts as made
    kept.ref_runs = 1;
    kept.t_ref_ms = 1.0;
    EXPECT_EQ(next_timing_run(kept), NextRun::Student);
    kept.stu_runs = 1;  // its run gave no time (a fault): nothing more to learn
    EXPECT_EQ(next_timing_run(kept), NextRun::Done);
}

TEST(Grading, CourseTotalLine) {
    EXPECT_EQ(parse_course_total_ms("Clear:    0.1000 ms\nTotal:    1.2345 ms\n"), 1.2345);
    EXPECT_EQ(parse_course_total_ms("Total: 3.5 ms\nmore\nTotal:   2.25 ms\n"), 2.25);  // the last one
    EXPECT_FALSE(parse_course_total_ms("Render: 1 ms\n").has_value());
}

namespace fs = std::filesystem;
using cr::testing_files::TempDir;

TEST(GradeScenes, WithoutASnowParBothSidesDrawTheStandInWrittenForTheReference) {
    TempDir folder("grading"), scratch("grading_scratch");
    student::CourseFolder f;
    f.dir = folder.dir().string();
    const GradeScenes scenes(f, scratch.dir());
    const Scene drawn = scenes.make("snowsingle", 0);
    const Scene stand_in = make_scene("snowsingle", 0);
    ASSERT_EQ(drawn.count(), stand_in.count());
    const Scene read_back = load_particle_file((scratch.dir() / "snow.par").string());
    ASSERT_EQ(read_back.count(), stand_in.count());
    for (size_t i = 0; i < stand_in.count(); ++i) {  // %.9g and strtof give back every float exactly
        ASSERT_EQ(read_back.x[i], stand_in.x[i]) << i;
        ASSERT_EQ(read_back.y[i], stand_in.y[i]) << i;
        ASSERT_EQ(read_back.z[i], stand_in.z[i]) << i;
        ASSERT_EQ(read_back.radius[i], stand_in.radius[i]) << i;
    }
    EXPECT_EQ(scenes.particle_note().rfind("snowsingle: neither your folder nor the working folder has a snow.par", 0), 0u)
        << scenes.particle_note();
    EXPECT_EQ(scenes.make("rand10k", 7).x, make_scene("rand10k", 7).x);
}

TEST(GradeScenes, TheStudentsSnowParIsWhatBothSidesRead) {
    TempDir folder("grading"), scratch("grading_scratch");
    std::ofstream(folder.dir() / "snow.par") << "3\n.1 .2 .3 0 0 0 .05\n.4 .5 .6 0 0 0 .06\n.7 .8 .9 0 0 0 .07\n";
    student::CourseFolder f;
    f.dir = folder.dir().string();
    f.snow_par = (folder.dir() / "snow.par").string();
    const GradeScenes scenes(f, scratch.dir());
    const Scene s = scenes.make("snowsingle", 0);
    ASSERT_EQ(s.count(), 3u);
    EXPECT_EQ(s.radius[2], .07f);
    EXPECT_EQ(fs::read_symlink(scratch.dir() / "snow.par"), f.snow_par);
    EXPECT_EQ(scenes.particle_note(),
              "snowsingle: your renderer and the reference both read your folder's snow.par (3 flakes)");
}

TEST(CourseProcess, FramesZeroToFourWithThePpmFilesBetween) {
    TempDir out("grading_out");
    auto cpu = make_renderer("cpu");
    const Scene s = make_scene("rand10k", 0);
    const FrameTimes t = run_course_process(*cpu, s, 64, 48, FrameRange{0, 4}, (out.dir() / "output").string());
    EXPECT_EQ(t.counted, 4);
    EXPECT_GT(t.render_ms, 0.0);
    EXPECT_DOUBLE_EQ(t.total_ms, t.clear_ms + t.advance_ms + t.render_ms);
    for (int f = 0; f < 4; ++f) {
        char name[32];
        std::snprintf(name, sizeof name, "output_%04d.ppm", f);
        ASSERT_TRUE(fs::exists(out.dir() / name)) << name;
        EXPECT_EQ(fs::file_size(out.dir() / name), 13u + 64 * 48 * 3) << name;  // "P6\n64 48\n255\n" + pixels
    }
    EXPECT_FALSE(fs::exists(out.dir() / "output_0004.ppm"));
    auto cpuref = make_renderer("cpuref");  // no warm-up changed the frames: frame 3 is the 4th frame's image
    const Image last = render_last_frame(*cpuref, s, 64, 48, 4);
    EXPECT_TRUE(compare_images(cpu->image(), last).pass);
}

TEST(LiveReference, IsTheMultiCoreRendererExceptForItself) {
    EXPECT_EQ(make_live_reference()->name(), "cpu");
    EXPECT_EQ(make_live_reference("tiled")->name(), "cpu");
    EXPECT_EQ(make_live_reference("cpu")->name(), "cpuref");
    EXPECT_EQ(live_reference_label("student"),
              "cpuref (live, drawn by the multi-core 'cpu' renderer, bit-identical to cpuref)");
    EXPECT_EQ(live_reference_label("cpu"), "cpuref (live)");
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

// ---- the T_ref cache of render grade -----------------------------------------

/// Writes `text` to the file `name` in `d`; returns its path.
std::string put_file(const TempDir& d, const std::string& name, const std::string& text) {
    std::ofstream(d.dir() / name) << text;
    return (d.dir() / name).string();
}

TEST(ReferenceCache, AnEntryServesOnlyItsReferenceGpuAndSnowParForTwelveHours) {
    const TempDir d("refcache");
    const std::string exe = put_file(d, "render_ref", "binary"), par = put_file(d, "snow.par", "2\n0 0 0 0 0 0 .1\n");
    const std::string cache = (d.dir() / "sub" / "times.json").string();  // the folder is made when stored
    const std::string key = reference_cache_key(exe, "NVIDIA H200 (sm_90)", par);
    EXPECT_FALSE(find_cached_reference_times(cache, key, 1000));  // no file yet: no entry, no error
    CachedReferenceTimes t;
    t.measured_at = 1000;
    t.scenes = {{"rgb", 0.0977}, {"rand10k", 0.5071}, {"rand100k", 4.3015}};
    t.runs = {{"rgb", 3}, {"rand10k", 3}, {"rand100k", 1}};
    ASSERT_TRUE(store_reference_times(cache, key, t));
    const auto hit = find_cached_reference_times(cache, key, 1000 + 12 * 3600);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->scenes.at("rgb"), 0.0977);
    EXPECT_EQ(hit->scenes.at("rand10k"), 0.5071);
    EXPECT_EQ(hit->scenes.at("rand100k"), 4.3015);
    EXPECT_EQ(hit->runs.at("rand100k"), 1);  // a grade that stopped early kept one run
    EXPECT_EQ(hit->runs.at("rgb"), 3);
    EXPECT_EQ(hit->scenes.count("micro2M"), 0u);  // a scene not kept: measured by the next grade
    EXPECT_EQ(hit->measured_at, 1000);
    EXPECT_FALSE(find_cached_reference_times(cache, key, 1000 + 12 * 3600 + 1));  // too old
    EXPECT_FALSE(find_cached_reference_times(cache, key, 999));                   // from the future
    // another GPU, another snow.par, a rebuilt reference: other keys
    EXPECT_NE(reference_cache_key(exe, "NVIDIA A100 (sm_80)", par), key);
    EXPECT_NE(reference_cache_key(exe, "NVIDIA H200 (sm_90)", put_file(d, "snow2.par", "1\n0 0 0 0 0 0 .1\n")), key);
    EXPECT_NE(reference_cache_key(exe, "NVIDIA H200 (sm_90)", ""), key);
    put_file(d, "render_ref", "a longer binary");
    EXPECT_NE(reference_cache_key(exe, "NVIDIA H200 (sm_90)", par), key);
    // a second key is added beside the first
    t.scenes = {{"rgb", 0.2}, {"rand10k", 0.6}};
    ASSERT_TRUE(store_reference_times(cache, "other", t));
    EXPECT_EQ(find_cached_reference_times(cache, key, 1000)->scenes.at("rgb"), 0.0977);
    EXPECT_EQ(find_cached_reference_times(cache, "other", 1000)->scenes.at("rgb"), 0.2);
    EXPECT_THROW(reference_cache_key((d.dir() / "missing").string(), "gpu", ""), std::runtime_error);
}

TEST(ReferenceCache, AFileThatIsNotJsonIsNoEntryAndIsReplacedWhenStored) {
    const TempDir d("refcache");
    const std::string cache = put_file(d, "times.json", "{ not json");
    EXPECT_FALSE(find_cached_reference_times(cache, "k", 5));
    CachedReferenceTimes t;
    t.measured_at = 5;
    t.scenes = {{"rgb", 0.1}};
    ASSERT_TRUE(store_reference_times(cache, "k", t));
    EXPECT_EQ(find_cached_reference_times(cache, "k", 5)->scenes.at("rgb"), 0.1);
}

TEST(ReferenceCache, AnEntryOfAnEarlierVersionHolds3RunsAndBadTimesAreLeftOut) {
    const TempDir d("refcache");
    const std::string cache = put_file(d, "times.json",
                                       R"({"k": {"measured_at": 5, "scenes": {"rgb": 0.1, "pattern": -1, "rand10k": "x"}},)"
                                       R"( "none": {"measured_at": 5, "scenes": {"rgb": 0}}})");
    const auto hit = find_cached_reference_times(cache, "k", 5);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->scenes.size(), 1u);
    EXPECT_EQ(hit->scenes.at("rgb"), 0.1);
    EXPECT_EQ(hit->runs.at("rgb"), 3);  // written before runs were kept: checker.py's 3
    EXPECT_FALSE(find_cached_reference_times(cache, "none", 5));  // no usable scene: no entry
}

}  // namespace
}  // namespace cr
