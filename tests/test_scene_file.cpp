// The plain-text scene file format (scenes/scene_file.cpp): good files, every
// malformed case with its line number, a seeded fuzz test and a round trip.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "scenes/scene.h"

namespace {

const char* kGood =
    "# a scene for the tests\n"
    "\n"
    "shade snow   # trailing comment\n"
    "motion linear\n"
    "   2\n"
    "0.1 0.2 0.3 0.4 0.5 0.6 0.05 1 0.5 0   # first circle\n"
    "\n"
    "# a comment between circles\n"
    "\t0.9 0.8 0.7 -1 -2 -3 0 1.5 -0.5 2\r\n";

TEST(SceneFile, ParsesAGoodFileWithCommentsBlankLinesAndHeaders) {
    const cr::Scene s = cr::parse_scene_text(kGood, "good.txt");
    ASSERT_EQ(s.count(), 2u);
    EXPECT_EQ(s.shade, cr::ShadeMode::Snow);
    EXPECT_EQ(s.motion, cr::Motion::Linear);
    EXPECT_EQ(s.name, "good.txt");
    EXPECT_EQ(s.x[0], .1f);
    EXPECT_EQ(s.y[0], .2f);
    EXPECT_EQ(s.z[0], .3f);
    EXPECT_EQ(s.vx[0], .4f);
    EXPECT_EQ(s.vy[0], .5f);
    EXPECT_EQ(s.vz[0], .6f);
    EXPECT_EQ(s.radius[0], .05f);
    EXPECT_EQ(s.r[0], 1.f);
    EXPECT_EQ(s.g[0], .5f);
    EXPECT_EQ(s.b[0], 0.f);
    EXPECT_EQ(s.x[1], .9f);
    EXPECT_EQ(s.vz[1], -3.f);
    EXPECT_EQ(s.radius[1], 0.f);  // radius 0 is allowed
    for (const auto* v : {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.radius, &s.r, &s.g, &s.b})
        EXPECT_EQ(v->size(), 2u);
}

TEST(SceneFile, ColorsOutsideZeroOneAreAccepted) {
    // Like the course's random scenes (r up to 1.2), colors are not clamped.
    const cr::Scene s = cr::parse_scene_text(kGood, "good.txt");
    EXPECT_EQ(s.r[1], 1.5f);
    EXPECT_EQ(s.g[1], -.5f);
    EXPECT_EQ(s.b[1], 2.f);
}

TEST(SceneFile, DefaultsAreFlatAndStill) {
    const cr::Scene s = cr::parse_scene_text("1\n.5 .5 .5 0 0 0 .1 1 0 0", "d.txt");  // no final newline
    ASSERT_EQ(s.count(), 1u);
    EXPECT_EQ(s.shade, cr::ShadeMode::Flat);
    EXPECT_EQ(s.motion, cr::Motion::None);
    EXPECT_EQ(s.radius[0], .1f);
}

TEST(SceneFile, ZeroCircles) {
    const cr::Scene s = cr::parse_scene_text("# nothing\n0\n", "zero.txt");
    EXPECT_EQ(s.count(), 0u);
}

TEST(SceneFile, LoadsFromDisk) {
    const std::string path = "/tmp/cr_test_scene_" + std::to_string(getpid()) + ".txt";
    { std::ofstream(path) << kGood; }
    const cr::Scene s = cr::load_scene_file(path);
    std::remove(path.c_str());
    EXPECT_EQ(s.count(), 2u);
    EXPECT_EQ(s.b[1], 2.f);
    EXPECT_EQ(s.name, path);
}

using TextParser = cr::Scene (*)(const std::string& text, const std::string& label);

/// Parses `text` as file `label` with `parse`, expecting a SceneFileError at
/// `line` whose reason contains `reason`.
void expect_error(const std::string& text, int line, const std::string& reason,
                  TextParser parse = cr::parse_scene_text, const std::string& label = "bad.txt") {
    try {
        parse(text, label);
        ADD_FAILURE() << "accepted: " << text.substr(0, 80);
    } catch (const cr::SceneFileError& e) {
        EXPECT_EQ(e.file, label);
        EXPECT_EQ(e.line, line) << e.what();
        EXPECT_NE(e.reason.find(reason), std::string::npos) << "reason: " << e.reason;
        EXPECT_FALSE(e.reason.empty());
        const std::string where = line > 0 ? label + ":" + std::to_string(line) + ": " : label + ": ";
        EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u) << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "wrong exception type: " << e.what();
    }
}

