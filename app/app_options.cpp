#include "app_options.h"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/core/numbers.h"
#include "render/core/output_file.h"
#include "render/core/renderer.h"  // cr::NoCudaDeviceError
#include "render/core/text.h"
#include "render/options.h"
#include "render/renderer_factory.h"
#include "render/scene_source.h"
#include "render/student/sanitize.h"
#include "render/student/student_build.h"
#include "inspector.h"
#include "scenes/scene.h"  // cr::parse_size, cr::parse_seed: the same rules as `render`

namespace cr::app {

namespace {

/// Parses a frame count of `option`: 1..999999999 (render's parse_whole_number).
int parse_frame_count(const std::string& text, const char* option) {
    return parse_whole_number(text, option, 1, 999999999, "use a whole number of frames, at least 1");
}

/// A refused start: prints "circle-renderer: MESSAGE" and exits with `code`
/// (2 for a usage error, 3 for a renderer without its GPU), as `render` does.
ParseResult refuse(ParseResult& res, const std::string& message, int code = kExitUsage) {
    std::cerr << "circle-renderer: " << message << "\n";
    res.exit_now = true;
    res.exit_code = code;
    res.scene.reset();  // not needed: no window opens
    return std::move(res);
}

/// Parses --overlay's list of tiles, listed, hit, diff, warps, blends.
void parse_overlays(const std::string& text, AppOptions& o) {
    const std::string rule = "': use a list of tiles, listed, hit, diff, warps and blends (e.g. tiles,diff)";
    const std::vector<std::string> names = split_list(text);
    if (names.empty()) throw std::invalid_argument("bad --overlay '" + text + rule);
    for (const auto& n : names) {
        if (n == "tiles") o.overlay_tiles = true;
        else if (n == "listed" || n == "hit") {
            o.overlay_tiles = true;
            o.overlay_tile_source = n == "listed" ? 1 : 2;
        } else if (n == "diff") o.overlay_diff = true;
        else if (n == "warps") o.overlay_warps = true;
        else if (n == "blends") o.overlay_blends = true;
        else throw std::invalid_argument("bad --overlay '" + n + rule);
    }
}

/// The options as typed, before validation.
struct RawOptions {
    std::string scene_pos, scene, size = "1024", seed = "0", frames, resize_every, overlay;
    std::string until_builds, inspect, zoom, student_timeout, student_memory, student_fps, student_gpu;
    bool no_vsync = false;
    CLI::Option* overlay_opt = nullptr;
};

void add_workbench_options(CLI::App& cli, RawOptions& raw, AppOptions& o) {
    cli.add_option("--student", o.student, "Build and run your course render/ folder beside the reference (rebuilt on save)");
    cli.add_option("--student-timeout", raw.student_timeout,
                   "With --student: seconds a call of your renderer may take before it counts as a hang (default 30)");
    cli.add_option("--student-fps", raw.student_fps,
                   "With --student: at most N frames a second of your renderer, on average (default 105; at most "
                   "one for each frame the window draws); your renderer's GPU time is taken from the window's");
    cli.add_option("--student-memory", raw.student_memory,
                   "With --student: your renderer's device-memory budget in GiB (default 16, at most half the GPU's)");
    cli.add_option("--student-gpu", raw.student_gpu,
                   "With --student: run your renderer on GPU N (CUDA's numbering) instead of the window's: a CUDA "
                   "fault of your renderer then cannot stall the window's OpenGL (docs/GUI.md)");
    cli.add_option("--sanitize", o.sanitize,
                   "With --student: once built, run your renderer under compute-sanitizer (memcheck, racecheck, "
                   "synccheck or initcheck); the report appears in the Sanitizer section");
    cli.add_option("--student-arch", o.student_arch,
                   "nvcc -gencode flags for your build (default: the local GPU's, else sm_75..sm_90)");
    cli.add_option("--until-builds", raw.until_builds,
                   "With --student and --frames: end the run once K builds have finished (and a few frames more)");
    cli.add_option("--inspect", raw.inspect, "Inspect pixel X,Y (row 0 at the bottom) from the start");
    cli.add_option("--zoom", raw.zoom, "Start zoomed in by this factor (about the --inspect pixel)");
    cli.add_option("--compare", o.compare, "With --student: side (default), student, reference or diff");
    cli.add_flag("--pause-on-mismatch", o.pause_on_mismatch,
                 "With --student: pause at the first frame the student's image fails the strict rule");
    cli.add_option("--tab", o.tab, "The panel tab to show: viewer, workbench or teaching");
    cli.add_option("--dump-student", o.dump_student, "With --frames and --student: save the student's last frame as PNG");
    cli.add_flag("--no-settings", o.no_settings, "Neither read nor write the settings file (recent folders)");
}

void add_options(CLI::App& cli, RawOptions& raw, AppOptions& o) {
    cli.add_option("scene_name", raw.scene_pos, "Scene name (same as --scene)");
    cli.add_option("--scene", raw.scene, "Built-in scene name (default rgb)");
    cli.add_option("--scene-file", o.scene_file, "Load circles from a scene file, or a .par particle file (docs/SCENE_FORMAT.md)");
    cli.add_option("--particles", o.particles,
                   "snowsingle (the default with this option): read the flakes from this .par file instead of ./snow.par");
    cli.add_option("-r,--renderer", o.renderer,
                   cr::renderer_names_help() + "; default: tiled with a GPU, else cpu (a GPU renderer without a "
                   "GPU: exit 3)");
    cli.add_option("-s,--size", raw.size, "Render size N (NxN), WxH (each 1..16384) or 'window' (default 1024)");
    cli.add_option("-S,--seed", raw.seed, "Random seed of the random scenes (default 0)");
    cli.add_option("--frames", raw.frames, "Quit after N frames (N >= 1); print FPS and mean stage times");
    cli.add_option("--screenshot", o.screenshot, "With --frames: at the end, save the window as this PNG (the image drawn 1:1 when it fits the window, "
                   "else scaled to fit)");
    cli.add_option("--dump-frame", o.dump_frame, "With --frames: at the end, save the last rendered frame as this PNG");
    cli.add_flag("--no-vsync", raw.no_vsync, "Do not wait for the display's refresh");
    cli.add_option("--window-width", o.window_width, "Initial window width (default 1280)")
        ->check(CLI::Range(320, 16384));
    cli.add_option("--window-height", o.window_height, "Initial window height (default 800)")
        ->check(CLI::Range(240, 16384));
    cli.add_option("--resize-every", raw.resize_every,
                   "With --frames: every N frames resize the window through a fixed cycle of sizes (tests size changes)");
    cli.add_flag("--check", o.check,
                 "With --frames: compare the first frame at each render size and the last frame with cpuref; exit 1 on a difference");
    raw.overlay_opt = cli.add_option("--overlay", raw.overlay,
                                     "Heat maps over the image at start, a list of: tiles (circles per tile), listed "
                                     "or hit (16x16 tiles by the box or the exact test), diff (error vs cpuref; runs a "
                                     "check at start), warps (active lanes per warp), blends (blends each pixel needs before its "
                                     "result is certain: exact early stopping)");
    add_workbench_options(cli, raw, o);
}

/// The seed as typed, or 0 when it is bad (validate_run refuses it later).
uint32_t seed_or_zero(const std::string& text) {
    try {
        return parse_seed(text);
    } catch (const std::invalid_argument&) {
        return 0;
    }
}

/// Checks the scene and renderer: unknown names and bad scene files throw
/// std::invalid_argument or SceneFileError, a renderer that cannot run
/// here NoCudaDeviceError (as make_renderer would). A scene file, snowsingle
/// or --particles is loaded here, into `loaded`.
void validate_scene_and_renderer(const RawOptions& raw, AppOptions& o, std::optional<SceneLoad>& loaded) {
    if (!raw.scene.empty() && !raw.scene_pos.empty() && raw.scene != raw.scene_pos)
        throw std::invalid_argument("two different scene names given");
    if (!raw.scene.empty() || !raw.scene_pos.empty()) o.scene = raw.scene.empty() ? raw.scene_pos : raw.scene;
    else if (!o.particles.empty() && o.scene_file.empty()) o.scene = "snowsingle";
    if (o.scene_file.empty() && !is_scene_name(o.scene)) make_scene(o.scene);  // throws, listing the names
    if (!o.scene_file.empty() && (!raw.scene.empty() || !raw.scene_pos.empty()))
        throw std::invalid_argument("give either a scene name or --scene-file, not both");
    if (!o.scene_file.empty() || o.scene == "snowsingle" || !o.particles.empty())  // a bad file fails here, before
        loaded = load_scene(SceneRequest{o.scene_file.empty() ? o.scene : "", o.scene_file, o.particles,  // any window
                                         seed_or_zero(raw.seed)});
    if (o.renderer == "student") {  // the student's renderer runs beside a reference, never instead of one
        if (o.student.empty())
            throw std::invalid_argument("renderer 'student' needs --student DIR (your course's render/ folder); it "
                                        "runs beside the reference that --renderer names");
        o.renderer.clear();  // the default reference
    }
    if (!o.renderer.empty()) {
        const std::string why = renderer_unavailable(o.renderer);  // unknown names throw, listing the valid ones
        if (!why.empty()) throw NoCudaDeviceError(why + "; use --renderer cpu or cpuref");
    }
}

/// A positive number of `option` (seconds, a zoom factor) within lo..hi.
double parse_positive(const std::string& text, const char* option, double lo, double hi) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(v >= lo && v <= hi))
        throw std::invalid_argument(std::string("bad ") + option + " '" + text + "': use a number from " +
                                    std::to_string(lo).substr(0, 5) + " to " + std::to_string(hi).substr(0, 5));
    return v;
}

