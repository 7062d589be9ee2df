// The CUDA renderer's device buffers, grouped by the stage that fills them
// (in the manner of diff-gaussian-rasterization's per-stage state structs):
// each group owns its buffers and sizes them in one call.
#pragma once

#include <cstdint>

#include "kernels/bin_plan.h"  // PairBatch
#include "kernels/device_buffer.h"
#include "kernels/stage_timeline.h"
#include "kernels/stages.h"
#include "render/core/circles.h"

namespace cr {

/// The scene's circles: the SoA animation state (moved by advance), the
/// packed geometry (rebuilt by bin.pack) and the colors. upload() sizes and
/// fills them all from a host scene, asynchronously on `stream`, and waits.
struct CircleBuffers {
    DeviceBuffer<float> x, y, z, vx, vy, vz, radius, r, g, b, aux_x, aux_y;
    DeviceBuffer<float4> geom, color;
    int64_t count = 0;
    ShadeMode shade = ShadeMode::Flat;
    Motion motion = Motion::None;

    void upload(const Scene& s, DeviceMemoryTally* tally, cudaStream_t stream);
    /// Pointers for the kernels.
    DeviceCircles view() const;
};

/// Binning's buffers. Per circle: the exclusive scan of its bin counts
/// (offsets). Per pair of one batch: bin-id keys (with bin.split's tile
/// masks above the id when a split follows) and circle-index values,
/// each double-buffered for the radix sort. Per tile: the [start, end) run of
/// its pairs. Plus CUB's scratch and the device-side pair total.
struct BinBuffers {
    DeviceBuffer<unsigned long long> offsets, total;
    DeviceBuffer<unsigned int> keys, keys_alt, tile_start, tile_end;
    DeviceBuffer<int> values, values_alt;
    DeviceBuffer<int> split_lists;                     ///< bin.split: one list per tile
    DeviceBuffer<unsigned int> split_start, split_end;  ///< bin.split: each tile's run
    DeviceBuffer<unsigned char> temp;
    /// The counting sort (kernels/bin_count.cu): the chunks x tiles matrix of
    /// counts, its prefix over the chunks, each tile's total, each
    /// chunk's entries and each circle's tile range.
    DeviceBuffer<unsigned int> chunk_counts, chunk_prefix, tile_totals;
    DeviceBuffer<unsigned long long> chunk_entries;
    DeviceBuffer<uint2> circle_ranges;  ///< each circle's tile range, from bin.count to bin.place
    DeviceBuffer<uint2> placed_pairs;   ///< bin.place's (circle, tile mask) entries of bins to split
    CountChunks chunks;

    /// Sizes the per-circle and per-tile buffers and the scan's scratch (at setup).
    void reserve_scene(int64_t circles, int tiles, DeviceMemoryTally* tally, cudaStream_t stream);

    /// Stage bin.scan over every circle of `c` (packed by bin.pack): the
    /// exclusive scan of each circle's bin count (computed as it is read,
    /// BinsOfCircle) into `offsets`, then the pair total into `total` (on
    /// the device), queued on `stream`; marked on `timeline` when given.
    /// The renderer and the GPU tests bin through this one path.
    void count_and_scan(const DeviceCircles& c, const TileGrid& g, cudaStream_t stream, StageTimeline* timeline);

    /// Sizes the pair buffers for `batch`, then stages bin.fill (with
    /// bin_prepare), bin.sort (stable, by bin id) and bin.ranges
    /// (tile_start/tile_end) of it, queued on `stream` after count_and_scan.
    /// `split_coarse` (2 or 4, or 0): split() follows on these bins of
    /// split_coarse x split_coarse tiles, so the keys carry its tile masks.
    /// Returns the circle indices sorted by bin, input order within a bin
    /// (device; valid until the next call); sorted_keys points at the keys.
    const int* fill_sort_ranges(const DeviceCircles& c, const TileGrid& g, const PairBatch& batch, bool fill_per_thread,
                                int split_coarse, DeviceMemoryTally* tally, cudaStream_t stream, StageTimeline* timeline);

    /// The counting sort's buffers for `circles` circles on `tiles` tiles (at
    /// most kMaxCountTiles), chunks_per_sm chunks per multiprocessor (at
    /// setup). `split_coarse` > 1: the tiles are bins of split_coarse x
    /// split_coarse tiles that bin.split splits after place() (count_chunks).
    void reserve_counting(int64_t circles, int tiles, int chunks_per_sm, int split_coarse, DeviceMemoryTally* tally,
                          cudaStream_t stream);

    /// Stages bin.count and bin.scan (of the chunks x tiles matrix) of the
    /// counting sort on the tiles of `g`, queued on `stream`; `total_now`:
    /// also the pair total into `total` (else bin.place writes it). Needs
    /// reserve_counting.
    void count_tiles(const DeviceCircles& c, const TileGrid& g, bool total_now, cudaStream_t stream,
                     StageTimeline* timeline);

    /// Stage bin.place after count_tiles: sizes the list for `capacity`
    /// entries, writes tile_start/tile_end and the pair total, and every
    /// tile's circles, in input order, to its run [tile_start, tile_end). Entries past the capacity are dropped (the
    /// frame's total then exceeds it: TileLists::overflowed). Returns the
    /// list (device; valid until the next call). When reserve_counting took
    /// bins to split, the entries go to placed_pairs (circle and tile mask)
    /// for split(), which must follow, and the return is null.
    const int* place(const DeviceCircles& c, const TileGrid& g, unsigned long long capacity, DeviceMemoryTally* tally,
                     cudaStream_t stream, StageTimeline* timeline);

    /// The sorted keys of the last fill_sort_ranges (device; null after
    /// place()), and the bins' side in tiles that split() may split: the
    /// split_coarse the keys were filled with, or reserve_counting's.
    const unsigned int* sorted_keys = nullptr;
    int splittable_coarse = 0;

    /// Stage bin.compact instead of all of the above, for scenes where
    /// circles x bins is small: sizes the lists (bins x circles ints) and
    /// lists every bin's circles in input order in one kernel, with no wait
    /// on the host. Returns the lists (device; valid until the next call).
    const int* compact(const DeviceCircles& c, const TileGrid& g, DeviceMemoryTally* tally, cudaStream_t stream,
                       StageTimeline* timeline);

    /// Stage bin.split after fill_sort_ranges (with split_coarse =
    /// bins.coarse, 2 or 4) or place() (reserve_counting with that
    /// split_coarse) holding at most `entries` list entries: sizes its
    /// buffers and splits every bin's list into its tiles' lists, in input
    /// order, from the tile masks in sorted_keys or in placed_pairs.
    /// Returns the per-tile lists of the grid `tiles` (coarse 1; the
    /// overflow check of `bins` carried over). Throws std::logic_error when
    /// the last binning was not for bins of bins.coarse tiles to split.
    TileLists split(const TileGrid& tiles, const TileLists& bins, uint64_t entries, DeviceMemoryTally* tally,
                    cudaStream_t stream, StageTimeline* timeline);

private:
    /// Sizes the per-pair buffers and the sort scratch for `pairs` pairs
    /// sorted on `key_bits` bits (each batch, once its pair count is known).
    void reserve_pairs(uint64_t pairs, int key_bits, DeviceMemoryTally* tally, cudaStream_t stream);
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

}  // namespace cr
