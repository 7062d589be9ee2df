// GPU kernels against cpuref (label `gpu`; every test skips, reported as
// skipped, where no CUDA device exists). Rule: every R, G, B within 1e-4,
// alpha not compared, at most 5 pixels beyond (compare_images' default).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/cuda_renderer.h"
#include "render/renderer_factory.h"
#include "render/compare.h"
#include "render/frame_loop.h"
#include "render/cpu/cpu_stages.h"
#include "render/reference_set.h"

#include "tests/gpu_skip.h"

namespace cr {
namespace {

const char* const kKernels[] = {"naive", "tiled", "persistent"};

/// Renders frames 0..frames-1 and returns (a copy of) the last image.
Image render_last(Renderer& r, const Scene& s, int w, int h, int frames) {
    return render_frames(r, s, w, h, frames);
}

/// cpuref images, cached per (scene, seed, w, h, frames).
const Image& reference(const std::string& scene, uint32_t seed, int w, int h, int frames) {
    static std::map<std::tuple<std::string, uint32_t, int, int, int>, Image> cache;
    auto key = std::make_tuple(scene, seed, w, h, frames);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    CpuRefRenderer ref;
    return cache[key] = render_last(ref, make_scene(scene, seed), w, h, frames);
}

void expect_kernel_matches(const std::string& kernel, const std::string& scene, uint32_t seed, int w, int h,
                           int frames = 1) {
    auto r = make_renderer(kernel);
    const Image img = render_last(*r, make_scene(scene, seed), w, h, frames);
    const CompareStats st = compare_images(img, reference(scene, seed, w, h, frames));
    EXPECT_TRUE(st.pass) << kernel << " on " << scene << " seed " << seed << " " << w << "x" << h
                         << " frames " << frames << ": " << describe(st);
}

bool naive_allowed(const std::string& scene) { return scene_circle_count(scene) <= 100000; }

const std::vector<std::string> kCourseScenes = {"rgb", "rgby", "rand10k", "rand100k", "rand1M",
                                                "biglittle", "littlebig", "pattern", "micro2M",
                                                "bouncingballs", "fireworks", "hypnosis", "snow",
                                                "snowsingle"};

class EveryScene256 : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryScene256, AllKernelsMatchCpuref) {
    REQUIRE_GPU();
    for (const char* k : kKernels) expect_kernel_matches(k, GetParam(), 0, 256, 256, 1);
}
INSTANTIATE_TEST_SUITE_P(Gpu, EveryScene256, ::testing::ValuesIn(kCourseScenes));

class Scored1024 : public ::testing::TestWithParam<std::string> {};

TEST_P(Scored1024, AllKernelsMatchCpuref) {
    REQUIRE_GPU();
    for (const char* k : kKernels) {
        if (std::string(k) == "naive" && !naive_allowed(GetParam())) continue;
        expect_kernel_matches(k, GetParam(), 0, 1024, 1024, 1);
    }
}
INSTANTIATE_TEST_SUITE_P(Gpu, Scored1024,
                         ::testing::Values("rgb", "rand10k", "rand100k", "pattern", "snowsingle",
                                           "biglittle", "rand1M", "micro2M"));

TEST(GpuSeeds, TenSeedsOnRandomScenes) {
    REQUIRE_GPU();
    for (uint32_t seed = 1; seed <= 10; ++seed)
        for (const char* scene : {"rand10k", "biglittle", "pattern"})
            for (const char* k : kKernels) expect_kernel_matches(k, scene, seed * 7919u, 256, 256, 1);
}

TEST(GpuSizes, OddSizes) {
    REQUIRE_GPU();
    const std::pair<int, int> sizes[] = {{1, 1}, {257, 129}, {1000, 600}, {1, 77}, {77, 1}, {257, 131}};
    for (auto [w, h] : sizes)
        for (const char* scene : {"rgb", "rand10k", "pattern", "snowsingle", "rand100k"})
            for (const char* k : kKernels) expect_kernel_matches(k, scene, 0, w, h, 1);
}

TEST(GpuSizes, Size2048) {
    REQUIRE_GPU();
    for (const char* scene : {"rgby", "rand10k", "rand100k", "micro2M"})
        for (const char* k : kKernels) {
            if (std::string(k) == "naive" && !naive_allowed(scene)) continue;
            expect_kernel_matches(k, scene, 0, 2048, 2048, 1);
        }
}

class Animated : public ::testing::TestWithParam<std::string> {};

/// Frame by frame over 30 frames (snow: 200, every frame, so flakes are on
/// screen for most of them).
TEST_P(Animated, FrameByFrame) {
    REQUIRE_GPU();
    const std::string scene = GetParam();
    const int frames = scene == "snow" ? 200 : 30;
    const int size = scene == "snow" ? 128 : 256;
    const Scene s = make_scene(scene, 0);
    CpuRefRenderer ref;
    ref.setup(s, size, size);
    std::vector<std::unique_ptr<Renderer>> rs;
    for (const char* k : kKernels) {
        rs.push_back(make_renderer(k));
        rs.back()->setup(s, size, size);
    }
    for (int f = 0; f < frames; ++f) {
        ref.clear();
        ref.advance();
        ref.render();
        for (auto& r : rs) {
            r->clear();
            r->advance();
            r->render();
            const CompareStats st = compare_images(r->image(), ref.image());
            ASSERT_TRUE(st.pass) << r->name() << " " << scene << " frame " << f << ": " << describe(st);
        }
    }
}
INSTANTIATE_TEST_SUITE_P(Gpu, Animated, ::testing::Values("bouncingballs", "fireworks", "hypnosis", "snow"));

TEST(GpuReferences, StoredImages256) {
    REQUIRE_GPU();
    for (const auto& spec : reference_set(true)) {
        const std::string path = default_reference_dir() + "/" + spec.file_name();
        const Image stored = read_image(path);
        const std::vector<uint8_t> want = to_rgb8_top_down(stored);
        for (const char* k : kKernels) {
            if (std::string(k) == "naive" && !naive_allowed(spec.scene)) continue;
            auto r = make_renderer(k);
            const Image img = render_last(*r, make_scene(spec.scene, spec.seed), spec.width, spec.height, spec.frame + 1);
            const std::vector<uint8_t> got = to_rgb8_top_down(img);
            long long beyond_one = 0;
            for (size_t p = 0; p < got.size() / 3; ++p) {
                int worst = 0;
                for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(int(got[3 * p + c]) - int(want[3 * p + c])));
                beyond_one += worst > 1;
            }
            EXPECT_LE(beyond_one, kAllowedMismatches) << k << " vs " << path;
        }
    }
}

// ---- hostile scenes (issue 6) -------------------------------------------------

Scene custom(std::initializer_list<std::array<float, 7>> circles) {
    Scene s;
    s.name = "custom";
    for (const auto& c : circles) {
        s.x.push_back(c[0]); s.y.push_back(c[1]); s.z.push_back(0.5f);
        s.vx.push_back(0); s.vy.push_back(0); s.vz.push_back(0);
        s.radius.push_back(c[2]);
        s.r.push_back(c[3]); s.g.push_back(c[4]); s.b.push_back(c[5]);
    }
    return s;
}

void expect_scene_matches(const Scene& s, int w, int h, const std::string& what) {
    CpuRefRenderer ref;
    const Image want = render_last(ref, s, w, h, 1);
    for (const char* k : kKernels) {
        auto r = make_renderer(k);
        const Image got = render_last(*r, s, w, h, 1);
        const CompareStats st = compare_images(got, want);
        EXPECT_TRUE(st.pass) << k << " on " << what << " " << w << "x" << h << ": " << describe(st);
    }
}

TEST(GpuHostile, EdgeCases) {
    REQUIRE_GPU();
    expect_scene_matches(custom({}), 64, 64, "zero circles");
    expect_scene_matches(custom({{.5f, .5f, .2f, 1, 0, 0, 0}}), 64, 64, "one circle");
    expect_scene_matches(custom({{-.1f, .5f, .3f, 1, 0, 0, 0}, {1.1f, .2f, .3f, 0, 1, 0, 0}, {.5f, -.2f, .3f, 0, 0, 1, 0}}), 100, 37, "off the picture");
    expect_scene_matches(custom({{1e6f, 1e6f, 1.f, 1, 0, 0, 0}, {-1e6f, .5f, 1e6f + .3f, 0, 1, 0, 0}, {.5f, .5f, .1f, 0, 0, 1, 0}}), 64, 64, "far away");
    // radius 0 exactly on the center of pixel (2, 3) of an 8x8 image: (2.5/8, 3.5/8)
    expect_scene_matches(custom({{2.5f / 8, 3.5f / 8, 0.f, 1, 0, 0, 0}}), 8, 8, "radius 0 on a pixel center");
    expect_scene_matches(custom({{.5f, .5f, 3.f, .2f, .3f, .4f, 0}, {.3f, .3f, 1.5f, .9f, .1f, .1f, 0}}), 129, 67, "radius larger than the picture");
    // rims exactly on tile edges: center on a tile corner of a 64x64 image
    expect_scene_matches(custom({{16.f / 64, 16.f / 64, 8.f / 64, 1, 1, 0, 0}, {.5f, .5f, .25f, 0, 1, 1, 0}}), 64, 64, "tile edges");
}

