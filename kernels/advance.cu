// Stage "advance": one thread per circle runs the scene's animation step
// (scenes/animation.h, the same code the CPU renderers run). Circles are
// independent (fireworks sparks read only their firework's fixed center),
// so no synchronization is needed.
#include "kernels/cuda_check.h"
#include "kernels/stages.h"

namespace cr {

__global__ void advance_kernel(CircleArrays c, int motion, uint32_t frame) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < c.count;
         i += int64_t(gridDim.x) * blockDim.x)
        anim::step_circle(motion, c, i, frame);
}

void launch_advance(CircleArrays c, int motion, uint32_t frame, cudaStream_t s) {
    if (motion == 0 || c.count == 0) return;
    const int threads = 256;
    const int blocks = static_cast<int>(std::min<int64_t>((c.count + threads - 1) / threads, 65536));
    advance_kernel<<<blocks, threads, 0, s>>>(c, motion, frame);
    check_launch("advance_kernel");
}

}  // namespace cr
