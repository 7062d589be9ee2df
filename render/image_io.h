// Image files: PNG and PPM out, anything stb_image reads in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/core/image.h"
#include "render/core/output_file.h"

namespace cr {

/// Image file formats the project writes.
enum class ImageFormat { Png, Ppm };

/// Converts to 8-bit RGB (or RGBA when `with_alpha`), top row first, each
/// channel (uint8)(255 * clamp(v, 0, 1)) (truncation, as the course's writer).
std::vector<uint8_t> to_rgb8_top_down(const Image& img, bool with_alpha = false);
/// The same into `out` (resized; a buffer of the right size is reused, so a
/// frame of the workbench faults in no new pages). Large images are converted
/// in bands of rows on a few threads (render/core/bands.h).
void to_rgb8_top_down(const Image& img, bool with_alpha, std::vector<uint8_t>& out);

/// Writes `img` as PNG (stb_image_write) or binary PPM (P6), top row first,
/// through write_output_file: a file (also behind a symbolic link) is written
/// to a temporary name and renamed, so a failed write never leaves a
/// truncated file or clobbers an existing one; a device, FIFO or standard
/// output ("-") is written in place. Throws FileError naming the path.
void write_image(const Image& img, const std::string& path, ImageFormat format);

/// Writes 8-bit RGBA/RGB bytes (top row first) as a PNG, as write_image does.
void write_png_bytes(const std::string& path, int width, int height, int channels,
                     const uint8_t* bytes);

/// Reads a PNG or PPM (anything stb_image reads) into a float image:
/// channel / 255, alpha 1 when the file has none, row 0 = bottom.
/// Throws FileError naming the path and stb's reason.
Image read_image(const std::string& path);

/// The format implied by a file name's extension (.ppm -> Ppm, else Png).
ImageFormat format_from_extension(const std::string& path);

}  // namespace cr