TEST(GpuHostile, ThousandsOnOneTileAndRepeats) {
    REQUIRE_GPU();
    Scene s;
    s.name = "pile";
    for (int i = 0; i < 5000; ++i) {  // 5000 circles inside one 16x16 tile, then repeats of one circle
        const float t = i / 5000.f;
        s.x.push_back(.05f + .01f * t); s.y.push_back(.05f + .005f * t); s.z.push_back(t);
        s.vx.push_back(0); s.vy.push_back(0); s.vz.push_back(0);
        s.radius.push_back(.002f + .01f * t);
        s.r.push_back(t); s.g.push_back(1 - t); s.b.push_back(.5f);
    }
    for (int i = 0; i < 3000; ++i) {
        s.x.push_back(.6f); s.y.push_back(.6f); s.z.push_back(0); s.vx.push_back(0); s.vy.push_back(0); s.vz.push_back(0);
        s.radius.push_back(.3f); s.r.push_back(i % 2); s.g.push_back(.5f); s.b.push_back(0);
    }
    expect_scene_matches(s, 256, 256, "5000 on one tile + 3000 repeats");
    expect_scene_matches(s, 1000, 600, "5000 on one tile + 3000 repeats");
}

TEST(GpuHostile, BatchedBinningMatches) {
    REQUIRE_GPU();
    // A tiny pair budget forces many binning batches; results must not change.
    CudaOptions o;
    o.max_pairs_per_batch = 5000;
    o.direct_limit = 0;
    for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent}) {
        auto r = make_cuda_renderer(k, o);
        const Image img = render_last(*r, make_scene("rand10k", 3), 300, 200, 1);
        const CompareStats st = compare_images(img, reference("rand10k", 3, 300, 200, 1));
        EXPECT_TRUE(st.pass) << r->name() << " batched: " << describe(st);
    }
}

TEST(GpuTeaching, VariantsDrawTheSameImages) {
    REQUIRE_GPU();
    // The lessons' variants (docs/KERNELS.md) must change speed only, never pixels.
    for (const char* opt : {"fill=thread", "list=split", "cull=warp", "scan=shuffle", "spec=off"}) {
        const CudaOptions o = parse_cuda_options(opt);  // as CR_CUDA_OPTIONS=... sets it
        for (const char* scene : {"rand10k", "biglittle", "snowsingle"}) {
            auto r = make_cuda_renderer(KernelKind::Tiled, o);
            const Image img = render_last(*r, make_scene(scene, 0), 512, 512, 1);
            const CompareStats st = compare_images(img, reference(scene, 0, 512, 512, 1));
            EXPECT_TRUE(st.pass) << opt << " on " << scene << ": " << describe(st);
            if (std::string(scene) != "snowsingle") {
                EXPECT_EQ(st.max_abs_error, 0.0) << opt << " on " << scene;
            }
        }
    }
    // refused before the renderer is built (validate_cuda_options), not at its first frame
    EXPECT_THROW(make_cuda_renderer(KernelKind::Persistent, parse_cuda_options("list=split")), std::invalid_argument);
    EXPECT_THROW(make_cuda_renderer(KernelKind::FrontToBack, parse_cuda_options("tile=8")), std::invalid_argument);
}

TEST(GpuHostile, TileSize8Matches) {
    REQUIRE_GPU();
    CudaOptions o;
    o.tile_size = 8;
    for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent})
        for (const char* scene : {"rand10k", "snowsingle"}) {
            auto r = make_cuda_renderer(k, o);
            const Image img = render_last(*r, make_scene(scene, 0), 257, 129, 1);
            EXPECT_TRUE(compare_images(img, reference(scene, 0, 257, 129, 1)).pass) << r->name() << " tile 8 " << scene;
        }
}

// ---- frames after the first (issue 15: deferred clear, packing once,
// speculative pair capacity) --------------------------------------------------

/// R, G and B floats that differ between two images of one size. Alpha is
/// not compared: tiled and persistent write 1 where cpuref sums the alphas
/// and ftb adds those it blended (files and --check ignore alpha);
/// alphas_not_one checks what the exact kernels write.
long long differing_floats(const Image& a, const Image& b) {
    if (a.width != b.width || a.height != b.height) return -1;
    long long n = 0;
    for (size_t k = 0; k < a.data.size(); ++k) n += k % 4 != 3 && a.data[k] != b.data[k];
    return n;
}

TEST(GpuLaterFrames, StaticScenesRepeatTheFirstFrameExactly) {
    REQUIRE_GPU();
    // Frame 1 is binned with the host waiting for the pair total; frames 2-3
    // reuse the packed circles and bin speculatively, on every path: the
    // counting sort (bins=sort and the coarse sets; count=auto) and the
    // sorting stages (count=off). Exact kernels: every R, G and B float
    // equals cpuref's; ftb within its bound.
    for (const char* scene : {"rand10k", "biglittle", "micro2M", "snowsingle", "pattern"})
        for (auto [w, h] : {std::pair{257, 129}, std::pair{1000, 600}}) {
            CpuRefRenderer ref;
            const Image want = render_last(ref, make_scene(scene, 5), w, h, 1);
            for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent, KernelKind::FrontToBack})
            for (const char* bins : {"bins=auto", "bins=sort", "bins=sort,count=off", "rowcull=on,coarse=2",
                                     "rowcull=off,strips=off,coarse=1", "strips=on,coarse=2,bins=sort", "strips=on,coarse=1",
                                     "bins=sort,coarse=4,split=on,count=off", "bins=sort,coarse=2,split=off,count=off"}) {
                auto r = make_cuda_renderer(k, parse_cuda_options(bins));
                const Image got = render_frames(*r, make_scene(scene, 5), w, h, 3);
                const CompareStats st = compare_images(got, want);
                EXPECT_TRUE(st.pass) << r->name() << " " << bins << " " << scene << " " << w << "x" << h << ": "
                                     << describe(st);
                if (k != KernelKind::FrontToBack && std::string(scene) != "snowsingle") {
                    EXPECT_EQ(differing_floats(got, want), 0) << r->name() << " " << bins << " " << scene << " " << w << "x" << h;
                }
                EXPECT_EQ(r->work().binning_redos, 0) << r->name() << " " << scene;
            }
        }
}

TEST(GpuLaterFrames, GrowingSceneIsBinnedAgainAndStillExact) {
    REQUIRE_GPU();
    // hypnosis grows every radius each frame; with no slack (spec=tight)
    // each frame has more pairs than the last, overflows its capacity, is
    // skipped by the shading and binned again: the images must not notice.
    const Scene s = make_scene("hypnosis", 0);
    CpuRefRenderer ref;
    ref.setup(s, 200, 150);
    for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent, KernelKind::FrontToBack})
    for (const char* opts : {"spec=tight,direct=0,bins=sort,count=off", "spec=tight,direct=0,bins=sort,strips=on,count=off",
                             "spec=tight,direct=0,bins=sort,coarse=4,split=on,fill=thread,count=off",
                             "spec=tight,direct=0,bins=sort,coarse=1,count=on", "spec=tight,direct=0,bins=sort,coarse=1,count=on,strips=on",
                             "spec=tight,direct=0,bins=sort,coarse=4,split=on,count=on",
                             // bin.place staged: the entries past the capacity are dropped at the write-out
                             "spec=tight,direct=0,bins=sort,coarse=1,count=on,place=staged",
                             "spec=tight,direct=0,bins=sort,coarse=4,split=on,count=on,place=staged"}) {
        CudaOptions o = parse_cuda_options(opts);
        auto r = make_cuda_renderer(k, o);
        r->setup(s, 200, 150);
        ref.setup(s, 200, 150);
        for (int f = 0; f < 12; ++f) {
            ref.clear();
            ref.advance();
            ref.render();
            r->clear();
            r->advance();
            r->render();
            const CompareStats st = compare_images(r->image(), ref.image());
            ASSERT_TRUE(st.pass) << r->name() << " " << opts << " frame " << f << ": " << describe(st);
            if (k != KernelKind::FrontToBack) {
                ASSERT_EQ(differing_floats(r->image(), ref.image()), 0) << r->name() << " " << opts << " frame " << f;
            }
        }
        EXPECT_GE(r->work().binning_redos, 5) << r->name();
        if (std::string(opts).find("place=staged") != std::string::npos) {
            EXPECT_EQ(r->work().path.rfind("counting sort (staged place), ", 0), 0u) << r->name() << " " << r->work().path;
        }
    }
}

