// Stage "shade" of the tiled and persistent kernels.
//
// Who does what: one thread block shades one tile of TILE x TILE pixels.
// The block has TILE * TILE / ROWS threads; thread t owns a vertical strip
// of ROWS pixels: column t % TILE, rows (t / TILE) * ROWS ... + ROWS - 1.
// Threads whose pixels lie outside the image (partial tiles at the right and
// top edges) take part in everything but never read or write the image.
//
// Who owns which pixel, the quad layout (VARIANT kQuads, CR_CUDA_OPTIONS
// layout=quads; 16x16 tiles, 4 pixels a thread, no culling, no early stop):
// lane l of warp w owns (l % 8, w * 8 + l / 8) and the pixels 8 columns
// and 4 rows from it. Step 3 below blends a thread's pixels one index r at
// a time, and a warp runs a covered circle's math for index r when any of
// its 32 lanes is covered there: in a strip those 32 pixels are two rows of
// 16, four rows apart; with quads a block of 8 x 4. A snow flake (about 28
// pixels across on snowsingle) covers part of a warp's 16 x 8 pixels: over
// the stand-in's lists, the blocks make 2.85 M runs of the snow math with
// 70% of their lanes useful, the strips 3.68 M at 54%
// (scripts/probes/tile_walk_model.cpp diverge:snowsingle:4:1). Same
// coverage tables (two column and two row entries a hit instead of one and
// four), same order, same images.
//
// The tile's circle list (from binning, or all circles when binning is
// skipped) is walked in chunks of one circle per thread. Each thread loads
// its circle of the NEXT chunk before working on this one (software
// pipelining, tile_list.cuh's Candidate), so the list and geom reads are in
// flight while the block computes.
//   1. each thread takes one circle of the chunk and runs the exact
//      circle-tile test (flag 0 or 1) -- binning was only conservative;
//   2. a block-level exclusive scan of the flags gives every hit its
//      position (kernels/block_scan.cuh, block_exclusive_scan_flags: a
//      ballot and a popcount per warp, one __syncthreads()); the hit thread
//      writes its circle, in input order, to a shared-memory list (stream
//      compaction), with its coverage tables: the squared distances from
//      the circle's center to the tile's 16 column centers and 16 row
//      centers (tile_list.cuh, CoverageTables). A chunk without hits ends
//      here (the scan's total is the same in every thread);
//   3. __syncthreads(); every thread walks the shared list in order and
//      blends covered circles into its ROWS pixels, held in registers. A
//      pixel's d2 is one add of two table entries (bit-identical to cpuref's
//      dx*dx + dy*dy, each rounded); all threads read the same list entry
//      (a broadcast), lanes read 16 consecutive column entries (no bank
//      conflicts);
//   4. __syncthreads() before the next chunk overwrites the list.
// Every thread reaches every barrier: loop bounds and the skip of empty
// chunks depend only on values the whole block shares (list bounds, the
// scan's total). Order is kept because the list is in input order and each
// pixel belongs to exactly one thread: no atomics are needed on pixels.
// Each pixel is read once at the start and written once at the end; a
// warp's 32 threads cover two 16-pixel row segments of 256 contiguous bytes
// each, so those accesses coalesce. When the frame's clear was deferred
// (`from_background`), pixels start from the background instead of a read.
//
// Flat shading uses alpha = .5: the blend .5*c + .5*p is computed as
// fma(.5, p, .5*c) with .5*c stored in the list. Halving is exact, so this
// single rounding gives the same float as the CPU's two products and a sum.
//
// Alpha: every pixel is written with alpha 1, what the clear writes (so
// what every pass reads). cpuref's alpha is 1 plus the sum of the alphas
// blended; every file clamps it to 1 and --check ignores it, so R, G and B
// are all the written image holds, and those are cpuref's floats. Not adding
// the alphas saves one add per covered pixel, a sixth of a flat blend, and
// not carrying the incoming one four registers a thread (docs/KERNELS.md,
// "Alpha"; docs/PERFORMANCE.md measures both).
//
// Tiled with the early stop: block b shades tile order[b], the tiles by
// their work (chunks) in the frame before, longest first, in four groups
// (launch_recorded_order; each block records its tile's chunks for the
// next frame in StopParams::tile_work). Blocks start in about block order,
// so the long tiles no longer start last and finish alone. The persistent
// kernel with the early stop hands its tiles out in the same order.
//
// Persistent variant: the grid has only as many blocks as fit on the GPU at
// once; thread 0 takes the next tile from a global atomic counter and shares
// it through shared memory; the block loops until no tiles are left. When
// binning produced per-tile loads, tiles are handed out heaviest first
// (`order`), so the long tiles start early and the short ones fill the gaps
// at the end instead of one heavy tile finishing alone. The first frame's
// order is by list length (bin.order); each later frame's is the recorded
// order of the work the frame before recorded: thread 0 of the block that
// takes a tile writes the tile's list length (without the early stop) or
// the chunks it walked (with it) to StopParams::tile_work.
#include <climits>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/bin_plan.h"
#include "kernels/tile_list.cuh"
#include "kernels/cuda_check.h"
#include "kernels/stages.h"

