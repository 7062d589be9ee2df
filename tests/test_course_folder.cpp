// Reading a course folder (render/student/course_folder.h) and its Makefile
// (makefile_reader.h): the pure readers on strings, then the fixture folders
// of every course layout (tests/students/layout_*) read and built with nvcc.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

#include "render/compare.h"
#include "render/frame_loop.h"
#include "render/grade_checks.h"
#include "render/image_io.h"
#include "render/renderer_factory.h"
#include "render/student/course_folder.h"
#include "render/student/makefile_reader.h"
#include "render/student/student_build.h"
#include "render/student/protocol.h"
#include "render/student/sanitize.h"
#include "render/student/student_renderer.h"
#include "scenes/scene.h"
#include "tests/file_checks.h"
#include "tests/student_fixtures.h"

namespace cr::student {
namespace {

namespace fs = std::filesystem;
using testing_students::fixture_cache_root;
using testing_students::fixture_root;

using Names = std::vector<std::string>;

const Names kCourseFiles = {"main.cpp", "display.cpp", "benchmark.cu", "refRenderer.cpp", "cudaRenderer.cu",
                            "noise.cpp", "ppm.cpp", "sceneLoader.cpp", "cudaRenderer.h", "old.cu"};

// A Makefile in the course's usual shape (written for this test).
const char* kCourseShape =
    "EXECUTABLE := render\n"
    "OBJDIR=objs\n"
    "NVCCFLAGS=-O3 -m64 --gpu-architecture compute_61 -DBLOCK=256\n"
    "OBJS=$(OBJDIR)/main.o $(OBJDIR)/display.o $(OBJDIR)/benchmark.o \\\n"
    "     $(OBJDIR)/refRenderer.o $(OBJDIR)/cudaRenderer.o $(OBJDIR)/noise.o $(OBJDIR)/ppm.o $(OBJDIR)/sceneLoader.o\n"
    ".PHONY: dirs clean\n"
    "default: $(EXECUTABLE)\n"
    "dirs:\n\tmkdir -p $(OBJDIR)/\n"
    "clean:\n\trm -rf $(OBJDIR)\n"
    "$(EXECUTABLE): dirs $(OBJS)\n\tg++ -o $@ $(OBJS) -lcudart\n"
    "$(OBJDIR)/%.o: %.cpp\n\tg++ $< -O3 -c -o $@\n"
    "$(OBJDIR)/%.o: %.cu\n\tnvcc $< $(NVCCFLAGS) -c -o $@\n";

TEST(MakefileReader, TheCoursesShapeBuildsItsObjectsSources) {
    const MakefileReading r = read_makefile(kCourseShape, kCourseFiles);
    EXPECT_TRUE(r.understood);
    EXPECT_EQ(r.goal, "default");
    EXPECT_EQ(r.sources, (Names{"main.cpp", "display.cpp", "benchmark.cu", "refRenderer.cpp", "cudaRenderer.cu",
                                "noise.cpp", "ppm.cpp", "sceneLoader.cpp"}));
    EXPECT_EQ(r.cuda_command, (Names{"nvcc", "benchmark.cu", "-O3", "-m64", "--gpu-architecture", "compute_61",
                                     "-DBLOCK=256", "-c", "-o", "objs/benchmark.o"}));
    EXPECT_TRUE(r.notes.empty()) << r.notes[0];
}

TEST(MakefileReader, CrlfLinesReadTheSame) {
    std::string crlf;
    for (const char* p = kCourseShape; *p; ++p) crlf += *p == '\n' ? std::string("\r\n") : std::string(1, *p);
    EXPECT_EQ(read_makefile(crlf, kCourseFiles).sources, read_makefile(kCourseShape, kCourseFiles).sources);
}

TEST(MakefileReader, ConditionalsFunctionsAndSubstitutionReferences) {
    const std::string mk =
        "CUDA_HOME ?= /opt/cuda\n"
        "BUILD := build/obj\n"
        "CU := cudaRenderer.cu benchmark.cu  # the kernels\n"
        "CC := main.cpp ppm.cpp\n"
        "ifeq ($(WITH_GL),1)\nCC += display.cpp\nelse ifdef CUDA_HOME\nCC += noise.cpp\nelse\nCC += refRenderer.cpp\nendif\n"
        "ifneq ($(wildcard /opt/cuda-8.0/.*),)\nCC += sceneLoader.cpp\nendif\n"
        "OBJ := $(patsubst %.cu,$(BUILD)/%.o,$(CU)) $(CC:%.cpp=$(BUILD)/%.o) $(addprefix $(BUILD)/,$(notdir x/y.o))\n"
        "all: render\n"
        "render: $(OBJ) | $(BUILD)\n\tg++ -o $@ $^\n"
        "$(BUILD)/%.o: %.cu\n\t@$(CUDA_HOME)/bin/nvcc -ccbin=g++ -c $< -o $@\n"
        "$(BUILD)/%.o: %.cpp\n\tg++ -c $< -o $@\n"
        "$(BUILD):\n\tmkdir -p $@\n";
    const MakefileReading r = read_makefile(mk, kCourseFiles);
    EXPECT_EQ(r.goal, "all");
    EXPECT_EQ(r.sources, (Names{"cudaRenderer.cu", "benchmark.cu", "main.cpp", "ppm.cpp", "noise.cpp"}));
    EXPECT_EQ(r.cuda_command, (Names{"/opt/cuda/bin/nvcc", "-ccbin=g++", "-c", "cudaRenderer.cu", "-o",
                                     "build/obj/cudaRenderer.o"}));
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_EQ(r.notes[0], "make has no rule to make build/obj/y.o");
}

TEST(MakefileReader, StaticPatternsDirectSourcesAndBuiltInRules) {
    const Names files = {"cudaRenderer.cu", "main.cpp", "helper.cc", "extra.cu", "prebuilt.o"};
    const std::string mk =
        "OBJS = objs/cudaRenderer.o objs/extra.o\n"
        "render: main.cpp $(OBJS) helper.o prebuilt.o\n\tnvcc -o $@ $^\n"
        "$(OBJS): objs/%.o: %.cu\n\tnvcc -O2 -c $< -o $@\n";
    const MakefileReading r = read_makefile(mk, files);
    EXPECT_EQ(r.sources, (Names{"main.cpp", "cudaRenderer.cu", "extra.cu", "helper.cc"}));
    EXPECT_EQ(r.cuda_command, (Names{"nvcc", "-O2", "-c", "cudaRenderer.cu", "-o", "objs/cudaRenderer.o"}));
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_EQ(r.notes[0], "links the prebuilt object prebuilt.o (not rebuilt)");
}

TEST(MakefileReader, AnExplicitRuleWithARecipeWinsOverThePattern) {
    const std::string mk =
        "render: objs/cudaRenderer.o\n\tg++ -o $@ $^\n"
        "objs/%.o: %.cu\n\tnvcc -c $< -o $@\n"
        "objs/cudaRenderer.o: cudaRenderer.cu cudaRenderer.h\n\tnvcc -G -c $< -o $@ && echo done\n";
    const MakefileReading r = read_makefile(mk, kCourseFiles);
    EXPECT_EQ(r.sources, Names{"cudaRenderer.cu"});
    EXPECT_EQ(r.cuda_command, (Names{"nvcc", "-G", "-c", "cudaRenderer.cu", "-o", "objs/cudaRenderer.o"}));
}

TEST(MakefileReader, WhatItCannotReadIsSaidNotGuessed) {
    const MakefileReading none = read_makefile("# only comments\nCC = gcc\n", kCourseFiles);
    EXPECT_FALSE(none.understood);
    EXPECT_EQ(none.notes, Names{"no default goal (no rule)"});
    const MakefileReading shell = read_makefile("SRC := $(shell ls *.cu)\nrender: $(SRC)\n\tnvcc -o $@ $^\n", kCourseFiles);
    EXPECT_FALSE(shell.understood);
    EXPECT_EQ(shell.notes, Names{"$(shell ls *.cu) was not run (taken as empty)"});
    const MakefileReading loop = read_makefile("A = $(A) x\nrender: $(A)\n", kCourseFiles);
    EXPECT_FALSE(loop.understood);
    EXPECT_EQ(loop.notes.front(), "a variable refers to itself (expansion stopped)");
}

TEST(MakefileReader, ForeachIfFilterAndWildcard) {
    const std::string mk =
        "ALL := $(wildcard *.cu)\n"
        "KEEP := $(filter-out old.cu,$(ALL))\n"
        "OBJ := $(foreach f,$(KEEP),$(basename $(f)).o)\n"
        "MODE := $(if $(DEBUG),debug,release)\n"
        "render: $(OBJ)\n\tnvcc -o $@ $^\n"
        "%.o: %.cu\n\tnvcc -D$(MODE) -c $< -o $@\n";
    const MakefileReading r = read_makefile(mk, kCourseFiles);
    EXPECT_EQ(r.sources, (Names{"benchmark.cu", "cudaRenderer.cu"}));
    EXPECT_EQ(r.cuda_command, (Names{"nvcc", "-Drelease", "-c", "benchmark.cu", "-o", "benchmark.o"}));
}

TEST(CourseLayout, ReadFromTheFrameworkHeaders) {
    const std::string enum12 = "typedef enum { CIRCLE_RGB, BIG_LITTLE, LITTLE_BIG } SceneName;\n";
    const std::string enum14 = "typedef enum { CIRCLE_RGB, LITTLE_BIG, CIRCLE_TEST_1M, MICRO_2M } SceneName;\n";
    const LayoutGuess a = guess_layout(enum12 + "virtual void loadScene(SceneName name) = 0;", "");
    EXPECT_EQ(a.layout, CourseLayout::A);
    EXPECT_EQ(layout_label(a), "course layout A (about 2019-2022): no seeds, 12 scenes");
    EXPECT_EQ(a.evidence, "your circleRenderer.h: 12 scenes, loadScene(SceneName)");
    const LayoutGuess b = guess_layout(enum14 + "virtual void loadScene( SceneName name )=0;", "");
    EXPECT_EQ(b.layout, CourseLayout::B);
    EXPECT_EQ(layout_label(b), "course layout B (about 2023-2024): no seeds, 14 scenes");
    const LayoutGuess c = guess_layout(enum14 + "// loadScene(SceneName name) was\nvirtual void loadScene(SceneName name,int seed=0)=0;", "");
    EXPECT_EQ(c.layout, CourseLayout::C);
    EXPECT_EQ(layout_label(c), "course layout C (October 2025 on): seeds, 14 scenes");
    const LayoutGuess only_header = guess_layout("", "class CudaRenderer { void loadScene(SceneName name); };");
    EXPECT_FALSE(only_header.seeds);
    EXPECT_EQ(only_header.scenes, 14);
    EXPECT_EQ(only_header.evidence, "your cudaRenderer.h: loadScene(SceneName) (no circleRenderer.h in the folder)");
}

TEST(CourseFolderFlags, TheMakefilesMeaningfulFlagsArePassedOn) {
    std::vector<std::string> notes;
    const Names cmd = {"/opt/cuda/bin/nvcc", "-ccbin=g++", "cudaRenderer.cu", "-O3", "-m64", "-arch", "sm_61",
                       "-DBLOCK=256", "-D", "TILE=16", "--use_fast_math", "-I../common", "-Xptxas", "-v",
                       "-std=c++11", "-c", "-o", "objs/cudaRenderer.o"};
    EXPECT_EQ(makefile_nvcc_flags(cmd, "/home/s/render", notes),
              (Names{"-O3", "-DBLOCK=256", "-D", "TILE=16", "--use_fast_math", "-I/home/s/common", "-Xptxas", "-v"}));
    EXPECT_EQ(notes, (Names{"the Makefile's -arch sm_61 is not used: the harness builds for this machine's GPU",
                            "the Makefile's nvcc flags -ccbin=g++ -std=c++11 are not used (the harness compiles with -O3 "
                            "-std=c++17 into a shared library)"}));
}

TEST(BuildMessages, TheStudentsOwnErrorLeads) {
    CourseFolder f;
    f.dir = "/home/s/render";
    f.layout = guess_layout("virtual void loadScene(SceneName name) = 0;", "");
    const std::string out =
        "harness/cr_student_entry.cu(118): error: object of abstract class type \"CudaRenderer\" is not allowed:\n"
        "/home/s/render/cudaRenderer.cu(658): error: identifier \"foo\" is undefined\n";
    std::string headline;
    const std::string summary = explain_build_failure(out, f, headline);
    EXPECT_EQ(headline, "/home/s/render/cudaRenderer.cu(658): error: identifier \"foo\" is undefined");
    EXPECT_EQ(summary.rfind("First error in your files:\n  /home/s/render/cudaRenderer.cu(658)", 0), 0u) << summary;
}

TEST(BuildMessages, AnEntryErrorSaysWhatTheHarnessExpectedAndTheLayout) {
    CourseFolder f;
    f.dir = "/home/s/render";
    f.layout = guess_layout("typedef enum { CIRCLE_RGB } SceneName;\nvirtual void loadScene(SceneName name) = 0;", "");
    std::string headline;
    const std::string summary = explain_build_failure(
        "harness/cr_student_entry.cu(118): error: object of abstract class type \"CudaRenderer\" is not allowed:\n", f,
        headline);
    EXPECT_EQ(headline,
              "your class CudaRenderer does not implement every pure virtual member that your circleRenderer.h "
              "declares; the harness read your folder as course layout A (about 2019-2022): no seeds, 12 scenes (your "
              "circleRenderer.h: 12 scenes, loadScene(SceneName)) and calls a public default constructor and "
              "getImage(), setup(), loadScene(SceneName), allocOutputImage(int, int), clearImage(), "
              "advanceAnimation(), render()");
    EXPECT_EQ(summary.find("cr_student_entry.cu(118): error"), std::string::npos) << "the raw entry line leads: " << summary;
}

std::string fixture(const std::string& name) { return fixture_root() + "/" + name; }

TEST(CourseFolder, EachLayoutFixtureIsReadAsItsCourseBuildsIt) {
    const CourseFolder a = read_course_folder(fixture("layout_a"));
    EXPECT_EQ(a.layout.layout, CourseLayout::A);
    EXPECT_TRUE(a.makefile_used);
    EXPECT_EQ(a.compiled, Names{"cudaRenderer.cu"});
    Names replaced;
    for (const auto& r : a.replaced) replaced.push_back(r.name);
    EXPECT_EQ(replaced, (Names{"benchmark.cpp", "display.cpp", "main.cpp", "noise.cpp", "ppm.cpp", "refRenderer.cpp",
                               "sceneLoader.cpp", "platformgl.h"}));
    EXPECT_EQ(a.from_project, Names{});
    EXPECT_EQ(a.nvcc_flags, Names{"-O3"});

    const CourseFolder b = read_course_folder(fixture("layout_b"));
    EXPECT_EQ(b.layout.layout, CourseLayout::B);
    EXPECT_EQ(b.reading.goal, "all");
    EXPECT_EQ(b.not_built, (Names{"cudaRenderer_old.cu", "display.cpp"}));
    EXPECT_EQ(b.include_aliases, (std::vector<std::pair<std::string, std::string>>{{"CycleTimer.h", "cycleTimer.h"}}));

    const CourseFolder c = read_course_folder(fixture("layout_c"));
    EXPECT_EQ(c.layout.layout, CourseLayout::C);
    EXPECT_EQ(c.nvcc_flags, (Names{"-O3", "-DFIXTURE_MAKEFILE_DEFINE=1"}));
    EXPECT_EQ(c.snow_par, "");
    EXPECT_TRUE(c.reference_binaries.empty());
}

TEST(CourseFolder, TheFoldersOwnBenchmarkSaysHowItsCallsAreTimed) {
    const CourseFolder a = read_course_folder(fixture("layout_a"));  // the 2019-2022 benchmark.cpp: no synchronization
    EXPECT_EQ(a.benchmark.file, "benchmark.cpp");
    EXPECT_FALSE(a.benchmark.syncs);
    EXPECT_EQ(benchmark_timing_text(a.benchmark).rfind("your benchmark.cpp reads the clock as each call returns", 0), 0u);
    for (const char* name : {"layout_b", "layout_c"}) {
        const CourseFolder f = read_course_folder(fixture(name));
        EXPECT_EQ(f.benchmark.file, "benchmark.cu") << name;
        EXPECT_TRUE(f.benchmark.syncs) << name;
    }
    const CourseFolder none = read_course_folder(fixture("racy"));  // no benchmark: the newest course's way
    EXPECT_EQ(none.benchmark.file, "");
    EXPECT_TRUE(none.benchmark.syncs);
    EXPECT_TRUE(benchmark_synchronizes("r->render();\ncudaDeviceSynchronize();\n"));
    EXPECT_TRUE(benchmark_synchronizes("cudaThreadSynchronize(); // the CUDA 3 name"));
    EXPECT_FALSE(benchmark_synchronizes("r->render(); // cudaDeviceSynchronize();\n"));
    EXPECT_FALSE(benchmark_synchronizes("/* cudaDeviceSynchronize(); */ r->render();"));
    EXPECT_FALSE(benchmark_synchronizes("printf(\"no cudaDeviceSynchronize \\\" here\");"));
    EXPECT_TRUE(benchmark_synchronizes("printf(\"a \\\" quote\"); cudaDeviceSynchronize();"));
    EXPECT_TRUE(benchmark_synchronizes("char q = '\"'; cudaDeviceSynchronize();"));  // a quote in a character literal
    EXPECT_TRUE(benchmark_synchronizes("puts(\"// not a comment\"); cudaDeviceSynchronize();"));
}

TEST(CourseFolder, WithoutAMakefileTodaysRuleHolds) {
    const CourseFolder f = read_course_folder(fixture("racy"));
    EXPECT_FALSE(f.makefile_used);
    EXPECT_EQ(f.compiled, Names{"cudaRenderer.cu"});
    EXPECT_EQ(f.headers, (Names{"cudaRenderer.h", "fixture_kernels.cu_inl"}));
    EXPECT_EQ(f.layout.layout, CourseLayout::C);
}

BuildOptions fixture_build(const std::string& dir) {
    BuildOptions o;
    o.dir = dir;
    o.cache_root = fixture_cache_root();
    return o;
}

TEST(CourseFolderBuild, EveryLayoutFixtureBuilds) {
    REQUIRE_NVCC();
    for (const char* name : {"layout_a", "layout_b", "layout_c"}) {
        SCOPED_TRACE(name);
        try {
            const BuildResult r = build_student(fixture_build(fixture(name)));
            EXPECT_TRUE(fs::exists(r.library));
            if (std::string(name) == "layout_b") {
                EXPECT_EQ(r.crlf.size(), 14u);
            }
        } catch (const BuildError& e) {
            FAIL() << e.what() << "\n" << e.messages;
        }
    }
}

TEST(CourseFolderBuild, AClassThatDoesNotMatchItsLayoutIsExplained) {
    REQUIRE_NVCC();
    const fs::path dir = fs::path(fixture_root()) / "../student-layout-mismatch";
    fs::remove_all(dir);
    fs::copy(fixture("layout_a"), dir);
    {  // the class declares layout C's loadScene while its circleRenderer.h is layout A's
        std::ifstream in(dir / "cudaRenderer.h");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        text.replace(text.find("void loadScene(SceneName name);"), 31, "void loadScene(SceneName name, int s);");
        std::ofstream(dir / "cudaRenderer.h") << text;
    }
    try {
        build_student(fixture_build(dir.string()));
        FAIL() << "the mismatched folder built";
    } catch (const BuildError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(dir.lexically_normal().string() + "/cudaRenderer.cu("), std::string::npos) << what;
        EXPECT_EQ(e.messages.rfind("First error in your files:", 0), 0u) << e.messages;
        EXPECT_NE(e.messages.find("course layout A (about 2019-2022): no seeds, 12 scenes"), std::string::npos)
            << e.messages;
    }
}

// The harness's whole path without a GPU: the host-only renderer of each
// layout (tests/students/host_only, drawing on the CPU inside the student's
// library) run in the worker with CR_STUDENT_NO_CUDA_SYNC. Layout A's
// renderer has no seed and its enum stops at LITTLE_BIG, its Image has
// members before `width`; B is CRLF with "CycleTimer.h" naming cycleTimer.h.
class HostOnlyLayouts : public ::testing::Test {
protected:
    void SetUp() override { setenv("CR_STUDENT_NO_CUDA_SYNC", "1", 1); }
    void TearDown() override { unsetenv("CR_STUDENT_NO_CUDA_SYNC"); }

