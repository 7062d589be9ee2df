// The one renderer interface behind `render`, `render bench` and the GUI.
//
// A frame is clear() -> advance() -> render() (SCENES.md: frame 0 already had
// one advance step). GPU renderers run these asynchronously on one stream and
// time every stage with cudaEvents; image() and timings() wait for the work.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "render/image.h"
#include "scenes/scene.h"

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
};

/// A circle renderer. Not copyable; one instance owns its buffers.
class Renderer {
public:
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
    /// Work counters of the last render (optional).
    virtual WorkCounts work() { return {}; }
    /// Circles per tile of the last render, for heat maps (tile_w x tile_h
    /// tiles of tile_size pixels); empty when the renderer has no tiles.
    virtual std::vector<int> tile_loads(int& tiles_x, int& tiles_y, int& tile_size) {
        tiles_x = tiles_y = tile_size = 0;
        return {};
    }
    /// True when the renderer is known not to blend in order (demo kernel).
    virtual bool is_incorrect_by_design() const { return false; }
    /// Frames advanced so far.
    virtual int frame() const = 0;
};

/// Description of a renderer the factory can build.
struct RendererInfo {
    std::string name;
    std::string description;
    bool needs_gpu = false;
    bool incorrect_by_design = false;  ///< the `unordered` teaching demo
};

/// Every renderer compiled in (cpuref, cpu, and the CUDA kernels).
const std::vector<RendererInfo>& renderer_infos();

/// True when a CUDA device is usable; `why` gets the reason when not.
bool cuda_device_available(std::string* why = nullptr);

/// The best renderer available here: "tiled" with a CUDA device, else "cpu".
std::string default_renderer_name();

/// Error for a GPU renderer asked for where no CUDA device exists (exit 3).
struct NoCudaDeviceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The renderer's name as renderer_infos() lists it ("cuda" -> "tiled",
/// "ref" -> "cpuref"). Throws std::invalid_argument listing the valid names.
std::string canonical_renderer_name(const std::string& name);

/// Builds renderer `name` ("cuda" is an alias of "tiled"). Throws
/// std::invalid_argument for an unknown name and NoCudaDeviceError for a GPU
/// renderer without a CUDA device.
std::unique_ptr<Renderer> make_renderer(const std::string& name);

/// Exact sum over circles of the pixels each covers (the blends a frame
/// does), counted on the CPU for the scene as it is now.
long long count_blends(const Scene& scene, int width, int height);

}  // namespace cr
