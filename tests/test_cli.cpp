// The `render` command end to end: exit codes (0 ok, 1 mismatch, 2 usage,
// 3 no GPU), messages and the files it writes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "render/cpu/cpu_stages.h"
#include "render/frame_loop.h"
#include "render/core/numbers.h"
#include "render/image_io.h"
#include "render/renderer_factory.h"
#include "scenes/scene.h"

#ifndef RENDER_EXE
#error "RENDER_EXE (path of the render binary) must be defined by tests/CMakeLists.txt"
#endif

#include "tests/file_checks.h"
#include "tests/student_fixtures.h"

namespace {

struct CmdResult {
    int code = -1;
    std::string out, err;
};

using cr::testing_files::slurp;
using cr::testing_files::TempDir;

bool exists(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

/// Each test in a fresh folder `dir` under /tmp, removed afterwards.
class Cli : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_FALSE(dir.empty()) << "mkdtemp failed"; }
    /// Runs `render ARGS` (ARGS as a shell fragment), capturing stdout and stderr;
    /// in folder `cwd` when given (else the test's own working directory).
    CmdResult render(const std::string& args, const std::string& cwd = "") { return render_env("", args, cwd); }
    /// The same with environment assignments `env` ("A=1 B=2") for render.
    CmdResult render_env(const std::string& env, const std::string& args, const std::string& cwd = "") {
        const std::string out = dir + "/stdout.txt", err = dir + "/stderr.txt";
        const std::string cd = cwd.empty() ? "" : "cd '" + cwd + "' && ";
        const std::string cmd = cd + env + " '" + RENDER_EXE + "' " + args + " >'" + out + "' 2>'" + err + "'";
        const int status = std::system(cmd.c_str());
        CmdResult r;
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r.out = slurp(out);
        r.err = slurp(err);
        return r;
    }
    TempDir tmp{"cli"};
    const std::string dir = tmp.path();
};

#define EXPECT_CONTAINS(haystack, needle) \
    EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

TEST_F(Cli, CheckPasses) {
    const CmdResult r = render("--scene rgb --renderer cpu --size 64 --check");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_CONTAINS(r.out, "Check vs cpuref (live): PASS");
    EXPECT_CONTAINS(r.out, "\nPASS\n");
    EXPECT_CONTAINS(r.out, "Scene: rgb (3 circles)");
    EXPECT_CONTAINS(r.out, "Size: 64x64");
}

TEST_F(Cli, CheckAgainstStoredReference) {
    const CmdResult r = render("--scene rgby -r cpuref -s 256 --check");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_CONTAINS(r.out, "rgby_256x256_s0_f0000.png: PASS");
    EXPECT_CONTAINS(r.out, "8-bit pixels differing: 0 ");
}

TEST_F(Cli, UnknownSceneListsValidNames) {
    const CmdResult r = render("--scene nope -r cpuref -s 32");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "unknown scene 'nope'");
    for (const char* n : {"rgb", "rgby", "rand10k", "pattern", "snowsingle", "rand10M"}) EXPECT_CONTAINS(r.err, n);
}

TEST_F(Cli, BadSizesExit2) {
    for (const char* s : {"0", "16385", "abc", "10x0", "x10", "-5", "64x"}) {
        const CmdResult r = render(std::string("--scene rgb -r cpuref --size ") + s);
        EXPECT_EQ(r.code, 2) << "size " << s << ": " << r.err;
        EXPECT_CONTAINS(r.err, std::string("bad size '") + s + "'");
    }
}

TEST_F(Cli, BadFrameRangesExit2) {
    for (const char* f : {"3:1", "2:2", "x", "1:", "0:1000001"}) {
        const CmdResult r = render(std::string("--scene rgb -r cpuref -s 16 --frames ") + f);
        EXPECT_EQ(r.code, 2) << "frames " << f << ": " << r.err;
        EXPECT_CONTAINS(r.err, std::string("bad frame range '") + f + "'");
    }
    // A negative start: either CLI11 or parse_frame_range rejects it, with 2.
    CmdResult r = render("--scene rgb -r cpuref -s 16 --frames=-1:2");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_CONTAINS(r.err, "bad frame range '-1:2'");
    r = render("--scene rgb -r cpuref -s 16 -b -1:2");
    EXPECT_EQ(r.code, 2) << r.err;
}

TEST_F(Cli, UnknownRendererExit2) {
    const CmdResult r = render("--scene rgb -r warp -s 16");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "unknown renderer 'warp'");
    EXPECT_CONTAINS(r.err, "cpuref");
}

TEST_F(Cli, TheCourseNameOfAGpuRendererIsSaidAsTyped) {
    std::string why;
    if (cr::cuda_device_available(&why)) GTEST_SKIP() << "a CUDA device is present";
    const CmdResult r = render("--scene rgb -r cuda -s 16");
    EXPECT_EQ(r.code, 3) << r.out << r.err;
    EXPECT_EQ(r.err, "render: renderer 'cuda' (= tiled) needs a CUDA GPU: " + why + "; use --renderer cpu or cpuref\n");
}

TEST_F(Cli, HelpListsEveryRenderer) {
    const CmdResult r = render("--help");
    EXPECT_EQ(r.code, 0);
    EXPECT_CONTAINS(r.out, "cpuref, cpu, naive, tiled (= cuda), persistent, ftb, unordered (demo, incorrect), student "
                           "(your renderer: --student DIR)");
}

TEST_F(Cli, AFolderAsFilePrefixIsRefused) {
    const CmdResult r = render("rgb -r cpu -s 8 -f '" + dir + "/'");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_EQ(r.err, "render: --file '" + dir + "/' names a folder: give a file prefix, e.g. " + dir + "/frame (writes " +
                         dir + "/frame_0000.png)\n");
    EXPECT_FALSE(exists(dir + "/_0000.png")) << "a nameless frame file was written";
}

