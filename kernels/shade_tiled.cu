// Stage "shade" of the tiled and persistent kernels.
//
// Who does what: one thread block shades one tile of TILE x TILE pixels.
// The block has TILE * TILE / ROWS threads; thread t owns a vertical strip
// of ROWS pixels: column t % TILE, rows (t / TILE) * ROWS ... + ROWS - 1.
// Threads whose pixels lie outside the image (partial tiles at the right and
// top edges) take part in everything but never read or write the image.
//
// The tile's circle list (from binning, or all circles when binning is
// skipped) is walked in chunks of one circle per thread:
//   1. each thread takes one circle of the chunk and runs the exact
//      circle-tile test (flag 0 or 1) -- binning was only conservative;
//   2. a block-level exclusive scan of the flags (kernels/block_scan.cuh)
//      gives every hit its position; hits are written, in input order, to a
//      shared-memory list (stream compaction);
//   3. __syncthreads(); every thread walks the shared list in order and
//      blends covered circles into its ROWS pixels, held in registers. All
//      threads read the same list entry at once: a shared-memory broadcast,
//      no bank conflicts. dx*dx is computed once per circle for the strip;
//   4. __syncthreads() before the next chunk overwrites the list.
// Every thread reaches every barrier: loop bounds depend only on values the
// whole block shares (list bounds, the scan's total). Order is kept because
// the list is in input order and each pixel belongs to exactly one thread:
// no atomics are needed on pixels. Each pixel is read once at the start and
// written once at the end; a warp's 32 threads cover two 16-pixel row
// segments of 256 contiguous bytes each, so those accesses coalesce.
//
// Flat shading uses alpha = .5: the blend .5*c + .5*p is computed as
// fma(.5, p, .5*c) with .5*c stored in the list. Halving is exact, so this
// single rounding gives the same float as the CPU's two products and a sum.
//
// Persistent variant: the grid has only as many blocks as fit on the GPU at
// once; thread 0 takes the next tile from a global atomic counter and shares
// it through shared memory; the block loops until no tiles are left. When
// binning produced per-tile loads, tiles are handed out heaviest first
// (`order`), so the long tiles start early and the short ones fill the gaps
// at the end instead of one heavy tile finishing alone.
#include <climits>

#include "kernels/block_scan.cuh"
#include "kernels/cuda_check.h"
#include "kernels/stages.h"

namespace cr {

namespace {

/// Shared-memory record of one listed circle.
struct ListedCircle {
    float4 geom;   // x, y, r*r (rounded as the CPU does), z
    float4 color;  // flat: .5*r, .5*g, .5*b; snow: unused; w: r (negative: extreme circle)
};

template <int TILE, int ROWS, bool SNOW>
__device__ __forceinline__ void shade_tile(const DeviceCircles& c, const TileLists& lists,
                                           const TileGrid& g, float4* image, int tile_id,
                                           ListedCircle* s_list, int4* s_box, int* s_warp) {
    constexpr int kThreads = TILE * TILE / ROWS;
    const int tx = tile_id % g.tiles_x, ty = tile_id / g.tiles_x;
    const int px = tx * TILE + static_cast<int>(threadIdx.x % TILE);
    const int py0 = ty * TILE + static_cast<int>(threadIdx.x / TILE) * ROWS;
    const float inv_w = 1.f / static_cast<float>(g.width), inv_h = 1.f / static_cast<float>(g.height);
    const float cx = pixel_center(px, inv_w);

    float4 acc[ROWS];
    float cy[ROWS];
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
        const int py = py0 + k;
        cy[k] = pixel_center(py, inv_h);
        acc[k] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (px < g.width && py < g.height) acc[k] = image[size_t(py) * g.width + px];
    }