namespace cr {

namespace {

using namespace tiles;

/// True when some lane of the warp owns a pixel in the circle's pixel box
/// (every lane of the warp calls it: the loop over hits is block-uniform).
template <int ROWS>
__device__ __forceinline__ bool warp_needs(const Strip<ROWS>& s, float4 geom, const TileGrid& g) {
    const PixelBox b = circle_pixel_box(geom.x, geom.y, geom.z, g.width, g.height);
    const bool mine = s.px >= b.min_x && s.px < b.max_x && s.py0 < b.max_y && s.py0 + ROWS > b.min_y;
    return __any_sync(0xffffffffu, mine);
}

/// Blends hit i of the chunk into the thread's ROWS pixels (registers): R,
/// G and B only (alpha is written as 1: "Alpha" in the file comment); the
/// coverage tables give d2 with one add a pixel. Snow with
/// kSnowReciprocal divides by the radius from its reciprocal where the list
/// holds one (a branch a hit, the same in every lane that blends the hit;
/// with strip masks lanes walk different hits, and no barrier is inside).
template <int THREADS, int ROWS, int VARIANT, int TILE, bool SNOW>
__device__ __forceinline__ void blend_hit(Strip<ROWS>& s, int i, const TileShared<THREADS, VARIANT, TILE>& sh) {
    const float4 col = sh.list.color(i);
    float d2[ROWS];
    pixel_distances<VARIANT>(sh.tab, i, s.lx, s.ly0, d2);
    const auto rows = [&](auto by_reciprocal) {
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            if (d2[r] <= col.w) {  // false for NaN: outside an extreme circle's box
                float4& a = s.acc[r];
                if (SNOW) {
                    const float radius = sh.list.geom(i).z;
                    if constexpr (decltype(by_reciprocal)::value)
                        blend_rgb(a.x, a.y, a.z, shade_snow_reciprocal(d2[r], radius, col.z, col.x));
                    else
                        blend_rgb(a.x, a.y, a.z, shade_snow_scaled(d2[r], radius, col.x));
                } else {
                    a.x = fmaf(.5f, a.x, col.x);
                    a.y = fmaf(.5f, a.y, col.y);
                    a.z = fmaf(.5f, a.z, col.z);
                }
            }
        }
    };
    if (SNOW && (VARIANT & kSnowReciprocal) != 0 && col.z != 0.f) rows(std::true_type{});
    else rows(std::false_type{});
}

/// Step 3's walk: op(i) for each hit i of the chunk this thread's pixels
/// may need, in input order. All threads read the same list entry (a
/// broadcast). With strip masks a thread walks only its mask's bits, lowest
/// (earliest) first; lanes then read different entries.
template <int THREADS, int ROWS, int VARIANT, int TILE, class Op>
__device__ __forceinline__ void for_each_hit(const Strip<ROWS>& s, int hits, const TileGrid& g,
                                             const TileShared<THREADS, VARIANT, TILE>& sh, Op op) {
    if constexpr ((VARIANT & kStripMask) != 0) {
        for (unsigned long long m = strip_hits(sh); m != 0; m &= m - 1) op(__ffsll(static_cast<long long>(m)) - 1);
    } else {
        for (int i = 0; i < hits; ++i) {
            if ((VARIANT & kWarpCull) && !warp_needs(s, sh.list.geom(i), g)) continue;  // warp-uniform
            if constexpr ((VARIANT & kRowCull) != 0)
                if (row_mask_skips<TILE, ROWS>(sh.list.geom(i).w)) continue;  // warp-uniform
            op(i);
        }
    }
}

/// Step 3: every thread blends the chunk's hits into its ROWS pixels.
template <int THREADS, int ROWS, int VARIANT, int TILE, bool SNOW>
__device__ __forceinline__ void blend_list(Strip<ROWS>& s, int hits, const TileGrid& g,
                                           const TileShared<THREADS, VARIANT, TILE>& sh) {
    for_each_hit<THREADS, ROWS, VARIANT, TILE>(s, hits, g, sh,
                                               [&](int i) { blend_hit<THREADS, ROWS, VARIANT, TILE, SNOW>(s, i, sh); });
}

/// This thread's pixels of tile (tx, ty) (see the file comment): a strip,
/// column threadIdx.x % TILE, rows (threadIdx.x / TILE) * ROWS .. + ROWS -
/// 1; with the quad layout (kQuads), lane l of warp w starts at column l %
/// 8, row w * 8 + l / 8.
template <int TILE, int ROWS, int VARIANT = 0>
__device__ __forceinline__ Strip<ROWS> strip_of_thread(int tx, int ty) {
    Strip<ROWS> s;
    if constexpr ((VARIANT & kQuads) != 0) {
        const int lane = static_cast<int>(threadIdx.x & 31), warp = static_cast<int>(threadIdx.x >> 5);
        s.lx = lane & 7;
        s.ly0 = warp * 8 + (lane >> 3);
    } else {
        s.lx = static_cast<int>(threadIdx.x % TILE);
        s.ly0 = static_cast<int>(threadIdx.x / TILE) * ROWS;
    }
    s.px = tx * TILE + s.lx;
    s.py0 = ty * TILE + s.ly0;
    return s;
}

/// The thread's incoming pixels into `in`: the background where the frame's
/// clear was deferred (`from_background`) or outside the image, else the
/// image's pixels (a warp's read of one pixel index: two 256-byte rows, or
/// with quads four 128-byte rows; whole sectors either way).
template <int ROWS, int VARIANT = 0>
__device__ __forceinline__ void load_incoming(const Strip<ROWS>& s, const DeviceCircles& c, const TileGrid& g,
                                              const float4* image, bool from_background, float4 (&in)[ROWS]) {
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
        const int px = s.px + pixel_dx<VARIANT>(k), py = s.py0 + pixel_dy<VARIANT>(k);
        const float bg = background_value(c.shade, py, g.height);
        in[k] = make_float4(bg, bg, bg, 1.f);
        if (!from_background && px < g.width && py < g.height) in[k] = image[size_t(py) * g.width + px];
    }
}

