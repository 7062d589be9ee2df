// Grading a class (render/class_entries.h, render/class_report.h): the
// entries of a class folder, archives unpacked safely, and the report's CSV
// and pages from per-student results.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/file_checks.h"
#include "render/class_entries.h"
#include "render/class_report.h"
#include "tests/archive_fixture.h"

namespace cr {
namespace {

namespace fs = std::filesystem;
using cr::testing_files::TempDir;
using json = nlohmann::json;
using testing_archives::write_archive;

TEST(ClassEntries, FoldersAndArchivesByTheStudentsNames) {
    TempDir d("class");
    fs::create_directories(d.dir() / "alice");
    write_archive(d.dir() / "bob.tar.gz", {{"render/cudaRenderer.cu", "x"}}, false);
    write_archive(d.dir() / "carol.zip", {{"render/cudaRenderer.cu", "x"}}, true);
    std::ofstream(d.dir() / "notes.txt") << "not a submission";
    std::ofstream(d.dir() / ".hidden") << "";
    std::vector<std::string> skipped;
    const std::vector<ClassEntry> e = list_class(d.dir().string(), skipped);
    ASSERT_EQ(e.size(), 3u);
    EXPECT_EQ(e[0].id, "alice");
    EXPECT_FALSE(e[0].archive);
    EXPECT_EQ(e[1].id, "bob");
    EXPECT_TRUE(e[1].archive);
    EXPECT_EQ(e[2].id, "carol");
    EXPECT_EQ(skipped, std::vector<std::string>{"notes.txt"});
    write_archive(d.dir() / "alice.zip", {{"a", "b"}}, true);
    EXPECT_THROW(list_class(d.dir().string(), skipped), std::invalid_argument);  // two entries for alice
    EXPECT_EQ(archive_id("asst3.tar.gz"), "asst3");
    EXPECT_EQ(archive_id("x.tgz"), "x");
    EXPECT_EQ(archive_id(".zip"), "");
    EXPECT_EQ(archive_id("readme.md"), "");
}

TEST(ClassEntries, TheCoursesSubmissionArchiveUnpacksAndItsRenderFolderIsFound) {
    TempDir d("class");
    write_archive(d.dir() / "asst3.tar.gz",
                  {{"saxpy/saxpy.cu", "s"}, {"scan/scan.cu", "s"}, {"render/cudaRenderer.cu", "r"}, {"render/cudaRenderer.h", "h"}},
                  false);
    unpack_archive((d.dir() / "asst3.tar.gz").string(), (d.dir() / "out").string());
    EXPECT_EQ(find_render_folder((d.dir() / "out").string()), (d.dir() / "out" / "render").string());
    std::ifstream in(d.dir() / "out" / "render" / "cudaRenderer.h");
    std::string text;
    std::getline(in, text);
    EXPECT_EQ(text, "h");
    fs::create_directories(d.dir() / "deep" / "a" / "b" / "render");
    std::ofstream(d.dir() / "deep" / "a" / "b" / "render" / "cudaRenderer.cu") << "";
    EXPECT_EQ(find_render_folder((d.dir() / "deep").string()), (d.dir() / "deep" / "a" / "b" / "render").string());
    EXPECT_EQ(find_render_folder(d.dir().string() + "/out/saxpy"), "");
}

TEST(ClassEntries, AMemberOutsideTheFolderIsRefused) {
    TempDir d("class");
    write_archive(d.dir() / "evil.zip", {{"../escape.txt", "no"}}, true);
    try {
        unpack_archive((d.dir() / "evil.zip").string(), (d.dir() / "out").string());
        FAIL() << "unpacked a member outside its folder";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("'../escape.txt', a path out of its folder"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(d.dir() / "escape.txt"));
    write_archive(d.dir() / "abs.tar.gz", {{"/tmp/cr-absolute.txt", "no"}}, false);
    EXPECT_THROW(unpack_archive((d.dir() / "abs.tar.gz").string(), (d.dir() / "out2").string()), std::runtime_error);
}

json graded_student(const std::string& id, int total, bool rgb_ok) {
    json scenes = json::array();
    for (const char* s : {"rgb", "rand10k", "rand100k", "pattern", "snowsingle", "biglittle", "rand1M", "micro2M"}) {
        json row = {{"scene", s}, {"correct", true}, {"seed", 7}, {"stu_time", 1.5}, {"ref_time", 1.0}, {"score", 8}};
        if (std::string(s) == "rgb" && !rgb_ok) {
            row["correct"] = false;
            row["score"] = 0;
            row["why"] = "12 pixels differ by more than 0.1";
            row["story"] = "Pixel (3, 4): <the circles>";
            row["diff_png"] = "rgb_diff.png";
        }
        scenes.push_back(row);
    }
    return {{"id", id}, {"status", "graded"}, {"gpu", 1}, {"hash", "abc"}, {"layout", "course layout C"},
            {"grade", {{"total", total}, {"scenes", scenes}}}, {"build", {{"log", "student: built in 1.0 s"}}}};
}

TEST(ClassReport, CsvRowsAndColumns) {
    const std::string csv = grades_csv({graded_student("alice", 64, true), {{"id", "bob, jr"}, {"status", "build failed"}}});
    const size_t first_nl = csv.find('\n');
    EXPECT_EQ(csv.rfind("id,status,total,rgb_score,rgb_T,rgb_T_ref,rgb_correct,rand10k_score,", 0), 0u) << csv;
    EXPECT_EQ(csv.compare(first_nl + 1, 42, "alice,graded,64,8,1.5000,1.0000,yes,8,1.50"), 0) << csv;
    EXPECT_NE(csv.find("\n\"bob, jr\",build failed,,,"), std::string::npos) << csv;
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
}

TEST(ClassReport, ReferenceDriftBeyondTheCoursesSpread) {
    const json ref = json::array({{{"gpu", 0}, {"start", {{"rgb", 0.1}, {"rand1M", 20.0}}}, {"end", {{"rgb", 0.14}, {"rand1M", 21.0}}}}});
    EXPECT_EQ(reference_drift(ref), std::vector<std::string>{"GPU 0: rgb 0.1000 -> 0.1400 ms (+40%)"});
}

TEST(ClassReport, PagesLinkEachStudentAndEscapeWhatStudentsWrote) {
    ClassSummary s;
    s.mode = "graded on 2 GPUs";
    const std::string index = class_page({graded_student("bob", 40, false), graded_student("alice", 64, true)}, s);
    EXPECT_LT(index.find("students/alice.html"), index.find("students/bob.html")) << "not sorted by total";
    EXPECT_NE(index.find("<svg"), std::string::npos);
    const std::string bob = student_page(graded_student("bob", 40, false));
    EXPECT_NE(bob.find("Pixel (3, 4): &lt;the circles&gt;"), std::string::npos);
    EXPECT_NE(bob.find("src=\"../bob/rgb_diff.png\""), std::string::npos);
    EXPECT_NE(bob.find("href=\"../report.html\""), std::string::npos);
    EXPECT_EQ(html_escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
}

}  // namespace
}  // namespace cr

// ---- the report in a real browser (headless Chromium) -------------------
#include <stb_image.h>

#include <cstdlib>

#include "render/image_io.h"
#include "render/student/process.h"

namespace cr {
namespace {

std::string chromium() {
    for (const char* c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
        if (access(c, X_OK) == 0) return c;
    return "";
}

/// Chromium, headless, with a fresh profile: --dump-dom or --screenshot=PNG of `url`.
std::string browse(const std::string& what, const std::string& url, const fs::path& profile) {
    const student::CapturedRun r = student::run_captured(
        {chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--user-data-dir=" + profile.string(), "--window-size=1200,1000", what, url},
        120);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
}

/// True when the PNG at `path` has a pixel of exactly (r, g, b).
bool has_color(const fs::path& path, int r, int g, int b) {
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load(path.c_str(), &w, &h, &n, 3);
    if (!px) return false;
    bool found = false;
    for (long i = 0; i < static_cast<long>(w) * h && !found; ++i)
        found = px[3 * i] == r && px[3 * i + 1] == g && px[3 * i + 2] == b;
    stbi_image_free(px);
    return found;
}

/// A results folder as the Slurm tasks leave it, for render grade --collect.
void write_results(const fs::path& out) {
    fs::create_directories(out / "bob");
    json entries = {{"entries", json::array()}};
    for (const char* id : {"alice", "bob", "carol", "dan"}) entries["entries"].push_back({{"id", id}});
    std::ofstream(out / "entries.json") << entries.dump();
    std::ofstream(out / "alice.json") << graded_student("alice", 64, true).dump();
    std::ofstream(out / "bob.json") << graded_student("bob", 40, false).dump();
    std::ofstream(out / "carol.json") << json{{"id", "carol"}, {"status", "build failed"},
                                              {"build", {{"log", "cudaRenderer.cu(7): error: <oops>"}}}}.dump();
    Image diff(64, 64);  // the heat map of a frame that failed: magenta beyond the tolerance
    for (size_t p = 0; p < diff.pixel_count(); ++p) {
        const float v[4] = {1.f, 0.f, 1.f, 1.f};
        std::copy(v, v + 4, &diff.data[4 * p]);
    }
    write_image(diff, (out / "bob" / "rgb_diff.png").string(), ImageFormat::Png);
}

TEST(ClassReportInABrowser, TheTableAndAStudentPageRenderAndTheLinksWork) {
    if (chromium().empty()) GTEST_SKIP() << "no chromium here (apt-get install chromium)";
    TempDir d("class");
    const fs::path out = d.dir() / "results";
    write_results(out);
    const std::string collect = std::string("'") + RENDER_EXE + "' grade --collect '" + out.string() + "' > '" +
                                (d.dir() / "collect.txt").string() + "' 2>&1";
    ASSERT_EQ(std::system(collect.c_str()), 0);
    std::ifstream said(d.dir() / "collect.txt");
    const std::string text((std::istreambuf_iterator<char>(said)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("3 of 4 students have a result, 1 missing (dan), 1 failed"), std::string::npos) << text;
    const std::string index = browse("--dump-dom", "file://" + (out / "report.html").string(), d.dir() / "profile");
    EXPECT_NE(index.find("no result yet: dan"), std::string::npos) << index;
    const size_t alice = index.find("href=\"students/alice.html\""), bob = index.find("href=\"students/bob.html\"");
    ASSERT_NE(alice, std::string::npos) << index;
    ASSERT_NE(bob, std::string::npos);
    EXPECT_LT(alice, bob) << "the class is not sorted by total";
    // follow the link as the page gives it
    const std::string bob_page = browse("--dump-dom", "file://" + (out / "students" / "bob.html").string(), d.dir() / "profile");
    EXPECT_NE(bob_page.find("12 pixels differ by more than 0.1"), std::string::npos) << bob_page;
    EXPECT_NE(bob_page.find("src=\"../bob/rgb_diff.png\""), std::string::npos);
    EXPECT_NE(bob_page.find("href=\"../report.html\""), std::string::npos);
    browse("--screenshot=" + (d.dir() / "index.png").string(), "file://" + (out / "report.html").string(), d.dir() / "profile");
    EXPECT_TRUE(has_color(d.dir() / "index.png", 0xdd, 0xe3, 0xf0)) << "no table header in the screenshot";
    EXPECT_TRUE(has_color(d.dir() / "index.png", 0x4a, 0x6f, 0xb0)) << "no histogram bar in the screenshot";
    browse("--screenshot=" + (d.dir() / "bob.png").string(), "file://" + (out / "students" / "bob.html").string(), d.dir() / "profile");
    EXPECT_TRUE(has_color(d.dir() / "bob.png", 255, 0, 255)) << "bob's diff heat map is not drawn";
}

}  // namespace
}  // namespace cr