    int64_t begin = 0, end = lists.count;
    if (lists.list) {
        begin = lists.start[tile_id];
        end = lists.end[tile_id];
    }
    for (int64_t base = begin; base < end; base += kThreads) {
        const int64_t k = base + threadIdx.x;
        int flag = 0;
        int circle = 0;
        float4 geo = make_float4(0.f, 0.f, 0.f, 0.f);
        PixelBox box{0, 0, 0, 0};
        if (k < end) {
            circle = lists.list ? lists.list[k] : static_cast<int>(k);
            geo = c.geom[circle];
            box = circle_pixel_box(geo.x, geo.y, geo.z, g.width, g.height);
            flag = circle_touches_tile(geo.x, geo.y, geo.z, box, g, tx, ty, inv_w, inv_h) ? 1 : 0;
        }
        int hits = 0;
        const int pos = block_exclusive_scan<kThreads>(flag, s_warp, hits);
        if (flag) {
            const bool extreme = is_extreme_circle(geo.x, geo.y, geo.z);
            float4 col = make_float4(0.f, 0.f, 0.f, 0.f);
            if (!SNOW) {
                col = c.color[circle];
                col = make_float4(.5f * col.x, .5f * col.y, .5f * col.z, 0.f);
            }
            col.w = extreme ? -geo.z : geo.z;
            s_list[pos].geom = make_float4(geo.x, geo.y, mul_rn(geo.z, geo.z), geo.w);
            s_list[pos].color = col;
            if (extreme) s_box[pos] = make_int4(box.min_x, box.max_x, box.min_y, box.max_y);
        }
        __syncthreads();
        for (int i = 0; i < hits; ++i) {
            const float4 geom = s_list[i].geom;
            const float4 col = s_list[i].color;
            const float dx = sub_rn(geom.x, cx);
            const float dx2 = mul_rn(dx, dx);
            int4 b = make_int4(INT_MIN, INT_MAX, INT_MIN, INT_MAX);
            if (col.w < 0.f) b = s_box[i];  // extreme circle: also require its pixel box
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                const float dy = sub_rn(geom.y, cy[r]);
                const float d2 = add_rn(dx2, mul_rn(dy, dy));
                if (d2 <= geom.z) {
                    if (col.w < 0.f && (px < b.x || px >= b.y || py0 + r < b.z || py0 + r >= b.w)) continue;
                    if (SNOW) {
                        blend(acc[r].x, acc[r].y, acc[r].z, acc[r].w, shade_snow(d2, fabsf(col.w), geom.w));
                    } else {
                        acc[r].x = fmaf(.5f, acc[r].x, col.x);
                        acc[r].y = fmaf(.5f, acc[r].y, col.y);
                        acc[r].z = fmaf(.5f, acc[r].z, col.z);
                        acc[r].w += .5f;
                    }
                }
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
        const int py = py0 + k;
        if (px < g.width && py < g.height) image[size_t(py) * g.width + px] = acc[k];
    }
}

template <int TILE, int ROWS, bool SNOW, bool PERSISTENT>
__global__ void __launch_bounds__(TILE * TILE / ROWS)
    shade_tiles_kernel(DeviceCircles c, TileLists lists, TileGrid g, float4* image,
                       unsigned int* tile_counter, const int* order) {
    constexpr int kThreads = TILE * TILE / ROWS;
    __shared__ ListedCircle s_list[kThreads];
    __shared__ int4 s_box[kThreads];
    __shared__ int s_warp[kThreads / 32];
    __shared__ int s_tile;
    if (!PERSISTENT) {
        shade_tile<TILE, ROWS, SNOW>(c, lists, g, image, blockIdx.x, s_list, s_box, s_warp);
        return;
    }
    const int tiles = g.tile_count();
    while (true) {
        if (threadIdx.x == 0) s_tile = static_cast<int>(atomicAdd(tile_counter, 1u));
        __syncthreads();
        const int tile = s_tile;
        __syncthreads();  // everyone has read s_tile before thread 0 rewrites it
        if (tile >= tiles) break;  // uniform: the whole block leaves together
        shade_tile<TILE, ROWS, SNOW>(c, lists, g, image, order ? order[tile] : tile, s_list, s_box, s_warp);
    }
}

template <int TILE, int R, bool SNOW>
void launch_variant(const DeviceCircles& c, TileLists lists, TileGrid g, float4* image,
                    bool persistent, unsigned int* counter, const int* order, int blocks, cudaStream_t s) {
    constexpr int kThreads = TILE * TILE / R;
    if (persistent) {
        shade_tiles_kernel<TILE, R, SNOW, true><<<blocks, kThreads, 0, s>>>(c, lists, g, image, counter, order);
        check_launch("shade_tiles_kernel<persistent>");
    } else {
        shade_tiles_kernel<TILE, R, SNOW, false><<<g.tile_count(), kThreads, 0, s>>>(c, lists, g, image, counter, nullptr);
        check_launch("shade_tiles_kernel<tiled>");
    }
}

template <int TILE, int R>
int occupancy_blocks(ShadeMode shade) {
    constexpr int kThreads = TILE * TILE / R;
    int per_sm = 0;
    if (shade == ShadeMode::Snow)
        CR_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, shade_tiles_kernel<TILE, R, true, true>, kThreads, 0));
    else
        CR_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, shade_tiles_kernel<TILE, R, false, true>, kThreads, 0));
    int dev = 0, sms = 0;
    CR_CUDA(cudaGetDevice(&dev));
    CR_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return std::max(1, per_sm) * sms;
}

template <int TILE, int R>
void launch_rows(const DeviceCircles& c, TileLists lists, TileGrid g, float4* image, bool persistent,
                 unsigned int* counter, const int* order, int blocks, cudaStream_t s) {
    if (c.shade == ShadeMode::Snow) launch_variant<TILE, R, true>(c, lists, g, image, persistent, counter, order, blocks, s);
    else launch_variant<TILE, R, false>(c, lists, g, image, persistent, counter, order, blocks, s);
}

}  // namespace

// Supported shapes: 16x16 tiles with 4 or 8 rows per thread (64 or 32
// threads a block), 8x8 tiles with 2 rows (32 threads).
int persistent_block_count(int tile, int rows, ShadeMode shade) {
    if (tile == 8) return occupancy_blocks<8, 2>(shade);
    return rows == 8 ? occupancy_blocks<16, 8>(shade) : occupancy_blocks<16, 4>(shade);
}

void launch_shade_tiled(const DeviceCircles& c, TileLists lists, TileGrid g, int rows, float4* image,
                        bool persistent, unsigned int* counter, const int* order, int blocks, cudaStream_t s) {
    if (g.tile == 8) launch_rows<8, 2>(c, lists, g, image, persistent, counter, order, blocks, s);
    else if (rows == 8) launch_rows<16, 8>(c, lists, g, image, persistent, counter, order, blocks, s);
    else launch_rows<16, 4>(c, lists, g, image, persistent, counter, order, blocks, s);
}

}  // namespace cr
