// Device pieces shared by the tiled kernels (shade_tiled.cu, shade_ftb.cu):
// the shared-memory list of a chunk's hits and its stream compaction (steps
// 1-2 of shade_tiled.cu's file comment). Included by .cu files only.
#pragma once

#include <climits>

#include "kernels/block_scan.cuh"
#include "kernels/cuda_renderer.h"
#include "kernels/stages.h"

namespace cr {
namespace tiles {

/// Shared-memory record of one listed circle.
struct ListedCircle {
    float4 geom;   // x, y, r*r (rounded as the CPU does), z
    float4 color;  // flat: .5*r, .5*g, .5*b; snow: unused; w: r (negative: extreme circle)
};

/// Teaching variants of the tiled kernel (CR_CUDA_OPTIONS; 16x16 tiles, 4
/// rows a thread, tiled only): bit 1 stores the shared list as two float4
/// arrays instead of 32-byte records; bit 2 lets a warp skip a circle none of
/// its lanes' pixels lie in (warp-uniform culling). 0 is the default kernel.
constexpr int kSplitList = kShadeSplitList, kWarpCull = kShadeWarpCull;

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

/// The block's shared memory.
template <int THREADS, int VARIANT>
struct TileShared {
    SharedList<THREADS, (VARIANT & kSplitList) != 0> list;
    int4 box[THREADS];           ///< pixel boxes of extreme circles
    int warp_totals[THREADS / 32];  ///< the block scan's scratch
    int tile;                    ///< persistent: the tile taken from the counter
};

/// The pixels one thread owns: column px, rows py0 .. py0 + ROWS - 1.
template <int ROWS>
struct Strip {
    int px, py0;
    float cx, cy[ROWS];
    float4 acc[ROWS];
};

/// Steps 1-2 of the file comment for the chunk starting at `base`: each
/// thread tests one circle against the tile, the block scan gives each hit
/// its slot, hits are stored in input order. Returns the number of hits.
template <int THREADS, int VARIANT, bool SNOW>
__device__ __forceinline__ int compact_chunk(const DeviceCircles& c, const TileLists& lists, const TileGrid& g,
                                             int tx, int ty, int64_t base, int64_t end,
                                             TileShared<THREADS, VARIANT>& sh) {
    const float inv_w = 1.f / static_cast<float>(g.width), inv_h = 1.f / static_cast<float>(g.height);
    const int64_t k = base + threadIdx.x;
    int flag = 0, circle = 0;
    float4 geo = make_float4(0.f, 0.f, 0.f, 0.f);
    PixelBox box{0, 0, 0, 0};
    if (k < end) {
        circle = lists.list ? lists.list[k] : static_cast<int>(k);
        geo = c.geom[circle];
        box = circle_pixel_box(geo.x, geo.y, geo.z, g.width, g.height);
        flag = circle_touches_tile(geo.x, geo.y, geo.z, box, g, tx, ty, inv_w, inv_h) ? 1 : 0;
    }
    int hits = 0;
    const int pos = block_exclusive_scan<THREADS>(flag, sh.warp_totals, hits);
    if (flag) {
        const bool extreme = is_extreme_circle(geo.x, geo.y, geo.z);
        float4 col = make_float4(0.f, 0.f, 0.f, 0.f);
        if (!SNOW) {
            col = c.color[circle];
            col = make_float4(.5f * col.x, .5f * col.y, .5f * col.z, 0.f);
        }
        col.w = extreme ? -geo.z : geo.z;
        sh.list.put(pos, make_float4(geo.x, geo.y, mul_rn(geo.z, geo.z), geo.w), col);
        if (extreme) sh.box[pos] = make_int4(box.min_x, box.max_x, box.min_y, box.max_y);
    }
    return hits;
}

}  // namespace tiles
}  // namespace cr