const std::string kLine = "0.1 0.2 0.3 0 0 0 0.05 1 0 0\n";

TEST(SceneFileErrors, BadNumber) {
    expect_error("1\n0.1 0.2 abc 0 0 0 0.05 1 0 0\n", 2, "field z: not a number 'abc'");
    expect_error("1\n0.1 0.2 0.3x 0 0 0 0.05 1 0 0\n", 2, "field z: not a number");
    expect_error("# c\n\n2\n" + kLine + "0.1 0.2 0.3 0 0 0 0.05 1 0 0,5\n", 5, "field b");
}

TEST(SceneFileErrors, NanAndInf) {
    expect_error("1\n0.1 nan 0.3 0 0 0 0.05 1 0 0\n", 2, "field y: 'nan' is not a finite float");
    expect_error("1\n0.1 0.2 0.3 inf 0 0 0.05 1 0 0\n", 2, "field vx: 'inf' is not a finite float");
    expect_error("1\n0.1 0.2 0.3 0 0 0 -INF 1 0 0\n", 2, "field radius");
    expect_error("1\n1e39 0.2 0.3 0 0 0 0.05 1 0 0\n", 2, "not a finite float");  // overflows float
}

TEST(SceneFileErrors, NegativeRadius) {
    expect_error("1\n0.1 0.2 0.3 0 0 0 -0.05 1 0 0\n", 2, "is negative");
}

TEST(SceneFileErrors, MoreCirclesThanTheCount) {
    expect_error("2\n" + kLine + kLine + kLine, 4, "more circle lines than the count 2");
}

TEST(SceneFileErrors, FewerCirclesThanTheCount) {
    expect_error("3\n" + kLine + kLine, 3, "truncated: the count says 3 circles, the file has 2");
}

TEST(SceneFileErrors, NumbersAreQuotedAsWritten) {
    expect_error("02\n" + kLine + kLine + kLine, 4, "more circle lines than the count 02 says");
    expect_error("003\n" + kLine + kLine, 3, "truncated: the count says 003 circles, the file has 2");
    expect_error("1\n0.1 0.2 0.3 0 0 0 -0.20 1 0 0\n", 2, "radius -0.20 is negative");
    expect_error("1\n0.1 0.2 0.3 0 0 0 -2e-1 1 0 0\n", 2, "radius -2e-1 is negative");
    expect_error("1\n0.1 0.2 1e+39 0 0 0 0.05 1 0 0\n", 2, "field z: '1e+39' is not a finite float");
}

TEST(SceneFileErrors, TruncatedMidLine) {
    expect_error("2\n" + kLine + "0.1 0.2 0.", 3, "expected 10 numbers (x y z vx vy vz radius r g b), got 3");
}

TEST(SceneFileErrors, MissingAndExtraFields) {
    expect_error("1\n0.1 0.2 0.3 0 0 0 0.05 1 0\n", 2, "expected 10 numbers");
    expect_error("1\n0.1 0.2 0.3 0 0 0 0.05 1 0 0 7\n", 2, "more than 10 numbers");
    expect_error("2\n" + kLine + "   # only a comment here\n" + "0.5\n", 4, "got 1");
}

