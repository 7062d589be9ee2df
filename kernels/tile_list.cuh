// Device pieces shared by the tiled kernels (shade_tiled.cu, shade_ftb.cu):
// the shared-memory list of a chunk's hits and its stream compaction (steps
// 1-2 of shade_tiled.cu's file comment). Included by .cu files only.
#pragma once

#include <climits>
#include <type_traits>

#include "kernels/block_scan.cuh"
#include "kernels/cuda_renderer.h"
#include "kernels/stages.h"

namespace cr {
namespace tiles {

/// Shared-memory record of one listed circle.
struct ListedCircle {
    float4 geom;   // x, y, r, z (row culling: w holds the row mask's bits)
    float4 color;  // flat: .5*r, .5*g, .5*b; snow: x = snow_max_alpha(z), y = 1/(r*r), z = 1/r (kSnowReciprocal; 0:
                   // divide); w: r*r (rounded as the CPU does)
};

/// Teaching variants of the tiled kernel (CR_CUDA_OPTIONS; 16x16 tiles, 4
/// rows a thread, tiled only): bit 1 stores the shared list as two float4
/// arrays instead of 32-byte records; bit 2 lets a warp skip a circle none of
/// its lanes' pixels lie in (warp-uniform culling); bit 4 compacts with the
/// general shuffle scan instead of the ballot scan of flags. 0 is the
/// default kernel.
constexpr int kSplitList = kShadeSplitList, kWarpCull = kShadeWarpCull, kShuffleScan = kShadeShuffleScan;
/// Row culling: the hit's row mask (bit r: some pixel of tile row r may be
/// covered, dy2[r] <= r*r) replaces geom.w, and a warp skips a hit with no
/// bit in its rows (row_mask_skips).
constexpr int kRowCull = kShadeRowCull;
/// Strip masks: see StripMasks.
constexpr int kStripMask = kShadeStripMask;
/// Exact early stopping (shade_tiled.cu, "Coalescence"): not a layout bit,
/// but it rides in the same template parameter.
constexpr int kCoalesce = kShadeCoalesce;
/// With kCoalesce: the guessed start (shade_tiled.cu, "Guessed start").
constexpr int kGuess = kShadeGuess;
/// The quad layout of a thread's pixels (Strip, pixel_dx/pixel_dy).
constexpr int kQuads = kShadeQuads;
/// Snow's division by the radius from its reciprocal (the list's color.z).
constexpr int kSnowReciprocal = kShadeSnowReciprocal;
/// Listed circles gathered from their 32-byte records (DeviceCircles::rec).
constexpr int kRecords = kShadeRecords;

/// The chunk's hits in shared memory, in input order. Records: one 32-byte
/// ListedCircle a hit, written as two 16-byte stores (lanes with consecutive
/// hits store 32 bytes apart). Split: geometry and color in two arrays of
/// float4, so consecutive hits are 16 bytes apart.
template <int N, bool SPLIT>
struct SharedList {
    ListedCircle rec[N];
    __device__ void put(int i, float4 g, float4 c) {
        rec[i].geom = g;
        rec[i].color = c;
    }
    __device__ float4 geom(int i) const { return rec[i].geom; }
    __device__ float4 color(int i) const { return rec[i].color; }
};

template <int N>
struct SharedList<N, true> {
    float4 g[N], c[N];
    __device__ void put(int i, float4 gg, float4 cc) {
        g[i] = gg;
        c[i] = cc;
    }
    __device__ float4 geom(int i) const { return g[i]; }
    __device__ float4 color(int i) const { return c[i]; }
};

/// Coverage tables of a chunk's hits: dx2[i][c] is the squared horizontal
/// distance from hit i's center to the center of the tile's column c, dy2[i][r]
/// the vertical one to row r, each rounded exactly as cpuref rounds them
/// (mul_rn(sub_rn(x, center), ...)). A pixel's d2 is then one add_rn, the
/// same float cpuref computes. For an extreme circle (render/core/tile_math.h)
/// entries outside its pixel box are NaN, so every comparison d2 <= r*r
/// there is false: the box test costs nothing in the blend loop.
///
/// Padding: a row has TILE + 4 floats, not TILE. The hit thread writes its
/// row with 16-byte stores, 8 lanes per shared-memory wavefront; with rows of
/// 16 floats those 8 stores would start on banks 0, 16, 0, 16, ... (4-way
/// bank conflicts), with 20 floats they start on 0, 20, 8, 28, 16, 4, 24, 12
/// and cover all 32 banks once.
template <int N, int TILE>
struct CoverageTables {
    static constexpr int kStride = TILE + 4;
    alignas(16) float dx2[N][kStride];
    alignas(16) float dy2[N][kStride];
    alignas(16) float center_x[TILE];
    alignas(16) float center_y[TILE];  ///< pixel centers of the tile's columns and rows
};

/// Strip masks (VARIANT kStripMask; 16x16 tiles, 4 rows a thread, so 64
/// threads, 64 hits a chunk at most, one bit each). A thread's strip is its
/// own pixels, 1 column x 4 rows; strip t belongs to thread t. A hit whose
/// pixel box overlaps at most kMaxStrips strips of the tile sets its bit on
/// each of their masks (shared-memory atomicOr; the box is conservative,
/// so a hit is never missing from a strip it covers); a larger hit sets its
/// bit on `broad`, which every strip reads (each a 32-bit atomicOr on the
/// mask's half, set_mask_bit). A thread then blends only the
/// hits on strip[t] | broad, in bit order, which is input order: for a tiny
/// circle (micro2M: ~3 pixels) it looks at a few hits of the chunk instead
/// of all of them. Each thread clears its own mask, and thread 0 clears
/// `broad`, before the chunk's scan barrier; the bits are set after it and
/// read after the barrier that completes the list. The clear of the next
/// chunk is safe only because a barrier follows every chunk's blending
/// (shade_tiled.cu's second __syncthreads, ftb's __syncthreads_and at the
/// top of its loop): without it thread 0 could clear `broad` while others
/// still read it.
struct StripMasks {
    static constexpr int kMaxStrips = 8;
    unsigned long long strip[64];
    unsigned long long broad;
};
struct NoStripMasks {};

/// The block's shared memory.
template <int THREADS, int VARIANT, int TILE>
struct TileShared {
    SharedList<THREADS, (VARIANT & kSplitList) != 0> list;
    CoverageTables<THREADS, TILE> tab;
    int warp_totals[2][THREADS / 32];  ///< the block scan's scratch, one per chunk parity
    int tile;                    ///< persistent: the tile taken from the counter
    std::conditional_t<(VARIANT & kStripMask) != 0, StripMasks, NoStripMasks> masks;
};

/// Sets bit `pos` (0..63) of the 64-bit mask `m` in shared memory with a
/// 32-bit atomicOr on the half that holds it: a 64-bit atomicOr on shared
/// memory is, like the 64-bit atomicAdd of docs/KERNELS.md "A 64-bit atomic
/// is a loop", a compare-and-swap retried while other lanes change the
/// word; the 32-bit one is a single instruction. The 64-bit read after the
/// next barrier sees the same bits (little-endian halves).
__device__ __forceinline__ void set_mask_bit(unsigned long long* m, int pos) {
    atomicOr(reinterpret_cast<unsigned int*>(m) + (pos >> 5), 1u << (pos & 31));
}

/// Marks hit `pos` (pixel box `box`) on the masks of the strips of tile (tx,
/// ty) its box overlaps, or on `broad` when that is more than kMaxStrips.
template <int TILE>
__device__ __forceinline__ void mark_strips(StripMasks& m, const PixelBox& box, int tx, int ty, int pos) {
    static_assert(TILE == 16, "strip masks need 16x16 tiles, 4 rows a thread (64 strips)");
    const int x0 = max(box.min_x - tx * TILE, 0), x1 = min(box.max_x - tx * TILE, TILE);
    const int y0 = max(box.min_y - ty * TILE, 0), y1 = min(box.max_y - ty * TILE, TILE);
    if (x0 >= x1 || y0 >= y1) return;  // cannot happen for a hit (its box overlaps the tile)
    const int s0 = y0 / 4, s1 = (y1 - 1) / 4 + 1;  // strips of 4 rows
    if ((x1 - x0) * (s1 - s0) > StripMasks::kMaxStrips) {
        set_mask_bit(&m.broad, pos);
        return;
    }
    for (int s = s0; s < s1; ++s)
        for (int x = x0; x < x1; ++x) set_mask_bit(&m.strip[s * TILE + x], pos);
}

/// The hits thread t blends (strip masks): bit i for hit i of the chunk.
template <int THREADS, int VARIANT, int TILE>
__device__ __forceinline__ unsigned long long strip_hits(const TileShared<THREADS, VARIANT, TILE>& sh) {
    return sh.masks.strip[threadIdx.x] | sh.masks.broad;
}

/// Before a tile's first chunk: threads 0..TILE-1 write the column centers,
/// TILE..2*TILE-1 the row centers (the block scan's barriers in compact_chunk
/// publish them before any hit reads them). Every thread calls it.
template <int THREADS, int VARIANT, int TILE>
__device__ __forceinline__ void set_tile_centers(TileShared<THREADS, VARIANT, TILE>& sh, const TileGrid& g, int tx,
                                                 int ty) {
    static_assert(THREADS >= 2 * TILE, "a block needs a thread per tile column and row");
    const int t = threadIdx.x;
    if (t < TILE) sh.tab.center_x[t] = pixel_center(tx * TILE + t, 1.f / static_cast<float>(g.width));
    else if (t < 2 * TILE) sh.tab.center_y[t - TILE] = pixel_center(ty * TILE + t - TILE, 1.f / static_cast<float>(g.height));
}

/// One table row: out[k] = (v - centers[k])^2 rounded as cpuref, 4 at a time.
template <int TILE>
__device__ __forceinline__ void write_squares(float* out, const float* centers, float v) {
#pragma unroll
    for (int k = 0; k < TILE; k += 4) {
        const float4 c = *reinterpret_cast<const float4*>(centers + k);
        const float a = sub_rn(v, c.x), b = sub_rn(v, c.y), d = sub_rn(v, c.z), e = sub_rn(v, c.w);
        *reinterpret_cast<float4*>(out + k) = make_float4(mul_rn(a, a), mul_rn(b, b), mul_rn(d, d), mul_rn(e, e));
    }
}

/// Bit r set when tile row r may hold a covered pixel: dy2[r] <= r2 (a
/// pixel's d2 = dx2 + dy2 >= dy2; NaN entries give 0).
template <int TILE>
__device__ __forceinline__ unsigned int row_mask(const float* dy2, float r2) {
    unsigned int m = 0;
#pragma unroll
    for (int k = 0; k < TILE; ++k) m |= (dy2[k] <= r2 ? 1u : 0u) << k;
    return m;
}

/// Row culling: true when no pixel row of this thread's warp (8 rows of a
/// 16x16 tile with 4 rows a thread) is in the hit's row mask; the same in
/// every lane of the warp, so the warp skips the hit as one.
template <int TILE, int ROWS>
__device__ __forceinline__ bool row_mask_skips(float mask_bits) {
    static_assert(TILE == 16 && ROWS == 4, "row culling needs warps of 8 rows: 16x16 tiles, 4 rows a thread");
    const unsigned int warp_rows = 0xffu << ((threadIdx.x >> 5) * 8);
    return (__float_as_uint(mask_bits) & warp_rows) == 0;
}

/// Entries of an extreme circle outside its pixel box [lo, hi) become NaN.
template <int TILE>
__device__ __forceinline__ void mask_outside(float* out, int first, int lo, int hi) {
#pragma unroll
    for (int k = 0; k < TILE; ++k)
        if (first + k < lo || first + k >= hi) out[k] = __int_as_float(0x7fffffff);
}

/// The pixels one thread owns: its first pixel (px, py0) (lx, ly0 inside
/// the tile) and pixel r at (px + pixel_dx(r), py0 + pixel_dy(r)): a column
/// strip of ROWS rows, or with the quad layout (kQuads) 2 x 2 pixels 8
/// columns and 4 rows apart.
template <int ROWS>
struct Strip {
    int px, py0, lx, ly0;
    float4 acc[ROWS];
};

/// Column offset of a thread's pixel r from its first: 0 in a strip; with
/// the quad layout 0 or 8.
template <int VARIANT>
__device__ __forceinline__ constexpr int pixel_dx(int r) {
    return (VARIANT & kQuads) != 0 ? (r & 1) * 8 : 0;
}

/// Row offset of a thread's pixel r from its first: r in a strip; with the
/// quad layout 0 or 4.
template <int VARIANT>
__device__ __forceinline__ constexpr int pixel_dy(int r) {
    return (VARIANT & kQuads) != 0 ? (r >> 1) * 4 : r;
}

/// The thread's ROWS entries of a table row (16-byte loads; 8 bytes for ROWS 2).
template <int ROWS>
__device__ __forceinline__ void load_rows(const float* row, float (&v)[ROWS]) {
    if constexpr (ROWS == 2) {
        const float2 a = *reinterpret_cast<const float2*>(row);
        v[0] = a.x;
        v[1] = a.y;
    } else {
#pragma unroll
        for (int k = 0; k < ROWS; k += 4) {
            const float4 a = *reinterpret_cast<const float4*>(row + k);
            v[k] = a.x;
            v[k + 1] = a.y;
            v[k + 2] = a.z;
            v[k + 3] = a.w;
        }
    }
}

/// The squared distances d2[r] from hit i's center to the thread's ROWS
/// pixels (column lx, rows ly0..; inside the tile), from the coverage
/// tables: one add a pixel, the float cpuref computes (NaN outside an
/// extreme circle's box). The blend loops of shade_tiled.cu and
/// shade_ftb.cu both start here.
template <int ROWS, int N, int TILE>
__device__ __forceinline__ void strip_distances(const CoverageTables<N, TILE>& tab, int i, int lx, int ly0,
                                                float (&d2)[ROWS]) {
    const float dx2 = tab.dx2[i][lx];
    float dy2[ROWS];
    load_rows<ROWS>(&tab.dy2[i][ly0], dy2);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) d2[r] = add_rn(dx2, dy2[r]);
}

/// strip_distances for the thread's pixels in either layout (VARIANT's
/// kQuads): with quads two column entries and two row entries, which a
/// warp reads as 8 and 4 distinct words (broadcasts, no bank conflicts).
template <int VARIANT, int ROWS, int N, int TILE>
__device__ __forceinline__ void pixel_distances(const CoverageTables<N, TILE>& tab, int i, int lx, int ly0,
                                                float (&d2)[ROWS]) {
    if constexpr ((VARIANT & kQuads) != 0) {
        static_assert(ROWS == 4 && TILE == 16, "the quad layout: 16x16 tiles, 4 pixels a thread");
        const float dx2[2] = {tab.dx2[i][lx], tab.dx2[i][lx + 8]};
        const float dy2[2] = {tab.dy2[i][ly0], tab.dy2[i][ly0 + 4]};
#pragma unroll
        for (int r = 0; r < ROWS; ++r) d2[r] = add_rn(dx2[r & 1], dy2[r >> 1]);
    } else {
        strip_distances(tab, i, lx, ly0, d2);
    }
}

/// One thread's circle of a chunk, loaded one chunk ahead (software
/// pipelining): the loads of chunk k + 1 are issued before chunk k is
/// compacted and blended, so their latency (a list entry, then its geom
/// record: two dependent reads from L2 or memory) hides behind that work
/// instead of stalling every warp of the block at the start of each chunk.
struct Candidate {
    int circle;  ///< circle index; -1 past the end of the list
    float4 geo;
};

/// The candidate of list position k (none when k is outside [begin, end));
/// with kRecords its geometry comes from its record (whose other half,
/// the color, compact_chunk then finds in the same sector).
template <int VARIANT = 0>
__device__ __forceinline__ Candidate load_candidate(const DeviceCircles& c, const TileLists& lists, int64_t k,
                                                    int64_t begin, int64_t end) {
    Candidate cand{-1, make_float4(0.f, 0.f, 0.f, 0.f)};
    if (k >= begin && k < end) {
        cand.circle = lists.list ? lists.list[k] : static_cast<int>(k);
        if constexpr ((VARIANT & kRecords) != 0) cand.geo = c.rec[2 * int64_t(cand.circle)];
        else cand.geo = c.geom[cand.circle];
    }
    return cand;
}

/// Steps 1-2 of the file comment for chunk number `chunk` of a tile (this
/// thread's candidate `cand`): each thread tests its circle against the
/// tile, a block-level exclusive scan of the hit flags gives each hit its
/// slot, hits are stored in input order with their coverage tables. Returns
/// the number of hits (the same in every thread). The scan has one barrier
/// and alternates between two scratch arrays by chunk parity, so a chunk
/// without hits needs no barrier after it: a thread racing ahead to the
/// next chunk writes the other array, and cannot get two chunks ahead
/// without passing a barrier that waits for everyone. Teaching variant
/// kShuffleScan uses the general shuffle scan of kernels/block_scan.cuh.
template <int THREADS, int VARIANT, int TILE, bool SNOW>
__device__ __forceinline__ int compact_chunk(const DeviceCircles& c, const Candidate& cand, const TileGrid& g,
                                             int tx, int ty, int64_t chunk, TileShared<THREADS, VARIANT, TILE>& sh) {
    static_assert((VARIANT & kStripMask) == 0 || THREADS == 64, "strip masks: 64 threads, 64 hits a chunk");
    const float inv_w = 1.f / static_cast<float>(g.width), inv_h = 1.f / static_cast<float>(g.height);
    int flag = 0;
    const int circle = cand.circle;
    const float4 geo = cand.geo;
    PixelBox box{0, 0, 0, 0};
    if (circle >= 0) {
        box = circle_pixel_box(geo.x, geo.y, geo.z, g.width, g.height);
        flag = circle_touches_tile(geo.x, geo.y, geo.z, box, g, tx, ty, inv_w, inv_h) ? 1 : 0;
    }
    if constexpr ((VARIANT & kStripMask) != 0) {  // before the scan's barrier (see StripMasks)
        sh.masks.strip[threadIdx.x] = 0ull;
        if (threadIdx.x == 0) sh.masks.broad = 0ull;
    }
    int hits = 0;
    int* scratch = sh.warp_totals[chunk & 1];
    const int pos = (VARIANT & kShuffleScan) ? block_exclusive_scan<THREADS>(flag, scratch, hits)
                                             : block_exclusive_scan_flags<THREADS>(flag != 0, scratch, hits);
    if (flag) {
        float4 col = make_float4(snow_max_alpha(geo.w), 0.f, 0.f, 0.f);  // snow: the depth factor
        if (!SNOW) {
            if constexpr ((VARIANT & kRecords) != 0) col = c.rec[2 * int64_t(circle) + 1];
            else col = c.color[circle];
            col = make_float4(.5f * col.x, .5f * col.y, .5f * col.z, 0.f);
        }
        col.w = mul_rn(geo.z, geo.z);
        if (SNOW) col.y = 1.f / col.w;  // for ftb's fast snow shading (inf for r = 0: not used then)
        if (SNOW && (VARIANT & kSnowReciprocal) != 0)  // 0: divide (a radius outside reciprocal_divides)
            col.z = reciprocal_divides(geo.z) ? div_rn(1.f, geo.z) : 0.f;
        float* rx = sh.tab.dx2[pos];
        float* ry = sh.tab.dy2[pos];
        write_squares<TILE>(rx, sh.tab.center_x, geo.x);
        write_squares<TILE>(ry, sh.tab.center_y, geo.y);
        if (is_extreme_circle(geo.x, geo.y, geo.z)) {  // rare: restrict it to its pixel box
            mask_outside<TILE>(rx, tx * TILE, box.min_x, box.max_x);
            mask_outside<TILE>(ry, ty * TILE, box.min_y, box.max_y);
        }
        float4 listed = geo;
        if (VARIANT & kRowCull) listed.w = __uint_as_float(row_mask<TILE>(ry, col.w));
        sh.list.put(pos, listed, col);
        if constexpr ((VARIANT & kStripMask) != 0) mark_strips<TILE>(sh.masks, box, tx, ty, pos);
    }
    return hits;
}

}  // namespace tiles
}  // namespace cr