/// `s` renamed.
Scene named(Scene s, const char* name) {
    s.name = name;
    return s;
}

/// 5000 circles growing from radius .002 to .012 along a short run from
/// (.05, .05), `spread` wide: thousands on one tile (spread .01) or a few.
Scene pile_scene(float spread) {
    Scene pile;
    pile.name = "pile";
    for (int i = 0; i < 5000; ++i) {
        const float t = i / 5000.f;
        pile.x.push_back(.05f + spread * t); pile.y.push_back(.05f + .005f * t); pile.z.push_back(t);
        pile.vx.push_back(0); pile.vy.push_back(0); pile.vz.push_back(0);
        pile.radius.push_back(.002f + .01f * t);
        pile.r.push_back(t); pile.g.push_back(1 - t); pile.b.push_back(.5f);
    }
    return pile;
}

/// Extreme circles (coordinates and radii of 1e6, beside an ordinary one)
/// on 64x64, and a circle of radius 0 on 8x8.
std::vector<std::pair<Scene, std::pair<int, int>>> far_and_zero_scenes() {
    return {{named(custom({{1e6f, 1e6f, 1.f, 1, 0, 0, 0}, {-1e6f, .5f, 1e6f + .3f, 0, 1, 0, 0}, {.5f, .5f, .1f, 0, 0, 1, 0}}),
                   "far away"), {64, 64}},
            {named(custom({{2.5f / 8, 3.5f / 8, 0.f, 1, 0, 0, 0}}), "radius 0"), {8, 8}}};
}

/// Renders each case (scene, size) for one frame with tiled, persistent and
/// ftb under every CR_CUDA_OPTIONS set of `options`, against cpuref: exact
/// kernels every float, ftb the comparison rule; and `path_ok(path, opts,
/// kind, scene)` must hold for each renderer's WorkCounts::path.
void expect_cases_match_cpuref(const std::vector<std::pair<Scene, std::pair<int, int>>>& cases,
                               std::initializer_list<const char*> options,
                               const std::function<bool(const std::string&, const std::string&, KernelKind, const Scene&)>& path_ok) {
    for (const auto& [scene, size] : cases) {
        const auto [w, h] = size;
        CpuRefRenderer ref;
        const Image want = render_last(ref, scene, w, h, 1);
        for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent, KernelKind::FrontToBack})
            for (const char* opts : options) {
                auto r = make_cuda_renderer(k, parse_cuda_options(opts));
                const Image got = render_last(*r, scene, w, h, 1);
                EXPECT_TRUE(path_ok(r->work().path, opts, k, scene)) << r->name() << " " << opts << " " << r->work().path;
                const CompareStats st = compare_images(got, want);
                EXPECT_TRUE(st.pass) << r->name() << " " << opts << " " << scene.name << ": " << describe(st);
                if (k != KernelKind::FrontToBack) {
                    EXPECT_EQ(differing_floats(got, want), 0) << r->name() << " " << opts << " " << scene.name;
                }
            }
    }
}

TEST(GpuStripMasks, HostileScenesStayExact) {
    REQUIRE_GPU();
    // Strip masks forced on (direct=0 so the tiny scenes are binned): extreme
    // circles (their boxes, not their rims, bound the masks), radius 0,
    // rims on tile edges, circles larger than the picture (broad hits), 5000
    // circles on one tile, and batches. Exact kernels: every float equals
    // cpuref's; ftb within its bound.
    auto cases = far_and_zero_scenes();
    cases.push_back({named(custom({{16.f / 64, 16.f / 64, 8.f / 64, 1, 1, 0, 0}, {.5f, .5f, .25f, 0, 1, 1, 0},
                                   {.5f, .5f, 3.f, .2f, .3f, .4f, 0}}),
                           "tile edges, larger than the picture"), {64, 64}});
    cases.push_back({pile_scene(.01f), {256, 256}});
    cases.push_back({make_scene("micro2M", 2), {257, 129}});
    cases.push_back({make_scene("rand10k", 4), {300, 200}});
    expect_cases_match_cpuref(cases, {"strips=on,direct=0", "strips=on,direct=0,batch=5000,spec=off"},
                              [](const std::string& path, const std::string&, KernelKind, const Scene&) {
                                  return path.find("strip masks") != std::string::npos;
                              });
}

TEST(GpuStripMasks, SnowIsTheSameFloatsWithAndWithout) {
    REQUIRE_GPU();
    // Snow is not bit-checked against cpuref (the GPU's expf differs), but
    // strip masks only choose which hits a thread looks at: the exact
    // kernels' snow images must be the same floats with them and without.
    for (const char* scene : {"snowsingle", "snow"})
        for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent}) {
            auto with = make_cuda_renderer(k, parse_cuda_options("strips=on,direct=0"));
            auto without = make_cuda_renderer(k, parse_cuda_options("strips=off,rowcull=off,direct=0"));
            const Image a = render_last(*with, make_scene(scene, 3), 257, 129, 2);
            const Image b = render_last(*without, make_scene(scene, 3), 257, 129, 2);
            EXPECT_NE(with->work().path.find("strip masks"), std::string::npos) << with->work().path;
            EXPECT_EQ(without->work().path.find("strip masks"), std::string::npos) << without->work().path;
            EXPECT_EQ(differing_floats(a, b), 0) << with->name() << " " << scene;
        }
}

TEST(GpuPersistent, TileOrderOnlySchedules) {
    REQUIRE_GPU();
    // order=off hands tiles out in row-major order with no bin.order stage;
    // the tile order only schedules work, so the floats are the same. Strip
    // masks (micro2M) and the flat kernel (rand100k) launch kernels of
    // different registers, each with its own grid (persistent_block_count).
    for (const char* scene : {"rand100k", "micro2M"}) {
        auto heavy = make_cuda_renderer(KernelKind::Persistent, parse_cuda_options("direct=0"));
        auto plain = make_cuda_renderer(KernelKind::Persistent, parse_cuda_options("direct=0,order=off"));
        const Image a = render_last(*heavy, make_scene(scene, 2), 257, 129, 2);
        const Image b = render_last(*plain, make_scene(scene, 2), 257, 129, 2);
        EXPECT_EQ(differing_floats(a, b), 0) << scene;
        EXPECT_EQ(differing_floats(a, reference(scene, 2, 257, 129, 2)), 0) << scene;
        std::map<std::string, int> seen[2];
        for (const StageTime& st : heavy->timings()) ++seen[0][st.name];
        for (const StageTime& st : plain->timings()) ++seen[1][st.name];
        EXPECT_EQ(seen[0]["bin.order"], 1) << scene;
        EXPECT_EQ(seen[1]["bin.order"], 0) << scene;
    }
    EXPECT_THROW(parse_cuda_options("order=heavy"), std::invalid_argument);
}

long long differing_bits(const Image& a, const Image& b);  // below

/// Renders frames 0..frames-1 of `scene` (seed 2) at w x h with `r` and
/// returns the image; `orders` gets WorkCounts::tile_order of each frame.
Image frames_with_orders(Renderer& r, const char* scene, int w, int h, int frames, std::vector<std::string>& orders) {
    r.setup(make_scene(scene, 2), w, h);
    orders.clear();
    for (int f = 0; f < frames; ++f) {
        r.clear();
        r.advance();
        r.render();
        orders.push_back(r.work().tile_order);
    }
    return r.image();
}

