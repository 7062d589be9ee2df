// Tile geometry and the circle-tile test of binning (render/core/tile_math.h).
// The block scan runs in a test kernel on the GPU (tests/test_gpu_stages.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

#include "render/core/tile_math.h"
#include "render/core/shading.h"

namespace {

TEST(TileGrid, CountsRoundUp) {
    cr::TileGrid g = cr::make_tile_grid(100, 50, 16);
    EXPECT_EQ(g.width, 100);
    EXPECT_EQ(g.height, 50);
    EXPECT_EQ(g.tile, 16);
    EXPECT_EQ(g.tiles_x, 7);  // ceil(100 / 16)
    EXPECT_EQ(g.tiles_y, 4);  // ceil(50 / 16)
    EXPECT_EQ(g.tile_count(), 28);
    g = cr::make_tile_grid(64, 64, 16);
    EXPECT_EQ(g.tiles_x, 4);
    EXPECT_EQ(g.tiles_y, 4);
    g = cr::make_tile_grid(1, 1, 32);
    EXPECT_EQ(g.tile_count(), 1);
    g = cr::make_tile_grid(1024, 1024, 16);
    EXPECT_EQ(g.tile_count(), 4096);
    g = cr::make_tile_grid(16384, 3, 32);
    EXPECT_EQ(g.tiles_x, 512);
    EXPECT_EQ(g.tiles_y, 1);
}

void expect_range(const cr::TileRange& r, int tx0, int tx1, int ty0, int ty1) {
    EXPECT_EQ(r.tx0, tx0);
    EXPECT_EQ(r.tx1, tx1);
    EXPECT_EQ(r.ty0, ty0);
    EXPECT_EQ(r.ty1, ty1);
}

TEST(TilesOfBox, HalfOpenRanges) {
    expect_range(cr::tiles_of_box(cr::PixelBox{0, 16, 0, 16}, 16), 0, 1, 0, 1);  // exactly one tile
    expect_range(cr::tiles_of_box(cr::PixelBox{15, 17, 0, 1}, 16), 0, 2, 0, 1);  // straddles a border
    expect_range(cr::tiles_of_box(cr::PixelBox{32, 33, 47, 48}, 16), 2, 3, 2, 3);  // one pixel
    expect_range(cr::tiles_of_box(cr::PixelBox{0, 100, 0, 50}, 16), 0, 7, 0, 4);  // whole 100x50 image
    EXPECT_EQ(cr::tiles_of_box(cr::PixelBox{0, 100, 0, 50}, 16).count(), 28);
    EXPECT_EQ(cr::tiles_of_box(cr::PixelBox{15, 17, 15, 17}, 16).count(), 4);
    const cr::TileRange e = cr::tiles_of_box(cr::PixelBox{5, 5, 0, 10}, 16);
    EXPECT_TRUE(e.empty());
    EXPECT_EQ(e.count(), 0);
    EXPECT_EQ(cr::tiles_of_box(cr::PixelBox{0, 10, 7, 3}, 16).count(), 0);
}

TEST(TilesOfBox, FromACirclesPixelBox) {
    // Circle (.5, .5, .2) on 64x64: box [19, 45) -> tiles of 16: [1, 3).
    const cr::PixelBox b = cr::circle_pixel_box(.5f, .5f, .2f, 64, 64);
    EXPECT_EQ(b.min_x, 19);
    EXPECT_EQ(b.max_x, 45);
    expect_range(cr::tiles_of_box(b, 16), 1, 3, 1, 3);
}

bool touches(float x, float y, float r, int w, int h, int tile, int tx, int ty) {
    const cr::PixelBox b = cr::circle_pixel_box(x, y, r, w, h);
    const cr::TileGrid g = cr::make_tile_grid(w, h, tile);
    return cr::circle_touches_tile(x, y, r, b, g, tx, ty, 1.f / static_cast<float>(w),
                                   1.f / static_cast<float>(h));
}

TEST(TilesOfBox, BinRangeTestEqualsTheBinRectangleTest) {
    // bin.compact tests a circle against bin (bx, by) by its range of bins
    // (bin.pack's tiles_of_box, 16 bits a bound) instead of its pixel box
    // against the bin's pixel rectangle [bx*T, bx*T + T) x [by*T, by*T + T);
    // the two must keep the same circles, on every bin of odd and even
    // images, for empty, clamped and partial-bin boxes.
    std::mt19937 rng(30);
    std::uniform_real_distribution<float> pos(-0.3f, 1.3f), rad(0.f, 0.2f);
    long long hits = 0, tests = 0;
    for (auto [w, h, t] : {std::tuple{1024, 1024, 64}, std::tuple{257, 129, 64}, std::tuple{1000, 600, 32},
                           std::tuple{1, 1, 16}, std::tuple{16384, 3, 64}}) {
        const cr::TileGrid bins = cr::make_tile_grid(w, h, t);
        for (int i = 0; i < 300; ++i) {
            const float x = pos(rng), y = pos(rng), r = i % 10 == 0 ? 0.f : rad(rng);
            const cr::PixelBox box = cr::circle_pixel_box(x, y, r, w, h);
            const cr::TileRange range = cr::tiles_of_box(box, t);
            ASSERT_LE(range.tx1, 32767);
            ASSERT_LE(range.ty1, 32767);
            for (int by = 0; by < bins.tiles_y; by += bins.tiles_y > 64 ? 7 : 1)
                for (int bx = 0; bx < bins.tiles_x; bx += bins.tiles_x > 64 ? 7 : 1) {
                    const int x0 = bx * t, y0 = by * t;
                    const bool by_pixels = !box.empty() && box.min_x < x0 + t && box.max_x > x0 &&
                                           box.min_y < y0 + t && box.max_y > y0;
                    const bool by_range = range.contains(bx, by);
                    ASSERT_EQ(by_range, by_pixels) << w << "x" << h << " bins of " << t << ", circle (" << x << ", "
                                                   << y << ", " << r << "), bin (" << bx << ", " << by << ")";
                    hits += by_pixels;
                    ++tests;
                }
        }
    }
    EXPECT_GT(hits, 1000);  // the rectangles are hit, not only missed
    EXPECT_GT(tests - hits, 10000);
}

TEST(CircleTouchesTile, RejectsCirclesClearlyOutside) {
    // (.1, .1, .05) on 64x64 lies in tile (0, 0) of 16; far tiles are rejected.
    EXPECT_TRUE(touches(.1f, .1f, .05f, 64, 64, 16, 0, 0));
    EXPECT_FALSE(touches(.1f, .1f, .05f, 64, 64, 16, 3, 3));
    EXPECT_FALSE(touches(.1f, .1f, .05f, 64, 64, 16, 1, 0));
    // Circle (.5, .5, .2), tiles of 4: tile (4, 4) holds pixels 16..19, and the
    // box starts at 19, so the box overlaps it; but the nearest pixel center
    // (19.5/64 = .3047) is at d2 = 2 * .195^2 = .076 > .04: rejected.
    const cr::TileRange range = cr::tiles_of_box(cr::circle_pixel_box(.5f, .5f, .2f, 64, 64), 4);
    EXPECT_EQ(range.tx0, 4);
    EXPECT_EQ(range.ty0, 4);
    EXPECT_FALSE(touches(.5f, .5f, .2f, 64, 64, 4, 4, 4));
    // Its neighbor along the axis, tile (4, 7) (pixels x 16..19, y 28..31),
    // has pixel (19, 31) at dx = .195, dy = .008: d2 = .038 < .04: kept.
    EXPECT_TRUE(touches(.5f, .5f, .2f, 64, 64, 4, 4, 7));
    // The tile under the center is kept.
    EXPECT_TRUE(touches(.5f, .5f, .2f, 64, 64, 4, 8, 8));
    // A circle wholly off the picture touches nothing.
    for (int ty = 0; ty < 4; ++ty)
        for (int tx = 0; tx < 4; ++tx) EXPECT_FALSE(touches(1.5f, .5f, .2f, 64, 64, 16, tx, ty));
}

TEST(CircleTouchesTile, RadiusZeroOnAPixelCenter) {
    const float inv = 1.f / 32.f;
    const float x = cr::pixel_center(9, inv), y = cr::pixel_center(22, inv);
    EXPECT_TRUE(touches(x, y, 0.f, 32, 32, 8, 1, 2));
    EXPECT_FALSE(touches(x, y, 0.f, 32, 32, 8, 0, 2));
    EXPECT_FALSE(touches(x, y, 0.f, 32, 32, 8, 1, 3));
}

/// Brute force: for every pixel in a circle's box that cpuref's rule covers,
/// the tile holding it must pass circle_touches_tile.
TEST(CircleTouchesTile, NeverRejectsATileWithACoveredPixel) {
    std::mt19937 rng(4242u);
    std::uniform_real_distribution<float> pos(-.25f, 1.25f), rad(0.f, .35f), unit(0.f, 1.f);
    const int tiles[] = {1, 2, 4, 8, 16, 32};
    long long covered = 0, tile_checks = 0, rejected_tiles = 0;
    for (int iter = 0; iter < 6000; ++iter) {
        const int w = 1 + static_cast<int>(rng() % 48), h = 1 + static_cast<int>(rng() % 48);
        const int tile = tiles[rng() % 6];
        const float inv_w = 1.f / static_cast<float>(w), inv_h = 1.f / static_cast<float>(h);
        float x = pos(rng), y = pos(rng), r = rad(rng);
        switch (iter % 4) {
            case 1:  // center on a pixel center, radius the exact distance to another one
            case 2: {
                const int i0 = static_cast<int>(rng() % w), j0 = static_cast<int>(rng() % h);
                const int i1 = static_cast<int>(rng() % w), j1 = static_cast<int>(rng() % h);
                x = cr::pixel_center(i0, inv_w);
                y = cr::pixel_center(j0, inv_h);
                r = std::sqrt(cr::center_distance2(x, y, cr::pixel_center(i1, inv_w), cr::pixel_center(j1, inv_h)));
                if (iter % 4 == 2) r = std::nextafter(r, 0.f);
                break;
            }
            case 3: r = unit(rng) < .5f ? 0.f : r * .05f; break;  // tiny circles
            default: break;
        }
        const cr::PixelBox b = cr::circle_pixel_box(x, y, r, w, h);
        const cr::TileGrid g = cr::make_tile_grid(w, h, tile);
        std::vector<char> has_covered(static_cast<size_t>(g.tile_count()), 0);
        for (int j = b.min_y; j < b.max_y; ++j)
            for (int i = b.min_x; i < b.max_x; ++i) {
                const float d2 = cr::center_distance2(x, y, cr::pixel_center(i, inv_w), cr::pixel_center(j, inv_h));
                if (!cr::covers(d2, r)) continue;
                ++covered;
                has_covered[static_cast<size_t>((j / tile) * g.tiles_x + i / tile)] = 1;
            }
        const cr::TileRange range = cr::tiles_of_box(b, tile);
        for (int ty = 0; ty < g.tiles_y; ++ty)
            for (int tx = 0; tx < g.tiles_x; ++tx) {
                const bool in_range = tx >= range.tx0 && tx < range.tx1 && ty >= range.ty0 && ty < range.ty1;
                const bool need = has_covered[static_cast<size_t>(ty * g.tiles_x + tx)] != 0;
                if (need) {
                    ASSERT_TRUE(in_range) << "tiles_of_box misses tile " << tx << "," << ty;
                }
                if (!in_range) continue;
                ++tile_checks;
                const bool t = cr::circle_touches_tile(x, y, r, b, g, tx, ty, inv_w, inv_h);
                if (!t) ++rejected_tiles;
                ASSERT_TRUE(t || !need) << "circle (" << x << ", " << y << ", r " << r << ") on " << w << "x" << h
                                        << ", tile " << tile << ": tile " << tx << "," << ty
                                        << " rejected but holds a covered pixel";
            }
    }
    EXPECT_GT(covered, 100000);
    EXPECT_GT(tile_checks, 10000);
    EXPECT_GT(rejected_tiles, 1000);  // the exact test does reject corner tiles
}

}  // namespace

