// `render`: the headless command. Renders a course scene with any renderer,
// prints per-stage times, writes images, checks against cpuref and the
// stored reference images; `render bench` compares kernels; `render refs`
// regenerates reference_images/. See README.md for usage.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <unistd.h>

#include "render/renderer_factory.h"
#include "render/cli/commands.h"
#include "render/options.h"
#include "render/compare.h"
#include "render/cpu/cpu_stages.h"
#include "render/frame_loop.h"
#include "render/scene_source.h"

namespace cr {
namespace {

struct RenderArgs {
    std::string scene, scene_pos, scene_file, particles, renderer, size = "1024", seed = "0", frames = "0:1";
    std::string file_prefix, format = "png", diff_path, json_path, tolerance = "strict", reference_dir;
    bool check = false, interactive = false, list = false;
    bool renderer_given = false, file_given = false;
};

/// Compares 8-bit output with a stored PNG: pixels whose bytes differ by
/// more than one step (truncation can flip a value within 1e-4 by one step).
struct StoredCheck {
    bool found = false, pass = false;
    long long differ = 0, beyond_one = 0;
    int max_step = 0;
};

StoredCheck check_stored(const Image& img, const std::string& path) {
    StoredCheck c;
    if (access(path.c_str(), R_OK) != 0) return c;
    c.found = true;
    const Image stored = read_image(path);
    if (stored.width != img.width || stored.height != img.height) return c;
    const std::vector<uint8_t> mine = to_rgb8_top_down(img, false);
    for (int j = 0; j < img.height; ++j)
        for (int i = 0; i < img.width; ++i) {
            const float* s = stored.pixel(i, j);
            const size_t o = 3 * (static_cast<size_t>(img.height - 1 - j) * img.width + i);
            int worst = 0;
            for (int k = 0; k < 3; ++k)
                worst = std::max(worst, std::abs(static_cast<int>(mine[o + k]) - static_cast<int>(s[k] * 255.f + .5f)));
            c.differ += worst > 0;
            c.beyond_one += worst > 1;
            c.max_step = std::max(c.max_step, worst);
        }
    c.pass = c.beyond_one <= kAllowedMismatches;
    return c;
}

void print_timings(const FrameTimes& t) {
    std::printf("%-14s %10s\n", "stage", "mean ms");
    for (const auto& s : t.stages) std::printf("%-14s %10.4f%s\n", s.name.c_str(), s.ms, s.course.empty() ? "  (not in Total)" : "");
    std::printf("Clear:    %.4f ms\nAdvance:  %.4f ms\nRender:   %.4f ms\nTotal:    %.4f ms\n", t.clear_ms,
                t.advance_ms, t.render_ms, t.total_ms);
}

int run_render(const RenderArgs& a) {
    const std::string named = !a.scene.empty() ? a.scene : a.scene_pos;  // --particles alone means snowsingle
    const std::string scene_name = named.empty() && a.scene_file.empty() && !a.particles.empty() ? "snowsingle" : named;
    if (scene_name.empty() && a.scene_file.empty())
        throw std::invalid_argument("no scene: give --scene NAME (or a scene name) or --scene-file PATH; see --help");
    if (!scene_name.empty() && !a.scene_file.empty())
        throw std::invalid_argument("give either a scene name or --scene-file, not both");
    if (!a.scene.empty() && !a.scene_pos.empty() && a.scene != a.scene_pos)
        throw std::invalid_argument("two different scenes given ('" + a.scene_pos + "' and --scene " + a.scene + ")");
    if (a.renderer_given && a.renderer.empty()) throw std::invalid_argument("empty --renderer name");
    if (a.file_given && a.file_prefix.empty()) throw std::invalid_argument("empty --file prefix");
    if (!a.reference_dir.empty() && access(a.reference_dir.c_str(), R_OK | X_OK) != 0)
        throw std::invalid_argument("--reference-dir '" + a.reference_dir + "' is not a readable folder");
    if (a.format != "png" && a.format != "ppm") throw std::invalid_argument("bad --format '" + a.format + "': use png or ppm");
    int w, h;
    parse_size(a.size, w, h);
    const uint32_t seed = parse_seed(a.seed);
    const FrameRange range = parse_frame_range(a.frames);
    const float tol = parse_tolerance(a.tolerance);
    if (!scene_name.empty()) scene_circle_count(scene_name);  // unknown names fail here, listing the valid ones
    if (!a.file_prefix.empty())  // every frame's file, before anything is rendered or written
        for (int f = range.start; f < range.end; ++f) {
            char name[32];
            std::snprintf(name, sizeof name, "_%04d.", f);
            const std::string path = a.file_prefix + name + a.format;
            if (f == range.start) check_writable(path);  // the folder once, then each name
            else check_not_folder(path);
        }
    if (!a.diff_path.empty()) check_writable(a.diff_path);
    if (!a.json_path.empty()) check_writable(a.json_path);

    std::string renderer_name = a.renderer.empty() ? default_renderer_name() : a.renderer;
    std::unique_ptr<Renderer> r = make_renderer(renderer_name);  // validates the name first
    const SceneLoad load = load_scene(SceneRequest{scene_name, a.scene_file, a.particles, seed});
    const Scene& scene = load.scene;
    if (!load.note.empty()) std::fprintf(stderr, "%s\n", load.note.c_str());
    std::string why;
    if (a.renderer.empty() && !cuda_device_available(&why))
        std::fprintf(stderr, "note: %s; using the multi-core CPU renderer 'cpu'\n", why.c_str());

    std::printf("Renderer: %s   Scene: %s (%zu circles)   Size: %dx%d   Seed: %u   Frames: %d:%d\n",
                r->name().c_str(), scene.name.c_str(), scene.count(), w, h, seed, range.start, range.end);
    r->setup(scene, w, h);
    std::vector<std::string> written;
    const FrameTimes t = run_frames(*r, range, [&](int frame) {
        if (a.file_prefix.empty()) return;
        char name[64];
        std::snprintf(name, sizeof name, "_%04d.%s", frame, a.format.c_str());
        const std::string path = a.file_prefix + name;
        write_image(r->image(), path, a.format == "ppm" ? ImageFormat::Ppm : ImageFormat::Png);
        written.push_back(path);
    });
    print_timings(t);
    for (const auto& p : written) std::printf("Wrote %s\n", p.c_str());

    nlohmann::json j = {{"scene", scene.name}, {"renderer", r->name()}, {"width", w}, {"height", h},
                        {"seed", seed}, {"frames", {range.start, range.end}}, {"counted_frames", t.counted},
                        {"clear_ms", t.clear_ms}, {"advance_ms", t.advance_ms}, {"render_ms", t.render_ms},
                        {"total_ms", t.total_ms}};
    for (const auto& s : t.stages) j["stages"].push_back({{"name", s.name}, {"course", s.course}, {"ms", s.ms}});
    if (r->peak_device_bytes()) j["peak_device_bytes"] = r->peak_device_bytes();

    int code = kExitOk;
    if (a.check || !a.diff_path.empty()) {
        const Image& mine = r->image();
        CpuRefRenderer cpuref;
        const Image& ref = render_last_frame(cpuref, scene, w, h, range.end);
        const CompareStats st = compare_images(mine, ref, tol);
        std::printf("Check vs cpuref (live): %s\n  %s\n", st.pass ? "PASS" : "FAIL", describe(st).c_str());
        j["check"]["cpuref"] = {{"pass", st.pass}, {"max_abs_error", st.max_abs_error},
                                {"mean_abs_error", st.mean_abs_error}, {"psnr_db", st.psnr_db},
                                {"mismatches_strict", st.mismatches_strict},
                                {"mismatches_course", st.mismatches_course}, {"tolerance", st.tolerance}};
        bool pass = st.pass;
        if (!a.diff_path.empty()) {
            write_image(diff_heatmap(mine, ref, tol), a.diff_path, ImageFormat::Png);
            std::printf("Wrote diff heat map %s (black: equal, blue..yellow: |error| 1e-6..1, magenta: beyond tolerance)\n",
                        a.diff_path.c_str());
        }
        if (!load.particle_file.empty() && a.scene_file.empty())
            std::printf("Check vs stored: skipped (flakes from %s; the stored images are of the generated stand-in)\n",
                        load.particle_file.c_str());
        else if (a.scene_file.empty()) {
            const std::string dir = a.reference_dir.empty() ? default_reference_dir() : a.reference_dir;
            const std::string path = dir + "/" + reference_file_name(scene.name, w, h, seed, range.end - 1);
            const StoredCheck sc = check_stored(mine, path);
            if (sc.found) {
                std::printf("Check vs stored %s: %s\n  8-bit pixels differing: %lld (by more than one step: %lld, %lld allowed)\n",
                            path.c_str(), sc.pass ? "PASS" : "FAIL", sc.differ, sc.beyond_one,
                            static_cast<long long>(kAllowedMismatches));
                j["check"]["stored"] = {{"path", path}, {"pass", sc.pass}, {"pixels_differing", sc.differ},
                                        {"pixels_beyond_one_step", sc.beyond_one}};
                pass = pass && sc.pass;
            } else {
                std::printf("Check vs stored: no reference image %s for these parameters\n", path.c_str());
            }
        }
        if (r->is_incorrect_by_design())
            std::printf("Note: '%s' is the course starter's racy kernel, incorrect on purpose: threads of "
                        "overlapping circles read-modify-write the same pixels at once, so updates are lost "
                        "and blends happen out of circle order.\n", r->name().c_str());
        if (a.check) {
            std::printf("%s\n", pass ? "PASS" : "FAIL");
            code = pass ? kExitOk : kExitMismatch;
        }
        j["check"]["pass"] = pass;
    }
    if (!a.json_path.empty()) {
        write_text_file(a.json_path, j.dump(2) + "\n");
        std::printf("Wrote %s\n", a.json_path.c_str());
    }
    return code;
}

int launch_gui(const std::string& scene, const RenderArgs& a, const char* argv0) {
    std::string self = argv0;
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) self.assign(buf, static_cast<size_t>(n));
    const std::string dir = self.substr(0, self.rfind('/'));
    std::string gui = dir + "/app/circle-renderer";
    if (access(gui.c_str(), X_OK) != 0) gui = dir + "/circle-renderer";
    if (access(gui.c_str(), X_OK) != 0)
        throw std::invalid_argument("-i needs the GUI application 'circle-renderer', which was not built "
                                    "(install libglfw3-dev libimgui-dev python3-glad and rebuild)");
    std::vector<std::string> args = {gui, "--size", a.size, "--seed", a.seed};
    if (!a.scene_file.empty()) args.insert(args.end(), {"--scene-file", a.scene_file});
    else args.insert(args.end(), {"--scene", scene});
    if (!a.particles.empty()) args.insert(args.end(), {"--particles", a.particles});
    if (!a.renderer.empty()) args.insert(args.end(), {"--renderer", a.renderer});
    std::vector<char*> cargs;
    for (auto& s : args) cargs.push_back(s.data());
    cargs.push_back(nullptr);
    execv(gui.c_str(), cargs.data());
    throw std::runtime_error("cannot start " + gui);
}

}  // namespace

}  // namespace cr