TEST(GpuPersistent, TheRecordedListLengthsOnlySchedule) {
    REQUIRE_GPU();
    // Without the early stop the persistent kernel's first frame is ordered
    // by list length (bin.order on its stream), every later one by the list
    // lengths the frame before recorded, sorted beside binning. Four
    // frames; a moving scene (hypnosis's lists change); the floats, alpha
    // too, equal row-major order's (order=off); the RGB floats equal
    // cpuref's on the flat scenes (rand10k, micro2M), the others pass
    // --check's comparison.
    const std::string lengths = "list lengths, sorted after binning", beside = "recorded work, sorted beside binning";
    std::vector<std::string> orders;
    for (const char* scene : {"rand10k", "micro2M", "hypnosis", "snowsingle"}) {
        auto rec = make_cuda_renderer(KernelKind::Persistent, parse_cuda_options("direct=0"));
        auto off = make_cuda_renderer(KernelKind::Persistent, parse_cuda_options("direct=0,order=off"));
        const Image a = frames_with_orders(*rec, scene, 257, 129, 4, orders);
        EXPECT_EQ(orders, (std::vector<std::string>{lengths, beside, beside, beside})) << scene;
        const Image b = frames_with_orders(*off, scene, 257, 129, 4, orders);
        EXPECT_EQ(orders, std::vector<std::string>(4, "tile order")) << scene;
        EXPECT_EQ(differing_bits(a, b), 0) << scene;
        const Image& want = reference(scene, 2, 257, 129, 4);
        const std::string name = scene;
        if (name == "rand10k" || name == "micro2M") {
            EXPECT_EQ(differing_floats(a, want), 0) << scene;
        }
        const CompareStats st = compare_images(a, want);
        EXPECT_TRUE(st.pass) << scene << ": " << describe(st);
    }
    // Passes that do not take the order beside binning sort their own lists:
    // a frame in batches (its later passes), CR_SYNC_STAGES (no second
    // stream), a grid of more tiles than one block sorts (1100x1000: 4347).
    const Image& want = reference("rand10k", 2, 257, 129, 3);
    auto batches = make_cuda_renderer(KernelKind::Persistent, parse_cuda_options("direct=0,bins=sort,count=off,coarse=1,batch=5000"));
    Image got = frames_with_orders(*batches, "rand10k", 257, 129, 3, orders);
    EXPECT_EQ(orders, std::vector<std::string>(3, lengths));
    EXPECT_GT(batches->work().circle_tile_pairs, 5000);  // more pairs than a batch: several passes a frame
    EXPECT_EQ(differing_floats(got, want), 0);
    CudaOptions sync = parse_cuda_options("direct=0");
    sync.sync_stages = true;
    got = frames_with_orders(*make_cuda_renderer(KernelKind::Persistent, sync), "rand10k", 257, 129, 3, orders);
    EXPECT_EQ(orders, std::vector<std::string>(3, lengths));
    EXPECT_EQ(differing_floats(got, want), 0);
    got = frames_with_orders(*make_cuda_renderer(KernelKind::Persistent, parse_cuda_options("direct=0")), "rand10k",
                             1100, 1000, 3, orders);
    EXPECT_EQ(orders, std::vector<std::string>(3, lengths));
    EXPECT_EQ(differing_floats(got, reference("rand10k", 2, 1100, 1000, 3)), 0);
}

TEST(GpuCounting, HostileScenesBatchesAndChunksStayExact) {
    REQUIRE_GPU();
    // The counting sort forced on (direct=0 so tiny scenes are binned):
    // extreme circles, radius 0, circles larger than the picture (every
    // tile, counted by whole warps), 5000 circles on a few tiles, odd sizes;
    // one chunk per multiprocessor and 32; batch=5000 sends frames with more
    // entries to the sorting stages in batches (also from 4x4 bins, then
    // split); bins of 4x4 and 2x2 tiles, counted and then split (exact
    // kernels) or shaded per bin (ftb; a frame that overflows its capacity
    // is GrowingSceneIsBinnedAgain's). Exact kernels: every float equals
    // cpuref's; ftb within its bound. place=staged: bin.place writes
    // through shared memory in tile order (one batch a round, or many:
    // biglittle's and the oversized circle's rounds hold thousands of
    // entries); the same lists, so the same floats.
    auto cases = far_and_zero_scenes();
    cases.push_back({named(custom({{.5f, .5f, 3.f, .2f, .3f, .4f, 0}, {16.f / 64, 16.f / 64, 8.f / 64, 1, 1, 0, 0}}),
                           "larger than the picture"), {1000, 600}});
    cases.push_back({pile_scene(.3f), {256, 256}});
    cases.push_back({make_scene("micro2M", 2), {257, 129}});
    cases.push_back({make_scene("rand10k", 4), {1000, 600}});
    cases.push_back({make_scene("biglittle", 1), {300, 200}});
    expect_cases_match_cpuref(cases,
                              {"count=on,direct=0,bins=sort,coarse=1", "count=on,direct=0,bins=sort,coarse=1,chunks=1",
                               "count=on,direct=0,bins=sort,coarse=1,chunks=32,strips=on",
                               "count=on,direct=0,bins=sort,coarse=1,batch=5000", "count=on,direct=0,bins=sort,coarse=4,chunks=32",
                               "count=on,direct=0,bins=sort,coarse=2", "count=on,direct=0,bins=sort,coarse=4,batch=16000",
                               "count=on,direct=0,bins=sort,coarse=1,place=staged",
                               "count=on,direct=0,bins=sort,coarse=1,chunks=1,strips=on,place=staged",
                               "count=on,direct=0,bins=sort,coarse=4,chunks=32,place=staged",
                               "count=on,direct=0,bins=sort,coarse=2,batch=16000,place=staged"},
                              [](const std::string& path, const std::string& opts, KernelKind k, const Scene& scene) {
                                  // batch=N: frames of more entries take the sorted batches, and say so
                                  const bool batched = opts.find("batch=") != std::string::npos;
                                  const std::string bins = opts.find("coarse=4") != std::string::npos   ? "4x4"
                                                           : opts.find("coarse=2") != std::string::npos ? "2x2"
                                                                                                        : "1x1";
                                  // the exact kernels split coarse bins; ftb shades flat scenes per bin;
                                  // an exact kernel that stops early skips the split among circles of
                                  // 16+ tiles (BinPlan, kStopSplitTiles), so either form is its plan then
                                  const bool early = path.find("; early stop") != std::string::npos;
                                  const std::string split = bins != "1x1" && k != KernelKind::FrontToBack ? ", split" : "";
                                  const auto starts = [&](const std::string& s) {
                                      return path.rfind(s + split, 0) == 0 || (early && path.rfind(s + ";", 0) == 0);
                                  };
                                  // place=auto stages split bins of scenes of kStagedPlaceCircles or more (micro2M)
                                  const bool staged = opts.find("place=staged") != std::string::npos ||
                                                      (static_cast<double>(scene.count()) >= kStagedPlaceCircles &&
                                                       path.find(", split") != std::string::npos);
                                  const std::string counted = staged ? "counting sort (staged place), " : "counting sort, ";
                                  return starts(counted + bins + "-tile bins") ||
                                         (batched && starts("sorted " + bins + "-tile bins"));
                              });
}

TEST(GpuCounting, StagesOfACountedAndSplitFrame) {
    REQUIRE_GPU();
    // The counting sort on 4x4-tile bins, then bin.split: each stage once,
    // no sorting stage, and the same pair count as the sorting stages'.
    // stop=off: the plan's early stop on this deep scene skips bin.split.
    long long pairs[2] = {0, 0};
    for (int counted = 0; counted < 2; ++counted) {
        auto r = make_cuda_renderer(KernelKind::Tiled, parse_cuda_options(counted ? "count=on,coarse=4,bins=sort,stop=off"
                                                                                  : "count=off,coarse=4,bins=sort,stop=off"));
        render_last(*r, make_scene("rand100k", 1), 640, 480, 2);
        pairs[counted] = r->work().circle_tile_pairs;
        EXPECT_EQ(r->work().path, counted ? "counting sort, 4x4-tile bins, split" : "sorted 4x4-tile bins, split");
        if (!counted) continue;
        std::map<std::string, int> seen;
        for (const StageTime& st : r->timings()) ++seen[st.name];
        for (const char* stage : {"bin.count", "bin.scan", "bin.place", "bin.split", "shade"})
            EXPECT_EQ(seen[stage], 1) << stage;
        EXPECT_EQ(seen["bin.sort"] + seen["bin.fill"] + seen["bin.ranges"], 0);
    }
    EXPECT_GT(pairs[0], 100000);
    EXPECT_EQ(pairs[1], pairs[0]);
}

TEST(GpuCounting, StagesOfACountedFrame) {
    REQUIRE_GPU();
    // A counted frame's stages, each once, and its pair count equal to the
    // sorting stages' on the same scene.
    long long pairs[2] = {0, 0};
    for (int counted = 0; counted < 2; ++counted) {
        auto r = make_cuda_renderer(KernelKind::Tiled, parse_cuda_options(counted ? "count=on" : "count=off,coarse=1"));
        render_last(*r, make_scene("micro2M", 1), 640, 480, 2);
        pairs[counted] = r->work().circle_tile_pairs;
        if (!counted) continue;
        std::map<std::string, int> seen;
        for (const StageTime& st : r->timings()) ++seen[st.name];
        for (const char* stage : {"bin.count", "bin.scan", "bin.place", "shade"})
            EXPECT_EQ(seen[stage], 1) << stage;
        EXPECT_EQ(seen["bin.sort"] + seen["bin.fill"] + seen["bin.split"] + seen["bin.ranges"], 0);
    }
    EXPECT_GT(pairs[0], 2000000);
    EXPECT_EQ(pairs[1], pairs[0]);
}

