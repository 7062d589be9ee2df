#include "render/cpu/cpu_stages.h"

#include <stdexcept>

#include "render/core/numbers.h"

namespace cr {

void clear_rows(Image& img, ShadeMode shade, int row_begin, int row_end) {
    for (int j = row_begin; j < row_end; ++j) {
        const float v = background_value(shade, j, img.height);
        float* p = img.pixel(0, j);
        for (int i = 0; i < img.width; ++i, p += 4) {
            p[0] = v;
            p[1] = v;
            p[2] = v;
            p[3] = 1.f;
        }
    }
}

void advance_circles(Scene& scene, int64_t begin, int64_t end) {
    if (scene.motion == Motion::None) return;
    const CircleArrays c = circle_arrays(scene);
    const int motion = static_cast<int>(scene.motion);
    for (int64_t i = begin; i < end; ++i) anim::step_circle(motion, c, i);
}

void CpuRendererBase::setup(const Scene& scene, int width, int height) {
    require_valid_image_size(width, height);
    scene_ = scene;
    image_ = Image(width, height);
    frame_ = 0;
}

void CpuRendererBase::clear() {
    HostStopwatch t;
    parallel_for(image_.height, [this](int64_t b, int64_t e) {
        clear_rows(image_, scene_.shade, static_cast<int>(b), static_cast<int>(e));
    });
    clear_ms_ = t.ms();
}

void CpuRendererBase::advance() {
    HostStopwatch t;
    parallel_for(static_cast<int64_t>(scene_.count()), [this](int64_t b, int64_t e) { advance_circles(scene_, b, e); });
    ++frame_;
    advance_ms_ = t.ms();
}

void CpuRendererBase::render() {
    HostStopwatch t;
    extra_stages_.clear();
    render_frame();
    render_ms_ = t.ms();
}

std::vector<StageTime> CpuRendererBase::timings() {
    std::vector<StageTime> v = {{"clear", "Clear", clear_ms_}, {"advance", "Advance", advance_ms_}};
    if (extra_stages_.empty()) {
        v.push_back({"render", "Render", render_ms_});
    } else {
        for (const auto& s : extra_stages_) v.push_back(s);
    }
    return v;
}

void CpuRefRenderer::render_frame() {
    const int w = image_.width, h = image_.height;
    const float inv_w = 1.f / static_cast<float>(w), inv_h = 1.f / static_cast<float>(h);
    for (size_t k = 0; k < scene_.count(); ++k) {
        const PixelBox box = circle_pixel_box(scene_.x[k], scene_.y[k], scene_.radius[k], w, h);
        for (int j = box.min_y; j < box.max_y; ++j) {
            float* p = image_.pixel(box.min_x, j);
            for (int i = box.min_x; i < box.max_x; ++i, p += 4) shade_pixel(scene_, k, i, j, inv_w, inv_h, p);
        }
    }
}

}  // namespace cr
