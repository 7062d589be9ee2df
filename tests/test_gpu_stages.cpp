// Single stages of the CUDA renderer against host computations (label `gpu`;
// skipped where no CUDA device exists): the block scan in a test kernel, and
// the bin stage's per-tile lists against a host binning; the stage timeline.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/bin_plan.h"
#include "kernels/cuda_renderer.h"
#include "kernels/device_buffer.h"
#include "kernels/stage_timeline.h"
#include "kernels/testing.h"
#include "tests/gpu_skip.h"
#include "render/core/tile_math.h"
#include "render/renderer_factory.h"
#include "scenes/scene.h"

namespace cr {
namespace {

/// Runs kernels/block_scan.cuh's scan (`flags`: the scan of bits) on 40
/// blocks of each size and compares every prefix and total with
/// std::exclusive_scan. Block b holds values of kind b % kinds: random 0/1,
/// sparse 0/1, all 1, all 0, and (kind 4) counts up to 999.
void expect_block_scans_match(bool flags, uint32_t seed, int kinds) {
    std::mt19937 rng(seed);
    for (int threads : {32, 64, 256, 1024}) {
        const int blocks = 40;
        std::vector<int> v(static_cast<size_t>(threads) * blocks);
        for (size_t i = 0; i < v.size(); ++i) {
            const int kind = static_cast<int>(i / threads) % kinds;
            v[i] = kind == 0 ? static_cast<int>(rng() % 2) : kind == 1 ? (rng() % 10 == 0) : kind == 2 ? 1
                 : kind == 3 ? 0 : static_cast<int>(rng() % 1000);
        }
        std::vector<int> totals;
        const std::vector<int> got = gpu_block_exclusive_scan(v, threads, totals, flags);
        for (int b = 0; b < blocks; ++b) {
            std::vector<int> want(threads);
            std::exclusive_scan(v.begin() + b * threads, v.begin() + (b + 1) * threads, want.begin(), 0);
            ASSERT_EQ(std::vector<int>(got.begin() + b * threads, got.begin() + (b + 1) * threads), want)
                << threads << " threads, block " << b;
            ASSERT_EQ(totals[b], std::accumulate(v.begin() + b * threads, v.begin() + (b + 1) * threads, 0));
        }
    }
}

TEST(GpuBlockScan, MatchesExclusiveScanForEveryBlockSize) {
    REQUIRE_GPU();
    expect_block_scans_match(false, 777u, 5);
}

TEST(GpuBlockScan, FlagScanMatchesForEveryBlockSize) {
    REQUIRE_GPU();
    // The ballot-and-popcount scan the shading kernels compact with.
    expect_block_scans_match(true, 4242u, 4);
    std::vector<int> totals;
    EXPECT_THROW(gpu_block_exclusive_scan(std::vector<int>(32, 2), 32, totals, true), std::invalid_argument);
}

TEST(GpuBlockScan, EightFlagsHandExample) {
    REQUIRE_GPU();
    // Flags of the first 8 threads of a 32-thread block (docs/KERNELS.md's
    // compaction example): hits at 1, 2, 5 and 7 land at positions 0..3.
    std::vector<int> v(32, 0);
    for (int i : {1, 2, 5, 7}) v[i] = 1;
    std::vector<int> totals;
    const std::vector<int> got = gpu_block_exclusive_scan(v, 32, totals);
    const std::vector<int> want = {0, 0, 1, 2, 2, 2, 3, 3, 4};
    EXPECT_EQ(std::vector<int>(got.begin(), got.begin() + 9), want);
    EXPECT_EQ(totals[0], 4);
}

/// Host binning: for every circle in input order, every tile its bounding
/// box overlaps (the conservative test bin.count and bin.fill use).
std::vector<std::vector<int>> host_bins(const Scene& s, int w, int h, int tile) {
    const TileGrid g = make_tile_grid(w, h, tile);
    std::vector<std::vector<int>> lists(static_cast<size_t>(g.tile_count()));
    for (size_t k = 0; k < s.count(); ++k) {
        const TileRange r = tiles_of_box(circle_pixel_box(s.x[k], s.y[k], s.radius[k], w, h), tile);
        for (int ty = r.ty0; ty < r.ty1; ++ty)
            for (int tx = r.tx0; tx < r.tx1; ++tx) lists[ty * g.tiles_x + tx].push_back(static_cast<int>(k));
    }
    return lists;
}

/// Every run of `gpu` equals the host list of its bin (or tile), in input
/// order; `what` names the case.
void expect_runs_equal(const BinListing& gpu, const std::vector<std::vector<int>>& want, const std::string& what) {
    ASSERT_EQ(gpu.start.size(), want.size()) << what;
    for (size_t t = 0; t < want.size(); ++t) {
        ASSERT_LE(gpu.start[t], gpu.end[t]) << what << " bin " << t;
        ASSERT_LE(gpu.end[t], gpu.list.size()) << what << " bin " << t;
        const std::vector<int> got(gpu.list.begin() + gpu.start[t], gpu.list.begin() + gpu.end[t]);
        ASSERT_EQ(got, want[t]) << what << " bin " << t;
    }
}

void expect_bins_match(const Scene& s, int w, int h, int tile) {
    const BinListing gpu = gpu_bin_lists(s, w, h, tile);
    const auto want = host_bins(s, w, h, tile);
    expect_runs_equal(gpu, want, s.name + " " + std::to_string(w) + "x" + std::to_string(h));
    size_t pairs = 0;
    for (const auto& l : want) pairs += l.size();
    EXPECT_EQ(gpu.list.size(), pairs);  // no entry outside the runs
}

TEST(GpuBinStage, ListsEqualHostBinning) {
    REQUIRE_GPU();
    expect_bins_match(make_scene("rand10k", 3), 257, 129, 16);
    expect_bins_match(make_scene("biglittle", 0), 1000, 600, 16);
    expect_bins_match(make_scene("pattern", 0), 512, 512, 8);
    expect_bins_match(make_scene("rgb", 0), 1, 1, 16);
}

TEST(GpuBinStage, CompactAndSplitListsEqualHostBinning) {
    REQUIRE_GPU();
    // bin.compact lists each bin's circles exactly (no extra or repeated
    // entry, which the shading's exact test would hide), and bin.split gives
    // each tile exactly the circles whose box overlaps it, both in order,
    // after the sorting stages and after the counting sort on the same bins.
    struct Case {
        const char* scene;
        int w, h;
        bool compact;  // micro2M: bins x 2 M circles would be gigabytes of lists
    };
    for (const Case& k : {Case{"rand10k", 257, 129, true}, Case{"biglittle", 1000, 600, true},
                          Case{"pattern", 512, 512, true}, Case{"micro2M", 300, 200, false}, Case{"rgb", 1, 1, true}}) {
        const Scene s = make_scene(k.scene, 1);
        const std::string what = std::string(k.scene) + " " + std::to_string(k.w) + "x" + std::to_string(k.h);
        for (int coarse : {1, 4})
            if (k.compact)
                expect_runs_equal(gpu_bin_lists(s, k.w, k.h, 16, coarse, BinPath::Compact),
                                  host_bins(s, k.w, k.h, 16 * coarse), what + " compact, bins of " + std::to_string(coarse));
        for (int coarse : {2, 4}) {
            const std::string bins = " bins of " + std::to_string(coarse);
            expect_runs_equal(gpu_bin_lists(s, k.w, k.h, 16, coarse, BinPath::Sorted), host_bins(s, k.w, k.h, 16 * coarse),
                              what + " sorted" + bins);
            expect_runs_equal(gpu_bin_lists(s, k.w, k.h, 16, coarse, BinPath::SortedSplit), host_bins(s, k.w, k.h, 16),
                              what + " split from" + bins);
            for (int chunks : {1, 32})  // the counting sort's bins and keys, split; bin.place direct and staged
                for (bool staged : {false, true})
                    expect_runs_equal(gpu_bin_lists(s, k.w, k.h, 16, coarse, BinPath::CountedSplit, chunks, staged),
                                      host_bins(s, k.w, k.h, 16),
                                      what + " counted and split from" + bins + ", " + std::to_string(chunks) +
                                          " chunks an SM" + (staged ? ", staged" : ""));
        }
    }
}

TEST(GpuBinStage, CountedListsEqualHostBinning) {
    REQUIRE_GPU();
    // The counting sort (bin.count, bin.scan, bin.place) gives
    // each tile exactly the circles whose box overlaps it, in input order,
    // however the circles are cut into chunks: 1 chunk per multiprocessor
    // (long chunks), 32 (chunks of a few rounds; at most one per 1024
    // circles). micro2M on 300x200 puts ~8000 circles on each of 247 tiles
    // (every window ranks long groups of one tile), biglittle's large
    // circles are counted by whole warps, pattern on 8x8 tiles has 4096
    // tiles, rand1M at 1024x1024 5.6 M entries on 4096 tiles. bin.place
    // direct and staged (through shared memory in tile order, in batches
    // of 2048 entries: biglittle's rounds take many) give the same lists.
    struct Case {
        const char* scene;
        int w, h, tile;
    };
    for (const Case& k : {Case{"rand10k", 257, 129, 16}, Case{"biglittle", 1000, 600, 16}, Case{"pattern", 512, 512, 8},
                          Case{"micro2M", 300, 200, 16}, Case{"rgb", 1, 1, 16}, Case{"rand1M", 1024, 1024, 16}})
        for (int chunks : {1, 4, 32})
        for (bool staged : {false, true}) {
            const Scene s = make_scene(k.scene, 5);
            const auto want = host_bins(s, k.w, k.h, k.tile);
            const BinListing gpu = gpu_bin_lists(s, k.w, k.h, k.tile, 1, BinPath::Counted, chunks, staged);
            const std::string what = std::string(k.scene) + " " + std::to_string(k.w) + "x" + std::to_string(k.h) +
                                     " counted, " + std::to_string(chunks) + " chunks an SM" + (staged ? ", staged" : "");
            expect_runs_equal(gpu, want, what);
            size_t pairs = 0;
            for (const auto& l : want) pairs += l.size();
            EXPECT_EQ(gpu.list.size(), pairs) << what;  // the device total: no entry outside the runs
            if (!want.empty()) {
                EXPECT_EQ(gpu.start[0], 0u) << what;
            }
        }
    EXPECT_THROW(gpu_bin_lists(make_scene("rgb", 0), 64, 64, 16, 2, BinPath::Counted), std::invalid_argument);
    EXPECT_THROW(gpu_bin_lists(make_scene("rgb", 0), 64, 64, 16, 1, BinPath::CountedSplit), std::invalid_argument);
}

TEST(GpuBinStage, CountedListsAtTheTileLimit) {
    REQUIRE_GPU();
    // 2048x1024 on 16-pixel tiles: 8192 tiles, kMaxCountTiles, where
    // bin.place holds 96 KiB of counters and positions in shared memory
    // (GPUs that give a block less cannot take it: count_tile_limit); one
    // tile more is refused.
    const int limit = gpu_count_tile_limit();
    EXPECT_LE(limit, 8192);
    EXPECT_THROW(gpu_bin_lists(make_scene("rgb", 0), 16 * (limit + 1), 16, 16, 1, BinPath::Counted),
                 std::invalid_argument);
    if (limit < 8192) GTEST_SKIP() << "this GPU's counting sort takes " << limit << " tiles";
    const Scene s = make_scene("micro2M", 6);
    const auto want = host_bins(s, 2048, 1024, 16);
    const bool staged_fits = gpu_count_tile_limit(true) >= 8192;  // staged: 4 bytes more a tile, 32 KiB more a block
    for (int chunks : {1, 3})
        for (bool staged : {false, true}) {
            if (staged && !staged_fits) continue;  // the H100 and H200 take 8192 tiles staged too
            const BinListing gpu = gpu_bin_lists(s, 2048, 1024, 16, 1, BinPath::Counted, chunks, staged);
            expect_runs_equal(gpu, want, "micro2M 2048x1024 counted, " + std::to_string(chunks) + " chunks an SM" +
                                             (staged ? ", staged" : ""));
        }
}

TEST(GpuBinStage, PlacedEntriesStopAtTheCapacity) {
    REQUIRE_GPU();
    // A frame whose entries exceed the list's capacity (speculation's short
    // guess) must write exactly the entries below the capacity, the same
    // as with room for all, and nothing at or past it: direct and staged,
    // circle lists (single tiles) and (circle, mask) pairs (4x4 bins), cut
    // at 0, a third, 0.9 and 1 of the total. biglittle's rounds hold many
    // staged batches; rand10k's few entries a round one.
    for (const char* name : {"rand10k", "biglittle"})
        for (int coarse : {1, 4})
            for (bool staged : {false, true})
                for (double cut : {0.0, 1.0 / 3.0, 0.9, 1.0}) {
                    const PlacedTwice p = gpu_place_twice(make_scene(name, 2), 1000, 600, coarse, 4, staged, cut);
                    const std::string what = std::string(name) + " bins of " + std::to_string(coarse) +
                                             (staged ? ", staged" : ", direct") + ", cut at " + std::to_string(p.cut);
                    ASSERT_GT(p.total, 1000u) << what;
                    const size_t per = coarse > 1 ? 2 : 1, at = size_t(p.cut) * per;
                    ASSERT_EQ(p.full.size(), size_t(p.total) * per) << what;
                    ASSERT_EQ(p.cut_list.size(), p.full.size()) << what;
                    for (size_t w = 0; w < p.full.size(); ++w) {
                        ASSERT_NE(p.full[w], 0xFFFFFFFFu) << what << " word " << w;  // every entry written
                        ASSERT_EQ(p.cut_list[w], w < at ? p.full[w] : 0xFFFFFFFFu) << what << " word " << w;
                    }
                }
}

/// Tile ids by key, largest first, ties in id order (a stable sort).
std::vector<int> heaviest_first(const std::vector<unsigned int>& keys) {
    std::vector<int> ids(keys.size());
    std::iota(ids.begin(), ids.end(), 0);
    std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) { return keys[a] > keys[b]; });
    return ids;
}