namespace {

/// Calls f(box) for boxes of a w x h image: every x0 (step dx0), x1 >= x0
/// (step dx1), y0 (step dy0), y1 >= y0 (step dy1), so corners, borders,
/// one-pixel and empty boxes.
template <typename F>
void for_each_box(int w, int h, int dx0, int dx1, int dy0, int dy1, F&& f) {
    for (int x0 = 0; x0 <= w; x0 += dx0)
        for (int x1 = x0; x1 <= w; x1 += dx1)
            for (int y0 = 0; y0 <= h; y0 += dy0)
                for (int y1 = y0; y1 <= h; y1 += dy1) f(cr::PixelBox{x0, x1, y0, y1});
}

/// The same tiles (both empty, or the same bounds).
void expect_same_range(const cr::TileRange& got, const cr::TileRange& want, const cr::PixelBox& b) {
    EXPECT_EQ(got.count(), want.count()) << b.min_x << " " << b.max_x << " " << b.min_y << " " << b.max_y;
    if (want.empty()) return;
    EXPECT_EQ(got.tx0, want.tx0);
    EXPECT_EQ(got.tx1, want.tx1);
    EXPECT_EQ(got.ty0, want.ty0);
    EXPECT_EQ(got.ty1, want.ty1);
}

}  // namespace

