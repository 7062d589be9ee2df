// Tile geometry and the circle-tile tests used by binning, written
// `__host__ __device__` so the host unit tests check the same code.
//
// The image is cut into square tiles of `tile` x `tile` pixels; tile (tx, ty)
// holds pixels [tx*tile, min(W, (tx+1)*tile)) x [ty*tile, ...). Tiles at the
// right and top edges may be partial. Tile ids are row-major: ty * tiles_x + tx.
#pragma once

#include <cstdint>

#include "render/core/shading.h"

namespace cr {

/// Tiling of a W x H image.
struct TileGrid {
    int width, height;     ///< image size in pixels
    int tile;              ///< tile edge in pixels
    int tiles_x, tiles_y;  ///< tile counts (ceil(W / tile), ceil(H / tile))
    CR_HD int tile_count() const { return tiles_x * tiles_y; }
};

/// The tiling of a width x height image into tile x tile tiles.
CR_HD TileGrid make_tile_grid(int width, int height, int tile) {
    return TileGrid{width, height, tile, (width + tile - 1) / tile, (height + tile - 1) / tile};
}

/// Half-open range of tiles [tx0, tx1) x [ty0, ty1).
struct TileRange {
    int tx0, tx1, ty0, ty1;
    CR_HD bool empty() const { return tx0 >= tx1 || ty0 >= ty1; }
    CR_HD int64_t count() const { return empty() ? 0 : int64_t(tx1 - tx0) * (ty1 - ty0); }
    /// Whether tile (tx, ty) lies in the range (bin.compact's test of a
    /// circle's range of bins against its bin).
    CR_HD bool contains(int tx, int ty) const { return tx0 <= tx && tx < tx1 && ty0 <= ty && ty < ty1; }
};

/// The tiles a pixel box overlaps (the conservative test).
CR_HD TileRange tiles_of_box(const PixelBox& b, int tile) {
    if (b.empty()) return TileRange{0, 0, 0, 0};
    return TileRange{b.min_x / tile, (b.max_x - 1) / tile + 1, b.min_y / tile, (b.max_y - 1) / tile + 1};
}

/// The range of tiles of 2^shift times the size that contain the tiles of
/// `r` (empty for an empty range): for tiles of powers of two,
/// coarsen(tiles_of_box_pow2(b, f), s) == tiles_of_box_pow2(b, f + s),
/// since (m >> f) >> s == m >> (f + s). The counting sort keeps a circle's
/// fine range and derives its bins from it.
CR_HD TileRange coarsen(const TileRange& r, int shift) {
    if (r.empty()) return TileRange{0, 0, 0, 0};
    return TileRange{r.tx0 >> shift, ((r.tx1 - 1) >> shift) + 1, r.ty0 >> shift, ((r.ty1 - 1) >> shift) + 1};
}

/// tiles_of_box for tiles of 2^shift pixels, the divisions as shifts (the
/// kernels' hot loops; valid because circle_pixel_box never gives negative
/// coordinates): the box's pixels, as tiles of one pixel, coarsened.
CR_HD TileRange tiles_of_box_pow2(const PixelBox& b, int shift) {
    return coarsen(TileRange{b.min_x, b.max_x, b.min_y, b.max_y}, shift);
}

/// A circle is "extreme" when its coordinates are so large that float
/// rounding could let d2 <= r*r hold for a pixel outside its bounding box.
/// For |x|, |y|, r <= 4 the half-pixel margin of the box (>= 3e-5 for images
/// up to 16384 pixels) dwarfs the rounding error (~1e-6), so only extreme
/// circles need the explicit box test while shading.
CR_HD bool is_extreme_circle(float x, float y, float r) {
    return !(fabsf(x) <= 4.f && fabsf(y) <= 4.f && r <= 4.f);
}

/// The exact circle-tile test: can circle (x, y, r) with pixel box `b` cover
/// any pixel center of tile (tx, ty)? It intersects the box with the tile,
/// then measures the distance from the circle center to the nearest point of
/// the rectangle spanned by the remaining pixel centers. The comparison has a
/// small relative slack so it never rejects a pixel the shading test
/// (d2 <= r*r, rounded) would accept; it may keep a few extra circles.
CR_HD bool circle_touches_tile(float x, float y, float r, const PixelBox& b, const TileGrid& g,
                               int tx, int ty, float inv_w, float inv_h) {
    const int x0 = b.min_x > tx * g.tile ? b.min_x : tx * g.tile;
    const int y0 = b.min_y > ty * g.tile ? b.min_y : ty * g.tile;
    int x1 = (tx + 1) * g.tile;
    int y1 = (ty + 1) * g.tile;
    if (x1 > b.max_x) x1 = b.max_x;
    if (y1 > b.max_y) y1 = b.max_y;
    if (x0 >= x1 || y0 >= y1) return false;
    const float cx0 = pixel_center(x0, inv_w), cx1 = pixel_center(x1 - 1, inv_w);
    const float cy0 = pixel_center(y0, inv_h), cy1 = pixel_center(y1 - 1, inv_h);
    const float nx = x < cx0 ? cx0 : (x > cx1 ? cx1 : x);
    const float ny = y < cy0 ? cy0 : (y > cy1 ? cy1 : y);
    const float dx = x - nx, dy = y - ny;
    const float d2 = dx * dx + dy * dy;
    const float r2 = r * r;
    return d2 <= r2 * 1.0001f + 1e-12f;
}

/// Host binning loop shared by the CPU renderer and the CUDA renderer's heat
/// map: calls f(tile_id), row-major, for every tile circle (x, y, r) may cover
/// a pixel center of (the tile lists binning builds). Extreme circles (far
/// away or huge) skip the circle-tile test and keep every tile of their box;
/// shading restricts them to the box anyway. inv_w = 1/W, inv_h = 1/H.
template <typename F>
inline void for_each_listed_tile(float x, float y, float r, const TileGrid& g, float inv_w, float inv_h, F&& f) {
    const PixelBox box = circle_pixel_box(x, y, r, g.width, g.height);
    const TileRange tr = tiles_of_box(box, g.tile);
    if (tr.empty()) return;
    const bool test = !is_extreme_circle(x, y, r) && tr.count() > 1;
    for (int ty = tr.ty0; ty < tr.ty1; ++ty)
        for (int tx = tr.tx0; tx < tr.tx1; ++tx)
            if (!test || circle_touches_tile(x, y, r, box, g, tx, ty, inv_w, inv_h))
                f(ty * g.tiles_x + tx);
}

/// The early stop's recorded order (launch_recorded_order, and
/// recorded_order_groups on the host): the group of a tile whose recorded
/// work is `w` among `tiles` tiles of total work `total`: 0 above 1.5 x
/// the mean, 1 above 1.25 x, 2 above the mean, 3 the rest. Integer
/// compares of w x tiles against the total x 3/2, 5/4 and 1: exact, with
/// no overflow for work below 2^32 a tile and fewer than 2^20 tiles (both
/// sides below 2^55).
CR_HD int work_group(unsigned int w, int tiles, unsigned long long total) {
    const unsigned long long x = static_cast<unsigned long long>(w) * static_cast<unsigned long long>(tiles);
    return 2 * x > 3 * total ? 0 : 4 * x > 5 * total ? 1 : x > total ? 2 : 3;
}

}  // namespace cr
