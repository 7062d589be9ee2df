// `render coalescence` (commands.h): the figures of exact early stopping by
// coalescence (render/cpu/coalescence.h) per scene, measured on the CPU.
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <numeric>

#include "render/cli/commands.h"
#include "render/core/output_file.h"
#include "render/core/text.h"
#include "render/cpu/coalescence.h"
#include "render/options.h"
#include "render/scene_source.h"

namespace cr {

namespace {

double mean(const std::vector<int>& v) {
    return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

/// One scene's row, and its JSON.
nlohmann::json scene_figures(const std::string& name, const CoalescenceStats& st, double seconds) {
    const double ratio = st.reduction();
    std::printf("%-11s %8.1f %6d %6d %7d   %6d %6d %6d   %13lld %13lld %7.2f %9lld %7.1f\n", name.c_str(),
                mean(st.covering), percentile(st.covering, .5), percentile(st.covering, .99),
                percentile(st.covering, 1), percentile(st.needed, .5), percentile(st.needed, .99),
                percentile(st.needed, 1), st.blends_full, st.blends_done, ratio, st.mismatches, seconds);
    return {{"scene", name},
            {"covering", {{"mean", mean(st.covering)}, {"median", percentile(st.covering, .5)},
                          {"p99", percentile(st.covering, .99)}, {"max", percentile(st.covering, 1)}}},
            {"needed", {{"median", percentile(st.needed, .5)}, {"p99", percentile(st.needed, .99)},
                        {"max", percentile(st.needed, 1)}}},
            {"blends_cpuref", st.blends_full}, {"blends_coalescing", st.blends_done}, {"ratio", ratio},
            {"pixels_from_background", st.from_background}, {"pixels_differing", st.mismatches}, {"seconds", seconds}};
}

}  // namespace

int run_coalescence(const CoalescenceArgs& a) {
    int w = 0, h = 0;
    parse_size(a.size, w, h);
    const uint32_t seed = parse_seed(a.seed);
    const int window = parse_whole_number(a.window, "--window", 0, 1 << 20, "use a whole number of fragments (0: from the alphas)");
    const std::vector<std::string> scenes = split_list(a.scenes);
    if (!a.json_path.empty()) check_writable(a.json_path);
    std::printf("render coalescence: %dx%d, seed %u, first window %s from the end, doubling while shorter than half "
                "the list; blends counted per frame (both trajectories while they differ), on the CPU\n", w, h, seed,
                window > 0 ? (std::to_string(window) + " fragments").c_str() : "from each pixel's alphas");
    std::printf("%-11s %8s %6s %6s %7s   %6s %6s %6s   %13s %13s %7s %9s %7s\n", "scene", "covering", "median", "p99",
                "max", "needed", "p99", "max", "cpuref blends", "walk blends", "ratio", "differing", "s");
    nlohmann::json j = {{"width", w}, {"height", h}, {"seed", seed}, {"first_window", window},
                        {"scenes", nlohmann::json::array()}};
    long long differing = 0;
    for (const auto& name : scenes) {
        const Scene s = load_scene(SceneRequest{name, "", "", seed}).scene;  // snowsingle: ./snow.par when present
        const auto t0 = std::chrono::steady_clock::now();
        const CoalescenceStats st = coalescence_stats(s, w, h, window);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        j["scenes"].push_back(scene_figures(name, st, secs));
        differing += st.mismatches;
    }
    std::printf("covering: circles covering a pixel; needed: blends until the trajectories from 0 and 2x the "
                "brightest value met (pixels of few circles: all of them); differing: pixels whose R, G or B differ "
                "in any bit from cpuref's (must be 0)\n");
    if (!a.json_path.empty()) write_text_file(a.json_path, j.dump(2) + "\n");
    return differing == 0 ? kExitOk : kExitMismatch;
}

}  // namespace cr
