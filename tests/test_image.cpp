// Image files (render/image.h) and image comparison (render/compare.h).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "render/compare.h"
#include "render/image_io.h"

#include "tests/file_checks.h"

namespace {

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

using cr::testing_files::slurp;
using cr::testing_files::TempDir;

void set(cr::Image& img, int i, int j, float r, float g, float b, float a = 1.f) {
    float* p = img.pixel(i, j);
    p[0] = r;
    p[1] = g;
    p[2] = b;
    p[3] = a;
}

/// 3 x 2 test image; expected bytes of each value under (uint8)(255 * clamp(v)):
///   .5 -> 127 (127.5), 1 -> 255, 1.5 -> 255, -.2 -> 0, NaN -> 0, .999 -> 254,
///   .0039 -> 0 (.99), .004 -> 1 (1.02), .25 -> 63, .75 -> 191, .1 -> 25.
cr::Image sample_image() {
    cr::Image img(3, 2);
    set(img, 0, 0, .5f, 1.f, 1.5f);  // bottom row
    set(img, 1, 0, -.2f, kNan, .999f);
    set(img, 2, 0, .0039f, .004f, .25f);
    set(img, 0, 1, .75f, .1f, 0.f);  // top row
    set(img, 1, 1, 1.f, 0.f, 0.f);
    set(img, 2, 1, 0.f, 0.f, 1.f);
    return img;
}

// File order: top row (j = 1) first.
const std::vector<uint8_t> kSampleBytes = {191, 25, 0, 255, 0, 0, 0, 0, 255,
                                           127, 255, 255, 0, 0, 254, 0, 1, 63};

void expect_sample_read_back(const cr::Image& back) {
    ASSERT_EQ(back.width, 3);
    ASSERT_EQ(back.height, 2);
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 3; ++i)
            for (int c = 0; c < 3; ++c) {
                const uint8_t want = kSampleBytes[3 * ((1 - j) * 3 + i) + c];
                EXPECT_EQ(back.pixel(i, j)[c], static_cast<float>(want) / 255.f) << i << "," << j << " c" << c;
            }
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 3; ++i) EXPECT_EQ(back.pixel(i, j)[3], 1.f);
}

TEST(Image, PixelLayout) {
    cr::Image img(4, 3);
    EXPECT_EQ(img.data.size(), 48u);
    EXPECT_EQ(img.pixel_count(), 12u);
    EXPECT_EQ(img.pixel(1, 2) - img.data.data(), 4 * (2 * 4 + 1));
}

TEST(Image, ToRgb8TruncatesClampsAndFlips) {
    EXPECT_EQ(cr::to_rgb8_top_down(sample_image()), kSampleBytes);
    cr::Image one(1, 1);
    set(one, 0, 0, .5f, .5f, .5f, 2.5f);
    EXPECT_EQ(cr::to_rgb8_top_down(one, true), (std::vector<uint8_t>{127, 127, 127, 255}));
}

TEST(Image, PpmBytesAreTopRowFirst) {
    TempDir dir("image");
    const std::string path = dir.path() + "/a.ppm";
    cr::write_image(sample_image(), path, cr::ImageFormat::Ppm);
    const std::string header = "P6\n3 2\n255\n";
    const std::string bytes = slurp(path);
    ASSERT_EQ(bytes.size(), header.size() + 18);
    EXPECT_EQ(bytes.substr(0, header.size()), header);
    const std::vector<uint8_t> body(bytes.begin() + header.size(), bytes.end());
    EXPECT_EQ(body, kSampleBytes);
    expect_sample_read_back(cr::read_image(path));
}

TEST(Image, PngRoundTrip) {
    TempDir dir("image");
    const std::string path = dir.path() + "/a.png";
    cr::write_image(sample_image(), path, cr::ImageFormat::Png);
    const std::string bytes = slurp(path);
    ASSERT_GE(bytes.size(), 8u);
    EXPECT_EQ(bytes.substr(1, 3), "PNG");
    expect_sample_read_back(cr::read_image(path));
    // Only the image is left behind (no temporary).
    EXPECT_EQ(dir.entries(), std::set<std::string>{"a.png"});
}

