// Stage "shade", `unordered` DEMO kernel -- INCORRECT ON PURPOSE.
//
// This is the course starter code's design: one thread per circle walks the
// pixels of its bounding box and does a plain read-modify-write of each
// pixel in global memory. Two threads whose circles overlap race on the same
// pixel: updates can be lost, and blends land in whatever order the threads
// happen to run, not in circle input order. `render --check` fails it; it is
// here so students can see the failure the assignment asks them to fix.
#include "kernels/cuda_check.h"
#include "kernels/stages.h"

namespace cr {

template <bool SNOW>
__global__ void shade_unordered_kernel(DeviceCircles c, float4* image, int width, int height) {
    const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
    if (i >= c.count) return;
    const float4 geo = c.geom[i];
    const float4 col = c.color[i];
    const PixelBox b = circle_pixel_box(geo.x, geo.y, geo.z, width, height);
    const float inv_w = 1.f / static_cast<float>(width), inv_h = 1.f / static_cast<float>(height);
    for (int py = b.min_y; py < b.max_y; ++py)
        for (int px = b.min_x; px < b.max_x; ++px) {
            const float d2 = center_distance2(geo.x, geo.y, pixel_center(px, inv_w), pixel_center(py, inv_h));
            if (!covers(d2, geo.z)) continue;
            const Fragment f = SNOW ? shade_snow(d2, geo.z, geo.w) : shade_flat(col.x, col.y, col.z);
            float4 p = image[size_t(py) * width + px];  // racy read ...
            blend(p.x, p.y, p.z, p.w, f);
            image[size_t(py) * width + px] = p;         // ... and racy write
        }
}

void launch_shade_unordered(const DeviceCircles& c, float4* image, int width, int height,
                            cudaStream_t s) {
    if (c.count == 0) return;
    const int threads = 256;
    const int blocks = static_cast<int>((c.count + threads - 1) / threads);
    if (c.shade == ShadeMode::Snow) shade_unordered_kernel<true><<<blocks, threads, 0, s>>>(c, image, width, height);
    else shade_unordered_kernel<false><<<blocks, threads, 0, s>>>(c, image, width, height);
    check_launch("shade_unordered_kernel");
}

}  // namespace cr
