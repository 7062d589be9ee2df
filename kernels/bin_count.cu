// Stage "bin" as a stable counting sort (the renderer's plan_binning picks
// it, CudaOptions::counting): the same per-bin lists as
// bin.scan/fill/sort/ranges (kernels/bin.cu), circle indices in input
// order within a bin, without a radix sort. "Tile" below is a bin: one
// tile, or a square of 2x2 or 4x4 tiles that bin.split splits next. For
// those, bin.count keeps each circle's range of fine tiles (bin.place
// coarsens it to bins) and bin.place writes each entry as a pair (circle,
// mask of the bin's tiles the circle's box overlaps) for bin.split.
//
// The circles are cut into B chunks of consecutive circles, one thread
// block per chunk in both passes over the circles:
//
//   bin.count  each block builds its chunk's histogram of tiles (one
//              counter per tile in shared memory, shared atomics, bin.fill's
//              bounding-box test) and writes it as row b of the chunks x
//              tiles matrix counts[b * T + t] (coalesced), plus its chunk's
//              number of entries (64 bits) and every circle's tile range
//              (8 bytes, so bin.place reads half of what the circle record
//              holds and does not redo the box arithmetic).
//   bin.scan   for every tile, the exclusive prefix of its counts over the
//              chunks, prefix[b * T + t], and its total (chunk_prefix_kernel:
//              a block takes 32 tiles, a warp one segment of chunks, lanes
//              the tiles, so every load and store is coalesced).
//   bin.place  starts (start_positions) with every block scanning the
//              tiles' totals in shared memory: tile t's list starts at
//              start[t] = the entries of all tiles before it (block 0
//              writes start[t] and end[t] = start[t] + its total, and adds
//              up the chunks' entries into the frame's pair total, 64 bits,
//              the shading's capacity check). Chunk b's first circle of
//              tile t goes to start[t] + prefix[b * T + t]: after every
//              earlier chunk's. (Where the host needs the total before
//              bin.place, to size the list, count_total_kernel adds it up
//              first.) Block b then walks its chunk's tile ranges,
//              kRoundCircles circles a round (4 consecutive ones a thread),
//              with each tile's running position in shared memory. The
//              round's entries (circle, tile) are numbered in input order
//              by a block-level exclusive scan of the circles' tile counts;
//              a window of kThreads entries goes one to a thread (each
//              finds its circle by a binary search of the scan). Ranking
//              keeps the order: __match_any_sync groups a warp's lanes of
//              one tile; each group's highest lane adds the group's size
//              into the tile's byte for its warp in a 64-bit shared counter
//              (8 warps, 8 bytes; the add goes to the 32-bit half that
//              holds the byte, warps 0-3 the low word, since a 64-bit
//              shared atomicAdd compiles to a compare-and-swap loop); after
//              a barrier an entry's position is
//              the running position + the bytes of the warps before its
//              own + its group's lanes below it. The last group of a tile
//              (no byte above its warp) moves the running position on and
//              clears the counter after the next barrier. Entries at or
//              past the capacity are not written.
//              Staged (CR_CUDA_OPTIONS place=staged): a direct window's 32
//              stores of a warp go to about as many tiles' lists (rand1M:
//              30 sectors a store request). Staged, the round's entries,
//              kStageEntries at a time, are first found and counted per
//              tile (shared atomics), a block-level exclusive scan of the
//              counts gives each tile a run of slots, the same windows
//              rank them into those slots in shared memory with their
//              positions, and consecutive threads then store consecutive
//              slots: a warp's stores cover a few runs of consecutive
//              positions. The lists are the same.
//
// Barriers: bin.count two (histogram cleared; histogram complete); bin.scan
// two; bin.place three in its start (totals loaded, segment sums written,
// starts scanned; block 0 one more for the pair total), then per round the
// block scan's two and one after it (tile ranges and first entries
// written), three per window (before the counters are added to, after;
// after every entry has read them) and one at the end of the round; staged,
// per batch one after counting, the scan's two, the windows' three each,
// one after the windows and one after the write-out. Every
// loop that contains a barrier (rounds, windows) has the same bounds in
// every thread of the block; the scan in the start loops per warp with the
// same bounds in every lane.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/block_scan.cuh"
#include "kernels/cuda_check.h"
#include "kernels/stages.h"