TEST_F(Cli, StudentTimeoutWithoutStudentIsRefused) {
    const CmdResult r = render("--scene rgb -r cpu -s 8 --student-timeout 5");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_EQ(r.err, "render: --student-timeout goes with --student DIR (the time limit of your renderer's calls)\n");
    const CmdResult b = render("bench --scenes rgb --renderers cpu --size 8 --student-timeout 5");
    EXPECT_EQ(b.code, 2) << b.out << b.err;
}

TEST_F(Cli, GpuRendererWithoutGpuExit3) {
    std::string why;
    if (cr::cuda_device_available(&why)) GTEST_SKIP() << "a CUDA device is present";
    const CmdResult r = render("--scene rgb --renderer tiled -s 16");
    EXPECT_EQ(r.code, 3) << r.out << r.err;
    EXPECT_EQ(r.err, "render: renderer 'tiled' needs a CUDA GPU: " + why + "; use --renderer cpu or cpuref\n");
    EXPECT_EQ(r.out, "");
}

TEST_F(Cli, UnwritableOutputExit2WithOneLine) {
    const CmdResult r = render("--scene rgb -r cpuref -s 16 --file /nonexistent/dir/out");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "/nonexistent/dir");
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line:\n" << r.err;
    EXPECT_EQ(r.out, "");
}

TEST_F(Cli, BadToleranceExit2) {
    const CmdResult r = render("--scene rgb -r cpuref -s 16 --check --tolerance bogus");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "bad --tolerance 'bogus'");
    EXPECT_EQ(render("--scene rgb -r cpuref -s 16 --check --tolerance -1").code, 2);
    EXPECT_EQ(render("--scene rgb -r cpuref -s 16 --check --tolerance course").code, 0);
}

TEST_F(Cli, MalformedSceneFileNamesFileAndLine) {
    const std::string path = dir + "/bad_scene.txt";
    { std::ofstream(path) << "# comment\n1\n0.1 abc 0.3 0 0 0 0.05 1 0 0\n"; }
    const CmdResult r = render("--scene-file '" + path + "' -r cpuref -s 16");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, path + ":3:");
    EXPECT_CONTAINS(r.err, "not a number 'abc'");
}

TEST_F(Cli, GoodSceneFileRenders) {
    const std::string path = dir + "/good_scene.txt";
    { std::ofstream(path) << "1\n0.5 0.5 0.5 0 0 0 0.25 0 0 0\n"; }
    const CmdResult r = render("--scene-file '" + path + "' -r cpuref -s 8 --check -f '" + dir + "/sf'");
    EXPECT_EQ(r.code, 0) << r.err;
    const cr::Image img = cr::read_image(dir + "/sf_0000.png");
    // Pixel (4, 4) (center .5625, .5625) is covered: black at .5 over white.
    EXPECT_EQ(img.pixel(4, 4)[0], 127.f / 255.f);
    EXPECT_EQ(img.pixel(0, 0)[0], 1.f);
}

// ---- snowsingle and the course's particle file (.par) ------------------------------

const char* kFlakes = "3\n0.5 0.5 0.2 0 0 0 0.2\n0.25 0.75 0.6 0 0 0 0.1\n0.8 0.2 1 0.5 0.5 0 0.05\n";

TEST_F(Cli, SnowsingleWithoutSnowParDrawsTheStandInAndSaysSo) {
    // An empty working directory: no snow.par. The stand-in equals its stored reference.
    const CmdResult r = render("--scene snowsingle -r cpuref -s 256 --check", dir);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_CONTAINS(r.err, "snowsingle: the course's particle file ./snow.par was not found");
    EXPECT_CONTAINS(r.err, "--particles PATH");
    EXPECT_CONTAINS(r.out, "Scene: snowsingle (100000 circles)");
    EXPECT_CONTAINS(r.out, "snowsingle_256x256_s0_f0000.png: PASS");
}

TEST_F(Cli, SnowsingleReadsSnowParFromTheWorkingDirectory) {
    { std::ofstream(dir + "/snow.par") << kFlakes; }
    const CmdResult r = render("--scene snowsingle -r cpuref -s 64 --check -f out", dir);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_CONTAINS(r.err, "snowsingle: 3 flakes from ./snow.par");
    EXPECT_CONTAINS(r.out, "Scene: snowsingle (3 circles)");
    EXPECT_CONTAINS(r.out, "Check vs stored: skipped (flakes from ./snow.par");
    // The image is cpuref's of the file's flakes.
    cr::CpuRefRenderer ref;
    const cr::Image& want = cr::render_last_frame(ref, cr::load_particle_file(dir + "/snow.par"), 64, 64, 1);
    cr::write_image(want, dir + "/want.png", cr::ImageFormat::Png);
    EXPECT_EQ(slurp(dir + "/out_0000.png"), slurp(dir + "/want.png"));
    // The course form finds it too.
    const CmdResult c = render("snowsingle -r cpuref -s 32", dir);
    EXPECT_EQ(c.code, 0) << c.err;
    EXPECT_CONTAINS(c.out, "(3 circles)");
}

TEST_F(Cli, ParticlesNamesAnotherFile) {
    { std::ofstream(dir + "/snow.par") << kFlakes; }
    { std::ofstream(dir + "/one.par") << "1\n0.5 0.5 0.5 0 0 0 0.3\n"; }
    const CmdResult r = render("--scene snowsingle --particles one.par -r cpuref -s 32", dir);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_CONTAINS(r.err, "snowsingle: 1 flake from one.par");
    EXPECT_CONTAINS(r.out, "(1 circles)");
    // --particles alone means snowsingle.
    const CmdResult alone = render("--particles one.par -r cpuref -s 32", dir);
    EXPECT_EQ(alone.code, 0) << alone.err;
    EXPECT_CONTAINS(alone.out, "Scene: snowsingle (1 circles)");
}

