#include "app_options.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <stdexcept>

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

/// A usage error: prints "circle-renderer: MESSAGE" and exits with 2, as
/// `render` does.
ParseResult refuse(ParseResult res, const std::string& message) {
    std::cerr << "circle-renderer: " << message << "\n";
    res.exit_now = true;
    res.exit_code = 2;
    return res;
}

}  // namespace

ParseResult parse_app_options(int argc, char** argv) {
    ParseResult res;
    AppOptions& o = res.options;
    std::string scene_pos, scene, size = "1024", seed = "0";
    bool no_vsync = false;
    CLI::App cli{"circle-renderer: interactive viewer of the circle renderers (docs/GUI.md)"};
    cli.add_option("scene_name", scene_pos, "Scene name (same as --scene)");
    cli.add_option("--scene", scene, "Built-in scene name (default rgb)");
    cli.add_option("--scene-file", o.scene_file, "Load circles from a scene file, or a .par particle file (docs/SCENE_FORMAT.md)");
    cli.add_option("--particles", o.particles, "snowsingle (the default with this option): read the flakes from this .par file instead of ./snow.par");
    cli.add_option("-r,--renderer", o.renderer,
                   "cpuref, cpu, naive, tiled (= cuda), persistent, unordered; default: tiled with a GPU, else cpu");
    cli.add_option("-s,--size", size, "Render size N (NxN), WxH (each 1..16384) or 'window' (default 1024)");
    cli.add_option("-S,--seed", seed, "Random seed of the random scenes (default 0)");
    std::string frames_text;
    cli.add_option("--frames", frames_text, "Quit after N frames (N >= 1); print FPS and mean stage times");
    cli.add_option("--screenshot", o.screenshot, "With --frames: at the end, save the window as this PNG (image drawn 1:1)");
    cli.add_option("--dump-frame", o.dump_frame, "With --frames: at the end, save the last rendered frame as this PNG");
    cli.add_flag("--no-vsync", no_vsync, "Do not wait for the display's refresh");
    cli.add_option("--window-width", o.window_width, "Initial window width (default 1280)")
        ->check(CLI::Range(320, 16384));
    cli.add_option("--window-height", o.window_height, "Initial window height (default 800)")
        ->check(CLI::Range(240, 16384));
    std::string resize_text;
    cli.add_option("--resize-every", resize_text,
                   "With --frames: every N frames resize the window through a fixed cycle of sizes (tests size changes)");
    cli.add_flag("--check", o.check,
                 "With --frames: compare the first frame at each render size and the last frame with cpuref; exit 1 on a difference");
    try {
        cli.parse(argc, argv);
        if (!scene.empty() && !scene_pos.empty() && scene != scene_pos)
            throw std::invalid_argument("two different scene names given");
        if (!scene.empty() || !scene_pos.empty()) o.scene = scene.empty() ? scene_pos : scene;
        else if (!o.particles.empty() && o.scene_file.empty()) o.scene = "snowsingle";
        if (o.scene_file.empty() && !is_scene_name(o.scene)) make_scene(o.scene);  // throws, listing the names
        if (!o.scene_file.empty() && (!scene.empty() || !scene_pos.empty()))
            throw std::invalid_argument("give either a scene name or --scene-file, not both");
        if (!o.scene_file.empty() || o.scene == "snowsingle" || !o.particles.empty())  // a bad file fails here,
            load_scene(SceneRequest{o.scene_file.empty() ? o.scene : "", o.scene_file, o.particles, 0});  // before any window
        if (!o.renderer.empty()) canonical_renderer_name(o.renderer);  // throws, listing the names
        if (!frames_text.empty()) o.frames = parse_frame_count(frames_text, "--frames");
        if (!resize_text.empty()) o.resize_every = parse_frame_count(resize_text, "--resize-every");
        if (o.frames == 0 && (o.resize_every > 0 || o.check))
            throw std::invalid_argument("--resize-every and --check need --frames N (an automated run)");
        if (o.frames == 0 && (!o.screenshot.empty() || !o.dump_frame.empty()))
            throw std::invalid_argument("--screenshot and --dump-frame need --frames N (they are taken after frame N)");
        if (!o.screenshot.empty()) check_writable(o.screenshot);
        if (!o.dump_frame.empty()) check_writable(o.dump_frame);
        if (size == "window")
            o.width = o.height = 0;
        else
            parse_size(size, o.width, o.height);
        o.seed = parse_seed(seed);
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
    }
    o.vsync = !no_vsync;
    return res;
}

}  // namespace cr::app