TEST(SceneFileErrors, BinaryGarbage) {
    expect_error(std::string("\x01\x02\xff\xfe garbage\n"), 1, "expected the circle count, got '\?\?\?\?'");
    const char with_nul[] = "1\n0.1 0.2\0 0.3 0 0 0 0.05 1 0 0\n";
    expect_error(std::string(with_nul, sizeof with_nul - 1), 2, "binary data");
    expect_error(std::string("1\n\x7f\x80\x81 0.2 0.3 0 0 0 0.05 1 0 0\n"), 2, "field x: not a number");
}

TEST(SceneFileErrors, VeryLongLine) {
    expect_error("1\n" + kLine + std::string(5000, ' ') + "\n", 3, "line longer than 4096 characters");
    expect_error("1\n" + std::string(4097, '1') + "\n", 2, "line longer than 4096");
}

TEST(SceneFileErrors, EmptyFile) {
    expect_error("", 0, "no circle count");
    expect_error("# only comments\n\n   \n", 3, "no circle count");
}

TEST(SceneFileErrors, HugeAndBadCounts) {
    expect_error("100000001\n", 1, "circle count 100000001 is over the limit of 100000000");
    expect_error("# x\n99999999999999999999999\n", 2, "circle count 99999999999999999999999 is over the limit of 100000000");
    expect_error("-1\n", 1, "negative circle count -1");
    expect_error("2.5\n", 1, "expected the circle count, got '2.5'");
    expect_error("2 3\n", 1, "extra text after the circle count");
    expect_error("abc\n", 1, "expected the circle count, got 'abc'");
}

TEST(SceneFileErrors, BadHeaders) {
    expect_error("shade glow\n1\n" + kLine, 1, "unknown shade 'glow'");
    expect_error("shade flat\nmotion warp\n1\n" + kLine, 2, "unknown motion 'warp'");
    expect_error("motion linear extra\n1\n" + kLine, 1, "extra text after 'motion linear'");
    expect_error("shade\n1\n" + kLine, 1, "unknown shade ''");
    // Headers belong before the count.
    expect_error("1\nshade snow\n", 2, "'shade' and 'motion' lines must come before the circle count");
}

TEST(SceneFile, ByteOrderMarkIsIgnored) {
    const cr::Scene s = cr::parse_scene_text("\xEF\xBB\xBF" "1\n0.5 0.5 0 0 0 0 0.25 1 0 0\n", "bom.txt");
    ASSERT_EQ(s.count(), 1u);
    EXPECT_EQ(s.radius[0], 0.25f);
}

TEST(SceneFileErrors, FolderIsNotASceneFile) {
    try {
        cr::load_scene_file("/tmp");
        FAIL() << "no error";
    } catch (const cr::SceneFileError& e) {
        EXPECT_EQ(e.line, 0);
        EXPECT_NE(e.reason.find("is a folder"), std::string::npos) << e.reason;
    }
}

TEST(SceneFileErrors, MissingFile) {
    try {
        cr::load_scene_file("/nonexistent/dir/scene.txt");
        FAIL() << "no exception";
    } catch (const cr::SceneFileError& e) {
        EXPECT_EQ(e.file, "/nonexistent/dir/scene.txt");
        EXPECT_EQ(e.line, 0);
        EXPECT_NE(e.reason.find("cannot open"), std::string::npos) << e.reason;
        EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/dir/scene.txt: cannot open", 0), 0u) << e.what();
    }
}

TEST(SceneFileErrors, EmptyFileOnDisk) {
    const std::string path = "/tmp/cr_test_empty_" + std::to_string(getpid()) + ".txt";
    { std::ofstream f(path); }
    try {
        cr::load_scene_file(path);
        ADD_FAILURE() << "no exception";
    } catch (const cr::SceneFileError& e) {
        EXPECT_EQ(e.file, path);
        EXPECT_EQ(e.line, 0);
    }
    std::remove(path.c_str());
}