namespace cr {

namespace {

constexpr int kThreads = kCountThreads;
/// bin.count's threads a block: twice bin.place's, so each SM has 48 warps
/// loading circle records instead of 24 (its 3 chunks are 3 blocks either
/// way; bin.count waits on those loads; docs/PERFORMANCE.md, step 28).
constexpr int kCountBlock = 2 * kCountThreads;
constexpr int kSmall = 64;  ///< circles with more tiles than this are counted by the whole warp

/// Circle i's tile range on `g` (tiles of 2^shift pixels): bin.fill's
/// bounding-box test.
__device__ __forceinline__ TileRange circle_tiles(const DeviceCircles& c, int64_t i, const TileGrid& g, int shift) {
    const float4 geo = c.geom[i];
    return tiles_of_box_pow2(circle_pixel_box(geo.x, geo.y, geo.z, g.width, g.height), shift);
}

/// Sum of `v` over a block of THREADS threads (every thread calls it;
/// thread 0 gets the sum; one barrier).
template <int THREADS = kThreads>
__device__ __forceinline__ unsigned long long block_sum(unsigned long long v, unsigned long long* warp_sums) {
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
    __syncthreads();
    unsigned long long total = 0;
    if (threadIdx.x == 0)
        for (int w = 0; w < THREADS / 32; ++w) total += warp_sums[w];
    return total;
}

/// bin.count: block b's histogram of the tiles of circles [b * per_chunk,
/// (b + 1) * per_chunk). A lane counts a circle of at most kSmall tiles
/// itself; larger circles are taken by the whole warp one at a time (lanes
/// striding over its tiles), so one huge circle does not hold up a lane.
/// With split_shift = s > 0 the tiles of `g` are bins of 2^s x 2^s fine
/// tiles: the circle's range is kept at the fine level (bin.place derives
/// the bins and the split's tile masks from it) and counted per bin.
__global__ void __launch_bounds__(kCountBlock)
    bin_count_kernel(DeviceCircles c, TileGrid g, int split_shift, int64_t per_chunk, unsigned int* counts,
                     unsigned long long* chunk_entries, uint2* ranges) {
    extern __shared__ unsigned int hist[];
    __shared__ unsigned long long warp_sums[kCountBlock / 32];
    const int tiles = g.tile_count(), b = blockIdx.x, lane = threadIdx.x & 31, shift = __ffs(g.tile) - 1;
    for (int t = threadIdx.x; t < tiles; t += kCountBlock) hist[t] = 0;
    __syncthreads();
    const int64_t c0 = int64_t(b) * per_chunk, c1 = min(c.count, c0 + per_chunk);
    unsigned long long mine = 0;
    for (int64_t first = c0 + (threadIdx.x & ~31); first < c1; first += kCountBlock) {
        const int64_t i = first + lane;
        const TileRange fine = i < c1 ? circle_tiles(c, i, g, shift - split_shift) : TileRange{0, 0, 0, 0};
        if (i < c1) ranges[i] = pack_range(fine);
        const TileRange tr = coarsen(fine, split_shift);
        const int n = static_cast<int>(tr.count()), w = tr.empty() ? 1 : tr.tx1 - tr.tx0;
        mine += n;
        if (n <= kSmall)
            for (int ty = tr.ty0; ty < tr.ty1; ++ty)
                for (int tx = tr.tx0; tx < tr.tx1; ++tx) atomicAdd(&hist[ty * g.tiles_x + tx], 1u);
        unsigned int big = __ballot_sync(0xffffffffu, n > kSmall);
        while (big) {
            const int j = __ffs(big) - 1;
            big &= big - 1;
            const int bn = __shfl_sync(0xffffffffu, n, j), bw = __shfl_sync(0xffffffffu, w, j);
            const int bx = __shfl_sync(0xffffffffu, tr.tx0, j), by = __shfl_sync(0xffffffffu, tr.ty0, j);
            for (int k = lane; k < bn; k += 32) {
                const unsigned int row = unsigned(k) / unsigned(bw);
                atomicAdd(&hist[(by + int(row)) * g.tiles_x + bx + k - int(row) * bw], 1u);
            }
        }
    }
    const unsigned long long entries = block_sum<kCountBlock>(mine, warp_sums);  // its barrier also completes the histogram
    for (int t = threadIdx.x; t < tiles; t += kCountBlock) counts[size_t(b) * tiles + t] = hist[t];
    if (threadIdx.x == 0) chunk_entries[b] = entries;
}

constexpr int kPrefixTiles = 32;  ///< tiles a block of chunk_prefix_kernel (lanes)
constexpr int kSegments = 32;     ///< segments of chunks a block (warps)

/// bin.scan of the counting sort: prefix[b * T + t] = the sum of counts[b'
/// * T + t] over chunks b' < b, and each tile's total. Block: 32 tiles
/// (lanes) x 32 segments of consecutive chunks (warps). Each thread adds up
/// its segment; warp s then scans the segment sums of tile s (transposed
/// through shared memory, padded against bank conflicts); each thread walks
/// its segment again, writing the running prefix. Sums are modulo 2^32
/// (the 64-bit pair total catches a frame that large).
__global__ void __launch_bounds__(kPrefixTiles * kSegments)
    chunk_prefix_kernel(const unsigned int* counts, int tiles, int chunks, unsigned int* prefix,
                        unsigned int* tile_totals) {
    __shared__ unsigned int seg[kSegments][kPrefixTiles + 1];
    const int lane = threadIdx.x & 31, s = threadIdx.x >> 5;
    const int t = blockIdx.x * kPrefixTiles + lane;
    const int per = (chunks + kSegments - 1) / kSegments, b0 = min(chunks, s * per), b1 = min(chunks, b0 + per);
    unsigned int sum = 0;
    if (t < tiles) {
#pragma unroll 4
        for (int b = b0; b < b1; ++b) sum += counts[size_t(b) * tiles + t];
    }
    seg[s][lane] = sum;
    __syncthreads();
    const unsigned int v = seg[lane][s];  // warp s: tile s of the block, lane: segment
    const unsigned int inclusive = warp_inclusive_scan(v);
    seg[lane][s] = inclusive - v;  // each warp rewrites only the column it read
    if (lane == 31 && blockIdx.x * kPrefixTiles + s < tiles) tile_totals[blockIdx.x * kPrefixTiles + s] = inclusive;
    __syncthreads();
    unsigned int run = seg[s][lane];
    if (t < tiles)
#pragma unroll 4
        for (int b = b0; b < b1; ++b) {
            const size_t at = size_t(b) * tiles + t;
            const unsigned int n = counts[at];
            prefix[at] = run;
            run += n;
        }
}

/// The frame's pair total: the sum of the chunks' entries (64 bits) into
/// *total, by a block of THREADS threads (every thread calls it; one
/// barrier).
template <int THREADS>
__device__ __forceinline__ void write_pair_total(int chunks, const unsigned long long* chunk_entries,
                                                 unsigned long long* total) {
    __shared__ unsigned long long warp_sums[THREADS / 32];
    unsigned long long sum = 0;
    for (int b = threadIdx.x; b < chunks; b += THREADS) sum += chunk_entries[b];
    const unsigned long long pairs = block_sum<THREADS>(sum, warp_sums);
    if (threadIdx.x == 0) *total = pairs;
}

constexpr int kTotalThreads = 1024;

/// The pair total for a host that must size the lists before bin.place
/// (which writes it too).
__global__ void __launch_bounds__(kTotalThreads)
    count_total_kernel(int chunks, const unsigned long long* chunk_entries, unsigned long long* total) {
    write_pair_total<kTotalThreads>(chunks, chunk_entries, total);
}

constexpr int kPerThread = 4;                           ///< circles a thread takes each round of bin.place
constexpr int kRoundCircles = kThreads * kPerThread;    ///< circles a round

/// The largest j in [0, kRoundCircles) with first_entry[j] <= e: the circle
/// of the round that entry e belongs to (circles without entries share
/// their successor's first entry, so the last of equal values is the one
/// with entries). first_entry[0] = 0 <= e.
__device__ __forceinline__ int owner_of(const int* first_entry, int e) {
    int lo = 0;
#pragma unroll
    for (int step = kRoundCircles / 2; step > 0; step >>= 1)
        if (first_entry[lo + step] <= e) lo += step;
    return lo;
}

/// The sum of the bytes of x (each at most 32, at most 7 of them non-zero,
/// so no byte of the product carries): the multiply adds every byte into
/// the top one.
__device__ __forceinline__ unsigned int byte_sum(unsigned long long x) {
    return static_cast<unsigned int>((x * 0x0101010101010101ull) >> 56);
}

constexpr int kStageEntries = 2048;  ///< entries bin.place stages at once (place=staged)

/// Shared memory of bin_place_kernel past its static arrays: the 64-bit
/// per-warp counters and the running positions of `tiles` tiles, and with
/// `staged` each tile's batch count (then slot offset) and the staging of
/// kStageEntries entries (StageScratch: 16 bytes an entry).
size_t place_shared_bytes(int tiles, bool staged) {
    const size_t per_tile = sizeof(unsigned long long) + sizeof(unsigned int) + (staged ? sizeof(unsigned int) : 0);
    const size_t per_entry = sizeof(uint2) + sizeof(int) + sizeof(unsigned int);
    return size_t(tiles) * per_tile + (staged ? size_t(kStageEntries) * per_entry : 0);
}

/// The round's circles r0 + 4 * threadIdx.x + j (j < kPerThread; past c1:
/// none): their tile ranges and first entries into shared memory, numbered
/// in input order (a thread's own prefix, then the block-level exclusive
/// scan of the threads' sums). A thread's four slots are consecutive, so
/// each array takes one 16-byte store a thread (a warp's 512 bytes in the
/// fewest wavefronts; four 4-byte stores 16 bytes apart would be 4-way bank
/// conflicts). Returns the round's number of entries (the same in every
/// thread; contains the block scan's barriers).
__device__ __forceinline__ int number_round(const uint2* ranges, int split_shift, int64_t r0, int64_t c1,
                                            int* first_entry, int* tx0, int* ty0, int* width, int* warp_totals) {
    static_assert(kPerThread == 4, "one int4 store per thread and array");
    int counts[kPerThread], x[kPerThread], y[kPerThread], w[kPerThread], mine = 0;
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
        const int64_t i = r0 + threadIdx.x * kPerThread + j;
        const TileRange tr = coarsen(i < c1 ? unpack_range(ranges[i]) : TileRange{0, 0, 0, 0}, split_shift);
        x[j] = tr.tx0;
        y[j] = tr.ty0;
        w[j] = tr.empty() ? 1 : tr.tx1 - tr.tx0;
        counts[j] = static_cast<int>(tr.count());
        mine += counts[j];
    }
    reinterpret_cast<int4*>(tx0)[threadIdx.x] = make_int4(x[0], x[1], x[2], x[3]);
    reinterpret_cast<int4*>(ty0)[threadIdx.x] = make_int4(y[0], y[1], y[2], y[3]);
    reinterpret_cast<int4*>(width)[threadIdx.x] = make_int4(w[0], w[1], w[2], w[3]);
    int entries = 0;
    const int at = block_exclusive_scan<kThreads>(mine, warp_totals, entries);
    reinterpret_cast<int4*>(first_entry)[threadIdx.x] =
        make_int4(at, at + counts[0], at + counts[0] + counts[1], at + counts[0] + counts[1] + counts[2]);
    return entries;
}

/// bin.place's start (the ranges of the file comment): the tiles' totals
/// are loaded into `running` (coalesced) and scanned there in place, each
/// warp a segment of consecutive tiles 32 at a time (conflict-free: lanes
/// read consecutive words), after the sums of the segments before it; each
/// tile is left with its start. Block 0 writes start/end of every tile and
/// the pair total; then every block adds its prefix row (coalesced).
/// Contains barriers (every thread calls it).
__device__ __forceinline__ void start_positions(int tiles, const unsigned int* prefix, const unsigned int* tile_totals,
                                                int chunks, const unsigned long long* chunk_entries,
                                                unsigned int* running, unsigned int* start, unsigned int* end,
                                                unsigned long long* total) {
    constexpr int kWarps = kThreads / 32;
    __shared__ unsigned int segment_sums[kWarps];
    const int b = blockIdx.x, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int t = threadIdx.x; t < tiles; t += kThreads) running[t] = tile_totals[t];
    __syncthreads();
    const int per = ((tiles + kWarps - 1) / kWarps + 31) & ~31;
    const int t0 = min(tiles, warp * per), t1 = min(tiles, t0 + per);
    unsigned int sum = 0;
    for (int t = t0 + lane; t < t1; t += 32) sum += running[t];
    for (int d = 16; d > 0; d >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, d);
    if (lane == 0) segment_sums[warp] = sum;
    __syncthreads();
    unsigned int carry = 0;
    for (int w = 0; w < warp; ++w) carry += segment_sums[w];
    for (int base = t0; base < t1; base += 32) {  // the same steps in every lane of the warp
        const int t = base + lane;
        const unsigned int n = t < t1 ? running[t] : 0u;
        const unsigned int inclusive = warp_inclusive_scan(n);
        if (t < t1) running[t] = carry + inclusive - n;
        carry += __shfl_sync(0xffffffffu, inclusive, 31);
    }
    __syncthreads();
    for (int t = threadIdx.x; t < tiles; t += kThreads) {
        const unsigned int first = running[t];
        if (b == 0) {
            start[t] = first;
            end[t] = first + tile_totals[t];
        }
        running[t] = first + prefix[size_t(b) * tiles + t];
    }
    if (b == 0) write_pair_total<kThreads>(chunks, chunk_entries, total);  // the same in the whole block
}