TEST_F(Cli, ParticlesWithAnotherSceneOrAMissingFileExit2AndWriteNothing) {
    { std::ofstream(dir + "/one.par") << "1\n0.5 0.5 0.5 0 0 0 0.3\n"; }
    CmdResult r = render("--scene rgb --particles one.par -r cpuref -s 32 -f x", dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "--particles goes with the snowsingle scene only");
    r = render("--scene-file one.par --particles one.par -r cpuref -s 32 -f x", dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "--particles goes with the snowsingle scene only");
    r = render("--scene snowsingle --particles missing.par -r cpuref -s 32 -f x", dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "missing.par: cannot open: No such file or directory");
    EXPECT_FALSE(exists(dir + "/x_0000.png"));
}

TEST_F(Cli, MalformedSnowParNamesFileAndLineAndWritesNothing) {
    { std::ofstream(dir + "/snow.par") << "2\n0.5 0.5 0.5 0 0 0 0.3\n0.5 0.5 0.5 0 0 0 -1\n"; }
    { std::ofstream(dir + "/out_0000.png") << "keep"; }
    const CmdResult r = render("--scene snowsingle -r cpuref -s 32 -f out", dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "./snow.par:3: radius -1 is negative");
    EXPECT_EQ(slurp(dir + "/out_0000.png"), "keep");
    { std::ofstream(dir + "/snow.par") << "1\n0.5 0.5 0.5 0 0 0 0.3\n0.5 0.5 0.5 0 0 0 0.3\n"; }
    const CmdResult more = render("--scene snowsingle -r cpuref -s 32", dir);
    EXPECT_EQ(more.code, 2);
    EXPECT_CONTAINS(more.err, "./snow.par:3: more particle lines than the count 1 says");
}

TEST_F(Cli, SceneFileParIsAStillSnowScene) {
    { std::ofstream(dir + "/flakes.par") << kFlakes; }
    const CmdResult r = render("--scene-file flakes.par -r cpuref -s 48 -b 0:3 -f f --check", dir);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_CONTAINS(r.out, "Scene: flakes.par (3 circles)");
    // No motion: every frame is the same picture, on the snow background.
    EXPECT_EQ(slurp(dir + "/f_0000.png"), slurp(dir + "/f_0002.png"));
    const cr::Image img = cr::read_image(dir + "/f_0000.png");
    EXPECT_EQ(img.pixel(0, 47)[0], img.pixel(0, 47)[2]);  // gray, top row: no flake there
    EXPECT_LT(img.pixel(0, 47)[0], 1.f);
    const CmdResult bad = render("--scene-file '" + dir + "' -r cpuref -s 8", dir);
    EXPECT_EQ(bad.code, 2);
}

TEST_F(Cli, PpmFormatWritesPrefix0000Ppm) {
    const std::string prefix = dir + "/frame";
    const CmdResult r = render("--scene rgb -r cpuref -s 64 --format ppm -f '" + prefix + "'");
    EXPECT_EQ(r.code, 0) << r.err;
    const std::string bytes = slurp(prefix + "_0000.ppm");
    const std::string header = "P6\n64 64\n255\n";
    ASSERT_EQ(bytes.size(), header.size() + 64 * 64 * 3);
    EXPECT_EQ(bytes.substr(0, header.size()), header);
    EXPECT_FALSE(exists(prefix + "_0000.png"));
    EXPECT_CONTAINS(r.out, "Wrote " + prefix + "_0000.ppm");
    EXPECT_EQ(render("--scene rgb -r cpuref -s 16 --format gif").code, 2);
}

TEST_F(Cli, BenchWritesJsonAndCsv) {
    const std::string json = dir + "/bench.json", csv = dir + "/bench.csv";
    const CmdResult r = render("bench --scenes rgb --renderers cpuref,cpu --size 32 --repeat 1 --frames 0:1 --json '" +
                         json + "' --csv '" + csv + "'");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(slurp(json)));
    EXPECT_EQ(j["width"], 32);
    EXPECT_EQ(j["height"], 32);
    EXPECT_EQ(j["repeat"], 1);
    ASSERT_TRUE(j["results"].is_array());
    ASSERT_EQ(j["results"].size(), 2u);
    EXPECT_EQ(j["results"][0]["scene"], "rgb");
    EXPECT_EQ(j["results"][0]["renderer"], "cpuref");
    EXPECT_EQ(j["results"][1]["scene"], "rgb");
    EXPECT_EQ(j["results"][1]["renderer"], "cpu");
    for (const auto& e : j["results"]) {
        EXPECT_EQ(e["check"], "ok");
        EXPECT_GE(e["total_median_ms"].get<double>(), 0.0);
        // rgb at 32x32: the blends are the covered pixels of the three circles.
        EXPECT_GT(e["blends"].get<long long>(), 0);
    }
    EXPECT_EQ(j["results"][0]["blends"], j["results"][1]["blends"]);
    const std::string c = slurp(csv);
    EXPECT_EQ(c.rfind("scene,renderer,total_median_ms", 0), 0u) << c;
    EXPECT_CONTAINS(c, "\nrgb,cpuref,");
    EXPECT_CONTAINS(c, "\nrgb,cpu,");
}

TEST_F(Cli, BenchRejectsUnknownScene) {
    const CmdResult r = render("bench --scenes rgb,nope --renderers cpuref --size 16 --repeat 1");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "unknown scene 'nope'");
}

