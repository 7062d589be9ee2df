// The student harness without a GPU: processes and their time limits, the
// protocol's scene transfer, compiler-path mapping, and building the fixtures
// in tests/students/ with nvcc (skipped, not passed, where nvcc is missing).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "render/student/process.h"
#include "render/student/protocol.h"
#include "render/student/shared_region.h"
#include "render/student/student_build.h"
#include "scenes/scene.h"

#include "tests/student_fixtures.h"

namespace fs = std::filesystem;
using namespace cr::student;

namespace {

using cr::testing_students::fixture_cache_root;
using cr::testing_students::fixture_root;

std::string fixture(const std::string& name) { return fixture_root() + "/" + name; }

/// Builds go to the build tree's cache, not the user's.
BuildOptions fixture_build(const std::string& name) {
    BuildOptions o;
    o.dir = fixture(name);
    o.cache_root = fixture_cache_root();
    return o;
}

TEST(ChildProcess, CapturesOutputAndExitCode) {
    const CapturedRun r = run_captured({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, 10);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.output.find("out\n"), std::string::npos);
    EXPECT_NE(r.output.find("err\n"), std::string::npos);
    EXPECT_EQ(r.exit_text, "exit code 3");
}

TEST(ChildProcess, TimeLimitKillsTheChild) {
    const auto t0 = std::chrono::steady_clock::now();
    const CapturedRun r = run_captured({"/bin/sleep", "20"}, 0.3);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(r.timed_out);
    EXPECT_EQ(r.term_signal, 9);
    EXPECT_LT(s, 5.0);
}

TEST(ChildProcess, MissingProgramIsAClearError) {
    try {
        run_captured({"/nonexistent/nvcc"}, 5);
        FAIL() << "started a program that does not exist";
    } catch (const ProcessError& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/nvcc"), std::string::npos) << e.what();
    }
}

TEST(ChildProcess, ProtocolPipesEchoAndReportACrash) {
    ProcessOptions o;
    o.argv = {"/bin/sh", "-c", "head -c 5 <&3 >&4; kill -SEGV $$"};
    o.protocol_pipes = true;
    ChildProcess p(o);
    ASSERT_EQ(p.send("hello", 5, 5), WaitResult::Ok);
    char back[6] = {0};
    ASSERT_EQ(p.receive(back, 5, 5), WaitResult::Ok);
    EXPECT_STREQ(back, "hello");
    char more[1];
    EXPECT_EQ(p.receive(more, 1, 5), WaitResult::Exited);
    p.wait(5);
    EXPECT_EQ(p.term_signal(), 11);
    EXPECT_EQ(p.describe_exit().rfind("signal 11", 0), 0u) << p.describe_exit();
}

TEST(ChildProcess, ReceiveTimesOutOnASilentChild) {
    ProcessOptions o;
    o.argv = {"/bin/sleep", "20"};
    o.protocol_pipes = true;
    ChildProcess p(o);
    char c;
    EXPECT_EQ(p.receive(&c, 1, 0.2), WaitResult::Timeout);
}  // the destructor kills and reaps the child

TEST(GatedRun, TheProgramWaitsAtItsFirstDriverLoadUntilFinishLetsItOn) {
    const std::string gate = find_cuda_gate();
    ASSERT_FALSE(gate.empty()) << "libcr_cuda_gate.so not found beside the test";
    const fs::path mark = fs::temp_directory_path() / ("cr_gate_mark_" + std::to_string(getpid()));
    fs::remove(mark);
    GatedRun run({GATE_PROBE_EXE, mark.string()}, "", gate);
    ASSERT_TRUE(run.reached_gate(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_FALSE(fs::exists(mark)) << "the program went past its driver load before finish()";
    const CapturedRun r = run.finish(10);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.output, "start\npast the driver load\n");
    EXPECT_TRUE(fs::exists(mark));
    fs::remove(mark);
}

TEST(GatedRun, TheGateDropsTheFileNamedToSkipAndWritesTheOthers) {
    const std::string gate = find_cuda_gate();
    ASSERT_FALSE(gate.empty()) << "libcr_cuda_gate.so not found beside the test";
    const fs::path dir = fs::temp_directory_path() / ("cr_gate_skip_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "logs");
    // named relative to the program's folder, as render grade names the last frame's PPM file
    GatedRun run({GATE_PROBE_EXE, "mark", "logs/output_0002.ppm", "logs/output_0003.ppm"}, dir.string(), gate,
                 {"CR_SKIP_FILE=logs/output_0003.ppm"});
    ASSERT_TRUE(run.reached_gate(10));
    const CapturedRun r = run.finish(10);
    EXPECT_EQ(r.exit_code, 0);
    // the dropped file's stream never moved past the header's 3 bytes: fputc did not reach the C library
    EXPECT_EQ(r.output, "start\npast the driver load\nlogs/output_0002.ppm: 6 bytes\nlogs/output_0003.ppm: 3 bytes\n");
    std::ifstream kept(dir / "logs" / "output_0002.ppm", std::ios::binary);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "P6\nxyz");
    EXPECT_FALSE(fs::exists(dir / "logs" / "output_0003.ppm"));
    // without the gate library the variable means nothing: every file is written
    GatedRun plain({GATE_PROBE_EXE, "mark", "logs/output_0003.ppm"}, dir.string(), "", {"CR_SKIP_FILE=logs/output_0003.ppm"});
    EXPECT_EQ(plain.finish(10).output, "start\npast the driver load\nlogs/output_0003.ppm: 6 bytes\n");
    EXPECT_EQ(fs::file_size(dir / "logs" / "output_0003.ppm"), 6u);
    fs::remove_all(dir);
}

TEST(GatedRun, WithoutTheGateLibraryOrAGateToMeetTheProgramJustRuns) {
    GatedRun plain({GATE_PROBE_EXE}, "", "");
    EXPECT_FALSE(plain.reached_gate(10));
    EXPECT_EQ(plain.finish(10).output, "start\npast the driver load\n");
    GatedRun no_driver({"/bin/sh", "-c", "echo no CUDA here; exit 4"}, "", find_cuda_gate());
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(no_driver.reached_gate(10));  // it exits without loading a driver: no wait for the limit
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
    const CapturedRun r = no_driver.finish(10);
    EXPECT_EQ(r.exit_code, 4);
    EXPECT_EQ(r.output, "no CUDA here\n");
}

TEST(Protocol, SceneSurvivesTheSharedRegion) {
    cr::Scene s = cr::make_scene("fireworks", 3);
    std::vector<char> region(scene_region_bytes(s.count()));
    write_scene(region.data(), s);
    const cr::Scene t = read_scene(region.data(), region.size());
    EXPECT_EQ(t.name, "fireworks");
    EXPECT_EQ(t.seed, 3u);
    EXPECT_EQ(t.motion, cr::Motion::Fireworks);
    ASSERT_EQ(t.count(), 315u);
    EXPECT_EQ(t.x, s.x);
    EXPECT_EQ(t.vy, s.vy);
    EXPECT_EQ(t.b, s.b);
    EXPECT_EQ(t.aux_y, s.aux_y);
    EXPECT_THROW(read_scene(region.data(), 16), std::runtime_error);
}

TEST(Protocol, SharedRegionSkipsANameLeftBehindAndUnlinksEarly) {
    // A harness killed before its destructors leaves its regions in
    // /dev/shm; a later process with the same pid must not fail on them.
    SharedRegion a = SharedRegion::create(64);
    const std::string prefix = "/circle-renderer-" + std::to_string(getpid()) + "-";
    ASSERT_EQ(a.name().rfind(prefix, 0), 0u) << a.name();
    const int n = std::stoi(a.name().substr(prefix.size()));
    const std::string stale = prefix + std::to_string(n + 1);  // the name the next create() tries first
    const int fd = shm_open(stale.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    ASSERT_GE(fd, 0) << stale;
    close(fd);
    SharedRegion b = SharedRegion::create(64);
    EXPECT_EQ(b.name(), prefix + std::to_string(n + 2));
    shm_unlink(stale.c_str());
    // unlink_now: the name goes at once, the mapping stays usable.
    static_cast<char*>(b.data())[63] = 7;
    b.unlink_now();
    EXPECT_FALSE(fs::exists("/dev/shm" + b.name()));
    EXPECT_EQ(static_cast<char*>(b.data())[63], 7);
    EXPECT_TRUE(fs::exists("/dev/shm" + a.name()));
}

TEST(Protocol, CourseSceneValues) {
    EXPECT_EQ(course_scene_value(cr::make_scene("rgb")), 0);
    EXPECT_EQ(course_scene_value(cr::make_scene("snow")), 5);
    EXPECT_EQ(course_scene_value(cr::make_scene("micro2M")), 13);
    cr::Scene file;
    file.name = "my.txt";
    EXPECT_EQ(course_scene_value(file), 2);  // a flat still scene of one's own: CIRCLE_TEST_10K
    file.shade = cr::ShadeMode::Snow;
    EXPECT_EQ(course_scene_value(file), 9);  // snow shading: SNOWFLAKES_SINGLE_FRAME
    EXPECT_EQ(course_scene_name(9), "snowsingle");
    EXPECT_EQ(course_scene_name(14), "");
}

TEST(StudentBuild, CompilerPathsPointAtTheStudentsFiles) {
    const std::string out =
        "/c/tmp-1/src/cudaRenderer.cu(42): error: identifier \"x\" is undefined\n"
        "/c/tmp-1/src/exclusiveScan.cu_inl:7:3: warning: unused\n";
    const std::string mapped = map_compiler_paths(out, "/c/tmp-1/src", "/home/s/render", {"cudaRenderer.cu"});
    EXPECT_EQ(mapped,
              "/home/s/render/cudaRenderer.cu(42): error: identifier \"x\" is undefined\n"
              "course/exclusiveScan.cu_inl:7:3: warning: unused\n");
}

TEST(StudentBuild, NotACourseFolderIsRefused) {
    BuildOptions o;
    o.dir = "/nonexistent/render";
    EXPECT_THROW(build_student(o), std::invalid_argument);
    o.dir = fixture("correct/..");  // a folder without cudaRenderer.cu
    EXPECT_THROW(build_student(o), std::invalid_argument);
}

TEST(StudentBuild, NoArchFlagsWithoutAGpu) {
    if (access("/usr/bin/nvidia-smi", X_OK) == 0) GTEST_SKIP() << "this machine has nvidia-smi";
    EXPECT_EQ(default_arch_flags(),
              "-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 "
              "-gencode arch=compute_86,code=sm_86 -gencode arch=compute_89,code=sm_89 "
              "-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90");
}

TEST(StudentBuild, EveryGoodFixtureBuildsAndIsCached) {
    REQUIRE_NVCC();
    for (const char* name : {"correct", "racy", "out_of_bounds", "hang", "define_uint", "no_scan_block_dim"}) {
        SCOPED_TRACE(name);
        BuildResult first;
        try {
            first = build_student(fixture_build(name));
        } catch (const BuildError& e) {
            FAIL() << e.what() << "\n" << e.messages;
        }
        EXPECT_TRUE(fs::exists(first.library));
        const std::vector<std::string> used = first.folder.used();
        EXPECT_NE(std::find(used.begin(), used.end(), "cudaRenderer.cu"), used.end());
        const auto t0 = std::chrono::steady_clock::now();
        const BuildResult again = build_student(fixture_build(name));
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        EXPECT_TRUE(again.cached);
        EXPECT_EQ(again.library, first.library);
        EXPECT_LT(s, 2.0) << "a cached build should start at once";
    }
}

TEST(StudentBuild, CompileErrorNamesTheStudentsFileAndLine) {
    REQUIRE_NVCC();
    try {
        build_student(fixture_build("compile_error"));
        FAIL() << "the compile_error fixture built";
    } catch (const BuildError& e) {
        const std::string want = fixture("compile_error") + "/fixture_kernels.cu_inl(6): error";
        EXPECT_NE(e.messages.find(want), std::string::npos) << e.messages;
        EXPECT_NE(e.messages.find("pixelShade"), std::string::npos) << e.messages;
        EXPECT_EQ(e.messages.find("/src/"), std::string::npos) << "cache paths leak: " << e.messages;
    }
}

TEST(StudentBuild, FrameworkCopiesInTheFolderAreIgnored) {
    REQUIRE_NVCC();
    const fs::path dir = fs::path(fixture_root()) / "../student-framework-copy";
    fs::remove_all(dir);
    fs::copy(fixture("no_scan_block_dim"), dir);
    std::ofstream(dir / "circleRenderer.h") << "#error the harness must use its own circleRenderer.h\n";
    std::ofstream(dir / "main.cpp") << "#error and must not compile the course's main.cpp\n";
    BuildOptions o = fixture_build("no_scan_block_dim");
    o.dir = dir.string();
    const BuildResult r = build_student(o);
    std::vector<std::string> ignored;
    for (const auto& x : r.folder.replaced) ignored.push_back(x.name);
    std::sort(ignored.begin(), ignored.end());
    EXPECT_EQ(ignored, (std::vector<std::string>{"circleRenderer.h", "main.cpp"}));
    EXPECT_TRUE(fs::exists(r.library));
}

}  // namespace