/// --student-gpu N: a GPU number this machine has (any N while it finds no
/// GPU: the workbench then says the student cannot run here).
int parse_student_gpu(const std::string& raw, const std::string& student) {
    if (student.empty())
        throw std::invalid_argument("--student-gpu goes with --student DIR (the GPU your renderer runs on)");
    long long n = -1;
    if (!cr::parse_integer(raw, 0, 1023, n))
        throw std::invalid_argument("bad --student-gpu '" + raw + "': use a GPU number, e.g. 1");
    const int count = cr::gpu_count();
    if (count > 0 && n >= count)
        throw std::invalid_argument("--student-gpu " + raw + ": this machine has " + std::to_string(count) +
                                    " GPU(s), numbered from 0");
    return static_cast<int>(n);
}

/// Checks the workbench's options.
void validate_workbench(const RawOptions& raw, AppOptions& o) {
    if (!o.student.empty()) cr::student::check_student_folder(o.student);  // the build's own check, at start
    if (!raw.student_timeout.empty() && o.student.empty())
        throw std::invalid_argument("--student-timeout goes with --student DIR (the time limit of your renderer's calls)");
    if (!raw.student_fps.empty() && o.student.empty())
        throw std::invalid_argument("--student-fps goes with --student DIR (the most frames a second of your renderer)");
    if (!raw.student_fps.empty()) o.student_fps = parse_positive(raw.student_fps, "--student-fps", 1, 1000);
    if (!raw.student_timeout.empty()) o.student_timeout_s = parse_positive(raw.student_timeout, "--student-timeout", 0.5, 600);
    if (!o.sanitize.empty()) {
        if (o.student.empty()) throw std::invalid_argument("--sanitize goes with --student DIR");
        cr::student::sanitizer_tool(o.sanitize);  // throws for an unknown tool
    }
    if (!raw.student_memory.empty() && o.student.empty())
        throw std::invalid_argument("--student-memory goes with --student DIR (your renderer's device-memory budget)");
    if (!raw.student_memory.empty()) o.student_memory_bytes = parse_student_memory(raw.student_memory);
    if (!raw.student_gpu.empty()) o.student_gpu = parse_student_gpu(raw.student_gpu, o.student);
    if (!raw.until_builds.empty()) o.until_builds = parse_frame_count(raw.until_builds, "--until-builds");
    if (o.until_builds > 0 && (o.frames == 0 || o.student.empty()))
        throw std::invalid_argument("--until-builds needs --student DIR and --frames N");
    if (!raw.inspect.empty()) {
        parse_pixel(raw.inspect, o.inspect_x, o.inspect_y);
        o.inspect = true;
    }
    if (!raw.zoom.empty()) o.zoom = parse_positive(raw.zoom, "--zoom", 0.125, 64);
    if (o.compare != "side" && o.compare != "student" && o.compare != "reference" && o.compare != "diff")
        throw std::invalid_argument("bad --compare '" + o.compare + "': use side, student, reference or diff");
    if (!o.tab.empty() && o.tab != "viewer" && o.tab != "workbench" && o.tab != "teaching")
        throw std::invalid_argument("bad --tab '" + o.tab + "': use viewer, workbench or teaching");
    if (!o.dump_student.empty()) {
        if (o.frames == 0 || o.student.empty()) throw std::invalid_argument("--dump-student needs --student DIR and --frames N");
        check_writable(o.dump_student);
    }
}