TEST_F(Cli, CourseFormsWriteEveryTimedFrame) {
    const std::string prefix = dir + "/course";
    const CmdResult r = render("--scene rgb -r cpuref -s 64 -b 0:2 -f '" + prefix + "'");
    EXPECT_EQ(r.code, 0) << r.err;
    for (const char* suffix : {"_0000.png", "_0001.png"}) {
        ASSERT_TRUE(exists(prefix + suffix)) << suffix;
        const cr::Image img = cr::read_image(prefix + suffix);
        EXPECT_EQ(img.width, 64);
        EXPECT_EQ(img.height, 64);
    }
    EXPECT_FALSE(exists(prefix + "_0002.png"));
    // Frames 1:3 write only the timed frames 1 and 2.
    const CmdResult r2 = render("--scene rgb -r cpuref -s 16 -b 1:3 -f '" + prefix + "b'");
    EXPECT_EQ(r2.code, 0) << r2.err;
    EXPECT_FALSE(exists(prefix + "b_0000.png"));
    EXPECT_TRUE(exists(prefix + "b_0001.png"));
    EXPECT_TRUE(exists(prefix + "b_0002.png"));
}

TEST_F(Cli, PositionalSceneForm) {
    const CmdResult r = render("-r cpu -s 32 -c rgb");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_CONTAINS(r.out, "Scene: rgb");
    EXPECT_CONTAINS(r.out, "\nPASS\n");
}

TEST_F(Cli, NoSceneIsAUsageError) {
    const CmdResult r = render("-r cpuref -s 32");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "no scene");
}

TEST_F(Cli, ListNamesScenesAndRenderers) {
    const CmdResult r = render("--list");
    EXPECT_EQ(r.code, 0);
    EXPECT_CONTAINS(r.out, "Scenes: rgb rgby");
    EXPECT_CONTAINS(r.out, "cpuref");
    // the CUDA renderers' switches, from kernels/cuda_options.cpp's table (also in a build without CUDA)
    EXPECT_CONTAINS(r.out, "CR_CUDA_OPTIONS (developer switches");
    EXPECT_CONTAINS(r.out, "\n  order=auto|on|off         tiles handed out heaviest first, by their work in the frame before "
                           "(bin.order, computed beside binning: the chunks a tile walked with the early stop, else its "
                           "list length; persistent: the first frame by list length; tiled: with the early stop only, by "
                           "default on counted lists, with on on every list, faster on biglittle), or off: row-major "
                           "[persistent; tiled (with the early stop)]\n");
}

TEST_F(Cli, UnknownOptionExit2) {
    const CmdResult r = render("--bogus-option");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "render:");
}

}  // namespace

namespace {

// A failing run must leave what the user had untouched: every output path is
// checked before anything is rendered or written.
TEST_F(Cli, FailedRunDoesNotClobberExistingImages) {
    const std::string keep = dir + "/x_0000.png", folder = dir + "/dd.json";
    { std::ofstream(keep) << "KEEP"; }
    ASSERT_EQ(mkdir(folder.c_str(), 0755), 0);
    const CmdResult r = render("rgb -r cpuref -s 16 -f '" + dir + "/x' --json '" + folder + "'");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_CONTAINS(r.err, "it is a folder");
    EXPECT_EQ(slurp(keep), "KEEP");
    EXPECT_EQ(r.out, "");
}

TEST_F(Cli, LaterFrameFileBeingAFolderIsRefusedUpFront) {
    ASSERT_EQ(mkdir((dir + "/y_0001.png").c_str(), 0755), 0);
    const CmdResult r = render("rgb -r cpuref -s 16 -b 0:2 -f '" + dir + "/y'");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_FALSE(exists(dir + "/y_0000.png"));
}

TEST_F(Cli, OutputUnderAFileIsNotAFolder) {
    { std::ofstream(dir + "/plain") << "x"; }
    const CmdResult r = render("rgb -r cpuref -s 16 -f '" + dir + "/plain/x'");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "is not a folder");
}

TEST_F(Cli, EmptyValuesAndConflictsExit2) {
    EXPECT_EQ(render("rgb -r cpuref -s 16 -f ''").code, 2);
    EXPECT_EQ(render("rgb -r '' -s 16").code, 2);
    EXPECT_EQ(render("rgb --scene rgby -r cpuref -s 16").code, 2);
    const CmdResult r = render("rgb -r cpuref -s 16 --check --reference-dir /nonexistent/refs");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "--reference-dir");
}

TEST_F(Cli, BenchRejectsEmptyOrRepeatedLists) {
    EXPECT_EQ(render("bench --scenes '' --renderers cpu --size 16 --repeat 1").code, 2);
    EXPECT_EQ(render("bench --scenes rgb,rgb --renderers cpu --size 16 --repeat 1").code, 2);
    EXPECT_EQ(render("bench --scenes rgb --renderers cpu,cpu --size 16 --repeat 1").code, 2);
}

TEST_F(Cli, BenchCompareNeedsAMatchingBenchResult) {
    const std::string json = dir + "/b.json", other = dir + "/r.json";
    ASSERT_EQ(render("bench --scenes rgb --renderers cpu --size 32 --repeat 1 --frames 0:1 --json '" + json + "'").code, 0);
    CmdResult r = render("bench --scenes rgb --renderers cpu --size 64 --repeat 1 --frames 0:1 --compare '" + json + "'");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "another size");
    EXPECT_EQ(r.out, "");  // refused before running
    ASSERT_EQ(render("rgb -r cpuref -s 32 --json '" + other + "'").code, 0);
    r = render("bench --scenes rgb --renderers cpu --size 32 --repeat 1 --frames 0:1 --compare '" + other + "'");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "not a `render bench --json` result");
    r = render("bench --scenes rgb --renderers cpu --size 32 --repeat 1 --frames 0:1 --compare '" + json + "'");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_CONTAINS(r.out, "ratio");
}

}  // namespace

// ---- issue 17: outputs to standard output and special files -----------------

