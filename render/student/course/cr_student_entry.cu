// circle-renderer's entry points into a student's renderer, compiled by the
// harness into the student's shared library with the student's own flags
// (not a course file). The worker finds these with dlsym:
//   cr_student_create   new CudaRenderer()
//   cr_student_destroy  delete it
//   cr_student_sync     cudaDeviceSynchronize(), then the last launch error,
//                       in the student's own CUDA runtime; 0 when fine, else
//                       the error code with its text in `message`.
//   cr_student_profiler cudaProfilerStart() (on) or cudaProfilerStop(), for
//                       `render profile --student`.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "circleRenderer.h"
#include "image.h"
#include "cudaRenderer.h"

extern "C" CircleRenderer* cr_student_create() { return new CudaRenderer(); }

extern "C" void cr_student_destroy(CircleRenderer* renderer) { delete renderer; }

extern "C" int cr_student_sync(char* message, int capacity) {
    cudaError_t e = cudaDeviceSynchronize();
    const cudaError_t last = cudaGetLastError();
    if (e == cudaSuccess) e = last;
    if (e != cudaSuccess) std::snprintf(message, static_cast<size_t>(capacity), "%s", cudaGetErrorString(e));
    return static_cast<int>(e);
}

extern "C" void cr_student_profiler(int on) {
    cudaDeviceSynchronize();
    if (on) cudaProfilerStart();
    else cudaProfilerStop();
}
