// The float RGBA framebuffer every renderer draws into (files: render/image_io.h).
#pragma once

#include <cstddef>
#include <vector>

namespace cr {

/// A W x H float RGBA image; pixel (i, j) is at data[4 * (j * width + i)],
/// row j = 0 is the bottom of the picture (SCENES.md).
struct Image {
    int width = 0;
    int height = 0;
    std::vector<float> data;

    Image() = default;
    Image(int w, int h) : width(w), height(h), data(static_cast<size_t>(w) * h * 4, 0.f) {}
    float* pixel(int i, int j) { return &data[4 * (static_cast<size_t>(j) * width + i)]; }
    const float* pixel(int i, int j) const { return &data[4 * (static_cast<size_t>(j) * width + i)]; }
    size_t pixel_count() const { return static_cast<size_t>(width) * height; }
};

}  // namespace cr