    std::unique_ptr<StudentRenderer> renderer(const std::string& name, int gpu = -1) {
        StudentOptions so;
        so.library = build_student(fixture_build(fixture(name))).library;
        so.gpu = gpu;
        return std::make_unique<StudentRenderer>(so);
    }
};

/// The names in /dev/shm of the shared-memory regions this process created
/// (SharedRegion::create: circle-renderer-PID-N), sorted.
std::vector<std::string> shared_regions_of_this_process() {
    const std::string prefix = "circle-renderer-" + std::to_string(getpid()) + "-";
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/dev/shm", ec))
        if (e.path().filename().string().rfind(prefix, 0) == 0) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

/// The lines of `path` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& path, const std::string& prefix) {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0) out.push_back(line);
    return out;
}

/// Sets or unsets CUDA_VISIBLE_DEVICES for a scope, and puts the old value back.
class VisibleDevices {
public:
    explicit VisibleDevices(const char* value) {
        if (const char* old = std::getenv("CUDA_VISIBLE_DEVICES")) old_ = old, had_ = true;
        if (value) setenv("CUDA_VISIBLE_DEVICES", value, 1);
        else unsetenv("CUDA_VISIBLE_DEVICES");
    }
    ~VisibleDevices() {
        if (had_) setenv("CUDA_VISIBLE_DEVICES", old_.c_str(), 1);
        else unsetenv("CUDA_VISIBLE_DEVICES");
    }

private:
    std::string old_;
    bool had_ = false;
};

TEST_F(HostOnlyLayouts, StudentGpuIsTheWorkersVisibleDevice) {
    REQUIRE_NVCC();
    const VisibleDevices none(nullptr);
    auto on_3 = renderer("host_c", 3);  // --student-gpu 3: the worker's CUDA sees GPU 3 only
    render_frames(*on_3, make_scene("rgb", 0), 16, 16, 1);
    EXPECT_EQ(lines_starting(on_3->log_path(), "--- harness: on GPU"),
              std::vector<std::string>{"--- harness: on GPU 3 (CUDA_VISIBLE_DEVICES)"});
    auto mine = renderer("host_b");  // no --student-gpu: the worker inherits ours (none here)
    render_frames(*mine, make_scene("rgb", 0), 16, 16, 1);
    EXPECT_TRUE(lines_starting(mine->log_path(), "--- harness: on GPU").empty());
}

TEST(StudentGpu, NumberedAsThisProcessSeesTheGpus) {
    {
        const VisibleDevices none(nullptr);
        EXPECT_EQ(visible_device_for(1), "1");
    }
    const VisibleDevices slurm("2, 3");  // a job given physical GPUs 2 and 3: our 0 and 1
    EXPECT_EQ(visible_device_for(0), "2");
    EXPECT_EQ(visible_device_for(1), "3");
    EXPECT_EQ(visible_device_for(2), "-1");  // past the list: no GPU at all, not physical GPU 2 (our 0)
}

Image cpuref_frame(const Scene& s, int w, int h) {
    auto ref = make_renderer("cpuref");
    return render_last_frame(*ref, s, w, h, 1);
}

TEST_F(HostOnlyLayouts, EachLayoutDrawsTheScenesAndSeedsItIsAskedFor) {
    REQUIRE_NVCC();
    for (const char* name : {"host_a", "host_b", "host_c"}) {
        SCOPED_TRACE(name);
        auto r = renderer(name);
        for (const auto& [scene, seed, w, h] : {std::tuple{"rgb", 0u, 64, 64}, std::tuple{"rand10k", 7u, 100, 60},
                                                std::tuple{"pattern", 0u, 64, 64}, std::tuple{"rand1M", 0u, 24, 24},
                                                std::tuple{"micro2M", 3u, 16, 16}}) {
            const Scene s = make_scene(scene, seed);
            const Image img = render_frames(*r, s, w, h, 1);
            const CompareStats st = compare_images(img, cpuref_frame(s, w, h));
            EXPECT_TRUE(st.pass) << scene << " seed " << seed << ": " << describe(st);
            EXPECT_EQ(st.max_abs_error, 0.0) << scene;
        }
        const Image seed0 = render_frames(*r, make_scene("rand10k", 0), 100, 60, 1);
        const Image seed7 = render_frames(*r, make_scene("rand10k", 7), 100, 60, 1);
        EXPECT_FALSE(compare_images(seed0, seed7).pass) << "seed 7 drew the circles of seed 0";
    }
}

TEST_F(HostOnlyLayouts, EveryCourseTimingRunIsAFreshWorkerProcess) {
    REQUIRE_NVCC();
    auto r = renderer("host_c");
    const Scene s = make_scene("rgb", 0);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(run_course_process(*r, s, 64, 64, FrameRange{0, 4}, "").counted, 4);
    std::set<std::string> workers;
    int setups = 0;
    for (const std::string& line : lines_starting(r->log_path(), "--- harness: setup 64x64, scene rgb")) {
        ++setups;
        workers.insert(line.substr(line.rfind(' ') + 1));
    }
    EXPECT_EQ(setups, 3);
    EXPECT_EQ(workers.size(), 3u) << "a timing run reused a warm worker";
}

TEST_F(HostOnlyLayouts, ACourseFrameTimedWithoutSynchronizingDrawsTheSameFrames) {
    REQUIRE_NVCC();
    StudentOptions so;  // as for a layout-A folder: the clock read as each call returns
    so.library = build_student(fixture_build(fixture("host_a"))).library;
    so.course_sync_each_call = false;
    const Scene s = make_scene("rand10k", 7);
    // the worker says in its log where it would synchronize (CR_STUDENT_NO_CUDA_SYNC): once after each frame
    const auto sync_lines = [](const std::string& log, const std::string& after) {
        const std::string said = "--- harness: no sync (test hook) after ";
        const std::vector<std::string> lines = lines_starting(log, said);
        return std::count(lines.begin(), lines.end(), said + after);
    };
    {
        StudentRenderer r(so);
        const FrameTimes t = run_course_process(r, s, 100, 60, FrameRange{0, 3}, "");
        EXPECT_EQ(t.counted, 3);
        EXPECT_GT(t.render_ms, 0.0);  // the host-only renderer draws inside render(): it is timed
        auto ref = make_renderer("cpuref");
        const CompareStats st = compare_images(r.image(), render_last_frame(*ref, s, 100, 60, 3));
        EXPECT_EQ(st.max_abs_error, 0.0) << describe(st);
        EXPECT_EQ(sync_lines(r.log_path(), "the frame's calls (clearImage(), advanceAnimation(), render())"), 3);
        EXPECT_EQ(sync_lines(r.log_path(), "render()"), 0);
    }
    so.course_sync_each_call = true;  // layouts B and C: after each call
    StudentRenderer synced(so);
    run_course_process(synced, s, 100, 60, FrameRange{0, 3}, "");
    EXPECT_EQ(sync_lines(synced.log_path(), "render()"), 3);
    EXPECT_EQ(sync_lines(synced.log_path(), "clearImage()"), 3);
    EXPECT_EQ(sync_lines(synced.log_path(), "the frame's calls (clearImage(), advanceAnimation(), render())"), 0);
}

TEST_F(HostOnlyLayouts, TheWorkerWritesEachTimingRunsPpmFilesItselfAsTheCoursesBinaryDoes) {
    REQUIRE_NVCC();
    // Op::CourseFrame: clear, advance, render back to back in the worker, then
    // the PPM file from getImage(), written there: the same bytes as ours
    auto r = renderer("host_c");
    const Scene s = make_scene("rand10k", 3);
    testing_files::TempDir out("course_frame");
    const FrameTimes t = run_course_process(*r, s, 64, 48, FrameRange{1, 3}, (out.dir() / "output").string());
    EXPECT_EQ(t.counted, 2);
    EXPECT_DOUBLE_EQ(t.total_ms, t.clear_ms + t.advance_ms + t.render_ms);
    EXPECT_FALSE(fs::exists(out.dir() / "output_0000.ppm"));  // frame 0 is not counted: no file
    EXPECT_FALSE(fs::exists(out.dir() / "output_0003.ppm"));
    auto cpuref = make_renderer("cpuref");
    for (int f = 1; f < 3; ++f) {
        const fs::path got = out.dir() / ("output_000" + std::to_string(f) + ".ppm");
        ASSERT_TRUE(fs::exists(got)) << got;
        const fs::path want = out.dir() / ("want_000" + std::to_string(f) + ".ppm");
        write_image(render_last_frame(*cpuref, s, 64, 48, f + 1), want.string(), ImageFormat::Ppm);
        EXPECT_EQ(testing_files::slurp(got.string()), testing_files::slurp(want.string())) << "frame " << f;
    }
}

TEST_F(HostOnlyLayouts, ARendererThatHungInACheckIsNotRunAgain) {
    REQUIRE_NVCC();
    // host_hang returns from its first 3 renders of a worker only: the first
    // check draws 3 (once, then twice more for the race check), the second
    // hangs; the others would each wait the whole time limit again
    StudentOptions so;
    so.library = build_student(fixture_build(fixture("host_hang"))).library;
    so.call_timeout_s = 1;
    StudentRenderer r(so);
    testing_files::TempDir scratch("hang_checks");
    const CourseFolder none;
    const GradeScenes scenes(none, scratch.dir());
    const std::vector<CheckJob> jobs = {{"rgb", 0, 64, 64}, {"rand10k", 0, 64, 48}, {"pattern", 0, 64, 64}, {"rgb", 0, 32, 32}};
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<GradeCheck> checks = run_grade_checks(r, jobs, scenes);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(checks.size(), 4u);
    EXPECT_TRUE(checks[0].pass) << checks[0].why;
    EXPECT_FALSE(checks[0].hung);
    EXPECT_TRUE(checks[1].hung);
    EXPECT_FALSE(checks[1].pass);
    EXPECT_NE(checks[1].why.find("did not return within 1 s"), std::string::npos) << checks[1].why;
    for (size_t k = 2; k < 4; ++k) {
        EXPECT_TRUE(checks[k].hung);
        EXPECT_FALSE(checks[k].pass);
        EXPECT_EQ(checks[k].why, "not run: your renderer hung in the check of rand10k 64x48");
    }
    EXPECT_LT(s, 8.0) << "the checks after the hang waited for it again";
}

TEST_F(HostOnlyLayouts, AnAllocationPastTheBudgetFailsInsideTheStudentsProcessAndIsSaid) {
    REQUIRE_NVCC();
    StudentOptions so;
    so.library = build_student(fixture_build(fixture("host_hog"))).library;  // setup() asks for 64 GiB
    so.device_memory_bytes = 16ull << 30;
    {
        StudentRenderer r(so);
        try {
            r.setup(make_scene("rgb", 0), 16, 16);
            FAIL() << "the allocation past the budget was not reported";
        } catch (const StudentFault& e) {
            EXPECT_EQ(std::string(e.what()),
                      "student renderer: setup(): your renderer asked for more than 16 GiB of device memory: cudaMalloc of "
                      "64.00 GiB while holding 0.00 GiB was refused (the harness's budget for your renderer; "
                      "--student-memory GIB sets it)");
            EXPECT_EQ(e.call, Call::Setup);
        }
        std::ifstream log(r.log_path());
        const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
        EXPECT_NE(text.find("cudaMalloc failed"), std::string::npos) << "the student's code did not see the failure: " << text;
    }
    // The faulted worker is reaped on a detached thread, which this process
    // does not wait for: its shared-memory names must be gone already (they
    // were left in /dev/shm, and a later process of the same pid failed on them).
    EXPECT_EQ(shared_regions_of_this_process(), std::vector<std::string>{});
}

TEST_F(HostOnlyLayouts, AnExitInTheStudentsCallIsSaidWithItsCode) {
    REQUIRE_NVCC();
    auto r = renderer("host_exit");  // render() calls exit(188)
    try {
        render_frames(*r, make_scene("rgb", 0), 16, 16, 1);
        FAIL() << "the exit was not reported";
    } catch (const StudentFault& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("student renderer: your code called exit(188) in render(), frame 0", 0), 0u) << what;
        EXPECT_EQ(e.call, Call::Render);
    }
    auto again = renderer("host_c");  // another worker is unharmed
    EXPECT_EQ(compare_images(render_frames(*again, make_scene("rgb", 0), 16, 16, 1), cpuref_frame(make_scene("rgb", 0), 16, 16))
                  .max_abs_error,
              0.0);
}

