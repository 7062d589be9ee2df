// How the CUDA renderer bins and shades a scene, decided once at setup from
// the circles and the options: pure host code (no CUDA header), so the CPU
// tests check every scene's path (docs/KERNELS.md, the table of paths) on a
// machine without a GPU, and the renderer (kernels/cuda_renderer.cu) only
// carries the plan out.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

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
    /// With `coalesce`: the guessed start (CudaOptions::guess_start), whose
    /// window is `window_per_candidate` x a list's length candidates
    /// (CudaOptions::guess_hits / mean_coverage; 0 without it).
    bool guess = false;
    double window_per_candidate = 0;
    /// The quad layout of the shading's pixels (CudaOptions::quad_layout;
    /// exact kernels without culling and without the early stop).
    bool quads = false;
    /// Snow's division by the radius from its reciprocal
    /// (CudaOptions::snow_reciprocal; exact kernels on snow scenes, without
    /// the early stop).
    bool snow_reciprocal = false;
    /// The exact kernels gather flat circles from their 32-byte records
    /// (CudaOptions::circle_records).
    bool records = false;
    /// The counting sort's bin.place stages its entries in tile order
    /// (CudaOptions::staged_place; with `count`).
    bool staged_place = false;
};

/// The template bits of every 16x16, 4-row shading kernel that
/// kernels/shade_tiled.cu compiles, and so the only values
/// shade_kernel_bits returns: no culling, strip masks or row culling, each
/// alone, with the early stop, or with the early stop's guessed start; the
/// quad layout (no culling, no early stop); snow's reciprocal division with
/// any of the four that do not stop early; circle records (flat scenes)
/// with any of the ten before the reciprocal.
inline constexpr int kShadeKernelBits[] = {
    0,
    kShadeStripMask,
    kShadeRowCull,
    kShadeQuads,
    kShadeCoalesce,
    kShadeCoalesce | kShadeStripMask,
    kShadeCoalesce | kShadeRowCull,
    kShadeCoalesce | kShadeGuess,
    kShadeCoalesce | kShadeGuess | kShadeStripMask,
    kShadeCoalesce | kShadeGuess | kShadeRowCull,
    kShadeSnowReciprocal,
    kShadeSnowReciprocal | kShadeStripMask,
    kShadeSnowReciprocal | kShadeRowCull,
    kShadeSnowReciprocal | kShadeQuads,
    // circle records (flat scenes only): with each of the ten flat ones above
    kShadeRecords,
    kShadeRecords | kShadeStripMask,
    kShadeRecords | kShadeRowCull,
    kShadeRecords | kShadeQuads,
    kShadeRecords | kShadeCoalesce,
    kShadeRecords | kShadeCoalesce | kShadeStripMask,
    kShadeRecords | kShadeCoalesce | kShadeRowCull,
    kShadeRecords | kShadeCoalesce | kShadeGuess,
    kShadeRecords | kShadeCoalesce | kShadeGuess | kShadeStripMask,
    kShadeRecords | kShadeCoalesce | kShadeGuess | kShadeRowCull,
};

/// The template bits of the 16x16, 4-row kernel launch_shade_tiled runs
/// (and the persistent kernel's occupancy query asks about) for the bits
/// `variant` of a launch (the plan's kShadeRowCull, kShadeStripMask,
/// kShadeCoalesce, kShadeGuess, kShadeQuads, kShadeSnowReciprocal; the
/// teaching variants' bits are ignored: they are launched apart): strip
/// masks win over row culling; the guessed start only with the early stop;
/// the quad layout only without culling and without the early stop; the
/// reciprocal only on snow (`snow`) and without the early stop; records
/// only on flat scenes. Always one of kShadeKernelBits.
int shade_kernel_bits(int variant, bool snow);

/// The plan's culling bits (kShadeStripMask or kShadeRowCull) of a shading
/// launch over binned lists (tiled, persistent and ftb; none over unbinned
/// ones).
int plan_cull_bits(const BinPlan& plan);

/// The plan's bits of a launch of the tiled and persistent shading
/// (launch_shade_tiled; `binned`: its lists come from binning): the culling
/// (binned lists only), kShadeCoalesce with kShadeGuess, kShadeQuads,
/// kShadeSnowReciprocal and kShadeRecords. The launch adds the teaching
/// variant; shade_kernel_bits keeps what the kernel takes.
int plan_shade_bits(const BinPlan& plan, bool binned);