/// Writes the thread's pixels that lie inside the image (coalesced as
/// load_incoming), alpha 1: what the clear wrote, and so what every pass
/// read (see "Alpha" above; the register of the incoming alpha is free).
template <int ROWS, int VARIANT = 0>
__device__ __forceinline__ void store_strip(const Strip<ROWS>& s, const TileGrid& g, float4* image) {
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
        const int px = s.px + pixel_dx<VARIANT>(k), py = s.py0 + pixel_dy<VARIANT>(k);
        if (px < g.width && py < g.height)
            image[size_t(py) * g.width + px] = make_float4(s.acc[k].x, s.acc[k].y, s.acc[k].z, 1.f);
    }
}

/// Shades one tile. `from_background`: the frame's clear was deferred to
/// this launch, so the pixels start from the background instead of being
/// read (the renderer's clear() then launches nothing: one 16 MB write and
/// one 16 MB read fewer at 1024x1024).
template <int TILE, int ROWS, int VARIANT, bool SNOW>
__device__ __forceinline__ void shade_tile(const DeviceCircles& c, const TileLists& lists, const TileGrid& g,
                                           float4* image, bool from_background, int tile_id,
                                           TileShared<TILE * TILE / ROWS, VARIANT, TILE>& sh) {
    constexpr int kThreads = TILE * TILE / ROWS;
    static_assert((VARIANT & kQuads) == 0 || (VARIANT & (kRowCull | kStripMask | kWarpCull)) == 0,
                  "culling walks the strips layout");
    const int tx = tile_id % g.tiles_x, ty = tile_id / g.tiles_x;
    Strip<ROWS> s = strip_of_thread<TILE, ROWS, VARIANT>(tx, ty);
    set_tile_centers(sh, g, tx, ty);
    load_incoming<ROWS, VARIANT>(s, c, g, image, from_background, s.acc);
    const int64_t begin = lists.begin_of(tx, ty);
    const int64_t end = lists.end_of(tx, ty);
    Candidate next = load_candidate<VARIANT>(c, lists, begin + threadIdx.x, begin, end);
    for (int64_t base = begin, chunk = 0; base < end; base += kThreads, ++chunk) {
        const Candidate cand = next;
        next = load_candidate<VARIANT>(c, lists, base + kThreads + threadIdx.x, begin, end);  // used by the next chunk
        const int hits = compact_chunk<kThreads, VARIANT, TILE, SNOW>(c, cand, g, tx, ty, chunk, sh);
        if (hits == 0) continue;  // the same in every thread: nothing listed, nothing to wait for
        __syncthreads();  // the list is complete
        blend_list<kThreads, ROWS, VARIANT, TILE, SNOW>(s, hits, g, sh);
        __syncthreads();  // everyone is done with the list before the next chunk overwrites it
    }
    store_strip<ROWS, VARIANT>(s, g, image);
}

// ---- Coalescence: exact early stopping (VARIANT kCoalesce) -----------------
//
// Why it is exact (docs/KERNELS.md, "Exact and early"; render/core/coalesce.h):
// a blend step is monotone in the incoming value, so if blends k..n take the
// lowest and the highest value any pixel can hold (ValueBounds lo, hi) to the
// same float, they take every incoming value there, and blends 0..k-1 cannot
// change a bit of the result.
//
// Who does what (same threads, strips, chunks and compaction as shade_tile):
//   1. Backward, to find the start: the tile's list is walked chunk by chunk
//      from its end, chunks counted from the end (the last chunk whole, the
//      first partial, as the guessed start's window); each thread
//      multiplies the gap (hi - lo) of ONE of its pixels, row lx % 4 of its
//      strip (a diagonal sample that meets every row and column of the
//      tile), by (1 - alpha) of every covering hit, blending nothing.
//      Before each chunk, __syncthreads_and(every sampled gap < 2^-32)
//      stops the walk for the whole block: the window starts after the
//      last chunk walked (pixels outside the image count as done). A walk
//      that reaches the list's start gives the whole list. The sample only
//      chooses the window; step 3 proves every pixel, and a pixel the
//      sample missed sends the block to a longer window.
//   2. Forward, two trajectories: from the window's first chunk to the
//      end, compacted again (all but the first: the walk's last chunk is
//      that one, its list still in shared memory), every pixel blends each
//      hit into both trajectories with cpuref's rounding (shade_tile's
//      blend_hit math), starting at lo and hi; for the whole list one
//      trajectory from the pixel's own incoming value (plain shading).
//      After each chunk, a warp whose pixels' trajectories are all equal
//      blends only one from then on (the guessed start's forward pass,
//      blend_window below, shared by both starts).
//   3. Decide: __syncthreads_and(every pixel's trajectories are equal): then
//      each pixel writes its value, bit for bit cpuref's; else (rare: the
//      2^-32 margin makes them meet, but a pixel outside the sample may
//      not have) the block tries again with a window of the list's end
//      twice as long (doubled_window_first: at least two chunks), up to the
//      whole list from the pixels' own values, which is exact by
//      construction.
// Every loop bound and every exit is block-uniform (the list bounds, the
// scan's totals, the answers of __syncthreads_and), so every thread reaches
// every barrier. Alpha is the one channel that does not merge (a sum, not a
// blend); like every pass of these kernels, the window writes alpha 1
// ("Alpha" above).
// The walk's stop, StopParams::walk_gap: 2^-32 by default, as
// first_window_of (render/cpu/coalescence.cpp); CR_CUDA_OPTIONS gap=N
// raises it to force second tries.