namespace {

using cr::testing_files::is_char_device;
using cr::testing_files::is_symlink_to;

int count_of(const std::string& text, const std::string& part) {
    int n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
    return n;
}

TEST_F(Cli, JsonToStandardOutputIsParseableAndTheReportGoesToStderr) {
    const CmdResult r = render("rgb -r cpu -s 16 --check --json -");
    ASSERT_EQ(r.code, 0) << r.err;
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
    EXPECT_EQ(j["scene"], "rgb");
    EXPECT_EQ(j["check"]["pass"], true);
    EXPECT_CONTAINS(r.err, "Renderer: cpu");
    EXPECT_CONTAINS(r.err, "Check vs cpuref (live): PASS");
    EXPECT_EQ(r.err.find("Wrote"), std::string::npos) << r.err;
}

TEST_F(Cli, CsvAndDiffToStandardOutput) {
    CmdResult r = render("bench --scenes rgb --renderers cpu --size 16 --repeat 1 --frames 0:1 --csv -");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("scene,renderer,total_median_ms,", 0), 0u) << r.out;
    EXPECT_EQ(count_of(r.out, "\n"), 2) << r.out;  // header and one row, nothing else
    EXPECT_CONTAINS(r.err, "Device: ");
    r = render("rgb -r cpu -s 16 --diff -");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    r = render("rgb -r cpu -s 16 --diff - --json -");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "render: only one output can go to standard output ('-')\n");
}

TEST_F(Cli, SymlinkToAFileStaysALink) {
    { std::ofstream(dir + "/target.json") << "old"; }
    ASSERT_EQ(symlink("target.json", (dir + "/link.json").c_str()), 0);
    const CmdResult r = render("rgb -r cpu -s 16 --json '" + dir + "/link.json'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(is_symlink_to(dir + "/link.json", "target.json"));
    EXPECT_EQ(nlohmann::json::parse(slurp(dir + "/target.json"))["renderer"], "cpu");
    EXPECT_CONTAINS(r.out, "Wrote " + dir + "/link.json");
}

TEST_F(Cli, SymlinkToProcSelfFd1WritesToStandardOutput) {
    ASSERT_EQ(symlink("/proc/self/fd/1", (dir + "/out1").c_str()), 0);
    const CmdResult r = render("rgb -r cpu -s 16 --json '" + dir + "/out1'");
    ASSERT_EQ(r.code, 0) << r.err;
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;  // the report went to stderr
    EXPECT_EQ(j["width"], 16);
    EXPECT_TRUE(is_symlink_to(dir + "/out1", "/proc/self/fd/1"));
}

TEST_F(Cli, FifoIsWrittenInPlace) {
    const std::string fifo = dir + "/fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    std::string got;
    std::thread reader([&] { got = slurp(fifo); });  // a background reader
    const CmdResult r = render("rgb -r cpu -s 16 --json '" + fifo + "'");
    reader.join();
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(got)["scene"], "rgb");
    struct stat st;
    ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(Cli, NullDeviceTakesEveryOutputAndStaysADevice) {
    const std::string null_dev = dir + "/null", frame = dir + "/f_0000.png";
    MAKE_CHAR_DEVICE_OR_SKIP(null_dev, 1, 3);
    MAKE_CHAR_DEVICE_OR_SKIP(frame, 1, 3);
    const CmdResult r = render("rgb -r cpu -s 16 -f '" + dir + "/f' --diff '" + null_dev + "' --json '" + null_dev + "'");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(is_char_device(null_dev, 1, 3));
    EXPECT_TRUE(is_char_device(frame, 1, 3));
    EXPECT_EQ(count_of(r.out, "Wrote "), 3) << r.out;
}

TEST_F(Cli, FullDeviceIsAnErrorExit2AndNothingWrote) {
    const std::string full_dev = dir + "/full";
    MAKE_CHAR_DEVICE_OR_SKIP(full_dev, 1, 7);
    for (const std::string opts : {"rgb -r cpu -s 16 --json", "rgb -r cpu -s 16 --diff",
                                   "bench --scenes rgb --renderers cpu --size 16 --repeat 1 --frames 0:1 --csv"}) {
        const CmdResult r = render(opts + " '" + full_dev + "'");
        EXPECT_EQ(r.code, 2) << opts;
        const std::string want = "render: cannot write '" + full_dev + "': No space left on device\n";
        ASSERT_GE(r.err.size(), want.size()) << r.err;
        EXPECT_EQ(r.err.substr(r.err.size() - want.size()), want) << opts;  // the last line; bench's progress before it
        EXPECT_EQ(r.out.find("Wrote"), std::string::npos) << r.out;
        EXPECT_TRUE(is_char_device(full_dev, 1, 7)) << opts;
    }
}

TEST_F(Cli, RefsCreatesAMissingOutputFolder) {
    const std::string out = dir + "/new/refs";
    CmdResult r = render("refs --small-only --out '" + out + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("Created folder " + out + "\n", 0), 0u) << r.out;
    EXPECT_CONTAINS(r.out, "[18/18] wrote " + out + "/snowsingle_256x256_s0_f0000.png");
    // The same bytes as the stored reference.
    EXPECT_EQ(slurp(out + "/rgb_256x256_s0_f0000.png"), slurp(std::string(CR_SOURCE_DIR) + "/reference_images/rgb_256x256_s0_f0000.png"));
    { std::ofstream(dir + "/plain") << "x"; }
    r = render("refs --small-only --out '" + dir + "/plain'");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "render: cannot write to folder '" + dir + "/plain': it is not a folder\n");
}

// ---- issue 17: messages ----------------------------------------------------------

TEST_F(Cli, NoGpuIsSaidOncePlainly) {
    std::string why;
    if (cr::cuda_device_available(&why)) GTEST_SKIP() << "a CUDA device is present";
    CmdResult r = render("rgb -s 16");
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.err, "note: " + why + "; using the cpu renderer\n");
    r = render("--list");
    EXPECT_EQ(count_of(r.out, why), 1) << r.out;
    EXPECT_CONTAINS(r.out, "GPU renderers unavailable: " + why + "\n");
    EXPECT_EQ(r.out.find("no CUDA device ("), std::string::npos) << r.out;
    r = render("bench --scenes rgb --size 16 --repeat 1 --frames 0:1");
    EXPECT_EQ(r.code, 0);
    EXPECT_CONTAINS(r.out, "\nDevice: none (" + why + ")\n");
    EXPECT_EQ(count_of(r.out + r.err, why), 1) << r.out << r.err;
}

