// The CUDA renderer's host-side decisions, on the CPU: which binning path
// and culling each scene takes (docs/KERNELS.md's table of paths), and the
// CR_CUDA_OPTIONS table (parsing, refusals, validation before a renderer is
// built, and the docs' copy of the table), and the speculative capacity and
// batches of the sorting path.
#include <gtest/gtest.h>

#include <iterator>
#include <set>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/bin_plan.h"
#include "kernels/cuda_renderer.h"
#include "scenes/scene.h"

namespace cr {
namespace {

constexpr int kH200CountTiles = 8192;  // count_tile_limit() on the H200 (kMaxCountTiles)

/// The plan of scene `name` (seed 0) at w x h on the tiles `options` ask for (16x16 by default).
BinPlan plan_of(const char* name, KernelKind kind, const std::string& options = "", int w = 1024, int h = 1024,
                int count_limit = kH200CountTiles) {
    const CudaOptions o = parse_cuda_options(options);
    return plan_binning(make_scene(name, 0), make_tile_grid(w, h, o.tile_size), kind, o, count_limit);
}

/// The path scene `name` (seed 0) plans at w x h (plan_of).
std::string path_of(const char* name, KernelKind kind, const std::string& options = "", int w = 1024, int h = 1024,
                    int count_limit = kH200CountTiles) {
    return planned_path(plan_of(name, kind, options, w, h, count_limit));
}

TEST(BinPlan, EveryCourseSceneTakesTheDocumentedPath) {
    // docs/KERNELS.md "Binning": the table of paths, at 1024x1024 on the H200.
    const char* const split = "counting sort, 4x4-tile bins, split";
    // mean coverage >= 200: no split; counted lists: the guessed start
    const char* const exact_stop = "counting sort, 4x4-tile bins; early stop, guessed start";
    const char* const compact_stop = "bin.compact, 4x4-tile bins; early stop";
    const char* const micro = "counting sort, 1x1-tile bins; strip masks";
    const std::tuple<const char*, const char*, const char*> want[] = {
        // scene, tiled and persistent, ftb
        {"rgb", "no binning", "no binning"},
        {"rgby", "no binning", "no binning"},
        {"hypnosis", "no binning", "no binning"},
        {"bouncingballs", "no binning", "no binning"},
        {"rand10k", "bin.compact, 4x4-tile bins", "bin.compact, 4x4-tile bins"},  // coverage 87.5: no stop
        {"biglittle", compact_stop, "bin.compact, 4x4-tile bins"},
        {"littlebig", compact_stop, "bin.compact, 4x4-tile bins"},
        {"pattern", "bin.compact, 4x4-tile bins", "bin.compact, 4x4-tile bins"},
        {"fireworks", "bin.compact, 4x4-tile bins", "bin.compact, 4x4-tile bins"},
        {"rand100k", exact_stop, "counting sort, 4x4-tile bins"},  // ftb splits only snow scenes
        {"rand1M", "counting sort (staged place), 4x4-tile bins, split; early stop, guessed start",
         "counting sort, 4x4-tile bins"},  // small circles: split
        // snow: no early stop unless stop=on; the quad layout and the reciprocal (exact kernels)
        {"snowsingle", "counting sort, 4x4-tile bins, split; quad layout; reciprocal division", split},
        {"micro2M", micro, micro},
        // snow's flakes start above the picture: at setup no flake covers a tile (mean 0)
        {"snow", micro, micro},
    };
    for (const auto& [scene, exact, ftb] : want) {
        EXPECT_EQ(path_of(scene, KernelKind::Tiled), exact) << scene;
        EXPECT_EQ(path_of(scene, KernelKind::Persistent), exact) << scene;
        EXPECT_EQ(path_of(scene, KernelKind::FrontToBack), ftb) << scene;
    }
}

TEST(BinPlan, TheMeanTilesACircleSpansDecideTheBins) {
    const TileGrid g = make_tile_grid(1024, 1024, 16);
    EXPECT_NEAR(mean_tiles_per_circle(make_scene("rand1M", 0), g), 6.06, 0.01);   // >= kCoarseTiles: 4x4 bins
    EXPECT_NEAR(mean_tiles_per_circle(make_scene("micro2M", 0), g), 1.28, 0.01);  // < kRowCullTiles: strip masks
    EXPECT_NEAR(mean_tiles_per_circle(make_scene("biglittle", 0), g), 750.5, 0.1);
    EXPECT_EQ(mean_tiles_per_circle(Scene{}, g), 0.0);
    // one circle of radius 0.1 at the centre of 160x160 pixels: a box of 32x32 pixels, 3x3 tiles
    Scene one;
    one.x = {0.5f}, one.y = {0.5f}, one.z = {0.5f}, one.radius = {0.1f};
    one.r = one.g = one.b = one.vx = one.vy = one.vz = {0.f};
    EXPECT_EQ(mean_tiles_per_circle(one, make_tile_grid(160, 160, 16)), 9.0);
}

TEST(BinPlan, TheMeanCoverageOfAPixelDecidesTheEarlyStop) {
    // pi r^2 summed: one circle of radius 0.1 covers 3.14% of the picture
    Scene one;
    one.x = {0.5f}, one.y = {0.5f}, one.z = {0.5f}, one.radius = {0.1f};
    one.r = one.g = one.b = one.vx = one.vy = one.vz = {0.f};
    EXPECT_NEAR(mean_coverage(one), 0.0314159, 1e-6);
    EXPECT_EQ(mean_coverage(Scene{}), 0.0);
    EXPECT_NEAR(mean_coverage(make_scene("rand10k", 0)), 87.5, 0.1);    // < kCoalesceDepth (200): no early stop
    EXPECT_NEAR(mean_coverage(make_scene("rand1M", 0)), 423.8, 0.1);    // sampled (4096 of 1M; all: 422.0): early stop
    EXPECT_NEAR(mean_coverage(make_scene("rand100k", 0)), 878.0, 0.5);
    EXPECT_NEAR(mean_coverage(make_scene("micro2M", 0)), 6.3, 0.05);    // too shallow: no early stop
}

TEST(BinPlan, ForcedChoicesAndTheLimitsThatOverrideThem) {
    EXPECT_EQ(path_of("rand10k", KernelKind::Tiled, "bins=sort"), "counting sort, 4x4-tile bins, split");
    EXPECT_EQ(path_of("rand10k", KernelKind::Tiled, "bins=sort,count=off"), "sorted 4x4-tile bins, split");
    EXPECT_EQ(path_of("rand10k", KernelKind::Tiled, "bins=sort,count=off,split=off"), "sorted 4x4-tile bins");
    EXPECT_EQ(path_of("rand10k", KernelKind::Tiled, "coarse=1"), "sorted 1x1-tile bins");  // 10k x 4096 > 2^23; mean 55
    EXPECT_EQ(path_of("rgb", KernelKind::Tiled, "direct=0"), "bin.compact, 4x4-tile bins");
    EXPECT_EQ(path_of("micro2M", KernelKind::Tiled, "strips=off"), "counting sort, 1x1-tile bins; row culling");
    EXPECT_EQ(path_of("micro2M", KernelKind::Tiled, "stop=on"),
              "counting sort, 1x1-tile bins; strip masks; early stop, guessed start");
    EXPECT_EQ(path_of("snowsingle", KernelKind::Persistent, "stop=on"),
              "counting sort, 4x4-tile bins, split; early stop, guessed start");
    EXPECT_EQ(path_of("rand100k", KernelKind::Tiled, "stop=off"), "counting sort, 4x4-tile bins, split");
    EXPECT_EQ(path_of("rand100k", KernelKind::Tiled, "split=on"),
              "counting sort, 4x4-tile bins, split; early stop, guessed start");
    EXPECT_EQ(path_of("rand10k", KernelKind::Tiled, "stop=on"), "bin.compact, 4x4-tile bins; early stop");  // walk back
    EXPECT_EQ(path_of("rand100k", KernelKind::Tiled, "rows=8"), "counting sort, 4x4-tile bins, split");  // 16x16, rows=4 only
    EXPECT_EQ(path_of("rand100k", KernelKind::Tiled, "list=split"), "counting sort, 4x4-tile bins, split");
    EXPECT_EQ(path_of("rand100k", KernelKind::FrontToBack, "stop=on"), "counting sort, 4x4-tile bins");  // ftb: its own stop
    EXPECT_EQ(path_of("micro2M", KernelKind::FrontToBack, "strips=off"), "counting sort, 1x1-tile bins");  // not exact
    EXPECT_EQ(path_of("micro2M", KernelKind::Tiled, "rowcull=on"), "counting sort, 1x1-tile bins; row culling");
    EXPECT_EQ(path_of("micro2M", KernelKind::Tiled, "rows=8"), "counting sort, 1x1-tile bins");  // culling: rows=4 only
    EXPECT_EQ(path_of("micro2M", KernelKind::Tiled, "list=split"), "counting sort, 1x1-tile bins");
    EXPECT_EQ(path_of("rand1M", KernelKind::FrontToBack, "split=on"),
              "counting sort (staged place), 4x4-tile bins, split");  // split bins of 1 M circles: staged
    // a GPU whose blocks take fewer tiles: 2048x2048 has 16384 single tiles, the counting sort 4000
    EXPECT_EQ(path_of("micro2M", KernelKind::Tiled, "", 2048, 2048, 4000), "sorted 1x1-tile bins; strip masks");
    // 16384x16384 in 2x2 bins: 262144 bins, beyond the 65535 bin ids of bin.split's keys, so no split
    EXPECT_EQ(path_of("rand1M", KernelKind::Tiled, "coarse=2,count=off", 16384, 16384),
              "sorted 2x2-tile bins; early stop, guessed start");
    EXPECT_EQ(path_of("rand1M", KernelKind::Tiled, "coarse=2,count=off,stop=off", 16384, 16384), "sorted 2x2-tile bins");
}

TEST(BinPlan, TheGuessedStartRidesOnTheEarlyStop) {
    const BinPlan deep = plan_of("rand100k", KernelKind::Tiled, "start=guess");
    EXPECT_TRUE(deep.coalesce);
    EXPECT_TRUE(deep.guess);
    // kGuessHits circles a pixel at rand100k's sampled mean coverage (878.0, above): 45 / 878.0
    EXPECT_NEAR(deep.window_per_candidate, 45.0 / 878.0, 1e-4);
    EXPECT_EQ(planned_path(deep), "counting sort, 4x4-tile bins; early stop, guessed start");
    EXPECT_EQ(path_of("rand1M", KernelKind::Persistent, "start=guess,place=direct"),
              "counting sort, 4x4-tile bins, split; early stop, guessed start");
    // no early stop, no guess: a shallow scene, stop=off, ftb (its own stop)
    for (const BinPlan& p : {plan_of("rand10k", KernelKind::Tiled, "start=guess"),
                             plan_of("rand100k", KernelKind::Tiled, "start=guess,stop=off"),
                             plan_of("rand100k", KernelKind::FrontToBack, "start=guess,stop=on")}) {
        EXPECT_FALSE(p.guess);
        EXPECT_EQ(p.window_per_candidate, 0.0);
    }
    // auto: the guess on counted and sorted lists, the walk back on bin.compact's (measured, CudaOptions)
    EXPECT_TRUE(plan_of("rand100k", KernelKind::Tiled, "").guess);
    EXPECT_TRUE(plan_of("rand1M", KernelKind::Persistent, "").guess);
    EXPECT_FALSE(plan_of("biglittle", KernelKind::Tiled, "").guess);
    EXPECT_FALSE(plan_of("littlebig", KernelKind::Persistent, "").guess);
    EXPECT_TRUE(plan_of("biglittle", KernelKind::Tiled, "start=guess").guess);
    EXPECT_FALSE(plan_of("rand100k", KernelKind::Tiled, "start=walk").guess);
    EXPECT_THROW(parse_cuda_options("start=on"), std::invalid_argument);
    // window=N: N covering circles a pixel instead of kGuessHits
    EXPECT_NEAR(plan_of("rand100k", KernelKind::Tiled, "start=guess,window=1").window_per_candidate, 1.0 / 878.0, 1e-6);
    EXPECT_EQ(parse_cuda_options("window=1000").guess_hits, 1000);
    EXPECT_EQ(CudaOptions{}.guess_hits, 45);
    for (const char* bad : {"window=0", "window=1001", "window=4.5", "window="})
        EXPECT_THROW(parse_cuda_options(bad), std::invalid_argument) << bad;
    // gap=N: the walk back stops at gaps below 2^-N instead of 2^-32
    EXPECT_EQ(CudaOptions{}.walk_gap_bits, 32);
    EXPECT_EQ(parse_cuda_options("gap=1").walk_gap_bits, 1);
    EXPECT_EQ(parse_cuda_options("gap=4,gap=32").walk_gap_bits, 32);
    for (const char* bad : {"gap=0", "gap=33", "gap=-1", "gap="})
        EXPECT_THROW(parse_cuda_options(bad), std::invalid_argument) << bad;
}

TEST(BinPlan, TheRecordedOrderWhereItMeasuredFaster) {
    // plan_recorded_order: the persistent kernel always (order=auto); the
    // tiled kernel with the early stop on counted lists (rand100k, rand1M) but
    // not on bin.compact's (biglittle, littlebig), where littlebig measured
    // 7% slower with it; order=on and order=off override; tiled without the
    // early stop: no order
    const auto ordered = [](const char* scene, KernelKind k, const std::string& options = "", int w = 1024,
                            int h = 1024) {
        return plan_recorded_order(plan_of(scene, k, options, w, h), k, parse_cuda_options(options).order);
    };
    for (const char* scene : {"rand100k", "rand1M"}) {
        EXPECT_TRUE(ordered(scene, KernelKind::Tiled)) << scene;
        EXPECT_TRUE(ordered(scene, KernelKind::Persistent)) << scene;
        EXPECT_FALSE(ordered(scene, KernelKind::Tiled, "order=off")) << scene;
        EXPECT_FALSE(ordered(scene, KernelKind::FrontToBack)) << scene;  // ftb does not stop exactly
    }
    for (const char* scene : {"biglittle", "littlebig"}) {
        EXPECT_FALSE(ordered(scene, KernelKind::Tiled)) << scene;
        EXPECT_TRUE(ordered(scene, KernelKind::Tiled, "order=on")) << scene;
        EXPECT_TRUE(ordered(scene, KernelKind::Persistent)) << scene;
        EXPECT_FALSE(ordered(scene, KernelKind::Persistent, "order=off")) << scene;
    }
    // the GPU test of tiled's default (GpuCoalesce.TheRecordedOrderDrawsTheSameFloats) draws biglittle at
    // 257x129 with stop=on: bin.compact's lists there too, so tile order
    EXPECT_EQ(path_of("biglittle", KernelKind::Tiled, "stop=on,start=walk", 257, 129), "bin.compact, 4x4-tile bins; early stop");
    EXPECT_FALSE(ordered("biglittle", KernelKind::Tiled, "stop=on,start=walk", 257, 129));
    // counted lists with the early stop forced: rand10k's bins=sort
    EXPECT_TRUE(ordered("rand10k", KernelKind::Tiled, "stop=on,bins=sort"));
    EXPECT_FALSE(ordered("rand10k", KernelKind::Tiled));  // no early stop (coverage 87.5): the order is compiled out
    EXPECT_FALSE(ordered("snowsingle", KernelKind::Tiled));  // snow: no early stop by default
    // the persistent kernel without the early stop records its list lengths instead (rand10k, micro2M, snow)
    for (const char* scene : {"rand10k", "micro2M", "snowsingle", "pattern"}) {
        EXPECT_FALSE(plan_of(scene, KernelKind::Persistent).coalesce) << scene;
        EXPECT_TRUE(ordered(scene, KernelKind::Persistent)) << scene;
        EXPECT_TRUE(ordered(scene, KernelKind::Persistent, "order=on")) << scene;
        EXPECT_FALSE(ordered(scene, KernelKind::Persistent, "order=off")) << scene;
    }
    // only the counting sort's lists were measured with it: not the sorted bins, not the unbinned path
    EXPECT_FALSE(ordered("rand100k", KernelKind::Tiled, "count=off"));
    EXPECT_TRUE(plan_of("rand100k", KernelKind::Tiled, "count=off").coalesce);
    const BinPlan rgb = plan_of("rgb", KernelKind::Tiled, "stop=on,compact=0");
    EXPECT_TRUE(rgb.direct && rgb.count && rgb.coalesce);
    EXPECT_FALSE(ordered("rgb", KernelKind::Tiled, "stop=on,compact=0"));
    for (KernelKind k : {KernelKind::Naive, KernelKind::Unordered}) {  // they plan the early stop but do not shade tiles
        EXPECT_TRUE(plan_of("rand100k", k).coalesce);
        EXPECT_FALSE(ordered("rand100k", k));
    }
}

TEST(BinPlan, TheQuadLayoutAndTheReciprocalActWhereTheKernelsNeitherCullNorStop) {
    const char* both = "layout=quads,snowdiv=recip";
    const BinPlan snow = plan_of("snowsingle", KernelKind::Tiled, both);
    EXPECT_TRUE(snow.quads);
    EXPECT_TRUE(snow.snow_reciprocal);
    EXPECT_EQ(planned_path(snow), "counting sort, 4x4-tile bins, split; quad layout; reciprocal division");
    EXPECT_EQ(path_of("snowsingle", KernelKind::Persistent, "snowdiv=recip,layout=strips"),
              "counting sort, 4x4-tile bins, split; reciprocal division");
    EXPECT_EQ(path_of("snowsingle", KernelKind::Persistent, "layout=strips"), "counting sort, 4x4-tile bins, split");
    EXPECT_EQ(path_of("snowsingle", KernelKind::Tiled, "snowdiv=ieee"), "counting sort, 4x4-tile bins, split; quad layout");
    EXPECT_EQ(path_of("rgb", KernelKind::Tiled, both), "no binning; quad layout");  // flat: nothing to divide
    EXPECT_EQ(path_of("rand10k", KernelKind::Persistent, "layout=quads"), "bin.compact, 4x4-tile bins; quad layout");
    // culling keeps the strips (the snow scene's strip masks; micro2M's); the reciprocal rides along
    EXPECT_EQ(path_of("snow", KernelKind::Tiled, both), "counting sort, 1x1-tile bins; strip masks; reciprocal division");
    EXPECT_EQ(path_of("micro2M", KernelKind::Tiled, "layout=quads"), "counting sort, 1x1-tile bins; strip masks");
    // neither with the early stop (rand100k's), on ftb, or off the 16x16 tiles of 4 rows
    EXPECT_EQ(path_of("rand100k", KernelKind::Tiled, "layout=quads"),
              "counting sort, 4x4-tile bins; early stop, guessed start");
    EXPECT_EQ(path_of("rand100k", KernelKind::Tiled, "layout=quads,stop=off"),
              "counting sort, 4x4-tile bins, split; quad layout");
    for (const BinPlan& p : {plan_of("snowsingle", KernelKind::FrontToBack, both),
                             plan_of("snowsingle", KernelKind::Tiled, "layout=strips,snowdiv=ieee"),
                             plan_of("snowsingle", KernelKind::Tiled, "layout=quads,snowdiv=recip,rows=8"),
                             plan_of("snowsingle", KernelKind::Tiled, "layout=quads,snowdiv=recip,tile=8")}) {
        EXPECT_FALSE(p.quads);
        EXPECT_FALSE(p.snow_reciprocal);
    }
    // circle records: the exact kernels on flat scenes, every path (not snow: no color; not ftb)
    EXPECT_EQ(path_of("micro2M", KernelKind::Tiled, "gather=records"),
              "counting sort, 1x1-tile bins; strip masks; circle records");
    EXPECT_EQ(path_of("rand1M", KernelKind::Persistent, "gather=records,start=guess"),
              "counting sort (staged place), 4x4-tile bins, split; early stop, guessed start; circle records");
    EXPECT_EQ(path_of("rgb", KernelKind::Tiled, "gather=records,layout=quads"), "no binning; quad layout; circle records");
    EXPECT_EQ(path_of("snowsingle", KernelKind::Tiled, "gather=records"),
              "counting sort, 4x4-tile bins, split; quad layout; reciprocal division");
    EXPECT_EQ(path_of("micro2M", KernelKind::FrontToBack, "gather=records"), "counting sort, 1x1-tile bins; strip masks");
    EXPECT_EQ(path_of("micro2M", KernelKind::Tiled, "gather=records,rows=8"), "counting sort, 1x1-tile bins");
    EXPECT_EQ(CudaOptions{}.quad_layout, Choice::Auto);  // quads and the reciprocal: snow scenes (above)
    EXPECT_EQ(CudaOptions{}.snow_reciprocal, Choice::Auto);
}

TEST(BinPlan, EveryLaunchPicksACompiledKernel) {
    // shade_kernel_bits is the one choice launch and occupancy query share:
    // every combination of launch bits lands on a compiled kernel, and every
    // compiled kernel is reached (the reciprocal ones by snow only, the
    // records by flat scenes only)
    std::set<int> reached[2];
    const std::set<int> compiled(std::begin(kShadeKernelBits), std::end(kShadeKernelBits));
    for (int v = 0; v < 1024; ++v)
        for (bool snow : {false, true}) {
            const int bits = shade_kernel_bits(v, snow);
            EXPECT_EQ(compiled.count(bits), 1u) << v << " " << snow;
            EXPECT_FALSE(snow && (bits & kShadeRecords)) << v;
            EXPECT_FALSE(!snow && (bits & kShadeSnowReciprocal)) << v;
            reached[snow].insert(bits);
        }
    std::set<int> all(reached[0]);
    all.insert(reached[1].begin(), reached[1].end());
    EXPECT_EQ(all, compiled);
    EXPECT_EQ(reached[1].size(), 14u);  // 10 without and 4 with the reciprocal
    EXPECT_EQ(reached[0].size(), 20u);  // 10 without and 10 with records
    EXPECT_EQ(compiled.size(), 24u);
    // the rules: strips over row culling, culling over quads, the early stop over quads and the reciprocal
    EXPECT_EQ(shade_kernel_bits(kShadeStripMask | kShadeRowCull | kShadeQuads, true), kShadeStripMask);
    EXPECT_EQ(shade_kernel_bits(kShadeRowCull | kShadeQuads | kShadeSnowReciprocal, true),
              kShadeRowCull | kShadeSnowReciprocal);
    EXPECT_EQ(shade_kernel_bits(kShadeCoalesce | kShadeGuess | kShadeQuads | kShadeSnowReciprocal, true),
              kShadeCoalesce | kShadeGuess);
    EXPECT_EQ(shade_kernel_bits(kShadeGuess | kShadeQuads, false), kShadeQuads);  // no guess without the stop
    EXPECT_EQ(shade_kernel_bits(kShadeQuads | kShadeSnowReciprocal, false), kShadeQuads);
    EXPECT_EQ(shade_kernel_bits(kShadeSplitList | kShadeQuads, false), kShadeQuads);  // teaching bits: launched apart
    EXPECT_EQ(shade_kernel_bits(kShadeRecords | kShadeCoalesce | kShadeGuess | kShadeStripMask, false),
              kShadeRecords | kShadeCoalesce | kShadeGuess | kShadeStripMask);
    EXPECT_EQ(shade_kernel_bits(kShadeRecords | kShadeStripMask | kShadeSnowReciprocal, true),
              kShadeStripMask | kShadeSnowReciprocal);  // snow gathers no color
}

TEST(BinPlan, ALaunchCarriesThePlansBits) {
    // plan_shade_bits is what the renderer passes launch_shade_tiled and asks
    // the persistent kernel's occupancy for; shade_kernel_bits then picks the kernel
    const BinPlan micro = plan_of("micro2M", KernelKind::Tiled, "gather=records");
    EXPECT_EQ(plan_shade_bits(micro, true), kShadeStripMask | kShadeRecords);
    EXPECT_EQ(plan_shade_bits(micro, false), kShadeRecords);  // unbinned lists: no culling
    EXPECT_EQ(plan_cull_bits(micro), kShadeStripMask);
    const BinPlan deep = plan_of("rand1M", KernelKind::Persistent, "gather=records,start=guess");
    EXPECT_EQ(plan_shade_bits(deep, true), kShadeCoalesce | kShadeGuess | kShadeRecords);
    EXPECT_EQ(shade_kernel_bits(plan_shade_bits(deep, true), false), kShadeCoalesce | kShadeGuess | kShadeRecords);
    const BinPlan snow = plan_of("snowsingle", KernelKind::Tiled, "layout=quads,snowdiv=recip,gather=records");
    EXPECT_EQ(plan_shade_bits(snow, true), kShadeQuads | kShadeSnowReciprocal);  // no records on snow
    EXPECT_EQ(plan_shade_bits(plan_of("rand100k", KernelKind::Tiled, ""), true), kShadeCoalesce | kShadeGuess);
    EXPECT_EQ(plan_shade_bits(plan_of("biglittle", KernelKind::Tiled, ""), true), kShadeCoalesce);
    EXPECT_EQ(plan_shade_bits(plan_of("rand10k", KernelKind::Tiled, ""), true), 0);
    // the kernels without the tiled shape never get the switches
    for (KernelKind k : {KernelKind::Naive, KernelKind::Unordered, KernelKind::FrontToBack}) {
        const BinPlan p = plan_of("micro2M", k, "gather=records,layout=quads,strips=off,rowcull=off");
        EXPECT_FALSE(p.records);
        EXPECT_FALSE(p.quads);
    }
}

TEST(BinPlan, TheStagedPlaceActsOnlyWhereTheCountingSortRuns) {
    // place=staged is a way of writing bin.place's entries: every kernel
    // that bins by the counting sort takes it, and the path says so; where
    // no counting sort runs (bin.compact, the sorting stages, no binning)
    // there is nothing to stage. place=auto stages split bins of scenes of
    // kStagedPlaceCircles circles or more: rand1M's, not snowsingle's
    // (100,000, split), micro2M's (single tiles) or ftb's rand1M (4x4 bins,
    // not split).
    const TileGrid g = make_tile_grid(1024, 1024, 16);
    EXPECT_EQ(path_of("rand1M", KernelKind::Tiled, "place=staged"),
              "counting sort (staged place), 4x4-tile bins, split; early stop, guessed start");
    EXPECT_EQ(path_of("micro2M", KernelKind::FrontToBack, "place=staged"),
              "counting sort (staged place), 1x1-tile bins; strip masks");
    EXPECT_EQ(path_of("rand10k", KernelKind::Tiled, "place=staged"), "bin.compact, 4x4-tile bins");
    EXPECT_EQ(path_of("rgb", KernelKind::Tiled, "place=staged"), "no binning");
    EXPECT_EQ(path_of("rand1M", KernelKind::Tiled, "coarse=2,count=off,stop=off,place=staged", 16384, 16384),
              "sorted 2x2-tile bins");
    EXPECT_TRUE(plan_of("rand1M", KernelKind::Persistent, "place=staged").staged_place);
    EXPECT_FALSE(plan_of("rand1M", KernelKind::Persistent, "place=direct").staged_place);
    EXPECT_TRUE(plan_of("rand1M", KernelKind::Persistent, "").staged_place);
    EXPECT_TRUE(plan_of("rand1M", KernelKind::Tiled, "").staged_place);
    EXPECT_FALSE(plan_of("rand1M", KernelKind::FrontToBack, "").staged_place);
    EXPECT_FALSE(plan_of("snowsingle", KernelKind::Tiled, "").staged_place);
    EXPECT_FALSE(plan_of("micro2M", KernelKind::Tiled, "").staged_place);
    EXPECT_FALSE(plan_of("rand100k", KernelKind::Tiled, "stop=off").staged_place);  // split, 100,000 circles
    EXPECT_EQ(kStagedPlaceCircles, 800000.0);
    // a GPU that gives a block less shared memory (sm_86 and sm_89: 3256 bins staged, 7072 direct) stages
    // rand1M's 256 bins but not micro2M's 4096 tiles, which it still counts
    const CudaOptions staged = parse_cuda_options("place=staged");
    const BinPlan micro = plan_binning(make_scene("micro2M", 0), g, KernelKind::Tiled, staged, 7072, true, 3256);
    EXPECT_TRUE(micro.count);
    EXPECT_FALSE(micro.staged_place);
    EXPECT_EQ(planned_path(micro), "counting sort, 1x1-tile bins; strip masks");
    EXPECT_TRUE(plan_binning(make_scene("rand1M", 0), g, KernelKind::Tiled, staged, 7072, true, 3256).staged_place);
    BinPlan p;
    p.coarse = 4;
    p.count = p.split = p.staged_place = true;
    EXPECT_EQ(describe_path(p, true, false), "sorted 4x4-tile bins, split");  // a frame past one batch: no bin.place
}

TEST(BinPlan, AFrameThatLeftTheCountingSortSaysSo) {
    BinPlan p;
    p.coarse = 4;
    p.count = true;
    p.split = true;
    EXPECT_EQ(describe_path(p, true, true), "counting sort, 4x4-tile bins, split");
    EXPECT_EQ(describe_path(p, true, false), "sorted 4x4-tile bins, split");  // more entries than one batch
    EXPECT_EQ(describe_path(p, false, false), "no binning");
}

TEST(CudaOptionsTable, EveryKeyTakesEachValueItLists) {
    size_t words = 0;
    for (const CudaOptionKey& k : cuda_option_keys()) {
        const std::string values = k.values;
        if (values.find_first_of(".>") != std::string::npos) continue;  // numbers: below
        for (size_t a = 0; a <= values.size();) {
            size_t b = values.find('|', a);
            if (b == std::string::npos) b = values.size();
            const std::string item = std::string(k.key) + "=" + values.substr(a, b - a);
            EXPECT_NO_THROW(parse_cuda_options(item)) << item;
            ++words;
            a = b + 1;
        }
    }
    EXPECT_EQ(words, 53u);
    EXPECT_EQ(cuda_option_keys().size(), 27u);
}

TEST(CudaOptionsTable, ValuesLandInTheirFields) {
    const CudaOptions o = parse_cuda_options(
        "tile=8,direct=0,batch=100000,memlimit_mib=64,fill=thread,spec=tight,coarse=2,bins=sort,compact=5,"
        "rowcull=on,strips=off,split=off,count=on,order=off,chunks=32,stop=off,start=guess");
    EXPECT_EQ(o.tile_size, 8);
    EXPECT_EQ(o.direct_limit, 0);
    EXPECT_EQ(o.max_pairs_per_batch, 100000);
    EXPECT_EQ(o.memory_limit, size_t(64) << 20);
    EXPECT_TRUE(o.fill_per_thread);
    EXPECT_EQ(o.speculation, Speculation::Tight);
    EXPECT_EQ(o.coarse, 2);
    EXPECT_FALSE(o.allow_compact);
    EXPECT_EQ(o.compact_limit, 5);
    EXPECT_EQ(o.row_cull, Choice::On);
    EXPECT_EQ(o.strips, Choice::Off);
    EXPECT_EQ(o.split, Choice::Off);
    EXPECT_EQ(o.counting, Choice::On);
    EXPECT_EQ(o.order, Choice::Off);
    EXPECT_EQ(o.count_chunks_per_sm, 32);
    EXPECT_EQ(o.coalesce, Choice::Off);
    EXPECT_EQ(o.guess_start, Choice::On);
    EXPECT_EQ(parse_cuda_options("start=guess,start=walk").guess_start, Choice::Off);
    EXPECT_EQ(parse_cuda_options("start=walk,start=auto").guess_start, Choice::Auto);
    EXPECT_EQ(parse_cuda_options("layout=quads").quad_layout, Choice::On);
    EXPECT_EQ(parse_cuda_options("layout=quads,layout=strips").quad_layout, Choice::Off);
    EXPECT_EQ(parse_cuda_options("snowdiv=recip").snow_reciprocal, Choice::On);
    EXPECT_TRUE(parse_cuda_options("gather=records").circle_records);
    EXPECT_FALSE(parse_cuda_options("gather=records,gather=arrays").circle_records);
    EXPECT_FALSE(CudaOptions{}.circle_records);
    EXPECT_EQ(parse_cuda_options("snowdiv=recip,snowdiv=ieee").snow_reciprocal, Choice::Off);
    EXPECT_EQ(parse_cuda_options("scan=shuffle").shade_variant, kShadeShuffleScan);
    EXPECT_EQ(parse_cuda_options("list=split,list=records").shade_variant, 0);
    EXPECT_EQ(parse_cuda_options("coarse=4").coarse, 4);
    EXPECT_EQ(parse_cuda_options("rows=8").rows_per_thread, 8);
    EXPECT_EQ(parse_cuda_options("spec=on").speculation, Speculation::Slack);
}

/// The message parse_cuda_options throws for `text`, or "" when it takes it.
std::string refusal(const std::string& text) {
    try {
        parse_cuda_options(text);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(CudaOptionsTable, ABadItemIsNamedWithWhatItTakes) {
    EXPECT_EQ(refusal("tile=12"), "CR_CUDA_OPTIONS: 'tile=12': tile takes 8|16");
    EXPECT_EQ(refusal("chunks=33"), "CR_CUDA_OPTIONS: 'chunks=33': chunks takes 1..32");
    EXPECT_EQ(refusal("batch=0"), "CR_CUDA_OPTIONS: 'batch=0': batch takes 1..2^30");
    EXPECT_EQ(refusal("order=heavy"), "CR_CUDA_OPTIONS: 'order=heavy': order takes auto|on|off");
    EXPECT_EQ(refusal("coarse"), "CR_CUDA_OPTIONS: 'coarse' is not key=value");
    const std::string unknown = refusal("tiles=8");
    EXPECT_EQ(unknown.rfind("CR_CUDA_OPTIONS: unknown key in 'tiles=8' (tile=8|16, rows=4|8, direct=N>=0,", 0), 0u) << unknown;
    EXPECT_NE(unknown.find("chunks=1..32)"), std::string::npos) << unknown;
    EXPECT_EQ(refusal(",,coarse=1,"), "");  // empty items are skipped
}

/// The message validate_cuda_options throws for `options` on `kind`, or "".
std::string validation(KernelKind kind, const std::string& options) {
    try {
        validate_cuda_options(kind, parse_cuda_options(options));
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(CudaOptionsTable, WhatAKernelCannotRunIsRefusedBeforeItsFirstFrame) {
    EXPECT_EQ(validation(KernelKind::FrontToBack, "tile=8"), "CR_CUDA_OPTIONS tile=8: the ftb kernel works on 16x16 tiles only");
    EXPECT_EQ(validation(KernelKind::Persistent, "list=split"),
              "CR_CUDA_OPTIONS list=split is a lesson of the tiled kernel only (not of persistent)");
    EXPECT_EQ(validation(KernelKind::Tiled, "cull=warp,tile=8"),
              "CR_CUDA_OPTIONS cull=warp needs the tiled kernel's 16x16 tiles and rows=4");
    EXPECT_EQ(validation(KernelKind::Tiled, "scan=shuffle,rows=8"),
              "CR_CUDA_OPTIONS scan=shuffle needs the tiled kernel's 16x16 tiles and rows=4");
    EXPECT_EQ(validation(KernelKind::Tiled, "tile=8,rows=8"),
              "CR_CUDA_OPTIONS rows=8 needs tile=16 (an 8x8 tile is one warp of 2 rows a thread)");
    EXPECT_EQ(validation(KernelKind::Tiled, "stop=on,rows=8"),
              "CR_CUDA_OPTIONS stop=on: exact early stopping needs 16x16 tiles, rows=4 and no teaching variant");
    EXPECT_EQ(validation(KernelKind::Tiled, "stop=on,list=split"),
              "CR_CUDA_OPTIONS stop=on: exact early stopping needs 16x16 tiles, rows=4 and no teaching variant");
    EXPECT_EQ(validation(KernelKind::Persistent, "stop=on"), "");
    EXPECT_EQ(validation(KernelKind::Tiled, "stop=auto,rows=8"), "");  // auto: planned only where it can run
    // what runs: the lessons on tiled, tile=8 on the exact kernels, switches a kernel does not use
    EXPECT_EQ(validation(KernelKind::Tiled, "list=split"), "");
    EXPECT_EQ(validation(KernelKind::Persistent, "tile=8"), "");
    EXPECT_EQ(validation(KernelKind::FrontToBack, "list=split"), "");  // ftb has no lessons: unused
    EXPECT_EQ(validation(KernelKind::Naive, "tile=8,list=split"), "");
    EXPECT_EQ(validation(KernelKind::Persistent, "order=off,rows=8"), "");
    // the quad layout and the reciprocal: the exact kernels' default shape, no early stop; quads: no culling
    EXPECT_EQ(validation(KernelKind::Tiled, "layout=quads,rows=8"),
              "CR_CUDA_OPTIONS layout=quads needs 16x16 tiles, rows=4 and no teaching variant");
    EXPECT_EQ(validation(KernelKind::Persistent, "snowdiv=recip,tile=8"),
              "CR_CUDA_OPTIONS snowdiv=recip needs 16x16 tiles, rows=4 and no teaching variant");
    EXPECT_EQ(validation(KernelKind::Tiled, "snowdiv=recip,list=split"),
              "CR_CUDA_OPTIONS snowdiv=recip needs 16x16 tiles, rows=4 and no teaching variant");
    EXPECT_EQ(validation(KernelKind::Tiled, "snowdiv=recip,stop=on"),
              "CR_CUDA_OPTIONS snowdiv=recip and stop=on: the early stop keeps the strips layout and the IEEE division");
    EXPECT_EQ(validation(KernelKind::Persistent, "layout=quads,strips=on"),
              "CR_CUDA_OPTIONS layout=quads with strips=on or rowcull=on: culling walks the strips layout");
    EXPECT_EQ(validation(KernelKind::Tiled, "layout=quads,rowcull=on"),
              "CR_CUDA_OPTIONS layout=quads with strips=on or rowcull=on: culling walks the strips layout");
    EXPECT_EQ(validation(KernelKind::Tiled, "layout=quads,snowdiv=recip"), "");
    EXPECT_EQ(validation(KernelKind::Tiled, "snowdiv=recip,strips=on"), "");  // the reciprocal culls too
    EXPECT_EQ(validation(KernelKind::FrontToBack, "layout=quads,stop=on,rows=8"), "");  // ftb: unused
    EXPECT_EQ(validation(KernelKind::Naive, "snowdiv=recip,tile=8"), "");
    // circle records: the same shape, with or without the early stop and culling
    EXPECT_EQ(validation(KernelKind::Tiled, "gather=records,tile=8"),
              "CR_CUDA_OPTIONS gather=records needs 16x16 tiles, rows=4 and no teaching variant");
    EXPECT_EQ(validation(KernelKind::Persistent, "gather=records,rows=8"),
              "CR_CUDA_OPTIONS gather=records needs 16x16 tiles, rows=4 and no teaching variant");
    EXPECT_EQ(validation(KernelKind::Tiled, "gather=records,stop=on,strips=on"), "");
    EXPECT_EQ(validation(KernelKind::FrontToBack, "gather=records,rows=8"), "");  // ftb: unused
}

TEST(CudaOptionsTable, TheDocsAndTheHelpAreMadeFromIt) {
    std::ifstream in(std::string(CR_SOURCE_DIR) + "/docs/KERNELS.md");
    const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string begin = "<!-- cuda-options: made from kernels/cuda_options.cpp; tests/test_bin_plan.cpp checks it -->\n";
    const size_t at = doc.find(begin);
    ASSERT_NE(at, std::string::npos) << "docs/KERNELS.md lacks the table of CR_CUDA_OPTIONS";
    const size_t end = doc.find("<!-- /cuda-options -->", at);
    ASSERT_NE(end, std::string::npos);
    EXPECT_EQ(doc.substr(at + begin.size(), end - at - begin.size()), cuda_options_markdown())
        << "docs/KERNELS.md's table is out of date; it should read:\n" << cuda_options_markdown();
    const std::string help = cuda_options_help();
    for (const CudaOptionKey& k : cuda_option_keys())
        EXPECT_NE(help.find("  " + std::string(k.key) + "=" + k.values + " "), std::string::npos) << k.key;
    EXPECT_NE(help.find("  chunks=1..32              the counting sort's blocks per multiprocessor [tiled, persistent, ftb]\n"),
              std::string::npos) << help;
}

// PairSpeculation: the next frame's capacity is the total, twice its growth,
// 1/64 of it and 1024 pairs (hand-computed); none past the batch limit.
TEST(PairSpeculation, CapacityFollowsTheTotalWithSlackForGrowth) {
    PairSpeculation p;
    p.reset(Speculation::Slack, 1ull << 26);
    EXPECT_EQ(p.capacity(), 0u);  // the first frame waits for its total
    p.note_total(100000);
    EXPECT_EQ(p.capacity(), 100000u + 1562u + 1024u);  // no growth before the first frame
    EXPECT_EQ(p.last_total(), 100000u);
    p.note_total(110000);
    EXPECT_EQ(p.capacity(), 110000u + 2 * 10000u + 1718u + 1024u);
    p.note_total(105000);  // shrinking: no growth term
    EXPECT_EQ(p.capacity(), 105000u + 1640u + 1024u);
    p.note_total(0);
    EXPECT_EQ(p.capacity(), 1024u);
    p.missed();
    p.missed();
    EXPECT_EQ(p.misses(), 2);
    p.reset(Speculation::Slack, 1ull << 26);  // a new setup forgets it all
    EXPECT_EQ(p.capacity(), 0u);
    EXPECT_EQ(p.last_total(), 0u);
    EXPECT_EQ(p.misses(), 0);
}

TEST(PairSpeculation, TightOffAndTheBatchLimit) {
    PairSpeculation p;
    p.reset(Speculation::Tight, 1ull << 26);
    p.note_total(5000);
    EXPECT_EQ(p.capacity(), 5000u);
    p.note_total(0);
    EXPECT_EQ(p.capacity(), 0u);  // room for nothing is no speculation
    p.reset(Speculation::Off, 1ull << 26);
    p.note_total(5000);
    EXPECT_EQ(p.capacity(), 0u);
    EXPECT_EQ(p.last_total(), 5000u);
    p.reset(Speculation::Slack, 11180);
    p.note_total(10000);  // 10000 + 156 + 1024 = 11180: exactly the limit still fits
    EXPECT_EQ(p.capacity(), 11180u);
    p.reset(Speculation::Slack, 1ull << 26);
    p.note_total(0);  // a frame of no pairs: capacity 1024, last total 0
    EXPECT_EQ(p.capacity(), 1024u);
    p.note_total(6400);  // it counts as a frame before: its growth, 6400, is counted twice
    EXPECT_EQ(p.capacity(), 6400u + 2 * 6400u + 100u + 1024u);
    p.reset(Speculation::Slack, 50000);
    p.note_total(49000);  // 49000 + 765 + 1024 > 50000: the next frame would need batches
    EXPECT_EQ(p.capacity(), 0u);
    p.note_total(40000);
    EXPECT_EQ(p.capacity(), 40000u + 625u + 1024u);
}

TEST(PairBatches, BatchLimitDividesBySplitTiles) {
    BinPlan plan;
    EXPECT_EQ(pair_batch_limit(plan, 1ll << 26), 1ull << 26);
    plan.coarse = 4;
    EXPECT_EQ(pair_batch_limit(plan, 1ll << 26), 1ull << 26);  // no split: one entry a pair
    plan.split = true;
    EXPECT_EQ(pair_batch_limit(plan, 1ll << 26), (1ull << 26) / 16);
    EXPECT_EQ(pair_batch_limit(plan, 10), 1u);  // never 0
}

TEST(PairBatches, CutInInputOrderAtMostCapEach) {
    // five circles of 3, 2, 4, 1 and 2 pairs (12 in all)
    const std::vector<unsigned long long> off = {0, 3, 5, 9, 10};
    const auto same = [](const PairBatch& b, int64_t begin, int64_t end, unsigned long long base,
                         unsigned long long pairs) {
        return b.begin == begin && b.end == end && b.base == base && b.pairs == pairs && !b.speculative;
    };
    std::vector<PairBatch> b = cut_pair_batches(off, 12, 6);
    ASSERT_EQ(b.size(), 3u);
    EXPECT_TRUE(same(b[0], 0, 2, 0, 5));
    EXPECT_TRUE(same(b[1], 2, 4, 5, 5));
    EXPECT_TRUE(same(b[2], 4, 5, 10, 2));
    b = cut_pair_batches(off, 12, 5);  // batches of exactly cap pairs are allowed
    ASSERT_EQ(b.size(), 3u);
    EXPECT_TRUE(same(b[0], 0, 2, 0, 5));
    EXPECT_TRUE(same(b[1], 2, 4, 5, 5));
    EXPECT_TRUE(same(b[2], 4, 5, 10, 2));
    b = cut_pair_batches(off, 12, 12);  // fits: one batch
    ASSERT_EQ(b.size(), 1u);
    EXPECT_TRUE(same(b[0], 0, 5, 0, 12));
    b = cut_pair_batches({0, 8, 9}, 10, 6);  // a circle above cap is a batch of its own
    ASSERT_EQ(b.size(), 2u);
    EXPECT_TRUE(same(b[0], 0, 1, 0, 8));
    EXPECT_TRUE(same(b[1], 1, 3, 8, 2));
}

}  // namespace
}  // namespace cr

namespace cr {
namespace {

TEST(RecordedOrder, FourGroupsOfWorkEachInTileOrder) {
    // By hand: 8 tiles of total work 240, mean 30. Above 45 (1.5 x): tiles
    // 2 (50) and 5 (60); above 37.5: tile 0 (40); above 30: tile 3 (33);
    // then the rest (27 is not above the mean).
    EXPECT_EQ(recorded_order_groups({40, 10, 50, 33, 0, 60, 20, 27}), (std::vector<int>{2, 5, 0, 3, 1, 4, 6, 7}));
    // At a bound is not above it: mean 2 of {3, 1, 2, 2}: 3 is 1.5 x the
    // mean exactly (group 1: above 1.25 x), the 2s are at the mean (group 3).
    EXPECT_EQ(work_group(3, 4, 8), 1);
    EXPECT_EQ(work_group(2, 4, 8), 3);
    EXPECT_EQ(recorded_order_groups({3, 1, 2, 2}), (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(recorded_order_groups({1, 0, 0, 3}), (std::vector<int>{3, 0, 1, 2}));
    EXPECT_EQ(recorded_order_groups({0, 0, 0}), (std::vector<int>{0, 1, 2}));  // nothing recorded: tile order
    EXPECT_TRUE(recorded_order_groups({}).empty());
    // The largest inputs the kernel takes: no overflow (2^20 - 1 tiles of 2^32 - 1).
    EXPECT_EQ(work_group(0xFFFFFFFFu, (1 << 20) - 1, 0xFFFFFFFFull * ((1 << 20) - 1)), 3);
    EXPECT_EQ(work_group(0xFFFFFFFFu, (1 << 20) - 1, 0xFFFFFFFFull * ((1 << 19))), 0);
}

}  // namespace
}  // namespace cr
