// Hooks that run single stages of the CUDA renderer on their own, so the GPU
// tests can compare a stage's output with a host computation (label `gpu`).
#pragma once

#include <cstdint>
#include <vector>

#include "render/core/circles.h"

namespace cr {

/// The bin stage's output for one frame: per-tile runs [start[t], end[t]) of
/// `list` (circle indices, input order within a tile) on a tiles_x x tiles_y
/// grid of tile x tile pixels.
struct BinListing {
    int tiles_x = 0, tiles_y = 0, tile = 0;
    std::vector<unsigned int> start, end;
    std::vector<int> list;
};

/// The binning path gpu_bin_lists runs (the renderer's paths, kernels/bin.cu).
enum class BinPath {
    Sorted,       ///< bin.scan, bin.fill, bin.sort, bin.ranges
    Compact,      ///< bin.compact
    SortedSplit,  ///< the sorted stages on bins of coarse x coarse tiles, then bin.split
    Counted,      ///< the counting sort: bin.count, bin.scan, bin.place (coarse 1)
    CountedSplit, ///< the counting sort on bins of coarse x coarse tiles, then bin.split
};

/// Runs bin.pack and the binning stages of `path` (one batch) on the circles
/// of `scene` for a width x height image, with bins of `coarse` x `coarse`
/// tiles of `tile` pixels, and copies the result back. Sorted and Compact
/// give one run per bin (tiles_x/tiles_y/tile describe the bin grid); for
/// Compact `list` is the whole buffer, of which only the runs are lists.
/// SortedSplit gives one run per tile. Counted and CountedSplit give one run
/// per tile, their chunks chunks_per_sm per multiprocessor, bin.place
/// staged in tile order with `staged_place`. Throws CudaError /
/// NoCudaDeviceError; std::invalid_argument for SortedSplit and
/// CountedSplit with coarse other than 2 or 4, and for Counted with coarse
/// other than 1.
BinListing gpu_bin_lists(const Scene& scene, int width, int height, int tile, int coarse = 1,
                         BinPath path = BinPath::Sorted, int chunks_per_sm = 4, bool staged_place = false);

/// bin.place's lists placed twice by the counting sort (the renderer's
/// CountingStages), as words: with room for every entry (`full`), and,
/// after the list is filled with 0xFF bytes, with room for `cut` entries
/// only (`cut_list`). coarse 1: one word an entry, the circle; coarse 2 or
/// 4: two, the circle and bin.split's tile mask. Both hold the frame's
/// `total` entries' words, so past `cut` the second must still be 0xFF.
struct PlacedTwice {
    unsigned long long total = 0, cut = 0;
    std::vector<unsigned int> full, cut_list;
};

/// Runs bin.count, bin.scan and bin.place twice on the circles of `scene`
/// (width x height, 16-pixel tiles, bins of `coarse` x `coarse` tiles,
/// chunks_per_sm chunks an SM, bin.place staged with `staged`), the second
/// time with room for cut_fraction x the total entries (PlacedTwice).
/// Throws CudaError / NoCudaDeviceError; std::invalid_argument for a coarse
/// other than 1, 2 or 4 or a fraction outside [0, 1].
PlacedTwice gpu_place_twice(const Scene& scene, int width, int height, int coarse, int chunks_per_sm, bool staged,
                            double cut_fraction);

/// Runs stage bin.order (TileOrderBuffers::heavy_first, the renderer's own
/// call) on a tiles_x x tiles_y grid of 16-pixel tiles whose lists have
/// the lengths `loads` (row-major, one per tile) and copies the order back:
/// the tile ids, heaviest first. Throws CudaError / NoCudaDeviceError;
/// std::invalid_argument when tiles_x or tiles_y is not positive or
/// loads.size() != tiles_x * tiles_y.
std::vector<int> gpu_tile_order(const std::vector<unsigned int>& loads, int tiles_x, int tiles_y);

/// Runs the early stop's stage bin.order (launch_recorded_order, the
/// renderer's own call) on the recorded work `work` (chunks a tile) and
/// copies the order back: the tiles above 1.5 x the mean work, above
/// 1.25 x, above the mean, then the rest, each group in tile order. Throws CudaError / NoCudaDeviceError;
/// std::invalid_argument for an empty `work`.
std::vector<int> gpu_recorded_order(const std::vector<unsigned int>& work);
/// Runs the persistent kernel's order from recorded list lengths
/// (launch_work_order, the renderer's own call) on `work` and copies the
/// order back: the tiles by work, heaviest first, equal work (and work
/// above 65535, capped) in tile order. Throws CudaError /
/// NoCudaDeviceError; std::invalid_argument for an empty `work` or more
/// than kOrderBlockTiles tiles.
std::vector<int> gpu_work_order(const std::vector<unsigned int>& work);
/// The most tiles the counting sort (BinPath::Counted) takes on this GPU
/// (count_tile_limit in kernels/stages.h), or with `staged` its staged
/// bin.place (staged_place_tile_limit). Throws CudaError.
int gpu_count_tile_limit(bool staged = false);

/// Runs kernels/block_scan.cuh's block_exclusive_scan in a test kernel:
/// blocks of `threads` (32, 64, 256 or 1024) threads, one value each
/// (values.size() a multiple of threads). Returns each thread's exclusive
/// prefix within its block; block_totals gets each block's sum. `flags`:
/// run block_exclusive_scan_flags instead (values must be 0 or 1, else
/// std::invalid_argument).
std::vector<int> gpu_block_exclusive_scan(const std::vector<int>& values, int threads,
                                          std::vector<int>& block_totals, bool flags = false);

/// Runs the advance stage (kernels/advance.cu, the renderer's own launcher)
/// `steps` times on the circles of `scene`, and copies the moved SoA arrays
/// (x, y, z, vx, vy, vz, radius) back into `scene`. The CPU counterpart is
/// cr::advance_circles.
/// Throws CudaError / NoCudaDeviceError.
void gpu_advance(Scene& scene, int steps);

}  // namespace cr