/// Entry e of the round: the circle it belongs to (`owner`, its index in
/// the round) and its tile (bx, by) of the circle's range, row by row.
struct RoundEntry {
    int owner, bx, by;
};
__device__ __forceinline__ RoundEntry round_entry(const int* first_entry, const int* tx0, const int* ty0,
                                                  const int* width, int e) {
    const int o = owner_of(first_entry, e);
    const unsigned int k = e - first_entry[o], w = width[o], row = k < w ? 0u : k / w;
    return RoundEntry{o, tx0[o] + int(k - row * w), ty0[o] + int(row)};
}

/// The per-tile state of bin.place's ranking, in shared memory: the 64-bit
/// per-warp counters (a byte a warp) and each tile's running position.
struct PlaceRanks {
    unsigned long long* counters;
    unsigned int* running;
};

/// One window of bin.place's ranking: the thread's entry of tile t (-1:
/// none) gets its position in the tile's list, running[t] + the entries of
/// tile t in earlier warps of the window + its peers in lower lanes, and the
/// window moves the running positions on. Input order is kept: lower
/// windows, warps and lanes hold earlier entries. Contains three barriers
/// (every thread calls it).
__device__ __forceinline__ unsigned int rank_in_window(int t, const PlaceRanks& r) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned long long below_warp = (1ull << (8 * warp)) - 1ull;
    const unsigned int peers = __match_any_sync(0xffffffffu, t);
    const unsigned int group = __popc(peers), lower = __popc(peers & ((1u << lane) - 1u));
    const bool highest = (peers >> lane) == 1u;
    __syncthreads();  // the last window's counters are cleared and its positions moved on
    if (t >= 0 && highest)  // the counter's 32-bit half of this warp: a native shared atomic, no CAS loop
        atomicAdd(reinterpret_cast<unsigned int*>(r.counters + t) + (warp >> 2), group << (8 * (warp & 3)));
    __syncthreads();  // every group of this window is counted
    unsigned int pos = 0, before = 0;
    bool last_group = false;
    if (t >= 0) {
        const unsigned long long n = r.counters[t];
        before = byte_sum(n & below_warp);
        pos = r.running[t] + before + lower;
        last_group = highest && (warp == kThreads / 32 - 1 || (n >> (8 * warp + 8)) == 0);
    }
    __syncthreads();  // every entry has read its tile's counter and position
    if (last_group) {
        r.running[t] += before + group;
        r.counters[t] = 0;
    }
    return pos;
}

