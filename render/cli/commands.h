// The subcommands of `render` (main.cpp parses, these run).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/frame_loop.h"
#include "scenes/scene.h"

namespace cr {

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

/// Runs `render bench`; returns the exit code (1 when a result failed its check).
int run_bench(const BenchArgs& args);

/// Options of `render refs` (regenerates reference_images/).
struct RefsArgs {
    std::string out_dir;
    bool only_small = false;  ///< only the 256x256 set
};

/// Renders every stored reference image with cpuref into out_dir.
int run_refs(const RefsArgs& args);

}  // namespace cr