TEST(StudentMessages, CudaErrorsAndExitsAreSaidByNameAndCode) {
    EXPECT_EQ(cuda_error_sentence(700, "cudaErrorIllegalAddress\tan illegal memory access was encountered"),
              "CUDA error 700 (cudaErrorIllegalAddress), an illegal memory access was encountered");
    WorkerStatus st;
    st.exited = 1;
    st.exit_code = 188;
    st.cuda_error = 700;
    std::snprintf(st.cuda_text, sizeof st.cuda_text, "%s", "cudaErrorIllegalAddress\tan illegal memory access was encountered");
    EXPECT_EQ(exit_sentence(st, "render(), frame 0"),
              "your code called exit(188) in render(), frame 0, after CUDA error 700 (cudaErrorIllegalAddress), an "
              "illegal memory access was encountered (188 is what exit() keeps of 700)");
    st.cuda_error = 0;
    EXPECT_EQ(exit_sentence(st, "setup()"), "your code called exit(188) in setup()");
    st.exited = 0;
    EXPECT_EQ(exit_sentence(st, "setup()"), "");
}

TEST_F(HostOnlyLayouts, ANonSquareImageIsReadThroughTheStudentsOwnImage) {
    REQUIRE_NVCC();
    auto r = renderer("host_a");  // its Image has a long long before width: a misread would show here
    r->setup(make_scene("rgb", 0), 33, 17);
    r->clear();
    r->render();
    const Image& img = r->image();
    EXPECT_EQ(img.width, 33);
    EXPECT_EQ(img.height, 17);
}

}  // namespace
}  // namespace cr::student

