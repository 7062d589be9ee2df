// Stage "bin": builds per-bin circle lists in global memory, in input order.
// A bin is one tile or a square of C x C tiles (C = 2 or 4; the renderer's
// plan_binning picks it per scene); "bin id" below is the bin's index in
// the bin grid, row-major.
//
//   bin.pack   one thread per circle: reads x, y, r, z from the SoA arrays
//              (consecutive threads read consecutive floats: coalesced) and
//              writes the packed geom record (one 16-byte store a thread);
//              for bin.compact also the circle's range of bins (8 bytes).
//   bin.scan   exclusive scan (CUB, device-wide) of each circle's count of
//              the bins its bounding box overlaps (conservative; the exact
//              circle-tile test runs later, inside the shading block) ->
//              offsets. The counts are not stored: the scan computes each
//              one from the circle's geom record as it reads it
//              (BinsOfCircle in stages.h; once a kernel bin.count of its
//              own, fused in issue 15).
//   bin.fill   one warp per 32 circles writes their (bin id, circle index)
//              pairs at the scanned offsets, the bins of each box in
//              row-major order, lanes striding over a circle's pairs
//              (coalesced stores). Pairs come out sorted by circle index.
//              Before it, bin_prepare pads the unused tail of the pair
//              buffers (see "Speculative capacity" below) with the largest
//              key.
//   bin.sort   stable radix sort of the pairs by bin id (CUB): within a
//              bin, circles stay in input order. This is what keeps the
//              blending order correct without any atomics on pixels.
//   bin.ranges one warp per bin boundary finds where the bin's run starts
//              in the sorted keys, by a 32-way search (bin_ranges_kernel).
//   bin.split  (bins of C x C tiles; exact kernels, and ftb on snow) one
//              block per bin splits its list into its tiles' lists, in
//              order, from tile masks bin.fill put in the keys above the
//              bin id, or that the counting sort's bin.place wrote beside
//              each circle (bin_split_kernel).
//   bin.order  (persistent kernel) the tile ids by list length, heaviest
//              first, for its work queue: one block's CUB radix sort on
//              16-bit keys up to 4096 tiles (tile_order_kernel), else the
//              lengths (tile_loads_kernel) and CUB's device sort.
//
// Speculative capacity. The pair total is known only on the device after
// bin.scan; sizing the sort with it would mean waiting for it on the host
// (a round trip of ~15-20 us with the GPU idle). Instead the renderer sizes
// the pair buffers from the previous frame's total plus slack, the fill
// writes only pairs below that capacity, the tail is padded with the largest
// key (sorted last, after every real pair, so the ranges' search needs no
// total) and the shading reads the true total on the device. If this frame has more pairs
// than the capacity, shading skips the frame (TileLists::overflowed) and the
// renderer bins it again at the right size.
//
// Scenes whose circles x bins product is small (CudaOptions::compact_limit)
// skip scan, fill, sort and ranges: stage bin.compact lists each
// bin's circles with one thread block per bin, in input order, by block
// compaction (bin_compact_kernel below): the two-level scheme's coarse
// level without a global sort. Its test of a circle reads the circle's
// range of bins, which bin.pack (pack_geometry_kernel) computes once.
//
// Only bin.compact (its block scan), bin.split (two barriers per staged
// piece of a bin's list, in a loop with the same bounds in every thread of
// the block) and bin.order's one block (CUB's block radix sort, called by
// every thread) synchronize threads; kernels are ordered by the stream.
#include <cub/block/block_radix_sort.cuh>

#include <stdexcept>

#include "kernels/block_scan.cuh"
#include "kernels/cuda_check.h"
#include "kernels/stages.h"
#include "render/core/numbers.h"