int main(int argc, char** argv) {
    using namespace cr;
    CLI::App app{"render: draws the course's circle scenes on the CPU or GPU, times each stage, and checks images.\n"
                 "Example: render --scene rgb --check   |   render -r cuda -c rand10k   |   render bench"};
    app.set_help_flag("-h,--help,-?", "Print this help and exit");
    app.require_subcommand(0, 1);
    app.fallthrough(false);
    RenderArgs a;
    app.add_option("scene_name", a.scene_pos, "Scene name (course form; same as --scene)");
    app.add_option("--scene", a.scene, "Scene: rgb rgby rand10k rand100k rand1M biglittle littlebig pattern micro2M "
                                       "bouncingballs fireworks hypnosis snow snowsingle rand10M");
    app.add_option("--scene-file", a.scene_file, "Load circles from a scene file, or a .par particle file (docs/SCENE_FORMAT.md)");
    app.add_option("--particles", a.particles, "snowsingle: read the flakes from this .par file instead of ./snow.par");
    auto* renderer_opt = app.add_option("-r,--renderer", a.renderer, "cpuref, cpu, naive, tiled (= cuda), persistent, unordered (demo, incorrect); "
                                                "default: tiled with a GPU, else cpu");
    app.add_option("-s,--size", a.size, "Image size N (NxN) or WxH, each 1..16384 (default 1024)");
    app.add_option("-S,--seed", a.seed, "Random seed of the random scenes (default 0)");
    app.add_option("-b,--frames,--bench", a.frames,
                   "Frames START:END: all of 0..END-1 are rendered, START..END-1 are timed and written "
                   "(default 0:1; a single N means N:N+1)");
    auto* file_opt = app.add_option("-f,--file", a.file_prefix, "Write PREFIX_0000.png ... for the timed frames");
    app.add_option("--format", a.format, "Image format of --file: png (default) or ppm");
    app.add_flag("-c,--check", a.check, "Compare the last frame with cpuref (live) and the stored reference image");
    app.add_option("--tolerance", a.tolerance, "Rule deciding PASS: strict (1e-4, default), course (0.1) or a number");
    app.add_option("--diff", a.diff_path, "Write a heat map of the difference to cpuref (PNG)");
    app.add_option("--json", a.json_path, "Write the timings (and check results) as JSON");
    app.add_option("--reference-dir", a.reference_dir, "Folder of stored reference images");
    app.add_flag("-i,--interactive", a.interactive, "Open the GUI application on this scene");
    app.add_flag("--list", a.list, "List scenes and renderers, then exit");

    BenchArgs b;
    std::string b_scenes = "rgb,rgby,rand10k,rand100k,rand1M,biglittle,littlebig,pattern,micro2M,snowsingle";
    std::string b_renderers, b_size = "1024", b_frames = "0:4", b_seed = "0";
    auto* bench = app.add_subcommand("bench", "Time the course frame per stage for scenes x renderers");
    bench->add_option("--scenes", b_scenes, "Comma-separated scene names");
    bench->add_option("--renderers", b_renderers, "Comma-separated renderers (default: every available one except cpuref and unordered)");
    bench->add_option("--size", b_size, "Image size N or WxH (default 1024)");
    bench->add_option("--seed", b_seed, "Seed (default 0)");
    bench->add_option("--frames", b_frames, "Frames START:END timed per repeat (default 0:4)");
    std::string b_repeat = "5";
    bench->add_option("--repeat", b_repeat, "Repeats per scene and renderer, 1..1000 (default 5)")->type_name("K");
    bench->add_option("--json", b.json_path, "Write results as JSON");
    bench->add_option("--csv", b.csv_path, "Write results as CSV");
    bench->add_option("--compare", b.compare_path, "An earlier --json result to compare with, scene by scene");
    bool no_check = false;
    bench->add_flag("--no-check", no_check, "Skip the correctness check of each result");

    RefsArgs ra;
    ra.out_dir = default_reference_dir();
    auto* refs = app.add_subcommand("refs", "Regenerate the stored reference images with cpuref");
    refs->add_option("--out", ra.out_dir, "Output folder (default: the source tree's reference_images/)");
    refs->add_flag("--small-only", ra.only_small, "Only the 256x256 set");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "render: %s (see render --help)\n", e.what());
        return kExitUsage;
    }
    a.renderer_given = renderer_opt->count() > 0;
    a.file_given = file_opt->count() > 0;
    try {
        if (a.list) {
            std::printf("Scenes:");
            for (const auto& s : scene_names()) std::printf(" %s", s.c_str());
            std::printf("\nRenderers:\n");
            std::string why;
            const bool gpu = cuda_device_available(&why);
            for (const auto& i : renderer_infos())
                std::printf("  %-11s %s%s\n", i.name.c_str(), i.description.c_str(),
                            i.needs_gpu && !gpu ? "  [unavailable: no CUDA device]" : "");
            return kExitOk;
        }
        if (*bench) {
            b.scenes = split_list(b_scenes);
            if (b.scenes.empty()) throw std::invalid_argument("--scenes is empty: name at least one scene");
            for (const auto& s : b.scenes)
                if (!is_scene_name(s)) scene_circle_count(s);  // throws with the valid names
            if (std::set<std::string>(b.scenes.begin(), b.scenes.end()).size() != b.scenes.size())
                throw std::invalid_argument("--scenes names a scene twice");
            b.renderers = split_list(b_renderers);
            if (std::set<std::string>(b.renderers.begin(), b.renderers.end()).size() != b.renderers.size())
                throw std::invalid_argument("--renderers names a renderer twice");
            parse_size(b_size, b.width, b.height);
            b.seed = parse_seed(b_seed);
            b.frames = parse_frame_range(b_frames);
            b.repeat = parse_whole_number(b_repeat, "--repeat", 1, 1000, "use a whole number in 1..1000");
            b.check = !no_check;
            return run_bench(b);
        }
        if (*refs) return run_refs(ra);
        if (a.interactive) return launch_gui(a.scene.empty() ? a.scene_pos : a.scene, a, argv[0]);
        return run_render(a);
    } catch (const NoCudaDeviceError& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitNoGpu;
    } catch (const DeviceOutOfMemory& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitGpuMemory;
    } catch (const CudaError& e) {
        std::fprintf(stderr, "render: CUDA error: %s\n", e.what());
        return kExitRuntime;
    } catch (const SceneFileError& e) {
        std::fprintf(stderr, "render: bad scene file: %s\n", e.what());
        return kExitUsage;
    } catch (const FileError& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitUsage;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitUsage;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "render: out of host memory\n");
        return kExitRuntime;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitRuntime;
    }
}