/// Seeded random mutations of a valid file: the parser must either return a
/// consistent scene or throw SceneFileError, never anything else, never crash.
TEST(SceneFileFuzz, ThreeThousandMutations) {
    const std::string base = std::string(kGood) + "";
    const std::string three = "shade flat\n3\n" + kLine + "0.5 0.5 0.5 1 2 3 0.25 0.1 0.2 0.3\n" + kLine;
    std::mt19937 rng(20240611u);
    int loaded = 0, rejected = 0;
    for (int iter = 0; iter < 3000; ++iter) {
        std::string t = (iter % 2) ? base : three;
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !t.empty(); ++e) {
            const size_t pos = rng() % t.size();
            switch (rng() % 7) {
                case 0: t[pos] = static_cast<char>(t[pos] ^ (1u << (rng() % 8))); break;  // bit flip
                case 1: t[pos] = static_cast<char>(rng() % 256); break;                  // byte replace
                case 2: t.erase(pos, 1 + rng() % 8); break;                              // deletion
                case 3: {                                                                  // insertion
                    static const char pool[] = "0123456789.-+eE nanif#\n\t\r\0x\xff";
                    std::string ins;
                    for (size_t k = 0, n = 1 + rng() % 6; k < n; ++k) ins += pool[rng() % (sizeof pool - 1)];
                    t.insert(pos, ins);
                    break;
                }
                case 4: {  // duplicate the line containing pos
                    const size_t b = t.rfind('\n', pos) == std::string::npos ? 0 : t.rfind('\n', pos) + 1;
                    size_t en = t.find('\n', pos);
                    en = en == std::string::npos ? t.size() : en + 1;
                    t.insert(b, t.substr(b, en - b));
                    break;
                }
                case 5: t.resize(pos); break;                               // truncation
                case 6: t.insert(pos, std::string(1 + rng() % 5000, '7')); break;  // long run
            }
        }
        try {
            const cr::Scene s = cr::parse_scene_text(t, "fuzz.txt");
            ++loaded;
            const size_t n = s.count();
            for (const auto* v : {&s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.radius, &s.r, &s.g, &s.b})
                ASSERT_EQ(v->size(), n) << "iteration " << iter;
            for (size_t i = 0; i < n; ++i) {
                ASSERT_GE(s.radius[i], 0.f) << "iteration " << iter;
                for (const auto* v : {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.radius, &s.r, &s.g, &s.b})
                    ASSERT_TRUE(std::isfinite((*v)[i])) << "iteration " << iter;
            }
        } catch (const cr::SceneFileError& e) {
            ++rejected;
            ASSERT_EQ(e.file, "fuzz.txt");
            ASSERT_GE(e.line, 0);
            ASSERT_FALSE(e.reason.empty());
        } catch (const std::exception& e) {
            FAIL() << "iteration " << iter << ": unexpected exception " << e.what();
        } catch (...) {
            FAIL() << "iteration " << iter << ": unexpected non-std exception";
        }
    }
    EXPECT_EQ(loaded + rejected, 3000);
    EXPECT_GT(rejected, 1000);  // most mutations break the file
    EXPECT_GT(loaded, 10);      // some (comments, blanks, digits) keep it valid
}

