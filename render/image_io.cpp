#include "render/image_io.h"

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include "render/core/bands.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace cr {

std::vector<uint8_t> to_rgb8_top_down(const Image& img, bool with_alpha) {
    std::vector<uint8_t> out;
    to_rgb8_top_down(img, with_alpha, out);
    return out;
}

void to_rgb8_top_down(const Image& img, bool with_alpha, std::vector<uint8_t>& out) {
    const int ch = with_alpha ? 4 : 3;
    const size_t row_bytes = static_cast<size_t>(img.width) * ch;
    out.resize(img.pixel_count() * ch);
    const size_t rows = static_cast<size_t>(img.height);
    // rows in bands on a few threads (the 1024x1024 workbench frame: 16 MB read, 4 MB written)
    for_bands(rows, bands_for_bytes(img.pixel_count() * 4 * sizeof(float)), [&](size_t r0, size_t r1) {
        for (size_t r = r0; r < r1; ++r) {  // output row r is the image's row height-1-r
            const float* p = img.pixel(0, img.height - 1 - static_cast<int>(r));
            uint8_t* o = out.data() + r * row_bytes;
            for (int i = 0; i < img.width; ++i, p += 4)
                for (int c = 0; c < ch; ++c) {
                    const float v = p[c];
                    // NaN maps to 0 (the comparison reports it separately).
                    const float cl = v > 0.f ? (v < 1.f ? v : 1.f) : 0.f;
                    *o++ = static_cast<uint8_t>(255.f * cl);
                }
        }
    });
}

namespace {

void stb_write_callback(void* ctx, void* data, int size) {
    auto* f = static_cast<std::FILE*>(ctx);
    if (std::fwrite(data, 1, static_cast<size_t>(size), f) != static_cast<size_t>(size)) {
        // ferror() is checked after stbi returns.
    }
}

}  // namespace

void write_png_bytes(const std::string& path, int width, int height, int channels,
                     const uint8_t* bytes) {
    write_output_file(path, [&](std::FILE* f) {
        return stbi_write_png_to_func(stb_write_callback, f, width, height, channels, bytes,
                                      width * channels) != 0;
    });
}

void write_image(const Image& img, const std::string& path, ImageFormat format) {
    const std::vector<uint8_t> rgb = to_rgb8_top_down(img, false);
    if (format == ImageFormat::Png) {
        write_png_bytes(path, img.width, img.height, 3, rgb.data());
        return;
    }
    write_output_file(path, [&](std::FILE* f) {
        std::fprintf(f, "P6\n%d %d\n255\n", img.width, img.height);
        return std::fwrite(rgb.data(), 1, rgb.size(), f) == rgb.size();
    });
}

Image read_image(const std::string& path) {
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load(path.c_str(), &w, &h, &n, 4);
    if (!px) {
        const char* why = stbi_failure_reason();
        throw FileError("cannot read image '" + path + "': " + (why ? why : "unknown error"));
    }
    Image img(w, h);
    for (int j = 0; j < h; ++j) {
        const unsigned char* row = px + static_cast<size_t>(h - 1 - j) * w * 4;
        float* p = img.pixel(0, j);
        for (int i = 0; i < w * 4; ++i) p[i] = static_cast<float>(row[i]) / 255.f;
    }
    stbi_image_free(px);
    return img;
}

ImageFormat format_from_extension(const std::string& path) {
    const auto dot = path.rfind('.');
    if (dot != std::string::npos) {
        std::string ext = path.substr(dot + 1);
        std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
        if (ext == "ppm") return ImageFormat::Ppm;
    }
    return ImageFormat::Png;
}

}  // namespace cr