namespace cr {

namespace {

/// The circle's tile range at the fine level (tiles of 2^fine_shift pixels,
/// the bins' g.tile / split_coarse) when bin.split follows; empty otherwise.
__device__ __forceinline__ TileRange fine_range(const PixelBox& box, int fine_shift, int split_coarse) {
    return split_coarse == 0 ? TileRange{0, 0, 0, 0} : tiles_of_box_pow2(box, fine_shift);
}

/// log2 of the fine tile size, g.tile / split_coarse (both powers of two).
__device__ __forceinline__ int fine_shift_of(const TileGrid& g, int split_coarse) {
    return split_coarse > 0 ? __ffs(g.tile / split_coarse) - 1 : 0;
}

/// Warp-cooperative fill: each lane loads one circle's pair offset and tile
/// rectangle. A circle with at most 4 pairs is written by its own lane; the
/// warp then takes the larger circles one at a time (found with a ballot),
/// lane l writing pairs l, l + 32, ... of that circle, so the stores
/// coalesce and a circle over a thousand tiles is spread over 32 lanes.
/// Lanes past the last circle carry a pair count of 0 but still join every
/// ballot and shuffle (full mask). Keys as pair_key (with the split's tile
/// masks when split_coarse > 0).
__global__ void bin_fill_kernel(DeviceCircles c, int64_t begin, int64_t end, TileGrid g,
                                const unsigned long long* offsets, unsigned long long base,
                                unsigned long long limit, int split_coarse, unsigned int* keys, int* values) {
    const int lane = threadIdx.x & 31;
    const int fine_shift = fine_shift_of(g, split_coarse);
    const int64_t warps_total = (int64_t(gridDim.x) * blockDim.x) >> 5;
    const int64_t warp_id = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5;
    for (int64_t first = begin + warp_id * 32; first < end; first += warps_total * 32) {
        const int64_t i = first + lane;
        unsigned long long pos = 0;
        int tx0 = 0, ty0 = 0, w = 1, count = 0;
        TileRange fine{0, 0, 0, 0};
        if (i < end) {
            const float4 geo = c.geom[i];
            const PixelBox box = circle_pixel_box(geo.x, geo.y, geo.z, g.width, g.height);
            const TileRange tr = tiles_of_box(box, g.tile);
            fine = fine_range(box, fine_shift, split_coarse);
            pos = offsets[i] - base;
            tx0 = tr.tx0;
            ty0 = tr.ty0;
            w = tr.empty() ? 1 : tr.tx1 - tr.tx0;
            count = static_cast<int>(tr.count());
            // past the capacity: write only what fits (the frame is redone)
            if (pos >= limit) count = 0;
            else if (pos + count > limit) count = static_cast<int>(limit - pos);
        }
        // Circles with few pairs: the lane writes them itself. Larger ones:
        // the whole warp takes them one at a time, lanes striding.
        constexpr int kSmall = 4;
        if (count <= kSmall) {
            for (int k = 0; k < count; ++k) {
                keys[pos + k] = pair_key(tx0 + k % w, ty0 + k / w, g, fine, split_coarse);
                values[pos + k] = static_cast<int>(i);
            }
        }
        unsigned int big = __ballot_sync(0xffffffffu, count > kSmall);
        while (big) {
            const int j = __ffs(big) - 1;
            big &= big - 1;
            const int n = __shfl_sync(0xffffffffu, count, j);
            const unsigned long long p0 = __shfl_sync(0xffffffffu, pos, j);
            const int cx0 = __shfl_sync(0xffffffffu, tx0, j);
            const int cy0 = __shfl_sync(0xffffffffu, ty0, j);
            const int cw = __shfl_sync(0xffffffffu, w, j);
            TileRange f{0, 0, 0, 0};
            if (split_coarse > 0)  // the same in every lane
                f = TileRange{__shfl_sync(0xffffffffu, fine.tx0, j), __shfl_sync(0xffffffffu, fine.tx1, j),
                              __shfl_sync(0xffffffffu, fine.ty0, j), __shfl_sync(0xffffffffu, fine.ty1, j)};
            for (int k = lane; k < n; k += 32) {
                keys[p0 + k] = pair_key(cx0 + k % cw, cy0 + k / cw, g, f, split_coarse);
                values[p0 + k] = static_cast<int>(first + j);
            }
        }
    }
}

/// The earlier fill, kept for the coalescing lesson (CR_CUDA_OPTIONS=fill=thread):
/// one thread per circle writes all of its pairs itself. A warp's 32 lanes
/// then store to 32 different places (each circle's own run of pairs), so a
/// warp instruction touches up to 32 sectors instead of 4.
__global__ void bin_fill_per_thread_kernel(DeviceCircles c, int64_t begin, int64_t end, TileGrid g,
                                           const unsigned long long* offsets, unsigned long long base,
                                           unsigned long long limit, int split_coarse, unsigned int* keys,
                                           int* values) {
    for (int64_t i = begin + blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < end;
         i += int64_t(gridDim.x) * blockDim.x) {
        const float4 geo = c.geom[i];
        const PixelBox box = circle_pixel_box(geo.x, geo.y, geo.z, g.width, g.height);
        const TileRange tr = tiles_of_box(box, g.tile);
        const TileRange fine = fine_range(box, fine_shift_of(g, split_coarse), split_coarse);
        unsigned long long pos = offsets[i] - base;
        for (int ty = tr.ty0; ty < tr.ty1; ++ty)
            for (int tx = tr.tx0; tx < tr.tx1 && pos < limit; ++tx, ++pos) {
                keys[pos] = pair_key(tx, ty, g, fine, split_coarse);
                values[pos] = static_cast<int>(i);
            }
    }
}

/// Writes the largest key (and circle 0, so the sort never reads an unset
/// value) into the pair slots [*total, capacity) that this frame leaves
/// unused (speculative batches only).
__global__ void bin_prepare_kernel(const unsigned long long* total, unsigned long long capacity, unsigned int* keys,
                                   int* values) {
    const unsigned long long step = uint64_t(gridDim.x) * blockDim.x;
    for (unsigned long long i = *total + blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < capacity; i += step) {
        keys[i] = 0xffffffffu;
        values[i] = 0;
    }
}

/// One warp per boundary t = 0..tiles: the first position in sorted
/// keys[0, n) whose key is >= t, found by a 32-way search. Each step the 32
/// lanes probe 32 evenly spaced keys inside [lo, hi) and a ballot counts
/// those below t, cutting the range 33-fold: about log32(n) dependent loads
/// (5 for 5.6 M pairs) instead of a binary search's log2(n) (23). Padding
/// keys (0xffffffff) sort after every tile id, so the search may cover them.
/// Tile t's run is [bound(t), bound(t + 1)): lane 0 writes start[t] and
/// end[t - 1]. Whole warps leave together (t is the same in every lane).
/// Only the bits of `key_bits` are the bin id (the rest: bin.split's masks).
__global__ void bin_ranges_kernel(const unsigned int* keys, unsigned long long n, int tiles, unsigned int key_bits,
                                  unsigned int* start, unsigned int* end) {
    const int lane = threadIdx.x & 31;
    const int t = static_cast<int>((blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5);
    if (t > tiles) return;
    const unsigned int key = static_cast<unsigned int>(t);
    unsigned long long lo = 0, hi = n;  // the bound lies in [lo, hi]
    while (hi - lo > 32) {
        const unsigned long long p = lo + (hi - lo) * (lane + 1) / 33;
        const unsigned int below = __ballot_sync(0xffffffffu, (keys[p] & key_bits) < key);
        const int c = __popc(below);  // sorted: the lanes below t are a prefix
        const unsigned long long last_below = __shfl_sync(0xffffffffu, p, c > 0 ? c - 1 : 0);
        const unsigned long long first_not = __shfl_sync(0xffffffffu, p, c < 32 ? c : 31);
        if (c > 0) lo = last_below + 1;
        if (c < 32) hi = first_not;
    }
    const bool is_below = lo + lane < hi && (keys[lo + lane] & key_bits) < key;
    const unsigned long long bound = lo + __popc(__ballot_sync(0xffffffffu, is_below));
    if (lane == 0) {
        if (t < tiles) start[t] = static_cast<unsigned int>(bound);
        if (t > 0) end[t - 1] = static_cast<unsigned int>(bound);
    }
}

constexpr int kBinThreads = 1024, kBinItems = 4;

/// Stage bin.compact. One block of kBinThreads threads per bin b walks all
/// circles in input order, a chunk of kBinThreads x kBinItems circles at a
/// time. Warp w takes the chunk's w-th run of 32 x kBinItems circles, in
/// kBinItems rows of 32: lane l reads circle run + 32k + l of row k, so a
/// warp's load is 32 consecutive 8-byte bin boxes (256 bytes, 8 sectors,
/// all used). A circle is a hit when its pixel box overlaps the bin's pixel
/// rectangle (conservative, like bin.scan's counts; the shading's exact
/// test follows): when the bin (bx, by) lies in the circle's range of bins,
/// which bin.pack computed once (DeviceCircles::bin_box, tiles_of_box of
/// the box: min_x < (bx + 1) * T exactly when min_x / T <= bx, and max_x >
/// bx * T exactly when bx < (max_x - 1) / T + 1; the same in y). A
/// thread's test is then one 8-byte load and four compares instead of the
/// box's arithmetic, which every bin's block would repeat. Each row's hits
/// are one __ballot_sync; a hit's place in the warp's run is the hits of
/// the earlier rows plus __popc of the row's bits below its lane, so the
/// chunk's order (warp, row, lane) is input order.
/// Lane 0 writes the warp's count to shared memory; after a barrier warp 0
/// scans the 32 counts (five shuffle steps) in place, and after a second
/// one every thread reads the counts of the warps before its own: a
/// block-level exclusive scan of 32 counts instead of 1024. The counts
/// live in two buffers used by alternate chunks, so no third barrier is
/// needed: a buffer is written again two chunks later, after the next
/// chunk's barriers, which every thread reaches only after its reads. The
/// loop's bounds are the same in every thread, so every thread reaches every
/// barrier. The hits go to the bin's region lists[b * n, b * n + n);
/// start/end get the bin's run.
__global__ void __launch_bounds__(kBinThreads)
    bin_compact_kernel(DeviceCircles c, TileGrid bins, int* lists, unsigned int* start, unsigned int* end) {
    constexpr int kWarps = kBinThreads / 32;
    static_assert(kWarps == 32, "warp 0 scans the warps' counts, one a lane");
    __shared__ int warp_counts[2][kWarps];
    const int b = blockIdx.x;
    const int bx = b % bins.tiles_x, by = b / bins.tiles_x;
    const int64_t n = c.count;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned int below = (1u << lane) - 1u;
    int* out = lists + int64_t(b) * n;
    int64_t listed = 0;
    int parity = 0;
    for (int64_t base = 0; base < n; base += int64_t(kBinThreads) * kBinItems, parity ^= 1) {
        const int64_t run = base + int64_t(warp) * 32 * kBinItems;
        unsigned int rows[kBinItems];
        int count = 0;
#pragma unroll
        for (int k = 0; k < kBinItems; ++k) {
            const int64_t i = run + 32 * k + lane;
            bool hit = false;
            if (i < n) {
                const short4 r = c.bin_box[i];
                hit = TileRange{r.x, r.y, r.z, r.w}.contains(bx, by);
            }
            rows[k] = __ballot_sync(0xffffffffu, hit);
            count += __popc(rows[k]);
        }
        int* counts = warp_counts[parity];
        if (lane == 0) counts[warp] = count;
        __syncthreads();
        if (warp == 0) counts[lane] = warp_inclusive_scan(counts[lane]);  // kWarps == 32: one count a lane
        __syncthreads();
        int pos = warp == 0 ? 0 : counts[warp - 1];
        const int total = counts[kWarps - 1];
#pragma unroll
        for (int k = 0; k < kBinItems; ++k) {
            if (rows[k] >> lane & 1u) out[listed + pos + __popc(rows[k] & below)] = static_cast<int>(run + 32 * k + lane);
            pos += __popc(rows[k]);
        }
        listed += total;
    }
    if (threadIdx.x == 0) {
        start[b] = static_cast<unsigned int>(int64_t(b) * n);
        end[b] = static_cast<unsigned int>(int64_t(b) * n + listed);
    }
}

constexpr int kSplitStage = 2048;  ///< keys a block of 4x4 bins stages in shared memory at a time (16 KB with the circles; 2x2: half)

/// Stage bin.split: splits each bin's list of C x C tiles (C = 2 or 4;
/// input order) into one list per tile, keeping the order: the second
/// level of two-level binning, without a second sort. One block per bin,
/// one warp per tile j of the bin. The block stages the bin's list (circle
/// indices and tile masks) in shared memory, a stage of kSplitStage entries
/// (C = 4; half for C = 2) at a time: every thread loads its share
/// (coalesced), the block meets at a barrier, and while the warps work on
/// this stage the loads for the next one are already in flight (held in
/// registers, written to shared memory after the second barrier). So the
/// list is read from global memory once, not once per tile, and a warp
/// never waits on a global load in its loop. Bit kSplitMaskShift + j of an
/// entry's mask says whether the circle overlaps tile j: after the sorting
/// stages it is in the entry's key (bin.fill computed it with the
/// conservative box test) and the circle in the bin's list; after the
/// counting sort both come in one 8-byte pair from bin.place.
/// Each warp walks the staged masks 32 consecutive ones a step (consecutive
/// words: no bank conflicts). The ballot of bit j gives each lane its rank
/// among the step's hits (popcount of the bits below it); the hits store
/// their circle index at consecutive places of the tile's list (coalesced)
/// and the warp's running count moves on by the ballot's popcount. Tile j
/// of bin b writes to its own region of out[], C*C*start[b] + j*len(b), so
/// regions never overlap. Warps of tiles past the image's edge load and
/// reach both barriers of every stage (every thread of the block must) but
/// skip the ballots. A speculative frame that overflowed its capacity (the
/// counting sort's bin runs may then reach past the entries written) is
/// skipped by every block at once, as the shading skips it; the tiles' runs
/// then keep the last frame's values, which only the persistent kernel's
/// bin.order reads before its shading skips too.
template <int C>
__global__ void __launch_bounds__(C * C * 32)
    bin_split_kernel(TileGrid tiles, TileLists bins, const unsigned int* keys, const uint2* pairs, int* out,
                     unsigned int* tile_start, unsigned int* tile_end) {
    constexpr int kThreads = C * C * 32, kStage = C == 4 ? kSplitStage : kSplitStage / 2;
    constexpr int kPerThread = kStage / kThreads;
    __shared__ unsigned int staged_key[kStage];
    __shared__ int staged_circle[kStage];
    if (bins.overflowed()) return;  // the whole block: the frame is binned again
    const int b = blockIdx.x, j = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int bx = b % bins.bins_x, by = b / bins.bins_x, tx = bx * C + j % C, ty = by * C + j / C;
    const bool inside = tx < tiles.tiles_x && ty < tiles.tiles_y;  // the same in the whole warp
    const unsigned int first = bins.start[b], len = bins.end[b] - first;
    const size_t region = size_t(first) * (C * C) + size_t(j) * len;
    int* tile_out = out + region;
    const unsigned int below = (1u << lane) - 1u, bit = 1u << (kSplitMaskShift + j);
    unsigned int key[kPerThread];
    int circle[kPerThread];
    auto load_stage = [&](unsigned int base) {
#pragma unroll
        for (int u = 0; u < kPerThread; ++u) {
            const unsigned int k = base + u * kThreads + threadIdx.x;
            if (pairs) {  // the same in every thread
                const uint2 p = k < len ? pairs[first + k] : make_uint2(0xffffffffu, 0u);
                circle[u] = static_cast<int>(p.x);
                key[u] = p.y << kSplitMaskShift;
            } else {
                circle[u] = k < len ? bins.list[first + k] : -1;
                key[u] = k < len ? keys[first + k] : 0u;
            }
        }
    };
    load_stage(0);
    unsigned int listed = 0;
    for (unsigned int base = 0; base < len; base += kStage) {  // the same stages in every thread
#pragma unroll
        for (int u = 0; u < kPerThread; ++u) {
            staged_key[u * kThreads + threadIdx.x] = key[u];
            staged_circle[u * kThreads + threadIdx.x] = circle[u];
        }
        __syncthreads();
        if (base + kStage < len) load_stage(base + kStage);  // in flight during the walk below
        const unsigned int n = min(len - base, unsigned(kStage));
        if (inside) {
#pragma unroll 4
            for (unsigned int k = lane; k < (n + 31u) / 32u * 32u; k += 32) {
                const bool hit = k < n && (staged_key[k] & bit) != 0;
                const unsigned int hits = __ballot_sync(0xffffffffu, hit);
                if (hit) tile_out[listed + __popc(hits & below)] = staged_circle[k];
                listed += __popc(hits);
            }
        }
        __syncthreads();  // the stage is read before the next one overwrites it
    }
    if (inside && lane == 0) {
        tile_start[ty * tiles.tiles_x + tx] = static_cast<unsigned int>(region);
        tile_end[ty * tiles.tiles_x + tx] = static_cast<unsigned int>(region + listed);
    }
}

__global__ void tile_loads_kernel(TileLists lists, TileGrid g, unsigned int* loads, int* ids) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= g.tile_count()) return;
    loads[t] = lists.load_of(t, g);
    ids[t] = t;
}

constexpr int kOrderThreads = 256, kOrderItems = kOrderBlockTiles / kOrderThreads;
static_assert(kOrderItems * kOrderThreads == kOrderBlockTiles, "whole tiles a thread");

/// bin.order in one block: thread i loads the lengths of tiles 16i ...
/// 16i + 15 (a blocked arrangement; tiles past the grid get key 0 and id
/// -1, and stay after every real tile since the sort is stable and they
/// come last), the block sorts them descending on 16-bit keys and each
/// thread writes its ranks j * 256 + i (a striped arrangement: coalesced
/// stores). 256 threads with 16 tiles each measured 12.5 us a frame
/// against 13.5 for 1024 threads with 4 (fewer warps meet at each of the
/// sort's barriers).
/// The body of both one-block orders: `load_of(t)` is tile t's load
/// (called for t < tiles only).
template <class Load>
__device__ __forceinline__ void sort_tiles_heaviest_first(Load load_of, int tiles, int* order) {
    using Sort = cub::BlockRadixSort<unsigned short, kOrderThreads, kOrderItems, int>;
    __shared__ typename Sort::TempStorage temp;
    unsigned short key[kOrderItems];
    int id[kOrderItems];
#pragma unroll
    for (int j = 0; j < kOrderItems; ++j) {
        const int t = threadIdx.x * kOrderItems + j;
        const unsigned int load = t < tiles ? load_of(t) : 0u;
        key[j] = static_cast<unsigned short>(min(load, 0xFFFFu));
        id[j] = t < tiles ? t : -1;
    }
    Sort(temp).SortDescendingBlockedToStriped(key, id, 0, 16);
#pragma unroll
    for (int j = 0; j < kOrderItems; ++j) {
        const int rank = j * kOrderThreads + threadIdx.x;
        if (rank < tiles) order[rank] = id[j];
    }
}

__global__ void __launch_bounds__(kOrderThreads) tile_order_kernel(TileLists lists, TileGrid g, int* order) {
    sort_tiles_heaviest_first([&](int t) { return lists.load_of(t, g); }, g.tile_count(), order);
}

/// launch_work_order (stages.h): tile_order_kernel's sort on the recorded
/// work instead of the lists.
__global__ void __launch_bounds__(kOrderThreads) work_order_kernel(const unsigned int* work, int tiles, int* order) {
    sort_tiles_heaviest_first([&](int t) { return work[t]; }, tiles, order);
}

constexpr int kRecordedOrderThreads = 1024;

/// launch_recorded_order (stages.h): the tiles in work_group order, each
/// group in tile order. One block. Three phases: the total work (a block
/// scan, its total only); each group's size (one scan a group), so each
/// group's first slot; then, 1024 tiles a round, one exclusive scan of the
/// tiles' groups as one-hot 16-bit fields of a 64-bit value (a round's
/// 1024 fit a field), whose field g is a tile's rank in its group. Every
/// loop has the same bounds in every thread, so every thread reaches every
/// barrier; a __syncthreads() before each scan guards the scratch.
__global__ void __launch_bounds__(kRecordedOrderThreads)
    recorded_order_kernel(const unsigned int* work, int tiles, int* order) {
    constexpr int kThreads = kRecordedOrderThreads, kGroups = 4;
    __shared__ unsigned long long sums[kThreads / 32];
    __shared__ int counts[kThreads / 32];
    unsigned long long mine = 0, total = 0;
    for (int t = threadIdx.x; t < tiles; t += kThreads) mine += work[t];
    block_exclusive_scan<kThreads, unsigned long long>(mine, sums, total);
    int sizes[kGroups] = {0, 0, 0, 0};
    for (int t = threadIdx.x; t < tiles; t += kThreads) ++sizes[work_group(work[t], tiles, total)];
    int first[kGroups];  // each group's next slot in `order` (the same in every thread)
    int before = 0;
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
        int n = 0;
        __syncthreads();
        block_exclusive_scan<kThreads>(sizes[g], counts, n);
        first[g] = before;
        before += n;
    }
    for (int base = 0; base < tiles; base += kThreads) {
        const int t = base + threadIdx.x;
        const int g = t < tiles ? work_group(work[t], tiles, total) : -1;
        unsigned long long n = 0;
        __syncthreads();
        const unsigned long long at = block_exclusive_scan<kThreads, unsigned long long>(
            g >= 0 ? 1ull << (16 * g) : 0ull, sums, n);
        if (g >= 0) order[first[g] + static_cast<int>((at >> (16 * g)) & 0xFFFFu)] = t;
#pragma unroll
        for (int k = 0; k < kGroups; ++k) first[k] += static_cast<int>((n >> (16 * k)) & 0xFFFFu);
    }
}