/// Step 1 for one hit: shrinks the gap of the thread's sampled pixel (row
/// `row` of its strip) by (1 - alpha) when the hit covers it. Snow's alpha
/// is estimated with the fast exponential: the gap only chooses where to
/// start, step 3 proves the result.
template <int THREADS, int ROWS, int VARIANT, int TILE, bool SNOW>
__device__ __forceinline__ void shrink_gap(float& gap, const Strip<ROWS>& s, int row, int i,
                                           const TileShared<THREADS, VARIANT, TILE>& sh) {
    const float4 col = sh.list.color(i);
    const float d2 = add_rn(sh.tab.dx2[i][s.lx], sh.tab.dy2[i][s.ly0 + row]);
    if (d2 <= col.w) gap *= SNOW ? 1.f - col.x * __expf(-4.f * d2 * col.y) : .5f;  // NaN: never done
}

/// Step 2 for one hit: blends it into both trajectories (lo in s.acc's R,
/// G and B, hi in `hi`), rounded as cpuref rounds (see blend_hit).
template <int THREADS, int ROWS, int VARIANT, int TILE, bool SNOW>
__device__ __forceinline__ void blend_hit_twice(Strip<ROWS>& s, float3 (&hi)[ROWS], int i,
                                                const TileShared<THREADS, VARIANT, TILE>& sh) {
    const float4 col = sh.list.color(i);
    float d2[ROWS];
    strip_distances(sh.tab, i, s.lx, s.ly0, d2);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        if (!(d2[r] <= col.w)) continue;
        float4& a = s.acc[r];
        if (SNOW) {
            const Fragment f = shade_snow_scaled(d2[r], sh.list.geom(i).z, col.x);
            blend_rgb(a.x, a.y, a.z, f);
            blend_rgb(hi[r].x, hi[r].y, hi[r].z, f);
        } else {
            a.x = fmaf(.5f, a.x, col.x);
            a.y = fmaf(.5f, a.y, col.y);
            a.z = fmaf(.5f, a.z, col.z);
            hi[r].x = fmaf(.5f, hi[r].x, col.x);
            hi[r].y = fmaf(.5f, hi[r].y, col.y);
            hi[r].z = fmaf(.5f, hi[r].z, col.z);
        }
    }
}

/// True when every pixel of the strip inside the image satisfies `ok(r)`.
template <int ROWS, class Ok>
__device__ __forceinline__ bool strip_all(const Strip<ROWS>& s, const TileGrid& g, Ok ok) {
    bool all = true;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) all = all && (s.px >= g.width || s.py0 + r >= g.height || ok(r));
    return all;
}

/// The row of its strip whose pixel thread t samples in step 1: lx % 4, so
/// the 4 x 4 pixels of a warp's lanes 0-3 x rows form a diagonal and every
/// row and column of the tile is sampled (the last row inside the image
/// where that row lies below it).
template <int ROWS>
__device__ __forceinline__ int sampled_row(const Strip<ROWS>& s, const TileGrid& g) {
    const int row = s.lx % ROWS;
    return s.py0 + row < g.height ? row : max(0, g.height - 1 - s.py0);
}

/// Step 1: the window's first list position, where the sampled pixel of
/// every thread has its gap below `done`: chunks of kThreads positions
/// counted from the list's END (the last chunk whole, as the guessed
/// start's window), walked back from there; `end` itself (an empty window)
/// when hi - lo is below `done` already; at or before `begin` (the whole
/// list, from the pixels' own values) when the walk reaches the list's
/// start. Pixels outside the image count as done. `listed`: the hits of
/// the last chunk walked, the window's first, whose list and tables are
/// still in shared memory for step 2 (-1 when no chunk was walked).
template <int TILE, int ROWS, int VARIANT, bool SNOW>
__device__ __forceinline__ int64_t find_window_first(const DeviceCircles& c, const TileLists& lists,
                                                     const TileGrid& g, const Strip<ROWS>& s, int tx, int ty,
                                                     int64_t begin, int64_t end, ValueBounds b, float done,
                                                     int& listed, TileShared<TILE * TILE / ROWS, VARIANT, TILE>& sh) {
    constexpr int kThreads = TILE * TILE / ROWS;
    const int row = sampled_row(s, g);
    const bool outside = s.px >= g.width || s.py0 + row >= g.height;
    float gap = b.hi - b.lo;
    int64_t first = end;
    listed = -1;
    Candidate next = load_candidate<VARIANT>(c, lists, first - kThreads + threadIdx.x, begin, end);
    for (int chunk = 0; first > begin; ++chunk, first -= kThreads) {  // chunk: the scan's parity
        if (__syncthreads_and(outside || gap < done)) return first;
        const Candidate cand = next;
        next = load_candidate<VARIANT>(c, lists, first - 2 * kThreads + threadIdx.x, begin, end);  // the chunk before
        const int hits = compact_chunk<kThreads, VARIANT, TILE, SNOW>(c, cand, g, tx, ty, chunk, sh);
        listed = hits;
        if (hits == 0) continue;
        __syncthreads();  // the list is complete
        for_each_hit<kThreads, ROWS, VARIANT, TILE>(
            s, hits, g, sh, [&](int i) { shrink_gap<kThreads, ROWS, VARIANT, TILE, SNOW>(gap, s, row, i, sh); });
        // the next iteration's __syncthreads_and keeps the list until everyone is done with it
    }
    return first;
}