/// bin.place's windows straight to global memory (the default): each
/// window's 256 entries are ranked and stored where they belong, a warp's
/// 32 stores to as many tiles' lists as its entries have tiles.
__device__ __forceinline__ void place_round_direct(int entries, int64_t r0, const uint2* ranges, const TileGrid& g,
                                                   int split_shift, const int* first_entry, const int* tx0,
                                                   const int* ty0, const int* width, const PlaceRanks& r,
                                                   unsigned long long capacity, int* list, uint2* pairs) {
    for (int w0 = 0; w0 < entries; w0 += kThreads) {  // the same windows in every thread
        const int e = w0 + threadIdx.x;
        int t = -1, circle = 0;
        unsigned int mask = 0;
        if (e < entries) {
            const RoundEntry en = round_entry(first_entry, tx0, ty0, width, e);
            t = en.by * g.tiles_x + en.bx;
            circle = static_cast<int>(r0 + en.owner);
            if (pairs) mask = tiles_in_bin(unpack_range(ranges[r0 + en.owner]), en.bx, en.by, 1 << split_shift);
        }
        const unsigned int pos = rank_in_window(t, r);
        if (t >= 0 && pos < capacity) {
            if (pairs) pairs[pos] = make_uint2(static_cast<unsigned int>(circle), mask);
            else list[pos] = circle;
        }
    }
}