/// Whether kernel `kind` under `plan` hands its tiles out in the recorded
/// order (the tiles by their work in the frame before, longest first,
/// launch_recorded_order) under CudaOptions::order `order`; never with Off.
/// The persistent kernel takes it with Auto and On on every plan: with the
/// early stop the work is the chunks each tile walked, without it each
/// tile's list length (the load bin.order sorted by in the same frame
/// before, a stage on the frame's stream; the recorded one runs beside
/// binning). The tiled kernel only with the early stop (plan.coalesce;
/// without it the order is compiled out): with On, and with Auto on the
/// counting sort's lists (plan.count), where it measured faster (H100,
/// 2026-12-05: rand1M -8%, rand100k -3%), while on bin.compact's lists it
/// made littlebig 7% slower (docs/PERFORMANCE.md); the sorted bins and the
/// unbinned path were not measured with it (a counted plan's frame that
/// falls back to the sorting stages, more pairs than a batch, keeps it:
/// the order only schedules). Other kernels: never.
bool plan_recorded_order(const BinPlan& plan, KernelKind kind, Choice order);

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
/// `staged_tile_limit`: the most bins bin.place takes staged
/// (staged_place_tile_limit(); below count_tile_limit on GPUs that give a
/// block less shared memory); past it place=staged is ignored and the path
/// says so.
BinPlan plan_binning(const Scene& s, const TileGrid& g, KernelKind kind, const CudaOptions& o, int count_tile_limit,
                     bool bounded = true, int staged_tile_limit = INT_MAX);

/// The path a frame took, as WorkCounts::path says it ("no binning",
/// "bin.compact, 4x4-tile bins", "counting sort, 4x4-tile bins, split",
/// "sorted 1x1-tile bins; strip masks", ...): `binned` false for a frame
/// that did not bin, `counted` false for one the counting sort handed to
/// the sorting stages (more entries than one batch).
std::string describe_path(const BinPlan& plan, bool binned, bool counted);

/// The early stop's recorded order on the host, as launch_recorded_order
/// computes it on the GPU: the tile ids by work_group of their recorded
/// work `work` (chunks a tile), group 0 first, each group in tile order.
/// The GPU tests' reference; an empty `work` gives an empty order.
std::vector<int> recorded_order_groups(const std::vector<unsigned int>& work);

/// The path plan_binning plans: describe_path of a frame that follows it.
inline std::string planned_path(const BinPlan& plan) { return describe_path(plan, !plan.direct, plan.count); }

/// A batch of circles [begin, end) whose pairs sit at [base, base + pairs)
/// of the full frame's scanned offsets. A speculative batch (all circles,
/// base 0) has room for `pairs` pairs while the frame's true total is known
/// only on the device (SortedStages::total, kernels/binning.h;
/// kernels/bin.cu, "Speculative capacity"); `tail_hint` is how many slots
/// it expects to leave unused.
struct PairBatch {
    int64_t begin, end;
    unsigned long long base, pairs;
    bool speculative = false;
    unsigned long long tail_hint = 0;
};

/// Most pairs the sorting stages (or the counting sort) bin at once:
/// `max_pairs_per_batch` (CudaOptions), divided by the tiles of a bin when
/// bin.split follows (its per-tile lists take that many entries a pair),
/// so the split's buffer stays as large as one batch of single-tile pairs;
/// at least 1.
unsigned long long pair_batch_limit(const BinPlan& plan, long long max_pairs_per_batch);

/// Cuts a frame of `pairs` pairs into batches of circles, in input order, of
/// at most `cap` pairs each (a single circle with more than `cap` is a batch
/// of its own). `offsets`: each circle's first pair (the exclusive scan of
/// its pair counts, one entry a circle). One batch of every circle when the
/// frame fits.
std::vector<PairBatch> cut_pair_batches(const std::vector<unsigned long long>& offsets, unsigned long long pairs,
                                        unsigned long long cap);

/// The speculative capacity of binning from frame to frame (kernels/bin.cu,
/// "Speculative capacity"): a frame is binned with room for its predecessor's
/// pair total plus slack, with no host wait inside it, and binned again in
/// the rare frame that had more. Pure host arithmetic: the renderer reports
/// each frame's true total, this says the next frame's capacity.
class PairSpeculation {
public:
    /// Forgets the frames before (a new setup); `batch_limit`: the most
    /// pairs one pass bins (pair_batch_limit).
    void reset(Speculation mode, unsigned long long batch_limit) {
        *this = PairSpeculation{};
        mode_ = mode;
        batch_limit_ = batch_limit;
    }
    /// Records a frame's true total and sizes the next frame's capacity: the
    /// total, plus twice its growth since the frame before (so steadily
    /// growing scenes still fit), plus 1/64 and 1024 pairs of slack
    /// (Speculation::Tight: the total alone). None (0) when that passes the
    /// batch limit (the frame needs batches) or the mode is Off.
    void note_total(unsigned long long pairs);
    /// A speculative frame outgrew capacity() and was binned again.
    void missed() { ++misses_; }
    /// The next frame's capacity in pairs; 0: no speculation (it waits for its total).
    unsigned long long capacity() const { return capacity_; }
    /// The last frame's true total (0 before the first).
    unsigned long long last_total() const { return last_total_; }
    /// Frames binned twice since reset().
    long long misses() const { return misses_; }

private:
    Speculation mode_ = Speculation::Slack;
    unsigned long long batch_limit_ = 1;
    unsigned long long capacity_ = 0, last_total_ = 0;
    long long misses_ = 0;
};

}  // namespace cr