// ---- Guessed start (VARIANT kCoalesce | kGuess) ----------------------------
//
// The same proof, a cheaper way to the start (scripts/probes/
// tile_walk_model.cpp models both on the CPU). Step 1 above visits every
// chunk of the window once more (its loads, its scan, its barriers: about
// half of the shading's time goes to chunks, by the model's fit to the
// measured kernel, docs/PERFORMANCE.md) and costs about a third of the
// instructions on the deep scenes; its start is rounded to a chunk anyway.
// Here there is no walk back:
//   1. Window: the last `window` chunks of the tile's list, chunks counted
//      from the list's END (so the last chunk is whole and the partial one
//      is the first), `window` = the list's length x window_per_candidate
//      (CudaOptions::guess_hits covering circles a pixel at the scene's
//      mean coverage; kGuessHits by default)
//      / 64, at least 1.
//   2. Forward, two trajectories, as above; after each chunk, a warp whose
//      pixels' trajectories are all equal (__all_sync: warp-uniform) blends
//      only one from then on: equal trajectories stay equal, so one of them
//      is both. The warps of a block may differ; each warp's branch is
//      uniform and both reach the same barriers.
//   3. Decide: __syncthreads_and(every warp blended one, or its pixels'
//      trajectories are equal): exact. Else the window doubles, down to the
//      whole list from the pixels' own values (one trajectory, plain
//      shading), exact by construction.
// Barriers a chunk: two (the scan's, the list complete), not shade_tile's
// three: the list is written only after the next chunk's scan barrier, so
// the barrier after blending is needed only by strip masks (cleared before
// the scan's barrier, tile_list.cuh).

/// Where a window of the last `candidates` list positions of the tile's
/// list [begin, end) starts: never more than THREADS - 1 positions before
/// `begin` (a position <= begin is the whole list, from the pixels' own
/// values).
template <int THREADS>
__device__ __forceinline__ int64_t window_first(int64_t begin, int64_t end, int64_t candidates) {
    const int64_t whole = (end - begin + THREADS - 1) / THREADS * THREADS;
    return end - min(candidates, whole);
}

/// The next try's `first` after the window [first, end) failed: a window
/// twice as long, at least two chunks (the walk back may start at the
/// list's end), the whole list at most, which always meets.
template <int THREADS>
__device__ __forceinline__ int64_t doubled_window_first(int64_t begin, int64_t end, int64_t first) {
    return window_first<THREADS>(begin, end, 2 * max(end - first, int64_t{THREADS}));
}

/// Steps 2-3 of the early stop for the window of list positions [first,
/// end) (`first` may lie before `begin`: load_candidate skips those; at or
/// past `end` the window is empty and meets only where lo == hi), in
/// chunks from `first`; true when every pixel met (the same answer in
/// every thread). Both starts use it: the guessed start's window, and the
/// walk back's (shade_tile_stopping). Each try reads the incoming pixels
/// again (the image is written only after the last): keeping them in
/// registers across the tries made the compiler spill. `listed` >= 0: the
/// window's first chunk is compacted already (the walk back's last chunk,
/// its list, tables and strip masks still in shared memory) with `listed`
/// hits, so it is blended without being loaded, tested and scanned again.
template <int TILE, int ROWS, int VARIANT, bool SNOW>
__device__ __forceinline__ bool blend_window(const DeviceCircles& c, const TileLists& lists, const TileGrid& g,
                                             Strip<ROWS>& s, const float4* image, bool from_background, int tx, int ty,
                                             int64_t begin, int64_t end, int64_t first, int listed, ValueBounds b,
                                             TileShared<TILE * TILE / ROWS, VARIANT, TILE>& sh) {
    constexpr int kThreads = TILE * TILE / ROWS;
    bool one = first <= begin;  // this warp blends one trajectory (the same in all its lanes)
    load_incoming(s, c, g, image, from_background, s.acc);
    float3 hi[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        if (!one) s.acc[r] = make_float4(b.lo, b.lo, b.lo, s.acc[r].w);
        hi[r] = make_float3(b.hi, b.hi, b.hi);
    }
    const auto met = [&](int r) { return s.acc[r].x == hi[r].x && s.acc[r].y == hi[r].y && s.acc[r].z == hi[r].z; };
    // The last try's list, or the walk back's chunks before its last, are
    // no longer read (the walk's last chunk is, when `listed` >= 0, and
    // nothing writes it before chunk 1's scan barrier): this barrier is the
    // only fence between them and chunk 0's compaction below.
    __syncthreads();
    Candidate next = listed >= 0 ? Candidate{-1, {}} : load_candidate<VARIANT>(c, lists, first + threadIdx.x, begin, end);
    for (int64_t base = first, chunk = 0; base < end; base += kThreads, ++chunk) {  // chunk: the scan's parity
        const Candidate cand = next;
        next = load_candidate<VARIANT>(c, lists, base + kThreads + threadIdx.x, begin, end);
        const int hits = chunk == 0 && listed >= 0 ? listed  // block-uniform: the same in every thread
                                                   : compact_chunk<kThreads, VARIANT, TILE, SNOW>(c, cand, g, tx, ty,
                                                                                                  chunk, sh);
        if (hits == 0) continue;
        if (chunk != 0 || listed < 0) __syncthreads();  // the list is complete (a reused one: since the barrier above)
        if (one)
            blend_list<kThreads, ROWS, VARIANT, TILE, SNOW>(s, hits, g, sh);
        else
            for_each_hit<kThreads, ROWS, VARIANT, TILE>(
                s, hits, g, sh, [&](int i) { blend_hit_twice<kThreads, ROWS, VARIANT, TILE, SNOW>(s, hi, i, sh); });
        // No barrier here (shade_tile has one): the next chunk writes the list
        // and tables only after its scan's barrier, which no thread passes
        // before every thread is done with this chunk. Strip masks are
        // cleared before that barrier (StripMasks), so they keep this one.
        if constexpr ((VARIANT & kStripMask) != 0) __syncthreads();
        if (!one) one = __all_sync(0xffffffffu, strip_all(s, g, met));
    }
    return __syncthreads_and(one || strip_all(s, g, met));
}