TEST(GpuBinStage, TileOrderIsHeaviestFirst) {
    REQUIRE_GPU();
    // By hand, 3x2 tiles (one block, 4090 padding slots): lengths above
    // 65535 tie with it and keep tile order.
    EXPECT_EQ(gpu_tile_order({5, 9, 5, 0, 70000, 65535}, 3, 2), (std::vector<int>{4, 5, 1, 0, 2, 3}));
    std::mt19937 rng(15);
    std::uniform_int_distribution<unsigned int> length(0, 300);  // many ties
    for (const auto& [tx, ty] : {std::pair{64, 64}, std::pair{37, 29}, std::pair{128, 64}}) {
        std::vector<unsigned int> loads(size_t(tx) * ty);
        for (auto& l : loads) l = length(rng);
        loads[17] = 70000;
        loads[loads.size() - 5] = 100000;
        std::vector<unsigned int> keys = loads;
        const bool one_block = tx * ty <= 4096;  // kOrderBlockTiles: 16-bit keys; beyond, the device sort's 32
        if (one_block)
            for (auto& k : keys) k = std::min(k, 65535u);
        const std::vector<int> want = heaviest_first(keys);
        EXPECT_EQ(want[0], one_block ? 17 : int(loads.size()) - 5);
        EXPECT_EQ(gpu_tile_order(loads, tx, ty), want) << tx << "x" << ty << " tiles";
    }
    EXPECT_THROW(gpu_tile_order({1, 2, 3}, 2, 2), std::invalid_argument);
}