static_assert(kMaxImageSide <= 32767, "bin boxes hold bin indices (at most one a pixel) in 16 bits");

__global__ void pack_geometry_kernel(DeviceCircles c) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < c.count;
         i += int64_t(gridDim.x) * blockDim.x) {
        const float4 geo = make_float4(c.soa.x[i], c.soa.y[i], c.soa.radius[i], c.soa.z[i]);
        c.geom[i] = geo;
        if (c.rec) {  // the same in every thread
            c.rec[2 * i] = geo;
            c.rec[2 * i + 1] = c.color[i];
        }
        if (c.bin_box) {  // the same in every thread; 16 bits hold a bin index (kMaxImageSide)
            const TileRange r = tiles_of_box(circle_pixel_box(geo.x, geo.y, geo.z, c.box_grid.width, c.box_grid.height),
                                             c.box_grid.tile);
            c.bin_box[i] = make_short4(static_cast<short>(r.tx0), static_cast<short>(r.tx1), static_cast<short>(r.ty0),
                                       static_cast<short>(r.ty1));
        }
    }
}

__global__ void total_kernel(DeviceCircles c, TileGrid g, const unsigned long long* offsets,
                             unsigned long long* total) {
    *total = c.count > 0 ? BinsOfCircle{c.geom, g}(c.count - 1) + offsets[c.count - 1] : 0;
}

