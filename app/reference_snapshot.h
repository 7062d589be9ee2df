// The reference's frame for the student lane's comparison, taken on the
// window's thread at the cost of a device-to-device copy. A CUDA renderer's
// image stays on the GPU (Renderer::gpu_image): take() copies it there, on
// the renderer's stream, into this snapshot's own device buffer (16 MB in
// microseconds on an H200) and records an event; read(), on the lane's
// comparison task, reads the copy back through page-locked memory on a
// stream of its own that waits for that event. So the window thread no longer downloads and copies a
// 16 MB image for every student frame (on the H200 that was about 1.3 ms of
// each such window frame). Renderers on the CPU, and builds without CUDA,
// take nothing: the caller copies image() as before.
#pragma once

#include <memory>

#include "render/core/image.h"
#include "render/core/renderer.h"

namespace cr::app {

/// One taken reference frame (see the file comment). Not copyable; the
/// lane keeps a few and reuses them (sized for the frame, reallocated when
/// the size changes).
class ReferenceSnapshot {
public:
    ReferenceSnapshot();
    ~ReferenceSnapshot();
    ReferenceSnapshot(const ReferenceSnapshot&) = delete;
    ReferenceSnapshot& operator=(const ReferenceSnapshot&) = delete;

    /// Copies r's current width x height device image into this snapshot,
    /// on r's stream. False (nothing taken) when r has no device image, this
    /// build has no CUDA, or a CUDA call failed (the error is cleared: the
    /// caller copies image() instead).
    bool take(const Renderer& r, int width, int height);
    /// Waits for the copy of take() and writes it into `out` (resized to the
    /// frame; its memory reused otherwise). Throws std::runtime_error naming
    /// the CUDA call that failed.
    void read(Image& out);

private:
    struct Buffers;
    std::unique_ptr<Buffers> b_;
    int width_ = 0, height_ = 0;
};

}  // namespace cr::app