TEST(Image, PngBytesWithAlpha) {
    TempDir dir("image");
    const std::string path = dir.path() + "/rgba.png";
    const std::vector<uint8_t> px = {10, 20, 30, 40, 50, 60, 70, 80};  // 2 x 1 RGBA
    cr::write_png_bytes(path, 2, 1, 4, px.data());
    const cr::Image back = cr::read_image(path);
    ASSERT_EQ(back.width, 2);
    ASSERT_EQ(back.height, 1);
    EXPECT_EQ(back.pixel(0, 0)[0], 10.f / 255.f);
    EXPECT_EQ(back.pixel(0, 0)[3], 40.f / 255.f);
    EXPECT_EQ(back.pixel(1, 0)[2], 70.f / 255.f);
}

TEST(Image, WriteToMissingFolderThrows) {
    try {
        cr::write_image(sample_image(), "/nonexistent/dir/out.png", cr::ImageFormat::Png);
        FAIL() << "no exception";
    } catch (const cr::FileError& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/out.png"), std::string::npos) << e.what();
    }
    EXPECT_THROW(cr::write_image(sample_image(), "/nonexistent/dir/out.ppm", cr::ImageFormat::Ppm),
                 cr::FileError);
}

TEST(Image, FailedRenameLeavesNoTemporaryFile) {
    // The target is a folder: the temporary is written, the rename fails.
    TempDir dir("image");
    const std::string target = dir.path() + "/sub";
    ASSERT_EQ(mkdir(target.c_str(), 0755), 0);
    EXPECT_THROW(cr::write_image(sample_image(), target, cr::ImageFormat::Png), cr::FileError);
    EXPECT_THROW(cr::write_image(sample_image(), target, cr::ImageFormat::Ppm), cr::FileError);
    EXPECT_EQ(dir.entries(), std::set<std::string>{"sub"});
}

TEST(Image, ExistingFileIsNotClobberedWhenTheWriteFails) {
    TempDir dir("image");
    const std::string path = dir.path() + "/keep.png";
    { std::ofstream(path) << "original contents"; }
    // A file-size limit below the image's size makes the write fail midway
    // (EFBIG), as a full disk would.
    struct rlimit old_limit;
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
    void (*old_handler)(int) = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = old_limit;
    small.rlim_cur = 100;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    std::string message;
    try {
        cr::write_image(cr::Image(64, 64), path, cr::ImageFormat::Ppm);  // 12 KiB
    } catch (const cr::FileError& e) {
        message = e.what();
    }
    setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);
    EXPECT_EQ(message, "cannot write '" + path + "': " + std::strerror(EFBIG));
    EXPECT_EQ(slurp(path), "original contents");
    EXPECT_EQ(dir.entries(), std::set<std::string>{"keep.png"});  // no temporary left
    // And a successful write replaces it.
    cr::write_image(sample_image(), path, cr::ImageFormat::Png);
    expect_sample_read_back(cr::read_image(path));
}

TEST(Image, ReadErrorsThrow) {
    TempDir dir("image");
    EXPECT_THROW(cr::read_image(dir.path() + "/missing.png"), cr::FileError);
    const std::string junk = dir.path() + "/junk.png";
    { std::ofstream(junk) << "this is not a png"; }
    try {
        cr::read_image(junk);
        FAIL() << "no exception";
    } catch (const cr::FileError& e) {
        EXPECT_NE(std::string(e.what()).find(junk), std::string::npos) << e.what();
    }
}

TEST(Image, FormatFromExtension) {
    EXPECT_EQ(cr::format_from_extension("a.ppm"), cr::ImageFormat::Ppm);
    EXPECT_EQ(cr::format_from_extension("dir.x/A.PPM"), cr::ImageFormat::Ppm);
    EXPECT_EQ(cr::format_from_extension("a.png"), cr::ImageFormat::Png);
    EXPECT_EQ(cr::format_from_extension("noext"), cr::ImageFormat::Png);
}

// ---- compare_images -----------------------------------------------------------

cr::Image filled(int w, int h, float v) {
    cr::Image img(w, h);
    for (size_t p = 0; p < img.pixel_count(); ++p) {
        img.data[4 * p] = img.data[4 * p + 1] = img.data[4 * p + 2] = v;
        img.data[4 * p + 3] = 1.f;
    }
    return img;
}

