// The student harness on a GPU (label `gpu`; skipped where no CUDA device
// exists): the fixtures of tests/students/ built and run in the worker,
// against cpuref, with their faults reported and this process unharmed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "render/compare.h"
#include "render/frame_loop.h"
#include "render/renderer_factory.h"
#include "render/sanitize_run.h"
#include "render/student/student_build.h"
#include "render/student/student_renderer.h"
#include "scenes/scene.h"

#include "tests/gpu_skip.h"
#include "tests/student_fixtures.h"

namespace cr {
namespace {

using testing_students::fixture_cache_root;
using testing_students::fixture_root;

std::unique_ptr<student::StudentRenderer> fixture_renderer(const std::string& name, double timeout_s = 30,
                                                           bool course_sync_each_call = true) {
    student::BuildOptions bo;
    bo.dir = fixture_root() + "/" + name;
    bo.cache_root = fixture_cache_root();
    student::StudentOptions so;
    so.library = student::build_student(bo).library;
    so.call_timeout_s = timeout_s;
    so.course_sync_each_call = course_sync_each_call;
    return std::make_unique<student::StudentRenderer>(so);
}

Image cpuref_image(const Scene& s, int w, int h, int frames) {
    auto ref = make_renderer("cpuref");
    return render_last_frame(*ref, s, w, h, frames);
}

void expect_matches_cpuref(Renderer& r, const Scene& s, int w, int h, int frames) {
    const Image img = render_frames(r, s, w, h, frames);
    const CompareStats st = compare_images(img, cpuref_image(s, w, h, frames));
    EXPECT_TRUE(st.pass) << s.name << " " << w << "x" << h << " frames " << frames << ": " << describe(st);
}

TEST(GpuStudent, CorrectFixtureMatchesCpurefOnEveryScene) {
    REQUIRE_GPU();
    auto r = fixture_renderer("correct");
    for (const char* scene : {"rgb", "rgby", "rand10k", "rand100k", "rand1M", "biglittle", "littlebig", "pattern",
                              "micro2M", "bouncingballs", "fireworks", "hypnosis", "snow", "snowsingle"})
        expect_matches_cpuref(*r, make_scene(scene, 0), 256, 256, 1);
}

TEST(GpuStudent, CorrectFixtureAnimatesAndHandlesOddSizes) {
    REQUIRE_GPU();
    auto r = fixture_renderer("correct");
    expect_matches_cpuref(*r, make_scene("bouncingballs", 0), 128, 128, 60);
    expect_matches_cpuref(*r, make_scene("fireworks", 0), 128, 128, 45);
    expect_matches_cpuref(*r, make_scene("hypnosis", 0), 128, 128, 30);
    expect_matches_cpuref(*r, make_scene("snow", 0), 256, 256, 300);
    expect_matches_cpuref(*r, make_scene("rand10k", 7), 257, 129, 1);
    expect_matches_cpuref(*r, make_scene("rand10k", 7), 1000, 600, 1);
    expect_matches_cpuref(*r, make_scene("rgb", 0), 1, 1, 1);
}

// The course-layout fixtures (tests/students/layout_*): layout A's renderer,
// whose enum stops at LITTLE_BIG and whose loadScene has no seed, still draws
// rand1M and micro2M and the seed the harness asks for; layout A's Image has
// members before `width`; B is CRLF with a case-mismatched include; C has a
// reformatted framework, the Makefile's define and no SCAN_BLOCK_DIM.
TEST(GpuStudent, EveryCourseLayoutMatchesCpurefOnEveryScene) {
    REQUIRE_GPU();
    for (const char* name : {"layout_a", "layout_b", "layout_c"}) {
        SCOPED_TRACE(name);
        auto r = fixture_renderer(name);
        for (const char* scene : {"rgb", "rgby", "rand10k", "rand100k", "rand1M", "biglittle", "littlebig", "pattern",
                                  "micro2M", "bouncingballs", "fireworks", "hypnosis", "snow", "snowsingle"})
            expect_matches_cpuref(*r, make_scene(scene, 0), 256, 256, 1);
        expect_matches_cpuref(*r, make_scene("rand10k", 7), 257, 129, 1);
        expect_matches_cpuref(*r, make_scene("rand100k", 4242), 256, 256, 1);
        expect_matches_cpuref(*r, make_scene("fireworks", 0), 128, 128, 45);
        expect_matches_cpuref(*r, make_scene("snow", 0), 128, 128, 160);
    }
}

TEST(GpuStudent, VariantsThatMustRenderCorrectly) {
    REQUIRE_GPU();
    for (const char* name : {"define_uint", "no_scan_block_dim"}) {
        SCOPED_TRACE(name);
        auto r = fixture_renderer(name);
        expect_matches_cpuref(*r, make_scene("rgb", 0), 256, 256, 1);
        expect_matches_cpuref(*r, make_scene("rand10k", 0), 512, 512, 1);
    }
}

TEST(GpuStudent, RacyFixtureFailsAndChangesBetweenRuns) {
    REQUIRE_GPU();
    auto r = fixture_renderer("racy");
    const Scene s = make_scene("rand10k", 0);
    const Image first = render_frames(*r, s, 512, 512, 1);
    const CompareStats st = compare_images(first, cpuref_image(s, 512, 512, 1));
    EXPECT_FALSE(st.pass) << describe(st);
    const RepeatCheck rc = rerender_compare(*r, first, 5);
    EXPECT_GT(rc.differing_runs, 0) << "the racy renderer drew the same image 5 times";
}

TEST(GpuStudent, OutOfBoundsIsReportedAndTiledStillRuns) {
    REQUIRE_GPU();
    auto r = fixture_renderer("out_of_bounds");
    try {
        render_frames(*r, make_scene("rgb", 0), 256, 256, 1);
        FAIL() << "no fault reported";
    } catch (const student::StudentFault& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("an illegal memory access was encountered"), std::string::npos) << what;
        EXPECT_NE(what.find("CUDA error 700 (cudaErrorIllegalAddress), an illegal memory access was encountered, after "
                            "render(), frame 0; run it again with --sanitize"),
                  std::string::npos)
            << what;
    }
    auto tiled = make_renderer("tiled");
    const Scene s = make_scene("rand10k", 0);
    EXPECT_TRUE(compare_images(render_frames(*tiled, s, 256, 256, 1), cpuref_image(s, 256, 256, 1)).pass);
}

// A layout-A folder's benchmark.cpp reads the clock as each call returns:
// its course process's T is then the time to launch the frame's work (the
// correct fixture's render() launches one kernel and returns; on rand100k at
// 1024 its kernel runs for about 90 ms), and a fault still surfaces, after
// the frame's three calls.
TEST(GpuStudent, ACourseFrameTimedWithoutSynchronizingIsTheLaunchTime) {
    REQUIRE_GPU();
    const Scene s = make_scene("rand100k", 0);
    auto synced = fixture_renderer("correct");
    auto unsynced = fixture_renderer("correct", 30, /*course_sync_each_call=*/false);
    const double t_sync = run_course_process(*synced, s, 1024, 1024, FrameRange{0, 2}, "").total_ms;
    const double t_launch = run_course_process(*unsynced, s, 1024, 1024, FrameRange{0, 2}, "").total_ms;
    EXPECT_GT(t_sync, 20.0);
    EXPECT_LT(t_launch, t_sync / 10) << "synchronized " << t_sync << " ms";
    EXPECT_TRUE(compare_images(unsynced->image(), cpuref_image(s, 1024, 1024, 2)).pass);  // the frame was drawn
    auto oob = fixture_renderer("out_of_bounds", 30, false);
    try {
        run_course_process(*oob, make_scene("rgb", 0), 256, 256, FrameRange{0, 1}, "");
        FAIL() << "no fault reported";
    } catch (const student::StudentFault& e) {
        EXPECT_NE(std::string(e.what()).find("CUDA error 700 (cudaErrorIllegalAddress)"), std::string::npos) << e.what();
    }
}

TEST(GpuStudent, SanitizerNamesTheFixturesOwnFileAndLine) {
    REQUIRE_GPU();
    if (student::find_compute_sanitizer().empty()) GTEST_SKIP() << "no compute-sanitizer here";
    student::BuildOptions bo;
    bo.dir = fixture_root() + "/out_of_bounds";
    bo.cache_root = fixture_cache_root();
    const student::BuildResult b = student::build_student(bo);
    const SanitizeOutcome o = sanitize_student(b, make_scene("rgb", 0), 64, 64, 1, "memcheck", RendererContext{});
    ASSERT_FALSE(o.report.findings.empty()) << "memcheck found nothing; report " << o.report_path;
    const student::SanitizerFinding& f = o.report.findings.front();
    EXPECT_NE(f.what.find("Invalid __global__ write"), std::string::npos) << f.what;
    EXPECT_EQ(f.kernel, "renderOutOfBounds");
    EXPECT_EQ(f.where, b.folder.dir + "/fixture_kernels.cu_inl:13");  // the store image[to_zero + 4 + threadIdx.x]
    EXPECT_FALSE(f.thread.empty());
}

TEST(GpuStudent, HangIsReportedAfterTheTimeLimit) {
    REQUIRE_GPU();
    auto r = fixture_renderer("hang", 3);
    const auto t0 = std::chrono::steady_clock::now();
    try {
        render_frames(*r, make_scene("rgb", 0), 64, 64, 1);
        FAIL() << "no fault reported";
    } catch (const student::StudentFault& e) {
        EXPECT_NE(std::string(e.what()).find("did not return within 3 s"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

}  // namespace
}  // namespace cr
