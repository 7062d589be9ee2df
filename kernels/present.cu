// Stage "present": float RGBA -> RGBA8 for display (GUI interop). One thread
// per pixel; consecutive threads read consecutive float4s and write
// consecutive uchar4s (coalesced). Values are clamped to [0,1] and truncated
// after scaling by 255, as the course's image writer does.
#include "kernels/cuda_check.h"
#include "kernels/cuda_renderer.h"
#include "kernels/stages.h"

namespace cr {

__global__ void present_kernel(const float4* src, uchar4* dst, int width, int height, bool flip) {
    const int64_t n = int64_t(width) * height;
    for (int64_t p = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; p < n;
         p += int64_t(gridDim.x) * blockDim.x) {
        const float4 v = src[p];
        auto to8 = [](float f) {
            const float c = f > 0.f ? (f < 1.f ? f : 1.f) : 0.f;
            return static_cast<unsigned char>(255.f * c);
        };
        int64_t out = p;
        if (flip) {
            const int64_t j = p / width, i = p % width;
            out = (int64_t(height) - 1 - j) * width + i;
        }
        dst[out] = make_uchar4(to8(v.x), to8(v.y), to8(v.z), 255);
    }
}

void present_rgba8(const float* src, unsigned char* dst, int width, int height, bool flip, void* stream) {
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    const int64_t n = int64_t(width) * height;
    const int threads = 256;
    const int blocks = static_cast<int>(std::min<int64_t>((n + threads - 1) / threads, 65536));
    present_kernel<<<blocks, threads, 0, s>>>(reinterpret_cast<const float4*>(src),
                                              reinterpret_cast<uchar4*>(dst), width, height, flip);
    check_launch("present_kernel");
}

}  // namespace cr