/// shade_tile with exact early stopping: the start from the walk back
/// (step 1 of "Coalescence" above) or, with kGuess, the guessed window;
/// then the forward pass (blend_window) from there, its window doubling
/// until every pixel met.
template <int TILE, int ROWS, int VARIANT, bool SNOW>
__device__ __forceinline__ void shade_tile_stopping(const DeviceCircles& c, const TileLists& lists, const TileGrid& g,
                                                    float4* image, bool from_background, int tile_id,
                                                    const StopParams& stop,
                                                    TileShared<TILE * TILE / ROWS, VARIANT, TILE>& sh) {
    constexpr int kThreads = TILE * TILE / ROWS;
    const int tx = tile_id % g.tiles_x, ty = tile_id / g.tiles_x;
    Strip<ROWS> s = strip_of_thread<TILE, ROWS>(tx, ty);
    set_tile_centers(sh, g, tx, ty);
    const int64_t begin = lists.begin_of(tx, ty);
    const int64_t end = lists.end_of(tx, ty);
    int64_t first;
    int listed = -1;  // the walk back's last chunk, still listed (blend_window)
    if constexpr ((VARIANT & kGuess) != 0) {
        const float candidates = static_cast<float>(end - begin) * stop.window_per_candidate;
        const int64_t window = max(int64_t{1}, static_cast<int64_t>(ceilf(candidates / kThreads)));
        first = window_first<kThreads>(begin, end, window * kThreads);
    } else {
        first = find_window_first<TILE, ROWS, VARIANT, SNOW>(c, lists, g, s, tx, ty, begin, end, stop.bounds,
                                                             stop.walk_gap, listed, sh);
    }
    const auto chunks_from = [&](int64_t f) { return static_cast<unsigned int>((end - f + kThreads - 1) / kThreads); };
    unsigned int work = (VARIANT & kGuess) != 0 ? 0u : chunks_from(first);  // the walk back's chunks, if it walked
    while (!blend_window<TILE, ROWS, VARIANT, SNOW>(c, lists, g, s, image, from_background, tx, ty, begin, end, first,
                                                    listed, stop.bounds, sh)) {
        work += chunks_from(first);
        first = doubled_window_first<kThreads>(begin, end, first);
        listed = -1;  // the list now holds the failed window's last chunk
    }
    work += chunks_from(first);
    if (stop.tile_work != nullptr && threadIdx.x == 0) stop.tile_work[tile_id] = work;  // the next frame's order
    store_strip(s, g, image);
}

/// One tile, with or without exact early stopping (VARIANT kCoalesce).
template <int TILE, int ROWS, int VARIANT, bool SNOW>
__device__ __forceinline__ void shade_one(const DeviceCircles& c, const TileLists& lists, const TileGrid& g,
                                          float4* image, bool from_background, int tile_id, const StopParams& stop,
                                          TileShared<TILE * TILE / ROWS, VARIANT, TILE>& sh) {
    static_assert((VARIANT & kCoalesce) == 0 || (VARIANT & (kQuads | kSnowReciprocal)) == 0,
                  "the early stop keeps the strips layout and the IEEE division");
    if constexpr ((VARIANT & kCoalesce) != 0)
        shade_tile_stopping<TILE, ROWS, VARIANT, SNOW>(c, lists, g, image, from_background, tile_id, stop, sh);
    else
        shade_tile<TILE, ROWS, VARIANT, SNOW>(c, lists, g, image, from_background, tile_id, sh);
}

/// Blocks a multiprocessor must hold, __launch_bounds__'s second value (0:
/// the compiler's choice). The flat persistent kernel of the default shape
/// gets 1, which lets the compiler spend 88 registers a thread where it
/// would choose 80: 10 blocks an SM instead of 12, but a faster loop
/// (rand1M's shading 0.427 -> 0.414 ms on the H200; docs/PERFORMANCE.md,
/// step 28). Every other kernel but the early stop's and the strip masks'
/// (below) keeps the compiler's choice.
/// The early stop's kernels get 10 (at most 96 registers a thread,
/// allocated in steps of 8). The guessed start's, left to the compiler,
/// took 96 registers and spilled 12-44 bytes a thread; with 10 they take
/// 86-96 and spill nothing. The walk back's, since their forward pass is
/// the guessed start's, took 116-128 registers without strip masks (8
/// blocks an SM) and 96 with them, spilling 44-64 bytes; with 10 they take
/// 92-96 and spill up to 16 bytes of stores and 24 of loads, the tiled flat
/// one (biglittle's) 12 and 24 (ptxas -v, nvcc 13.0, sm_90).
/// (12 blocks: 85 registers, spills of 8-56 bytes.) On the smaller shared
/// memories of sm_75-89 fewer blocks fit anyway; there it only caps the
/// registers.
/// The tiled kernels with strip masks and no early stop get 16: left to
/// the compiler the flat one (micro2M's) took 64 registers and spilled 16
/// bytes; with 16 it takes the same 64 and spills nothing, and the snow
/// ones keep their 64. Their persistent twins keep the compiler's choice
/// (with 16 they would spill 8-16 bytes), except snow's with the
/// reciprocal division, which spilled 16 bytes at the compiler's 64
/// registers and gets 12 (80 registers, no spill). The flat persistent
/// kernel in the quad layout gets the 1 of its strips twin, so a bench of
/// the two layouts compares layouts, not register budgets. All: ptxas -v,
/// nvcc 13.0, sm_90.
template <int TILE, int ROWS, bool SNOW, bool PERSISTENT, int VARIANT>
constexpr int shade_min_blocks() {
    if ((VARIANT & kCoalesce) != 0) return 10;
    if ((VARIANT & kStripMask) != 0) {
        if (!PERSISTENT) return 16;
        if ((VARIANT & kSnowReciprocal) != 0) return 12;
    }
    return TILE == 16 && ROWS == 4 && PERSISTENT && !SNOW && (VARIANT & ~(kQuads | kRecords)) == 0 ? 1 : 0;
}