TEST(GpuBinStage, RecordedOrderPutsTheLongTilesFirst) {
    REQUIRE_GPU();
    // By hand: 8 tiles of total work 240, mean 30. Above 45: tiles 2 (50)
    // and 5 (60); above 37.5: tile 0 (40); above 30: tile 3 (33); the rest
    // (27 is not above the mean), each group in tile order.
    EXPECT_EQ(gpu_recorded_order({40, 10, 50, 33, 0, 60, 20, 27}), (std::vector<int>{2, 5, 0, 3, 1, 4, 6, 7}));
    // Exactly at a bound is not above it: mean 1, tile 3 above 1.5, tile 0 at the mean.
    EXPECT_EQ(gpu_recorded_order({1, 0, 0, 3}), (std::vector<int>{3, 0, 1, 2}));
    EXPECT_EQ(gpu_recorded_order({0, 0, 0}), (std::vector<int>{0, 1, 2}));  // the first frame: tile order
    EXPECT_EQ(gpu_recorded_order({0, 0, 7}), (std::vector<int>{2, 0, 1}));
    // More tiles than the block's 1024 threads (several rounds of the scan):
    // the host's four stable groups.
    std::mt19937 rng(30);
    std::uniform_int_distribution<unsigned int> chunks(0, 12);
    for (int tiles : {1024, 4096, 5000, 16384}) {
        std::vector<unsigned int> work(static_cast<size_t>(tiles));
        for (auto& w : work) w = chunks(rng);
        work[tiles - 1] = 400;  // the last tile, as biglittle's heavy tiles: among the first now
        const std::vector<int> want = recorded_order_groups(work);
        EXPECT_LT(std::find(want.begin(), want.end(), tiles - 1) - want.begin(), tiles / 3);
        EXPECT_EQ(gpu_recorded_order(work), want) << tiles << " tiles";
    }
    EXPECT_THROW(gpu_recorded_order({}), std::invalid_argument);
}