TEST(GpuPlan, EachSceneTakesItsMeasuredPath) {
    REQUIRE_GPU();
    // plan_binning's choices at 1024x1024 (docs/KERNELS.md's table of paths).
    const std::tuple<const char*, KernelKind, const char*> want[] = {
        {"rgb", KernelKind::Tiled, "no binning"},
        {"rand10k", KernelKind::Tiled, "bin.compact, 4x4-tile bins"},
        {"rand1M", KernelKind::Tiled, "counting sort (staged place), 4x4-tile bins, split; early stop, guessed start"},
        {"rand1M", KernelKind::Persistent, "counting sort (staged place), 4x4-tile bins, split; early stop, guessed start"},
        {"biglittle", KernelKind::Tiled, "bin.compact, 4x4-tile bins; early stop"},
        {"snowsingle", KernelKind::Tiled, "counting sort, 4x4-tile bins, split; quad layout; reciprocal division"},
        {"rand100k", KernelKind::FrontToBack, "counting sort, 4x4-tile bins"},
        {"snowsingle", KernelKind::FrontToBack, "counting sort, 4x4-tile bins, split"},
        {"micro2M", KernelKind::Tiled, "counting sort, 1x1-tile bins; strip masks"},
        {"micro2M", KernelKind::FrontToBack, "counting sort, 1x1-tile bins; strip masks"},
        {"micro2M", KernelKind::Persistent, "counting sort, 1x1-tile bins; strip masks"}};
    for (const auto& [scene, kind, path] : want) {
        auto r = make_cuda_renderer(kind, CudaOptions{});
        render_last(*r, make_scene(scene, 0), 1024, 1024, 1);
        EXPECT_EQ(r->work().path, path) << scene << " " << r->name();
    }
}

/// The device image of `r` (gpu_image(), the GUI's view), copied to the host.
Image device_image(Renderer& r, int w, int h) {
    const GpuImage g = r.gpu_image();
    Image out;
    out.width = w;
    out.height = h;
    out.data.resize(size_t(w) * h * 4);
    if (cudaStreamSynchronize(static_cast<cudaStream_t>(g.stream)) != cudaSuccess ||
        cudaMemcpy(out.data.data(), g.pixels, out.data.size() * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess)
        ADD_FAILURE() << "reading gpu_image() failed";
    return out;
}

TEST(GpuLaterFrames, DeferredClearIsSeenByEveryReader) {
    REQUIRE_GPU();
    const Scene s = make_scene("snowsingle", 0);  // a background that varies by row
    CpuRefRenderer ref;
    ref.setup(s, 64, 48);
    ref.clear();
    const Image background = ref.image();
    ref.render();
    ref.render();  // a second render with no clear blends over the first
    const Image twice = ref.image();
    // the direct path, the sorted path (with bin.split) and strip masks, the
    // counting sort (single tiles, and 4x4 bins with bin.split)
    for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent, KernelKind::FrontToBack})
        for (const char* opts : {"", "bins=sort,direct=0,count=off", "bins=sort,direct=0,coarse=4,split=on,strips=on,count=off",
                                 "bins=sort,direct=0,count=on", "bins=sort,direct=0,coarse=4,split=on,count=on"}) {
            auto r = make_cuda_renderer(k, parse_cuda_options(opts));
            r->setup(s, 64, 48);
            r->clear();
            EXPECT_EQ(differing_floats(r->image(), background), 0) << r->name() << " " << opts << ": clear, then image()";
            r->render();
            r->clear();  // deferred again: gpu_image() must run it
            EXPECT_EQ(differing_floats(device_image(*r, 64, 48), background), 0)
                << r->name() << " " << opts << ": render, clear, then gpu_image()";
            r->clear();
            r->render();
            r->render();
            const CompareStats st = compare_images(r->image(), twice);
            EXPECT_TRUE(st.pass) << r->name() << " " << opts << ": clear, render, render: " << describe(st);
        }
}

TEST(GpuLaterFrames, StageTimesOfARedoneFrameAddUp) {
    REQUIRE_GPU();
    // spec=tight: every frame of the growing scene is binned twice; the
    // host's wait between the passes counts in the redo's first stage
    // (StageTimeline::reopen). Each stage is listed once (passes added up),
    // no time is negative, and the stages add up to no more than the host's
    // own clock around the frame.
    const Scene s = make_scene("hypnosis", 0);
    for (KernelKind k : {KernelKind::Tiled, KernelKind::FrontToBack}) {
        auto r = make_cuda_renderer(k, parse_cuda_options("spec=tight,direct=0,bins=sort,count=off"));
        r->setup(s, 200, 150);
        int redone = 0;  // frames binned twice, whose stage times were checked
        for (int f = 0; f < 8; ++f) {
            const long long redos_before = r->work().binning_redos;
            const auto t0 = std::chrono::steady_clock::now();
            r->clear();
            r->advance();
            r->render();
            const std::vector<StageTime> times = r->timings();
            const double host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            std::map<std::string, int> seen;
            double sum = 0;
            for (const StageTime& st : times) {
                EXPECT_GE(st.ms, 0.0) << r->name() << " " << st.name;
                ++seen[st.name];
                sum += st.ms;
            }
            for (const char* stage : {"clear", "advance", "bin.scan", "bin.fill", "bin.sort", "bin.ranges", "shade"})
                EXPECT_EQ(seen[stage], 1) << r->name() << " frame " << f << " " << stage;
            EXPECT_LE(sum, host_ms + 0.01) << r->name() << " frame " << f;
            redone += r->work().binning_redos > redos_before;
        }
        EXPECT_GE(redone, 2) << r->name();  // frames whose pair total grew (the scene's, on any GPU)
    }
}

TEST(GpuCoarseBins, EveryBinSizeDrawsTheSameImages) {
    REQUIRE_GPU();
    // Binning per bin of 1x1, 2x2 or 4x4 tiles must change the speed only:
    // odd sizes give partial bins and tiles; three frames use speculation.
    for (int coarse : {1, 2, 4})
        for (const char* scene : {"rand10k", "biglittle", "micro2M", "snowsingle"})
            for (auto [w, h] : {std::pair{257, 129}, std::pair{1000, 600}}) {
                CpuRefRenderer ref;
                const Image want = render_last(ref, make_scene(scene, 2), w, h, 1);
                for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent, KernelKind::FrontToBack})
                for (bool compact : {true, false}) {
                    CudaOptions o;
                    o.coarse = coarse;
                    o.direct_limit = 0;
                    o.allow_compact = compact;
                    auto r = make_cuda_renderer(k, o);
                    const Image got = render_frames(*r, make_scene(scene, 2), w, h, 3);
                    const CompareStats st = compare_images(got, want);
                    EXPECT_TRUE(st.pass) << r->name() << " coarse " << coarse << " " << scene << " " << w << "x" << h
                                         << ": " << describe(st);
                    if (k != KernelKind::FrontToBack && std::string(scene) != "snowsingle") {
                        EXPECT_EQ(differing_floats(got, want), 0) << r->name() << " coarse " << coarse << " " << scene;
                    }
                }
            }
}

TEST(GpuCoarseBins, FewerPairsBatchesAndAnimation) {
    REQUIRE_GPU();
    long long pairs[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
        CudaOptions o;
        o.coarse = 1 << i;
        o.allow_compact = i == 1;  // bin.compact and the sorting stages list the same pairs
        auto r = make_cuda_renderer(KernelKind::Tiled, o);
        render_frames(*r, make_scene("rand10k", 0), 1024, 1024, 1);
        pairs[i] = r->work().circle_tile_pairs;
    }
    // rand10k's circles span about 55 tiles of 16x16: bins of 32 and 64
    // pixels list each circle several times less often.
    EXPECT_LT(pairs[1] * 2, pairs[0]);
    EXPECT_LT(pairs[2] * 2, pairs[1]);
    CudaOptions o;  // batches of coarse pairs
    o.coarse = 4;
    o.allow_compact = false;
    o.max_pairs_per_batch = 3000;
    o.direct_limit = 0;
    for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent, KernelKind::FrontToBack}) {
        auto r = make_cuda_renderer(k, o);
        const Image img = render_last(*r, make_scene("rand10k", 3), 300, 200, 1);
        const CompareStats st = compare_images(img, reference("rand10k", 3, 300, 200, 1));
        EXPECT_TRUE(st.pass) << r->name() << " batched, coarse 4: " << describe(st);
    }
    o.max_pairs_per_batch = 1ll << 26;  // an animation: radii grow, pairs change every frame
    for (bool compact : {true, false})
        for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent}) {
            o.allow_compact = compact;
            auto r = make_cuda_renderer(k, o);
            const Image img = render_last(*r, make_scene("hypnosis", 0), 200, 150, 40);
            EXPECT_EQ(differing_floats(img, reference("hypnosis", 0, 200, 150, 40)), 0)
                << r->name() << " hypnosis coarse 4" << (compact ? " compact" : " sorted");
        }
}

