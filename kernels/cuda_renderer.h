// Host-side owner of the CUDA renderer: uploads the scene once, keeps the
// circles in device memory as structure-of-arrays, and runs the frame stages
// (clear -> advance -> bin -> shade) on one stream, timing each stage with
// cudaEvents. The image stays on the device until image() is called.
//
// Kernels (see docs/KERNELS.md): naive, tiled, persistent, and the
// deliberately incorrect `unordered` demo of the course's starter code.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "render/renderer.h"

namespace cr {

/// Which shading kernel a CudaRenderer runs.
enum class KernelKind {
    Naive,       ///< one thread per pixel walks every circle
    Tiled,       ///< one block per tile, binned circle lists, block scan
    Persistent,  ///< tiled, with resident blocks pulling tiles from a counter
    Unordered,   ///< the starter code's racy one-thread-per-circle kernel (wrong on purpose)
};

/// Options of the tiled kernels (defaults are the measured best).
struct CudaOptions {
    int tile_size = 16;  ///< tile edge in pixels (8 or 16); one thread per pixel
    /// Scenes with fewer than this many circle x tile tests per frame skip
    /// the global binning stage and let each block scan every circle.
    long long direct_limit = 1ll << 24;
    /// Most circle-tile pairs binned at once; more are drawn in batches of
    /// circles (in input order), which bounds device memory.
    long long max_pairs_per_batch = 1ll << 26;
};

/// Thrown when a device allocation fails: names the buffer and the bytes.
struct DeviceOutOfMemory : std::runtime_error {
    DeviceOutOfMemory(const std::string& buffer, size_t bytes);
    std::string buffer;
    size_t bytes;
};

/// Thrown for any other CUDA failure: what() names the call and the error.
struct CudaError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class CudaRendererImpl;

/// The CUDA renderer (see file comment). Throws NoCudaDeviceError from the
/// constructor when no device is usable.
class CudaRenderer final : public Renderer {
public:
    explicit CudaRenderer(KernelKind kind, CudaOptions options = {});
    ~CudaRenderer() override;
    std::string name() const override;
    void setup(const Scene& scene, int width, int height) override;
    void clear() override;
    void advance() override;
    void render() override;
    const Image& image() override;
    std::vector<StageTime> timings() override;
    WorkCounts work() override;
    std::vector<int> tile_loads(int& tiles_x, int& tiles_y, int& tile_size) override;
    bool is_incorrect_by_design() const override { return kind_ == KernelKind::Unordered; }
    int frame() const override;

    /// Device pointer to the float RGBA image (width*height float4, row 0 =
    /// bottom), valid until the next setup(); for CUDA-OpenGL interop.
    const float* device_image() const;
    /// The stream all stages run on (interop work must use it too).
    cudaStream_t stream() const;
    /// Largest device memory this renderer held at once, in bytes.
    size_t peak_device_bytes() const;

private:
    KernelKind kind_;
    std::unique_ptr<CudaRendererImpl> impl_;
};

/// Converts the float RGBA image to RGBA8 (clamped, truncated as the course's
/// writer) for display; dst is width*height uchar4, row 0 = bottom (OpenGL's
/// texture origin). `flip` writes top row first instead.
void launch_present_rgba8(const float* src, unsigned char* dst, int width, int height,
                          bool flip, cudaStream_t stream);

}  // namespace cr