TEST(GpuBinStage, WorkOrderIsAStableSortHeaviestFirst) {
    REQUIRE_GPU();
    // By hand: work 40, 10, 50, 33, 0, 60, 20, 27 -> 60 (tile 5), 50 (2),
    // 40 (0), 33 (3), 27 (7), 20 (6), 10 (1), 0 (4); ties stay in tile
    // order; work above 65535 counts as 65535 (a tie with 65535).
    EXPECT_EQ(gpu_work_order({40, 10, 50, 33, 0, 60, 20, 27}), (std::vector<int>{5, 2, 0, 3, 7, 6, 1, 4}));
    EXPECT_EQ(gpu_work_order({3, 7, 3, 7}), (std::vector<int>{1, 3, 0, 2}));
    EXPECT_EQ(gpu_work_order({0, 0, 0}), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(gpu_work_order({65535, 70000, 5}), (std::vector<int>{0, 1, 2}));
    // A full grid of random lengths against std::stable_sort.
    std::mt19937 rng(31);
    std::uniform_int_distribution<unsigned int> length(0, 900);
    for (int tiles : {1, 255, 4096}) {
        std::vector<unsigned int> work(static_cast<size_t>(tiles));
        for (auto& w : work) w = length(rng);
        std::vector<int> want(static_cast<size_t>(tiles));
        std::iota(want.begin(), want.end(), 0);
        std::stable_sort(want.begin(), want.end(), [&](int a, int b) { return work[a] > work[b]; });
        EXPECT_EQ(gpu_work_order(work), want) << tiles << " tiles";
    }
    EXPECT_THROW(gpu_work_order({}), std::invalid_argument);
    EXPECT_THROW(gpu_work_order(std::vector<unsigned int>(4097, 1)), std::invalid_argument);
}

/// Stage times by name.
std::map<std::string, double> stage_ms(const std::vector<StageTime>& times) {
    std::map<std::string, double> m;
    for (const StageTime& t : times) m[t.name] = t.ms;
    return m;
}

TEST(GpuStageTimeline, EmptyStagesCountZeroAndWorkIsMeasuredWhole) {
    REQUIRE_GPU();
    // Two 256 MiB memsets, each at least 0.02 ms (no GPU writes 13 TB/s),
    // around a stage that queues nothing: listed in order with exactly 0 ms
    // and no event, so the first memset's stage ends at the second's start.
    const size_t bytes = size_t(256) << 20;
    DeviceBuffer<char> buf;
    buf.reserve("timeline test", bytes, nullptr);
    CudaStream s;
    StageTimeline t;
    t.mark("first", "Render", s.get());
    CR_CUDA(cudaMemsetAsync(buf.get(), 1, bytes, s.get()));
    t.mark_empty("nothing", "Advance", s.get());
    t.mark("second", "Render", s.get());
    CR_CUDA(cudaMemsetAsync(buf.get(), 2, bytes, s.get()));
    EXPECT_TRUE(t.read().empty());  // the last stage is still running
    t.close(s.get());
    std::vector<StageTime> times = t.read();
    ASSERT_EQ(times.size(), 3u);
    EXPECT_EQ(times[0].name, "first");
    EXPECT_EQ(times[1].name, "nothing");
    EXPECT_EQ(times[1].course, "Advance");
    EXPECT_EQ(times[1].ms, 0.0);
    EXPECT_GT(times[0].ms, 0.02);
    EXPECT_GT(times[2].ms, 0.02);
    // a stage marked after the close (a download) is its own work, not the
    // gap since the close
    t.mark("late", "", s.get());
    CR_CUDA(cudaMemsetAsync(buf.get(), 3, bytes, s.get()));
    t.close(s.get());
    times = t.read();
    ASSERT_EQ(times.size(), 4u);
    EXPECT_GT(times[3].ms, 0.02);
    // reopen() after a close: the next stage starts at the closing event
    // (a redo after the host's wait); a stage name listed twice, once empty,
    // is added up (batches)
    t.reset();
    t.mark("bin", "Render", s.get());
    CR_CUDA(cudaMemsetAsync(buf.get(), 4, bytes, s.get()));
    t.close(s.get());
    t.reopen();
    t.mark_empty("shade", "Render", s.get());
    t.mark("shade", "Render", s.get());
    CR_CUDA(cudaMemsetAsync(buf.get(), 5, bytes, s.get()));
    t.close(s.get());
    times = t.read();
    ASSERT_EQ(times.size(), 2u);
    EXPECT_EQ(times[1].name, "shade");
    EXPECT_GT(times[0].ms, 0.02);
    EXPECT_GT(times[1].ms, 0.02);
    // a frame of empty stages only reads as zeros
    t.reset();
    t.mark_empty("clear", "Clear", s.get());
    times = t.read();
    ASSERT_EQ(times.size(), 1u);
    EXPECT_EQ(times[0].ms, 0.0);
}

TEST(GpuStageTimeline, DeferredClearAndStaticAdvanceRecordNoTime) {
    REQUIRE_GPU();
    // The tiled kernels defer the clear into the shading launch and rgb does
    // not move: both stages list 0 ms. The naive kernel's clear is a launch,
    // and bouncingballs' advance is a kernel: both take time.
    auto frame = [](KernelKind k, const char* scene) {
        auto r = make_cuda_renderer(k);
        r->setup(make_scene(scene, 0), 257, 129);
        r->clear();
        r->advance();
        r->render();
        return stage_ms(r->timings());
    };
    for (KernelKind k : {KernelKind::Tiled, KernelKind::Persistent, KernelKind::FrontToBack}) {
        std::map<std::string, double> rgb = frame(k, "rgb");
        ASSERT_EQ(rgb.count("clear") + rgb.count("advance"), 2u);
        EXPECT_EQ(rgb["clear"], 0.0);
        EXPECT_EQ(rgb["advance"], 0.0);
        EXPECT_GT(rgb["shade"], 0.0);
        EXPECT_GT(frame(k, "bouncingballs")["advance"], 0.0);
    }
    EXPECT_GT(frame(KernelKind::Naive, "rgb")["clear"], 0.0);
}

}  // namespace
}  // namespace cr
