// Counts, on the CPU, how many of a scene's (tile, hit) pairs cover every
// pixel center of their 16x16 tile, and checks the exact test a shading
// kernel could use for it (a lever written down for rand10k and biglittle
// in docs/PERFORMANCE.md, "What the misses still need after the ninth
// session"). No GPU needed.
//
// The test. The coverage tables hold dx2[c] = RN(RN(x - cx_c)^2) for the
// tile's 16 column centers cx_c and dy2[r] likewise for its rows, and a
// pixel is covered when RN(dx2[c] + dy2[r]) <= r2. Each rounding is
// monotone, so RN(x - cx_c) falls as cx_c rises and dx2 is largest at the
// first or the last column (the one farther from x); the same for rows;
// and RN(a + b) is monotone in a and in b. So every pixel center of the
// tile is covered exactly when
//     RN(max(dx2[0], dx2[15]) + max(dy2[0], dy2[15])) <= r2,
// one add and one compare a hit instead of one a pixel, after which the
// hit's blends need no test. The probe checks that claim against the
// pixel-by-pixel rule on every hit (both directions: "full" must mean
// every one of the 256 centers passes, and a hit whose 256 centers all
// pass must be found full), and prints the share of full hits, which is
// what the lever's saving scales with.
//
// A hit is a circle that passes the shading's exact circle-tile test
// (circle_touches_tile) for the tile, as in the kernels. Tiles at the
// image's edge count all 16 x 16 centers, in or out of the image (the
// tables do too); extreme circles (is_extreme_circle) are left out, as
// their table entries outside their box are NaN and never "full".
//
// Build and run (from the project root, after scripts/setup.sh; the
// library folder is the build's):
//   g++ -O2 -fopenmp -ffp-contract=off -std=c++17 -I. scripts/probes/full_cover_count.cpp
//       build/libcr_scenes.a build/libcr_core.a -o /tmp/full_cover_count
//   /tmp/full_cover_count rand10k biglittle littlebig rand100k pattern rgb
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "render/core/shading.h"
#include "render/core/tile_math.h"
#include "scenes/scene.h"

namespace {

constexpr int kSize = 1024, kTile = 16;

struct Tally {
    long long hits = 0, full = 0, wrong_full = 0, missed_full = 0;
};

/// The tile's table row: out[k] = RN(RN(v - centers[k])^2), as the kernels' coverage tables.
void squares(float v, int first, float inv, float (&out)[kTile]) {
    for (int k = 0; k < kTile; ++k) {
        const float d = cr::sub_rn(v, cr::pixel_center(first + k, inv));
        out[k] = cr::mul_rn(d, d);
    }
}

/// One (circle, tile) hit: the full-cover test and the pixel-by-pixel truth.
void count_hit(float x, float y, float r2, int tx, int ty, Tally& t) {
    const float inv = 1.f / static_cast<float>(kSize);
    float dx2[kTile], dy2[kTile];
    squares(x, tx * kTile, inv, dx2);
    squares(y, ty * kTile, inv, dy2);
    const bool full = cr::add_rn(std::max(dx2[0], dx2[kTile - 1]), std::max(dy2[0], dy2[kTile - 1])) <= r2;
    bool every = true;
    for (int r = 0; r < kTile && every; ++r)
        for (int c = 0; c < kTile && every; ++c) every = cr::add_rn(dx2[c], dy2[r]) <= r2;
    ++t.hits;
    t.full += full;
    t.wrong_full += full && !every;
    t.missed_full += every && !full;
}

Tally count_scene(const cr::Scene& s) {
    const cr::TileGrid g = cr::make_tile_grid(kSize, kSize, kTile);
    const float inv = 1.f / static_cast<float>(kSize);
    Tally total;
#pragma omp parallel
    {
        Tally t;
#pragma omp for schedule(dynamic, 64)
        for (int64_t i = 0; i < static_cast<int64_t>(s.count()); ++i) {
            const float x = s.x[i], y = s.y[i], rad = s.radius[i];
            if (cr::is_extreme_circle(x, y, rad)) continue;
            const cr::PixelBox box = cr::circle_pixel_box(x, y, rad, kSize, kSize);
            const cr::TileRange tr = cr::tiles_of_box(box, kTile);
            const float r2 = cr::mul_rn(rad, rad);
            for (int ty = tr.ty0; ty < tr.ty1; ++ty)
                for (int tx = tr.tx0; tx < tr.tx1; ++tx)
                    if (cr::circle_touches_tile(x, y, rad, box, g, tx, ty, inv, inv)) count_hit(x, y, r2, tx, ty, t);
        }
#pragma omp critical
        {
            total.hits += t.hits;
            total.full += t.full;
            total.wrong_full += t.wrong_full;
            total.missed_full += t.missed_full;
        }
    }
    return total;
}

}  // namespace

int main(int argc, char** argv) {
    int bad = 0;
    for (int a = 1; a < argc; ++a) {
        const std::string name = argv[a];
        const Tally t = count_scene(cr::make_scene(name, 0));
        std::printf("%-10s hits %12lld  full %12lld (%5.1f%%)  full but a pixel uncovered %lld  all covered but not full %lld\n",
                    name.c_str(), t.hits, t.full, t.hits ? 100.0 * t.full / t.hits : 0.0, t.wrong_full, t.missed_full);
        bad += t.wrong_full != 0 || t.missed_full != 0;
    }
    return bad ? 1 : 0;
}
