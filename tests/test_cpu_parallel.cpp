// The multi-core CPU renderer ("cpu") must draw images bit-identical to the
// sequential reference ("cpuref") on every scene, size and frame.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "render/cpu/cpu_parallel.h"
#include "render/cpu/cpu_stages.h"
#include "render/frame_loop.h"
#include "scenes/scene.h"

namespace {

/// Empty string when a and b are bit-identical, else where they first differ.
std::string first_difference(const cr::Image& a, const cr::Image& b) {
    if (a.width != b.width || a.height != b.height) return "image sizes differ";
    if (std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0) return "";
    for (int j = 0; j < a.height; ++j)
        for (int i = 0; i < a.width; ++i) {
            const float* p = a.pixel(i, j);
            const float* q = b.pixel(i, j);
            if (std::memcmp(p, q, 4 * sizeof(float)) != 0) {
                std::ostringstream os;
                os.precision(9);
                os << "pixel (" << i << ", " << j << "): cpuref (" << p[0] << ", " << p[1] << ", " << p[2]
                   << ", " << p[3] << ") vs cpu (" << q[0] << ", " << q[1] << ", " << q[2] << ", " << q[3]
                   << ")";
                return os.str();
            }
        }
    return "differs";
}

/// Renders `frames` frames of `scene` at w x h with cpuref and cpu (binning
/// `batch` circles a pass when > 0); expects equal images after every frame.
void expect_same_frames(const cr::Scene& scene, int w, int h, int frames, int64_t batch = 0,
                        int64_t max_pairs = 0) {
    cr::CpuRefRenderer ref;
    cr::CpuParallelRenderer par;
    if (batch > 0) par.set_batch(batch);
    if (max_pairs > 0) par.set_max_pairs(max_pairs);
    ref.setup(scene, w, h);
    par.setup(scene, w, h);
    for (int f = 0; f < frames; ++f) {
        for (cr::Renderer* r : {static_cast<cr::Renderer*>(&ref), static_cast<cr::Renderer*>(&par)}) {
            r->clear();
            r->advance();
            r->render();
        }
        const std::string d = first_difference(ref.image(), par.image());
        ASSERT_EQ(d, "") << "scene " << scene.name << " seed " << scene.seed << " at " << w << "x" << h
                         << ", frame " << f;
    }
}

/// True when some pixel differs from the background (a test that draws nothing
/// would prove nothing).
bool draws_something(const cr::Scene& scene, int w, int h, int frames) {
    cr::CpuRefRenderer ref;
    ref.setup(scene, w, h);
    for (int f = 0; f < frames; ++f) {
        ref.clear();
        ref.advance();
        ref.render();
    }
    const cr::Image& img = ref.image();
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i)
            if (img.pixel(i, j)[3] != 1.f) return true;
    return false;
}

bool is_huge(const std::string& name) {
    return name == "rand1M" || name == "micro2M" || name == "rand10M";
}

/// Snow flakes start above the picture: the snow scene of `seed` after
/// kSnowSteps animation steps, when many flakes are in view (built once).
constexpr int kSnowSteps = 60;
const cr::Scene& snow_in_view(uint32_t seed) {
    static std::map<uint32_t, cr::Scene> cache;
    auto it = cache.find(seed);
    if (it != cache.end()) return it->second;
    cr::Scene s = cr::make_scene("snow", seed);
    for (int f = 0; f < kSnowSteps; ++f)
        cr::advance_circles(s, 0, static_cast<int64_t>(s.count()));
    return cache.emplace(seed, std::move(s)).first->second;
}

/// Built-in scene `name`; snow as it is after kSnowSteps steps.
cr::Scene test_scene(const std::string& name, uint32_t seed) {
    return name == "snow" ? snow_in_view(seed) : cr::make_scene(name, seed);
}

/// A flat, still scene of n circles (all zero; callers fill them in).
cr::Scene custom_scene(const std::string& name, size_t n) {
    cr::Scene s;
    s.name = name;
    s.resize(n);
    return s;
}

void set_circle(cr::Scene& s, size_t k, float x, float y, float r, float cr_, float cg, float cb,
                float z = .5f) {
    s.x[k] = x;
    s.y[k] = y;
    s.radius[k] = r;
    s.r[k] = cr_;
    s.g[k] = cg;
    s.b[k] = cb;
    s.z[k] = z;
}

}  // namespace

TEST(CpuParallel, NameAndStages) {
    cr::CpuParallelRenderer par;
    EXPECT_EQ(par.name(), "cpu");
    par.setup(cr::make_scene("rgb"), 64, 64);
    par.clear();
    par.advance();
    par.render();
    bool bin = false, shade = false;
    for (const auto& s : par.timings()) {
        bin |= s.name == "bin" && s.course == "Render";
        shade |= s.name == "shade" && s.course == "Render";
    }
    EXPECT_TRUE(bin);
    EXPECT_TRUE(shade);
    EXPECT_GT(par.work().circle_tile_pairs, 0);
    EXPECT_GT(par.work().coverage_tests, 0);
    const cr::TileLoads t = par.tile_loads();
    EXPECT_EQ(t.tile_size, cr::CpuParallelRenderer::kTile);
    EXPECT_EQ(static_cast<int>(t.loads.size()), t.tiles_x * t.tiles_y);
}

