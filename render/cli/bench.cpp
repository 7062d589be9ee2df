// `render bench` (timing comparisons) and `render refs` (reference images).
//
// Method: for each scene and renderer, set up, run one warm-up (inside
// run_frames), then time the course's frame (clear, advance, render) per
// stage over the frames -- cudaEvents for GPU stages, the host clock for
// the synchronous CPU renderers -- and repeat K times from a fresh setup.
// Reported figures are medians over the K repeats of the per-repeat means.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <unistd.h>

#include "render/renderer_factory.h"
#include "render/cli/commands.h"
#include "render/options.h"
#include "render/compare.h"
#include "render/cpu/cpu_stages.h"
#include "render/reference_set.h"
#include "render/scene_source.h"

namespace cr {

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct BenchResult {
    std::string scene, renderer;
    double total_median = 0, total_min = 0, total_max = 0;
    double clear = 0, advance = 0, render = 0;
    std::vector<std::pair<std::string, double>> stages;  // per-stage medians
    std::string check = "-";                             // ok, F, or -
    double max_error = 0;
    long long pairs = 0, tests = 0, blends = 0;
    size_t peak_bytes = 0;
};

}  // namespace

int run_bench(const BenchArgs& args) {
    std::vector<std::string> renderers = args.renderers;
    std::string why;
    const bool gpu = cuda_device_available(&why);
    if (renderers.empty()) {
        for (const auto& i : renderer_infos())
            if (i.name != "unordered" && i.name != "cpuref" && (gpu || !i.needs_gpu)) renderers.push_back(i.name);
        if (!gpu) std::fprintf(stderr, "note: %s; benchmarking the CPU renderer 'cpu' only (add cpuref with --renderers cpuref,cpu)\n", why.c_str());
    }
    for (const auto& r : renderers) make_renderer(r);  // validates names and GPU presence up front
    if (!args.json_path.empty()) check_writable(args.json_path);
    if (!args.csv_path.empty()) check_writable(args.csv_path);
    nlohmann::json old;  // --compare: read and validated before anything runs
    if (!args.compare_path.empty()) {
        std::ifstream f(args.compare_path);
        if (!f) throw std::invalid_argument("cannot read --compare file '" + args.compare_path + "'");
        try {
            f >> old;
        } catch (const std::exception& e) {
            throw std::invalid_argument("--compare file '" + args.compare_path + "' is not valid JSON: " + e.what());
        }
        if (!old.is_object() || !old.contains("results") || !old["results"].is_array())
            throw std::invalid_argument("--compare file '" + args.compare_path +
                                        "' is not a `render bench --json` result (no \"results\" list)");
        const auto frames = nlohmann::json{args.frames.start, args.frames.end};
        if (old.value("width", 0) != args.width || old.value("height", 0) != args.height ||
            old.value("frames", nlohmann::json()) != frames)
            throw std::invalid_argument("--compare file '" + args.compare_path + "' was measured at another size or " +
                                        "frame range (" + std::to_string(old.value("width", 0)) + "x" +
                                        std::to_string(old.value("height", 0)) + ", frames " +
                                        old.value("frames", nlohmann::json()).dump() + "); use the same --size and --frames");
    }

    const std::string device = gpu_description();
    char date[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::printf("render bench: %s, %dx%d, frames %d:%d, %d repeat(s), seed %u\nDevice: %s\n", date, args.width,
                args.height, args.frames.start, args.frames.end, args.repeat, args.seed, device.c_str());

    std::vector<BenchResult> results;
    const size_t total_runs = args.scenes.size() * renderers.size();
    size_t run = 0;
    bool any_fail = false;
    for (const auto& scene_name : args.scenes) {
        const SceneLoad load = load_scene(SceneRequest{scene_name, "", "", args.seed});  // snowsingle: ./snow.par
        if (!load.note.empty()) std::fprintf(stderr, "%s\n", load.note.c_str());
        const Scene& scene = load.scene;
        const long long blends = count_blends(scene, args.width, args.height);
        Image reference;
        bool have_reference = false;
        for (const auto& rname : renderers) {
            ++run;
            std::fprintf(stderr, "[%zu/%zu] %s on %s ...\n", run, total_runs, rname.c_str(), scene_name.c_str());
            std::unique_ptr<Renderer> r = make_renderer(rname);
            BenchResult res;
            res.scene = scene_name;
            res.renderer = r->name();
            res.blends = blends;
            std::vector<double> totals, clears, advances, renders;
            std::map<std::string, std::vector<double>> per_stage;
            std::vector<std::string> order;
            for (int k = 0; k < args.repeat; ++k) {
                r->setup(scene, args.width, args.height);
                const FrameTimes t = run_frames(*r, args.frames);
                totals.push_back(t.total_ms);
                clears.push_back(t.clear_ms);
                advances.push_back(t.advance_ms);
                renders.push_back(t.render_ms);
                for (const auto& s : t.stages) {
                    if (!per_stage.count(s.name)) order.push_back(s.name);
                    per_stage[s.name].push_back(s.ms);
                }
            }
            res.total_median = median(totals);
            res.total_min = *std::min_element(totals.begin(), totals.end());
            res.total_max = *std::max_element(totals.begin(), totals.end());
            res.clear = median(clears);
            res.advance = median(advances);
            res.render = median(renders);
            for (const auto& n : order) res.stages.push_back({n, median(per_stage[n])});
            const WorkCounts w = r->work();
            res.pairs = w.circle_tile_pairs;
            res.tests = w.coverage_tests;
            res.peak_bytes = r->peak_device_bytes();
            if (args.check) {
                const Image& img = r->image();
                if (rname == "cpuref") {
                    reference = img;
                    have_reference = true;
                } else if (!have_reference) {
                    std::fprintf(stderr, "      rendering cpuref for the check ...\n");
                    CpuRefRenderer cpuref;
                    reference = render_last_frame(cpuref, scene, args.width, args.height, args.frames.end);
                    have_reference = true;
                }
                const CompareStats st = compare_images(img, reference);
                res.check = st.pass ? "ok" : "F";
                res.max_error = st.max_abs_error;
                any_fail = any_fail || !st.pass;
            }
            results.push_back(res);
        }
    }

    // Table.
    std::printf("\n%-11s %-11s %10s %19s %9s %9s %9s %8s %10s %5s\n", "scene", "renderer", "Total ms",
                "min-max", "clear", "advance", "render", "speedup", "Gblends/s", "check");
    std::map<std::string, double> cpuref_total;
    for (const auto& r : results)
        if (r.renderer == "cpuref") cpuref_total[r.scene] = r.total_median;
    for (const auto& r : results) {
        char speed[32] = "-";
        if (cpuref_total.count(r.scene) && r.total_median > 0)
            std::snprintf(speed, sizeof speed, "%.1fx", cpuref_total[r.scene] / r.total_median);
        const double gbps = r.render > 0 ? r.blends / (r.render * 1e-3) / 1e9 : 0;
        char range[48];
        std::snprintf(range, sizeof range, "%.4f-%.4f", r.total_min, r.total_max);
        std::printf("%-11s %-11s %10.4f %19s %9.4f %9.4f %9.4f %8s %10.2f %5s\n", r.scene.c_str(),
                    r.renderer.c_str(), r.total_median, range, r.clear, r.advance, r.render, speed, gbps,
                    r.check.c_str());
    }
    std::printf("\nPer-stage medians (ms) and work per frame:\n");
    for (const auto& r : results) {
        std::printf("%-11s %-11s", r.scene.c_str(), r.renderer.c_str());
        for (const auto& [n, ms] : r.stages) std::printf(" %s=%.4f", n.c_str(), ms);
        std::printf(" | blends=%lld pairs=%lld tests<=%lld", r.blends, r.pairs, r.tests);
        if (r.peak_bytes) std::printf(" peak=%.1fMiB", r.peak_bytes / 1048576.0);
        std::printf("\n");
    }
    std::printf("\nTotal = clear + advance + render, ms per frame (median of the repeats); speedup = cpuref's Total / "
                "this Total (when cpuref was run); Gblends/s = circle-pixel blends per second of render time.\n");
    if (any_fail) std::printf("F: the result differs from cpuref beyond the strict tolerance (1e-4, 5 pixels).\n");

    nlohmann::json j = {{"device", device}, {"date", date}, {"width", args.width}, {"height", args.height},
                        {"frames", {args.frames.start, args.frames.end}}, {"repeat", args.repeat},
                        {"seed", args.seed}};
    j["results"] = nlohmann::json::array();
    for (const auto& r : results) {
        nlohmann::json e = {{"scene", r.scene}, {"renderer", r.renderer}, {"total_median_ms", r.total_median},
                            {"total_min_ms", r.total_min}, {"total_max_ms", r.total_max},
                            {"clear_ms", r.clear}, {"advance_ms", r.advance}, {"render_ms", r.render},
                            {"check", r.check}, {"max_abs_error", r.max_error}, {"blends", r.blends},
                            {"circle_tile_pairs", r.pairs}, {"coverage_tests_upper_bound", r.tests},
                            {"peak_device_bytes", r.peak_bytes}};
        for (const auto& [n, ms] : r.stages) e["stages"][n] = ms;
        if (cpuref_total.count(r.scene) && r.total_median > 0)
            e["speedup_vs_cpuref"] = cpuref_total[r.scene] / r.total_median;
        j["results"].push_back(e);
    }
    if (!args.compare_path.empty()) {
        std::printf("\nCompared with %s (%s): ratio = this run / earlier run (below 1 is faster)\n",
                    args.compare_path.c_str(), old.value("date", std::string("?")).c_str());
        for (const auto& r : results)
            for (const auto& o : old.value("results", nlohmann::json::array()))
                if (o.value("scene", "") == r.scene && o.value("renderer", "") == r.renderer) {
                    const double before = o.value("total_median_ms", 0.0);
                    std::printf("%-11s %-11s %10.4f -> %10.4f ms  ratio %.3f\n", r.scene.c_str(), r.renderer.c_str(),
                                before, r.total_median, before > 0 ? r.total_median / before : 0.0);
                }
    }
    if (!args.json_path.empty()) {
        write_text_file(args.json_path, j.dump(2) + "\n");
        std::printf("Wrote %s\n", args.json_path.c_str());
    }
    if (!args.csv_path.empty()) {
        std::string csv = "scene,renderer,total_median_ms,total_min_ms,total_max_ms,clear_ms,advance_ms,render_ms,check,blends,circle_tile_pairs\n";
        for (const auto& r : results) {
            char line[512];
            std::snprintf(line, sizeof line, "%s,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%s,%lld,%lld\n", r.scene.c_str(),
                          r.renderer.c_str(), r.total_median, r.total_min, r.total_max, r.clear, r.advance,
                          r.render, r.check.c_str(), r.blends, r.pairs);
            csv += line;
        }
        write_text_file(args.csv_path, csv);
        std::printf("Wrote %s\n", args.csv_path.c_str());
    }
    return any_fail ? kExitMismatch : kExitOk;
}

int run_refs(const RefsArgs& args) {
    check_writable(args.out_dir + "/x.png");
    const auto set = reference_set(args.only_small);
    size_t i = 0;
    for (const auto& spec : set) {
        ++i;
        const Scene scene = make_scene(spec.scene, spec.seed);
        CpuRefRenderer cpuref;
        const Image& img = render_last_frame(cpuref, scene, spec.width, spec.height, spec.frame + 1);
        const std::string path = args.out_dir + "/" + spec.file_name();
        write_image(img, path, ImageFormat::Png);
        std::printf("[%zu/%zu] wrote %s\n", i, set.size(), path.c_str());
        std::fflush(stdout);
    }
    return kExitOk;
}

}  // namespace cr