template <int TILE, int ROWS, bool SNOW, bool PERSISTENT, int VARIANT = 0>
__global__ void __launch_bounds__(TILE * TILE / ROWS, (shade_min_blocks<TILE, ROWS, SNOW, PERSISTENT, VARIANT>()))
    shade_tiles_kernel(DeviceCircles c, TileLists lists, TileGrid g, float4* image, bool from_background,
                       unsigned int* tile_counter, const int* order, StopParams stop) {
    __shared__ TileShared<TILE * TILE / ROWS, VARIANT, TILE> sh;
    if (lists.overflowed()) return;  // speculative binning fell short: the renderer redoes the frame
    if (!PERSISTENT) {  // `order`: the early stop's recorded order (launch_recorded_order), or tile order
        // (kernels that do not stop early never get an order: compiled out, so their registers do not move)
        const bool ordered = (VARIANT & kCoalesce) != 0 && order != nullptr;
        const int tile = ordered ? order[blockIdx.x] : static_cast<int>(blockIdx.x);
        shade_one<TILE, ROWS, VARIANT, SNOW>(c, lists, g, image, from_background, tile, stop, sh);
        return;
    }
    const int tiles = g.tile_count();
    while (true) {
        if (threadIdx.x == 0) sh.tile = static_cast<int>(atomicAdd(tile_counter, 1u));
        __syncthreads();
        const int tile = sh.tile;
        __syncthreads();  // everyone has read sh.tile before thread 0 rewrites it
        if (tile >= tiles) break;  // uniform: the whole block leaves together
        const int id = order ? order[tile] : tile;
        if constexpr ((VARIANT & kCoalesce) == 0)  // the early stop records the chunks it walked instead
            if (stop.tile_work != nullptr && threadIdx.x == 0) stop.tile_work[id] = lists.load_of(id, g);
        shade_one<TILE, ROWS, VARIANT, SNOW>(c, lists, g, image, from_background, id, stop, sh);
    }
}

/// The teaching variants (16x16 tiles, 4 rows, tiled only; no early stop).
template <bool SNOW>
void launch_teaching_variant(const DeviceCircles& c, TileLists lists, TileGrid g, float4* image, bool bg,
                             int variant, cudaStream_t s) {
    const StopParams none{};
    if (variant == kSplitList)
        shade_tiles_kernel<16, 4, SNOW, false, kSplitList><<<g.tile_count(), 64, 0, s>>>(c, lists, g, image, bg, nullptr, nullptr, none);
    else if (variant == kWarpCull)
        shade_tiles_kernel<16, 4, SNOW, false, kWarpCull><<<g.tile_count(), 64, 0, s>>>(c, lists, g, image, bg, nullptr, nullptr, none);
    else
        shade_tiles_kernel<16, 4, SNOW, false, kShuffleScan><<<g.tile_count(), 64, 0, s>>>(c, lists, g, image, bg, nullptr, nullptr, none);
    check_launch("shade_tiles_kernel<tiled, teaching variant>");
}

/// The 16x16, 4-row kernel of the bits BITS (one of kShadeKernelBits),
/// tiled or persistent.
template <bool SNOW, int BITS>
void launch_16x4(const ShadeLaunch& l, cudaStream_t s) {
    if (!l.persistent && l.order != nullptr && (BITS & kCoalesce) == 0)  // the kernel would shade in tile order
        throw std::logic_error("shade: the tiled kernel takes a tile order only where it stops early");
    if (l.persistent)
        shade_tiles_kernel<16, 4, SNOW, true, BITS><<<l.blocks, 64, 0, s>>>(l.c, l.lists, l.g, l.image, l.bg, l.counter,
                                                                          l.order, l.stop);
    else
        shade_tiles_kernel<16, 4, SNOW, false, BITS><<<l.g.tile_count(), 64, 0, s>>>(l.c, l.lists, l.g, l.image, l.bg,
                                                                                   l.counter, l.order, l.stop);
    check_launch(BITS & kGuess      ? "shade_tiles_kernel<16x16, 4 rows, coalescing, guessed start>"
                 : BITS & kCoalesce ? "shade_tiles_kernel<16x16, 4 rows, coalescing>"
                                    : "shade_tiles_kernel<16x16, 4 rows>");
}