TEST(Compare, EqualImages) {
    const cr::Image a = filled(3, 3, .3f);
    const cr::CompareStats s = cr::compare_images(a, a);
    EXPECT_TRUE(s.same_size);
    EXPECT_TRUE(s.pass);
    EXPECT_EQ(s.max_abs_error, 0.0);
    EXPECT_EQ(s.mean_abs_error, 0.0);
    EXPECT_TRUE(std::isinf(s.psnr_db));
    EXPECT_EQ(s.mismatches_strict, 0);
    EXPECT_EQ(s.mismatches_course, 0);
    EXPECT_EQ(s.mismatches_custom, 0);
    EXPECT_EQ(s.tolerance, cr::kStrictTolerance);
}

TEST(Compare, StatisticsOfTwoErrors) {
    const cr::Image ref = filled(2, 2, .5f);
    cr::Image test = ref;
    test.pixel(0, 0)[0] = .75f;  // error .25 (exact)
    test.pixel(1, 0)[1] = .55f;  // error .05000001
    test.pixel(0, 1)[3] = 0.f;   // alpha: ignored
    const cr::CompareStats s = cr::compare_images(test, ref);
    const double e2 = static_cast<double>(.55f - .5f);
    EXPECT_EQ(s.max_abs_error, .25);
    EXPECT_NEAR(s.mean_abs_error, (.25 + e2) / 12.0, 1e-12);
    EXPECT_NEAR(s.psnr_db, 22.66267881, 1e-6);  // 10 log10(12 / (.0625 + e2^2))
    EXPECT_EQ(s.mismatches_strict, 2);
    EXPECT_EQ(s.mismatches_course, 1);
    EXPECT_EQ(s.mismatches_custom, 2);
    EXPECT_TRUE(s.pass);
    // Custom tolerances: .25 is not beyond .25, but beyond .2.
    EXPECT_EQ(cr::compare_images(test, ref, .25f).mismatches_custom, 0);
    EXPECT_EQ(cr::compare_images(test, ref, .2f).mismatches_custom, 1);
    EXPECT_EQ(cr::compare_images(test, ref, .2f).tolerance, .2f);
}

TEST(Compare, AlphaOnlyDifferencesAreIgnored) {
    const cr::Image ref = filled(4, 4, .5f);
    cr::Image test = ref;
    for (size_t p = 0; p < test.pixel_count(); ++p) test.data[4 * p + 3] = 7.f;
    const cr::CompareStats s = cr::compare_images(test, ref);
    EXPECT_EQ(s.mismatches_strict, 0);
    EXPECT_EQ(s.max_abs_error, 0.0);
    EXPECT_TRUE(s.pass);
}

TEST(Compare, PsnrClampsValuesToZeroOne) {
    const cr::Image ref = filled(2, 2, 1.f);
    const cr::Image test = filled(2, 2, 1.5f);  // differs only above 1
    const cr::CompareStats s = cr::compare_images(test, ref);
    EXPECT_EQ(s.max_abs_error, .5);
    EXPECT_EQ(s.mean_abs_error, .5);
    EXPECT_TRUE(std::isinf(s.psnr_db));
    EXPECT_EQ(s.mismatches_strict, 4);
    EXPECT_EQ(s.mismatches_course, 4);
    EXPECT_TRUE(s.pass);  // 4 mismatching pixels are within the 5 allowed
}

TEST(Compare, NanAndInfCountAsMismatches) {
    const cr::Image ref = filled(3, 1, .5f);
    cr::Image test = ref;
    test.pixel(0, 0)[2] = kNan;
    cr::CompareStats s = cr::compare_images(test, ref);
    EXPECT_EQ(s.mismatches_strict, 1);
    EXPECT_EQ(s.mismatches_course, 1);
    EXPECT_TRUE(std::isinf(s.max_abs_error));
    EXPECT_TRUE(s.pass);  // one bad pixel is within the 5 allowed
    cr::Image ref2 = ref;
    ref2.pixel(2, 0)[0] = kInf;
    s = cr::compare_images(test, ref2, 10.f);
    EXPECT_EQ(s.mismatches_custom, 2);
    EXPECT_EQ(s.mismatches_course, 2);
}

