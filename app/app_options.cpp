#include "app_options.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/core/output_file.h"
#include "render/options.h"
#include "render/renderer_factory.h"
#include "render/scene_source.h"
#include "scenes/scene.h"  // cr::parse_size, cr::parse_seed: the same rules as `render`

namespace cr::app {

namespace {

/// Parses a frame count of `option`: 1..999999999 (render's parse_whole_number).
int parse_frame_count(const std::string& text, const char* option) {
    return parse_whole_number(text, option, 1, 999999999, "use a whole number of frames, at least 1");
}

/// A refused start: prints "circle-renderer: MESSAGE" and exits with `code`
/// (2 for a usage error, 3 for a renderer without its GPU), as `render` does.
ParseResult refuse(ParseResult res, const std::string& message, int code = kExitUsage) {
    std::cerr << "circle-renderer: " << message << "\n";
    res.exit_now = true;
    res.exit_code = code;
    return res;
}

/// The renderer of the command line cannot run here (no GPU).
struct RendererUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Parses --overlay's list: tiles, diff or both ("tiles,diff").
void parse_overlays(const std::string& text, AppOptions& o) {
    const std::vector<std::string> names = split_list(text);
    if (names.empty()) throw std::invalid_argument("bad --overlay '" + text + "': use tiles, diff or tiles,diff");
    for (const auto& n : names) {
        if (n == "tiles") o.overlay_tiles = true;
        else if (n == "diff") o.overlay_diff = true;
        else throw std::invalid_argument("bad --overlay '" + n + "': use tiles, diff or tiles,diff");
    }
}

/// The options as typed, before validation.
struct RawOptions {
    std::string scene_pos, scene, size = "1024", seed = "0", frames, resize_every, overlay;
    bool no_vsync = false;
    CLI::Option* overlay_opt = nullptr;
};

void add_options(CLI::App& cli, RawOptions& raw, AppOptions& o) {
    cli.add_option("scene_name", raw.scene_pos, "Scene name (same as --scene)");
    cli.add_option("--scene", raw.scene, "Built-in scene name (default rgb)");
    cli.add_option("--scene-file", o.scene_file, "Load circles from a scene file, or a .par particle file (docs/SCENE_FORMAT.md)");
    cli.add_option("--particles", o.particles,
                   "snowsingle (the default with this option): read the flakes from this .par file instead of ./snow.par");
    cli.add_option("-r,--renderer", o.renderer,
                   "cpuref, cpu, naive, tiled (= cuda), persistent, unordered; default: tiled with a GPU, else cpu "
                   "(a GPU renderer without a GPU: exit 3)");
    cli.add_option("-s,--size", raw.size, "Render size N (NxN), WxH (each 1..16384) or 'window' (default 1024)");
    cli.add_option("-S,--seed", raw.seed, "Random seed of the random scenes (default 0)");
    cli.add_option("--frames", raw.frames, "Quit after N frames (N >= 1); print FPS and mean stage times");
    cli.add_option("--screenshot", o.screenshot, "With --frames: at the end, save the window as this PNG (image drawn 1:1)");
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
                                     "Heat map over the image at start: tiles (circles per tile), diff (error vs "
                                     "cpuref; runs a check at start) or tiles,diff");
}

/// Checks the scene and renderer: unknown names and bad scene files throw
/// std::invalid_argument or SceneFileError, a renderer that cannot run
/// here RendererUnavailable.
void validate_scene_and_renderer(const RawOptions& raw, AppOptions& o) {
    if (!raw.scene.empty() && !raw.scene_pos.empty() && raw.scene != raw.scene_pos)
        throw std::invalid_argument("two different scene names given");
    if (!raw.scene.empty() || !raw.scene_pos.empty()) o.scene = raw.scene.empty() ? raw.scene_pos : raw.scene;
    else if (!o.particles.empty() && o.scene_file.empty()) o.scene = "snowsingle";
    if (o.scene_file.empty() && !is_scene_name(o.scene)) make_scene(o.scene);  // throws, listing the names
    if (!o.scene_file.empty() && (!raw.scene.empty() || !raw.scene_pos.empty()))
        throw std::invalid_argument("give either a scene name or --scene-file, not both");
    if (!o.scene_file.empty() || o.scene == "snowsingle" || !o.particles.empty())  // a bad file fails here,
        load_scene(SceneRequest{o.scene_file.empty() ? o.scene : "", o.scene_file, o.particles, 0});  // before any window
    if (!o.renderer.empty()) {
        const std::string why = renderer_unavailable(o.renderer);  // unknown names throw, listing the valid ones
        if (!why.empty()) throw RendererUnavailable(why + "; use --renderer cpu or cpuref");
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
}

}  // namespace

ParseResult parse_app_options(int argc, char** argv) {
    ParseResult res;
    RawOptions raw;
    CLI::App cli{"circle-renderer: interactive viewer of the circle renderers (docs/GUI.md)"};
    add_options(cli, raw, res.options);
    try {
        cli.parse(argc, argv);
        validate_scene_and_renderer(raw, res.options);
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
    } catch (const RendererUnavailable& e) {
        return refuse(res, e.what(), kExitNoGpu);
    }
    return res;
}

}  // namespace cr::app