TEST(GpuHostile, LongAnimation1000Frames) {
    REQUIRE_GPU();
    for (const char* scene : {"bouncingballs", "fireworks", "hypnosis"})
        for (const char* k : {"tiled", "persistent"}) expect_kernel_matches(k, scene, 0, 128, 128, 1000);
}

TEST(GpuHostile, Snow1000FramesMatchesAtCheckpoints) {
    REQUIRE_GPU();
    // snow's circles fall, wrap and respawn; float drift or a respawn decided
    // differently on the GPU would show up within a few hundred frames. Each
    // kernel runs 1000 frames in lockstep with cpuref and both images are
    // compared at frames 1, 250, 500, 750 and 1000.
    const Scene scene = make_scene("snow", 0);
    for (const char* k : kKernels) {
        auto r = make_renderer(k);
        CpuRefRenderer ref;
        r->setup(scene, 192, 160);
        ref.setup(scene, 192, 160);
        int compared = 0;
        for (int f = 1; f <= 1000; ++f) {
            r->clear();
            r->advance();
            ref.clear();
            ref.advance();
            if (f != 1 && f % 250 != 0) continue;
            r->render();
            ref.render();
            const CompareStats st = compare_images(r->image(), ref.image());
            EXPECT_TRUE(st.pass) << k << " snow frame " << f << ": " << describe(st);
            ++compared;
        }
        EXPECT_EQ(compared, 5) << k;
    }
}

TEST(GpuSizes, Size16384MatchesCpuref) {
    REQUIRE_GPU();
    // The largest size: a 4 GiB float4 image, pixel offsets beyond 2^31
    // bytes. rgb (3 circles: the direct path, no bins) against cpuref on
    // every kernel; rand10k (the binned path, 262144 tiles) against the
    // multi-core "cpu" renderer, which unit tests prove equal to cpuref bit
    // for bit (cpuref alone would take minutes at this size).
    for (const auto& [scene_name, ref_name] : {std::pair<const char*, const char*>{"rgb", "cpuref"},
                                               std::pair<const char*, const char*>{"rand10k", "cpu"}}) {
        const Scene scene = make_scene(scene_name, 0);
        auto ref = make_renderer(ref_name);
        const Image& want = render_frames(*ref, scene, 16384, 16384, 1);
        for (const char* k : kKernels) {
            if (std::string(k) == "naive" && std::string(scene_name) != "rgb") continue;  // 2.7e12 tests
            auto r = make_renderer(k);
            const Image& got = render_frames(*r, scene, 16384, 16384, 1);
            const CompareStats st = compare_images(got, want);
            EXPECT_TRUE(st.pass) << k << " " << scene_name << " 16384x16384 vs " << ref_name << ": " << describe(st);
        }
    }
}

TEST(GpuSizes, PairsBeyond2To31MatchNaive) {
    REQUIRE_GPU();
    // 4200 circles of radius 2 whose right rims sweep across a 16384x16384
    // picture from x = 1 (circle 0) to x = 0 (the last): circle k covers the
    // pixels left of its rim, about 1 - k/4200 of the 1048576 16x16 tiles, so
    // binning lists ~2.2e9 circle-tile pairs, past 2^31, in 2^26-pair batches.
    // A pixel at x is covered by a prefix of the circles and its colour is set
    // by the last ~24 of that prefix, so every circle decides a strip of
    // columns: a dropped, repeated or reordered batch changes pixels. The
    // naive kernel (no pairs at all; equal to cpuref in every other test) is
    // the reference, as cpuref would need hours at this size.
    const int n = 4200;
    Scene s;
    s.name = "sweep";
    for (int k = 0; k < n; ++k) {
        const float rim = 1.f - (k + .5f) / n;
        s.x.push_back(rim - 2.f); s.y.push_back(.5f); s.z.push_back(.5f);
        s.vx.push_back(0); s.vy.push_back(0); s.vz.push_back(0);
        s.radius.push_back(2.f);
        s.r.push_back((k % 7) / 6.f); s.g.push_back((k % 11) / 10.f); s.b.push_back((k % 13) / 12.f);
    }
    auto naive = make_renderer("naive");
    const Image& want = render_frames(*naive, s, 16384, 16384, 1);
    CudaOptions single;  // bins of one tile and the sorting stages: the most pairs (coarse bins list ~16x fewer)
    single.coarse = 1;
    single.allow_compact = false;
    for (KernelKind kind : {KernelKind::Tiled, KernelKind::Persistent}) {
        auto r = make_cuda_renderer(kind, single);
        const std::string k = r->name();
        const Image& got = render_frames(*r, s, 16384, 16384, 1);
        const long long pairs = r->work().circle_tile_pairs;
        std::printf("%s: %lld circle-tile pairs\n", k.c_str(), pairs);
        EXPECT_GT(pairs, 1ll << 31) << k;
        const CompareStats st = compare_images(got, want);
        EXPECT_TRUE(st.pass) << k << " with > 2^31 pairs: " << describe(st);
        EXPECT_EQ(st.max_abs_error, 0.0) << k;
    }
}

TEST(GpuErrors, OutOfMemoryIsReported) {
    REQUIRE_GPU();
    // A 1 MiB budget cannot hold a 256x256 float4 image (1 MiB) next to the
    // circles: setup must fail with the named buffer, as a full GPU would.
    CudaOptions o;
    o.memory_limit = size_t(1) << 20;
    auto r = make_cuda_renderer(KernelKind::Tiled, o);
    try {
        r->setup(make_scene("rand10k", 0), 256, 256);
        FAIL() << "setup succeeded within 1 MiB";
    } catch (const DeviceOutOfMemory& e) {
        EXPECT_FALSE(e.buffer.empty());
        EXPECT_GT(e.bytes, 0u);
    }
}

TEST(GpuErrors, UnorderedDemoIsFlaggedIncorrect) {
    REQUIRE_GPU();
    auto r = make_renderer("unordered");
    EXPECT_TRUE(r->is_incorrect_by_design());
}

}  // namespace
}  // namespace cr