TEST(Compare, FiveMismatchesPassSixFail) {
    const cr::Image ref = filled(4, 4, .2f);
    cr::Image test = ref;
    for (int k = 0; k < 5; ++k) test.data[4 * k] = .7f;
    cr::CompareStats s = cr::compare_images(test, ref);
    EXPECT_EQ(s.mismatches_strict, 5);
    EXPECT_EQ(s.mismatches_course, 5);
    EXPECT_TRUE(s.pass);
    test.data[4 * 5 + 2] = .7f;
    s = cr::compare_images(test, ref);
    EXPECT_EQ(s.mismatches_strict, 6);
    EXPECT_FALSE(s.pass);
    EXPECT_EQ(cr::kAllowedMismatches, 5);
}

TEST(Compare, SmallErrorsPassCourseButNotStrictCounts) {
    const cr::Image ref = filled(4, 4, .5f);
    const cr::Image test = filled(4, 4, .55f);  // every pixel off by .05
    cr::CompareStats s = cr::compare_images(test, ref);
    EXPECT_EQ(s.mismatches_strict, 16);
    EXPECT_EQ(s.mismatches_course, 0);
    EXPECT_FALSE(s.pass);
    s = cr::compare_images(test, ref, cr::kCourseTolerance);
    EXPECT_TRUE(s.pass);
    EXPECT_EQ(s.mismatches_custom, 0);
}

TEST(Compare, SizeMismatchFails) {
    const cr::CompareStats s = cr::compare_images(filled(2, 2, .5f), filled(2, 3, .5f), 1.f);
    EXPECT_FALSE(s.same_size);
    EXPECT_FALSE(s.pass);
    EXPECT_FALSE(cr::compare_images(filled(3, 2, .5f), filled(2, 3, .5f)).pass);
    EXPECT_EQ(cr::describe(s), "image sizes differ");
}

TEST(Compare, DescribeNamesTheNumbers) {
    const cr::Image ref = filled(2, 2, .5f);
    cr::Image test = ref;
    test.pixel(0, 0)[0] = .75f;
    EXPECT_EQ(cr::describe(cr::compare_images(test, ref)),
              "max abs error 0.25, mean abs error 0.0208, PSNR 22.8 dB; pixels beyond strict (1e-4): 1 "
              "(this rule decides: at most 5 allowed), course (0.1): 1");
    EXPECT_EQ(cr::describe(cr::compare_images(test, ref, cr::kCourseTolerance)),
              "max abs error 0.25, mean abs error 0.0208, PSNR 22.8 dB; pixels beyond strict (1e-4): 1, "
              "course (0.1): 1 (this rule decides: at most 5 allowed)");
    // A custom rule is listed once, after the two standard ones.
    EXPECT_EQ(cr::describe(cr::compare_images(test, ref, .5f)),
              "max abs error 0.25, mean abs error 0.0208, PSNR 22.8 dB; pixels beyond strict (1e-4): 1, "
              "course (0.1): 1, custom (0.5): 0 (this rule decides: at most 5 allowed)");
}

TEST(Compare, RuleNamesQuoteTheToleranceAsWritten) {
    EXPECT_EQ(cr::rule_name(cr::kStrictTolerance), "strict (1e-4)");
    EXPECT_EQ(cr::rule_name(cr::kCourseTolerance), "course (0.1)");
    EXPECT_EQ(cr::rule_name(cr::parse_tolerance("0.01")), "custom (0.01)");
    EXPECT_EQ(cr::rule_name(cr::parse_tolerance("1e-3")), "custom (0.001)");
}

