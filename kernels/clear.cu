// Stage "clear": one thread per pixel writes the background (a float4 store;
// consecutive threads write consecutive pixels, so a warp's stores coalesce
// into 512 contiguous bytes). Grid-stride loop; no synchronization needed.
#include "kernels/cuda_check.h"
#include "kernels/stages.h"

namespace cr {

__global__ void clear_kernel(float4* image, int width, int height, ShadeMode shade) {
    const int64_t n = int64_t(width) * height;
    for (int64_t p = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; p < n;
         p += int64_t(gridDim.x) * blockDim.x) {
        const int j = static_cast<int>(p / width);
        const float v = background_value(shade, j, height);
        image[p] = make_float4(v, v, v, 1.f);
    }
}

void launch_clear(float4* image, int width, int height, ShadeMode shade, cudaStream_t s) {
    const int64_t n = int64_t(width) * height;
    const int threads = 256;
    const int blocks = static_cast<int>(std::min<int64_t>((n + threads - 1) / threads, 65536));
    clear_kernel<<<blocks, threads, 0, s>>>(image, width, height, shade);
    check_launch("clear_kernel");
}

}  // namespace cr