int blocks_for(int64_t n, int threads) {
    return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>((n + threads - 1) / threads, 1 << 20)));
}

}  // namespace

void launch_bin_fill(const FillLaunch& l, cudaStream_t s) {
    if (l.end <= l.begin) return;
    if (l.split_coarse != 0 &&
        (l.split_coarse * l.split_coarse > 32 - kSplitMaskShift || l.g.tile_count() > int(kSplitBinIds)))
        throw std::invalid_argument("launch_bin_fill: split masks need bins of 2x2 or 4x4 tiles and at most 65535 bins (kSplitBinIds)");
    const int blocks = blocks_for(l.end - l.begin, 256);
    if (l.per_thread) {
        bin_fill_per_thread_kernel<<<blocks, 256, 0, s>>>(l.c, l.begin, l.end, l.g, l.offsets, l.base, l.limit,
                                                          l.split_coarse, l.keys, l.values);
        check_launch("bin_fill_per_thread_kernel");
        return;
    }
    bin_fill_kernel<<<blocks, 256, 0, s>>>(l.c, l.begin, l.end, l.g, l.offsets, l.base, l.limit, l.split_coarse, l.keys,
                                           l.values);
    check_launch("bin_fill_kernel");
}

void launch_bin_prepare(const unsigned long long* total, unsigned long long capacity, unsigned long long tail_hint,
                        unsigned int* keys, int* values, cudaStream_t s) {
    if (capacity == 0) return;
    bin_prepare_kernel<<<blocks_for(static_cast<int64_t>(std::max<unsigned long long>(tail_hint, 1)), 256), 256, 0, s>>>(
        total, capacity, keys, values);
    check_launch("bin_prepare_kernel");
}

