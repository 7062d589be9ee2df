#include "render/teaching.h"

#include "render/core/tile_math.h"

namespace cr {

TileCounts tile_counts(const Scene& s, int width, int height, int tile) {
    const TileGrid g = make_tile_grid(width, height, tile);
    TileCounts c;
    c.listed = TileLoads{g.tiles_x, g.tiles_y, tile, std::vector<int>(g.tile_count(), 0)};
    c.hit.assign(g.tile_count(), 0);
    const float inv_w = 1.f / static_cast<float>(width), inv_h = 1.f / static_cast<float>(height);
    for (size_t k = 0; k < s.count(); ++k) {
        const PixelBox box = circle_pixel_box(s.x[k], s.y[k], s.radius[k], width, height);
        const TileRange r = tiles_of_box(box, tile);
        for (int ty = r.ty0; ty < r.ty1; ++ty)
            for (int tx = r.tx0; tx < r.tx1; ++tx) {
                const int t = ty * g.tiles_x + tx;
                ++c.listed.loads[t];
                c.hit[t] += circle_touches_tile(s.x[k], s.y[k], s.radius[k], box, g, tx, ty, inv_w, inv_h);
            }
    }
    return c;
}

namespace {

/// Lanes of warp `w` (0 or 1) of tile (tx, ty) with a pixel covered by circle k.
int active_lanes(const Scene& s, size_t k, const TileGrid& g, int tx, int ty, int w, float inv_w, float inv_h) {
    constexpr int kRows = 4;
    int active = 0;
    for (int lane = 0; lane < 32; ++lane) {
        const int t = 32 * w + lane;
        const int px = tx * 16 + t % 16, py0 = ty * 16 + (t / 16) * kRows;
        if (px >= g.width) continue;
        bool any = false;
        for (int r = 0; r < kRows && !any; ++r) {
            const int py = py0 + r;
            if (py >= g.height) break;
            any = covers(center_distance2(s.x[k], s.y[k], pixel_center(px, inv_w), pixel_center(py, inv_h)), s.radius[k]);
        }
        active += any;
    }
    return active;
}

}  // namespace

WarpActivity warp_activity(const Scene& s, int width, int height) {
    const TileGrid g = make_tile_grid(width, height, 16);
    WarpActivity a;
    a.warps_x = g.tiles_x;
    a.warps_y = 2 * g.tiles_y;
    std::vector<double> sum(static_cast<size_t>(a.warps_x) * a.warps_y, 0.0);
    std::vector<int> circles(static_cast<size_t>(g.tile_count()), 0);
    const float inv_w = 1.f / static_cast<float>(width), inv_h = 1.f / static_cast<float>(height);
    for (size_t k = 0; k < s.count(); ++k) {
        const PixelBox box = circle_pixel_box(s.x[k], s.y[k], s.radius[k], width, height);
        const TileRange r = tiles_of_box(box, 16);
        for (int ty = r.ty0; ty < r.ty1; ++ty)
            for (int tx = r.tx0; tx < r.tx1; ++tx) {
                if (!circle_touches_tile(s.x[k], s.y[k], s.radius[k], box, g, tx, ty, inv_w, inv_h)) continue;
                ++circles[ty * g.tiles_x + tx];
                for (int w = 0; w < 2; ++w)
                    sum[(2 * ty + w) * a.warps_x + tx] += active_lanes(s, k, g, tx, ty, w, inv_w, inv_h);
            }
    }
    a.mean_active_lanes.assign(sum.size(), -1.f);
    for (int wy = 0; wy < a.warps_y; ++wy)
        for (int wx = 0; wx < a.warps_x; ++wx) {
            const int n = circles[(wy / 2) * g.tiles_x + wx];
            if (n) a.mean_active_lanes[wy * a.warps_x + wx] = static_cast<float>(sum[wy * a.warps_x + wx] / n);
        }
    return a;
}

std::pair<Scene, Scene> order_demo_scenes() {
    Scene in_order;
    in_order.name = "order demo: red, then blue";
    in_order.resize(2);
    const float x[2] = {.4f, .6f}, r[2] = {1.f, 0.f}, b[2] = {0.f, 1.f};
    for (size_t i = 0; i < 2; ++i) {
        in_order.x[i] = x[i];
        in_order.y[i] = .5f;
        in_order.radius[i] = .3f;
        in_order.r[i] = r[i];
        in_order.b[i] = b[i];
    }
    Scene reversed = in_order;
    reversed.name = "order demo: blue, then red";
    for (auto* v : {&reversed.x, &reversed.y, &reversed.z, &reversed.radius, &reversed.r, &reversed.g, &reversed.b})
        std::swap((*v)[0], (*v)[1]);
    return {in_order, reversed};
}

}  // namespace cr