TEST(CpuParallel, BuiltInScenesAt64) {
    for (const auto& name : cr::scene_names()) {
        if (is_huge(name)) continue;
        for (uint32_t seed : {0u, 7u}) {
            SCOPED_TRACE(name);
            expect_same_frames(test_scene(name, seed), 64, 64, 1);
        }
    }
}

TEST(CpuParallel, BuiltInScenesAtOddSizes) {
    const int sizes[][2] = {{1, 1}, {257, 129}, {100, 37}};
    for (const auto& name : cr::scene_names()) {
        if (is_huge(name)) continue;
        for (uint32_t seed : {0u, 7u}) {
            const cr::Scene scene = test_scene(name, seed);
            for (const auto& wh : sizes) expect_same_frames(scene, wh[0], wh[1], 1);
        }
    }
}

TEST(CpuParallel, SnowIsVisibleAfterItsFrames) {
    // Flakes are in view after the steps of snow_in_view() (and not before).
    EXPECT_FALSE(draws_something(cr::make_scene("snow"), 64, 64, 1));
    EXPECT_TRUE(draws_something(snow_in_view(0), 64, 64, 1));
}

TEST(CpuParallel, AnimatedScenesFrameByFrame) {
    for (const char* name : {"bouncingballs", "hypnosis", "fireworks", "snow"}) {
        for (uint32_t seed : {0u, 7u}) {
            SCOPED_TRACE(name);
            expect_same_frames(test_scene(name, seed), 64, 48, 30);
        }
    }
}

TEST(FrameLoop, LastFrameOnlyEqualsEveryFrame) {
    // render_last_frame (the fast reference path of --check) skips the images
    // of the frames before the last; the last image must be the same bits.
    for (int frames : {1, 2, 30, 300}) {
        for (const cr::Scene& scene : {test_scene("bouncingballs", 0), test_scene("hypnosis", 3),
                                       test_scene("fireworks", 0), snow_in_view(0)}) {
            SCOPED_TRACE(scene.name + " frames " + std::to_string(frames));
            cr::CpuRefRenderer every, last;
            const cr::Image& a = cr::render_frames(every, scene, 64, 48, frames);
            const cr::Image& b = cr::render_last_frame(last, scene, 64, 48, frames);
            EXPECT_EQ(first_difference(a, b), "");
            EXPECT_EQ(every.frame(), frames);
            EXPECT_EQ(last.frame(), frames);
        }
    }
    // frames 0: the start circles, never advanced (bouncingballs moves in its
    // first advance, so the frame-1 image must differ).
    const cr::Scene balls = test_scene("bouncingballs", 0);
    cr::CpuRefRenderer start, one;
    start.setup(balls, 64, 48);
    start.clear();
    start.render();
    cr::CpuRefRenderer zero;
    EXPECT_EQ(first_difference(cr::render_last_frame(zero, balls, 64, 48, 0), start.image()), "");
    EXPECT_EQ(zero.frame(), 0);
    EXPECT_NE(first_difference(cr::render_last_frame(one, balls, 64, 48, 1), start.image()), "");
}

TEST(CpuParallel, ThousandsOfCirclesOnOneTile) {
    // 5000 circles whose boxes all fall inside one 32x32 tile of a 256x256
    // picture, plus a few that span it; blending order decides every pixel.
    const size_t n = 5000;
    cr::Scene s = custom_scene("onetile", n);
    for (size_t k = 0; k < n; ++k) {
        const float u = static_cast<float>((k * 37) % 101) / 101.f;
        const float v = static_cast<float>((k * 53) % 97) / 97.f;
        const float x = (64.f + 4.f + 24.f * u) / 256.f, y = (96.f + 4.f + 24.f * v) / 256.f;
        const float r = (k % 10 == 0) ? .2f : (1.f + static_cast<float>(k % 4)) / 256.f;
        set_circle(s, k, x, y, r, u, v, static_cast<float>(k % 7) / 7.f);
    }
    expect_same_frames(s, 256, 256, 1);
    cr::CpuParallelRenderer par;
    par.setup(s, 256, 256);
    par.clear();
    par.render();
    const cr::TileLoads t = par.tile_loads();
    EXPECT_GE(t.loads[3 * t.tiles_x + 2], 4500);  // tile (2, 3) holds them all
}

TEST(CpuParallel, ZeroCircles) {
    const cr::Scene s = custom_scene("empty", 0);
    expect_same_frames(s, 64, 64, 2);
    expect_same_frames(s, 1, 1, 1);
    cr::Scene snow = s;
    snow.shade = cr::ShadeMode::Snow;
    expect_same_frames(snow, 100, 37, 1);
}