void launch_bin_ranges(const unsigned int* keys, unsigned long long pairs, int tiles, bool split_masks,
                       unsigned int* start, unsigned int* end, cudaStream_t s) {
    const int64_t threads = (static_cast<int64_t>(tiles) + 1) * 32;
    const unsigned int key_bits = split_masks ? kSplitBinIds : 0xffffffffu;
    bin_ranges_kernel<<<blocks_for(threads, 256), 256, 0, s>>>(keys, pairs, tiles, key_bits, start, end);
    check_launch("bin_ranges_kernel");
}

void launch_bin_compact(const DeviceCircles& c, const TileGrid& bins, int* lists, unsigned int* start,
                        unsigned int* end, cudaStream_t s) {
    const TileGrid& g = c.box_grid;
    if (c.count > 0 && (c.bin_box == nullptr || g.width != bins.width || g.height != bins.height ||
                        g.tile != bins.tile))
        throw std::invalid_argument("launch_bin_compact: the circles carry no bin boxes for these bins (pack them "
                                    "with CircleBuffers::upload's box grid)");
    bin_compact_kernel<<<bins.tile_count(), kBinThreads, 0, s>>>(c, bins, lists, start, end);
    check_launch("bin_compact_kernel");
}

void launch_bin_split(const TileGrid& tiles, const TileLists& bins, const unsigned int* keys, const uint2* pairs,
                      int* out, unsigned int* tile_start, unsigned int* tile_end, cudaStream_t s) {
    if ((keys == nullptr) == (pairs == nullptr) || (keys && !bins.list))
        throw std::invalid_argument("launch_bin_split: the keys (and bins.list) of the sorting stages, or bin.place's pairs");
    const int count = ((tiles.tiles_x + bins.coarse - 1) / bins.coarse) * ((tiles.tiles_y + bins.coarse - 1) / bins.coarse);
    if (bins.coarse == 2)
        bin_split_kernel<2><<<count, 4 * 32, 0, s>>>(tiles, bins, keys, pairs, out, tile_start, tile_end);
    else if (bins.coarse == 4)
        bin_split_kernel<4><<<count, 16 * 32, 0, s>>>(tiles, bins, keys, pairs, out, tile_start, tile_end);
    else
        throw std::invalid_argument("launch_bin_split: bins of 2x2 or 4x4 tiles only");
    check_launch("bin_split_kernel");
}

