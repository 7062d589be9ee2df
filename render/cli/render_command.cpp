// `render` itself: validate the options, render the frames (writing each
// timed frame with --file), check the last frame, write the JSON.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <unistd.h>

#include "render/cli/commands.h"
#include "render/compare.h"
#include "render/core/numbers.h"
#include "render/core/output_file.h"
#include "render/image_io.h"
#include "render/options.h"
#include "render/pixel_story.h"
#include "render/reference_set.h"
#include "render/renderer_factory.h"
#include "render/scene_source.h"

namespace cr {
namespace {

/// The options of a run, parsed and checked.
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

/// The file of frame `frame` for --file PREFIX.
std::string frame_file(const RenderArgs& a, int frame) {
    char name[32];
    std::snprintf(name, sizeof name, "_%04d.", frame);
    return a.file_prefix + name + a.format;
}

}  // namespace

RenderPlan plan_render(const RenderArgs& a) {
    RenderPlan p;
    p.scene_name = !a.scene.empty() ? a.scene : a.scene_pos;
    if (p.scene_name.empty() && a.scene_file.empty() && !a.particles.empty()) p.scene_name = "snowsingle";
    if (p.scene_name.empty() && a.scene_file.empty())
        throw std::invalid_argument("no scene: give --scene NAME (or a scene name) or --scene-file PATH; see --help");
    if (!p.scene_name.empty() && !a.scene_file.empty())
        throw std::invalid_argument("give either a scene name or --scene-file, not both");
    if (!a.scene.empty() && !a.scene_pos.empty() && a.scene != a.scene_pos)
        throw std::invalid_argument("two different scenes given ('" + a.scene_pos + "' and --scene " + a.scene + ")");
    if (a.renderer_given && a.renderer.empty()) throw std::invalid_argument("empty --renderer name");
    if (a.file_given && a.file_prefix.empty()) throw std::invalid_argument("empty --file prefix");
    std::error_code ec;
    if (!a.file_prefix.empty() && (a.file_prefix.back() == '/' || std::filesystem::is_directory(a.file_prefix, ec))) {
        const std::string folder = a.file_prefix.back() == '/' ? a.file_prefix : a.file_prefix + "/";
        throw std::invalid_argument("--file '" + a.file_prefix + "' names a folder: give a file prefix, e.g. " + folder +
                                    "frame (writes " + folder + "frame_0000." + a.format + ")");
    }
    if (!a.reference_dir.empty() && access(a.reference_dir.c_str(), R_OK | X_OK) != 0)
        throw std::invalid_argument("--reference-dir '" + a.reference_dir + "' is not a readable folder");
    if (a.format != "png" && a.format != "ppm") throw std::invalid_argument("bad --format '" + a.format + "': use png or ppm");
    parse_size(a.size, p.width, p.height);
    p.seed = parse_seed(a.seed);
    p.range = parse_frame_range(a.frames);
    p.tolerance = parse_tolerance(a.tolerance);
    p.renderer = requested_renderer(a.renderer, a.student_dir);
    p.timing = parse_timing_method(a.timing);
    if (!p.scene_name.empty()) scene_circle_count(p.scene_name);  // unknown names fail here, listing the valid ones
    if (!a.file_prefix.empty())  // every frame's file, before anything is rendered or written
        for (int f = p.range.start; f < p.range.end; ++f) {
            if (f == p.range.start) check_writable(frame_file(a, f));  // the folder once, then each name
            else check_not_folder(frame_file(a, f));
        }
    if (!a.diff_path.empty()) check_writable(a.diff_path);
    if (!a.json_path.empty()) check_writable(a.json_path);
    return p;
}

namespace {

void print_timings(std::FILE* out, const FrameTimes& t) {
    std::fprintf(out, "%-14s %10s\n", "stage", "mean ms");
    for (const auto& s : t.stages)
        std::fprintf(out, "%-14s %10.4f%s\n", s.name.c_str(), s.ms, s.course.empty() ? "  (not in Total)" : "");
    std::fprintf(out, "Clear:    %.4f ms\nAdvance:  %.4f ms\nRender:   %.4f ms\nTotal:    %.4f ms\n", t.clear_ms,
                 t.advance_ms, t.render_ms, t.total_ms);
}

/// A time in ms for JSON: 4 significant digits (the rest is noise).

nlohmann::json timings_json(const Renderer& r, const Scene& scene, const RenderPlan& p, const FrameTimes& t) {
    nlohmann::json j = {{"scene", scene.name}, {"renderer", r.name()}, {"width", p.width}, {"height", p.height},
                        {"seed", p.seed}, {"frames", {p.range.start, p.range.end}}, {"counted_frames", t.counted},
                        {"clear_ms", json_figure(t.clear_ms)}, {"advance_ms", json_figure(t.advance_ms)},
                        {"render_ms", json_figure(t.render_ms)}, {"total_ms", json_figure(t.total_ms)}};
    for (const auto& s : t.stages) j["stages"].push_back({{"name", s.name}, {"course", s.course}, {"ms", json_figure(s.ms)}});
    if (r.peak_device_bytes()) j["peak_device_bytes"] = r.peak_device_bytes();
    return j;
}

/// The live comparison with cpuref (for cpuref itself: with its own image,
/// said so); writes --diff. Returns whether it passed.
bool check_live(Renderer& r, const Scene& scene, const RenderArgs& a, const RenderPlan& p, std::FILE* out,
                nlohmann::json& j) {
    const Image& mine = r.image();
    const bool self = r.name() == "cpuref";
    std::unique_ptr<Renderer> cpuref;
    if (!self) {
        cpuref = make_live_reference(r.name());
        render_last_frame(*cpuref, scene, p.width, p.height, p.range.end);
    }
    const Image& ref = self ? mine : cpuref->image();
    const CompareStats st = compare_images(mine, ref, p.tolerance);
    if (self)
        std::fprintf(out, "Check vs cpuref (live): cpuref compared with itself, identical by construction; "
                          "the stored reference image is the meaningful check\n");
    else
        std::fprintf(out, "Check vs %s: %s\n  %s\n", live_reference_label(r.name()).c_str(),
                     st.pass ? "PASS" : "FAIL", describe(st).c_str());
    if (!self && !st.pass && st.same_size)  // which pixels, and why: the circles over the first one
        std::fputs(describe_mismatches(mine, ref, p.tolerance, st.mismatches_custom, scene_at_frame(scene, p.range.end))
                       .c_str(),
                   out);
    j["check"]["cpuref"] = {{"pass", st.pass}, {"compared_with_itself", self},
                            {"max_abs_error", as_written(static_cast<float>(st.max_abs_error))},
                            {"mean_abs_error", round_significant(st.mean_abs_error, 6)},
                            {"psnr_db", round_significant(st.psnr_db, 6)},
                            {"mismatches_strict", st.mismatches_strict}, {"mismatches_course", st.mismatches_course},
                            {"tolerance", as_written(st.tolerance)}, {"rule", rule_name(st.tolerance)}};
    if (!a.diff_path.empty()) {
        write_image(diff_heatmap(mine, ref, p.tolerance), a.diff_path, ImageFormat::Png);
        if (a.diff_path != kStandardOutputPath)
            std::fprintf(out, "Wrote diff heat map %s (black: equal, blue..yellow: |error| 1e-6..1, magenta: beyond %s)\n",
                         a.diff_path.c_str(), rule_name(p.tolerance).c_str());
    }
    return st.pass;
}

/// The comparison with the stored reference image, when one exists for
/// these parameters. Sets `found`; returns whether it passed.
bool check_stored_reference(const Image& mine, const Scene& scene, const RenderArgs& a, const RenderPlan& p,
                            std::FILE* out, nlohmann::json& j, bool& found) {
    found = false;
    if (!a.scene_file.empty()) return true;  // stored images exist only for the built-in scenes
    if (!p.particle_file.empty()) {
        std::fprintf(out, "Check vs stored: skipped (flakes from %s; the stored images are of the generated stand-in)\n",
                     p.particle_file.c_str());
        return true;
    }
    const std::string dir = a.reference_dir.empty() ? default_reference_dir() : a.reference_dir;
    const std::string path = dir + "/" + reference_file_name(scene.name, p.width, p.height, p.seed, p.range.end - 1);
    const StoredCheck sc = check_stored(mine, path);
    found = sc.found;
    if (!sc.found) {
        std::fprintf(out, "Check vs stored: no reference image %s for these parameters\n", path.c_str());
        return true;
    }
    std::fprintf(out, "Check vs stored %s: %s\n  8-bit pixels differing: %lld (by more than one step: %lld, %lld allowed)\n",
                 path.c_str(), sc.pass ? "PASS" : "FAIL", sc.differ, sc.beyond_one,
                 static_cast<long long>(kAllowedMismatches));
    j["check"]["stored"] = {{"path", path}, {"pass", sc.pass}, {"pixels_differing", sc.differ},
                            {"pixels_beyond_one_step", sc.beyond_one}};
    return sc.pass;
}

/// The student's renderer draws the checked frame twice more; an ordered,
/// atomic renderer gives the same image each time. Returns false on a race.
bool check_repeatable(Renderer& r, std::FILE* out, nlohmann::json& j) {
    const RepeatCheck rc = rerender_compare(r, r.image(), 3);
    j["check"]["repeat"] = {{"runs", rc.runs}, {"differing_runs", rc.differing_runs},
                            {"most_pixels_differing", rc.most_pixels_differing}};
    if (rc.differing_runs == 0) {
        std::fprintf(out, "Repeat: the frame rendered %d times gave the same image each time\n", rc.runs);
        return true;
    }
    std::fprintf(out, "Repeat: FAIL - your output changes between runs (%d of %d re-renders differ, in up to %lld "
                      "pixels): a race in ordering or atomicity\n",
                 rc.differing_runs, rc.runs - 1, rc.most_pixels_differing);
    return false;
}

/// --check and --diff: compares the last frame; prints the verdict with
/// --check. Returns the exit code.
int check_last_frame(Renderer& r, const Scene& scene, const RenderArgs& a, const RenderPlan& p, std::FILE* out,
                     nlohmann::json& j) {
    bool pass = check_live(r, scene, a, p, out, j);
    if (r.name() == "student") pass = check_repeatable(r, out, j) && pass;
    bool stored = false;
    pass = check_stored_reference(r.image(), scene, a, p, out, j, stored) && pass;
    if (r.is_incorrect_by_design())
        std::fprintf(out, "Note: '%s' is the course starter's racy kernel, incorrect on purpose: threads of "
                          "overlapping circles read-modify-write the same pixels at once, so updates are lost "
                          "and blends happen out of circle order.\n", r.name().c_str());
    j["check"]["pass"] = pass;
    if (!a.check) return kExitOk;
    if (r.name() != "cpuref") std::fprintf(out, "%s\n", pass ? "PASS" : "FAIL");
    else if (stored) std::fprintf(out, "%s (the stored reference image)\n", pass ? "PASS" : "FAIL");
    else std::fprintf(out, "PASS (cpuref compared only with itself: no stored reference image for these parameters)\n");
    return pass ? kExitOk : kExitMismatch;
}

/// Renders the frames, writing each timed one with --file; prints the
/// times and the files written.
FrameTimes render_frames_and_files(Renderer& r, const RenderArgs& a, const RenderPlan& p, std::FILE* out) {
    std::vector<std::string> written;
    const auto write_frame = [&](int frame) {
        if (a.file_prefix.empty()) return;
        const std::string path = frame_file(a, frame);
        write_image(r.image(), path, a.format == "ppm" ? ImageFormat::Ppm : ImageFormat::Png);
        written.push_back(path);
    };
    const auto start_profiler = [&] {
        if (a.profile_range) r.profiler_range(true);
    };
    const FrameTimes t = run_frames(r, p.range, write_frame, p.timing, start_profiler);
    if (a.profile_range) r.profiler_range(false);
    std::fprintf(out, "Timing: %s\n", timing_method_text(p.timing, r).c_str());
    print_timings(out, t);
    for (const auto& path : written) std::fprintf(out, "Wrote %s\n", path.c_str());
    return t;
}

}  // namespace

void write_data_file(std::FILE* report, const std::string& path, const std::string& text) {
    write_text_file(path, text);
    if (path != kStandardOutputPath) std::fprintf(report, "Wrote %s\n", path.c_str());
}

double json_figure(double v) { return round_significant(v, 4); }

std::FILE* report_stream(const std::vector<std::string>& data_paths) {
    int to_stdout = 0;
    for (const auto& p : data_paths) to_stdout += !p.empty() && classify_output(p) == OutputTarget::StandardOutput;
    if (to_stdout > 1) throw std::invalid_argument("only one output can go to standard output ('-')");
    return to_stdout ? stderr : stdout;
}

int run_render(const RenderArgs& a) {
    if (a.build_only) return run_build_only(a);
    if (a.sanitize_given) return run_sanitize(a);
    RenderPlan p = plan_render(a);
    std::FILE* out = report_stream({a.json_path, a.diff_path});
    std::unique_ptr<Renderer> r = make_renderer(p.renderer.empty() ? default_renderer_name() : p.renderer,
                                                student_context(a.student_dir, a.student_timeout, a.student_memory));
    const SceneLoad load = load_scene(SceneRequest{p.scene_name, a.scene_file, a.particles, p.seed});
    const Scene& scene = load.scene;
    if (!load.note.empty()) std::fprintf(stderr, "%s\n", load.note.c_str());
    p.particle_file = load.particle_file;
    std::string why;
    if (p.renderer.empty() && !cuda_device_available(&why))
        std::fprintf(stderr, "note: %s; using the cpu renderer\n", why.c_str());

    std::fprintf(out, "Renderer: %s   Scene: %s (%zu circles)   Size: %dx%d   Seed: %u   Frames: %d:%d\n",
                 r->name().c_str(), scene.name.c_str(), scene.count(), p.width, p.height, p.seed, p.range.start,
                 p.range.end);
    r->setup(scene, p.width, p.height);
    const FrameTimes t = render_frames_and_files(*r, a, p, out);
    nlohmann::json j = timings_json(*r, scene, p, t);
    const int code = a.check || !a.diff_path.empty() ? check_last_frame(*r, scene, a, p, out, j) : kExitOk;
    if (!a.json_path.empty()) write_data_file(out, a.json_path, j.dump(2) + "\n");
    return code;
}

}  // namespace cr