/// Checks the run's options (frames, outputs, size, seed, overlays).
void validate_run(const RawOptions& raw, AppOptions& o) {
    if (raw.overlay_opt->count()) parse_overlays(raw.overlay, o);
    if (!raw.frames.empty()) o.frames = parse_frame_count(raw.frames, "--frames");
    if (!raw.resize_every.empty()) o.resize_every = parse_frame_count(raw.resize_every, "--resize-every");
    if (o.frames == 0 && (o.resize_every > 0 || o.check))
        throw std::invalid_argument("--resize-every and --check need --frames N (an automated run)");
    if (o.frames == 0 && (!o.screenshot.empty() || !o.dump_frame.empty()))
        throw std::invalid_argument("--screenshot and --dump-frame need --frames N (they are taken after frame N)");
    if (o.screenshot == kStandardOutputPath || o.dump_frame == kStandardOutputPath)
        throw std::invalid_argument("--screenshot and --dump-frame need a file name ('-' is not supported: "
                                    "the run's summary goes to standard output)");
    if (!o.screenshot.empty()) check_writable(o.screenshot);
    if (!o.dump_frame.empty()) check_writable(o.dump_frame);
    if (raw.size == "window")
        o.width = o.height = 0;
    else
        parse_size(raw.size, o.width, o.height);
    o.seed = parse_seed(raw.seed);
    o.vsync = !raw.no_vsync;
    validate_workbench(raw, o);
}

}  // namespace

ParseResult parse_app_options(int argc, char** argv) {
    ParseResult res;
    RawOptions raw;
    CLI::App cli{"circle-renderer: interactive viewer of the circle renderers (docs/GUI.md)"};
    add_options(cli, raw, res.options);
    try {
        cli.parse(argc, argv);
        validate_scene_and_renderer(raw, res.options, res.scene);
        validate_run(raw, res.options);
    } catch (const CLI::CallForHelp& e) {
        res.exit_now = true;
        res.exit_code = cli.exit(e);
        return res;
    } catch (const CLI::ParseError& e) {
        return refuse(res, std::string(e.what()) + " (see --help)");
    } catch (const SceneFileError& e) {
        return refuse(res, std::string("bad scene file: ") + e.what());
    } catch (const std::invalid_argument& e) {
        return refuse(res, e.what());
    } catch (const FileError& e) {
        return refuse(res, e.what());
    } catch (const NoCudaDeviceError& e) {
        return refuse(res, e.what(), kExitNoGpu);
    }
    return res;
}

}  // namespace cr::app
