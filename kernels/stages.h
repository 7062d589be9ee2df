// Launchers of the frame stages, one .cu file each in frame order (clear,
// advance, bin, shade_*, present), called by the CudaRenderer in
// kernels/cuda_renderer.cu. All take the renderer's stream and check the
// launch (kernels/cuda_check.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/bin_plan.h"
#include "render/core/coalesce.h"
#include "render/core/tile_math.h"
#include "render/core/shading.h"
#include "scenes/animation.h"

namespace cr {

/// The circles on the device: SoA arrays (animation state) plus the packed
/// per-circle records the shading kernels read: geom = (x, y, r, z) rebuilt
/// each frame by the bin.pack stage, color = (r, g, b, 0) uploaded once.
struct DeviceCircles {
    CircleArrays soa;
    float4* geom;
    const float4* color;
    int64_t count;
    ShadeMode shade;
    /// With circle records (kShadeRecords): circle i's geometry and color
    /// side by side, rec[2i] = geom[i] and rec[2i + 1] = color[i], 32 bytes
    /// aligned to 32 (one DRAM sector), refilled by bin.pack. Null otherwise.
    float4* rec = nullptr;
    /// For bin.compact: circle i's pixel box as the bins of `box_grid` it
    /// overlaps, bin_box[i] = (x0, x1, y0, y1), the half-open ranges
    /// [x0, x1) x [y0, y1) of tiles_of_box (0, 0, 0, 0 for an empty box;
    /// bins of an image of at most 16384 pixels a side fit 16 bits),
    /// refilled by bin.pack. Computed once a pack instead of once a bin
    /// (every bin's block tests every circle). Null otherwise.
    short4* bin_box = nullptr;
    TileGrid box_grid{};  ///< the bins of bin_box (zeros without)
};

/// clear.cu: fills the W x H float4 image with the scene's background.
void launch_clear(float4* image, int width, int height, ShadeMode shade, cudaStream_t s);

/// advance.cu: one animation step per circle (thread per circle).
void launch_advance(CircleArrays c, int motion, cudaStream_t s);
/// Whether launch_advance queues any GPU work: a moving scene (`motion`,
/// Motion's value, not 0) with circles.
inline bool advance_queues_work(const CircleArrays& c, int motion) { return motion != 0 && c.count > 0; }

/// bin.cu, stage "bin.pack": packs geom = (x, y, r, z) of every circle from
/// the SoA arrays (which the advance stage just moved), with records
/// (c.rec) writes each circle's geometry and color into its record, and
/// with bin boxes (c.bin_box) each circle's bins of c.box_grid.
void launch_pack_geometry(const DeviceCircles& c, cudaStream_t s);
/// The number of bins (tiles of `g`) the bounding box of circle i overlaps:
/// the conservative test of binning (its count, as an input iterator of
/// stage bin.scan, and bin.fill's pairs). Reads the packed geom; device only.
struct BinsOfCircle {
    const float4* geom;
    TileGrid g;
#ifdef __CUDACC__
    __device__ unsigned long long operator()(int64_t i) const {
        const float4 geo = geom[i];
        return static_cast<unsigned long long>(
            tiles_of_box(circle_pixel_box(geo.x, geo.y, geo.z, g.width, g.height), g.tile).count());
    }
#endif
};
// bin.split's mask layout in the pair keys (kSplitMaskShift, kSplitBinIds): kernels/bin_plan.h.

/// The tiles of bin (bx, by) of coarse x coarse tiles that the tile range
/// `fine` overlaps, as a mask: bit j for the bin's tile j (row-major inside
/// the bin); the range's columns inside the bin as one row of bits,
/// repeated for each of its rows inside the bin.
__device__ __forceinline__ unsigned int tiles_in_bin(const TileRange& fine, int bx, int by, int coarse) {
    const int cx0 = max(fine.tx0 - bx * coarse, 0), cx1 = min(fine.tx1 - bx * coarse, coarse);
    const int cy0 = max(fine.ty0 - by * coarse, 0), cy1 = min(fine.ty1 - by * coarse, coarse);
    if (cx0 >= cx1 || cy0 >= cy1) return 0;
    const unsigned int row = ((1u << (cx1 - cx0)) - 1u) << cx0;
    unsigned int m = 0;
    for (int y = cy0; y < cy1; ++y) m |= row << (y * coarse);
    return m;
}

/// A pair's key: the bin id (bx, by) of the bin grid g, plus, when
/// `split_coarse` > 0 (bin.split follows), the mask of the bin's tiles the
/// circle's tile range `fine` overlaps in bits kSplitMaskShift.. (the sort
/// looks only at the bin id's bits; bin.split reads the mask).
__device__ __forceinline__ unsigned int pair_key(int bx, int by, const TileGrid& g, const TileRange& fine,
                                                 int split_coarse) {
    const unsigned int key = static_cast<unsigned int>(by * g.tiles_x + bx);
    return split_coarse > 0 ? key | tiles_in_bin(fine, bx, by, split_coarse) << kSplitMaskShift : key;
}

/// A tile range in 8 bytes, as bin.count leaves it for bin.place: every
/// bound below 2^16 (a grid of at most kMaxCountTiles bins has at most 8192
/// of them, so 4 x 8192 fine tiles, a side).
__device__ __forceinline__ uint2 pack_range(const TileRange& r) {
    return make_uint2(unsigned(r.tx0) | unsigned(r.tx1) << 16, unsigned(r.ty0) | unsigned(r.ty1) << 16);
}
__device__ __forceinline__ TileRange unpack_range(uint2 p) {
    return TileRange{int(p.x & 0xffffu), int(p.x >> 16), int(p.y & 0xffffu), int(p.y >> 16)};
}

/// One launch of stage "bin.fill": writes (bin id, circle index) pairs of
/// circles [begin, end) at positions offsets[i] - base (offsets indexed by
/// circle), only those below `limit` (the pair buffers' capacity). The bins
/// are the tiles of `g`. `split_coarse` (2 or 4; 0 = none): bin.split will
/// split these bins of split_coarse x split_coarse tiles, so each key also
/// gets the mask of the bin's tiles the circle's box overlaps
/// (kSplitMaskShift). `per_thread` selects the earlier
/// one-thread-per-circle fill (each lane writes its own circle's pairs:
/// uncoalesced stores), kept for teaching.
struct FillLaunch {
    DeviceCircles c;
    int64_t begin = 0, end = 0;
    TileGrid g{};
    const unsigned long long* offsets = nullptr;
    unsigned long long base = 0, limit = 0;
    int split_coarse = 0;
    unsigned int* keys = nullptr;
    int* values = nullptr;
    bool per_thread = false;
};

/// Stage "bin.fill" of `l`; std::invalid_argument for split masks of more
/// than 16 tiles (split_coarse above 4) or past kSplitBinIds bins.
void launch_bin_fill(const FillLaunch& l, cudaStream_t s);
/// Part of stage "bin.fill" for speculative batches: writes the largest key
/// and circle 0 into pair slots [*total, capacity) of keys/values (`total`
/// on the device; `tail_hint`, the expected number of such slots, only sizes
/// the grid).
void launch_bin_prepare(const unsigned long long* total, unsigned long long capacity, unsigned long long tail_hint,
                        unsigned int* keys, int* values, cudaStream_t s);
/// Stage "bin.ranges": tile_start/tile_end of each of `tiles` tiles in the
/// sorted keys[0, pairs) (padding keys, 0xffffffff, may end them; tiles with
/// no pairs get start == end). `split_masks`: the keys carry bin.split's
/// masks above the bin id (launch_bin_fill's split_coarse).
void launch_bin_ranges(const unsigned int* sorted_keys, unsigned long long pairs, int tiles, bool split_masks,
                       unsigned int* tile_start, unsigned int* tile_end, cudaStream_t s);

/// Binning by a stable counting sort (kernels/bin_count.cu; bins of one
/// tile, or of 2x2 or 4x4 tiles before bin.split): threads a block of
/// bin.place (bin.count's blocks have twice as many, bin_count.cu's
/// kCountBlock), and the most tiles (bins) it takes on any GPU
/// (bin.place holds 12 bytes a tile in shared memory;
/// count_tile_limit gives the current device's limit, lower where a block
/// may opt into less shared memory: ~4000 tiles on sm_75, ~7000 on sm_86
/// and sm_89).
constexpr int kCountThreads = 256;
constexpr int kMaxCountTiles = 8192;

/// The most tiles (or bins) the counting sort takes on the current device:
/// at most kMaxCountTiles, and what bin.place's shared memory (its static
/// arrays plus 12 bytes a tile) leaves of the device's opt-in limit a block.
int count_tile_limit();

/// The most tiles (or bins) bin.place takes staged (CR_CUDA_OPTIONS
/// place=staged): 4 bytes more a tile and 32 KiB more a block than
/// count_tile_limit's, so 8192 on the H100 and H200, fewer elsewhere (about
/// 7350 on the A100, 3250 on sm_86 and sm_89).
int staged_place_tile_limit();

/// The counting sort's chunks: `chunks` blocks, each taking `per_chunk`
/// consecutive circles (the last fewer), for grids of at most `tiles` tiles.
struct CountChunks {
    int chunks = 0;
    int64_t per_chunk = 0;
    int tiles = 0;
    int split_shift = 0;  ///< log2 of the bins' side in tiles when bin.split follows (0: single tiles)
    bool staged = false;  ///< bin.place stages each round's entries in tile order (CR_CUDA_OPTIONS place=staged)
};

/// Chunks for `circles` circles on `tiles` tiles: chunks_per_sm per
/// multiprocessor of the current device, at most one per bin.place round
/// (4 x kCountThreads circles). `tiles` are bins of split_coarse x
/// split_coarse tiles (1, 2 or 4) when bin.split follows: bin.count then
/// keeps each circle's fine range and bin.place writes (circle, tile mask)
/// pairs for bin.split. Also lets bin.place use the device's shared memory
/// (once, at setup). `staged`: bin.place writes through shared memory in
/// tile order (kernels/bin_count.cu, place_round_staged), which needs 4
/// more bytes a tile and 32 KiB more a block. Throws std::invalid_argument
/// past count_tile_limit() tiles (or, staged, past what the staged kernel
/// takes: 8192 on the H100 and H200) or for another split_coarse.
CountChunks count_chunks(int64_t circles, int tiles, int chunks_per_sm, int split_coarse = 1, bool staged = false);

/// Stage "bin.count": each chunk's number of circles whose bounding box
/// overlaps each tile of `g` (bin.fill's conservative test), as the
/// chunks x tiles matrix counts[b * tiles + t], each chunk's total in
/// chunk_entries[b], and every circle's tile range for bin.place in
/// ranges[i] (x: tx0 | tx1 << 16, y: ty0 | ty1 << 16; with k.split_shift > 0
/// its range of fine tiles, the tiles of `g` being bins of 2^split_shift
/// fine tiles a side). Tiles of 2^n pixels only (std::invalid_argument).
void launch_bin_count(const DeviceCircles& c, const TileGrid& g, const CountChunks& k, unsigned int* counts,
                      unsigned long long* chunk_entries, uint2* ranges, cudaStream_t s);

/// Stage "bin.scan" of the counting sort: prefix[b * tiles + t], the sum of
/// tile t's counts over the chunks before b, and tile_totals[t], its sum
/// over all chunks (both modulo 2^32).
void launch_chunk_prefix(const unsigned int* counts, int tiles, const CountChunks& k, unsigned int* prefix,
                         unsigned int* tile_totals, cudaStream_t s);

/// Part of stage "bin.scan" of the counting sort, when the host needs the
/// frame's pair total before bin.place: the sum of chunk_entries (64 bits)
/// into *total.
void launch_count_total(const CountChunks& k, const unsigned long long* chunk_entries, unsigned long long* total,
                        cudaStream_t s);

/// Stage "bin.place": tile_start/tile_end of every tile (the exclusive
/// scan of tile_totals) and the pair total (the sum of chunk_entries) into
/// *total, and the index of each of the `count` circles in the lists of the
/// tiles of its range (bin.count's `ranges`), at tile_start[t] + prefix[b *
/// tiles + t] + its rank within chunk b, so in input order within a tile
/// (positions at or past `capacity` are not written). With k.split_shift >
/// 0, `ranges` are fine ranges and the tiles of `g` their bins, and entries
/// go to `pairs` (x: the circle, y: bin.split's mask of the bin's tiles the
/// circle overlaps, bit j for tile j row-major) instead of `list`; else
/// `pairs` must be null (std::invalid_argument). The fields of PlaceLaunch
/// are these buffers (device pointers) and sizes.
struct PlaceLaunch {
    int64_t count = 0;
    const uint2* ranges = nullptr;
    TileGrid g{};
    CountChunks k{};
    const unsigned int* prefix = nullptr;
    const unsigned int* tile_totals = nullptr;
    const unsigned long long* chunk_entries = nullptr;
    unsigned long long capacity = 0;
    int* list = nullptr;
    uint2* pairs = nullptr;
    unsigned int* tile_start = nullptr;
    unsigned int* tile_end = nullptr;
    unsigned long long* total = nullptr;
};
void launch_bin_place(const PlaceLaunch& l, cudaStream_t s);

/// Stage "bin.compact" (scenes with few circles x bins): one thread block
/// per bin of `bins` writes the indices of the circles whose pixel box
/// overlaps the bin, in input order, to lists[b * count, ...) and the run to
/// start[b]/end[b]. lists holds bins.tile_count() * c.count ints (at most
/// 2^32 - 1). Reads the boxes bin.pack wrote (c.bin_box, for the grid
/// `bins`): throws std::invalid_argument without them or for another grid.
void launch_bin_compact(const DeviceCircles& c, const TileGrid& bins, int* lists, unsigned int* start,
                        unsigned int* end, cudaStream_t s);

/// Per-tile circle lists: circle indices list[start[t] .. end[t]) in input
/// order; when `list` is null every tile's list is all circles [0, count).
/// `total`/`capacity`: a frame binned with speculative capacity (bin.cu)
/// has `total` pairs on the device; when that exceeds `capacity` the lists
/// are incomplete and the shading kernels leave the image untouched.
/// `coarse`/`bins_x`: binning may list circles per bin of coarse x coarse
/// tiles (bins_x bins a row; CudaOptions::coarse); every tile of a bin walks
/// the bin's list, and the exact circle-tile test keeps the tile's circles.
struct TileLists {
    const int* list;
    const unsigned int* start;
    const unsigned int* end;
    int64_t count;
    const unsigned long long* total = nullptr;
    unsigned long long capacity = 0;
    int coarse = 1;
    int bins_x = 0;

