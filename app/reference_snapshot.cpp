#include "reference_snapshot.h"

#include "render/core/bands.h"

#include <cstring>
#include <stdexcept>
#include <string>

#if CR_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace cr::app {

#if CR_HAVE_CUDA
namespace {
/// False (and the error cleared) when `e` is not cudaSuccess.
bool ok(cudaError_t e) {
    if (e == cudaSuccess) return true;
    (void)cudaGetLastError();
    return false;
}
}  // namespace

/// The snapshot's device copy, its page-locked staging memory and the event
/// that marks the copy done, each freed by its owner.
struct ReferenceSnapshot::Buffers {
    void* device = nullptr;
    void* host = nullptr;
    cudaEvent_t copied = nullptr;
    cudaStream_t read_stream = nullptr;  ///< non-blocking: the read-back never waits for the window's work
    size_t bytes = 0;
    ~Buffers() { release(); }
    void release() {
        if (read_stream) cudaStreamDestroy(read_stream);
        if (copied) cudaEventDestroy(copied);
        if (host) cudaFreeHost(host);
        if (device) cudaFree(device);
        copied = nullptr;
        read_stream = nullptr;
        host = device = nullptr;
        bytes = 0;
    }
    /// Room for `n` bytes; false when CUDA refused (all released then).
    bool reserve(size_t n) {
        if (bytes == n) return true;
        release();
        if (!ok(cudaMalloc(&device, n)) || !ok(cudaMallocHost(&host, n)) ||
            !ok(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming)) ||
            !ok(cudaStreamCreateWithFlags(&read_stream, cudaStreamNonBlocking))) {
            release();
            return false;
        }
        bytes = n;
        return true;
    }
};

ReferenceSnapshot::ReferenceSnapshot() : b_(std::make_unique<Buffers>()) {}
ReferenceSnapshot::~ReferenceSnapshot() = default;

bool ReferenceSnapshot::take(const Renderer& r, int width, int height) {
    const GpuImage g = r.gpu_image();
    if (!g.pixels || width <= 0 || height <= 0) return false;
    const size_t n = size_t(width) * height * 4 * sizeof(float);
    if (!b_->reserve(n)) return false;
    const cudaStream_t s = static_cast<cudaStream_t>(g.stream);
    if (!ok(cudaMemcpyAsync(b_->device, g.pixels, n, cudaMemcpyDeviceToDevice, s)) ||
        !ok(cudaEventRecord(b_->copied, s)))
        return false;
    width_ = width;
    height_ = height;
    return true;
}

void ReferenceSnapshot::read(Image& out) {
    const auto check = [](cudaError_t e, const char* call) {
        if (e == cudaSuccess) return;
        (void)cudaGetLastError();
        throw std::runtime_error(std::string(call) + ": " + cudaGetErrorName(e) + ", " + cudaGetErrorString(e));
    };
    check(cudaStreamWaitEvent(b_->read_stream, b_->copied, 0), "cudaStreamWaitEvent (the reference's snapshot)");
    check(cudaMemcpyAsync(b_->host, b_->device, b_->bytes, cudaMemcpyDeviceToHost, b_->read_stream),
          "cudaMemcpyAsync (the reference's snapshot)");
    check(cudaStreamSynchronize(b_->read_stream), "cudaStreamSynchronize (the reference's snapshot)");
    if (out.width != width_ || out.height != height_) out = Image(width_, height_);
    parallel_copy(out.data.data(), b_->host, out.data.size() * sizeof(float));
}
#else
struct ReferenceSnapshot::Buffers {};
ReferenceSnapshot::ReferenceSnapshot() = default;
ReferenceSnapshot::~ReferenceSnapshot() = default;
bool ReferenceSnapshot::take(const Renderer&, int, int) { return false; }
void ReferenceSnapshot::read(Image&) { throw std::runtime_error("this build has no CUDA support"); }
#endif

}  // namespace cr::app