TEST(DiffHeatmap, LegendColoursAreTheHeatmapsColours) {
    using C = std::array<float, 3>;
    EXPECT_EQ(cr::diff_heat_color(0.f, 1e-4f), (C{0.f, 0.f, 0.f}));         // equal: black
    EXPECT_EQ(cr::diff_heat_color(1e-7f, 1.f), (C{0.f, 0.f, 1.f}));         // the scale's start (and below): blue
    EXPECT_EQ(cr::diff_heat_color(1.f, 1.f), (C{1.f, 1.f, .2f}));           // its end: yellow
    EXPECT_EQ(cr::diff_heat_color(2e-4f, 1e-4f), (C{1.f, 0.f, 1.f}));       // beyond tolerance: magenta
    EXPECT_EQ(cr::diff_heat_color(kNan, 1e-4f), (C{1.f, 0.f, 1.f}));
    cr::Image ref = filled(1, 1, .5f), test = ref;
    test.pixel(0, 0)[1] = .5f + 1e-5f;
    const cr::Image h = cr::diff_heatmap(test, ref, 1e-4f);
    const C c = cr::diff_heat_color(std::fabs(test.pixel(0, 0)[1] - .5f), 1e-4f);
    EXPECT_EQ(h.pixel(0, 0)[0], c[0]);
    EXPECT_EQ(h.pixel(0, 0)[1], c[1]);
    EXPECT_EQ(h.pixel(0, 0)[2], c[2]);
}

TEST(ParseTolerance, GoodValues) {
    EXPECT_EQ(cr::parse_tolerance("strict"), 1e-4f);
    EXPECT_EQ(cr::parse_tolerance("course"), .1f);
    EXPECT_EQ(cr::parse_tolerance("0.5"), .5f);
    EXPECT_EQ(cr::parse_tolerance("1e-3"), 1e-3f);
    EXPECT_EQ(cr::parse_tolerance("2"), 2.f);
}

TEST(ParseTolerance, BadValuesThrowNamingTheValue) {
    for (const char* bad : {"", "abc", "0", "-1", "-0.1", "nan", "inf", "0.5x", " 0.5x", "1e50", "Strict"}) {
        try {
            cr::parse_tolerance(bad);
            FAIL() << "'" << bad << "' accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
        }
    }
}

TEST(DiffHeatmap, Colors) {
    cr::Image ref = filled(5, 1, .5f);
    cr::Image test = ref;
    // pixel 0: equal; 1: error .5 (beyond .1); 2: NaN; 3: error 1 (tolerance 2
    // below); 4: error ~1e-3.
    test.pixel(1, 0)[1] = 1.f;
    test.pixel(2, 0)[0] = kNan;
    ref.pixel(3, 0)[2] = 0.f;
    test.pixel(3, 0)[2] = 1.f;
    test.pixel(4, 0)[0] = .501f;
    cr::Image h = cr::diff_heatmap(test, ref, .1f);
    ASSERT_EQ(h.width, 5);
    ASSERT_EQ(h.height, 1);
    auto expect_rgb = [&](int i, float r, float g, float b) {
        EXPECT_NEAR(h.pixel(i, 0)[0], r, 1e-3) << i;
        EXPECT_NEAR(h.pixel(i, 0)[1], g, 1e-3) << i;
        EXPECT_NEAR(h.pixel(i, 0)[2], b, 1e-3) << i;
        EXPECT_EQ(h.pixel(i, 0)[3], 1.f) << i;
    };
    expect_rgb(0, 0, 0, 0);  // black: equal
    expect_rgb(1, 1, 0, 1);  // magenta: beyond tolerance
    expect_rgb(2, 1, 0, 1);  // magenta: NaN
    expect_rgb(3, 1, 0, 1);  // error 1 > .1
    expect_rgb(4, 1, 0, .2f);  // 1e-3: t = .5 -> red
    h = cr::diff_heatmap(test, ref, 2.f);
    expect_rgb(3, 1, 1, .2f);  // error 1: t = 1 -> yellow
    EXPECT_EQ(h.pixel(0, 0)[0], 0.f);
    EXPECT_EQ(h.pixel(0, 0)[2], 0.f);
}

TEST(DiffHeatmap, TinyErrorIsBlue) {
    cr::Image ref = filled(1, 1, .5f);
    cr::Image test = ref;
    test.pixel(0, 0)[0] = std::nextafter(.5f, 1.f);  // 6e-8 < 1e-6: t clamps to 0
    const cr::Image h = cr::diff_heatmap(test, ref, .1f);
    EXPECT_EQ(h.pixel(0, 0)[0], 0.f);
    EXPECT_EQ(h.pixel(0, 0)[1], 0.f);
    EXPECT_FLOAT_EQ(h.pixel(0, 0)[2], 1.f);
}

}  // namespace
