// The one renderer interface behind `render`, `render bench` and the GUI.
//
// A frame is clear() -> advance() -> render() (SCENES.md: frame 0 already had
// one advance step). GPU renderers run these asynchronously on one stream
// (the CUDA renderer's recorded order on a second one, joined into it
// before the shading) and time every stage with cudaEvents; image() and
// timings() wait for the work.
// Front ends use only this interface (no casts to a concrete renderer): what
// only some renderers have (a device image for interop, device memory, tile
// loads) comes through the optional members at the end, empty by default.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include "render/core/circles.h"
#include "render/core/image.h"

namespace cr {

/// Time of one named stage of the last frame, in milliseconds. Stages named
/// "bin.xxx" are sub-stages of binning; `course` tells which course line
/// (Clear, Advance, Render) the stage counts towards.
struct StageTime {
    std::string name;
    std::string course;  ///< "Clear", "Advance", "Render" or "" (not in Total)
    double ms = 0;
};

/// Work counters of the last rendered frame (0 where a renderer doesn't count).
struct WorkCounts {
    long long circle_tile_pairs = 0;  ///< circles listed in tiles (binning output)
    long long coverage_tests = 0;     ///< pixel-circle distance tests done
    /// Frames binned twice since setup because they had more circle-tile
    /// pairs than the speculative capacity (CUDA renderer; kernels/bin.cu).
    long long binning_redos = 0;
    /// How the last frame was binned and shaded (CUDA tiled kernels), e.g.
    /// "sorted 4x4-tile bins, split; strip masks"; empty elsewhere.
    std::string path;
    /// How the last frame's last shading pass handed its tiles out (CUDA
    /// tiled kernels): "tile order", "list lengths, sorted after binning",
    /// "recorded work, sorted beside binning" or "recorded work, sorted
    /// after binning" (docs/KERNELS.md, the persistent kernel and the
    /// recorded order); empty elsewhere.
    std::string tile_order;
};

/// Circles listed per tile in the last render, for heat maps: tiles_x x
/// tiles_y tiles of tile_size pixels, loads[ty * tiles_x + tx], ty = 0 at
/// the bottom. Empty (all zero) for renderers without tiles.
struct TileLoads {
    int tiles_x = 0, tiles_y = 0, tile_size = 0;
    std::vector<int> loads;
    bool empty() const { return loads.empty(); }
};

/// Where a GPU renderer keeps its image: a CUDA device pointer to width *
/// height float4 (row 0 = bottom) and the cudaStream_t its stages run on
/// (as void*, so this header needs no CUDA). Null for CPU renderers.
struct GpuImage {
    const float* pixels = nullptr;
    void* stream = nullptr;
};

/// A circle renderer. Not copyable; one instance owns its buffers.
class Renderer {
public:
    Renderer() = default;
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;
    virtual ~Renderer() = default;
    /// The name used by --renderer (e.g. "cpuref", "tiled").
    virtual std::string name() const = 0;
    /// Takes a copy of `scene` (uploads it for GPU renderers) and sizes the
    /// image to width x height pixels. Throws on bad sizes or out of memory.
    virtual void setup(const Scene& scene, int width, int height) = 0;
    /// Fills the image with the scene's background.
    virtual void clear() = 0;
    /// Advances the animation one step (a no-op for still scenes).
    virtual void advance() = 0;
    /// Draws every circle over the image, in input order.
    virtual void render() = 0;
    /// The current image (GPU renderers copy it to the host here).
    virtual const Image& image() = 0;
    /// Per-stage times of the last clear/advance/render, in ms.
    virtual std::vector<StageTime> timings() = 0;
    /// Frames advanced so far.
    virtual int frame() const = 0;

    // ---- optional: defaults for renderers that have none of these -------
    /// Waits until the work queued so far has finished (GPU renderers; the
    /// course's timing method calls it after every stage).
    virtual void synchronize() {}
    /// Work counters of the last render.
    virtual WorkCounts work() { return {}; }
    /// Circles per tile of the last render.
    virtual TileLoads tile_loads() { return {}; }
    /// The device image, for CUDA-OpenGL interop (null for CPU renderers).
    virtual GpuImage gpu_image() const { return {}; }
    /// Largest device memory this renderer held at once, in bytes.
    virtual size_t peak_device_bytes() const { return 0; }
    /// Starts (on) or stops the CUDA profiler's capture of this renderer's GPU
    /// work (cudaProfilerStart/Stop, for `render profile` under Nsight
    /// Compute); waits for queued work first. No-op for CPU renderers.
    virtual void profiler_range(bool on) { (void)on; }
    /// True when timings() already follow the course's method (host clock
    /// around each call, each followed by cudaDeviceSynchronize), as the
    /// student renderer's worker measures them.
    virtual bool course_timing() const { return false; }
    /// One frame as a process of the course's binary runs it, inside the
    /// renderer's own process: clear, advance and render, each followed by
    /// a synchronize and timed with the host clock, back to back; then, when
    /// `ppm_path` is not "", the image written there as a PPM file by that
    /// process, as the course's binary writes it between frames. Returns the
    /// three times (ms), or nullopt when the renderer lives in this process
    /// (the caller then times the calls and writes the file itself).
    virtual std::optional<std::vector<StageTime>> course_frame(const std::string& ppm_path) {
        (void)ppm_path;
        return std::nullopt;
    }
    /// True when the renderer is known not to blend in order (demo kernel).
    virtual bool is_incorrect_by_design() const { return false; }
    /// Makes the next setup() start as a fresh run of the course's binary
    /// would: the student's renderer ends its worker process, so the next
    /// one creates its CUDA context, loads its kernels and touches its
    /// buffers anew (the course times every run in a fresh process). No-op
    /// for renderers that live in this process.
    virtual void cold_start() {}
};

/// A GPU renderer was asked for where no CUDA device is usable, or the
/// build has no CUDA support (exit code 3).
struct NoCudaDeviceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A device allocation failed (exit code 4): names the buffer and the bytes.
struct DeviceOutOfMemory : std::runtime_error {
    DeviceOutOfMemory(const std::string& b, size_t n)
        : std::runtime_error("out of GPU memory allocating '" + b + "' (" + std::to_string(n) + " bytes, " +
                             std::to_string(n >> 20) + " MiB); try a smaller --size or scene"),
          buffer(b),
          bytes(n) {}
    std::string buffer;
    size_t bytes;
};

/// Any other CUDA failure (exit code 5): what() names the call and the error.
struct CudaError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace cr
