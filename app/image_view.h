// Drawing the image and its overlays as textured quads in the window.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "gl_objects.h"
#include "view_geometry.h"

namespace cr::app {

/// How ImageView::draw draws a texture.
struct DrawStyle {
    bool blend = false;      ///< alpha-blend (the texture's alpha times opacity) over what is there
    float opacity = 1.f;
    bool smooth = false;     ///< linear filtering (for scaled-down images) instead of nearest
    float coverage_x = 1.f;  ///< fraction of the texture the rectangle shows, from its left ...
    float coverage_y = 1.f;  ///< ... and bottom edges (a tile grid larger than the image uses less)
    PixelRect clip;          ///< draw only inside this rectangle (w == 0: no clipping)
};

/// An RGBA8 texture filled from host bytes (top row first), re-created when
/// the size changes.
class HostTexture {
public:
    /// Uploads width x height RGBA8 pixels, top row first.
    void set(const std::vector<uint8_t>& rgba, int width, int height);
    GLuint texture() const { return tex_.get(); }
    int width() const { return width_; }
    int height() const { return height_; }

private:
    GlTexture tex_;
    int width_ = 0, height_ = 0;
};

/// Draws textures stored top row first into a rectangle of the window.
/// Needs a current OpenGL 3.3 core context for its whole life.
class ImageView {
public:
    /// Compiles the shader; throws std::runtime_error on a GL error.
    ImageView();
    /// Draws `texture` over `rect` (which may reach beyond the window when
    /// zoomed: only its part inside style.clip is drawn).
    void draw(GLuint texture, const PixelRect& rect, const DrawStyle& style) const;

private:
    GlProgram program_;
    GlVertexArray vao_;  // core profile: drawing needs a bound VAO, even without attributes
    GLint loc_tex_ = -1, loc_uv0_ = -1, loc_uv1_ = -1, loc_opacity_ = -1, loc_blend_ = -1;
};

/// The tile heat map's colour for a load fraction t in (0, 1] (a tile's
/// circles / the busiest tile's): blue -> red -> yellow, linear. Shared with
/// the panel's colour legend.
std::array<uint8_t, 3> tile_heat_color(double t);

/// Colors a tile grid of circle counts (tile (x, y) at loads[y * tiles_x + x],
/// y = 0 at the bottom) as RGBA8, top tile row first: empty tiles transparent,
/// then blue -> red -> yellow, linear in the count up to `max_load`.
std::vector<uint8_t> tile_heatmap_rgba8(const std::vector<int>& loads, int tiles_x, int tiles_y,
                                        int max_load);

}  // namespace cr::app
