// The multi-core CPU renderer (`--renderer cpu`): see render/cpu_parallel.cpp.
//
// Threads come from OpenMP (all hardware threads by default; OMP_NUM_THREADS
// limits them). Images are bit-identical to cpuref's.
#pragma once

#include <cstdint>
#include <vector>

#include "render/cpu/cpu_stages.h"

namespace cr {

/// Tiled CPU renderer on all hardware threads: circles are binned to
/// kTile x kTile pixel tiles (lists in input order), then every tile is
/// shaded by one thread in a tile-local SoA buffer.
class CpuParallelRenderer final : public CpuRendererBase {
public:
    /// Tile edge in pixels.
    static constexpr int kTile = 32;
    /// Circles binned and shaded per pass by default (bounds the tile-list memory).
    static constexpr int64_t kBatch = int64_t(1) << 20;

    std::string name() const override { return "cpu"; }
    WorkCounts work() override { return work_; }
    TileLoads tile_loads() override;
    /// Sets the circles per bin-and-shade pass (>= 1; tests use small ones).
    void set_batch(int64_t circles) { batch_ = circles < 1 ? 1 : circles; }
    /// Most circle-tile pairs binned at once (default 2^26); more start a new
    /// batch (for tests; bounds memory for huge circles on huge images).
    void set_max_pairs(int64_t pairs) { max_pairs_ = pairs < 1 ? 1 : pairs; }

protected:
    void render_frame() override;
    void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn) override;

private:
    /// End of the batch of circles that starts at `begin` (see batch_end in the .cpp).
    int64_t batch_end(int64_t begin) const;
    /// Bins circles [begin, end) into list_ / tile_begin_ (input order per tile).
    void bin(int64_t begin, int64_t end);
    /// Shades every non-empty tile with its list from the last bin().
    void shade();

    std::vector<int64_t> chunk_counts_;  ///< [chunk * tiles + tile]: pairs per chunk and tile
    std::vector<int64_t> tile_begin_;    ///< tiles + 1 offsets into list_
    std::vector<uint32_t> list_;         ///< circle indices, grouped by tile
    std::vector<int> loads_;             ///< circles per tile over the whole frame
    WorkCounts work_;
    int64_t batch_ = kBatch;
    int64_t max_pairs_ = int64_t(1) << 26;
    int tiles_x_ = 0, tiles_y_ = 0;
};

}  // namespace cr
