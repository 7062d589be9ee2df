// The float RGBA framebuffer and image files.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
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

/// Image file formats the project writes.
enum class ImageFormat { Png, Ppm };

/// Error writing or reading an image file; what() names the path and cause.
struct ImageIoError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Converts to 8-bit RGB (or RGBA when `with_alpha`), top row first, each
/// channel (uint8)(255 * clamp(v, 0, 1)) (truncation, as the course's writer).
std::vector<uint8_t> to_rgb8_top_down(const Image& img, bool with_alpha = false);

/// Writes `img` as PNG (stb_image_write) or binary PPM (P6), top row first.
/// Writes to a temporary file beside `path` and renames it, so a failed write
/// never leaves a truncated file or clobbers an existing one.
/// Throws ImageIoError naming the path on failure.
void write_image(const Image& img, const std::string& path, ImageFormat format);

/// Writes 8-bit RGBA/RGB bytes (top row first) as a PNG, atomically as above.
void write_png_bytes(const std::string& path, int width, int height, int channels,
                     const uint8_t* bytes);

/// Writes `text` to `path` through a temporary file and a rename (the same
/// guarantee as write_image). Throws ImageIoError naming the path.
void write_text_atomically(const std::string& path, const std::string& text);

/// Reads a PNG or PPM (anything stb_image reads) into a float image:
/// channel / 255, alpha 1 when the file has none, row 0 = bottom.
/// Throws ImageIoError naming the path and stb's reason.
Image read_image(const std::string& path);

/// The format implied by a file name's extension (.ppm -> Ppm, else Png).
ImageFormat format_from_extension(const std::string& path);

}  // namespace cr