/// kShadeKernelBits as a list of template arguments.
template <size_t... I>
constexpr auto kernel_bit_list(std::index_sequence<I...>) {
    return std::integer_sequence<int, kShadeKernelBits[I]...>{};
}
using KernelBitList = decltype(kernel_bit_list(std::make_index_sequence<std::size(kShadeKernelBits)>{}));

/// f(std::integral_constant<int, B>{}) when `bits` is B; false otherwise,
/// for the reciprocal's bits on flat scenes (nothing divides) and for the
/// records' on snow (no color to gather): those are not compiled.
template <bool SNOW, int B, class F>
bool call_with_bits(int bits, F& f) {
    if constexpr ((!SNOW && (B & kSnowReciprocal) != 0) || (SNOW && (B & kRecords) != 0)) {
        return false;
    } else {
        if (bits != B) return false;
        f(std::integral_constant<int, B>{});
        return true;
    }
}

/// Calls f with the 16x16, 4-row kernel's template bits shade_kernel_bits
/// chooses for the launch bits `variant`, as a compile-time constant: the
/// one choice that the launch (launch_variant) and the persistent kernel's
/// occupancy query (occupancy_blocks) both make.
template <bool SNOW, class F, int... B>
void with_kernel_bits(int variant, F f, std::integer_sequence<int, B...>) {
    const int bits = shade_kernel_bits(variant, SNOW);
    if (!(call_with_bits<SNOW, B>(bits, f) || ...))
        throw std::logic_error("shade: no 16x16 kernel is compiled for the bits " + std::to_string(bits));
}

template <int TILE, int R, bool SNOW>
void launch_variant(const ShadeLaunch& l, int variant, cudaStream_t s) {
    constexpr int kThreads = TILE * TILE / R;
    constexpr bool k16x4 = TILE == 16 && R == 4;
    const int teaching = variant & (kSplitList | kWarpCull | kShuffleScan);
    if (teaching != 0) {
        if (!k16x4 || l.persistent)
            throw std::invalid_argument("CR_CUDA_OPTIONS list=split, cull=warp and scan=shuffle exist for the tiled "
                                        "kernel with tile=16 and rows=4 only");
        launch_teaching_variant<SNOW>(l.c, l.lists, l.g, l.image, l.bg, teaching, s);
    } else if (k16x4) {
        with_kernel_bits<SNOW>(variant, [&](auto bits) { launch_16x4<SNOW, decltype(bits)::value>(l, s); },
                               KernelBitList{});
    } else if (l.persistent) {  // other shapes: one warp spans the tile, none of the 16x16 kernel's bits
        shade_tiles_kernel<TILE, R, SNOW, true><<<l.blocks, kThreads, 0, s>>>(l.c, l.lists, l.g, l.image, l.bg, l.counter,
                                                                            l.order, l.stop);
        check_launch("shade_tiles_kernel<persistent>");
    } else {
        shade_tiles_kernel<TILE, R, SNOW, false><<<l.g.tile_count(), kThreads, 0, s>>>(l.c, l.lists, l.g, l.image, l.bg,
                                                                                     l.counter, nullptr, l.stop);
        check_launch("shade_tiles_kernel<tiled>");
    }
}

/// Blocks of `kernel`, launched with `threads` threads, that fit on the GPU at once.
template <class Kernel>
int resident_blocks(Kernel kernel, int threads) {
    int per_sm = 0;
    CR_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
    int dev = 0, sms = 0;
    CR_CUDA(cudaGetDevice(&dev));
    CR_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return std::max(1, per_sm) * sms;
}

template <int TILE, int R, bool SNOW>
int occupancy_blocks(int bits) {
    constexpr int kThreads = TILE * TILE / R;
    if constexpr (TILE == 16 && R == 4) {
        int blocks = 0;  // the kernel launch_variant launches for these bits
        with_kernel_bits<SNOW>(
            bits, [&](auto b) { blocks = resident_blocks(shade_tiles_kernel<16, 4, SNOW, true, decltype(b)::value>, 64); },
            KernelBitList{});
        return blocks;
    }
    return resident_blocks(shade_tiles_kernel<TILE, R, SNOW, true>, kThreads);
}

template <int TILE, int R>
int occupancy_blocks(ShadeMode shade, int bits) {
    return shade == ShadeMode::Snow ? occupancy_blocks<TILE, R, true>(bits) : occupancy_blocks<TILE, R, false>(bits);
}

template <int TILE, int R>
void launch_rows(const ShadeLaunch& l, int variant, cudaStream_t s) {
    if (l.c.shade == ShadeMode::Snow) launch_variant<TILE, R, true>(l, variant, s);
    else launch_variant<TILE, R, false>(l, variant, s);
}

}  // namespace

// Supported shapes: 16x16 tiles with 4 or 8 rows per thread (64 or 32
// threads a block), 8x8 tiles with 2 rows (32 threads).
int persistent_block_count(int tile, int rows, ShadeMode shade, int bits) {
    if (tile == 8) return occupancy_blocks<8, 2>(shade, bits);
    return rows == 8 ? occupancy_blocks<16, 8>(shade, bits) : occupancy_blocks<16, 4>(shade, bits);
}

void launch_shade_tiled(const ShadeLaunch& l, int rows, int variant, cudaStream_t s) {
    if (l.g.tile == 8) launch_rows<8, 2>(l, variant, s);
    else if (rows == 8) launch_rows<16, 8>(l, variant, s);
    else launch_rows<16, 4>(l, variant, s);
}

}  // namespace cr