TEST(CpuParallel, EdgeCircles) {
    const int w = 64, h = 48;
    const float inv_w = 1.f / w, inv_h = 1.f / h;
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    cr::Scene s = custom_scene("edges", 16);
    size_t k = 0;
    set_circle(s, k++, -.05f, .5f, .1f, 1, 0, 0);       // partly off the left edge
    set_circle(s, k++, 1.03f, .9f, .1f, 0, 1, 0);       // partly off the right/top
    set_circle(s, k++, .5f, -.02f, .15f, 0, 0, 1);      // partly below
    set_circle(s, k++, 1e6f, .5f, .3f, 1, 1, 0);        // far away
    set_circle(s, k++, .5f, -1e6f, .3f, 1, 1, 0);       // far away
    set_circle(s, k++, -1e6f, 1e6f, 2e6f, .2f, .3f, .4f);  // huge, far away center
    set_circle(s, k++, cr::pixel_center(10, inv_w), cr::pixel_center(7, inv_h), 0.f, 0, 1, 1);  // r 0 on a center
    set_circle(s, k++, cr::pixel_center(63, inv_w), cr::pixel_center(47, inv_h), 0.f, 1, 0, 1);  // r 0, corner
    set_circle(s, k++, .5f, .5f, 3.f, .3f, .6f, .9f);    // larger than the picture
    set_circle(s, k++, .2f, .8f, 1e6f, .9f, .1f, .1f);   // far larger than the picture
    set_circle(s, k++, .5f, .5f, .25f, 1.5f, -.5f, 2.f); // colors outside [0,1]
    set_circle(s, k++, inf, .5f, .1f, 1, 1, 1);          // non-finite position
    set_circle(s, k++, nan, nan, .1f, 1, 1, 1);
    set_circle(s, k++, .5f, .5f, -.1f, 1, 0, 0);         // negative radius: covers nothing
    set_circle(s, k++, .999f, .001f, .003f, 0, 1, 0);    // tiny, in a corner
    set_circle(s, k++, .75f, .25f, .0001f, 1, 0, 0);     // smaller than a pixel
    ASSERT_EQ(k, s.count());
    for (const auto& wh : {std::pair<int, int>{w, h}, {1, 1}, {257, 129}, {100, 37}}) {
        expect_same_frames(s, wh.first, wh.second, 1);
    }
    // The radius-0 circle on pixel (10, 7) covers exactly that pixel.
    cr::CpuParallelRenderer par;
    cr::Scene one = custom_scene("dot", 1);
    set_circle(one, 0, cr::pixel_center(10, inv_w), cr::pixel_center(7, inv_h), 0.f, 0, 0, 0);
    par.setup(one, w, h);
    par.clear();
    par.render();
    EXPECT_EQ(par.image().pixel(10, 7)[0], .5f);
    EXPECT_EQ(par.image().pixel(11, 7)[0], 1.f);
    EXPECT_EQ(par.image().pixel(10, 8)[0], 1.f);
}

TEST(CpuParallel, SnowShadingOfCustomCircles) {
    cr::Scene s = custom_scene("snowedges", 6);
    s.shade = cr::ShadeMode::Snow;
    set_circle(s, 0, -.05f, .5f, .1f, 1, 1, 1, .1f);
    set_circle(s, 1, .5f, .5f, 3.f, 1, 1, 1, .9f);
    set_circle(s, 2, .4f, .6f, .2f, 1, 1, 1, .01f);
    set_circle(s, 3, 1e6f, .5f, .3f, 1, 1, 1, .5f);
    set_circle(s, 4, .7f, .3f, .05f, 1, 1, 1, 0.f);
    set_circle(s, 5, .71f, .31f, .05f, 1, 1, 1, 1.f);
    expect_same_frames(s, 64, 64, 1);
    expect_same_frames(s, 257, 129, 1);
}

TEST(CpuParallel, SeveralBatchesPerFrame) {
    // Frames of more than one batch (rand1M and larger at the default size)
    // keep input order across batches.
    for (int64_t batch : {1, 333, 4096}) {
        expect_same_frames(cr::make_scene("rand10k", 7), 100, 37, 1, batch);
        expect_same_frames(cr::make_scene("fireworks", 7), 64, 48, 3, batch);
    }
    expect_same_frames(snow_in_view(7), 64, 48, 2, 5000);
}

TEST(CpuParallel, PairBudgetSplitsBatches) {
    // A small pair budget cuts frames into many batches by circle-tile pairs
    // (what bounds memory for huge circles on huge images); order holds, and a
    // single circle over budget still gets a batch of its own.
    for (int64_t pairs : {1, 50, 2000}) {
        expect_same_frames(cr::make_scene("biglittle", 3), 200, 120, 1, 0, pairs);
        expect_same_frames(cr::make_scene("rand10k", 3), 100, 37, 1, 0, pairs);
    }
}

TEST(CpuParallel, OtherThreadCounts) {
    // Order across binning chunks must hold for any thread count.
    const int saved = omp_get_max_threads();
    for (int threads : {1, 3, 8}) {
        omp_set_num_threads(threads);
        for (const char* name : {"rand10k", "pattern", "biglittle"})
            expect_same_frames(cr::make_scene(name, 7), 257, 129, 1);
    }
    omp_set_num_threads(saved);
}
