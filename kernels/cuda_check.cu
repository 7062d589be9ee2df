// Turning CUDA errors into exceptions with the call, file and line.
#include "kernels/cuda_check.h"

namespace cr {

void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
    throw CudaError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

void check_launch(const char* kernel_name) {
    const cudaError_t e = cudaGetLastError();
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction)
        throw CudaError(std::string("kernel ") + kernel_name +
                        " has no code for this GPU's architecture; rebuild with "
                        "-DCMAKE_CUDA_ARCHITECTURES=<your GPU's compute capability, e.g. 86>");
    if (e != cudaSuccess)
        throw CudaError(std::string("launch of ") + kernel_name + " failed: " + cudaGetErrorName(e) +
                        ": " + cudaGetErrorString(e));
}

}  // namespace cr