TEST(TileMath, PowerOfTwoTileRangeEqualsTheDivision) {
    // The kernels' shift form against tiles_of_box for every box of a
    // 40x24 image (corners, borders, one pixel, empty) on 8- and 16-pixel tiles.
    for (int shift : {3, 4})
        for_each_box(40, 24, 3, 5, 7, 4, [&](const cr::PixelBox& b) {
            expect_same_range(cr::tiles_of_box_pow2(b, shift), cr::tiles_of_box(b, 1 << shift), b);
        });
    expect_range(cr::tiles_of_box_pow2(cr::PixelBox{15, 17, 0, 1}, 4), 0, 2, 0, 1);  // straddles a border
}

TEST(TileMath, CoarsenedRangeEqualsTheCoarserTiles) {
    // The counting sort's bins from a circle's fine range: coarsen(fine
    // range on 2^f tiles, s) against the range on 2^(f+s) tiles, for every
    // box of a 200x72 image (corners, borders, one pixel, empty), fine tiles
    // of 8 and 16 pixels, bins of 2x2 and 4x4 of them.
    for (int f : {3, 4})
        for (int s : {1, 2})
            for_each_box(200, 72, 13, 17, 11, 9, [&](const cr::PixelBox& b) {
                expect_same_range(cr::coarsen(cr::tiles_of_box_pow2(b, f), s), cr::tiles_of_box_pow2(b, f + s), b);
            });
    expect_range(cr::coarsen(cr::TileRange{3, 5, 0, 1}, 2), 0, 2, 0, 1);  // fine tiles 3 and 4: bins 0 and 1
    expect_range(cr::coarsen(cr::TileRange{4, 8, 7, 9}, 2), 1, 2, 1, 3);
    EXPECT_TRUE(cr::coarsen(cr::TileRange{0, 0, 0, 0}, 2).empty());
}