    /// The bin whose list tile (tx, ty) walks.
    CR_HD int bin_of(int tx, int ty) const { return (ty / coarse) * bins_x + tx / coarse; }

#ifdef __CUDACC__
    /// True (on the device) when the lists are incomplete: skip the frame.
    __device__ bool overflowed() const { return total != nullptr && *total > capacity; }
    /// Where tile (tx, ty)'s list starts and ends in `list`: [begin_of,
    /// end_of), or every circle [0, count) when `list` is null.
    __device__ int64_t begin_of(int tx, int ty) const { return list ? start[bin_of(tx, ty)] : 0; }
    __device__ int64_t end_of(int tx, int ty) const { return list ? end[bin_of(tx, ty)] : count; }
    /// Tile (tx, ty)'s list length, end_of - begin_of (its bin's).
    __device__ int64_t length_of(int tx, int ty) const { return end_of(tx, ty) - begin_of(tx, ty); }
    /// Tile t's (row-major in `g`) list length as a load, capped at
    /// 2^32 - 1: what bin.order sorts by and what the persistent kernel
    /// without the early stop records (StopParams::tile_work).
    __device__ unsigned int load_of(int t, const TileGrid& g) const {
        const int64_t n = length_of(t % g.tiles_x, t / g.tiles_x);
        return static_cast<unsigned int>(n < int64_t{0xFFFFFFFF} ? n : int64_t{0xFFFFFFFF});
    }
#endif
};

/// Stage "bin.split" (two-level binning's second level): splits the lists
/// of `bins` (bins of bins.coarse x bins.coarse tiles, 2 or 4, as from
/// bin.ranges or bin.place) into one list per tile of `tiles`, in input order, reading
/// each entry's tile mask from its sorted key (`keys`, filled with
/// split_coarse = bins.coarse; circles from bins.list) or, when `keys` is
/// null, from bin.place's `pairs` (circle and mask): out[] (bins.coarse^2 x
/// the bins' list entries) and tile_start/tile_end per tile. Other bin
/// sizes throw std::invalid_argument.
void launch_bin_split(const TileGrid& tiles, const TileLists& bins, const unsigned int* keys, const uint2* pairs,
                      int* out, unsigned int* tile_start, unsigned int* tile_end, cudaStream_t s);

/// The early stop's parameters, as the kernels take them: `bounds`, every
/// value a pixel can hold (value_bounds); `window_per_candidate`, the
/// guessed start's window in candidates per candidate of a list
/// (BinPlan::window_per_candidate; with kShadeGuess); `walk_gap`, the walk
/// back's stop, 2^-CudaOptions::walk_gap_bits; `tile_work`, where not
/// null, gets each shaded tile's chunks (walked back, if it walks, and
/// blended forward, every try), which the next frame's
/// launch_recorded_order reads. The persistent kernel without the early
/// stop takes only `tile_work`, and writes each tile's list length there
/// (for launch_work_order).
struct StopParams {
    ValueBounds bounds{};
    float window_per_candidate = 0.f;
    float walk_gap = 0x1p-32f;
    unsigned int* tile_work = nullptr;
};

/// One launch of shade_tiled.cu's kernels: the circles, the tile lists and
/// grid, the image (width x height float4, written in place), `bg`: start
/// every pixel from the scene's background instead of reading the image (the
/// frame's deferred clear); persistent: `blocks` resident blocks pulling
/// tiles from `counter` (must be 0), in `order` when not null (tile ids,
/// heaviest first); tiled: one block a tile (blocks and counter unused),
/// block b shading tile order[b] when `order` is not null (only the 16x16,
/// 4-row kernels that stop early take one: launch_recorded_order's;
/// std::logic_error for any other), else tile b; `stop`: the early stop's
/// parameters.
struct ShadeLaunch {
    DeviceCircles c;
    TileLists lists;
    TileGrid g;
    float4* image = nullptr;
    bool bg = false;
    bool persistent = false;
    unsigned int* counter = nullptr;
    const int* order = nullptr;
    int blocks = 0;
    StopParams stop{};
};

/// shade_tiled.cu: the tiled and persistent shading of `l`. `rows` is the
/// number of pixel rows each thread shades (4 or 8; 8x8 tiles use 2).
/// `variant`: a teaching variant of the tiled 16x16, 4-row kernel
/// (CudaOptions::shade_variant; 0 = the default kernel; other shapes with a
/// variant throw std::invalid_argument), or'ed with the plan's bits
/// kShadeRowCull, kShadeStripMask, kShadeCoalesce (exact early stopping),
/// kShadeGuess (its guessed start), kShadeQuads (the quad layout, without
/// culling) and kShadeSnowReciprocal (the latter two without the early
/// stop), which act on 16x16 tiles with 4 rows only.
void launch_shade_tiled(const ShadeLaunch& l, int rows, int variant, cudaStream_t s);
/// Stage "bin.order": tile ids sorted by their list length, heaviest first
/// (persistent kernel). On grids of more than kOrderBlockTiles tiles it is
/// this kernel and CUB's device radix sort: writes each of the grid's tiles'
/// list length (its bin's, lists.bin_of) and id. loads/ids are scratch of
/// tile_count entries.
void launch_tile_loads(const TileLists& lists, const TileGrid& g, unsigned int* loads, int* ids, cudaStream_t s);
/// The most tiles launch_tile_order sorts (one block of 256 threads, 16 tiles a thread).
constexpr int kOrderBlockTiles = 4096;
/// Stage "bin.order" in one launch (grids of at most kOrderBlockTiles
/// tiles; more throw std::invalid_argument): order[0, tile_count) = the
/// tile ids by list length (lists.bin_of), heaviest first, ties in tile-id
/// order. Lengths above 65535 count as 65535: a stable CUB block radix
/// sort on 16-bit keys (4 passes in shared memory), where the device-wide
/// sort on 32 bits takes several launches. The order only schedules work.
void launch_tile_order(const TileLists& lists, const TileGrid& g, int* order, cudaStream_t s);
/// Stage "bin.order" of the early stop's recorded order (tiled and
/// persistent):
/// order[0, tiles) = the tiles by their recorded work (`work`, chunks a
/// tile in the frame before: StopParams::tile_work) in four groups, above
/// 1.5 x the mean, above 1.25 x, above the mean, the rest; each group in
/// tile order (block-level exclusive scans: stream compaction into four
/// groups, one block, any number of tiles below 2^20). Blocks start in
/// about block order (the persistent kernel hands tiles out in this
/// order), so the tiles that took longest start first instead of finishing
/// alone at the frame's end (docs/PERFORMANCE.md, "the tail"). All-zero
/// work (the first frame) gives tile order. The order only schedules
/// work: the images do not depend on it.
void launch_recorded_order(const unsigned int* work, int tiles, int* order, cudaStream_t s);
/// Stage "bin.order" of the persistent kernel without the early stop, from
/// the list lengths its frame before recorded (`work`): order[0, tiles) =
/// the tiles sorted by work, heaviest first, equal work in tile order (the
/// stable sort of launch_tile_order on 16-bit keys, work capped at 65535;
/// one block). Its four groups (launch_recorded_order) measured slower
/// shading there (H100: rand10k +5%, snowsingle +4%); the full sort is
/// what bin.order gave it from the lists. tiles <= kOrderBlockTiles, else
/// std::invalid_argument. The order only schedules work.
void launch_work_order(const unsigned int* work, int tiles, int* order, cudaStream_t s);
/// Blocks of the persistent kernel that fit on the GPU at once
/// (occupancy x multiprocessor count), for the kernel launch_shade_tiled
/// launches with the bits `bits` (kShadeStripMask, kShadeRowCull,
/// kShadeQuads or 0, or'ed with kShadeCoalesce and kShadeGuess or with
/// kShadeSnowReciprocal; they act on 16x16 tiles with 4 rows only): the
/// kernels differ in registers, so in how many blocks an SM holds.
int persistent_block_count(int tile, int rows, ShadeMode shade, int bits = 0);

/// shade_ftb.cu: the front-to-back kernel with early termination on 16x16
/// tiles (other tile sizes throw std::invalid_argument). A frame binned in
/// several batches is shaded last batch first: `first` on the first launch
/// of the frame (starts C = 0, T = 1), `last` on the launch of the frame's
/// first batch (adds the background); `acc` (width*height float4) holds
/// (C, T) between launches and may be null when first && last.
/// `from_background` (only with first && last): the image is not read; the
/// background is composed in directly (the frame's deferred clear).
/// `cull`: kShadeRowCull (warps skip listed circles that cover none of
/// their rows, CudaOptions::row_cull), kShadeStripMask (threads blend only
/// the hits marked on their strip's mask, CudaOptions::strips) or 0.
struct FtbLaunch {
    DeviceCircles c;
    TileLists lists{nullptr, nullptr, nullptr, 0};
    TileGrid g{};
    float4* image = nullptr;
    float4* acc = nullptr;
    bool first = true, last = true;
    bool from_background = false;
    int cull = 0;
};
void launch_shade_ftb(const FtbLaunch& l, cudaStream_t s);

/// shade_naive.cu: one thread per pixel over all circles.
void launch_shade_naive(const DeviceCircles& c, float4* image, int width, int height, cudaStream_t s);

/// shade_unordered.cu: the course starter's racy thread-per-circle kernel.
void launch_shade_unordered(const DeviceCircles& c, float4* image, int width, int height,
                            cudaStream_t s);

/// Part of stage bin.scan: the pair total, offsets[n-1] plus the last
/// circle's bin count (BinsOfCircle over the tiles of `g`), into *total on
/// the device (1 thread).
void launch_total(const DeviceCircles& c, const TileGrid& g, const unsigned long long* offsets,
                  unsigned long long* total, cudaStream_t s);

}  // namespace cr
