// The CUDA renderer's device buffers, grouped by the stage that fills them
// (in the manner of diff-gaussian-rasterization's per-stage state structs):
// each group owns its buffers and sizes them in one call. Binning's buffers
// belong to its stages and paths (kernels/binning.h).
#pragma once

#include <cstdint>

#include "kernels/device_buffer.h"
#include "kernels/stages.h"
#include "render/core/circles.h"

namespace cr {

/// The scene's circles: the SoA animation state (moved by advance), the
/// packed geometry (rebuilt by bin.pack) and the colors. upload() sizes and
/// fills them all from a host scene, asynchronously on `stream`, and waits.
struct CircleBuffers {
    DeviceBuffer<float> x, y, z, vx, vy, vz, radius, r, g, b, aux_x, aux_y;
    DeviceBuffer<float4> geom, color;
    DeviceBuffer<float4> records;  ///< with `records` (upload): 2 float4 a circle (DeviceCircles::rec)
    DeviceBuffer<short4> bin_boxes;  ///< with a box grid (upload): one a circle (DeviceCircles::bin_box)
    TileGrid box_grid{};             ///< the bins bin_boxes are for (upload's box grid; zeros without)
    int64_t count = 0;
    ShadeMode shade = ShadeMode::Flat;
    Motion motion = Motion::None;

    /// `with_records`: also size the circle records (BinPlan::records),
    /// which bin.pack fills; else they are freed. `boxes_for` (bin.compact's
    /// bins): also size the circles' bin boxes for that grid, which
    /// bin.pack fills; null: they are freed.
    void upload(const Scene& s, DeviceMemoryTally* tally, cudaStream_t stream, bool with_records = false,
                const TileGrid* boxes_for = nullptr);
    /// Pointers for the kernels.
    DeviceCircles view() const;
};

/// The persistent kernel's work queue: its tile counter and the tile order
/// (tile ids sorted by load, heaviest first, with the sort's buffers).
struct TileOrderBuffers {
    DeviceBuffer<unsigned int> counter, loads, loads_alt;
    DeviceBuffer<int> ids, ids_alt;
    DeviceBuffer<unsigned char> temp;

    /// Sizes the buffers for `tiles` tiles (at setup): the counter and ids;
    /// the device sort's loads, second buffers and scratch only above
    /// kOrderBlockTiles tiles.
    void reserve(int tiles, DeviceMemoryTally* tally, cudaStream_t stream);

    /// Stage "bin.order": the tile ids of `g` (tile_count of them, reserved
    /// for at least that many), heaviest list first; returns the device
    /// array. One launch (launch_tile_order) on grids of at most
    /// kOrderBlockTiles tiles, else launch_tile_loads and CUB's device
    /// radix sort on the full 32-bit lengths. Throws CudaError;
    /// std::invalid_argument when `g` has more tiles than were reserved.
    const int* heavy_first(const TileLists& lists, const TileGrid& g, cudaStream_t stream);
};

/// The recorded tile order (the early stop's kernels; the persistent kernel
/// without it): each tile's work in the last frame it was shaded (chunks,
/// or the list length without the early stop; StopParams::tile_work) and
/// the order built from it (launch_recorded_order's four groups with the
/// early stop, launch_work_order's sort of the lengths without it).
struct RecordedOrderBuffers {
    DeviceBuffer<unsigned int> work;
    DeviceBuffer<int> order;
    /// A frame has recorded its work since setup (before that the work is
    /// all zero, and the persistent kernel keeps bin.order by list length).
    bool recorded = false;
    /// The order computed beside binning: launched on `side` once the
    /// frame's binning is issued, after `fork` (recorded on the frame's
    /// stream at the end of the frame before, after its shading: `forked`),
    /// done at `join`, which the frame's stream waits for before it reads
    /// `order` (`ahead`: launched and not yet waited for).
    CudaStream side;
    CudaEvent fork{cudaEventDisableTiming}, join{cudaEventDisableTiming};
    bool forked = false;
    bool ahead = false;

    /// Sizes both for `tiles` tiles and zeroes the work (the first frame
    /// after it has nothing recorded: the tiled kernel runs it in tile
    /// order, the persistent one by list length), asynchronously on
    /// `stream`. Throws CudaError.
    void reserve(int tiles, DeviceMemoryTally* tally, cudaStream_t stream);
    /// Frees both (no recorded order planned: plan_recorded_order). The caller
    /// has synchronized `side` first (no order beside binning may still read `work`).
    void release() {
        work.release();
        order.release();
        recorded = false;
        forked = false;
        ahead = false;
    }
};

}  // namespace cr