constexpr int kOwnerBits = 10;       ///< bits of a round's circle index (kRoundCircles = 1024)
static_assert(kRoundCircles == 1 << kOwnerBits, "an owner index fits kOwnerBits");
static_assert(kMaxCountTiles <= (1 << (31 - kOwnerBits)), "a tile and an owner fit one int");

/// Staged bin.place's scratch in dynamic shared memory: by entry of the
/// batch, its (tile << kOwnerBits) | owner; by slot, the entry (circle,
/// mask) and its position; by tile, slot_of (batch_slots).
struct StageScratch {
    uint2* staged;
    int* tile_owner;
    unsigned int* staged_pos;
    unsigned int* slot_of;
};

/// Staged bin.place's slots of one batch: slot_of[t] holds tile t's number
/// of entries in the batch and becomes running[t] - (the batch's entries of
/// the tiles before t), so an entry at position pos goes to slot pos -
/// slot_of[t]: the batch's entries sorted by tile, each tile's in input
/// order. As start_positions scans: each warp a segment of consecutive
/// tiles, its lanes on consecutive words (no bank conflicts), after the
/// sums of the segments before it. One barrier (every thread calls it);
/// the caller's next barrier fences the new slot_of.
__device__ __forceinline__ void batch_slots(int tiles, const unsigned int* running, unsigned int* slot_of,
                                            int* warp_totals) {
    constexpr int kWarps = kThreads / 32;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int per = ((tiles + kWarps - 1) / kWarps + 31) & ~31;
    const int t0 = min(tiles, warp * per), t1 = min(tiles, t0 + per);
    int sum = 0;  // a batch's entries: at most kStageEntries
    for (int t = t0 + lane; t < t1; t += 32) sum += int(slot_of[t]);
    for (int d = 16; d > 0; d >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, d);
    if (lane == 0) warp_totals[warp] = sum;
    __syncthreads();
    unsigned int carry = 0;
    for (int w = 0; w < warp; ++w) carry += unsigned(warp_totals[w]);
    for (int base = t0; base < t1; base += 32) {  // the same steps in every lane of the warp
        const int t = base + lane;
        const unsigned int n = t < t1 ? slot_of[t] : 0u;
        const unsigned int inclusive = warp_inclusive_scan(n);
        if (t < t1) slot_of[t] = running[t] - (carry + inclusive - n);
        carry += __shfl_sync(0xffffffffu, inclusive, 31);
    }
}

