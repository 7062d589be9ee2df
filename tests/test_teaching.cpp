// The teaching overlays' numbers on hand-checked scenes.
#include <gtest/gtest.h>

#include "render/cpu/cpu_stages.h"
#include "render/frame_loop.h"
#include "render/teaching.h"
#include "scenes/scene.h"

namespace cr {
namespace {

Scene one_circle(float x, float y, float r) {
    Scene s;
    s.resize(1);
    s.x[0] = x;
    s.y[0] = y;
    s.radius[0] = r;
    return s;
}

TEST(Teaching, ListedAndHitTiles) {
    // A circle of radius 20 px centred at (32, 32) of a 64x64 image: its
    // bounding box [12, 53) overlaps all 4 x 4 tiles (listed). The 4 corner
    // tiles' nearest pixel centers lie 16.5 px away in x and in y (23.3 px
    // from the center): beyond the radius, so the exact test drops them.
    const Scene s = one_circle(32.f / 64, 32.f / 64, 20.f / 64);
    const TileCounts c = tile_counts(s, 64, 64, 16);
    int listed = 0, hit = 0;
    for (int v : c.listed.loads) listed += v;
    for (int v : c.hit) hit += v;
    EXPECT_EQ(listed, 16);  // box [12, 53) x [12, 53): tiles 0..3 in each direction
    EXPECT_EQ(hit, 12);     // the 4 corner tiles (0,0), (3,0), (0,3), (3,3) hold no covered pixel center
    EXPECT_EQ(c.hit[0], 0);
    EXPECT_EQ(c.hit[1 * 4 + 1], 1);
}

TEST(Teaching, WarpActivityOfAFullAndAnEmptyTile) {
    // A huge circle covers every pixel: all 32 lanes of every warp are active.
    const WarpActivity full = warp_activity(one_circle(.5f, .5f, 2.f), 32, 32);
    ASSERT_EQ(full.warps_x, 2);
    ASSERT_EQ(full.warps_y, 4);
    for (float v : full.mean_active_lanes) EXPECT_EQ(v, 32.f);
    // A 1-pixel circle at pixel (0, 0): in tile 0's warp 0 one lane is active.
    const WarpActivity dot = warp_activity(one_circle(.5f / 32, .5f / 32, .1f / 32), 32, 32);
    EXPECT_EQ(dot.mean_active_lanes[0], 1.f);
    EXPECT_EQ(dot.mean_active_lanes[1], -1.f);  // tile 1 blends no circle
}

TEST(Teaching, OrderMattersWhereCirclesOverlap) {
    const auto [a, b] = order_demo_scenes();
    CpuRefRenderer r1, r2;
    const Image ia = render_last_frame(r1, a, 64, 64, 1);
    const Image ib = render_last_frame(r2, b, 64, 64, 1);
    const float* pa = ia.pixel(32, 32);  // in both circles
    const float* pb = ib.pixel(32, 32);
    // white, red over it: (1, .5, .5); blue over that: (.5, .25, .75).
    // white, blue over it: (.5, .5, 1); red over that: (.75, .25, .5).
    EXPECT_EQ(pa[0], .5f);
    EXPECT_EQ(pa[1], .25f);
    EXPECT_EQ(pa[2], .75f);
    EXPECT_EQ(pb[0], .75f);
    EXPECT_EQ(pb[1], .25f);
    EXPECT_EQ(pb[2], .5f);
    EXPECT_EQ(ia.pixel(5, 32)[0], ib.pixel(5, 32)[0]);  // outside the overlap: the same
}

}  // namespace
}  // namespace cr
