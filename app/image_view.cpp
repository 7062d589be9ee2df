#include "image_view.h"

#include <algorithm>
#include <cmath>

namespace cr::app {

PixelRect fit_image(const PixelRect& area, int image_w, int image_h, bool pixel_exact) {
    if (area.w <= 0 || area.h <= 0 || image_w <= 0 || image_h <= 0) return {area.x, area.y, 0, 0};
    int w = image_w, h = image_h;
    if (!pixel_exact || w > area.w || h > area.h) {
        const double s = std::min(double(area.w) / image_w, double(area.h) / image_h);
        w = std::max(1, static_cast<int>(image_w * s));
        h = std::max(1, static_cast<int>(image_h * s));
    }
    return {area.x + (area.w - w) / 2, area.y + (area.h - h) / 2, w, h};
}

void HostTexture::set(const std::vector<uint8_t>& rgba, int width, int height) {
    if (!tex_ || width != width_ || height != height_) {
        tex_ = make_rgba8_texture(width, height);
        width_ = width;
        height_ = height;
    }
    glBindTexture(GL_TEXTURE_2D, tex_.get());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
}

namespace {
// One triangle covering the viewport; p runs over [0,1]^2 from its bottom-left.
const char* kVertex = R"(#version 330 core
out vec2 p;
void main() {
    vec2 v = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    p = v;
    gl_Position = vec4(v * 2.0 - 1.0, 0.0, 1.0);
})";
// Textures hold the top row first: texture t = 0 is the picture's top.
const char* kFragment = R"(#version 330 core
in vec2 p;
out vec4 color;
uniform sampler2D tex;
uniform vec2 coverage;
uniform float opacity;
uniform bool use_alpha;
void main() {
    vec4 c = texture(tex, vec2(p.x * coverage.x, 1.0 - p.y * coverage.y));
    color = vec4(c.rgb, use_alpha ? c.a * opacity : 1.0);
})";
}  // namespace

ImageView::ImageView() : program_(make_program(kVertex, kFragment)), vao_(make_vertex_array()) {
    loc_tex_ = glGetUniformLocation(program_.get(), "tex");
    loc_coverage_ = glGetUniformLocation(program_.get(), "coverage");
    loc_opacity_ = glGetUniformLocation(program_.get(), "opacity");
    loc_blend_ = glGetUniformLocation(program_.get(), "use_alpha");
}

void ImageView::draw(GLuint texture, const PixelRect& rect, bool blend, float opacity, bool smooth,
                     float coverage_x, float coverage_y) const {
    if (!texture || rect.w <= 0 || rect.h <= 0) return;
    glViewport(rect.x, rect.y, rect.w, rect.h);
    glUseProgram(program_.get());
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, texture);
    const GLint filter = smooth ? GL_LINEAR : GL_NEAREST;
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    glUniform1i(loc_tex_, 0);
    glUniform2f(loc_coverage_, coverage_x, coverage_y);
    glUniform1f(loc_opacity_, opacity);
    glUniform1i(loc_blend_, blend ? 1 : 0);
    if (blend) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    } else {
        glDisable(GL_BLEND);
    }
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_SCISSOR_TEST);
    glBindVertexArray(vao_.get());
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
}

std::array<uint8_t, 3> tile_heat_color(double t) {
    t = std::min(1.0, std::max(0.0, t));
    // blue (0) -> red (0.5) -> yellow (1)
    const double r = t < .5 ? 2 * t : 1.0;
    const double g = t < .5 ? 0.0 : 2 * (t - .5);
    const double b = t < .5 ? 1 - 2 * t : 0.0;
    return {static_cast<uint8_t>(255 * r), static_cast<uint8_t>(255 * g), static_cast<uint8_t>(255 * b)};
}

std::vector<uint8_t> tile_heatmap_rgba8(const std::vector<int>& loads, int tiles_x, int tiles_y,
                                        int max_load) {
    std::vector<uint8_t> out(static_cast<size_t>(tiles_x) * tiles_y * 4, 0);
    const double top = std::max(max_load, 1);
    for (int y = 0; y < tiles_y; ++y)
        for (int x = 0; x < tiles_x; ++x) {
            const int n = loads[static_cast<size_t>(y) * tiles_x + x];
            if (n <= 0) continue;
            const std::array<uint8_t, 3> c = tile_heat_color(n / top);
            uint8_t* px = &out[4 * (static_cast<size_t>(tiles_y - 1 - y) * tiles_x + x)];
            px[0] = c[0];
            px[1] = c[1];
            px[2] = c[2];
            px[3] = 255;
        }
    return out;
}

}  // namespace cr::app