namespace cr::student {
namespace {

// compute-sanitizer's report, in the shape its documentation shows (memcheck
// in today's "at KERNEL+0xOFF in FILE:LINE" form, one error twice).
const char* kMemcheckLog =
    "========= COMPUTE-SANITIZER\n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at renderPerPixel(const float *, int, float *, int, int)+0x1d0 in /s/render/kernels.cu_inl:9\n"
    "=========     by thread (16,0,0) in block (15,0,0)\n"
    "=========     Address 0x7f3a2c040000 is out of bounds\n"
    "=========     and is 1 bytes after the nearest allocation at 0x7f3a2c000000 of size 262144 bytes\n"
    "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
    "=========         Host Frame: [0x2f1a3] in libcuda.so.1\n"
    "=========\n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at renderPerPixel(const float *, int, float *, int, int)+0x1d0 in /s/render/kernels.cu_inl:9\n"
    "=========     by thread (17,0,0) in block (15,0,0)\n"
    "=========     Address 0x7f3a2c040004 is out of bounds\n"
    "=========\n"
    "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API call to cudaDeviceSynchronize.\n"
    "=========     Saved host backtrace up to driver entry point at error\n"
    "=========\n"
    "========= ERROR SUMMARY: 3 errors\n";

TEST(Sanitizer, EachDistinctErrorOnceWithItsKernelLineAndFirstThread) {
    const SanitizerReport r = parse_sanitizer_log(kMemcheckLog);
    ASSERT_EQ(r.findings.size(), 2u);
    EXPECT_EQ(r.total, 3);
    EXPECT_EQ(r.summary, "ERROR SUMMARY: 3 errors");
    const SanitizerFinding& w = r.findings[0];
    EXPECT_EQ(w.what, "Invalid __global__ write of size 4 bytes");
    EXPECT_EQ(w.kernel, "renderPerPixel");
    EXPECT_EQ(w.where, "/s/render/kernels.cu_inl:9");
    EXPECT_EQ(w.thread, "(16,0,0)");
    EXPECT_EQ(w.block, "(15,0,0)");
    EXPECT_EQ(w.detail, "Address 0x7f3a2c040000 is out of bounds");
    EXPECT_EQ(w.count, 2);
    EXPECT_EQ(r.findings[1].kernel, "");
    EXPECT_EQ(describe_sanitizer_report(r, "memcheck"),
              "  1. Invalid __global__ write of size 4 bytes in kernel renderPerPixel at /s/render/kernels.cu_inl:9\n"
              "     first by thread (16,0,0) in block (15,0,0); Address 0x7f3a2c040000 is out of bounds; 2 times\n"
              "  2. Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API "
              "call to cudaDeviceSynchronize. (left by the kernel's fault in 1.: fix that one)\n     1 time\n"
              "compute-sanitizer memcheck: 2 distinct errors, 3 in all (the tool's ERROR SUMMARY: 3 errors)\n");
}

TEST(Sanitizer, RacesBarriersAndTheOlderSiteForm) {
    const SanitizerReport race = parse_sanitizer_log(
        "========= Error: Race reported between Write access at renderKernel(bool)+0x5f0 in /s/render/cudaRenderer.cu:120\n"
        "=========     and Read access at renderKernel(bool)+0x4c0 in /s/render/cudaRenderer.cu:118 [16384 hazards]\n"
        "=========\n"
        "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n");
    ASSERT_EQ(race.findings.size(), 1u);
    EXPECT_EQ(race.findings[0].what, "Race reported between Write access and Read access");
    EXPECT_EQ(race.findings[0].kernel, "renderKernel");
    EXPECT_EQ(race.findings[0].where, "/s/render/cudaRenderer.cu:120");
    EXPECT_EQ(race.findings[0].other, "/s/render/cudaRenderer.cu:118");
    EXPECT_EQ(race.total, 16384);
    const SanitizerReport sync = parse_sanitizer_log(
        "========= Barrier error detected. Divergent thread(s) in block\n"
        "=========     at 0x2b0 in /s/render/cudaRenderer.cu:55:scanKernel(unsigned int *)\n"
        "=========     by thread (32,0,0) in block (0,0,0)\n"
        "========= ERROR SUMMARY: 1 error\n");
    ASSERT_EQ(sync.findings.size(), 1u);
    EXPECT_EQ(sync.findings[0].kernel, "scanKernel");
    EXPECT_EQ(sync.findings[0].where, "/s/render/cudaRenderer.cu:55");
    EXPECT_EQ(sync.findings[0].thread, "(32,0,0)");
    EXPECT_EQ(describe_sanitizer_report(parse_sanitizer_log("========= ERROR SUMMARY: 0 errors\n"), "synccheck"),
              "compute-sanitizer synccheck: no errors in your renderer (ERROR SUMMARY: 0 errors)\n");
}

TEST(Sanitizer, ToolNames) {
    EXPECT_EQ(sanitizer_tool(""), "memcheck");
    EXPECT_EQ(sanitizer_tool("racecheck"), "racecheck");
    EXPECT_THROW(sanitizer_tool("leakcheck"), std::invalid_argument);
}

/// A build of /home/you/render (cudaRenderer.cu and `header`) cached in /c/student/0123abcd.
BuildResult build_with_header(const std::string& header) {
    BuildResult b;
    b.build_dir = "/c/student/0123abcd";
    b.folder.dir = "/home/you/render";
    b.folder.compiled = {"cudaRenderer.cu"};
    b.folder.headers = {header};
    return b;
}

TEST(Sanitizer, StagedPathsBecomeTheStudentsOwn) {
    const BuildResult b = build_with_header("exclusiveScan.cu_inl");
    EXPECT_EQ(map_build_paths("at k()+0x10 in /c/student/tmp-4242-0123abcd/src/cudaRenderer.cu:7\n"
                              "at k()+0x20 in /c/student/0123abcd/src/cr_orig/exclusiveScan.cu_inl:30\n",
                              b),
              "at k()+0x10 in /home/you/render/cudaRenderer.cu:7\n"
              "at k()+0x20 in /home/you/render/exclusiveScan.cu_inl:30\n");
}

TEST(Sanitizer, AFileNamedWithoutItsFolderIsTheStudentsOwnToo) {
    // compute-sanitizer prints an included .cu_inl by its bare name
    BuildResult b = build_with_header("fixture_kernels.cu_inl");
    EXPECT_EQ(map_build_paths("at renderOutOfBounds()+0x90 in fixture_kernels.cu_inl:13\n", b),
              "at renderOutOfBounds()+0x90 in /home/you/render/fixture_kernels.cu_inl:13\n");
    EXPECT_EQ(map_build_paths("at k()+0x10 in other.cu:4\n", b), "at k()+0x10 in other.cu:4\n");  // not a file of theirs
    b.folder.include_aliases = {{"Fixture_Kernels.cu_inl", "fixture_kernels.cu_inl"}};  // included in another case
    EXPECT_EQ(map_build_paths("at k()+0x30 in Fixture_Kernels.cu_inl:2\n", b),
              "at k()+0x30 in /home/you/render/fixture_kernels.cu_inl:2\n");
}

}  // namespace
}  // namespace cr::student