TEST(SceneFileRoundTrip, SaveThenLoadIsEqual) {
    cr::Scene s;
    s.resize(4);
    s.shade = cr::ShadeMode::Snow;
    s.motion = cr::Motion::Linear;
    const float vals[4][10] = {
        {.1f, .2f, .3f, .4f, .5f, .6f, .05f, 1.f, 0.f, .5f},
        {-1e-8f, 123456.789f, 1.f / 3.f, -2.f, 0.f, 1e-30f, 0.f, 1.5f, -.25f, 2.f},
        {0.999999940f, 1.17549435e-38f, 3.4e38f, -3.4e38f, 7.f, 8.f, 1e6f, .123456789f, .987654321f, .5f},
        {std::nextafter(.5f, 1.f), std::nextafter(.5f, 0.f), 0.f, -0.f, 1.f, 1.f, .3f, 0.f, 0.f, 0.f},
    };
    for (int i = 0; i < 4; ++i) {
        s.x[i] = vals[i][0]; s.y[i] = vals[i][1]; s.z[i] = vals[i][2];
        s.vx[i] = vals[i][3]; s.vy[i] = vals[i][4]; s.vz[i] = vals[i][5];
        s.radius[i] = vals[i][6];
        s.r[i] = vals[i][7]; s.g[i] = vals[i][8]; s.b[i] = vals[i][9];
    }
    const std::string path = "/tmp/cr_test_roundtrip_" + std::to_string(getpid()) + ".txt";
    cr::save_scene_file(s, path);
    const cr::Scene t = cr::load_scene_file(path);
    std::remove(path.c_str());
    ASSERT_EQ(t.count(), 4u);
    EXPECT_EQ(t.shade, cr::ShadeMode::Snow);
    EXPECT_EQ(t.motion, cr::Motion::Linear);
    EXPECT_EQ(t.x, s.x);
    EXPECT_EQ(t.y, s.y);
    EXPECT_EQ(t.z, s.z);
    EXPECT_EQ(t.vx, s.vx);
    EXPECT_EQ(t.vy, s.vy);
    EXPECT_EQ(t.vz, s.vz);
    EXPECT_EQ(t.radius, s.radius);
    EXPECT_EQ(t.r, s.r);
    EXPECT_EQ(t.g, s.g);
    EXPECT_EQ(t.b, s.b);
}

TEST(SceneFileRoundTrip, BuiltInSceneSurvives) {
    const cr::Scene s = cr::make_scene("rand10k", 7);
    const std::string path = "/tmp/cr_test_rand10k_" + std::to_string(getpid()) + ".txt";
    cr::save_scene_file(s, path);
    const cr::Scene t = cr::load_scene_file(path);
    std::remove(path.c_str());
    EXPECT_EQ(t.count(), 10000u);
    EXPECT_EQ(t.shade, cr::ShadeMode::Flat);
    EXPECT_EQ(t.motion, cr::Motion::None);
    EXPECT_EQ(t.x, s.x);
    EXPECT_EQ(t.y, s.y);
    EXPECT_EQ(t.z, s.z);
    EXPECT_EQ(t.radius, s.radius);
    EXPECT_EQ(t.r, s.r);
    EXPECT_EQ(t.g, s.g);
    EXPECT_EQ(t.b, s.b);
}

// BUG (scenes/scene_file.cpp, the `errno == ERANGE` test in parse_scene_text):
// strtof sets ERANGE on underflow, so a subnormal value such as 1e-40 -- which
// save_scene_file writes as "9.9999461e-41" -- is rejected as "not a finite
// float", and a scene the project saved cannot be loaded back.
TEST(SceneFileRoundTrip, SubnormalValuesSurvive) {
    cr::Scene s;
    s.resize(1);
    s.x[0] = .5f;
    s.y[0] = .5f;
    s.vx[0] = 1e-40f;  // subnormal, finite
    s.radius[0] = .1f;
    const std::string path = "/tmp/cr_test_subnormal_" + std::to_string(getpid()) + ".txt";
    cr::save_scene_file(s, path);
    try {
        const cr::Scene t = cr::load_scene_file(path);
        EXPECT_EQ(t.vx[0], 1e-40f);
    } catch (const cr::SceneFileError& e) {
        ADD_FAILURE() << "a file written by save_scene_file was rejected: " << e.what();
    }
    std::remove(path.c_str());
}

TEST(SceneFileErrors, DirectoryInsteadOfFile) {
    EXPECT_THROW(cr::load_scene_file("/tmp"), cr::SceneFileError);
}

TEST(SceneFileRoundTrip, UnwritablePathThrowsAndLeavesNothing) {
    cr::Scene s;
    s.resize(1);
    EXPECT_THROW(cr::save_scene_file(s, "/nonexistent/dir/scene.txt"), std::runtime_error);
}

// ---- the course's particle format (.par) ---------------------------------------

const char* kGoodPar =
    "3\n"
    "0.5 0.25 0.125 1 2 3 0.0625\n"
    "0.1 0.2 0.3 -0.4 -0.5 -0.6 0\n"
    "  0.9\t0.8 1 0 0 0 0.01  \r\n";

