// Numbers behind the GUI's teaching overlays (docs/KERNELS.md, "From lecture
// to code"), computed on the CPU with the same tests the tiled CUDA kernel
// runs, so they say what the GPU does without instrumenting it.
#pragma once

#include <utility>
#include <vector>

#include "render/core/circles.h"
#include "render/core/renderer.h"

namespace cr {

/// Per tile of `tile` x `tile` pixels: the circles binning lists (bounding
/// box overlaps the tile: bin.count's conservative test) and the circles the
/// exact circle-tile test keeps (what the shading block blends). `scene` is
/// as it is at the frame shown. loads = listed, hits = kept.
struct TileCounts {
    TileLoads listed;  ///< circles whose box overlaps each tile
    std::vector<int> hit;  ///< of those, circles passing circle_touches_tile (same layout)
};
TileCounts tile_counts(const Scene& scene, int width, int height, int tile = 16);

/// Per warp of the tiled kernel (16x16 tiles, 64 threads a block, 4 rows a
/// thread: warp 0 of a tile holds rows 0..7, warp 1 rows 8..15, 16 columns
/// each), the mean number of its 32 lanes that have a covered pixel, over the
/// circles blended in that tile: 32 means no divergence, 4 means most lanes
/// idle while a few blend. Layout: warps_x = tiles_x, warps_y = 2 * tiles_y,
/// value[wy * warps_x + wx], wy = 0 at the bottom; -1 where a tile blends no
/// circle.
struct WarpActivity {
    int warps_x = 0, warps_y = 0;
    int warp_width = 16, warp_height = 8;  ///< pixels a warp covers
    std::vector<float> mean_active_lanes;
};
WarpActivity warp_activity(const Scene& scene, int width, int height);

/// The two-circle order demo: the same two overlapping circles (red, then
/// blue) in input order and in reverse. Blended in order they give a
/// different color where they overlap: "over" does not commute.
std::pair<Scene, Scene> order_demo_scenes();

}  // namespace cr
