// Error checking for every CUDA call and kernel launch (kernels/ only).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "render/core/renderer.h"

namespace cr {

/// Throws CudaError "CALL failed at FILE:LINE: error name: message".
[[noreturn]] void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line);

/// Checks the launch that just happened (cudaGetLastError): a bad
/// configuration or a missing kernel image is reported with the kernel name.
void check_launch(const char* kernel_name);

}  // namespace cr

/// Wraps a CUDA runtime call: any error becomes a cr::CudaError exception.
#define CR_CUDA(call)                                                          \
    do {                                                                       \
        const cudaError_t cr_err_ = (call);                                    \
        if (cr_err_ != cudaSuccess) ::cr::throw_cuda_error(cr_err_, #call, __FILE__, __LINE__); \
    } while (0)
