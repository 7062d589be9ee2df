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

/// Runs bin.pack, bin.count, bin.scan, bin.fill, bin.sort and bin.ranges
/// (one batch) on the circles of `scene` for a width x height image and
/// copies the result back. Throws CudaError / NoCudaDeviceError.
BinListing gpu_bin_lists(const Scene& scene, int width, int height, int tile);

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