void launch_tile_loads(const TileLists& lists, const TileGrid& g, unsigned int* loads, int* ids, cudaStream_t s) {
    tile_loads_kernel<<<(g.tile_count() + 255) / 256, 256, 0, s>>>(lists, g, loads, ids);
    check_launch("tile_loads_kernel");
}

void launch_tile_order(const TileLists& lists, const TileGrid& g, int* order, cudaStream_t s) {
    if (g.tile_count() > kOrderBlockTiles)
        throw std::invalid_argument("bin.order: more tiles than one block sorts (kOrderBlockTiles)");
    tile_order_kernel<<<1, kOrderThreads, 0, s>>>(lists, g, order);
    check_launch("tile_order_kernel");
}

void launch_work_order(const unsigned int* work, int tiles, int* order, cudaStream_t s) {
    if (tiles <= 0) return;
    if (tiles > kOrderBlockTiles) throw std::invalid_argument("bin.order: more tiles than one block sorts (kOrderBlockTiles)");
    work_order_kernel<<<1, kOrderThreads, 0, s>>>(work, tiles, order);
    check_launch("work_order_kernel");
}

void launch_recorded_order(const unsigned int* work, int tiles, int* order, cudaStream_t s) {
    if (tiles <= 0) return;
    if (tiles >= (1 << 20)) throw std::invalid_argument("bin.order: the recorded order takes fewer than 2^20 tiles");
    recorded_order_kernel<<<1, kRecordedOrderThreads, 0, s>>>(work, tiles, order);
    check_launch("recorded_order_kernel");
}

void launch_pack_geometry(const DeviceCircles& c, cudaStream_t s) {
    if (c.count == 0) return;
    pack_geometry_kernel<<<blocks_for(c.count, 256), 256, 0, s>>>(c);
    check_launch("pack_geometry_kernel");
}

void launch_total(const DeviceCircles& c, const TileGrid& g, const unsigned long long* offsets,
                  unsigned long long* total, cudaStream_t s) {
    total_kernel<<<1, 1, 0, s>>>(c, g, offsets, total);
    check_launch("total_kernel");
}

}  // namespace cr