TEST(ParticleFile, ParsesAGoodFileIntoAStillWhiteSnowScene) {
    const cr::Scene s = cr::parse_particle_text(kGoodPar, "snow.par");
    ASSERT_EQ(s.count(), 3u);
    EXPECT_EQ(s.name, "snow.par");
    EXPECT_EQ(s.shade, cr::ShadeMode::Snow);
    EXPECT_EQ(s.motion, cr::Motion::None);
    EXPECT_EQ(s.x[0], .5f);
    EXPECT_EQ(s.y[0], .25f);
    EXPECT_EQ(s.z[0], .125f);
    EXPECT_EQ(s.vx[0], 1.f);
    EXPECT_EQ(s.vy[0], 2.f);
    EXPECT_EQ(s.vz[0], 3.f);
    EXPECT_EQ(s.radius[0], .0625f);
    EXPECT_EQ(s.vz[1], -.6f);
    EXPECT_EQ(s.radius[1], 0.f);
    EXPECT_EQ(s.x[2], .9f);
    EXPECT_EQ(s.radius[2], .01f);
    for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(s.r[i] == 1.f && s.g[i] == 1.f && s.b[i] == 1.f) << i;
    for (const auto* v : {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.radius, &s.r, &s.g, &s.b})
        EXPECT_EQ(v->size(), 3u);
}

TEST(ParticleFile, NumbersAreReadLikeFscanfPercentF) {
    // strtof rounds the decimal straight to float (no detour through double).
    const cr::Scene s = cr::parse_particle_text("1\n0.1 1e-3 .5e1 0 0 0 0.300000011920928955078125\n", "p.par");
    EXPECT_EQ(s.x[0], std::strtof("0.1", nullptr));
    EXPECT_EQ(s.y[0], 1e-3f);
    EXPECT_EQ(s.z[0], 5.f);
    EXPECT_EQ(s.radius[0], .3f);
    // A decimal just above the midpoint of the floats 1 and 1 + 2^-23 (by about
    // 1e-19): strtof rounds it up; strtod would round it to the midpoint
    // itself, and the cast to float then down to 1 (ties to even).
    const cr::Scene h = cr::parse_particle_text("1\n1.00000005960464477550 0 0 0 0 0 0\n", "h.par");
    EXPECT_EQ(h.x[0], std::strtof("1.00000005960464477550", nullptr));
    EXPECT_EQ(h.x[0], 1.00000012f);
}

TEST(ParticleFile, CommentsBlankLinesAndAByteOrderMarkAreSkipped) {
    const cr::Scene s = cr::parse_particle_text("\xEF\xBB\xBF# flakes\n\n2\n.1 .2 .3 0 0 0 .01 # one\n\n.4 .5 .6 0 0 0 .02\n", "c.par");
    ASSERT_EQ(s.count(), 2u);
    EXPECT_EQ(s.y[1], .5f);
}

/// expect_error() for particle text (file "bad.par").
void expect_par_error(const std::string& text, int line, const std::string& reason) {
    expect_error(text, line, reason, cr::parse_particle_text, "bad.par");
}

const std::string kPar = "0.5 0.5 0.5 0 0 0 0.1\n";

TEST(ParticleFileErrors, BadCount) {
    expect_par_error("abc\n" + kPar, 1, "expected the particle count, got 'abc'");
    expect_par_error("1.5\n" + kPar, 1, "expected the particle count, got '1.5'");
    expect_par_error("-2\n", 1, "negative particle count -2");
    expect_par_error("1 7\n" + kPar, 1, "extra text after the particle count");
    expect_par_error("100000001\n", 1, "particle count 100000001 is over the limit of 100000000");
    expect_par_error("99999999999999999999999\n", 1, "particle count 99999999999999999999999 is over the limit");
}

