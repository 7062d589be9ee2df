// CPU versions of the frame stages (clear, advance), shared by the CPU
// renderers; the CUDA kernels in kernels/ mirror them one file a stage.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "render/core/image.h"
#include "render/core/renderer.h"
#include "scenes/animation.h"
#include "scenes/scene.h"

namespace cr {

/// Fills rows [row_begin, row_end) of `img` with the background of `shade`
/// (background_value, alpha 1).
void clear_rows(Image& img, ShadeMode shade, int row_begin, int row_end);

/// Advances circles [begin, end) of `scene` one step (anim::step_circle).
void advance_circles(Scene& scene, int64_t begin, int64_t end);

/// Whether circle k of `scene` covers pixel (i, j), and if so its color and
/// alpha there in `f` (the course's shadePixel before the blend). inv_w =
/// 1/W, inv_h = 1/H.
inline bool circle_fragment(const Scene& s, size_t k, int i, int j, float inv_w, float inv_h, Fragment& f) {
    const float px = pixel_center(i, inv_w), py = pixel_center(j, inv_h);
    const float d2 = center_distance2(s.x[k], s.y[k], px, py);
    if (!covers(d2, s.radius[k])) return false;
    f = s.shade == ShadeMode::Snow ? shade_snow(d2, s.radius[k], s.z[k]) : shade_flat(s.r[k], s.g[k], s.b[k]);
    return true;
}

/// Shades pixel (i, j) of `img` with circle k of `scene` if it covers it
/// (the course's shadePixel): circle_fragment, then blend.
inline void shade_pixel(const Scene& s, size_t k, int i, int j, float inv_w, float inv_h,
                        float* rgba) {
    Fragment f;
    if (circle_fragment(s, k, i, j, inv_w, inv_h, f)) blend(rgba[0], rgba[1], rgba[2], rgba[3], f);
}

/// Milliseconds on the host clock; CPU stages run synchronously, so a host
/// clock around them is the right tool (GPU stages use cudaEvents).
class HostStopwatch {
public:
    HostStopwatch() : t0_(std::chrono::steady_clock::now()) {}
    double ms() const {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
    }

private:
    std::chrono::steady_clock::time_point t0_;
};

/// Common state of the CPU renderers: the scene copy, the image, the frame
/// counter and the last stage times. Subclasses implement render_frame().
class CpuRendererBase : public Renderer {
public:
    void setup(const Scene& scene, int width, int height) override;
    void clear() override;
    void advance() override;
    void render() override;
    const Image& image() override { return image_; }
    std::vector<StageTime> timings() override;
    int frame() const override { return frame_; }

protected:
    /// Draws scene_ over image_ (called by render()).
    virtual void render_frame() = 0;
    /// Runs fn(begin, end) over [0, n) (subclasses may split it over threads).
    virtual void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
        fn(0, n);
    }
    Scene scene_;
    Image image_;
    int frame_ = 0;
    double clear_ms_ = 0, advance_ms_ = 0, render_ms_ = 0;
    std::vector<StageTime> extra_stages_;  ///< sub-stages of render, set by render_frame()
};

/// The sequential reference renderer: circle by circle in input order, each
/// over its bounding box (the course's RefRenderer). The ground truth.
class CpuRefRenderer final : public CpuRendererBase {
public:
    std::string name() const override { return "cpuref"; }

protected:
    void render_frame() override;
};

}  // namespace cr