/// bin.place's windows staged per batch (CR_CUDA_OPTIONS place=staged):
/// the round's entries, kStageEntries at a time, are (1) found and counted
/// per tile, (2) given slots sorted by tile (batch_slots), (3) ranked by
/// the same windows as place_round_direct and put in their slot in shared
/// memory with their position, and (4) written out by consecutive threads
/// from consecutive slots: a warp's 32 stores go to runs of consecutive
/// positions (about 7 entries a tile on rand1M's 256 bins, against one
/// entry a tile in a direct window). Barriers: one after (1), one in (2),
/// three a window in (3), one after (3) and one after (4), which also ends
/// the round; every loop that holds one has block-uniform bounds.
__device__ __forceinline__ void place_round_staged(int entries, int64_t r0, const uint2* ranges, const TileGrid& g,
                                                   int split_shift, const int* first_entry, const int* tx0,
                                                   const int* ty0, const int* width, const PlaceRanks& r,
                                                   const StageScratch& st, int* warp_totals,
                                                   unsigned long long capacity, int* list, uint2* pairs) {
    unsigned int* slot_of = st.slot_of;
    const int tiles = g.tile_count();
    for (int b0 = 0; b0 < entries; b0 += kStageEntries) {  // the same batches in every thread
        const int n = min(kStageEntries, entries - b0);
        for (int j = threadIdx.x; j < n; j += kThreads) {
            const RoundEntry en = round_entry(first_entry, tx0, ty0, width, b0 + j);
            const int t = en.by * g.tiles_x + en.bx;
            st.tile_owner[j] = t << kOwnerBits | en.owner;
            atomicAdd(slot_of + t, 1u);
        }
        __syncthreads();  // the batch's tiles are counted
        batch_slots(tiles, r.running, slot_of, warp_totals);
        for (int w0 = 0; w0 < n; w0 += kThreads) {  // the same windows in every thread
            const int j = w0 + threadIdx.x;
            const int packed = j < n ? st.tile_owner[j] : -1;
            const int t = packed < 0 ? -1 : packed >> kOwnerBits;
            const unsigned int pos = rank_in_window(t, r);  // its first barrier fences batch_slots' writes
            if (t >= 0) {
                const int owner = packed & ((1 << kOwnerBits) - 1);
                unsigned int mask = 0;
                if (pairs) {
                    const int by = t / g.tiles_x;
                    mask = tiles_in_bin(unpack_range(ranges[r0 + owner]), t - by * g.tiles_x, by, 1 << split_shift);
                }
                const unsigned int slot = pos - slot_of[t];
                st.staged[slot] = make_uint2(static_cast<unsigned int>(r0 + owner), mask);
                st.staged_pos[slot] = pos;
            }
        }
        __syncthreads();  // every entry of the batch is in its slot (and the running positions are moved on)
        for (int j = threadIdx.x; j < n; j += kThreads) {
            const unsigned int pos = st.staged_pos[j];
            if (pos < capacity) {
                if (pairs) pairs[pos] = st.staged[j];
                else list[pos] = static_cast<int>(st.staged[j].x);
            }
        }
        for (int t = threadIdx.x; t < tiles; t += kThreads) slot_of[t] = 0;
        __syncthreads();  // the slots are written out and the counts cleared before the next batch
    }
}

