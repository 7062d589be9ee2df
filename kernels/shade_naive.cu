// Stage "shade", naive kernel: the simplest correct GPU renderer.
//
// Who does what: one thread per pixel (2-D blocks of 16 x 16 threads). Each
// thread walks every circle in input order, tests coverage, and blends into
// an RGBA accumulator held in registers; it reads its pixel once and writes
// it once. All threads of a warp read the same circle at the same time, so
// each load is one broadcast transaction. No synchronization: no thread
// shares data with another. Order holds because one thread owns one pixel.
// Cost: W*H*N coverage tests, whatever the circles' sizes.
#include "kernels/cuda_check.h"
#include "kernels/stages.h"

namespace cr {

template <bool SNOW>
__global__ void shade_naive_kernel(DeviceCircles c, float4* image, int width, int height) {
    const int px = blockIdx.x * blockDim.x + threadIdx.x;
    const int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;  // no barriers in this kernel
    const float inv_w = 1.f / static_cast<float>(width), inv_h = 1.f / static_cast<float>(height);
    const float cx = pixel_center(px, inv_w), cy = pixel_center(py, inv_h);
    const size_t idx = size_t(py) * width + px;
    float4 acc = image[idx];
    for (int64_t i = 0; i < c.count; ++i) {
        const float4 geo = c.geom[i];  // x, y, r, z
        const float d2 = center_distance2(geo.x, geo.y, cx, cy);
        if (!covers(d2, geo.z)) continue;
        if (is_extreme_circle(geo.x, geo.y, geo.z)) {
            const PixelBox b = circle_pixel_box(geo.x, geo.y, geo.z, width, height);
            if (px < b.min_x || px >= b.max_x || py < b.min_y || py >= b.max_y) continue;
        }
        const float4 col = c.color[i];
        const Fragment f = SNOW ? shade_snow(d2, geo.z, geo.w) : shade_flat(col.x, col.y, col.z);
        blend(acc.x, acc.y, acc.z, acc.w, f);
    }
    image[idx] = acc;
}

void launch_shade_naive(const DeviceCircles& c, float4* image, int width, int height, cudaStream_t s) {
    const dim3 block(16, 16);
    const dim3 grid((width + 15) / 16, (height + 15) / 16);
    if (c.shade == ShadeMode::Snow) shade_naive_kernel<true><<<grid, block, 0, s>>>(c, image, width, height);
    else shade_naive_kernel<false><<<grid, block, 0, s>>>(c, image, width, height);
    check_launch("shade_naive_kernel");
}

}  // namespace cr
