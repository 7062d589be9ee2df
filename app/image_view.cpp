#include "image_view.h"

#include <algorithm>
#include <cmath>

namespace cr::app {

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
uniform vec2 uv0;
uniform vec2 uv1;
uniform float opacity;
uniform bool use_alpha;
void main() {
    vec2 t = mix(uv0, uv1, p);
    vec4 c = texture(tex, vec2(t.x, 1.0 - t.y));
    color = vec4(c.rgb, use_alpha ? c.a * opacity : 1.0);
})";
}  // namespace

ImageView::ImageView() : program_(make_program(kVertex, kFragment)), vao_(make_vertex_array()) {
    loc_tex_ = glGetUniformLocation(program_.get(), "tex");
    loc_uv0_ = glGetUniformLocation(program_.get(), "uv0");
    loc_uv1_ = glGetUniformLocation(program_.get(), "uv1");
    loc_opacity_ = glGetUniformLocation(program_.get(), "opacity");
    loc_blend_ = glGetUniformLocation(program_.get(), "use_alpha");
}

void ImageView::draw(GLuint texture, const PixelRect& rect, const DrawStyle& st) const {
    if (!texture || rect.w <= 0 || rect.h <= 0) return;
    PixelRect vis = rect;  // the part of rect inside the clip rectangle
    if (st.clip.w > 0) {
        const int x0 = std::max(rect.x, st.clip.x), y0 = std::max(rect.y, st.clip.y);
        const int x1 = std::min(rect.x + rect.w, st.clip.x + st.clip.w);
        const int y1 = std::min(rect.y + rect.h, st.clip.y + st.clip.h);
        if (x1 <= x0 || y1 <= y0) return;
        vis = PixelRect{x0, y0, x1 - x0, y1 - y0};
    }
    const auto u = [&](int x) { return static_cast<float>(x - rect.x) / static_cast<float>(rect.w) * st.coverage_x; };
    const auto v = [&](int y) { return static_cast<float>(y - rect.y) / static_cast<float>(rect.h) * st.coverage_y; };
    glViewport(vis.x, vis.y, vis.w, vis.h);
    glUseProgram(program_.get());
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, texture);
    const GLint filter = st.smooth ? GL_LINEAR : GL_NEAREST;
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    glUniform1i(loc_tex_, 0);
    glUniform2f(loc_uv0_, u(vis.x), v(vis.y));
    glUniform2f(loc_uv1_, u(vis.x + vis.w), v(vis.y + vis.h));
    const bool blend = st.blend;
    const float opacity = st.opacity;
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