/// bin.place (see the file comment). With split_shift > 0 the tiles of
/// `g` are bins of 2^split_shift x 2^split_shift tiles that bin.split
/// splits next, `ranges` holds fine ranges (bin.count), coarsened here,
/// and each entry is written to `pairs` instead of `list`: its circle and
/// the mask of the bin's tiles its fine range overlaps (tiles_in_bin; the
/// range is read again from `ranges`, where this round's loads left it in
/// L1). One 8-byte store: writing the mask to an array of its own measured
/// twice as slow as the circle alone (two scattered stores an entry).
/// STAGED: each round's entries go through shared memory in tile order
/// (place_round_staged) instead of straight to their positions.
template <bool STAGED>
__global__ void __launch_bounds__(kThreads)
    bin_place_kernel(int64_t count, const uint2* ranges, TileGrid g, int split_shift, int64_t per_chunk,
                     const unsigned int* prefix, const unsigned int* tile_totals,
                     const unsigned long long* chunk_entries, unsigned long long capacity, int* list, uint2* pairs,
                     unsigned int* start, unsigned int* end, unsigned long long* total) {
    static_assert(kThreads / 32 <= 8, "one byte of the 64-bit counters per warp");
    // [tiles] counters, (STAGED) staged[kStageEntries], running[tiles], (STAGED) slot_of[tiles],
    // tile_owner[kStageEntries], staged_pos[kStageEntries]
    extern __shared__ unsigned long long counters[];
    __shared__ __align__(16) int first_entry[kRoundCircles], tx0[kRoundCircles], ty0[kRoundCircles],
        width[kRoundCircles];
    __shared__ int warp_totals[kThreads / 32];
    const int tiles = g.tile_count(), b = blockIdx.x;
    uint2* staged = reinterpret_cast<uint2*>(counters + tiles);
    const PlaceRanks r{counters, reinterpret_cast<unsigned int*>(staged + (STAGED ? kStageEntries : 0))};
    StageScratch st{};  // STAGED only: past the direct kernel's allocation otherwise
    if constexpr (STAGED) {
        unsigned int* slot_of = r.running + tiles;
        int* tile_owner = reinterpret_cast<int*>(slot_of + tiles);
        st = StageScratch{staged, tile_owner, reinterpret_cast<unsigned int*>(tile_owner + kStageEntries), slot_of};
    }
    for (int t = threadIdx.x; t < tiles; t += kThreads) {
        counters[t] = 0;
        if constexpr (STAGED) st.slot_of[t] = 0;
    }
    start_positions(tiles, prefix, tile_totals, gridDim.x, chunk_entries, r.running, start, end, total);
    const int64_t c0 = int64_t(b) * per_chunk, c1 = min(count, c0 + per_chunk);
    for (int64_t r0 = c0; r0 < c1; r0 += kRoundCircles) {  // the same rounds in every thread
        const int entries = number_round(ranges, split_shift, r0, c1, first_entry, tx0, ty0, width, warp_totals);
        __syncthreads();  // first_entry and the tile ranges are complete (and, first round, the counters)
        if constexpr (STAGED) {  // its batches end with a barrier; a round without entries read no scratch
            place_round_staged(entries, r0, ranges, g, split_shift, first_entry, tx0, ty0, width, r, st, warp_totals,
                               capacity, list, pairs);
        } else {
            place_round_direct(entries, r0, ranges, g, split_shift, first_entry, tx0, ty0, width, r, capacity, list,
                               pairs);
            __syncthreads();  // the next round rewrites the scratch this one read
        }
    }
}

}  // namespace

namespace {

/// The most dynamic shared memory bin_place_kernel<STAGED> may use on the
/// current device: the device's opt-in limit a block less the kernel's
/// static arrays.
template <bool STAGED>
size_t place_shared_limit() {
    int device = 0, optin = 0;
    CR_CUDA(cudaGetDevice(&device));
    CR_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    cudaFuncAttributes attr{};
    CR_CUDA(cudaFuncGetAttributes(&attr, bin_place_kernel<STAGED>));
    return optin > int(attr.sharedSizeBytes) ? size_t(optin) - attr.sharedSizeBytes : 0;
}

/// The most tiles bin.place takes when it may use `limit` bytes of dynamic shared memory.
int tiles_fitting(size_t limit, bool staged) {
    const size_t fixed = place_shared_bytes(0, staged);
    if (limit <= fixed) return 0;
    const size_t per_tile = place_shared_bytes(1, staged) - fixed;
    return static_cast<int>(std::min<size_t>(kMaxCountTiles, (limit - fixed) / per_tile));
}

/// Lets bin_place_kernel<STAGED> use the device's whole allowance (the same
/// value from every renderer and thread, set once at setup instead of at
/// each launch) and returns the tiles it then takes.
template <bool STAGED>
int allow_place_shared() {
    const size_t limit = place_shared_limit<STAGED>();
    CR_CUDA(cudaFuncSetAttribute(bin_place_kernel<STAGED>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(limit)));
    return tiles_fitting(limit, STAGED);
}

/// log2 of `coarse` (1, 2 or 4; std::invalid_argument otherwise).
int split_shift_of(int coarse) {
    if (coarse != 1 && coarse != 2 && coarse != 4)
        throw std::invalid_argument("bin.count: bins of 1x1, 2x2 or 4x4 tiles only");
    return coarse == 4 ? 2 : coarse == 2 ? 1 : 0;
}

}  // namespace

