// Binning, as objects: the stages that list circles per tile (or per bin of
// coarse x coarse tiles), each owning its device buffers, and the binning
// paths built from them. A path owns its stages and its speculation and
// hands the renderer per-tile lists, one shading pass at a time:
//
//     ShadePass pass = path.first_pass(c);      // bin (may wait for the pair total)
//     do shade(pass); while (path.next_pass(c, pass));   // batches, or a redo
//
// so kernels/cuda_renderer.cu reads pack -> bin -> shade and knows nothing of
// a path's buffers. Which path a scene takes is plan_binning's choice
// (kernels/bin_plan.h, tested on the CPU); make_binning_path builds it.
// The kernels the stages launch are in kernels/bin.cu and bin_count.cu.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/bin_plan.h"
#include "kernels/device_buffer.h"
#include "kernels/stage_timeline.h"
#include "kernels/stages.h"

namespace cr {

/// What every binning stage needs from the renderer: its stream, the
/// frame's timeline (null: not timed, as in the GPU tests) and the memory
/// tally its buffers count in. Not owned.
struct BinContext {
    cudaStream_t stream = nullptr;
    StageTimeline* timeline = nullptr;
    DeviceMemoryTally* tally = nullptr;
};

/// The per-bin lists one stage leaves, and what bin.split needs to split
/// them: the tile masks, either in the sorted keys (`keys`, the sorting
/// stages) or in bin.place's (circle, mask) pairs (`pairs`, the counting
/// sort); both null when the bins were not filled for a split.
struct BinnedLists {
    TileLists lists;
    const unsigned int* keys = nullptr;
    const uint2* pairs = nullptr;
    int mask_coarse = 0;  ///< the bins' side in tiles the masks were made for (0: no masks)
};

/// The sorting stages: bin.scan (each circle's bin count, exclusive scan
/// into offsets, the pair total on the device), then per batch bin.fill,
/// bin.sort (CUB's stable radix sort by bin id) and bin.ranges.
class SortedStages {
public:
    /// Sizes the per-circle offsets, the per-bin runs and the scan's
    /// scratch for `circles` circles on `bins` bins.
    void reserve(int64_t circles, int bins, const BinContext& ctx);
    /// Stage bin.scan over every circle of `c` (packed by bin.pack) on the
    /// bins of `g`, queued on ctx.stream.
    void scan(const DeviceCircles& c, const TileGrid& g, const BinContext& ctx);
    /// Stages bin.fill, bin.sort and bin.ranges of `batch` after scan():
    /// sizes the pair buffers, and returns the circles of each bin in input
    /// order (device; valid until the next call) with their runs.
    /// `split_coarse` (2 or 4, or 0): bin.split follows on bins of that many
    /// tiles a side, so the keys carry its tile masks.
    BinnedLists fill_sort_ranges(const DeviceCircles& c, const TileGrid& g, const PairBatch& batch,
                                 bool fill_per_thread, int split_coarse, const BinContext& ctx);
    /// The frame's pair total, on the device (written by scan()).
    const unsigned long long* total() const { return total_.get(); }
    /// Each circle's first pair (scan()'s exclusive scan), on the device.
    const unsigned long long* offsets() const { return offsets_.get(); }
    /// The per-bin runs of the last fill_sort_ranges.
    const DeviceBuffer<unsigned int>& bin_start() const { return start_; }
    const DeviceBuffer<unsigned int>& bin_end() const { return end_; }

private:
    void reserve_pairs(uint64_t pairs, int key_bits, const BinContext& ctx);
    DeviceBuffer<unsigned long long> offsets_, total_;
    DeviceBuffer<unsigned int> keys_, keys_alt_, start_, end_;
    DeviceBuffer<int> values_, values_alt_;
    DeviceBuffer<unsigned char> temp_;
};

/// The counting sort (kernels/bin_count.cu): bin.count (each chunk of
/// circles' count per bin), bin.scan (the prefix over the chunks) and
/// bin.place (every bin's circles in input order, no sort).
class CountingStages {
public:
    /// Sizes its buffers for `circles` circles on `bins` bins (at most
    /// count_tile_limit()), chunks_per_sm chunks per multiprocessor;
    /// `split_coarse` > 1: the bins are split_coarse x split_coarse tiles
    /// that bin.split splits after place(); `staged`: bin.place stages its
    /// entries in tile order (count_chunks).
    void reserve(int64_t circles, int bins, int chunks_per_sm, int split_coarse, bool staged, const BinContext& ctx);
    /// Stages bin.count and bin.scan on the bins of `g`; `total_now`: also
    /// the pair total (else place() writes it).
    void count(const DeviceCircles& c, const TileGrid& g, bool total_now, const BinContext& ctx);
    /// Stage bin.place with room for `capacity` entries (entries past it are
    /// dropped; the frame's total then exceeds it: TileLists::overflowed).
    /// With bins to split, the lists are bin.place's (circle, mask) pairs and
    /// `lists.list` is null.
    BinnedLists place(const DeviceCircles& c, const TileGrid& g, unsigned long long capacity, const BinContext& ctx);
    const unsigned long long* total() const { return total_.get(); }
    const DeviceBuffer<unsigned int>& bin_start() const { return start_; }
    const DeviceBuffer<unsigned int>& bin_end() const { return end_; }

private:
    CountChunks chunks_;
    DeviceBuffer<unsigned int> counts_, prefix_, bin_totals_, start_, end_;
    DeviceBuffer<unsigned long long> chunk_entries_, total_;
    DeviceBuffer<uint2> circle_ranges_, placed_pairs_;
    DeviceBuffer<int> list_;
};

/// bin.compact: one block a bin lists its circles in input order, with no
/// sort and no host wait (scenes where circles x bins is small).
class CompactStage {
public:
    /// Sizes the per-bin runs for `bins` bins.
    void reserve(int bins, const BinContext& ctx);
    /// Stage bin.compact: sizes the lists (bins x circles ints) and fills them.
    TileLists compact(const DeviceCircles& c, const TileGrid& g, const BinContext& ctx);
    const DeviceBuffer<unsigned int>& bin_start() const { return start_; }
    const DeviceBuffer<unsigned int>& bin_end() const { return end_; }

private:
    DeviceBuffer<int> lists_;
    DeviceBuffer<unsigned int> start_, end_;
};

/// bin.split (two-level binning's second level): the lists of bins of 2x2
/// or 4x4 tiles into one list per tile, in input order.
class SplitStage {
public:
    /// Splits `bins` (bins of bins.lists.coarse tiles, holding at most
    /// `entries` entries; keys or pairs set) into per-tile lists of the grid
    /// `tiles` (coarse 1; the overflow check carried over). Throws
    /// std::logic_error when `bins` carries no tile masks for bins of
    /// lists.coarse tiles (none, masks made for another bin size, or single
    /// tiles), and std::invalid_argument for bins other than 2x2 or 4x4
    /// (launch_bin_split) or past 2^32 entries.
    TileLists split(const TileGrid& tiles, const BinnedLists& bins, uint64_t entries, const BinContext& ctx);
    const DeviceBuffer<unsigned int>& tile_start() const { return start_; }
    const DeviceBuffer<unsigned int>& tile_end() const { return end_; }

private:
    DeviceBuffer<int> lists_;
    DeviceBuffer<unsigned int> start_, end_;
};

/// One shading pass over per-tile lists. `first`/`last`: ftb's batches of
/// a frame (front to back); `speculative`: binned with room for the last
/// frame's total plus slack (lists.total/capacity set: the shading skips the
/// frame on the device when it had more), confirmed by next_pass().
struct ShadePass {
    TileLists lists{nullptr, nullptr, nullptr, 0};
    bool first = true;
    bool last = true;
    bool speculative = false;
};

/// A binning path: it owns its stages' buffers and its speculation, and
/// hands the renderer each frame's lists as shading passes.
class BinningPath {
public:
    virtual ~BinningPath() = default;
    /// Bins the frame of `c` (packed by bin.pack) and returns its first
    /// pass. Throws CudaError, DeviceOutOfMemory.
    virtual ShadePass first_pass(const DeviceCircles& c) = 0;
    /// After `pass` was shaded: true with the frame's next pass in `pass`
    /// (its next batch, or a redo of a speculative pass that had too little
    /// room, which the shading skipped), false when the frame is done.
    virtual bool next_pass(const DeviceCircles& c, ShadePass& pass) = 0;
    /// Circle-tile pairs (list entries) of the last frame: per bin (may
    /// wait for the stream).
    virtual long long pairs() = 0;
    /// The last frame's path, as WorkCounts::path says it (describe_path).
    virtual std::string path() const = 0;
    /// The last frame listed circles per bin (false: every tile scans every circle).
    virtual bool binned() const { return true; }
    /// Frames binned twice since setup (speculation that had too little room).
    virtual long long redos() const { return 0; }
    /// Each tile's list length in the last frame (one per tile of the
    /// shading grid). The caller waits for the stream first.
    virtual void tile_loads(const DeviceCircles& c, std::vector<int>& loads) = 0;
};

/// What the paths are built from: the plan, the shading's tile grid and
/// the binning grid (bins of plan.coarse tiles), the options that act on
/// binning, and whether ftb shades batches front to back.
struct BinningSetup {
    BinPlan plan;
    TileGrid tiles;
    TileGrid bins;
    int64_t circles = 0;
    long long max_pairs_per_batch = 0;
    Speculation speculation = Speculation::Slack;
    bool fill_per_thread = false;
    int count_chunks_per_sm = 4;
    bool staged_place = false;
    bool front_to_back = false;
};

/// The path plan_binning chose: no binning (every tile scans every circle),
/// bin.compact, the counting sort (falling back to the sorting stages in
/// batches for a frame larger than one batch) or the sorting stages, each
/// followed by bin.split where planned. Reserves its buffers (setup time).
std::unique_ptr<BinningPath> make_binning_path(const BinningSetup& setup, const BinContext& ctx);

}  // namespace cr
