// How the CUDA renderer bins and shades a scene, decided once at setup from
// the circles and the options: pure host code (no CUDA header), so the CPU
// tests check every scene's path (docs/KERNELS.md, the table of paths) on a
// machine without a GPU, and the renderer (kernels/cuda_renderer.cu) only
// carries the plan out.
#pragma once

#include <string>

#include "kernels/cuda_renderer.h"
#include "render/core/tile_math.h"
#include "render/core/circles.h"

namespace cr {

/// bin.split's tile masks ride in the pair keys: bits 0..15 hold the bin id
/// (so at most kSplitBinIds bins: every id stays below the padding key's low
/// bits, kSplitBinIds), bits kSplitMaskShift.. one bit per tile of the bin.
constexpr int kSplitMaskShift = 16;
constexpr unsigned int kSplitBinIds = 0xffffu;

/// How binning runs for a scene: no binning at all (`direct`: every block
/// scans every circle), or bins of `coarse` x `coarse` tiles listed by
/// bin.compact (one block per bin, no sort), by the counting sort (count,
/// scan, place) or by the sorting stages (scan, fill, sort, ranges), the
/// last two followed by bin.split where planned; and the shading's culling.
struct BinPlan {
    bool direct = false;    ///< circles x tiles <= CudaOptions::direct_limit: no binning
    int coarse = 1;         ///< bins of coarse x coarse tiles (1, 2 or 4)
    bool compact = false;   ///< lists by bin.compact
    bool split = false;     ///< bin.split the coarse bins' lists (counted or sorted) into per-tile lists
    bool row_cull = false;  ///< shading culls rows (16x16 tiles, 4 rows a thread)
    bool strips = false;    ///< shading walks per-strip hit masks (16x16 tiles, 4 rows a thread)
    bool count = false;     ///< lists by the counting sort (bin.count/scan/place; then bin.split if `split`)
    bool coalesce = false;  ///< exact early stopping in the shading (tiled, persistent; 16x16 tiles, 4 rows)
};

/// The grid of bins of coarse x coarse tiles of `g`.
TileGrid coarse_grid(const TileGrid& g, int coarse);

/// Mean number of tiles of `g` the bounding boxes of up to 4096 evenly
/// spaced circles of `s` overlap (0 for an empty scene).
double mean_tiles_per_circle(const Scene& s, const TileGrid& g);

/// The mean number of circles covering a pixel of `s`: the summed areas of
/// up to 4096 evenly spaced circles (pi r^2 in normalized units, the image
/// being 1 x 1; circles partly outside count whole), scaled to all of them.
double mean_coverage(const Scene& s);
/// The plan of scene `s` on the tile grid `g` for kernel `kind` under
/// options `o`; `count_tile_limit` is the most bins the counting sort takes
/// on the GPU (count_tile_limit() in kernels/stages.h: 8192 on the H200).
/// The thresholds (kCoarseTiles, kCountTiles, kRowCullTiles in
/// cuda_renderer.h) come from `render bench` on the H200
/// (docs/PERFORMANCE.md). Naive and unordered do not bin: their plan is
/// unused.
/// `bounded`: the scene's colors bound every pixel value (value_bounds'
/// `valid`), which exact early stopping needs; it is planned (Choice::Auto)
/// for tiled and persistent on flat scenes whose pixels are covered by at
/// least kCoalesceDepth circles on average (mean_coverage), and never for a
/// teaching variant or another shape.
BinPlan plan_binning(const Scene& s, const TileGrid& g, KernelKind kind, const CudaOptions& o, int count_tile_limit,
                     bool bounded = true);

/// The path a frame took, as WorkCounts::path says it ("no binning",
/// "bin.compact, 4x4-tile bins", "counting sort, 4x4-tile bins, split",
/// "sorted 1x1-tile bins; strip masks", ...): `binned` false for a frame
/// that did not bin, `counted` false for one the counting sort handed to
/// the sorting stages (more entries than one batch).
std::string describe_path(const BinPlan& plan, bool binned, bool counted);

/// The path plan_binning plans: describe_path of a frame that follows it.
inline std::string planned_path(const BinPlan& plan) { return describe_path(plan, !plan.direct, plan.count); }

}  // namespace cr