int count_tile_limit() { return tiles_fitting(place_shared_limit<false>(), false); }

int staged_place_tile_limit() { return tiles_fitting(place_shared_limit<true>(), true); }

CountChunks count_chunks(int64_t circles, int tiles, int chunks_per_sm, int split_coarse, bool staged) {
    const int shift = split_shift_of(split_coarse);
    if (tiles > allow_place_shared<false>())
        throw std::invalid_argument("bin.count: more tiles than the counting sort takes on this GPU (count_tile_limit)");
    if (staged && tiles > allow_place_shared<true>())
        throw std::invalid_argument("bin.place: more tiles than its staged windows take on this GPU (" +
                                    std::to_string(tiles) + "; CR_CUDA_OPTIONS place=direct takes them)");
    int device = 0, sms = 1;
    CR_CUDA(cudaGetDevice(&device));
    CR_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int64_t most = std::max<int64_t>(1, (circles + kRoundCircles - 1) / kRoundCircles);  // a round of circles at least
    const int chunks = static_cast<int>(std::min<int64_t>(int64_t(sms) * std::max(chunks_per_sm, 1), most));
    return CountChunks{chunks, (std::max<int64_t>(circles, 1) + chunks - 1) / chunks, tiles, shift, staged};
}

void launch_bin_count(const DeviceCircles& c, const TileGrid& g, const CountChunks& k, unsigned int* counts,
                      unsigned long long* chunk_entries, uint2* ranges, cudaStream_t s) {
    if (g.tile <= 0 || (g.tile & (g.tile - 1)) != 0 || (g.tile >> k.split_shift) == 0)
        throw std::invalid_argument("bin.count: tiles (bins) of 2^n pixels only, at least 2^split_shift a side");
    const size_t shared = size_t(g.tile_count()) * sizeof(unsigned int);
    bin_count_kernel<<<k.chunks, kCountBlock, shared, s>>>(c, g, k.split_shift, k.per_chunk, counts, chunk_entries, ranges);
    check_launch("bin_count_kernel");
}

void launch_chunk_prefix(const unsigned int* counts, int tiles, const CountChunks& k, unsigned int* prefix,
                         unsigned int* tile_totals, cudaStream_t s) {
    chunk_prefix_kernel<<<(tiles + kPrefixTiles - 1) / kPrefixTiles, kPrefixTiles * kSegments, 0, s>>>(
        counts, tiles, k.chunks, prefix, tile_totals);
    check_launch("chunk_prefix_kernel");
}

void launch_count_total(const CountChunks& k, const unsigned long long* chunk_entries, unsigned long long* total,
                        cudaStream_t s) {
    count_total_kernel<<<1, kTotalThreads, 0, s>>>(k.chunks, chunk_entries, total);
    check_launch("count_total_kernel");
}

void launch_bin_place(const PlaceLaunch& l, cudaStream_t s) {
    const CountChunks& k = l.k;
    if (l.g.tile_count() > k.tiles) throw std::invalid_argument("bin.place: a grid of more tiles than count_chunks took");
    if ((k.split_shift > 0) != (l.pairs != nullptr) || (k.split_shift == 0 && l.list == nullptr))
        throw std::invalid_argument("bin.place: bins to split take `pairs`, single tiles `list`");
    const size_t shared = place_shared_bytes(l.g.tile_count(), k.staged);
    auto* kernel = k.staged ? bin_place_kernel<true> : bin_place_kernel<false>;
    kernel<<<k.chunks, kThreads, shared, s>>>(l.count, l.ranges, l.g, k.split_shift, k.per_chunk, l.prefix,
                                              l.tile_totals, l.chunk_entries, l.capacity, l.list, l.pairs, l.tile_start,
                                              l.tile_end, l.total);
    check_launch(k.staged ? "bin_place_kernel (staged)" : "bin_place_kernel");
}

}  // namespace cr