TEST_F(Cli, CheckLineNamesEachRuleOnceAndTheDecidingOne) {
    const CmdResult r = render("rgb -r cpu -s 16 --check --tolerance course");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(count_of(r.out, "strict (1e-4)"), 1) << r.out;
    EXPECT_EQ(count_of(r.out, "course (0.1)"), 1) << r.out;
    EXPECT_CONTAINS(r.out, "course (0.1): 0 (this rule decides: at most 5 allowed)");
}

TEST_F(Cli, CheckOfCpurefSaysItComparedWithItself) {
    CmdResult r = render("rgb -r cpuref -s 64 --check");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_CONTAINS(r.out, "Check vs cpuref (live): cpuref compared with itself");
    EXPECT_CONTAINS(r.out, "\nPASS (cpuref compared only with itself: no stored reference image for these parameters)\n");
    EXPECT_EQ(r.out.find("\nPASS\n"), std::string::npos) << r.out;
    r = render("rgby -r cpuref -s 256 --check");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_CONTAINS(r.out, "rgby_256x256_s0_f0000.png: PASS");
    EXPECT_CONTAINS(r.out, "\nPASS (the stored reference image)\n");
}

TEST_F(Cli, JsonNumbersAreWrittenAsAPersonWould) {
    const std::string json = dir + "/r.json";
    CmdResult r = render("rgb -r cpu -s 16 --frames 0:3 --check --json '" + json + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string text = slurp(json);
    EXPECT_CONTAINS(text, "\"tolerance\": 0.0001");
    EXPECT_CONTAINS(text, "\"rule\": \"strict (1e-4)\"");
    const nlohmann::json j = nlohmann::json::parse(text);
    for (const char* k : {"clear_ms", "advance_ms", "render_ms", "total_ms"})
        EXPECT_EQ(j[k].get<double>(), cr::round_significant(j[k].get<double>(), 4)) << k << " " << j[k];
    for (const auto& s : j["stages"]) EXPECT_EQ(s["ms"].get<double>(), cr::round_significant(s["ms"].get<double>(), 4));
    r = render("rgb -r cpu -s 16 --check --tolerance course --json -");
    EXPECT_CONTAINS(r.out, "\"tolerance\": 0.1\n");
}

TEST_F(Cli, BenchRunsWhatCanRunAndMarksTheRestUnavailable) {
    std::string why;
    if (cr::cuda_device_available(&why)) GTEST_SKIP() << "a CUDA device is present: every renderer runs";
    const std::string json = dir + "/b.json", csv = dir + "/b.csv";
    const CmdResult r = render("bench --scenes rgb --renderers tiled,cpu --size 32 --repeat 1 --frames 0:1 --json '" +
                               json + "' --csv '" + csv + "'");
    EXPECT_EQ(r.code, 3) << r.out << r.err;
    EXPECT_CONTAINS(r.out, "\nrgb         tiled       -       unavailable\n");
    EXPECT_CONTAINS(r.out, "unavailable: renderer 'tiled' needs a CUDA GPU: " + why + "\n");
    EXPECT_CONTAINS(r.out, "Wrote " + json);
    EXPECT_CONTAINS(r.err, "render: 1 of 2 renderers could not run here");
    const nlohmann::json j = nlohmann::json::parse(slurp(json));
    ASSERT_EQ(j["results"].size(), 2u);
    EXPECT_EQ(j["results"][0]["renderer"], "tiled");
    EXPECT_EQ(j["results"][0]["status"], "unavailable");
    EXPECT_EQ(j["results"][1]["renderer"], "cpu");
    EXPECT_EQ(j["results"][1]["status"], "measured");
    EXPECT_EQ(j["results"][1]["check"], "ok");
    EXPECT_EQ(j["unavailable"]["tiled"], "renderer 'tiled' needs a CUDA GPU: " + why);
    const std::string c = slurp(csv);
    EXPECT_CONTAINS(c, "\nrgb,tiled,,,,,,,unavailable,,,unavailable\n");
    EXPECT_CONTAINS(c, "\nrgb,cpu,");
    // an alias is named as it was typed
    const CmdResult a = render("bench --scenes rgb --renderers cuda,cpu --size 32 --repeat 1 --frames 0:1");
    EXPECT_EQ(a.code, 3) << a.out << a.err;
    EXPECT_CONTAINS(a.out, "unavailable: renderer 'cuda' (= tiled) needs a CUDA GPU: " + why + "\n");
}

TEST_F(Cli, BenchRefusesRendersSingleSceneAndRendererOptionsWithItsOwn) {
    for (const char* args : {"bench --scene rgb", "bench -r cpu", "bench --scenes rgb --renderer cpu"}) {
        const CmdResult r = render(args);
        EXPECT_EQ(r.code, 2) << args << ": " << r.out << r.err;
        EXPECT_CONTAINS(r.err, "render bench takes lists: --scenes rgb,rand10k and --renderers tiled,cpu (not --scene or -r");
    }
}

TEST_F(Cli, BenchHelpNamesTheDefaultScenes) {
    const CmdResult r = render("bench --help");
    EXPECT_EQ(r.code, 0);
    EXPECT_CONTAINS(r.out, "rgb,rgby,rand10k,rand100k,rand1M,biglittle,littlebig,pattern,micro2M,snowsingle");
    // Aliases name the same renderer: named twice.
    EXPECT_EQ(render("bench --scenes rgb --renderers cuda,tiled --size 16 --repeat 1").code, 2);
}

}  // namespace

