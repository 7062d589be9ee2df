// The commands of `render` (main.cpp parses, these run).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "render/frame_loop.h"
#include "scenes/scene.h"

namespace cr {

/// Options of `render` itself (render one scene).
struct RenderArgs {
    std::string scene, scene_pos, scene_file, particles, renderer, size = "1024", seed = "0", frames = "0:1";
    std::string file_prefix, format = "png", diff_path, json_path, tolerance = "strict", reference_dir;
    bool check = false, interactive = false, list = false;
    bool renderer_given = false, file_given = false;
};

/// Runs `render`: renders, prints the times, writes the files, checks;
/// returns the exit code (1 when --check fails).
int run_render(const RenderArgs& args);

/// Prints the scenes and renderers of `render --list`.
int run_list();

/// Options of `render bench`.
struct BenchArgs {
    std::vector<std::string> scenes;     ///< scene names
    std::vector<std::string> renderers;  ///< renderer names
    int width = 1024, height = 1024;
    uint32_t seed = 0;
    FrameRange frames{0, 4};
    int repeat = 5;
    bool check = true;
    std::string json_path, csv_path, compare_path;
};

/// The scenes `render bench` runs without --scenes: the course's scenes
/// except the animated ones (bouncingballs, fireworks, hypnosis, snow) and rand10M.
inline const char* const kDefaultBenchScenes =
    "rgb,rgby,rand10k,rand100k,rand1M,biglittle,littlebig,pattern,micro2M,snowsingle";

/// Runs `render bench`; returns the exit code: 1 when a result failed its
/// check, else 3 when a renderer could not run here (no GPU), else 0.
int run_bench(const BenchArgs& args);

/// Options of `render refs` (regenerates reference_images/).
struct RefsArgs {
    std::string out_dir;
    bool only_small = false;  ///< only the 256x256 set
};

/// Renders every stored reference image with cpuref into out_dir (created
/// when missing).
int run_refs(const RefsArgs& args);

/// Where the human-readable report goes: stderr when one of `data_paths`
/// is standard output ("-", /dev/stdout), so that stdout holds only that
/// data; else stdout. Throws std::invalid_argument when two of them are.
std::FILE* report_stream(const std::vector<std::string>& data_paths);

}  // namespace cr