namespace cr {
namespace {

/// ftb against cpuref: the strict rule and at most 1e-5 anywhere (issue 15).
void expect_ftb_close(const Scene& s, int w, int h, int frames, CudaOptions o = {}) {
    auto r = make_cuda_renderer(KernelKind::FrontToBack, o);
    const Image img = render_frames(*r, s, w, h, frames);
    auto ref = make_renderer("cpuref");
    const CompareStats st = compare_images(img, render_last_frame(*ref, s, w, h, frames));
    EXPECT_TRUE(st.pass) << "ftb on " << s.name << " " << w << "x" << h << ": " << describe(st);
    EXPECT_LE(st.max_abs_error, 1e-5) << "ftb on " << s.name << " " << w << "x" << h;
    std::printf("ftb %-13s %5dx%-5d frames %d: max abs error %.3g\n", s.name.c_str(), w, h, frames, st.max_abs_error);
}

TEST(GpuFtb, EveryScene256AndScored1024) {
    REQUIRE_GPU();
    for (const auto& name : kCourseScenes) expect_ftb_close(make_scene(name, 0), 256, 256, 1);
    for (const char* name : {"rand10k", "rand100k", "pattern", "snowsingle", "biglittle", "rand1M", "micro2M"})
        expect_ftb_close(make_scene(name, 0), 1024, 1024, 1);
}

TEST(GpuFtb, SeedsSizesAnimationAndBatches) {
    REQUIRE_GPU();
    for (uint32_t seed : {1u, 7u, 4242u}) expect_ftb_close(make_scene("rand100k", seed), 512, 512, 1);
    for (auto [w, h] : {std::pair{1, 1}, std::pair{257, 129}, std::pair{1000, 600}})
        expect_ftb_close(make_scene("rand10k", 3), w, h, 1);
    expect_ftb_close(make_scene("snow", 0), 256, 256, 300);
    expect_ftb_close(make_scene("fireworks", 0), 256, 256, 45);
    CudaOptions o;  // a tiny pair budget: many batches, shaded last batch first
    o.max_pairs_per_batch = 5000;
    o.direct_limit = 0;
    expect_ftb_close(make_scene("rand10k", 3), 300, 200, 1, o);
    CudaOptions eight;
    eight.tile_size = 8;  // refused when the renderer is built (validate_cuda_options), before any frame
    EXPECT_THROW(make_cuda_renderer(KernelKind::FrontToBack, eight), std::invalid_argument);
}

// ---- exact early stopping (stop=on): every RGB float as without it ---------

/// Alphas other than exactly 1: the tiled and persistent kernels write alpha
/// 1, the clear's, with the early stop or without (docs/KERNELS.md, "Alpha").
long long alphas_not_one(const Image& img) {
    long long n = 0;
    for (size_t k = 3; k < img.data.size(); k += 4) n += img.data[k] != 1.f;
    return n;
}

TEST(GpuCoalesce, EveryRgbFloatEqualsCpurefOnFlatScenes) {
    REQUIRE_GPU();
    // cpuref's own floats on flat scenes, at odd sizes and seeds; tiled and
    // persistent, with the culling and binning paths the plan can take
    for (const char* scene : {"rand10k", "rand100k", "biglittle", "littlebig", "pattern", "rgb", "micro2M"})
        for (auto [w, h] : {std::pair{1, 1}, std::pair{257, 129}, std::pair{300, 200}})
            for (uint32_t seed : {0u, 7u}) {
                const Image& want = reference(scene, seed, w, h, 1);
                for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent})
                    for (const char* opts : {"stop=on,start=walk", "stop=on,start=walk,strips=on",
                                             "stop=on,start=walk,rowcull=on,strips=off",
                                             "stop=on,start=walk,bins=sort,count=off",
                                             "stop=on,start=walk,direct=0,batch=20000",
                                             "stop=on,start=walk,bins=sort",  // counted coarse bins
                                             "stop=on,start=walk,gap=2",      // second tries in most tiles
                                             "stop=on,start=guess", "stop=on,start=guess,strips=on",
                                             "stop=on,start=guess,window=1",  // second tries in most tiles
                                             "stop=on,start=guess,rowcull=on,strips=off,bins=sort,count=off"}) {
                        auto r = make_cuda_renderer(k, parse_cuda_options(opts));
                        const Image got = render_last(*r, make_scene(scene, seed), w, h, 1);
                        EXPECT_EQ(differing_floats(got, want), 0) << r->name() << " " << opts << " " << scene << " seed "
                                                                  << seed << " " << w << "x" << h;
                        EXPECT_EQ(alphas_not_one(got), 0) << r->name() << " " << opts << " " << scene;
                    }
            }
}

TEST(GpuCoalesce, MovingAndSnowScenesEqualTheFullWalk) {
    REQUIRE_GPU();
    // snow is not bit-equal to cpuref (the GPU's expf), but the early stop
    // must not change a bit of what the full walk (stop=off) draws
    const std::tuple<const char*, int, int, int> runs[] = {
        {"snowsingle", 512, 512, 1}, {"snow", 256, 256, 300}, {"fireworks", 256, 256, 45},
        {"hypnosis", 200, 150, 40}, {"rand1M", 1000, 600, 1}, {"bouncingballs", 257, 129, 30}};
    for (const auto& [scene, w, h, frames] : runs)
        for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent}) {
            auto full = make_cuda_renderer(k, parse_cuda_options("stop=off"));
            const Image a = render_last(*full, make_scene(scene, 0), w, h, frames);
            // the plan's start, the walk back, the guessed start, and one whose first tries mostly fail
            for (const char* opts : {"stop=on", "stop=on,start=walk", "stop=on,start=walk,gap=2", "stop=on,start=guess",
                                     "stop=on,start=guess,window=1"}) {
                auto stop = make_cuda_renderer(k, parse_cuda_options(opts));
                const Image b = render_last(*stop, make_scene(scene, 0), w, h, frames);
                EXPECT_EQ(differing_floats(a, b), 0) << stop->name() << " " << opts << " " << scene << " frames " << frames;
                EXPECT_EQ(alphas_not_one(b), 0) << stop->name() << " " << opts << " " << scene;
            }
        }
    // flat scenes at 1024x1024 as the course grades them: cpuref's floats
    for (const char* scene : {"rand100k", "biglittle", "rand1M"}) {
        auto cpu = make_renderer("cpu");  // bit-identical to cpuref (unit tests), minutes faster at this size
        const Image want = render_last(*cpu, make_scene(scene, 0), 1024, 1024, 1);
        for (const char* opts : {"", "start=walk", "start=guess", "start=guess,window=8"}) {
            auto r = make_cuda_renderer(KernelKind::Tiled, parse_cuda_options(opts));
            const Image got = render_last(*r, make_scene(scene, 0), 1024, 1024, 1);
            EXPECT_EQ(differing_floats(got, want), 0) << scene << " " << opts;
            const std::string path = r->work().path;
            EXPECT_NE(path.find("early stop"), std::string::npos) << scene << ": " << path;
            if (std::string(opts).find("start=") != std::string::npos) {  // the start asked for is the start taken
                EXPECT_EQ(path.find("guessed start") != std::string::npos,
                          std::string(opts).find("start=guess") != std::string::npos)
                    << scene << " " << opts << ": " << path;
            }
        }
    }
}

/// Alphas whose bits differ from cpuref's (the course's sum; -1 for other sizes).
long long differing_alphas(const Image& a, const Image& b) {
    if (a.width != b.width || a.height != b.height) return -1;
    long long n = 0;
    for (size_t k = 3; k < a.data.size(); k += 4) n += std::memcmp(&a.data[k], &b.data[k], sizeof(float)) != 0;
    return n;
}

TEST(GpuKernels, TheExactKernelsWriteAlphaOne) {
    REQUIRE_GPU();
    // tiled and persistent blend R, G and B only: every alpha of every frame
    // is written as the clear's 1, on the plan's own paths (no binning on rgb,
    // bin.compact on rand10k, the counting sort and strip masks on micro2M,
    // the early stop on rand100k, snow's quads), on later frames (deferred
    // clear, speculative lists) and in batches (passes that read the image);
    // R, G and B stay cpuref's floats on the flat scenes. naive keeps the
    // course's alpha, 1 plus every alpha blended: cpuref's float.
    for (const char* scene : {"rgb", "rand10k", "micro2M", "rand100k", "snowsingle"})
        for (const char* opts : {"", "batch=5000"}) {
            const Image& want = reference(scene, 3, 257, 129, 2);
            ASSERT_GT(alphas_not_one(want), 1000) << scene << ": cpuref's alphas are sums";
            for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent}) {
                auto r = make_cuda_renderer(k, parse_cuda_options(opts));
                const Image got = render_last(*r, make_scene(scene, 3), 257, 129, 2);
                EXPECT_EQ(alphas_not_one(got), 0) << r->name() << " " << opts << " " << scene;
                if (std::string(scene) != "snowsingle") {
                    EXPECT_EQ(differing_floats(got, want), 0) << r->name() << " " << opts << " " << scene;
                }
            }
        }
    auto naive = make_renderer("naive");
    EXPECT_EQ(differing_alphas(render_last(*naive, make_scene("rand10k", 3), 257, 129, 2),
                               reference("rand10k", 3, 257, 129, 2)),
              0);
}

/// Floats of all four channels, alpha too, whose bits differ (-1 for other sizes).
long long differing_bits(const Image& a, const Image& b);