namespace {

// ---- the student's renderer on the command line (building needs nvcc;
// running needs a GPU: without one the run says so, exit 3) -----------------

using cr::testing_students::fixture_cache_root;
using cr::testing_students::fixture_root;

/// Builds go to the build tree's cache (shared with test_student.cpp), not the user's.
std::string student_cache_env() { return "CR_STUDENT_CACHE='" + fixture_cache_root() + "'"; }

TEST_F(Cli, StudentBuildOnlySaysWhereTheBuildIs) {
    REQUIRE_NVCC();
    const CmdResult r = render_env(student_cache_env(), "--student '" + fixture_root() + "/correct' --build-only");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_CONTAINS(r.out, "libstudent.so");
    EXPECT_CONTAINS(r.out, "  layout:   course layout C (October 2025 on): seeds, 14 scenes (your cudaRenderer.h: "
                           "loadScene(SceneName, int seed) (no circleRenderer.h in the folder))\n");
    EXPECT_CONTAINS(r.out, "  sources:  no Makefile: every source of yours, with the project's framework files\n"
                           "  compiled from your folder: cudaRenderer.cu\n"
                           "  your headers and device helpers, as you wrote them: cudaRenderer.h\n");
}

TEST_F(Cli, StudentBuildOnlyOfALayoutAFolderSaysWhatCameFromWhere) {
    REQUIRE_NVCC();
    const CmdResult r = render_env(student_cache_env(), "--student '" + fixture_root() + "/layout_a' --build-only");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_CONTAINS(r.out, "  layout:   course layout A (about 2019-2022): no seeds, 12 scenes (your circleRenderer.h: 12 "
                           "scenes, loadScene(SceneName))\n  sources:  as your Makefile builds them (goal 'default')\n"
                           "  compiled from your folder: cudaRenderer.cu\n");
    EXPECT_CONTAINS(r.out, "    benchmark.cpp        the course's benchmark (an older year's name): the harness times "
                           "your calls the course's way\n");
    EXPECT_CONTAINS(r.out, "exclusiveScan.cu_inl image.h");
    EXPECT_CONTAINS(r.out, "  note: the Makefile's --gpu-architecture=compute_35 is not used: the harness builds for "
                           "this machine's GPU\n");
    const std::string yours = r.out.substr(r.out.find("your headers"), r.out.find('\n', r.out.find("your headers")) -
                                                                            r.out.find("your headers"));
    EXPECT_EQ(yours.find("benchmark"), std::string::npos) << "a framework file listed as the student's: " << yours;
}

TEST_F(Cli, StudentCompileErrorNamesTheStudentsFile) {
    REQUIRE_NVCC();
    const CmdResult r = render_env(student_cache_env(), "--student '" + fixture_root() + "/compile_error' --build-only");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_CONTAINS(r.err, "/compile_error/fixture_kernels.cu_inl(6): error: identifier \"pixelShade\" is undefined");
    EXPECT_CONTAINS(r.err, "did not compile");
}

TEST_F(Cli, SanitizeWithoutComputeSanitizerIsExit3) {
    const CmdResult r = render_env("CR_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer PATH=/usr/bin:/bin",
                                   "--student '" + dir + "' --sanitize --scene rgb");
    EXPECT_EQ(r.code, 3) << r.out << r.err;
    EXPECT_EQ(r.err, "render: no compute-sanitizer found (PATH, $CUDA_HOME, /usr/local/cuda or $CR_COMPUTE_SANITIZER): "
                     "--sanitize needs the CUDA toolkit's compute-sanitizer\n");
    const CmdResult bad = render("--student '" + dir + "' --sanitize leakcheck --scene rgb");
    EXPECT_EQ(bad.code, 2) << bad.err;
    const CmdResult alone = render("--scene rgb --sanitize");
    EXPECT_EQ(alone.code, 2) << alone.err;
    EXPECT_EQ(alone.err, "render: --sanitize goes with --student DIR (it runs your renderer under compute-sanitizer)\n");
}

TEST_F(Cli, StudentWithoutNvccSaysSoInOneLine) {
    const CmdResult r = render_env("CR_NVCC=/nonexistent/nvcc", "--student '" + dir + "' --build-only");
    EXPECT_EQ(r.code, 2) << r.err;  // not a course folder: that is said first
    EXPECT_CONTAINS(r.err, "has no cudaRenderer.cu: point it at your course's render/ folder");
    std::ofstream(dir + "/cudaRenderer.cu") << "// empty\n";
    std::ofstream(dir + "/cudaRenderer.h") << "// empty\n";
    const CmdResult n = render_env("CR_NVCC=/nonexistent/nvcc", "--student '" + dir + "' --build-only");
    EXPECT_EQ(n.code, 3) << n.err;
    EXPECT_CONTAINS(n.err, "render: no nvcc (CUDA toolkit) found");
    EXPECT_EQ(std::count(n.err.begin(), n.err.end(), '\n'), 1) << n.err;
}

TEST_F(Cli, StudentRendererOptionsAreChecked) {
    CmdResult r = render("-r tiled --student /tmp rgb");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "--student runs your renderer as renderer 'student'");
    r = render("-r student rgb");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "renderer 'student' needs --student DIR");
    r = render("--build-only rgb");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "--build-only goes with --student DIR");
    r = render("--student /tmp --student-timeout 0 rgb");
    EXPECT_EQ(r.code, 2);
    r = render("grade");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "render grade needs --student DIR");
    r = render("rgb --timing fast");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "bad --timing 'fast': use events or course");
}

/// Lines of `text` that contain `needle`.
size_t lines_with(const std::string& text, const std::string& needle) {
    size_t n = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
    return n;
}

