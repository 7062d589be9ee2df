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
    int tile_size = 16;  ///< tile edge in pixels (8 or 16)
    int rows_per_thread = 4;  ///< pixel rows each shading thread owns (16x16 tiles: 4 or 8)
    /// Scenes with fewer than this many circle x tile tests per frame skip
    /// the global binning stage and let each block scan every circle.
    long long direct_limit = 1ll << 24;
    /// Most circle-tile pairs binned at once; more are drawn in batches of
    /// circles (in input order), which bounds device memory.
    long long max_pairs_per_batch = 1ll << 26;
    /// Device memory this renderer may hold, in bytes (0: what the GPU has).
    /// Past it, allocations fail as if the GPU were full (for tests).
    size_t memory_limit = 0;
};

/// Reads developer overrides of `base` from the environment variable
/// CR_CUDA_OPTIONS, e.g. "tile=8,rows=8,direct=0,batch=100000,memlimit_mib=64" (for
/// experiments and `render bench`); unknown keys throw std::invalid_argument.
CudaOptions cuda_options_from_env(CudaOptions base = {});

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