TEST(GpuCoalesce, TheRecordedOrderDrawsTheSameFloats) {
    REQUIRE_GPU();
    // With the early stop, tiles start in the order of their work in the
    // frame before, longest first (persistent: order=auto; tiled: order=on,
    // and order=auto on counted lists only); the order only schedules
    // work, so every float of every frame, alpha too, equals the row-major
    // order's (order=off). Several frames, so that the later ones run in a
    // recorded order; a moving scene, whose heavy tiles move; second tries
    // (gap=2, window=1); tiled and persistent.
    const std::tuple<const char*, int, int, int> runs[] = {{"biglittle", 1024, 1024, 3}, {"littlebig", 257, 129, 3},
                                                           {"rand100k", 1000, 600, 2}, {"fireworks", 256, 256, 45}};
    for (const auto& [scene, w, h, frames] : runs)
        for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent})
            for (const char* opts : {"stop=on,start=walk", "stop=on,start=walk,gap=2", "stop=on,start=walk,strips=on",
                                     "stop=on,start=guess", "stop=on,start=guess,window=1"}) {
                // the tiled kernel takes the recorded order with order=on on every list; the persistent one by default
                const std::string on = k == KernelKind::Tiled ? ",order=on" : "";
                auto off = make_cuda_renderer(k, parse_cuda_options(std::string(opts) + ",order=off"));
                auto rec = make_cuda_renderer(k, parse_cuda_options(std::string(opts) + on));
                const Image a = render_last(*off, make_scene(scene, 0), w, h, frames);
                const Image b = render_last(*rec, make_scene(scene, 0), w, h, frames);
                EXPECT_EQ(differing_bits(a, b), 0) << rec->name() << " " << opts << " " << scene << " " << w << "x" << h
                                                   << " frames " << frames;
                std::map<std::string, int> seen[2];  // the last frame's stages: bin.order only where ordered
                for (const StageTime& st : rec->timings()) ++seen[0][st.name];
                for (const StageTime& st : off->timings()) ++seen[1][st.name];
                EXPECT_EQ(seen[0]["bin.order"], 1) << rec->name() << " " << opts << " " << scene;
                EXPECT_EQ(seen[1]["bin.order"], 0) << rec->name() << " " << opts << " " << scene;
            }
    // the tiled kernel's default (order=auto) keeps tile order on bin.compact's lists (biglittle at 257x129:
    // BinPlan.TheRecordedOrderWhereItMeasuredFaster): no bin.order stage, the same floats
    auto tiled = make_cuda_renderer(KernelKind::Tiled, parse_cuda_options("stop=on,start=walk"));
    auto on = make_cuda_renderer(KernelKind::Tiled, parse_cuda_options("stop=on,start=walk,order=on"));
    const Image a = render_last(*tiled, make_scene("biglittle", 0), 257, 129, 3);
    EXPECT_EQ(differing_bits(a, render_last(*on, make_scene("biglittle", 0), 257, 129, 3)), 0);
    for (const StageTime& st : tiled->timings()) EXPECT_NE(st.name, "bin.order");
}

/// Floats of all four channels, alpha too, whose bits differ (-1 for other sizes).
long long differing_bits(const Image& a, const Image& b) {
    if (a.width != b.width || a.height != b.height) return -1;
    long long n = 0;
    for (size_t k = 0; k < a.data.size(); ++k) n += std::memcmp(&a.data[k], &b.data[k], sizeof(float)) != 0;
    return n;
}

TEST(GpuLayout, QuadsAndTheReciprocalDrawTheSameFloats) {
    REQUIRE_GPU();
    // The quad layout changes only which thread owns which pixel, the
    // reciprocal only how snow's t is divided (the same float:
    // tests/test_shading.cpp): every float of every image, alpha too, must
    // equal the strips' with the IEEE division; at odd sizes (partial
    // tiles), for a moving snow scene, and with culling off where the plan
    // would cull (small circles: strip masks, which keep the strips) so
    // that the quads really run there.
    const std::tuple<const char*, int, int, int> snow_runs[] = {{"snowsingle", 1024, 1024, 1},
                                                                {"snowsingle", 1000, 600, 1},
                                                                {"snowsingle", 257, 129, 1},
                                                                {"snowsingle", 1, 1, 1},
                                                                {"snow", 256, 256, 300},
                                                                {"snow", 1000, 600, 150}};
    const std::string no_cull = ",strips=off,rowcull=off";
    const std::vector<std::string> option_sets = {"layout=quads",
                                                  "snowdiv=recip",
                                                  "layout=quads,snowdiv=recip",
                                                  "layout=quads,snowdiv=recip" + no_cull,
                                                  "layout=quads" + no_cull,
                                                  "snowdiv=recip,strips=on,direct=0",
                                                  "snowdiv=recip,rowcull=on,strips=off"};
    for (const auto& [scene, w, h, frames] : snow_runs)
        for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent}) {
            auto plain = make_cuda_renderer(k, parse_cuda_options(""));
            const Image a = render_last(*plain, make_scene(scene, 0), w, h, frames);
            for (const std::string& opts : option_sets) {
                auto r = make_cuda_renderer(k, parse_cuda_options(opts));
                const Image b = render_last(*r, make_scene(scene, 0), w, h, frames);
                EXPECT_EQ(differing_bits(a, b), 0) << r->name() << " " << opts << " " << scene << " " << w << "x" << h;
                const std::string path = r->work().path;
                if (opts.find("recip") != std::string::npos) {
                    EXPECT_NE(path.find("reciprocal division"), std::string::npos) << opts << ": " << path;
                }
                if (opts.find(no_cull) != std::string::npos) {
                    EXPECT_NE(path.find("quad layout"), std::string::npos) << opts << ": " << path;
                }
            }
        }
    // flat scenes in the quad layout: cpuref's floats (direct, bin.compact
    // and sorted lists; culling off, as above)
    for (const char* scene : {"rgb", "rand10k", "pattern", "fireworks"})
        for (auto [w, h] : {std::pair{1, 1}, std::pair{257, 129}, std::pair{1024, 1024}})
            for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent})
                for (const char* opts : {"layout=quads,strips=off,rowcull=off",
                                         "layout=quads,strips=off,rowcull=off,bins=sort,count=off,direct=0"}) {
                    auto r = make_cuda_renderer(k, parse_cuda_options(opts));
                    const Image got = render_last(*r, make_scene(scene, 5), w, h, 1);
                    EXPECT_EQ(differing_floats(got, reference(scene, 5, w, h, 1)), 0)
                        << r->name() << " " << opts << " " << scene << " " << w << "x" << h;
                    EXPECT_NE(r->work().path.find("quad layout"), std::string::npos) << r->work().path;
                }
}

TEST(GpuGather, CircleRecordsDrawTheSameFloats) {
    REQUIRE_GPU();
    // gather=records only moves where the exact kernels read a flat
    // circle's geometry and color from (one 32-byte record, refilled by
    // bin.pack when circles move): every float, alpha too, as with the two
    // arrays, through the big scenes' paths, moving scenes and odd sizes.
    const std::tuple<const char*, int, int, int> runs[] = {
        {"micro2M", 1024, 1024, 1}, {"rand1M", 1000, 600, 1}, {"rand100k", 257, 129, 1}, {"rand10k", 1, 1, 1},
        {"fireworks", 256, 256, 30}, {"bouncingballs", 257, 129, 20}, {"pattern", 300, 200, 1}};
    for (const auto& [scene, w, h, frames] : runs)
        for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent}) {
            auto arrays = make_cuda_renderer(k, parse_cuda_options(""));
            auto records = make_cuda_renderer(k, parse_cuda_options("gather=records"));
            const Image a = render_last(*arrays, make_scene(scene, 0), w, h, frames);
            const Image b = render_last(*records, make_scene(scene, 0), w, h, frames);
            EXPECT_EQ(differing_bits(a, b), 0) << records->name() << " " << scene << " " << w << "x" << h;
            EXPECT_NE(records->work().path.find("circle records"), std::string::npos) << records->work().path;
        }
    // with the other switches: the walk back and the guessed start, row culling, quads, batches
    for (const char* opts : {"gather=records,stop=on,start=walk,gap=2", "gather=records,stop=on,start=guess,window=1",
                             "gather=records,rowcull=on,strips=off", "gather=records,layout=quads,strips=off,rowcull=off",
                             "gather=records,direct=0,batch=20000"})
        for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent}) {
            auto r = make_cuda_renderer(k, parse_cuda_options(opts));
            const Image got = render_last(*r, make_scene("rand10k", 3), 257, 129, 1);
            EXPECT_EQ(differing_floats(got, reference("rand10k", 3, 257, 129, 1)), 0) << r->name() << " " << opts;
            EXPECT_NE(r->work().path.find("circle records"), std::string::npos) << r->work().path;
        }
    // one renderer set up again and again: a small scene, a large one, snow
    // (records freed), flat again (records again, sized for it)
    const std::tuple<const char*, int, int> sequence[] = {
        {"rand10k", 257, 129}, {"micro2M", 512, 512}, {"snowsingle", 300, 200}, {"pattern", 1, 1}, {"rand1M", 640, 480}};
    for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent}) {
        auto r = make_cuda_renderer(k, parse_cuda_options("gather=records"));
        for (const auto& [scene, w, h] : sequence) {
            auto fresh = make_cuda_renderer(k, parse_cuda_options(""));
            const Image a = render_last(*fresh, make_scene(scene, 1), w, h, 1);
            const Image b = render_last(*r, make_scene(scene, 1), w, h, 1);
            EXPECT_EQ(differing_bits(a, b), 0) << r->name() << " reused on " << scene;
        }
    }
}

}  // namespace
}  // namespace cr
