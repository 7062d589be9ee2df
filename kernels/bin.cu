// Stage "bin": builds per-tile circle lists in global memory, in input order.
//
//   bin.count  one thread per circle: reads x, y, r, z from the SoA arrays
//              (consecutive threads read consecutive floats: coalesced),
//              writes the packed geom record, and counts the tiles its
//              bounding box overlaps (conservative; the exact circle-tile
//              test runs later, once per pair, inside the shading block).
//   bin.scan   exclusive scan of the counts (CUB, device-wide) -> offsets.
//   bin.fill   one thread per pair: a binary search in the offsets finds
//              its circle, the pair's rank inside the circle's range gives
//              the tile (row-major in the circle's tile rectangle). Pairs
//              come out sorted by circle index.
//   bin.sort   stable radix sort of the pairs by tile id (CUB): within a
//              tile, circles stay in input order. This is what keeps the
//              blending order correct without any atomics on pixels.
//   bin.ranges one thread per pair finds where each tile's run starts/ends.
//
// No kernel here synchronizes threads; kernels are ordered by the stream.
#include "kernels/cuda_check.h"
#include "kernels/stages.h"

namespace cr {

namespace {

__device__ __forceinline__ void load_circle(const DeviceCircles& c, int64_t i, float& x, float& y,
                                            float& r) {
    x = c.soa.x[i];
    y = c.soa.y[i];
    r = c.soa.radius[i];
}

__global__ void bin_count_kernel(DeviceCircles c, int64_t begin, int64_t end, TileGrid g,
                                 unsigned long long* counts) {
    for (int64_t i = begin + blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < end;
         i += int64_t(gridDim.x) * blockDim.x) {
        float x, y, r;
        load_circle(c, i, x, y, r);
        c.geom[i] = make_float4(x, y, r, c.soa.z[i]);
        const TileRange tr = tiles_of_box(circle_pixel_box(x, y, r, g.width, g.height), g.tile);
        counts[i - begin] = static_cast<unsigned long long>(tr.count());
    }
}

/// Index of the circle in [lo, hi) whose pair range holds global pair p:
/// the last circle with offsets[circle] <= p (binary search; circles with
/// no pairs share their successor's offset and are never the last).
__device__ __forceinline__ int64_t circle_of_pair(const unsigned long long* offsets, int64_t lo,
                                                  int64_t hi, unsigned long long p) {
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (offsets[mid] <= p) lo = mid;
        else hi = mid;
    }
    return lo;
}

/// One thread per output pair: consecutive threads write consecutive pairs
/// (coalesced), and a circle covering a thousand tiles is spread over a
/// thousand threads instead of looping in one.
__global__ void bin_fill_kernel(DeviceCircles c, int64_t begin, int64_t end, TileGrid g,
                                const unsigned long long* offsets, unsigned long long base,
                                unsigned long long pairs, unsigned int* keys, int* values) {
    for (unsigned long long p = blockIdx.x * 1ull * blockDim.x + threadIdx.x; p < pairs;
         p += 1ull * gridDim.x * blockDim.x) {
        const unsigned long long global = base + p;
        const int64_t i = circle_of_pair(offsets, begin, end, global);
        const unsigned long long k = global - offsets[i];
        const float4 geo = c.geom[i];
        const TileRange tr = tiles_of_box(circle_pixel_box(geo.x, geo.y, geo.z, g.width, g.height), g.tile);
        const unsigned int k32 = static_cast<unsigned int>(k);  // < tiles in the image
        const unsigned int w = static_cast<unsigned int>(tr.tx1 - tr.tx0);
        const int tx = tr.tx0 + static_cast<int>(k32 % w), ty = tr.ty0 + static_cast<int>(k32 / w);
        keys[p] = static_cast<unsigned int>(ty * g.tiles_x + tx);
        values[p] = static_cast<int>(i);
    }
}

__global__ void bin_ranges_kernel(const unsigned int* keys, int64_t pairs, unsigned int* start,
                                  unsigned int* end) {
    for (int64_t p = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; p < pairs;
         p += int64_t(gridDim.x) * blockDim.x) {
        const unsigned int k = keys[p];
        if (p == 0 || keys[p - 1] != k) start[k] = static_cast<unsigned int>(p);
        if (p == pairs - 1 || keys[p + 1] != k) end[k] = static_cast<unsigned int>(p + 1);
    }
}

__global__ void pack_geometry_kernel(DeviceCircles c) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < c.count;
         i += int64_t(gridDim.x) * blockDim.x)
        c.geom[i] = make_float4(c.soa.x[i], c.soa.y[i], c.soa.radius[i], c.soa.z[i]);
}

__global__ void total_kernel(const unsigned long long* counts, const unsigned long long* offsets,
                             int64_t n, unsigned long long* total) {
    *total = n > 0 ? counts[n - 1] + offsets[n - 1] : 0;
}

int blocks_for(int64_t n, int threads) {
    return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>((n + threads - 1) / threads, 1 << 20)));
}

}  // namespace

void launch_bin_count(const DeviceCircles& c, int64_t begin, int64_t end, TileGrid g,
                      unsigned long long* counts, cudaStream_t s) {
    if (end <= begin) return;
    bin_count_kernel<<<blocks_for(end - begin, 256), 256, 0, s>>>(c, begin, end, g, counts);
    check_launch("bin_count_kernel");
}

void launch_bin_fill(const DeviceCircles& c, int64_t begin, int64_t end, TileGrid g,
                     const unsigned long long* offsets, unsigned long long base, unsigned long long pairs,
                     unsigned int* keys, int* values, cudaStream_t s) {
    if (end <= begin || pairs == 0) return;
    bin_fill_kernel<<<blocks_for(static_cast<int64_t>(pairs), 256), 256, 0, s>>>(c, begin, end, g, offsets, base,
                                                                            pairs, keys, values);
    check_launch("bin_fill_kernel");
}

void launch_bin_ranges(const unsigned int* keys, int64_t pairs, unsigned int* start,
                       unsigned int* end, cudaStream_t s) {
    if (pairs <= 0) return;
    bin_ranges_kernel<<<blocks_for(pairs, 256), 256, 0, s>>>(keys, pairs, start, end);
    check_launch("bin_ranges_kernel");
}

void launch_pack_geometry(const DeviceCircles& c, cudaStream_t s) {
    if (c.count == 0) return;
    pack_geometry_kernel<<<blocks_for(c.count, 256), 256, 0, s>>>(c);
    check_launch("pack_geometry_kernel");
}

void launch_total(const unsigned long long* counts, const unsigned long long* offsets, int64_t n,
                  unsigned long long* total, cudaStream_t s) {
    total_kernel<<<1, 1, 0, s>>>(counts, offsets, n, total);
    check_launch("total_kernel");
}

}  // namespace cr