TEST(ParticleFileErrors, TooFewOrTooManyNumbers) {
    expect_par_error("2\n" + kPar + "0.5 0.5 0.5 0 0 0\n", 3, "expected 7 numbers (x y z vx vy vz radius), got 6");
    expect_par_error("1\n0.5 0.5 0.5 0 0 0 0.1 1 1 1\n", 2, "more than 7 numbers on a particle line");
}

TEST(ParticleFileErrors, NonNumbersAndNonFiniteValues) {
    expect_par_error("1\n0.5 zero 0.5 0 0 0 0.1\n", 2, "field y: not a number 'zero'");
    expect_par_error("1\n0.5 0.5 0.5 0 0 0 0.1f\n", 2, "field radius: not a number '0.1f'");
    expect_par_error("1\n0.5 0.5 0.5 nan 0 0 0.1\n", 2, "field vx: 'nan' is not a finite float");
    expect_par_error("1\n0.5 0.5 -inf 0 0 0 0.1\n", 2, "field z: '-inf' is not a finite float");
    expect_par_error("1\n0.5 0.5 0.5 0 0 1e39 0.1\n", 2, "field vz: '1e39' is not a finite float");
}

TEST(ParticleFileErrors, NegativeRadius) {
    expect_par_error("2\n" + kPar + "0.5 0.5 0.5 0 0 0 -0.25\n", 3, "radius -0.25 is negative");
}

TEST(ParticleFileErrors, CountDisagreesWithTheLines) {
    expect_par_error("1\n" + kPar + kPar, 3, "more particle lines than the count 1 says");
    expect_par_error("3\n" + kPar + kPar, 3, "truncated: the count says 3 particles, the file has 2");
    expect_par_error("0\n" + kPar, 2, "more particle lines than the count 0 says");
}

TEST(ParticleFileErrors, EmptyFileBinaryAndLongLines) {
    expect_par_error("", 0, "no particle count (empty file?)");
    expect_par_error("\n\n", 2, "no particle count (empty file?)");
    expect_par_error(std::string("1\n0.5\0 0.5\n", 11), 2, "binary data (NUL byte)");
    expect_par_error("1\n" + std::string(5000, '1') + "\n", 2, "line longer than 4096 characters");
}

TEST(ParticleFileErrors, FolderAndMissingFile) {
    try {
        cr::load_particle_file("/tmp");
        ADD_FAILURE() << "a folder was accepted";
    } catch (const cr::SceneFileError& e) {
        EXPECT_EQ(std::string(e.what()), "/tmp: is a folder, not a particle file");
    }
    try {
        cr::load_particle_file("/nonexistent/dir/snow.par");
        ADD_FAILURE() << "a missing file was accepted";
    } catch (const cr::SceneFileError& e) {
        EXPECT_EQ(std::string(e.what()), "/nonexistent/dir/snow.par: cannot open: No such file or directory");
    }
}

TEST(ParticleFile, LoadsFromDiskAndAnEmptyCountIsAnEmptyScene) {
    const std::string path = "/tmp/cr_test_par_" + std::to_string(getpid()) + ".par";
    {
        std::ofstream f(path);
        f << kGoodPar;
    }
    const cr::Scene s = cr::load_particle_file(path);
    EXPECT_EQ(s.count(), 3u);
    EXPECT_EQ(s.name, path);
    std::remove(path.c_str());
    EXPECT_EQ(cr::parse_particle_text("0\n", "zero.par").count(), 0u);
}

TEST(ParticleFile, RecognizedByTheParExtension) {
    EXPECT_TRUE(cr::is_particle_path("snow.par"));
    EXPECT_TRUE(cr::is_particle_path("/a/b/FLAKES.PAR"));
    EXPECT_TRUE(cr::is_particle_path(".par"));
    EXPECT_FALSE(cr::is_particle_path("snow.par.txt"));
    EXPECT_FALSE(cr::is_particle_path("scene.txt"));
    EXPECT_FALSE(cr::is_particle_path("par"));
    EXPECT_FALSE(cr::is_particle_path(""));
}

}  // namespace
