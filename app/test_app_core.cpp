// Unit tests of the GUI's state without a window (cr_app_core): the view
// geometry (zoom, pan, the pixel under the mouse), the settings file, the
// source watcher, builds that cannot start, the scene tracker, the pixel
// inspector, the timing board, the teaching numbers, the frame-gap meter and
// the student lane catching up.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "build_job.h"
#include "inspector.h"
#include "render/image_io.h"
#include "render/pixel_story.h"
#include "scene_tracker.h"
#include "session.h"
#include "settings.h"
#include "teaching_overlays.h"
#include "view_geometry.h"
#include "workbench.h"

namespace fs = std::filesystem;
using namespace cr;
using namespace cr::app;

namespace {

/// A fresh folder under the system's temporary folder.
fs::path scratch(const std::string& name) {
    const fs::path p = fs::temp_directory_path() / ("cr_app_core_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

TEST(AppViewGeometry, ZoomKeepsThePixelUnderTheMouse) {
    const PixelRect area{430, 0, 850, 800};
    ZoomPan zp;
    const PixelRect before = place_image(area, 256, 256, true, zp);
    EXPECT_EQ(before.w, 256);
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    const double fx = before.x + 100.5, fy = before.y + 30.5;  // pixel (100, 30), row 0 at the bottom
    ASSERT_TRUE(image_pixel_at(before, 256, 256, fx, fy, x0, y0));
    EXPECT_EQ(x0, 100);
    EXPECT_EQ(y0, 30);
    zoom_at(zp, area, 256, 256, true, 8.0, fx, fy);
    const PixelRect after = place_image(area, 256, 256, true, zp);
    EXPECT_EQ(after.w, 2048);
    ASSERT_TRUE(image_pixel_at(after, 256, 256, fx, fy, x1, y1));
    EXPECT_EQ(x1, 100);
    EXPECT_EQ(y1, 30);
    zoom_at(zp, area, 256, 256, true, 1e6, fx, fy);
    EXPECT_EQ(zp.zoom, ZoomPan::kMaxZoom);
}

TEST(AppViewGeometry, OneToOneAlsoForImagesLargerThanTheArea) {
    const PixelRect area{0, 0, 800, 600};
    ZoomPan zp{one_to_one_zoom(area, 2048, 2048, false), 0, 0};
    const PixelRect r = place_image(area, 2048, 2048, false, zp);
    EXPECT_EQ(r.w, 2048);
    EXPECT_EQ(r.h, 2048);
    int px = 0, py = 0;
    EXPECT_FALSE(image_pixel_at(r, 2048, 2048, r.x - 1, r.y, px, py));
    ASSERT_TRUE(image_pixel_at(r, 2048, 2048, r.x + 0.5, r.y + 0.5, px, py));
    EXPECT_EQ(px, 0);
    EXPECT_EQ(py, 0);  // the bottom row
}

TEST(AppSettings, RoundTripRecentFoldersAndBadFiles) {
    const fs::path dir = scratch("settings");
    ::setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
    const std::string path = settings_path();
    EXPECT_EQ(path, (dir / "circle-renderer/settings.json").string());
    std::string error;
    EXPECT_TRUE(load_settings(path, error).recent_folders.empty());
    EXPECT_EQ(error, "");
    Settings s;
    for (int i = 0; i < 8; ++i) remember_folder(s, "/f" + std::to_string(i));
    remember_folder(s, "/f3");
    ASSERT_EQ(s.recent_folders.size(), Settings::kMaxRecent);
    EXPECT_EQ(s.recent_folders[0], "/f3");
    EXPECT_EQ(s.recent_folders[1], "/f7");
    save_settings(path, s);  // creates circle-renderer/
    EXPECT_EQ(load_settings(path, error).recent_folders, s.recent_folders);
    write(path, "{ not json");
    EXPECT_TRUE(load_settings(path, error).recent_folders.empty());
    EXPECT_NE(error.find("ignored"), std::string::npos) << error;
    fs::remove_all(dir);
}

TEST(AppSourceWatcher, ReportsOneChangeOnceItIsStable) {
    const fs::path dir = scratch("watch");
    write(dir / "cudaRenderer.cu", "a");
    write(dir / "notes.txt", "not a source");
    SourceWatcher w;
    w.watch(dir.string());
    auto t = SourceWatcher::Clock::now();
    const auto poll = [&] { return w.changed(t += std::chrono::milliseconds(300)); };
    EXPECT_FALSE(poll());
    write(dir / "notes.txt", "other text");  // not watched
    EXPECT_FALSE(poll());
    write(dir / "kernels.cu_inl", "new file");
    EXPECT_FALSE(poll());  // first seen: wait for one more poll
    EXPECT_TRUE(poll());
    EXPECT_FALSE(poll());
    fs::remove_all(dir);
}

TEST(AppBuildJob, NotACourseFolderIsABadFolderInTheBackground) {
    const fs::path dir = scratch("notcourse");
    BuildJob job;
    student::BuildOptions o;
    o.dir = dir.string();
    job.start([o] { return run_build(o); });
    BuildOutcome out;
    for (int i = 0; i < 500 && !job.poll(out); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(job.running());
    EXPECT_EQ(out.kind, BuildOutcome::Kind::BadFolder);
    EXPECT_NE(out.summary.find("cudaRenderer.cu"), std::string::npos) << out.summary;
    fs::remove_all(dir);
}

TEST(AppWorkbench, AFolderThatCannotBuildSaysWhy) {
    const fs::path dir = scratch("bench");
    WorkbenchOptions o;
    o.use_settings = false;
    Workbench bench(o);
    EXPECT_EQ(bench.status(), Workbench::Status::None);
    bench.load(dir.string());
    for (int i = 0; i < 500 && bench.building(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        bench.tick();
    }
    EXPECT_EQ(bench.status(), Workbench::Status::BuildFailed);
    EXPECT_EQ(bench.status_line(), "build failed");
    EXPECT_NE(bench.detail().find("has no cudaRenderer.cu"), std::string::npos) << bench.detail();
    EXPECT_EQ(bench.builds_finished(), 1);
    fs::remove_all(dir);
}

TEST(AppSceneTracker, FollowsTheFrameAsScenesAtFrameDoes) {
    Session s;
    s.set_size(64, 64);
    s.set_scene(SceneChoice{false, "bouncingballs", "", "", 0});
    SceneTracker t;
    for (int steps : {3, 7, 2}) {
        const Scene want = scene_at_frame(s.scene(), steps);
        const Scene& got = t.at(s, steps);
        ASSERT_EQ(got.count(), want.count());
        for (size_t i = 0; i < want.count(); ++i) {
            EXPECT_EQ(got.x[i], want.x[i]);
            EXPECT_EQ(got.y[i], want.y[i]);
        }
    }
}

/// Syncs `lane` until `done(arrived)` holds, `arrived` being what that
/// sync() returned (a new student frame); false after ~5 s (polling every 0.2 ms).
template <class F>
bool sync_until(StudentLane& lane, Session& s, F&& done) {
    for (int k = 0; k < 25000; ++k) {
        if (done(lane.sync(s))) return true;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return false;
}

/// Syncs `lane` until a student frame arrives (at most ~5 s).
bool await_student_frame(StudentLane& lane, Session& s) {
    return sync_until(lane, s, [](bool arrived) { return arrived; });
}

/// `s` shows `scene` at w x h drawn by `reference`; `lane` runs the
/// renderer `standin` in place of a student's library.
void open_lane(Session& s, StudentLane& lane, int w, int h, const char* scene, const char* reference,
               const char* standin) {
    s.set_size(w, h);
    s.set_scene(SceneChoice{false, scene, "", "", 0});
    s.set_renderer(reference);
    lane.load(student::StudentOptions{}, standin);
}

/// A lane slower than its session: hypnosis (animated) at 1024x1024, the
/// session on the multi-core `cpu`, the lane on the sequential `cpuref`
/// (about 50 ms a frame on the development machine).
void open_slow_lane(Session& s, StudentLane& lane) { open_lane(s, lane, 1024, 1024, "hypnosis", "cpu", "cpuref"); }

TEST(AppStudentLane, ALaneThatFellBehindAdvancesInsteadOfSettingUpAgain) {
    Session s;
    StudentLane lane;
    // animated: a missed step shows in the image; the multi-core renderer stands in for a student's library
    open_lane(s, lane, 64, 64, "bouncingballs", "cpuref", "cpu");
    ASSERT_TRUE(s.step());
    lane.sync(s);  // hands the lane frame 0
    ASSERT_TRUE(await_student_frame(lane, s));
    EXPECT_EQ(lane.compare().frame, 0);
    EXPECT_EQ(lane.setups(), 1);
    for (int k = 0; k < 5; ++k) ASSERT_TRUE(s.step());  // the session runs ahead: frames 1..5
    lane.sync(s);  // hands the lane frame 5: it advances 4 steps, then draws it
    ASSERT_TRUE(await_student_frame(lane, s));
    EXPECT_EQ(lane.compare().frame, 5);
    EXPECT_EQ(lane.compare().stats.mismatches_strict, 0) << "the caught-up frame is not the session's frame 5";
    EXPECT_EQ(lane.setups(), 1);
    s.restart();  // back to frame 0: the lane must set up again
    ASSERT_TRUE(s.step());
    lane.sync(s);
    ASSERT_TRUE(await_student_frame(lane, s));
    EXPECT_EQ(lane.compare().frame, 0);
    EXPECT_EQ(lane.compare().stats.mismatches_strict, 0);
    EXPECT_EQ(lane.setups(), 2);
    EXPECT_EQ(lane.frames_rendered(), 3);
}

TEST(AppStudentLane, FramesComeInOrderInReusedImageMemory) {
    Session s;
    StudentLane lane;
    open_lane(s, lane, 256, 128, "bouncingballs", "cpuref", "cpu");
    for (int f = 0; f < 12; ++f) {
        ASSERT_TRUE(s.step());
        lane.sync(s);
        ASSERT_TRUE(await_student_frame(lane, s));
        EXPECT_EQ(lane.compare().frame, f);  // each frame's comparison comes with that frame's image
        EXPECT_EQ(lane.compare().stats.mismatches_strict, 0);
        EXPECT_EQ(lane.image().data, lane.reference_image().data);
        EXPECT_EQ(lane.display_rgba8(), to_rgb8_top_down(lane.image(), true));  // made off the window's thread
    }
    EXPECT_EQ(lane.frames_rendered(), 12);
    // the images shown before went back to the pool, for the next frames to reuse
    EXPECT_GE(lane.pooled_images(), 2u);
    EXPECT_LE(lane.pooled_images(), 6u);
}

TEST(AppStudentLane, AFramesWholeResultDoesNotFreeTheLaneAgain) {
    // A frame frees the lane when it is drawn; its comparison follows. Frame
    // 1 is posted as soon as frame 0 is drawn, and takes longer to draw
    // (cpuref, hypnosis at 1024x1024: about 50 ms here) than frame 0's
    // comparison, so frame 0's whole result comes while frame 1 is drawn:
    // it must not free the lane again. (With a cheap frame 1 its own marker
    // could come in the same sync as frame 0's result, and the lane would
    // rightly be free.)
    Session s;
    StudentLane lane;
    open_slow_lane(s, lane);
    int checked = 0;
    for (int round = 0; round < 12; ++round) {  // the order of arrivals varies: 12 chances to see it
        const int drawn = lane.frames_rendered();
        ASSERT_TRUE(s.step());
        lane.sync(s);  // posts frame 2 x round
        ASSERT_TRUE(lane.busy());
        ASSERT_TRUE(sync_until(lane, s, [&](bool) { return !lane.busy(); }));  // drawn (its comparison may still run)
        ASSERT_TRUE(s.step());
        lane.sync(s);  // posts the next frame
        ASSERT_TRUE(lane.busy());
        ASSERT_TRUE(sync_until(lane, s, [&](bool) { return lane.frames_rendered() > drawn; }));  // its whole result
        if (lane.frames_rendered() == drawn + 1) {
            ++checked;
            EXPECT_TRUE(lane.busy()) << "round " << round << ": the second frame is still drawn: the lane is not free";
        }
        ASSERT_TRUE(s.step());
        lane.sync(s);  // one more may be posted behind it, no more
        EXPECT_LE(lane.frames_in_flight(), StudentLane::kFramesInFlight);
        EXPECT_LE(lane.queued_jobs(), size_t(StudentLane::kFramesInFlight));  // if the lane's thread has taken none yet
        ASSERT_TRUE(sync_until(lane, s, [&](bool) { return lane.frames_rendered() >= drawn + 2 && !lane.busy(); }));
    }
    EXPECT_GT(checked, 0);
    EXPECT_EQ(lane.compare().stats.mismatches_strict, 0);
}

/// Student frames drawn while the window draws for `seconds` (a frame every
/// 2 ms or so), with the lane limited to `max_rate` frames a second (0: none).
int frames_in(double seconds, double max_rate) {
    Session s;
    StudentLane lane;
    lane.set_max_rate(max_rate);
    open_lane(s, lane, 64, 64, "bouncingballs", "cpuref", "cpu");
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
        if (!s.step()) return -1;
        lane.sync(s);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    const int posted_by_end = lane.frames_rendered() + lane.frames_in_flight();
    sync_until(lane, s, [&](bool) { return !lane.busy(); });
    return posted_by_end;
}

TEST(AppStudentLane, AMaxRateLimitsTheFramesPostedOnAverage) {
    // 64x64 frames take well under a millisecond: without a limit the lane
    // keeps up with the window (about 1 frame in 2-3 ms); with 20 a second it
    // posts at most 20 a second plus the two frames of credit it may hold.
    const int free_frames = frames_in(1.0, 0);
    const int limited = frames_in(1.0, 20);
    EXPECT_GT(free_frames, 60) << "without a limit the lane follows the window";
    EXPECT_LE(limited, 20 + StudentLane::kFramesInFlight + 1);
    EXPECT_GE(limited, 12) << "the limit is an average, not one frame per window frame past an interval";
}

TEST(AppStudentLane, TheNextFrameWaitsInTheQueueWhileOneIsDrawn) {
    // The window posts a second frame while the first is drawn (so the lane
    // starts it without waiting for the window); the frames come back in
    // order, each equal to the session's frame it was posted for (an
    // animated scene: the second job's catch-up is counted from the first's).
    Session s;
    StudentLane lane;
    open_slow_lane(s, lane);
    int two = 0, last_frame = -1, arrivals = 0;
    bool all_equal = true;
    const auto check = [&](bool arrived) {
        if (!arrived) return;
        ++arrivals;
        EXPECT_TRUE(lane.compare().valid);
        EXPECT_GT(lane.compare().frame, last_frame) << "frames out of order";
        last_frame = lane.compare().frame;
        if (lane.compare().stats.mismatches_strict != 0) all_equal = false;
    };
    for (int round = 0; round < 4; ++round) {
        for (int k = 0; k < 3; ++k) {  // three session frames in quick succession
            ASSERT_TRUE(s.step());
            check(lane.sync(s));
            if (lane.frames_in_flight() == 2) ++two;
        }
        // the session's last frame is posted once a place is free, and comes last
        ASSERT_TRUE(sync_until(lane, s, [&](bool arrived) {
            check(arrived);
            return !lane.busy() && lane.compare().frame == s.frame() - 1;
        })) << "round " << round;
    }
    EXPECT_TRUE(all_equal) << "a frame differs from the session's frame it was posted for";
    EXPECT_GE(arrivals, 8);
    EXPECT_EQ(lane.setups(), 1) << "a lane that keeps up never sets up again";
    EXPECT_GT(two, 0) << "no second frame was ever posted while one was drawn";
}

TEST(AppStudentLane, UnloadDropsTheFrameWaitingInTheQueue) {
    // A frame posted behind the one being drawn must not start after an
    // unload (it would run on a worker just stopped, or start a new one).
    Session s;
    StudentLane lane;
    open_slow_lane(s, lane);
    bool seen = false;
    for (int k = 0; k < 20 && !seen; ++k) {
        ASSERT_TRUE(s.step());
        lane.sync(s);
        seen = lane.frames_in_flight() == 2 && lane.queued_jobs() == 1;  // one drawn, one waiting
    }
    ASSERT_TRUE(seen) << "never had a frame waiting behind the one drawn";
    lane.unload();
    EXPECT_EQ(lane.queued_jobs(), 1u) << "the waiting frame is still queued before the unload";
    EXPECT_FALSE(lane.busy());
    EXPECT_EQ(lane.state(), StudentLane::State::Empty);
}

TEST(AppInspector, StoryAndExpectedColorOfAPixel) {
    Session s;
    s.set_size(256, 256);
    s.set_scene(SceneChoice{false, "rgb", "", "", 0});
    s.set_renderer("cpu");
    ASSERT_TRUE(s.step());
    StudentLane lane;  // none loaded
    SceneTracker tracker;
    Inspector in;
    in.select(128, 128);
    in.update(s, lane, tracker, /*playing=*/false);
    const Inspection& r = in.result();
    ASSERT_TRUE(r.valid);
    EXPECT_EQ(r.frame, 0);
    EXPECT_FALSE(r.has_student);
    EXPECT_EQ(r.story.covering, 3u);
    for (int c = 0; c < 3; ++c) EXPECT_EQ(r.expected[c], r.story.final_rgba[c]);  // cpu is bit-identical to cpuref
    EXPECT_NE(in.text().find("pixel (128, 128) (row 0 at the bottom), frame 0"), std::string::npos) << in.text();
    int x = 0, y = 0;
    parse_pixel("12,34", x, y);
    EXPECT_EQ(x, 12);
    EXPECT_EQ(y, 34);
    EXPECT_THROW(parse_pixel("12", x, y), std::invalid_argument);
    EXPECT_THROW(parse_pixel("a,b", x, y), std::invalid_argument);
}

TEST(AppTimingBoard, OneEntryPerRendererSceneAndSizeAtMostEight) {
    TimingBoard b;
    const std::vector<StageTime> t = {{"clear", "Clear", 1.0}, {"render", "Render", 3.0}};
    b.add("cpu", "host clock", "rgb seed 0", 64, 64, t);
    b.add("cpu", "host clock", "rgb seed 0", 64, 64, t);
    ASSERT_EQ(b.entries().size(), 1u);
    EXPECT_EQ(mean_of(b.entries()[0].sums).total_ms, 4.0);
    for (int i = 0; i < 10; ++i) b.add("r" + std::to_string(i), "m", "rgb seed 0", 64, 64, t);
    EXPECT_EQ(b.entries().size(), TimingBoard::kMaxEntries);
    EXPECT_EQ(b.entries().back().renderer, "r9");
}

TEST(AppStageLog, SeriesAndSumsUntilReset) {
    StageLog log;
    const std::vector<StageTime> t = {{"clear", "Clear", 1.0}, {"render", "Render", 3.0}};
    log.add(t);
    log.add(t);
    ASSERT_EQ(log.stages.size(), 2u);
    EXPECT_EQ(log.stages[1].filled, 2);
    EXPECT_EQ(log.stages[1].last_ms, 3.0);
    EXPECT_EQ(mean_of(log.sums).total_ms, 4.0);
    log.reset();
    EXPECT_TRUE(log.stages.empty());
    EXPECT_EQ(log.sums.counted, 0);
}

/// A renderer that only reports how it is timed (for timing_label_of).
struct TimedLike : Renderer {
    bool course = false;
    float pixel = 0;
    bool gpu = false;
    Image img;
    std::string name() const override { return "timed-like"; }
    void setup(const Scene&, int, int) override {}
    void clear() override {}
    void advance() override {}
    void render() override {}
    const Image& image() override { return img; }
    std::vector<StageTime> timings() override { return {}; }
    int frame() const override { return 0; }
    GpuImage gpu_image() const override { return {gpu ? &pixel : nullptr, nullptr}; }
    bool course_timing() const override { return course; }
};

TEST(AppTimingBoard, LabelsComeFromTheRenderersProperties) {
    TimedLike r;
    EXPECT_EQ(timing_label_of(r), "host clock");
    r.gpu = true;
    EXPECT_EQ(timing_label_of(r), "cudaEvents");
    r.course = true;
    EXPECT_EQ(timing_label_of(r), "course method: host clock, cudaDeviceSynchronize after each call");
    Session s;
    s.set_size(64, 64);
    s.set_scene(SceneChoice{false, "rgb", "", "", 0});
    for (const char* name : {"cpu", "cpuref"}) {
        s.set_renderer(name);
        EXPECT_EQ(s.timing_label(), "host clock") << name;
    }
}

TEST(AppTeaching, ListedTilesHoldTheHitOnesAndTheOrderDemoDiffers) {
    const Scene scene = make_scene("rand10k", 0);
    const TileMap listed = teaching_tile_map(scene, 256, 256, TileSource::Listed);
    const TileMap hit = teaching_tile_map(scene, 256, 256, TileSource::Hit);
    ASSERT_EQ(listed.loads.loads.size(), hit.loads.loads.size());
    for (size_t t = 0; t < hit.loads.loads.size(); ++t) EXPECT_LE(hit.loads.loads[t], listed.loads.loads[t]);
    EXPECT_GT(listed.listed_pairs, listed.hit_pairs);
    EXPECT_EQ(warp_lane_color(32.f)[0], 0);    // all lanes: no red
    EXPECT_EQ(warp_lane_color(1.f)[1], 0);     // one lane: no green
    const OrderDemo d = make_order_demo(64);
    EXPECT_FLOAT_EQ(d.in_order_rgb[2], .75f);  // blue last dominates
    EXPECT_FLOAT_EQ(d.reversed_rgb[0], .75f);  // red last dominates
}

TEST(AppGapMeter, LongestGapWhileABuildRuns) {
    GapMeter g;
    auto t = GapMeter::Clock::now();
    g.frame(t);
    g.begin(/*rebuild=*/true);
    g.frame(t += std::chrono::milliseconds(10));
    g.frame(t += std::chrono::milliseconds(70));
    g.end_after(2);
    g.frame(t += std::chrono::milliseconds(20));
    g.frame(t += std::chrono::milliseconds(30));
    g.frame(t += std::chrono::milliseconds(500));  // after the end: not counted
    EXPECT_NEAR(g.rebuild().compile_ms, 70, 1e-6);
    EXPECT_NEAR(g.rebuild().switch_ms, 30, 1e-6);
    EXPECT_NEAR(g.rebuild().longest(), 70, 1e-6);
    EXPECT_EQ(g.first_build().longest(), -1);
    EXPECT_EQ(g.frames_measured(), 4);
}

}  // namespace
