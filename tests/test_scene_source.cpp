// Where scenes come from (render/scene_source.h): snowsingle reads ./snow.par
// from the working directory as the course does, --particles names another
// file, and without one the generated stand-in is drawn with a note.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#include "render/scene_source.h"

#include "tests/file_checks.h"

namespace {

/// A fresh temporary folder made the working directory for one test (the
/// previous one is restored, and the folder removed, afterwards).
class SceneSource : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_FALSE(dir.empty()) << "mkdtemp failed";
        char buf[4096];
        ASSERT_NE(getcwd(buf, sizeof buf), nullptr);
        old_cwd = buf;
        ASSERT_EQ(chdir(dir.c_str()), 0);
    }
    void TearDown() override {  // the folder itself goes with `tmp`, after this
        if (!old_cwd.empty()) {
            EXPECT_EQ(chdir(old_cwd.c_str()), 0);
        }
    }
    static void write(const std::string& path, const std::string& text) {
        std::ofstream f(path);
        f << text;
    }
    cr::testing_files::TempDir tmp{"source"};
    const std::string dir = tmp.path();
    std::string old_cwd;
};

const char* kTwoFlakes = "2\n0.25 0.5 0.1 0 0 0 0.05\n0.75 0.5 0.9 1 1 1 0.025\n";

TEST_F(SceneSource, SnowsingleWithoutSnowParIsTheStandInWithANote) {
    const cr::SceneLoad l = cr::load_scene({"snowsingle", "", "", 0});
    EXPECT_EQ(l.scene.count(), 100000u);
    EXPECT_EQ(l.scene.name, "snowsingle");
    EXPECT_EQ(l.scene.x, cr::make_scene("snowsingle", 0).x);
    EXPECT_TRUE(l.particle_file.empty());
    EXPECT_EQ(l.note, "snowsingle: the course's particle file ./snow.par was not found, so the project's generated "
                      "stand-in is drawn (put snow.par in the working directory or give --particles PATH)");
}

TEST_F(SceneSource, SnowsingleReadsSnowParFromTheWorkingDirectory) {
    write("snow.par", kTwoFlakes);
    const cr::SceneLoad l = cr::load_scene({"snowsingle", "", "", 7});
    ASSERT_EQ(l.scene.count(), 2u);
    EXPECT_EQ(l.scene.name, "snowsingle");
    EXPECT_EQ(l.scene.shade, cr::ShadeMode::Snow);
    EXPECT_EQ(l.scene.motion, cr::Motion::None);
    EXPECT_EQ(l.scene.x[1], .75f);
    EXPECT_EQ(l.scene.radius[1], .025f);
    EXPECT_EQ(l.particle_file, "./snow.par");
    EXPECT_EQ(l.note, "snowsingle: 2 flakes from ./snow.par");
}

TEST_F(SceneSource, ParticlesNamesAnotherFileOverSnowPar) {
    write("snow.par", kTwoFlakes);
    write("one.par", "1\n0.5 0.5 0.5 0 0 0 0.2\n");
    const cr::SceneLoad l = cr::load_scene({"snowsingle", "", "one.par", 0});
    ASSERT_EQ(l.scene.count(), 1u);
    EXPECT_EQ(l.note, "snowsingle: 1 flake from one.par");
    EXPECT_EQ(l.particle_file, "one.par");
}

TEST_F(SceneSource, AMalformedSnowParIsAnErrorNotASilentFallback) {
    write("snow.par", "3\n0.5 0.5 0.5 0 0 0 0.2\n");
    try {
        cr::load_scene({"snowsingle", "", "", 0});
        ADD_FAILURE() << "accepted";
    } catch (const cr::SceneFileError& e) {
        EXPECT_EQ(std::string(e.what()), "./snow.par:2: truncated: the count says 3 particles, the file has 1");
    }
    EXPECT_THROW(cr::load_scene({"snowsingle", "", "missing.par", 0}), cr::SceneFileError);
}

TEST_F(SceneSource, SceneFileByExtension) {
    write("flakes.par", kTwoFlakes);
    write("scene.txt", "1\n0.5 0.5 0.5 0 0 0 0.2 1 0 0\n");
    const cr::SceneLoad p = cr::load_scene({"", "flakes.par", "", 0});
    EXPECT_EQ(p.scene.count(), 2u);
    EXPECT_EQ(p.scene.shade, cr::ShadeMode::Snow);
    EXPECT_EQ(p.scene.name, "flakes.par");
    EXPECT_EQ(p.particle_file, "flakes.par");
    const cr::SceneLoad t = cr::load_scene({"", "scene.txt", "", 0});
    EXPECT_EQ(t.scene.count(), 1u);
    EXPECT_EQ(t.scene.shade, cr::ShadeMode::Flat);
    EXPECT_EQ(t.scene.r[0], 1.f);
    EXPECT_TRUE(t.particle_file.empty());
    // A .par in the scene-file format is read as a particle file, and fails.
    write("wrong.par", "1\n0.5 0.5 0.5 0 0 0 0.2 1 0 0\n");
    EXPECT_THROW(cr::load_scene({"", "wrong.par", "", 0}), cr::SceneFileError);
}

TEST_F(SceneSource, OtherScenesAreGeneratedWithoutANote) {
    write("snow.par", kTwoFlakes);  // only snowsingle reads it
    const cr::SceneLoad l = cr::load_scene({"snow", "", "", 0});
    EXPECT_EQ(l.scene.count(), 100000u);
    EXPECT_EQ(l.scene.motion, cr::Motion::Snow);
    EXPECT_TRUE(l.note.empty());
    EXPECT_EQ(cr::load_scene({"rgb", "", "", 0}).scene.count(), 3u);
}

TEST_F(SceneSource, BadRequestsThrowInvalidArgument) {
    write("one.par", "1\n0.5 0.5 0.5 0 0 0 0.2\n");
    EXPECT_THROW(cr::load_scene({"", "", "", 0}), std::invalid_argument);
    EXPECT_THROW(cr::load_scene({"rgb", "one.par", "", 0}), std::invalid_argument);
    EXPECT_THROW(cr::load_scene({"nope", "", "", 0}), std::invalid_argument);
    EXPECT_THROW(cr::load_scene({"", "one.par", "one.par", 0}), std::invalid_argument);
    try {
        cr::load_scene({"rgb", "", "one.par", 0});
        ADD_FAILURE() << "accepted --particles with rgb";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("--particles goes with the snowsingle scene only"), std::string::npos)
            << e.what();
    }
}

}  // namespace
