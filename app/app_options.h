// Command-line options of the GUI application `circle-renderer`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "render/renderer_factory.h"
#include "render/scene_source.h"

namespace cr::app {

/// Start-up options. --scene/--scene-file/--renderer/--size/--seed read as
/// those of the headless `render` command (which passes them on for -i).
struct AppOptions {
    std::string scene = "rgb";      ///< built-in scene name
    std::string scene_file;         ///< scene file path (instead of `scene`)
    std::string particles;          ///< snowsingle's particle file instead of ./snow.par (implies snowsingle)
    std::string renderer;           ///< empty: cr::default_renderer_name()
    int width = 1024, height = 1024;  ///< render size; 0 x 0 follows the window
    uint32_t seed = 0;              ///< random seed of built-in scenes
    int frames = 0;                 ///< > 0: quit after this many frames, print stats
    std::string screenshot;         ///< save the window as PNG before quitting
    std::string dump_frame;         ///< save the last rendered frame as PNG before quitting
    bool vsync = true;              ///< swap interval 1 (off with --no-vsync)
    int window_width = 1280, window_height = 800;  ///< initial window size
    /// > 0 (with frames): every this many rendered frames, resize the window
    /// to the next size of kResizeCycle (with --size window the render size
    /// follows), to exercise size changes between frames.
    int resize_every = 0;
    /// With frames: compare the first frame at every render size, and the
    /// last frame, with cpuref (Session::run_check); exit 1 if one fails.
    bool check = false;
    /// --overlay tiles: start with the tile heat map over the image.
    bool overlay_tiles = false;
    /// --overlay diff: check the first frame against cpuref at start (and,
    /// with frames, the last one again) and show the diff heat map.
    bool overlay_diff = false;
    /// --overlay listed / hit: the tile heat map counts 16x16 tiles with
    /// render/teaching.h (1 listed, 2 hit; 0: the renderer's own tiles).
    int overlay_tile_source = 0;
    /// --overlay warps: the per-warp active-lanes map.
    bool overlay_warps = false;
    bool overlay_blends = false;    ///< --overlay blends: the blends each pixel needs (exact early stopping)

    // ---- the student's workbench (docs/GUI.md) -----------------------------
    std::string student;            ///< --student DIR: build and run this course render/ folder (--renderer student: the default reference)
    double student_timeout_s = cr::kDefaultStudentTimeout;  ///< --student-timeout: a student call taking longer is a hang
    unsigned long long student_memory_bytes = 0;  ///< --student-memory GIB (0: the default budget)
    int student_gpu = -1;  ///< --student-gpu N: the GPU your renderer runs on (-1: the window's)
    /// --student-fps N: at most N student frames a second, on average (the
    /// student's GPU time slices are taken from the window's). The default,
    /// a little above the 100 a second the workbench promises, was measured on
    /// the H200 (docs/GUI.md): with a 4.6 ms student render on rand100k,
    /// unlimited gave student 128 / window 141 frames/s, 120 gave 122 / 143,
    /// 105 gave 108 / 174 in one run and 107 / 143 in the next.
    double student_fps = 105;
    std::string sanitize;  ///< --sanitize TOOL: run the first build under compute-sanitizer ("" = no)
    std::string student_arch;       ///< --student-arch: nvcc -gencode flags ("" = the harness's default)
    /// --until-builds K (with --frames): end the run once K builds have
    /// finished and the window drew kFramesAfterBuilds more frames.
    int until_builds = 0;
    bool inspect = false;           ///< --inspect X,Y given
    int inspect_x = 0, inspect_y = 0;
    double zoom = 1;                ///< --zoom F: start zoomed by F (about the inspected pixel)
    std::string compare = "side";   ///< --compare side|student|reference|diff
    bool pause_on_mismatch = false; ///< --pause-on-mismatch
    std::string tab;                ///< --tab viewer|workbench|teaching ("" = workbench with --student)
    std::string dump_student;       ///< --dump-student PATH: the student's last frame as PNG
    bool no_settings = false;       ///< --no-settings: neither read nor write the settings file
};

/// Window frames drawn after the last build of an --until-builds run.
constexpr int kFramesAfterBuilds = 12;

/// Window sizes (in window coordinates) that --resize-every steps through,
/// then back to the initial size. Odd sizes on purpose; 431 wide leaves a
/// 1-pixel-wide image right of the 430-pixel panel (at a display scale of 1;
/// framebuffer pixels are window units times the scale). All fit a 1280x800
/// screen.
constexpr int kResizeCycle[][2] = {{977, 613}, {431, 240}, {1111, 797}, {640, 480}, {433, 799}};

/// Outcome of parsing: run with `options`, or exit at once with `exit_code`
/// (--help prints usage and gives 0; a bad option prints why and gives 2,
/// and a renderer that cannot run here (a GPU one without a GPU) gives 3,
/// as `render` does).
struct ParseResult {
    AppOptions options;
    bool exit_now = false;
    int exit_code = 0;
    /// The scene loaded while checking the options (a scene file, snowsingle,
    /// --particles: a bad file fails before any window), for the first
    /// Session::set_scene so it is not read twice; empty for the other scenes.
    std::optional<SceneLoad> scene;
};

/// Parses argv; messages for --help and errors go to stdout/stderr.
ParseResult parse_app_options(int argc, char** argv);

}  // namespace cr::app
