// Stage "advance": one thread per circle runs the scene's animation step
// (scenes/animation.h, the same code the CPU renderers run). Circles are
// independent (fireworks sparks read only their firework's fixed center),
// so no synchronization is needed.
//
// Bit-identical to cpuref after any number of steps: every multiply, add and
// subtract of the steps is written with render/core/hd_math.h's mul_rn /
// add_rn / sub_rn, which are __fmul_rn / __fadd_rn / __fsub_rn here. Those
// intrinsics are never contracted into an FMA, so this file needs no
// -fmad=false (the rest of the kernels may still fuse where results don't
// feed the next frame). Snow's noise (scenes/noise.h) is integer table
// lookups; its float-to-int truncation (trunc_to_int) gives the same int as
// the host for every input, NaN and out-of-range values included (INT_MIN).
#include "kernels/cuda_check.h"
#include "kernels/stages.h"

namespace cr {

__global__ void advance_kernel(CircleArrays c, int motion) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < c.count;
         i += int64_t(gridDim.x) * blockDim.x)
        anim::step_circle(motion, c, i);
}

void launch_advance(CircleArrays c, int motion, cudaStream_t s) {
    if (!advance_queues_work(c, motion)) return;
    const int threads = 256;
    const int blocks = static_cast<int>(std::min<int64_t>((c.count + threads - 1) / threads, 65536));
    advance_kernel<<<blocks, threads, 0, s>>>(c, motion);
    check_launch("advance_kernel");
}

}  // namespace cr