TEST_F(Cli, GradeRunsTheReferenceAndYoursAsItsPlanSaysAndKeepsTheReferencesRuns) {
    REQUIRE_NVCC();
    // A stand-in for the course's render_ref (gate_probe --fake-ref): it
    // loads the CUDA driver, so the grade's gate holds it and runs start
    // ahead; once let on it logs its arguments (a run started ahead and
    // killed at its gate logs nothing) and prints a Total as render_ref does.
    // The host-only fixture takes about 6 ms on rgb and 10 ms on pattern:
    // against rgb's 100 ms it is within 1.2 T_ref with room (9 points: one
    // run each); against pattern's 3 ms it is between 1.2 and 12.5 T_ref (a
    // faster run of either side could change the score: checker.py's 3 + 3).
    const std::string log = dir + "/ref_runs.log", fake = dir + "/render_ref";
    std::ofstream(fake) << "#!/bin/sh\nexec '" << GATE_PROBE_EXE << "' --fake-ref \"$@\"\n";
    chmod(fake.c_str(), 0755);
    const std::string env = student_cache_env() + " CR_STUDENT_WITHOUT_GPU=1 CR_STUDENT_NO_CUDA_SYNC=1 CR_REFERENCE_CACHE='" +
                            dir + "/times.json' CR_FAKE_REF_LOG='" + log + "'";
    const std::string totals = " CR_FAKE_REF_TOTALS=pattern=3.0,*=100";
    const std::string grade = "grade --student '" + fixture_root() + "/host_c' --reference '" + fake + "' --seed 7 --json '" +
                              dir + "/g.json' --scenes ";
    CmdResult r = render_env(env + totals, grade + "pattern");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_CONTAINS(r.out, "each run started ahead, held before its first CUDA call");
    nlohmann::json j = nlohmann::json::parse(slurp(dir + "/g.json"));
    ASSERT_EQ(j["scenes"].size(), 1u);
    const nlohmann::json pattern = j["scenes"][0];
    EXPECT_EQ(pattern["scene"], "pattern");
    EXPECT_EQ(pattern["ref_runs"], 3);
    EXPECT_EQ(pattern["stu_runs"], 3);
    EXPECT_EQ(pattern["ref_times"].size(), 3u);
    EXPECT_EQ(pattern["stu_times"].size(), 3u);
    EXPECT_EQ(j["max"], 9);
    EXPECT_FALSE(j.contains("also_checked"));  // --scenes: no other checks
    std::string runs = slurp(log);
    EXPECT_EQ(lines_with(runs, "-b 0:1 rgb -s 64"), 1u) << runs;  // the probe
    EXPECT_EQ(lines_with(runs, "-b 0:4 pattern -s 1024 -f logs/output"), 3u) << runs;
    // Another scene: pattern's runs are kept and stay kept beside rgb's.
    r = render_env(env + totals, grade + "rgb");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    j = nlohmann::json::parse(slurp(dir + "/g.json"));
    const nlohmann::json rgb = j["scenes"][0];
    EXPECT_EQ(rgb["scene"], "rgb");
    EXPECT_EQ(rgb["seed"], 7630);  // the seed a grade of all 8 with --seed 7 gives rgb
    EXPECT_EQ(rgb["ref_runs"], 1);
    EXPECT_EQ(rgb["stu_runs"], 1);
    EXPECT_EQ(rgb["ref_time"], 100.0);
    EXPECT_EQ(rgb["score"], 9);
    EXPECT_CONTAINS(r.out, "rgb: T from 1 run, T_ref from 1: within 1.2 x T_ref with 2% to spare, so 9 points");
    runs = slurp(log);  // rgb's second run, started ahead, was killed at its gate
    EXPECT_EQ(lines_with(runs, "-b 0:4 rgb -s 1024 -f logs/output"), 1u) << runs;
    // The next grade of both takes the kept runs: the reference is only probed.
    r = render_env(env + totals, grade + "pattern,rgb");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    j = nlohmann::json::parse(slurp(dir + "/g.json"));
    EXPECT_EQ(j["ref_cached"], true);
    EXPECT_EQ(j["scenes"][0]["scene"], "rgb");  // the course's order, whatever --scenes says
    EXPECT_EQ(j["scenes"][0]["ref_runs"], 1);
    EXPECT_EQ(j["scenes"][1]["ref_runs"], 3);
    EXPECT_EQ(j["scenes"][1]["ref_times"].size(), 0u);  // none run in this grade
    EXPECT_EQ(j["max"], 18);
    runs = slurp(log);
    EXPECT_EQ(lines_with(runs, "-b 0:4"), 4u) << runs;
    EXPECT_EQ(lines_with(runs, "-b 0:1 rgb -s 64"), 3u) << runs;
    r = render("grade --student /tmp --scenes rgb,snow");
    EXPECT_EQ(r.code, 2);
    EXPECT_CONTAINS(r.err, "--scenes: 'snow' is not one of the course's 8 scored scenes (rgb, rand10k, rand100k");
}

TEST_F(Cli, StudentWithoutAGpuExits3AfterBuilding) {
    REQUIRE_NVCC();
    if (cr::cuda_device_available()) GTEST_SKIP() << "this machine has a GPU: the GPU tests run the fixtures";
    const CmdResult r = render_env(student_cache_env(), "--student '" + fixture_root() + "/correct' rgb --check");
    EXPECT_EQ(r.code, 3) << r.out << r.err;
    EXPECT_CONTAINS(r.err, "renderer 'student' needs a CUDA GPU: no NVIDIA GPU or driver found");
}

TEST_F(Cli, ProfileWithoutNcuOrWithACpuRenderer) {
    CmdResult r = render_env("CR_NCU=/nonexistent/ncu", "profile --scene rgb -r tiled");
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_CONTAINS(r.err, "Nsight Compute (ncu) was not found");
    r = render("profile --scene rgb -r cpu");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_CONTAINS(r.err, "renderer 'cpu' runs no GPU kernel");
}

}  // namespace
